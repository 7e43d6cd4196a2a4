//! RSS and Atom feeds: the links of their items (RSS `<link>` text and permalink `<guid>`, Atom `<link href>`) and their enclosures
//! (`<enclosure url>`, Atom `rel="enclosure"`), as `L` hops. Read as a stream (quick-xml; no DTD entity is
//! expanded), up to the page's outlink limit. Relative links resolve against `xml:base` (RFC 4287 §2).

use std::collections::HashSet;

use quick_xml::{
    Reader,
    events::{BytesStart, Event},
};
use url::Url;

use super::{MAX_URL_LEN, Outlink};
use crate::charset::charset_param;
use crate::hop::Hop;
use crate::xml::{self, Depth, resolve_ref};

/// Whether `body` (served as `mime`, a media type or a whole `Content-Type`) is an RSS, RDF or Atom feed.
pub fn looks_like_feed(mime: &str, body: &[u8]) -> bool {
    let essence = mime
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let xml_type = matches!(
        essence.as_str(),
        "application/rss+xml"
            | "application/atom+xml"
            | "application/rdf+xml"
            | "application/xml"
            | "text/xml"
    );
    if !xml_type {
        return false;
    }
    // The root element, past the prolog (a generator's comment, a stylesheet instruction), in UTF-16 too.
    let start = xml::utf8(&body[..body.len().min(SNIFF_BYTES)], charset_param(mime));
    if let Some(root) = xml::root_name(&start, SNIFF_BYTES) {
        return matches!(root.as_str(), "rss" | "feed" | "rdf");
    }
    // Not well-formed up to its root: the tags near the start tell.
    let head: Vec<u8> = start
        .iter()
        .take(1024)
        .map(u8::to_ascii_lowercase)
        .collect();
    let has = |needle: &[u8]| head.windows(needle.len()).any(|w| w == needle);
    has(b"<rss") || has(b"<feed") || has(b"<rdf:rdf")
}

/// How far into a document its root element is looked for.
const SNIFF_BYTES: usize = 64 * 1024;

/// The item links and enclosures of the feed `body` fetched from `doc_url`, at most `max`; the flag says the
/// limit (or broken XML, or XML that ends inside its root) cut them short. Relative links resolve against the
/// `xml:base` in force where they stand (RFC 4287 §2, XML Base), else against `doc_url`. `content_type` is
/// the response's `Content-Type`: its `charset` decides the encoding unless a byte order mark does (RFC 7303).
pub fn feed_links(
    body: &[u8],
    content_type: Option<&str>,
    doc_url: &Url,
    max: usize,
) -> (Vec<Outlink>, bool) {
    let body = xml::utf8(body, content_type.and_then(charset_param));
    let mut reader = Reader::from_reader(&body[..]);
    reader.config_mut().trim_text(true);
    let mut feed = FeedReader {
        doc_url,
        max,
        out: Vec::new(),
        seen: HashSet::new(),
        bases: Vec::new(),
        depth: Depth::default(),
        in_text: None,
        text: String::new(),
    };
    let mut buf = Vec::new();
    let truncated = loop {
        let keep_going = match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) => feed.open(&e, true),
            Ok(Event::Empty(e)) => feed.open(&e, false),
            Ok(Event::Text(t)) if feed.in_text.is_some() => {
                feed.text.push_str(t.as_ref());
                true
            }
            Ok(Event::GeneralRef(r)) if feed.in_text.is_some() => {
                feed.text.extend(resolve_ref(&r));
                true
            }
            Ok(Event::CData(t)) if feed.in_text.is_some() => {
                feed.text.push_str(&t.into_inner());
                true
            }
            Ok(Event::End(e)) => feed.close(e.local_name().as_ref()),
            Ok(Event::Eof) => break feed.depth.open() > 0,
            Err(_) => break true,
            Ok(_) => true,
        };
        if !keep_going {
            break true;
        }
        buf.clear();
    };
    (feed.out, truncated)
}

