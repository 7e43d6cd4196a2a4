//! Where the start tags are in an HTML document, and the text of its `<style>` elements: the WHATWG
//! tokenizer's rules for tags, attributes, comments, CDATA and raw text, and nothing more (no tree, no
//! text nodes, no character references: [`super::entities`] decodes the values that are used).
//!
//! Written here rather than taken from a crate because link extraction reads only start tags, yet a
//! general tokenizer does the work for every token: lol_html (a rewriter) serializes each token back out
//! and runs its selector machine on every element, which made it 13% of a crawl's CPU; html5ever and
//! html5gum build owned tokens for all text. This reads the document's bytes in place and allocates
//! nothing per tag. Which text mode follows a start tag (raw text after `<style>`, script data after
//! `<script>`, none inside `<svg>`/`<math>`) is decided as lol_html's tree builder simulation decides
//! it (except that `<noscript>`, `<noframes>` and `<noembed>` hold markup), and a differential test against
//! lol_html checks that both find the same tags (`tests.rs`).
//!
//! Works on the bytes of any ASCII-compatible encoding: every byte it looks for is ASCII, and such
//! encodings never use those bytes inside a multi-byte character.

use std::ops::{ControlFlow, Range};

use memchr::{memchr, memchr2};

/// What the scan reports.
pub(crate) enum Event<'a> {
    /// A start tag, with its attributes as written.
    Start(&'a StartTag<'a>),
    /// The text of a `<style>` element (raw text: no character references), in one piece; never empty.
    StyleText(&'a [u8]),
    /// The text of a `<script>` element (script data), for speculative links.
    ScriptText(&'a [u8]),
    /// A `</form>` end tag in HTML content: the form its submit buttons belong to is over.
    FormEnd,
}

/// A start tag: its name and attributes, as ranges of the document's bytes.
pub(crate) struct StartTag<'a> {
    doc: &'a [u8],
    name: Range<usize>,
    attrs: &'a [(Range<usize>, Range<usize>)],
}

impl<'a> StartTag<'a> {
    /// The tag name as written (any case).
    pub(crate) fn name(&self) -> &'a [u8] {
        &self.doc[self.name.clone()]
    }

    /// The value of the first attribute called `name` (ASCII lowercase), as written; `Some(b"")` for an
    /// attribute without a value. Later attributes of the same name are ignored, as HTML says.
    pub(crate) fn attr(&self, name: &str) -> Option<&'a [u8]> {
        self.attrs
            .iter()
            .find(|(n, _)| self.doc[n.clone()].eq_ignore_ascii_case(name.as_bytes()))
            .map(|(_, v)| &self.doc[v.clone()])
    }
}

/// The namespaces that decide how text after a start tag is read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ns {
    Html,
    Svg,
    MathMl,
}

/// How the text after a start tag is read.
enum TextMode {
    /// Markup: tags are tags.
    Data,
    /// Up to the matching end tag, nothing inside is markup (`<style>`, `<textarea>`, ...).
    UntilEndTag,
    /// `<script>`: like [`TextMode::UntilEndTag`], with the comment-like escapes of script data.
    Script,
    /// `<plaintext>`: the rest of the document is text.
    Rest,
}

