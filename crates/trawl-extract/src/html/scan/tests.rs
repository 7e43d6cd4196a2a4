use std::cell::RefCell;

use lol_html::{HtmlRewriter, Settings, element, text};
use proptest::prelude::*;

use super::*;

/// A start tag as both readers see it: lowercase name, then each attribute's first value by name.
type Tag = (String, Vec<(String, String)>);

/// A reader's report: the start tags, and the text of each `<style>`.
type Report = (Vec<Tag>, Vec<String>);

/// What the scanner reports: the start tags, and the text of each `<style>`.
fn scanned(doc: &str) -> Report {
    let (mut tags, mut styles) = (Vec::new(), Vec::new());
    scan(doc.as_bytes(), |event| {
        match event {
            Event::Start(tag) => {
                let mut attrs: Vec<(String, String)> = Vec::new();
                for (n, v) in tag.attrs {
                    let name = String::from_utf8_lossy(&doc.as_bytes()[n.clone()]).to_lowercase();
                    if !attrs.iter().any(|(seen, _)| *seen == name) {
                        let value = String::from_utf8_lossy(&doc.as_bytes()[v.clone()]);
                        attrs.push((name, value.into_owned()));
                    }
                }
                let name = String::from_utf8_lossy(tag.name()).to_lowercase();
                tags.push((name, attrs));
            }
            Event::StyleText(t) => styles.push(String::from_utf8_lossy(t).into_owned()),
            // Script text is what lies between tags the reference reports: checked by the tag positions.
            Event::ScriptText(_) | Event::FormEnd => {}
        }
        ControlFlow::Continue(())
    });
    (tags, styles)
}

/// The elements the scanner reads as markup where lol_html (a browser with scripting on) reads raw text, and
/// names lol_html reads as ordinary elements, for the differential tests.
const MARKUP_FALLBACKS: [(&str, &str); 3] = [
    ("noscript", "x-noscript"),
    ("noframes", "x-noframes"),
    ("noembed", "x-noembed"),
];

/// What lol_html reports for the same document (its element and text handlers), with `<noscript>`,
/// `<noframes>` and `<noembed>` read as ordinary elements, as the scanner reads them.
fn lol(doc: &str) -> Report {
    let mut doc = doc.to_string();
    for (name, ordinary) in MARKUP_FALLBACKS {
        doc = doc.replace(name, ordinary);
    }
    let back = |text: &mut String| {
        for (name, ordinary) in MARKUP_FALLBACKS {
            *text = text.replace(ordinary, name);
        }
    };
    let (mut tags, mut styles) = lol_as_is(&doc);
    for (name, attrs) in &mut tags {
        back(name);
        for (attr, value) in attrs {
            back(attr);
            back(value);
        }
    }
    styles.iter_mut().for_each(back);
    (tags, styles)
}

/// What lol_html reports for `doc` (its element and text handlers).
fn lol_as_is(doc: &str) -> Report {
    let tags = RefCell::new(Vec::new());
    let styles = RefCell::new(Vec::new());
    let style = RefCell::new(String::new());
    let settings = Settings {
        element_content_handlers: vec![
            element!("*", |el| {
                let mut attrs: Vec<(String, String)> = Vec::new();
                for a in el.attributes() {
                    if !attrs.iter().any(|(seen, _)| *seen == a.name()) {
                        attrs.push((a.name(), a.value()));
                    }
                }
                tags.borrow_mut().push((el.tag_name(), attrs));
                Ok(())
            }),
            text!("style", |chunk| {
                style.borrow_mut().push_str(chunk.as_str());
                if chunk.last_in_text_node() {
                    styles
                        .borrow_mut()
                        .push(std::mem::take(&mut *style.borrow_mut()));
                }
                Ok(())
            }),
        ],
        strict: false,
        ..Settings::new()
    };
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    rewriter.write(doc.as_bytes()).unwrap();
    rewriter.end().unwrap();
    (tags.into_inner(), styles.into_inner())
}

fn names(doc: &str) -> Vec<String> {
    scanned(doc).0.into_iter().map(|(n, _)| n).collect()
}

fn tag(name: &str, attrs: &[(&str, &str)]) -> Tag {
    let attrs = attrs
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect();
    (name.to_string(), attrs)
}

