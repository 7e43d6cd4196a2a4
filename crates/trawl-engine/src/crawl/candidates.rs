//! The candidate chain: outlinks through scope and the uniq filter into the frontier.

use super::*;

/// The candidate chain: each outlink becomes a child URI, passes scope and the uniq filter, and is queued.
/// Returns how many outlinks were newly queued.
pub(super) fn schedule_outlinks(
    shared: &Shared,
    parent: &CrawlUri,
    outlinks: Vec<Outlink>,
    worker: usize,
) -> usize {
    let settings = shared.settings();
    let max_redirects = settings.config.scope.max_redirects;
    let mut fresh: Vec<(u128, Outlink)> = outlinks
        .into_iter()
        .map(|link| (KnownLinks::fingerprint(link.url.as_str()), link))
        .collect();
    {
        let known = lock(&shared.known_links);
        fresh.retain(|(fp, _)| !known.contains(*fp));
    }
    let mut accepted = Vec::new();
    for (fp, link) in fresh {
        let mut child = parent.child(link.url, String::new(), link.hop);
        apply_identity(&shared.classes, &shared.identity, &mut child);
        let redirects = child
            .hop_path
            .chars()
            .rev()
            .take_while(|&c| c == 'R')
            .count();
        if redirects > max_redirects {
            log_cut(
                shared,
                &child,
                status::OUT_OF_SCOPE,
                "reject:max_redirects",
                worker,
            );
            continue;
        }
        // The child's settings (crawl + sheets), for its scope and, if accepted, its precedence.
        let effective = settings.sheets.effective(&child);
        let scope = settings.scope_for(&effective);
        let verdict = scope.decide(&child);
        tracing::trace!(uri = %child.url, rule = verdict.rule, decision = ?verdict.decision, "scope");
        match verdict.decision {
            Decision::Accept => {
                child.rank(&effective, &settings.config);
                accepted.push((fp, child));
            }
            // URIs merely outside the seeds' prefixes are not logged (they would swamp the log); an active
            // rejection by a trap rule is logged once, so the cut-off is visible.
            Decision::Reject if verdict.rule_index.is_some_and(|i| i > 0) => {
                let status = if verdict.rule == "too_many_hops" {
                    status::TOO_MANY_HOPS
                } else {
                    status::OUT_OF_SCOPE
                };
                log_cut(
                    shared,
                    &child,
                    status,
                    &format!("reject:{}", verdict.rule),
                    worker,
                );
            }
            _ => {}
        }
    }
    let (fps, batch): (Vec<u128>, Vec<(String, CrawlUri)>) = accepted
        .into_iter()
        .map(|(fp, child)| (fp, (shared.assign.key(&child.url), child)))
        .unzip();
    let (results, over_budget) = lock(&shared.frontier).schedule_batch(batch);
    let queued = results.iter().filter(|&&r| r == Scheduled::Queued).count();
    {
        let mut known = lock(&shared.known_links);
        for (fp, result) in fps.into_iter().zip(results) {
            if result != Scheduled::OverBudget {
                known.insert(fp);
            }
        }
    }
    for child in over_budget {
        log_cut(shared, &child, status::OVER_QUOTA, "budget", worker);
    }
    queued
}

/// Logs a URI cut off before fetching (scope rule, redirect limit, budget), once per uniq key.
pub(super) fn log_cut(shared: &Shared, uri: &CrawlUri, status: i32, why: &str, worker: usize) {
    {
        let mut f = lock(&shared.frontier);
        if f.is_seen(&uri.uniq_key) || !f.mark_seen(&format!("cut {}", uri.uniq_key)) {
            return;
        }
    }
    let host = uri.url.host_str().unwrap_or_default().to_string();
    log_failure(shared, uri, status, worker, &host, &[why.to_string()]);
}
