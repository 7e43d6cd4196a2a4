//! Crawl statistics: counters the workers bump and the progress display reads.

use serde::{Deserialize, Serialize};

use std::{
    borrow::Cow,
    collections::{BTreeMap, BTreeSet, HashMap},
    sync::{
        Mutex, PoisonError,
        atomic::{AtomicU64, Ordering::Relaxed},
    },
    time::{Duration, Instant},
};

/// Whether a URI finished with `status` was one the crawl chose not to fetch (Heritrix's "disregarded"), not
/// one that failed: refused by a decide rule (-5000), the address policy (-5001), its queue's budget
/// (-5003), robots.txt (-9998), the hop limit (-4001), or its robots.txt refused by the scope (-63). An
/// operator reading "675 failed" looked for a broken site (xt10a F9).
pub fn disregarded(status: i32) -> bool {
    matches!(status, -5000 | -5001 | -5003 | -9998 | -4001 | -63)
}

/// Live counters, shared by all workers.
#[derive(Debug)]
pub struct Stats {
    started: Instant,
    /// Time crawled by earlier runs of the job (a resumed crawl carries its counters on).
    before: Duration,
    finished: AtomicU64,
    succeeded: AtomicU64,
    failed: AtomicU64,
    /// URIs the crawl chose not to fetch ([`disregarded`]): apart from `failed`.
    disregarded: AtomicU64,
    wire_bytes: AtomicU64,
    by_status: Mutex<BTreeMap<i32, u64>>,
    /// URIs finished by the letter of their last hop (`L`, `E`, `X`, `S`, …; `-` for seeds).
    by_hop: Mutex<BTreeMap<char, u64>>,
    by_mime: Mutex<BTreeMap<String, (u64, u64)>>,
    /// Host -> its counts. Hashed, as every finished URI looks its host up (ordered, a broad crawl's 10,000
    /// hosts cost a dozen string comparisons each time); the reports sort it when they read it.
    hosts: Mutex<Hashed<HostTally>>,
    seeds: Mutex<BTreeMap<String, SeedOutcome>>,
    /// API URL -> the seed handed over to it, until the API URL's status is known.
    seed_apis: Mutex<HashMap<String, String>>,
    groups: Mutex<UrlGroups>,
    /// Source tag (seed) -> host -> (URIs, bytes).
    /// Hashed for the same reason as `hosts`.
    by_source: Mutex<Hashed<HostTallies>>,
    source_rows: AtomicU64,
    latency: [AtomicU64; LATENCY_BOUNDS_MS.len() + 1],
    latency_sum_us: AtomicU64,
    /// Hosts whose server asked them to wait (`Retry-After`), until when (not saved: a resumed crawl asks
    /// again).
    asked_to_wait: Mutex<HashMap<String, chrono::DateTime<chrono::Utc>>>,
    /// URLs taken from sitemaps so far, per host (`[extract] sitemap_max_urls_per_host`): saved, so a
    /// resumed crawl goes on with what is left of each host's allowance.
    sitemap_urls: Mutex<HashMap<String, u64>>,
    /// Deduplication: payloads written as identical-payload revisits, their bytes, and server-not-modified
    /// revisits (`304`s of a conditional recrawl).
    revisits: AtomicU64,
    revisit_bytes: AtomicU64,
    not_modified: AtomicU64,
}

/// What deduplication saved: the report's `dedup` figures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Dedup {
    /// Payloads already archived, written as identical-payload-digest revisits.
    pub revisits: u64,
    /// Their payload bytes, not stored again.
    pub revisit_bytes: u64,
    /// `304 Not Modified` answers of a conditional recrawl, written as server-not-modified revisits.
    pub not_modified: u64,
}

/// URIs and bytes per host.
pub type HostCounts = BTreeMap<String, (u64, u64)>;

/// A map looked up by `&str` on every finished URI: `entry_ref` makes the key's `String` only for a new
/// entry, in one lookup.
type Hashed<V> = hashbrown::HashMap<String, V, foldhash::fast::RandomState>;

/// URIs and bytes per host, hashed (as kept during the crawl).
type HostTallies = Hashed<(u64, u64)>;

/// One host's counts.
#[derive(Debug, Default)]
struct HostTally {
    uris: u64,
    bytes: u64,
    /// Status -> URIs.
    statuses: BTreeMap<i32, u64>,
}

/// Upper bounds (ms) of the fetch-latency histogram's buckets; a last bucket takes the rest.
pub const LATENCY_BOUNDS_MS: [u64; 13] = [
    5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000,
];

/// Fetch latencies: how many fetches took at most each of [`LATENCY_BOUNDS_MS`] (not cumulative; the
/// last count is of the slower ones), and their total.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Latency {
    /// Fetches per bucket, one more than there are bounds.
    pub counts: Vec<u64>,
    /// Seconds spent in all of them.
    pub sum_s: f64,
}

impl Latency {
    /// Fetches measured.
    pub fn count(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The fetch latencies the job in `job_dir` saved last (`state/stats.json`; empty when it saved none):
    /// what a job not running shows, so that its histogram does not drop to zero when a server restarts,
    /// which a Prometheus `rate()` would take for a reset (xt37a F10).
    pub fn saved(job_dir: &std::path::Path) -> Latency {
        /// The two fields of [`SavedStats`] wanted here; the rest is passed over.
        #[derive(Deserialize, Default)]
        #[serde(default)]
        struct Saved {
            latency: Vec<u64>,
            latency_sum_us: u64,
        }
        std::fs::read_to_string(job_dir.join("state").join(STATS_FILE))
            .ok()
            .and_then(|text| serde_json::from_str::<Saved>(&text).ok())
            .map(|s| Latency {
                counts: s.latency,
                sum_s: s.latency_sum_us as f64 / 1e6,
            })
            .unwrap_or_default()
    }
}

/// What became of one seed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeedOutcome {
    /// Its final status.
    pub status: i32,
    /// Where it redirected to, if it did.
    pub redirect: Option<String>,
    /// Its crawl.log annotations (why it failed: `err=connect`, `3t`…), comma-joined; empty when none.
    #[serde(default)]
    pub notes: String,
}

