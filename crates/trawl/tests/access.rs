//! Access against local servers: a site that needs its session cookie; Basic and Digest realms (a wrong
//! password ends as one logged 401); a form login whose session a page ends half-way (logged in again); a
//! credential never sent to a second host; SOCKS5 and HTTP CONNECT proxies (the archive holds the origin
//! exchange); an HTTP/2-only TLS server (records `WARC-Protocol: h2` that warcio checks and pywb replays); the
//! cookie jar kept across kill -9 and resume.

mod common;

use common::{cookie, listen, write};

use std::{
    collections::HashSet,
    net::SocketAddr,
    path::Path,
    process::{Command, Stdio},
    sync::{Arc, Mutex},
    time::Duration,
};

use axum::{
    Router,
    extract::{Request, State},
    http::{HeaderMap, StatusCode, header},
    response::{IntoResponse, Response},
};
use md5::{Digest, Md5};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
};

/// What a test server saw: (path, request headers) per request, and the form sessions it issued.
#[derive(Default)]
struct Seen {
    requests: Vec<(String, HeaderMap)>,
    sessions: HashSet<String>,
    logins: usize,
}

type Shared = Arc<Mutex<Seen>>;

fn html(body: &str) -> Response {
    (
        [(header::CONTENT_TYPE, "text/html")],
        format!("<html><body>{body}</body></html>"),
    )
        .into_response()
}

fn md5_hex(s: &str) -> String {
    Md5::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether `auth` is a correct Digest answer (RFC 7616, MD5, qop=auth) for `user:pass` in `realm`.
fn digest_ok(auth: &str, method: &str, realm: &str, user: &str, pass: &str) -> bool {
    let Some(params) = auth.strip_prefix("Digest ") else {
        return false;
    };
    let get = |key: &str| {
        params.split(", ").find_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            (k.trim() == key).then(|| v.trim_matches('"').to_string())
        })
    };
    let (Some(nonce), Some(uri), Some(nc), Some(cnonce), Some(response)) = (
        get("nonce"),
        get("uri"),
        get("nc"),
        get("cnonce"),
        get("response"),
    ) else {
        return false;
    };
    let ha1 = md5_hex(&format!("{user}:{realm}:{pass}"));
    let ha2 = md5_hex(&format!("{method}:{uri}"));
    get("username").as_deref() == Some(user)
        && response == md5_hex(&format!("{ha1}:{nonce}:{nc}:{cnonce}:auth:{ha2}"))
}

fn challenge(value: String) -> Response {
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, value)],
        "no",
    )
        .into_response()
}

/// The protected site: every scenario on one host.
async fn site(State(seen): State<Shared>, other: State<String>, req: Request) -> Response {
    let path = req.uri().path().to_string();
    let headers = req.headers().clone();
    let method = req.method().clone();
    let body = axum::body::to_bytes(req.into_body(), 1 << 16)
        .await
        .unwrap_or_default();
    seen.lock()
        .unwrap()
        .requests
        .push((path.clone(), headers.clone()));
    let auth = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let session = cookie(&headers, "session").map(str::to_string);
    let logged_in = session
        .as_ref()
        .is_some_and(|s| seen.lock().unwrap().sessions.contains(s));
    match path.as_str() {
        "/" => (
            [(header::SET_COOKIE, "sid=abc; Path=/; HttpOnly")],
            html(
                "<a href=\"/needs-cookie\">c</a> <a href=\"/basic/ok\">b</a> <a href=\"/basic/bad\">w</a> \
                 <a href=\"/digest/ok\">d</a> <a href=\"/members/1\">m</a>",
            ),
        )
            .into_response(),
        "/needs-cookie" if cookie(&headers, "sid") == Some("abc") => html("cookie accepted"),
        "/needs-cookie" => (StatusCode::FORBIDDEN, "no cookie").into_response(),
        // "archivist:right" in Basic.
        "/basic/ok" if auth == "Basic YXJjaGl2aXN0OnJpZ2h0" => {
            html(&format!("staff only <a href=\"{}/from-protected\">out</a>", other.0))
        }
        "/basic/ok" => challenge("Basic realm=\"staff\"".into()),
        "/basic/bad" => challenge("Basic realm=\"other\"".into()),
        "/digest/ok" if digest_ok(&auth, "GET", "vault", "archivist", "right") => html("vault"),
        "/digest/ok" => challenge(
            "Digest realm=\"vault\", qop=\"auth\", nonce=\"n0nce\", algorithm=MD5".into(),
        ),
        "/login" if method == "POST" => {
            let form = String::from_utf8_lossy(&body).to_string();
            if form.contains("username=archivist") && form.contains("password=letmein") {
                let mut s = seen.lock().unwrap();
                s.logins += 1;
                let token = format!("t{}", s.logins);
                s.sessions.insert(token.clone());
                (
                    [(header::SET_COOKIE, format!("session={token}; Path=/"))],
                    html("Welcome. Sign out"),
                )
                    .into_response()
            } else {
                html("Sign in: wrong password")
            }
        }
        p if p.starts_with("/members/") => {
            let n: u32 = p["/members/".len()..].parse().unwrap_or(0);
            if !logged_in {
                return html(&format!(
                    "Please Sign in <a href=\"/members/{}\">next</a>",
                    n + 1
                ));
            }
            if n == 3 {
                // This page ends the session on the server: the next page shows the sign-in form.
                seen.lock()
                    .unwrap()
                    .sessions
                    .remove(session.as_deref().unwrap_or_default());
            }
            let next = if n < 6 {
                format!("<a href=\"/members/{}\">next</a>", n + 1)
            } else {
                String::new()
            };
            html(&format!("Members page {n} {next}"))
        }
        _ => (StatusCode::NOT_FOUND, "none").into_response(),
    }
}

