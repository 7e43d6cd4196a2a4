//! A frontier shared by many worker processes through Redis (or Valkey): the queues, the seen set, the
//! politeness clock and the leases live in the server; each step is one Lua script, so no two workers see
//! a half-made change.
//!
//! Work is leased, not popped: [`SharedFrontier::claim`] claims an item with a lease that expires unless its
//! holder renews it ([`SharedFrontier::renew`], a heartbeat); [`SharedFrontier::finished`] completes it only
//! if the lease is still this worker's (a token stops a worker that stalled past its lease from completing
//! what another now holds), and schedules what came of it in the same step, so the crawl never looks empty
//! between the two. A worker that dies leaves its leases to expire; the items go back to the front of their
//! queues. At-least-once: the duplicates are bounded by what was in flight.
//!
//! Politeness across workers: a queue has at most one lease at a time, and on completion it rests until
//! `now + delay` by the server's clock before any worker may claim from it again.
//!
//! Every key of a job shares one hash tag (`trawl:{JOB}:…`), so each script touches one cluster slot.
//! The seen set is exact: 8-byte fingerprints split into 65,536 bucket hashes (2 bytes pick the bucket, the
//! other 6 are the field), which Redis keeps as compact listpacks.

use std::{collections::HashMap, marker::PhantomData, time::Duration};

use redis::{Script, Value};

use self::connect::{Conn, Target};
pub use self::connect::{with_password, without_password};
pub use self::error::SharedError;

use crate::{Item, Pace, Scheduled};
use xxhash_rust::xxh3::xxh3_64 as fingerprint_of;

/// What a worker gets when it claims work.
#[derive(Debug)]
pub enum Claim<T> {
    /// An item to process now, from `queue`, under `lease`; hand it back with [`SharedFrontier::finished`].
    Ready {
        /// The item.
        item: T,
        /// Its queue.
        queue: String,
        /// The lease it is held under.
        lease: Lease,
    },
    /// Nothing may be claimed before this instant.
    WaitUntil(std::time::Instant),
    /// The claim looked at its most queues (paused ones, expired leases) without an item, and more are
    /// due: claim again.
    Busy,
    /// The crawl is paused (`trawl ctl --frontier … pause`).
    Paused,
    /// Nothing is queued, leased or due later anywhere: the crawl is done.
    Empty,
    /// An operator stopped the crawl (`trawl ctl --frontier … stop`).
    Stopped,
}

/// The worker keys as read in one pipeline: heartbeats, first beats, URIs done, leases, lease lengths.
type WorkerKeys = (
    Vec<(String, u64)>,
    HashMap<String, u64>,
    HashMap<String, u64>,
    Vec<String>,
    HashMap<String, u64>,
    HashMap<String, String>,
);

/// A row of `queue.lua list`: queue, state, queued, leased, spent, budget or '', delay or '', wait ms.
type QueueRowReply = (String, String, u64, u64, u64, String, String, u64);

/// One queue of a shared crawl, as the operator sees it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SharedQueue {
    /// The queue key.
    pub name: String,
    /// ready, in-process, snoozed, paused or retired.
    pub state: String,
    /// URIs waiting.
    pub queued: u64,
    /// URIs leased (0 or 1).
    pub in_flight: u64,
    /// URIs ever scheduled.
    pub spent: u64,
    /// An operator's budget, if set.
    pub budget: Option<u64>,
    /// An operator's delay in ms, if set.
    pub delay_ms: Option<u64>,
    /// Milliseconds until its next turn.
    pub wait_ms: u64,
}

impl SharedQueue {
    /// Whether an operator paused or retired it: it keeps its URIs, and the crawl does not end while it holds
    /// any.
    pub fn is_held(&self) -> bool {
        self.state == "paused" || self.state == "retired"
    }

    /// Of `queues` ([`SharedFrontier::queues`] lists every held one), the held queues that hold URIs and how
    /// many URIs they hold; `None` when there is none.
    pub fn held(queues: &[SharedQueue]) -> Option<(usize, u64)> {
        let (n, uris) = queues
            .iter()
            .filter(|q| q.is_held() && q.queued > 0)
            .fold((0, 0), |(n, uris), q| (n + 1, uris + q.queued));
        (n > 0).then_some((n, uris))
    }
}

/// One worker of a shared crawl, as the operator sees it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct WorkerInfo {
    /// Its id (host name and process id).
    pub worker: String,
    /// Milliseconds since its last heartbeat (a live worker beats every third of a lease).
    pub silent_ms: u64,
    /// Whether it beat within its lease (`frontier.lease_ms`; 30 s for a worker that has not said its
    /// lease): a worker silent for longer is dead or cut off, and its leases are taken over.
    pub alive: bool,
    /// Milliseconds since its first heartbeat.
    pub running_ms: u64,
    /// URIs it completed.
    pub done: u64,
    /// Leases it holds now.
    pub leases: u64,
    /// How it ended, when it ended cleanly and has not started again: `finished`, `stopped` or `failed`
    /// (a worker killed says nothing: it stays silent).
    pub ended: Option<String>,
}

