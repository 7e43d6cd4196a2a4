//! `trawl import heritrix` as an operator uses it: Heritrix's default profile imported, its placeholder seed
//! replaced, crawled on the self-test site — the same pages as trawl's own default scope, which is Heritrix's
//! default sequence. And Heritrix-style seed files: `trawl crawl --seeds` and `trawl ctl add-seeds --file`.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

const PROFILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../testdata/heritrix/profile-crawler-beans.cxml"
);

fn trawl(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(args)
        .output()
        .expect("run trawl")
}

/// The URIs fetched (status > 0) in a job.
fn fetched(job: &Path) -> BTreeSet<String> {
    common::crawl_log(job)
        .into_iter()
        .filter(|l| l.status > 0)
        .map(|l| l.uri)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_profile_crawls_what_its_scope_describes() {
    let dir = tempfile::tempdir().unwrap();
    let imported = dir.path().join("imported.toml");
    let out = trawl(&[
        "import",
        "heritrix",
        PROFILE,
        "-o",
        imported.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("passes `trawl check`"), "{stderr}");
    // What `trawl check` warns of is said too (xt36b F3): here the placeholder seed left out.
    assert!(
        stderr.contains("which warns of 1 thing:") && stderr.contains("the config names no seeds"),
        "{stderr}"
    );
    assert!(stderr.contains("line 296: extractorSitemap"), "{stderr}");
    let again = trawl(&[
        "import",
        "heritrix",
        PROFILE,
        "-o",
        imported.to_str().unwrap(),
    ]);
    assert!(
        !again.status.success(),
        "an existing file is not overwritten"
    );

    // The profile's placeholder seed is left out, with a warning; the operator puts theirs in: one deep in the
    // site, then its root.
    assert!(
        stderr.contains("warning: http://example.example/example is a placeholder seed"),
        "{stderr}"
    );
    let site = trawl::selftest::site::start().await.unwrap();
    let text = std::fs::read_to_string(&imported).unwrap();
    assert!(!text.contains("\"http://example.example/example\""));
    assert!(text.contains("\nurls = []"), "{text}");
    for (n, seed) in ["/dir/sub/page.html", "/"].into_iter().enumerate() {
        let seed = site.url(seed);
        let ours = dir.path().join(format!("imported-{n}.toml"));
        std::fs::write(
            &ours,
            text.replacen("\nurls = []", &format!("\nurls = [\"{seed}\"]"), 1),
        )
        .unwrap();
        let job_imported = dir.path().join(format!("job-imported-{n}"));
        common::crawl_quickly(&ours, &job_imported).await;

        let native = dir.path().join(format!("native-{n}.toml"));
        std::fs::write(&native, format!("[seeds]\nurls = [\"{seed}\"]\n")).unwrap();
        let job_native = dir.path().join(format!("job-native-{n}"));
        common::crawl_quickly(&native, &job_native).await;

        let (a, b) = (fetched(&job_imported), fetched(&job_native));
        assert_eq!(
            a, b,
            "from {seed}: the imported Heritrix scope and trawl's default scope fetch the same pages"
        );
        if n == 0 {
            // The seed's SURT prefix is http://(127.0.0.1:PORT)/dir/sub/: its sibling is in, the parent's out.
            assert_eq!(
                a,
                BTreeSet::from([
                    site.url("/robots.txt"),
                    site.url("/dir/sub/page.html"),
                    site.url("/dir/sub/same-dir"),
                ]),
            );
        } else {
            assert!(a.len() > 20, "{a:?}");
            assert!(a.contains(&site.url("/dir/rel-target")), "{a:?}");
        }
    }
}

#[test]
fn heritrix_seed_files_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let seeds = dir.path().join("seeds.txt");
    std::fs::write(
        &seeds,
        "# Heritrix seeds\nhttp://127.0.0.1:9/a/  # a comment\n+http://(org,example,\n",
    )
    .unwrap();
    // A job that is not running takes add-seeds into its config; a + line is refused with its line.
    let job = dir.path().join("job");
    let out = trawl(&[
        "ctl",
        job.to_str().unwrap(),
        "add-seeds",
        "--file",
        seeds.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("line 3"), "{stderr}");
    assert!(stderr.contains("not a seed"), "{stderr}");

    // `trawl check` on a config naming the file: the + line joins the default scope's prefixes.
    let config = dir.path().join("crawl.toml");
    std::fs::write(&config, "[seeds]\nfiles = [\"seeds.txt\"]\n").unwrap();
    let check = trawl(&["check", config.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    let loaded = trawl_config::CrawlConfig::load(&config).unwrap();
    assert_eq!(loaded.seeds.urls, ["http://127.0.0.1:9/a/"]);
    assert_eq!(loaded.scope.surt_prefixes, ["http://(org,example,"]);
    // A - line needs a REJECT surt_prefixed rule.
    std::fs::write(&seeds, "http://127.0.0.1:9/\n-http://(org,example,\n").unwrap();
    let check = trawl(&["check", config.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert!(!check.status.success());
    assert!(stderr.contains("seeds.txt, line 2"), "{stderr}");
    assert!(stderr.contains("decision = \"reject\""), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crawl_reads_a_heritrix_seed_file() {
    let site = trawl::selftest::site::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let seeds = dir.path().join("seeds.txt");
    std::fs::write(
        &seeds,
        format!(
            "# one seed\n{}   extra words are ignored\n",
            site.url("/dir/")
        ),
    )
    .unwrap();
    let config = dir.path().join("crawl.toml");
    std::fs::write(
        &config,
        "[frontier]\nmin_delay_ms = 0\nmax_delay_ms = 0\ndelay_factor = 0.0\n[scope]\nmax_hops = 1\n",
    )
    .unwrap();
    let job = dir.path().join("job");
    let out = tokio::task::spawn_blocking({
        let (config, job, seeds) = (config.clone(), job.clone(), seeds.clone());
        move || {
            trawl(&[
                "crawl",
                "-c",
                config.to_str().unwrap(),
                "--job",
                job.to_str().unwrap(),
                "--seeds",
                seeds.to_str().unwrap(),
            ])
        }
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(fetched(&job).contains(&site.url("/dir/")));
}

// See: issue 37. The jobs people have: Heritrix 3.0's profile (with the cookie store's old name) and a project's
// job with processors trawl does not run import with exit 0; --strict fails on the first such bean, with its
// line; a placeholder seed is left out, and `trawl check` warns of one.
#[test]
fn real_jobs_import_and_strict_names_what_is_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/heritrix/");
    let old = format!("{data}heritrix-3.0.0-profile-crawler-beans.cxml");
    let out = trawl(&["import", "heritrix", &old]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("line 507: cookieStorage: org.archive.modules.fetcher.BdbCookieStorage is Heritrix 3.0–3.2's name"), "{stderr}");

    // The SFM job names its seed file under HERITRIX_DATA_PATH, relative to the job folder.
    let job = dir.path().join("sfm");
    std::fs::create_dir_all(job.join("HERITRIX_DATA_PATH")).unwrap();
    std::fs::write(
        job.join("HERITRIX_DATA_PATH/seeds.txt"),
        "http://www.example.org/\n",
    )
    .unwrap();
    let cxml = job.join("crawler-beans.cxml");
    std::fs::copy(format!("{data}sfm-web-harvester/crawler-beans.cxml"), &cxml).unwrap();
    let out = trawl(&["import", "heritrix", cxml.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("line 358: ContentDigestHistoryLoader: org.archive.modules.recrawl.ContentDigestHistoryLoader is not carried over"), "{stderr}");
    let out = trawl(&["import", "heritrix", "--strict", cxml.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains(
            "line 358: org.archive.modules.recrawl.ContentDigestHistoryLoader is not carried over"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("without --strict"), "{stderr}");

    // Malformed XML still fails with its line and column.
    let bad = dir.path().join("bad.cxml");
    std::fs::write(
        &bad,
        "<beans>\n  <bean id='a' class='org.archive.modules.CrawlMetadata'>\n</beans>\n",
    )
    .unwrap();
    let out = trawl(&["import", "heritrix", bad.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("line 3, column"), "{stderr}");

    let placeholder = dir.path().join("crawl.toml");
    std::fs::write(
        &placeholder,
        "[seeds]\nurls = [\"http://example.example/example\"]\n",
    )
    .unwrap();
    let out = trawl(&["check", placeholder.to_str().unwrap()]);
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "a warning, not an error: {all}");
    assert!(
        all.contains("http://example.example/example is a placeholder"),
        "{all}"
    );
    let out = trawl(&["check", "--strict", placeholder.to_str().unwrap()]);
    assert!(!out.status.success());
}
