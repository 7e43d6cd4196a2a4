//! RSS and Atom feeds: the links of their items (RSS `<link>` text, Atom `<link href>`) and their enclosures
//! (`<enclosure url>`, Atom `rel="enclosure"`), as `L` hops. Read as a stream (quick-xml; no DTD entity is
//! expanded), up to the page's outlink limit.

use quick_xml::{Reader, events::Event};
use url::Url;

use super::Outlink;
use crate::hop::Hop;

/// Whether `body` (served as `mime`) is an RSS, RDF or Atom feed.
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
    let head: Vec<u8> = body.iter().take(1024).map(u8::to_ascii_lowercase).collect();
    let has = |needle: &[u8]| head.windows(needle.len()).any(|w| w == needle);
    xml_type && (has(b"<rss") || has(b"<feed") || has(b"<rdf:rdf"))
}

/// The item links and enclosures of the feed `body` fetched from `doc_url`, at most `max`; the flag says the
/// limit (or broken XML) cut them short.
pub fn feed_links(body: &[u8], doc_url: &Url, max: usize) -> (Vec<Outlink>, bool) {
    let mut out: Vec<Outlink> = Vec::new();
    let mut reader = Reader::from_reader(body);
    reader.config_mut().trim_text(true);
    let mut buf = Vec::new();
    let mut in_link = false;
    let mut text = String::new();
    let mut truncated = false;
    let add = |out: &mut Vec<Outlink>, href: &str, context: &'static str| -> bool {
        if out.len() >= max {
            return false;
        }
        if let Ok(mut url) = doc_url.join(href.trim()) {
            url.set_fragment(None);
            if matches!(url.scheme(), "http" | "https") && !out.iter().any(|o| o.url == url) {
                out.push(Outlink {
                    url,
                    hop: Hop::Link,
                    context,
                    lastmod: None,
                });
            }
        }
        true
    };
    loop {
        let event = reader.read_event_into(&mut buf);
        let keep_going = match &event {
            Ok(Event::Start(e) | Event::Empty(e)) => {
                let name = e.local_name().into_inner().to_ascii_lowercase();
                let attr = |key: &str| {
                    e.attributes().flatten().find_map(|a| {
                        a.key
                            .local_name()
                            .into_inner()
                            .eq_ignore_ascii_case(key)
                            .then(|| {
                                a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                                    .ok()
                                    .map(|v| v.into_owned())
                            })
                            .flatten()
                    })
                };
                match name.as_str() {
                    "link" => match attr("href") {
                        // Atom: <link href=… rel=…/>, any rel but the feed's own (`self`).
                        Some(href) if attr("rel").as_deref() != Some("self") => {
                            add(&mut out, &href, "feed/link")
                        }
                        Some(_) => true,
                        None => {
                            // RSS: <link>URL</link>
                            in_link = matches!(event, Ok(Event::Start(_)));
                            text.clear();
                            true
                        }
                    },
                    "enclosure" => match attr("url") {
                        Some(u) => add(&mut out, &u, "feed/enclosure"),
                        None => true,
                    },
                    _ => true,
                }
            }
            Ok(Event::Text(t)) if in_link => {
                text.push_str(t.as_ref());
                true
            }
            Ok(Event::CData(t)) if in_link => {
                text.push_str(&t.clone().into_inner());
                true
            }
            Ok(Event::End(e))
                if in_link && e.local_name().into_inner().eq_ignore_ascii_case("link") =>
            {
                in_link = false;
                add(&mut out, &text, "feed/link")
            }
            Ok(Event::Eof) => break,
            Err(_) => {
                truncated = true;
                break;
            }
            _ => true,
        };
        if !keep_going {
            truncated = true;
            break;
        }
        buf.clear();
    }
    (out, truncated)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn u() -> Url {
        Url::parse("http://a.org/feed.xml").unwrap()
    }

    #[test]
    fn rss_and_atom_items_and_enclosures() {
        let rss = br#"<?xml version="1.0"?><rss version="2.0"><channel><link>http://a.org/</link>
            <item><link>http://a.org/post/1</link><enclosure url="http://a.org/ep1.mp3" type="audio/mpeg"/></item>
            <item><link><![CDATA[/post/2]]></link></item></channel></rss>"#;
        assert!(looks_like_feed("application/rss+xml", rss));
        let (links, cut) = feed_links(rss, &u(), 100);
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
        let urls: Vec<String> = feed_links(atom, &u(), 100)
            .0
            .iter()
            .map(|o| o.url.to_string())
            .collect();
        assert_eq!(urls, ["http://a.org/e/1", "http://a.org/e/1.ogg"]);
        assert!(!looks_like_feed("text/html", b"<html><feed>"));
        let (links, cut) = feed_links(rss, &u(), 2);
        assert_eq!(links.len(), 2);
        assert!(cut);
    }

    proptest! {
        #[test]
        fn any_bytes_read_or_stop_cleanly(body in proptest::collection::vec(any::<u8>(), 0..400)) {
            let (links, _) = feed_links(&body, &u(), 10);
            prop_assert!(links.len() <= 10);
        }
    }
}
