//! The file name a download script gives its document (`download.php?id=7` answering with
//! `Content-Disposition: attachment; filename="report.docx"`), read as browsers read it: `filename*` (RFC 8187,
//! percent-encoded in a named charset) before `filename`, a quoted name with its `\` escapes, an unquoted one up to
//! the next `;`. Only its extension is used, to tell an office document served with a generic type.

use std::borrow::Cow;

/// The file name a `Content-Disposition` field value gives, if any.
pub fn disposition_filename(value: &str) -> Option<String> {
    let mut plain = None;
    let mut extended = None;
    for (name, value) in params(value) {
        if name.eq_ignore_ascii_case("filename*") {
            extended = extended.or_else(|| extended_value(&value));
        } else if name.eq_ignore_ascii_case("filename") {
            plain = plain.or(Some(value));
        }
    }
    extended.or(plain).filter(|n| !n.trim().is_empty())
}

/// The extension of a file name or URL path (`docx` of `/a/Report.DOCX`), lower-cased; empty when it has none.
pub(crate) fn extension(name: &str) -> String {
    name.rsplit(['/', '\\'])
        .next()
        .and_then(|base| base.rsplit_once('.'))
        .map(|(_, ext)| ext.trim().to_ascii_lowercase())
        .unwrap_or_default()
}

/// The `name=value` parameters after the disposition type, values unquoted.
fn params(value: &str) -> Vec<(&str, String)> {
    let mut out = Vec::new();
    let Some(start) = value.find(';') else {
        return out;
    };
    let mut rest = &value[start + 1..];
    loop {
        rest = rest.trim_start_matches([' ', '\t', ';']);
        if rest.is_empty() {
            return out;
        }
        let name_end = rest.find(['=', ';']).unwrap_or(rest.len());
        let name = rest[..name_end].trim();
        rest = &rest[name_end..];
        let Some(after) = rest.strip_prefix('=') else {
            continue; // a parameter without a value
        };
        let after = after.trim_start_matches([' ', '\t']);
        let (v, next) = match after.strip_prefix('"') {
            Some(quoted_text) => quoted(quoted_text),
            None => {
                let end = after.find(';').unwrap_or(after.len());
                (after[..end].trim().to_owned(), &after[end..])
            }
        };
        out.push((name, v));
        rest = next;
    }
}

/// A quoted string's text (after its opening quote) and what follows its closing quote.
fn quoted(s: &str) -> (String, &str) {
    let mut text = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                if let Some((_, escaped)) = chars.next() {
                    text.push(escaped);
                }
            }
            '"' => return (text, &s[i + 1..]),
            c => text.push(c),
        }
    }
    (text, "")
}

/// An RFC 8187 value, `charset'language'percent-encoded`: UTF-8 as UTF-8, any other charset byte by byte as
/// Latin-1 (what the extension needs is ASCII either way).
fn extended_value(value: &str) -> Option<String> {
    let mut parts = value.splitn(3, '\'');
    let charset = parts.next()?;
    let _language = parts.next()?;
    let encoded = parts.next()?;
    let bytes: Cow<'_, [u8]> = percent_encoding::percent_decode_str(encoded).into();
    Some(if charset.eq_ignore_ascii_case("utf-8") {
        String::from_utf8_lossy(&bytes).into_owned()
    } else {
        bytes.iter().map(|&b| char::from(b)).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn names_as_browsers_read_them() {
        for (value, want) in [
            ("attachment; filename=\"report.docx\"", Some("report.docx")),
            ("attachment;filename=report.docx", Some("report.docx")),
            (
                "ATTACHMENT; FILENAME = \"a;b.xlsx\" ; size=3",
                Some("a;b.xlsx"),
            ),
            (
                "attachment; filename=\"q\\\"uote.pptx\"",
                Some("q\"uote.pptx"),
            ),
            ("attachment; filename=my report.odt", Some("my report.odt")),
            (
                "attachment; filename=\"fallback.bin\"; filename*=UTF-8''r%C3%A9port%20final.docx",
                Some("réport final.docx"),
            ),
            (
                "attachment; filename*=iso-8859-1'en'caf%E9.doc",
                Some("café.doc"),
            ),
            (
                "inline; filename*=broken; filename=plain.doc",
                Some("plain.doc"),
            ),
            ("attachment", None),
            ("attachment; filename=\"\"", None),
            ("attachment; name=\"x.docx\"", None),
        ] {
            assert_eq!(disposition_filename(value).as_deref(), want, "{value}");
        }
        assert_eq!(extension("/a/Report.DOCX"), "docx");
        assert_eq!(extension("C:\\files\\x.y\\report"), "");
        assert_eq!(extension("report"), "");
    }

    proptest! {
        #[test]
        fn any_value_reads_without_panic(value in "\\PC{0,120}") {
            let _ = disposition_filename(&value);
            let _ = extension(&value);
        }

        #[test]
        fn a_name_reads_back_in_each_form(
            stem in "[A-Za-z0-9_ .-]{1,20}",
            ext in "(docx|xlsx|pptx|odt|doc)",
            other in "[a-z]{1,8}=[a-z0-9]{0,8}",
        ) {
            let name = format!("{}.{ext}", stem.trim());
            prop_assume!(!stem.trim().is_empty());
            let quoted = format!("attachment; {other}; filename=\"{name}\"");
            prop_assert_eq!(disposition_filename(&quoted), Some(name.clone()));
            let encoded: String = percent_encoding::utf8_percent_encode(&name, percent_encoding::NON_ALPHANUMERIC).to_string();
            let extended = format!("attachment; filename=x.bin; filename*=UTF-8''{encoded}");
            prop_assert_eq!(disposition_filename(&extended), Some(name.clone()));
            prop_assert_eq!(extension(&name), ext);
        }
    }
}
