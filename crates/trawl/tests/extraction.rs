//! Extractors in a whole crawl: with `speculative_queue`, the guessed URIs of the self-test site are fetched
//! from one queue of their own; without it, from their host's queue. Sitemaps: a host's allowance, `<lastmod>`,
//! a sitemap served without a Content-Type, which URIs are read as sitemaps; feeds and sitemaps decoded by the
//! HTTP charset.

mod common;

/// (queue, spent) rows of the frontier report.
fn queues(job: &std::path::Path) -> Vec<(String, u64)> {
    std::fs::read_to_string(job.join("reports/frontier-report.txt"))
        .unwrap()
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            Some((f.first()?.to_string(), f.last()?.parse().ok()?))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn speculative_uris_get_a_queue_of_their_own() {
    let site = trawl::selftest::site::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (name, extra, want_queue) in [
        ("own", "[extract]\nspeculative_queue = true\n", true),
        ("host", "", false),
    ] {
        let cfg = dir.path().join(format!("{name}.toml"));
        std::fs::write(
            &cfg,
            format!("[seeds]\nurls = [\"{}\"]\n{extra}", site.seed()),
        )
        .unwrap();
        let job = dir.path().join(name);
        common::crawl_quickly(&cfg, &job).await;
        let log = common::crawl_log(&job);
        let guessed = log
            .iter()
            .filter(|l| l.hop_path.ends_with('X') && l.status == 200)
            .count();
        assert!(guessed >= 3, "{name}: {guessed} speculative fetches");
        let spec = queues(&job).into_iter().find(|(q, _)| q == "speculative");
        if want_queue {
            let (_, spent) = spec.expect("a `speculative` queue in the frontier report");
            assert!(spent >= guessed as u64, "{spent} spent, {guessed} guessed");
        } else {
            assert!(spec.is_none(), "no speculative queue unless asked for");
        }
    }
}

/// `sitemap_max_urls_per_host`: once a host's sitemaps gave that many URLs, further sitemaps add none (and say
/// so with `outlinksTrunc`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hosts_sitemaps_give_at_most_their_allowance() {
    let site = trawl::selftest::site::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    let text = format!(
        "[seeds]\nurls = [\"{}\"]\n[extract]\nsitemap_max_urls_per_host = 1\n",
        site.seed()
    );
    std::fs::write(&cfg, text).unwrap();
    let job = dir.path().join("job");
    common::crawl_quickly(&cfg, &job).await;
    let log = common::crawl_log(&job);
    let line = |path: &str| log.iter().find(|l| l.uri == site.url(path));
    assert!(
        line("/sitemap-pages.xml.gz").is_some(),
        "the index's one URL is taken"
    );
    let child = line("/sitemap-pages.xml.gz").unwrap();
    assert!(child.has_annotation("outlinksTrunc"), "{child:?}");
    assert!(child.has_annotation("sitemap:maxUrlsPerHost"), "{child:?}");
    assert!(line("/sitemap-only.html").is_none(), "past the allowance");
}

/// A sitemap's `<lastmod>` stays with the URI: crawl.log shows it, and `sitemap_lastmod` decides by it (the
/// recrawl use: skip what the site says has not changed since the last crawl).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sitemap_lastmod_is_kept_and_decides() {
    let site = trawl::selftest::site::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    // The default profile's rules (the self-test site has a calendar trap), then the date rule.
    let scope: String = [
        "reject",
        "surt_prefixed",
        "too_many_hops",
        "transclusion",
        "prerequisite_accept",
        "scheme_not_in_set",
        "pathological_path",
        "too_many_path_segments",
    ]
    .iter()
    .map(|r| format!("[[scope.rules]]\nrule = \"{r}\"\n"))
    .collect();
    for (name, rule, want_fetched) in [
        ("older", "before = \"2026-01-01\"", true),
        ("newer", "before = \"2026-12-01\"", false),
    ] {
        let cfg = dir.path().join(format!("{name}.toml"));
        let text = format!(
            "[seeds]\nurls = [\"{}\"]\n{scope}[[scope.rules]]\nrule = \"sitemap_lastmod\"\n{rule}\n",
            site.seed()
        );
        std::fs::write(&cfg, text).unwrap();
        let job = dir.path().join(name);
        common::crawl_quickly(&cfg, &job).await;
        let log = common::crawl_log(&job);
        let page = log.iter().find(|l| l.uri == site.url("/sitemap-only.html"));
        if want_fetched {
            let page = page.expect("the sitemap's page is fetched");
            assert!(
                page.has_annotation("lastmod:2026-11-25T00:00:00Z"),
                "{page:?}"
            );
        } else {
            // The sitemap was read, and the rule refused what it dated before December.
            let sitemap = log
                .iter()
                .find(|l| l.uri == site.url("/sitemap-pages.xml.gz"));
            assert!(sitemap.is_some_and(|l| l.status == 200), "{sitemap:?}");
            assert!(page.is_none_or(|l| l.status != 200), "{page:?}");
        }
    }
}

