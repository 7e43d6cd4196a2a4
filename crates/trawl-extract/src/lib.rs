//! trawl's extractors: what a fetched document links to, sans-IO.
//!
//! Bytes, a content type, a base URL and the extractor's own [`Limits`] go in; [`Outlink`]s (each with the
//! [`Hop`] that reached it) and annotations come out. [`extract`] dispatches on the media type: HTML and XHTML
//! go to [`extract_html`] (a streaming start-tag scanner), CSS to [`extract_css`]; [`sitemap`], [`feed`],
//! [`speculative`] (link-shaped strings in scripts and JSON), [`pdf`] and [`office`] (Word, OOXML and ODF
//! documents) are called by name; [`form`] reads a page's forms as a browser would submit them (for form
//! logins). [`decode`] removes content codings for extraction only, bounded against compression bombs;
//! [`field`] reads the response fields that say which (repeated `Content-Encoding` and `Content-Type` lines).
//!
//! What this crate must not know: sockets, async runtimes, the frontier, the crawl's records, settings files.
//! Every extractor takes bytes and returns what it found: a document it cannot parse yields fewer links, never
//! a panic or an error, so each one can be fuzzed and reused on its own.

use std::borrow::Cow;
use std::hash::BuildHasher;

use encoding_rs::Encoding;
use hashbrown::HashTable;
use url::Url;

pub use crate::hop::Hop;

mod charset;
mod css;
pub mod decode;
mod document;
mod entities;
pub mod feed;
pub mod field;
pub mod form;
mod hop;
mod html;
pub mod office;
pub mod page_text;
pub mod pdf;
pub mod sitemap;
pub mod speculative;
mod text_urls;
pub mod title;
mod xml;

pub use self::css::extract_css;
pub use self::document::DocumentLinks;
pub use self::html::{HtmlLinks, extract_html};
pub use self::xml::resolve_ref as resolve_xml_ref;

/// One link found in a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outlink {
    /// The resolved, absolute URL, with any fragment removed.
    pub url: Url,
    /// How the link was reached: `Link`, `Embed` or `Redirect`.
    pub hop: Hop,
    /// Where the link was found, such as `"a/@href"`, `"img/@srcset"`,
    /// `"meta/@content"`, `"style/url()"` or `"css/@import"`.
    pub context: &'static str,
    /// The date a sitemap's `<lastmod>` gave the URL, in seconds since the epoch (UTC); `None` elsewhere.
    pub lastmod: Option<i64>,
}

/// The longest URL an extractor keeps, in bytes once resolved ([`Limits::max_url_len`]'s default, and the
/// bound of the extractors that take no [`Limits`]: sitemaps, feeds, speculative links). No server or archive
/// tool handles longer URLs well; they are mostly data or tracking blobs.
pub const MAX_URL_LEN: usize = 8192;

/// Bounds on how much one document may produce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// The most outlinks kept from one document; the rest are dropped and
    /// the result is marked truncated. Default: 6000.
    pub max_outlinks: usize,
    /// URLs longer than this many bytes once resolved are dropped (raw values longer than it too, before
    /// they are resolved). Default: [`MAX_URL_LEN`].
    pub max_url_len: usize,
    /// Whether string literals of inline `<script>` text are read for speculative (`X`) links. Default:
    /// false (the crawl turns it on with `[extract] speculative`).
    pub speculative: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_outlinks: 6000,
            max_url_len: MAX_URL_LEN,
            speculative: false,
        }
    }
}

/// What [`extract`] found in one document.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Extracted {
    /// The outlinks, deduplicated by URL and hop, in document order.
    pub outlinks: Vec<Outlink>,
    /// True when [`Limits::max_outlinks`] cut the list short.
    pub truncated_outlinks: bool,
    /// The base URL links were resolved against (HTML only: the document
    /// URL, or the first `<base href>`).
    pub base: Option<Url>,
    /// The name of the character encoding used to decode the document, or
    /// `None` when nothing was decoded.
    pub charset: Option<&'static str>,
    /// True when an HTML `<meta name="robots">` says `nofollow` or `none`.
    /// The engine decides what to do about it.
    pub meta_robots_nofollow: bool,
}

