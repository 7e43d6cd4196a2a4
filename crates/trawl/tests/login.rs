//! Form logins against local servers written to behave as real applications do: a WordPress-style login
//! page that sets a test cookie and has hidden fields (refused without them), a Django-style form guarded by
//! a CSRF token and cookie (403 without them) whose session a page ends half-way, neither configured with
//! `success` or `logged_out`; pages with sign-out links and nonce'd action links beside the content (none
//! requested, each logged `reject:login_guard`); `trawl login` for a good and a wrong password, a login built
//! by JavaScript and one behind a CAPTCHA; and a real Django application (LoginView) from the test
//! virtualenv.

mod common;

use common::{cookie, listen, write};

use std::{
    collections::HashSet,
    io::{Read, Write},
    net::SocketAddr,
    path::{Path, PathBuf},
    process::Command,
    sync::{Arc, Mutex},
};

use axum::{
    Router,
    extract::{Request, State},
    http::{Method, StatusCode, header},
    response::{IntoResponse, Response},
};

/// What a test site saw and holds.
#[derive(Default)]
struct Site {
    /// `METHOD path?query` of every request.
    requests: Vec<String>,
    /// Live sessions.
    sessions: HashSet<String>,
    logins: usize,
    /// Login posts refused, and why.
    refused: Vec<String>,
    /// Posts (or links) removed by an action link: must stay empty.
    trashed: Vec<String>,
    logouts: usize,
}

type Shared = Arc<Mutex<Site>>;

fn html(body: &str) -> Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=UTF-8")],
        format!("<!DOCTYPE html><html><head><title>t</title></head><body>{body}</body></html>"),
    )
        .into_response()
}

fn form_fields(body: &[u8]) -> Vec<(String, String)> {
    url::form_urlencoded::parse(body).into_owned().collect()
}

fn field<'a>(fields: &'a [(String, String)], name: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// The login form of the WordPress-style site.
fn wp_form(message: &str) -> Response {
    html(&format!(
        "<div id=\"login\">{message}<form name=\"loginform\" id=\"loginform\" action=\"/wp-login.php\" method=\"post\">\
         <input type=\"text\" name=\"log\" id=\"user_login\" value=\"\">\
         <input type=\"password\" name=\"pwd\" id=\"user_pass\" value=\"\">\
         <button type=\"button\" class=\"wp-hide-pw\">show</button>\
         <input name=\"rememberme\" type=\"checkbox\" id=\"rememberme\" value=\"forever\">\
         <input type=\"submit\" name=\"wp-submit\" id=\"wp-submit\" value=\"Log In\">\
         <input type=\"hidden\" name=\"redirect_to\" value=\"/wp-admin/\">\
         <input type=\"hidden\" name=\"testcookie\" value=\"1\">\
         </form><form name=\"lostpasswordform\" action=\"/wp-login.php?action=lostpassword\" method=\"post\">\
         <input type=\"text\" name=\"user_login\"></form>\
         <script src=\"/wp-includes/js/user-profile.js\"></script></div>"
    ))
}

/// A request's method, path, query, header fields and body (up to 64 KiB), for a test server to read.
async fn take_apart(
    req: Request,
) -> (
    axum::http::Method,
    String,
    String,
    axum::http::HeaderMap,
    axum::body::Bytes,
) {
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let query = req.uri().query().unwrap_or_default().to_string();
    let headers = req.headers().clone();
    let body = axum::body::to_bytes(req.into_body(), 1 << 16)
        .await
        .unwrap_or_default();
    (method, path, query, headers, body)
}

