//! What the XML readers (sitemaps, feeds, office documents) share: references in text, UTF-16 documents, and
//! the root element past the prolog.

use std::borrow::Cow;

use encoding_rs::{Encoding, REPLACEMENT, UTF_8, UTF_16BE, UTF_16LE};
use quick_xml::{Reader, events::BytesRef, events::Event};

/// The character a reference in text stands for: a character reference (`&#38;`, `&#x26;`) or one of the five
/// predefined entities. `None` for any other name (a DTD's entity, which is never expanded) and for a character
/// reference that names no character.
pub fn resolve_ref(r: &BytesRef<'_>) -> Option<char> {
    if r.is_char_ref() {
        return r.resolve_char_ref().ok().flatten();
    }
    match r.as_ref() {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ => None,
    }
}

/// `xml` as UTF-8 for quick-xml, which reads nothing else (it stops at the first byte that is not UTF-8, so a
/// feed in ISO-8859-1 would give nothing past its first `é`). The encoding is the first of (RFC 7303 §3,
/// XML's appendix F): a byte order mark; UTF-16 when the document starts with `<` in UTF-16 (bytes no
/// ASCII-compatible encoding can have); `http`, the `charset` of the response's `Content-Type`; the encoding
/// the XML declaration names (`encoding="ISO-8859-1"`, `windows-1252`, `Shift_JIS`: WHATWG labels, as
/// browsers read them); UTF-8. A UTF-16 `charset` or declaration on bytes that are not UTF-16 is ignored. Valid
/// UTF-8 is returned as it is; a document that is neither (a stray windows-1252 quote in a UTF-8 feed) is read
/// with U+FFFD for its invalid bytes, so an encoding slip never reads as broken XML.
pub(crate) fn utf8<'a>(xml: &'a [u8], http: Option<&'static Encoding>) -> Cow<'a, [u8]> {
    let (encoding, bom) = match Encoding::for_bom(xml) {
        Some((encoding, bom)) => (encoding, bom),
        None => {
            let not_utf16 = |e: &&'static Encoding| ![UTF_16LE, UTF_16BE].contains(e);
            let unmarked = utf16(xml)
                .or_else(|| http.filter(not_utf16))
                .or_else(|| declared_encoding(xml).filter(not_utf16));
            (unmarked.unwrap_or(UTF_8), 0)
        }
    };
    if encoding != UTF_8 && encoding != REPLACEMENT {
        let (text, _) = encoding.decode_without_bom_handling(&xml[bom..]);
        return Cow::Owned(text.into_owned().into_bytes());
    }
    match String::from_utf8_lossy(xml) {
        Cow::Borrowed(_) => Cow::Borrowed(xml),
        Cow::Owned(text) => Cow::Owned(text.into_bytes()),
    }
}

/// The encoding the XML declaration at the start of `xml` names (`<?xml version="1.0" encoding="…"?>`), if
/// it names one encoding_rs knows.
pub(crate) fn declared_encoding(xml: &[u8]) -> Option<&'static Encoding> {
    let rest = xml.strip_prefix(b"<?xml")?;
    if !rest.first().is_some_and(|b| b.is_ascii_whitespace()) {
        return None;
    }
    let decl = &rest[..memchr::memmem::find(&rest[..rest.len().min(512)], b"?>")?];
    let at = memchr::memmem::find(decl, b"encoding")?;
    let value = decl[at + b"encoding".len()..].trim_ascii_start();
    let value = value.strip_prefix(b"=")?.trim_ascii_start();
    let quote = *value.first().filter(|q| matches!(q, b'"' | b'\''))?;
    let value = &value[1..];
    let label = &value[..memchr::memchr(quote, value)?];
    Encoding::for_label(label)
}

/// The UTF-16 encoding of `xml` without a byte order mark, told by its first character, `<` (XML's appendix F
/// looks for `<?`; a document without a declaration starts with its root's `<`).
fn utf16(xml: &[u8]) -> Option<&'static Encoding> {
    match xml {
        [b'<', 0, ..] => Some(UTF_16LE),
        [0, b'<', ..] => Some(UTF_16BE),
        _ => None,
    }
}