impl WorkerInfo {
    /// Its state as `workers` lists it: how it ended (`finished`, `stopped`, `failed`), else `alive` or
    /// `silent` (dead, cut off, or killed).
    pub fn state(&self) -> &str {
        match &self.ended {
            Some(how) => how,
            None if self.alive => "alive",
            None => "silent",
        }
    }

    /// Its average rate, URIs per second: since its first heartbeat (its start), up to now while it is
    /// alive (beats are a third of a lease apart, which may be minutes: xt16b F4), else up to its last beat.
    pub fn uris_per_s(&self) -> f64 {
        let ms = if self.alive {
            self.running_ms
        } else {
            self.running_ms.saturating_sub(self.silent_ms)
        };
        let secs = ms as f64 / 1000.0;
        if secs > 0.0 {
            self.done as f64 / secs
        } else {
            0.0
        }
    }
}

/// The lease length assumed of a worker that has not said its own (one of a build before `:wlease`).
const DEFAULT_LEASE_MS: u64 = 30_000;

/// Which lease an item was taken under: hand it back to [`SharedFrontier::finished`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    token: String,
}

/// What became of a taken item, handed back with its lease.
#[derive(Debug)]
pub struct Completion<T> {
    /// How long its queue rests before the next claim (politeness), the operator's delay for the queue and
    /// what the server asked taken into account as [`Pace`] says; unfetched by default.
    pub pace: Pace,
    /// Items put back at the front of their queues (a retry, a prerequisite), in the order they will come.
    pub first: Vec<(String, T)>,
    /// Items due after a wait, each to the back of its queue then.
    pub later: Vec<(String, T, Duration)>,
    /// Uniq keys marked seen before the new items are looked at (what a browser fetched for the page).
    pub seen: Vec<String>,
    /// A gallery's predicted next page: scheduled through the seen set only if one of `new` was queued.
    pub predicted: Option<(String, T)>,
    /// Uniq keys of refused URLs whose lines this worker claimed ([`SharedFrontier::claim_cuts`]) and wrote:
    /// their claims become final.
    pub cuts: Vec<String>,
    /// New items (outlinks), through the seen set.
    pub new: Vec<(String, T)>,
    /// The taken item ends here and counts as done (crawl-wide and for its worker); false when it is put
    /// back among `first` or `later` (a retry, a page held for its robots.txt).
    pub ended: bool,
}

impl<T> Default for Completion<T> {
    fn default() -> Self {
        Completion {
            pace: Pace::UNFETCHED,
            first: Vec::new(),
            later: Vec::new(),
            seen: Vec::new(),
            predicted: None,
            cuts: Vec::new(),
            new: Vec::new(),
            ended: true,
        }
    }
}

/// The crawl-wide counters kept in Redis.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SharedCounts {
    /// Items waiting in queues.
    pub queued: u64,
    /// Items under a lease.
    pub in_flight: u64,
    /// Items due later.
    pub later: u64,
    /// Distinct items ever scheduled.
    pub discovered: u64,
    /// Distinct URLs refused before they were scheduled whose lines were written ([`SharedFrontier::claim_cuts`],
    /// [`SharedFrontier::mark_cut`]).
    pub refused: u64,
    /// Items completed.
    pub done: u64,
    /// Leases that expired and were claimed again (a worker died or stalled).
    pub reclaimed: u64,
    /// Queues holding items that take turns (leased, resting or ready; not paused or retired): the
    /// progress line's "hosts active".
    pub active_queues: u64,
}

impl SharedCounts {
    /// Whether a crawl let run (`state` `run`) has nothing left anywhere: its workers found it empty and
    /// ended (xt21a F6).
    pub fn finished(&self, state: &str) -> bool {
        state == "run"
            && self.queued == 0
            && self.in_flight == 0
            && self.later == 0
            && self.done > 0
    }
}

/// The Lua scripts, loaded once per server (`EVALSHA`, and `SCRIPT LOAD` again after a restart).
struct Scripts {
    claim: Script,
    complete: Script,
    schedule: Script,
    renew: Script,
    queue: Script,
    cut: Script,
}

impl Default for Scripts {
    fn default() -> Self {
        Scripts {
            claim: Script::new(&with_outage(include_str!("claim.lua"))),
            complete: Script::new(&with_outage(include_str!("complete.lua"))),
            schedule: Script::new(include_str!("schedule.lua")),
            renew: Script::new(&with_outage(include_str!("renew.lua"))),
            queue: Script::new(include_str!("queue.lua")),
            cut: Script::new(&with_outage(include_str!("cut.lua"))),
        }
    }
}

