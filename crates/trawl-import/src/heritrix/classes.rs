//! Heritrix 3's bean classes the importer knows (testdata/heritrix/NOTES.md): an unknown class is an error with
//! its line, a known one is converted or reported.

use super::ImportError;
use super::beans::{Bean, Beans, Value};

/// Packages whose classes are plumbing to Spring or the JDK, never a crawl setting.
const PLUMBING: &[&str] = &["org.springframework.", "java.", "javax."];

/// Every Heritrix 3 class (short name after its package) the importer recognises.
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

/// Whether `class` is Spring's or the JDK's.
pub(crate) fn is_plumbing(class: &str) -> bool {
    PLUMBING.iter().any(|p| class.starts_with(p))
}

/// Checks every bean, nested ones included, names a known class.
pub(crate) fn check_known(beans: &Beans) -> Result<(), ImportError> {
    beans.top.iter().try_for_each(check_bean)
}

fn check_bean(b: &Bean) -> Result<(), ImportError> {
    let known = is_plumbing(&b.class)
        || (b.class.starts_with("org.archive.") && KNOWN.contains(&b.short_class()));
    if !known {
        return Err(ImportError::UnknownClass {
            line: b.line,
            class: b.class.clone(),
        });
    }
    for p in &b.props {
        check_value(&p.value)?;
    }
    b.ctor_args.iter().try_for_each(check_value)
}

fn check_value(v: &Value) -> Result<(), ImportError> {
    match v {
        Value::Bean(b) => check_bean(b),
        Value::List(items) => items.iter().try_for_each(check_value),
        Value::Map(entries) => entries.iter().try_for_each(|(_, v)| check_value(v)),
        _ => Ok(()),
    }
}
