//! Heritrix 3's bean classes (testdata/heritrix/NOTES.md): the ones the importer converts ([`KNOWN`]), every
//! class of every release ([`super::releases`]), the ones renamed since (read as what they became), and what a
//! Heritrix class trawl does not run did. A bean trawl does not carry over (a Heritrix processor it does not run,
//! a third-party class) is reported with its line and its place in the job; the chain goes on without it.

use super::beans::{Bean, Beans, Value};
use super::profile::Note;
use super::releases::CLASSES;

/// Properties of Heritrix's history and dedup beans that say where an earlier crawl's record is: a crawl.log
/// or history to preload, the DeDuplicator's index.
const EARLIER_CRAWL: &[&str] = &[
    "preloadSource",
    "preloadSourceUrl",
    "indexLocation",
    "historyDbDir",
];

/// Packages whose classes are plumbing to Spring or the JDK, never a crawl setting.
const PLUMBING: &[&str] = &["org.springframework.", "java.", "javax."];

/// The Heritrix 3 classes (short name after its package) the importer converts or reports by name.
const KNOWN: &[&str] = &[
    // framework and engine
    "CrawlController",
    "CrawlMetadata",
    "CrawlLimitEnforcer",
    "CheckpointService",
    "ActionDirectory",
    "StatisticsTracker",
    "CrawlerLoggerModule",
    "SheetOverlaysManager",
    "SurtPrefixesSheetAssociation",
    "DecideRuledSheetAssociation",
    "Sheet",
    "BdbModule",
    "BdbCookieStore",
    "BdbServerCache",
    "ConfigPathConfigurer",
    "ConfigString",
    "ConfigFile",
    "DiskSpaceMonitor",
    "BdbUriUniqFilter",
    "BloomUriUniqFilter",
    "BdbFrontier",
    // seeds
    "TextSeedModule",
    // chains and processors
    "CandidateChain",
    "FetchChain",
    "DispositionChain",
    "CandidateScoper",
    "FrontierPreparer",
    "Preselector",
    "PreconditionEnforcer",
    "QuotaEnforcer",
    "FetchDNS",
    "FetchHTTP",
    "FetchHTTP2",
    "FetchWhois",
    "FetchFTP",
    "FetchSFTP",
    "ExtractorHTTP",
    "ExtractorRobotsTxt",
    "ExtractorSitemap",
    "ExtractorHTML",
    "ExtractorCSS",
    "ExtractorJS",
    "ExtractorSWF",
    "ExtractorPDF",
    "ExtractorDOC",
    "ExtractorXML",
    "ExtractorImpliedURI",
    "ExtractorURI",
    "ExtractorMultipleRegex",
    "BrowserProcessor",
    "ScrollDownBehavior",
    "ExtractLinksBehavior",
    "WARCWriterChainProcessor",
    "WARCWriterProcessor",
    "ARCWriterProcessor",
    "DnsResponseRecordBuilder",
    "HttpResponseRecordBuilder",
    "WhoisResponseRecordBuilder",
    "FtpControlConversationRecordBuilder",
    "FtpResponseRecordBuilder",
    "RevisitRecordBuilder",
    "HttpRequestRecordBuilder",
    "MetadataRecordBuilder",
    "CandidatesProcessor",
    "DispositionProcessor",
    "ReschedulingProcessor",
    // frontier policies
    "SurtAuthorityQueueAssignmentPolicy",
    "HostnameQueueAssignmentPolicy",
    "AssignmentLevelSurtQueueAssignmentPolicy",
    "IPQueueAssignmentPolicy",
    "BucketQueueAssignmentPolicy",
    "HostnameQueueAssignmentPolicyWithLimits",
    "SurtAuthorityQueueAssignmentPolicyWithLimits",
    "BaseQueuePrecedencePolicy",
    "HighestUriQueuePrecedencePolicy",
    "SuccessCountsQueuePrecedencePolicy",
    "CostUriPrecedencePolicy",
    "BaseUriPrecedencePolicy",
    "HopsUriPrecedencePolicy",
    "PreloadedUriPrecedencePolicy",
    "UnitCostAssignmentPolicy",
    "ZeroCostAssignmentPolicy",
    "WagCostAssignmentPolicy",
    "AntiCalendarCostAssignmentPolicy",
    // canonicalization
    "RulesCanonicalizationPolicy",
    "LowercaseRule",
    "StripUserinfoRule",
    "StripWWWNRule",
    "StripWWWRule",
    "StripSessionIDs",
    "StripSessionCFIDs",
    "FixupQueryString",
    "StripExtraSlashes",
    "StripTrailingSlashAtEndOfPath",
    "RegexRule",
    // credentials and robots
    "CredentialStore",
    "HttpAuthenticationCredential",
    "HtmlFormCredential",
    "FirstNamedRobotsPolicy",
    "MostFavoredRobotsPolicy",
    "CustomRobotsPolicy",
    "ObeyRobotsPolicy",
    "IgnoreRobotsPolicy",
    // reports
    "CrawlSummaryReport",
    "SeedsReport",
    "HostsReport",
    "SourceTagsReport",
    "MimetypesReport",
    "ResponseCodeReport",
    "ProcessorsReport",
    "FrontierSummaryReport",
    "FrontierNonemptyReport",
    "ToeThreadsReport",
    // decide rules (converted in rules.rs)
    "DecideRuleSequence",
    "AcceptDecideRule",
    "RejectDecideRule",
    "SurtPrefixedDecideRule",
    "NotSurtPrefixedDecideRule",
    "OnDomainsDecideRule",
    "NotOnDomainsDecideRule",
    "OnHostsDecideRule",
    "NotOnHostsDecideRule",
    "TooManyHopsDecideRule",
    "TransclusionDecideRule",
    "MatchesListRegexDecideRule",
    "NotMatchesListRegexDecideRule",
    "MatchesRegexDecideRule",
    "NotMatchesRegexDecideRule",
    "PathologicalPathDecideRule",
    "TooManyPathSegmentsDecideRule",
    "PrerequisiteAcceptDecideRule",
    "SeedAcceptDecideRule",
    "SchemeNotInSetDecideRule",
    "HopsPathMatchesRegexDecideRule",
    "ContentTypeMatchesRegexDecideRule",
    "ContentTypeNotMatchesRegexDecideRule",
    "FetchStatusMatchesRegexDecideRule",
    "FetchStatusNotMatchesRegexDecideRule",
    "FetchStatusDecideRule",
    "ResponseContentLengthDecideRule",
    "IpAddressSetDecideRule",
    "HopCrossesAssignmentLevelDomainDecideRule",
    "MatchesFilePatternDecideRule",
    "NotMatchesFilePatternDecideRule",
    "ViaSurtPrefixedDecideRule",
    "ExternalGeoLocationDecideRule",
    "ScriptedDecideRule",
];

