//! Captures answering a request other than GET (a login form's POST, a page's API call), indexed apart from
//! the GETs of their URL as pywb keys them: `__wb_method=post` added to the URL the key is made of,
//! `"method"` among the fields, and for what a browser's page posted, its body as a query too
//! (`"requestBody"`; see `request_body` for which bodies). Without this, a replay of the login page could
//! answer with the POST's redirect or "wrong password" page.

use std::collections::HashMap;

use super::{Capture, cdx_key};
use crate::record;

/// What a request other than GET adds to its answer's key: its method, upper-cased, and the query of its
/// body when it has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Asked {
    method: String,
    body: Option<String>,
}

/// What the HTTP request a `request` record holds adds to its answer's key, when it is not a GET.
pub(crate) fn non_get(header: &[(String, String)], block: &[u8]) -> Option<Asked> {
    let method = non_get_method(header, block)?;
    Some(Asked {
        body: super::request_body::query(block),
        method,
    })
}

/// The method of the HTTP request a `request` record holds, upper-cased, when it is not GET.
fn non_get_method(header: &[(String, String)], block: &[u8]) -> Option<String> {
    if record::get(header, "WARC-Type") != Some("request") {
        return None;
    }
    let end = block.iter().position(|&b| b == b' ')?;
    let method = &block[..end];
    if method.is_empty() || method.len() > 16 || !method.iter().all(u8::is_ascii_alphabetic) {
        return None;
    }
    let method = String::from_utf8_lossy(method).to_ascii_uppercase();
    (method != "GET").then_some(method)
}

impl Capture {
    /// Marks this capture as the answer to a request other than GET.
    pub(crate) fn answers(&mut self, asked: &Asked) {
        let sep = if self.url.contains('?') { '&' } else { '?' };
        let mut url = format!("{}{sep}__wb_method={}", self.url, asked.method);
        if let Some(body) = asked.body.as_deref().filter(|b| !b.is_empty()) {
            url.push('&');
            url.push_str(body);
        }
        self.key = cdx_key(&url);
        self.method = Some(asked.method.clone());
        self.request_body = asked.body.clone();
    }
}

/// Pairs each capture with its request record, taken in file order: trawl, Heritrix and warcio write the
/// request after its response (with metadata between, at times), wget before it; either record may name the
/// other in `WARC-Concurrent-To`. A capture is given out once the next capture (or the end) comes, with its
/// `T` (where it is, what else its reader keeps of it).
pub(crate) struct Pairing<T> {
    /// The last capture, with its record's id and the id it is concurrent to.
    waiting: Option<(Capture, T, String, Option<String>)>,
    /// Requests read before their capture, by both record ids they may be found by.
    early: HashMap<String, Asked>,
}

impl<T> Pairing<T> {
    pub(crate) fn new() -> Pairing<T> {
        Pairing {
            waiting: None,
            early: HashMap::new(),
        }
    }

    /// Takes the next record (its WARC header and block) and its capture, if it is indexed; puts the
    /// captures now complete in `out`.
    pub(crate) fn next(
        &mut self,
        header: &[(String, String)],
        block: &[u8],
        capture: Option<(Capture, T)>,
        out: &mut Vec<(Capture, T)>,
    ) {
        let get = |name: &str| record::get(header, name).map(str::to_owned);
        if let Some(asked) = non_get(header, block) {
            let id = get("WARC-Record-ID");
            let to = get("WARC-Concurrent-To");
            match &mut self.waiting {
                Some((c, _, wid, wto))
                    if to.as_ref() == Some(wid)
                        || (wto.is_some() && wto.as_ref() == id.as_ref()) =>
                {
                    c.answers(&asked);
                }
                _ => {
                    for key in [id, to].into_iter().flatten() {
                        self.early.insert(key, asked.clone());
                    }
                }
            }
        }
        let Some((mut capture, item)) = capture else {
            return;
        };
        let id = get("WARC-Record-ID").unwrap_or_default();
        let to = get("WARC-Concurrent-To");
        let asked = self
            .early
            .remove(&id)
            .or_else(|| to.as_ref().and_then(|t| self.early.remove(t)));
        if let Some(asked) = asked {
            capture.answers(&asked);
        }
        if let Some((c, t, _, _)) = self.waiting.replace((capture, item, id, to)) {
            out.push((c, t));
        }
    }

