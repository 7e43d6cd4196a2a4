//! Crawls shared through Redis (`trawl serve --frontier`): every worker's view and crawl-wide actions.

use axum::{
    Extension, Json,
    extract::{Path, State},
};
use serde_json::{Value, json};

use crate::{ApiError, AppState, Operator, shared};

/// `GET /api/shared`: every shared crawl on the server, with its counts and workers.
pub(crate) async fn list(State(s): State<AppState>) -> Result<Json<Value>, ApiError> {
    let crawls = shared::all(&s).await?;
    Ok(Json(json!({
        // Its password never (xt16b F1): the answer goes wherever API answers go.
        "frontier": s.shared.as_deref().map(|url| trawl_frontier::without_password(url)),
        "crawls": crawls,
    })))
}

/// `GET /api/shared/{id}`: one shared crawl.
pub(crate) async fn status(
    State(s): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<shared::SharedView>, ApiError> {
    Ok(Json(shared::one(&s, &id).await?))
}

/// `POST /api/shared/{id}/{action}`: pause, unpause or stop every worker.
pub(crate) async fn action(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
    Path((id, action)): Path<(String, String)>,
) -> Result<Json<shared::SharedView>, ApiError> {
    Ok(Json(shared::act(&s, &op.who, &id, &action).await?))
}
