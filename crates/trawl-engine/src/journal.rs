//! The journal: crawl.log lines, then the frontier's commit, in that order, on a thread of its own.
//!
//! Workers hand a URI's line over before its outcome is applied to the frontier, and never write a file or
//! commit the frontier themselves. Each time the thread wakes it takes every line handed over so far, writes
//! and flushes them, and hands the frontier's changes to its committer thread, holding the frontier
//! meanwhile: no change is committed whose URI's line was not written first. It then waits for that batch to
//! be written with the frontier let go, so workers go on while fjall writes (seconds, when fjall holds writes
//! back until a memtable is flushed and fsynced on a slow disk), and takes the next lines only after. So a
//! URI recorded as finished on disk always has its crawl.log line, and after a kill the crawl fetches again
//! only what had not been committed: the URIs in flight, and those that ended in the last millisecond or so
//! (lines gather that long while the crawl is busy). The ticker's periodic commit and checkpoints go through
//! the journal for the same reason; a checkpoint's cycle commits under the frontier, for its view.

use std::{
    sync::{
        Arc, Mutex, PoisonError,
        atomic::{AtomicBool, Ordering},
        mpsc,
    },
    thread::JoinHandle,
};

use trawl_frontier::{Frontier, StoreCopy};

use crate::{Error, crawl_log::CrawlLog};
use trawl_config::CrawlUri;

/// How long the thread lets lines gather after a busy cycle.
const GATHER: std::time::Duration = std::time::Duration::from_millis(1);

/// What the thread is given.
enum Entry {
    Line(String),
    /// Write out everything before this and commit (for changes that have no line: a retry, a hold).
    Commit,
    /// Write out everything before this, then say so (a shared frontier's worker completes a URI in Redis
    /// only once its line is written). Dropped unanswered when the writing fails.
    Written(tokio::sync::oneshot::Sender<()>),
    /// Write out everything before this, commit, wait for the store to hold it, then say so (an operator's
    /// change is answered only once a kill cannot undo it: xt27a F1). Dropped unanswered when that fails.
    Committed(tokio::sync::oneshot::Sender<()>),
    /// Write out everything before this, then hand back a consistent view of the frontier's store.
    Checkpoint(mpsc::SyncSender<Result<StoreCopy, Error>>),
    /// Write out everything before this, commit, and stop.
    Close,
}

/// The sending side, shared by the workers.
#[derive(Debug)]
pub(crate) struct Journal {
    entries: mpsc::Sender<Entry>,
    thread: Mutex<Option<JoinHandle<()>>>,
    /// The thread's first failure (a full disk), reported to the next sender.
    failed: Arc<Mutex<Option<Error>>>,
    /// Set for good when the thread failed: nothing of the frontier may be committed after (the lines of
    /// URIs ended since the last commit may not all be written).
    broken: Arc<AtomicBool>,
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Entry::Line(_) => "Line",
            Entry::Commit => "Commit",
            Entry::Written(_) => "Written",
            Entry::Committed(_) => "Committed",
            Entry::Checkpoint(_) => "Checkpoint",
            Entry::Close => "Close",
        })
    }
}

impl Journal {
    /// Starts the thread writing `log` and committing `frontier`.
    pub(crate) fn start(
        mut log: CrawlLog,
        frontier: Arc<Mutex<Frontier<CrawlUri>>>,
    ) -> Result<Journal, Error> {
        let (tx, rx) = mpsc::channel::<Entry>();
        let failed: Arc<Mutex<Option<Error>>> = Arc::default();
        let report = failed.clone();
        let broken = Arc::new(AtomicBool::new(false));
        let mark = broken.clone();
        let thread = std::thread::Builder::new()
            .name("journal".into())
            .spawn(move || {
                let waiter = frontier
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .commit_waiter();
                let wait_idle = || {
                    if let Some(waiter) = &waiter {
                        waiter.wait_idle();
                    }
                };
                let mut open = true;
                while open && let Ok(first) = rx.recv() {
                    let mut frontier = frontier.lock().unwrap_or_else(PoisonError::into_inner);
                    let mut views = Vec::new();
                    let mut written = Vec::new();
                    let mut committed = Vec::new();
                    let mut result = Ok(());
                    let mut next = Some(first);
                    while let Some(entry) = next {
                        match entry {
                            Entry::Line(line) => result = result.and_then(|()| log.append(&line)),
                            Entry::Commit => {}
                            Entry::Written(reply) => written.push(reply),
                            Entry::Committed(reply) => committed.push(reply),
                            Entry::Checkpoint(reply) => views.push(reply),
                            Entry::Close => open = false,
                        }
                        next = if open { rx.try_recv().ok() } else { None };
                    }
                    // A checkpoint's view and the last commit need the batch written; otherwise it is
                    // written while the frontier is free.
                    let wait_here = !views.is_empty() || !committed.is_empty() || !open;
                    let result = result.and_then(|()| log.flush()).and_then(|()| {
                        if wait_here {
                            frontier.flush()
                        } else {
                            frontier.flush_behind()
                        }
                        .map_err(Error::from)
                    });
                    if result.is_ok() {
                        for reply in written.into_iter().chain(committed) {
                            let _ = reply.send(());
                        }
                    }
                    for reply in views {
                        let view = match &result {
                            Ok(()) => frontier.checkpoint().map_err(Error::from),
                            Err(_) => Err(Error::JournalStopped),
                        };
                        let _ = reply.send(view);
                    }
                    drop(frontier);
                    wait_idle();
                    if let Err(e) = result {
                        mark.store(true, Ordering::SeqCst);
                        *report.lock().unwrap_or_else(PoisonError::into_inner) = Some(e);
                        return;
                    }
                    // While lines keep coming, let them gather for a moment: one wake-up, write and commit
                    // for several URIs instead of one each (a wake-up per line cost 6% of a fast crawl's
                    // CPU). An idle journal waits in `recv` and takes the next line at once.
                    std::thread::sleep(GATHER);
                }
            })
            .map_err(|source| Error::Io {
                path: "journal thread".into(),
                source,
            })?;
        Ok(Journal {
            entries: tx,
            thread: Mutex::new(Some(thread)),
            failed,
            broken,
        })
    }

