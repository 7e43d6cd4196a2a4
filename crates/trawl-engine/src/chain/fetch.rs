//! Fetch: one request, recorded as exact wire bytes; a failure worth another try sends the URI back to the
//! front of its queue. What the host asks of a visitor is handled here too: its cookies go with each request
//! and are kept from each response; a form login runs first where a credential says so ([`login`]), and again
//! when a page shows the session lost; a 401 asking for a Basic or Digest credential the crawl holds for the
//! host is answered once (a wrong password ends as the logged 401, never a loop).

use http::header::{AUTHORIZATION, COOKIE};

use super::{
    login,
    outcome::{Disposition, Ended, Outcome},
    page_request::PageRequest,
    pipeline::Pipeline,
    retry::{answered, connected, politeness, retries_left, retry, shortage},
};
use crate::fetch_record::FetchRecord;
use trawl_config::CrawlConfig;
use trawl_config::CrawlUri;
use trawl_config::UriKind;
use trawl_config::{Annotation, annotation::LoginNote};
use trawl_fetch::{FetchError, Fetched, RequestParts, Validators, access::Challenge};

/// Fetches `uri`, or sends it back for another try; `page` holds the fields and cookies of a rendered page's
/// request for it.
pub(super) async fn run(
    p: &Pipeline,
    mut uri: CrawlUri,
    settings: &CrawlConfig,
    worker: usize,
    page_request: Option<&PageRequest>,
) -> Result<(CrawlUri, FetchRecord), Ended> {
    let max_bytes = match uri.kind {
        UriKind::Robots { .. } => settings.fetch.max_robots_bytes,
        UriKind::Page => settings.fetch.max_bytes,
    };
    // A recrawl asks whether the page changed since its capture in a dedup_from job.
    let previous = (settings.fetch.conditional_recrawl && matches!(uri.kind, UriKind::Page))
        .then(|| p.warc.previous(uri.url.as_str()))
        .flatten();
    let validators = previous.as_ref().map(|c| &c.validators);
    let jar = p.jar_key(&uri);
    let page = matches!(uri.kind, UriKind::Page);
    // Where a login's answer redirected off the credential's hosts: the page's redirects to queue.
    let mut left = Vec::new();
    let generation = if page {
        match login::ensure(p, &uri, settings, &jar, worker, None, &mut left).await {
            Ok(generation) => generation,
            Err(login::Cut) => return cut_by_the_stop(uri, page_request),
        }
    } else {
        None
    };
    let (v, pr) = (validators, page_request);
    let mut fetched = request(p, &uri, max_bytes, settings, v, &jar, None, pr).await;
    if page {
        // A page's request that carried its own `Authorization` is not answered with a credential of trawl's.
        let own = page_request.is_some_and(PageRequest::authorizes);
        match challenge(p, &uri, &fetched).filter(|_| !own) {
            Some(Challenge::Answer(index, auth)) => {
                let auth = Some((index, auth));
                fetched = request(p, &uri, max_bytes, settings, v, &jar, auth, pr).await;
                // Where the answer worked, it goes up front from now on (RFC 7617 §2.2). An answer that got
                // no response (a timeout, trawl short of open files, a stop) says nothing of the credential.
                if let Ok(r) = &fetched.result {
                    p.access.answered(&uri.url, index, r.status != 401);
                }
                note_answer(p, &uri, index, &fetched);
            }
            Some(Challenge::Untrusted(index)) => {
                let reason = fetched
                    .result
                    .as_ref()
                    .ok()
                    .and_then(|r| r.invalid_cert.clone())
                    .unwrap_or_default();
                untrusted(p, &uri, index, &reason);
                uri.annotate(Annotation::Login(LoginNote::Untrusted));
            }
            None => {}
        }
        // The session's cookies were kept off this connection: the page is what an anonymous visitor sees,
        // not a lost session.
        let withheld = fetched.result.as_ref().is_ok_and(|r| r.withheld);
        let untrusted = Annotation::Login(LoginNote::Untrusted);
        if withheld && !uri.annotations.contains(&untrusted) {
            uri.annotate(untrusted);
        }
        // Fetched again only under a new session: after the failed-login limit (or a failed login) the page
        // as it came is what there is.
        if !withheld && login::lost(p, &uri, &fetched).await {
            let now =
                match login::ensure(p, &uri, settings, &jar, worker, generation, &mut left).await {
                    Ok(now) => now,
                    Err(login::Cut) => return cut_by_the_stop(uri, page_request),
                };
            if now != generation {
                let fresh = pr.map(PageRequest::after_login);
                let pr = fresh.as_ref();
                fetched = request(p, &uri, max_bytes, settings, v, &jar, None, pr).await;
                // Still lost right after a fresh login: that login did not work, whatever its answer said —
                // unless the page sends to another sign-in page, guarding what the account may not enter.
                if !login::lost(p, &uri, &fetched).await {
                    login::behind_the_login(p, &uri, &fetched).await;
                } else if !login::not_allowed(p, &uri, &fetched).await {
                    login::still_lost(p, &uri, now, (&jar, settings, worker)).await;
                    // Kept as it came, a login or not (review 86 R2: these went uncounted).
                    sent_away(p, &uri, &fetched);
                }
            } else {
                // No login for it (given up, or failed now).
                sent_away(p, &uri, &fetched);
            }
        }
        login::cleared(p, &uri, &fetched, &jar).await;
    }
    if let Some(answer) = p.fetcher.take_dns_answer(&uri.url) {
        p.archive_dns(&uri, &answer, worker);
    }
    if let Err(FetchError::Local(why)) = &fetched.result {
        return Err(shortage(uri, why).into());
    }
    connected();
    let mut record = FetchRecord::new(fetched);
    record.previous = previous;
    record
        .outlinks
        .extend(left.into_iter().map(|url| trawl_extract::Outlink {
            url,
            hop: trawl_extract::Hop::Redirect,
            context: "login/location",
            lastmod: None,
        }));
    // Given up by a stop's cut before the server answered: no try, no line. The URI goes back to the front
    // of its queue, kept there by the stop's checkpoint (or in Redis, for a shared crawl), and is fetched
    // when the crawl goes on. Not a browser page's request: tried once, with the page's fields, it is no
    // frontier URI to fetch on resume; its line says `err=stopped` (xt45b F2: it was queued, and fetched on
    // resume as a plain URI, four times).
    if matches!(record.fetched.result, Err(FetchError::Stopped(_))) && page_request.is_none() {
        let delay = politeness(p, settings, &uri, &record).delay;
        return Err(Outcome::only(Disposition::Retry { uri, delay }).into());
    }
    uri.tries += 1;
    match &record.fetched.result {
        Err(e) if e.is_retryable() && retries_left(&uri, settings) => {
            // No name, no connection, no TLS, no proxy: the host's failure. A timeout or a cut: this URL's.
            let host_failure = matches!(
                e,
                FetchError::Dns(_) | FetchError::Connect(_) | FetchError::Proxy(_)
            );
            let pace = politeness(p, settings, &uri, &record);
            let mut outcome = Outcome::only(retry(p, uri, settings, host_failure, pace.delay));
            outcome.asked = pace.asked;
            Err(outcome.into())
        }
        Err(_) => Ok((uri, record)),
        // A robots.txt the connection or a timeout cut short is no answer: tried again as after a failed
        // fetch, before anything of it is written (xt19b F2).
        Ok(resp)
            if matches!(uri.kind, UriKind::Robots { .. })
                && super::robots::cut_short(resp)
                && retries_left(&uri, settings) =>
        {
            let pace = politeness(p, settings, &uri, &record);
            let mut outcome = Outcome::only(retry(p, uri, settings, false, pace.delay));
            outcome.asked = pace.asked;
            Err(outcome.into())
        }
        Ok(_) => {
            // A 5xx or 429 is a failure in a row like a timeout (post counts it); any other answer ends a run.
            if !record.try_later() {
                answered(p, &uri.url);
            }
            Ok((uri, record))
        }
    }
}

