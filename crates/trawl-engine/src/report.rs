//! Reports: written to `JOB/reports/` at the end of every crawl, and rendered on demand from a running one.

use std::fmt::Write;

use serde::{Deserialize, Serialize};
use trawl_frontier::QueueInfo;

use crate::{
    Error,
    job::Job,
    stats::{Snapshot, Stats},
};

/// How the crawl ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// Every queued URI was processed.
    Finished,
    /// The operator stopped it.
    Stopped,
    /// An error ended it (the reason).
    Failed(String),
}

impl std::fmt::Display for Ending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ending::Finished => f.write_str("FINISHED"),
            Ending::Stopped => f.write_str("STOPPED by operator"),
            Ending::Failed(why) => write!(f, "FAILED: {why}"),
        }
    }
}

/// The reports, by name; each is written as `NAME-report.txt` and `NAME-report.json`.
pub const NAMES: [&str; 8] = [
    "crawl",
    "seeds",
    "hosts",
    "mimetype",
    "responsecode",
    "sources",
    "frontier",
    "url-groups",
];

/// One report in both forms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// One of [`NAMES`].
    pub name: String,
    /// For people.
    pub text: String,
    /// For programs.
    pub json: serde_json::Value,
}

impl Report {
    fn new(name: &str, text: String, json: serde_json::Value) -> Report {
        Report {
            name: name.to_string(),
            text,
            json,
        }
    }

    /// The file names of a report: `NAME-report.txt` and `NAME-report.json`.
    pub fn files(name: &str) -> (String, String) {
        (format!("{name}-report.txt"), format!("{name}-report.json"))
    }
}

/// Writes every report into `JOB/reports/`.
pub(crate) fn write(job: &Job, reports: &[Report]) -> Result<(), Error> {
    for r in reports {
        let (txt, json) = Report::files(&r.name);
        job.write_file(&job.reports_dir().join(txt), &r.text)?;
        job.write_file(&job.reports_dir().join(json), &format!("{:#}\n", r.json))?;
    }
    Ok(())
}

/// Every report of [`NAMES`], in that order. `status` is the crawl's ending, or `RUNNING` for a report on
/// demand.
pub(crate) fn render(
    job: &Job,
    seeds: &[String],
    status: &str,
    snap: &Snapshot,
    stats: &Stats,
    queues: &[QueueRow],
) -> Vec<Report> {
    let mut out = vec![summary(job, seeds, status, snap, stats)];
    out.extend(details(stats, queues));
    out
}

