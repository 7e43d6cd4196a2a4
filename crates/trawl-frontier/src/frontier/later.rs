//! Items due later: scheduled now, queued at a given time (a watchable URL's next visit).
//!
//! With a store each is a record in the `later` keyspace, so it survives a kill and is in every checkpoint;
//! memory holds only its due time and queue. When it falls due it moves into its queue in the same batch that
//! removes its record, so a crash finds it in one place or the other, never in both or neither.

use std::{
    collections::BTreeMap,
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use crate::{
    Error, Item,
    store::{Store, Which},
};

/// One item due later: its queue, and the item itself when there is no store to hold it.
#[derive(Debug)]
pub(crate) struct Due<T> {
    pub(crate) queue: String,
    pub(crate) fp: u64,
    pub(crate) item: Option<T>,
}

/// The items due later, by due instant then arrival.
#[derive(Debug)]
pub(crate) struct Later<T> {
    due: BTreeMap<(Instant, u64), Due<T>>,
    next_seq: u64,
}

impl<T: Item> Later<T> {
    pub(crate) fn new() -> Later<T> {
        Later {
            due: BTreeMap::new(),
            next_seq: 0,
        }
    }

    /// Reads the items due later from `store` (the clock then is `now`).
    pub(crate) fn restore(store: &Store, now: Instant) -> Result<Later<T>, Error> {
        let mut later = Later::new();
        let wall_now = unix_ms(SystemTime::now());
        for kv in store.later.iter() {
            let (k, v) = kv.into_inner().map_err(|e| store.err(e))?;
            let corrupt = || Error::Corrupt {
                path: store.path().to_path_buf(),
                what: "due-later item",
            };
            let seq = u64::from_be_bytes(k[..].try_into().map_err(|_| corrupt())?);
            later.next_seq = later.next_seq.max(seq + 1);
            if v.is_empty() {
                continue; // moved into its queue
            }
            let (due_ms, fp, queue, _) = split(&v).ok_or_else(corrupt)?;
            let at = now + Duration::from_millis(due_ms.saturating_sub(wall_now));
            later.due.insert(
                (at, seq),
                Due {
                    queue: queue.to_string(),
                    fp,
                    item: None,
                },
            );
        }
        Ok(later)
    }

    /// Adds `item`, for `queue` at `at`; with a store its record goes into the pending batch.
    pub(crate) fn add(
        &mut self,
        queue: &str,
        fp: u64,
        item: T,
        at: Instant,
        store: Option<&mut Store>,
    ) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let item = match store {
            Some(store) => {
                let wait = at.saturating_duration_since(Instant::now());
                let due_ms = unix_ms(SystemTime::now() + wait);
                let mut v = Vec::with_capacity(64);
                v.extend_from_slice(&due_ms.to_be_bytes());
                v.extend_from_slice(&fp.to_be_bytes());
                v.extend_from_slice(&(queue.len() as u32).to_be_bytes());
                v.extend_from_slice(queue.as_bytes());
                item.encode(&mut v);
                store.put(Which::Later, seq.to_be_bytes().to_vec(), v);
                None
            }
            None => Some(item),
        };
        self.due.insert(
            (at, seq),
            Due {
                queue: queue.to_string(),
                fp,
                item,
            },
        );
    }

    /// When the first item falls due.
    pub(crate) fn first(&self) -> Option<Instant> {
        self.due.keys().next().map(|(at, _)| *at)
    }

    /// How many items wait.
    pub(crate) fn len(&self) -> usize {
        self.due.len()
    }

    /// Takes the items due at `now`, in order, each with its item (read from the store and its record
    /// removed in the pending batch).
    pub(crate) fn take_due(
        &mut self,
        now: Instant,
        mut store: Option<&mut Store>,
    ) -> Result<Vec<(String, u64, T)>, Error> {
        let mut out = Vec::new();
        while let Some(entry) = self.due.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let (_, seq) = *entry.key();
            let due = entry.remove();
            let item = match (due.item, store.as_deref_mut()) {
                (Some(item), _) => item,
                (None, Some(store)) => {
                    let key = seq.to_be_bytes();
                    let corrupt = || Error::Corrupt {
                        path: store.path().to_path_buf(),
                        what: "due-later item",
                    };
                    let v = store.get(Which::Later, &key)?.ok_or_else(corrupt)?;
                    let (_, _, _, bytes) = split(&v).ok_or_else(corrupt)?;
                    let item = T::decode(bytes).ok_or_else(corrupt)?;
                    store.put(Which::Later, key.to_vec(), Vec::new());
                    item
                }
                (None, None) => continue,
            };
            out.push((due.queue, due.fp, item));
        }
        Ok(out)
    }
}

/// Due time (unix ms), fingerprint, queue and item bytes of a record.
fn split(v: &[u8]) -> Option<(u64, u64, &str, &[u8])> {
    let due = u64::from_be_bytes(v.get(..8)?.try_into().ok()?);
    let fp = u64::from_be_bytes(v.get(8..16)?.try_into().ok()?);
    let len = u32::from_be_bytes(v.get(16..20)?.try_into().ok()?) as usize;
    let queue = std::str::from_utf8(v.get(20..20 + len)?).ok()?;
    Some((due, fp, queue, &v[20 + len..]))
}

/// `t` in milliseconds since the Unix epoch (0 before it).
pub(crate) fn unix_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
