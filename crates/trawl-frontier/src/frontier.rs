//! The frontier: per-queue FIFOs, the politeness clock, budgets and the uniq filter, in memory or on disk.

use std::{
    cmp::Reverse,
    collections::{BTreeSet, BinaryHeap},
    path::Path,
    time::{Duration, Instant},
};

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use xxhash_rust::xxh3::xxh3_64;

use crate::{
    Error, Item,
    queue::{CURSOR_END, Control, Entry, Queue, QueueInfo, SEQ_MIDDLE},
    store::{
        Record, Store, Which, done_record, gone_record, is_queued, item_key, queue_range,
        queued_record, split_item_key, split_queued,
    },
};

/// What a worker gets when it asks for work.
#[derive(Debug)]
pub enum Next<T> {
    /// An item to process now; hand it back with [`Frontier::finished`].
    Ready(Taken<T>),
    /// Nothing may be fetched before this instant (politeness), but items are waiting.
    WaitUntil(Instant),
    /// Items wait, but every queue holding them is at its connection limit, paused or retired.
    Busy,
    /// No item is queued or in flight anywhere: the crawl is done.
    Empty,
}

/// What [`Frontier::schedule`] did with an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheduled {
    /// Queued.
    Queued,
    /// Its uniq key was scheduled before.
    Duplicate,
    /// Its queue has spent its budget.
    OverBudget,
}

/// What is known of a URL, by its uniq key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlStatus {
    /// Never scheduled.
    Unknown,
    /// Queued or being fetched.
    Queued,
    /// Finished with this status.
    Done(i32),
}

/// An item taken from a queue, and the ticket that hands it back.
#[derive(Debug)]
pub struct Taken<T> {
    /// The item.
    pub item: T,
    /// The key of the queue it came from.
    pub queue: String,
    /// Identifies the item's record until it is finished.
    pub ticket: Ticket,
}

/// Identifies a taken item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ticket {
    filtered: bool,
    precedence: u8,
    seq: u64,
    fp: u64,
}

/// The frontier: one queue per politeness key (items in order of precedence, then FIFO), ready queues ordered
/// by their next allowed fetch time.
///
/// With a store ([`Frontier::open`]) every queued item and every uniq key is on disk, and only the active
/// queues (see [`Frontier::with_active_queues`]) hold a few head items in memory; [`Frontier::in_memory`]
/// keeps everything in memory (tests, tools).
#[derive(Debug)]
pub struct Frontier<T> {
    store: Option<Store>,
    queues: HashMap<String, Queue<T>>,
    next_queue_id: u32,
    /// Active queues with items and spare connections, by their `not_before`; the sequence number keeps FIFO
    /// order among equal instants.
    ready: BinaryHeap<Reverse<(Instant, u64, String)>>,
    /// Queues with items waiting for an active place, by precedence then arrival.
    waiting: BTreeSet<(u8, u64, String)>,
    /// Active queues now, and how many to keep (more are activated only when none may be fetched from).
    active: usize,
    target_active: usize,
    /// Items a queue may hand out in one turn while others wait (0: no limit).
    balance: u64,
    tick: u64,
    /// When the frontier was made: a new queue may be fetched from at once, and new queues tie here, so
    /// they take turns in the order they were made whatever the clock's resolution.
    epoch: Instant,
    /// Fingerprints of uniq keys: all of them in memory mode; with a store, the most recent ones (at least
    /// those not yet committed), so that the usual duplicate (a link every page of a site repeats) is caught
    /// without a disk lookup, like Mercator's cache of popular URLs.
    seen: HashSet<u64>,
    /// With a store: the generation of recent fingerprints before `seen`.
    recent: HashSet<u64>,
    /// With a store: a Bloom filter of every fingerprint, so that most new keys (the usual case) are known to
    /// be new without a disk lookup; in lossy mode it is the whole filter.
    bloom: Option<fastbloom::BloomFilter>,
    lossy: bool,
    per_queue: usize,
    budget: Option<u64>,
    head_max: usize,
    queued: u64,
    in_flight: usize,
    discovered: u64,
    dirty: HashSet<String>,
}

/// Recent uniq fingerprints kept in memory per generation (two generations: about 32 MiB at most).
const RECENT_MAX: usize = 1 << 20;

