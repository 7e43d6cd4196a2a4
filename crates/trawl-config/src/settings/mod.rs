//! Crawl configuration: typed settings with safe defaults, loaded from `crawl.toml`.
//!
//! Unknown keys are errors, so a misspelt setting never silently falls back to its default.

pub mod access;
mod addresses;
pub mod browser;
mod edit;
mod files;
pub mod filters;
mod host_name;
mod load;
pub mod named_file;
pub mod problem;
pub mod profiles;
pub mod rules;
pub mod seed_list;
mod semantics;
pub mod sheets;

use std::{path::Path, time::Duration};

use serde::{Deserialize, Serialize};

use trawl_url::class::{UrlClassDef, UrlClasses};

pub use self::{
    access::{
        CookieMode, CredentialKind, CredentialSpec, LoggedOut, LoginSuccess, Proxy, ProxyKind,
    },
    browser::{BrowserConfig, BrowserMode},
    filters::{FilterMode, FiltersConfig, TextFilterSpec, UrlFilterSpec},
    problem::{ConfigError, Problem, Stage},
    rules::{DecideConfig, RuleSpec},
    sheets::SheetSpec,
};
use crate::LoadError;

/// Settings read once when a crawl starts: a change to them is saved and takes effect at the next launch, and
/// a sheet that sets one changes nothing (but for [`SHEETS_SET_AT_LAUNCH`]).
pub const READ_AT_LAUNCH: &[&str] = &[
    "fetch.max_connections",
    "fetch.max_connections_per_host",
    "fetch.allow_addresses",
    "fetch.user_agent",
    "fetch.dns_servers",
    "frontier.queue_assignment",
    "frontier.parallel_queues",
    "frontier.bloom_items",
    "frontier.bloom_fp_rate",
    "frontier.uniq",
    "frontier.checkpoint_interval_s",
    "frontier.lease_ms",
    "frontier.max_uris_per_host",
    "frontier.max_active_queues",
    "frontier.balance_replenish",
];

/// Settings of [`READ_AT_LAUNCH`] fixed for a job's life: its queued URIs are stored under queues they name,
/// so a resume with another value would split a host over two queues, each polite and budgeted alone (xt14b
/// F1). `trawl ctl JOB set` refuses them; a new job takes a new value.
pub const FIXED_FOR_THE_JOB: &[&str] = &["frontier.queue_assignment", "frontier.parallel_queues"];

/// The first setting of [`FIXED_FOR_THE_JOB`] that differs between `old` and `new`.
pub fn fixed_for_the_job_changed(old: &CrawlConfig, new: &CrawlConfig) -> Option<&'static str> {
    fixed_setting_differing(&fixed_for_the_job(old), new).map(|(path, _, _)| path)
}

/// The first setting of [`FIXED_FOR_THE_JOB`] whose value in `config` differs from the one `recorded` (a
/// table of them, as [`fixed_for_the_job`] gives) holds, with the recorded value and the config's; a setting
/// `recorded` lacks is not compared.
pub fn fixed_setting_differing(
    recorded: &toml::Table,
    config: &CrawlConfig,
) -> Option<(&'static str, toml::Value, toml::Value)> {
    let now = fixed_for_the_job(config);
    FIXED_FOR_THE_JOB.iter().copied().find_map(|path| {
        let (was, is) = (setting_at(recorded, path)?, setting_at(&now, path)?);
        (was != is).then(|| (path, was.clone(), is.clone()))
    })
}

/// The settings of [`FIXED_FOR_THE_JOB`] in `config`, as a TOML document of those alone (what a job
/// records of them when it starts).
pub fn fixed_for_the_job(config: &CrawlConfig) -> toml::Table {
    let Ok(toml::Value::Table(whole)) = toml::Value::try_from(config) else {
        return toml::Table::new();
    };
    let mut out = toml::Table::new();
    for path in FIXED_FOR_THE_JOB {
        let (Some(value), Some((section, key))) = (setting_at(&whole, path), path.split_once('.'))
        else {
            continue;
        };
        if let toml::Value::Table(t) = out
            .entry(section)
            .or_insert_with(|| toml::Value::Table(toml::Table::new()))
        {
            t.insert(key.to_owned(), value.clone());
        }
    }
    out
}

/// The value at the dotted `path` (`frontier.queue_assignment`) of a config's TOML form.
pub fn setting_at<'t>(config: &'t toml::Table, path: &str) -> Option<&'t toml::Value> {
    let (first, rest) = path.split_once('.').unwrap_or((path, ""));
    let value = config.get(first)?;
    if rest.is_empty() {
        return Some(value);
    }
    setting_at(value.as_table()?, rest)
}

/// Settings of [`READ_AT_LAUNCH`] that a sheet still sets for the URIs it applies to: the frontier reads a
/// queue's budget from the sheet of its first URI (docs/frontier.md, "Budgets per SURT prefix"), so only a
/// live change of the crawl's own value waits for the next launch (xt12a F14: `trawl check` said a sheet's
/// budget changed nothing).
pub const SHEETS_SET_AT_LAUNCH: &[&str] = &["frontier.max_uris_per_host"];

/// Whether a sheet setting `key` changes nothing: it is read once for the whole crawl.
pub fn sheet_cannot_set(key: &str) -> bool {
    READ_AT_LAUNCH.contains(&key) && !SHEETS_SET_AT_LAUNCH.contains(&key)
}

impl CrawlConfig {
    /// Whether any URI may be recrawled conditionally: `fetch.conditional_recrawl` for the whole crawl or in
    /// a sheet, so the earlier crawl's validators are read at launch (xt21b F6: a sheet turning it on did
    /// nothing, as none were read).
    pub fn conditional_recrawl_anywhere(&self) -> bool {
        self.fetch.conditional_recrawl
            || self.sheets.iter().any(|sheet| {
                sheet
                    .set
                    .get("fetch.conditional_recrawl")
                    .and_then(toml::Value::as_bool)
                    == Some(true)
            })
    }
}

/// Every setting of a crawl. Each section's defaults are those of the default profile.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CrawlConfig {
    /// Other config files merged under this one (relative to it); this file wins on conflicts, and their
    /// `url_class` and `sheet` entries are added (this file's win on a name clash). Default: none.
    pub include: Vec<std::path::PathBuf>,
    /// Seeds to start from, in addition to those given on the command line.
    pub seeds: SeedsConfig,
    /// Politeness and retries.
    pub frontier: FrontierConfig,
    /// How URIs are fetched.
    pub fetch: FetchConfig,
    /// Which URIs are in scope.
    pub scope: ScopeConfig,
    /// How archives are written.
    pub warc: WarcConfig,
    /// URL class libraries to load, and how class-aware crawling behaves.
    pub classes: ClassesConfig,
    /// URL classes defined inline (`[[url_class]]` tables; see docs/url-classes.md).
    #[serde(rename = "url_class")]
    pub url_classes: Vec<UrlClassDef>,
    /// How URLs are named: uniq-key canonicalizer, tracking parameters, site rewrites.
    pub identity: IdentityConfig,
    /// Decide sequences gating later points: before fetch, after the response head, before writing.
    pub decide: DecideConfig,
    /// HarvestMan URL and text filters.
    pub filters: FiltersConfig,
    /// Sheets: setting overrides for some URIs (`[[sheet]]` tables).
    #[serde(rename = "sheet")]
    pub sheets: Vec<SheetSpec>,
    /// Which extractors run besides HTML and CSS.
    pub extract: ExtractConfig,
    /// Browser capture: pages rendered in headless Chromium, every browser request through trawl's fetcher
    /// (docs/browser.md).
    pub browser: BrowserConfig,
    /// Logins: HTTP Basic and Digest answers and HTML form logins, each bound to a host (`[[credentials]]`).
    pub credentials: Vec<CredentialSpec>,
    /// Warnings placed at their files when the config was read: the URL classes' (odd but usable fields),
    /// and the seed files' prefix lines'.
    #[serde(skip)]
    pub(crate) read_warnings: Vec<Problem>,
    /// How many prefixes each prefix list held as written in crawl.toml, by key (`scope.surt_prefixes`,
    /// `scope.rules[i].prefixes`), before the seed files' `+`/`-` lines were added to them: those are warned
    /// of at their file and line, not at an index the config does not have (review 70 R6).
    #[serde(skip)]
    pub(crate) prefixes_written: std::collections::HashMap<String, usize>,
    /// The names of the `[[url_class]]` entries as the config's own file writes them, a wrong one too (left
    /// out of `url_classes`): a class's problem is placed at its own entry, not at the index it has once an
    /// entry before it was left out (xt47a F5).
    #[serde(skip)]
    pub(crate) url_classes_written: Vec<String>,
}

/// Extractors besides HTML and CSS (see docs/extraction.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExtractConfig {
    /// Follow robots.txt `Sitemap:` lines and read sitemaps (XML, sitemap indexes, gzip, text); their URLs are
    /// `S` hops, judged by the scope like any link. Default: true.
    pub sitemaps: bool,
    /// Also try `/sitemap.xml` on every host whose robots.txt was fetched. Default: false.
    pub sitemap_probe: bool,
    /// The most URLs taken from the sitemaps of one host, over the whole crawl (the protocol allows 50,000
    /// per file and 50,000 files per index). Default: 1000000.
    pub sitemap_max_urls_per_host: u64,
    /// Read RSS and Atom feeds (found through `<link rel="alternate">` and links): item links and enclosures
    /// as `L` hops. Default: true.
    pub feeds: bool,
    /// Guess links in JavaScript and JSON string literals (`X` hops, as Heritrix's ExtractorJS), at most 200
    /// a document; a sheet may switch it off for some URIs. Default: true.
    pub speculative: bool,
    /// Put every speculative (`X`) URI in one queue of its own, `speculative`, so guesses never hold up a
    /// host's own queue (Heritrix's advice for speculative embeds). Default: false.
    pub speculative_queue: bool,
    /// Read PDFs for links: link annotations' URIs and http(s) URLs in the text, as `L` hops. Default: true.
    pub pdf: bool,
    /// PDFs larger than this many bytes are not read for links (`pdf:tooLarge`). Default: 33554432 (32 MiB).
    pub pdf_max_bytes: u64,
    /// Read office documents for links: Word 97–2003 `.doc` (text and `HYPERLINK` fields), OOXML (`.docx`,
    /// `.xlsx`, `.pptx`: hyperlink relationships and URLs in the text) and ODF (`.odt`, `.ods`, `.odp`:
    /// `xlink:href` and URLs in the text), as `L` hops. Default: true.
    pub office: bool,
    /// Office documents larger than this many bytes are not read for links (`doc:tooLarge`). Default: 33554432
    /// (32 MiB).
    pub office_max_bytes: u64,
}

impl Default for ExtractConfig {
    fn default() -> Self {
        ExtractConfig {
            sitemaps: true,
            sitemap_probe: false,
            sitemap_max_urls_per_host: 1_000_000,
            feeds: true,
            speculative: true,
            speculative_queue: false,
            pdf: true,
            pdf_max_bytes: 32 * 1024 * 1024,
            office: true,
            office_max_bytes: 32 * 1024 * 1024,
        }
    }
}

/// URL class libraries and class-aware crawling.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClassesConfig {
    /// Files of `[[url_class]]` tables, relative to the config's folder; inline classes win on a name clash.
    /// Default: none.
    pub files: Vec<std::path::PathBuf>,
    /// A watchable URL is fetched again after this many seconds. Default: 300.
    pub watch_interval_s: u64,
    /// A watchable URL is no longer revisited once it has not changed for this many seconds (or returned
    /// 404/410). Default: 3600.
    pub watch_unchanged_s: u64,
}

