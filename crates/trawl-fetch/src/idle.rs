//! Idle keep-alive connections, by pool key, kept only while they may be of use: servers close theirs
//! after 5 to 75 s, and a host whose politeness delay is longer would find its connection gone. A broad
//! crawl so holds sockets for the hosts it is about to fetch from again, not for every host it ever saw.
//!
//! How many: each connection in use serves a host for one answer (tens of ms) and then the host rests for its
//! politeness delay (a second or more), so the hosts in rotation — those worth a kept socket — number several
//! times the connections. [`idle_max`] allows eight per connection, within what the process may open.

use std::{
    collections::HashMap,
    time::{Duration, Instant},
};

/// How long an idle connection is kept.
pub(super) const IDLE_KEEP: Duration = Duration::from_secs(15);

/// The fewest idle connections kept across all origins, whatever the number of connections.
const IDLE_MIN: usize = 1024;

/// Idle connections kept per connection in use (the hosts in rotation per connection; see the module doc).
const PER_CONNECTION: usize = 8;

/// File descriptors left for everything but the connections' sockets: the frontier store's table files
/// (fjall keeps up to 900 open), WARCs, logs, Redis.
pub(super) const FD_RESERVE: u64 = 1024;

/// The most idle connections to keep with `max_connections` in use, when the process may have
/// `open_files` descriptors (its soft RLIMIT_NOFILE; `None`: no limit). Each connection in use may hold a
/// second descriptor for a DNS query.
pub(super) fn idle_max(max_connections: usize, open_files: Option<u64>) -> usize {
    let wanted = (max_connections * PER_CONNECTION).max(IDLE_MIN);
    match open_files {
        Some(limit) => {
            let room = limit.saturating_sub(FD_RESERVE + 2 * max_connections as u64);
            wanted
                .min(usize::try_from(room).unwrap_or(usize::MAX))
                .max(16)
        }
        None => wanted,
    }
}

/// Idle connections kept per pool key.
const PER_KEY: usize = 4;

/// The idle connections by pool key.
#[derive(Debug)]
pub(super) struct IdlePool<C> {
    conns: HashMap<String, Vec<(Instant, C)>>,
    count: usize,
    /// The most kept (the oldest go first).
    max: usize,
    swept: Option<Instant>,
}

impl<C> IdlePool<C> {
    /// A pool keeping at most `max` idle connections.
    pub(super) fn new(max: usize) -> Self {
        IdlePool {
            conns: HashMap::new(),
            count: 0,
            max,
            swept: None,
        }
    }

    /// A connection for `key` that is still open (`open`) and was idle less than [`IDLE_KEEP`].
    pub(super) fn take(&mut self, key: &str, now: Instant, open: impl Fn(&C) -> bool) -> Option<C> {
        let conns = self.conns.get_mut(key)?;
        let mut found = None;
        while let Some((since, c)) = conns.pop() {
            self.count -= 1;
            if now.saturating_duration_since(since) < IDLE_KEEP && open(&c) {
                found = Some(c);
                break;
            }
        }
        if conns.is_empty() {
            self.conns.remove(key);
        }
        found
    }

    /// Keeps `conn` for `key`; now and then (each second, or past the most kept) closes the stale ones.
    pub(super) fn put(&mut self, key: String, conn: C, now: Instant, open: impl Fn(&C) -> bool) {
        let conns = self.conns.entry(key).or_default();
        if conns.len() < PER_KEY {
            conns.push((now, conn));
            self.count += 1;
        }
        if self.count > self.max
            || self
                .swept
                .is_none_or(|at| now.saturating_duration_since(at) >= Duration::from_secs(1))
        {
            self.sweep(now, open);
        }
    }

