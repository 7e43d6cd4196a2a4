//! The text and head fields that text filters read: the page's text as a reader sees it (tags removed,
//! references decoded, in the page's encoding, wherever it sits), its title, keywords and description.

use url::Url;

use super::text::HtmlMeta;

/// Text of an HTML page (script, style and template content left out) and its `<title>` and `<meta>`
/// keywords and description, read by [`trawl_extract::page_text::page_text`]. At most about `limit` bytes of
/// text are kept.
pub fn page_text(
    html: &[u8],
    content_type: Option<&str>,
    doc_url: &Url,
    limit: usize,
) -> (String, HtmlMeta) {
    let page = trawl_extract::page_text::page_text(html, content_type, doc_url, limit);
    let meta = HtmlMeta {
        title: page.title,
        keywords: page.keywords,
        description: page.description,
    };
    (page.text, meta)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::filters::FiltersConfig;

    fn filters(toml_text: &str) -> super::super::TextFilters {
        let c: FiltersConfig = toml::from_str(toml_text).unwrap();
        super::super::TextFilters::from_config(&c).unwrap()
    }

    /// The tester's pages of xt5 F2 and F3, each with the filter it must trip.
    #[test]
    fn filters_match_what_a_reader_sees() {
        let url = Url::parse("http://127.0.0.1:8601/").unwrap();
        let content = filters("[[text]]\ncontent = 'Python\\s+Perl'\n[[text]]\ncontent = 'café'\n");
        let title = filters("[[text]]\nmeta = 'Tom & Jerry'\ntags = \"title\"\n");
        let rows: [(&[u8], Option<&str>, &super::super::TextFilters); 8] = [
            (
                b"<html><p>we love Python Perl here</p><a href='/c'>c</a></html>",
                None,
                &content,
            ),
            (
                b"<!doctype html><title>x</title><p>Python Perl</p><a href=/c>c</a>",
                None,
                &content,
            ),
            (b"<p>Python Perl</p><a href=/c>c</a>", None, &content),
            (b"<body><a href=/c>x</a></body>Python Perl", None, &content),
            (
                b"<body><p>we love Python&nbsp;Perl here</p>",
                None,
                &content,
            ),
            (
                b"<body>un caf\xe9 Python",
                Some("text/html; charset=iso-8859-1"),
                &content,
            ),
            (b"<title>Tom &amp; Jerry</title>", None, &title),
            (
                b"<body>Py<b>thon</b> Perl <a href=/c-split>c</a>",
                None,
                &content,
            ),
        ];
        for (html, ct, f) in rows {
            let (text, meta) = page_text(html, ct, &url, 1 << 20);
            assert!(
                f.check(&text, &meta).is_some(),
                "{:?}: {text:?} {meta:?}",
                String::from_utf8_lossy(html)
            );
        }
    }
}
