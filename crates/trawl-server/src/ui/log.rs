//! The crawl.log viewer (filters: status, substring, last N) and the report page.

use axum::{
    Extension,
    extract::{Path, Query, State},
    response::{IntoResponse, Response},
};
use serde::Deserialize;

use super::{esc, jobs::error_page, page};
use crate::{
    AppState, Operator,
    api::logs::{LogFilter, tail_lines},
};

pub(crate) async fn show(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
    Path(id): Path<String>,
    Query(f): Query<LogFilter>,
) -> Response {
    let lines = match tail_lines(&s, &id, &f).await {
        Ok(l) => l,
        Err(e) => return error_page(&op, &e),
    };
    let text: String = lines.iter().map(|l| esc(l) + "\n").collect();
    let body = format!(
        r#"<p><a href="/jobs/{i}">back to the job</a></p><form method="get"><label>status <input name="status" size="5" value="{st}" placeholder="200, 4xx"></label> <label>contains <input name="contains" value="{co}"></label> <label>last <input name="last" size="5" value="{la}"></label> <button>filter</button></form><pre>{text}</pre>"#,
        i = esc(&id),
        st = esc(f.status.as_deref().unwrap_or("")),
        co = esc(f.contains.as_deref().unwrap_or("")),
        la = f.last.unwrap_or(100),
    );
    page(&op, &format!("crawl.log of {id}"), &body).into_response()
}

/// `?name=` of the report page.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ReportName {
    #[serde(default)]
    name: Option<String>,
}

pub(crate) async fn report(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
    Path(id): Path<String>,
    Query(q): Query<ReportName>,
) -> Response {
    let dir = match s.jobs.job_dir(&id) {
        Ok(d) => d,
        Err(e) => return error_page(&op, &e),
    };
    let name = q.name.unwrap_or_else(|| "crawl".to_string());
    let text = match crate::api::logs::get_report(&s, &id, &name).await {
        Ok(r) => r.text,
        Err(e) => e.message,
    };
    let tabs: Vec<String> = trawl_engine::report::NAMES
        .iter()
        .map(|n| {
            if *n == name {
                format!("<strong>{n}</strong>")
            } else {
                format!(
                    r#"<a href="/jobs/{i}/report?name={n}">{n}</a>"#,
                    i = esc(&id)
                )
            }
        })
        .collect();
    let changes = std::fs::read_to_string(dir.join("logs/config-changes.log")).unwrap_or_default();
    let body = format!(
        r#"<p><a href="/jobs/{i}">back to the job</a> · <a href="/api/jobs/{i}/report?name={n}">JSON</a></p><p>Reports: {tabs}</p><pre id="report">{t}</pre><h2>Operator changes</h2><pre id="changes">{c}</pre>"#,
        t = esc(&text),
        c = esc(&changes),
        n = esc(&name),
        tabs = tabs.join(" · "),
        i = esc(&id)
    );
    page(&op, &format!("{name} report of {id}"), &body).into_response()
}
