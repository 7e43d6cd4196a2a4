//! The frontier on disk: restoring it from its store, reading queue heads back, committing, checkpoints.

use super::*;

/// The key, among the queues' records, of the count of notes ([`Frontier::mark_note`]): no queue's name
/// starts with a NUL.
const NOTES_KEY: &[u8] = b"\0notes";

/// The key of the count of refused URIs' notes ([`Frontier::mark_refused`]), beside [`NOTES_KEY`].
const REFUSED_KEY: &[u8] = b"\0refused";

impl<T: Item> Frontier<T> {
    /// Opens the on-disk frontier in `dir` (creating it), restoring every queue and item: items that were in
    /// flight when the process stopped are queued again.
    pub fn open(dir: &Path, per_queue: usize) -> Result<Frontier<T>, Error> {
        let store = Store::open(dir)?;
        let mut f = Frontier::in_memory(per_queue);
        let now = f.epoch;
        let wall_now = f.epoch_wall_ms;
        f.head_max = HEAD_MAX;
        let (mut notes, mut refused) = (0, 0);
        for kv in store.queues.iter() {
            let (k, v) = kv.into_inner().map_err(|e| store.err(e))?;
            let count = |what| {
                <[u8; 8]>::try_from(&v[..])
                    .map(u64::from_be_bytes)
                    .map_err(|_| Error::Corrupt {
                        path: store.path().to_path_buf(),
                        what,
                    })
            };
            if *k == *NOTES_KEY {
                notes = count("count of notes")?;
                continue;
            }
            if *k == *REFUSED_KEY {
                refused = count("count of refused URIs")?;
                continue;
            }
            let name = String::from_utf8(k.to_vec()).map_err(|_| Error::Corrupt {
                path: store.path().to_path_buf(),
                what: "queue name",
            })?;
            let (id, q) = Queue::from_record(&v, now, wall_now).ok_or_else(|| Error::Corrupt {
                path: store.path().to_path_buf(),
                what: "queue",
            })?;
            // Records come back by name: ids in any order, each put in its place.
            f.names.insert(id, &name);
            if f.queues.len() <= id as usize {
                f.queues.resize_with(id as usize + 1, || Queue::new(now));
            }
            f.queues[id as usize] = q;
        }
        // Every record counts for the sequence numbers (no key is used twice) and, if its item came through
        // the uniq filter, for what the queue has spent; queued ones for its length, and the first of them
        // is where refills start.
        let mut spent = vec![0u64; f.queues.len()];
        for kv in store.items.iter() {
            let (key, value) = kv.into_inner().map_err(|e| store.err(e))?;
            let corrupt = |what| Error::Corrupt {
                path: store.path().to_path_buf(),
                what,
            };
            let (id, precedence, seq) = split_item_key(&key).ok_or_else(|| corrupt("item key"))?;
            let (record, filtered) = Record::parse(&value).ok_or_else(|| corrupt("item"))?;
            if !f.names.has(id) {
                return Err(corrupt("item of unknown queue"));
            }
            let q = &mut f.queues[id as usize];
            q.front_seq = q.front_seq.min(seq.saturating_sub(1));
            q.back_seq = q.back_seq.max(seq + 1);
            spent[id as usize] += u64::from(filtered);
            if record == Record::Queued {
                q.len += 1;
                q.cursor = q.cursor.min((precedence, seq));
                f.queued += 1;
            }
        }
        for (q, spent) in f.queues.iter_mut().zip(spent) {
            q.spent = q.spent.max(spent);
        }
        // The seen set holds the notes too (a store written before notes were counted has no count: its
        // notes count as discovered, as they did then).
        let seen = store.seen.len().map_err(|e| store.err(e))? as u64;
        f.uniq.discovered = seen.saturating_sub(notes);
        f.uniq.notes = notes;
        f.uniq.refused = refused;
        f.later = Later::restore(&store, now)?;
        f.store = Some(store);
        for id in 0..f.queues.len() as u32 {
            f.enqueue_if_ready(id);
        }
        Ok(f)
    }

