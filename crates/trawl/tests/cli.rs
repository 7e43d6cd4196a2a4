//! The `trawl` binary as a user runs it: exit codes, the exact lines it prints, and the files it leaves.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use chrono::{TimeZone, Utc};

/// What one run of the binary did.
#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `trawl ARGS` and waits for it, killing it (and failing the test) if it takes longer than `limit`.
fn trawl_within(limit: Duration, args: &[&str]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start trawl");
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            pipe.read_to_string(&mut text).expect("read trawl's output");
            text
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("piped")));
    let stderr = drain(Box::new(child.stderr.take().expect("piped")));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for trawl") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("trawl {args:?} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        code: status.code(),
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
    }
}

fn trawl(args: &[&str]) -> Run {
    trawl_within(Duration::from_secs(60), args)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

// ---------------------------------------------------------------------------------------------------------
// trawl robots

const ROBOTS: &str = "\
# Everyone else: nothing.
User-agent: *
Disallow: /

User-agent: trawl
Disallow: /private
Allow: /private/public
Allow: /page
Disallow: /page.html
Disallow: /*.pdf$
Disallow: /a*/c
Allow: /tie
Disallow: /tie
";

#[test]
fn robots_prints_one_verdict_per_url_by_longest_match() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("robots.txt");
    std::fs::write(&file, ROBOTS).unwrap();
    let cases = [
        // The `trawl` group applies, not `*`: the root is allowed.
        ("http://example.com/", true),
        ("http://example.com/private", false),
        ("http://example.com/private/x", false),
        // Allow /private/public is longer than Disallow /private.
        ("http://example.com/private/public/x", true),
        // Disallow /page.html is longer than Allow /page.
        ("http://example.com/page.html", false),
        ("http://example.com/pages", true),
        // `$` anchors the end: a query string after .pdf escapes it.
        ("http://example.com/docs/report.pdf", false),
        ("http://example.com/docs/report.pdf?x=1", true),
        ("http://example.com/docs/report.pdfx", true),
        // `*` matches any run of characters, including `/`.
        ("http://example.com/ab/c", false),
        ("http://example.com/a/b/c/d", false),
        ("http://example.com/abc", true),
        // Equally long Allow and Disallow: Allow wins (RFC 9309 2.2.2).
        ("http://example.com/tie", true),
        // Paths match case-sensitively.
        ("http://example.com/PRIVATE", true),
    ];
    let mut args = vec!["robots", "--agent", "trawl", "--file", s(&file)];
    args.extend(cases.iter().map(|(u, _)| *u));
    let run = trawl(&args);
    let want: String = cases
        .iter()
        .map(|(u, ok)| format!("{} {u}\n", if *ok { "allowed" } else { "disallowed" }))
        .collect();
    assert_eq!(run.stdout, want, "stderr: {}", run.stderr);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
}

/// xt12a F2 and F3, as the tester ran them: escapes in another spelling than the rule's name the same path
/// (RFC 9309 §2.2.2), and a Googlebot-style User-Agent is read by its `compatible;` name.
#[test]
fn robots_reads_escapes_in_one_spelling_and_a_compatible_name() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("robots.txt");
    std::fs::write(
        &file,
        "User-agent: *\nDisallow: /~bar\nDisallow: /%7Efoo\nDisallow: /caf%C3%A9\nDisallow: /secret\n\
         Disallow: /a%2Fb\n\nUser-agent: xbot\nDisallow: /x\n",
    )
    .unwrap();
    let urls = [
        "http://h/%7ebar",
        "http://h/~foo",
        "http://h/caf%c3%a9",
        "http://h/%73ecret",
        "http://h/a/b",
    ];
    let mut args = vec!["robots", "--agent", "trawl", "--file", s(&file)];
    args.extend(urls);
    let run = trawl(&args);
    assert_eq!(
        run.stdout,
        "disallowed http://h/%7ebar\ndisallowed http://h/~foo\ndisallowed http://h/caf%c3%a9\n\
         disallowed http://h/%73ecret\nallowed http://h/a/b\n",
        "stderr: {}",
        run.stderr
    );
    let agent = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; xbot/2.1; \
                 +http://127.0.0.1/bot) Chrome/120.0.0.0 Safari/537.36";
    let run = trawl(&[
        "robots",
        "--agent",
        agent,
        "--file",
        s(&file),
        "http://h/x",
        "http://h/secret",
    ]);
    assert_eq!(
        run.stdout, "disallowed http://h/x\nallowed http://h/secret\n",
        "the xbot group applies: {}",
        run.stderr
    );
}

#[test]
fn robots_matches_the_agent_case_insensitively_and_falls_back_to_star() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("robots.txt");
    std::fs::write(&file, ROBOTS).unwrap();
    for (agent, root_allowed) in [("TRAWL", true), ("otherbot", false)] {
        let run = trawl(&[
            "robots",
            "--agent",
            agent,
            "--file",
            s(&file),
            "http://example.com/",
        ]);
        let verdict = if root_allowed {
            "allowed"
        } else {
            "disallowed"
        };
        assert_eq!(
            run.stdout,
            format!("{verdict} http://example.com/\n"),
            "{agent}"
        );
        assert_eq!(run.code, Some(0), "{agent}: {}", run.stderr);
    }
}

#[test]
fn robots_names_an_argument_that_is_not_a_url() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("robots.txt");
    std::fs::write(&file, ROBOTS).unwrap();
    let run = trawl(&[
        "robots",
        "--agent",
        "trawl",
        "--file",
        s(&file),
        "not-a-url",
        "http://example.com/private",
    ]);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("\"not-a-url\""), "{}", run.stderr);
    // The good URL is still judged, and the bad one keeps its line.
    assert_eq!(run.stdout, "-\ndisallowed http://example.com/private\n");
}

#[test]
fn robots_names_a_missing_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("missing-robots.txt");
    let run = trawl(&[
        "robots",
        "--agent",
        "trawl",
        "--file",
        s(&file),
        "http://a/",
    ]);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains(s(&file)), "{}", run.stderr);
    assert_eq!(run.stdout, "");
}