/// Reports every start tag of `doc` (and the text of each `<style>`) to `sink`, in document order, until
/// the document ends or `sink` breaks. A tag cut off by the end of the document is not reported, as a
/// browser does not create it either.
pub(crate) fn scan(doc: &[u8], mut sink: impl FnMut(Event<'_>) -> ControlFlow<()>) {
    let mut attrs = Vec::new();
    let mut ns = vec![Ns::Html];
    let mut at = 0;
    while let Some(off) = memchr(b'<', &doc[at..]) {
        let lt = at + off;
        at = match doc.get(lt + 1) {
            Some(b'!') => declaration(doc, lt + 2, *ns.last().expect("never empty") != Ns::Html),
            Some(b'/') => {
                let (resume, form_end) = end_tag(doc, lt + 2, &mut ns);
                if form_end && sink(Event::FormEnd).is_break() {
                    return;
                }
                resume
            }
            Some(b'?') => after_gt(doc, lt + 2),
            Some(c) if c.is_ascii_alphabetic() => {
                attrs.clear();
                let Some((name, end, self_closing)) = start_tag(doc, lt + 1, &mut attrs) else {
                    return;
                };
                let tag = StartTag {
                    doc,
                    name,
                    attrs: &attrs,
                };
                if sink(Event::Start(&tag)).is_break() {
                    return;
                }
                let name = tag.name();
                match text_mode(name, &tag, self_closing, &mut ns) {
                    TextMode::Data if name.eq_ignore_ascii_case(b"style") && !self_closing => {
                        // SVG's `<style>` holds CSS too, but as markup: its text up to the next tag.
                        let text =
                            &doc[end..memchr(b'<', &doc[end..]).map_or(doc.len(), |i| end + i)];
                        if !text.is_empty() && sink(Event::StyleText(text)).is_break() {
                            return;
                        }
                        end
                    }
                    TextMode::Data => end,
                    TextMode::UntilEndTag => {
                        let close = find_end_tag(doc, end, name);
                        if name.eq_ignore_ascii_case(b"style")
                            && close > end
                            && sink(Event::StyleText(&doc[end..close])).is_break()
                        {
                            return;
                        }
                        close
                    }
                    TextMode::Script => {
                        let close = script_end(doc, end);
                        if close > end && sink(Event::ScriptText(&doc[end..close])).is_break() {
                            return;
                        }
                        close
                    }
                    TextMode::Rest => return,
                }
            }
            // A `<` in text.
            _ => lt + 1,
        };
    }
}

/// HTML's ASCII whitespace (a carriage return counts: the input stream turns it into a line feed).
fn is_ws(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

/// The index after the next `>` from `from` (the end of a bogus comment or a doctype), or the end.
fn after_gt(doc: &[u8], from: usize) -> usize {
    memchr(b'>', &doc[from.min(doc.len())..]).map_or(doc.len(), |i| from + i + 1)
}

/// After `<!`: a comment, a CDATA section (only in foreign content), or else a bogus comment (a doctype
/// reads the same way here). Returns where markup resumes.
fn declaration(doc: &[u8], from: usize, cdata_allowed: bool) -> usize {
    let rest = &doc[from.min(doc.len())..];
    if let Some(body) = rest.strip_prefix(b"--") {
        let start = from + 2;
        // `<!-->` and `<!--->` are whole (empty) comments.
        if body.starts_with(b">") {
            return start + 1;
        }
        if body.starts_with(b"->") {
            return start + 2;
        }
        let mut at = start;
        while let Some(i) = memchr(b'-', &doc[at..]) {
            let dash = at + i;
            let tail = &doc[dash..];
            if tail.starts_with(b"-->") {
                return dash + 3;
            }
            if tail.starts_with(b"--!>") {
                return dash + 4;
            }
            at = dash + 1;
        }
        return doc.len();
    }
    if cdata_allowed && rest.starts_with(b"[CDATA[") {
        let body = from + 7;
        return memchr::memmem::find(&doc[body..], b"]]>").map_or(doc.len(), |i| body + i + 3);
    }
    after_gt(doc, from)
}

/// After `</`: an end tag (its attributes read like a start tag's, so a quoted `>` does not end it), `</>`
/// (ignored), or a bogus comment. Leaves foreign content where the end tag says so. Returns where markup
/// resumes, and whether it was `</form>` in HTML content.
fn end_tag(doc: &[u8], from: usize, ns: &mut Vec<Ns>) -> (usize, bool) {
    match doc.get(from) {
        Some(c) if c.is_ascii_alphabetic() => {
            let mut scratch = Vec::new();
            let Some((name, end, _)) = start_tag(doc, from, &mut scratch) else {
                return (doc.len(), false);
            };
            let name = &doc[name];
            let form = name.eq_ignore_ascii_case(b"form") && ns.last() == Some(&Ns::Html);
            leave_on_end_tag(name, ns);
            (end, form)
        }
        Some(b'>') => (from + 1, false),
        None => (doc.len(), false),
        Some(_) => (after_gt(doc, from), false),
    }
}

/// Reads a tag from its name at `from` to its `>`: the name's range, the index after the tag, whether it
/// ends in `/>`. Attributes go into `attrs`. `None` when the document ends inside the tag.
fn start_tag(
    doc: &[u8],
    from: usize,
    attrs: &mut Vec<(Range<usize>, Range<usize>)>,
) -> Option<(Range<usize>, usize, bool)> {
    let n = doc.len();
    let mut at = from;
    while at < n && !is_ws(doc[at]) && doc[at] != b'/' && doc[at] != b'>' {
        at += 1;
    }
    let name = from..at;
    loop {
        // Before an attribute name: whitespace, and `/` unless it closes the tag.
        while at < n && (is_ws(doc[at]) || doc[at] == b'/') {
            if doc[at] == b'/' && doc.get(at + 1) == Some(&b'>') {
                return Some((name, at + 2, true));
            }
            at += 1;
        }
        match doc.get(at) {
            None => return None,
            Some(b'>') => return Some((name, at + 1, false)),
            Some(_) => {}
        }
        // The name: a leading `=` belongs to it.
        let name_start = at;
        at += 1;
        while at < n && !is_ws(doc[at]) && !matches!(doc[at], b'/' | b'>' | b'=') {
            at += 1;
        }
        let attr_name = name_start..at;
        while at < n && is_ws(doc[at]) {
            at += 1;
        }
        if doc.get(at) != Some(&b'=') {
            attrs.push((attr_name, at..at));
            continue;
        }
        at += 1;
        while at < n && is_ws(doc[at]) {
            at += 1;
        }
        let value = match *doc.get(at)? {
            quote @ (b'"' | b'\'') => {
                let start = at + 1;
                let end = start + memchr(quote, &doc[start..])?;
                at = end + 1;
                start..end
            }
            // `name=>`: no value, and the tag ends.
            b'>' => at..at,
            _ => {
                let start = at;
                while at < n && !is_ws(doc[at]) && doc[at] != b'>' {
                    at += 1;
                }
                if at == n {
                    return None;
                }
                start..at
            }
        };
        attrs.push((attr_name, value));
    }
}

/// How the text after a start tag is read, updating the namespace stack as the tree builder would.
fn text_mode(name: &[u8], tag: &StartTag<'_>, self_closing: bool, ns: &mut Vec<Ns>) -> TextMode {
    let is = |t: &str| name.eq_ignore_ascii_case(t.as_bytes());
    let current = *ns.last().expect("never empty");
    if is("svg") || is("math") {
        if !self_closing {
            ns.push(if is("svg") { Ns::Svg } else { Ns::MathMl });
        }
        return TextMode::Data;
    }
    if current != Ns::Html {
        let font_exit = is("font")
            && ["color", "size", "face"]
                .iter()
                .any(|a| tag.attr(a).is_some());
        if font_exit || FOREIGN_EXITS.iter().any(|t| is(t)) {
            leave(ns);
        } else if !self_closing && is_integration_point(current, name, tag) {
            ns.push(Ns::Html);
        }
        return TextMode::Data;
    }
    if is("script") {
        TextMode::Script
    } else if is("plaintext") {
        TextMode::Rest
    } else if UNTIL_END_TAG.iter().any(|t| is(t)) {
        TextMode::UntilEndTag
    } else {
        TextMode::Data
    }
}

/// Elements whose text runs to their end tag without markup: raw text and RCDATA. Not `<noscript>`,
/// `<noframes>` or `<noembed>`, which a browser (with scripting on, or with frames) reads as raw text: their
/// content is the fallback a crawler that runs no scripts should see (`<noscript><img src>` of lazy-loaded
/// images, no-JS pagination), so it is read as markup, as Heritrix reads it.
const UNTIL_END_TAG: [&str; 5] = ["style", "textarea", "title", "iframe", "xmp"];

/// HTML start tags that end foreign content (WHATWG "in foreign content", the list lol_html follows).
const FOREIGN_EXITS: [&str; 44] = [
    "b",
    "big",
    "blockquote",
    "body",
    "br",
    "center",
    "code",
    "dd",
    "div",
    "dl",
    "dt",
    "em",
    "embed",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "hr",
    "i",
    "img",
    "li",
    "listing",
    "menu",
    "meta",
    "nobr",
    "ol",
    "p",
    "pre",
    "ruby",
    "s",
    "small",
    "span",
    "strong",
    "strike",
    "sub",
    "sup",
    "table",
    "tt",
    "u",
    "ul",
    "var",
];

/// SVG elements whose content is HTML (HTML integration points).
const SVG_HTML_POINTS: [&str; 3] = ["desc", "title", "foreignobject"];

/// MathML elements whose content is HTML (text integration points).
const MATHML_TEXT_POINTS: [&str; 5] = ["mi", "mo", "mn", "ms", "mtext"];

/// Whether a start tag in foreign content opens HTML inside it: SVG's `desc`, `title`, `foreignObject`,
/// MathML's text integration points, and `annotation-xml` that declares HTML.
fn is_integration_point(current: Ns, name: &[u8], tag: &StartTag<'_>) -> bool {
    let is = |t: &str| name.eq_ignore_ascii_case(t.as_bytes());
    match current {
        Ns::Svg => SVG_HTML_POINTS.iter().any(|t| is(t)),
        Ns::MathMl => {
            MATHML_TEXT_POINTS.iter().any(|t| is(t))
                || (is("annotation-xml")
                    && tag.attr("encoding").is_some_and(|e| {
                        e.eq_ignore_ascii_case(b"text/html")
                            || e.eq_ignore_ascii_case(b"application/xhtml+xml")
                    }))
        }
        Ns::Html => false,
    }
}

/// Leaves the current namespace for the one around it (the document's HTML stays).
fn leave(ns: &mut Vec<Ns>) {
    if ns.len() > 1 {
        ns.pop();
    }
}

/// An end tag leaves foreign content (`</svg>`, `</math>`, `</p>`, `</br>`) or an integration point in it.
fn leave_on_end_tag(name: &[u8], ns: &mut Vec<Ns>) {
    let is = |t: &str| name.eq_ignore_ascii_case(t.as_bytes());
    let current = *ns.last().expect("never empty");
    let outer = ns.len().checked_sub(2).map(|i| ns[i]);
    let leaves = match current {
        Ns::Svg => is("svg") || is("p") || is("br"),
        Ns::MathMl => is("math") || is("p") || is("br"),
        Ns::Html => match outer {
            Some(Ns::Svg) => SVG_HTML_POINTS.iter().any(|t| is(t)),
            Some(Ns::MathMl) => is("annotation-xml") || MATHML_TEXT_POINTS.iter().any(|t| is(t)),
            _ => false,
        },
    };
    if leaves {
        leave(ns);
    }
}

/// Whether `doc[at..]` is `</name` followed by whitespace, `/` or `>` (an "appropriate end tag").
fn is_end_tag_of(doc: &[u8], at: usize, name: &[u8]) -> bool {
    let rest = &doc[at..];
    rest.len() > name.len() + 2
        && rest.starts_with(b"</")
        && rest[2..2 + name.len()].eq_ignore_ascii_case(name)
        && matches!(
            rest[2 + name.len()],
            b'\t' | b'\n' | b'\x0C' | b'\r' | b' ' | b'/' | b'>'
        )
}

/// Where the end tag `</name` that closes raw text or RCDATA starting at `from` begins, or the end.
fn find_end_tag(doc: &[u8], from: usize, name: &[u8]) -> usize {
    let mut at = from;
    while let Some(i) = memchr(b'<', &doc[at..]) {
        let lt = at + i;
        if is_end_tag_of(doc, lt, name) {
            return lt;
        }
        at = lt + 1;
    }
    doc.len()
}

/// Where the `</script` that closes script data starting at `from` begins, or the end. Inside `<!--`,
/// `<script>` starts a "double escaped" part where `</script>` does not close (WHATWG script data states).
fn script_end(doc: &[u8], from: usize) -> usize {
    #[derive(PartialEq)]
    enum State {
        Plain,
        Escaped,
        DoubleEscaped,
    }
    let mut state = State::Plain;
    let mut at = from;
    while let Some(i) = memchr2(b'<', b'-', &doc[at..]) {
        let hit = at + i;
        let rest = &doc[hit..];
        at = hit + 1;
        if rest[0] == b'-' {
            if state != State::Plain && rest.starts_with(b"-->") {
                state = State::Plain;
                at = hit + 3;
            }
            continue;
        }
        match state {
            State::Plain if rest.starts_with(b"<!--") => {
                state = State::Escaped;
                // The dashes may also end it at once: `<!-->`.
                at = hit + 2;
            }
            State::Plain | State::Escaped if is_end_tag_of(doc, hit, b"script") => return hit,
            State::Escaped if is_start_tag_of(rest, b"script") => {
                state = State::DoubleEscaped;
                at = hit + 7;
            }
            State::DoubleEscaped if is_end_tag_of(doc, hit, b"script") => {
                state = State::Escaped;
                at = hit + 8;
            }
            _ => {}
        }
    }
    doc.len()
}

/// Whether `rest` starts with `<name` followed by whitespace, `/` or `>`.
fn is_start_tag_of(rest: &[u8], name: &[u8]) -> bool {
    rest.len() > name.len() + 1
        && rest[1..1 + name.len()].eq_ignore_ascii_case(name)
        && matches!(
            rest[1 + name.len()],
            b'\t' | b'\n' | b'\x0C' | b'\r' | b' ' | b'/' | b'>'
        )
}

#[cfg(test)]
mod tests;
