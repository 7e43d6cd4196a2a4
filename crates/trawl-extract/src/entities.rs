//! Character references in attribute values.
//!
//! The start-tag scanner hands back attribute values as written, with `&amp;` and
//! friends still in them, so we decode them here, following the WHATWG
//! rules for attribute values: numeric references (`&#38;`, `&#x26;`, the
//! `;` optional), and named references. A named reference without its `;`
//! is decoded only for the legacy names, and not when followed by `=`
//! (so `?a=1&copy=2` keeps its query).
//!
//! The named tables hold the whole HTML 4 set (the legacy no-semicolon names,
//! then the rest) and the HTML 5 names of ASCII punctuation sometimes used to
//! obfuscate URLs. Names outside the tables are left as written; they are
//! rare in URLs and in the values of forms.

use std::borrow::Cow;

/// Names that also decode without a trailing `;` (the legacy set).
#[rustfmt::skip]
const LEGACY: &[(&str, char)] = &[
    ("AElig", 'Æ'), ("AMP", '&'), ("Aacute", 'Á'), ("Acirc", 'Â'), ("Agrave", 'À'),
    ("Aring", 'Å'), ("Atilde", 'Ã'), ("Auml", 'Ä'), ("COPY", '©'), ("Ccedil", 'Ç'),
    ("ETH", 'Ð'), ("Eacute", 'É'), ("Ecirc", 'Ê'), ("Egrave", 'È'), ("Euml", 'Ë'),
    ("GT", '>'), ("Iacute", 'Í'), ("Icirc", 'Î'), ("Igrave", 'Ì'), ("Iuml", 'Ï'),
    ("LT", '<'), ("Ntilde", 'Ñ'), ("Oacute", 'Ó'), ("Ocirc", 'Ô'), ("Ograve", 'Ò'),
    ("Oslash", 'Ø'), ("Otilde", 'Õ'), ("Ouml", 'Ö'), ("QUOT", '"'), ("REG", '®'),
    ("THORN", 'Þ'), ("Uacute", 'Ú'), ("Ucirc", 'Û'), ("Ugrave", 'Ù'), ("Uuml", 'Ü'),
    ("Yacute", 'Ý'), ("aacute", 'á'), ("acirc", 'â'), ("acute", '´'), ("aelig", 'æ'),
    ("agrave", 'à'), ("amp", '&'), ("aring", 'å'), ("atilde", 'ã'), ("auml", 'ä'),
    ("brvbar", '¦'), ("ccedil", 'ç'), ("cedil", '¸'), ("cent", '¢'), ("copy", '©'),
    ("curren", '¤'), ("deg", '°'), ("divide", '÷'), ("eacute", 'é'), ("ecirc", 'ê'),
    ("egrave", 'è'), ("eth", 'ð'), ("euml", 'ë'), ("frac12", '½'), ("frac14", '¼'),
    ("frac34", '¾'), ("gt", '>'), ("iacute", 'í'), ("icirc", 'î'), ("iexcl", '¡'),
    ("igrave", 'ì'), ("iquest", '¿'), ("iuml", 'ï'), ("laquo", '«'), ("lt", '<'),
    ("macr", '¯'), ("micro", 'µ'), ("middot", '·'), ("nbsp", '\u{A0}'), ("not", '¬'),
    ("ntilde", 'ñ'), ("oacute", 'ó'), ("ocirc", 'ô'), ("ograve", 'ò'), ("ordf", 'ª'),
    ("ordm", 'º'), ("oslash", 'ø'), ("otilde", 'õ'), ("ouml", 'ö'), ("para", '¶'),
    ("plusmn", '±'), ("pound", '£'), ("quot", '"'), ("raquo", '»'), ("reg", '®'),
    ("sect", '§'), ("shy", '\u{AD}'), ("sup1", '¹'), ("sup2", '²'), ("sup3", '³'),
    ("szlig", 'ß'), ("thorn", 'þ'), ("times", '×'), ("uacute", 'ú'), ("ucirc", 'û'),
    ("ugrave", 'ù'), ("uml", '¨'), ("uuml", 'ü'), ("yacute", 'ý'), ("yen", '¥'),
    ("yuml", 'ÿ'),
];

/// Names that decode only with a trailing `;`.
#[rustfmt::skip]
const SEMICOLON_ONLY: &[(&str, char)] = &[
    ("Tab", '\t'), ("NewLine", '\n'), ("excl", '!'), ("num", '#'), ("dollar", '$'),
    ("percnt", '%'), ("apos", '\''), ("lpar", '('), ("rpar", ')'), ("ast", '*'),
    ("plus", '+'), ("comma", ','), ("period", '.'), ("sol", '/'), ("colon", ':'),
    ("semi", ';'), ("equals", '='), ("quest", '?'), ("commat", '@'), ("lsqb", '['),
    ("bsol", '\\'), ("rsqb", ']'), ("lowbar", '_'), ("grave", '`'), ("lcub", '{'),
    ("verbar", '|'), ("rcub", '}'), ("hyphen", '‐'), ("dash", '‐'), ("ndash", '–'),
    ("mdash", '—'), ("lsquo", '‘'), ("rsquo", '’'), ("ldquo", '“'), ("rdquo", '”'),
    ("hellip", '…'), ("bull", '•'), ("euro", '€'), ("trade", '™'), ("ensp", '\u{2002}'),
    ("emsp", '\u{2003}'), ("thinsp", '\u{2009}'), ("zwnj", '\u{200C}'), ("zwj", '\u{200D}'),
];