/// A WordPress-style blog: the login page sets a test cookie, and a login without it or without the form's
/// hidden `testcookie` and `redirect_to` is refused ("cookies are blocked"); five private posts answer 404
/// unless logged in, and carry an admin bar with a sign-out link and nonce'd action links.
async fn wordpress(State(site): State<Shared>, req: Request) -> Response {
    let (method, path, query, headers, body) = take_apart(req).await;
    let mut s = site.lock().unwrap();
    s.requests.push(format!(
        "{method} {path}{}",
        if query.is_empty() {
            String::new()
        } else {
            format!("?{query}")
        }
    ));
    let logged_in = cookie(&headers, "wordpress_logged_in").is_some_and(|c| s.sessions.contains(c));
    let q = form_fields(query.as_bytes());
    match (method, path.as_str()) {
        (Method::GET, "/wp-login.php") if field(&q, "action") == Some("logout") => {
            s.logouts += 1;
            s.sessions.clear();
            html("You are now logged out.")
        }
        (Method::GET, "/wp-login.php") => (
            [(
                header::SET_COOKIE,
                "wordpress_test_cookie=WP%20Cookie%20check; path=/",
            )],
            wp_form(""),
        )
            .into_response(),
        (Method::POST, "/wp-login.php") => {
            let f = form_fields(&body);
            if cookie(&headers, "wordpress_test_cookie").is_none() {
                s.refused.push("no test cookie".into());
                return wp_form(
                    "<p id=\"login_error\">Error: Cookies are blocked or not supported by your browser.</p>",
                );
            }
            if field(&f, "testcookie") != Some("1") || field(&f, "redirect_to").is_none() {
                s.refused.push("hidden fields missing".into());
                return wp_form("<p id=\"login_error\">Error: Cookies are blocked.</p>");
            }
            if field(&f, "log") != Some("archivist") || field(&f, "pwd") != Some("correct horse") {
                s.refused.push("wrong password".into());
                return wp_form("<p id=\"login_error\">Error: the password is incorrect.</p>");
            }
            s.logins += 1;
            let token = format!("wp{}", s.logins);
            s.sessions.insert(token.clone());
            (
                StatusCode::FOUND,
                [
                    (
                        header::LOCATION,
                        field(&f, "redirect_to").unwrap().to_string(),
                    ),
                    (
                        header::SET_COOKIE,
                        format!("wordpress_logged_in={token}; path=/; HttpOnly"),
                    ),
                ],
            )
                .into_response()
        }
        (Method::GET, "/wp-admin/") if logged_in => html("Dashboard <a href=\"/\">site</a>"),
        (Method::GET, "/wp-admin/post.php") if field(&q, "action") == Some("trash") => {
            s.trashed.push(query.clone());
            html("Moved to the Trash.")
        }
        (Method::GET, "/wp-admin/comment.php") => {
            s.trashed.push(query.clone());
            html("Comment approved.")
        }
        (Method::GET, "/wp-admin/post-new.php" | "/wp-admin/customize.php") => {
            s.trashed.push(format!("a new draft by {path}"));
            html("New post")
        }
        (Method::GET, "/wp-admin/post.php") if logged_in => html("Edit post"),
        (Method::GET, "/") if query.is_empty() => html(
            "<h1>Blog</h1><a href=\"/?p=1\">1</a> <a href=\"/?p=2\">2</a> <a href=\"/?p=3\">3</a> \
             <a href=\"/?p=4\">4</a> <a href=\"/?p=5\">5</a> <a href=\"/wp-login.php\">Log in</a>",
        ),
        (Method::GET, "/") => {
            let n = field(&q, "p").unwrap_or_default().to_string();
            if !logged_in {
                return (StatusCode::NOT_FOUND, html("Nothing here")).into_response();
            }
            html(&format!(
                "<div id=\"wpadminbar\"><a href=\"/wp-admin/\">Dashboard</a>\
                 <a href=\"/wp-admin/post-new.php\">New</a>\
                 <a href=\"/wp-admin/customize.php?url=%2F%3Fp%3D{n}\">Customize</a>\
                 <a class=\"ab-item\" href=\"/wp-login.php?action=logout&amp;_wpnonce=3f2a9c\">Log Out</a></div>\
                 <article><h1>Private post {n}</h1><p>Only members read post {n}.</p></article>\
                 <a href=\"/wp-admin/post.php?post={n}&amp;action=edit\">Edit</a>\
                 <a href=\"/wp-admin/post.php?post={n}&amp;action=trash&amp;_wpnonce=77ab\">Trash</a>\
                 <a href=\"/wp-admin/comment.php?c={n}&amp;action=approvecomment&amp;_wpnonce=88cd\">Approve</a>"
            ))
        }
        _ => (StatusCode::NOT_FOUND, "none").into_response(),
    }
}

