//! A worker: takes URIs from the frontier and runs each through prefetch, fetch, extract, write and post.

use super::*;

pub(super) async fn worker(shared: Arc<Shared>, id: usize) {
    loop {
        if shared.stop.is_stopped() {
            return;
        }
        if shared.stop.is_paused() {
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(200)) => {}
                _ = shared.stop.notify.notified() => {}
            }
            continue;
        }
        let next = lock(&shared.frontier).next(Instant::now());
        let next = match next {
            Ok(next) => next,
            Err(e) => {
                shared.fail(e.to_string());
                return;
            }
        };
        match next {
            Next::Ready(taken) => {
                let (queue, ticket) = (taken.queue.clone(), taken.ticket);
                let outcome = process(&shared, taken, id).await;
                let mut frontier = lock(&shared.frontier);
                frontier.finished(
                    &queue,
                    ticket,
                    outcome.status,
                    Instant::now(),
                    outcome.delay,
                );
                // Committed at once (a write to the OS, no fsync): after a kill, only URIs in flight are
                // fetched again.
                let flushed = frontier.flush();
                drop(frontier);
                if let Err(e) = flushed {
                    shared.fail(e.to_string());
                }
                shared.wake.notify_waiters();
            }
            Next::WaitUntil(at) => {
                let at = at.min(Instant::now() + Duration::from_millis(200));
                tokio::select! {
                    _ = tokio::time::sleep_until(at.into()) => {}
                    _ = shared.wake.notified() => {}
                    _ = shared.stop.notify.notified() => {}
                }
            }
            Next::Busy => {
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(100)) => {}
                    _ = shared.wake.notified() => {}
                    _ = shared.stop.notify.notified() => {}
                }
            }
            Next::Empty if shared.pending_revisits.load(Ordering::SeqCst) > 0 => {
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(200)) => {}
                    _ = shared.wake.notified() => {}
                    _ = shared.stop.notify.notified() => {}
                }
            }
            Next::Empty => {
                shared.wake.notify_waiters();
                return;
            }
        }
    }
}

