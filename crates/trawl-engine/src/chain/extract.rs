//! Extract: a page's links — a redirect's target first, then what the body links to (HTML, CSS), honouring
//! `meta robots nofollow`. The body is decoded once here, for extraction and for the text filters after.

use super::pipeline::Pipeline;
use crate::blocking::blocking;
use crate::fetch_record::decode_limits;
use trawl_extract::{self as extract, DocumentLinks, Hop, Limits, Outlink};
use url::Url;

use crate::fetch_record::FetchRecord;
use trawl_config::Annotation;
use trawl_config::CrawlConfig;
use trawl_config::CrawlUri;
use trawl_config::UriKind;

/// The context of a link that is an HTTP redirect's `Location` (a meta refresh is an `R` hop too).
pub(super) const LOCATION: &str = "header/location";

/// The most `Link` targets of a response's head followed.
const MAX_HEADER_LINKS: usize = 100;

/// The links of a response's head besides a redirect's `Location`, as browsers follow them (xt46a F9): a
/// `Refresh` field's target is a redirect (`R`), as a meta refresh is; a `Link` field's preload, module
/// preload, style sheet or icon is an embed (`E`).
fn header_links(uri: &CrawlUri, record: &mut FetchRecord) {
    let Some(resp) = record.response() else {
        return;
    };
    let values = |name: &str| resp.headers.get_all(name).into_iter().map(|v| v.as_bytes());
    let refresh = trawl_extract::field::refresh(values("refresh"))
        .map(|t| (t, Hop::Redirect, "header/refresh"));
    // Each once, and a few: a head of thousands of `Link` targets is no page's (review 85 R6).
    let mut seen = std::collections::HashSet::new();
    let embeds = trawl_extract::field::links(values("link"))
        .into_iter()
        .filter(|(_, rel)| {
            rel.split_ascii_whitespace()
                .any(|r| matches!(r, "preload" | "modulepreload" | "stylesheet" | "icon"))
        })
        .filter(|(target, _)| seen.insert(target.clone()))
        .take(MAX_HEADER_LINKS)
        .map(|(target, _)| (target, Hop::Embed, "header/link"));
    let found: Vec<Outlink> = refresh
        .into_iter()
        .chain(embeds)
        .filter_map(|(target, hop, context)| {
            let url = trawl_url::resolve_bytes(&uri.url, target.as_bytes()).ok()?;
            (url.as_str().len() <= trawl_extract::MAX_URL_LEN).then_some(Outlink {
                url,
                hop,
                context,
                lastmod: None,
            })
        })
        .collect();
    record.outlinks.extend(found);
}

