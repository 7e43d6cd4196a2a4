//! Links in HTML, read from the start tags that [`scan`] finds.
//!
//! Each rule is one row of [`ATTRS`] (a tag, an attribute, a hop) or one
//! arm of [`Collector::element`] for the tags whose links depend on other
//! attributes (`link rel`, `form method`, `input type`, `meta`) or on the form
//! a submit button belongs to (`formaction`, `formmethod`).
//!
//! Raw attribute values are collected while scanning and resolved only at
//! the end, because the first `<base href>` applies to the whole document,
//! links before it included (WHATWG "document base URL").

mod scan;

use std::borrow::Cow;
use std::hash::BuildHasher;
use std::ops::{ControlFlow, Range};

use encoding_rs::{Encoding, UTF_8};
use hashbrown::HashTable;
use url::Url;

use self::scan::{Event, StartTag};
use super::css::{self, CssRef};
use super::{
    Limits, Outlink, OutlinkSet, charset, entities, is_ascii_ws, parse_with_encoding, trim_ascii_ws,
};
use crate::hop::Hop;

/// The links of one HTML document, and what the engine needs to know
/// about how they were read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HtmlLinks {
    /// The outlinks, deduplicated by URL and hop, in document order.
    pub outlinks: Vec<Outlink>,
    /// The base URL links were resolved against: the first `<base href>`
    /// when it is a valid http(s) or ftp URL, else the document URL.
    pub base: Url,
    /// The name of the character encoding the document was decoded with.
    pub charset: &'static str,
    /// True when [`Limits::max_outlinks`] cut the list short.
    pub truncated_outlinks: bool,
    /// True when `<meta name="robots">` says `nofollow` or `none`.
    pub meta_robots_nofollow: bool,
}

/// Extracts the links of an HTML document fetched from `doc_url`.
///
/// `content_type` is the `Content-Type` header, read for its `charset`
/// parameter; see the crate's charset rules for the fallbacks. Links past
/// [`Limits::max_outlinks`] are dropped and the result marked truncated.
pub fn extract_html(
    body: &[u8],
    content_type: Option<&str>,
    doc_url: &Url,
    limits: &Limits,
) -> HtmlLinks {
    let encoding = charset::sniff_html(body, content_type, doc_url);
    let collector = parse(body, encoding, limits);

    let base = collector
        .base_href
        .as_deref()
        .and_then(|href| parse_with_encoding(trim_ascii_ws(href), Some(doc_url), Some(encoding)))
        .filter(|url| matches!(url.scheme(), "http" | "https" | "ftp"))
        .unwrap_or_else(|| doc_url.clone());
    let mut set = OutlinkSet::new(limits);
    for raw in &collector.raw {
        let value = &collector.values[raw.value.clone()];
        set.add(value, &base, Some(encoding), raw.hop, raw.context);
        if set.is_truncated() {
            break;
        }
    }
    let (outlinks, truncated) = set.into_parts();
    HtmlLinks {
        outlinks,
        base,
        charset: encoding.name(),
        truncated_outlinks: truncated || collector.overflow,
        meta_robots_nofollow: collector.nofollow,
    }
}

/// Scans `body` for its start tags and style text, collecting their links. An encoding that is not
/// ASCII-compatible (UTF-16, ISO-2022-JP) is transcoded to UTF-8 first: the scanner reads ASCII bytes.
fn parse(body: &[u8], encoding: &'static Encoding, limits: &Limits) -> Collector {
    let (input, text_encoding) = if encoding.is_ascii_compatible() {
        let (_, bom_len) = Encoding::for_bom(body).unwrap_or((encoding, 0));
        (Cow::Borrowed(&body[bom_len..]), encoding)
    } else {
        let (text, _) = encoding.decode_with_bom_removal(body);
        (Cow::Owned(text.into_owned().into_bytes()), UTF_8)
    };
    let mut collector = Collector::new(limits, text_encoding);
    scan::scan(&input, |event| match event {
        Event::Start(tag) => collector.element(tag),
        Event::StyleText(text) => collector.style_text(text),
        Event::ScriptText(text) => collector.script_text(text),
        Event::FormEnd => {
            collector.open_form = None;
            ControlFlow::Continue(())
        }
    });
    collector.detached_submitters();
    collector
}

