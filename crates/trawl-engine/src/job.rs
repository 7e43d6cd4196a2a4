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
        // A nameless file (made and unlinked at once): probes at the same moment cannot remove each other's.
        tempfile::tempfile_in(&job.root).map_err(|source| Error::Io {
            path: job.root.clone(),
            source,
        })?;
        Ok(job)
    }

    /// The job at `root`, which must be one already (its crawl.toml is there): for the commands that work on
    /// a job (`trawl resume`, `ctl`, `wacz`), so that a mistyped folder is named as no job, not made into one.
    pub fn open(root: &Path) -> Result<Job, Error> {
        let job = Job {
            root: root.to_path_buf(),
        };
        if !job.config_path().is_file() {
            return Err(Error::NotAJob(job.root));
        }
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

    /// `JOB/state/restoring`: names the checkpoint a restore is putting in place, while it does.
    pub fn restoring_path(&self) -> PathBuf {
        self.state_dir().join("restoring")
    }

    /// Whether the job holds a crawl to continue: see [`holds_a_crawl`].
    pub fn holds_a_crawl(&self) -> bool {
        self.frontier_dir().exists() || self.restoring_path().is_file()
    }

    /// Removes the frontier and dedup stores of a crawl killed while they were being made (within its first
    /// milliseconds): they hold nothing, and fjall cannot open them again, so the job is one that never
    /// started (`trawl crawl` makes them anew; `trawl resume` says there is nothing to resume). Said when
    /// done. Call with the job's lock held.
    pub fn clear_unmade_stores(&self) -> Result<(), Error> {
        for dir in [self.frontier_dir(), self.state_dir().join("dedup")] {
            match trawl_frontier::clear_unmade(&dir) {
                Ok(true) => tracing::warn!(
                    "{} was left half made by a crawl that failed or was killed as it started: removed (it \
                     held nothing)",
                    dir.display()
                ),
                Ok(false) => {}
                Err(source) => return Err(Error::Io { path: dir, source }),
            }
        }
        Ok(())
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

    /// `JOB/trawl.lock`: held by the one process that crawls into the job ([`Job::lock`]).
    fn lock_path(&self) -> PathBuf {
        self.root.join("trawl.lock")
    }

    /// Takes the job for this process: only one may crawl into it, repair its archives or restore its
    /// frontier at a time. A second `trawl resume` (or `crawl`, or `worker`) on a job in use fails here,
    /// before it touches anything, naming the process that has it. The lock is the kernel's (`flock`), so a
    /// process killed with `kill -9` lets go of it; it lives in the job's root, which no restore replaces.
    pub fn lock(&self) -> Result<JobLock, Error> {
        let path = self.lock_path();
        let file = std::fs::File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|source| Error::Io {
                path: path.clone(),
                source,
            })?;
        match file.try_lock() {
            Ok(()) => Ok(JobLock { _file: file }),
            Err(std::fs::TryLockError::WouldBlock) => Err(Error::JobInUse {
                dir: self.root.clone(),
                // The crawl's pid, when its process is a trawl holding this lock: the file of a crawl killed
                // earlier names a dead process, or another's, the number reused (xt27a F4, xt28a F2).
                pid: std::fs::read_to_string(self.state_dir().join("crawl.pid"))
                    .ok()
                    .and_then(|t| t.trim().parse().ok())
                    .filter(|&pid| holds(pid, &path)),
            }),
            Err(std::fs::TryLockError::Error(source)) => Err(Error::Io { path, source }),
        }
    }

    /// Writes `text` to `path` inside the job whole ([`write_whole`]), naming the file on failure.
    pub fn write_file(&self, path: &Path, text: &str) -> Result<(), Error> {
        write_whole(path, text)
    }

    /// Marks the job as a worker's of the crawl `crawl` shared at `url`, born `born` (`state/shared.json`,
    /// the password left out), so that hints name `trawl worker` for it and a later crawl of that name is
    /// not joined with it.
    pub(crate) fn mark_shared(&self, url: &str, crawl: &str, born: &str) -> Result<(), Error> {
        let path = self.state_dir().join(crate::shared_job::SHARED_FILE);
        self.write_file(&path, &crate::shared_job::SharedJob::text(url, crawl, born))
    }

    /// Writes `config` as the job's crawl.toml: the file there edited only where its settings differ, so
    /// its comments and layout stay ([`CrawlConfig::to_toml_over`]); written out whole when there is none.
    pub fn write_config(&self, config: &trawl_config::CrawlConfig) -> Result<(), Error> {
        let path = self.config_path();
        let config = &password_stand_ins(config);
        let text = match std::fs::read_to_string(&path) {
            Ok(old) => config.to_toml_over(&old, &path),
            Err(_) => config.to_toml(),
        };
        write_whole(&path, &text)
    }

    /// Holds the job to the queue naming its queued URIs are stored under
    /// ([`trawl_config::settings::FIXED_FOR_THE_JOB`]), recorded in [`QUEUE_NAMING`] when the job's frontier
    /// is made (or, for a job older than the file, at its next resume): a crawl.toml edited by hand to another
    /// `queue_assignment` or `parallel_queues` is refused, naming the value to put back (xt14b F1: a host was
    /// split over two queues, each polite and budgeted alone).
    pub(crate) fn keep_queue_naming(
        &self,
        config: &trawl_config::CrawlConfig,
    ) -> Result<(), Error> {
        let path = self.state_dir().join(QUEUE_NAMING);
        // A job whose frontier was never made (a crawl that stopped at a problem before it) starts afresh.
        if self.frontier_dir().exists()
            && let Some(recorded) = self.recorded_queue_naming()?
        {
            return match queue_naming_change(&recorded, config) {
                Some(change) => Err(Error::Config {
                    path: self.config_path(),
                    message: format!("{change} ({})", path.display()),
                }),
                None => Ok(()),
            };
        }
        let text = format!(
            "# The queue naming this job's queued URIs are stored under, written by trawl when the job \
             started:\n# fixed for the job's life (docs/operating.md).\n{}",
            toml::to_string(&trawl_config::settings::fixed_for_the_job(config)).unwrap_or_default()
        );
        self.write_file(&path, &text)
    }

    /// The queue naming recorded in [`QUEUE_NAMING`], if the job has the file.
    pub fn recorded_queue_naming(&self) -> Result<Option<toml::Table>, Error> {
        let path = self.state_dir().join(QUEUE_NAMING);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(Error::Io { path, source }),
        };
        let damaged = |what: String| Error::Config {
            path: path.clone(),
            message: format!(
                "{what}; trawl wrote this file when the job started: write in it the job's first `[frontier]` \
                 queue_assignment and parallel_queues, or remove it to record crawl.toml's at the next launch"
            ),
        };
        let recorded = toml::from_str::<toml::Table>(&text)
            .map_err(|e| damaged(e.message().trim().to_owned()))?;
        // A file that lost a setting would let it change unseen (review 63 R4).
        if let Some(key) = trawl_config::settings::FIXED_FOR_THE_JOB
            .iter()
            .find(|k| trawl_config::settings::setting_at(&recorded, k).is_none())
        {
            return Err(damaged(format!("it holds no {key}")));
        }
        Ok(Some(recorded))
    }

    /// Removes the hidden `.trawl-*.tmp` files that a crash in the middle of [`write_whole`] left in the
    /// job's folders (its root, state, reports and each checkpoint), and returns how many. Only files
    /// untouched for [`ASIDE_STALE`] go: one younger may be another process's write in progress (`trawl
    /// ctl … set`, the web API's config edit). Called when a job is opened again after it stopped.
    pub fn sweep_aside(&self) -> usize {
        let mut dirs = vec![self.root.clone(), self.state_dir(), self.reports_dir()];
        if let Ok(entries) = std::fs::read_dir(self.checkpoints_dir()) {
            dirs.extend(entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
        }
        let now = std::time::SystemTime::now();
        let mut removed = 0;
        for dir in dirs {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                if !(name.starts_with(ASIDE_PREFIX) && name.ends_with(ASIDE_SUFFIX)) {
                    continue;
                }
                let stale = entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .is_ok_and(|t| now.duration_since(t).unwrap_or_default() >= ASIDE_STALE);
                if stale && entry.file_type().is_ok_and(|t| t.is_file()) {
                    removed += usize::from(std::fs::remove_file(entry.path()).is_ok());
                }
            }
        }
        removed
    }
}