/// The second host: records what it was sent.
async fn second(State(seen): State<Shared>, req: Request) -> Response {
    seen.lock()
        .unwrap()
        .requests
        .push((req.uri().path().to_string(), req.headers().clone()));
    html("second host")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cookies_basic_digest_and_form_logins() {
    let dir = tempfile::tempdir().unwrap();
    let seen2: Shared = Arc::default();
    let second_addr = listen(Router::new().fallback(second).with_state(seen2.clone())).await;
    let other = format!("http://localhost:{}", second_addr.port());
    let seen: Shared = Arc::default();
    let link = other.clone();
    let app = Router::new()
        .fallback(move |s: State<Shared>, req: Request| {
            let other = link.clone();
            async move { site(s, State(other), req).await }
        })
        .with_state(seen.clone());
    let addr = listen(app).await;
    let base = format!("http://127.0.0.1:{}", addr.port());
    write(&dir.path().join("right.txt"), "right\n");
    write(&dir.path().join("wrong.txt"), "wrong\n");
    write(&dir.path().join("form.txt"), "letmein\n");
    let cfg = write(
        &dir.path().join("c.toml"),
        &format!(
            "[seeds]\nurls = [\"{base}/\", \"{other}/\"]\n\
             [[credentials]]\nkind = \"basic\"\ndomain = \"127.0.0.1\"\nrealm = \"staff\"\nuser = \"archivist\"\npassword_file = \"right.txt\"\n\
             [[credentials]]\nkind = \"basic\"\ndomain = \"127.0.0.1\"\nrealm = \"other\"\nuser = \"archivist\"\npassword_file = \"wrong.txt\"\n\
             [[credentials]]\nkind = \"digest\"\ndomain = \"127.0.0.1\"\nrealm = \"vault\"\nuser = \"archivist\"\npassword_file = \"right.txt\"\n\
             [[credentials]]\nkind = \"form\"\ndomain = \"127.0.0.1\"\nlogin_url = \"{base}/login\"\n\
             fields = {{ username = \"archivist\" }}\npassword_file = \"form.txt\"\n\
             success = {{ cookie = \"session\" }}\nlogged_out = {{ text = \"Sign in\" }}\n\
             [[sheet]]\nname = \"second\"\nrules = [{{ rule = \"on_hosts\", hosts = [\"localhost\"] }}]\n\
             set = {{ \"fetch.headers\" = {{ \"X-Archive\" = \"sheet\" }} }}\n"
        ),
    );
    let job = dir.path().join("job");
    common::crawl_quickly(&cfg, &job).await;
    let log = common::crawl_log(&job);
    let status = |path: &str| {
        log.iter()
            .filter(|l| l.uri == format!("{base}{path}"))
            .map(|l| l.status)
            .collect::<Vec<_>>()
    };
    // The session cookie set by the first page opens the second.
    assert_eq!(status("/needs-cookie"), [200]);
    // Basic and Digest answered; the wrong password is one logged 401 after one answer, not a loop.
    let sent = |path: &str| {
        seen.lock()
            .unwrap()
            .requests
            .iter()
            .filter(|(p, _)| p == path)
            .map(|(_, h)| format!("{:?}", h.get(header::AUTHORIZATION)))
            .collect::<Vec<_>>()
    };
    assert_eq!(status("/basic/ok"), [200], "{:?}", sent("/basic/ok"));
    assert_eq!(status("/digest/ok"), [200]);
    assert_eq!(status("/basic/bad"), [401]);
    let asked = |path: &str| {
        seen.lock()
            .unwrap()
            .requests
            .iter()
            .filter(|(p, _)| p == path)
            .count()
    };
    assert_eq!(asked("/basic/bad"), 2, "the challenge answered once");
    // Answers go up front only where their realm's answer worked (RFC 7617 §2.2): no other page got one.
    for (path, headers) in &seen.lock().unwrap().requests {
        if !path.starts_with("/basic/") && !path.starts_with("/digest/") {
            assert!(
                headers.get(header::AUTHORIZATION).is_none(),
                "{path}: {headers:?}"
            );
        }
    }
    // Every member page fetched logged in, though page 3 ended the session; logged in twice.
    for n in 1..=6 {
        assert_eq!(status(&format!("/members/{n}")), [200], "members/{n}");
    }
    let records = common::records(&job);
    for n in 1..=6 {
        let uri = format!("{base}/members/{n}");
        let rec = records
            .iter()
            .find(|r| {
                r.get("WARC-Type") == Some("response") && r.get("WARC-Target-URI") == Some(&uri)
            })
            .unwrap();
        let body = String::from_utf8_lossy(&rec.block);
        assert!(body.contains(&format!("Members page {n}")), "{uri}: {body}");
    }
    // The login page is read first (here a 404 with no form: the endpoint is posted to as configured), then
    // the form posted: a `P` hop from the page that needed it, then an `L` hop from the login page.
    let logins: Vec<_> = log
        .iter()
        .filter(|l| l.uri == format!("{base}/login"))
        .collect();
    assert!(
        logins.len() == 4
            && logins
                .iter()
                .filter(|l| l.has_annotation("login:page") && l.hop_path.ends_with('P'))
                .count()
                == 2
            && logins
                .iter()
                .filter(|l| l.has_annotation("login:ok") && l.hop_path.ends_with("PL"))
                .count()
                == 2,
        "{logins:?}"
    );
    assert_eq!(seen.lock().unwrap().logins, 2);
    // The login exchange is archived with what was sent (the password included: that is the archive).
    let login_request = records
        .iter()
        .find(|r| {
            r.get("WARC-Type") == Some("request")
                && r.get("WARC-Target-URI") == Some(&format!("{base}/login"))
                && r.block.starts_with(b"POST ")
        })
        .unwrap();
    assert!(login_request.block.starts_with(b"POST /login HTTP/1.1"));
    assert!(
        login_request
            .block
            .ends_with(b"username=archivist&password=letmein")
    );
    // The second host, linked from a protected page, never saw a credential or the first host's cookies.
    let seen2 = seen2.lock().unwrap();
    assert!(seen2.requests.iter().any(|(p, _)| p == "/from-protected"));
    // A sheet's extra header goes to its hosts only.
    assert!(
        seen2
            .requests
            .iter()
            .all(|(_, h)| h.get("x-archive").is_some_and(|v| v == "sheet"))
    );
    assert!(
        seen.lock()
            .unwrap()
            .requests
            .iter()
            .all(|(_, h)| h.get("x-archive").is_none())
    );
    for (path, headers) in &seen2.requests {
        assert!(
            headers.get(header::AUTHORIZATION).is_none() && headers.get(header::COOKIE).is_none(),
            "{path}: {headers:?}"
        );
    }
    // No password in crawl.log, the reports or the job's copy of the config.
    for f in ["logs/crawl.log", "crawl.toml"] {
        let text = std::fs::read_to_string(job.join(f)).unwrap_or_default();
        assert!(
            !text.contains("letmein") && !text.contains("right\n"),
            "{f}"
        );
    }
    for f in common::warc_files(&job) {
        common::warcio_check(&f);
    }
}

/// A form login that never works: tried up to the limit (3 posts), and every page showing the sign-in form
/// is fetched once, as it came — not once more for a session that never came.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_form_login_stops_at_the_limit_and_fetches_each_page_once() {
    let dir = tempfile::tempdir().unwrap();
    let seen: Shared = Arc::default();
    let app = Router::new()
        .fallback(|s: State<Shared>, req: Request| async move {
            site(s, State(String::new()), req).await
        })
        .with_state(seen.clone());
    let base = format!("http://127.0.0.1:{}", listen(app).await.port());
    write(&dir.path().join("form.txt"), "wrong\n");
    let cfg = write(
        &dir.path().join("c.toml"),
        &format!(
            "[seeds]\nurls = [\"{base}/members/1\"]\n[scope]\nmax_hops = 6\n\
             [[credentials]]\nkind = \"form\"\ndomain = \"127.0.0.1\"\nlogin_url = \"{base}/login\"\n\
             fields = {{ username = \"archivist\" }}\npassword_file = \"form.txt\"\n\
             success = {{ cookie = \"session\" }}\nlogged_out = {{ text = \"Sign in\" }}\n"
        ),
    );
    let job = dir.path().join("job");
    common::crawl_quickly(&cfg, &job).await;
    let seen = seen.lock().unwrap();
    let asked = |path: &str| seen.requests.iter().filter(|(p, _)| p == path).count();
    let posted = seen
        .requests
        .iter()
        .filter(|(p, h)| p == "/login" && h.contains_key(header::CONTENT_TYPE))
        .count();
    assert_eq!(posted, 3, "the failed-login limit");
    for n in 1..=7 {
        assert_eq!(asked(&format!("/members/{n}")), 1, "members/{n}");
    }
    let log = common::crawl_log(&job);
    assert_eq!(
        log.iter()
            .filter(|l| l.uri.ends_with("/login") && l.has_annotation("login:failed"))
            .count(),
        3
    );
}

