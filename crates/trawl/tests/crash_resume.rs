//! Crash safety: a real `trawl crawl` process is killed with SIGKILL at random moments, several times over,
//! and resumed each time; in the end it must have crawled exactly what a clean crawl does, fetched again
//! only what was in flight at each kill, and left archives that all verify.

mod common;

use std::{
    collections::{BTreeSet, HashMap},
    path::Path,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

fn trawl(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn finish(mut child: Child, limit: Duration) {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            use std::io::Read;
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            assert!(status.success(), "trawl failed: {err}");
            return;
        }
        assert!(
            start.elapsed() < limit,
            "trawl did not finish within {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Every URI of the job's crawl.log, and how often each was logged.
fn logged(job: &Path) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for line in common::crawl_log(job) {
        *counts.entry(line.uri).or_insert(0) += 1;
    }
    counts
}

/// A small deterministic generator (xorshift), seeded from the clock and printed, so a failing run can be
/// repeated with TRAWL_CRASH_SEED.
fn kill_delays(n: usize) -> Vec<Duration> {
    let seed: u64 = std::env::var("TRAWL_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    eprintln!("crash test seed: TRAWL_CRASH_SEED={seed}");
    let mut x = seed;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            Duration::from_millis(150 + x % 900)
        })
        .collect()
}

/// Keeps its folder when dropped during a panic.
struct Keep(Option<tempfile::TempDir>);

impl Drop for Keep {
    fn drop(&mut self) {
        if std::thread::panicking()
            && let Some(dir) = self.0.take()
        {
            eprintln!("kept {}", dir.keep().display());
        }
    }
}

#[test]
fn kill_9_at_random_moments_then_resume_loses_nothing() {
    kill_9_and_resume(|_| {});
}

/// The same with zstd records and a dictionary: the crawl is too short to train one, so every record is held
/// back in memory (and on disk beside the file) until the crawl's end, and each kill catches them held.
#[test]
fn kill_9_while_records_are_held_for_a_zstd_dictionary_loses_nothing() {
    kill_9_and_resume(|config| {
        config.warc.compression = trawl_config::settings::Compression::Zstd;
        config.warc.zstd_dictionary = true;
    });
}

/// Crawls the self-test site cleanly, then again with `tweak`ed settings killed with SIGKILL at four random
/// moments and resumed each time; both must have crawled the same, and the killed one's archives must hold
/// every capture its crawl.log names.
fn kill_9_and_resume(tweak: impl Fn(&mut trawl_config::CrawlConfig)) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let site = rt.block_on(trawl::selftest::site::start()).unwrap();
    // Kept when the test fails (its path is printed), so the jobs can be read afterwards.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    eprintln!("jobs in {}", dir.path().display());
    let kept = Keep(Some(dir));
    let dir = kept.0.as_ref().unwrap();
    let mut config = trawl::selftest::config();
    // Slow enough that the kills land mid-crawl.
    config.frontier.min_delay_ms = 40;
    config.frontier.max_delay_ms = 40;
    tweak(&mut config);
    let cfg = dir.path().join("crawl.toml");
    std::fs::write(&cfg, config.to_toml()).unwrap();
    let (clean, crashed) = (dir.path().join("clean"), dir.path().join("crashed"));
    let seed = site.seed();

    finish(
        trawl(&[
            "crawl",
            "--job",
            clean.to_str().unwrap(),
            "-c",
            cfg.to_str().unwrap(),
            &seed,
        ]),
        Duration::from_secs(120),
    );

    let delays = kill_delays(4);
    let mut child = trawl(&[
        "crawl",
        "--job",
        crashed.to_str().unwrap(),
        "-c",
        cfg.to_str().unwrap(),
        &seed,
    ]);
    let mut kills = 0;
    for delay in &delays {
        std::thread::sleep(*delay);
        match child.try_wait().unwrap() {
            None => {
                // A resume while it runs is refused before it touches the job (its open WARC, its
                // frontier): the running crawl goes on unharmed.
                let refused = Command::new(env!("CARGO_BIN_EXE_trawl"))
                    .args(["resume", crashed.to_str().unwrap()])
                    .output()
                    .unwrap();
                let err = String::from_utf8_lossy(&refused.stderr);
                // (Unless the crawl ended well in between, and the resume found it done.)
                let mut ended_well = || child.try_wait().unwrap().is_some_and(|s| s.success());
                assert!(
                    err.contains("in use by another trawl process") || ended_well(),
                    "a resume of a running job: {err}"
                );
                child.kill().unwrap(); // SIGKILL
                kills += 1;
                eprintln!("killed after {delay:?}");
            }
            // Finished before the kill: say how, for a failing run's reader.
            Some(status) => {
                let mut err = String::new();
                use std::io::Read;
                let _ = child.stderr.take().unwrap().read_to_string(&mut err);
                eprintln!("ended by itself within {delay:?} ({status}): {err}");
                // A resume that fails leaves a supervisor that resumes once with a dead crawl.
                assert!(status.success(), "a resume failed: {err}");
            }
        }
        let _ = child.wait();
        child = trawl(&["resume", crashed.to_str().unwrap()]);
    }
    finish(child, Duration::from_secs(120));
    eprintln!("killed {kills} times");

    let want = logged(&clean);
    let got = logged(&crashed);
    let want_set: BTreeSet<&String> = want.keys().collect();
    let got_set: BTreeSet<&String> = got.keys().collect();
    assert_eq!(
        got_set, want_set,
        "the crashed crawl's URIs differ from a clean crawl's"
    );
    // Fetched again: only what was in flight at a kill (at most the worker count each time); robots.txt is
    // fetched again after every restart by design (its rules are not persisted).
    let again: usize = got
        .iter()
        .filter(|(uri, _)| !uri.ends_with("/robots.txt"))
        .map(|(_, n)| n - 1)
        .sum();
    let workers = config.fetch.max_connections;
    assert!(
        again <= kills * workers,
        "{again} URIs logged twice after {kills} kills: {got:?}"
    );

    // No archive is left open, and every one verifies.
    for file in std::fs::read_dir(crashed.join("warcs")).unwrap() {
        let path = file.unwrap().path();
        // Nor the records held back for a zstd dictionary (`.open.held`): they are in their file.
        assert!(
            !path.to_string_lossy().ends_with(".open")
                && !path.to_string_lossy().ends_with(".held"),
            "{} left open",
            path.display()
        );
    }
    for file in common::warc_files(&crashed) {
        if config.warc.compression == trawl_config::settings::Compression::Zstd {
            trawl_warc::verify(&file).unwrap_or_else(|e| panic!("{e}"));
        } else {
            common::warcio_check(&file);
        }
    }
    // Every capture crawl.log names (an HTTP answer) is in the archives.
    let archived: BTreeSet<String> = common::records(&crashed)
        .iter()
        .filter_map(|r| r.get("WARC-Target-URI").map(str::to_owned))
        .collect();
    for line in common::crawl_log(&crashed) {
        assert!(
            line.status < 100 || archived.contains(&line.uri),
            "{} ({}) is in crawl.log but not in the archives",
            line.uri,
            line.status
        );
    }
    // A clean end wrote a checkpoint.
    assert!(crashed.join("checkpoints").read_dir().unwrap().count() >= 1);
    rt.block_on(site.shutdown());
}

