use proptest::prelude::*;

use super::sample::{self, OdfKind};
use super::*;

fn u(path: &str) -> Url {
    Url::parse(&format!("http://a.org/docs/{path}")).unwrap()
}

/// (url, context) pairs and the problem of reading `body` as `format` from `url`.
fn links(
    body: &[u8],
    format: Format,
    url: &Url,
) -> (Vec<(String, &'static str)>, Option<OfficeProblem>) {
    let found = office_links(body, format, url, 1 << 30, &Limits::default());
    let urls = found
        .outlinks
        .iter()
        .map(|o| (o.url.to_string(), o.context))
        .collect();
    (urls, found.problem)
}

const TEXT: &[&str] = &[
    "See https://a.org/from-text.html, and (http://b.org/x?y=1).",
    "no url here",
];
const LINKS: &[&str] = &["http://a.org/linked.html", "../relative/page.html"];

/// One row per format: the document, its format, its name, and the links (URL, context) it must give.
type Row = (
    Vec<u8>,
    Format,
    &'static str,
    Vec<(&'static str, &'static str)>,
);

fn documents() -> Vec<Row> {
    let text = |ctx| {
        vec![
            ("https://a.org/from-text.html", ctx),
            ("http://b.org/x?y=1", ctx),
        ]
    };
    let with = |mut v: Vec<(&'static str, &'static str)>, more: &[(&'static str, &'static str)]| {
        v.extend_from_slice(more);
        v
    };
    let rel = [
        ("http://a.org/linked.html", "ooxml/rel"),
        ("http://a.org/relative/page.html", "ooxml/rel"),
    ];
    let href = [
        ("http://a.org/linked.html", "odf/href"),
        // Relative to the package seen as a folder: `../` is the document's own folder.
        ("http://a.org/docs/relative/page.html", "odf/href"),
    ];
    vec![
        (
            sample::docx(TEXT, LINKS).unwrap(),
            Format::Ooxml,
            "r.docx",
            with(text("ooxml/text"), &rel),
        ),
        (
            sample::xlsx(TEXT, LINKS).unwrap(),
            Format::Ooxml,
            "r.xlsx",
            with(text("ooxml/text"), &rel),
        ),
        (
            sample::pptx(TEXT, LINKS).unwrap(),
            Format::Ooxml,
            "r.pptx",
            with(text("ooxml/text"), &rel),
        ),
        (
            sample::odf(OdfKind::Text, TEXT, LINKS).unwrap(),
            Format::Odf,
            "r.odt",
            with(text("odf/text"), &href),
        ),
        (
            sample::odf(OdfKind::Spreadsheet, TEXT, LINKS).unwrap(),
            Format::Odf,
            "r.ods",
            with(text("odf/text"), &href),
        ),
        (
            sample::odf(OdfKind::Presentation, TEXT, LINKS).unwrap(),
            Format::Odf,
            "r.odp",
            with(text("odf/text"), &href),
        ),
        (
            // A URL split over an ANSI and a UTF-16 piece, and a hyperlink field with a relative target.
            sample::doc(&[
                ("See https://a.org/from-", true),
                ("text.html, and (http://b.org/x?y=1).\r", false),
                ("\u{13} HYPERLINK \"other.html\" \u{14}other\u{15}\r", true),
                // Words that read like a field code are not one.
                ("See the HYPERLINK below.\r", true),
                (
                    "Ünïcödé \u{13}HYPERLINK \"http://a.org/linked.html\"\u{14}x\u{15}",
                    false,
                ),
            ])
            .unwrap(),
            Format::Doc,
            "r.doc",
            with(
                text("doc/text"),
                &[
                    ("http://a.org/docs/other.html", "doc/field"),
                    ("http://a.org/linked.html", "doc/field"),
                ],
            ),
        ),
    ]
}

#[test]
fn each_format_gives_its_links() {
    for (body, format, name, want) in documents() {
        let (urls, problem) = links(&body, format, &u(name));
        assert_eq!(problem, None, "{name}");
        for (url, context) in &want {
            assert!(
                urls.contains(&(url.to_string(), *context)),
                "{name}: {url} ({context}) not in {urls:?}"
            );
        }
        assert_eq!(urls.len(), want.len(), "{name}: {urls:?}");
        let found = office_links(&body, format, &u(name), 1 << 30, &Limits::default());
        assert!(found.outlinks.iter().all(|o| o.hop == crate::Hop::Link));
    }
}

/// A .doc a word processor wrote (Apache POI's test file): its hyperlink field is found.
#[test]
fn a_real_word_documents_hyperlink() {
    let body = include_bytes!("../../testdata/apache-poi/hyperlink.doc");
    assert_eq!(
        office_format("application/msword", "/h.doc", body, || None),
        Some(Format::Doc)
    );
    let (urls, problem) = links(body, Format::Doc, &u("hyperlink.doc"));
    assert_eq!(problem, None);
    assert_eq!(urls, [("http://testuri.org/".to_string(), "doc/field")]);
}

#[test]
fn ooxml_field_codes_are_links_and_words_are_not() {
    use std::io::Write;
    let document = "<w:document xmlns:w=\"w\"><w:body>\
        <w:p><w:r><w:fldChar w:fldCharType=\"begin\"/></w:r>\
        <w:r><w:instrText> HYPERLINK \"field.html\" </w:instrText></w:r>\
        <w:r><w:fldChar w:fldCharType=\"separate\"/></w:r><w:r><w:t>shown</w:t></w:r></w:p>\
        <w:p><w:fldSimple w:instr=\"HYPERLINK &quot;http://b.org/simple&quot;\"><w:r><w:t>s</w:t></w:r></w:fldSimple></w:p>\
        <w:p><w:r><w:t>See the HYPERLINK below</w:t></w:r></w:p></w:body></w:document>";
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, text) in [
        ("[Content_Types].xml", "<Types/>"),
        ("word/document.xml", document),
    ] {
        zip.start_file(name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    let body = zip.finish().unwrap().into_inner();
    let (urls, problem) = links(&body, Format::Ooxml, &u("a.docx"));
    assert_eq!(problem, None);
    assert_eq!(
        urls,
        [
            ("http://b.org/simple".to_string(), "ooxml/field"),
            ("http://a.org/docs/field.html".to_string(), "ooxml/field"),
        ]
    );
}

#[test]
fn formats_are_told_by_type_bytes_and_extension() {
    let docx = sample::docx(&["x"], &[]).unwrap();
    let odt = sample::odf(OdfKind::Text, &["x"], &[]).unwrap();
    let doc = sample::doc(&[("x", true)]).unwrap();
    let zip_of = |parts: &[&str]| {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for name in parts {
            zip.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            std::io::Write::write_all(&mut zip, b"<x/>").unwrap();
        }
        zip.finish().unwrap().into_inner()
    };
    let plain_zip = zip_of(&["readme.txt", "data/a.csv"]);
    let nuget = zip_of(&["[Content_Types].xml", "_rels/.rels", "pkg.nuspec"]);
    // An ODF package whose mimetype part is not first: only its name tells.
    let odt_late = zip_of(&["content.xml", "mimetype", "META-INF/manifest.xml"]);
    let cases: &[(&str, &str, &[u8], Option<Format>)] = &[
        ("application/msword", "/a", b"", Some(Format::Doc)),
        (
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "/a",
            b"",
            Some(Format::Ooxml),
        ),
        (
            "application/vnd.ms-excel.sheet.macroEnabled.12",
            "/a",
            b"",
            Some(Format::Ooxml),
        ),
        (
            "application/vnd.oasis.opendocument.presentation; x=y",
            "/a",
            b"",
            Some(Format::Odf),
        ),
        (
            "application/octet-stream",
            "/a.bin",
            &odt,
            Some(Format::Odf),
        ),
        ("application/zip", "/a.DOCX", &docx, Some(Format::Ooxml)),
        // Its [Content_Types].xml and word/ part say what it is, whatever the URL.
        ("application/zip", "/a.zip", &docx, Some(Format::Ooxml)),
        ("application/zip", "/a.zip", &plain_zip, None),
        ("application/zip", "/a.zip", &nuget, None),
        (
            "application/octet-stream",
            "/a.doc",
            &doc,
            Some(Format::Doc),
        ),
        ("application/octet-stream", "/a.xls", &doc, None),
        ("text/html", "/a.docx", &docx, None),
        ("application/pdf", "/a.doc", &doc, None),
        // A package under Word's type is told by its bytes (xt15a F4), Word 97 stays Word 97.
        ("application/msword", "/t.docx", &docx, Some(Format::Ooxml)),
        ("application/msword", "/t.odt", &odt, Some(Format::Odf)),
        ("application/msword", "/t", &doc, Some(Format::Doc)),
        // The old Excel and PowerPoint types, and download scripts' types, are sniffed (xt15a F5).
        (
            "application/vnd.ms-excel",
            "/t.xlsx",
            &docx,
            Some(Format::Ooxml),
        ),
        (
            "application/vnd.ms-powerpoint",
            "/t",
            &docx,
            Some(Format::Ooxml),
        ),
        (
            "application/force-download",
            "/dl",
            &docx,
            Some(Format::Ooxml),
        ),
        ("application/x-msdownload", "/dl", &odt, Some(Format::Odf)),
        ("application/vnd.ms-excel", "/a.xls", &doc, None),
    ];
    for (mime, path, body, want) in cases {
        assert_eq!(
            office_format(mime, path, body, || None),
            *want,
            "{mime} {path}"
        );
    }
    // A download script names the file only in Content-Disposition.
    let named = |name: &'static str| {
        move || disposition_filename(&format!("attachment; filename=\"{name}\""))
    };
    let script = "/download";
    assert_eq!(
        office_format(
            "application/octet-stream",
            script,
            &doc,
            named("report.doc")
        ),
        Some(Format::Doc)
    );
    assert_eq!(
        office_format(
            "application/octet-stream",
            script,
            &doc,
            named("report.xls")
        ),
        None
    );
    assert_eq!(
        office_format(
            "application/octet-stream",
            script,
            &odt_late,
            named("report.odt")
        ),
        Some(Format::Odf)
    );
    assert_eq!(
        office_format("application/octet-stream", script, &odt_late, || None),
        None
    );
    assert_eq!(
        office_format("application/zip", script, &plain_zip, named("report.xlsx")),
        Some(Format::Ooxml)
    );
    // The header is not asked for when the type or the URL already tells.
    let unasked = || -> Option<String> { panic!("Content-Disposition asked for") };
    assert_eq!(office_format("text/html", script, &docx, unasked), None);
    assert_eq!(
        office_format("application/octet-stream", "/a.docx", &docx, unasked),
        Some(Format::Ooxml)
    );
}

#[test]
fn odf_references_inside_the_package_are_not_links() {
    let odt = sample::odf(
        OdfKind::Text,
        &[],
        &[
            "Pictures/1.png",
            "#bookmark",
            "./Object 1",
            "../sibling.odt",
        ],
    )
    .unwrap();
    let (urls, problem) = links(&odt, Format::Odf, &u("r.odt?v=2"));
    assert_eq!(problem, None);
    assert_eq!(
        urls,
        [("http://a.org/docs/sibling.odt".to_string(), "odf/href")]
    );
}

#[test]
fn too_large_malformed_and_encrypted_documents_are_problems() {
    let docx = sample::docx(&["http://a.org/x"], &[]).unwrap();
    let found = office_links(&docx, Format::Ooxml, &u("a.docx"), 100, &Limits::default());
    assert!(matches!(
        found.problem,
        Some(OfficeProblem::TooLarge { max: 100, .. })
    ));
    for (body, format) in [
        (&b"PK\x03\x04 not really"[..], Format::Ooxml),
        (b"<html>", Format::Odf),
        (b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1 cut", Format::Doc),
        (&docx[..], Format::Odf),
    ] {
        let (urls, problem) = links(body, format, &u("a"));
        assert!(urls.is_empty());
        assert!(
            matches!(problem, Some(OfficeProblem::Unreadable(_))),
            "{problem:?}"
        );
        assert_eq!(
            problem.as_ref().map(OfficeProblem::label),
            Some("unreadable")
        );
    }
    // An ODF package without its content is not one; a .doc's FIB with fEncrypted set is encrypted.
    let odt = sample::odf(OdfKind::Text, &["http://a.org/x"], &[]).unwrap();
    let (_, problem) = links(&sample::xlsx(&[], &[]).unwrap(), Format::Odf, &u("a"));
    assert!(matches!(problem, Some(OfficeProblem::Unreadable(_))));
    assert!(links(&odt, Format::Odf, &u("a")).1.is_none());
    let encrypted = encrypted_doc();
    let (urls, problem) = links(&encrypted, Format::Doc, &u("a.doc"));
    assert!(urls.is_empty());
    assert_eq!(problem, Some(OfficeProblem::Encrypted));
    assert_eq!(OfficeProblem::Encrypted.label(), "encrypted");
}

/// A sample .doc with the FIB's `fEncrypted` flag set.
fn encrypted_doc() -> Vec<u8> {
    let plain = sample::doc(&[("http://a.org/secret", true)]).unwrap();
    let mut file = cfb::CompoundFile::open(std::io::Cursor::new(plain)).unwrap();
    let mut word = Vec::new();
    std::io::Read::read_to_end(&mut file.open_stream("/WordDocument").unwrap(), &mut word).unwrap();
    word[0x0B] |= 0x01;
    std::io::Write::write_all(&mut file.create_stream("/WordDocument").unwrap(), &word).unwrap();
    file.flush().unwrap();
    file.into_inner().into_inner()
}

#[test]
fn a_zip_bomb_stops_at_the_part_limit() {
    // A part that inflates past MAX_PART_BYTES is read up to it (xt36b F10: the links of its first bytes are
    // kept); the other parts are still read.
    use std::io::Write;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let deflated = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    zip.start_file("[Content_Types].xml", deflated).unwrap();
    zip.write_all(b"<Types/>").unwrap();
    zip.start_file("word/bomb.xml", deflated).unwrap();
    let spaces = vec![b' '; 1 << 20];
    zip.write_all(b"<w:t>http://a.org/first</w:t><a>").unwrap();
    for _ in 0..(MAX_PART_BYTES >> 20) - 1 {
        zip.write_all(&spaces).unwrap();
    }
    // A URL the limit cuts through is no link (xt38b N12).
    let pad = vec![b' '; (1 << 20) - 64];
    zip.write_all(&pad).unwrap();
    zip.write_all(b"</a><w:t>http://a.org/edge/").unwrap();
    zip.write_all(&[b'x'; 200]).unwrap();
    zip.write_all(b"</w:t>").unwrap();
    zip.write_all(&spaces).unwrap();
    zip.write_all(b"http://a.org/lost</a>").unwrap();
    zip.start_file("word/document.xml", deflated).unwrap();
    zip.write_all(b"<w:t>http://a.org/kept</w:t>").unwrap();
    let body = zip.finish().unwrap().into_inner();
    assert!(body.len() < 1 << 20, "{} bytes", body.len());
    let (urls, problem) = links(&body, Format::Ooxml, &u("a.docx"));
    assert_eq!(problem, Some(OfficeProblem::Limit("MAX_PART_BYTES")));
    assert_eq!(
        urls,
        [
            ("http://a.org/first".to_string(), "ooxml/text"),
            ("http://a.org/kept".to_string(), "ooxml/text")
        ]
    );
}

#[test]
fn the_outlink_cap_holds() {
    let many: Vec<String> = (0..50).map(|i| format!("http://a.org/{i}")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let limits = Limits {
        max_outlinks: 10,
        ..Limits::default()
    };
    for (body, format) in [
        (sample::docx(&many, &[]).unwrap(), Format::Ooxml),
        (sample::odf(OdfKind::Text, &[], &many).unwrap(), Format::Odf),
        (
            sample::doc(&[(&many.join(" "), false)]).unwrap(),
            Format::Doc,
        ),
    ] {
        let found = office_links(&body, format, &u("a"), 1 << 30, &limits);
        assert_eq!(found.outlinks.len(), 10);
        assert!(found.truncated);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Damaged documents of every format (bytes changed, cut short) give a problem or fewer links, never a
    /// panic (caught or not).
    #[test]
    fn never_panics_on_damaged_documents(
        which in 0usize..7,
        cut in 0usize..8000,
        flips in proptest::collection::vec((0usize..8000, any::<u8>()), 0..8),
    ) {
        let (mut body, format, name, _) = documents().swap_remove(which);
        for (at, byte) in flips {
            let n = body.len();
            body[at % n] = byte;
        }
        body.truncate(cut.max(1).min(body.len()));
        let found = office_links(&body, format, &u(name), 1 << 20, &Limits::default());
        prop_assert!(found.problem != Some(OfficeProblem::ParserPanic), "{:?}", found.problem);
    }

    /// A URL among any words is found in every format, whatever the words.
    #[test]
    fn a_url_among_any_words_is_found(
        before in "[^<>&\\x00-\\x1f]{0,40}",
        after in "[^<>&\\x00-\\x1f]{0,40}",
        path in "[a-z0-9]{1,12}",
        which in 0usize..5,
    ) {
        let url = format!("http://b.org/{path}");
        let line = format!("{before} {url} {after}");
        let lines = [line.as_str()];
        let (body, format) = match which {
            0 => (sample::docx(&lines, &[]).unwrap(), Format::Ooxml),
            1 => (sample::xlsx(&lines, &[]).unwrap(), Format::Ooxml),
            2 => (sample::pptx(&lines, &[]).unwrap(), Format::Ooxml),
            3 => (sample::odf(OdfKind::Text, &lines, &[]).unwrap(), Format::Odf),
            _ => (sample::doc(&[(&line, false)]).unwrap(), Format::Doc),
        };
        let (urls, problem) = links(&body, format, &u("a"));
        prop_assert_eq!(problem, None);
        prop_assert!(urls.iter().any(|(u, _)| *u == url), "{} not in {:?}", url, urls);
    }
}