/// A SOCKS5 proxy (no authentication) counting its tunnels.
async fn socks5_proxy(count: Arc<Mutex<usize>>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut c, _)) = listener.accept().await {
            let count = count.clone();
            tokio::spawn(async move {
                let mut hello = [0u8; 2];
                c.read_exact(&mut hello).await?;
                let mut methods = vec![0u8; hello[1] as usize];
                c.read_exact(&mut methods).await?;
                if methods.contains(&2) {
                    // RFC 1929 user/password: only archivist / s3cret gets a tunnel.
                    c.write_all(&[5, 2]).await?;
                    let field = |len: usize| vec![0u8; len];
                    let ver_len = [c.read_u8().await?, c.read_u8().await?];
                    let mut user = field(ver_len[1] as usize);
                    c.read_exact(&mut user).await?;
                    let mut pass = field(c.read_u8().await? as usize);
                    c.read_exact(&mut pass).await?;
                    let ok = user == b"archivist" && pass == b"s3cret";
                    c.write_all(&[1, if ok { 0 } else { 1 }]).await?;
                    if !ok {
                        return Ok(());
                    }
                } else {
                    c.write_all(&[5, 0]).await?;
                }
                let mut req = [0u8; 4];
                c.read_exact(&mut req).await?;
                assert_eq!(
                    req[3], 1,
                    "an IPv4 address: resolved by trawl, judged by its policy"
                );
                let mut ip = [0u8; 4];
                c.read_exact(&mut ip).await?;
                let port = c.read_u16().await?;
                let mut origin = TcpStream::connect((std::net::Ipv4Addr::from(ip), port)).await?;
                c.write_all(&[5, 0, 0, 1, 0, 0, 0, 0, 0, 0]).await?;
                *count.lock().unwrap() += 1;
                tokio::io::copy_bidirectional(&mut c, &mut origin).await?;
                Ok::<_, std::io::Error>(())
            });
        }
    });
    addr
}

