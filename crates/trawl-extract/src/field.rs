//! Response header fields read as browsers read them when a server repeats a field or sends bytes that are
//! not ASCII: a repeated list field is one list (RFC 9110 §5.3), `Content-Type` is the last value that parses
//! as a MIME type (WHATWG Fetch, "extract a MIME type"). Values are read lossily: a stray byte >= 0x80 in a
//! parameter does not make the whole field vanish.

/// Every value of a list field (`Content-Encoding`, `Vary`, ...), its field lines joined with `", "` in the
/// order received; `None` when no line has any text.
pub fn list<'a>(values: impl IntoIterator<Item = &'a [u8]>) -> Option<String> {
    let joined = values
        .into_iter()
        .map(|v| String::from_utf8_lossy(v).trim().to_string())
        .filter(|v| !v.is_empty())
        .collect::<Vec<_>>()
        .join(", ");
    (!joined.is_empty()).then_some(joined)
}

/// The `Content-Type` of a response whose field lines are `values`: of all the comma-separated values (commas
/// inside quoted strings kept), the last whose essence is `type/subtype` (and not `*/*`), trimmed. A later
/// value of the same essence without a `charset` keeps the earlier one, as Fetch keeps its charset.
pub fn content_type<'a>(values: impl IntoIterator<Item = &'a [u8]>) -> Option<String> {
    let text = list(values)?;
    let mut found: Option<(&str, String)> = None;
    for value in split_unquoted(&text) {
        let value = value.trim_matches(|c: char| matches!(c, ' ' | '\t' | '\r' | '\n'));
        let Some(essence) = essence(value) else {
            continue;
        };
        if let Some((previous, _)) = &found
            && previous.eq_ignore_ascii_case(essence)
            && !has_charset(value)
        {
            continue;
        }
        found = Some((essence, value.to_string()));
    }
    found.map(|(_, value)| value)
}

/// The target of a `Refresh` field (`5; url=/next`), read as browsers read it, as a `<meta http-equiv=refresh>`'s
/// content is: of its first line. `None` when it only reloads the page, or cannot be read.
pub fn refresh<'a>(values: impl IntoIterator<Item = &'a [u8]>) -> Option<String> {
    let first = values.into_iter().next()?;
    crate::html::refresh_url(&String::from_utf8_lossy(first)).map(str::to_owned)
}

/// The links of `Link` fields (RFC 8288: `<url>; rel=preload; as=style, <url2>; rel="stylesheet"`): each
/// target with its `rel` (lowercased; empty without one), in the order written. Commas inside the brackets
/// or a quoted parameter do not split a link; a value without a bracketed target is passed over.
pub fn links<'a>(values: impl IntoIterator<Item = &'a [u8]>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for value in values {
        let text = String::from_utf8_lossy(value);
        let mut rest = text.as_ref();
        while let Some(open) = rest.find('<') {
            let Some(close) = rest[open..].find('>').map(|i| open + i) else {
                break;
            };
            let target = rest[open + 1..close].trim();
            // The parameters run to the next comma outside a quoted string.
            let params = &rest[close + 1..];
            let end = split_unquoted(params)
                .first()
                .map_or(params.len(), |p| p.len());
            let rel = params[..end]
                .split(';')
                .filter_map(|p| p.split_once('='))
                .find(|(name, _)| name.trim().eq_ignore_ascii_case("rel"))
                .map(|(_, v)| v.trim().trim_matches('"').to_ascii_lowercase())
                .unwrap_or_default();
            if !target.is_empty() {
                out.push((target.to_owned(), rel));
            }
            rest = params.get(end + 1..).unwrap_or("");
        }
    }
    out
}

