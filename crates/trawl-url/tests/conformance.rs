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

/// Cases run per suite, for the per-suite counts the test prints.
static RUN: std::sync::Mutex<std::collections::BTreeMap<String, usize>> =
    std::sync::Mutex::new(std::collections::BTreeMap::new());

fn count_run(suite: &str) {
    *RUN.lock().unwrap().entry(suite.to_owned()).or_default() += 1;
}

fn check(
    suite: &str,
    input: &str,
    got: Result<String, String>,
    want: &str,
    fails: &mut Vec<Failure>,
) -> bool {
    count_run(suite);
    let why = match got {
        Ok(g) if g == want => return true,
        Ok(g) => format!("got {g:?}, want {want:?}"),
        Err(e) => format!("error {e}, want {want:?}"),
    };
    fails.push((suite.into(), input.into(), why));
    false
}

/// `input` read as ISO-8859-1 bytes (as urlcanon's tests read it), given back as text: runs of valid UTF-8
/// decoded, other bytes percent-encoded. Text with a character above U+00FF is returned as it is.
fn latin1_bytes_as_text(input: &str) -> String {
    let Ok(bytes) = input
        .chars()
        .map(|c| u8::try_from(u32::from(c)))
        .collect::<Result<Vec<u8>, _>>()
    else {
        return input.to_owned();
    };
    let mut out = String::new();
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
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
    // urlcanon's `semantic` is `semantic_precise` followed by `remove_fragment` (urlcanon canon.py), so its
    // published semantic_precise cases are checked with the fragment taken off the expected URL. urlcanon reads
    // each input as ISO-8859-1 bytes (SemanticPreciseTest.java); trawl reads text, so the bytes are given as
    // UTF-8 where they are UTF-8 and percent-encoded where they are not.
    for (input, want) in load("urlcanon/semantic_precise.json").as_object().unwrap() {
        let want = want.as_str().unwrap();
        let want = want.split_once('#').map_or(want, |(w, _)| w);
        passed += usize::from(check(
            "urlcanon-semantic",
            input,
            canon(Canonicalizer::Semantic, &latin1_bytes_as_text(input)),
            want,
            &mut fails,
        ));
    }

    // IA's surt() with its options: the package's own examples, then hosts archives index (dns:, IP addresses,
    // percent-escapes, ports) under every combination of the options (ia-surt/make_hosts.py).
    for (suite, file) in [
        ("ia-surt-options", "ia-surt/surt_options.json"),
        ("ia-surt-hosts", "ia-surt/hosts.json"),
    ] {
        for case in load(file).as_array().unwrap() {
            let input = case["url"].as_str().unwrap();
            let o = &case["options"];
            let flag = |k: &str, d: bool| o.get(k).and_then(Value::as_bool).unwrap_or(d);
            let mut opts = SurtOptions::default();
            opts.with_scheme = flag("with_scheme", false);
            opts.trailing_comma = flag("trailing_comma", false);
            opts.host_massage = flag("host_massage", true);
            opts.reverse_ipaddr = flag("reverse_ipaddr", true);
            let got = parse_lenient(input)
                .map(|u| cdx(&u, &opts))
                .map_err(|e| e.to_string());
            let name = format!("{input} {o}");
            passed += usize::from(check(
                suite,
                &name,
                got,
                case["surt"].as_str().unwrap(),
                &mut fails,
            ));
        }
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
        count_run("whatwg");
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
    for (suite, run) in RUN.lock().unwrap().iter() {
        let failed = fails.iter().filter(|(s, _, _)| s == suite).count();
        println!("  {suite}: {}/{run}", run - failed);
    }
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