impl Default for ClassesConfig {
    fn default() -> Self {
        ClassesConfig {
            files: Vec::new(),
            watch_interval_s: 300,
            watch_unchanged_s: 3600,
        }
    }
}

/// URL identity settings (docs/url-identity.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IdentityConfig {
    /// The rule set of the uniq key: heritrix, whatwg, semantic, aggressive, google or ia. Default: "heritrix".
    pub canonicalizer: String,
    /// Heritrix's optional rule: strip `www`/`wwwN` even on slash-only pages. Default: false.
    pub heritrix_strip_www_always: bool,
    /// Heritrix's optional rule: collapse repeated slashes in the path. Default: false.
    pub heritrix_strip_extra_slashes: bool,
    /// Query parameters the normalized key drops; a trailing `*` makes a prefix. Default: utm_*, fbclid,
    /// gclid, dclid, gbraid, wbraid, msclkid, yclid, twclid, ttclid, igshid, mc_cid, mc_eid, _ga, _gl, _hsenc,
    /// _hsmi, mkt_tok.
    pub tracking_params: Vec<String>,
    /// Site rewrite rules for the canonical URL, first match wins; each pattern must match the whole URL and
    /// `replace` may use `$1`. Default: none.
    pub rewrites: Vec<RewriteRule>,
}

/// One site rewrite rule, e.g. `{ pattern = 'https://stackoverflow\.com/q/(\d+)', replace =
/// 'https://stackoverflow.com/questions/$1' }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RewriteRule {
    /// A regex (Rust `regex` syntax) matched against the whole URL.
    pub pattern: String,
    /// The replacement; `$1`, `${name}` insert groups.
    pub replace: String,
}

impl Default for IdentityConfig {
    fn default() -> Self {
        IdentityConfig {
            canonicalizer: "heritrix".to_string(),
            heritrix_strip_www_always: false,
            heritrix_strip_extra_slashes: false,
            tracking_params: trawl_url::norm::TrackingParams::default_names(),
            rewrites: Vec::new(),
        }
    }
}

impl IdentityConfig {
    /// The identity settings as `trawl-url` uses them; names the bad value on error.
    pub fn build(&self) -> Result<trawl_url::Identity, Box<Problem>> {
        let invalid = |key: &str, e: trawl_url::Error| {
            Box::new(Problem::at_key(Stage::Semantics, key, e.to_string()))
        };
        let mut id = trawl_url::Identity::default();
        id.canonicalizer = self
            .canonicalizer
            .parse()
            .map_err(|e| invalid("identity.canonicalizer", e))?;
        id.heritrix.strip_www_always = self.heritrix_strip_www_always;
        id.heritrix.strip_extra_slashes = self.heritrix_strip_extra_slashes;
        id.tracking = trawl_url::norm::TrackingParams::new(self.tracking_params.iter().cloned());
        // Each rule named by its index, at its own line (xt15c F8).
        id.rewrites = self
            .rewrites
            .iter()
            .enumerate()
            .map(|(i, r)| {
                trawl_url::Rewrite::new(&r.pattern, &r.replace)
                    .map_err(|e| invalid(&format!("identity.rewrites[{i}]"), e))
            })
            .collect::<Result<_, _>>()?;
        Ok(id)
    }
}

/// Where the crawl starts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SeedsConfig {
    /// Seed URLs. Default: none.
    pub urls: Vec<String>,
    /// Files of seed URLs, one per line, in Heritrix's form: `#` comment lines, the first word of a line, and
    /// `+PREFIX` / `-PREFIX` lines adding SURT prefixes to the scope's ACCEPT / REJECT `surt_prefixed` rules;
    /// relative paths are read from the config's folder. Default: none.
    pub files: Vec<std::path::PathBuf>,
}

impl SeedsConfig {
    /// The lines of seed file `file` (relative to `base`), as [`seed_list::parse`] reads them.
    pub fn read_file(
        base: &Path,
        file: &Path,
    ) -> Result<Vec<(usize, seed_list::SeedLine)>, LoadError> {
        let path = base.join(file);
        let bytes = named_file::read_named(&path).map_err(|source| LoadError::Read {
            path: path.clone(),
            source,
        })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            let at = e.utf8_error().valid_up_to();
            let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            LoadError::Read {
                path: path.clone(),
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("line {line} is not UTF-8 text (save the file as UTF-8)"),
                ),
            }
        })?;
        Ok(seed_list::parse(&text))
    }
}

/// Politeness and retries (Heritrix's formula: delay = delay_factor x last fetch duration, clamped).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FrontierConfig {
    /// Multiplier on the last fetch's duration giving the wait before the next fetch from that host. Default: 5.0.
    pub delay_factor: f64,
    /// Lower bound of the wait between fetches from one host, in ms. Default: 3000.
    pub min_delay_ms: u64,
    /// Upper bound of the wait between fetches from one host, in ms. Default: 30000.
    pub max_delay_ms: u64,
    /// robots.txt `Crawl-delay` is honoured up to this many ms. Default: 300000 (Heritrix's 300 s).
    pub max_crawl_delay_ms: u64,
    /// How often a URI that failed with a connection error, a timeout or a 5xx status is tried again. Default: 3.
    pub max_retries: u32,
    /// Wait before retrying such a URI, in ms: the URI alone waits (its host goes on) after a timeout, a cut
    /// connection or a 5xx; the host waits after a DNS, connection or TLS failure, a `Retry-After`, or
    /// failures of 3 URLs in a row. Default: 30000.
    pub retry_delay_ms: u64,
    /// Most URIs scheduled for one host (queue) in the whole crawl; 0 means no limit. Beyond it URIs are
    /// logged with -5003. Default: 0.
    pub max_uris_per_host: u64,
    /// A checkpoint is written every this many seconds; 0 means only on request and at the end. Default: 0.
    pub checkpoint_interval_s: u64,
    /// With a shared frontier (`--frontier redis://…`): how long a claimed URI stays this worker's without
    /// a heartbeat; a dead worker's URIs are claimed again after at most this long. Default: 30000.
    pub lease_ms: u64,
    /// How URIs are grouped into politeness queues: `host`, `domain` (registered domain) or `ip`.
    /// Default: "host".
    pub queue_assignment: crate::assign::QueueAssignment,
    /// Each queue is split into this many by URL hash (for a big host that allows more connections).
    /// Default: 1.
    pub parallel_queues: u32,
    /// A host's queue waits at least long enough to keep its average below this many bytes per second;
    /// 0 means no cap. Default: 0.
    pub max_host_bytes_per_s: u64,
    /// The uniq filter: `exact` (on disk, a Bloom filter in front saves most lookups) or `bloom` (the Bloom
    /// filter alone: no disk lookups, memory fixed by `bloom_items`, a new URL lost at about `bloom_fp_rate`).
    /// Default: "exact".
    pub uniq: UniqMode,
    /// The Bloom filter is sized for this many URLs (a larger crawl raises its false-positive rate).
    /// Default: 10000000.
    pub bloom_items: usize,
    /// The Bloom filter's false-positive rate at `bloom_items`. Default: 0.01.
    pub bloom_fp_rate: f64,
    /// The order of URIs within a queue: `fifo` (as discovered) or `hops` (fewer hops from a seed first,
    /// FIFO among equals). Default: "fifo".
    pub uri_precedence: UriPrecedence,
    /// Added to every URI's precedence (0-200; lower goes first): a sheet chosen by SURT prefix or by rules
    /// raises or lowers some URIs within their queues. Default: 1.
    #[serde(deserialize_with = "uri_precedence_base")]
    pub uri_precedence_base: u8,
    /// A queue's precedence (1-255; lower goes first): among queues waiting for an active place, the lowest
    /// goes first. A queue takes the lowest of its URIs' (a sheet sets it for a SURT prefix). Default: 3.
    #[serde(deserialize_with = "queue_precedence")]
    pub queue_precedence: u8,
    /// About this many queues are active at once: only they are in line for fetching and hold head items in
    /// memory (more are let in when none of the active may be fetched from now). Bounds memory whatever the
    /// number of hosts. Default: 2000.
    pub max_active_queues: usize,
    /// A queue hands out at most this many URIs per turn while others wait for a place, then goes to the back
    /// of the line (Heritrix's balance/replenish amount); 0 means no limit. Default: 3000.
    pub balance_replenish: u64,
}

/// The order of URIs within a queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UriPrecedence {
    /// As discovered. Default.
    #[default]
    Fifo,
    /// Fewer hops from a seed first.
    Hops,
}

impl FrontierConfig {
    /// The precedence of a URI `hops` from its seed under these settings.
    pub fn uri_precedence_of(&self, hops: usize) -> u8 {
        let extra = match self.uri_precedence {
            UriPrecedence::Fifo => 0,
            UriPrecedence::Hops => hops.min(50) as u8,
        };
        // 0 is reserved for what must go first (prerequisites, retries).
        self.uri_precedence_base.saturating_add(extra).max(1)
    }
}

/// How the already-seen filter decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UniqMode {
    /// Exact, on disk. Default.
    #[default]
    Exact,
    /// A Bloom filter alone (lossy, bounded memory).
    Bloom,
}

/// `frontier.queue_precedence`, said out of range in its own bounds (1-255), not its type's (xt12b F8: 0-255).
fn queue_precedence<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u8, D::Error> {
    u8_within(d, 1, 255)
}

/// `frontier.uri_precedence_base`: 0-200, hops adding up to 50 to it (xt14a F18: "at most 255", then 255 refused).
fn uri_precedence_base<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u8, D::Error> {
    u8_within(d, 0, 200)
}

/// A whole number from `low` to `high`, said so when it is not.
fn u8_within<'de, D: serde::Deserializer<'de>>(d: D, low: u8, high: u8) -> Result<u8, D::Error> {
    let n = i64::deserialize(d)?;
    u8::try_from(n)
        .ok()
        .filter(|n| (low..=high).contains(n))
        .ok_or_else(|| {
            serde::de::Error::custom(format!(
                "found the number {n}, expected a whole number from {low} to {high}"
            ))
        })
}

impl Default for FrontierConfig {
    fn default() -> Self {
        FrontierConfig {
            delay_factor: 5.0,
            min_delay_ms: 3_000,
            max_delay_ms: 30_000,
            max_crawl_delay_ms: 300_000,
            max_retries: 3,
            retry_delay_ms: 30_000,
            max_uris_per_host: 0,
            checkpoint_interval_s: 0,
            lease_ms: 30_000,
            queue_assignment: crate::assign::QueueAssignment::Host,
            parallel_queues: 1,
            max_host_bytes_per_s: 0,
            uniq: UniqMode::Exact,
            bloom_items: 10_000_000,
            bloom_fp_rate: 0.01,
            uri_precedence: UriPrecedence::Fifo,
            uri_precedence_base: 1,
            queue_precedence: 3,
            max_active_queues: 2000,
            balance_replenish: 3000,
        }
    }
}

