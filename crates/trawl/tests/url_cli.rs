//! `trawl url ...` run as a user would: arguments, stdin, exit status.

use std::{
    io::Write,
    process::{Command, Stdio},
};

/// Runs the binary with `args` and `stdin`; returns (exit code, stdout, stderr).
fn run(args: &[&str], stdin: impl AsRef<[u8]>) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_ref())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn surt_defaults_are_ia_surts() {
    let (code, out, _) = run(
        &["url", "surt", "http://www.archive.org/goo/?a=2&b&a=1"],
        "",
    );
    assert_eq!((code, out.as_str()), (0, "org,archive)/goo?a=1&a=2&b\n"));
    let (_, out, _) = run(
        &[
            "url",
            "surt",
            "--with-scheme",
            "--trailing-comma",
            "--no-host-massage",
            "http://www.example.com/",
        ],
        "",
    );
    assert_eq!(out, "http://(com,example,www,)/\n");
    let (_, out, _) = run(
        &["url", "surt", "--form", "heritrix"],
        "http://www.archive.org/goo/\n\nhttp://127.0.0.1:8080/\n",
    );
    assert_eq!(
        out,
        "http://(org,archive,www,)/goo/\n-\nhttp://(127.0.0.1:8080)/\n"
    );
}

#[test]
fn canon_reads_stdin_and_reports_bad_inputs() {
    let (code, out, err) = run(
        &["url", "canon", "--rules", "aggressive"],
        "https://www.Example.com/A?b=1&a=2\nhttp://exa mple.com/\nwww12.foo.com\n",
    );
    assert_eq!(code, 1);
    assert_eq!(out, "http://example.com/a?a=2&b=1\n-\nhttp://foo.com/\n");
    assert!(
        err.contains("line 2") && err.contains("exa mple.com"),
        "{err}"
    );
    let (code, _, err) = run(&["url", "canon", "--rules", "nope", "http://a.org/"], "");
    assert_ne!(code, 0);
    assert!(err.contains("nope"), "{err}");
}

// See: issue 21 (an invalid line printed nothing, pairing every later answer with the wrong input).
#[test]
fn every_stdin_tool_keeps_one_line_per_input_line() {
    // A bad URL, an empty line, and a line that is not UTF-8 (ending in CRLF).
    let input = b"http://a.org/x\nhttp://exa mple.com/\n\n\xff\xfe\r\nhttp://b.org/y\n";
    for tool in [
        &["url", "canon"][..],
        &["url", "surt"],
        &["url", "surt", "--form", "heritrix"],
        &["url", "norm"],
        &["url", "explain"],
    ] {
        let (code, out, err) = run(tool, input);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 5, "{tool:?}: {out}");
        assert_eq!(code, 1, "{tool:?}");
        assert!(
            err.contains("line 2")
                && err.contains("line 3")
                && err.contains("line 4: the line is not UTF-8"),
            "{tool:?}: {err}"
        );
        if tool[1] == "explain" {
            for (i, line) in lines.iter().enumerate() {
                let v: serde_json::Value = serde_json::from_str(line).unwrap();
                assert_eq!(
                    v.get("error").is_some(),
                    (1..=3).contains(&i),
                    "{tool:?} line {i}: {line}"
                );
            }
            assert!(lines[4].contains("b.org"));
        } else {
            assert_eq!(&lines[1..4], ["-", "-", "-"], "{tool:?}: {out}");
            assert!(
                lines[0].contains('a') && lines[4].contains('b'),
                "{tool:?}: {out}"
            );
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let robots = dir.path().join("robots.txt");
    std::fs::write(&robots, "User-agent: *\nDisallow: /y\n").unwrap();
    let file = robots.to_str().unwrap();
    let (code, out, _) = run(&["robots", "--agent", "trawl/1.0", "--file", file], input);
    assert_eq!(code, 1);
    assert_eq!(
        out,
        "allowed http://a.org/x\n-\n-\n-\ndisallowed http://b.org/y\n"
    );
}

/// A reader that stops early (`… | head -1`) ends the batch tools quietly, with no panic.
#[test]
fn a_reader_that_goes_away_ends_the_batch_tools_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let robots = dir.path().join("robots.txt");
    std::fs::write(&robots, "User-agent: *\nDisallow: /y\n").unwrap();
    for tool in [
        &["robots", "--agent", "x", "--file", robots.to_str().unwrap()][..],
        &["url", "canon"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_trawl"))
            .args(tool)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let feeder = std::thread::spawn(move || {
            for _ in 0..200_000 {
                if stdin.write_all(b"http://a.org/x\n").is_err() {
                    break;
                }
            }
        });
        let mut first = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut first,
        )
        .unwrap();
        assert!(first.contains("a.org"), "{tool:?}: {first}");
        // The reader is dropped: trawl's next writes meet a closed pipe.
        let out = child.wait_with_output().unwrap();
        feeder.join().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{tool:?}: {err}");
        assert_eq!(out.status.code(), Some(0), "{tool:?}: {err}");
    }
}

