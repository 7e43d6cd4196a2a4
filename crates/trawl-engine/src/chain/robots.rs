//! The robots.txt processor: what is known of each origin's robots.txt, the gate a page passes before its
//! fetch ([`RobotsCache::gate`], in prefetch), and what a finished robots.txt fetch settles
//! ([`RobotsCache::after_fetch`], in post). These two functions are the only places robots.txt is handled.

use std::{
    collections::{HashMap, HashSet},
    sync::{
        Arc, Mutex, PoisonError,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use crate::fetch_record::{FetchRecord, decode_limits};
use trawl_config::Annotation;
use trawl_config::CrawlConfig;
use trawl_config::CrawlUri;
use trawl_config::UriKind;
use trawl_config::annotation::Truncation;
use trawl_config::origin;
use trawl_config::status;
use trawl_extract::Hop;
use trawl_fetch::FetchError;
use trawl_fetch::robots::Robots;

/// RFC 9309 asks crawlers to follow at least five redirects for robots.txt.
const MAX_REDIRECTS: u8 = 5;

/// How long a queue is held for a robots.txt being fetched, at most: its outcome releases the queue sooner.
/// Past this the page looks again (the prerequisite may be waiting out retries).
pub(crate) const RECHECK: Duration = Duration::from_secs(1);

/// What is known of one origin's robots.txt.
#[derive(Debug)]
enum RobotsState {
    /// The prerequisite is queued or being fetched (scheduled here `since`); `waiting` are the queues held
    /// until it is known; `cached`, the rules of the robots.txt it refreshes, kept on if it fails.
    Pending {
        waiting: Vec<String>,
        since: Instant,
        cached: Option<Arc<Robots>>,
    },
    /// Rules in force until `expires`; `why` says why everything is disallowed (the robots.txt fetch's
    /// failure), for the pages' crawl.log lines.
    Known {
        robots: Arc<Robots>,
        expires: Instant,
        why: Option<Annotation>,
    },
    /// Nothing of the origin is fetched: its address is refused, or its robots.txt could not be scheduled.
    Off { status: i32, note: Annotation },
}

/// What the gate says of a page.
#[derive(Debug)]
pub(crate) enum Gate {
    /// Fetch it.
    Allowed,
    /// Do not: finish it with this status (and note).
    Blocked {
        status: i32,
        note: Option<Annotation>,
    },
    /// Its robots.txt is being fetched: its queue was noted, to be released when that is settled.
    Pending,
    /// Its robots.txt is unknown: it is now pending, and the caller schedules it as a prerequisite.
    Needed,
}

/// Every origin's robots.txt state, for the crawl's product token.
#[derive(Debug)]
pub(crate) struct RobotsCache {
    origins: Mutex<HashMap<String, RobotsState>>,
    agent: String,
    /// With a shared frontier: the verdicts every worker process shares, so a robots.txt one fetched is
    /// known to all (each keeps its own copy for the verdict's time).
    share: Option<trawl_frontier::SharedCache>,
    /// With a shared frontier: how long an origin stays pending here for a robots.txt that may be fetched
    /// elsewhere (see [`shared_lapse`]). Past it the robots.txt is scheduled again, and a failure verdict
    /// that lapsed longer ago is an earlier round's, which fails no waiting page. In milliseconds, as the
    /// live settings set it ([`RobotsCache::settings_changed`]).
    lapse: Option<AtomicU64>,
    /// When each queue of an origin with a `Crawl-delay` last started a fetch ([`RobotsCache::pace`]).
    starts: Mutex<HashMap<String, Instant>>,
    /// The origins whose robots.txt a worker of this process is fetching now ([`RobotsCache::claim`]).
    claimed: Mutex<HashSet<String>>,
    /// Whether the crawl was launched with several connections per host, so that its queues are paced by
    /// their `Crawl-delay` (the frontier keeps the launch count whatever a later change says).
    paced: bool,
}

/// A worker's claim on the fetch of an origin's robots.txt ([`RobotsCache::claim`]), given up when dropped.
pub(crate) struct RobotsClaim<'a> {
    cache: &'a RobotsCache,
    origin: String,
}

impl Drop for RobotsClaim<'_> {
    fn drop(&mut self) {
        self.cache
            .claimed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.origin);
    }
}

/// How long a robots.txt (or its absence) is trusted: `fetch.robots_expiry_s`, but at least until the pages
/// held behind it had their turn — the host's delay after its fetch (`crawl_delay` included) and a minute
/// more. An expiry under that fetched the robots.txt again and again and never a page (xt12a b F3).
pub(crate) fn trusted_for(settings: &CrawlConfig, crawl_delay: Option<Duration>) -> Duration {
    let f = &settings.frontier;
    let turn = Duration::from_millis(f.max_delay_ms.max(f.min_delay_ms))
        + crawl_delay
            .unwrap_or_default()
            .min(Duration::from_millis(f.max_crawl_delay_ms))
        + Duration::from_secs(60);
    Duration::from_secs(settings.fetch.robots_expiry_s).max(turn)
}

/// How long a robots.txt may take in a shared crawl: claimed under a lease, and tried with every retry, each
/// after its queue's rest (the retry delay, or the politeness delay's cap if longer). Another worker process
/// may settle its origin with a verdict it does not share (its address refused) or die between the fetch and
/// sharing it; an origin pending longer than this is looked at again. A robots.txt slower than this (a
/// Crawl-delay kept from its last verdict, redirects) is scheduled once more, through the same polite queue.
pub(crate) fn shared_lapse(settings: &CrawlConfig) -> Duration {
    let (fetch, frontier) = (&settings.fetch, &settings.frontier);
    let tries = u64::from(frontier.max_retries).saturating_add(1);
    let each = fetch
        .timeout_ms
        .saturating_add(frontier.retry_delay_ms.max(frontier.max_delay_ms));
    Duration::from_millis(frontier.lease_ms.saturating_add(each.saturating_mul(tries)))
}

