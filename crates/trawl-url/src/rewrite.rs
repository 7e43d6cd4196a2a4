//! Regex rewrites of whole URLs: Heritrix's optional regex canonicalization rule, and the site rewrite rules
//! that give a page its canonical URL (`/w/index.php?title=X` to `/wiki/X`).

use std::fmt;

use regex::{Regex, RegexBuilder};

use crate::Error;

/// Compiled patterns may use at most this much memory, so a config cannot make a pathological regex.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// One rule: when `pattern` matches the whole URL, the URL becomes `replace`, where `$1`, `${name}` name groups.
///
/// ```
/// let r = trawl_url::Rewrite::new(
///     r"https?://stackoverflow\.com/q/(\d+)(?:/.*)?",
///     "https://stackoverflow.com/questions/$1",
/// ).unwrap();
/// assert_eq!(r.apply_full("https://stackoverflow.com/q/1732348").as_deref(),
///            Some("https://stackoverflow.com/questions/1732348"));
/// assert_eq!(r.apply_full("https://stackoverflow.com/tags"), None);
/// ```
#[derive(Clone)]
pub struct Rewrite {
    pattern: Regex,
    replace: String,
}

impl Rewrite {
    /// Compiles a rule; the pattern is anchored at both ends.
    pub fn new(pattern: &str, replace: &str) -> Result<Rewrite, Error> {
        let anchored = format!("^(?:{pattern})$");
        let regex = RegexBuilder::new(&anchored)
            .size_limit(REGEX_SIZE_LIMIT)
            .build()
            .map_err(|e| Error::InvalidPattern {
                pattern: pattern.to_string(),
                reason: e.to_string(),
            })?;
        // A group the pattern lacks expands to nothing, merging every URL the rule matches (xt15b F1: `$2`
        // of a one-group pattern, and `$n_x`, which names a group `n_x` where `${n}_x` was meant).
        for group in group_references(replace) {
            let known = match group.parse::<usize>() {
                Ok(i) => i < regex.captures_len(),
                Err(_) => regex.capture_names().flatten().any(|n| n == group),
            };
            if !known {
                let hint = regex
                    .capture_names()
                    .flatten()
                    .find(|n| group.starts_with(n))
                    .map(|n| {
                        format!(
                            ": `$NAME` takes every letter, digit and `_` after `$`; write `${{{n}}}{}`",
                            &group[n.len()..]
                        )
                    })
                    .unwrap_or_default();
                return Err(Error::UnknownGroup {
                    pattern: pattern.to_string(),
                    replace: replace.to_string(),
                    group: group.to_string(),
                    hint,
                });
            }
        }
        Ok(Rewrite {
            pattern: regex,
            replace: replace.to_string(),
        })
    }

    /// The rewritten text when the pattern matches all of `input`.
    pub fn apply_full(&self, input: &str) -> Option<String> {
        let caps = self.pattern.captures(input)?;
        let mut out = String::new();
        caps.expand(&self.replace, &mut out);
        Some(out)
    }

    /// The pattern as given (inside the anchors this type adds).
    pub fn pattern(&self) -> &str {
        let s = self.pattern.as_str();
        &s[4..s.len() - 2]
    }

    /// The replacement template.
    pub fn replacement(&self) -> &str {
        &self.replace
    }
}

/// The groups a replacement names, as the regex crate reads it: `$$` is a `$`, `${name}` names `name`, and
/// `$name` the longest run of letters, digits and `_` after the `$`.
fn group_references(replace: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = replace;
    while let Some(at) = rest.find('$') {
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            rest = tail;
        } else if let Some(braced) = after.strip_prefix('{') {
            match braced.find('}') {
                Some(end) => {
                    out.push(&braced[..end]);
                    rest = &braced[end + 1..];
                }
                None => rest = braced,
            }
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            if end > 0 {
                out.push(&after[..end]);
            }
            rest = &after[end..];
        }
    }
    out
}

impl fmt::Debug for Rewrite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rewrite")
            .field("pattern", &self.pattern())
            .field("replace", &self.replace)
            .finish()
    }
}

/// Site rewrite rules that are useful as examples and in tests: Wikipedia's `index.php?title=` pages and
/// Stack Overflow's short question and answer links. Not applied unless a crawl configures them.
pub fn example_site_rewrites() -> Vec<Rewrite> {
    [
        (
            r"(https?://[a-z-]+\.wikipedia\.org)/w/index\.php\?title=([^&#]+)",
            "$1/wiki/$2",
        ),
        (
            r"https?://(?:www\.)?stackoverflow\.com/(?:q|questions)/(\d+)(?:/[^?#]*)?",
            "https://stackoverflow.com/questions/$1",
        ),
    ]
    .into_iter()
    .map(|(p, r)| Rewrite::new(p, r).expect("built-in rewrite compiles"))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A replacement naming a group its pattern lacks is refused, with what was meant (xt15b F1).
    #[test]
    fn a_replacement_names_only_groups_of_its_pattern() {
        let refused = |pattern, replace| match Rewrite::new(pattern, replace) {
            Err(e @ Error::UnknownGroup { .. }) => e.to_string(),
            other => panic!("{pattern} {replace}: {other:?}"),
        };
        assert!(refused(r"http://a/q/(\d+)", "http://a/question/$2").contains("the group \"2\""));
        let said = refused(r"http://a/r/(?P<n>\d+)", "http://a/r/$n_x");
        assert!(said.contains("write `${n}_x`"), "{said}");
        assert!(refused(r"http://a/(x)", "${name}").contains("\"name\""));
        for (pattern, replace) in [
            (r"http://a/q/(\d+)", "http://a/question/$1"),
            (r"http://a/r/(?P<n>\d+)", "http://a/r/${n}_x"),
            (r"http://a/r/(?P<n>\d+)", "http://a/$n/$0/$$2/${1}"),
            (r"http://a/", "http://b/$/$"),
        ] {
            assert!(
                Rewrite::new(pattern, replace).is_ok(),
                "{pattern} {replace}"
            );
        }
    }

    proptest::proptest! {
        /// Any replacement is read without a panic, and names a group only where it holds a `$`.
        #[test]
        fn group_references_never_panic(replace in "\\PC{0,40}") {
            let groups = group_references(&replace);
            proptest::prop_assert!(groups.is_empty() || replace.contains('$'));
        }
    }

    #[test]
    fn examples() {
        let rules = example_site_rewrites();
        let rows = [
            (
                "https://en.wikipedia.org/w/index.php?title=Web_archiving",
                Some("https://en.wikipedia.org/wiki/Web_archiving"),
            ),
            (
                "https://stackoverflow.com/questions/1732348/regex-match-open-tags",
                Some("https://stackoverflow.com/questions/1732348"),
            ),
            (
                "https://stackoverflow.com/q/1732348",
                Some("https://stackoverflow.com/questions/1732348"),
            ),
            ("https://stackoverflow.com/tags", None),
        ];
        for (input, want) in rows {
            let got = rules.iter().find_map(|r| r.apply_full(input));
            assert_eq!(got.as_deref(), want, "{input}");
        }
    }

    #[test]
    fn bad_pattern_names_it() {
        let err = Rewrite::new("(", "x").unwrap_err().to_string();
        assert!(err.contains("\"(\""), "{err}");
    }
}
