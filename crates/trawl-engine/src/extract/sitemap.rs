//! Sitemaps (sitemaps.org): `<urlset>` and `<sitemapindex>` XML, gzip-compressed or not, and text sitemaps
//! (one URL a line). Read as a stream (quick-xml, no DTD, no entity expansion), within the protocol's limits:
//! 50,000 URLs and 50 MB uncompressed per file. Every `<loc>` becomes an `S`-hop link; `lastmod` is not kept.

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

fn push(out: &mut SitemapLinks, text: &str, doc_url: &Url) -> bool {
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
            });
        }
    }
    true
}

/// `<loc>` texts of XML sitemaps and sitemap indexes.
fn xml_locs(xml: &[u8], doc_url: &Url) -> SitemapLinks {
    let mut out = SitemapLinks::default();
    let mut reader = Reader::from_reader(xml);
    reader.config_mut().trim_text(true);
    let mut buf = Vec::new();
    let mut in_loc = false;
    let mut text = String::new();
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) if e.local_name().into_inner().eq_ignore_ascii_case("loc") => {
                in_loc = true;
                text.clear();
            }
            Ok(Event::Text(t)) if in_loc => {
                text.push_str(t.as_ref());
            }
            Ok(Event::GeneralRef(r)) if in_loc => {
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
            Ok(Event::CData(t)) if in_loc => text.push_str(&t.into_inner()),
            Ok(Event::End(e))
                if in_loc && e.local_name().into_inner().eq_ignore_ascii_case("loc") =>
            {
                in_loc = false;
                if !push(&mut out, &text, doc_url) {
                    break;
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
            && !push(&mut out, line, doc_url)
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
