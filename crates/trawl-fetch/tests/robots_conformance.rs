//! The public robots.txt conformance suites (testdata/robots/, see its README) against trawl's RFC 9309
//! parser: Google's robotstxt tests and the robotstxt-spec-test corpus. Every case that is not Google-specific
//! must pass; the Google-specific ones are counted and may not fall below what passes today. The cases in
//! [`RFC_TABLE`] are answered the other way, by RFC 9309 itself.

use std::path::Path;

use trawl_fetch::robots::{RobotsTxt, path_of};

struct Case {
    name: String,
    robots: Vec<u8>,
    agent: String,
    url: String,
    allowed: bool,
    google_specific: bool,
}

fn load(file: &str) -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/robots")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            let v: serde_json::Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{file}:{}: {e}", i + 1));
            let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
            let robots = match v["robots"].as_str() {
                Some(body) => body.as_bytes().to_vec(),
                None => hex(&s("robots_hex")),
            };
            Case {
                name: s("name"),
                robots,
                agent: s("agent"),
                url: s("url"),
                allowed: v["allowed"].as_bool().expect("allowed"),
                google_specific: v["google_specific"].as_bool().unwrap_or(false),
            }
        })
        .collect()
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}

/// Cases where the suites expect a percent-encoded unreserved character not to be decoded
/// (`Allow: /foo/bar/%62%61%7A` does not allow `/foo/bar/baz`), which RFC 9309 §2.2.2 asks for and its
/// table spells out (`/foo/bar/%62%61%7A` is matched as `/foo/bar/baz`): trawl follows the RFC (xt12a F2),
/// so these give the opposite of the suite's answer.
const RFC_TABLE: [&str; 2] = ["ID_Encoding#6", "correctness/non-ascii-paths#6"];

/// Runs a suite; returns (RFC cases passed, RFC cases, Google-specific passed, Google-specific), and the
/// names of the RFC cases that failed.
fn run(file: &str) -> ((usize, usize, usize, usize), Vec<String>) {
    let mut counts = (0, 0, 0, 0);
    let mut failed = Vec::new();
    for case in load(file) {
        let got = RobotsTxt::parse(&case.robots).allowed(&case.agent, &path_of(&case.url));
        let pass = got == (case.allowed != RFC_TABLE.contains(&case.name.as_str()));
        if case.google_specific {
            counts.2 += usize::from(pass);
            counts.3 += 1;
        } else {
            counts.0 += usize::from(pass);
            counts.1 += 1;
            if !pass {
                failed.push(format!(
                    "{} (agent {:?}, url {:?}, want allowed={})",
                    case.name, case.agent, case.url, case.allowed
                ));
            }
        }
    }
    eprintln!(
        "{file}: {}/{} RFC cases, {}/{} Google-specific cases pass",
        counts.0, counts.1, counts.2, counts.3
    );
    (counts, failed)
}

#[test]
fn googles_robotstxt_tests() {
    let ((pass, all, google, google_all), failed) = run("google.jsonl");
    assert_eq!((all, google_all), (71, 74), "the vendored file changed");
    assert!(
        failed.is_empty(),
        "{pass}/{all}; failed:\n{}",
        failed.join("\n")
    );
    assert_eq!(
        google, google_all,
        "Google-specific cases that pass today must keep passing"
    );
}

#[test]
fn robotstxt_spec_test_corpus() {
    let ((pass, all, google, google_all), failed) = run("spec-test.jsonl");
    assert_eq!((all, google_all), (378, 22), "the vendored file changed");
    assert!(
        failed.is_empty(),
        "{pass}/{all}; failed:\n{}",
        failed.join("\n")
    );
    assert_eq!(
        google, google_all,
        "Google-specific cases that pass today must keep passing"
    );
}

#[test]
fn the_cases_answered_by_the_rfc_table_exist() {
    let names: Vec<String> = ["google.jsonl", "spec-test.jsonl"]
        .into_iter()
        .flat_map(load)
        .map(|case| case.name)
        .collect();
    for name in RFC_TABLE {
        assert!(names.iter().any(|n| n == name), "{name} is in no suite");
    }
}
