//! A WARC record its gzip member (or zstd frame) frames, whole, though its Content-Length disagrees (xt30a F3):
//! the member ends after the record's block and CRLF CRLF, so where the block ends is known without the length.
//! warcio and cdxj-indexer keep such a record (cut to its length when that is too short), and trawl reads it as
//! its member frames it (an ARC record the same way: the reader's `frame_by_member`); `verify` fails it,
//! `convert` and `recompress` write it with its length mended.

use crate::Compression;
use crate::digest::digest_matches;
use crate::record;

/// How a WARC record alone in its gzip member (or zstd frame) ends there, where the member does not end with
/// the record's CRLF CRLF alone. The reader reads the record whole either way; `verify` fails it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MemberEnd {
    /// The CRLF CRLF ending the record, then the member's end (or the next record); any plain record.
    #[default]
    Whole,
    /// The member lacks the last N bytes of the CRLF CRLF, the block whole as its WARC-Block-Digest says
    /// (xt32b F4: some writers end a member so, and warcio keeps the record). [`Framed`] names it.
    Short(u8),
    /// The member holds N bytes of CR and LF after the CRLF CRLF, the length standing (an extra CRLF its writer
    /// put there: xt33a F3; between plain records, the reader's `blank_lines`).
    Blank(usize),
}

/// What a record read as its member frames it holds: what its Content-Length says, and the block the member
/// holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Framed {
    /// The Content-Length as written.
    pub says: u64,
    /// The block's length as the member frames it.
    pub has: usize,
    /// What holds the record: a gzip member or a zstd frame.
    pub within: Compression,
    /// Whether the record's WARC-Block-Digest says the block is whole. Without it, a length too long may be
    /// the record's writer cutting the block short (`convert` and `recompress` then mark it `WARC-Truncated`).
    pub sure: bool,
    /// How many bytes of the CRLF CRLF after the block the member lacks: its writer cut the record's ending,
    /// the block whole as its digest says (xt32b F4; its length may be right).
    pub trailer_lacks: u8,
}

impl Framed {
    /// Whether the block may be cut short: its length says more, and no digest says it is whole.
    pub fn maybe_cut(&self) -> bool {
        !self.sure && self.says > self.has as u64
    }
}

impl std::fmt::Display for Framed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let member = self.within.container();
        if self.trailer_lacks > 0 && self.says == self.has as u64 {
            return write!(
                f,
                "its {member} holds the block of {} bytes its Content-Length says, whole (its WARC-Block-Digest \
                 matches), and {} of the 4 bytes of the CRLF CRLF ending the record: read as the {member} \
                 frames it",
                self.has,
                4 - self.trailer_lacks
            );
        }
        let what = if self.maybe_cut() {
            "the length is wrong, or the block cut short by its writer (no WARC-Block-Digest tells which)"
        } else if self.sure {
            "the length is wrong, the record whole (its WARC-Block-Digest matches)"
        } else {
            "the length is wrong"
        };
        write!(
            f,
            "Content-Length says {} bytes, its {member} holds a block of {} and the CRLF CRLF ending the record: \
             {what}; read as the {member} frames it",
            self.says, self.has
        )
    }
}

/// The length of the block that `content` (all a member holds after a WARC record's header, `fields`) is, when
/// it is one record's block and the CRLF CRLF ending it: it ends in CRLF CRLF, and the block matches the
/// record's WARC-Block-Digest, or (with no digest to check, unless `need_digest`) holds no later record's
/// start (a length too short in a file compressed as one stream, whose member holds every record). `None`
/// when it is not.
pub(crate) fn frames(
    fields: &[(String, String)],
    content: &[u8],
    need_digest: bool,
) -> Option<usize> {
    let block = content.strip_suffix(b"\r\n\r\n")?;
    let whole = match block_digest(fields, block) {
        Some(matches) => matches,
        None => {
            !need_digest
                && !block.starts_with(b"WARC/")
                && memchr::memmem::find(block, b"\r\n\r\nWARC/").is_none()
        }
    };
    whole.then_some(block.len())
}

/// Whether `block` matches the WARC-Block-Digest of `fields`; `None` without one of a known algorithm.
pub(crate) fn block_digest(fields: &[(String, String)], block: &[u8]) -> Option<bool> {
    record::get(fields, "WARC-Block-Digest").and_then(|d| digest_matches(d, block))
}

