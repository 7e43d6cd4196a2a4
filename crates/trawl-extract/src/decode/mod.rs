//! Content-Encoding decoding for extraction only: the archive keeps the bytes as sent.
//!
//! Every decoder is bounded twice, by an absolute output cap and by a ratio to the encoded size, so a
//! compression bomb (gzip, deflate, brotli, zstd, or several nested) costs at most that much memory. A zstd
//! frame is also refused when the window it declares (memory a decoder must hold) is over 8 MiB.

mod zstd_window;

use std::borrow::Cow;
use std::io::Read;
use std::panic::{AssertUnwindSafe, catch_unwind};

use flate2::bufread::GzDecoder;
use flate2::read::{DeflateDecoder, ZlibDecoder};

/// Bounds on decoding.
#[derive(Debug, Clone, Copy)]
pub struct DecodeLimits {
    /// Most bytes any step may produce.
    pub max_bytes: u64,
    /// Most bytes any step may produce per encoded byte.
    pub max_ratio: u64,
}

/// The body with its content codings removed (in reverse order of the header's list), bounded by `limits`;
/// `None` when a coding is unknown or the bytes do not decode, so the caller can skip extraction.
/// An identity body is returned as is (borrowed, not copied), cut at `limits.max_bytes`.
pub fn decode_content<'a>(
    encoding: Option<&str>,
    body: &'a [u8],
    limits: DecodeLimits,
) -> Option<Cow<'a, [u8]>> {
    undo(encoding, body, limits).map(|u| u.data)
}

/// A body with its content codings undone, and how far that went.
#[derive(Debug)]
pub struct Undone<'a> {
    /// What came out.
    pub data: Cow<'a, [u8]>,
    /// Whether `limits` cut it: an identity body longer than `max_bytes`, or a step that had more to give
    /// than its cap.
    pub cut: bool,
    /// Whether a step's input broke off before its end (a gzip stream cut short): `data` is what came out
    /// before the break, and what followed it is lost.
    pub damaged: bool,
}

/// [`decode_content`], and whether `limits` cut what came out, and whether a coding's input broke off before
/// its end.
pub fn undo<'a>(
    encoding: Option<&str>,
    body: &'a [u8],
    limits: DecodeLimits,
) -> Option<Undone<'a>> {
    let codings: Vec<String> = encoding
        .unwrap_or("")
        .split(',')
        .map(|c| c.trim().to_ascii_lowercase())
        .filter(|c| !c.is_empty() && c != "identity")
        .collect();
    if codings.len() > 4 {
        return None;
    }
    // A plain body is cut at the limit; an encoded one is decoded whole (it is in memory already, within
    // `fetch.max_bytes`) and each step's output capped: a zstd block cut short decodes to nothing, where
    // its first bytes hold links (xt14a F11).
    let mut damaged = false;
    let (mut data, mut cut) = if codings.is_empty() {
        let kept = body.len().min(limits.max_bytes as usize);
        (Cow::Borrowed(&body[..kept]), kept < body.len())
    } else {
        (Cow::Borrowed(body), false)
    };
    for coding in codings.iter().rev() {
        let cap = limits
            .max_bytes
            .min(limits.max_ratio.saturating_mul(data.len() as u64).max(1024));
        // One byte past the cap tells a step cut there from one that ended there.
        let (mut out, broke) = guarded(|| decode_one(coding, &data, cap.saturating_add(1)))?;
        damaged |= broke;
        if out.len() as u64 > cap {
            out.truncate(cap as usize);
            cut = true;
        }
        data = Cow::Owned(out);
    }
    Some(Undone { data, cut, damaged })
}

/// Runs a decoder, a panic inside it (a decoder's bug, a failed allocation) counting as undecodable, so a
/// crawl worker survives any body.
fn guarded<T>(decode: impl FnOnce() -> Option<T>) -> Option<T> {
    catch_unwind(AssertUnwindSafe(decode)).ok().flatten()
}