/// `script` with outage.lua's function put after its first line (the `#!lua` line must stay first).
fn with_outage(script: &str) -> String {
    let (first, rest) = script.split_once('\n').unwrap_or((script, ""));
    format!("{first}\n{}{rest}", include_str!("outage.lua"))
}

/// How many queues one claim looks at before it answers (empty queues it meets are dropped on the way).
const CLAIM_SCAN: u32 = 50;

/// One worker's handle on a shared frontier.
pub struct SharedFrontier<T> {
    target: Target,
    /// The connection, made again after Redis went away.
    conn: Option<Conn>,
    job: String,
    prefix: String,
    worker: String,
    lease: Duration,
    budget: u64,
    /// Leases this worker holds: queue -> token.
    held: HashMap<String, String>,
    next_token: u64,
    scripts: Scripts,
    _items: PhantomData<T>,
}

impl<T> std::fmt::Debug for SharedFrontier<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedFrontier")
            .field("prefix", &self.prefix)
            .field("worker", &self.worker)
            .finish_non_exhaustive()
    }
}

impl<T: Item> SharedFrontier<T> {
    /// Connects to the crawl `job` at `url` (`redis://HOST:PORT/DB`) as `worker`, claiming under leases of
    /// `lease` (renewed by [`SharedFrontier::renew`]); `budget` caps the items of one queue (0: none).
    pub fn connect(
        url: &str,
        job: &str,
        worker: &str,
        lease: Duration,
        budget: u64,
    ) -> Result<SharedFrontier<T>, SharedError> {
        let target = Target::open(url)?;
        let conn = target.connect()?;
        Ok(SharedFrontier {
            target,
            conn: Some(conn),
            job: job.to_string(),
            prefix: format!("trawl:{{{job}}}"),
            worker: worker.to_string(),
            lease,
            budget,
            held: HashMap::new(),
            next_token: 0,
            scripts: Scripts::default(),
            _items: PhantomData,
        })
    }

    /// Runs `step` on the connection (made again if Redis went away since); a connection that failed is
    /// dropped, so the next step reconnects.
    fn with_conn<R>(
        &mut self,
        step: impl FnOnce(&mut Conn, &Scripts) -> redis::RedisResult<R>,
    ) -> Result<R, SharedError> {
        let conn = match self.conn.take() {
            Some(c) => c,
            None => self.target.connect()?,
        };
        let mut conn = conn;
        match step(&mut conn, &self.scripts) {
            Ok(r) => {
                self.conn = Some(conn);
                Ok(r)
            }
            Err(e) => {
                let e = SharedError::from(e);
                if !matches!(e, SharedError::Unavailable(_)) {
                    self.conn = Some(conn);
                }
                Err(e)
            }
        }
    }

    /// The same handle with a budget of `budget` items per queue (0: none).
    pub fn with_budget(mut self, budget: u64) -> SharedFrontier<T> {
        self.budget = budget;
        self
    }

    /// The prefix of every key of this job.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// Schedules new items (seeds) through the seen set.
    pub fn schedule_batch(
        &mut self,
        batch: Vec<(String, T)>,
    ) -> Result<Vec<Scheduled>, SharedError> {
        if batch.is_empty() {
            return Ok(Vec::new());
        }
        let (prefix, budget) = (self.prefix.clone(), self.budget);
        let codes: Vec<i64> = self.with_conn(|conn, scripts| {
            let mut inv = scripts.schedule.prepare_invoke();
            inv.key(format!("{prefix}:n")).arg(&prefix).arg(budget);
            for (queue, item) in &batch {
                push_new(&mut inv, queue, item);
            }
            inv.invoke(conn)
        })?;
        codes.into_iter().map(scheduled).collect()
    }

