//! Form login, a prerequisite of every page on a host with a `kind = "form"` credential (as Heritrix runs
//! one): before the host's first page the form is posted to its `login_url` with the cookies of the URI's jar,
//! and whether it worked is read from the `success` sign. One worker logs in while the host's other URIs wait
//! on its session. A page showing the credential's `logged_out` sign has the login run again (once per lost
//! session, however many workers saw it) and is fetched once more.
//!
//! The login exchange is archived as it crossed the wire — the password in the request body included: that
//! is what was sent (docs/access.md) — and logged in crawl.log as a `P` hop from the page that needed it,
//! annotated `login:ok` or `login:failed`. Like the `dns:` lines, this is a line a stage hands the journal
//! itself: the login has no frontier entry of its own.

use http::header::{COOKIE, LOCATION};

use super::pipeline::{Pipeline, blocking};
use crate::crawl_log::LogEntry;
use trawl_config::Annotation;
use trawl_config::CrawlConfig;
use trawl_config::CrawlUri;
use trawl_extract::Hop;
use trawl_fetch::access::{self, MAX_FAILED_LOGINS};
use trawl_fetch::{Fetched, RequestParts};

/// Logs in to `uri`'s host when it has a form credential and no session (or, with `lost = Some(g)`, when the
/// session of generation `g` was lost and nobody logged in since). Returns the session generation the URI
/// is fetched under, when the host has a form credential.
pub(super) async fn ensure(
    p: &Pipeline,
    uri: &CrawlUri,
    settings: &CrawlConfig,
    jar: &str,
    worker: usize,
    lost: Option<u64>,
) -> Option<u64> {
    let spec = p.access.form_for(&uri.url)?.clone();
    let login_url = trawl_url::parse_lenient(spec.login_url.as_deref()?).ok()?;
    if uri.url == login_url {
        return None;
    }
    let session = p.access.session(&uri.url);
    let mut s = session.lock().await;
    let wanted = match lost {
        Some(g) => s.generation == g,
        None => !s.logged_in && s.generation == 0,
    };
    if !wanted || s.failures >= MAX_FAILED_LOGINS {
        return Some(s.generation);
    }
    let mut parts = RequestParts {
        form: Some(p.access.login_body(&spec)),
        ..RequestParts::default()
    };
    if let Some(cookies) = p.access.cookies.header(jar, &login_url)
        && let Ok(value) = http::HeaderValue::from_str(&cookies)
    {
        parts.headers.push((COOKIE, value));
    }
    let fetched = p
        .fetcher
        .fetch(
            &login_url,
            settings.fetch.max_bytes,
            &settings.fetch,
            &parts,
        )
        .await;
    p.keep_cookies(jar, &login_url, &fetched);
    // A login form on another host (single sign-on) looked that host up: its record goes with this page.
    if let Some(answer) = p.fetcher.take_dns_answer(&login_url) {
        p.archive_dns(uri, &answer, worker);
    }
    let worked = fetched.result.as_ref().is_ok_and(|resp| {
        let location = resp.headers.get(LOCATION).and_then(|v| v.to_str().ok());
        spec.success.as_ref().is_some_and(|success| {
            access::login_worked(
                success,
                &login_url,
                resp.status,
                location,
                &resp.body,
                |name| p.access.cookies.has(jar, &login_url, name),
            )
        })
    });
    if worked {
        s.logged_in = true;
        s.failures = 0;
        s.generation += 1;
    } else {
        s.logged_in = false;
        s.failures += 1;
        // Later URIs go on without a session; the same host is not posted to again unless a page shows it
        // lost one (and only up to the failure limit).
        if s.generation == 0 {
            s.generation = u64::MAX / 2;
        }
        tracing::warn!(
            host = uri.url.host_str().unwrap_or_default(),
            "form login failed"
        );
    }
    archive(p, uri, &login_url, &fetched, worked, worker);
    Some(s.generation)
}

/// Whether a fetched page shows the session of its host's form credential was lost.
pub(super) fn lost(p: &Pipeline, uri: &CrawlUri, fetched: &Fetched) -> bool {
    let (Some(spec), Ok(resp)) = (p.access.form_for(&uri.url), &fetched.result) else {
        return false;
    };
    let Some(sign) = &spec.logged_out else {
        return false;
    };
    let location = resp.headers.get(LOCATION).and_then(|v| v.to_str().ok());
    access::shows_logged_out(sign, &uri.url, resp.status, location, &resp.body)
}

/// Writes the login exchange to the archive and its crawl.log line.
fn archive(
    p: &Pipeline,
    uri: &CrawlUri,
    login_url: &url::Url,
    fetched: &Fetched,
    worked: bool,
    worker: usize,
) {
    let mut login = uri.child(login_url.clone(), String::new(), Hop::Prerequisite);
    login.annotate(Annotation::Login(worked));
    let (status, size, mime, digest) = match &fetched.result {
        Ok(resp) => {
            let written = blocking(resp.response_bytes.len(), || {
                p.warc.write_fetch(&login, fetched, resp, &[], None)
            });
            let digest = match written {
                Ok(archived) => archived.digest,
                Err(e) => {
                    p.fail(e.to_string());
                    return;
                }
            };
            let mime = resp
                .headers
                .get(http::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .map(|v| v.split(';').next().unwrap_or("").trim().to_string());
            (
                i32::from(resp.status),
                Some(resp.body.len() as u64),
                mime,
                digest,
            )
        }
        Err(e) => {
            login.annotate(e.annotation());
            (e.status(), None, None, None)
        }
    };
    let line = p.log(
        &LogEntry {
            status,
            size,
            uri: login.url.as_str(),
            hop_path: &login.hop_path,
            via: Some(uri.url.as_str()),
            mime: mime.as_deref(),
            worker,
            fetch: Some((fetched.started, fetched.duration.as_millis())),
            digest: digest.as_deref(),
            annotations: &login.annotations,
        },
        &uri.source,
        login.url.host_str().unwrap_or_default(),
        size.unwrap_or(0),
    );
    p.write_line(line);
}
