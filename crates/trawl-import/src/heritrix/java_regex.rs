//! Java regexes (`java.util.regex`, as Heritrix's decide rules and sheets hold them) in the syntax of Rust's
//! regex crate. Most read the same in both; this rewrites the constructs Rust also accepts with another
//! meaning, or does not accept though they mean something plain, and refuses the ones with no equivalent:
//!
//! - `\p{Punct}` and the other POSIX classes are ASCII in Java; Rust's `\p{Punct}` is Unicode's punctuation,
//!   which leaves out `$+<=>^`|~`. They become their ASCII ranges.
//! - `\<` and `\>` are the characters `<` and `>` in Java; in Rust they are word boundaries.
//! - `\Q…\E` quotes in Java; in Rust it is refused. The quoted text is escaped instead.
//! - In a class, `-` after a class escape (`[\w-.]`) is a literal in Java; Rust refuses it. It is escaped.
//! - `\Z` (end, before a last line break) becomes `\z`: a URL holds no line break.
//! - An octal escape `\0nnn` becomes `\x{…}`.
//! - Possessive quantifiers (`a*+`, `a++`, `a?+`, `a{2}+`) never give back what they matched; Rust has none,
//!   and reads `a++` as `(a+)+`. Such a regex is refused, as are look-around and backreferences.
//!
//! Hand-written: no crate translates between the two dialects.

/// A Java regex that cannot be written in Rust's syntax: why, and what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Untranslatable {
    /// Look-ahead or look-behind (`(?=`, `(?!`, `(?<=`, `(?<!`).
    #[error("rewrite it without look-ahead or look-behind")]
    LookAround,
    /// A backreference (`\1`, `\k<name>`).
    #[error("rewrite it without backreferences")]
    Backreference,
    /// A possessive quantifier (`*+`, `++`, `?+`, `}+`).
    #[error(
        "a possessive quantifier (`*+`, `++`, `?+`) has no equivalent; rewrite it with a plain one where that \
         matches the same URLs"
    )]
    Possessive,
    /// An atomic group (`(?>…)`).
    #[error("an atomic group `(?>…)` has no equivalent; rewrite it without")]
    Atomic,
}

/// ASCII ranges of Java's POSIX classes (`\p{Name}`), without brackets.
fn posix(name: &str) -> Option<&'static str> {
    Some(match name {
        "Lower" => "a-z",
        "Upper" => "A-Z",
        "ASCII" => r"\x00-\x7F",
        "Alpha" => "a-zA-Z",
        "Digit" => "0-9",
        "Alnum" => "a-zA-Z0-9",
        "Punct" => r"!-/:-@\[-`{-~",
        "Graph" => r"!-~",
        "Print" => r" -~",
        "Blank" => r" \t",
        "Cntrl" => r"\x00-\x1F\x7F",
        "XDigit" => "0-9a-fA-F",
        "Space" => r" \t\n\x0B\f\r",
        _ => return None,
    })
}

