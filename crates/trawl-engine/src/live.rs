//! Settings changed while a crawl runs (Heritrix's mid-crawl edits): a property for every URI, or a sheet
//! added, replaced or removed. A change is checked as a whole config would be, then swapped in at once; the
//! job's crawl.toml is edited (its comments kept) so the change outlives the run.

use std::{
    collections::HashMap,
    path::Path,
    sync::{Arc, Mutex, PoisonError},
};

use serde::{Deserialize, Serialize};
use trawl_url::Url;

use crate::{Error, job::Job};
use trawl_config::CrawlConfig;
use trawl_config::Scope;
use trawl_config::settings::{
    ConfigError, Problem, SheetSpec,
    sheets::{SheetPathError, check_path},
};
use trawl_config::sheets::Sheets;

/// One change of settings, as operators send it (`{"set": {...}}`, `{"sheet": {...}}` or
/// `{"remove_sheet": "name"}` in JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum SettingsChange {
    /// Set dotted settings for every URI: the paths a sheet may set (`frontier.*`, `fetch.*`,
    /// `scope.max_*`, `classes.watch_*`).
    Set(toml::Table),
    /// Add a sheet, or replace the one with the same name (sent to the crawl whole, a proxy's password
    /// with it: a sheet's own serialisation, for crawl.toml, leaves it out; xt14a F8).
    Sheet(#[serde(serialize_with = "whole_sheet")] SheetSpec),
    /// Remove the sheet with this name.
    RemoveSheet(String),
}

/// A sheet as sent to a running crawl: every field, its `set` whole.
fn whole_sheet<S: serde::Serializer>(spec: &SheetSpec, s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Whole<'a> {
        name: &'a str,
        set: &'a toml::Table,
        surt_prefixes: &'a [String],
        rules: &'a [trawl_config::settings::RuleSpec],
    }
    Whole {
        name: &spec.name,
        set: &spec.set,
        surt_prefixes: &spec.surt_prefixes,
        rules: &spec.rules,
    }
    .serialize(s)
}

/// Setting `key`'s `value` as replies and logs show it: a proxy without its password.
fn shown(key: &str, value: &toml::Value) -> toml::Value {
    match value {
        toml::Value::String(proxy) if key == "fetch.proxy" => toml::Value::String(
            trawl_config::settings::access::proxy_without_password(proxy),
        ),
        other => other.clone(),
    }
}

impl SettingsChange {
    /// `config` with this change applied, checked like a loaded config (values, sheets, scope); the error
    /// names the path or sheet at fault.
    pub fn apply(
        &self,
        config: &CrawlConfig,
        seeds: &[Url],
        base_dir: &Path,
    ) -> Result<CrawlConfig, SettingsError> {
        self.apply_live(config, seeds, base_dir)
            .map(|live| (*live.config).clone())
    }

    /// The settings a running crawl reads after this change to `config`, built (and so checked) once.
    pub(crate) fn apply_live(
        &self,
        config: &CrawlConfig,
        seeds: &[Url],
        base_dir: &Path,
    ) -> Result<LiveSettings, SettingsError> {
        let mut next = config.clone();
        match self {
            SettingsChange::Set(table) => {
                if table.is_empty() {
                    return Err(SettingsError::EmptySet);
                }
                for (path, value) in table {
                    check_path(path)?;
                    if trawl_config::settings::FIXED_FOR_THE_JOB.contains(&path.as_str()) {
                        return Err(SettingsError::FixedForTheJob { path: path.clone() });
                    }
                    // Each value alone first, so that a wrong one is named.
                    let one = toml::Table::from_iter([(path.clone(), value.clone())]);
                    if let Err(source) = trawl_config::sheets::apply(&next, &one) {
                        return Err(SettingsError::ValueOf {
                            path: path.clone(),
                            source,
                        });
                    }
                }
                next = trawl_config::sheets::apply(&next, table)?;
            }
            SettingsChange::Sheet(spec) => {
                match next.sheets.iter_mut().find(|s| s.name == spec.name) {
                    Some(old) => *old = spec.clone(),
                    None => next.sheets.push(spec.clone()),
                }
            }
            SettingsChange::RemoveSheet(name) => {
                let before = next.sheets.len();
                next.sheets.retain(|s| &s.name != name);
                if next.sheets.len() == before {
                    let names: Vec<&str> = config.sheets.iter().map(|s| s.name.as_str()).collect();
                    return Err(SettingsError::NoSuchSheet {
                        name: name.clone(),
                        known: if names.is_empty() {
                            "(none)".to_string()
                        } else {
                            names.join(", ")
                        },
                    });
                }
            }
        }
        next.validate()?;
        LiveSettings::build(Arc::new(next), seeds, base_dir)
    }

