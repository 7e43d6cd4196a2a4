//! What browser capture keeps across pages: the browser, the host kinds `auto` has learned to render, one
//! lock per host for the browser's requests, the recent captures a page's requests are served from (each
//! with the head of the request it answered, for its `Vary`), and a claim per URL being fetched, which a
//! second page asking for it waits on.

use std::{
    collections::{HashMap, HashSet, VecDeque},
    sync::{Arc, Mutex},
};

use trawl_browser::Browser;

use crate::lock::lock;

/// Bytes of recent captures kept for browser pages to be served from.
const RECENT_BYTES: usize = 64 << 20;
/// Captures larger than this are not kept (a page asking for one again gets it fetched and deduplicated).
pub(crate) const RECENT_MAX: usize = 4 << 20;

/// Browser capture's state, present when `[browser] mode` may render (or a sheet may).
pub(crate) struct Rendering {
    pub(crate) browser: Arc<Browser>,
    /// `host kind` pairs where rendering found links the HTML did not have: `auto` renders them from then on.
    learned: Mutex<HashSet<String>>,
    /// One request at a time per host from the browser (its politeness).
    hosts: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    recent: Mutex<Recent>,
    /// The URLs a page's request is fetching now, each with the lock a second page asking for it waits on
    /// (then served from the capture made): one fetch of a script two pages rendering at once share.
    fetching: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

/// A page's claim on fetching a URL ([`Rendering::claim`]); dropped, it lets the next page asking go on.
pub(crate) struct Claim<'a> {
    rendering: &'a Rendering,
    url: String,
    held: tokio::sync::OwnedMutexGuard<()>,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        let mut fetching = lock(&self.rendering.fetching);
        // The map's and this claim's alone: no page waits on it any more.
        if Arc::strong_count(tokio::sync::OwnedMutexGuard::mutex(&self.held)) <= 2 {
            fetching.remove(&self.url);
        }
    }
}

/// A capture kept for browser pages: the response as it crossed the wire, and the head of the request it
/// answered (for its `Vary`).
pub(crate) struct Kept {
    pub(crate) response: Vec<u8>,
    pub(crate) request: Vec<u8>,
    /// Whether a page's fetch of it stands for its URL ([`Rendering::stood`]): another page served from it
    /// then has its own link to the URL end unfetched too.
    pub(crate) stands: std::sync::atomic::AtomicBool,
}

/// How many bytes of `message` its first head takes (its empty line included; all of it without one).
fn head_len(message: &[u8]) -> usize {
    message
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or(message.len(), |at| at + 4)
}

/// Responses as they crossed the wire, by URL, oldest dropped first past [`RECENT_BYTES`].
#[derive(Default)]
struct Recent {
    by_url: HashMap<String, Arc<Kept>>,
    order: VecDeque<String>,
    bytes: usize,
}

impl Rendering {
    pub(crate) fn new(browser: Browser) -> Rendering {
        Rendering {
            browser: Arc::new(browser),
            learned: Mutex::default(),
            hosts: Mutex::default(),
            recent: Mutex::default(),
            fetching: Mutex::default(),
        }
    }

    /// Waits until no other page's request is fetching `url`, then claims it (xt16a F4: two pages rendering
    /// at once fetched, logged and archived a shared script twice). The caller looks in [`Rendering::recent`]
    /// again once it holds the claim.
    pub(crate) async fn claim(&self, url: &str) -> Claim<'_> {
        let lock = lock(&self.fetching)
            .entry(url.to_owned())
            .or_default()
            .clone();
        Claim {
            rendering: self,
            url: url.to_owned(),
            held: lock.lock_owned().await,
        }
    }

    /// Whether `auto` learned to render pages of `kind` on `host`.
    pub(crate) fn learned(&self, host: &str, kind: &str) -> bool {
        lock(&self.learned).contains(&format!("{host} {kind}"))
    }

    /// Rendering found links on `host`'s pages of `kind` that the HTML did not have.
    pub(crate) fn learn(&self, host: &str, kind: &str) {
        lock(&self.learned).insert(format!("{host} {kind}"));
    }

    /// The lock the browser's requests to `host` take one at a time.
    pub(crate) fn host(&self, host: &str) -> Arc<tokio::sync::Mutex<()>> {
        lock(&self.hosts)
            .entry(host.to_owned())
            .or_default()
            .clone()
    }

    /// The capture of `url` made in this crawl, if it is still kept.
    pub(crate) fn recent(&self, url: &str) -> Option<Arc<Kept>> {
        lock(&self.recent).by_url.get(url).cloned()
    }

    /// A page's fetch of `url` stood for it (its queued link ends unfetched): a page served from its capture
    /// later says so too, so that its own link to the URL, queued before the first page's outcome marked it,
    /// is not fetched again (xt42b: a script two pages rendering at once shared was fetched twice).
    pub(crate) fn stood(&self, url: &str) {
        if let Some(kept) = lock(&self.recent).by_url.get(url) {
            kept.stands
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Keeps the capture of `url` (its response bytes, and the request it answered: empty when not known)
    /// for pages that ask for it again.
    pub(crate) fn keep(&self, url: &str, response: &[u8], request: &[u8]) {
        if response.len() > RECENT_MAX {
            return;
        }
        let mut recent = lock(&self.recent);
        if recent.by_url.contains_key(url) {
            return;
        }
        recent.bytes += response.len();
        let request = request[..head_len(request)].to_vec();
        recent.by_url.insert(
            url.to_owned(),
            Arc::new(Kept {
                response: response.to_vec(),
                request,
                stands: Default::default(),
            }),
        );
        recent.order.push_back(url.to_owned());
        while recent.bytes > RECENT_BYTES {
            let Some(old) = recent.order.pop_front() else {
                break;
            };
            if let Some(gone) = recent.by_url.remove(&old) {
                recent.bytes -= gone.response.len();
            }
        }
    }
}
