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
        "{path:?} names no setting{hint}; settings are set by dotted paths such as \"frontier.min_delay_ms\" (see docs/configuration.md)"
    )]
    NoSuchSetting {
        /// The path.
        path: String,
        /// `: did you mean "…"?` for a path a slip away from a setting's, else empty.
        hint: String,
    },
    /// The path names a section.
    #[error("{0:?} is a section, not a setting: name one of its keys")]
    Section(String),
    /// The setting is read once per crawl, not per URI.
    #[error(
        "{path:?} is not read per URI: neither a sheet nor a change to a running crawl can set it; edit the job's crawl.toml for its next launch. Sheets and live changes set frontier.*, fetch.*, scope.max_*, classes.watch_*, extract.* and browser.mode"
    )]
    NotPerUri {
        /// The path.
        path: String,
    },
}

/// The setting's path (`section.key`) a slip away from `path`: an edit or two, or its unit left off (xt12a
/// b F8: a misspelt path got no suggestion).
fn closest_path(path: &str) -> Option<String> {
    let paths: Vec<String> = super::problem::sections()
        .iter()
        .skip(1)
        .flat_map(|(section, keys)| keys.iter().map(move |k| format!("{section}.{k}")))
        .chain(["fetch.proxy".to_owned(), "fetch.cookies_file".to_owned()])
        .collect();
    let known: Vec<&str> = paths.iter().map(String::as_str).collect();
    let near = (path.chars().count() / 6).clamp(1, 3);
    super::problem::closest(path, &known, near).map(str::to_owned)
}

/// Setting sections a sheet may override: those read per URI.
pub const OVERRIDABLE: &[&str] = &[
    "frontier.",
    "fetch.",
    "scope.max_",
    "scope.seed_redirects_new_seeds",
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
    // A setting that defaults to nothing and is read when the crawl starts (review R9: called no setting).
    if path == "fetch.cookies_file" {
        return Err(SheetPathError::NotPerUri {
            path: path.to_owned(),
        });
    }
    let defaults = toml::Value::try_from(super::CrawlConfig::default()).expect("config serializes");
    let mut v = &defaults;
    for part in path.split('.') {
        match v.get(part) {
            Some(next) => v = next,
            None => {
                return Err(SheetPathError::NoSuchSetting {
                    path: path.to_owned(),
                    hint: closest_path(path)
                        .map(|p| format!(": did you mean {p:?}?"))
                        .unwrap_or_default(),
                });
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A misspelt path gets the setting it was meant to name; a setting read once per crawl says where it is
    /// changed, not only that a sheet cannot (xt12a b F8).
    #[test]
    fn a_wrong_path_is_said_with_the_way_out() {
        for (path, want) in [
            (
                "frontier.min_dela_ms",
                "did you mean \"frontier.min_delay_ms\"?",
            ),
            ("fetch.timeout", "did you mean \"fetch.timeout_ms\"?"),
            ("fetchh.user_agent", "did you mean \"fetch.user_agent\"?"),
            (
                "warc.prefix",
                "edit the job's crawl.toml for its next launch",
            ),
            ("fetch.cookies_file", "is not read per URI"),
            ("fetch.cookie_file", "did you mean \"fetch.cookies_file\"?"),
        ] {
            let said = check_path(path).unwrap_err().to_string();
            assert!(said.contains(want), "{path}: {said}");
        }
        assert!(check_path("frontier.min_delay_ms").is_ok());
    }
}