    /// Claims the next item whose queue may be fetched from now.
    pub fn claim(&mut self) -> Result<Claim<T>, SharedError> {
        self.next_token += 1;
        let token = format!("{}.{}", self.worker, self.next_token);
        let (prefix, worker, lease) = (self.prefix.clone(), self.worker.clone(), self.lease);
        let reply: Vec<Value> = self.with_conn(|conn, scripts| {
            scripts
                .claim
                .prepare_invoke()
                .key(format!("{prefix}:n"))
                .arg(&prefix)
                .arg(&worker)
                .arg(lease.as_millis() as u64)
                .arg(&token)
                .arg(CLAIM_SCAN)
                .invoke(conn)
        })?;
        let text = |v: &Value| -> Result<Vec<u8>, SharedError> {
            match v {
                Value::BulkString(b) => Ok(b.clone()),
                Value::SimpleString(s) => Ok(s.clone().into_bytes()),
                other => Err(SharedError::Reply(format!("{other:?}"))),
            }
        };
        let kind = reply.first().map(text).transpose()?.unwrap_or_default();
        Ok(match (kind.as_slice(), reply.len()) {
            (b"ready", 3) => {
                let queue = String::from_utf8_lossy(&text(&reply[1])?).into_owned();
                let raw = text(&reply[2])?;
                let Some(item) = T::decode(&raw) else {
                    self.set_aside(&queue, token, &raw)?;
                    return Err(SharedError::Corrupt {
                        queue,
                        list: format!("{}:unreadable", self.prefix),
                    });
                };
                self.held.insert(queue.clone(), token.clone());
                Claim::Ready {
                    item,
                    queue,
                    lease: Lease { token },
                }
            }
            (b"wait", 2) => {
                let ms: u64 = String::from_utf8_lossy(&text(&reply[1])?)
                    .parse()
                    .map_err(|_| SharedError::Reply(format!("{reply:?}")))?;
                Claim::WaitUntil(std::time::Instant::now() + Duration::from_millis(ms))
            }
            (b"busy", 1) => Claim::Busy,
            (b"paused", 1) => Claim::Paused,
            (b"empty", 1) => Claim::Empty,
            (b"stopped", 1) => Claim::Stopped,
            _ => return Err(SharedError::Reply(format!("{reply:?}"))),
        })
    }

    /// Sets aside an item this version cannot read (damaged data, or another trawl version's format), just
    /// claimed from `queue` under `token`: its bytes go to the list `P:unreadable` ("queue\nbytes", for an
    /// operator to look at), then its lease ends without counting it done, so no worker claims it again.
    fn set_aside(&mut self, queue: &str, token: String, raw: &[u8]) -> Result<(), SharedError> {
        let key = format!("{}:unreadable", self.prefix);
        let mut member = queue.as_bytes().to_vec();
        member.push(b'\n');
        member.extend_from_slice(raw);
        self.with_conn(|conn, _| redis::cmd("RPUSH").arg(&key).arg(&member).exec(conn))?;
        let done = Completion::<T> {
            ended: false,
            ..Completion::default()
        };
        self.finished(queue, &Lease { token }, &done).map(|_| ())
    }

    /// Completes an item taken from `queue` under `lease`, scheduling what came of it. `None` when the lease
    /// was lost (it expired and another worker claimed the item): nothing of this result is kept. On a
    /// transient error nothing happened, and the same call may be made again.
    pub fn finished(
        &mut self,
        queue: &str,
        lease: &Lease,
        done: &Completion<T>,
    ) -> Result<Option<Vec<Scheduled>>, SharedError> {
        let (prefix, budget) = (self.prefix.clone(), self.budget);
        let codes: Vec<i64> = self.with_conn(|conn, scripts| {
            let mut inv = scripts.complete.prepare_invoke();
            inv.key(format!("{prefix}:n"))
                .arg(&prefix)
                .arg(queue)
                .arg(&lease.token)
                .arg(done.pace.delay.as_millis() as u64)
                .arg(budget)
                .arg(done.first.len())
                .arg(done.later.len())
                .arg(done.seen.len())
                .arg(usize::from(done.predicted.is_some()))
                .arg(done.cuts.len())
                .arg(u8::from(done.ended))
                .arg(done.pace.asked.as_millis() as u64)
                .arg(u8::from(done.pace.fetched));
            for (q, item) in done.first.iter().rev() {
                inv.arg(q).arg(encode(item));
            }
            for (q, item, after) in &done.later {
                let mut member = q.as_bytes().to_vec();
                member.push(b'\n');
                item.encode(&mut member);
                inv.arg(after.as_millis() as u64).arg(member);
            }
            for key in &done.seen {
                let (bucket, field) = seen_slot(key);
                inv.arg(bucket).arg(field.as_slice());
            }
            if let Some((q, item)) = &done.predicted {
                push_new(&mut inv, q, item);
            }
            for key in &done.cuts {
                let (bucket, field) = seen_slot(&cut_mark(key));
                inv.arg(bucket).arg(field.as_slice());
            }
            for (q, item) in &done.new {
                push_new(&mut inv, q, item);
            }
            inv.invoke(conn)
        })?;
        if self.held.get(queue) == Some(&lease.token) {
            self.held.remove(queue);
        }
        match codes.split_first() {
            Some((1, rest)) => rest
                .iter()
                .copied()
                .map(scheduled)
                .collect::<Result<_, _>>()
                .map(Some),
            Some((0, [])) => Ok(None),
            _ => Err(SharedError::Reply(format!("{codes:?}"))),
        }
    }

