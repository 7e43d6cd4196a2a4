//! A job as one WACZ package (`trawl wacz`, or `[warc] wacz = true` at the end of a crawl).

use std::path::{Path, PathBuf};

use crate::{Error, job::Job};
use trawl_config::CrawlConfig;

/// The WARC files of a job, by name.
pub fn job_warcs(job_dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let dir = job_dir.join("warcs");
    trawl_warc::warc_files(&dir).map_err(|source| Error::Io { path: dir, source })
}

/// What to say of a package holding revisits whose payload it does not hold, if it does.
pub fn revisits_outside_warning(out: &Path, summary: &trawl_warc::WaczSummary) -> Option<String> {
    let n = summary.revisits_outside;
    let (records, point) = if n == 1 {
        ("record", "points")
    } else {
        ("records", "point")
    };
    (n > 0).then(|| {
        format!(
            "{}: {n} revisit {records} {point} to a payload this package does not hold (archived by an \
             earlier job: `warc.dedup_from`, or a recrawl's \"not modified\"): those captures do not replay \
             from the package alone, and `wacz validate` does not notice; package the earlier job too and load \
             both into one collection",
            out.display()
        )
    })
}

/// Packs the job at `job_dir` into the WACZ `out`: its WARCs, their index, its seeds and HTML pages.
pub fn write_wacz(job_dir: &Path, out: &Path) -> Result<trawl_warc::WaczSummary, Error> {
    let config_path = Job::open(job_dir)?.config_path();
    let config = CrawlConfig::load(&config_path)?;
    let warcs = job_warcs(job_dir)?;
    if warcs.is_empty() {
        return Err(Error::NothingToPackage {
            dir: job_dir.to_path_buf(),
            why: crate::job::no_warcs_reason(&job_dir.join("warcs")),
        });
    }
    let title = job_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "trawl crawl".into());
    // WACZ holds gzip (or plain) WARCs, which every replay tool reads; zstd ones go in as gzip, rewritten
    // beside the package for the time it takes (the folder is made only for them).
    let zstd = |w: &PathBuf| w.to_string_lossy().ends_with(".warc.zst");
    let mut names: std::collections::HashMap<String, &PathBuf> = std::collections::HashMap::new();
    for warc in &warcs {
        let name = warc.file_name().unwrap_or_default().to_string_lossy();
        let packed = match name.strip_suffix(".warc.zst") {
            Some(stem) => format!("{stem}.warc.gz"),
            None => name.into_owned(),
        };
        if let Some(first) = names.get(&packed) {
            return Err(Error::PackageNameClash {
                name: packed,
                first: first.to_path_buf(),
                second: warc.clone(),
            });
        }
        names.insert(packed, warc);
    }
    let aside = warcs
        .iter()
        .any(zstd)
        .then(|| aside_folder(out))
        .transpose()?;
    let mut packed = Vec::with_capacity(warcs.len());
    for warc in warcs {
        let name = warc
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        match (name.strip_suffix(".warc.zst"), &aside) {
            (Some(stem), Some(folder)) => {
                let gz = folder.path().join(format!("{stem}.warc.gz"));
                trawl_warc::recompress(&warc, &gz).map_err(packaging(out))?;
                packed.push(gz);
            }
            _ => packed.push(warc),
        }
    }
    trawl_warc::write_wacz(out, &packed, &config.seeds.urls, &title).map_err(packaging(out))
}

/// A failure while writing the package `out` (reading its WARCs, or writing it), as an [`Error::Package`].
fn packaging(out: &Path) -> impl Fn(trawl_warc::Error) -> Error {
    move |source| Error::Package {
        out: out.to_path_buf(),
        source,
    }
}

/// A temporary folder beside the package `out` (`.trawl-wacz-*`), removed when dropped.
fn aside_folder(out: &Path) -> Result<tempfile::TempDir, Error> {
    tempfile::Builder::new()
        .prefix(".trawl-wacz-")
        .tempdir_in(
            out.parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new(".")),
        )
        .map_err(|source| Error::Io {
            path: out.to_path_buf(),
            source,
        })
}

/// Where a crawl with `[warc] wacz = true` writes its package: `JOB/JOBNAME.wacz`.
pub fn default_wacz_path(job_dir: &Path) -> PathBuf {
    let name = job_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "crawl".into());
    job_dir.join(format!("{name}.wacz"))
}
