//! docs/configuration.md documents every key the config accepts, so the two cannot drift apart.

use trawl_engine::CrawlConfig;

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

#[test]
fn every_key_is_documented() {
    let value = toml::Value::try_from(CrawlConfig::default()).unwrap();
    let mut all = Vec::new();
    keys("", &value, &mut all);
    assert!(all.len() > 20, "{all:?}");
    let docs = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/configuration.md"
    ))
    .unwrap();
    let missing: Vec<_> = all
        .iter()
        .filter(|k| !docs.contains(&format!("`{k}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/configuration.md lacks: {missing:?}"
    );
}
