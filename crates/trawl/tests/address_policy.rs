//! The address policy, observed in a network namespace where the forbidden addresses really exist on
//! loopback: a violation would be a real connection to our own listener, not a silent connect failure.
//!
//! The outer test re-runs this test binary under `unshare --net` (needs root, as in CI); where that is not
//! possible it says so and skips.

mod common;

use std::{
    net::SocketAddr,
    process::Command,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
};

use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpListener,
};
use trawl_engine::{Crawl, CrawlHandle};

const INNER: &str = "TRAWL_NETNS_INNER";

#[test]
fn address_policy_in_a_network_namespace() {
    if std::env::var_os(INNER).is_some() {
        return; // the inner run executes `inner_crawls` instead
    }
    let exe = std::env::current_exe().unwrap();
    let probe = Command::new("unshare").args(["--net", "true"]).status();
    if !probe.is_ok_and(|s| s.success()) {
        assert!(
            std::env::var_os("CI").is_none(),
            "unshare --net must work in CI (run as root)"
        );
        eprintln!("skipped: cannot create a network namespace (needs root and unshare)");
        return;
    }
    let out = Command::new("unshare")
        .arg("--net")
        .arg("--")
        .arg(&exe)
        .args([
            "--exact",
            "inner_crawls",
            "--nocapture",
            "--include-ignored",
        ])
        .env(INNER, "1")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && text.contains("1 passed"),
        "inner run failed:\n{text}"
    );
}

/// A listener that counts connections and answers each with a tiny page.
async fn counting_server(addr: &str) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = TcpListener::bind(addr).await.unwrap();
    let local = listener.local_addr().unwrap();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    tokio::spawn(async move {
        while let Ok((mut tcp, _)) = listener.accept().await {
            seen.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                let _ = tcp.read(&mut buf).await;
                let _ = tcp
                    .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 6\r\nConnection: close\r\n\r\ninside")
                    .await;
            });
        }
    });
    (local, count)
}

/// The seed site: a page embedding and redirecting into the forbidden hosts under several spellings.
async fn seed_site(targets: Vec<String>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let local = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut tcp, _)) = listener.accept().await {
            let targets = targets.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                let n = tcp.read(&mut buf).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]).to_string();
                let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                let resp = if let Some(i) = path.strip_prefix("/redirect/") {
                    let to = &targets[i.parse::<usize>().unwrap()];
                    format!(
                        "HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    )
                } else if path == "/" {
                    let mut body = String::from("<html>");
                    for (i, t) in targets.iter().enumerate() {
                        body.push_str(&format!(
                            "<img src=\"{t}img{i}.png\"><a href=\"/redirect/{i}\">r</a>"
                        ));
                    }
                    format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    )
                } else {
                    "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                        .to_string()
                };
                let _ = tcp.write_all(resp.as_bytes()).await;
            });
        }
    });
    local
}

fn ip(args: &[&str]) {
    let status = Command::new("ip")
        .args(args)
        .status()
        .expect("the ip command (iproute2)");
    assert!(status.success(), "ip {args:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "runs inside the network namespace made by address_policy_in_a_network_namespace"]
async fn inner_crawls() {
    assert!(
        std::env::var_os(INNER).is_some(),
        "run through address_policy_in_a_network_namespace"
    );
    ip(&["link", "set", "lo", "up"]);
    for addr in ["10.0.0.1/32", "169.254.169.254/32", "192.168.1.1/32"] {
        ip(&["addr", "add", addr, "dev", "lo"]);
    }
    let (private, private_hits) = counting_server("10.0.0.1:0").await;
    let (metadata, metadata_hits) = counting_server("169.254.169.254:0").await;
    let (home, home_hits) = counting_server("192.168.1.1:0").await;
    let targets = vec![
        format!("http://10.0.0.1:{}/", private.port()),
        format!("http://012.0.0.1:{}/", private.port()), // octal spelling of 10.0.0.1
        format!(
            "http://169.254.169.254:{}/latest/meta-data/",
            metadata.port()
        ),
        format!("http://2852039166:{}/", metadata.port()), // decimal spelling of 169.254.169.254
        format!("http://[::ffff:192.168.1.1]:{}/", home.port()), // IPv4-mapped IPv6
    ];
    let seed = format!("http://127.0.0.1:{}/", seed_site(targets).await.port());

    // Default policy: the seed's own host is fine, everything else private is refused, never connected to.
    let dir = tempfile::tempdir().unwrap();
    let crawl = Crawl::new(
        dir.path(),
        trawl::selftest::config(),
        std::slice::from_ref(&seed),
    )
    .unwrap();
    crawl.run(CrawlHandle::default(), |_| {}).await.unwrap();
    assert_eq!(
        private_hits.load(Ordering::SeqCst),
        0,
        "connected to 10.0.0.1"
    );
    assert_eq!(
        metadata_hits.load(Ordering::SeqCst),
        0,
        "connected to the metadata address"
    );
    assert_eq!(
        home_hits.load(Ordering::SeqCst),
        0,
        "connected to 192.168.1.1"
    );
    let log = common::crawl_log(dir.path());
    assert_eq!(log.iter().find(|l| l.uri == seed).unwrap().status, 200);
    let refused: Vec<_> = log.iter().filter(|l| l.status == -5001).collect();
    assert!(refused.len() >= 5, "expected refusals, got {:#?}", log);
    for (needle, why) in [
        ("10.0.0.1", "refused=private"),
        ("169.254.169.254", "refused=link-local"),
        ("[::ffff:c0a8:101]", "refused=private"),
    ] {
        assert!(
            refused
                .iter()
                .any(|l| l.uri.contains(needle) && l.has_annotation(why)),
            "no {why} line for {needle}: {refused:#?}"
        );
    }
    // Redirects into forbidden ranges are refused too (hop path ends in R).
    assert!(refused.iter().any(|l| l.hop_path.ends_with('R')));

    // allow_addresses widens the policy for one range, and only that one.
    let dir = tempfile::tempdir().unwrap();
    let mut config = trawl::selftest::config();
    config.fetch.allow_addresses = vec!["10.0.0.0/8".parse().unwrap()];
    let crawl = Crawl::new(dir.path(), config, std::slice::from_ref(&seed)).unwrap();
    crawl.run(CrawlHandle::default(), |_| {}).await.unwrap();
    assert!(
        private_hits.load(Ordering::SeqCst) > 0,
        "allowed range was not fetched"
    );
    assert_eq!(metadata_hits.load(Ordering::SeqCst), 0);
    let log = common::crawl_log(dir.path());
    assert!(
        log.iter()
            .any(|l| l.uri.contains("10.0.0.1") && l.status == 200),
        "{log:#?}"
    );
    for file in common::warc_files(dir.path()) {
        common::warcio_check(&file);
    }
}
