//! crawl.log: one line per URI attempted, in Heritrix 3's field order.
//!
//! `timestamp status size URI hop-path via mime #worker fetch-start+duration digest source annotations`,
//! space separated, `-` for an empty field. Negative statuses are documented in docs/crawl-log.md.

use std::{
    fs::File,
    io::{BufWriter, Write},
    path::{Path, PathBuf},
};

use chrono::{DateTime, Utc};

use crate::Error;

/// Statuses trawl writes for URIs that got no HTTP response (Heritrix's numbers).
pub mod status {
    /// The host name did not resolve.
    pub const DNS_FAILED: i32 = -6;
    /// robots.txt could not be fetched (5xx or no answer after retries), so the host is off limits.
    pub const ROBOTS_PREREQUISITE_FAILED: i32 = -61;
    /// The URI is too many link hops from its seed.
    pub const TOO_MANY_HOPS: i32 = -4001;
    /// A scope rule rejected the URI (the rule is in the annotation).
    pub const OUT_OF_SCOPE: i32 = -5000;
    /// The address policy refused the host's address.
    pub const ADDRESS_REFUSED: i32 = -5001;
    /// The URI's queue has spent its budget (`frontier.max_uris_per_host`).
    pub const OVER_QUOTA: i32 = -5003;
    /// robots.txt forbids the URI.
    pub const ROBOTS_DISALLOWED: i32 = -9998;
}

/// One crawl.log entry.
#[derive(Debug, Clone, Default)]
pub struct LogEntry<'a> {
    /// HTTP status or negative trawl status.
    pub status: i32,
    /// Entity body length, if a response arrived.
    pub size: Option<u64>,
    /// The URI.
    pub uri: &'a str,
    /// Hop path from the seed (`-` for a seed).
    pub hop_path: &'a str,
    /// The URI that led here.
    pub via: Option<&'a str>,
    /// MIME type from Content-Type, without parameters.
    pub mime: Option<&'a str>,
    /// Worker number.
    pub worker: usize,
    /// Fetch start and duration in ms.
    pub fetch: Option<(DateTime<Utc>, u128)>,
    /// `sha1:BASE32` of the entity body.
    pub digest: Option<&'a str>,
    /// Annotations, comma-joined.
    pub annotations: &'a [String],
}

impl LogEntry<'_> {
    /// The line, without its newline.
    pub fn format(&self, now: DateTime<Utc>) -> String {
        let dash = |s: Option<&str>| s.filter(|s| !s.is_empty()).unwrap_or("-").to_string();
        format!(
            "{} {:>5} {:>10} {} {} {} {} #{:03} {} {} - {}",
            now.format("%Y-%m-%dT%H:%M:%S%.3fZ"),
            self.status,
            self.size.map_or("-".to_string(), |s| s.to_string()),
            self.uri,
            dash(Some(self.hop_path)),
            dash(self.via),
            dash(self.mime),
            self.worker,
            self.fetch.map_or("-".to_string(), |(t, ms)| format!(
                "{}+{ms}",
                t.format("%Y%m%d%H%M%S%3f")
            )),
            dash(self.digest),
            if self.annotations.is_empty() {
                "-".to_string()
            } else {
                self.annotations.join(",")
            },
        )
    }
}

/// The open crawl.log.
#[derive(Debug)]
pub struct CrawlLog {
    path: PathBuf,
    out: BufWriter<File>,
}

impl CrawlLog {
    /// Opens (appending) `path`.
    pub fn open(path: &Path) -> Result<CrawlLog, Error> {
        let file = File::options()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|source| Error::Io {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(CrawlLog {
            path: path.to_path_buf(),
            out: BufWriter::new(file),
        })
    }

    /// Appends one line and flushes it, so a crash loses no finished URI.
    pub fn write(&mut self, entry: &LogEntry<'_>) -> Result<(), Error> {
        let line = entry.format(Utc::now());
        writeln!(self.out, "{line}")
            .and_then(|()| self.out.flush())
            .map_err(|source| Error::Io {
                path: self.path.clone(),
                source,
            })
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    #[test]
    fn heritrix_field_order() {
        let t = Utc.with_ymd_and_hms(2026, 11, 22, 8, 25, 1).unwrap();
        let notes = vec!["lenTrunc".to_string(), "3t".to_string()];
        let e = LogEntry {
            status: 200,
            size: Some(1234),
            uri: "http://a.org/x",
            hop_path: "LE",
            via: Some("http://a.org/"),
            mime: Some("text/html"),
            worker: 7,
            fetch: Some((t, 45)),
            digest: Some("sha1:ABC"),
            annotations: &notes,
        };
        assert_eq!(
            e.format(t),
            "2026-11-22T08:25:01.000Z   200       1234 http://a.org/x LE http://a.org/ text/html #007 \
             20261122082501000+45 sha1:ABC - lenTrunc,3t"
        );
        let seed = LogEntry {
            status: -9998,
            uri: "http://a.org/",
            ..LogEntry::default()
        };
        assert_eq!(
            seed.format(t),
            "2026-11-22T08:25:01.000Z -9998          - http://a.org/ - - - #000 - - - -"
        );
    }
}
