//! Headless Chromium over DevTools: started on first use with a fresh profile, restarted after a crash and
//! every `restart_every` pages, and one page rendered at a time per permit. Each page gets a browser context
//! of its own whose proxy is that page's [`Proxy`], so every request (service workers too) is tied to it.

use std::{
    collections::{HashSet, VecDeque},
    path::{Path, PathBuf},
    sync::{
        Arc,
        atomic::{AtomicU32, Ordering},
    },
    time::{Duration, Instant},
};

use chromiumoxide::{
    Page,
    browser::{Browser as Chrome, BrowserConfig},
    cdp::{
        browser_protocol::{
            browser::{SetDownloadBehaviorBehavior, SetDownloadBehaviorParams},
            fetch::{
                ContinueRequestParams, EnableParams, EventRequestPaused, FailRequestParams,
                RequestPattern, RequestStage,
            },
            network::{CookieParam, ErrorReason, ResourceType},
            page::{
                AddScriptToEvaluateOnNewDocumentParams, CaptureScreenshotFormat, NavigateParams,
            },
            storage::SetCookiesParams,
            target::{
                CreateBrowserContextParams, CreateTargetParams, EventTargetCrashed,
                SetAutoAttachParams,
            },
        },
        js_protocol::runtime::EvaluateParams,
    },
    page::ScreenshotParams,
};
use futures_util::StreamExt;
use tokio::sync::{RwLock, Semaphore};
use tokio_rustls::TlsAcceptor;
use url::Url;

use crate::{
    behaviors,
    error::BrowserError,
    memory,
    proxy::{Caps, Proxy, Traffic, Upstream},
};

/// When the browser is started afresh.
#[derive(Debug, Clone, Copy)]
pub struct Restart {
    /// After this many pages (0: never by count).
    pub every: u32,
    /// When its processes use more memory than this (bytes; 0: no limit).
    pub memory_bytes: u64,
}

/// How one page is rendered: its budget and caps, and what is done in it.
#[derive(Debug, Clone)]
pub struct PageLimits {
    /// The whole page: load, behaviours, link collection.
    pub page_timeout: Duration,
    /// Network quiet that ends loading and each scroll step.
    pub idle: Duration,
    /// The most scroll steps while the page grows.
    pub max_scrolls: u32,
    /// Requests the page may make.
    pub max_requests: u32,
    /// Bytes the page may fetch.
    pub max_bytes: u64,
    /// Take a PNG of the rendered page.
    pub screenshot: bool,
    /// A user's script run after the built-in behaviours.
    pub behaviors: Option<String>,
    /// The most views of a single-page application rendered after the page itself.
    pub max_views: u32,
    /// The crawl's cookies for the page (a login's session, a cookies file), put in its browser context
    /// before it loads, so its scripts see them as a visitor's browser holds them.
    pub cookies: Vec<PageCookie>,
}

/// A cookie the page's browser context starts with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageCookie {
    /// Its name.
    pub name: String,
    /// Its value.
    pub value: String,
    /// The path it is sent under.
    pub path: String,
    /// Sent over HTTPS only.
    pub secure: bool,
    /// Kept from the page's scripts.
    pub http_only: bool,
}

/// What rendering a page found.
#[derive(Debug, Default)]
pub struct Rendered {
    /// The links of the rendered page and its views, every readable frame and open shadow root included, and
    /// the targets of the navigations of the page itself that were stopped (`location = …`, a meta refresh).
    pub links: Vec<Url>,
    /// The views of a single-page application (the page's URL with a route fragment, `#/guide`) rendered
    /// after the page, in order.
    pub views: Vec<View>,
    /// The rendered page's `document.title` (what its scripts made of it), when not empty.
    pub title: Option<String>,
    /// The PNG, when asked for and taken.
    pub screenshot: Option<Vec<u8>>,
    /// What cut the page short or went wrong, as `browser:…` notes: `timeout`, `crashed`, `maxRequests`,
    /// `maxBytes`, `maxViews`, `linksLost`, `failed`.
    pub notes: Vec<&'static str>,
    /// Requests the page made (each answered by the upstream or refused).
    pub requests: u32,
    /// Scroll steps taken.
    pub scrolls: u32,
    /// The browser itself no longer answers: it is restarted.
    broken: bool,
    /// Why the browser could not be started, when it has never started in this crawl or failed to start
    /// again [`START_TRIES`] times in a row: no page can be rendered, so the crawl stops rather than note every
    /// page `browser:failed` (xt42b: a Chromium whose `--version` answers but which cannot start).
    pub cannot_start: Option<String>,
}