/// `text` cut at commas outside double-quoted strings (a backslash escapes inside one).
fn split_unquoted(text: &str) -> Vec<&str> {
    let (mut parts, mut start, mut quoted, mut escaped) = (Vec::new(), 0, false, false);
    for (i, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ',' if !quoted => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// The `type/subtype` of a MIME type, when both are HTTP tokens and it is not `*/*`.
fn essence(value: &str) -> Option<&str> {
    let essence = value.split(';').next()?.trim_end_matches([' ', '\t']);
    let (kind, sub) = essence.split_once('/')?;
    let token = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
    };
    (token(kind) && token(sub) && essence != "*/*").then_some(essence)
}

fn has_charset(value: &str) -> bool {
    value.split(';').skip(1).any(|p| {
        p.trim_start()
            .get(..8)
            .is_some_and(|n| n.eq_ignore_ascii_case("charset="))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_join_their_lines() {
        assert_eq!(list([&b"gzip"[..], b" br "]).as_deref(), Some("gzip, br"));
        assert_eq!(list([&b""[..], b"  "]), None);
        assert_eq!(list([&b"gz\xffip"[..]]).as_deref(), Some("gz\u{fffd}ip"));
    }

    #[test]
    fn the_last_parsable_content_type_wins() {
        let rows: &[(&[&[u8]], Option<&str>)] = &[
            (&[b"text/plain", b"text/html"], Some("text/html")),
            (&[b"text/html, text/plain"], Some("text/plain")),
            (&[b"text/html", b"nonsense"], Some("text/html")),
            (&[b"text/html", b"*/*"], Some("text/html")),
            (
                &[b"text/html; charset=\"a,b\""],
                Some("text/html; charset=\"a,b\""),
            ),
            (
                &[b"text/html; charset=gbk", b"text/html"],
                Some("text/html; charset=gbk"),
            ),
            (
                &[b"text/html; charset=gbk", b"text/html; charset=utf-8"],
                Some("text/html; charset=utf-8"),
            ),
            (
                &[b"text/html; title=caf\xe9"],
                Some("text/html; title=caf\u{fffd}"),
            ),
            (&[b" text/css "], Some("text/css")),
            (&[b"html"], None),
            (&[b""], None),
            (&[], None),
        ];
        for (values, want) in rows {
            assert_eq!(
                content_type(values.iter().copied()).as_deref(),
                *want,
                "{values:?}"
            );
        }
    }

    /// xt46a F9: a `Refresh` field is read as a meta refresh is; `Link` fields give their targets and rels.
    #[test]
    fn refresh_and_link_fields() {
        assert_eq!(refresh([&b"0; url=/found"[..]]).as_deref(), Some("/found"));
        assert_eq!(refresh([&b"5;URL='/a b'"[..]]).as_deref(), Some("/a b"));
        assert_eq!(refresh([&b"5"[..]]), None);
        let got = links([
            &b"</s.css>; rel=preload; as=style, <https://a.example/x,y>; rel=\"Stylesheet\"; title=\"a, b\""[..],
            &b"<>; rel=icon, no-bracket; rel=x, </n>"[..],
        ]);
        let want: Vec<(String, String)> = [
            ("/s.css", "preload"),
            ("https://a.example/x,y", "stylesheet"),
            ("/n", ""),
        ]
        .iter()
        .map(|(u, r)| (u.to_string(), r.to_string()))
        .collect();
        assert_eq!(got, want);
    }

    proptest::proptest! {
        /// Any `Link` bytes give targets that were between brackets in them, never a panic.
        #[test]
        fn any_link_field_gives_bracketed_targets(value in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..80)) {
            let text = String::from_utf8_lossy(&value).into_owned();
            for (target, rel) in links([value.as_slice()]) {
                proptest::prop_assert!(text.contains(target.as_str()), "{target:?}");
                proptest::prop_assert!(rel == rel.to_ascii_lowercase());
            }
        }

        #[test]
        fn any_field_lines_give_a_parsable_type_or_none(lines in proptest::collection::vec(proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40), 0..4)) {
            let values = lines.iter().map(Vec::as_slice);
            if let Some(found) = content_type(values.clone()) {
                // What is given is one of the values, with an essence of its own.
                proptest::prop_assert!(essence(&found).is_some(), "{found:?}");
                let joined = list(values).unwrap_or_default();
                proptest::prop_assert!(joined.contains(found.as_str()), "{found:?} in {joined:?}");
            }
        }
    }
}
