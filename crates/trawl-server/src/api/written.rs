//! What a config written through the server may name: files inside the jobs folder only, and no program but
//! a Chromium. The server's users are not the machine's owner (a non-loopback bind needs a password), yet a
//! job's config names files the crawl reads and a browser it runs: xt37a F7, `[seeds] files =
//! ["/etc/passwd"]` read any file the server could, and the refusal quoted its lines back.

use std::path::{Component, Path, PathBuf};

use trawl_config::{CrawlConfig, settings::browser::BrowserConfig};

use crate::ApiError;

/// `message`, a config's problem, without the lines it quotes from files other than `own` (the config's text):
/// a config written through the server may name a file of the jobs folder where TOML is expected, and the
/// refusal quoted the file's lines back (xt46b F6: a `password_file` read out through `include`). The place
/// (file, line, column) and what is wrong stay.
pub(crate) fn unquoted(message: &str, own: &str) -> String {
    unquoted_naming(message, own, Vec::new())
}

/// [`unquoted`], for a change that names `more` files besides those of `own` (a sheet's rules').
pub(crate) fn unquoted_naming(message: &str, own: &str, more: Vec<String>) -> String {
    let mut named = named_paths(own);
    named.extend(more);
    let mut lines = message.lines();
    let mut out: Vec<String> = lines
        .next()
        .map(|l| placed_only(l, &named))
        .into_iter()
        .collect();
    let mut hidden = false;
    for line in lines {
        // A quoted line: indented, or a line of a TOML parser's snippet (`3 | key = …`).
        let snippet = line
            .split_once(" |")
            .filter(|(n, _)| !n.trim().is_empty() && n.trim().bytes().all(|b| b.is_ascii_digit()));
        let quoted = match snippet {
            Some((_, rest)) => Some(rest),
            None if line.starts_with([' ', '\t']) => Some(line),
            None => None,
        };
        let content = quoted.map(str::trim).filter(|c| {
            !c.is_empty()
                && !c.starts_with("hint:")
                && !c.bytes().all(|b| matches!(b, b'|' | b'^' | b'~' | b' '))
        });
        match content {
            Some(c) if !own.contains(c) => {
                if !hidden {
                    out.push(
                        "    (a line of a file the config names: not shown through the server)"
                            .into(),
                    );
                }
                hidden = true;
            }
            _ => out.push(placed_only(line, &named)),
        }
    }
    out.join("\n")
}

/// The files `own` (a config's text) names, as written there (a message shows them joined to a folder:
/// `jobs/x/../pw.txt`).
fn named_paths(own: &str) -> Vec<String> {
    let files = match toml::from_str::<CrawlConfig>(own) {
        Ok(config) => config.named_files(),
        Err(_) => includes(own),
    };
    files
        .into_iter()
        .map(|(_, f)| f.display().to_string())
        .filter(|f| !f.is_empty())
        .collect()
}

/// `line` cut after the place it names in one of the `named` files (`…/pw.txt:1:20`, `…/seeds.txt, line 3`):
/// what follows may quote the file's text (a seed file's line, a prefix file's word, a TOML parser's words on
/// its keys), which a file of the jobs folder may hold as a secret (review 85 R2). A line naming none is kept.
fn placed_only(line: &str, named: &[String]) -> String {
    let Some(end) = named
        .iter()
        .filter_map(|f| line.find(f.as_str()).map(|at| at + f.len()))
        .min()
    else {
        return line.to_owned();
    };
    // The place: `:LINE:COLUMN`, `:LINE`, or `, line N`.
    let rest = &line[end..];
    let digits = |t: &str| t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let mut place = 0;
    for _ in 0..2 {
        if let Some(t) = rest[place..].strip_prefix(':')
            && digits(t) > 0
        {
            place += 1 + digits(t);
        }
    }
    if let Some(t) = rest[place..].strip_prefix(", line ")
        && digits(t) > 0
    {
        place += ", line ".len() + digits(t);
    }
    format!(
        "{}: a problem in a file the config names (what it is is not shown through the server: the file may hold \
         a secret)",
        &line[..end + place]
    )
}

/// Refuses `text`, the config of the job in `job_dir` under the jobs folder `root`, when it names a file
/// outside `root` as the system opens it (relative paths are the job folder's; [`refuse_outside`]) or a program
/// to run that is no Chromium. A text that is not a config names no file the checks
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
    refuse_outside(root, job_dir, &files)?;
    if !program.is_empty() && !program.contains('/') && !BrowserConfig::is_chromium_name(&program) {
        return Err(ApiError::bad_request(format!(
            "browser.executable: {program:?} is no Chromium's name: a config written through the server runs \
             only `chromium`, `chromium-browser` or `google-chrome` from the server's PATH, or a Chromium inside \
             the jobs folder (leave it empty for the first found); the config was not changed"
        )));
    }
    Ok(())
}