/// Office documents in a whole crawl: a page links to one document of each kind, served on 127.0.0.1 (and a
/// .docx and a PDF with no Content-Type at all, read as a generic type is; and two from download scripts as
/// application/octet-stream, one named only by Content-Disposition, one by nothing but its bytes); each
/// document's links (hyperlinks where its format keeps them, URLs in its text) are fetched one `L` past it,
/// and a damaged or password-protected document is logged with its `doc:` annotation.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn office_documents_give_their_links() {
    use axum::{Router, extract::Request, http::header, response::IntoResponse};
    use trawl_extract::office::sample::{self, OdfKind};

    let listener = common::bind().await;
    let port = listener.local_addr().unwrap().port();
    let url = |path: &str| format!("http://127.0.0.1:{port}{path}");
    let link = |name: &str| url(&format!("/{name}-link.html"));
    let text = |name: &str| url(&format!("/{name}-text.html"));
    let words = |name: &str| format!("See {} for more.", text(name));
    let ooxml = |kind: &str| format!("application/vnd.openxmlformats-officedocument.{kind}");
    let odf = |kind: &str| format!("application/vnd.oasis.opendocument.{kind}");
    // (path, content type, body); each document links to NAME-link.html and NAME-text.html.
    let mut docs: Vec<(String, String, Vec<u8>)> = vec![
        (
            "/r.docx".into(),
            ooxml("wordprocessingml.document"),
            sample::docx(&[&words("docx")], &[&link("docx")]).unwrap(),
        ),
        (
            "/r.xlsx".into(),
            ooxml("spreadsheetml.sheet"),
            sample::xlsx(&[&words("xlsx")], &[&link("xlsx")]).unwrap(),
        ),
        (
            "/r.pptx".into(),
            ooxml("presentationml.presentation"),
            sample::pptx(&[&words("pptx")], &[&link("pptx")]).unwrap(),
        ),
        (
            "/r.odt".into(),
            odf("text"),
            sample::odf(OdfKind::Text, &[&words("odt")], &[&link("odt")]).unwrap(),
        ),
        (
            "/r.ods".into(),
            odf("spreadsheet"),
            sample::odf(OdfKind::Spreadsheet, &[&words("ods")], &[&link("ods")]).unwrap(),
        ),
        (
            // A generic type: told an ODF package by its stored `mimetype` part.
            "/r.odp".into(),
            "application/octet-stream".into(),
            sample::odf(OdfKind::Presentation, &[&words("odp")], &[&link("odp")]).unwrap(),
        ),
        (
            "/r.doc".into(),
            "application/msword".into(),
            sample::doc(&[
                (&format!("{}\r", words("doc")), true),
                (
                    &format!("\u{13} HYPERLINK \"{}\" \u{14}here\u{15}\r", link("doc")),
                    false,
                ),
            ])
            .unwrap(),
        ),
        (
            // No Content-Type at all (served with an empty one, dropped below): a generic type too.
            "/untyped.docx".into(),
            String::new(),
            sample::docx(&[&words("untyped-docx")], &[&link("untyped-docx")]).unwrap(),
        ),
        (
            // No Content-Type, told a PDF by its `%PDF-` start.
            "/untyped.pdf".into(),
            String::new(),
            trawl_extract::pdf::sample_pdf(&[&[&words("untyped-pdf")]], &[&link("untyped-pdf")]),
        ),
        (
            // A download script: a .doc named only by its Content-Disposition (added below).
            "/download.php".into(),
            "application/octet-stream".into(),
            sample::doc(&[
                (&format!("{}\r", words("script-doc")), true),
                (
                    &format!(
                        "\u{13} HYPERLINK \"{}\" \u{14}here\u{15}\r",
                        link("script-doc")
                    ),
                    false,
                ),
            ])
            .unwrap(),
        ),
        (
            // A repository's bitstream with neither name nor type: told OOXML by its [Content_Types].xml.
            "/bitstream".into(),
            "application/octet-stream".into(),
            sample::docx(&[&words("script-docx")], &[&link("script-docx")]).unwrap(),
        ),
        (
            "/broken.docx".into(),
            ooxml("wordprocessingml.document"),
            b"PK\x03\x04 this is no zip".to_vec(),
        ),
    ];
    // A .doc whose FIB says it is encrypted (fEncrypted, bit 8 of the flags at offset 0x0A).
    let mut locked = sample::doc(&[(&words("locked"), true)]).unwrap();
    let fib = locked
        .windows(4)
        .position(|w| w == [0xEC, 0xA5, 0xC1, 0x00])
        .unwrap();
    locked[fib + 0x0B] |= 0x01;
    docs.push(("/locked.doc".into(), "application/msword".into(), locked));
    let index: String = docs
        .iter()
        .map(|(path, _, _)| format!("<a href=\"{path}\">{path}</a>\n"))
        .collect();
    let docs = std::sync::Arc::new(docs);
    let served = docs.clone();
    let app = Router::new().fallback(move |req: Request| {
        let docs = served.clone();
        let index = index.clone();
        async move {
            let path = req.uri().path();
            if path == "/" {
                return (
                    [(header::CONTENT_TYPE, "text/html".to_string())],
                    index.into_bytes(),
                )
                    .into_response();
            }
            match docs.iter().find(|(p, _, _)| p == path) {
                Some((_, mime, body)) if mime.is_empty() => {
                    let mut response = body.clone().into_response();
                    response.headers_mut().remove(header::CONTENT_TYPE);
                    response
                }
                Some((_, mime, body)) if path == "/download.php" => (
                    [
                        (header::CONTENT_TYPE, mime.clone()),
                        (
                            header::CONTENT_DISPOSITION,
                            "attachment; filename=\"Report 2024.DOC\"".to_string(),
                        ),
                    ],
                    body.clone(),
                )
                    .into_response(),
                Some((_, mime, body)) => {
                    ([(header::CONTENT_TYPE, mime.clone())], body.clone()).into_response()
                }
                None if path.ends_with(".html") => (
                    [(header::CONTENT_TYPE, "text/html".to_string())],
                    b"leaf".to_vec(),
                )
                    .into_response(),
                None => axum::http::StatusCode::NOT_FOUND.into_response(),
            }
        }
    });
    common::serve_on(listener, app);

    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    std::fs::write(&cfg, format!("[seeds]\nurls = [\"{}\"]\n", url("/"))).unwrap();
    let job = dir.path().join("job");
    common::crawl_quickly(&cfg, &job).await;
    let log = common::crawl_log(&job);
    let line = |u: &str| log.iter().find(|l| l.uri == u);
    for (doc, name) in [
        ("/r.docx", "docx"),
        ("/r.xlsx", "xlsx"),
        ("/r.pptx", "pptx"),
        ("/r.odt", "odt"),
        ("/r.ods", "ods"),
        ("/r.odp", "odp"),
        ("/r.doc", "doc"),
        ("/untyped.docx", "untyped-docx"),
        ("/untyped.pdf", "untyped-pdf"),
        ("/download.php", "script-doc"),
        ("/bitstream", "script-docx"),
    ] {
        let d = line(&url(doc)).unwrap_or_else(|| panic!("{doc} not fetched"));
        assert_eq!((d.status, d.hop_path.as_str()), (200, "L"), "{d:?}");
        assert!(
            !d.annotations
                .iter()
                .any(|a| a.starts_with("doc:") || a.starts_with("pdf:")),
            "{d:?}"
        );
        for target in [link(name), text(name)] {
            let t = line(&target).unwrap_or_else(|| panic!("{target} (from {doc}) not fetched"));
            assert_eq!(t.status, 200, "{t:?}");
            assert_eq!(t.hop_path, "LL", "{t:?}");
            assert_eq!(t.via.as_deref(), Some(url(doc).as_str()), "{t:?}");
        }
    }
    for (doc, annotation) in [
        ("/broken.docx", "doc:unreadable"),
        ("/locked.doc", "doc:encrypted"),
    ] {
        let d = line(&url(doc)).unwrap_or_else(|| panic!("{doc} not fetched"));
        assert!(d.has_annotation(annotation), "{d:?}");
    }
    assert!(
        line(&text("locked")).is_none(),
        "an encrypted document gives no links"
    );
}

