//! URLs a server may answer differently are all fetched (docs/url-identity.md, "Canonical URL"): an encoded
//! `+`, `/` or `=` is not the character itself, and the order of repeated parameters counts, under the default
//! canonicalizer and under `whatwg`. Different searches of a gallery URL class are different URLs
//! (docs/url-classes.md, "In a crawl"). A redirect to another spelling of the same URL (the case of its path,
//! a class's trailing slash) is followed, though the two have one uniq key.

mod common;

use std::sync::{Arc, Mutex};

use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpListener,
};

/// Request targets received, as sent.
type Hits = Arc<Mutex<Vec<String>>>;

/// A site whose front page links every target in `links`; a path in `redirects` answers 301 to its
/// location; every other page is an empty 200.
async fn site(
    links: &'static [&'static str],
    redirects: &'static [(&'static str, &'static str)],
) -> (String, Hits) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let hits: Hits = Arc::default();
    let log = hits.clone();
    tokio::spawn(async move {
        while let Ok((mut tcp, _)) = listener.accept().await {
            let log = log.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                let n = tcp.read(&mut buf).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]).to_string();
                let target = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                log.lock().unwrap().push(target.clone());
                if let Some((_, to)) = redirects.iter().find(|(from, _)| *from == target) {
                    let resp = format!(
                        "HTTP/1.1 301 Moved\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    );
                    let _ = tcp.write_all(resp.as_bytes()).await;
                    return;
                }
                let body = if target == "/" {
                    let a: String = links
                        .iter()
                        .map(|l| format!("<a href=\"{l}\">x</a>\n"))
                        .collect();
                    format!("<html><body>{a}</body></html>")
                } else {
                    "<html><body>leaf</body></html>".to_string()
                };
                let resp = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = tcp.write_all(resp.as_bytes()).await;
            });
        }
    });
    (base, hits)
}

const PAIRS: &[&str] = &[
    "/p?q=a%2Bb",
    "/p?q=a+b",
    "/enc/a%2Fb",
    "/enc/a/b",
    "/r?a=2&a=1",
    "/r?a=1&a=2",
    "/s?q==",
    "/s?q=%3D",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn urls_a_server_may_tell_apart_are_all_fetched() {
    for canonicalizer in ["heritrix", "whatwg"] {
        let (base, hits) = site(PAIRS, &[]).await;
        let dir = tempfile::tempdir().unwrap();
        let cfg = common::write(
            &dir.path().join("c.toml"),
            &format!(
                "[seeds]\nurls = [\"{base}/\"]\n[identity]\ncanonicalizer = \"{canonicalizer}\"\n"
            ),
        );
        let job = dir.path().join("job");
        common::crawl_quickly(&cfg, &job).await;
        let hits = hits.lock().unwrap().clone();
        let log = common::crawl_log(&job);
        for target in PAIRS {
            assert_eq!(
                hits.iter().filter(|h| h == target).count(),
                1,
                "{canonicalizer}: {target} in {hits:?}"
            );
            let line = common::log_line(&log, &format!("{base}{target}"));
            assert_eq!(line.status, 200, "{canonicalizer}: {line:?}");
        }
    }
}

const SEARCHES: &[&str] = &[
    "/list?tags=cats",
    "/list?tags=dogs",
    "/list?tags=birds&pid=0",
    // The first search again, written another way: one URL.
    "/list?pid=0&tags=cats",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gallery_searches_are_all_fetched() {
    let (base, hits) = site(SEARCHES, &[]).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = common::write(
        &dir.path().join("c.toml"),
        &format!(
            "[seeds]\nurls = [\"{base}/\"]\n\
             [[url_class]]\nname = \"search\"\nkind = \"gallery\"\nexample = \"http://127.0.0.1/list?pid=0\"\n\
             preferred_scheme = \"http\"\ndomains = [\"127.0.0.1\"]\npath = [ {{ match = \"fixed\", value = \"list\" }} ]\n\
             query = [ {{ name = \"pid\", match = \"numeric\", default = \"0\" }} ]\n"
        ),
    );
    let job = dir.path().join("job");
    common::crawl_quickly(&cfg, &job).await;
    let hits = hits.lock().unwrap().clone();
    let lists: Vec<_> = hits.iter().filter(|h| h.starts_with("/list")).collect();
    for tags in ["cats", "dogs", "birds"] {
        assert_eq!(
            lists
                .iter()
                .filter(|h| h.as_str() == format!("/list?pid=0&tags={tags}"))
                .count(),
            1,
            "{tags}: {hits:?}"
        );
    }
    assert_eq!(lists.len(), 3, "{hits:?}");
}

const RESPELLED: &[&str] = &["/Page", "/posts/1", "/Loop"];

const RESPELLINGS: &[(&str, &str)] = &[
    // The default canonicalizer folds the case: one key.
    ("/Page", "/page"),
    // The class culls a trailing empty path component: one key.
    ("/posts/1", "/posts/1/"),
    // Each the other's respelling: followed until `scope.max_redirects`.
    ("/Loop", "/loop"),
    ("/loop", "/Loop"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_to_another_spelling_of_its_url_is_followed() {
    let (base, hits) = site(RESPELLED, RESPELLINGS).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = common::write(
        &dir.path().join("c.toml"),
        &format!(
            "[seeds]\nurls = [\"{base}/\"]\n[scope]\nmax_redirects = 3\n\
             [[url_class]]\nname = \"post\"\nkind = \"post\"\nexample = \"http://127.0.0.1/posts/7\"\n\
             preferred_scheme = \"http\"\ndomains = [\"127.0.0.1\"]\n\
             path = [ {{ match = \"fixed\", value = \"posts\" }}, {{ match = \"numeric\" }} ]\n"
        ),
    );
    let job = dir.path().join("job");
    common::crawl_quickly(&cfg, &job).await;
    let hits = hits.lock().unwrap().clone();
    let log = common::crawl_log(&job);
    for (from, to) in &RESPELLINGS[..2] {
        assert_eq!(common::log_line(&log, &format!("{base}{from}")).status, 301);
        let line = common::log_line(&log, &format!("{base}{to}"));
        assert_eq!(line.status, 200, "{line:?}");
        assert!(line.hop_path.ends_with("LR"), "{line:?}");
        assert_eq!(hits.iter().filter(|h| h == to).count(), 1, "{hits:?}");
    }
    // The loop: /Loop, then three redirects fetched (/loop, /Loop, /loop); the fourth is refused.
    let loops = hits
        .iter()
        .filter(|h| h.eq_ignore_ascii_case("/loop"))
        .count();
    assert_eq!(loops, 4, "{hits:?}");
}
