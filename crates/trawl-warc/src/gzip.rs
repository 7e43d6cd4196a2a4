//! One gzip member per record, from one reused compressor.
//!
//! libdeflate compresses a whole buffer in one call, which is what a WARC record is here (the writer holds a
//! record's bytes before it compresses them). Profiles of a crawl showed zlib's streaming deflate (zlib-rs)
//! at about 30% of all CPU: a hash-table reset per member, then the match search. On WARC records libdeflate
//! is 1.3-1.6x as fast at level 3 and its output 2% smaller (`benches/warc_write.rs`). Its `gzip_compress`
//! frames the member itself (RFC 1952: header, deflate data, CRC-32, size).

use libdeflater::{CompressionLvl, Compressor};

/// A reusable gzip member encoder.
pub(crate) struct GzipMembers {
    compressor: Compressor,
    /// Level 0: stored blocks only, for payloads already compressed (made on first use).
    stored: Option<Compressor>,
    /// Room for one member, kept between records: libdeflate writes into initialised bytes, and zeroing the
    /// compress bound of every record (more than its plain size) cost more than copying the member out.
    scratch: Vec<u8>,
}

impl std::fmt::Debug for GzipMembers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GzipMembers")
    }
}

impl GzipMembers {
    /// An encoder at `level` (1 fastest to 12 smallest, libdeflate's range; others are clamped).
    pub(crate) fn new(level: u32) -> GzipMembers {
        let level = CompressionLvl::new(level.clamp(1, 12) as i32)
            .expect("a level clamped to 1..=12 is one libdeflate takes");
        GzipMembers {
            compressor: Compressor::new(level),
            stored: None,
            scratch: Vec::new(),
        }
    }

    /// Appends `plain` to `out` as one complete gzip member.
    pub(crate) fn member(&mut self, plain: &[u8], out: &mut Vec<u8>) {
        append(&mut self.compressor, &mut self.scratch, plain, out);
    }

    /// Appends `plain` to `out` as one gzip member of stored (uncompressed) deflate blocks: for bytes
    /// deflate would not shrink, at the cost of a copy and a CRC.
    pub(crate) fn stored_member(&mut self, plain: &[u8], out: &mut Vec<u8>) {
        let stored = self.stored.get_or_insert_with(|| {
            Compressor::new(CompressionLvl::new(0).expect("libdeflate takes 0"))
        });
        append(stored, &mut self.scratch, plain, out);
    }
}

/// Members up to this bound go through the kept scratch buffer; a larger one is compressed in place in `out`,
/// so that one large record does not leave its room held for the rest of the crawl.
const SCRATCH_MAX: usize = 1 << 20;

/// Appends `plain` gzipped by `compressor` to `out`: through `scratch` (grown to the bound when short) when
/// the member is small, else in place.
fn append(compressor: &mut Compressor, scratch: &mut Vec<u8>, plain: &[u8], out: &mut Vec<u8>) {
    let bound = compressor.gzip_compress_bound(plain.len());
    if bound > SCRATCH_MAX {
        let start = out.len();
        out.resize(start + bound, 0);
        let written = gzip(compressor, plain, &mut out[start..]);
        out.truncate(start + written);
    } else {
        scratch.resize(scratch.len().max(bound), 0);
        let written = gzip(compressor, plain, scratch);
        out.extend_from_slice(&scratch[..written]);
    }
}

/// Writes `plain` gzipped into `room` (at least the compress bound long); returns the member's length.
fn gzip(compressor: &mut Compressor, plain: &[u8], room: &mut [u8]) -> usize {
    compressor
        .gzip_compress(plain, room)
        .expect("libdeflate's own bound always has room")
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    #[test]
    fn members_decode_with_a_standard_reader() {
        let mut gz = GzipMembers::new(6);
        let mut out = Vec::new();
        let big: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
        let texts: [&[u8]; 5] = [b"", b"hello", &[b'x'; 100_000], &big, b"WARC/1.1\r\n\r\n"];
        for t in texts {
            gz.member(t, &mut out);
        }
        let mut decoded = Vec::new();
        flate2::read::MultiGzDecoder::new(&out[..])
            .read_to_end(&mut decoded)
            .unwrap();
        assert_eq!(decoded, texts.concat());
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_round_trip(data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..5000), level in 1u32..13) {
            let mut gz = GzipMembers::new(level);
            let mut out = Vec::new();
            gz.member(&data, &mut out);
            gz.stored_member(&data, &mut out);
            let mut decoded = Vec::new();
            flate2::read::MultiGzDecoder::new(&out[..]).read_to_end(&mut decoded).unwrap();
            proptest::prop_assert_eq!(decoded, [data.clone(), data].concat());
        }
    }
}