// ---------------------------------------------------------------------------------------------------------
// trawl check

/// Runs `trawl check` on a file holding `text`; returns the run and the file's path.
fn check(text: &str) -> (Run, PathBuf, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("crawl.toml");
    std::fs::write(&file, text).unwrap();
    (trawl(&["check", s(&file)]), file, dir)
}

/// A crawler named with a digit or a dot would never find its own robots.txt group: `trawl check` warns, and
/// `--strict` fails.
#[test]
fn check_warns_of_a_robots_name_no_group_can_match() {
    let (run, file, _dir) = check(
        "[seeds]\nurls = [\"http://127.0.0.1:9/\"]\n\n[fetch]\nuser_agent = \"xt3bot/1.0 (+http://127.0.0.1/bot)\"\n",
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        run.stdout,
        format!("{}: ok (0 URL classes, 1 warning)\n", file.display())
    );
    assert!(
        run.stderr.contains("fetch.user_agent")
            && run.stderr.contains("`xt3bot`")
            && run.stderr.contains("read as `xt`"),
        "{}",
        run.stderr
    );
    let strict = trawl(&["check", "--strict", s(&file)]);
    assert_eq!(strict.code, Some(1), "{}", strict.stderr);
}

/// xt12a F3: a browser-like User-Agent without a `compatible;` name is read as robots.txt agent `Mozilla`;
/// `trawl check` says so.
#[test]
fn check_warns_of_a_robots_name_of_mozilla() {
    let (run, _file, _dir) = check(
        "[seeds]\nurls = [\"http://127.0.0.1:9/\"]\n\n[fetch]\nuser_agent = \"Mozilla/5.0 (X11; Linux x86_64) \
         xbot/2.1 (+http://127.0.0.1/bot)\"\n",
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stderr.contains("fetch.user_agent") && run.stderr.contains("`Mozilla`"),
        "{}",
        run.stderr
    );
}

#[test]
fn check_accepts_a_valid_config() {
    let (run, file, _dir) = check(
        "[frontier]\nmin_delay_ms = 100\nmax_delay_ms = 200\n\n[fetch]\nmax_connections = 3\n\n\
         [warc]\ncompression = \"none\"\n",
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        run.stdout,
        format!("{}: ok (0 URL classes, 1 warning)\n", file.display())
    );
    assert!(
        run.stderr.contains("the config names no seeds"),
        "{}",
        run.stderr
    );
}

/// A URL class library (a file of `[[url_class]]` tables only) passes `check --strict` as written: it names no
/// seeds by nature (xt23b F5).
#[test]
fn check_passes_a_class_library_strictly() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("lib.toml");
    let library = "[[url_class]]\nname = \"tbib file page\"\nkind = \"post\"\n\
                   example = \"https://tbib.org/index.php?page=post&s=view&id=6391256\"\n\
                   domains = [\"tbib.org\"]\npath = [ { match = \"fixed\", value = \"index.php\" } ]\n\
                   query = [ { name = \"id\", match = \"numeric\" } ]\n";
    std::fs::write(&file, library).unwrap();
    let run = trawl(&["check", "--strict", s(&file)]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        run.stdout,
        format!("{}: ok (1 URL class)\n", file.display())
    );
    // The same class in a crawl.toml with other settings still warns of its missing seeds.
    std::fs::write(&file, format!("[fetch]\nmax_connections = 3\n\n{library}")).unwrap();
    let run = trawl(&["check", "--strict", s(&file)]);
    assert!(run.stderr.contains("names no seeds"), "{}", run.stderr);
}

#[test]
fn check_rejects_bad_configs_naming_file_and_line() {
    let cases = [
        // (config, its error's line, words the message must hold)
        (
            "[fetch]\nmax_conections = 3\n",
            2,
            &["max_conections", "max_connections"][..],
        ),
        (
            "# comment\n[fetch]\nmax_connections = \"many\"\n",
            3,
            &["max_connections", "\"many\""][..],
        ),
        (
            "[frontier]\nmin_delay_ms = 5000\nmax_delay_ms = 1000\n",
            2,
            &["min_delay_ms", "max_delay_ms", "5000", "1000"][..],
        ),
    ];
    for (text, line, words) in cases {
        let (run, file, _dir) = check(text);
        assert_eq!(run.code, Some(1), "{text:?}: {run:?}");
        assert_eq!(run.stdout, "", "{text:?}");
        let err = &run.stderr;
        assert!(err.contains(s(&file)), "{text:?}: no file name in {err}");
        assert!(
            err.contains(&format!("{}:{line}:", file.display())),
            "{text:?}: no `FILE:{line}:` in {err}"
        );
        for w in words {
            assert!(err.contains(w), "{text:?}: no {w:?} in {err}");
        }
    }
}

#[test]
fn check_reports_every_problem_of_each_stage() {
    let (run, file, _dir) = check(
        "[fetch]\nmax_conections = 3\n[[scope.rules]]\nrule = \"nope\"\n[[filters.url]]\nregexp = \"x\"\ncase = 1\n",
    );
    assert_eq!(run.code, Some(1), "{run:?}");
    for want in [":2:", ":4:", ":8:", "3 problems", "hint:"] {
        assert!(run.stderr.contains(want), "no {want:?} in {}", run.stderr);
    }
    assert!(run.stderr.contains(s(&file)));
    let (run, _, _dir) = check(
        "[frontier]\nmin_delay_ms = 5\nmax_delay_ms = 1\n[[filters.url]]\nregexp = \"(\"\n\
         [[sheet]]\nname = \"a\"\nsurt_prefixes = [\"http://(org,\"]\nset = { \"frontier.nope\" = 1 }\n",
    );
    assert_eq!(run.code, Some(1), "{run:?}");
    for want in [":2:", ":5:", ":9:", "3 problems", "names no setting"] {
        assert!(run.stderr.contains(want), "no {want:?} in {}", run.stderr);
    }
}