    /// What the change did, for replies and config-changes.log (a proxy's password left out); names settings
    /// that wait for the next launch.
    pub fn describe(&self) -> String {
        match self {
            SettingsChange::Set(table) => {
                let set: Vec<String> = table
                    .iter()
                    .map(|(k, v)| format!("{k} = {}", shown(k, v)))
                    .collect();
                let later: Vec<&str> = table
                    .keys()
                    .filter(|k| trawl_config::settings::READ_AT_LAUNCH.contains(&k.as_str()))
                    .map(String::as_str)
                    .collect();
                let mut out = format!("set {} for every URI", set.join(", "));
                if !later.is_empty() {
                    out.push_str(&format!(
                        " ({} read when a crawl starts: saved, in force from the next launch)",
                        later.join(", ")
                    ));
                }
                out
            }
            SettingsChange::Sheet(spec) => {
                let set: Vec<String> = spec
                    .set
                    .iter()
                    .map(|(k, v)| format!("{k} = {}", shown(k, v)))
                    .collect();
                let mut under = Vec::new();
                if !spec.surt_prefixes.is_empty() {
                    under.push(format!("SURT prefixes {}", spec.surt_prefixes.join(" ")));
                }
                match spec.rules.len() {
                    0 => {}
                    1 => under.push("1 rule".to_owned()),
                    n => under.push(format!("{n} rules")),
                }
                format!(
                    "sheet {:?} put: {} for URIs under {}",
                    spec.name,
                    set.join(", "),
                    under.join(" and ")
                )
            }
            SettingsChange::RemoveSheet(name) => format!("sheet {name:?} removed"),
        }
    }
}