/// A raw HTTP/1.1 POST to `addr`; the answer's head and body as text.
fn raw_post(addr: SocketAddr, path: &str, headers: &str, body: &str) -> String {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{headers}\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

fn wp_config(dir: &Path, base: &str, password_file: &str) -> PathBuf {
    write(
        &dir.join(format!("wp-{password_file}.toml")),
        &format!(
            "[seeds]\nurls = [\"{base}/\"]\n[scope]\nsurt_prefixes = [\"http://(127.0.0.1:\"]\n\
             [[credentials]]\nkind = \"form\"\ndomain = \"127.0.0.1\"\nlogin_url = \"{base}/wp-login.php\"\n\
             fields = {{ log = \"archivist\" }}\npassword_field = \"pwd\"\npassword_file = \"{password_file}\"\n\
             form = \"#loginform\"\n"
        ),
    )
}

/// A WordPress-style login (test cookie, hidden fields, a redirect after it) with neither `success` nor
/// `logged_out`; its admin bar's sign-out link and the nonce'd action links are never requested, each logged
/// `reject:login_guard`, and `trawl url explain` shows the rule.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wordpress_style_login_and_its_ways_out() {
    let site: Shared = Arc::default();
    let addr = listen(Router::new().fallback(wordpress).with_state(site.clone())).await;
    let base = format!("http://127.0.0.1:{}", addr.port());
    // Without the test cookie, or without the form's hidden fields, the right password is refused.
    let answer = raw_post(addr, "/wp-login.php", "", "log=archivist&pwd=correct+horse");
    assert!(answer.contains("Cookies are blocked"), "{answer}");
    let answer = raw_post(
        addr,
        "/wp-login.php",
        "Cookie: wordpress_test_cookie=WP%20Cookie%20check\r\n",
        "log=archivist&pwd=correct+horse",
    );
    assert!(answer.contains("Cookies are blocked"), "{answer}");
    site.lock().unwrap().refused.clear();

    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("right.txt"), "correct horse\n");
    let cfg = wp_config(dir.path(), &base, "right.txt");
    let job = dir.path().join("job");
    common::crawl_quickly(&cfg, &job).await;
    let log = common::crawl_log(&job);
    let s = site.lock().unwrap();
    // Logged in once, on the first try, and never out.
    assert_eq!((s.logins, s.logouts), (1, 0), "{:?}", s.refused);
    assert!(s.refused.is_empty(), "{:?}", s.refused);
    assert!(s.trashed.is_empty(), "the site changed: {:?}", s.trashed);
    for r in &s.requests {
        assert!(
            !r.contains("logout")
                && !r.contains("_wpnonce")
                && !r.contains("post-new")
                && !r.contains("customize"),
            "requested {r}"
        );
    }
    // Every private post archived logged in.
    let records = common::records(&job);
    for n in 1..=5 {
        let uri = format!("{base}/?p={n}");
        let line = log
            .iter()
            .find(|l| l.uri == uri)
            .unwrap_or_else(|| panic!("{uri}: {log:?}"));
        assert_eq!(line.status, 200, "{uri}");
        let rec = records
            .iter()
            .find(|r| {
                r.get("WARC-Type") == Some("response") && r.get("WARC-Target-URI") == Some(&uri)
            })
            .unwrap();
        assert!(
            String::from_utf8_lossy(&rec.block).contains(&format!("Private post {n}")),
            "{uri}"
        );
    }
    // The login in crawl.log: the page (P), the form posted (PL), the redirect after it (PLR).
    let login_page = format!("{base}/wp-login.php");
    let page = log
        .iter()
        .find(|l| l.uri == login_page && l.has_annotation("login:page"))
        .unwrap();
    assert!(page.hop_path.ends_with('P'), "{page:?}");
    let posted = log
        .iter()
        .find(|l| l.uri == login_page && l.has_annotation("login:ok"))
        .unwrap();
    assert_eq!(
        (posted.status, posted.hop_path.ends_with("PL")),
        (302, true),
        "{posted:?}"
    );
    let redirect = log
        .iter()
        .find(|l| l.has_annotation("login:redirect"))
        .unwrap();
    assert_eq!(redirect.uri, format!("{base}/wp-admin/"));
    // What was posted: the page's hidden fields and submit button, `fields`, the password; with the test
    // cookie, Referer and Origin.
    let request = records
        .iter()
        .find(|r| {
            r.get("WARC-Type") == Some("request")
                && r.get("WARC-Target-URI") == Some(&login_page)
                && r.block.starts_with(b"POST ")
        })
        .unwrap();
    let text = String::from_utf8_lossy(&request.block);
    for want in [
        "wordpress_test_cookie=",
        &format!("referer: {login_page}"),
        &format!("origin: {base}"),
        "log=archivist&pwd=correct+horse&wp-submit=Log+In&redirect_to=%2Fwp-admin%2F&testcookie=1",
    ] {
        assert!(
            text.to_lowercase().contains(&want.to_lowercase()),
            "{want} in {text}"
        );
    }
    assert!(!text.contains("rememberme"), "an unchecked box is not sent");
    // Each way out is logged once, refused by the login guard.
    for way_out in [
        format!("{base}/wp-login.php?action=logout&_wpnonce=3f2a9c"),
        format!("{base}/wp-admin/post.php?post=1&action=trash&_wpnonce=77ab"),
        format!("{base}/wp-admin/comment.php?c=2&action=approvecomment&_wpnonce=88cd"),
        format!("{base}/wp-admin/post-new.php"),
        format!("{base}/wp-admin/customize.php?url=%2F%3Fp%3D3"),
    ] {
        let lines: Vec<_> = log.iter().filter(|l| l.uri == way_out).collect();
        assert!(
            lines.len() == 1
                && lines[0].has_annotation("reject:login_guard")
                && lines[0].status == -5000,
            "{way_out}: {lines:?}"
        );
    }
    // A safe admin link is followed.
    assert!(log.iter().any(
        |l| l.uri == format!("{base}/wp-admin/post.php?post=1&action=edit") && l.status == 200
    ));
    drop(s);
    // `trawl url explain` names the rule.
    let out = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(["url", "explain", "-c"])
        .arg(&cfg)
        .arg(format!("{base}/wp-login.php?action=logout&_wpnonce=3f2a9c"))
        .arg(format!("{base}/?p=1"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<serde_json::Value> = said
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["scope"]["decision"], "reject", "{said}");
    assert_eq!(lines[0]["scope"]["rule"], "login_guard", "{said}");
    assert_eq!(lines[1]["scope"]["decision"], "accept", "{said}");
    for f in common::warc_files(&job) {
        common::warcio_check(&f);
    }
}