/// The rest of HTML 4's names (Greek letters, arrows, mathematical symbols, typographic marks), decoded only
/// with a trailing `;` as the other names past the legacy set (xt18a F3: `&rsaquo;` in a submit button's value
/// and `&lsaquo;` in a title were left as written). `&lang;` and `&rang;` are HTML's, the angle brackets.
#[rustfmt::skip]
const HTML4_REST: &[(&str, char)] = &[
    ("fnof", 'ƒ'), ("Alpha", 'Α'), ("Beta", 'Β'), ("Gamma", 'Γ'), ("Delta", 'Δ'), ("Epsilon", 'Ε'),
    ("Zeta", 'Ζ'), ("Eta", 'Η'), ("Theta", 'Θ'), ("Iota", 'Ι'), ("Kappa", 'Κ'), ("Lambda", 'Λ'),
    ("Mu", 'Μ'), ("Nu", 'Ν'), ("Xi", 'Ξ'), ("Omicron", 'Ο'), ("Pi", 'Π'), ("Rho", 'Ρ'),
    ("Sigma", 'Σ'), ("Tau", 'Τ'), ("Upsilon", 'Υ'), ("Phi", 'Φ'), ("Chi", 'Χ'), ("Psi", 'Ψ'),
    ("Omega", 'Ω'), ("alpha", 'α'), ("beta", 'β'), ("gamma", 'γ'), ("delta", 'δ'), ("epsilon", 'ε'),
    ("zeta", 'ζ'), ("eta", 'η'), ("theta", 'θ'), ("iota", 'ι'), ("kappa", 'κ'), ("lambda", 'λ'),
    ("mu", 'μ'), ("nu", 'ν'), ("xi", 'ξ'), ("omicron", 'ο'), ("pi", 'π'), ("rho", 'ρ'),
    ("sigmaf", 'ς'), ("sigma", 'σ'), ("tau", 'τ'), ("upsilon", 'υ'), ("phi", 'φ'), ("chi", 'χ'),
    ("psi", 'ψ'), ("omega", 'ω'), ("thetasym", 'ϑ'), ("upsih", 'ϒ'), ("piv", 'ϖ'), ("prime", '′'),
    ("Prime", '″'), ("oline", '‾'), ("frasl", '⁄'), ("weierp", '℘'), ("image", 'ℑ'), ("real", 'ℜ'),
    ("alefsym", 'ℵ'), ("larr", '←'), ("uarr", '↑'), ("rarr", '→'), ("darr", '↓'), ("harr", '↔'),
    ("crarr", '↵'), ("lArr", '⇐'), ("uArr", '⇑'), ("rArr", '⇒'), ("dArr", '⇓'), ("hArr", '⇔'),
    ("forall", '∀'), ("part", '∂'), ("exist", '∃'), ("empty", '∅'), ("nabla", '∇'), ("isin", '∈'),
    ("notin", '∉'), ("ni", '∋'), ("prod", '∏'), ("sum", '∑'), ("minus", '−'), ("lowast", '∗'),
    ("radic", '√'), ("prop", '∝'), ("infin", '∞'), ("ang", '∠'), ("and", '∧'), ("or", '∨'),
    ("cap", '∩'), ("cup", '∪'), ("int", '∫'), ("there4", '∴'), ("sim", '∼'), ("cong", '≅'),
    ("asymp", '≈'), ("ne", '≠'), ("equiv", '≡'), ("le", '≤'), ("ge", '≥'), ("sub", '⊂'),
    ("sup", '⊃'), ("nsub", '⊄'), ("sube", '⊆'), ("supe", '⊇'), ("oplus", '⊕'), ("otimes", '⊗'),
    ("perp", '⊥'), ("sdot", '⋅'), ("lceil", '⌈'), ("rceil", '⌉'), ("lfloor", '⌊'), ("rfloor", '⌋'),
    ("lang", '⟨'), ("rang", '⟩'), ("loz", '◊'), ("spades", '♠'), ("clubs", '♣'), ("hearts", '♥'),
    ("diams", '♦'), ("OElig", 'Œ'), ("oelig", 'œ'), ("Scaron", 'Š'), ("scaron", 'š'), ("Yuml", 'Ÿ'),
    ("circ", 'ˆ'), ("tilde", '˜'), ("lrm", '\u{200E}'), ("rlm", '\u{200F}'), ("sbquo", '‚'),
    ("bdquo", '„'), ("dagger", '†'), ("Dagger", '‡'), ("permil", '‰'), ("lsaquo", '‹'),
    ("rsaquo", '›'),
];

/// windows-1252 meanings of numeric references 0x80..=0x9F (WHATWG).
#[rustfmt::skip]
const C1: [char; 32] = [
    '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8D}', 'Ž', '\u{8F}',
    '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9D}', 'ž', 'Ÿ',
];

