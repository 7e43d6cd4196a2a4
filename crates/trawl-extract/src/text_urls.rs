//! Links written as text: `http://` and `https://` URLs in a document's words, and the targets of Word's
//! `HYPERLINK` fields (`HYPERLINK "https://…"`, in .doc field codes and OOXML's `instrText`). Used by the PDF and
//! office extractors, which first turn their documents into plain text.

use url::Url;

use crate::OutlinkSet;
use crate::hop::Hop;

/// Adds every `http://` or `https://` URL written in `text`, as an `L` link with `context`: up to white space,
/// a quote or a bracket, without the sentence's trailing punctuation.
pub(crate) fn text_urls(text: &str, base: &Url, set: &mut OutlinkSet, context: &'static str) {
    let mut rest = text;
    while let Some(at) = find_scheme(rest) {
        let tail = &rest[at..];
        let end = tail
            .find(|c: char| c.is_whitespace() || "<>\"'()[]{}".contains(c))
            .unwrap_or(tail.len());
        let url = tail[..end].trim_end_matches(['.', ',', ';', ':', '!', '?']);
        if url.len() > "https://".len() {
            set.add(url, base, None, Hop::Link, context);
        }
        rest = &tail[end.max(1)..];
    }
}

fn find_scheme(text: &str) -> Option<usize> {
    let http = text.find("http://");
    let https = text.find("https://");
    match (http, https) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Adds the target of every `HYPERLINK` field code in `text` (relative targets too, resolved against `base`),
/// as an `L` link with `context`. A field that points inside the document (`HYPERLINK \l "bookmark"`) is not a
/// link.
pub(crate) fn field_links(text: &str, base: &Url, set: &mut OutlinkSet, context: &'static str) {
    const WORD: &str = "HYPERLINK";
    let mut rest = text;
    while let Some(at) = find_ignore_case(rest, WORD) {
        let after = rest[at + WORD.len()..].trim_start();
        rest = after;
        if after.starts_with("\\l") {
            continue;
        }
        let target = match after.strip_prefix('"') {
            Some(quoted) => quoted.split('"').next().unwrap_or(""),
            None => after.split(char::is_whitespace).next().unwrap_or(""),
        };
        if !target.is_empty() {
            set.add(target, base, None, Hop::Link, context);
        }
    }
}

/// The byte offset of the first `needle` (ASCII) in `haystack`, ignoring ASCII case.
fn find_ignore_case(haystack: &str, needle: &str) -> Option<usize> {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    (0..h.len().saturating_sub(n.len() - 1)).find(|&i| h[i..i + n.len()].eq_ignore_ascii_case(n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Limits;

    fn found(f: fn(&str, &Url, &mut OutlinkSet, &'static str), text: &str) -> Vec<String> {
        let base = Url::parse("http://a.org/docs/x.doc").unwrap();
        let mut set = OutlinkSet::new(&Limits::default());
        f(text, &base, &mut set, "t");
        set.into_parts()
            .0
            .into_iter()
            .map(|o| o.url.to_string())
            .collect()
    }

    #[test]
    fn urls_in_words() {
        assert_eq!(
            found(
                text_urls,
                "see https://a.org/x, (http://b.org/y?z=1). http:// alone"
            ),
            ["https://a.org/x", "http://b.org/y?z=1"]
        );
    }

    #[test]
    fn hyperlink_fields() {
        assert_eq!(
            found(
                field_links,
                " HYPERLINK \"http://b.org/\" x hyperlink other.html HYPERLINK \\l \"_Toc1\" HYPERLINK"
            ),
            ["http://b.org/", "http://a.org/docs/other.html"]
        );
    }
}
