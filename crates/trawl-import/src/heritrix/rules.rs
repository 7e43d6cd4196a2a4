//! Heritrix decide rules (`org.archive.modules.deciderules.*`) as trawl `[[scope.rules]]` tables, parameters
//! included; a rule or parameter trawl lacks becomes a note.

use toml::{Table, Value as T};
use trawl_config::settings::seed_list;

use super::beans::{Bean, Beans, Value, list, text};
use super::profile::{Note, Profile, RuleOut};
use super::props::Props;

/// What rule conversion needs besides the bean.
pub(crate) struct RuleContext<'a> {
    pub(crate) beans: &'a Beans,
    /// The crawl's seeds (for `OnDomains`/`OnHosts`, whose prefixes include the seeds' hosts).
    pub(crate) seeds: &'a [String],
    /// The folder Heritrix reads relative paths from: the cxml's.
    pub(crate) base: &'a std::path::Path,
}

/// The rules of a `DecideRuleSequence` bean (or one rule given on its own), in order.
pub(crate) fn sequence(ctx: &RuleContext<'_>, seq: &Bean, profile: &mut Profile) -> Vec<RuleOut> {
    if seq.short_class() != "DecideRuleSequence" {
        return rule(ctx, seq, profile).into_iter().collect();
    }
    let mut props = Props::new(seq, seq.subject());
    let mut out = Vec::new();
    if let Some(p) = props.take("rules") {
        for item in list(&p.value) {
            match ctx.beans.resolve(item) {
                Some(b) => out.extend(rule(ctx, b, profile)),
                None => profile.note(
                    item.line().unwrap_or(p.line),
                    seq.subject(),
                    "a rules entry that is not a bean or a reference to one",
                    None,
                ),
            }
        }
    }
    props.note_one(
        profile,
        "logToFile",
        "trawl keeps every decision in the URI's trace instead",
        Some("trawl url explain"),
    );
    note_no_decision(&mut props, profile);
    props.note_rest(profile, "trawl's rule sequence has no such parameter", None);
    out
}