impl SeedOutcome {
    /// Whether the seed got an HTTP response (any status).
    pub fn fetched(&self) -> bool {
        self.status > 0
    }

    /// Why a seed got no response, in words, from its status (and its notes: a proxy's failure is not the
    /// origin's; a -61's `robots:` note says what became of its robots.txt).
    pub fn cause(&self) -> Cow<'static, str> {
        use trawl_config::status;
        let proxy = self.notes.split(',').any(|n| n.ends_with("err=proxy"));
        let robots = self
            .notes
            .split(',')
            .find_map(|n| n.strip_prefix("robots:"));
        if self.status == status::ROBOTS_PREREQUISITE_FAILED {
            // A redirect of the robots.txt to a refused address: the origin's own address is -5001 instead.
            if let Some(range) = robots.and_then(|r| r.strip_prefix("refused=")) {
                return format!(
                    "its robots.txt redirects to an address the address policy refuses ({range}), so its host \
                     was not crawled: add that address to fetch.allow_addresses"
                )
                .into();
            }
            // Answered, but cut short by a timeout or a broken connection: no answer either (xt21a F7: said
            // to be a 5xx).
            if matches!(robots, Some("midFetchTrunc" | "timeTrunc")) {
                return "its robots.txt was answered but cut short (a broken connection or a timeout) through \
                        all its retries, so its host was not crawled"
                    .into();
            }
            // No answer, said by what kept it (xt42a: a name that did not resolve was said "no answer or a
            // 5xx").
            let unanswered = match robots {
                Some("err=dns") => Some("its name did not resolve (DNS)"),
                Some("err=connect") => {
                    Some("no connection could be made, or its TLS handshake failed")
                }
                Some("err=timeout") => Some("no answer came within the timeout"),
                _ => None,
            };
            if let Some(why) = unanswered {
                return format!(
                    "its robots.txt could not be fetched ({why}) through all its retries, so its host was not \
                     crawled"
                )
                .into();
            }
            if robots == Some("429") {
                return "its robots.txt was answered 429 (the site limited requests) through all its retries, \
                        so its host was not crawled: crawl it later or more slowly (frontier.min_delay_ms, \
                        frontier.retry_delay_ms)"
                    .into();
            }
        }
        Cow::Borrowed(match self.status {
            status::CONNECT_FAILED if proxy => {
                "the proxy gave no tunnel to its host (the origin was not reached)"
            }
            status::ROBOTS_PREREQUISITE_FAILED if proxy => {
                "its robots.txt could not be fetched: the proxy gave no tunnel (the origin was not reached), so its host was not crawled"
            }
            status::CONNECT_FAILED => {
                "could not connect (connection refused or unreachable, or its TLS handshake failed)"
            }
            status::DNS_FAILED => "its host name did not resolve (DNS)",
            status::CONNECTION_BROKEN => "the connection broke before an answer",
            status::TIMEOUT => "no answer within the timeout",
            status::UNFETCHABLE => "it cannot be sent as an HTTP request",
            status::RUNTIME_EXCEPTION => {
                "processing it hit a bug in trawl (a panic; please report it)"
            }
            status::ROBOTS_PREREQUISITE_FAILED => {
                "its robots.txt could not be fetched (no answer or a 5xx), so its host was not crawled"
            }
            status::PREREQUISITE_UNSCHEDULABLE => "the scope refused its robots.txt",
            status::ROBOTS_DISALLOWED => "robots.txt forbids it",
            status::ADDRESS_REFUSED => {
                "the address policy refuses its host's address (fetch.allow_addresses)"
            }
            status::OUT_OF_SCOPE | status::TOO_MANY_HOPS => "a decide rule refused it",
            status::OVER_QUOTA => "its host's budget was spent",
            s if s > 0 => "it was fetched",
            _ => "it was not fetched",
        })
    }
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
    /// URIs finished without one (negative status), the disregarded ones apart.
    pub failed: u64,
    /// URIs the crawl chose not to fetch: refused by the scope, a gate, robots.txt, the address policy, a
    /// budget, the hop limit ([`disregarded`]); Heritrix's "disregarded".
    pub disregarded: u64,
    /// Bytes received on the wire.
    pub wire_bytes: u64,
    /// URIs waiting in the frontier.
    pub queued: u64,
    /// URIs being processed.
    pub in_flight: u64,
    /// URIs discovered: the distinct URIs the frontier took, and those refused with a crawl.log line before it
    /// took them ([`Snapshot::refused`]); a URI refused, then queued after all (a link past the hop limit found
    /// again as an embed), counts in both, as it has a line for each.
    pub discovered: u64,
    /// Of the discovered, the URIs refused before they were queued (by the scope, -5000 or -4001, or a
    /// queue's budget, -5003), each logged once.
    pub refused: u64,
    /// Hosts with work queued or in flight.
    pub active_queues: u64,
    /// Fetch latencies.
    pub latency: Latency,
    /// When nothing is being fetched but URIs wait: the queue that may be fetched from first, and when.
    pub waiting: Option<(String, chrono::DateTime<chrono::Utc>)>,
    /// With nothing else to fetch: the queues an operator paused or retired that hold URIs, and how many.
    pub held: Option<(usize, u64)>,
    /// Hosts waiting because their server said so (`Retry-After`): how many, and the one waiting longest
    /// with its time.
    pub asked_to_wait: Option<(usize, String, chrono::DateTime<chrono::Utc>)>,
}

