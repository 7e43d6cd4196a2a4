//! The TOML shape of a URL class: what operators write in `[[url_class]]` tables.

use serde::{Deserialize, Serialize};

use super::converter::ConverterStep;

/// What a URL of a class is, as the crawler treats it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UrlKind {
    /// The raw media file itself.
    File,
    /// A page about one file (or a few, see `can_produce_multiple_files`): HTML with a file URL and metadata.
    Post,
    /// A list of posts or files, often with a next page.
    Gallery,
    /// Like a gallery, but short-lived and fast-changing, such as an imageboard thread.
    Watchable,
}

impl UrlKind {
    /// The name used in TOML (`file`, `post`, `gallery`, `watchable`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::File => "file",
            Self::Post => "post",
            Self::Gallery => "gallery",
            Self::Watchable => "watchable",
        }
    }
}

/// The scheme normalised URLs get.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PreferredScheme {
    /// `http`.
    Http,
    /// `https`. The default.
    #[default]
    Https,
}

impl PreferredScheme {
    /// `http` or `https`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Http => "http",
            Self::Https => "https",
        }
    }
}

/// How a path component or parameter value is tested.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MatchType {
    /// Exactly `value` (compared after percent-decoding both sides).
    Fixed,
    /// ASCII digits only, at least one.
    Numeric,
    /// ASCII letters only, at least one.
    Alpha,
    /// ASCII letters and digits only, at least one.
    Alphanumeric,
    /// The regex `value` matches somewhere in it (anchor with `^…$` to match all of it).
    Regex,
    /// Anything, including the empty string.
    Any,
}

/// One path component of a class: `{ match = "fixed", value = "index.php" }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathComponentDef {
    /// How the component is tested.
    #[serde(rename = "match")]
    pub match_type: MatchType,
    /// The fixed text or the regex; only for `fixed` and `regex`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The fewest characters the component may have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_chars: Option<usize>,
    /// The most characters the component may have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_chars: Option<usize>,
    /// The value normalisation fills in when the URL has no such component; such URLs then match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// One query parameter of a class: `{ name = "id", match = "numeric" }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueryParamDef {
    /// The parameter's name (compared after percent-decoding).
    pub name: String,
    /// How the value is tested.
    #[serde(rename = "match")]
    pub match_type: MatchType,
    /// The fixed text or the regex; only for `fixed` and `regex`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The fewest characters the value may have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_chars: Option<usize>,
    /// The most characters the value may have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_chars: Option<usize>,
    /// The value normalisation fills in when the URL lacks the parameter; such URLs then match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// Where the page number of a gallery URL is: `{ query = "pid", delta = 42 }` or `{ path = 2, delta = 1 }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NextPageDef {
    /// The name of the parameter holding the page number; it must be one of the class's `query` entries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// The index (from 0) of the path component holding the page number; it must be one of the class's `path`
    /// entries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<usize>,
    /// What to add to get the next page. Default: 1.
    #[serde(default = "one")]
    pub delta: i64,
}

fn one() -> i64 {
    1
}

/// A URL class as written in TOML (a `[[url_class]]` table). Compile it, with the rest of a library, through
/// [`UrlClasses::from_defs`](super::UrlClasses::from_defs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UrlClassDef {
    /// The class's name, unique in its library; logs and reports show it.
    pub name: String,
    /// What URLs of this class are.
    pub kind: UrlKind,
    /// A URL of this class; `trawl check` verifies that the class matches it and normalises it cleanly.
    pub example: String,
    /// The scheme of normalised URLs. Default: `https`.
    #[serde(default)]
    pub preferred_scheme: PreferredScheme,
    /// Host names the class matches; `www`, `www2` and other `www…` prefixes are matched automatically.
    #[serde(default)]
    pub domains: Vec<String>,
    /// Regexes for host names the class matches (anchored for you at both ends). Default: none.
    #[serde(default)]
    pub domain_regexes: Vec<String>,
    /// Whether `artist.site.com` matches domain `site.com`. Default: false.
    #[serde(default)]
    pub match_subdomains: bool,
    /// Whether a matched subdomain stays in the normalised URL. Default: false.
    #[serde(default)]
    pub keep_subdomains: bool,
    /// Whether one URL of this class can yield several files. Default: false.
    #[serde(default)]
    pub can_produce_multiple_files: bool,
    /// Whether the URL is remembered as a known URL of the files it yields. Default: true for file and post
    /// classes, false for gallery and watchable classes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub associate_known_url: Option<bool>,
    /// Whether normalisation sorts query parameters by name. Default: true.
    #[serde(default = "yes")]
    pub alphabetise_query: bool,
    /// Whether normalisation keeps the `#fragment`. Default: false.
    #[serde(default)]
    pub keep_fragment: bool,
    /// Whether the URL sent to the server keeps parameters the class does not list (the normalised URL never
    /// does). Default: true for gallery and watchable classes, false for file and post classes; always false
    /// with `exact_query`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_extra_query_for_server: Option<bool>,
    /// Whether URLs with more path components than listed are refused. Default: false.
    #[serde(default)]
    pub exact_path: bool,
    /// Whether URLs with parameters not listed are refused. Default: false.
    #[serde(default)]
    pub exact_query: bool,
    /// The path components, in order. Default: none.
    #[serde(default)]
    pub path: Vec<PathComponentDef>,
    /// The query parameters, in any order. Default: none.
    #[serde(default)]
    pub query: Vec<QueryParamDef>,
    /// How to compute the next gallery page (gallery classes only). Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page: Option<NextPageDef>,
    /// The converter from this class's URL (as sent to the server) to the API URL fetched instead. Default: none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub api: Vec<ConverterStep>,
    /// Whether an HTML page of this class is rendered in the browser (docs/browser.md), whatever `[browser]
    /// mode` says. Default: false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub render: bool,
}

fn yes() -> bool {
    true
}

impl UrlClassDef {
    /// `associate_known_url` with its default applied.
    pub fn associates_known_url(&self) -> bool {
        self.associate_known_url
            .unwrap_or(matches!(self.kind, UrlKind::File | UrlKind::Post))
    }

    /// `keep_extra_query_for_server` with its default applied.
    pub fn keeps_extra_query_for_server(&self) -> bool {
        !self.exact_query
            && self
                .keep_extra_query_for_server
                .unwrap_or(matches!(self.kind, UrlKind::Gallery | UrlKind::Watchable))
    }
}
