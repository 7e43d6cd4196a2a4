//! Checkpoints: a consistent copy of a job's frontier and counters under `JOB/checkpoints/cpNNNNN-TIMESTAMP/`,
//! and what resuming needs (finding and restoring one, repairing archives a crash left open).

use std::path::{Path, PathBuf};

use trawl_frontier::StoreCopy;

use crate::{Error, job::Job, stats::Snapshot};

/// Writes the next checkpoint of `job` from `frontier`, a view of the frontier's store taken when the
/// checkpoint `started`, with the counters `snap`; returns its folder.
pub(crate) fn write(
    job: &Job,
    frontier: &StoreCopy,
    snap: &Snapshot,
    started: chrono::DateTime<chrono::Utc>,
) -> Result<PathBuf, Error> {
    let dir = job.checkpoints_dir();
    std::fs::create_dir_all(&dir).map_err(|source| Error::Io {
        path: dir.clone(),
        source,
    })?;
    let name = next_name(job);
    let cp = dir.join(&name);
    let written = write_into(job, &cp, &name, frontier, snap, started);
    if written.is_err() {
        // A checkpoint cut short (a full disk) is no checkpoint: its part copy would only take room and look
        // like one (xt39b F2). A kill leaves one too; `list` passes over it and `find` says what it is.
        let _ = std::fs::remove_dir_all(&cp);
    }
    written.map(|()| cp)
}

/// Writes checkpoint `name` into its folder `cp`: the frontier's view, then `checkpoint.json`, which makes it
/// whole.
fn write_into(
    job: &Job,
    cp: &Path,
    name: &str,
    frontier: &StoreCopy,
    snap: &Snapshot,
    started: chrono::DateTime<chrono::Utc>,
) -> Result<(), Error> {
    frontier.write_to(&cp.join("frontier"))?;
    let meta = serde_json::json!({
        "name": name,
        "started": started.to_rfc3339(),
        "written": chrono::Utc::now().to_rfc3339(),
        "finished": snap.finished,
        "succeeded": snap.succeeded,
        "failed": snap.failed,
        "queued": snap.queued,
        "discovered": snap.discovered,
        "wire_bytes": snap.wire_bytes,
    });
    job.write_file(&cp.join("checkpoint.json"), &format!("{meta:#}\n"))
}

/// The name of the job's next checkpoint: numbered one past the highest number any checkpoint folder has
/// (complete or cut short, whichever were deleted since), so numbers never repeat and always grow.
fn next_name(job: &Job) -> String {
    let highest = std::fs::read_dir(job.checkpoints_dir())
        .map(|rd| rd.flatten().filter_map(|e| number(&e.path())).max())
        .unwrap_or_default()
        .unwrap_or(0);
    format!(
        "cp{:05}-{}",
        highest + 1,
        chrono::Utc::now().format("%Y%m%d%H%M%S")
    )
}

/// The number of the checkpoint folder `path` (`cp00012-…` is 12).
fn number(path: &Path) -> Option<u64> {
    let name = path.file_name()?.to_str()?.strip_prefix("cp")?;
    let digits = name.split('-').next()?;
    digits.parse().ok()
}

/// The job's complete checkpoints, oldest first (by number).
pub fn list(job: &Job) -> Vec<PathBuf> {
    let mut cps: Vec<PathBuf> = std::fs::read_dir(job.checkpoints_dir())
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.join("checkpoint.json").exists())
                .collect()
        })
        .unwrap_or_default();
    cps.sort_by_cached_key(|p| (number(p), p.clone()));
    cps
}

/// The checkpoint called `name` (or the newest, for `latest`).
pub(crate) fn find(job: &Job, name: &str) -> Result<PathBuf, Error> {
    let all = list(job);
    let found = if name == "latest" {
        all.last().cloned()
    } else {
        all.iter()
            .find(|p| p.file_name().is_some_and(|f| f == name))
            .cloned()
    };
    found.ok_or_else(|| {
        if job.checkpoints_dir().join(name).is_dir() && !name.contains(['/', '\\']) {
            return Error::CheckpointCut {
                job: job.root().to_path_buf(),
                name: name.to_string(),
            };
        }
        let names: Vec<String> = all
            .iter()
            .filter_map(|p| p.file_name().map(|f| f.to_string_lossy().into_owned()))
            .collect();
        Error::NoSuchCheckpoint {
            job: job.root().to_path_buf(),
            name: name.to_string(),
            available: if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            },
        }
    })
}

