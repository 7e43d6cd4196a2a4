//! Server-Sent Events: job status once a second, for as long as the session that opened the stream lasts.

use std::{convert::Infallible, time::Duration};

use axum::{
    Extension,
    extract::{Path, State},
    response::sse::{Event, KeepAlive, Sse},
};
use futures_util::Stream;

use crate::{ApiError, AppState, Operator};

pub(crate) async fn events(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
    Path(id): Path<String>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    s.jobs.status(&id)?;
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let state = (s, id, op.session, tick);
    let stream = futures_util::stream::unfold(state, |(s, id, session, mut tick)| async move {
        tick.tick().await;
        // A log-out ends the streams its session opened (xt9a F12); a token's stream lasts.
        if session
            .as_deref()
            .is_some_and(|sid| s.auth.session(sid).is_none())
        {
            return None;
        }
        let status = s.jobs.status(&id).ok()?;
        let event = Event::default()
            .event("status")
            .json_data(&status)
            .unwrap_or_default();
        Some((Ok(event), (s, id, session, tick)))
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}
