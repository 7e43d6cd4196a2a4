//! The crawl-wide manifest of WARC files (`trawl:{JOB}:warcs`) kept whole from each worker's side: on its
//! start and at its end a worker adds every closed WARC of its job the manifest lacks, by absolute path.
//! So a WARC closed by a run that then failed (a full disk), or repaired by a run that was killed in turn,
//! enters it at the next start, and the paths name the files from any working directory.

use std::{
    collections::HashSet,
    path::{Path, PathBuf},
};

use trawl_config::CrawlUri;
use trawl_frontier::{SharedError, SharedFrontier};

/// Adds the closed WARCs of `warc_dir` that the manifest lacks; how many were added.
pub(super) fn add_missing(
    frontier: &mut SharedFrontier<CrawlUri>,
    warc_dir: &Path,
) -> Result<usize, SharedError> {
    let files = closed_warcs(warc_dir);
    if files.is_empty() {
        return Ok(0);
    }
    let listed = frontier
        .warcs()?
        .into_iter()
        .map(|(_, path, bytes)| (path, bytes));
    let missing = unlisted(files, listed);
    frontier.add_warcs(&missing)?;
    Ok(missing.len())
}

/// The `files` (absolute paths, sizes) that no `listed` line names. A line written by an older trawl may
/// name its file relative to that worker's working directory, unknown here: it names the file it resolves
/// to from here, and any file of the same name and size (WARC names are unique in a crawl).
fn unlisted(
    files: Vec<(String, u64)>,
    listed: impl Iterator<Item = (String, u64)>,
) -> Vec<(String, u64)> {
    let mut paths = HashSet::new();
    let mut names = HashSet::new();
    for (path, bytes) in listed {
        let old = Path::new(&path);
        if old.is_relative() {
            if let Ok(resolved) = std::fs::canonicalize(old) {
                paths.insert(resolved.display().to_string());
            }
            if let Some(name) = old.file_name() {
                names.insert((name.to_os_string(), bytes));
            }
        }
        paths.insert(path);
    }
    files
        .into_iter()
        .filter(|(path, bytes)| {
            let name = Path::new(path)
                .file_name()
                .map(|n| (n.to_os_string(), *bytes));
            !paths.contains(path) && !name.is_some_and(|n| names.contains(&n))
        })
        .collect()
}

/// The closed WARC files of `warc_dir` (not `.open` ones) by absolute path, with their sizes.
fn closed_warcs(warc_dir: &Path) -> Vec<(String, u64)> {
    let dir = absolute(warc_dir);
    let Ok(files) = trawl_warc::cdxj::warc_files(&dir) else {
        return Vec::new();
    };
    files
        .into_iter()
        .map(|f| {
            let bytes = std::fs::metadata(&f).map(|m| m.len()).unwrap_or(0);
            (f.display().to_string(), bytes)
        })
        .collect()
}

/// `dir` as an absolute path, symbolic links resolved when it exists.
fn absolute(dir: &Path) -> PathBuf {
    std::fs::canonicalize(dir)
        .or_else(|_| std::path::absolute(dir))
        .unwrap_or_else(|_| dir.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_warcs_are_named_by_absolute_path_and_open_ones_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let warcs = dir.path().join("warcs");
        std::fs::create_dir(&warcs).unwrap();
        std::fs::write(warcs.join("a.warc.gz"), b"12345").unwrap();
        std::fs::write(warcs.join("b.warc.gz.open"), b"1").unwrap();
        std::fs::write(warcs.join("a.cdxj"), b"1").unwrap();
        // Named from a relative path, as `--job B/k1` gives it.
        let cwd = std::env::current_dir().unwrap();
        let relative = pathdiff(&warcs, &cwd);
        let found = closed_warcs(&relative);
        let canonical = std::fs::canonicalize(warcs.join("a.warc.gz")).unwrap();
        assert_eq!(found, [(canonical.display().to_string(), 5)]);
    }

    /// A file an older trawl listed by a relative path is not listed again by its absolute one; a file
    /// not listed at all is.
    #[test]
    fn a_file_listed_by_a_relative_path_is_not_missing() {
        let dir = tempfile::tempdir().unwrap();
        let warcs = dir.path().join("warcs");
        std::fs::create_dir(&warcs).unwrap();
        std::fs::write(warcs.join("a.warc.gz"), b"12345").unwrap();
        std::fs::write(warcs.join("b.warc.gz"), b"123").unwrap();
        let files = closed_warcs(&warcs);
        let cwd = std::env::current_dir().unwrap();
        let old_line = pathdiff(&warcs.join("a.warc.gz"), &cwd);
        let listed = [(old_line.display().to_string(), 5)];
        let missing = unlisted(files.clone(), listed.into_iter());
        let b = std::fs::canonicalize(warcs.join("b.warc.gz")).unwrap();
        assert_eq!(missing, [(b.display().to_string(), 3)]);
        // Written from another working directory: known by its name and size.
        let listed = [("elsewhere/warcs/b.warc.gz".to_string(), 3)];
        let a = std::fs::canonicalize(warcs.join("a.warc.gz")).unwrap();
        assert_eq!(
            unlisted(files, listed.into_iter()),
            [(a.display().to_string(), 5)]
        );
    }

    /// `path` relative to `base` (both absolute), through `..` as needed.
    fn pathdiff(path: &Path, base: &Path) -> PathBuf {
        let common = path
            .components()
            .zip(base.components())
            .take_while(|(a, b)| a == b)
            .count();
        let ups = base.components().count() - common;
        let mut out = PathBuf::new();
        for _ in 0..ups {
            out.push("..");
        }
        for c in path.components().skip(common) {
            out.push(c);
        }
        out
    }
}