/// A job taken by this process ([`Job::lock`]), until it is dropped (or the process ends).
#[derive(Debug)]
pub struct JobLock {
    _file: std::fs::File,
}

/// The name of [`write_whole`]'s file aside: `.trawl-RANDOM.tmp`.
const ASIDE_PREFIX: &str = ".trawl-";
const ASIDE_SUFFIX: &str = ".tmp";

/// How long a file aside must lie untouched before [`Job::sweep_aside`] takes it for a crash's leftover: a
/// write in progress touches it within milliseconds.
const ASIDE_STALE: std::time::Duration = std::time::Duration::from_secs(60);

/// `JOB/state/queue-naming.toml`: the settings that name a job's queues, as the job started with them
/// ([`Job::keep_queue_naming`]).
pub const QUEUE_NAMING: &str = "queue-naming.toml";

/// Why `config` cannot run on a job whose queues were named as `recorded` says ([`Job::recorded_queue_naming`]):
/// the first setting of [`trawl_config::settings::FIXED_FOR_THE_JOB`] it changes, in words naming the value
/// to put back; `None` when it keeps them.
pub fn queue_naming_change(
    recorded: &toml::Table,
    config: &trawl_config::CrawlConfig,
) -> Option<String> {
    let (key, was, is) = trawl_config::settings::fixed_setting_differing(recorded, config)?;
    Some(format!(
        "{key} = {is}, but this job's queued URIs are stored under queues named with {key} = {was}: a job \
         keeps its queue naming for its life; put {key} = {was} back, or start a new job with the new value"
    ))
}

