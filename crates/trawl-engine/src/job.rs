//! The job directory: one crawl's config, state, archives, logs and reports.

use std::path::{Path, PathBuf};

use crate::Error;

/// The paths of a job directory (see DESIGN.md, "Job directory").
#[derive(Debug, Clone)]
pub struct Job {
    root: PathBuf,
}

impl Job {
    /// Creates the job's folders under `root` (which may exist) and checks they can be written.
    pub fn create(root: &Path) -> Result<Job, Error> {
        let job = Job {
            root: root.to_path_buf(),
        };
        for dir in [
            job.root.clone(),
            job.state_dir(),
            job.warc_dir(),
            job.logs_dir(),
            job.reports_dir(),
        ] {
            std::fs::create_dir_all(&dir).map_err(|source| Error::Io {
                path: dir.clone(),
                source,
            })?;
        }
        let probe = job.root.join(".write-test");
        std::fs::write(&probe, b"ok")
            .and_then(|()| std::fs::remove_file(&probe))
            .map_err(|source| Error::Io {
                path: job.root.clone(),
                source,
            })?;
        Ok(job)
    }

    /// The job's root folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `JOB/crawl.toml`.
    pub fn config_path(&self) -> PathBuf {
        self.root.join("crawl.toml")
    }

    /// `JOB/state/`.
    pub fn state_dir(&self) -> PathBuf {
        self.root.join("state")
    }

    /// `JOB/state/frontier/`: the frontier's store.
    pub fn frontier_dir(&self) -> PathBuf {
        self.state_dir().join("frontier")
    }

    /// `JOB/checkpoints/`.
    pub fn checkpoints_dir(&self) -> PathBuf {
        self.root.join("checkpoints")
    }

    /// `JOB/warcs/`.
    pub fn warc_dir(&self) -> PathBuf {
        self.root.join("warcs")
    }

    /// `JOB/logs/`.
    pub fn logs_dir(&self) -> PathBuf {
        self.root.join("logs")
    }

    /// `JOB/reports/`.
    pub fn reports_dir(&self) -> PathBuf {
        self.root.join("reports")
    }

    /// Writes `text` to `path` inside the job, naming the file on failure.
    pub fn write_file(&self, path: &Path, text: &str) -> Result<(), Error> {
        std::fs::write(path, text).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })
    }
}
