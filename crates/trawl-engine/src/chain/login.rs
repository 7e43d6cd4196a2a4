//! Form login, a prerequisite of every page on a host with a `kind = "form"` credential (as Heritrix runs
//! one): before the host's first page the login page is read and its form submitted as a browser would
//! ([`crate::login`]), and whether it worked is judged from the credential's `success` sign or, without one,
//! from the cookies it set and the login form not showing again. One worker logs in while the host's other
//! URIs wait on its session. A page showing the session lost — the credential's `logged_out` sign, or by
//! default a redirect to the login page or the login form shown again — has the login run again (once per
//! lost session, however many workers saw it) and is fetched once more.
//!
//! Every exchange of the login is archived as it crossed the wire — the password in the request body
//! included: that is what was sent (docs/access.md) — and logged in crawl.log: the login page as a `P` hop
//! from the page that needed it (`login:page`), the form submitted as an `L` hop from the login page
//! (`login:ok` or `login:failed`), each redirect after it as an `R` hop (`login:redirect`); a login page's
//! own redirects are `R` hops too (`login:page`). A login page that cannot be used without a browser is
//! logged `login:javascript` or `login:captcha`, with the way out in the crawl's log; a password not sent
//! to a server whose TLS certificate failed validation, `login:untrusted`. A login judged to work after
//! which a page fetched again still shows the session lost is counted failed ([`still_lost`]). Like the `dns:` lines, these are lines a stage hands the journal itself: the login
//! has no frontier entry of its own.

use super::pipeline::Pipeline;
use crate::blocking::blocking;
use crate::{
    crawl_log::LogEntry,
    login::{self, Attempt, Step},
};
use trawl_config::CrawlConfig;
use trawl_config::CrawlUri;
use trawl_config::annotation::LoginNote;
use trawl_config::{Annotation, settings::CredentialSpec};
use trawl_extract::Hop;
use trawl_fetch::Fetched;
use trawl_fetch::access::{
    FORBIDDEN_WINDOW, MAX_FAILED_LOGINS,
    form::{
        FormSignature, Verdict, redirects_to_login, redirects_to_sign_in, same_page, same_place,
        shows_logged_out, sign_in_address, sign_in_path,
    },
};

/// A login a stop cut short before the site judged it: the URI goes back untried, with no line (as a fetch
/// the stop cuts), and the next run logs in again.
#[derive(Debug)]
pub(super) struct Cut;

