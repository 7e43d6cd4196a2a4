//! A worker: takes a URI from the frontier, runs it through the chains, and applies the outcome to the
//! frontier. [`apply`] is the one place an outcome touches the frontier; the journal thread commits what it
//! changed, after the crawl.log lines.

use std::{sync::Arc, time::Instant};

use trawl_config::{Annotation, status};
use trawl_frontier::{Next, Pace, Scheduled, Taken, Ticket};

use super::shared::Shared;
use crate::{
    chain::{
        self,
        outcome::{self, Cut, Disposition, NewSeed, Outcome, Placement},
    },
    lock::lock,
};

pub(super) async fn worker(shared: Arc<Shared>, id: usize) {
    if let Some(remote) = &shared.remote {
        return super::remote_worker::worker(shared.clone(), remote, id).await;
    }
    let stop = &shared.pipeline.stop;
    loop {
        if !super::wake::running(stop).await {
            return;
        }
        let next = lock(&shared.frontier).next(Instant::now());
        let next = match next {
            Ok(next) => next,
            Err(e) => {
                shared.pipeline.fail(e.to_string());
                return;
            }
        };
        match next {
            Next::Ready(Taken {
                item,
                queue,
                ticket,
                next_ready,
            }) => {
                // Another item is ready too: the next idle worker takes it (and wakes the next in turn).
                // One ready later: the alarm wakes a worker then.
                match next_ready {
                    Some(at) if at <= Instant::now() => shared.wake.one(),
                    Some(at) => shared.wake.at(at),
                    None => {}
                }
                let outcome = if fetched_by_a_page(&shared, &item) {
                    Outcome::only(Disposition::HandedOver)
                } else {
                    chain::process_guarded(&shared.pipeline, item, &queue, id).await
                };
                // What the outcome made ready, this worker finds first: it asks the frontier again at once.
                apply(&shared, &queue, ticket, outcome, id);
                continue;
            }
            Next::WaitUntil(at) => shared.wake.at(at),
            // Every queue with items is in flight or held: a finishing worker takes the next itself, and
            // wakes one if there is more.
            Next::Busy => {}
            Next::Empty => {
                shared.wake.all();
                return;
            }
        }
        shared.wake.wait(stop).await;
    }
}

/// Whether a browser page fetched `item`'s URL after a link queued it (its `fetched` mark, from
/// [`Placement::Fetched`]): then the item ends without a fetch nor a line, the page's request having both.
/// Asked only where [`may_be_fetched_by_a_page`] says so, and only of an exact uniq filter: a Bloom filter's
/// false positive would end a queued URL silently (review 65 R4).
fn fetched_by_a_page(shared: &Shared, item: &trawl_config::CrawlUri) -> bool {
    marks_fetched(&shared.pipeline)
        && may_be_fetched_by_a_page(&shared.pipeline, item)
        && lock(&shared.frontier).is_seen(&outcome::fetched(&item.uniq_key))
}

/// Whether this crawl's own frontier keeps `fetched` marks: when it may render, with an exact uniq filter.
fn marks_fetched(p: &crate::chain::pipeline::Pipeline) -> bool {
    p.rendering.is_some()
        && p.settings().config.frontier.uniq == trawl_config::settings::UniqMode::Exact
}

/// Whether `item`, of a crawl that may render, is one a browser page's fetch may stand for
/// ([`outcome::may_stand_for`]).
fn may_be_fetched_by_a_page(
    p: &crate::chain::pipeline::Pipeline,
    item: &trawl_config::CrawlUri,
) -> bool {
    p.rendering.is_some() && outcome::may_stand_for(item)
}

