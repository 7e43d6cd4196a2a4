//! A WARC record alone in its gzip member (or zstd frame) that the member ends otherwise than its writer should
//! have: its Content-Length disagrees with the block the member holds (xt30a F3: the member ends after the
//! record's block and CRLF CRLF, so where the block ends is known without the length), the member lacks part of
//! that CRLF CRLF (xt32b F4), or holds CR and LF after it (xt33a F3). warcio and cdxj-indexer keep such a
//! record (cut to its length when that is too short), and trawl reads it as the member frames it (an ARC
//! record the same way: the reader's `frame_by_member`); `verify` fails it, `convert` and `recompress` write it
//! as WARC 1.1 has it (its length mended, its CRLF CRLF whole, without the extra lines).

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
    /// The member holds N bytes of CR and LF after the CRLF CRLF (an extra CRLF its writer put there: xt33a F3;
    /// between plain records, the reader's `blank_lines`); the length standing, or wrong too ([`Framed`]).
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
    /// How the member ends the record besides: its CRLF CRLF cut (xt32b F4, the block whole as its digest says;
    /// its length may be right), or CR and LF after it (its length wrong too: xt34a F1).
    pub end: MemberEnd,
    /// Whether the file ends inside the member before its checksum (xt38b N11): only where the record's
    /// WARC-Block-Digest matches, as the reader keeps no other ([`crate::ReadRecord::unsealed`]).
    pub unsealed: bool,
}

impl Framed {
    /// Whether only the record's ending (or its member's close) is cut: its length is right.
    pub fn ending_only(&self) -> bool {
        (matches!(self.end, MemberEnd::Short(_)) || self.unsealed) && self.says == self.has as u64
    }

    /// What `convert` and `recompress` write of the record, and `index` says they write.
    pub fn mended(&self) -> String {
        let length = format!("with Content-Length: {}", self.has);
        match (self.ending_only(), self.end) {
            (true, MemberEnd::Short(_)) => "with its CRLF CRLF whole".to_owned(),
            (true, _) => "whole, in a whole member".to_owned(),
            (false, _) if self.maybe_cut() => format!(
                "{length}, marked WARC-Truncated: unspecified (it said {})",
                self.says
            ),
            (false, MemberEnd::Short(_)) => format!("{length} and its CRLF CRLF whole"),
            (false, MemberEnd::Blank(_)) => format!("{length}, without the CR and LF after it"),
            (false, MemberEnd::Whole) => length,
        }
    }

    /// Whether the block may be cut short: its length says more, and no digest says it is whole.
    pub fn maybe_cut(&self) -> bool {
        !self.sure && self.says > self.has as u64
    }
}

impl std::fmt::Display for Framed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let member = self.within.container();
        let ending = match self.end {
            MemberEnd::Short(4) => "none of the CRLF CRLF".to_owned(),
            MemberEnd::Short(n) => format!("only {} of the 4 bytes of the CRLF CRLF", 4 - n),
            MemberEnd::Blank(n) => format!("the CRLF CRLF and {} of CR and LF after it", bytes(n)),
            MemberEnd::Whole => "the CRLF CRLF".to_owned(),
        };
        if self.unsealed {
            write!(
                f,
                "the file ends inside the record's {member}, before the checksum that closes it (cut short \
                 there); "
            )?;
        }
        if self.ending_only() {
            let holder = match self.within {
                Compression::None => "the file".to_owned(),
                _ => format!("its {member}"),
            };
            return write!(
                f,
                "{holder} holds the block of {} bytes its Content-Length says, whole (its WARC-Block-Digest \
                 matches), and {ending} ending the record: read as its Content-Length says",
                self.has
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
            "Content-Length says {} bytes, its {member} holds a block of {} and {ending} ending the record: \
             {what}; read as the {member} frames it",
            self.says, self.has
        )
    }
}

/// A record alone in its member, read whole as its length says, whose WARC-Block-Digest matches instead a block
/// its member may frame otherwise (a length off by the CR and LF about its ending: xt34a F2): found by
/// `verify` and `recompress`, which compute the digest ([`crate::ReadRecord::digest_frames`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DigestFrames {
    /// The Content-Length as written (the block as read).
    pub says: usize,
    /// The length of the block the digest matches.
    pub has: usize,
    /// How the member ends that block.
    pub end: MemberEnd,
    /// What holds the record: a gzip member or a zstd frame.
    pub within: Compression,
    /// Whether the record's WARC-Payload-Digest matches that block's payload and not the one as read: then
    /// the length is wrong. Without it the bytes say as well a digest of other bytes than the block (review 80
    /// H1), and the record is kept as read.
    pub corroborated: bool,
}

impl std::fmt::Display for DigestFrames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let why = match self.corroborated {
            true => "its WARC-Payload-Digest agrees: the length is wrong",
            false => {
                "the length is off by as much, or the digest is of other bytes than the block (no \
                 WARC-Payload-Digest tells which)"
            }
        };
        write!(
            f,
            "its WARC-Block-Digest matches the block of {} bytes its {} may frame, not the {} its Content-Length \
             says: {why}",
            self.has,
            self.within.container(),
            self.says
        )
    }
}

/// `n` bytes, said.
fn bytes(n: usize) -> String {
    match n {
        1 => "1 byte".to_owned(),
        n => format!("{n} bytes"),
    }
}