/// Classes renamed in Heritrix 3: `(old name, what it became, releases that had the old name)`.
const RENAMED: &[(&str, &str, &str)] = &[
    (
        "org.archive.modules.fetcher.BdbCookieStorage",
        "org.archive.modules.fetcher.BdbCookieStore",
        "3.0–3.2",
    ),
    (
        "org.archive.modules.fetcher.SimpleCookieStorage",
        "org.archive.modules.fetcher.SimpleCookieStore",
        "3.0–3.2",
    ),
    (
        "org.archive.modules.fetcher.AbstractCookieStorage",
        "org.archive.modules.fetcher.AbstractCookieStore",
        "3.0–3.2",
    ),
    (
        "org.archive.modules.fetcher.CookieStorage",
        "org.archive.modules.fetcher.FetchHTTPCookieStore",
        "3.0–3.2",
    ),
    (
        "org.archive.modules.deciderules.ExceedsDocumentLengthThresholdDecideRule",
        "org.archive.modules.deciderules.ResourceLongerThanDecideRule",
        "3.0",
    ),
    (
        "org.archive.modules.deciderules.NotExceedsDocumentLengthTresholdDecideRule",
        "org.archive.modules.deciderules.ResourceNoLongerThanDecideRule",
        "3.0",
    ),
];