/// A sitemap served with no Content-Type (some object stores and hand-written servers send none) is read when
/// its bytes show a sitemap: it was reached through a sitemap hop, so its root element says what it is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sitemap_without_a_content_type_is_read() {
    use axum::{Router, http::header, response::IntoResponse, routing::get};
    let app = Router::new()
        .route(
            "/robots.txt",
            get(|| async { "User-agent: *\nAllow: /\nSitemap: /sm.xml\n" }),
        )
        .route(
            "/sm.xml",
            // No Content-Type: axum adds one for a String, so the body goes out as raw bytes with none.
            get(|| async {
                let body = "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
                            <url><loc>/p-notype</loc></url></urlset>";
                let mut r = axum::body::Body::from(body).into_response();
                r.headers_mut().remove(header::CONTENT_TYPE);
                r
            }),
        )
        .route("/", get(|| async { axum::response::Html("<p>home</p>") }))
        .route("/p-notype", get(|| async { axum::response::Html("<p>p</p>") }));
    let addr = common::listen(app).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = common::write(
        &dir.path().join("c.toml"),
        &format!("[seeds]\nurls = [\"http://{addr}/\"]\n"),
    );
    let job = dir.path().join("job");
    common::crawl_quickly(&cfg, &job).await;
    let log = common::crawl_log(&job);
    let sitemap = common::log_line(&log, &format!("http://{addr}/sm.xml"));
    assert!(sitemap.mime.is_none(), "logged no-type: {sitemap:?}");
    let page = common::log_line(&log, &format!("http://{addr}/p-notype"));
    assert!(page.hop_path.ends_with("SS"), "{page:?}");
}