/// `d` in whole milliseconds, saturating.
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl RobotsCache {
    /// Settles `uri`'s origin from its robots.txt fetch (an answer, or a failure after its retries): 2xx rules,
    /// 4xx allow everything but 429, which like 5xx or no answer disallows everything until retried (the
    /// pages end -61 `robots:429`), a refused address keeps the whole origin off limits. A redirect is
    /// followed instead, up to [`MAX_REDIRECTS`]; one to a refused address is no answer. A file the
    /// connection or a timeout cut short is no answer either (its lost part may disallow what the rest
    /// allows: xt19b F2); one cut at `fetch.max_robots_bytes` is read as far as it goes (RFC 9309 §2.5).
    /// `rest` is how long the host rests after this fetch (a `Retry-After` included): a failure's verdict
    /// lasts past it, so the pages that come after the rest find it and end, instead of each asking for
    /// the robots.txt again (xt19b F3).
    pub(crate) fn after_fetch(
        &self,
        uri: &CrawlUri,
        record: &mut FetchRecord,
        settings: &CrawlConfig,
        rest: Duration,
    ) -> AfterFetch {
        let UriKind::Robots { origin, redirects } = &uri.kind else {
            return AfterFetch::Settled(Vec::new());
        };
        let retry = Duration::from_millis(settings.frontier.retry_delay_ms).max(rest + RECHECK);
        let known = |robots: Robots, ttl: Duration, why: Option<Annotation>| RobotsState::Known {
            robots: Arc::new(robots),
            expires: Instant::now() + ttl,
            why,
        };
        // What other worker processes of a shared crawl are told (a refused address each finds for itself).
        let mut shared = None;
        let state = match &record.fetched.result {
            // The origin's own address refused: nothing of it can be fetched. A redirect of its robots.txt to
            // a refused address is the file not being available (below), not the origin's address.
            Err(e @ FetchError::Refused(..)) if *redirects == 0 => RobotsState::Off {
                status: status::ADDRESS_REFUSED,
                note: e.annotation(),
            },
            Err(e) => {
                shared = shared_failure(&e.annotation());
                known(
                    Robots::DisallowAll,
                    retry,
                    Some(Annotation::Robots(Box::new(e.annotation()))),
                )
            }
            Ok(resp) if cut_short(resp) => {
                let why = Annotation::Truncated(resp.truncated.unwrap_or(Truncation::Disconnect));
                shared = shared_failure(&why);
                known(
                    Robots::DisallowAll,
                    retry,
                    Some(Annotation::Robots(Box::new(why))),
                )
            }
            Ok(resp) => {
                let target = record
                    .location()
                    .filter(|_| (300..400).contains(&resp.status) && *redirects < MAX_REDIRECTS)
                    .and_then(|location| trawl_url::resolve_bytes(&uri.url, location).ok());
                if let Some(target) = target {
                    let mut next = uri.child(target, String::new(), Hop::Redirect);
                    next.kind = UriKind::Robots {
                        origin: origin.clone(),
                        redirects: redirects + 1,
                    };
                    return AfterFetch::Redirected(Box::new(next));
                }
                // `max_robots_bytes` bounds the text as read, not only as sent: a small gzip robots.txt
                // may inflate to many megabytes, all kept parsed for a day per origin.
                let (status, truncated) = (resp.status, resp.truncated.is_some());
                let cap = settings.fetch.max_robots_bytes;
                let mut limits = decode_limits(settings);
                limits.max_bytes = limits.max_bytes.min(cap);
                record.decode(limits);
                // A coding's stream that broke off (a gzip robots.txt cut short) lost what came after: a
                // `Disallow` there could not be obeyed, so it is a failed fetch, as a body the connection cut
                // (xt46a F10: read as the whole file). A coding that could not be undone at all was read as
                // the text came (`Content-Encoding: utf-8`), as browsers read it.
                // Each process of a shared crawl finds it for itself.
                // Of a 2xx only: a 4xx allows everything whatever its body (review 85 R4). A body trawl cut
                // at `max_robots_bytes` is read to its last whole line, as before.
                if record.damaged() && (200..300).contains(&status) && !truncated {
                    let why = Annotation::Robots(Box::new(Annotation::DecodeFailed));
                    return self.settled(
                        origin,
                        known(Robots::DisallowAll, retry, Some(why)),
                        None,
                    );
                }
                let body = record.entity().unwrap_or_default();
                let cut = truncated || body.len() as u64 >= cap;
                // A file cut short (its size limit, a timeout) ends in a line of unknown length: a cut
                // `Allow: /publicstuff` would read `Allow: /`. Only its whole lines are read.
                let body = if cut { whole_lines(body) } else { body };
                if self.share.is_some() {
                    shared = Some(shared_answer(status, body));
                }
                let robots = Robots::from_response(status, body, &self.agent);
                sitemaps_of(uri, &robots, record, settings);
                let trusted = trusted_for(settings, robots.crawl_delay());
                let (ttl, why) = match robots {
                    Robots::DisallowAll => (
                        retry,
                        Some(Annotation::Robots(Box::new(Annotation::Status(status)))),
                    ),
                    _ => (trusted, None),
                };
                known(robots, ttl, why)
            }
        };
        self.settled(origin, state, shared)
    }

    /// `state` settled for `origin` (or the rules at hand, for a failed refresh), and what other worker
    /// processes of a shared crawl are told of it (`shared`) published.
    fn settled(&self, origin: &str, state: RobotsState, mut shared: Option<Vec<u8>>) -> AfterFetch {
        let state = match self.cached(origin, &state) {
            Some(cached) => {
                // Each process keeps to its own copy: the failure is not published.
                shared = None;
                cached
            }
            None => state,
        };
        if let RobotsState::Known { expires, .. } = &state {
            self.publish(
                origin,
                shared,
                expires.saturating_duration_since(Instant::now()),
            );
        }
        AfterFetch::Settled(self.settle(origin, state))
    }

    /// What stands for `failed`, a failed refresh of `origin`'s robots.txt (no answer, a 5xx, a 429, a body
    /// cut short), when the rules of the robots.txt it refreshed are at hand: those rules until `failed`'s
    /// verdict lapses and the file is fetched again. RFC 9309 §2.4 lets a crawler keep a cached copy while
    /// the file is unreachable; a brief 503 at a refresh had ended every queued page of the host -61
    /// (xt19b F4). `None` for an answer, or with no rules at hand.
    fn cached(&self, origin: &str, failed: &RobotsState) -> Option<RobotsState> {
        let RobotsState::Known {
            expires,
            why: Some(_),
            ..
        } = failed
        else {
            return None;
        };
        let robots = match self.origins().get(origin)? {
            RobotsState::Pending {
                cached: Some(robots),
                ..
            }
            | RobotsState::Known {
                robots, why: None, ..
            } => Arc::clone(robots),
            _ => return None,
        };
        Some(RobotsState::Known {
            robots,
            expires: *expires,
            why: None,
        })
    }

    /// An empty cache for `agent` (the product token robots.txt groups name).
    pub(crate) fn new(agent: String) -> RobotsCache {
        RobotsCache {
            origins: Mutex::default(),
            agent,
            share: None,
            lapse: None,
            starts: Mutex::default(),
            claimed: Mutex::default(),
            paced: false,
        }
    }

    /// The same cache pacing queues by their `Crawl-delay` when the crawl was launched with
    /// `connections_per_host` above one ([`RobotsCache::pace`]).
    pub(crate) fn pacing(self, connections_per_host: usize) -> RobotsCache {
        RobotsCache {
            paced: connections_per_host > 1,
            ..self
        }
    }

    /// Whether queues are paced by their `Crawl-delay` ([`RobotsCache::pacing`]).
    pub(crate) fn paces(&self) -> bool {
        self.paced
    }

    /// Spaces the starts of `queue`'s fetches by its origin's `Crawl-delay`, `delay`, whatever the connections
    /// a host may have: `None` when a fetch may start now (it is counted as started), else the instant the
    /// next may. One connection keeps the delay after each fetch already; several each kept it after their
    /// own, so N requests went per delay (xt12a F4). A queue split by `frontier.parallel_queues` is paced per
    /// part, as the docs say.
    pub(crate) fn pace(&self, queue: &str, delay: Duration) -> Option<Instant> {
        let mut starts = self.starts.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        if let Some(last) = starts.get(queue)
            && *last + delay > now
        {
            return Some(*last + delay);
        }
        // A map of the queues with a Crawl-delay that started lately: those paced long ago are let go.
        if starts.len() > 4096 {
            starts.retain(|_, at| now.saturating_duration_since(*at) < Duration::from_secs(3600));
        }
        starts.insert(queue.to_owned(), now);
        None
    }

    /// The same cache sharing its verdicts with a shared crawl's other worker processes through `share`;
    /// an origin pending for longer than `settings` allow is looked at again ([`shared_lapse`]).
    pub(crate) fn shared(
        self,
        share: trawl_frontier::SharedCache,
        settings: &CrawlConfig,
    ) -> RobotsCache {
        RobotsCache {
            share: Some(share),
            lapse: Some(AtomicU64::new(millis(shared_lapse(settings)))),
            ..self
        }
    }

    /// The crawl's settings changed (`trawl ctl … set`): a shared crawl's lapse follows the retries, timeout
    /// and delays they set from now on, as the fetches do.
    pub(crate) fn settings_changed(&self, settings: &CrawlConfig) {
        if let Some(lapse) = &self.lapse {
            lapse.store(millis(shared_lapse(settings)), Ordering::Relaxed);
        }
    }

    /// Forgets that `url`'s origin was refused by the address policy: its host was made a seed host since
    /// (`trawl ctl add-seeds`), so its robots.txt is fetched again before its next page (xt14a F6: the added
    /// seed was refused from the old verdict).
    pub(crate) fn forget_refusal(&self, url: &url::Url) {
        let origin = origin(url);
        let mut origins = self.origins();
        if matches!(origins.get(&origin), Some(RobotsState::Off { .. })) {
            origins.remove(&origin);
        }
    }

    /// Settles `origin` from the shared verdicts if another worker process fetched its robots.txt.
    fn learn_shared(&self, origin: &str) {
        let Some(share) = &self.share else {
            return;
        };
        let settled = matches!(
            self.origins().get(origin),
            Some(RobotsState::Known { expires, .. }) if *expires > Instant::now()
        ) || matches!(self.origins().get(origin), Some(RobotsState::Off { .. }));
        if settled {
            return;
        }
        // A round trip to Redis, up to its reply timeout when it does not answer: off the async threads.
        match crate::blocking::blocking(usize::MAX, || share.get(origin)) {
            Ok(Some((value, ttl))) => {
                if let Some(state) = shared_state(&value, ttl, &self.agent) {
                    self.settle(origin, state);
                }
            }
            Ok(None) => {}
            Err(e) => tracing::warn!("shared robots.txt verdicts: {e}"),
        }
    }

    /// Shares a verdict (see [`shared_form`]) with the other worker processes for `ttl`.
    fn publish(&self, origin: &str, value: Option<Vec<u8>>, ttl: Duration) {
        if let (Some(share), Some(value)) = (&self.share, value)
            && let Err(e) = crate::blocking::blocking(usize::MAX, || share.put(origin, &value, ttl))
        {
            tracing::warn!("sharing the robots.txt of {origin}: {e}");
        }
    }

    fn origins(&self) -> std::sync::MutexGuard<'_, HashMap<String, RobotsState>> {
        self.origins.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The gate before fetching `uri` (a page) from `queue`. The rules are matched after the lock on every
    /// origin's state is released: a hostile robots.txt costs its own pages' checks, not every other
    /// host's gate waiting on the lock (xt12a F1).
    pub(crate) fn gate(&self, uri: &CrawlUri, queue: &str) -> Gate {
        let origin = origin(&uri.url);
        self.learn_shared(&origin);
        let (robots, why) = match self.lookup(&origin, uri, queue) {
            Ok(known) => known,
            Err(gate) => return gate,
        };
        if robots.allowed(&uri.url) {
            Gate::Allowed
        } else if matches!(*robots, Robots::DisallowAll) {
            Gate::Blocked {
                status: status::ROBOTS_PREREQUISITE_FAILED,
                note: why,
            }
        } else {
            Gate::Blocked {
                status: status::ROBOTS_DISALLOWED,
                note: None,
            }
        }
    }

    /// The gate's look at `origin`'s state, under the lock: the rules in force (and why they disallow
    /// everything, if they do) for the caller to match, or the gate's answer when there are none.
    fn lookup(
        &self,
        origin: &str,
        uri: &CrawlUri,
        queue: &str,
    ) -> Result<(Arc<Robots>, Option<Annotation>), Gate> {
        let mut origins = self.origins();
        let gate = match origins.get_mut(origin) {
            Some(RobotsState::Known {
                robots,
                expires,
                why,
            }) if *expires > Instant::now() => return Ok((Arc::clone(robots), why.clone())),
            Some(RobotsState::Off { status, note }) => Gate::Blocked {
                status: *status,
                note: Some(note.clone()),
            },
            Some(RobotsState::Pending { waiting, since, .. }) if !self.lapsed(*since) => {
                if !waiting.iter().any(|q| q == queue) {
                    waiting.push(queue.to_string());
                }
                Gate::Pending
            }
            // Back after waiting for a robots.txt whose fetch failed, and whose verdict (kept for
            // `retry_delay_ms`) lapsed before this page's turn came: the page fails rather than wait again.
            // Only a verdict of this process counts: after a restart nothing is known, and a page that was
            // waiting when the crawl stopped waits for the robots.txt fetched anew. In a shared crawl, a
            // verdict lapsed long ago is an earlier round's: the page waited for another process's fetch.
            Some(RobotsState::Known {
                why: Some(why),
                expires,
                ..
            }) if uri.awaited_robots && !self.lapsed(*expires) => Gate::Blocked {
                status: status::ROBOTS_PREREQUISITE_FAILED,
                note: Some(why.clone()),
            },
            _ => {
                // Queues held for a pending state that lapsed stay held for the new fetch; the rules of a
                // robots.txt that lapsed stay at hand, should the new fetch fail.
                let (waiting, cached) = match origins.remove(origin) {
                    Some(RobotsState::Pending {
                        waiting, cached, ..
                    }) => (waiting, cached),
                    Some(RobotsState::Known {
                        robots, why: None, ..
                    }) => (Vec::new(), Some(robots)),
                    _ => (Vec::new(), None),
                };
                let since = Instant::now();
                origins.insert(
                    origin.to_string(),
                    RobotsState::Pending {
                        waiting,
                        since,
                        cached,
                    },
                );
                Gate::Needed
            }
        };
        Err(gate)
    }

    /// Whether `at` is longer ago than a shared crawl's lapse (never in a crawl of one process).
    fn lapsed(&self, at: Instant) -> bool {
        self.lapse.as_ref().is_some_and(|lapse| {
            at.elapsed() > Duration::from_millis(lapse.load(Ordering::Relaxed))
        })
    }

    /// Claims the fetch of `origin`'s robots.txt for a robots.txt item just taken, until the claim is dropped
    /// (its processing ended, whatever the outcome: settled, retried, redirected, panicked). `None` for a
    /// second item, which is not fetched: one taken while another worker fetches the same robots.txt (two
    /// items scheduled for one origin before either was fetched, with several connections per host), or
    /// while the origin's verdict is in force (one scheduled while the first waited in the queue unknown to
    /// this process: after a resume; xt17b F1). A retry or a redirect hop comes after its claim is dropped.
    pub(crate) fn claim(&self, origin: &str) -> Option<RobotsClaim<'_>> {
        let mut claimed = self.claimed.lock().unwrap_or_else(PoisonError::into_inner);
        // Looked at under the claims' lock: a claim dropped after this look settled the origin first.
        if self.in_force(origin) || !claimed.insert(origin.to_string()) {
            return None;
        }
        drop(claimed);
        self.fetching(origin);
        Some(RobotsClaim {
            cache: self,
            origin: origin.to_string(),
        })
    }

    /// Whether `origin`'s robots.txt is settled and in force.
    fn in_force(&self, origin: &str) -> bool {
        matches!(
            self.origins().get(origin),
            Some(RobotsState::Known { expires, .. }) if *expires > Instant::now()
        )
    }

    /// Whether `origin`'s robots.txt is being fetched.
    pub(crate) fn is_pending(&self, origin: &str) -> bool {
        matches!(
            self.origins().get(origin),
            Some(RobotsState::Pending { .. })
        )
    }

    /// A robots.txt of `origin` is about to be fetched: an origin this process knows nothing of (a
    /// robots.txt left queued by an earlier run, which resume takes before any page) becomes pending, so
    /// that a page of it taken meanwhile waits for this fetch instead of scheduling a second one.
    fn fetching(&self, origin: &str) {
        self.origins()
            .entry(origin.to_string())
            .or_insert_with(|| RobotsState::Pending {
                waiting: Vec::new(),
                since: Instant::now(),
                cached: None,
            });
    }

    /// The `Crawl-delay` `origin`'s robots.txt asks of us, if any.
    pub(crate) fn crawl_delay(&self, origin: &str) -> Option<Duration> {
        match self.origins().get(origin) {
            Some(RobotsState::Known { robots, .. }) => robots.crawl_delay(),
            _ => None,
        }
    }

    /// Settles `origin` as after a failed fetch of its robots.txt (`why`): everything disallowed for
    /// `retry`, then fetched again. For a robots.txt whose processing failed on a bug (a panic).
    pub(crate) fn failed(&self, origin: &str, retry: Duration, why: Annotation) -> Vec<String> {
        self.settle(
            origin,
            RobotsState::Known {
                robots: Arc::new(Robots::DisallowAll),
                expires: Instant::now() + retry,
                why: Some(Annotation::Robots(Box::new(why))),
            },
        )
    }

    /// Marks `origin` off limits: its robots.txt could not be scheduled (`why` names the rule).
    pub(crate) fn unschedulable(&self, origin: &str, why: Annotation) -> Vec<String> {
        self.settle(
            origin,
            RobotsState::Off {
                status: status::PREREQUISITE_UNSCHEDULABLE,
                note: why,
            },
        )
    }

    /// Settles `origin` as having no usable robots.txt (everything allowed for `ttl`): for a redirect the
    /// scope will not follow, which RFC 9309 lets a crawler treat as "unavailable".
    pub(crate) fn unavailable(&self, origin: &str, ttl: Duration) -> Vec<String> {
        // Shared as a robots.txt that is not there (404): every process allows the origin alike.
        self.publish(origin, Some(shared_answer(404, b"")), ttl);
        self.settle(
            origin,
            RobotsState::Known {
                robots: Arc::new(Robots::AllowAll),
                expires: Instant::now() + ttl,
                why: None,
            },
        )
    }

    /// Puts an origin's state in force; returns the queues held waiting for it, to be released.
    fn settle(&self, origin: &str, state: RobotsState) -> Vec<String> {
        match self.origins().insert(origin.to_string(), state) {
            Some(RobotsState::Pending { waiting, .. }) => waiting,
            _ => Vec::new(),
        }
    }
}

