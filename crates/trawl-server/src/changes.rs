//! `JOB/logs/config-changes.log`: one line per operator change, `TIME WHO ACTION DETAILS`.

use std::{io::Write, path::Path};

/// Appends a change by `who` to the job's config-changes.log (best effort: a log failure does not undo the
/// change).
pub(crate) fn record(job_dir: &Path, who: &str, what: &str) {
    let logs = job_dir.join("logs");
    let _ = std::fs::create_dir_all(&logs);
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(logs.join("config-changes.log"))
    {
        // One write per line: lines of requests at the same moment never interleave in an appended file.
        let line = format!(
            "{} {who} {}\n",
            chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            what.replace('\n', " ")
        );
        let _ = f.write_all(line.as_bytes());
    }
}
