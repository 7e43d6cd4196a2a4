//! The on-disk half of the frontier: fjall keyspaces, written in atomic batches.
//!
//! Layout (all integers big-endian, so keys sort numerically):
//! - `items`: queue id (u32) ++ precedence (u8) ++ seq (u64) -> a record, told apart by its length:
//!   - a queued item: uniq fingerprint (u64) ++ whether it came through the uniq filter (u8, 0 or 1) ++ the
//!     encoded item (9 bytes or more);
//!   - a finished item: its final status (i32) ++ the filter byte (5 bytes);
//!   - an item handed back without a status (to be queued again under another key) or dropped by an
//!     operator: the filter byte alone.
//!
//!   A queue's records read in order of precedence, then FIFO. No key is used twice, and the records
//!   through the filter count what the queue has spent of its budget;
//! - `seen`: uniq fingerprint (u64) -> the key of the `items` record that holds its item or final status, or
//!   empty for a key marked seen without an item;
//! - `queues`: queue name -> queue record (id, spent, operator settings);
//! - `later`: sequence number (u64) -> an item due later: due time (unix ms, u64) ++ uniq fingerprint (u64) ++
//!   queue name length (u32) ++ queue name ++ the encoded item; emptied when it moves into its queue.
//!
//! So a URL costs three writes: its uniq key and its item when scheduled, and one overwrite of the item with
//! its status when finished (a queue's own record is written only when it is made or its settings change).
//! The status is not written under the uniq key: those keys are random, so each write there lands all over
//! the keyspace and makes compaction rewrite all of it (measured: the dequeue phase of bench/frontier at 10M
//! URLs ran at 141k ops/s with that write, 315k without).
//!
//! Every change goes into a pending batch that is committed atomically and handed to the OS (not fsynced):
//! after `kill -9` the store is as of the last committed batch. Items stay queued records until finished, so
//! an item in flight at a crash is queued again on reopening. See docs/frontier.md.
//!
//! Committing (fjall's memtable inserts) was half of the frontier's time, so a committer thread does it while
//! the frontier goes on: [`Store::start_commit`] hands it the pending batch, which reads still see until it
//! is written; one batch is in flight at a time, in order.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    sync::{Arc, Condvar, Mutex, PoisonError, mpsc},
    thread::JoinHandle,
};

use fjall::{
    Database, Keyspace, KeyspaceCreateOptions, OwnedWriteBatch as WriteBatch, PersistMode,
    config::PinningPolicy,
};

use crate::Error;

/// The fjall database and its keyspaces.
pub(crate) struct Store {
    path: PathBuf,
    db: Database,
    pub(crate) items: Keyspace,
    pub(crate) seen: Keyspace,
    pub(crate) queues: Keyspace,
    pub(crate) later: Keyspace,
    /// Changes not yet committed, the last one per key winning (a fjall batch must not hold a key twice);
    /// sorted, so reads can see them without committing first.
    pending: Batch,
    /// The batch the committer thread is writing, read under `pending` until it is written.
    committing: Option<Arc<Batch>>,
    committer: Committer,
}

/// Values to write, by keyspace and key. (Nothing is ever removed: a finished item's record is overwritten.)
type Batch = BTreeMap<(Which, Vec<u8>), Vec<u8>>;

/// The thread that writes batches, and the channels to it.
struct Committer {
    jobs: Option<mpsc::Sender<Arc<Batch>>>,
    results: mpsc::Receiver<Result<(), fjall::Error>>,
    thread: Option<JoinHandle<()>>,
    progress: Arc<Progress>,
    /// The first failure of a batch, reported by every later wait.
    failed: Option<String>,
}

/// How far the committer thread has got, shared with [`CommitWaiter`]s.
#[derive(Debug, Default)]
struct Progress {
    counts: Mutex<Counts>,
    changed: Condvar,
}

#[derive(Debug, Default)]
struct Counts {
    sent: u64,
    written: u64,
    stopped: bool,
}