/// `… 2>&1 | head -1`: the messages of bad lines meet the closed pipe too, and still no panic (exit 101).
#[test]
fn a_reader_of_both_streams_that_goes_away_ends_quietly() {
    let (reader, writer) = std::io::pipe().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(["url", "canon"])
        .stdin(Stdio::piped())
        .stdout(writer.try_clone().unwrap())
        .stderr(writer)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        for _ in 0..100_000 {
            if stdin.write_all(b"not a url\nhttp://a.org/x\n").is_err() {
                break;
            }
        }
    });
    let mut first = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(reader), &mut first).unwrap();
    assert!(!first.is_empty());
    // The reader is dropped with the BufReader: both streams now meet a closed pipe.
    let status = child.wait().unwrap();
    feeder.join().unwrap();
    assert!(
        matches!(status.code(), Some(0 | 1)),
        "exit {status:?} (101 is a panic)"
    );
}

#[test]
fn norm_prints_key_and_uuid() {
    let (code, out, _) = run(
        &[
            "url",
            "norm",
            "https://example.com/document/index.aspx",
            "http://www.example.com/document.html",
            "http://example.com/document/?utm_source=ref",
        ],
        "",
    );
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(lines.iter().all(|l| *l == lines[0]), "{out}");
    let (key, uuid) = lines[0].split_once('\t').unwrap();
    assert_eq!(key, "http://example.com/document");
    assert_eq!(uuid.len(), 36);
}

#[test]
fn explain_prints_every_name() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("crawl.toml");
    std::fs::write(
        &cfg,
        "[identity]\ncanonicalizer = \"ia\"\nrewrites = [{ pattern = 'https://docs\\.python\\.org/(\\d)/(.*)', replace = 'https://docs.python.org/3.12/$2' }]\n",
    )
    .unwrap();
    let (code, out, _) = run(
        &[
            "url",
            "explain",
            "-c",
            cfg.to_str().unwrap(),
            "--json",
            "https://docs.python.org/3/library/datetime.html#x",
            "::",
        ],
        "",
    );
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    for field in [
        "input",
        "raw",
        "canonical",
        "uniq_key",
        "surt",
        "surt_heritrix",
        "norm",
        "norm_uuid",
        "version_template",
    ] {
        assert!(v.get(field).is_some(), "{field} missing from {v}");
    }
    assert_eq!(
        v["input"],
        "https://docs.python.org/3/library/datetime.html#x"
    );
    assert_eq!(
        v["canonical"],
        "https://docs.python.org/3.12/library/datetime.html"
    );
    assert_eq!(
        v["uniq_key"],
        "https://docs.python.org/3.12/library/datetime.html"
    );
    assert_eq!(v["surt"], "org,python,docs)/3.12/library/datetime.html");
    assert_eq!(
        v["version_template"],
        "https://docs.python.org/%s/library/datetime.html"
    );
    let (_, out, _) = run(&["url", "explain", "--json", "http://a.org/x"], "");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert!(v["version_template"].is_null());
}

/// The shared hydrus-derived class library.
fn library() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/url-classes/classes.toml"
    )
    .to_string()
}

