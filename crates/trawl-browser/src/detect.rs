//! Which HTML pages need a browser (`[browser] mode = "auto"`): a page whose HTML holds little text but
//! scripts, an empty application root, or a `<noscript>` fallback is built by JavaScript; an ordinary page
//! with text and links is not rendered.

use lol_html::{HtmlRewriter, Settings, element, text};

/// Visible text below which a page with scripts is taken for one built by JavaScript.
const LITTLE_TEXT: usize = 200;

/// Element ids single-page applications mount into.
const APP_ROOTS: [&str; 6] = ["root", "app", "__next", "___gatsby", "__nuxt", "svelte"];

/// Why a page needs rendering, as its `browser:…` note says it: `emptyRoot`, `noscript` or `littleText`;
/// `None` for a page that reads fine as it is (or has no script at all).
pub fn needs_rendering(html: &[u8]) -> Option<&'static str> {
    let mut scripts = 0usize;
    let mut noscript = false;
    let mut roots: Vec<String> = Vec::new();
    let mut text_len = 0usize;
    // Text inside script, style and template elements is not visible: counted apart and subtracted.
    let hidden = std::cell::Cell::new(0usize);
    let mut rewriter = HtmlRewriter::new(
        Settings {
            element_content_handlers: vec![
                element!("script", |_| {
                    scripts += 1;
                    Ok(())
                }),
                element!("noscript", |_| {
                    noscript = true;
                    Ok(())
                }),
                element!("[id]", |el| {
                    if let Some(id) = el.get_attribute("id")
                        && APP_ROOTS.contains(&id.as_str())
                    {
                        roots.push(id);
                    }
                    Ok(())
                }),
                text!("script, style, template, noscript", |t| {
                    hidden.set(hidden.get() + t.as_str().trim().len());
                    Ok(())
                }),
                text!("*", |t| {
                    text_len += t.as_str().trim().len();
                    Ok(())
                }),
            ],
            ..Settings::new()
        },
        |_: &[u8]| {},
    );
    if rewriter.write(html).is_err() || rewriter.end().is_err() {
        return None;
    }
    let visible = text_len.saturating_sub(hidden.get());
    if scripts == 0 {
        return None;
    }
    if !roots.is_empty() && visible < LITTLE_TEXT * 2 {
        return Some("emptyRoot");
    }
    if visible < LITTLE_TEXT {
        return Some(if noscript { "noscript" } else { "littleText" });
    }
    None
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

    #[test]
    fn any_bytes_are_judged_without_panicking() {
        for bytes in [&b"\xff\xfe<scr"[..], b"<script", b"<div id=root", b""] {
            let _ = needs_rendering(bytes);
        }
    }
}