/// Whether the job at `job_dir` holds a crawl to continue (with `trawl resume`, not `trawl crawl`): its
/// frontier's store, or the marker of a restore a kill cut short, which may have removed the store before
/// the checkpoint's took its place (the resume restores that checkpoint again).
pub fn holds_a_crawl(job_dir: &Path) -> bool {
    Job {
        root: job_dir.to_path_buf(),
    }
    .holds_a_crawl()
}

/// Appends a change by `who` to the job's `logs/config-changes.log`, one line `TIME WHO ACTION DETAILS`
/// (best effort: a log failure does not undo the change). `trawl serve` records its operators' changes
/// (`ui@ADDR`, `token@ADDR`); the crawl records its own (`crawl`: a seed redirect's widening of the scope).
pub fn record_change(job_dir: &Path, who: &str, what: &str) {
    use std::io::Write;
    let logs = job_dir.join("logs");
    let _ = std::fs::create_dir_all(&logs);
    let path = logs.join("config-changes.log");
    // One line per change, whatever the words hold: a name from the environment (`USER`) with a newline in it
    // would write a line of its own (xt27a F5). A name is one word.
    let who: String = who
        .chars()
        .map(|c| {
            if c.is_control() || c.is_whitespace() {
                '?'
            } else {
                c
            }
        })
        .collect();
    let what: String = what
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    // One write per line: lines of requests at the same moment never interleave in an appended file.
    let line = format!(
        "{} {who} {what}\n",
        chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
    );
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    // The change is made either way; a log that cannot take it is said (xt27a F6).
    if let Err(e) = written {
        tracing::warn!(
            "{}: cannot record the change `{who} {what}`: {e}",
            path.display()
        );
    }
}

/// `JOB/state/ending`: written as a run's end begins (its pid file gone), removed once its reports are
/// written; left, it says a kill cut that end short.
pub const ENDING: &str = "ending";

/// The PID of the process running the job's crawl, if one is running: its pid file names a live process.
pub fn running_pid(job_dir: &Path) -> Option<u32> {
    let pid: u32 = std::fs::read_to_string(job_dir.join("state/crawl.pid"))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    // A process of that number that does not hold the job's lock is another's, the number reused after the
    // crawl was killed (xt26a N9: every `trawl ctl` waited for it). The lock is looked at only then.
    let alive = Path::new(&format!("/proc/{pid}")).exists();
    (alive && is_held(job_dir)).then_some(pid)
}

/// Whether the job at `job_dir` is ending: its `state/ending` marker names a trawl process that holds the job
/// (a marker a kill left, with another process holding the job, is not an end under way: review 75 R5).
pub fn is_ending(job_dir: &Path) -> bool {
    let job = Job {
        root: job_dir.to_path_buf(),
    };
    std::fs::read_to_string(job.state_dir().join(ENDING))
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .is_some_and(|pid| holds(pid, &job.lock_path()))
}