/// Applies what became of a URI taken from `queue` with `ticket` to the frontier: the URI finished or put
/// back, held queues released, accepted children through the uniq filter into their queues, and refused
/// ones logged once each.
fn apply(shared: &Shared, queue: &str, ticket: Ticket, outcome: Outcome, worker: usize) {
    let p = &shared.pipeline;
    let now = Instant::now();
    let Outcome {
        disposition,
        children,
        predicted,
        mut cuts,
        links_found: _,
        release,
        line,
        new_seeds,
        asked,
    } = outcome;
    // The scope widened before the target is queued, so its links are judged by the widened one. A target
    // fetched already (through another page's redirect, its links judged by the narrow scope) is fetched
    // once more.
    let widened: Vec<String> = new_seeds
        .iter()
        .filter(|seed| widen(shared, seed))
        .map(|seed| seed.target.uniq_key.clone())
        .collect();
    let mut f = lock(&shared.frontier);
    // Handed over while the frontier is held: the journal commits this outcome only after writing it.
    let logged = line.is_some();
    if let Some(line) = line {
        p.write_line(line);
    }
    // A rest the server asked for (a Retry-After's retry) goes to disk now, not with the next line or the
    // ticker's commit a second later, so a kill in between cannot lose it (xt22a F1: a resume asked the
    // host again 3 s after a `Retry-After: 8`).
    let commit_now = !logged && !asked.is_zero();
    match disposition {
        Disposition::Done { status, delay } => {
            f.finished(queue, ticket, Some(status), now, Pace::fetch(delay, asked));
        }
        Disposition::Unfetched { status } => {
            f.finished(queue, ticket, Some(status), now, Pace::UNFETCHED);
        }
        Disposition::Retry { mut uri, delay } => {
            uri.annotations.clear();
            f.schedule_first(queue, uri);
            f.finished(queue, ticket, None, now, Pace::fetch(delay, asked));
        }
        Disposition::RetryLater { mut uri, at, delay } => {
            uri.annotations.clear();
            f.schedule_later(queue, uri, at);
            f.finished(queue, ticket, None, now, Pace::fetch(delay, asked));
        }
        Disposition::Held { mut uri, hold } => {
            uri.annotations.clear();
            // A page waiting for its robots.txt goes to the back: in front, it came out again each time its
            // hold lapsed and was held again, and the robots.txt behind it was never taken (xt19b F1).
            if hold.as_ref().is_some_and(|h| h.robots) {
                f.requeue(queue, uri);
            } else {
                f.schedule_first(queue, uri);
            }
            f.finished(queue, ticket, None, now, Pace::UNFETCHED);
            if let Some(hold) = hold {
                f.hold(queue, hold.until);
                // Settled between the gate and here: the release has come and gone.
                if hold.robots && !p.robots.is_pending(&hold.origin) {
                    f.release(queue);
                }
            }
        }
        Disposition::HandedOver => f.finished(queue, ticket, None, now, Pace::UNFETCHED),
    }
    for held in &release {
        f.release(held);
    }
    if commit_now {
        p.log.commit();
    }
    let mut batch = Vec::with_capacity(children.len());
    let mut known = Vec::with_capacity(children.len());
    for child in children {
        match child.placement {
            Placement::New
                if widened.contains(&child.uri.uniq_key) && f.is_seen(&child.uri.uniq_key) =>
            {
                f.schedule_first(&child.queue, child.uri)
            }
            Placement::New => {
                known.push(child.known);
                batch.push((child.queue, child.uri));
            }
            Placement::Prerequisite => {
                f.mark_seen(&child.uri.uniq_key);
                f.schedule_first(&child.queue, child.uri);
            }
            Placement::Revisit(at) => f.schedule_later(&child.queue, child.uri, at),
            Placement::Redirect => f.schedule_first(&child.queue, child.uri),
            Placement::Seen => {
                f.mark_seen(&child.uri.uniq_key);
            }
            Placement::Fetched => {
                f.mark_seen(&child.uri.uniq_key);
                if marks_fetched(p) {
                    f.mark_note(&outcome::fetched(&child.uri.uniq_key));
                }
            }
        }
    }
    let (results, over_budget) = f.schedule_batch(batch);
    let new = results.contains(&Scheduled::Queued);
    if new && let Some(next) = predicted {
        f.schedule(&next.queue, next.uri);
    }
    for mut uri in over_budget {
        uri.annotate(Annotation::Budget);
        cuts.push(Cut {
            uri,
            status: status::OVER_QUOTA,
        });
    }
    // A cut is logged once per uniq key, and not at all for a URI the crawl has (or will) fetch. Its line
    // is handed to the journal before the frontier is let go, so the journal commits the mark with it.
    for cut in cuts {
        if !f.is_seen(&cut.uri.uniq_key) && f.mark_refused(&cut.uri.uniq_key) {
            p.write_line(p.log_failure(&cut.uri, cut.status, worker));
        }
    }
    drop(f);
    p.remember_known(known, &results);
}

/// Widens the crawl's scope to a seed's redirect target ([`super::control::widen_to`], off the async
/// threads: it builds the settings, writes crawl.toml and the job's history line) and says what became of
/// it; whether it widened. crawl.toml is written first: a kill between the two loses the history line,
/// never the widening.
fn widen(shared: &Shared, seed: &NewSeed) -> bool {
    let target = crate::chain::candidate::shown(&seed.target.url);
    match crate::blocking::blocking(usize::MAX, || {
        let widened = super::control::widen_to(shared, &seed.target);
        if let Ok(Some(prefix)) = &widened {
            // Beside the operators' changes, for whoever reads the job's history (xt14a F21).
            crate::job::record_change(
                shared.job.root(),
                "crawl",
                &format!(
                    "scope.surt_prefixes += {prefix:?}: {} redirects to {target} \
                     (scope.seed_redirects_new_seeds)",
                    seed.from
                ),
            );
        }
        widened
    }) {
        // Said at the level the operator sees by default: the crawl's scope grew.
        Ok(Some(prefix)) => {
            tracing::warn!(
                "{} redirects to {target}: the scope takes in {prefix} as a seed's (added to \
                 scope.surt_prefixes in the job's crawl.toml; scope.seed_redirects_new_seeds)",
                seed.from
            );
            true
        }
        Ok(None) => false,
        Err(why @ super::control::NotWidened::AddressRefused(_)) => {
            tracing::warn!("{} redirects to {target}: {why}", seed.from);
            false
        }
        Err(why) => {
            tracing::warn!(
                "{} redirects to {target}, whose links are outside the scope: {why}; only that page is \
                 crawled there",
                seed.from
            );
            false
        }
    }
}
