//! Tests of the whole model: hydrus's own answers (testdata/url-classes), then each rule, table-driven.

use std::path::PathBuf;

use proptest::prelude::*;
use url::Url;

use super::*;

fn testdata(file: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/url-classes")
        .join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn url(s: &str) -> Url {
    Url::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn library(toml: &str) -> UrlClasses {
    UrlClasses::from_toml_str(toml, "test.toml").unwrap_or_else(|e| panic!("{e}"))
}

/// One class named `t` on x.org, with the given extra TOML lines.
fn one(kind: &str, body: &str) -> UrlClasses {
    library(&format!(
        "[[url_class]]\nname = \"t\"\nkind = \"{kind}\"\nexample = \"https://x.org/\"\ndomains = [\"x.org\"]\n{body}\n"
    ))
}

fn norm(classes: &UrlClasses, u: &str) -> Option<(String, String)> {
    let m = classes.match_url(&url(u))?;
    Some((m.normalised.to_string(), m.for_server.to_string()))
}

/// Every real class hydrus ships (testdata/url-classes, decoded from hydrus v665) against hydrus's own answers:
/// class choice, normalised URL, URL for the server, API URL and next page, each counted per field.
#[test]
fn hydrus_cases_pass_exactly() {
    let classes = UrlClasses::from_toml_str(&testdata("classes.toml"), "classes.toml").unwrap();
    assert!(classes.len() >= 137, "{} classes", classes.len());
    assert_eq!(classes.check_examples(), vec![]);
    let cases: Vec<serde_json::Value> = serde_json::from_str(&testdata("cases.json")).unwrap();
    assert!(cases.len() >= 1000, "{} cases", cases.len());
    let fields = ["class", "normalised", "for_server", "api_url", "next_page"];
    let mut agree = [0usize; 5];
    let mut failures = Vec::new();
    for case in &cases {
        let given = case["url"].as_str().unwrap();
        let m = classes.match_url(&url(given));
        let got = |f: fn(&ClassMatch) -> Option<String>| m.as_ref().and_then(f);
        let values: [Option<String>; 5] = [
            got(|m| Some(m.class.clone())),
            got(|m| Some(m.normalised.to_string())),
            got(|m| Some(m.for_server.to_string())),
            got(|m| m.api_url.as_ref().map(Url::to_string)),
            got(|m| m.next_page.as_ref().map(Url::to_string)),
        ];
        for (i, value) in values.into_iter().enumerate() {
            let want = case[fields[i]].as_str().map(str::to_owned);
            if value == want {
                agree[i] += 1;
            } else {
                failures.push(format!(
                    "{given}\n  {}: got {value:?}\n  {}: want {want:?}",
                    fields[i], fields[i]
                ));
            }
        }
        // A problem is reported only where hydrus, too, cannot derive the URL (e.g. a page number `x`).
        if let Some(m) = &m {
            for p in &m.problems {
                assert!(
                    matches!(p, ClassError::NextPage { .. }) && case["next_page"].is_null(),
                    "{given}: {p}"
                );
            }
        }
    }
    let counts: Vec<String> = fields
        .iter()
        .zip(agree)
        .map(|(f, n)| format!("{f} {n}/{}", cases.len()))
        .collect();
    eprintln!("hydrus agreement: {}", counts.join(", "));
    assert!(
        failures.is_empty(),
        "{} of {} fields differ ({}):\n{}",
        failures.len(),
        cases.len() * fields.len(),
        counts.join(", "),
        failures.join("\n")
    );
}

#[test]
fn docs_worked_examples() {
    let classes = UrlClasses::from_toml_str(&testdata("classes.toml"), "classes.toml").unwrap();
    let m = classes
        .match_url(&url(
            "http://www.gelbooru.com/index.php?page=post&s=list&tags=uniform",
        ))
        .unwrap();
    assert_eq!(
        m.normalised.as_str(),
        "https://gelbooru.com/index.php?page=post&pid=0&s=list"
    );
    assert_eq!(
        m.for_server.as_str(),
        "https://gelbooru.com/index.php?page=post&pid=0&s=list&tags=uniform"
    );
    assert_eq!(
        m.next_page.unwrap().as_str(),
        "https://gelbooru.com/index.php?page=post&pid=42&s=list&tags=uniform"
    );
    let m = classes
        .match_url(&url("https://e621.net/posts/1910662/"))
        .unwrap();
    assert_eq!(
        m.api_url.unwrap().as_str(),
        "https://e621.net/posts/1910662.json"
    );
    assert!(m.associate_known_url);
    assert_eq!(m.kind, UrlKind::Post);
    let m = classes
        .match_url(&url("https://a.4cdn.org/m/thread/1.json"))
        .unwrap();
    assert!(!m.associate_known_url);
}

// --- matching -------------------------------------------------------------------------------------------------

macro_rules! matching {
    ($name:ident: $body:expr, yes: [$($yes:expr),*], no: [$($no:expr),*]) => {
        #[test]
        fn $name() {
            let classes = one("post", $body);
            $(assert!(classes.match_url(&url($yes)).is_some(), "{} should match", $yes);)*
            $(assert!(classes.match_url(&url($no)).is_none(), "{} should not match", $no);)*
        }
    };
}

matching!(scheme_must_be_http: "",
    yes: ["http://x.org/", "https://x.org/"], no: ["ftp://x.org/", "ws://x.org/"]);
matching!(path_in_order: r#"path = [ { match = "fixed", value = "a" }, { match = "numeric" } ]"#,
    yes: ["https://x.org/a/1", "https://x.org/a/1/extra", "https://x.org/a/1/"],
    no: ["https://x.org/1/a", "https://x.org/a", "https://x.org/a/b"]);
matching!(path_default_counts_as_present:
    r#"path = [ { match = "fixed", value = "a" }, { match = "numeric", default = "1" } ]"#,
    yes: ["https://x.org/a", "https://x.org/a/7"], no: ["https://x.org/a/b", "https://x.org/"]);
matching!(exact_path: r#"exact_path = true
    path = [ { match = "fixed", value = "a" } ]"#,
    yes: ["https://x.org/a"], no: ["https://x.org/a/b", "https://x.org/a/"]);
matching!(query_any_order: r#"query = [ { name = "s", match = "fixed", value = "view" }, { name = "id", match = "numeric" } ]"#,
    yes: ["https://x.org/?id=1&s=view", "https://x.org/?s=view&x=y&id=1", "https://x.org/?s=vi%65w&id=1"],
    no: ["https://x.org/?s=view", "https://x.org/?s=list&id=1", "https://x.org/?s=view&id=x"]);
matching!(query_default_counts_as_present: r#"query = [ { name = "pid", match = "numeric", default = "0" } ]"#,
    yes: ["https://x.org/", "https://x.org/?pid=42"], no: ["https://x.org/?pid=x"]);
matching!(exact_query: r#"exact_query = true
    query = [ { name = "id", match = "numeric" } ]"#,
    yes: ["https://x.org/?id=1"], no: ["https://x.org/?id=1&x=2", "https://x.org/?id=1&flag"]);
matching!(min_max_chars: r#"path = [ { match = "alphanumeric", min_chars = 2, max_chars = 3 } ]"#,
    yes: ["https://x.org/ab", "https://x.org/a1c"], no: ["https://x.org/a", "https://x.org/abcd"]);
matching!(regex_with_look_ahead: r#"path = [ { match = "regex", value = "^(?!search).+$" } ]"#,
    yes: ["https://x.org/posts"], no: ["https://x.org/search", "https://x.org/"]);
matching!(no_subdomains_by_default: "",
    yes: ["https://www.x.org/", "https://www3.x.org/"], no: ["https://a.x.org/", "https://x.org.y/"]);
matching!(subdomains_when_asked: "match_subdomains = true",
    yes: ["https://a.x.org/", "https://a.b.x.org/"], no: ["https://ax.org/"]);
matching!(port_is_ignored_for_matching: "", yes: ["https://x.org:8443/"], no: []);

#[test]
fn most_specific_class_wins() {
    let classes = library(
        r#"
        [[url_class]]
        name = "gallery"
        kind = "gallery"
        example = "https://x.org/posts"
        domains = ["x.org"]
        path = [ { match = "fixed", value = "posts" } ]
        query = [ { name = "page", match = "numeric", default = "1" } ]

        [[url_class]]
        name = "post"
        kind = "post"
        example = "https://x.org/posts/1"
        domains = ["x.org"]
        path = [ { match = "fixed", value = "posts" }, { match = "numeric" } ]

        [[url_class]]
        name = "b tie"
        kind = "post"
        example = "https://x.org/a?q=1"
        domains = ["x.org"]
        query = [ { name = "q", match = "any" } ]

        [[url_class]]
        name = "a tie"
        kind = "post"
        example = "https://x.org/b?q=1"
        domains = ["x.org"]
        query = [ { name = "q", match = "numeric" } ]
        "#,
    );
    let names: Vec<&str> = classes.iter().map(UrlClass::name).collect();
    assert_eq!(names, ["post", "gallery", "a tie", "b tie"]);
    // More path components beat more parameters.
    assert_eq!(
        classes
            .match_url(&url("https://x.org/posts/1?page=2"))
            .unwrap()
            .class,
        "post"
    );
    assert_eq!(
        classes
            .match_url(&url("https://x.org/posts?page=2"))
            .unwrap()
            .class,
        "gallery"
    );
    // Equal specificity: the name decides, whatever the order in the file.
    assert_eq!(
        classes.match_url(&url("https://x.org/?q=1")).unwrap().class,
        "a tie"
    );
    assert_eq!(
        classes.match_url(&url("https://x.org/?q=z")).unwrap().class,
        "b tie"
    );
    // "b tie"'s example is claimed by "a tie": a check error.
    assert!(
        matches!(&classes.check_examples()[..], [ClassError::ExampleClaimed { class, other, .. }]
        if class == "b tie" && other == "a tie")
    );
}

// --- normalisation --------------------------------------------------------------------------------------------

macro_rules! normalises {
    ($name:ident: $kind:expr, $body:expr, $($given:expr => $norm:expr, $server:expr);+ $(;)?) => {
        #[test]
        fn $name() {
            let classes = one($kind, $body);
            $(
                let (n, s) = norm(&classes, $given).unwrap_or_else(|| panic!("{} should match", $given));
                assert_eq!((n.as_str(), s.as_str()), ($norm, $server), "{}", $given);
            )+
        }
    };
}

normalises!(scheme_www_fragment: "post", r#"preferred_scheme = "http""#,
    "https://www2.x.org/#frag" => "http://x.org/", "http://x.org/");
normalises!(keep_fragment: "post", "keep_fragment = true",
    "https://x.org/a#frag" => "https://x.org/#frag", "https://x.org/a#frag");
normalises!(post_culls_path_and_query: "post",
    r#"path = [ { match = "fixed", value = "posts" }, { match = "numeric" } ]
    query = [ { name = "id", match = "any" } ]"#,
    "https://x.org/posts/1/some-slug/?lang=en&id=5&browser=x" => "https://x.org/posts/1?id=5",
        "https://x.org/posts/1/some-slug/?id=5");
normalises!(gallery_keeps_extras_for_server: "gallery",
    r#"path = [ { match = "fixed", value = "search" } ]
    query = [ { name = "page", match = "numeric", default = "1" } ]"#,
    "https://x.org/search/more?tags=a+b&sort=desc&flag" => "https://x.org/search?page=1",
        "https://x.org/search/more?page=1&sort=desc&tags=a+b&flag");
normalises!(watchable_extras_can_be_dropped_for_server: "watchable",
    r#"keep_extra_query_for_server = false
    path = [ { match = "any" } ]"#,
    "https://x.org/thread?x=1" => "https://x.org/thread", "https://x.org/thread");
normalises!(post_extras_can_be_kept_for_server: "post",
    r#"keep_extra_query_for_server = true
    query = [ { name = "id", match = "numeric" } ]"#,
    "https://x.org/?z=1&id=2" => "https://x.org/?id=2", "https://x.org/?id=2&z=1");
normalises!(exact_query_never_keeps_extras: "gallery",
    r#"exact_query = true
    keep_extra_query_for_server = true
    query = [ { name = "id", match = "numeric" } ]"#,
    "https://x.org/?id=2" => "https://x.org/?id=2", "https://x.org/?id=2");
normalises!(path_defaults_filled: "gallery",
    r#"path = [ { match = "fixed", value = "pictures" }, { match = "any" }, { match = "fixed", value = "page", default = "page" },
      { match = "numeric", default = "1" } ]"#,
    "https://x.org/pictures/someone" => "https://x.org/pictures/someone/page/1", "https://x.org/pictures/someone/page/1";
    "https://x.org/pictures/someone/page/3/x" => "https://x.org/pictures/someone/page/3",
        "https://x.org/pictures/someone/page/3/x");
normalises!(defaults_are_encoded: "gallery",
    r#"query = [ { name = "sort by", match = "any", default = "new & hot" } ]"#,
    "https://x.org/" => "https://x.org/?sort%20by=new%20%26%20hot", "https://x.org/?sort%20by=new%20%26%20hot");
normalises!(query_order_kept_when_not_alphabetised: "gallery",
    r#"alphabetise_query = false
    query = [ { name = "s", match = "any" }, { name = "pid", match = "numeric", default = "0" } ]"#,
    "https://x.org/?tags=x&s=list&flag" => "https://x.org/?s=list&pid=0", "https://x.org/?tags=x&s=list&flag&pid=0");
normalises!(repeated_parameter_keeps_last_value: "post",
    r#"query = [ { name = "id", match = "numeric" } ]"#,
    "https://x.org/?id=1&id=2" => "https://x.org/?id=2", "https://x.org/?id=2");
normalises!(subdomain_dropped_unless_kept: "file", "match_subdomains = true",
    "https://cdn3.x.org/" => "https://x.org/", "https://x.org/");
normalises!(subdomain_kept: "file", "match_subdomains = true\nkeep_subdomains = true",
    "https://www.cdn3.x.org/" => "https://www.cdn3.x.org/", "https://www.cdn3.x.org/");
normalises!(port_and_userinfo: "file", "",
    "http://u:p@x.org:8080/" => "https://x.org:8080/", "https://u:p@x.org:8080/");
normalises!(api_class_clips_path_for_server: "post",
    r#"path = [ { match = "numeric" } ]
    api = [ { append = ".json" } ]"#,
    "https://x.org/1/slug" => "https://x.org/1", "https://x.org/1");

#[test]
fn normalise_refuses_urls_of_other_classes() {
    let classes = one("post", r#"path = [ { match = "numeric" } ]"#);
    let class = classes.get("t").unwrap();
    let err = class.normalise(&url("https://x.org/abc")).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"url class "t" does not match https://x.org/abc: path component 0: "abc" is not numeric"#
    );
    let err = class.test(&url("https://y.org/1")).unwrap_err();
    assert!(
        err.to_string()
            .ends_with(r#"host "y.org" is not one of the class's domains"#),
        "{err}"
    );
}

// --- next page and API URL ------------------------------------------------------------------------------------

#[test]
fn next_page_by_path_component() {
    let classes = one(
        "gallery",
        r#"path = [ { match = "fixed", value = "page" }, { match = "numeric", default = "1" } ]
        next_page = { path = 1 }"#,
    );
    let m = classes.match_url(&url("https://x.org/page?q=a")).unwrap();
    assert_eq!(m.normalised.as_str(), "https://x.org/page/1");
    assert_eq!(m.next_page.unwrap().as_str(), "https://x.org/page/2?q=a");
}

#[test]
fn next_page_failure_is_a_problem_not_a_miss() {
    let classes = one(
        "gallery",
        "path = [ { match = \"any\" } ]\nnext_page = { path = 0, delta = 10 }",
    );
    let m = classes.match_url(&url("https://x.org/abc")).unwrap();
    assert_eq!(m.next_page, None);
    assert!(
        matches!(&m.problems[..], [ClassError::NextPage { .. }]),
        "{:?}",
        m.problems
    );
    let m = classes.match_url(&url("https://x.org/5")).unwrap();
    assert_eq!(m.next_page.unwrap().as_str(), "https://x.org/15");
}

#[test]
fn api_url_and_its_checks() {
    let toml = r#"
        [[url_class]]
        name = "post"
        kind = "post"
        example = "https://x.org/post/12"
        domains = ["x.org"]
        path = [ { match = "fixed", value = "post" }, { match = "numeric" } ]
        api = [ { regex_sub = { pattern = "^https://x.org/post/(\\d+)$", replace = "https://api.x.org/v1/${1}.json" } } ]
    "#;
    let api_class = r#"
        [[url_class]]
        name = "post api"
        kind = "post"
        example = "https://api.x.org/v1/12.json"
        domains = ["api.x.org"]
        path = [ { match = "fixed", value = "v1" }, { match = "regex", value = "^\\d+\\.json$" } ]
    "#;
    let alone = library(toml);
    let m = alone
        .match_url(&url("http://x.org/post/12/slug?x=1"))
        .unwrap();
    assert_eq!(m.normalised.as_str(), "https://x.org/post/12");
    assert_eq!(m.api_url.unwrap().as_str(), "https://api.x.org/v1/12.json");
    assert!(
        matches!(&alone.check_examples()[..], [ClassError::ApiUrlUnmatched { class, .. }] if class == "post")
    );
    assert_eq!(
        library(&format!("{toml}{api_class}")).check_examples(),
        vec![]
    );

    let looping = one(
        "post",
        "path = [ { match = \"any\" } ]\napi = [ { append = \"x\" } ]",
    );
    assert!(matches!(
        &looping.check_examples()[..],
        [ClassError::ApiUrlLoops { .. }]
    ));
    let broken = one("post", "api = [ { add_integer = 1 } ]");
    let m = broken.match_url(&url("https://x.org/")).unwrap();
    assert_eq!(m.api_url, None);
    assert!(matches!(&m.problems[..], [ClassError::Convert { field, .. }] if field == "api"));
    let not_url = one("post", "api = [ { keep_start = 5 } ]");
    let err = not_url
        .get("t")
        .unwrap()
        .api_url(&url("https://x.org/"))
        .unwrap_err();
    assert!(matches!(err, ClassError::BadDerivedUrl { .. }), "{err}");
}

/// A default that fails its own match (hydrus ships such classes) loads, with a warning naming the field; it is
/// used, as hydrus uses it, only where the component is missing.
#[test]
fn odd_default_loads_with_a_warning() {
    let classes = one(
        "post",
        r#"path = [ { match = "fixed", value = "en", default = "/en/" }, { match = "numeric" } ]"#,
    );
    let warnings: Vec<String> = classes.warnings().map(|w| w.to_string()).collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("field path[0].default: the default fails its own match"),
        "{}",
        warnings[0]
    );
    let m = classes.match_url(&url("https://x.org/en/12")).unwrap();
    assert_eq!(m.normalised.as_str(), "https://x.org/en/12");
}

// --- configuration errors -------------------------------------------------------------------------------------

fn config_error(body: &str) -> String {
    let text = format!(
        "[[url_class]]\nname = \"first\"\nkind = \"post\"\nexample = \"https://a.org/\"\ndomains = [\"a.org\"]\n\n\
         [[url_class]]\nname = \"bad one\"\nkind = \"gallery\"\nexample = \"https://x.org/\"\n{body}\n"
    );
    UrlClasses::from_toml_str(&text, "lib.toml")
        .unwrap_err()
        .to_string()
}

macro_rules! config_errors {
    ($($name:ident: $body:expr => $want:expr;)+) => {$(
        #[test]
        fn $name() {
            let err = config_error($body);
            assert!(err.contains($want), "{err}\n  should contain {}", $want);
        }
    )+};
}

config_errors! {
    unknown_field_names_class: "domains = [\"x.org\"]\nmach = 1" => "lib.toml (url class \"bad one\"): TOML parse error";
    unknown_field_names_field: "domains = [\"x.org\"]\nmach = 1" => "unknown field `mach`";
    unknown_component_field: "domains = [\"x.org\"]\npath = [ { mach = \"any\" } ]" => "url class \"bad one\"";
    bad_match_type: "domains = [\"x.org\"]\npath = [ { match = \"digits\" } ]" => "unknown variant `digits`";
    missing_value: "domains = [\"x.org\"]\npath = [ { match = \"any\" }, { match = \"fixed\" } ]" =>
        "url class \"bad one\": field path[1].value: is required";
    bad_regex: "domains = [\"x.org\"]\nquery = [ { name = \"a\", match = \"regex\", value = \"(\" } ]" =>
        "url class \"bad one\": field query[0].value: \"(\" is not a valid regex";
    no_domains: "" => "url class \"bad one\": field domains: a class needs at least one domain";
    bad_domain_regex: "domain_regexes = [\"[\"]" => "field domain_regexes[0]";
    bad_api_regex: "domains = [\"x.org\"]\napi = [ \"reverse\", { regex_sub = { pattern = \"(\", replace = \"\" } } ]" =>
        "url class \"bad one\": field api: step 1: \"(\" is not a valid regex";
    next_page_unknown_param: "domains = [\"x.org\"]\nnext_page = { query = \"pid\" }" =>
        "field next_page.query: \"pid\" is not one of the class's query parameters";
    next_page_bad_index: "domains = [\"x.org\"]\nnext_page = { path = 0 }" => "field next_page.path";
    next_page_both: "domains = [\"x.org\"]\npath = [ { match = \"numeric\" } ]\nnext_page = { path = 0, query = \"a\" }" =>
        "field next_page: needs exactly one";
    duplicate_param: "domains = [\"x.org\"]\nquery = [ { name = \"a\", match = \"any\" }, { name = \"a\", match = \"any\" } ]" =>
        "field query[1].name: \"a\" is listed twice";
}

#[test]
fn next_page_only_for_galleries() {
    let err = UrlClasses::from_toml_str(
        "[[url_class]]\nname = \"w\"\nkind = \"watchable\"\nexample = \"https://x.org/1\"\ndomains = [\"x.org\"]\n\
         path = [ { match = \"numeric\" } ]\nnext_page = { path = 0 }",
        "lib.toml",
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("field next_page: is only for gallery classes, not watchable"),
        "{err}"
    );
}

#[test]
fn every_invalid_class_is_reported_and_names_are_unique() {
    let text = "[[url_class]]\nname = \"a\"\nkind = \"post\"\nexample = \"https://x.org/\"\n\n\
                [[url_class]]\nname = \"b\"\nkind = \"post\"\nexample = \"https://x.org/\"\ndomains = [\"x.org\"]\n\n\
                [[url_class]]\nname = \"b\"\nkind = \"post\"\nexample = \"https://x.org/\"\ndomains = [\"x.org\"]\n";
    let errors = UrlClasses::from_toml_str(text, "lib.toml").unwrap_err();
    assert_eq!(errors.iter().count(), 2, "{errors}");
    assert!(matches!(&errors.0[1], ClassError::DuplicateName { class } if class == "b"));
}

#[test]
fn library_files_hold_only_url_classes() {
    let err = UrlClasses::from_toml_str("[frontier]\nmin_delay_ms = 1\n", "lib.toml").unwrap_err();
    assert!(
        err.to_string().contains("unknown field `frontier`"),
        "{err}"
    );
    assert!(
        UrlClasses::from_toml_str("", "empty.toml")
            .unwrap()
            .is_empty()
    );
}

#[test]
fn engine_configs_embed_defs() {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct CrawlConfig {
        #[serde(default, rename = "url_class")]
        url_classes: Vec<UrlClassDef>,
        #[allow(dead_code)]
        seeds: Vec<String>,
    }
    let config: CrawlConfig =
        toml::from_str(&format!("seeds = []\n{}", testdata("classes.toml"))).unwrap();
    let classes = UrlClasses::from_defs(config.url_classes).unwrap();
    assert!(classes.len() >= 137);
    assert_eq!(classes.get("tbib file page").unwrap().kind(), UrlKind::Post);
}

#[test]
fn defs_round_trip_through_toml() {
    let defs = UrlClasses::defs_from_toml_str(&testdata("classes.toml"), "classes.toml").unwrap();
    #[derive(serde::Serialize, serde::Deserialize)]
    struct File {
        url_class: Vec<UrlClassDef>,
    }
    let text = toml::to_string(&File {
        url_class: defs.clone(),
    })
    .unwrap();
    let again: File = toml::from_str(&text).unwrap();
    assert_eq!(again.url_class, defs);
}

#[test]
fn check_examples_reports_bad_examples() {
    let classes = one("post", "path = [ { match = \"numeric\" } ]");
    assert!(
        matches!(&classes.check_examples()[..], [ClassError::NoMatch { class, .. }] if class == "t")
    );
    let classes = library(
        "[[url_class]]\nname = \"t\"\nkind = \"post\"\nexample = \"not a url\"\ndomains = [\"x.org\"]\n",
    );
    assert!(
        matches!(&classes.check_examples()[..], [ClassError::InvalidField { field, .. }] if field == "example")
    );
}

/// A gallery's different searches are different URLs: its canonical form is the URL for the server, which
/// keeps the parameters the class does not list; a post written in different ways is one URL.
#[test]
fn gallery_searches_stay_apart_posts_merge() {
    let classes = library(
        r#"
        [[url_class]]
        name = "list"
        kind = "gallery"
        example = "https://x.org/list?pid=0"
        domains = ["x.org"]
        path = [ { match = "fixed", value = "list" } ]
        query = [ { name = "pid", match = "numeric", default = "0" } ]

        [[url_class]]
        name = "post"
        kind = "post"
        example = "https://x.org/post?id=1"
        domains = ["x.org"]
        path = [ { match = "fixed", value = "post" } ]
        query = [ { name = "id", match = "numeric" } ]
        "#,
    );
    let canonical = |u: &str| classes.match_url(&url(u)).unwrap().canonical().to_string();
    assert_eq!(
        canonical("https://x.org/list?tags=cats"),
        "https://x.org/list?pid=0&tags=cats"
    );
    assert_eq!(
        canonical("https://x.org/list?tags=dogs"),
        "https://x.org/list?pid=0&tags=dogs"
    );
    assert_eq!(
        canonical("https://x.org/list?tags=cats"),
        canonical("https://www.x.org/list?pid=0&tags=cats")
    );
    let m = classes
        .match_url(&url("https://x.org/list?tags=cats"))
        .unwrap();
    assert_eq!(m.normalised.as_str(), "https://x.org/list?pid=0");
    assert_eq!(
        canonical("https://x.org/post?id=1&ref=a"),
        "https://x.org/post?id=1"
    );
    assert_eq!(
        canonical("https://x.org/post?ref=b&id=1"),
        "https://x.org/post?id=1"
    );
}

/// A post spelled with other escapes (`post%5Bid%5D` for `post[id]`, `sh%6Fw` for `show`) matches its class
/// and normalises to the one URL, so it is fetched once; the URL for the server keeps the page's spelling.
#[test]
fn spellings_of_one_post_normalise_alike() {
    let classes = one(
        "post",
        r#"path = [ { match = "fixed", value = "show" } ]
        query = [ { name = "post[id]", match = "numeric" } ]"#,
    );
    let want = "https://x.org/show?post%5Bid%5D=5";
    for spelling in [
        "https://x.org/show?post[id]=5",
        "https://x.org/show?post%5Bid%5D=5",
        "https://x.org/sh%6Fw?post[id]=5",
        "https://x.org/show?post%5bid%5d=5&utm=x",
    ] {
        let (normalised, for_server) = norm(&classes, spelling).expect(spelling);
        assert_eq!(normalised, want, "{spelling}");
        assert_eq!(
            for_server,
            url(spelling).as_str().replace("&utm=x", ""),
            "{spelling}"
        );
    }
}

// --- properties -----------------------------------------------------------------------------------------------

fn gallery_and_post() -> UrlClasses {
    library(
        r#"
        [[url_class]]
        name = "post"
        kind = "post"
        example = "https://x.org/post/1"
        domains = ["x.org"]
        match_subdomains = true
        path = [ { match = "fixed", value = "post" }, { match = "numeric" } ]
        query = [ { name = "v", match = "alpha", default = "full" } ]

        [[url_class]]
        name = "gallery"
        kind = "gallery"
        example = "https://x.org/list"
        domains = ["x.org"]
        alphabetise_query = false
        keep_fragment = true
        path = [ { match = "alphanumeric" } ]
        query = [ { name = "p", match = "numeric", default = "0" } ]
        next_page = { query = "p", delta = 20 }
        "#,
    )
}

proptest! {
    #[test]
    fn normalisation_is_idempotent_and_stays_in_class(
        sub in "(|www\\.|www2\\.|cdn\\.)",
        scheme in "https?",
        path in prop::collection::vec("[a-z0-9%._-]{0,6}", 0..5),
        query in prop::collection::vec(("[a-z]{1,3}", "[a-z0-9+%]{0,4}"), 0..5),
        fragment in prop::option::of("[a-z]{0,4}"),
    ) {
        let classes = gallery_and_post();
        let q: Vec<String> = query.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let mut text = format!("{scheme}://{sub}x.org/{}", path.join("/"));
        if !q.is_empty() {
            text = format!("{text}?{}", q.join("&"));
        }
        if let Some(f) = fragment {
            text = format!("{text}#{f}");
        }
        let Ok(u) = Url::parse(&text) else { return Ok(()) };
        if let Some(m) = classes.match_url(&u) {
            let class = classes.get(&m.class).unwrap();
            prop_assert_eq!(&classes.match_url(&m.normalised).unwrap().class, &m.class);
            prop_assert_eq!(class.normalise(&m.normalised).unwrap(), m.normalised.clone());
            prop_assert!(class.matches(&m.for_server));
            prop_assert_eq!(class.normalise(&m.for_server).unwrap(), m.normalised.clone());
            prop_assert_eq!(m.normalised.scheme(), "https");
            prop_assert!(!m.normalised.host_str().unwrap().starts_with("www"));
            if let Some(next) = &m.next_page {
                prop_assert!(class.matches(next));
                let p = |u: &Url| u.query_pairs().find(|(k, _)| k == "p").map(|(_, v)| v.parse::<i64>().unwrap());
                prop_assert_eq!(p(next), p(&m.for_server).map(|n| n + 20));
            }
        }
    }
}

/// A host written with its trailing dot is the host: the class matches, and its URL is written without the
/// dot (xt47a F3).
#[test]
fn a_trailing_dot_is_the_same_host() {
    let classes = one(
        "post",
        r#"path = [ { match = "fixed", value = "v" }, { match = "numeric" } ]"#,
    );
    assert_eq!(
        norm(&classes, "https://x.org./v/7"),
        norm(&classes, "https://x.org/v/7")
    );
    assert_eq!(
        norm(&classes, "https://x.org./v/7").map(|(n, _)| n),
        Some("https://x.org/v/7".to_string())
    );
}