/// A job's main counters as last saved (`JOB/state/totals.json`, with the full counters): what a job list
/// shows for a job that is not running.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Totals {
    /// Seconds crawled, all runs.
    pub elapsed_s: f64,
    /// URIs finished.
    pub finished: u64,
    /// URIs finished with an HTTP response.
    pub succeeded: u64,
    /// URIs finished without one, the disregarded ones apart.
    pub failed: u64,
    /// URIs the crawl chose not to fetch.
    pub disregarded: u64,
    /// URIs left queued.
    pub queued: u64,
    /// Distinct URIs discovered.
    pub discovered: u64,
    /// Of them, refused before they were queued.
    pub refused: u64,
    /// Queues with work.
    pub active_queues: u64,
    /// Bytes received.
    pub wire_bytes: u64,
}

/// Where [`Totals`] are saved in a job.
pub const TOTALS_FILE: &str = "state/totals.json";

/// The name of [`TOTALS_FILE`] in the state folder and in a checkpoint.
pub const TOTALS_NAME: &str = "totals.json";

impl Totals {
    /// The totals of `snap`.
    pub fn of(snap: &Snapshot) -> Totals {
        Totals {
            elapsed_s: snap.elapsed.as_secs_f64(),
            finished: snap.finished,
            succeeded: snap.succeeded,
            failed: snap.failed,
            disregarded: snap.disregarded,
            queued: snap.queued,
            discovered: snap.discovered,
            refused: snap.refused,
            active_queues: snap.active_queues,
            wire_bytes: snap.wire_bytes,
        }
    }

    /// The totals last saved in the job at `job_dir`, if any. Totals saved before the disregarded were
    /// counted apart hold them in `failed`: they are taken out by status, from the counters saved beside
    /// (xt11a F3: `trawl serve` showed an older job's refusals as failures).
    pub fn read(job_dir: &std::path::Path) -> Option<Totals> {
        let text = std::fs::read_to_string(job_dir.join(TOTALS_FILE)).ok()?;
        let value: serde_json::Value = serde_json::from_str(&text).ok()?;
        let split = value.get("disregarded").is_some();
        let mut totals: Totals = serde_json::from_value(value).ok()?;
        if !split
            && let Ok(saved) = std::fs::read_to_string(job_dir.join("state").join(STATS_FILE))
            && let Ok(saved) = serde_json::from_str::<SavedStats>(&saved)
        {
            let disregarded: u64 = saved
                .by_status
                .iter()
                .filter(|(status, _)| disregarded(**status))
                .map(|(_, n)| n)
                .sum::<u64>()
                .min(totals.failed);
            totals.failed -= disregarded;
            totals.disregarded = disregarded;
        }
        Some(totals)
    }
}

impl Snapshot {
    /// Finished URIs per second since the start.
    pub fn rate(&self) -> f64 {
        self.finished as f64 / self.elapsed.as_secs_f64().max(1e-3)
    }

