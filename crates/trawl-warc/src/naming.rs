//! WARC file names: `PREFIX-YYYYMMDDhhmmss-NNNNN-HOST.warc.gz`, with `.open` while being written.

use std::path::Path;

use chrono::{DateTime, Utc};

use crate::compression::Compression;

/// A new, empty temporary file beside `path` (`.NAME.RANDOM.tmp` in its folder, RANDOM six letters and
/// digits), removed when dropped unless persisted ([`tempfile::TempPath::persist`]): an output is written there and renamed into place,
/// so it is whole or absent, and no file of the operator's (an `X.cdxj.tmp`) is written over or removed
/// (xt15c F14), nor one of another run writing beside it. It gets the mode a new file gets (`0666` less
/// the umask), as the output had before, not a temporary file's owner-only mode: replay servers running
/// as another user read indexes and packages (review 64 R1). Such files of `path` left by a run that was
/// killed, untouched for [`STALE_TEMPORARY`], are removed first (review 64 R7).
pub(crate) fn temp_beside(path: &Path) -> Result<tempfile::TempPath, crate::Error> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let prefix = format!(".{name}.");
    remove_stale_temporaries(dir, &prefix);
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(TEMPORARY_SUFFIX);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder
        .tempfile_in(dir)
        .map(tempfile::NamedTempFile::into_temp_path)
        .map_err(|source| crate::Error::Io {
            path: path.to_path_buf(),
            source,
        })
}

/// The end of [`temp_beside`]'s names.
const TEMPORARY_SUFFIX: &str = ".tmp";

/// How long a temporary file of [`temp_beside`] lies untouched before it is taken for a killed run's: a run
/// writes its output from start to end once it made the file, so it touches it far more often.
pub(crate) const STALE_TEMPORARY: std::time::Duration = std::time::Duration::from_secs(15 * 60);

/// Removes the regular files of `dir` named `PREFIX` + six characters + `.tmp` that no one has written for
/// [`STALE_TEMPORARY`] (best effort: a folder that cannot be read keeps them).
fn remove_stale_temporaries(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let ours = name
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix(TEMPORARY_SUFFIX))
            .is_some_and(|random| {
                random.len() == 6 && random.bytes().all(|b| b.is_ascii_alphanumeric())
            });
        let stale = entry.metadata().is_ok_and(|m| {
            m.is_file()
                && m.modified()
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age >= STALE_TEMPORARY)
        });
        if ours && stale {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The suffix a file carries while it is being written.
pub(crate) const OPEN_SUFFIX: &str = ".open";

/// The final name of a WARC file: `PREFIX-YYYYMMDDhhmmss-NNNNN-HOST.warc[.gz]`.
///
/// The serial after the highest that a file of `dir` named by [`file_name`] for `prefix` and `host` has
/// (0 in a folder with none): a resumed run's first file then sorts after the killed run's last, even when
/// both were opened in the same second (xt47c F3).
pub(crate) fn next_serial(dir: &std::path::Path, prefix: &str, host: &str) -> u32 {
    let start = format!("{}-", sanitize(prefix));
    let end = format!("-{}.", sanitize(host));
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let rest = name.strip_prefix(&start)?;
            // YYYYMMDDhhmmss-NNNNN-HOST.…
            let (stamp, rest) = rest.split_at_checked(14)?;
            let rest = rest.strip_prefix('-')?;
            let digits = rest.find('-')?;
            let (serial, tail) = rest.split_at(digits);
            (stamp.bytes().all(|b| b.is_ascii_digit()) && tail.starts_with(&end))
                .then(|| serial.parse::<u32>().ok())
                .flatten()
        })
        .max()
        .map_or(0, |n| n.wrapping_add(1))
}

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

    /// An output written through a temporary file gets a new file's mode (review 64 R1), and a killed run's
    /// temporary file of the same output is removed once stale, nothing else (review 64 R7).
    #[test]
    fn temporary_files_beside_an_output() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("x.cdxj");
        let tmp = temp_beside(&out).unwrap();
        std::fs::write(&tmp, "whole").unwrap();
        tmp.persist(&out).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let plain = dir.path().join("plain");
            std::fs::File::create(&plain).unwrap();
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&out), mode(&plain));
        }
        let old =
            std::time::SystemTime::now() - STALE_TEMPORARY - std::time::Duration::from_secs(1);
        let killed = dir.path().join(".x.cdxj.AbC123.tmp");
        let theirs = [
            dir.path().join(".x.cdxj.tmp"),
            dir.path().join("x.cdxj.tmp"),
            dir.path().join(".y.cdxj.AbC123.tmp"),
        ];
        for path in theirs.iter().chain([&killed]) {
            std::fs::File::create(path)
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
        let fresh = dir.path().join(".x.cdxj.XyZ789.tmp");
        std::fs::File::create(&fresh).unwrap();
        drop(temp_beside(&out).unwrap());
        assert!(!killed.exists());
        assert!(fresh.exists() && theirs.iter().all(|p| p.exists()));
    }
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
