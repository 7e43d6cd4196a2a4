//! One politeness queue: its place in memory (a few head items) and its settings.

use std::{
    collections::{BTreeSet, VecDeque},
    time::{Duration, Instant},
};

use foldhash::HashSet;

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
    /// Waiting for an active place (beyond `max_active_queues` with nothing in flight).
    Inactive,
    /// Paused by an operator.
    Paused,
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
            QueueState::Paused => "paused",
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

/// One queue in memory: what every queue keeps (counts, positions, politeness, settings), 144 bytes,
/// and what only a queue in use holds ([`Hot`]), made when needed and dropped when empty. With 1M queues and a
/// few thousand active, memory follows the active ones.
#[derive(Debug)]
pub(crate) struct Queue<T> {
    /// Items waiting, including those only on disk.
    pub(crate) len: u64,
    /// Next sequence number at the front (counting down) and at the back (counting up).
    pub(crate) front_seq: u64,
    pub(crate) back_seq: u64,
    /// When it may hand out its next item: politeness, or longer while it is held (see `polite_at`).
    pub(crate) not_before: Instant,
    /// The politeness part of `not_before` alone, which [`crate::Frontier::release`] goes back to.
    pub(crate) polite_at: Instant,
    /// The tick of its entry in the ready heap; an entry with another tick is stale and skipped.
    pub(crate) heap_tick: u64,
    pub(crate) spent: u64,
    pub(crate) delay: Option<Duration>,
    pub(crate) budget: Option<u64>,
    /// Items taken since it last became active (for balance/replenish).
    pub(crate) session: u64,
    /// With a store: every queued item outside the head and the strays sorts at or after this (precedence,
    /// seq), so a refill reads from here instead of from the queue's start, where the records of finished
    /// items stay.
    pub(crate) cursor: (u8, u64),
    /// The head, items in flight and strays, while any of them holds something.
    pub(crate) hot: Option<Box<Hot<T>>>,
    pub(crate) control: Control,
    /// Lower goes first among queues waiting for a turn: the lowest of its items' queue precedences.
    pub(crate) precedence: u8,
    pub(crate) in_heap: bool,
    /// Whether it holds one of the active places (its head in memory, in line for the ready heap).
    pub(crate) active: bool,
    /// Whether it waits in line for an active place.
    pub(crate) waiting: bool,
    /// Whether its own record changed since the last commit.
    pub(crate) dirty: bool,
    /// With a store: the second, counted from the frontier's epoch, until which its record says it rests
    /// (0: no rest recorded). A rest is recorded a little long ([`REST_PAD_S`]) so that a busy queue's record
    /// is rewritten at most every two seconds, not after every fetch.
    pub(crate) rest_noted_s: u32,
    /// The second, counted from the frontier's epoch, until which the server asked it to wait (a
    /// `Retry-After`, a robots.txt `Crawl-delay`): an operator's shorter delay does not cut that wait.
    pub(crate) asked_s: u32,
    /// With a store: the second until which its record says the server asked it to wait, recorded a little
    /// long as `rest_noted_s` is (0: none).
    pub(crate) asked_noted_s: u32,
}

/// A queue's rest as its record keeps it, in Unix milliseconds (0 for none): when it ends, when the record
/// was written, and when the part the server asked for (a `Retry-After`, a `Crawl-delay`) ends, which a
/// resumed crawl keeps whatever an operator sets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Rest {
    pub(crate) until: u64,
    pub(crate) written: u64,
    pub(crate) asked_until: u64,
}

/// How much longer than the rest a queue's record keeps: a resume may hold a host up to this much (and the
/// rounding to a second) longer than its delay asked, never shorter.
pub(crate) const REST_PAD_S: u32 = 2;

/// The whole second, counted from `epoch`, by which a rest ending at `at` is over (rounded up).
pub(crate) fn rest_second(epoch: Instant, at: Instant) -> u32 {
    let ms = at.saturating_duration_since(epoch).as_millis();
    ms.div_ceil(1000).min(u128::from(u32::MAX)) as u32
}