/// One rule as a trawl table, or `None` (with a note) when trawl has no such rule.
fn rule(ctx: &RuleContext<'_>, b: &Bean, profile: &mut Profile) -> Option<RuleOut> {
    let mut props = Props::with_base(b, b.subject(), ctx.base);
    let mut t = Table::new();
    let class = b.short_class();
    if let Some(p) = props.take("enabled")
        && text(&p.value).and_then(super::settings::parse_bool) == Some(false)
    {
        profile.note(
            p.line,
            b.subject(),
            "a disabled rule decides nothing: left out",
            None,
        );
        return None;
    }
    note_no_decision(&mut props, profile);
    let name = match class {
        "AcceptDecideRule" => "accept",
        "RejectDecideRule" => "reject",
        "SurtPrefixedDecideRule" | "NotSurtPrefixedDecideRule" => {
            surt_prefixed(&mut props, &mut t, profile);
            if class.starts_with("Not") {
                "not_surt_prefixed"
            } else {
                "surt_prefixed"
            }
        }
        "OnDomainsDecideRule"
        | "NotOnDomainsDecideRule"
        | "OnHostsDecideRule"
        | "NotOnHostsDecideRule" => {
            let hosts = host_list(ctx, &mut props, profile, class.contains("Domains"));
            let (name, key) = match class {
                "OnDomainsDecideRule" => ("on_domains", "domains"),
                "NotOnDomainsDecideRule" => ("not_on_domains", "domains"),
                "OnHostsDecideRule" => ("on_hosts", "hosts"),
                _ => ("not_on_hosts", "hosts"),
            };
            t.insert(key.into(), hosts.into());
            name
        }
        "TooManyHopsDecideRule" => {
            int(&mut props, "maxHops", "max_hops", &mut t);
            "too_many_hops"
        }
        "TransclusionDecideRule" => {
            int(&mut props, "maxTransHops", "max_trans_hops", &mut t);
            int(
                &mut props,
                "maxSpeculativeHops",
                "max_speculative_hops",
                &mut t,
            );
            "transclusion"
        }
        "MatchesListRegexDecideRule" | "NotMatchesListRegexDecideRule" => {
            let mut regexes = Vec::new();
            if let Some(p) = props.take("regexList") {
                for v in list(&p.value) {
                    if let Value::Text(re, line) = v {
                        regexes.push(T::String(rule_regex(re, *line, b.subject(), profile)?));
                    }
                }
            }
            t.insert("regexes".into(), T::Array(regexes));
            if let Some(p) = props.take("listLogicalOr") {
                let or = text(&p.value)
                    .and_then(super::settings::parse_bool)
                    .unwrap_or(true);
                t.insert(
                    "list_logic".into(),
                    T::String(if or { "any" } else { "all" }.into()),
                );
            }
            props.note_one(
                profile,
                "timeoutPerRegexSeconds",
                "trawl's regexes run in linear time: no timeout is needed",
                None,
            );
            if class.starts_with("Not") {
                "not_matches_list_regex"
            } else {
                "matches_list_regex"
            }
        }
        "MatchesRegexDecideRule"
        | "NotMatchesRegexDecideRule"
        | "HopsPathMatchesRegexDecideRule"
        | "ContentTypeMatchesRegexDecideRule"
        | "ContentTypeNotMatchesRegexDecideRule" => {
            // Heritrix's default `.` matches only one-character strings.
            let re = props
                .take("regex")
                .and_then(|p| text(&p.value).map(str::to_owned))
                .unwrap_or_else(|| ".".into());
            let regex = rule_regex(&re, b.line, b.subject(), profile)?;
            t.insert("regex".into(), T::String(regex));
            match class {
                "MatchesRegexDecideRule" => "matches_regex",
                "NotMatchesRegexDecideRule" => "not_matches_regex",
                "HopsPathMatchesRegexDecideRule" => "hops_path_matches_regex",
                "ContentTypeMatchesRegexDecideRule" => "content_type_matches_regex",
                _ => "not_content_type_matches_regex",
            }
        }
        "PathologicalPathDecideRule" => {
            int(&mut props, "maxRepetitions", "max_repeats", &mut t);
            "pathological_path"
        }
        "TooManyPathSegmentsDecideRule" => {
            int(&mut props, "maxPathDepth", "max_segments", &mut t);
            "too_many_path_segments"
        }
        "PrerequisiteAcceptDecideRule" => "prerequisite_accept",
        "SeedAcceptDecideRule" => "seed_accept",
        "HopCrossesAssignmentLevelDomainDecideRule" => "hop_crosses_registered_domain",
        "SchemeNotInSetDecideRule" => {
            match props.take("schemes") {
                Some(p) => {
                    let schemes: Vec<T> = list(&p.value)
                        .iter()
                        .filter_map(|v| text(v))
                        .map(|s| T::String(s.trim().to_owned()))
                        .collect();
                    t.insert("schemes".into(), T::Array(schemes));
                }
                None => profile.note(
                    b.line,
                    b.subject(),
                    "Heritrix's default set also lets ftp, sftp, dns and whois URIs through; trawl fetches http \
                     and https only, so its default set is those two",
                    Some("scheme_not_in_set schemes"),
                ),
            }
            "scheme_not_in_set"
        }
        "FetchStatusMatchesRegexDecideRule" | "FetchStatusNotMatchesRegexDecideRule"
            if status_list(&props_regex(&props)).is_some() =>
        {
            let re = props
                .take("regex")
                .and_then(|p| text(&p.value))
                .unwrap_or_default();
            let statuses = status_list(re).unwrap_or_default();
            if class.contains("Not") {
                let mut inner = Table::new();
                inner.insert("rule".into(), "fetch_status_matches".into());
                inner.insert("statuses".into(), T::Array(statuses));
                t.insert("of".into(), T::Table(inner));
                let decision = props
                    .take("decision")
                    .and_then(|p| decision(&p.value))
                    .unwrap_or("accept");
                t.insert("decision".into(), T::String(decision.into()));
                "not"
            } else {
                t.insert("statuses".into(), T::Array(statuses));
                "fetch_status_matches"
            }
        }
        "FetchStatusDecideRule" => {
            let codes: Vec<T> = props
                .take("statusCodes")
                .map(|p| {
                    list(&p.value)
                        .iter()
                        .filter_map(|v| text(v)?.trim().parse::<i64>().ok())
                        .map(T::Integer)
                        .collect()
                })
                .unwrap_or_default();
            t.insert("statuses".into(), T::Array(codes));
            "fetch_status_matches"
        }
        "IpAddressSetDecideRule" => {
            let addresses: Vec<T> = props
                .take("ipAddresses")
                .map(|p| {
                    list(&p.value)
                        .iter()
                        .filter_map(|v| text(v))
                        .map(|s| T::String(cidr(s.trim())))
                        .collect()
                })
                .unwrap_or_default();
            t.insert("addresses".into(), T::Array(addresses));
            "ip_address_set"
        }
        "ResponseContentLengthDecideRule" => {
            // Heritrix: the condition holds for lower <= length <= upper; trawl's content_length holds
            // outside (length > longer_than or < shorter_than), so the import is its negation.
            let mut inner = Table::new();
            inner.insert("rule".into(), "content_length".into());
            let upper = props.take("upperBound").and_then(|p| number(&p.value));
            let lower = props.take("lowerBound").and_then(|p| number(&p.value));
            inner.insert("longer_than".into(), T::Integer(upper.unwrap_or(i64::MAX)));
            inner.insert("shorter_than".into(), T::Integer(lower.unwrap_or(0)));
            t.insert("of".into(), T::Table(inner));
            let decision = props
                .take("decision")
                .and_then(|p| decision(&p.value))
                .unwrap_or("accept");
            t.insert("decision".into(), T::String(decision.into()));
            "not"
        }
        _ => {
            let closest = match class {
                "FetchStatusMatchesRegexDecideRule" | "FetchStatusNotMatchesRegexDecideRule" => {
                    Some("fetch_status_matches (a list of statuses or classes such as \"4xx\")")
                }
                "MatchesFilePatternDecideRule" | "NotMatchesFilePatternDecideRule" => {
                    Some("matches_regex on the extension, or [[filters.url]] extension = \"…\"")
                }
                "DecideRuleSequence" => Some("all / any / not rules, which combine rules"),
                _ => None,
            };
            let message = if class.starts_with("FetchStatus") {
                format!(
                    "its regex {:?} is not a plain list of statuses (`404|410`), the only form trawl's \
                     fetch_status_matches carries over; the rule is left out of the sequence",
                    props_regex(&props)
                )
            } else {
                format!("trawl has no {class}; the rule is left out of the sequence")
            };
            // Not carried over: an error with `--strict` (xt26b F1: a REJECT left out widened the scope).
            let note = Note {
                line: b.line,
                subject: b.subject(),
                message,
                closest: closest.map(str::to_owned),
            };
            profile.untranslated.push(note.clone());
            profile.notes.push(note);
            return None;
        }
    };
    t.insert("rule".into(), T::String(name.into()));
    if !t.contains_key("decision")
        && !WITHOUT_DECISION.contains(&class)
        && let Some(p) = props.take("decision")
    {
        match decision(&p.value) {
            Some(d) => {
                t.insert("decision".into(), T::String(d.into()));
            }
            None => profile.note(
                p.line,
                b.subject(),
                "decision is not ACCEPT, REJECT or NONE",
                None,
            ),
        }
    }
    // Heritrix's default decision, written out: trawl's `not_*` rules answer REJECT by default.
    if !t.contains_key("decision")
        && let Some(d) = heritrix_default_decision(class)
    {
        t.insert("decision".into(), T::String(d.into()));
    }
    props.note_one(
        profile,
        "logToFile",
        "trawl keeps every decision in the URI's trace instead",
        Some("trawl url explain"),
    );
    props.note_rest(profile, "trawl's rule has no such parameter", None);
    Some(RuleOut {
        table: t,
        from: format!("{} (line {})", b.class, b.line),
    })
}