#[test]
fn explain_adds_the_url_class() {
    let lib = library();
    let (code, out, err) = run(
        &[
            "url",
            "explain",
            "--json",
            "--classes",
            &lib,
            "https://tbib.org/index.php?page=post&s=view&id=6391256&tags=x",
            "https://example.com/",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let class = &lines[0]["url_class"];
    assert_eq!(class["name"], "tbib file page");
    assert_eq!(class["kind"], "post");
    assert_eq!(
        class["normalised"],
        "https://tbib.org/index.php?id=6391256&page=post&s=view"
    );
    assert_eq!(lines[0]["canonical"], class["normalised"]);
    assert_eq!(lines[0]["canonical_source"], "url_class");
    assert!(class["api_url"].is_null() && class["next_page"].is_null());
    assert!(lines[1]["url_class"].is_null());
}

#[test]
fn classes_lists_examples_and_their_normalised_form() {
    let lib = library();
    let (code, out, err) = run(&["url", "classes", "--json", &lib], "");
    assert_eq!(code, 0, "{err}");
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(rows.len() >= 5, "{rows:?}");
    let thread = rows.iter().find(|r| r["name"] == "4chan thread").unwrap();
    assert_eq!(thread["kind"], "watchable");
    assert_eq!(
        thread["normalised"],
        "https://boards.4chan.org/m/thread/16086187"
    );
    let (code, _, err) = run(&["url", "classes", "/nonexistent/lib.toml"], "");
    assert_eq!(code, 1);
    assert!(err.contains("/nonexistent/lib.toml"), "{err}");
}

#[test]
fn explain_traces_the_scope() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("crawl.toml");
    std::fs::write(
        &cfg,
        "[seeds]\nurls = [\"http://www.example.org/\"]\n[[filters.url]]\nextension = \"-png\"\n",
    )
    .unwrap();
    let explain = |args: &[&str]| {
        let mut all = vec!["url", "explain", "-c", cfg.to_str().unwrap(), "--json"];
        all.extend_from_slice(args);
        let (code, out, err) = run(&all, "");
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        v["scope"].clone()
    };
    // A link on the seed page, in scope.
    let s = explain(&["http://www.example.org/a"]);
    assert_eq!(
        (s["decision"].as_str(), s["rule"].as_str()),
        (Some("accept"), Some("surt_prefixed"))
    );
    let trace = s["trace"].as_array().unwrap();
    assert_eq!(
        trace[0],
        serde_json::json!({"rule": "reject", "answer": "reject"})
    );
    assert_eq!(trace.last().unwrap()["rule"], "url_filter[0]");
    // Off-site: rejected by the first rule; as an embed it is accepted.
    let s = explain(&["http://other.org/a"]);
    assert_eq!(
        (s["decision"].as_str(), s["rule"].as_str()),
        (Some("reject"), Some("reject"))
    );
    let s = explain(&["--hops", "LE", "http://other.org/a.css"]);
    assert_eq!(s["rule"], "transclusion");
    // The URL filter decides last.
    let s = explain(&["http://www.example.org/a.png"]);
    assert_eq!(
        (s["decision"].as_str(), s["rule"].as_str()),
        (Some("reject"), Some("url_filter[0]"))
    );
    // Too many hops.
    let s = explain(&[
        "--hops",
        "LLLLLLLLLLLLLLLLLLLLL",
        "--via",
        "http://www.example.org/x",
        "http://www.example.org/deep",
    ]);
    assert_eq!(s["rule"], "too_many_hops");
    // A link longer than extraction keeps is never queued (xt20b F6); as a seed it is judged by the rules.
    let long = format!("http://www.example.org/{}", "a".repeat(8200));
    let s = explain(&[&long]);
    assert_eq!(
        (s["decision"].as_str(), s["rule"].as_str()),
        (Some("reject"), Some("link_too_long")),
        "{s}"
    );
    assert!(s["link_too_long"].as_str().unwrap().contains("8192"), "{s}");
    let s = explain(&["--hops", "", &long]);
    assert_eq!(s["decision"], "accept", "{s}");
    // Past `scope.max_redirects` redirects in a row, as the crawl refuses it (xt42a).
    let s = explain(&[
        "--hops",
        "LRRRRRRRRRRR",
        "--via",
        "http://www.example.org/x",
        "http://www.example.org/r/11",
    ]);
    assert_eq!(
        (s["decision"].as_str(), s["rule"].as_str()),
        (Some("reject"), Some("max_redirects")),
        "{s}"
    );
    let s = explain(&[
        "--hops",
        "LRRRRRRRRRR",
        "--via",
        "http://www.example.org/x",
        "http://www.example.org/r/10",
    ]);
    assert_ne!(s["rule"], "max_redirects", "{s}");
    // Not http(s): refused before the scope, as the crawl logs it (-7 reject:not_http).
    let s = explain(&["--hops", "LR", "ftp://www.example.org/file"]);
    assert_eq!(
        (s["decision"].as_str(), s["rule"].as_str()),
        (Some("reject"), Some("not_http")),
        "{s}"
    );
}

/// explain judges a link as the crawl does: without its fragment (xt15b F3), through the `before_fetch`
/// gate and a download-mode crawl's URL filters as well as the scope (F6), and with prefixes written as a host
/// and port or in the CDX form (F8).
#[test]
fn explain_judges_as_the_crawl_does() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("crawl.toml");
    std::fs::write(
        &cfg,
        "[seeds]\nurls = [\"http://localhost:8601/\"]\n\
         [scope]\nsurt_prefixes = [\"localhost:8602\", \"org,example)/\"]\n\
         [[scope.rules]]\nrule = \"reject\"\n[[scope.rules]]\nrule = \"surt_prefixed\"\n\
         [[scope.rules]]\nrule = \"matches_regex\"\nregex = '\\.pdf$'\ndecision = \"reject\"\n\
         [[scope.rules]]\nrule = \"prerequisite_accept\"\n\
         [decide]\nbefore_fetch = [{ rule = \"matches_regex\", regex = '/a$', decision = \"reject\" }]\n\
         [filters]\nurl_mode = \"download\"\n[[filters.url]]\npath = \"-/b/\"\n",
    )
    .unwrap();
    let explain = |url: &str| {
        let (code, out, err) = run(
            &["url", "explain", "-c", cfg.to_str().unwrap(), "--json", url],
            "",
        );
        assert_eq!(code, 0, "{err}");
        serde_json::from_str::<serde_json::Value>(out.trim()).unwrap()
    };
    let v = explain("http://localhost:8601/doc.pdf#page=2");
    assert_eq!(v["scope"]["url"], "http://localhost:8601/doc.pdf", "{v}");
    assert_eq!(v["scope"]["rule"], "matches_regex", "{v}");
    let v = explain("http://localhost:8601/x/a");
    assert_eq!(v["scope"]["decision"], "accept", "{v}");
    assert_eq!(
        (
            v["scope"]["before_fetch"]["decision"].as_str(),
            v["scope"]["before_fetch"]["rule"].as_str()
        ),
        (Some("reject"), Some("matches_regex")),
        "{v}"
    );
    let v = explain("http://localhost:8601/b/c");
    assert_eq!(v["scope"]["before_write"]["decision"], "reject", "{v}");
    for url in ["http://localhost:8602/x", "http://example.org/y"] {
        assert_eq!(explain(url)["scope"]["rule"], "surt_prefixed", "{url}");
    }
}

