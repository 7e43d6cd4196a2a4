//! `[filters]`: HarvestMan's URL and text filters, as written in TOML.

use serde::{Deserialize, Serialize};

/// What a filter match does (HarvestMan's `crawl` attribute).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FilterMode {
    /// A match means the URI is not fetched (URL filters), its links are not followed and it is not written.
    /// Default.
    #[default]
    Crawl,
    /// A match means the URI is fetched and its links followed, but it is not written to the archive.
    Download,
}

/// HarvestMan filters. URL filters run on each discovered link (they join the scope, `crawl` mode) or before
/// writing (`download` mode); text filters run on fetched pages.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FiltersConfig {
    /// What a URL filter match does. Default: crawl.
    pub url_mode: FilterMode,
    /// What a text filter match does. Default: crawl.
    pub text_mode: FilterMode,
    /// URL filters (`[[filters.url]]`), OR-ed. Default: none.
    pub url: Vec<UrlFilterSpec>,
    /// Text filters (`[[filters.text]]`), OR-ed. Default: none.
    pub text: Vec<TextFilterSpec>,
}

/// One URL filter: exactly one of `regexp`, `path`, `extension`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UrlFilterSpec {
    /// A regex; a URL it matches anywhere is filtered out (never an inclusion).
    pub regexp: Option<String>,
    /// Parts of URLs with `*` wildcards, `-` excluding and `+` including: `-/images/*+/images/public/*`.
    pub path: Option<String>,
    /// File extensions, `-jpg,-png`, `-jp*+jpeg`, `+jpeg`.
    pub extension: Option<String>,
    /// Python `re` flags for `regexp`, `|`-separated: `re.MULTILINE`, `re.DOTALL`, `re.IGNORECASE`,
    /// `re.VERBOSE`; `re.LOCALE`/`re.UNICODE` are accepted and do nothing. Default: none.
    pub flags: Option<String>,
    /// Whether matching is case-sensitive. Default: false.
    #[serde(default)]
    pub case: bool,
    /// Whether the filter is used. Default: true.
    #[serde(default = "yes")]
    pub enable: bool,
}

/// One text filter: exactly one of `content`, `meta`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextFilterSpec {
    /// A regex over the page's text without tags.
    pub content: Option<String>,
    /// A regex over the title, keywords (item by item) and description.
    pub meta: Option<String>,
    /// For `meta`: which of `title`, `keywords`, `description`, joined by `|` (any) or `&` (all).
    /// Default: all three, any.
    pub tags: Option<String>,
    /// Python `re` flags, as for URL filters. Default: none.
    pub flags: Option<String>,
    /// Whether matching is case-sensitive. Default: false.
    #[serde(default)]
    pub case: bool,
    /// Whether the filter is used. Default: true.
    #[serde(default = "yes")]
    pub enable: bool,
}

fn yes() -> bool {
    true
}
