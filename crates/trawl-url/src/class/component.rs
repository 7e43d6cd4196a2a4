//! Path component and query parameter matchers (hydrus's `StringMatch`), compiled from their definitions.

use std::borrow::Cow;

use percent_encoding::percent_decode_str;

use super::def::{MatchType, PathComponentDef, QueryParamDef};
use super::pattern::Pattern;

/// Characters hydrus leaves unencoded in a path component besides the unreserved ones (RFC 3986 §3.3).
const PATH_SAFE: &[u8] = b"!$&'()*+,;=@:";
/// Characters left unencoded in a query name or value besides the unreserved ones (RFC 3986 §3.4, less `&=#`).
const QUERY_SAFE: &[u8] = b"!$'()*+,;@:/?";

/// A compiled test for one component's text.
#[derive(Debug, Clone)]
pub(crate) struct Matcher {
    test: Test,
    min_chars: Option<usize>,
    max_chars: Option<usize>,
}

#[derive(Debug, Clone)]
enum Test {
    /// The fixed text, percent-decoded.
    Fixed(String),
    Numeric,
    Alpha,
    Alphanumeric,
    Regex(Pattern),
    Any,
}

/// A definition that cannot be compiled: the field (relative to the component) and the reason.
pub(crate) type FieldError = (&'static str, String);

impl Matcher {
    fn new(
        match_type: MatchType,
        value: Option<&str>,
        min_chars: Option<usize>,
        max_chars: Option<usize>,
    ) -> Result<Self, FieldError> {
        let test = match (match_type, value) {
            (MatchType::Fixed | MatchType::Regex, None) => {
                return Err((
                    "value",
                    "is required for match = \"fixed\" and match = \"regex\"".into(),
                ));
            }
            (
                MatchType::Numeric | MatchType::Alpha | MatchType::Alphanumeric | MatchType::Any,
                Some(_),
            ) => {
                return Err((
                    "value",
                    "is only for match = \"fixed\" and match = \"regex\"".into(),
                ));
            }
            (MatchType::Fixed, Some(v)) => Test::Fixed(decode(v).into_owned()),
            (MatchType::Regex, Some(v)) => Test::Regex(Pattern::new(v).map_err(|e| {
                (
                    "value",
                    format!("{:?} is not a valid regex: {}", e.pattern, e.reason),
                )
            })?),
            (MatchType::Numeric, None) => Test::Numeric,
            (MatchType::Alpha, None) => Test::Alpha,
            (MatchType::Alphanumeric, None) => Test::Alphanumeric,
            (MatchType::Any, None) => Test::Any,
        };
        if let (Some(min), Some(max)) = (min_chars, max_chars)
            && min > max
        {
            return Err(("min_chars", format!("{min} is more than max_chars {max}")));
        }
        Ok(Self {
            test,
            min_chars,
            max_chars,
        })
    }

    /// Whether `text` (as it appears in the URL, percent-encoded) passes.
    #[cfg(test)]
    pub(crate) fn matches(&self, text: &str) -> bool {
        self.why_not(text).is_none()
    }

    /// Why `text` fails, as a sentence fragment; `None` if it passes.
    pub(crate) fn why_not(&self, text: &str) -> Option<String> {
        let len = text.chars().count();
        if let Some(min) = self.min_chars.filter(|&min| len < min) {
            return Some(format!("{text:?} has fewer than {min} characters"));
        }
        if let Some(max) = self.max_chars.filter(|&max| len > max) {
            return Some(format!("{text:?} has more than {max} characters"));
        }
        let ok = match &self.test {
            Test::Fixed(want) => decode(text) == want.as_str(),
            Test::Numeric => !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()),
            Test::Alpha => !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphabetic()),
            Test::Alphanumeric => {
                !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric())
            }
            Test::Regex(p) => p.is_match(text),
            Test::Any => true,
        };
        (!ok).then(|| match &self.test {
            Test::Fixed(want) => format!("{text:?} is not {want:?}"),
            Test::Numeric => format!("{text:?} is not numeric"),
            Test::Alpha => format!("{text:?} is not alphabetic"),
            Test::Alphanumeric => format!("{text:?} is not alphanumeric"),
            Test::Regex(p) => format!("{text:?} does not match the regex {p:?}"),
            Test::Any => unreachable!("any matches everything"),
        })
    }
}

