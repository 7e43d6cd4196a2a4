//! A crawl.toml rewritten to hold changed settings while keeping its comments, order and layout: only the
//! values that differ from what the text says are edited (with `toml_edit`), so an operator's or a profile's
//! explanations survive a settings change, added seeds and a launch.

use std::path::Path;

use toml_edit::{ArrayOfTables, DocumentMut, InlineTable, Item, Table, TableLike, Value};

use super::CrawlConfig;

impl CrawlConfig {
    /// This config as the text of `text` (a crawl.toml read from `path`, whose folder holds the files it
    /// names) edited where the two differ: a changed value replaced in place (its trailing comment kept),
    /// a removed one deleted, a new one added to its section, items appended to a list or a `[[table]]`
    /// array. Every comment and every untouched line stays as written. When `text` does not read as a
    /// config, or the edit would not read back as this config, the whole config is written out instead
    /// ([`CrawlConfig::to_toml`]), so the result always holds exactly these settings.
    pub fn to_toml_over(&self, text: &str, path: &Path) -> String {
        edited(text, path, self).unwrap_or_else(|| self.to_toml())
    }
}

/// `text` edited to read as `next`, if that can be done and checked.
fn edited(text: &str, path: &Path, next: &CrawlConfig) -> Option<String> {
    let parsed = CrawlConfig::parse(text, path).ok()?;
    let (mut old, mut new) = (as_table(&parsed)?, as_table(next)?);
    if old == new {
        return Some(text.to_string());
    }
    let mut doc: DocumentMut = text.parse().ok()?;
    // The seeds of `[seeds] files` are in `urls` once read, and their `+PREFIX` lines in `scope.surt_prefixes`,
    // not in the text's lists: what is added is appended to the text's own list, and the file stays as it
    // is named (xt9a F2: the whole config was written out, its comments lost and its seed file's URLs
    // inlined, `files = []`; review 62: the same for a prefix a seed's redirect added).
    for (section, key, list) in MERGED_LISTS {
        let (before, after) = (list(&parsed), list(next));
        let added: Vec<&String> = after.iter().filter(|u| !before.contains(u)).collect();
        if added.is_empty() || !before.iter().all(|u| after.contains(u)) {
            continue;
        }
        let items = doc
            .entry(section)
            .or_insert(Item::Table(Table::new()))
            .as_table_like_mut()?
            .entry(key)
            .or_insert(Item::Value(Value::Array(toml_edit::Array::new())))
            .as_array_mut()?;
        for item in added {
            items.push(item.as_str());
        }
        for table in [&mut old, &mut new] {
            merged_list(table, section, key)?.clear();
        }
    }
    edit(doc.as_table_mut(), &old, &new);
    let out = doc.to_string();
    let back = as_table(&CrawlConfig::parse(&out, path).ok()?)?;
    (same_but_seed_order(back, as_table(next)?)?).then_some(out)
}

/// The lists a config's files add to once read (`[seeds] files`): their order in the config read is not the
/// text's.
#[allow(clippy::type_complexity)]
const MERGED_LISTS: [(&str, &str, fn(&CrawlConfig) -> &Vec<String>); 2] = [
    ("seeds", "urls", |c| &c.seeds.urls),
    ("scope", "surt_prefixes", |c| &c.scope.surt_prefixes),
];

/// The list `section.key` of a config's table (one of [`MERGED_LISTS`]).
fn merged_list<'t>(
    table: &'t mut toml::Table,
    section: &str,
    key: &str,
) -> Option<&'t mut Vec<toml::Value>> {
    table
        .get_mut(section)?
        .as_table_mut()?
        .get_mut(key)?
        .as_array_mut()
}

/// Whether two configs' tables are the same but for the order of their seeds and SURT prefixes (one appended
/// to the text's own list comes before those of its seed files once read).
fn same_but_seed_order(mut a: toml::Table, mut b: toml::Table) -> Option<bool> {
    for table in [&mut a, &mut b] {
        for (section, key, _) in MERGED_LISTS {
            merged_list(table, section, key)?.sort_by(|x, y| x.as_str().cmp(&y.as_str()));
        }
    }
    Some(a == b)
}

/// The config as a TOML table (every setting, defaults included).
fn as_table(config: &CrawlConfig) -> Option<toml::Table> {
    match toml::Value::try_from(config).ok()? {
        toml::Value::Table(t) => Some(t),
        _ => None,
    }
}

