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
        .with_state(state)
}