/// A view of a single-page application rendered in its page.
#[derive(Debug)]
pub struct View {
    /// The page's URL with the view's route fragment.
    pub url: Url,
    /// Its `document.title` once rendered, when not empty.
    pub title: Option<String>,
}

/// A running Chromium.
struct Running {
    chrome: Chrome,
    handler: tokio::task::JoinHandle<()>,
    /// Turns true when the handler ends, the browser gone: a page rendering then ends at once, not when its
    /// load phase times out (xt24b F1: a killed Chromium was noticed up to 18 s later).
    gone: tokio::sync::watch::Receiver<bool>,
    pages: u32,
    /// Its profile directory, which every process of this browser names on its command line.
    profile: PathBuf,
}

/// The crawl's browser: launched on first use, shared by the pages rendering at once.
pub struct Browser {
    executable: PathBuf,
    profile: PathBuf,
    restart_every: u32,
    restart_memory: u64,
    tls: TlsAcceptor,
    running: RwLock<Option<Running>>,
    permits: Semaphore,
    launches: AtomicU32,
    /// Whether a launch has succeeded: a launch failing before any has is the crawl's end, one failing later
    /// (a restart) the page's alone, unless [`START_TRIES`] fail in a row.
    started: std::sync::atomic::AtomicBool,
    /// Launches failed since the last that succeeded.
    failed_starts: AtomicU32,
}

/// Launches failing in a row that end the crawl though the browser started before (xt43a N6: a browser that
/// could not start again after a restart cost every later page, in a crawl that ended "ok").
const START_TRIES: u32 = 3;

impl std::fmt::Debug for Browser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Browser")
            .field("executable", &self.executable)
            .field("profile", &self.profile)
            .finish_non_exhaustive()
    }
}

impl Browser {
    /// A browser to be started from `executable` with its profiles under `profile` (made fresh at each
    /// start), rendering at most `pages` pages at once, restarted every `restart.every` pages and when its
    /// processes use more than `restart.memory_bytes` (0: no limit). `profile` is made and resolved to its
    /// canonical path: its processes are told by it, whatever folder the crawl was started or resumed from
    /// and however the job's path was spelled (xt18b F2).
    pub fn new(
        executable: PathBuf,
        profile: PathBuf,
        pages: usize,
        restart: Restart,
    ) -> Result<Browser, BrowserError> {
        // Made first, so its path can be resolved (`..`, symbolic links): the same folder by any spelling.
        let _ = std::fs::create_dir_all(&profile);
        let profile = std::fs::canonicalize(&profile)
            .or_else(|_| std::path::absolute(&profile))
            .unwrap_or(profile);
        Ok(Browser {
            executable,
            profile,
            // 0: never by count, as `restart_memory_mb = 0` is no limit (xt42b: it restarted after every page).
            restart_every: if restart.every == 0 {
                u32::MAX
            } else {
                restart.every
            },
            restart_memory: restart.memory_bytes,
            tls: proxy_tls()?,
            running: RwLock::new(None),
            permits: Semaphore::new(pages.max(1)),
            launches: AtomicU32::new(0),
            started: std::sync::atomic::AtomicBool::new(false),
            failed_starts: AtomicU32::new(0),
        })
    }

    /// How many times Chromium was started (restarts included).
    pub fn launches(&self) -> u32 {
        self.launches.load(Ordering::SeqCst)
    }

    /// Renders `url`: every request goes to `upstream`; the page is cut at `limits.page_timeout`. A failure
    /// of the browser is a note (and the next page starts a new one), never an error of the crawl, but for a
    /// browser that has never started ([`Rendered::cannot_start`]).
    pub async fn render<U: Upstream>(
        &self,
        url: &Url,
        upstream: &U,
        limits: &PageLimits,
    ) -> Rendered {
        let Ok(_permit) = self.permits.acquire().await else {
            return failed("failed");
        };
        if let Err(e) = self.ensure_running().await {
            let in_a_row = self.failed_starts.fetch_add(1, Ordering::SeqCst) + 1;
            if !self.started.load(Ordering::SeqCst) {
                return Rendered {
                    cannot_start: Some(e.to_string()),
                    ..failed("failed")
                };
            }
            if in_a_row >= START_TRIES {
                return Rendered {
                    cannot_start: Some(format!("{e} ({in_a_row} starts in a row failed)")),
                    ..failed("failed")
                };
            }
            tracing::warn!("{e}");
            return failed("failed");
        }
        self.failed_starts.store(0, Ordering::SeqCst);
        let (rendered, rendered_by) = {
            let running = self.running.read().await;
            match running.as_ref() {
                Some(r) => (
                    render_page(&r.chrome, r.gone.clone(), &self.tls, url, upstream, limits).await,
                    Some(r.profile.clone()),
                ),
                None => (failed("failed"), None),
            }
        };
        let mut running = self.running.write().await;
        let restart = match running.as_mut() {
            Some(r) => {
                r.pages += 1;
                // A browser that crashed, died or stopped answering DevTools is restarted at once (xt16a
                // F2: a frozen one was kept, and every later page waited out its time for nothing); but
                // not one started since this page began (review 64b R5: another page's restart).
                let this_one = rendered_by.as_ref() == Some(&r.profile);
                let broken = if rendered.broken {
                    Some("failed")
                } else if r.ended() {
                    Some("ended")
                } else if rendered.notes.contains(&"crashed") {
                    Some("crashed")
                } else {
                    None
                }
                .filter(|_| this_one);
                if let Some(why) = broken {
                    tracing::warn!("browser: {url}: {}; restarting it", said(why));
                }
                broken.is_some() || r.pages >= self.restart_every || self.over_memory(&r.profile)
            }
            None => false,
        };
        if restart && let Some(old) = running.take() {
            retire(old).await;
        }
        rendered
    }