/// Adds to `parts` the `Cookie` field of a request to `url` from the cookie jar `jar`, if it holds any for
/// it: guarded (left out over a TLS connection whose certificate failed validation) when a credential for
/// `url`'s host does not allow that ([`Access::cookie_guard`](trawl_fetch::access::Access::cookie_guard)).
/// Returns that credential, for [`withheld`]. A rendered page's request sends the browser's cookies too
/// ([`PageRequest::cookie_header`]).
pub(super) fn add_cookies(
    p: &Pipeline,
    jar: &str,
    url: &url::Url,
    parts: &mut RequestParts<'_>,
    page_request: Option<&PageRequest>,
) -> Option<usize> {
    let cookie = match page_request {
        Some(page) => page.cookie_header(p, jar, url)?,
        None => {
            let cookies = p.access.cookies.header(jar, url)?;
            (COOKIE, http::HeaderValue::from_str(&cookies).ok()?)
        }
    };
    parts.headers.push(cookie);
    let guard = p.access.cookie_guard(url)?;
    parts.guarded.push(COOKIE);
    Some(guard)
}

/// Whether the cookies of `fetched` were withheld (its certificate failed validation; `guard` is the
/// credential that kept them off), said once per credential.
pub(super) fn withheld(
    p: &Pipeline,
    url: &url::Url,
    guard: Option<usize>,
    fetched: &Fetched,
) -> bool {
    let Some(resp) = fetched.result.as_ref().ok().filter(|r| r.withheld) else {
        return false;
    };
    if let Some(index) = guard
        && p.access.note_withheld(index)
    {
        tracing::warn!(
            "credentials[{index}]: cookies not sent to {}: its TLS certificate failed validation ({}); pages there \
             are fetched without them (`login:untrusted`), since whoever intercepts the connection would get the \
             login's session; set allow_invalid_certificate = true on the credential if the server is yours",
            url.origin().ascii_serialization(),
            resp.invalid_cert.as_deref().unwrap_or_default()
        );
    }
    true
}