/// `SurtPrefixedDecideRule`'s prefixes: `surtsSource` lines as Heritrix reads them (a `+` marks a literal
/// prefix; a plain URL or host gives a prefix, a whole domain when no slash follows the host), or its file.
fn surt_prefixed(props: &mut Props<'_>, t: &mut Table, profile: &mut Profile) {
    if let Some(p) = props.take("seedsAsSurtPrefixes")
        && let Some(b) = text(&p.value).and_then(super::settings::parse_bool)
    {
        t.insert("seeds_as_prefixes".into(), T::Boolean(b));
    }
    if let Some(p) = props.take("alsoCheckVia")
        && let Some(b) = text(&p.value).and_then(super::settings::parse_bool)
    {
        t.insert("also_check_via".into(), T::Boolean(b));
    }
    // Both set the one source: Spring sets them in the bean's order, so the later wins (xt38b N10: the other
    // was noted as no parameter at all).
    let source = match (props.take("surtsSource"), props.take("surtsSourceFile")) {
        (Some(a), Some(b)) => {
            let (won, lost) = if b.line > a.line { (b, a) } else { (a, b) };
            profile.note(
                lost.line,
                props.subject(),
                format!(
                    "{} is overridden by {} (line {}), set after it: only that one is written",
                    lost.name, won.name, won.line
                ),
                None,
            );
            Some(won)
        }
        (a, b) => a.or(b),
    };
    if let Some(p) = source {
        // `surtsSourceFile` is a path (xt36b F8: `value="surts.txt"`, as Heritrix's default profile shows it).
        let source = match (&p.value, p.name.eq_ignore_ascii_case("surtsSourceFile")) {
            (Value::Text(path, _), true) => Source::File(path.trim().to_owned()),
            _ => read_source(&p.value),
        };
        match source {
            Source::Text(body, line) => {
                let mut prefixes = Vec::new();
                for (n, token) in source_lines(&body) {
                    match seed_list::directive_prefix(token.trim_start_matches('+')) {
                        Ok(prefix) => prefixes.push(T::String(prefix.as_str().to_owned())),
                        Err(e) => profile.note(
                            line + n,
                            props.subject(),
                            format!(
                                "surtsSource line {token:?} is not a SURT prefix, URL or host: {e}"
                            ),
                            None,
                        ),
                    }
                }
                let mut unique: Vec<T> = Vec::new();
                for p in prefixes {
                    if !unique.contains(&p) {
                        unique.push(p);
                    }
                }
                t.insert("prefixes".into(), T::Array(unique));
            }
            Source::File(path) => {
                let path = ctx_path(props.base(), &path);
                t.insert("files".into(), T::Array(vec![T::String(path)]));
            }
            Source::Other => profile.note(
                p.line,
                props.subject(),
                format!("{} is neither a ConfigString nor a ConfigFile", p.name),
                Some("surt_prefixed prefixes / files"),
            ),
        }
    }
    props.note_one(
        profile,
        "surtsDumpFile",
        "trawl writes no dump of the prefixes; `trawl url explain URL` shows the prefix a URL matched",
        None,
    );
}