/// Items of one queue kept in memory when a store holds the rest.
const HEAD_MAX: usize = 16;

fn fingerprint(key: &str) -> u64 {
    xxh3_64(key.as_bytes())
}

impl<T: Item> Frontier<T> {
    /// An in-memory frontier allowing `per_queue` items of one queue in flight at once (politeness: 1).
    pub fn in_memory(per_queue: usize) -> Frontier<T> {
        Frontier {
            store: None,
            queues: HashMap::new(),
            next_queue_id: 0,
            ready: BinaryHeap::new(),
            waiting: BTreeSet::new(),
            active: 0,
            target_active: usize::MAX,
            balance: 0,
            tick: 0,
            epoch: Instant::now(),
            seen: HashSet::new(),
            recent: HashSet::new(),
            bloom: None,
            lossy: false,
            per_queue: per_queue.max(1),
            budget: None,
            head_max: usize::MAX,
            queued: 0,
            in_flight: 0,
            discovered: 0,
            dirty: HashSet::new(),
        }
    }

    /// Opens the on-disk frontier in `dir` (creating it), restoring every queue and item: items that were in
    /// flight when the process stopped are queued again.
    pub fn open(dir: &Path, per_queue: usize) -> Result<Frontier<T>, Error> {
        let store = Store::open(dir)?;
        let mut f = Frontier::in_memory(per_queue);
        let now = f.epoch;
        f.head_max = HEAD_MAX;
        let mut by_id: HashMap<u32, String> = HashMap::new();
        for kv in store.queues.iter() {
            let (k, v) = kv.into_inner().map_err(|e| store.err(e))?;
            let name = String::from_utf8(k.to_vec()).map_err(|_| Error::Corrupt {
                path: store.path().to_path_buf(),
                what: "queue name",
            })?;
            let q = Queue::from_record(&v, now).ok_or_else(|| Error::Corrupt {
                path: store.path().to_path_buf(),
                what: "queue",
            })?;
            f.next_queue_id = f.next_queue_id.max(q.id + 1);
            by_id.insert(q.id, name.clone());
            f.queues.insert(name, q);
        }
        // Every record counts for the sequence numbers (no key is used twice) and, if its item came through
        // the uniq filter, for what the queue has spent; queued ones for its length, and the first of them
        // is where refills start.
        let mut spent: HashMap<u32, u64> = HashMap::new();
        for kv in store.items.iter() {
            let (key, value) = kv.into_inner().map_err(|e| store.err(e))?;
            let corrupt = |what| Error::Corrupt {
                path: store.path().to_path_buf(),
                what,
            };
            let (id, precedence, seq) = split_item_key(&key).ok_or_else(|| corrupt("item key"))?;
            let (record, filtered) = Record::parse(&value).ok_or_else(|| corrupt("item"))?;
            let Some(q) = by_id.get(&id).and_then(|n| f.queues.get_mut(n)) else {
                return Err(corrupt("item of unknown queue"));
            };
            q.front_seq = q.front_seq.min(seq.saturating_sub(1));
            q.back_seq = q.back_seq.max(seq + 1);
            *spent.entry(id).or_default() += u64::from(filtered);
            if record == Record::Queued {
                q.len += 1;
                q.cursor = q.cursor.min((precedence, seq));
                f.queued += 1;
            }
        }
        for q in f.queues.values_mut() {
            q.spent = q.spent.max(spent.get(&q.id).copied().unwrap_or(0));
        }
        f.discovered = store.seen.len().map_err(|e| store.err(e))? as u64;
        f.store = Some(store);
        let names: Vec<String> = f.queues.keys().cloned().collect();
        for name in names {
            f.enqueue_if_ready(&name);
        }
        Ok(f)
    }