/// An HTTP proxy answering CONNECT only, counting its tunnels.
async fn connect_proxy(count: Arc<Mutex<usize>>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut c, _)) = listener.accept().await {
            let count = count.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                while !head.ends_with(b"\r\n\r\n") {
                    head.push(c.read_u8().await?);
                }
                let text = String::from_utf8_lossy(&head).to_string();
                let target = text
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or_default()
                    .to_string();
                assert!(text.starts_with("CONNECT "), "{text}");
                let mut origin = TcpStream::connect(target).await?;
                // No reason phrase: the status is read from the first line alone.
                c.write_all(b"HTTP/1.1 200\r\n\r\n").await?;
                *count.lock().unwrap() += 1;
                tokio::io::copy_bidirectional(&mut c, &mut origin).await?;
                Ok::<_, std::io::Error>(())
            });
        }
    });
    addr
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn socks5_and_http_proxies_carry_the_origin_exchange() {
    let site = trawl::selftest::site::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    for kind in ["socks5", "http"] {
        let count = Arc::new(Mutex::new(0));
        let proxy = match kind {
            "socks5" => socks5_proxy(count.clone()).await,
            _ => connect_proxy(count.clone()).await,
        };
        let cfg = write(
            &dir.path().join(format!("{kind}.toml")),
            // Every URI under a sheet: its settings are built through the config's serialisation, which
            // leaves the proxy's password out of the job's copy and must not leave it out of the fetch.
            &format!(
                "[seeds]\nurls = [\"{}\"]\n[[sheet]]\nname = \"all\"\nsurt_prefixes = [\"http://(\"]\n\
                 set = {{ \"frontier.min_delay_ms\" = 0 }}\n",
                site.seed()
            ),
        );
        let job = dir.path().join(kind);
        // The SOCKS5 proxy asks for a user and password: they never reach the job's copy of the config or
        // the warcinfo record.
        let proxy_url = match kind {
            "socks5" => format!("socks5://archivist:s3cret@{proxy}"),
            _ => format!("http://{proxy}"),
        };
        common::crawl_quickly_with(&cfg, &job, |c| c.fetch.proxy = Some(proxy_url.clone())).await;
        let log = common::crawl_log(&job);
        assert!(
            log.iter()
                .any(|l| l.uri == site.url("/final") && l.status == 200)
        );
        assert!(*count.lock().unwrap() >= 1, "{kind}: no tunnel");
        let records = common::records(&job);
        let home = records
            .iter()
            .find(|r| {
                r.get("WARC-Type") == Some("response")
                    && r.get("WARC-Target-URI") == Some(&site.seed())
            })
            .unwrap();
        assert!(home.block.starts_with(b"HTTP/1.1 200"), "{kind}");
        let copy = std::fs::read_to_string(job.join("crawl.toml")).unwrap();
        assert!(copy.contains(&format!("{kind}://")), "{copy}");
        let warcinfo = records
            .iter()
            .find(|r| r.get("WARC-Type") == Some("warcinfo"))
            .unwrap();
        assert!(!copy.contains("s3cret"), "{copy}");
        assert!(!String::from_utf8_lossy(&warcinfo.block).contains("s3cret"));
        assert_eq!(
            home.get("WARC-IP-Address"),
            Some("127.0.0.1"),
            "the origin's address"
        );
        for f in common::warc_files(&job) {
            common::warcio_check(&f);
        }
        // The job's copy names the proxy user without the password: the job is verified, inspected and
        // changed without it; only a crawl needs it (xt14a F4: each of these asked for TRAWL_PROXY_PASSWORD).
        for args in [
            vec!["warc", "verify"],
            vec!["ctl", "JOB", "queues"],
            vec!["ctl", "JOB", "set", "frontier.min_delay_ms=0"],
        ] {
            let job_arg = job.as_os_str();
            let args: Vec<&std::ffi::OsStr> = args
                .iter()
                .map(|a| if *a == "JOB" { job_arg } else { a.as_ref() })
                .chain((args[0] == "warc").then_some(job_arg))
                .collect();
            let (ok, said) = common::run(
                common::trawl_command()
                    .args(&args)
                    .env_remove("TRAWL_PROXY_PASSWORD"),
            );
            assert!(ok, "{kind}: {args:?}: {said}");
        }
        if kind == "socks5" {
            let (ok, said) = common::run(
                common::trawl_command()
                    .args(["resume".as_ref(), job.as_os_str()])
                    .env_remove("TRAWL_PROXY_PASSWORD"),
            );
            assert!(!ok && said.contains("TRAWL_PROXY_PASSWORD"), "{said}");
            // A shared crawl cannot carry a password written in the config: refused before Redis is asked.
            let cfg = write(
                &dir.path().join("shared.toml"),
                &format!(
                    "[seeds]\nurls = [\"{}\"]\n[fetch]\nproxy = \"{proxy_url}\"\n",
                    site.seed()
                ),
            );
            let (ok, said) = common::run_trawl([
                "crawl".as_ref(),
                "--frontier".as_ref(),
                "redis://127.0.0.1:1/0".as_ref(),
                "-c".as_ref(),
                cfg.as_os_str(),
                "--job".as_ref(),
                dir.path().join("shared").as_os_str(),
            ]);
            assert!(
                !ok && said.contains(
                    "fetch.proxy: a password written in the config cannot go to a shared crawl"
                ),
                "{said}"
            );
        }
    }
}

