//! One politeness queue: its place in memory (a few head items) and its settings.

use std::{
    collections::{BTreeSet, HashSet, VecDeque},
    time::{Duration, Instant},
};

/// A queued item with its position and uniq fingerprint.
#[derive(Debug)]
pub(crate) struct Entry<T> {
    /// Whether it came through the uniq filter (its key is known to be marked seen).
    pub(crate) filtered: bool,
    pub(crate) precedence: u8,
    pub(crate) seq: u64,
    pub(crate) fp: u64,
    pub(crate) item: T,
}

/// What an operator set on a queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Control {
    /// Fetching as usual. Default.
    #[default]
    Active,
    /// Held by an operator: nothing is taken until it is unpaused.
    Paused,
    /// Retired by an operator: nothing more is taken; its items stay queued.
    Retired,
}

/// A queue's state, as Heritrix shows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueState {
    /// Items wait and may be taken now.
    Ready,
    /// At its connection limit: items are being fetched.
    InProcess,
    /// Waiting for its politeness delay to pass.
    Snoozed,
    /// Paused by an operator.
    Inactive,
    /// Retired by an operator, or over its budget.
    Retired,
    /// Nothing queued or in flight.
    Exhausted,
}

impl QueueState {
    /// The lowercase name used in listings and JSON.
    pub fn name(self) -> &'static str {
        match self {
            QueueState::Ready => "ready",
            QueueState::InProcess => "in-process",
            QueueState::Snoozed => "snoozed",
            QueueState::Inactive => "inactive",
            QueueState::Retired => "retired",
            QueueState::Exhausted => "exhausted",
        }
    }
}

/// A queue as an operator sees it.
#[derive(Debug, Clone)]
pub struct QueueInfo {
    /// The queue key (by default a SURT authority, `org,example,`).
    pub name: String,
    /// Its state now.
    pub state: QueueState,
    /// Items waiting.
    pub queued: u64,
    /// Items being fetched.
    pub in_flight: usize,
    /// Items ever scheduled (what the budget counts).
    pub spent: u64,
    /// Its budget, if any.
    pub budget: Option<u64>,
    /// A politeness delay set by an operator, replacing the computed one.
    pub delay: Option<Duration>,
    /// Time until it may be fetched from again (zero when it may now).
    pub wait: Duration,
}

/// One queue in memory.
#[derive(Debug)]
pub(crate) struct Queue<T> {
    pub(crate) id: u32,
    /// The first items, in order; with a store, the rest are only on disk.
    pub(crate) head: VecDeque<Entry<T>>,
    /// Items waiting, including those only on disk.
    pub(crate) len: u64,
    /// Next sequence number at the front (counting down) and at the back (counting up).
    pub(crate) front_seq: u64,
    pub(crate) back_seq: u64,
    /// Sequence numbers taken and not yet finished.
    pub(crate) in_flight: HashSet<u64>,
    /// When it may hand out its next item: politeness, or longer while it is held (see `polite_at`).
    pub(crate) not_before: Instant,
    /// The politeness part of `not_before` alone, which [`crate::Frontier::release`] goes back to.
    pub(crate) polite_at: Instant,
    pub(crate) in_heap: bool,
    /// The tick of its entry in the ready heap; an entry with another tick is stale and skipped.
    pub(crate) heap_tick: u64,
    pub(crate) spent: u64,
    pub(crate) control: Control,
    pub(crate) delay: Option<Duration>,
    pub(crate) budget: Option<u64>,
    /// Lower goes first among queues waiting for a turn: the lowest of its items' queue precedences.
    pub(crate) precedence: u8,
    /// Whether it holds one of the active places (its head in memory, in line for the ready heap).
    pub(crate) active: bool,
    /// Whether it waits in line for an active place.
    pub(crate) waiting: bool,
    /// Items taken since it last became active (for balance/replenish).
    pub(crate) session: u64,
    /// With a store: every queued item outside the head and `strays` sorts at or after this (precedence,
    /// seq), so a refill reads from here instead of from the queue's start, where the records of finished
    /// items stay.
    pub(crate) cursor: (u8, u64),
    /// With a store: queued items only on disk that sort before `cursor` (an item put in front of an inactive
    /// queue, or a lower precedence than items already read), each read back by its key. A few only: past
    /// [`STRAYS_MAX`] the cursor moves back instead.
    pub(crate) strays: BTreeSet<(u8, u64)>,
}

