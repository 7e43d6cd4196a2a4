//! Crawl statistics: counters the workers bump and the progress display reads.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    sync::{
        Mutex, PoisonError,
        atomic::{AtomicU64, Ordering::Relaxed},
    },
    time::{Duration, Instant},
};

/// Live counters, shared by all workers.
#[derive(Debug)]
pub struct Stats {
    started: Instant,
    finished: AtomicU64,
    succeeded: AtomicU64,
    failed: AtomicU64,
    wire_bytes: AtomicU64,
    by_status: Mutex<BTreeMap<i32, u64>>,
    by_mime: Mutex<BTreeMap<String, (u64, u64)>>,
    by_host: Mutex<BTreeMap<String, (u64, u64)>>,
    seeds: Mutex<BTreeMap<String, SeedOutcome>>,
    groups: Mutex<UrlGroups>,
}

/// What became of one seed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SeedOutcome {
    /// Its final status.
    pub status: i32,
    /// Where it redirected to, if it did.
    pub redirect: Option<String>,
}

/// URLs grouped by normalized key and by version template, for reports; bounded so a huge crawl cannot grow it
/// without limit (groups past the bound are not counted, and the report says so).
#[derive(Debug, Default)]
pub struct UrlGroups {
    /// Normalized key -> (URLs, first URL seen).
    pub by_norm: HashMap<String, (u64, String)>,
    /// Version template -> (URLs, versions seen).
    pub by_template: HashMap<String, (u64, BTreeSet<String>)>,
    /// Whether the bound was reached.
    pub truncated: bool,
}

/// Groups kept at most, per kind.
const MAX_GROUPS: usize = 200_000;

/// A consistent-enough copy of the counters at one moment.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// Time since the crawl began.
    pub elapsed: Duration,
    /// URIs finished (one crawl.log line each).
    pub finished: u64,
    /// URIs finished with an HTTP response.
    pub succeeded: u64,
    /// URIs finished without one (negative status).
    pub failed: u64,
    /// Bytes received on the wire.
    pub wire_bytes: u64,
    /// URIs waiting in the frontier.
    pub queued: u64,
    /// URIs being processed.
    pub in_flight: u64,
    /// Distinct URIs discovered and accepted.
    pub discovered: u64,
    /// Hosts with work queued or in flight.
    pub active_queues: u64,
}

impl Snapshot {
    /// Finished URIs per second since the start.
    pub fn rate(&self) -> f64 {
        self.finished as f64 / self.elapsed.as_secs_f64().max(1e-3)
    }

    /// One line for logs and non-TTY progress.
    pub fn line(&self) -> String {
        format!(
            "{} done ({} ok, {} failed), {} queued, {} in flight, {} hosts active, {:.1} URIs/s, {:.1} MiB received",
            self.finished,
            self.succeeded,
            self.failed,
            self.queued,
            self.in_flight,
            self.active_queues,
            self.rate(),
            self.wire_bytes as f64 / (1 << 20) as f64
        )
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Stats {
    /// Counters starting now.
    pub fn new() -> Stats {
        Stats {
            started: Instant::now(),
            finished: AtomicU64::new(0),
            succeeded: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            wire_bytes: AtomicU64::new(0),
            by_status: Mutex::default(),
            by_mime: Mutex::default(),
            by_host: Mutex::default(),
            seeds: Mutex::default(),
            groups: Mutex::default(),
        }
    }

    /// Counts one finished URI.
    pub fn record(&self, status: i32, host: &str, mime: Option<&str>, wire_bytes: u64) {
        self.finished.fetch_add(1, Relaxed);
        if status > 0 {
            self.succeeded.fetch_add(1, Relaxed);
        } else {
            self.failed.fetch_add(1, Relaxed);
        }
        self.wire_bytes.fetch_add(wire_bytes, Relaxed);
        *lock(&self.by_status).entry(status).or_default() += 1;
        let m = &mut *lock(&self.by_mime);
        let e = m.entry(mime.unwrap_or("-").to_string()).or_default();
        e.0 += 1;
        e.1 += wire_bytes;
        let h = &mut *lock(&self.by_host);
        let e = h.entry(host.to_string()).or_default();
        e.0 += 1;
        e.1 += wire_bytes;
    }

    /// The counters now; frontier figures are filled in by the caller.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            elapsed: self.started.elapsed(),
            finished: self.finished.load(Relaxed),
            succeeded: self.succeeded.load(Relaxed),
            failed: self.failed.load(Relaxed),
            wire_bytes: self.wire_bytes.load(Relaxed),
            ..Snapshot::default()
        }
    }

