//! The worker loop of a crawl whose frontier is shared through Redis ([`super::remote`]): claim a URI under
//! a lease, run the chains, complete it with the whole outcome; and the tasks that keep a shared crawl going
//! (its settings followed, its leases renewed).

use std::{
    sync::{Arc, PoisonError},
    time::{Duration, Instant},
};

use trawl_config::{Annotation, CrawlConfig, CrawlUri, status};
use trawl_frontier::{Claim, Completion, Lease, Pace, Scheduled};

use super::{remote::Remote, shared::Shared};
use crate::chain::{
    self,
    outcome::{self, Cut, Disposition, Outcome, Placement},
};

/// The worker loop against the shared frontier: claim, run the chains, complete with the outcome. Idle
/// workers wait on [`super::wake`] as the embedded loop's do: one claim at a time asks Redis, not one per
/// idle worker (what other processes change is seen at the alarm's next wake, within 250 ms).
pub(super) async fn worker(shared: Arc<Shared>, remote: &Remote, id: usize) {
    let stop = &shared.pipeline.stop;
    loop {
        if !super::wake::running(stop).await {
            return;
        }
        let Some(claim) = remote.steady(&shared.pipeline, |f| f.claim()).await else {
            return;
        };
        remote.set_paused(matches!(claim, Claim::Paused));
        match claim {
            Claim::Ready { item, queue, lease } => {
                shared.wake.one();
                let outcome = if fetched_by_a_page(&shared, remote, &item).await {
                    Outcome::only(Disposition::HandedOver)
                } else {
                    chain::process_guarded(&shared.pipeline, item, &queue, id).await
                };
                complete(&shared, remote, &queue, &lease, outcome, id).await;
                shared.wake.one();
                continue;
            }
            Claim::WaitUntil(at) => shared.wake.at(at),
            // More queues are due than one claim looks at: at once again.
            Claim::Busy => continue,
            Claim::Paused => {}
            Claim::Empty => {
                // Nothing left, or nothing there: a Redis restarted without persistence has lost the crawl,
                // which must not end as if it were done.
                if let Some(None) = remote.steady(&shared.pipeline, |f| f.config()).await {
                    shared.pipeline.fail(format!(
                        "the crawl {:?} is gone from {} (its settings, queues and seen set): Redis was restarted \
                         without persistence, or the crawl was deleted; what was fetched is in this job's WARCs \
                         and crawl.log, but the crawl cannot go on (docs/distributed.md: run Redis with appendonly)",
                        remote.spec.job, remote.spec.shown_url()
                    ));
                }
                shared.wake.all();
                return;
            }
            Claim::Stopped => {
                stop.stop();
                return;
            }
        }
        shared.wake.wait(stop).await;
    }
}

/// Whether a browser page (of any worker) fetched `item`'s URL after a link queued it, as
/// [`super::worker`]'s test (the shared seen set is exact), with one Redis call.
async fn fetched_by_a_page(shared: &Shared, remote: &Remote, item: &CrawlUri) -> bool {
    if shared.pipeline.rendering.is_none() || !outcome::may_stand_for(item) {
        return false;
    }
    let mark = outcome::fetched(&item.uniq_key);
    remote
        .steady(&shared.pipeline, |f| f.is_seen(&mark))
        .await
        .unwrap_or(false)
}