/// The parts of a queue that hold items: empty for most queues most of the time, so kept apart.
#[derive(Debug)]
pub(crate) struct Hot<T> {
    /// The first items, in order; with a store, the rest are only on disk.
    pub(crate) head: VecDeque<Entry<T>>,
    /// Sequence numbers taken and not yet finished.
    pub(crate) in_flight: HashSet<u64>,
    /// With a store: queued items only on disk that sort before `cursor` (an item put in front of an inactive
    /// queue, or a lower precedence than items already read), each read back by its key. A few only: past
    /// [`STRAYS_MAX`] the cursor moves back instead.
    pub(crate) strays: BTreeSet<(u8, u64)>,
}

impl<T> Default for Hot<T> {
    fn default() -> Hot<T> {
        Hot {
            head: VecDeque::new(),
            in_flight: HashSet::default(),
            strays: BTreeSet::new(),
        }
    }
}

impl<T> Hot<T> {
    fn is_empty(&self) -> bool {
        self.head.is_empty() && self.in_flight.is_empty() && self.strays.is_empty()
    }
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
    pub(crate) fn new(now: Instant) -> Queue<T> {
        Queue {
            len: 0,
            front_seq: SEQ_MIDDLE - 1,
            back_seq: SEQ_MIDDLE,
            not_before: now,
            polite_at: now,
            heap_tick: 0,
            spent: 0,
            delay: None,
            budget: None,
            session: 0,
            cursor: CURSOR_END,
            hot: None,
            control: Control::Active,
            precedence: u8::MAX,
            in_heap: false,
            active: false,
            waiting: false,
            dirty: false,
            rest_noted_s: 0,
            asked_s: 0,
            asked_noted_s: 0,
        }
    }

    /// Its head, in-flight set and strays, made if it had none.
    pub(crate) fn hot(&mut self) -> &mut Hot<T> {
        self.hot.get_or_insert_with(Box::default)
    }

    /// Drops the head, in-flight set and strays if they are all empty: an idle queue keeps no allocation.
    pub(crate) fn settle(&mut self) {
        if self.hot.as_ref().is_some_and(|h| h.is_empty()) {
            self.hot = None;
        }
    }

    /// The head items in memory.
    pub(crate) fn head_len(&self) -> usize {
        self.hot.as_ref().map_or(0, |h| h.head.len())
    }

    /// How many of its items are in flight.
    pub(crate) fn in_flight_len(&self) -> usize {
        self.hot.as_ref().map_or(0, |h| h.in_flight.len())
    }

    /// Whether the item with sequence number `seq` is in flight.
    pub(crate) fn is_in_flight(&self, seq: u64) -> bool {
        self.hot
            .as_ref()
            .is_some_and(|h| h.in_flight.contains(&seq))
    }

    /// Notes that the queued item at `order` is only on disk now (with a store), so a refill finds it; call
    /// it before counting the item in `len`.
    pub(crate) fn on_disk(&mut self, order: (u8, u64)) {
        if self.len == self.head_len() as u64 {
            // Nothing else queued is only on disk (so there are no strays): the refill starts here.
            self.cursor = order;
            return;
        }
        if order >= self.cursor {
            return;
        }
        let strays = &mut self.hot().strays;
        if strays.len() < STRAYS_MAX {
            strays.insert(order);
        } else {
            let first = strays.first().map_or(order, |&s| s.min(order));
            self.rewind(first);
        }
    }

    /// Moves the cursor back to `order` (a refill reads everything from there), dropping the strays it
    /// now covers (and the queue's hot part, if that leaves it empty).
    pub(crate) fn rewind(&mut self, order: (u8, u64)) {
        if order < self.cursor {
            self.cursor = order;
            if let Some(hot) = &mut self.hot {
                hot.strays.split_off(&order);
            }
            self.settle();
        }
    }

