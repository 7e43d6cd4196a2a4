//! Records whose payload deflate cannot shrink: already compressed by the server (a Content-Encoding) or by
//! its format (JPEG, PNG, video, zip, WOFF2 ...). Their gzip members are written with stored blocks: the
//! archive stays gzip, as every reader expects, and the writer skips a match search that saves nothing
//! (libdeflate level 1 spends about as long on a JPEG as on HTML of its size, for under 1% of its bytes).

use crate::record::get;

/// Below this a record is compressed whatever it holds: its WARC and HTTP heads are most of it.
const MIN_BYTES: usize = 2048;

/// Whether the record of `header` and `block` is a response or resource whose payload is already compressed.
pub(crate) fn already_compressed(header: &[(String, String)], block: &[u8]) -> bool {
    if block.len() < MIN_BYTES {
        return false;
    }
    match (get(header, "WARC-Type"), get(header, "Content-Type")) {
        (Some("response"), Some(ct)) if ct.starts_with("application/http") => {
            http_payload_compressed(block)
        }
        (Some("resource"), Some(ct)) => compressed_media_type(ct),
        _ => false,
    }
}

/// Whether the HTTP response at the start of `http` has a Content-Encoding or a compressed Content-Type. A
/// head with more fields than this looks at is taken as not compressed.
fn http_payload_compressed(http: &[u8]) -> bool {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut response = httparse::Response::new(&mut headers);
    if response.parse(http).is_err() {
        return false;
    }
    response.headers.iter().any(|h| {
        let value = String::from_utf8_lossy(h.value);
        let value = value.trim();
        if h.name.eq_ignore_ascii_case("content-encoding") {
            !value.is_empty() && !value.eq_ignore_ascii_case("identity")
        } else {
            h.name.eq_ignore_ascii_case("content-type") && compressed_media_type(value)
        }
    })
}

/// Whether a Content-Type names a format that is compressed by design.
fn compressed_media_type(content_type: &str) -> bool {
    let media = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let Some((kind, sub)) = media.split_once('/') else {
        return false;
    };
    match kind {
        "video" => true,
        // WAV and AIFF are PCM samples, which deflate does shrink.
        "audio" => !matches!(
            sub,
            "wav" | "x-wav" | "wave" | "vnd.wave" | "aiff" | "x-aiff"
        ),
        "image" => matches!(
            sub,
            "jpeg" | "pjpeg" | "png" | "gif" | "webp" | "avif" | "heic" | "heif" | "jxl" | "jp2"
        ),
        "font" => matches!(sub, "woff" | "woff2"),
        "application" => {
            matches!(
                sub,
                "zip"
                    | "gzip"
                    | "x-gzip"
                    | "zstd"
                    | "x-xz"
                    | "x-bzip2"
                    | "x-7z-compressed"
                    | "vnd.rar"
                    | "x-rar-compressed"
                    | "java-archive"
                    | "epub+zip"
                    | "font-woff"
                    | "font-woff2"
                    | "x-font-woff"
            ) || sub.starts_with("vnd.openxmlformats-officedocument.")
                || sub.starts_with("vnd.oasis.opendocument.")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;

    use super::*;
    use crate::record::Record;

    fn is_compressed(record: &Record) -> bool {
        already_compressed(record.header(), record.block())
    }

    fn response(head: &str, body_len: usize) -> Record {
        let mut http = head.replace('\n', "\r\n").into_bytes();
        http.extend_from_slice(b"\r\n");
        http.extend(std::iter::repeat_n(b'x', body_len));
        Record::response("http://a/", Utc::now(), None, http)
    }

    #[test]
    fn compressed_payloads_are_recognised() {
        let cases = [
            ("HTTP/1.1 200 OK\nContent-Type: image/jpeg\n", true),
            ("HTTP/1.1 200 OK\nContent-Type: IMAGE/PNG; x=1\n", true),
            ("HTTP/1.1 200 OK\nContent-Type: video/mp4\n", true),
            ("HTTP/1.1 200 OK\nContent-Type: application/zip\n", true),
            (
                "HTTP/1.1 200 OK\nContent-Type: application/vnd.openxmlformats-officedocument.wordprocessingml.document\n",
                true,
            ),
            ("HTTP/1.1 200 OK\nContent-Type: font/woff2\n", true),
            (
                "HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Encoding: gzip\n",
                true,
            ),
            (
                "HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Encoding: identity\n",
                false,
            ),
            ("HTTP/1.1 200 OK\nContent-Type: text/html\n", false),
            ("HTTP/1.1 200 OK\nContent-Type: image/svg+xml\n", false),
            ("HTTP/1.1 200 OK\nContent-Type: audio/wav\n", false),
            ("HTTP/1.1 200 OK\nContent-Type: audio/mpeg\n", true),
            ("HTTP/1.1 200 OK\nContent-Type: nonsense\n", false),
            ("HTTP/1.1 200 OK\n", false),
        ];
        for (head, want) in cases {
            assert_eq!(is_compressed(&response(head, 4000)), want, "{head}");
        }
    }

    #[test]
    fn small_records_and_other_types_are_compressed() {
        let small = response("HTTP/1.1 200 OK\nContent-Type: image/jpeg\n", 100);
        assert!(!is_compressed(&small));
        let resource = Record::resource("urn:x", Utc::now(), "image/png", vec![0; 4000]);
        assert!(is_compressed(&resource));
        let text = Record::resource("urn:x", Utc::now(), "text/plain", vec![0; 4000]);
        assert!(!is_compressed(&text));
        let request = Record::request(
            "http://a/",
            Utc::now(),
            None,
            [
                &b"GET / HTTP/1.1\r\nContent-Type: image/png\r\n\r\n"[..],
                &[0; 4000],
            ]
            .concat(),
        );
        assert!(!is_compressed(&request));
    }
}
