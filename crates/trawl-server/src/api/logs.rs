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
    /// Signed, so that a negative count gets the range, not the framework's "invalid digit" (xt14b F11).
    pub(crate) last: Option<i64>,
}

fn status_matches(want: &str, got: &str) -> bool {
    match want.strip_suffix("xx") {
        Some(class) => got.len() == 3 && got.starts_with(class),
        None => want == got,
    }
}

/// Whether `want` is a status filter: a code (`200`, `-6`: digits, a minus sign first for a failure) or a
/// class (`4xx`).
fn status_filter_ok(want: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.len() <= 4 && s.bytes().all(|b| b.is_ascii_digit());
    match want.strip_suffix("xx") {
        Some(class) => class.len() == 1 && digits(class),
        None => digits(want.strip_prefix('-').unwrap_or(want)),
    }
}

/// The last matching lines of job `id`'s crawl.log, oldest first (shared with the UI). The log is read from
/// its end, in blocks, on a thread that may block: a tail of a log of gigabytes reads only as much as it
/// needs and holds at most its `last` lines.
pub(crate) async fn tail_lines(
    s: &AppState,
    id: &str,
    f: &LogFilter,
) -> Result<Vec<String>, ApiError> {
    let path = s.jobs.job_dir(id)?.join("logs/crawl.log");
    if let Some(n) = f.last.filter(|&n| n < 1) {
        return Err(ApiError::bad_request(format!(
            "last={n}: give `last` as a whole number of lines, 1-{MAX_LINES} (default 100)"
        )));
    }
    let last = f
        .last
        .map_or(100, |n| usize::try_from(n).unwrap_or(MAX_LINES))
        .min(MAX_LINES);
    let status = f.status.clone().filter(|w| !w.is_empty());
    if let Some(w) = status.as_deref().filter(|w| !status_filter_ok(w)) {
        return Err(ApiError::bad_request(format!(
            "status={w:?}: give `status` as a status code (200, 404, -6) or a class (4xx), or leave it out"
        )));
    }
    let contains = f.contains.clone();
    let read = tokio::task::spawn_blocking(move || {
        let mut lines = Vec::new();
        let wanted = |l: &str| {
            status
                .as_deref()
                .is_none_or(|want| status_matches(want, l.split_whitespace().nth(1).unwrap_or("")))
                && contains.as_deref().is_none_or(|c| l.contains(c))
        };
        let found = lines_backwards(&path, BLOCK, |line| {
            if wanted(line) {
                lines.push(line.to_owned());
            }
            lines.len() < last
        });
        match found {
            // A job that has not logged yet has no crawl.log: no lines.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
            Ok(()) => {}
        }
        lines.reverse();
        Ok(lines)
    });
    read.await
        .map_err(ApiError::internal)?
        .map_err(|e| ApiError::internal(format!("cannot read crawl.log: {e}")))
}

/// Bytes read from the end of the log at a time.
const BLOCK: u64 = 64 << 10;

/// Calls `each` with the lines of the file at `path`, read `block_len` bytes at a time, last first (lossily decoded, without line ends; no
/// empty line for the file's final line end), until it returns false.
fn lines_backwards(
    path: &std::path::Path,
    block_len: u64,
    mut each: impl FnMut(&str) -> bool,
) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path)?;
    let mut pos = file.metadata()?.len();
    // The start of the file's unread part's last line, whose beginning is in an earlier block.
    let mut partial: Vec<u8> = Vec::new();
    let mut at_end = true;
    while pos > 0 {
        let n = block_len.min(pos);
        pos -= n;
        let mut block = vec![0u8; n as usize];
        file.seek(SeekFrom::Start(pos))?;
        file.read_exact(&mut block)?;
        block.extend_from_slice(&partial);
        let mut end = block.len();
        while let Some(nl) = block[..end].iter().rposition(|&b| b == b'\n') {
            let line = &block[nl + 1..end];
            let skip = at_end && line.is_empty();
            at_end = false;
            if !skip && !each(&String::from_utf8_lossy(line)) {
                return Ok(());
            }
            end = nl;
        }
        partial = block[..end].to_vec();
    }
    if !partial.is_empty() || !at_end {
        each(&String::from_utf8_lossy(&partial));
    }
    Ok(())
}

pub(crate) async fn tail(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Query(f): Query<LogFilter>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let lines = tail_lines(&s, &id, &f).await?;
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

    /// Lines as `str::lines` gives them, last first.
    fn backwards(text: &[u8], block: u64) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crawl.log");
        std::fs::write(&path, text).unwrap();
        let mut lines = Vec::new();
        super::lines_backwards(&path, block, |l| {
            lines.push(l.to_owned());
            true
        })
        .unwrap();
        lines
    }

    #[test]
    fn lines_read_backwards_across_blocks() {
        let text = "first\n\nthird line\nfourth\n";
        for block in 1..=text.len() as u64 + 1 {
            assert_eq!(
                backwards(text.as_bytes(), block),
                ["fourth", "third line", "", "first"],
                "block {block}"
            );
        }
        assert_eq!(backwards(b"no end", 4), ["no end"]);
        assert_eq!(backwards(b"\n", 4), [""]);
        assert!(backwards(b"", 4).is_empty());
        assert_eq!(backwards(b"caf\xe9\n", 2), ["caf\u{fffd}"]);
    }

    proptest::proptest! {
        #[test]
        fn any_text_any_block_gives_the_lines_in_reverse(
            text in "[a\n]{0,40}",
            block in 1u64..50,
        ) {
            let mut want: Vec<String> = text.lines().map(str::to_owned).collect();
            want.reverse();
            proptest::prop_assert_eq!(backwards(text.as_bytes(), block), want);
        }
    }
}
