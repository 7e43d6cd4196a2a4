//! Sitemaps (sitemaps.org): `<urlset>` and `<sitemapindex>` XML, gzip-compressed or not, and text sitemaps
//! (one URL a line). Read as a stream (quick-xml, no DTD, no entity expansion), within the protocol's limits:
//! 50,000 URLs and 50 MB uncompressed per file. Every `<loc>` becomes an `S`-hop link carrying its entry's
//! `<lastmod>` (W3C datetime), which the crawl keeps on the URI (crawl.log `lastmod:`, the `sitemap_lastmod` rule).

use std::io::Read;

use quick_xml::{NsReader, events::Event, name::ResolveResult};
use url::Url;

use super::{MAX_URL_LEN, Outlink};
use crate::charset::charset_param;
use crate::hop::Hop;
use crate::xml::{self, Depth, resolve_ref};

/// The context of a sitemap index's `<loc>`: a sitemap, which the crawl reads as one when it fetches it.
pub const INDEX_LOC: &str = "sitemapindex/loc";
/// The context of a `<urlset>`'s `<loc>`: a page, extracted as what its type says (a gzip file or a text file
/// a sitemap lists is no sitemap).
pub const PAGE_LOC: &str = "sitemap/loc";
/// The context of a text sitemap's line: a page, as [`PAGE_LOC`].
pub const TEXT_LINE: &str = "sitemap/text";

/// The most URLs one sitemap file may list (sitemaps.org).
pub const MAX_URLS: usize = 50_000;
/// The most bytes one sitemap file may hold, uncompressed (sitemaps.org: 50 MB).
pub const MAX_BYTES: u64 = 50 * 1024 * 1024;

/// What a sitemap gave.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SitemapLinks {
    /// The URLs it lists, as `S` hops: the sitemaps of an index (context [`INDEX_LOC`]) or pages ([`PAGE_LOC`],
    /// [`TEXT_LINE`]).
    pub outlinks: Vec<Outlink>,
    /// What cut its reading short (the first, where more did), if anything: the URLs before it are kept.
    pub cut: Option<SitemapCut>,
}

/// What cut a sitemap's reading short (xt26b F6: a broken sitemap told from one over the protocol's limits).
/// crawl.log annotates such a sitemap `outlinksTrunc,sitemap:LABEL` ([`SitemapCut::label`]), and the log says
/// it in words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SitemapCut {
    /// More than [`MAX_URLS`] URLs listed.
    #[error(
        "the sitemap lists more URLs than sitemaps.org's limit of {MAX_URLS}: the first {MAX_URLS} were read"
    )]
    MaxUrls,
    /// Over [`MAX_BYTES`] bytes, uncompressed.
    #[error(
        "the sitemap is over sitemaps.org's limit of {MAX_BYTES} bytes uncompressed: read up to there"
    )]
    MaxBytes,
    /// Its gzip data does not inflate to the end.
    #[error("the sitemap's gzip data is damaged ({0}): read as far as it inflates")]
    Gzip(String),
    /// Its XML breaks (a bare `&`, a mismatched end tag, elements nested past quick-xml's 65,535 levels).
    #[error("the sitemap's XML breaks at byte {at} ({message}): the URLs before it were read")]
    Xml {
        /// Where in the (uncompressed) document.
        at: u64,
        /// quick-xml's words.
        message: String,
    },
    /// It ends inside its root element.
    #[error(
        "the sitemap ends inside its root element (cut short): the URLs before the end were read"
    )]
    CutShort,
}

impl SitemapCut {
    /// Its crawl.log annotation, after `sitemap:`: `MAX_URLS`, `MAX_BYTES`, `unreadable` (gzip), `xmlError`,
    /// `cutShort`.
    pub fn label(&self) -> &'static str {
        match self {
            SitemapCut::MaxUrls => "MAX_URLS",
            SitemapCut::MaxBytes => "MAX_BYTES",
            SitemapCut::Gzip(_) => "unreadable",
            SitemapCut::Xml { .. } => "xmlError",
            SitemapCut::CutShort => "cutShort",
        }
    }
}

/// How far into a document [`looks_like_sitemap`] looks for the root element past the prolog: room for long
/// generator comments and stylesheet instructions, small enough to be cheap on every page a sitemap lists.
const SNIFF_BYTES: usize = 64 * 1024;