impl Progress {
    fn update(&self, f: impl FnOnce(&mut Counts)) {
        f(&mut self.counts.lock().unwrap_or_else(PoisonError::into_inner));
        self.changed.notify_all();
    }
}

/// Marks the committer thread stopped when it ends, however it ends, so no waiter waits for it forever.
struct StopGuard(Arc<Progress>);

impl Drop for StopGuard {
    fn drop(&mut self) {
        self.0.update(|c| c.stopped = true);
    }
}

/// Waits for a frontier's committer thread without holding the frontier: a writer of the crawl's journal
/// lets the frontier go while fjall writes its batch, which takes seconds when fjall holds writes back
/// until a memtable is flushed (and fsynced) on a slow disk.
#[derive(Debug, Clone)]
pub struct CommitWaiter(Arc<Progress>);

impl CommitWaiter {
    /// Returns once every batch handed to the committer thread so far is written, or the thread has
    /// stopped (its failure is reported by the frontier's next flush).
    pub fn wait_idle(&self) {
        let mut counts = self.0.counts.lock().unwrap_or_else(PoisonError::into_inner);
        while counts.written < counts.sent && !counts.stopped {
            counts = self
                .0
                .changed
                .wait(counts)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.path)
            .field("pending", &self.pending.len())
            .finish()
    }
}

/// The block cache.
const CACHE_BYTES: u64 = 32 << 20;
/// One keyspace's memtable before it is sealed and flushed.
const MEMTABLE_BYTES: u64 = 16 << 20;

/// fjall's background threads (flushes and compaction). Its default is one per core, at most 4. With two,
/// the first keeps handing a compaction request back to the queue for the other while that one compacts,
/// and spins at full speed doing so (fjall 3.1's worker pool lets its first worker only flush). With four,
/// a free worker takes the request: at 10M URLs bench/frontier used 23% less CPU and ran 20% faster.
const WORKER_THREADS: usize = 4;