/// Hands a URI's outcome to the shared frontier: the URI done or put back, its children, the seen marks of
/// what a browser fetched for it and a gallery's predicted next page, in one step (its WARC records and
/// crawl.log line are written already: at-least-once).
async fn complete(
    shared: &Shared,
    remote: &Remote,
    queue: &str,
    lease: &Lease,
    outcome: Outcome,
    worker: usize,
) {
    let p = &shared.pipeline;
    let now = Instant::now();
    let Outcome {
        disposition,
        children,
        predicted,
        mut cuts,
        links_found: _,
        release: _,
        line,
        new_seeds,
        asked,
    } = outcome;
    if let Some(line) = line {
        p.write_line(line);
    }
    // A shared crawl's scope is widened for every worker at once by the operator only (the settings
    // published in Redis): one worker's own widening would leave the target's links to another's scope.
    for seed in new_seeds {
        let target = crate::chain::candidate::shown(&seed.target.url);
        tracing::warn!(
            "{} redirects to {target}, whose links are outside the scope: only that page is crawled there; to \
             crawl that site, name {target} as a seed of the crawl when it starts (a shared crawl does not take \
             redirect targets into its scope itself)",
            seed.from
        );
    }
    let mut done = Completion::default();
    match disposition {
        Disposition::Done { delay, .. } => done.pace = Pace::fetch(delay, asked),
        Disposition::Unfetched { .. } => {}
        Disposition::Retry { mut uri, delay } => {
            uri.annotations.clear();
            done.first.push((queue.to_string(), uri));
            done.pace = Pace::fetch(delay, asked);
            done.ended = false;
        }
        Disposition::RetryLater { mut uri, at, delay } => {
            uri.annotations.clear();
            done.later
                .push((queue.to_string(), uri, at.saturating_duration_since(now)));
            done.pace = Pace::fetch(delay, asked);
            done.ended = false;
        }
        Disposition::Held { mut uri, hold } => {
            uri.annotations.clear();
            done.ended = false;
            match hold {
                // Its robots.txt is a child of this outcome, ahead of it in its queue.
                None => done.first.push((queue.to_string(), uri)),
                // Its robots.txt is on its way elsewhere: back of the queue, to look again after a while
                // (never in front of that robots.txt, should it be in this queue).
                Some(h) => done.later.push((
                    queue.to_string(),
                    uri,
                    h.until.saturating_duration_since(now),
                )),
            }
        }
        Disposition::HandedOver => {}
    }
    let mut known = Vec::new();
    for child in children {
        match child.placement {
            Placement::New => {
                known.push(child.known);
                done.new.push((child.queue, child.uri));
            }
            // Marked seen as well, as in one process: a link to it later is not fetched again.
            Placement::Prerequisite => {
                done.seen.push(child.uri.uniq_key.clone());
                done.first.insert(0, (child.queue, child.uri));
            }
            // Its key is seen already (that of the URI that redirected): past the filter, as in one process.
            Placement::Redirect => done.first.push((child.queue, child.uri)),
            Placement::Revisit(at) => {
                done.later
                    .push((child.queue, child.uri, at.saturating_duration_since(now)))
            }
            // What a browser page fetched: marked seen in the same step, before its outlinks are looked at,
            // so the crawl does not fetch it again.
            Placement::Seen => done.seen.push(child.uri.uniq_key),
            // And marked fetched: a worker that claims it queued by an earlier link ends it unfetched.
            Placement::Fetched => {
                done.seen.push(outcome::fetched(&child.uri.uniq_key));
                done.seen.push(child.uri.uniq_key);
            }
        }
    }
    done.predicted = predicted.map(|next| (next.queue, next.uri));
    // A refused URL is logged once crawl-wide: its line is claimed under the lease, written, and the claim
    // made final by the completion, so a kill in between loses no line (the claim is taken over).
    drop_scheduled(&mut cuts, &done);
    let keys: Vec<String> = cuts.iter().map(|c| c.uri.uniq_key.clone()).collect();
    let Some(mine) = remote
        .steady(p, |f| f.claim_cuts(queue, lease, &keys))
        .await
    else {
        return;
    };
    for (cut, mine) in cuts.into_iter().zip(mine) {
        if mine {
            p.write_line(p.log_failure(&cut.uri, cut.status, worker));
            done.cuts.push(cut.uri.uniq_key);
        }
    }
    // Done in Redis only once its crawl.log line is written (the journal writes lines on its own thread): a
    // kill in between would leave a URI done without its line. A journal that failed completes nothing:
    // the lease runs out and another worker does the URI.
    if !p.lines_written().await {
        return;
    }
    let Some(result) = remote
        .steady(&shared.pipeline, |f| f.finished(queue, lease, &done))
        .await
    else {
        return;
    };
    let Some(results) = result else {
        // The lease expired and another worker holds the URI now: it fetches it again.
        tracing::warn!(
            "{queue}: a lease expired before its URI was done; another worker redoes it"
        );
        return;
    };
    // Over its queue's budget, which only the completion can tell: logged once crawl-wide, after it (a kill
    // in between loses that line, not a capture).
    for ((_, mut uri), result) in done.new.into_iter().zip(&results) {
        if *result != Scheduled::OverBudget {
            continue;
        }
        let key = uri.uniq_key.clone();
        if remote.steady(p, |f| f.mark_cut(&key)).await == Some(true) {
            uri.annotate(Annotation::Budget);
            p.write_line(p.log_failure(&uri, status::OVER_QUOTA, worker));
        }
    }
    p.remember_known(known, &results);
}

