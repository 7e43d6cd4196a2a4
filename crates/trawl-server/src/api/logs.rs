//! crawl.log tail with filters, config-changes.log, and the crawl report.

use axum::{
    Json,
    extract::{Path, Query, State},
    http::header,
    response::{IntoResponse, Response},
};
use serde::Deserialize;

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

/// `?format=txt` for the text report.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Format {
    #[serde(default)]
    pub(crate) format: Option<String>,
}

pub(crate) async fn report(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Query(f): Query<Format>,
) -> Result<Response, ApiError> {
    let dir = s.jobs.job_dir(&id)?;
    let txt = f.format.as_deref() == Some("txt");
    let path = dir.join(if txt {
        "reports/crawl-report.txt"
    } else {
        "reports/crawl-report.json"
    });
    let text = std::fs::read_to_string(&path).map_err(|_| {
        ApiError::not_found(format!(
            "job {id:?} has no report yet (written when a run ends)"
        ))
    })?;
    let mime = if txt {
        "text/plain; charset=utf-8"
    } else {
        "application/json"
    };
    Ok(([(header::CONTENT_TYPE, mime)], text).into_response())
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