/// Whether `body` (of a URI reached through a sitemap hop) is a sitemap rather than a page: gzip data, XML whose
/// root (past its prolog, UTF-16 too) is `<urlset>` or `<sitemapindex>`, or plain text with URLs. `mime` is
/// the media type, or the whole `Content-Type`.
pub fn looks_like_sitemap(mime: &str, body: &[u8]) -> bool {
    if body.starts_with(&[0x1f, 0x8b]) {
        return true;
    }
    let essence = mime.split(';').next().unwrap_or_default().trim();
    let start = xml::utf8(&body[..body.len().min(SNIFF_BYTES)], charset_param(mime));
    if let Some(root) = xml::root_name(&start, SNIFF_BYTES) {
        return root == "urlset" || root == "sitemapindex";
    }
    // Not well-formed up to its root (text before it, say): the tags near the start tell.
    let head: Vec<u8> = start.iter().take(512).map(u8::to_ascii_lowercase).collect();
    let has = |needle: &[u8]| head.windows(needle.len()).any(|w| w == needle);
    has(b"<urlset")
        || has(b"<sitemapindex")
        || (essence.eq_ignore_ascii_case("text/plain") && has(b"http"))
}

/// The links of the sitemap `body` fetched from `doc_url`. `content_type` is the response's `Content-Type`:
/// its `charset` decides the encoding unless a byte order mark does (RFC 7303); it says nothing of what a
/// gzip file holds.
pub fn sitemap_links(body: &[u8], content_type: Option<&str>, doc_url: &Url) -> SitemapLinks {
    let mut cut = None;
    let gzip = body.starts_with(&[0x1f, 0x8b]);
    let plain: std::borrow::Cow<'_, [u8]> = if gzip {
        let mut out = Vec::new();
        let read = flate2::read::MultiGzDecoder::new(body)
            .take(MAX_BYTES + 1)
            .read_to_end(&mut out);
        if let Err(e) = read {
            cut = Some(SitemapCut::Gzip(e.to_string()));
        } else if out.len() as u64 > MAX_BYTES {
            cut = Some(SitemapCut::MaxBytes);
        }
        out.truncate(MAX_BYTES as usize);
        out.into()
    } else {
        if body.len() as u64 > MAX_BYTES {
            cut = Some(SitemapCut::MaxBytes);
        }
        body[..body.len().min(MAX_BYTES as usize)].into()
    };
    // A UTF-16 sitemap (the protocol asks for UTF-8, some generators write UTF-16) is read decoded.
    let charset = content_type.and_then(charset_param).filter(|_| !gzip);
    let plain = xml::utf8(&plain, charset);
    let mut links = if plain.iter().take(512).any(|&b| b == b'<') {
        xml_locs(&plain, doc_url)
    } else {
        text_lines(&plain, doc_url)
    };
    // What cut the bytes explains what broke after them.
    links.cut = cut.or(links.cut);
    links
}

/// Adds the URL `text` names (resolved against `doc_url`; none over [`MAX_URL_LEN`] bytes, as written or
/// resolved) with `context`; false once [`MAX_URLS`] are kept.
fn push(
    out: &mut SitemapLinks,
    text: &str,
    lastmod: Option<i64>,
    doc_url: &Url,
    context: &'static str,
) -> bool {
    if out.outlinks.len() >= MAX_URLS {
        out.cut.get_or_insert(SitemapCut::MaxUrls);
        return false;
    }
    // An empty `<loc>` (or one that was only a DTD's entity, never expanded) names nothing, not the sitemap.
    if text.trim().is_empty() {
        return true;
    }
    let text = text.trim();
    if text.len() > MAX_URL_LEN {
        return true;
    }
    if let Ok(url) = doc_url.join(text) {
        let mut url = url;
        url.set_fragment(None);
        if matches!(url.scheme(), "http" | "https") && url.as_str().len() <= MAX_URL_LEN {
            out.outlinks.push(Outlink {
                url,
                hop: Hop::Sitemap,
                context,
                lastmod,
            });
        }
    }
    true
}

/// A W3C datetime (the sitemap protocol's `lastmod`: `2026`, `2026-11`, `2026-11-25`, or with a time and a zone)
/// as seconds since the epoch; a date alone is midnight UTC. Two common near-misses are read too, as they are
/// unambiguous: an offset without its colon (`+0000`, PHP's `DATE_ISO8601`) and a date-time without a zone
/// (taken as UTC). Anything else is `None`.
pub fn w3c_datetime(text: &str) -> Option<i64> {
    use chrono::{DateTime, NaiveDate, NaiveDateTime};
    let text = text.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Some(t.timestamp());
    }
    // Minutes without seconds, as the W3C profile allows; `%z` takes `+0000` as well as `+00:00`.
    for format in [
        "%Y-%m-%dT%H:%M%:z",
        "%Y-%m-%dT%H:%M:%S%.f%z",
        "%Y-%m-%dT%H:%M%z",
    ] {
        if let Ok(t) = DateTime::parse_from_str(text, format) {
            return Some(t.timestamp());
        }
    }
    for format in [
        "%Y-%m-%dT%H:%MZ",
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%d %H:%M",
    ] {
        if let Ok(t) = NaiveDateTime::parse_from_str(text, format) {
            return Some(t.and_utc().timestamp());
        }
    }
    let digits = |t: &str| !t.is_empty() && t.len() <= 4 && t.bytes().all(|b| b.is_ascii_digit());
    let parts: Vec<&str> = text.split('-').collect();
    let date = match parts[..] {
        [y] if y.len() == 4 && digits(y) => NaiveDate::from_ymd_opt(y.parse().ok()?, 1, 1),
        // ISO 8601's basic form, `20251125`, which some generators write.
        [d] if d.len() == 8 && d.bytes().all(|b| b.is_ascii_digit()) => NaiveDate::from_ymd_opt(
            d[..4].parse().ok()?,
            d[4..6].parse().ok()?,
            d[6..].parse().ok()?,
        ),
        // Month and day with or without their leading zero (`2025-1-5`).
        [y, m] if y.len() == 4 && digits(y) && m.len() <= 2 && digits(m) => {
            NaiveDate::from_ymd_opt(y.parse().ok()?, m.parse().ok()?, 1)
        }
        [y, m, d]
            if y.len() == 4
                && [y, m, d].into_iter().all(digits)
                && m.len() <= 2
                && d.len() <= 2 =>
        {
            NaiveDate::from_ymd_opt(y.parse().ok()?, m.parse().ok()?, d.parse().ok()?)
        }
        _ => None,
    }?;
    Some(date.and_hms_opt(0, 0, 0)?.and_utc().timestamp())
}