/// How URIs are fetched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FetchConfig {
    /// Fetches in flight at once across all hosts. Default: 32.
    pub max_connections: usize,
    /// Fetches in flight at once to one host (one politeness queue). Default: 1.
    pub max_connections_per_host: usize,
    /// The longest silence while a response is expected or arriving, in ms. Default: 20000.
    pub timeout_ms: u64,
    /// Deadline for DNS, TCP connect and TLS handshake together, in ms. Default: 10000.
    pub connect_timeout_ms: u64,
    /// Deadline from sending the request to having the whole response head, in ms. Default: 30000.
    pub header_timeout_ms: u64,
    /// Deadline for the whole fetch, body included; a body still arriving then is cut (`timeTrunc`), so a
    /// server trickling one byte at a time cannot hold a worker. In ms. Default: 600000 (10 minutes).
    pub max_fetch_ms: u64,
    /// The response head (status line and header fields) may be at most this many bytes. Default: 65536.
    pub max_header_bytes: usize,
    /// The response head may have at most this many header fields. Default: 256.
    pub max_headers: usize,
    /// Decoding a body for extraction stops at this many times its encoded size (against compression bombs).
    /// Default: 100.
    pub max_decode_ratio: u64,
    /// Address ranges (CIDR, e.g. `10.1.0.0/16`, or single addresses) that may be connected to although the
    /// address policy refuses private, loopback, link-local and reserved ranges by default. The hosts of the
    /// seeds are always allowed. Default: none.
    #[serde(deserialize_with = "addresses::deserialize")]
    pub allow_addresses: Vec<ipnet::IpNet>,
    /// A `Retry-After` on 429/503 is honoured up to this many seconds. Default: 600.
    pub max_retry_after_s: u64,
    /// Response bodies are cut after this many bytes and annotated `lenTrunc`. Default: 100 MiB.
    pub max_bytes: u64,
    /// Largest body decoded (Content-Encoding) for link extraction; the archive keeps the wire bytes.
    /// Default: 64 MiB.
    pub max_decoded_bytes: u64,
    /// The User-Agent header, also the agent robots.txt rules are matched against.
    /// Default: `trawl/VERSION (+https://example.invalid/trawl)`; operators should name a contact URL.
    pub user_agent: String,
    /// Whether robots.txt is obeyed. Default: true.
    pub obey_robots: bool,
    /// robots.txt bodies larger than this are cut (RFC 9309 asks for at least 500 KiB). Default: 512 KiB.
    pub max_robots_bytes: u64,
    /// How long a fetched robots.txt is trusted, in seconds. Default: 86400.
    pub robots_expiry_s: u64,
    /// Ask, for each page captured by a `warc.dedup_from` job, whether it changed (`If-None-Match` /
    /// `If-Modified-Since` with that capture's validators); a `304` is archived as a server-not-modified
    /// revisit. Default: false.
    pub conditional_recrawl: bool,
    /// Name servers to ask (`"127.0.0.1:5353"`), instead of the system's. Read at launch. Default: none.
    pub dns_servers: Vec<std::net::SocketAddr>,
    /// A body arriving slower than this many bytes a second, averaged over `min_rate_window_ms`, is cut
    /// (`timeTrunc`): a trickling server holds a connection for about one window, not `max_fetch_ms`.
    /// 0 turns the rule off. Default: 1024.
    pub min_rate_bytes_per_s: u64,
    /// The window of the minimum-rate rule, in ms. Default: 30000.
    pub min_rate_window_ms: u64,
    /// Where cookies are kept: `off`, `job` (one jar) or `sheet` (one jar per set of applying sheets).
    /// Default: `job`.
    pub cookies: CookieMode,
    /// Cookies loaded into the jar when the crawl starts: a Netscape cookies.txt or a JSON export (an array of
    /// `{domain, path, name, value, secure, expirationDate}`), relative to the config's folder. Default: none.
    pub cookies_file: Option<std::path::PathBuf>,
    /// Connect through this proxy: `socks5://HOST:PORT` or `http://HOST:PORT` (a CONNECT tunnel); a sheet may
    /// set it for some hosts. A SOCKS5 password is never written out (see [`access::proxy_without_password`]).
    /// Default: none.
    #[serde(serialize_with = "access::serialize_proxy")]
    pub proxy: Option<String>,
    /// Offer HTTP/2 by ALPN on TLS connections (`false` forces HTTP/1.1). Default: true.
    pub http2: bool,
    /// Speak HTTP/2 without TLS (h2c, prior knowledge) to `http://` origins. Default: false.
    pub h2c: bool,
    /// Extra request header fields, e.g. `{ "Accept-Language" = "en" }`; a sheet may set them per host.
    /// Default: none.
    pub headers: std::collections::BTreeMap<String, String>,
}

impl Default for FetchConfig {
    fn default() -> Self {
        FetchConfig {
            max_connections: 32,
            max_connections_per_host: 1,
            timeout_ms: 20_000,
            connect_timeout_ms: 10_000,
            header_timeout_ms: 30_000,
            max_fetch_ms: 600_000,
            max_header_bytes: 64 << 10,
            max_headers: 256,
            max_decode_ratio: 100,
            allow_addresses: Vec::new(),
            max_retry_after_s: 600,
            max_bytes: 100 << 20,
            max_decoded_bytes: 64 << 20,
            user_agent: format!(
                "trawl/{} (+https://example.invalid/trawl)",
                env!("CARGO_PKG_VERSION")
            ),
            obey_robots: true,
            max_robots_bytes: 512 << 10,
            robots_expiry_s: 86_400,
            conditional_recrawl: false,
            dns_servers: Vec::new(),
            min_rate_bytes_per_s: 1024,
            min_rate_window_ms: 30_000,
            cookies: CookieMode::Job,
            cookies_file: None,
            proxy: None,
            http2: true,
            h2c: false,
            headers: std::collections::BTreeMap::new(),
        }
    }
}

/// Which URIs are in scope (the default profile's decide rules).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ScopeConfig {
    /// Reject URIs more than this many hops from a seed. Default: 20.
    pub max_hops: usize,
    /// Accept out-of-prefix URIs reached by at most this many trailing non-link hops (embeds, redirects)
    /// from an in-scope page. Default: 2.
    pub max_trans_hops: usize,
    /// Of those trailing hops, at most this many may be speculative (`X`, links found in scripts). Default: 1.
    pub max_speculative_hops: usize,
    /// Reject URIs whose path has more than this many segments. Default: 20.
    pub max_path_depth: usize,
    /// Reject URIs whose path repeats one segment more than this many times in a row. Default: 2.
    pub max_path_repeats: usize,
    /// Stop following a redirect chain after this many redirects in a row. Default: 10.
    pub max_redirects: usize,
    /// A seed redirecting to a page whose links the scope would refuse (`http://example.org/` to
    /// `https://www.example.org/`) widens the scope as a seed there would: the page's SURT prefix joins
    /// `surt_prefixes`, in the job's crawl.toml too, so a resume keeps it (Heritrix's `seedsRedirectNewSeeds`).
    /// Default: true.
    pub seed_redirects_new_seeds: bool,
    /// At most this many outlinks are taken from one document. Default: 6000.
    pub max_outlinks: usize,
    /// Extra SURT prefixes (Heritrix form, e.g. `http://(org,example,`) accepted besides the seeds'.
    pub surt_prefixes: Vec<String>,
    /// The scope's decide rules in order (`[[scope.rules]]`); when empty, the default sequence built from the
    /// keys above. Default: none.
    pub rules: Vec<RuleSpec>,
}

impl Default for ScopeConfig {
    fn default() -> Self {
        ScopeConfig {
            max_hops: 20,
            max_trans_hops: 2,
            max_speculative_hops: 1,
            max_path_depth: 20,
            max_path_repeats: 2,
            max_redirects: 10,
            seed_redirects_new_seeds: true,
            max_outlinks: 6000,
            surt_prefixes: Vec::new(),
            rules: Vec::new(),
        }
    }
}

/// Compression of WARC records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    /// One gzip member per record (`.warc.gz`). Default.
    Gzip,
    /// Uncompressed (`.warc`).
    None,
    /// One zstd frame per record (`.warc.zst`, the IIPC warc-zstd form); `trawl warc recompress` turns it
    /// into gzip for tools that read only that.
    Zstd,
}

/// How archives are written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WarcConfig {
    /// Record compression. Default: gzip.
    pub compression: Compression,
    /// A file is closed and a new one begun once it reaches this size. Default: 1 GB (1000000000 bytes).
    pub max_file_bytes: u64,
    /// File name prefix. Default: `trawl`.
    pub prefix: String,
    /// gzip level per record (libdeflate), 1 (fastest) to 9 (smallest). On the benchmark site level 1 is
    /// 2.5% larger than 3 and compresses 1.7x as fast; level 3 is 3.1% larger than 6 and 1.6x as fast. A
    /// payload already compressed (a Content-Encoding, JPEG, PNG, video, zip ...) is stored in its gzip
    /// member at any level. Default: 1.
    pub gzip_level: u32,
    /// With `compression = "zstd"`: train a zstd dictionary from the crawl's first records (4 MiB or 3,000
    /// records, held in memory until then, and in a file beside the WARC for a crash), put it at the start of every file in a dictionary frame (the IIPC
    /// warc-zstd form) and compress each record with it. Few tools read such files (pywb does not).
    /// Default: false.
    pub zstd_dictionary: bool,
    /// A response whose payload is already archived (in this job, or a `dedup_from` source) is written as a
    /// `revisit` record holding only the HTTP head. Default: true.
    pub dedup: bool,
    /// Payloads smaller than this are always stored whole: a revisit record costs about as much. Default: 1024.
    pub dedup_min_bytes: u64,
    /// Earlier captures to deduplicate against: job directories (their WARCs' `.cdxj` indexes), folders of
    /// WARC/ARC files (indexed on the way in), CDXJ files, or classic CDX files (the 11-field
    /// ` CDX N b a m s k r M S V g` and 9-field forms Heritrix and the Wayback Machine write), relative to the
    /// config's folder. Default: none.
    pub dedup_from: Vec<std::path::PathBuf>,
    /// Memory for the digest table, in MiB; beyond it the table lives on disk. Default: 64.
    pub dedup_memory_mb: u64,
    /// At the end of a finished crawl, package the job as `JOB/JOBNAME.wacz`. Default: false.
    pub wacz: bool,
    /// Write a `request` record (the request as sent) beside each response, as Heritrix's `writeRequests`.
    /// Default: true.
    pub write_requests: bool,
    /// Write a `metadata` record (via, hops, fetch time, outlinks) beside each response, as Heritrix's
    /// `writeMetadata`. A conditional recrawl (`dedup_from`) follows a page answered `304` by the outlinks
    /// its earlier capture's metadata record holds: without them it follows none. Default: true.
    pub write_metadata: bool,
}

impl Default for WarcConfig {
    fn default() -> Self {
        WarcConfig {
            compression: Compression::Gzip,
            max_file_bytes: 1_000_000_000,
            prefix: "trawl".to_string(),
            gzip_level: 1,
            zstd_dictionary: false,
            dedup: true,
            dedup_min_bytes: 1024,
            dedup_from: Vec::new(),
            dedup_memory_mb: 64,
            wacz: false,
            write_requests: true,
            write_metadata: true,
        }
    }
}