/// The context of a robots.txt `Sitemap:` line's URL: a sitemap, read as one when fetched.
pub(crate) const ROBOTS_SITEMAP: &str = "robots/sitemap";
/// The context of the `/sitemap.xml` a robots.txt fetch probes for (`sitemap_probe`): a sitemap too.
pub(crate) const SITEMAP_PROBE: &str = "sitemap-probe";

/// The sitemaps a robots.txt names (`[extract] sitemaps`), and `/sitemap.xml` (`sitemap_probe`), as `S`-hop
/// links of the robots.txt URI: the scope judges them like any link.
fn sitemaps_of(uri: &CrawlUri, robots: &Robots, record: &mut FetchRecord, settings: &CrawlConfig) {
    let link = |url: url::Url, context| trawl_extract::Outlink {
        url,
        hop: Hop::Sitemap,
        context,
        lastmod: None,
    };
    if settings.extract.sitemaps {
        for s in robots.sitemaps() {
            if let Ok(url) = trawl_url::resolve(&uri.url, s)
                && url.as_str().len() <= trawl_extract::MAX_URL_LEN
            {
                record.outlinks.push(link(url, ROBOTS_SITEMAP));
            }
        }
    }
    if settings.extract.sitemap_probe
        && let Ok(url) = uri.url.join("/sitemap.xml")
    {
        record.outlinks.push(link(url, SITEMAP_PROBE));
    }
}

