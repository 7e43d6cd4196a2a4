//! Content-Encoding decoding for extraction only: the archive keeps the bytes as sent.

use std::io::Read;

use flate2::read::{GzDecoder, ZlibDecoder};

/// The body with its content coding (gzip, deflate) removed, at most `limit` bytes; `None` when the coding is
/// unknown or the bytes do not decode, so the caller can skip extraction. An identity body is returned as is.
pub(crate) fn decode_content(encoding: Option<&str>, body: &[u8], limit: u64) -> Option<Vec<u8>> {
    let encoding = encoding.map(|e| e.trim().to_ascii_lowercase());
    let mut out = Vec::new();
    let read = match encoding.as_deref() {
        None | Some("" | "identity") => {
            return Some(body[..body.len().min(limit as usize)].to_vec());
        }
        Some("gzip" | "x-gzip") => GzDecoder::new(body).take(limit).read_to_end(&mut out),
        Some("deflate") => {
            // Servers send either zlib-wrapped (the standard) or raw deflate; try the standard first.
            match ZlibDecoder::new(body).take(limit).read_to_end(&mut out) {
                Ok(n) => Ok(n),
                Err(_) => {
                    out.clear();
                    flate2::read::DeflateDecoder::new(body)
                        .take(limit)
                        .read_to_end(&mut out)
                }
            }
        }
        Some(_) => return None,
    };
    // A truncated body decodes partially: keep what came out.
    match read {
        Ok(_) => Some(out),
        Err(_) if !out.is_empty() => Some(out),
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use flate2::{Compression, write::GzEncoder};

    use super::*;

    #[test]
    fn gzip_and_limits() {
        let mut enc = GzEncoder::new(Vec::new(), Compression::default());
        enc.write_all(&[b'a'; 10_000]).unwrap();
        let gz = enc.finish().unwrap();
        assert_eq!(
            decode_content(Some("gzip"), &gz, 1 << 20).unwrap().len(),
            10_000
        );
        assert_eq!(decode_content(Some("gzip"), &gz, 100).unwrap().len(), 100);
        assert_eq!(decode_content(None, b"abc", 2).unwrap(), b"ab");
        assert!(decode_content(Some("br"), b"abc", 10).is_none());
        assert!(decode_content(Some("gzip"), b"not gzip", 10).is_none());
    }
}
