//! Frontier benchmark: `trawl-bench-frontier [URLS] [HOSTS] [--no-bloom] [--killed]`.
//!
//! Enqueues URLS synthetic URLs (plus 20% duplicates, which must be rejected) over HOSTS queues into an on-disk
//! frontier in batches of 50 (a page's outlinks), committing about every 1000 operations without waiting (`flush_behind`),
//! then drains every queue with no politeness delay, finishing each item with a status. Prints ops/s per phase, peak RSS and disk bytes per URL
//! after each phase.
//!
//! With `--killed` the enqueue phase runs in a child process that is killed with SIGKILL once it has flushed
//! (as `kill -9` ends a crawl): the reopening of what it left is timed and checked (every URL still queued),
//! and the drain runs on the reopened frontier.

use std::{
    io::{BufRead, BufReader},
    path::Path,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use trawl_frontier::{Frontier, Next, Scheduled};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0.0);
    kb / 1024.0
}

/// A deterministic URL for index `i`: host `i % hosts`, a path that varies.
fn url(i: u64, hosts: u64) -> (String, String) {
    let host = i % hosts;
    let queue = format!("com,example,host{host:07},");
    (
        queue,
        format!(
            "http://host{host:07}.example.com/section/{}/page-{i}.html?ref={}",
            i % 97,
            i % 13
        ),
    )
}

/// The benchmark's frontier in `path`, with the crawler's settings.
fn open(path: &Path, n: u64, bloom: bool) -> Frontier<String> {
    let f: Frontier<String> = Frontier::open(path, 1)
        .unwrap()
        .with_active_queues(2000, 3000);
    if bloom {
        f.with_bloom(n as usize, 0.01, false).unwrap()
    } else {
        f
    }
}

/// Schedules the URLs in batches of 50, as a page's outlinks are; every fifth URL is followed by a duplicate of
/// an earlier one. Returns the operations made and the time taken; prints the phase's figures.
fn enqueue(f: &mut Frontier<String>, n: u64, hosts: u64) -> (u64, Duration) {
    let start = Instant::now();
    let mut ops = 0u64;
    let mut dups = 0u64;
    let mut batch = Vec::with_capacity(64);
    let mut batches = 0u64;
    let mut want = Vec::with_capacity(64);
    for i in 0..n {
        batch.push(url(i, hosts));
        want.push(Scheduled::Queued);
        if i % 5 == 4 {
            batch.push(url(i / 2, hosts));
            want.push(Scheduled::Duplicate);
            dups += 1;
        }
        if batch.len() >= 50 || i + 1 == n {
            ops += batch.len() as u64;
            assert_eq!(f.schedule_batch(std::mem::take(&mut batch)).0, want);
            want.clear();
            batches += 1;
            if batches.is_multiple_of(20) {
                f.flush_behind().unwrap();
            }
        }
    }
    f.flush().unwrap();
    let enqueue = start.elapsed();
    let disk = f.disk_bytes();
    println!(
        "enqueue: {:.0} ops/s ({n} new + {dups} duplicates in {:.1} s); disk {:.0} bytes/URL; RSS so far {:.0} MiB",
        ops as f64 / enqueue.as_secs_f64(),
        enqueue.as_secs_f64(),
        disk as f64 / n as f64,
        peak_rss_mib()
    );
    (ops, enqueue)
}

/// Runs the enqueue phase in a child process, then kills it with SIGKILL once it says it has flushed; the
/// operations it made and the time they took.
fn enqueue_in_child(args: &[String], dir: &Path) -> (u64, Duration) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(&args[1..])
        .arg("--child")
        .arg(dir)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut done = (0, Duration::ZERO);
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        if let Some((ops, secs)) = line
            .strip_prefix("flushed ")
            .and_then(|rest| rest.split_once(' '))
        {
            done = (
                ops.parse().unwrap(),
                Duration::from_secs_f64(secs.parse().unwrap()),
            );
            break;
        }
        println!("{line}");
    }
    child.kill().unwrap();
    child.wait().unwrap();
    println!("the enqueuing process was killed with SIGKILL");
    done
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: u64 = args
        .get(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let hosts: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let bloom = !args.iter().any(|a| a == "--no-bloom");
    if let Some(at) = args.iter().position(|a| a == "--child") {
        let mut f = open(Path::new(&args[at + 1]), n, bloom);
        let (ops, took) = enqueue(&mut f, n, hosts);
        println!("flushed {ops} {}", took.as_secs_f64());
        // The parent kills this process here, the frontier still open.
        loop {
            std::thread::sleep(Duration::from_secs(60));
        }
    }
    let dir =
        tempfile::tempdir_in(std::env::var("BENCH_DIR").unwrap_or_else(|_| ".".into())).unwrap();
    println!("frontier bench: {n} URLs over {hosts} queues, bloom in front: {bloom}");
    let (mut f, (ops, enqueued_in)) = if args.iter().any(|a| a == "--killed") {
        let enqueued = enqueue_in_child(&args, dir.path());
        let start = Instant::now();
        let f = open(dir.path(), n, bloom);
        println!(
            "reopen after kill -9: {:.2} s, {} URLs queued",
            start.elapsed().as_secs_f64(),
            f.queued()
        );
        assert_eq!(f.queued(), n, "URLs lost to the kill");
        (f, enqueued)
    } else {
        let mut f = open(dir.path(), n, bloom);
        let enqueued = enqueue(&mut f, n, hosts);
        (f, enqueued)
    };

    let start = Instant::now();
    let mut done = 0u64;
    let now = Instant::now() + Duration::from_secs(1);
    loop {
        match f.next(now).unwrap() {
            Next::Ready(t) => {
                f.finished(&t.queue, t.ticket, Some(200), now, Duration::ZERO);
                done += 1;
                if done.is_multiple_of(1000) {
                    f.flush_behind().unwrap();
                }
            }
            Next::Empty => break,
            other => panic!("unexpected {other:?}"),
        }
    }
    f.flush().unwrap();
    let dequeue = start.elapsed();
    assert_eq!(done, n);
    println!(
        "dequeue: {:.0} ops/s ({done} in {:.1} s); disk {:.0} bytes/URL (finished URLs keep their status); peak RSS {:.0} MiB",
        done as f64 / dequeue.as_secs_f64(),
        dequeue.as_secs_f64(),
        f.disk_bytes() as f64 / n as f64,
        peak_rss_mib()
    );
    println!(
        "combined: {:.0} enqueue+dequeue/s",
        (ops + done) as f64 / (enqueued_in + dequeue).as_secs_f64()
    );
    // What `trawl resume` pays: reopening reads every item record once.
    drop(f);
    let start = Instant::now();
    let f: Frontier<String> = Frontier::open(dir.path(), 1).unwrap();
    assert_eq!(f.queued(), 0);
    println!("reopen: {:.2} s", start.elapsed().as_secs_f64());
}