/// Logs in to `uri`'s host when it has a form credential and no session (or, with `lost = Some(g)`, when the
/// session of generation `g` was lost and nobody logged in since). Returns the session generation the URI
/// is fetched under, when the host has a form credential; [`Cut`] when a stop ended the login first.
pub(super) async fn ensure(
    p: &Pipeline,
    uri: &CrawlUri,
    settings: &CrawlConfig,
    jar: &str,
    worker: usize,
    lost: Option<u64>,
    left: &mut Vec<url::Url>,
) -> Result<Option<u64>, Cut> {
    let Some((index, spec)) = p.access.form_credential(&uri.url) else {
        return Ok(None);
    };
    let spec = spec.clone();
    let Some(login_url) = spec
        .login_url
        .as_deref()
        .and_then(|u| trawl_url::parse_lenient(u).ok())
    else {
        return Ok(None);
    };
    if uri.url == login_url {
        return Ok(None);
    }
    let session = p.access.session(&uri.url);
    let mut s = session.lock().await;
    let was_in = s.logged_in;
    let wanted = match lost {
        Some(g) => s.generation == g,
        // A page cleared the session's cookie: the next page logs in again first (xt44b F9).
        None => (!s.logged_in && s.generation == 0) || s.cleared == Some(s.generation),
    };
    if !wanted || s.failures >= MAX_FAILED_LOGINS {
        return Ok(Some(s.generation));
    }
    let refuses = guard(p);
    let client = client(p, jar, settings, &refuses);
    // A proven session, moments after its login, on a site where a page already stayed lost right after one:
    // this page is taken for another area the account may not enter, and costs no login (xt17c F3) — when a
    // page that showed the session alive still does (xt44b F1: a session the site ended within the window
    // had every member page after it archived as its redirect to the login page).
    if lost.is_some()
        && s.logged_in
        && s.proven
        && s.spared > 0
        && let Some(since) = s.logged_in_at.map(|at| at.elapsed())
        && since < FORBIDDEN_WINDOW
    {
        match still_alive(p, &client, &spec, &login_url, uri, &s, worker).await {
            Alive::Yes | Alive::Unknown => {
                s.no_sign.insert(page_key(&uri.url));
                tracing::info!(
                    "{}: showed the session lost {} s after a login proven by its `success` sign, on a host \
                     where a page stayed so right after a fresh login, while a page that showed it alive \
                     still does: taken for a page the account may not see (no login for it; within {} s of a \
                     login such a page is archived as the site sent it)",
                    uri.url,
                    since.as_secs(),
                    FORBIDDEN_WINDOW.as_secs()
                );
                return Ok(Some(s.generation));
            }
            Alive::No(witness) => tracing::info!(
                "{}: showed the session lost, and {witness}, which showed it alive, now does too: the site \
                 ended the session; logging in again",
                uri.url
            ),
        }
    }
    let mut attempt = login::attempt(&client, &spec).await;
    // A redirect the login left to the crawl is the page's to queue, whatever the login's verdict (xt46c N3:
    // it was said to be, and never was).
    left.extend(attempt.left_to_crawl.take());
    // A site that limits logins (429, 503) is waited for as it asks, up to the failure limit's number of
    // times, none counted failed: it says "later", not "wrong password" (xt10a F5).
    for _ in 0..MAX_FAILED_LOGINS {
        let Some((status, wait)) = limited(&attempt, settings) else {
            break;
        };
        tracing::warn!(
            host = %authority(&uri.url),
            "credentials[{index}]: the site answered the login {status}, limiting logins: trying again in {} s, \
             as it asks (not counted as a failed login)",
            wait.as_secs()
        );
        archive(p, uri, &attempt, worker, Waited::Yes);
        if !pause(p, wait).await {
            // Stopped while waiting: the site judged nothing, so no failure is counted, and the page goes
            // back untried (xt11a F1: it was fetched logged out and recorded done).
            s.logged_in = false;
            return Err(Cut);
        }
        attempt = login::attempt(&client, &spec).await;
        left.extend(attempt.left_to_crawl.take());
    }
    if !attempt.ok() && ended_by_trawl(&attempt) {
        // Trawl's own shortage (too many open files …) or a stop ended the login before the site answered:
        // it says nothing of the credential, so no failure is counted and the next page tries again; a page
        // whose login a stop cut goes back untried. Told first: such a login also posted nothing (review 66
        // R3).
        s.logged_in = false;
        if attempt.form.is_some() {
            s.form = Some(attempt.signature.clone());
        }
        archive(p, uri, &attempt, worker, Waited::No);
        if p.stop.is_stopped() {
            return Err(Cut);
        }
        return Ok(Some(s.generation));
    }
    // A login page that sends a visitor it takes for logged in elsewhere (Django's admin, `LoginView` with
    // `redirect_authenticated_user`, Devise), before any post: the session the page took for lost is alive.
    // No failure, no fetch again; the page is no sign from now on (xt17a F2: the working login was given up
    // as one "built by JavaScript"). The login form's signature is kept (review 65b R2).
    if lost.is_some() && was_in && sent_on(&attempt) {
        // Its lines are the login page's and its redirects': no login was needed (not `login:javascript`).
        attempt.outcome.verdict = Verdict::Ok;
        s.no_sign.insert(page_key(&uri.url));
        tracing::info!(
            "{}: showed the session lost, but the login page {} sent the crawler on as logged in: the session \
             is alive, and this page is no sign of a lost one from now on",
            uri.url,
            attempt.login_url
        );
        archive(p, uri, &attempt, worker, Waited::No);
        return Ok(Some(s.generation));
    }
    s.form = Some(attempt.signature.clone());
    if attempt.ok() {
        s.login_cookies = set_cookies(&attempt);
        s.logged_in = true;
        s.failures = 0;
        s.generation += 1;
        s.proven = proven(&spec);
        // Where a login its `success` sign proved led is behind the login too; where an unproven one led
        // may be, which a check asks when it must (`landing`).
        let landed = attempt
            .exchanges
            .last()
            .filter(|e| {
                e.step == Step::Redirect
                    && e.fetched
                        .result
                        .as_ref()
                        .is_ok_and(|r| (200..300).contains(&r.status))
            })
            .map(|e| e.url.clone());
        s.landing = None;
        match landed {
            Some(landed) if s.proven => s.alive_at(&landed),
            landed => s.landing = landed,
        }
        s.logged_in_at = Some(std::time::Instant::now());
        p.access.note_form_login(index, None);
    } else {
        s.logged_in = false;
        // A login that needs a browser, or refused to an unverified server, will not work by trying again;
        // nor, in this run, one the site still limited after the waits: a page showing the session lost
        // would run the whole limited login again (xt11a F5: eight posts for one page).
        let still_limited = limited(&attempt, settings).is_some();
        s.failures = match attempt.outcome.verdict {
            Verdict::Javascript | Verdict::Captcha | Verdict::Untrusted => MAX_FAILED_LOGINS,
            _ if still_limited || !p.access.cookies.enabled() => MAX_FAILED_LOGINS,
            _ => s.failures + 1,
        };
        p.access
            .note_form_login(index, Some(attempt.outcome.sign.clone()));
        // Later URIs go on without a session; the same host is not posted to again unless a page shows it
        // lost one (and only up to the failure limit).
        if s.generation == 0 {
            s.generation = u64::MAX / 2;
        }
        let mut advice = attempt.outcome.advice.join("; ");
        if let Some((status, _)) = limited(&attempt, settings) {
            advice = format!(
                "the site still limited logins ({status}) after {MAX_FAILED_LOGINS} waits: the credential may be \
                 right; not logging in to this host again in this run (`trawl resume` tries again); crawl this \
                 host more slowly ([frontier] min_delay_ms) or later"
            );
        }
        if advice.is_empty() {
            advice = "-".into();
        }
        tracing::warn!(
            host = %authority(&uri.url),
            "credentials[{index}]: form login failed: {}; what to change: {advice} (`trawl login` shows the \
             whole exchange)",
            attempt.outcome.sign
        );
    }
    archive(p, uri, &attempt, worker, Waited::No);
    // The page that needed the login is the host's next request: spaced as the login's own are.
    if !attempt.exchanges.is_empty() {
        login::space(&client).await;
    }
    Ok(Some(s.generation))
}

