//! The fetch record: what one fetch of a [`CrawlUri`](trawl_config::CrawlUri) brought, and what the stages after it
//! made of it. It travels beside the URI from the fetch stage to the post stage.

use std::borrow::Cow;

use trawl_config::CrawlConfig;

use trawl_extract::{
    Outlink,
    decode::{DecodeLimits, undo},
    field,
};

use trawl_fetch::{Fetched, Response};

/// One fetch and its results.
#[derive(Debug)]
pub(crate) struct FetchRecord {
    /// When, where, and the response or why there was none.
    pub(crate) fetched: Fetched,
    /// The response's `Content-Type`, whole: the last value that parses as a MIME type, as browsers take it.
    pub(crate) content_type: Option<String>,
    /// Its media type: lowercase, without parameters.
    pub(crate) mime: Option<String>,
    /// The body with its content codings removed, for extraction and the text filters.
    decoded: Decoded,
    /// Whether the decoding's limits cut it.
    decode_cut: bool,
    /// Whether a content coding could not be undone (unknown, or bytes it does not read): the body is read
    /// as it came, as Heritrix and browsers do with an unknown coding.
    undecodable: bool,
    /// Whether a content coding's stream broke off before its end (a gzip body cut short): the body is read
    /// as far as it came out, and what followed is lost.
    damaged: bool,
    /// The links found (a redirect's target first).
    pub(crate) outlinks: Vec<Outlink>,
    /// Whether the response goes into the archive (a gate or text filter may say no).
    pub(crate) write: bool,
    /// Whether the page's `<meta name="robots">` says `nofollow` and the crawl obeys robots: its links are
    /// not followed, nor those its rendering finds.
    pub(crate) nofollow: bool,
    /// The payload digest (`sha1:BASE32` of the entity body), once known.
    pub(crate) payload_digest: Option<String>,
    /// Whether the payload was already archived (a revisit record was written).
    pub(crate) duplicate: bool,
    /// The WARC-Record-ID of the response (or revisit) record written, once written.
    pub(crate) response_id: Option<String>,
    /// Whether the server answered the conditional request `304 Not Modified` (a revisit was written).
    pub(crate) not_modified: bool,
    /// The earlier capture whose validators the request carried (`conditional_recrawl`).
    pub(crate) previous: Option<crate::write::dedup::PreviousCapture>,
}

/// The decoded body: the response's own bytes (up to a length) when it had no content coding or one that could
/// not be undone, a decoded copy when it had, or nothing before it is decoded.
#[derive(Debug)]
enum Decoded {
    Prefix(usize),
    Owned(Vec<u8>),
    Undecodable,
}

impl FetchRecord {
    /// Whether its media type is HTML's (`text/html`, `application/xhtml+xml`).
    pub(crate) fn is_html(&self) -> bool {
        matches!(
            self.mime.as_deref(),
            Some("text/html" | "application/xhtml+xml")
        )
    }

    /// The record of `fetched`, with the response's type read from its headers.
    pub(crate) fn new(fetched: Fetched) -> FetchRecord {
        let content_type = fetched
            .result
            .as_ref()
            .ok()
            .and_then(|r| content_type_of(&r.headers));
        let mime = content_type
            .as_deref()
            .and_then(|ct| ct.split(';').next())
            .map(|m| m.trim().to_ascii_lowercase())
            .filter(|m| !m.is_empty());
        FetchRecord {
            fetched,
            content_type,
            mime,
            decoded: Decoded::Undecodable,
            decode_cut: false,
            undecodable: false,
            damaged: false,
            outlinks: Vec::new(),
            write: true,
            nofollow: false,
            payload_digest: None,
            duplicate: false,
            response_id: None,
            not_modified: false,
            previous: None,
        }
    }

    /// The response, if one arrived.
    pub(crate) fn response(&self) -> Option<&Response> {
        self.fetched.result.as_ref().ok()
    }

    /// A single-valued response header (`Retry-After`): its first field line, read lossily.
    pub(crate) fn header(&self, name: &str) -> Option<String> {
        self.response()
            .and_then(|r| values(r, name).next())
            .map(|v| String::from_utf8_lossy(v).into_owned())
    }

    /// The first `Location` field line, as raw bytes (a server may send UTF-8 or latin-1 in it): resolve it
    /// with [`trawl_url::resolve_bytes`].
    pub(crate) fn location(&self) -> Option<&[u8]> {
        self.response().and_then(|r| values(r, "location").next())
    }

    /// The HTTP status, if a response arrived.
    pub(crate) fn status(&self) -> Option<u16> {
        self.response().map(|r| r.status)
    }

    /// Whether the server said "not now": 5xx or 429, retried like a connection failure.
    pub(crate) fn try_later(&self) -> bool {
        self.status().is_some_and(says_try_later)
    }