/// An HTTPS server speaking HTTP/2 only (ALPN `h2`, nothing else), on `localhost`.
async fn h2_only_server() -> SocketAddr {
    use hyper::{server::conn::http2, service::service_fn};
    use hyper_util::rt::{TokioExecutor, TokioIo};
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let key = rustls::pki_types::PrivateKeyDer::try_from(cert.signing_key.serialize_der()).unwrap();
    let mut config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![cert.cert.der().clone()], key)
    .unwrap();
    config.alpn_protocols = vec![b"h2".to_vec()];
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let service = service_fn(|req: hyper::Request<hyper::body::Incoming>| async move {
                    let body = match req.uri().path() {
                        "/" => "<html><body>h2 home <a href=\"/two\">two</a></body></html>",
                        "/two" => "<html><body>h2 page two</body></html>",
                        _ => "",
                    };
                    Ok::<_, std::convert::Infallible>(
                        hyper::Response::builder()
                            .header("content-type", "text/html")
                            .header("content-length", body.len())
                            .body(http_body_util::Full::new(bytes::Bytes::from(body)))
                            .unwrap(),
                    )
                });
                let _ = http2::Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(tls), service)
                    .await;
            });
        }
    });
    addr
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_h2_only_server_is_archived_in_http_1_1_form() {
    let addr = h2_only_server().await;
    let seed = format!("https://localhost:{}/", addr.port());
    let dir = tempfile::tempdir().unwrap();
    let cfg = write(
        &dir.path().join("h2.toml"),
        &format!("[seeds]\nurls = [\"{seed}\"]\n[fetch]\nobey_robots = false\n"),
    );
    let job = dir.path().join("h2");
    common::crawl_quickly_with(&cfg, &job, |c| {
        c.fetch.obey_robots = false;
        // An operator's field goes out; a connection-specific one (trawl's keep-alive) has no place in
        // HTTP/2: not sent, so not in the record either. (fetch.headers may not set those at all.)
        c.fetch.headers.insert("X-Extra".into(), "1".into());
    })
    .await;
    let log = common::crawl_log(&job);
    let two = format!("{seed}two");
    for uri in [&seed, &two] {
        assert!(
            log.iter().any(|l| &l.uri == uri && l.status == 200),
            "{uri}: {log:?}"
        );
    }
    let records = common::records(&job);
    let home = records
        .iter()
        .find(|r| r.get("WARC-Type") == Some("response") && r.get("WARC-Target-URI") == Some(&seed))
        .unwrap();
    let protocols: Vec<&str> = home
        .header
        .iter()
        .filter(|(n, _)| n == "WARC-Protocol")
        .map(|(_, v)| v.as_str())
        .collect();
    assert_eq!(protocols, ["h2", "tls/1.3"]);
    let request = records
        .iter()
        .find(|r| r.get("WARC-Type") == Some("request") && r.get("WARC-Target-URI") == Some(&seed))
        .unwrap();
    let head = String::from_utf8_lossy(&request.block).to_lowercase();
    assert!(
        head.starts_with("get / http/1.1\r\nhost: localhost:"),
        "{head}"
    );
    assert!(
        head.contains("x-extra: 1") && !head.contains("connection"),
        "{head}"
    );
    assert!(
        home.block.starts_with(b"HTTP/1.1 200 OK\r\n"),
        "{:?}",
        String::from_utf8_lossy(&home.block)
    );
    let warcs = common::warc_files(&job);
    for f in &warcs {
        common::warcio_check(f);
    }
    // pywb replays the h2 capture.
    let root = dir.path().join("pywb");
    if let Some(wayback) = common::Wayback::start(&root, "h2", &warcs) {
        let line = log.iter().find(|l| l.uri == seed).unwrap();
        let stamp = &line.fetch.as_deref().unwrap()[..14];
        let got = wayback
            .client
            .get(&format!("/h2/{stamp}id_/{seed}"))
            .unwrap_or_else(|| panic!("pywb has no capture of {seed}:\n{}", wayback.log()));
        assert!(String::from_utf8_lossy(&got).contains("h2 home"));
    }
    // `http2 = false` forces HTTP/1.1, which this server refuses: the fetch fails at the handshake.
    let job = dir.path().join("h1");
    common::crawl_quickly_with(&cfg, &job, |c| {
        c.fetch.obey_robots = false;
        c.fetch.http2 = false;
    })
    .await;
    let log = common::crawl_log(&job);
    assert!(log.iter().any(|l| l.uri == seed && l.status < 0), "{log:?}");
}

