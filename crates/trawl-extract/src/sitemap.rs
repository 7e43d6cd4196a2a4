//! Sitemaps (sitemaps.org): `<urlset>` and `<sitemapindex>` XML, gzip-compressed or not, and text sitemaps
//! (one URL a line). Read as a stream (quick-xml, no DTD, no entity expansion), within the protocol's limits:
//! 50,000 URLs and 50 MB uncompressed per file. Every `<loc>` becomes an `S`-hop link carrying its entry's
//! `<lastmod>` (W3C datetime), which the crawl keeps on the URI (crawl.log `lastmod:`, the `sitemap_lastmod` rule).

use std::io::Read;

use quick_xml::{Reader, events::Event};
use url::Url;

use super::Outlink;
use crate::hop::Hop;

/// The most URLs one sitemap file may list (sitemaps.org).
pub const MAX_URLS: usize = 50_000;
/// The most bytes one sitemap file may hold, uncompressed (sitemaps.org: 50 MB).
pub const MAX_BYTES: u64 = 50 * 1024 * 1024;

/// What a sitemap gave.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SitemapLinks {
    /// The URLs it lists (pages, or the sitemaps of an index), as `S` hops.
    pub outlinks: Vec<Outlink>,
    /// Whether a limit cut it short (or the XML broke off): the URLs before it are kept.
    pub truncated: bool,
}

/// Whether `body` (of a URI reached through a sitemap hop) is a sitemap rather than a page.
pub fn looks_like_sitemap(mime: &str, body: &[u8]) -> bool {
    let head: Vec<u8> = body.iter().take(512).map(u8::to_ascii_lowercase).collect();
    let has = |needle: &[u8]| head.windows(needle.len()).any(|w| w == needle);
    body.starts_with(&[0x1f, 0x8b])
        || has(b"<urlset")
        || has(b"<sitemapindex")
        || (mime.eq_ignore_ascii_case("text/plain") && has(b"http"))
}

/// The links of the sitemap `body` fetched from `doc_url`.
pub fn sitemap_links(body: &[u8], doc_url: &Url) -> SitemapLinks {
    let mut truncated = false;
    let plain: std::borrow::Cow<'_, [u8]> = if body.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        let read = flate2::read::MultiGzDecoder::new(body)
            .take(MAX_BYTES + 1)
            .read_to_end(&mut out);
        truncated |= read.is_err() || out.len() as u64 > MAX_BYTES;
        out.truncate(MAX_BYTES as usize);
        out.into()
    } else {
        if body.len() as u64 > MAX_BYTES {
            truncated = true;
        }
        body[..body.len().min(MAX_BYTES as usize)].into()
    };
    let mut links = if plain.iter().take(512).any(|&b| b == b'<') {
        xml_locs(&plain, doc_url)
    } else {
        text_lines(&plain, doc_url)
    };
    links.truncated |= truncated;
    links
}

fn push(out: &mut SitemapLinks, text: &str, lastmod: Option<i64>, doc_url: &Url) -> bool {
    if out.outlinks.len() >= MAX_URLS {
        out.truncated = true;
        return false;
    }
    if let Ok(url) = doc_url.join(text.trim()) {
        let mut url = url;
        url.set_fragment(None);
        if matches!(url.scheme(), "http" | "https") {
            out.outlinks.push(Outlink {
                url,
                hop: Hop::Sitemap,
                context: "sitemap/loc",
                lastmod,
            });
        }
    }
    true
}