/// What Heritrix classes trawl does not run did: `(short class, what it did, closest trawl setting)`.
const WHAT_IT_DID: &[(&str, &str, Option<&str>)] = &[
    (
        "MirrorWriterProcessor",
        "wrote each fetched document into a folder tree that mirrors its URL; trawl writes WARC files only",
        Some("warc"),
    ),
    (
        "Kw3WriterProcessor",
        "wrote Kulturarw3 archive files; trawl writes WARC files only",
        Some("warc"),
    ),
    (
        "ContentDigestHistoryLoader",
        "looked up each payload digest in a history of earlier crawls, for revisit records; trawl deduplicates \
         against this job's WARCs and the captures named in warc.dedup_from",
        Some("warc.dedup_from"),
    ),
    (
        "ContentDigestHistoryStorer",
        "stored each payload digest in a history for later crawls; trawl's WARC indexes serve later crawls as \
         warc.dedup_from",
        Some("warc.dedup_from"),
    ),
    (
        "BdbContentDigestHistory",
        "held payload digests of earlier crawls in BDB; trawl reads earlier captures from warc.dedup_from",
        Some("warc.dedup_from"),
    ),
    (
        "PersistLoadProcessor",
        "loaded each URI's fetch history from an earlier crawl; trawl reads earlier captures from \
         warc.dedup_from (validators with fetch.conditional_recrawl)",
        Some("warc.dedup_from, fetch.conditional_recrawl"),
    ),
    (
        "PersistStoreProcessor",
        "stored each URI's fetch history for a later crawl; trawl's WARCs serve later crawls as warc.dedup_from",
        Some("warc.dedup_from"),
    ),
    (
        "PersistLogProcessor",
        "logged each URI's fetch history for a later crawl; trawl's WARCs serve later crawls as warc.dedup_from",
        Some("warc.dedup_from"),
    ),
    (
        "FetchHistoryProcessor",
        "kept each URI's recent fetches for revisits; trawl compares payload digests and, with \
         fetch.conditional_recrawl, validators",
        Some("fetch.conditional_recrawl"),
    ),
    (
        "LinksScoper",
        "scoped a page's links in the disposition chain (Heritrix 3.0–3.2); trawl's scope judges every link in \
         its candidate chain",
        Some("[[scope.rules]]"),
    ),
    (
        "SupplementaryLinksScoper",
        "scoped links a second time after the first scope; trawl judges a link once, by the scope of its own \
         sheets",
        Some("[[scope.rules]]"),
    ),
    (
        "RobotsHonoringPolicy",
        "chose how robots.txt was obeyed (Heritrix 3.0); trawl obeys robots.txt for its own product token, or \
         ignores it",
        Some("fetch.obey_robots"),
    ),
    (
        "HostQuotaEnforcer",
        "capped what one host may fetch (documents, bytes); trawl caps URIs per host",
        Some("frontier.max_uris_per_host"),
    ),
    (
        "SourceQuotaEnforcer",
        "capped what the URIs of one source tag may fetch; trawl caps URIs per host",
        Some("frontier.max_uris_per_host"),
    ),
    (
        "WARCLimitEnforcer",
        "stopped the crawl after so many WARC bytes or files; trawl has no crawl-wide limits",
        Some("stop the crawl with `trawl ctl JOB stop`"),
    ),
    (
        "FormLoginProcessor",
        "submitted a login form where a page held one; trawl logs in with [[credentials]] (docs/access.md)",
        Some("[[credentials]]"),
    ),
    (
        "ExtractorHTMLForms",
        "found login forms for FormLoginProcessor; trawl logs in with [[credentials]] (docs/access.md)",
        Some("[[credentials]]"),
    ),
    (
        "TrapSuppressExtractor",
        "dropped the links of a page whose content repeated its via's; trawl's pathological_path and \
         too_many_path_segments rules stop traps",
        Some("[[scope.rules]] pathological_path"),
    ),
    (
        "KafkaCrawlLogFeed",
        "sent each crawl.log line to Kafka; trawl writes crawl.log in the job",
        None,
    ),
    (
        "AMQPCrawlLogFeed",
        "sent each crawl.log line to AMQP; trawl writes crawl.log in the job",
        None,
    ),
    (
        "TroughCrawlLogFeed",
        "sent each crawl.log line to Trough; trawl writes crawl.log in the job",
        None,
    ),
    (
        "AMQPPublishProcessor",
        "published each URI to an AMQP queue (Umbra); trawl drives no browser",
        None,
    ),
    (
        "AMQPUrlReceiver",
        "took URIs from an AMQP queue into the frontier; add seeds to a running trawl crawl with `trawl ctl \
         JOB add-seeds`",
        None,
    ),
    (
        "WbmPersistLoadProcessor",
        "looked up each URI's last capture in the Wayback Machine; trawl reads earlier captures from \
         warc.dedup_from (a CDX file too)",
        Some("warc.dedup_from"),
    ),
];