    /// Claims the crawl.log lines of refused URLs (their uniq keys) found by the item taken from `queue`
    /// under `lease`: true for each line this worker is to write, before it completes the item with the
    /// claimed keys in [`Completion::cuts`]. A URL is logged once crawl-wide and not at all when the crawl
    /// schedules it; a claim whose worker lost its lease before completing is taken over by the next
    /// worker to refuse the URL (the one redoing the page), so no line is lost to a kill (at-least-once,
    /// like the items).
    pub fn claim_cuts(
        &mut self,
        queue: &str,
        lease: &Lease,
        keys: &[String],
    ) -> Result<Vec<bool>, SharedError> {
        self.cuts("claim", queue, &lease.token, keys)
    }

    /// Marks the line of a refused URL (its uniq key) written, unless the crawl scheduled the URL or its line
    /// is written or claimed: true if this worker is to write it, for a cut found after the completion (over
    /// its queue's budget). A kill before the line is written loses it.
    pub fn mark_cut(&mut self, key: &str) -> Result<bool, SharedError> {
        let first = self.cuts("final", "", "", &[key.to_string()])?;
        Ok(first.first() == Some(&true))
    }

    /// Runs `cut.lua` in `mode` for `keys`.
    fn cuts(
        &mut self,
        mode: &str,
        queue: &str,
        token: &str,
        keys: &[String],
    ) -> Result<Vec<bool>, SharedError> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let prefix = self.prefix.clone();
        let flags: Vec<i64> = self.with_conn(|conn, scripts| {
            let mut inv = scripts.cut.prepare_invoke();
            inv.key(format!("{prefix}:n"))
                .arg(&prefix)
                .arg(mode)
                .arg(queue)
                .arg(token);
            for key in keys {
                let (bucket, field) = seen_slot(key);
                let (cut_bucket, cut_field) = seen_slot(&cut_mark(key));
                inv.arg(bucket)
                    .arg(field.as_slice())
                    .arg(cut_bucket)
                    .arg(cut_field.as_slice());
            }
            inv.invoke(conn)
        })?;
        if flags.len() != keys.len() {
            return Err(SharedError::Reply(format!("{flags:?}")));
        }
        Ok(flags.into_iter().map(|f| f == 1).collect())
    }

    /// Extends every lease this worker holds and records its heartbeat; returns how many it still holds.
    pub fn renew(&mut self) -> Result<usize, SharedError> {
        let (prefix, worker, lease) = (self.prefix.clone(), self.worker.clone(), self.lease);
        let held: Vec<(String, String)> = self
            .held
            .iter()
            .map(|(q, t)| (q.clone(), t.clone()))
            .collect();
        self.with_conn(|conn, scripts| {
            let mut inv = scripts.renew.prepare_invoke();
            inv.key(format!("{prefix}:n"))
                .arg(&prefix)
                .arg(&worker)
                .arg(lease.as_millis() as u64);
            for (q, token) in &held {
                inv.arg(q).arg(token);
            }
            inv.invoke(conn)
        })
    }

    /// Whether `key` was scheduled or marked seen.
    pub fn is_seen(&mut self, key: &str) -> Result<bool, SharedError> {
        let (bucket, field) = seen_slot(key);
        let hash = format!("{}:s:{bucket}", self.prefix);
        self.with_conn(|conn, _| {
            redis::cmd("HEXISTS")
                .arg(&hash)
                .arg(field.as_slice())
                .query(conn)
        })
    }

    /// The crawl-wide counters.
    pub fn counts(&mut self) -> Result<SharedCounts, SharedError> {
        let key = format!("{}:n", self.prefix);
        let ready = format!("{}:ready", self.prefix);
        let (map, active): (HashMap<String, i64>, u64) = self.with_conn(|conn, _| {
            redis::pipe()
                .cmd("HGETALL")
                .arg(&key)
                .cmd("ZCARD")
                .arg(&ready)
                .query(conn)
        })?;
        let get = |k: &str| map.get(k).copied().unwrap_or(0).max(0) as u64;
        Ok(SharedCounts {
            active_queues: active,
            queued: get("queued"),
            in_flight: get("in_flight"),
            later: get("later"),
            discovered: get("discovered"),
            refused: get("refused"),
            done: get("done"),
            reclaimed: get("reclaimed"),
        })
    }

    /// Sets the crawl-wide state every worker obeys at its next claim: `run`, `pause` or `stop`.
    pub fn set_state(&mut self, state: &str) -> Result<(), SharedError> {
        let key = format!("{}:ctl", self.prefix);
        self.with_conn(|conn, _| {
            redis::cmd("HSET")
                .arg(&key)
                .arg("state")
                .arg(state)
                .exec(conn)
        })
    }

    /// The workers that ever beat for this crawl, with their counts; the lease length tells a live one (it
    /// beats every third of it) from a dead one.
    pub fn workers(&mut self) -> Result<Vec<WorkerInfo>, SharedError> {
        let p = self.prefix.clone();
        let (beats, starts, done, leases, lengths, ends): WorkerKeys =
            self.with_conn(|conn, _| {
                // One slot (the job's hash tag): a pipeline a cluster node answers whole.
                redis::pipe()
                    .cmd("ZRANGE")
                    .arg(format!("{p}:workers"))
                    .arg(0)
                    .arg(-1)
                    .arg("WITHSCORES")
                    .cmd("HGETALL")
                    .arg(format!("{p}:wstart"))
                    .cmd("HGETALL")
                    .arg(format!("{p}:wdone"))
                    .cmd("HVALS")
                    .arg(format!("{p}:lease"))
                    .cmd("HGETALL")
                    .arg(format!("{p}:wlease"))
                    .cmd("HGETALL")
                    .arg(format!("{p}:wend"))
                    .query(conn)
            })?;
        let time: (u64, u64) = self.with_conn(|conn, _| redis::cmd("TIME").query(conn))?;
        let now = time.0 * 1000 + time.1 / 1000;
        Ok(beats
            .into_iter()
            .map(|(worker, beat)| WorkerInfo {
                silent_ms: now.saturating_sub(beat),
                alive: now.saturating_sub(beat)
                    < lengths.get(&worker).copied().unwrap_or(DEFAULT_LEASE_MS),
                running_ms: now.saturating_sub(starts.get(&worker).copied().unwrap_or(beat)),
                done: done.get(&worker).copied().unwrap_or(0),
                leases: leases
                    .iter()
                    .filter(|l| l.split_once(' ').is_some_and(|(_, w)| w == worker))
                    .count() as u64,
                ended: ends.get(&worker).cloned(),
                worker,
            })
            .collect())
    }

    /// Records how this worker ended (`finished`, `stopped`, `failed`), so that `workers` tells it from one
    /// that died (xt44a F5); its next heartbeat clears it.
    pub fn ended(&mut self, how: &str) -> Result<(), SharedError> {
        let key = format!("{}:wend", self.prefix);
        let worker = self.worker.clone();
        self.with_conn(|conn, _| {
            redis::cmd("HSET")
                .arg(&key)
                .arg(&worker)
                .arg(how)
                .query::<()>(conn)
        })
    }

    /// Adds closed WARC files to the crawl's manifest (one line each: worker, path, bytes).
    pub fn add_warcs(&mut self, files: &[(String, u64)]) -> Result<(), SharedError> {
        if files.is_empty() {
            return Ok(());
        }
        let key = format!("{}:warcs", self.prefix);
        let lines: Vec<String> = files
            .iter()
            .map(|(path, bytes)| format!("{}\t{path}\t{bytes}", self.worker))
            .collect();
        self.with_conn(|conn, _| redis::cmd("RPUSH").arg(&key).arg(&lines).exec(conn))
    }

    /// The crawl's manifest of WARC files: (worker, path on that worker's machine, bytes).
    pub fn warcs(&mut self) -> Result<Vec<(String, String, u64)>, SharedError> {
        let key = format!("{}:warcs", self.prefix);
        let lines: Vec<String> =
            self.with_conn(|conn, _| redis::cmd("LRANGE").arg(&key).arg(0).arg(-1).query(conn))?;
        Ok(lines
            .iter()
            .filter_map(|l| {
                let mut parts = l.splitn(3, '\t');
                let worker = parts.next()?.to_string();
                let path = parts.next()?.to_string();
                let bytes = parts.next()?.parse().ok()?;
                Some((worker, path, bytes))
            })
            .collect())
    }

    /// The crawl's settings (a crawl.toml) as the first worker published them, or, when none were, `text`
    /// (this worker creates the crawl). Also lists the job among the server's crawls.
    pub fn adopt_config(&mut self, text: &str) -> Result<(String, bool), SharedError> {
        let key = format!("{}:config", self.prefix);
        let job = self.job.clone();
        self.with_conn(|conn, _| {
            let created: bool = redis::cmd("SET")
                .arg(&key)
                .arg(text)
                .arg("NX")
                .query::<Option<String>>(conn)?
                .is_some();
            redis::cmd("SADD").arg(CRAWLS).arg(&job).exec(conn)?;
            let stored: String = redis::cmd("GET").arg(&key).query(conn)?;
            Ok((stored, created))
        })
    }

    /// The crawl's birth: an id set once, by the first worker that asks after the crawl was made
    /// (`trawl:{JOB}:born`), so a worker's job can tell the crawl it worked for from a later one of the same
    /// name, made after the first was lost (xt44a F9: an old worker's WARCs went into the new crawl's
    /// manifest).
    pub fn born(&mut self) -> Result<String, SharedError> {
        let key = format!("{}:born", self.prefix);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let id = format!("{:x}-{:x}", now.as_nanos(), std::process::id());
        self.with_conn(|conn, _| {
            redis::cmd("SET").arg(&key).arg(&id).arg("NX").exec(conn)?;
            redis::cmd("GET").arg(&key).query(conn)
        })
    }

    /// Publishes changed settings (an operator's): every worker takes them up when it sees the settings
    /// version go up.
    pub fn publish_settings(&mut self, text: &str) -> Result<u64, SharedError> {
        let (config, ctl) = (
            format!("{}:config", self.prefix),
            format!("{}:ctl", self.prefix),
        );
        let ((), version): ((), u64) = self.with_conn(|conn, _| {
            redis::pipe()
                .atomic()
                .cmd("SET")
                .arg(&config)
                .arg(text)
                .ignore()
                .cmd("HINCRBY")
                .arg(&ctl)
                .arg("version")
                .arg(1)
                .query(conn)
                .map(|(v,): (u64,)| ((), v))
        })?;
        Ok(version)
    }

    /// An operator's action on one queue, for every worker: `pause`, `retire`, `unpause`, `delete` (returns
    /// the URIs dropped), `delay` or `budget` (`value` in ms or URIs; `None` clears it). `Ok(None)` when the
    /// crawl never had that queue (an empty one that had items is known: deleting it drops 0).
    pub fn queue_action(
        &mut self,
        op: &str,
        queue: &str,
        value: Option<u64>,
    ) -> Result<Option<u64>, SharedError> {
        let prefix = self.prefix.clone();
        let value = value.map(|v| v.to_string()).unwrap_or_default();
        let said: i64 = self.with_conn(|conn, scripts| {
            scripts
                .queue
                .prepare_invoke()
                .key(format!("{prefix}:n"))
                .arg(&prefix)
                .arg(op)
                .arg(queue)
                .arg(&value)
                .arg(0)
                .invoke(conn)
        })?;
        Ok(u64::try_from(said).ok())
    }

    /// The name of every queue the crawl ever gave an item, in no order: what an operator's name for a queue
    /// (a host without its port) is looked up among.
    pub fn queue_names(&mut self) -> Result<Vec<String>, SharedError> {
        let key = format!("{}:budget", self.prefix);
        self.with_conn(|conn, _| redis::cmd("HKEYS").arg(&key).query(conn))
    }

    /// What the queue `queue` was given (URIs ever scheduled to it) and holds now.
    pub fn queue_counts(&mut self, queue: &str) -> Result<(u64, u64), SharedError> {
        let spent = format!("{}:budget", self.prefix);
        let items = format!("{}:q:{queue}", self.prefix);
        let (given, held): (Option<u64>, u64) = self.with_conn(|conn, _| {
            redis::pipe()
                .cmd("HGET")
                .arg(&spent)
                .arg(queue)
                .cmd("LLEN")
                .arg(&items)
                .query(conn)
        })?;
        Ok((given.unwrap_or(0), held))
    }

    /// The first `max` queues by their next turn, and every paused or retired one.
    pub fn queues(&mut self, max: usize) -> Result<Vec<SharedQueue>, SharedError> {
        let prefix = self.prefix.clone();
        let rows: Vec<QueueRowReply> = self.with_conn(|conn, scripts| {
            scripts
                .queue
                .prepare_invoke()
                .key(format!("{prefix}:n"))
                .arg(&prefix)
                .arg("list")
                .arg("")
                .arg("")
                .arg(max)
                .invoke(conn)
        })?;
        Ok(rows
            .into_iter()
            .map(
                |(name, state, queued, leased, spent, budget, delay, wait_ms)| SharedQueue {
                    name,
                    state,
                    queued,
                    in_flight: leased,
                    spent,
                    budget: budget.parse().ok(),
                    delay_ms: delay.parse().ok(),
                    wait_ms,
                },
            )
            .collect())
    }

    /// The crawl-wide state: `run`, `pause` or `stop`.
    pub fn state(&mut self) -> Result<String, SharedError> {
        let key = format!("{}:ctl", self.prefix);
        let v: Option<String> =
            self.with_conn(|conn, _| redis::cmd("HGET").arg(&key).arg("state").query(conn))?;
        Ok(v.unwrap_or_else(|| "run".to_string()))
    }

    /// The settings version: it goes up with every published change.
    pub fn settings_version(&mut self) -> Result<u64, SharedError> {
        let key = format!("{}:ctl", self.prefix);
        let v: Option<u64> =
            self.with_conn(|conn, _| redis::cmd("HGET").arg(&key).arg("version").query(conn))?;
        Ok(v.unwrap_or(0))
    }

    /// The crawl's published settings, if the crawl exists.
    pub fn config(&mut self) -> Result<Option<String>, SharedError> {
        let key = format!("{}:config", self.prefix);
        self.with_conn(|conn, _| redis::cmd("GET").arg(&key).query(conn))
    }
}

