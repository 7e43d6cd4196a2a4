//! Scalar properties of Heritrix beans and the trawl setting each becomes, with the unit conversion: used for
//! the beans themselves and for the entries of sheets (`disposition.delayFactor` → `frontier.delay_factor`).

/// What one property becomes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Mapped {
    /// This trawl setting, with this value.
    Set(&'static str, toml::Value),
    /// Nothing to write: trawl behaves so already (the reason, for sheets that set it).
    Same(&'static str),
    /// Not honoured: why, and the closest trawl setting.
    Note(String, Option<&'static str>),
}

/// How a value converts.
#[derive(Clone, Copy)]
enum Unit {
    /// A whole number, as is.
    Int,
    /// A whole number times this (seconds to ms: 1000; KB to bytes: 1024).
    Times(i64),
    /// A decimal number.
    Float,
    /// A string.
    Text,
}

/// `(class short name, property, trawl key, unit)`.
const TABLE: &[(&str, &str, &str, Unit)] = &[
    (
        "DispositionProcessor",
        "delayFactor",
        "frontier.delay_factor",
        Unit::Float,
    ),
    (
        "DispositionProcessor",
        "minDelayMs",
        "frontier.min_delay_ms",
        Unit::Int,
    ),
    (
        "DispositionProcessor",
        "maxDelayMs",
        "frontier.max_delay_ms",
        Unit::Int,
    ),
    (
        "DispositionProcessor",
        "respectCrawlDelayUpToSeconds",
        "frontier.max_crawl_delay_ms",
        Unit::Times(1000),
    ),
    (
        "DispositionProcessor",
        "maxPerHostBandwidthUsageKbSec",
        "frontier.max_host_bytes_per_s",
        Unit::Times(1024),
    ),
    (
        "BdbFrontier",
        "maxRetries",
        "frontier.max_retries",
        Unit::Int,
    ),
    (
        "BdbFrontier",
        "retryDelaySeconds",
        "frontier.retry_delay_ms",
        Unit::Times(1000),
    ),
    (
        "BdbFrontier",
        "balanceReplenishAmount",
        "frontier.balance_replenish",
        Unit::Int,
    ),
    (
        "BdbFrontier",
        "maxOutlinks",
        "scope.max_outlinks",
        Unit::Int,
    ),
    (
        "FetchHTTP",
        "timeoutSeconds",
        "fetch.max_fetch_ms",
        Unit::Times(1000),
    ),
    ("FetchHTTP", "soTimeoutMs", "fetch.timeout_ms", Unit::Int),
    (
        "PreconditionEnforcer",
        "robotsValidityDurationSeconds",
        "fetch.robots_expiry_s",
        Unit::Int,
    ),
    (
        "CrawlController",
        "maxToeThreads",
        "fetch.max_connections",
        Unit::Int,
    ),
    (
        "WARCWriterChainProcessor",
        "prefix",
        "warc.prefix",
        Unit::Text,
    ),
    ("WARCWriterProcessor", "prefix", "warc.prefix", Unit::Text),
    (
        "WARCWriterChainProcessor",
        "maxFileSizeBytes",
        "warc.max_file_bytes",
        Unit::Int,
    ),
    (
        "WARCWriterProcessor",
        "maxFileSizeBytes",
        "warc.max_file_bytes",
        Unit::Int,
    ),
    (
        "BaseQueuePrecedencePolicy",
        "basePrecedence",
        "frontier.queue_precedence",
        Unit::Int,
    ),
    (
        "HopsUriPrecedencePolicy",
        "basePrecedence",
        "frontier.uri_precedence_base",
        Unit::Int,
    ),
    (
        "BaseUriPrecedencePolicy",
        "basePrecedence",
        "frontier.uri_precedence_base",
        Unit::Int,
    ),
    // Heritrix has no such property (see `convert::policy_bean`, which notes it); the intent is clear.
    (
        "CostUriPrecedencePolicy",
        "basePrecedence",
        "frontier.uri_precedence_base",
        Unit::Int,
    ),
    (
        "SurtAuthorityQueueAssignmentPolicy",
        "parallelQueues",
        "frontier.parallel_queues",
        Unit::Int,
    ),
    (
        "HostnameQueueAssignmentPolicy",
        "parallelQueues",
        "frontier.parallel_queues",
        Unit::Int,
    ),
    (
        "AssignmentLevelSurtQueueAssignmentPolicy",
        "parallelQueues",
        "frontier.parallel_queues",
        Unit::Int,
    ),
    (
        "IPQueueAssignmentPolicy",
        "parallelQueues",
        "frontier.parallel_queues",
        Unit::Int,
    ),
];

/// The trawl form of `class.property = text`.
pub(crate) fn map(class: &str, property: &str, text: &str) -> Mapped {
    let text = text.trim();
    if let Some(m) = special(class, property, text) {
        return m;
    }
    let Some(&(_, _, key, unit)) = TABLE
        .iter()
        .find(|(c, p, _, _)| *c == class && p.eq_ignore_ascii_case(property))
    else {
        return Mapped::Note("trawl has no such setting".into(), None);
    };
    match convert(text, unit) {
        Some(v) => Mapped::Set(key, v),
        None => Mapped::Note(
            format!("{text:?} is not a value of this property"),
            Some(key),
        ),
    }
}

fn convert(text: &str, unit: Unit) -> Option<toml::Value> {
    Some(match unit {
        Unit::Int => toml::Value::Integer(text.parse().ok().filter(|n: &i64| *n >= 0)?),
        Unit::Times(k) => toml::Value::Integer(
            text.parse::<i64>()
                .ok()
                .filter(|n| *n >= 0)?
                .checked_mul(k)?,
        ),
        Unit::Float => toml::Value::Float(text.parse().ok()?),
        Unit::Text => toml::Value::String(text.to_owned()),
    })
}

/// Spring's booleans: `true/false`, `yes/no`, `on/off`, `1/0`.
pub(crate) fn parse_bool(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" => Some(true),
        "false" | "no" | "off" | "0" => Some(false),
        _ => None,
    }
}

/// Properties whose value changes their meaning, or which trawl takes as its own behaviour.
fn special(class: &str, property: &str, text: &str) -> Option<Mapped> {
    let note = |why: &str, closest: Option<&'static str>| Some(Mapped::Note(why.into(), closest));
    match (class, property) {
        ("BdbFrontier", "queueTotalBudget") => match text.parse::<i64>() {
            Ok(n) if n < 0 => Some(Mapped::Same("no budget, as trawl's default")),
            Ok(n) => Some(Mapped::Set(
                "frontier.max_uris_per_host",
                toml::Value::Integer(n),
            )),
            Err(_) => note("not a whole number", Some("frontier.max_uris_per_host")),
        },
        ("FetchHTTP", "maxLengthBytes") => match text.parse::<i64>() {
            Ok(0) => note(
                "0 means no limit in Heritrix; trawl always cuts bodies at fetch.max_bytes (default 100 MiB)",
                Some("fetch.max_bytes"),
            ),
            Ok(n) if n > 0 => Some(Mapped::Set("fetch.max_bytes", toml::Value::Integer(n))),
            _ => note("not a length", Some("fetch.max_bytes")),
        },
        ("FetchHTTP", "soTimeoutMs") if text == "0" => note(
            "0 means no read timeout in Heritrix; trawl always has one",
            Some("fetch.timeout_ms"),
        ),
        ("FetchHTTP", "acceptCompression") => match parse_bool(text) {
            Some(true) => Some(Mapped::Same(
                "trawl always sends Accept-Encoding: gzip, deflate",
            )),
            _ => note(
                "trawl always asks for gzip/deflate and records the encoded bytes",
                None,
            ),
        },
        ("FetchHTTP", "useHTTP11") => match parse_bool(text) {
            Some(true) => Some(Mapped::Same("trawl speaks HTTP/1.1")),
            _ => note("trawl speaks HTTP/1.1, not HTTP/1.0", None),
        },
        ("CandidatesProcessor", "seedsRedirectNewSeeds") => match parse_bool(text) {
            Some(true) => Some(Mapped::Same(
                "a seed's redirect target is a seed, as trawl's default",
            )),
            Some(false) => Some(Mapped::Set(
                "scope.seed_redirects_new_seeds",
                toml::Value::Boolean(false),
            )),
            None => note("not true or false", Some("scope.seed_redirects_new_seeds")),
        },
        // Heritrix keeps cookies unless told not to; so does trawl (`fetch.cookies = "job"`, one jar).
        ("FetchHTTP", "ignoreCookies") => match parse_bool(text) {
            Some(true) => Some(Mapped::Set(
                "fetch.cookies",
                toml::Value::String("off".into()),
            )),
            _ => Some(Mapped::Same(
                "trawl keeps cookies in one jar for the job (fetch.cookies = \"job\")",
            )),
        },
        ("FetchHTTP", "sendConnectionClose") => match parse_bool(text) {
            Some(false) => Some(Mapped::Same("trawl keeps connections alive")),
            _ => note(
                "trawl keeps connections alive between fetches from one host",
                None,
            ),
        },
        ("ExtractorHTML", "obeyRelNofollow") => match parse_bool(text) {
            Some(false) => Some(Mapped::Same("trawl follows rel=nofollow links")),
            _ => note(
                "trawl follows rel=nofollow links; with obey_robots it obeys <meta name=robots content=nofollow>",
                Some("fetch.obey_robots"),
            ),
        },
        ("WARCWriterChainProcessor" | "WARCWriterProcessor", "skipIdenticalDigests") => {
            match parse_bool(text) {
                Some(false) => Some(Mapped::Same("trawl writes every fetch")),
                _ => note(
                    "trawl writes a revisit record (the HTTP head, no payload) where Heritrix would skip a \
                     fetch whose payload is archived already",
                    Some("warc.dedup"),
                ),
            }
        }
        (
            "WARCWriterChainProcessor" | "WARCWriterProcessor",
            property @ ("writeRequests" | "writeMetadata"),
        ) => {
            let key = match property {
                "writeRequests" => "warc.write_requests",
                _ => "warc.write_metadata",
            };
            match parse_bool(text) {
                Some(true) => Some(Mapped::Same("trawl writes them, as its default")),
                Some(false) => Some(Mapped::Set(key, toml::Value::Boolean(false))),
                None => note("not true or false", Some(key)),
            }
        }
        ("WARCWriterChainProcessor" | "WARCWriterProcessor", "compress") => {
            let c = if parse_bool(text)? { "gzip" } else { "none" };
            Some(Mapped::Set(
                "warc.compression",
                toml::Value::String(c.into()),
            ))
        }
        ("WARCWriterChainProcessor" | "WARCWriterProcessor", "maxFileSizeBytes")
            if text.starts_with('-') =>
        {
            // Never roll over: trawl's 0.
            Some(Mapped::Set("warc.max_file_bytes", toml::Value::Integer(0)))
        }
        ("CheckpointService", "checkpointIntervalMinutes") => match text.parse::<i64>() {
            Ok(n) if n <= 0 => Some(Mapped::Same("no periodic checkpoints, as trawl's default")),
            Ok(n) => Some(Mapped::Set(
                "frontier.checkpoint_interval_s",
                toml::Value::Integer(n.saturating_mul(60)),
            )),
            Err(_) => note("not a whole number", Some("frontier.checkpoint_interval_s")),
        },
        ("PreconditionEnforcer", "robotsValidityDurationSeconds") if text == "0" => note(
            "0 (never expires) has no trawl form; use a long expiry",
            Some("fetch.robots_expiry_s"),
        ),
        ("CrawlController", "pauseAtStart") => match parse_bool(text) {
            Some(false) => Some(Mapped::Same("trawl starts crawling at once")),
            _ => note(
                "trawl starts crawling at once; pause it with `trawl ctl JOB pause`",
                None,
            ),
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_convert() {
        assert_eq!(
            map(
                "DispositionProcessor",
                "respectCrawlDelayUpToSeconds",
                "300"
            ),
            Mapped::Set("frontier.max_crawl_delay_ms", 300_000.into())
        );
        assert_eq!(
            map(
                "DispositionProcessor",
                "maxPerHostBandwidthUsageKbSec",
                " 10 "
            ),
            Mapped::Set("frontier.max_host_bytes_per_s", 10_240.into())
        );
        assert_eq!(
            map("DispositionProcessor", "delayFactor", "4"),
            Mapped::Set("frontier.delay_factor", 4.0.into())
        );
        assert!(matches!(
            map("DispositionProcessor", "delayFactor", "fast"),
            Mapped::Note(_, Some("frontier.delay_factor"))
        ));
        assert!(matches!(
            map("FetchHTTP", "sendReferer", "true"),
            Mapped::Note(_, None)
        ));
        assert_eq!(
            map("BdbFrontier", "queueTotalBudget", "-1"),
            Mapped::Same("no budget, as trawl's default")
        );
        assert_eq!(
            map("CandidatesProcessor", "seedsRedirectNewSeeds", "false"),
            Mapped::Set("scope.seed_redirects_new_seeds", false.into())
        );
        assert!(matches!(
            map("CandidatesProcessor", "seedsRedirectNewSeeds", "true"),
            Mapped::Same(_)
        ));
    }
}