    /// Puts a Bloom filter sized for `expected` keys at false-positive rate `fp_rate` in front of the on-disk
    /// uniq filter (rebuilt from the store). With `lossy`, the Bloom filter alone decides: no disk lookups,
    /// bounded memory, and a new URL is wrongly taken for seen at about `fp_rate` (Heritrix's BloomUriUniqFilter).
    /// Without a store this does nothing.
    pub fn with_bloom(
        mut self,
        expected: usize,
        fp_rate: f64,
        lossy: bool,
    ) -> Result<Frontier<T>, Error> {
        let Some(store) = &self.store else {
            return Ok(self);
        };
        let mut bloom = fastbloom::BloomFilter::with_false_pos(fp_rate.clamp(1e-9, 0.5))
            .expected_items(expected.max(1000));
        for kv in store.seen.iter() {
            let k = kv.key().map_err(|e| store.err(e))?;
            if let Ok(bytes) = <[u8; 8]>::try_from(&k[..]) {
                bloom.insert(&u64::from_be_bytes(bytes));
            }
        }
        for fp in &self.seen {
            bloom.insert(fp);
        }
        self.bloom = Some(bloom);
        self.lossy = lossy;
        Ok(self)
    }

    /// Keeps about `target` queues active (Heritrix's balance/replenish): only active queues are in line for
    /// fetching and hold head items in memory, so memory follows `target`, not the number of queues. A queue
    /// that has handed out `balance` items in one turn (0: no limit) goes to the back of the line if others
    /// wait; waiting queues are activated lowest queue precedence first. When no active queue may be fetched
    /// from now, more are activated, so politeness delays never leave workers idle while work waits.
    pub fn with_active_queues(mut self, target: usize, balance: u64) -> Frontier<T> {
        self.target_active = target.max(1);
        self.balance = balance;
        // Every queue with work gets in line (by precedence, then creation), and the best are let in.
        let mut names: Vec<(u32, String)> =
            self.queues.iter().map(|(k, q)| (q.id, k.clone())).collect();
        names.sort();
        // While the places count as full, deactivating lets no one in and every queue joins the line.
        self.active = usize::MAX / 2;
        for (_, name) in &names {
            self.deactivate(name);
            self.enqueue_if_ready(name);
        }
        self.active = 0;
        self.activate_waiting(false);
        self
    }

    /// Limits every queue to `budget` scheduled items in all (prerequisites and retries not counted).
    pub fn with_budget(mut self, budget: Option<u64>) -> Frontier<T> {
        self.budget = budget;
        self
    }

    /// Whether `uniq_key` was scheduled or marked seen.
    pub fn is_seen(&self, uniq_key: &str) -> bool {
        self.seen_fp(fingerprint(uniq_key))
    }

    fn seen_fp(&self, fp: u64) -> bool {
        if self.seen.contains(&fp) || self.recent.contains(&fp) {
            return true;
        }
        if let Some(bloom) = &self.bloom {
            let maybe = bloom.contains(&fp);
            if !maybe || self.lossy {
                return maybe;
            }
        }
        self.store
            .as_ref()
            .is_some_and(|s| s.seen.contains_key(fp.to_be_bytes()).unwrap_or(false))
    }

    /// Marks `uniq_key` as seen without queueing anything; returns whether it was new.
    pub fn mark_seen(&mut self, uniq_key: &str) -> bool {
        let fp = fingerprint(uniq_key);
        if self.seen_fp(fp) {
            return false;
        }
        self.add_seen(fp, Vec::new());
        true
    }

    /// Marks a fingerprint seen; with a store, `record` is the key of the item record that holds its item
    /// and later its status (empty for none).
    fn add_seen(&mut self, fp: u64, record: Vec<u8>) {
        self.seen.insert(fp);
        if let Some(bloom) = &mut self.bloom {
            bloom.insert(&fp);
        }
        self.discovered += 1;
        if let Some(store) = &mut self.store {
            store.put(Which::Seen, fp.to_be_bytes().to_vec(), record);
        }
    }

    /// Queues `item` at the back of `queue` unless its uniq key was scheduled before or the queue is over
    /// budget.
    pub fn schedule(&mut self, queue: &str, item: T) -> Scheduled {
        let fp = fingerprint(item.uniq_key());
        let seen = self.seen_fp(fp);
        self.schedule_checked(queue, item, fp, seen)
            .unwrap_or(Scheduled::OverBudget)
    }

