//! Render: an HTML page opened in the browser when its settings' `[browser] mode` asks (docs/browser.md).
//!
//! Every request the page makes comes back here through the browser's proxy ([`PageUpstream`]) and goes the
//! way any URI goes — named, judged by the scope, robots.txt, then the chain's own fetch, extract, gates,
//! write and post — so it is archived as it crossed the wire and logged (`E` hop, `browser`). The page's
//! own HTML is served from its fetch, and a URL captured earlier in the crawl from what was archived. The
//! links of the rendered DOM that the HTML did not have become `L` links noted `browser`.

use std::{collections::HashSet, sync::Mutex, time::Duration};

use trawl_browser::{Answer, BrowserRequest, PageLimits, Upstream, detect};
use trawl_config::{Annotation, CrawlConfig, CrawlUri, UriKind, settings::BrowserMode, status};
use trawl_extract::{Hop, Outlink};

use super::{
    candidate, fetch, login,
    outcome::{Child, Cut, Disposition, Outcome, Placement},
    page_request::PageRequest,
    pipeline::Pipeline,
    post,
    rendering::Rendering,
    robots::Gate,
};
use crate::{fetch_record::FetchRecord, lock::lock};

/// What a rendered page's requests led to, for the page's outcome: the URLs the browser fetched (marked seen),
/// what their documents link to, refusals to log, queues a robots.txt fetched for them releases.
#[derive(Debug, Default)]
pub(super) struct Found {
    children: Vec<super::outcome::Child>,
    cuts: Vec<Cut>,
    release: Vec<String>,
}

impl Found {
    /// Adds what the page's requests led to into the page's own outcome.
    pub(super) fn add_to(self, outcome: &mut Outcome) {
        outcome.children.extend(self.children);
        outcome.cuts.extend(self.cuts);
        outcome.release.extend(self.release);
    }

    /// Takes what a request's own outcome holds; its crawl.log line is written now (it is no frontier item).
    fn take(&mut self, p: &Pipeline, outcome: Outcome) {
        if let Some(line) = outcome.line {
            p.write_line(line);
        }
        self.children.extend(outcome.children);
        self.children.extend(outcome.predicted);
        self.cuts.extend(outcome.cuts);
        self.release.extend(outcome.release);
    }
}

/// Renders `uri` when its settings ask for it; its new links go into `record.outlinks`.
pub(super) async fn run(
    p: &Pipeline,
    uri: &mut CrawlUri,
    record: &mut FetchRecord,
    settings: &CrawlConfig,
    worker: usize,
) -> Option<Found> {
    let rendering = p.rendering.as_ref()?;
    let class_asks = uri.class.as_ref().is_some_and(|c| c.render);
    let mode = if class_asks {
        BrowserMode::All
    } else {
        settings.browser.mode
    };
    // A page the gates keep out of the archive is not rendered: what it loads and its screenshot would go
    // into the archive without it.
    if mode == BrowserMode::Off || uri.kind != UriKind::Page || !record.write {
        return None;
    }
    if !is_a_page(record) {
        return None;
    }
    let resp = record.response()?;
    let host = uri.url.host_str().unwrap_or_default().to_owned();
    let kind = page_kind(uri);
    if mode == BrowserMode::Auto
        && !rendering.learned(&host, &kind)
        && record.entity().and_then(detect::needs_rendering).is_none()
    {
        return None;
    }
    let page_response = resp.response_bytes.to_vec();
    let status = resp.status;
    rendering.keep(uri.url.as_str(), &page_response, &resp.request_bytes);
    let upstream = PageUpstream {
        p,
        rendering,
        page: uri.clone(),
        page_response,
        worker,
        found: Mutex::default(),
        turn_limit: Duration::from_millis(settings.browser.page_timeout_ms / 10),
        sessions: Mutex::default(),
    };
    // The page's own origin: its cookies go to the browser now.
    upstream.since_login(&uri.url).await;
    let b = &settings.browser;
    let limits = PageLimits {
        page_timeout: Duration::from_millis(b.page_timeout_ms),
        idle: Duration::from_millis(b.idle_ms),
        max_scrolls: b.max_scrolls,
        max_requests: b.max_requests_per_page,
        max_bytes: b.max_bytes_per_page,
        screenshot: b.screenshot,
        behaviors: p.behaviors.clone(),
        max_views: b.max_views,
        cookies: p
            .access
            .cookies
            .matching(&p.jar_key(uri), &uri.url)
            .into_iter()
            .map(|c| trawl_browser::PageCookie {
                name: c.name,
                value: c.value,
                path: c.path,
                secure: c.secure,
                http_only: c.http_only,
            })
            .collect(),
    };
    let rendered = rendering.browser.render(&uri.url, &upstream, &limits).await;
    if let Some(why) = &rendered.cannot_start {
        p.fail(format!(
            "{why}: no page can be rendered, so the crawl stops (its `--version` answered, yet it does not \
             start: run it by hand to see why, or set [browser] mode = \"off\"); `trawl resume` the job once \
             it starts"
        ));
    }
    // A page the browser could not render at all (it did not start, its context could not be made) is not
    // `rendered`: `browser:failed` alone says so (xt9b F6).
    if !rendered.notes.contains(&"failed") {
        uri.annotate(Annotation::Browser(Some("rendered")));
    }
    for note in &rendered.notes {
        uri.annotate(Annotation::Browser(Some(note)));
    }
    let known: HashSet<String> = record
        .outlinks
        .iter()
        .map(|l| l.url.as_str().to_owned())
        .collect();
    // `<meta name="robots" content="nofollow">`: the rendered DOM's links are not followed either.
    let links = if record.nofollow {
        Vec::new()
    } else {
        rendered.links
    };
    let mut added = known;
    let new: Vec<Outlink> = links
        .into_iter()
        .filter_map(|mut url| {
            url.set_fragment(None);
            (url != uri.url && added.insert(url.as_str().to_owned())).then_some(Outlink {
                url,
                hop: Hop::Link,
                context: candidate::BROWSER_LINK,
                lastmod: None,
            })
        })
        .collect();
    let learned = !new.is_empty();
    // Counted with the HTML's links against `scope.max_outlinks`.
    let max = settings.scope.max_outlinks;
    let html_links = record.outlinks.len();
    super::extract::add_capped(uri, record, new, false, max);
    // Each record the rendering makes names the page's capture it belongs to (xt16a F12), so a URL
    // captured twice (a resume re-rendering a page) keeps them apart.
    let capture = record.response_id.as_deref();
    record_rendered(
        p,
        uri,
        &record.outlinks[html_links..],
        rendered.title.as_deref(),
        capture,
    );
    if learned && mode == BrowserMode::Auto {
        rendering.learn(&host, &kind);
    }
    for view in &rendered.views {
        record_view(p, uri, status, view, worker, capture);
    }
    if let Some(png) = rendered.screenshot {
        let mut shot = trawl_warc::Record::resource(
            &format!("urn:screenshot:{}", uri.url),
            chrono::Utc::now(),
            "image/png",
            png,
        );
        if let Some(id) = capture {
            shot.set("WARC-Concurrent-To", id);
        }
        p.write_made(shot);
    }
    Some(
        upstream
            .found
            .into_inner()
            .unwrap_or_else(|e| e.into_inner()),
    )
}

