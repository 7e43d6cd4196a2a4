//! [`ZstdDictionary`]: the dictionary of a `.warc.zst` file, trained from its first records and stored at its
//! start in a zstd skippable frame (magic `0x184D2A5D`), as the IIPC warc-zstd proposal describes. Every record
//! after it is one zstd frame compressed with it, so a record still decodes from its offset alone, given the
//! dictionary.

use std::io;

/// The magic number of a warc-zstd dictionary frame (a zstd skippable frame), little-endian on disk.
pub(crate) const DICTIONARY_FRAME_MAGIC: u32 = 0x184D_2A5D;
/// The magic of a zstd frame, little-endian on disk.
const ZSTD_FRAME_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];
/// The magic of a trained (not raw-content) zstd dictionary, little-endian on disk.
const DICTIONARY_MAGIC: [u8; 4] = [0x37, 0xA4, 0x30, 0xEC];

/// The largest dictionary trained: zstd's own default (`zstd --train`, 110 KiB). Smaller ones lose ratio on
/// pages of a few KB; larger ones cost memory in every reader and writer for little.
pub const DICTIONARY_MAX_BYTES: usize = 110 << 10;
/// How much of a crawl's first records a dictionary is trained from, in bytes: about 40 times
/// [`DICTIONARY_MAX_BYTES`] (zstd suggests 100 times; 4 MiB keeps training under a second and the records
/// held back meanwhile small).
pub const SAMPLE_BYTES: usize = 4 << 20;
/// …or this many records, whichever comes first.
pub const SAMPLE_RECORDS: usize = 3000;
/// Fewer sample records than this make no useful dictionary: the file is written without one.
const MIN_SAMPLES: usize = 8;
/// The largest dictionary frame read, compressed (the frame's payload) and decompressed: 8 MiB, what the IIPC
/// warc-zstd spec has readers support ("Window and dictionary limits"), letting them refuse more. A frame
/// over it is refused before it is read or inflated, so a small file cannot make the reader hold gigabytes.
pub const DICTIONARY_LIMIT: u64 = 8 << 20;
/// The largest zstd window (log2) a compressed dictionary is decoded with: the spec's 8 MiB.
const DICTIONARY_WINDOW_LOG: u32 = 23;

/// A zstd dictionary for the records of `.warc.zst` files.
#[derive(Clone, PartialEq, Eq)]
pub struct ZstdDictionary {
    bytes: Vec<u8>,
}

impl std::fmt::Debug for ZstdDictionary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZstdDictionary")
            .field("id", &self.id())
            .field("len", &self.bytes.len())
            .finish()
    }
}

impl ZstdDictionary {
    /// Trains a dictionary of at most [`DICTIONARY_MAX_BYTES`] from `samples` (serialized records). `None`
    /// when they are too few or too small for zstd to make one: the caller writes without a dictionary.
    pub fn train<S: AsRef<[u8]>>(samples: &[S]) -> Option<ZstdDictionary> {
        if samples.len() < MIN_SAMPLES {
            return None;
        }
        let bytes = zstd::dict::from_samples(samples, DICTIONARY_MAX_BYTES).ok()?;
        ZstdDictionary::from_bytes(bytes).ok()
    }