    /// [`Frontier::schedule`] for many items (a page's outlinks), with the uniq filter's disk lookups made
    /// in fingerprint order first: like Mercator's and DRUM's batched checks, they walk the store's sorted keys
    /// forward instead of jumping around it. Returns what became of each item, in order, and the items
    /// refused as [`Scheduled::OverBudget`] (for the caller to log), in order.
    pub fn schedule_batch(&mut self, batch: Vec<(String, T)>) -> (Vec<Scheduled>, Vec<T>) {
        let fps: Vec<u64> = batch
            .iter()
            .map(|(_, item)| fingerprint(item.uniq_key()))
            .collect();
        let mut order: Vec<usize> = (0..fps.len()).collect();
        order.sort_unstable_by_key(|&i| fps[i]);
        let mut seen = vec![false; fps.len()];
        for i in order {
            seen[i] = self.seen_fp(fps[i]);
        }
        let mut over_budget = Vec::new();
        let results = batch
            .into_iter()
            .zip(fps)
            .zip(seen)
            // A key twice in the batch: the second is caught by the not-yet-committed set.
            .map(|(((queue, item), fp), seen)| {
                let seen = seen || self.seen.contains(&fp);
                self.schedule_checked(&queue, item, fp, seen)
                    .unwrap_or_else(|item| {
                        over_budget.push(item);
                        Scheduled::OverBudget
                    })
            })
            .collect();
        (results, over_budget)
    }

    /// Queues `item` unless `seen`; gives it back when its queue is over budget.
    fn schedule_checked(
        &mut self,
        queue: &str,
        item: T,
        fp: u64,
        seen: bool,
    ) -> Result<Scheduled, T> {
        if seen {
            return Ok(Scheduled::Duplicate);
        }
        let budget = self.budget;
        let q = self.queue_mut(queue);
        if q.budget
            .or(item.queue_budget())
            .or(budget)
            .is_some_and(|b| q.spent >= b)
        {
            return Err(item);
        }
        // What it spent is counted from its item records on reopening: its own record is written only when
        // something else changes.
        q.spent += 1;
        if item.queue_precedence() < q.precedence {
            q.precedence = item.queue_precedence();
            self.dirty.insert(queue.to_string());
        }
        let record = self.push(queue, fp, item, false, true);
        self.add_seen(fp, record);
        Ok(Scheduled::Queued)
    }

    /// Queues `item` at the front of `queue`, bypassing the uniq filter: for prerequisites, retries and an
    /// item put back to wait for one.
    pub fn schedule_first(&mut self, queue: &str, item: T) {
        let fp = fingerprint(item.uniq_key());
        self.push(queue, fp, item, true, false);
    }

    /// Queues `item` at the back of `queue`, bypassing the uniq filter: for an item that must wait its turn
    /// again (a revisit).
    pub fn requeue(&mut self, queue: &str, item: T) {
        let fp = fingerprint(item.uniq_key());
        self.push(queue, fp, item, false, false);
    }

    fn queue_mut(&mut self, key: &str) -> &mut Queue<T> {
        if !self.queues.contains_key(key) {
            let q = Queue::new(self.next_queue_id, self.epoch);
            self.next_queue_id += 1;
            self.queues.insert(key.to_string(), q);
            self.dirty.insert(key.to_string());
        }
        self.queues.get_mut(key).expect("inserted above")
    }

    /// Queues an item; returns the key of its record (empty without a store).
    fn push(&mut self, key: &str, fp: u64, item: T, front: bool, filtered: bool) -> Vec<u8> {
        let head_max = self.head_max;
        let has_store = self.store.is_some();
        // What goes first (prerequisites, retries) goes before every precedence.
        let precedence = if front { 0 } else { item.precedence() };
        let q = self.queue_mut(key);
        let seq = if front {
            q.front_seq -= 1;
            q.front_seq + 1
        } else {
            q.back_seq += 1;
            q.back_seq - 1
        };
        let id = q.id;
        let mut bytes = None;
        if has_store {
            let mut v = queued_record(fp, filtered);
            item.encode(&mut v);
            bytes = Some(v);
        }
        let entry = Entry {
            filtered,
            precedence,
            seq,
            fp,
            item,
        };
        // The head holds the queue's first items in order (all of them without a store): an item joins it
        // if it sorts before its last one, or if the head holds everything and has room. Inactive queues keep
        // nothing in memory.
        let pos = q.head.partition_point(|e| e.order() < (precedence, seq));
        let holds_all = q.head.len() as u64 == q.len;
        if !has_store
            || (q.active && (pos < q.head.len() || (holds_all && q.head.len() < head_max)))
        {
            q.head.insert(pos, entry);
            if has_store
                && q.head.len() > head_max
                && let Some(out) = q.head.pop_back()
            {
                q.on_disk(out.order());
            }
        } else {
            q.on_disk((precedence, seq));
        }
        q.len += 1;
        self.queued += 1;
        let mut record = Vec::new();
        if let (Some(store), Some(v)) = (&mut self.store, bytes) {
            record = item_key(id, precedence, seq);
            store.put(Which::Items, record.clone(), v);
        }
        self.enqueue_if_ready(key);
        record
    }

