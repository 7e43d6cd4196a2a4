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
mod changes;
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
}

impl AppState {
    /// State over `jobs` guarded by `auth`.
    pub fn new(jobs: JobManager, auth: Auth) -> AppState {
        AppState {
            jobs: Arc::new(jobs),
            auth: Arc::new(auth),
            shared: None,
        }
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
        .layer(middleware::from_fn(no_framing))
        .with_state(state)
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
            (StatusCode::BAD_REQUEST, text)
        }
        StatusCode::PAYLOAD_TOO_LARGE => (
            status,
            "the request body is over the API's limit of 2 MiB (docs/api.md)".into(),
        ),
        _ => (status, text),
    };
    (status, axum::Json(serde_json::json!({ "error": message }))).into_response()
}