    /// Whether the browser whose profile is `profile` uses more memory than it may.
    fn over_memory(&self, profile: &Path) -> bool {
        if self.restart_memory == 0 {
            return false;
        }
        let used = memory::of_processes_naming(profile);
        if used > self.restart_memory {
            tracing::info!(
                "browser: {} MiB in use, past the limit of {} MiB: restarting it",
                used >> 20,
                self.restart_memory >> 20
            );
            return true;
        }
        false
    }

    /// Starts Chromium if none runs.
    async fn ensure_running(&self) -> Result<(), BrowserError> {
        if self
            .running
            .read()
            .await
            .as_ref()
            .is_some_and(|r| !r.ended())
        {
            return Ok(());
        }
        let mut running = self.running.write().await;
        if let Some(r) = running.as_ref()
            && !r.ended()
        {
            return Ok(());
        }
        if let Some(old) = running.take() {
            retire(old).await;
        }
        let n = self.launches.fetch_add(1, Ordering::SeqCst);
        if n == 0 {
            // A crawl of this job killed with `kill -9` left its browser running (Chromium's processes
            // outlive trawl's); none else uses this job's profiles (one process crawls a job at a time).
            let left = memory::kill_processes_naming(&self.profile);
            if left > 0 {
                tracing::info!(
                    "stopped {left} Chromium processes left running by an earlier crawl of this job"
                );
            }
        }
        let profile = self.profile.join(format!("profile-{n}"));
        let _ = std::fs::remove_dir_all(&profile);
        *running = Some(launch(&self.executable, &profile).await?);
        self.started.store(true, Ordering::SeqCst);
        Ok(())
    }

    /// Closes the browser, if it runs.
    pub async fn close(&self) {
        if let Some(old) = self.running.write().await.take() {
            stop(old).await;
        }
    }
}

/// What a browser note that restarts the browser means, for the operator.
fn said(note: &str) -> &'static str {
    match note {
        "crashed" => "the page's renderer crashed",
        "failed" => "the browser stopped answering DevTools (frozen, or its connection lost)",
        _ => "the browser ended",
    }
}

fn failed(note: &'static str) -> Rendered {
    Rendered {
        notes: vec![note],
        ..Rendered::default()
    }
}

/// Chromium with a fresh profile, no extensions, no background traffic, accepting the proxy's certificate.
async fn launch(executable: &Path, profile: &Path) -> Result<Running, BrowserError> {
    let launch_error = |message: String| BrowserError::Launch {
        executable: executable.to_path_buf(),
        message,
    };
    std::fs::create_dir_all(profile).map_err(|e| launch_error(e.to_string()))?;
    let config = BrowserConfig::builder()
        .chrome_executable(executable)
        .user_data_dir(profile)
        .no_sandbox()
        // Chromium tries https first for an http:// page of a named host (HTTPS-Upgrades), and that
        // attempt would reach the crawl as a link to an https:// copy of every page (xt6c F6).
        .disable_https_first()
        .launch_timeout(Duration::from_secs(30))
        .request_timeout(Duration::from_secs(30))
        // chromiumoxide puts the `--` before each switch itself: a switch written with its own `--` reached
        // Chromium as `----switch` and was ignored.
        .args([
            "disable-gpu",
            "disable-quic",
            "no-first-run",
            "disable-background-networking",
            "disable-component-update",
            "disable-sync",
            "disable-default-apps",
            "disable-dev-shm-usage",
            "mute-audio",
            // Not `ignore-certificate-errors`: the proxy's certificate is accepted over DevTools (below), and
            // with that switch Chromium asks www.google.com for data of its own, through the page's proxy.
            // Every frame of a page in the page's own process and target, so that what trawl installs in a
            // page (QUIET_PAGE: dialogs answered, no WebRTC) holds in its cross-origin frames too (xt9b F1,
            // F4); a crawler's pages share nothing a site isolation would protect.
            "disable-site-isolation-trials",
        ])
        // Added to chromiumoxide's one `disable-features` list (HTTPS-Upgrades off, above): a second
        // `--disable-features` switch would replace the first.
        .arg(("disable-features", "IsolateOrigins"))
        .arg(("disable-features", "site-per-process"))
        .build()
        .map_err(launch_error)?;
    let (chrome, mut handler) = Chrome::launch(config)
        .await
        .map_err(|e| launch_error(e.to_string()))?;
    let (gone_tx, gone) = tokio::sync::watch::channel(false);
    let handler = tokio::spawn(async move {
        // The handler drives every DevTools message; it ends when the browser goes away.
        while let Some(event) = handler.next().await {
            if let Err(e) = event {
                tracing::debug!("browser: {e}");
                if matches!(e, chromiumoxide::error::CdpError::Ws(_)) {
                    break;
                }
            }
        }
        let _ = gone_tx.send(true);
    });
    Ok(Running {
        chrome,
        handler,
        gone,
        pages: 0,
        profile: profile.to_path_buf(),
    })
}

