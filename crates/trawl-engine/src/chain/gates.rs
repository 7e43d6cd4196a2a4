//! The after-fetch gates: the decide sequences on the response head and before writing, then the text
//! filters on the page's text. They decide what is archived and which links are followed.

use super::pipeline::Pipeline;
use crate::blocking::blocking;
use crate::fetch_record::FetchRecord;
use trawl_config::Annotation;
use trawl_config::CrawlUri;
use trawl_config::UriKind;
use trawl_config::decide::{DecideInput, Decision, FetchFacts};
use trawl_config::filters::FilterMode;

/// Applies the gates to a page's response (not to robots.txt). A response to be tried again (a 5xx, a
/// 429) goes through them too: `before_write = [{ rule = "fetch_status_matches", statuses = ["5xx"] }]`
/// keeps every try out of the archive, the last one included (xt12a F6: none was ever gated).
pub(super) fn run(p: &Pipeline, uri: &mut CrawlUri, record: &mut FetchRecord) {
    if uri.kind != UriKind::Page {
        return;
    }
    let mut notes = Vec::new();
    let facts = FetchFacts {
        ip: record.fetched.ip,
        status: record.status().map(i32::from),
        mime: record.content_type.clone(),
        length: record.response().map(|r| r.body.len() as u64),
    };
    let input = DecideInput::fetched(uri, &facts);
    let after_headers = p.gates.after_headers.decide_input(&input);
    if after_headers.decision == Decision::Reject {
        notes.push(Annotation::Rejected(after_headers.rule.to_string()));
        record.outlinks.clear();
        record.write = false;
    }
    let before_write = p.gates.before_write.decide_input(&input);
    if before_write.decision == Decision::Reject {
        notes.push(Annotation::NotWritten(before_write.rule.to_string()));
        record.write = false;
    }
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