/// A robots.txt naming a sitemap on another host (the protocol's cross-submits): the default scope refuses it
/// with a line (xt12a F7: no line said so), and a scope accepting `…PS` hops reads it, its pages judged as any.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sitemap_on_another_host_is_logged_when_refused_and_read_when_accepted() {
    use axum::{Router, extract::State, routing::get};
    let port = std::sync::Arc::new(std::sync::OnceLock::<u16>::new());
    let app = Router::new()
        .route(
            "/robots.txt",
            get(
                |State(port): State<std::sync::Arc<std::sync::OnceLock<u16>>>| async move {
                    format!(
                        "User-agent: *\nAllow: /\nSitemap: http://localhost:{}/cross.xml\n",
                        port.get().unwrap()
                    )
                },
            ),
        )
        .route(
            "/cross.xml",
            get(
                |State(port): State<std::sync::Arc<std::sync::OnceLock<u16>>>| async move {
                    typed(
                        "application/xml",
                        format!(
                            "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
                         <url><loc>http://127.0.0.1:{}/only-in-sitemap</loc></url></urlset>",
                            port.get().unwrap()
                        )
                        .into_bytes(),
                    )
                },
            ),
        )
        .route("/", get(|| async { axum::response::Html("<p>home</p>") }))
        .route(
            "/only-in-sitemap",
            get(|| async { axum::response::Html("<p>listed</p>") }),
        )
        .with_state(port.clone());
    let addr = common::listen(app).await;
    port.set(addr.port()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let base = format!("[seeds]\nurls = [\"http://127.0.0.1:{}/\"]\n", addr.port());
    let sitemap = format!("http://localhost:{}/cross.xml", addr.port());
    let listed = format!("http://127.0.0.1:{}/only-in-sitemap", addr.port());
    let cfg = common::write(&dir.path().join("c.toml"), &base);
    let job = dir.path().join("job");
    common::crawl_quickly(&cfg, &job).await;
    let log = common::crawl_log(&job);
    let refused = common::log_line(&log, &sitemap);
    assert_eq!(refused.status, -5000, "{refused:?}");
    assert!(!log.iter().any(|l| l.uri == listed), "{log:?}");
    let accepting = format!(
        "{base}[[scope.rules]]\nrule = \"reject\"\n[[scope.rules]]\nrule = \"surt_prefixed\"\n\
         seeds_as_prefixes = true\n[[scope.rules]]\nrule = \"prerequisite_accept\"\n\
         [[scope.rules]]\nrule = \"hops_path_matches_regex\"\nregex = \"PS$\"\n"
    );
    let cfg = common::write(&dir.path().join("c2.toml"), &accepting);
    let job = dir.path().join("job2");
    // `localhost` is no seed host: the address policy lets it be reached only when allowed.
    common::crawl_quickly_with(&cfg, &job, |c| {
        c.fetch.allow_addresses = vec!["127.0.0.0/8".parse().unwrap(), "::1/128".parse().unwrap()];
    })
    .await;
    let log = common::crawl_log(&job);
    assert_eq!(common::log_line(&log, &sitemap).status, 200, "{log:?}");
    assert_eq!(common::log_line(&log, &listed).status, 200, "{log:?}");
}