/// The state of [`feed_links`] between events.
struct FeedReader<'u> {
    doc_url: &'u Url,
    max: usize,
    out: Vec<Outlink>,
    /// The URLs in `out`, to drop a repeat in constant time (a scan of `out` made a big feed quadratic).
    seen: HashSet<Url>,
    /// The `xml:base` of each open element that has one, with its depth; the last is in force.
    bases: Vec<(usize, Url)>,
    depth: Depth,
    /// Inside an RSS `<link>` or permalink `<guid>` (its element name), whose text is gathered in `text`.
    in_text: Option<&'static str>,
    text: String,
}

impl FeedReader<'_> {
    /// The base URL in force.
    fn base(&self) -> &Url {
        self.bases.last().map_or(self.doc_url, |(_, base)| base)
    }

    /// Handles a start tag (`start`) or an empty element; false once the limit is reached.
    fn open(&mut self, e: &BytesStart<'_>, start: bool) -> bool {
        // An element's own xml:base applies to its attributes and its content.
        let own_base = xml_base(e).and_then(|b| self.base().join(&b).ok());
        let base = own_base.clone().unwrap_or_else(|| self.base().clone());
        if start {
            if let Some(own) = own_base {
                self.bases.push((self.depth.open(), own));
            }
            self.depth.enter();
        }
        let name = e.local_name().as_ref().to_ascii_lowercase();
        match name.as_str() {
            "link" => match attr(e, "href") {
                // Atom: <link href=… rel=…/>, any rel but the feed's own (`self`).
                Some(href) if attr(e, "rel").as_deref() != Some("self") => {
                    self.add(&href, "feed/link", &base)
                }
                Some(_) => true,
                None => {
                    // RSS: <link>URL</link>
                    self.in_text = start.then_some("link");
                    self.text.clear();
                    true
                }
            },
            // RSS 2.0: an item's `<guid>` is its permalink unless `isPermaLink="false"`; feed readers open it
            // when the item has no `<link>`. Taken only when it is an absolute URL (many are opaque ids).
            "guid" if attr(e, "isPermaLink").as_deref() != Some("false") => {
                self.in_text = start.then_some("guid");
                self.text.clear();
                true
            }
            "enclosure" => match attr(e, "url") {
                Some(u) => self.add(&u, "feed/enclosure", &base),
                None => true,
            },
            _ => true,
        }
    }

    /// Handles an end tag: an RSS link's text is taken (against its element's base), then the element's
    /// base goes out of force.
    fn close(&mut self, local: &str) -> bool {
        let mut keep_going = true;
        match self.in_text {
            Some(name) if local.eq_ignore_ascii_case(name) => {
                self.in_text = None;
                let (text, base) = (std::mem::take(&mut self.text), self.base().clone());
                keep_going = match name {
                    "guid" if Url::parse(text.trim()).is_err() => true,
                    "guid" => self.add(&text, "feed/guid", &base),
                    _ => self.add(&text, "feed/link", &base),
                };
            }
            _ => {}
        }
        self.depth.leave();
        let open = self.depth.open();
        while self.bases.last().is_some_and(|(depth, _)| *depth >= open) {
            self.bases.pop();
        }
        keep_going
    }

    /// Adds `href`, resolved against `base` (none over [`MAX_URL_LEN`] bytes, as written or resolved); false
    /// once `max` links are kept.
    fn add(&mut self, href: &str, context: &'static str, base: &Url) -> bool {
        if self.out.len() >= self.max {
            return false;
        }
        let href = href.trim();
        if href.len() > MAX_URL_LEN {
            return true;
        }
        if let Ok(mut url) = base.join(href) {
            url.set_fragment(None);
            if matches!(url.scheme(), "http" | "https")
                && url.as_str().len() <= MAX_URL_LEN
                && self.seen.insert(url.clone())
            {
                self.out.push(Outlink {
                    url,
                    hop: Hop::Link,
                    context,
                    lastmod: None,
                });
            }
        }
        true
    }
}

/// The value of the attribute of `e` whose local name is `key` (any prefix, any case), unescaped.
fn attr(e: &BytesStart<'_>, key: &str) -> Option<String> {
    e.attributes().flatten().find_map(|a| {
        a.key
            .local_name()
            .as_ref()
            .eq_ignore_ascii_case(key)
            .then(|| {
                a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                    .ok()
                    .map(|v| v.into_owned())
            })
            .flatten()
    })
}

