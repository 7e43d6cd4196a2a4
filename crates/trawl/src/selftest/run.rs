//! The self-test run: serve the site, crawl it with politeness off, and judge the outcome.

use std::path::{Path, PathBuf};

use trawl_config::CrawlConfig;
use trawl_engine::{Crawl, CrawlHandle, Summary, crawl_log};

use super::{
    checks::{self, CheckResult, Outcome, SELFTEST_MAX_RETRIES, WarcRec},
    site,
};

/// The crawl settings the self-test uses: the defaults, with politeness off and small limits so every trap
/// shows quickly.
pub fn config() -> CrawlConfig {
    let mut c = CrawlConfig::default();
    c.frontier.delay_factor = 0.0;
    c.frontier.min_delay_ms = 0;
    c.frontier.max_delay_ms = 0;
    c.frontier.max_retries = SELFTEST_MAX_RETRIES;
    c.frontier.retry_delay_ms = 50;
    c.fetch.timeout_ms = 1_000;
    c.fetch.connect_timeout_ms = 1_000;
    c.fetch.header_timeout_ms = 1_000;
    c.fetch.max_bytes = 256 << 10;
    c.fetch.max_connections = 4;
    c.warc.prefix = "selftest".into();
    c
}

/// What a self-test produced.
#[derive(Debug)]
pub struct Report {
    /// One result per scenario.
    pub results: Vec<CheckResult>,
    /// The crawl's own summary.
    pub summary: Summary,
}

impl Report {
    /// Whether every scenario passed.
    pub fn passed(&self) -> bool {
        self.results.iter().all(|r| r.passed)
    }
}

/// Serves the test site, crawls it into `job_dir`, and checks every scenario.
pub async fn run(job_dir: &Path, config: CrawlConfig) -> anyhow::Result<Report> {
    let site = site::start().await?;
    let crawl = Crawl::new(job_dir, config, &[site.seed()])?;
    let summary = crawl.run(CrawlHandle::default(), |_| {}).await?;
    let log_text = std::fs::read_to_string(job_dir.join("logs/crawl.log"))?;
    let log = crawl_log::parse(&log_text)?;
    let mut warcs: Vec<PathBuf> = summary.warcs.clone();
    warcs.sort();
    let mut records = Vec::new();
    let mut verify_errors = Vec::new();
    for path in &warcs {
        if let Err(e) = trawl_warc::verify(path) {
            verify_errors.push(e.to_string());
        }
        for rec in trawl_warc::open(path)? {
            let rec = rec?;
            records.push(WarcRec {
                warc_type: rec.get("WARC-Type").unwrap_or_default().to_string(),
                target_uri: rec.get("WARC-Target-URI").map(str::to_string),
                headers: rec.header.clone(),
                block: rec.block,
            });
        }
    }
    let outcome = Outcome {
        site: &site,
        log,
        records,
        verify_errors,
        warc_files: warcs.len(),
    };
    let results = checks::run_all(&outcome);
    site.shutdown().await;
    Ok(Report { results, summary })
}
