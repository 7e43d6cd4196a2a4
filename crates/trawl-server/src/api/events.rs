//! Server-Sent Events: job status once a second.

use std::{convert::Infallible, time::Duration};

use axum::{
    extract::{Path, State},
    response::sse::{Event, KeepAlive, Sse},
};
use futures_util::Stream;

use crate::{ApiError, AppState};

pub(crate) async fn events(
    State(s): State<AppState>,
    Path(id): Path<String>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    s.jobs.status(&id)?;
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let stream = futures_util::stream::unfold((s, id, tick), |(s, id, mut tick)| async move {
        tick.tick().await;
        let status = s.jobs.status(&id).ok()?;
        let event = Event::default()
            .event("status")
            .json_data(&status)
            .unwrap_or_default();
        Some((Ok(event), (s, id, tick)))
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}