/// The site of the resume test: `/` sets the session cookie; `/p/N` answer 200 only with it, slowly.
async fn slow_cookie_site(req: Request) -> Response {
    let path = req.uri().path().to_string();
    if path == "/" {
        let links: String = (0..40)
            .map(|i| format!("<a href=\"/p/{i}\">{i}</a> "))
            .collect();
        return ([(header::SET_COOKIE, "sid=kept; Path=/")], html(&links)).into_response();
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    if cookie(req.headers(), "sid") == Some("kept") {
        html("with cookie")
    } else {
        (StatusCode::FORBIDDEN, "no cookie").into_response()
    }
}

/// Cookies exported from a browser (cookies.txt) open the site from the first request; with `cookies = "off"`
/// nothing is stored or sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cookies_from_a_file_and_cookies_off() {
    let addr = listen(Router::new().fallback(slow_cookie_site)).await;
    let dir = tempfile::tempdir().unwrap();
    let seed = format!("http://127.0.0.1:{}/p/1", addr.port());
    let jar = write(
        &dir.path().join("cookies.txt"),
        "# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\tkept\n",
    );
    let cfg = write(
        &dir.path().join("c.toml"),
        &format!("[seeds]\nurls = [\"{seed}\"]\n[fetch]\nobey_robots = false\n"),
    );
    for (name, mode, want) in [
        ("file", trawl_config::settings::CookieMode::Job, 200),
        ("off", trawl_config::settings::CookieMode::Off, 403),
    ] {
        let job = dir.path().join(name);
        let jar = jar.clone();
        common::crawl_quickly_with(&cfg, &job, |c| {
            c.fetch.obey_robots = false;
            c.fetch.cookies = mode;
            c.fetch.cookies_file = Some(jar);
        })
        .await;
        let log = common::crawl_log(&job);
        assert_eq!(
            log.iter().find(|l| l.uri == seed).map(|l| l.status),
            Some(want),
            "{name}"
        );
    }
}

