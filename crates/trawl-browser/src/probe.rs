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
    // Read while the program runs: one that prints more than a pipe holds would otherwise wait for a
    // reader that comes only after it exits (review R7). What is past the first 4 KiB is read and dropped.
    let stdout = child.stdout.take();
    let (said, heard) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        if let Some(mut stdout) = stdout {
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = stdout.read(&mut buf) {
                let room = 4096 - kept.len();
                kept.extend_from_slice(&buf[..n.min(room)]);
            }
        }
        let _ = said.send(kept);
    });
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
    // A child the program left behind may hold its output open: what was printed so far is enough.
    let out = heard
        .recv_timeout(Duration::from_secs(1))
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
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

    /// What the script `text`, written at `path`, says it is. A script just written may be "busy" for a
    /// moment, while a process forked by another test still holds the descriptor it was written through.
    fn script_version(path: &Path, text: &str) -> Result<String, BrowserError> {
        use std::os::unix::fs::PermissionsExt;
        std::fs::write(path, text).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut said = chromium_version(path);
        for _ in 0..20 {
            if !said.as_ref().is_err_and(|e| e.to_string().contains("busy")) {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
            said = chromium_version(path);
        }
        said
    }

    #[test]
    fn a_program_that_is_not_chromium_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let silent = dir.path().join("silent");
        let e = script_version(&silent, "#!/bin/sh\nexit 0\n").unwrap_err();
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

    /// A wrapper that prints more than a pipe holds is read while it runs, not taken for one that never
    /// answers (review R7).
    #[test]
    fn a_long_answer_is_read_while_it_comes() {
        let dir = tempfile::tempdir().unwrap();
        let said = script_version(
            &dir.path().join("wordy"),
            "#!/bin/sh\necho Chromium 156.0.1\nhead -c 200000 /dev/zero | tr '\\0' x\n",
        );
        assert_eq!(said.unwrap(), "Chromium 156.0.1");
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