    /// Puts a queue where it belongs now: deactivated when it has no work to hand out, activated (or in line
    /// for it) when it has, and in the ready heap when active with a spare connection.
    fn enqueue_if_ready(&mut self, key: &str) {
        let Some(q) = self.queues.get_mut(key) else {
            return;
        };
        if q.len == 0 || q.control != Control::Active {
            self.deactivate(key);
            return;
        }
        if !q.active && self.active >= self.target_active {
            if !q.waiting {
                q.waiting = true;
                self.tick += 1;
                self.waiting
                    .insert((q.precedence, self.tick, key.to_string()));
            }
            return;
        }
        self.admit(key);
    }

    /// Gives a queue an active place, and a place in the ready heap if it has a spare connection.
    fn admit(&mut self, key: &str) {
        let Some(q) = self.queues.get_mut(key) else {
            return;
        };
        if !q.active {
            q.active = true;
            q.session = 0;
            self.active += 1;
        }
        if !q.in_heap && q.in_flight.len() < self.per_queue {
            q.in_heap = true;
            self.tick += 1;
            q.heap_tick = self.tick;
            self.ready
                .push(Reverse((q.not_before, self.tick, key.to_string())));
        }
    }

    /// Takes a queue out of the active places (its head leaves memory when a store holds it) and lets the
    /// next waiting queue in.
    fn deactivate(&mut self, key: &str) {
        let has_store = self.store.is_some();
        let Some(q) = self.queues.get_mut(key) else {
            return;
        };
        if !q.active {
            return;
        }
        q.active = false;
        q.session = 0;
        if has_store {
            if let Some(first) = q.head.front() {
                let first = first.order();
                q.rewind(first);
            }
            q.head.clear();
        }
        self.active -= 1;
        self.activate_waiting(false);
    }

    /// Activates waiting queues, lowest precedence first: up to the target, or (with `one_more`) one beyond
    /// it. Returns whether one was activated.
    fn activate_waiting(&mut self, one_more: bool) -> bool {
        while one_more || self.active < self.target_active {
            let Some((_, _, key)) = self.waiting.pop_first() else {
                return false;
            };
            let Some(q) = self.queues.get_mut(&key) else {
                continue;
            };
            q.waiting = false;
            if q.active || q.len == 0 || q.control != Control::Active {
                continue;
            }
            self.admit(&key);
            if one_more {
                return true;
            }
        }
        false
    }

    /// Ends a queue's turn: to the back of its precedence's line, letting the next one in.
    fn rotate(&mut self, key: &str) {
        self.deactivate(key);
        self.enqueue_if_ready(key);
    }

