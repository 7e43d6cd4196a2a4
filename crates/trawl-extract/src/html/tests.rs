use super::*;

const DOC: &str = "http://example.com/dir/page.html";

fn doc() -> Url {
    Url::parse(DOC).unwrap()
}

fn links(body: &[u8], content_type: Option<&str>) -> HtmlLinks {
    extract_html(body, content_type, &doc(), &Limits::default())
}

fn triples(links: &HtmlLinks) -> Vec<(String, Hop, &'static str)> {
    links
        .outlinks
        .iter()
        .map(|o| (o.url.to_string(), o.hop, o.context))
        .collect()
}

/// One row: a name, the HTML, and the outlinks expected, in order.
macro_rules! case {
    ($name:ident, $html:expr, [$(($url:expr, $hop:ident, $ctx:expr)),* $(,)?]) => {
        #[test]
        fn $name() {
            let want: Vec<(String, Hop, &str)> =
                vec![$(($url.to_string(), Hop::$hop, $ctx)),*];
            assert_eq!(triples(&links($html.as_bytes(), None)), want);
        }
    };
}

// SVG: SVG 1.1's `xlink:href` links, and the sprite sheets `<use>` draws from (its fragment dropped).
case!(
    svg_links_and_sprites,
    r##"<svg><a xlink:href="/svg-a"><text>x</text></a><use href="/sprite.svg#i"/><use xlink:href="/old.svg#j"/></svg>"##,
    [
        ("http://example.com/svg-a", Link, "a/@xlink:href"),
        ("http://example.com/sprite.svg", Embed, "use/@href"),
        ("http://example.com/old.svg", Embed, "use/@xlink:href"),
    ]
);

// A `<use>` of a fragment only draws from the page itself, whatever its base (xt23b F4).
case!(
    svg_use_of_a_fragment_fetches_nothing,
    r##"<base href="/based/"><svg><use href="#sym"/><use xlink:href=" #old"/><a href="#top">x</a></svg>"##,
    [("http://example.com/based/", Link, "a/@href")]
);

// A NUL in an attribute value is read as U+FFFD, as a browser's tokenizer reads it (xt23b F3).
case!(
    nul_in_an_attribute_value,
    "<a href=\"/nul\0page.html\">",
    [("http://example.com/nul%EF%BF%BDpage.html", Link, "a/@href")]
);

// Lazy loading's attributes, which a page's script turns into `src` and `srcset` (xt23b F6).
case!(
    lazy_loading_attributes,
    r#"<img src="/blank.gif" data-src="/a.jpg" data-srcset="/b.jpg 2x, /c.jpg 3x" data-original="/d.jpg"
        data-lazy-src="/e.jpg"><iframe data-src="/video.html"></iframe>"#,
    [
        ("http://example.com/blank.gif", Embed, "img/@src"),
        ("http://example.com/a.jpg", Embed, "img/@data-src"),
        ("http://example.com/d.jpg", Embed, "img/@data-original"),
        ("http://example.com/e.jpg", Embed, "img/@data-lazy-src"),
        ("http://example.com/b.jpg", Embed, "img/@data-srcset"),
        ("http://example.com/c.jpg", Embed, "img/@data-srcset"),
        ("http://example.com/video.html", Embed, "iframe/@data-src"),
    ]
);