/// Edits `doc` (a table of the text) where `new` differs from `old` (the same table as the text reads).
fn edit(doc: &mut dyn TableLike, old: &toml::Table, new: &toml::Table) {
    for (key, n) in new {
        match (old.get(key), n) {
            (Some(o), n) if o == n => {}
            (Some(toml::Value::Table(o)), toml::Value::Table(n)) => {
                // A section the text leaves to its defaults gets only the keys that change.
                if doc.get(key).is_none() {
                    doc.insert(key, Item::Table(Table::new()));
                }
                match doc.get_mut(key).and_then(Item::as_table_like_mut) {
                    Some(t) => edit(t, o, n),
                    None => set(doc, key, &toml::Value::Table(n.clone())),
                }
            }
            (Some(toml::Value::Array(o)), toml::Value::Array(n)) => {
                if !edit_array(doc.get_mut(key), o, n) {
                    set(doc, key, &toml::Value::Array(n.clone()));
                }
            }
            _ => set(doc, key, n),
        }
    }
    for key in old.keys().filter(|k| !new.contains_key(*k)) {
        doc.remove(key);
    }
}

/// Edits the list `item` from `old` to `new` when `new` only adds to its end, or (for `[[table]]` arrays)
/// changes items in place or drops one; false when it is to be replaced whole.
fn edit_array(item: Option<&mut Item>, old: &[toml::Value], new: &[toml::Value]) -> bool {
    match item {
        Some(Item::Value(Value::Array(a))) if a.len() == old.len() && new.starts_with(old) => {
            for v in &new[old.len()..] {
                a.push(value(v));
            }
            true
        }
        Some(Item::ArrayOfTables(aot)) if aot.len() == old.len() => {
            let tables = |v: &[toml::Value]| -> Option<Vec<toml::Table>> {
                v.iter()
                    .map(|t| match t {
                        toml::Value::Table(t) => Some(t.clone()),
                        _ => None,
                    })
                    .collect()
            };
            let (Some(o), Some(n)) = (tables(old), tables(new)) else {
                return false;
            };
            if o.len() == n.len() {
                for (i, (o, n)) in o.iter().zip(&n).enumerate() {
                    if let Some(t) = aot.get_mut(i) {
                        edit(t, o, n);
                    }
                }
            } else if n.starts_with(&o) {
                for t in &n[o.len()..] {
                    aot.push(table(t));
                }
            } else if let Some(gone) = (0..o.len())
                .find(|&i| o.len() == n.len() + 1 && o[..i] == n[..i] && o[i + 1..] == n[i..])
            {
                aot.remove(gone);
            } else {
                return false;
            }
            true
        }
        _ => false,
    }
}

/// Sets `key` of `doc` to `v`: a value replaced in place keeps its key's comments and its own trailing one,
/// which says then which value it was written for (xt37a F11: a profile's `# wait 5 x the last fetch's
/// duration` stayed beside a `delay_factor` set to 1.0).
fn set(doc: &mut dyn TableLike, key: &str, v: &toml::Value) {
    let fresh = item(v);
    match (doc.get_mut(key), fresh) {
        (Some(Item::Value(old)), Item::Value(mut fresh)) => {
            let mut decor = old.decor().clone();
            if let Some(comment) = decor.suffix().and_then(|s| s.as_str())
                && comment.contains('#')
                && !comment.contains(SAID_OF)
            {
                let was = old.clone().decorated("", "").to_string();
                decor.set_suffix(format!("{} ({SAID_OF} {was})", comment.trim_end()));
            }
            *fresh.decor_mut() = decor;
            *old = fresh;
        }
        (Some(old), fresh) => *old = fresh,
        (None, fresh) => {
            doc.insert(key, fresh);
        }
    }
}

/// What a value's trailing comment says once the value is changed: the value it was written for.
const SAID_OF: &str = "said of the earlier value";

/// `v` as an item of a table: a table as a `[section]`, a list of tables as `[[tables]]`.
fn item(v: &toml::Value) -> Item {
    match v {
        toml::Value::Table(t) => Item::Table(table(t)),
        toml::Value::Array(a) if !a.is_empty() && a.iter().all(toml::Value::is_table) => {
            let mut aot = ArrayOfTables::new();
            for t in a.iter().filter_map(toml::Value::as_table) {
                aot.push(table(t));
            }
            Item::ArrayOfTables(aot)
        }
        v => Item::Value(value(v)),
    }
}

fn table(t: &toml::Table) -> Table {
    let mut out = Table::new();
    for (k, v) in t {
        out.insert(k.as_str(), item(v));
    }
    out
}

