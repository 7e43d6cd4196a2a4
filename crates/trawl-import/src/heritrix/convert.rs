//! The walk over the beans: each top-level bean by its class, its properties into trawl settings, rules or
//! notes. Every property is either taken or reported (see [`Props`]).

use std::path::Path;

use toml::{Table, Value as T};
use trawl_config::settings::seed_list::{self, SeedLine};

use super::beans::{Bean, Beans, OVERRIDE_CLASS, Prop, Value};
use super::beans::{list, text};
use super::chains::{self, Runs};
use super::classes::{converted, is_plumbing};
use super::credentials;
use super::overrides::default_bean;
use super::profile::{Profile, RuleOut, Setting, SheetOut};
use super::props::{Props, scalar, shown};
use super::rules::{self, RuleContext};
use super::settings::{self, Mapped};

/// The contact placeholder of Heritrix's profile.
const CONTACT_PLACEHOLDER: &str =
    "ENTER_AN_URL_WITH_YOUR_CONTACT_INFO_HERE_FOR_WEBMASTERS_AFFECTED_BY_YOUR_CRAWL";

/// Converts the beans into a profile.
pub(crate) fn convert(beans: &Beans, base: &Path) -> Profile {
    let mut profile = Profile::default();
    profile.notes.extend(beans.unapplied.iter().cloned());
    let directives = seeds(beans, base, &mut profile);
    let seed_urls: Vec<String> = profile
        .get("seeds.urls")
        .and_then(T::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let ctx = RuleContext {
        beans,
        seeds: &seed_urls,
        base,
    };
    metadata(beans, &mut profile);
    match beans.get("scope") {
        Some(scope) => {
            profile.scope_rules = rules::sequence(&ctx, scope, &mut profile);
            give_directives(&directives, &mut profile);
        }
        None => {
            profile.note(
                1,
                "scope",
                "no top-level DecideRule bean named `scope`: trawl's default scope is used",
                Some("[[scope.rules]]"),
            );
            default_scope_directives(&directives, &mut profile);
        }
    }
    let mut sheets = Vec::new();
    for b in &beans.top {
        let subject = b.subject();
        if let Runs::No { chain, instead } = chains::runs(beans, b) {
            not_run(b, chain, instead, &mut profile);
            continue;
        }
        match b.short_class() {
            _ if b.class == OVERRIDE_CLASS => {} // applied when the beans were read
            _ if is_plumbing(&b.class) => profile.note(
                b.line,
                subject,
                format!(
                    "{} is Spring or JDK plumbing with no crawl setting",
                    b.class
                ),
                None,
            ),
            // Read above, or when something refers to them.
            "CrawlMetadata" | "TextSeedModule" | "ConfigString" | "ConfigFile" => {}
            _ if b.id.as_deref() == Some("scope") => {}
            // Reported whole, with its place in the job, by the class review.
            _ if !converted(&b.class) && !is_rule(b) => {}
            _ if is_rule(b) => {
                if !referenced(beans, b) {
                    profile.note(
                        b.line,
                        subject,
                        "a decide rule nothing refers to has no effect",
                        None,
                    );
                }
            }
            "Sheet" => sheets.push(b),
            "CredentialStore" => credentials::store(b, beans, &mut profile),
            _ if credentials::is_credential(b) => {
                if !referenced(beans, b) {
                    profile.note(
                        b.line,
                        subject,
                        "a credential no CredentialStore holds is never used: left out",
                        Some("[[credentials]]"),
                    );
                }
            }
            "SurtPrefixesSheetAssociation" | "DecideRuledSheetAssociation" => {}
            "FrontierPreparer" => preparer(b, subject, beans, &mut profile),
            "Preselector" => preselector(b, subject, &mut profile),
            "BdbFrontier" => {
                let mut props = Props::new(b, subject);
                if let Some(p) = props.take("queuePrecedencePolicy") {
                    match beans.resolve(&p.value) {
                        Some(policy) if matches!(p.value, Value::Bean(_)) => {
                            policy_bean(policy, &mut profile)
                        }
                        Some(_) => {}
                        None => profile.note(
                            p.line,
                            "frontier.queuePrecedencePolicy",
                            "not a bean",
                            None,
                        ),
                    }
                }
                props.map_rest(&mut profile);
            }
            "DispositionProcessor"
            | "CandidatesProcessor"
            | "FetchHTTP"
            | "PreconditionEnforcer"
            | "CrawlController"
            | "WARCWriterChainProcessor"
            | "WARCWriterProcessor"
            | "CheckpointService"
            | "ExtractorHTML" => processor(&ctx, b, subject, &mut profile),
            "SurtAuthorityQueueAssignmentPolicy"
            | "HostnameQueueAssignmentPolicy"
            | "AssignmentLevelSurtQueueAssignmentPolicy"
            | "IPQueueAssignmentPolicy"
            | "BucketQueueAssignmentPolicy"
            | "HostnameQueueAssignmentPolicyWithLimits"
            | "SurtAuthorityQueueAssignmentPolicyWithLimits"
            | "BaseQueuePrecedencePolicy"
            | "HighestUriQueuePrecedencePolicy"
            | "SuccessCountsQueuePrecedencePolicy"
            | "CostUriPrecedencePolicy"
            | "BaseUriPrecedencePolicy"
            | "HopsUriPrecedencePolicy"
            | "PreloadedUriPrecedencePolicy"
            | "UnitCostAssignmentPolicy"
            | "ZeroCostAssignmentPolicy"
            | "WagCostAssignmentPolicy"
            | "AntiCalendarCostAssignmentPolicy" => policy_bean(b, &mut profile),
            class => other_bean(b, class, subject, &mut profile),
        }
    }
    // Processors written inline in a chain's list run too.
    for b in chains::inline_processors(beans) {
        let subject = b.subject();
        match b.short_class() {
            "Preselector" => preselector(b, subject, &mut profile),
            "FrontierPreparer" => preparer(b, subject, beans, &mut profile),
            "DispositionProcessor"
            | "CandidatesProcessor"
            | "FetchHTTP"
            | "PreconditionEnforcer"
            | "WARCWriterChainProcessor"
            | "WARCWriterProcessor"
            | "ExtractorHTML" => processor(&ctx, b, subject, &mut profile),
            class if converted(&b.class) && !is_plumbing(&b.class) => {
                other_bean(b, class, subject, &mut profile)
            }
            _ => {} // reported by the class review, with its place in the chain
        }
    }
    let mut stock_unused = Vec::new();
    for sheet in sheets {
        if !applied(beans, sheet) {
            let name = sheet.id.as_deref().unwrap_or_default();
            if STOCK_SHEETS.contains(&name) {
                stock_unused.push(sheet);
            } else {
                note_unapplied(sheet.line, name, &mut profile);
            }
            continue;
        }
        sheet_bean(&ctx, sheet, &mut profile);
    }
    if let Some(first) = stock_unused.first() {
        let names: Vec<String> = stock_unused
            .iter()
            .map(|s| format!("{} (line {})", s.id.as_deref().unwrap_or_default(), s.line))
            .collect();
        profile.note(
            first.line,
            "sheets",
            format!(
                "Heritrix's stock example sheet{} {} {} applied to no URI, so {} left out",
                if names.len() == 1 { "" } else { "s" },
                names.join(", "),
                if names.len() == 1 { "is" } else { "are" },
                if names.len() == 1 {
                    "it is"
                } else {
                    "they are"
                },
            ),
            Some("[[sheet]] surt_prefixes"),
        );
    }
    profile.notes.sort_by_key(|n| n.line);
    profile
}

/// A processor bean whose properties become settings (and its gate rules, rules checked at that step).
fn processor(ctx: &RuleContext<'_>, b: &Bean, subject: String, profile: &mut Profile) {
    let mut props = Props::with_base(b, subject, ctx.base);
    gate_rules(ctx, &mut props, profile);
    writer_paths(&mut props, profile);
    // Heritrix autowires the one store; its credentials are converted with the store's bean.
    props.take("credentialStore");
    if b.short_class() == "FetchHTTP" {
        proxy(&mut props, profile);
    }
    props.map_rest(profile);
}

/// FetchHTTP's proxy, `httpProxyHost` and `httpProxyPort`: trawl's `fetch.proxy`, an `http://` proxy tunnelled
/// with CONNECT (xt36b F2: noted as no such setting, the crawl went direct). Its user and password are not
/// carried over: trawl's HTTP proxy takes none (a SOCKS5 proxy does, its password from the environment).
fn proxy(props: &mut Props<'_>, profile: &mut Profile) {
    let subject = props.subject();
    let literal = |p: Option<&Prop>| match p.map(|p| &p.value) {
        Some(Value::Text(t, line)) => Some((t.trim().to_owned(), *line)),
        _ => None,
    };
    let Some((host, line)) = literal(props.peek("httpProxyHost")).filter(|(h, _)| !h.is_empty())
    else {
        return;
    };
    props.take("httpProxyHost");
    // An IPv6 address in brackets, as a URL writes it (xt38b N9).
    let host = match host.contains(':') && !host.starts_with('[') {
        true => format!("[{host}]"),
        false => host,
    };
    match literal(props.take("httpProxyPort")) {
        Some((port, _)) if port.parse::<u16>().is_ok_and(|p| p > 0) => profile.set(
            "fetch.proxy",
            format!("http://{host}:{port}"),
            format!("{subject}.httpProxyHost and httpProxyPort, line {line}"),
        ),
        _ => profile.note(
            line,
            format!("{subject}.httpProxyHost = {host}"),
            "no httpProxyPort (a port number) is set: the proxy is not carried over",
            Some("fetch.proxy"),
        ),
    }
    for name in ["httpProxyUser", "httpProxyPassword"] {
        props.note_one(
            profile,
            name,
            "trawl's HTTP proxy takes no credentials (a SOCKS5 proxy does: `socks5://USER@HOST:PORT`, its \
             password in TRAWL_PROXY_PASSWORD)",
            Some("fetch.proxy"),
        );
    }
}

/// Notes a processor bean that no chain runs: Heritrix never uses it, so its properties are not carried over
/// (a leftover bean must not override the one the chain runs).
fn not_run(b: &Bean, chain: &str, instead: Option<(String, usize)>, profile: &mut Profile) {
    let names: Vec<&str> = b.props.iter().map(|p| p.name.as_str()).collect();
    let props = match names.len() {
        0 => String::new(),
        _ => format!(
            "; its properties ({}) are not carried over",
            names.join(", ")
        ),
    };
    let runs = match instead {
        Some((id, line)) => format!("; the chain runs {id} (line {line})"),
        None => String::new(),
    };
    profile.note(
        b.line,
        b.subject(),
        format!(
            "not in any chain: no effect. Heritrix runs only the processors a chain lists, and no {chain} lists \
             this {}{props}{runs}",
            b.short_class()
        ),
        None,
    );
}

/// The example sheets of Heritrix's default profile, which no association applies.
const STOCK_SHEETS: &[&str] = &["forceRetire", "smallBudget", "veryPolite", "highPrecedence"];

/// Whether an association applies the sheet `b`: one of them names it and has its prefixes or rules.
fn applied(beans: &Beans, b: &Bean) -> bool {
    let Some(name) = b.id.as_deref() else {
        return false;
    };
    associations(beans, name).any(|a| match a.short_class() {
        "SurtPrefixesSheetAssociation" => a.prop("surtPrefixes").is_some(),
        _ => a.prop("rules").is_some(),
    })
}

/// The top-level sheet associations (`SurtPrefixesSheetAssociation`, `DecideRuledSheetAssociation`) whose
/// `targetSheetNames` include `sheet`.
fn associations<'a>(beans: &'a Beans, sheet: &'a str) -> impl Iterator<Item = &'a Bean> {
    beans.top.iter().filter(move |a| {
        matches!(
            a.short_class(),
            "SurtPrefixesSheetAssociation" | "DecideRuledSheetAssociation"
        ) && a.prop("targetSheetNames").is_some_and(|p| {
            list(&p.value)
                .into_iter()
                .filter_map(text)
                .any(|t| t.trim() == sheet)
        })
    })
}

/// Notes that the sheet `name` (at `line`) is left out: no association applies it.
fn note_unapplied(line: usize, name: &str, profile: &mut Profile) {
    profile.note(
        line,
        format!("sheet {name}"),
        "no association applies this sheet to any URI, so it is left out",
        Some("[[sheet]] surt_prefixes"),
    );
}

fn is_rule(b: &Bean) -> bool {
    b.short_class().ends_with("DecideRule") || b.short_class() == "DecideRuleSequence"
}

/// Whether any property anywhere refers to the top-level bean `b`.
fn referenced(beans: &Beans, b: &Bean) -> bool {
    let Some(id) = &b.id else { return false };
    fn refers(v: &Value, id: &str) -> bool {
        match v {
            Value::Ref(r, _) => r == id,
            Value::Bean(b) => b.props.iter().any(|p| refers(&p.value, id)),
            Value::List(items) => items.iter().any(|v| refers(v, id)),
            Value::Map(entries) => entries.iter().any(|(_, v)| refers(v, id)),
            _ => false,
        }
    }
    beans
        .top
        .iter()
        .any(|other| other.props.iter().any(|p| refers(&p.value, id)))
}

/// `metadata`: the user agent (with its placeholders filled), robots policy, and the informational fields.
fn metadata(beans: &Beans, profile: &mut Profile) {
    let Some(b) = beans
        .top
        .iter()
        .find(|b| b.short_class() == "CrawlMetadata")
    else {
        return;
    };
    let subject = b.id.clone().unwrap_or_else(|| "metadata".into());
    let mut props = Props::new(b, subject.clone());
    let contact = props.take("operatorContactUrl");
    let contact_url = contact
        .and_then(|p| {
            scalar(
                &p.value,
                p.line,
                &format!("{subject}.operatorContactUrl"),
                profile,
            )
        })
        .map(|t| t.trim().to_owned());
    if let (Some(p), Some(url)) = (contact, &contact_url)
        && (url == CONTACT_PLACEHOLDER || !url.starts_with("http"))
    {
        profile.note(
            p.line,
            format!("{subject}.operatorContactUrl"),
            format!("{url:?} is the profile's placeholder, not a contact URL: put yours in fetch.user_agent"),
            Some("fetch.user_agent"),
        );
    }
    let template = props.take("userAgentTemplate");
    let (template_text, line) =
        match template.and_then(|p| text(&p.value).map(|t| (t.trim(), p.line))) {
            Some((t, l)) => (t.to_owned(), l),
            None => (
                "Mozilla/5.0 (compatible; heritrix/@VERSION@ +@OPERATOR_CONTACT_URL@)".to_owned(),
                b.line,
            ),
        };
    let agent = template_text
        .replacen("@VERSION@", env!("CARGO_PKG_VERSION"), 1)
        .replacen(
            "@OPERATOR_CONTACT_URL@",
            contact_url
                .as_deref()
                .unwrap_or("https://example.invalid/contact"),
            1,
        );
    profile.set(
        "fetch.user_agent",
        agent,
        format!("{subject}.userAgentTemplate with @VERSION@ and @OPERATOR_CONTACT_URL@ filled in, line {line}"),
    );
    if let Some(p) = props.take("robotsPolicyName")
        && let Some(policy) = text(&p.value).map(str::trim)
    {
        let from = format!("{subject}.robotsPolicyName = {policy}, line {}", p.line);
        match policy {
            "obey" | "classic" => profile.set("fetch.obey_robots", true, from),
            "ignore" => profile.set("fetch.obey_robots", false, from),
            "robotsTxtOnly" => {
                profile.set("fetch.obey_robots", true, from);
                profile.note(
                    p.line,
                    format!("{subject}.robotsPolicyName"),
                    "trawl obeys <meta name=robots content=nofollow> whenever it obeys robots.txt",
                    Some("fetch.obey_robots"),
                );
            }
            other => profile.note(
                p.line,
                format!("{subject}.robotsPolicyName"),
                format!(
                    "the custom robots policy {other:?} has no trawl form; robots.txt is obeyed"
                ),
                Some("fetch.obey_robots"),
            ),
        }
    }
    for (name, label) in [
        ("jobName", "job"),
        ("description", "description"),
        ("operator", "operator"),
        ("organization", "organization"),
        ("audience", "audience"),
        ("operatorFrom", "operator e-mail (From:)"),
    ] {
        if let Some(p) = props.take(name)
            && let Some(t) = scalar(&p.value, p.line, &format!("{subject}.{name}"), profile)
            && !t.trim().is_empty()
        {
            profile.about.push(format!("{label}: {}", t.trim()));
            profile.note(
                p.line,
                format!("{subject}.{name}"),
                "kept as a comment at the top: trawl has no crawl metadata settings (the job's crawl.toml is \
                 copied into each WARC's warcinfo record)",
                None,
            );
        }
    }
    props.note_rest(profile, "trawl has no such setting", None);
}

/// `seeds`: the seed list (`+`/`-` lines returned, for the scope rules) or the seed file.
fn seeds(beans: &Beans, base: &Path, profile: &mut Profile) -> Vec<(SeedLine, usize)> {
    let mut directives = Vec::new();
    let Some(b) = beans
        .top
        .iter()
        .find(|b| b.short_class() == "TextSeedModule")
    else {
        return directives;
    };
    let subject = b.id.clone().unwrap_or_else(|| "seeds".into());
    let mut props = Props::new(b, subject.clone());
    if let Some(p) = props.take("textSource") {
        let source = beans.resolve(&p.value);
        match source.map(|s| (s.short_class(), s)) {
            Some(("ConfigString", s)) => {
                if let Some(Prop {
                    value: Value::Text(body, line),
                    ..
                }) = s.prop("value")
                {
                    let mut urls = Vec::new();
                    for (n, what) in seed_list::parse(body) {
                        match what {
                            SeedLine::Seed(u) if seed_list::is_placeholder(&u) => profile.note(
                                line + n - 1,
                                format!("{subject}.textSource"),
                                format!(
                                    "warning: {u} is a placeholder seed (the .example domain never resolves): \
                                     left out of [seeds] urls; put your seeds there"
                                ),
                                Some("seeds.urls"),
                            ),
                            SeedLine::Seed(u) => urls.push(T::String(u)),
                            SeedLine::Other(t) if t.starts_with('[') => {} // "[see override above]"
                            SeedLine::Other(t) => profile.note(
                                line + n - 1,
                                format!("{subject}.textSource"),
                                format!("{t:?} is neither a seed nor a +/- directive; Heritrix ignores it"),
                                None,
                            ),
                            d => directives.push((d, line + n - 1)),
                        }
                    }
                    profile.set(
                        "seeds.urls",
                        T::Array(urls),
                        format!("{subject}.textSource, line {line}"),
                    );
                }
            }
            Some(("ConfigFile", s)) => {
                if let Some(path) = s.prop("path").and_then(|p| text(&p.value)) {
                    profile.set(
                        "seeds.files",
                        T::Array(vec![T::String(rules::ctx_path(base, path))]),
                        format!("{subject}.textSource (a ConfigFile; trawl reads +/- lines too), line {}", p.line),
                    );
                    launch_id(path, p.line, &subject, profile);
                }
            }
            _ => profile.note(
                p.line,
                format!("{subject}.textSource"),
                "not a ConfigString or ConfigFile",
                None,
            ),
        }
    }
    props.note_one(
        profile,
        "sourceTagSeeds",
        "trawl shows every URI's seed in crawl.log's `via` chain and the seeds report, not as a tag",
        None,
    );
    props.note_one(
        profile,
        "blockAwaitingSeedLines",
        "trawl reads every seed before it starts",
        None,
    );
    props.note_rest(profile, "trawl has no such setting", None);
    directives
}

/// The seed list's `+`/`-` lines go to the scope's `surt_prefixed` rules of that decision, as in Heritrix.
fn give_directives(directives: &[(SeedLine, usize)], profile: &mut Profile) {
    for (d, line) in directives {
        let (text, want) = match d {
            SeedLine::Accept(t) => (t, "accept"),
            SeedLine::Reject(t) => (t, "reject"),
            _ => continue,
        };
        let prefix = match seed_list::directive_prefix(text) {
            Ok(p) => p,
            Err(e) => {
                profile.note(*line, "seeds.textSource", format!("{text:?}: {e}"), None);
                continue;
            }
        };
        let mut taken = false;
        for r in &mut profile.scope_rules {
            let is_surt = r.table.get("rule").and_then(T::as_str) == Some("surt_prefixed");
            let decision = r
                .table
                .get("decision")
                .and_then(T::as_str)
                .unwrap_or("accept");
            if is_surt && decision == want {
                let list = r
                    .table
                    .entry("prefixes")
                    .or_insert_with(|| T::Array(Vec::new()));
                let p = T::String(prefix.as_str().to_owned());
                if let T::Array(a) = list
                    && !a.contains(&p)
                {
                    a.push(p);
                }
                taken = true;
            }
        }
        if !taken {
            profile.note(
                *line,
                "seeds.textSource",
                format!("no surt_prefixed rule with decision {want} takes the directive {text:?}"),
                Some("[[scope.rules]] surt_prefixed"),
            );
        }
    }
}

/// Without a `scope` bean the default scope is trawl's: `+` lines join its `surt_prefixes`; `-` lines have no
/// rule to go to.
fn default_scope_directives(directives: &[(SeedLine, usize)], profile: &mut Profile) {
    for (d, line) in directives {
        match d {
            SeedLine::Accept(t) => match seed_list::directive_prefix(t) {
                Ok(p) => {
                    let mut list: Vec<T> = profile
                        .get("scope.surt_prefixes")
                        .and_then(T::as_array)
                        .cloned()
                        .unwrap_or_default();
                    list.push(T::String(p.as_str().to_owned()));
                    profile.set(
                        "scope.surt_prefixes",
                        T::Array(list),
                        format!("seeds.textSource, line {line}"),
                    );
                }
                Err(e) => profile.note(*line, "seeds.textSource", format!("{t:?}: {e}"), None),
            },
            _ => profile.note(
                *line,
                "seeds.textSource",
                "a - line needs a REJECT surt_prefixed rule, and the default scope has none",
                Some("[[scope.rules]] surt_prefixed with decision = \"reject\""),
            ),
        }
    }
}

/// `preparer`: queue assignment and precedence policies, canonicalization, preferences.
fn preparer(b: &Bean, subject: String, beans: &Beans, profile: &mut Profile) {
    let mut props = Props::new(b, subject.clone());
    for name in [
        "queueAssignmentPolicy",
        "uriPrecedencePolicy",
        "costAssignmentPolicy",
    ] {
        if let Some(p) = props.take(name)
            && let Value::Bean(policy) = &p.value
        {
            policy_bean(policy, profile);
        }
        // A reference names a top-level policy bean, converted on its own.
    }
    if let Some(p) = props.take("canonicalizationPolicy") {
        let default_rules = beans
            .resolve(&p.value)
            .is_some_and(|c| c.short_class() == "RulesCanonicalizationPolicy");
        profile.note(
            p.line,
            format!("{subject}.canonicalizationPolicy"),
            if default_rules {
                "trawl's `heritrix` canonicalizer applies Heritrix's default rules (lower-case, strip userinfo, \
                 www, session ids, fix the query); a changed rule list is not carried over"
            } else {
                "a custom canonicalization policy is not carried over"
            },
            Some("identity.canonicalizer, identity.heritrix_strip_www_always, identity.rewrites"),
        );
    }
    for name in ["preferenceDepthHops", "preferenceEmbedHops"] {
        props.note_one(
            profile,
            name,
            "trawl orders a queue first-in first-out, or by hops from a seed",
            Some("frontier.uri_precedence = \"hops\""),
        );
    }
    props.note_rest(profile, "trawl has no such setting", None);
}

/// A queue assignment, precedence or cost policy bean.
fn policy_bean(b: &Bean, profile: &mut Profile) {
    let class = b.short_class();
    let subject = b.subject();
    let from = format!("{}, line {}", b.class, b.line);
    match class {
        "SurtAuthorityQueueAssignmentPolicy" | "HostnameQueueAssignmentPolicy" => {
            profile.set("frontier.queue_assignment", "host", from)
        }
        "AssignmentLevelSurtQueueAssignmentPolicy" => {
            profile.set("frontier.queue_assignment", "domain", from)
        }
        "IPQueueAssignmentPolicy" => profile.set("frontier.queue_assignment", "ip", from),
        "HopsUriPrecedencePolicy" => profile.set("frontier.uri_precedence", "hops", from),
        "CostUriPrecedencePolicy"
        | "BaseUriPrecedencePolicy"
        | "BaseQueuePrecedencePolicy"
        | "UnitCostAssignmentPolicy" => {}
        _ => profile.note(
            b.line,
            subject.clone(),
            format!("trawl has no {class}"),
            Some(if class.contains("Queue") {
                "frontier.queue_assignment / frontier.queue_precedence"
            } else {
                "frontier.uri_precedence"
            }),
        ),
    }
    let mut props = Props::new(b, subject.clone());
    if class == "CostUriPrecedencePolicy"
        && let Some(p) = props.peek("basePrecedence")
    {
        profile.note(
            p.line,
            format!("{subject}.basePrecedence"),
            "Heritrix's CostUriPrecedencePolicy (the preparer's default) has no basePrecedence and refuses one; \
             carried over as trawl's frontier.uri_precedence_base, which is added to each URI's precedence",
            Some("frontier.uri_precedence_base"),
        );
    }
    props.note_one(
        profile,
        "navlinksOnly",
        "trawl's hops precedence counts every hop",
        Some("frontier.uri_precedence"),
    );
    props.map_rest(profile);
}

/// `preselector`: its block/allow regexes become rules checked before each fetch.
fn preselector(b: &Bean, subject: String, profile: &mut Profile) {
    let mut props = Props::new(b, subject.clone());
    let add = |rule: &str, regex: Option<String>, line: usize, profile: &mut Profile| {
        let mut t = Table::new();
        t.insert("rule".into(), rule.into());
        if let Some(r) = regex {
            t.insert("regex".into(), r.into());
        }
        t.insert("decision".into(), "reject".into());
        profile.before_fetch.push(RuleOut {
            table: t,
            from: format!("{subject}, line {line}"),
        });
    };
    if let Some(p) = props.take("blockAll")
        && text(&p.value).and_then(settings::parse_bool) == Some(true)
    {
        add("reject", None, p.line, profile);
    }
    for (name, rule) in [
        ("blockByRegex", "matches_regex"),
        ("allowByRegex", "not_matches_regex"),
    ] {
        if let Some(p) = props.take(name)
            && let Some(re) = text(&p.value).map(str::trim).filter(|r| !r.is_empty())
            && let Some(r) = rules::rule_regex(re, p.line, format!("{subject}.{name}"), profile)
        {
            add(rule, Some(r), p.line, profile);
        }
    }
    props.note_one(
        profile,
        "recheckScope",
        "trawl decides scope once, when a link is found; rules checked before each fetch go in decide.before_fetch",
        Some("decide.before_fetch"),
    );
    props.note_rest(profile, "trawl has no such setting", None);
}

/// Where a processor's rules go in the profile.
type Gate = fn(&mut Profile) -> &mut Vec<RuleOut>;

/// A processor's own decide rules: `FetchHTTP.shouldFetchBodyRule` is trawl's check of the response head,
/// a writer's `shouldProcessRule` its check before writing.
fn gate_rules(ctx: &RuleContext<'_>, props: &mut Props<'_>, profile: &mut Profile) {
    let gates: &[(&str, Gate)] = &[
        ("shouldFetchBodyRule", |p| &mut p.after_headers),
        ("shouldProcessRule", |p| &mut p.before_write),
    ];
    for (name, target) in gates {
        let Some(p) = props.take(name) else { continue };
        let writer = props.subject_class().contains("Writer");
        if *name == "shouldProcessRule" && !writer {
            profile.note(
                p.line,
                format!("{}.{name}", props.subject()),
                "trawl runs every processor on every URI",
                None,
            );
            continue;
        }
        match ctx.beans.resolve(&p.value) {
            Some(rule) => {
                let rules = rules::sequence(ctx, rule, profile);
                target(profile).extend(rules);
            }
            None => profile.note(
                p.line,
                format!("{}.{name}", props.subject()),
                "not a decide rule",
                None,
            ),
        }
    }
}

/// The WARC writer's places and names: trawl writes JOB/warcs/PREFIX-….
fn writer_paths(props: &mut Props<'_>, profile: &mut Profile) {
    for name in ["storePaths", "directory", "template"] {
        props.note_one(
            profile,
            name,
            "trawl writes WARCs to JOB/warcs/ named PREFIX-TIMESTAMP-SERIAL-HOST.warc.gz",
            Some("warc.prefix"),
        );
    }
    // Heritrix 3.4's record builders: which records a fetch gives is not chosen one by one in trawl (xt15a
    // F12).
    props.note_one(
        profile,
        "chain",
        "trawl writes, for every fetch, its request, its response (a revisit where warc.dedup finds the payload \
         archived already) and a metadata record, and dns: records for lookups; the record builders are not \
         chosen one by one (warc.write_requests = false and warc.write_metadata = false leave out the request \
         and metadata records, as leaving out HttpRequestRecordBuilder and MetadataRecordBuilder does)",
        Some("warc.dedup"),
    );
}

/// Reports `${launchId}` in a path: trawl has one directory per job instead.
fn launch_id(path: &str, line: usize, subject: &str, profile: &mut Profile) {
    if path.contains("${launchId}") {
        profile.note(
            line,
            subject,
            format!("{path:?}: ${{launchId}} (Heritrix's launch directory) is the job directory in trawl"),
            None,
        );
    }
}

/// Beans without a trawl counterpart: the ones that do something are reported whole (with what trawl does
/// instead, where it does it its own way); plumbing only when a property is set.
fn other_bean(b: &Bean, class: &str, subject: String, profile: &mut Profile) {
    let what = match class {
        "ExtractorJS" => Some(
            "trawl finds links in scripts itself, as guesses (X hops, extract.speculative, on by default)",
        ),
        "ExtractorSitemap" => Some("trawl reads sitemaps itself (extract.sitemaps, on by default)"),
        "ExtractorSWF" => Some("trawl reads no Flash files"),
        // xt36b F6: said as an unknown processor's.
        "ExtractorDOC" => Some(
            "trawl finds links in Word documents itself, .doc and the newer office formats too (extract.office, \
             on by default)",
        ),
        "ExtractorPDF" => Some(
            "trawl finds links in PDFs itself (up to extract.pdf_max_bytes), and in office documents",
        ),
        "ExtractorXML" | "ExtractorImpliedURI" | "ExtractorURI" | "ExtractorMultipleRegex" => {
            Some("trawl has no such extractor")
        }
        "QuotaEnforcer" => Some("trawl caps URIs per host only"),
        "BrowserProcessor" => Some(
            "trawl drives a headless Chromium of its own (browser.mode; docs/browser.md), not Heritrix's",
        ),
        "ReschedulingProcessor" => Some("trawl revisits only watchable URL classes"),
        "FetchHTTP2" => {
            Some("trawl speaks HTTP/2 itself when a server offers it over TLS (fetch.http2)")
        }
        "FetchWhois" | "FetchFTP" | "FetchSFTP" => Some("trawl fetches HTTP and HTTPS only"),
        "ARCWriterProcessor" => Some("trawl writes WARC files only, never ARC"),
        "FirstNamedRobotsPolicy" | "MostFavoredRobotsPolicy" | "CustomRobotsPolicy" => {
            Some("trawl obeys robots.txt for its own product token, or ignores it")
        }
        "CrawlLimitEnforcer" if !b.props.is_empty() => {
            Some("trawl has no crawl-wide limits on documents, bytes or time")
        }
        _ => None,
    };
    let closest = match class {
        "QuotaEnforcer" => Some("frontier.max_uris_per_host"),
        "CrawlLimitEnforcer" => Some("stop the crawl with `trawl ctl JOB stop`"),
        "FirstNamedRobotsPolicy" | "MostFavoredRobotsPolicy" | "CustomRobotsPolicy" => {
            Some("fetch.obey_robots")
        }
        _ => None,
    };
    if let Some(why) = what {
        profile.note(b.line, subject.clone(), why, closest);
    }
    let mut props = Props::new(b, subject.clone());
    for p in &b.props {
        if let Value::Text(t, line) = &p.value {
            launch_id(t, *line, &subject, profile);
        }
    }
    // Chains list their processors: trawl's pipeline is fixed, so the list itself is honoured.
    props.take("processors");
    // A cookie store's file to load (xt38b N4: the closest setting was not named).
    props.note_one(
        profile,
        "cookiesLoadFile",
        "not carried over: give trawl the file (a Netscape cookies.txt or a browser's JSON export) by hand",
        Some("fetch.cookies_file"),
    );
    if what.is_none() {
        props.note_rest(profile, "trawl has no such setting", closest);
    } else {
        props.note_rest(profile, "not carried over with its bean", closest);
    }
}

/// A `Sheet` and its associations as a trawl `[[sheet]]`.
fn sheet_bean(ctx: &RuleContext<'_>, b: &Bean, profile: &mut Profile) {
    let name =
        b.id.clone()
            .unwrap_or_else(|| format!("sheet-line-{}", b.line));
    let mut sheet = SheetOut {
        name: name.clone(),
        from: format!("Heritrix sheet {name:?}, line {}", b.line),
        ..SheetOut::default()
    };
    let mut props = Props::new(b, name.clone());
    if let Some(Prop {
        value: Value::Map(entries),
        line,
        ..
    }) = props.take("map")
    {
        for (key, value) in entries {
            let line = value.line().unwrap_or(*line);
            let Some(text) = text(value) else {
                profile.note(
                    line,
                    format!("sheet {name}: {key}"),
                    "not a literal value",
                    None,
                );
                continue;
            };
            match sheet_entry(ctx.beans, key, text) {
                Mapped::Set(k, v)
                    if trawl_config::settings::sheets::check_path(k).is_ok()
                        && !trawl_config::settings::sheet_cannot_set(k) =>
                {
                    sheet.set.push(Setting {
                        key: k.to_owned(),
                        value: v,
                        from: format!("{key}, line {line}"),
                    })
                }
                Mapped::Set(k, _) => profile.note(
                    line,
                    format!("sheet {name}: {key}"),
                    format!("{k} is read once per crawl, so a trawl sheet cannot set it"),
                    Some(k),
                ),
                Mapped::Same(_) => {}
                Mapped::Note(why, closest) => profile.note(
                    line,
                    format!("sheet {name}: {key} = {}", shown(key, text)),
                    why,
                    closest,
                ),
            }
        }
    }
    props.note_rest(profile, "trawl's sheets have no such setting", None);
    for a in associations(ctx.beans, &name) {
        match a.short_class() {
            "SurtPrefixesSheetAssociation" => {
                if let Some(p) = a.prop("surtPrefixes") {
                    for v in list(&p.value).into_iter().filter_map(text) {
                        let prefix = v.trim().to_lowercase();
                        if prefix.starts_with("https://") {
                            profile.note(
                                p.line,
                                format!("sheet {name}"),
                                format!("{prefix:?}: an https:// prefix never matches, in Heritrix as in trawl (SURTs fold https to http); write http://"),
                                None,
                            );
                        }
                        sheet.surt_prefixes.push(prefix);
                    }
                }
            }
            _ => {
                if let Some(rule) = a.prop("rules").and_then(|p| ctx.beans.resolve(&p.value)) {
                    sheet.rules.extend(rules::sequence(ctx, rule, profile));
                }
                if a.prop("order").is_some() {
                    profile.note(
                        a.line,
                        format!("sheet {name}"),
                        "trawl applies sheets in file order; `order` is not carried over",
                        None,
                    );
                }
            }
        }
    }
    if sheet.surt_prefixes.is_empty() && sheet.rules.is_empty() {
        note_unapplied(b.line, &name, profile);
        return;
    }
    profile.sheets.push(sheet);
}

/// A sheet entry `bean.property[.property…] = text`, mapped for the class of the bean it names.
fn sheet_entry(beans: &Beans, key: &str, text: &str) -> Mapped {
    let mut parts = key.split('.');
    let Some(mut bean) = parts.next().and_then(|id| beans.get(id)) else {
        return Mapped::Note("names no top-level bean".into(), None);
    };
    let path: Vec<&str> = parts.collect();
    let Some((last, through)) = path.split_last() else {
        return Mapped::Note("names a bean, not a property".into(), None);
    };
    let mut class = bean.short_class();
    for (i, step) in through.iter().enumerate() {
        if let Some(inner) = bean.prop(step).and_then(|p| beans.resolve(&p.value)) {
            bean = inner;
            class = bean.short_class();
            continue;
        }
        // Unset: the bean Heritrix puts there itself (`frontier.queuePrecedencePolicy.basePrecedence`).
        let default = (i + 1 == through.len() && bean.prop(step).is_none())
            .then(|| default_bean(bean.short_class(), step))
            .flatten();
        match default {
            Some(default) => class = default.rsplit('.').next().unwrap_or(default),
            None => return Mapped::Note(format!("{step} is not a bean property"), None),
        }
    }
    settings::map(class, last, text)
}
