//! The scripts run in a page: what keeps it from holding the crawl (dialogs, new windows, printing), the
//! built-in behaviours (scroll, lazy images and their `srcset` candidates) and link collection over every
//! frame. Each is an expression evaluated by DevTools; the results are JSON values.

/// Run before any of the page's own scripts, in every frame: dialogs answer at once, new windows and printing do
/// nothing, and there is no WebRTC.
pub(crate) const QUIET_PAGE: &str = r#"(() => {
  window.alert = () => {};
  window.confirm = () => true;
  window.prompt = () => null;
  window.print = () => {};
  // A window the page opens is where a visitor is taken: its URL is kept for the page's links (xt9b F8).
  const opened = [];
  Object.defineProperty(window, '__trawlOpened', { value: opened, enumerable: false });
  window.open = (url) => {
    try { if (url) opened.push(new URL(String(url), document.baseURI).href); } catch (e) {}
    return null;
  };
  // WebRTC sends its STUN and TURN datagrams itself, not through the page's proxy: a page could make the
  // crawler send UDP anywhere, around the address policy, the scope and robots.txt (xt9b F1).
  for (const name of ["RTCPeerConnection", "webkitRTCPeerConnection", "RTCIceTransport"]) {
    Object.defineProperty(window, name, { value: undefined, writable: false, configurable: false });
  }
})()"#;

/// The page's scroll height: the scroll behaviour stops when it no longer grows.
pub(crate) const HEIGHT: &str = r#"(() => {
  const el = document.scrollingElement || document.documentElement || document.body;
  return el ? el.scrollHeight : 0;
})()"#;

/// Scrolls to the bottom at once (`instant`: a page styled `scroll-behavior: smooth` would animate it), so an
/// infinite feed loads its next batch. Returns how many pixels of the page lay below the window, measured
/// before the scroll: none for a page no taller than the window (nothing scrolls, no scroll event fires:
/// nothing to wait for). Review 84 R2: measuring the movement read 0 on a smooth-scrolling page.
pub(crate) const SCROLL_DOWN: &str = r#"(() => {
  const el = document.scrollingElement || document.documentElement || document.body;
  if (!el) return 0;
  const below = Math.max(0, el.scrollHeight - window.innerHeight - window.scrollY);
  window.scrollTo({top: el.scrollHeight, left: 0, behavior: 'instant'});
  return Math.ceil(below);
})()"#;

/// Brings every image into view (lazy loading fires), makes lazy images eager, and loads every `srcset`
/// candidate of every image and `<source>` (each is archived, as a replay may ask for any of them), in the
/// page, its open shadow roots (web components) and the frames it may read, as [`LINKS`] walks them.
/// Returns how many images and sources it found, and candidates it asked for: none, nothing to wait for.
pub(crate) const LAZY_IMAGES: &str = r#"(() => {
  let asked = 0;
  let found = 0;
  const seen = new Set();
  const load = (url) => {
    if (!url || seen.has(url)) return;
    seen.add(url);
    const img = new Image();
    img.src = url;
    asked += 1;
  };
  const candidates = (srcset, base) => (srcset || '').split(',')
    .map((c) => c.trim().split(/\s+/)[0])
    .filter((u) => u)
    .map((u) => { try { return new URL(u, base).href; } catch (e) { return null; } });
  const walk = (root, base) => {
    for (const img of root.querySelectorAll('img')) {
      found += 1;
      if (img.loading === 'lazy') img.loading = 'eager';
      for (const attr of ['data-src', 'data-lazy-src', 'data-original']) {
        const v = img.getAttribute(attr);
        if (v) { try { load(new URL(v, base).href); } catch (e) {} }
      }
      try { img.scrollIntoView({block: 'center'}); } catch (e) {}
      for (const u of candidates(img.getAttribute('srcset'), base)) load(u);
    }
    for (const source of root.querySelectorAll('source[srcset]')) {
      found += 1;
      for (const u of candidates(source.getAttribute('srcset'), base)) load(u);
    }
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) walk(el.shadowRoot, base);
    }
    for (const f of root.querySelectorAll('iframe, frame')) {
      try { if (f.contentDocument) walk(f.contentDocument, f.contentDocument.baseURI); } catch (e) {}
    }
  };
  walk(document, document.baseURI);
  window.scrollTo(0, 0);
  return found + asked;
})()"#;

/// Every link of the rendered page, of every open shadow root in it (web components: Lit, Stencil, Shoelace
/// put their navigation there), and of every frame the page may read (same origin; other frames are pages of
/// their own): `a` and `area` hrefs, absolute, and the URLs the page asked `window.open` for. A closed
/// shadow root cannot be read.
pub(crate) const LINKS: &str = r#"(() => {
  const out = new Set();
  const walk = (root) => {
    for (const a of root.querySelectorAll('a[href], area[href]')) {
      const href = a.href;
      if (typeof href === 'string' && /^https?:/i.test(href)) out.add(href);
    }
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) walk(el.shadowRoot);
    }
    for (const f of root.querySelectorAll('iframe, frame')) {
      try {
        if (f.contentDocument) walk(f.contentDocument);
        opened(f.contentWindow);
      } catch (e) {}
    }
  };
  // The URLs each readable window asked `window.open` for.
  const opened = (w) => {
    for (const href of ((w && w.__trawlOpened) || [])) {
      if (/^https?:/i.test(href)) out.add(href);
    }
  };
  walk(document);
  opened(window);
  return Array.from(out);
})()"#;

/// Logs that the operator's `behaviors_file` threw in a page, the first time in this process: the pages'
/// crawl.log lines say `browser:behaviorsError` each time.
pub(crate) fn warn_once(url: &url::Url, error: &crate::error::BrowserError) {
    static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if !SAID.swap(true, std::sync::atomic::Ordering::Relaxed) {
        tracing::warn!(
            "[browser] behaviors_file failed in {url} ({error}); it is tried on every page, each noted \
             browser:behaviorsError in crawl.log: check the script"
        );
    } else {
        tracing::debug!("{url}: behaviors_file: {error}");
    }
}