/// The login form of the Django-style site, its CSRF token in a hidden field.
fn django_form(token: &str, next: &str, message: &str) -> Response {
    html(&format!(
        "{message}<form method=\"post\" action=\"\"><input type=\"hidden\" name=\"csrfmiddlewaretoken\" value=\"{token}\">\
         <label>Username <input type=\"text\" name=\"username\" autofocus required></label>\
         <label>Password <input type=\"password\" name=\"password\" required></label>\
         <input type=\"hidden\" name=\"next\" value=\"{next}\"><button type=\"submit\">Log in</button></form>"
    ))
}

/// A Django-style site: the login page sets the `csrftoken` cookie and puts the token in the form; a post
/// without both (or from another origin) is a 403. Member pages redirect to the login page without a
/// session; page 3 ends the session on the server. Each member page links to the sign-out page and to a
/// delete action carrying a CSRF token.
async fn django(State(site): State<Shared>, req: Request) -> Response {
    let (method, path, query, headers, body) = take_apart(req).await;
    let mut s = site.lock().unwrap();
    s.requests.push(format!("{method} {path}?{query}"));
    let session = cookie(&headers, "sessionid").map(str::to_string);
    let logged_in = session.as_ref().is_some_and(|c| s.sessions.contains(c));
    let next = form_fields(query.as_bytes())
        .into_iter()
        .find(|(n, _)| n == "next")
        .map(|(_, v)| v)
        .unwrap_or_default();
    match (method, path.as_str()) {
        (Method::GET, "/accounts/login/") => {
            let token = cookie(&headers, "csrftoken").unwrap_or("tok0").to_string();
            (
                [(
                    header::SET_COOKIE,
                    format!("csrftoken={token}; Path=/; SameSite=Lax"),
                )],
                django_form(&token, &next, ""),
            )
                .into_response()
        }
        (Method::POST, "/accounts/login/") => {
            let f = form_fields(&body);
            let host = headers
                .get(header::HOST)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default();
            let origin_ok = headers
                .get(header::ORIGIN)
                .and_then(|v| v.to_str().ok())
                .is_none_or(|o| o == format!("http://{host}"));
            let cookie_token = cookie(&headers, "csrftoken");
            if cookie_token.is_none()
                || cookie_token != field(&f, "csrfmiddlewaretoken")
                || !origin_ok
            {
                s.refused.push("CSRF".into());
                return (
                    StatusCode::FORBIDDEN,
                    html("CSRF verification failed. Request aborted."),
                )
                    .into_response();
            }
            if field(&f, "username") != Some("archivist") || field(&f, "password") != Some("s3cret")
            {
                s.refused.push("wrong password".into());
                return django_form(
                    cookie_token.unwrap_or_default(),
                    field(&f, "next").unwrap_or_default(),
                    "<p class=\"errornote\">Please enter a correct username and password.</p>",
                );
            }
            s.logins += 1;
            let id = format!("sess{}", s.logins);
            s.sessions.insert(id.clone());
            let to = match field(&f, "next") {
                Some(n) if !n.is_empty() => n.to_string(),
                _ => "/accounts/profile/".to_string(),
            };
            let mut r = (StatusCode::FOUND, [(header::LOCATION, to)]).into_response();
            let h = r.headers_mut();
            h.append(
                header::SET_COOKIE,
                format!("csrftoken=tok{}; Path=/", s.logins)
                    .parse()
                    .unwrap(),
            );
            h.append(
                header::SET_COOKIE,
                format!("sessionid={id}; Path=/; HttpOnly").parse().unwrap(),
            );
            r
        }
        (Method::GET, "/accounts/logout/") => {
            s.logouts += 1;
            s.sessions.clear();
            html("Logged out")
        }
        (Method::GET, p) if p.starts_with("/members/") => {
            let rest = &p["/members/".len()..];
            if !logged_in {
                return (
                    StatusCode::FOUND,
                    [(header::LOCATION, format!("/accounts/login/?next={p}"))],
                )
                    .into_response();
            }
            if query.contains("action=delete") {
                s.trashed.push(p.to_string());
                return html("Deleted");
            }
            let n: u32 = rest.trim_end_matches('/').parse().unwrap_or(0);
            if n == 3 {
                // The session ends on the server: the next page redirects to the login page.
                let session = session.unwrap_or_default();
                s.sessions.remove(&session);
            }
            let next = if n < 6 {
                format!("<a href=\"/members/{}/\">next</a>", n + 1)
            } else {
                String::new()
            };
            let token = cookie(&headers, "csrftoken").unwrap_or_default();
            html(&format!(
                "<nav><a href=\"/accounts/logout/\">Log out</a> <a href=\"/accounts/password_change/\">Password</a></nav>\
                 <main>Member page {n}</main> {next} \
                 <a href=\"/members/{n}/?action=delete&amp;csrfmiddlewaretoken={token}\">Delete this page</a>"
            ))
        }
        (Method::GET, "/accounts/password_change/") if logged_in => html(
            "<form method=\"post\"><input type=\"hidden\" name=\"csrfmiddlewaretoken\" value=\"x\">\
             <input type=\"password\" name=\"old_password\"><input type=\"password\" name=\"new_password1\">\
             <input type=\"password\" name=\"new_password2\"><button>Change</button></form>",
        ),
        _ => (StatusCode::NOT_FOUND, html("Not Found")).into_response(),
    }
}