/// What a [`MemberEnd::Blank`] record's member holds after it, `n` bytes of CR and LF in a `within`, said
/// as `verify` fails it: with no digest (`sure` false) they may be the rest of a block whose length is short by
/// as much (review 79 M3).
pub(crate) fn blank_in_member(within: Compression, n: usize, sure: bool) -> String {
    let bytes = bytes(n);
    let or = match sure {
        true => "its WARC-Block-Digest matches the block as long as its Content-Length says",
        false => {
            "an extra line its writer put there, or the end of a block whose Content-Length is short by as \
                  much: no WARC-Block-Digest tells which"
        }
    };
    format!(
        "its {} holds CR and LF after the CRLF CRLF ending the record ({bytes}; {or})",
        within.container()
    )
}

/// The most bytes of CR and LF after a record's CRLF CRLF in its member that [`frames`] looks through for where
/// the block its digest names ends.
const MAX_BLANK_AFTER: usize = 8;

/// The length of the block that `content` (all a member holds after a WARC record's header, `fields`) is, when
/// it is one record's block and its ending, and how the member ends it: `content` ends in CRLF CRLF, and the
/// block matches the record's WARC-Block-Digest, or (with no digest to check, unless `need_digest`) holds no
/// later record's start (a length too short in a file compressed as one stream, whose member holds every
/// record). With a digest that matches no such block, the block may end before a CRLF CRLF the member cuts, or
/// CR and LF after it (its length wrong too: xt34a F1): the digest says which. `None` when it is none.
pub(crate) fn frames(
    fields: &[(String, String)],
    content: &[u8],
    need_digest: bool,
) -> Option<(usize, MemberEnd)> {
    if let Some(block) = content.strip_suffix(b"\r\n\r\n") {
        match block_digest(fields, block) {
            Some(true) => return Some((block.len(), MemberEnd::Whole)),
            Some(false) => {}
            None => {
                let whole = !need_digest
                    && !block.starts_with(b"WARC/")
                    && memchr::memmem::find(block, b"\r\n\r\nWARC/").is_none();
                return whole.then_some((block.len(), MemberEnd::Whole));
            }
        }
    }
    // Where the block may end: before any of the CR and LF bytes the member ends with, followed by part of the
    // CRLF CRLF, or all of it and a few more CR and LF (an extra line or two). Each is one digest of the block,
    // a dozen at most: only a record whose digest matches no other reading comes here.
    let run = content
        .iter()
        .rev()
        .take(MAX_BLANK_AFTER + 4)
        .take_while(|&&b| matches!(b, b'\r' | b'\n'))
        .count();
    (0..=run).find_map(|after| {
        let (block, ending) = content.split_at(content.len() - after);
        let end = match after {
            4 => return None,
            0..4 if b"\r\n\r\n".starts_with(ending) => MemberEnd::Short((4 - after) as u8),
            5.. if ending.starts_with(b"\r\n\r\n") => MemberEnd::Blank(after - 4),
            _ => return None,
        };
        (block_digest(fields, block) == Some(true)).then_some((block.len(), end))
    })
}

/// Whether `block` matches the WARC-Block-Digest of `fields`; `None` without one of a known algorithm.
pub(crate) fn block_digest(fields: &[(String, String)], block: &[u8]) -> Option<bool> {
    record::get(fields, "WARC-Block-Digest").and_then(|d| digest_matches(d, block))
}

/// Whether a record's WARC-Payload-Digest (in `fields`) matches the payload of `block`: of an HTTP message its
/// entity body (or its body as sent, chunked), else the block. `None` without one of a known algorithm, or
/// where an HTTP head does not parse.
pub(crate) fn payload_agrees(fields: &[(String, String)], block: &[u8]) -> Option<bool> {
    let want = record::get(fields, "WARC-Payload-Digest")?;
    let http = record::get(fields, "Content-Type").is_some_and(|ct| {
        ct.trim_start()
            .to_ascii_lowercase()
            .starts_with("application/http")
    });
    if !http {
        return digest_matches(want, block);
    }
    let body = crate::digest::entity_body(block)?;
    let raw = crate::digest::raw_body(block).unwrap_or_default();
    Some(digest_matches(want, &body)? || digest_matches(want, raw) == Some(true))
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
        let whole = Some((block.len(), MemberEnd::Whole));
        assert_eq!(frames(&fields(None), &content, false), whole);
        assert_eq!(frames(&fields(None), &content, true), None);
        assert_eq!(frames(&fields(Some(&right)), &content, true), whole);
        // With a digest, the block before part of its ending, or before more CR and LF (xt34a F1).
        for (ending, end) in [
            (&b""[..], MemberEnd::Short(4)),
            (b"\r\n\r", MemberEnd::Short(1)),
            (b"\r\n\r\n\r\n", MemberEnd::Blank(2)),
        ] {
            let content = [&block[..], ending].concat();
            assert_eq!(
                frames(&fields(Some(&right)), &content, true),
                Some((block.len(), end))
            );
            // With none, a member ending in CRLF CRLF ends the block there; one that cuts it is no record's end.
            let no_digest = frames(&fields(None), &content, false);
            assert_eq!(
                no_digest.is_some(),
                ending.ends_with(b"\r\n\r\n"),
                "{ending:?}"
            );
        }
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
            Some((captured.len(), MemberEnd::Whole))
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
