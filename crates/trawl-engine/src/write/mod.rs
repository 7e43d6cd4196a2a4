//! The write stage: a fetch becomes WARC records (response or revisit, request, metadata) in the job's
//! archive.

pub(crate) mod dedup;

pub use dedup::{payload_digests, with_earlier_sources};

use std::sync::{Mutex, PoisonError};

use trawl_warc::{Encoder, Record, WarcFields, WriteBack, Writer, WriterConfig};

use trawl_config::CrawlUri;
use trawl_config::settings::{Compression, WarcConfig};
use trawl_extract::Outlink;
use trawl_fetch::{Fetched, Response};

use crate::Error;

/// The job's WARC writer, shared by the workers. Each fetch's records are serialised and compressed by the
/// worker that fetched it, with an encoder from a pool, so compression runs on every core at once; the writer
/// itself is held only to append the bytes.
#[derive(Debug)]
pub struct WarcSink {
    writer: Mutex<Writer>,
    encoders: Mutex<Vec<Encoder>>,
    /// The digest table, when deduplicating, and the smallest payload worth it.
    dedup: Option<(dedup::DigestTable, u64)>,
    /// Whether a fetch's request and metadata records are written beside its response
    /// (`warc.write_requests`, `warc.write_metadata`).
    requests: bool,
    metadata: bool,
}

/// What writing one fetch did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Archived {
    /// The payload digest (the SHA-1 of the entity body), when the head could be parsed.
    pub(crate) digest: Option<String>,
    /// Whether the payload was already archived, so a revisit record was written.
    pub(crate) duplicate: bool,
    /// Whether the server answered a conditional request `304 Not Modified` (a server-not-modified revisit).
    pub(crate) not_modified: bool,
    /// The WARC-Record-ID of the response (or revisit) record.
    pub(crate) response_id: String,
}

impl WarcSink {
    /// A writer into `dir` with `config`'s naming, rotation and compression; `warcinfo` fields describe the crawl.
    pub(crate) fn new(
        dir: std::path::PathBuf,
        config: &WarcConfig,
        warcinfo: Vec<(String, String)>,
        dedup: Option<dedup::DigestTable>,
    ) -> Result<WarcSink, Error> {
        let host = gethostname::gethostname().to_string_lossy().into_owned();
        let mut cfg = WriterConfig::new(dir, config.prefix.clone(), host);
        cfg.max_file_bytes = config.max_file_bytes;
        cfg.compression = match config.compression {
            Compression::Gzip => trawl_warc::Compression::Gzip,
            Compression::None => trawl_warc::Compression::None,
            Compression::Zstd => trawl_warc::Compression::Zstd,
        };
        cfg.gzip_level = config.gzip_level;
        cfg.zstd_dictionary = config.zstd_dictionary;
        cfg.warcinfo_fields = warcinfo;
        let writer = Writer::new(cfg)?;
        Ok(WarcSink {
            writer: Mutex::new(writer),
            encoders: Mutex::default(),
            dedup: dedup.map(|t| (t, config.dedup_min_bytes)),
            requests: config.write_requests,
            metadata: config.write_metadata,
        })
    }

    /// Writes the response (or, for a payload already archived, a revisit), request and metadata records of
    /// one fetch (those two as `warc.write_requests` and `warc.write_metadata` say), in one file; returns the
    /// payload digest (computed once) and whether it was a duplicate.
    pub(crate) fn write_fetch(
        &self,
        uri: &CrawlUri,
        fetched: &Fetched,
        resp: &Response,
        outlinks: &[Outlink],
        previous: Option<&dedup::PreviousCapture>,
    ) -> Result<Archived, Error> {
        let target = uri.url.as_str();
        let mut response = Record::response(
            target,
            fetched.started,
            fetched.ip,
            resp.response_bytes.clone(),
        );
        if let Some(t) = resp.truncated {
            response.set("WARC-Truncated", t.warc_reason());
        }
        let mut payload_digest = response.get("WARC-Payload-Digest").map(str::to_string);
        // A whole payload big enough to be worth it, already archived: a revisit in its place.
        let earlier = match (&self.dedup, &payload_digest) {
            (Some((table, min)), Some(digest))
                if resp.truncated.is_none() && resp.body.len() as u64 >= *min =>
            {
                table.get(digest).map(|r| (digest.clone(), r))
            }
            _ => None,
        };
        let not_modified = resp.status == 304 && previous.is_some();
        let duplicate = earlier.is_some() || not_modified;
        let first_capture = (!duplicate).then(|| trawl_warc::RefersTo {
            target_uri: target.to_owned(),
            date: response.get("WARC-Date").unwrap_or_default().to_owned(),
            record_id: Some(response.id().to_owned()),
        });
        if let (true, Some(prev)) = (not_modified, previous) {
            // The payload is the earlier capture's, as the revisit says: crawl.log gives its digest too, not
            // the empty body's (xt10b F9).
            payload_digest = Some(prev.digest.clone());
            response = Record::revisit(
                target,
                fetched.started,
                fetched.ip,
                &resp.response_bytes,
                trawl_warc::SERVER_NOT_MODIFIED,
                &prev.digest,
                &prev.refers_to,
            );
        } else if let Some((digest, refers_to)) = &earlier {
            response = Record::revisit(
                target,
                fetched.started,
                fetched.ip,
                &resp.response_bytes,
                trawl_warc::IDENTICAL_PAYLOAD_DIGEST,
                digest,
                refers_to,
            );
        }
        let response_id = response.id().to_string();
        for protocol in resp.protocol.warc_values() {
            response.add("WARC-Protocol", protocol);
        }
        let mut records = vec![response];
        if self.requests {
            let mut request = Record::request(
                target,
                fetched.started,
                fetched.ip,
                resp.request_bytes.clone(),
            );
            request.set("WARC-Concurrent-To", response_id.clone());
            for protocol in resp.protocol.warc_values() {
                request.add("WARC-Protocol", protocol);
            }
            records.push(request);
        }
        if self.metadata {
            records.push(metadata_record(uri, fetched, resp, outlinks, &response_id));
        }
        let warc = Error::Warc;
        let lock = || self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        let mut warcinfo_id = lock().warcinfo_id().map_err(warc)?;
        let pooled = self
            .encoders
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let mut encoder = pooled.unwrap_or_else(|| lock().encoder());
        let result = loop {
            let encoded = match encoder.encode(&records, &warcinfo_id) {
                Ok(e) => e,
                Err(e) => break Err(warc(e)),
            };
            let (step, write_back) = {
                let mut writer = lock();
                let step = match writer.append_encoded(encoded) {
                    Ok(Some(_)) => Ok(None),
                    Ok(None) => writer.warcinfo_id().map(Some),
                    Err(e) => Err(e),
                };
                (step, writer.take_write_back())
            };
            if let Some(due) = write_back {
                give(due);
            }
            match step {
                Ok(None) => break Ok(()),
                // The file rotated while this group was being compressed: again, for the new file.
                Ok(Some(id)) => warcinfo_id = id,
                Err(e) => break Err(warc(e)),
            }
        };
        self.encoders
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(encoder);
        result?;
        // Recorded only once the record is in the file: a revisit never points at a record not written.
        if let (Some((table, min)), Some(digest), Some(first)) =
            (&self.dedup, &payload_digest, &first_capture)
            && resp.truncated.is_none()
            && resp.body.len() as u64 >= *min
        {
            table.insert(digest, first);
        }
        Ok(Archived {
            digest: payload_digest,
            duplicate: duplicate && !not_modified,
            not_modified,
            response_id,
        })
    }

