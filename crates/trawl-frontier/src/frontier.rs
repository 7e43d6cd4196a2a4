//! Per-queue FIFOs and the politeness clock.

use std::{
    cmp::Reverse,
    collections::{BinaryHeap, HashMap, VecDeque},
    time::{Duration, Instant},
};

use crate::UniqFilter;

/// What a worker gets when it asks for work.
#[derive(Debug)]
pub enum Next<T> {
    /// An item to process now; hand its queue back with [`Frontier::finished`].
    Ready(Taken<T>),
    /// Nothing may be fetched before this instant (politeness), but items are waiting.
    WaitUntil(Instant),
    /// Every non-empty queue is at its connection limit; ask again after a `finished`.
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

/// An item taken from a queue.
#[derive(Debug)]
pub struct Taken<T> {
    /// The item.
    pub item: T,
    /// The key of the queue it came from.
    pub queue: String,
}

#[derive(Debug)]
struct Queue<T> {
    items: VecDeque<T>,
    in_flight: usize,
    /// The earliest instant the next item may be taken.
    not_before: Instant,
    /// Whether the queue's key is in the ready heap (at most once).
    in_heap: bool,
}

/// The frontier: one FIFO per politeness key, ready queues ordered by their next allowed fetch time.
#[derive(Debug)]
pub struct Frontier<T> {
    queues: HashMap<String, Queue<T>>,
    /// Queues with items and spare connections, by their `not_before`; the sequence number keeps FIFO order
    /// among equal instants.
    ready: BinaryHeap<Reverse<(Instant, u64, String)>>,
    seq: u64,
    uniq: UniqFilter,
    per_queue: usize,
    /// Most items one queue may ever be given (`None`: no limit), and what each queue was given so far.
    budget: Option<u64>,
    spent: HashMap<String, u64>,
    queued: usize,
    in_flight: usize,
}

impl<T> Frontier<T> {
    /// A frontier allowing `per_queue` items of one queue in flight at once (politeness: 1).
    pub fn new(per_queue: usize) -> Frontier<T> {
        Frontier {
            queues: HashMap::new(),
            ready: BinaryHeap::new(),
            seq: 0,
            uniq: UniqFilter::default(),
            per_queue: per_queue.max(1),
            budget: None,
            spent: HashMap::new(),
            queued: 0,
            in_flight: 0,
        }
    }

    /// Limits every queue to `budget` scheduled items in all (prerequisites and retries not counted).
    pub fn with_budget(mut self, budget: Option<u64>) -> Frontier<T> {
        self.budget = budget;
        self
    }

    /// Queues `item` at the back of `queue` unless `uniq_key` was scheduled before or the queue is over budget.
    pub fn schedule(&mut self, queue: &str, uniq_key: &str, item: T) -> Scheduled {
        if self.uniq.contains(uniq_key) {
            return Scheduled::Duplicate;
        }
        let spent = self.spent.entry(queue.to_string()).or_default();
        if self.budget.is_some_and(|b| *spent >= b) {
            return Scheduled::OverBudget;
        }
        *spent += 1;
        self.uniq.add(uniq_key);
        self.push(queue, item, false);
        Scheduled::Queued
    }

    /// Queues `item` at the front of `queue`, bypassing the uniq filter: for prerequisites and for an item
    /// put back to wait for one.
    pub fn schedule_first(&mut self, queue: &str, item: T) {
        self.push(queue, item, true);
    }

    /// Queues `item` at the back of `queue`, bypassing the uniq filter: for an item that must wait its turn again.
    pub fn requeue(&mut self, queue: &str, item: T) {
        self.push(queue, item, false);
    }

    /// Whether `uniq_key` was scheduled or marked seen.
    pub fn is_seen(&self, uniq_key: &str) -> bool {
        self.uniq.contains(uniq_key)
    }

    /// Marks `uniq_key` as seen without queueing anything; returns whether it was new.
    pub fn mark_seen(&mut self, uniq_key: &str) -> bool {
        self.uniq.add(uniq_key)
    }

    fn push(&mut self, key: &str, item: T, front: bool) {
        let now = Instant::now();
        let q = self.queues.entry(key.to_string()).or_insert_with(|| Queue {
            items: VecDeque::new(),
            in_flight: 0,
            not_before: now,
            in_heap: false,
        });
        if front {
            q.items.push_front(item);
        } else {
            q.items.push_back(item);
        }
        self.queued += 1;
        self.enqueue_if_ready(key);
    }

    fn enqueue_if_ready(&mut self, key: &str) {
        let Some(q) = self.queues.get_mut(key) else {
            return;
        };
        if !q.in_heap && !q.items.is_empty() && q.in_flight < self.per_queue {
            q.in_heap = true;
            self.seq += 1;
            self.ready
                .push(Reverse((q.not_before, self.seq, key.to_string())));
        }
    }