/// A page whose robots.txt was fetched, killed before its own turn came: the resumed process knows no
/// robots.txt verdict, and must fetch robots.txt again rather than fail the page as if its robots.txt fetch
/// had failed (-61). The politeness delay after the robots.txt fetch makes the window wide.
#[test]
fn a_page_waiting_at_a_kill_for_its_robots_txt_turn_is_fetched_after_resume() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let site = rt.block_on(trawl::selftest::site::start()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut config = trawl::selftest::config();
    config.frontier.min_delay_ms = 3000;
    config.frontier.max_delay_ms = 3000;
    config.scope.max_hops = 0;
    let cfg = dir.path().join("crawl.toml");
    std::fs::write(&cfg, config.to_toml()).unwrap();
    let job = dir.path().join("job");
    let seed = site.seed();
    let robots = format!("{}robots.txt", seed);

    let mut child = trawl(&[
        "crawl",
        "--job",
        job.to_str().unwrap(),
        "-c",
        cfg.to_str().unwrap(),
        &seed,
    ]);
    // robots.txt's line is written, and its commit follows at once; the seed waits 3 s for its turn.
    common::wait_for("robots.txt logged", 20, || {
        std::fs::read_to_string(job.join("logs/crawl.log")).is_ok_and(|log| log.contains(&robots))
    });
    std::thread::sleep(Duration::from_millis(500));
    assert!(child.try_wait().unwrap().is_none(), "the crawl ended early");
    child.kill().unwrap();
    let _ = child.wait();
    assert!(
        !logged(&job).contains_key(&seed),
        "the seed was fetched before the kill"
    );

    finish(
        trawl(&["resume", job.to_str().unwrap()]),
        Duration::from_secs(60),
    );
    let log = common::crawl_log(&job);
    assert_eq!(common::log_line(&log, &seed).status, 200, "{log:#?}");
    rt.block_on(site.shutdown());
}
