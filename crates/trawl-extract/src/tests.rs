use proptest::prelude::*;

use super::*;

fn doc() -> Url {
    Url::parse("https://example.com/a/b.html").unwrap()
}

#[test]
fn dispatch_by_mime() {
    let html = br#"<a href="x">"#;
    let css = b"a{b:url(x.png)}";
    let rows: &[(&str, &[u8], usize, Option<&str>)] = &[
        ("text/html", html, 1, Some("UTF-8")),
        ("TEXT/HTML; charset=utf-8", html, 1, Some("UTF-8")),
        ("application/xhtml+xml", html, 1, Some("UTF-8")),
        ("text/css", css, 1, Some("UTF-8")),
        ("text/plain", html, 0, None),
        ("application/octet-stream", css, 0, None),
    ];
    for &(mime, body, count, charset) in rows {
        let got = extract(mime, body, None, &doc(), &Limits::default());
        assert_eq!(got.outlinks.len(), count, "{mime}");
        assert_eq!(got.charset, charset, "{mime}");
    }
}

#[test]
fn css_document() {
    let body = b"@import 'base.css';\n.a{background:url(../img/x.png)}\n.b{background:url(../img/x.png#f)}";
    let got = extract("text/css", body, None, &doc(), &Limits::default());
    let urls: Vec<(&str, Hop, &str)> = got
        .outlinks
        .iter()
        .map(|o| (o.url.as_str(), o.hop, o.context))
        .collect();
    assert_eq!(
        urls,
        vec![
            ("https://example.com/a/base.css", Hop::Embed, "css/@import"),
            ("https://example.com/img/x.png", Hop::Embed, "css/url()"),
        ]
    );
}

#[test]
fn css_truncation() {
    let body: String = (0..10).map(|i| format!("a{{b:url(/{i}.png)}}")).collect();
    let limits = Limits {
        max_outlinks: 3,
        ..Limits::default()
    };
    let got = extract("text/css", body.as_bytes(), None, &doc(), &limits);
    assert_eq!(got.outlinks.len(), 3);
    assert!(got.truncated_outlinks);
    assert_eq!(extract_css(body.as_bytes(), None, &doc(), &limits).len(), 3);
}

#[test]
fn css_charset_from_header() {
    let (body, _, _) = encoding_rs::WINDOWS_1251.encode("a{b:url(/щ.png)}");
    let got = extract_css(
        &body,
        Some("text/css; charset=windows-1251"),
        &doc(),
        &Limits::default(),
    );
    assert_eq!(got[0].url.as_str(), "https://example.com/%D1%89.png");
}

#[test]
fn resolve_rules() {
    let base = doc();
    let rows: &[(&str, Option<&str>)] = &[
        ("x", Some("https://example.com/a/x")),
        ("  x  ", Some("https://example.com/a/x")),
        ("x#frag", Some("https://example.com/a/x")),
        ("#frag", Some("https://example.com/a/b.html")),
        ("", None),
        ("DATA:text/plain,x", None),
        ("blob:https://example.com/uuid", None),
        ("ws://example.com/", None),
        ("http://exa mple.com/", None),
    ];
    for &(raw, want) in rows {
        let got = resolve(raw, &base, None, 8192);
        assert_eq!(got.as_ref().map(Url::as_str), want, "{raw:?}");
    }
}

