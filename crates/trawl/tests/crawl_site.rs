//! Crawls the built-in axum test site end to end and asserts on crawl.log and the WARC records, then has the
//! independent validator warcio check every archive.

mod common;

use std::collections::HashMap;

use trawl::selftest;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crawl_of_the_test_site_is_faithful() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job");
    let report = selftest::run(&job, selftest::config()).await.unwrap();
    let failed: Vec<_> = report
        .results
        .iter()
        .filter(|r| !r.passed)
        .map(|r| format!("{}: {}", r.name, r.detail))
        .collect();
    assert!(
        failed.is_empty(),
        "scenarios failed:\n{}",
        failed.join("\n")
    );

    let log = common::crawl_log(&job);
    let recs = common::records(&job);

    // xt34b F1: a link refused before it was queued (here one past the hop limit, -4001) has its line and is
    // discovered, so the report's "URIs Discovered" is never below "URIs Processed".
    let text = std::fs::read_to_string(job.join("reports/crawl-report.txt")).unwrap();
    let count = |name: &str| -> u64 {
        let line = text.lines().find_map(|l| l.strip_prefix(name));
        line.unwrap_or_else(|| panic!("no {name} in {text}"))
            .trim()
            .parse()
            .unwrap()
    };
    let refused_lines = log.iter().filter(|l| l.status == -4001).count() as u64;
    assert!(refused_lines >= 1, "{log:#?}");
    assert_eq!(
        count("URIs Refused Before Queued:"),
        refused_lines,
        "{text}"
    );
    assert!(
        count("URIs Discovered:") >= count("URIs Processed:"),
        "{text}"
    );

    // The archive opens with warcinfo, and every later record points back to it.
    assert_eq!(recs[0].get("WARC-Type"), Some("warcinfo"));
    let info_id = recs[0].get("WARC-Record-ID").unwrap().to_string();
    assert!(recs[0].get("WARC-Filename").is_some());
    let info_text = String::from_utf8_lossy(&recs[0].block);
    assert!(
        info_text.contains("software: trawl") && info_text.contains("format: WARC File Format 1.1"),
        "{info_text}"
    );

    // Per fetch: response, request and metadata, tied by WARC-Concurrent-To, with IP and digests.
    let by_id: HashMap<&str, &common::Rec> = recs
        .iter()
        .map(|r| (r.get("WARC-Record-ID").unwrap(), r))
        .collect();
    let responses: Vec<&common::Rec> = recs
        .iter()
        .filter(|r| r.get("WARC-Type") == Some("response"))
        .collect();
    for r in &responses {
        assert_eq!(r.get("WARC-Warcinfo-ID"), Some(info_id.as_str()));
        assert_eq!(r.get("WARC-IP-Address"), Some("127.0.0.1"));
        assert!(r.get("WARC-Block-Digest").unwrap().starts_with("sha1:"));
        assert!(r.get("WARC-Payload-Digest").unwrap().starts_with("sha1:"));
        assert!(r.get("WARC-Record-ID").unwrap().starts_with("<urn:uuid:"));
        assert!(
            r.block.starts_with(b"HTTP/1.1 "),
            "{:?}",
            String::from_utf8_lossy(&r.block[..20])
        );
    }
    for kind in ["request", "metadata"] {
        for r in recs.iter().filter(|r| r.get("WARC-Type") == Some(kind)) {
            let to = r
                .get("WARC-Concurrent-To")
                .unwrap_or_else(|| panic!("{kind} without WARC-Concurrent-To"));
            let resp = by_id[to];
            assert_eq!(resp.get("WARC-Type"), Some("response"));
            assert_eq!(resp.get("WARC-Target-URI"), r.get("WARC-Target-URI"));
        }
    }

    // The request record is the exact request sent: our user agent, the Host with port, HTTP/1.1.
    assert!(report.summary.stats.finished > 20);
    let embeds_req = recs
        .iter()
        .find(|r| {
            r.get("WARC-Type") == Some("request")
                && r.get("WARC-Target-URI").unwrap().ends_with("/embeds")
        })
        .unwrap();
    let req = String::from_utf8_lossy(&embeds_req.block);
    assert!(req.starts_with("GET /embeds HTTP/1.1\r\n"), "{req}");
    assert!(req.contains("\r\nUser-Agent: trawl/"), "{req}");
    assert!(req.contains("\r\nHost: 127.0.0.1:"), "{req}");

    // The metadata record lists the outlinks with their hop types, and the hop path from the seed.
    let meta = recs
        .iter()
        .find(|r| {
            r.get("WARC-Type") == Some("metadata")
                && r.get("WARC-Target-URI").unwrap().ends_with("/embeds")
        })
        .unwrap();
    let meta_text = String::from_utf8_lossy(&meta.block);
    assert!(meta_text.contains("hopsFromSeed: L\r\n"), "{meta_text}");
    assert!(
        meta_text.contains("/img/logo.png E img/@src"),
        "{meta_text}"
    );
    assert!(meta_text.contains("/style.css E link/@href"), "{meta_text}");

    // crawl.log: Heritrix order, seeds with `-`, prerequisites with P, a 17-digit fetch timestamp, digests.
    let home = log.iter().find(|l| l.hop_path.is_empty()).unwrap();
    assert_eq!(home.status, 200);
    assert!(home.via.is_none());
    let robots = log.iter().find(|l| l.uri.ends_with("/robots.txt")).unwrap();
    assert_eq!((robots.hop_path.as_str(), robots.status), ("P", 200));
    for l in log.iter().filter(|l| l.status > 0) {
        let fetch = l.fetch.as_deref().unwrap();
        let (stamp, ms) = fetch.split_once('+').unwrap();
        assert_eq!(stamp.len(), 17, "{fetch}");
        assert!(ms.parse::<u64>().is_ok(), "{fetch}");
        assert!(l.digest.as_deref().unwrap().starts_with("sha1:"));
        // the logged digest is that of the entity body, which is the WARC payload digest
        let resp = responses
            .iter()
            .find(|r| r.get("WARC-Target-URI") == Some(l.uri.as_str()))
            .unwrap();
        if !l.has_annotation("lenTrunc") {
            assert_eq!(
                resp.get("WARC-Payload-Digest"),
                l.digest.as_deref(),
                "{}",
                l.uri
            );
        }
    }

    // The per-topic reports, text and JSON.
    let reports = job.join("reports");
    for name in [
        "crawl",
        "seeds",
        "hosts",
        "mimetype",
        "responsecode",
        "frontier",
        "url-groups",
    ] {
        for ext in ["txt", "json"] {
            assert!(
                reports.join(format!("{name}-report.{ext}")).exists(),
                "{name}-report.{ext}"
            );
        }
    }
    let seeds: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(reports.join("seeds-report.json")).unwrap())
            .unwrap();
    assert_eq!(seeds[0]["status"], 200);
    let hosts = std::fs::read_to_string(reports.join("hosts-report.txt")).unwrap();
    assert!(hosts.contains("127.0.0.1"), "{hosts}");

    // Every archive passes the independent validator.
    for file in common::warc_files(&job) {
        common::warcio_check(&file);
    }
}

