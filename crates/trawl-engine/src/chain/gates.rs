//! The after-fetch gates: the decide sequences on the response head and before writing, then the text
//! filters on the page's text. They decide what is archived and which links are followed.

use std::net::IpAddr;

use super::pipeline::Pipeline;
use crate::blocking::blocking;
use crate::fetch_record::FetchRecord;
use trawl_config::Annotation;
use trawl_config::CrawlUri;
use trawl_config::UriKind;
use trawl_config::decide::{DecideInput, Decision, FetchFacts};
use trawl_config::filters::FilterMode;

/// Applies the gates to a page's response. A response to be tried again (a 5xx, a 429) goes through them
/// too: `before_write = [{ rule = "fetch_status_matches", statuses = ["5xx"] }]` keeps every try out of the
/// archive, the last one included (xt12a F6: none was ever gated). A robots.txt goes through `before_write`
/// alone, which says whether it is archived (as Heritrix's writer judges prerequisites: xt20b F4); what it
/// says is read whatever the gates say, and no other gate stops its download or its reading.
pub(super) fn run(p: &Pipeline, uri: &mut CrawlUri, record: &mut FetchRecord) {
    let mut notes = Vec::new();
    let facts = FetchFacts {
        ip: record.fetched.ip,
        status: record.status().map(i32::from),
        mime: record.content_type.clone(),
        length: record.response().map(|r| r.body.len() as u64),
    };
    let input = DecideInput::fetched(uri, &facts);
    if uri.kind != UriKind::Page {
        not_written(p, &input, record, &mut notes);
        uri.annotations.extend(notes);
        return;
    }
    // Refused on its head already, in the fetcher (the body not downloaded): its length is no fact now.
    let stopped = record.response().and_then(|r| r.stopped_after_head.clone());
    let after_headers = match stopped {
        Some(rule) => Some(rule),
        None => {
            let v = p.gates.after_headers.decide_input(&input);
            (v.decision == Decision::Reject).then(|| v.rule.to_string())
        }
    };
    if let Some(rule) = after_headers {
        notes.push(Annotation::Rejected(rule));
        record.outlinks.clear();
        record.write = false;
    }
    not_written(p, &input, record, &mut notes);
    if !p.gates.text_filters.is_empty()
        && record.mime.as_deref().is_some_and(|m| m.contains("html"))
        && let Some(body) = record.entity()
    {
        let (text, meta) = blocking(body.len(), || {
            trawl_config::filters::page_text(
                body,
                record.content_type.as_deref(),
                &uri.url,
                4 << 20,
            )
        });
        if let Some(hit) = p.gates.text_filters.check(&text, &meta) {
            notes.push(Annotation::TextFilter(hit.label()));
            record.write = false;
            if hit.mode == FilterMode::Crawl {
                record.outlinks.clear();
            }
        }
    }
    uri.annotations.extend(notes);
}

/// The `before_write` gate: a REJECT keeps the response out of the archive (`notWritten:RULE`).
fn not_written(
    p: &Pipeline,
    input: &DecideInput<'_>,
    record: &mut FetchRecord,
    notes: &mut Vec<Annotation>,
) {
    let before_write = p.gates.before_write.decide_input(input);
    if before_write.decision == Decision::Reject {
        notes.push(Annotation::NotWritten(before_write.rule.to_string()));
        record.write = false;
    }
}

/// The `after_headers` gate, asked by the fetcher of a page's response head: a REJECT stops the download there,
/// as the docs promise (xt12a F5: a refused 30 MB video was read whole, then dropped). `None` when the gate
/// has no rule. Only a head that declares its length is judged there, when every fact the gate's rules read
/// is known (status, type, length, address): a chunked body is read, and judged after as before, so that a
/// later rule on its length may still overrule an earlier REJECT (review R2).
pub(super) fn on_head<'a>(
    p: &'a Pipeline,
    uri: &'a CrawlUri,
) -> Option<impl Fn(u16, &http::HeaderMap, Option<IpAddr>) -> Option<String> + Send + Sync + 'a> {
    if uri.kind != UriKind::Page || p.gates.after_headers.is_empty() {
        return None;
    }
    Some(
        move |status: u16, headers: &http::HeaderMap, ip: Option<IpAddr>| {
            let length = headers
                .get(http::header::CONTENT_LENGTH)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse().ok())?;
            let facts = FetchFacts {
                ip,
                status: Some(i32::from(status)),
                mime: crate::fetch_record::content_type_of(headers),
                length: Some(length),
            };
            let v = p
                .gates
                .after_headers
                .decide_input(&DecideInput::fetched(uri, &facts));
            (v.decision == Decision::Reject).then(|| v.rule.to_string())
        },
    )
}
