//! `/metrics`: Prometheus text format, one series per job.

use std::fmt::Write;

use axum::{extract::State, http::header, response::IntoResponse};

use crate::AppState;

fn warc_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir.join("warcs"))
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

pub(crate) async fn metrics(State(s): State<AppState>) -> impl IntoResponse {
    let statuses: Vec<_> = s
        .jobs
        .ids()
        .iter()
        .filter_map(|id| s.jobs.status(id).ok())
        .collect();
    let mut out = String::new();
    type Get = fn(&crate::JobStatus) -> f64;
    let series: [(&str, &str, &str, Get); 9] = [
        (
            "trawl_uris_finished_total",
            "counter",
            "URIs finished.",
            |j| j.counters.finished as f64,
        ),
        (
            "trawl_uris_succeeded_total",
            "counter",
            "URIs finished with an HTTP response.",
            |j| j.counters.succeeded as f64,
        ),
        (
            "trawl_uris_failed_total",
            "counter",
            "URIs finished without a response.",
            |j| j.counters.failed as f64,
        ),
        (
            "trawl_uris_queued",
            "gauge",
            "URIs waiting in the frontier.",
            |j| j.counters.queued as f64,
        ),
        (
            "trawl_uris_in_flight",
            "gauge",
            "URIs being processed.",
            |j| j.counters.in_flight as f64,
        ),
        (
            "trawl_uris_discovered",
            "gauge",
            "Distinct URIs discovered.",
            |j| j.counters.discovered as f64,
        ),
        ("trawl_queues_active", "gauge", "Queues with work.", |j| {
            j.counters.active_queues as f64
        }),
        (
            "trawl_wire_bytes_total",
            "counter",
            "Bytes received.",
            |j| j.counters.wire_bytes as f64,
        ),
        (
            "trawl_job_running",
            "gauge",
            "1 while the job's crawl runs.",
            |j| {
                f64::from(u8::from(matches!(
                    j.state.as_str(),
                    "running" | "paused" | "stopping"
                )))
            },
        ),
    ];
    for (name, kind, help, get) in series {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
        for j in &statuses {
            let _ = writeln!(out, "{name}{{job=\"{}\"}} {}", j.id, get(j));
        }
    }
    let _ = writeln!(
        out,
        "# HELP trawl_warc_bytes Bytes of WARC files in the job.\n# TYPE trawl_warc_bytes gauge"
    );
    for j in &statuses {
        if let Ok(dir) = s.jobs.job_dir(&j.id) {
            let _ = writeln!(
                out,
                "trawl_warc_bytes{{job=\"{}\"}} {}",
                j.id,
                warc_bytes(&dir)
            );
        }
    }
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], out)
}
