//! The title of an HTML page as a browser shows it: the text of its first `<title>` element in the HTML
//! namespace (not one in a comment, a script or an SVG drawing), in the page's own encoding, character
//! references decoded, white space collapsed. WACZ page lists show it.

use std::{cell::RefCell, rc::Rc};

use lol_html::{HtmlRewriter, Settings, element, text};
use url::Url;

use crate::{charset, entities};

/// The title of the HTML document `body` (its content codings already undone), served with `content_type`
/// from `doc_url`; `None` when it has none or an empty one.
pub fn html_title(body: &[u8], content_type: Option<&str>, doc_url: &Url) -> Option<String> {
    let encoding = charset::sniff_html(body, content_type, doc_url);
    // Decoded first, so that UTF-16 pages (which the tokenizer cannot read as bytes) are read too.
    let (text, _, _) = encoding.decode(body);
    let state = Rc::new(RefCell::new((Seen::Nothing, String::new())));
    let (in_svg, on_element, on_text) = (state.clone(), state.clone(), state.clone());
    let mut rewriter = HtmlRewriter::new(
        Settings {
            element_content_handlers: vec![
                // Runs before the next handler for the same element: an SVG title is not the page's.
                element!("svg title", move |_| {
                    let mut s = in_svg.borrow_mut();
                    if s.0 == Seen::Nothing {
                        s.0 = Seen::SvgTitle;
                    }
                    Ok(())
                }),
                element!("title", move |_| {
                    let mut s = on_element.borrow_mut();
                    s.0 = match s.0 {
                        Seen::Nothing => Seen::InTitle,
                        Seen::SvgTitle => Seen::Nothing,
                        other => other,
                    };
                    Ok(())
                }),
                text!("title", move |chunk| {
                    let mut s = on_text.borrow_mut();
                    if s.0 == Seen::InTitle {
                        s.1.push_str(chunk.as_str());
                        if chunk.last_in_text_node() {
                            s.0 = Seen::Done;
                        }
                    }
                    Ok(())
                }),
            ],
            ..Settings::new()
        },
        |_: &[u8]| {},
    );
    // Malformed HTML ends the parse early; a title read so far still counts.
    let _ = rewriter
        .write(text.as_bytes())
        .and_then(|()| rewriter.end());
    let raw = std::mem::take(&mut state.borrow_mut().1);
    let title = entities::decode_attr(&raw)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    (!title.is_empty()).then_some(title)
}

/// How far the page's title is read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Seen {
    /// No title yet.
    Nothing,
    /// The next `title` element is an SVG drawing's: not the page's.
    SvgTitle,
    /// Inside the first HTML title: its text is gathered.
    InTitle,
    /// The title is read; later ones do not count.
    Done,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any bytes give a title or none, never a panic; a title is never empty and has its white space
        /// collapsed; a title written plainly is read back.
        #[test]
        fn any_bytes_give_a_clean_title_or_none(body in proptest::collection::vec(any::<u8>(), 0..400)) {
            if let Some(t) = title(&body, None) {
                prop_assert!(!t.is_empty());
                prop_assert_eq!(t.split_whitespace().collect::<Vec<_>>().join(" "), t.clone());
            }
        }

        #[test]
        fn plain_titles_read_back(text in "[a-zA-Z0-9][a-zA-Z0-9 ]{0,40}[a-zA-Z0-9]") {
            let body = format!("<html><head><title>{text}</title></head><body><p>x</p></body></html>");
            let want = text.split_whitespace().collect::<Vec<_>>().join(" ");
            prop_assert_eq!(title(body.as_bytes(), None), Some(want));
        }
    }

    fn title(body: &[u8], content_type: Option<&str>) -> Option<String> {
        html_title(
            body,
            content_type,
            &Url::parse("http://a.example/").unwrap(),
        )
    }

    #[test]
    fn titles_as_a_browser_shows_them() {
        let cases: &[(&[u8], Option<&str>, Option<&str>)] = &[
            (b"<title> A\n  title </title>", None, Some("A title")),
            (b"<TITLE lang=en>Up</TITLE>", None, Some("Up")),
            (
                b"<title>A &amp; B &#x263A; &lt;x&gt; &eacute;t&eacute; &ndash;</title>",
                None,
                Some("A & B \u{263A} <x> \u{e9}t\u{e9} \u{2013}"),
            ),
            // Not a title: in a comment, in a script, in an SVG drawing.
            (
                b"<!-- <title>in comment</title> --><title>real</title>",
                None,
                Some("real"),
            ),
            (
                b"<script>var s='<title>in script</title>'</script><title>real2</title>",
                None,
                Some("real2"),
            ),
            (b"<body><svg><title>icon</title></svg></body>", None, None),
            (
                b"<svg><title>icon</title></svg><title>page</title>",
                None,
                Some("page"),
            ),
            // The first one counts; markup inside a title is its text.
            (
                b"<title>one <b>x</b></title><title>two</title>",
                None,
                Some("one <b>x</b>"),
            ),
            // The page's encoding: by header, by meta, by BOM (UTF-16 too).
            (
                b"<title>Caf\xe9 cr\xe8me</title>",
                Some("text/html; charset=iso-8859-1"),
                Some("Caf\u{e9} cr\u{e8}me"),
            ),
            (
                b"<meta charset=\"shift_jis\"><title>\x93\xfa\x96\x7b\x8c\xea</title>",
                None,
                Some("\u{65e5}\u{672c}\u{8a9e}"),
            ),
            (
                b"\xff\xfe<\0t\0i\0t\0l\0e\0>\0h\0i\0<\0/\0t\0i\0t\0l\0e\0>\0",
                None,
                Some("hi"),
            ),
            (b"<title>  </title>", None, None),
            (b"<p>no title", None, None),
        ];
        for (body, ct, want) in cases {
            assert_eq!(
                title(body, *ct).as_deref(),
                *want,
                "{:?}",
                String::from_utf8_lossy(body)
            );
        }
    }
}