    /// Loads the next items of a queue from disk into memory.
    pub(super) fn refill(&mut self, id: u32) -> Result<(), Error> {
        let Some(store) = &mut self.store else {
            return Ok(());
        };
        let q = &mut self.queues[id as usize];
        let hot = q.hot.get_or_insert_with(Box::default);
        // Strays first: they sort before the cursor.
        let mut found = Vec::new();
        while found.len() < self.head_max
            && let Some((precedence, seq)) = hot.strays.pop_first()
        {
            let k = item_key(id, precedence, seq);
            if let Some(v) = store.get(Which::Items, &k)?
                && is_queued(&v)
            {
                found.push((k, v));
            }
        }
        let want = self.head_max - found.len();
        if want > 0 && q.cursor != CURSOR_END {
            let (_, to) = queue_range(id);
            let from = item_key(id, q.cursor.0, q.cursor.1);
            let in_flight = &hot.in_flight;
            let read = store.items_in(&from, &to, want, |k, v| {
                (is_queued(v)
                    && split_item_key(k).is_some_and(|(_, _, seq)| !in_flight.contains(&seq)))
                .then(|| (k.to_vec(), v.to_vec()))
            })?;
            // Everything after the last item read stays on disk; when fewer were found, nothing does.
            q.cursor = match read.last().and_then(|(k, _)| split_item_key(k)) {
                Some((_, p, s)) if read.len() >= want => match s.checked_add(1) {
                    Some(next) => (p, next),
                    None => (p.saturating_add(1), 0),
                },
                _ => CURSOR_END,
            };
            found.extend(read);
        }
        for (k, v) in found {
            let (_, precedence, seq) =
                split_item_key(&k).ok_or_else(|| store.err("bad item key"))?;
            let corrupt = || Error::Corrupt {
                path: store.path().to_path_buf(),
                what: "item",
            };
            let (fp, filtered, bytes) = split_queued(&v).ok_or_else(corrupt)?;
            let item = T::decode(bytes).ok_or_else(corrupt)?;
            hot.head.push_back(Entry {
                filtered,
                precedence,
                seq,
                fp,
                item,
            });
        }
        Ok(())
    }

    /// Commits every change so far to disk (atomically, surviving the process being killed) and returns once
    /// they are written. Nothing else commits (finishing or scheduling an item does not): call it often (the
    /// engine's journal does, after the crawl.log lines of what changed, so that a kill makes it fetch again
    /// only what was in flight); without a store it does nothing.
    pub fn flush(&mut self) -> Result<(), Error> {
        self.commit_changes(true)
    }

    /// [`Frontier::flush`] without waiting: a committer thread writes the changes while the caller goes on
    /// (the next flush waits for it first). For batched work, where a kill may lose the batch in flight as
    /// well as the pending one; `bench/frontier` measures this mode.
    pub fn flush_behind(&mut self) -> Result<(), Error> {
        self.commit_changes(false)
    }

    /// A handle that waits, without the frontier, for the changes handed to the committer thread so far to
    /// be written (see [`Frontier::flush_behind`]); `None` without a store.
    pub fn commit_waiter(&self) -> Option<crate::CommitWaiter> {
        self.store.as_ref().map(Store::commit_waiter)
    }

    /// Adds the changed queues' records to the pending batch and commits it, waiting for it or not.
    pub(super) fn commit_changes(&mut self, wait: bool) -> Result<(), Error> {
        let Some(store) = &mut self.store else {
            return Ok(());
        };
        for id in self.dirty.drain(..) {
            let q = &mut self.queues[id as usize];
            q.dirty = false;
            let wall = |s: u32| self.epoch_wall_ms + u64::from(s) * 1000;
            let rest = match q.rest_noted_s {
                0 => crate::queue::Rest::default(),
                s => crate::queue::Rest {
                    until: wall(s),
                    written: self.epoch_wall_ms + self.epoch.elapsed().as_millis() as u64,
                    asked_until: if q.asked_noted_s == 0 {
                        0
                    } else {
                        wall(q.asked_noted_s)
                    },
                },
            };
            store.put(
                Which::Queues,
                self.names.name(id).as_bytes().to_vec(),
                q.record(id, rest),
            );
        }
        if std::mem::take(&mut self.uniq.notes_changed) {
            store.put(
                Which::Queues,
                NOTES_KEY.to_vec(),
                self.uniq.notes.to_be_bytes().to_vec(),
            );
            store.put(
                Which::Queues,
                REFUSED_KEY.to_vec(),
                self.uniq.refused.to_be_bytes().to_vec(),
            );
        }
        if wait {
            store.commit()?;
        } else {
            store.start_commit()?;
        }
        self.uniq.after_commit();
        Ok(())
    }

    /// Flushes and fsyncs: for checkpoints and a clean shutdown.
    pub fn sync(&mut self) -> Result<(), Error> {
        self.flush()?;
        match &mut self.store {
            Some(store) => store.sync(),
            None => Ok(()),
        }
    }

    /// Flushes, then takes a consistent view of the store, which [`StoreCopy::write_to`] writes into a
    /// folder that [`Frontier::open`] can open later (a checkpoint). Taking the view is quick; the copy is
    /// made from it without the frontier, which goes on changing meanwhile. Fails without a store.
    pub fn checkpoint(&mut self) -> Result<StoreCopy, Error> {
        self.flush()?;
        match &self.store {
            Some(store) => Ok(store.snapshot()),
            None => Err(Error::Store {
                path: std::path::PathBuf::new(),
                message: "an in-memory frontier cannot be checkpointed".into(),
            }),
        }
    }

    /// [`Frontier::checkpoint`] written into `dir` at once.
    pub fn checkpoint_to(&mut self, dir: &Path) -> Result<(), Error> {
        self.checkpoint()?.write_to(dir)
    }
}