/// A seed that redirects to another host, whose links the scope would refuse, widens the scope to that page's
/// site as a seed's (`scope.seed_redirects_new_seeds`, as Heritrix): its site is crawled, and the job's
/// crawl.toml keeps the prefix for a resume. With the setting off the crawl says so with the way out (xt12a
/// F9: the crawl ended after one page without a word).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seed_redirecting_out_of_its_scope_makes_a_seed() {
    // Each config here: no politeness delay, and loopback allowed (but where the address policy is the point).
    const NO_DELAY: &str = "[frontier]\nmin_delay_ms = 0\nmax_delay_ms = 0\ndelay_factor = 0.0\n";
    let config = |extra: &str| {
        format!("{NO_DELAY}[fetch]\nallow_addresses = [\"127.0.0.0/8\", \"::1/128\"]\n{extra}")
    };
    use axum::{Router, response::Html, response::Redirect, routing::get};
    let port = std::sync::Arc::new(std::sync::OnceLock::<u16>::new());
    let at = port.clone();
    let refresh_at = port.clone();
    let user_at = port.clone();
    let app = Router::new()
        .route(
            "/",
            get(move || {
                let port = *at.get().unwrap();
                async move { Redirect::permanent(&format!("http://localhost:{port}/home")) }
            }),
        )
        .route(
            "/refresh",
            get(move || {
                let port = *refresh_at.get().unwrap();
                async move {
                    Html(format!(
                        "<meta http-equiv=\"refresh\" content=\"300; url=http://localhost:{port}/home\">a page"
                    ))
                }
            }),
        )
        .route(
            "/home",
            get(|| async { Html("<a href=\"/more\">more</a>") }),
        )
        .route(
            "/user",
            get(move || {
                let port = *user_at.get().unwrap();
                async move { Redirect::permanent(&format!("http://bob@localhost:{port}/home")) }
            }),
        );
    let addr = common::listen(app).await;
    port.set(addr.port()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("crawl.toml");
    std::fs::write(&cfg, config("")).unwrap();
    let seed = format!("http://127.0.0.1:{}/", addr.port());
    let target = format!("http://localhost:{}/home", addr.port());
    let more = format!("http://localhost:{}/more", addr.port());
    let job = dir.path().join("job");
    let (ok, said) = crawl_cli(seed.clone(), job.clone(), cfg.clone()).await;
    assert!(ok, "{said}");
    assert!(
        said.contains(&format!(
            "redirects to {target}: the scope takes in http://(localhost,:{})/ as a seed's",
            addr.port()
        )),
        "{said}"
    );
    let log = common::crawl_log(&job);
    assert!(
        log.iter().any(|l| l.uri == more && l.status == 404),
        "the target's link is fetched (the site has no such page): {log:#?}"
    );
    let copy = std::fs::read_to_string(job.join("crawl.toml")).unwrap();
    let copy: trawl_config::CrawlConfig = toml::from_str(&copy).unwrap();
    assert_eq!(
        copy.scope.surt_prefixes,
        [format!("http://(localhost,:{})/", addr.port())]
    );
    assert!(!copy.seeds.urls.contains(&target), "not made a seed");
    // The job's history names the change and who made it (xt14a F21).
    let changes = std::fs::read_to_string(job.join("logs/config-changes.log")).unwrap();
    assert!(
        changes.contains(&format!(
            " crawl scope.surt_prefixes += \"http://(localhost,:{})/\": the seed {seed} redirects to {target}",
            addr.port()
        )),
        "{changes}"
    );

    // Off: only the target page, and the log says how to crawl its site.
    let off = dir.path().join("off.toml");
    std::fs::write(
        &off,
        format!(
            "{}[scope]\nseed_redirects_new_seeds = false\n",
            std::fs::read_to_string(&cfg).unwrap()
        ),
    )
    .unwrap();
    let job = dir.path().join("off");
    let (ok, said) = crawl_cli(seed, job.clone(), off).await;
    assert!(ok, "{said}");
    assert!(
        said.contains(&format!(
            "redirects to {target}, whose links are outside the scope"
        )) && said.contains("leave scope.seed_redirects_new_seeds at true"),
        "{said}"
    );
    assert!(!common::crawl_log(&job).iter().any(|l| l.uri == more));
    // A crawl that follows no link from the seed either (`max_hops = 0`) is not told (xt13a F7).
    let cfg = dir.path().join("zero.toml");
    std::fs::write(&cfg, config("[scope]\nmax_hops = 0\n")).unwrap();
    let seed = format!("http://127.0.0.1:{}/", addr.port());
    let job = dir.path().join("zero");
    let (ok, said) = crawl_cli(seed, job, cfg).await;
    assert!(ok, "{said}");
    assert!(
        !said.contains("whose links are outside the scope") && !said.contains("as a seed's"),
        "{said}"
    );
    // A seed's meta refresh is no redirect of the seed: the scope stays as it is (xt14a F7).
    let job = dir.path().join("refresh");
    let (ok, said) = crawl_cli(
        format!("http://127.0.0.1:{}/refresh", addr.port()),
        job.clone(),
        dir.path().join("crawl.toml"),
    )
    .await;
    assert!(ok, "{said}");
    assert!(!said.contains("as a seed's"), "{said}");
    let copy = std::fs::read_to_string(job.join("crawl.toml")).unwrap();
    let copy: trawl_config::CrawlConfig = toml::from_str(&copy).unwrap();
    assert!(copy.scope.surt_prefixes.is_empty(), "{:?}", copy.scope);
    // One hop from the seed: the target's links (`RL`) are two, refused by `too_many_hops` whatever the
    // prefixes, so the scope is not widened and the log says which rule (review 62).
    let cfg = dir.path().join("one.toml");
    std::fs::write(&cfg, config("[scope]\nmax_hops = 1\n")).unwrap();
    let seed = format!("http://127.0.0.1:{}/", addr.port());
    let job = dir.path().join("one");
    let (ok, said) = crawl_cli(seed, job.clone(), cfg).await;
    assert!(ok, "{said}");
    assert!(
        said.contains("the scope's rule too_many_hops refuses its links even with its SURT prefix"),
        "{said}"
    );
    let copy = std::fs::read_to_string(job.join("crawl.toml")).unwrap();
    let copy: trawl_config::CrawlConfig = toml::from_str(&copy).unwrap();
    assert!(copy.scope.surt_prefixes.is_empty(), "{:?}", copy.scope);
    // A scope that accepts the target's own URL and none of its folder's widens too (xt14c F10: the check
    // probed the page's URL only, and its links were never followed).
    let cfg = dir.path().join("page.toml");
    std::fs::write(
        &cfg,
        config(&format!(
            "[scope]\nsurt_prefixes = [\"http://(localhost,:{})/home\"]\n",
            addr.port()
        )),
    )
    .unwrap();
    let job = dir.path().join("page");
    let (ok, said) = crawl_cli(
        format!("http://127.0.0.1:{}/", addr.port()),
        job.clone(),
        cfg,
    )
    .await;
    assert!(ok, "{said}");
    assert!(said.contains("as a seed's"), "{said}");
    assert!(
        common::crawl_log(&job).iter().any(|l| l.uri == more),
        "the target's link is fetched"
    );
    // A target whose URL names a user: its links keep the user, which no prefix matches; the log says so
    // rather than blaming a rule (xt14c F6).
    let job = dir.path().join("user");
    let (ok, said) = crawl_cli(
        format!("http://127.0.0.1:{}/user", addr.port()),
        job.clone(),
        dir.path().join("crawl.toml"),
    )
    .await;
    assert!(ok, "{said}");
    assert!(said.contains("its URL names a user (`user@`)"), "{said}");
    assert!(!said.contains("as a seed's"), "{said}");
    // A target whose address the policy refuses (no `allow_addresses`: `localhost` is no seed's host) is
    // never fetched, so nothing widens and the log says why (xt14a F13: it announced a widening).
    let cfg = dir.path().join("strict.toml");
    std::fs::write(&cfg, NO_DELAY).unwrap();
    let job = dir.path().join("strict");
    let (ok, said) = crawl_cli(
        format!("http://127.0.0.1:{}/", addr.port()),
        job.clone(),
        cfg,
    )
    .await;
    assert!(ok, "{said}");
    assert!(
        said.contains("its address is loopback, which the address policy refuses")
            && !said.contains("as a seed's"),
        "{said}"
    );
    let copy = std::fs::read_to_string(job.join("crawl.toml")).unwrap();
    let copy: trawl_config::CrawlConfig = toml::from_str(&copy).unwrap();
    assert!(copy.scope.surt_prefixes.is_empty(), "{:?}", copy.scope);
}

/// `trawl crawl SEED --job JOB -c CFG` run to its end, off the async threads: its success and what it said.
async fn crawl_cli(
    seed: String,
    job: std::path::PathBuf,
    cfg: std::path::PathBuf,
) -> (bool, String) {
    tokio::task::spawn_blocking(move || {
        common::run(common::trawl_command().args([
            "crawl".as_ref(),
            seed.as_ref(),
            "--job".as_ref(),
            job.as_os_str(),
            "-c".as_ref(),
            cfg.as_os_str(),
        ]))
    })
    .await
    .unwrap()
}