/// Whether `record` holds a page a browser shows: an HTML document, 2xx, not an attachment to save.
fn is_a_page(record: &FetchRecord) -> bool {
    record.is_html()
        && record
            .response()
            .is_some_and(|r| (200..300).contains(&r.status))
        && !attachment(record)
}

/// Whether the response asks to be saved rather than shown (`Content-Disposition: attachment`): a browser
/// downloads it and renders nothing (waiting out the page's budget for a `load` that never comes), so it is
/// not opened in one, as Heritrix's browser processor skips it (xt9b F5).
fn attachment(record: &FetchRecord) -> bool {
    record.header("content-disposition").is_some_and(|v| {
        v.split(';')
            .next()
            .is_some_and(|kind| kind.trim().eq_ignore_ascii_case("attachment"))
    })
}

/// The links only the rendered page had, in a `metadata` record of their own (the page's first one, written
/// with its response, holds the HTML's): one `outlink: URL L browser/a/@href` each, so the link graph read
/// from the archive has them too; and the rendered page's title (`browser-title`), which the WACZ's
/// pages.jsonl lists it by.
fn record_rendered(
    p: &Pipeline,
    page: &CrawlUri,
    links: &[Outlink],
    title: Option<&str>,
    capture: Option<&str>,
) {
    if links.is_empty() && title.is_none() {
        return;
    }
    let values: Vec<String> = links
        .iter()
        .map(|o| format!("{} {} {}", o.url, o.hop.letter(), o.context))
        .collect();
    let mut fields: Vec<(&str, &str)> = values.iter().map(|v| ("outlink", v.as_str())).collect();
    fields.extend(title.map(|t| (trawl_warc::RENDERED_TITLE, t)));
    let mut record = trawl_warc::Record::metadata(page.url.as_str(), chrono::Utc::now(), &fields);
    if let Some(id) = capture {
        record.set("WARC-Concurrent-To", id);
    }
    p.write_made(record);
}

/// A view of a single-page application rendered in the page: its own crawl.log line (an `L` hop from the
/// page, noted `browser:view`, with the page's status) and a `metadata` record naming the page it is a view of
/// and its title (WACZ pages.jsonl lists it). What it loaded was archived as it was asked for.
fn record_view(
    p: &Pipeline,
    page: &CrawlUri,
    status: u16,
    view: &trawl_browser::View,
    worker: usize,
    capture: Option<&str>,
) {
    let trawl_browser::View { url: view, title } = view;
    let mut uri = page.child(view.clone(), String::new(), Hop::Link);
    uri.annotate(Annotation::Browser(Some("view")));
    let line = p.log_unfetched(&uri, i32::from(status), Some("text/html"), worker);
    p.write_line(line);
    let mut fields = vec![(trawl_warc::VIEW_OF, page.url.as_str())];
    fields.extend(title.as_deref().map(|t| (trawl_warc::RENDERED_TITLE, t)));
    let mut record = trawl_warc::Record::metadata(view.as_str(), chrono::Utc::now(), &fields);
    // The page's capture: its view is another URL, so `WARC-Refers-To` (WARC 1.1 6.3.3).
    if let Some(id) = capture {
        record.set("WARC-Refers-To", id);
    }
    p.write_made(record);
}