/// Extracts the outlinks of a document by its MIME type.
///
/// `mime` is the media type (parameters after `;` are ignored, case does not
/// matter): `text/html` and `application/xhtml+xml` are read as HTML,
/// `text/css` as CSS; any other type gives an empty [`Extracted`].
/// `content_type_header` is the raw `Content-Type` header, used for its
/// `charset` parameter.
pub fn extract(
    mime: &str,
    body: &[u8],
    content_type_header: Option<&str>,
    doc_url: &Url,
    limits: &Limits,
) -> Extracted {
    let essence = mime.split(';').next().unwrap_or("").trim();
    if essence.eq_ignore_ascii_case("text/html")
        || essence.eq_ignore_ascii_case("application/xhtml+xml")
    {
        let links = extract_html(body, content_type_header, doc_url, limits);
        Extracted {
            outlinks: links.outlinks,
            truncated_outlinks: links.truncated_outlinks,
            base: Some(links.base),
            charset: Some(links.charset),
            meta_robots_nofollow: links.meta_robots_nofollow,
        }
    } else if essence.eq_ignore_ascii_case("text/css") {
        let (encoding, outlinks) =
            css::extract_css_full(body, content_type_header, doc_url, limits);
        Extracted {
            outlinks: outlinks.outlinks,
            truncated_outlinks: outlinks.truncated,
            base: None,
            charset: Some(encoding.name()),
            meta_robots_nofollow: false,
        }
    } else {
        Extracted::default()
    }
}

/// Collects outlinks: resolves, filters, deduplicates and caps them.
#[derive(Debug)]
pub(crate) struct OutlinkSet {
    outlinks: Vec<Outlink>,
    /// Indices into `outlinks`, found by URL and hop (so no URL is copied to remember it).
    seen: HashTable<usize>,
    /// Seeded per document: URLs are the page author's to choose.
    hasher: foldhash::fast::RandomState,
    max_outlinks: usize,
    max_url_len: usize,
    /// True once a new link arrived after the list was full.
    truncated: bool,
}

impl OutlinkSet {
    pub(crate) fn new(limits: &Limits) -> Self {
        OutlinkSet {
            outlinks: Vec::new(),
            seen: HashTable::new(),
            hasher: foldhash::fast::RandomState::default(),
            max_outlinks: limits.max_outlinks,
            max_url_len: limits.max_url_len,
            truncated: false,
        }
    }

    /// Resolves `raw` against `base` and adds it unless it is unwanted or a
    /// duplicate. `encoding` is the document encoding, used for the query
    /// string as WHATWG requires; `None` means UTF-8.
    pub(crate) fn add(
        &mut self,
        raw: &str,
        base: &Url,
        encoding: Option<&'static Encoding>,
        hop: Hop,
        context: &'static str,
    ) {
        if self.truncated {
            return;
        }
        let Some(url) = resolve(raw, base, encoding, self.max_url_len) else {
            return;
        };
        let hash = self.hasher.hash_one((url.as_str(), hop));
        let outlinks = &self.outlinks;
        let same = |&i: &usize| outlinks[i].hop == hop && outlinks[i].url == url;
        if self.seen.find(hash, same).is_some() {
            return;
        }
        if self.outlinks.len() >= self.max_outlinks {
            self.truncated = true;
            return;
        }
        let (outlinks, hasher) = (&self.outlinks, &self.hasher);
        self.seen.insert_unique(hash, outlinks.len(), |&i| {
            hasher.hash_one((outlinks[i].url.as_str(), outlinks[i].hop))
        });
        self.outlinks.push(Outlink {
            url,
            hop,
            context,
            lastmod: None,
        });
    }

    /// True once the cap was hit; later additions are ignored.
    pub(crate) fn is_truncated(&self) -> bool {
        self.truncated
    }

    pub(crate) fn into_parts(self) -> (Vec<Outlink>, bool) {
        (self.outlinks, self.truncated)
    }
}