    /// A dictionary from its bytes: a trained zstd dictionary (magic `37 A4 30 EC`) that zstd accepts, or
    /// any other bytes, which zstd takes as raw content. Errors say what is wrong with it.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<ZstdDictionary, DictionaryProblem> {
        if bytes.is_empty() {
            return Err(DictionaryProblem::Empty);
        }
        // zstd parses a trained dictionary's entropy tables here, and refuses damaged ones.
        let mut dctx = zstd::zstd_safe::DCtx::create();
        if dctx.load_dictionary(&bytes).is_err()
            || (bytes.starts_with(&DICTIONARY_MAGIC)
                && zstd::zstd_safe::DDict::try_create(&bytes).is_none())
        {
            return Err(DictionaryProblem::Unusable);
        }
        Ok(ZstdDictionary { bytes })
    }

    /// The dictionary's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The dictionary ID a trained dictionary carries (and each frame compressed with it repeats); 0 for raw
    /// content.
    pub fn id(&self) -> u32 {
        match self.bytes.get(..8) {
            Some(head) if head.starts_with(&DICTIONARY_MAGIC) => {
                u32::from_le_bytes([head[4], head[5], head[6], head[7]])
            }
            _ => 0,
        }
    }

    /// The dictionary frame that begins a file: a skippable frame holding the dictionary, itself
    /// zstd-compressed (level 19, once per file) when that is smaller. The compressed frame carries
    /// Frame_Content_Size and Content_Checksum, as the IIPC warc-zstd spec requires: a damaged dictionary is
    /// then caught as such, not blamed on every record decoded with it.
    pub fn frame(&self) -> Vec<u8> {
        let compressed = compress_checked(&self.bytes)
            .ok()
            .filter(|c| c.len() < self.bytes.len());
        let payload = compressed.as_deref().unwrap_or(&self.bytes);
        let mut frame = Vec::with_capacity(8 + payload.len());
        frame.extend_from_slice(&DICTIONARY_FRAME_MAGIC.to_le_bytes());
        let len = u32::try_from(payload.len()).expect("a dictionary is far below 4 GiB");
        frame.extend_from_slice(&len.to_le_bytes());
        frame.extend_from_slice(payload);
        frame
    }
}

/// `bytes` as one zstd frame (level 19) with its content size and checksum.
fn compress_checked(bytes: &[u8]) -> io::Result<Vec<u8>> {
    use zstd::zstd_safe::CParameter;
    let mut compressor = zstd::bulk::Compressor::new(19)?;
    compressor.set_parameter(CParameter::ChecksumFlag(true))?;
    compressor.set_parameter(CParameter::ContentSizeFlag(true))?;
    compressor.compress(bytes)
}

/// What is wrong with a dictionary frame.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DictionaryProblem {
    /// The file ends inside the frame's 8-byte header (magic and size).
    #[error("is cut short: the file ends {have} bytes into its 8-byte header")]
    HeaderCut {
        /// The bytes of the header there are.
        have: u64,
    },
    /// The frame ends before the length its header gives.
    #[error("is cut short: its header gives {want} bytes, the file has {have} more")]
    Truncated {
        /// The length the frame's header gives.
        want: u64,
        /// The bytes there are.
        have: u64,
    },
    /// The frame holds nothing.
    #[error("is empty")]
    Empty,
    /// The frame's payload is larger than the limit: refused unread.
    #[error(
        "holds {size} bytes, over the limit of {limit} bytes for a dictionary (8 MiB, what the IIPC warc-zstd \
         spec has readers support): refused unread"
    )]
    TooLarge {
        /// The payload size its header gives.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The compressed dictionary decompresses to more than the limit: refused before inflating it when its
    /// Frame_Content_Size says so, else once it inflated past the limit.
    #[error("{}", inflates_too_large(*.size, *.limit))]
    InflatesTooLarge {
        /// The decompressed size its zstd frame header gives, if it gives one.
        size: Option<u64>,
        /// The limit.
        limit: u64,
    },
    /// The frame's payload starts like a zstd frame but does not decompress.
    #[error("holds a compressed dictionary that does not decompress: {0}")]
    Compressed(String),
    /// The payload (or what it decompresses to) is not a zstd dictionary.
    #[error(
        "holds bytes starting {found}{}, where the IIPC warc-zstd spec wants a zstd dictionary (starting 37 A4 30 \
         EC) or a zstd frame holding one (starting 28 B5 2F FD)",
        if *.compressed { " once decompressed" } else { "" }
    )]
    NotADictionary {
        /// Its first bytes, in hex as the magic numbers are written.
        found: String,
        /// Whether that is what the payload decompressed to.
        compressed: bool,
    },
    /// zstd refuses the dictionary (damaged entropy tables).
    #[error("holds a zstd dictionary that zstd refuses (damaged)")]
    Unusable,
    /// A dictionary frame after records: the file is others concatenated, which the IIPC warc-zstd spec
    /// forbids for files with a dictionary (a reader decodes every record with the one at the file's start).
    #[error(
        "is not at the start of the file: files with a dictionary cannot be concatenated (IIPC warc-zstd), as \
         a record is decoded with the dictionary at the start of its file, so no reader can decode the records \
         after this frame from the file"
    )]
    NotAtStart,
    /// A dictionary frame after an extension frame at the file's start, which the spec forbids.
    #[error(
        "follows another skippable (extension) frame at the start of the file: a file with a dictionary must \
         begin with its dictionary frame (IIPC warc-zstd), where readers look for it"
    )]
    AfterExtensionFrame,
}