    /// Closes (drops) connections idle past [`IDLE_KEEP`] or closed by their server, then, past the most
    /// kept, the oldest down to seven eighths of it (so a full pool sorts its ages once per eighth, not on
    /// every put).
    fn sweep(&mut self, now: Instant, open: impl Fn(&C) -> bool) {
        self.swept = Some(now);
        for conns in self.conns.values_mut() {
            conns.retain(|(since, c)| now.saturating_duration_since(*since) < IDLE_KEEP && open(c));
        }
        self.conns.retain(|_, v| !v.is_empty());
        self.count = self.conns.values().map(Vec::len).sum();
        if self.count > self.max {
            let keep = self.max - self.max / 8;
            let mut ages: Vec<Instant> = self.conns.values().flatten().map(|(s, _)| *s).collect();
            ages.sort_unstable();
            let cut = ages[self.count - keep];
            for conns in self.conns.values_mut() {
                conns.retain(|(since, _)| *since >= cut);
            }
            self.conns.retain(|_, v| !v.is_empty());
            self.count = self.conns.values().map(Vec::len).sum();
        }
    }

    /// Closes every idle connection: trawl is short of descriptors (or memory), and a socket kept for a
    /// host's next fetch must not hold back the fetch waiting for one now. Without this, a crawl whose
    /// idle sockets filled its open-files limit stalled: nothing could connect, so nothing finished and
    /// put a connection back, which is when the pool closes its stale ones.
    /// The connections are handed back, to be closed once the pool's lock is let go.
    pub(super) fn clear(&mut self) -> HashMap<String, Vec<(Instant, C)>> {
        self.count = 0;
        std::mem::take(&mut self.conns)
    }

    /// Idle connections held.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_closed_and_surplus_connections_go() {
        let t0 = Instant::now();
        const MAX: usize = 1024;
        let mut pool = IdlePool::new(MAX);
        let open = |c: &u32| *c != 99;
        pool.put("a".into(), 1, t0, open);
        pool.put("b".into(), 99, t0, open);
        // A closed connection is never handed out.
        assert_eq!(pool.take("b", t0, open), None);
        assert_eq!(pool.take("a", t0 + Duration::from_secs(1), open), Some(1));
        // Past IDLE_KEEP a connection is closed at the next sweep, and never handed out.
        pool.put("a".into(), 2, t0, open);
        assert_eq!(pool.take("a", t0 + IDLE_KEEP, open), None);
        pool.put("c".into(), 3, t0, open);
        pool.put("d".into(), 4, t0 + IDLE_KEEP + Duration::from_secs(1), open);
        assert_eq!(pool.len(), 1, "c went at the sweep");
        // Thousands of hosts: at most MAX kept, the newest.
        for i in 0..(MAX as u32 + 500) {
            let at = t0 + IDLE_KEEP + Duration::from_millis(2000 + u64::from(i));
            pool.put(format!("h{i}"), i, at, open);
        }
        assert!(pool.len() <= MAX, "{}", pool.len());
        assert!(pool.len() >= MAX - MAX / 8, "{}", pool.len());
        let last = MAX as u32 + 499;
        let at = t0 + IDLE_KEEP + Duration::from_millis(2000 + u64::from(last));
        assert_eq!(pool.take(&format!("h{last}"), at, open), Some(last));
        assert_eq!(pool.take("h0", at, open), None, "the oldest went first");
    }

    #[test]
    fn a_shortage_closes_every_idle_connection() {
        let mut pool = IdlePool::new(16);
        let now = Instant::now();
        for key in ["a", "b", "c"] {
            pool.put(key.into(), (), now, |_| true);
        }
        assert_eq!(pool.len(), 3);
        assert_eq!(pool.clear().len(), 3);
        assert_eq!(pool.len(), 0);
        assert!(pool.take("a", now, |_| true).is_none());
    }

    #[test]
    fn the_most_kept_follows_the_connections_within_the_open_files_limit() {
        assert_eq!(idle_max(10, None), IDLE_MIN);
        assert_eq!(idle_max(1000, None), 8000);
        assert_eq!(idle_max(1000, Some(20_000)), 8000);
        // 4,096 descriptors: what is left after the connections in use, their DNS sockets and the reserve.
        assert_eq!(idle_max(1000, Some(4096)), 4096 - 1024 - 2000);
        assert_eq!(idle_max(200, Some(1024)), 16);
    }
}
