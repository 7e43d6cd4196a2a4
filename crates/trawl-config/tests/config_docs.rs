//! docs/configuration.md documents every key the config accepts, and docs/scope.md every rule with its keys,
//! so the docs cannot drift from the code.

use trawl_config::CrawlConfig;

fn keys(prefix: &str, value: &toml::Value, out: &mut Vec<String>) {
    if let toml::Value::Table(t) = value {
        for (k, v) in t {
            let path = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            match v {
                toml::Value::Table(_) => keys(&path, v, out),
                _ => out.push(path),
            }
        }
    }
}

fn doc(name: &str) -> String {
    std::fs::read_to_string(format!("{}/../../docs/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The names serde expects, from the error it gives for `text` (`expected one of `a`, `b``).
fn expected(text: &str) -> Vec<String> {
    let err = toml::from_str::<CrawlConfig>(text).unwrap_err().to_string();
    let tail = &err[err.find("expected").unwrap_or_else(|| panic!("{err}"))..];
    let tail = tail.lines().next().unwrap();
    tail.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn every_key_is_documented() {
    let value = toml::Value::try_from(CrawlConfig::default()).unwrap();
    let mut all = Vec::new();
    keys("", &value, &mut all);
    assert!(all.len() > 20, "{all:?}");
    let docs = doc("configuration.md");
    let missing: Vec<_> = all
        .iter()
        .filter(|k| !docs.contains(&format!("`{k}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/configuration.md lacks: {missing:?}"
    );
}

#[test]
fn every_entry_key_is_documented() {
    let docs = doc("configuration.md");
    for (entry, table) in [
        ("[[filters.url]]\nzzz = 1\n", "URL filter entries"),
        ("[[filters.text]]\nzzz = 1\n", "Text filter entries"),
        ("[[sheet]]\nzzz = 1\n", "Sheet entries"),
    ] {
        let section = &docs[docs.find(table).unwrap_or_else(|| panic!("{table}"))..];
        let fields = expected(entry);
        assert!(fields.len() >= 3, "{fields:?}");
        for f in fields {
            assert!(
                section.contains(&format!("| `{f}` |")),
                "{table} lacks `{f}`"
            );
        }
    }
}

#[test]
fn every_rule_and_its_keys_are_documented() {
    let docs = doc("scope.md");
    let rules = expected("[[scope.rules]]\nrule = \"zzz\"\n");
    assert!(rules.len() >= 30, "{rules:?}");
    for rule in rules {
        let row = docs
            .lines()
            .find(|l| l.starts_with(&format!("| `{rule}` |")))
            .unwrap_or_else(|| panic!("docs/scope.md has no row for rule `{rule}`"));
        for key in expected(&format!("[[scope.rules]]\nrule = \"{rule}\"\nzzz = 1\n")) {
            assert!(
                row.contains(&format!("`{key}`")),
                "docs/scope.md: rule `{rule}` lacks key `{key}`"
            );
        }
    }
}