/// A response of `content_type` (none when empty) with `body`.
fn typed(content_type: &str, body: Vec<u8>) -> axum::response::Response {
    use axum::{http::header, response::IntoResponse};
    let mut response = body.into_response();
    response.headers_mut().remove(header::CONTENT_TYPE);
    if !content_type.is_empty() {
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, content_type.parse().unwrap());
    }
    response
}

/// gzip of `text`.
fn gzip(text: &str) -> Vec<u8> {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(text.as_bytes()).unwrap();
    gz.finish().unwrap()
}

/// A feed and a sitemap in ISO-8859-1, served `charset=iso-8859-1` with no encoding in their XML declarations:
/// the header decides (RFC 7303), so every entry is found with its own characters (`é` used to be read as
/// UTF-8 and became U+FFFD, `%EF%BF%BD`, a page that is not there).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn feeds_and_sitemaps_are_decoded_by_the_http_charset() {
    use axum::{Router, extract::Request};
    let latin1 = "application/xml; charset=iso-8859-1";
    let app = Router::new().fallback(move |req: Request| async move {
        let path = req.uri().path().to_string();
        match path.as_str() {
            "/robots.txt" => typed("text/plain", b"User-agent: *\nAllow: /\nSitemap: /sm.xml\n".to_vec()),
            "/" => typed(
                "text/html",
                b"<link rel=alternate type=application/rss+xml href=/feed.rss><p>home".to_vec(),
            ),
            "/sm.xml" => typed(
                latin1,
                b"<?xml version=\"1.0\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
                  <url><loc>/sm-caf\xe9.html</loc></url><url><loc>/sm-after.html</loc></url></urlset>"
                    .to_vec(),
            ),
            "/feed.rss" => typed(
                "application/rss+xml; charset=iso-8859-1",
                b"<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>Caf\xe9</title>\
                  <item><link>/feed-caf\xe9.html</link></item><item><link>/feed-after.html</link></item>\
                  </channel></rss>"
                    .to_vec(),
            ),
            p if p.ends_with(".html") => typed("text/html", b"<p>leaf".to_vec()),
            _ => typed("text/plain", Vec::new()),
        }
    });
    let addr = common::listen(app).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = common::write(
        &dir.path().join("c.toml"),
        &format!("[seeds]\nurls = [\"http://{addr}/\"]\n"),
    );
    let job = dir.path().join("job");
    common::crawl_quickly(&cfg, &job).await;
    let log = common::crawl_log(&job);
    for (path, hops) in [
        ("/sm-caf%C3%A9.html", "PSS"),
        ("/sm-after.html", "PSS"),
        ("/feed-caf%C3%A9.html", "LL"),
        ("/feed-after.html", "LL"),
    ] {
        let line = common::log_line(&log, &format!("http://{addr}{path}"));
        assert_eq!(line.status, 200, "{line:?}");
        assert!(line.hop_path.ends_with(hops), "{line:?}");
    }
    assert!(
        !log.iter().any(|l| l.uri.contains("%EF%BF%BD")),
        "nothing read as UTF-8: {log:?}"
    );
}