/// Runs one URI through the pipeline; returns how long its queue must now wait and, when the URI is done, its
/// final status.
pub(super) async fn process(
    shared: &Arc<Shared>,
    taken: Taken<CrawlUri>,
    worker: usize,
) -> Outcome {
    let Taken {
        item: mut uri,
        queue,
        ..
    } = taken;
    let host = uri.url.host_str().unwrap_or_default().to_string();

    // A URL class with an API URL: fetch that instead (hop I); the page URL stays the canonical one.
    if uri.kind == UriKind::Page
        && uri.api_for.is_none()
        && let Some(api) = shared.classes.match_url(&uri.url).and_then(|m| m.api_url)
    {
        let mut child = uri.child(api, String::new(), Hop::Inferred);
        child.api_for = Some(uri.canonical.clone().unwrap_or_else(|| uri.url.clone()));
        apply_identity(&shared.classes, &shared.identity, &mut child);
        lock(&shared.frontier).schedule(&shared.assign.key(&child.url), child);
        return Outcome::wait(Duration::ZERO);
    }

    // The settings for this URI: the profile plus any sheets that apply to it.
    let settings = shared.settings().sheets.effective(&uri);
    // prefetch: robots.txt is a prerequisite of every page of an origin.
    if uri.kind == UriKind::Page
        && settings.fetch.obey_robots
        && let Some(wait) = robots_gate(shared, &mut uri, &queue, worker, &host)
    {
        return wait;
    }
    let origin = origin(&uri.url);
    if uri.kind == UriKind::Page {
        let verdict = shared
            .gates
            .before_fetch
            .decide_input(&DecideInput::new(&uri));
        if verdict.decision == Decision::Reject {
            let note = format!("reject:{}", verdict.rule);
            log_failure(shared, &uri, status::OUT_OF_SCOPE, worker, &host, &[note]);
            return Outcome::done(Duration::ZERO, status::OUT_OF_SCOPE);
        }
    }

    // fetch
    let max_bytes = match uri.kind {
        UriKind::Robots { .. } => settings.fetch.max_robots_bytes,
        UriKind::Page => settings.fetch.max_bytes,
    };
    let fetched = shared
        .fetcher
        .get_with(&uri.url, max_bytes, &settings.fetch)
        .await;
    uri.tries += 1;
    let retry_delay = Duration::from_millis(settings.frontier.retry_delay_ms);
    let retries_left = uri.tries <= settings.frontier.max_retries;

    let resp = match &fetched.result {
        Err(e) => {
            if retries_left && e.is_retryable() {
                lock(&shared.frontier).schedule_first(&queue, uri);
                return Outcome::wait(retry_delay);
            }
            if let UriKind::Robots { origin, .. } = &uri.kind {
                if let FetchError::Refused(..) = e {
                    resolve_robots(shared, origin, RobotsState::Refused(e.annotation()));
                } else {
                    set_robots(shared, origin, Robots::DisallowAll, retry_delay);
                }
            }
            let mut notes = vec![e.annotation()];
            if uri.tries > 1 {
                notes.push(format!("{}t", uri.tries));
            }
            log_failure(shared, &uri, e.status(), worker, &host, &notes);
            return Outcome::done(
                shared.politeness(&settings, &origin, fetched.duration, 0),
                e.status(),
            );
        }
        Ok(resp) => resp,
    };

    // extract
    let header = |name: &str| {
        resp.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    // 5xx and 429 are the server saying "not now": retried like connection failures.
    let try_later = resp.status >= 500 || resp.status == 429;
    let content_type = header("content-type");
    let mime = content_type
        .as_deref()
        .and_then(|ct| ct.split(';').next())
        .map(|m| m.trim().to_ascii_lowercase())
        .filter(|m| !m.is_empty());
    let mut annotations = Vec::new();
    let mut outlinks: Vec<Outlink> = Vec::new();
    let mut decoded: Option<std::borrow::Cow<'_, [u8]>> = None;
    let redirect = header("location")
        .filter(|_| (300..400).contains(&resp.status))
        .and_then(|location| trawl_url::resolve(&uri.url, &location).ok());
    match &uri.kind {
        UriKind::Robots { origin, redirects } => {
            if let Some(target) = redirect.filter(|_| *redirects < MAX_ROBOTS_REDIRECTS) {
                // RFC 9309: follow at least five redirects; the origin's pages keep waiting meanwhile.
                let mut next = uri.child(target.clone(), target.to_string(), Hop::Redirect);
                next.kind = UriKind::Robots {
                    origin: origin.clone(),
                    redirects: redirects + 1,
                };
                lock(&shared.frontier).schedule_first(&shared.assign.key(&target), next);
            } else if !(try_later && retries_left) {
                let body = decode_content(
                    header("content-encoding").as_deref(),
                    &resp.body,
                    Shared::decode_limits(&settings),
                )
                .unwrap_or_default();
                let robots = Robots::from_response(resp.status, &body, &shared.agent);
                let expiry = match robots {
                    Robots::DisallowAll => retry_delay,
                    _ => Duration::from_secs(settings.fetch.robots_expiry_s),
                };
                set_robots(shared, origin, robots, expiry);
            }
        }
        UriKind::Page => {
            if let (true, Some(target)) = (uri.is_seed, &redirect) {
                shared
                    .stats
                    .record_seed_redirect(uri.url.as_str(), target.as_str());
            }
            if let Some(target) = redirect {
                outlinks.push(Outlink {
                    url: target,
                    hop: Hop::Redirect,
                    context: "header/location",
                });
            }
            if !try_later {
                // Decoded once, for extraction and for the text filters below.
                decoded = decode_content(
                    header("content-encoding").as_deref(),
                    &resp.body,
                    Shared::decode_limits(&settings),
                );
                extract_outlinks(
                    &settings,
                    &uri,
                    decoded.as_deref(),
                    mime.as_deref(),
                    content_type.as_deref(),
                    &mut outlinks,
                    &mut annotations,
                );
            }
        }
    }

    // gates after the fetch, and text filters: what is written, what is followed
    let mut write_it = true;
    if uri.kind == UriKind::Page && !try_later {
        let facts = FetchFacts {
            ip: fetched.ip,
            status: Some(i32::from(resp.status)),
            mime: content_type.clone(),
            length: Some(resp.body.len() as u64),
        };
        let input = DecideInput::fetched(&uri, &facts);
        let after_headers = shared.gates.after_headers.decide_input(&input);
        if after_headers.decision == Decision::Reject {
            annotations.push(format!("reject:{}", after_headers.rule));
            outlinks.clear();
            write_it = false;
        }
        let before_write = shared.gates.before_write.decide_input(&input);
        if before_write.decision == Decision::Reject {
            annotations.push(format!("notWritten:{}", before_write.rule));
            write_it = false;
        }
        if !shared.gates.text_filters.is_empty()
            && mime.as_deref().is_some_and(|m| m.contains("html"))
            && let Some(body) = decoded.as_deref()
        {
            let (text, meta) = blocking(body.len(), || crate::filters::page_text(body, 4 << 20));
            if let Some(hit) = shared.gates.text_filters.check(&text, &meta) {
                annotations.push(hit.label());
                write_it = false;
                if hit.mode == FilterMode::Crawl {
                    outlinks.clear();
                }
            }
        }
    }

    // write
    let mut payload_digest = None;
    if write_it {
        match blocking(resp.response_bytes.len(), || {
            shared.warc.write_fetch(&uri, &fetched, resp, &outlinks)
        }) {
            Ok(d) => payload_digest = d,
            Err(e) => {
                shared.fail(e.to_string());
                return Outcome::wait(Duration::ZERO);
            }
        }
    }

    let wire = (resp.request_bytes.len() + resp.response_bytes.len()) as u64;
    let mut delay = shared.politeness(&settings, &origin, fetched.duration, wire);
    if resp.status == 429 || resp.status == 503 {
        let cap = Duration::from_secs(settings.fetch.max_retry_after_s);
        if let Some(after) = header("retry-after").as_deref().and_then(retry_after) {
            delay = delay.max(after.min(cap));
            annotations.push(format!("retryAfter={}s", after.min(cap).as_secs()));
        }
    }
    if try_later && retries_left {
        lock(&shared.frontier).schedule_first(&queue, uri);
        return Outcome::wait(delay.max(retry_delay));
    }

    // post: crawl.log, stats, outlinks back through scope.
    if let Some(t) = resp.truncated {
        annotations.push(t.annotation().to_string());
    }
    if resp.invalid_cert.is_some() {
        annotations.push("certInvalid".to_string());
    }
    if uri.tries > 1 {
        annotations.push(format!("{}t", uri.tries));
    }
    // The payload digest is the SHA-1 of the entity body; when the record had none, hash the body here.
    let digest = payload_digest.unwrap_or_else(|| trawl_warc::sha1_digest(&resp.body));
    if uri.revisit > 0 {
        annotations.push(format!("revisit:{}", uri.revisit));
    }
    if uri.api_for.is_some() {
        annotations.push("api".to_string());
    }
    log_response(
        shared,
        &uri,
        &fetched,
        resp,
        mime.as_deref(),
        &digest,
        worker,
        &host,
        &annotations,
    );
    let class = shared.classes.match_url(&uri.url);
    let predicted = class.as_ref().and_then(|m| m.next_page.clone());
    let next_page_linked = predicted.as_ref().is_some_and(|next| {
        let want = class_normalised(&shared.classes, next);
        outlinks
            .iter()
            .any(|o| class_normalised(&shared.classes, &o.url) == want)
    });
    let new_links = schedule_outlinks(shared, &uri, outlinks, worker);
    if let Some(m) = class {
        match m.kind {
            // A gallery page that found new links but no link to its next page gets the predicted one.
            UrlKind::Gallery if resp.status < 300 && new_links > 0 && !next_page_linked => {
                if let Some(next) = predicted {
                    let mut child = uri.child(next, String::new(), Hop::Inferred);
                    apply_identity(&shared.classes, &shared.identity, &mut child);
                    lock(&shared.frontier).schedule(&shared.assign.key(&child.url), child);
                }
            }
            UrlKind::Watchable => watch_again(shared, &uri, resp.status, &digest),
            _ => {}
        }
    }
    Outcome::done(delay, i32::from(resp.status))
}

/// What became of a URI taken from the frontier.
#[derive(Debug, Clone, Copy)]
pub(super) struct Outcome {
    /// How long its queue now waits.
    delay: Duration,
    /// Its final status when it is done (logged), `None` when it went back into the frontier.
    status: Option<i32>,
}

impl Outcome {
    fn wait(delay: Duration) -> Outcome {
        Outcome {
            delay,
            status: None,
        }
    }

    fn done(delay: Duration, status: i32) -> Outcome {
        Outcome {
            delay,
            status: Some(status),
        }
    }
}

/// How long a queue is held for a robots.txt being fetched, at most: the fetch's outcome releases it sooner.
/// Past this it looks again (the prerequisite may be waiting out retries).
const ROBOTS_RECHECK: Duration = Duration::from_secs(1);

/// RFC 9309 asks crawlers to follow at least five redirects for robots.txt.
pub(super) const MAX_ROBOTS_REDIRECTS: u8 = 5;

/// The robots.txt gate before fetching a page. `None` lets the page through; `Some(outcome)` means the page
/// was dealt with: blocked and logged, or put back behind its robots.txt.
pub(super) fn robots_gate(
    shared: &Shared,
    uri: &mut CrawlUri,
    queue: &str,
    worker: usize,
    host: &str,
) -> Option<Outcome> {
    let origin = origin(&uri.url);
    let mut robots = lock(&shared.robots);
    match robots.get_mut(&origin) {
        Some(RobotsState::Known { robots: r, expires }) if *expires > Instant::now() => {
            if r.allowed(&uri.url) {
                return None;
            }
            let status = if matches!(**r, Robots::DisallowAll) {
                status::ROBOTS_PREREQUISITE_FAILED
            } else {
                status::ROBOTS_DISALLOWED
            };
            drop(robots);
            log_failure(shared, uri, status, worker, host, &[]);
            Some(Outcome::done(Duration::ZERO, status))
        }
        Some(RobotsState::Refused(why)) => {
            let notes = [why.clone()];
            drop(robots);
            log_failure(shared, uri, status::ADDRESS_REFUSED, worker, host, &notes);
            Some(Outcome::done(Duration::ZERO, status::ADDRESS_REFUSED))
        }
        Some(RobotsState::Pending { waiting }) => {
            // Held under the robots lock, so the release (which takes it too) cannot come in between.
            if !waiting.iter().any(|q| q == queue) {
                waiting.push(queue.to_string());
            }
            let mut f = lock(&shared.frontier);
            f.requeue(queue, uri.clone());
            f.hold(queue, Instant::now() + ROBOTS_RECHECK);
            Some(Outcome::wait(Duration::ZERO))
        }
        _ => {
            robots.insert(origin, RobotsState::Pending { waiting: vec![] });
            drop(robots);
            let prereq = uri.robots_prerequisite();
            let mut f = lock(&shared.frontier);
            f.mark_seen(&shared.identity.uniq_key(&prereq.url));
            f.schedule_first(queue, uri.clone());
            f.schedule_first(queue, prereq);
            Some(Outcome::wait(Duration::ZERO))
        }
    }
}

/// Extraction proper: find the links of the decoded body, honour `meta robots nofollow`.
#[allow(clippy::too_many_arguments)]
pub(super) fn extract_outlinks(
    settings: &CrawlConfig,
    uri: &CrawlUri,
    body: Option<&[u8]>,
    mime: Option<&str>,
    content_type: Option<&str>,
    outlinks: &mut Vec<Outlink>,
    annotations: &mut Vec<String>,
) {
    let limits = Limits {
        max_outlinks: settings.scope.max_outlinks,
        ..Limits::default()
    };
    let (Some(body), Some(mime)) = (body, mime) else {
        return;
    };
    let found = blocking(body.len(), || {
        extract::extract(mime, body, content_type, &uri.url, &limits)
    });
    if found.truncated_outlinks {
        annotations.push("outlinksTrunc".to_string());
    }
    let nofollow = found.meta_robots_nofollow && settings.fetch.obey_robots;
    outlinks.extend(
        found
            .outlinks
            .into_iter()
            .filter(|o| !(nofollow && o.hop == Hop::Link)),
    );
}

/// A `Retry-After` value: delay-seconds or an HTTP date.
pub(super) fn retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let secs = (when.timestamp() - chrono::Utc::now().timestamp()).max(0);
    Some(Duration::from_secs(secs as u64))
}

