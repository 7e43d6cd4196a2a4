//! `trawl init`: a starter crawl.toml from a shipped profile.

use std::{path::Path, process::ExitCode};

use anyhow::{Context, bail};

/// Writes `dir/crawl.toml` from `profile`; never overwrites.
pub(crate) fn init(profile: &str, dir: &Path) -> anyhow::Result<ExitCode> {
    let text = match trawl_config::settings::profiles::profile(profile) {
        Ok(text) => text,
        Err(e) => bail!("{e}"),
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