    pub(crate) fn state(&self, now: Instant, per_queue: usize, budget: Option<u64>) -> QueueState {
        let over = self.budget.or(budget).is_some_and(|b| self.spent >= b);
        match self.control {
            Control::Paused => QueueState::Paused,
            Control::Retired => QueueState::Retired,
            Control::Active if self.len == 0 && self.in_flight_len() == 0 => {
                if over {
                    QueueState::Retired
                } else {
                    QueueState::Exhausted
                }
            }
            Control::Active if self.in_flight_len() >= per_queue || self.len == 0 => {
                QueueState::InProcess
            }
            Control::Active if !self.active => QueueState::Inactive,
            Control::Active if self.not_before > now => QueueState::Snoozed,
            Control::Active => QueueState::Ready,
        }
    }

    /// The persisted record: id, spent, control, delay ms (or u64::MAX), budget (or u64::MAX), precedence,
    /// then the [`Rest`] it records.
    pub(crate) fn record(&self, id: u32, rest: Rest) -> Vec<u8> {
        let mut v = Vec::with_capacity(54);
        v.extend_from_slice(&id.to_be_bytes());
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
        v.extend_from_slice(&rest.until.to_be_bytes());
        v.extend_from_slice(&rest.written.to_be_bytes());
        v.extend_from_slice(&rest.asked_until.to_be_bytes());
        v
    }

    /// Restores a queue, and its id, from its persisted record; `now` is the frontier's epoch and `wall_now`
    /// the wall clock then (Unix milliseconds), so that a rest the record holds goes on to its end, and never
    /// for longer than it had left when written (a wall clock set back meanwhile cannot stretch it). A
    /// record written before rests were kept has none.
    pub(crate) fn from_record(
        bytes: &[u8],
        now: Instant,
        wall_now: u64,
    ) -> Option<(u32, Queue<T>)> {
        let u64_at = |i: usize| {
            bytes
                .get(i..i + 8)
                .and_then(|b| b.try_into().ok())
                .map(u64::from_be_bytes)
        };
        let id = u32::from_be_bytes(bytes.get(..4)?.try_into().ok()?);
        let mut q = Queue::new(now);
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
        let (until, written) = (u64_at(30).unwrap_or(0), u64_at(38).unwrap_or(0));
        // A record of a build that did not say which part the server asked for: all of it is kept as asked.
        let asked_until = u64_at(46).unwrap_or(until).min(until);
        let left = |end: u64| {
            end.saturating_sub(wall_now)
                .min(end.saturating_sub(written))
        };
        let seconds = |ms: u64| ms.div_ceil(1000).min(u64::from(u32::MAX)) as u32;
        let rest_ms = left(until);
        if rest_ms > 0 {
            q.polite_at = now + Duration::from_millis(rest_ms);
            q.not_before = q.polite_at;
            q.rest_noted_s = seconds(rest_ms);
            // The rest an operator's delay made stays theirs to shorten after a resume (xt23a F4: a typed
            // delay of 14 hours could not be undone once a stop had recorded it).
            q.asked_s = seconds(left(asked_until));
            q.asked_noted_s = q.asked_s;
        }
        Some((id, q))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// A queue's record gives back its id and everything it persists.
        #[test]
        fn record_round_trip(
            id in any::<u32>(),
            spent in any::<u64>(),
            control in 0u8..3,
            delay_ms in proptest::option::of(0u64..u64::MAX),
            budget in proptest::option::of(0u64..u64::MAX),
            precedence in any::<u8>(),
        ) {
            let now = Instant::now();
            let mut q: Queue<String> = Queue::new(now);
            q.spent = spent;
            q.control = [Control::Active, Control::Paused, Control::Retired][control as usize];
            q.delay = delay_ms.map(Duration::from_millis);
            q.budget = budget;
            q.precedence = precedence;
            let (back_id, back) = Queue::<String>::from_record(&q.record(id, Rest::default()), now, 0).unwrap();
            prop_assert_eq!(back_id, id);
            prop_assert_eq!(
                (back.spent, back.control, back.delay, back.budget, back.precedence),
                (q.spent, q.control, q.delay, q.budget, q.precedence)
            );
            prop_assert!(back.hot.is_none() && back.len == 0 && back.cursor == CURSOR_END);
        }
    }

