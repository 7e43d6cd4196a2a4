//! The queues page: every queue with its state and counts, and forms to pause, retire, delay or budget it.

use axum::{
    Extension, Form,
    extract::{Path, State},
    response::{IntoResponse, Redirect, Response},
};
use serde::Deserialize;
use trawl_engine::control::{Command, Reply};

use super::{csrf, esc, jobs::error_page, page};
use crate::{
    ApiError, AppState, Operator,
    api::queues::{QueueChange, command, queue_command},
};

pub(crate) async fn show(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
    Path(id): Path<String>,
) -> Response {
    let queues = match command(&s, &op.who, &id, Command::Queues).await {
        Ok(Reply::Queues { queues }) => queues,
        Ok(_) => Vec::new(),
        Err(e) => return error_page(&op, &e),
    };
    let opt = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
    let rows: String = queues
        .iter()
        .map(|q| {
            format!(
                r#"<tr><td>{n}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><form class="inline" method="post">{c}<input type="hidden" name="queue" value="{n}"><select name="action"><option>pause</option><option>unpause</option><option>retire</option><option>delete</option><option>delay</option><option>budget</option></select> <input name="value" size="6" placeholder="ms / URIs; empty clears"> <button>apply</button></form></td></tr>"#,
                esc(&q.state),
                q.queued,
                q.in_flight,
                q.spent,
                opt(q.budget),
                opt(q.delay_ms),
                q.wait_ms,
                n = esc(&q.name),
                c = csrf(&op)
            )
        })
        .collect();
    let body = format!(
        r#"<p><a href="/jobs/{i}">back to the job</a></p><table><tr><th>queue</th><th>state</th><th>queued</th><th>busy</th><th>spent</th><th>budget</th><th>delay ms</th><th>wait ms</th><th>change</th></tr>{rows}</table>
<h2>Add seeds</h2><form method="post">{c}<input type="hidden" name="action" value="seeds"><textarea name="value" rows="3"></textarea><br><button>Add</button></form>"#,
        i = esc(&id),
        c = csrf(&op)
    );
    page(&op, &format!("Queues of {id}"), &body).into_response()
}

#[derive(Debug, Deserialize)]
pub(crate) struct ChangeForm {
    #[serde(default)]
    queue: String,
    action: String,
    #[serde(default)]
    value: String,
}

pub(crate) async fn change(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
    Path(id): Path<String>,
    Form(f): Form<ChangeForm>,
) -> Response {
    let value = f.value.trim();
    // Empty clears (the computed delay, no budget); anything else must be a whole number: "5s" or "1,000"
    // taken as "clear" would remove the very delay or budget the operator meant to set.
    let number = match value {
        "" => None,
        v if matches!(f.action.as_str(), "delay" | "budget") => match v.parse::<u64>() {
            Ok(n) => Some(n),
            Err(e) => {
                let what = if *e.kind() == std::num::IntErrorKind::PosOverflow {
                    "is too large a number"
                } else {
                    "is not a whole number"
                };
                return error_page(
                    &op,
                    &ApiError::bad_request(format!(
                        "{v:?} {what}: give the {} as digits only ({}), or leave the field empty to clear it",
                        if f.action == "delay" {
                            "delay in milliseconds"
                        } else {
                            "budget in URIs"
                        },
                        if f.action == "delay" {
                            "5000 for 5 s"
                        } else {
                            "1000"
                        },
                    )),
                );
            }
        },
        _ => None,
    };
    let cmd = if f.action == "seeds" {
        let urls = value
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect();
        crate::api::queues::seeds_command(urls, "the Add seeds box")
    } else {
        queue_command(
            f.queue,
            &QueueChange {
                action: f.action,
                delay_ms: number,
                budget: number,
            },
        )
    };
    match cmd {
        Ok(cmd) => match command(&s, &op.who, &id, cmd).await {
            Ok(_) => Redirect::to(&format!("/jobs/{id}/queues")).into_response(),
            Err(e) => error_page(&op, &e),
        },
        Err(e) => error_page(&op, &e),
    }
}
