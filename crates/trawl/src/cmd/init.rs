//! `trawl init`: a starter crawl.toml from a shipped profile.

use std::{path::Path, process::ExitCode};

use anyhow::{Context, bail};

/// The shipped profiles, `(name, text)`, embedded from `profiles/`.
pub(crate) const PROFILES: &[(&str, &str)] = &[
    ("default", include_str!("../../../../profiles/default.toml")),
    (
        "single-page",
        include_str!("../../../../profiles/single-page.toml"),
    ),
    ("broad", include_str!("../../../../profiles/broad.toml")),
    ("polite", include_str!("../../../../profiles/polite.toml")),
];

/// Writes `dir/crawl.toml` from `profile`; never overwrites.
pub(crate) fn init(profile: &str, dir: &Path) -> anyhow::Result<ExitCode> {
    let Some((_, text)) = PROFILES.iter().find(|(n, _)| *n == profile) else {
        let names: Vec<_> = PROFILES.iter().map(|(n, _)| *n).collect();
        bail!("no profile {profile:?}: choose one of {}", names.join(", "));
    };
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join("crawl.toml");
    if path.exists() {
        bail!(
            "{} exists already; remove it or choose another folder",
            path.display()
        );
    }
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    println!(
        "{}: written from profile {profile}; add seeds, then `trawl check {}`",
        path.display(),
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}