/// Removes `path` when it holds a store fjall began and never finished making: a journal (`*.jnl`) but no
/// `version` file (fjall writes it once the journal is made) and no keyspace. A kill in a crawl's first
/// milliseconds leaves that, which fjall will not open again ("File exists") though nothing was ever
/// committed to it (xt17b F2); an empty folder fjall makes a store in, and is left. Returns whether it
/// removed it; the caller holds the job's lock, so no other process is making it now.
pub fn clear_unmade(path: &Path) -> std::io::Result<bool> {
    // A `version` cut short of its 4-byte header (a power loss as the store was made) counts as none
    // (review 65b R13).
    let made = std::fs::metadata(path.join("version")).is_ok_and(|m| m.len() >= 4);
    if !path.is_dir() || made {
        return Ok(false);
    }
    let no_keyspace = match std::fs::read_dir(path.join("keyspaces")) {
        Ok(mut entries) => entries.next().is_none(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
        Err(e) => return Err(e),
    };
    let journal = std::fs::read_dir(path)?
        .flatten()
        .any(|e| e.file_name().to_string_lossy().ends_with(".jnl"));
    if !no_keyspace || !journal {
        return Ok(false);
    }
    std::fs::remove_dir_all(path)?;
    Ok(true)
}

impl Store {
    /// Opens (or creates) the store in `path`.
    pub(crate) fn open(path: &Path) -> Result<Store, Error> {
        let err = |e: fjall::Error| Error::Store {
            path: path.to_path_buf(),
            message: crate::error::store_failure(path, &e),
        };
        std::fs::create_dir_all(path).map_err(|e| Error::Store {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        // Memory the store may use, whatever the number of URLs: fjall's default 64 MiB memtable per keyspace
        // (more while sealed ones are flushed) dominated the frontier's footprint.
        let db = Database::builder(path)
            .cache_size(CACHE_BYTES)
            .worker_threads(WORKER_THREADS)
            .open()
            .map_err(err)?;
        let options = |bytes| move || KeyspaceCreateOptions::default().max_memtable_size(bytes);
        let items = db.keyspace("items", options(MEMTABLE_BYTES)).map_err(err)?;
        // The uniq filter's point lookups go to random keys in every table: their Bloom filter and index
        // blocks stay in memory (about 10 bits per key), or each lookup re-reads and re-checksums them (at 10M
        // keys that made the enqueue phase of bench/frontier ten times slower).
        let seen = db
            .keyspace("seen", || {
                options(MEMTABLE_BYTES)()
                    .filter_block_pinning_policy(PinningPolicy::all(true))
                    .index_block_pinning_policy(PinningPolicy::all(true))
            })
            .map_err(err)?;
        let queues = db
            .keyspace("queues", options(MEMTABLE_BYTES / 4))
            .map_err(err)?;
        let later = db
            .keyspace("later", options(MEMTABLE_BYTES / 4))
            .map_err(err)?;
        let (jobs, job_rx) = mpsc::channel::<Arc<Batch>>();
        let (result_tx, results) = mpsc::channel();
        let keyspaces = [items.clone(), seen.clone(), queues.clone(), later.clone()];
        let thread_db = db.clone();
        let progress = Arc::new(Progress::default());
        let guard = StopGuard(progress.clone());
        let thread = std::thread::Builder::new()
            .name("frontier-commit".into())
            .spawn(move || {
                // Dropped when the thread ends, however it ends.
                let progress = guard;
                for batch in job_rx {
                    let result = write(&thread_db, &keyspaces, &batch);
                    // The result is there before a waiter hears the batch is written.
                    let sent = result_tx.send(result).is_ok();
                    progress.0.update(|c| c.written += 1);
                    if !sent {
                        break;
                    }
                }
            })
            .map_err(|e| Error::Store {
                path: path.to_path_buf(),
                message: format!(
                    "cannot start the commit thread: {}",
                    crate::error::store_failure(path, &e)
                ),
            })?;
        Ok(Store {
            path: path.to_path_buf(),
            db,
            items,
            seen,
            queues,
            later,
            pending: BTreeMap::new(),
            committing: None,
            committer: Committer {
                jobs: Some(jobs),
                results,
                thread: Some(thread),
                progress,
                failed: None,
            },
        })
    }

    /// The store's folder.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn err(&self, e: impl std::fmt::Display) -> Error {
        Error::Store {
            path: self.path.clone(),
            message: e.to_string(),
        }
    }

    /// A failure of the store's own, worded by [`crate::error::store_failure`].
    fn failure(&self, e: &fjall::Error) -> Error {
        self.err(crate::error::store_failure(&self.path, e))
    }

    /// Adds an insert to the pending batch.
    pub(crate) fn put(&mut self, which: Which, key: Vec<u8>, value: Vec<u8>) {
        self.pending.insert((which, key), value);
    }

    /// What `pick` makes of up to `limit` item records with keys in `from..=to` (those it makes something
    /// of), in key order, as committed and changed by the pending batch (read through it: no commit needed,
    /// so taking a queue's next items costs no write).
    pub(crate) fn items_in<R>(
        &self,
        from: &[u8],
        to: &[u8],
        limit: usize,
        mut pick: impl FnMut(&[u8], &[u8]) -> Option<R>,
    ) -> Result<Vec<R>, Error> {
        let mut pending = self.overlay(from, to).into_iter().peekable();
        let mut out = Vec::new();
        let mut take = |out: &mut Vec<R>, k: &[u8], v: &[u8]| {
            out.extend(pick(k, v));
            out.len() >= limit
        };
        for kv in self.items.range(from.to_vec()..=to.to_vec()) {
            let (k, v) = kv.into_inner().map_err(|e| self.err(e))?;
            // Pending keys before this one are new items.
            while let Some((pk, pv)) = pending.next_if(|(pk, _)| *pk < &k[..]) {
                if take(&mut out, pk, pv) {
                    return Ok(out);
                }
            }
            // A pending change of this very key replaces it.
            let value = match pending.next_if(|(pk, _)| *pk == &k[..]) {
                Some((_, pv)) => pv,
                None => &v[..],
            };
            if take(&mut out, &k, value) {
                return Ok(out);
            }
        }
        for (pk, pv) in pending {
            if take(&mut out, pk, pv) {
                break;
            }
        }
        Ok(out)
    }

    /// The value under `key` in a keyspace, as committed and changed by the batches not yet written.
    pub(crate) fn get(&self, which: Which, key: &[u8]) -> Result<Option<Vec<u8>>, Error> {
        let at = (which, key.to_vec());
        for batch in [Some(&self.pending), self.committing.as_deref()]
            .into_iter()
            .flatten()
        {
            if let Some(value) = batch.get(&at) {
                return Ok(Some(value.clone()));
            }
        }
        let value = self.keyspaces()[which as usize]
            .get(key)
            .map_err(|e| self.err(e))?;
        Ok(value.map(|v| v.to_vec()))
    }

    /// The uncommitted changes of items with keys in `from..=to`, in key order: the batch being committed,
    /// overridden by the pending one.
    fn overlay(&self, from: &[u8], to: &[u8]) -> Vec<(&[u8], &[u8])> {
        fn range<'a>(batch: &'a Batch, from: &[u8], to: &[u8]) -> Vec<(&'a [u8], &'a [u8])> {
            batch
                .range((Which::Items, from.to_vec())..=(Which::Items, to.to_vec()))
                .map(|((_, k), v)| (k.as_slice(), v.as_slice()))
                .collect()
        }
        let Some(older) = &self.committing else {
            // The crawler's case: every flush waits, so nothing is in flight.
            return range(&self.pending, from, to);
        };
        let mut newer = range(&self.pending, from, to).into_iter().peekable();
        let mut out = Vec::new();
        for (k, v) in range(older, from, to) {
            while let Some(n) = newer.next_if(|(nk, _)| *nk < k) {
                out.push(n);
            }
            out.push(newer.next_if(|(nk, _)| *nk == k).unwrap_or((k, v)));
        }
        out.extend(newer);
        out
    }

    /// Keeps the first failure among the batches written: `result` is a batch's, `None` when the committer
    /// thread stopped before answering.
    fn note_result(&mut self, result: Option<Result<(), fjall::Error>>) {
        let failure = match result {
            Some(result) => result
                .err()
                .map(|e| crate::error::store_failure(&self.path, &e)),
            None => Some("the commit thread has stopped".into()),
        };
        self.committer.failed = self.committer.failed.take().or(failure);
    }

    /// A handle that waits for the committer thread without the store.
    pub(crate) fn commit_waiter(&self) -> CommitWaiter {
        CommitWaiter(self.committer.progress.clone())
    }

    /// Hands the pending batch to the committer thread, which commits it atomically and hands it to the OS
    /// (so it survives the process being killed) while the caller goes on. Waits for the batch before it
    /// first, and reports that one's failure.
    pub(crate) fn start_commit(&mut self) -> Result<(), Error> {
        let Some(batch) = self.take_pending()? else {
            return Ok(());
        };
        let batch = Arc::new(batch);
        self.committer.progress.update(|c| c.sent += 1);
        let sent = self
            .committer
            .jobs
            .as_ref()
            .is_some_and(|jobs| jobs.send(Arc::clone(&batch)).is_ok());
        if !sent {
            return Err(self.err("the commit thread has stopped"));
        }
        self.committing = Some(batch);
        Ok(())
    }

    /// Waits until the batch being committed, if any, is written; reports the first failure of any batch
    /// (a store that lost a batch takes no more: each later wait reports it again).
    fn wait_commit(&mut self) -> Result<(), Error> {
        if self.committing.take().is_some() {
            let result = self.committer.results.recv().ok();
            self.note_result(result);
        }
        match &self.committer.failed {
            Some(failure) => Err(self.err(failure)),
            None => Ok(()),
        }
    }

    /// Once the batch in flight (if any) is written: the pending batch to commit next, unless it is empty.
    fn take_pending(&mut self) -> Result<Option<Batch>, Error> {
        self.wait_commit()?;
        Ok((!self.pending.is_empty()).then(|| std::mem::take(&mut self.pending)))
    }

    /// Commits every change so far and returns once it is written (on this thread: no hand-over).
    pub(crate) fn commit(&mut self) -> Result<(), Error> {
        let Some(batch) = self.take_pending()? else {
            return Ok(());
        };
        write(&self.db, &self.keyspaces(), &batch).map_err(|e| self.failure(&e))
    }

    /// The keyspaces, in the order of [`Which`].
    fn keyspaces(&self) -> [Keyspace; 4] {
        [
            self.items.clone(),
            self.seen.clone(),
            self.queues.clone(),
            self.later.clone(),
        ]
    }

    /// Commits and fsyncs: for checkpoints and clean shutdown.
    pub(crate) fn sync(&mut self) -> Result<(), Error> {
        self.commit()?;
        self.db
            .persist(PersistMode::SyncAll)
            .map_err(|e| self.failure(&e))
    }

    /// A consistent view of the committed store (commit first, with [`Store::commit`]), which
    /// [`StoreCopy::write_to`] copies without holding the store: for checkpoints.
    pub(crate) fn snapshot(&self) -> StoreCopy {
        StoreCopy {
            path: self.path.clone(),
            snapshot: self.db.snapshot(),
            keyspaces: self.keyspaces(),
        }
    }

    /// Bytes the store takes on disk.
    pub(crate) fn disk_bytes(&self) -> u64 {
        self.db.disk_space().unwrap_or(0)
    }
}

impl Drop for Store {
    /// Lets the batch in flight be written, then stops the committer thread.
    fn drop(&mut self) {
        let _ = self.wait_commit();
        self.committer.jobs = None;
        if let Some(thread) = self.committer.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A consistent view of a store as of one instant, to be copied into a new store (a checkpoint) while the
/// store itself goes on changing.
pub struct StoreCopy {
    path: PathBuf,
    snapshot: fjall::Snapshot,
    keyspaces: [Keyspace; 4],
}

impl std::fmt::Debug for StoreCopy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreCopy")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl StoreCopy {
    /// Writes the view into `dir` as a new store that [`crate::Frontier::open`] can open, and fsyncs it.
    pub fn write_to(&self, dir: &Path) -> Result<(), Error> {
        let copy = Store::open(dir)?;
        let err = |e: fjall::Error| copy.failure(&e);
        for (from, to) in self.keyspaces.iter().zip(copy.keyspaces()) {
            let mut batch = copy.db.batch();
            let mut n = 0;
            for kv in fjall::Readable::iter(&self.snapshot, from) {
                let (k, v) = kv.into_inner().map_err(|e| Error::Store {
                    path: self.path.clone(),
                    message: e.to_string(),
                })?;
                batch.insert(&to, k, v);
                n += 1;
                if n % 10_000 == 0 {
                    std::mem::replace(&mut batch, copy.db.batch())
                        .commit()
                        .map_err(err)?;
                }
            }
            batch.commit().map_err(err)?;
        }
        copy.db.persist(PersistMode::SyncAll).map_err(err)
    }
}

/// Writes `batch` into the keyspaces (in the order of [`Which`]) in one atomic fjall batch, and hands it to the
/// OS.
fn write(db: &Database, keyspaces: &[Keyspace; 4], batch: &Batch) -> Result<(), fjall::Error> {
    let mut fjall_batch: WriteBatch = db.batch();
    for ((which, key), value) in batch {
        fjall_batch.insert(
            &keyspaces[*which as usize],
            key.as_slice(),
            value.as_slice(),
        );
    }
    fjall_batch.commit()?;
    db.persist(PersistMode::Buffer)
}

/// Which keyspace an operation goes to (as a number, its index in `[items, seen, queues, later]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Which {
    Items,
    Seen,
    Queues,
    Later,
}

/// The key of an item: queue id, precedence, sequence number.
pub(crate) fn item_key(queue: u32, precedence: u8, seq: u64) -> Vec<u8> {
    let mut k = Vec::with_capacity(13);
    k.extend_from_slice(&queue.to_be_bytes());
    k.push(precedence);
    k.extend_from_slice(&seq.to_be_bytes());
    k
}

/// The first and last possible item keys of a queue.
pub(crate) fn queue_range(queue: u32) -> (Vec<u8>, Vec<u8>) {
    (item_key(queue, 0, 0), item_key(queue, u8::MAX, u64::MAX))
}

/// What an item record holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Record {
    /// A queued (or in flight) item.
    Queued,
    /// A finished item's final status.
    Done(i32),
    /// An item handed back without a status, or dropped.
    Gone,
}