/// The hosts of an `On(Hosts|Domains)` rule: the seeds' (with `seedsAsSurtPrefixes`, the default) and those of
/// its `surtsSource`.
/// For a domain rule, a leading `www.` label is dropped, as Heritrix cuts a prefix to its domain.
fn host_list(
    ctx: &RuleContext<'_>,
    props: &mut Props<'_>,
    profile: &mut Profile,
    domains: bool,
) -> Vec<T> {
    let mut hosts = Vec::new();
    let seeds_too = props
        .take("seedsAsSurtPrefixes")
        .and_then(|p| text(&p.value).and_then(super::settings::parse_bool))
        .unwrap_or(true);
    let mut add = |s: &str| {
        let with_scheme = if s.contains("://") {
            s.to_owned()
        } else {
            format!("http://{s}")
        };
        if let Ok(u) = trawl_url::parse_lenient(&with_scheme)
            && let Some(h) = u.host_str()
        {
            let h = match h.strip_prefix("www.") {
                Some(rest) if domains && rest.contains('.') => rest,
                _ => h,
            };
            if !hosts.contains(&T::String(h.to_owned())) {
                hosts.push(T::String(h.to_owned()));
            }
        }
    };
    if seeds_too {
        ctx.seeds.iter().for_each(|s| add(s));
    }
    if let Some(p) = props.take("surtsSource") {
        match read_source(&p.value) {
            Source::Text(body, _) => {
                for (_, token) in source_lines(&body) {
                    if token.contains('(') {
                        profile.note(
                            p.line,
                            props.subject(),
                            format!("the SURT {token:?} is not a host name; write the host"),
                            None,
                        );
                    } else {
                        add(token.trim_start_matches('+'));
                    }
                }
            }
            _ => profile.note(
                p.line,
                props.subject(),
                "a surtsSource file is not read for host and domain rules; list the hosts in the rule",
                None,
            ),
        }
    }
    hosts
}