/// `re` in Rust's syntax, or why it cannot be.
pub fn translate(re: &str) -> Result<String, Untranslatable> {
    let chars: Vec<char> = re.chars().collect();
    let mut out = String::with_capacity(re.len());
    let mut i = 0;
    // Inside `[…]`: depth (Java nests classes), and whether the last item was a class escape.
    let mut class = 0usize;
    let mut after_class_escape = false;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                let Some(&e) = chars.get(i + 1) else {
                    out.push('\\');
                    break;
                };
                i += 2;
                after_class_escape = false;
                match e {
                    'Q' => {
                        let rest: String = chars[i..].iter().collect();
                        let (quoted, after) = match rest.find("\\E") {
                            Some(end) => (&rest[..end], end + 2),
                            None => (rest.as_str(), rest.len()),
                        };
                        out.push_str(&regex::escape(quoted));
                        i += rest[..after].chars().count();
                    }
                    '<' | '>' => out.push_str(if e == '<' { "<" } else { ">" }),
                    'Z' => out.push_str(r"\z"),
                    '1'..='9' => return Err(Untranslatable::Backreference),
                    'k' if chars.get(i) == Some(&'<') => return Err(Untranslatable::Backreference),
                    '0' => {
                        // Java: \0n, \0nn, \0mnn (m ≤ 3), octal.
                        let digits: String = chars[i..]
                            .iter()
                            .take(3)
                            .take_while(|d| d.is_digit(8))
                            .collect();
                        let digits = if digits.len() == 3 && digits.as_bytes()[0] > b'3' {
                            &digits[..2]
                        } else {
                            &digits[..]
                        };
                        match u32::from_str_radix(digits, 8) {
                            Ok(v) => {
                                out.push_str(&format!(r"\x{{{v:X}}}"));
                                i += digits.len();
                            }
                            Err(_) => out.push_str(r"\0"),
                        }
                    }
                    'p' | 'P' if chars.get(i) == Some(&'{') => {
                        let end = chars[i..].iter().position(|&c| c == '}').map(|p| i + p);
                        let name: String = end
                            .map(|end| chars[i + 1..end].iter().collect())
                            .unwrap_or_default();
                        match (end, posix(&name)) {
                            (Some(end), Some(ranges)) => {
                                // Inside a class its ranges join the class; a negated one is a nested class.
                                match (class > 0, e == 'P') {
                                    (true, false) => out.push_str(ranges),
                                    (false, false) => out.push_str(&format!("[{ranges}]")),
                                    (_, true) => out.push_str(&format!("[^{ranges}]")),
                                }
                                i = end + 1;
                            }
                            (Some(end), None) => {
                                // A Unicode property: the same in both; copied whole, braces included.
                                out.push('\\');
                                out.extend(&chars[i - 1..=end]);
                                i = end + 1;
                            }
                            (None, _) => {
                                out.push('\\');
                                out.push(e);
                            }
                        }
                        after_class_escape = true;
                    }
                    'w' | 'W' | 'd' | 'D' | 's' | 'S' => {
                        out.push('\\');
                        out.push(e);
                        after_class_escape = true;
                    }
                    'x' if chars.get(i) == Some(&'{') => {
                        let end = chars[i..]
                            .iter()
                            .position(|&c| c == '}')
                            .map_or(chars.len() - 1, |p| i + p);
                        out.push('\\');
                        out.extend(&chars[i - 1..=end]);
                        i = end + 1;
                    }
                    _ => {
                        out.push('\\');
                        out.push(e);
                    }
                }
                continue;
            }
            '[' => {
                class += 1;
                out.push('[');
                i += 1;
                // A `]` or `^]` right after the opening is a literal, as in both dialects.
                if chars.get(i) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                if chars.get(i) == Some(&']') {
                    out.push_str(r"\]");
                    i += 1;
                }
                // A class nested in a class and opening with `:` is a set of characters to Java (it has no
                // POSIX classes), and `[:digit:]` there a digit class to Rust (xt26b F5): the colon escaped.
                if class > 1 && chars.get(i) == Some(&':') {
                    out.push_str(r"\:");
                    i += 1;
                }
                after_class_escape = false;
                continue;
            }
            ']' if class > 0 => {
                class -= 1;
                out.push(']');
            }
            '-' if class > 0 && after_class_escape => out.push_str(r"\-"),
            '(' if class == 0 && chars.get(i + 1) == Some(&'?') => {
                let next: String = chars[i + 2..].iter().take(2).collect();
                if next.starts_with('=') || next.starts_with('!') || next == "<=" || next == "<!" {
                    return Err(Untranslatable::LookAround);
                }
                if next.starts_with('>') {
                    return Err(Untranslatable::Atomic);
                }
                out.push('(');
            }
            '*' | '+' | '?' | '}' if class == 0 && chars.get(i + 1) == Some(&'+') => {
                // `?+` after `(` is not a quantifier; every other `X+` after a quantifier is possessive.
                if !(c == '?' && out.ends_with('(')) {
                    return Err(Untranslatable::Possessive);
                }
                out.push(c);
            }
            _ => out.push(c),
        }
        after_class_escape = false;
        i += 1;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn constructs_of_another_meaning_are_rewritten() {
        for (java, rust) in [
            (r".*/calendar/\d{4}/.*", r".*/calendar/\d{4}/.*"),
            (r".*p\p{Punct}b", r".*p[!-/:-@\[-`{-~]b"),
            (r"[\p{Alpha}_]+", r"[a-zA-Z_]+"),
            (r"\P{Digit}", r"[^0-9]"),
            (r"\p{L}+", r"\p{L}+"),
            (r"\x{41}+", r"\x{41}+"),
            (r".*\<x.*", r".*<x.*"),
            (r"a\>", r"a>"),
            (r"\Qa.b*c\E.*", r"a\.b\*c.*"),
            (r"x\Q(y", r"x\(y"),
            (r"[\w-.]+", r"[\w\-.]+"),
            (r"[a-z]", r"[a-z]"),
            (r"abc\Z", r"abc\z"),
            (r"\0101", r"\x{41}"),
            (r"[]a]", r"[\]a]"),
            (r"(?i).*\.PDF$", r"(?i).*\.PDF$"),
            (r"(?:a|b)+", r"(?:a|b)+"),
            (r"a{2,3}?", r"a{2,3}?"),
            (r"[[:digit:]]", r"[[\:digit:]]"),
            (r"[:digit:]", r"[:digit:]"),
        ] {
            assert_eq!(translate(java).as_deref(), Ok(rust), "{java}");
        }
    }

    #[test]
    fn constructs_without_an_equivalent_are_refused() {
        for (java, why) in [
            (r"(?!x).*", Untranslatable::LookAround),
            (r".*(?<=a)b", Untranslatable::LookAround),
            (r"(a)\1", Untranslatable::Backreference),
            (r"(?<n>a)\k<n>", Untranslatable::Backreference),
            (r".*/a++a.*", Untranslatable::Possessive),
            (r"a*+", Untranslatable::Possessive),
            (r"a{2}+", Untranslatable::Possessive),
            (r"(?>a)", Untranslatable::Atomic),
        ] {
            assert_eq!(translate(java), Err(why), "{java}");
        }
    }

    /// Java's `\p{Punct}` is every ASCII punctuation character, and the rewrite matches exactly those.
    #[test]
    fn posix_punct_is_ascii_punctuation() {
        let re = regex::Regex::new(&format!("^{}$", translate(r"\p{Punct}").unwrap())).unwrap();
        for b in 0u8..128 {
            let c = char::from(b);
            assert_eq!(
                re.is_match(&c.to_string()),
                c.is_ascii_punctuation(),
                "{c:?}"
            );
        }
    }

    proptest! {
        /// Any text translates or is refused without panicking; a regex of plain characters is itself.
        #[test]
        fn never_panics(re in "\\PC{0,40}") {
            let _ = translate(&re);
        }

        #[test]
        fn plain_text_is_unchanged(re in "[a-z0-9/._]{0,30}") {
            prop_assert_eq!(translate(&re), Ok(re.clone()));
        }
    }
}