    /// Hands one crawl.log line over; fails if the thread failed (a full disk).
    pub(crate) fn line(&self, line: String) -> Result<(), Error> {
        if let Some(e) = self
            .failed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            return Err(e);
        }
        // The thread stops early only after a failure, reported above.
        let _ = self.entries.send(Entry::Line(line));
        Ok(())
    }

    /// Waits until every line handed over so far is written (flushed to the OS); `false` if the thread
    /// failed first (a full disk), after which no line is written.
    pub(crate) async fn written(&self) -> bool {
        let (tx, rx) = tokio::sync::oneshot::channel();
        if self.entries.send(Entry::Written(tx)).is_err() {
            return false;
        }
        rx.await.is_ok()
    }

    /// Waits until the frontier's changes so far are committed and in its store, where a kill cannot undo
    /// them; `false` if the thread failed first. A journal closed since committed them as it closed.
    pub(crate) async fn committed(&self) -> bool {
        let (tx, rx) = tokio::sync::oneshot::channel();
        if self.entries.send(Entry::Committed(tx)).is_err() {
            return !self.broken();
        }
        rx.await.is_ok() || !self.broken()
    }

    /// Asks for a commit of the frontier's changes (after the lines handed over so far).
    pub(crate) fn commit(&self) {
        let _ = self.entries.send(Entry::Commit);
    }

    /// A consistent view of the frontier's store, taken after every line handed over so far is written and
    /// committed (for a checkpoint).
    pub(crate) fn checkpoint(&self) -> Result<StoreCopy, Error> {
        let (tx, rx) = mpsc::sync_channel(1);
        if self.entries.send(Entry::Checkpoint(tx)).is_err() {
            return Err(Error::JournalStopped);
        }
        rx.recv().unwrap_or(Err(Error::JournalStopped))
    }

    /// Whether the thread failed (at any time, reported or not): then the frontier must not be committed
    /// again in this run, as after a kill.
    pub(crate) fn broken(&self) -> bool {
        self.broken.load(Ordering::SeqCst)
    }

    /// Writes out every line handed over, commits, and stops the thread; reports a failure not reported
    /// yet.
    pub(crate) fn close(&self) -> Result<(), Error> {
        let _ = self.entries.send(Entry::Close);
        let thread = self
            .thread
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(thread) = thread {
            let _ = thread.join();
        }
        match self
            .failed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_written_in_order_and_the_frontier_committed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crawl.log");
        let frontier = Arc::new(Mutex::new(
            Frontier::<CrawlUri>::open(&dir.path().join("frontier"), 1).unwrap(),
        ));
        let journal = Journal::start(CrawlLog::open(&path).unwrap(), frontier.clone()).unwrap();
        let lines: Vec<String> = (0..500).map(|i| format!("line {i}")).collect();
        for line in &lines {
            journal.line(line.clone()).unwrap();
        }
        journal.close().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().collect::<Vec<_>>(), lines);
    }

    #[tokio::test]
    async fn written_answers_once_the_lines_before_it_are_in_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crawl.log");
        let frontier = Arc::new(Mutex::new(Frontier::<CrawlUri>::in_memory(1)));
        let journal = Journal::start(CrawlLog::open(&path).unwrap(), frontier).unwrap();
        for i in 0..200 {
            journal.line(format!("line {i}")).unwrap();
        }
        assert!(journal.written().await);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 200, "before the journal is closed");
        journal.close().unwrap();
        // A stopped journal writes nothing more, and says so.
        assert!(!journal.written().await);
    }
}
