//! Checkpoints: a consistent copy of a job's frontier and counters under `JOB/checkpoints/cpNNNNN-TIMESTAMP/`,
//! and what resuming needs (finding and restoring one, repairing archives a crash left open).

use std::path::{Path, PathBuf};

use trawl_frontier::StoreCopy;

use crate::{Error, job::Job, stats::Snapshot};

/// Writes the next checkpoint of `job` and returns its folder.
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
    let n = list(job).len() + 1;
    let name = format!("cp{n:05}-{}", chrono::Utc::now().format("%Y%m%d%H%M%S"));
    let cp = dir.join(&name);
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
    job.write_file(&cp.join("checkpoint.json"), &format!("{meta:#}\n"))?;
    Ok(cp)
}

/// The job's checkpoints, oldest first.
pub fn list(job: &Job) -> Vec<PathBuf> {
    let mut cps: Vec<PathBuf> = std::fs::read_dir(job.checkpoints_dir())
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.join("checkpoint.json").exists())
                .collect()
        })
        .unwrap_or_default();
    cps.sort();
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

/// Replaces the job's live frontier with the checkpoint's copy.
pub(crate) fn restore(job: &Job, checkpoint: &Path) -> Result<(), Error> {
    let live = job.frontier_dir();
    if live.exists() {
        std::fs::remove_dir_all(&live).map_err(|source| Error::Io {
            path: live.clone(),
            source,
        })?;
    }
    copy_dir(&checkpoint.join("frontier"), &live)?;
    // The counters and the cookie jar go back to what they were too.
    for name in [crate::stats::STATS_FILE, trawl_fetch::access::COOKIES_FILE] {
        let saved = checkpoint.join(name);
        let target = job.state_dir().join(name);
        if saved.exists() {
            std::fs::copy(&saved, &target).map_err(|source| Error::Io {
                path: target,
                source,
            })?;
        }
    }
    Ok(())
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
            repaired.push(trawl_warc::repair(path)?);
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
/// closed left unwritten (its `.cdxj.tmp`, if any, is removed), so that replay tools reading the per-file
/// indexes see all of its captures.
fn index_unindexed(dir: &std::path::Path) -> Result<(), Error> {
    let io = |path: &std::path::Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    let paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    for path in paths {
        if path.to_string_lossy().ends_with(".cdxj.tmp") {
            std::fs::remove_file(&path).map_err(io(&path))?;
            continue;
        }
        let is_warc = path.file_name().is_some_and(|n| {
            let n = n.to_string_lossy();
            n.ends_with(".warc.gz") || n.ends_with(".warc.zst") || n.ends_with(".warc")
        });
        if is_warc && !trawl_warc::index_path(&path).exists() {
            let index = trawl_warc::index_beside(&path)?;
            tracing::warn!(
                "{} had no index beside it (the disk filled or trawl stopped while it was closed): wrote {}",
                path.display(),
                index.display()
            );
        }
    }
    Ok(())
}
