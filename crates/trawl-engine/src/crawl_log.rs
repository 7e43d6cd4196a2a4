//! crawl.log: one line per URI attempted, in Heritrix 3's field order.
//!
//! `timestamp status size URI hop-path via mime #worker fetch-start+duration digest source annotations`,
//! space separated, `-` for an empty field. Negative statuses are documented in docs/crawl-log.md.

use std::{
    fs::File,
    io::{BufWriter, Write},
    path::{Path, PathBuf},
    sync::{Arc, Mutex, PoisonError, mpsc},
    thread::JoinHandle,
};

use chrono::{DateTime, Utc};

use crate::Error;

pub use crate::status;

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
    pub annotations: &'a [crate::Annotation],
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
            crate::annotation::Joined(self.annotations),
        )
    }
}

/// The open crawl.log, written by a thread of its own: workers hand it finished lines and go on, so no
/// write or flush runs on the async threads. The thread writes what it is given in order and flushes each time
/// it has caught up, so a line reaches the OS within a moment of its URI finishing; a crash loses at most
/// the lines handed over in that moment.
#[derive(Debug)]
pub struct CrawlLog {
    path: PathBuf,
    /// Lines to write; `None` asks the thread to finish.
    lines: mpsc::Sender<Option<String>>,
    thread: Mutex<Option<JoinHandle<()>>>,
    /// The thread's first write failure, reported to the next writer.
    failed: Arc<Mutex<Option<std::io::Error>>>,
}

impl CrawlLog {
    /// Opens (appending) `path` and starts its writer thread.
    pub fn open(path: &Path) -> Result<CrawlLog, Error> {
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = File::options()
            .create(true)
            .append(true)
            .open(path)
            .map_err(io)?;
        let (tx, rx) = mpsc::channel::<Option<String>>();
        let failed: Arc<Mutex<Option<std::io::Error>>> = Arc::default();
        let report = failed.clone();
        let thread = std::thread::Builder::new()
            .name("crawl-log".into())
            .spawn(move || {
                let mut out = BufWriter::new(file);
                let mut open = true;
                while open && let Ok(Some(first)) = rx.recv() {
                    let mut result = writeln!(out, "{first}");
                    // Everything already handed over goes out before the flush.
                    while result.is_ok()
                        && let Ok(next) = rx.try_recv()
                    {
                        match next {
                            Some(line) => result = writeln!(out, "{line}"),
                            None => open = false,
                        }
                    }
                    if let Err(e) = result.and_then(|()| out.flush()) {
                        *report.lock().unwrap_or_else(PoisonError::into_inner) = Some(e);
                        return;
                    }
                }
            })
            .map_err(io)?;
        Ok(CrawlLog {
            path: path.to_path_buf(),
            lines: tx,
            thread: Mutex::new(Some(thread)),
            failed,
        })
    }

    /// Hands one line to the writer thread; fails if an earlier write failed (a full disk).
    pub fn write(&self, entry: &LogEntry<'_>) -> Result<(), Error> {
        self.check()?;
        // The thread stops early only after a failure, which `check` reports.
        let _ = self.lines.send(Some(entry.format(Utc::now())));
        Ok(())
    }

    /// Writes out every line handed over and stops the thread; reports a write failure.
    pub fn close(&self) -> Result<(), Error> {
        let _ = self.lines.send(None);
        let thread = self
            .thread
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(thread) = thread {
            let _ = thread.join();
        }
        self.check()
    }

    fn check(&self) -> Result<(), Error> {
        let mut failed = self.failed.lock().unwrap_or_else(PoisonError::into_inner);
        match failed.take() {
            Some(source) => Err(Error::Io {
                path: self.path.clone(),
                source,
            }),
            None => Ok(()),
        }
    }
}

impl Drop for CrawlLog {
    fn drop(&mut self) {
        let _ = self.close();
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    #[test]
    fn heritrix_field_order() {
        let t = Utc.with_ymd_and_hms(2026, 11, 22, 8, 25, 1).unwrap();
        let notes = vec![
            crate::Annotation::Truncated(crate::fetch::Truncation::Length),
            crate::Annotation::Tries(3),
        ];
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

#[cfg(test)]
mod writer_tests {
    use super::*;

    #[test]
    fn every_line_handed_over_is_written_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crawl.log");
        let log = CrawlLog::open(&path).unwrap();
        let uris: Vec<String> = (0..500).map(|i| format!("http://a.org/{i}")).collect();
        for uri in &uris {
            log.write(&LogEntry {
                status: 200,
                uri,
                ..LogEntry::default()
            })
            .unwrap();
        }
        log.close().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let got: Vec<&str> = text
            .lines()
            .map(|l| l.split_whitespace().nth(3).unwrap())
            .collect();
        assert_eq!(got, uris);
    }
}