#[test]
fn the_cookie_jar_survives_kill_9_and_resume() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let addr = rt.block_on(listen(Router::new().fallback(slow_cookie_site)));
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job");
    let seed = format!("http://127.0.0.1:{}/", addr.port());
    let cfg = write(
        &dir.path().join("c.toml"),
        &format!(
            "[seeds]\nurls = [\"{seed}\"]\n[frontier]\nmin_delay_ms = 0\nmax_delay_ms = 0\ndelay_factor = 0.0\n"
        ),
    );
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_trawl"))
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let job_arg = job.to_str().unwrap();
    let mut crawl = run(&["crawl", "--job", job_arg, "-c", cfg.to_str().unwrap()]);
    let pages = || {
        std::fs::read_to_string(job.join("logs/crawl.log"))
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains("/p/"))
            .count()
    };
    common::wait_for("a few pages", 60, || pages() >= 5);
    crawl.kill().unwrap(); // SIGKILL
    crawl.wait().unwrap();
    let before = pages();
    assert!(before < 40, "killed mid-crawl");
    let mut resumed = run(&["resume", job_arg]);
    assert!(resumed.wait().unwrap().success());
    let log = common::crawl_log(&job);
    let after: Vec<_> = log.iter().filter(|l| l.uri.contains("/p/")).collect();
    assert!(after.len() >= 40, "{} pages", after.len());
    // The seed was not fetched again, yet every page after the resume was sent the cookie it set.
    assert_eq!(log.iter().filter(|l| l.uri == seed).count(), 1);
    assert!(after.iter().all(|l| l.status == 200), "{after:?}");
}

