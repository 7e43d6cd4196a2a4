//! Speculative links (hop `X`): string literals in JavaScript and JSON that look like URLs or site paths, as
//! Heritrix's ExtractorJS guesses them. Junk is kept out by the shape of the string: an absolute http(s) URL,
//! or a path with a `/` and either a file extension or a trailing `/`, no spaces, no template or regex
//! characters, and not a bare `a/b` fragment of code; at most [`MAX_PER_DOCUMENT`] per document.

use url::Url;

use super::Outlink;
use crate::hop::Hop;

/// The most speculative links taken from one document.
pub const MAX_PER_DOCUMENT: usize = 200;
/// The longest string literal considered.
const MAX_LITERAL: usize = 2048;

/// Whether a response of `mime` is script or JSON, read for speculative links.
pub fn is_script_or_json(mime: &str) -> bool {
    let m = mime
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    matches!(
        m.as_str(),
        "application/javascript"
            | "text/javascript"
            | "application/x-javascript"
            | "application/ecmascript"
            | "text/ecmascript"
            | "application/json"
            | "text/json"
    ) || m.ends_with("+json")
}

/// The speculative links of script or JSON `text` fetched from `doc_url`, and whether the cap cut them.
pub fn speculative_links(text: &[u8], doc_url: &Url) -> (Vec<Outlink>, bool) {
    let mut out: Vec<Outlink> = Vec::new();
    let (found, cut) = candidates(text);
    for s in found {
        if let Ok(mut url) = doc_url.join(&s) {
            url.set_fragment(None);
            if matches!(url.scheme(), "http" | "https") && !out.iter().any(|o| o.url == url) {
                out.push(Outlink {
                    url,
                    hop: Hop::Speculative,
                    context: "script/string",
                    lastmod: None,
                });
            }
        }
    }
    (out, cut)
}

/// The string literals of `text` shaped like links ([`looks_like_link`]), at most [`MAX_PER_DOCUMENT`], and
/// whether the cap cut them.
pub fn candidates(text: &[u8]) -> (Vec<String>, bool) {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let quote = text[i];
        if !matches!(quote, b'"' | b'\'' | b'`') {
            i += 1;
            continue;
        }
        // A string literal: up to the same quote, backslash escapes honoured; a newline ends a '…' or "…".
        let mut lit = Vec::new();
        let mut j = i + 1;
        let mut closed = false;
        while j < text.len() && lit.len() <= MAX_LITERAL {
            match text[j] {
                b'\\' if j + 1 < text.len() => {
                    lit.push(text[j + 1]);
                    j += 2;
                }
                b'\n' if quote != b'`' => break,
                c if c == quote => {
                    closed = true;
                    break;
                }
                c => {
                    lit.push(c);
                    j += 1;
                }
            }
        }
        i = j + 1;
        if !closed {
            continue;
        }
        let Ok(s) = std::str::from_utf8(&lit) else {
            continue;
        };
        if !looks_like_link(s) || out.iter().any(|o| o == s) {
            continue;
        }
        if out.len() >= MAX_PER_DOCUMENT {
            return (out, true);
        }
        out.push(s.to_owned());
    }
    (out, false)
}

/// Whether a string literal is shaped like a URL or a site path rather than code or prose.
pub fn looks_like_link(s: &str) -> bool {
    if s.len() < 4
        || s.len() > MAX_LITERAL
        || s.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return false;
    }
    if s.contains([
        '<', '>', '{', '}', '$', '^', '|', '\\', '*', '(', ')', '[', ']', ',', ';',
    ]) {
        return false;
    }
    if let Some(rest) = s
        .strip_prefix("http://")
        .or_else(|| s.strip_prefix("https://"))
    {
        return rest.contains('.') && !rest.starts_with('/');
    }
    if s.starts_with("//") || !s.contains('/') {
        return false;
    }
    let path = s.split(['?', '#']).next().unwrap_or_default();
    let last = path.rsplit('/').next().unwrap_or_default();
    let has_extension = last.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=5).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
    });
    // A site path: absolute (`/x/y.html`, `/x/`) or relative with a file name (`img/a.png`); not `a/b`.
    (path.starts_with('/') && (has_extension || path.ends_with('/')) && path.len() > 1)
        || (!path.starts_with('/') && has_extension && !path.starts_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn urls_and_paths_in_strings_not_code() {
        let base = Url::parse("http://a.org/js/app.js").unwrap();
        let js = br#"var u = "/js-only.html"; load('img/logo.png'); x = `https://b.org/api/`;
            var junk = "a/b", op = "text/html", s = "hello world.txt", re = '^/a/(b)$', d = "1/2";
            fetch("/data/list.json?page=2#top"); var esc = "\/escaped\/page.htm";"#;
        let (links, cut) = speculative_links(js, &base);
        let urls: Vec<&str> = links.iter().map(|o| o.url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "http://a.org/js-only.html",
                "http://a.org/js/img/logo.png",
                "https://b.org/api/",
                "http://a.org/data/list.json?page=2",
                "http://a.org/escaped/page.htm"
            ]
        );
        assert!(!cut && links.iter().all(|o| o.hop == Hop::Speculative));
        assert!(is_script_or_json("application/javascript; charset=utf-8"));
        assert!(is_script_or_json("application/ld+json"));
        assert!(!is_script_or_json("text/html"));
    }

    #[test]
    fn inline_scripts_when_asked() {
        let base = Url::parse("http://a.org/").unwrap();
        let html = br#"<html><script>var p = "/inline.html", junk = "a/b";</script><a href="/a">a</a></html>"#;
        let on = crate::Limits {
            speculative: true,
            ..crate::Limits::default()
        };
        let found = crate::extract("text/html", html, None, &base, &on);
        let x: Vec<&str> = found
            .outlinks
            .iter()
            .filter(|o| o.hop == Hop::Speculative)
            .map(|o| o.url.as_str())
            .collect();
        assert_eq!(x, ["http://a.org/inline.html"]);
        let off = crate::extract("text/html", html, None, &base, &crate::Limits::default());
        assert!(off.outlinks.iter().all(|o| o.hop != Hop::Speculative));
    }

    /// Hostile JSON: nesting a million deep is read in one pass (the scanner keeps no stack), and a string
    /// that never closes ends at the input's end.
    #[test]
    fn deeply_nested_json_is_bounded() {
        let base = Url::parse("http://a.org/").unwrap();
        let mut json = "[".repeat(1_000_000);
        json.push_str("\"/deep.html\"");
        json.push_str(&"]".repeat(1_000_000));
        let (links, _) = speculative_links(json.as_bytes(), &base);
        assert_eq!(links.len(), 1);
        let (links, _) = speculative_links(b"[\"/never-closed.html", &base);
        assert!(links.is_empty());
    }

    #[test]
    fn capped_per_document() {
        let base = Url::parse("http://a.org/").unwrap();
        let many: String = (0..MAX_PER_DOCUMENT + 5)
            .map(|i| format!("\"/p{i}.html\" "))
            .collect();
        let (links, cut) = speculative_links(many.as_bytes(), &base);
        assert_eq!(links.len(), MAX_PER_DOCUMENT);
        assert!(cut);
    }

    proptest! {
        #[test]
        fn any_bytes_scan_cleanly(body in proptest::collection::vec(any::<u8>(), 0..500)) {
            let base = Url::parse("http://a.org/").unwrap();
            let (links, _) = speculative_links(&body, &base);
            prop_assert!(links.len() <= MAX_PER_DOCUMENT);
        }
    }
}