/// A config `trawl check` refuses for its values (here a scope that refuses its own seed, and delays that
/// contradict) is still explained, its problems said on stderr: they are what the operator asks about
/// (xt14b F8). One that is no config (an unknown key) is refused, as the check's form prints it.
#[test]
fn explain_reads_a_config_with_wrong_values() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("crawl.toml");
    std::fs::write(
        &cfg,
        "[seeds]\nurls = [\"http://a.org/\"]\n[frontier]\nmin_delay_ms = 50000\n\
         [[scope.rules]]\nrule = \"reject\"\n",
    )
    .unwrap();
    let cfg = cfg.to_str().unwrap();
    let (code, out, err) = run(
        &["url", "explain", "-c", cfg, "--json", "http://a.org/x"],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["scope"]["rule"], "reject", "{v}");
    assert!(
        err.contains("`trawl check` refuses this config")
            && err
                .contains("crawl.toml:2:9: seeds.urls[0]: seed http://a.org/ is outside the scope")
            && err.contains("frontier.min_delay_ms = 50000"),
        "{err}"
    );
    std::fs::write(
        dir.path().join("crawl.toml"),
        "[fetch]\nobey_robot = true\n",
    )
    .unwrap();
    let (code, out, err) = run(&["url", "explain", "-c", cfg, "http://a.org/x"], "");
    assert_eq!(code, 1, "{out}");
    assert!(
        err.contains("crawl.toml:2:1: unknown key `obey_robot`"),
        "{err}"
    );
}

