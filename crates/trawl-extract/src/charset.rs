//! Character encoding sniffing for HTML and CSS, after the WHATWG rules.
//!
//! HTML: byte order mark, then the `Content-Type` charset, then (for a page
//! served as XML, XHTML) its XML declaration's encoding, then a prescan
//! of the first 1024 bytes for `<meta charset>` or
//! `<meta http-equiv=content-type>`, then a chardetng guess, then
//! windows-1252. The BOM comes first as in browsers (WHATWG "encoding
//! sniffing algorithm"): a BOM is a stronger signal than a header that is
//! often a server-wide default.
//!
//! CSS: byte order mark, then the `Content-Type` charset, then a leading
//! `@charset "…";` rule, then UTF-8.

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252, X_USER_DEFINED};
use url::{Host, Url};

/// How many bytes the `<meta>` prescan looks at.
const PRESCAN_LEN: usize = 1024;

/// How many bytes chardetng is fed.
const DETECT_LEN: usize = 64 * 1024;

/// Picks the encoding of an HTML document.
pub(crate) fn sniff_html(
    body: &[u8],
    content_type: Option<&str>,
    doc_url: &Url,
) -> &'static Encoding {
    if let Some((encoding, _)) = Encoding::for_bom(body) {
        return encoding;
    }
    if let Some(encoding) = content_type.and_then(charset_param) {
        return encoding;
    }
    // An XHTML page (served as XML) is read by the XML parser, which reads its declaration (xt18a F6: a
    // login form's `<?xml … encoding="windows-1252"?>` page was posted in UTF-8).
    if content_type.is_some_and(|t| t.to_ascii_lowercase().contains("xml"))
        && let Some(encoding) = crate::xml::declared_encoding(body)
    {
        return encoding;
    }
    if let Some(encoding) = prescan(&body[..body.len().min(PRESCAN_LEN)]) {
        return encoding;
    }
    let mut detector = chardetng::EncodingDetector::new();
    detector.feed(
        &body[..body.len().min(DETECT_LEN)],
        body.len() <= DETECT_LEN,
    );
    let (guess, confident) = detector.guess_assess(tld(doc_url), true);
    if confident { guess } else { WINDOWS_1252 }
}

/// Picks the encoding of a CSS style sheet.
pub(crate) fn sniff_css(body: &[u8], content_type: Option<&str>) -> &'static Encoding {
    if let Some((encoding, _)) = Encoding::for_bom(body) {
        return encoding;
    }
    if let Some(encoding) = content_type.and_then(charset_param) {
        return encoding;
    }
    // CSS Syntax §3.2: exactly `@charset "` at byte 0, the label, `";`.
    const PREFIX: &[u8] = b"@charset \"";
    if let Some(rest) = body.strip_prefix(PREFIX)
        && let rest = &rest[..rest.len().min(64)]
        && let Some(end) = rest.windows(2).position(|w| w == b"\";")
        && let Some(encoding) = Encoding::for_label_no_replacement(&rest[..end])
    {
        // A UTF-16 label in an ASCII-readable file is a lie.
        return if encoding == UTF_16BE || encoding == UTF_16LE {
            UTF_8
        } else {
            encoding
        };
    }
    UTF_8
}

/// The encoding named by the `charset` parameter of a `Content-Type`
/// value, if it names one we know.
pub(crate) fn charset_param(content_type: &str) -> Option<&'static Encoding> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        if !name.trim().eq_ignore_ascii_case("charset") {
            return None;
        }
        let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
        Encoding::for_label_no_replacement(value.as_bytes())
    })
}

/// The top-level domain of the document's host, as chardetng wants it:
/// lower-case ASCII without dots.
fn tld(url: &Url) -> Option<&[u8]> {
    let Some(Host::Domain(domain)) = url.host() else {
        return None;
    };
    let label = domain.rsplit('.').next()?;
    let ok = !label.is_empty()
        && label
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    ok.then_some(label.as_bytes())
}

fn is_ws(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0C | b'\r' | b' ')
}