/// What a robots.txt fetch that is over leads to.
#[derive(Debug)]
pub(crate) enum AfterFetch {
    /// Redirected: the target is fetched next (as a prerequisite still); the origin stays pending.
    Redirected(Box<CrawlUri>),
    /// The origin's rules are settled; these queues were held for them.
    Settled(Vec<String>),
}

/// A robots.txt answer as shared: `R`, its status (2 bytes) and its body.
fn shared_answer(status: u16, body: &[u8]) -> Vec<u8> {
    let mut value = vec![b'R'];
    value.extend_from_slice(&status.to_be_bytes());
    value.extend_from_slice(body);
    value
}

/// `body` up to its last line break: what a robots.txt cut short says for certain.
fn whole_lines(body: &[u8]) -> &[u8] {
    match body.iter().rposition(|&b| b == b'\n' || b == b'\r') {
        Some(end) => &body[..=end],
        None => &[],
    }
}

/// A robots.txt fetch failure as shared: `E` and the failure's kind (`err=KIND`).
fn shared_failure(failure: &Annotation) -> Option<Vec<u8>> {
    match failure {
        Annotation::FetchFailed(kind) => Some([b"E".as_slice(), kind.as_bytes()].concat()),
        Annotation::Truncated(t) => Some([b"E".as_slice(), t.annotation().as_bytes()].concat()),
        _ => None,
    }
}