/// `raw` (a WARC record's header as written) with its (first) Content-Length line saying `length`: its name,
/// and its line's end, as written; continuation lines of the old value left out. The field the reader reads.
pub(crate) fn with_length(raw: &[u8], length: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len() + 8);
    let (mut in_length, mut done) = (false, false);
    for line in raw.split_inclusive(|&b| b == b'\n') {
        let continuation = matches!(line.first(), Some(b' ' | b'\t'));
        if in_length && continuation {
            continue;
        }
        in_length = false;
        let name = line.split(|&b| b == b':').next().unwrap_or_default();
        if !done
            && !continuation
            && line.contains(&b':')
            && name.trim_ascii().eq_ignore_ascii_case(b"Content-Length")
        {
            let eol: &[u8] = if line.ends_with(b"\r\n") {
                b"\r\n"
            } else {
                b"\n"
            };
            out.extend_from_slice(name);
            out.extend_from_slice(format!(": {length}").as_bytes());
            out.extend_from_slice(eol);
            (in_length, done) = (true, true);
            continue;
        }
        out.extend_from_slice(line);
    }
    out
}

/// `raw` (a WARC record's header as written, ending in its empty line) with a `name: value` line before that
/// empty line, its line ends as the header's.
pub(crate) fn with_field(raw: &[u8], name: &str, value: &str) -> Vec<u8> {
    let eol: &[u8] = if raw.ends_with(b"\r\n\r\n") {
        b"\r\n"
    } else {
        b"\n"
    };
    let head = raw.strip_suffix(eol).unwrap_or(raw);
    [head, format!("{name}: {value}").as_bytes(), eol, eol].concat()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(digest: Option<&str>) -> Vec<(String, String)> {
        digest
            .map(|d| ("WARC-Block-Digest".to_owned(), d.to_owned()))
            .into_iter()
            .collect()
    }

    #[test]
    fn a_block_and_its_end_is_framed_unless_its_digest_or_a_later_record_says_otherwise() {
        let block = b"HTTP/1.1 200 OK\r\n\r\nhello";
        let content = [&block[..], b"\r\n\r\n"].concat();
        let right = crate::sha1_digest(block);
        assert_eq!(frames(&fields(None), &content, false), Some(block.len()));
        assert_eq!(frames(&fields(None), &content, true), None);
        assert_eq!(
            frames(&fields(Some(&right)), &content, true),
            Some(block.len())
        );
        let wrong = crate::sha1_digest(b"other");
        assert_eq!(frames(&fields(Some(&wrong)), &content, false), None);
        // No CRLF CRLF at the member's end: not a record's end.
        assert_eq!(frames(&fields(None), block, false), None);
        // A later record inside, and no digest to say the block is whole: a member of several records.
        let two = [
            &content[..],
            b"WARC/1.1\r\nContent-Length: 0\r\n\r\n\r\n\r\n",
        ]
        .concat();
        assert_eq!(frames(&fields(None), &two, false), None);
        let old = [
            &content[..],
            b"WARC/0.18\r\nContent-Length: 0\r\n\r\n\r\n\r\n",
        ]
        .concat();
        assert_eq!(frames(&fields(None), &old, false), None);
        // With a digest that matches, a WARC captured in the block is the block's.
        let captured = &two[..two.len() - 4];
        let digest = crate::sha1_digest(captured);
        assert_eq!(
            frames(&fields(Some(&digest)), &two, false),
            Some(captured.len())
        );
    }

    #[test]
    fn the_length_line_is_rewritten_as_written() {
        let raw = b"WARC/1.1\r\nWARC-Type: response\r\ncontent-length :  10599\r\nX: y\r\n\r\n";
        assert_eq!(
            with_length(raw, 10592),
            b"WARC/1.1\r\nWARC-Type: response\r\ncontent-length : 10592\r\nX: y\r\n\r\n"
        );
        let folded = b"WARC/1.1\nContent-Length: 1\n 2\nX: y\n\n";
        assert_eq!(
            with_length(folded, 7),
            b"WARC/1.1\nContent-Length: 7\nX: y\n\n"
        );
        // The first of two, which the reader reads.
        let twice = b"WARC/1.1\r\nContent-Length: 9\r\nContent-Length: 8\r\n\r\n";
        assert_eq!(
            with_length(twice, 7),
            b"WARC/1.1\r\nContent-Length: 7\r\nContent-Length: 8\r\n\r\n"
        );
        assert_eq!(
            with_field(b"WARC/1.1\r\nA: b\r\n\r\n", "WARC-Truncated", "unspecified"),
            b"WARC/1.1\r\nA: b\r\nWARC-Truncated: unspecified\r\n\r\n"
        );
    }
}