enum Source {
    Text(String, usize),
    File(String),
    Other,
}

/// A `ReadSource` property: a nested `ConfigString` (its `value`) or `ConfigFile` (its `path`).
fn read_source(v: &Value) -> Source {
    let Value::Bean(b) = v else {
        return Source::Other;
    };
    match b.short_class() {
        "ConfigString" => match b.prop("value").map(|p| &p.value) {
            Some(Value::Text(t, line)) => Source::Text(t.clone(), *line),
            _ => Source::Text(String::new(), b.line),
        },
        "ConfigFile" => match b.prop("path").and_then(|p| text(&p.value)) {
            Some(path) => Source::File(path.trim().to_owned()),
            None => Source::Other,
        },
        _ => Source::Other,
    }
}

/// The non-comment lines of a prefix list, each with its offset from the text's first line.
fn source_lines(body: &str) -> Vec<(usize, &str)> {
    body.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let token = l.split_whitespace().next()?;
            (!token.starts_with('#')).then_some((i, token))
        })
        .collect()
}

/// A single address as the CIDR range trawl's rule takes (`127.0.0.1` → `127.0.0.1/32`).
fn cidr(address: &str) -> String {
    match address.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(_)) => format!("{address}/32"),
        Ok(std::net::IpAddr::V6(_)) => format!("{address}/128"),
        Err(_) => address.to_owned(),
    }
}

/// A Heritrix path (relative to the job directory, the cxml's folder) as trawl reads it: absolute.
pub(crate) fn ctx_path(base: &std::path::Path, path: &str) -> String {
    let p = std::path::Path::new(path.trim());
    if p.is_absolute() || path.contains("${") {
        path.trim().to_owned()
    } else {
        base.join(p).display().to_string()
    }
}

/// The Heritrix rule classes that extend `DecideRule` itself, not `PredicatedDecideRule`: they have no
/// `decision` property (each always gives its own answer), and Spring refuses a job that sets one.
const WITHOUT_DECISION: &[&str] = &[
    "AcceptDecideRule",
    "ContentLengthDecideRule",
    "DecideRuleSequence",
    "PathologicalPathDecideRule",
    "PrerequisiteAcceptDecideRule",
    "RejectDecideRule",
    "ScriptedDecideRule",
    "SeedAcceptDecideRule",
];

/// Notes a `decision` set on a rule of a class [`WITHOUT_DECISION`] (an override reaching Heritrix's default
/// `AcceptDecideRule`, say), and takes it, so that no rule is written deciding against its own class.
fn note_no_decision(props: &mut Props<'_>, profile: &mut Profile) {
    let class = props.subject_class();
    if WITHOUT_DECISION.contains(&class) {
        props.note_one(
            profile,
            "decision",
            &format!(
                "Heritrix's {class} has no decision property, so Heritrix refuses a job that sets one (Invalid \
                 property 'decision'); not carried over: the rule decides as its class always does"
            ),
            None,
        );
    }
}

/// The decision a Heritrix rule class gives when its bean sets none; `None` for rules without a `decision`.
fn heritrix_default_decision(class: &str) -> Option<&'static str> {
    match class {
        "TooManyHopsDecideRule" | "TooManyPathSegmentsDecideRule" | "SchemeNotInSetDecideRule" => {
            Some("reject")
        }
        c if WITHOUT_DECISION.contains(&c) => None,
        _ => Some("accept"),
    }
}

/// The `regex` a rule bean sets, without taking it.
fn props_regex(props: &Props<'_>) -> String {
    props
        .peek("regex")
        .and_then(|p| text(&p.value))
        .unwrap_or_default()
        .to_owned()
}

/// A status regex that is only an alternation of numbers (`404|410`), as a list of statuses.
fn status_list(re: &str) -> Option<Vec<T>> {
    let re = re.trim();
    let codes: Option<Vec<T>> = re
        .split('|')
        .map(|c| c.trim().parse::<i64>().ok().map(T::Integer))
        .collect();
    codes.filter(|c| !c.is_empty())
}

