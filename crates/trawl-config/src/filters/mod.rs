//! HarvestMan's filters: URL filters (regexp, path, extension) that compile into decide rules, and text
//! filters (content, meta) checked on fetched pages.
//!
//! All filters of a kind are OR-ed: a URI is filtered when any enabled filter matches. What a match does is
//! the [`FilterMode`] of its kind: `crawl` (not fetched, not followed, not written) or `download` (fetched
//! and followed, not written).

mod page_text;
mod pattern;
mod text;
mod url;

pub use self::{
    page_text::page_text,
    text::{HtmlMeta, TextFilterMatch, TextFilters},
    url::UrlFilter,
};
pub use crate::settings::filters::FilterMode;

/// A regex built with Python `re` flag names and HarvestMan's case rule (insensitive unless `case`).
pub(crate) fn build_regex(
    pattern: &str,
    flags: Option<&str>,
    case: bool,
) -> Result<regex::Regex, BadRegex> {
    let mut b = regex::RegexBuilder::new(pattern);
    b.size_limit(1 << 20).case_insensitive(!case);
    for flag in flags
        .unwrap_or("")
        .split(['|', ',', ' '])
        .filter(|f| !f.is_empty())
    {
        match flag
            .trim()
            .trim_start_matches("re.")
            .to_ascii_uppercase()
            .as_str()
        {
            "M" | "MULTILINE" => {
                b.multi_line(true);
            }
            "S" | "DOTALL" => {
                b.dot_matches_new_line(true);
            }
            "I" | "IGNORECASE" => {
                b.case_insensitive(true);
            }
            "X" | "VERBOSE" => {
                b.ignore_whitespace(true);
            }
            "L" | "LOCALE" | "U" | "UNICODE" => {}
            other => {
                return Err(BadRegex::Flag(other.to_owned()));
            }
        }
    }
    b.build().map_err(|e| BadRegex::Invalid {
        pattern: pattern.to_owned(),
        reason: e.to_string(),
    })
}

/// A filter regex or flag that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum BadRegex {
    /// A flag Python's `re` does not have.
    #[error(
        "unknown flag {0:?}: use re.MULTILINE, re.DOTALL, re.IGNORECASE, re.VERBOSE, re.LOCALE or re.UNICODE"
    )]
    Flag(String),
    /// A pattern the `regex` crate rejects.
    #[error("{pattern:?} is not a valid regex: {reason}")]
    Invalid {
        /// The pattern.
        pattern: String,
        /// The regex parser's message.
        reason: String,
    },
}