/// Drops the cuts of URLs that `done` schedules too (refused as a link, accepted as an embed; fetched by the
/// browser): they get no refusal line, as in one process, since the crawl fetches them.
fn drop_scheduled(cuts: &mut Vec<Cut>, done: &Completion<CrawlUri>) {
    if cuts.is_empty() {
        return;
    }
    let scheduled: std::collections::HashSet<&str> = (done.new.iter())
        .map(|(_, uri)| uri.uniq_key.as_str())
        .chain(done.seen.iter().map(String::as_str))
        .collect();
    cuts.retain(|c| !scheduled.contains(c.uri.uniq_key.as_str()));
}

/// Takes up settings an operator published for the whole crawl (`trawl ctl --frontier … set`, sheets):
/// each second the settings version is looked at, and a new one is built and swapped in, as a local change
/// would be, and written to this worker's crawl.toml.
pub(super) async fn follow_settings(shared: Arc<Shared>) {
    let Some(remote) = &shared.remote else {
        return;
    };
    let stop = &shared.pipeline.stop;
    let mut known = match remote.call(stop, |f| f.settings_version()).await {
        Some(Ok(v)) => v,
        _ => 0,
    };
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let fetched = remote
            .call(stop, |f| match f.settings_version() {
                Ok(v) if v > known => f.config().map(|text| Some((v, text))),
                Ok(_) => Ok(None),
                Err(e) => Err(e),
            })
            .await;
        let (version, text) = match fetched {
            Some(Ok(Some((v, Some(text))))) => (v, text),
            None | Some(Ok(None | Some((_, None)))) => continue,
            Some(Err(e)) => {
                remote.say(&e);
                continue;
            }
        };
        known = version;
        let config = match CrawlConfig::parse(&text, &shared.job.config_path()) {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!("the crawl's published settings cannot be read: {e}");
                continue;
            }
        };
        let seeds = with_config_seeds(&shared.seeds, &config);
        for host in seeds.iter().filter_map(|s| s.host_str()) {
            shared.pipeline.fetcher.add_seed_host(host);
        }
        match crate::live::LiveSettings::build(Arc::new(config), &seeds, shared.job.root()) {
            Ok(live) => {
                shared.pipeline.robots.settings_changed(&live.config);
                *shared
                    .pipeline
                    .live
                    .write()
                    .unwrap_or_else(PoisonError::into_inner) = Arc::new(live);
                if let Err(e) = shared.job.write_file(&shared.job.config_path(), &text) {
                    tracing::warn!("saving the crawl's new settings: {e}");
                }
                tracing::info!("settings version {version} taken up");
            }
            Err(e) => tracing::warn!("the crawl's published settings do not apply here: {e}"),
        }
    }
}

/// Renews this process's leases (its heartbeat) at once, so the operator's `workers` lists it from its
/// start, then every third of a lease, so a long fetch keeps its URI while a dead process's leases expire
/// within one lease.
pub(super) async fn renew_leases(shared: Arc<Shared>) {
    let Some(remote) = &shared.remote else {
        return;
    };
    loop {
        if let Some(Err(e)) = remote.call(&shared.pipeline.stop, |f| f.renew()).await {
            remote.say(&e);
        }
        tokio::time::sleep(remote.lease / 3).await;
    }
}

/// The seeds a worker's scope is built with: its own, and those of the crawl's published settings (seeds
/// an operator added crawl-wide with `trawl ctl --frontier … add-seeds`, which widen every worker's scope).
fn with_config_seeds(own: &[trawl_url::Url], config: &CrawlConfig) -> Vec<trawl_url::Url> {
    let mut seeds = own.to_vec();
    for raw in &config.seeds.urls {
        if let Ok(seed) = trawl_url::parse_seed(raw)
            && !seeds.contains(&seed)
        {
            seeds.push(seed);
        }
    }
    seeds
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(key: &str) -> CrawlUri {
        CrawlUri::seed(
            url::Url::parse(&format!("http://127.0.0.1:9/{key}")).unwrap(),
            key.to_string(),
        )
    }

    #[test]
    fn a_url_this_outcome_schedules_is_not_logged_as_refused() {
        let mut cuts: Vec<Cut> = ["embed", "fetched", "refused"]
            .iter()
            .map(|k| Cut {
                uri: uri(k),
                status: status::OUT_OF_SCOPE,
            })
            .collect();
        let done = Completion {
            new: vec![("q".to_string(), uri("embed"))],
            seen: vec!["fetched".to_string()],
            ..Completion::default()
        };
        drop_scheduled(&mut cuts, &done);
        let left: Vec<&str> = cuts.iter().map(|c| c.uri.uniq_key.as_str()).collect();
        assert_eq!(left, ["refused"]);
    }
}
