//! The files a config names (seed lists, class libraries, prefix files, includes, cookies, dedup sources,
//! password files, behaviour scripts, a Chromium's path): listed for a server that lets its users write
//! configs, so it can keep them to its own folder (xt37a F7: a job's config read any file the server could).

use std::io;
use std::path::{Path, PathBuf};

use super::{CrawlConfig, SheetSpec, rules::RuleSpec};

/// Opens `path`, a file a config names, for reading: refused, unopened, when it is a FIFO, socket or device
/// ([`refuse_special`]).
pub fn open_named(path: &Path) -> io::Result<std::fs::File> {
    refuse_special(path)?;
    std::fs::File::open(path)
}

/// Refuses `path`, a file a config names, when it is a FIFO, socket or device, whose reading waits on a writer
/// or never ends (xt38a N4: a seed file that was a FIFO held the job's launch until something wrote to it);
/// anything else (a missing file too) is left to whatever reads it. Only its metadata is read, which does not
/// wait.
pub fn refuse_special(path: &Path) -> io::Result<()> {
    if let Ok(meta) = std::fs::metadata(path)
        && let Some(kind) = special_kind(&meta.file_type())
    {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "not a regular file but {kind}: a config names only regular files, which trawl reads whole \
                 (reading this one would wait on what writes to it)"
            ),
        ));
    }
    Ok(())
}

/// The bytes of `path`, a file a config names ([`open_named`]).
pub fn read_named(path: &Path) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    io::Read::read_to_end(&mut open_named(path)?, &mut bytes)?;
    Ok(bytes)
}

/// The text of `path`, a file a config names ([`open_named`]); not UTF-8 is an error, as
/// [`std::fs::read_to_string`] has it.
pub fn read_named_to_string(path: &Path) -> io::Result<String> {
    let mut text = String::new();
    io::Read::read_to_string(&mut open_named(path)?, &mut text)?;
    Ok(text)
}

/// What a file that is neither a regular file nor a folder is, said for a refusal.
fn special_kind(kind: &std::fs::FileType) -> Option<&'static str> {
    if kind.is_file() || kind.is_dir() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if kind.is_socket() {
            return Some("a socket");
        }
        if kind.is_char_device() || kind.is_block_device() {
            return Some("a device");
        }
    }
    Some("a special file")
}

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

    /// xt38a N4: a FIFO a config names is refused at once, by its metadata, where reading it would wait on a
    /// writer (a job stayed `launching`); a regular file reads, a missing one fails as the system says.
    #[test]
    fn a_fifo_a_config_names_is_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("seeds.txt");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let err = read_named_to_string(&fifo).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(err.to_string().contains("a FIFO"), "{err}");
        let err = super::super::SeedsConfig::read_file(dir.path(), Path::new("seeds.txt"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a regular file"), "{err}");
        let plain = dir.path().join("plain.txt");
        std::fs::write(&plain, "http://127.0.0.1/\n").unwrap();
        assert_eq!(read_named(&plain).unwrap(), b"http://127.0.0.1/\n");
        let missing = open_named(&dir.path().join("none")).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        assert!(refuse_special(&dir.path().join("none")).is_ok());
        assert!(refuse_special(Path::new("/dev/null")).is_err());
    }

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
