//! The candidate chain: every URI another one leads to — outlink, redirect, robots.txt prerequisite, a URL
//! class's API URL or predicted next page, a watchable page's next visit — is named (identity), then judged
//! by the scope of its settings (sheets applied). What is accepted goes back to the worker loop as a
//! [`Child`], which takes it through the uniq filter into the frontier; what is refused is a cut, logged once
//! with its status and the rule that decided.

use super::robots::{ROBOTS_SITEMAP, SITEMAP_PROBE};
use super::{
    known_links::KnownLinks,
    naming::Naming,
    outcome::{Child, Cut, NewSeed, Placement},
    pipeline::Pipeline,
};
use crate::live::LiveSettings;
use trawl_config::Annotation;
use trawl_config::CrawlUri;
use trawl_config::decide::Decision;
use trawl_config::status;
use trawl_extract::{Hop, Outlink};

/// What the candidate chain made of a batch.
#[derive(Debug, Default)]
pub(crate) struct Judged {
    pub(crate) accepted: Vec<Child>,
    /// Refused URIs worth a crawl.log line, with their status; the annotation names the rule.
    pub(crate) cuts: Vec<Cut>,
    /// Redirect targets of seeds to be taken as seeds (`scope.seed_redirects_new_seeds`), each with the URI
    /// that redirected: the worker loop widens the crawl's scope to them before their page is processed.
    pub(crate) new_seeds: Vec<NewSeed>,
}

/// Takes a page's outlinks through the chain. Links already known to the uniq filter (navigation repeated on
/// every page) are dropped first: they could only end as duplicates.
pub(crate) fn outlinks(p: &Pipeline, parent: &CrawlUri, links: Vec<Outlink>) -> Judged {
    let max_redirects = p.settings().config.scope.max_redirects;
    let mut fresh: Vec<(u128, Outlink)> = links
        .into_iter()
        .map(|link| (KnownLinks::fingerprint(link.url.as_str()), link))
        .collect();
    {
        let known = p
            .known_links
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // A redirect's target is judged whatever was linked before: it may be a respelling of the URI that
        // redirected (see `is_respelling`), and `scope.max_redirects` must see each one in a chain.
        fresh.retain(|(fp, link)| link.hop == Hop::Redirect || !known.contains(*fp));
    }
    let mut judged = Judged::default();
    for (fp, link) in fresh {
        // Only an HTTP redirect moves a seed elsewhere: a page's meta refresh (an `R` hop as well) may come
        // minutes later on a page of its own (xt14a F7), as Heritrix's "a seed returned 301 or 302".
        let is_location = link.context == super::extract::LOCATION;
        let sitemap = names_sitemap(parent, &link);
        let mut child = parent.child(link.url, String::new(), link.hop);
        child.lastmod = link.lastmod;
        child.sitemap = sitemap;
        if link.context == BROWSER_LINK {
            child.browser = true;
            child.annotate(Annotation::Browser(None));
        }
        let redirects = child
            .hop_path
            .chars()
            .rev()
            .take_while(|&c| c == 'R')
            .count();
        if redirects > max_redirects {
            p.naming.name(&mut child);
            child.annotate(Annotation::Rejected("max_redirects".into()));
            judged.cuts.push(Cut {
                uri: child,
                status: status::OUT_OF_SCOPE,
            });
            continue;
        }
        match judge(p, child, Placement::New, None) {
            Ok(mut accepted) => {
                accepted.known = Some(fp);
                if is_respelling(parent, &accepted.uri) {
                    accepted.placement = Placement::Redirect;
                }
                if is_location
                    && parent.hop_path.chars().all(|c| c == 'R')
                    && seed_redirect_leaving_scope(p, parent, &accepted.uri)
                {
                    judged.new_seeds.push(NewSeed {
                        from: if parent.hop_path.is_empty() {
                            format!("the seed {}", parent.url)
                        } else {
                            format!("a redirect of a seed, {},", parent.url)
                        },
                        target: accepted.uri.clone(),
                    });
                }
                judged.accepted.push(accepted);
            }
            Err(Some(cut)) => judged.cuts.push(*cut),
            Err(None) => {}
        }
    }
    judged
}

