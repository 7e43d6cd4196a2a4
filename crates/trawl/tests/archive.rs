//! Archives that replay: a site whose pages share assets and hold byte-identical copies at other URLs is
//! crawled twice. The first crawl stores each payload once (revisit records for copies); the second,
//! deduplicating against the first, stores only what changed. Every WARC verifies (trawl and warcio), every
//! index beside a WARC is byte-identical to the reference indexer's, and pywb replays every HTML page of both
//! crawls — revisits included — with the site's bytes.

mod common;

use std::{
    collections::BTreeMap,
    net::SocketAddr,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use axum::{Router, extract::State, http::Uri, response::IntoResponse};

type Files = Arc<Mutex<BTreeMap<String, (&'static str, Vec<u8>)>>>;

/// Filler that makes a body big enough to be deduplicated (dedup_min_bytes is 1024 by default).
fn filler(seed: &str) -> String {
    (0..60)
        .map(|i| format!("<p>{seed} paragraph {i}</p>\n"))
        .collect()
}

/// The site at `version`: only /changing.html differs between versions.
fn site(version: u32) -> BTreeMap<String, (&'static str, Vec<u8>)> {
    let html = |body: String| {
        (
            "text/html",
            format!("<!doctype html><html><body>{body}</body></html>").into_bytes(),
        )
    };
    let logo: Vec<u8> = (0..3000u32).map(|i| (i * 7 % 251) as u8).collect();
    let same = filler("same");
    BTreeMap::from([
        (
            "/".to_owned(),
            html(
                "<a href=\"/a.html\">a</a> <a href=\"/b.html\">b</a> <a href=\"/same1.html\">1</a> \
                 <a href=\"/same2.html\">2</a> <a href=\"/changing.html\">c</a> <a href=\"/small1.txt\">s</a> \
                 <a href=\"/small2.txt\">t</a>"
                    .to_owned()
                    + &filler("home"),
            ),
        ),
        (
            "/a.html".into(),
            html(format!("<img src=\"/img/logo.png\"><img src=\"/copy/logo.png\">{}", filler("a"))),
        ),
        ("/b.html".into(), html(format!("<img src=\"/img/logo.png\">{}", filler("b")))),
        ("/same1.html".into(), html(same.clone())),
        ("/same2.html".into(), html(same)),
        ("/changing.html".into(), html(format!("<p>version {version}</p>{}", filler("c")))),
        ("/small1.txt".into(), ("text/plain", b"tiny".to_vec())),
        ("/small2.txt".into(), ("text/plain", b"tiny".to_vec())),
        ("/img/logo.png".into(), ("image/png", logo.clone())),
        ("/copy/logo.png".into(), ("image/png", logo)),
    ])
}

/// An entity tag of `body` (FNV-1a), as a server would give.
fn etag(body: &[u8]) -> String {
    let hash = body.iter().fold(0xcbf29ce484222325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
    });
    format!("\"{hash:016x}\"")
}

/// Serves `files` with entity tags, answering `304 Not Modified` to an `If-None-Match` that still holds.
async fn serve(files: Files) -> SocketAddr {
    async fn page(
        State(files): State<Files>,
        uri: Uri,
        headers: axum::http::HeaderMap,
    ) -> axum::response::Response {
        match files.lock().unwrap().get(uri.path()) {
            Some((ct, body)) => {
                let tag = etag(body);
                if headers.get("if-none-match").and_then(|v| v.to_str().ok()) == Some(tag.as_str())
                {
                    return (axum::http::StatusCode::NOT_MODIFIED, [("etag", tag)]).into_response();
                }
                (
                    [("content-type", (*ct).to_owned()), ("etag", tag)],
                    body.clone(),
                )
                    .into_response()
            }
            None => (axum::http::StatusCode::NOT_FOUND, "no").into_response(),
        }
    }
    common::listen(Router::new().fallback(page).with_state(files)).await
}

fn config(dir: &Path, name: &str, seed: &str, extra: &str) -> PathBuf {
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, format!("[seeds]\nurls = [\"{seed}\"]\n{extra}")).unwrap();
    path
}

