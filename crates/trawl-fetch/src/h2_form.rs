//! An HTTP/2 exchange written down in HTTP/1.1 form, as Heritrix and wget-at archive one: the request line
//! and a `Host` field from `:method`, `:path` and `:authority`, the header fields as they were sent or received
//! (HTTP/2 names are lower case), and the entity body as its DATA frames carried it (content coding kept). The
//! records say `WARC-Protocol: h2`; nothing else in them was on the wire in this form (docs/access.md).

use bytes::Bytes;
use http_body_util::Full;
use url::Url;

/// The request, with `body` (a form's), as an HTTP/1.1 message.
pub(super) fn request(
    request: &http::Request<Full<Bytes>>,
    url: &Url,
    body: Option<&[u8]>,
) -> Vec<u8> {
    let mut target = url.path().to_string();
    if let Some(q) = url.query() {
        target.push('?');
        target.push_str(q);
    }
    let mut out = format!("{} {target} HTTP/1.1\r\n", request.method()).into_bytes();
    let host = match url.port() {
        Some(p) => format!("{}:{p}", url.host_str().unwrap_or_default()),
        None => url.host_str().unwrap_or_default().to_string(),
    };
    out.extend_from_slice(format!("host: {host}\r\n").as_bytes());
    fields(&mut out, request.headers());
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body.unwrap_or_default());
    out
}

/// The response head and `body`, as an HTTP/1.1 message.
pub(super) fn response(parts: &http::response::Parts, body: &[u8]) -> Vec<u8> {
    let status = parts.status;
    let mut out = format!(
        "HTTP/1.1 {} {}\r\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or("")
    )
    .into_bytes();
    fields(&mut out, &parts.headers);
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body);
    out
}

fn fields(out: &mut Vec<u8>, headers: &http::HeaderMap) {
    for (name, value) in headers {
        out.extend_from_slice(name.as_str().as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_as_http_1_1() {
        let url = Url::parse("https://a.org:8443/x?y=1").unwrap();
        let req = http::Request::post(url.as_str())
            .header("user-agent", "t/1")
            .body(Full::new(Bytes::from_static(b"a=b")))
            .unwrap();
        assert_eq!(
            request(&req, &url, Some(b"a=b")),
            b"POST /x?y=1 HTTP/1.1\r\nhost: a.org:8443\r\nuser-agent: t/1\r\n\r\na=b"
        );
        let (parts, ()) = http::Response::builder()
            .status(404)
            .header("content-type", "text/plain")
            .body(())
            .unwrap()
            .into_parts();
        assert_eq!(
            response(&parts, b"no"),
            b"HTTP/1.1 404 Not Found\r\ncontent-type: text/plain\r\n\r\nno"
        );
    }
}
