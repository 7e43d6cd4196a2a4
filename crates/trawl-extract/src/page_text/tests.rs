use proptest::prelude::*;

use super::*;

fn read(html: &[u8]) -> PageText {
    page_text(html, None, &Url::parse("http://a.test/").unwrap(), 1 << 20)
}

fn text(html: &str) -> String {
    read(html.as_bytes()).text
}

#[test]
fn text_and_head_fields() {
    let page = read(
        b"<html><head><title> Robots </title><meta name=Keywords content=\"a, crawler\">\
          <meta name=description content=d></head><body><p>Hello <b>web</b></p>\
          <script>var hidden=1</script><style>p{}</style>bot</body></html>",
    );
    assert!(
        page.text.contains("Hello web") && page.text.contains("bot"),
        "{}",
        page.text
    );
    assert!(
        !page.text.contains("hidden") && !page.text.contains("p{}"),
        "{}",
        page.text
    );
    assert_eq!(page.title.as_deref(), Some("Robots"));
    assert_eq!(page.keywords.as_deref(), Some("a, crawler"));
    assert_eq!(page.description.as_deref(), Some("d"));
    let short = page_text(
        b"<body>aaaaaaaaaa bbbbbbbbbb</body>",
        None,
        &Url::parse("http://a.test/").unwrap(),
        5,
    );
    assert!(short.text.len() < 30);
}

#[test]
fn head_script_and_style_do_not_hide_the_first_body_text() {
    let t = text(
        "<html><head><style>p{color:red}</style><script>var x=1</script></head>\
         <body><p>SECRETWORD first</p><a href=\"/headstyle-link.html\">x</a></body></html>",
    );
    assert!(t.contains("SECRETWORD first"), "{t}");
    assert!(!t.contains("color") && !t.contains("var x"), "{t}");
}

/// The tester's pages without a `<body>` tag (xt5 F2): the text counts wherever it sits.
#[test]
fn text_without_a_body_tag_counts() {
    for html in [
        "<html><p>we love Python Perl here</p><a href='/child-nobody.html'>c</a></html>",
        "<!doctype html><title>x</title><p>Python Perl</p><a href=/c>c</a>",
        "<p>Python Perl</p><a href=/c>c</a>",
        "<body><a href=/c>x</a></body>Python Perl",
        "Python Perl",
    ] {
        assert!(
            text(html).contains("Python Perl"),
            "{html}: {:?}",
            text(html)
        );
    }
}

/// Text that is not shown: code, templates, the title (a head field), fallback content for no scripts.
#[test]
fn hidden_text_is_left_out() {
    let t = text(
        "<p>shown</p><template><p>TEMPLATED</p></template><noscript>NOSCRIPT</noscript>\
         <script>SCRIPTED</script><style>STYLED</style><title>TITLED</title><p>after</p>",
    );
    assert!(t.contains("shown") && t.contains("after"), "{t}");
    for hidden in ["TEMPLATED", "NOSCRIPT", "SCRIPTED", "STYLED", "TITLED"] {
        assert!(!t.contains(hidden), "{hidden} in {t:?}");
    }
}

/// xt5 F3: character references are decoded in the text, the title and the meta fields.
#[test]
fn references_are_decoded() {
    let page = read(
        b"<title>Tom &amp; Jerry</title><meta name=description content=\"caf&eacute; &amp; co\">\
          <body><p>we love Python&nbsp;Perl here, caf&#233; &lt;b&gt;</p>",
    );
    assert!(page.text.contains("Python\u{a0}Perl"), "{}", page.text);
    assert!(page.text.contains("café <b>"), "{}", page.text);
    assert_eq!(page.title.as_deref(), Some("Tom & Jerry"));
    assert_eq!(page.description.as_deref(), Some("café & co"));
}

/// xt5 F3: the page's own encoding, from the `Content-Type` header or a `<meta>` tag.
#[test]
fn pages_are_read_in_their_encoding() {
    let url = Url::parse("http://a.test/").unwrap();
    let latin1 = page_text(
        b"<body>un caf\xe9 Python",
        Some("text/html; charset=iso-8859-1"),
        &url,
        1 << 20,
    );
    assert!(latin1.text.contains("café"), "{}", latin1.text);
    let (cyrillic, _, _) = encoding_rs::WINDOWS_1251
        .encode("<meta charset=windows-1251><title>Привет</title><p>Привет мир</p>");
    let page = page_text(&cyrillic, Some("text/html"), &url, 1 << 20);
    assert!(page.text.contains("Привет мир"), "{}", page.text);
    assert_eq!(page.title.as_deref(), Some("Привет"));
}

/// Each block on a line of its own, white space within a line one space, none at either end: `^`/`$` match at
/// blocks, and one `\s` between words whatever the source's wrapping (xt15b F16).
#[test]
fn blocks_are_lines_as_a_reader_sees_them() {
    for html in [
        "<p>first</p>\n<p>Second   line</p>\n",
        "<p>first</p><p>Second\n line</p>",
        "first<br>Second line",
    ] {
        assert_eq!(text(html), "first\nSecond line", "{html:?}");
    }
    assert_eq!(text("<p>a <b>b</b>\n c</p>"), "a b c");
}

/// xt5 F3: inline markup does not split a word; block elements and line breaks separate words.
#[test]
fn inline_markup_keeps_words_whole() {
    assert!(text("<body>Py<b>thon</b> Perl").contains("Python Perl"));
    assert!(text("<p>Py<span class=x>th</span><a href=/>on</a></p>").contains("Python"));
    let t = text("<p>one</p><p>two</p><div>three<br>four</div><li>five<td>six");
    let words: Vec<&str> = t.split_whitespace().collect();
    assert_eq!(
        words,
        ["one", "two", "three", "four", "five", "six"],
        "{t:?}"
    );
}

proptest! {
    #[test]
    fn any_bytes_are_read_without_panic(body in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = read(&body);
    }

    #[test]
    fn plain_text_comes_back(s in "[a-zA-Z0-9 ]{0,60}") {
        let t = text(&format!("<p>{s}</p>"));
        prop_assert_eq!(t, s.split_ascii_whitespace().collect::<Vec<_>>().join(" "));
    }

    /// Every character written as a numeric reference reads as itself.
    #[test]
    fn numeric_references_decode(s in "[^<&\\p{C}]{0,30}") {
        let encoded: String = s.chars().map(|c| format!("&#{};", c as u32)).collect();
        let t = text(&format!("<p>{encoded}</p>"));
        prop_assert_eq!(t, s.split_ascii_whitespace().collect::<Vec<_>>().join(" "));
    }
}