/// A path component of a compiled class.
#[derive(Debug, Clone)]
pub(crate) struct PathComponent {
    pub(crate) matcher: Matcher,
    /// The default, percent-encoded for a path.
    pub(crate) default: Option<String>,
    /// A fixed component's text, percent-encoded for a path: what the normalised URL holds, however a URL
    /// spells it (`sh%6Fw` matches `show` and is normalised to it).
    pub(crate) fixed: Option<String>,
}

impl PathComponent {
    pub(crate) fn new(def: &PathComponentDef) -> Result<Self, FieldError> {
        let matcher = Matcher::new(
            def.match_type,
            def.value.as_deref(),
            def.min_chars,
            def.max_chars,
        )?;
        let default = def.default.as_deref().map(|d| ensure_encoded(d, PATH_SAFE));
        let fixed = (def.match_type == MatchType::Fixed)
            .then(|| {
                def.value
                    .as_deref()
                    .map(|v| ensure_encoded(&decode(v), PATH_SAFE))
            })
            .flatten();
        Ok(Self {
            matcher,
            default,
            fixed,
        })
    }
}

/// A query parameter of a compiled class.
#[derive(Debug, Clone)]
pub(crate) struct QueryParam {
    /// The name, percent-encoded, as written into URLs that lack the parameter.
    pub(crate) name: String,
    /// The name, percent-decoded, as compared with a URL's parameter names.
    pub(crate) decoded_name: String,
    pub(crate) matcher: Matcher,
    /// The default, percent-encoded for a query.
    pub(crate) default: Option<String>,
}

impl QueryParam {
    pub(crate) fn new(def: &QueryParamDef) -> Result<Self, FieldError> {
        if def.name.is_empty() {
            return Err(("name", "must not be empty".into()));
        }
        let matcher = Matcher::new(
            def.match_type,
            def.value.as_deref(),
            def.min_chars,
            def.max_chars,
        )?;
        let default = def
            .default
            .as_deref()
            .map(|d| ensure_encoded(d, QUERY_SAFE));
        Ok(Self {
            name: ensure_encoded(&def.name, QUERY_SAFE),
            decoded_name: decode(&def.name).into_owned(),
            matcher,
            default,
        })
    }
}

/// Why a default fails its own matcher, if it does. hydrus stores such defaults in real libraries and uses a
/// default only where the component is missing, so this is a warning: URLs that lack the component normalise
/// into ones the class no longer matches, and the rest of the class works.
pub(crate) fn odd_default(matcher: &Matcher, default: Option<&str>) -> Option<String> {
    let d = default?;
    // Matched as it goes into URLs (percent-encoded), quoted as the library writes it.
    let why = matcher
        .why_not(d)?
        .replace(&format!("{d:?}"), &format!("{:?}", decode(d)));
    Some(format!(
        "the default fails its own match ({why}); it is used only where the component is missing"
    ))
}

/// Percent-decodes `text` (invalid UTF-8 becomes U+FFFD).
pub(crate) fn decode(text: &str) -> Cow<'_, str> {
    percent_decode_str(text).decode_utf8_lossy()
}