// See: issue 21 (a contradiction showed only after the type and unknown-key errors were fixed; columns
// pointed at values; an unknown table at its first key; no suggestion; types in Rust's words).
#[test]
fn check_reports_everything_at_once_in_the_users_words() {
    let (run, file, _dir) = check(
        "[fetch]\nobey_robot = true\n[fetchh]\nx = 1\n[frontier]\nmin_delay_ms = 5000\nmax_delay_ms = 1000\n\
         max_retries = \"many\"\n",
    );
    assert_eq!(run.code, Some(1), "{run:?}");
    let err = &run.stderr;
    let at = |line: usize, col: usize| format!("{}:{line}:{col}: ", file.display());
    for (place, words) in [
        (
            at(2, 1),
            "unknown key `obey_robot`: did you mean `obey_robots`?",
        ),
        (at(3, 2), "unknown key `fetchh`: did you mean `fetch`?"),
        (
            at(8, 1),
            // With its key (xt14b F5).
            "frontier.max_retries: found the text \"many\", expected a whole number, 0 or more",
        ),
        (
            at(6, 1),
            "frontier.min_delay_ms = 5000 is above frontier.max_delay_ms = 1000",
        ),
    ] {
        assert!(
            err.contains(&format!("{place}{words}")),
            "no {place}{words} in\n{err}"
        );
    }
    assert!(err.contains("4 problems"), "{err}");
    assert!(
        !err.contains("u32") && !err.contains("expected one of"),
        "{err}"
    );
}

/// A value of the wrong range in one entry of an array of tables is told at its key, and the entries after
/// it keep their numbers and lines (xt15b F9, xt14b F4: they were told at the index before their own).
#[test]
fn check_keeps_the_entries_after_a_wrong_value_in_place() {
    let (run, file, _dir) = check(
        "[seeds]\nurls = [\"http://127.0.0.1/\"]\n[[scope.rules]]\nrule = \"too_many_hops\"\nmax_hops = -1\n\
         [[scope.rules]]\nrule = \"matches_regex\"\nregex = \"(\"\n\
         [[url_class]]\nname = \"a\"\nkind = \"post\"\nexample = \"https://a.example/p/12\"\n\
         domains = [\"a.example\"]\npath = [ { match = \"numeric\", max_chars = -1 } ]\n\
         [[url_class]]\nname = \"b\"\nkind = \"post\"\nexample = \"https://b.example/x\"\n\
         domains = [\"b.example\"]\npath = [ { match = \"alpha\", value = \"x\" } ]\n\
         [[filters.url]]\nregexp = \"x\"\ncase = \"yes\"\n",
    );
    assert_eq!(run.code, Some(1), "{run:?}");
    let at = |line: usize| format!("{}:{line}:", file.display());
    for (place, says) in [
        (at(5), "scope.rules[0].max_hops: found the number `-1`"),
        (at(8), "scope.rules[1].regex"),
        (
            at(14),
            "url_class[0].path[0].max_chars: found the number `-1`",
        ),
        (at(20), "url_class[1].path[0].value"),
        // A text where a truth value belongs, found by its text (xt15c F13).
        (at(23), "filters.url[0].case: found the text \"yes\""),
    ] {
        assert!(
            said_at(&run.stderr, &place, says),
            "no {place} {says} in\n{}",
            run.stderr
        );
    }
}

/// A rule whose name is unknown keeps its place, so the rules after it are told at their own numbers and
/// lines (xt42a: an `on_hosts` rule after a misspelt one was told as `scope.rules[0]`, at the line of the
/// misspelt one).
#[test]
fn check_keeps_the_rules_after_an_unknown_rule_name_in_place() {
    let (run, file, _dir) = check(
        "[seeds]\nurls = [\"http://127.0.0.1/\"]\n[[scope.rules]]\nrule = \"surt_prefixd\"\n\
         [[scope.rules]]\nrule = \"on_hosts\"\nhosts = [\"127.0.0.2:8601\"]\n",
    );
    assert_eq!(run.code, Some(1), "{run:?}");
    let at = |line: usize| format!("{}:{line}:", file.display());
    for (place, says) in [
        (at(4), "unknown name `surt_prefixd`"),
        (
            at(7),
            "scope.rules[1].hosts[0]: \"127.0.0.2:8601\" has a port",
        ),
    ] {
        assert!(
            said_at(&run.stderr, &place, says),
            "no {place} {says} in\n{}",
            run.stderr
        );
    }
}

/// A seed the crawl would refuse fails the check at its place, not warned of as a host's name or passed
/// (xt42a).
#[test]
fn check_refuses_the_seeds_a_crawl_refuses() {
    let (run, file, _dir) =
        check("[seeds]\nurls = [\"https//127.0.0.1:18100/docs/\", \"ht!tp://127.0.0.1:18100/\"]\n");
    assert_eq!(run.code, Some(1), "{run:?}");
    let at = format!("{}:2:", file.display());
    for says in [
        "seeds.urls[0]: seed \"https//127.0.0.1:18100/docs/\": \"https//127.0.0.1:18100/docs/\" is not a valid URL: its scheme is misspelt",
        "seeds.urls[1]: seed \"ht!tp://127.0.0.1:18100/\": \"ht!tp://127.0.0.1:18100/\" is not a valid URL: \"ht!tp\" before `://` is not a scheme",
    ] {
        assert!(
            said_at(&run.stderr, &at, says),
            "no {at} {says} in\n{}",
            run.stderr
        );
    }
    assert!(
        !run.stderr.contains("looked up in the DNS"),
        "{}",
        run.stderr
    );
}

/// A config with problems still has its warnings said, of what could be read of it (xt42a: they came only
/// once the problems were fixed).
#[test]
fn check_says_the_warnings_of_a_config_with_problems() {
    let (run, file, _dir) = check(
        "[seeds]\nurls = [\"http://127.0.0.1:18100/\"]\n[scope]\n\
         surt_prefixes = [\"not a url at all\", \"http://example.org/dir\"]\n",
    );
    assert_eq!(run.code, Some(1), "{run:?}");
    let warned = format!("warning: {}:4:", file.display());
    assert!(
        run.stderr
            .lines()
            .any(|l| l.starts_with(&warned) && l.contains("reaches to its last slash")),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("1 problem, 1 warning"),
        "{}",
        run.stderr
    );
}