#[test]
fn attributes_in_every_syntax() {
    let (tags, _) = scanned(
        r#"<A HREF="x>y" data-a='q"r' c=unq d e = "sp" =odd href="second"/><img src=a.png/>"#,
    );
    assert_eq!(
        tags,
        vec![
            tag(
                "a",
                &[
                    ("href", "x>y"),
                    ("data-a", "q\"r"),
                    ("c", "unq"),
                    ("d", ""),
                    ("e", "sp"),
                    ("=odd", "")
                ]
            ),
            // An unquoted value runs to whitespace or `>`: the slash belongs to it.
            tag("img", &[("src", "a.png/")]),
        ]
    );
}

#[test]
fn comments_doctypes_and_bogus_comments_hide_tags() {
    let doc = "<!DOCTYPE html><!-- <a> --><!--><b><!---><i><!-- x --!><u><? <s> ?><p></ <q>x</3 <em>><br>";
    assert_eq!(names(doc), ["b", "i", "u", "p", "br"]);
    assert_eq!(names("<!-- never closed <a>"), Vec::<String>::new());
}

#[test]
fn raw_text_runs_to_its_own_end_tag() {
    let doc = "<style>a{background:url(<img src=x>)}</styles></STYLE ><img src=y>\
               <textarea><a href=t></textarea><title><a></title x><xmp><a></xmp><iframe><a></iframe><b>";
    let (tags, styles) = scanned(doc);
    let names: Vec<&str> = tags.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["style", "img", "textarea", "title", "xmp", "iframe", "b"]
    );
    assert_eq!(styles, ["a{background:url(<img src=x>)}</styles>"]);
}

/// The fallbacks a browser reads as raw text hold markup here: their links are what a crawler that runs no
/// scripts needs.
#[test]
fn noscript_noframes_and_noembed_hold_markup() {
    let doc = "<noscript><img src=x></noscript><NOFRAMES><a href=f></noframes><noembed><a href=e></noembed><b>";
    assert_eq!(
        names(doc),
        ["noscript", "img", "noframes", "a", "noembed", "a", "b"]
    );
}

#[test]
fn script_data_escapes() {
    assert_eq!(
        names("<script>if (a<b) x='</scrip'</script><p>"),
        ["script", "p"]
    );
    // In a `<!--` part, `<script>` starts a part that the next `</script>` only ends.
    let doc = "<script><!-- <script> </script> <a> --></script><p>";
    assert_eq!(names(doc), ["script", "p"]);
    assert_eq!(names("<script><!--></script><p>"), ["script", "p"]);
    assert_eq!(names("<script>never closed <a>"), ["script"]);
}

#[test]
fn foreign_content_reads_cdata_and_no_raw_text() {
    let doc = "<svg><style>x{}<a href=in-svg-style></a></style><![CDATA[<b>]]><desc><style><i></style>\
               </desc></svg><![CDATA[<u>]]><p>";
    // Back in HTML, `<![CDATA[` starts a bogus comment, which the first `>` ends.
    let (tags, styles) = scanned(doc);
    let found: Vec<&str> = tags.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(found, ["svg", "style", "a", "desc", "style", "p"]);
    assert_eq!(styles, ["x{}", "<i>"]);
    // An HTML tag such as `<p>` ends foreign content: `<style>` is raw text again.
    assert_eq!(names("<math><p><style><a></style>"), ["math", "p", "style"]);
}

#[test]
fn plaintext_and_cut_off_tags() {
    assert_eq!(names("<plaintext><a href=x>"), ["plaintext"]);
    assert_eq!(names("<a href=x><img src=\"never closed>"), ["a"]);
    assert_eq!(names("<a href=x><img src=y"), ["a"]);
}

#[test]
fn a_break_stops_the_scan() {
    let mut seen = 0;
    scan(b"<a><b><c>", |_| {
        seen += 1;
        ControlFlow::Break(())
    });
    assert_eq!(seen, 1);
}