/// Where the filter byte is in a record of each length.
const FILTER_AT_QUEUED: usize = 8;
const DONE_LEN: usize = 5;

impl Record {
    /// Reads a record, and whether its item came through the uniq filter (`None`: not a record).
    pub(crate) fn parse(bytes: &[u8]) -> Option<(Record, bool)> {
        let (record, flag) = match bytes.len() {
            1 => (Record::Gone, bytes[0]),
            DONE_LEN => {
                let status = i32::from_be_bytes(bytes[..4].try_into().ok()?);
                (Record::Done(status), bytes[4])
            }
            n if n > FILTER_AT_QUEUED => (Record::Queued, bytes[FILTER_AT_QUEUED]),
            _ => return None,
        };
        match flag {
            0 | 1 => Some((record, flag == 1)),
            _ => None,
        }
    }
}

/// The start of a queued item's record: its uniq fingerprint and the filter byte; the encoded item follows.
pub(crate) fn queued_record(fp: u64, filtered: bool) -> Vec<u8> {
    let mut v = fp.to_be_bytes().to_vec();
    v.push(u8::from(filtered));
    v
}

/// The uniq fingerprint, filter flag and encoded item of a queued item's record.
pub(crate) fn split_queued(record: &[u8]) -> Option<(u64, bool, &[u8])> {
    let fp = u64::from_be_bytes(record.get(..FILTER_AT_QUEUED)?.try_into().ok()?);
    let filtered = match record.get(FILTER_AT_QUEUED)? {
        0 => false,
        1 => true,
        _ => return None,
    };
    Some((fp, filtered, &record[FILTER_AT_QUEUED + 1..]))
}