/// `(WARC-Type, target)` of every response and revisit record of a job.
fn captures(job: &Path) -> Vec<(String, String)> {
    common::records(job)
        .iter()
        .filter(|r| matches!(r.get("WARC-Type"), Some("response" | "revisit")))
        .map(|r| {
            (
                r.get("WARC-Type").unwrap().to_owned(),
                r.get("WARC-Target-URI").unwrap().to_owned(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dedup_within_and_across_crawls_and_replay_in_pywb() {
    let files: Files = Arc::new(Mutex::new(site(1)));
    let addr = serve(files.clone()).await;
    let url = |p: &str| format!("http://{addr}{p}");
    let dir = tempfile::tempdir().unwrap();

    // First crawl: each payload stored once.
    let job1 = dir.path().join("job1");
    // (Each job its own WARC prefix: pywb serves both from one collection, where file names must differ.)
    let one = config(dir.path(), "one", &url("/"), "[warc]\nprefix = \"one\"\n");
    common::crawl_quickly(&one, &job1).await;
    let first = captures(&job1);
    let revisits1: Vec<&String> = first
        .iter()
        .filter(|(t, _)| t == "revisit")
        .map(|(_, u)| u)
        .collect();
    assert_eq!(
        revisits1.len(),
        2,
        "one copy page and one copy image: {first:?}"
    );
    assert!(
        revisits1
            .iter()
            .any(|u| u.ends_with("/same1.html") || u.ends_with("/same2.html"))
    );
    assert!(revisits1.iter().any(|u| u.ends_with("logo.png")));
    // The PNG's member holds stored deflate blocks (deflate would not shrink it), the HTML's compressed ones;
    // both read back, and warcio and pywb read them below.
    let recs = common::records(&job1);
    let block_type = |path: &str| {
        let rec = recs
            .iter()
            .find(|r| {
                r.get("WARC-Type") == Some("response")
                    && r.get("WARC-Target-URI").is_some_and(|u| u.ends_with(path))
            })
            .unwrap();
        let bytes = std::fs::read(&rec.file).unwrap();
        let member = &bytes[rec.offset as usize..];
        assert_eq!(
            member[..4],
            [0x1f, 0x8b, 8, 0],
            "a gzip member without optional fields"
        );
        // The first deflate block's BTYPE: 0 stored, 1 fixed, 2 dynamic Huffman codes.
        (member[10] >> 1) & 3
    };
    assert_eq!(block_type("logo.png"), 0);
    assert_ne!(block_type("/a.html"), 0);
    // Small bodies are stored whole, copies or not.
    assert!(first.contains(&("response".into(), url("/small1.txt"))));
    assert!(first.contains(&("response".into(), url("/small2.txt"))));
    let log1 = common::crawl_log(&job1);
    assert_eq!(
        log1.iter()
            .filter(|l| l.has_annotation("duplicate:digest"))
            .count(),
        2
    );

    // Second crawl against the first: only what changed (and what is too small to dedup) is stored. (A second
    // later, so that replay tells the crawls apart by their 14-digit timestamps.)
    tokio::time::sleep(Duration::from_millis(1100)).await;
    files.lock().unwrap().clone_from(&site(2));
    let job2 = dir.path().join("job2");
    let extra = format!(
        "[warc]\nprefix = \"two\"\nwacz = true\ndedup_from = [{:?}]\n",
        job1.display().to_string()
    );
    common::crawl_quickly(&config(dir.path(), "two", &url("/"), &extra), &job2).await;
    let second = captures(&job2);
    assert!(
        job2.join("job2.wacz").is_file(),
        "[warc] wacz = true packages the finished job"
    );
    let stored: Vec<&String> = second
        .iter()
        .filter(|(t, _)| t == "response")
        .map(|(_, u)| u)
        .collect();
    let mut stored_paths: Vec<String> = stored.iter().map(|u| u.replace(&url(""), "")).collect();
    stored_paths.sort();
    assert_eq!(
        stored_paths,
        [
            "/changing.html",
            "/robots.txt",
            "/small1.txt",
            "/small2.txt"
        ],
        "{second:?}"
    );
    let bytes = |job: &Path| -> u64 {
        common::warc_files(job)
            .iter()
            .map(|f| std::fs::metadata(f).unwrap().len())
            .sum()
    };
    println!(
        "recrawl: {} bytes of WARC against {} for the first crawl",
        bytes(&job2),
        bytes(&job1)
    );

    // Every file verifies (revisits included: their targets exist in the job or the dedup source).
    for job in [&job1, &job2] {
        for f in common::warc_files(job) {
            trawl_warc::verify(&f).unwrap_or_else(|e| panic!("{e}"));
            common::warcio_check(&f);
        }
    }

    // `trawl warc verify` follows revisits: the job (with its dedup_from source) resolves, its files alone do not.
    let verify = |args: &[&std::ffi::OsStr]| {
        Command::new(env!("CARGO_BIN_EXE_trawl"))
            .args(["warc", "verify"])
            .args(args)
            .output()
            .unwrap()
    };
    let whole = verify(&[job2.as_os_str()]);
    assert!(
        whole.status.success(),
        "{}",
        String::from_utf8_lossy(&whole.stdout)
    );
    assert!(
        String::from_utf8_lossy(&whole.stdout)
            .contains("revisit records: each payload is archived")
    );
    let alone: Vec<PathBuf> = common::warc_files(&job2);
    let alone = verify(&alone.iter().map(|p| p.as_os_str()).collect::<Vec<_>>());
    assert!(!alone.status.success());
    assert!(String::from_utf8_lossy(&alone.stdout).contains("archived in none of the files given"));

    // A recrawl of the recrawl, naming only it: its revisits' payloads are in the first crawl, which the second
    // was deduplicated against, so that one is read too. Nothing changed: only what is too small is stored.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let job3 = dir.path().join("job3");
    let extra = format!(
        "[warc]\nprefix = \"three\"\ndedup_from = [{:?}]\n",
        job2.display().to_string()
    );
    common::crawl_quickly(&config(dir.path(), "three", &url("/"), &extra), &job3).await;
    let mut stored3: Vec<String> = captures(&job3)
        .into_iter()
        .filter(|(t, _)| t == "response")
        .map(|(_, u)| u.replace(&url(""), ""))
        .collect();
    stored3.sort();
    assert_eq!(stored3, ["/robots.txt", "/small1.txt", "/small2.txt"]);
    let whole = verify(&[job3.as_os_str()]);
    assert!(
        whole.status.success(),
        "{}",
        String::from_utf8_lossy(&whole.stdout)
    );

    // The index beside each WARC is the reference indexer's, byte for byte.
    if let Some(indexer) = common::py_tool("cdxj-indexer") {
        for job in [&job1, &job2] {
            for f in common::warc_files(job) {
                let out = Command::new(&indexer)
                    .arg("-s")
                    .arg(&f)
                    .current_dir(f.parent().unwrap())
                    .output()
                    .unwrap();
                assert!(
                    out.status.success(),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                let reference = String::from_utf8(out.stdout).unwrap();
                let ours = std::fs::read_to_string(trawl_warc::index_path(&f)).unwrap();
                assert_eq!(ours, reference, "{}", f.display());
            }
        }
    }

    // pywb replays every HTML page of both crawls from the WARCs and trawl's merged index.
    let Some(wayback) = common::py_tool("wayback") else {
        return;
    };
    let coll = dir.path().join("pywb/collections/both");
    std::fs::create_dir_all(coll.join("archive")).unwrap();
    std::fs::create_dir_all(coll.join("indexes")).unwrap();
    for job in [&job1, &job2] {
        for f in common::warc_files(job) {
            std::fs::copy(&f, coll.join("archive").join(f.file_name().unwrap())).unwrap();
        }
    }
    let index = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(["warc", "index"])
        .arg(&job1)
        .arg(&job2)
        .arg("-o")
        .arg(coll.join("indexes/index.cdxj"))
        .status()
        .unwrap();
    assert!(index.success());
    // The first crawl as one WACZ: the reference validator accepts it, and pywb serves it as a collection.
    let wacz = dir.path().join("one.wacz");
    let packed = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .arg("wacz")
        .arg(&job1)
        .arg("-o")
        .arg(&wacz)
        .output()
        .unwrap();
    assert!(
        packed.status.success(),
        "{}",
        String::from_utf8_lossy(&packed.stderr)
    );
    if let Some(validator) = common::py_tool("wacz") {
        let out = Command::new(validator)
            .args(["validate", "-f"])
            .arg(&wacz)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && said.contains("is valid"), "{said}");
    }
    let manager = common::py_tool("wb-manager").expect("pywb's wb-manager beside wayback");
    for args in [
        vec!["init", "packed"],
        vec!["add", "--unpack-wacz", "packed", wacz.to_str().unwrap()],
    ] {
        let out = Command::new(&manager)
            .args(&args)
            .current_dir(dir.path().join("pywb"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "wb-manager {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut server = Command::new(&wayback)
        .args(["-p", &port.to_string(), "-b", "127.0.0.1"])
        .current_dir(dir.path().join("pywb"))
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.path().join("pywb.log")).unwrap())
        .spawn()
        .unwrap();
    let pywb_log = || std::fs::read_to_string(dir.path().join("pywb.log")).unwrap_or_default();
    let client = common::reqwest_like::Client::new(port);
    let started = Instant::now();
    while client.get("/").is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "pywb did not start"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let mut replayed = 0;
    for (job, version) in [(&job1, 1), (&job2, 2)] {
        let site = site(version);
        for line in common::crawl_log(job).iter().filter(|l| l.status == 200) {
            let path = line.uri.replace(&url(""), "");
            let Some((ct, body)) = site.get(&path) else {
                continue;
            };
            if *ct != "text/html" {
                continue;
            }
            let stamp = &line.fetch.as_deref().expect("a fetch time")[..14];
            let got = client
                .get(&format!("/both/{stamp}id_/{}", line.uri))
                .unwrap_or_else(|| {
                    panic!(
                        "pywb has no capture of {} at {stamp}:\n{}",
                        line.uri,
                        pywb_log()
                    )
                });
            assert!(&got == body, "{} at {stamp} replays other bytes", line.uri);
            replayed += 1;
        }
    }
    // The same pages of the first crawl from its WACZ.
    for line in common::crawl_log(&job1).iter().filter(|l| l.status == 200) {
        let path = line.uri.replace(&url(""), "");
        let Some(("text/html", body)) = site(1).get(&path).map(|(c, b)| (*c, b.clone())) else {
            continue;
        };
        let stamp = &line.fetch.as_deref().expect("a fetch time")[..14];
        let got = client
            .get(&format!("/packed/{stamp}id_/{}", line.uri))
            .unwrap_or_else(|| panic!("the WACZ has no capture of {}:\n{}", line.uri, pywb_log()));
        assert!(
            got == body,
            "{} from the WACZ replays other bytes",
            line.uri
        );
        replayed += 1;
    }
    let _ = server.kill();
    let _ = server.wait();
    assert!(replayed >= 18, "{replayed} pages replayed");
}

/// `compression = "zstd"`: one frame per record, read back by trawl's own tools, and turned into gzip (which
/// warcio checks) by `trawl warc recompress` without changing a record.
/// The classic 11-field CDX (` CDX N b a m s k r M S V g`) of a job's WARCs, as Heritrix and the Wayback
/// Machine write it: digests bare base32, records in file order.
fn cdx11(job: &Path) -> String {
    let mut out = String::from(" CDX N b a m s k r M S V g\n");
    for warc in common::warc_files(job) {
        let name = warc.file_name().unwrap().to_string_lossy().into_owned();
        for line in trawl_warc::index_file(&warc, &name).unwrap() {
            let mut parts = line.splitn(3, ' ');
            let (key, stamp) = (parts.next().unwrap(), parts.next().unwrap());
            let j: serde_json::Value = serde_json::from_str(parts.next().unwrap()).unwrap();
            let f = |k: &str| j[k].as_str().unwrap_or("-").to_owned();
            let digest = f("digest").trim_start_matches("sha1:").to_owned();
            out.push_str(&format!(
                "{key} {stamp} {} {} {} {digest} - - {} {} {}\n",
                f("url"),
                f("mime"),
                f("status"),
                f("length"),
                f("offset"),
                f("filename"),
            ));
        }
    }
    out
}

// See: issue 37. A recrawl deduplicating against a classic CDX index of the first crawl (as Heritrix wrote
// them), and against a folder of the first crawl's WARCs with no index (indexed on the way in), stores only
// what changed; its revisits name the original's URI and date, and warcio finds them well formed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dedup_from_a_cdx_file_and_a_folder_of_warcs() {
    let files: Files = Arc::new(Mutex::new(site(1)));
    let addr = serve(files.clone()).await;
    let url = |p: &str| format!("http://{addr}{p}");
    let dir = tempfile::tempdir().unwrap();
    let job1 = dir.path().join("job1");
    common::crawl_quickly(&config(dir.path(), "one", &url("/"), ""), &job1).await;
    let first = captures(&job1);

    let cdx = dir.path().join("job1.cdx");
    std::fs::write(&cdx, cdx11(&job1)).unwrap();
    let archives = dir.path().join("archives");
    std::fs::create_dir(&archives).unwrap();
    for warc in common::warc_files(&job1) {
        std::fs::copy(&warc, archives.join(warc.file_name().unwrap())).unwrap();
    }

    // The same CDX gzipped, as Wayback collections keep them.
    let cdx_gz = dir.path().join("job1.cdx.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, cdx11(&job1).as_bytes()).unwrap();
    std::fs::write(&cdx_gz, gz.finish().unwrap()).unwrap();

    // The crawl kept as its WACZ (xt10b F6: it was called damaged and nothing was deduplicated).
    let wacz = dir.path().join("job1.wacz");
    let (ok, said) = trawl_cli(&[
        "wacz".as_ref(),
        job1.as_os_str(),
        "-o".as_ref(),
        wacz.as_os_str(),
    ]);
    assert!(ok, "{said}");

    tokio::time::sleep(Duration::from_millis(1100)).await;
    files.lock().unwrap().clone_from(&site(2));
    // A folder of packages too (xt11a F8).
    let packages = dir.path().join("packages");
    std::fs::create_dir(&packages).unwrap();
    std::fs::copy(&wacz, packages.join("week1.wacz")).unwrap();
    for (n, source) in [&cdx, &archives, &cdx_gz, &wacz, &packages]
        .into_iter()
        .enumerate()
    {
        let job = dir.path().join(format!("again{n}"));
        let extra = format!(
            "[warc]\ndedup_from = [{:?}]\n",
            source.display().to_string()
        );
        common::crawl_quickly(
            &config(dir.path(), &format!("again{n}"), &url("/"), &extra),
            &job,
        )
        .await;
        let again = captures(&job);
        let mut stored: Vec<String> = again
            .iter()
            .filter(|(t, _)| t == "response")
            .map(|(_, u)| u.replace(&url(""), ""))
            .collect();
        stored.sort();
        assert_eq!(
            stored,
            [
                "/changing.html",
                "/robots.txt",
                "/small1.txt",
                "/small2.txt"
            ],
            "against {}: {again:?}",
            source.display()
        );
        let revisits: Vec<_> = common::records(&job)
            .into_iter()
            .filter(|r| r.get("WARC-Type") == Some("revisit"))
            .collect();
        // /, a, b, same1, same2 and both logos: unchanged since the first crawl.
        assert_eq!(revisits.len(), 7, "{again:?}");
        let report: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(job.join("reports/crawl-report.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(report["dedup"]["revisits"].as_u64(), Some(7), "{report}");
        assert!(
            report["dedup"]["revisit_bytes"].as_u64() > Some(3000),
            "{report}"
        );
        assert_eq!(first.len(), revisits.len() + stored.len());
        for r in &revisits {
            let target = r.get("WARC-Target-URI").unwrap();
            let refers = r.get("WARC-Refers-To-Target-URI").unwrap();
            let date = r.get("WARC-Refers-To-Date").unwrap();
            // The original capture: this URL or the copy the first crawl archived, at the first crawl's time.
            assert!(
                first.iter().any(|(t, u)| t == "response" && u == refers),
                "{target} → {refers}"
            );
            assert!(date.len() == 20 && date.ends_with('Z'), "{date}");
            assert_eq!(
                r.get("WARC-Profile"),
                Some("http://netpreserve.org/warc/1.1/revisit/identical-payload-digest")
            );
        }
        for f in common::warc_files(&job) {
            trawl_warc::verify(&f).unwrap_or_else(|e| panic!("{e}"));
            common::warcio_check(&f);
        }
        // The job verifies whole: its revisits resolve in the source it deduplicated against.
        let (ok, said) = trawl_cli(&["warc".as_ref(), "verify".as_ref(), job.as_os_str()]);
        assert!(
            ok && said.contains("ok 7 revisit records"),
            "against {}: {said}",
            source.display()
        );
    }

    // A damaged source is named with where and what is wrong, and the crawl goes on with the rest: the
    // revisits against the good index are still written.
    let junk = dir.path().join("junk.cdx");
    std::fs::write(&junk, [0xff, 0xfe, 0x00, 0x41]).unwrap();
    let crawl = |name: &str, sources: &[&Path]| {
        let sources: Vec<String> = sources.iter().map(|p| p.display().to_string()).collect();
        let cfg = config(
            dir.path(),
            name,
            &url("/"),
            &format!("[warc]\ndedup_from = {sources:?}\n"),
        );
        let job = dir.path().join(name);
        let (ok, said) = trawl_cli(&[
            "crawl".as_ref(),
            "-c".as_ref(),
            cfg.as_os_str(),
            "--job".as_ref(),
            job.as_os_str(),
        ]);
        (ok, said, job)
    };
    // A folder that holds no capture (the folder of the jobs, not a job) is said, not read as nothing
    // silently (xt10b F7).
    let kept = dir.path().join("kept");
    std::fs::create_dir_all(kept.join("week1/warcs")).unwrap();
    let (ok, said, job) = crawl("junk", &[junk.as_path(), cdx.as_path(), kept.as_path()]);
    assert!(ok, "{said}");
    for want in [
        &format!("dedup: {} holds no WARC, ARC or index file", kept.display()),
        "its folders week1 are jobs",
        &format!("dedup: {} is damaged: ", junk.display()),
        "not a text index (a control byte, or a line over 1 MiB, at byte 2)",
        "0 captures read from it are used. The crawl goes on",
        "captures read from 2 files, 1 of them damaged",
    ] {
        assert!(said.contains(want), "missing {want:?} in:\n{said}");
    }
    let revisits = common::records(&job)
        .into_iter()
        .filter(|r| r.get("WARC-Type") == Some("revisit"))
        .count();
    assert_eq!(revisits, 7, "{said}");
    // A source that is not there at all is a configuration error: the crawl does not start.
    let missing = dir.path().join("no-such.cdx");
    let (ok, said, _) = crawl("missing", &[missing.as_path(), cdx.as_path()]);
    assert!(
        !ok && said.contains("no-such.cdx") && said.contains("does not exist"),
        "{said}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zstd_warcs_read_verify_index_and_recompress() {
    zstd_job("[warc]\ncompression = \"zstd\"\n", false).await;
}

/// `zstd_dictionary = true`: the same, with a dictionary trained from the crawl's first records at the start
/// of each file; `trawl warc recompress` back to `.warc.zst` trains one again, and every record survives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zstd_dictionary_warcs_read_verify_index_and_recompress() {
    zstd_job(
        "[warc]\ncompression = \"zstd\"\nzstd_dictionary = true\n",
        true,
    )
    .await;
}

/// Crawls the self-test site with `settings` and checks its `.warc.zst` files (beginning with a dictionary
/// frame when `dictionary`) with `verify`, `ls`, their indexes and `recompress` to gzip and back.
async fn zstd_job(settings: &str, dictionary: bool) {
    let site = trawl::selftest::site::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), "z", &site.seed(), settings);
    let job = dir.path().join("job");
    common::crawl_quickly(&cfg, &job).await;
    let files = common::warc_files(&job);
    assert!(
        !files.is_empty()
            && files
                .iter()
                .all(|f| f.to_string_lossy().ends_with(".warc.zst")),
        "{files:?}"
    );
    let trawl = |args: &[&std::ffi::OsStr]| {
        Command::new(env!("CARGO_BIN_EXE_trawl"))
            .args(args)
            .output()
            .unwrap()
    };
    let verified = trawl(&["warc".as_ref(), "verify".as_ref(), job.as_os_str()]);
    assert!(
        verified.status.success(),
        "{}",
        String::from_utf8_lossy(&verified.stdout)
    );
    // Every file of the folder given, the indexes beside the archives too (`verify warcs/*`): the indexes are
    // passed over, not failed as damaged archives (xt36b F7).
    let mut all: Vec<std::ffi::OsString> = vec!["warc".into(), "verify".into()];
    for f in &files {
        all.push(f.clone().into());
        all.push(trawl_warc::index_path(f).into());
    }
    // And a folder of the job that holds no WARC (`verify JOB/*` gives `JOB/logs`): passed over too (xt38b N14).
    all.push(job.join("logs").into());
    let args: Vec<&std::ffi::OsStr> = all.iter().map(|a| a.as_os_str()).collect();
    let globbed = trawl(&args);
    let said = String::from_utf8_lossy(&globbed.stderr);
    assert!(
        globbed.status.success()
            && said.contains("an index, not an archive: passed over")
            && said.contains("a folder holding no WARC file: passed over"),
        "{}{said}",
        String::from_utf8_lossy(&globbed.stdout),
    );
    // A folder named like an index (a job named after the CDX it deduplicated against) is a folder
    // (xt47c F2).
    let named = job.parent().unwrap().join("site.cdxj");
    std::fs::create_dir_all(named.join("warcs")).unwrap();
    for f in files
        .iter()
        .flat_map(|f| [f.clone(), trawl_warc::index_path(f)])
    {
        std::fs::copy(&f, named.join("warcs").join(f.file_name().unwrap())).unwrap();
    }
    let folder = trawl(&["warc".as_ref(), "verify".as_ref(), named.as_os_str()]);
    assert!(
        folder.status.success(),
        "{}{}",
        String::from_utf8_lossy(&folder.stdout),
        String::from_utf8_lossy(&folder.stderr)
    );
    // A file that is not there is said as such, not as a damaged one (xt38b N6).
    let missing = trawl(&[
        "warc".as_ref(),
        "ls".as_ref(),
        job.join("none.warc").as_os_str(),
    ]);
    let said = String::from_utf8_lossy(&missing.stderr);
    assert!(
        !missing.status.success() && said.contains("1 file not found") && !said.contains("damaged"),
        "{said}"
    );
    for f in &files {
        let magic = &std::fs::read(f).unwrap()[..4];
        let want: &[u8] = if dictionary {
            &[0x5D, 0x2A, 0x4D, 0x18]
        } else {
            &[0x28, 0xB5, 0x2F, 0xFD]
        };
        assert_eq!(magic, want, "{}", f.display());
        let ls = trawl(&["warc".as_ref(), "ls".as_ref(), f.as_os_str()]);
        assert!(ls.status.success() && !ls.stdout.is_empty());
        // The index beside the file matches one built by reading it.
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let mut lines = trawl_warc::index_file(f, &name).unwrap();
        trawl_warc::cdxj::sort(&mut lines);
        let beside = std::fs::read_to_string(trawl_warc::index_path(f)).unwrap();
        assert_eq!(beside.lines().collect::<Vec<_>>(), lines);
        let gz = dir.path().join(name.replace(".warc.zst", ".warc.gz"));
        let out = trawl(&[
            "warc".as_ref(),
            "recompress".as_ref(),
            f.as_os_str(),
            gz.as_os_str(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        common::warcio_check(&gz);
        let records = |p: &Path| -> Vec<trawl_warc::ReadRecord> {
            trawl_warc::open(p).unwrap().map(|r| r.unwrap()).collect()
        };
        let (a, b) = (records(f), records(&gz));
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            assert_eq!((&x.header, &x.block), (&y.header, &y.block));
        }
        // And back to zstd, with a dictionary trained from the records.
        let again = dir.path().join(format!("again-{name}"));
        let out = trawl(&[
            "warc".as_ref(),
            "recompress".as_ref(),
            gz.as_os_str(),
            again.as_os_str(),
        ]);
        assert!(out.status.success());
        let c = records(&again);
        assert_eq!(a.len(), c.len());
        for (x, y) in a.iter().zip(&c) {
            assert_eq!((&x.header, &x.block), (&y.header, &y.block));
        }
        let verified = trawl(&["warc".as_ref(), "verify".as_ref(), again.as_os_str()]);
        assert!(verified.status.success());
    }
    // A WACZ of the job holds its WARCs as gzip, which replay tools read: every capture, none as zstd.
    let wacz = dir.path().join("z.wacz");
    let out = trawl(&[
        "wacz".as_ref(),
        job.as_os_str(),
        "-o".as_ref(),
        wacz.as_os_str(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listing = Command::new("python3")
        .args([
            "-c",
            "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nprint('\\n'.join(z.namelist()))\n\
             sys.stdout.write(z.read('indexes/index.cdx').decode())",
        ])
        .arg(&wacz)
        .output()
        .unwrap();
    let listing = String::from_utf8(listing.stdout).unwrap();
    let packed: Vec<_> = listing
        .lines()
        .filter(|l| l.starts_with("archive/"))
        .collect();
    assert_eq!(packed.len(), files.len(), "{listing}");
    assert!(packed.iter().all(|n| n.ends_with(".warc.gz")), "{listing}");
    let captures: usize = files
        .iter()
        .map(|f| {
            std::fs::read_to_string(trawl_warc::index_path(f))
                .unwrap()
                .lines()
                .count()
        })
        .sum();
    let indexed: Vec<_> = listing
        .lines()
        .filter(|l| l.contains("\"filename\": "))
        .collect();
    assert_eq!(indexed.len(), captures, "{listing}");
    assert!(
        indexed.iter().all(|l| l.contains(".warc.gz\"")),
        "{listing}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".trawl-wacz-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // A gzip WARC of a zstd one's name beside it would be packed under the same name: refused, naming both,
    // nothing left behind.
    let first = &files[0];
    let stem = first.to_string_lossy().replace(".warc.zst", "");
    let twin = PathBuf::from(format!("{stem}.warc.gz"));
    std::fs::write(&twin, b"").unwrap();
    let clash = dir.path().join("clash.wacz");
    let out = trawl(&[
        "wacz".as_ref(),
        job.as_os_str(),
        "-o".as_ref(),
        clash.as_os_str(),
    ]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        said.contains("would both be packed as archive/")
            && said.contains(&*first.to_string_lossy())
            && said.contains(&*twin.to_string_lossy()),
        "{said}"
    );
    assert!(!clash.exists());
    common::assert_no_temporary_left(clash.parent().unwrap());
    std::fs::remove_file(&twin).unwrap();
    let zst: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).unwrap().len())
        .sum();
    println!("zstd job ({settings:?}): {zst} bytes of WARC");
}

/// `conditional_recrawl`: a recrawl sends each page's earlier `ETag` back; unchanged pages answer `304` and
/// are archived as server-not-modified revisits that pywb replays from the first crawl.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conditional_recrawl_archives_304s_as_revisits() {
    let files: Files = Arc::new(Mutex::new(site(1)));
    let addr = serve(files.clone()).await;
    let url = |p: &str| format!("http://{addr}{p}");
    let dir = tempfile::tempdir().unwrap();
    let job1 = dir.path().join("job1");
    let one = config(dir.path(), "one", &url("/"), "[warc]\nprefix = \"one\"\n");
    common::crawl_quickly(&one, &job1).await;
    tokio::time::sleep(Duration::from_millis(1100)).await;
    files.lock().unwrap().clone_from(&site(2));
    let job2 = dir.path().join("job2");
    let extra = format!(
        "[warc]\nprefix = \"two\"\ndedup_from = [{:?}]\n",
        job1.display().to_string()
    );
    let two = config(dir.path(), "two", &url("/"), &extra);
    common::crawl_quickly_with(&two, &job2, |c| c.fetch.conditional_recrawl = true).await;
    let recs = common::records(&job2);
    let not_modified: Vec<&str> = recs
        .iter()
        .filter(|r| {
            r.get("WARC-Profile")
                .is_some_and(|p| p.ends_with("server-not-modified"))
        })
        .map(|r| r.get("WARC-Target-URI").unwrap())
        .collect();
    // Every page that did not change (the home page, its copies, assets, small files) answered 304.
    assert!(
        not_modified.contains(&url("/").as_str()),
        "{not_modified:?}"
    );
    assert!(
        not_modified.contains(&url("/small1.txt").as_str()),
        "{not_modified:?}"
    );
    assert!(!not_modified.contains(&url("/changing.html").as_str()));
    let log = common::crawl_log(&job2);
    let home = log.iter().find(|l| l.uri == url("/")).unwrap();
    assert_eq!(home.status, 304);
    assert!(
        home.has_annotation("duplicate:server-not-modified"),
        "{home:?}"
    );
    for f in common::warc_files(&job2) {
        trawl_warc::verify(&f).unwrap_or_else(|e| panic!("{e}"));
        common::warcio_check(&f);
    }
    // A server-not-modified revisit points at the first crawl's capture of the same URL.
    let revisit = recs
        .iter()
        .find(|r| {
            r.get("WARC-Target-URI") == Some(url("/").as_str())
                && r.get("WARC-Type") == Some("revisit")
        })
        .unwrap();
    assert_eq!(
        revisit.get("WARC-Refers-To-Target-URI"),
        Some(url("/").as_str())
    );
    assert!(revisit.get("WARC-Refers-To").is_some());
    assert!(revisit.block.starts_with(b"HTTP/1.1 304"));
    // The 304's line gives the payload's digest, as the revisit does, not the empty body's (xt10b F9).
    assert_eq!(
        home.digest.as_deref(),
        revisit.get("WARC-Payload-Digest"),
        "{home:?}"
    );
    // The report counts what deduplication saved (xt10b F10: nothing said it).
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(job2.join("reports/crawl-report.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        report["dedup"]["not_modified"].as_u64(),
        Some(not_modified.len() as u64),
        "{report}"
    );
    let text = std::fs::read_to_string(job2.join("reports/crawl-report.txt")).unwrap();
    assert!(text.contains("Not modified (304 revisits): "), "{text}");
    // A payload served at two URLs was a revisit at the second in the first crawl: its validators are sent too
    // (xt10b F2), and its 304 refers to the capture holding the payload.
    for copy in [
        "/same1.html",
        "/same2.html",
        "/img/logo.png",
        "/copy/logo.png",
    ] {
        assert!(
            not_modified.contains(&url(copy).as_str()),
            "{copy}: {not_modified:?}"
        );
    }
    // A third crawl of the unchanged site against both, the older listed first: each URL gets the validators
    // of its latest capture, so the page changed in the second crawl answers 304 too (xt10b F1).
    let job3 = dir.path().join("job3");
    let extra = format!(
        "[warc]\nprefix = \"three\"\ndedup_from = [{:?}, {:?}]\n",
        job1.display().to_string(),
        job2.display().to_string()
    );
    let three = config(dir.path(), "three", &url("/"), &extra);
    common::crawl_quickly_with(&three, &job3, |c| c.fetch.conditional_recrawl = true).await;
    let log = common::crawl_log(&job3);
    let changing = log.iter().find(|l| l.uri == url("/changing.html")).unwrap();
    assert_eq!(changing.status, 304, "{changing:?}");
    for copy in [
        "/same1.html",
        "/same2.html",
        "/img/logo.png",
        "/copy/logo.png",
    ] {
        let line = log.iter().find(|l| l.uri == url(copy)).unwrap();
        assert_eq!(line.status, 304, "{line:?}");
    }
    for f in common::warc_files(&job3) {
        trawl_warc::verify(&f).unwrap_or_else(|e| panic!("{e}"));
    }
    // The two crawls kept as their WACZ packages: their WARCs are read in place for validators, as the jobs'
    // (the last stop's note: a WACZ gave none, and every page was fetched whole).
    let mut packages = Vec::new();
    for job in [&job1, &job2] {
        let wacz = dir.path().join(format!(
            "{}.wacz",
            job.file_name().unwrap().to_string_lossy()
        ));
        let (ok, said) = trawl_cli(&[
            "wacz".as_ref(),
            job.as_os_str(),
            "-o".as_ref(),
            wacz.as_os_str(),
        ]);
        assert!(ok, "{said}");
        packages.push(wacz.display().to_string());
    }
    let job4 = dir.path().join("job4");
    let extra = format!(
        "[warc]\nprefix = \"four\"\ndedup_from = [{:?}, {:?}]\n",
        packages[0], packages[1]
    );
    let four = config(dir.path(), "four", &url("/"), &extra);
    common::crawl_quickly_with(&four, &job4, |c| c.fetch.conditional_recrawl = true).await;
    let log = common::crawl_log(&job4);
    for page in ["/", "/changing.html", "/same2.html", "/copy/logo.png"] {
        let line = log.iter().find(|l| l.uri == url(page)).unwrap();
        assert_eq!(line.status, 304, "{line:?}");
    }
    // The recrawl's package alone: its 304s refer to payloads of the first crawl, which it does not name, so
    // those pages are fetched whole; what it holds itself answers 304; the job verifies (xt13a F2: revisits
    // of payloads in no source).
    let job5 = dir.path().join("job5");
    let extra = format!(
        "[warc]\nprefix = \"five\"\ndedup_from = [{:?}]\n",
        packages[1]
    );
    let five = config(dir.path(), "five", &url("/"), &extra);
    common::crawl_quickly_with(&five, &job5, |c| c.fetch.conditional_recrawl = true).await;
    let log = common::crawl_log(&job5);
    assert_eq!(
        common::log_line(&log, &url("/changing.html")).status,
        304,
        "{log:?}"
    );
    assert_eq!(common::log_line(&log, &url("/")).status, 200, "{log:?}");
    let (ok, said) = trawl_cli(&["warc".as_ref(), "verify".as_ref(), job5.as_os_str()]);
    assert!(ok, "{said}");
    // Turned on by a sheet only: the validators are read all the same (xt21b F6: none were, and every page
    // under the sheet was fetched whole).
    let job6 = dir.path().join("job6");
    let extra = format!(
        "[warc]\nprefix = \"six\"\ndedup_from = [{:?}]\n[[sheet]]\nname = \"recrawl\"\n\
         surt_prefixes = [\"http://{addr}/\"]\nset = {{ \"fetch.conditional_recrawl\" = true }}\n",
        job3.display().to_string()
    );
    let six = config(dir.path(), "six", &url("/"), &extra);
    common::crawl_quickly(&six, &job6).await;
    let log = common::crawl_log(&job6);
    assert_eq!(common::log_line(&log, &url("/")).status, 304, "{log:?}");
}

/// A host name looked up through the configured name server is archived as a `dns:` response record
/// (`text/dns`, the answers in zone-file form), once per TTL, with its crawl.log line naming a fetch of that
/// host as the one that asked (two hosts crawled at once: each lookup stays with its own host's fetch).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dns_lookups_are_archived_once_per_ttl() {
    let files: Files = Arc::new(Mutex::new(site(1)));
    let addr = serve(files).await;
    let (dns, _asked) = common::dns_server().await;
    let dir = tempfile::tempdir().unwrap();
    let seed = format!("http://site.trawl.test:{}/", addr.port());
    let job = dir.path().join("job");
    common::crawl_quickly_with(&config(dir.path(), "d", &seed, ""), &job, |c| {
        c.fetch.dns_servers = vec![dns];
        c.seeds
            .urls
            .push(format!("http://other.trawl.test:{}/", addr.port()));
        // A name outside loopback: the crawl wants a user agent naming a contact.
        c.fetch.user_agent = "trawl-test/1 (+https://trawl.test/contact)".into();
    })
    .await;
    let recs = common::records(&job);
    let dns_recs: Vec<&common::Rec> = recs
        .iter()
        .filter(|r| r.get("WARC-Target-URI") == Some("dns:site.trawl.test"))
        .collect();
    assert_eq!(dns_recs.len(), 1, "one lookup within the TTL");
    let r = dns_recs[0];
    assert_eq!(r.get("WARC-Type"), Some("response"));
    assert_eq!(r.get("Content-Type"), Some("text/dns"));
    let block = String::from_utf8_lossy(&r.block);
    assert!(
        block
            .lines()
            .nth(1)
            .unwrap()
            .ends_with("300\tIN\tA\t127.0.0.1"),
        "{block}"
    );
    let log = common::crawl_log(&job);
    let line = log
        .iter()
        .find(|l| l.uri == "dns:site.trawl.test")
        .expect("a crawl.log line");
    assert_eq!(line.status, 1);
    assert!(line.hop_path.ends_with('P'));
    for host in ["site.trawl.test", "other.trawl.test"] {
        let line = log
            .iter()
            .find(|l| l.uri == format!("dns:{host}"))
            .unwrap_or_else(|| panic!("a crawl.log line for {host}"));
        let via = url::Url::parse(line.via.as_deref().expect("a via")).unwrap();
        assert_eq!(via.host_str(), Some(host), "{line:?}");
    }
    assert!(
        log.iter().filter(|l| l.status == 200).count() > 5,
        "the site was crawled by name"
    );
    for f in common::warc_files(&job) {
        trawl_warc::verify(&f).unwrap_or_else(|e| panic!("{e}"));
        common::warcio_check(&f);
    }
}

/// A vendored sample archive of another tool (crates/trawl-warc/testdata, see its README).
fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../trawl-warc/testdata")
        .join(name)
}

/// `trawl …` run to its end: exit status and standard output (standard error after it).
fn trawl_cli(args: &[&std::ffi::OsStr]) -> (bool, String) {
    common::run_trawl(args)
}

/// The HTTP body of a recorded response that is neither chunked nor compressed: the bytes after its head.
fn plain_body(http: &[u8]) -> Vec<u8> {
    let end = [&b"\r\n\r\n"[..], b"\n\n"]
        .iter()
        .filter_map(|sep| {
            http.windows(sep.len())
                .position(|w| w == *sep)
                .map(|p| p + sep.len())
        })
        .min()
        .unwrap();
    http[end..].to_vec()
}

/// ARC files of warcio and webarchive-commons through every archive command: listed, verified, indexed as
/// cdxj-indexer indexes them, converted to WARC 1.1 that trawl and warcio check, and replayed by pywb from the
/// converted WARCs. A damaged ARC and a WARC gzipped as one stream fail with the file, the offset and the fix;
/// wget 1.14's chunked payload digests are a note naming wget, a failure with --strict.
#[test]
fn arc_and_other_producers_archives_list_verify_index_convert_and_replay() {
    let dir = tempfile::tempdir().unwrap();
    let arcs = [
        ("warcio/example.arc", 2),
        ("warcio/example.arc.gz", 2),
        ("warcio/example-space-in-url.arc", 2),
        (
            "webarchive-commons/IAH-20080430204825-00000-blackbook-truncated.arc",
            9,
        ),
        ("warcio/bad.arc", 4),
    ];
    let indexer = common::py_tool("cdxj-indexer");
    let mut converted = Vec::new();
    for (name, records) in arcs {
        let arc = sample(name);
        let (ok, listed) = trawl_cli(&["warc".as_ref(), "ls".as_ref(), arc.as_os_str()]);
        assert!(ok, "{listed}");
        assert_eq!(listed.lines().count(), records, "{name}: {listed}");
        let (verified, said) = trawl_cli(&["warc".as_ref(), "verify".as_ref(), arc.as_os_str()]);
        let out = dir.path().join(format!(
            "{}.warc.gz",
            arc.file_name().unwrap().to_string_lossy()
        ));
        let (convert_ok, convert_said) = trawl_cli(&[
            "warc".as_ref(),
            "convert".as_ref(),
            arc.as_os_str(),
            out.as_os_str(),
        ]);
        match name {
            "warcio/bad.arc" => {
                // Damaged as warcio sees it: listed, then refused with the file, offset and problem.
                assert!(
                    !verified
                        && said.contains(
                            "bad.arc: record at offset 0: Archive-length \"-1\" is not a byte count"
                        ),
                    "{said}"
                );
                assert!(
                    !convert_ok
                        && convert_said.contains("bad.arc: record at offset 0: Archive-length"),
                    "{convert_said}"
                );
                assert!(!convert_said.contains("panicked"), "{convert_said}");
                continue;
            }
            "warcio/example-space-in-url.arc" => {
                // Its last record is 12 bytes short of its Archive-length: read as warcio reads it, said by verify.
                assert!(!verified && said.contains("record at offset 151: Archive-length says 1591 bytes, the file ends after 1579"), "{said}");
            }
            _ => assert!(
                verified && said.starts_with("ok ") && said.contains(" ARC records ("),
                "{said}"
            ),
        }
        assert!(convert_ok, "{name}: {convert_said}");
        common::warcio_check(&out);
        // The index is the reference indexer's, byte for byte.
        let (ok, said) = trawl_cli(&["warc".as_ref(), "index".as_ref(), arc.as_os_str()]);
        assert!(ok, "{said}");
        let (warnings, index): (Vec<&str>, Vec<&str>) = said
            .split_inclusive('\n')
            .partition(|l| l.starts_with("WARN "));
        let index = index.concat();
        // A record the file cuts short is named, as by convert (xt19a F4).
        if name == "warcio/example-space-in-url.arc" {
            assert!(
                warnings.len() == 1 && warnings[0].contains("at offset 151: the file ends before"),
                "{said}"
            );
        } else {
            assert!(warnings.is_empty(), "{said}");
        }
        if let Some(indexer) = &indexer
            && !name.starts_with("webarchive-commons/")
        {
            let reference = Command::new(indexer).arg("-s").arg(&arc).output().unwrap();
            assert_eq!(
                index,
                String::from_utf8(reference.stdout).unwrap(),
                "{name}"
            );
        }
        converted.push((name, out));
    }

    // Other producers' WARCs: a quirk is a note naming the producer; --strict fails it.
    let wget = sample("webarchive-commons/IAH-urls-wget.warc.gz");
    let (ok, said) = trawl_cli(&["warc".as_ref(), "verify".as_ref(), wget.as_os_str()]);
    assert!(
        ok && said.contains("note ") && said.contains("a known quirk of Wget/1.14 (darwin11.4.0)"),
        "{said}"
    );
    let (ok, said) = trawl_cli(&[
        "warc".as_ref(),
        "verify".as_ref(),
        "--strict".as_ref(),
        wget.as_os_str(),
    ]);
    assert!(
        !ok && said.contains("FAILED") && said.contains("a known quirk of Wget/1.14"),
        "{said}"
    );
    // One gzip stream for the whole file: records cannot be reached by offset; recompress mends it.
    let one_stream = sample("warcio/example-bad.warc.gz.bad");
    let (ok, said) = trawl_cli(&["warc".as_ref(), "verify".as_ref(), one_stream.as_os_str()]);
    assert!(
        !ok && said.contains("cannot be reached by offset for replay")
            && said.contains("trawl warc recompress"),
        "{said}"
    );
    // ls lists its records and says so too, as it says a file holding none (xt19a F10).
    let (ok, said) = trawl_cli(&["warc".as_ref(), "ls".as_ref(), one_stream.as_os_str()]);
    assert!(
        !ok && said.contains("cannot be reached by offset for replay")
            && said.lines().filter(|l| l.starts_with("0\t")).count() > 1,
        "{said}"
    );
    let empty = dir.path().join("empty.warc.gz");
    std::fs::write(&empty, b"").unwrap();
    let (ok, said) = trawl_cli(&["warc".as_ref(), "ls".as_ref(), empty.as_os_str()]);
    assert!(!ok && said.contains("holds no record"), "{said}");
    // So does index, which left it out silently (xt21b F3).
    let (ok, said) = trawl_cli(&["warc".as_ref(), "index".as_ref(), empty.as_os_str()]);
    assert!(!ok && said.contains("holds no record"), "{said}");
    let mended = dir.path().join("mended.warc.gz");
    let (ok, said) = trawl_cli(&[
        "warc".as_ref(),
        "recompress".as_ref(),
        one_stream.as_os_str(),
        mended.as_os_str(),
    ]);
    assert!(ok, "{said}");
    common::warcio_check(&mended);
    // WARC 1.0 to 1.1.
    let v11 = dir.path().join("wget-1.1.warc.gz");
    let (ok, said) = trawl_cli(&[
        "warc".as_ref(),
        "convert".as_ref(),
        wget.as_os_str(),
        v11.as_os_str(),
    ]);
    assert!(ok, "{said}");
    assert!(
        trawl_warc::open(&v11)
            .unwrap()
            .all(|r| r.unwrap().version == "WARC/1.1")
    );
    let (ok, said) = trawl_cli(&["warc".as_ref(), "verify".as_ref(), v11.as_os_str()]);
    assert!(ok, "{said}");

    // pywb replays the HTML of the converted ARCs, from trawl's index.
    let Some(wayback) = common::py_tool("wayback") else {
        return;
    };
    let manager = common::py_tool("wb-manager").expect("pywb's wb-manager beside wayback");
    let root = dir.path().join("pywb");
    std::fs::create_dir_all(&root).unwrap();
    let init = Command::new(&manager)
        .args(["init", "arcs"])
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    let coll = root.join("collections/arcs");
    for (_, warc) in &converted {
        std::fs::copy(warc, coll.join("archive").join(warc.file_name().unwrap())).unwrap();
    }
    let (ok, said) = trawl_cli(&[
        "warc".as_ref(),
        "index".as_ref(),
        coll.join("archive").as_os_str(),
        "-o".as_ref(),
        coll.join("indexes/index.cdxj").as_os_str(),
    ]);
    assert!(ok, "{said}");
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut server = Command::new(&wayback)
        .args(["-p", &port.to_string(), "-b", "127.0.0.1"])
        .current_dir(&root)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.path().join("pywb.log")).unwrap())
        .spawn()
        .unwrap();
    let client = common::reqwest_like::Client::new(port);
    let started = Instant::now();
    while client.get("/").is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "pywb did not start"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let pages = [
        ("warcio/example.arc", "http://example.com/"),
        (
            "warcio/example-space-in-url.arc",
            "http://example.com/index.cfm?FuseAction=Email&EmailTitle=Examples%20From%20The%20Live%20Web&IsPopUp=False",
        ),
        (
            "webarchive-commons/IAH-20080430204825-00000-blackbook-truncated.arc",
            "http://www.archive.org/index.php",
        ),
    ];
    for (name, url) in pages {
        let arc_record = trawl_warc::open(&sample(name))
            .unwrap()
            .map(Result::unwrap)
            .find(|r| {
                r.warc_header()
                    .iter()
                    .any(|(n, v)| n == "WARC-Target-URI" && v == url)
            })
            .unwrap_or_else(|| panic!("{name} holds {url}"));
        let stamp = arc_record.get("Archive-date").unwrap().to_owned();
        let got = client
            .get(&format!("/arcs/{stamp}id_/{url}"))
            .unwrap_or_else(|| {
                panic!(
                    "pywb has no capture of {url} at {stamp}:\n{}",
                    std::fs::read_to_string(dir.path().join("pywb.log")).unwrap_or_default()
                )
            });
        assert!(
            got == plain_body(&arc_record.block),
            "{url} replays other bytes"
        );
        assert!(String::from_utf8_lossy(&got).contains("<html"), "{url}");
    }
    let _ = server.kill();
    let _ = server.wait();
}

/// Outputs that cannot be made say why and leave nothing: an input with no record to recompress, a WACZ
/// into a folder that is not there, a job whose only WARC is still being written.
#[test]
fn archive_commands_name_what_is_wrong_and_leave_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.warc.gz");
    std::fs::write(&empty, b"").unwrap();
    let out = dir.path().join("out.warc.zst");
    let (ok, said) = trawl_cli(&[
        "warc".as_ref(),
        "recompress".as_ref(),
        empty.as_os_str(),
        out.as_os_str(),
    ]);
    assert!(!ok && said.contains("holds no records"), "{said}");
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["empty.warc.gz"]);
    let missing = dir.path().join("missing.arc");
    let (ok, said) = trawl_cli(&[
        "warc".as_ref(),
        "convert".as_ref(),
        missing.as_os_str(),
        out.as_os_str(),
    ]);
    assert!(
        !ok && said.contains("missing.arc: cannot read it"),
        "{said}"
    );

    // An output whose index would be another archive's (`X.warc.gz` and `X.warc.zst` share `X.cdxj`), or in
    // a folder that is not there.
    let arc = dir.path().join("x.arc.gz");
    std::fs::write(&arc, b"").unwrap();
    for (output, says) in [
        (dir.path().join("empty.warc.zst"), "the index of"),
        (dir.path().join("x.warc.gz"), "the index of"),
        (dir.path().join("nowhere/y.warc.gz"), "does not exist"),
    ] {
        let (ok, said) = trawl_cli(&[
            "warc".as_ref(),
            "recompress".as_ref(),
            empty.as_os_str(),
            output.as_os_str(),
        ]);
        assert!(!ok && said.contains(says), "{said}");
    }
    std::fs::remove_file(&arc).unwrap();

    // A job whose only WARC is open: being written (its crawl's pid file names a live process), or left by a
    // crawl that stopped abruptly.
    let job = dir.path().join("job");
    std::fs::create_dir_all(job.join("warcs")).unwrap();
    std::fs::create_dir_all(job.join("state")).unwrap();
    std::fs::write(job.join("crawl.toml"), "").unwrap();
    std::fs::write(job.join("warcs/x-00000.warc.gz.open"), b"").unwrap();
    let (ok, said) = trawl_cli(&["warc".as_ref(), "verify".as_ref(), job.as_os_str()]);
    assert!(
        !ok && said.contains("stopped abruptly") && said.contains("trawl resume"),
        "{said}"
    );
    let (ok, said) = trawl_cli(&[
        "wacz".as_ref(),
        job.as_os_str(),
        "-o".as_ref(),
        dir.path().join("j.wacz").as_os_str(),
    ]);
    assert!(!ok && said.contains("stopped abruptly"), "{said}");
    // A running crawl: its pid file, and the job held (xt26a N9: a pid file alone is a stale one).
    std::fs::write(job.join("state/crawl.pid"), std::process::id().to_string()).unwrap();
    let held = trawl_engine::job::Job::open(&job).unwrap().lock().unwrap();
    let (ok, said) = trawl_cli(&["warc".as_ref(), "verify".as_ref(), job.as_os_str()]);
    assert!(!ok && said.contains("still being written"), "{said}");
    drop(held);
    std::fs::remove_file(job.join("state/crawl.pid")).unwrap();
    let wacz = dir.path().join("missing/x.wacz");
    let (ok, said) = trawl_cli(&[
        "wacz".as_ref(),
        job.as_os_str(),
        "-o".as_ref(),
        wacz.as_os_str(),
    ]);
    assert!(!ok && said.contains("does not exist"), "{said}");
}

/// An ARC file of `(header line without its length, content)` records: plain, and one gzip member per record.
fn arc_file(records: &[(&str, &[u8])]) -> (Vec<u8>, Vec<u8>) {
    use std::io::Write;
    let (mut plain, mut gz) = (Vec::new(), Vec::new());
    for (line, content) in records {
        let mut record = format!("{line} {}\n", content.len()).into_bytes();
        record.extend_from_slice(content);
        record.push(b'\n');
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(&record).unwrap();
        gz.extend_from_slice(&e.finish().unwrap());
        plain.extend_from_slice(&record);
    }
    (plain, gz)
}

/// The `filename` of each line of an index as `trawl warc index` printed it (its standard output first).
fn filenames(index: &str) -> Vec<String> {
    let mut names: Vec<String> = index
        .lines()
        .filter_map(|l| l.split_once(" {"))
        .filter_map(|(_, json)| {
            let v: serde_json::Value = serde_json::from_str(&format!("{{{json}")).ok()?;
            Some(v["filename"].as_str()?.to_owned())
        })
        .collect();
    names.sort();
    names
}

/// `trawl warc index FOLDER` indexes every file on its own: `X.warc` beside `X.warc.gz` (which share the index
/// name `X.cdxj`) are each read, each line naming its own file; a `.arc.gz` cut short and ARCs padded with zero
/// bytes give the lines of their whole records and a warning, the other files' lines are all there, and the
/// exit status says a file was damaged. `convert` keeps the records before such damage (with a warning and a
/// failing status), but still refuses a plain ARC whose damage is not at its end, and an ARC whose
/// Archive-length swallows whole later records fails verify and convert and is warned about by index.
#[test]
fn a_folder_is_indexed_file_by_file_and_damaged_arcs_give_their_whole_records() {
    let dir = tempfile::tempdir().unwrap();
    let clash = dir.path().join("clash");
    std::fs::create_dir_all(&clash).unwrap();
    let warc = clash.join("x.warc");
    std::fs::copy(sample("warcio/example-iana.org-chunked.warc"), &warc).unwrap();
    // `X.cdxj` is the `.warc.gz`'s index, written beside it.
    trawl_warc::recompress(&warc, &clash.join("x.warc.gz")).unwrap();
    let per_file = trawl_warc::index_file(&warc, "x.warc").unwrap().len();
    assert!(per_file > 0);
    let (ok, index) = trawl_cli(&["warc".as_ref(), "index".as_ref(), clash.as_os_str()]);
    assert!(ok, "{index}");
    let mut want = vec!["x.warc".to_owned(); per_file];
    want.extend(vec!["x.warc.gz".to_owned(); per_file]);
    assert_eq!(filenames(&index), want, "{index}");

    let records: [(&str, &[u8]); 3] = [
        (
            "filedesc://a.arc 0.0.0.0 20080430204825 text/plain",
            b"1 0 Test\nURL IP-address Archive-date Content-type Archive-length\n",
        ),
        (
            "http://a.test/1 127.0.0.1 20080430204826 text/html",
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\nhello",
        ),
        (
            "http://a.test/2 127.0.0.1 20080430204827 text/html",
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\nworld",
        ),
    ];
    let (plain, gz) = arc_file(&records);
    let arcs = dir.path().join("arcs");
    std::fs::create_dir_all(&arcs).unwrap();
    std::fs::copy(sample("warcio/example.arc.gz"), arcs.join("good.arc.gz")).unwrap();
    let cut = arcs.join("cut.arc.gz");
    std::fs::write(&cut, &gz[..gz.len() - 15]).unwrap();
    let zeros = vec![0u8; 4096];
    std::fs::write(arcs.join("pad.arc.gz"), [&gz[..], &zeros].concat()).unwrap();
    let pad = arcs.join("pad.arc");
    std::fs::write(&pad, [&plain[..], &zeros].concat()).unwrap();
    let (ok, said) = trawl_cli(&["warc".as_ref(), "index".as_ref(), arcs.as_os_str()]);
    assert!(!ok, "a damaged file fails the command: {said}");
    assert_eq!(
        filenames(&said),
        [
            "cut.arc.gz",
            "good.arc.gz",
            "pad.arc",
            "pad.arc",
            "pad.arc.gz",
            "pad.arc.gz"
        ],
        "{said}"
    );
    assert!(
        said.contains("cut.arc.gz: record at offset ")
            && said.contains("the index holds the file's 1 line before it"),
        "{said}"
    );
    assert!(
        said.contains("pad.arc: ") && said.contains("3 damaged files"),
        "{said}"
    );

    // convert: the whole records before the damage, a warning, a failing status.
    for (input, records) in [(&cut, 2), (&pad, 3)] {
        let out = dir.path().join(format!(
            "{}.warc.gz",
            input.file_name().unwrap().to_string_lossy()
        ));
        let (ok, said) = trawl_cli(&[
            "warc".as_ref(),
            "convert".as_ref(),
            input.as_os_str(),
            out.as_os_str(),
        ]);
        assert!(!ok && said.contains("WARN "), "{said}");
        assert!(
            said.contains(&format!("holds the {records} records before it")),
            "{said}"
        );
        let (ok, verified) = trawl_cli(&["warc".as_ref(), "verify".as_ref(), out.as_os_str()]);
        assert!(ok, "{verified}");
        assert_eq!(trawl_warc::open(&out).unwrap().count(), records);
    }
    // A plain ARC whose first response is 3 bytes longer than its length says: the record before the damage
    // may be what is wrong, so nothing is written.
    let short = dir.path().join("short.arc");
    let lied =
        String::from_utf8(plain.clone())
            .unwrap()
            .replacen("text/html 49\n", "text/html 46\n", 1);
    assert_ne!(lied.as_bytes(), plain, "the length was changed");
    std::fs::write(&short, lied).unwrap();
    let out = dir.path().join("short.warc.gz");
    let (ok, said) = trawl_cli(&[
        "warc".as_ref(),
        "convert".as_ref(),
        short.as_os_str(),
        out.as_os_str(),
    ]);
    assert!(!ok && !out.exists(), "{said}");
    // Nor is that record indexed: only the filedesc, whose next header line is where its length says.
    let (ok, said) = trawl_cli(&["warc".as_ref(), "index".as_ref(), short.as_os_str()]);
    assert!(
        !ok && filenames(&said).is_empty()
            && said.contains("nor for the record at offset 120 just before it, whose Archive-length may be what is wrong"),
        "{said}"
    );

    // An Archive-length that takes in the whole record after it, ending on a record boundary.
    let swallow = dir.path().join("swallow.arc");
    let (content, (line, next)) = (records[1].1, records[2]);
    let next = format!("{line} {}\n", next.len()).len() + next.len();
    let swallowed = String::from_utf8(plain.clone()).unwrap().replacen(
        &format!("text/html {}\n", content.len()),
        &format!("text/html {}\n", content.len() + 1 + next),
        1,
    );
    std::fs::write(&swallow, &swallowed).unwrap();
    let (ok, said) = trawl_cli(&["warc".as_ref(), "verify".as_ref(), swallow.as_os_str()]);
    assert!(
        !ok && said.contains("swallows the records after it"),
        "{said}\n{swallowed}"
    );
    let out = dir.path().join("swallow.warc.gz");
    let (ok, said) = trawl_cli(&[
        "warc".as_ref(),
        "convert".as_ref(),
        swallow.as_os_str(),
        out.as_os_str(),
    ]);
    assert!(!ok && !out.exists(), "{said}");
    let (ok, said) = trawl_cli(&["warc".as_ref(), "index".as_ref(), swallow.as_os_str()]);
    assert!(
        !ok && said.contains("takes in whole later records") && filenames(&said) == ["swallow.arc"],
        "{said}"
    );
}

/// `trawl warc convert` writes an ARC whose records verify fails for their fields or for a content without an
/// HTTP head (an HTTP/0.9 answer) whole: such a record is repaired, and named on stderr with its offset.
#[test]
fn convert_repairs_and_names_arc_records_with_flaws() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, _) = arc_file(&[
        (
            "filedesc://old.arc 0.0.0.0 19970130204825 text/plain",
            b"1 0 Alexa\nURL IP-address Archive-date Content-type Archive-length\n",
        ),
        (
            "http://a.test/old 127.0.0.1 19970130204826 no-type",
            b"<html>just a body</html>",
        ),
        (
            "http://a.test/new - 199701302048 text/html",
            b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\nhello",
        ),
    ]);
    let input = dir.path().join("old.arc");
    std::fs::write(&input, &plain).unwrap();
    let out = dir.path().join("new.warc.gz");
    let (ok, said) = trawl_cli(&[
        "warc".as_ref(),
        "convert".as_ref(),
        input.as_os_str(),
        out.as_os_str(),
    ]);
    assert!(ok, "{said}");
    let old_at = plain
        .windows(17)
        .position(|w| w == b"http://a.test/old")
        .unwrap();
    let new_at = plain
        .windows(17)
        .position(|w| w == b"http://a.test/new")
        .unwrap();
    for want in [
        format!(
            "WARN {}: record at offset {old_at} (http://a.test/old): the content of an http record does not \
             begin with an HTTP response head: written as a resource record",
            input.display()
        ),
        format!(
            "WARN {}: record at offset {new_at} (http://a.test/new): Archive-date \"199701302048\" is not a time \
             of 14 digits YYYYMMDDhhmmss: WARC-Date 1997-01-30T20:48:59Z, as warcio reads it; IP-address \"-\" is \
             not an IP address: WARC-IP-Address left out",
            input.display()
        ),
    ] {
        assert!(said.contains(&want), "{said}");
    }
    let (ok, verified) = trawl_cli(&["warc".as_ref(), "verify".as_ref(), out.as_os_str()]);
    assert!(ok, "{verified}");
    let types: Vec<String> = trawl_warc::open(&out)
        .unwrap()
        .map(|r| r.unwrap().get("WARC-Type").unwrap_or_default().to_owned())
        .collect();
    assert_eq!(types, ["warcinfo", "resource", "response"]);
}

/// A job folder as a crawl leaves it (`crawl.toml`, `state/`, `warcs/`), with `files` WARCs of a few responses
/// each written by trawl's writer, each with its `.cdxj` beside it; the WARCs, by name.
fn written_job(job: &Path, files: usize, compression: trawl_warc::Compression) -> Vec<PathBuf> {
    std::fs::create_dir_all(job.join("state")).unwrap();
    std::fs::write(job.join("crawl.toml"), "").unwrap();
    let date = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap();
    let mut warcs = Vec::new();
    for file in 0..files {
        let mut cfg = trawl_warc::WriterConfig::new(job.join("warcs"), format!("j{file}"), "h");
        cfg.compression = compression;
        let mut w = trawl_warc::Writer::new(cfg).unwrap();
        for page in ["a", "b", "c"] {
            let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{file}{page}");
            let url = format!("http://example.org/{file}/{page}");
            w.write(&[trawl_warc::Record::response(
                &url,
                date,
                None,
                http.into_bytes(),
            )])
            .unwrap();
        }
        warcs.extend(w.close().unwrap());
    }
    warcs.sort();
    warcs
}

/// `trawl warc verify` of a job compares each WARC's `.cdxj` with the index of its records: an index left from
/// another file (a WARC recompressed in place), a wrong offset or a missing index fail, naming the `.cdxj`, the
/// first difference and the command that mends it, which mends it; `trawl warc index` does not use an index
/// whose lines name another file, but reads the WARC, warning. A folder of another producer's WARCs needs no
/// index.
#[test]
fn verify_and_index_of_a_job_check_the_index_beside_each_warc() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job");
    let warcs = written_job(&job, 2, trawl_warc::Compression::Gzip);
    let verify = || trawl_cli(&["warc".as_ref(), "verify".as_ref(), job.as_os_str()]);
    let (ok, said) = verify();
    assert!(ok, "{said}");

    // The first WARC recompressed to zstd in its place, its old index kept.
    let gz = &warcs[0];
    let zst = gz.with_file_name(
        gz.file_name()
            .unwrap()
            .to_string_lossy()
            .replace(".warc.gz", ".warc.zst"),
    );
    let aside = dir.path().join("aside");
    std::fs::create_dir_all(&aside).unwrap();
    let moved = aside.join(zst.file_name().unwrap());
    let (ok, said) = trawl_cli(&[
        "warc".as_ref(),
        "recompress".as_ref(),
        gz.as_os_str(),
        moved.as_os_str(),
    ]);
    assert!(ok, "{said}");
    std::fs::rename(&moved, &zst).unwrap();
    std::fs::remove_file(gz).unwrap();
    let cdxj = trawl_warc::index_path(&zst);
    let gz_name = gz.file_name().unwrap().to_string_lossy().into_owned();
    let zst_name = zst.file_name().unwrap().to_string_lossy().into_owned();
    let (ok, said) = verify();
    let want = format!(
        "FAILED {}: not the index of {zst_name} beside it: line 1: ",
        cdxj.display()
    );
    assert!(!ok && said.contains(&want), "{said}");
    assert!(
        said.contains(&format!(
            "filename \"{gz_name}\" where the WARC gives \"{zst_name}\""
        )) && said.contains(&format!(
            "`trawl warc index {} -o {}` writes it anew",
            zst.display(),
            cdxj.display()
        )),
        "{said}"
    );
    // `warc index` reads the WARC instead: every line names a file that is there.
    let (ok, said) = trawl_cli(&["warc".as_ref(), "index".as_ref(), job.as_os_str()]);
    assert!(ok, "{said}");
    assert!(
        said.contains(&format!(
            "WARN {}: line 1 names the file {gz_name}, not the WARC {zst_name} beside it",
            cdxj.display()
        )),
        "{said}"
    );
    let names = filenames(&said);
    assert_eq!(names.len(), 6, "{said}");
    assert_eq!(
        names.iter().filter(|n| **n == zst_name).count(),
        3,
        "{said}"
    );
    assert!(!names.contains(&gz_name), "{said}");
    // The command the failure names mends it.
    let (ok, said) = trawl_cli(&[
        "warc".as_ref(),
        "index".as_ref(),
        zst.as_os_str(),
        "-o".as_ref(),
        cdxj.as_os_str(),
    ]);
    assert!(ok, "{said}");
    let (ok, said) = verify();
    assert!(ok, "{said}");

    // An offset off by 7 in the second WARC's index.
    let other = trawl_warc::index_path(&warcs[1]);
    let text = std::fs::read_to_string(&other).unwrap();
    let line = text.lines().next().unwrap();
    let json: serde_json::Value =
        serde_json::from_str(line.splitn(3, ' ').nth(2).unwrap()).unwrap();
    let offset = json["offset"].as_str().unwrap();
    let wrong: u64 = offset.parse::<u64>().unwrap() + 7;
    std::fs::write(
        &other,
        text.replacen(
            &format!("\"offset\": \"{offset}\""),
            &format!("\"offset\": \"{wrong}\""),
            1,
        ),
    )
    .unwrap();
    let (ok, said) = verify();
    assert!(
        !ok && said.contains(&format!(
            "offset \"{wrong}\" where the WARC gives \"{offset}\""
        )),
        "{said}"
    );
    // No index at all.
    std::fs::remove_file(&other).unwrap();
    let (ok, said) = verify();
    assert!(
        !ok && said.contains(&format!("FAILED {}: missing: ", other.display())),
        "{said}"
    );

    // Another producer's WARCs in a folder, without indexes: nothing to compare.
    let folder = dir.path().join("wget");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(
        sample("webarchive-commons/IAH-urls-wget.warc.gz"),
        folder.join("IAH-urls-wget.warc.gz"),
    )
    .unwrap();
    let (ok, said) = trawl_cli(&["warc".as_ref(), "verify".as_ref(), folder.as_os_str()]);
    assert!(ok && !said.contains("FAILED"), "{said}");
}

/// A WARC still open beside closed ones (a crawl killed, or one running) is left out of `trawl warc verify`,
/// `trawl warc index` and `trawl wacz` with a warning naming it and what closes it; the exit status stays 0.
#[test]
fn archive_commands_name_the_open_warcs_they_leave_out() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job");
    let warcs = written_job(&job, 2, trawl_warc::Compression::Gzip);
    // The second as a kill -9 leaves it: open, without its index.
    let open = PathBuf::from(format!("{}.open", warcs[1].display()));
    std::fs::rename(&warcs[1], &open).unwrap();
    std::fs::remove_file(trawl_warc::index_path(&warcs[1])).unwrap();
    let left_out = format!("left out: {}, a WARC file still open", open.display());
    let resume = format!("`trawl resume {}` repairs and closes it", job.display());
    let wacz = dir.path().join("j.wacz");
    for args in [
        vec!["warc".as_ref(), "verify".as_ref(), job.as_os_str()],
        vec!["warc".as_ref(), "index".as_ref(), job.as_os_str()],
        vec![
            "wacz".as_ref(),
            job.as_os_str(),
            "-o".as_ref(),
            wacz.as_os_str(),
        ],
    ] {
        let (ok, said) = trawl_cli(&args);
        assert!(
            ok && said.contains(&format!("WARN {left_out}")) && said.contains(&resume),
            "{args:?}: {said}"
        );
    }
    // A running crawl's (its pid file, and the job held): it is writing it.
    std::fs::write(job.join("state/crawl.pid"), std::process::id().to_string()).unwrap();
    let _held = trawl_engine::job::Job::open(&job).unwrap().lock().unwrap();
    let (ok, said) = trawl_cli(&["warc".as_ref(), "verify".as_ref(), job.as_os_str()]);
    assert!(
        ok && said.contains(&left_out) && said.contains("the running crawl is writing it"),
        "{said}"
    );
}