/// A W3C datetime (the sitemap protocol's `lastmod`: `2026`, `2026-11`, `2026-11-25`, or with a time and a zone)
/// as seconds since the epoch; a date alone is midnight UTC.
pub fn w3c_datetime(text: &str) -> Option<i64> {
    use chrono::{DateTime, NaiveDate};
    let text = text.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Some(t.timestamp());
    }
    // Minutes without seconds, as the W3C profile allows.
    for format in ["%Y-%m-%dT%H:%M%:z", "%Y-%m-%dT%H:%MZ"] {
        if let Ok(t) = DateTime::parse_from_str(text, format) {
            return Some(t.timestamp());
        }
        if let Ok(t) = chrono::NaiveDateTime::parse_from_str(text, format) {
            return Some(t.and_utc().timestamp());
        }
    }
    let date = match text.len() {
        4 => NaiveDate::from_ymd_opt(text.parse().ok()?, 1, 1),
        7 => NaiveDate::parse_from_str(&format!("{text}-01"), "%Y-%m-%d").ok(),
        10 => NaiveDate::parse_from_str(text, "%Y-%m-%d").ok(),
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

/// `<loc>` texts of XML sitemaps and sitemap indexes, each with its entry's `<lastmod>`.
fn xml_locs(xml: &[u8], doc_url: &Url) -> SitemapLinks {
    let mut out = SitemapLinks::default();
    let mut reader = Reader::from_reader(xml);
    reader.config_mut().trim_text(true);
    let mut buf = Vec::new();
    let mut field = None;
    let mut text = String::new();
    // The `<url>` or `<sitemap>` entry being read: its loc and lastmod, in either order.
    let mut in_entry = false;
    let mut loc: Option<String> = None;
    let mut lastmod = None;
    fn is(name: &str, want: &str) -> bool {
        name.eq_ignore_ascii_case(want)
    }
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) => {
                let name = e.local_name().into_inner();
                if is(name, "url") || is(name, "sitemap") {
                    in_entry = true;
                    loc = None;
                    lastmod = None;
                } else if is(name, "loc") {
                    field = Some(Field::Loc);
                    text.clear();
                } else if is(name, "lastmod") {
                    field = Some(Field::Lastmod);
                    text.clear();
                }
            }
            Ok(Event::Text(t)) if field.is_some() => {
                text.push_str(t.as_ref());
            }
            Ok(Event::GeneralRef(r)) if field.is_some() => {
                // The five XML entities; anything else (a DTD's) is not expanded.
                let name = r.into_inner().into_owned();
                text.push_str(match name.as_str() {
                    "amp" => "&",
                    "lt" => "<",
                    "gt" => ">",
                    "quot" => "\"",
                    "apos" => "'",
                    _ => "",
                });
            }
            Ok(Event::CData(t)) if field.is_some() => text.push_str(&t.into_inner()),
            Ok(Event::End(e)) => {
                let name = e.local_name().into_inner();
                if field == Some(Field::Loc) && is(name, "loc") {
                    field = None;
                    if in_entry {
                        loc = Some(std::mem::take(&mut text));
                    } else if !push(&mut out, &text, None, doc_url) {
                        // A `<loc>` outside any entry: taken as it comes.
                        break;
                    }
                } else if field == Some(Field::Lastmod) && is(name, "lastmod") {
                    field = None;
                    lastmod = w3c_datetime(&text);
                } else if in_entry && (is(name, "url") || is(name, "sitemap")) {
                    in_entry = false;
                    if let Some(loc) = loc.take()
                        && !push(&mut out, &loc, lastmod, doc_url)
                    {
                        break;
                    }
                }
            }
            Ok(Event::Eof) => break,
            Err(_) => {
                out.truncated = true;
                break;
            }
            _ => {}
        }
        buf.clear();
    }
    out
}

/// Text sitemaps: one absolute URL a line.
fn text_lines(text: &[u8], doc_url: &Url) -> SitemapLinks {
    let mut out = SitemapLinks::default();
    for line in String::from_utf8_lossy(text).lines() {
        let line = line.trim();
        if (line.starts_with("http://") || line.starts_with("https://"))
            && !push(&mut out, line, None, doc_url)
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
        let l = sitemap_links(xml, &u());
        assert_eq!(urls(&l), ["http://a.org/one?x=1&y=2", "http://a.org/two"]);
        assert!(l.outlinks.iter().all(|o| o.hop == Hop::Sitemap));
        assert_eq!(l.outlinks[0].lastmod, w3c_datetime("2026-01-01T00:00:00Z"));
        assert_eq!(l.outlinks[1].lastmod, None);
        let index =
            br#"<sitemapindex><sitemap><loc>http://a.org/s2.xml.gz</loc></sitemap></sitemapindex>"#;
        assert_eq!(
            urls(&sitemap_links(index, &u())),
            ["http://a.org/s2.xml.gz"]
        );
        assert_eq!(
            urls(&sitemap_links(
                b"http://a.org/x\n\nhttps://a.org/y\nnot a url\n",
                &u()
            )),
            ["http://a.org/x", "https://a.org/y"]
        );
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, xml).unwrap();
        assert_eq!(sitemap_links(&gz.finish().unwrap(), &u()).outlinks.len(), 2);
        assert!(looks_like_sitemap("application/xml", xml));
        assert!(!looks_like_sitemap("text/html", b"<html><body>hi"));
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
        ] {
            assert_eq!(w3c_datetime(text), want, "{text}");
        }
        let xml = br#"<urlset><url><lastmod>2025-11-25</lastmod><loc>http://a.org/a</loc></url>
            <url><loc>http://a.org/b</loc><lastmod>junk</lastmod></url></urlset>"#;
        let l = sitemap_links(xml, &u());
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
        let l = sitemap_links(laughs, &u());
        assert!(urls(&l).iter().all(|x| x.len() < 40), "{:?}", urls(&l));
        // More than 50,000 URLs: cut at the limit.
        let many: String = (0..MAX_URLS + 10)
            .map(|i| format!("http://a.org/{i}\n"))
            .collect();
        let l = sitemap_links(many.as_bytes(), &u());
        assert_eq!(l.outlinks.len(), MAX_URLS);
        assert!(l.truncated);
        // A gzip bomb stops at 50 MB uncompressed.
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let zeros = vec![b' '; 1 << 20];
        for _ in 0..60 {
            std::io::Write::write_all(&mut gz, &zeros).unwrap();
        }
        assert!(sitemap_links(&gz.finish().unwrap(), &u()).truncated);
    }

    proptest! {
        #[test]
        fn any_bytes_read_or_stop_cleanly(body in proptest::collection::vec(any::<u8>(), 0..400)) {
            let l = sitemap_links(&body, &u());
            prop_assert!(l.outlinks.len() <= MAX_URLS);
        }
    }
}