/// Whether process `pid` is alive, runs trawl (its name, in `/proc`, is `trawl`) and has the file `lock` open;
/// without `/proc`, taken on the pid file's word.
fn holds(pid: u32, lock: &Path) -> bool {
    if !Path::new("/proc/self").exists() {
        return true;
    }
    let is_trawl = std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .is_ok_and(|name| name.trim() == "trawl");
    let lock = std::fs::canonicalize(lock).unwrap_or_else(|_| lock.to_path_buf());
    is_trawl
        && std::fs::read_dir(format!("/proc/{pid}/fd")).is_ok_and(|fds| {
            fds.flatten()
                .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| target == lock))
        })
}

/// Whether a process holds the job at `job_dir` (its lock is taken): a crawl, or one starting or ending.
pub fn is_held(job_dir: &Path) -> bool {
    let job = Job {
        root: job_dir.to_path_buf(),
    };
    matches!(job.lock(), Err(Error::JobInUse { .. }))
}

/// Why a job's `warcs/` folder offers no WARC file to read, and what to do: it holds only files still open
/// (a crawl writing them, or one that stopped abruptly and left them for `trawl resume` to repair), or
/// nothing at all.
pub fn no_warcs_reason(warcs_dir: &Path) -> String {
    let open = std::fs::read_dir(warcs_dir)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| e.file_name().to_string_lossy().ends_with(".open"));
    let job = warcs_dir.parent().unwrap_or(warcs_dir).display();
    // A folder of WARC files copied elsewhere: the job that wrote them is not known (xt11a F9).
    let of_a_job = warcs_dir.file_name().is_some_and(|n| n == "warcs");
    if !open {
        "there is none, finished or being written (a crawl that archived nothing: its crawl.log says why)".into()
    } else if !of_a_job {
        "its WARC files are still open (.open): a crawl writing them, or one that stopped abruptly (then \
         `trawl resume` of the job that wrote them repairs and closes them)"
            .into()
    } else if warcs_dir.parent().and_then(running_pid).is_some() {
        format!(
            "its WARC files are still being written (.open): wait for the crawl to end, or close them with a \
             checkpoint (`trawl ctl {job} checkpoint`)"
        )
    } else {
        let command = warcs_dir
            .parent()
            .and_then(|dir| Some(crate::shared_job::SharedJob::of(dir)?.continue_command(dir)))
            .unwrap_or_else(|| format!("trawl resume {job}"));
        format!(
            "its WARC files were left open (.open) by a crawl that stopped abruptly: `{command}` repairs and \
             closes them (it goes on crawling; stop it with Ctrl-C or `trawl ctl {job} stop`)"
        )
    }
}

/// The WARC files of a job's `warcs/` folder still open (`….warc.gz.open`, `.warc.zst.open`, `.warc.open`; not
/// a `.open.held` file of held records), by name: what the archive tools leave out.
pub fn open_warcs(warcs_dir: &Path) -> Vec<PathBuf> {
    let mut open: Vec<PathBuf> = std::fs::read_dir(warcs_dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.to_string_lossy()
                .strip_suffix(".open")
                .is_some_and(|name| trawl_warc::is_archive_name(Path::new(name)))
        })
        .collect();
    open.sort();
    open
}

/// When the folder `warcs_dir` holds closed WARC files and open ones too, the warning that the open ones are
/// left out (by `trawl warc verify|index`, `trawl wacz`), naming them, and what to do: wait for the crawl
/// writing them, or repair and close them with `trawl resume` when it stopped abruptly. `None` when none is
/// open.
pub fn open_warcs_left_out(warcs_dir: &Path) -> Option<String> {
    let open = open_warcs(warcs_dir);
    if open.is_empty() {
        return None;
    }
    let names: Vec<String> = open.iter().map(|p| p.display().to_string()).collect();
    let (them, what) = if open.len() == 1 {
        ("it", "a WARC file still open")
    } else {
        ("them", "WARC files still open")
    };
    // A job's `warcs/`, or a folder of WARC files copied elsewhere, whose job is not known.
    let job_dir = warcs_dir
        .parent()
        .filter(|_| warcs_dir.file_name().is_some_and(|n| n == "warcs"));
    let Some(job_dir) = job_dir else {
        return Some(format!(
            "left out: {}, {what}: a crawl writing {them}, or one that stopped abruptly (then `trawl resume` of \
             the job that wrote {them} repairs and closes {them})",
            names.join(", ")
        ));
    };
    let job = job_dir.display();
    let why = if running_pid(job_dir).is_some() {
        format!(
            "the running crawl is writing {them}: wait for it to end, or close {them} with a checkpoint \
             (`trawl ctl {job} checkpoint`)"
        )
    } else {
        let command = crate::shared_job::SharedJob::of(job_dir)
            .map(|shared| shared.continue_command(job_dir))
            .unwrap_or_else(|| format!("trawl resume {job}"));
        format!(
            "a crawl that stopped abruptly left {them} so: `{command}` repairs and closes {them} (it goes on \
             crawling; stop it with Ctrl-C or `trawl ctl {job} stop`)"
        )
    };
    Some(format!("left out: {}, {what}: {why}", names.join(", ")))
}

