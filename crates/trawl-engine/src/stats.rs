//! Crawl statistics: counters the workers bump and the progress display reads.

use std::{
    collections::BTreeMap,
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
}

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