fn lookup(table: &[(&str, char)], name: &str) -> Option<char> {
    table.iter().find(|(n, _)| *n == name).map(|&(_, c)| c)
}

/// Decodes the character references in an attribute value, and a NUL in it as U+FFFD, as the HTML
/// tokenizer reads it (xt23b F3: `/a\0b` was asked for as `/a%00b`; a browser asks for `/a%EF%BF%BDb`).
pub(crate) fn decode_attr(value: &str) -> Cow<'_, str> {
    match decode(value, true) {
        decoded if decoded.contains('\0') => Cow::Owned(decoded.replace('\0', "\u{FFFD}")),
        decoded => decoded,
    }
}

/// Decodes the character references in text between tags: as in attribute values, except that a legacy
/// name without its `;` is decoded before `=` too (`&copy=` is `©=`).
pub(crate) fn decode_text(value: &str) -> Cow<'_, str> {
    decode(value, false)
}

fn decode(value: &str, in_attr: bool) -> Cow<'_, str> {
    if !value.contains('&') {
        return Cow::Borrowed(value);
    }
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        match reference(rest, in_attr) {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Decodes the reference at the start of `s` (which starts with `&`):
/// the character and how many bytes it used.
fn reference(s: &str, in_attr: bool) -> Option<(char, usize)> {
    let b = s.as_bytes();
    if b.get(1) == Some(&b'#') {
        let hex = matches!(b.get(2), Some(b'x' | b'X'));
        let start = if hex { 3 } else { 2 };
        let digits = b[start..]
            .iter()
            .take_while(|c| {
                if hex {
                    c.is_ascii_hexdigit()
                } else {
                    c.is_ascii_digit()
                }
            })
            .count();
        if digits == 0 {
            return None;
        }
        let mut len = start + digits;
        if b.get(len) == Some(&b';') {
            len += 1;
        }
        let text = &s[start..start + digits];
        let n = u32::from_str_radix(text, if hex { 16 } else { 10 }).unwrap_or(u32::MAX);
        let c = match n {
            0x80..=0x9F => C1[(n - 0x80) as usize],
            0 => '\u{FFFD}',
            n => char::from_u32(n).unwrap_or('\u{FFFD}'),
        };
        return Some((c, len));
    }
    let name_len = b[1..]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric())
        .count();
    if name_len == 0 {
        return None;
    }
    let name = &s[1..1 + name_len];
    let after = b.get(1 + name_len).copied();
    if after == Some(b';') {
        let c = lookup(LEGACY, name)
            .or_else(|| lookup(SEMICOLON_ONLY, name))
            .or_else(|| lookup(HTML4_REST, name))?;
        return Some((c, name_len + 2));
    }
    // No `;`: only legacy names, and in an attribute value not before `=`.
    if in_attr && after == Some(b'=') {
        return None;
    }
    lookup(LEGACY, name).map(|c| (c, name_len + 1))
}

#[cfg(test)]
mod tests {
    use super::decode_attr;

    macro_rules! case {
        ($name:ident, $input:expr, $want:expr) => {
            #[test]
            fn $name() {
                assert_eq!(decode_attr($input), $want);
            }
        };
    }

    case!(plain, "/a?b=c", "/a?b=c");
    // The rest of HTML 4's names, with their `;` only (xt18a F3).
    case!(
        html4_rest,
        "Sign in &rsaquo; &alpha;&rarr;&oelig;&permil;&lang;",
        "Sign in › α→œ‰⟨"
    );
    case!(
        html4_rest_needs_semicolon,
        "/a?x=1&sub=2&rarr",
        "/a?x=1&sub=2&rarr"
    );
    case!(amp, "/a?b=1&amp;c=2", "/a?b=1&c=2");
    case!(amp_without_semicolon, "/a?b=1&amp c", "/a?b=1& c");
    case!(copy_before_equals_kept, "/a?b=1&copy=2", "/a?b=1&copy=2");
    case!(legacy_before_alnum_kept, "/a?x&copyx", "/a?x&copyx");
    case!(decimal, "&#47;a", "/a");
    case!(hex, "&#x2F;a&#X2f;", "/a/");
    case!(numeric_no_semicolon, "&#47a", "/a");
    case!(c1_remap, "&#128;", "€");
    case!(zero_is_replacement, "&#0;", "\u{FFFD}");
    case!(huge_is_replacement, "&#99999999999999;", "\u{FFFD}");
    case!(surrogate_is_replacement, "&#xD800;", "\u{FFFD}");
    case!(unknown_name_kept, "&bogus;x", "&bogus;x");
    case!(semicolon_only_names, "http&colon;&sol;&sol;a", "http://a");
    case!(lone_amp, "a & b &", "a & b &");
    case!(non_ascii, "caf&eacute;", "café");

    #[test]
    fn text_decodes_legacy_names_before_equals() {
        assert_eq!(
            super::decode_text("a &copy=b &amp; c&nbsp;d"),
            "a ©=b & c\u{a0}d"
        );
        assert_eq!(decode_attr("a &copy=b"), "a &copy=b");
    }
}