/// Whether `resp`, a robots.txt's 2xx answer, was cut short by the connection or a timeout: no answer, as
/// a fetch that failed (a cut at the size limit is read as far as it goes). Another status is read for what
/// it says whatever its body: a 4xx allows everything, a 3xx is followed, a 5xx or 429 is retried as asked.
pub(crate) fn cut_short(resp: &trawl_fetch::Response) -> bool {
    (200..300).contains(&resp.status)
        && matches!(
            resp.truncated,
            Some(Truncation::Time | Truncation::Disconnect)
        )
}

/// The state a shared verdict stands for, for `ttl` more: `R` + status (2 bytes) + body, the rules of an
/// answer; `E` + kind, a failed fetch (everything disallowed until retried).
fn shared_state(value: &[u8], ttl: Duration, agent: &str) -> Option<RobotsState> {
    let expires = Instant::now() + ttl;
    match value.split_first()? {
        (b'R', rest) if rest.len() >= 2 => {
            let status = u16::from_be_bytes([rest[0], rest[1]]);
            let robots = Robots::from_response(status, &rest[2..], agent);
            let why = matches!(robots, Robots::DisallowAll)
                .then(|| Annotation::Robots(Box::new(Annotation::Status(status))));
            Some(RobotsState::Known {
                robots: Arc::new(robots),
                expires,
                why,
            })
        }
        (b'E', b"timeTrunc" | b"midFetchTrunc") => {
            let cut = match value {
                b"EtimeTrunc" => Truncation::Time,
                _ => Truncation::Disconnect,
            };
            Some(RobotsState::Known {
                robots: Arc::new(Robots::DisallowAll),
                expires,
                why: Some(Annotation::Robots(Box::new(Annotation::Truncated(cut)))),
            })
        }
        (b'E', kind) => {
            // The kinds a fetch failure names (FetchError::annotation).
            let kind = match kind {
                b"dns" => "dns",
                b"connect" => "connect",
                b"timeout" => "timeout",
                b"proxy" => "proxy",
                b"invalid-request" => "invalid-request",
                b"malformed" => "malformed",
                _ => "broken",
            };
            Some(RobotsState::Known {
                robots: Arc::new(Robots::DisallowAll),
                expires,
                why: Some(Annotation::Robots(Box::new(Annotation::FetchFailed(kind)))),
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page of 127.0.0.1 that waited for its robots.txt once (as it is read back from the frontier's store).
    fn awaited() -> CrawlUri {
        let mut uri = CrawlUri::seed(
            url::Url::parse("http://127.0.0.1:9/page").unwrap(),
            "127.0.0.1:9/page".into(),
        );
        uri.awaited_robots = true;
        uri
    }

    /// A verdict that has just lapsed; `failure` says why everything was disallowed.
    fn lapsed(cache: &RobotsCache, failure: Option<Annotation>) {
        let robots = match failure {
            Some(_) => Robots::DisallowAll,
            None => Robots::AllowAll,
        };
        cache.settle(
            "http://127.0.0.1:9",
            RobotsState::Known {
                robots: Arc::new(robots),
                expires: Instant::now(),
                why: failure,
            },
        );
    }

    /// An origin whose address was refused is asked for again once its host became a seed's (xt14a F6).
    #[test]
    fn a_refusal_is_forgotten_for_an_added_seed() {
        let cache = RobotsCache::new("trawl".into());
        cache.settle(
            "http://127.0.0.1:9",
            RobotsState::Off {
                status: status::ADDRESS_REFUSED,
                note: Annotation::FetchFailed("connect"),
            },
        );
        let mut page = awaited();
        page.awaited_robots = false;
        assert!(matches!(cache.gate(&page, "q"), Gate::Blocked { .. }));
        cache.forget_refusal(&page.url);
        assert!(matches!(cache.gate(&page, "q"), Gate::Needed));
    }

    #[test]
    fn a_page_that_waited_before_a_restart_waits_again() {
        // The crawl was killed while the page waited: the new process knows no verdict, so the page's
        // robots.txt is fetched again instead of failing it (-61) for a fetch this process never made.
        let cache = RobotsCache::new("trawl".into());
        assert!(matches!(cache.gate(&awaited(), "q"), Gate::Needed));
        assert!(matches!(cache.gate(&awaited(), "q"), Gate::Pending));
    }

    #[test]
    fn a_page_back_after_a_failed_fetch_lapsed_fails_with_its_cause() {
        let cache = RobotsCache::new("trawl".into());
        lapsed(&cache, Some(Annotation::FetchFailed("connect")));
        match cache.gate(&awaited(), "q") {
            Gate::Blocked { status, note } => {
                assert_eq!(status, status::ROBOTS_PREREQUISITE_FAILED);
                assert_eq!(note, Some(Annotation::FetchFailed("connect")));
            }
            other => panic!("{other:?}"),
        }
        // A page that has not waited yet asks for the robots.txt again.
        let mut fresh = awaited();
        fresh.awaited_robots = false;
        assert!(matches!(cache.gate(&fresh, "q"), Gate::Needed));
    }

    /// A robots.txt item taken while another worker fetches its origin's robots.txt, or while the origin's
    /// verdict is in force, is a second one, not fetched; one taken while the origin is unknown, pending
    /// with no fetch going on (a retry's turn) or its verdict lapsed is fetched (xt17b F1).
    #[test]
    fn a_second_robots_txt_is_known_by_the_claim_or_the_verdict_in_force() {
        let cache = RobotsCache::new("trawl".into());
        let origin = "http://127.0.0.1:9";
        let first = cache.claim(origin).expect("unknown: fetched");
        assert!(cache.is_pending(origin));
        assert!(
            cache.claim(origin).is_none(),
            "taken while the first is fetched"
        );
        assert!(
            cache.claim("https://127.0.0.1:9").is_some(),
            "another origin"
        );
        drop(first);
        let retry = cache
            .claim(origin)
            .expect("pending, its first fetch ended: a retry");
        drop(retry);
        lapsed(&cache, None);
        drop(cache.claim(origin).expect("lapsed: fetched again"));
        cache.settle(
            origin,
            RobotsState::Known {
                robots: Arc::new(Robots::AllowAll),
                expires: Instant::now() + Duration::from_secs(60),
                why: None,
            },
        );
        assert!(cache.claim(origin).is_none(), "in force");
    }

    #[test]
    fn a_lapsed_verdict_that_allowed_is_fetched_again() {
        let cache = RobotsCache::new("trawl".into());
        lapsed(&cache, None);
        assert!(matches!(cache.gate(&awaited(), "q"), Gate::Needed));
    }

    /// xt6b F12: `max_robots_bytes` bounded the bytes as sent, so a gzip robots.txt of some hundred KB was
    /// read (and kept parsed for a day) as tens of MB. Now the decoded text stops at the limit, at a whole line.
    #[test]
    fn a_compressed_robots_txt_is_read_to_the_size_limit_once_decoded() {
        let mut text = b"User-agent: *\nDisallow: /early\n".to_vec();
        while text.len() < 1 << 20 {
            text.extend_from_slice(b"# padding, padding, padding\n");
        }
        text.extend_from_slice(b"Disallow: /late\n");
        let mut record = crate::fetch_record::tests::gzipped(&text);
        let mut settings = CrawlConfig::default();
        settings.fetch.max_robots_bytes = 64 << 10;
        let cache = RobotsCache::new("trawl".into());
        let mut page = awaited();
        page.awaited_robots = false;
        assert!(matches!(cache.gate(&page, "q"), Gate::Needed));
        cache.after_fetch(
            &page.robots_prerequisite(),
            &mut record,
            &settings,
            Duration::ZERO,
        );
        let at = |path: &str| {
            let mut uri = page.clone();
            uri.url = url::Url::parse(&format!("http://127.0.0.1:9{path}")).unwrap();
            cache.gate(&uri, "q")
        };
        assert!(
            matches!(at("/early"), Gate::Blocked { .. }),
            "{:?}",
            at("/early")
        );
        assert!(matches!(at("/late"), Gate::Allowed), "{:?}", at("/late"));
    }

    /// xt12a F11: a robots.txt still answered 429 after its retries allowed the whole site, as a 404 does;
    /// now its pages end -61 `robots:429`, as after a 5xx, and a 404 still allows everything.
    #[test]
    fn a_robots_txt_answered_429_allows_nothing() {
        let settled = |status: u16| {
            let mut record = crate::fetch_record::tests::gzipped(b"User-agent: *\nAllow: /\n");
            if let Ok(resp) = &mut record.fetched.result {
                resp.status = status;
            }
            let cache = RobotsCache::new("trawl".into());
            let mut page = awaited();
            page.awaited_robots = false;
            assert!(matches!(cache.gate(&page, "q"), Gate::Needed));
            cache.after_fetch(
                &page.robots_prerequisite(),
                &mut record,
                &CrawlConfig::default(),
                Duration::ZERO,
            );
            cache.gate(&page, "q")
        };
        match settled(429) {
            Gate::Blocked { status, note } => {
                assert_eq!(status, status::ROBOTS_PREREQUISITE_FAILED);
                let note = note.map(|n| n.to_string());
                assert_eq!(note.as_deref(), Some("robots:429"));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(settled(404), Gate::Allowed));
    }

    /// xt46a F10: a robots.txt whose coding could not be undone was read as no rules at all. A label that
    /// fits no coding (`utf-8`, `x-custom`, plain text sent as `gzip`) is read as the text came; a gzip stream
    /// cut before its end allows nothing, `robots:decodeFailed`, as a file the connection cut.
    #[test]
    fn a_robots_txt_whose_coding_fails_is_read_as_it_came_or_allows_nothing() {
        let text = b"User-agent: *\nDisallow: /secret\n".repeat(40);
        let settled = |label: &str, body: Vec<u8>| {
            let mut record = crate::fetch_record::tests::gzipped(b"");
            if let Ok(resp) = &mut record.fetched.result {
                resp.headers
                    .insert("content-encoding", label.parse().unwrap());
                resp.body = body;
            }
            let cache = RobotsCache::new("trawl".into());
            let mut page = awaited();
            page.awaited_robots = false;
            cache.after_fetch(
                &page.robots_prerequisite(),
                &mut record,
                &CrawlConfig::default(),
                Duration::ZERO,
            );
            let at = |path: &str| {
                let mut uri = page.clone();
                uri.url = url::Url::parse(&format!("http://127.0.0.1:9{path}")).unwrap();
                cache.gate(&uri, "q")
            };
            (at("/secret"), at("/open"))
        };
        for label in ["utf-8", "x-custom", "gzip"] {
            let (secret, open) = settled(label, text.clone());
            assert!(
                matches!(secret, Gate::Blocked { .. }),
                "{label}: {secret:?}"
            );
            assert!(matches!(open, Gate::Allowed), "{label}: {open:?}");
        }
        let gz = crate::fetch_record::tests::gzipped(&text);
        let whole = gz.response().unwrap().body.clone();
        // A 404's body says nothing of the rules, damaged or not.
        let mut missing = crate::fetch_record::tests::gzipped(b"");
        if let Ok(resp) = &mut missing.fetched.result {
            resp.status = 404;
            resp.body = whole[..whole.len() / 2].to_vec();
        }
        let cache = RobotsCache::new("trawl".into());
        let mut page = awaited();
        page.awaited_robots = false;
        cache.after_fetch(
            &page.robots_prerequisite(),
            &mut missing,
            &CrawlConfig::default(),
            Duration::ZERO,
        );
        assert!(matches!(cache.gate(&page, "q"), Gate::Allowed));
        match settled("gzip", whole[..whole.len() / 2].to_vec()).1 {
            Gate::Blocked { status, note } => {
                assert_eq!(status, status::ROBOTS_PREREQUISITE_FAILED);
                let note = note.map(|n| n.to_string());
                assert_eq!(note.as_deref(), Some("robots:decodeFailed"));
            }
            other => panic!("{other:?}"),
        }
    }

    /// xt19b F4: a refresh of a robots.txt that meets a 503 keeps the rules it refreshed (RFC 9309 §2.4)
    /// until the failure's verdict lapses, where it ended every queued page of the host -61; a first fetch
    /// that fails still allows nothing.
    #[test]
    fn a_failed_refresh_keeps_the_rules_it_refreshed() {
        let origin = "http://127.0.0.1:9";
        let at = |path: &str| {
            let mut uri = awaited();
            uri.awaited_robots = false;
            uri.url = url::Url::parse(&format!("{origin}{path}")).unwrap();
            uri
        };
        let busy = || {
            let mut record = crate::fetch_record::tests::gzipped(b"busy");
            if let Ok(resp) = &mut record.fetched.result {
                resp.status = 503;
            }
            record
        };
        let settings = CrawlConfig::default();
        let cache = RobotsCache::new("trawl".into());
        cache.settle(
            origin,
            RobotsState::Known {
                robots: Arc::new(Robots::from_response(
                    200,
                    b"User-agent: *\nDisallow: /private\n",
                    "trawl",
                )),
                expires: Instant::now(),
                why: None,
            },
        );
        assert!(matches!(cache.gate(&at("/page"), "q"), Gate::Needed));
        let refresh = at("/page").robots_prerequisite();
        cache.after_fetch(&refresh, &mut busy(), &settings, Duration::ZERO);
        assert!(matches!(cache.gate(&at("/page"), "q"), Gate::Allowed));
        assert!(matches!(
            cache.gate(&at("/private/x"), "q"),
            Gate::Blocked { status: s, .. } if s == status::ROBOTS_DISALLOWED
        ));
        let first = RobotsCache::new("trawl".into());
        assert!(matches!(first.gate(&at("/page"), "q"), Gate::Needed));
        first.after_fetch(&refresh, &mut busy(), &settings, Duration::ZERO);
        assert!(matches!(
            first.gate(&at("/page"), "q"),
            Gate::Blocked { status: s, .. } if s == status::ROBOTS_PREREQUISITE_FAILED
        ));
    }

    /// Review R1: only a 2xx body cut short is no answer; a 404 cut short still allows everything.
    #[test]
    fn a_cut_body_is_no_answer_only_for_a_2xx() {
        let settled = |status: u16| {
            let mut record = crate::fetch_record::tests::gzipped(b"User-agent: *\nAllow: /\n");
            if let Ok(resp) = &mut record.fetched.result {
                resp.status = status;
                resp.truncated = Some(Truncation::Disconnect);
            }
            let cache = RobotsCache::new("trawl".into());
            let mut page = awaited();
            page.awaited_robots = false;
            assert!(matches!(cache.gate(&page, "q"), Gate::Needed));
            let prerequisite = page.robots_prerequisite();
            cache.after_fetch(
                &prerequisite,
                &mut record,
                &CrawlConfig::default(),
                Duration::ZERO,
            );
            cache.gate(&page, "q")
        };
        assert!(matches!(settled(404), Gate::Allowed));
        match settled(200) {
            Gate::Blocked { note, .. } => {
                assert_eq!(
                    note.map(|n| n.to_string()).as_deref(),
                    Some("robots:midFetchTrunc")
                );
            }
            other => panic!("{other:?}"),
        }
    }

    /// A cache as a shared crawl's worker process has it, with `lapse`, and no Redis behind it.
    fn shared_with(lapse: Duration) -> RobotsCache {
        RobotsCache {
            lapse: Some(AtomicU64::new(millis(lapse))),
            ..RobotsCache::new("trawl".into())
        }
    }

    #[test]
    fn in_a_shared_crawl_an_origin_pending_too_long_is_scheduled_again() {
        // Another process took the robots.txt and settled it with a verdict it does not share (a refused
        // address), or died: its pages would wait here for good.
        let cache = shared_with(Duration::from_millis(300));
        let mut page = awaited();
        page.awaited_robots = false;
        assert!(matches!(cache.gate(&page, "q"), Gate::Needed));
        assert!(matches!(cache.gate(&page, "q2"), Gate::Pending));
        std::thread::sleep(Duration::from_millis(500));
        assert!(matches!(cache.gate(&page, "q"), Gate::Needed));
        assert!(matches!(cache.gate(&page, "q"), Gate::Pending));
        // The queues held before the lapse are still released when it settles.
        let released = cache.unavailable("http://127.0.0.1:9", Duration::from_secs(60));
        assert_eq!(released, ["q2", "q"]);
        // A crawl of one process waits as long as its own frontier holds the robots.txt.
        let single = RobotsCache::new("trawl".into());
        assert!(matches!(single.gate(&page, "q"), Gate::Needed));
        std::thread::sleep(Duration::from_millis(500));
        assert!(matches!(single.gate(&page, "q"), Gate::Pending));
    }

    #[test]
    fn in_a_shared_crawl_a_failure_of_an_earlier_round_fails_no_waiting_page() {
        // The page waited for a robots.txt another process is fetching; this process still holds the
        // verdict of a fetch that failed long ago.
        let cache = shared_with(Duration::from_millis(300));
        lapsed(&cache, Some(Annotation::FetchFailed("connect")));
        std::thread::sleep(Duration::from_millis(500));
        assert!(matches!(cache.gate(&awaited(), "q"), Gate::Needed));
        // One that lapsed just now is this round's: the page fails with its cause.
        lapsed(&cache, Some(Annotation::FetchFailed("timeout")));
        assert!(matches!(
            cache.gate(&awaited(), "q"),
            Gate::Blocked {
                status: status::ROBOTS_PREREQUISITE_FAILED,
                ..
            }
        ));
    }

    #[test]
    fn the_shared_lapse_covers_a_robots_txt_with_all_its_tries() {
        let settings = CrawlConfig::default();
        // 30 s lease, then 4 tries of a 20 s timeout and a 30 s wait.
        assert_eq!(shared_lapse(&settings), Duration::from_secs(30 + 4 * 50));
        let mut slow = settings.clone();
        slow.frontier.max_delay_ms = 60_000;
        assert_eq!(shared_lapse(&slow), Duration::from_secs(30 + 4 * 80));
        slow.fetch.timeout_ms = u64::MAX;
        assert_eq!(shared_lapse(&slow), Duration::from_millis(u64::MAX));
    }

    /// `trawl ctl --frontier … set` shortening the retries or the timeout shortens how long an origin stays
    /// pending, without a restart; a crawl of one process still never lapses.
    #[test]
    fn the_shared_lapse_follows_a_settings_change() {
        let cache = shared_with(Duration::from_secs(600));
        let mut page = awaited();
        page.awaited_robots = false;
        assert!(matches!(cache.gate(&page, "q"), Gate::Needed));
        std::thread::sleep(Duration::from_millis(400));
        assert!(matches!(cache.gate(&page, "q"), Gate::Pending));
        let mut quick = CrawlConfig::default();
        quick.frontier.lease_ms = 100;
        quick.frontier.max_retries = 0;
        quick.frontier.retry_delay_ms = 0;
        quick.frontier.max_delay_ms = 0;
        quick.fetch.timeout_ms = 100;
        assert_eq!(shared_lapse(&quick), Duration::from_millis(200));
        cache.settings_changed(&quick);
        assert!(matches!(cache.gate(&page, "q"), Gate::Needed));
        let single = RobotsCache::new("trawl".into());
        assert!(matches!(single.gate(&page, "q"), Gate::Needed));
        single.settings_changed(&quick);
        std::thread::sleep(Duration::from_millis(400));
        assert!(matches!(single.gate(&page, "q"), Gate::Pending));
    }
}