/// Heritrix's crawl report, with per-status, MIME type and host tables.
fn summary(job: &Job, seeds: &[String], ending: &str, snap: &Snapshot, stats: &Stats) -> Report {
    let secs = snap.elapsed.as_secs_f64();
    let mut t = String::new();
    let _ = writeln!(t, "Crawl Name: {}", job.root().display());
    let _ = writeln!(t, "Crawl Status: {ending}");
    let _ = writeln!(t, "Duration Time: {secs:.1} s");
    let _ = writeln!(t, "Total Seeds: {}", seeds.len());
    let _ = writeln!(t, "URIs Processed: {}", snap.finished);
    let _ = writeln!(t, "URIs Crawled successfully: {}", snap.succeeded);
    let _ = writeln!(t, "URIs Failed to Crawl: {}", snap.failed);
    let _ = writeln!(t, "URIs Disregarded: {}", snap.disregarded);
    let dedup = stats.dedup();
    let _ = writeln!(
        t,
        "Duplicate payloads (revisits): {} ({} bytes not stored again)",
        dedup.revisits, dedup.revisit_bytes
    );
    let _ = writeln!(t, "Not modified (304 revisits): {}", dedup.not_modified);
    let _ = writeln!(t, "URIs Discovered: {}", snap.discovered);
    let _ = writeln!(t, "URIs Refused Before Queued: {}", snap.refused);
    let _ = writeln!(t, "URIs Left Queued: {}", snap.queued);
    let _ = writeln!(t, "Total Data Received: {} bytes", snap.wire_bytes);
    let _ = writeln!(t, "URIs/sec: {:.2}", snap.rate());
    let _ = writeln!(
        t,
        "KB/sec: {:.1}",
        snap.wire_bytes as f64 / 1024.0 / secs.max(1e-3)
    );
    let by_status = stats.by_status();
    let by_mime = stats.by_mime();
    let by_host = stats.by_host();
    let _ = writeln!(t, "\n[status codes]\n{:>8} {:>8}", "count", "status");
    for (status, n) in &by_status {
        let _ = writeln!(t, "{n:>8} {status:>8}");
    }
    let by_hop = stats.by_hop();
    let _ = writeln!(t, "\n[last hop]\n{:>8} hop", "count");
    for (hop, n) in &by_hop {
        let _ = writeln!(t, "{n:>8} {hop}");
    }
    let _ = writeln!(t, "\n[mime types]\n{:>8} {:>12} type", "count", "bytes");
    for (mime, (n, b)) in &by_mime {
        let _ = writeln!(t, "{n:>8} {b:>12} {mime}");
    }
    let _ = writeln!(t, "\n[hosts]\n{:>8} {:>12} host", "count", "bytes");
    for (host, (n, b)) in &by_host {
        let _ = writeln!(t, "{n:>8} {b:>12} {host}");
    }
    // Hosts whose servers asked for a pause (`Retry-After`): only they wait, until then.
    let waiting = stats.waiting_hosts();
    if !waiting.is_empty() {
        let _ = writeln!(t, "\n[hosts asked to wait]\n{:<20} host", "until (UTC)");
        for (host, until) in &waiting {
            let _ = writeln!(t, "{:<20} {host}", until.format("%Y-%m-%dT%H:%M:%SZ"));
        }
    }
    let json = serde_json::json!({
        "status": ending,
        "duration_s": secs,
        "seeds": seeds,
        "processed": snap.finished,
        "succeeded": snap.succeeded,
        "failed": snap.failed,
        "disregarded": snap.disregarded,
        "dedup": {
            "revisits": dedup.revisits,
            "revisit_bytes": dedup.revisit_bytes,
            "not_modified": dedup.not_modified,
        },
        "discovered": snap.discovered,
        "refused": snap.refused,
        "queued": snap.queued,
        "wire_bytes": snap.wire_bytes,
        "status_codes": by_status.iter().map(|(k, v)| (k.to_string(), *v)).collect::<std::collections::BTreeMap<_, _>>(),
        "last_hops": by_hop.iter().map(|(k, v)| (k.to_string(), *v)).collect::<std::collections::BTreeMap<_, _>>(),
        "mime_types": by_mime.iter().map(|(k, (n, b))| (k.clone(), serde_json::json!({"count": n, "bytes": b}))).collect::<serde_json::Map<_, _>>(),
        "hosts": by_host.iter().map(|(k, (n, b))| (k.clone(), serde_json::json!({"count": n, "bytes": b}))).collect::<serde_json::Map<_, _>>(),
        "hosts_asked_to_wait": waiting.iter().map(|(h, until)| (h.clone(), serde_json::json!(until.to_rfc3339()))).collect::<serde_json::Map<_, _>>(),
    });
    Report::new("crawl", t, json)
}