/// Pieces of markup, chosen for the places where tokenizers differ: quotes, comments, script escapes,
/// raw text, foreign content, odd `<`s.
const PIECES: &[&str] = &[
    "text ",
    "a < b ",
    "x > y",
    "&amp;",
    "\n",
    "<",
    "</",
    "<3",
    "</ x>",
    "</>",
    "<?x>",
    "<!DOCTYPE html>",
    "<!-- c -->",
    "<!-->",
    "<!--->",
    "<!-- a --!>",
    "<!-- -- -->",
    "-->",
    "<!--",
    "<![CDATA[",
    "]]>",
    "<a href=\"x.html\">",
    "<A HREF='y.html' title=\"a>b\">",
    "<img src=i.png alt=x>",
    "<img src=i.png/>",
    "<p style=\"background:url(b.png)\">",
    "<div =x y z=\"1\" y=2>",
    "<br/>",
    "<b>",
    "<i >",
    "</a>",
    "</p>",
    "</br>",
    "</b>",
    "<script>",
    "</script>",
    "<SCRIPT type=x>",
    "</script >",
    "<script>x",
    "<style>",
    "</style>",
    "<style>a{b:url(c.png)}</style>",
    "<textarea>",
    "</textarea>",
    "<title>",
    "</title>",
    "<noscript>",
    "</noscript>",
    "<noframes><a href=nf.html>",
    "</noframes>",
    "<noembed>",
    "</noembed>",
    "<iframe src=f.html>",
    "</iframe>",
    "<xmp>",
    "</xmp>",
    "<svg>",
    "</svg>",
    "<math>",
    "</math>",
    "<desc>",
    "</desc>",
    "<foreignObject>",
    "</foreignObject>",
    "<mi>",
    "</mi>",
    "<font color=red>",
    "<font>",
    "<annotation-xml encoding=text/html>",
    "</annotation-xml>",
    "<image href=s.png>",
    "<link rel=stylesheet href=c.css>",
    "<x y=\"'\" z='\"'>",
    "<a\thref\n=\nq>",
    "<a href=u v>",
    "</a title=\">\">",
];

/// The scanner's and lol_html's reports on the pieces `picks` joined (and closed with every kind of quote
/// and terminator, so that no tag is left cut off).
fn both(picks: &[usize], pieces: &[&str]) -> (String, Report, Report) {
    let mut doc: String = picks.iter().map(|&i| pieces[i]).collect();
    doc.push_str("\"'>-->]]>");
    let (mine, theirs) = (scanned(&doc), lol(&doc));
    (doc, mine, theirs)
}

/// The pieces without foreign content.
fn html_pieces() -> Vec<&'static str> {
    let foreign = [
        "svg",
        "math",
        "desc",
        "foreignObject",
        "mi>",
        "font",
        "annotation",
        "image",
    ];
    PIECES
        .iter()
        .copied()
        .filter(|p| !foreign.iter().any(|f| p.contains(f)))
        .collect()
}

/// The pieces without end tags. lol_html loses an SVG or MathML integration point's start tag (`<title>`,
/// `<desc>`, `<mi>`) that follows an end tag in foreign content (`<svg></b><title>`); the spec and the
/// scanner keep it, so foreign content is compared on documents without end tags.
fn start_pieces() -> Vec<&'static str> {
    PIECES
        .iter()
        .copied()
        .filter(|p| !p.contains("</"))
        .collect()
}

proptest! {
    /// The scanner finds the same start tags, attributes and style text as lol_html, whose tokenizer
    /// follows the WHATWG spec.
    #[test]
    fn agrees_with_lol_html_on_html(picks in proptest::collection::vec(0..html_pieces().len(), 0..40)) {
        let (doc, mine, theirs) = both(&picks, &html_pieces());
        prop_assert_eq!(mine, theirs, "document: {:?}", doc);
    }

    /// The same with SVG and MathML in the mix. There a `<style>` holds markup: lol_html reports each of its
    /// text nodes, the scanner the text before its first tag, so only the tags are compared.
    #[test]
    fn agrees_with_lol_html_on_foreign_content(
        picks in proptest::collection::vec(0..start_pieces().len(), 0..40),
    ) {
        let (doc, (tags, _), (lol_tags, _)) = both(&picks, &start_pieces());
        prop_assert_eq!(tags, lol_tags, "document: {:?}", doc);
    }
}

proptest! {
    /// Any bytes at all: no panic, and every reported tag lies inside the document.
    #[test]
    fn any_bytes_scan(doc in proptest::collection::vec(any::<u8>(), 0..2000)) {
        scan(&doc, |event| {
            if let Event::Start(tag) = event {
                assert!(!tag.name().is_empty());
                let _ = tag.attr("href");
            }
            ControlFlow::Continue(())
        });
    }
}
