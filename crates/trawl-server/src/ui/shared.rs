//! The shared crawls page (`trawl serve --frontier`): crawl-wide counts, every worker, and the buttons
//! that pause, unpause or stop them all.

use axum::{
    Extension, Form,
    extract::{Path, State},
    response::{IntoResponse, Redirect, Response},
};
use serde::Deserialize;

use super::{csrf, esc, jobs::error_page, page};
use crate::{AppState, Operator, shared};

/// `GET /shared`.
pub(crate) async fn show(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
) -> Response {
    let crawls = match shared::all(&s).await {
        Ok(c) => c,
        Err(e) => return error_page(&op, &e),
    };
    let mut body = match s.shared.as_deref() {
        // Its password never (xt16b F1), as every message of the crawl shows it.
        Some(url) => format!(
            "<p>Redis: <code>{}</code></p>",
            esc(&trawl_frontier::without_password(url))
        ),
        None => {
            "<p>This server was started without <code>--frontier redis://HOST:PORT/DB</code>.</p>"
                .into()
        }
    };
    if crawls.is_empty() {
        body.push_str("<p>No shared crawls.</p>");
    }
    for c in crawls {
        let n = &c.counts;
        // A finished crawl has nothing to act on.
        let actions: &[&str] = if c.finished {
            &[]
        } else {
            &["pause", "unpause", "stop"]
        };
        let buttons: String = actions
            .iter()
            .map(|a| {
                format!(
                    r#"<form class="inline" method="post" action="/shared/{}/action/{a}">{}<button>{a}</button></form>"#,
                    esc(&c.name),
                    csrf(&op)
                )
            })
            .collect();
        let workers: String = c
            .workers
            .iter()
            .map(|w| {
                let alive = esc(w.state());
                format!(
                    "<tr><td>{}</td><td>{alive}</td><td>{}</td><td>{:.1}</td><td>{}</td></tr>",
                    esc(&w.worker),
                    w.done,
                    w.uris_per_s(),
                    w.leases
                )
            })
            .collect();
        body.push_str(&format!(
            "<h2>{name}</h2><p>state <strong>{state}</strong>: {done} done, {queued} queued, {flight} in flight, \
             {later} due later, {disc} discovered, {refused} refused before queued, {recl} leases reclaimed</p>\
             <p>{buttons}</p>\
             <table><tr><th>worker</th><th>state</th><th>done</th><th>URIs/s</th><th>leases</th></tr>{workers}</table>",
            name = esc(&c.name),
            state = if c.finished {
                "finished: nothing queued, in flight or due later".to_string()
            } else {
                esc(&c.state)
            },
            refused = n.refused,
            done = n.done,
            queued = n.queued,
            flight = n.in_flight,
            later = n.later,
            disc = n.discovered,
            recl = n.reclaimed,
        ));
    }
    page(&op, "Shared crawls", &body).into_response()
}

#[derive(Debug, Deserialize)]
pub(crate) struct ActionForm {}

/// `POST /shared/{id}/action/{action}`.
pub(crate) async fn action(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
    Path((id, action)): Path<(String, String)>,
    Form(_): Form<ActionForm>,
) -> Response {
    match shared::act(&s, &op.who, &id, &action).await {
        Ok(_) => Redirect::to("/shared").into_response(),
        Err(e) => error_page(&op, &e),
    }
}
