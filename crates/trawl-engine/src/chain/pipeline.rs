//! The pipeline: what the stages share — the settings in force, how URIs are named and queued, the fetcher
//! and what is presented to hosts, what is known of robots.txt, the archive, crawl.log and the counters —
//! and the helpers every stage may call on it.

use std::{
    sync::{Arc, Mutex, PoisonError, RwLock},
    time::Duration,
};

use http::header::SET_COOKIE;
use trawl_config::{Annotation, CrawlUri, Gates, assign::QueueAssigner};
use trawl_fetch::{Fetched, Fetcher};
use trawl_frontier::Scheduled;

use super::{known_links::KnownLinks, naming::Naming, rendering::Rendering, robots::RobotsCache};
use crate::{
    crawl_log::LogEntry, journal::Journal, live::LiveSettings, stats::Stats, write::WarcSink,
};

/// What the stages share: the settings in force, how URIs are named and queued, the fetcher, what is known of
/// each origin's robots.txt, the archive, crawl.log and the counters.
pub(crate) struct Pipeline {
    /// The settings read per URI (crawl settings, sheets, scope), swapped whole by an operator's change.
    pub(crate) live: RwLock<Arc<LiveSettings>>,
    /// The decide sequences at the points after the scope, and the text filters.
    pub(crate) gates: Gates,
    pub(crate) naming: Naming,
    pub(crate) assign: QueueAssigner,
    /// Outlinks known to be in the uniq filter already (the candidate chain skips them).
    pub(crate) known_links: Mutex<KnownLinks>,
    /// Failed fetches in a row per origin (reset by any response): past [`HOST_FAILURES`] a URL's failure is
    /// taken as its host's.
    pub(crate) failures_in_a_row: Mutex<std::collections::HashMap<String, u32>>,
    pub(crate) fetcher: Fetcher,
    /// Cookies and credentials: what is presented to each host.
    pub(crate) access: trawl_fetch::access::Access,
    pub(crate) robots: RobotsCache,
    pub(crate) warc: WarcSink,
    /// crawl.log, through the journal thread.
    pub(crate) log: Journal,
    pub(crate) stats: Stats,
    /// The first fatal failure (a WARC or crawl.log write), which stops the crawl.
    pub(crate) fatal: Mutex<Option<String>>,
    /// Stops the crawl on a fatal failure.
    pub(crate) stop: crate::CrawlHandle,
    /// Browser capture, when the settings may render pages (`[browser] mode`, or a sheet's).
    pub(crate) rendering: Option<Rendering>,
    /// The user's behaviours script (`[browser] behaviors_file`), read at the start.
    pub(crate) behaviors: Option<String>,
}