/// Which text element the reader is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Loc,
    Lastmod,
}

/// The namespace an element's name is in, kept past the event that named it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ns {
    None,
    Uri(String),
    /// A prefix no `xmlns:` declared.
    Undeclared(String),
}

impl From<ResolveResult<'_>> for Ns {
    fn from(r: ResolveResult<'_>) -> Self {
        match r {
            ResolveResult::Unbound => Ns::None,
            ResolveResult::Bound(ns) => Ns::Uri(ns.into_inner().to_owned()),
            ResolveResult::Unknown(prefix) => Ns::Undeclared(prefix),
        }
    }
}

/// The state of [`xml_locs`] between events.
struct LocReader<'u> {
    doc_url: &'u Url,
    out: SitemapLinks,
    /// The namespace of the first `urlset`, `sitemapindex`, `url` or `sitemap` (the protocol's, an older one, or
    /// none; until one is seen, none): `url`, `sitemap`, `loc` and `lastmod` count only in it, so an extension's
    /// element (`image:loc` of an image sitemap) is never taken for the entry's own.
    ns: Option<Ns>,
    field: Option<Field>,
    /// The depth of the field's element: only its own text counts, not that of an element inside it.
    field_depth: usize,
    text: String,
    /// Inside a `<url>` or `<sitemap>` entry (the context of its loc), whose loc and lastmod come in either
    /// order.
    entry: Option<&'static str>,
    /// Whether the first protocol element was `<sitemapindex>`: a `<loc>` outside any entry names a sitemap.
    index: bool,
    loc: Option<String>,
    lastmod: Option<i64>,
}

impl LocReader<'_> {
    /// Whether the element named `local` in `ns` is the protocol's `want`.
    fn is(&self, ns: &Ns, local: &str, want: &str) -> bool {
        self.ns.as_ref().unwrap_or(&Ns::None) == ns && local.eq_ignore_ascii_case(want)
    }

    /// Whether text at `depth` belongs to the field being read.
    fn in_field(&self, depth: usize) -> bool {
        self.field.is_some() && self.field_depth == depth
    }

    /// Handles a start tag (which makes the depth `depth`): an entry, or the loc or lastmod of one.
    fn start(&mut self, ns: &Ns, local: &str, depth: usize) {
        let protocol = ["urlset", "sitemapindex", "url", "sitemap"];
        if self.ns.is_none() && protocol.iter().any(|p| local.eq_ignore_ascii_case(p)) {
            self.ns = Some(ns.clone());
            self.index = local.eq_ignore_ascii_case("sitemapindex");
        }
        let url = self.is(ns, local, "url");
        if url || self.is(ns, local, "sitemap") {
            self.entry = Some(if url { PAGE_LOC } else { INDEX_LOC });
            self.loc = None;
            self.lastmod = None;
        } else if self.is(ns, local, "loc") {
            self.field = Some(Field::Loc);
            self.field_depth = depth;
            self.text.clear();
        } else if self.is(ns, local, "lastmod") {
            self.field = Some(Field::Lastmod);
            self.field_depth = depth;
            self.text.clear();
        }
    }

    /// Handles an end tag; false once no more URLs may be taken.
    fn end(&mut self, ns: &Ns, local: &str) -> bool {
        if self.field == Some(Field::Loc) && self.is(ns, local, "loc") {
            self.field = None;
            if self.entry.is_some() {
                self.loc = Some(std::mem::take(&mut self.text));
            } else {
                // A `<loc>` outside any entry: taken as it comes, as what its document lists.
                let context = if self.index { INDEX_LOC } else { PAGE_LOC };
                return push(&mut self.out, &self.text, None, self.doc_url, context);
            }
        } else if self.field == Some(Field::Lastmod) && self.is(ns, local, "lastmod") {
            self.field = None;
            self.lastmod = w3c_datetime(&self.text);
        } else if let Some(context) = self.entry
            && (self.is(ns, local, "url") || self.is(ns, local, "sitemap"))
        {
            self.entry = None;
            if let Some(loc) = self.loc.take() {
                return push(&mut self.out, &loc, self.lastmod, self.doc_url, context);
            }
        }
        true
    }
}