    /// Removes the body's content codings within `limits` (once; later calls see the result).
    pub(crate) fn decode(&mut self, limits: DecodeLimits) {
        let Some(resp) = self.fetched.result.as_ref().ok() else {
            return;
        };
        // Repeated `Content-Encoding` lines are one list (RFC 9110 §5.3), undone last to first.
        let encoding = codings(resp);
        // A small compressed body may inflate to megabytes, and seconds of inflating on an async thread
        // would stall every fetch that thread carries: what inflates past what is worked on in place is
        // decoded again, whole, where blocking is fine (the first try costs at most that much work).
        let in_place = crate::blocking::IN_PLACE_MAX as u64 + 1;
        let decoded = match &encoding {
            Some(coding) if resp.body.len() as u64 >= in_place => {
                crate::blocking::blocking(usize::MAX, || undo(Some(coding), &resp.body, limits))
            }
            Some(coding) => {
                let first = DecodeLimits {
                    max_bytes: limits.max_bytes.min(in_place),
                    ..limits
                };
                match undo(Some(coding), &resp.body, first) {
                    Some(u) if u.cut && limits.max_bytes > in_place => {
                        crate::blocking::blocking(usize::MAX, || {
                            undo(Some(coding), &resp.body, limits)
                        })
                    }
                    other => other,
                }
            }
            None => undo(None, &resp.body, limits),
        };
        // A coding that cannot be undone: the bytes as they came (xt46a F2: a page sent with an unknown
        // coding, or plain HTML labelled gzip, gave no link and no word of why).
        self.undecodable = encoding.is_some() && decoded.is_none();
        let decoded = decoded.or_else(|| undo(None, &resp.body, limits));
        self.damaged = decoded.as_ref().is_some_and(|u| u.damaged);
        self.decode_cut = decoded.as_ref().is_some_and(|u| u.cut);
        self.decoded = match decoded.map(|u| u.data) {
            Some(Cow::Borrowed(prefix)) => Decoded::Prefix(prefix.len()),
            Some(Cow::Owned(bytes)) => Decoded::Owned(bytes),
            None => Decoded::Undecodable,
        };
    }

    /// Whether [`FetchRecord::decode`] cut the body at its limits (see
    /// [`trawl_extract::decode::undo`]).
    pub(crate) fn decode_cut(&self) -> bool {
        self.decode_cut
    }

    /// Whether [`FetchRecord::decode`] could not undo a content coding, and took the body as it came, or
    /// undid one only as far as its stream came whole.
    pub(crate) fn decode_failed(&self) -> bool {
        self.undecodable || self.damaged
    }

    /// Whether a content coding's stream broke off before its end: the body holds what came out before it.
    pub(crate) fn damaged(&self) -> bool {
        self.damaged
    }

    /// The decoded body (after [`FetchRecord::decode`]); `None` before it.
    pub(crate) fn entity(&self) -> Option<&[u8]> {
        match &self.decoded {
            Decoded::Prefix(len) => self.response().map(|r| &r.body[..*len]),
            Decoded::Owned(bytes) => Some(bytes),
            Decoded::Undecodable => None,
        }
    }

    /// Bytes on the wire: request and response.
    pub(crate) fn wire_bytes(&self) -> u64 {
        self.response().map_or(0, |r| {
            (r.request_bytes.len() + r.interim_bytes.len() + r.response_bytes.len()) as u64
        })
    }
}

/// Every field line of `name`, in the order received, as raw bytes.
fn values<'a>(resp: &'a Response, name: &str) -> impl Iterator<Item = &'a [u8]> {
    resp.headers.get_all(name).iter().map(|v| v.as_bytes())
}

/// The `Content-Type` of a response head, read as [`FetchRecord::new`] reads it.
pub(crate) fn content_type_of(headers: &http::HeaderMap) -> Option<String> {
    field::content_type(headers.get_all("content-type").iter().map(|v| v.as_bytes()))
}

/// The codings on a response's body, in the order applied: its content codings, then the transfer codings
/// other than `chunked` (`Transfer-Encoding: gzip, chunked`, rare): hyper removes only `chunked`, so the
/// others are undone here with the content codings, for extraction.
fn codings(resp: &Response) -> Option<String> {
    let transfer = field::list(values(resp, "transfer-encoding")).map(|te| {
        te.split(',')
            .map(str::trim)
            .filter(|c| !c.eq_ignore_ascii_case("chunked"))
            .collect::<Vec<_>>()
            .join(", ")
    });
    let all: Vec<String> = [field::list(values(resp, "content-encoding")), transfer]
        .into_iter()
        .flatten()
        .filter(|c| !c.is_empty())
        .collect();
    (!all.is_empty()).then(|| all.join(", "))
}

/// Whether `status` says "not now": a 5xx or 429. A status past 599 (some sites answer crawlers they block
/// `999`) is no server error and is not retried.
fn says_try_later(status: u16) -> bool {
    (500..=599).contains(&status) || status == 429
}