/// The message of [`DictionaryProblem::InflatesTooLarge`].
fn inflates_too_large(size: Option<u64>, limit: u64) -> String {
    let (size, when) = match size {
        Some(size) => (
            format!("{size} bytes (its Frame_Content_Size)"),
            "without inflating it",
        ),
        None => (
            format!("more than {limit} bytes"),
            "once inflated past the limit",
        ),
    };
    format!(
        "holds a compressed dictionary of {size}, over the limit of {limit} bytes for a dictionary (8 MiB, what \
         the IIPC warc-zstd spec has readers support): refused {when}"
    )
}

impl DictionaryProblem {
    /// What to do about it, for a dictionary frame at `offset`.
    pub(crate) fn fix(&self, offset: u64) -> String {
        match self {
            DictionaryProblem::TooLarge { .. } | DictionaryProblem::InflatesTooLarge { .. } => {
                "a dictionary is rarely over a few hundred KB (trawl's are at most 110 KiB), so the frame is \
                 likely damaged"
                    .to_owned()
            }
            DictionaryProblem::NotAtStart => format!(
                "keep the files apart: the part from this frame on (`tail -c +{} FILE`) and the part before it \
                 (`head -c {offset} FILE`) are each a file of their own; or `trawl warc recompress` each part, to \
                 .warc.gz files, which can be concatenated, or to one .warc.zst each",
                offset + 1
            ),
            DictionaryProblem::AfterExtensionFrame => format!(
                "leave out the {offset} bytes before it (`tail -c +{} FILE > OUT.warc.zst`)",
                offset + 1
            ),
            _ => "the records compressed with it cannot be read without it (take the file from a copy, or its \
                 dictionary frame from another file of the same crawl: every file of a crawl starts with the \
                 same one)"
                .to_owned(),
        }
    }
}

/// The dictionary in the payload of a dictionary frame: a zstd dictionary, as it is or in one zstd frame
/// (decompressed only up to `limit` bytes, refused before inflating when its Frame_Content_Size is over it).
pub(crate) fn parse_payload(
    payload: &[u8],
    limit: u64,
) -> Result<ZstdDictionary, DictionaryProblem> {
    if payload.is_empty() {
        return Err(DictionaryProblem::Empty);
    }
    let compressed = payload.starts_with(&ZSTD_FRAME_MAGIC);
    let bytes = if compressed {
        inflate(payload, limit)?
    } else {
        payload.to_vec()
    };
    if !bytes.starts_with(&DICTIONARY_MAGIC) {
        return Err(DictionaryProblem::NotADictionary {
            found: bytes
                .iter()
                .take(8)
                .map(|b| format!("{b:02X}"))
                .collect::<Vec<_>>()
                .join(" "),
            compressed,
        });
    }
    ZstdDictionary::from_bytes(bytes)
}