/// A form as its submit buttons need it: whether it submits with GET, and its `action` (decoded).
#[derive(Debug, Clone)]
struct Form {
    get: bool,
    action: Option<String>,
}

/// A submit button (`<button>`, `<input type=submit|image>`): where and how it submits its form, overriding
/// the form's `action` and `method` when it has `formaction` and `formmethod`.
#[derive(Debug)]
struct Submitter {
    formaction: Option<String>,
    /// Whether its `formmethod` says GET; `None` when it has none (the form's method applies).
    get: Option<bool>,
    context: &'static str,
}

/// Whether a form's `method` (or a button's `formmethod`) value submits with GET: every value but `post` and
/// `dialog` does, as HTML's invalid value default is GET.
fn is_get(method: &str) -> bool {
    let method = trim_ascii_ws(method);
    !(method.eq_ignore_ascii_case("post") || method.eq_ignore_ascii_case("dialog"))
}

/// An attribute value that holds one URL: (tag, attribute, hop, context).
#[rustfmt::skip]
const ATTRS: &[(&str, &str, Hop, &str)] = &[
    ("a", "href", Hop::Link, "a/@href"),
    ("area", "href", Hop::Link, "area/@href"),
    ("img", "src", Hop::Embed, "img/@src"),
    ("script", "src", Hop::Embed, "script/@src"),
    ("iframe", "src", Hop::Embed, "iframe/@src"),
    ("frame", "src", Hop::Embed, "frame/@src"),
    ("embed", "src", Hop::Embed, "embed/@src"),
    ("source", "src", Hop::Embed, "source/@src"),
    ("video", "src", Hop::Embed, "video/@src"),
    ("video", "poster", Hop::Embed, "video/@poster"),
    ("audio", "src", Hop::Embed, "audio/@src"),
    ("track", "src", Hop::Embed, "track/@src"),
    ("object", "data", Hop::Embed, "object/@data"),
    ("body", "background", Hop::Embed, "body/@background"),
    ("table", "background", Hop::Embed, "table/@background"),
    ("td", "background", Hop::Embed, "td/@background"),
    ("th", "background", Hop::Embed, "th/@background"),
    ("image", "href", Hop::Embed, "image/@href"),
    ("image", "xlink:href", Hop::Embed, "image/@xlink:href"),
    // SVG: a link written in SVG 1.1's form, and the sprite sheet a `<use>` draws from (`sprite.svg#icon`).
    ("a", "xlink:href", Hop::Link, "a/@xlink:href"),
    ("use", "href", Hop::Embed, "use/@href"),
    ("use", "xlink:href", Hop::Embed, "use/@xlink:href"),
    // Lazy loading: the image or frame a page's script swaps in for a placeholder as it scrolls into view,
    // which replay needs as the browser asked for it (xt23b F6).
    ("img", "data-src", Hop::Embed, "img/@data-src"),
    ("img", "data-original", Hop::Embed, "img/@data-original"),
    ("img", "data-lazy-src", Hop::Embed, "img/@data-lazy-src"),
    ("iframe", "data-src", Hop::Embed, "iframe/@data-src"),
    ("source", "data-src", Hop::Embed, "source/@data-src"),
];

/// An attribute value that holds a `srcset` candidate list: (tag, attribute,
/// context). All are embeds.
const SRCSETS: &[(&str, &str, &str)] = &[
    ("img", "srcset", "img/@srcset"),
    ("source", "srcset", "source/@srcset"),
    ("img", "data-srcset", "img/@data-srcset"),
    ("source", "data-srcset", "source/@data-srcset"),
];

/// `link rel` tokens whose target is needed to render the page.
const EMBED_RELS: &[&str] = &[
    "stylesheet",
    "preload",
    "prefetch",
    "modulepreload",
    "manifest",
];