/// The outlinks of a CSS document, with the truncation flag.
#[derive(Debug)]
pub(crate) struct CssOutlinks {
    pub(crate) outlinks: Vec<Outlink>,
    pub(crate) truncated: bool,
}

/// HTML's ASCII whitespace: tab, LF, FF, CR and space.
pub(crate) fn is_ascii_ws(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0C' | '\r' | ' ')
}

/// Trims HTML's ASCII whitespace from both ends, as browsers do for URLs.
pub(crate) fn trim_ascii_ws(s: &str) -> &str {
    s.trim_matches(is_ascii_ws)
}

/// Schemes that never lead to a fetchable resource; checked before
/// resolution so that big `data:` URLs are dropped cheaply.
const SKIPPED_SCHEMES: [&str; 6] = ["javascript:", "mailto:", "data:", "tel:", "about:", "blob:"];

/// True when `raw` (already trimmed) starts with a scheme we never follow.
pub(crate) fn has_skipped_scheme(raw: &str) -> bool {
    SKIPPED_SCHEMES.iter().any(|scheme| {
        raw.len() >= scheme.len()
            && raw.as_bytes()[..scheme.len()].eq_ignore_ascii_case(scheme.as_bytes())
    })
}

/// Resolves one raw URL string: trims it, drops empty, overlong and
/// unwanted-scheme values, parses it against `base` and removes the fragment.
/// Only `http`, `https` and `ftp` URLs are kept, of at most `max_url_len` bytes
/// both as written (a cheap bound before parsing) and once resolved (percent-encoding
/// can triple a value's length: 8,000 bytes of `é` are a 24,000-byte URL).
pub(crate) fn resolve(
    raw: &str,
    base: &Url,
    encoding: Option<&'static Encoding>,
    max_url_len: usize,
) -> Option<Url> {
    let raw = trim_ascii_ws(raw);
    if raw.is_empty() || raw.len() > max_url_len || has_skipped_scheme(raw) {
        return None;
    }
    let mut url = parse_with_encoding(
        same_site_path(raw, base).unwrap_or(raw),
        Some(base),
        encoding,
    )?;
    if !matches!(url.scheme(), "http" | "https" | "ftp") {
        return None;
    }
    url.set_fragment(None);
    (url.as_str().len() <= max_url_len).then_some(url)
}

/// The path and what follows of `raw` when `raw` is an absolute URL spelled with exactly `base`'s scheme
/// and authority: resolved against `base`, that gives the same URL without parsing the scheme and host again
/// (the host parser runs IDNA processing on every name). Most links of many sites are absolute links to the
/// site itself. `None` when a tab or line break (which the parser removes, and which could join `/` and `/`)
/// or a second slash after the first (a scheme-relative reference) could make the two readings differ.
fn same_site_path<'a>(raw: &'a str, base: &Url) -> Option<&'a str> {
    if !matches!(base.scheme(), "http" | "https") {
        return None;
    }
    let rest = raw.strip_prefix(&base[..url::Position::BeforePath])?;
    let bytes = rest.as_bytes();
    let path_absolute = bytes.first() == Some(&b'/') && !matches!(bytes.get(1), Some(b'/' | b'\\'));
    (path_absolute && memchr::memchr3(b'\t', b'\n', b'\r', bytes).is_none()).then_some(rest)
}

/// Parses `raw` against `base`, encoding the query with `encoding` (UTF-8
/// when `None` or when the encoding's output encoding is UTF-8).
pub(crate) fn parse_with_encoding(
    raw: &str,
    base: Option<&Url>,
    encoding: Option<&'static Encoding>,
) -> Option<Url> {
    let encoding = encoding
        .map(Encoding::output_encoding)
        .filter(|e| *e != encoding_rs::UTF_8);
    match encoding {
        Some(encoding) => {
            let encode: &dyn Fn(&str) -> Cow<'_, [u8]> = &|s| encoding.encode(s).0;
            Url::options()
                .base_url(base)
                .encoding_override(Some(encode))
                .parse(raw)
                .ok()
        }
        None => Url::options().base_url(base).parse(raw).ok(),
    }
}

#[cfg(test)]
mod tests;