/// xt5 F6: explain judges the URL the crawl judges, a URL class's server form (here without the `tags`
/// parameter the URL filter refuses), and names it; F10: a `--classes` library's classes are seen by the
/// scope's `url_class_kind` rule as well as reported.
#[test]
fn explain_judges_the_class_server_form_with_the_library_classes() {
    let dir = tempfile::tempdir().unwrap();
    let class = "[[url_class]]\nname = \"p\"\nkind = \"post\"\nexample = \"http://127.0.0.1/post?id=5\"\n\
                 preferred_scheme = \"http\"\ndomains = [\"127.0.0.1\"]\n\
                 path = [ { match = \"fixed\", value = \"post\" } ]\n\
                 query = [ { name = \"id\", match = \"numeric\" } ]\n";
    let cfg = dir.path().join("crawl.toml");
    std::fs::write(
        &cfg,
        format!(
            "[seeds]\nurls = [\"http://127.0.0.1:8601/\"]\n[[filters.url]]\nregexp = 'tags='\n{class}"
        ),
    )
    .unwrap();
    let (code, out, err) = run(
        &[
            "url",
            "explain",
            "-c",
            cfg.to_str().unwrap(),
            "--json",
            "http://127.0.0.1:8601/post?id=1&tags=x",
            "http://127.0.0.1:8601/other?tags=x",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["scope"]["decision"], "accept", "{}", lines[0]);
    assert_eq!(lines[0]["scope"]["url"], "http://127.0.0.1:8601/post?id=1");
    assert_eq!(
        lines[0]["url_class"]["for_server"],
        lines[0]["scope"]["url"]
    );
    assert_eq!(lines[1]["scope"]["rule"], "url_filter[0]");
    assert_eq!(
        lines[1]["scope"]["url"],
        "http://127.0.0.1:8601/other?tags=x"
    );

    let lib = dir.path().join("lib.toml");
    std::fs::write(&lib, class).unwrap();
    let kinds = dir.path().join("kinds.toml");
    std::fs::write(
        &kinds,
        "[seeds]\nurls = [\"http://127.0.0.1:8601/\"]\n[[scope.rules]]\nrule = \"reject\"\n\
         [[scope.rules]]\nrule = \"seed_accept\"\n\
         [[scope.rules]]\nrule = \"url_class_kind\"\nkinds = [\"post\"]\n\
         [[scope.rules]]\nrule = \"prerequisite_accept\"\n",
    )
    .unwrap();
    let (code, out, err) = run(
        &[
            "url",
            "explain",
            "-c",
            kinds.to_str().unwrap(),
            "--classes",
            lib.to_str().unwrap(),
            "--json",
            "http://127.0.0.1:8601/post?id=1",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["url_class"]["name"], "p");
    assert_eq!(
        (v["scope"]["decision"].as_str(), v["scope"]["rule"].as_str()),
        (Some("accept"), Some("url_class_kind")),
        "{v}"
    );
}

/// xt5 F18: an answer is written as soon as the tool would wait for more input, so a co-process that writes
/// one URL and waits for its answer gets it (a batch is still answered in large writes).
#[test]
fn an_answer_comes_before_the_next_input() {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(["url", "canon"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    stdin.write_all(b"HTTP://A.org/x\n").unwrap();
    stdin.flush().unwrap();
    let first = rx
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("no answer while the input stays open");
    assert!(first.contains("a.org/x"), "{first}");
    stdin.write_all(b"http://b.org/\n").unwrap();
    drop(stdin);
    let second = rx.recv_timeout(std::time::Duration::from_secs(20)).unwrap();
    assert!(second.contains("b.org"), "{second}");
    assert!(child.wait().unwrap().success());
    reader.join().unwrap();
}

/// xt5 F16: `trawl url classes` places a class's warning at its field, FILE:LINE:COL, as `trawl check` does.
#[test]
fn classes_warnings_name_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib.toml");
    std::fs::write(
        &lib,
        "[[url_class]]\nname = \"t\"\nkind = \"post\"\nexample = \"https://x.org/en/12\"\n\
         domains = [\"x.org\"]\n\
         path = [ { match = \"fixed\", value = \"en\", default = \"/en/\" }, { match = \"numeric\" } ]\n",
    )
    .unwrap();
    let (code, _, err) = run(&["url", "classes", lib.to_str().unwrap()], "");
    assert_eq!(code, 0, "{err}");
    let want = format!("warning: {}:6:", lib.display());
    assert!(err.contains(&want), "{err}");
    assert!(err.contains("path[0].default"), "{err}");
}

/// `explain` judges by the sheets that apply (xt12a F10: a sheet's `scope.max_hops` was left out), takes the
/// crawl's command-line seeds with `--seed` and says when there are none, and refuses a `--via` that is no
/// URL rather than judging from the seed (F16).
#[test]
fn explain_applies_sheets_and_takes_seeds() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("crawl.toml");
    std::fs::write(
        &cfg,
        "[scope]\nmax_hops = 10\n[[sheet]]\nname = \"shallow\"\nsurt_prefixes = [\"http://(org,a,)/h\"]\n\
         set = { \"scope.max_hops\" = 1 }\n",
    )
    .unwrap();
    let cfg = cfg.to_str().unwrap();
    let explain = |extra: &[&str], url: &str| {
        let mut args = vec!["url", "explain", "-c", cfg, "--seed", "http://a.org/"];
        args.extend_from_slice(extra);
        args.push(url);
        let (code, out, err) = run(&args, "");
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        (v["scope"].clone(), err)
    };
    let (deep, err) = explain(
        &["--hops", "LL", "--via", "http://a.org/h1"],
        "http://a.org/h2",
    );
    assert_eq!(deep["decision"], "reject", "{deep}");
    assert_eq!(deep["rule"], "too_many_hops", "{deep}");
    assert_eq!(deep["sheets"], serde_json::json!(["shallow"]), "{deep}");
    assert!(err.is_empty(), "{err}");
    let (other, _) = explain(
        &["--hops", "LL", "--via", "http://a.org/x1"],
        "http://a.org/x2",
    );
    assert_eq!(other["decision"], "accept", "{other}");
    assert_eq!(other["sheets"], serde_json::json!([]), "{other}");
    // Off the seed's prefix: refused, where without --seed the URL was its own seed.
    let (off, _) = explain(&[], "http://b.org/x");
    assert_eq!(off["decision"], "reject", "{off}");
    let (code, _, err) = run(&["url", "explain", "-c", cfg, "http://b.org/x"], "");
    assert_eq!(code, 0);
    assert!(err.contains("no seeds"), "{err}");
    let (code, _, err) = run(
        &[
            "url",
            "explain",
            "-c",
            cfg,
            "--via",
            "http//a.org/",
            "http://a.org/x",
        ],
        "",
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("--via \"http//a.org/\" is not an http(s) URL"),
        "{err}"
    );
}

/// A list saved with a byte order mark (Notepad, PowerShell) is read without it: its first URL kept its host
/// (xt23b F1: `http://http//example.com/a`, exit 0), in every batch tool.
#[test]
fn a_byte_order_mark_before_the_first_url_is_dropped() {
    let input = "\u{feff}http://example.com/a\nhttp://example.com/b\n";
    let (code, out, err) = run(&["url", "canon"], input);
    assert_eq!(
        (code, out.as_str()),
        (0, "http://example.com/a\nhttp://example.com/b\n"),
        "{err}"
    );
    let (code, out, err) = run(&["url", "surt"], input);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("com,example)/a\n"), "{out}");
    let dir = tempfile::tempdir().unwrap();
    let robots = dir.path().join("robots.txt");
    std::fs::write(&robots, "User-agent: *\nDisallow: /b\n").unwrap();
    let args = ["robots", "--agent", "x", "--file", robots.to_str().unwrap()];
    let (code, out, err) = run(&args, input);
    assert!(
        out.lines().count() == 2 && !err.contains("line 1"),
        "{code} {out} {err}"
    );
}
