//! Write: the fetch becomes WARC records (response, request, metadata with the outlinks) in the job's
//! archive, unless a gate kept it out. A write failure stops the crawl; the URI goes back to its queue, so a
//! resumed crawl fetches it again.

use std::time::Duration;

use super::{
    outcome::{Disposition, Ended, Outcome},
    pipeline::Pipeline,
};
use crate::{blocking::blocking, fetch_record::FetchRecord};
use trawl_config::CrawlUri;

/// Archives the response; sets the record's payload digest.
pub(super) fn run(p: &Pipeline, uri: &CrawlUri, record: &mut FetchRecord) -> Result<(), Ended> {
    let Some(resp) = record.response().filter(|_| record.write) else {
        return Ok(());
    };
    let written = blocking(resp.response_bytes.len(), || {
        p.warc.write_fetch(
            uri,
            &record.fetched,
            resp,
            &record.outlinks,
            record.previous.as_ref(),
        )
    });
    match written {
        Ok(archived) => {
            // What a browser page may ask for again (its scripts, styles, images, API answers), kept for it;
            // HTML pages are rendered from their own fetch, so they are not copied.
            if let Some(rendering) = p.rendering.as_ref().filter(|_| !record.is_html()) {
                rendering.keep(uri.url.as_str(), &resp.response_bytes, &resp.request_bytes);
            }
            record.payload_digest = archived.digest;
            record.duplicate = archived.duplicate;
            record.response_id = Some(archived.response_id);
            record.not_modified = archived.not_modified;
            Ok(())
        }
        Err(e) => {
            p.fail(e.to_string());
            // The archive's failure, not the server's: the fetch does not use up one of the URI's tries.
            let mut uri = uri.clone();
            uri.tries = uri.tries.saturating_sub(1);
            Err(Outcome::only(Disposition::Retry {
                uri,
                delay: Duration::ZERO,
            })
            .into())
        }
    }
}