/// Fills `record.outlinks` for a page (robots.txt has its own processor).
pub(super) fn run(
    p: &Pipeline,
    uri: &mut CrawlUri,
    record: &mut FetchRecord,
    settings: &CrawlConfig,
) {
    if uri.kind != UriKind::Page {
        return;
    }
    let redirect = record
        .location()
        .filter(|_| record.status().is_some_and(|s| (300..400).contains(&s)))
        .and_then(|location| trawl_url::resolve_bytes(&uri.url, location).ok())
        // As every extractor drops a link past the cap once resolved.
        .filter(|target| target.as_str().len() <= trawl_extract::MAX_URL_LEN);
    if let Some(target) = redirect {
        if uri.is_seed {
            p.stats
                .record_seed_redirect(uri.url.as_str(), target.as_str());
        }
        record.outlinks.push(Outlink {
            url: target,
            hop: Hop::Redirect,
            context: LOCATION,
            lastmod: None,
        });
    }
    header_links(uri, record);
    // An unchanged page (304 to a conditional recrawl) has no body: its links are those of its earlier capture.
    if record.status() == Some(304)
        && let Some(prev) = &record.previous
    {
        let links: Vec<Outlink> = prev
            .outlinks
            .iter()
            .filter_map(|(url, hop)| {
                Some(Outlink {
                    url: trawl_url::parse_lenient(url).ok()?,
                    hop: trawl_extract::Hop::from_letter(*hop)?,
                    context: "previous/outlink",
                    lastmod: None,
                })
            })
            .collect();
        record.outlinks.extend(links);
        return;
    }
    if record.try_later() {
        return;
    }
    record.decode(decode_limits(settings));
    if record.decode_cut() {
        uri.annotate(Annotation::DecodeTruncated);
    }
    if record.decode_failed() {
        uri.annotate(Annotation::DecodeFailed);
    }
    let Some(body) = record.entity() else {
        return;
    };
    // No Content-Type: a generic type, so only what its bytes show is read (a sitemap, a PDF, an office document).
    let typed = record.mime.is_some();
    let mime = record.mime.as_deref().unwrap_or("");
    // A URI named as a sitemap (robots.txt, the probe, an index; or redirected from one) whose body is one: its
    // URLs, as S hops. A page a urlset lists is extracted as what its type says, whatever its bytes.
    if settings.extract.sitemaps && uri.sitemap && extract::sitemap::looks_like_sitemap(mime, body)
    {
        let content_type = record.content_type.as_deref();
        let mut found = blocking(body.len(), || {
            extract::sitemap::sitemap_links(body, content_type, &uri.url)
        });
        // The host's allowance over the whole crawl (kept with the counters, so a resume goes on with it):
        // what is left of it is all this sitemap may add.
        let wanted = found.outlinks.len() as u64;
        let granted = p.stats.take_sitemap_urls(
            uri.url.host_str().unwrap_or_default(),
            wanted,
            settings.extract.sitemap_max_urls_per_host,
        );
        let over_allowance = granted < wanted;
        if over_allowance {
            found.outlinks.truncate(granted as usize);
        }
        if over_allowance || found.cut.is_some() {
            uri.annotate(Annotation::OutlinksTruncated);
        }
        // Why, as crawl.log and the log say it (xt26b F6): a broken sitemap is not one at the protocol's cap.
        if let Some(cut) = &found.cut {
            tracing::info!(uri = %uri.url, "{cut}");
            uri.annotate(Annotation::Sitemap(cut.label()));
        }
        // Both, where both cut it: the allowance took fewer than the sitemap gave (review 74 R6).
        if over_allowance {
            tracing::info!(
                uri = %uri.url,
                "the host's sitemaps reached [extract] sitemap_max_urls_per_host ({}): {granted} of this sitemap's \
                 {wanted} URLs taken",
                settings.extract.sitemap_max_urls_per_host
            );
            uri.annotate(Annotation::Sitemap("maxUrlsPerHost"));
        }
        record.outlinks.extend(found.outlinks);
        return;
    }
    if typed && settings.extract.speculative && extract::speculative::is_script_or_json(mime) {
        let (links, truncated) = blocking(body.len(), || {
            extract::speculative::speculative_links(body, &uri.url)
        });
        if truncated {
            uri.annotate(Annotation::OutlinksTruncated);
        }
        record.outlinks.extend(links);
        return;
    }
    if settings.extract.pdf && extract::pdf::is_pdf(mime, body) {
        let links = document_links(
            uri,
            settings,
            |url, limits| {
                extract::pdf::pdf_links(body, url, settings.extract.pdf_max_bytes, limits)
            },
            |problem| Annotation::Pdf(problem.label()),
        );
        record.outlinks.extend(links);
        return;
    }
    if settings.extract.office
        && let Some(format) = extract::office::office_format(mime, uri.url.path(), body, || {
            record
                .header("content-disposition")
                .and_then(|v| extract::office::disposition_filename(&v))
        })
    {
        let links = document_links(
            uri,
            settings,
            |url, limits| {
                extract::office::office_links(
                    body,
                    format,
                    url,
                    settings.extract.office_max_bytes,
                    limits,
                )
            },
            |problem| Annotation::Doc(problem.label()),
        );
        record.outlinks.extend(links);
        return;
    }
    if !typed {
        return;
    }
    if settings.extract.feeds && extract::feed::looks_like_feed(mime, body) {
        let content_type = record.content_type.as_deref();
        let (links, truncated) = blocking(body.len(), || {
            extract::feed::feed_links(body, content_type, &uri.url, settings.scope.max_outlinks)
        });
        if truncated {
            uri.annotate(Annotation::OutlinksTruncated);
        }
        record.outlinks.extend(links);
        return;
    }
    let limits = Limits {
        max_outlinks: settings.scope.max_outlinks,
        speculative: settings.extract.speculative,
        ..Limits::default()
    };
    let found = blocking(body.len(), || {
        extract::extract(
            mime,
            body,
            record.content_type.as_deref(),
            &uri.url,
            &limits,
        )
    });
    let nofollow = found.meta_robots_nofollow && settings.fetch.obey_robots;
    record.nofollow = nofollow;
    add_capped(
        uri,
        record,
        found
            .outlinks
            .into_iter()
            .filter(|o| !(nofollow && o.hop == Hop::Link)),
        found.truncated_outlinks,
        settings.scope.max_outlinks,
    );
}

/// Adds `links` to the page's outlinks while it has fewer than `max` (`scope.max_outlinks`) in all; the rest
/// are dropped and the page noted `outlinksTrunc`, as it is when `truncated` (the extractor cut its list). The
/// links of a page's HTML and of its rendered DOM (`render`) share the cap this way.
pub(super) fn add_capped(
    uri: &mut CrawlUri,
    record: &mut FetchRecord,
    links: impl IntoIterator<Item = Outlink>,
    truncated: bool,
    max: usize,
) {
    let mut cut = truncated;
    for link in links {
        if record.outlinks.len() >= max {
            cut = true;
            break;
        }
        record.outlinks.push(link);
    }
    if cut {
        uri.annotate(Annotation::OutlinksTruncated);
    }
}

/// The links `read` finds in a binary document (PDF, office) of `uri`, at most `scope.max_outlinks` of them,
/// always read off the async threads: parsing cost follows the document's structure, not only its size (a
/// package's parts inflate to what it says). Annotates a cut list, and the problem that thinned the reading
/// as `annotation` gives it.
fn document_links<P: std::fmt::Display>(
    uri: &mut CrawlUri,
    settings: &CrawlConfig,
    read: impl FnOnce(&Url, &Limits) -> DocumentLinks<P>,
    annotation: impl FnOnce(&P) -> Annotation,
) -> Vec<Outlink> {
    let limits = Limits {
        max_outlinks: settings.scope.max_outlinks,
        ..Limits::default()
    };
    let found = blocking(usize::MAX, || read(&uri.url, &limits));
    if found.truncated {
        uri.annotate(Annotation::OutlinksTruncated);
    }
    if let Some(problem) = &found.problem {
        tracing::info!(uri = %uri.url, "{problem}");
        uri.annotate(annotation(problem));
    }
    found.outlinks
}