/// Percent-encodes what must be encoded, leaving existing `%XX` escapes alone (so it is idempotent).
pub(crate) fn ensure_encoded(text: &str, safe: &[u8]) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    for (i, &b) in bytes.iter().enumerate() {
        let escape = b == b'%'
            && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
        if escape || b.is_ascii_alphanumeric() || b"-._~".contains(&b) || safe.contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(match_type: MatchType, value: Option<&str>) -> Matcher {
        Matcher::new(match_type, value, None, None).unwrap()
    }

    macro_rules! matches {
        ($name:ident: $matcher:expr, yes: [$($yes:expr),*], no: [$($no:expr),*]) => {
            #[test]
            fn $name() {
                let matcher = $matcher;
                $(assert!(matcher.matches($yes), "{:?} should match", $yes);)*
                $(assert!(!matcher.matches($no), "{:?} should not match", $no);)*
            }
        };
    }

    matches!(fixed: m(MatchType::Fixed, Some("index.php")), yes: ["index.php"], no: ["index.ph", "Index.php", ""]);
    matches!(fixed_decoded: m(MatchType::Fixed, Some("post[id]")), yes: ["post%5Bid%5D", "post[id]"], no: ["post"]);
    matches!(numeric: m(MatchType::Numeric, None), yes: ["0", "6391256"], no: ["", "12a", "-1", "١٢"]);
    matches!(alpha: m(MatchType::Alpha, None), yes: ["abcXYZ"], no: ["", "ab1", "é"]);
    matches!(alphanumeric: m(MatchType::Alphanumeric, None), yes: ["ab12", "9"], no: ["", "a-b"]);
    matches!(regex_searches: m(MatchType::Regex, Some(r"\d\.json")), yes: ["1910662.json", "x1.jsonx"], no: ["a.json"]);
    matches!(regex_anchored: m(MatchType::Regex, Some(r"^\d+\..+$")), yes: ["1512858563140.jpg"], no: ["a1.jpg"]);
    matches!(regex_look_ahead: m(MatchType::Regex, Some("^(?!search).+$")), yes: ["posts"], no: ["search", ""]);
    matches!(any: m(MatchType::Any, None), yes: ["", "anything/at all"], no: []);
    matches!(min_max: Matcher::new(MatchType::Any, None, Some(2), Some(3)).unwrap(),
        yes: ["ab", "abc", "éé"], no: ["a", "abcd"]);

    #[test]
    fn value_rules() {
        assert_eq!(
            Matcher::new(MatchType::Fixed, None, None, None)
                .unwrap_err()
                .0,
            "value"
        );
        assert_eq!(
            Matcher::new(MatchType::Numeric, Some("1"), None, None)
                .unwrap_err()
                .0,
            "value"
        );
        let (field, reason) = Matcher::new(MatchType::Regex, Some("("), None, None).unwrap_err();
        assert_eq!(field, "value");
        assert!(reason.contains("not a valid regex"), "{reason}");
        assert_eq!(
            Matcher::new(MatchType::Any, None, Some(3), Some(2))
                .unwrap_err()
                .0,
            "min_chars"
        );
    }

    #[test]
    fn odd_defaults_are_told() {
        let def = PathComponentDef {
            match_type: MatchType::Numeric,
            value: None,
            min_chars: None,
            max_chars: None,
            default: Some("one".into()),
        };
        let c = PathComponent::new(&def).unwrap();
        let why = odd_default(&c.matcher, c.default.as_deref()).unwrap();
        assert!(why.contains("not numeric"), "{why}");
        assert_eq!(odd_default(&c.matcher, Some("1")), None);
        // xt5 F16: quoted as written, not as percent-encoded for a path.
        let def = PathComponentDef {
            match_type: MatchType::Fixed,
            value: Some("xx".into()),
            default: Some("/en/".into()),
            ..def
        };
        let c = PathComponent::new(&def).unwrap();
        let why = odd_default(&c.matcher, c.default.as_deref()).unwrap();
        assert!(why.contains(r#"("/en/" is not "xx")"#), "{why}");
    }

    #[test]
    fn why_not_says_why() {
        assert_eq!(
            m(MatchType::Numeric, None).why_not("x").unwrap(),
            r#""x" is not numeric"#
        );
        assert_eq!(m(MatchType::Numeric, None).why_not("1"), None);
    }

    #[test]
    fn encoding_is_idempotent() {
        assert_eq!(
            ensure_encoded("a b&c=d%20e%zz", QUERY_SAFE),
            "a%20b%26c%3Dd%20e%25zz"
        );
        assert_eq!(
            ensure_encoded("a%20b%26c%3Dd%20e%25zz", QUERY_SAFE),
            "a%20b%26c%3Dd%20e%25zz"
        );
        assert_eq!(ensure_encoded("é/:x", PATH_SAFE), "%C3%A9%2F:x");
    }
}
