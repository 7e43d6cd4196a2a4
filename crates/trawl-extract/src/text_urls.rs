//! Links written as text: `http://` and `https://` URLs in a document's words, and the targets of Word's
//! `HYPERLINK` fields (`HYPERLINK "https://…"`, in .doc field codes and OOXML's `instrText`). Used by the PDF and
//! office extractors, which first turn their documents into plain text.

use url::Url;

use crate::OutlinkSet;
use crate::hop::Hop;

/// Adds every `http://` or `https://` URL written in `text`, as an `L` link with `context`: up to white space,
/// a quote or a bracket, without the sentence's trailing punctuation. One pass over `text`, ending once the
/// set is full: a document's text may hold hundreds of thousands of URLs (xt19a F1).
pub(crate) fn text_urls(text: &str, base: &Url, set: &mut OutlinkSet, context: &'static str) {
    let mut rest = text;
    while let Some(at) = find_scheme(rest) {
        if set.is_truncated() {
            return;
        }
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

/// The byte offset of the first `http://` or `https://` in `text`. Each `http` is looked at once: finding
/// the two schemes apart scanned the rest of the text for the one missing at every URL of the other, so a
/// text of N `http://` URLs took N² steps.
fn find_scheme(text: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = text[from..].find("http") {
        let at = from + at;
        let after = &text[at + 4..];
        if after.starts_with("://") || after.starts_with("s://") {
            return Some(at);
        }
        from = at + 4;
    }
    None
}

/// Adds the target of every `HYPERLINK` field code in `text` (relative targets too, resolved against `base`),
/// as an `L` link with `context`. A field that points inside the document (`HYPERLINK \l "bookmark"`) is not a
/// link.
pub(crate) fn field_links(text: &str, base: &Url, set: &mut OutlinkSet, context: &'static str) {
    const WORD: &str = "HYPERLINK";
    let mut rest = text;
    while let Some(at) = find_ignore_case(rest, WORD) {
        if set.is_truncated() {
            return;
        }
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
    fn urls_next_to_the_schemes_other_spelling() {
        assert_eq!(
            found(
                text_urls,
                "httphttps://a.org/1 http:/x https://b.org/2 httpshttp://c.org/3"
            ),
            ["https://a.org/1", "https://b.org/2", "http://c.org/3"]
        );
    }

    /// xt19a F1: 300,000 `http://` URLs in a spreadsheet's strings took ten minutes (the scan for `https://`
    /// went over the rest of the text at every URL); once the set is full the rest is not read. The bounds
    /// are for a hang, not a speed: the quadratic scan of the last case reads terabytes.
    #[test]
    fn many_urls_take_one_pass() {
        let text: String = (0..200_000).map(|i| format!("http://a.org/{i} ")).collect();
        let base = Url::parse("http://a.org/x.xlsx").unwrap();
        let mut set = OutlinkSet::new(&Limits::default());
        let started = std::time::Instant::now();
        text_urls(&text, &base, &mut set, "t");
        let (links, truncated) = set.into_parts();
        assert_eq!(links.len(), Limits::default().max_outlinks);
        assert!(truncated);
        // A bound no linear pass comes near (it takes milliseconds) and the quadratic one did not meet.
        assert!(started.elapsed() < std::time::Duration::from_secs(60));
        let mut set = OutlinkSet::new(&Limits {
            max_outlinks: usize::MAX,
            ..Limits::default()
        });
        let started = std::time::Instant::now();
        text_urls(&text, &base, &mut set, "t");
        assert_eq!(set.into_parts().0.len(), 200_000);
        assert!(started.elapsed() < std::time::Duration::from_secs(60));
        // A million schemes with nothing after them: no link, and one pass over 8 MB.
        let text = "http:// ".repeat(1_000_000);
        let mut set = OutlinkSet::new(&Limits::default());
        let started = std::time::Instant::now();
        text_urls(&text, &base, &mut set, "t");
        assert!(set.into_parts().0.is_empty());
        assert!(started.elapsed() < std::time::Duration::from_secs(60));
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
