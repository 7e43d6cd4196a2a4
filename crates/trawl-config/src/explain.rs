//! What the crawl would make of one URL: its identity (raw, canonical, uniq key, SURTs, normalized key,
//! version template), the URL class that matches it, and the scope's traced verdict. Shared by
//! `trawl url explain` and the web UI's URL tester.

use trawl_url::{CanonicalHints, Identity, Url, class::UrlClasses, parse_lenient};

use std::{path::Path, sync::Arc};

use crate::{CrawlConfig, CrawlUri, Scope, sheets::Sheets};

/// The page a URL was found on, as `trawl url explain --via` and the API's `via` take it: an absolute http(s)
/// URL, not a guess from a typo (xt12a F16: `http//host/` was judged from the seed instead).
pub fn parse_via(via: &str) -> Result<Url, String> {
    match Url::parse(via) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.has_host() => Ok(u),
        _ => Err(format!(
            "{via:?} is not an http(s) URL: give the page the URL was found on, as http://HOST/PATH"
        )),
    }
}

/// The scope's verdict on `url` as a JSON object `{url, sheets, decision, rule, trace: [{rule, answer}]}`, judged as
/// reached by `hops` (default `L`) from `via` (default: the first seed, else the URL itself). `url` is the URL
/// judged: the caller passes what the crawl would judge (a URL class's server form, see [`explain_json`]).
pub fn scope_json(
    config: &CrawlConfig,
    via: Option<&Url>,
    hops: Option<&str>,
    url: &Url,
) -> serde_json::Value {
    let mut seeds: Vec<Url> = config
        .seeds
        .urls
        .iter()
        .filter_map(|s| parse_lenient(s).ok())
        .collect();
    let via = via
        .or(seeds.first())
        .cloned()
        .unwrap_or_else(|| url.clone());
    if seeds.is_empty() {
        seeds.push(via.clone());
    }
    let hops = hops.unwrap_or("L");
    let mut uri = CrawlUri::seed(url.clone(), url.to_string());
    uri.hop_path = hops.to_string();
    uri.is_seed = hops.is_empty();
    uri.via = (!uri.is_seed).then_some(via);
    // A robots.txt's redirects (`P` then `R`s) are the prerequisite's own steps, judged as the crawl judges
    // them (xt47a F2: explain had them as plain redirects, refused where the crawl took them).
    let after_p = hops.trim_end_matches('R');
    if after_p.len() < hops.len() && after_p.ends_with('P') {
        uri.kind = crate::crawl_uri::UriKind::Robots {
            origin: crate::crawl_uri::origin(url),
            redirects: u8::try_from(hops.len() - after_p.len()).unwrap_or(u8::MAX),
        };
    }
    // The scope of the sheets that apply to the URI, as the crawl judges it (xt12a F10: a sheet's
    // `scope.max_hops` was left out, so explain accepted what the crawl refused).
    let base = Arc::new(config.clone());
    let sheets = match Sheets::from_config(&base, &seeds, Path::new(".")) {
        Ok(s) => s,
        Err(problems) => {
            let said: Vec<String> = problems.iter().map(|(k, m)| format!("{k}: {m}")).collect();
            return serde_json::json!({ "error": said.join("; ") });
        }
    };
    let scope = match Scope::from_config(&sheets.effective(&uri), &seeds) {
        Ok(s) => s,
        Err(e) => return serde_json::json!({ "error": e.to_string() }),
    };
    let t = scope.decide_traced(&uri);
    let applied = sheets.names_for(&uri);
    let mut verdict = serde_json::json!({
        "url": url.as_str(),
        "sheets": applied.split(',').filter(|n| !n.is_empty()).collect::<Vec<_>>(),
        "decision": t.decision.as_str(),
        "rule": t.rule,
        "trace": trace_json(&t),
    });
    // A link longer than extraction keeps is dropped before the scope sees it: no page's link queues it,
    // whatever the rules say (xt20b F6: explain accepted one). A seed of that length is still crawled.
    let length = url.as_str().len();
    if !uri.is_seed && length > trawl_extract::MAX_URL_LEN {
        verdict["decision"] = "reject".into();
        verdict["rule"] = "link_too_long".into();
        verdict["link_too_long"] = format!(
            "the URL is {length} bytes long: extraction drops a link over {} bytes, so no page's link \
             queues it (given as a seed, it is crawled)",
            trawl_extract::MAX_URL_LEN
        )
        .into();
    }
    // Only an http(s) URL with a host is ever fetched, whatever the rules say: the crawl logs another `-7`
    // `reject:not_http` (xt42a: explain named `scheme_not_in_set`, whose refusal would be a `-5000`).
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
        verdict["decision"] = "reject".into();
        verdict["rule"] = "not_http".into();
    }
    // A redirect past `scope.max_redirects` in a row is refused before the scope sees it, as the crawl does
    // (xt42a: explain accepted what the crawl logged `reject:max_redirects`).
    let redirects = hops.chars().rev().take_while(|&c| c == 'R').count();
    if redirects > config.scope.max_redirects {
        verdict["decision"] = "reject".into();
        verdict["rule"] = "max_redirects".into();
        verdict["max_redirects"] = format!(
            "the hop path ends in {redirects} redirect{} in a row, more than scope.max_redirects = {}",
            if redirects == 1 { "" } else { "s" },
            config.scope.max_redirects
        )
        .into();
    }
    // The gates a URL the scope takes meets before its fetch, and the URL filters a download-mode crawl
    // applies before writing: what the crawl refuses on the URL alone (xt15b F6: explain said `accept` for
    // a URL `before_fetch` refused).
    if let Ok(gates) = crate::Gates::from_config(&sheets.effective(&uri), &seeds) {
        let input = crate::decide::DecideInput::new(&uri);
        if !gates.before_fetch.is_empty() {
            let t = gates.before_fetch.decide_traced(&input);
            verdict["before_fetch"] = gate_json(&t);
        }
        if gates.url_filter_mode == crate::settings::FilterMode::Download {
            let t = gates.before_write.decide_traced(&input);
            verdict["before_write"] = gate_json(&t);
        }
    }
    verdict
}