/// The names of the cookies a login's answers set (not those they cleared).
fn set_cookies(attempt: &Attempt) -> Vec<String> {
    let mut names: Vec<String> = attempt
        .exchanges
        .iter()
        .filter_map(|e| e.fetched.result.as_ref().ok())
        .flat_map(|r| r.headers.get_all(http::header::SET_COOKIE))
        .filter_map(|v| v.to_str().ok())
        .filter(|v| trawl_fetch::access::cleared_cookie(v).is_none())
        .filter_map(trawl_fetch::access::set_cookie_name)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// A page whose answer cleared a cookie the session's login set (a sign-out page the login guard did not
/// know): the session ended, so the host's next page logs in again first, and the crawl's log names the
/// page so that it can go into `avoid` (xt44b F9: the private posts after it were archived as 404s).
pub(super) async fn cleared(p: &Pipeline, uri: &CrawlUri, fetched: &Fetched, jar: &str) {
    let Ok(resp) = &fetched.result else {
        return;
    };
    let mut values = resp
        .headers
        .get_all(http::header::SET_COOKIE)
        .iter()
        .peekable();
    if values.peek().is_none() || p.access.form_for(&uri.url).is_none() {
        return;
    }
    let login_url = p
        .access
        .form_for(&uri.url)
        .and_then(|spec| spec.login_url.as_deref())
        .and_then(|u| trawl_url::parse_lenient(u).ok());
    // Cleared and not set again: the jar (which took the answer's cookies) sends it neither to this page nor
    // to the login page (review 83 R5: one expired at another path, or expired and set anew, is no end).
    let still_held = |name: &str| {
        p.access.cookies.has(jar, &uri.url, name)
            || login_url
                .as_ref()
                .is_some_and(|u| p.access.cookies.has(jar, u, name))
    };
    let gone: Vec<String> = values
        .filter_map(|v| v.to_str().ok())
        .filter_map(trawl_fetch::access::cleared_cookie)
        .filter(|name| !still_held(name))
        .collect();
    if gone.is_empty() {
        return;
    }
    let session = p.access.session(&uri.url);
    let mut s = session.lock().await;
    let Some(name) = gone.iter().find(|n| s.login_cookies.contains(n)) else {
        return;
    };
    if !s.logged_in || s.cleared == Some(s.generation) {
        return;
    }
    s.cleared = Some(s.generation);
    tracing::warn!(
        host = %authority(&uri.url),
        "{} cleared the cookie {name} the login set: the session ended there; logging in again before the \
         host's next page (add the page to the credential's `avoid` to keep the session)",
        uri.url
    );
}

/// Whether the login guard of the settings in force refuses a URL: a login's redirect to one is not followed.
fn guard(p: &Pipeline) -> impl Fn(&url::Url) -> bool + Send + Sync + use<> {
    let scope = p.settings().scope.clone();
    move |u: &url::Url| scope.login_guard().is_some_and(|g| g.refuses(u).is_some())
}

/// A login client of the crawl: the URI's jar, the fetch settings, its requests spaced by the host's
/// `frontier.min_delay_ms`.
fn client<'a>(
    p: &'a Pipeline,
    jar: &'a str,
    settings: &'a CrawlConfig,
    refuses: &'a (dyn Fn(&url::Url) -> bool + Send + Sync),
) -> login::Client<'a> {
    login::Client {
        fetcher: &p.fetcher,
        access: &p.access,
        jar,
        settings: &settings.fetch,
        refuses,
        spacing: std::time::Duration::from_millis(settings.frontier.min_delay_ms),
        stop: Some(&p.stop),
    }
}

