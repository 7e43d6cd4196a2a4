//! The frontier's error type.

use std::path::{Path, PathBuf};

/// A failure of the frontier's store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The store could not be opened, read or written.
    #[error("frontier store {}: {message}", path.display())]
    Store {
        /// The store's folder.
        path: PathBuf,
        /// What failed.
        message: String,
    },
    /// The store holds a record this version cannot read.
    #[error("frontier store {}: unreadable {what} record", path.display())]
    Corrupt {
        /// The store's folder.
        path: PathBuf,
        /// Which kind of record.
        what: &'static str,
    },
}

/// A failure of an embedded store (the frontier's, the deduplication table's) in `dir`, in words an operator
/// acts on: a full disk, no inodes left, the file-size limit, no thread or memory to be had, too many open
/// files — each with what to do — rather than the store's Debug form. Other failures as the store says them.
pub fn store_failure(dir: &Path, e: &(dyn std::error::Error + 'static)) -> String {
    use std::io::ErrorKind;
    let mut cause = Some(e);
    let io = std::iter::from_fn(|| {
        let c = cause?;
        cause = c.source();
        Some(c)
    })
    .find_map(|c| c.downcast_ref::<std::io::Error>());
    let Some(io) = io else {
        return e.to_string();
    };
    const CONTINUE: &str = "then run the crawl again (`trawl resume` the job, nothing committed is lost; \
                            for a job that never got going, the same `trawl crawl`)";
    let os = io.raw_os_error();
    match io.kind() {
        ErrorKind::StorageFull | ErrorKind::QuotaExceeded if no_inodes_left(dir) => format!(
            "the disk has no inodes left (files), though it may have bytes free (`df -i`): remove files there, \
             {CONTINUE}, or move the job to another disk [{io}]"
        ),
        ErrorKind::StorageFull | ErrorKind::QuotaExceeded => format!(
            "the disk is full: free some space and {CONTINUE}, or move the job to another disk [{io}]"
        ),
        ErrorKind::FileTooLarge => format!(
            "a file reached the file-size limit (RLIMIT_FSIZE, `ulimit -f`; the store sizes its journal \
             files to 64 MiB at once): raise it (`ulimit -f unlimited`), {CONTINUE} [{io}]"
        ),
        ErrorKind::WouldBlock | ErrorKind::OutOfMemory => format!(
            "could not start a thread or get memory: a limit on threads (`ulimit -u`, a cgroup's pids.max) \
             or on memory is too low; a limit on address space (`ulimit -v`, RLIMIT_AS) counts memory \
             reserved, not used, and trawl reserves over a gigabyte for tens of megabytes in use: raise or \
             lift it, {CONTINUE} [{io}]"
        ),
        // EMFILE, ENFILE.
        _ if matches!(os, Some(23 | 24)) => format!(
            "too many open files: raise the open-files limit (`ulimit -n`, `LimitNOFILE=`), {CONTINUE} [{io}]"
        ),
        _ => e.to_string(),
    }
}

/// What a full disk (ENOSPC, EDQUOT) at `path` is, and what frees it: the disk full, or out of inodes with
/// bytes to spare (`df -h` would show room, so "full" alone misleads: xt39b F5). Followed by " and ..." in
/// a sentence.
pub fn no_room(path: &Path) -> &'static str {
    if no_inodes_left(path) {
        "the disk has no inodes left (files), though it may have bytes free (`df -i`): remove files there"
    } else {
        "the disk is full: free some space"
    }
}

/// Whether the file system holding `dir` (or its nearest existing ancestor) has no inodes left for users.
fn no_inodes_left(dir: &Path) -> bool {
    dir.ancestors()
        .find_map(|d| rustix::fs::statvfs(d).ok())
        .is_some_and(|s| s.f_files > 0 && s.f_favail == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_failure_of_the_machine_says_what_it_is_and_what_to_do() {
        let dir = Path::new("/");
        let io = |kind: std::io::ErrorKind| std::io::Error::new(kind, "os says");
        let full = store_failure(dir, &io(std::io::ErrorKind::StorageFull));
        assert!(
            full.starts_with("the disk is full") && full.contains("trawl resume"),
            "{full}"
        );
        let fsize = store_failure(dir, &io(std::io::ErrorKind::FileTooLarge));
        assert!(fsize.contains("ulimit -f"), "{fsize}");
        let threads = store_failure(dir, &io(std::io::ErrorKind::WouldBlock));
        assert!(
            threads.contains("could not start a thread") && threads.contains("RLIMIT_AS"),
            "{threads}"
        );
        let fds = store_failure(dir, &std::io::Error::from_raw_os_error(24));
        assert!(fds.starts_with("too many open files"), "{fds}");
        // Through the store's own error type, as fjall returns it.
        let wrapped = fjall::Error::Io(io(std::io::ErrorKind::StorageFull));
        assert!(store_failure(dir, &wrapped).starts_with("the disk is full"));
        assert!(!store_failure(dir, &wrapped).contains("FjallError"));
        assert_eq!(
            store_failure(dir, &fjall::Error::Locked),
            fjall::Error::Locked.to_string()
        );
    }
}