/// What a bean class is to the importer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Spring's or the JDK's.
    Plumbing,
    /// A Heritrix class the conversion takes (or reports by name).
    Converted,
    /// A Heritrix class trawl does not run: what it did, and the closest trawl setting.
    NotRun(&'static str, Option<&'static str>),
    /// Not one of Heritrix 3's classes.
    ThirdParty,
}

/// What `class` is; a renamed class should have been replaced by [`rename`] first.
pub(crate) fn kind(class: &str) -> Kind {
    if is_plumbing(class) {
        return Kind::Plumbing;
    }
    let short = class.rsplit('.').next().unwrap_or(class);
    let heritrix = CLASSES
        .binary_search_by(|(c, _, _)| (*c).cmp(class))
        .is_ok();
    if class.starts_with("org.archive.") && KNOWN.contains(&short) {
        return Kind::Converted;
    }
    if !heritrix {
        return Kind::ThirdParty;
    }
    if let Some((_, what, closest)) = WHAT_IT_DID.iter().find(|(c, _, _)| *c == short) {
        return Kind::NotRun(what, *closest);
    }
    Kind::NotRun(by_package(class), None)
}

/// What a Heritrix class did, as far as its package tells.
fn by_package(class: &str) -> &'static str {
    let short = class.rsplit('.').next().unwrap_or(class);
    let in_pkg = |p: &str| class.contains(&format!(".{p}."));
    if short.ends_with("DecideRule") {
        "a decide rule trawl has no counterpart of"
    } else if in_pkg("writer") || in_pkg("warc") {
        "wrote what was fetched in a form of its own; trawl writes WARC files"
    } else if in_pkg("extractor") || in_pkg("forms") {
        "found links of its own kind; trawl runs its own extractors (docs/extraction.md)"
    } else if in_pkg("recrawl") || in_pkg("revisit") {
        "kept fetch history across crawls; trawl reads earlier captures from warc.dedup_from"
    } else if in_pkg("postprocessor") || in_pkg("prefetch") || class.ends_with("Processor") {
        "a processor trawl does not run"
    } else if in_pkg("fetcher") || in_pkg("net") {
        "a part of Heritrix's fetcher trawl has no counterpart of"
    } else if in_pkg("reporting") {
        "a report trawl does not write"
    } else {
        "a Heritrix component trawl has no counterpart of"
    }
}

