//! The `resource` record: content made by the crawl itself rather than received, such as a screenshot of a
//! rendered page (as Browsertrix and Brozzler store them).

use chrono::{DateTime, Utc};

use super::Record;
use crate::digest::sha1_digest;

impl Record {
    /// A `resource` record of `block` (of `content_type`) named `target_uri` (e.g.
    /// `urn:screenshot:https://example.org/`); its payload is its block.
    pub fn resource(
        target_uri: &str,
        date: DateTime<Utc>,
        content_type: &str,
        block: Vec<u8>,
    ) -> Record {
        let payload = sha1_digest(&block);
        let mut rec = Record::base("resource", date, Some(target_uri), content_type, block);
        rec.set("WARC-Payload-Digest", payload);
        rec
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resource_names_its_content() {
        let rec = Record::resource(
            "urn:screenshot:http://a.test/",
            Utc::now(),
            "image/png",
            b"png".to_vec(),
        );
        assert_eq!(rec.get("WARC-Type"), Some("resource"));
        assert_eq!(rec.get("Content-Type"), Some("image/png"));
        assert_eq!(rec.get("WARC-Payload-Digest"), rec.get("WARC-Block-Digest"));
    }
}