impl Running {
    /// Whether the browser went away: its handler ended, or is ending (it says so before it finishes).
    fn ended(&self) -> bool {
        self.handler.is_finished() || *self.gone.borrow()
    }
}

async fn stop(mut old: Running) {
    let _ = tokio::time::timeout(Duration::from_secs(5), old.chrome.close()).await;
    let _ = tokio::time::timeout(Duration::from_secs(5), old.chrome.wait()).await;
    let _ = old.chrome.kill().await;
    old.handler.abort();
}

/// Stops `old` for a fresh browser, its profile removed with it (xt42b: one was left per restart, about
/// 2.4 MB each, 24 GB over a million rendered pages); best effort, as a process of it may still be ending. The
/// last browser's profile stays when the crawl ends, for a look at what it held.
async fn retire(old: Running) {
    let profile = old.profile.clone();
    stop(old).await;
    let _ = tokio::fs::remove_dir_all(&profile).await;
}

/// The certificate the proxy ends TLS with: made once, self-signed (chromiumoxide has the browser ignore
/// certificate errors over DevTools, `Security.setIgnoreCertificateErrors`; what it connects to is the
/// crawl's fetcher, which checks the real one).
fn proxy_tls() -> Result<TlsAcceptor, BrowserError> {
    let bad = |e: &dyn std::fmt::Display| BrowserError::Certificate(e.to_string());
    let key =
        rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).map_err(|e| bad(&e))?;
    let cert = key.cert.der().clone();
    let private = rustls::pki_types::PrivateKeyDer::try_from(key.signing_key.serialize_der())
        .map_err(|e| bad(&e))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| bad(&e))?
        .with_no_client_auth()
        .with_single_cert(vec![cert], private)
        .map_err(|e| bad(&e))?;
    // HTTP/1.1 only inside the tunnel: the proxy reads one request per connection.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// One page, in a browser context of its own behind its own proxy, within the page's budget.