/// Why a change to a crawl's settings was refused; each names the path or sheet at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SettingsError {
    /// `set` with nothing in it.
    #[error("`set` names no setting: give {{\"path\": value, ...}}")]
    EmptySet,
    /// A setting a job keeps for its whole life ([`trawl_config::settings::FIXED_FOR_THE_JOB`]).
    #[error(
        "`{path}` is fixed for a job's life: its queued URIs are stored in the queues it names, and a resume \
         with another value would split a host over two queues (twice its politeness, twice its budget); \
         a new job takes a new value"
    )]
    FixedForTheJob {
        /// The setting's dotted path.
        path: String,
    },
    /// A path no sheet or `set` may change.
    #[error(transparent)]
    Path(#[from] SheetPathError),
    /// A value of the wrong type for its setting.
    #[error("{}", .0.message())]
    Value(#[from] toml::de::Error),
    /// A value of the wrong type for the setting `path` (xt11a F13: the setting was not named).
    #[error("`{path}`: {}: give a value of the setting's type (docs/configuration.md)", trawl_config::settings::problem::value_problem(.source))]
    ValueOf {
        /// The setting's dotted path.
        path: String,
        /// What is wrong with its value.
        source: toml::de::Error,
    },
    /// `remove_sheet` naming no sheet.
    #[error("no sheet named {name:?}; the sheets are: {known}")]
    NoSuchSheet {
        /// The name given.
        name: String,
        /// The crawl's sheets, comma-separated, or `(none)`.
        known: String,
    },
    /// Settings that contradict each other after the change.
    #[error(transparent)]
    Invalid(#[from] Box<Problem>),
    /// Sheets that cannot be built, as `(key, message)` pairs.
    #[error("{}", .0.iter().map(|(k, m)| format!("{k}: {m}")).collect::<Vec<_>>().join("; "))]
    Sheets(Vec<(String, String)>),
    /// A scope that cannot be built from the changed settings.
    #[error(transparent)]
    Scope(#[from] ConfigError),
}

/// The settings a running crawl reads per URI, rebuilt whole on every change.
#[derive(Debug)]
pub(crate) struct LiveSettings {
    /// The crawl's settings (no sheet applied).
    pub(crate) config: Arc<CrawlConfig>,
    /// The sheets over them.
    pub(crate) sheets: Sheets,
    /// The crawl's scope.
    pub(crate) scope: Arc<Scope>,
    /// Scopes of URIs whose sheets change `scope.*`, by the address of their (cached) effective config.
    sheet_scopes: Mutex<HashMap<usize, Arc<Scope>>>,
    seeds: Vec<Url>,
}

impl LiveSettings {
    /// The settings of `config`; the error lists every problem of its sheets and scope.
    pub(crate) fn build(
        config: Arc<CrawlConfig>,
        seeds: &[Url],
        base_dir: &Path,
    ) -> Result<LiveSettings, SettingsError> {
        let sheets =
            Sheets::from_config(&config, seeds, base_dir).map_err(SettingsError::Sheets)?;
        let scope = Scope::from_config(&config, seeds)?;
        Ok(LiveSettings {
            config,
            sheets,
            scope: Arc::new(scope),
            sheet_scopes: Mutex::default(),
            seeds: seeds.to_vec(),
        })
    }

    /// The seeds the scope and sheets were built with: the crawl's, and those an operator added since.
    pub(crate) fn seeds(&self) -> &[Url] {
        &self.seeds
    }

    /// The scope for a URI with these effective `settings` (from [`Sheets::effective`]): the crawl's, or,
    /// when sheets give the URI other `scope.*` values, one built from them (cached per sheet set).
    pub(crate) fn scope_for(&self, settings: &Arc<CrawlConfig>) -> Arc<Scope> {
        // No sheet applies (the usual case): the same Arc as the base settings, no comparison needed.
        if Arc::ptr_eq(settings, &self.config) || settings.scope == self.config.scope {
            return self.scope.clone();
        }
        let key = Arc::as_ptr(settings) as usize;
        let mut cache = self
            .sheet_scopes
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(scope) = cache.get(&key) {
            return scope.clone();
        }
        // The settings were validated with the same rules when the sheets were built.
        let scope =
            Scope::from_config(settings, &self.seeds).map_or_else(|_| self.scope.clone(), Arc::new);
        cache.insert(key, scope.clone());
        scope
    }
}

/// Applies `change` to a job that is not running: its crawl.toml is checked with the change and edited (its
/// comments kept).
pub fn change_offline(job_dir: &Path, change: &SettingsChange) -> Result<String, Error> {
    let job = Job::open(job_dir)?;
    let _lock = job.lock()?;
    let config = CrawlConfig::load(&job.config_path())?;
    let seeds: Vec<Url> = config
        .seeds
        .urls
        .iter()
        .map(|s| trawl_url::parse_seed(s))
        .collect::<Result<_, _>>()?;
    // The naming the job's queues were made with may be put back where crawl.toml was edited away from it
    // (xt15c F9: the mend the resume's refusal names could only be made by hand).
    if let SettingsChange::Set(table) = change
        && table
            .keys()
            .all(|k| trawl_config::settings::FIXED_FOR_THE_JOB.contains(&k.as_str()))
        && let Some(recorded) = job.recorded_queue_naming()?
        && table
            .iter()
            .all(|(k, v)| trawl_config::settings::setting_at(&recorded, k) == Some(v))
    {
        let next = trawl_config::sheets::apply(&config, table).map_err(|e| Error::Config {
            path: job.config_path(),
            message: e.message().trim().to_owned(),
        })?;
        job.write_config(&next)?;
        return Ok(format!(
            "{} (the naming this job's queues were made with)",
            change.describe()
        ));
    }
    let next = change
        .apply(&config, &seeds, job.root())
        .map_err(|e| Error::Config {
            path: job.config_path(),
            message: e.to_string(),
        })?;
    job.write_config(&next)?;
    Ok(change.describe())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(json: &str) -> SettingsChange {
        serde_json::from_str(json).unwrap()
    }

    /// A value of the wrong type is refused naming its setting, among others that are right (xt11a F13).
    #[test]
    fn a_wrong_value_names_its_setting() {
        let config = CrawlConfig::default();
        let e = change(r#"{"set": {"frontier.min_delay_ms": 100, "frontier.max_delay_ms": "x"}}"#)
            .apply(&config, &[], Path::new("."))
            .unwrap_err()
            .to_string();
        // In the words `trawl check` uses, not serde's "expected u64" (xt12a b F8).
        assert!(
            e.starts_with(
                "`frontier.max_delay_ms`: found the text \"x\", expected a whole number, 0 or more"
            ),
            "{e}"
        );
    }

    /// How queues are named is the job's for life (xt14b F1: a resume split a host over two queues).
    #[test]
    fn the_queue_assignment_is_not_changed() {
        for set in [
            r#"{"set": {"frontier.queue_assignment": "ip"}}"#,
            r#"{"set": {"frontier.parallel_queues": 2}}"#,
        ] {
            let e = change(set)
                .apply(&CrawlConfig::default(), &[], Path::new("."))
                .unwrap_err();
            assert!(matches!(e, SettingsError::FixedForTheJob { .. }), "{e}");
            assert!(e.to_string().contains("a new job takes a new value"), "{e}");
        }
    }

    #[test]
    fn json_forms() {
        assert!(matches!(
            change(r#"{"set": {"frontier.min_delay_ms": 500}}"#),
            SettingsChange::Set(_)
        ));
        assert!(matches!(
            change(r#"{"remove_sheet": "x"}"#),
            SettingsChange::RemoveSheet(n) if n == "x"
        ));
        assert!(
            serde_json::from_str::<SettingsChange>(r#"{"set": {}, "sheet": {}}"#).is_err(),
            "one change at a time"
        );
    }

    #[test]
    fn set_put_remove() {
        let base = CrawlConfig::default();
        let dir = Path::new(".");
        let c = change(r#"{"set": {"frontier.min_delay_ms": 500, "frontier.max_delay_ms": 900}}"#)
            .apply(&base, &[], dir)
            .unwrap();
        assert_eq!(
            (c.frontier.min_delay_ms, c.frontier.max_delay_ms),
            (500, 900)
        );
        let c = change(
            r#"{"sheet": {"name": "slow", "surt_prefixes": ["http://(org,"], "set": {"frontier.min_delay_ms": 9}}}"#,
        )
        .apply(&c, &[], dir)
        .unwrap();
        assert_eq!(c.sheets.len(), 1);
        let c = change(
            r#"{"sheet": {"name": "slow", "surt_prefixes": ["http://(com,"], "set": {"frontier.min_delay_ms": 7}}}"#,
        )
        .apply(&c, &[], dir)
        .unwrap();
        assert_eq!(c.sheets.len(), 1, "replaced by name");
        assert_eq!(c.sheets[0].surt_prefixes, ["http://(com,"]);
        let c = change(r#"{"remove_sheet": "slow"}"#)
            .apply(&c, &[], dir)
            .unwrap();
        assert!(c.sheets.is_empty());
    }

    #[test]
    fn refusals_name_the_fault() {
        let base = CrawlConfig::default();
        let dir = Path::new(".");
        for (json, want) in [
            (r#"{"set": {"warc.prefix": "x"}}"#, "not read per URI"),
            (r#"{"set": {"frontier.min_delay": 1}}"#, "names no setting"),
            (
                r#"{"set": {"frontier.min_delay_ms": "slow"}}"#,
                "expected a whole number",
            ),
            (r#"{"set": {}}"#, "names no setting"),
            (r#"{"remove_sheet": "nope"}"#, "no sheet named \"nope\""),
            (
                r#"{"sheet": {"name": "s", "set": {}}}"#,
                "applies to nothing",
            ),
            (
                r#"{"set": {"frontier.min_delay_ms": 5000, "frontier.max_delay_ms": 10}}"#,
                "max_delay_ms",
            ),
        ] {
            let e = change(json).apply(&base, &[], dir).unwrap_err();
            let e = e.to_string();
            assert!(e.contains(want), "{json}: {e}");
        }
    }

    #[test]
    fn one_sheet_from_text() {
        let one = "[[sheet]]\nname = \"s\"\nsurt_prefixes = [\"http://(org,\"]\nset = {}\n";
        assert_eq!(SheetSpec::parse_one(one).unwrap().name, "s");
        assert!(
            SheetSpec::parse_one(&one.repeat(2))
                .unwrap_err()
                .to_string()
                .contains("2 [[sheet]]")
        );
        assert!(
            SheetSpec::parse_one("name = 1")
                .unwrap_err()
                .to_string()
                .contains("one [[sheet]] table")
        );
    }

    #[test]
    fn describe_names_launch_time_settings() {
        let d = change(r#"{"set": {"fetch.max_connections": 4, "frontier.min_delay_ms": 1}}"#)
            .describe();
        assert!(
            d.contains("next launch") && d.contains("fetch.max_connections"),
            "{d}"
        );
        let d = change(r#"{"set": {"frontier.min_delay_ms": 1}}"#).describe();
        assert!(!d.contains("next launch"), "{d}");
    }

    /// A proxy's password is in neither the reply nor what the API logs (review 62: both held it); what the
    /// logs show is the reply (xt25a F4: the API logged the request's JSON before it).
    #[test]
    fn a_proxy_password_is_not_shown() {
        let c = change(r#"{"set": {"fetch.proxy": "socks5://u:s3cret@127.0.0.1:1080"}}"#);
        let logged = c.describe();
        assert!(
            !logged.contains("s3cret") && logged.contains("socks5://u@127.0.0.1:1080"),
            "{logged}"
        );
        assert!(
            serde_json::to_string(&c).unwrap().contains("s3cret"),
            "sent whole"
        );
        // A sheet too: sent whole (xt14a F8: `ctl put-sheet` lost it), logged without.
        let c = change(
            r#"{"sheet": {"name": "s", "surt_prefixes": ["http://(org,"], "set": {"fetch.proxy": "socks5://u:s3cret@127.0.0.1:1080"}}}"#,
        );
        let sent: SettingsChange =
            serde_json::from_str(&serde_json::to_string(&c).unwrap()).unwrap();
        assert_eq!(sent, c);
        let logged = c.describe();
        assert_eq!(
            logged,
            "sheet \"s\" put: fetch.proxy = \"socks5://u@127.0.0.1:1080\" for URIs under SURT prefixes http://(org,"
        );
    }
}
