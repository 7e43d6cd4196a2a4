//! The router driven without a socket: auth refusals (401, redirect, 403 on a bad CSRF token), the login rate
//! limit, and the job routes that need no crawl.

use axum::{
    Router,
    body::Body,
    http::{Request, StatusCode, header},
};
use http_body_util::BodyExt;
use tower::ServiceExt;
use trawl_server::{AppState, Auth, JobManager, app};

const TOKEN: &str = "trawl_testtoken";

fn server() -> (tempfile::TempDir, Router) {
    let dir = tempfile::tempdir().unwrap();
    let state = AppState::new(
        JobManager::new(dir.path()).unwrap(),
        Auth::with_password("pw", Some(TOKEN)),
    );
    (dir, app(state))
}

async fn send(app: &Router, req: Request<Body>) -> (StatusCode, axum::http::HeaderMap, String) {
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let headers = res.headers().clone();
    let body = res.into_body().collect().await.unwrap().to_bytes();
    (status, headers, String::from_utf8_lossy(&body).into_owned())
}

fn api(method: &str, path: &str, body: &str) -> Request<Body> {
    Request::builder()
        .method(method)
        .uri(path)
        .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_string()))
        .unwrap()
}

fn form(path: &str, cookie: &str, body: &str) -> Request<Body> {
    Request::builder()
        .method("POST")
        .uri(path)
        .header(header::COOKIE, cookie)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(body.to_string()))
        .unwrap()
}

/// Logs in and returns the cookie and the CSRF token scraped from the jobs page.
async fn login(app: &Router) -> (String, String) {
    let (status, headers, _) = send(app, form("/login", "", "password=pw")).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let set = headers[header::SET_COOKIE].to_str().unwrap();
    assert!(
        set.contains("HttpOnly") && set.contains("SameSite=Strict"),
        "{set}"
    );
    let cookie = set.split(';').next().unwrap().to_string();
    let page = Request::get("/")
        .header(header::COOKIE, &cookie)
        .body(Body::empty())
        .unwrap();
    let (status, headers, html) = send(app, page).await;
    assert_eq!(status, StatusCode::OK);
    // A page holding the CSRF token is not to be framed by another page, nor kept by a cache.
    assert_eq!(headers[header::X_FRAME_OPTIONS], "DENY");
    assert_eq!(
        headers[header::CONTENT_SECURITY_POLICY],
        "frame-ancestors 'none'"
    );
    assert_eq!(headers[header::CACHE_CONTROL], "no-store");
    let at = html.find(r#"name="csrf" value=""#).unwrap() + 19;
    let csrf = html[at..at + 32].to_string();
    (cookie, csrf)
}

#[tokio::test]
async fn refusals() {
    let (_dir, app) = server();
    for (method, path) in [
        ("GET", "/api/jobs"),
        ("POST", "/api/jobs"),
        ("POST", "/api/jobs/x/launch"),
        ("POST", "/api/jobs/x/terminate"),
        ("GET", "/metrics"),
    ] {
        let req = Request::builder()
            .method(method)
            .uri(path)
            .body(Body::empty())
            .unwrap();
        assert_eq!(
            send(&app, req).await.0,
            StatusCode::UNAUTHORIZED,
            "{method} {path}"
        );
        let req = Request::builder()
            .method(method)
            .uri(path)
            .header(header::AUTHORIZATION, "Bearer wrong")
            .body(Body::empty())
            .unwrap();
        assert_eq!(
            send(&app, req).await.0,
            StatusCode::UNAUTHORIZED,
            "{method} {path}"
        );
    }
    let (status, headers, _) = send(&app, Request::get("/").body(Body::empty()).unwrap()).await;
    assert_eq!(
        (status, &headers[header::LOCATION]),
        (StatusCode::SEE_OTHER, &"/login".parse().unwrap())
    );
    let (status, _, _) = send(&app, form("/", "trawl_session=forged", "name=a&csrf=x")).await;
    assert_eq!(
        status,
        StatusCode::SEE_OTHER,
        "a forged session is no session"
    );

    let (cookie, csrf) = login(&app).await;
    let (status, _, _) = send(&app, form("/", &cookie, "name=a")).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "no CSRF token");
    let (status, _, body) = send(&app, form("/", &cookie, "name=a&csrf=0000")).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "wrong CSRF token");
    // A form is told what to do on a page, not in JSON (xt37a F11).
    assert!(body.contains("reload the page"), "{body}");
    let mut api_with_cookie = api("POST", "/api/jobs", r#"{"name":"b"}"#);
    api_with_cookie.headers_mut().remove(header::AUTHORIZATION);
    api_with_cookie
        .headers_mut()
        .insert(header::COOKIE, cookie.parse().unwrap());
    assert_eq!(
        send(&app, api_with_cookie).await.0,
        StatusCode::FORBIDDEN,
        "API by cookie needs X-CSRF-Token"
    );
    let (status, headers, _) = send(
        &app,
        form(
            "/",
            &cookie,
            &format!("name=a&seeds=http%3A%2F%2Fexample.com%2F&csrf={csrf}"),
        ),
    )
    .await;
    assert_eq!(
        (status, &headers[header::LOCATION]),
        (StatusCode::SEE_OTHER, &"/jobs/a".parse().unwrap())
    );
}

