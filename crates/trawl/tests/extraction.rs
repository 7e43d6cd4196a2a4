//! Extractors in a whole crawl: with `speculative_queue`, the guessed URIs of the self-test site are fetched
//! from one queue of their own; without it, from their host's queue.

mod common;

/// (queue, spent) rows of the frontier report.
fn queues(job: &std::path::Path) -> Vec<(String, u64)> {
    std::fs::read_to_string(job.join("reports/frontier-report.txt"))
        .unwrap()
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            Some((f.first()?.to_string(), f.last()?.parse().ok()?))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn speculative_uris_get_a_queue_of_their_own() {
    let site = trawl::selftest::site::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (name, extra, want_queue) in [
        ("own", "[extract]\nspeculative_queue = true\n", true),
        ("host", "", false),
    ] {
        let cfg = dir.path().join(format!("{name}.toml"));
        std::fs::write(
            &cfg,
            format!("[seeds]\nurls = [\"{}\"]\n{extra}", site.seed()),
        )
        .unwrap();
        let job = dir.path().join(name);
        common::crawl_quickly(&cfg, &job).await;
        let log = common::crawl_log(&job);
        let guessed = log
            .iter()
            .filter(|l| l.hop_path.ends_with('X') && l.status == 200)
            .count();
        assert!(guessed >= 3, "{name}: {guessed} speculative fetches");
        let spec = queues(&job).into_iter().find(|(q, _)| q == "speculative");
        if want_queue {
            let (_, spent) = spec.expect("a `speculative` queue in the frontier report");
            assert!(spent >= guessed as u64, "{spent} spent, {guessed} guessed");
        } else {
            assert!(spec.is_none(), "no speculative queue unless asked for");
        }
    }
}

/// `sitemap_max_urls_per_host`: once a host's sitemaps gave that many URLs, further sitemaps add none (and say
/// so with `outlinksTrunc`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hosts_sitemaps_give_at_most_their_allowance() {
    let site = trawl::selftest::site::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    let text = format!(
        "[seeds]\nurls = [\"{}\"]\n[extract]\nsitemap_max_urls_per_host = 1\n",
        site.seed()
    );
    std::fs::write(&cfg, text).unwrap();
    let job = dir.path().join("job");
    common::crawl_quickly(&cfg, &job).await;
    let log = common::crawl_log(&job);
    let line = |path: &str| log.iter().find(|l| l.uri == site.url(path));
    assert!(
        line("/sitemap-pages.xml.gz").is_some(),
        "the index's one URL is taken"
    );
    let child = line("/sitemap-pages.xml.gz").unwrap();
    assert!(child.has_annotation("outlinksTrunc"), "{child:?}");
    assert!(line("/sitemap-only.html").is_none(), "past the allowance");
}

/// A sitemap's `<lastmod>` stays with the URI: crawl.log shows it, and `sitemap_lastmod` decides by it (the
/// recrawl use: skip what the site says has not changed since the last crawl).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sitemap_lastmod_is_kept_and_decides() {
    let site = trawl::selftest::site::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    // The default profile's rules (the self-test site has a calendar trap), then the date rule.
    let scope: String = [
        "reject",
        "surt_prefixed",
        "too_many_hops",
        "transclusion",
        "prerequisite_accept",
        "scheme_not_in_set",
        "pathological_path",
        "too_many_path_segments",
    ]
    .iter()
    .map(|r| format!("[[scope.rules]]\nrule = \"{r}\"\n"))
    .collect();
    for (name, rule, want_fetched) in [
        ("older", "before = \"2026-01-01\"", true),
        ("newer", "before = \"2026-12-01\"", false),
    ] {
        let cfg = dir.path().join(format!("{name}.toml"));
        let text = format!(
            "[seeds]\nurls = [\"{}\"]\n{scope}[[scope.rules]]\nrule = \"sitemap_lastmod\"\n{rule}\n",
            site.seed()
        );
        std::fs::write(&cfg, text).unwrap();
        let job = dir.path().join(name);
        common::crawl_quickly(&cfg, &job).await;
        let log = common::crawl_log(&job);
        let page = log.iter().find(|l| l.uri == site.url("/sitemap-only.html"));
        if want_fetched {
            let page = page.expect("the sitemap's page is fetched");
            assert!(
                page.has_annotation("lastmod:2026-11-25T00:00:00Z"),
                "{page:?}"
            );
        } else {
            // The sitemap was read, and the rule refused what it dated before December.
            let sitemap = log
                .iter()
                .find(|l| l.uri == site.url("/sitemap-pages.xml.gz"));
            assert!(sitemap.is_some_and(|l| l.status == 200), "{sitemap:?}");
            assert!(page.is_none_or(|l| l.status != 200), "{page:?}");
        }
    }
}
