//! WARC file names: `PREFIX-YYYYMMDDhhmmss-NNNNN-HOST.warc.gz`, with `.open` while being written.

use std::path::Path;

use chrono::{DateTime, Utc};

use crate::compression::Compression;

/// A new, empty temporary file beside `path` (`.NAME.XXXXXX.tmp` in its folder), removed when dropped
/// unless persisted ([`tempfile::TempPath::persist`]): an output is written there and renamed into place,
/// so it is whole or absent, and no file of the operator's (an `X.cdxj.tmp`) is written over or removed
/// (xt15c F14), nor one of another run writing beside it.
pub(crate) fn temp_beside(path: &Path) -> Result<tempfile::TempPath, crate::Error> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(dir)
        .map(tempfile::NamedTempFile::into_temp_path)
        .map_err(|source| crate::Error::Io {
            path: path.to_path_buf(),
            source,
        })
}

/// The suffix a file carries while it is being written.
pub(crate) const OPEN_SUFFIX: &str = ".open";

/// The final name of a WARC file: `PREFIX-YYYYMMDDhhmmss-NNNNN-HOST.warc[.gz]`.
///
/// Characters of `prefix` and `host` other than ASCII letters, digits, `.` and `_` become `-`, so the
/// name is one path component on every platform.
pub(crate) fn file_name(
    prefix: &str,
    opened: DateTime<Utc>,
    serial: u32,
    host: &str,
    compression: Compression,
) -> String {
    format!(
        "{}-{}-{serial:05}-{}{}",
        sanitize(prefix),
        opened.format("%Y%m%d%H%M%S"),
        sanitize(host),
        compression.extension()
    )
}

fn sanitize(part: &str) -> String {
    let clean: String = part
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if clean.is_empty() || clean.chars().all(|c| c == '.') {
        "-".to_owned()
    } else {
        clean
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn names() {
        let t = Utc.with_ymd_and_hms(2026, 11, 22, 8, 25, 1).unwrap();
        let cases = [
            (
                "trawl",
                0,
                "crawler1",
                Compression::Gzip,
                "trawl-20261122082501-00000-crawler1.warc.gz",
            ),
            (
                "job",
                42,
                "h.example.org",
                Compression::None,
                "job-20261122082501-00042-h.example.org.warc",
            ),
            (
                "a/b",
                123_456,
                "x:y",
                Compression::Gzip,
                "a-b-20261122082501-123456-x-y.warc.gz",
            ),
            (
                "",
                1,
                "..",
                Compression::None,
                "--20261122082501-00001--.warc",
            ),
        ];
        for (prefix, serial, host, compression, want) in cases {
            assert_eq!(file_name(prefix, t, serial, host, compression), want);
        }
    }
}