#[tokio::test]
async fn login_is_rate_limited() {
    let (_dir, app) = server();
    for _ in 0..trawl_server::LOGIN_ATTEMPTS {
        assert_eq!(
            send(&app, form("/login", "", "password=no")).await.0,
            StatusCode::UNAUTHORIZED
        );
    }
    assert_eq!(
        send(&app, form("/login", "", "password=pw")).await.0,
        StatusCode::TOO_MANY_REQUESTS
    );
}

/// Successful log-ins do not count toward the limit of failed ones.
#[tokio::test]
async fn successful_logins_are_not_limited() {
    let (_dir, app) = server();
    for _ in 0..trawl_server::LOGIN_ATTEMPTS + 2 {
        assert_eq!(
            send(&app, form("/login", "", "password=pw")).await.0,
            StatusCode::SEE_OTHER
        );
    }
}

/// Every refusal of the API is `{"error": …}`, bad input 400, whoever refuses it: the JSON extractor, a
/// missing field, an unknown route.
#[tokio::test]
async fn api_refusals_are_json() {
    let (_dir, app) = server();
    for (req, want) in [
        (
            api("POST", "/api/jobs", "{not json"),
            StatusCode::BAD_REQUEST,
        ),
        (api("POST", "/api/jobs", "{}"), StatusCode::BAD_REQUEST),
        (
            api("POST", "/api/jobs", r#"{"name":"a","seeds":"x"}"#),
            StatusCode::BAD_REQUEST,
        ),
        (
            Request::post("/api/jobs")
                .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
                .body(Body::from(r#"{"name":"a"}"#))
                .unwrap(),
            StatusCode::BAD_REQUEST,
        ),
        (api("GET", "/api/nope", ""), StatusCode::NOT_FOUND),
        (
            api("POST", "/api/jobs", r#"{"name":"a","seeds":["not a url"]}"#),
            StatusCode::BAD_REQUEST,
        ),
        // A config that does not parse makes no job, with seeds or without.
        (
            api("POST", "/api/jobs", r#"{"name":"a","config":"[[[bad"}"#),
            StatusCode::BAD_REQUEST,
        ),
        (
            api(
                "POST",
                "/api/jobs",
                r#"{"name":"a","config":"[frontier]\nmin_delay_ms = \"soon\"\n"}"#,
            ),
            StatusCode::BAD_REQUEST,
        ),
        // A body over the limit: the documented form too.
        (
            api("POST", "/api/jobs", &"x".repeat(3 << 20)),
            StatusCode::PAYLOAD_TOO_LARGE,
        ),
        // A misspelt field is refused, not ignored.
        (
            api(
                "POST",
                "/api/jobs",
                r#"{"name":"a","seed":["http://127.0.0.1:9/"]}"#,
            ),
            StatusCode::BAD_REQUEST,
        ),
    ] {
        let (status, headers, body) = send(&app, req).await;
        assert_eq!(status, want, "{body}");
        assert_eq!(headers[header::CONTENT_TYPE], "application/json", "{body}");
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert!(!v["error"].as_str().unwrap().is_empty(), "{body}");
    }
}

/// Many clients at once: every status read answers (reading writes nothing), and a job made by two
/// requests at the same moment is made once, the other told it exists.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_read_and_create_jobs_once() {
    let (_dir, app) = server();
    let (status, _, _) = send(&app, api("POST", "/api/jobs", r#"{"name":"j"}"#)).await;
    assert_eq!(status, StatusCode::OK);
    let reads: Vec<_> = (0..64)
        .map(|_| {
            let app = app.clone();
            tokio::spawn(async move { send(&app, api("GET", "/api/jobs/j", "")).await.0 })
        })
        .collect();
    for r in reads {
        assert_eq!(r.await.unwrap(), StatusCode::OK);
    }
    for round in 0..10 {
        let name = format!("race{round}");
        let makes: Vec<_> = (0..8)
            .map(|_| {
                let app = app.clone();
                let body = format!(r#"{{"name":"{name}"}}"#);
                tokio::spawn(async move { send(&app, api("POST", "/api/jobs", &body)).await.0 })
            })
            .collect();
        let mut made = 0;
        for m in makes {
            match m.await.unwrap() {
                StatusCode::OK => made += 1,
                other => assert_eq!(other, StatusCode::CONFLICT),
            }
        }
        assert_eq!(made, 1, "{name}");
    }
}

/// Seeds given with a profile go into its `urls = []` line: its comments stay.
#[tokio::test]
async fn seeds_added_to_a_profile_keep_its_comments() {
    let (_dir, app) = server();
    let body = r#"{"name":"p","profile":"polite","seeds":["http://127.0.0.1:9/a\"b"]}"#;
    let (status, _, body) = send(&app, api("POST", "/api/jobs", body)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _, text) = send(&app, api("GET", "/api/jobs/p/config", "")).await;
    assert_eq!(status, StatusCode::OK);
    let polite = trawl_config::settings::profiles::profile("polite").unwrap();
    let comment = polite.lines().find(|l| l.contains('#')).unwrap();
    assert!(text.contains(comment), "{text}");
    let config = trawl_config::CrawlConfig::parse(&text, "crawl.toml".as_ref()).unwrap();
    assert_eq!(config.seeds.urls, ["http://127.0.0.1:9/a\"b"]);
}

/// A settings change on a stopped job edits its crawl.toml where the value changes: the profile's comments,
/// even the one after the changed value, stay.
#[tokio::test]
async fn settings_keep_the_comments_of_crawl_toml() {
    let (_dir, app) = server();
    let body = r#"{"name":"p","profile":"polite","seeds":["http://127.0.0.1:9/"]}"#;
    let (status, _, body) = send(&app, api("POST", "/api/jobs", body)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    for change in [
        r#"{"set": {"frontier.min_delay_ms": 20000}}"#,
        r#"{"sheet": {"name": "s", "surt_prefixes": ["http://(org,"], "set": {"frontier.max_retries": 2}}}"#,
    ] {
        let (status, _, body) = send(&app, api("POST", "/api/jobs/p/settings", change)).await;
        assert_eq!(status, StatusCode::OK, "{change}: {body}");
    }
    let (_, _, text) = send(&app, api("GET", "/api/jobs/p/config", "")).await;
    let polite = trawl_config::settings::profiles::profile("polite").unwrap();
    for comment in polite
        .lines()
        .filter_map(|l| l.find('#').map(|at| &l[at..]))
    {
        assert!(text.contains(comment), "lost {comment:?}:\n{text}");
    }
    assert!(
        text.contains("min_delay_ms = 20000              # ...at least 10 s..."),
        "{text}"
    );
    let config = trawl_config::CrawlConfig::parse(&text, "crawl.toml".as_ref()).unwrap();
    assert_eq!(config.frontier.min_delay_ms, 20000);
    assert_eq!(config.sheets.len(), 1);
}

/// The API's refusals say which request or field to use, never a command-line command or flag.
#[tokio::test]
async fn refusals_speak_api_not_cli() {
    let (_dir, app) = server();
    let (status, _, _) = send(&app, api("POST", "/api/jobs", r#"{"name":"e"}"#)).await;
    assert_eq!(status, StatusCode::OK);
    for (method, path, body, want, says) in [
        (
            "POST",
            "/api/jobs/e/launch",
            "",
            StatusCode::BAD_REQUEST,
            "[seeds] urls (PUT /api/jobs/e/config)",
        ),
        (
            "POST",
            "/api/jobs/e/launch",
            r#"{"checkpoint": "latest"}"#,
            StatusCode::BAD_REQUEST,
            "has no checkpoint yet: launch it without `checkpoint`",
        ),
        (
            "GET",
            "/api/jobs/e/queues",
            "",
            StatusCode::CONFLICT,
            "launch it first (POST /api/jobs/e/launch",
        ),
        (
            "POST",
            "/api/jobs/e/seeds",
            r#"{"urls": ["http://127.0.0.1:9/"]}"#,
            StatusCode::CONFLICT,
            "[seeds] urls (PUT /api/jobs/e/config)",
        ),
        (
            "POST",
            "/api/jobs/e/pause",
            "",
            StatusCode::CONFLICT,
            "launch it first (POST /api/jobs/e/launch)",
        ),
        (
            "POST",
            "/api/jobs/e/settings",
            r#"{"set": {"frontier.min_delay_ms": 1}, "remove_sheet": "x"}"#,
            StatusCode::BAD_REQUEST,
            "one request makes one kind of change",
        ),
        (
            "POST",
            "/api/jobs/e/settings",
            r#"{"sett": {"frontier.min_delay_ms": 1}}"#,
            StatusCode::BAD_REQUEST,
            "unknown field `sett`",
        ),
        (
            "POST",
            "/api/jobs/e/settings",
            r#"{"set": 5}"#,
            StatusCode::BAD_REQUEST,
            "field `set`",
        ),
    ] {
        let (status, _, body) = send(&app, api(method, path, body)).await;
        assert_eq!(status, want, "{method} {path}: {body}");
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        let error = v["error"].as_str().unwrap();
        assert!(error.contains(says), "{method} {path}: {error}");
        for cli in ["command line", "`trawl ", "--job", "JOB/"] {
            assert!(!error.contains(cli), "{method} {path}: {error}");
        }
    }
}

#[tokio::test]
async fn jobs_config_build_and_pages() {
    let (dir, app) = server();
    let (status, _, body) = send(
        &app,
        api(
            "POST",
            "/api/jobs",
            r#"{"name":"j1","seeds":["http://example.com/"]}"#,
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.contains(r#""state":"created""#), "{body}");
    let (status, _, _) = send(&app, api("POST", "/api/jobs", r#"{"name":"../x"}"#)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (_, _, body) = send(&app, api("POST", "/api/jobs/j1/build", "")).await;
    assert!(body.contains(r#""ok":true"#), "{body}");
    // The build warns of what `trawl check` warns of, the user agent's robots.txt name too (xt15c F18).
    let agent = "[fetch]\nuser_agent = \"Mozilla/5.0 (+http://t.test/bot)\"\n";
    let (status, _, body) = send(&app, api("PUT", "/api/jobs/j1/config", agent)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, _, body) = send(&app, api("POST", "/api/jobs/j1/build", "")).await;
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["ok"], true, "{body}");
    assert!(
        v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["key"] == "fetch.user_agent" && w["line"] == 2),
        "{body}"
    );
    // A text that is not a config trawl reads is refused, the job's crawl.toml kept (xt37a F9: `{"a":1}`
    // replaced it); one whose values are wrong is saved, its problems named.
    for bad in ["[fetch]\nuser_agent = 1\nnope = 2\n", r#"{"a":1}"#] {
        let (status, _, body) = send(&app, api("PUT", "/api/jobs/j1/config", bad)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert!(
            body.contains("not a config trawl reads: line ") && body.contains("was not changed"),
            "{body}"
        );
        let kept = std::fs::read_to_string(dir.path().join("j1/crawl.toml")).unwrap();
        assert_eq!(kept, agent);
    }
    let wrong = "[frontier]\nmin_delay_ms = 9000\nmax_delay_ms = 10\n";
    let (status, _, body) = send(&app, api("PUT", "/api/jobs/j1/config", wrong)).await;
    assert_eq!(status, StatusCode::OK);
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["ok"], false, "{body}");
    assert!(
        v["problems"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["line"].as_u64().is_some()),
        "{body}"
    );
    // A file outside the jobs folder is never read, nor quoted back (xt37a F7), by create or by edit.
    let outside = "[seeds]\nfiles = [\"/etc/passwd\"]\n";
    let (status, _, body) = send(&app, api("PUT", "/api/jobs/j1/config", outside)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body.contains("seeds.files[0]: /etc/passwd is outside the jobs folder"),
        "{body}"
    );
    assert!(!body.contains("root:"), "{body}");
    let create =
        serde_json::json!({"name": "j3", "config": "[seeds]\nfiles = [\"../../x.txt\"]\n"});
    let (status, _, body) = send(&app, api("POST", "/api/jobs", &create.to_string())).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body.contains("seeds.files[0]: ../../x.txt is outside"),
        "{body}"
    );
    assert!(!dir.path().join("j3").exists());
    // A file inside the jobs folder named where TOML is expected (a password file beside the jobs) is not
    // quoted back in the refusal either, by create, by edit or by a class file (xt46b F6).
    std::fs::write(
        dir.path().join("pw.txt"),
        "S3cretProxyPassw0rd\npa=ss\"word\n",
    )
    .unwrap();
    for config in [
        "include = [\"../pw.txt\"]\n",
        "[classes]\nfiles = [\"../pw.txt\"]\n",
    ] {
        let (_, _, body) = send(&app, api("PUT", "/api/jobs/j1/config", config)).await;
        assert!(
            !body.contains("S3cret") && !body.contains("pa=ss"),
            "{body}"
        );
        let create = serde_json::json!({"name": "j4", "config": config});
        let (status, _, body) = send(&app, api("POST", "/api/jobs", &create.to_string())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert!(
            !body.contains("S3cret") && !body.contains("pa=ss"),
            "{body}"
        );
    }
    // Nor by a launch of a config saved with such a file (review 85 R1): its problem is a semantic one, so the
    // config is saved, and the launch said it.
    let saved = "[seeds]\nurls = [\"http://127.0.0.1:9/\"]\n[classes]\nfiles = [\"../pw.txt\"]\n";
    let (status, _, body) = send(&app, api("PUT", "/api/jobs/j1/config", saved)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(
        !body.contains("S3cret") && !body.contains("pa=ss"),
        "{body}"
    );
    let (status, _, body) = send(&app, api("POST", "/api/jobs/j1/launch", "")).await;
    assert_ne!(status, StatusCode::OK, "{body}");
    assert!(
        body.contains("pw.txt") && !body.contains("S3cret") && !body.contains("pa=ss"),
        "{body}"
    );
    // Nor through a sheet's rules on the settings route (xt38a N1).
    let sheet = r#"{"sheet":{"name":"x","surt_prefixes":["http://(org,"],"rules":[{"rule":"surt_prefixed","files":["/etc/passwd"]}],"set":{"frontier.min_delay_ms":100}}}"#;
    let (status, _, body) = send(&app, api("POST", "/api/jobs/j1/settings", sheet)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body.contains("/etc/passwd is outside") && !body.contains("root:"),
        "{body}"
    );
    let log = std::fs::read_to_string(dir.path().join("j1/logs/config-changes.log")).unwrap();
    assert!(log.contains("token@local edit crawl.toml"), "{log}");
    // A password written in the config is refused, by create and by edit: the job's folder would keep it
    // (xt14c F1).
    let secret = "[fetch]\nproxy = \"socks5://u:s3cret@127.0.0.1:1080\"\n";
    let (status, _, body) = send(&app, api("PUT", "/api/jobs/j1/config", secret)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body.contains("fetch.proxy: a password written in the config"),
        "{body}"
    );
    let create = serde_json::json!({"name": "j2", "config": secret}).to_string();
    let (status, _, body) = send(&app, api("POST", "/api/jobs", &create)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(!dir.path().join("j2").exists());
    let (_, _, text) = send(&app, api("GET", "/api/jobs/j1/config", "")).await;
    assert!(!text.contains("s3cret"), "{text}");
    // A job with queued URIs keeps how its queues are named (xt14c F3); one without may change it.
    let ip = "[frontier]\nqueue_assignment = \"ip\"\n";
    let host = "[frontier]\nqueue_assignment = \"host\"\n";
    let (status, _, body) = send(&app, api("PUT", "/api/jobs/j1/config", host)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    std::fs::create_dir_all(dir.path().join("j1/state/frontier")).unwrap();
    let (status, _, body) = send(&app, api("PUT", "/api/jobs/j1/config", ip)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body.contains("frontier.queue_assignment") && body.contains("was not changed"),
        "{body}"
    );
    // Where the job recorded the naming its queues were made with, that is what counts: a crawl.toml edited
    // by hand to another may be put back through the API (review 63 R1).
    std::fs::write(
        dir.path().join("j1/state/queue-naming.toml"),
        "[frontier]\nqueue_assignment = \"host\"\nparallel_queues = 1\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("j1/crawl.toml"), ip).unwrap();
    let (status, _, body) = send(&app, api("PUT", "/api/jobs/j1/config", host)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _, body) = send(&app, api("PUT", "/api/jobs/j1/config", ip)).await;
    assert!(
        status == StatusCode::BAD_REQUEST && body.contains("stored under queues named with"),
        "{body}"
    );
    std::fs::remove_dir_all(dir.path().join("j1/state")).unwrap();
    let (status, _, body) = send(&app, api("PUT", "/api/jobs/j1/config", ip)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _, _) = send(&app, api("POST", "/api/jobs/j1/pause", "")).await;
    assert_eq!(status, StatusCode::CONFLICT, "pause needs a running crawl");
    let (status, _, _) = send(&app, api("GET", "/api/jobs/nope", "")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _, body) = send(
        &app,
        api(
            "GET",
            "/api/url?url=http://www.example.com/a/../b?utm_source=x",
            "",
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.contains("\"surt\""), "{body}");
    let (status, _, body) = send(&app, api("GET", "/metrics", "")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        body.contains("trawl_uris_finished_total{job=\"j1\"} 0"),
        "{body}"
    );

    let (cookie, _) = login(&app).await;
    for path in [
        "/",
        "/jobs/j1",
        "/jobs/j1/config",
        "/jobs/j1/log",
        "/jobs/j1/report",
        "/url?url=http://example.com/",
    ] {
        let req = Request::get(path)
            .header(header::COOKIE, &cookie)
            .body(Body::empty())
            .unwrap();
        let (status, _, html) = send(&app, req).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert!(html.contains("</html>"), "{path}");
    }
    // The live settings of a job whose crawl.toml cannot be read say so, not the defaults (xt46b F5).
    std::fs::write(dir.path().join("j1/crawl.toml"), "garbage [[[\n").unwrap();
    let req = Request::get("/jobs/j1/settings")
        .header(header::COOKIE, &cookie)
        .body(Body::empty())
        .unwrap();
    let (status, _, html) = send(&app, req).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        html.contains("cannot be read or fails its checks") && !html.contains("Now: politeness"),
        "{html}"
    );
}

/// The queues form refuses a delay or budget that is not a whole number with an error page (400), instead of
/// taking it for "clear" (which removed the very delay the operator meant to set); empty clears.
#[tokio::test]
async fn queue_form_refuses_a_value_that_is_not_a_number() {
    let (_dir, app) = server();
    let (status, _, _) = send(&app, api("POST", "/api/jobs", r#"{"name":"q"}"#)).await;
    assert_eq!(status, StatusCode::OK);
    let (cookie, csrf) = login(&app).await;
    for (action, value) in [
        ("delay", "5s"),
        ("delay", "-1"),
        ("budget", "1%2C000"),
        ("budget", "ten"),
    ] {
        let body = format!("csrf={csrf}&queue=com%2Cexample%2C&action={action}&value={value}");
        let (status, _, html) = send(&app, form("/jobs/q/queues", &cookie, &body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{action} {value}: {html}");
        assert!(
            html.contains("is not a whole number") && html.contains("empty to clear"),
            "{action} {value}: {html}"
        );
        assert!(html.contains("</html>"), "an error page: {html}");
    }
    // A number, or nothing (clear), goes on to the job (never launched here: refused for its state).
    for value in ["5000", "", "%20"] {
        let body = format!("csrf={csrf}&queue=com%2Cexample%2C&action=delay&value={value}");
        let (status, _, html) = send(&app, form("/jobs/q/queues", &cookie, &body)).await;
        assert_eq!(status, StatusCode::CONFLICT, "{value:?}: {html}");
        assert!(html.contains("launch it first"), "{value:?}: {html}");
    }
    // An empty Add seeds box is refused as the API refuses an empty list, never sent to the job nor logged
    // (xt46b F1).
    for value in ["", "%20%0D%0A%20"] {
        let body = format!("csrf={csrf}&queue=&action=seeds&value={value}");
        let (status, _, html) = send(&app, form("/jobs/q/queues", &cookie, &body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{value:?}: {html}");
        assert!(
            html.contains("the Add seeds box is empty"),
            "{value:?}: {html}"
        );
    }
}

/// A job's relative paths (`include`, `[seeds] files`) are read from its folder when it is created, as its
/// launch reads them, not from the server's working directory.
#[tokio::test]
async fn create_reads_relative_paths_from_the_job_folder() {
    let (dir, app) = server();
    std::fs::write(
        dir.path().join("common.toml"),
        "[frontier]\nmin_delay_ms = 1234\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("shared-seeds.txt"),
        "http://127.0.0.1:9/s\n",
    )
    .unwrap();
    let config = "include = [\"../common.toml\"]\n[seeds]\nfiles = [\"../shared-seeds.txt\"]\n";
    let body = serde_json::json!({"name": "rel", "config": config}).to_string();
    let (status, _, body) = send(&app, api("POST", "/api/jobs", &body)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, _, body) = send(&app, api("POST", "/api/jobs/rel/build", "")).await;
    assert!(body.contains(r#""ok":true"#), "{body}");
    let text = std::fs::read_to_string(dir.path().join("rel/crawl.toml")).unwrap();
    assert_eq!(text, config);
    // With seeds added too: the text still parses from the job's folder, so only its urls line changes.
    let config = "include = [\"../common.toml\"]\n";
    let body =
        serde_json::json!({"name": "rel2", "config": config, "seeds": ["http://127.0.0.1:9/x"]});
    let (status, _, body) = send(&app, api("POST", "/api/jobs", &body.to_string())).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let text = std::fs::read_to_string(dir.path().join("rel2/crawl.toml")).unwrap();
    assert!(text.contains("include = [\"../common.toml\"]"), "{text}");
    // A file missing from the job's folder is named there, where it is looked for.
    let body = serde_json::json!({"name": "rel3", "config": "[seeds]\nfiles = [\"seeds.txt\"]\n"});
    let (status, _, body) = send(&app, api("POST", "/api/jobs", &body.to_string())).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let want = dir.path().join("rel3/seeds.txt");
    assert!(body.contains(&*want.to_string_lossy()), "{body}");
}

/// A log-in posted by another site's page (another port of the same loopback address counts) is refused
/// before it counts: such posts cannot lock the operator out.
#[tokio::test]
async fn cross_origin_logins_are_refused_and_not_counted() {
    let (_dir, app) = server();
    let post = |headers: &[(&str, &str)], password: &str| {
        let mut req = Request::post("/login")
            .header(header::HOST, "127.0.0.1:8480")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        req.body(Body::from(format!("password={password}")))
            .unwrap()
    };
    for headers in [
        &[("origin", "http://127.0.0.1:8901")][..],
        &[("origin", "null")],
        &[("origin", "http://evil.example")],
        &[("sec-fetch-site", "same-site")],
        &[
            ("sec-fetch-site", "cross-site"),
            ("origin", "http://127.0.0.1:8480"),
        ],
    ] {
        for _ in 0..trawl_server::LOGIN_ATTEMPTS + 1 {
            let (status, _, html) = send(&app, post(headers, "x")).await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{headers:?}: {html}");
        }
    }
    // The operator's own page (its origin, or a browser saying same-origin) logs in: nothing was counted.
    for headers in [
        &[
            ("origin", "http://127.0.0.1:8480"),
            ("sec-fetch-site", "same-origin"),
        ][..],
        &[],
        &[("sec-fetch-site", "none")],
        // Behind a proxy that rewrites `Host`: the browser's `Sec-Fetch-Site` is believed alone.
        &[
            ("origin", "https://crawls.example.org"),
            ("sec-fetch-site", "same-origin"),
        ],
    ] {
        let (status, _, html) = send(&app, post(headers, "pw")).await;
        assert_eq!(status, StatusCode::SEE_OTHER, "{headers:?}: {html}");
    }
    // Failed log-ins from the server's own page still count.
    for _ in 0..trawl_server::LOGIN_ATTEMPTS {
        let (status, _, _) = send(&app, post(&[("origin", "http://127.0.0.1:8480")], "x")).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }
    let (status, _, _) = send(&app, post(&[], "pw")).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
}

/// `/api/url` judges a URL under a job's config that `trawl check` refuses for its values, naming the
/// problems beside the verdict (xt14b F8); a config that is none (an unknown key) is a `400`.
#[tokio::test]
async fn url_is_judged_under_a_config_with_wrong_values() {
    let (dir, app) = server();
    let job = dir.path().join("wrong");
    std::fs::create_dir_all(&job).unwrap();
    std::fs::write(
        job.join("crawl.toml"),
        "[seeds]\nurls = [\"http://a.org/\"]\n[[scope.rules]]\nrule = \"reject\"\n",
    )
    .unwrap();
    let (status, _, body) = send(
        &app,
        api("GET", "/api/url?url=http://a.org/x&job=wrong", ""),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["scope"]["rule"], "reject", "{v}");
    assert!(
        v["config_problems"][0]
            .as_str()
            .unwrap()
            .contains("seed http://a.org/ is outside the scope"),
        "{v}"
    );
    std::fs::write(job.join("crawl.toml"), "[fetch]\nobey_robot = true\n").unwrap();
    let (status, _, body) = send(
        &app,
        api("GET", "/api/url?url=http://a.org/x&job=wrong", ""),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body.contains("unknown key `obey_robot`"), "{body}");
}

/// `/api/url` checks its hop path as the command line does.
#[tokio::test]
async fn url_hops_are_checked() {
    let (_dir, app) = server();
    for (path, want, says) in [
        (
            "/api/url?url=http://example.com/&hops=abc",
            StatusCode::BAD_REQUEST,
            "'a' is not a hop letter: give `hops` as letters of L E R X P S I",
        ),
        (
            "/api/url?url=http://example.com/&hops=LLx",
            StatusCode::BAD_REQUEST,
            "'x' is not a hop letter",
        ),
        (
            "/api/url?url=http://example.com/&hops=LLE",
            StatusCode::OK,
            "\"surt\"",
        ),
        (
            "/api/url?url=http://example.com/&hops=",
            StatusCode::OK,
            "\"surt\"",
        ),
        // No URL at all (xt37a F11): said as such.
        ("/api/url", StatusCode::BAD_REQUEST, "no URL to test"),
    ] {
        let (status, _, body) = send(&app, api("GET", path, "")).await;
        assert_eq!(status, want, "{path}: {body}");
        assert!(body.contains(says), "{path}: {body}");
    }
}

/// crawl.log's tail refuses `last=0` and a `status` that is neither a code nor a class.
#[tokio::test]
async fn log_filters_are_checked() {
    let (_dir, app) = server();
    let (status, _, _) = send(&app, api("POST", "/api/jobs", r#"{"name":"j"}"#)).await;
    assert_eq!(status, StatusCode::OK);
    for (path, want, says) in [
        (
            "/api/jobs/j/log?last=0",
            StatusCode::BAD_REQUEST,
            "give `last` as a whole number of lines, 1-10000",
        ),
        (
            "/api/jobs/j/log?status=abc",
            StatusCode::BAD_REQUEST,
            "give `status` as a status code",
        ),
        (
            "/api/jobs/j/log?status=5x",
            StatusCode::BAD_REQUEST,
            "give `status` as a status code",
        ),
        (
            "/api/jobs/j/log?last=-1",
            StatusCode::BAD_REQUEST,
            "last=-1: give `last` as a whole number of lines, 1-10000",
        ),
        (
            "/api/jobs/j/log?last=abc",
            StatusCode::BAD_REQUEST,
            "the query string: last: invalid digit",
        ),
        (
            "/api/jobs/j/lookup?url=notaurl",
            StatusCode::BAD_REQUEST,
            "notaurl\\\" is not a URL: give an absolute one",
        ),
        ("/api/jobs/j/log?status=4xx&last=1", StatusCode::OK, "lines"),
        ("/api/jobs/j/log?status=-6", StatusCode::OK, "lines"),
        ("/api/jobs/j/log?status=200", StatusCode::OK, "lines"),
    ] {
        let (status, _, body) = send(&app, api("GET", path, "")).await;
        assert_eq!(status, want, "{path}: {body}");
        assert!(body.contains(says), "{path}: {body}");
    }
}

/// The scheme of `Authorization` is case-insensitive (RFC 9110, 11.1), and the status stream is kept by no
/// cache either (xt9a F14: `bearer` was refused; F12: `/events` said `no-cache`).
#[tokio::test]
async fn a_lowercase_bearer_works_and_the_event_stream_is_not_cached() {
    let (_dir, app) = server();
    let (status, _, body) = send(&app, api("POST", "/api/jobs", r#"{"name":"ev"}"#)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let req = Request::get("/api/jobs/ev")
        .header(header::AUTHORIZATION, format!("bearer {TOKEN}"))
        .body(Body::empty())
        .unwrap();
    let (status, _, body) = send(&app, req).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let events = Request::get("/api/jobs/ev/events")
        .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
        .body(Body::empty())
        .unwrap();
    // The stream never ends: only its head is read.
    let res = app.clone().oneshot(events).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()[header::CACHE_CONTROL], "no-store");
}

/// A UI form too large to read is refused as too large (413), not as a missing CSRF token (xt9a F9).
#[tokio::test]
async fn a_form_too_large_is_refused_as_such() {
    let (_dir, app) = server();
    let (cookie, csrf) = login(&app).await;
    let body = format!("csrf={csrf}&config={}", "a".repeat(5 << 20));
    let (status, _, said) = send(&app, form("/jobs/x/config", &cookie, &body)).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{said}");
    assert!(said.contains("over 4 MiB"), "{said}");
}

/// A log-out ends the status streams its session opened: a tab left open stops receiving the job's status
/// (xt9a F12).
#[tokio::test]
async fn a_log_out_ends_the_sessions_event_streams() {
    let (_dir, app) = server();
    let (status, _, body) = send(&app, api("POST", "/api/jobs", r#"{"name":"ev"}"#)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (cookie, csrf) = login(&app).await;
    let events = Request::get("/api/jobs/ev/events")
        .header(header::COOKIE, &cookie)
        .body(Body::empty())
        .unwrap();
    let res = app.clone().oneshot(events).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let mut stream = res.into_body();
    let first = tokio::time::timeout(std::time::Duration::from_secs(5), stream.frame())
        .await
        .expect("a first status event");
    assert!(first.is_some_and(|f| f.is_ok()));
    let (status, _, said) = send(&app, form("/logout", &cookie, &format!("csrf={csrf}"))).await;
    assert_eq!(status, StatusCode::SEE_OTHER, "{said}");
    // At most one more event may be on its way; then the stream ends.
    let ended = tokio::time::timeout(std::time::Duration::from_secs(5), async {
        while stream.frame().await.is_some() {}
    })
    .await;
    assert!(ended.is_ok(), "the stream went on after the log-out");
}

/// axum's own refusals of a body are said in the API's words, naming the field (xt9a F7).
#[tokio::test]
async fn a_body_of_the_wrong_type_is_refused_naming_the_field() {
    let (_dir, app) = server();
    let (status, _, body) = send(&app, api("POST", "/api/jobs", r#"{"name":5}"#)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body.contains("the JSON body: name: invalid type"), "{body}");
    assert!(!body.contains("Failed to"), "{body}");
}

/// A request naming a host the server was not told it is gets 421 before anything reads it, the log-in page
/// too (DNS rebinding, xt9a F13); its IP address, `localhost` and a name given to it are answered.
#[tokio::test]
async fn a_host_the_server_is_not_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let state = AppState::new(
        JobManager::new(dir.path()).unwrap(),
        Auth::with_password("pw", Some(TOKEN)),
    )
    .with_host_names(&[
        "Crawl.Example.org.".to_string(),
        "crawler01:8480".to_string(),
    ]);
    let app = app(state);
    for (host, path, want) in [
        ("evil.example", "/login", StatusCode::MISDIRECTED_REQUEST),
        (
            "evil.example:8480",
            "/api/jobs",
            StatusCode::MISDIRECTED_REQUEST,
        ),
        ("127.0.0.1:8480", "/login", StatusCode::OK),
        ("[::1]:8480", "/api/jobs", StatusCode::OK),
        ("localhost:8480", "/api/jobs", StatusCode::OK),
        ("crawl.example.org", "/api/jobs", StatusCode::OK),
        ("crawler01:8480", "/api/jobs", StatusCode::OK),
    ] {
        let req = Request::get(path)
            .header(header::HOST, host)
            .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
            .body(Body::empty())
            .unwrap();
        let (status, headers, body) = send(&app, req).await;
        assert_eq!(status, want, "{host}{path}: {body}");
        if want != StatusCode::OK {
            assert!(body.contains("--host-name"), "{body}");
            assert_eq!(headers[header::X_FRAME_OPTIONS], "DENY");
        }
    }
}
