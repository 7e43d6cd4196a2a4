//! The crawl.log viewer (filters: status, substring, last N) and the report page.

use axum::{
    Extension,
    extract::{Path, Query, State},
    response::{IntoResponse, Response},
};

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
    let lines = match tail_lines(&s, &id, &f) {
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

pub(crate) async fn report(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
    Path(id): Path<String>,
) -> Response {
    let dir = match s.jobs.job_dir(&id) {
        Ok(d) => d,
        Err(e) => return error_page(&op, &e),
    };
    let text = std::fs::read_to_string(dir.join("reports/crawl-report.txt"))
        .unwrap_or_else(|_| "No report yet: it is written when a run ends.".to_string());
    let changes = std::fs::read_to_string(dir.join("logs/config-changes.log")).unwrap_or_default();
    let body = format!(
        r#"<p><a href="/jobs/{i}">back to the job</a> · <a href="/api/jobs/{i}/report">JSON</a></p><pre id="report">{}</pre><h2>Operator changes</h2><pre>{}</pre>"#,
        esc(&text),
        esc(&changes),
        i = esc(&id)
    );
    page(&op, &format!("Report of {id}"), &body).into_response()
}
