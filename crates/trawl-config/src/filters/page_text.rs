//! The text and head fields that text filters read: body text without tags, title, keywords, description.

use std::{
    cell::{Cell, RefCell},
    rc::Rc,
};

use lol_html::{HtmlRewriter, Settings, element, text};

use super::text::HtmlMeta;

/// Text of an HTML page (script and style content left out) and its `<title>` and `<meta>` keywords and
/// description. Streaming and bounded: at most `limit` bytes of text are kept.
pub fn page_text(html: &[u8], limit: usize) -> (String, HtmlMeta) {
    let body = Rc::new(RefCell::new(String::new()));
    let title = Rc::new(RefCell::new(String::new()));
    let meta = Rc::new(RefCell::new(HtmlMeta::default()));
    let (b, t, m) = (body.clone(), title.clone(), meta.clone());
    // Set while a chunk belongs to <script> or <style>: their text is code, not page text. Set and cleared
    // around each such chunk, so a chunk the body handler never sees (script or style in `<head>`) leaves it clear.
    let skipping = Rc::new(Cell::new(false));
    let (skip_start, skip_text, skip_end) = (skipping.clone(), skipping.clone(), skipping.clone());
    let mut rewriter = HtmlRewriter::new(
        Settings {
            element_content_handlers: vec![
                text!("title", move |chunk| {
                    t.borrow_mut().push_str(chunk.as_str());
                    Ok(())
                }),
                element!("meta[name]", move |el| {
                    let name = el
                        .get_attribute("name")
                        .unwrap_or_default()
                        .to_ascii_lowercase();
                    let content = el.get_attribute("content");
                    let mut meta = m.borrow_mut();
                    match name.as_str() {
                        "keywords" => meta.keywords = content,
                        "description" => meta.description = content,
                        _ => {}
                    }
                    Ok(())
                }),
                // Registered before the body handler, so for a chunk of script or style text it runs first and
                // tells the body handler to skip that chunk.
                text!("script, style", move |_| {
                    skip_start.set(true);
                    Ok(())
                }),
                text!("body", move |chunk| {
                    let mut body = b.borrow_mut();
                    if skip_text.get() {
                        return Ok(());
                    }
                    if body.len() < limit {
                        body.push_str(chunk.as_str());
                        if chunk.last_in_text_node() {
                            body.push(' ');
                        }
                    }
                    Ok(())
                }),
                // Registered after the body handler: the chunk of script or style text is done with.
                text!("script, style", move |_| {
                    skip_end.set(false);
                    Ok(())
                }),
            ],
            ..Settings::new()
        },
        |_: &[u8]| {},
    );
    // Malformed HTML ends the parse early; what was read so far still counts.
    let _ = rewriter.write(html).and_then(|()| rewriter.end());
    let mut meta = meta.take();
    let t = title.take();
    if !t.trim().is_empty() {
        meta.title = Some(t.trim().to_string());
    }
    (body.take(), meta)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_head_fields() {
        let html =
            b"<html><head><title> Robots </title><meta name=Keywords content=\"a, crawler\">\
                     <meta name=description content=d></head><body><p>Hello <b>web</b></p>\
                     <script>var hidden=1</script><style>p{}</style>bot</body></html>";
        let (text, meta) = page_text(html, 1 << 20);
        assert!(
            text.contains("Hello") && text.contains("web") && text.contains("bot"),
            "{text}"
        );
        assert!(!text.contains("hidden") && !text.contains("p{}"), "{text}");
        assert_eq!(meta.title.as_deref(), Some("Robots"));
        assert_eq!(meta.keywords.as_deref(), Some("a, crawler"));
        assert_eq!(meta.description.as_deref(), Some("d"));
        let (short, _) = page_text(b"<body>aaaaaaaaaa bbbbbbbbbb</body>", 5);
        assert!(short.len() < 30);
    }

    #[test]
    fn head_script_and_style_do_not_hide_the_first_body_text() {
        // The tester's headstyle.html: the style's text in <head> used to leave the skip flag set, which then
        // swallowed the body's first text (`SECRETWORD first`).
        let html = b"<html><head><style>p{color:red}</style><script>var x=1</script></head>\
                     <body><p>SECRETWORD first</p><a href=\"/headstyle-link.html\">x</a></body></html>";
        let (text, _) = page_text(html, 1 << 20);
        assert!(text.contains("SECRETWORD first"), "{text}");
        assert!(!text.contains("color") && !text.contains("var x"), "{text}");
    }
}