/// `link rel` tokens that name an origin to connect to, not a resource.
const ORIGIN_RELS: &[&str] = &["dns-prefetch", "preconnect"];

/// Most bytes of one `<style>` element kept for scanning.
const MAX_STYLE_LEN: usize = 4 * 1024 * 1024;

/// A raw, unresolved link value: where it is in `Collector::values`, and how it was found.
#[derive(Debug)]
struct Raw {
    value: Range<usize>,
    hop: Hop,
    context: &'static str,
}

/// A distinct raw value: where it is in `Collector::values`, with a bit per hop it was collected as.
#[derive(Debug)]
struct Seen {
    value: Range<usize>,
    hops: u8,
}

// A hop is one bit of a `u8` in `Seen::hops` (checked on `Hop`'s last variant).
const _: () = assert!((Hop::Inferred as u8) < 8);

/// What the element and text handlers gather during the parse.
#[derive(Debug)]
struct Collector {
    /// Every distinct raw value, one after the other: one buffer for a document's links, not a
    /// `String` each.
    values: String,
    raw: Vec<Raw>,
    /// The distinct raw values, found by their text without building a `String` to look one up.
    seen: HashTable<Seen>,
    /// Seeded per document: link values are the page author's to choose.
    hasher: foldhash::fast::RandomState,
    /// How many distinct raw values we keep before giving up.
    raw_cap: usize,
    max_url_len: usize,
    /// True when the document had more raw links than `raw_cap`.
    overflow: bool,
    /// The `href` of the first `<base>` that has one.
    base_href: Option<String>,
    nofollow: bool,
    /// How the document's bytes read as text (attribute values, style text).
    encoding: &'static Encoding,
    /// Whether inline script text is read for speculative links.
    speculative: bool,
    /// The form whose start tag came last and has not ended: the form of the submit buttons that follow (the
    /// tree builder's form element pointer).
    open_form: Option<Form>,
    /// The first form of each `id`, for submit buttons that name theirs (`form="id"`), wherever it stands.
    forms_by_id: std::collections::HashMap<String, Form>,
    /// Submit buttons that name their form by id, judged once every form is known.
    detached: Vec<(String, Submitter)>,
}

impl Collector {
    fn new(limits: &Limits, encoding: &'static Encoding) -> Self {
        Collector {
            values: String::new(),
            raw: Vec::new(),
            seen: HashTable::new(),
            hasher: foldhash::fast::RandomState::default(),
            // Distinct raw strings may resolve to one URL (`a`, `./a`), so
            // keep a margin over the outlink cap.
            raw_cap: limits.max_outlinks.saturating_mul(4).saturating_add(64),
            max_url_len: limits.max_url_len,
            speculative: limits.speculative,
            overflow: false,
            base_href: None,
            nofollow: false,
            encoding,
            open_form: None,
            forms_by_id: std::collections::HashMap::new(),
            detached: Vec::new(),
        }
    }

