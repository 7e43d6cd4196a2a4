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

mod line;

pub use line::{LineError, LogLine, ParseError, parse, parse_line};

pub use trawl_config::status;

/// A log timestamp as crawl.log (and progress.log) write it: ISO 8601 UTC with milliseconds.
pub fn timestamp(t: DateTime<Utc>) -> impl std::fmt::Display {
    Stamp { t, iso: true }
}

/// A time as crawl.log writes it: ISO 8601 with milliseconds (`2026-11-27T23:08:37.123Z`), or packed
/// (`20261127230837123`, the fetch start). Written from the fields, as chrono's `format` parses its
/// pattern again for every line.
struct Stamp {
    t: DateTime<Utc>,
    iso: bool,
}

impl std::fmt::Display for Stamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use chrono::{Datelike, Timelike};
        let t = &self.t;
        // A leap second's nanoseconds run past 1e9: chrono writes it as second 60, and the milliseconds
        // modulo a second.
        let ms = t.nanosecond() % 1_000_000_000 / 1_000_000;
        let s = t.second() + t.nanosecond() / 1_000_000_000;
        let (y, mo, d, h, mi) = (t.year(), t.month(), t.day(), t.hour(), t.minute());
        if self.iso {
            write!(f, "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{ms:03}Z")
        } else {
            write!(f, "{y:04}{mo:02}{d:02}{h:02}{mi:02}{s:02}{ms:03}")
        }
    }
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
    pub annotations: &'a [trawl_config::Annotation],
}

impl LogEntry<'_> {
    /// The line, without its newline.
    pub fn format(&self, now: DateTime<Utc>) -> String {
        use std::fmt::Write as _;
        fn dash(s: Option<&str>) -> &str {
            s.filter(|s| !s.is_empty()).unwrap_or("-")
        }
        let mut line = String::with_capacity(192 + self.uri.len() + self.via.map_or(0, str::len));
        // Writing into a String cannot fail.
        let _ = write!(line, "{} {:>5} ", timestamp(now), self.status);
        let _ = match self.size {
            Some(size) => write!(line, "{size:>10}"),
            None => write!(line, "{:>10}", "-"),
        };
        let _ = write!(
            line,
            " {} {} {} {} #{:03} ",
            self.uri,
            dash(Some(self.hop_path)),
            dash(self.via),
            self.mime.filter(|m| !m.is_empty()).unwrap_or("no-type"),
            self.worker,
        );
        let _ = match self.fetch {
            Some((t, ms)) => write!(line, "{}+{ms}", Stamp { t, iso: false }),
            None => write!(line, "-"),
        };
        let _ = write!(
            line,
            " {} - {}",
            dash(self.digest),
            trawl_config::annotation::Joined(self.annotations)
        );
        line
    }
}

/// The open crawl.log: lines appended through a buffer, handed to the OS by [`CrawlLog::flush`]. Only the
/// journal thread (`crawl::journal`) writes it during a crawl.
#[derive(Debug)]
pub struct CrawlLog {
    path: PathBuf,
    out: BufWriter<File>,
    /// Whether the file system counts the file's links (it had one when opened): only then is a count of
    /// none taken for the file removed.
    links_counted: bool,
    /// The held file's device and inode: `path` naming another (or none) means it was moved or removed.
    identity: Option<(u64, u64)>,
}

impl CrawlLog {
    /// Opens (appending) `path`. A last line cut short (a write that failed on a full disk) is cut off
    /// first: no URI is committed before its line is written whole (the journal), so that line's URI is
    /// fetched again, and the next line would otherwise run on from the cut one.
    pub fn open(path: &Path) -> Result<CrawlLog, Error> {
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = File::options()
            .create(true)
            .read(true)
            .append(true)
            .open(path)
            .map_err(io)?;
        if let Some(cut) = cut_torn_line(&file).map_err(io)? {
            tracing::warn!(
                "{}: its last line was cut short ({cut} bytes, a write that failed): removed; \
                 its URI is fetched again",
                path.display()
            );
        }
        let links_counted = link_count(&file).is_some_and(|n| n > 0);
        let identity = file.metadata().ok().map(|m| identity(&m));
        Ok(CrawlLog {
            path: path.to_path_buf(),
            out: BufWriter::new(file),
            links_counted,
            identity,
        })
    }

    /// Appends one formatted line (without its newline).
    pub fn append(&mut self, line: &str) -> Result<(), Error> {
        writeln!(self.out, "{line}").map_err(|e| self.io(e))
    }

    /// Hands everything appended to the OS; fails when the file was removed meanwhile (its lines went
    /// nowhere: the journal commits none of their URIs). A file moved or replaced (a log rotation) kept its
    /// lines: the next ones go to a new file at the path. One stat a flush, not a line.
    pub fn flush(&mut self) -> Result<(), Error> {
        self.out.flush().map_err(|e| self.io(e))?;
        let Some(held) = self.identity else {
            return Ok(());
        };
        if std::fs::metadata(&self.path).is_ok_and(|m| identity(&m) == held) {
            return Ok(());
        }
        if self.links_counted && link_count(self.out.get_ref()) == Some(0) {
            return Err(Error::LogRemoved {
                path: self.path.clone(),
            });
        }
        tracing::warn!(
            "{}: moved or replaced while the crawl wrote it (a log rotation?): the lines so far are in the \
             moved file, the next ones in a new file at this path",
            self.path.display()
        );
        if let Some(parent) = self.path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| self.io(e))?;
        }
        *self = CrawlLog::open(&self.path.clone())?;
        Ok(())
    }

    fn io(&self, source: std::io::Error) -> Error {
        Error::Io {
            path: self.path.clone(),
            source,
        }
    }
}

