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
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let needle = profile.as_os_str().as_encoded_bytes();
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
                .is_ok_and(|cmdline| memchr::memmem::find(&cmdline, needle).is_some())
        })
        .map(|e| process_bytes(&e.path()))
        .sum()
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
