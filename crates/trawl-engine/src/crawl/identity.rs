//! How a URI is named (URL classes, canonical URL, uniq key) and when watchable URLs come back.

use super::*;

/// Sets a URI's identity (docs/url-identity.md): a matching URL class's server form is fetched; the canonical
/// URL is the class's normalised form, else a site rewrite, else the cleaned raw URL; the uniq key is the
/// canonical URL under the crawl's canonicalizer.
pub(crate) fn apply_identity(
    classes: &UrlClasses,
    identity: &trawl_url::Identity,
    uri: &mut CrawlUri,
) {
    // One class match per URI: its server form is fetched and its normalised form is the class hint.
    let normalised = classes.match_url(&uri.url).map(|m| {
        uri.url = m.for_server;
        m.normalised
    });
    let normalise = |_: &Url| normalised.clone();
    let hints = trawl_url::CanonicalHints::none().with_url_class(&normalise);
    let (canonical, _) = identity.canonical(&uri.url, hints);
    uri.uniq_key = identity.uniq_key(&canonical);
    uri.canonical = (canonical != uri.url).then_some(canonical);
}

/// A URL's class-normalised form (or the URL itself when no class matches).
pub(super) fn class_normalised(classes: &UrlClasses, url: &Url) -> Url {
    classes
        .match_url(url)
        .map_or_else(|| url.clone(), |m| m.normalised)
}

/// Schedules the next visit of a watchable URL, until it is gone (404/410) or has not changed for
/// `classes.watch_unchanged_s`.
pub(super) fn watch_again(shared: &Arc<Shared>, uri: &CrawlUri, status: u16, digest: &str) {
    if matches!(status, 404 | 410) || shared.stop.is_stopped() {
        return;
    }
    let now = Instant::now();
    let config = shared.config();
    let still_changing = {
        let mut watched = lock(&shared.watched);
        let entry = watched
            .entry(uri.uniq_key.clone())
            .or_insert_with(|| (String::new(), now));
        if entry.0 != digest {
            *entry = (digest.to_string(), now);
        }
        now.duration_since(entry.1) < Duration::from_secs(config.classes.watch_unchanged_s)
    };
    if !still_changing {
        return;
    }
    let mut next = uri.clone();
    next.tries = 0;
    next.revisit += 1;
    let queue = shared.assign.key(&next.url);
    let interval = Duration::from_secs(config.classes.watch_interval_s);
    shared.pending_revisits.fetch_add(1, Ordering::SeqCst);
    let shared = Arc::clone(shared);
    tokio::spawn(async move {
        tokio::select! {
            _ = tokio::time::sleep(interval) => {
                if !shared.stop.is_stopped() {
                    lock(&shared.frontier).requeue(&queue, next);
                }
            }
            _ = shared.stop.notify.notified() => {}
        }
        shared.pending_revisits.fetch_sub(1, Ordering::SeqCst);
        shared.wake.notify_waiters();
    });
}