/// Replaces the job's live frontier, counters and cookie jar with the checkpoint's. A crash at any point
/// leaves the live state as it was or the marker [`Job::restoring_path`] (while it exists the live state is
/// not to be trusted, and no `trawl crawl` may start afresh in the job: [`Job::holds_a_crawl`]), which makes the next resume restore the
/// same checkpoint again ([`interrupted_restore`]): the marker is written first, the store is copied beside
/// the live one and renamed into its place, and the marker goes last.
pub(crate) fn restore(job: &Job, checkpoint: &Path) -> Result<(), Error> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    let name = checkpoint
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let marker = job.restoring_path();
    job.write_file(&marker, &format!("{name}\n"))?;
    let live = job.frontier_dir();
    let copy = live.with_extension("restoring");
    remove_dir(&copy)?;
    copy_dir(&checkpoint.join("frontier"), &copy)?;
    remove_dir(&live)?;
    std::fs::rename(&copy, &live).map_err(io(&live))?;
    // The counters, their totals and the cookie jar go back to what they were too.
    for name in [
        crate::stats::STATS_FILE,
        crate::stats::TOTALS_NAME,
        trawl_fetch::access::COOKIES_FILE,
    ] {
        let saved = checkpoint.join(name);
        let target = job.state_dir().join(name);
        if saved.exists() {
            std::fs::copy(&saved, &target).map_err(io(&target))?;
        } else if name == crate::stats::TOTALS_NAME {
            // A checkpoint older than its totals: the live ones are of the run rolled back (review R5).
            let _ = std::fs::remove_file(&target);
        }
    }
    std::fs::remove_file(&marker).map_err(io(&marker))
}

/// The name of the checkpoint a restore was putting in place when a crash or kill cut it short, if one was.
pub(crate) fn interrupted_restore(job: &Job) -> Option<String> {
    let text = std::fs::read_to_string(job.restoring_path()).ok()?;
    let name = text.trim();
    (!name.is_empty()).then(|| name.to_string())
}

fn remove_dir(path: &Path) -> Result<(), Error> {
    match std::fs::remove_dir_all(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::Io {
            path: path.to_path_buf(),
            source: e,
        }),
        _ => Ok(()),
    }
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), Error> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    std::fs::create_dir_all(to).map_err(io(to))?;
    for entry in std::fs::read_dir(from).map_err(io(from))? {
        let entry = entry.map_err(io(from))?;
        let target = to.join(entry.file_name());
        if entry.file_type().map_err(io(&entry.path()))?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target).map_err(io(&target))?;
        }
    }
    Ok(())
}

/// Cuts every `.open` WARC of the job after its last complete record (putting back the records a zstd
/// dictionary's training held) and closes it.
pub(crate) fn repair_warcs(job: &Job) -> Result<Vec<trawl_warc::Repaired>, Error> {
    let dir = job.warc_dir();
    let mut repaired = Vec::new();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(repaired);
    };
    let paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    for path in &paths {
        if path.extension().is_some_and(|e| e == "open") {
            repaired.push(trawl_warc::repair(path).map_err(Error::Repair)?);
        }
    }
    // The records held back for a zstd dictionary, left beside a WARC closed since (their removal failed):
    // they are in it. (Those of a WARC left open were put back by its repair, which removed them.)
    for path in &paths {
        if path.extension().is_some_and(|e| e == "held") && !path.with_extension("").exists() {
            match std::fs::remove_file(path) {
                // Removed by its WARC's repair above (`paths` was listed before it).
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                other => other.map_err(|source| Error::Io {
                    path: path.clone(),
                    source,
                })?,
            }
        }
    }
    index_unindexed(&dir)?;
    Ok(repaired)
}

