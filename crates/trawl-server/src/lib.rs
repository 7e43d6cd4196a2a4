//! trawl's operator surface: a REST API, a server-rendered web UI and Prometheus metrics over the crawl jobs
//! in one folder.
//!
//! What this crate must not know: how a crawl fetches, extracts or decides; it drives jobs through the
//! engine's public handle and reads their outputs.
//!
//! [`JobManager`] holds the jobs and the crawls running from them in this process; [`Auth`] holds the
//! password, the API tokens and the UI sessions; [`app`] builds the [`axum::Router`] over both (the routes are
//! listed in docs/api.md). Tests drive the router without a socket:
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use trawl_server::{AppState, Auth, JobManager, app};
//! let state = AppState::new(JobManager::new("jobs".as_ref())?, Auth::with_password("pw", Some("tok")));
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8480").await?;
//! axum::serve(listener, app(state)).await
//! # }
//! ```
#![deny(missing_docs)]

use std::sync::Arc;

use axum::{Router, middleware, routing::get};

mod api;
mod auth;
mod error;
mod guard;
mod manager;
mod metrics;
mod shared;
mod ui;

pub use crate::{
    auth::{AUTH_FILE, Auth, LOGIN_ATTEMPTS, LOGIN_WINDOW, LoginError, random_secret},
    error::ApiError,
    guard::{Operator, SESSION_COOKIE},
    manager::{Counters, JobManager, JobStatus},
    metrics::{CONTENT_TYPE as METRICS_CONTENT_TYPE, JobMetrics, render as render_metrics},
};

/// What every handler shares.
#[derive(Debug, Clone)]
pub struct AppState {
    /// The jobs.
    pub jobs: Arc<JobManager>,
    /// The credentials and sessions.
    pub auth: Arc<Auth>,
    /// The Redis holding shared crawls (`--frontier`), if any.
    pub shared: Option<Arc<String>>,
    /// The names, besides IP addresses and `localhost`, that a request's `Host` may give (`--host-name`).
    pub host_names: Arc<Vec<String>>,
}

impl AppState {
    /// State over `jobs` guarded by `auth`.
    pub fn new(jobs: JobManager, auth: Auth) -> AppState {
        AppState {
            jobs: Arc::new(jobs),
            auth: Arc::new(auth),
            shared: None,
            host_names: Arc::default(),
        }
    }

    /// Also answers requests whose `Host` is one of `names` (a machine's name, or the name a reverse proxy
    /// passes on), besides IP addresses and `localhost`.
    pub fn with_host_names(mut self, names: &[String]) -> AppState {
        // As `known` reads a `Host`: without a port or a final dot.
        let bare = |n: &str| {
            let n = n.to_ascii_lowercase();
            let n = match n.rsplit_once(':') {
                Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name.to_owned(),
                _ => n,
            };
            n.strip_suffix('.').map_or(n.clone(), str::to_owned)
        };
        self.host_names = Arc::new(names.iter().map(|n| bare(n)).collect());
        self
    }

    /// Also shows and acts on the crawls shared through the Redis at `url` (`redis://HOST:PORT/DB`).
    pub fn with_shared(mut self, url: &str) -> AppState {
        self.shared = Some(Arc::new(url.to_string()));
        self
    }
}

/// The whole server: `/login` open to all, everything else behind the gate (see [`Operator`]).
pub fn app(state: AppState) -> Router {
    let protected = Router::new()
        .merge(api::routes())
        .merge(ui::routes())
        .route("/metrics", get(metrics::metrics))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            guard::require,
        ));
    Router::new()
        .merge(ui::login::routes())
        .merge(protected)
        .layer(middleware::from_fn(json_errors))
        .layer(middleware::from_fn_with_state(state.clone(), known_host))
        .layer(middleware::from_fn(no_framing))
        .with_state(state)
}

