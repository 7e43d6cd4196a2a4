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
    let listed: HashSet<String> = frontier
        .warcs()?
        .into_iter()
        .map(|(_, path, _)| path)
        .collect();
    let missing: Vec<(String, u64)> = files
        .into_iter()
        .filter(|(path, _)| !listed.contains(path))
        .collect();
    frontier.add_warcs(&missing)?;
    Ok(missing.len())
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