/// The WHATWG "prescan a byte stream to determine its encoding" algorithm,
/// over at most the first 1024 bytes.
pub(crate) fn prescan(b: &[u8]) -> Option<&'static Encoding> {
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"<!--") {
            // The closing dashes may overlap the opening ones: `<!-->`.
            i += 2;
            match b[i..].windows(3).position(|w| w == b"-->") {
                Some(p) => i += p + 3,
                None => return None,
            }
            continue;
        }
        if rest.len() >= 6
            && rest[..5].eq_ignore_ascii_case(b"<meta")
            && (is_ws(rest[5]) || rest[5] == b'/')
        {
            i += 6;
            if let Some(encoding) = meta(b, &mut i) {
                return Some(encoding);
            }
            continue;
        }
        if rest.len() >= 2
            && rest[0] == b'<'
            && (rest[1].is_ascii_alphabetic()
                || (rest[1] == b'/' && rest.get(2).is_some_and(u8::is_ascii_alphabetic)))
        {
            // A tag: skip its name, then its attributes.
            i += 1;
            while i < b.len() && !is_ws(b[i]) && b[i] != b'>' {
                i += 1;
            }
            while get_attribute(b, &mut i).is_some() {}
            i += 1;
            continue;
        }
        if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            match rest.iter().position(|&c| c == b'>') {
                Some(p) => i += p + 1,
                None => return None,
            }
            continue;
        }
        i += 1;
    }
    None
}

/// Reads the attributes of one `<meta>` tag (position just after `<meta`
/// and a space) and returns the encoding it declares, if any.
fn meta(b: &[u8], i: &mut usize) -> Option<&'static Encoding> {
    let mut seen: Vec<Vec<u8>> = Vec::new();
    let mut got_pragma = false;
    let mut need_pragma: Option<bool> = None;
    let mut charset: Option<&'static Encoding> = None;
    while let Some((name, value)) = get_attribute(b, i) {
        if seen.contains(&name) {
            continue;
        }
        match name.as_slice() {
            b"http-equiv" if value == b"content-type" => got_pragma = true,
            b"content" if charset.is_none() => {
                if let Some(label) = charset_from_content(&value) {
                    charset = Encoding::for_label_no_replacement(label);
                    need_pragma = Some(true);
                }
            }
            b"charset" => {
                charset = Encoding::for_label_no_replacement(&value);
                need_pragma = Some(false);
            }
            _ => {}
        }
        seen.push(name);
    }
    *i += 1;
    match need_pragma {
        None => return None,
        Some(true) if !got_pragma => return None,
        _ => {}
    }
    let charset = charset?;
    Some(if charset == UTF_16BE || charset == UTF_16LE {
        UTF_8
    } else if charset == X_USER_DEFINED {
        WINDOWS_1252
    } else {
        charset
    })
}

/// The WHATWG "get an attribute" step of the prescan. Returns the name and
/// value, lower-cased, and leaves `i` after the attribute; `None` at `>` or
/// at the end of input.
fn get_attribute(b: &[u8], i: &mut usize) -> Option<(Vec<u8>, Vec<u8>)> {
    while *i < b.len() && (is_ws(b[*i]) || b[*i] == b'/') {
        *i += 1;
    }
    if *i >= b.len() || b[*i] == b'>' {
        return None;
    }
    let mut name = Vec::new();
    let mut value = Vec::new();
    loop {
        let c = *b.get(*i)?;
        if c == b'=' && !name.is_empty() {
            *i += 1;
            break;
        } else if is_ws(c) {
            while *i < b.len() && is_ws(b[*i]) {
                *i += 1;
            }
            if b.get(*i) != Some(&b'=') {
                return Some((name, value));
            }
            *i += 1;
            break;
        } else if c == b'/' || c == b'>' {
            return Some((name, value));
        }
        name.push(c.to_ascii_lowercase());
        *i += 1;
    }
    while *i < b.len() && is_ws(b[*i]) {
        *i += 1;
    }
    let c = *b.get(*i)?;
    if c == b'"' || c == b'\'' {
        *i += 1;
        loop {
            let d = *b.get(*i)?;
            *i += 1;
            if d == c {
                return Some((name, value));
            }
            value.push(d.to_ascii_lowercase());
        }
    }
    if c == b'>' {
        return Some((name, value));
    }
    loop {
        let Some(&d) = b.get(*i) else {
            return Some((name, value));
        };
        if is_ws(d) || d == b'>' {
            return Some((name, value));
        }
        value.push(d.to_ascii_lowercase());
        *i += 1;
    }
}