/// Refuses `files` (each with its key; relative ones the job folder's) unless each is inside the jobs folder
/// `root` as the system opens it: links followed, so `..` after an owner's link to a folder elsewhere goes where
/// the kernel goes (xt38a N2), and not a dot-file of the folder (the server's `.trawl-auth.json`).
pub(crate) fn refuse_outside(
    root: &Path,
    job_dir: &Path,
    files: &[(String, PathBuf)],
) -> Result<(), ApiError> {
    let root = std::fs::canonicalize(root).map_err(ApiError::internal)?;
    let dir = std::path::absolute(job_dir).map_err(ApiError::internal)?;
    for (key, file) in files {
        let at = opened(&dir.join(file));
        let inside = at.strip_prefix(&root).is_ok_and(|rest| {
            !rest
                .components()
                .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
        });
        if !inside {
            return Err(ApiError::bad_request(format!(
                "{key}: {} is outside the jobs folder {} (or one of its hidden files): a config written through \
                 the server names only files inside it (put the file in the job's folder, or beside the job \
                 folders as `../FILE`); the config was not changed",
                file.display(),
                root.display()
            )));
        }
    }
    Ok(())
}

/// The file the system opens at `path` (absolute): each part that exists with its links followed, so that a
/// `..` after a link goes up from the link's target, as the kernel takes it; what does not exist yet, by name.
fn opened(path: &Path) -> PathBuf {
    let mut at = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                at.pop();
            }
            other => {
                at.push(other);
                if let Ok(real) = std::fs::canonicalize(&at) {
                    at = real;
                }
            }
        }
    }
    at
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_outside_the_jobs_folder_and_other_programs_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("jobs");
        let job = root.join("j");
        std::fs::create_dir_all(&job).unwrap();
        let refused = |text: &str| {
            refuse_foreign_files(&root, &job, text)
                .err()
                .map(|e| e.message)
        };
        let under = root.display().to_string();
        for ok in [
            "[seeds]\nfiles = [\"seeds.txt\", \"../common/seeds.txt\"]".to_owned(),
            format!("[seeds]\nfiles = [\"{under}/j/x.txt\"]"),
            "include = [\"../common.toml\"]".to_owned(),
            "[browser]\nexecutable = \"chromium\"".to_owned(),
            "[browser]\nexecutable = \"./bin/chrome\"".to_owned(),
            "not = [toml".to_owned(),
        ] {
            assert_eq!(refused(&ok), None, "{ok}");
        }
        // An owner's link to a folder elsewhere: `..` after it goes up from its target (xt38a N2).
        std::fs::create_dir_all(dir.path().join("outside/inner")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside/inner"), root.join("shared")).unwrap();
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
                "[seeds]\nfiles = [\"../shared/../secret.txt\"]",
                "seeds.files[0]: ../shared/../secret.txt",
            ),
            (
                "[seeds]\nfiles = [\"../.trawl-auth.json\"]",
                "seeds.files[0]: ../.trawl-auth.json",
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
        // Through the link, a file is where the link goes: outside too.
        assert!(refused("[seeds]\nfiles = [\"../shared/seeds.txt\"]").is_some());
    }

    /// xt46b F6: the lines of a file a config names are not quoted back; the config's own lines, the place,
    /// the snippet's markers and the hints are.
    #[test]
    fn a_named_files_lines_are_not_quoted_back() {
        let own = "include = [\"../pw.txt\", \"../pw2.txt\"]\nmin_delay_ms = \"x\"\n";
        let include =
            "job/../pw.txt:1:20: key with no value, expected `=`\n    S3cretProxyPassw0rd";
        let shown = unquoted(include, own);
        assert_eq!(
            shown,
            "job/../pw.txt:1:20: a problem in a file the config names (what it is is not shown through the server: \
             the file may hold a secret)\n    (a line of a file the config names: not shown through the server)"
        );
        let snippet = "classes.files[0]: /j/../pw2.txt: TOML parse error at line 1, column 4\n  |\n1 | pa=ss\"word\n  \
                       |    ^^^^^^^\nstring values must be quoted";
        let shown = unquoted(snippet, own);
        assert!(!shown.contains("pa=ss"), "{shown}");
        assert!(shown.ends_with("string values must be quoted"), "{shown}");
        // A first line quoting a named file's text: a prefix file's word, a seed file's line (review 85 R2).
        let word = "scope.rules[0].files[0]: /j/../pw2.txt, line 3: \"pa=ss\" is neither a SURT prefix nor a \
                    URL; write a host (example.org)";
        let shown = unquoted(word, own);
        assert!(
            shown.starts_with("scope.rules[0].files[0]: /j/../pw2.txt, line 3: a problem")
                && !shown.contains("pa=ss"),
            "{shown}"
        );
        let seed = "seeds.files[0]: ../pw.txt, line 1: seed \"S3cret\": not a URL";
        let shown = unquoted(seed, own);
        assert!(
            shown.starts_with("seeds.files[0]: ../pw.txt, line 1: a problem")
                && !shown.contains("S3cret"),
            "{shown}"
        );
        let mine = "crawl.toml:3:16: expected an integer\n    min_delay_ms = \"x\"\n    hint: write a number";
        assert_eq!(unquoted(mine, own), mine);
    }
}