// Resolution.
case!(
    relative,
    r#"<a href="other.html">"#,
    [("http://example.com/dir/other.html", Link, "a/@href")]
);
case!(
    dot_dot,
    r#"<a href="../up.html">"#,
    [("http://example.com/up.html", Link, "a/@href")]
);
case!(
    root_relative,
    r#"<a href="/root">"#,
    [("http://example.com/root", Link, "a/@href")]
);
case!(
    protocol_relative,
    r#"<a href="//cdn.example.net/x">"#,
    [("http://cdn.example.net/x", Link, "a/@href")]
);
case!(
    absolute,
    r#"<a href="https://other.org/a?b=c">"#,
    [("https://other.org/a?b=c", Link, "a/@href")]
);
case!(
    fragment_removed,
    r#"<a href="x.html#top">"#,
    [("http://example.com/dir/x.html", Link, "a/@href")]
);
case!(
    whitespace_trimmed,
    "<a href=\" \n\tx.html \r\n\">",
    [("http://example.com/dir/x.html", Link, "a/@href")]
);
case!(
    entities_in_href,
    r#"<a href="/s?a=1&amp;b=2&#38;c=3&copy=4">"#,
    [("http://example.com/s?a=1&b=2&c=3&copy=4", Link, "a/@href")]
);
// One outlink per URL and hop: repeated raw values, other spellings of a URL, and the same URL as
// another hop.
case!(
    duplicates_by_url_and_hop,
    r#"<a href="/x"><a href="../x#f"><img src="/x"><img src="/x"><a href="/y"><a href="/x"><img src="../y">"#,
    [
        ("http://example.com/x", Link, "a/@href"),
        ("http://example.com/x", Embed, "img/@src"),
        ("http://example.com/y", Link, "a/@href"),
        ("http://example.com/y", Embed, "img/@src"),
    ]
);
// The scanner returns attribute values as written; we decode exactly once.
case!(
    entities_decoded_once,
    r#"<a href="/s?x=&amp;amp;">"#,
    [("http://example.com/s?x=&amp;", Link, "a/@href")]
);
case!(
    upper_case_tags,
    r#"<A HREF="x.html">"#,
    [("http://example.com/dir/x.html", Link, "a/@href")]
);
case!(
    unquoted_attr,
    r#"<a href=x.html>"#,
    [("http://example.com/dir/x.html", Link, "a/@href")]
);