fn int(props: &mut Props<'_>, from: &str, to: &str, t: &mut Table) {
    if let Some(n) = props.take(from).and_then(|p| number(&p.value)) {
        t.insert(to.into(), T::Integer(n));
    }
}

fn number(v: &Value) -> Option<i64> {
    text(v)?.trim().parse().ok()
}

fn decision(v: &Value) -> Option<&'static str> {
    match text(v)?.trim() {
        "ACCEPT" => Some("accept"),
        "REJECT" => Some("reject"),
        "NONE" => Some("pass"),
        _ => None,
    }
}

/// A Java regex trawl's regex syntax has no equivalent for; the message says why and what to do.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct UntranslatableRegex(String);

/// The regex a rule is written with: `re` translated, or where it has none, as written (anchored), which
/// `trawl check` refuses until the operator rewrites it. Left out, the rule widened the scope wherever it
/// rejected (xt25b F3: a REJECT of every other site left out let the crawl onto the whole web). Noted at
/// `line`. A regex the regex crate reads otherwise than Java (a possessive quantifier: `a++` is `(a+)+` to
/// it) can be neither: it fails the import (`profile.refused`, review 73 R1), and `None` leaves the rule out.
pub(crate) fn rule_regex(
    re: &str,
    line: usize,
    subject: impl Into<String>,
    profile: &mut Profile,
) -> Option<String> {
    let why = match java_regex(re) {
        Ok(r) => return Some(r),
        Err(e) => e.to_string(),
    };
    let kept = format!("^(?:{re})$");
    let subject = subject.into();
    if regex::Regex::new(&kept).is_ok() {
        profile.refused.push(Note {
            line,
            subject,
            message: format!(
                "{why}; as written, trawl's regex syntax reads it otherwise, and left out, the rule could widen \
                 the scope: rewrite it in the cxml and import again"
            ),
            closest: None,
        });
        return None;
    }
    let note = Note {
        line,
        subject,
        message: format!(
            "{why}; the rule is kept with it as written, which `trawl check` refuses until it is rewritten"
        ),
        closest: None,
    };
    profile.untranslated.push(note.clone());
    profile.notes.push(note);
    Some(kept)
}

/// A Java regex that Heritrix matches against the whole string, as a Rust regex that trawl searches with:
/// translated ([`super::java_regex`]) and anchored. Fails (with the reason and what to do) where it has no
/// equivalent (look-around, backreferences, possessive quantifiers) or the regex crate does not read it.
pub(crate) fn java_regex(re: &str) -> Result<String, UntranslatableRegex> {
    let rust = super::java_regex::translate(re).map_err(|why| {
        UntranslatableRegex(format!(
            "the Java regex {re:?} has no equivalent in trawl's regex syntax: {why}"
        ))
    })?;
    let anchored = format!("^(?:{rust})$");
    regex::Regex::new(&anchored).map(|_| anchored).map_err(|e| {
        let why = e.to_string();
        let last = why.lines().last().unwrap_or(&why).trim().to_owned();
        UntranslatableRegex(format!(
            "the Java regex {re:?} does not read in trawl's regex syntax ({last}): \
                 rewrite it in the syntax of Rust's regex crate (https://docs.rs/regex)"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_regexes_are_anchored() {
        assert_eq!(
            java_regex(r".*/calendar/\d{4}/.*").unwrap(),
            r"^(?:.*/calendar/\d{4}/.*)$"
        );
        assert!(
            java_regex(r"(?!x).*")
                .unwrap_err()
                .to_string()
                .contains("syntax: rewrite it without look-ahead")
        );
        // Translated where Java means something else than Rust by the same text.
        assert_eq!(java_regex(r".*\<x.*").unwrap(), r"^(?:.*<x.*)$");
        assert!(
            java_regex(r".*/a++a.*")
                .unwrap_err()
                .to_string()
                .contains("possessive")
        );
        assert!(
            java_regex(r"\p{javaLowerCase}")
                .unwrap_err()
                .to_string()
                .contains("syntax of Rust's regex crate")
        );
    }
}
