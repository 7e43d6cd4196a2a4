//! Prometheus text format: `/metrics` over the server's jobs, and [`render`] for `trawl crawl
//! --metrics-bind`.

use std::fmt::Write;

use axum::{extract::State, http::header, response::IntoResponse};
use trawl_engine::stats::{LATENCY_BOUNDS_MS, Latency};

use crate::{AppState, JobStatus};

/// What the metrics say of one job.
#[derive(Debug, Clone)]
pub struct JobMetrics {
    /// The job's status and counters.
    pub status: JobStatus,
    /// Its fetch latencies.
    pub latency: Latency,
    /// Bytes of its WARC files.
    pub warc_bytes: u64,
}

impl JobMetrics {
    /// The metrics of the job in `dir` with `status` and `latency`.
    pub fn new(dir: &std::path::Path, status: JobStatus, latency: Latency) -> JobMetrics {
        JobMetrics {
            status,
            latency,
            warc_bytes: warc_bytes(dir),
        }
    }
}

fn warc_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir.join("warcs"))
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.file_name().to_string_lossy().contains(".warc"))
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// A label value escaped as the text format requires.
fn label(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// The Prometheus text for `jobs`, one series per job (label `job`).
pub fn render(jobs: &[JobMetrics]) -> String {
    let mut out = String::new();
    type Get = fn(&JobMetrics) -> f64;
    let series: [(&str, &str, &str, Get); 11] = [
        (
            "trawl_uris_finished_total",
            "counter",
            "URIs finished.",
            |j| j.status.counters.finished as f64,
        ),
        (
            "trawl_uris_succeeded_total",
            "counter",
            "URIs finished with an HTTP response.",
            |j| j.status.counters.succeeded as f64,
        ),
        (
            "trawl_uris_failed_total",
            "counter",
            "URIs finished without a response.",
            |j| j.status.counters.failed as f64,
        ),
        (
            "trawl_uris_disregarded_total",
            "counter",
            "URIs the crawl chose not to fetch (scope, robots.txt, budget, address policy).",
            |j| j.status.counters.disregarded as f64,
        ),
        (
            "trawl_uris_queued",
            "gauge",
            "URIs waiting in the frontier.",
            |j| j.status.counters.queued as f64,
        ),
        (
            "trawl_uris_in_flight",
            "gauge",
            "URIs being processed.",
            |j| j.status.counters.in_flight as f64,
        ),
        (
            "trawl_uris_discovered",
            "gauge",
            "Distinct URIs discovered.",
            |j| j.status.counters.discovered as f64,
        ),
        ("trawl_queues_active", "gauge", "Queues with work.", |j| {
            j.status.counters.active_queues as f64
        }),
        (
            "trawl_wire_bytes_total",
            "counter",
            "Bytes received.",
            |j| j.status.counters.wire_bytes as f64,
        ),
        (
            "trawl_warc_bytes",
            "gauge",
            "Bytes of WARC files in the job.",
            |j| j.warc_bytes as f64,
        ),
        (
            "trawl_job_running",
            "gauge",
            "1 while the job's crawl runs.",
            |j| {
                f64::from(u8::from(matches!(
                    j.status.state.as_str(),
                    "running" | "paused" | "stopping"
                )))
            },
        ),
    ];
    for (name, kind, help, get) in series {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
        for j in jobs {
            let _ = writeln!(out, "{name}{{job=\"{}\"}} {}", label(&j.status.id), get(j));
        }
    }
    let name = "trawl_fetch_duration_seconds";
    let _ = writeln!(
        out,
        "# HELP {name} Time from sending a request to the end of its response.\n# TYPE {name} histogram"
    );
    for j in jobs {
        let id = label(&j.status.id);
        let mut cumulative = 0;
        for (i, bound) in LATENCY_BOUNDS_MS.iter().enumerate() {
            cumulative += j.latency.counts.get(i).copied().unwrap_or(0);
            let le = *bound as f64 / 1000.0;
            let _ = writeln!(
                out,
                "{name}_bucket{{job=\"{id}\",le=\"{le}\"}} {cumulative}"
            );
        }
        let count = j.latency.count();
        let _ = writeln!(out, "{name}_bucket{{job=\"{id}\",le=\"+Inf\"}} {count}");
        let _ = writeln!(out, "{name}_sum{{job=\"{id}\"}} {}", j.latency.sum_s);
        let _ = writeln!(out, "{name}_count{{job=\"{id}\"}} {count}");
    }
    out
}

/// The content type of the text format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4";

pub(crate) async fn metrics(State(s): State<AppState>) -> impl IntoResponse {
    let jobs: Vec<JobMetrics> = s
        .jobs
        .ids()
        .iter()
        .filter_map(|id| {
            let status = s.jobs.status(id).ok()?;
            let dir = s.jobs.job_dir(id).ok()?;
            Some(JobMetrics::new(&dir, status, s.jobs.latency(id)))
        })
        .collect();
    ([(header::CONTENT_TYPE, CONTENT_TYPE)], render(&jobs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_is_cumulative_and_labels_escaped() {
        let mut counts = vec![0; LATENCY_BOUNDS_MS.len() + 1];
        counts[0] = 2;
        counts[4] = 1;
        counts[LATENCY_BOUNDS_MS.len()] = 1;
        let status = JobStatus {
            id: "a\"b".into(),
            state: "running".into(),
            ending: None,
            counters: crate::Counters::default(),
            checkpoints: Vec::new(),
        };
        let text = render(&[JobMetrics {
            status,
            latency: Latency {
                counts,
                sum_s: 90.5,
            },
            warc_bytes: 7,
        }]);
        for want in [
            "trawl_fetch_duration_seconds_bucket{job=\"a\\\"b\",le=\"0.005\"} 2",
            "trawl_fetch_duration_seconds_bucket{job=\"a\\\"b\",le=\"0.1\"} 3",
            "trawl_fetch_duration_seconds_bucket{job=\"a\\\"b\",le=\"60\"} 3",
            "trawl_fetch_duration_seconds_bucket{job=\"a\\\"b\",le=\"+Inf\"} 4",
            "trawl_fetch_duration_seconds_count{job=\"a\\\"b\"} 4",
            "trawl_fetch_duration_seconds_sum{job=\"a\\\"b\"} 90.5",
            "trawl_warc_bytes{job=\"a\\\"b\"} 7",
            "trawl_job_running{job=\"a\\\"b\"} 1",
        ] {
            assert!(text.contains(want), "{want}\n{text}");
        }
    }
}
