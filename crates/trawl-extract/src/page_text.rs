//! The text of an HTML page as a reader sees it, for content filters: every text node outside `<script>`,
//! `<style>`, `<template>`, `<title>` and the other elements whose text is not shown, `<body>` tag or not (a
//! streaming parser adds no implied `<body>`, so the text is taken wherever it sits); in the page's own
//! encoding (as links are read: BOM, `Content-Type` charset, `<meta>`); character references decoded; words
//! split by inline markup (`Py<b>thon</b>`) kept whole, while block elements and line breaks separate words.
//! Also the page's title, keywords and description, references decoded.

use std::{
    cell::{Cell, RefCell},
    rc::Rc,
};

use lol_html::{HtmlRewriter, Settings, doc_text, element, end_tag, html_content::TextType, text};
use url::Url;

use crate::{charset, entities};

/// What [`page_text`] read of a page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageText {
    /// The text, at most about the limit given in bytes: each block on a line, words separated by one space.
    pub text: String,
    /// The first `<title>`, white space collapsed; `None` when absent or empty.
    pub title: Option<String>,
    /// `<meta name="keywords">`, as written (comma-separated), references decoded.
    pub keywords: Option<String>,
    /// `<meta name="description">`, references decoded.
    pub description: Option<String>,
}

/// Elements that do not break a word: text on either side of their tags runs on (`Py<b>thon</b>`).
const INLINE: &[&str] = &[
    "a", "abbr", "acronym", "b", "bdi", "bdo", "big", "cite", "code", "data", "del", "dfn", "em",
    "font", "i", "ins", "kbd", "label", "mark", "nobr", "q", "rb", "rp", "rt", "rtc", "ruby", "s",
    "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var", "wbr",
];

/// The page text of the HTML document `body` (its content codings already undone), served with
/// `content_type` from `doc_url`. At most about `limit` bytes of text are kept; the head fields are read
/// whatever the limit.
pub fn page_text(body: &[u8], content_type: Option<&str>, doc_url: &Url, limit: usize) -> PageText {
    let encoding = charset::sniff_html(body, content_type, doc_url);
    // Decoded first, so that UTF-16 and other non-ASCII-compatible pages are read too.
    let (html, _, _) = encoding.decode(body);
    let out = Rc::new(RefCell::new(PageText::default()));
    // The raw text of the text node being read: a character reference may straddle two chunks.
    let pending = Rc::new(RefCell::new(String::new()));
    // How many `<template>` elements are open: their content is not shown.
    let templates = Rc::new(Cell::new(0usize));
    let title = Rc::new(RefCell::new((false, String::new())));

    let (o, t) = (out.clone(), templates.clone());
    let on_element = element!("*", move |el| {
        let name = el.tag_name().to_ascii_lowercase();
        if name == "template" {
            t.set(t.get() + 1);
            let t = t.clone();
            let _ = el.on_end_tag(end_tag!(move |_| {
                t.set(t.get().saturating_sub(1));
                Ok(())
            }));
        } else if !INLINE.contains(&name.as_str()) {
            separate(&mut o.borrow_mut().text);
            let o = o.clone();
            let _ = el.on_end_tag(end_tag!(move |_| {
                separate(&mut o.borrow_mut().text);
                Ok(())
            }));
        }
        Ok(())
    });
    let o = out.clone();
    let on_meta = element!("meta[name]", move |el| {
        let name = el
            .get_attribute("name")
            .unwrap_or_default()
            .to_ascii_lowercase();
        let content = el
            .get_attribute("content")
            .map(|c| entities::decode_text(&c).into_owned());
        let mut o = o.borrow_mut();
        match name.trim() {
            "keywords" => o.keywords = content,
            "description" => o.description = content,
            _ => {}
        }
        Ok(())
    });
    let ti = title.clone();
    let on_title = text!("title", move |chunk| {
        let mut ti = ti.borrow_mut();
        if !ti.0 {
            ti.1.push_str(chunk.as_str());
            ti.0 = chunk.last_in_text_node();
        }
        Ok(())
    });
    let (o, p, t) = (out.clone(), pending.clone(), templates.clone());
    let on_text = doc_text!(move |chunk| {
        // Script, style, title, textarea, noscript and the like are other text types: not page text.
        if !matches!(
            chunk.text_type(),
            TextType::Data | TextType::CDataSection | TextType::PlainText
        ) || t.get() > 0
        {
            return Ok(());
        }
        let mut p = p.borrow_mut();
        let mut o = o.borrow_mut();
        if o.text.len() + p.len() < limit {
            p.push_str(chunk.as_str());
        }
        if chunk.last_in_text_node() {
            if chunk.text_type() == TextType::PlainText {
                o.text.push_str(&p);
            } else {
                o.text.push_str(&entities::decode_text(&p));
            }
            p.clear();
        }
        Ok(())
    });
    let mut rewriter = HtmlRewriter::new(
        Settings {
            element_content_handlers: vec![on_element, on_meta, on_title],
            document_content_handlers: vec![on_text],
            ..Settings::new()
        },
        |_: &[u8]| {},
    );
    // Malformed HTML ends the parse early; what was read so far still counts.
    let _ = rewriter
        .write(html.as_bytes())
        .and_then(|()| rewriter.end());
    let mut page = out.take();
    let rest = pending.take();
    page.text.push_str(&entities::decode_text(&rest));
    page.text = as_read(&page.text);
    let raw_title = title.take().1;
    let t = entities::decode_text(&raw_title)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    page.title = (!t.is_empty()).then_some(t);
    page
}

/// Marks where a block element or a line break separates the text on either side ([`as_read`] makes it
/// a line end).
/// Whether a reader of the HTML page `body` (its content codings undone), served with `content_type` from
/// `doc_url`, sees `text` in it, as a login's `success` and `logged_out` text signs are read: the page in its
/// own encoding, its character references decoded, and a no-break space and every run of white space read as
/// one space, in `text` as well (xt18a F1: `Connecté` never showed on a windows-1252 page, nor written
/// `Connect&eacute;`, nor `Sign&nbsp;out`). Markup between the words is not read through.
pub fn shows_text(body: &[u8], content_type: Option<&str>, doc_url: &Url, text: &str) -> bool {
    let wanted = spaced(text);
    if wanted.is_empty() {
        return false;
    }
    let (html, _, _) = charset::sniff_html(body, content_type, doc_url).decode(body);
    spaced(&entities::decode_text(&html)).contains(&wanted)
}

/// `text` with each run of white space (a no-break space among it) as one space, none at either end.
fn spaced(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        out.push(c);
    }
    out
}

fn separate(text: &mut String) {
    if !text.is_empty() && !text.ends_with(BREAK) {
        text.push(BREAK);
    }
}

/// What [`separate`] puts between blocks until [`as_read`]: a control character no page text holds as text.
const BREAK: char = '\u{1}';

/// The text as a reader sees it (xt15b F16): each block on a line of its own, white space within a line one
/// space (the source's own line breaks included), none at the start or end of a line or of the text, so that
/// `^` and `$` (with `re.MULTILINE`) match at blocks, and `\s` between two words is one character however the
/// source was wrapped.
fn as_read(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut gap: Option<char> = None;
    for c in text.chars() {
        if c == BREAK {
            gap = Some('\n');
        } else if c.is_ascii_whitespace() {
            // HTML's white space; a no-break space is a character of the text.
            gap = gap.or(Some(' '));
        } else {
            if let Some(g) = gap.take()
                && !out.is_empty()
            {
                out.push(g);
            }
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests;