/// Writes `text` to `path` whole, naming the file on failure. The text goes to a file of its own beside `path`
/// (a unique name: the ticker and a checkpoint may save the counters at once), synced, and renamed over
/// `path`: a crash mid-write leaves the last whole crawl.toml, stats.json or checkpoint.json, never a cut
/// one that a resume cannot read. A crash before the rename can leave a hidden `.trawl-*.tmp` beside it,
/// which [`Job::sweep_aside`] removes when the job is opened again.
/// A symbolic link (a crawl.toml kept elsewhere) is written through, as `std::fs::write` would: its target
/// is replaced, not the link.
pub fn write_whole(path: &Path, text: &str) -> Result<(), Error> {
    use std::io::Write as _;
    let linked = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let target = linked.then(|| std::fs::canonicalize(path).ok()).flatten();
    let path = target.as_deref().unwrap_or(path);
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(ASIDE_PREFIX).suffix(ASIDE_SUFFIX);
    // The permissions `std::fs::write` would give: the old file's, or the umask's for a new one (not the
    // owner-only ones of a temporary file).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let permissions = std::fs::metadata(path)
            .map(|m| m.permissions())
            .unwrap_or_else(|_| std::fs::Permissions::from_mode(0o666));
        builder.permissions(permissions);
    }
    let mut aside = builder.tempfile_in(dir).map_err(io)?;
    aside
        .write_all(text.as_bytes())
        .and_then(|()| aside.as_file().sync_all())
        .map_err(io)?;
    aside.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

/// `config` as the job's copy holds it: an inline `password` is never written, so its credential names the
/// variable a resume reads it from instead (`password_env = "TRAWL_PASSWORD_N"`, N its place among the
/// credentials). The copy then loads for every command that reads the job (verify, wacz, ctl: xt13a F4: they
/// failed "no password"), and a resume says which variable to set.
fn password_stand_ins(
    config: &trawl_config::CrawlConfig,
) -> std::borrow::Cow<'_, trawl_config::CrawlConfig> {
    let inline = |c: &trawl_config::settings::CredentialSpec| {
        c.password.is_some() && c.password_env.is_none() && c.password_file.is_none()
    };
    if !config.credentials.iter().any(inline) {
        return std::borrow::Cow::Borrowed(config);
    }
    let mut copy = config.clone();
    for (i, c) in copy.credentials.iter_mut().enumerate() {
        if inline(c) {
            c.password_env = Some(format!("TRAWL_PASSWORD_{i}"));
        }
    }
    std::borrow::Cow::Owned(copy)
}

#[cfg(test)]
mod tests {
    /// A name with a newline in it (from `USER`) makes no line of its own; nor do the words (xt27a F5).
    #[test]
    fn a_change_is_one_line_whatever_its_words() {
        let dir = tempfile::tempdir().unwrap();
        record_change(
            dir.path(),
            "ctl@x\n2026-12-02T00:00:00.000Z token@10.0.0.1",
            "terminate\nsecond",
        );
        let log = std::fs::read_to_string(dir.path().join("logs/config-changes.log")).unwrap();
        assert_eq!(log.lines().count(), 1, "{log}");
        assert!(
            log.contains(" ctl@x?2026-12-02T00:00:00.000Z?token@10.0.0.1 terminate second"),
            "{log}"
        );
    }

    use super::*;