/// A trawl WARC holding its records twice fails `trawl warc verify`, saying it holds a copy of part of itself
/// (gzip and zstd), where a record id given twice is a note of wget 1.14; a WARC gzipped as one stream is
/// failed naming the member and its second record.
#[test]
fn verify_fails_a_trawl_warc_holding_its_records_twice_and_names_a_shared_member() {
    let dir = tempfile::tempdir().unwrap();
    for compression in [trawl_warc::Compression::Gzip, trawl_warc::Compression::Zstd] {
        let job = dir.path().join(format!("{compression:?}"));
        let warc = written_job(&job, 1, compression).remove(0);
        let once = std::fs::read(&warc).unwrap();
        let dup = dir.path().join(format!(
            "dup-{}",
            warc.file_name().unwrap().to_string_lossy()
        ));
        std::fs::write(&dup, [once.clone(), once.clone()].concat()).unwrap();
        let (ok, said) = trawl_cli(&["warc".as_ref(), "verify".as_ref(), dup.as_os_str()]);
        let half = once.len();
        assert!(
            !ok && said.contains(&format!(
                "FAILED {}: record at offset {half} (urn:uuid:",
                dup.display()
            )) && said.contains(&format!(
                "records from offset {half} to the end of the file (4) repeat records of the file from offset 0 on"
            )) && said.contains("it holds a copy of part of itself")
                && !said.contains("known quirk"),
            "{said}"
        );
        // recompress and convert write both copies, saying so, with exit status 1 (xt28b F3).
        for command in ["recompress", "convert"] {
            let out = dir
                .path()
                .join(format!("{command}-{compression:?}.warc.gz"));
            let (ok, said) = trawl_cli(&[
                "warc".as_ref(),
                command.as_ref(),
                dup.as_os_str(),
                out.as_os_str(),
            ]);
            assert!(
                !ok && said.contains(&format!(
                    "WARN {} at offset {half}: the record repeats the record at offset 0",
                    dup.display()
                )) && said.contains("holds both copies"),
                "{command}: {said}"
            );
        }
    }
    // One gzip stream: the member is named, then its second record, by id and place.
    let job = dir.path().join("one");
    let warc = written_job(&job, 1, trawl_warc::Compression::None).remove(0);
    let records: Vec<_> = trawl_warc::open(&warc)
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &std::fs::read(&warc).unwrap()).unwrap();
    let one = dir.path().join("one.warc.gz");
    std::fs::write(&one, gz.finish().unwrap()).unwrap();
    let id = records[1]
        .get("WARC-Record-ID")
        .unwrap()
        .trim_matches(['<', '>']);
    let want = format!(
        "{}: the gzip member at offset 0 holds more than one record (the second, {id}, at byte {} of its content): \
         records compressed together",
        one.display(),
        records[1].offset
    );
    let (ok, said) = trawl_cli(&["warc".as_ref(), "verify".as_ref(), one.as_os_str()]);
    assert!(!ok && said.contains(&format!("FAILED {want}")), "{said}");
    let (ok, said) = trawl_cli(&["warc".as_ref(), "index".as_ref(), one.as_os_str()]);
    assert!(!ok && said.contains(&format!("WARN {want}")), "{said}");
}