/// The per-topic reports Heritrix writes: seeds, hosts, MIME types, response codes, frontier, and URL groups by
/// normalized key and version template.
fn details(stats: &Stats, queues: &[QueueRow]) -> Vec<Report> {
    let mut out = Vec::new();
    let mut t = format!("{:>7} {:<60} redirect\n", "status", "seed");
    let seeds = stats.seeds();
    for (seed, o) in &seeds {
        let _ = writeln!(
            t,
            "{:>7} {seed:<60} {}",
            o.status,
            o.redirect.as_deref().unwrap_or("-")
        );
    }
    let json =
        serde_json::json!(seeds
        .iter()
        .map(|(s, o)| serde_json::json!({"seed": s, "status": o.status, "redirect": o.redirect}))
        .collect::<Vec<_>>());
    out.push(Report::new("seeds", t, json));

    let mut t = format!("{:>8} {:>12} {:<40} statuses\n", "urls", "bytes", "host");
    let hosts = stats.by_host();
    let statuses = stats.host_statuses();
    let of = |host: &str| statuses.get(host).cloned().unwrap_or_default();
    for (host, (n, b)) in &hosts {
        let codes: Vec<String> = of(host).iter().map(|(c, n)| format!("{c}:{n}")).collect();
        let _ = writeln!(t, "{n:>8} {b:>12} {host:<40} {}", codes.join(" "));
    }
    let json = serde_json::json!(
        hosts
            .iter()
            .map(|(h, (n, b))| {
                let codes: serde_json::Map<String, serde_json::Value> = of(h)
                    .iter()
                    .map(|(c, n)| (c.to_string(), (*n).into()))
                    .collect();
                serde_json::json!({"host": h, "urls": n, "bytes": b, "statuses": codes})
            })
            .collect::<Vec<_>>()
    );
    out.push(Report::new("hosts", t, json));

    let mut t = format!("{:>8} {:>12} mime type\n", "urls", "bytes");
    let mimes = stats.by_mime();
    for (m, (n, b)) in &mimes {
        let _ = writeln!(t, "{n:>8} {b:>12} {m}");
    }
    let json = serde_json::json!(
        mimes
            .iter()
            .map(|(m, (n, b))| serde_json::json!({"mime": m, "urls": n, "bytes": b}))
            .collect::<Vec<_>>()
    );
    out.push(Report::new("mimetype", t, json));

    let mut t = format!("{:>8} {:>7}\n", "urls", "status");
    let codes = stats.by_status();
    for (code, n) in &codes {
        let _ = writeln!(t, "{n:>8} {code:>7}");
    }
    let json = serde_json::json!(
        codes
            .iter()
            .map(|(c, n)| serde_json::json!({"status": c, "urls": n}))
            .collect::<Vec<_>>()
    );
    out.push(Report::new("responsecode", t, json));

    let mut t = format!("{:<50} {:>8} {:>12} host\n", "source", "urls", "bytes");
    let sources = stats.by_source();
    for (source, hosts) in &sources {
        for (host, (n, b)) in hosts {
            let _ = writeln!(t, "{source:<50} {n:>8} {b:>12} {host}");
        }
    }
    let json = serde_json::json!(
        sources
            .iter()
            .map(|(s, hosts)| serde_json::json!({
                "source": s,
                "hosts": hosts.iter().map(|(h, (n, b))| serde_json::json!({"host": h, "urls": n, "bytes": b})).collect::<Vec<_>>(),
            }))
            .collect::<Vec<_>>()
    );
    out.push(Report::new("sources", t, json));

    let mut t = format!(
        "{:<40} {:<11} {:>9} {:>9}\n",
        "queue", "state", "queued", "spent"
    );
    for q in queues {
        let _ = writeln!(
            t,
            "{:<40} {:<11} {:>9} {:>9}",
            q.name, q.state, q.queued, q.spent
        );
    }
    out.push(Report::new("frontier", t, serde_json::json!(queues)));

    // Only groups with more than one URL say something: spellings of one page, or one page in several versions.
    let (t, json) = stats.with_groups(|g| {
        let mut norm: Vec<_> = g.by_norm.iter().filter(|(_, (n, _))| *n > 1).collect();
        norm.sort_by(|a, b| b.1.0.cmp(&a.1.0).then_with(|| a.0.cmp(b.0)));
        let mut templates: Vec<_> = g.by_template.iter().filter(|(_, (n, _))| *n > 1).collect();
        templates.sort_by(|a, b| b.1.0.cmp(&a.1.0).then_with(|| a.0.cmp(b.0)));
        let mut t = String::from("[normalized keys grouping more than one URL]\n");
        for (key, (n, first)) in &norm {
            let _ = writeln!(t, "{n:>8} {key} (e.g. {first})");
        }
        t.push_str("\n[version templates grouping more than one URL]\n");
        for (template, (n, versions)) in &templates {
            let v: Vec<&str> = versions.iter().map(String::as_str).collect();
            let _ = writeln!(t, "{n:>8} {template} ({})", v.join(", "));
        }
        if g.truncated {
            t.push_str("\n(more groups than the report keeps; the largest crawl-wide groups may be missing)\n");
        }
        let json = serde_json::json!({
            "normalized_keys": norm.iter().map(|(k, (n, f))| serde_json::json!({"key": k, "urls": n, "example": f})).collect::<Vec<_>>(),
            "version_templates": templates.iter().map(|(k, (n, v))| serde_json::json!({"template": k, "urls": n, "versions": v})).collect::<Vec<_>>(),
            "truncated": g.truncated,
        });
        (t, json)
    });
    out.push(Report::new("url-groups", t, json));
    out
}
/// A queue as listed to operators (the JSON form of [`QueueInfo`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueRow {
    /// The queue key.
    pub name: String,
    /// ready, in-process, snoozed, inactive, paused, retired or exhausted.
    pub state: String,
    /// URIs waiting.
    pub queued: u64,
    /// URIs being fetched.
    pub in_flight: usize,
    /// URIs ever scheduled.
    pub spent: u64,
    /// Its budget, if any.
    pub budget: Option<u64>,
    /// An operator's delay in ms, if set.
    pub delay_ms: Option<u64>,
    /// Milliseconds until it may be fetched from again.
    pub wait_ms: u64,
}

impl From<QueueInfo> for QueueRow {
    fn from(q: QueueInfo) -> QueueRow {
        QueueRow {
            name: q.name,
            state: q.state.name().to_string(),
            queued: q.queued,
            in_flight: q.in_flight,
            spent: q.spent,
            budget: q.budget,
            delay_ms: q.delay.map(|d| d.as_millis() as u64),
            wait_ms: q.wait.as_millis() as u64,
        }
    }
}