    /// An inline password is never in the job's copy, which names a variable for it instead and so loads
    /// for the job's other commands (xt13a F4: they failed "no password").
    #[test]
    fn the_copy_of_an_inline_password_names_a_variable() {
        let dir = tempfile::tempdir().unwrap();
        let job = Job::create(&dir.path().join("job")).unwrap();
        let text = "[[credentials]]\nkind = \"form\"\ndomain = \"127.0.0.1:9\"\n\
                    login_url = \"http://127.0.0.1:9/login\"\nfields = { user = \"u\" }\npassword = \"secret-pw\"\n";
        let config = trawl_config::CrawlConfig::check_str(text, Path::new("c.toml")).unwrap();
        job.write_config(&config).unwrap();
        let copy = std::fs::read_to_string(job.config_path()).unwrap();
        assert!(!copy.contains("secret-pw"), "{copy}");
        assert!(
            copy.contains("password_env = \"TRAWL_PASSWORD_0\""),
            "{copy}"
        );
        trawl_config::CrawlConfig::load(&job.config_path()).unwrap();
    }

    /// A folder of WARC files copied out of their job, only open ones in it: no job to name (xt11a F9: the
    /// advice named `trawl resume ` with nothing after it).
    #[test]
    fn open_warcs_outside_a_job_name_no_job() {
        let dir = tempfile::tempdir().unwrap();
        let copied = dir.path().join("copied");
        std::fs::create_dir(&copied).unwrap();
        std::fs::write(copied.join("a-00000.warc.gz.open"), b"").unwrap();
        let said = no_warcs_reason(&copied);
        assert!(
            said.contains("`trawl resume` of the job that wrote them"),
            "{said}"
        );
        let warcs = dir.path().join("job/warcs");
        std::fs::create_dir_all(&warcs).unwrap();
        std::fs::write(warcs.join("a-00000.warc.gz.open"), b"").unwrap();
        let said = no_warcs_reason(&warcs);
        assert!(
            said.contains(&format!(
                "`trawl resume {}`",
                dir.path().join("job").display()
            )),
            "{said}"
        );
    }