    /// Bytes of the document as text (invalid sequences replaced, as a browser does).
    fn text<'b>(&self, bytes: &'b [u8]) -> Cow<'b, str> {
        self.encoding.decode_without_bom_handling(bytes).0
    }

    /// The value of attribute `name` as text, character references decoded.
    fn value(&self, tag: &StartTag<'_>, name: &str) -> Option<String> {
        let raw = tag.attr(name)?;
        Some(entities::decode_attr(&self.text(raw)).into_owned())
    }

    /// Records one raw value (entities already decoded). Every fragment-only value (`#sec-12`) is recorded as
    /// `#`: they all resolve to the base URL, so a long document's thousands of in-page anchors take one
    /// place, not one each out of `raw_cap` (which cut off the real links after them).
    fn push(&mut self, value: &str, hop: Hop, context: &'static str) {
        let value = trim_ascii_ws(value);
        let value = if value.starts_with('#') { "#" } else { value };
        if value.is_empty()
            || value.len() > self.max_url_len
            || super::has_skipped_scheme(value)
            || self.overflow
        {
            return;
        }
        let bit = 1u8 << (hop as u8);
        let hash = self.hasher.hash_one(value);
        let values = &self.values;
        let seen = self
            .seen
            .find_mut(hash, |seen| &values[seen.value.clone()] == value);
        if seen.as_ref().is_some_and(|seen| seen.hops & bit != 0) {
            return;
        }
        if self.raw.len() >= self.raw_cap {
            self.overflow = true;
            return;
        }
        let range = match seen {
            Some(seen) => {
                seen.hops |= bit;
                seen.value.clone()
            }
            None => {
                let range = self.values.len()..self.values.len() + value.len();
                self.values.push_str(value);
                let (values, hasher) = (&self.values, &self.hasher);
                self.seen.insert_unique(
                    hash,
                    Seen {
                        value: range.clone(),
                        hops: bit,
                    },
                    |seen| hasher.hash_one(&values[seen.value.clone()]),
                );
                range
            }
        };
        self.raw.push(Raw {
            value: range,
            hop,
            context,
        });
    }

    /// Whether attribute `name`, trimmed, is `want` (ASCII case-insensitive); `None` when it is absent.
    fn attr_is(&self, tag: &StartTag<'_>, name: &str, want: &str) -> Option<bool> {
        let raw = tag.attr(name)?;
        Some(trim_ascii_ws(&self.text(raw)).eq_ignore_ascii_case(want))
    }

    /// Records the value of attribute `name`, if present.
    fn attr(&mut self, tag: &StartTag<'_>, name: &str, hop: Hop, context: &'static str) {
        if let Some(raw) = tag.attr(name) {
            let text = self.text(raw);
            self.push(&entities::decode_attr(&text), hop, context);
        }
    }

    /// Records the URLs of a CSS fragment.
    fn css(&mut self, text: &str, url_context: &'static str, import_context: &'static str) {
        css::scan(text, |raw, kind| {
            let context = match kind {
                CssRef::Url => url_context,
                CssRef::Import => import_context,
            };
            self.push(&raw, Hop::Embed, context);
            !self.overflow
        });
    }

    /// Collects the links of one start tag; breaks once there are too many.
    fn element(&mut self, tag: &StartTag<'_>) -> ControlFlow<()> {
        // Every tag with a rule has a short name: longer ones only need their `style` read.
        let mut lower = [0u8; 8];
        let name = tag.name();
        let name = match lower.get_mut(..name.len()) {
            Some(buf) => {
                buf.copy_from_slice(name);
                buf.make_ascii_lowercase();
                std::str::from_utf8(buf).unwrap_or("")
            }
            None => "",
        };
        for &(t, attr, hop, context) in ATTRS {
            if t != name {
                continue;
            }
            // A `<use>` of a fragment only (`#icon`) draws from this document, whatever its `<base>`: nothing
            // to fetch (xt23b F4: the base URL was fetched as an embed).
            if name == "use"
                && self
                    .value(tag, attr)
                    .is_some_and(|v| trim_ascii_ws(&v).starts_with('#'))
            {
                continue;
            }
            self.attr(tag, attr, hop, context);
        }
        for &(t, attr, context) in SRCSETS {
            if t == name
                && let Some(value) = self.value(tag, attr)
            {
                for url in srcset_urls(&value) {
                    self.push(url, Hop::Embed, context);
                }
            }
        }
        match name {
            "link" => {
                let rel = self.value(tag, "rel").unwrap_or_default();
                if let Some(hop) = link_hop(&rel) {
                    self.attr(tag, "href", hop, "link/@href");
                    if let Some(value) = self.value(tag, "imagesrcset") {
                        for url in srcset_urls(&value) {
                            self.push(url, Hop::Embed, "link/@imagesrcset");
                        }
                    }
                }
            }
            "input" => {
                let image = self.attr_is(tag, "type", "image") == Some(true);
                if image {
                    self.attr(tag, "src", Hop::Embed, "input/@src");
                }
                if image || self.attr_is(tag, "type", "submit") == Some(true) {
                    self.submitter(tag, "input/@formaction");
                }
            }
            // A button without a type is a submit button; so is one of a type HTML does not know.
            "button"
                if self.attr_is(tag, "type", "button") != Some(true)
                    && self.attr_is(tag, "type", "reset") != Some(true) =>
            {
                self.submitter(tag, "button/@formaction");
            }
            "form" => self.form(tag),
            "base" if self.base_href.is_none() => self.base_href = self.value(tag, "href"),
            "meta" => self.meta(tag),
            _ => {}
        }
        if let Some(style) = self.value(tag, "style") {
            self.css(&style, "@style/url()", "@style/@import");
        }
        self.go_on()
    }

    /// A `<form>`: its action is a link when it submits with GET (a form without a method does); it is the form
    /// of the submit buttons that follow until `</form>` (unless one is open already: HTML ignores a form
    /// inside a form), and of those anywhere that name its `id`.
    fn form(&mut self, tag: &StartTag<'_>) {
        let form = Form {
            get: self.value(tag, "method").is_none_or(|m| is_get(&m)),
            action: self.value(tag, "action"),
        };
        if form.get
            && let Some(action) = &form.action
        {
            self.push(action, Hop::Link, "form/@action");
        }
        if let Some(id) = self.value(tag, "id").filter(|id| !id.is_empty()) {
            self.forms_by_id.entry(id).or_insert_with(|| form.clone());
        }
        if self.open_form.is_none() {
            self.open_form = Some(form);
        }
    }

    /// A submit button: its `formaction` (or, when its `formmethod` makes a POST form's submission GET, the
    /// form's action) is a link when its form submits with GET, as a form's action is. A button outside any
    /// form submits nothing; one that names its form (`form="id"`) is judged at the end.
    fn submitter(&mut self, tag: &StartTag<'_>, context: &'static str) {
        let submitter = Submitter {
            formaction: self.value(tag, "formaction"),
            get: self.value(tag, "formmethod").map(|m| is_get(&m)),
            context,
        };
        if submitter.formaction.is_none() && submitter.get.is_none() {
            return;
        }
        match self.value(tag, "form") {
            Some(id) => self.detached.push((id, submitter)),
            None => {
                if let Some(form) = self.open_form.clone() {
                    self.submit(&form, &submitter);
                }
            }
        }
    }

    /// Records where `submitter` sends `form`, if it sends it with GET.
    fn submit(&mut self, form: &Form, submitter: &Submitter) {
        if !submitter.get.unwrap_or(form.get) {
            return;
        }
        match (&submitter.formaction, &form.action) {
            (Some(target), _) => self.push(target, Hop::Link, submitter.context),
            // Only the method changed: the form's own action, which a GET form has given already.
            (None, Some(action)) if !form.get => self.push(action, Hop::Link, "form/@action"),
            _ => {}
        }
    }

    /// Judges the submit buttons that named their form by id, now that every form is known.
    fn detached_submitters(&mut self) {
        for (id, submitter) in std::mem::take(&mut self.detached) {
            if let Some(form) = self.forms_by_id.get(&id).cloned() {
                self.submit(&form, &submitter);
            }
        }
    }

    /// Breaks the scan once the document had too many links.
    fn go_on(&self) -> ControlFlow<()> {
        if self.overflow {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }

    fn meta(&mut self, tag: &StartTag<'_>) {
        let Some(content) = self.value(tag, "content") else {
            return;
        };
        let is_robots = self.attr_is(tag, "name", "robots") == Some(true);
        if self.attr_is(tag, "http-equiv", "refresh") == Some(true)
            && let Some(url) = refresh_url(&content)
        {
            self.push(url, Hop::Redirect, "meta/@content");
        }
        if is_robots
            && content
                .split(|c: char| c == ',' || is_ascii_ws(c))
                .any(|t| t.eq_ignore_ascii_case("nofollow") || t.eq_ignore_ascii_case("none"))
        {
            self.nofollow = true;
        }
    }

    /// The text of one `<style>` element.
    /// Inline script: its string literals shaped like links, as speculative hops (when asked for).
    fn script_text(&mut self, text: &[u8]) -> ControlFlow<()> {
        if self.speculative {
            for s in super::speculative::candidates(text).0 {
                self.push(&s, Hop::Speculative, "script/string");
            }
        }
        self.go_on()
    }

    fn style_text(&mut self, text: &[u8]) -> ControlFlow<()> {
        let text = &text[..text.len().min(MAX_STYLE_LEN)];
        let style = self.text(text).into_owned();
        self.css(&style, "style/url()", "style/@import");
        self.go_on()
    }
}

