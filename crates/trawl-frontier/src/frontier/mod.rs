//! The frontier: per-queue FIFOs, the politeness clock, budgets and the uniq filter, in memory or on disk.

use std::{
    cmp::Reverse,
    collections::{BTreeSet, BinaryHeap},
    path::Path,
    time::{Duration, Instant},
};

use self::{
    later::Later,
    names::Names,
    uniq::{UniqFilter, fingerprint},
};
use crate::{
    Error, Item, Pace,
    queue::{CURSOR_END, Control, Entry, Queue, QueueInfo, SEQ_MIDDLE},
    store::{
        Record, Store, StoreCopy, Which, done_record, gone_record, is_queued, item_key,
        queue_range, queued_record, split_item_key, split_queued,
    },
};

mod disk;
mod later;
mod line;
mod names;
mod operator;
mod uniq;

pub use self::uniq::UrlStatus;

/// What a worker gets when it asks for work.
#[derive(Debug)]
pub enum Next<T> {
    /// An item to process now; hand it back with [`Frontier::finished`].
    Ready(Taken<T>),
    /// Nothing may be fetched before this instant (politeness, or an item due later), but items are waiting.
    WaitUntil(Instant),
    /// Items wait, but every queue holding them is at its connection limit, paused or retired (and nothing
    /// is due later).
    Busy,
    /// No item is queued, due later or in flight anywhere: the crawl is done.
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

/// An item taken from a queue, and the ticket that hands it back.
#[derive(Debug)]
pub struct Taken<T> {
    /// The item.
    pub item: T,
    /// The key of the queue it came from.
    pub queue: String,
    /// Identifies the item's record until it is finished.
    pub ticket: Ticket,
    /// When `next` may hand out another item: at the latest `now` (as given to `next`) for a ready queue, a
    /// waiting queue it could let in or an item come due; else the instant the first queue's delay ends or
    /// an item falls due; `None` when nothing else waits (what is in flight comes back through `finished`).
    /// A caller with idle helpers wakes one only when that is now, and otherwise sets its alarm for it (a
    /// wake-up finding nothing costs a thread hand-over; at a broad crawl's pace that was most of them).
    pub next_ready: Option<Instant>,
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
    /// Queue names and their ids; everything else knows a queue by its id.
    names: Names,
    /// Every queue, by id.
    queues: Vec<Queue<T>>,
    /// Active queues with items and spare connections, by their `not_before`; the sequence number keeps FIFO
    /// order among equal instants.
    ready: BinaryHeap<Reverse<(Instant, u64, u32)>>,
    /// Queues with items waiting for an active place, by precedence then arrival.
    waiting: BTreeSet<(u8, u64, u32)>,
    /// Active queues now, and how many to keep (more are activated only when none may be fetched from).
    active: usize,
    target_active: usize,
    /// Items a queue may hand out in one turn while others wait (0: no limit).
    balance: u64,
    tick: u64,
    /// When the frontier was made: a new queue may be fetched from at once, and new queues tie here, so
    /// they take turns in the order they were made whatever the clock's resolution.
    epoch: Instant,
    /// The wall clock at `epoch` (Unix milliseconds): queue records keep their rests in wall-clock time.
    epoch_wall_ms: u64,
    uniq: UniqFilter,
    /// Items due later (watchable revisits), moved into their queues when due.
    later: Later<T>,
    per_queue: usize,
    budget: Option<u64>,
    head_max: usize,
    queued: u64,
    in_flight: usize,
    /// Queues whose own record changed since the last commit (each marked `dirty`).
    dirty: Vec<u32>,
}

/// Items of one queue kept in memory when a store holds the rest.
const HEAD_MAX: usize = 16;

impl<T: Item> Frontier<T> {
    /// An in-memory frontier allowing `per_queue` items of one queue in flight at once (politeness: 1).
    pub fn in_memory(per_queue: usize) -> Frontier<T> {
        Frontier {
            store: None,
            names: Names::default(),
            queues: Vec::new(),
            ready: BinaryHeap::new(),
            waiting: BTreeSet::new(),
            active: 0,
            target_active: usize::MAX,
            balance: 0,
            tick: 0,
            epoch: Instant::now(),
            epoch_wall_ms: later::unix_ms(std::time::SystemTime::now()),
            uniq: UniqFilter::new(),
            later: Later::new(),
            per_queue: per_queue.max(1),
            budget: None,
            head_max: usize::MAX,
            queued: 0,
            in_flight: 0,
            dirty: Vec::new(),
        }
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
        if let Some(store) = &self.store {
            self.uniq.with_bloom(store, expected, fp_rate, lossy)?;
        }
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
        // While the places count as full, deactivating lets no one in and every queue joins the line.
        self.active = usize::MAX / 2;
        for id in 0..self.queues.len() as u32 {
            self.deactivate(id);
            self.enqueue_if_ready(id);
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
        self.uniq
            .contains(fingerprint(uniq_key), self.store.as_ref())
    }

    /// Marks `uniq_key` as seen without queueing anything; returns whether it was new.
    pub fn mark_seen(&mut self, uniq_key: &str) -> bool {
        let fp = fingerprint(uniq_key);
        if self.uniq.contains(fp, self.store.as_ref()) {
            return false;
        }
        self.uniq.add(fp, Vec::new(), self.store.as_mut());
        true
    }

    /// Marks a note kept beside the uniq keys, such as "this URI's refusal is logged" or "a browser page
    /// fetched this URI": looked up with [`Frontier::is_seen`] like a key, but no URI, so not counted in
    /// [`Frontier::discovered`]. Returns whether it was new.
    pub fn mark_note(&mut self, note: &str) -> bool {
        let fp = fingerprint(note);
        if self.uniq.contains(fp, self.store.as_ref()) {
            return false;
        }
        self.uniq.add_note(fp, self.store.as_mut());
        true
    }

    /// Marks the crawl.log line of `uniq_key`, a URI refused before it was queued (by the scope or a
    /// budget), written: a note, so it is logged once, counted in [`Frontier::refused`]. Returns whether it
    /// was new (the line is to be written).
    pub fn mark_refused(&mut self, uniq_key: &str) -> bool {
        let new = self.mark_note(&format!("cut {uniq_key}"));
        if new {
            self.uniq.refused += 1;
        }
        new
    }

    /// Queues `item` at the back of `queue` unless its uniq key was scheduled before or the queue is over
    /// budget.
    pub fn schedule(&mut self, queue: &str, item: T) -> Scheduled {
        let fp = fingerprint(item.uniq_key());
        let seen = self.uniq.contains(fp, self.store.as_ref());
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
            seen[i] = self.uniq.contains(fps[i], self.store.as_ref());
        }
        let mut over_budget = Vec::new();
        let results = batch
            .into_iter()
            .zip(fps)
            .zip(seen)
            // A key twice in the batch: the second is caught by the not-yet-committed set.
            .map(|(((queue, item), fp), seen)| {
                let seen = seen || self.uniq.is_recent(fp);
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
        let id = self.queue_id(queue);
        let q = &mut self.queues[id as usize];
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
            self.mark_dirty(id);
        }
        let record = self.push(id, fp, item, false, true);
        self.uniq.add(fp, record, self.store.as_mut());
        Ok(Scheduled::Queued)
    }

    /// Queues `item` at the front of `queue`, bypassing the uniq filter: for prerequisites, retries and an
    /// item put back to wait for one.
    pub fn schedule_first(&mut self, queue: &str, item: T) {
        let fp = fingerprint(item.uniq_key());
        let id = self.queue_id(queue);
        self.push(id, fp, item, true, false);
    }

    /// Queues `item` at the back of `queue`, bypassing the uniq filter: for an item that must wait its turn
    /// again.
    pub fn requeue(&mut self, queue: &str, item: T) {
        let fp = fingerprint(item.uniq_key());
        let id = self.queue_id(queue);
        self.push(id, fp, item, false, false);
    }

    /// Queues `item` at the back of `queue` at `at`, bypassing the uniq filter: for a URL visited again later
    /// (a watchable page). Until then it is kept with its due time (on disk with a store, so it survives a
    /// kill and is in checkpoints), and the frontier is not [`Next::Empty`].
    pub fn schedule_later(&mut self, queue: &str, item: T, at: Instant) {
        let fp = fingerprint(item.uniq_key());
        self.later.add(queue, fp, item, at, self.store.as_mut());
    }

    /// The id of the queue named `key`, made if there is none.
    fn queue_id(&mut self, key: &str) -> u32 {
        if let Some(id) = self.names.get(key) {
            return id;
        }
        let id = self.names.add(key);
        self.queues.push(Queue::new(self.epoch));
        self.mark_dirty(id);
        id
    }

    /// Notes that a queue's own record is to be written at the next commit.
    fn mark_dirty(&mut self, id: u32) {
        let q = &mut self.queues[id as usize];
        if !q.dirty {
            q.dirty = true;
            self.dirty.push(id);
        }
    }

    /// Queues an item; returns the key of its record (empty without a store).
    fn push(&mut self, id: u32, fp: u64, item: T, front: bool, filtered: bool) -> Vec<u8> {
        let head_max = self.head_max;
        let has_store = self.store.is_some();
        // What goes first (prerequisites, retries) goes before every precedence.
        let precedence = if front { 0 } else { item.precedence() };
        let q = &mut self.queues[id as usize];
        let seq = if front {
            q.front_seq -= 1;
            q.front_seq + 1
        } else {
            q.back_seq += 1;
            q.back_seq - 1
        };
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
        let head_len = q.head_len();
        let pos = q.hot.as_ref().map_or(0, |h| {
            h.head.partition_point(|e| e.order() < (precedence, seq))
        });
        let holds_all = head_len as u64 == q.len;
        if !has_store || (q.active && (pos < head_len || (holds_all && head_len < head_max))) {
            let head = &mut q.hot().head;
            head.insert(pos, entry);
            if has_store
                && head.len() > head_max
                && let Some(out) = head.pop_back()
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
        self.enqueue_if_ready(id);
        record
    }

    /// The next item whose queue may be fetched from at `now`.
    pub fn next(&mut self, now: Instant) -> Result<Next<T>, Error> {
        for (queue, fp, item) in self.later.take_due(now, self.store.as_mut())? {
            let id = self.queue_id(&queue);
            self.push(id, fp, item, false, false);
        }
        loop {
            self.drop_stale_top();
            let ready_now = matches!(self.ready.peek(), Some(Reverse((at, _, _))) if *at <= now);
            if !ready_now && self.activate_waiting(true) {
                continue;
            }
            let later = self.later.first();
            let Some(Reverse((at, _, _))) = self.ready.peek() else {
                return Ok(match later {
                    // An item due later is the next thing to wake for, busy or not.
                    Some(at) => Next::WaitUntil(at),
                    None if self.queued > 0 || self.in_flight > 0 => Next::Busy,
                    None => Next::Empty,
                });
            };
            if *at > now {
                return Ok(Next::WaitUntil(later.map_or(*at, |l| l.min(*at))));
            }
            let Reverse((_, tick, id)) = self.ready.pop().expect("peeked");
            let q = &mut self.queues[id as usize];
            if q.heap_tick != tick {
                // moved to an earlier place since (released, or an operator's shorter delay)
                continue;
            }
            q.in_heap = false;
            if !q.active || q.control != Control::Active || q.len == 0 {
                self.enqueue_if_ready(id);
                continue;
            }
            if q.not_before > now {
                // delayed after it was pushed (an operator's change): take its new place
                self.enqueue_if_ready(id);
                continue;
            }
            if q.head_len() == 0 {
                self.refill(id)?;
            }
            let q = &mut self.queues[id as usize];
            let Some(entry) = q.hot().head.pop_front() else {
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
            q.hot().in_flight.insert(entry.seq);
            q.session += 1;
            let turn_over = self.balance > 0 && q.session >= self.balance;
            self.queued -= 1;
            self.in_flight += 1;
            if turn_over && !self.waiting.is_empty() {
                self.rotate(id);
            } else {
                self.enqueue_if_ready(id);
            }
            self.drop_stale_top();
            let first = self.ready.peek().map(|Reverse((at, _, _))| *at);
            let next_ready = match (first, self.later.first()) {
                _ if !self.waiting.is_empty() => Some(now),
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            return Ok(Next::Ready(Taken {
                item: entry.item,
                queue: self.names.name(id).to_string(),
                next_ready,
                ticket: Ticket {
                    filtered: entry.filtered,
                    precedence: entry.precedence,
                    seq: entry.seq,
                    fp: entry.fp,
                },
            }));
        }
    }

    /// Hands back a taken item: its record is overwritten with its final `status` (kept for lookups), or
    /// without one marked gone (the caller queues it again, or drops it), and its queue may be fetched from
    /// again after the pace's delay (or the operator's delay for that queue, but never before the wait the
    /// server asked). Commits nothing (see [`Frontier::flush`]).
    pub fn finished(
        &mut self,
        queue: &str,
        ticket: Ticket,
        status: Option<i32>,
        now: Instant,
        pace: impl Into<Pace>,
    ) {
        let pace = pace.into();
        let Some(id) = self.names.get(queue) else {
            return;
        };
        let q = &mut self.queues[id as usize];
        if q.hot
            .as_mut()
            .is_some_and(|h| h.in_flight.remove(&ticket.seq))
        {
            self.in_flight = self.in_flight.saturating_sub(1);
            q.settle();
        }
        let delay = pace.rest(q.delay);
        if !pace.asked.is_zero() {
            let asked = crate::queue::rest_second(self.epoch, now + pace.asked);
            q.asked_s = q.asked_s.max(asked);
        }
        q.polite_at = q.polite_at.max(now + delay);
        q.not_before = q.not_before.max(q.polite_at);
        // The rest goes into the queue's record, so that a resume (even after a kill) does not send the host
        // a request early; recorded a little long, so a busy queue's record is rewritten at most every two
        // seconds.
        // The part the server asked goes there too, however long a rest is recorded already (review 71 R2: an
        // ask within an operator's longer rest was lost at a resume, and a shorter delay then cut it).
        let rest_s = crate::queue::rest_second(self.epoch, q.polite_at);
        let ask_unnoted = q.asked_s > q.asked_noted_s;
        if self.store.is_some() && q.polite_at > now && (rest_s > q.rest_noted_s || ask_unnoted) {
            q.rest_noted_s = q
                .rest_noted_s
                .max(rest_s.saturating_add(crate::queue::REST_PAD_S));
            if ask_unnoted {
                q.asked_noted_s = q.asked_s.saturating_add(crate::queue::REST_PAD_S);
            }
            self.mark_dirty(id);
        }
        let record = item_key(id, ticket.precedence, ticket.seq);
        // A finished item's uniq key is seen from now on, even if it came in bypassing the filter (a
        // prerequisite, a retry); the uniq key of one that did already points to this record.
        if status.is_some() && !ticket.filtered {
            self.uniq
                .finish(ticket.fp, record.clone(), self.store.as_mut());
        }
        if let Some(store) = &mut self.store {
            let value = match status {
                Some(status) => done_record(status, ticket.filtered),
                None => gone_record(ticket.filtered),
            };
            store.put(Which::Items, record, value);
        }
        self.enqueue_if_ready(id);
        // Nothing is committed here: the caller commits when what this outcome changed (its children, its
        // crawl.log line) can go to disk with it.
    }

    /// Items waiting in queues (not counting those in flight or due later).
    pub fn queued(&self) -> u64 {
        self.queued
    }

    /// Items due later (see [`Frontier::schedule_later`]).
    pub fn due_later(&self) -> usize {
        self.later.len()
    }

    /// Items taken and not yet finished.
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Queues that hold items or items in flight.
    pub fn active_queues(&self) -> usize {
        self.queues
            .iter()
            .filter(|q| q.len > 0 || q.in_flight_len() > 0)
            .count()
    }

    /// Distinct uniq keys scheduled or marked seen so far (notes not counted).
    pub fn discovered(&self) -> u64 {
        self.uniq.discovered
    }

    /// Distinct URIs refused before they were queued whose lines were written ([`Frontier::mark_refused`];
    /// a store written before they were counted counts those of later runs only).
    pub fn refused(&self) -> u64 {
        self.uniq.refused
    }

    /// Bytes the store takes on disk (0 in memory).
    pub fn disk_bytes(&self) -> u64 {
        self.store.as_ref().map_or(0, Store::disk_bytes)
    }
}

const _: () = assert!(SEQ_MIDDLE > 1 << 62);

#[cfg(test)]
mod tests;
