//! The web UI: server-rendered pages, every form carrying the session's CSRF token. Each page group has its
//! own file; [`page`] is the shared layout and [`esc`] the HTML escaper every interpolated value goes through.

use axum::{
    Router,
    response::Html,
    routing::{get, post},
};

use crate::{AppState, Operator};

mod config;
mod jobs;
mod log;
pub(crate) mod login;
mod queues;
mod settings;
mod shared;
mod url;

pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/", get(jobs::index).post(jobs::create))
        .route("/jobs/{id}", get(jobs::show))
        .route("/jobs/{id}/action/{action}", post(jobs::action))
        .route("/jobs/{id}/config", get(config::edit).post(config::save))
        .route("/jobs/{id}/queues", get(queues::show).post(queues::change))
        .route(
            "/jobs/{id}/settings",
            get(settings::show).post(settings::change),
        )
        .route("/jobs/{id}/log", get(log::show))
        .route("/jobs/{id}/report", get(log::report))
        .route("/url", get(url::tester))
        .route("/shared", get(shared::show))
        .route("/shared/{id}/action/{action}", post(shared::action))
        .route("/logout", post(login::logout))
}

/// `s` escaped for HTML text and attribute values.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The hidden CSRF field for a form.
pub(crate) fn csrf(op: &Operator) -> String {
    format!(
        r#"<input type="hidden" name="csrf" value="{}">"#,
        esc(op.csrf.as_deref().unwrap_or(""))
    )
}

const STYLE: &str = "body{font:15px/1.4 system-ui,sans-serif;margin:0;color:#222}header{background:#1d3557;color:#fff;padding:.6em 1em;display:flex;gap:1em;align-items:center}header a{color:#fff}main{padding:1em;max-width:70em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}pre{background:#f4f4f4;padding:.5em;overflow:auto}.err{color:#b00}.ok{color:#070}button{margin:.1em}form.inline{display:inline}textarea{width:100%;font-family:monospace}";

/// A whole page around `body`.
pub(crate) fn page(op: &Operator, title: &str, body: &str) -> Html<String> {
    Html(format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{t} · trawl</title><style>{STYLE}</style></head><body><header><strong>trawl</strong><a href="/">Jobs</a><a href="/url">URL tester</a><a href="/shared">Shared crawls</a><form class="inline" method="post" action="/logout">{c}<button>Log out</button></form></header><main><h1>{t}</h1>{body}</main></body></html>"#,
        t = esc(title),
        c = csrf(op),
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes() {
        assert_eq!(
            super::esc(r#"<a href="x">&'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