/// Whether a seed (or a redirect of one) redirects to a page whose links the scope refuses, and that page is
/// to become a seed (`scope.seed_redirects_new_seeds`, as Heritrix's `seedsRedirectNewSeeds`): the crawl of
/// that site would otherwise end at its first page, which is seldom what the operator meant (xt12a F9).
/// With the setting off, the log says so instead. The target is fetched as any redirect of an in-scope page
/// is.
fn seed_redirect_leaving_scope(p: &Pipeline, parent: &CrawlUri, target: &CrawlUri) -> bool {
    let live = p.settings();
    let followed = |page: &CrawlUri| links_refused_by(&live, &p.naming, page).is_none();
    // Said only where the seed's own links would have been followed (xt13a F7: a single-page or
    // `max_hops = 0` crawl follows none anywhere).
    if site_refused_by(&live, &p.naming, target).is_none() || !followed(parent) {
        return false;
    }
    let what = if parent.hop_path.is_empty() {
        "the seed"
    } else {
        "a redirect of a seed,"
    };
    if live.sheets.effective(parent).scope.seed_redirects_new_seeds {
        return true;
    }
    // Not `trawl ctl add-seeds`: the target is fetched by now, and the uniq filter would not fetch it again
    // (xt14a F1).
    tracing::warn!(
        "{what} {} redirects to {}, whose links are outside the scope: only that page is crawled there; to \
         crawl that site, name {} as a seed of the next crawl, or (but in a shared crawl) leave \
         scope.seed_redirects_new_seeds at true (crawl.toml, a sheet or `trawl ctl JOB set`: for the redirects \
         from now on)",
        parent.url,
        shown(&target.url),
        shown(&target.url)
    );
    false
}

/// `url` as the log shows it: without a password a redirect's `Location` may carry (xt14a F12).
pub(crate) fn shown(url: &url::Url) -> String {
    trawl_config::settings::access::proxy_without_password(url.as_str())
}

/// The scope rule that would refuse a link found on `page` to itself, by `live`'s settings (its sheets'
/// included): `None` when the page's links are followed.
pub(crate) fn links_refused_by(
    live: &LiveSettings,
    naming: &Naming,
    page: &CrawlUri,
) -> Option<String> {
    let (decision, rule) = link_verdict(live, naming, page, page.url.clone());
    (decision != Decision::Accept).then_some(rule)
}

/// The scope rule that keeps a seed redirect's target `page` from being crawled as a seed's site would be:
/// one refusing its links ([`links_refused_by`]), or its folder where an operator's prefix takes in the page
/// alone ([`folder_refused_by`]). `None` when the site is followed.
pub(crate) fn site_refused_by(
    live: &LiveSettings,
    naming: &Naming,
    page: &CrawlUri,
) -> Option<String> {
    links_refused_by(live, naming, page).or_else(|| folder_refused_by(live, naming, page))
}

/// Where an operator's SURT prefix takes in `page` itself and nothing beside it (`http://(h)/home` for
/// `http://h/home`): the scope rule that refuses a link to its folder (`http://h/`, the URL a seed's prefix is
/// made from), as the seed redirect's widening would take it in (xt14c F10). `None` when the page is taken
/// in by another rule, or its folder is followed too.
fn folder_refused_by(live: &LiveSettings, naming: &Naming, page: &CrawlUri) -> Option<String> {
    if link_verdict(live, naming, page, page.url.clone())
        != (Decision::Accept, "surt_prefixed".into())
    {
        return None;
    }
    let mut folder = page.url.clone();
    folder.set_query(None);
    folder.set_fragment(None);
    let path = folder.path();
    let path = path[..path.rfind('/').map_or(path.len(), |at| at + 1)].to_owned();
    folder.set_path(&path);
    // Refused for want of a prefix (the scope's leading `reject`, or no rule answering), not by a rule of its
    // own (xt15c F4: a rule refusing folder pages made the log say the page's links were refused).
    let (decision, rule) = link_verdict(live, naming, page, folder);
    (decision != Decision::Accept && matches!(rule.as_str(), "reject" | "default")).then_some(rule)
}

/// The scope's decision on a link from `page` to `url`, and the deciding rule.
fn link_verdict(
    live: &LiveSettings,
    naming: &Naming,
    page: &CrawlUri,
    url: url::Url,
) -> (Decision, String) {
    let mut link = page.child(url, String::new(), Hop::Link);
    naming.name(&mut link);
    let scope = live.scope_for(&live.sheets.effective(&link));
    let verdict = scope.decide(&link);
    (verdict.decision, verdict.rule.to_string())
}