async fn render_page<U: Upstream>(
    chrome: &Chrome,
    mut gone: tokio::sync::watch::Receiver<bool>,
    tls: &TlsAcceptor,
    url: &Url,
    upstream: &U,
    limits: &PageLimits,
) -> Rendered {
    let caps = Caps {
        max_requests: limits.max_requests,
        max_bytes: limits.max_bytes,
    };
    let proxy = match Proxy::bind(tls.clone(), caps).await {
        Ok(p) => p,
        Err(e) => {
            tracing::warn!("{e}");
            return failed("failed");
        }
    };
    let deadline = Instant::now() + limits.page_timeout;
    let traffic = proxy.traffic.clone();
    let work = async {
        let address = proxy.address()?;
        let context = chrome
            .create_browser_context(
                CreateBrowserContextParams::builder()
                    .proxy_server(address)
                    // Chromium goes to loopback addresses directly unless told not to: every request,
                    // those to 127.0.0.0/8 included, must go through the page's proxy.
                    .proxy_bypass_list("<-loopback>")
                    .dispose_on_detach(true)
                    .build(),
            )
            .await
            .map_err(cdp)?;
        let result = in_context(chrome, context.clone(), url, &traffic, limits, deadline).await;
        let _ = chrome.dispose_browser_context(context).await;
        result
    };
    // The page keeps its own deadlines and what it found by them; this one is the net under them (a browser
    // that stops answering DevTools at all).
    // A browser that goes away ends the page at once (its handler ended, or was dropped at a stop).
    let net = tokio::time::timeout_at((deadline + Duration::from_secs(5)).into(), work);
    // Looked at first: as the browser goes, a DevTools command the page waits on fails at once too, and that
    // is the browser's end, not the page's failure (review 72 R1).
    let outcome = proxy
        .serve(upstream, async {
            tokio::select! {
                biased;
                _ = gone.wait_for(|gone| *gone) => None,
                outcome = net => Some(outcome),
            }
        })
        .await;
    let outcome = match outcome {
        Some(Ok(Err(_))) if *gone.borrow() => None,
        outcome => outcome,
    };
    let mut rendered = match outcome {
        // Gone before the page asked for anything: nothing was rendered. After, what went through the page's
        // proxy is archived: the page was rendered in part, its capture cut short by the crash, as a
        // renderer's crash cuts one (`browser:rendered,browser:crashed`).
        None if traffic.requests() == 0 => failed("failed"),
        None => failed("crashed"),
        Some(Ok(Ok(r))) => r,
        Some(Ok(Err(e))) => {
            tracing::debug!("{url}: {e}");
            failed(if matches!(e, BrowserError::Crashed) {
                "crashed"
            } else {
                "failed"
            })
        }
        // Past the page's deadline and the net's margin, no answer at all: the browser no longer answers
        // DevTools (frozen), and nothing of the page was rendered.
        Some(Err(_)) => Rendered {
            broken: true,
            ..failed("failed")
        },
    };
    rendered.requests = traffic.requests();
    if let Some(cap) = traffic.capped() {
        rendered.notes.push(cap);
    }
    rendered
}

fn cdp(e: impl std::fmt::Display) -> BrowserError {
    BrowserError::Cdp(e.to_string())
}

/// Loads the page, runs the behaviours, collects the links; what the budget leaves after loading goes to
/// the behaviours, and link collection always gets its turn.
async fn in_context(
    chrome: &Chrome,
    context: chromiumoxide::cdp::browser_protocol::browser::BrowserContextId,
    url: &Url,
    traffic: &Traffic,
    limits: &PageLimits,
    deadline: Instant,
) -> Result<Rendered, BrowserError> {
    let page = chrome
        .new_page(
            CreateTargetParams::builder()
                .url("about:blank")
                .browser_context_id(context.clone())
                .build()
                .map_err(cdp)?,
        )
        .await
        .map_err(cdp)?;
    // The crawl's cookies for the page, so a logged-in application's scripts see its session and CSRF
    // cookies (xt16a F5: `document.cookie` held only what the page's own responses set).
    if !limits.cookies.is_empty() {
        let cookies: Vec<CookieParam> = limits
            .cookies
            .iter()
            .map(|c| {
                let mut p = CookieParam::new(c.name.clone(), c.value.clone());
                p.url = Some(url.to_string());
                p.path = Some(c.path.clone());
                p.secure = Some(c.secure);
                p.http_only = Some(c.http_only);
                p
            })
            .collect();
        // Set in the page's browser context, from the browser's session. Chromium refuses the whole list
        // for one cookie it will not hold (over 4 KiB, odd characters): then each is set alone, and one it
        // refuses is said and left out, the page rendered without it (review 64b R4).
        let set = |cookies: Vec<CookieParam>| {
            let mut set = SetCookiesParams::new(cookies);
            set.browser_context_id = Some(context.clone());
            chrome.execute(set)
        };
        if set(cookies.clone()).await.is_err() {
            for cookie in cookies {
                let name = cookie.name.clone();
                if let Err(e) = set(vec![cookie]).await {
                    tracing::warn!("{url}: the browser refused the cookie {name:?}: {e}");
                }
            }
        }
    }
    let _ = chrome
        .execute(
            SetDownloadBehaviorParams::builder()
                .behavior(SetDownloadBehaviorBehavior::Deny)
                .browser_context_id(context)
                .build()
                .map_err(cdp)?,
        )
        .await;
    page.execute(AddScriptToEvaluateOnNewDocumentParams::new(
        behaviors::QUIET_PAGE,
    ))
    .await
    .map_err(cdp)?;
    // The page's workers start running at once: chromiumoxide attaches to them paused, then resumes a service
    // worker and detaches from it in one breath, and Chromium may take the detach first and leave it paused,
    // so the page's `serviceWorker.register()` never settled and what waited on it was lost.
    page.execute(
        SetAutoAttachParams::builder()
            .auto_attach(true)
            .wait_for_debugger_on_start(false)
            .flatten(true)
            .build()
            .map_err(cdp)?,
    )
    .await
    .map_err(cdp)?;
    // A crashed tab says so on the browser's session: that ends the page at once, noted `crashed`.
    let mut crashes = chrome
        .event_listener::<EventTargetCrashed>()
        .await
        .map_err(cdp)?;
    let target = page.target_id().clone();
    let crashed = async move {
        while let Some(event) = crashes.next().await {
            if event.target_id == target {
                return;
            }
        }
        std::future::pending::<()>().await;
    };
    let navigations = std::sync::Mutex::new(Vec::new());
    let stopping = stop_navigations(&page, url, &navigations).await?;
    let mut result = tokio::select! {
        r = behave(&page, url, traffic, limits, deadline, &navigations) => r,
        () = crashed => Err(BrowserError::Crashed),
        () = stopping => unreachable!("stop_navigations never ends"),
    };
    if let Ok(rendered) = &mut result {
        let stopped = navigations
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for to in stopped {
            if !rendered.links.contains(&to) {
                rendered.links.push(to);
            }
        }
    }
    if !matches!(result, Err(BrowserError::Crashed)) {
        close(page).await;
    }
    result
}