/// Gives every closed WARC of `dir` the `.cdxj` beside it that a full disk or a crash while it was being
/// closed left unwritten (its temporary index, if any, is removed), so that replay tools reading the per-file
/// indexes see all of its captures.
fn index_unindexed(dir: &std::path::Path) -> Result<(), Error> {
    let io = |path: &std::path::Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    let (torn, paths): (Vec<PathBuf>, Vec<PathBuf>) = entries
        .flatten()
        .map(|e| e.path())
        .partition(|p| trawl_warc::is_temporary_index(p) && p.is_file());
    // The torn indexes first: the index written below goes through a temporary file too, renamed away before
    // the loop would reach it (xt10b F3: the resume failed on a file no longer there).
    for path in torn {
        std::fs::remove_file(&path).map_err(io(&path))?;
    }
    for path in paths {
        let is_warc = path.file_name().is_some_and(|n| {
            let n = n.to_string_lossy();
            n.ends_with(".warc.gz") || n.ends_with(".warc.zst") || n.ends_with(".warc")
        });
        if is_warc && !trawl_warc::index_path(&path).exists() {
            // Read whatever their records' size: trawl wrote them (review 73 R3). One that cannot be read
            // (damaged since it was closed) is said, not a reason to refuse the resume (xt27b F7).
            let index = match trawl_warc::index_own_beside(&path) {
                Ok(index) => index,
                Err(e) => {
                    tracing::warn!(
                        "{} has no index beside it and cannot be indexed ({e}): its captures are in no index \
                         replay tools read until it is mended; `trawl warc verify {}` names the damage",
                        path.display(),
                        path.display()
                    );
                    continue;
                }
            };
            tracing::warn!(
                "{} had no index beside it (the disk filled or trawl stopped while it was closed): wrote {}",
                path.display(),
                index.display()
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A complete checkpoint folder `name` whose store holds one file saying `content`.
    fn checkpoint(job: &Job, name: &str, content: &str) -> PathBuf {
        let cp = job.checkpoints_dir().join(name);
        std::fs::create_dir_all(cp.join("frontier")).unwrap();
        std::fs::write(cp.join("frontier/store"), content).unwrap();
        std::fs::write(cp.join("checkpoint.json"), "{}").unwrap();
        cp
    }

    fn name_of(path: &Path) -> String {
        path.file_name().unwrap().to_string_lossy().into_owned()
    }

    /// xt6a F11: after the oldest checkpoints were deleted, the next one took a number already used and
    /// sorted before newer ones, so `latest` restored an older checkpoint.
    #[test]
    fn numbers_grow_past_deleted_checkpoints_and_latest_is_the_highest() {
        let dir = tempfile::tempdir().unwrap();
        let job = Job::create(dir.path()).unwrap();
        for n in 1..=3 {
            checkpoint(&job, &format!("cp{n:05}-2026113009383{n}"), "x");
        }
        for n in 1..=2 {
            std::fs::remove_dir_all(
                job.checkpoints_dir()
                    .join(format!("cp{n:05}-2026113009383{n}")),
            )
            .unwrap();
        }
        assert!(
            next_name(&job).starts_with("cp00004-"),
            "{}",
            next_name(&job)
        );
        // A checkpoint cut short (no checkpoint.json) keeps its number too.
        std::fs::create_dir_all(job.checkpoints_dir().join("cp00004-20261130093900")).unwrap();
        // Named, it is said to be cut short, not missing (xt39b F2).
        let cut = find(&job, "cp00004-20261130093900").unwrap_err();
        assert!(matches!(cut, Error::CheckpointCut { .. }), "{cut}");
        assert!(cut.to_string().contains("incomplete"), "{cut}");
        assert!(
            next_name(&job).starts_with("cp00005-"),
            "{}",
            next_name(&job)
        );
        // `latest` is the highest number, whatever the names' other parts.
        checkpoint(&job, "cp00010-20200101000000", "x");
        assert_eq!(
            name_of(&find(&job, "latest").unwrap()),
            "cp00010-20200101000000"
        );
        let names: Vec<String> = list(&job).iter().map(|p| name_of(p)).collect();
        assert_eq!(names, ["cp00003-20261130093833", "cp00010-20200101000000"]);
    }

    /// xt6a F10: a restore killed part way left a part-copied store that a plain resume crawled on. Now the
    /// marker names the checkpoint until the restore is done, and the store is renamed into place whole.
    #[test]
    fn a_restore_cut_short_is_named_and_can_be_done_again() {
        let dir = tempfile::tempdir().unwrap();
        let job = Job::create(dir.path()).unwrap();
        std::fs::create_dir_all(job.frontier_dir()).unwrap();
        std::fs::write(job.frontier_dir().join("store"), "live").unwrap();
        let cp = checkpoint(&job, "cp00001-20261130093831", "saved");
        assert_eq!(interrupted_restore(&job), None);
        // A kill after the marker was written and while the copy was half made.
        job.write_file(&job.restoring_path(), "cp00001-20261130093831\n")
            .unwrap();
        std::fs::create_dir_all(job.frontier_dir().with_extension("restoring")).unwrap();
        std::fs::write(
            job.frontier_dir().with_extension("restoring").join("part"),
            "",
        )
        .unwrap();
        assert_eq!(
            interrupted_restore(&job).as_deref(),
            Some("cp00001-20261130093831")
        );
        restore(&job, &cp).unwrap();
        assert_eq!(
            std::fs::read_to_string(job.frontier_dir().join("store")).unwrap(),
            "saved"
        );
        assert!(!job.frontier_dir().join("part").exists());
        assert!(!job.frontier_dir().with_extension("restoring").exists());
        assert_eq!(interrupted_restore(&job), None);
    }

    /// Review 72 R3: a restore killed after it removed the live store and before it renamed the copy into
    /// place left a job without `state/frontier`, which `trawl crawl --job` (and a launch from `trawl serve`)
    /// took for a new one and crawled afresh. The marker keeps it a job holding a crawl.
    #[test]
    fn a_restore_killed_between_removal_and_rename_still_holds_a_crawl() {
        let dir = tempfile::tempdir().unwrap();
        let job = Job::create(dir.path()).unwrap();
        let cp = checkpoint(&job, "cp00001-20261130093831", "saved");
        job.write_file(&job.restoring_path(), "cp00001-20261130093831\n")
            .unwrap();
        copy_dir(
            &cp.join("frontier"),
            &job.frontier_dir().with_extension("restoring"),
        )
        .unwrap();
        assert!(!job.frontier_dir().exists());
        assert!(job.holds_a_crawl());
        assert!(crate::job::holds_a_crawl(dir.path()));
        let config = trawl_config::CrawlConfig::default();
        job.write_config(&config).unwrap();
        let fresh = crate::Crawl::new(dir.path(), config, &["http://127.0.0.1:9/".to_string()]);
        assert!(
            matches!(fresh, Err(Error::JobExists(_))),
            "a fresh crawl was allowed: {:?}",
            fresh.err()
        );
        let resumed = crate::Crawl::resume(dir.path(), None).unwrap();
        assert_eq!(
            resumed.restored().map(|r| r.name.as_str()),
            Some("cp00001-20261130093831")
        );
        drop(resumed);
        assert_eq!(
            std::fs::read_to_string(job.frontier_dir().join("store")).unwrap(),
            "saved"
        );
        assert!(job.holds_a_crawl());
        assert_eq!(interrupted_restore(&job), None);
    }

    /// A restore puts back the checkpoint's totals, which `trawl serve` shows until the launch's first
    /// progress; a checkpoint without them takes away the live ones, which are the rolled-back run's
    /// (review R5: a launch from a checkpoint showed the later totals, then dropped).
    #[test]
    fn a_restore_puts_back_the_checkpoints_totals() {
        let dir = tempfile::tempdir().unwrap();
        let job = Job::create(dir.path()).unwrap();
        let live = job.state_dir().join(crate::stats::TOTALS_NAME);
        let cp = checkpoint(&job, "cp00001-20261130093831", "saved");
        std::fs::write(cp.join(crate::stats::TOTALS_NAME), "at the checkpoint").unwrap();
        job.write_file(&live, "later").unwrap();
        restore(&job, &cp).unwrap();
        assert_eq!(std::fs::read_to_string(&live).unwrap(), "at the checkpoint");
        let old = checkpoint(&job, "cp00002-20261130093832", "saved");
        restore(&job, &old).unwrap();
        assert!(!live.exists());
    }

    /// A torn `.cdxj.tmp` beside a WARC left without its index is removed before the index is written through
    /// the same name, whatever the folder's order (xt10b F3: the resume failed when the WARC came first).
    #[test]
    fn torn_indexes_are_removed_before_the_missing_ones_are_written() {
        let dir = tempfile::tempdir().unwrap();
        let warcinfo = "WARC/1.1\r\nWARC-Type: warcinfo\r\n\
                        WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000000>\r\n\
                        WARC-Date: 2026-11-30T00:00:00Z\r\nContent-Length: 0\r\n\r\n\r\n\r\n";
        // Twenty pairs: in whatever order the folder lists them, some WARC comes before its `.cdxj.tmp`.
        for n in 0..20 {
            let warc = dir.path().join(format!("t-{n:05}.warc"));
            std::fs::write(&warc, warcinfo).unwrap();
            let index = trawl_warc::index_path(&warc);
            std::fs::write(index.with_extension("cdxj.tmp"), "torn").unwrap();
        }
        // One damaged since it was closed is said, and the others are indexed (xt27b F7: the resume failed).
        let damaged = dir.path().join("t-00020.warc");
        std::fs::write(&damaged, format!("{warcinfo}WARC/1.1\r\nContent-Length: 9")).unwrap();
        index_unindexed(dir.path()).unwrap();
        assert!(!trawl_warc::index_path(&damaged).exists());
        for n in 0..20 {
            let warc = dir.path().join(format!("t-{n:05}.warc"));
            let index = trawl_warc::index_path(&warc);
            assert!(index.exists(), "{}", index.display());
            assert!(!index.with_extension("cdxj.tmp").exists());
        }
    }
}
