//! Sheets resolved per URI: the crawl's settings with the overrides of every sheet that applies.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use trawl_url::{SurtPrefix, Url};

use crate::{
    CrawlConfig, CrawlUri,
    decide::{DecideSequence, Decision},
    settings::{
        problem::in_users_words,
        rules::{BuildContext, build_into},
    },
};

#[derive(Debug)]
struct Sheet {
    name: String,
    set: toml::Table,
    prefixes: Vec<SurtPrefix>,
    rules: Option<DecideSequence>,
}

/// The crawl's sheets. [`Sheets::effective`] gives each URI its settings: the profile with the overrides of
/// the sheets that apply to it, applied in order of specificity (sheets chosen by decide rules first, then
/// by SURT prefix from the shortest matching prefix to the longest, so the most specific applies last; ties in
/// file order). One view is built per distinct set of sheets and shared.
#[derive(Debug)]
pub struct Sheets {
    base: Arc<CrawlConfig>,
    sheets: Vec<Sheet>,
    cache: Mutex<HashMap<Vec<usize>, Arc<CrawlConfig>>>,
}

/// Sets `path` (dotted) in `root` to `value`.
fn set_path(root: &mut toml::Value, path: &str, value: toml::Value) {
    let mut v = root;
    let mut parts = path.split('.').peekable();
    while let Some(part) = parts.next() {
        let Some(table) = v.as_table_mut() else {
            return;
        };
        if parts.peek().is_none() {
            table.insert(part.to_string(), value);
            return;
        }
        v = table
            .entry(part.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    }
}

/// Removes `path` (dotted) from `root`.
fn remove_path(root: &mut toml::Value, path: &str) {
    let (parent, key) = path.rsplit_once('.').unwrap_or(("", path));
    let mut v = root;
    for part in parent.split('.').filter(|p| !p.is_empty()) {
        match v.get_mut(part) {
            Some(next) => v = next,
            None => return,
        }
    }
    if let Some(table) = v.as_table_mut() {
        table.remove(key);
    }
}

/// `base` with `set` applied; the error says which value does not fit. An empty string for a setting that
/// defaults to none (`fetch.proxy`) sets it back to none: a proxy set while a crawl runs can be taken away
/// again, and a sheet can send its hosts direct (xt12a b F4: there was no way back but editing crawl.toml).
pub fn apply(base: &CrawlConfig, set: &toml::Table) -> Result<CrawlConfig, toml::de::Error> {
    let mut v = toml::Value::try_from(base).expect("config serializes");
    crate::settings::access::put_secrets(base, &mut v);
    // The defaults as written, once: which settings default to none (absent from them).
    static DEFAULTS: std::sync::OnceLock<toml::Value> = std::sync::OnceLock::new();
    let defaults = DEFAULTS.get_or_init(|| {
        toml::Value::try_from(CrawlConfig::default())
            .unwrap_or_else(|_| toml::Value::Table(toml::Table::new()))
    });
    let default_of = |path: &str| {
        path.split('.')
            .try_fold(defaults, |v, part| v.get(part))
            .is_some()
    };
    for (path, value) in set {
        if value.as_str() == Some("") && !default_of(path) {
            remove_path(&mut v, path);
        } else {
            set_path(&mut v, path, value.clone());
        }
    }
    v.try_into()
}

impl Sheets {
    /// The sheets of `config` (already validated: see [`CrawlConfig::check`](crate::settings::Checked)).
    /// Problems are `(key, message)` pairs, all of them.
    pub fn from_config(
        config: &Arc<CrawlConfig>,
        seeds: &[Url],
        base_dir: &std::path::Path,
    ) -> Result<Sheets, Vec<(String, String)>> {
        let mut problems = Vec::new();
        let classes = Arc::new(config.compile_classes().unwrap_or_default());
        let ctx = BuildContext {
            seeds,
            base: base_dir,
            classes,
            scope: &config.scope,
        };
        let mut sheets = Vec::new();
        for (i, spec) in config.sheets.iter().enumerate() {
            let at = format!("sheet[{i}]");
            if config.sheets[..i].iter().any(|s| s.name == spec.name) {
                problems.push((
                    format!("{at}.name"),
                    format!("sheet name {:?} is used twice", spec.name),
                ));
            }
            // Each path alone (a name or type problem is the path's), then the values that fit together: the
            // crawl's settings with the sheet applied get the checks the top-level settings get.
            let mut fitting = toml::Table::new();
            for (path, value) in &spec.set {
                if let Err(e) = crate::settings::sheets::check_path(path) {
                    problems.push((format!("{at}.set"), e.to_string()));
                    continue;
                }
                let one = toml::Table::from_iter([(path.clone(), value.clone())]);
                match apply(config, &one) {
                    Err(e) => problems.push((
                        format!("{at}.set"),
                        format!(
                            "sheet {:?}: {path}: {}",
                            spec.name,
                            in_users_words(e.message().trim())
                        ),
                    )),
                    Ok(_) => {
                        fitting.insert(path.clone(), value.clone());
                    }
                }
            }
            if let Ok(applied) = apply(config, &fitting) {
                let before = config.validate_all();
                for (key, message) in applied.validate_all() {
                    if before.contains(&(key.clone(), message.clone())) {
                        continue; // the top level's own problem, reported there
                    }
                    let message = if message.contains(&key) {
                        message
                    } else {
                        format!("{key}: {message}")
                    };
                    problems.push((
                        format!("{at}.set"),
                        format!("sheet {:?}: {message}", spec.name),
                    ));
                }
            }
            if spec.surt_prefixes.is_empty() && spec.rules.is_empty() {
                problems.push((
                    at.clone(),
                    format!(
                        "sheet {:?} applies to nothing: give `surt_prefixes` or `rules`",
                        spec.name
                    ),
                ));
            }
            let rules = (!spec.rules.is_empty()).then(|| {
                let mut seq = DecideSequence::new(Vec::new());
                build_into(
                    &mut seq,
                    &spec.rules,
                    &format!("{at}.rules"),
                    &ctx,
                    &mut problems,
                );
                seq
            });
            let mut prefixes = Vec::new();
            for (j, p) in spec.surt_prefixes.iter().enumerate() {
                match crate::settings::seed_list::prefix_value(p) {
                    Ok(prefix) => prefixes.push(prefix),
                    Err(message) => problems.push((
                        format!("{at}.surt_prefixes[{j}]"),
                        format!("sheet {:?}: {message}", spec.name),
                    )),
                }
            }
            sheets.push(Sheet {
                name: spec.name.clone(),
                set: spec.set.clone(),
                prefixes,
                rules,
            });
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Sheets {
            base: config.clone(),
            sheets,
            cache: Mutex::new(HashMap::new()),
        })
    }

    /// The names of the sheets that apply to `uri`, in the order they are applied.
    pub fn applicable(&self, uri: &CrawlUri) -> Vec<&str> {
        self.order(uri)
            .into_iter()
            .map(|i| self.sheets[i].name.as_str())
            .collect()
    }

    fn order(&self, uri: &CrawlUri) -> Vec<usize> {
        let mut hits: Vec<(usize, usize)> = Vec::new();
        for (i, s) in self.sheets.iter().enumerate() {
            let by_prefix = s
                .prefixes
                .iter()
                .filter_map(|p| p.matched_len(&uri.url))
                .map(|len| len + 1)
                .max();
            let by_rules = s
                .rules
                .as_ref()
                .is_some_and(|r| r.decide(uri).decision == Decision::Accept);
            match (by_prefix, by_rules) {
                (Some(len), _) => hits.push((len, i)),
                (None, true) => hits.push((0, i)),
                _ => {}
            }
        }
        hits.sort();
        hits.into_iter().map(|(_, i)| i).collect()
    }

    /// The names of the sheets that apply to `uri`, in the order they apply, comma-joined (empty: none).
    pub fn names_for(&self, uri: &CrawlUri) -> String {
        self.order(uri)
            .into_iter()
            .map(|i| self.sheets[i].name.as_str())
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The settings for `uri`: the profile, then each applicable sheet's overrides.
    pub fn effective(&self, uri: &CrawlUri) -> Arc<CrawlConfig> {
        let order = self.order(uri);
        if order.is_empty() {
            return self.base.clone();
        }
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .entry(order.clone())
            .or_insert_with(|| {
                let mut c = (*self.base).clone();
                for i in order {
                    // Paths and values were checked in from_config.
                    if let Ok(next) = apply(&c, &self.sheets[i].set) {
                        c = next;
                    }
                }
                Arc::new(c)
            })
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::test_util::uri;

    fn sheets(text: &str) -> Result<Sheets, Vec<(String, String)>> {
        let c: CrawlConfig = toml::from_str(text).unwrap();
        Sheets::from_config(&Arc::new(c), &[], std::path::Path::new("."))
    }

    #[test]
    fn most_specific_prefix_applies_last_and_views_are_shared() {
        let s = sheets(
            r#"
[[sheet]]
name = "edu"
surt_prefixes = ["http://(edu,"]
set = { "frontier.min_delay_ms" = 10000, "fetch.max_connections_per_host" = 2 }
[[sheet]]
name = "mit"
surt_prefixes = ["http://(edu,mit,"]
set = { "frontier.min_delay_ms" = 20000 }
[[sheet]]
name = "deep"
rules = [{ rule = "too_many_hops", max_hops = 3, decision = "accept" }]
set = { "scope.max_outlinks" = 10 }
"#,
        )
        .unwrap();
        let mit = uri("http://www.mit.edu/a", "L");
        let c = s.effective(&mit);
        assert_eq!(s.applicable(&mit), ["edu", "mit"]);
        assert_eq!(
            (c.frontier.min_delay_ms, c.fetch.max_connections_per_host),
            (20000, 2)
        );
        let other = uri("http://harvard.edu/", "L");
        assert_eq!(s.effective(&other).frontier.min_delay_ms, 10000);
        let deep = uri("http://harvard.edu/", "LLLL");
        assert_eq!(s.applicable(&deep), ["deep", "edu"]);
        assert_eq!(s.effective(&deep).scope.max_outlinks, 10);
        assert_eq!(
            s.effective(&uri("http://a.org/", "L"))
                .frontier
                .min_delay_ms,
            3000
        );
        assert!(Arc::ptr_eq(
            &s.effective(&mit),
            &s.effective(&uri("http://mit.edu/b", "L"))
        ));
    }

    /// xt5 F4: a host or URL where a SURT prefix is expected is converted as a `surtsSource` line is; a value
    /// that is neither is refused at its key.
    #[test]
    fn hosts_and_urls_are_read_as_surt_prefixes() {
        let s = sheets(
            r#"
[[sheet]]
name = "plainhost"
surt_prefixes = ["127.0.0.1:8601"]
set = { "scope.max_hops" = 1 }
[[sheet]]
name = "url"
surt_prefixes = ["http://127.0.0.2:8601/private/"]
set = { "scope.max_hops" = 2 }
[[sheet]]
name = "domain"
surt_prefixes = ["Example.ORG"]
set = { "scope.max_hops" = 3 }
"#,
        )
        .unwrap();
        assert_eq!(
            s.applicable(&uri("http://127.0.0.1:8601/x", "L")),
            ["plainhost"]
        );
        assert_eq!(
            s.applicable(&uri("http://127.0.0.2:8601/private/a", "L")),
            ["url"]
        );
        assert!(
            s.applicable(&uri("http://127.0.0.2:8601/public/a", "L"))
                .is_empty()
        );
        assert_eq!(
            s.applicable(&uri("https://www.example.org/", "L")),
            ["domain"]
        );
        let e = sheets(
            "[[sheet]]\nname = \"bad\"\nsurt_prefixes = [\"http://[::1\"]\nset = { \"scope.max_hops\" = 1 }\n",
        )
        .unwrap_err();
        assert_eq!(e[0].0, "sheet[0].surt_prefixes[0]", "{e:?}");
        assert!(e[0].1.contains("SURT prefix"), "{e:?}");
    }

    #[test]
    fn bad_paths_and_values_are_named() {
        let e = sheets(
            r#"
[[sheet]]
name = "x"
surt_prefixes = ["http://(org,"]
set = { "frontier.min_delay" = 1, "frontier.max_delay_ms" = "slow", "seeds.urls" = [], "fetch" = 1 }
[[sheet]]
name = "x"
set = {}
"#,
        )
        .unwrap_err();
        let text = format!("{e:?}");
        for want in [
            "names no setting",
            "frontier.max_delay_ms",
            "not read per URI",
            "is a section",
            "used twice",
            "applies to nothing",
        ] {
            assert!(text.contains(want), "{want}: {text}");
        }
    }

    /// A sheet's values get the checks the same keys get at top level, on the settings the sheet makes;
    /// type errors are in plain words.
    #[test]
    fn sheet_values_get_the_top_level_checks() {
        let e = sheets(
            r#"
[[sheet]]
name = "zero"
surt_prefixes = ["http://(org,"]
set = { "fetch.timeout_ms" = 0, "fetch.connect_timeout_ms" = 0, "fetch.max_bytes" = 0, "frontier.min_delay_ms" = 99999999, "scope.max_outlinks" = "many", "browser.mode" = "sometimes" }
[[sheet]]
name = "fine"
surt_prefixes = ["http://(org,"]
set = { "frontier.min_delay_ms" = 100, "frontier.max_delay_ms" = 200 }
"#,
        )
        .unwrap_err();
        let text = format!("{e:#?}");
        for want in [
            r#"sheet \"zero\": fetch.timeout_ms must be at least 1"#,
            r#"sheet \"zero\": fetch.connect_timeout_ms must be at least 1"#,
            r#"sheet \"zero\": fetch.max_bytes must be at least 1"#,
            r#"sheet \"zero\": frontier.min_delay_ms = 99999999 is above frontier.max_delay_ms = 30000"#,
            r#"sheet \"zero\": scope.max_outlinks: found the text \"many\", expected a whole number, 0 or more"#,
            // The choices, as at the top level (xt42b).
            r#"sheet \"zero\": browser.mode: unknown name `sometimes`; the choices: off, auto, all"#,
        ] {
            assert!(text.contains(want), "{want}: {text}");
        }
        assert!(e.iter().all(|(k, _)| k == "sheet[0].set"), "{text}");
        assert_eq!(e.len(), 6, "{text}");
    }
}

#[cfg(test)]
mod clearing {
    use super::*;

    /// An empty string takes a setting that defaults to none back to none; for any other setting it is a
    /// value like another (xt12a b F4).
    #[test]
    fn an_empty_string_clears_a_setting_that_defaults_to_none() {
        let mut base = CrawlConfig::default();
        base.fetch.proxy = Some("http://127.0.0.1:1".into());
        let cleared = apply(
            &base,
            &toml::Table::from_iter([("fetch.proxy".to_owned(), toml::Value::from(""))]),
        )
        .unwrap();
        assert_eq!(cleared.fetch.proxy, None);
        let prefix = apply(
            &base,
            &toml::Table::from_iter([("warc.prefix".to_owned(), toml::Value::from(""))]),
        )
        .unwrap();
        assert_eq!(prefix.warc.prefix, "");
    }

    /// A sheet or a live change keeps the secrets its serialisation leaves out: the proxy's password, an
    /// inline credential password, a sheet's proxy password; a change of the proxy itself is taken as set.
    #[test]
    fn applying_a_setting_keeps_the_passwords() {
        let text = "[seeds]\nurls = [\"http://127.0.0.1:1/\"]\n\
                    [fetch]\nproxy = \"socks5://u:pw@127.0.0.1:1080\"\n\
                    [[credentials]]\nkind = \"basic\"\ndomain = \"127.0.0.1:1\"\nuser = \"a\"\npassword = \"inline\"\n\
                    [[sheet]]\nname = \"tor\"\nsurt_prefixes = [\"http://(onion,\"]\n\
                    set = { \"fetch.proxy\" = \"socks5://t:tpw@127.0.0.1:9050\" }\n";
        let base: CrawlConfig = toml::from_str(text).unwrap();
        let set = |k: &str, v: toml::Value| toml::Table::from_iter([(k.to_owned(), v)]);
        let changed = apply(&base, &set("frontier.min_delay_ms", 5.into())).unwrap();
        assert_eq!(changed.frontier.min_delay_ms, 5);
        assert_eq!(changed.fetch.proxy, base.fetch.proxy);
        assert_eq!(changed.credentials[0].password.as_deref(), Some("inline"));
        assert_eq!(changed.sheets, base.sheets);
        let other = apply(
            &base,
            &set("fetch.proxy", "socks5://u@127.0.0.1:1081".into()),
        )
        .unwrap();
        assert_eq!(
            other.fetch.proxy.as_deref(),
            Some("socks5://u@127.0.0.1:1081")
        );
        // The same proxy without its password (to take it from TRAWL_PROXY_PASSWORD): as set, not the old one.
        let same = apply(
            &base,
            &set("fetch.proxy", "socks5://u@127.0.0.1:1080".into()),
        )
        .unwrap();
        assert_eq!(
            same.fetch.proxy.as_deref(),
            Some("socks5://u@127.0.0.1:1080")
        );
    }
}
