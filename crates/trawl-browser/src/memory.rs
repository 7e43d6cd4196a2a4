//! How much memory a running Chromium uses: every process of one browser (browser, renderers, GPU and
//! utility processes) names the browser's profile directory on its command line, so they are found in
//! `/proc` by that name and their proportional set sizes added up (shared pages counted once overall).
//!
//! Two small files per process are read directly: no crate of the field reads exactly this, and the whole
//! work is a directory walk. Where `/proc` is missing (not Linux) the answer is 0, and no restart for memory
//! happens.

use std::path::Path;

/// Bytes of memory used by the processes whose command line names `profile`.
pub(crate) fn of_processes_naming(profile: &Path) -> u64 {
    processes_naming(profile)
        .iter()
        .map(|p| process_bytes(p))
        .sum()
}

/// Kills the processes whose command line names `profile`: a browser left running by a crawl killed with
/// `kill -9` (its children outlive it), before its profile is made afresh for the next start. Returns how
/// many there were.
pub(crate) fn kill_processes_naming(profile: &Path) -> usize {
    let left = processes_naming(profile);
    for dir in &left {
        let pid = dir
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.parse().ok())
            .and_then(rustix::process::Pid::from_raw);
        if let Some(pid) = pid {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
    left.len()
}

/// The `/proc/PID` folders of the processes whose command line names `profile` (an absolute path).
fn processes_naming(profile: &Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    // The path as a whole argument's end or a folder of it, `profile-1` not named by `profile-10`; and from
    // an argument's start or a `--flag=`: `/a/job/…` is not named by `/b/a/job/…`, another job's (xt18b F1:
    // a crawl in `job` killed the browser of one in `myjob`).
    let path = profile.as_os_str().as_encoded_bytes();
    let needles = [[path, b"\0"].concat(), [path, b"/"].concat()];
    let names = |cmdline: &[u8], needle: &[u8]| {
        memchr::memmem::find_iter(cmdline, needle)
            .any(|at| at == 0 || matches!(cmdline[at - 1], b'\0' | b'='))
    };
    entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .as_encoded_bytes()
                .iter()
                .all(u8::is_ascii_digit)
        })
        .filter(|e| {
            std::fs::read(e.path().join("cmdline"))
                .is_ok_and(|cmdline| needles.iter().any(|n| names(&cmdline, n)))
        })
        .map(|e| e.path())
        .collect()
}

/// A process's proportional set size (`Pss` of `smaps_rollup`), else its resident set (`VmRSS`).
fn process_bytes(dir: &Path) -> u64 {
    let field = |file: &str, name: &str| {
        let text = std::fs::read_to_string(dir.join(file)).ok()?;
        kib_field(&text, name)
    };
    field("smaps_rollup", "Pss:")
        .or_else(|| field("status", "VmRSS:"))
        .unwrap_or(0)
}

/// The value of a `Name:   123 kB` line, in bytes.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line[name.len()..].split_whitespace().next()?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_kib_fields() {
        let text = "Rss:  2048 kB\nPss:    1024 kB\nShared_Clean: 1 kB\n";
        assert_eq!(kib_field(text, "Pss:"), Some(1 << 20));
        assert_eq!(kib_field(text, "Swap:"), None);
        assert_eq!(kib_field("Pss: many kB\n", "Pss:"), None);
    }

    /// Processes left naming a job's profiles are killed, as a whole argument or a `--flag=` value; one
    /// naming another path (`profile-10` for `profile-1`, another job's `/b/a/job/…` for `/a/job/…`, xt18b
    /// F1) is not.
    #[test]
    fn kills_only_the_processes_naming_the_profiles() {
        if !Path::new("/proc/self/cmdline").exists() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        // The path is `sleep`'s own argv[0], so it stays on the command line: a shell given it as an
        // argument may exec `sleep` and drop it (dash does), which made this test fail by chance.
        let spawn = |arg0: String| {
            use std::os::unix::process::CommandExt;
            std::process::Command::new("sleep")
                .arg0(arg0)
                .arg("60")
                .spawn()
                .unwrap()
        };
        let at = |name: &str| dir.path().join(name).display().to_string();
        let mut one = spawn(format!("--user-data-dir={}", at("profile-1")));
        let mut ten = spawn(at("profile-10"));
        let mut other = spawn(format!("/elsewhere{}", at("profile-1")));
        // A child shows its own command line only once it has exec'd `sleep`; until then it is a copy of this
        // test (which made the kill count 0 by chance). Wait for both.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while processes_naming(dir.path()).len() < 2 && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert_eq!(kill_processes_naming(&dir.path().join("profile-1")), 1);
        assert!(one.wait().unwrap().code().is_none(), "killed by a signal");
        assert!(ten.try_wait().unwrap().is_none(), "profile-10 still runs");
        assert_eq!(kill_processes_naming(dir.path()), 1);
        assert!(ten.wait().unwrap().code().is_none());
        assert!(
            other.try_wait().unwrap().is_none(),
            "another job's still runs"
        );
        other.kill().unwrap();
        let _ = other.wait();
    }

    /// This test's own process names its own executable: it is found, and uses some memory.
    #[test]
    fn finds_this_process() {
        if !Path::new("/proc/self/cmdline").exists() {
            return;
        }
        let me = std::env::current_exe().unwrap();
        assert!(of_processes_naming(&me) > 0);
    }
}
