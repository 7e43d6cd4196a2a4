//! The public conformance data under testdata/: every case passes or is listed in testdata/DEVIATIONS.tsv
//! (suite, input, reason). A listed case that passes is an error too, so the list stays true.
//!
//! `TRAWL_PRINT_DEVIATIONS=1 cargo test -p trawl-url --test conformance -- --nocapture` prints the failures.

use std::collections::BTreeSet;

use serde_json::Value;
use trawl_url::{
    Url,
    canon::Canonicalizer,
    parse_lenient,
    surt::{SurtOptions, cdx},
};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/");

fn load(path: &str) -> Value {
    let text = std::fs::read_to_string(format!("{ROOT}{path}")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// A failed case: `(suite, input, what happened)`.
type Failure = (String, String, String);

fn check(
    suite: &str,
    input: &str,
    got: Result<String, String>,
    want: &str,
    fails: &mut Vec<Failure>,
) -> bool {
    let why = match got {
        Ok(g) if g == want => return true,
        Ok(g) => format!("got {g:?}, want {want:?}"),
        Err(e) => format!("error {e}, want {want:?}"),
    };
    fails.push((suite.into(), input.into(), why));
    false
}

fn canon(c: Canonicalizer, input: &str) -> Result<String, String> {
    parse_lenient(input)
        .map(|u| c.canonicalize(&u))
        .map_err(|e| e.to_string())
}

fn map_suite(
    file: &str,
    section: Option<&str>,
    suite: &str,
    c: Canonicalizer,
    fails: &mut Vec<Failure>,
) -> usize {
    let v = load(file);
    let cases = section.map_or(&v, |s| &v[s]).as_object().unwrap();
    let mut passed = 0;
    for (input, want) in cases {
        passed += usize::from(check(
            suite,
            input,
            canon(c, input),
            want.as_str().unwrap(),
            fails,
        ));
    }
    passed
}

#[test]
fn conformance() {
    let mut fails = Vec::new();
    let mut passed = 0;
    let suites = [
        (
            "urlcanon/aggressive.json",
            None,
            "urlcanon-aggressive",
            Canonicalizer::Aggressive,
        ),
        (
            "urlcanon/surt.json",
            Some("Canonicalizer.Google"),
            "ia-google",
            Canonicalizer::Google,
        ),
        (
            "urlcanon/surt.json",
            Some("googleSupplementalFromSurt"),
            "ia-google",
            Canonicalizer::Google,
        ),
        (
            "urlcanon/surt.json",
            Some("Canonicalizer.DefaultIA"),
            "ia-default",
            Canonicalizer::Ia,
        ),
        (
            "urlcanon/surt.json",
            Some("Canonicalizer.IA"),
            "ia-ia",
            Canonicalizer::Ia,
        ),
    ];
    for (file, section, suite, c) in suites {
        passed += map_suite(file, section, suite, c, &mut fails);
    }

    // surt() with default options; the empty input ("-" in IA) is the CLI's business, not the library's.
    for (input, want) in load("urlcanon/surt.json")["defaultIASurt"]
        .as_object()
        .unwrap()
    {
        if input.is_empty() {
            continue;
        }
        let got = parse_lenient(input)
            .map(|u| cdx(&u, &SurtOptions::default()))
            .map_err(|e| e.to_string());
        passed += usize::from(check(
            "ia-surt",
            input,
            got,
            want.as_str().unwrap(),
            &mut fails,
        ));
    }
    for case in load("ia-surt/surt_options.json").as_array().unwrap() {
        let input = case["url"].as_str().unwrap();
        let o = &case["options"];
        let flag = |k: &str, d: bool| o.get(k).and_then(Value::as_bool).unwrap_or(d);
        let mut opts = SurtOptions::default();
        opts.with_scheme = flag("with_scheme", false);
        opts.trailing_comma = flag("trailing_comma", false);
        opts.host_massage = flag("host_massage", true);
        let got = parse_lenient(input)
            .map(|u| cdx(&u, &opts))
            .map_err(|e| e.to_string());
        let name = format!("{input} {o}");
        passed += usize::from(check(
            "ia-surt-options",
            &name,
            got,
            case["surt"].as_str().unwrap(),
            &mut fails,
        ));
    }

    // WHATWG: parse against the base and compare the serialization (or the failure).
    for case in load("whatwg/urltestdata.json").as_array().unwrap() {
        let Some(input) = case.get("input").and_then(Value::as_str) else {
            continue;
        };
        let got = match case.get("base").and_then(Value::as_str) {
            Some(b) => Url::parse(b).and_then(|b| b.join(input)),
            None => Url::parse(input),
        };
        let why = match (
            got,
            case.get("failure")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        ) {
            (Err(_), true) => None,
            (Ok(u), false) if Some(u.as_str()) == case["href"].as_str() => None,
            (Ok(u), false) => Some(format!("got {:?}, want {:?}", u.as_str(), case["href"])),
            (Ok(u), true) => Some(format!("parsed as {:?}, want failure", u.as_str())),
            (Err(e), false) => Some(format!("error {e}")),
        };
        match why {
            None => passed += 1,
            Some(w) => fails.push(("whatwg".into(), input.into(), w)),
        }
    }

    let listed: BTreeSet<(String, String)> =
        std::fs::read_to_string(format!("{ROOT}DEVIATIONS.tsv"))
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| {
                let mut f = l.split('\t');
                (
                    f.next().unwrap().to_string(),
                    unescape(f.next().unwrap_or("")),
                )
            })
            .collect();
    if std::env::var_os("TRAWL_PRINT_DEVIATIONS").is_some() {
        for (suite, input, why) in &fails {
            println!("{suite}\t{}\t{why}", escape(input));
        }
    }
    let failed: BTreeSet<(String, String)> = fails
        .iter()
        .map(|(s, i, _)| (s.clone(), i.clone()))
        .collect();
    let unlisted: Vec<_> = fails
        .iter()
        .filter(|(s, i, _)| !listed.contains(&(s.clone(), i.clone())))
        .collect();
    let stale: Vec<_> = listed.difference(&failed).collect();
    println!(
        "conformance: {passed} passed, {} listed deviations",
        listed.len()
    );
    assert!(
        unlisted.is_empty(),
        "failing cases not in DEVIATIONS.tsv: {unlisted:#?}"
    );
    assert!(
        stale.is_empty(),
        "DEVIATIONS.tsv lists cases that now pass: {stale:#?}"
    );
}

/// Inputs hold tabs and newlines; the list writes them as `\t`, `\n`, `\r` and `\\`.
fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('\t', "\\t")
        .replace('\n', "\\n")
        .replace('\r', "\\r")
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some('t') => out.push('\t'),
                Some('n') => out.push('\n'),
                Some('r') => out.push('\r'),
                Some(o) => out.push(o),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}