/// `trawl check` names each access mistake at its key: a proxy that is not one, a credential without a
/// host or password, a login URL on another host, a sheet's bad proxy; an inline password and a user agent
/// without a contact are warned about.
#[test]
fn trawl_check_validates_credentials_and_proxies() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write(
        &dir.path().join("bad.toml"),
        "[seeds]\nurls = [\"http://127.0.0.1:9/\"]\n\
         [fetch]\nproxy = \"ftp://127.0.0.1:21\"\n\
         [[credentials]]\nkind = \"basic\"\nuser = \"u\"\n\
         [[credentials]]\nkind = \"form\"\ndomain = \"127.0.0.1\"\npassword = \"inline\"\n\
         login_url = \"http://localhost/login\"\nsuccess = { text = \"ok\" }\n\
         [[sheet]]\nname = \"tor\"\nsurt_prefixes = [\"http://(onion,\"]\nset = { \"fetch.proxy\" = \"socks5://nohost\" }\n",
    );
    check_fails(
        &cfg,
        &["check"],
        &[
            "fetch.proxy",
            "socks5://HOST:PORT",
            "credentials[0]",
            "domain` or `surt_prefix",
            "no password",
            "credentials[1].login_url",
            "sheet[0].set",
            "fetch.proxy: \"socks5://nohost\" names no port",
        ],
    );
    // What is allowed but unwise: warnings (errors with --strict).
    let cfg = write(
        &dir.path().join("unwise.toml"),
        "[seeds]\nurls = [\"http://a.org/\"]\n[fetch]\nheaders = { \"Accept-Language\" = \"en\" }\n\
         proxy = \"socks5://u:inline@127.0.0.1:1080\"\n\
         [[credentials]]\nkind = \"basic\"\ndomain = \"a.org\"\nuser = \"u\"\npassword = \"inline\"\n",
    );
    check_fails(
        &cfg,
        &["check", "--strict"],
        &[
            "credentials[0].password",
            "password_env",
            "fetch.user_agent",
            "names no contact",
            "fetch.proxy: a proxy password",
            "TRAWL_PROXY_PASSWORD",
        ],
    );
}

/// Runs `trawl ARGS CFG`, which must fail saying each of `wants` and never the password `inline`.
fn check_fails(cfg: &Path, args: &[&str], wants: &[&str]) {
    let (ok, said) = common::run(common::trawl_command().args(args).arg(cfg));
    assert!(!ok, "{said}");
    for want in wants {
        assert!(said.contains(want), "missing {want:?} in:\n{said}");
    }
    assert!(
        !said.contains("inline\""),
        "the password is never printed:\n{said}"
    );
}

/// A problem found as a crawl starts (a password variable not set) names the operator's config, not the
/// job's copy of it.
#[test]
fn a_crawl_start_problem_names_the_operators_file() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write(
        &dir.path().join("c.toml"),
        "[[credentials]]\nkind = \"basic\"\ndomain = \"127.0.0.1\"\nuser = \"u\"\n\
         password_env = \"TRAWL_TEST_UNSET_PASSWORD_VAR\"\n",
    );
    let out = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(["crawl", "http://127.0.0.1:9/", "-c"])
        .arg(&cfg)
        .arg("--job")
        .arg(dir.path().join("j"))
        .env_remove("TRAWL_TEST_UNSET_PASSWORD_VAR")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success()
            && said.contains(&format!("{}: credentials[0]", cfg.display()))
            && said.contains("TRAWL_TEST_UNSET_PASSWORD_VAR is not set")
            && !said.contains("j/crawl.toml"),
        "{said}"
    );
}

/// `trawl crawl` refuses the placeholder user agent for hosts beyond this machine, before any request, and
/// `--user-agent` gives one. (The name servers are a dead loopback port: nothing leaves 127.0.0.0/8.)
#[test]
fn a_crawl_beyond_this_machine_needs_a_contact_in_the_user_agent() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write(
        &dir.path().join("c.toml"),
        "[fetch]\ndns_servers = [\"127.0.0.1:9\"]\nconnect_timeout_ms = 500\n[frontier]\nmax_retries = 0\n",
    );
    let run = |job: &str, extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_trawl"))
            .args(["crawl", "http://archive-test.example/", "-c"])
            .arg(&cfg)
            .arg("--job")
            .arg(dir.path().join(job))
            .args(extra)
            .output()
            .unwrap()
    };
    let out = run("refused", &[]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && said.contains("names no contact"),
        "{said}"
    );
    // The operator's file is named, not the job's copy of it.
    assert!(
        said.contains(&format!("{}: fetch.user_agent", cfg.display()))
            && !said.contains("refused/crawl.toml"),
        "{said}"
    );
    assert!(
        !dir.path().join("refused/logs/crawl.log").exists()
            || common::crawl_log(&dir.path().join("refused")).is_empty()
    );
    let out = run(
        "named",
        &[
            "--user-agent",
            "archive-test/1 (+https://archive-test.example/bot)",
        ],
    );
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!said.contains("names no contact"), "{said}");
    let log = common::crawl_log(&dir.path().join("named"));
    assert!(
        log.iter()
            .any(|l| l.uri == "http://archive-test.example/" && l.status < 0),
        "{log:?}"
    );
}