/// Whether `child` is a redirect from `parent` to another URL with the same uniq key: the identity rules
/// equate the two spellings (`www.` stripped, the case folded, a URL class's trailing slash culled), and the
/// uniq filter would drop the target as seen, though only the redirect was fetched and the page it leads to
/// never was. Such a target goes past the filter; `scope.max_redirects` still ends a loop of them.
fn is_respelling(parent: &CrawlUri, child: &CrawlUri) -> bool {
    child.last_hop() == Some('R') && child.uniq_key == parent.uniq_key && child.url != parent.url
}

/// Whether `link` of `parent`'s document is to be read as a sitemap: a robots.txt `Sitemap:` line, the
/// `/sitemap.xml` probe, a sitemap index's `<loc>`, or a redirect from one of them. A `<urlset>`'s `<loc>` is
/// a page (an `S` hop too), whatever it turns out to hold.
fn names_sitemap(parent: &CrawlUri, link: &Outlink) -> bool {
    match link.hop {
        Hop::Sitemap => matches!(
            link.context,
            ROBOTS_SITEMAP | SITEMAP_PROBE | trawl_extract::sitemap::INDEX_LOC
        ),
        Hop::Redirect => parent.sitemap,
        _ => false,
    }
}

/// The context of a link found only in a rendered page's DOM: its URI is marked `browser`.
pub(crate) const BROWSER_LINK: &str = "browser/a/@href";

/// The queue of every speculative URI with `[extract] speculative_queue`.
pub(crate) const SPECULATIVE_QUEUE: &str = "speculative";

/// Whether `url` can be fetched at all: http or https, with a host.
fn fetchable(url: &trawl_url::Url) -> bool {
    matches!(url.scheme(), "http" | "https") && url.host_str().is_some_and(|h| !h.is_empty())
}

/// Takes one URI through the chain: named (unless it has a uniq key already, as a revisit has), then judged by
/// the scope of its own settings. `queue` overrides the queue its URL is assigned to (a prerequisite goes
/// into the queue of the page that needs it).
///
/// Refused: `Err(Some(cut))` when the refusal is worth a log line — an active rule's (a trap, a hop limit), or
/// any refusal of a URI inferred or needed by an accepted one (hop `I`, a prerequisite, a revisit), so that a
/// URL class pointing outside the scope shows; `Err(None)` for the common case of a link outside the seeds'
/// prefixes, which would swamp the log.
pub(crate) fn judge(
    p: &Pipeline,
    mut uri: CrawlUri,
    placement: Placement,
    queue: Option<String>,
) -> Result<Child, Option<Box<Cut>>> {
    // A URI named as a sitemap (a robots.txt `Sitemap:` line, an index's entry) the scope refuses is logged
    // however it was refused: few, and an operator looks for them (xt12a F7: one on another host went
    // without a line).
    let inferred = uri.last_hop() == Some('I') || placement != Placement::New || uri.sitemap;
    if uri.uniq_key.is_empty() {
        p.naming.name(&mut uri);
    }
    // Only an http(s) URL with a host is ever fetched, whatever the scope says: a robots.txt `Sitemap:` line
    // or a redirect's `Location` may name another scheme, which the extractors drop (xt26b F2: a `mailto:`
    // reached the frontier, whose store refuses a queue with no name; F3: an `ftp:` URL was fetched with HTTP).
    if !fetchable(&uri.url) {
        // A redirect's too: its page's line says only where it went (xt42a: `ftp:` and `javascript:` targets
        // went without a line, though scope.md says they are logged).
        if !(inferred || uri.last_hop() == Some('R')) {
            return Err(None);
        }
        uri.annotate(Annotation::Rejected("not_http".into()));
        return Err(Some(Box::new(Cut {
            uri,
            status: status::UNFETCHABLE,
        })));
    }
    let live = p.settings();
    let effective = live.sheets.effective(&uri);
    let scope = live.scope_for(&effective);
    let verdict = scope.decide(&uri);
    tracing::trace!(uri = %uri.url, rule = verdict.rule, decision = ?verdict.decision, "scope");
    if verdict.decision == Decision::Accept {
        uri.rank(&effective, &live.config);
        let queue = queue.unwrap_or_else(|| {
            if effective.extract.speculative_queue && uri.last_hop() == Some('X') {
                SPECULATIVE_QUEUE.to_owned()
            } else {
                p.assign.key(&uri.url)
            }
        });
        return Ok(Child {
            uri,
            queue,
            placement,
            known: None,
        });
    }
    if !(inferred || verdict.rule_index.is_some_and(|i| i > 0)) {
        return Err(None);
    }
    uri.annotate(Annotation::Rejected(verdict.rule.to_string()));
    Err(Some(Box::new(Cut {
        uri,
        status: verdict.status,
    })))
}