/// Small values every worker of a crawl shares, each with its own expiry (robots.txt verdicts): a
/// connection of its own, apart from the frontier's.
pub struct SharedCache {
    target: Target,
    conn: std::sync::Mutex<Option<Conn>>,
    prefix: String,
    /// Whether the last step found Redis unreachable: then a step does not queue behind one under way (each
    /// may wait out the reply timeout), it fails at once.
    failing: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for SharedCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedCache")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl SharedCache {
    /// The cache of crawl `job` at `url`, under `name` (e.g. `robots`).
    pub fn connect(url: &str, job: &str, name: &str) -> Result<SharedCache, SharedError> {
        let target = Target::open(url)?;
        let conn = target.connect()?;
        Ok(SharedCache {
            target,
            conn: std::sync::Mutex::new(Some(conn)),
            prefix: format!("trawl:{{{job}}}:{name}:"),
            failing: std::sync::atomic::AtomicBool::new(false),
        })
    }

    fn run<R>(
        &self,
        step: impl FnOnce(&mut Conn) -> redis::RedisResult<R>,
    ) -> Result<R, SharedError> {
        use std::sync::{TryLockError, atomic::Ordering};
        let mut slot = match self.conn.try_lock() {
            Ok(slot) => slot,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) if self.failing.load(Ordering::Relaxed) => {
                return Err(SharedError::Unavailable(redis::RedisError::from(
                    std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "the last step did not get through, and another is trying now",
                    ),
                )));
            }
            Err(TryLockError::WouldBlock) => self
                .conn
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        };
        let conn = match slot.take() {
            Some(c) => Ok(c),
            None => self.target.connect().map_err(SharedError::from),
        };
        let result = conn.and_then(|mut conn| {
            let result = step(&mut conn).map_err(SharedError::from);
            if !matches!(result, Err(SharedError::Unavailable(_))) {
                *slot = Some(conn);
            }
            result
        });
        let failing = matches!(result, Err(SharedError::Unavailable(_)));
        self.failing.store(failing, Ordering::Relaxed);
        result
    }

    /// The value under `key` and how long it has left, if it is there.
    pub fn get(&self, key: &str) -> Result<Option<(Vec<u8>, Duration)>, SharedError> {
        let key = format!("{}{key}", self.prefix);
        let (value, ttl): (Option<Vec<u8>>, i64) = self.run(|conn| {
            redis::pipe()
                .cmd("GET")
                .arg(&key)
                .cmd("PTTL")
                .arg(&key)
                .query(conn)
        })?;
        Ok(value
            .filter(|_| ttl > 0)
            .map(|v| (v, Duration::from_millis(ttl as u64))))
    }

    /// Puts `value` under `key` for `ttl`.
    pub fn put(&self, key: &str, value: &[u8], ttl: Duration) -> Result<(), SharedError> {
        let key = format!("{}{key}", self.prefix);
        let ms = ttl.as_millis().max(1) as u64;
        self.run(|conn| {
            redis::cmd("SET")
                .arg(&key)
                .arg(value)
                .arg("PX")
                .arg(ms)
                .exec(conn)
        })
    }
}

