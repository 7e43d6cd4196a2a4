//! The form of a URL a person reads and copies from an address bar: the host in Unicode (`bücher.de`, not
//! `xn--bcher-kva.de`) and percent escapes of non-ASCII UTF-8 text decoded (`/café/`, not `/caf%C3%A9/`).
//! Escapes of ASCII characters (`%2F`, `%20`) and of bytes that are no UTF-8 stay as they are, so the form
//! never reads as a different URL. Filters written as a site shows its URLs match this form.

use std::borrow::Cow;

use url::{Position, Url};

/// `url` as an address bar shows it (see the module docs); borrowed when it is that already.
pub fn readable(url: &Url) -> Cow<'_, str> {
    let host = url.host_str().unwrap_or_default();
    let unicode_host = host
        .split('.')
        .any(|label| {
            label
                .get(..4)
                .is_some_and(|p| p.eq_ignore_ascii_case("xn--"))
        })
        .then(|| idna::domain_to_unicode(host))
        .and_then(|(text, result)| result.is_ok().then_some(text));
    let rest = &url[Position::AfterHost..];
    let decoded = decode_non_ascii(rest);
    if unicode_host.is_none() && matches!(decoded, Cow::Borrowed(_)) {
        return Cow::Borrowed(url.as_str());
    }
    let mut out = String::with_capacity(url.as_str().len());
    out.push_str(&url[..Position::BeforeHost]);
    out.push_str(unicode_host.as_deref().unwrap_or(host));
    out.push_str(&decoded);
    Cow::Owned(out)
}

/// `text` with each run of percent escapes of bytes 0x80 and above decoded where the bytes are UTF-8; the
/// escapes of ASCII characters and of bytes that are no UTF-8 are kept as written.
pub fn decode_non_ascii(text: &str) -> Cow<'_, str> {
    let b = text.as_bytes();
    let high_escape = |i: usize| -> Option<u8> {
        if b.get(i) != Some(&b'%') {
            return None;
        }
        let hex = text.get(i + 1..i + 3)?;
        u8::from_str_radix(hex, 16).ok().filter(|v| *v >= 0x80)
    };
    if !(0..b.len()).any(|i| high_escape(i).is_some()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut plain = 0;
    while i < b.len() {
        if high_escape(i).is_none() {
            i += 1;
            continue;
        }
        out.push_str(&text[plain..i]);
        let start = i;
        let mut bytes = Vec::new();
        while let Some(v) = high_escape(i) {
            bytes.push(v);
            i += 3;
        }
        // Each byte of the run is three characters of `text`: map the chunks back to the escapes.
        let mut at = start;
        for chunk in bytes.utf8_chunks() {
            out.push_str(chunk.valid());
            at += chunk.valid().len() * 3;
            let invalid = chunk.invalid().len() * 3;
            out.push_str(&text[at..at + invalid]);
            at += invalid;
        }
        plain = i;
    }
    out.push_str(&text[plain..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
    use proptest::prelude::*;

    use super::*;

    fn r(u: &str) -> String {
        readable(&Url::parse(u).unwrap()).into_owned()
    }

    #[test]
    fn address_bar_forms() {
        assert_eq!(
            r("http://127.0.0.1:8601/caf%C3%A9/a.html"),
            "http://127.0.0.1:8601/café/a.html"
        );
        assert_eq!(
            r("http://127.0.0.1:8601/café2/a.html"),
            "http://127.0.0.1:8601/café2/a.html"
        );
        assert_eq!(r("http://bücher.de/x?q=é#é"), "http://bücher.de/x?q=é#é");
        assert_eq!(r("http://a.org/a%2Fb%20c"), "http://a.org/a%2Fb%20c");
        // Latin-1 bytes are no UTF-8: kept; a valid sequence beside them is decoded.
        assert_eq!(
            r("http://a.org/caf%E9/%C3%A9%FF"),
            "http://a.org/caf%E9/é%FF"
        );
        assert_eq!(r("http://xn--bcher-kva.de/"), "http://bücher.de/");
        assert_eq!(r("http://user:pw@a.org:81/"), "http://user:pw@a.org:81/");
        assert!(matches!(
            readable(&Url::parse("http://a.org/plain?x=1").unwrap()),
            Cow::Borrowed(_)
        ));
    }

    proptest! {
        /// Non-ASCII text percent-encoded as UTF-8 reads back as itself.
        #[test]
        fn encoded_text_decodes(s in "[^%]{0,40}") {
            let encoded: String = s
                .chars()
                .map(|c| if c.is_ascii() { c.to_string() } else { utf8_percent_encode(&c.to_string(), NON_ALPHANUMERIC).to_string() })
                .collect();
            prop_assert_eq!(decode_non_ascii(&encoded), s);
        }

        /// Any text: no panic, and decoding again changes nothing.
        #[test]
        fn decoding_is_idempotent(s in "(%[0-9A-Fa-f]{0,2}|[^%]){0,40}") {
            let once = decode_non_ascii(&s).into_owned();
            prop_assert_eq!(decode_non_ascii(&once), once.as_str());
        }
    }
}