/// `<loc>` texts of XML sitemaps and sitemap indexes, each with its entry's `<lastmod>`. A document that ends
/// inside its root element (cut off) keeps the URLs read and is marked cut, as one that breaks is.
fn xml_locs(xml: &[u8], doc_url: &Url) -> SitemapLinks {
    let mut reader = NsReader::from_reader(xml);
    reader.config_mut().trim_text(true);
    let mut state = LocReader {
        doc_url,
        out: SitemapLinks::default(),
        ns: None,
        field: None,
        field_depth: 0,
        text: String::new(),
        entry: None,
        index: false,
        loc: None,
        lastmod: None,
    };
    let mut depth = Depth::default();
    let mut buf = Vec::new();
    loop {
        let (ns, event) = match reader.read_resolved_event_into(&mut buf) {
            Ok((ns, event)) => (Ns::from(ns), event),
            Err(e) => {
                // quick-xml gives no error position for its nesting limit: where it stopped reading then
                // (xt27b F1: "byte 0").
                let at = match reader.error_position() {
                    0 => reader.buffer_position(),
                    at => at,
                };
                state.out.cut.get_or_insert(SitemapCut::Xml {
                    at,
                    message: e.to_string(),
                });
                break;
            }
        };
        depth.see(&event);
        let in_field = state.in_field(depth.open());
        let more = match event {
            Event::Start(e) => {
                state.start(&ns, e.local_name().as_ref(), depth.open());
                true
            }
            Event::End(e) => state.end(&ns, e.local_name().as_ref()),
            Event::Text(t) if in_field => {
                state.text.push_str(t.as_ref());
                true
            }
            // The five XML entities and character references; a DTD's entity is not expanded.
            Event::GeneralRef(r) if in_field => {
                state.text.extend(resolve_ref(&r));
                true
            }
            Event::CData(t) if in_field => {
                state.text.push_str(&t.into_inner());
                true
            }
            Event::Eof => {
                if depth.open() > 0 {
                    state.out.cut.get_or_insert(SitemapCut::CutShort);
                }
                break;
            }
            _ => true,
        };
        if !more {
            break;
        }
        buf.clear();
    }
    state.out
}