/// The content of the zstd frame `frame`, at most `limit` bytes: refused from its Frame_Content_Size when that
/// is over, else inflated with a window of at most 8 MiB and stopped one byte past the limit.
fn inflate(frame: &[u8], limit: u64) -> Result<Vec<u8>, DictionaryProblem> {
    let too_large = |size| DictionaryProblem::InflatesTooLarge { size, limit };
    let declared = zstd::zstd_safe::get_frame_content_size(frame)
        .ok()
        .flatten();
    if let Some(size) = declared
        && size > limit
    {
        return Err(too_large(Some(size)));
    }
    // One zstd frame and nothing after it, as the spec has it: bytes left over mean a damaged frame header.
    if let Ok(len) = zstd::zstd_safe::find_frame_compressed_size(frame)
        && len < frame.len()
    {
        return Err(DictionaryProblem::Compressed(format!(
            "{} bytes follow its zstd frame of {len}",
            frame.len() - len
        )));
    }
    let compressed = |e: io::Error| DictionaryProblem::Compressed(e.to_string());
    let mut decoder = zstd::stream::read::Decoder::with_buffer(frame).map_err(compressed)?;
    decoder
        .window_log_max(DICTIONARY_WINDOW_LOG)
        .map_err(compressed)?;
    let mut out = Vec::new();
    // Room once for the declared size (else the limit: address space until written) and the byte that tells
    // the frame goes on past it: grown by doubling, it took twice the limit.
    let room = declared.unwrap_or(limit).min(limit);
    let _ = out.try_reserve_exact(usize::try_from(room).unwrap_or(0).saturating_add(1));
    io::Read::read_to_end(
        &mut io::Read::take(decoder.single_frame(), limit.saturating_add(1)),
        &mut out,
    )
    .map_err(compressed)?;
    if out.len() as u64 > limit {
        return Err(too_large(None));
    }
    Ok(out)
}

/// The payload size in the 8-byte header `head` of a zstd skippable frame (magic, then a little-endian `u32`);
/// `TooLarge` when it is over `limit`.
pub(crate) fn frame_size(head: &[u8; 8], limit: u64) -> Result<u64, DictionaryProblem> {
    let size = u64::from(u32::from_le_bytes([head[4], head[5], head[6], head[7]]));
    if size > limit {
        return Err(DictionaryProblem::TooLarge { size, limit });
    }
    Ok(size)
}

