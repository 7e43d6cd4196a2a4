//! Which HTML pages need a browser (`[browser] mode = "auto"`): a page whose HTML holds little text but
//! scripts, an empty application root, or a `<noscript>` fallback is built by JavaScript, and one with
//! scripts and route links (`href="#/guide"`) has views only a browser shows; an ordinary page with text and
//! links is not rendered.

use memchr::memmem;

/// Visible text below which a page with scripts is taken for one built by JavaScript.
const LITTLE_TEXT: usize = 200;

/// Element ids single-page applications mount into.
const APP_ROOTS: [&[u8]; 6] = [
    b"root",
    b"app",
    b"__next",
    b"___gatsby",
    b"__nuxt",
    b"svelte",
];

/// Links to views of a single-page application (`#/…`, `#!…`), either quote.
const ROUTE_LINKS: [&[u8]; 4] = [b"href=\"#/", b"href=\"#!", b"href='#/", b"href='#!"];

/// Why a page needs rendering, as its `browser:…` note says it: `emptyRoot`, `routes`, `noscript` or
/// `littleText`;
/// `None` for a page that reads fine as it is (or has no script at all).
///
/// It runs on every HTML page of an `auto` crawl, so it is one pass over the bytes rather than a parse: text is
/// what lies outside tags, comments and the content of `script`, `style`, `template` and `noscript`.
pub fn needs_rendering(html: &[u8]) -> Option<&'static str> {
    if !has_tag(html, b"<script") {
        return None;
    }
    let visible = visible_text(html);
    if has_app_root(html) && visible < LITTLE_TEXT * 2 {
        return Some("emptyRoot");
    }
    if ROUTE_LINKS.iter().any(|l| memmem::find(html, l).is_some()) {
        return Some("routes");
    }
    if visible < LITTLE_TEXT {
        let noscript = has_tag(html, b"<noscript");
        return Some(if noscript { "noscript" } else { "littleText" });
    }
    None
}

/// Whether an element's id is one of the application roots: `id="root"`, `id='root'` or `id=root`, the
/// attribute's name in any letter case (`data-id="root"` is not an id).
fn has_app_root(html: &[u8]) -> bool {
    memchr::memchr_iter(b'=', html).any(|at| {
        let named_id = at >= 3
            && html[at - 2..at].eq_ignore_ascii_case(b"id")
            && html[at - 3].is_ascii_whitespace();
        if !named_id {
            return false;
        }
        let rest = &html[at + 1..];
        let (quote, value) = match rest.first() {
            Some(&q @ (b'"' | b'\'')) => (Some(q), &rest[1..]),
            _ => (None, rest),
        };
        APP_ROOTS.iter().any(|id| {
            value.starts_with(id)
                && value.get(id.len()).is_some_and(|&end| match quote {
                    Some(q) => end == q,
                    None => end.is_ascii_whitespace() || end == b'>' || end == b'/',
                })
        })
    })
}

/// Whether `html` holds `open` (`<script`, …) in any letter case: tag names are case-insensitive, and older
/// sites write `<Script>`.
fn has_tag(html: &[u8], open: &[u8]) -> bool {
    memchr::memchr_iter(b'<', html).any(|at| {
        html.get(at..at + open.len())
            .is_some_and(|tag| tag.eq_ignore_ascii_case(open))
    })
}

/// Bytes of visible text (whitespace not counted), up to a bound past which the count no longer matters.
fn visible_text(html: &[u8]) -> usize {
    const ENOUGH: usize = LITTLE_TEXT * 4;
    let mut count = 0;
    let mut i = 0;
    while i < html.len() && count < ENOUGH {
        if html[i] != b'<' {
            count += usize::from(!html[i].is_ascii_whitespace());
            i += 1;
            continue;
        }
        let rest = &html[i..];
        // Raw-text elements and comments: skipped to their end.
        let skip_to = [
            (&b"<!--"[..], &b"-->"[..]),
            (b"<script", b"</script"),
            (b"<style", b"</style"),
            (b"<template", b"</template"),
            (b"<noscript", b"</noscript"),
        ]
        .iter()
        .find(|(open, _)| rest.len() >= open.len() && rest[..open.len()].eq_ignore_ascii_case(open))
        .map(|(_, close)| *close);
        i += match skip_to {
            Some(close) => {
                memmem::find(&rest[1..], close).map_or(rest.len(), |at| at + 1 + close.len())
            }
            None => memchr::memchr(b'>', rest).map_or(rest.len(), |at| at + 1),
        };
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_application_shell_needs_rendering() {
        let shell = br#"<html><head><script src="/app.js"></script></head>
            <body><noscript>You need JavaScript</noscript><div id="root"></div></body></html>"#;
        assert_eq!(needs_rendering(shell), Some("emptyRoot"));
        let thin = b"<html><body><script>document.write('hi')</script><p>Loading</p></body></html>";
        assert_eq!(needs_rendering(thin), Some("littleText"));
        let text = "Documentation to read, with a long introduction in plain text. ".repeat(6);
        let routed = format!(
            "<html><script src=/docs.js></script><p>{text}</p><a href=\"#/guide\">guide</a></html>"
        );
        assert_eq!(needs_rendering(routed.as_bytes()), Some("routes"));
    }

    #[test]
    fn script_tags_in_any_case_count() {
        // The tester's mixed.html: `<Script>` used to read as a page without scripts.
        for root in [
            r#"<div ID="root">"#,
            "<div id=root>",
            "<div\nid='app' class=x>",
        ] {
            let page = format!(
                "<html><head><script src=\"/a.js\"></script></head><body>{root}</div></body></html>"
            );
            assert_eq!(
                needs_rendering(page.as_bytes()),
                Some("emptyRoot"),
                "{root}"
            );
        }
        let data_id = br#"<html><head><script src="/a.js"></script></head><body><div data-id="root"></div></body></html>"#;
        assert_ne!(needs_rendering(data_id), Some("emptyRoot"));
        let mixed = br#"<!DOCTYPE html><html><head><Script src="/mixed.js"></Script></head><body><div id="root"></div></body></html>"#;
        assert_eq!(needs_rendering(mixed), Some("emptyRoot"));
        let thin = b"<html><body><sCrIpT>x()</sCrIpT><NoScript>Enable it</NoScript></body></html>";
        assert_eq!(needs_rendering(thin), Some("noscript"));
    }

    #[test]
    fn an_ordinary_page_does_not() {
        let text =
            "A paragraph of ordinary prose that a reader can read without any script at all. "
                .repeat(6);
        let page = format!(
            "<html><head><script src=/analytics.js></script></head><body><p>{text}</p>\
             <a href=/a>a</a><a href=/b>b</a></body></html>"
        );
        assert_eq!(needs_rendering(page.as_bytes()), None);
        assert_eq!(needs_rendering(b"<p>short, but no script</p>"), None);
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_are_judged_without_panicking(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..600)) {
            let _ = needs_rendering(&bytes);
        }

        #[test]
        fn html_like_text_is_judged_without_panicking(text in "(<script|<Script|<NOSCRIPT|<!--|-->|</script>|<div id=\"root\">|<p>|text| |<noscript>){0,40}") {
            let _ = needs_rendering(text.as_bytes());
        }
    }
}