/// Stops every navigation of the page's top frame away from its document (`location = …`, a meta refresh, a
/// form sent by script) before it leaves the browser: the page stays what is rendered, and the target of a
/// `GET` goes into `stopped`, to be judged by the scope as a link of the page, never fetched as part of it.
/// Frames and the page's own URL (a reload) go on. The future runs for the page's life.
async fn stop_navigations<'a>(
    page: &'a Page,
    url: &'a Url,
    stopped: &'a std::sync::Mutex<Vec<Url>>,
) -> Result<impl std::future::Future<Output = ()> + 'a, BrowserError> {
    let mut paused = page
        .event_listener::<EventRequestPaused>()
        .await
        .map_err(cdp)?;
    let documents = RequestPattern {
        url_pattern: Some("*".to_owned()),
        resource_type: Some(ResourceType::Document),
        request_stage: Some(RequestStage::Request),
    };
    page.execute(EnableParams::builder().pattern(documents).build())
        .await
        .map_err(cdp)?;
    // The top frame's id is its target's.
    let top = page.target_id().inner().clone();
    Ok(async move {
        while let Some(event) = paused.next().await {
            let to = Url::parse(&event.request.url)
                .ok()
                .filter(|to| matches!(to.scheme(), "http" | "https"));
            let leaves = event.frame_id.inner() == &top
                && to.as_ref().is_some_and(|to| {
                    let (mut a, mut b) = (to.clone(), url.clone());
                    a.set_fragment(None);
                    b.set_fragment(None);
                    a != b
                });
            let id = event.request_id.clone();
            if leaves {
                if let Some(to) = to.filter(|_| event.request.method == "GET") {
                    stopped
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push(to);
                }
                let _ = page
                    .execute(FailRequestParams::new(id, ErrorReason::Aborted))
                    .await;
            } else {
                let _ = page.execute(ContinueRequestParams::new(id)).await;
            }
        }
        std::future::pending::<()>().await;
    })
}

