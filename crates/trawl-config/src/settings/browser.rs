//! `[browser]`: which pages are rendered in headless Chromium, the limits on each, and which Chromium.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Which pages are rendered in a browser.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BrowserMode {
    /// No page is rendered; no browser is started.
    #[default]
    Off,
    /// An HTML page is rendered when it needs it (little text, scripts, an empty application root,
    /// `<noscript>`), and a host's pages of a kind once rendering found links the HTML did not have.
    Auto,
    /// Every HTML page is rendered.
    All,
}

/// Browser capture (docs/browser.md): pages rendered in headless Chromium, every request it makes sent
/// through trawl's fetcher and archived as it crossed the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BrowserConfig {
    /// `off`, `auto` or `all`; a sheet may set it (`browser.mode`). Default: off.
    pub mode: BrowserMode,
    /// The Chromium to run; empty: `chromium`, `chromium-browser` or `google-chrome` on PATH. Default: empty.
    pub executable: String,
    /// Browser pages rendering at once. Default: 2.
    pub pages: usize,
    /// The most one page may take: load, behaviours and link collection, in ms. Default: 30000.
    pub page_timeout_ms: u64,
    /// Network quiet that ends loading (and each scroll step), in ms. Default: 1000.
    pub idle_ms: u64,
    /// The most times a page is scrolled down while it keeps growing. Default: 20.
    pub max_scrolls: u32,
    /// Requests one page may make; past it, requests are refused (`browser:maxRequests`). Default: 500.
    pub max_requests_per_page: u32,
    /// Bytes one page may fetch; past it, requests are refused (`browser:maxBytes`). Default: 52428800.
    pub max_bytes_per_page: u64,
    /// Archive a PNG of each rendered page as a `resource` record. Default: false.
    pub screenshot: bool,
    /// A JavaScript file run in each page after it loads (site-specific behaviours), relative to the config's
    /// folder. Default: none.
    pub behaviors_file: String,
    /// The most views of a single-page application (the page's URL with a route fragment, `#/guide`)
    /// rendered after a page, each in turn in the page's own tab; past it, `browser:maxViews`. Default: 100.
    pub max_views: u32,
    /// The browser is restarted after this many pages (memory grows over long crawls). Default: 100.
    pub restart_every: u32,
    /// The browser is restarted after a page when its processes use more than this many MiB (proportional
    /// set size, Linux); 0: no limit. Default: 2048.
    pub restart_memory_mb: u64,
}

impl Default for BrowserConfig {
    fn default() -> Self {
        BrowserConfig {
            mode: BrowserMode::Off,
            executable: String::new(),
            pages: 2,
            page_timeout_ms: 30_000,
            idle_ms: 1_000,
            max_scrolls: 20,
            max_requests_per_page: 500,
            max_bytes_per_page: 50 * 1024 * 1024,
            screenshot: false,
            behaviors_file: String::new(),
            max_views: 100,
            restart_every: 100,
            restart_memory_mb: 2048,
        }
    }
}

/// The names a Chromium goes by on PATH, in the order they are tried.
const CHROMIUM_NAMES: [&str; 3] = ["chromium", "chromium-browser", "google-chrome"];

impl BrowserConfig {
    /// Whether `name` is one a Chromium goes by on PATH (`chromium`, `chromium-browser`, `google-chrome`).
    pub fn is_chromium_name(name: &str) -> bool {
        CHROMIUM_NAMES.contains(&name)
    }

    /// The Chromium this config means: `executable` when set (a path, relative to the config's folder once
    /// the config is checked; a bare name, looked up on PATH), else the first of `chromium`,
    /// `chromium-browser`, `google-chrome` found on PATH. `trawl check` and the crawl both ask this, so a
    /// config works from any folder or from none (xt16a F7).
    pub fn chromium(&self) -> Option<PathBuf> {
        if self.executable.contains('/') {
            let p = PathBuf::from(&self.executable);
            return is_executable(&p).then_some(p);
        }
        let names: &[&str] = if self.executable.is_empty() {
            &CHROMIUM_NAMES
        } else {
            &[self.executable.as_str()]
        };
        let path = std::env::var_os("PATH")?;
        names.iter().find_map(|name| {
            std::env::split_paths(&path)
                .map(|dir| dir.join(name))
                .find(|p| is_executable(p))
        })
    }
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
