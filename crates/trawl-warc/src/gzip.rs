//! One gzip member per record, from one reused deflate state.
//!
//! Building a fresh compressor per record (flate2's `GzEncoder`) costs more than compressing a typical
//! page: zlib-rs initialises its window and hash tables each time (a quarter of all instructions of a crawl,
//! measured with callgrind). This keeps one raw-deflate state per writer, resets it between members, and
//! frames each member itself (RFC 1952: header, deflate data, CRC-32, size).

use flate2::{Compress, Compression, Crc, FlushCompress, Status};

/// A reusable gzip member encoder.
pub(crate) struct GzipMembers {
    deflate: Compress,
}

impl std::fmt::Debug for GzipMembers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GzipMembers")
    }
}

/// Header of a member: magic, deflate, no flags, no mtime, no extra flags, OS unknown.
const HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];

impl GzipMembers {
    /// An encoder at `level` (1 fastest to 9 smallest).
    pub(crate) fn new(level: u32) -> GzipMembers {
        GzipMembers {
            deflate: Compress::new(Compression::new(level.clamp(1, 9)), false),
        }
    }

    /// Appends `plain` to `out` as one complete gzip member.
    pub(crate) fn member(&mut self, plain: &[u8], out: &mut Vec<u8>) {
        out.extend_from_slice(&HEADER);
        self.deflate.reset();
        // Deflate never grows data by more than a few bytes per 16 KiB block, plus a small constant.
        out.reserve(plain.len() + plain.len() / 1000 + 64);
        let start_in = self.deflate.total_in();
        loop {
            let consumed = (self.deflate.total_in() - start_in) as usize;
            if out.capacity() - out.len() < 64 {
                out.reserve(4096);
            }
            let status = self
                .deflate
                .compress_vec(&plain[consumed..], out, FlushCompress::Finish)
                .expect("deflate into a Vec cannot fail");
            if status == Status::StreamEnd {
                break;
            }
        }
        let mut crc = Crc::new();
        crc.update(plain);
        out.extend_from_slice(&crc.sum().to_le_bytes());
        out.extend_from_slice(&(plain.len() as u32).to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    #[test]
    fn members_decode_with_a_standard_reader() {
        let mut gz = GzipMembers::new(6);
        let mut out = Vec::new();
        let texts: [&[u8]; 4] = [b"", b"hello", &[b'x'; 100_000], b"WARC/1.1\r\n\r\n"];
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
        fn any_bytes_round_trip(data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..5000), level in 1u32..10) {
            let mut gz = GzipMembers::new(level);
            let mut out = Vec::new();
            gz.member(&data, &mut out);
            gz.member(&data, &mut out);
            let mut decoded = Vec::new();
            flate2::read::MultiGzDecoder::new(&out[..]).read_to_end(&mut decoded).unwrap();
            proptest::prop_assert_eq!(decoded, [data.clone(), data].concat());
        }
    }
}
