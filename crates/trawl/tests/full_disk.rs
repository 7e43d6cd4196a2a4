//! A crawl whose disk fills up: it must stop with a reason instead of hanging, and every WARC it leaves must
//! still be valid. Needs root on Linux (it mounts a 512 KiB tmpfs); elsewhere it says it skipped.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use trawl_config::settings::Compression;
use trawl_engine::{Crawl, CrawlHandle, report::Ending};

mod common;

/// A small tmpfs, unmounted when dropped (also when the test panics).
struct Tmpfs {
    dir: PathBuf,
}

impl Tmpfs {
    fn mount(dir: &Path, size: &str) -> Option<Tmpfs> {
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Tmpfs {
            dir: dir.to_owned(),
        })
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.dir).status();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_fails_the_crawl_and_leaves_valid_warcs() {
    let outer = tempfile::tempdir().unwrap();
    let Some(tmpfs) = Tmpfs::mount(outer.path(), "512k") else {
        println!("skipped: cannot mount tmpfs");
        return;
    };
    let job = tmpfs.dir.join("job");

    let site = trawl::selftest::site::start().await.unwrap();
    let mut config = trawl::selftest::config();
    // `/big` is 2 MiB of repeated text: uncompressed and untruncated, its records cannot fit in 512 KiB.
    config.fetch.max_bytes = 4 << 20;
    config.warc.compression = Compression::None;
    let crawl = Crawl::new(&job, config, &[site.seed()]).unwrap();
    let summary = tokio::time::timeout(
        Duration::from_secs(60),
        crawl.run(CrawlHandle::default(), |_| {}),
    )
    .await
    .expect("the crawl hung after the disk filled")
    .expect("the crawl's own files could not be written");
    site.shutdown().await;

    let Ending::Failed(reason) = &summary.ending else {
        panic!("the crawl ended {:?}, not Failed", summary.ending);
    };
    assert!(
        reason.contains("the disk is full") && reason.contains(".warc"),
        "reason does not name the WARC and the cause: {reason}"
    );
    println!("the crawl failed as it should: {reason}");

    // Whatever the writer left in warcs/ (finished or still `.open`) must be a valid WARC.
    // (Indexes beside finished files are whole or absent: they are written through a renamed temporary.)
    let mut left: Vec<PathBuf> = std::fs::read_dir(job.join("warcs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.to_string_lossy().ends_with(".cdxj"))
        .collect();
    left.sort();
    assert!(!left.is_empty(), "no WARC file left in {}", job.display());
    for path in &left {
        let name = path.file_name().unwrap().to_string_lossy();
        assert!(
            name.ends_with(".warc") || name.ends_with(".warc.open"),
            "unexpected file {name}"
        );
        let checked = trawl_warc::verify(path)
            .unwrap_or_else(|e| panic!("a WARC left by the full disk does not verify: {e}"));
        assert!(checked.records >= 1, "{name} holds no records");
    }
    // The files the summary lists are the ones on disk.
    for w in &summary.warcs {
        assert!(left.contains(w), "{} listed but not on disk", w.display());
    }
    // The report says how it ended.
    let report = std::fs::read_to_string(job.join("reports/crawl-report.txt")).unwrap();
    assert!(report.contains("Crawl Status: FAILED"), "{report}");

    // A WARC closed as the disk filled may be left without its index, and with the index's temporary file:
    // as if so, each closed WARC loses its `.cdxj` and gets a torn `.cdxj.tmp`. With room again, resuming
    // the job indexes every WARC (the `.open` ones as it repairs them) and removes the temporaries.
    let remounted = Command::new("mount")
        .args(["-o", "remount,size=64m"])
        .arg(&tmpfs.dir)
        .status()
        .is_ok_and(|s| s.success());
    assert!(remounted, "cannot remount the tmpfs larger");
    // Twice: the second time every WARC is closed (the first resume repaired the `.open` ones).
    for round in 0..2 {
        let closed: Vec<PathBuf> = std::fs::read_dir(job.join("warcs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().ends_with(".warc"))
            .collect();
        assert!(
            round == 0 || !closed.is_empty(),
            "no closed WARC to unindex"
        );
        for path in &closed {
            let index = trawl_warc::index_path(path);
            let _ = std::fs::remove_file(&index);
            std::fs::write(index.with_extension("cdxj.tmp"), "torn").unwrap();
            // and in the form of today's temporary files
            let name = index.file_name().unwrap().to_string_lossy().into_owned();
            std::fs::write(index.with_file_name(format!(".{name}.a1B2c3.tmp")), "torn").unwrap();
        }
        let resumed = Crawl::resume(&job, None).unwrap();
        drop(resumed);
        let after: Vec<PathBuf> = std::fs::read_dir(job.join("warcs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert!(
            !after.iter().any(|p| p.to_string_lossy().ends_with(".tmp")),
            "a temporary index is left: {after:?}"
        );
        let warcs: Vec<&PathBuf> = after
            .iter()
            .filter(|p| p.to_string_lossy().ends_with(".warc"))
            .collect();
        assert!(!warcs.is_empty(), "no WARC after resuming: {after:?}");
        for warc in warcs {
            let name = warc.file_name().unwrap().to_string_lossy().into_owned();
            let mut want = trawl_warc::index_file(warc, &name).unwrap();
            trawl_warc::cdxj::sort(&mut want);
            let got = std::fs::read_to_string(trawl_warc::index_path(warc))
                .unwrap_or_else(|e| panic!("{name} has no index after resuming: {e}"));
            assert_eq!(got.lines().collect::<Vec<_>>(), want, "{name}");
        }
    }
    drop(tmpfs);
}

/// crawl.log on a disk of its own that fills (test round xt8, F6): the crawl fails naming crawl.log, no URI
/// whose line was not written is committed as finished (so the resume fetches it again), and the resume
/// cuts the torn last line instead of running its first line on from it. At the end every URI archived has
/// a whole crawl.log line, and every line parses.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_crawl_log_disk_loses_no_line_of_an_archived_uri() {
    use axum::{Router, extract::Path as UrlPath, http::header, routing::get};
    const PAGES: usize = 300;
    let outer = tempfile::tempdir().unwrap();
    let job = outer.path().join("job");
    let logs = job.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let Some(tmpfs) = Tmpfs::mount(&logs, "16k") else {
        println!("skipped: cannot mount tmpfs");
        return;
    };
    let page = |n: usize| {
        let links: String = (1..=3)
            .map(|k| n * 3 + k)
            .filter(|&m| m < PAGES)
            .map(|m| format!("<a href=\"/p/{m}\">{m}</a> "))
            .collect();
        ([(header::CONTENT_TYPE, "text/html")], links)
    };
    let app = Router::new()
        .route("/", get(move || async move { page(0) }))
        .route(
            "/p/{n}",
            get(move |UrlPath(n): UrlPath<usize>| async move { page(n) }),
        );
    let addr = common::listen(app).await;
    let seed = format!("http://127.0.0.1:{}/", addr.port());
    let mut config = trawl::selftest::config();
    config.fetch.obey_robots = false;
    let crawl = Crawl::new(&job, config, &[seed.parse().unwrap()]).unwrap();
    let summary = tokio::time::timeout(
        Duration::from_secs(60),
        crawl.run(CrawlHandle::default(), |_| {}),
    )
    .await
    .expect("the crawl hung after the disk filled")
    .unwrap();
    let Ending::Failed(reason) = &summary.ending else {
        panic!("the crawl ended {:?}, not Failed", summary.ending);
    };
    assert!(reason.contains("crawl.log"), "{reason}");

    let remounted = Command::new("mount")
        .args(["-o", "remount,size=16m"])
        .arg(&tmpfs.dir)
        .status()
        .is_ok_and(|s| s.success());
    assert!(remounted, "cannot remount the tmpfs larger");
    let summary = tokio::time::timeout(
        Duration::from_secs(60),
        Crawl::resume(&job, None)
            .unwrap()
            .run(CrawlHandle::default(), |_| {}),
    )
    .await
    .expect("the resume hung")
    .unwrap();
    assert_eq!(summary.ending, Ending::Finished);

    let log = common::crawl_log(&job);
    let logged: std::collections::HashSet<&str> = log.iter().map(|l| l.uri.as_str()).collect();
    let archived: std::collections::HashSet<String> = common::records(&job)
        .into_iter()
        .filter(|r| r.get("WARC-Type") == Some("response"))
        .filter_map(|r| r.get("WARC-Target-URI").map(str::to_owned))
        .collect();
    assert_eq!(archived.len(), PAGES, "every page archived");
    for uri in &archived {
        assert!(
            logged.contains(uri.as_str()),
            "{uri} archived with no crawl.log line"
        );
    }
}

/// Reports that cannot be written (their disk full) fail the crawl with the rest of its ending, which is
/// still given (xt44a: the run ended on the report's error, with no `FAILED:` line); the end's marker stays,
/// so a resume says the last run's counters may be behind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reports_on_a_full_disk_fail_the_crawl_with_its_ending() {
    let outer = tempfile::tempdir().unwrap();
    let job = outer.path().join("job");
    let reports = job.join("reports");
    std::fs::create_dir_all(&reports).unwrap();
    let Some(tmpfs) = Tmpfs::mount(&reports, "8k") else {
        println!("skipped: cannot mount tmpfs");
        return;
    };
    // Filled to the last block.
    let mut filler = std::fs::File::create(tmpfs.dir.join("filler")).unwrap();
    while std::io::Write::write_all(&mut filler, &[b'x'; 1024]).is_ok() {}
    let _ = filler.sync_all();
    let site = trawl::selftest::site::start().await.unwrap();
    let crawl = Crawl::new(&job, trawl::selftest::config(), &[site.seed()]).unwrap();
    let summary = tokio::time::timeout(
        Duration::from_secs(60),
        crawl.run(CrawlHandle::default(), |_| {}),
    )
    .await
    .expect("the crawl hung")
    .expect("the crawl ended on the reports' error, without its ending");
    site.shutdown().await;
    let Ending::Failed(reason) = &summary.ending else {
        panic!("the crawl ended {:?}, not Failed", summary.ending);
    };
    assert!(
        reason.starts_with("the crawl finished, but writing the reports: ")
            && reason.contains("the disk is full"),
        "{reason}"
    );
    assert_eq!(summary.report, None);
    assert!(summary.stats.finished > 0);
    assert!(job.join("state").join(trawl_engine::ENDING).exists());
}