impl Pipeline {
    /// The settings in force now (an operator's change swaps them).
    pub(crate) fn settings(&self) -> Arc<LiveSettings> {
        self.live
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Records a fatal failure (the first one, said once) and stops the crawl.
    pub(crate) fn fail(&self, why: String) {
        let mut fatal = self.fatal.lock().unwrap_or_else(PoisonError::into_inner);
        // Said once: every worker task may find the same end (xt16b F7: a crawl gone from Redis was said
        // by each of them).
        match fatal.as_deref() {
            None => {
                tracing::error!("{why}");
                *fatal = Some(why);
            }
            // Another cause after the first is said too (review 64b R8); the crawl's end names the first.
            Some(first) if first != why => tracing::warn!("also: {why}"),
            Some(_) => {}
        }
        drop(fatal);
        self.stop.stop();
    }

    /// The cookie jar `uri` uses: the job's, or with `[fetch] cookies = "sheet"` the one of the sheets that
    /// apply to it.
    pub(crate) fn jar_key(&self, uri: &CrawlUri) -> String {
        let live = self.settings();
        match live.config.fetch.cookies {
            trawl_config::settings::CookieMode::Sheet => live.sheets.names_for(uri),
            _ => String::new(),
        }
    }

    /// Counts a crawl.log entry in the statistics; returns its line, for the outcome that ends its URI.
    /// `url` is the entry's URI when the caller holds it parsed (else it is parsed here).
    pub(crate) fn log(
        &self,
        entry: &LogEntry<'_>,
        url: Option<&url::Url>,
        source: &str,
        host: &str,
        wire_bytes: u64,
    ) -> String {
        self.stats
            .record(entry.status, host, entry.mime, wire_bytes);
        for a in entry.annotations {
            match a {
                Annotation::Duplicate => self.stats.record_revisit(false, entry.size.unwrap_or(0)),
                Annotation::NotModified => self.stats.record_revisit(true, 0),
                _ => {}
            }
        }
        self.stats.record_hop(entry.hop_path);
        self.stats.record_source(source, host, wire_bytes);
        if let Some((_, ms)) = entry.fetch {
            self.stats
                .record_latency(Duration::from_millis(ms.try_into().unwrap_or(u64::MAX)));
        }
        if entry.hop_path.is_empty() {
            let notes = trawl_config::annotation::Joined(entry.annotations).to_string();
            let notes = if notes == "-" { String::new() } else { notes };
            self.stats.record_seed(entry.uri, entry.status, notes);
        } else if entry.hop_path == "I" {
            self.stats.record_seed_api_status(entry.uri, entry.status);
        }
        let parsed = match url {
            None if entry.status > 0 => url::Url::parse(entry.uri).ok(),
            _ => None,
        };
        if entry.status > 0
            && let Some(url) = url.or(parsed.as_ref())
        {
            let norm = self.naming.identity.norm(url);
            let template = trawl_url::version::version_template(url);
            let template = template
                .as_ref()
                .map(|t| (t.template.as_str(), t.version.as_str()));
            self.stats.record_groups(entry.uri, norm.as_str(), template);
        }
        entry.format(chrono::Utc::now())
    }

    /// Writes a record the crawl made itself (a screenshot, a view's metadata); a failure stops the crawl.
    pub(crate) fn write_made(&self, record: trawl_warc::Record) {
        if let Err(e) = self.warc.write_made(record) {
            self.fail(e.to_string());
        }
    }

    /// Hands a crawl.log line to the journal (the worker loop does, as it applies the line's outcome).
    pub(crate) fn write_line(&self, line: String) {
        if let Err(e) = self.log.line(line) {
            self.fail(e.to_string());
        }
    }

    /// Waits until every crawl.log line handed over so far is written; if the journal failed instead, the
    /// crawl fails (once more) and this says `false`.
    pub(crate) async fn lines_written(&self) -> bool {
        let written = self.log.written().await;
        if !written {
            self.fail(crate::Error::JournalStopped.to_string());
        }
        written
    }

    /// The line of a URI that ended without a response (refused, out of scope, failed), with its
    /// annotations.
    pub(crate) fn log_failure(&self, uri: &CrawlUri, status: i32, worker: usize) -> String {
        self.log_unfetched(uri, status, None, worker)
    }

    /// The line of a URI logged without a fetch of its own: `status` and `mime` as given, no size or digest.
    pub(crate) fn log_unfetched(
        &self,
        uri: &CrawlUri,
        status: i32,
        mime: Option<&str>,
        worker: usize,
    ) -> String {
        let host = uri.url.host_str().unwrap_or_default();
        self.log(
            &LogEntry {
                status,
                uri: uri.url.as_str(),
                hop_path: &uri.hop_path,
                via: uri.via.as_ref().map(url::Url::as_str),
                mime,
                worker,
                annotations: &uri.annotations,
                ..LogEntry::default()
            },
            Some(&uri.url),
            &uri.source,
            host,
            0,
        )
    }

    /// Keeps the cookies a response set, in jar `jar`.
    pub(crate) fn keep_cookies(&self, jar: &str, url: &url::Url, fetched: &Fetched) {
        if let Ok(resp) = &fetched.result {
            let values = resp
                .headers
                .get_all(SET_COOKIE)
                .iter()
                .filter_map(|v| v.to_str().ok());
            self.access.cookies.store(jar, url, values);
        }
    }

    /// Remembers the outlinks the uniq filter took (`known`, per link, against `results`), so the candidate
    /// chain skips them next time.
    pub(crate) fn remember_known(&self, known: Vec<Option<u128>>, results: &[Scheduled]) {
        let mut links = self
            .known_links
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        for (fp, result) in known.into_iter().zip(results) {
            if let (Some(fp), false) = (fp, *result == Scheduled::OverBudget) {
                links.insert(fp);
            }
        }
    }

    /// Archives a DNS lookup made for `uri` as a `dns:` record, with its crawl.log line (status 1, a `P` hop from
    /// the URI, as Heritrix logs them). A write failure stops the crawl, as for any record.
    pub(crate) fn archive_dns(
        &self,
        uri: &CrawlUri,
        answer: &trawl_fetch::DnsAnswer,
        worker: usize,
    ) {
        let digest = match crate::blocking::blocking(0, || self.warc.write_dns(answer)) {
            Ok(d) => d,
            Err(e) => {
                self.fail(e.to_string());
                return;
            }
        };
        let target = format!("dns:{}", answer.host);
        let hops = format!("{}P", uri.hop_path);
        let size = answer.zone_text().len() as u64;
        let line = self.log(
            &crate::crawl_log::LogEntry {
                status: 1,
                size: Some(size),
                uri: &target,
                hop_path: &hops,
                via: Some(uri.url.as_str()),
                mime: Some("text/dns"),
                worker,
                fetch: Some((answer.at, 0)),
                digest: Some(&digest),
                annotations: &[],
            },
            None,
            &uri.source,
            &answer.host,
            size,
        );
        self.write_line(line);
    }
}
