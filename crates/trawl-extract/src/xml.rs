//! What the XML readers (sitemaps, feeds, office documents) share: references in text, UTF-16 documents, and
//! the root element past the prolog.

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE};
use quick_xml::{Reader, events::BytesRef, events::Event};

/// The character a reference in text stands for: a character reference (`&#38;`, `&#x26;`) or one of the five
/// predefined entities. `None` for any other name (a DTD's entity, which is never expanded) and for a character
/// reference that names no character.
pub(crate) fn resolve_ref(r: &BytesRef<'_>) -> Option<char> {
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

/// `xml` as UTF-8 for quick-xml, which reads nothing else: a UTF-16 document (by its byte order mark, or by
/// `<?` in UTF-16 as XML's appendix F detects it) is decoded; anything else is returned as it is.
pub(crate) fn utf8(xml: &[u8]) -> Cow<'_, [u8]> {
    let Some((encoding, bom)) = utf16(xml) else {
        return Cow::Borrowed(xml);
    };
    let (text, _) = encoding.decode_without_bom_handling(&xml[bom..]);
    Cow::Owned(text.into_owned().into_bytes())
}

/// The UTF-16 encoding of `xml` and the length of its byte order mark, if it is UTF-16.
fn utf16(xml: &[u8]) -> Option<(&'static Encoding, usize)> {
    match Encoding::for_bom(xml) {
        Some((encoding, bom)) if encoding == UTF_16LE || encoding == UTF_16BE => {
            Some((encoding, bom))
        }
        Some(_) => None,
        None if xml.starts_with(b"<\0?\0") => Some((UTF_16LE, 0)),
        None if xml.starts_with(b"\0<\0?") => Some((UTF_16BE, 0)),
        None => None,
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
        assert_eq!(utf8(&le).as_ref(), text.as_bytes());
        assert_eq!(utf8(&be).as_ref(), text.as_bytes());
        assert!(matches!(utf8(text.as_bytes()), Cow::Borrowed(_)));
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
            let _ = root_name(&utf8(&body), 256);
        }
    }
}