/// A SURT prefix naming an IP address with commas matches no URL, and is warned of with its dotted form
/// (xt42b); one whose host is a name's labels is not.
#[test]
fn check_warns_of_an_address_written_with_commas_in_a_prefix() {
    let (run, _file, _dir) = check(
        "[seeds]\nurls = [\"http://127.0.0.1:18210/\"]\n[scope]\n\
         surt_prefixes = [\"http://(127,0,0,1:18210)/\", \"http://(org,example,www,)/\", \"http://(1,0,0,127,)/\"]\n",
    );
    assert!(
        run.stderr.contains("names an IP address with commas")
            && run.stderr.contains("write \"http://(127.0.0.1:18210)/\""),
        "{}",
        run.stderr
    );
    // With a trailing comma, reversed as the CDX form is: both orders offered (xt43a N3).
    assert!(
        run.stderr
            .contains("write \"http://(1.0.0.127)/\", or \"http://(127.0.0.1)/\""),
        "{}",
        run.stderr
    );
    assert_eq!(
        run.stderr.matches("with commas").count(),
        2,
        "{}",
        run.stderr
    );
}

/// A SURT prefix writing a port among the host's labels matches no URL, and is warned of with the form that
/// does (xt46a F5); an address's port, right after it, is its form.
#[test]
fn check_warns_of_a_port_among_a_prefixs_labels() {
    let (run, _file, _dir) = check(
        "[seeds]\nurls = [\"http://localhost:18102/\"]\n[scope]\n\
         surt_prefixes = [\"http://(localhost:18102,\", \"http://(localhost,:18102)/\", \"http://(127.0.0.1:18210)/\"]\n",
    );
    assert!(
        run.stderr.contains("writes a port among the host's labels")
            && run.stderr.contains("write \"http://(localhost,:18102)\""),
        "{}",
        run.stderr
    );
    assert_eq!(
        run.stderr.matches("among the host's labels").count(),
        1,
        "{}",
        run.stderr
    );
}

/// Browser settings that cannot work or do nothing are warned of at their keys (xt16a F10).
#[test]
fn check_warns_of_browser_settings_that_cannot_work() {
    for (body, line, says) in [
        (
            "mode = \"all\"\npage_timeout_ms = 3000\nidle_ms = 5000\n",
            6,
            "browser.idle_ms = 5000 is not under the loading share",
        ),
        (
            "mode = \"all\"\nmax_requests_per_page = 0\n",
            5,
            "browser.max_requests_per_page = 0 refuses every request",
        ),
        (
            "screenshot = true\n",
            4,
            "browser.screenshot: no page is rendered",
        ),
    ] {
        let (run, file, _dir) = check(&format!(
            "[seeds]\nurls = [\"http://127.0.0.1/\"]\n[browser]\n{body}"
        ));
        assert_eq!(run.code, Some(0), "{run:?}");
        assert!(
            run.stderr
                .contains(&format!("warning: {}:{line}:1: {says}", file.display())),
            "{}",
            run.stderr
        );
    }
}

/// A rule of the response before the fetch never decides: warned of where it is (xt15c F15), each one of
/// a sequence (xt20b F7: only the first was).
#[test]
fn check_warns_of_a_response_rule_before_the_fetch() {
    let (run, file, _dir) = check(
        "[seeds]\nurls = [\"http://127.0.0.1/\"]\n[decide]\nbefore_fetch = [{ rule = \"not\", of = { rule = \
         \"content_type_matches_regex\", regex = \"^text/\" }, decision = \"reject\" }, { rule = \
         \"fetch_status_matches\" }]\n",
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    for i in 0..2 {
        assert!(
            run.stderr.contains(&format!(
                "{}:4:{}: decide.before_fetch[{i}]: a rule of the response",
                file.display(),
                if i == 0 { 17 } else { 120 }
            )),
            "{}",
            run.stderr
        );
    }
}

/// The robots.txt name of `fetch.user_agent` is warned of where the key is written (xt14b F9).
#[test]
fn check_locates_the_user_agent_warning() {
    let (run, file, _dir) = check(
        "[seeds]\nurls = [\"http://127.0.0.1/\"]\n[fetch]\nuser_agent = \"xt3bot/1.0 (+https://a.org/)\"\n",
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stderr.starts_with(&format!(
            "warning: {}:4:1: fetch.user_agent: the robots.txt name `xt3bot`",
            file.display()
        )),
        "{}",
        run.stderr
    );
}

#[test]
fn check_warns_of_a_custom_scope_without_prerequisites_and_strict_fails() {
    let text = "[seeds]\nurls = [\"http://127.0.0.1/\"]\n[[scope.rules]]\nrule = \"reject\"\n[[scope.rules]]\n\
                rule = \"surt_prefixed\"\n";
    let (run, file, _dir) = check(text);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stderr
            .starts_with(&format!("warning: {}:3:", file.display())),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("prerequisite_accept"), "{}", run.stderr);
    assert!(
        run.stdout.contains("ok (0 URL classes, 1 warning)"),
        "{run:?}"
    );
    let strict = trawl(&["check", "--strict", s(&file)]);
    assert_eq!(strict.code, Some(1), "{strict:?}");
    assert!(strict.stderr.contains("1 problem"), "{}", strict.stderr);
}

