//! A job as one WACZ package (`trawl wacz`, or `[warc] wacz = true` at the end of a crawl).

use std::path::{Path, PathBuf};

use crate::{Error, job::Job};
use trawl_config::CrawlConfig;

/// The WARC files of a job, by name.
pub fn job_warcs(job_dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let dir = job_dir.join("warcs");
    trawl_warc::warc_files(&dir).map_err(|source| Error::Io { path: dir, source })
}

/// Packs the job at `job_dir` into the WACZ `out`: its WARCs, their index, its seeds and HTML pages.
pub fn write_wacz(job_dir: &Path, out: &Path) -> Result<trawl_warc::WaczSummary, Error> {
    let config_path = Job::open(job_dir)?.config_path();
    let config = CrawlConfig::load(&config_path)?;
    let warcs = job_warcs(job_dir)?;
    if warcs.is_empty() {
        return Err(Error::NothingToPackage(job_dir.to_path_buf()));
    }
    let title = job_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "trawl crawl".into());
    Ok(trawl_warc::write_wacz(
        out,
        &warcs,
        &config.seeds.urls,
        &title,
    )?)
}

/// Where a crawl with `[warc] wacz = true` writes its package: `JOB/JOBNAME.wacz`.
pub fn default_wacz_path(job_dir: &Path) -> PathBuf {
    let name = job_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "crawl".into());
    job_dir.join(format!("{name}.wacz"))
}