/// Whether `class` is Spring's or the JDK's.
pub(crate) fn is_plumbing(class: &str) -> bool {
    PLUMBING.iter().any(|p| class.starts_with(p))
}

/// Whether the conversion reads a bean of `class` (plumbing is reported by the conversion itself).
pub(crate) fn converted(class: &str) -> bool {
    matches!(kind(class), Kind::Converted | Kind::Plumbing)
}

/// A bean trawl does not carry over.
#[derive(Debug, Clone)]
pub(crate) struct LeftOut {
    pub(crate) line: usize,
    pub(crate) class: String,
    /// What it did (or, for a third-party class, that it is one), and where it was in the job.
    pub(crate) what: String,
}

/// What [`review`] found.
#[derive(Debug, Default)]
pub(crate) struct Review {
    /// Renamed classes and beans not carried over, each a note with its line.
    pub(crate) notes: Vec<Note>,
    /// The beans not carried over, in file order.
    pub(crate) left_out: Vec<LeftOut>,
}

/// Replaces every renamed class (nested beans included) by what it became, and lists the beans trawl does not
/// carry over with their line and their place in the job. Decide rules are not listed as notes here: the
/// conversion of their sequence reports the ones it leaves out.
pub(crate) fn review(beans: &mut Beans) -> Review {
    let mut review = Review::default();
    for b in &mut beans.top {
        rename_all(b, &mut review);
    }
    let places = places(beans);
    for b in &beans.top {
        let place =
            b.id.as_ref()
                .and_then(|id| places.iter().find(|(i, _)| i == id))
                .map(|(_, p)| p.clone());
        visit(b, place, &mut review);
    }
    review
}

fn rename_all(b: &mut Bean, review: &mut Review) {
    if let Some((old, new, releases)) = RENAMED.iter().find(|(old, _, _)| *old == b.class) {
        review.notes.push(Note {
            line: b.line,
            subject: b.subject(),
            message: format!("{old} is Heritrix {releases}'s name of {new}: read as {new}"),
            closest: None,
        });
        b.class = (*new).to_owned();
    }
    for p in &mut b.props {
        rename_value(&mut p.value, review);
    }
    for v in &mut b.ctor_args {
        rename_value(v, review);
    }
}

fn rename_value(v: &mut Value, review: &mut Review) {
    match v {
        Value::Bean(b) => rename_all(b, review),
        Value::List(items) => items.iter_mut().for_each(|v| rename_value(v, review)),
        Value::Map(entries) => entries
            .iter_mut()
            .for_each(|(_, v)| rename_value(v, review)),
        _ => {}
    }
}

/// Where each top-level bean is used: `(id, "one of fetchProcessors' processors")`, from the first reference.
fn places(beans: &Beans) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for b in &beans.top {
        for p in &b.props {
            refs_in(&p.value, &mut |id| {
                if !out.iter().any(|(i, _): &(String, String)| i == id) {
                    out.push((id.to_owned(), place_in(b, &p.name)));
                }
            });
        }
    }
    out
}

fn refs_in(v: &Value, f: &mut impl FnMut(&str)) {
    match v {
        Value::Ref(id, _) => f(id),
        Value::List(items) => items.iter().for_each(|v| refs_in(v, f)),
        Value::Map(entries) => entries.iter().for_each(|(_, v)| refs_in(v, f)),
        _ => {}
    }
}

/// How a bean under `parent.prop` is described.
fn place_in(parent: &Bean, prop: &str) -> String {
    if parent.short_class().ends_with("Chain") && prop == "processors" {
        format!(
            "one of the processors of {}; the chain goes on without it",
            parent.subject()
        )
    } else {
        format!("{}.{prop}", parent.subject())
    }
}