/// hydrus's real libraries hold classes with a default that fails its own match: the library loads, and the
/// default is a warning at its place in the library file (an error with --strict).
#[test]
fn check_loads_a_real_library_with_an_odd_class_and_warns_at_the_field() {
    let library = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/url-classes/classes.toml"
    );
    let text = format!(
        "[seeds]\nurls = [\"http://a.org/\"]\n[fetch]\nuser_agent = \"t/1 (+https://a.org/bot)\"\n\
         [classes]\nfiles = [{library:?}]\n"
    );
    let (run, file, _dir) = check(&text);
    assert_eq!(run.code, Some(0), "{run:?}");
    let lib_text = std::fs::read_to_string(library).unwrap();
    let default_line = lib_text
        .lines()
        .position(|l| l.contains(r#"value = "en", default = "/en/""#))
        .unwrap()
        + 1;
    let want = format!("warning: {library}:{default_line}:");
    assert!(run.stderr.contains(&want), "want {want} in\n{}", run.stderr);
    assert!(
        run.stderr
            .contains("url class \"pixiv artist page (new format)\": field path[0].default"),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout.contains("ok (138 URL classes, 2 warnings)"),
        "{run:?}"
    );
    let strict = trawl(&["check", "--strict", s(&file)]);
    assert_eq!(strict.code, Some(1), "{strict:?}");
    assert!(strict.stderr.contains("2 problems"), "{}", strict.stderr);
}

#[test]
fn every_shipped_profile_passes_check() {
    for profile in ["default", "single-page", "broad", "polite"] {
        let dir = tempfile::tempdir().unwrap();
        let run = trawl(&["init", "--profile", profile, s(dir.path())]);
        assert_eq!(run.code, Some(0), "{profile}: {run:?}");
        let file = dir.path().join("crawl.toml");
        let run = trawl(&["check", s(&file)]);
        assert_eq!(run.code, Some(0), "{profile}: {}", run.stderr);
        // Only the missing seeds (a profile leaves them to the user) are worth a warning.
        assert_eq!(
            run.stderr.matches("warning:").count(),
            1,
            "{profile}: {}",
            run.stderr
        );
        // init never overwrites.
        let again = trawl(&["init", "--profile", profile, s(dir.path())]);
        assert_eq!(again.code, Some(1), "{profile}");
    }
    let dir = tempfile::tempdir().unwrap();
    let run = trawl(&["init", "--profile", "nope", s(dir.path())]);
    assert!(
        run.code == Some(1) && run.stderr.contains("single-page"),
        "{run:?}"
    );
}

// ---------------------------------------------------------------------------------------------------------
// trawl crawl: setup errors and an unreachable host

#[test]
fn crawl_names_a_bad_seed_once_and_creates_no_job() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job");
    let run = trawl(&["crawl", "http://exa mple.com/", "--job", s(&job)]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(
        run.stderr.contains("\"http://exa mple.com/\""),
        "{}",
        run.stderr
    );
    // The cause is told once, not repeated by each layer of the error chain.
    assert_eq!(
        run.stderr.matches("its host name contains a space").count(),
        1,
        "{}",
        run.stderr
    );
    assert!(!job.exists(), "a job directory was created for a bad seed");
}

#[test]
fn crawl_names_a_job_dir_it_cannot_create() {
    let dir = tempfile::tempdir().unwrap();
    // We may run as root, so permissions would not stop us: put the job under a regular file.
    let file = dir.path().join("file.txt");
    std::fs::write(&file, "not a directory").unwrap();
    let job = file.join("job");
    let run = trawl(&["crawl", "--job", s(&job), "http://127.0.0.1:9/"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(run.stderr.contains(s(&job)), "{}", run.stderr);
    assert_eq!(
        run.stderr.matches("Not a directory").count(),
        1,
        "{}",
        run.stderr
    );
}

/// A config without politeness delays or retries, so failures finish at once.
const FAST: &str =
    "[frontier]\nmax_retries = 0\nmin_delay_ms = 0\nmax_delay_ms = 0\ndelay_factor = 0.0\n";

#[test]
fn crawl_of_an_unreachable_host_finishes_and_logs_the_failures() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("crawl.toml");
    std::fs::write(&config, FAST).unwrap();
    let job = dir.path().join("job");
    // Nothing listens on port 1.
    let seed = "http://127.0.0.1:1/";
    let run = trawl_within(
        Duration::from_secs(30),
        &["crawl", "-c", s(&config), "--job", s(&job), seed],
    );
    // No seed could be fetched: said, with the cause, and the exit status is 1 (issue 21).
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(run.stderr.contains("FINISHED"), "{}", run.stderr);
    assert!(
        run.stderr.contains("no seed could be fetched")
            && run.stderr.contains("robots.txt could not be fetched")
            && run.stderr.contains("robots:err=connect"),
        "{}",
        run.stderr
    );

    let log = std::fs::read_to_string(job.join("logs/crawl.log")).unwrap();
    let lines: Vec<Vec<&str>> = log
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    let find = |uri: &str| {
        lines
            .iter()
            .find(|f| f.get(3) == Some(&uri))
            .unwrap_or_else(|| panic!("no crawl.log line for {uri} in\n{log}"))
    };
    // robots.txt is fetched first, as a prerequisite (hop P, via the seed), and cannot connect (-2)...
    let robots = find("http://127.0.0.1:1/robots.txt");
    assert_eq!(robots[1], "-2", "{log}");
    assert_eq!((robots[4], robots[5]), ("P", seed), "{log}");
    // ...so the seed fails its prerequisite (-61) without being fetched, and says why.
    assert_eq!(find(seed)[1], "-61", "{log}");
    assert_eq!(find(seed)[11], "robots:err=connect", "{log}");
    assert_eq!(lines.len(), 2, "{log}");

    let report = std::fs::read_to_string(job.join("reports/crawl-report.txt")).unwrap();
    assert!(
        report.lines().any(|l| l == "Crawl Status: FINISHED"),
        "{report}"
    );
    // The job holds the config it ran with.
    let copied = std::fs::read_to_string(job.join("crawl.toml")).unwrap();
    assert!(copied.contains("max_retries = 0"), "{copied}");
}

// ---------------------------------------------------------------------------------------------------------
// trawl selftest, and trawl warc on what it wrote

/// One `trawl selftest --keep DIR` run shared by the tests that need a real crawl's WARCs.
struct Selftest {
    dir: PathBuf,
    run: Run,
}

fn selftest() -> &'static Selftest {
    static ONCE: OnceLock<Selftest> = OnceLock::new();
    ONCE.get_or_init(|| {
        let parent = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap()
            .keep();
        let dir = parent.join("job");
        let run = trawl_within(Duration::from_secs(120), &["selftest", "--keep", s(&dir)]);
        Selftest { dir, run }
    })
}

/// The selftest's WARC files.
fn selftest_warcs() -> Vec<PathBuf> {
    let st = selftest();
    assert_eq!(st.run.code, Some(0), "selftest failed: {:?}", st.run);
    let mut warcs: Vec<PathBuf> = std::fs::read_dir(st.dir.join("warcs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| s(p).ends_with(".warc.gz"))
        .collect();
    warcs.sort();
    assert!(!warcs.is_empty(), "the selftest wrote no .warc.gz");
    warcs
}

#[test]
fn selftest_passes_and_refuses_to_reuse_its_directory() {
    let st = selftest();
    assert_eq!(st.run.code, Some(0), "{:?}", st.run);
    let lines: Vec<&str> = st.run.stdout.lines().collect();
    let (last, checks) = lines.split_last().expect("selftest printed nothing");
    assert!(
        checks.iter().all(|l| l.starts_with("PASS ")),
        "{}",
        st.run.stdout
    );
    assert!(
        checks.len() >= 17,
        "only {} checks: {}",
        checks.len(),
        st.run.stdout
    );
    let want = format!("selftest: {} passed, 0 failed (", checks.len());
    assert!(
        last.starts_with(&want),
        "last line {last:?}, want {want:?}..."
    );
    assert!(st.dir.join("logs/crawl.log").is_file());

    let again = trawl(&["selftest", "--keep", s(&st.dir)]);
    assert_eq!(again.code, Some(1), "{again:?}");
    assert!(
        again.stderr.contains(s(&st.dir)) && again.stderr.contains("already holds a crawl"),
        "{}",
        again.stderr
    );
    assert!(
        !again.stdout.contains("PASS"),
        "it crawled again: {}",
        again.stdout
    );
}

#[test]
fn warc_verify_accepts_the_selftest_warcs() {
    for warc in selftest_warcs() {
        let run = trawl(&["warc", "verify", s(&warc)]);
        assert_eq!(run.code, Some(0), "{run:?}");
        let want = format!("ok {}: ", warc.display());
        assert!(run.stdout.starts_with(&want), "{}", run.stdout);
        assert_eq!(run.stdout.lines().count(), 1, "{}", run.stdout);
    }
}

#[test]
fn warc_ls_lists_every_record_warcinfo_first() {
    for warc in selftest_warcs() {
        let run = trawl(&["warc", "ls", s(&warc)]);
        assert_eq!(run.code, Some(0), "{run:?}");
        let records: Vec<_> = trawl_warc::open(&warc)
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let lines: Vec<Vec<&str>> = run
            .stdout
            .lines()
            .map(|l| l.split('\t').collect())
            .collect();
        assert_eq!(lines.len(), records.len(), "{}", run.stdout);
        assert_eq!(&lines[0][..2], ["0", "warcinfo"], "{}", run.stdout);
        for (line, rec) in lines.iter().zip(&records) {
            assert_eq!(line.len(), 6, "{line:?}");
            assert_eq!(line[0], rec.offset.to_string());
            assert_eq!(line[1], rec.get("WARC-Type").unwrap());
            assert_eq!(line[5], rec.get("WARC-Record-ID").unwrap());
        }
        assert!(lines[1..].iter().all(|l| l[1] != "warcinfo"));
    }
}

#[test]
fn warc_verify_names_the_offset_of_a_truncated_gzip_member() {
    let warc = &selftest_warcs()[0];
    let records: Vec<_> = trawl_warc::open(warc)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(records.len() > 3);
    // Cut the file in the middle of the third record's gzip member.
    let victim = &records[2];
    let bytes = std::fs::read(warc).unwrap();
    let cut = (victim.offset + victim.len / 2) as usize;
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("cut.warc.gz");
    std::fs::write(&copy, &bytes[..cut]).unwrap();

    let run = trawl(&["warc", "verify", s(&copy)]);
    assert_eq!(run.code, Some(1), "{run:?}");
    let want = format!(
        "FAILED {}: record at offset {}",
        copy.display(),
        victim.offset
    );
    assert!(run.stdout.starts_with(&want), "{}", run.stdout);
}

/// Writes an uncompressed WARC (warcinfo, request, response) and returns it with the response's offset.
fn small_plain_warc(dir: &Path) -> (PathBuf, u64) {
    let mut cfg = trawl_warc::WriterConfig::new(dir, "cli-test", "host");
    cfg.compression = trawl_warc::Compression::None;
    let mut writer = trawl_warc::Writer::new(cfg).unwrap();
    let date = Utc.with_ymd_and_hms(2026, 11, 22, 8, 25, 1).unwrap();
    let request = trawl_warc::Record::request(
        "http://example.com/",
        date,
        None,
        b"GET / HTTP/1.1\r\nHost: example.com\r\n\r\n".to_vec(),
    );
    let response = trawl_warc::Record::response(
        "http://example.com/",
        date,
        None,
        b"HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nhello, world!".to_vec(),
    );
    let written = writer.write(&[request, response]).unwrap();
    writer.close().unwrap();
    (written.path, written.records[1].offset)
}

#[test]
fn warc_ls_and_verify_on_a_known_plain_warc() {
    let dir = tempfile::tempdir().unwrap();
    let (warc, response_at) = small_plain_warc(dir.path());
    assert!(s(&warc).ends_with(".warc"), "{}", warc.display());

    let ls = trawl(&["warc", "ls", s(&warc)]);
    assert_eq!(ls.code, Some(0), "{ls:?}");
    let rows: Vec<Vec<&str>> = ls.stdout.lines().map(|l| l.split('\t').collect()).collect();
    let summary: Vec<_> = rows.iter().map(|r| (r[1], r[2])).collect();
    assert_eq!(
        summary,
        [
            ("warcinfo", "-"),
            ("request", "http://example.com/"),
            ("response", "http://example.com/")
        ],
        "{}",
        ls.stdout
    );
    assert_eq!(rows[2][0], response_at.to_string());

    let ok = trawl(&["warc", "verify", s(&warc)]);
    assert_eq!(ok.code, Some(0), "{ok:?}");
    assert_eq!(
        ok.stdout,
        format!(
            "ok {}: 3 records (1 request, 1 response, 1 warcinfo)\n",
            warc.display()
        )
    );
}

#[test]
fn warc_verify_names_the_offset_of_a_flipped_block_byte() {
    let dir = tempfile::tempdir().unwrap();
    let (warc, response_at) = small_plain_warc(dir.path());
    let mut bytes = std::fs::read(&warc).unwrap();
    // The body's "world" sits in the response record's block, before its closing CRLF CRLF.
    let at = bytes
        .windows(5)
        .rposition(|w| w == b"world")
        .expect("body in the file");
    assert!(at as u64 > response_at);
    bytes[at] ^= 0x20; // "world" -> "World"
    let bad = dir.path().join("flipped.warc");
    std::fs::write(&bad, &bytes).unwrap();

    let run = trawl(&["warc", "verify", s(&warc), s(&bad)]);
    assert_eq!(run.code, Some(1), "{run:?}");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", run.stdout);
    assert!(lines[0].starts_with(&format!("ok {}", warc.display())));
    let want = format!("FAILED {}: record at offset {response_at} (", bad.display());
    assert!(lines[1].starts_with(&want), "{}", lines[1]);
    assert!(
        lines[1].contains("WARC-Block-Digest mismatch"),
        "{}",
        lines[1]
    );
}

#[test]
fn warc_index_names_a_record_it_cannot_index() {
    let dir = tempfile::tempdir().unwrap();
    let block = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\nhi";
    let record = |target: &str| {
        format!(
            "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:1>\r\n{target}\
             WARC-Date: 2026-11-30T00:00:00Z\r\nContent-Type: application/http; msgtype=response\r\n\
             Content-Length: {}\r\n\r\n{block}\r\n\r\n",
            block.len()
        )
    };
    let first = record("WARC-Target-URI: http://a.example/\r\n");
    let warc = dir.path().join("t.warc");
    std::fs::write(&warc, first.clone() + &record("")).unwrap();
    let run = trawl(&["warc", "index", s(&warc)]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout.lines().count(), 1, "{run:?}");
    assert!(
        run.stderr.contains(&format!(
            "{} at offset {}: a response record without WARC-Target-URI has no index line",
            warc.display(),
            first.len()
        )),
        "{run:?}"
    );
}

/// A plain WARC of one response record per `(target, date)`.
fn small_warc(path: &Path, records: &[(&str, &str)]) {
    let block = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\nhi";
    let text: String = records
        .iter()
        .enumerate()
        .map(|(i, (target, date))| {
            format!(
                "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{i}>\r\n\
                 WARC-Target-URI: {target}\r\nWARC-Date: {date}\r\n\
                 Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{block}\r\n\r\n",
                block.len()
            )
        })
        .collect();
    std::fs::write(path, text).unwrap();
}

/// `trawl warc index -o` never puts the index in place of an archive (an input, an archive's name or bytes)
/// and writes through a link or a device (xt15a F2, F3); a mistyped input or an index given as input is the
/// command's mistake, nothing written (F15).
#[test]
fn warc_index_output_never_replaces_an_archive() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.warc");
    small_warc(&a, &[("http://a.example/", "2026-11-30T00:00:00Z")]);
    let original = std::fs::read(&a).unwrap();
    let renamed = dir.path().join("a.bak");
    std::fs::copy(&a, &renamed).unwrap();
    let new_warc = dir.path().join("new.warc.gz");
    for (out, says) in [
        (&a, "named as a WARC or ARC file"),
        (&new_warc, "named as a WARC or ARC file"),
        (&renamed, "one of the files to index"),
    ] {
        let run = trawl(&["warc", "index", s(&a), s(&renamed), "-o", s(out)]);
        assert_eq!(run.code, Some(1), "{run:?}");
        assert!(
            run.stderr.contains(says) && run.stderr.contains("nothing was written"),
            "{run:?}"
        );
    }
    let other = dir.path().join("other.idx");
    std::fs::copy(&a, &other).unwrap();
    let run = trawl(&["warc", "index", s(&a), "-o", s(&other)]);
    assert!(run.stderr.contains("holding an archive"), "{run:?}");
    assert_eq!(std::fs::read(&a).unwrap(), original);
    assert!(!new_warc.exists());
    // Through a link to its file, which stays a link; to a device, written through.
    let target = dir.path().join("shared.cdxj");
    std::fs::write(&target, "old\n").unwrap();
    let link = dir.path().join("link.cdxj");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let run = trawl(&["warc", "index", s(&a), "-o", s(&link)]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        std::fs::read_to_string(&target)
            .unwrap()
            .starts_with("example,a)/ 20261130000000 ")
    );
    let run = trawl(&["warc", "index", s(&a), "-o", "/dev/null"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    // Standard output named as a path is written through this process's own handle (xt15c F1).
    let run = trawl(&["warc", "index", s(&a), "-o", "/dev/stdout"]);
    assert!(
        run.code == Some(0) && run.stdout.starts_with("example,a)/ 20261130000000 "),
        "{run:?}"
    );
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
    // A typo and an index as input.
    let out = dir.path().join("o.cdxj");
    let typo = dir.path().join("typo.warc");
    let run = trawl(&["warc", "index", s(&a), s(&typo), "-o", s(&out)]);
    assert!(
        run.code == Some(1) && run.stderr.contains("no such file or folder"),
        "{run:?}"
    );
    let run = trawl(&["warc", "index", s(&target), "-o", s(&out)]);
    assert!(
        run.code == Some(1) && run.stderr.contains("an index, not an archive"),
        "{run:?}"
    );
    assert!(!out.exists());
    // Beside an archive (`index out/*`), an index is passed over (xt38b N7).
    let run = trawl(&["warc", "index", s(&a), s(&target), "-o", s(&out)]);
    assert!(
        run.code == Some(0) && run.stderr.contains("passed over") && out.exists(),
        "{run:?}"
    );
}

/// A WARC-Date that is no time gets no index line and a warning; one with an offset or reduced precision
/// is indexed at its UTC time (xt15a F7: the date's digits were taken as they came).
#[test]
fn warc_index_reads_dates_as_times() {
    let dir = tempfile::tempdir().unwrap();
    let warc = dir.path().join("d.warc");
    small_warc(
        &warc,
        &[
            ("http://a.example/1", "2010-01-01T00:00:01+02:00"),
            ("http://a.example/2", "2010-01-01"),
            ("http://a.example/3", "2010-13-45T99:99:99Z"),
        ],
    );
    let run = trawl(&["warc", "index", s(&warc)]);
    let stamps: Vec<&str> = run
        .stdout
        .lines()
        .filter_map(|l| l.split(' ').nth(1))
        .collect();
    assert_eq!(stamps, ["20091231220001", "20100101000000"], "{run:?}");
    assert!(
        run.stderr
            .contains("without a WARC-Date of a real time (it says \"2010-13-45T99:99:99Z\")"),
        "{run:?}"
    );
}

/// `trawl warc ls` lists every file, a damaged one up to its damage, and fails naming it (xt15a F16).
#[test]
fn warc_ls_goes_on_past_a_damaged_file() {
    let dir = tempfile::tempdir().unwrap();
    let (one, two, three) = (
        dir.path().join("1.warc"),
        dir.path().join("2.warc"),
        dir.path().join("3.warc"),
    );
    for p in [&one, &two, &three] {
        small_warc(
            p,
            &[
                ("http://a.example/x", "2026-11-30T00:00:00Z"),
                ("http://a.example/y", "2026-11-30T00:00:00Z"),
            ],
        );
    }
    let whole = std::fs::read(&two).unwrap();
    std::fs::write(&two, &whole[..whole.len() - 20]).unwrap();
    let run = trawl(&["warc", "ls", s(&one), s(&two), s(&three)]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert_eq!(run.stdout.lines().count(), 5, "{run:?}");
    assert!(run.stderr.contains("1 damaged file"), "{run:?}");
}

/// `convert` and `recompress` leave an index of the output's name that they did not write alone (xt15a F14).
#[test]
fn warc_rewrites_keep_an_index_they_did_not_write() {
    let dir = tempfile::tempdir().unwrap();
    let warc = dir.path().join("in.warc");
    small_warc(&warc, &[("http://a.example/", "2026-11-30T00:00:00Z")]);
    let index = dir.path().join("X.cdxj");
    std::fs::write(&index, "precious\n").unwrap();
    let run = trawl(&[
        "warc",
        "recompress",
        s(&warc),
        s(&dir.path().join("X.warc.gz")),
    ]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(run.stderr.contains("which exists already"), "{run:?}");
    assert_eq!(std::fs::read_to_string(&index).unwrap(), "precious\n");
}

/// The schema example of docs/url-classes.md is a class `trawl check` accepts as written (xt6c F1).
#[test]
fn the_url_class_schema_example_passes_check() {
    let doc = include_str!("../../../docs/url-classes.md");
    let start = doc.find("```toml\n").expect("a toml block") + "```toml\n".len();
    let end = start + doc[start..].find("```").expect("its end");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("lib.toml"), &doc[start..end]).unwrap();
    let crawl = dir.path().join("crawl.toml");
    std::fs::write(
        &crawl,
        "[seeds]\nurls = [\"http://127.0.0.1:9/\"]\n[classes]\nfiles = [\"lib.toml\"]\n",
    )
    .unwrap();
    let run = trawl(&["check", s(&crawl)]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("ok (1 URL class)"), "{run:?}");
}

/// A Redis password in `--frontier` is never printed (xt6a F16): messages show `PASSWORD` in its place.
#[test]
fn a_redis_password_is_not_printed() {
    let run = trawl(&[
        "ctl",
        "--frontier",
        "redis://:s3cret@127.0.0.1:1/0",
        "nl",
        "queues",
    ]);
    assert_ne!(run.code, Some(0), "{run:?}");
    let said = run.stdout.clone() + &run.stderr;
    assert!(!said.contains("s3cret"), "{said}");
    assert!(said.contains("redis://:PASSWORD@127.0.0.1:1/0"), "{said}");
}

/// `--host-name` takes a name a `Host` can carry; a URL, a path or an empty name is refused at start, naming
/// the flag (xt11a F7: it was taken, and every request by that name answered 421).
#[test]
fn serve_refuses_a_host_name_no_host_can_carry() {
    let dir = tempfile::tempdir().unwrap();
    for bad in ["http://crawler01", "", "cr awler", "crawler01/ui"] {
        let run = trawl(&[
            "serve",
            "--jobs",
            s(dir.path()),
            "--bind",
            "127.0.0.1:0",
            "--host-name",
            bad,
        ]);
        assert_eq!(run.code, Some(1), "{bad:?}: {run:?}");
        assert!(
            run.stderr.contains(&format!("--host-name {bad:?}")),
            "{bad:?}: {}",
            run.stderr
        );
    }
}

/// `--bind` says what to write when it cannot read an address (xt23a F8: clap's bare "invalid socket address
/// syntax").
#[test]
fn a_bind_address_it_cannot_read_says_what_to_write() {
    let run = trawl(&["serve", "--bind", "localhost:http"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains("give an IP address and a port"),
        "{}",
        run.stderr
    );
}

/// Whether a line of `stderr` begins at `at` (`FILE:LINE:`) and says `says`.
fn said_at(stderr: &str, at: &str, says: &str) -> bool {
    stderr
        .lines()
        .any(|l| l.starts_with(at) && l.contains(says))
}