/// What `auto` learns per host: the URL class's kind, else the first path segment.
fn page_kind(uri: &CrawlUri) -> String {
    match &uri.class {
        Some(c) => format!("class:{:?}", c.kind),
        None => {
            let first = uri
                .url
                .path_segments()
                .and_then(|mut s| s.next())
                .unwrap_or_default();
            format!("path:/{first}")
        }
    }
}

/// The crawl's side of a page's proxy.
struct PageUpstream<'a> {
    p: &'a Pipeline,
    rendering: &'a Rendering,
    page: CrawlUri,
    page_response: Vec<u8>,
    worker: usize,
    found: Mutex<Found>,
    /// How long one request may hold its host's turn: a tenth of the page's budget.
    turn_limit: Duration,
    /// The login session generation of each origin with a form credential when the page first asked it
    /// (its own: when it was opened, its cookies given to the browser).
    sessions: Mutex<std::collections::HashMap<String, u64>>,
}

impl PageUpstream<'_> {
    /// Whether a login to `url`'s origin came since the page's browser got its cookies there: they hold the
    /// old session then, which must not hide the jar's new one (xt17a F4: each request sent the stale session,
    /// and the working login was given up).
    async fn since_login(&self, url: &url::Url) -> bool {
        if self.p.access.form_credential(url).is_none() {
            return false;
        }
        let generation = self.p.access.session(url).lock().await.generation;
        let first = *lock(&self.sessions)
            .entry(trawl_config::origin(url))
            .or_insert(generation);
        first != generation
    }
}

impl Upstream for PageUpstream<'_> {
    async fn exchange(&self, request: BrowserRequest) -> Answer {
        let p = self.p;
        let BrowserRequest {
            method,
            mut url,
            headers,
            body,
            body_too_large,
            budget,
        } = request;
        url.set_fragment(None);
        // A POST or HEAD is sent as the page made it, once, and is no capture of its URL to mark seen or
        // serve again; a GET is a URI of the crawl.
        let direct = match method.as_str() {
            "GET" => None,
            "POST" => Some(Direct::Post),
            "HEAD" => Some(Direct::Head),
            _ => {
                // Logged as the other refused requests are (-7), so a missing widget can be traced (xt9b F7).
                let mut sub = self.page.child(url, String::new(), Hop::Embed);
                sub.annotate(Annotation::Browser(Some("method")));
                p.write_line(p.log_failure(&sub, status::UNFETCHABLE, self.worker));
                return refused(
                    405,
                    "trawl's fetcher makes GET, HEAD and POST requests only; this request is not archived",
                );
            }
        };
        // Requests trawl's fetcher cannot make as the page made them: refused, each with its line (-7).
        let why = if body_too_large.is_some() {
            Some((
                "bodyTooLarge",
                413,
                "the request body is over 16 MiB; it is not sent cut",
            ))
        } else if headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("upgrade"))
        {
            Some((
                "webSocket",
                501,
                "WebSockets and other connection upgrades are not captured",
            ))
        } else if accepts_event_stream(&headers) {
            Some((
                "eventStream",
                501,
                "server-sent event streams are not captured",
            ))
        } else {
            None
        };
        if let Some((note, answer, reason)) = why {
            let mut sub = self.page.child(url, String::new(), Hop::Embed);
            sub.annotate(Annotation::Browser(Some(note)));
            p.write_line(p.log_failure(&sub, status::UNFETCHABLE, self.worker));
            return refused(answer, reason);
        }
        // A GET of the page itself, or of a URL captured earlier, is answered from what was archived.
        if direct.is_none() && url == self.page.url {
            budget.charge(self.page_response.len());
            return Answer::Response(self.page_response.clone());
        }
        if direct.is_none()
            && let Some(kept) = self.rendering.recent(url.as_str())
            && !varies_with(&kept, &headers)
        {
            budget.charge(kept.response.len());
            self.served_from(&kept, &url);
            return Answer::Response(kept.response.clone());
        }
        // A GET another page is fetching now is waited for and served from its capture; a page ending
        // while it waits logs it `browser:unfinished` (review 64b R6).
        let _claim = match direct {
            None => {
                let mut waiting = Unfinished {
                    p,
                    uri: Some(self.page.child(url.clone(), String::new(), Hop::Embed)),
                    worker: self.worker,
                };
                let claim = self.rendering.claim(url.as_str()).await;
                waiting.uri = None;
                if let Some(kept) = self.rendering.recent(url.as_str())
                    && !varies_with(&kept, &headers)
                {
                    budget.charge(kept.response.len());
                    self.served_from(&kept, &url);
                    return Answer::Response(kept.response.clone());
                }
                Some(claim)
            }
            Some(_) => None,
        };
        let mut sub = self.page.child(url, String::new(), Hop::Embed);
        sub.annotate(Annotation::Browser(direct.map(Direct::note)));
        // Judged as a URI the page needs: a refusal is always logged (`Placement::Seen` is not `New`).
        let child = match candidate::judge(p, sub, Placement::Seen, None) {
            Ok(child) => child,
            Err(cut) => {
                // Logged with the page's outcome, once for the crawl (the page's own link to it is the
                // same cut).
                if let Some(cut) = cut {
                    lock(&self.found).cuts.push(*cut);
                }
                return refused(403, "out of the crawl's scope");
            }
        };
        let settings = p.settings().sheets.effective(&child.uri);
        if settings.fetch.obey_robots
            && let Err(verdict) = self.robots(&child.uri).await
        {
            return self.not_allowed(child, direct, verdict);
        }
        let mut page_request = PageRequest::new(&headers, settings.fetch.headers.keys());
        if self.since_login(&child.uri.url).await {
            page_request = page_request.after_login();
        }
        let key = child.uri.url.to_string();
        let host_lock = self
            .rendering
            .host(child.uri.url.host_str().unwrap_or_default());
        // Logged `browser:unfinished` if the page ends before the answer (a long poll, or waiting its turn).
        let mut unfinished = Unfinished {
            p,
            uri: Some(child.uri.clone()),
            worker: self.worker,
        };
        let turn = host_lock.lock().await;
        // The page's bytes are checked again at its turn: requests made together all passed the proxy's
        // check before the first answer came (xt9b F2).
        if budget.spent() {
            unfinished.uri = None;
            return refused(429, "the page's maxBytes was reached");
        }
        let answer = if let Some(direct) = direct {
            let form = (direct == Direct::Post).then(|| {
                let content_type = headers
                    .iter()
                    .find(|(name, _)| name.eq_ignore_ascii_case("content-type"))
                    .map(|(_, value)| value.as_str());
                (content_type, body)
            });
            let work = async {
                let answer = self.direct(child.uri, &settings, form, &page_request).await;
                if let Answer::Response(bytes) = &answer {
                    budget.charge(bytes.len());
                }
                answer
            };
            holding_at_most(turn, self.turn_limit, work).await
        } else {
            let work = async {
                let bytes = self.run_child(child, &settings, &page_request).await;
                if let Some(bytes) = &bytes {
                    budget.charge(bytes.len());
                }
                bytes
            };
            match holding_at_most(turn, self.turn_limit, work).await {
                Some(bytes) => {
                    // The request it answered is not known here: a `Vary` of it fetches again.
                    self.rendering.keep(&key, &bytes, &[]);
                    Answer::Response(bytes)
                }
                None => refused(502, "the fetch failed (see crawl.log)"),
            }
        };
        unfinished.uri = None;
        answer
    }
}

