//! The shipped profiles (`profiles/` in the source tree), embedded: starter crawl.toml files for `trawl init`
//! and for jobs created from the web UI or the API.

/// `(name, crawl.toml text)` of every shipped profile.
pub const PROFILES: &[(&str, &str)] = &[
    ("default", include_str!("../../../../profiles/default.toml")),
    (
        "single-page",
        include_str!("../../../../profiles/single-page.toml"),
    ),
    ("broad", include_str!("../../../../profiles/broad.toml")),
    ("polite", include_str!("../../../../profiles/polite.toml")),
];

/// The text of profile `name`; the error lists the profiles.
pub fn profile(name: &str) -> Result<&'static str, String> {
    PROFILES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
        .ok_or_else(|| {
            let names: Vec<_> = PROFILES.iter().map(|(n, _)| *n).collect();
            format!("no profile {name:?}: choose one of {}", names.join(", "))
        })
}

/// A profile's one-line description: its first comment line, after `trawl profile "NAME": `.
pub fn description(text: &str) -> String {
    let first = text
        .lines()
        .next()
        .unwrap_or_default()
        .trim_start_matches('#')
        .trim();
    first.split_once(": ").map_or(first, |(_, d)| d).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_loads_and_says_what_it_is() {
        for (name, text) in PROFILES {
            crate::CrawlConfig::check_str(text, format!("{name}.toml").as_ref())
                .unwrap_or_else(|e| panic!("profile {name}: {e}"));
            assert!(description(text).len() > 10, "{name}");
        }
        assert_eq!(description(profile("default").unwrap()), "a domain crawl.");
        assert!(profile("nope").unwrap_err().contains("single-page"));
    }
}