/// The status and wait of a login whose last answer limits logins (429, or 503): its `Retry-After`, else 10 s,
/// at most `fetch.max_retry_after_s`.
fn limited(attempt: &Attempt, settings: &CrawlConfig) -> Option<(u16, std::time::Duration)> {
    let resp = attempt.exchanges.last()?.fetched.result.as_ref().ok()?;
    if !matches!(resp.status, 429 | 503) {
        return None;
    }
    let wait = resp
        .headers
        .get(http::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| super::post::retry_after(v, std::time::SystemTime::now()))
        .unwrap_or(std::time::Duration::from_secs(10))
        .min(std::time::Duration::from_secs(
            settings.fetch.max_retry_after_s,
        ));
    Some((resp.status, wait))
}

/// Sleeps `wait`, a second at a time; false when the crawl is stopped meanwhile.
async fn pause(p: &Pipeline, wait: std::time::Duration) -> bool {
    let until = tokio::time::Instant::now() + wait;
    while tokio::time::Instant::now() < until {
        if p.stop.is_stopped() {
            return false;
        }
        tokio::time::sleep_until(
            until.min(tokio::time::Instant::now() + std::time::Duration::from_secs(1)),
        )
        .await;
    }
    !p.stop.is_stopped()
}

/// Whether the login page, asked for, sent the crawler on to a page of the site as a sign-in page does for a
/// visitor who is logged in: nothing posted, the login page redirected, and the redirects ended on a page
/// (2xx) that is no sign-in page and shows no login form (whatever the verdict says of it). A login page that
/// always redirects first (`/login` to `/accounts/login/`) and then failed — no answer, a site still limiting
/// logins, a stop's cut — is not one (review 66 R3).
fn sent_on(attempt: &Attempt) -> bool {
    let status = |e: &login::Exchange| e.fetched.result.as_ref().ok().map(|r| r.status);
    let (Some(first), Some(last)) = (attempt.exchanges.first(), attempt.exchanges.last()) else {
        return false;
    };
    let Some(last_status) = status(last) else {
        return false;
    };
    // Where it ended: the page it landed on, or where a redirect the crawler does not follow (the login
    // guard's, another host's, past the redirect limit) goes (review 67 R9).
    // A page answered, or missing: Django's `redirect_authenticated_user` sends a logged-in visitor to its
    // default `LOGIN_REDIRECT_URL`, `/accounts/profile/`, which most sites do not have (xt44b F7).
    let landed = match last_status {
        200..=299 | 404 | 410 => Some(attempt.page_url.clone()),
        300..=399 => last
            .fetched
            .result
            .as_ref()
            .ok()
            .and_then(|r| r.headers.get(http::header::LOCATION))
            .and_then(|v| v.to_str().ok())
            .and_then(|l| last.url.join(l).ok()),
        _ => None,
    };
    attempt.exchanges.iter().all(|e| e.method == "GET")
        && status(first).is_some_and(|s| (300..400).contains(&s))
        && attempt.form.is_none()
        && landed
            .is_some_and(|to| !same_page(&to, &attempt.login_url) && !sign_in_address(to.path()))
}

/// What a page that showed the session alive says when fetched again.
enum Alive {
    /// It still shows the session alive.
    Yes,
    /// It shows the session lost now: the site ended it.
    No(url::Url),
    /// No such page is known, or it got no answer: nothing is known.
    Unknown,
}