    /// Records a seed's final status.
    pub fn record_seed(&self, uri: &str, status: i32) {
        lock(&self.seeds).entry(uri.to_string()).or_default().status = status;
    }

    /// Records where a seed redirected to.
    pub fn record_seed_redirect(&self, uri: &str, target: &str) {
        lock(&self.seeds)
            .entry(uri.to_string())
            .or_default()
            .redirect = Some(target.to_string());
    }

    /// Counts a fetched URL in its normalized-key group and its version-template group.
    pub fn record_groups(&self, uri: &str, norm: &str, template: Option<(&str, &str)>) {
        let g = &mut *lock(&self.groups);
        let full = g.by_norm.len() >= MAX_GROUPS;
        match g.by_norm.get_mut(norm) {
            Some(e) => e.0 += 1,
            None if !full => {
                g.by_norm.insert(norm.to_string(), (1, uri.to_string()));
            }
            None => g.truncated = true,
        }
        if let Some((template, version)) = template {
            let full = g.by_template.len() >= MAX_GROUPS;
            match g.by_template.get_mut(template) {
                Some(e) => {
                    e.0 += 1;
                    e.1.insert(version.to_string());
                }
                None if !full => {
                    g.by_template.insert(
                        template.to_string(),
                        (1, BTreeSet::from([version.to_string()])),
                    );
                }
                None => g.truncated = true,
            }
        }
    }

    /// Every seed's outcome.
    pub fn seeds(&self) -> BTreeMap<String, SeedOutcome> {
        lock(&self.seeds).clone()
    }

    /// Runs `f` on the URL groups.
    pub fn with_groups<R>(&self, f: impl FnOnce(&UrlGroups) -> R) -> R {
        f(&lock(&self.groups))
    }

    /// URIs per status code.
    pub fn by_status(&self) -> BTreeMap<i32, u64> {
        lock(&self.by_status).clone()
    }

    /// URIs and bytes per MIME type.
    pub fn by_mime(&self) -> BTreeMap<String, (u64, u64)> {
        lock(&self.by_mime).clone()
    }

    /// URIs and bytes per host.
    pub fn by_host(&self) -> BTreeMap<String, (u64, u64)> {
        lock(&self.by_host).clone()
    }
}

impl Default for Stats {
    fn default() -> Self {
        Stats::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_count_spellings_and_versions() {
        let s = Stats::new();
        s.record_groups("https://a.org/doc/", "http://a.org/doc", None);
        s.record_groups("http://www.a.org/doc.html", "http://a.org/doc", None);
        s.record_groups(
            "https://d.org/3.12/x.html",
            "http://d.org/3.12/x",
            Some(("https://d.org/%s/x.html", "3.12")),
        );
        s.record_groups(
            "https://d.org/3.13/x.html",
            "http://d.org/3.13/x",
            Some(("https://d.org/%s/x.html", "3.13")),
        );
        s.with_groups(|g| {
            assert_eq!(
                g.by_norm["http://a.org/doc"],
                (2, "https://a.org/doc/".to_string())
            );
            let (n, versions) = &g.by_template["https://d.org/%s/x.html"];
            assert_eq!(*n, 2);
            assert_eq!(versions.iter().collect::<Vec<_>>(), ["3.12", "3.13"]);
            assert!(!g.truncated);
        });
        s.record_seed("http://a.org/", 301);
        s.record_seed_redirect("http://a.org/", "https://a.org/");
        assert_eq!(
            s.seeds()["http://a.org/"],
            SeedOutcome {
                status: 301,
                redirect: Some("https://a.org/".into())
            }
        );
    }
}