    /// A reader never finds the file cut short while it is written again (a kill at that instant would leave
    /// it so for the resume to read).
    #[test]
    fn a_file_written_again_is_always_whole() {
        let dir = tempfile::tempdir().unwrap();
        let job = Job::create(dir.path()).unwrap();
        let path = job.state_dir().join("stats.json");
        let text = |n: u8| {
            let mut t = vec![b'a' + n % 26; 4 << 20];
            t.push(b'\n');
            String::from_utf8(t).unwrap()
        };
        job.write_file(&path, &text(0)).unwrap();
        let writer = {
            let (job, path) = (job.clone(), path.clone());
            std::thread::spawn(move || {
                for n in 1..=12 {
                    job.write_file(&path, &text(n)).unwrap();
                }
            })
        };
        let mut reads = 0;
        while !writer.is_finished() {
            let read = std::fs::read_to_string(&path).unwrap();
            assert!(
                read.len() == (4 << 20) + 1 && read.ends_with('\n'),
                "read {} bytes",
                read.len()
            );
            reads += 1;
        }
        writer.join().unwrap();
        assert!(reads > 0);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text(12));
        // Nothing is left beside it.
        let left: Vec<_> = std::fs::read_dir(job.state_dir())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["stats.json"]);
        // Readable by others as before, not owner-only like a temporary file (the umask may narrow it).
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            let plain = job.state_dir().join("plain");
            std::fs::write(&plain, "x").unwrap();
            assert_eq!(mode(&path), mode(&plain));
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
            job.write_file(&path, "again").unwrap();
            assert_eq!(mode(&path), 0o640, "the old file's permissions are kept");
            // A crawl.toml kept elsewhere through a link: the file it points to is written, the link stays.
            let kept = dir.path().join("kept.toml");
            std::fs::write(&kept, "old").unwrap();
            std::os::unix::fs::symlink(&kept, job.config_path()).unwrap();
            job.write_file(&job.config_path(), "new").unwrap();
            assert!(
                std::fs::symlink_metadata(job.config_path())
                    .unwrap()
                    .file_type()
                    .is_symlink()
            );
            assert_eq!(std::fs::read_to_string(&kept).unwrap(), "new");
        }
    }

    /// A crash's leftover files aside are swept when the job opens again; a fresh one (a write in progress
    /// elsewhere) and the job's own files stay.
    #[test]
    fn files_left_aside_by_a_crash_are_swept() {
        let dir = tempfile::tempdir().unwrap();
        let job = Job::create(dir.path()).unwrap();
        let checkpoint = job.checkpoints_dir().join("cp-1");
        std::fs::create_dir_all(&checkpoint).unwrap();
        let old = std::time::SystemTime::now() - ASIDE_STALE - std::time::Duration::from_secs(5);
        let stale = [
            job.root().join(".trawl-a1.tmp"),
            job.state_dir().join(".trawl-b2.tmp"),
            job.reports_dir().join(".trawl-c3.tmp"),
            checkpoint.join(".trawl-d4.tmp"),
        ];
        let kept = [
            job.state_dir().join(".trawl-fresh.tmp"),
            job.state_dir().join("stats.json"),
            job.root().join("trawl-notes.tmp"),
        ];
        for path in stale.iter().chain(&kept) {
            std::fs::write(path, "x").unwrap();
        }
        for path in stale.iter().chain(&kept[1..]) {
            std::fs::File::options()
                .write(true)
                .open(path)
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
        assert_eq!(job.sweep_aside(), stale.len());
        assert!(stale.iter().all(|p| !p.exists()));
        assert!(kept.iter().all(|p| p.exists()));
    }

    /// One process at a time: a second lock on the job fails with what to do, and is free again once the
    /// first is let go. The pid file names the holder only while it is a live trawl: one left by a crawl
    /// killed earlier (a dead process, or the number taken by another) is not named (xt27a F4).
    #[test]
    fn a_job_is_taken_by_one_process_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let job = Job::create(dir.path()).unwrap();
        let held = job.lock().unwrap();
        for pid in [4_194_303, std::process::id()] {
            std::fs::write(job.state_dir().join("crawl.pid"), pid.to_string()).unwrap();
            let again = job.lock().unwrap_err();
            assert!(
                matches!(again, Error::JobInUse { pid: None, .. }),
                "{again}"
            );
            let message = again.to_string();
            assert!(message.contains("try again in a moment"), "{message}");
        }
        drop(held);
        job.lock().unwrap();
        let message = Error::JobInUse {
            dir: dir.path().to_path_buf(),
            pid: Some(4242),
        }
        .to_string();
        assert!(
            message.contains("(pid 4242): stop it first (`trawl ctl"),
            "{message}"
        );
    }

    /// The job's crawl.toml keeps its comments when a crawl starts on it with more seeds and when its
    /// settings change: only the changed values are edited.
    #[test]
    fn crawl_toml_keeps_its_comments() {
        let dir = tempfile::tempdir().unwrap();
        let text = "# my crawl: be gentle\n[seeds]\nurls = [\"http://127.0.0.1:9/\"]  # the site\n\n\
                    [frontier]\n# why so slow: a small server\nmin_delay_ms = 3000  # three seconds\n";
        std::fs::write(dir.path().join("crawl.toml"), text).unwrap();
        let config = trawl_config::CrawlConfig::load(&dir.path().join("crawl.toml")).unwrap();
        let crawl =
            crate::Crawl::new(dir.path(), config, &["http://127.0.0.1:9/b".into()]).unwrap();
        drop(crawl);
        let after = std::fs::read_to_string(dir.path().join("crawl.toml")).unwrap();
        assert_eq!(
            after,
            text.replace("9/\"]", "9/\", \"http://127.0.0.1:9/b\"]"),
            "the launch added its seed and nothing else"
        );
        let change = serde_json::from_str(r#"{"set": {"frontier.min_delay_ms": 4000}}"#).unwrap();
        crate::live::change_offline(dir.path(), &change).unwrap();
        let after = std::fs::read_to_string(dir.path().join("crawl.toml")).unwrap();
        for kept in [
            "# my crawl: be gentle",
            "# the site",
            "# why so slow",
            "min_delay_ms = 4000  # three seconds",
        ] {
            assert!(after.contains(kept), "{kept:?} lost:\n{after}");
        }
    }

    /// A folder without a crawl.toml is no job: opening it says so and makes nothing.
    #[test]
    fn a_folder_that_is_no_job_is_not_made_one() {
        let dir = tempfile::tempdir().unwrap();
        let typo = dir.path().join("jobs/typo");
        let e = Job::open(&typo).unwrap_err();
        assert!(e.to_string().contains("is not a trawl job"), "{e}");
        assert!(!typo.exists());
        let job = Job::create(&typo).unwrap();
        std::fs::write(job.config_path(), "").unwrap();
        assert_eq!(Job::open(&typo).unwrap().root(), typo);
    }
}