/// Fetches again the page nearest to `uri` that showed the session of `s` alive
/// ([`trawl_fetch::access::Session::witness_for`]) and says whether it still does ([`check`]).
async fn still_alive(
    p: &Pipeline,
    client: &login::Client<'_>,
    spec: &CredentialSpec,
    login_url: &url::Url,
    uri: &CrawlUri,
    s: &trawl_fetch::access::Session,
    worker: usize,
) -> Alive {
    let Some(witness) = s.witness_for(&uri.url).cloned() else {
        return Alive::Unknown;
    };
    let to = Check {
        page: &witness,
        anyone: false,
    };
    check(p, client, (spec, login_url), uri, s, to, worker).await
}

/// Whether the page an unproven login led to ([`trawl_fetch::access::Session::landing`]) is behind the
/// login: it shows the session alive, and sends away anyone who asks without the session's cookies. A
/// public page a wrong password's answer led to shows both alike and proves nothing (xt17c F1); a member
/// area's first page proves the login works (xt46c N1: a working login given up at the second page the
/// account may not enter).
async fn landed_behind(
    p: &Pipeline,
    client: &login::Client<'_>,
    spec: &CredentialSpec,
    login_url: &url::Url,
    uri: &CrawlUri,
    s: &trawl_fetch::access::Session,
    worker: usize,
) -> Option<url::Url> {
    let landing = s
        .landing
        .clone()
        .filter(|l| l.as_str() != uri.url.as_str())?;
    let as_member = Check {
        page: &landing,
        anyone: false,
    };
    let as_anyone = Check {
        page: &landing,
        anyone: true,
    };
    let both = matches!(
        check(p, client, (spec, login_url), uri, s, as_member, worker).await,
        Alive::Yes
    ) && matches!(
        check(p, client, (spec, login_url), uri, s, as_anyone, worker).await,
        Alive::No(_)
    );
    both.then_some(landing)
}

/// A page fetched to check a session: with the session's cookies, or as anyone.
#[derive(Clone, Copy)]
struct Check<'a> {
    page: &'a url::Url,
    anyone: bool,
}

/// Fetches `to.page` once more, archived and logged as a `P` hop from `uri` (`login:check`), and says
/// whether it shows the session of `s` alive: answered 2xx with no sign of a lost session.
async fn check(
    p: &Pipeline,
    client: &login::Client<'_>,
    (spec, login_url): (&CredentialSpec, &url::Url),
    uri: &CrawlUri,
    s: &trawl_fetch::access::Session,
    to: Check<'_>,
    worker: usize,
) -> Alive {
    let page = to.page;
    let fetched = if to.anyone {
        login::check_as_anyone(client, page).await
    } else {
        login::check(client, page).await
    };
    let mut line = uri.child(page.clone(), String::new(), Hop::Prerequisite);
    line.annotate(Annotation::Login(LoginNote::Check));
    if let Some(answer) = p.fetcher.take_dns_answer(page) {
        p.archive_dns(uri, &answer, worker);
    }
    write_exchange(p, &mut line, &uri.url, &fetched, worker);
    let Ok(resp) = &fetched.result else {
        return Alive::Unknown;
    };
    // A site limiting requests or failing says nothing of the session (review 83 R2).
    if resp.status == 429 || resp.status >= 500 {
        return Alive::Unknown;
    }
    let signature = s
        .form
        .clone()
        .unwrap_or_else(|| FormSignature::of_url(login_url));
    // Asked as anyone, only a sign-in answer (a redirect to the login page, the login form) sends the asker
    // away: a bare 4xx is what bot protection or a cookie check answers a cookie-less request, whatever the
    // page (review 86 R1: a wrong password's public landing page was taken for a member page).
    let refused = (400..500).contains(&resp.status) && !to.anyone;
    let lost = refused
        || blocking(resp.body.len(), || {
            shows_logged_out(
                spec,
                login_url,
                &signature,
                page,
                resp.status,
                &resp.headers,
                &resp.body,
            )
        });
    if lost {
        Alive::No(page.clone())
    } else {
        Alive::Yes
    }
}

/// Whether a login that worked proved it beyond the default signs: the operator's `success` sign showed
/// (a login that worked has shown it, when there is one). Such a login is never given up for a page that
/// still shows the session lost (review 65b R3, R5). A redirect after the post proves nothing: a wrong
/// password's answer redirects as often, with a fresh cookie (xt17c F1: a login post per member page).
fn proven(spec: &CredentialSpec) -> bool {
    spec.success.is_some()
}