    /// Whether a capture is held, waiting for its request.
    pub(crate) fn is_waiting(&self) -> bool {
        self.waiting.is_some()
    }

    /// Puts the last capture in `out`.
    pub(crate) fn finish(self, out: &mut Vec<(Capture, T)>) {
        if let Some((c, t, _, _)) = self.waiting {
            out.push((c, t));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    /// A record's WARC header and block.
    type Rec = (Vec<(String, String)>, Vec<u8>);

    fn response(id: &str, to: Option<&str>) -> Rec {
        let mut h = vec![
            ("WARC-Type", "response"),
            ("WARC-Record-ID", id),
            ("WARC-Target-URI", "http://a.example/login?next=/"),
            ("WARC-Date", "2026-11-30T00:00:00Z"),
        ];
        if let Some(to) = to {
            h.push(("WARC-Concurrent-To", to));
        }
        (
            fields(&h),
            b"HTTP/1.1 302 Found\r\nLocation: /\r\n\r\n".to_vec(),
        )
    }

    fn request(id: &str, to: Option<&str>, line: &str) -> Rec {
        let mut h = vec![("WARC-Type", "request"), ("WARC-Record-ID", id)];
        if let Some(to) = to {
            h.push(("WARC-Concurrent-To", to));
        }
        (
            fields(&h),
            // A login form's post, as a crawler sends it (no `Sec-Fetch-Mode`): keyed by its method alone.
            format!(
                "{line}\r\nHost: a.example\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\n"
            )
            .into_bytes(),
        )
    }

    /// The keys the records give, in the order the captures come out.
    fn keys(records: &[Rec]) -> Vec<(String, Option<String>)> {
        let mut pairing = Pairing::new();
        let mut out = Vec::new();
        for (h, b) in records {
            let c = Capture::of(h, b).map(|c| (c, ()));
            pairing.next(h, b, c, &mut out);
        }
        pairing.finish(&mut out);
        out.into_iter().map(|(c, _)| (c.key, c.method)).collect()
    }

    #[test]
    fn a_post_answer_is_keyed_apart_whichever_record_comes_first() {
        let get = ("example,a)/login?next=/".to_string(), None);
        let post = (
            "example,a)/login?__wb_method=post&next=/".to_string(),
            Some("POST".to_string()),
        );
        // trawl's order: response, request (naming it), metadata; then a GET of the same URL.
        let records = [
            response("<r1>", None),
            request("<q1>", Some("<r1>"), "POST /login?next=/ HTTP/1.1"),
            response("<r2>", None),
            request("<q2>", Some("<r2>"), "GET /login?next=/ HTTP/1.1"),
        ];
        assert_eq!(keys(&records), [post.clone(), get.clone()]);
        // wget's order: the request first, the response naming it.
        let records = [
            request("<q1>", None, "post /login?next=/ HTTP/1.1"),
            response("<r1>", Some("<q1>")),
            request("<q2>", None, "GET /login?next=/ HTTP/1.1"),
            response("<r2>", Some("<q2>")),
        ];
        assert_eq!(keys(&records), [post.clone(), get.clone()]);
        // A request concurrent to another record than the waiting capture marks nothing.
        let records = [
            response("<r1>", None),
            request("<q1>", Some("<elsewhere>"), "POST /login HTTP/1.1"),
        ];
        assert_eq!(keys(&records), [get]);
    }

    #[test]
    fn only_request_records_with_a_method_count() {
        let h = fields(&[("WARC-Type", "request")]);
        assert_eq!(
            non_get_method(&h, b"PUT /x HTTP/1.1\r\n"),
            Some("PUT".into())
        );
        assert_eq!(non_get_method(&h, b"GET /x HTTP/1.1\r\n"), None);
        assert_eq!(non_get_method(&h, b"\x00\xff /x"), None);
        assert_eq!(non_get_method(&h, b"POST"), None);
        let m = fields(&[("WARC-Type", "metadata")]);
        assert_eq!(non_get_method(&m, b"POST /x HTTP/1.1\r\n"), None);
    }
}