/// A request of the page sent as it made it, by trawl's fetcher, rather than run as a URI of the crawl.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direct {
    /// A `POST`, with its body (noted `browser:post`).
    Post,
    /// A `HEAD` (noted `browser:head`).
    Head,
}

impl Direct {
    /// Its crawl.log note, `browser:NOTE`.
    fn note(self) -> &'static str {
        match self {
            Direct::Post => "post",
            Direct::Head => "head",
        }
    }
}

/// Why robots.txt did not let a request of the page go now.
#[derive(Debug)]
enum NotAllowed {
    /// robots.txt refuses it, or is out of the crawl's scope: the browser's answer (a line is written for a
    /// refusal).
    Refused(Answer),
    /// The origin's robots.txt could not be read yet (it is tried again by the frontier).
    NotYet,
}

/// Whether the capture `kept` says (`Vary`) that it may differ with a field the page's request `headers`
/// set otherwise than the request it answered did (absent on one side and present on the other counts as
/// otherwise; `Accept-Encoding` and `User-Agent`, which trawl sets itself, aside): then it is no answer to
/// that request, which is fetched (xt16a F3: an API answering JSON to `Accept: application/json` and HTML to
/// a browser was handed the HTML it had given the crawl). The final response's head is read, past interim
/// `1xx` heads (review 64b R11).
fn varies_with(kept: &super::rendering::Kept, headers: &[(String, String)]) -> bool {
    let mut rest = kept.response.as_slice();
    let head = loop {
        let end = rest
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .map_or(rest.len(), |at| at + 4);
        let head = String::from_utf8_lossy(&rest[..end]);
        let interim = head
            .split_whitespace()
            .nth(1)
            .is_some_and(|status| status.len() == 3 && status.starts_with('1'));
        if !interim || end >= rest.len() {
            break head.into_owned();
        }
        rest = &rest[end..];
    };
    let sent = String::from_utf8_lossy(&kept.request);
    let field = |text: &str, name: &str| -> Option<String> {
        text.lines().skip(1).find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_owned())
        })
    };
    head.lines().skip(1).any(|line| {
        let Some((name, value)) = line.split_once(':') else {
            return false;
        };
        name.trim().eq_ignore_ascii_case("vary")
            && value.split(',').map(str::trim).any(|vary| {
                if vary == "*" {
                    return true;
                }
                if vary.eq_ignore_ascii_case("accept-encoding")
                    || vary.eq_ignore_ascii_case("user-agent")
                {
                    return false;
                }
                let page = headers
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case(vary))
                    .map(|(_, v)| v.trim().to_owned());
                page != field(&sent, vary)
            })
    })
}