/// Strays a queue keeps before moving its cursor back to the first of them: memory per queue stays small
/// (inactive queues keep theirs), and a rewind costs one read over the finished records it passes.
const STRAYS_MAX: usize = 16;

/// The cursor of a queue with nothing on disk beyond its head.
pub(crate) const CURSOR_END: (u8, u64) = (u8::MAX, u64::MAX);

impl<T> Entry<T> {
    /// Its place in the queue.
    pub(crate) fn order(&self) -> (u8, u64) {
        (self.precedence, self.seq)
    }
}

/// Where sequence numbers start: fronts count down from here, backs up.
pub(crate) const SEQ_MIDDLE: u64 = u64::MAX / 2;

impl<T> Queue<T> {
    pub(crate) fn new(id: u32, now: Instant) -> Queue<T> {
        Queue {
            id,
            head: VecDeque::new(),
            len: 0,
            front_seq: SEQ_MIDDLE - 1,
            back_seq: SEQ_MIDDLE,
            in_flight: HashSet::new(),
            not_before: now,
            polite_at: now,
            in_heap: false,
            heap_tick: 0,
            spent: 0,
            control: Control::Active,
            delay: None,
            budget: None,
            precedence: u8::MAX,
            active: false,
            waiting: false,
            session: 0,
            cursor: CURSOR_END,
            strays: BTreeSet::new(),
        }
    }

    /// Notes that the queued item at `order` is only on disk now (with a store), so a refill finds it.
    pub(crate) fn on_disk(&mut self, order: (u8, u64)) {
        if order >= self.cursor {
            return;
        }
        if self.strays.len() < STRAYS_MAX {
            self.strays.insert(order);
        } else {
            let first = self.strays.first().map_or(order, |&s| s.min(order));
            self.rewind(first);
        }
    }

    /// Moves the cursor back to `order` (a refill reads everything from there), dropping the strays it
    /// now covers.
    pub(crate) fn rewind(&mut self, order: (u8, u64)) {
        if order < self.cursor {
            self.cursor = order;
            self.strays.split_off(&order);
        }
    }

    pub(crate) fn state(&self, now: Instant, per_queue: usize, budget: Option<u64>) -> QueueState {
        let over = self.budget.or(budget).is_some_and(|b| self.spent >= b);
        match self.control {
            Control::Paused => QueueState::Inactive,
            Control::Retired => QueueState::Retired,
            Control::Active if self.len == 0 && self.in_flight.is_empty() => {
                if over {
                    QueueState::Retired
                } else {
                    QueueState::Exhausted
                }
            }
            Control::Active if self.in_flight.len() >= per_queue || self.len == 0 => {
                QueueState::InProcess
            }
            Control::Active if !self.active => QueueState::Inactive,
            Control::Active if self.not_before > now => QueueState::Snoozed,
            Control::Active => QueueState::Ready,
        }
    }

    /// The persisted record: id, spent, control, delay ms (or u64::MAX), budget (or u64::MAX), precedence.
    pub(crate) fn record(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(30);
        v.extend_from_slice(&self.id.to_be_bytes());
        v.extend_from_slice(&self.spent.to_be_bytes());
        v.push(match self.control {
            Control::Active => 0,
            Control::Paused => 1,
            Control::Retired => 2,
        });
        let delay = self.delay.map_or(u64::MAX, |d| d.as_millis() as u64);
        v.extend_from_slice(&delay.to_be_bytes());
        v.extend_from_slice(&self.budget.unwrap_or(u64::MAX).to_be_bytes());
        v.push(self.precedence);
        v
    }

    /// Restores a queue from its persisted record.
    pub(crate) fn from_record(bytes: &[u8], now: Instant) -> Option<Queue<T>> {
        let u64_at = |i: usize| {
            bytes
                .get(i..i + 8)
                .and_then(|b| b.try_into().ok())
                .map(u64::from_be_bytes)
        };
        let id = u32::from_be_bytes(bytes.get(..4)?.try_into().ok()?);
        let mut q = Queue::new(id, now);
        q.spent = u64_at(4)?;
        q.control = match bytes.get(12)? {
            0 => Control::Active,
            1 => Control::Paused,
            _ => Control::Retired,
        };
        q.delay = u64_at(13)
            .filter(|&d| d != u64::MAX)
            .map(Duration::from_millis);
        q.budget = u64_at(21).filter(|&b| b != u64::MAX);
        q.precedence = bytes.get(29).copied().unwrap_or(u8::MAX);
        Some(q)
    }
}