impl CrawlConfig {
    /// Reads and validates a config file.
    pub fn load(path: &Path) -> Result<CrawlConfig, LoadError> {
        let text = std::fs::read_to_string(path).map_err(|source| LoadError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        CrawlConfig::parse(&text, path)
    }

    /// Parses and checks config text (all three checks; see [`CrawlConfig::check_str`]); `path` names it in
    /// errors and relative paths are read from its folder. Seed files and class libraries are read in, so the
    /// job's copy of the config is self-contained. The error lists every problem.
    pub fn parse(text: &str, path: &Path) -> Result<CrawlConfig, LoadError> {
        CrawlConfig::check_str(text, path).map_err(|e| LoadError::Invalid {
            path: path.to_path_buf(),
            message: e
                .problems
                .iter()
                .map(|p| {
                    if p.file == path {
                        p.without_file()
                    } else {
                        p.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join("\n"),
        })
    }

    /// Checks values that parse but make no sense together; the first problem (see
    /// [`validate_all`](CrawlConfig::validate_all) for all).
    pub fn validate(&self) -> Result<(), Box<Problem>> {
        match self.validate_all().into_iter().next() {
            Some((key, message)) => Err(Box::new(Problem::at_key(Stage::Semantics, key, message))),
            None => Ok(()),
        }
    }

    /// The URL classes, compiled; the error lists every class error.
    pub fn compile_classes(&self) -> Result<UrlClasses, trawl_url::class::ClassErrors> {
        UrlClasses::from_defs(self.url_classes.clone())
    }

    /// Whether any page may be rendered in the browser: `[browser] mode`, a sheet's `browser.mode` or a URL
    /// class's `render` asks for it.
    pub fn may_render(&self) -> bool {
        self.browser.mode != BrowserMode::Off
            || self.sheets.iter().any(|sh| {
                sh.set
                    .get("browser.mode")
                    .and_then(|v| v.as_str())
                    .is_some_and(|m| m != "off")
            })
            || self.url_classes.iter().any(|c| c.render)
    }

    /// The politeness delay bounds.
    pub fn delay_bounds(&self) -> (Duration, Duration) {
        (
            Duration::from_millis(self.frontier.min_delay_ms),
            Duration::from_millis(self.frontier.max_delay_ms),
        )
    }

    /// The config as TOML, as written into the job directory and the warcinfo record.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A config named by a bare file name still resolves its relative paths to absolute ones, so the job's
    /// copy of it (elsewhere) finds them.
    #[test]
    fn relative_paths_become_absolute() {
        let c = CrawlConfig::check_str("[warc]\ndedup_from = [\"src\"]\n", Path::new("crawl.toml"))
            .unwrap();
        let source = &c.warc.dedup_from[0];
        assert!(
            source.is_absolute() && source.ends_with("src"),
            "{}",
            source.display()
        );
    }

    /// The fields trawl writes itself are refused in fetch.headers, with the reason; others pass.
    #[test]
    fn fetch_headers_may_not_frame_the_request() {
        for (name, why) in [
            ("Host", "trawl sends the URL's host"),
            ("content-length", "it frames the message"),
            ("Transfer-Encoding", "it frames the message"),
            ("Connection", "it manages the connection"),
            ("User-Agent", "set fetch.user_agent instead"),
        ] {
            let text = format!("[fetch]\nheaders = {{ \"{name}\" = \"x\" }}\n");
            let e = CrawlConfig::check_str(&text, Path::new("my.toml")).unwrap_err();
            assert!(e.to_string().contains(why), "{name}: {e}");
        }
        let text = "[fetch]\nheaders = { \"Accept-Language\" = \"en\", Accept = \"*/*\" }\n";
        CrawlConfig::check_str(text, Path::new("my.toml")).unwrap();
    }

    /// `browser.executable` as a path is the config folder's, as a bare name PATH's: `trawl check` and the
    /// crawl find the same file from any folder (xt16a F7).
    #[test]
    fn the_browser_executable_is_found_as_the_crawl_runs_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crawl.toml");
        std::fs::write(&path, "[browser]\nexecutable = \"./wrap.sh\"\n").unwrap();
        let c = CrawlConfig::check(&path).unwrap();
        assert_eq!(
            Path::new(&c.browser.executable),
            dir.path().join("./wrap.sh")
        );
        let mut b = crate::settings::BrowserConfig {
            executable: "sh".into(),
            ..Default::default()
        };
        assert!(
            b.chromium()
                .is_some_and(|p| p.is_absolute() && p.ends_with("sh"))
        );
        b.executable = "no-such-program-here".into();
        assert!(b.chromium().is_none());
    }

    /// A browser path that names no executable file is named by the check, whose hint is another path, not
    /// to set the key it sets (xt45b F3).
    #[test]
    fn a_browser_path_that_is_no_program_is_named() {
        let text = "[seeds]\nurls = [\"http://127.0.0.1:9/\"]\n[browser]\nmode = \"auto\"\n\
                    executable = \"/nonexistent/chrome\"\n";
        let c = CrawlConfig::check_str(text, Path::new("my.toml")).unwrap();
        let w = c
            .warnings()
            .into_iter()
            .find(|p| p.key.as_deref() == Some("browser.executable"))
            .expect("a warning at browser.executable");
        assert!(
            w.message
                .contains("/nonexistent/chrome is no executable file"),
            "{w:?}"
        );
        assert!(
            !w.hint
                .unwrap_or_default()
                .contains("set [browser] executable")
        );
    }

    /// Inner rules of `all`/`any`/`not` need no decision (it is ignored); the outer one does (xt15c F12).
    #[test]
    fn only_the_outer_combined_rule_needs_a_decision() {
        let inner = "[[scope.rules]]\nrule = \"accept\"\n[[scope.rules]]\nrule = \"all\"\ndecision = \"reject\"\n\
                     of = [{ rule = \"matches_regex\", regex = 'x' }, { rule = \"not\", of = { rule = \"seed_accept\" } }]\n";
        CrawlConfig::check_str(inner, Path::new("my.toml")).unwrap();
        for outer in ["all", "any"] {
            let text = format!(
                "[[scope.rules]]\nrule = \"accept\"\n[[scope.rules]]\nrule = \"{outer}\"\nof = [{{ rule = \"seed_accept\" }}]\n"
            );
            let e = CrawlConfig::check_str(&text, Path::new("my.toml"))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(&format!(
                    "my.toml:3:1: scope.rules[1].decision: `{outer}` needs a `decision`"
                )),
                "{e}"
            );
        }
    }

    #[test]
    fn a_zstd_dictionary_needs_zstd() {
        let text = "[warc]\nzstd_dictionary = true\n";
        let e = CrawlConfig::check_str(text, Path::new("my.toml")).unwrap_err();
        assert!(
            e.to_string()
                .contains("warc.zstd_dictionary = true needs warc.compression = \"zstd\""),
            "{e}"
        );
        let text = "[warc]\ncompression = \"zstd\"\nzstd_dictionary = true\n";
        assert!(
            CrawlConfig::check_str(text, Path::new("my.toml"))
                .unwrap()
                .warc
                .zstd_dictionary
        );
    }

    #[test]
    fn defaults_are_the_documented_ones() {
        let c = CrawlConfig::parse("", Path::new("x.toml")).unwrap();
        assert_eq!(c.frontier.delay_factor, 5.0);
        assert_eq!(c.frontier.min_delay_ms, 3000);
        assert_eq!(c.frontier.max_delay_ms, 30000);
        assert_eq!(c.fetch.max_connections_per_host, 1);
        assert_eq!(c.scope.max_hops, 20);
        assert_eq!(c.warc.compression, Compression::Gzip);
    }

    #[test]
    fn bloom_settings_out_of_range_are_refused() {
        for (text, want) in [
            ("bloom_fp_rate = 1.5", "above 0 and below 1"),
            ("bloom_fp_rate = 0.0", "above 0 and below 1"),
            ("bloom_fp_rate = -1.0", "above 0 and below 1"),
            ("bloom_fp_rate = 1.0", "above 0 and below 1"),
            ("bloom_fp_rate = nan", "above 0 and below 1"),
            ("bloom_items = 0", "bloom_items must be at least 1"),
        ] {
            let err = CrawlConfig::parse(&format!("[frontier]\n{text}\n"), Path::new("x.toml"))
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(want) && err.contains("line 2"),
                "{text}: {err}"
            );
        }
        assert!(
            CrawlConfig::parse(
                "[frontier]\nbloom_fp_rate = 0.001\nbloom_items = 1\n",
                Path::new("x.toml")
            )
            .is_ok()
        );
    }

    /// xt6a F13: a lease of a few milliseconds expired during every fetch, and the workers flooded the host.
    #[test]
    fn a_lease_under_a_second_is_refused() {
        for ms in [0, 1, 999] {
            let err = CrawlConfig::parse(
                &format!("[frontier]\nlease_ms = {ms}\n"),
                Path::new("x.toml"),
            )
            .unwrap_err()
            .to_string();
            assert!(
                err.contains("frontier.lease_ms") && err.contains("line 2"),
                "{err}"
            );
        }
        assert!(CrawlConfig::parse("[frontier]\nlease_ms = 1000\n", Path::new("x.toml")).is_ok());
    }

    /// xt5: a watch interval of 0 refetched a page that changes on every load until the crawl was killed.
    #[test]
    fn a_watch_interval_of_zero_is_refused() {
        let err = CrawlConfig::parse("[classes]\nwatch_interval_s = 0\n", Path::new("x.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("classes.watch_interval_s must be at least 1") && err.contains("line 2"),
            "{err}"
        );
        assert!(
            CrawlConfig::parse("[classes]\nwatch_interval_s = 1\n", Path::new("x.toml")).is_ok()
        );
    }

    /// A size limit of 0 would archive every body empty, and read every robots.txt as empty (allow all).
    #[test]
    fn size_limits_of_zero_are_refused() {
        for key in ["max_bytes", "max_robots_bytes"] {
            let err = CrawlConfig::parse(&format!("[fetch]\n{key} = 0\n"), Path::new("x.toml"))
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(&format!("fetch.{key} must be at least 1")) && err.contains("line 2"),
                "{err}"
            );
        }
    }

    #[test]
    fn identity_section() {
        let c = CrawlConfig::parse("", Path::new("x.toml")).unwrap();
        assert_eq!(c.identity.canonicalizer, "heritrix");
        assert!(c.identity.tracking_params.contains(&"utm_*".to_string()));
        let text = "[identity]\ncanonicalizer = \"ia\"\ntracking_params = [\"ref\"]\n\
                    rewrites = [{ pattern = 'https://a\\.org/q/(\\d+)', replace = 'https://a.org/questions/$1' }]\n";
        let c = CrawlConfig::parse(text, Path::new("x.toml")).unwrap();
        let id = c.identity.build().unwrap();
        assert_eq!(id.canonicalizer, trawl_url::canon::Canonicalizer::Ia);
        assert_eq!(id.rewrites.len(), 1);
        for bad in [
            "[identity]\ncanonicalizer = \"nope\"\n",
            "[identity]\nrewrites = [{ pattern = '(', replace = 'x' }]\n",
            "[identity]\ncanonicaliser = \"ia\"\n",
        ] {
            assert!(
                CrawlConfig::parse(bad, Path::new("x.toml")).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn reads_the_issue_keys() {
        let text = "[frontier]\ndelay_factor = 2.0\nmin_delay_ms = 10\nmax_delay_ms = 20\nmax_retries = 1\n\
                    retry_delay_ms = 5\n[fetch]\nmax_connections = 4\nmax_connections_per_host = 2\n\
                    timeout_ms = 100\nmax_bytes = 1000\nuser_agent = \"x/1\"\n\
                    [warc]\ncompression = \"none\"\nmax_file_bytes = 5\nprefix = \"p\"\n";
        let c = CrawlConfig::parse(text, Path::new("x.toml")).unwrap();
        assert_eq!(c.frontier.max_retries, 1);
        assert_eq!(c.fetch.user_agent, "x/1");
        assert_eq!(c.warc.compression, Compression::None);
    }

    #[test]
    fn seeds_inline_and_from_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("seeds.txt"),
            "# list
http://b.org/

http://c.org/ # third
",
        )
        .unwrap();
        let text = "[seeds]\nurls = [\"http://a.org/\"]\nfiles = [\"seeds.txt\"]\n";
        let c = CrawlConfig::parse(text, &dir.path().join("crawl.toml")).unwrap();
        assert_eq!(
            c.seeds.urls,
            ["http://a.org/", "http://b.org/", "http://c.org/"]
        );
        let err = CrawlConfig::parse(
            "[seeds]\nfiles = [\"nope.txt\"]\n",
            &dir.path().join("x.toml"),
        )
        .unwrap_err();
        assert!(err.to_string().contains("nope.txt"), "{err}");
    }

    #[test]
    fn errors_name_the_place() {
        let rows = [
            ("[fetch]\nmax_conections = 3\n", "line 2"),
            ("[fetch]\nuser_agent = \"trawl/é\"\n", "printable ASCII"),
            ("[frontier]\nmin_delay_ms = \"fast\"\n", "line 2"),
            (
                "[frontier]\nmin_delay_ms = 5\nmax_delay_ms = 1\n",
                "frontier.min_delay_ms",
            ),
            (
                "[frontier]\nmin_delay_ms = 5\nmax_delay_ms = 1\n",
                "my.toml: line 2, column 1: frontier.min_delay_ms",
            ),
            (
                "# x\nfrontier.max_delay_ms = 1\nfrontier.min_delay_ms = 5\n",
                "my.toml: line 3, column 10: frontier.min_delay_ms",
            ),
            // The minimum is the default (3000) and not in the file: no line to point at.
            (
                "[frontier]\nmax_delay_ms = 1\n",
                "my.toml: line 1, column 2: frontier.min_delay_ms = 3000",
            ),
            ("[warc]\ncompression = \"lz4\"\n", "line 2"),
        ];
        for (text, want) in rows {
            let err = CrawlConfig::parse(text, Path::new("my.toml"))
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("my.toml") && err.contains(want),
                "{text:?}: {err}"
            );
        }
    }

    #[test]
    fn each_url_class_problem_is_reported_at_its_class() {
        // Two classes' field errors: two problems, each at its own field.
        let text = "[[url_class]]\nname = \"a\"\nkind = \"post\"\nexample = \"http://a.org/p/1\"\n\
                    domains = [\"a.org\"]\npath = [{ match = \"fixed\", value = \"p\" }, { match = \"numeric\" }]\n\
                    [[url_class]]\nname = \"c\"\nkind = \"post\"\nexample = \"http://c.org/p/1\"\n\
                    domains = [\"c.org\"]\npath = [{ match = \"fixed\", value = \"p\" }, \
                    { match = \"any\", min_chars = 3, max_chars = 1 }]\n\
                    [[url_class]]\nname = \"d\"\nkind = \"post\"\nexample = \"http://d.org/\"\n\
                    domains = [\"d.org\"]\ndomain_regexes = [\"(.*\"]\n";
        let e = CrawlConfig::check_str(text, Path::new("my.toml")).unwrap_err();
        let got: Vec<_> = e
            .problems
            .iter()
            .map(|p| (p.key.clone().unwrap_or_default(), p.at.map(|a| a.0)))
            .collect();
        assert_eq!(
            got,
            [
                ("url_class[1].path[1].min_chars".to_owned(), Some(12)),
                ("url_class[2].domain_regexes[0]".to_owned(), Some(18)),
            ],
            "{e}"
        );
        // After a class left out for a missing key, the next class's problem is still at its own entry
        // (xt47a F5: at the entry before it).
        let text = "[[url_class]]\nname = \"x\"\nkind = \"post\"\ndomains = [\"x.org\"]\n\
                    [[url_class]]\nname = \"d\"\nkind = \"post\"\nexample = \"http://d.org/\"\n\
                    domains = [\"d.org\"]\ndomain_regexes = [\"(.*\"]\n";
        let e = CrawlConfig::check_str(text, Path::new("my.toml")).unwrap_err();
        assert!(
            e.problems.iter().any(
                |p| p.key.as_deref() == Some("url_class[1].domain_regexes[0]")
                    && p.at.map(|a| a.0) == Some(10)
            ),
            "{e}"
        );
        // An example its class does not match: at that class's example.
        let text = "[[url_class]]\nname = \"a\"\nkind = \"post\"\nexample = \"http://a.org/p/1\"\n\
                    domains = [\"a.org\"]\n\
                    [[url_class]]\nname = \"r\"\nkind = \"post\"\nexample = \"http://other.org/p/1\"\n\
                    domains = [\"r.org\"]\n";
        let e = CrawlConfig::check_str(text, Path::new("my.toml")).unwrap_err();
        let got: Vec<_> = e
            .problems
            .iter()
            .map(|p| (p.key.clone().unwrap_or_default(), p.at.map(|a| a.0)))
            .collect();
        assert_eq!(got, [("url_class[1].example".to_owned(), Some(9))], "{e}");
    }

    /// xt5 F13: a class that fetches a seed under another scheme (its default `preferred_scheme` is https) is
    /// a warning at the seed.
    #[test]
    fn a_class_moving_a_seed_to_another_scheme_is_a_warning() {
        let class = "[[url_class]]\nname = \"p\"\nkind = \"post\"\nexample = \"http://127.0.0.1/post?id=5\"\n\
                     domains = [\"127.0.0.1\"]\npath = [{ match = \"fixed\", value = \"post\" }]\n\
                     query = [{ name = \"id\", match = \"numeric\" }]\n";
        let seeds = "[seeds]\nurls = [\"http://127.0.0.1:8601/\", \"http://127.0.0.1:8601/post?id=1&x=2\"]\n";
        let c = CrawlConfig::check_str(&format!("{seeds}{class}"), Path::new("my.toml")).unwrap();
        let w: Vec<_> = c
            .warnings()
            .into_iter()
            .filter(|p| p.message.contains("url class"))
            .map(|p| (p.key.unwrap_or_default(), p.message))
            .collect();
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].0, "seeds.urls[1]");
        assert!(w[0].1.contains("https://127.0.0.1:8601/post?id=1"), "{w:?}");
        let c = CrawlConfig::check_str(
            &format!("{seeds}{class}preferred_scheme = \"http\"\n"),
            Path::new("my.toml"),
        )
        .unwrap();
        assert!(!c.warnings().iter().any(|p| p.message.contains("url class")));
    }

    /// xt25b F7: a `fetch.max_bytes` over what trawl's WARC tools read back is a warning; the default is not.
    #[test]
    fn a_max_bytes_over_a_gib_is_a_warning() {
        let at = |text: &str| {
            CrawlConfig::check_str(text, Path::new("my.toml"))
                .unwrap()
                .warnings()
                .into_iter()
                .filter(|p| p.key.as_deref() == Some("fetch.max_bytes"))
                .count()
        };
        assert_eq!(at("[fetch]\nmax_bytes = 4294967296\n"), 1);
        // Its head and framing put a record of a 1 GiB body over the limit (review 73 R4).
        assert_eq!(at("[fetch]\nmax_bytes = 1073741824\n"), 1);
        assert_eq!(at("[fetch]\nmax_bytes = 1071644672\n"), 0);
        assert_eq!(at(""), 0);
    }

    /// xt10a F13: a form credential with cookies off is a warning at `fetch.cookies`.
    #[test]
    fn a_form_login_without_cookies_is_a_warning() {
        let text = "[fetch]\ncookies = \"off\"\n[[credentials]]\nkind = \"form\"\ndomain = \"a.org\"\n\
                    login_url = \"http://a.org/login\"\npassword_env = \"P\"\n";
        let c = CrawlConfig::check_str(text, Path::new("my.toml")).unwrap();
        assert!(
            c.warnings()
                .iter()
                .any(|p| p.key.as_deref() == Some("fetch.cookies")
                    && p.message.contains("credentials[0]")),
            "{:?}",
            c.warnings()
        );
    }

    /// xt46a F7: a cookies file with cookies off is a warning at `fetch.cookies_file`.
    #[test]
    fn a_cookies_file_without_cookies_is_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("cookies.txt"),
            "a.org\tFALSE\t/\tFALSE\t0\tsid\t1\n",
        )
        .unwrap();
        let warned = |cookies: &str| {
            let text =
                format!("[fetch]\ncookies = \"{cookies}\"\ncookies_file = \"cookies.txt\"\n");
            CrawlConfig::check_str(&text, &dir.path().join("my.toml"))
                .unwrap()
                .warnings()
                .iter()
                .any(|p| p.key.as_deref() == Some("fetch.cookies_file"))
        };
        assert!(warned("off"));
        assert!(!warned("job"));
    }

    /// xt17a F9: a form credential's `user` without `fields`, a relative `login_url` and a two-key `success`
    /// are each told with what to write.
    #[test]
    fn form_login_mistakes_say_what_to_write() {
        let cred = |more: &str| {
            format!(
                "[[credentials]]\nkind = \"form\"\ndomain = \"a.org\"\npassword_env = \"P\"\n{more}"
            )
        };
        for (text, want) in [
            (
                cred("login_url = \"http://a.org/login\"\nuser = \"arch\"\n"),
                "fields = { username = \"arch\" }",
            ),
            (
                cred("login_url = \"/accounts/login/\"\n"),
                "write it with its scheme and host (http://a.org/accounts/login/)",
            ),
            (
                cred(
                    "login_url = \"http://a.org/login\"\n\
                     success = { cookie = \"s\", text = \"Sign out\" }\n",
                ),
                "takes one key, not several",
            ),
        ] {
            let e = CrawlConfig::check_str(&text, Path::new("my.toml")).unwrap_err();
            assert!(e.to_string().contains(want), "{text}: {e}");
        }
        // The two-key table is placed at its own line, not at `[[credentials]]` (xt44b F5), the first of two.
        let two = cred(
            "login_url = \"http://a.org/login\"\nlogged_out = { text = \"a\", redirect_to = \"/b\" }\n\
             success = { cookie = \"s\", text = \"Sign out\" }\n",
        );
        let e = CrawlConfig::check_str(&two, Path::new("my.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("my.toml:6:1: credentials[0].logged_out:"), "{e}");
        // With `fields`, a `user` beside them is no mistake to stop at.
        let ok = cred(
            "login_url = \"http://a.org/login\"\nuser = \"arch\"\nfields = { log = \"arch\" }\n",
        );
        assert!(CrawlConfig::check_str(&ok, Path::new("my.toml")).is_ok());
        let e = CrawlConfig::check_str(
            &cred("login_url = \"ftp://a.org/login\"\n"),
            Path::new("my.toml"),
        )
        .unwrap_err();
        assert!(e.to_string().contains("no http or https URL"), "{e}");
        // A URL without its scheme is read as http, as it was before the check (review 66 R4).
        let ok = cred("login_url = \"a.org/login\"\n");
        assert!(CrawlConfig::check_str(&ok, Path::new("my.toml")).is_ok());
    }

    /// xt17a F10: a second form credential for a host (any case) is never used: a warning at its `domain`;
    /// one for another host is not.
    #[test]
    fn a_second_form_login_for_a_host_is_a_warning() {
        let form = |domain: &str| {
            format!(
                "[[credentials]]\nkind = \"form\"\ndomain = \"{domain}\"\n\
                 login_url = \"http://{domain}/login\"\npassword_env = \"P\"\n"
            )
        };
        let text = [form("a.org"), form("b.org"), form("A.org")].concat();
        let c = CrawlConfig::check_str(&text, Path::new("my.toml")).unwrap();
        let said: Vec<_> = c
            .warnings()
            .into_iter()
            .filter(|p| p.message.contains("is already the form login"))
            .collect();
        assert_eq!(said.len(), 1, "{said:?}");
        assert_eq!(said[0].key.as_deref(), Some("credentials[2].domain"));
        // The same written with a SURT prefix closed at the host (xt44b F5); one open to its subdomains, or
        // for another port, is not.
        let prefixed = |prefix: &str, login: &str| {
            format!(
                "[[credentials]]\nkind = \"form\"\nsurt_prefix = \"{prefix}\"\n\
                 login_url = \"{login}\"\npassword_env = \"P\"\n"
            )
        };
        let text = [
            form("a.org:8080"),
            prefixed("http://(org,a,:8080)/", "http://a.org:8080/login"),
            prefixed("http://(org,a,:8081)/", "http://a.org:8081/login"),
            prefixed("http://(org,a,", "http://x.a.org/login"),
        ]
        .concat();
        let c = CrawlConfig::check_str(&text, Path::new("my.toml")).unwrap();
        let said: Vec<_> = c
            .warnings()
            .into_iter()
            .filter(|p| p.message.contains("is already the form login"))
            .collect();
        assert_eq!(said.len(), 1, "{said:?}");
        assert_eq!(said[0].key.as_deref(), Some("credentials[1].surt_prefix"));
        // A form login for a host no seed is on is said (xt18a F10), one a seed is on is not.
        let seeded = |seed: &str| {
            let text = format!("[seeds]\nurls = [\"{seed}\"]\n{}", form("localhost:8080"));
            CrawlConfig::check_str(&text, Path::new("my.toml"))
                .unwrap()
                .warnings()
                .into_iter()
                .filter(|p| p.message.contains("no seed is on"))
                .count()
        };
        assert_eq!(seeded("http://127.0.0.1:8080/"), 1);
        assert_eq!(seeded("http://localhost:8080/members/"), 0);
    }

    /// xt10b F12: a conditional recrawl without a `dedup_from` job, or with `dedup = false`, does nothing, and
    /// `dedup_from` is not read with `dedup = false`: each is a warning at its key.
    #[test]
    fn settings_that_do_nothing_without_others_are_warnings() {
        let keys = |text: &str| -> Vec<String> {
            CrawlConfig::check_str(text, Path::new("my.toml"))
                .unwrap()
                .warnings()
                .into_iter()
                .filter_map(|p| p.key)
                .filter(|k| k.starts_with("fetch.") || k.starts_with("warc."))
                .collect()
        };
        let recrawl = "[fetch]\nconditional_recrawl = true\n";
        assert_eq!(keys(recrawl), ["fetch.conditional_recrawl"]);
        let from = "[warc]\ndedup_from = [\"/tmp\"]\n";
        assert!(keys(&format!("{recrawl}{from}")).is_empty());
        assert_eq!(
            keys(&format!("{recrawl}{from}dedup = false\n")),
            ["fetch.conditional_recrawl", "warc.dedup_from"]
        );
    }

    /// What would fail the crawl later, or quietly do nothing, is refused when the config is checked: no link
    /// extracted at `max_decoded_bytes = 0`, a WARC prefix too long for a file name or holding a space
    /// (xt12a b F5, F6).
    #[test]
    fn a_prefix_no_file_can_carry_and_no_decoding_are_refused() {
        for (text, key) in [
            (
                "[fetch]\nmax_decoded_bytes = 0\n",
                "fetch.max_decoded_bytes",
            ),
            ("[warc]\nprefix = \"a b\"\n", "warc.prefix"),
        ] {
            let e = CrawlConfig::check_str(text, Path::new("my.toml")).unwrap_err();
            assert_eq!(e.problems[0].key.as_deref(), Some(key), "{e}");
        }
        let long = format!("[warc]\nprefix = \"{}\"\n", "a".repeat(101));
        let e = CrawlConfig::check_str(&long, Path::new("my.toml")).unwrap_err();
        assert!(e.to_string().contains("keep it to 100"), "{e}");
        let fine = format!("[warc]\nprefix = \"{}\"\n", "a".repeat(100));
        assert!(CrawlConfig::check_str(&fine, Path::new("my.toml")).is_ok());
    }

    /// The rest of xt12b F8's messages: `queue_precedence`'s own range, the form of an address or range, of an
    /// address with its port, and a conflict with a default said to be one. A single address is a range.
    #[test]
    fn ranges_addresses_and_defaults_are_said() {
        for (text, want) in [
            (
                "[frontier]\nqueue_precedence = 256\n",
                "found the number 256, expected a whole number from 1 to 255",
            ),
            (
                "[frontier]\nqueue_precedence = 0\n",
                "found the number 0, expected a whole number from 1 to 255",
            ),
            (
                "[frontier]\nuri_precedence_base = 255\n",
                "found the number 255, expected a whole number from 0 to 200",
            ),
            (
                "[fetch]\nallow_addresses = [\"10.1.0.0/33\"]\n",
                "\"10.1.0.0/33\" is not an address or range: write an address (\"10.1.2.3\"",
            ),
            (
                "[fetch]\ndns_servers = [\"1.2.3.4\"]\n",
                "not an address with a port: write it as \"10.1.2.3:53\"",
            ),
            (
                "[frontier]\nmax_delay_ms = 1000\n",
                "frontier.min_delay_ms = 3000 (the default) is above frontier.max_delay_ms = 1000; lower",
            ),
        ] {
            let e = CrawlConfig::check_str(text, Path::new("my.toml")).unwrap_err();
            assert!(e.to_string().contains(want), "{text}: {e}");
        }
        let single = "[fetch]\nallow_addresses = [\"10.1.2.3\", \"::1\"]\n";
        let c = CrawlConfig::check_str(single, Path::new("my.toml")).unwrap();
        assert_eq!(c.fetch.allow_addresses.len(), 2);
        // Every bad entry of a rule's `addresses`, each at its key (xt47a F1: the first only, at the table).
        let rule = "[seeds]\nurls = [\"http://a.org/\"]\n[[scope.rules]]\nrule = \"accept\"\n\
                    [[scope.rules]]\nrule = \"ip_address_set\"\naddresses = [\"10.0.0.0/8\", \"x\", \"1.2.3\"]\n";
        let e = CrawlConfig::check_str(rule, Path::new("my.toml"))
            .unwrap_err()
            .to_string();
        for want in [
            "my.toml:7:28: scope.rules[1].addresses[1]: \"x\" is not an address",
            "scope.rules[1].addresses[2]: \"1.2.3\" is not an address",
        ] {
            assert!(e.contains(want), "{want} in {e}");
        }
    }

    /// A key written without its unit gets the key with it, and a key in the wrong table the table it belongs
    /// in (xt12a b F8: both got only the list of every key).
    #[test]
    fn a_unit_left_off_and_a_key_in_the_wrong_table_are_named() {
        for (text, want) in [
            (
                "[fetch]\ntimeout = 5000\n",
                "unknown key `timeout`: did you mean `timeout_ms`?",
            ),
            (
                "[frontier]\nmin_delay = 5\n",
                "unknown key `min_delay`: did you mean `min_delay_ms`?",
            ),
            (
                "user_agent = \"x/1\"\n",
                "unknown key `user_agent` here: it belongs in [fetch]",
            ),
            (
                "[fetch]\ndelay_factor = 1.0\n",
                "unknown key `delay_factor` here: it belongs in [frontier]",
            ),
        ] {
            let e = CrawlConfig::check_str(text, Path::new("my.toml")).unwrap_err();
            assert!(e.to_string().contains(want), "{want}: {e}");
        }
        // Not in a `[[sheet]]`, where a section would change the whole crawl (review R5).
        let sheet =
            "[[sheet]]\nname = \"s\"\nsurt_prefixes = [\"http://(org,a,)/\"]\nmin_delay_ms = 5\n";
        let e = CrawlConfig::check_str(sheet, Path::new("my.toml")).unwrap_err();
        assert!(!e.to_string().contains("belongs in"), "{e}");
    }

    /// An `ip_address_set` rule where no named host has an address yet is warned about, nested in `any` or
    /// in a sheet's rules too (xt13a F9).
    #[test]
    fn an_address_rule_before_the_fetch_is_warned_about_wherever_it_is() {
        let text = "[[scope.rules]]\nrule = \"accept\"\n[[scope.rules]]\nrule = \"any\"\ndecision = \"reject\"\n\
                    of = [{ rule = \"ip_address_set\", addresses = [\"10.0.0.0/8\"] }]\n\
                    [[sheet]]\nname = \"s\"\nrules = [{ rule = \"ip_address_set\", addresses = [\"10.0.0.0/8\"] }]\n\
                    set = { \"frontier.min_delay_ms\" = 5000 }\n";
        let c = CrawlConfig::check_str(text, Path::new("my.toml")).unwrap();
        let keys: Vec<String> = c
            .warnings()
            .into_iter()
            .filter(|p| p.message.contains("ip_address_set"))
            .map(|p| p.key.unwrap_or_default())
            .collect();
        assert_eq!(keys, ["scope.rules[1]", "sheet[0].rules[0]"]);
    }

    /// A seed list's `+`/`-` line in the CDX form keeps the `www.` host that form implies, in the default scope's
    /// prefixes and in a rule's (review 69 R1: `-org,example)/private/` let `www.example.org/private/` in).
    #[test]
    fn a_seed_lists_cdx_prefix_takes_in_the_www_host() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("seeds.txt"),
            "+org,example)/docs\n-org,example)/private/\nhttp://example.org/\n",
        )
        .unwrap();
        let path = dir.path().join("crawl.toml");
        let text = "[seeds]\nfiles = [\"seeds.txt\"]\n[[scope.rules]]\nrule = \"surt_prefixed\"\n\
                    [[scope.rules]]\nrule = \"surt_prefixed\"\ndecision = \"reject\"\nseeds_as_prefixes = false\n";
        let config = CrawlConfig::parse(text, &path).unwrap();
        let www = trawl_url::Url::parse("http://www.example.org/private/a").unwrap();
        let RuleSpec::SurtPrefixed(reject) = &config.scope.rules[1] else {
            panic!("{:?}", config.scope.rules);
        };
        let prefix = seed_list::prefix_value(&reject.prefixes[0]).unwrap();
        assert!(prefix.contains(&www), "{prefix:?}");
        let text = "[seeds]\nfiles = [\"seeds.txt\"]\n";
        let err = CrawlConfig::parse(text, &path).unwrap_err().to_string();
        assert!(err.contains("surt_prefixed"), "{err}");
        std::fs::write(dir.path().join("seeds.txt"), "+org,example)/docs\n").unwrap();
        let config = CrawlConfig::parse(text, &path).unwrap();
        let prefix = seed_list::prefix_value(&config.scope.surt_prefixes[0]).unwrap();
        let docs = trawl_url::Url::parse("http://www.example.org/docs/a").unwrap();
        assert!(prefix.contains(&docs), "{prefix:?}");
    }

    /// A prefix written as a URL whose last segment is cut (the whole host, or its parent folder) is a warning,
    /// wherever prefixes are written; one ending in a slash, a host and a SURT are not (xt20b F5).
    #[test]
    fn a_url_prefix_cut_to_its_folder_is_a_warning() {
        let text = "[scope]\nsurt_prefixes = [\"http://a.org/docs\", \"http://a.org/docs/\", \"b.org\"]\n\
                    [[scope.rules]]\nrule = \"surt_prefixed\"\nprefixes = [\"http://(org,a,)/x\", \"a.org/p/q.html\"]\n\
                    [[sheet]]\nname = \"s\"\nsurt_prefixes = [\"http://c.org/blog\"]\n\
                    set = { \"frontier.min_delay_ms\" = 5000 }\n";
        let c = CrawlConfig::check_str(text, Path::new("my.toml")).unwrap();
        let w: Vec<_> = c
            .warnings()
            .into_iter()
            .filter(|p| p.message.contains("last slash"))
            .map(|p| (p.key.unwrap_or_default(), p.message))
            .collect();
        let keys: Vec<&str> = w.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "scope.surt_prefixes[0]",
                "scope.rules[0].prefixes[1]",
                "sheet[0].surt_prefixes[0]"
            ],
            "{w:?}"
        );
        assert!(w[0].1.contains("everything under http://a.org/"), "{w:?}");
        assert!(w[1].1.contains("everything under http://a.org/p/"), "{w:?}");
        let cdx = "[scope]\nsurt_prefixes = [\"org,example)/docs\", \"org,example)/img/\"]\n";
        let c = CrawlConfig::check_str(cdx, Path::new("my.toml")).unwrap();
        let keys: Vec<String> = c
            .warnings()
            .into_iter()
            .filter(|p| p.message.contains("every path that starts so"))
            .map(|p| p.key.unwrap_or_default())
            .collect();
        assert_eq!(keys, ["scope.surt_prefixes[0]"]);
    }

    /// A seed file's prefix line is warned of at its file and line, not at the index it takes in the list it
    /// joins, which crawl.toml does not have (review 70 R6).
    #[test]
    fn a_seed_file_prefix_is_warned_of_at_its_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("seeds.txt"),
            "http://a.org/\n+http://a.org/docs\n",
        )
        .unwrap();
        let text =
            "[seeds]\nfiles = [\"seeds.txt\"]\n[scope]\nsurt_prefixes = [\"http://b.org/x\"]\n";
        let c = CrawlConfig::check_str(text, &dir.path().join("crawl.toml")).unwrap();
        let w: Vec<_> = c
            .warnings()
            .into_iter()
            .filter(|p| p.message.contains("last slash"))
            .map(|p| (p.key.unwrap_or_default(), p.message))
            .collect();
        let keys: Vec<&str> = w.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["seeds.files[0]", "scope.surt_prefixes[0]"], "{w:?}");
        assert!(w[0].1.starts_with("seeds.txt, line 2: the prefix"), "{w:?}");
        assert_eq!(c.scope.surt_prefixes.len(), 2);
    }

    /// A sheet setting a key read once per crawl is warned about, but not one setting a queue's budget, which
    /// the frontier takes from the sheet (xt12a F14: the warning told the operator to undo a working budget).
    #[test]
    fn a_sheet_budget_is_no_setting_read_once() {
        let text = "[[sheet]]\nname = \"s\"\nsurt_prefixes = [\"http://(org,a,)/\"]\n\
                    set = { \"frontier.max_uris_per_host\" = 3, \"fetch.user_agent\" = \"x/1 (+http://a.org/)\" }\n";
        let c = CrawlConfig::check_str(text, Path::new("my.toml")).unwrap();
        let w: Vec<_> = c
            .warnings()
            .into_iter()
            .filter(|p| p.message.contains("changes nothing"))
            .map(|p| p.message)
            .collect();
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("fetch.user_agent"), "{w:?}");
    }

    /// xt5: a `url_class_kind` rule in a config without URL classes can never match: a warning at the rule.
    #[test]
    fn a_url_class_kind_rule_without_classes_is_a_warning() {
        let rule = "[[scope.rules]]\nrule = \"accept\"\n[[scope.rules]]\nrule = \"url_class_kind\"\n\
                    kinds = [\"post\"]\ndecision = \"reject\"\n";
        let c = CrawlConfig::check_str(rule, Path::new("my.toml")).unwrap();
        let w: Vec<_> = c
            .warnings()
            .into_iter()
            .filter(|p| p.message.contains("url_class_kind"))
            .map(|p| p.key.unwrap_or_default())
            .collect();
        assert_eq!(w, ["scope.rules[1]"]);
        let class = "[[url_class]]\nname = \"p\"\nkind = \"post\"\nexample = \"http://a.org/p\"\n\
                     domains = [\"a.org\"]\npath = [{ match = \"fixed\", value = \"p\" }]\n";
        let c = CrawlConfig::check_str(&format!("{rule}{class}"), Path::new("my.toml")).unwrap();
        assert!(
            !c.warnings()
                .iter()
                .any(|p| p.message.contains("url_class_kind"))
        );
    }

    /// xt5 F14: two classes of one name, the first broken: the repeat is reported (at the second class), and
    /// the first's problem at the first.
    #[test]
    fn a_repeated_class_name_is_reported_at_the_repeat() {
        let text = "[[url_class]]\nname = \"a\"\nkind = \"post\"\nexample = \"http://a.org/p?id=1\"\n\
                    domains = [\"a.org\"]\npath = [{ match = \"fixed\", value = \"p\" }]\n\
                    query = [{ name = \"id\", match = \"numeric\" }]\nnext_page = { query = \"id\" }\n\
                    [[url_class]]\nname = \"a\"\nkind = \"gallery\"\nexample = \"http://a.org/g?id=1\"\n\
                    domains = [\"a.org\"]\npath = [{ match = \"fixed\", value = \"g\" }]\n\
                    query = [{ name = \"id\", match = \"numeric\" }]\nnext_page = { query = \"q\" }\n";
        let e = CrawlConfig::check_str(text, Path::new("my.toml")).unwrap_err();
        let got: Vec<_> = e
            .problems
            .iter()
            .map(|p| (p.key.clone().unwrap_or_default(), p.at.map(|a| a.0)))
            .collect();
        assert_eq!(got.len(), 2, "{e}");
        assert!(got[0].0.starts_with("url_class[0].next_page"), "{e}");
        assert_eq!(got[1].0, "url_class[1]", "{e}");
        assert!(got[1].1.is_some_and(|line| line >= 9), "{e}");
        assert!(e.to_string().contains("defined more than once"), "{e}");
    }

    #[test]
    fn every_problem_is_reported_with_its_place() {
        let text = r#"[fetch]
max_conections = 3
[frontier]
min_delay_ms = "fast"
[[scope.rules]]
rule = "reject"
[[scope.rules]]
rule = "too_many_hopz"
[[scope.rules]]
rule = "matches_regex"
regexp = "x"
[[filters.url]]
path = "-/a/"
extension = "-jpg"
"#;
        let e = CrawlConfig::check_str(text, Path::new("my.toml")).unwrap_err();
        let lines: Vec<_> = e
            .problems
            .iter()
            .map(|p| (p.stage, p.at.map(|a| a.0)))
            .collect();
        assert_eq!(
            lines,
            [
                (Stage::Wiring, Some(2)),
                (Stage::Wiring, Some(4)),
                (Stage::Wiring, Some(8)),
                (Stage::Wiring, Some(11)),
                // The rest of the file is checked too: a file's problems all show in one run.
                (Stage::Semantics, Some(12)),
            ],
            "{e}"
        );
        assert!(
            e.to_string()
                .contains("unknown name `too_many_hopz`: did you mean `too_many_hops`?"),
            "{e}"
        );
        // Semantics: all problems, with their places.
        let text = "[frontier]\nmin_delay_ms = 5\nmax_delay_ms = 1\n[[scope.rules]]\nrule = \"reject\"\n\
                    [[scope.rules]]\nrule = \"matches_regex\"\nregex = \"(\"\n[[filters.url]]\npath = \"-/a/\"\n\
                    extension = \"-jpg\"\n[[sheet]]\nname = \"s\"\nsurt_prefixes = [\"http://(org,\"]\n\
                    set = { \"frontier.min_delay\" = 1 }\n[seeds]\nurls = [\"http://a.org/\"]\n";
        let e = CrawlConfig::check_str(text, Path::new("my.toml")).unwrap_err();
        let got: Vec<_> = e
            .problems
            .iter()
            .map(|p| (p.key.clone().unwrap_or_default(), p.at.map(|a| a.0)))
            .collect();
        assert_eq!(
            got,
            [
                ("frontier.min_delay_ms".to_string(), Some(2)),
                ("scope.rules[1].regex".to_string(), Some(8)),
                ("filters.url[0]".to_string(), Some(9)),
                ("sheet[0].set".to_string(), Some(15)),
            ],
            "{e}"
        );
    }

    /// A wrong choice names its key and the choices, with the document that describes them; a list given to
    /// `not` says what `not` takes; a number too big says the key's range.
    #[test]
    fn choices_lists_and_big_numbers_are_explained() {
        let rows: &[(&str, &[&str])] = &[
            (
                "[fetch]\ncookies = \"jar\"\n",
                &[
                    "fetch.cookies = \"jar\" is not one of: off, job, sheet\n",
                    "docs/configuration.md",
                ],
            ),
            (
                "[warc]\ncompression = \"bzip2\"\n",
                &["warc.compression = \"bzip2\" is not one of: gzip, none, zstd"],
            ),
            (
                "[frontier]\nqueue_assignment = \"hostname\"\n",
                &["frontier.queue_assignment = \"hostname\" is not one of: host, domain, ip"],
            ),
            (
                "[frontier]\nuniq = \"fuzzy\"\n",
                &["frontier.uniq = \"fuzzy\" is not one of: exact, bloom"],
            ),
            (
                "[frontier]\nuri_precedence = \"random\"\n",
                &["frontier.uri_precedence = \"random\" is not one of: fifo, hops"],
            ),
            (
                "[[credentials]]\nkind = \"ntlm\"\ndomain = \"a.org\"\nuser = \"a\"\npassword_env = \"P\"\n",
                &[
                    "credentials[0].kind = \"ntlm\" is not one of: basic",
                    "line 2",
                ],
            ),
            (
                "[[scope.rules]]\nrule = \"accept\"\ndecision = \"maybe\"\n",
                &[
                    "scope.rules[0].decision = \"maybe\" is not one of: accept, reject",
                    "docs/scope.md",
                ],
            ),
            (
                "[[url_class]]\nname = \"x\"\nkind = \"post\"\nexample = \"http://a.org/p/1\"\n\
                 domains = [\"a.org\"]\npath = [{ match = \"numerik\" }]\n",
                &[
                    "url_class[0].path[0].match = \"numerik\"",
                    "did you mean \"numeric\"?",
                    "docs/url-classes.md",
                ],
            ),
            (
                "[[scope.rules]]\nrule = \"too_many_hopz\"\n",
                &[
                    "unknown name `too_many_hopz`: did you mean `too_many_hops`?",
                    "docs/scope.md",
                ],
            ),
            (
                "[[scope.rules]]\nrule = \"not\"\ndecision = \"reject\"\nof = [{ rule = \"seed_accept\" }]\n",
                &["`not` rule's `of` is one rule, written as a table: of = { rule ="],
            ),
            // An unknown key is pointed at the document listing its neighbours.
            (
                "[[url_class]]\nname = \"x\"\nkind = \"post\"\nexample = \"http://a.org/p/1\"\n\
                 domains = [\"a.org\"]\nbogus = true\n",
                &["every key is listed in docs/url-classes.md"],
            ),
            (
                "[[scope.rules]]\nrule = \"too_many_hops\"\nmax_hopz = 3\n",
                &["every key is listed in docs/scope.md"],
            ),
            (
                "[fetch]\ntimeout = 3\n",
                &["every key is listed in docs/configuration.md"],
            ),
            (
                "[fetch]\nmax_connections = 99999999999999999999\n",
                &[
                    "fetch.max_connections: the number `99999999999999999999` is out of range: give a whole \
                     number from 0 to 9223372036854775807",
                ],
            ),
            // A number where a choice goes (xt43a N7).
            (
                "[browser]\nmode = 1\n",
                &["browser.mode: expected one of its choices, in quotes"],
            ),
            // Too big for the key's own type, not for TOML's (xt42b): its range, not "0 or more".
            (
                "[browser]\nmax_scrolls = 100000000000\n",
                &[
                    "browser.max_scrolls: the number `100000000000` is out of range: give a whole number from 0 \
                     to 4294967295",
                ],
            ),
        ];
        for (text, wants) in rows {
            let e = CrawlConfig::parse(text, Path::new("x.toml"))
                .unwrap_err()
                .to_string();
            for want in *wants {
                assert!(e.contains(want), "{text}: want {want:?} in {e}");
            }
            assert!(
                !e.contains("i128") && !e.contains("variant identifier"),
                "{e}"
            );
        }
    }

    /// Every problem of an array-of-tables entry shows in one run: a URL class with an unknown key and a bad
    /// `match`; a sheet whose rule has a misspelt key, beside the problems of its `set`.
    #[test]
    fn every_problem_of_an_entry_is_reported() {
        let text = "[[url_class]]\nname = \"x\"\nkind = \"post\"\nexample = \"http://a.org/p/1\"\n\
                    domains = [\"a.org\"]\nbogus = true\npath = [{ match = \"numerik\" }]\n\
                    [[sheet]]\nname = \"s\"\nrules = [{ rule = \"too_many_hops\", max_hopz = 5 }]\n\
                    set = { \"scope.max_outlinks\" = \"many\", \"fetch.timeout_ms\" = 0 }\n";
        let e = CrawlConfig::check_str(text, Path::new("my.toml")).unwrap_err();
        let got: Vec<_> = e
            .problems
            .iter()
            .map(|p| (p.stage, p.at.map(|a| a.0)))
            .collect();
        assert_eq!(
            got,
            [
                (Stage::Wiring, Some(6)),
                (Stage::Wiring, Some(7)),
                (Stage::Wiring, Some(10)),
                (Stage::Semantics, Some(11)),
                (Stage::Semantics, Some(11)),
            ],
            "{e}"
        );
        let s = e.to_string();
        for want in [
            "unknown key `bogus`",
            "url_class[0].path[0].match = \"numerik\"",
            "unknown key `max_hopz`: did you mean `max_hops`?",
            "scope.max_outlinks: found the text \"many\"",
            "fetch.timeout_ms must be at least 1",
        ] {
            assert!(s.contains(want), "{want}: {s}");
        }
    }

    /// A rule of a sheet with an unknown name is left out, and the sheet's `set` and its other rules are
    /// still checked (xt6c F8); rules after it keep their place in the messages.
    #[test]
    fn an_unknown_rule_name_does_not_hide_the_rest_of_its_sheet() {
        let text = "[seeds]\nurls = [\"http://a.org/\"]\n[[sheet]]\nname = \"s\"\n\
                    set = { \"fetch.timeout_ms\" = 0 }\n\
                    rules = [{ rule = \"too_many_hopz\" }, { rule = \"too_many_hops\", max_hopz = 1 }, { rule = \"nope\" }, { rule = \"too_many_hops\", max_hops = 1, bad = 2 }]\n";
        let e = CrawlConfig::check_str(text, Path::new("my.toml")).unwrap_err();
        let s = e.to_string();
        for want in [
            "unknown name `too_many_hopz`: did you mean `too_many_hops`?",
            "unknown key `max_hopz`",
            "unknown name `nope`",
            "unknown key `bad`",
            "fetch.timeout_ms must be at least 1",
        ] {
            assert!(s.contains(want), "{want}: {s}");
        }
        // The last rule's bad key is pointed at where it is in the file, though two rules before it were
        // taken out.
        let at: Vec<_> = e.problems.iter().filter_map(|p| p.at).collect();
        assert_eq!(at, [(6, 19), (6, 64), (6, 89), (6, 139), (5, 1)], "{e}");
        // The finding's own case: the sheet's only rule misnamed. Its `set` is checked, and the sheet is
        // not said to apply to nothing; a value spelt like the unknown name is not taken for it.
        let text = "[seeds]\nurls = [\"http://a.org/\"]\n[[sheet]]\nname = \"s\"\n\
                    set = { \"fetch.timeout_ms\" = 0 }\n\
                    rules = [{ rule = \"matches_regex\", regex = \"nope\" }, { rule = \"nope\" }]\n";
        let e = CrawlConfig::check_str(text, Path::new("my.toml")).unwrap_err();
        let s = e.to_string();
        assert_eq!(e.problems.len(), 2, "{s}");
        assert!(s.contains("my.toml:6:63: unknown name `nope`"), "{s}");
        assert!(s.contains("fetch.timeout_ms must be at least 1"), "{s}");
    }

    /// An included file's paths are read from its own folder (xt14b F2: from the including file's).
    #[test]
    fn an_included_files_paths_are_its_own_folders() {
        let dir = tempfile::tempdir().unwrap();
        let profiles = dir.path().join("profiles");
        std::fs::create_dir(&profiles).unwrap();
        std::fs::write(profiles.join("seeds.txt"), "http://127.0.0.1:1/a\n").unwrap();
        std::fs::write(
            profiles.join("base.toml"),
            "[seeds]\nfiles = [\"seeds.txt\"]\n[browser]\nbehaviors_file = \"\"\n",
        )
        .unwrap();
        let c = CrawlConfig::check_str(
            "include = [\"profiles/base.toml\"]\n",
            &dir.path().join("crawl.toml"),
        )
        .unwrap();
        assert_eq!(c.seeds.urls, ["http://127.0.0.1:1/a"]);
        assert_eq!(c.browser.behaviors_file, "", "an empty path stays empty");
    }

    /// xt38a N3: a top file named by a relative path had its included file's paths joined to its folder twice.
    #[test]
    fn an_included_files_paths_hold_for_a_top_file_named_relatively() {
        // In the working folder, so that the top file is named by a relative path that stays below it.
        let dir = tempfile::tempdir_in(".").unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        std::fs::write(a.join("seeds.txt"), "http://127.0.0.1:1/a\n").unwrap();
        std::fs::write(a.join("common.toml"), "[seeds]\nfiles = [\"seeds.txt\"]\n").unwrap();
        std::fs::write(b.join("crawl.toml"), "include = [\"../a/common.toml\"]\n").unwrap();
        let name = dir.path().file_name().unwrap();
        let relative = Path::new(name).join("b").join("crawl.toml");
        let c = CrawlConfig::check(&relative).unwrap();
        assert_eq!(c.seeds.urls, ["http://127.0.0.1:1/a"]);
    }

    #[test]
    fn includes_merge_with_the_including_file_winning() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("base.toml"),
            "[frontier]\nmin_delay_ms = 100\nmax_delay_ms = 200\n[[sheet]]\nname = \"a\"\nsurt_prefixes = [\"http://(org,\"]\nset = { \"frontier.min_delay_ms\" = 1 }\n",
        )
        .unwrap();
        let main = dir.path().join("crawl.toml");
        let c = CrawlConfig::check_str(
            "include = [\"base.toml\"]\n[frontier]\nmin_delay_ms = 150\n[[sheet]]\nname = \"b\"\nsurt_prefixes = [\"http://(com,\"]\nset = { \"frontier.min_delay_ms\" = 2 }\n",
            &main,
        )
        .unwrap();
        assert_eq!(
            (c.frontier.min_delay_ms, c.frontier.max_delay_ms),
            (150, 200)
        );
        assert_eq!(
            c.sheets.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
        // A value an included file writes is the operator's, not "the default" (review 65 R10).
        std::fs::write(
            dir.path().join("slow.toml"),
            "[frontier]\nmin_delay_ms = 3000\n",
        )
        .unwrap();
        let e = CrawlConfig::check_str(
            "include = [\"slow.toml\"]\n[frontier]\nmax_delay_ms = 1000\n",
            &main,
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("frontier.min_delay_ms = 3000 is above frontier.max_delay_ms = 1000;"),
            "{e}"
        );
        std::fs::write(
            dir.path().join("bad.toml"),
            "[frontier]\nmin_delay_msx = 1\n",
        )
        .unwrap();
        let e =
            CrawlConfig::check_str("include = [\"bad.toml\", \"nope.toml\"]\n", &main).unwrap_err();
        let s = e.to_string();
        assert!(
            s.contains("bad.toml:2:1") && s.contains("crawl.toml:1:") && s.contains("nope.toml"),
            "{s}"
        );
    }

    #[test]
    fn seeds_outside_the_scope() {
        let text = "[seeds]\nurls = [\"http://a.org/\", \"http://b.org/\"]\n[[scope.rules]]\nrule = \"reject\"\n\
                    [[scope.rules]]\nrule = \"on_domains\"\ndomains = [\"a.org\"]\n";
        let e = CrawlConfig::check_str(text, Path::new("my.toml")).unwrap_err();
        assert_eq!(e.problems.len(), 1, "{e}");
        let p = &e.problems[0];
        assert_eq!(
            (p.key.as_deref(), p.at),
            (Some("seeds.urls[1]"), Some((2, 26)))
        );
        assert!(
            p.message.contains("rule reject rejects it") && p.hint.is_some(),
            "{e}"
        );
    }

    /// A seed from a seed file is named by its file and line, not as an inline seed; a file that is not
    /// UTF-8 names its line.
    #[test]
    fn seeds_from_a_file_are_named_by_their_line() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("crawl.toml");
        std::fs::write(
            dir.path().join("s.txt"),
            "http://a.org/\n# note\nhttp://b.org/\n",
        )
        .unwrap();
        let text = "[seeds]\nurls = [\"http://a.org/x\"]\nfiles = [\"s.txt\"]\n[[scope.rules]]\nrule = \"reject\"\n\
                    [[scope.rules]]\nrule = \"on_domains\"\ndomains = [\"a.org\"]\n";
        let e = CrawlConfig::check_str(text, &main).unwrap_err();
        assert_eq!(e.problems.len(), 1, "{e}");
        let p = &e.problems[0];
        assert_eq!(p.key.as_deref(), Some("seeds.files[0]"), "{e}");
        assert!(
            p.message
                .starts_with("s.txt, line 3: seed http://b.org/ is outside the scope"),
            "{e}"
        );
        std::fs::write(
            dir.path().join("s.txt"),
            b"http://a.org/\nhttp://b\xff.org/\n",
        )
        .unwrap();
        let e = CrawlConfig::check_str(text, &main).unwrap_err();
        assert!(e.to_string().contains("line 2 is not UTF-8 text"), "{e}");
    }
}