    /// The next item whose queue may be fetched from at `now`.
    pub fn next(&mut self, now: Instant) -> Next<T> {
        let Some(Reverse((at, _, _))) = self.ready.peek() else {
            return if self.queued == 0 && self.in_flight == 0 {
                Next::Empty
            } else {
                Next::Busy
            };
        };
        if *at > now {
            return Next::WaitUntil(*at);
        }
        let Reverse((_, _, key)) = self.ready.pop().expect("peeked");
        let q = self.queues.get_mut(&key).expect("ready queues exist");
        q.in_heap = false;
        let item = q.items.pop_front().expect("ready queues are not empty");
        q.in_flight += 1;
        self.queued -= 1;
        self.in_flight += 1;
        self.enqueue_if_ready(&key);
        Next::Ready(Taken { item, queue: key })
    }

    /// Hands back a queue after processing one of its items: it may be fetched from again after `delay`.
    pub fn finished(&mut self, queue: &str, now: Instant, delay: Duration) {
        if let Some(q) = self.queues.get_mut(queue) {
            q.in_flight = q.in_flight.saturating_sub(1);
            q.not_before = q.not_before.max(now + delay);
            self.in_flight = self.in_flight.saturating_sub(1);
            if q.items.is_empty() && q.in_flight == 0 && !q.in_heap {
                // An idle queue keeps its politeness clock until it is dropped here; a new item for the same
                // host within `delay` would otherwise be fetched too early, so keep it only while it matters.
                if q.not_before <= now {
                    self.queues.remove(queue);
                }
                return;
            }
            self.enqueue_if_ready(queue);
        }
    }

    /// Items waiting in queues (not counting those in flight).
    pub fn queued(&self) -> usize {
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
            .filter(|q| !q.items.is_empty() || q.in_flight > 0)
            .count()
    }

    /// Distinct uniq keys scheduled so far.
    pub fn discovered(&self) -> usize {
        self.uniq.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_queue_is_polite() {
        let mut f = Frontier::new(1);
        let t0 = Instant::now() + Duration::from_millis(5);
        f.schedule("a", "a/1", 1);
        f.schedule("a", "a/2", 2);
        f.schedule("b", "b/1", 3);
        assert_eq!(f.schedule("b", "b/1", 4), Scheduled::Duplicate);
        let Next::Ready(x) = f.next(t0) else { panic!() };
        assert_eq!((x.item, x.queue.as_str()), (1, "a"));
        // queue a is busy: b is next
        let Next::Ready(y) = f.next(t0) else { panic!() };
        assert_eq!(y.item, 3);
        assert!(matches!(f.next(t0), Next::Busy));
        f.finished("a", t0, Duration::from_secs(2));
        match f.next(t0) {
            Next::WaitUntil(at) => assert_eq!(at, t0 + Duration::from_secs(2)),
            other => panic!("{other:?}"),
        }
        let Next::Ready(z) = f.next(t0 + Duration::from_secs(2)) else {
            panic!()
        };
        assert_eq!(z.item, 2);
        f.finished("a", t0, Duration::ZERO);
        f.finished("b", t0, Duration::ZERO);
        assert!(matches!(f.next(t0 + Duration::from_secs(9)), Next::Empty));
    }

    #[test]
    fn prerequisites_go_first_and_bypass_uniq() {
        let mut f = Frontier::new(1);
        f.schedule("a", "a/page", "page");
        f.schedule_first("a", "robots");
        let now = Instant::now() + Duration::from_millis(1);
        let Next::Ready(x) = f.next(now) else {
            panic!()
        };
        assert_eq!(x.item, "robots");
        assert_eq!(f.schedule("a", "a/page", "dup"), Scheduled::Duplicate);
        assert_eq!(f.discovered(), 1);
    }

    #[test]
    fn budgets_cap_each_queue() {
        let mut f = Frontier::new(1).with_budget(Some(2));
        assert_eq!(f.schedule("a", "1", 1), Scheduled::Queued);
        assert_eq!(f.schedule("a", "2", 2), Scheduled::Queued);
        assert_eq!(f.schedule("a", "3", 3), Scheduled::OverBudget);
        assert_eq!(f.schedule("b", "3", 3), Scheduled::Queued);
        f.schedule_first("a", 9); // prerequisites are not counted
        assert_eq!(f.queued(), 4);
        // an over-budget key was not marked seen: another queue may still take it
        assert_eq!(f.schedule("c", "3", 3), Scheduled::Duplicate);
    }

    #[test]
    fn politeness_survives_an_empty_queue() {
        let mut f = Frontier::new(1);
        let t0 = Instant::now();
        f.schedule("a", "1", 1);
        let Next::Ready(_) = f.next(t0 + Duration::from_millis(1)) else {
            panic!()
        };
        f.finished("a", t0, Duration::from_secs(5));
        f.schedule("a", "2", 2);
        assert!(matches!(
            f.next(t0 + Duration::from_secs(1)),
            Next::WaitUntil(_)
        ));
    }
}