/// Every member of a multi-member gzip stream (as `cat a.gz b.gz` makes), not only the first, to `cap`, and
/// whether a member broke off before its end. Bytes after a member that start no other (junk a server
/// appended) end the stream whole.
fn gunzip(mut input: &[u8], cap: u64) -> Option<(Vec<u8>, bool)> {
    let mut out = Vec::new();
    if input.is_empty() {
        return Some((out, false));
    }
    // Bytes that do not start as gzip are no gzip stream, however short.
    if !input.starts_with(&[0x1f, 0x8b]) {
        return None;
    }
    loop {
        let mut member = GzDecoder::new(input);
        let room = cap.saturating_sub(out.len() as u64);
        if let Err(e) = (&mut member).take(room).read_to_end(&mut out) {
            // Cut short, even before any output (review 85 R5: a stream cut in its first bytes read as no
            // gzip at all, its bytes taken as the text); not gzip at all, `None`.
            let cut_short = e.kind() == std::io::ErrorKind::UnexpectedEof;
            return (cut_short || !out.is_empty()).then_some((out, true));
        }
        input = member.into_inner();
        if out.len() as u64 >= cap || !input.starts_with(&[0x1f, 0x8b]) {
            return Some((out, false));
        }
    }
}

/// One coding undone, its output cut at `cap`, and whether its input broke off before its end. A zstd frame
/// declaring a window over 8 MiB is refused, whatever `cap`: ordinary encoders use windows of 1-8 MiB even for
/// small bodies (the reference tool's default is 2 MiB), and the window, not `cap`, is what a zstd decoder
/// holds.
fn decode_one(coding: &str, input: &[u8], cap: u64) -> Option<(Vec<u8>, bool)> {
    let mut out = Vec::new();
    let read = match coding {
        "gzip" | "x-gzip" => return gunzip(input, cap),
        "deflate" => {
            // Servers send either zlib-wrapped (the standard) or raw deflate; try the standard first.
            match ZlibDecoder::new(input).take(cap).read_to_end(&mut out) {
                Ok(n) => Ok(n),
                // A zlib stream cut short: no raw deflate either.
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof && !out.is_empty() => {
                    Err(e)
                }
                Err(_) => {
                    out.clear();
                    DeflateDecoder::new(input).take(cap).read_to_end(&mut out)
                }
            }
        }
        "br" => brotli_decompressor::Decompressor::new(input, 16 << 10)
            .take(cap)
            .read_to_end(&mut out),
        // ruzstd holds a whole window before handing out a byte: `take(cap)` alone would not bound memory.
        "zstd" if zstd_window::window_size(input).is_none_or(|w| w > zstd_window::MAX_WINDOW) => {
            return None;
        }
        "zstd" => match ruzstd::decoding::StreamingDecoder::new(input) {
            Ok(d) => d.take(cap).read_to_end(&mut out),
            Err(_) => return None,
        },
        _ => return None,
    };
    // A truncated body decodes partially: what came out is kept, and said to be damaged (what came after it
    // is lost); a stream cut before its first output is damaged too. One that is not this coding at all: `None`.
    match read {
        Ok(_) => Some((out, false)),
        Err(e) if !out.is_empty() || e.kind() == std::io::ErrorKind::UnexpectedEof => {
            Some((out, true))
        }
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use flate2::{Compression, write::GzEncoder};

    use super::*;

    const ROOMY: DecodeLimits = DecodeLimits {
        max_bytes: 1 << 20,
        max_ratio: 100,
    };

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut enc = GzEncoder::new(Vec::new(), Compression::default());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    /// A stream cut short is told from one followed by junk (xt46a F10: a robots.txt's gzip cut before its
    /// `Disallow` line was read as the whole file).
    #[test]
    fn a_stream_cut_short_is_damaged_and_junk_after_one_is_not() {
        let text = b"User-agent: *\nDisallow: /secret\n".repeat(50);
        let whole = gzip(&text);
        let cut = &whole[..whole.len() / 2];
        let undone = undo(Some("gzip"), cut, ROOMY).unwrap();
        assert!(undone.damaged && !undone.data.is_empty() && undone.data.len() < text.len());
        // Cut in its first bytes, before any output: damaged, not read as text (review 85 R5).
        for cut in [4, 10, 12] {
            let undone = undo(Some("gzip"), &whole[..cut], ROOMY).unwrap();
            assert!(undone.damaged && undone.data.len() < 2, "{cut}: {undone:?}");
        }
        assert!(
            undo(Some("gzip"), b"User-agent: *", ROOMY).is_none(),
            "not gzip"
        );
        let mut junk = whole.clone();
        junk.extend_from_slice(b"\r\n<junk>");
        let undone = undo(Some("gzip"), &junk, ROOMY).unwrap();
        assert!(!undone.damaged);
        assert_eq!(&undone.data[..], &text[..]);
    }

    /// A cut is told from a body that ends at the cap (review 62: `decodeTrunc` on a whole body of exactly
    /// `max_decoded_bytes`, and none on an encoded body cut before decoding).
    #[test]
    fn cuts_are_noted_and_exact_fits_are_not() {
        // A ratio that lets 4 KiB of one repeated byte through (its gzip is about 30 bytes).
        let limits = DecodeLimits {
            max_bytes: 4096,
            max_ratio: 1000,
        };
        let cut = |coding, body: &[u8]| undo(coding, body, limits).unwrap().cut;
        assert!(!cut(None, &[b'a'; 4096]));
        assert!(cut(None, &[b'a'; 4097]));
        assert!(!cut(Some("gzip"), &gzip(&[b'a'; 4096])));
        assert!(cut(Some("gzip"), &gzip(&[b'a'; 4097])));
        // A stored (incompressible) gzip body longer than the cap: its output is cut at the cap.
        let stored = {
            let mut enc = GzEncoder::new(Vec::new(), Compression::none());
            enc.write_all(&[b'a'; 8000]).unwrap();
            enc.finish().unwrap()
        };
        assert!(cut(Some("gzip"), &stored));
        // Exactly 1024 bytes from a tiny body (the ratio's floor) is whole; past the ratio's cap is cut.
        let strict = DecodeLimits {
            max_ratio: 1,
            ..limits
        };
        let noted = |body: &[u8]| undo(Some("gzip"), &gzip(body), strict).unwrap().cut;
        assert!(!noted(&[b'a'; 1024]));
        assert!(noted(&[b'a'; 1025]));
    }

    /// A zstd body longer on the wire than `max_bytes` gives its first `max_bytes`, noted as cut: it was cut
    /// before decoding, and a zstd block cut short decodes to nothing (xt14a F11: no links, no note).
    #[test]
    fn a_zstd_body_longer_than_the_limit_gives_its_start() {
        let page: Vec<u8> = (0..20_000u32)
            .map(|i| b"<a href=/x>abcdefghijklmnopqrstuvwxyz0123456789"[(i * 7919 % 47) as usize])
            .collect();
        let zst = ruzstd::encoding::compress_to_vec(
            &page[..],
            ruzstd::encoding::CompressionLevel::Fastest,
        );
        let limits = DecodeLimits {
            max_bytes: (zst.len() - 100) as u64,
            max_ratio: 100,
        };
        let undone = undo(Some("zstd"), &zst, limits).unwrap();
        assert!(undone.cut);
        assert_eq!(*undone.data, page[..limits.max_bytes as usize]);
    }

    #[test]
    fn gzip_and_limits() {
        let gz = gzip(&[b'a'; 10_000]);
        // 10,000 bytes from about 46: within an absolute cap but over a 100:1 ratio.
        assert_eq!(
            decode_content(Some("gzip"), &gz, ROOMY).unwrap().len() as u64,
            100 * gz.len() as u64
        );
        let generous = DecodeLimits {
            max_bytes: 1 << 20,
            max_ratio: 1000,
        };
        assert_eq!(
            decode_content(Some("gzip"), &gz, generous).unwrap().len(),
            10_000
        );
        let tight = DecodeLimits {
            max_bytes: 100,
            max_ratio: 100,
        };
        assert_eq!(decode_content(Some("gzip"), &gz, tight).unwrap().len(), 100);
        assert_eq!(*decode_content(None, b"abc", tight).unwrap(), *b"abc");
        assert!(
            matches!(decode_content(None, b"abc", tight), Some(Cow::Borrowed(_))),
            "an identity body is not copied"
        );
        assert!(decode_content(Some("compress"), b"abc", ROOMY).is_none());
        assert!(decode_content(Some("gzip"), b"not gzip", ROOMY).is_none());
    }

    #[test]
    fn bombs_are_bounded_by_ratio() {
        // 10 MB of zeros gzips to about 10 KB: a 1000:1 bomb; the ratio cap stops it near 100:1.
        let bomb = gzip(&vec![0u8; 10 << 20]);
        let out = decode_content(
            Some("gzip"),
            &bomb,
            DecodeLimits {
                max_bytes: 64 << 20,
                max_ratio: 100,
            },
        )
        .unwrap();
        assert_eq!(out.len() as u64, 100 * bomb.len() as u64);
        // Nested: each layer is bounded the same way.
        let nested = gzip(&bomb);
        let out = decode_content(
            Some("gzip, gzip"),
            &nested,
            DecodeLimits {
                max_bytes: 1 << 20,
                max_ratio: 100,
            },
        );
        assert!(out.is_none_or(|o| o.len() <= 1 << 20));
        assert!(decode_content(Some("gzip,gzip,gzip,gzip,gzip"), &nested, ROOMY).is_none());
    }

    #[test]
    fn brotli_and_zstd_decode() {
        // "hello" compressed by brotli (quality 11) and zstd (level 3), from their reference tools.
        let br: &[u8] = &[0x0b, 0x02, 0x80, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x03];
        assert_eq!(*decode_content(Some("br"), br, ROOMY).unwrap(), *b"hello");
        let zst: &[u8] = &[
            0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58, 0x29, 0x00, 0x00, 0x68, 0x65, 0x6c, 0x6c, 0x6f,
            0x8b, 0x2d, 0x5a, 0x2f,
        ];
        assert_eq!(
            *decode_content(Some("zstd"), zst, ROOMY).unwrap(),
            *b"hello"
        );
    }

    /// A zstd frame of a few bytes declaring a 16 GiB window, then run-length blocks: refused before ruzstd
    /// allocates the window (the old code decoded it into gigabytes of memory).
    #[test]
    fn zstd_window_bomb_is_refused() {
        let mut frame = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 24 << 3];
        let block_header = |last: u32| (last | (1 << 1) | ((128 * 1024) << 3)).to_le_bytes();
        for i in 0..200u32 {
            frame.extend(&block_header(u32::from(i == 199))[..3]);
            frame.push(b' ');
        }
        let limits = DecodeLimits {
            max_bytes: 64 << 20,
            max_ratio: 100,
        };
        assert!(decode_content(Some("zstd"), &frame, limits).is_none());
        // The same blocks in an 8 MiB window decode, cut at the ratio cap.
        frame[5] = 13 << 3;
        let out = decode_content(Some("zstd"), &frame, limits).unwrap();
        assert_eq!(out.len(), 100 * frame.len());
        // Just over 8 MiB (exponent 13, mantissa 1): refused.
        frame[5] = (13 << 3) | 1;
        assert!(decode_content(Some("zstd"), &frame, limits).is_none());
    }

    #[test]
    fn a_panicking_decoder_is_undecodable() {
        assert_eq!(guarded::<Vec<u8>>(|| panic!("decoder bug")), None);
        assert_eq!(guarded(|| Some(vec![1])), Some(vec![1]));
    }

    proptest::proptest! {
        #[test]
        fn never_panics(body in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300),
                        coding in "(gzip|deflate|br|zstd|identity)(, ?(gzip|br))?") {
            let _ = decode_content(Some(&coding), &body, DecodeLimits { max_bytes: 4096, max_ratio: 10 });
        }
    }
}
