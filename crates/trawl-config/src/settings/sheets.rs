//! `[[sheet]]`: named sets of setting overrides, applied per URI.

use serde::{Deserialize, Serialize};

use super::rules::RuleSpec;

/// A sheet: settings that differ for some URIs.
///
/// ```toml
/// [[sheet]]
/// name = "slow-edu"
/// surt_prefixes = ["http://(edu,"]
/// set = { "frontier.min_delay_ms" = 10000 }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SheetSpec {
    /// The sheet's name, unique, shown in logs.
    pub name: String,
    /// Dotted setting paths and their values for the URIs the sheet applies to (written out without a proxy
    /// password).
    #[serde(serialize_with = "super::access::serialize_sheet_set")]
    pub set: toml::Table,
    /// The sheet applies to URIs under these Heritrix-form SURT prefixes. Default: none.
    #[serde(default)]
    pub surt_prefixes: Vec<String>,
    /// The sheet applies to URIs this decide sequence ACCEPTs (REJECT when all rules pass). Default: none.
    #[serde(default)]
    pub rules: Vec<RuleSpec>,
}

impl SheetSpec {
    /// The one `[[sheet]]` table in `text` (a sheet sent on its own, e.g. to change a running crawl); the
    /// error says what is wrong with the text.
    pub fn parse_one(text: &str) -> Result<SheetSpec, SheetTextError> {
        #[derive(Deserialize)]
        struct One {
            sheet: Vec<SheetSpec>,
        }
        let mut one: One =
            toml::from_str(text).map_err(|e| SheetTextError::Shape(e.message().to_owned()))?;
        match one.sheet.len() {
            1 => Ok(one.sheet.remove(0)),
            n => Err(SheetTextError::Count(n)),
        }
    }
}

/// A sheet sent on its own that is not one well-formed `[[sheet]]` table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SheetTextError {
    /// Not TOML, or not a sheet's keys.
    #[error("a sheet is one [[sheet]] table with name, set and surt_prefixes or rules: {0}")]
    Shape(String),
    /// More (or fewer) than one `[[sheet]]` table.
    #[error("{0} [[sheet]] tables: give one at a time")]
    Count(usize),
}

/// A dotted path a sheet cannot set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SheetPathError {
    /// No setting has this path.
    #[error(
        "{0:?} names no setting; sheets set dotted paths such as \"frontier.min_delay_ms\" (see docs/configuration.md)"
    )]
    NoSuchSetting(String),
    /// The path names a section.
    #[error("{0:?} is a section, not a setting: name one of its keys")]
    Section(String),
    /// The setting is read once per crawl, not per URI.
    #[error(
        "{path:?} is not read per URI, so a sheet cannot change it; sheets may set frontier.*, fetch.*, scope.max_*, classes.watch_*, extract.* and browser.mode"
    )]
    NotPerUri {
        /// The path.
        path: String,
    },
}

/// Setting sections a sheet may override: those read per URI.
pub const OVERRIDABLE: &[&str] = &[
    "frontier.",
    "fetch.",
    "scope.max_",
    "classes.watch_",
    "extract.",
    "browser.mode",
];

/// Why `path` cannot be set by a sheet, if it cannot: it must name one setting (a leaf of the config) in a
/// section read per URI.
pub fn check_path(path: &str) -> Result<(), SheetPathError> {
    // Settings that default to nothing (absent from the defaults) or hold a table of values.
    if ["fetch.proxy", "fetch.headers"].contains(&path) {
        return Ok(());
    }
    let defaults = toml::Value::try_from(super::CrawlConfig::default()).expect("config serializes");
    let mut v = &defaults;
    for part in path.split('.') {
        match v.get(part) {
            Some(next) => v = next,
            None => {
                return Err(SheetPathError::NoSuchSetting(path.to_owned()));
            }
        }
    }
    if v.is_table() {
        return Err(SheetPathError::Section(path.to_owned()));
    }
    if !OVERRIDABLE.iter().any(|p| path.starts_with(p)) {
        return Err(SheetPathError::NotPerUri {
            path: path.to_owned(),
        });
    }
    Ok(())
}