    /// The next item whose queue may be fetched from at `now`.
    pub fn next(&mut self, now: Instant) -> Result<Next<T>, Error> {
        loop {
            self.drop_stale_top();
            let ready_now = matches!(self.ready.peek(), Some(Reverse((at, _, _))) if *at <= now);
            if !ready_now && self.activate_waiting(true) {
                continue;
            }
            let Some(Reverse((at, _, _))) = self.ready.peek() else {
                return Ok(if self.queued == 0 && self.in_flight == 0 {
                    Next::Empty
                } else {
                    Next::Busy
                });
            };
            if *at > now {
                return Ok(Next::WaitUntil(*at));
            }
            let Reverse((_, tick, key)) = self.ready.pop().expect("peeked");
            let Some(q) = self.queues.get_mut(&key) else {
                continue;
            };
            if q.heap_tick != tick {
                // moved to an earlier place since (released, or an operator's shorter delay)
                continue;
            }
            q.in_heap = false;
            if !q.active || q.control != Control::Active || q.len == 0 {
                self.enqueue_if_ready(&key);
                continue;
            }
            if q.not_before > now {
                // delayed after it was pushed (an operator's change): take its new place
                self.enqueue_if_ready(&key);
                continue;
            }
            if q.head.is_empty() {
                self.refill(&key)?;
            }
            let q = self.queues.get_mut(&key).expect("exists");
            let Some(entry) = q.head.pop_front() else {
                return Err(Error::Corrupt {
                    path: self
                        .store
                        .as_ref()
                        .map(|s| s.path().to_path_buf())
                        .unwrap_or_default(),
                    what: "queue shorter than its count",
                });
            };
            q.len -= 1;
            q.in_flight.insert(entry.seq);
            q.session += 1;
            let turn_over = self.balance > 0 && q.session >= self.balance;
            self.queued -= 1;
            self.in_flight += 1;
            if turn_over && !self.waiting.is_empty() {
                self.rotate(&key);
            } else {
                self.enqueue_if_ready(&key);
            }
            return Ok(Next::Ready(Taken {
                item: entry.item,
                queue: key,
                ticket: Ticket {
                    filtered: entry.filtered,
                    precedence: entry.precedence,
                    seq: entry.seq,
                    fp: entry.fp,
                },
            }));
        }
    }

    /// Pops the ready heap's stale entries off its top (their queue was repositioned or left the heap since),
    /// so that `next` never reports a wait for an entry that would hand out nothing: a released hold would
    /// otherwise keep the workers waiting until the hold's time, and a finished crawl from ending.
    fn drop_stale_top(&mut self) {
        while let Some(Reverse((_, tick, key))) = self.ready.peek() {
            let live = matches!(self.queues.get(key), Some(q) if q.in_heap && q.heap_tick == *tick);
            if live {
                return;
            }
            self.ready.pop();
        }
    }

