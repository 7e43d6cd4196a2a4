//! The files a config names (seed lists, class libraries, prefix files, includes, cookies, dedup sources,
//! password files, behaviour scripts, a Chromium's path): listed for a server that lets its users write
//! configs, so it can keep them to its own folder (xt37a F7: a job's config read any file the server could).

use std::path::PathBuf;

use super::{CrawlConfig, SheetSpec, rules::RuleSpec};

impl CrawlConfig {
    /// Every path the config names, as written (relative ones to its folder), each with its key
    /// (`seeds.files[0]`). A bare `browser.executable` (a name looked up on PATH) is no path.
    pub fn named_files(&self) -> Vec<(String, PathBuf)> {
        let mut out = Vec::new();
        let mut list = |key: &str, files: &[PathBuf]| {
            for (i, f) in files.iter().enumerate() {
                out.push((format!("{key}[{i}]"), f.clone()));
            }
        };
        list("include", &self.include);
        list("seeds.files", &self.seeds.files);
        list("classes.files", &self.classes.files);
        list("warc.dedup_from", &self.warc.dedup_from);
        for (key, rules) in [
            ("scope.rules", &self.scope.rules),
            ("decide.before_fetch", &self.decide.before_fetch),
            ("decide.after_headers", &self.decide.after_headers),
            ("decide.before_write", &self.decide.before_write),
        ] {
            prefix_files(key, rules, &mut out);
        }
        for (i, sheet) in self.sheets.iter().enumerate() {
            prefix_files(&format!("sheet[{i}].rules"), &sheet.rules, &mut out);
        }
        if let Some(f) = &self.fetch.cookies_file {
            out.push(("fetch.cookies_file".to_owned(), f.clone()));
        }
        for (i, c) in self.credentials.iter().enumerate() {
            if let Some(f) = &c.password_file {
                out.push((format!("credentials[{i}].password_file"), f.clone()));
            }
        }
        if !self.browser.behaviors_file.is_empty() {
            let file = PathBuf::from(&self.browser.behaviors_file);
            out.push(("browser.behaviors_file".to_owned(), file));
        }
        if self.browser.executable.contains('/') {
            let program = PathBuf::from(&self.browser.executable);
            out.push(("browser.executable".to_owned(), program));
        }
        out
    }
}

impl SheetSpec {
    /// Every path its rules name (prefix rules' `files`), as written, each with its key (xt38a N1: a sheet put
    /// through the server's settings route read any file).
    pub fn named_files(&self) -> Vec<(String, PathBuf)> {
        let mut out = Vec::new();
        prefix_files(
            &format!("sheet {:?}: rules", self.name),
            &self.rules,
            &mut out,
        );
        out
    }
}

/// The `files` of the SURT prefix rules among `rules` (and the rules they combine), keyed under `key`.
fn prefix_files(key: &str, rules: &[RuleSpec], out: &mut Vec<(String, PathBuf)>) {
    for (i, r) in rules.iter().enumerate() {
        match r {
            RuleSpec::SurtPrefixed(s) | RuleSpec::NotSurtPrefixed(s) => {
                for (j, f) in s.files.iter().enumerate() {
                    out.push((format!("{key}[{i}].files[{j}]"), f.clone()));
                }
            }
            RuleSpec::All { of, .. } | RuleSpec::Any { of, .. } => {
                prefix_files(&format!("{key}[{i}].of"), of, out);
            }
            RuleSpec::Not { of, .. } => {
                prefix_files(
                    &format!("{key}[{i}].of"),
                    std::slice::from_ref(of.as_ref()),
                    out,
                );
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_path_a_config_names_is_listed_with_its_key() {
        let text = r#"
include = ["../common.toml"]
[seeds]
files = ["/etc/passwd"]
[classes]
files = ["classes.toml"]
[fetch]
cookies_file = "cookies.txt"
[warc]
dedup_from = ["../old-job"]
[browser]
behaviors_file = "b.js"
executable = "/opt/chrome/chrome"
[scope]
rules = [
  { rule = "not", of = { rule = "surt_prefixed", files = ["reject.txt"] } },
]
[[credentials]]
kind = "basic"
domain = "example.org"
user = "u"
password_file = "/root/secret"
"#;
        let config: CrawlConfig = toml::from_str(text).unwrap();
        let named: Vec<(String, String)> = config
            .named_files()
            .into_iter()
            .map(|(k, p)| (k, p.to_string_lossy().into_owned()))
            .collect();
        let want = [
            ("include[0]", "../common.toml"),
            ("seeds.files[0]", "/etc/passwd"),
            ("classes.files[0]", "classes.toml"),
            ("warc.dedup_from[0]", "../old-job"),
            ("scope.rules[0].of[0].files[0]", "reject.txt"),
            ("fetch.cookies_file", "cookies.txt"),
            ("credentials[0].password_file", "/root/secret"),
            ("browser.behaviors_file", "b.js"),
            ("browser.executable", "/opt/chrome/chrome"),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(k, p)| (k.to_string(), p.to_string()))
            .collect();
        assert_eq!(named, want);
        let mut bare = config.clone();
        bare.browser.executable = "chromium".to_owned();
        assert!(
            bare.named_files()
                .iter()
                .all(|(k, _)| k != "browser.executable")
        );
    }
}