/// A CSRF-protected form, logged into with neither `success` nor `logged_out` configured; the session lost
/// half-way shows as a redirect to the login page and is logged into again; the sign-out and delete links
/// are never requested.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_csrf_protected_form_with_default_signs() {
    let site: Shared = Arc::default();
    let addr = listen(Router::new().fallback(django).with_state(site.clone())).await;
    let base = format!("http://127.0.0.1:{}", addr.port());
    // The right password without the token and its cookie: 403.
    let answer = raw_post(
        addr,
        "/accounts/login/",
        "",
        "username=archivist&password=s3cret",
    );
    assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
    site.lock().unwrap().refused.clear();
    let dir = tempfile::tempdir().unwrap();
    let cfg = write(
        &dir.path().join("c.toml"),
        &format!(
            "[seeds]\nurls = [\"{base}/members/1/\"]\n[scope]\nsurt_prefixes = [\"http://(127.0.0.1:\"]\n\
             [[credentials]]\nkind = \"form\"\ndomain = \"127.0.0.1\"\nlogin_url = \"{base}/accounts/login/\"\n\
             fields = {{ username = \"archivist\" }}\npassword_file = \"pw.txt\"\n"
        ),
    );
    write(&dir.path().join("pw.txt"), "s3cret\n");
    let job = dir.path().join("job");
    common::crawl_quickly(&cfg, &job).await;
    let log = common::crawl_log(&job);
    let records = common::records(&job);
    let s = site.lock().unwrap();
    assert!(s.refused.is_empty(), "{:?}", s.refused);
    assert_eq!(
        s.logins, 2,
        "logged in, then again after page 3 ended the session"
    );
    assert_eq!((s.logouts, s.trashed.len()), (0, 0), "{:?}", s.requests);
    for n in 1..=6 {
        let uri = format!("{base}/members/{n}/");
        let statuses: Vec<i32> = log
            .iter()
            .filter(|l| l.uri == uri)
            .map(|l| l.status)
            .collect();
        assert_eq!(statuses, [200], "{uri}");
        let rec = records
            .iter()
            .find(|r| {
                r.get("WARC-Type") == Some("response") && r.get("WARC-Target-URI") == Some(&uri)
            })
            .unwrap();
        assert!(
            String::from_utf8_lossy(&rec.block).contains(&format!("Member page {n}")),
            "{uri}"
        );
    }
    let logout = format!("{base}/accounts/logout/");
    assert!(
        log.iter()
            .any(|l| l.uri == logout && l.has_annotation("reject:login_guard"))
    );
    assert!(
        log.iter()
            .any(|l| l.uri.contains("action=delete") && l.has_annotation("reject:login_guard")),
        "{log:?}"
    );
    // The password-change page (two password inputs, another action) is not taken for a lost session.
    assert_eq!(
        log.iter()
            .filter(|l| l.uri == format!("{base}/accounts/password_change/"))
            .map(|l| l.status)
            .collect::<Vec<_>>(),
        [200]
    );
    assert_eq!(
        log.iter().filter(|l| l.has_annotation("login:ok")).count(),
        2
    );
    // Nothing of the password reached crawl.log or the job's config.
    for f in ["logs/crawl.log", "crawl.toml"] {
        let text = std::fs::read_to_string(job.join(f)).unwrap_or_default();
        assert!(!text.contains("s3cret"), "{f}");
    }
}