/// Whether a request's `Accept` asks for a server-sent event stream (as `EventSource` does).
fn accepts_event_stream(headers: &[(String, String)]) -> bool {
    headers.iter().any(|(name, value)| {
        name.eq_ignore_ascii_case("accept")
            && value.to_ascii_lowercase().contains("text/event-stream")
    })
}

/// Runs `work` holding the host's `turn` for at most `limit`: a request still unanswered then (a long poll, a
/// slow download) goes on without it, so the page's next request to the host need not wait for it.
async fn holding_at_most<T>(
    turn: impl Sized,
    limit: Duration,
    work: impl std::future::Future<Output = T>,
) -> T {
    tokio::pin!(work);
    tokio::select! {
        out = &mut work => out,
        () = tokio::time::sleep(limit) => {
            drop(turn);
            work.await
        }
    }
}

/// A browser request under way: dropped before its answer (the page ended first: its proxy drops the
/// requests still open), it gets a crawl.log line, `-4` noted `browser:unfinished`; nothing of it is archived.
struct Unfinished<'a> {
    p: &'a Pipeline,
    uri: Option<CrawlUri>,
    worker: usize,
}

impl Drop for Unfinished<'_> {
    fn drop(&mut self) {
        if let Some(mut uri) = self.uri.take() {
            uri.annotate(Annotation::Browser(Some("unfinished")));
            self.p
                .write_line(self.p.log_failure(&uri, status::TIMEOUT, self.worker));
        }
    }
}