    /// One line for logs and non-TTY progress; when every queue waits (politeness, a retry, a
    /// `Retry-After`), it says for which host and until when.
    pub fn line(&self) -> String {
        let mut line = format!(
            "{} done ({} ok, {} failed{}), {} queued, {} in flight, {} hosts active, {:.1} URIs/s, {:.1} MiB \
             received",
            self.finished,
            self.succeeded,
            self.failed,
            if self.disregarded > 0 {
                format!(", {} disregarded", self.disregarded)
            } else {
                String::new()
            },
            self.queued,
            self.in_flight,
            self.active_queues,
            self.rate(),
            self.wire_bytes as f64 / (1 << 20) as f64
        );
        if let Some((n, host, until)) = &self.asked_to_wait {
            let hosts = if *n == 1 { "host" } else { "hosts" };
            line.push_str(&format!(
                "; {n} {hosts} asked to wait (Retry-After), longest {host} until {} UTC",
                clock(until)
            ));
        }
        if let Some((queue, at)) = &self.waiting {
            line.push_str(&format!("; waiting for {queue} until {} UTC", clock(at)));
        }
        if let Some((queues, uris)) = self.held {
            line.push_str(&format!(
                "; {uris} URIs wait in {} paused or retired by the operator: the crawl ends when none is left \
                 (`trawl ctl JOB unpause-queue Q` takes one up again, `delete-queue Q` drops its URIs)",
                if queues == 1 {
                    "1 queue".to_string()
                } else {
                    format!("{queues} queues")
                }
            ));
        }
        line
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Every counter of [`Stats`] in a form that is saved with the job (`JOB/state/stats.json` and each
/// checkpoint), so a resumed crawl's counters and reports go on from where the job stopped.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedStats {
    elapsed_s: f64,
    finished: u64,
    succeeded: u64,
    failed: u64,
    /// `None` in counters saved before it was counted apart (then part of `failed`).
    disregarded: Option<u64>,
    wire_bytes: u64,
    by_status: BTreeMap<i32, u64>,
    by_hop: BTreeMap<char, u64>,
    by_mime: BTreeMap<String, (u64, u64)>,
    by_host: HostCounts,
    host_statuses: BTreeMap<String, BTreeMap<i32, u64>>,
    seeds: BTreeMap<String, SeedOutcome>,
    by_source: BTreeMap<String, HostCounts>,
    latency: Vec<u64>,
    latency_sum_us: u64,
    sitemap_urls: BTreeMap<String, u64>,
    revisits: u64,
    revisit_bytes: u64,
    not_modified: u64,
    by_norm: HashMap<String, (u64, String)>,
    by_template: HashMap<String, (u64, BTreeSet<String>)>,
    groups_truncated: bool,
}

impl Stats {
    /// Every counter, to save.
    pub fn save(&self) -> SavedStats {
        let groups = lock(&self.groups);
        SavedStats {
            elapsed_s: self.elapsed().as_secs_f64(),
            finished: self.finished.load(Relaxed),
            succeeded: self.succeeded.load(Relaxed),
            failed: self.failed.load(Relaxed),
            disregarded: Some(self.disregarded.load(Relaxed)),
            wire_bytes: self.wire_bytes.load(Relaxed),
            by_status: self.by_status(),
            by_hop: self.by_hop(),
            by_mime: self.by_mime(),
            by_host: self.by_host(),
            host_statuses: self.host_statuses(),
            seeds: self.seeds(),
            by_source: self.by_source(),
            latency: self.latency.iter().map(|c| c.load(Relaxed)).collect(),
            latency_sum_us: self.latency_sum_us.load(Relaxed),
            sitemap_urls: lock(&self.sitemap_urls)
                .iter()
                .map(|(h, n)| (h.clone(), *n))
                .collect(),
            revisits: self.revisits.load(Relaxed),
            revisit_bytes: self.revisit_bytes.load(Relaxed),
            not_modified: self.not_modified.load(Relaxed),
            by_norm: groups.by_norm.clone(),
            by_template: groups.by_template.clone(),
            groups_truncated: groups.truncated,
        }
    }

    /// Counters going on from `saved`, the clock running from now.
    pub fn restore(saved: SavedStats) -> Stats {
        let stats = Stats::new();
        // Counters saved before the disregarded were counted apart hold them in `failed`: taken out by status.
        let old_disregarded = match saved.disregarded {
            Some(_) => 0,
            None => saved
                .by_status
                .iter()
                .filter(|(status, _)| disregarded(**status))
                .map(|(_, n)| n)
                .sum::<u64>()
                .min(saved.failed),
        };
        let rows: usize = saved.by_source.values().map(BTreeMap::len).sum();
        let mut hosts: Hashed<HostTally> = saved
            .by_host
            .into_iter()
            .map(|(host, (uris, bytes))| {
                let tally = HostTally {
                    uris,
                    bytes,
                    ..HostTally::default()
                };
                (host, tally)
            })
            .collect();
        for (host, statuses) in saved.host_statuses {
            hosts.entry(host).or_default().statuses = statuses;
        }
        let latency =
            std::array::from_fn(|i| AtomicU64::new(saved.latency.get(i).copied().unwrap_or(0)));
        Stats {
            before: Duration::try_from_secs_f64(saved.elapsed_s).unwrap_or_default(),
            finished: AtomicU64::new(saved.finished),
            succeeded: AtomicU64::new(saved.succeeded),
            failed: AtomicU64::new(saved.failed - old_disregarded),
            disregarded: AtomicU64::new(saved.disregarded.unwrap_or(old_disregarded)),
            wire_bytes: AtomicU64::new(saved.wire_bytes),
            by_status: Mutex::new(saved.by_status),
            by_hop: Mutex::new(saved.by_hop),
            by_mime: Mutex::new(saved.by_mime),
            hosts: Mutex::new(hosts),
            seeds: Mutex::new(saved.seeds),
            seed_apis: Mutex::default(),
            by_source: Mutex::new(
                saved
                    .by_source
                    .into_iter()
                    .map(|(source, hosts)| (source, hosts.into_iter().collect()))
                    .collect(),
            ),
            source_rows: AtomicU64::new(rows as u64),
            latency,
            latency_sum_us: AtomicU64::new(saved.latency_sum_us),
            sitemap_urls: Mutex::new(saved.sitemap_urls.into_iter().collect()),
            revisits: AtomicU64::new(saved.revisits),
            revisit_bytes: AtomicU64::new(saved.revisit_bytes),
            not_modified: AtomicU64::new(saved.not_modified),
            groups: Mutex::new(UrlGroups {
                by_norm: saved.by_norm,
                by_template: saved.by_template,
                truncated: saved.groups_truncated,
            }),
            ..stats
        }
    }

    /// Counters counted again from the lines of a crawl.log, for a job whose earlier runs saved none (killed
    /// in their first 20 s, or ended on a disk too full to save them), the clock running from now. crawl.log
    /// holds body sizes, not bytes on the wire, nor URL groups or source tags: those stay short; the time
    /// crawled is its first line's to its last.
    pub fn recount(lines: impl IntoIterator<Item = crate::crawl_log::LogLine>) -> Stats {
        let stats = Stats::new();
        let duplicate = trawl_config::Annotation::Duplicate.to_string();
        let not_modified = trawl_config::Annotation::NotModified.to_string();
        let (mut first, mut last) = (None, None);
        for l in lines {
            let host = l.host();
            let size = l.size.unwrap_or(0);
            stats.record(l.status, &host, l.mime.as_deref(), size);
            for a in &l.annotations {
                if *a == duplicate {
                    stats.record_revisit(false, size);
                } else if *a == not_modified {
                    stats.record_revisit(true, 0);
                }
            }
            stats.record_hop(&l.hop_path);
            if let Some(ms) = l.fetch_ms() {
                stats.record_latency(Duration::from_millis(ms));
            }
            if l.hop_path.is_empty() {
                stats.record_seed(&l.uri, l.status, l.annotations.join(","));
            } else if l.hop_path == "I" {
                stats.record_seed_api_status(&l.uri, l.status);
            }
            if let Ok(t) = chrono::DateTime::parse_from_rfc3339(&l.timestamp) {
                first.get_or_insert(t);
                last = Some(t);
            }
        }
        let before = first
            .zip(last)
            .and_then(|(a, b)| (b - a).to_std().ok())
            .unwrap_or_default();
        Stats { before, ..stats }
    }

    /// Time crawled, this run and the job's earlier ones.
    fn elapsed(&self) -> Duration {
        self.before + self.started.elapsed()
    }

    /// Counters starting now.
    pub fn new() -> Stats {
        Stats {
            started: Instant::now(),
            before: Duration::ZERO,
            finished: AtomicU64::new(0),
            succeeded: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            disregarded: AtomicU64::new(0),
            wire_bytes: AtomicU64::new(0),
            by_status: Mutex::default(),
            by_hop: Mutex::default(),
            by_mime: Mutex::default(),
            hosts: Mutex::default(),
            seeds: Mutex::default(),
            seed_apis: Mutex::default(),
            groups: Mutex::default(),
            by_source: Mutex::default(),
            source_rows: AtomicU64::new(0),
            latency: Default::default(),
            latency_sum_us: AtomicU64::new(0),
            asked_to_wait: Mutex::default(),
            sitemap_urls: Mutex::default(),
            revisits: AtomicU64::new(0),
            revisit_bytes: AtomicU64::new(0),
            not_modified: AtomicU64::new(0),
        }
    }

    /// Takes up to `wanted` URLs of `host`'s sitemaps out of its `allowance` over the whole crawl; returns
    /// how many may be taken.
    pub fn take_sitemap_urls(&self, host: &str, wanted: u64, allowance: u64) -> u64 {
        let mut taken = lock(&self.sitemap_urls);
        let used = taken.entry(host.to_string()).or_default();
        let granted = wanted.min(allowance.saturating_sub(*used));
        *used += granted;
        granted
    }

    /// Notes that `host`'s server (a host, with its port where not the scheme's) asked it to wait `wait`
    /// (`Retry-After`).
    pub fn record_retry_after(&self, host: &str, wait: Duration) {
        let until = chrono::Utc::now() + chrono::Duration::from_std(wait).unwrap_or_default();
        lock(&self.asked_to_wait).insert(host.to_string(), until);
    }

    /// The hosts whose servers asked them to wait (`Retry-After`) and are still waiting, longest first.
    pub fn waiting_hosts(&self) -> Vec<(String, chrono::DateTime<chrono::Utc>)> {
        let now = chrono::Utc::now();
        let mut held: Vec<_> = lock(&self.asked_to_wait)
            .iter()
            .filter(|(_, until)| **until > now)
            .map(|(h, until)| (h.clone(), *until))
            .collect();
        held.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        held
    }

    /// Counts a revisit: of a payload already archived (`bytes` not stored again), or of a `304`.
    pub fn record_revisit(&self, not_modified: bool, bytes: u64) {
        if not_modified {
            self.not_modified.fetch_add(1, Relaxed);
        } else {
            self.revisits.fetch_add(1, Relaxed);
            self.revisit_bytes.fetch_add(bytes, Relaxed);
        }
    }

    /// What deduplication saved so far.
    pub fn dedup(&self) -> Dedup {
        Dedup {
            revisits: self.revisits.load(Relaxed),
            revisit_bytes: self.revisit_bytes.load(Relaxed),
            not_modified: self.not_modified.load(Relaxed),
        }
    }

    /// Counts one finished URI.
    pub fn record(&self, status: i32, host: &str, mime: Option<&str>, wire_bytes: u64) {
        self.finished.fetch_add(1, Relaxed);
        if status > 0 {
            self.succeeded.fetch_add(1, Relaxed);
        } else if disregarded(status) {
            self.disregarded.fetch_add(1, Relaxed);
        } else {
            self.failed.fetch_add(1, Relaxed);
        }
        self.wire_bytes.fetch_add(wire_bytes, Relaxed);
        *lock(&self.by_status).entry(status).or_default() += 1;
        let mime = mime.unwrap_or("-");
        let m = &mut *lock(&self.by_mime);
        let e = match m.get_mut(mime) {
            Some(e) => e,
            None => m.entry(mime.to_owned()).or_default(),
        };
        e.0 += 1;
        e.1 += wire_bytes;
        let hosts = &mut *lock(&self.hosts);
        let tally = hosts.entry_ref(host).or_default();
        tally.uris += 1;
        tally.bytes += wire_bytes;
        *tally.statuses.entry(status).or_default() += 1;
    }

    /// Counts one fetch's duration in the latency histogram.
    pub fn record_latency(&self, took: Duration) {
        let ms = took.as_millis() as u64;
        let bucket = LATENCY_BOUNDS_MS
            .iter()
            .position(|&b| ms <= b)
            .unwrap_or(LATENCY_BOUNDS_MS.len());
        self.latency[bucket].fetch_add(1, Relaxed);
        self.latency_sum_us
            .fetch_add(took.as_micros() as u64, Relaxed);
    }

    /// Counts a finished URI under its source tag (the seed it was found from) and host; bounded like the
    /// URL groups.
    pub fn record_source(&self, source: &str, host: &str, wire_bytes: u64) {
        let m = &mut *lock(&self.by_source);
        let hosts = m.entry_ref(source).or_default();
        if let Some(e) = hosts.get_mut(host) {
            e.0 += 1;
            e.1 += wire_bytes;
        } else if self.source_rows.load(Relaxed) < MAX_GROUPS as u64 {
            self.source_rows.fetch_add(1, Relaxed);
            hosts.insert(host.to_string(), (1, wire_bytes));
        }
    }

    /// URIs and bytes per source tag and host.
    pub fn by_source(&self) -> BTreeMap<String, HostCounts> {
        lock(&self.by_source)
            .iter()
            .map(|(source, hosts)| {
                let hosts = hosts.iter().map(|(h, c)| (h.clone(), *c)).collect();
                (source.clone(), hosts)
            })
            .collect()
    }

    /// The counters now; frontier figures are filled in by the caller.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            elapsed: self.elapsed(),
            finished: self.finished.load(Relaxed),
            succeeded: self.succeeded.load(Relaxed),
            failed: self.failed.load(Relaxed),
            disregarded: self.disregarded.load(Relaxed),
            wire_bytes: self.wire_bytes.load(Relaxed),
            latency: Latency {
                counts: self.latency.iter().map(|c| c.load(Relaxed)).collect(),
                sum_s: self.latency_sum_us.load(Relaxed) as f64 / 1e6,
            },
            asked_to_wait: {
                let now = chrono::Utc::now();
                let mut held = lock(&self.asked_to_wait);
                held.retain(|_, until| *until > now);
                let longest = held
                    .iter()
                    .max_by_key(|(_, until)| **until)
                    .map(|(h, until)| (h.clone(), *until));
                longest.map(|(host, until)| (held.len(), host, until))
            },
            ..Snapshot::default()
        }
    }

