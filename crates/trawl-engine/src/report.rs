//! End-of-crawl reports in `JOB/reports/`.

use std::fmt::Write;

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

/// Writes `crawl-report.txt` (Heritrix's crawl report, with per-status, MIME type and host tables) and its JSON twin.
pub(crate) fn write(
    job: &Job,
    seeds: &[String],
    ending: &Ending,
    snap: &Snapshot,
    stats: &Stats,
) -> Result<(), Error> {
    let secs = snap.elapsed.as_secs_f64();
    let mut t = String::new();
    let _ = writeln!(t, "Crawl Name: {}", job.root().display());
    let _ = writeln!(t, "Crawl Status: {ending}");
    let _ = writeln!(t, "Duration Time: {secs:.1} s");
    let _ = writeln!(t, "Total Seeds: {}", seeds.len());
    let _ = writeln!(t, "URIs Processed: {}", snap.finished);
    let _ = writeln!(t, "URIs Crawled successfully: {}", snap.succeeded);
    let _ = writeln!(t, "URIs Failed to Crawl: {}", snap.failed);
    let _ = writeln!(t, "URIs Discovered: {}", snap.discovered);
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
    let _ = writeln!(t, "\n[mime types]\n{:>8} {:>12} type", "count", "bytes");
    for (mime, (n, b)) in &by_mime {
        let _ = writeln!(t, "{n:>8} {b:>12} {mime}");
    }
    let _ = writeln!(t, "\n[hosts]\n{:>8} {:>12} host", "count", "bytes");
    for (host, (n, b)) in &by_host {
        let _ = writeln!(t, "{n:>8} {b:>12} {host}");
    }
    job.write_file(&job.reports_dir().join("crawl-report.txt"), &t)?;

    let json = serde_json::json!({
        "status": ending.to_string(),
        "duration_s": secs,
        "seeds": seeds,
        "processed": snap.finished,
        "succeeded": snap.succeeded,
        "failed": snap.failed,
        "discovered": snap.discovered,
        "queued": snap.queued,
        "wire_bytes": snap.wire_bytes,
        "status_codes": by_status.iter().map(|(k, v)| (k.to_string(), *v)).collect::<std::collections::BTreeMap<_, _>>(),
        "mime_types": by_mime.iter().map(|(k, (n, b))| (k.clone(), serde_json::json!({"count": n, "bytes": b}))).collect::<serde_json::Map<_, _>>(),
        "hosts": by_host.iter().map(|(k, (n, b))| (k.clone(), serde_json::json!({"count": n, "bytes": b}))).collect::<serde_json::Map<_, _>>(),
    });
    job.write_file(
        &job.reports_dir().join("crawl-report.json"),
        &format!("{json:#}\n"),
    )
}