impl PageUpstream<'_> {
    /// The page's request for `url` was answered from `kept`: where another page's fetch of it stood for the
    /// URL, this page's outcome marks it fetched as well, so its own link to it (queued with its HTML's
    /// outlinks, perhaps before the other page's outcome came) ends unfetched (xt42b).
    fn served_from(&self, kept: &super::rendering::Kept, url: &url::Url) {
        if !kept.stands.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let sub = self.page.child(url.clone(), String::new(), Hop::Embed);
        let scope = &self.p.settings().config.scope;
        if let Ok(child) = candidate::judge(self.p, sub, Placement::Fetched, None)
            && matches!(child.uri.kind, UriKind::Page)
            && links_judged_alike(&child.uri.hop_path, scope)
        {
            lock(&self.found).children.push(child);
        }
    }

    /// Runs a URI the page asked for through the chain, once, with the page's request fields and cookies;
    /// what it led to joins the page's outcome, and the response as it crossed the wire is the browser's
    /// answer.
    async fn run_child(
        &self,
        child: Child,
        settings: &CrawlConfig,
        page_request: &PageRequest,
    ) -> Option<Vec<u8>> {
        self.run(child, settings, Tries::Once, Some(page_request))
            .await
            .1
    }

    /// The browser's answer to a request robots.txt did not let go now. One it refuses is marked seen with
    /// the page (its line is written), so the page's own link to it is not fetched, refused and logged again.
    /// A GET whose robots.txt could not be read yet goes to the frontier, to wait for the robots.txt's tries
    /// as any URI of its origin does (its one crawl.log line comes from there); a POST or HEAD, which the
    /// frontier cannot make, is logged failed (-61).
    fn not_allowed(&self, child: Child, direct: Option<Direct>, verdict: NotAllowed) -> Answer {
        match verdict {
            NotAllowed::Refused(answer) => {
                if let Answer::Refused { status: 403, .. } = answer {
                    lock(&self.found).children.push(Child {
                        placement: Placement::Seen,
                        ..child
                    });
                }
                answer
            }
            NotAllowed::NotYet => {
                if direct.is_some() {
                    let line = self.p.log_failure(
                        &child.uri,
                        status::ROBOTS_PREREQUISITE_FAILED,
                        self.worker,
                    );
                    self.p.write_line(line);
                } else {
                    let mut uri = child.uri.clone();
                    uri.annotations.clear();
                    lock(&self.found).children.push(Child {
                        uri,
                        placement: Placement::New,
                        ..child
                    });
                }
                refused(503, "robots.txt could not be read yet")
            }
        }
    }

    /// Fetches the robots.txt an origin needs for the page, once. A failure worth another try does not
    /// settle the origin: the robots.txt goes to the frontier as a prerequisite, tried again there as for a
    /// page from the frontier, while the origin stays pending; returns whether it went.
    async fn run_robots(&self, child: Child, settings: &CrawlConfig) -> bool {
        self.run(child, settings, Tries::AsSettings, None).await.0
    }

    /// Runs `child` through the chain; what it led to joins the page's outcome, and so does the child itself:
    /// marked seen, or (sent back for another try, which only [`Tries::AsSettings`] allows) a prerequisite for
    /// the frontier. Whether it was sent back, and the response as it crossed the wire.
    async fn run(
        &self,
        mut child: Child,
        settings: &CrawlConfig,
        tries: Tries,
        page_request: Option<&PageRequest>,
    ) -> (bool, Option<Vec<u8>>) {
        let (outcome, response, got) = through_chain(
            self.p,
            child.uri.clone(),
            settings,
            self.worker,
            tries,
            page_request,
        )
        .await;
        let again = match &outcome.disposition {
            Disposition::Retry { uri, .. } | Disposition::RetryLater { uri, .. } => {
                let mut uri = uri.clone();
                uri.annotations.clear();
                Some(uri)
            }
            _ => None,
        };
        let sent_back = again.is_some();
        if let Some(uri) = again {
            child = Child {
                uri,
                placement: Placement::Prerequisite,
                ..child
            };
        } else if got == Got::Capture
            && matches!(child.uri.kind, UriKind::Page)
            && (outcome.links_found == 0
                || links_judged_alike(&child.uri.hop_path, &settings.scope))
        {
            child.placement = Placement::Fetched;
            self.rendering.stood(child.uri.url.as_str());
        }
        let page = got == Got::Page;
        let mut found = lock(&self.found);
        found.take(self.p, outcome);
        // A page the browser fetched other than as a frame of this one (a prefetch, a script's fetch of a
        // link's HTML as quicklink or Turbo do) is archived as this page's `E` request, but not marked seen:
        // a link to it queues it as the page it is, rendered in its turn (xt16a F1: its own link was dropped
        // as seen, and it was never rendered). That costs its server a second request.
        let frame = page_request.is_some_and(PageRequest::is_frame);
        if (!page && got != Got::Variant) || frame || sent_back {
            found.children.push(child);
        }
        (sent_back, response)
    }

    /// A `POST` the page sends (a search form, a GraphQL query; `form`: its content type and body) or a
    /// `HEAD` (`form` is `None`): sent by trawl's fetcher with the page's request fields and cookies (and the
    /// jar's), archived (the request, with a POST's body; the response) and logged (`browser:post`,
    /// `browser:head`). It is not a frontier URI: never marked seen, never served again.
    async fn direct(
        &self,
        mut uri: CrawlUri,
        settings: &CrawlConfig,
        form: Option<(Option<&str>, Vec<u8>)>,
        page_request: &PageRequest,
    ) -> Answer {
        let p = self.p;
        let jar = p.jar_key(&uri);
        let head = form.is_none();
        let (form_type, form) = form.map_or((None, None), |(t, body)| (t, Some(body)));
        let mut parts = trawl_fetch::RequestParts {
            form,
            form_type,
            head,
            ..Default::default()
        };
        parts.headers.extend(page_request.headers.iter().cloned());
        let guard = fetch::add_cookies(p, &jar, &uri.url, &mut parts, Some(page_request));
        let fetched = p
            .fetcher
            .fetch(&uri.url, settings.fetch.max_bytes, &settings.fetch, &parts)
            .await;
        if fetch::withheld(p, &uri.url, guard, &fetched) {
            uri.annotate(trawl_config::Annotation::Login(
                trawl_config::annotation::LoginNote::Untrusted,
            ));
        }
        p.keep_cookies(&jar, &uri.url, &fetched);
        let archived = login::write_exchange(p, &mut uri, &self.page.url, &fetched, self.worker);
        match fetched.result {
            Ok(resp) if archived => Answer::Response(resp.response_bytes.to_vec()),
            _ => refused(502, "the request failed (see crawl.log)"),
        }
    }

    /// `Ok` when robots.txt allows `uri`; else why not: refused (logged), or not known yet. An origin whose
    /// robots.txt is unknown has it fetched now, through the chain, before the request.
    async fn robots(&self, uri: &CrawlUri) -> Result<(), NotAllowed> {
        let p = self.p;
        for _ in 0..100 {
            match p.robots.gate(uri, "") {
                Gate::Allowed => return Ok(()),
                Gate::Blocked { status, note } => {
                    let mut refused_uri = uri.clone();
                    refused_uri.annotations.extend(note);
                    let line = p.log_failure(&refused_uri, status, self.worker);
                    p.write_line(line);
                    return Err(NotAllowed::Refused(refused(
                        403,
                        "robots.txt does not allow it",
                    )));
                }
                Gate::Needed => {
                    let robots = uri.robots_prerequisite();
                    match candidate::judge(p, robots, Placement::Seen, None) {
                        Ok(child) => {
                            let settings = p.settings().sheets.effective(&child.uri);
                            if self.run_robots(child, &settings).await {
                                // Tried again by the frontier: this request cannot wait for it.
                                return Err(NotAllowed::NotYet);
                            }
                        }
                        Err(_) => {
                            return Err(NotAllowed::Refused(refused(
                                403,
                                "robots.txt is out of the crawl's scope",
                            )));
                        }
                    }
                }
                // Another worker is fetching it: wait for its verdict.
                Gate::Pending => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
        Err(NotAllowed::NotYet)
    }
}

fn refused(status: u16, reason: &str) -> Answer {
    Answer::Refused {
        status,
        reason: reason.to_owned(),
    }
}

/// How often a URI the browser asked for is tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tries {
    /// Once: the browser is waiting, and the URI is no frontier item that another try could be made of (a
    /// retry sent back for it would be dropped, with its crawl.log line).
    Once,
    /// As the settings say: the caller makes a retry sent back a frontier item.
    AsSettings,
}