    /// Records a seed's final status.
    pub fn record_seed(&self, uri: &str, status: i32, notes: String) {
        let mut seeds = lock(&self.seeds);
        let seed = seeds.entry(uri.to_string()).or_default();
        seed.status = status;
        seed.notes = notes;
    }

    /// Records a seed whose URL class has an API URL: no crawl.log line names the seed, so the report lists it
    /// with the API URL as its `redirect`, the note `api`, and (once fetched) the API URL's status.
    pub fn record_seed_api(&self, uri: &str, api: &str) {
        {
            let mut seeds = lock(&self.seeds);
            let seed = seeds.entry(uri.to_string()).or_default();
            seed.redirect = Some(api.to_string());
            seed.notes = "api".into();
        }
        lock(&self.seed_apis).insert(api.to_string(), uri.to_string());
    }

    /// Gives a seed handed over to the API URL `uri` (see [`Stats::record_seed_api`]) that URL's status.
    pub fn record_seed_api_status(&self, uri: &str, status: i32) {
        let Some(seed) = lock(&self.seed_apis).remove(uri) else {
            return;
        };
        if let Some(o) = lock(&self.seeds).get_mut(&seed) {
            o.status = status;
        }
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
            // The group's example is its best URL (`norm::pick_best`), as url-identity.md says, not its first
            // (xt42a): parsed only when a group grows, which is rare.
            Some(e) => {
                e.0 += 1;
                if let (Ok(new), Ok(kept)) = (url::Url::parse(uri), url::Url::parse(&e.1))
                    && trawl_url::norm::pick_best([&new, &kept]) == Some(&new)
                {
                    e.1 = uri.to_string();
                }
            }
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

    /// Counts a finished URI by the letter of its last hop (`-` for a seed), so that the reports tell
    /// speculative (`X`), sitemap (`S`) and other discoveries apart.
    pub fn record_hop(&self, hop_path: &str) {
        let letter = hop_path.chars().last().unwrap_or('-');
        *lock(&self.by_hop).entry(letter).or_default() += 1;
    }

    /// URIs finished by the letter of their last hop.
    pub fn by_hop(&self) -> BTreeMap<char, u64> {
        lock(&self.by_hop).clone()
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
        // A host restored from a stats file's statuses alone was never counted here (nor shown before).
        lock(&self.hosts)
            .iter()
            .filter(|(_, t)| t.uris > 0 || t.bytes > 0)
            .map(|(host, t)| (host.clone(), (t.uris, t.bytes)))
            .collect()
    }

    /// URIs per status code, per host.
    pub fn host_statuses(&self) -> BTreeMap<String, BTreeMap<i32, u64>> {
        // A host restored from a stats file that had counts but no statuses (written before they were kept)
        // has none to show, as before.
        lock(&self.hosts)
            .iter()
            .filter(|(_, t)| !t.statuses.is_empty())
            .map(|(host, t)| (host.clone(), t.statuses.clone()))
            .collect()
    }
}

impl Default for Stats {
    fn default() -> Self {
        Stats::new()
    }
}

/// Where a job's counters are saved, in its state folder and in each checkpoint.
pub const STATS_FILE: &str = "stats.json";

/// A moment of a progress line: its time of day, with its date when that is not today's (xt23a F4: a wait of
/// days read as one ending at a time today).
fn clock(at: &chrono::DateTime<chrono::Utc>) -> String {
    if at.date_naive() == chrono::Utc::now().date_naive() {
        at.format("%H:%M:%S").to_string()
    } else {
        at.format("%Y-%m-%d %H:%M:%S").to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// URIs the crawl chose not to fetch are counted apart from those that failed, in the snapshot, its line
    /// and a resumed job's counters alike (xt10a F9: "675 failed" were login-guard refusals).
    /// xt37a F10: a job not running shows the latencies it saved, not none.
    #[test]
    fn saved_latencies_are_read_back() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Latency::saved(dir.path()), Latency::default());
        let stats = Stats::new();
        for ms in [3, 40, 90_000] {
            stats.record_latency(Duration::from_millis(ms));
        }
        std::fs::create_dir(dir.path().join("state")).unwrap();
        let text = serde_json::to_string(&stats.save()).unwrap();
        std::fs::write(dir.path().join("state").join(STATS_FILE), text).unwrap();
        let saved = Latency::saved(dir.path());
        assert_eq!(saved, stats.snapshot().latency);
        assert_eq!(saved.count(), 3);
    }

