//! What operators see and change: queue states, controls, delays, budgets, lookups.

use super::*;

impl<T: Item> Frontier<T> {
    /// Every queue that ever held an item, with its state now, busiest first.
    pub fn queue_infos(&self, now: Instant) -> Vec<QueueInfo> {
        let mut infos: Vec<QueueInfo> = (0..self.queues.len() as u32)
            .filter(|&id| self.names.has(id))
            .map(|id| (self.names.name(id), &self.queues[id as usize]))
            .map(|(name, q)| QueueInfo {
                name: name.to_string(),
                state: q.state(now, self.per_queue, self.budget),
                queued: q.len,
                in_flight: q.in_flight_len(),
                spent: q.spent,
                budget: q.budget.or(self.budget),
                delay: q.delay,
                wait: q.not_before.saturating_duration_since(now),
            })
            .collect();
        infos.sort_by(|a, b| b.queued.cmp(&a.queued).then_with(|| a.name.cmp(&b.name)));
        infos
    }

    /// The names of every queue that ever held an item, in no order.
    pub fn queue_names(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.queues.len() as u32)
            .filter(|&id| self.names.has(id))
            .map(|id| self.names.name(id))
    }

    /// The queues an operator paused or retired that still hold items, and how many items: what keeps a crawl
    /// with nothing else to do from ending (xt21a F3: its progress line said nothing of them).
    pub fn held_by_operator(&self) -> (usize, u64) {
        self.queues
            .iter()
            .filter(|q| q.control != Control::Active && q.len > 0)
            .fold((0, 0), |(queues, items), q| (queues + 1, items + q.len))
    }

    /// What the queue of this name was given (`spent`) and holds (`len`), if it ever held an item.
    pub fn queue_counts(&self, queue: &str) -> Option<(u64, u64)> {
        let q = &self.queues[self.names.get(queue)? as usize];
        Some((q.spent, q.len))
    }

    /// Whether a queue of this name ever held an item.
    pub fn has_queue(&self, queue: &str) -> bool {
        self.names.get(queue).is_some()
    }

    /// Pauses, unpauses (`Control::Active`) or retires a queue; false if there is no such queue.
    pub fn set_control(&mut self, queue: &str, control: Control) -> bool {
        let Some(id) = self.names.get(queue) else {
            return false;
        };
        self.queues[id as usize].control = control;
        self.mark_dirty(id);
        self.enqueue_if_ready(id);
        true
    }

    /// Sets (or with `None` clears) an operator's politeness delay for a queue, replacing the computed one
    /// (a rest the server asked for still holds: see [`Pace`](crate::Pace)).
    pub fn set_delay(&mut self, queue: &str, delay: Option<Duration>) -> bool {
        let Some(id) = self.names.get(queue) else {
            return false;
        };
        let q = &mut self.queues[id as usize];
        q.delay = delay;
        if let Some(d) = delay {
            // Not before what the server asked for.
            let asked = self.epoch + Duration::from_secs(u64::from(q.asked_s));
            let at = (Instant::now() + d).max(asked);
            q.polite_at = q.polite_at.min(at);
            // The record's rest shortens with it, so a resume does not bring the longer one back.
            let noted = crate::queue::rest_second(self.epoch, q.polite_at);
            q.rest_noted_s = q
                .rest_noted_s
                .min(noted.saturating_add(crate::queue::REST_PAD_S));
            if at < q.not_before {
                q.not_before = at;
                self.reposition(id);
            }
        }
        self.mark_dirty(id);
        true
    }

    /// Sets (or with `None` clears) a queue's own budget.
    pub fn set_budget(&mut self, queue: &str, budget: Option<u64>) -> bool {
        let Some(id) = self.names.get(queue) else {
            return false;
        };
        self.queues[id as usize].budget = budget;
        self.mark_dirty(id);
        true
    }

    /// Drops every waiting item of a queue (items in flight finish); returns how many were dropped.
    pub fn delete_queued(&mut self, queue: &str) -> Result<u64, Error> {
        let Some(id) = self.names.get(queue) else {
            return Ok(0);
        };
        let q = &mut self.queues[id as usize];
        let dropped = q.len;
        if let Some(hot) = &mut q.hot {
            hot.head.clear();
            hot.strays.clear();
        }
        q.settle();
        q.cursor = CURSOR_END;
        q.len = 0;
        self.queued -= dropped;
        // Read through the pending batch and added to it: committed with the rest by the crawl's journal,
        // after the crawl.log lines of the outcomes already in it.
        if let Some(store) = &mut self.store {
            let (from, to) = queue_range(id);
            // Finished items keep their status; of the others only the key and the filter flag are kept.
            let queued = store.items_in(&from, &to, usize::MAX, |k, v| match Record::parse(v) {
                Some((Record::Queued, filtered))
                    if split_item_key(k).is_some_and(|(_, _, seq)| !q.is_in_flight(seq)) =>
                {
                    Some((k.to_vec(), filtered))
                }
                _ => None,
            })?;
            for (k, filtered) in queued {
                store.put(Which::Items, k, gone_record(filtered));
            }
        }
        self.enqueue_if_ready(id);
        Ok(dropped)
    }

    /// The queue that may be fetched from first, and when: the top of the ready line (a queue whose place
    /// changed since may be sooner; for progress lines, not for scheduling).
    pub fn next_ready(&self) -> Option<(String, Instant)> {
        let ready = self
            .ready
            .peek()
            .map(|std::cmp::Reverse((at, _, id))| (*id, *at));
        match (ready, self.later.first()) {
            (Some((id, at)), later) if later.is_none_or(|l| at <= l) => {
                Some((self.names.name(id).to_string(), at))
            }
            (_, Some(l)) => Some(("a URI due later".to_string(), l)),
            (_, None) => None,
        }
    }

    /// What is known of `uniq_key`.
    pub fn lookup(&self, uniq_key: &str) -> Result<UrlStatus, Error> {
        self.uniq.lookup(fingerprint(uniq_key), self.store.as_ref())
    }
}
