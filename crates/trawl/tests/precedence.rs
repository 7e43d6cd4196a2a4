//! URI precedence in a real crawl: `uri_precedence = "hops"` fetches a host's pages in order of hops from the
//! seed, and a sheet that raises the precedence of one SURT prefix sends those pages to the back of the queue;
//! another sheet gives a second host a budget of its own.

mod common;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hops_first_and_a_sheet_sends_a_prefix_last() {
    let site = trawl::selftest::site::start().await.unwrap();
    let small = trawl::selftest::site::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        r#"
[seeds]
urls = ["{seed}", "{small_seed}"]

[frontier]
uri_precedence = "hops"

[[sheet]]
name = "calendar-last"
surt_prefixes = ["http://(127.0.0.1:{port})/calendar/"]
set = {{ "frontier.uri_precedence_base" = 100 }}

[[sheet]]
name = "small-budget"
surt_prefixes = ["http://(127.0.0.1:{small_port})/"]
set = {{ "frontier.max_uris_per_host" = 5 }}
"#,
        seed = site.seed(),
        port = site.addr.port(),
        small_seed = small.seed(),
        small_port = small.addr.port(),
    );
    let path = dir.path().join("crawl.toml");
    std::fs::write(&path, text).unwrap();
    let job = dir.path().join("job");
    common::crawl_quickly(&path, &job).await;

    let log = common::crawl_log(&job);
    let ours = |l: &&trawl_engine::crawl_log::LogLine| {
        l.uri.starts_with(&site.seed()) && !l.uri.ends_with("/robots.txt")
    };
    let calendar_prefix = site.url("/calendar/");
    let calendar = |l: &trawl_engine::crawl_log::LogLine| l.uri.starts_with(&calendar_prefix);
    let pages: Vec<_> = log.iter().filter(ours).filter(|l| !calendar(l)).collect();
    assert!(pages.len() > 10, "{pages:?}");
    // Fewer hops first: the hop counts of the other pages never go down.
    for w in pages.windows(2) {
        assert!(
            w[0].hop_path.len() <= w[1].hop_path.len(),
            "{} ({}) logged before {} ({})",
            w[0].uri,
            w[0].hop_path,
            w[1].uri,
            w[1].hop_path
        );
    }
    // The sheet's prefix waits until the rest of the host is done.
    let first_calendar = log.iter().position(calendar).expect("calendar crawled");
    let last_other = log.iter().rposition(|l| ours(&l) && !calendar(l)).unwrap();
    assert!(
        last_other < first_calendar,
        "a calendar page came before the other pages"
    );
    assert!(log.iter().filter(|l| calendar(l)).count() > 5);

    // The sheet's budget: five URIs for the small host's queue (its robots.txt, a prerequisite, aside), the
    // rest logged as over budget once each; the other host had no budget.
    let on_small: Vec<_> = log
        .iter()
        .filter(|l| l.uri.starts_with(&small.seed()) && !l.uri.ends_with("/robots.txt"))
        .collect();
    let fetched = on_small.iter().filter(|l| l.status != -5003).count();
    let cut = on_small.iter().filter(|l| l.status == -5003).count();
    assert!(
        fetched <= 5 && cut > 0,
        "{fetched} fetched, {cut} over budget"
    );
    assert!(pages.len() > 5 * 4);
    site.shutdown().await;
    small.shutdown().await;
}