    #[test]
    fn refusals_are_disregarded_not_failed() {
        let stats = Stats::new();
        for status in [200, -5000, -9998, -4001, -2, -6] {
            stats.record(status, "a.test", None, 0);
        }
        let snap = stats.snapshot();
        assert_eq!((snap.succeeded, snap.failed, snap.disregarded), (1, 2, 3));
        assert!(
            snap.line()
                .starts_with("6 done (1 ok, 2 failed, 3 disregarded)"),
            "{}",
            snap.line()
        );
        let again = Stats::restore(
            serde_json::from_str(&serde_json::to_string(&stats.save()).unwrap()).unwrap(),
        );
        let snap = again.snapshot();
        assert_eq!((snap.failed, snap.disregarded), (2, 3));
        // Counters saved before the split: the disregarded are taken out of `failed` by their statuses.
        let mut old: serde_json::Value = serde_json::to_value(stats.save()).unwrap();
        old.as_object_mut().unwrap().remove("disregarded");
        old["failed"] = 5.into();
        let snap = Stats::restore(serde_json::from_value(old.clone()).unwrap()).snapshot();
        assert_eq!((snap.failed, snap.disregarded), (2, 3));
        // And the totals a server shows of such a job it does not run (xt11a F3).
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("state")).unwrap();
        std::fs::write(dir.path().join("state").join(STATS_FILE), old.to_string()).unwrap();
        std::fs::write(
            dir.path().join(TOTALS_FILE),
            r#"{"finished": 6, "succeeded": 1, "failed": 5}"#,
        )
        .unwrap();
        let totals = Totals::read(dir.path()).unwrap();
        assert_eq!((totals.failed, totals.disregarded), (2, 3));
    }

    #[test]
    fn a_hosts_sitemap_allowance_goes_on_after_a_resume() {
        let stats = Stats::new();
        assert_eq!(stats.take_sitemap_urls("a.example", 7, 10), 7);
        assert_eq!(stats.take_sitemap_urls("b.example", 3, 10), 3);
        let saved = serde_json::to_string(&stats.save()).unwrap();
        let resumed = Stats::restore(serde_json::from_str(&saved).unwrap());
        assert_eq!(resumed.take_sitemap_urls("a.example", 7, 10), 3);
        assert_eq!(resumed.take_sitemap_urls("a.example", 1, 10), 0);
        assert_eq!(resumed.take_sitemap_urls("b.example", 7, 10), 7);
    }

    #[test]
    fn the_progress_line_says_what_the_crawl_waits_for() {
        use chrono::TimeZone;
        let mut snap = Snapshot {
            queued: 3,
            ..Snapshot::default()
        };
        assert!(!snap.line().contains("waiting"), "{}", snap.line());
        // Today's time alone; another day's with its date (xt23a F4: a wait of days read as one ending today).
        let at = chrono::Utc::now();
        let today = at.format("%H:%M:%S").to_string();
        snap.asked_to_wait = Some((2, "slow.example".to_string(), at));
        let line = snap.line();
        assert!(
            line.contains(&format!(
                "; 2 hosts asked to wait (Retry-After), longest slow.example until {today} UTC"
            )) || at.date_naive() != chrono::Utc::now().date_naive(),
            "{line}"
        );
        snap.asked_to_wait = None;
        let at = chrono::Utc
            .with_ymd_and_hms(2026, 11, 24, 21, 50, 13)
            .unwrap();
        snap.waiting = Some(("org,example,".to_string(), at));
        assert!(
            snap.line()
                .ends_with("; waiting for org,example, until 2026-11-24 21:50:13 UTC"),
            "{}",
            snap.line()
        );
        // Nothing to fetch but queues the operator paused or retired (xt21a F3).
        snap.waiting = None;
        snap.held = Some((1, 14));
        assert!(
            snap.line()
                .contains("; 14 URIs wait in 1 queue paused or retired by the operator"),
            "{}",
            snap.line()
        );
    }

    #[test]
    fn finished_uris_by_last_hop() {
        let s = Stats::new();
        for hops in ["", "L", "LEX", "PSS", "LX"] {
            s.record_hop(hops);
        }
        let by = s.by_hop();
        assert_eq!((by[&'-'], by[&'L'], by[&'X'], by[&'S']), (1, 1, 2, 1));
        let restored = Stats::restore(s.save());
        assert_eq!(restored.by_hop(), by, "kept across a resume");
    }

    #[test]
    fn groups_count_spellings_and_versions() {
        let s = Stats::new();
        s.record_groups("https://a.org/doc/", "http://a.org/doc", None);
        s.record_groups("http://www.a.org/doc.html", "http://a.org/doc", None);
        // A later spelling that is better (no query) becomes the example (xt42a).
        s.record_groups("http://b.org/p.html?utm_source=x", "http://b.org/p", None);
        s.record_groups("http://b.org/p.html", "http://b.org/p", None);
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
            assert_eq!(
                g.by_norm["http://b.org/p"],
                (2, "http://b.org/p.html".to_string())
            );
            let (n, versions) = &g.by_template["https://d.org/%s/x.html"];
            assert_eq!(*n, 2);
            assert_eq!(versions.iter().collect::<Vec<_>>(), ["3.12", "3.13"]);
            assert!(!g.truncated);
        });
        s.record_latency(Duration::from_millis(3));
        s.record_latency(Duration::from_millis(70));
        s.record_latency(Duration::from_secs(100));
        let l = s.snapshot().latency;
        assert_eq!(
            (l.counts[0], l.counts[4], l.counts[13], l.count()),
            (1, 1, 1, 3)
        );
        assert!((l.sum_s - 100.073).abs() < 1e-6, "{}", l.sum_s);
        s.record_source("http://a.org/", "a.org", 10);
        s.record_source("http://a.org/", "a.org", 5);
        s.record_source("http://a.org/", "cdn.a.org", 1);
        assert_eq!(s.by_source()["http://a.org/"]["a.org"], (2, 15));
        assert_eq!(s.by_source()["http://a.org/"].len(), 2);
        let saved = s.save();
        let ran = Duration::from_secs_f64(saved.elapsed_s);
        let json = serde_json::to_string(&saved).unwrap();
        let back = Stats::restore(serde_json::from_str(&json).unwrap());
        assert_eq!(back.snapshot().latency, s.snapshot().latency);
        assert_eq!(back.by_source(), s.by_source());
        assert!(back.snapshot().elapsed >= ran, "the clock goes on");
        back.with_groups(|g| assert_eq!(g.by_norm.len(), 4));
        s.record(200, "a.org", Some("text/html"), 10);
        s.record(404, "a.org", None, 1);
        s.record(200, "a.org", None, 1);
        assert_eq!(
            s.host_statuses()["a.org"],
            BTreeMap::from([(200, 2), (404, 1)])
        );
        s.record_seed_api("http://a.org/view/7.html", "http://a.org/view/7.json");
        s.record_seed_api_status("http://a.org/other.json", 404);
        s.record_seed_api_status("http://a.org/view/7.json", 200);
        assert_eq!(
            s.seeds()["http://a.org/view/7.html"],
            SeedOutcome {
                status: 200,
                redirect: Some("http://a.org/view/7.json".into()),
                notes: "api".into(),
            }
        );
        s.record_seed("http://a.org/", 301, String::new());
        s.record_seed_redirect("http://a.org/", "https://a.org/");
        assert_eq!(
            s.seeds()["http://a.org/"],
            SeedOutcome {
                status: 301,
                redirect: Some("https://a.org/".into()),
                notes: String::new(),
            }
        );
    }

    #[test]
    fn a_seed_failed_by_the_proxy_blames_the_proxy_not_the_origin() {
        use trawl_config::status;
        let seed = |status: i32, notes: &str| SeedOutcome {
            status,
            redirect: None,
            notes: notes.into(),
        };
        let robots = seed(status::ROBOTS_PREREQUISITE_FAILED, "robots:err=proxy");
        assert!(
            robots.cause().contains("the proxy gave no tunnel"),
            "{}",
            robots.cause()
        );
        assert!(!robots.cause().contains("5xx"));
        let origin = seed(status::ROBOTS_PREREQUISITE_FAILED, "robots:err=connect");
        assert!(
            origin.cause().contains("no connection could be made"),
            "{}",
            origin.cause()
        );
        // Said by what kept the answer (xt42a: a DNS failure was "no answer or a 5xx").
        let dns = seed(status::ROBOTS_PREREQUISITE_FAILED, "robots:err=dns").cause();
        assert!(
            dns.contains("did not resolve (DNS)") && !dns.contains("5xx"),
            "{dns}"
        );
        let direct = seed(status::CONNECT_FAILED, "err=proxy,proxy:407,2t");
        assert!(direct.cause().contains("the proxy"), "{}", direct.cause());
        assert!(
            !seed(status::CONNECT_FAILED, "err=connect")
                .cause()
                .contains("proxy")
        );
    }

    /// xt12a F13: a robots.txt redirected to a refused address was reported as "no answer or a 5xx", with no
    /// fix named; a 429 (xt12a F11) is the site limiting requests.
    #[test]
    fn a_seed_failed_by_its_robots_txt_says_what_became_of_it() {
        use trawl_config::status;
        let seed = |notes: &str| SeedOutcome {
            status: status::ROBOTS_PREREQUISITE_FAILED,
            redirect: None,
            notes: notes.into(),
        };
        let refused = seed("robots:refused=loopback").cause();
        assert!(
            refused.contains("redirects to an address the address policy refuses (loopback)")
                && refused.contains("fetch.allow_addresses")
                && !refused.contains("5xx"),
            "{refused}"
        );
        let limited = seed("2t,robots:429").cause();
        assert!(
            limited.contains("429")
                && limited.contains("limited requests")
                && !limited.contains("5xx"),
            "{limited}"
        );
        assert!(seed("robots:503").cause().contains("no answer or a 5xx"));
        let cut = seed("3t,robots:midFetchTrunc").cause();
        assert!(cut.contains("cut short") && !cut.contains("5xx"), "{cut}");
        // The origin's own address refused is another status, with its own words.
        let own = SeedOutcome {
            status: status::ADDRESS_REFUSED,
            redirect: None,
            notes: "refused=loopback".into(),
        };
        assert!(own.cause().contains("fetch.allow_addresses"));
    }
}