/// How far content codings are undone, from a URI's settings.
pub(crate) fn decode_limits(settings: &CrawlConfig) -> DecodeLimits {
    DecodeLimits {
        max_bytes: settings.fetch.max_decoded_bytes,
        max_ratio: settings.fetch.max_decode_ratio,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A fetch answered 200 with `text` gzipped (`Content-Encoding: gzip`), as the record of it.
    pub(crate) fn gzipped(text: &[u8]) -> FetchRecord {
        use std::io::Write as _;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(text).unwrap();
        let mut headers = http::HeaderMap::new();
        headers.insert("content-encoding", "gzip".parse().unwrap());
        FetchRecord::new(trawl_fetch::Fetched {
            started: chrono::Utc::now(),
            duration: std::time::Duration::ZERO,
            ip: None,
            result: Ok(trawl_fetch::Response {
                status: 200,
                headers,
                request_bytes: bytes::Bytes::new(),
                response_bytes: bytes::Bytes::new(),
                interim_bytes: bytes::Bytes::new(),
                body: gz.finish().unwrap(),
                truncated: None,
                invalid_cert: None,
                protocol: trawl_fetch::Protocol {
                    http: "HTTP/1.1",
                    tls: None,
                },
                withheld: false,
                stopped_after_head: None,
            }),
        })
    }

    /// A body that inflates past what is decoded in place is decoded again, whole, off the async threads:
    /// the entity is all of it, up to the limits, on a runtime and off one.
    #[test]
    fn a_body_inflating_past_the_in_place_size_is_decoded_whole() {
        let text = b"<p>padding padding</p>\n".repeat(40_000);
        let limits = DecodeLimits {
            max_bytes: 100 << 20,
            max_ratio: 1000,
        };
        let mut record = gzipped(&text);
        record.decode(limits);
        assert_eq!(record.entity(), Some(&text[..]));
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        let mut record = gzipped(&text);
        let record = rt.block_on(async move {
            tokio::spawn(async move {
                record.decode(limits);
                record
            })
            .await
            .unwrap()
        });
        assert_eq!(record.entity(), Some(&text[..]));
        // The limits still hold.
        let mut record = gzipped(&text);
        record.decode(DecodeLimits {
            max_bytes: 300_000,
            max_ratio: 1000,
        });
        assert_eq!(record.entity(), Some(&text[..300_000]));
        let mut record = gzipped(b"short");
        record.decode(limits);
        assert_eq!(record.entity(), Some(&b"short"[..]));
    }

    fn response(headers: &[(&str, &str)]) -> Response {
        let mut map = http::HeaderMap::new();
        for (name, value) in headers {
            map.append(
                http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                http::HeaderValue::from_str(value).unwrap(),
            );
        }
        Response {
            status: 200,
            headers: map,
            request_bytes: bytes::Bytes::new(),
            response_bytes: bytes::Bytes::new(),
            interim_bytes: bytes::Bytes::new(),
            body: Vec::new(),
            truncated: None,
            invalid_cert: None,
            protocol: trawl_fetch::Protocol {
                http: "http/1.1",
                tls: None,
            },
            withheld: false,
            stopped_after_head: None,
        }
    }

    /// `Transfer-Encoding: gzip, chunked`: hyper removes the chunking only; the gzip is undone with the
    /// content codings (after them: it was applied last), so the page's links are read.
    #[test]
    fn transfer_codings_besides_chunked_are_undone() {
        let resp = response(&[
            ("content-encoding", "br"),
            ("transfer-encoding", "gzip, chunked"),
        ]);
        assert_eq!(codings(&resp).as_deref(), Some("br, gzip"));
        assert_eq!(
            codings(&response(&[("transfer-encoding", "chunked")])),
            None
        );
        assert_eq!(
            codings(&response(&[("content-encoding", "gzip")])).as_deref(),
            Some("gzip")
        );
        let page = b"<html><a href=/leaf/te>x</a></html>";
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, page).unwrap();
        let mut resp = response(&[("transfer-encoding", "gzip, chunked")]);
        resp.body = gz.finish().unwrap();
        let mut record = FetchRecord::new(Fetched {
            started: chrono::Utc::now(),
            duration: std::time::Duration::ZERO,
            ip: None,
            result: Ok(resp),
        });
        record.decode(DecodeLimits {
            max_bytes: 1 << 20,
            max_ratio: 100,
        });
        assert_eq!(record.entity(), Some(&page[..]));
    }

    #[test]
    fn only_5xx_and_429_are_retried() {
        for status in [500, 503, 599, 429] {
            assert!(says_try_later(status), "{status}");
        }
        for status in [200, 404, 428, 499, 600, 999] {
            assert!(!says_try_later(status), "{status}");
        }
    }
}