/// Runs `trawl login CFG ARGS` with `env`; its exit success and stdout + stderr.
fn trawl_login(cfg: &Path, args: &[&str], env: &[(&str, &str)]) -> (bool, String) {
    common::run(
        common::trawl_command()
            .arg("login")
            .arg(cfg)
            .args(args)
            .envs(env.iter().copied()),
    )
}

/// A Heritrix job's `HtmlFormCredential` for a WordPress login, imported with `trawl import heritrix`, logs in
/// with the password given in the environment variable the import names; the password in the cxml is never
/// written to the profile.
#[test]
fn an_imported_heritrix_form_credential_logs_in() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let site: Shared = Arc::default();
    let addr = rt.block_on(listen(
        Router::new().fallback(wordpress).with_state(site.clone()),
    ));
    let base = format!("http://127.0.0.1:{}", addr.port());
    let dir = tempfile::tempdir().unwrap();
    let cxml = write(
        &dir.path().join("crawler-beans.cxml"),
        &format!(
            r#"<beans xmlns="http://www.springframework.org/schema/beans">
 <bean id="seeds" class="org.archive.modules.seeds.TextSeedModule">
  <property name="textSource"><bean class="org.archive.spring.ConfigString">
   <property name="value"><value>{base}/</value></property>
  </bean></property>
 </bean>
 <bean id="credentialStore" class="org.archive.modules.credential.CredentialStore">
  <property name="credentials"><map>
   <entry key="wpLogin">
    <bean class="org.archive.modules.credential.HtmlFormCredential">
     <property name="domain" value="127.0.0.1:{port}"/>
     <property name="loginUri" value="{base}/wp-login.php"/>
     <property name="formItems"><map>
      <entry key="log" value="archivist"/>
      <entry key="pwd" value="correct horse"/>
      <entry key="wp-submit" value="Log In"/>
     </map></property>
    </bean>
   </entry>
  </map></property>
 </bean>
</beans>"#,
            port = addr.port()
        ),
    );
    let profile = dir.path().join("crawl.toml");
    let (ok, said) = common::run(
        common::trawl_command()
            .args(["import", "heritrix"])
            .arg(&cxml)
            .arg("-o")
            .arg(&profile),
    );
    assert!(ok, "{said}");
    assert!(said.contains("WP_LOGIN_PASSWORD"), "{said}");
    let text = std::fs::read_to_string(&profile).unwrap();
    assert!(!text.contains("correct horse"), "{text}");
    let (ok, said) = trawl_login(&profile, &[], &[("WP_LOGIN_PASSWORD", "correct horse")]);
    assert!(ok, "{said}");
    assert!(
        said.contains("result       logged in: the login set cookie `wordpress_logged_in`"),
        "{said}"
    );
    assert_eq!(site.lock().unwrap().logins, 1);
}

/// Login pages a crawler cannot use: one built by JavaScript, one behind a CAPTCHA.
async fn needs_a_browser(State(site): State<Shared>, req: Request) -> Response {
    site.lock()
        .unwrap()
        .requests
        .push(format!("{} {}", req.method(), req.uri()));
    match req.uri().path() {
        "/app/login" => html(
            "<div id=\"root\"><noscript>Enable JavaScript</noscript></div>\
             <script src=\"/static/app.js\"></script><script>render()</script>",
        ),
        "/captcha/login" => html(
            "<script src=\"https://www.google.com/recaptcha/api.js\" async defer></script>\
             <form method=\"post\" action=\"/captcha/login\"><input name=\"user\">\
             <input type=\"password\" name=\"pass\"><div class=\"g-recaptcha\" data-sitekey=\"6Lc\"></div>\
             <button>Sign in</button></form>",
        ),
        _ => (StatusCode::NOT_FOUND, "none").into_response(),
    }
}