/// One URI through the chain as a page from the frontier goes, but not rendered; its outcome, the response
/// as it crossed the wire, and whether that is a page ([`is_a_page`]).
/// What a browser request fetched, for what the crawl does with its URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Got {
    /// An HTML page a browser shows ([`is_a_page`]): unless a frame of the page, queued as a page by its
    /// link (xt16a F1).
    Page,
    /// A capture that stands for its URL, as a plain fetch of it would have come back ([`Got::of`]): a queued
    /// item of it is ended unfetched (xt16a F6; review 65 R1, R2).
    Capture,
    /// An answer to what a script of the page asked (`fetch()`, XHR) that a plain fetch of the URL may not
    /// get: its response varies with a field the page's request set (`Vary: Accept` of an API answering the
    /// script's JSON), or the request was a prefetch or carried the page's `Authorization`. Not marked seen:
    /// a link to the URL queues it, fetched as a visitor following the link would get it (xt45b F1: the
    /// page's own link to its API was dropped as seen, so the HTML variant was never archived). An image, a
    /// style sheet, a font or a script the browser asked (an image server's `Vary: Accept` for WebP) is
    /// marked seen as before: the HTML's own embed of it is not fetched a second time.
    Variant,
    /// Anything else: a redirect, a try-later answer, one kept out of the archive, no response.
    Other,
}

impl Got {
    /// What `record`, fetched for a page's request carrying `page_request`, is. A capture stands for its URL
    /// only when a plain fetch of the URL would have got the same: archived, a 2xx with content (not a
    /// redirect, whose target is another URI; not a 4xx or 5xx, which may answer the page's own fields or be
    /// worth another try; not a 204, 205 or 206), not a prefetch (which a site may answer otherwise), not
    /// sent with the page's own `Authorization` (RFC 9111 §3.5: no answer for another request), and varying
    /// with no field the page's request set beyond a plain fetch's (review 66 R1: a script's JSON of
    /// `/items/5`, `Vary: Accept`, stood for the HTML page a link had queued; xt18b F6, F7).
    fn of(record: &FetchRecord, page_request: Option<&PageRequest>) -> Got {
        if is_a_page(record) {
            return Got::Page;
        }
        let archived = record.response_id.is_some();
        let other_answer = page_request.is_some_and(|r| r.is_prefetch() || r.authorizes())
            || record
                .response()
                .is_some_and(|r| varies(&r.headers, page_request));
        let ok = record
            .status()
            .is_some_and(|s| (200..300).contains(&s) && !matches!(s, 204..=206));
        // A 2xx only: an error or redirect a link would get again is not fetched twice (review 84 R3).
        let variant = other_answer && ok && page_request.is_some_and(PageRequest::is_script_fetch);
        let stands = archived && ok;
        match (archived, other_answer, stands) {
            (true, true, _) if variant => Got::Variant,
            (_, false, true) => Got::Capture,
            _ => Got::Other,
        }
    }
}

/// Whether the links of a capture at `hop_path` reach about as far as those of a link's own fetch of its URL:
/// its trailing embeds and redirects leave room for one more (and for a speculative one) under the scope's
/// `max_trans_hops` (one hop deep: an embed of an embed of the capture may still be refused where the link's
/// would not). Else a capture with links does not stand for a link queued before (xt18b F4: a JSON's
/// image on another host, `LREX` past `max_trans_hops`, was refused; through the link it is `LLX`).
fn links_judged_alike(hop_path: &str, scope: &trawl_config::settings::ScopeConfig) -> bool {
    let (mut all, mut speculative) = (0, 0);
    for c in hop_path
        .chars()
        .rev()
        .take_while(|c| matches!(c, 'E' | 'R' | 'X'))
    {
        all += 1;
        speculative += usize::from(c == 'X');
    }
    // With no speculative hop allowed, the link's own fetch takes none either.
    all < scope.max_trans_hops
        && (scope.max_speculative_hops == 0 || speculative < scope.max_speculative_hops)
}

