//! Write: the fetch becomes WARC records (response, request, metadata with the outlinks) in the job's
//! archive, unless a gate kept it out. A write failure stops the crawl; the URI goes back to its queue, so a
//! resumed crawl fetches it again.

use super::{
    outcome::{Disposition, Ended, Outcome},
    pipeline::Pipeline,
    retry::politeness,
};
use crate::{blocking::blocking, fetch_record::FetchRecord};
use trawl_config::{CrawlConfig, CrawlUri};

/// Archives the response; sets the record's payload digest.
pub(super) fn run(
    p: &Pipeline,
    uri: &CrawlUri,
    record: &mut FetchRecord,
    settings: &CrawlConfig,
) -> Result<(), Ended> {
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
            // The archive's failure, not the server's: the fetch does not use up one of the URI's tries. The
            // host was asked, so it rests as after any fetch (xt46c N7: another worker of a shared crawl
            // fetched it again 132 ms later, under min_delay_ms).
            let pace = politeness(p, settings, uri, record);
            let mut uri = uri.clone();
            uri.tries = uri.tries.saturating_sub(1);
            let mut outcome = Outcome::only(Disposition::Retry {
                uri,
                delay: pace.delay,
            });
            outcome.asked = pace.asked;
            Err(outcome.into())
        }
    }
}
