//! Whether an executable is a Chromium: its `--version` is asked before a crawl makes its frontier, so a
//! wrong `[browser] executable` (another program, a wrapper that fails) stops the crawl at once, naming the
//! path, instead of every page being noted `browser:failed` by a crawl that ends "ok" (xt9b F6).

use std::{
    io::Read,
    path::Path,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use crate::error::BrowserError;

/// Names in the `--version` of the browsers built on Chromium (each speaks DevTools as Chromium does).
const CHROMIUMS: [&str; 6] = ["Chromium", "Chrome", "Edge", "Brave", "Opera", "Vivaldi"];

/// How long `--version` may take: Chromium answers it without starting a browser, in well under a second.
const WITHIN: Duration = Duration::from_secs(15);

/// The version `executable` says it is (`Chromium 156.0.8078.73`), or why it is not a Chromium.
pub fn chromium_version(executable: &Path) -> Result<String, BrowserError> {
    let not = |said: String| BrowserError::NotChromium {
        executable: executable.to_path_buf(),
        said,
    };
    let mut child = Command::new(executable)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| not(format!("could not run: {e}")))?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < WITHIN => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(not(format!("gave no answer within {} s", WITHIN.as_secs())));
            }
        }
    }
    let mut out = String::new();
    if let Some(stdout) = child.stdout.take() {
        let _ = stdout.take(4096).read_to_string(&mut out);
    }
    match out
        .lines()
        .map(str::trim)
        .find(|l| CHROMIUMS.iter().any(|name| l.contains(name)))
    {
        Some(version) => Ok(version.to_owned()),
        None if out.trim().is_empty() => Err(not("printed nothing".into())),
        None => Err(not(format!(
            "printed {:?}",
            out.trim().lines().next().unwrap_or_default()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_that_is_not_chromium_is_named() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let silent = dir.path().join("silent");
        std::fs::write(&silent, "#!/bin/sh\nexit 0\n").unwrap();
        std::fs::set_permissions(&silent, std::fs::Permissions::from_mode(0o755)).unwrap();
        // A script just written may be "busy" for a moment, while a process forked by another test still
        // holds the descriptor it was written through.
        let mut e = chromium_version(&silent).unwrap_err();
        for _ in 0..20 {
            if !e.to_string().contains("busy") {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
            e = chromium_version(&silent).unwrap_err();
        }
        assert_eq!(
            e.to_string(),
            format!(
                "[browser] executable {0}: not a Chromium (`{0} --version` printed nothing): set the \
                 path of Chromium or Chrome",
                silent.display()
            )
        );
        let e = chromium_version(Path::new("/bin/true")).unwrap_err();
        assert!(
            e.to_string().contains("printed \"true (GNU coreutils)"),
            "{e}"
        );
        let e = chromium_version(Path::new("/no/such/chromium")).unwrap_err();
        assert!(e.to_string().contains("could not run"), "{e}");
    }

    #[test]
    fn a_chromium_says_its_version() {
        let Some(chromium) = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
            .into_iter()
            .map(Path::new)
            .find(|p| p.exists())
        else {
            assert!(
                std::env::var_os("CI").is_none(),
                "Chromium is not installed"
            );
            return;
        };
        let version = chromium_version(chromium).unwrap();
        assert!(version.contains("Chromium"), "{version}");
    }
}