/// `trawl warc COMMAND INPUT DIR/COMMAND.warc.gz` (`convert` or `recompress`): the output, and how it ended.
fn rewritten(dir: &Path, command: &str, input: &Path) -> (PathBuf, bool, String) {
    let out = dir.join(format!("{command}.warc.gz"));
    let (ok, said) = trawl_cli(&[
        "warc".as_ref(),
        command.as_ref(),
        input.as_os_str(),
        out.as_os_str(),
    ]);
    (out, ok, said)
}

/// xt30a F3: a record whose only damage is its Content-Length, its gzip member whole, is kept by every tool as
/// the member frames it (as warcio and cdxj-indexer keep it): indexed and listed with a warning, failed by
/// verify naming the length, written by convert and recompress with the length mended. xt32b F4: so is a record
/// whose member lacks part of the CRLF CRLF ending it, its length right and its digest matching: written whole.
#[test]
fn a_record_its_member_ends_otherwise_is_kept_by_every_tool_and_mended() {
    let dir = tempfile::tempdir().unwrap();
    let warc = written_job(&dir.path().join("job"), 1, trawl_warc::Compression::Gzip).remove(0);
    let records: Vec<trawl_warc::ReadRecord> = trawl_warc::open(&warc)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let target = &records[2];
    let has = target.block.len();
    let raw = String::from_utf8(target.raw_header.clone()).unwrap();
    let wrong = raw.replace(
        &format!("Content-Length: {has}\r\n"),
        &format!("Content-Length: {}\r\n", has + 7),
    );
    assert_ne!(raw, wrong);
    let at = format!("at offset {}: ", target.offset);
    let too_long = (
        format!(
            "{at}Content-Length says {} bytes, its gzip member holds a block of {has} and the CRLF CRLF ending \
             the record: the length is wrong, the record whole (its WARC-Block-Digest matches); read as the gzip \
             member frames it: its index line is for the record as its member frames it (`trawl warc verify` \
             fails the record; `trawl warc recompress` writes it with Content-Length: {has})",
            has + 7
        ),
        "the length is wrong, the record whole",
        format!("written with Content-Length: {has}"),
    );
    framed_member_is_kept(
        &dir.path().join("too-long"),
        &warc,
        &[wrong.as_bytes(), &target.block, b"\r\n\r\n"].concat(),
        too_long,
    );
    let short_end = (
        format!(
            "{at}its gzip member holds the block of {has} bytes its Content-Length says, whole (its \
             WARC-Block-Digest matches), and only 2 of the 4 bytes of the CRLF CRLF ending the record: read as \
             its Content-Length says: its index line is for the record as its length says (`trawl warc verify` \
             fails the record; `trawl warc recompress` writes it with its CRLF CRLF whole)"
        ),
        "and only 2 of the 4 bytes of the CRLF CRLF ending the record",
        "written with its CRLF CRLF whole".to_owned(),
    );
    framed_member_is_kept(
        &dir.path().join("short-end"),
        &warc,
        &[raw.as_bytes(), &target.block, b"\r\n"].concat(),
        short_end,
    );
}