    /// A recorded rest goes on to its end, and a wall clock set back an hour does not stretch it past the
    /// length it had when written.
    #[test]
    fn a_recorded_rest_is_bounded_by_its_length() {
        let now = Instant::now();
        let q: Queue<String> = Queue::new(now);
        let rest = Rest {
            until: 10_000_000 + 3_000,
            written: 10_000_000,
            asked_until: 0,
        };
        let record = q.record(7, rest);
        let (_, back) = Queue::<String>::from_record(&record, now, 10_001_000).unwrap();
        assert_eq!(back.polite_at - now, Duration::from_millis(2_000));
        let (_, back) = Queue::<String>::from_record(&record, now, 10_000_000 - 3_600_000).unwrap();
        assert_eq!(back.polite_at - now, Duration::from_millis(3_000));
        let (_, back) = Queue::<String>::from_record(&record, now, 20_000_000).unwrap();
        assert_eq!(back.polite_at, now, "over");
    }

    /// The part of a recorded rest the server asked for is kept as asked after a resume, the rest an operator's
    /// delay made is not (xt23a F4); a record without that part keeps all of it as asked.
    #[test]
    fn a_recorded_rest_keeps_what_the_server_asked() {
        let now = Instant::now();
        let q: Queue<String> = Queue::new(now);
        let rest = Rest {
            until: 10_000_000 + 50_000,
            written: 10_000_000,
            asked_until: 10_000_000 + 4_000,
        };
        let (_, back) = Queue::<String>::from_record(&q.record(7, rest), now, 10_001_000).unwrap();
        assert_eq!((back.rest_noted_s, back.asked_s), (49, 3));
        let operator = Rest {
            asked_until: 0,
            ..rest
        };
        let (_, back) =
            Queue::<String>::from_record(&q.record(7, operator), now, 10_001_000).unwrap();
        assert_eq!((back.rest_noted_s, back.asked_s), (49, 0));
        let old = &q.record(7, rest)[..46];
        let (_, back) = Queue::<String>::from_record(old, now, 10_001_000).unwrap();
        assert_eq!((back.rest_noted_s, back.asked_s), (49, 49));
    }

    /// Every known queue keeps one: at 1M queues each byte here is a MiB.
    #[test]
    fn an_idle_queue_stays_small() {
        assert!(
            size_of::<Queue<String>>() <= 160,
            "{}",
            size_of::<Queue<String>>()
        );
    }

    #[test]
    fn an_item_sent_to_disk_past_an_empty_head_moves_the_cursor_not_the_strays() {
        let mut q: Queue<String> = Queue::new(Instant::now());
        q.on_disk((1, SEQ_MIDDLE));
        q.len += 1;
        assert_eq!((q.cursor, q.hot.is_none()), ((1, SEQ_MIDDLE), true));
        q.on_disk((1, SEQ_MIDDLE + 1));
        q.len += 1;
        assert_eq!(q.cursor, (1, SEQ_MIDDLE));
        // one in front of what is on disk is a stray
        q.on_disk((0, SEQ_MIDDLE - 1));
        q.len += 1;
        assert_eq!(q.hot.as_ref().map(|h| h.strays.len()), Some(1));
        q.rewind((0, 0));
        assert!(q.hot.is_none());
    }

    #[test]
    fn strays_past_the_limit_rewind_and_leave_no_hot_part() {
        let mut q: Queue<String> = Queue::new(Instant::now());
        q.on_disk((1, SEQ_MIDDLE));
        q.len += 1;
        for i in 1..=STRAYS_MAX as u64 {
            q.on_disk((0, SEQ_MIDDLE - i));
            q.len += 1;
        }
        assert_eq!(q.hot.as_ref().map(|h| h.strays.len()), Some(STRAYS_MAX));
        // one more: the cursor moves back to the first of them and nothing stays in memory
        q.on_disk((0, SEQ_MIDDLE - STRAYS_MAX as u64 - 1));
        q.len += 1;
        assert_eq!(q.cursor, (0, SEQ_MIDDLE - STRAYS_MAX as u64 - 1));
        assert!(q.hot.is_none());
    }
}
