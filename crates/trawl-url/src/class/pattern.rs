//! Regular expressions in class definitions: the `regex` crate, or `fancy-regex` for look-around.

use std::fmt;

use super::error::StepError;

/// The most bytes a compiled `regex` program may use (untrusted class libraries must not exhaust memory).
const SIZE_LIMIT: usize = 1 << 20;
/// The most backtracking steps `fancy-regex` may take on one input before giving up.
const BACKTRACK_LIMIT: usize = 100_000;

/// A compiled pattern. Linear-time `regex` when it accepts the pattern; otherwise `fancy-regex` (look-around,
/// backreferences) with a backtrack limit, so that a hostile URL cannot make matching take unbounded time.
#[derive(Clone)]
pub(crate) enum Pattern {
    Linear(regex::Regex),
    Backtracking(Box<fancy_regex::Regex>),
}

/// Why a pattern could not be compiled by either engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PatternError {
    pub(crate) pattern: String,
    pub(crate) reason: String,
}

impl Pattern {
    /// Compiles `pattern`, falling back to `fancy-regex` only when the `regex` crate rejects it.
    pub(crate) fn new(pattern: &str) -> Result<Self, PatternError> {
        let linear = regex::RegexBuilder::new(pattern)
            .size_limit(SIZE_LIMIT)
            .build();
        match linear {
            Ok(re) => Ok(Self::Linear(re)),
            Err(linear_err) => fancy_regex::RegexBuilder::new(pattern)
                .backtrack_limit(BACKTRACK_LIMIT)
                .delegate_size_limit(SIZE_LIMIT)
                .build()
                .map(|re| Self::Backtracking(Box::new(re)))
                .map_err(|_| PatternError {
                    pattern: pattern.to_owned(),
                    reason: first_line_of_reason(&linear_err.to_string()),
                }),
        }
    }

    /// Whether the pattern matches anywhere in `text` (Python's `re.search`, as hydrus uses). A `fancy-regex`
    /// run that hits the backtrack limit counts as no match.
    pub(crate) fn is_match(&self, text: &str) -> bool {
        match self {
            Self::Linear(re) => re.is_match(text),
            Self::Backtracking(re) => re.is_match(text).unwrap_or(false),
        }
    }

    /// The leftmost match in `text`, as a byte range.
    pub(crate) fn find(&self, text: &str) -> Option<std::ops::Range<usize>> {
        match self {
            Self::Linear(re) => re.find(text).map(|m| m.range()),
            Self::Backtracking(re) => re.find(text).ok().flatten().map(|m| m.range()),
        }
    }

    /// Replaces every non-overlapping match with `replacement` (`$1`, `${1}`, `${name}` expand groups).
    /// Fails only when `fancy-regex` hits its backtrack limit.
    pub(crate) fn replace_all(&self, text: &str, replacement: &str) -> Result<String, StepError> {
        match self {
            Self::Linear(re) => Ok(re.replace_all(text, replacement).into_owned()),
            Self::Backtracking(re) => re
                .try_replacen(text, 0, replacement)
                .map(|c| c.into_owned())
                .map_err(|e| StepError::RegexLimit(e.to_string())),
        }
    }
}

/// The `regex` crate's messages draw the pattern over several lines; keep the one that says what is wrong.
fn first_line_of_reason(message: &str) -> String {
    message
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with("error:"))
        .map(|l| {
            l.trim_start()
                .trim_start_matches("error:")
                .trim()
                .to_owned()
        })
        .unwrap_or_else(|| message.trim().to_owned())
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Linear(re) => f.debug_tuple("Linear").field(&re.as_str()).finish(),
            Self::Backtracking(re) => f.debug_tuple("Backtracking").field(&re.as_str()).finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_when_possible() {
        assert!(matches!(
            Pattern::new(r"\d+\.json").unwrap(),
            Pattern::Linear(_)
        ));
    }

    #[test]
    fn look_around_falls_back() {
        let p = Pattern::new("^(?!search).+$").unwrap();
        assert!(matches!(p, Pattern::Backtracking(_)));
        assert!(p.is_match("posts"));
        assert!(!p.is_match("search"));
    }

    #[test]
    fn search_semantics() {
        let p = Pattern::new(r"\d\.json").unwrap();
        assert!(p.is_match("1910662.json"));
        assert!(!p.is_match("1910662"));
    }

    #[test]
    fn neither_engine_accepts() {
        let err = Pattern::new("(unclosed").unwrap_err();
        assert_eq!(err.pattern, "(unclosed");
        assert!(err.reason.contains("unclosed"), "{}", err.reason);
    }

    #[test]
    fn catastrophic_backtracking_is_bounded() {
        let p = Pattern::new(r"^(a+)+(?=b)$").unwrap();
        let text = "a".repeat(40) + "c";
        assert!(!p.is_match(&text));
        assert!(p.replace_all(&text, "x").is_err());
    }

    #[test]
    fn replacement_groups() {
        let p = Pattern::new(r"(?<id>\d+)").unwrap();
        assert_eq!(p.replace_all("a1b22", "<${id}>").unwrap(), "a<1>b<22>");
        let p = Pattern::new(r"(\d+)(?=b)").unwrap();
        assert_eq!(p.replace_all("a1b22", "<$1>").unwrap(), "a<1>b22");
    }
}
