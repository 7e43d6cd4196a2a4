//! What a config written through the server may name: files inside the jobs folder only, and no program but
//! a Chromium. The server's users are not the machine's owner (a non-loopback bind needs a password), yet a
//! job's config names files the crawl reads and a browser it runs: xt37a F7, `[seeds] files =
//! ["/etc/passwd"]` read any file the server could, and the refusal quoted its lines back.

use std::path::{Component, Path, PathBuf};

use trawl_config::{CrawlConfig, settings::browser::BrowserConfig};

use crate::ApiError;

/// Refuses `text`, the config of the job in `job_dir` under the jobs folder `root`, when it names a file
/// outside `root` (relative paths are the job folder's, `..` taken by name: a link inside the folder is the
/// owner's) or a program to run that is no Chromium. A text that is not a config names no file the checks
/// read, but for its includes, which are looked at all the same.
pub(crate) fn refuse_foreign_files(
    root: &Path,
    job_dir: &Path,
    text: &str,
) -> Result<(), ApiError> {
    let (files, program) = match toml::from_str::<CrawlConfig>(text) {
        Ok(config) => (config.named_files(), config.browser.executable),
        Err(_) => (includes(text), String::new()),
    };
    let absolute = |p: &Path| std::path::absolute(p).map(|p| by_name(&p));
    let root = absolute(root).map_err(ApiError::internal)?;
    let dir = absolute(job_dir).map_err(ApiError::internal)?;
    for (key, file) in files {
        if !by_name(&dir.join(&file)).starts_with(&root) {
            return Err(ApiError::bad_request(format!(
                "{key}: {} is outside the jobs folder {}: a config written through the server names only files \
                 inside it (put the file in the job's folder, or beside the job folders as `../FILE`); the \
                 config was not changed",
                file.display(),
                root.display()
            )));
        }
    }
    if !program.is_empty() && !program.contains('/') && !BrowserConfig::is_chromium_name(&program) {
        return Err(ApiError::bad_request(format!(
            "browser.executable: {program:?} is no Chromium's name: a config written through the server runs \
             only `chromium`, `chromium-browser` or `google-chrome` from the server's PATH, or a Chromium inside \
             the jobs folder (leave it empty for the first found); the config was not changed"
        )));
    }
    Ok(())
}

/// The `include` paths of a text that is TOML but not a config trawl reads (its includes are read to say
/// so).
fn includes(text: &str) -> Vec<(String, PathBuf)> {
    let table: Option<toml::Table> = toml::from_str(text).ok();
    let listed = table
        .as_ref()
        .and_then(|t| t.get("include"))
        .and_then(toml::Value::as_array);
    listed
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(i, v)| Some((format!("include[{i}]"), PathBuf::from(v.as_str()?))))
        .collect()
}

/// `path` with `.` and `..` taken by name, as the checks will join them.
fn by_name(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_outside_the_jobs_folder_and_other_programs_are_refused() {
        let root = Path::new("/srv/jobs");
        let job = root.join("j");
        let refused = |text: &str| {
            refuse_foreign_files(root, &job, text)
                .err()
                .map(|e| e.message)
        };
        for ok in [
            "[seeds]\nfiles = [\"seeds.txt\", \"../common/seeds.txt\", \"/srv/jobs/j/x.txt\"]",
            "include = [\"../common.toml\"]",
            "[browser]\nexecutable = \"chromium\"",
            "[browser]\nexecutable = \"./bin/chrome\"",
            "not = [toml",
        ] {
            assert_eq!(refused(ok), None, "{ok}");
        }
        for (bad, key) in [
            (
                "[seeds]\nfiles = [\"/etc/passwd\"]",
                "seeds.files[0]: /etc/passwd is outside",
            ),
            (
                "[seeds]\nfiles = [\"../../secret.txt\"]",
                "seeds.files[0]: ../../secret.txt",
            ),
            (
                "[fetch]\ncookies_file = \"../../../root/c.txt\"",
                "fetch.cookies_file",
            ),
            (
                "include = [\"/etc/shadow\"]\nunknown_key = 1",
                "include[0]: /etc/shadow",
            ),
            (
                "[browser]\nexecutable = \"/bin/sh\"",
                "browser.executable: /bin/sh",
            ),
            (
                "[browser]\nexecutable = \"python3\"",
                "\"python3\" is no Chromium's name",
            ),
        ] {
            let said = refused(bad).unwrap_or_default();
            assert!(
                said.contains(key) && said.ends_with("the config was not changed"),
                "{bad}: {said}"
            );
        }
    }
}