/// The local name of the root element, if one starts within the first `bound` bytes of `xml` with only a prolog
/// before it (a byte order mark, the XML declaration, comments, processing instructions, a DOCTYPE, white
/// space). Lower-cased.
pub(crate) fn root_name(xml: &[u8], bound: usize) -> Option<String> {
    let mut reader = Reader::from_reader(&xml[..xml.len().min(bound)]);
    reader.config_mut().trim_text(true);
    loop {
        match reader.read_event() {
            Ok(Event::Start(e) | Event::Empty(e)) => {
                return Some(e.local_name().as_ref().to_ascii_lowercase());
            }
            Ok(Event::Decl(_) | Event::Comment(_) | Event::PI(_) | Event::DocType(_)) => {}
            Ok(Event::Text(t)) if t.as_ref().trim().is_empty() => {}
            _ => return None,
        }
    }
}

/// How deep a reader is in the element tree, to tell a document that ends inside its root (cut short) from a
/// complete one: quick-xml reports both as a plain end of file.
#[derive(Debug, Default)]
pub(crate) struct Depth(usize);

impl Depth {
    /// Counts a start tag (`Start`) or an end tag (`End`); other events leave the depth as it is.
    pub(crate) fn see(&mut self, event: &Event<'_>) {
        match event {
            Event::Start(_) => self.enter(),
            Event::End(_) => self.leave(),
            _ => {}
        }
    }

    /// Counts a start tag.
    pub(crate) fn enter(&mut self) {
        self.0 += 1;
    }

    /// Counts an end tag.
    pub(crate) fn leave(&mut self) {
        self.0 = self.0.saturating_sub(1);
    }