/// Text sitemaps: one absolute URL a line, its scheme in any case. A leading byte order mark (what Windows
/// editors write) is not part of the first line (xt12a F12).
fn text_lines(text: &[u8], doc_url: &Url) -> SitemapLinks {
    let mut out = SitemapLinks::default();
    let text = String::from_utf8_lossy(text);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let starts = |line: &str, scheme: &str| {
        line.get(..scheme.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(scheme))
    };
    for line in text.lines() {
        let line = line.trim();
        if (starts(line, "http://") || starts(line, "https://"))
            && !push(&mut out, line, None, doc_url, TEXT_LINE)
        {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn u() -> Url {
        Url::parse("http://a.org/sitemap.xml").unwrap()
    }

    fn urls(l: &SitemapLinks) -> Vec<&str> {
        l.outlinks.iter().map(|o| o.url.as_str()).collect()
    }

    #[test]
    fn urlsets_indexes_text_and_gzip() {
        let xml =
            br#"<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
            <url><loc> http://a.org/one?x=1&amp;y=2 </loc><lastmod>2026-01-01</lastmod></url>
            <url><loc><![CDATA[http://a.org/two]]></loc></url></urlset>"#;
        let l = sitemap_links(xml, None, &u());
        assert_eq!(urls(&l), ["http://a.org/one?x=1&y=2", "http://a.org/two"]);
        assert!(l.outlinks.iter().all(|o| o.hop == Hop::Sitemap));
        assert_eq!(l.outlinks[0].lastmod, w3c_datetime("2026-01-01T00:00:00Z"));
        assert_eq!(l.outlinks[1].lastmod, None);
        let index =
            br#"<sitemapindex><sitemap><loc>http://a.org/s2.xml.gz</loc></sitemap></sitemapindex>"#;
        assert_eq!(
            urls(&sitemap_links(index, None, &u())),
            ["http://a.org/s2.xml.gz"]
        );
        assert_eq!(
            urls(&sitemap_links(
                b"http://a.org/x\n\nhttps://a.org/y\nnot a url\n",
                None,
                &u()
            )),
            ["http://a.org/x", "https://a.org/y"]
        );
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, xml).unwrap();
        assert_eq!(
            sitemap_links(&gz.finish().unwrap(), None, &u())
                .outlinks
                .len(),
            2
        );
        assert!(looks_like_sitemap("application/xml", xml));
        assert!(!looks_like_sitemap("text/html", b"<html><body>hi"));
    }

    /// xt12a F12: a text sitemap starting with a UTF-8 byte order mark lost its first URL; and `HTTP://`
    /// lines were dropped.
    #[test]
    fn a_text_sitemap_with_a_byte_order_mark_keeps_its_first_url() {
        for body in [
            "\u{feff}http://a.org/bt1\nhttp://a.org/bt2\n",
            "\u{feff}http://a.org/bt1\r\nhttp://a.org/bt2\r\n",
            "HTTP://a.org/bt1\nHttps://a.org/bt2",
        ] {
            let l = sitemap_links(body.as_bytes(), Some("text/plain"), &u());
            let got = urls(&l);
            assert_eq!(got.len(), 2, "{body:?}: {got:?}");
            assert!(got[0].ends_with("//a.org/bt1"), "{body:?}: {got:?}");
        }
    }

    #[test]
    fn lastmod_in_every_w3c_form_and_either_order() {
        let day = 1_764_028_800; // 2025-11-25T00:00:00Z
        for (text, want) in [
            ("2025-11-25", Some(day)),
            ("2025-11-25T01:30:00Z", Some(day + 5400)),
            ("2025-11-25T01:30:00.5+01:00", Some(day + 1800)),
            ("2025-11-25T01:30+01:00", Some(day + 1800)),
            ("2025-11", Some(day - 24 * 86400)),
            ("2025", Some(1_735_689_600)),
            ("yesterday", None),
            ("2025-13-01", None),
            // The tester's near-misses: PHP's DATE_ISO8601 offset, and no zone at all (UTC).
            ("2025-11-25T01:30:00+0000", Some(day + 5400)),
            ("2025-11-25T03:30:00+0200", Some(day + 5400)),
            ("2025-11-25T01:30+0000", Some(day + 5400)),
            ("2025-11-25T01:30:00", Some(day + 5400)),
            ("2025-11-25T01:30:00.250", Some(day + 5400)),
            ("2025-11-25T01:30", Some(day + 5400)),
            ("2025-11-25 01:30:00", Some(day + 5400)),
            // Still garbage.
            ("2025-11-25T25:00:00", None),
            ("2025-11-25T01:30:00+99", None),
            ("2025-11-25T01:30:00 junk", None),
            ("2025-11-25Tnoon", None),
            // Unpadded and basic forms that generators write.
            ("20251125", Some(day)),
            ("2025-11-5", Some(day - 20 * 86400)),
            ("2025-1-01", Some(1_735_689_600)),
            ("2025-9", Some(1_756_684_800)),
            ("20251325", None),
            ("2025-11-255", None),
            ("2025--25", None),
            ("+2025-11-25", None),
            ("", None),
        ] {
            assert_eq!(w3c_datetime(text), want, "{text}");
        }
        let xml = br#"<urlset><url><lastmod>2025-11-25</lastmod><loc>http://a.org/a</loc></url>
            <url><loc>http://a.org/b</loc><lastmod>junk</lastmod></url></urlset>"#;
        let l = sitemap_links(xml, None, &u());
        let got: Vec<_> = l
            .outlinks
            .iter()
            .map(|o| (o.url.as_str(), o.lastmod))
            .collect();
        assert_eq!(
            got,
            [("http://a.org/a", Some(day)), ("http://a.org/b", None)]
        );
    }

    #[test]
    fn hostile_sitemaps_are_bounded() {
        // Entities of a DTD are never expanded (billion laughs).
        let laughs = br#"<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>
            <urlset><url><loc>http://a.org/&b;</loc></url></urlset>"#;
        let l = sitemap_links(laughs, None, &u());
        assert!(urls(&l).iter().all(|x| x.len() < 40), "{:?}", urls(&l));
        // More than 50,000 URLs: cut at the limit.
        let many: String = (0..MAX_URLS + 10)
            .map(|i| format!("http://a.org/{i}\n"))
            .collect();
        let l = sitemap_links(many.as_bytes(), None, &u());
        assert_eq!(l.outlinks.len(), MAX_URLS);
        assert!(l.cut.is_some());
        // A gzip bomb stops at 50 MB uncompressed.
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let zeros = vec![b' '; 1 << 20];
        for _ in 0..60 {
            std::io::Write::write_all(&mut gz, &zeros).unwrap();
        }
        assert!(
            sitemap_links(&gz.finish().unwrap(), None, &u())
                .cut
                .is_some()
        );
    }

    #[test]
    fn an_image_loc_never_replaces_the_page() {
        // The tester's sm-stylesheet.xml (a Yoast-style image sitemap): the page is the entry's URL, the
        // image extension's loc is not followed.
        let xml = br#"<?xml version="1.0" encoding="UTF-8"?><?xml-stylesheet type="text/xsl" href="//a.org/main-sitemap.xsl"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
 xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"><url><loc>http://a.org/s2/styled-page.html</loc><image:image><image:loc>http://a.org/s2/image.jpg</image:loc></image:image>
 <video:video><video:content_loc>http://a.org/v.mp4</video:content_loc><video:player_loc>http://a.org/p</video:player_loc></video:video></url>
 <url><image:image><image:loc>http://a.org/only-image.jpg</image:loc></image:image><loc>http://a.org/after.html</loc></url></urlset>"#;
        let l = sitemap_links(xml, None, &u());
        assert_eq!(
            urls(&l),
            [
                "http://a.org/s2/styled-page.html",
                "http://a.org/after.html"
            ]
        );
        assert!(l.cut.is_none());
        // The protocol's namespace under a prefix, and an older namespace as the default, still count.
        let prefixed = br#"<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc>http://a.org/p</sm:loc></sm:url></sm:urlset>"#;
        assert_eq!(
            urls(&sitemap_links(prefixed, None, &u())),
            ["http://a.org/p"]
        );
        let old = br#"<urlset xmlns="http://www.google.com/schemas/sitemap/0.84"><url><loc>http://a.org/o</loc></url></urlset>"#;
        assert_eq!(urls(&sitemap_links(old, None, &u())), ["http://a.org/o"]);
    }

    #[test]
    fn character_references_in_loc() {
        // The tester's sm-numref.xml: numeric references used to vanish.
        let xml = br#"<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://a.org/s4/q.html?a=1&#38;b=2</loc></url><url><loc>http://a.org/s4/hex&#x26;x.html</loc></url><url><loc>http://a.org/s4/caf&#233;.html</loc></url></urlset>"#;
        assert_eq!(
            urls(&sitemap_links(xml, None, &u())),
            [
                "http://a.org/s4/q.html?a=1&b=2",
                "http://a.org/s4/hex&x.html",
                "http://a.org/s4/caf%C3%A9.html"
            ]
        );
    }

    #[test]
    fn xml_that_breaks_off_is_truncated() {
        // The tester's sm-broken.xml: the end of file inside <urlset> used to read as a complete sitemap.
        let xml = br#"<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://a.org/sm/broken-1.html</loc></url><url><loc>http://a.org/sm/broken-2.html</loc></url><url><loc>http://a.org/sm/bro"#;
        let l = sitemap_links(xml, None, &u());
        assert_eq!(
            urls(&l),
            [
                "http://a.org/sm/broken-1.html",
                "http://a.org/sm/broken-2.html"
            ]
        );
        assert!(l.cut.is_some());
        let cut_after_an_entry = br#"<urlset><url><loc>http://a.org/1</loc></url>"#;
        assert!(sitemap_links(cut_after_an_entry, None, &u()).cut.is_some());
        let whole = br#"<urlset><url><loc>http://a.org/1</loc></url></urlset>"#;
        assert!(sitemap_links(whole, None, &u()).cut.is_none());
    }

    /// xt26b F6: what cut a sitemap is told apart: a bare `&`, elements nested past quick-xml's limit, the
    /// end inside the root, the 50,000-URL cap, damaged gzip.
    #[test]
    fn what_cut_a_sitemap_is_named() {
        let label = |body: &[u8]| sitemap_links(body, None, &u()).cut.map(|c| c.label());
        let entry = |i: usize| format!("<url><loc>http://a.org/{i}</loc></url>");
        let bare_amp = format!(
            "<urlset>{}<url><loc>http://a.org/?a=1&b=2</loc></url>{}</urlset>",
            entry(1),
            entry(3)
        );
        let l = sitemap_links(bare_amp.as_bytes(), None, &u());
        assert_eq!(urls(&l), ["http://a.org/1"]);
        let Some(SitemapCut::Xml { at, message }) = &l.cut else {
            panic!("{:?}", l.cut)
        };
        assert!(*at > 40 && *at < 80, "{at} {message}");
        assert_eq!(
            label(b"<urlset><url><loc>http://a.org/1</loc></url>"),
            Some("cutShort")
        );
        let deep = format!(
            "<urlset>{}{}{}{}</urlset>",
            entry(1),
            "<a>".repeat(70_000),
            "</a>".repeat(70_000),
            entry(2)
        );
        let Some(SitemapCut::Xml { at, .. }) = sitemap_links(deep.as_bytes(), None, &u()).cut
        else {
            panic!("not an XML error")
        };
        assert!(at > 65_000 * 3, "{at}");
        let many: String = (0..=MAX_URLS).map(entry).collect();
        assert_eq!(
            label(format!("<urlset>{many}</urlset>").as_bytes()),
            Some("MAX_URLS")
        );
        let lines: String = (0..=MAX_URLS)
            .map(|i| format!("http://a.org/{i}\n"))
            .collect();
        assert_eq!(label(lines.as_bytes()), Some("MAX_URLS"));
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, format!("<urlset>{}</urlset>", entry(1)).as_bytes())
            .unwrap();
        let mut gz = gz.finish().unwrap();
        let n = gz.len();
        gz.truncate(n - 6);
        assert_eq!(label(&gz), Some("unreadable"));
        assert_eq!(
            label(format!("<urlset>{}</urlset>", entry(1)).as_bytes()),
            None
        );
    }

    #[test]
    fn a_long_prolog_is_looked_past() {
        // The tester's sm-longprolog.xml: an 800-byte generator comment before <urlset>.
        let comment = "Generated by SomeSitemapPlugin. ".repeat(25);
        let xml = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- {comment} -->\n\
             <?xml-stylesheet type=\"text/xsl\" href=\"/s.xsl\"?>\n\
             <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>http://a.org/s2/longprolog-page.html</loc></url></urlset>"
        );
        assert!(looks_like_sitemap("text/xml", xml.as_bytes()));
        assert_eq!(
            urls(&sitemap_links(xml.as_bytes(), None, &u())),
            ["http://a.org/s2/longprolog-page.html"]
        );
        let html = format!("<!DOCTYPE html><!-- {comment} --><html><body>hi</body></html>");
        assert!(!looks_like_sitemap("text/html", html.as_bytes()));
        // A prolog past the bound is not read through.
        let huge = format!("<!-- {} --><urlset>", "x".repeat(SNIFF_BYTES));
        assert!(!looks_like_sitemap("text/xml", huge.as_bytes()));
    }

    #[test]
    fn utf16_sitemaps_are_decoded() {
        // The tester's sm-utf16.xml: UTF-16LE with a byte order mark; big-endian too.
        let text = r#"<?xml version="1.0" encoding="UTF-16"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://a.org/sm/utf16-page.html</loc></url></urlset>"#;
        let le: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let be: Vec<u8> = [0xFE, 0xFF]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        for body in [le, be] {
            assert!(looks_like_sitemap("application/xml", &body));
            let l = sitemap_links(&body, None, &u());
            assert_eq!(urls(&l), ["http://a.org/sm/utf16-page.html"]);
            assert!(l.cut.is_none());
        }
    }

    /// The tester's sm.xml in ISO-8859-1: the entries after the one with `é` used to be lost (and the sitemap
    /// marked truncated).
    #[test]
    fn legacy_encodings_are_decoded() {
        let xml = b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
            <url><loc>http://a.org/before</loc></url><url><loc>http://a.org/caf\xe9</loc></url>\
            <url><loc>http://a.org/after1</loc></url></urlset>";
        assert!(looks_like_sitemap("application/xml", xml));
        let l = sitemap_links(xml, None, &u());
        assert_eq!(
            urls(&l),
            [
                "http://a.org/before",
                "http://a.org/caf%C3%A9",
                "http://a.org/after1"
            ]
        );
        assert!(l.cut.is_none());
        // Undeclared and not UTF-8: read all the same.
        let stray = b"<urlset><url><loc>http://a.org/\xe9</loc></url><url><loc>http://a.org/2</loc></url></urlset>";
        let l = sitemap_links(stray, None, &u());
        assert_eq!(l.outlinks.len(), 2);
        assert!(l.cut.is_none());
    }

    /// An index's `<loc>`s name sitemaps, a urlset's and a text sitemap's name pages: the crawl reads only the
    /// first as sitemaps.
    #[test]
    fn index_locs_are_told_from_page_locs() {
        let contexts = |body: &[u8]| -> Vec<&'static str> {
            sitemap_links(body, None, &u())
                .outlinks
                .iter()
                .map(|o| o.context)
                .collect()
        };
        let index = br#"<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>/s1.xml.gz</loc></sitemap><loc>/loose.xml</loc></sitemapindex>"#;
        assert_eq!(contexts(index), [INDEX_LOC, INDEX_LOC]);
        let urlset = br#"<urlset><url><loc>/p.html</loc></url><url><loc>/data.gz</loc></url><loc>/loose</loc></urlset>"#;
        assert_eq!(contexts(urlset), [PAGE_LOC, PAGE_LOC, PAGE_LOC]);
        assert_eq!(
            contexts(
                b"http://a.org/notes.txt
"
            ),
            [TEXT_LINE]
        );
    }

    /// A sitemap served `charset=iso-8859-1` with no encoding in its XML declaration: the header decides (the
    /// `é` used to be read as UTF-8, U+FFFD); a text sitemap too. A gzip file's type says nothing of its content.
    #[test]
    fn the_http_charset_decides_without_a_declaration() {
        let ct = Some("application/xml; charset=iso-8859-1");
        let xml = b"<?xml version=\"1.0\"?><urlset><url><loc>http://a.org/caf\xe9</loc></url><url><loc>http://a.org/after</loc></url></urlset>";
        let l = sitemap_links(xml, ct, &u());
        assert_eq!(urls(&l), ["http://a.org/caf%C3%A9", "http://a.org/after"]);
        assert!(l.cut.is_none());
        assert_eq!(
            urls(&sitemap_links(
                b"http://a.org/na\xefve\n",
                Some("text/plain; charset=latin1"),
                &u()
            )),
            ["http://a.org/na%C3%AFve"]
        );
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(
            &mut gz,
            "<urlset><url><loc>http://a.org/\u{e9}t\u{e9}</loc></url></urlset>".as_bytes(),
        )
        .unwrap();
        let gz = gz.finish().unwrap();
        assert_eq!(
            urls(&sitemap_links(
                &gz,
                Some("application/gzip; charset=iso-8859-1"),
                &u()
            )),
            ["http://a.org/%C3%A9t%C3%A9"]
        );
    }

    /// A `<loc>` over MAX_URL_LEN bytes (as written, or once its `é`s are percent-encoded) is dropped; the
    /// entries around it are kept.
    #[test]
    fn overlong_locs_are_dropped() {
        let long = format!("http://a.org/sm-long-{}", "a".repeat(20_000));
        let encoded = format!("/sm-e-{}", "\u{e9}".repeat(3000));
        let xml = format!(
            "<urlset><url><loc>{long}</loc></url><url><loc>{encoded}</loc></url><url><loc>http://a.org/ok</loc></url></urlset>"
        );
        let l = sitemap_links(xml.as_bytes(), None, &u());
        assert_eq!(urls(&l), ["http://a.org/ok"]);
        assert!(l.cut.is_none());
        let text = format!("{long}\nhttp://a.org/t\n");
        assert_eq!(
            urls(&sitemap_links(text.as_bytes(), None, &u())),
            ["http://a.org/t"]
        );
    }

    proptest! {
        /// Any text: a date or none, never a panic.
        #[test]
        fn any_lastmod_text_reads_cleanly(text in "[0-9T:+Z. -]{0,30}") {
            let _ = w3c_datetime(&text);
        }

        #[test]
        fn any_bytes_read_or_stop_cleanly(
            body in proptest::collection::vec(any::<u8>(), 0..400),
            content_type in proptest::option::of(proptest::sample::select(vec![
                "text/xml; charset=iso-8859-1", "application/xml;charset=\"utf-16\"", "text/plain; charset=shift_jis",
                "text/xml; charset=nonsense", "application/xml; charset=",
            ])),
        ) {
            let l = sitemap_links(&body, content_type, &u());
            prop_assert!(l.outlinks.len() <= MAX_URLS);
            let _ = looks_like_sitemap(content_type.unwrap_or_default(), &body);
        }

        /// A text sitemap's URLs are all read whatever its line ends, scheme case and byte order mark.
        #[test]
        fn every_line_of_a_text_sitemap_is_read(
            paths in proptest::collection::vec("[a-z0-9]{1,8}", 1..20),
            bom in any::<bool>(),
            crlf in any::<bool>(),
            upper in any::<bool>(),
        ) {
            let scheme = if upper { "HTTP://" } else { "http://" };
            let end = if crlf { "\r\n" } else { "\n" };
            let mut body = String::from(if bom { "\u{feff}" } else { "" });
            for p in &paths {
                body.push_str(&format!("{scheme}a.org/{p}{end}"));
            }
            let l = sitemap_links(body.as_bytes(), Some("text/plain"), &u());
            let want: Vec<String> = paths.iter().map(|p| format!("http://a.org/{p}")).collect();
            prop_assert_eq!(urls(&l), want);
        }

        #[test]
        fn sitemap_like_xml_reads_cleanly(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" xmlns:image=\"i\">", "</urlset>",
                "<url>", "</url>", "<loc>", "</loc>", "<image:loc>http://a.org/image.jpg</image:loc>", "<lastmod>2026</lastmod>",
                "http://a.org/x", "&amp;", "&#38;", "&#x26;", "&#0;", "&e;", "<!-- c -->", "<?pi x?>",
                "\u{FEFF}", "\0",
            ]), 0..40),
            utf16 in any::<bool>(),
        ) {
            let text = parts.concat();
            let body: Vec<u8> = if utf16 {
                [0xFF, 0xFE].into_iter().chain(text.encode_utf16().flat_map(u16::to_le_bytes)).collect()
            } else {
                text.into_bytes()
            };
            let _ = looks_like_sitemap("application/xml", &body);
            let l = sitemap_links(&body, None, &u());
            prop_assert!(l.outlinks.iter().all(|o| !o.url.path().contains("image")));
        }
    }
}