    /// Archives a DNS lookup as a `dns:` response record; returns the block's digest.
    pub(crate) fn write_dns(&self, answer: &trawl_fetch::DnsAnswer) -> Result<String, Error> {
        let record = Record::dns_response(&answer.host, answer.at, &answer.zone_text());
        let digest = record
            .get("WARC-Block-Digest")
            .unwrap_or_default()
            .to_owned();
        self.write_made(record)?;
        Ok(digest)
    }

    /// Writes one record the crawl made itself: a `dns:` answer, a rendered page's screenshot (`resource`).
    pub(crate) fn write_made(&self, record: Record) -> Result<(), Error> {
        let mut writer = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        writer.write(&[record]).map_err(Error::Warc)?;
        if let Some(due) = writer.take_write_back() {
            drop(writer);
            give(due);
        }
        Ok(())
    }

    /// The earlier capture of `url` in a `dedup_from` job, with its validators.
    pub(crate) fn previous(&self, url: &str) -> Option<dedup::PreviousCapture> {
        self.dedup.as_ref()?.0.previous(url)
    }

    /// Closes the current file; returns every file written.
    pub fn close(&self) -> Result<Vec<std::path::PathBuf>, Error> {
        let mut writer = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(writer.close()?)
    }
}

/// Gives a write-back that fell due where it holds no fetch up: on tokio's blocking pool inside a runtime (it
/// takes milliseconds, and the workers would otherwise wait on it, one in the call and the rest for the
/// writer), else here.
fn give(due: WriteBack) {
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => drop(runtime.spawn_blocking(move || due.run())),
        Err(_) => due.run(),
    }
}

/// The metadata record of a fetch, beside its response `response_id`: how it was reached (via, hops, canonical
/// URL, the API it stands for), what it is (its URL class), its fetch time, a certificate's fault, the interim
/// heads before its response, and its outlinks (Heritrix's practice).
fn metadata_record(
    uri: &CrawlUri,
    fetched: &Fetched,
    resp: &Response,
    outlinks: &[Outlink],
    response_id: &str,
) -> Record {
    let hops = if uri.hop_path.is_empty() {
        "-"
    } else {
        &uri.hop_path
    };
    let duration = fetched.duration.as_millis().to_string();
    let mut fields = WarcFields::new();
    if let Some(via) = &uri.via {
        fields.push("via", &[via.as_str()]);
    }
    fields.push("hopsFromSeed", &[hops]);
    if let Some(canonical) = &uri.canonical {
        fields.push("canonical", &[canonical.as_str()]);
    }
    if let Some(api_for) = &uri.api_for {
        fields.push("apiFor", &[api_for.as_str()]);
    }
    // What the URL is, by the URL class it matched (a store from before the name was kept gives none).
    if let Some(class) = uri.class.as_deref().filter(|c| !c.name.is_empty()) {
        fields.push("urlClass", &[class.name.as_str()]);
        fields.push("urlKind", &[class.kind.as_str()]);
    }
    fields.push("fetchTimeMs", &[&duration]);
    if let Some(reason) = &resp.invalid_cert {
        fields.push("tlsCertInvalid", &[reason]);
    }
    // Interim heads (`103 Early Hints`) are kept out of the response record, which replay tools read from its
    // first head (xt46a F1: pywb served an empty 103): each here, exactly as received, in base64.
    for head in trawl_fetch::message::interim_heads(&resp.interim_bytes) {
        fields.push("interimResponse", &[&data_encoding::BASE64.encode(head)]);
    }
    for o in outlinks {
        let mut letter = [0u8; 4];
        let hop = o.hop.letter().encode_utf8(&mut letter);
        fields.push("outlink", &[o.url.as_str(), hop, o.context]);
    }
    let mut metadata = Record::metadata_fields(uri.url.as_str(), fetched.started, fields);
    metadata.set("WARC-Concurrent-To", response_id);
    metadata
}
