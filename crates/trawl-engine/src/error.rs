//! The engine's error type.

use std::path::{Path, PathBuf};
use trawl_frontier::no_room;

/// What can stop a crawl or its setup.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or directory could not be read or written.
    #[error("{}", io_sentence(path, source))]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The config file is not valid.
    #[error("{}: {message}", path.display())]
    Config {
        /// The config file.
        path: PathBuf,
        /// What is wrong and where.
        message: String,
    },
    /// A seed is not a crawlable URL.
    #[error("seed {0}")]
    Seed(#[from] trawl_url::Error),
    /// The crawl was given no seeds.
    #[error("no seeds: give seed URLs on the command line or in the config's `seeds` list")]
    NoSeeds,
    /// `trawl crawl` was pointed at a job that already holds a crawl.
    #[error("{} already holds a crawl: continue it with `trawl resume {}`, or give a new --job directory", .0.display(), .0.display())]
    JobExists(PathBuf),
    /// Another process crawls into the job (`trawl resume` or `crawl` on a job still running).
    #[error("{}", in_use(dir, *pid))]
    JobInUse {
        /// The job directory.
        dir: PathBuf,
        /// The process crawling into it, if it says.
        pid: Option<u32>,
    },
    /// A command for a running crawl could not be written for it: the job's disk is full.
    #[error(
        "the disk of {} is full, so the command cannot reach the running crawl (pid {pid}), which goes on: free some \
         space and send it again, or stop the crawl with Ctrl-C in its terminal or `kill -TERM {pid}` (neither needs \
         the disk; `trawl resume` continues it once there is room)",
        dir.display()
    )]
    ControlDiskFull {
        /// The job directory.
        dir: PathBuf,
        /// The running crawl's process.
        pid: u32,
    },
    /// A command that works on a job was pointed at a folder that is none.
    #[error("{} is not a trawl job (it has no crawl.toml): check the path, or start a crawl there with `trawl crawl --job {} SEED`", .0.display(), .0.display())]
    NotAJob(PathBuf),
    /// `trawl resume` was pointed at a directory with no crawl state.
    #[error("{} holds no crawl to resume (no state/frontier); start one with `trawl crawl --job`", .0.display())]
    NothingToResume(PathBuf),
    /// A command that continues a job locally (`trawl resume`, `trawl ctl` on a stopped job) was pointed at a
    /// worker's job of a shared crawl, whose frontier is in Redis.
    #[error(
        "{} is a worker's job of the shared crawl {crawl:?}, whose queues are in Redis, not in the job: continue \
         it with `{command}` (it repairs the WARCs a kill left open first); the crawl as a whole is steered with \
         `trawl ctl --frontier {url} {crawl} …`",
        dir.display()
    )]
    SharedJob {
        /// The job directory.
        dir: PathBuf,
        /// The crawl's name in Redis.
        crawl: String,
        /// Its server.
        url: String,
        /// The command that continues the worker.
        command: String,
    },
    /// The shared frontier (`--frontier redis://…`) cannot be used.
    #[error("shared frontier {0}")]
    Remote(String),
    /// The shared frontier's Redis is full (`maxmemory`): a command's change was not recorded.
    #[error("shared frontier {0}: redis is full (maxmemory reached): nothing was changed")]
    RemoteFull(String),
    /// A worker's job of one shared crawl given to join another (another server or database).
    #[error(
        "{}: a worker's job of the crawl {crawl:?} at {was}, not at {now}: its WARCs and crawl.log would mix two \
         crawls; give a new --job directory named as the crawl (if that crawl's Redis moved to {now}, remove {} \
         and join again)",
        job.display(),
        marker.display()
    )]
    OtherCrawlsJob {
        /// The job directory.
        job: PathBuf,
        /// The crawl it was a worker of.
        crawl: String,
        /// Where that crawl was (no password).
        was: String,
        /// Where it was asked to join (no password).
        now: String,
        /// The job's marker file.
        marker: PathBuf,
    },
    /// A worker's job of a crawl Redis no longer holds, given to start a crawl of that name anew.
    #[error(
        "{}: a worker's job of the crawl {crawl:?} at {url}, which Redis no longer holds: a crawl started in it \
         would mix with what it archived (its seen URLs are gone with the crawl); give a new --job directory",
        job.display()
    )]
    LostCrawlsJob {
        /// The job directory.
        job: PathBuf,
        /// The crawl's name.
        crawl: String,
        /// Where it was (no password).
        url: String,
    },
    /// A worker's job of a crawl Redis lost, given to join a later crawl of the same name.
    #[error(
        "{}: a worker's job of an earlier crawl {crawl:?} at {url}: the crawl of that name there now is a later \
         one, made after that one was lost, with its own settings and seeds; joining it would put this job's \
         WARCs in its manifest and mix two crawls in one crawl.log: give a new --job directory",
        job.display()
    )]
    EarlierCrawlsJob {
        /// The job directory.
        job: PathBuf,
        /// The crawl's name.
        crawl: String,
        /// Where it is (no password).
        url: String,
    },
    /// `trawl worker` found no crawl to join.
    #[error("{url} holds no crawl named {job:?}{}: start one with `trawl crawl --frontier {url} --job DIR SEED…` (the job directory's name is the crawl's name), or give a --job directory named as the crawl", if crawls.is_empty() { String::new() } else { format!(" (it holds {})", crawls.join(", ")) })]
    NoSharedCrawl {
        /// The server.
        url: String,
        /// The name looked for.
        job: String,
        /// The crawls it holds.
        crawls: Vec<String>,
    },
    /// A password written in the config of a shared crawl, whose settings (in Redis) never hold one.
    #[error(
        "{key}: a password written in the config cannot go to a shared crawl's other workers (its settings, \
         kept in Redis, never hold one): name an environment variable instead (`password_env` for a \
         credential, TRAWL_PROXY_PASSWORD for a proxy user) or a `password_file`, set on every worker; nothing \
         was made in Redis"
    )]
    SharedSecret {
        /// The setting holding it, e.g. `credentials[0].password`.
        key: String,
    },
    /// The frontier's store failed.
    #[error(transparent)]
    Frontier(#[from] trawl_frontier::Error),
    /// `trawl wacz` was pointed at a job with no closed WARC.
    #[error("{} has no WARC file to package: {why}", dir.display())]
    NothingToPackage {
        /// The job directory.
        dir: PathBuf,
        /// Why, and what to do ([`crate::job::no_warcs_reason`]).
        why: String,
    },
    /// Two WARCs of a job would go into its package under one name (`X.warc.zst` is packed as `X.warc.gz`).
    #[error(
        "{} and {} would both be packed as archive/{name}: move one of them out of the job's warcs folder",
        first.display(),
        second.display()
    )]
    PackageNameClash {
        /// The entry name both would take.
        name: String,
        /// The first WARC.
        first: PathBuf,
        /// The second.
        second: PathBuf,
    },
    /// The deduplication digest table could not be opened.
    #[error("{}: the deduplication table: {message}", path.display())]
    Dedup {
        /// Its folder.
        path: PathBuf,
        /// The store's message.
        message: String,
    },
    /// A record of a `dedup_from` WARC or ARC that gives no capture: it lacks its target or a WARC-Date of a
    /// real time.
    #[error(
        "{}: record at offset {offset}: a {warc_type} record without {missing} (`trawl warc verify` names its \
         problems)",
        path.display()
    )]
    UnindexedRecord {
        /// The archive.
        path: PathBuf,
        /// Where the record starts.
        offset: u64,
        /// Its WARC-Type.
        warc_type: String,
        /// What it lacks.
        missing: String,
    },
    /// A `dedup_from` index that is neither CDXJ nor classic CDX.
    #[error(
        "{}, line {line}: not a CDXJ index line (SURT, timestamp, JSON) nor a CDX file's (after a \
         \" CDX N b a m s k r M S V g\" header); give a job directory, a folder of WARC/ARC files, a .cdxj file \
         such as `trawl warc index` writes or a .cdx file such as Heritrix writes", path.display()
    )]
    BadIndex {
        /// The index.
        path: PathBuf,
        /// Its 1-based line.
        line: usize,
    },
    /// An operator's queue name that stands for several queues: the sentence naming them and what to give.
    #[error("{0}")]
    UnclearQueue(String),
    /// A WARC or ARC file read for deduplication that stops being readable part way: what the reader said.
    #[error(transparent)]
    DamagedArchive(trawl_warc::Error),
    /// A `dedup_from` source (or the job's own archive) that cannot be read.
    #[error(
        "reading {} for deduplication ([warc] dedup_from, or the job's own WARCs): {problem}; mend the file, or take it \
         out of [warc] dedup_from (or out of the folder named there: a crawl reads every index and archive in it)",
        path.display()
    )]
    DedupSource {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        problem: Box<Error>,
    },
    /// A `dedup_from` source (or one an earlier job it names was deduplicated against) that does not exist.
    #[error(
        "{} does not exist; it is named by [warc] dedup_from (or by the dedup_from of an earlier job's \
         crawl.toml): give an earlier job's directory, a folder of WARC/ARC files or an index, or take it out",
        path.display()
    )]
    DedupMissing {
        /// The path.
        path: PathBuf,
    },
    /// An index file that is not text.
    #[error(
        "{}: not a text index (a control byte, or a line over 1 MiB, at byte {offset}): give a CDXJ or classic \
         CDX file, gzipped or not",
        path.display()
    )]
    NotAnIndex {
        /// The file.
        path: PathBuf,
        /// Where its text stops being text (after gunzipping).
        offset: u64,
    },
    /// A `dedup_from` WACZ (or another zip file) whose index cannot be read.
    #[error(
        "{}: a WACZ, but {why}: give the crawl's job directory or WARC files, or the package's index \
         (`unzip -p X.wacz indexes/index.cdx > X.cdxj`)",
        path.display()
    )]
    BadWacz {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// A line of a classic CDX `dedup_from` index that cannot be read.
    #[error("{}, line {line}: {source}", path.display())]
    BadCdx {
        /// The index.
        path: PathBuf,
        /// Its 1-based line.
        line: usize,
        /// What is wrong.
        source: trawl_warc::CdxError,
    },
    /// A restore of a checkpoint was cut short (a crash or kill): the job's state is that checkpoint's, not
    /// the store there now, which an operator's command would change in vain (xt25a F2).
    #[error(
        "{}: a restore of checkpoint {checkpoint} was cut short (a crash or kill), so the job's state is that \
         checkpoint's, not the store there now: `trawl resume {}` finishes the restore first; nothing was changed",
        dir.display(),
        dir.display()
    )]
    RestoreCutShort {
        /// The job directory.
        dir: PathBuf,
        /// The checkpoint being restored.
        checkpoint: String,
    },
    /// The checkpoint a restore cut short was restoring is gone (deleted since), and no other was named.
    #[error(
        "{}: a restore of checkpoint {name} was cut short (a crash or kill), and that checkpoint is gone: name \
         the one to restore, `trawl resume {} --checkpoint NAME` (it has: {available})",
        job.display(),
        job.display()
    )]
    RestoredCheckpointGone {
        /// The job directory.
        job: PathBuf,
        /// The checkpoint the restore was putting in place.
        name: String,
        /// The checkpoints it has, comma-separated (or "none").
        available: String,
    },
    /// `trawl resume --checkpoint NAME` named a checkpoint the job does not have.
    #[error("{} has no checkpoint {name:?}; it has: {available}", job.display())]
    NoSuchCheckpoint {
        /// The job directory.
        job: PathBuf,
        /// The name asked for.
        name: String,
        /// The checkpoints it has, comma-separated (or "none").
        available: String,
    },
    /// `trawl resume --checkpoint NAME` named a checkpoint folder whose writing was cut short (a kill while it
    /// was written): it has no `checkpoint.json`.
    #[error(
        "{}: checkpoint {name:?} is incomplete (its writing was cut short: no checkpoint.json), so it cannot be \
         restored: name another (`trawl resume {} --checkpoint latest` takes the newest whole one), and remove \
         its folder",
        job.display(),
        job.display()
    )]
    CheckpointCut {
        /// The job directory.
        job: PathBuf,
        /// The name asked for.
        name: String,
    },
    /// Browser capture could not start.
    #[error(transparent)]
    Browser(#[from] trawl_browser::BrowserError),
    /// crawl.log was removed while the crawl wrote it (xt39b F4): the lines since are lost with it, and the
    /// crawl stops rather than write more into a file no name leads to.
    #[error(
        "{}: removed while the crawl wrote it: the lines written into it are lost. {resume} to go on: \
         its lines start again in a new crawl.log with the URIs finished from then on (the WARCs, their \
         indexes and the report still hold the earlier ones)",
        path.display(),
        resume = resume_the_job(path)
    )]
    LogRemoved {
        /// The log.
        path: PathBuf,
    },
    /// A WARC could not be written or repaired.
    #[error("writing WARC: {}", warc_sentence(.0))]
    Warc(#[from] trawl_warc::Error),
    /// A WARC a crash left open could not be repaired (xt27b F7: said as a write).
    #[error("repairing a WARC a crash left open: {}", warc_sentence(.0))]
    Repair(#[source] trawl_warc::Error),
    /// A WACZ package could not be made: its WARCs read, or the package written.
    #[error("packaging {}: {}", out.display(), package_sentence(out, source))]
    Package {
        /// The package being written.
        out: PathBuf,
        /// What failed.
        source: trawl_warc::Error,
    },
    /// The journal thread (crawl.log and frontier commits) stopped after a failure, reported where it
    /// happened.
    #[error("the journal (crawl.log and frontier commits) has stopped after a failure")]
    JournalStopped,
    /// A running crawl's reply to an operator command could not be read.
    #[error("{}: unreadable reply from the crawl: {source}", path.display())]
    BadReply {
        /// The reply file.
        path: PathBuf,
        /// Why it could not be read.
        source: serde_json::Error,
    },
}

impl Error {
    /// The error of a local command (`trawl resume`, an offline `trawl ctl`) on `job_dir`, a worker's job of
    /// the crawl `marker` names: it names what continues the worker instead.
    pub(crate) fn worker_job(marker: &crate::shared_job::SharedJob, job_dir: &Path) -> Error {
        Error::SharedJob {
            dir: job_dir.to_path_buf(),
            crawl: marker.crawl.clone(),
            url: marker.url.clone(),
            command: marker.continue_command(job_dir),
        }
    }

    /// When this failure is a full disk (or quota), also deep inside a WARC failure: the file being written,
    /// if known, and the system's error. Each surface (command line, server) words its own advice.
    pub fn disk_full(&self) -> Option<(Option<&Path>, &std::io::Error)> {
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(self);
        while let Some(c) = cause {
            if let Some(io) = c.downcast_ref::<std::io::Error>()
                && matches!(
                    io.kind(),
                    std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
                )
            {
                let path = match self {
                    Error::Io { path, .. }
                    | Error::Warc(
                        trawl_warc::Error::Io { path, .. } | trawl_warc::Error::Write { path, .. },
                    )
                    | Error::Repair(
                        trawl_warc::Error::Io { path, .. } | trawl_warc::Error::Write { path, .. },
                    ) => Some(path.as_path()),
                    _ => None,
                };
                return Some((path, io));
            }
            cause = c.source();
        }
        None
    }
}

impl From<trawl_config::LoadError> for Error {
    fn from(e: trawl_config::LoadError) -> Self {
        match e {
            trawl_config::LoadError::Read { path, source } => Error::Io { path, source },
            trawl_config::LoadError::Invalid { path, message } => Error::Config { path, message },
        }
    }
}

/// An I/O failure at `path` as one sentence saying what to do, for the failures operators meet (a `--job`
/// that is a file, a folder they may not write, a full disk); others as the system says them.
pub(crate) fn io_sentence(path: &Path, e: &std::io::Error) -> String {
    use std::io::ErrorKind;
    let p = path.display();
    // The system's words follow in brackets, so the message holds the cause once (the CLI skips a cause
    // already said).
    // A file where a folder is wanted: made (AlreadyExists) or written into (NotADirectory).
    let misplaced = matches!(
        e.kind(),
        ErrorKind::AlreadyExists | ErrorKind::NotADirectory
    );
    if let Some(file) = path.ancestors().find(|a| a.is_file()).filter(|_| misplaced) {
        let inside = if file == path {
            String::new()
        } else {
            format!("{p}: ")
        };
        return format!(
            "{inside}{} is a file, not a folder: give --job a folder (it is made if missing) [{e}]",
            file.display()
        );
    }
    // A job that exists (its crawl.toml written) is continued by `trawl resume`; one being made is not a job
    // yet: the same `trawl crawl` is run again.
    let existing = in_a_job(path);
    match e.kind() {
        ErrorKind::StorageFull | ErrorKind::QuotaExceeded if existing => format!(
            "{p}: {} and {}, or move the job's folder to another disk and resume it there [{e}]",
            no_room(path),
            resume_the_job(path)
        ),
        ErrorKind::StorageFull | ErrorKind::QuotaExceeded => format!(
            "{p}: {} and run the same `trawl crawl` again, or give --job a folder on another disk [{e}]",
            no_room(path)
        ),
        ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem if existing => format!(
            "{p}: not allowed to write there: trawl writes to a job's folder to crawl into it and to open it \
             (its lock, its store, also to read its queues): run trawl as a user who may write there, or copy \
             the job's folder somewhere you can write [{e}]"
        ),
        ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem => {
            format!("{p}: not allowed to write there: give --job a folder you can write to [{e}]")
        }
        ErrorKind::FileTooLarge if existing => {
            format!("{p}: {FILE_SIZE_LIMIT}, and {} [{e}]", resume_the_job(path))
        }
        ErrorKind::FileTooLarge => {
            format!("{p}: {FILE_SIZE_LIMIT}, and run the same `trawl crawl` again [{e}]")
        }
        _ => format!("{p}: {e}"),
    }
}

/// Whether `path` is in (or is) the folder of a job that exists: its crawl.toml written, and its `state` or
/// `warcs` folder made (a config file named crawl.toml higher up is no job).
fn in_a_job(path: &Path) -> bool {
    job_of(path).is_some()
}

/// The job folder `path` is in: the nearest folder above it with a crawl.toml and a state or warcs folder.
fn job_of(path: &Path) -> Option<&Path> {
    path.ancestors()
        .filter(|a| !a.as_os_str().is_empty())
        .find(|a| {
            a.join("crawl.toml").is_file() && (a.join("state").is_dir() || a.join("warcs").is_dir())
        })
}

/// What a write past the file-size limit (EFBIG) means and what to do; trawl takes SIGXFSZ so such a write
/// fails instead of killing the process.
pub(crate) const FILE_SIZE_LIMIT: &str = "the file reached the file-size limit (RLIMIT_FSIZE, `ulimit -f`): \
     raise it (`ulimit -f unlimited`; the stores need 64 MiB files, the WARCs warc.max_file_bytes)";

/// What continues the job `path` is in, as its messages say it: `trawl resume` the job, or for a worker's job
/// of a shared crawl its own command, which a resume refuses (xt44a F11: a worker's full-disk messages named
/// `trawl resume`).
pub(crate) fn resume_the_job(path: &Path) -> String {
    match job_of(path).and_then(|job| Some((job, crate::shared_job::SharedJob::of(job)?))) {
        Some((job, marker)) => format!(
            "continue this worker with `{}`",
            marker.continue_command(job)
        ),
        None => "`trawl resume` the job".to_string(),
    }
}

/// A packaging failure; a full disk or an unwritable folder said with the fix for a package (room where it
/// is written, or another place), not a crawl's.
fn package_sentence(out: &Path, e: &trawl_warc::Error) -> String {
    use std::io::ErrorKind;
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cause {
        if let Some(io) = c.downcast_ref::<std::io::Error>() {
            // The file is named once: the message already begins with the package's own path.
            let at = match warc_path(e) {
                at if std::path::Path::new(&at) == out => String::new(),
                at => format!("{at}: "),
            };
            let elsewhere = "or write the package elsewhere (`trawl wacz JOB -o FILE`)";
            match io.kind() {
                ErrorKind::StorageFull | ErrorKind::QuotaExceeded => {
                    return format!("{at}{} there, {elsewhere} [{io}]", no_room(out));
                }
                ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem if matches!(e, trawl_warc::Error::Io { path, .. } if path == out) =>
                {
                    return format!("{at}not allowed to write there: {elsewhere} [{io}]");
                }
                ErrorKind::FileTooLarge => {
                    return format!(
                        "{at}the package reached the file-size limit (RLIMIT_FSIZE, `ulimit -f`): raise it, {elsewhere} [{io}]"
                    );
                }
                _ => {}
            }
        }
        cause = c.source();
    }
    e.to_string()
}

/// The file a WARC failure is about, or "the archive".
fn warc_path(e: &trawl_warc::Error) -> String {
    match e {
        trawl_warc::Error::Io { path, .. } | trawl_warc::Error::Write { path, .. } => {
            path.display().to_string()
        }
        _ => "the archive".to_string(),
    }
}

/// A WARC failure; a full disk or the file-size limit said as [`io_sentence`] says them.
fn warc_sentence(e: &trawl_warc::Error) -> String {
    if let trawl_warc::Error::Removed { path } = e {
        return format!(
            "{} was removed (it or the folder holding it) while the crawl wrote it: the records in it are lost. \
             {} to go on; the URIs archived in that file are not fetched again (their crawl.log \
             lines stand), so crawl them in a new job if they are wanted. Move only finished WARCs, never \
             `.open` ones, out of a running crawl",
            path.display(),
            resume_the_job(path)
        );
    }
    if let trawl_warc::Error::Moved { path } = e {
        return format!(
            "{} was moved (it or the folder holding it) while the crawl wrote it: its records are whole where \
             it went, but it could not be given its finished name. Take `.open` off its name there and run \
             `trawl warc index` on it for its index; {} to go on. Move only finished WARCs, \
             never `.open` ones, out of a running crawl",
            path.display(),
            resume_the_job(path)
        );
    }
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cause {
        if let Some(io) = c.downcast_ref::<std::io::Error>()
            && matches!(
                io.kind(),
                std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
            )
        {
            let path = warc_path(e);
            return format!(
                "{path}: {} and {} (the WARC is repaired), or move the job to another disk \
                 [{io}]",
                no_room(Path::new(&path)),
                resume_the_job(Path::new(&path))
            );
        }
        if let Some(io) = c.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::FileTooLarge
        {
            return format!(
                "{}: {FILE_SIZE_LIMIT}, and {} (the WARC is repaired) [{io}]",
                warc_path(e),
                resume_the_job(Path::new(&warc_path(e)))
            );
        }
        cause = c.source();
    }
    e.to_string()
}

/// The words of [`Error::JobInUse`]: a crawl that says its pid is stopped with `trawl ctl`; a holder that does
/// not (a `trawl ctl` applying a command to the stopped job, a crawl starting or ending) lets go in a moment
/// (xt26a N7).
fn in_use(dir: &std::path::Path, pid: Option<u32>) -> String {
    match pid {
        Some(pid) => format!(
            "{} is in use by another trawl process (pid {pid}): stop it first (`trawl ctl {} stop`) or wait for it \
             to end",
            dir.display(),
            dir.display()
        ),
        None => format!(
            "{} is in use by another trawl process (a `trawl ctl` applying a command, or a crawl starting or \
             ending): try again in a moment",
            dir.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Error as IoError, ErrorKind};

    #[test]
    fn io_advice_fits_a_job_being_made_and_one_that_exists() {
        let dir = tempfile::tempdir().unwrap();
        let job = dir.path().join("job");
        std::fs::create_dir_all(job.join("state")).unwrap();
        let full = IoError::from(ErrorKind::StorageFull);
        let readonly = IoError::from(ErrorKind::ReadOnlyFilesystem);
        let fsize = IoError::from(ErrorKind::FileTooLarge);
        // No crawl.toml yet: a new job, whose crawl is started again.
        let new = io_sentence(&job.join("crawl.toml"), &full);
        assert!(new.contains("run the same `trawl crawl` again"), "{new}");
        assert!(!new.contains("resume"), "{new}");
        assert!(io_sentence(&job, &readonly).contains("give --job a folder you can write to"));
        std::fs::write(job.join("crawl.toml"), "").unwrap();
        let lock = job.join("trawl.lock");
        for said in [io_sentence(&lock, &full), io_sentence(&lock, &readonly)] {
            assert!(
                !said.contains("--job"),
                "resume and ctl have no --job: {said}"
            );
        }
        assert!(io_sentence(&lock, &full).contains("`trawl resume` the job"));
        assert!(io_sentence(&lock, &readonly).contains("run trawl as a user who may write there"));
        let limit = io_sentence(&job.join("warcs/x.warc.gz"), &fsize);
        assert!(
            limit.contains("ulimit -f") && limit.contains("x.warc.gz"),
            "{limit}"
        );
        // A worker's job of a shared crawl is continued by its `trawl worker` command, which its messages
        // name: `trawl resume` refuses such a job (xt44a F11).
        std::fs::write(
            job.join("state").join(crate::shared_job::SHARED_FILE),
            crate::shared_job::SharedJob::text("redis://127.0.0.1:6379/0", "job", "b1"),
        )
        .unwrap();
        let want = format!(
            "continue this worker with `trawl worker redis://127.0.0.1:6379/0 --job {}`",
            job.display()
        );
        let warc = job.join("warcs/x.warc.gz.open");
        let removed = trawl_warc::Error::Removed { path: warc.clone() };
        for said in [
            io_sentence(&lock, &full),
            io_sentence(&warc, &fsize),
            warc_sentence(&removed),
        ] {
            assert!(said.contains(&want), "{said}");
            assert!(!said.contains("trawl resume"), "{said}");
        }
    }
}