/// `v` as an inline value.
fn value(v: &toml::Value) -> Value {
    match v {
        toml::Value::String(s) => Value::from(s.as_str()),
        toml::Value::Integer(i) => Value::from(*i),
        toml::Value::Float(f) => Value::from(*f),
        toml::Value::Boolean(b) => Value::from(*b),
        // Written as TOML writes it, so it reads back the same.
        toml::Value::Datetime(d) => d
            .to_string()
            .parse::<toml_edit::Datetime>()
            .map_or_else(|_| Value::from(d.to_string()), Value::from),
        toml::Value::Array(a) => Value::Array(a.iter().map(value).collect()),
        toml::Value::Table(t) => {
            let mut out = InlineTable::new();
            for (k, v) in t {
                out.insert(k.as_str(), value(v));
            }
            Value::InlineTable(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::profiles;
    use proptest::prelude::*;

    /// A seed added to a crawl.toml that reads `[seeds] files` goes into its own `urls`: the file stays
    /// named, the comments stay, and the file's URLs are not copied into the text (xt9a F2).
    #[test]
    fn a_seed_added_beside_a_seed_file_keeps_the_file_and_the_comments() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("seeds.txt"), "http://127.0.0.1:1/a\n").unwrap();
        let text = "# my crawl\n[seeds]\nfiles = [\"seeds.txt\"] # the list\n";
        let path = dir.path().join("crawl.toml");
        let mut config = CrawlConfig::parse(text, &path).unwrap();
        config.seeds.urls.push("http://127.0.0.1:1/b".into());
        let out = config.to_toml_over(text, &path);
        assert!(
            out.contains("# my crawl") && out.contains("# the list"),
            "{out}"
        );
        assert!(out.contains("files = [\"seeds.txt\"]"), "{out}");
        assert!(!out.contains("/a"), "{out}");
        let back = CrawlConfig::parse(&out, &path).unwrap();
        let mut seeds = back.seeds.urls.clone();
        seeds.sort();
        assert_eq!(
            seeds,
            ["http://127.0.0.1:1/a", "http://127.0.0.1:1/b"],
            "{out}"
        );
        // The seed file read again gives its own seeds still.
        std::fs::write(dir.path().join("seeds.txt"), "http://127.0.0.1:1/c\n").unwrap();
        let again = CrawlConfig::parse(&out, &path).unwrap();
        assert!(
            again
                .seeds
                .urls
                .contains(&"http://127.0.0.1:1/c".to_string())
        );
    }

    /// A SURT prefix added (a seed's redirect widening the scope) beside a seed file with `+PREFIX` lines: the
    /// text's own list gains it, the file's prefixes stay in the file (review 62: the whole config was written
    /// out).
    #[test]
    fn a_prefix_added_beside_a_seed_files_prefixes_keeps_the_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("seeds.txt"),
            "+http://(org,example,\nhttp://127.0.0.1:1/a\n",
        )
        .unwrap();
        let text = "# my crawl\n[seeds]\nfiles = [\"seeds.txt\"] # the list\n";
        let path = dir.path().join("crawl.toml");
        let mut config = CrawlConfig::parse(text, &path).unwrap();
        assert_eq!(config.scope.surt_prefixes, ["http://(org,example,"]);
        config
            .scope
            .surt_prefixes
            .push("http://(localhost,:8080)/".into());
        let out = config.to_toml_over(text, &path);
        assert!(
            out.contains("# my crawl") && out.contains("# the list"),
            "{out}"
        );
        assert!(
            !out.contains("(org,example,") && !out.contains("/a\""),
            "{out}"
        );
        let back = CrawlConfig::parse(&out, &path).unwrap();
        let mut prefixes = back.scope.surt_prefixes.clone();
        prefixes.sort();
        assert_eq!(
            prefixes,
            ["http://(localhost,:8080)/", "http://(org,example,"],
            "{out}"
        );
    }

    fn polite() -> (&'static str, CrawlConfig) {
        let text = profiles::profile("polite").unwrap();
        (
            text,
            CrawlConfig::parse(text, Path::new("crawl.toml")).unwrap(),
        )
    }

    /// The comments of `text` (each line's text from its last `#`).
    fn comments(text: &str) -> Vec<&str> {
        text.lines()
            .filter_map(|l| l.rfind('#').map(|at| &l[at..]))
            .collect()
    }

    /// Every comment of `before` is still in `after`.
    fn keeps_comments(before: &str, after: &str) {
        for c in comments(before) {
            assert!(after.contains(c), "lost {c:?}:\n{after}");
        }
    }

    #[test]
    fn unchanged_config_keeps_the_text_byte_for_byte() {
        let (text, config) = polite();
        assert_eq!(config.to_toml_over(text, Path::new("crawl.toml")), text);
    }

    /// xt37a F11: a changed value's trailing comment says which value it was written for, once.
    #[test]
    fn a_changed_values_comment_names_the_value_it_was_written_for() {
        let text = "[frontier]\ndelay_factor = 5.0   # wait 5 x the last fetch's duration\n";
        let path = Path::new("crawl.toml");
        let mut config = CrawlConfig::parse(text, path).unwrap();
        config.frontier.delay_factor = 1.0;
        let out = config.to_toml_over(text, path);
        assert!(
            out.contains(
                "delay_factor = 1.0   # wait 5 x the last fetch's duration (said of the earlier value 5.0)"
            ),
            "{out}"
        );
        config.frontier.delay_factor = 2.0;
        let again = config.to_toml_over(&out, path);
        assert!(
            again.contains(
                "= 2.0   # wait 5 x the last fetch's duration (said of the earlier value 5.0)\n"
            ),
            "{again}"
        );
    }

    #[test]
    fn a_changed_value_is_edited_in_place() {
        let (text, mut config) = polite();
        config.frontier.min_delay_ms += 1;
        config.seeds.urls.push("http://127.0.0.1:9/a\"b".into());
        config.fetch.headers.insert("X-Test".into(), "1".into());
        let out = config.to_toml_over(text, Path::new("crawl.toml"));
        keeps_comments(text, &out);
        assert!(
            out.len() < text.len() + 200,
            "only the changes added:\n{out}"
        );
        let back = CrawlConfig::parse(&out, Path::new("crawl.toml")).unwrap();
        assert_eq!(back, config);
    }

    #[test]
    fn sheets_are_added_changed_and_removed_one_by_one() {
        let text = "# mine\n[seeds]\nurls = []\n\n[[sheet]]\n# first\nname = \"a\"\nsurt_prefixes = [\"http://(org,\"]\n\
                    set = { \"frontier.min_delay_ms\" = 1 }\n\n[[sheet]]\n# second\nname = \"b\"\n\
                    surt_prefixes = [\"http://(com,\"]\nset = { \"frontier.min_delay_ms\" = 2 }\n";
        let path = Path::new("crawl.toml");
        let config = CrawlConfig::parse(text, path).unwrap();
        let mut changed = config.clone();
        changed.sheets[1].surt_prefixes.push("http://(net,".into());
        let out = changed.to_toml_over(text, path);
        keeps_comments(text, &out);
        assert_eq!(CrawlConfig::parse(&out, path).unwrap(), changed);

        let mut fewer = config.clone();
        fewer.sheets.remove(0);
        let out = fewer.to_toml_over(text, path);
        assert!(out.contains("# mine") && out.contains("# second"), "{out}");
        assert_eq!(CrawlConfig::parse(&out, path).unwrap(), fewer);

        let mut more = config;
        more.sheets.push(more.sheets[0].clone());
        more.sheets[2].name = "c".into();
        let out = more.to_toml_over(text, path);
        keeps_comments(text, &out);
        assert_eq!(CrawlConfig::parse(&out, path).unwrap(), more);
    }

    #[test]
    fn text_that_does_not_read_is_written_out_whole() {
        let config = CrawlConfig::default();
        assert_eq!(
            config.to_toml_over("[[[bad", Path::new("crawl.toml")),
            config.to_toml()
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Any per-URI values: the edit reads back as the changed config and keeps every comment.
        #[test]
        fn edits_read_back(
            min in 0u64..10_000,
            extra in 0u64..10_000,
            retries in 0u32..20,
            hops in 0usize..50,
            agent in "[a-zA-Z0-9 ./()+:#\"'\\\\-]{1,40}",
        ) {
            let (text, mut config) = polite();
            config.frontier.min_delay_ms = min;
            config.frontier.max_delay_ms = min + extra;
            config.frontier.max_retries = retries;
            config.scope.max_hops = hops;
            config.fetch.user_agent = format!("{agent} (+http://127.0.0.1/)");
            let out = config.to_toml_over(text, Path::new("crawl.toml"));
            keeps_comments(text, &out);
            prop_assert_eq!(CrawlConfig::parse(&out, Path::new("crawl.toml")).unwrap(), config);
        }
    }
}