/// `trawl login` says what happened: the form found with its hidden values and the password masked, the
/// answer and the redirect with the cookies set, the verdict with its sign, and what to change; it writes no
/// job. A login built by JavaScript and one behind a CAPTCHA are said plainly, with the way out, and nothing
/// is posted to them.
#[test]
fn trawl_login_tells_what_happened() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let site: Shared = Arc::default();
    let addr = rt.block_on(listen(
        Router::new().fallback(wordpress).with_state(site.clone()),
    ));
    let base = format!("http://127.0.0.1:{}", addr.port());
    let dir = tempfile::tempdir().unwrap();
    let cfg = write(
        &dir.path().join("wp.toml"),
        &format!(
            "[seeds]\nurls = [\"{base}/\"]\n\
             [[credentials]]\nkind = \"basic\"\ndomain = \"127.0.0.1\"\nuser = \"u\"\npassword_env = \"NONE_NEEDED\"\n\
             [[credentials]]\nkind = \"form\"\ndomain = \"127.0.0.1\"\nlogin_url = \"{base}/wp-login.php\"\n\
             fields = {{ log = \"archivist\" }}\npassword_env = \"WP_PASSWORD\"\n"
        ),
    );
    let before: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    let (ok, said) = trawl_login(
        &cfg,
        &["--credential", "1"],
        &[("WP_PASSWORD", "correct horse"), ("NONE_NEEDED", "x")],
    );
    println!("{said}");
    assert!(ok, "{said}");
    for want in [
        "credentials[1]: form login for 127.0.0.1",
        &format!(
            "login page   GET {base}/wp-login.php -> 200 (text/html), cookies set: wordpress_test_cookie"
        ),
        "#loginform, form 1 of 2 on the page (the one with a password input)",
        &format!("POST {base}/wp-login.php (application/x-www-form-urlencoded)"),
        "log = \"archivist\"",
        "pwd = ********",
        "the password",
        "wp-submit = \"Log In\"",
        "the submit button",
        "redirect_to = \"/wp-admin/\"",
        "testcookie = \"1\"",
        "hidden, from the page",
        "not sent: rememberme (checkbox, not checked)",
        "answer       POST",
        "-> 302, Location: /wp-admin/, cookies set: wordpress_logged_in",
        &format!("redirect     GET {base}/wp-admin/ -> 200"),
        "result       logged in: the login set cookie `wordpress_logged_in`",
    ] {
        assert!(said.contains(want), "missing {want:?} in:\n{said}");
    }
    assert!(
        !said.contains("correct horse"),
        "the password is never printed:\n{said}"
    );
    // A wrong password: the form shown again, and what to change.
    let (ok, said) = trawl_login(&cfg, &[], &[("WP_PASSWORD", "wrong"), ("NONE_NEEDED", "x")]);
    println!("{said}");
    assert!(!ok, "{said}");
    for want in [
        "-> 200 (text/html), no cookie set",
        "result       FAILED: the answer shows the login form again (a password input)",
        "what to change:",
        "check the user name in `fields` and the password (it went into `pwd`, the form's password input)",
    ] {
        assert!(said.contains(want), "missing {want:?} in:\n{said}");
    }
    assert!(!said.contains("wrong\""), "{said}");
    // Nothing written beside the config: no job.
    let after: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(before.len(), after.len());
    // --credential must name a form login.
    let (ok, said) = trawl_login(
        &cfg,
        &["--credential", "0"],
        &[("WP_PASSWORD", "x"), ("NONE_NEEDED", "x")],
    );
    assert!(!ok && said.contains("not a form login"), "{said}");

    // What needs a browser.
    let other: Shared = Arc::default();
    let addr = rt.block_on(listen(
        Router::new()
            .fallback(needs_a_browser)
            .with_state(other.clone()),
    ));
    let base = format!("http://127.0.0.1:{}", addr.port());
    let cfg = write(
        &dir.path().join("browser.toml"),
        &format!(
            "[seeds]\nurls = [\"{base}/\"]\n\
             [[credentials]]\nkind = \"form\"\ndomain = \"127.0.0.1\"\nlogin_url = \"{base}/app/login\"\n\
             fields = {{ user = \"archivist\" }}\npassword_env = \"P\"\n\
             [[credentials]]\nkind = \"form\"\ndomain = \"localhost\"\nlogin_url = \"http://localhost:{}/captcha/login\"\n\
             fields = {{ user = \"archivist\" }}\npassword_env = \"P\"\n",
            addr.port()
        ),
    );
    let (ok, said) = trawl_login(&cfg, &[], &[("P", "pw")]);
    println!("{said}");
    assert!(!ok);
    for want in [
        "FAILED, needs a browser: the login page has no form with a password input; with 2 scripts, it is most likely built by JavaScript",
        "FAILED, needs a browser: the login form has a CAPTCHA (a CAPTCHA widget (g-recaptcha))",
        "cookies_file",
    ] {
        assert!(said.contains(want), "missing {want:?} in:\n{said}");
    }
    assert!(
        other
            .lock()
            .unwrap()
            .requests
            .iter()
            .all(|r| r.starts_with("GET ")),
        "nothing posted: {:?}",
        other.lock().unwrap().requests
    );
}

/// The members' site on Django (`tests/django/members.py`), run by the test virtualenv's Python; stopped
/// when dropped.
struct DjangoSite {
    server: std::process::Child,
    base: String,
    state: PathBuf,
}