/// The page's life after it was made: load, behaviours, links, screenshot, the views of a single-page
/// application.
async fn behave(
    page: &Page,
    url: &Url,
    traffic: &Traffic,
    limits: &PageLimits,
    deadline: Instant,
    stopped: &std::sync::Mutex<Vec<Url>>,
) -> Result<Rendered, BrowserError> {
    let page = page.clone();
    let mut rendered = Rendered::default();
    // Loading ends at network quiet; a page that never goes quiet gets most of the budget, not all of it.
    let budget = deadline.saturating_duration_since(Instant::now());
    let load_until = Instant::now() + budget.mul_f64(0.6);
    // DevTools answers a navigation once the page's `load` event fires, which a stalled image or a download
    // in a frame may put off for ever: past its share the page goes on with what has loaded.
    // A navigation of the page stopped while it loads (an inline `location.href = …`) leaves DevTools
    // waiting for a `load` that does not come: once one was stopped and the network is quiet, loading is
    // over (xt9b F5: such a page used to wait out its share and be noted `timeout`).
    let stalled = async {
        loop {
            tokio::time::sleep(Duration::from_millis(100)).await;
            let any = !stopped
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .is_empty();
            if any && traffic.idle_for(limits.idle) {
                return;
            }
        }
    };
    let navigate = async {
        tokio::select! {
            navigated = page.execute(NavigateParams::new(url.as_str())) => Some(navigated),
            () = stalled => None,
        }
    };
    match before(load_until, navigate).await {
        Some(Some(navigated)) => {
            navigated.map_err(cdp)?;
        }
        Some(None) => {}
        None => rendered.note("timeout"),
    }
    if !quiet(traffic, limits.idle, load_until).await {
        rendered.note("timeout");
    }
    let behave_until = deadline - budget.mul_f64(0.15);
    let steps = Steps {
        page: &page,
        traffic,
        limits,
        until: behave_until,
    };
    // The links as loaded: kept should the page not answer the collection after its behaviours in time (xt42b:
    // a page building 300,000 elements, its behaviours slowed by them, kept none of its links).
    let loaded = before(behave_until, page_links(&page))
        .await
        .and_then(Result::ok);
    steps.behaviours(url, &mut rendered).await?;
    // Link collection has the rest of the budget; a page whose scripts never let it answer keeps the links it
    // had once loaded.
    let Some(links) = before(deadline, page_links(&page)).await else {
        rendered.note("timeout");
        match loaded {
            Some(loaded) => rendered.links = loaded,
            // Busy from its load to its end (laying out a huge DOM): said, not passed for a page without links.
            None => rendered.note("linksLost"),
        }
        return Ok(rendered);
    };
    let mut links = links?;
    rendered.title = before(deadline, title(&page)).await.flatten();
    // The page as its visitor sees it, before any view of it is rendered in it (xt9b F12: the views' output
    // used to be in the picture).
    if limits.screenshot {
        let params = ScreenshotParams::builder()
            .format(CaptureScreenshotFormat::Png)
            .build();
        match before(deadline, page.screenshot(params)).await {
            Some(Ok(png)) => rendered.screenshot = Some(png),
            Some(Err(e)) => tracing::debug!("{url}: screenshot: {e}"),
            None => rendered.note("timeout"),
        }
    }
    // The views this page links to, each rendered in turn in this page (the document is not loaded again:
    // a route change is the application's own navigation), their links added to the page's.
    let mut queued: HashSet<Url> = HashSet::from([url.clone()]);
    let mut next: VecDeque<Url> = VecDeque::new();
    let mut enqueue = |found: &[Url], next: &mut VecDeque<Url>| {
        for link in found {
            if trawl_url::view::is_view_of(link, url) && queued.insert(link.clone()) {
                next.push_back(link.clone());
            }
        }
    };
    enqueue(&links, &mut next);
    while let Some(view) = next.pop_front() {
        if rendered.views.len() >= limits.max_views as usize {
            rendered.note("maxViews");
            break;
        }
        if Instant::now() >= behave_until {
            rendered.note("timeout");
            break;
        }
        let go = format!("location.href = {}", serde_json::Value::from(view.as_str()));
        let Some(went) = before(behave_until, eval(&page, &go)).await else {
            rendered.note("timeout");
            break;
        };
        went?;
        quiet(traffic, limits.idle, behave_until).await;
        steps.behaviours(&view, &mut rendered).await?;
        let Some(found) = before(behave_until, page_links(&page)).await else {
            rendered.note("timeout");
            break;
        };
        let found = found?;
        enqueue(&found, &mut next);
        for link in found {
            if !links.contains(&link) {
                links.push(link);
            }
        }
        let title = before(behave_until, title(&page)).await.flatten();
        rendered.views.push(View { url: view, title });
    }
    rendered.links = links;
    Ok(rendered)
}

/// `work`'s output if it comes before `until`; `None` if the page did not answer in time (a script that
/// spins, a promise that never settles, a `load` that never fires).
async fn before<T>(until: Instant, work: impl std::future::Future<Output = T>) -> Option<T> {
    tokio::time::timeout_at(until.into(), work).await.ok()
}

/// The behaviours run in a page (and in each view of it), until a time.
struct Steps<'a> {
    page: &'a Page,
    traffic: &'a Traffic,
    limits: &'a PageLimits,
    until: Instant,
}