/// A URL's host with its port when it names one, as a credential's `domain` does (xt44b F6: the login's
/// warnings named two credentials of one address alike).
fn authority(u: &url::Url) -> String {
    let host = u.host_str().unwrap_or_default();
    match u.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    }
}

/// A page's place, as the session's sign-in sets keep it: host, port and path.
fn place(u: &url::Url) -> String {
    format!("{}{}", authority(u), u.path())
}

/// A page as the session's set of pages that are no sign keeps it: its whole URL but the fragment (the pages
/// of a front controller share one path, review 65b R1).
fn page_key(u: &url::Url) -> String {
    let mut u = u.clone();
    u.set_fragment(None);
    u.into()
}

/// Whether the login's last exchange ended for want of trawl's own resources or by a stop's cut, not by
/// anything the site said.
fn ended_by_trawl(attempt: &Attempt) -> bool {
    attempt.exchanges.last().is_some_and(|e| {
        matches!(
            e.fetched.result,
            Err(trawl_fetch::FetchError::Local(_) | trawl_fetch::FetchError::Stopped(_))
        )
    })
}

/// A page fetched again right after the login of session `generation` still shows the session lost. After a
/// login that proved it worked ([`proven`]), and for the first such page after one that did not, it is taken
/// for a page that shows the sign whoever asks (a re-authentication form, xt17a F1): no sign from now on, the
/// login kept. Else that login did not work, whatever its answer looked like: it is counted failed, said
/// once, and not tried again (the default signs are wrong for this site: trying again would loop).
pub(super) async fn still_lost(
    p: &Pipeline,
    uri: &CrawlUri,
    generation: Option<u64>,
    (jar, settings, worker): (&str, &CrawlConfig, usize),
) {
    let Some((index, spec)) = p.access.form_credential(&uri.url) else {
        return;
    };
    let Some(login_url) = spec
        .login_url
        .as_deref()
        .and_then(|u| trawl_url::parse_lenient(u).ok())
    else {
        return;
    };
    let session = p.access.session(&uri.url);
    let mut s = session.lock().await;
    if generation != Some(s.generation) || !s.logged_in {
        return;
    }
    if s.proven || s.spared == 0 {
        s.spared += 1;
        s.no_sign.insert(page_key(&uri.url));
        tracing::info!(
            "{}: still showed the session lost right after a fresh login: taken for a page that shows it \
             whoever asks (no sign of a lost session from now on){}",
            uri.url,
            if s.proven {
                ""
            } else {
                "; should another page do so right after a login, the login is taken for one that did not work"
            }
        );
        return;
    }
    // A page that showed the session alive before and still does under this login: the login works, and
    // this page is another the account may not enter (xt44b F1: Django's `permission_required` pages made a
    // working login be given up).
    let refuses = guard(p);
    let client = client(p, jar, settings, &refuses);
    let alive = still_alive(p, &client, spec, &login_url, uri, &s, worker).await;
    let behind =
        match alive {
            Alive::Yes => Some("a page that showed it alive still does".to_string()),
            // Only where no page behind the login is known yet: one that answered 429 or failed says nothing
            // (review 86 R10).
            Alive::Unknown if s.witness_for(&uri.url).is_none() => landed_behind(
                p, &client, spec, &login_url, uri, &s, worker,
            )
            .await
            .map(|landing| {
                s.alive_at(&landing);
                format!("{landing}, where the login led, shows it alive and sends anyone else away")
            }),
            Alive::Unknown | Alive::No(_) => None,
        };
    if let Some(behind) = behind {
        s.spared += 1;
        s.no_sign.insert(page_key(&uri.url));
        tracing::info!(
            "{}: still showed the session lost right after a fresh login, while {behind}: taken for a page \
             the account may not see (no sign of a lost session from now on)",
            uri.url
        );
        return;
    }
    s.logged_in = false;
    s.failures = MAX_FAILED_LOGINS;
    let how = if spec.success.is_some() {
        "the `success` sign showed, but"
    } else {
        "the login looked successful (a cookie set, no login form in its answer), but"
    };
    let why = format!(
        "{how} {} still showed the session lost right after it",
        uri.url
    );
    tracing::warn!(
        host = %authority(&uri.url),
        "credentials[{index}]: form login failed: {why}; the login probably did not work (a wrong password?); \
         set the credential's `success` to what only a logged-in page shows (success = {{ text = \"Sign out\" }}, \
         {{ cookie = \"NAME\" }} or {{ redirect_to = \"URL\" }}) and check with `trawl login`; not logging in \
         to this host again"
    );
    p.access.overturn_login(index, why);
}