fn visit(b: &Bean, place: Option<String>, review: &mut Review) {
    let what = match kind(&b.class) {
        Kind::Converted | Kind::Plumbing => None,
        Kind::NotRun(what, closest) => Some((
            format!("{} is not carried over: it {what}", b.class).replace(": it a ", ": it was a "),
            closest,
        )),
        Kind::ThirdParty => Some((
            format!(
                "{} is not one of Heritrix 3's classes (a third-party bean), so it is not carried over",
                b.class
            ),
            // The DeDuplicator add-on (is.hi.bok.deduplicator) looked payloads up in an index of earlier
            // crawls: what trawl's dedup_from does (xt45a F3).
            b.short_class()
                .contains("DeDuplicator")
                .then_some("warc.dedup_from"),
        )),
    };
    if let Some((mut message, closest)) = what {
        match &place {
            Some(p) => message.push_str(&format!(" (it was {p})")),
            None => message.push_str(" (nothing in the job refers to it)"),
        }
        review.left_out.push(LeftOut {
            line: b.line,
            class: b.class.clone(),
            what: message.clone(),
        });
        let is_rule = b.short_class().ends_with("DecideRule")
            || b.short_class().ends_with("DecideRuleSequence");
        if !is_rule {
            review.notes.push(Note {
                line: b.line,
                subject: b.subject(),
                message,
                closest: closest.map(str::to_owned),
            });
            // Its settings too, each with its value: where an earlier crawl is (a history to load, a dedup
            // index) is what `dedup_from` needs (xt45a F3: they went unsaid).
            for p in &b.props {
                let Value::Text(text, line) = &p.value else {
                    continue;
                };
                let subject = format!(
                    "{}.{} = {}",
                    b.subject(),
                    p.name,
                    super::props::shown(&p.name, text)
                );
                let (message, closest) = if EARLIER_CRAWL.contains(&p.name.as_str()) {
                    (
                        "where the earlier crawl is: name its WARCs or ARCs (a job, a folder) or a CDX index of \
                         them in warc.dedup_from",
                        Some("warc.dedup_from"),
                    )
                } else {
                    ("not carried over with its bean", closest)
                };
                review.notes.push(Note {
                    line: *line,
                    subject,
                    message: message.to_owned(),
                    closest: closest.map(str::to_owned),
                });
            }
        }
        return;
    }
    for p in &b.props {
        visit_value(&p.value, &place_in(b, &p.name), review);
    }
    for v in &b.ctor_args {
        visit_value(v, &format!("an argument of {}", b.subject()), review);
    }
}

fn visit_value(v: &Value, place: &str, review: &mut Review) {
    match v {
        Value::Bean(b) => visit(b, Some(place.to_owned()), review),
        Value::List(items) => items.iter().for_each(|v| visit_value(v, place, review)),
        Value::Map(entries) => entries
            .iter()
            .for_each(|(_, v)| visit_value(v, place, review)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_release_class_is_sorted_for_lookup() {
        assert!(CLASSES.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn kinds() {
        for (class, want) in [
            ("org.archive.crawler.frontier.BdbFrontier", Kind::Converted),
            (
                "org.springframework.beans.factory.config.PropertyOverrideConfigurer",
                Kind::Plumbing,
            ),
            ("com.example.crawl.MyWriter", Kind::ThirdParty),
            ("org.archive.modules.writer.NoSuchWriter", Kind::ThirdParty),
        ] {
            assert_eq!(kind(class), want, "{class}");
        }
        assert!(matches!(
            kind("org.archive.modules.writer.MirrorWriterProcessor"),
            Kind::NotRun(w, _) if w.contains("mirrors its URL")
        ));
        assert!(matches!(
            kind("org.archive.modules.extractor.ExtractorYoutubeDL"),
            Kind::NotRun(w, _) if w.contains("extractors")
        ));
        // Every renamed class was a Heritrix class, and what it became is one.
        for (old, new, _) in RENAMED {
            for c in [old, new] {
                assert!(CLASSES.iter().any(|(k, _, _)| k == c), "{c}");
            }
        }
    }
}