/// The `xml:base` attribute of `e`, unescaped.
fn xml_base(e: &BytesStart<'_>) -> Option<String> {
    e.attributes().flatten().find_map(|a| {
        (a.key.as_ref() == "xml:base")
            .then(|| {
                a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                    .ok()
                    .map(|v| v.into_owned())
            })
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn u() -> Url {
        Url::parse("http://a.org/feed.xml").unwrap()
    }

    #[test]
    fn rss_permalink_guids() {
        let body = br#"<rss><channel>
            <item><guid>http://a.org/guid-only</guid></item>
            <item><guid isPermaLink="true">http://a.org/p/2</guid><link>http://a.org/p/2</link></item>
            <item><guid isPermaLink="false">http://a.org/not-a-permalink</guid></item>
            <item><guid>tag:a.org,2024:opaque-id</guid></item>
            <item><guid>relative-id-42</guid></item>
        </channel></rss>"#;
        let (links, truncated) =
            feed_links(body, None, &Url::parse("http://a.org/feed").unwrap(), 100);
        assert!(!truncated);
        let urls: Vec<&str> = links.iter().map(|l| l.url.as_str()).collect();
        assert_eq!(urls, ["http://a.org/guid-only", "http://a.org/p/2"]);
        assert_eq!(links[0].context, "feed/guid");
    }

    #[test]
    fn rss_and_atom_items_and_enclosures() {
        let rss = br#"<?xml version="1.0"?><rss version="2.0"><channel><link>http://a.org/</link>
            <item><link>http://a.org/post/1</link><enclosure url="http://a.org/ep1.mp3" type="audio/mpeg"/></item>
            <item><link><![CDATA[/post/2]]></link></item></channel></rss>"#;
        assert!(looks_like_feed("application/rss+xml", rss));
        let (links, cut) = feed_links(rss, None, &u(), 100);
        let urls: Vec<&str> = links.iter().map(|o| o.url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "http://a.org/",
                "http://a.org/post/1",
                "http://a.org/ep1.mp3",
                "http://a.org/post/2"
            ]
        );
        assert!(!cut && links.iter().all(|o| o.hop == Hop::Link));
        let atom =
            br#"<feed xmlns="http://www.w3.org/2005/Atom"><link rel="self" href="/feed.xml"/>
            <entry><link href="/e/1"/><link rel="enclosure" href="/e/1.ogg"/></entry></feed>"#;
        assert!(looks_like_feed("application/atom+xml; charset=utf-8", atom));
        let urls: Vec<String> = feed_links(atom, None, &u(), 100)
            .0
            .iter()
            .map(|o| o.url.to_string())
            .collect();
        assert_eq!(urls, ["http://a.org/e/1", "http://a.org/e/1.ogg"]);
        assert!(!looks_like_feed("text/html", b"<html><feed>"));
        let (links, cut) = feed_links(rss, None, &u(), 2);
        assert_eq!(links.len(), 2);
        assert!(cut);
    }

    fn urls(body: &[u8]) -> Vec<String> {
        feed_links(body, None, &u(), 100)
            .0
            .iter()
            .map(|o| o.url.to_string())
            .collect()
    }

    #[test]
    fn references_in_rss_links_are_resolved() {
        // The tester's feed-amp.rss: `&amp;` and `&#38;` used to be dropped from the link text.
        let rss = br#"<?xml version="1.0"?><rss version="2.0"><channel><item><link>http://a.org/f3/item.html?a=1&amp;b=2</link></item><item><link>http://a.org/f3/cat&amp;dog.html</link></item><item><link>http://a.org/f3/lt&lt;gt.html</link></item><item><link>http://a.org/f3/num&#38;ref.html</link></item><item><link>http://a.org/f3/hex&#x26;caf&#233;.html</link></item></channel></rss>"#;
        assert_eq!(
            urls(rss),
            [
                "http://a.org/f3/item.html?a=1&b=2",
                "http://a.org/f3/cat&dog.html",
                "http://a.org/f3/lt%3Cgt.html",
                "http://a.org/f3/num&ref.html",
                "http://a.org/f3/hex&caf%C3%A9.html"
            ]
        );
    }

    #[test]
    fn a_long_prolog_and_utf16_are_read_past() {
        let comment = format!("<!-- {} -->", "generated by a feed generator ".repeat(60));
        let rss = format!(
            "<?xml version=\"1.0\"?>\n{comment}\n<?xml-stylesheet href=\"s.xsl\"?>\n<rss><channel><item><link>http://a.org/x</link></item></channel></rss>"
        );
        assert!(looks_like_feed("application/rss+xml", rss.as_bytes()));
        assert!(!looks_like_feed(
            "text/xml",
            b"<?xml version=\"1.0\"?><urlset></urlset>"
        ));
        let mut utf16 = vec![0xff, 0xfe];
        for unit in rss.encode_utf16() {
            utf16.extend_from_slice(&unit.to_le_bytes());
        }
        assert!(looks_like_feed("application/rss+xml", &utf16));
        assert_eq!(urls(&utf16), ["http://a.org/x"]);
    }

    #[test]
    fn atom_xml_base_is_honoured() {
        // The tester's feed.atom: xml:base on the feed; nested and relative ones on entries and links.
        let atom = br#"<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://b.org/atombase/"><link rel="self" href="http://a.org/feed.atom"/>
<entry><link rel="alternate" type="text/html" href="relative-entry.html"/></entry>
<entry xml:base="sub/"><link href="e2.html"/><link xml:base="/root/" rel="enclosure" href="e2.mp3"/></entry>
<entry><link href="after.html"/></entry></feed>
<feed><link href="outside.html"/></feed>"#;
        assert_eq!(
            urls(atom),
            [
                "http://b.org/atombase/relative-entry.html",
                "http://b.org/atombase/sub/e2.html",
                "http://b.org/root/e2.mp3",
                "http://b.org/atombase/after.html",
                "http://a.org/outside.html"
            ]
        );
        let rss = br#"<rss xml:base="http://b.org/r/"><channel><item><link>item.html</link></item></channel></rss>"#;
        assert_eq!(urls(rss), ["http://b.org/r/item.html"]);
    }

    #[test]
    fn a_feed_that_breaks_off_is_truncated() {
        let cut =
            br#"<rss><channel><item><link>http://a.org/1</link></item><item><link>http://a.org/2"#;
        let (links, truncated) = feed_links(cut, None, &u(), 100);
        assert_eq!(links.len(), 1);
        assert!(truncated);
        let whole = br#"<rss><channel><item><link>http://a.org/1</link></item></channel></rss>"#;
        assert!(!feed_links(whole, None, &u(), 100).1);
    }

    /// The tester's feed.rss in ISO-8859-1: every link is read (quick-xml used to stop at the title's `é` and
    /// the feed was marked truncated); so is a UTF-8 feed with one stray windows-1252 byte.
    #[test]
    fn legacy_encodings_are_decoded() {
        let latin1 = b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<rss version=\"2.0\"><channel>\
            <title>Caf\xe9 news</title><link>http://a.org/</link><item><title>Premi\xe8re</title>\
            <link>http://a.org/feed-item1</link></item><item><link>http://a.org/caf\xe9</link></item>\
            </channel></rss>";
        let (links, cut) = feed_links(latin1, None, &u(), 100);
        let got: Vec<&str> = links.iter().map(|o| o.url.as_str()).collect();
        assert_eq!(
            got,
            [
                "http://a.org/",
                "http://a.org/feed-item1",
                "http://a.org/caf%C3%A9"
            ]
        );
        assert!(!cut);
        let stray = b"<rss><channel><title>It\x92s</title><item><link>http://a.org/1</link></item></channel></rss>";
        let (links, cut) = feed_links(stray, None, &u(), 100);
        assert_eq!(links.len(), 1);
        assert!(!cut);
        assert!(looks_like_feed("application/rss+xml", latin1));
    }

    /// A feed served `charset=iso-8859-1` with no encoding in its XML declaration: every entry is read with its
    /// own characters (the header used to be ignored: `é` read as UTF-8 became U+FFFD, `%EF%BF%BD`).
    #[test]
    fn the_http_charset_decides_without_a_declaration() {
        let rss = b"<?xml version=\"1.0\"?><rss><channel><title>Caf\xe9</title>\
            <item><link>http://a.org/caf\xe9</link></item><item><link>http://a.org/after</link></item></channel></rss>";
        let content_type = "application/rss+xml; charset=iso-8859-1";
        assert!(looks_like_feed(content_type, rss));
        let ct = Some(content_type);
        let (links, cut) = feed_links(rss, ct, &u(), 100);
        let got: Vec<&str> = links.iter().map(|o| o.url.as_str()).collect();
        assert_eq!(got, ["http://a.org/caf%C3%A9", "http://a.org/after"]);
        assert!(!cut);
        // A byte order mark beats the header.
        let bom = b"\xef\xbb\xbf<rss><channel><item><link>http://a.org/\xc3\xa9</link></item></channel></rss>";
        let (links, _) = feed_links(bom, ct, &u(), 100);
        assert_eq!(links[0].url.as_str(), "http://a.org/%C3%A9");
    }

    /// A link over MAX_URL_LEN bytes (as written, or once resolved and percent-encoded) is dropped.
    #[test]
    fn overlong_links_are_dropped() {
        let long = format!("http://a.org/feed-long-{}", "a".repeat(20_000));
        let encoded = format!("/feed-e-{}", "\u{e9}".repeat(3000));
        let rss = format!(
            "<rss><channel><item><link>{long}</link><enclosure url=\"{encoded}\"/></item>\
             <item><link>http://a.org/ok</link></item></channel></rss>"
        );
        assert_eq!(urls(rss.as_bytes()), ["http://a.org/ok"]);
    }

    /// The tester's 100,000-item feed with `max_outlinks` raised: deduplication is a hash lookup, not a scan of
    /// the links kept (which made it quadratic: minutes of CPU). Generous bound for a loaded debug build.
    #[test]
    fn a_big_feed_reads_in_linear_time() {
        let n = 100_000;
        let mut rss = String::from("<rss><channel>");
        for i in 0..n {
            rss.push_str(&format!("<item><link>http://a.org/item/{i}</link></item>"));
        }
        rss.push_str("<item><link>http://a.org/item/7</link></item></channel></rss>");
        let started = std::time::Instant::now();
        let (links, cut) = feed_links(rss.as_bytes(), None, &u(), usize::MAX);
        let took = started.elapsed();
        assert_eq!(links.len(), n);
        assert!(!cut);
        assert!(took < std::time::Duration::from_secs(20), "{took:?}");
    }

    proptest! {
        #[test]
        fn any_bytes_read_or_stop_cleanly(
            body in proptest::collection::vec(any::<u8>(), 0..400),
            content_type in proptest::option::of(proptest::sample::select(vec![
                "text/xml; charset=iso-8859-1", "application/rss+xml;charset=\"utf-16be\"", "text/xml; charset=euc-jp",
                "text/xml; charset=nonsense",
            ])),
        ) {
            let (links, _) = feed_links(&body, content_type, &u(), 10);
            prop_assert!(links.len() <= 10);
        }

        #[test]
        fn feed_like_xml_reads_cleanly(parts in proptest::collection::vec(proptest::sample::select(vec![
            "<feed xml:base=\"http://b.org/x/\">", "</feed>", "<entry xml:base=\"y/\">", "<entry xml:base=\"::\">",
            "<entry>", "</entry>", "<link href=\"a.html\"/>", "<link xml:base=\"/z/\" href=\"b\"/>", "<link>",
            "</link>", "item.html", "&amp;", "&#38;", "&#0;", "&e;", "<![CDATA[c]]>",
        ]), 0..40)) {
            let (links, _) = feed_links(parts.concat().as_bytes(), None, &u(), 10);
            prop_assert!(links.len() <= 10);
        }
    }
}