/// Refuses a request whose `Host` names a host the server was not told it is (421), before anything else
/// reads it. A page of another site whose name its DNS points at 127.0.0.1 (DNS rebinding) is then not
/// answered as if it were the server's own: it could otherwise read the log-in page's answers and guess
/// passwords (xt9a F13). An IP address or `localhost` is always taken: a browser sends a name it resolved
/// itself only for a site's own name.
async fn known_host(
    axum::extract::State(state): axum::extract::State<AppState>,
    req: axum::extract::Request,
    next: middleware::Next,
) -> axum::response::Response {
    use axum::{http::StatusCode, response::IntoResponse};
    let host = req
        .headers()
        .get(axum::http::header::HOST)
        .map(|h| String::from_utf8_lossy(h.as_bytes()).to_ascii_lowercase());
    match host {
        Some(host) if !known(&host, &state.host_names) => (
            StatusCode::MISDIRECTED_REQUEST,
            axum::Json(serde_json::json!({
                "error": format!(
                    "this server does not answer to the name {host:?}: use its IP address or localhost, or \
                     start it with --host-name NAME for each name it is reached by"
                )
            })),
        )
            .into_response(),
        // HTTP/1.0 may send none: no browser does.
        _ => next.run(req).await,
    }
}

/// axum's refusal of a query string or body (`Failed to deserialize query string: last: invalid digit …`)
/// in the API's words: which part of the request, the field and what it must be. Any other text is kept.
fn framework_sentence(text: &str) -> String {
    const PARTS: [(&str, &str); 4] = [
        ("Failed to deserialize query string: ", "the query string: "),
        (
            "Failed to deserialize the JSON body into the target type: ",
            "the JSON body: ",
        ),
        (
            "Failed to parse the request body as JSON: ",
            "the body is not JSON: ",
        ),
        (
            "Expected request with `Content-Type: application/json`",
            "send the body as JSON, with `Content-Type: application/json`",
        ),
    ];
    for (axum, ours) in PARTS {
        if let Some(rest) = text.strip_prefix(axum) {
            let rest = serde_words(rest);
            return format!("{ours}{rest} (docs/api.md gives each route's parameters and fields)");
        }
    }
    text.to_string()
}

