//! The ready line: which queues are active, which wait for a place, and which may hand out an item when.

use super::*;

impl<T: Item> Frontier<T> {
    /// Puts a queue where it belongs now: deactivated when it has no work to hand out, activated (or in line
    /// for it) when it has, and in the ready heap when active with a spare connection.
    pub(super) fn enqueue_if_ready(&mut self, id: u32) {
        let q = &mut self.queues[id as usize];
        if q.len == 0 || q.control != Control::Active {
            self.deactivate(id);
            return;
        }
        if !q.active && self.active >= self.target_active {
            if !q.waiting {
                q.waiting = true;
                self.tick += 1;
                self.waiting.insert((q.precedence, self.tick, id));
            }
            return;
        }
        self.admit(id);
    }

    /// Gives a queue an active place, and a place in the ready heap if it has a spare connection.
    pub(super) fn admit(&mut self, id: u32) {
        let q = &mut self.queues[id as usize];
        if !q.active {
            q.active = true;
            q.session = 0;
            self.active += 1;
        }
        if !q.in_heap && q.in_flight_len() < self.per_queue {
            q.in_heap = true;
            self.tick += 1;
            q.heap_tick = self.tick;
            self.ready.push(Reverse((q.not_before, self.tick, id)));
        }
    }

    /// Takes a queue out of the active places (its head leaves memory when a store holds it, and so does
    /// the rest of its [`crate::queue::Hot`] part once nothing is in flight) and lets the next waiting queue in.
    pub(super) fn deactivate(&mut self, id: u32) {
        let has_store = self.store.is_some();
        let q = &mut self.queues[id as usize];
        if !q.active {
            return;
        }
        q.active = false;
        q.session = 0;
        if has_store && let Some(hot) = &mut q.hot {
            let first = hot.head.front().map(|e| e.order());
            hot.head = Default::default();
            if let Some(first) = first {
                q.rewind(first);
            }
            q.settle();
        }
        self.active -= 1;
        self.activate_waiting(false);
    }

    /// Activates waiting queues, lowest precedence first: up to the target, or (with `one_more`) one beyond
    /// it. Returns whether one was activated.
    pub(super) fn activate_waiting(&mut self, one_more: bool) -> bool {
        while one_more || self.active < self.target_active {
            let Some((_, _, id)) = self.waiting.pop_first() else {
                return false;
            };
            let q = &mut self.queues[id as usize];
            q.waiting = false;
            if q.active || q.len == 0 || q.control != Control::Active {
                continue;
            }
            self.admit(id);
            if one_more {
                return true;
            }
        }
        false
    }

    /// Ends a queue's turn: to the back of its precedence's line, letting the next one in.
    pub(super) fn rotate(&mut self, id: u32) {
        self.deactivate(id);
        self.enqueue_if_ready(id);
    }

    /// Pops the ready heap's stale entries off its top (their queue was repositioned or left the heap since),
    /// so that `next` never reports a wait for an entry that would hand out nothing: a released hold would
    /// otherwise keep the workers waiting until the hold's time, and a finished crawl from ending.
    pub(super) fn drop_stale_top(&mut self) {
        while let Some(Reverse((_, tick, id))) = self.ready.peek() {
            let q = &self.queues[*id as usize];
            let live = q.in_heap && q.heap_tick == *tick;
            if live {
                return;
            }
            self.ready.pop();
        }
    }

    /// Keeps `queue` from handing out items until `until` or [`Frontier::release`], whichever comes first:
    /// for a queue whose items wait on a prerequisite fetched through another ticket (robots.txt), so that
    /// it neither spins nor waits longer than the prerequisite takes.
    pub fn hold(&mut self, queue: &str, until: Instant) {
        if let Some(id) = self.names.get(queue) {
            let q = &mut self.queues[id as usize];
            // A later time than its heap entry's: `next` finds it out when it pops the entry.
            q.not_before = q.not_before.max(until);
        }
    }

    /// Ends a [`Frontier::hold`]: the queue may hand out items as soon as politeness lets it.
    pub fn release(&mut self, queue: &str) {
        let Some(id) = self.names.get(queue) else {
            return;
        };
        let q = &mut self.queues[id as usize];
        if q.not_before > q.polite_at {
            q.not_before = q.polite_at;
            self.reposition(id);
        }
    }

    /// Gives a queue whose `not_before` moved earlier a new place in the ready heap (its old entry goes
    /// stale).
    pub(super) fn reposition(&mut self, id: u32) {
        self.queues[id as usize].in_heap = false;
        self.enqueue_if_ready(id);
    }
}