/// The hop for a `<link>` with this `rel`, or `None` to skip it.
fn link_hop(rel: &str) -> Option<Hop> {
    let mut origin_only = false;
    for token in rel.split(is_ascii_ws).filter(|t| !t.is_empty()) {
        let token = token.to_ascii_lowercase();
        if EMBED_RELS.contains(&token.as_str()) || token.contains("icon") {
            return Some(Hop::Embed);
        }
        origin_only |= ORIGIN_RELS.contains(&token.as_str());
    }
    (!origin_only).then_some(Hop::Link)
}

/// The URLs of a `srcset` candidate list (WHATWG "parse a srcset
/// attribute"): each candidate is a URL, then optional descriptors such as
/// `2x` or `100w`, candidates separated by commas.
fn srcset_urls(srcset: &str) -> Vec<&str> {
    let mut urls = Vec::new();
    let mut rest = srcset;
    loop {
        rest = rest.trim_start_matches(|c| is_ascii_ws(c) || c == ',');
        if rest.is_empty() {
            return urls;
        }
        let end = rest.find(is_ascii_ws).unwrap_or(rest.len());
        let url = &rest[..end];
        rest = &rest[end..];
        if url.ends_with(',') {
            // `a.png,b.png`: a trailing comma ends the candidate.
            urls.push(url.trim_end_matches(','));
            continue;
        }
        urls.push(url);
        // Skip the descriptors up to a comma outside parentheses.
        let mut depth = 0usize;
        let mut next = rest.len();
        for (i, c) in rest.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                ',' if depth == 0 => {
                    next = i + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &rest[next..];
    }
}

/// The URL of a `<meta http-equiv=refresh>` content value, after the WHATWG
/// "shared declarative refresh steps": `5; url=x`, `0;URL='x'`, `5, x`.
/// `None` when the value is malformed or only reloads the page.
pub(crate) fn refresh_url(content: &str) -> Option<&str> {
    let s = content.trim_start_matches(is_ascii_ws);
    let after_digits = s.trim_start_matches(|c: char| c.is_ascii_digit());
    if after_digits.len() == s.len() && !after_digits.starts_with('.') {
        return None;
    }
    let s = after_digits.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    if !s.is_empty() && !s.starts_with([';', ',']) && !s.starts_with(is_ascii_ws) {
        return None;
    }
    let s = s.trim_start_matches(is_ascii_ws);
    let s = s.strip_prefix([';', ',']).unwrap_or(s);
    let s = s.trim_start_matches(is_ascii_ws);
    let mut url = s;
    if s.len() >= 3 && s.as_bytes()[..3].eq_ignore_ascii_case(b"url") {
        let t = s[3..].trim_start_matches(is_ascii_ws);
        if let Some(t) = t.strip_prefix('=') {
            url = t.trim_start_matches(is_ascii_ws);
        }
    }
    if let Some(quote) = url.chars().next().filter(|c| *c == '"' || *c == '\'') {
        url = &url[1..];
        if let Some(end) = url.find(quote) {
            url = &url[..end];
        }
    }
    let url = trim_ascii_ws(url);
    (!url.is_empty()).then_some(url)
}

#[cfg(test)]
mod tests;