/// The form credential of `uri`'s host, its login page, and the answer `fetched` holds, if all three are.
fn form_answer<'a>(
    p: &'a Pipeline,
    uri: &CrawlUri,
    fetched: &'a Fetched,
) -> Option<(&'a CredentialSpec, url::Url, &'a trawl_fetch::Response)> {
    let spec = p.access.form_for(&uri.url)?;
    let resp = fetched.result.as_ref().ok()?;
    let login_url = trawl_url::parse_lenient(spec.login_url.as_deref()?).ok()?;
    Some((spec, login_url, resp))
}

/// Whether a fetched page shows the session of its host's form credential was lost.
pub(super) async fn lost(p: &Pipeline, uri: &CrawlUri, fetched: &Fetched) -> bool {
    let Some((spec, login_url, resp)) = form_answer(p, uri, fetched) else {
        return false;
    };
    let (signature, refused_here) = {
        let s = p.access.session(&uri.url);
        let s = s.lock().await;
        let refused = s.no_sign.contains(&page_key(&uri.url))
            || other_sign_in(&login_url, uri, resp).is_some_and(|at| s.not_allowed.contains(&at));
        (
            s.form
                .clone()
                .unwrap_or_else(|| FormSignature::of_url(&login_url)),
            refused,
        )
    };
    // A sign-in page that turned out to guard an area the account may not enter, or a page known to show
    // the sign whoever asks, says nothing of the session.
    if refused_here {
        return false;
    }
    // Another address of a sign-in page (Django's `/accounts/login` adding its slash, a `/signin` alias)
    // redirects whoever asks (xt17a F1: the login was given up).
    if (300..400).contains(&resp.status) && sign_in_address(uri.url.path()) {
        return false;
    }
    // The login page (and where its form goes, when that is another place) shows the form whoever asks. The
    // other pages of a front controller (DokuWiki's `doku.php?id=…`, MediaWiki's `index.php?title=…`) share
    // its path and are judged as any page (xt10a F2).
    // Whatever the sign: the login page says "Sign in" to everyone (xt17a F1).
    let at_login = same_page(&uri.url, &login_url)
        || (!same_place(&signature.action, &login_url) && same_place(&uri.url, &signature.action));
    if at_login {
        return false;
    }
    let spec: &CredentialSpec = spec;
    blocking(resp.body.len(), || {
        shows_logged_out(
            spec,
            &login_url,
            &signature,
            &uri.url,
            resp.status,
            &resp.headers,
            &resp.body,
        )
    })
}

/// A page that showed the session lost and, fetched again right after a login, answered 2xx without the
/// sign: a page behind the login, kept as the one of its folder to fetch again when a page near it shows the
/// session lost ([`still_alive`]). A page any visitor sees (a public page, a style sheet) would prove
/// nothing there (review 83 R1).
pub(super) async fn behind_the_login(p: &Pipeline, uri: &CrawlUri, fetched: &Fetched) {
    let answered = fetched
        .result
        .as_ref()
        .is_ok_and(|r| (200..300).contains(&r.status));
    if answered && p.access.form_for(&uri.url).is_some() {
        let session = p.access.session(&uri.url);
        let mut s = session.lock().await;
        if s.logged_in {
            s.alive_at(&uri.url);
        }
    }
}

/// Another sign-in page than the credential's login page, by its place (host and path): the one `resp`
/// redirects to (Django's admin's `/admin/login/?next=…`, [`redirects_to_sign_in`]), or the page itself when
/// it is one and answered (the admin's sign-in page shows its form to a user who may not enter).
fn other_sign_in(
    login_url: &url::Url,
    uri: &CrawlUri,
    resp: &trawl_fetch::Response,
) -> Option<String> {
    let location = resp
        .headers
        .get(http::header::LOCATION)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let location = location.as_deref();
    if redirects_to_sign_in(&uri.url, resp.status, location) {
        if redirects_to_login(login_url, &uri.url, resp.status, location) {
            return None;
        }
        return uri.url.join(location?).ok().map(|to| place(&to));
    }
    ((200..300).contains(&resp.status)
        && sign_in_path(uri.url.path())
        && !same_page(&uri.url, login_url))
    .then(|| place(&uri.url))
}

