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

/// A profile name that is not shipped; the message lists the profiles.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no profile {name:?}: choose one of {}", PROFILES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", "))]
pub struct UnknownProfile {
    /// The name asked for.
    pub name: String,
}

/// The text of profile `name`.
pub fn profile(name: &str) -> Result<&'static str, UnknownProfile> {
    PROFILES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
        .ok_or_else(|| UnknownProfile {
            name: name.to_owned(),
        })
}

/// A profile's one-line description: the first sentence of its opening comment, after
/// `trawl profile "NAME": ` (the sentence may go on over several comment lines).
pub fn description(text: &str) -> String {
    let opening = text
        .lines()
        .map_while(|l| l.strip_prefix('#').map(str::trim))
        .take_while(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let said = opening.split_once(": ").map_or(&*opening, |(_, d)| d);
    match said.find(". ") {
        Some(end) => said[..=end].to_string(),
        None => said.to_string(),
    }
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
        // A sentence over two comment lines is said whole (xt9a F14).
        assert_eq!(
            description(profile("single-page").unwrap()),
            "one page and what it needs to render (images, stylesheets, scripts, frames, redirects), \
             nothing it links to."
        );
        assert!(
            profile("nope")
                .unwrap_err()
                .to_string()
                .contains("single-page")
        );
    }
}