/// The tester's long-URL page: 8,000 bytes of `é` are a 24,000-byte URL once percent-encoded, over the
/// cap that used to be checked on the raw value only; an ASCII value just under the cap stays.
#[test]
fn url_cap_applies_once_resolved() {
    let base = doc();
    let accents = format!("/html-e-{}", "\u{e9}".repeat(4000));
    assert!(accents.len() <= MAX_URL_LEN);
    assert_eq!(resolve(&accents, &base, None, MAX_URL_LEN), None);
    let ascii = format!(
        "/{}",
        "a".repeat(MAX_URL_LEN - "https://example.com/".len())
    );
    assert_eq!(
        resolve(&ascii, &base, None, MAX_URL_LEN).map(|u| u.as_str().len()),
        Some(MAX_URL_LEN)
    );
    assert_eq!(
        resolve(&format!("{ascii}b"), &base, None, usize::MAX).map(|u| u.as_str().len()),
        Some(MAX_URL_LEN + 1)
    );
    assert_eq!(
        resolve(&format!("{ascii}b"), &base, None, MAX_URL_LEN),
        None
    );
    let html = format!(r#"<a href="{accents}">e</a><a href="/short">s</a>"#);
    let got = extract_html(html.as_bytes(), None, &base, &Limits::default());
    let urls: Vec<&str> = got.outlinks.iter().map(|o| o.url.as_str()).collect();
    assert_eq!(urls, ["https://example.com/short"]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn html_random_bytes_never_panic(body in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = extract_html(&body, None, &doc(), &Limits::default());
        let _ = extract_html(&body, Some("text/html; charset=utf-16"), &doc(), &Limits::default());
        let _ = extract_html(&body, Some("text/html; charset=shift_jis"), &doc(), &Limits::default());
    }

    #[test]
    fn html_random_markup_never_panics(
        body in r#"(<(a|img|link|meta|base|form|style|source|div)( (href|src|srcset|rel|content|http-equiv|style|action|method)=("[^"]{0,20}"|'[^']{0,20}'|[a-z/:.;,&#=(){}\\ ]{0,20}))*>|[^<]{0,20}|</style>|<!--|-->)*"#
    ) {
        let links = extract_html(body.as_bytes(), None, &doc(), &Limits::default());
        for o in &links.outlinks {
            prop_assert!(o.url.fragment().is_none());
            prop_assert!(matches!(o.url.scheme(), "http" | "https" | "ftp"));
        }
        let short = Limits { max_url_len: 24, ..Limits::default() };
        for o in extract_html(body.as_bytes(), None, &doc(), &short).outlinks {
            prop_assert!(o.url.as_str().len() <= 24);
        }
        let limits = Limits { max_outlinks: 2, ..Limits::default() };
        prop_assert!(extract_html(body.as_bytes(), None, &doc(), &limits).outlinks.len() <= 2);
    }

    #[test]
    fn css_random_bytes_never_panic(body in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = extract_css(&body, None, &doc(), &Limits::default());
    }

    #[test]
    fn css_random_text_never_panics(body in r#"(url\(|@import|image-set\(|["'()\\;{}/*\n ]|[a-z0-9.:]{0,8}|\\[0-9a-f]{1,7}|[^\x00-\x7f])*"#) {
        let links = extract_css(body.as_bytes(), None, &doc(), &Limits::default());
        for o in &links {
            prop_assert_eq!(o.hop, Hop::Embed);
        }
    }

    #[test]
    fn entities_never_panic(s in r#"(&|#|x|[0-9a-fA-F]{0,9}|;|=|[a-zA-Z]{0,7}|[^\x00-\x7f])*"#) {
        let _ = entities::decode_attr(&s);
    }

    #[test]
    fn prescan_never_panics(body in proptest::collection::vec(any::<u8>(), 0..1100)) {
        let _ = charset::prescan(&body);
    }

    /// Forms and submit buttons in any arrangement: a `formaction` is a link only when its submission is GET
    /// (its `formmethod`, else its form's `method`), and never without a form.
    #[test]
    fn submit_buttons_follow_their_forms_method(
        parts in proptest::collection::vec(prop::sample::select(vec![
            "<form action=/g>", "<form method=post action=/p>", "<form id=f method=post>", "<form id=f>", "</form>",
            "<button formaction=/POSTED>", "<button formmethod=post formaction=/POSTED>",
            "<button form=f formaction=/X>", "<input type=submit formaction=/X>", "<button type=button formaction=/NEVER>",
            "<button formmethod=get formaction=/GOT>", "<svg>", "</svg>", "<template>", "<!-- </form> -->",
        ]), 0..16),
    ) {
        let html = parts.concat();
        let found = crate::extract_html(html.as_bytes(), None, &url::Url::parse("http://a.org/").unwrap(), &crate::Limits::default());
        let has = |path: &str| found.outlinks.iter().any(|o| o.url.path() == path);
        prop_assert!(!has("/NEVER"), "{html}");
        // A button before every form, not naming one, submits nothing.
        let first_form = html.find("<form").unwrap_or(html.len());
        if !html[first_form..].contains("formaction") && !html.contains("form=f") {
            prop_assert!(found.outlinks.iter().all(|o| o.context == "form/@action"), "{html}");
        }
        // Only buttons inside a POST form say POSTED; their form never submits with GET.
        if !html.contains("<form action=/g>") && !html.contains("<form id=f>") {
            prop_assert!(!has("/POSTED"), "{html}");
        }
    }

    /// An absolute link to the page's own site, resolved through its path, is the URL the full parse gives.
    #[test]
    fn same_site_links_resolve_as_a_full_parse_does(
        base in prop::sample::select(vec![
            "http://127.0.0.1:18431/s00/t7/p1.html",
            "https://a.org/x/y?q=1",
            "http://user:pw@b.org:8080/",
            "https://xn--bcher-kva.example/d/",
        ]),
        start in prop::sample::select(vec!["", "/", "//", "/\\", "/\t/", "/\n", "?", "#", ":1/", "."]),
        suffix in "[/\\\\a-z.%2e?#:@\t\n ]{0,12}",
    ) {
        let base = url::Url::parse(base).unwrap();
        let raw = format!("{}{start}{suffix}", &base[..url::Position::BeforePath]);
        let full = crate::parse_with_encoding(crate::trim_ascii_ws(&raw), Some(&base), None).map(|mut u| {
            u.set_fragment(None);
            u
        });
        prop_assert_eq!(crate::resolve(&raw, &base, None, 4096), full);
    }
}