/// Whether a response's `Vary` names a field the page's request (`page`) set and a plain fetch does not: one
/// of its own fields, or `Cookie` when the browser sent cookies (`*` always; `Accept-Encoding` and
/// `User-Agent` never, which trawl sets alike in both). Without the page's request, any field counts.
fn varies(headers: &http::HeaderMap, page: Option<&PageRequest>) -> bool {
    let set = |field: &str| match page {
        None => true,
        Some(_) if field == "*" => true,
        Some(p) if field.eq_ignore_ascii_case("cookie") => !p.cookies.is_empty(),
        Some(p) => p
            .headers
            .iter()
            .any(|(name, _)| name.as_str().eq_ignore_ascii_case(field)),
    };
    headers.get_all(http::header::VARY).iter().any(|value| {
        String::from_utf8_lossy(value.as_bytes())
            .split(',')
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .filter(|f| {
                !f.eq_ignore_ascii_case("accept-encoding") && !f.eq_ignore_ascii_case("user-agent")
            })
            .any(set)
    })
}

async fn through_chain(
    p: &Pipeline,
    uri: CrawlUri,
    settings: &CrawlConfig,
    worker: usize,
    tries: Tries,
    page_request: Option<&PageRequest>,
) -> (Outcome, Option<Vec<u8>>, Got) {
    let once;
    let settings = match tries {
        Tries::Once => {
            let mut c = settings.clone();
            c.frontier.max_retries = 0;
            once = c;
            &once
        }
        Tries::AsSettings => settings,
    };
    match super::fetch_and_write(p, uri, settings, worker, page_request).await {
        Ok((uri, record)) => {
            let response = record.response().map(|r| r.response_bytes.to_vec());
            let got = Got::of(&record, page_request);
            (post::run(p, uri, record, settings, worker), response, got)
        }
        Err(ended) => (*ended, None, Got::Other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A capture's `Vary` keeps it from standing for a link's fetch only for a field the page's request set
    /// (cookies for `Cookie`), and a capture with links stands only where its hop path leaves the link's
    /// reach (xt18b F4, F7).
    #[test]
    fn what_a_capture_stands_for() {
        let mut vary = http::HeaderMap::new();
        vary.append(http::header::VARY, "Origin, Cookie".parse().unwrap());
        let plain = PageRequest::default();
        assert!(!varies(&vary, Some(&plain)));
        assert!(varies(&vary, None));
        let cors = PageRequest::new(
            &[("Origin".into(), "http://a.org".into())],
            Vec::<&String>::new(),
        );
        assert!(varies(&vary, Some(&cors)));
        let with_cookie =
            PageRequest::new(&[("Cookie".into(), "s=1".into())], Vec::<&String>::new());
        assert!(varies(&vary, Some(&with_cookie)));
        vary.insert(http::header::VARY, "*".parse().unwrap());
        assert!(varies(&vary, Some(&plain)));
        vary.insert(
            http::header::VARY,
            "Accept-Encoding, User-Agent".parse().unwrap(),
        );
        assert!(!varies(&vary, None));
        let scope = trawl_config::settings::ScopeConfig::default();
        assert!(links_judged_alike("LE", &scope));
        assert!(!links_judged_alike("LRE", &scope));
        assert!(!links_judged_alike("LX", &scope));
    }

    /// A capture that varies with a field the page's request sets otherwise is no answer to it (xt16a F3;
    /// review 64b R3, R11).
    #[test]
    fn a_capture_that_varies_with_the_pages_request_is_fetched_again() {
        let page = |fields: &[(&str, &str)]| -> Vec<(String, String)> {
            fields
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
                .collect()
        };
        let kept = |vary: &str, sent: &str| super::super::rendering::Kept {
            response: format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n{vary}\r\n\r\n<html>")
                .into_bytes(),
            request: format!("GET /a HTTP/1.1\r\nHost: h\r\n{sent}\r\n\r\n").into_bytes(),
            stands: Default::default(),
        };
        let json = page(&[("Accept", "application/json")]);
        assert!(varies_with(
            &kept("Vary: Accept", "Accept: text/html"),
            &json
        ));
        assert!(!varies_with(
            &kept("Vary: Accept", "Accept: application/json"),
            &json
        ));
        assert!(varies_with(
            &kept("vary: Origin, accept", "Accept: application/json"),
            &page(&[("Accept", "application/json"), ("Origin", "http://o")])
        ));
        assert!(!varies_with(&kept("Vary: Origin", "X: y"), &json));
        assert!(varies_with(&kept("Vary: *", "X: y"), &page(&[])));
        assert!(!varies_with(
            &kept("Vary: Accept-Encoding, User-Agent", "X: y"),
            &page(&[("Accept-Encoding", "br"), ("User-Agent", "u")])
        ));
        assert!(!varies_with(&kept("X-Vary: Accept", "X: y"), &json));
        // A `Vary:` in the body is not the head's; the final head is read past an interim one.
        let body = super::super::rendering::Kept {
            response: b"HTTP/1.1 200 OK\r\n\r\nVary: Accept".to_vec(),
            request: Vec::new(),
            stands: Default::default(),
        };
        assert!(!varies_with(&body, &json));
        let hints = super::super::rendering::Kept {
            response: b"HTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\nHTTP/1.1 200 OK\r\nVary: Accept\r\n\r\n{}".to_vec(),
            request: b"GET / HTTP/1.1\r\nAccept: text/html\r\n\r\n".to_vec(),
            stands: Default::default(),
        };
        assert!(varies_with(&hints, &json));
    }
}
