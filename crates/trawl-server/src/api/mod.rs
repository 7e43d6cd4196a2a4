//! The REST API under `/api` (JSON; see docs/api.md). Each route group has its own file.

use axum::{
    Router,
    routing::{get, post},
};

use crate::{ApiError, AppState};

/// Runs `f`, which reads the files a job's config names (its checks), off the async threads: a file whose read
/// blocks (a FIFO, a hung network share) holds one blocking thread and its request, not the server and every
/// crawl in it (xt37a F12).
pub(crate) async fn off_runtime<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(ApiError::internal)?
}

mod events;
pub(crate) mod jobs;
pub(crate) mod lifecycle;
pub(crate) mod logs;
pub(crate) mod queues;
mod shared;
pub(crate) mod url;
pub(crate) mod written;

/// Every API route, for docs/api.md's check.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/profiles", get(jobs::profiles))
        .route("/api/jobs", get(jobs::list).post(jobs::create))
        .route("/api/jobs/{id}", get(jobs::status))
        .route(
            "/api/jobs/{id}/config",
            get(jobs::get_config).put(jobs::put_config),
        )
        .route("/api/jobs/{id}/build", post(jobs::build))
        .route("/api/jobs/{id}/settings", post(jobs::settings))
        .route("/api/jobs/{id}/launch", post(lifecycle::launch))
        .route("/api/jobs/{id}/pause", post(lifecycle::pause))
        .route("/api/jobs/{id}/unpause", post(lifecycle::unpause))
        .route("/api/jobs/{id}/checkpoint", post(lifecycle::checkpoint))
        .route("/api/jobs/{id}/terminate", post(lifecycle::terminate))
        .route("/api/jobs/{id}/teardown", post(lifecycle::teardown))
        .route("/api/jobs/{id}/seeds", post(queues::add_seeds))
        .route("/api/jobs/{id}/queues", get(queues::list))
        .route("/api/jobs/{id}/queues/{queue}", post(queues::change))
        .route("/api/jobs/{id}/lookup", get(queues::lookup))
        .route("/api/jobs/{id}/log", get(logs::tail))
        .route("/api/jobs/{id}/changes", get(logs::changes))
        .route("/api/jobs/{id}/report", get(logs::report))
        .route("/api/jobs/{id}/events", get(events::events))
        .route("/api/url", get(url::explain))
        .route("/api/shared", get(shared::list))
        .route("/api/shared/{id}", get(shared::status))
        .route("/api/shared/{id}/{action}", post(shared::action))
}