    /// The number of elements open.
    pub(crate) fn open(&self) -> usize {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn references_predefined_and_numeric() {
        for (name, want) in [
            ("amp", Some('&')),
            ("lt", Some('<')),
            ("apos", Some('\'')),
            ("#38", Some('&')),
            ("#x26", Some('&')),
            ("#233", Some('é')),
            ("#0", None),
            ("#xZZ", None),
            ("nbsp", None),
        ] {
            assert_eq!(resolve_ref(&BytesRef::new(name)), want, "{name}");
        }
    }

    #[test]
    fn utf16_is_decoded() {
        let text = "<?xml version=\"1.0\"?><urlset/>";
        let le: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        assert_eq!(utf8(&le, None).as_ref(), text.as_bytes());
        assert_eq!(utf8(&be, None).as_ref(), text.as_bytes());
        assert!(matches!(utf8(text.as_bytes(), None), Cow::Borrowed(_)));
    }

    /// A document in the encoding its XML declaration names is decoded by it; one that is not UTF-8 and
    /// declares nothing (or UTF-8) is read with U+FFFD for the bytes that are not.
    #[test]
    fn declared_encodings_and_stray_bytes() {
        let latin1 =
            b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss><title>Caf\xe9</title></rss>";
        let want =
            "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss><title>Caf\u{e9}</title></rss>";
        assert_eq!(utf8(latin1, None).as_ref(), want.as_bytes());
        let cp1252 = b"<?xml version='1.0' encoding = 'windows-1252' ?><a>\x93q\x94</a>";
        assert!(
            std::str::from_utf8(&utf8(cp1252, None))
                .unwrap()
                .contains("\u{201c}q\u{201d}")
        );
        let sjis = b"<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><a>\x93\xfa</a>";
        assert!(
            std::str::from_utf8(&utf8(sjis, None))
                .unwrap()
                .contains("<a>\u{65e5}</a>")
        );
        let stray = b"<?xml version=\"1.0\" encoding=\"UTF-8\"?><a>it\x92s</a>";
        assert_eq!(
            utf8(stray, None).as_ref(),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><a>it\u{fffd}s</a>".as_bytes()
        );
        assert_eq!(
            utf8(b"<a>\xff</a>", None).as_ref(),
            "<a>\u{fffd}</a>".as_bytes()
        );
        // A declaration of UTF-16 on bytes that are not, or of a name no one knows: read as UTF-8.
        let lying = b"<?xml version=\"1.0\" encoding=\"UTF-16\"?><a>x</a>";
        assert!(matches!(utf8(lying, None), Cow::Borrowed(_)));
        let unknown = b"<?xml version=\"1.0\" encoding=\"klingon\"?><a>\xe9</a>";
        assert!(
            std::str::from_utf8(&utf8(unknown, None))
                .unwrap()
                .contains('\u{fffd}')
        );
        // A byte order mark beats the declaration.
        let bom = b"\xef\xbb\xbf<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>\xc3\xa9</a>";
        assert!(matches!(utf8(bom, None), Cow::Borrowed(_)));
    }

    /// RFC 7303: a byte order mark, then the HTTP `charset`, then the declaration, then UTF-8.
    #[test]
    fn the_http_charset_comes_after_a_bom_and_before_the_declaration() {
        let latin1 = Some(encoding_rs::WINDOWS_1252);
        // No declaration: the header decides (it used to be read as UTF-8, `é` lost to U+FFFD).
        let bare = b"<rss><title>Caf\xe9</title></rss>";
        assert_eq!(
            utf8(bare, latin1).as_ref(),
            "<rss><title>Caf\u{e9}</title></rss>".as_bytes()
        );
        assert!(
            std::str::from_utf8(&utf8(bare, None))
                .unwrap()
                .contains('\u{fffd}')
        );
        // The header beats the declaration.
        let declared = b"<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><a>\xe9</a>";
        assert!(
            std::str::from_utf8(&utf8(declared, latin1))
                .unwrap()
                .contains("<a>\u{e9}</a>")
        );
        let utf8_header = Some(encoding_rs::UTF_8);
        assert!(matches!(
            utf8(b"<a>\xc3\xa9</a>", utf8_header),
            Cow::Borrowed(_)
        ));
        // A byte order mark beats the header.
        let bom = b"\xef\xbb\xbf<a>\xc3\xa9</a>";
        assert!(matches!(utf8(bom, latin1), Cow::Borrowed(_)));
        // UTF-16 bytes are UTF-16 whatever the header says; a UTF-16 header on ASCII bytes is ignored.
        let text = "<a>\u{e9}</a>";
        let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert_eq!(utf8(&le, latin1).as_ref(), text.as_bytes());
        assert_eq!(
            utf8(b"<a>\xe9</a>", Some(encoding_rs::UTF_16LE)).as_ref(),
            "<a>\u{fffd}</a>".as_bytes()
        );
    }

    #[test]
    fn root_past_the_prolog() {
        let comment = "x".repeat(2000);
        let xml = format!(
            "\u{FEFF}<?xml version=\"1.0\"?>\n<!-- {comment} -->\n<?xml-stylesheet href=\"s.xsl\"?>\
             <!DOCTYPE urlset [<!ENTITY a \"b\">]>\n<URLSET xmlns=\"x\">"
        );
        assert_eq!(root_name(xml.as_bytes(), 4096).as_deref(), Some("urlset"));
        assert_eq!(root_name(xml.as_bytes(), 1024), None);
        assert_eq!(root_name(b"junk<urlset>", 4096), None);
        assert_eq!(
            root_name(b"<sm:sitemapindex/>", 4096).as_deref(),
            Some("sitemapindex")
        );
    }

    proptest! {
        #[test]
        fn any_bytes_decode_and_sniff_cleanly(body in proptest::collection::vec(any::<u8>(), 0..400)) {
            let text = utf8(&body, None);
            prop_assert!(std::str::from_utf8(&text).is_ok());
            let _ = root_name(&text, 256);
        }

        /// Whatever the header's charset and the bytes, the result is UTF-8.
        #[test]
        fn any_http_charset_decodes_to_utf8(
            label in proptest::sample::select(vec!["ISO-8859-1", "windows-1252", "Shift_JIS", "UTF-16", "UTF-16BE", "utf-8", "koi8-r"]),
            body in proptest::collection::vec(any::<u8>(), 0..200),
        ) {
            let http = Encoding::for_label_no_replacement(label.as_bytes());
            prop_assert!(std::str::from_utf8(&utf8(&body, http)).is_ok());
        }

        /// Whatever follows a declaration of a legacy encoding, the result is UTF-8.
        #[test]
        fn declared_documents_decode_to_utf8(
            label in proptest::sample::select(vec!["ISO-8859-1", "windows-1252", "Shift_JIS", "EUC-JP", "koi8-r", "utf-8", "x"]),
            body in proptest::collection::vec(any::<u8>(), 0..200),
        ) {
            let mut doc = format!("<?xml version=\"1.0\" encoding=\"{label}\"?>").into_bytes();
            doc.extend_from_slice(&body);
            prop_assert!(std::str::from_utf8(&utf8(&doc, None)).is_ok());
        }
    }
}