    /// Loads the next items of a queue from disk into memory.
    fn refill(&mut self, key: &str) -> Result<(), Error> {
        let Some(store) = &mut self.store else {
            return Ok(());
        };
        let q = self.queues.get_mut(key).expect("caller checked");
        // Strays first: they sort before the cursor.
        let mut found = Vec::new();
        while found.len() < self.head_max
            && let Some((precedence, seq)) = q.strays.pop_first()
        {
            let k = item_key(q.id, precedence, seq);
            if let Some(v) = store.get(Which::Items, &k)?
                && is_queued(&v)
            {
                found.push((k, v));
            }
        }
        let want = self.head_max - found.len();
        if want > 0 && q.cursor != CURSOR_END {
            let (_, to) = queue_range(q.id);
            let from = item_key(q.id, q.cursor.0, q.cursor.1);
            let in_flight = &q.in_flight;
            let read = store.items_in(&from, &to, want, |k, v| {
                is_queued(v)
                    && split_item_key(k).is_some_and(|(_, _, seq)| !in_flight.contains(&seq))
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
            q.head.push_back(Entry {
                filtered,
                precedence,
                seq,
                fp,
                item,
            });
        }
        Ok(())
    }

    /// Hands back a taken item: its record is overwritten with its final `status` (kept for lookups), or
    /// without one marked gone (the caller queues it again, or drops it), and its queue may be fetched from
    /// again after `delay` (or the operator's delay for that queue).
    pub fn finished(
        &mut self,
        queue: &str,
        ticket: Ticket,
        status: Option<i32>,
        now: Instant,
        delay: Duration,
    ) {
        let Some(q) = self.queues.get_mut(queue) else {
            return;
        };
        if q.in_flight.remove(&ticket.seq) {
            self.in_flight = self.in_flight.saturating_sub(1);
        }
        let delay = q.delay.unwrap_or(delay);
        q.polite_at = q.polite_at.max(now + delay);
        q.not_before = q.not_before.max(q.polite_at);
        let record = item_key(q.id, ticket.precedence, ticket.seq);
        // A finished item's uniq key is seen from now on, even if it came in bypassing the filter (a
        // prerequisite, a retry); the uniq key of one that did already points to this record.
        if status.is_some() && !ticket.filtered {
            if self.seen_fp(ticket.fp) {
                if let Some(store) = &mut self.store {
                    store.put(
                        Which::Seen,
                        ticket.fp.to_be_bytes().to_vec(),
                        record.clone(),
                    );
                }
            } else {
                self.add_seen(ticket.fp, record.clone());
            }
        }
        if let Some(store) = &mut self.store {
            let value = match status {
                Some(status) => done_record(status, ticket.filtered),
                None => gone_record(ticket.filtered),
            };
            store.put(Which::Items, record, value);
        }
        self.enqueue_if_ready(queue);
        if self.store.as_ref().is_some_and(Store::wants_commit) {
            // A failure here surfaces at the next explicit flush.
            let _ = self.flush_behind();
        }
    }

    /// Commits every change so far to disk (atomically, surviving the process being killed) and returns once
    /// they are written. Call it often (the engine does after every finished URI, so that a kill makes it
    /// fetch again only what was in flight); without a store it does nothing.
    pub fn flush(&mut self) -> Result<(), Error> {
        self.commit_changes(true)
    }

    /// [`Frontier::flush`] without waiting: a committer thread writes the changes while the caller goes on
    /// (the next flush waits for it first). For batched work, where a kill may lose the batch in flight as
    /// well as the pending one; `bench/frontier` measures this mode.
    pub fn flush_behind(&mut self) -> Result<(), Error> {
        self.commit_changes(false)
    }

    /// Adds the changed queues' records to the pending batch and commits it, waiting for it or not.
    fn commit_changes(&mut self, wait: bool) -> Result<(), Error> {
        let Some(store) = &mut self.store else {
            return Ok(());
        };
        for name in self.dirty.drain() {
            if let Some(q) = self.queues.get(&name) {
                store.put(Which::Queues, name.into_bytes(), q.record());
            }
        }
        if wait {
            store.commit()?;
        } else {
            store.start_commit()?;
        }
        // Two generations of recent fingerprints: memory stays under 2 x RECENT_MAX of them.
        if self.seen.len() >= RECENT_MAX {
            self.recent = std::mem::take(&mut self.seen);
        }
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

    /// Flushes, then writes a consistent copy of the store into `dir`, which [`Frontier::open`] can open
    /// later (a checkpoint). Fails without a store.
    pub fn checkpoint_to(&mut self, dir: &Path) -> Result<(), Error> {
        self.flush()?;
        match &self.store {
            Some(store) => store.copy_to(dir),
            None => Err(Error::Store {
                path: dir.to_path_buf(),
                message: "an in-memory frontier cannot be checkpointed".into(),
            }),
        }
    }

    /// What is known of `uniq_key`.
    pub fn lookup(&self, uniq_key: &str) -> Result<UrlStatus, Error> {
        let fp = fingerprint(uniq_key);
        let Some(store) = &self.store else {
            return Ok(if self.seen.contains(&fp) {
                UrlStatus::Queued
            } else {
                UrlStatus::Unknown
            });
        };
        // The uniq key's record (committed, or in the batch not yet written), then the item record it
        // points to.
        let record = match store.get(Which::Seen, &fp.to_be_bytes())? {
            Some(record) => record,
            None => return Ok(UrlStatus::Unknown),
        };
        if record.is_empty() {
            return Ok(UrlStatus::Queued);
        }
        let item = store.get(Which::Items, &record)?;
        Ok(match item.as_deref().and_then(Record::parse) {
            Some((Record::Done(status), _)) => UrlStatus::Done(status),
            // queued, in flight, or handed back to be queued again
            _ => UrlStatus::Queued,
        })
    }

    /// Every queue that ever held an item, with its state now, busiest first.
    pub fn queue_infos(&self, now: Instant) -> Vec<QueueInfo> {
        let mut infos: Vec<QueueInfo> = self
            .queues
            .iter()
            .map(|(name, q)| QueueInfo {
                name: name.clone(),
                state: q.state(now, self.per_queue, self.budget),
                queued: q.len,
                in_flight: q.in_flight.len(),
                spent: q.spent,
                budget: q.budget.or(self.budget),
                delay: q.delay,
                wait: q.not_before.saturating_duration_since(now),
            })
            .collect();
        infos.sort_by(|a, b| b.queued.cmp(&a.queued).then_with(|| a.name.cmp(&b.name)));
        infos
    }

    /// Pauses, unpauses (`Control::Active`) or retires a queue; false if there is no such queue.
    pub fn set_control(&mut self, queue: &str, control: Control) -> bool {
        let Some(q) = self.queues.get_mut(queue) else {
            return false;
        };
        q.control = control;
        self.dirty.insert(queue.to_string());
        self.enqueue_if_ready(queue);
        true
    }

    /// Sets (or with `None` clears) an operator's politeness delay for a queue, replacing the computed one.
    pub fn set_delay(&mut self, queue: &str, delay: Option<Duration>) -> bool {
        let Some(q) = self.queues.get_mut(queue) else {
            return false;
        };
        q.delay = delay;
        if let Some(d) = delay {
            let at = Instant::now() + d;
            q.polite_at = q.polite_at.min(at);
            if at < q.not_before {
                q.not_before = at;
                self.reposition(queue);
            }
        }
        self.dirty.insert(queue.to_string());
        true
    }

    /// Keeps `queue` from handing out items until `until` or [`Frontier::release`], whichever comes first:
    /// for a queue whose items wait on a prerequisite fetched through another ticket (robots.txt), so that
    /// it neither spins nor waits longer than the prerequisite takes.
    pub fn hold(&mut self, queue: &str, until: Instant) {
        if let Some(q) = self.queues.get_mut(queue) {
            // A later time than its heap entry's: `next` finds it out when it pops the entry.
            q.not_before = q.not_before.max(until);
        }
    }

    /// Ends a [`Frontier::hold`]: the queue may hand out items as soon as politeness lets it.
    pub fn release(&mut self, queue: &str) {
        let Some(q) = self.queues.get_mut(queue) else {
            return;
        };
        if q.not_before > q.polite_at {
            q.not_before = q.polite_at;
            self.reposition(queue);
        }
    }

    /// Gives a queue whose `not_before` moved earlier a new place in the ready heap (its old entry goes
    /// stale).
    fn reposition(&mut self, queue: &str) {
        if let Some(q) = self.queues.get_mut(queue) {
            q.in_heap = false;
        }
        self.enqueue_if_ready(queue);
    }

    /// Sets (or with `None` clears) a queue's own budget.
    pub fn set_budget(&mut self, queue: &str, budget: Option<u64>) -> bool {
        let Some(q) = self.queues.get_mut(queue) else {
            return false;
        };
        q.budget = budget;
        self.dirty.insert(queue.to_string());
        true
    }

    /// Drops every waiting item of a queue (items in flight finish); returns how many were dropped.
    pub fn delete_queued(&mut self, queue: &str) -> Result<u64, Error> {
        let Some(q) = self.queues.get_mut(queue) else {
            return Ok(0);
        };
        let dropped = q.len;
        q.head.clear();
        q.cursor = CURSOR_END;
        q.strays.clear();
        q.len = 0;
        self.queued -= dropped;
        if let Some(store) = &mut self.store {
            store.commit()?;
            let (from, to) = queue_range(q.id);
            let mut dropped = Vec::new();
            for kv in store.items.range(from..=to) {
                let (k, v) = kv.into_inner().map_err(|e| store.err(e))?;
                // finished items keep their status
                if let Some((Record::Queued, filtered)) = Record::parse(&v)
                    && let Some((_, _, seq)) = split_item_key(&k)
                    && !q.in_flight.contains(&seq)
                {
                    dropped.push((k.to_vec(), filtered));
                }
            }
            for (k, filtered) in dropped {
                store.put(Which::Items, k, gone_record(filtered));
            }
            store.commit()?;
        }
        self.enqueue_if_ready(queue);
        Ok(dropped)
    }

    /// Items waiting in queues (not counting those in flight).
    pub fn queued(&self) -> u64 {
        self.queued
    }

    /// Items taken and not yet finished.
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Queues that hold items or items in flight.
    pub fn active_queues(&self) -> usize {
        self.queues
            .values()
            .filter(|q| q.len > 0 || !q.in_flight.is_empty())
            .count()
    }

    /// Distinct uniq keys scheduled or marked seen so far.
    pub fn discovered(&self) -> u64 {
        self.discovered
    }

    /// Bytes the store takes on disk (0 in memory).
    pub fn disk_bytes(&self) -> u64 {
        self.store.as_ref().map_or(0, Store::disk_bytes)
    }
}

const _: () = assert!(SEQ_MIDDLE > 1 << 62);

#[cfg(test)]
mod tests;