impl DjangoSite {
    /// Starts the site with its data in `state`, or `None` when Django is not installed outside CI (see
    /// `common::py_tool`; scripts/test.sh installs it).
    fn start(state: &Path, password: &str) -> Option<DjangoSite> {
        common::py_tool("django-admin")?;
        let python = common::py_tool("python")?;
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/django/members.py");
        std::fs::create_dir_all(state).unwrap();
        let mut server = Command::new(python)
            .arg(script)
            .arg(state)
            .arg(password)
            .stdout(std::process::Stdio::piped())
            .stderr(std::fs::File::create(state.join("server.log")).unwrap())
            .spawn()
            .unwrap();
        let mut line = String::new();
        let mut out = std::io::BufReader::new(server.stdout.take().unwrap());
        std::io::BufRead::read_line(&mut out, &mut line).unwrap();
        let port = line.trim().strip_prefix("ready ").unwrap_or_else(|| {
            panic!(
                "the Django site did not start: {line:?}\n{}",
                std::fs::read_to_string(state.join("server.log")).unwrap_or_default()
            )
        });
        Some(DjangoSite {
            server,
            base: format!("http://127.0.0.1:{port}"),
            state: state.to_path_buf(),
        })
    }

    /// The site's pages as they are now.
    fn pages(&self) -> String {
        let port = self.base.rsplit(':').next().unwrap().parse().unwrap();
        let body = common::reqwest_like::Client::new(port)
            .get("/_state")
            .unwrap();
        String::from_utf8(body).unwrap()
    }

    /// What the site's ways out recorded (sign-outs, deletions).
    fn events(&self) -> String {
        std::fs::read_to_string(self.state.join("events.log")).unwrap_or_default()
    }
}

impl Drop for DjangoSite {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

/// A real application: Django's LoginView (CSRF token and cookie) and member pages that need the login,
/// each with a sign-out link and a delete link carrying the CSRF token. With nothing configured but the
/// login page, the user name and the password: every member page archived logged in, no sign-out or delete
/// requested, the site's pages as they were; `trawl login` says how it went.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_django_site_is_archived_logged_in_and_left_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let Some(site) = DjangoSite::start(&dir.path().join("django"), "s3cret-Django") else {
        return;
    };
    let base = site.base.clone();
    let before = site.pages();
    assert!(before.contains("Member page 5"), "{before}");
    write(&dir.path().join("pw.txt"), "s3cret-Django\n");
    let cfg = write(
        &dir.path().join("django.toml"),
        &format!(
            "[seeds]\nurls = [\"{base}/members/\"]\n\
             [[credentials]]\nkind = \"form\"\ndomain = \"127.0.0.1\"\nlogin_url = \"{base}/accounts/login/\"\n\
             fields = {{ username = \"archivist\" }}\npassword_file = \"pw.txt\"\n"
        ),
    );
    let (ok, said) = trawl_login(&cfg, &[], &[]);
    println!("{said}");
    assert!(ok, "{said}");
    for want in [
        "csrfmiddlewaretoken = \"",
        "hidden, from the page",
        "password = ********",
        "not sent: remember (checkbox, not checked)",
        "cookies set: csrftoken, sessionid",
        "result       logged in: the login set cookie `csrftoken`, `sessionid`",
    ] {
        assert!(said.contains(want), "missing {want:?} in:\n{said}");
    }
    assert!(!said.contains("s3cret-Django"));

    let job = dir.path().join("job");
    common::crawl_quickly(&cfg, &job).await;
    let log = common::crawl_log(&job);
    let records = common::records(&job);
    assert_eq!(site.events(), "", "a way out was taken");
    assert_eq!(site.pages(), before, "the site changed");
    assert_eq!(
        log.iter().filter(|l| l.has_annotation("login:ok")).count(),
        1,
        "{log:?}"
    );
    for n in 1..=5 {
        let uri = format!("{base}/members/p{n}/");
        let statuses: Vec<i32> = log
            .iter()
            .filter(|l| l.uri == uri)
            .map(|l| l.status)
            .collect();
        assert_eq!(statuses, [200], "{uri}: {log:?}");
        let rec = records
            .iter()
            .find(|r| {
                r.get("WARC-Type") == Some("response") && r.get("WARC-Target-URI") == Some(&uri)
            })
            .unwrap();
        let page = String::from_utf8_lossy(&rec.block);
        assert!(
            page.contains(&format!("Secret text {n}.")) && page.contains("Logged in as archivist"),
            "{uri}: {page}"
        );
    }
    let refused: Vec<&str> = log
        .iter()
        .filter(|l| l.has_annotation("reject:login_guard"))
        .map(|l| l.uri.as_str())
        .collect();
    assert!(
        refused.contains(&format!("{base}/accounts/signout/").as_str()),
        "{refused:?}"
    );
    assert!(
        refused
            .iter()
            .filter(|u| u.contains("/members/delete/"))
            .count()
            >= 5,
        "{refused:?}"
    );
    for f in common::warc_files(&job) {
        common::warcio_check(&f);
    }
}