/// Writes `warc` with its third record's member holding `member` (one gzip member), and checks what every tool
/// makes of it: `index` keeps it warning `framed` (`ls` the same, but of the index line), `verify` fails it saying `failed`, `convert` and
/// `recompress` write the record as it was in `warc`, saying `written`.
fn framed_member_is_kept(
    dir: &Path,
    warc: &Path,
    member: &[u8],
    (framed, failed, written): (String, &str, String),
) {
    std::fs::create_dir_all(dir).unwrap();
    let records: Vec<trawl_warc::ReadRecord> = trawl_warc::open(warc)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let whole = std::fs::read(warc).unwrap();
    let target = &records[2];
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, member).unwrap();
    let end = (target.offset + target.len) as usize;
    let bad = dir.join("bad.warc.gz");
    std::fs::write(
        &bad,
        [
            &whole[..target.offset as usize],
            &gz.finish().unwrap(),
            &whole[end..],
        ]
        .concat(),
    )
    .unwrap();

    // `ls` says what `index` says but of the index line.
    let listed = framed.split(": its index line").next().unwrap();
    let (ok, said) = trawl_cli(&["warc".as_ref(), "ls".as_ref(), bad.as_os_str()]);
    assert!(ok && said.contains(listed), "{said}");
    assert_eq!(
        said.lines().filter(|l| l.contains('\t')).count(),
        records.len(),
        "{said}"
    );
    let (ok, said) = trawl_cli(&["warc".as_ref(), "index".as_ref(), bad.as_os_str()]);
    assert!(ok && said.contains(&framed), "{said}");
    assert_eq!(
        said.lines()
            .filter(|l| l.starts_with("org,example)/"))
            .count(),
        3,
        "{said}"
    );
    let (ok, said) = trawl_cli(&["warc".as_ref(), "verify".as_ref(), bad.as_os_str()]);
    assert!(!ok && said.contains(failed), "{said}");
    for command in ["convert", "recompress"] {
        let (out, ok, said) = rewritten(dir, command, &bad);
        assert!(ok && said.contains(&written), "{command}: {said}");
        let summary = trawl_warc::verify(&out).unwrap();
        assert_eq!(summary.records, records.len(), "{command}");
        let again: Vec<trawl_warc::ReadRecord> = trawl_warc::open(&out)
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(again[2].block, target.block, "{command}");
        assert_eq!(again[2].raw_header, target.raw_header, "{command}");
    }
}

