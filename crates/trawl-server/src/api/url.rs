//! The URL tester: identity, URL class and scope trace of a URL under a job's config (or the defaults).

use axum::{
    Json,
    extract::{Query, State},
};
use serde::Deserialize;
use trawl_config::CrawlConfig;

use crate::{ApiError, AppState};

/// The letters of a hop path.
const HOP_LETTERS: &str = "LERXPSI";

/// `GET /api/url` query.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct Explain {
    /// The URL (the UI's empty form has none).
    #[serde(default)]
    pub(crate) url: String,
    /// The job whose config judges it; the defaults when absent.
    #[serde(default)]
    pub(crate) job: Option<String>,
    /// The page it was found on. Default: the first seed.
    #[serde(default)]
    pub(crate) via: Option<String>,
    /// Its hop path. Default: `L`.
    #[serde(default)]
    pub(crate) hops: Option<String>,
}

/// The explanation (shared with the UI).
pub(crate) fn explain_url(s: &AppState, q: &Explain) -> Result<serde_json::Value, ApiError> {
    // A job whose config has wrong values is judged under it as written, its problems said beside the
    // verdict (xt14b F8): a seed outside the scope is what an operator comes here to understand.
    let (config, problems) = match q.job.as_deref().filter(|j| !j.is_empty()) {
        Some(id) => {
            let path = s.jobs.job_dir(id)?.join("crawl.toml");
            let own = std::fs::read_to_string(&path).unwrap_or_default();
            CrawlConfig::check_leniently(&path).map_err(|e| {
                ApiError::bad_request(super::written::unquoted(&e.to_string(), &own))
            })?
        }
        None => (CrawlConfig::default(), Vec::new()),
    };
    let bad = |e: String| ApiError::bad_request(e);
    let id = config.identity.build().map_err(|e| bad(e.to_string()))?;
    let classes = config.compile_classes().map_err(|e| bad(e.to_string()))?;
    if q.url.trim().is_empty() {
        return Err(bad(
            "url: no URL to test: give it as `?url=…` (with `job=ID` to judge it under that job's config)"
                .to_owned(),
        ));
    }
    let url = trawl_url::parse_lenient(&q.url).map_err(|e| bad(e.to_string()))?;
    let via = match q.via.as_deref().filter(|v| !v.is_empty()) {
        Some(v) => Some(trawl_config::explain::parse_via(v).map_err(|e| bad(format!("via: {e}")))?),
        None => None,
    };
    let hops = q.hops.as_deref().filter(|h| !h.is_empty());
    // As the command line checks its hop path: a typo would otherwise judge some other path.
    if let Some(h) = hops
        && let Some(c) = h.chars().find(|c| !HOP_LETTERS.contains(*c))
    {
        return Err(bad(format!(
            "hops {h:?}: {c:?} is not a hop letter: give `hops` as letters of L E R X P S I (L a link, E an \
             embed, R a redirect, X a speculative link, P a prerequisite, S a sitemap entry, I an inferred \
             URL), or leave it out for L"
        )));
    }
    let mut verdict = trawl_config::explain::explain_json(
        &config,
        &classes,
        &id,
        via.as_ref(),
        hops,
        &q.url,
        &url,
    );
    if !problems.is_empty() {
        verdict["config_problems"] = problems.iter().map(ToString::to_string).collect();
    }
    Ok(verdict)
}

pub(crate) async fn explain(
    State(s): State<AppState>,
    Query(q): Query<Explain>,
) -> Result<Json<serde_json::Value>, ApiError> {
    super::off_runtime(move || explain_url(&s, &q))
        .await
        .map(Json)
}