/// The record of a finished item.
pub(crate) fn done_record(status: i32, filtered: bool) -> Vec<u8> {
    let mut v = status.to_be_bytes().to_vec();
    v.push(u8::from(filtered));
    v
}

/// The record of an item handed back without a status, or dropped.
pub(crate) fn gone_record(filtered: bool) -> Vec<u8> {
    vec![u8::from(filtered)]
}

/// Whether an item record holds a queued item.
pub(crate) fn is_queued(record: &[u8]) -> bool {
    record.len() > FILTER_AT_QUEUED
}

/// Splits an item key into queue id, precedence and sequence number.
pub(crate) fn split_item_key(key: &[u8]) -> Option<(u32, u8, u64)> {
    let q = u32::from_be_bytes(key.get(..4)?.try_into().ok()?);
    let p = *key.get(4)?;
    let s = u64::from_be_bytes(key.get(5..13)?.try_into().ok()?);
    Some((q, p, s))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A store a kill left before fjall wrote its `version` (its lock, an empty `keyspaces/`, the journal) is
    /// removed, and then made anew; a made store, or one with a keyspace, is left alone (xt17b F2).
    #[test]
    fn a_store_left_unmade_is_cleared_and_made_anew() {
        let dir = tempfile::tempdir().unwrap();
        let unmade = dir.path().join("frontier");
        std::fs::create_dir_all(unmade.join("keyspaces")).unwrap();
        std::fs::write(unmade.join("lock"), b"").unwrap();
        std::fs::write(unmade.join("0.jnl"), vec![0u8; 4096]).unwrap();
        assert!(clear_unmade(&unmade).unwrap());
        assert!(!unmade.exists());
        assert!(!clear_unmade(&unmade).unwrap(), "nothing there");
        // A `version` cut short is none.
        std::fs::create_dir_all(unmade.join("keyspaces")).unwrap();
        std::fs::write(unmade.join("0.jnl"), b"").unwrap();
        std::fs::write(unmade.join("version"), b"F").unwrap();
        assert!(clear_unmade(&unmade).unwrap());
        // An empty folder is one fjall makes a store in.
        std::fs::create_dir_all(&unmade).unwrap();
        assert!(!clear_unmade(&unmade).unwrap());
        std::fs::remove_dir(&unmade).unwrap();
        drop(Store::open(&unmade).unwrap());
        assert!(unmade.join("version").exists());
        assert!(!clear_unmade(&unmade).unwrap(), "a made store stays");
        let keyspace = dir.path().join("other");
        std::fs::create_dir_all(keyspace.join("keyspaces/0")).unwrap();
        assert!(
            !clear_unmade(&keyspace).unwrap(),
            "a store with a keyspace stays"
        );
        assert!(keyspace.exists());
    }

    #[test]
    fn records_are_told_apart_by_length() {
        assert_eq!(
            Record::parse(&done_record(-404, true)),
            Some((Record::Done(-404), true))
        );
        assert_eq!(
            Record::parse(&done_record(200, false)),
            Some((Record::Done(200), false))
        );
        assert_eq!(
            Record::parse(&gone_record(true)),
            Some((Record::Gone, true))
        );
        let mut queued = queued_record(7, true);
        queued.extend_from_slice(b"item");
        assert_eq!(Record::parse(&queued), Some((Record::Queued, true)));
        assert_eq!(split_queued(&queued), Some((7, true, &b"item"[..])));
        assert!(is_queued(&queued) && !is_queued(&done_record(1, true)));
        for bad in [&[][..], &[2], &[0, 0], &[0, 0, 0, 0, 7]] {
            assert_eq!(Record::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_waiter_returns_once_the_batch_handed_over_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let waiter = store.commit_waiter();
        waiter.wait_idle(); // nothing handed over: at once
        for i in 0u32..10_000 {
            store.put(Which::Seen, i.to_be_bytes().to_vec(), b"x".to_vec());
        }
        store.start_commit().unwrap();
        waiter.wait_idle();
        // Written: the result is there without waiting, and fjall has every key without the overlay.
        assert!(matches!(store.committer.results.try_recv(), Ok(Ok(()))));
        store.committing = None;
        assert!(store.pending.is_empty());
        assert_eq!(
            store.seen.get(9_999u32.to_be_bytes()).unwrap().as_deref(),
            Some(&b"x"[..])
        );
        // A waiter outlives a stopped committer without hanging.
        drop(store);
        waiter.wait_idle();
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_parse_or_not_without_panicking(bytes in proptest::collection::vec(0u8..=255, 0..20)) {
            if let Some((record, _)) = Record::parse(&bytes) {
                proptest::prop_assert_eq!(record == Record::Queued, is_queued(&bytes));
            }
            if split_queued(&bytes).is_some() {
                proptest::prop_assert_eq!(Record::parse(&bytes).map(|(r, _)| r), Some(Record::Queued));
            }
        }
    }
}