// Skipped values.
case!(
    skip_javascript,
    r#"<a href="javascript:void(0)"><a href=" JavaScript:x">"#,
    []
);
case!(
    skip_mailto_tel_data_about,
    r#"<a href="mailto:a@b"><a href="tel:1"><img src="data:image/png;base64,AA"><a href="about:blank">"#,
    []
);
case!(skip_empty, r#"<a href=""><a href="   "><a>"#, []);
case!(
    skip_other_schemes,
    r#"<a href="irc://x/y"><a href="file:///etc/passwd">"#,
    []
);
case!(
    keep_ftp,
    r#"<a href="ftp://ftp.example.com/f">"#,
    [("ftp://ftp.example.com/f", Link, "a/@href")]
);
case!(skip_bad_url, r#"<a href="http://[bad/">"#, []);

// Dedup.
case!(
    duplicates_collapsed,
    r#"<a href="x"><a href="./x"><a href="x#f"><area href="x">"#,
    [("http://example.com/dir/x", Link, "a/@href")]
);
case!(
    same_url_other_hop_kept,
    r#"<a href="x.png"><img src="x.png">"#,
    [
        ("http://example.com/dir/x.png", Link, "a/@href"),
        ("http://example.com/dir/x.png", Embed, "img/@src"),
    ]
);

// Base.
case!(
    base_absolute,
    r#"<base href="http://other.org/b/"><a href="x">"#,
    [("http://other.org/b/x", Link, "a/@href")]
);
case!(
    base_relative,
    r#"<base href="/b/"><a href="x">"#,
    [("http://example.com/b/x", Link, "a/@href")]
);
case!(
    base_applies_before_it,
    r#"<a href="x"><base href="/b/">"#,
    [("http://example.com/b/x", Link, "a/@href")]
);
case!(
    first_base_wins,
    r#"<base href="/one/"><base href="/two/"><a href="x">"#,
    [("http://example.com/one/x", Link, "a/@href")]
);
case!(
    base_without_href_skipped,
    r#"<base target="_top"><base href="/b/"><a href="x">"#,
    [("http://example.com/b/x", Link, "a/@href")]
);
case!(
    base_javascript_ignored,
    r#"<base href="javascript:x"><a href="x">"#,
    [("http://example.com/dir/x", Link, "a/@href")]
);

// Embeds.
case!(
    img_src,
    r#"<img src="i.png">"#,
    [("http://example.com/dir/i.png", Embed, "img/@src")]
);
case!(
    script_src,
    r#"<script src="/s.js"></script>"#,
    [("http://example.com/s.js", Embed, "script/@src")]
);
case!(
    iframe_and_frame,
    r#"<iframe src="f1"></iframe><frame src="f2">"#,
    [
        ("http://example.com/dir/f1", Embed, "iframe/@src"),
        ("http://example.com/dir/f2", Embed, "frame/@src"),
    ]
);
case!(
    media,
    r#"<video src="v.mp4" poster="p.jpg"><source src="v.webm"><track src="t.vtt"></video><audio src="a.mp3"></audio><embed src="e.swf">"#,
    [
        ("http://example.com/dir/v.mp4", Embed, "video/@src"),
        ("http://example.com/dir/p.jpg", Embed, "video/@poster"),
        ("http://example.com/dir/v.webm", Embed, "source/@src"),
        ("http://example.com/dir/t.vtt", Embed, "track/@src"),
        ("http://example.com/dir/a.mp3", Embed, "audio/@src"),
        ("http://example.com/dir/e.swf", Embed, "embed/@src"),
    ]
);
case!(
    object_data,
    r#"<object data="o.svg"></object>"#,
    [("http://example.com/dir/o.svg", Embed, "object/@data")]
);
case!(
    input_image_only,
    r#"<input type="IMAGE" src="b.png"><input type="text" src="no.png">"#,
    [("http://example.com/dir/b.png", Embed, "input/@src")]
);
case!(
    srcset_with_descriptors,
    r#"<img srcset="a.png 1x, b.png 2x,c.png, d.png 100w">"#,
    [
        ("http://example.com/dir/a.png", Embed, "img/@srcset"),
        ("http://example.com/dir/b.png", Embed, "img/@srcset"),
        ("http://example.com/dir/c.png", Embed, "img/@srcset"),
        ("http://example.com/dir/d.png", Embed, "img/@srcset"),
    ]
);
case!(
    srcset_commas_in_url,
    r#"<picture><source srcset="/i,w_100.png 1x, /i,w_200.png 2x"></picture>"#,
    [
        ("http://example.com/i,w_100.png", Embed, "source/@srcset"),
        ("http://example.com/i,w_200.png", Embed, "source/@srcset"),
    ]
);
case!(
    background_attr,
    r#"<body background="bg.gif"><table background="t.gif">"#,
    [
        ("http://example.com/dir/bg.gif", Embed, "body/@background"),
        ("http://example.com/dir/t.gif", Embed, "table/@background"),
    ]
);

// link rel.
case!(
    link_stylesheet,
    r#"<link rel="stylesheet" href="s.css">"#,
    [("http://example.com/dir/s.css", Embed, "link/@href")]
);
case!(
    link_icons,
    r#"<link rel="shortcut icon" href="f.ico"><link rel=apple-touch-icon href="t.png">"#,
    [
        ("http://example.com/dir/f.ico", Embed, "link/@href"),
        ("http://example.com/dir/t.png", Embed, "link/@href"),
    ]
);
case!(
    link_preloads,
    r#"<link rel="preload" href="p.woff2"><link rel="modulepreload" href="m.js"><link rel="manifest" href="m.json"><link rel="PREFETCH" href="n.js">"#,
    [
        ("http://example.com/dir/p.woff2", Embed, "link/@href"),
        ("http://example.com/dir/m.js", Embed, "link/@href"),
        ("http://example.com/dir/m.json", Embed, "link/@href"),
        ("http://example.com/dir/n.js", Embed, "link/@href"),
    ]
);
case!(
    link_navigational,
    r#"<link rel="canonical" href="c"><link rel="alternate" href="a"><link rel="next" href="n"><link href="none">"#,
    [
        ("http://example.com/dir/c", Link, "link/@href"),
        ("http://example.com/dir/a", Link, "link/@href"),
        ("http://example.com/dir/n", Link, "link/@href"),
        ("http://example.com/dir/none", Link, "link/@href"),
    ]
);
case!(
    link_origin_hints_skipped,
    r#"<link rel="preconnect" href="//fonts.example"><link rel="dns-prefetch" href="//cdn.example">"#,
    []
);

// Forms.
case!(
    form_get,
    r#"<form action="/search"></form><form method=" Get " action="/s2"></form>"#,
    [
        ("http://example.com/search", Link, "form/@action"),
        ("http://example.com/s2", Link, "form/@action"),
    ]
);
case!(
    form_post_ignored,
    r#"<form method="POST" action="/login"></form>"#,
    []
);

// Submit buttons: `formaction` as a form's action, by the method the submission uses.
case!(
    formaction_of_a_get_form,
    r#"<form action="/search"><button formaction="/b">b</button><input type=submit formaction="/i">
       <input type="IMAGE" src="/go.png" formaction="/img"><button type=button formaction="/no">
       <button type=reset formaction="/no2"></form>"#,
    [
        ("http://example.com/search", Link, "form/@action"),
        ("http://example.com/b", Link, "button/@formaction"),
        ("http://example.com/i", Link, "input/@formaction"),
        ("http://example.com/go.png", Embed, "input/@src"),
        ("http://example.com/img", Link, "input/@formaction"),
    ]
);
case!(
    formaction_of_a_post_form_is_not_a_link,
    r#"<form method=post action="/login"><button formaction="/b"><input type=submit formaction="/i"></form>"#,
    []
);
case!(
    formmethod_decides_over_the_forms_method,
    r#"<form method=post action="/login"><button formmethod=get formaction="/g"><button formmethod=GET></form>
       <form action="/s"><button formmethod=post formaction="/p"><input type=submit formmethod=dialog formaction="/d"></form>"#,
    [
        ("http://example.com/g", Link, "button/@formaction"),
        ("http://example.com/login", Link, "form/@action"),
        ("http://example.com/s", Link, "form/@action"),
    ]
);
case!(
    a_button_outside_a_form_submits_nothing,
    r#"<button formaction="/before"><form action="/s"></form><button formaction="/after">"#,
    [("http://example.com/s", Link, "form/@action")]
);
case!(
    a_button_names_its_form_by_id,
    r#"<button form="later" formaction="/by-id"><form id=p method=post><button form="g" formaction="/to-g">
       <button formaction="/in-p"><button form="" formaction="/empty"></form><form id=later action="/l"></form>
       <form id=g></form>"#,
    [
        ("http://example.com/l", Link, "form/@action"),
        ("http://example.com/by-id", Link, "button/@formaction"),
        ("http://example.com/to-g", Link, "button/@formaction"),
    ]
);

// meta refresh.
case!(
    refresh_basic,
    r#"<meta http-equiv="refresh" content="5; url=next.html">"#,
    [(
        "http://example.com/dir/next.html",
        Redirect,
        "meta/@content"
    )]
);
case!(
    refresh_quoted,
    r#"<meta http-equiv="Refresh" content="0;URL='/q.html'">"#,
    [("http://example.com/q.html", Redirect, "meta/@content")]
);
case!(
    refresh_spaces,
    "<meta http-equiv=refresh content=\"  3 ;  url = http://x.org/a \">",
    [("http://x.org/a", Redirect, "meta/@content")]
);
case!(
    refresh_no_url_keyword,
    r#"<meta http-equiv="refresh" content="1, other.html">"#,
    [(
        "http://example.com/dir/other.html",
        Redirect,
        "meta/@content"
    )]
);
case!(
    refresh_reload_only,
    r#"<meta http-equiv="refresh" content="30">"#,
    []
);
case!(
    refresh_bad_time,
    r#"<meta http-equiv="refresh" content="soon; url=x">"#,
    []
);

// CSS in HTML.
case!(
    inline_style_url,
    r#"<div style="background: url('bg.png')"></div>"#,
    [("http://example.com/dir/bg.png", Embed, "@style/url()")]
);
case!(
    inline_style_entities,
    r#"<div style="background:url(&quot;e.png&quot;)"></div>"#,
    [("http://example.com/dir/e.png", Embed, "@style/url()")]
);
case!(
    style_element,
    "<style>@import \"i.css\";\nbody{background:url(b.png)}</style>",
    [
        ("http://example.com/dir/i.css", Embed, "style/@import"),
        ("http://example.com/dir/b.png", Embed, "style/url()"),
    ]
);
case!(
    style_uses_base,
    r#"<base href="/b/"><style>a{b:url(x.png)}</style>"#,
    [("http://example.com/b/x.png", Embed, "style/url()")]
);

// Parsing oddities.
case!(
    comments_ignored,
    r#"<!-- <a href="no"> --><a href="yes">"#,
    [("http://example.com/dir/yes", Link, "a/@href")]
);
case!(
    script_text_ignored,
    r#"<script>document.write('<a href="no">')</script><a href="yes">"#,
    [("http://example.com/dir/yes", Link, "a/@href")]
);
case!(
    textarea_ignored,
    r#"<textarea><a href="no"></textarea><a href="yes">"#,
    [("http://example.com/dir/yes", Link, "a/@href")]
);
case!(
    title_xmp_and_iframe_text_ignored,
    r#"<title><a href="no"></title><xmp><a href="no"></xmp><iframe><a href="no"></iframe><a href="yes">"#,
    [("http://example.com/dir/yes", Link, "a/@href")]
);
// The tester's lazy-load page: a no-JS fallback's links are the page's (they used to be read as raw text).
case!(
    noscript_noframes_and_noembed_are_read,
    r#"<img data-src="/photo.jpg" src="/placeholder.gif"><noscript><img src="/photo.jpg"></noscript>
       <noscript><a href="/page/2">next</a></noscript><frameset><frame src="/frame.html"></frameset>
       <noframes><a href="/noframes-link">no frames</a></noframes><noembed><a href="/noembed-link"></noembed>"#,
    [
        ("http://example.com/placeholder.gif", Embed, "img/@src"),
        ("http://example.com/photo.jpg", Embed, "img/@data-src"),
        ("http://example.com/page/2", Link, "a/@href"),
        ("http://example.com/frame.html", Embed, "frame/@src"),
        ("http://example.com/noframes-link", Link, "a/@href"),
        ("http://example.com/noembed-link", Link, "a/@href"),
    ]
);

#[test]
fn meta_robots_nofollow() {
    let rows: &[(&str, bool)] = &[
        (r#"<meta name="robots" content="noindex, nofollow">"#, true),
        (r#"<meta name="ROBOTS" content="NOFOLLOW">"#, true),
        (r#"<meta name="robots" content="none">"#, true),
        (r#"<meta name="robots" content="noindex,follow">"#, false),
        (r#"<meta name="description" content="nofollow">"#, false),
    ];
    for &(html, want) in rows {
        assert_eq!(
            links(html.as_bytes(), None).meta_robots_nofollow,
            want,
            "{html}"
        );
    }
}

#[test]
fn base_is_reported() {
    let got = links(br#"<base href="/b/">"#, None);
    assert_eq!(got.base.as_str(), "http://example.com/b/");
    assert_eq!(links(b"<p>", None).base.as_str(), DOC);
}

#[test]
fn truncation() {
    let html: String = (0..20).map(|i| format!("<a href=\"/p{i}\">")).collect();
    let limits = Limits {
        max_outlinks: 5,
        ..Limits::default()
    };
    let got = extract_html(html.as_bytes(), None, &doc(), &limits);
    assert_eq!(got.outlinks.len(), 5);
    assert!(got.truncated_outlinks);
    assert_eq!(got.outlinks[4].url.path(), "/p4");

    let exact: String = (0..5)
        .map(|i| format!("<a href=\"/p{i}\"><a href=\"/p{i}\">"))
        .collect();
    let got = extract_html(exact.as_bytes(), None, &doc(), &limits);
    assert_eq!(got.outlinks.len(), 5);
    assert!(!got.truncated_outlinks);
}

#[test]
fn many_raw_links_stop_early() {
    let html: String = (0..10_000).map(|i| format!("<a href=\"/p{i}\">")).collect();
    let limits = Limits {
        max_outlinks: 10,
        ..Limits::default()
    };
    let got = extract_html(html.as_bytes(), None, &doc(), &limits);
    assert_eq!(got.outlinks.len(), 10);
    assert!(got.truncated_outlinks);
}

#[test]
fn long_urls_dropped() {
    let html = format!("<a href=\"/{}\"><a href=\"/ok\">", "x".repeat(10_000));
    let got = links(html.as_bytes(), None);
    assert_eq!(
        triples(&got),
        vec![("http://example.com/ok".to_string(), Hop::Link, "a/@href")]
    );
}

#[test]
fn shift_jis_page() {
    let (body, _, _) = encoding_rs::SHIFT_JIS.encode(r#"<a href="/検索?q=日本">日本</a>"#);
    let got = links(&body, Some("text/html; charset=Shift_JIS"));
    assert_eq!(got.charset, "Shift_JIS");
    // Path in UTF-8, query in the document encoding (WHATWG URL).
    // 0x7B is `{`, which the query percent-encode set leaves alone.
    assert_eq!(
        got.outlinks[0].url.as_str(),
        "http://example.com/%E6%A4%9C%E7%B4%A2?q=%93%FA%96{"
    );
}

#[test]
fn windows_1251_page_from_meta() {
    let html = r#"<html><head><meta charset="windows-1251"></head><a href="/поиск?q=тест">"#;
    let (body, _, _) = encoding_rs::WINDOWS_1251.encode(html);
    let got = links(&body, Some("text/html"));
    assert_eq!(got.charset, "windows-1251");
    assert_eq!(
        got.outlinks[0].url.as_str(),
        "http://example.com/%D0%BF%D0%BE%D0%B8%D1%81%D0%BA?q=%F2%E5%F1%F2"
    );
}

#[test]
fn utf8_page_query_in_utf8() {
    let got = links("<meta charset=utf-8><a href=\"/é?q=é\">".as_bytes(), None);
    assert_eq!(got.charset, "UTF-8");
    assert_eq!(
        got.outlinks[0].url.as_str(),
        "http://example.com/%C3%A9?q=%C3%A9"
    );
}

#[test]
fn utf16_page_is_transcoded() {
    let mut body = vec![0xFF, 0xFE];
    for unit in "<a href=\"/x?q=é\">".encode_utf16() {
        body.extend_from_slice(&unit.to_le_bytes());
    }
    let got = links(&body, None);
    assert_eq!(got.charset, "UTF-16LE");
    assert_eq!(
        got.outlinks[0].url.as_str(),
        "http://example.com/x?q=%C3%A9"
    );
}

#[test]
fn utf8_bom_skipped() {
    let got = links(
        b"\xEF\xBB\xBF<a href=\"x\">",
        Some("text/html; charset=windows-1252"),
    );
    assert_eq!(got.charset, "UTF-8");
    assert_eq!(got.outlinks.len(), 1);
}

#[test]
fn srcset_parser() {
    let rows: &[(&str, &[&str])] = &[
        ("a.png", &["a.png"]),
        ("a.png 1x, b.png 2x", &["a.png", "b.png"]),
        // A comma inside a URL does not split it; only a trailing one does.
        ("a.png,b.png", &["a.png,b.png"]),
        ("a.png, b.png", &["a.png", "b.png"]),
        (" , a.png 100w (x, y), b.png", &["a.png", "b.png"]),
        ("", &[]),
        (",,,", &[]),
    ];
    for &(input, want) in rows {
        assert_eq!(srcset_urls(input), want, "{input:?}");
    }
}

#[test]
fn refresh_parser() {
    let rows: &[(&str, Option<&str>)] = &[
        ("5; url=a", Some("a")),
        ("5;URL='a b'", Some("a b")),
        ("5 ; Url = \"a\" ", Some("a")),
        ("0.5; url=a", Some("a")),
        (".5;url=a", Some("a")),
        ("5, a", Some("a")),
        ("5 a", Some("a")),
        ("5; urlx", Some("urlx")),
        ("5; url='unterminated", Some("unterminated")),
        ("5", None),
        ("5;", None),
        ("x; url=a", None),
        ("5x; url=a", None),
        ("", None),
    ];
    for &(input, want) in rows {
        assert_eq!(refresh_url(input), want, "{input:?}");
    }
}

#[test]
fn link_rel_hops() {
    let rows: &[(&str, Option<Hop>)] = &[
        ("stylesheet", Some(Hop::Embed)),
        ("alternate stylesheet", Some(Hop::Embed)),
        ("ICON", Some(Hop::Embed)),
        ("mask-icon", Some(Hop::Embed)),
        ("canonical", Some(Hop::Link)),
        ("", Some(Hop::Link)),
        ("preconnect", None),
        ("dns-prefetch preload", Some(Hop::Embed)),
    ];
    for &(rel, want) in rows {
        assert_eq!(link_hop(rel), want, "{rel:?}");
    }
}

/// The tester's spec.html: 30,000 in-page anchors, then real links. Anchors are one raw value (the page
/// itself), so the real links are read and nothing is truncated.
#[test]
fn in_page_anchors_do_not_use_up_the_cap() {
    let mut html: String = (0..30_000)
        .map(|i| format!("<a href=\"#sec-{i}\">{i}</a>"))
        .collect();
    html.push_str(
        r##"<a href="/real-after-anchors">r</a><a href=" #top">t</a><a href="/real-2">r</a>"##,
    );
    let got = links(html.as_bytes(), None);
    assert_eq!(
        triples(&got),
        [
            (DOC.to_string(), Hop::Link, "a/@href"),
            (
                "http://example.com/real-after-anchors".to_string(),
                Hop::Link,
                "a/@href"
            ),
            (
                "http://example.com/real-2".to_string(),
                Hop::Link,
                "a/@href"
            ),
        ]
    );
    assert!(!got.truncated_outlinks);
    // Against a `<base>`, an anchor is the base's URL, as before.
    let based = links(br##"<base href="http://other.org/b"><a href="#x">"##, None);
    assert_eq!(based.outlinks[0].url.as_str(), "http://other.org/b");
}
