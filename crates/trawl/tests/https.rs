//! HTTPS end to end: a TLS server with a self-signed certificate on 127.0.0.1 is crawled; the pages are
//! archived as the decrypted HTTP/1.1 bytes, and the certificate is annotated as invalid rather than refused.

mod common;

use std::sync::Arc;

use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpListener,
};
use trawl_engine::{Crawl, CrawlHandle, report::Ending};

/// A minimal HTTPS server answering from a fixed table, one request per connection read (keep-alive honoured).
async fn serve_tls() -> std::net::SocketAddr {
    let cert =
        rcgen::generate_simple_self_signed(vec!["localhost".into(), "127.0.0.1".into()]).unwrap();
    let key = rustls::pki_types::PrivateKeyDer::try_from(cert.signing_key.serialize_der()).unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![cert.cert.der().clone()], key)
    .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let mut buf = Vec::new();
                loop {
                    let mut chunk = [0u8; 4096];
                    let n = match tls.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => n,
                    };
                    buf.extend_from_slice(&chunk[..n]);
                    while let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        let head = String::from_utf8_lossy(&buf[..end]).to_string();
                        buf.drain(..end + 4);
                        let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                        let (status, body) = match path.as_str() {
                            "/" => ("200 OK", "<html><a href=\"/secure-page\">next</a></html>"),
                            "/secure-page" => ("200 OK", "<html>secret garden</html>"),
                            _ => ("404 Not Found", "missing"),
                        };
                        let resp = format!(
                            "HTTP/1.1 {status}\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}",
                            body.len()
                        );
                        if tls.write_all(resp.as_bytes()).await.is_err() {
                            return;
                        }
                    }
                }
            });
        }
    });
    addr
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_pages_are_archived_and_bad_certs_annotated() {
    let addr = serve_tls().await;
    let dir = tempfile::tempdir().unwrap();
    let seed = format!("https://127.0.0.1:{}/", addr.port());
    let crawl = Crawl::new(
        dir.path(),
        trawl::selftest::config(),
        std::slice::from_ref(&seed),
    )
    .unwrap();
    let summary = crawl.run(CrawlHandle::default(), |_| {}).await.unwrap();
    assert_eq!(summary.ending, Ending::Finished);

    let log = common::crawl_log(dir.path());
    let page = log
        .iter()
        .find(|l| l.uri.ends_with("/secure-page"))
        .expect("link followed over TLS");
    assert_eq!(page.status, 200);
    assert!(page.has_annotation("certInvalid"), "{:?}", page.annotations);
    assert_eq!(
        log.iter()
            .find(|l| l.uri.ends_with("/robots.txt"))
            .unwrap()
            .status,
        404
    );

    let recs = common::records(dir.path());
    let resp = recs
        .iter()
        .find(|r| {
            r.get("WARC-Type") == Some("response")
                && r.get("WARC-Target-URI").unwrap().ends_with("/secure-page")
        })
        .unwrap();
    assert!(resp.block.starts_with(b"HTTP/1.1 200 OK\r\n"));
    assert!(resp.block.ends_with(b"secret garden</html>"));
    let meta = recs
        .iter()
        .find(|r| {
            r.get("WARC-Type") == Some("metadata")
                && r.get("WARC-Target-URI") == Some(seed.as_str())
        })
        .unwrap();
    assert!(String::from_utf8_lossy(&meta.block).contains("tlsCertInvalid: "));
    for file in common::warc_files(dir.path()) {
        common::warcio_check(&file);
    }
}
