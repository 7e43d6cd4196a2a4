//! The web UI in a real headless Chromium (Debian's `chromium` and `chromium-driver`, installed by
//! scripts/test.sh), driven over WebDriver: log in, create a job, launch it, watch it finish on the live job
//! page, change a setting, open the report and the URL tester, saving a screenshot at each step (for
//! docs/operating.md; `TRAWL_SCREENSHOTS=DIR` chooses where, default `target/tmp/screenshots`).

use std::{
    net::{SocketAddr, TcpListener, TcpStream},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use fantoccini::{Client, ClientBuilder, Locator};

const PASSWORD: &str = "browser-test-password";

/// A child process killed when the test ends, however it ends.
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn wait_for_port(what: &str, addr: SocketAddr) {
    let start = Instant::now();
    while TcpStream::connect(addr).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{what} did not listen on {addr}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The first of `names` found on PATH.
fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

fn screenshots_dir() -> PathBuf {
    let dir = std::env::var_os("TRAWL_SCREENSHOTS").map_or_else(
        || Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshots"),
        PathBuf::from,
    );
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

async fn shot(c: &Client, name: &str) {
    let png = c.screenshot().await.unwrap();
    assert!(png.starts_with(b"\x89PNG"), "{name}: not a PNG");
    std::fs::write(screenshots_dir().join(format!("{name}.png")), png).unwrap();
}

async fn text_of(c: &Client, css: &str) -> String {
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
        .text()
        .await
        .unwrap()
}

/// Waits until the element at `css` has a text satisfying `ok`, up to `secs`.
async fn wait_text(c: &Client, css: &str, secs: u64, ok: impl Fn(&str) -> bool) -> String {
    let start = Instant::now();
    loop {
        if let Ok(e) = c.find(Locator::Css(css)).await
            && let Ok(t) = e.text().await
            && ok(&t)
        {
            return t;
        }
        assert!(
            start.elapsed() < Duration::from_secs(secs),
            "timed out waiting on {css}; page:\n{}",
            c.source().await.unwrap_or_default()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn fill(c: &Client, css: &str, text: &str) {
    let e = c.find(Locator::Css(css)).await.unwrap();
    e.clear().await.unwrap();
    e.send_keys(text).await.unwrap();
}

async fn click(c: &Client, css: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
        .click()
        .await
        .unwrap();
}

#[test]
fn operate_a_crawl_in_headless_chromium() {
    let chromium = find_program(&["chromium", "chromium-browser"]).expect(
        "Chromium is not installed: `apt-get install chromium chromium-driver` (scripts/test.sh does)",
    );
    let driver = find_program(&["chromedriver"])
        .expect("chromedriver is not installed: `apt-get install chromium-driver`");

    let rt = tokio::runtime::Runtime::new().unwrap();
    let site = rt.block_on(trawl::selftest::site::start()).unwrap();
    let jobs = tempfile::tempdir().unwrap();
    let ui: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let _server = Reaped(
        Command::new(env!("CARGO_BIN_EXE_trawl"))
            .args(["serve", "--bind", &ui.to_string(), "--jobs"])
            .arg(jobs.path())
            .env("TRAWL_PASSWORD", PASSWORD)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let wd_port = free_port();
    let _driver = Reaped(
        Command::new(&driver)
            .arg(format!("--port={wd_port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_for_port("trawl serve", ui);
    wait_for_port("chromedriver", ([127, 0, 0, 1], wd_port).into());

    let config = trawl::selftest::config().to_toml();
    rt.block_on(async {
        let caps = serde_json::json!({
            "goog:chromeOptions": {
                "binary": chromium,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--no-first-run", "--window-size=1200,900",
                ],
            }
        });
        let c = ClientBuilder::native()
            .capabilities(caps.as_object().unwrap().clone())
            .connect(&format!("http://127.0.0.1:{wd_port}"))
            .await
            .expect("chromedriver session");
        let base = format!("http://{ui}");

        // Everything but the login page sends a browser to it.
        c.goto(&format!("{base}/")).await.unwrap();
        assert!(c.current_url().await.unwrap().path().starts_with("/login"));
        fill(&c, "input[name=password]", "wrong").await;
        click(&c, "form button").await;
        wait_text(&c, "body", 10, |t| t.contains("wrong password") || t.contains("Wrong")).await;
        shot(&c, "01-login").await;
        fill(&c, "input[name=password]", PASSWORD).await;
        click(&c, "form button").await;
        wait_text(&c, "h1", 10, |t| t == "Jobs").await;

        // Create a job: name, seed, settings.
        fill(&c, "#new-job input[name=name]", "demo").await;
        fill(&c, "#new-job textarea[name=seeds]", &site.seed()).await;
        fill(&c, "#new-job textarea[name=config]", &config).await;
        shot(&c, "02-new-job").await;
        click(&c, "#new-job button").await;
        wait_text(&c, "h1", 10, |t| t == "Job demo").await;
        assert_eq!(text_of(&c, "#state").await, "created");

        // Launch, and watch the live page (server-sent events) until the crawl finishes.
        click(&c, "button[value=launch]").await;
        wait_text(&c, "#finished", 30, |t| t.parse::<u64>().unwrap_or(0) >= 10).await;
        shot(&c, "03-running").await;
        wait_text(&c, "#state", 120, |t| t == "finished").await;
        // Let the chart draw a few more points, then keep the finished page.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        shot(&c, "04-finished").await;
        let done: u64 = text_of(&c, "#finished").await.parse().unwrap();
        assert!(done >= 40, "{done} URIs finished");

        // The report, as written at the end of the crawl.
        click(&c, "a[href='/jobs/demo/report']").await;
        let report = wait_text(&c, "#report", 10, |t| !t.is_empty()).await;
        assert!(report.contains("Crawl Status: FINISHED"), "{report}");
        shot(&c, "05-report").await;
        c.goto(&format!("{base}/jobs/demo/report?name=hosts")).await.unwrap();
        let hosts = wait_text(&c, "#report", 10, |t| !t.is_empty()).await;
        assert!(hosts.contains("127.0.0.1"), "{hosts}");

        // A settings change on the stopped job is checked and saved.
        c.goto(&format!("{base}/jobs/demo/settings")).await.unwrap();
        fill(&c, "#set-form textarea", "frontier.min_delay_ms = 750").await;
        click(&c, "#set-form button").await;
        let refused = wait_text(&c, "#outcome.err", 10, |t| !t.is_empty()).await;
        assert!(refused.contains("above frontier.max_delay_ms"), "{refused}");
        fill(
            &c,
            "#set-form textarea",
            "frontier.min_delay_ms = 750\nfrontier.max_delay_ms = 1500",
        )
        .await;
        click(&c, "#set-form button").await;
        let outcome = wait_text(&c, "#outcome.ok", 10, |t| !t.is_empty()).await;
        assert!(outcome.contains("frontier.min_delay_ms = 750"), "{outcome}");
        shot(&c, "06-settings").await;
        let saved = std::fs::read_to_string(jobs.path().join("demo/crawl.toml")).unwrap();
        assert!(saved.contains("min_delay_ms = 750"), "{saved}");

        // The crawl.log viewer and the URL tester.
        c.goto(&format!("{base}/jobs/demo/log?status=2xx&last=20")).await.unwrap();
        wait_text(&c, "pre", 10, |t| t.contains(" 200 ")).await;
        shot(&c, "07-crawl-log").await;
        let probe = site.url("/calendar/2020/01?session=abc#top");
        c.goto(&format!("{base}/url?job=demo&url={}", urlencode(&probe)))
            .await
            .unwrap();
        let table = wait_text(&c, "table", 10, |t| !t.is_empty()).await;
        assert!(table.contains("canonical") || table.contains("SURT"), "{table}");
        shot(&c, "08-url-tester").await;

        c.close().await.unwrap();
    });
    rt.block_on(site.shutdown());
}

/// `s` percent-encoded for a query value.
fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
