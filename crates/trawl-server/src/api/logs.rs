//! crawl.log tail with filters, config-changes.log, and the reports.

use axum::{
    Json,
    extract::{Path, Query, State},
    http::header,
    response::{IntoResponse, Response},
};
use serde::Deserialize;

use trawl_engine::{
    control::{Command, Reply},
    report,
};

use crate::{ApiError, AppState};

/// Most lines one tail returns. Default: 10,000.
const MAX_LINES: usize = 10_000;

/// `GET /api/jobs/{id}/log` filters.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct LogFilter {
    /// A status code (`200`, `-6`) or a class (`4xx`).
    #[serde(default)]
    pub(crate) status: Option<String>,
    /// A substring the line must contain.
    #[serde(default)]
    pub(crate) contains: Option<String>,
    /// How many of the last matching lines. Default: 100.
    #[serde(default)]
    pub(crate) last: Option<usize>,
}

fn status_matches(want: &str, got: &str) -> bool {
    match want.strip_suffix("xx") {
        Some(class) => got.len() == 3 && got.starts_with(class),
        None => want == got,
    }
}

/// The last matching lines of job `id`'s crawl.log, oldest first (shared with the UI).
pub(crate) fn tail_lines(s: &AppState, id: &str, f: &LogFilter) -> Result<Vec<String>, ApiError> {
    let dir = s.jobs.job_dir(id)?;
    let text = std::fs::read_to_string(dir.join("logs/crawl.log")).unwrap_or_default();
    let last = f.last.unwrap_or(100).min(MAX_LINES);
    let mut lines: Vec<String> = text
        .lines()
        .rev()
        .filter(|l| {
            f.status.as_deref().is_none_or(|want| {
                want.is_empty() || status_matches(want, l.split_whitespace().nth(1).unwrap_or(""))
            })
        })
        .filter(|l| f.contains.as_deref().is_none_or(|c| l.contains(c)))
        .take(last)
        .map(str::to_string)
        .collect();
    lines.reverse();
    Ok(lines)
}

pub(crate) async fn tail(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Query(f): Query<LogFilter>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let lines = tail_lines(&s, &id, &f)?;
    Ok(Json(serde_json::json!({ "lines": lines })))
}

pub(crate) async fn changes(
    State(s): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let dir = s.jobs.job_dir(&id)?;
    let text = std::fs::read_to_string(dir.join("logs/config-changes.log")).unwrap_or_default();
    Ok(Json(
        serde_json::json!({ "lines": text.lines().collect::<Vec<_>>() }),
    ))
}

/// `?name=&format=` of a report.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ReportQuery {
    /// One of [`report::NAMES`]. Default: crawl.
    #[serde(default)]
    pub(crate) name: Option<String>,
    /// `txt` or `json`. Default: json.
    #[serde(default)]
    pub(crate) format: Option<String>,
}

/// Report `name` of job `id`: computed now from its running crawl, or its last run's from `JOB/reports/`
/// (shared with the UI).
pub(crate) async fn get_report(
    s: &AppState,
    id: &str,
    name: &str,
) -> Result<report::Report, ApiError> {
    let dir = s.jobs.job_dir(id)?;
    if !report::NAMES.contains(&name) {
        return Err(ApiError::bad_request(format!(
            "no report {name:?}; the reports are {}",
            report::NAMES.join(", ")
        )));
    }
    if let Some(handle) = s.jobs.handle(id)
        && let Reply::Reports { reports } = handle.send(Command::Reports).await
        && let Some(r) = reports.into_iter().find(|r| r.name == name)
    {
        return Ok(r);
    }
    let (txt, json) = report::Report::files(name);
    let read = |f: &str| std::fs::read_to_string(dir.join("reports").join(f));
    match (read(&txt), read(&json)) {
        (Ok(text), Ok(json)) => Ok(report::Report {
            name: name.to_string(),
            text,
            json: serde_json::from_str(&json).map_err(ApiError::internal)?,
        }),
        _ => Err(ApiError::not_found(format!(
            "job {id:?} has no {name} report yet (computed while it runs, written when a run ends)"
        ))),
    }
}

pub(crate) async fn report(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<ReportQuery>,
) -> Result<Response, ApiError> {
    let r = get_report(&s, &id, q.name.as_deref().unwrap_or("crawl")).await?;
    Ok(match q.format.as_deref() {
        Some("txt") => (
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            r.text,
        )
            .into_response(),
        None | Some("json") => Json(r.json).into_response(),
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "format {other:?}: use txt or json"
            )));
        }
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn status_filter() {
        for (want, got, ok) in [
            ("200", "200", true),
            ("2xx", "204", true),
            ("4xx", "200", false),
            ("-6", "-6", true),
            ("2xx", "-2", false),
        ] {
            assert_eq!(super::status_matches(want, got), ok, "{want} {got}");
        }
    }
}