/// The set of crawl (job) names on a server.
const CRAWLS: &str = "trawl:crawls";

/// The crawls a server holds, by job name.
pub fn shared_crawls(url: &str) -> Result<Vec<String>, SharedError> {
    let mut conn = Target::open(url)?.connect()?;
    let mut names: Vec<String> = redis::cmd("SMEMBERS").arg(CRAWLS).query(&mut conn)?;
    names.sort();
    Ok(names)
}

/// The seen-set key that marks a refused URL's line claimed or written.
fn cut_mark(key: &str) -> String {
    format!("cut {key}")
}

fn encode<T: Item>(item: &T) -> Vec<u8> {
    let mut out = Vec::new();
    item.encode(&mut out);
    out
}

/// The seen-set bucket and field of a uniq key: its 8-byte fingerprint split 2 + 6.
fn seen_slot(key: &str) -> (u16, [u8; 6]) {
    // The same fingerprint as the embedded frontier's uniq filter (xxh3, stable across versions).
    let fp = fingerprint_of(key.as_bytes()).to_be_bytes();
    let mut field = [0u8; 6];
    field.copy_from_slice(&fp[2..]);
    (u16::from_be_bytes([fp[0], fp[1]]), field)
}

fn push_new<T: Item>(inv: &mut redis::ScriptInvocation<'_>, queue: &str, item: &T) {
    let (bucket, field) = seen_slot(item.uniq_key());
    inv.arg(queue)
        .arg(bucket)
        .arg(field.as_slice())
        .arg(encode(item));
}

fn scheduled(code: i64) -> Result<Scheduled, SharedError> {
    match code {
        0 => Ok(Scheduled::Queued),
        1 => Ok(Scheduled::Duplicate),
        2 => Ok(Scheduled::OverBudget),
        other => Err(SharedError::Reply(format!("status {other}"))),
    }
}

mod connect;
mod error;
mod sentinel;
#[cfg(test)]
mod tests;
