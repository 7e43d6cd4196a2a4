//! What marks a job directory as one worker's of a crawl shared through Redis: `state/shared.json`, written
//! when the worker starts, naming the server and the crawl. The job holds no frontier of its own, so what
//! continues it is `trawl worker URL --job DIR`, not `trawl resume`: the hints read this file to say so.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// The marker's file name, under the job's `state/`.
pub const SHARED_FILE: &str = "shared.json";

/// The shared crawl a job directory works for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedJob {
    /// The server, as given (a password in it is left out).
    pub url: String,
    /// The crawl's name in Redis.
    pub crawl: String,
    /// The crawl's birth id ([`trawl_frontier::SharedFrontier::born`]): a later crawl of the same name has
    /// another. None in a marker an older trawl wrote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub born: Option<String>,
}

impl SharedJob {
    /// The marker of `job_dir`, if it is a worker's job (an unreadable marker counts as none).
    pub fn of(job_dir: &Path) -> Option<SharedJob> {
        let text = std::fs::read_to_string(job_dir.join("state").join(SHARED_FILE)).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// The marker of a worker of `crawl` (born `born`) at `url` (its password left out), as the file holds it;
    /// [`Job::mark_shared`](crate::job::Job::mark_shared) writes it.
    pub(crate) fn text(url: &str, crawl: &str, born: &str) -> String {
        let marker = SharedJob {
            url: without_password(url),
            crawl: crawl.to_string(),
            born: Some(born.to_string()),
        };
        serde_json::to_string(&marker).unwrap_or_default()
    }

    /// The command that continues the worker of `job_dir` (and repairs the WARCs a kill left open).
    pub fn continue_command(&self, job_dir: &Path) -> String {
        format!("trawl worker {} --job {}", self.url, job_dir.display())
    }
}

pub use trawl_frontier::without_password;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::Job;

    #[test]
    fn a_recorded_marker_is_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let job = Job::create(&dir.path().join("j")).unwrap();
        assert_eq!(SharedJob::of(job.root()), None);
        job.mark_shared("redis://127.0.0.1:6391/0", "j", "b1")
            .unwrap();
        let marker = SharedJob::of(job.root()).unwrap();
        assert_eq!(
            marker.continue_command(job.root()),
            format!(
                "trawl worker redis://127.0.0.1:6391/0 --job {}",
                job.root().display()
            )
        );
    }

    #[test]
    fn warcs_left_open_in_a_workers_job_point_at_trawl_worker() {
        let dir = tempfile::tempdir().unwrap();
        let job = Job::create(&dir.path().join("j")).unwrap();
        std::fs::write(job.warc_dir().join("a.warc.gz.open"), b"").unwrap();
        let local = crate::job::no_warcs_reason(&job.warc_dir());
        assert!(local.contains("`trawl resume "), "{local}");
        job.mark_shared("redis://127.0.0.1:6391/0", "j", "b1")
            .unwrap();
        let shared = crate::job::no_warcs_reason(&job.warc_dir());
        assert!(
            shared.contains("`trawl worker redis://127.0.0.1:6391/0 --job ")
                && !shared.contains("resume"),
            "{shared}"
        );
    }
}