/// serde's names of Rust types in a refusal (`expected struct CreateJob with 4 elements`, `expected u64`) in
/// JSON's words (xt37a F4).
fn serde_words(text: &str) -> String {
    let mut out = text.to_string();
    if let Some(at) = out.find("expected struct ") {
        let rest = &out[at..];
        let end = [rest.find([',', ')']), rest.find(" at line ")]
            .into_iter()
            .flatten()
            .min()
            .map_or(out.len(), |n| at + n);
        out.replace_range(at..end, "expected a JSON object");
    }
    for (rust, json) in [
        ("expected u64", "expected a whole number, 0 or more"),
        ("expected u32", "expected a whole number, 0 or more"),
        ("expected usize", "expected a whole number, 0 or more"),
        ("expected i64", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("expected a sequence", "expected a JSON array"),
        ("expected a map", "expected a JSON object"),
    ] {
        out = out.replace(rust, json);
    }
    out
}

/// Whether `host` (a `Host` header's value, lowercase) is an IP address, `localhost`, or one of `names`,
/// with or without a port.
fn known(host: &str, names: &[String]) -> bool {
    let name = match host.strip_prefix('[') {
        // `[v6]` or `[v6]:port`.
        Some(rest) => {
            return rest
                .split_once(']')
                .is_some_and(|(ip, _)| ip.parse::<std::net::Ipv6Addr>().is_ok());
        }
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    let name = name.strip_suffix('.').unwrap_or(name);
    name.parse::<std::net::Ipv4Addr>().is_ok()
        || name == "localhost"
        || name.ends_with(".localhost")
        || names.iter().any(|n| n == name)
}

/// Every answer may be shown only by the server's own pages and is not kept by caches: the UI's pages hold
/// a CSRF token and buttons that launch and stop crawls, and a page from another port of the same loopback
/// address counts as the same site for the session cookie, so it could otherwise frame them.
async fn no_framing(
    req: axum::extract::Request,
    next: middleware::Next,
) -> axum::response::Response {
    use axum::http::{HeaderValue, header};
    let mut response = next.run(req).await;
    let headers = response.headers_mut();
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("frame-ancestors 'none'"),
    );
    // Over what a handler set: the status stream's `no-cache` lets a cache keep it (xt9a F12).
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The API's refusals in its documented form, `{"error": "sentence"}`, whoever made them: axum's extractors
/// answer a body that is not JSON, lacks a field or has a wrong type in plain text (400, 415, 422), and an
/// unknown route with an empty 404. Bad input is 400, as docs/api.md says.
async fn json_errors(
    req: axum::extract::Request,
    next: middleware::Next,
) -> axum::response::Response {
    use axum::{http::StatusCode, response::IntoResponse};
    let api = req.uri().path().starts_with("/api/");
    let response = next.run(req).await;
    let status = response.status();
    let json = response
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    let mended = [
        StatusCode::BAD_REQUEST,
        StatusCode::NOT_FOUND,
        StatusCode::METHOD_NOT_ALLOWED,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        StatusCode::UNPROCESSABLE_ENTITY,
        StatusCode::PAYLOAD_TOO_LARGE,
    ];
    if !api || json || !mended.contains(&status) {
        return response;
    }
    let body = axum::body::to_bytes(response.into_body(), 64 << 10)
        .await
        .unwrap_or_default();
    let text = String::from_utf8_lossy(&body).trim().to_string();
    let (status, message) = match status {
        StatusCode::NOT_FOUND if text.is_empty() => {
            (status, "no such API route (docs/api.md lists them)".into())
        }
        StatusCode::METHOD_NOT_ALLOWED => (
            status,
            "this API route does not take that method (docs/api.md)".into(),
        ),
        StatusCode::UNSUPPORTED_MEDIA_TYPE | StatusCode::UNPROCESSABLE_ENTITY => {
            (StatusCode::BAD_REQUEST, framework_sentence(&text))
        }
        StatusCode::BAD_REQUEST => (status, framework_sentence(&text)),
        StatusCode::PAYLOAD_TOO_LARGE => (
            status,
            "the request body is over the API's limit of 2 MiB (docs/api.md)".into(),
        ),
        _ => (status, text),
    };
    (status, axum::Json(serde_json::json!({ "error": message }))).into_response()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_host_is_known_by_its_address_localhost_or_a_given_name() {
        let names = ["crawl.example.org".to_string()];
        for host in [
            "127.0.0.1:8480",
            "127.0.0.1",
            "[::1]:8480",
            "localhost:8480",
            "localhost.",
            "crawl.example.org",
            "crawl.example.org:443",
        ] {
            assert!(super::known(host, &names), "{host}");
        }
        for host in [
            "evil.example",
            "evil.example:8480",
            "127.0.0.1.nip.io:8480",
            "[evil]:80",
            "",
        ] {
            assert!(!super::known(host, &names), "{host}");
        }
    }

    /// xt37a F4: serde's Rust type names are not the API's words.
    #[test]
    fn a_body_refusal_names_json_not_rust_types() {
        let said = super::framework_sentence(
            "Failed to deserialize the JSON body into the target type: invalid length 0, expected struct \
             CreateJob with 4 elements at line 1 column 2",
        );
        assert!(said.contains("expected a JSON object at line 1"), "{said}");
        let said = super::framework_sentence(
            "Failed to deserialize the JSON body into the target type: delay_ms: invalid value: integer \
             `-1`, expected u64 at line 1 column 26",
        );
        assert!(
            said.contains("expected a whole number, 0 or more"),
            "{said}"
        );
        assert!(!said.contains("u64"), "{said}");
    }
}
