//! trawl's browser capture: pages rendered in headless Chromium, every request the browser makes answered
//! by the crawl's own fetcher.
//!
//! A [`Browser`] starts Chromium on first use (a fresh profile, no extensions, downloads off) and renders a
//! page in a browser context of its own, whose proxy is a loopback proxy of that page: plain requests and
//! `CONNECT` tunnels (TLS ended here) are read and handed to an [`Upstream`], which answers each with the
//! response as it crossed the wire, or refuses it. The built-in behaviours scroll while the page grows, bring
//! lazy images into view and load every `srcset` candidate, run a user's script, then collect the links of
//! every readable frame and open shadow root ([`Rendered`]). [`detect::needs_rendering`] says which HTML pages need a browser.
//!
//! What this crate must not know: the frontier, the crawl loop, the scope, WARC writing. What becomes of a
//! request (refused by the scope or robots.txt, fetched and archived, served from what was archived) is the
//! upstream's business: the engine's.
#![deny(missing_docs)]

mod behaviors;
pub mod detect;
mod error;
mod memory;
mod probe;
mod proxy;
mod session;

pub use crate::{
    error::BrowserError,
    probe::chromium_version,
    proxy::{Answer, BrowserRequest, Budget, MAX_BODY, Upstream},
    session::{Browser, PageCookie, PageLimits, Rendered, Restart, View},
};