impl Steps<'_> {
    /// Scrolls while the page grows, brings lazy images in, runs the user's script; each step waits for
    /// network quiet.
    /// A page that stops answering (a script that spins, a `behaviors_file` promise that never settles) ends
    /// its behaviours at `until`, noted `timeout`; what it loaded and its links are kept.
    async fn behaviours(&self, url: &Url, rendered: &mut Rendered) -> Result<(), BrowserError> {
        if self.run(url, rendered).await?.is_none() {
            rendered.note("timeout");
        }
        Ok(())
    }

    /// The steps; `None` when the page did not answer before `until`.
    async fn run(&self, url: &Url, rendered: &mut Rendered) -> Result<Option<()>, BrowserError> {
        let (page, until) = (self.page, self.until);
        let quiet = || quiet(self.traffic, self.limits.idle, until);
        let number = |expression| before(until, eval_u64(page, expression));
        let Some(mut height) = number(behaviors::HEIGHT).await.transpose()? else {
            return Ok(None);
        };
        let mut scrolls = 0;
        while scrolls < self.limits.max_scrolls && Instant::now() < until {
            let Some(moved) = number(behaviors::SCROLL_DOWN).await.transpose()? else {
                return Ok(None);
            };
            scrolls += 1;
            rendered.scrolls += 1;
            // A page no taller than the window (nothing below it) does not scroll: no scroll event, nothing
            // to wait for (the wait is a whole `idle_ms`, a third of a short page's rendering).
            if moved == 0 {
                break;
            }
            quiet().await;
            let Some(now) = number(behaviors::HEIGHT).await.transpose()? else {
                return Ok(None);
            };
            if now <= height {
                break;
            }
            height = now;
        }
        if Instant::now() < until {
            let Some(touched) = number(behaviors::LAZY_IMAGES).await.transpose()? else {
                return Ok(None);
            };
            // No image and no source: nothing was asked for, nothing to wait for.
            if touched > 0 {
                quiet().await;
            }
        }
        if let Some(script) = &self.limits.behaviors
            && Instant::now() < until
        {
            match before(until, eval(page, script)).await {
                None => return Ok(None),
                Some(Err(e)) => {
                    // The script threw (or does not parse): said on the page's line and in the log, once a
                    // crawl, so a broken file is not silently skipped on every page.
                    rendered.note("behaviorsError");
                    behaviors::warn_once(url, &e);
                }
                Some(Ok(_)) => {}
            }
            quiet().await;
        }
        Ok(Some(()))
    }
}

impl Rendered {
    /// Adds a note once.
    fn note(&mut self, note: &'static str) {
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }
}

/// The links of the rendered page, every readable frame included.
async fn page_links(page: &Page) -> Result<Vec<Url>, BrowserError> {
    let links: Vec<String> = eval(page, behaviors::LINKS)
        .await?
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default();
    Ok(links.iter().filter_map(|l| Url::parse(l).ok()).collect())
}

/// The page's `document.title` as its scripts left it (what a visitor's tab shows), white space collapsed,
/// its first [`TITLE_MAX`] characters (cut in the page: a script's 50 MB title never crosses DevTools); `None`
/// when empty or unreadable (a title is a nicety: no error of its own ends the page).
async fn title(page: &Page) -> Option<String> {
    // By code points: a cut surrogate pair would not cross DevTools' JSON.
    let expression = format!("Array.from(String(document.title)).slice(0, {TITLE_MAX}).join('')");
    let value = eval(page, &expression).await.ok().flatten()?;
    let title = value
        .as_str()?
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    (!title.is_empty()).then_some(title)
}

/// The most characters of a rendered page's title kept.
const TITLE_MAX: usize = 1_000;

async fn close(page: Page) {
    let _ = tokio::time::timeout(Duration::from_secs(2), page.close()).await;
}

/// Waits for `quiet` without a request in flight, counted from now at the earliest (what the page was just
/// asked to do may not have sent its requests yet), until `until`; whether it came.
async fn quiet(traffic: &Traffic, quiet: Duration, until: Instant) -> bool {
    traffic.touch();
    loop {
        if traffic.idle_for(quiet) {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The value of `expression` in the page (promises awaited).
async fn eval(page: &Page, expression: &str) -> Result<Option<serde_json::Value>, BrowserError> {
    let params = EvaluateParams::builder()
        .expression(expression)
        .await_promise(true)
        .return_by_value(true)
        .build()
        .map_err(cdp)?;
    let result = page
        .evaluate_expression(params)
        .await
        .map_err(|e| match e {
            // What the script threw, as a console says it, not DevTools' whole record of it (xt9b F10).
            chromiumoxide::error::CdpError::JavascriptException(d) => {
                // Where it was thrown (the top frame), else where DevTools says it surfaced.
                let (line, column) = d
                    .stack_trace
                    .as_ref()
                    .and_then(|t| t.call_frames.first())
                    .map_or((d.line_number, d.column_number), |f| {
                        (f.line_number, f.column_number)
                    });
                BrowserError::Script {
                    line: line + 1,
                    column: column + 1,
                    what: d
                        .exception
                        .as_ref()
                        .and_then(|e| e.description.as_deref())
                        .unwrap_or(&d.text)
                        .lines()
                        .next()
                        .unwrap_or_default()
                        .to_owned(),
                }
            }
            e => cdp(e),
        })?;
    Ok(result.value().cloned())
}

async fn eval_u64(page: &Page, expression: &str) -> Result<u64, BrowserError> {
    Ok(eval(page, expression)
        .await?
        .and_then(|v| v.as_f64())
        .map_or(0, |f| f as u64))
}