/// xt27b F4: one damaged gzip member costs its record alone: `ls` lists the records after it, `index` gives their
/// lines, `convert` and `recompress` write them, each naming the damage and where it read on, with exit status
/// 1; `verify` fails the file at the damage and names the first whole record after it. A file whose members
/// were merged lists every record and says that, not that the listing lacks some (xt29a).
#[test]
fn a_damaged_member_costs_only_its_record_in_every_tool() {
    let dir = tempfile::tempdir().unwrap();
    let warc = written_job(&dir.path().join("job"), 1, trawl_warc::Compression::Gzip).remove(0);
    let offsets: Vec<u64> = trawl_warc::open(&warc)
        .unwrap()
        .map(|r| r.unwrap().offset)
        .collect();
    let whole = std::fs::read(&warc).unwrap();
    let mut damaged = whole.clone();
    damaged[offsets[2] as usize + 20] ^= 0x10;
    let bad = dir.path().join("bad.warc.gz");
    std::fs::write(&bad, &damaged).unwrap();
    let read_on = format!(
        "bad.warc.gz: record at offset {}: bad gzip member: corrupt deflate stream; read on at offset {}, where \
         the first whole record after it begins",
        offsets[2], offsets[3]
    );

    let (ok, said) = trawl_cli(&["warc".as_ref(), "ls".as_ref(), bad.as_os_str()]);
    let listed: Vec<&str> = said.lines().filter_map(|l| l.split('\t').nth(2)).collect();
    assert!(!ok && said.contains(&read_on), "{said}");
    assert_eq!(
        listed,
        ["-", "http://example.org/0/a", "http://example.org/0/c"],
        "{said}"
    );
    assert!(said.contains("1 file damaged inside"), "{said}");

    let (ok, said) = trawl_cli(&["warc".as_ref(), "index".as_ref(), bad.as_os_str()]);
    assert!(
        !ok && said.contains(&format!("WARN {}", bad.display())),
        "{said}"
    );
    assert!(said.contains(&read_on), "{said}");
    let urls: Vec<&str> = said
        .lines()
        .filter(|l| l.starts_with("org,example)/"))
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(urls, ["org,example)/0/a", "org,example)/0/c"], "{said}");

    for command in ["convert", "recompress"] {
        let (out, ok, said) = rewritten(dir.path(), command, &bad);
        assert!(!ok && said.contains(&read_on), "{command}: {said}");
        assert!(said.contains("3 records"), "{command}: {said}");
        let summary = trawl_warc::verify(&out).unwrap();
        assert_eq!(summary.records, 3, "{command}");
    }

    let (ok, said) = trawl_cli(&["warc".as_ref(), "verify".as_ref(), bad.as_os_str()]);
    assert!(
        !ok && said.contains(&format!(
            "the first whole record after it begins at offset {}",
            offsets[3]
        )),
        "{said}"
    );

    // Members 2 and 3 merged into one: every record listed, and said to be compressed together.
    let member = |i: usize| {
        let end = offsets.get(i + 1).map_or(whole.len(), |&o| o as usize);
        let mut plain = Vec::new();
        std::io::Read::read_to_end(
            &mut flate2::read::GzDecoder::new(&whole[offsets[i] as usize..end]),
            &mut plain,
        )
        .unwrap();
        plain
    };
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &[member(2), member(3)].concat()).unwrap();
    let merged = dir.path().join("merged.warc.gz");
    std::fs::write(
        &merged,
        [&whole[..offsets[2] as usize], &gz.finish().unwrap()].concat(),
    )
    .unwrap();
    let (ok, said) = trawl_cli(&["warc".as_ref(), "ls".as_ref(), merged.as_os_str()]);
    assert!(!ok, "{said}");
    assert_eq!(
        said.lines().filter(|l| l.contains('\t')).count(),
        4,
        "{said}"
    );
    assert!(
        said.contains("1 file with records compressed together: each is listed")
            && !said.contains("lacks"),
        "{said}"
    );
}