/// Only a URI named as a sitemap is read as one: robots.txt's `Sitemap:` lines and a sitemap index's `<loc>`s
/// (a text sitemap and a gzipped one here), and the target of a redirect from one (which used to be read as a
/// page: its hop path ends in `R`). A text file, a gzip file or even a urlset that a `<urlset>` lists is a page,
/// extracted as its type says: the URLs in them are not followed (they used to be, as `S` hops).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_uris_named_as_sitemaps_are_read_as_sitemaps() {
    use axum::{Router, extract::Request, http::StatusCode, response::IntoResponse};
    let listener = common::bind().await;
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let o = origin.clone();
    let app = Router::new().fallback(move |req: Request| {
        let o = o.clone();
        async move {
            let path = req.uri().path().to_string();
            let urlset = |paths: &[&str]| -> Vec<u8> {
                let entries: String = paths
                    .iter()
                    .map(|p| format!("<url><loc>{o}{p}</loc></url>"))
                    .collect();
                format!("<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">{entries}</urlset>").into_bytes()
            };
            match path.as_str() {
                "/robots.txt" => typed(
                    "text/plain",
                    b"User-agent: *\nAllow: /\nSitemap: /index.xml\nSitemap: /old-sitemap.xml\n".to_vec(),
                ),
                "/" => typed("text/html", b"<p>home".to_vec()),
                "/index.xml" => typed(
                    "application/xml",
                    format!(
                        "<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
                         <sitemap><loc>{o}/pages.txt</loc></sitemap><sitemap><loc>{o}/pages.xml.gz</loc></sitemap>\
                         </sitemapindex>"
                    )
                    .into_bytes(),
                ),
                "/pages.txt" => typed("text/plain", format!("{o}/from-text-sitemap.html\n").into_bytes()),
                "/pages.xml.gz" => typed(
                    "application/gzip",
                    gzip(std::str::from_utf8(&urlset(&["/listed.html", "/notes.txt", "/archive.gz", "/nested.xml"])).unwrap()),
                ),
                "/old-sitemap.xml" => (
                    StatusCode::MOVED_PERMANENTLY,
                    [("location", format!("{o}/moved-sitemap.xml"))],
                )
                    .into_response(),
                "/moved-sitemap.xml" => typed("text/xml", urlset(&["/via-redirect.html"])),
                "/notes.txt" => typed("text/plain", format!("{o}/from-notes.html\n").into_bytes()),
                "/archive.gz" => typed("application/gzip", gzip(&format!("{o}/from-archive.html\n"))),
                "/nested.xml" => typed("application/xml", urlset(&["/from-nested.html"])),
                p if p.ends_with(".html") => typed("text/html", b"<p>leaf".to_vec()),
                _ => StatusCode::NOT_FOUND.into_response(),
            }
        }
    });
    common::serve_on(listener, app);
    let dir = tempfile::tempdir().unwrap();
    let cfg = common::write(
        &dir.path().join("c.toml"),
        &format!("[seeds]\nurls = [\"{origin}/\"]\n"),
    );
    let job = dir.path().join("job");
    common::crawl_quickly(&cfg, &job).await;
    let log = common::crawl_log(&job);
    for (path, hops) in [
        ("/from-text-sitemap.html", "PSSS"),
        ("/listed.html", "PSSS"),
        ("/notes.txt", "PSSS"),
        ("/archive.gz", "PSSS"),
        ("/nested.xml", "PSSS"),
        ("/via-redirect.html", "PSRS"),
    ] {
        let line = common::log_line(&log, &format!("{origin}{path}"));
        assert_eq!(
            (line.status, line.hop_path.as_str()),
            (200, hops),
            "{line:?}"
        );
    }
    for path in [
        "/from-notes.html",
        "/from-archive.html",
        "/from-nested.html",
    ] {
        assert!(
            !log.iter().any(|l| l.uri == format!("{origin}{path}")),
            "{path}: a page a urlset lists was read as a sitemap"
        );
    }
}