/// A page that, fetched again right after a fresh login, still redirects to another sign-in page than the
/// credential's, or is one: an area the account may not enter, not a login that failed (review R2 of stop
/// 60: Django's admin for a user who is not staff made the working login be given up). That sign-in page is
/// no sign of a lost session from now on; true when it was one.
pub(super) async fn not_allowed(p: &Pipeline, uri: &CrawlUri, fetched: &Fetched) -> bool {
    let Some((_, login_url, resp)) = form_answer(p, uri, fetched) else {
        return false;
    };
    let Some(place) = other_sign_in(&login_url, uri, resp) else {
        return false;
    };
    let session = p.access.session(&uri.url);
    let added = session.lock().await.not_allowed.insert(place.clone());
    if added {
        tracing::info!(
            "{}: redirected to the sign-in page {place} right after a fresh login: the account may not enter \
             there; such redirects are not taken for a lost session from now on",
            uri.url
        );
    }
    true
}

/// Whether a login's answer that limits logins (429, 503) is waited for and the login tried again
/// (`login:limited`), or ends it (`login:failed`, xt44b F3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Waited {
    Yes,
    No,
}

/// Writes the login's exchanges to the archive, each with its crawl.log line.
fn archive(p: &Pipeline, uri: &CrawlUri, attempt: &Attempt, worker: usize, waited: Waited) {
    let mut from = uri.clone();
    for (i, exchange) in attempt.exchanges.iter().enumerate() {
        let hop = match exchange.step {
            Step::Page => Hop::Prerequisite,
            Step::Submit => Hop::Link,
            Step::Redirect => Hop::Redirect,
        };
        let hop = match (exchange.step, i) {
            // The login page's own redirects: `R` hops from it.
            (Step::Page, 1..) => Hop::Redirect,
            _ => hop,
        };
        let mut line = from.child(exchange.url.clone(), String::new(), hop);
        let last = i + 1 == attempt.exchanges.len();
        let note = match exchange.step {
            Step::Page => match attempt.outcome.verdict {
                Verdict::Javascript if last => LoginNote::Javascript,
                Verdict::Captcha if last => LoginNote::Captcha,
                Verdict::Failed if last => LoginNote::Failed,
                Verdict::Untrusted if last => LoginNote::Untrusted,
                _ => LoginNote::Page,
            },
            Step::Submit if attempt.ok() => LoginNote::Ok,
            Step::Submit
                if waited == Waited::Yes
                    && exchange
                        .fetched
                        .result
                        .as_ref()
                        .is_ok_and(|r| matches!(r.status, 429 | 503)) =>
            {
                LoginNote::Limited
            }
            Step::Submit => LoginNote::Failed,
            Step::Redirect => LoginNote::Redirect,
        };
        line.annotate(Annotation::Login(note));
        // A login form on another host (single sign-on) looked that host up: its record goes with this page.
        if let Some(answer) = p.fetcher.take_dns_answer(&exchange.url) {
            p.archive_dns(uri, &answer, worker);
        }
        if !write_exchange(p, &mut line, &from.url, &exchange.fetched, worker) {
            return;
        }
        from = line;
    }
}

/// Archives one exchange (a login's, a browser page's `POST`) and hands its crawl.log line to the journal;
/// false when the archive failed.
pub(super) fn write_exchange(
    p: &Pipeline,
    login: &mut CrawlUri,
    via: &url::Url,
    fetched: &Fetched,
    worker: usize,
) -> bool {
    let (status, size, mime, digest) = match &fetched.result {
        Ok(resp) => {
            if resp.invalid_cert.is_some() {
                login.annotate(Annotation::CertInvalid);
            }
            let written = blocking(resp.response_bytes.len(), || {
                p.warc.write_fetch(login, fetched, resp, &[], None)
            });
            let digest = match written {
                Ok(archived) => archived.digest,
                Err(e) => {
                    p.fail(e.to_string());
                    return false;
                }
            };
            let mime = trawl_fetch::access::form::content_type(&resp.headers)
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
            if let Some(note) = e.proxy_note() {
                login.annotate(note);
            }
            (e.status(), None, None, None)
        }
    };
    let line = p.log(
        &LogEntry {
            status,
            size,
            uri: login.url.as_str(),
            hop_path: &login.hop_path,
            via: Some(via.as_str()),
            mime: mime.as_deref(),
            worker,
            fetch: Some((fetched.started, fetched.duration.as_millis())),
            digest: digest.as_deref(),
            annotations: &login.annotations,
        },
        Some(&login.url),
        &login.source,
        login.url.host_str().unwrap_or_default(),
        size.unwrap_or(0),
    );
    p.write_line(line);
    true
}