/// `warc.write_requests = false` and `warc.write_metadata = false` (Heritrix's `writeRequests`,
/// `writeMetadata`) leave out those records: each fetch is its response alone, the archive verifies and its
/// index is as cdxj-indexer's (the index holds responses only in any case).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_and_metadata_records_may_be_left_out() {
    let site = trawl::selftest::site::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let settings = "[warc]\nwrite_requests = false\nwrite_metadata = false\n";
    let cfg = config(dir.path(), "r", &site.seed(), settings);
    let job = dir.path().join("job");
    common::crawl_quickly(&cfg, &job).await;
    let recs = common::records(&job);
    let mut types: Vec<&str> = recs.iter().filter_map(|r| r.get("WARC-Type")).collect();
    types.sort_unstable();
    types.dedup();
    assert_eq!(types, ["response", "warcinfo"], "{types:?}");
    assert!(captures(&job).len() > 10);
    let verified = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(["warc".as_ref(), "verify".as_ref(), job.as_os_str()])
        .output()
        .unwrap();
    assert!(
        verified.status.success(),
        "{}",
        String::from_utf8_lossy(&verified.stdout)
    );
}

/// A POST's JSON body is keyed exactly as the pinned reference (cdxj-indexer's `query_extract`, which reads it
/// with Python's `json`) keys it: numbers of every spelling (`-0`, 17-digit floats, `1e20`, integers past 64
/// bits, `NaN`, `Infinity`, `1e400`), a BOM, UTF-16 and UTF-32, escapes, JSON lines, and what Python refuses
/// (review 84 R5).
#[test]
fn json_request_bodies_are_keyed_as_python_reads_them() {
    let Some(python) = common::py_tool("python") else {
        return;
    };
    let mut bodies: Vec<Vec<u8>> = [
        r#"{"n": -0}"#,
        r#"{"n": -0.0}"#,
        r#"{"n": 0.1, "m": 223221110.21323866, "o": 1.3436424411240121e-09}"#,
        r#"{"n": -10000000000000000000, "m": 18446744073709551616, "o": -9223372036854775809}"#,
        r#"{"n": 1e20, "m": 2e19, "o": 1E400, "p": -1e400, "q": 5e-324, "r": 1.7976931348623157e308}"#,
        r#"{"n": NaN, "m": Infinity, "o": -Infinity}"#,
        r#"{"n": 12345678901234567890123456789, "m": 1.0, "o": 100, "p": 1e-7, "q": 1.5E+3}"#,
        r#"{"n": 01}"#,
        r#"{"n": 1.}"#,
        r#"{"n": -}"#,
        r#"{"n": 1e}"#,
        r#"{"n": .5}"#,
        r#"{"a\u00e9": "x\ud83d\ude00y\n\t\"\\\/\b\f"}"#,
        r#"{"a": "\ud800"}"#,
        r#"{"a": "\udc00x"}"#,
        "{\"a\": \"tab\tinside\"}",
        "{\"a\":1}\n{\"a\":2}",
        "{\"a\":1}\n{\"a\":2}\n",
        "\t{ \"a\" : [ 1 , 2 , {\"b\": [true, false, null]} ] }\r\n",
        "5",
        "",
        " ",
        "[1, 2]",
        r#"{"a": 1, "a": {"b": 2}, "b": 3, "b.2_": 4}"#,
        r#"{"a": [1, 2,]}"#,
        r#"{"a": 1,}"#,
        r#"{"a" 1}"#,
        r#"{'a': 1}"#,
        r#"{"a": 1} x"#,
        r#"{"a": tru}"#,
        r#"{"a": nan}"#,
        r#"{"a": -Infinity, "b": -NaN}"#,
        r#"{"é": "ü", "emoji 😀": "x y+z&w=v%"}"#,
    ]
    .iter()
    .map(|b| b.as_bytes().to_vec())
    .collect();
    // Nesting, an integer at and past Python's 4,300 digits, a long body.
    bodies.push(format!("{}{{\"d\": 1}}{}", "[".repeat(60), "]".repeat(60)).into_bytes());
    bodies.push(format!("{{\"n\": {}}}", "7".repeat(4300)).into_bytes());
    bodies.push(format!("{{\"n\": -{}}}", "7".repeat(4301)).into_bytes());
    bodies.push(format!("{{\"q\": [{}]}}", "1.25,".repeat(2000) + "0").into_bytes());
    // Encodings json.loads(bytes) detects.
    let utf16 = |text: &str, be: bool, bom: bool| {
        let mut out = Vec::new();
        if bom {
            out.extend_from_slice(if be { &[0xFE, 0xFF] } else { &[0xFF, 0xFE] });
        }
        for u in text.encode_utf16() {
            out.extend_from_slice(&if be { u.to_be_bytes() } else { u.to_le_bytes() });
        }
        out
    };
    let utf32 = |text: &str, be: bool, bom: bool| {
        let mut out = Vec::new();
        if bom {
            out.extend_from_slice(if be {
                &[0, 0, 0xFE, 0xFF]
            } else {
                &[0xFF, 0xFE, 0, 0]
            });
        }
        for c in text.chars() {
            let n = c as u32;
            out.extend_from_slice(&if be { n.to_be_bytes() } else { n.to_le_bytes() });
        }
        out
    };
    let doc = r#"{"k": "vé😀", "n": 2.5}"#;
    for be in [true, false] {
        for bom in [true, false] {
            bodies.push(utf16(doc, be, bom));
            bodies.push(utf32(doc, be, bom));
        }
    }
    bodies.push(utf16("5", true, false));
    bodies.push(b"\xEF\xBB\xBF{\"n\": 1}".to_vec());
    bodies.push(b"\xEF\xBB\xBF\xEF\xBB\xBF{\"n\": 1}".to_vec());
    bodies.push(b"{\"n\": \"\xED\xA0\x80\"}".to_vec());
    bodies.push(b"{\"n\": \"\xFF\"}".to_vec());
    // Floats written with 17 significant digits, where a reader that rounds twice is one ULP off.
    let mut x = 0x9E37_79B9_7F4A_7C15_u64;
    let mut floats = Vec::new();
    while floats.len() < 300 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let v = f64::from_bits(x);
        if v.is_finite() {
            floats.push(format!("{v:.16e}"));
        }
    }
    bodies.push(format!("{{\"f\": [{}]}}", floats.join(", ")).into_bytes());

    let script = "import sys, io, json\n\
                  from cdxj_indexer.postquery import query_extract\n\
                  for line in sys.stdin:\n    \
                      body = bytes.fromhex(line.strip())\n    \
                      q = query_extract('application/json', len(body), io.BytesIO(body), 'http://a.example/x')\n    \
                      print(json.dumps(q))\n";
    let theirs = reference_queries(&python, script, &bodies);
    assert_eq!(theirs.len(), bodies.len(), "one answer per body");
    for (body, theirs) in bodies.iter().zip(theirs) {
        let mut block = format!(
            "POST /x HTTP/1.1\r\nHost: a.example\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        block.extend_from_slice(body);
        let ours = trawl_warc::cdxj::request_body::query(&block);
        assert_eq!(
            ours,
            theirs,
            "the body {:?}",
            String::from_utf8_lossy(&body[..body.len().min(200)])
        );
    }
}