/// A body decoded past `fetch.max_decoded_bytes` says so (`decodeTrunc`): its links were read from the part
/// before the cut only (xt12b F5: a small limit left a page without links, and its line said nothing).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_cut_for_extraction_is_noted() {
    let site = trawl::selftest::site::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    std::fs::write(&cfg, format!("[seeds]\nurls = [\"{}\"]\n", site.seed())).unwrap();
    for (name, limit) in [("cut", 200), ("whole", 64 << 20)] {
        let job = dir.path().join(name);
        common::crawl_quickly_with(&cfg, &job, |c| c.fetch.max_decoded_bytes = limit).await;
        let log = common::crawl_log(&job);
        let seed = log.iter().find(|l| l.uri == site.seed()).unwrap();
        assert_eq!(
            seed.has_annotation("decodeTrunc"),
            name == "cut",
            "{seed:?}"
        );
        if name == "whole" {
            assert!(log.iter().all(|l| !l.has_annotation("decodeTrunc")));
        }
    }
}

/// xt26b F2, F3: a robots.txt `Sitemap:` line or a redirect naming a URL that is not http(s) (`mailto:`, which
/// has no host; `ftp:`) is refused as unfetchable (-7, `reject:not_http`) whatever the scope says. With a
/// scope accepting everything, a `mailto:` had reached the frontier, whose store panicked on its empty queue
/// name (the crawl hung), and an `ftp:` URL was fetched with HTTP.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn urls_that_are_not_http_are_never_fetched_whatever_the_scope() {
    use axum::{extract::Request, http::header, response::IntoResponse};
    use std::sync::{Arc, Mutex};
    let asked: Arc<Mutex<Vec<String>>> = Arc::default();
    let listener = common::bind().await;
    let port = listener.local_addr().unwrap().port();
    let seen = asked.clone();
    let app = axum::Router::new().fallback(move |req: Request| {
        let seen = seen.clone();
        async move {
            let path = req.uri().path().to_string();
            seen.lock().unwrap().push(path.clone());
            match path.as_str() {
                "/robots.txt" => format!(
                    "User-agent: *\nSitemap: mailto:a@b.example\nSitemap: ftp://127.0.0.1:{port}/x.xml\n"
                )
                .into_response(),
                "/" => (
                    [(header::CONTENT_TYPE, "text/html")],
                    "<a href=\"/redir\">r</a>",
                )
                    .into_response(),
                "/redir" => (
                    axum::http::StatusCode::FOUND,
                    [(header::LOCATION, "mailto:b@c.example")],
                )
                    .into_response(),
                _ => axum::http::StatusCode::NOT_FOUND.into_response(),
            }
        }
    });
    common::serve_on(listener, app);
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("all.toml");
    std::fs::write(
        &cfg,
        format!(
            "[seeds]\nurls = [\"http://127.0.0.1:{port}/\"]\n[[scope.rules]]\nrule = \"accept\"\n"
        ),
    )
    .unwrap();
    let job = dir.path().join("job");
    tokio::time::timeout(
        std::time::Duration::from_secs(60),
        common::crawl_quickly(&cfg, &job),
    )
    .await
    .expect("the crawl ends");
    let log = common::crawl_log(&job);
    for uri in [
        "mailto:a@b.example".to_string(),
        format!("ftp://127.0.0.1:{port}/x.xml"),
    ] {
        let line = common::log_line(&log, &uri);
        assert_eq!(line.status, -7, "{uri}");
    }
    // The redirect's target is never fetched, but logged as refused (xt42a: it went without a line); its
    // 302 is logged.
    let target = common::log_line(&log, "mailto:b@c.example");
    assert!(
        target.status == -7 && target.annotations.iter().any(|a| a == "reject:not_http"),
        "{target:?}"
    );
    assert_eq!(
        common::log_line(&log, &format!("http://127.0.0.1:{port}/redir")).status,
        302
    );
    let asked = asked.lock().unwrap().clone();
    assert!(!asked.contains(&"/x.xml".to_string()), "{asked:?}");
}