pub(super) fn set_robots(shared: &Shared, origin: &str, robots: Robots, ttl: Duration) {
    let known = RobotsState::Known {
        robots: Arc::new(robots),
        expires: Instant::now() + ttl,
    };
    resolve_robots(shared, origin, known);
}

/// Puts an origin's robots.txt state in force and releases the queues held waiting for it.
fn resolve_robots(shared: &Shared, origin: &str, state: RobotsState) {
    let mut robots = lock(&shared.robots);
    let Some(RobotsState::Pending { waiting }) = robots.insert(origin.to_string(), state) else {
        return;
    };
    if waiting.is_empty() {
        return;
    }
    let mut frontier = lock(&shared.frontier);
    for queue in &waiting {
        frontier.release(queue);
    }
    drop(frontier);
    drop(robots);
    shared.wake.notify_waiters();
}

pub(super) fn log_failure(
    shared: &Shared,
    uri: &CrawlUri,
    status: i32,
    worker: usize,
    host: &str,
    notes: &[String],
) {
    let via = uri.via.as_ref().map(Url::as_str);
    shared.log(
        &LogEntry {
            status,
            uri: uri.url.as_str(),
            hop_path: &uri.hop_path,
            via,
            worker,
            annotations: notes,
            ..LogEntry::default()
        },
        &uri.source,
        host,
        0,
    );
}

#[allow(clippy::too_many_arguments)]
pub(super) fn log_response(
    shared: &Shared,
    uri: &CrawlUri,
    fetched: &Fetched,
    resp: &Response,
    mime: Option<&str>,
    digest: &str,
    worker: usize,
    host: &str,
    notes: &[String],
) {
    let via = uri.via.as_ref().map(Url::as_str);
    shared.log(
        &LogEntry {
            status: i32::from(resp.status),
            size: Some(resp.body.len() as u64),
            uri: uri.url.as_str(),
            hop_path: &uri.hop_path,
            via,
            mime,
            worker,
            fetch: Some((fetched.started, fetched.duration.as_millis())),
            digest: Some(digest),
            annotations: notes,
        },
        &uri.source,
        host,
        (resp.request_bytes.len() + resp.response_bytes.len()) as u64,
    );
}