/// A file's device and inode: which file a path names.
fn identity(m: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino())
}

/// How many names `file` has, as the file system counts them.
fn link_count(file: &File) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    file.metadata().ok().map(|m| m.nlink())
}

/// Truncates `file` after its last newline when it does not end with one; the bytes cut, if any.
fn cut_torn_line(file: &File) -> std::io::Result<Option<u64>> {
    use std::io::{Read, Seek, SeekFrom};
    const CHUNK: u64 = 64 * 1024;
    let len = file.metadata()?.len();
    let mut reader = file;
    let mut end = len;
    let mut buf = vec![0; CHUNK as usize];
    while end > 0 {
        let start = end.saturating_sub(CHUNK);
        let chunk = &mut buf[..(end - start) as usize];
        reader.seek(SeekFrom::Start(start))?;
        reader.read_exact(chunk)?;
        match chunk.iter().rposition(|&b| b == b'\n') {
            Some(at) if start + at as u64 + 1 == len => return Ok(None),
            Some(at) => {
                let keep = start + at as u64 + 1;
                file.set_len(keep)?;
                return Ok(Some(len - keep));
            }
            None => end = start,
        }
    }
    if len > 0 {
        file.set_len(0)?;
        return Ok(Some(len));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    #[test]
    fn heritrix_field_order() {
        let t = Utc.with_ymd_and_hms(2026, 11, 22, 8, 25, 1).unwrap();
        let notes = vec![
            trawl_config::Annotation::Truncated(trawl_config::annotation::Truncation::Length),
            trawl_config::Annotation::Tries(3),
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
            "2026-11-22T08:25:01.000Z -9998          - http://a.org/ - - no-type #000 - - - -"
        );
    }

    #[test]
    fn a_log_removed_while_written_fails_its_next_flush() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crawl.log");
        let mut log = CrawlLog::open(&path).unwrap();
        log.append("a 200").unwrap();
        log.flush().unwrap();
        std::fs::remove_file(&path).unwrap();
        log.append("b 200").unwrap();
        let err = log.flush().unwrap_err();
        assert!(
            matches!(&err, Error::LogRemoved { path: p } if *p == path),
            "{err}"
        );
        assert!(err.to_string().contains("trawl resume"), "{err}");
    }

    #[test]
    fn a_log_moved_or_replaced_goes_on_at_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crawl.log");
        let rotated = dir.path().join("crawl.log.1");
        let mut log = CrawlLog::open(&path).unwrap();
        log.append("a 200").unwrap();
        log.flush().unwrap();
        // Moved away: the lines flushed before the next check stay in the moved file.
        std::fs::rename(&path, &rotated).unwrap();
        log.append("b 200").unwrap();
        log.flush().unwrap();
        log.append("c 200").unwrap();
        log.flush().unwrap();
        assert_eq!(std::fs::read_to_string(&rotated).unwrap(), "a 200\nb 200\n");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "c 200\n");
        // Moved and replaced by a new empty file (logrotate's `create`): the new one is written on.
        let rotated = dir.path().join("crawl.log.2");
        std::fs::rename(&path, &rotated).unwrap();
        std::fs::write(&path, "").unwrap();
        log.append("d 200").unwrap();
        log.flush().unwrap();
        log.append("e 200").unwrap();
        log.flush().unwrap();
        assert_eq!(std::fs::read_to_string(&rotated).unwrap(), "c 200\nd 200\n");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "e 200\n");
        // Removed and replaced: the lines since the last flush went nowhere, so it fails as removed.
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, "").unwrap();
        log.append("f 200").unwrap();
        assert!(matches!(log.flush(), Err(Error::LogRemoved { .. })));
    }

    #[test]
    fn a_line_cut_short_is_removed_when_the_log_is_opened_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crawl.log");
        for (before, after) in [
            ("a 200\nb 200\nc 2", "a 200\nb 200\nnext\n"),
            ("a 200\n", "a 200\nnext\n"),
            ("cut", "next\n"),
            ("", "next\n"),
        ] {
            std::fs::write(&path, before).unwrap();
            let mut log = CrawlLog::open(&path).unwrap();
            log.append("next").unwrap();
            log.flush().unwrap();
            assert_eq!(std::fs::read_to_string(&path).unwrap(), after, "{before:?}");
        }
        // A cut line longer than the chunk read at a time, after whole lines.
        let long = format!("a 200\n{}", "x".repeat(200_000));
        std::fs::write(&path, &long).unwrap();
        drop(CrawlLog::open(&path).unwrap());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a 200\n");
    }

    proptest::proptest! {
        /// The hand-written stamps say what chrono's patterns say, for any millisecond to the year 9999.
        #[test]
        fn stamps_match_chronos_patterns(secs in 0i64..253_402_300_800, nanos in 0u32..1_000_000_000) {
            // Every tenth case on a leap second (nanoseconds past 1e9), which only a :59 second can be.
            let (secs, nanos) = if nanos % 10 == 0 {
                (secs - secs % 60 + 59, nanos + 1_000_000_000)
            } else {
                (secs, nanos)
            };
            let t = DateTime::from_timestamp(secs, nanos).unwrap();
            proptest::prop_assert_eq!(
                timestamp(t).to_string(),
                t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
            );
            proptest::prop_assert_eq!(
                Stamp { t, iso: false }.to_string(),
                t.format("%Y%m%d%H%M%S%3f").to_string()
            );
        }
    }
}