/// A POST's body sent chunked or compressed is keyed as the reference keys it, which reads it through
/// warcio's `content_stream()`: chunks joined, the coding undone, `Content-Length` bytes of what came out
/// (review 84 R6: trawl keyed the bytes as sent).
#[test]
fn chunked_and_compressed_request_bodies_are_keyed_as_warcio_reads_them() {
    use std::io::Write;
    let Some(python) = common::py_tool("python") else {
        return;
    };
    let json = br#"{"a": 1, "b": [2, 3]}"#;
    let gzip = {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(json).unwrap();
        e.finish().unwrap()
    };
    let zlib = {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(json).unwrap();
        e.finish().unwrap()
    };
    let raw_deflate = {
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(json).unwrap();
        e.finish().unwrap()
    };
    // brotli's own answer for `json` (Python's brotli.compress).
    let br: &[u8] = &[
        11, 10, 128, 123, 34, 97, 34, 58, 32, 49, 44, 32, 34, 98, 34, 58, 32, 91, 50, 44, 32, 51,
        93, 125, 3,
    ];
    let request = |ctype: &str, fields: &str, body: &[u8]| {
        let mut r = format!(
            "POST /x HTTP/1.1\r\nHost: a.example\r\nContent-Type: {ctype}\r\nSec-Fetch-Mode: cors\r\n{fields}\r\n"
        )
        .into_bytes();
        r.extend_from_slice(body);
        r
    };
    let length = |b: &[u8]| format!("Content-Length: {}\r\n", b.len());
    let chunked = b"4\r\n{\"a\"\r\n7;ext=1\r\n: 1, \"b\r\na\r\n\": [2, 3]}\r\n0\r\n\r\n";
    let blocks = vec![
        request(
            "application/json",
            "Transfer-Encoding: chunked\r\n",
            chunked,
        ),
        request(
            "application/json",
            "Transfer-Encoding: chunked\r\n",
            &chunked[..20],
        ),
        request("application/json", "Transfer-Encoding: chunked\r\n", json),
        request(
            "application/json",
            "Transfer-Encoding: Chunked\r\n",
            chunked,
        ),
        request(
            "application/json",
            &format!("Content-Encoding: gzip\r\n{}", length(&gzip)),
            &gzip,
        ),
        request("application/json", "Content-Encoding: GZIP\r\n", &gzip),
        request(
            "application/json",
            "Content-Encoding: gzip\r\nContent-Length: 9\r\n",
            &gzip,
        ),
        request(
            "application/json",
            "Content-Encoding: gzip\r\n",
            &gzip[..gzip.len() - 12],
        ),
        request("application/json", "Content-Encoding: gzip\r\n", json),
        request("application/json", "Content-Encoding: deflate\r\n", &zlib),
        request(
            "application/json",
            "Content-Encoding: deflate\r\n",
            &raw_deflate,
        ),
        request("application/json", "Content-Encoding: br\r\n", br),
        request(
            "text/plain",
            "Content-Encoding: gzip\r\n",
            b"not gzip at all",
        ),
        request(
            "application/octet-stream",
            "Content-Encoding: gzip\r\n",
            &gzip,
        ),
    ];
    let script = "import sys, io, json\n\
                  from warcio.recordloader import ArcWarcRecordLoader\n\
                  from cdxj_indexer.bufferiter import buffer_record_content\n\
                  from cdxj_indexer.postquery import append_method_query_from_req_resp\n\
                  for line in sys.stdin:\n    \
                      http = bytes.fromhex(line.strip())\n    \
                      rec = (b'WARC/1.1\\r\\nWARC-Type: request\\r\\nWARC-Target-URI: http://a.example/x\\r\\n'\n        \
                             b'Content-Type: application/http; msgtype=request\\r\\nContent-Length: %d\\r\\n\\r\\n'\n        \
                             % len(http) + http + b'\\r\\n\\r\\n')\n    \
                      r = ArcWarcRecordLoader().parse_record_stream(io.BytesIO(rec))\n    \
                      buffer_record_content(r)\n    \
                      q, _ = append_method_query_from_req_resp(r, None)\n    \
                      print(json.dumps(q))\n";
    let theirs = reference_queries(&python, script, &blocks);
    for (block, theirs) in blocks.iter().zip(theirs) {
        let ours = trawl_warc::cdxj::request_body::query(block);
        assert_eq!(ours, theirs, "{}", String::from_utf8_lossy(block));
    }
    // A body of a coding the reference does not undo cannot be screened for a password: no part of a key,
    // where the reference writes the coded bytes' base64 (review 86 R3).
    for (fields, body) in [
        ("Content-Encoding: x-gzip\r\n", &gzip[..]),
        ("Content-Encoding: zstd\r\n", &b"(\xb5/\xfd..."[..]),
    ] {
        let block = request("text/plain", fields, body);
        assert_eq!(
            trawl_warc::cdxj::request_body::query(&block),
            None,
            "{fields}"
        );
    }
}

/// A crawl that finished having archived nothing (its seed unreachable) with `warc.wacz = true` ends as it
/// ends without: FINISHED, its seed said, and no package, said (xt47c F4: FAILED on the package).
#[test]
fn a_crawl_that_archived_nothing_is_not_failed_by_its_package() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        "empty",
        "http://127.0.0.1:9/",
        "[warc]\nwacz = true\n[frontier]\nmax_retries = 0\n",
    );
    let out = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(["crawl", "-c"])
        .arg(&cfg)
        .arg("--job")
        .arg(dir.path().join("job"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("FINISHED") && said.contains("no WACZ written") && !said.contains("FAILED"),
        "{said}"
    );
    assert!(!dir.path().join("job/job.wacz").exists());
}

/// What the Python `script` prints for each of `inputs`, fed to it one per line in hex: one JSON value a
/// line (a query, or null), read back.
fn reference_queries(python: &Path, script: &str, inputs: &[Vec<u8>]) -> Vec<Option<String>> {
    use std::io::Write;
    let input: String = inputs
        .iter()
        .map(|b| b.iter().map(|x| format!("{x:02x}")).collect::<String>() + "\n")
        .collect();
    let mut child = std::process::Command::new(python)
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let answers: Vec<Option<String>> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        answers.len(),
        inputs.len(),
        "one answer per input: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    answers
}