/// The dictionary of a whole dictionary frame `frame` (header and payload): for tests and fuzzing of the frame
/// reader without a file.
pub fn parse_frame(frame: &[u8], limit: u64) -> Result<ZstdDictionary, DictionaryProblem> {
    let Some((head, rest)) = frame.split_first_chunk::<8>() else {
        return Err(DictionaryProblem::HeaderCut {
            have: frame.len() as u64,
        });
    };
    debug_assert_eq!(head[..4], DICTIONARY_FRAME_MAGIC.to_le_bytes());
    let want = frame_size(head, limit)?;
    if (rest.len() as u64) < want {
        return Err(DictionaryProblem::Truncated {
            want,
            have: rest.len() as u64,
        });
    }
    parse_payload(&rest[..want as usize], limit)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Records shaped like a crawl's: shared headers, varying bodies.
    pub(crate) fn samples(n: usize) -> Vec<Vec<u8>> {
        (0..n)
            .map(|i| {
                format!(
                    "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://example.com/page/{i}\r\n\
                     Content-Type: application/http; msgtype=response\r\n\r\nHTTP/1.1 200 OK\r\n\
                     Server: nginx\r\nContent-Type: text/html\r\n\r\n<html><head><title>Page {i}</title>\
                     </head><body><nav><a href=\"/\">Home</a><a href=\"/about\">About</a></nav>\
                     <p>Article number {} about {}</p></body></html>\r\n\r\n",
                    i * 7919 % 1000,
                    ["rust", "warc", "crawling", "zstd"][i % 4]
                )
                .into_bytes()
            })
            .collect()
    }

    #[test]
    fn trains_frames_and_parses_back() {
        let dict = ZstdDictionary::train(&samples(400)).expect("enough samples");
        assert_ne!(dict.id(), 0, "a trained dictionary has an id");
        let frame = dict.frame();
        assert_eq!(frame[..4], [0x5D, 0x2A, 0x4D, 0x18]);
        assert_eq!(parse_frame(&frame, 1 << 20).unwrap(), dict);
        // Uncompressed payloads are read as well.
        let mut raw = frame[..4].to_vec();
        raw.extend_from_slice(&(dict.as_bytes().len() as u32).to_le_bytes());
        raw.extend_from_slice(dict.as_bytes());
        assert_eq!(parse_frame(&raw, 1 << 20).unwrap(), dict);
        assert!(ZstdDictionary::train(&samples(3)).is_none(), "too few");
    }

    /// The compressed dictionary's frame has Frame_Content_Size and Content_Checksum (IIPC warc-zstd), so any
    /// damaged byte of it is refused, never read as another dictionary.
    #[test]
    fn compressed_dictionary_is_checksummed() {
        let dict = ZstdDictionary::train(&samples(400)).unwrap();
        let frame = dict.frame();
        let payload = &frame[8..];
        assert!(payload.starts_with(&ZSTD_FRAME_MAGIC), "compressed");
        // Frame_Header_Descriptor: bit 2 is Content_Checksum_flag.
        assert_ne!(payload[4] & 0b100, 0, "Content_Checksum present");
        assert_eq!(
            zstd::zstd_safe::get_frame_content_size(payload).ok(),
            Some(Some(dict.as_bytes().len() as u64)),
            "Frame_Content_Size present"
        );
        for at in (8..frame.len()).step_by(3) {
            let mut bad = frame.clone();
            bad[at] ^= 0x55;
            assert!(
                parse_frame(&bad, 1 << 20).is_err(),
                "a flip at {at} is caught"
            );
        }
    }

    #[test]
    fn damaged_frames_are_named_problems() {
        let dict = ZstdDictionary::train(&samples(400)).unwrap();
        let frame = dict.frame();
        let mut bad_tables = dict.as_bytes().to_vec();
        for b in &mut bad_tables[8..40] {
            *b = 0xFF;
        }
        let cases: Vec<(Vec<u8>, DictionaryProblem)> = vec![
            (
                frame[..6].to_vec(),
                DictionaryProblem::HeaderCut { have: 6 },
            ),
            (
                frame[..frame.len() - 1].to_vec(),
                DictionaryProblem::Truncated {
                    want: frame.len() as u64 - 8,
                    have: frame.len() as u64 - 9,
                },
            ),
            (
                [&frame[..4], &[0, 0, 0, 0][..]].concat(),
                DictionaryProblem::Empty,
            ),
            (
                [
                    &frame[..4],
                    &5u32.to_le_bytes()[..],
                    &[0x28, 0xB5, 0x2F, 0xFD, 0][..],
                ]
                .concat(),
                DictionaryProblem::Compressed(String::new()),
            ),
            (
                [
                    &frame[..4],
                    &(bad_tables.len() as u32).to_le_bytes()[..],
                    &bad_tables[..],
                ]
                .concat(),
                DictionaryProblem::Unusable,
            ),
        ];
        for (input, want) in cases {
            let got = parse_frame(&input, 1 << 20).unwrap_err();
            match (&got, &want) {
                (DictionaryProblem::Compressed(_), DictionaryProblem::Compressed(_)) => {}
                _ => assert_eq!(got, want),
            }
        }
        assert_eq!(
            parse_frame(&frame, 100).unwrap_err(),
            DictionaryProblem::TooLarge {
                size: frame.len() as u64 - 8,
                limit: 100
            }
        );
    }

    /// One zstd frame of `n` zero bytes, with or without Frame_Content_Size: a dictionary bomb when `n` is large.
    pub(crate) fn zeros_frame(n: u64, content_size: bool) -> Vec<u8> {
        let mut encoder = zstd::stream::write::Encoder::new(Vec::new(), 1).unwrap();
        encoder.include_contentsize(content_size).unwrap();
        if content_size {
            encoder.set_pledged_src_size(Some(n)).unwrap();
        }
        io::copy(&mut io::Read::take(io::repeat(0), n), &mut encoder).unwrap();
        encoder.finish().unwrap()
    }

    /// A dictionary frame with `payload`.
    pub(crate) fn frame_of(payload: &[u8]) -> Vec<u8> {
        let size = (payload.len() as u32).to_le_bytes();
        [
            &DICTIONARY_FRAME_MAGIC.to_le_bytes()[..],
            &size[..],
            payload,
        ]
        .concat()
    }

    /// A dictionary over 8 MiB is refused: by its frame's size unread, by its Frame_Content_Size before
    /// inflating, and without one after inflating no more than the limit.
    #[test]
    fn dictionary_over_the_limit_is_refused_early() {
        let limit = DICTIONARY_LIMIT;
        let bomb = zeros_frame(64 << 20, true);
        assert!(bomb.len() < 64 << 10, "{}", bomb.len());
        assert_eq!(
            parse_frame(&frame_of(&bomb), limit).unwrap_err(),
            DictionaryProblem::InflatesTooLarge {
                size: Some(64 << 20),
                limit
            }
        );
        let unsized_bomb = zeros_frame(limit + 1, false);
        assert_eq!(
            parse_frame(&frame_of(&unsized_bomb), limit).unwrap_err(),
            DictionaryProblem::InflatesTooLarge { size: None, limit }
        );
        let mut head = [0u8; 8];
        head[..4].copy_from_slice(&DICTIONARY_FRAME_MAGIC.to_le_bytes());
        head[4..].copy_from_slice(&(9u32 << 20).to_le_bytes());
        assert_eq!(
            frame_size(&head, limit).unwrap_err(),
            DictionaryProblem::TooLarge {
                size: 9 << 20,
                limit
            }
        );
        let message = DictionaryProblem::InflatesTooLarge {
            size: Some(64 << 20),
            limit,
        }
        .to_string();
        assert!(
            message.contains(
                "67108864 bytes (its Frame_Content_Size), over the limit of 8388608 bytes"
            ),
            "{message}"
        );
        let message = DictionaryProblem::InflatesTooLarge { size: None, limit }.to_string();
        assert!(
            message.contains("of more than 8388608 bytes, over the limit of 8388608 bytes")
                && message.ends_with("refused once inflated past the limit"),
            "{message}"
        );
        // Exactly at the limit is read (zeros are no dictionary, which is the next thing said).
        assert!(matches!(
            parse_frame(&frame_of(&zeros_frame(limit, false)), limit).unwrap_err(),
            DictionaryProblem::NotADictionary {
                compressed: true,
                ..
            }
        ));
    }

    /// The payload must be a zstd dictionary (magic `37 A4 30 EC`), as it is or compressed: raw content is
    /// refused, so a damaged zstd magic is not taken for a dictionary.
    #[test]
    fn raw_content_is_not_a_dictionary() {
        let raw = frame_of(&[b'x'; 100]);
        assert!(matches!(
            parse_frame(&raw, 1 << 20).unwrap_err(),
            DictionaryProblem::NotADictionary {
                compressed: false,
                ..
            }
        ));
        let dict = ZstdDictionary::train(&samples(400)).unwrap();
        let mut frame = dict.frame();
        frame[8] ^= 1;
        assert!(parse_frame(&frame, 1 << 20).is_err());
    }

    proptest! {
        #[test]
        fn random_frames_never_panic(payload in proptest::collection::vec(any::<u8>(), 0..300), zstd_head in any::<bool>(), dict_head in any::<bool>(), claimed in proptest::option::of(0u32..400)) {
            let mut body = Vec::new();
            if zstd_head { body.extend_from_slice(&ZSTD_FRAME_MAGIC); }
            if dict_head { body.extend_from_slice(&DICTIONARY_MAGIC); }
            body.extend_from_slice(&payload);
            let len = claimed.unwrap_or(body.len() as u32);
            let frame = [&DICTIONARY_FRAME_MAGIC.to_le_bytes()[..], &len.to_le_bytes()[..], &body[..]].concat();
            let _ = parse_frame(&frame, 1 << 16).map(|d| d.frame());
        }

        #[test]
        fn damaged_trained_dictionaries_never_panic(at in 0usize..2000, byte in any::<u8>(), cut in proptest::option::of(0usize..2000)) {
            let dict = ZstdDictionary::train(&samples(200)).unwrap();
            let mut bytes = dict.as_bytes().to_vec();
            let at = at % bytes.len();
            bytes[at] = byte;
            if let Some(cut) = cut { bytes.truncate(cut); }
            if let Ok(d) = ZstdDictionary::from_bytes(bytes) {
                // Usable: it compresses and decompresses.
                let plain = samples(1).remove(0);
                let mut c = zstd::bulk::Compressor::with_dictionary(3, d.as_bytes()).unwrap();
                let z = c.compress(&plain).unwrap();
                let mut dc = zstd::bulk::Decompressor::with_dictionary(d.as_bytes()).unwrap();
                prop_assert_eq!(dc.decompress(&z, plain.len()).unwrap(), plain);
            }
        }
    }
}