/// The WHATWG "extract a character encoding from a meta element" algorithm,
/// on an already lower-cased `content` value. Returns the label.
fn charset_from_content(content: &[u8]) -> Option<&[u8]> {
    let mut i = 0;
    loop {
        let p = content[i..].windows(7).position(|w| w == b"charset")?;
        i += p + 7;
        while i < content.len() && is_ws(content[i]) {
            i += 1;
        }
        if content.get(i) == Some(&b'=') {
            i += 1;
            break;
        }
    }
    while i < content.len() && is_ws(content[i]) {
        i += 1;
    }
    match content.get(i)? {
        &q @ (b'"' | b'\'') => {
            let rest = &content[i + 1..];
            let end = rest.iter().position(|&c| c == q)?;
            Some(&rest[..end])
        }
        _ => {
            let rest = &content[i..];
            let end = rest
                .iter()
                .position(|&c| is_ws(c) || c == b';')
                .unwrap_or(rest.len());
            Some(&rest[..end])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url() -> Url {
        Url::parse("http://example.com/").unwrap()
    }

    macro_rules! html_case {
        ($name:ident, $body:expr, $ct:expr, $want:expr) => {
            #[test]
            fn $name() {
                assert_eq!(sniff_html($body, $ct, &url()).name(), $want);
            }
        };
    }

    html_case!(
        header_wins,
        b"<meta charset=utf-8>",
        Some("text/html; charset=Shift_JIS"),
        "Shift_JIS"
    );
    html_case!(
        header_quoted,
        b"",
        Some("text/html; charset=\"windows-1251\""),
        "windows-1251"
    );
    html_case!(
        bom_beats_header,
        b"\xEF\xBB\xBFabc",
        Some("text/html; charset=koi8-r"),
        "UTF-8"
    );
    html_case!(bom_utf16le, b"\xFF\xFEa\x00", None, "UTF-16LE");
    html_case!(
        meta_charset,
        b"<html><head><meta charset=\"euc-jp\">",
        None,
        "EUC-JP"
    );
    html_case!(
        meta_charset_unquoted_upper,
        b"<META CHARSET=KOI8-R>",
        None,
        "KOI8-R"
    );
    html_case!(
        meta_http_equiv,
        b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1251\">",
        None,
        "windows-1251"
    );
    html_case!(
        meta_content_needs_pragma,
        b"<meta content=\"text/html; charset=windows-1251\">",
        None,
        "UTF-8"
    );
    html_case!(
        meta_utf16_means_utf8,
        b"<meta charset=utf-16>",
        None,
        "UTF-8"
    );
    html_case!(
        meta_in_comment_ignored,
        b"<!-- <meta charset=koi8-r> -->",
        None,
        "UTF-8"
    );
    html_case!(
        meta_after_attr_with_gt_in_quotes,
        b"<div title='>'><meta charset=iso-8859-2>",
        None,
        "ISO-8859-2"
    );
    html_case!(
        unknown_header_label_ignored,
        b"<meta charset=koi8-r>",
        Some("text/html; charset=bogus"),
        "KOI8-R"
    );
    // chardetng calls pure ASCII UTF-8 when UTF-8 is allowed.
    html_case!(plain_ascii_is_utf8, b"<p>hello</p>", None, "UTF-8");
    html_case!(
        detects_windows_1252,
        b"<p>Gr\xFC\xDFe aus K\xF6ln, sch\xF6ne Stra\xDFe, \xE4\xF6\xFC</p>",
        None,
        "windows-1252"
    );
    html_case!(
        detects_utf8,
        "<p>Grüße aus Köln, schöne Straße, äöü ÄÖÜ</p>".as_bytes(),
        None,
        "UTF-8"
    );

    macro_rules! css_case {
        ($name:ident, $body:expr, $ct:expr, $want:expr) => {
            #[test]
            fn $name() {
                assert_eq!(sniff_css($body, $ct).name(), $want);
            }
        };
    }

    css_case!(css_default_utf8, b"a{}", None, "UTF-8");
    css_case!(
        css_at_charset,
        b"@charset \"windows-1251\"; a{}",
        None,
        "windows-1251"
    );
    css_case!(
        css_header_beats_at_charset,
        b"@charset \"koi8-r\";",
        Some("text/css;charset=iso-8859-2"),
        "ISO-8859-2"
    );
    css_case!(
        css_at_charset_utf16_is_utf8,
        b"@charset \"utf-16\";",
        None,
        "UTF-8"
    );
}
