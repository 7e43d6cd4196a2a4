//! The uniq filter: which uniq keys were scheduled or marked seen, as 64-bit fingerprints.
//!
//! In memory mode every fingerprint is in a set. With a store every fingerprint is on disk (under `seen`,
//! pointing to the item record that holds its item and later its final status); memory holds the recent ones
//! (at least those not yet committed) and, optionally, a Bloom filter of all of them.

use foldhash::{HashSet, HashSetExt};
use xxhash_rust::xxh3::xxh3_64;

use crate::{
    Error,
    store::{Record, Store, Which},
};

/// What is known of a URL, by its uniq key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlStatus {
    /// Never scheduled.
    Unknown,
    /// Queued or being fetched.
    Queued,
    /// Marked seen without an item of its own ([`Frontier::mark_seen`](crate::Frontier::mark_seen)): a URL
    /// the caller dealt with otherwise, or one about to be queued past the filter.
    Marked,
    /// Finished with this status.
    Done(i32),
}

/// Recent uniq fingerprints kept in memory per generation (two generations: about 32 MiB at most).
const RECENT_MAX: usize = 1 << 20;

/// A uniq key's fingerprint: stable across versions (xxh3), so a store written by one build is read by the next.
pub(crate) fn fingerprint(key: &str) -> u64 {
    xxh3_64(key.as_bytes())
}

/// The set of seen fingerprints, in front of the store.
#[derive(Debug)]
pub(crate) struct UniqFilter {
    /// All fingerprints in memory mode; with a store, the most recent ones (at least those not yet committed),
    /// so that the usual duplicate (a link every page of a site repeats) is caught without a disk lookup, like
    /// Mercator's cache of popular URLs.
    current: HashSet<u64>,
    /// With a store: the generation of recent fingerprints before `current`.
    previous: HashSet<u64>,
    /// With a store: a Bloom filter of every fingerprint, so that most new keys (the usual case) are known to
    /// be new without a disk lookup; in lossy mode it is the whole filter.
    bloom: Option<fastbloom::BloomFilter>,
    lossy: bool,
    /// Distinct keys scheduled or marked seen so far, notes not counted.
    pub(crate) discovered: u64,
    /// Notes marked so far ([`UniqFilter::add_note`]), and whether that count changed since the last commit.
    pub(crate) notes: u64,
    pub(crate) notes_changed: bool,
    /// Of the notes, those marking a refused URI's line written ([`crate::Frontier::mark_refused`]).
    pub(crate) refused: u64,
}

impl UniqFilter {
    pub(crate) fn new() -> UniqFilter {
        UniqFilter {
            current: HashSet::new(),
            previous: HashSet::new(),
            bloom: None,
            lossy: false,
            discovered: 0,
            notes: 0,
            notes_changed: false,
            refused: 0,
        }
    }

    /// Puts a Bloom filter sized for `expected` keys at `fp_rate` in front of the store's keys (read from it),
    /// deciding alone when `lossy`.
    pub(crate) fn with_bloom(
        &mut self,
        store: &Store,
        expected: usize,
        fp_rate: f64,
        lossy: bool,
    ) -> Result<(), Error> {
        let mut bloom = fastbloom::BloomFilter::with_false_pos(fp_rate.clamp(1e-9, 0.5))
            .expected_items(expected.max(1000));
        for kv in store.seen.iter() {
            let k = kv.key().map_err(|e| store.err(e))?;
            if let Ok(bytes) = <[u8; 8]>::try_from(&k[..]) {
                bloom.insert(&u64::from_be_bytes(bytes));
            }
        }
        for fp in &self.current {
            bloom.insert(fp);
        }
        self.bloom = Some(bloom);
        self.lossy = lossy;
        Ok(())
    }

    /// Whether `fp` was seen: memory first, then the Bloom filter, then the store.
    pub(crate) fn contains(&self, fp: u64, store: Option<&Store>) -> bool {
        if self.is_recent(fp) || self.previous.contains(&fp) {
            return true;
        }
        if let Some(bloom) = &self.bloom {
            let maybe = bloom.contains(&fp);
            if !maybe || self.lossy {
                return maybe;
            }
        }
        store.is_some_and(|s| s.seen.contains_key(fp.to_be_bytes()).unwrap_or(false))
    }

    /// Whether `fp` is in the newest generation (it holds every key not yet committed).
    pub(crate) fn is_recent(&self, fp: u64) -> bool {
        self.current.contains(&fp)
    }

    /// Marks a fingerprint seen; with a store, `record` is the key of the item record that holds its item and
    /// later its status (empty for none).
    pub(crate) fn add(&mut self, fp: u64, record: Vec<u8>, store: Option<&mut Store>) {
        self.current.insert(fp);
        if let Some(bloom) = &mut self.bloom {
            bloom.insert(&fp);
        }
        self.discovered += 1;
        if let Some(store) = store {
            store.put(Which::Seen, fp.to_be_bytes().to_vec(), record);
        }
    }

    /// Marks a note's fingerprint seen: a key that names no URI (see [`crate::Frontier::mark_note`]), so it is
    /// counted apart from the URIs discovered.
    pub(crate) fn add_note(&mut self, fp: u64, store: Option<&mut Store>) {
        self.add(fp, Vec::new(), store);
        self.discovered -= 1;
        self.notes += 1;
        self.notes_changed = true;
    }

    /// Makes a finished item's fingerprint seen from now on, pointing to its record (it may have come in
    /// bypassing the filter: a prerequisite, a retry).
    pub(crate) fn finish(&mut self, fp: u64, record: Vec<u8>, store: Option<&mut Store>) {
        if !self.contains(fp, store.as_deref()) {
            self.add(fp, record, store);
        } else if let Some(store) = store {
            store.put(Which::Seen, fp.to_be_bytes().to_vec(), record);
        }
    }

    /// After a commit: two generations of recent fingerprints, so memory stays under 2 x [`RECENT_MAX`].
    pub(crate) fn after_commit(&mut self) {
        if self.current.len() >= RECENT_MAX {
            self.previous = std::mem::take(&mut self.current);
        }
    }

    /// What is known of `fp`: never seen, queued (or in flight), or finished with a status.
    pub(crate) fn lookup(&self, fp: u64, store: Option<&Store>) -> Result<UrlStatus, Error> {
        let Some(store) = store else {
            return Ok(if self.current.contains(&fp) {
                UrlStatus::Queued
            } else {
                UrlStatus::Unknown
            });
        };
        // The uniq key's record (committed, or in the batch not yet written), then the item record it points
        // to.
        let record = match store.get(Which::Seen, &fp.to_be_bytes())? {
            Some(record) => record,
            None => return Ok(UrlStatus::Unknown),
        };
        if record.is_empty() {
            return Ok(UrlStatus::Marked);
        }
        let item = store.get(Which::Items, &record)?;
        Ok(match item.as_deref().and_then(Record::parse) {
            Some((Record::Done(status), _)) => UrlStatus::Done(status),
            // queued, in flight, or handed back to be queued again
            _ => UrlStatus::Queued,
        })
    }
}