/// A gate's verdict as explain prints it: its decision, the deciding rule, every rule's answer.
fn gate_json(t: &crate::decide::Traced<'_>) -> serde_json::Value {
    serde_json::json!({
        "decision": t.decision.as_str(),
        "rule": t.rule,
        "trace": trace_json(t),
    })
}

/// Every rule's answer in a verdict, in order.
fn trace_json(t: &crate::decide::Traced<'_>) -> Vec<serde_json::Value> {
    t.trace
        .iter()
        .map(|(rule, answer)| serde_json::json!({"rule": rule, "answer": answer.as_str()}))
        .collect()
}

/// Everything known of `url` (typed as `input`) before fetching it, as one JSON object with the field names
/// `trawl url explain --json` documents. The scope judges what a crawl would: the server form of the URL
/// class that matches (`url_class.for_server`, which drops parameters, changes the scheme or host), else the
/// URL itself; `scope.url` names it. `classes` should be the config's (the crawl's naming uses those).
pub fn explain_json(
    config: &CrawlConfig,
    classes: &UrlClasses,
    id: &Identity,
    via: Option<&Url>,
    hops: Option<&str>,
    input: &str,
    u: &Url,
) -> serde_json::Value {
    // The crawl judges a link without its fragment (the document, not a place in it): so is it here (xt15b F3).
    let mut judged = u.clone();
    judged.set_fragment(None);
    let class = classes.match_url(&judged);
    let normalise = |x: &Url| classes.match_url(x).map(|m| m.canonical().clone());
    let hints = CanonicalHints::none().with_url_class(&normalise);
    let e = id.explain(u, hints);
    serde_json::json!({
        "scope": scope_json(config, via, hops, class.as_ref().map_or(&judged, |m| &m.for_server)),
        "input": input,
        "raw": e.raw.as_str(),
        "canonical": e.canonical.as_str(),
        "canonical_source": e.canonical_source.name(),
        "uniq_key": e.uniq_key,
        "canonicalizer": id.canonicalizer.name(),
        "surt": e.surt,
        // Of the URL the scope judges (a URL class's server form may change the host: xt15b F14).
        "surt_heritrix": class.as_ref().map_or(e.surt_heritrix.clone(), |m| trawl_url::surt::heritrix(&m.for_server)),
        "norm": e.norm.as_str(),
        "norm_uuid": e.norm.uuid().to_string(),
        "version_template": e.version_template.as_ref().map(|t| t.template.as_str()),
        "version": e.version_template.as_ref().map(|t| t.version.as_str()),
        "url_class": class.map(|m| serde_json::json!({
            "name": m.class,
            "kind": m.kind.as_str(),
            "normalised": m.normalised.as_str(),
            "for_server": m.for_server.as_str(),
            "api_url": m.api_url.as_ref().map(Url::as_str),
            "next_page": m.next_page.as_ref().map(Url::as_str),
            "problems": m.problems.iter().map(ToString::to_string).collect::<Vec<_>>(),
        })),
    })
}

#[cfg(test)]
mod via {
    use super::parse_via;

    /// A via is an absolute http(s) URL; a typo is refused, not read as a host named `http` (xt13a F10, F12).
    #[test]
    fn a_via_is_an_http_url() {
        assert!(parse_via("http://a.org/p").is_ok());
        for bad in ["http//a.org/", "notaurl", "ftp://a.org/", "a.org/p"] {
            assert!(parse_via(bad).is_err(), "{bad}");
        }
    }
}

#[cfg(test)]
mod robots {
    use super::*;

    /// A robots.txt's redirects are judged as the crawl judges them, a prerequisite's own steps, with a rule
    /// set that refuses plain redirects (xt47a F2).
    #[test]
    fn a_robots_redirect_is_a_prerequisite() {
        let config = CrawlConfig::parse(
            "[seeds]\nurls = [\"http://a.test/\"]\n[scope]\nrules = [\n  { rule = \"reject\" },\n  \
             { rule = \"prerequisite_accept\" },\n  { rule = \"seed_accept\" },\n]\n",
            Path::new("crawl.toml"),
        )
        .unwrap();
        let url = Url::parse("http://b.test/r3").unwrap();
        let via = Url::parse("http://b.test/r2").unwrap();
        let judged = |hops| scope_json(&config, Some(&via), Some(hops), &url)["decision"].clone();
        assert_eq!(judged("PRR"), "accept");
        assert_eq!(judged("P"), "accept");
        assert_eq!(judged("LR"), "reject");
        assert_eq!(judged("PRL"), "reject");
    }
}