/// One request of `uri` with the cookies of its jar (withheld, and said, over a connection whose certificate
/// failed validation where a credential is for the host) and an `Authorization` (given, or answering the
/// challenge its origin asked before); the cookies it sets are kept. A rendered page's request adds its own
/// fields and cookies (`page_request`), and one with its own `Authorization` gets none of trawl's.
#[allow(clippy::too_many_arguments)]
pub(super) async fn request(
    p: &Pipeline,
    uri: &CrawlUri,
    max_bytes: u64,
    settings: &CrawlConfig,
    validators: Option<&Validators>,
    jar: &str,
    auth: Option<(usize, http::HeaderValue)>,
    page_request: Option<&PageRequest>,
) -> Fetched {
    let head_check = super::gates::on_head(p, uri);
    let mut parts = RequestParts {
        validators,
        after_head: head_check
            .as_ref()
            .map(|c| trawl_fetch::HeadCheck(c as &trawl_fetch::HeadQuestion<'_>)),
        ..RequestParts::default()
    };
    if let Some(page) = page_request {
        parts.headers.extend(page.headers.iter().cloned());
    }
    let guard = add_cookies(p, jar, &uri.url, &mut parts, page_request);
    let auth = auth.or_else(|| {
        matches!(uri.kind, UriKind::Page)
            .then(|| p.access.up_front(&uri.url, "GET"))
            .flatten()
    });
    let auth = auth.filter(|_| !page_request.is_some_and(PageRequest::authorizes));
    let mut index = None;
    if let Some((i, auth)) = auth {
        parts.headers.push((AUTHORIZATION, auth));
        parts.secret = !p
            .access
            .spec(i)
            .is_some_and(|s| s.allow_invalid_certificate);
        index = Some(i);
    }
    let mut fetched = p
        .fetcher
        .fetch(&uri.url, max_bytes, &settings.fetch, &parts)
        .await;
    // The answer was not sent (this connection's certificate failed validation): the page without it.
    if let (Err(FetchError::Untrusted(reason)), Some(i)) = (&fetched.result, index) {
        untrusted(p, uri, i, reason);
        parts.headers.retain(|(name, _)| name != AUTHORIZATION);
        parts.secret = false;
        fetched = p
            .fetcher
            .fetch(&uri.url, max_bytes, &settings.fetch, &parts)
            .await;
    }
    withheld(p, &uri.url, guard, &fetched);
    p.keep_cookies(jar, &uri.url, &fetched);
    fetched
}

/// Says (once per credential) that credential `index` was not sent to `uri`'s server: its TLS certificate
/// failed validation (`reason`) and the credential does not set `allow_invalid_certificate`.
fn untrusted(p: &Pipeline, uri: &CrawlUri, index: usize, reason: &str) {
    let why = format!(
        "not sent to {}: its TLS certificate failed validation ({reason})",
        uri.url.origin().ascii_serialization()
    );
    if p.access.note_login(index, Some(why.clone())) {
        tracing::warn!(
            "credentials[{index}] {why}; the password goes only where the certificate is valid, unless the \
             credential sets allow_invalid_certificate = true"
        );
    }
}

/// Records whether credential `index`'s answer to a challenge from `uri` was taken (anything but another
/// 401).
fn note_answer(p: &Pipeline, uri: &CrawlUri, index: usize, fetched: &Fetched) {
    match &fetched.result {
        Ok(resp) if resp.status == 401 => {
            let why = format!(
                "its answer was refused with a 401 at {}",
                uri.url.origin().ascii_serialization()
            );
            if p.access.note_login(index, Some(why.clone())) {
                tracing::warn!("credentials[{index}]: {why}; check `user` and the password");
            }
        }
        Ok(_) => {
            p.access.note_login(index, None);
        }
        Err(_) => {}
    }
}

/// What to do with a 401's challenge: answer it, when the crawl holds a credential for it and that
/// credential's answer did not just fail (a wrong password gets its one 401, not a loop); or not, when the
/// 401 came over TLS whose certificate failed validation and the credential does not allow that.
fn challenge(p: &Pipeline, uri: &CrawlUri, fetched: &Fetched) -> Option<Challenge> {
    let resp = fetched.result.as_ref().ok()?;
    if resp.status != 401 {
        return None;
    }
    let sent_one = resp
        .request_bytes
        .windows(b"\r\nauthorization:".len())
        .any(|w| w.eq_ignore_ascii_case(b"\r\nauthorization:"));
    let before = p.access.answering(&uri.url);
    let answer = p
        .access
        .answer(&uri.url, "GET", &resp.headers, resp.invalid_cert.is_some())?;
    let Challenge::Answer(index, _) = &answer else {
        return Some(answer);
    };
    let index = *index;
    // The same credential answered up front and was refused: a fresh try only for a stale Digest nonce.
    let stale = resp
        .headers
        .get_all(http::header::WWW_AUTHENTICATE)
        .iter()
        .any(|v| {
            v.to_str()
                .is_ok_and(|v| v.to_ascii_lowercase().contains("stale=true"))
        });
    (!(sent_one && before == Some(index) && !stale)).then_some(answer)
}

/// `uri`, whose login a stop cut short: back to the front of its queue untried, with no line, as a fetch the
/// stop cuts; the next run logs in.
/// A page whose login a stop cut goes back to the front of its queue, untried. A browser page's request gets
/// its `-4 err=stopped` line instead, as when the stop cuts its fetch (review 84 R9: it went back, to be fetched
/// on resume as a plain URI).
fn cut_by_the_stop(
    mut uri: CrawlUri,
    page_request: Option<&PageRequest>,
) -> Result<(CrawlUri, FetchRecord), Ended> {
    if page_request.is_none() {
        return Err(Outcome::only(Disposition::Retry {
            uri,
            delay: std::time::Duration::ZERO,
        })
        .into());
    }
    uri.tries += 1;
    Ok((
        uri,
        FetchRecord::new(Fetched {
            started: chrono::Utc::now(),
            duration: std::time::Duration::ZERO,
            ip: None,
            result: Err(FetchError::Stopped(0)),
        }),
    ))
}

/// Counts `uri` among the pages its form login's lost session left as the visitor sent away (a redirect, a
/// 4xx), for the end of the crawl; a page answered 2xx with a login form may be a member page with a hidden
/// one, and is not counted.
fn sent_away(p: &Pipeline, uri: &CrawlUri, fetched: &Fetched) {
    if fetched
        .result
        .as_ref()
        .is_ok_and(|r| !(200..300).contains(&r.status))
    {
        p.access.note_lost_page(&uri.url);
    }
}
