//! The on-disk half of the frontier: fjall keyspaces, written in atomic batches.
//!
//! Layout (all integers big-endian, so keys sort numerically):
//! - `items`: queue id (u32) ++ precedence (u8) ++ seq (u64) -> uniq fingerprint (u64) ++ encoded item, so a
//!   queue's items read in order of precedence, then FIFO;
//! - `seen`: uniq fingerprint (u64) -> empty while queued or in flight, or the final status (i32);
//! - `queues`: queue name -> queue record (id, spent, operator settings).
//!
//! Every change goes into a pending batch that is committed atomically and handed to the OS (not fsynced):
//! after `kill -9` the store is as of the last committed batch. Items stay in `items` until finished, so an
//! item in flight at a crash is queued again on reopening. See docs/frontier.md.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
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
    /// Changes not yet committed, the last one per key winning (a fjall batch must not hold a key twice);
    /// sorted, so reads can see them without committing first.
    pending: BTreeMap<(Which, Vec<u8>), Option<Vec<u8>>>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.path)
            .field("pending", &self.pending.len())
            .finish()
    }
}

/// A key and its value.
pub(crate) type KeyValue = (Vec<u8>, Vec<u8>);

/// The block cache.
const CACHE_BYTES: u64 = 32 << 20;
/// One keyspace's memtable before it is sealed and flushed.
const MEMTABLE_BYTES: u64 = 16 << 20;

/// Operations pending commit beyond which a batch is committed on its own.
const BATCH_OPS: usize = 4096;

impl Store {
    /// Opens (or creates) the store in `path`.
    pub(crate) fn open(path: &Path) -> Result<Store, Error> {
        let err = |e: fjall::Error| Error::Store {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        std::fs::create_dir_all(path).map_err(|e| Error::Store {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        // Memory the store may use, whatever the number of URLs: fjall's default 64 MiB memtable per keyspace
        // (more while sealed ones are flushed) dominated the frontier's footprint.
        let db = Database::builder(path)
            .cache_size(CACHE_BYTES)
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
        Ok(Store {
            path: path.to_path_buf(),
            db,
            items,
            seen,
            queues,
            pending: BTreeMap::new(),
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

    /// Adds an insert to the pending batch.
    pub(crate) fn put(&mut self, which: Which, key: Vec<u8>, value: Vec<u8>) {
        self.pending.insert((which, key), Some(value));
    }

    /// Adds a removal to the pending batch.
    pub(crate) fn delete(&mut self, which: Which, key: Vec<u8>) {
        self.pending.insert((which, key), None);
    }

    /// Up to `limit` items with keys in `from..=to` for which `keep` holds, in key order, as committed and
    /// changed by the pending batch (read through it: no commit needed, so taking a queue's next items
    /// costs no write).
    pub(crate) fn items_in(
        &self,
        from: &[u8],
        to: &[u8],
        limit: usize,
        mut keep: impl FnMut(&[u8]) -> bool,
    ) -> Result<Vec<KeyValue>, Error> {
        let mut pending = self
            .pending
            .range((Which::Items, from.to_vec())..=(Which::Items, to.to_vec()))
            .map(|((_, k), v)| (k.as_slice(), v.as_deref()))
            .peekable();
        let mut out = Vec::new();
        let mut take = |out: &mut Vec<KeyValue>, k: &[u8], v: Option<&[u8]>| {
            if let Some(v) = v
                && keep(k)
            {
                out.push((k.to_vec(), v.to_vec()));
            }
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
            // A pending change of this very key replaces it (None: removed).
            let value = match pending.next_if(|(pk, _)| *pk == &k[..]) {
                Some((_, pv)) => pv,
                None => Some(&v[..]),
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

    /// Whether the pending batch is large enough to commit on its own.
    pub(crate) fn wants_commit(&self) -> bool {
        self.pending.len() >= BATCH_OPS
    }

    /// Commits the pending batch atomically and hands it to the OS, so it survives the process being killed.
    pub(crate) fn commit(&mut self) -> Result<(), Error> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let mut batch: WriteBatch = self.db.batch();
        for ((which, key), value) in std::mem::take(&mut self.pending) {
            let ks = match which {
                Which::Items => &self.items,
                Which::Seen => &self.seen,
                Which::Queues => &self.queues,
            };
            match value {
                Some(v) => batch.insert(ks, key, v),
                None => batch.remove(ks, key),
            }
        }
        batch.commit().map_err(|e| self.err(e))?;
        self.db
            .persist(PersistMode::Buffer)
            .map_err(|e| self.err(e))
    }

    /// Commits and fsyncs: for checkpoints and clean shutdown.
    pub(crate) fn sync(&mut self) -> Result<(), Error> {
        self.commit()?;
        self.db
            .persist(PersistMode::SyncAll)
            .map_err(|e| self.err(e))
    }

    /// Writes a consistent copy of the committed store into `dir` (a new store), for checkpoints.
    pub(crate) fn copy_to(&self, dir: &Path) -> Result<(), Error> {
        let copy = Store::open(dir)?;
        let snapshot = self.db.snapshot();
        for (from, to) in [
            (&self.items, &copy.items),
            (&self.seen, &copy.seen),
            (&self.queues, &copy.queues),
        ] {
            let mut batch = copy.db.batch();
            let mut n = 0;
            for kv in fjall::Readable::iter(&snapshot, from) {
                let (k, v) = kv.into_inner().map_err(|e| self.err(e))?;
                batch.insert(to, k, v);
                n += 1;
                if n % 10_000 == 0 {
                    std::mem::replace(&mut batch, copy.db.batch())
                        .commit()
                        .map_err(|e| copy.err(e))?;
                }
            }
            batch.commit().map_err(|e| copy.err(e))?;
        }
        copy.db
            .persist(PersistMode::SyncAll)
            .map_err(|e| copy.err(e))
    }

    /// Bytes the store takes on disk.
    pub(crate) fn disk_bytes(&self) -> u64 {
        self.db.disk_space().unwrap_or(0)
    }
}

/// Which keyspace an operation goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Which {
    Items,
    Seen,
    Queues,
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

/// Splits an item key into queue id, precedence and sequence number.
pub(crate) fn split_item_key(key: &[u8]) -> Option<(u32, u8, u64)> {
    let q = u32::from_be_bytes(key.get(..4)?.try_into().ok()?);
    let p = *key.get(4)?;
    let s = u64::from_be_bytes(key.get(5..13)?.try_into().ok()?);
    Some((q, p, s))
}
