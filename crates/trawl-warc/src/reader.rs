//! [`Reader`]: reads WARC and ARC files, plain or gzip (one member per record), record by record.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use flate2::bufread::GzDecoder;

use crate::arc;
use crate::compression::Compression;
use crate::error::{Error, excerpt};
use crate::framed::{self, DigestFrames, Framed, MemberEnd};
use crate::header;
use crate::record;
use crate::zstd_dictionary::{self, DictionaryProblem};

/// The largest header block the reader accepts, in bytes.
const MAX_HEAD_BYTES: u64 = 1 << 20;

/// The first byte of a gzip member (the second is 0x8b, which the decoder checks).
const GZIP_MAGIC: u8 = 0x1f;
/// The first byte of a zstd frame (magic `28 B5 2F FD`) and of a skippable frame (`5x 2A 4D 18`).
const ZSTD_MAGIC: u8 = 0x28;
const SKIPPABLE_MAGIC_LOW: u8 = 0x50;

/// A record as read from a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadRecord {
    /// Offset of the record in the file; of its gzip member when compressed.
    pub offset: u64,
    /// Length in the file: of the gzip member when compressed, else of the record with its CRLFCRLF.
    pub len: u64,
    /// Length as a CDXJ index gives it, as cdxj-indexer counts: [`ReadRecord::len`], less the CRLFCRLF
    /// that follows an uncompressed WARC record (it separates records; a compressed member counts whole).
    pub index_len: u64,
    /// The version line, e.g. `WARC/1.1`; `ARC/1.0` or `ARC/1.1` for a record of an ARC file.
    pub version: String,
    /// The header fields in order; of an ARC record, the five fields of its header line under their ARC
    /// names (`URL`, `IP-address`, `Archive-date`, `Content-type`, `Archive-length`).
    pub header: Vec<(String, String)>,
    /// The block (of an ARC record, its content).
    pub block: Vec<u8>,
    /// How the record is stored: [`Compression::None`] for a plain one, else in a gzip member
    /// ([`Compression::Gzip`]) or a zstd frame ([`Compression::Zstd`]).
    pub compression: Compression,
    /// Where the record starts in its gzip member's (or zstd frame's) decompressed content: 0 for the first
    /// record of a member, and for a plain record. Only a file compressed as one stream has records past 0,
    /// which is how a problem names them.
    pub in_member: u64,
    /// Whether the record is alone in its gzip member or zstd frame (true for a plain record): its member's
    /// end then frames it.
    pub alone_in_member: bool,
    /// A WARC record's header as written: the version line, the field lines and the empty line after them,
    /// byte for byte (`header` is their reading: names and values trimmed, continuation lines joined, a line
    /// that is not UTF-8 read as latin-1). Of an ARC record, its header line as written.
    pub raw_header: Vec<u8>,
    /// Of a WARC record alone in its gzip member (or zstd frame): how the member ends after the record's
    /// block, where not with the CRLF CRLF alone (its ending cut, or blank lines after it); of a plain file's
    /// last record (or the last of one member holding every record), its ending cut by the file's end.
    /// [`MemberEnd::Whole`] for any other record.
    pub member_end: MemberEnd,
    /// Of a record alone in its gzip member (or zstd frame): the file ends inside the member after the record,
    /// before the checksum that closes it (gzip's CRC-32 and size), and the record is kept because its
    /// WARC-Block-Digest matches its block, as warcio and cdxj-indexer keep it (xt38b N11).
    pub unsealed: bool,
}

impl ReadRecord {
    /// The [`Error::SharedMember`] of this record, of the file at `path`: the second record read from one
    /// gzip member (or zstd frame).
    pub fn shared_member_error(&self, path: &std::path::Path) -> Error {
        Error::SharedMember {
            path: path.to_path_buf(),
            offset: self.offset,
            compression: self.compression,
            arc: self.is_arc(),
            record_id: self.get("WARC-Record-ID").map(str::to_owned),
            at: self.in_member,
        }
    }
    /// The value of the first header field called `name` (case-insensitive).
    pub fn get(&self, name: &str) -> Option<&str> {
        record::get(&self.header, name)
    }

    /// The warcinfo record the record names as its own: its WARC-Warcinfo-ID, or for a warcinfo record its own
    /// WARC-Record-ID (a file's first record names itself).
    pub(crate) fn warcinfo_named(&self) -> Option<&str> {
        if self.get("WARC-Type") == Some("warcinfo") {
            self.get("WARC-Record-ID")
        } else {
            self.get("WARC-Warcinfo-ID")
        }
    }

    /// How a WARC record alone in its gzip member (or zstd frame) disagrees with the member: its Content-Length
    /// with the block the member frames (read as the member frames it, as warcio reads it: xt30a F3), or its
    /// ending cut, the length right (xt32b F4; also a plain file's last record, or one member's of every
    /// record: xt34a F4). `None` for any other record (and for CR and LF after the record in its member, the
    /// length right: [`ReadRecord::member_end`]). Also a record whose member the file's end cuts before its
    /// checksum ([`ReadRecord::unsealed`]).
    pub fn framed(&self) -> Option<Framed> {
        let cut = matches!(self.member_end, MemberEnd::Short(_));
        // A plain file (or one member of every record) frames no record but its last, whose ending it may cut.
        if self.is_arc()
            || ((self.compression == Compression::None || !self.alone_in_member) && !cut)
        {
            return None;
        }
        let says = self.get("Content-Length")?.trim().parse::<u64>().ok();
        (says != Some(self.block.len() as u64) || cut || self.unsealed).then(|| Framed {
            says: says.unwrap_or_default(),
            has: self.block.len(),
            within: self.compression,
            sure: framed::block_digest(&self.header, &self.block) == Some(true),
            end: self.member_end,
            unsealed: self.unsealed,
        })
    }

    /// Of a record alone in its gzip member (or zstd frame), read whole as its length says, whose
    /// WARC-Block-Digest does not match that block: the block its digest matches among those the member may
    /// frame otherwise (a length off by as many bytes as the CR and LF about the record's ending: xt34a F2; the
    /// member held the block read and CRLF CRLF), and whether its WARC-Payload-Digest says that reading is the
    /// record's. Asked by `verify` and `recompress`, not while reading (every reading would cost a digest). A
    /// revisit's digests may name another record's payload: never asked.
    pub(crate) fn digest_frames(&mut self) -> Option<DigestFrames> {
        if self.is_arc()
            || self.compression == Compression::None
            || !self.alone_in_member
            || self.member_end != MemberEnd::Whole
            || self.get("WARC-Type") == Some("revisit")
            || self.framed().is_some()
            || framed::block_digest(&self.header, &self.block) != Some(false)
        {
            return None;
        }
        // What the member held after the header, in place, and back.
        let said = self.block.len();
        self.block.extend_from_slice(b"\r\n\r\n");
        let found = framed::frames(&self.header, &self.block, true);
        let as_framed =
            found.and_then(|(has, _)| framed::payload_agrees(&self.header, &self.block[..has]));
        self.block.truncate(said);
        let (has, end) = found.filter(|&(has, _)| has != said)?;
        let as_read = framed::payload_agrees(&self.header, &self.block);
        Some(DigestFrames {
            says: said,
            has,
            end,
            within: self.compression,
            corroborated: as_framed == Some(true) && as_read != Some(true),
        })
    }

    /// The record as the member frames it where [`ReadRecord::digest_frames`] found `found`.
    pub(crate) fn take_framing(&mut self, found: &DigestFrames) {
        match found.has.checked_sub(self.block.len()) {
            Some(more) => self.block.extend_from_slice(&b"\r\n\r\n"[..more.min(4)]),
            None => self.block.truncate(found.has),
        }
        self.member_end = found.end;
    }

    /// Of a record whose member holds CR and LF after it ([`MemberEnd::Blank`]): what `verify` and `recompress`
    /// say of them (xt33a F3).
    pub fn blank_in_member(&self) -> Option<String> {
        let MemberEnd::Blank(n) = self.member_end else {
            return None;
        };
        let sure = framed::block_digest(&self.header, &self.block) == Some(true);
        Some(framed::blank_in_member(self.compression, n, sure))
    }

    /// The record with its Content-Length saying its block's length, in its fields and its header as written:
    /// what `convert` and `recompress` write of a [`ReadRecord::framed`] one. A block that may be cut short (its
    /// length said more, and no digest says it is whole: review 77 M2) is marked `WARC-Truncated: unspecified`.
    pub(crate) fn mend_length(&mut self) {
        let length = self.block.len();
        if self.framed().is_none_or(|f| f.ending_only()) {
            // The length is right (only the ending was short: written whole, the header as it was).
            return;
        }
        if self.framed().is_some_and(|f| f.maybe_cut()) && self.get("WARC-Truncated").is_none() {
            self.header
                .push(("WARC-Truncated".to_owned(), "unspecified".to_owned()));
            self.raw_header = framed::with_field(&self.raw_header, "WARC-Truncated", "unspecified");
        }
        if let Some((_, value)) = self
            .header
            .iter_mut()
            .find(|(name, _)| name.eq_ignore_ascii_case("Content-Length"))
        {
            *value = length.to_string();
        }
        self.raw_header = framed::with_length(&self.raw_header, length);
    }

    /// Of a file's first record: when it is an ARC record but not the `filedesc://` header an ARC file begins
    /// with, its URL, and whether its content begins as that header's does (a version block such as `1 0
    /// ORIGIN`: the header, its URL damaged, xt31a F4). `verify` fails such a file.
    pub fn not_filedesc(&self) -> Option<(&str, bool)> {
        if !self.is_arc() || arc::is_filedesc(self) {
            return None;
        }
        let url = self.get("URL").unwrap_or_default();
        Some((url, arc::version(&self.block).is_some()))
    }

    /// Whether the record was read from an ARC file.
    pub fn is_arc(&self) -> bool {
        self.version.starts_with("ARC/")
    }

    /// The record's WARC header: its own, or for an ARC record the one it stands for (`warcinfo` for the
    /// `filedesc://` record, `response` for the others; see `trawl warc convert`).
    pub fn warc_header(&self) -> Cow<'_, [(String, String)]> {
        if self.is_arc() {
            Cow::Owned(arc::warc_header(self))
        } else {
            Cow::Borrowed(&self.header)
        }
    }
}

impl arc::ArcRecord for ReadRecord {
    fn get(&self, name: &str) -> Option<&str> {
        ReadRecord::get(self, name)
    }

    fn block(&self) -> &[u8] {
        &self.block
    }

    fn compression(&self) -> Compression {
        self.compression
    }

    fn framed_by_its_member(&self) -> bool {
        self.compression != Compression::None && self.alone_in_member
    }
}

/// A `BufRead` that counts the bytes consumed from it.
#[derive(Debug)]
pub(crate) struct Counting<R> {
    inner: R,
    pub(crate) pos: u64,
    /// Bytes taken out of `inner` by [`Counting::peek`], given out before `inner`'s: a buffer fill may end
    /// inside a frame's magic.
    carry: Vec<u8>,
    /// How much of `carry` was consumed.
    carried: usize,
}

impl<R: BufRead> Counting<R> {
    pub(crate) fn new(inner: R) -> Counting<R> {
        Counting {
            inner,
            pos: 0,
            carry: Vec::new(),
            carried: 0,
        }
    }

    /// At least `n` bytes of what comes next, unconsumed (fewer only at the end of input).
    fn peek(&mut self, n: usize) -> io::Result<&[u8]> {
        if self.carried == self.carry.len() {
            self.carry.clear();
            self.carried = 0;
            if self.inner.fill_buf()?.len() >= n {
                return self.inner.fill_buf();
            }
        }
        while self.carry.len() - self.carried < n {
            let buf = self.inner.fill_buf()?;
            if buf.is_empty() {
                break;
            }
            let take = buf.len().min(n - (self.carry.len() - self.carried));
            self.carry.extend_from_slice(&buf[..take]);
            self.inner.consume(take);
        }
        Ok(&self.carry[self.carried..])
    }
}

impl<R> Counting<R> {
    /// What it reads from.
    pub(crate) fn into_inner(self) -> R {
        self.inner
    }
}

impl<R: BufRead> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.carried == self.carry.len() {
            // `inner`'s own read: a large one skips its buffer.
            let n = self.inner.read(buf)?;
            self.pos += n as u64;
            return Ok(n);
        }
        let n = (&self.carry[self.carried..]).read(buf)?;
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counting<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.carried < self.carry.len() {
            return Ok(&self.carry[self.carried..]);
        }
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        if self.carried < self.carry.len() {
            self.carried = (self.carried + amt).min(self.carry.len());
        } else {
            self.inner.consume(amt);
        }
        self.pos += amt as u64;
    }
}

/// Reads WARC (or ARC) records one by one from plain or gzipped input, as an iterator of
/// `Result<ReadRecord, Error>`.
///
/// Gzip is detected per record by its magic bytes; each member is decoded on its own so that
/// [`ReadRecord::offset`] and [`ReadRecord::len`] locate it in the file. A member holding several
/// records (whole-file gzip) is read too; its records then share the member's offset. After an error
/// the iterator ends, since the position of the next record is unknown.
///
/// A record starting with an ARC header line instead of `WARC/` is read as an ARC v1 record (see
/// [`ReadRecord::is_arc`]); blank lines between ARC records are skipped and not counted in a plain
/// record's length, as cdxj-indexer counts them. An Archive-length that is not a byte count reads as an
/// empty record, as warcio reads it; `verify` reports it.
#[derive(Debug)]
pub struct Reader<R> {
    input: Counting<R>,
    path: PathBuf,
    max_record_bytes: u64,
    pending: VecDeque<ReadRecord>,
    /// What ended the member whose records are `pending`, given once they are (xt32a F4: a file gzipped as one
    /// stream lost every record before a wrong length).
    then: Option<Error>,
    failed: bool,
    /// The zstd decoding context, reused for every frame, with the dictionary the file began with (if any)
    /// loaded in it.
    zstd: Option<ZstdContext>,
    /// The ID of the dictionary the file began with (0 for one without an ID), `None` without one: named when
    /// a frame needs another.
    dictionary_id: Option<u32>,
    /// Whether anything but extension (skippable, not dictionary) frames was read: a dictionary frame after
    /// that is a file made by concatenation.
    past_start: bool,
    /// Once an ARC record was read: the file's ARC version (`ARC/1.0` until its `filedesc://` says).
    arc: Option<String>,
    /// The WARC-Warcinfo-ID the last record read named (its own ID, for a warcinfo record): a record found
    /// after damage must name it to be taken for one of the file's ([`Reader::read_on_after`]).
    warcinfo: Option<String>,
    /// Whether the reader reads the file `path` names from its start ([`open`]): offsets are the file's, so
    /// that it can read on past damage.
    whole_file: bool,
    /// After [`Reader::read_on_after`] found nowhere to read on: where whole records of another warcinfo begin.
    unread_other: Option<u64>,
    /// Blank lines passed over before plain WARC records: where the first were, and how many runs of them.
    blank_lines: Option<(u64, u64)>,
    /// Whether the last record read was a warcinfo record: whether the file's records name it is not known yet,
    /// so a record found after damage that names none may be the file's (xt33a F4).
    warcinfo_last: bool,
}

/// A zstd decompression context, reused from frame to frame.
struct ZstdContext(zstd::zstd_safe::DCtx<'static>);

impl std::fmt::Debug for ZstdContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ZstdContext")
    }
}

/// The largest record (or decompressed gzip member) a reader holds in memory unless told otherwise: 1 GiB.
pub(crate) const MAX_RECORD_BYTES: u64 = 1 << 30;

/// What the file at `path` holds at `offset`, read as a record with the dictionary the file begins with (a
/// `.warc.zst`'s frames need it, wherever they are read from), and as a record of an ARC file of version `arc`
/// when given: the record, or what stopped it (a record over `limit` among them); `None` when the file's
/// dictionary cannot be read, or nothing is there. Never more than the rest of the file can hold is read.
pub(crate) fn record_at(
    path: &Path,
    offset: u64,
    arc: Option<&str>,
    limit: u64,
) -> Result<Option<Result<ReadRecord, Error>>, Error> {
    Ok(reader_at(path, offset, arc, limit)?.and_then(|mut r| r.next()))
}

/// A reader of the file at `path` from `offset` on, as [`record_at`] reads there; `None` when the file's
/// dictionary cannot be read.
pub(crate) fn reader_at(
    path: &Path,
    offset: u64,
    arc: Option<&str>,
    limit: u64,
) -> Result<Option<Reader<BufReader<File>>>, Error> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    // No record there is longer than what is left of the file, or than deflate inflates it to: a candidate
    // saying more is refused before its block is read (review 75 R2). A zstd frame can inflate further, up to
    // what the tools read.
    let left = std::fs::metadata(path)
        .map_err(io)?
        .len()
        .saturating_sub(offset);
    let most = match Compression::of_file(path) {
        Compression::None => left,
        _ => left.saturating_mul(MAX_DEFLATE_RATIO).max(MAX_RECORD_BYTES),
    };
    let mut reader = open(path)?.with_max_record_bytes(most.min(limit));
    let starts_with_dictionary = matches!(reader.input.peek(4), Ok([0x5D, 0x2A, 0x4D, 0x18, ..]));
    if starts_with_dictionary && reader.read_skippable(0).is_err() {
        return Ok(None);
    }
    reader.arc = arc.map(str::to_owned);
    reader.seek_to(offset).map_err(io)?;
    Ok(Some(reader))
}

/// The most deflate inflates a byte to (a run of one byte, in maximal matches): 1032.
const MAX_DEFLATE_RATIO: u64 = 1032;

/// Opens the WARC file at `path` for reading.
pub fn open(path: &Path) -> Result<Reader<BufReader<File>>, Error> {
    let file = File::open(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    let mut reader = Reader::new(BufReader::with_capacity(1 << 16, file)).with_path(path);
    reader.whole_file = true;
    Ok(reader)
}

impl<R: BufRead> Reader<R> {
    /// A reader over `input`, named `<stream>` in errors until [`Reader::with_path`].
    pub fn new(input: R) -> Reader<R> {
        Reader {
            input: Counting::new(input),
            path: PathBuf::from("<stream>"),
            max_record_bytes: MAX_RECORD_BYTES,
            pending: VecDeque::new(),
            then: None,
            failed: false,
            zstd: None,
            dictionary_id: None,
            past_start: false,
            arc: None,
            warcinfo: None,
            whole_file: false,
            unread_other: None,
            blank_lines: None,
            warcinfo_last: false,
        }
    }

    /// Names the input `path` in errors.
    pub fn with_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.path = path.into();
        self
    }

    /// Rejects records (and decompressed gzip members) larger than `limit` bytes instead of holding
    /// them in memory. Default: 1 GiB.
    pub fn with_max_record_bytes(mut self, limit: u64) -> Self {
        self.max_record_bytes = limit;
        self
    }

    /// Reads the next record or member; `Ok(None)` at the end of input.
    fn read_next(&mut self) -> Result<Option<ReadRecord>, Error> {
        loop {
            if let Some(rec) = self.pending.pop_front() {
                return Ok(Some(rec));
            }
            if let Some(e) = self.then.take() {
                return Err(e);
            }
            // Whether a plain ARC record came before with no newline after it (see below).
            let mut unseparated = false;
            if self.arc.is_some() {
                let pos = self.input.pos;
                skip_blank_lines(&mut self.input).map_err(|e| self.read_error(pos, e))?;
                unseparated = self.input.pos == pos;
            } else {
                self.skip_blank_lines_before_a_record()?;
            }
            let offset = self.input.pos;
            // Four bytes tell a skippable frame, and a buffer fill may end inside them.
            let (first, skippable) = match self.input.peek(4) {
                Ok(buf) => (
                    buf.first().copied(),
                    buf.len() >= 4
                        && buf[0] & 0xf0 == SKIPPABLE_MAGIC_LOW
                        && buf[1..4] == [0x2A, 0x4D, 0x18],
                ),
                Err(source) => return Err(self.read_error(offset, source)),
            };
            match first {
                None => return Ok(None),
                Some(GZIP_MAGIC) => {
                    self.past_start = true;
                    self.read_member(offset)?;
                }
                Some(ZSTD_MAGIC) => {
                    self.past_start = true;
                    self.read_zstd_frame(offset)?;
                }
                Some(_) if skippable => self.read_skippable(offset)?,
                Some(_) => {
                    self.past_start = true;
                    let limit = self.max_record_bytes;
                    let Parts {
                        version,
                        header,
                        block,
                        raw_header,
                        member_end,
                    } = read_record(
                        &mut self.input,
                        &self.path,
                        offset,
                        limit,
                        &mut self.arc,
                        None,
                    )?;
                    if unseparated {
                        check_unseparated(&self.path, offset, &version, &header, &raw_header)?;
                    }
                    let len = self.input.pos - offset;
                    // The CRLF CRLF after a WARC record, which cdxj-indexer does not count: all of it, or what a
                    // file ending inside it holds (xt34a F4).
                    let warc = version.starts_with("WARC/");
                    let trailer = match member_end {
                        _ if !warc => 0,
                        MemberEnd::Short(n) => 4 - u64::from(n),
                        _ => 4,
                    };
                    let record = ReadRecord {
                        offset,
                        len,
                        index_len: len - trailer,
                        version,
                        header,
                        block,
                        compression: Compression::None,
                        in_member: 0,
                        alone_in_member: true,
                        raw_header,
                        member_end,
                        unsealed: false,
                    };
                    if warc {
                        self.check_followed(&record)?;
                    }
                    return Ok(Some(record));
                }
            }
        }
    }

    /// Passes over blank lines (CR, LF, spaces, tabs: a writer's extra CRLF after a record) before a plain WARC
    /// record or the end of the file, as warcio reads them, counted for `verify` to fail
    /// ([`Reader::blank_lines`]; xt32b F2, F6: each was damage read past, the first record lost with them).
    fn skip_blank_lines_before_a_record(&mut self) -> Result<(), Error> {
        let (at, mut next) = peek_ahead(&mut self.input, &self.path, BLANK_PEEK)?;
        // A longer run is looked through further, up to MAX_BLANK (xt33a F1: 64 blank bytes at the end).
        if !next.is_empty() && blank_run(next) == next.len() && next.len() >= BLANK_PEEK {
            next = peek_ahead(&mut self.input, &self.path, MAX_BLANK)?.1;
        }
        let blank = blank_run(next);
        let rest = &next[blank..];
        let before_a_record = match rest {
            [] => blank < MAX_BLANK,
            _ => rest.len() >= 5 && rest.starts_with(b"WARC/"),
        };
        if blank > 0 && before_a_record {
            self.input.consume(blank);
            self.blank_lines.get_or_insert((at, 0)).1 += 1;
        }
        Ok(())
    }

    /// Whether the plain WARC `record` just read is whole: what follows it is where the next record can begin
    /// (its version line, a gzip member or zstd frame, after blank lines or not), zero bytes padding the file, or
    /// the file's end (after blank lines or not). Anything
    /// else may be the rest of its block, its Content-Length too short and ending on a CRLF CRLF inside it
    /// (the end of its HTTP head, a blank line): then, unless its WARC-Block-Digest says the block is whole,
    /// the record is the damage, at its offset, and the tools leave it out and read on after it (review 76 R3:
    /// it was written cut to its head, the damage named at no record's offset).
    fn check_followed(&mut self, record: &ReadRecord) -> Result<(), Error> {
        let (at, next) = peek_ahead(&mut self.input, &self.path, BLANK_PEEK)?;
        let path = &self.path;
        // Blank lines or spaces before the next record (or the end of the file) are no block's rest: a writer's
        // extra CRLF between records, named where it is (xt32a F6: every record of such a file was lost).
        let blank = blank_run(next);
        // The next record's version line right after the trailer, or the end of the file: whole.
        if blank == 0 && b"WARC/".starts_with(&next[..next.len().min(5)]) {
            return Ok(());
        }
        // What else may begin there (blank lines before a record or the end, zero padding, a gzip member, a zstd
        // frame) may also be the rest of a block whose length is too short (an HTTP head's end before a gzip
        // body, a CRLF that ends a request): whole unless its digest says otherwise (review 78 H1, M5).
        let rest = &next[blank..];
        let begins = match rest {
            // Blank to the end of the file, or as far as is looked (xt32b F3).
            [] | [0, ..] => true,
            [GZIP_MAGIC, 0x8b, ..] | [ZSTD_MAGIC, 0xb5, 0x2f, 0xfd, ..] => true,
            [m, 0x2a, 0x4d, 0x18, ..] if m & 0xf0 == SKIPPABLE_MAGIC_LOW => true,
            // Cut short in the magic: the end of the file says more.
            [GZIP_MAGIC] | [ZSTD_MAGIC, ..] if rest.len() < 4 => true,
            _ => b"WARC/".starts_with(&rest[..rest.len().min(5)]),
        };
        let digest = record.get("WARC-Block-Digest");
        let whole = framed::block_digest(&record.header, &record.block);
        if whole == Some(true) || (begins && whole.is_none()) {
            return Ok(());
        }
        let unsure = match (digest, whole) {
            (None, _) => "no WARC-Block-Digest tells whether the block is whole",
            (Some(_), None) => "its WARC-Block-Digest is of no algorithm known here",
            (Some(_), Some(_)) => "its WARC-Block-Digest does not match the block",
        };
        Err(Error::Malformed {
            path: path.clone(),
            offset: record.offset,
            expected: format!(
                "a record's version line (\"WARC/1.1\") after this record's block of {} bytes (Content-Length) \
                 and its CRLF CRLF: what follows them at offset {at} may be the rest of its block, the length \
                 too short ({unsure})",
                record.block.len()
            ),
            found: excerpt(next),
        })
    }

    /// Blank lines (CR, LF, spaces, tabs) passed over before plain WARC records or the end of the file: where the
    /// first were, and how many places had them. WARC 1.1 ends a record with CRLF CRLF and begins the next
    /// right after; warcio reads such files, and `verify` fails them.
    pub fn blank_lines(&self) -> Option<(u64, u64)> {
        self.blank_lines
    }

    /// Decodes the gzip member at `offset` and queues its records (none if it is empty).
    fn read_member(&mut self, offset: u64) -> Result<(), Error> {
        let decoder = GzDecoder::new(&mut self.input);
        let (records, then, unsealed) = read_compressed(
            decoder,
            &self.path,
            offset,
            self.max_record_bytes,
            &mut self.arc,
            Compression::Gzip,
        )?;
        self.queue_records(offset, records, Compression::Gzip, then.is_none(), unsealed);
        self.then = then;
        Ok(())
    }

    /// Decodes the zstd frame at `offset` (with the file's dictionary, if it began with one) and queues its
    /// records.
    fn read_zstd_frame(&mut self, offset: u64) -> Result<(), Error> {
        let context = &mut self
            .zstd
            .get_or_insert_with(|| ZstdContext(zstd::zstd_safe::DCtx::create()))
            .0;
        // A frame cut short by an earlier error leaves the context mid-frame; the next starts afresh.
        let _ = context.reset(zstd::zstd_safe::ResetDirective::SessionOnly);
        let mut head = FrameHead {
            inner: &mut self.input,
            head: [0; FRAME_HEADER_MAX],
            len: 0,
            peeked: 0,
        };
        let decoder = zstd::stream::read::Decoder::with_context(&mut head, context).single_frame();
        let records = read_compressed(
            decoder,
            &self.path,
            offset,
            self.max_record_bytes,
            &mut self.arc,
            Compression::Zstd,
        );
        let needs = zstd::zstd_safe::get_dict_id_from_frame(head.head()).map(u32::from);
        let records = match records {
            // A frame that needs a dictionary the file does not have: say which, not zstd's bare mismatch.
            Err(Error::Zstd { .. }) if needs.is_some() && needs != self.dictionary_id => {
                return Err(Error::ZstdDictionaryId {
                    path: self.path.clone(),
                    offset,
                    needs: needs.unwrap_or_default(),
                    has: self.dictionary_id,
                });
            }
            other => other?,
        };
        let (records, then, unsealed) = records;
        self.queue_records(offset, records, Compression::Zstd, then.is_none(), unsealed);
        self.then = then;
        Ok(())
    }

    /// Queues `records`, what the compressed member or frame at `offset` held (`compression` says which),
    /// once the input is past it.
    /// `whole`: the member's records were read to its end (no error after them, which the member holds too);
    /// `unsealed`: the file ends before the member's checksum ([`ReadRecord::unsealed`]).
    fn queue_records(
        &mut self,
        offset: u64,
        records: Vec<(u64, Parts)>,
        compression: Compression,
        whole: bool,
        unsealed: bool,
    ) {
        let len = self.input.pos - offset;
        let alone_in_member = records.len() == 1 && whole;
        for (in_member, parts) in records {
            let Parts {
                version,
                header,
                block,
                raw_header,
                member_end,
            } = parts;
            self.pending.push_back(ReadRecord {
                offset,
                len,
                index_len: len,
                version,
                header,
                block,
                compression,
                in_member,
                alone_in_member,
                raw_header,
                member_end,
                unsealed,
            });
        }
    }

    /// Reads a zstd skippable frame: the warc-zstd dictionary (magic `5D 2A 4D 18`, itself possibly
    /// zstd-compressed) is kept for the frames after it; any other is skipped. A dictionary frame is refused
    /// unread when over [`DICTIONARY_LIMIT`](zstd_dictionary::DICTIONARY_LIMIT) (compressed or inflated).
    fn read_skippable(&mut self, offset: u64) -> Result<(), Error> {
        let mut head = Vec::with_capacity(8);
        (&mut self.input)
            .take(8)
            .read_to_end(&mut head)
            .map_err(|source| self.read_error(offset, source))?;
        let dictionary = head.first() == Some(&0x5D);
        let dictionary_error = |path: &Path, problem| Error::ZstdDictionary {
            path: path.to_path_buf(),
            offset,
            problem,
        };
        let Ok(head) = <[u8; 8]>::try_from(head.as_slice()) else {
            if dictionary {
                let have = head.len() as u64;
                return Err(dictionary_error(
                    &self.path,
                    DictionaryProblem::HeaderCut { have },
                ));
            }
            return Err(self.read_error(
                offset,
                io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!(
                        "a skippable frame cut short: the file ends {} bytes into its 8-byte header",
                        head.len()
                    ),
                ),
            ));
        };
        if head[1..4] != [0x2A, 0x4D, 0x18] {
            return Err(Error::Zstd {
                path: self.path.clone(),
                offset,
                source: io::Error::other("neither a WARC record, a gzip member nor a zstd frame"),
            });
        }
        // The spec has a dictionary frame only at the start of a file, and readers load it only from there.
        if dictionary && offset != 0 {
            let problem = if self.past_start {
                DictionaryProblem::NotAtStart
            } else {
                DictionaryProblem::AfterExtensionFrame
            };
            return Err(dictionary_error(&self.path, problem));
        }
        // Only the dictionary is read into memory: another frame's size has no limit.
        let limit = if dictionary {
            zstd_dictionary::DICTIONARY_LIMIT
        } else {
            u64::MAX
        };
        let size = zstd_dictionary::frame_size(&head, limit)
            .map_err(|problem| dictionary_error(&self.path, problem))?;
        if !dictionary {
            // Another skippable frame: skipped unread, however long.
            let skipped = io::copy(&mut (&mut self.input).take(size), &mut io::sink())
                .map_err(|source| self.read_error(offset, source))?;
            if skipped < size {
                return Err(self.read_error(
                    offset,
                    io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        format!("a skippable frame of {size} bytes cut short after {skipped}"),
                    ),
                ));
            }
            return Ok(());
        }
        // Read as far as the file goes (at most the limit): room for the size given, filled only as it comes.
        let mut data = Vec::new();
        let _ = data.try_reserve_exact(usize::try_from(size).unwrap_or(0));
        (&mut self.input)
            .take(size)
            .read_to_end(&mut data)
            .map_err(|source| self.read_error(offset, source))?;
        if (data.len() as u64) < size {
            return Err(dictionary_error(
                &self.path,
                DictionaryProblem::Truncated {
                    want: size,
                    have: data.len() as u64,
                },
            ));
        }
        let dictionary = zstd_dictionary::parse_payload(&data, zstd_dictionary::DICTIONARY_LIMIT)
            .map_err(|problem| dictionary_error(&self.path, problem))?;
        drop(data);
        let mut context = zstd::zstd_safe::DCtx::create();
        context
            .load_dictionary(dictionary.as_bytes())
            .map_err(|_| dictionary_error(&self.path, DictionaryProblem::Unusable))?;
        self.zstd = Some(ZstdContext(context));
        self.dictionary_id = Some(dictionary.id());
        self.past_start = true;
        Ok(())
    }

    fn read_error(&self, offset: u64, source: io::Error) -> Error {
        Error::Read {
            path: self.path.clone(),
            offset,
            source,
        }
    }
}

impl Reader<BufReader<File>> {
    /// Sets the reader to read on from `offset` of its file, as though nothing had been read yet but the
    /// dictionary and the ARC version.
    pub(crate) fn seek_to(&mut self, offset: u64) -> io::Result<()> {
        use std::io::{Seek, SeekFrom};
        self.input.inner.seek(SeekFrom::Start(offset))?;
        self.input.carry.clear();
        self.input.carried = 0;
        self.input.pos = offset;
        self.pending.clear();
        self.then = None;
        self.past_start = true;
        self.failed = false;
        Ok(())
    }

    /// When the last [`Reader::read_on_after`] found nowhere to read on: where whole records of another warcinfo
    /// begin, which it did not take for the file's (a WARC captured in the damaged record, or a file joined after
    /// this one that does not read whole to its end); see [`crate::unread_other_hint`].
    pub fn unread_other(&self) -> Option<u64> {
        self.unread_other
    }

    pub(crate) fn set_unread_other(&mut self, at: Option<u64>) {
        self.unread_other = at;
    }

    /// What [`Reader::read_on_after`] needs of the reader: the file (`None` unless it reads a file from its
    /// start, see [`open`]), the WARC-Warcinfo-ID the last record read named, the file's ARC version (once an
    /// ARC record was read), and the largest record it reads.
    pub(crate) fn read_so_far(&self) -> (Option<&Path>, Option<&str>, bool, Option<&str>, u64) {
        (
            self.whole_file.then_some(self.path.as_path()),
            self.warcinfo.as_deref(),
            self.warcinfo_last,
            self.arc.as_deref(),
            self.max_record_bytes,
        )
    }
}

impl<R: BufRead> Iterator for Reader<R> {
    type Item = Result<ReadRecord, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let next = self.read_next();
        self.failed = next.is_err();
        if let Ok(Some(r)) = &next {
            let names = r.warcinfo_named();
            if self.warcinfo.as_deref() != names {
                self.warcinfo = names.map(str::to_owned);
            }
            self.warcinfo_last = r.get("WARC-Type") == Some("warcinfo");
        }
        next.transpose()
    }
}

/// The most bytes a zstd frame header takes: magic 4, descriptor 1, window 1, dictionary ID 4, content size 8.
const FRAME_HEADER_MAX: usize = 18;

/// A `BufRead` that keeps a copy of the first [`FRAME_HEADER_MAX`] bytes taken from it, or looked at: the header
/// of the zstd frame decoded from it, whose dictionary ID an error names (zstd refuses a frame for its
/// dictionary ID before it consumes the header).
struct FrameHead<'a, R> {
    inner: &'a mut R,
    /// The bytes consumed (`len`), then those the last `fill_buf` gave beyond them (`peeked`).
    head: [u8; FRAME_HEADER_MAX],
    len: usize,
    peeked: usize,
}

impl<R> FrameHead<'_, R> {
    /// The frame's first bytes seen.
    fn head(&self) -> &[u8] {
        &self.head[..self.len + self.peeked]
    }
}

impl<R: BufRead> BufRead for FrameHead<'_, R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let buf = self.inner.fill_buf()?;
        self.peeked = buf.len().min(FRAME_HEADER_MAX - self.len);
        self.head[self.len..self.len + self.peeked].copy_from_slice(&buf[..self.peeked]);
        Ok(buf)
    }

    fn consume(&mut self, amt: usize) {
        self.len += amt.min(self.peeked);
        self.peeked = 0;
        self.inner.consume(amt);
    }
}

impl<R: BufRead> Read for FrameHead<'_, R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let buf = self.fill_buf()?;
        let n = buf.len().min(out.len());
        out[..n].copy_from_slice(&buf[..n]);
        self.consume(n);
        Ok(n)
    }
}

/// A record as read: its version, header fields, block and header as written (of a WARC record).
struct Parts {
    version: String,
    header: Vec<(String, String)>,
    block: Vec<u8>,
    raw_header: Vec<u8>,
    /// How the record's member ends after its block (a WARC record's).
    member_end: MemberEnd,
}

/// What a member's records came to: each with where it starts in the member, what ended them before the
/// member's end (the records before it are whole), and whether the file ends before the member's checksum, its
/// one record kept for its digest ([`ReadRecord::unsealed`]).
type MemberRead = (Vec<(u64, Parts)>, Option<Error>, bool);

/// A decoder's output, counted, with the first error the decoder gave kept (its kind and message) so that a
/// record cut short by a damaged member is reported as a bad member, not as a short record.
struct Decoded<D> {
    inner: D,
    count: u64,
    error: Option<io::Error>,
}

impl<D: Read> Read for Decoded<D> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.inner.read(buf) {
            Ok(n) => {
                self.count += n as u64;
                Ok(n)
            }
            Err(e) => {
                if self.error.is_none() {
                    self.error = Some(io::Error::new(e.kind(), e.to_string()));
                }
                // The file ending inside the member: what was decoded is read as the member's content, so a
                // record it holds whole is framed as it would be (`read_compressed` decides what is kept).
                if e.kind() == io::ErrorKind::UnexpectedEof {
                    return Ok(0);
                }
                Err(e)
            }
        }
    }
}

/// The records of the gzip member or zstd frame (`compression`) at `offset` that `decoder` decodes, read as
/// they are decoded: a record takes the memory its declared length asks for (at most `limit`), never the
/// member's whole inflated size, so a member inflating far beyond its record (a decompression bomb) is
/// refused after that record, giving its length. A member holding several records (a file compressed as one
/// stream) is read whole, up to `limit` bytes in all; one of them that does not read ends them, and those
/// before it are given with the error that ended them, when the rest of the member decodes whole (its checksum
/// holds; xt32a F4: every record of such a file was lost).
fn read_compressed<D: Read>(
    decoder: D,
    path: &Path,
    offset: u64,
    limit: u64,
    arc: &mut Option<String>,
    compression: Compression,
) -> Result<MemberRead, Error> {
    let mut src = BufReader::with_capacity(
        1 << 16,
        Decoded {
            inner: decoder,
            count: 0,
            error: None,
        },
    );
    let mut records = Vec::new();
    let what = compression.container();
    let read = read_decoded(&mut src, path, offset, limit, arc, &mut records, what);
    // What went wrong first is the member (truncated, a bad checksum): say so.
    let bad_member = |source| match compression {
        Compression::Zstd => Error::Zstd {
            path: path.to_owned(),
            offset,
            source,
        },
        _ => Error::Gzip {
            path: path.to_owned(),
            offset,
            source,
        },
    };
    match (read, src.get_mut().error.take()) {
        (Ok(()), None) => Ok((records, None, false)),
        // The file ends inside the member, after what was read (the decoder's end of file is read as the
        // member's end). A record alone in it whose WARC-Block-Digest matches is whole: only the member's close
        // is cut, its checksum with it (xt38b N11: warcio and cdxj-indexer keep it). Several records (a file
        // compressed as one stream) keep those read, the cut said after them, as below.
        (Ok(()), Some(source)) => match records.as_slice() {
            [(_, Parts { header, block, .. })]
                if framed::block_digest(header, block) == Some(true) =>
            {
                Ok((records, None, true))
            }
            [_, _, ..] if source.kind() == io::ErrorKind::UnexpectedEof => {
                Ok((records, Some(bad_member(source)), false))
            }
            _ => Err(bad_member(source)),
        },
        (Err(_), Some(source)) if records.is_empty() => Err(bad_member(source)),
        // A member of several records (a file compressed as one stream) cut short (xt32b F1: nothing of it was
        // kept): what was decoded before the cut is sound, and every record read whole is kept. A stream damaged
        // keeps nothing: a flipped bit may have changed what was decoded before the decoder saw it, in a header
        // as well as a block (docs/archive.md says how to look at its records one by one).
        (Err(_), Some(source))
            if !records.is_empty()
                && (source.kind() == io::ErrorKind::UnexpectedEof
                    || source.to_string().contains("incomplete")) =>
        {
            Ok((records, Some(bad_member(source)), false))
        }
        (Err(_), Some(source)) => Err(bad_member(source)),
        // A member holding more than the limit keeps nothing, as one record over it would; a record whose length
        // says more than the limit, after others, keeps them (review 78 M4).
        (Err(e @ Error::TooLarge { .. }), None)
            if records.is_empty() || src.get_ref().count > limit =>
        {
            Err(e)
        }
        (Err(e), None) if !records.is_empty() => {
            let mut suspect = false;
            let e = match e {
                // More after a record, and not a record: a member inflating beyond its record (or a length too
                // short). Not a record's own framing, which names that record.
                Error::Malformed {
                    path,
                    offset,
                    expected,
                    found,
                } if [NOT_A_RECORD, ARC_LINE, UNSEPARATED]
                    .iter()
                    .any(|start| expected.starts_with(start)) =>
                {
                    suspect = true;
                    let (
                        _,
                        Parts {
                            version,
                            header,
                            block,
                            ..
                        },
                    ) = &records[records.len() - 1];
                    let field = if version.starts_with("ARC/") {
                        "Archive-length"
                    } else {
                        "Content-Length"
                    };
                    let declared = record::get(header, field)
                        .and_then(|l| l.parse::<u64>().ok())
                        .unwrap_or(block.len() as u64);
                    Error::Malformed {
                        path,
                        offset,
                        expected: format!(
                            "the {what} to end after its record of {declared} bytes ({field}), or another record: \
                             {expected}"
                        ),
                        found,
                    }
                }
                e => e,
            };
            // What is no record after the last one read may be the rest of its block, its length too short: it is
            // left out, unless its digest says it is whole. Those before it each ended where the next began.
            if suspect
                && !records
                    .last()
                    .is_some_and(|(_, Parts { header, block, .. })| {
                        framed::block_digest(header, block) == Some(true)
                    })
            {
                records.pop();
            }
            if records.is_empty() {
                return Err(e);
            }
            // The records before are whole if the rest of the member decodes, its checksum with it.
            let drained = io::copy(&mut src.by_ref().take(limit), &mut io::sink());
            let rest = src.fill_buf().map(|b| b.is_empty());
            match (drained, rest, src.get_mut().error.take()) {
                (_, _, Some(source)) => Err(bad_member(source)),
                (Ok(_), Ok(true), None) => Ok((records, Some(e), false)),
                // A member decoding beyond the limit after the damage: its checksum unchecked, nothing is kept.
                _ => Err(e),
            }
        }
        (Err(e), None) => Err(e),
    }
}

/// How far ahead blank lines before a plain WARC record are looked through at first, and at most.
const BLANK_PEEK: usize = 64;
const MAX_BLANK: usize = 64 << 10;

/// Where `input` is, and its next [`BLANK_PEEK`] bytes (fewer at the end of the file), unconsumed; an error names
/// `path`.
fn peek_ahead<'a, R: BufRead>(
    input: &'a mut Counting<R>,
    path: &Path,
    n: usize,
) -> Result<(u64, &'a [u8]), Error> {
    let at = input.pos;
    let next = input.peek(n).map_err(|source| Error::Read {
        path: path.to_owned(),
        offset: at,
        source,
    })?;
    Ok((at, next))
}

/// How many blank bytes (CR, LF, space, tab) `next` begins with.
fn blank_run(next: &[u8]) -> usize {
    next.iter()
        .take_while(|b| matches!(b, b'\r' | b'\n' | b' ' | b'\t'))
        .count()
}

/// What the reader expects where a WARC record begins.
const NOT_A_RECORD: &str = "a version line such as \"WARC/1.1\"";

/// What the reader expects where an ARC record follows another with no newline between them.
const UNSEPARATED: &str = "a newline ending the record before";

/// Reads the records of a decoded member from `src` into `records`, each with where it starts in the
/// decoded content (see [`read_compressed`]).
fn read_decoded<D: Read>(
    src: &mut BufReader<Decoded<D>>,
    path: &Path,
    offset: u64,
    limit: u64,
    arc: &mut Option<String>,
    records: &mut Vec<(u64, Parts)>,
    what: &'static str,
) -> Result<(), Error> {
    let read_err = |source| Error::Read {
        path: path.to_owned(),
        offset,
        source,
    };
    // What the records took, not what is decoded ahead of them.
    let taken = |src: &BufReader<Decoded<D>>| src.get_ref().count - src.buffer().len() as u64;
    let mut framed = false;
    loop {
        if let [(_, first)] = records.as_mut_slice()
            && first.version.starts_with("ARC/")
            && !std::mem::replace(&mut framed, true)
        {
            let room = limit.saturating_sub(taken(src));
            let after = frame_by_member(src, first, arc.as_deref(), room).map_err(|e| match e {
                Framing::Read(source) => read_err(source),
                Framing::TooLarge => Error::TooLarge {
                    path: path.to_owned(),
                    offset,
                    len: limit.saturating_add(1),
                    limit,
                },
                Framing::NotFramed(why, rest) => with_found(
                    Error::Malformed {
                        path: path.to_owned(),
                        offset,
                        expected: format!("{ARC_LINE} ({why})"),
                        found: String::new(),
                    },
                    &rest,
                ),
            })?;
            if let After::Record { line, separated } = after {
                let start = taken(src) - line.len() as u64;
                let record = read_arc_record(src, path, offset, limit, arc, Some(line))?;
                if !separated {
                    check_unseparated(
                        path,
                        offset,
                        &record.version,
                        &record.header,
                        &record.raw_header,
                    )?;
                }
                records.push((start, record));
                check_length(path, offset, taken(src), limit)?;
            }
            continue;
        }
        let before = taken(src);
        if arc.is_some() {
            skip_blank_lines(src).map_err(read_err)?;
        }
        if src.fill_buf().map_err(read_err)?.is_empty() {
            return Ok(());
        }
        let start = taken(src);
        // The member's first record: the member's end frames it, whatever its Content-Length says (xt30a F3).
        let record = read_record(
            src,
            path,
            offset,
            limit,
            arc,
            records.is_empty().then_some(what),
        )?;
        // A record after another in the member with no newline between them: as in a plain file, its URL must
        // have a known scheme (xt27b F3: a length a few bytes too long left `ttp://…`).
        if !records.is_empty() && start == before {
            check_unseparated(
                path,
                offset,
                &record.version,
                &record.header,
                &record.raw_header,
            )?;
        }
        records.push((start, record));
        let taken = taken(src);
        check_length(path, offset, taken, limit)?;
    }
}

/// An ARC record that follows the one before with no newline between them (read as webarchive-commons' sample
/// writes them) must begin with a header line whose URL has a known scheme: an Archive-length a few bytes too
/// long leaves one shaped like it, its URL cut at the front (`ttp://…`, xt25b F5). Else a
/// [`Error::Malformed`] at `offset`.
fn check_unseparated(
    path: &Path,
    offset: u64,
    version: &str,
    header: &[(String, String)],
    raw_header: &[u8],
) -> Result<(), Error> {
    if version.starts_with("ARC/") && !record::get(header, "URL").is_some_and(arc::has_known_scheme)
    {
        return Err(Error::Malformed {
            path: path.to_owned(),
            offset,
            expected: format!(
                "{UNSEPARATED}, or an ARC header line whose URL has a known scheme (http, https, ftp, dns, \
                 filedesc, ...): the record before's Archive-length may be too long"
            ),
            found: excerpt(raw_header),
        });
    }
    Ok(())
}

/// Why a record could not be framed by its member ([`frame_by_member`]).
enum Framing {
    Read(io::Error),
    /// The member holds more than the reader's limit.
    TooLarge,
    /// What follows the record's length holds what looks like a later record's header line, or goes on past
    /// [`FRAME_SLACK`] (given: why, in words, and the bytes after the length, or their start): not one record
    /// with a length too short.
    NotFramed(String, Vec<u8>),
}

/// How much more than its Archive-length (or that length again, when larger) a member may hold for its one
/// record to be read as the member frames it: a length a few bytes or a few records' worth off is a known
/// writer fault; a member inflating far beyond it is more likely a decompression bomb.
const FRAME_SLACK: u64 = 16 << 20;

/// What follows a member's first record, an ARC one ([`frame_by_member`]).
enum After {
    /// Nothing more to read of the member as a record: it ended, or the record took in the rest.
    Done,
    /// The header line of a next record in the member (a file compressed as one stream), read; `separated`:
    /// after a blank line.
    Record { line: Vec<u8>, separated: bool },
}

/// xt25b F6: an ARC record that its gzip member (or zstd frame) frames, whole (its checksum held), though its
/// Archive-length says otherwise: its content is what the member holds after the header line, less the
/// newline that ends an ARC record, as warcio reads the next record at the next member. `record` is the
/// member's first record, read as long as its Archive-length says; what `src` holds next decides:
/// - nothing (the member ended): a content shorter than the length is the member's, the newline left out,
///   unless it holds what looks like a later header line (a length that swallowed records: damage);
/// - blank lines and a header line (read whole, however the decoder's output was buffered: review 74 R1):
///   the next record's, given back ([`After::Record`]);
/// - anything else: the rest of the content of a length too short, read into the record (at most `room`
///   bytes, and [`FRAME_SLACK`] or the length again), unless the content then holds what looks like a later
///   header line (xt27b F2: a length too long by a few bytes ends inside the next record's header line).
///
/// [`arc::damage`] and [`arc::flaws`] then tell the length that disagrees with such a record.
fn frame_by_member<D: Read>(
    src: &mut BufReader<Decoded<D>>,
    record: &mut Parts,
    version: Option<&str>,
    room: u64,
) -> Result<After, Framing> {
    let block = &mut record.block;
    let says = record::get(&record.header, "Archive-length").and_then(|l| l.parse::<u64>().ok());
    if src.fill_buf().map_err(Framing::Read)?.is_empty() {
        if says.is_some_and(|says| says > block.len() as u64)
            && arc::later_header_line(block).is_none()
            && block.ends_with(b"\n")
        {
            block.pop();
        }
        return Ok(After::Done);
    }
    // The blank lines, kept: they are content if no header line follows.
    let mut line = Vec::new();
    loop {
        let buffered = src.fill_buf().map_err(Framing::Read)?;
        let n = match buffered {
            [b'\n', ..] => 1,
            [b'\r', b'\n', ..] => 2,
            _ => break,
        };
        line.extend_from_slice(&buffered[..n]);
        src.consume(n);
    }
    let blank = line.len();
    read_head_line(src, &mut line).map_err(Framing::Read)?;
    if line.len() == blank {
        // Nothing but blank lines: those that end the record.
        return Ok(After::Done);
    }
    if line.ends_with(b"\n") && arc::parse_line_in(&line[blank..], version).is_some() {
        return Ok(After::Record {
            line: line.split_off(blank),
            separated: blank > 0,
        });
    }
    // At most FRAME_SLACK (or the length again) more: beyond, a decompression bomb or a length too far off
    // to be taken on the member's word is refused as before, without inflating it all (review 74 R2).
    let allowed = room.min(FRAME_SLACK.max(says.unwrap_or(0)));
    let from = block.len();
    block.extend_from_slice(&line);
    drop(line);
    let left = allowed.saturating_sub((block.len() - from) as u64);
    src.by_ref()
        .take(left.saturating_add(1))
        .read_to_end(block)
        .map_err(Framing::Read)?;
    if (block.len() - from) as u64 > allowed {
        if allowed == room {
            return Err(Framing::TooLarge);
        }
        block.truncate(from + 64);
        let why = format!(
            "the member goes on more than {} MiB past the length (a decompression bomb, or a length too far \
             off to take the member's word for), so it is not read as the record's",
            allowed >> 20
        );
        return Err(Framing::NotFramed(why, block.split_off(from)));
    }
    if let Some(at) = arc::later_header_line(block) {
        let why = format!(
            "the content read to the member's end holds what looks like a later record's header line {at} bytes \
             in, so the member holds more records than one and the length is damage"
        );
        return Err(Framing::NotFramed(why, block.split_off(from)));
    }
    if block.ends_with(b"\n") {
        block.pop();
    }
    Ok(After::Done)
}

/// Consumes the empty lines (LF or CRLF) at the start of `src`: what separates ARC records.
fn skip_blank_lines<B: BufRead>(src: &mut B) -> io::Result<()> {
    loop {
        let n = match src.fill_buf()? {
            [b'\n', ..] => 1,
            [b'\r', b'\n', ..] => 2,
            // A CR the buffer ends on: its LF comes with the next fill (no header line starts with CR).
            [b'\r'] => 1,
            _ => return Ok(()),
        };
        src.consume(n);
    }
}

/// The version, header fields and block of the uncompressed record at the start of `src`: a WARC record,
/// or an ARC record when it begins with an ARC header line (then `arc` becomes the file's ARC version).
/// With `framed` (the member's name: gzip member, zstd frame), `src` is a decoded member whose end may frame a
/// WARC record ([`read_warc_record`]). Errors name `path` and `offset`.
fn read_record<B: BufRead>(
    src: &mut B,
    path: &Path,
    offset: u64,
    limit: u64,
    arc: &mut Option<String>,
    framed: Option<&str>,
) -> Result<Parts, Error> {
    let start = src.fill_buf().map_err(|source| Error::Read {
        path: path.to_owned(),
        offset,
        source,
    })?;
    // A WACZ package given for its WARCs (xt21b F7: its zip bytes were shown as a bad version line).
    if offset == 0 && arc.is_none() && start.starts_with(b"PK\x03\x04") {
        return Err(Error::Malformed {
            path: path.to_owned(),
            offset,
            expected: "a WARC or ARC file".to_owned(),
            found: "a zip file: a WACZ package holds its WARCs in archive/ (unzip it and give that folder; \
                    `wacz validate` checks the package)"
                .to_owned(),
        });
    }
    if !b"WARC/".starts_with(&start[..start.len().min(5)]) {
        let arc_line_expected = || Error::Malformed {
            path: path.to_owned(),
            offset,
            expected: ARC_LINE.to_owned(),
            found: String::new(),
        };
        if start.contains(&b'\n') {
            let line = start
                .split_inclusive(|&b| b == b'\n')
                .next()
                .unwrap_or_default();
            if arc::parse_line_in(line, arc.as_deref()).is_some() {
                return read_arc_record(src, path, offset, limit, arc, None);
            }
            if arc.is_some() {
                return Err(with_found(arc_line_expected(), line));
            }
        } else {
            // The first line runs past what is buffered: read it whole to tell what it is.
            let mut line = Vec::new();
            read_head_line(src, &mut line).map_err(|source| Error::Read {
                path: path.to_owned(),
                offset,
                source,
            })?;
            if arc::parse_line_in(&line, arc.as_deref()).is_some() {
                return read_arc_record(src, path, offset, limit, arc, Some(line));
            }
            // The file ends before the line does, and what it holds begins as a header line does: an ARC cut
            // short in a header line. Other bytes there (a record's content beyond a length too short, zero
            // padding) are damage, as before (review 70 R3).
            if arc.is_some()
                && !line.ends_with(b"\n")
                && (line.len() as u64) < MAX_HEAD_BYTES
                && begins_as_a_header_line(&line)
            {
                return Err(Error::CutInHeader {
                    path: path.to_owned(),
                    offset,
                    found: excerpt(&line),
                });
            }
            let err = if arc.is_some() {
                arc_line_expected()
            } else {
                Error::Malformed {
                    path: path.to_owned(),
                    offset,
                    expected: NOT_A_RECORD.to_owned(),
                    found: String::new(),
                }
            };
            return Err(with_found(err, &line));
        }
    }
    read_warc_record(src, path, offset, limit, framed)
}

/// Whether `bytes` (the end of a file, no newline) could be the start of an ARC header line: printable text
/// whose first word begins with a URL scheme (`http:`, `filedesc:`, `dns:`), or is one cut short.
fn begins_as_a_header_line(bytes: &[u8]) -> bool {
    let printable = bytes.iter().all(|&b| b.is_ascii_graphic() || b == b' ');
    let scheme = bytes.split(|&b| b == b':').next().unwrap_or_default();
    printable
        && scheme.first().is_some_and(u8::is_ascii_alphabetic)
        && scheme
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
}

/// What the reader expects at the start of a record of an ARC file.
const ARC_LINE: &str =
    "an ARC header line \"URL IP-address Archive-date Content-type Archive-length\"";

/// `err` (a [`Error::Malformed`]) saying it found `bytes`.
fn with_found(mut err: Error, bytes: &[u8]) -> Error {
    if let Error::Malformed { found, .. } = &mut err {
        *found = excerpt(bytes);
    }
    err
}

/// Appends one line of `src` (up to and with its `\n`) to `buf`, reading at most [`MAX_HEAD_BYTES`].
fn read_head_line<B: BufRead>(src: &mut B, buf: &mut Vec<u8>) -> io::Result<usize> {
    src.by_ref().take(MAX_HEAD_BYTES).read_until(b'\n', buf)
}

/// Reads up to `length` bytes of a block into `block`, its room taken once for the declared length: grown by
/// doubling, a 400 MB record took 2.3x its size. The room is address space until written, so a length that
/// a short or bomb member never fills costs no memory; where it cannot be had, the block grows as it comes.
fn read_block<B: BufRead>(src: &mut B, length: u64, block: &mut Vec<u8>) -> io::Result<usize> {
    if let Ok(room) = usize::try_from(length) {
        let _ = block.try_reserve_exact(room);
    }
    src.by_ref().take(length).read_to_end(block)
}

/// A [`Error::TooLarge`] when the block `length` of the record at `offset` is over `limit`.
fn check_length(path: &Path, offset: u64, length: u64, limit: u64) -> Result<(), Error> {
    if length > limit {
        return Err(Error::TooLarge {
            path: path.to_owned(),
            offset,
            len: length,
            limit,
        });
    }
    Ok(())
}

/// Reads one ARC record: its header line (unless `line` holds it, already read), then Archive-length bytes
/// (none when the length is not a byte count). The `filedesc://` record sets the file's version in `arc`.
fn read_arc_record<B: BufRead>(
    src: &mut B,
    path: &Path,
    offset: u64,
    limit: u64,
    arc: &mut Option<String>,
    line: Option<Vec<u8>>,
) -> Result<Parts, Error> {
    let read_err = |source| Error::Read {
        path: path.to_owned(),
        offset,
        source,
    };
    let line = match line {
        Some(line) => line,
        None => {
            let mut line = Vec::new();
            read_head_line(src, &mut line).map_err(read_err)?;
            line
        }
    };
    let mut head = arc::parse_line_in(&line, arc.as_deref()).ok_or_else(|| Error::Malformed {
        path: path.to_owned(),
        offset,
        expected: ARC_LINE.to_owned(),
        found: excerpt(&line),
    })?;
    let filedesc = arc::is_filedesc_url(&head.fields[0].1);
    let length = head.length.unwrap_or(0);
    check_length(path, offset, length, limit)?;
    let mut block = Vec::new();
    if filedesc && head.length.is_none() {
        // As warcio does: a filedesc record's version block and field-name line are read anyway.
        for _ in 0..2 {
            read_head_line(src, &mut block).map_err(read_err)?;
        }
    } else {
        // A record cut short by the end of the file is kept as it is, as warcio keeps it; `verify` says so.
        read_block(src, length, &mut block).map_err(read_err)?;
    }
    if filedesc {
        let version = arc::version(&block).unwrap_or_else(|| "ARC/1.0".to_owned());
        // Its own line was read before the version was known: in a v2 file it has ten fields (the length, last
        // in both layouts, framed the record alike).
        if arc::is_v2(&version)
            && let Some(v2) = arc::parse_line_v2(&line)
        {
            head = v2;
        }
        *arc = Some(version);
    }
    let version = arc.get_or_insert_with(|| "ARC/1.0".to_owned()).clone();
    Ok(Parts {
        version,
        header: head.fields,
        block,
        raw_header: line,
        member_end: MemberEnd::Whole,
    })
}

/// Reads one uncompressed WARC record (header, block, CRLFCRLF) from `src`; errors name `path` and `offset`.
/// With `framed` (its name: gzip member, zstd frame), `src` is what a member holds from the record on, whole:
/// where its Content-Length disagrees with the member, a member holding the record's block and CRLF CRLF to
/// its end frames it ([`framed::frames`]), as it frames an ARC record (xt30a F3); its block is then the
/// member's.
fn read_warc_record<B: BufRead>(
    src: &mut B,
    path: &Path,
    offset: u64,
    limit: u64,
    framed: Option<&str>,
) -> Result<Parts, Error> {
    let malformed = |expected: &str, found: String| Error::Malformed {
        path: path.to_owned(),
        offset,
        expected: expected.to_owned(),
        found,
    };
    let read_err = |source| Error::Read {
        path: path.to_owned(),
        offset,
        source,
    };

    // Check the start first so that garbage is reported as such, not as an overlong header.
    let start = src.fill_buf().map_err(read_err)?;
    if !b"WARC/".starts_with(&start[..start.len().min(5)]) {
        return Err(malformed(NOT_A_RECORD, excerpt(start)));
    }

    // The header block: lines up to an empty one.
    let mut head = Vec::new();
    let mut limited = src.by_ref().take(MAX_HEAD_BYTES);
    loop {
        let line_start = head.len();
        let n = limited.read_until(b'\n', &mut head).map_err(read_err)?;
        let line = &head[line_start..];
        if n == 0 || !line.ends_with(b"\n") {
            if limited.limit() == 0 {
                return Err(Error::TooLarge {
                    path: path.to_owned(),
                    offset,
                    len: MAX_HEAD_BYTES,
                    limit: MAX_HEAD_BYTES,
                });
            }
            return Err(malformed(
                "an empty line ending the header",
                format!("{} then end of input", excerpt(line)),
            ));
        }
        if line_start > 0 && (line == b"\r\n" || line == b"\n") {
            break;
        }
    }
    let parsed = header::parse(&head).map_err(|e| malformed(&e.expected, e.found))?;

    let bad_header = |name: &str, problem: String| Error::BadHeader {
        path: path.to_owned(),
        offset,
        name: name.to_owned(),
        problem,
    };
    let length = record::get(&parsed.fields, "Content-Length")
        .ok_or_else(|| bad_header("Content-Length", "missing".to_owned()))?;
    let length: u64 = length
        .parse()
        .map_err(|_| bad_header("Content-Length", format!("{length:?} is not a byte count")))?;
    // In a member, a length over the limit may be the damage rather than the record's size: the member's end
    // says which (xt32a F3: a length of 10^15 in a 600-byte member was taken for a record over 1 GiB).
    if framed.is_none() {
        check_length(path, offset, length, limit)?;
    }

    // A length over the limit is framed by a small member only: past FRAME_SLACK the record is taken to be as
    // large as it says, and refused without more read (review 78 M3).
    let wanted = match length > limit {
        true => FRAME_SLACK.min(limit).saturating_add(1),
        false => length,
    };
    let mut block = Vec::new();
    read_block(src, wanted, &mut block).map_err(read_err)?;
    if length > limit && block.len() as u64 == wanted {
        return Err(Error::TooLarge {
            path: path.to_owned(),
            offset,
            len: length,
            limit,
        });
    }
    if (block.len() as u64) < length {
        // The member ended first: a length too long, unless the member is cut short (a decoder's error).
        if framed.is_some()
            && let Some((has, end)) = framed::frames(&parsed.fields, &block, false)
        {
            block.truncate(has);
            // The room taken for the length said is not kept.
            block.shrink_to_fit();
            return Ok(parts(parsed, block, head, end));
        }
        return Err(malformed(
            &format!("a block of {length} bytes (Content-Length)"),
            format!("{} bytes then end of input", block.len()),
        ));
    }

    let mut end = Vec::with_capacity(4);
    src.by_ref()
        .take(4)
        .read_to_end(&mut end)
        .map_err(read_err)?;
    let whole = end == b"\r\n\r\n";
    // The bytes after the block that are not its CRLF CRLF: a file cut there (fewer than four: said as a cut,
    // the records before are whole), or a length that is wrong.
    let not_ended = |end: &[u8]| {
        let found = match end.len() {
            1..=3 => format!("{} then end of input", excerpt(end)),
            _ => excerpt(end),
        };
        malformed(
            "CRLF CRLF after the block as long as Content-Length says (is the length right?)",
            found,
        )
    };
    let Some(member) = framed else {
        // A plain file, or one gzip member holding every record, that ends inside the CRLF CRLF after its last
        // record: the block whole as its WARC-Block-Digest says, the record is kept as a member so ended is
        // (xt34a F4: warcio keeps it); else a cut.
        let cut_ending = end.len() < 4
            && b"\r\n\r\n".starts_with(&end)
            && framed::block_digest(&parsed.fields, &block) == Some(true);
        return match (whole, cut_ending) {
            (true, _) => Ok(parts(parsed, block, head, MemberEnd::Whole)),
            (false, true) => {
                let short = MemberEnd::Short((4 - end.len()) as u8);
                Ok(parts(parsed, block, head, short))
            }
            (false, false) => Err(not_ended(&end)),
        };
    };
    if whole && ends_or_goes_on(src).map_err(read_err)? {
        return Ok(parts(parsed, block, head, MemberEnd::Whole));
    }
    // A length too short (xt32a F1: or one that ends right before a CRLF CRLF inside the block, which then reads
    // as the record's end): the rest of the member, up to FRAME_SLACK (or the length again) more, may be the
    // rest of the block. Beyond it a decompression bomb, or a length too far off to take the member's word. It is
    // read into the block itself: nothing is held twice (xt32a F7, review 78 L1).
    let allowed = (limit.saturating_sub(length)).min(FRAME_SLACK.max(length));
    let said = block.len();
    block.extend_from_slice(&end);
    let read = src
        .by_ref()
        .take(allowed.saturating_add(1))
        .read_to_end(&mut block)
        .map_err(read_err)?;
    let rest = &block[said + end.len()..];
    let more = excerpt(rest);
    // The member ends inside the CRLF CRLF after the block: its trailer is short, or its length too long by
    // as much. After a whole record, nothing but CR and LF: an extra CRLF its writer put in the member, or a
    // length short by as much. Only the digest tells a wrong length from these (review 77 H1, review 78 M1).
    let short_trailer = !whole && rest.is_empty() && b"\r\n\r\n".starts_with(&end);
    let blank_after = whole && rest.iter().all(|b| matches!(b, b'\r' | b'\n'));
    if read as u64 <= allowed {
        // With no digest, an HTTP message the length leaves unended (a request's final CRLF CRLF; a response's
        // chunked body before its last chunk: review 79 M3) is framed: its length is what is short. A revisit
        // or a body its writer cut (WARC-Truncated) ends where it ends (review 80 H2).
        let declared = framed::block_digest(&parsed.fields, &block[..said]);
        let http = declared.is_none()
            && record::get(&parsed.fields, "Content-Type")
                .is_some_and(|t| t.contains("application/http"));
        let head_cut = http && memchr::memmem::find(&block[..said], b"\r\n\r\n").is_none();
        let chunk_cut = http
            && !head_cut
            && record::get(&parsed.fields, "WARC-Type") == Some("response")
            && record::get(&parsed.fields, "WARC-Truncated").is_none()
            && crate::digest::chunked_body_unended(&block[..said]);
        let need_digest = short_trailer || (blank_after && !head_cut && !chunk_cut);
        // A block its digest says is whole, its length right and the member's end cutting into the CRLF CRLF
        // after it (xt32b F4: writers do so, warcio keeps the record), is one of these too.
        if let Some((has, end)) = framed::frames(&parsed.fields, &block, need_digest) {
            block.truncate(has);
            return Ok(parts(parsed, block, head, end));
        }
        if blank_after && declared != Some(false) && !head_cut {
            // The length stands: the blank lines after the record are the member's, as between plain records
            // (xt33a F3: `verify` fails them as it fails those). So too where a chunked body seemed cut but the
            // member's end frames no longer block.
            let blank = MemberEnd::Blank(block.len() - said - end.len());
            block.truncate(said);
            return Ok(parts(parsed, block, head, blank));
        }
    }
    if short_trailer {
        // No digest says which of the two the record is, or one matches neither.
        let digest = match framed::block_digest(&parsed.fields, &block[..said]) {
            Some(false) => "its WARC-Block-Digest matches no block the member may end",
            _ => "no WARC-Block-Digest of an algorithm known here says the block is whole",
        };
        return Err(malformed(
            "CRLF CRLF after the block as long as Content-Length says",
            format!(
                "{} then the end of the {member}: the record's ending is cut, or its length too long by as much \
                 ({digest})",
                excerpt(&end)
            ),
        ));
    }
    if whole {
        // What follows the record in its member is no record: as said when the next record is read.
        return Err(malformed(
            &format!(
                "the {member} to end after its record of {length} bytes (Content-Length), or another record: \
                 {NOT_A_RECORD}"
            ),
            more,
        ));
    }
    Err(not_ended(&end))
}

/// A WARC record's [`Parts`]: its header as parsed and as written, its block, and how its member ends after it.
fn parts(
    parsed: header::Head,
    block: Vec<u8>,
    raw_header: Vec<u8>,
    member_end: MemberEnd,
) -> Parts {
    Parts {
        version: parsed.version,
        header: parsed.fields,
        block,
        raw_header,
        member_end,
    }
}

/// Whether a member's first record, read whole, is all the member holds or is followed by another record (a
/// file compressed as one stream): then its length framed it. Anything else after it means its length is wrong.
fn ends_or_goes_on<B: BufRead>(src: &mut B) -> io::Result<bool> {
    let next = src.fill_buf()?;
    Ok(next.is_empty() || b"WARC/".starts_with(&next[..next.len().min(5)]))
}

/// Whether the file at `path` holds nothing but zero bytes from `offset` to its end.
pub(crate) fn zeros_after(path: &Path, offset: u64) -> bool {
    use std::io::{Read, Seek};
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    if file.seek(std::io::SeekFrom::Start(offset)).is_err() {
        return false;
    }
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match file.read(&mut buf) {
            Ok(0) => return true,
            Ok(n) if buf[..n].iter().all(|&b| b == 0) => {}
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Record;
    use chrono::{TimeZone, Utc};
    use flate2::write::GzEncoder;
    use proptest::prelude::*;
    use std::io::Write;

    fn gz(bytes: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    fn read_all(bytes: &[u8]) -> Result<Vec<ReadRecord>, Error> {
        Reader::new(bytes).with_path("t.warc").collect()
    }

    const REC: &[u8] = b"WARC/1.1\r\nWARC-Type: resource\r\nContent-Length: 2\r\n\r\nhi\r\n\r\n";
    /// [`REC`] with the WARC-Block-Digest of its block: what follows it is no part of it.
    const REC_DIGEST: &[u8] = b"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Block-Digest: sha1:YIVV7ELYGQTASQUNN5I3FRNPJQF542SC\r\nContent-Length: 2\r\n\r\nhi\r\n\r\n";

    /// cdxj-indexer counts an uncompressed WARC record without the CRLFCRLF after it (warcio.warc, written by
    /// warcio 1.8: every `length` 4 less than the record's span), a gzip member whole.
    #[test]
    fn index_lengths_as_cdxj_indexer_counts_them() {
        let plain = read_all(&[REC, REC].concat()).unwrap();
        assert_eq!(
            (plain[1].len, plain[1].index_len),
            (REC.len() as u64, REC.len() as u64 - 4)
        );
        let member = gz(REC);
        let gzipped = read_all(&member).unwrap();
        assert_eq!(
            (gzipped[0].len, gzipped[0].index_len),
            (member.len() as u64, member.len() as u64)
        );
    }

    #[test]
    fn reads_plain_gzip_and_mixed() {
        let plain2 = [REC, REC].concat();
        let recs = read_all(&plain2).unwrap();
        assert_eq!(recs.len(), 2);
        assert_eq!((recs[0].offset, recs[0].len), (0, REC.len() as u64));
        assert_eq!(
            (recs[1].offset, recs[1].len),
            (REC.len() as u64, REC.len() as u64)
        );
        assert_eq!(recs[1].block, b"hi");
        assert_eq!(recs[1].version, "WARC/1.1");
        assert_eq!(recs[1].get("warc-type"), Some("resource"));

        let member = gz(REC);
        let mixed = [member.clone(), REC.to_vec(), member.clone(), gz(b"")].concat();
        let recs = read_all(&mixed).unwrap();
        let spans: Vec<_> = recs.iter().map(|r| (r.offset, r.len)).collect();
        let m = member.len() as u64;
        let p = REC.len() as u64;
        assert_eq!(spans, [(0, m), (m, p), (m + p, m)]);

        // Whole-file gzip: both records share the member.
        let whole = gz(&plain2);
        let recs = read_all(&whole).unwrap();
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[1].offset, 0);
        assert_eq!(recs[1].len, whole.len() as u64);
    }

    #[test]
    fn rejects_garbage_naming_offset() {
        let member = gz(REC);
        let mut bad_crc = member.clone();
        let n = bad_crc.len();
        bad_crc[n - 8] ^= 1;
        let cases: Vec<(Vec<u8>, String)> = vec![
            (b"hello".to_vec(), "t.warc: record at offset 0: expected a version line such as \"WARC/1.1\", found \"hello\"".into()),
            ([REC_DIGEST, b"junk"].concat(), format!("t.warc: record at offset {}: expected a version line such as \"WARC/1.1\", found \"junk\"", REC_DIGEST.len())),
            // With no digest to say its block is whole, the record before junk is the damage (review 76 R3).
            ([REC, b"junk"].concat(), format!("t.warc: record at offset 0: expected a record's version line (\"WARC/1.1\") after this record's block of 2 bytes (Content-Length) and its CRLF CRLF: what follows them at offset {} may be the rest of its block, the length too short (no WARC-Block-Digest tells whether the block is whole), found \"junk\"", REC.len())),
            (b"WARC/1.1\r\nContent-Length: 2\r\n".to_vec(), "t.warc: record at offset 0: expected an empty line ending the header, found end of input then end of input".into()),
            (b"WARC/1.1\r\nA: b\r\n\r\nhi\r\n\r\n".to_vec(), "t.warc: record at offset 0: header Content-Length: missing".into()),
            (b"WARC/1.1\r\nContent-Length: -1\r\n\r\n".to_vec(), "t.warc: record at offset 0: header Content-Length: \"-1\" is not a byte count".into()),
            (b"WARC/1.1\r\nContent-Length: 5\r\n\r\nhi".to_vec(), "t.warc: record at offset 0: expected a block of 5 bytes (Content-Length), found 2 bytes then end of input".into()),
            (b"WARC/1.1\r\nContent-Length: 1\r\n\r\nhi\r\n\r\n".to_vec(), "t.warc: record at offset 0: expected CRLF CRLF after the block as long as Content-Length says (is the length right?), found \"i\\r\\n\\r\"".into()),
            (b"WARC/1.1\r\nContent-Length: 99999999999\r\n\r\n".to_vec(), "t.warc: record at offset 0: 99999999999 bytes exceed the limit of 1073741824".into()),
            ([REC.to_vec(), member[..member.len() - 3].to_vec()].concat(), format!("t.warc: record at offset {}: bad gzip member: ", REC.len())),
            (bad_crc, "t.warc: record at offset 0: bad gzip member: ".into()),
            (b"\x1f\x00abc".to_vec(), "t.warc: record at offset 0: bad gzip member: ".into()),
            (gz(b"nope"), "t.warc: record at offset 0: expected a version line such as \"WARC/1.1\", found \"nope\"".into()),
        ];
        for (input, want) in cases {
            let err = read_all(&input).unwrap_err().to_string();
            assert!(err.starts_with(&want), "got  {err}\nwant {want}");
        }
    }

    #[test]
    fn arc_problems_name_the_offset() {
        let cases: &[(&[u8], &str)] = &[
            (
                b"filedesc://f.arc 0.0.0.0 20140216050221 text/plain 9\n1 0 Test\n\ngarbage line\n",
                "t.warc: record at offset 63: expected an ARC header line \"URL IP-address Archive-date Content-type Archive-length\", found \"garbage line\\n\"",
            ),
            (
                b"filedesc://f.arc 0.0.0.0 20140216050221 text/plain 99999999999\n",
                "t.warc: record at offset 0: 99999999999 bytes exceed the limit of 1073741824 that trawl's WARC \
                 tools read (a record is held whole in memory): the file may be sound (cdxj-indexer and warcio \
                 read such records), or the length is damaged or the file cut short (`ls -l` shows its size)",
            ),
        ];
        for (input, want) in cases {
            let err = read_all(input).unwrap_err().to_string();
            assert_eq!(&err, want);
        }
        // Cut short by the end of the file: read as it is (as warcio reads it).
        let recs =
            read_all(b"filedesc://f.arc 0.0.0.0 20140216050221 text/plain 90\n1 0 Test\n").unwrap();
        assert_eq!(recs[0].block, b"1 0 Test\n");
        // A filedesc record whose length is not a number still holds its two lines, as warcio reads it.
        let recs = read_all(b"filedesc://f 0.0.0.0 20140216050221 text/plain -1\n1 0 X\nURL IP\n\nhttp://a/ 1.2.3.4 20140216050221 text/html 0\n").unwrap();
        assert_eq!(
            (recs.len(), recs[0].block.as_slice()),
            (2, &b"1 0 X\nURL IP\n"[..])
        );
    }

    #[test]
    fn an_arc_header_with_a_space_in_its_content_type_is_read() {
        // Some ARC producers kept a content type's parameters; a split from the right alone lost the rest of
        // the file at such a line (xt15a F17).
        let body = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 2\r\n\r\nhi";
        let mut file =
            String::from("filedesc://s.arc 0.0.0.0 20140216050220 text/plain 9\n1 0 Test\n\n");
        for head in [
            "http://a/1 1.2.3.4 20140216050220 text/html",
            "http://a/2 1.2.3.4 20140216050221 text/html; charset=utf-8",
            "http://a/3  1.2.3.4 20140216050222  text/html",
        ] {
            file.push_str(&format!("{head} {}\n{body}\n", body.len()));
        }
        let recs = read_all(file.as_bytes()).unwrap();
        let got: Vec<_> = recs
            .iter()
            .map(|r| (r.get("URL").unwrap(), r.get("Content-type").unwrap()))
            .collect();
        assert_eq!(
            got[1..],
            [
                ("http://a/1", "text/html"),
                ("http://a/2", "text/html; charset=utf-8"),
                ("http://a/3", "text/html")
            ]
        );
        assert!(recs[1..].iter().all(|r| r.block == body.as_bytes()));
    }

    #[test]
    fn arc_header_lines_across_buffer_refills() {
        // A small buffer ends mid-line at most record starts: each line must still be read whole.
        let file =
            std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(
                "testdata/webarchive-commons/IAH-20080430204825-00000-blackbook-truncated.arc",
            ))
            .unwrap();
        let whole = read_all(&file).unwrap();
        for capacity in [2, 7, 64, 1000] {
            let small = std::io::BufReader::with_capacity(capacity, &file[..]);
            let recs: Vec<_> = Reader::new(small).collect::<Result<_, _>>().unwrap();
            assert_eq!(recs, whole, "capacity {capacity}");
        }
        // CRLF blank lines split by a refill.
        let crlf: &[u8] = b"filedesc://f 0.0.0.0 20140216050221 text/plain 6\n1 0 X\n\r\n\r\n\
            http://a/ 1.2.3.4 20140216050221 text/html 0\n\r\n";
        for capacity in 1..12 {
            let small = std::io::BufReader::with_capacity(capacity, crlf);
            let recs: Vec<_> = Reader::new(small).collect::<Result<_, _>>().unwrap();
            assert_eq!(recs.len(), 2, "capacity {capacity}");
            assert_eq!(recs[1].offset, 59, "capacity {capacity}");
        }
        let err = Reader::new(std::io::BufReader::with_capacity(
            4,
            &b"not an archive at all\n"[..],
        ))
        .next()
        .unwrap()
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "<stream>: record at offset 0: expected a version line such as \"WARC/1.1\", found \"not an archive at all\\n\""
        );
    }

    #[test]
    fn stops_after_an_error() {
        let input = [REC_DIGEST, b"junk", REC].concat();
        let results: Vec<_> = Reader::new(&input[..]).collect();
        assert_eq!(results.len(), 2);
        assert!(results[0].is_ok() && results[1].is_err());
    }

    /// The first record of `input` read with a limit of `limit` bytes: its error.
    fn first_error(input: &[u8], limit: u64) -> Error {
        Reader::new(input)
            .with_max_record_bytes(limit)
            .next()
            .unwrap()
            .unwrap_err()
    }

    #[test]
    fn record_limit() {
        let err = first_error(REC, 1);
        assert!(
            matches!(
                err,
                Error::TooLarge {
                    len: 2,
                    limit: 1,
                    ..
                }
            ),
            "{err}"
        );
        let err = first_error(&gz(REC), 10);
        assert!(matches!(err, Error::TooLarge { limit: 10, .. }), "{err}");
        // A length over the limit, its member holding more than the limit: refused with the length it says (the
        // framing of xt32a F3 reads no further).
        let err = first_error(&gz(&warc_rec(&[b'x'; 100], 200, false)), 50);
        assert!(
            matches!(
                err,
                Error::TooLarge {
                    len: 200,
                    limit: 50,
                    ..
                }
            ),
            "{err}"
        );
    }

    /// A member inflating far beyond its record (a decompression bomb) is refused after the record, giving its
    /// declared length, without inflating it to the reader's limit.
    #[test]
    fn a_member_inflating_beyond_its_record_is_refused_by_its_length() {
        let zeros = vec![0u8; 1 << 20];
        let arc_head: &[u8] = b"filedesc://b.arc 0.0.0.0 20080430204825 text/plain 9\n1 0 Test\n\n";
        let bomb = [
            &b"http://a.example/bomb 1.2.3.4 20080430204825 text/html 10\n0123456789"[..],
            &zeros,
        ]
        .concat();
        let arc = [gz(arc_head), gz(&bomb)].concat();
        let warc = gz(&[REC, &zeros].concat());
        let zst = zstd::encode_all(&[REC, &zeros].concat()[..], 3).unwrap();
        // An ARC record's member may frame it (xt25b F6): within the reader's limit, which this one is not.
        let err = Reader::new(&arc[..])
            .with_max_record_bytes(1000)
            .find_map(Result::err)
            .unwrap();
        assert!(
            matches!(err, Error::TooLarge { offset, limit: 1000, .. } if offset == gz(arc_head).len() as u64),
            "{err}"
        );
        let cases: [(&[u8], u64, &str); 2] = [
            (
                &warc,
                0,
                "the gzip member to end after its record of 2 bytes (Content-Length), or another record: a \
              version line",
            ),
            (
                &zst,
                0,
                "the zstd frame to end after its record of 2 bytes (Content-Length), or another record: a \
              version line",
            ),
        ];
        for (input, at, want) in cases {
            // A limit far below the inflated size: the record is read, the rest is not held.
            let err = Reader::new(input)
                .with_max_record_bytes(1000)
                .find_map(Result::err)
                .unwrap();
            let Error::Malformed {
                offset,
                expected,
                found,
                ..
            } = &err
            else {
                panic!("{err}");
            };
            assert_eq!(*offset, at, "{err}");
            assert!(expected.starts_with(want), "{err}");
            assert!(found.starts_with("\"\\x00\\x00"), "{err}");
        }
        // A length too short in a member per record, which holds the rest of the content (lines of text, not
        // a header line): the member frames the record (xt25b F6).
        let short = [
            gz(arc_head),
            gz(b"http://a/ 1.2.3.4 20080430204825 text/html 2\nHTTP/1.0 200 OK\r\n\r\n\n"),
        ]
        .concat();
        let read = read_all(&short).unwrap();
        assert_eq!(read[1].block, b"HTTP/1.0 200 OK\r\n\r\n");
        // Beyond the reader's limit, it is refused as too large.
        let err = Reader::new(&short[..])
            .with_max_record_bytes(10)
            .find_map(Result::err)
            .unwrap();
        assert!(matches!(err, Error::TooLarge { limit: 10, .. }), "{err}");
        // A member inflating far beyond its record (FRAME_SLACK) is refused before it is all inflated, whatever
        // the reader's limit (review 74 R2).
        let bomb = [
            gz(arc_head),
            gz(&[
                &b"http://a/ 1.2.3.4 20080430204825 text/html 10\n0123456789"[..],
                &vec![b'a'; (FRAME_SLACK + (1 << 20)) as usize],
            ]
            .concat()),
        ]
        .concat();
        let err = read_all(&bomb).unwrap_err().to_string();
        assert!(
            err.contains(
                "expected the gzip member to end after its record of 10 bytes (Archive-length)"
            ),
            "{err}"
        );
    }

    /// A WARC record of `block` whose Content-Length says `says`, with the block's digest when `digest`.
    fn warc_rec(block: &[u8], says: usize, digest: bool) -> Vec<u8> {
        let digest = if digest {
            format!("WARC-Block-Digest: {}\r\n", crate::sha1_digest(block))
        } else {
            String::new()
        };
        let head = format!(
            "WARC/1.1\r\nWARC-Type: response\r\nContent-Type: application/http;msgtype=response\r\n\
             {digest}Content-Length: {says}\r\n\r\n"
        );
        [head.as_bytes(), block, b"\r\n\r\n"].concat()
    }

    /// xt30a F3: in a `.warc.gz` (or `.warc.zst`) of one member per record, a WARC record whose Content-Length
    /// disagrees with its member is read as its member frames it, as warcio reads it, when the block is whole
    /// (its digest matches, or with none, it holds no later record); [`ReadRecord::framed`] names the length,
    /// and the records after it are read.
    #[test]
    fn a_warc_record_its_member_frames_is_read_whole_and_the_next_ones_too() {
        let block = b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello\r\n\r\nworld";
        let n = block.len();
        let zst = |b: &[u8]| zstd::encode_all(b, 3).unwrap();
        for says in [0, 1, 3, n - 7, n - 1, n + 1, n + 3, n + 7, n + 100_000] {
            for digest in [true, false] {
                for compress in [gz as fn(&[u8]) -> Vec<u8>, zst] {
                    let file = [
                        compress(&warc_rec(block, says, digest)),
                        compress(REC),
                        compress(REC),
                    ]
                    .concat();
                    let read = read_all(&file).unwrap_or_else(|e| panic!("{says} {digest}: {e}"));
                    assert_eq!(read.len(), 3, "{says}");
                    assert_eq!(read[0].block, block, "{says}");
                    let framed = read[0].framed().expect("framed");
                    assert_eq!((framed.says, framed.has), (says as u64, n));
                    assert!(read[1].framed().is_none() && read[2].framed().is_none());
                    let mut mended = read[0].clone();
                    mended.mend_length();
                    assert!(mended.framed().is_none());
                    assert_eq!(
                        read_all(&compress(
                            &[&mended.raw_header[..], block, b"\r\n\r\n"].concat()
                        ))
                        .unwrap()[0]
                            .block,
                        block
                    );
                }
            }
        }
        // A digest that does not match: the length may be right and the block damaged, not framed.
        let mut wrong = warc_rec(block, n - 7, true);
        let at = wrong.len() - 8;
        wrong[at] ^= 1;
        let err = read_all(&[gz(&wrong), gz(REC)].concat()).unwrap_err();
        assert!(
            err.to_string()
                .contains("expected CRLF CRLF after the block"),
            "{err}"
        );
        // A member ending without the CRLF CRLF that ends a record: cut short, not framed.
        let rec = warc_rec(block, n + 7, false);
        let err = read_all(&gz(&rec[..rec.len() - 4])).unwrap_err();
        assert!(err.to_string().contains("expected a block of"), "{err}");
        // A file gzipped as one stream, the first length too short: its member holds the records after it.
        let one = gz(&[warc_rec(block, n - 7, false), REC.to_vec()].concat());
        assert!(read_all(&one).is_err());
        // A plain file has no member to frame a record.
        assert!(read_all(&warc_rec(block, n - 7, true)).is_err());
    }

    /// xt32a F1: a length that ends right before a CRLF CRLF inside the block (a request's head, 2 or 4 bytes
    /// short) reads as a whole record with more after it in the member: framed too. Review 77 H1: a right length
    /// whose member ends inside the CRLF CRLF after it (a short trailer) is not taken for a wrong one, unless the
    /// digest says so. Review 77 M2: a length too long with no digest may be a block cut short by its writer.
    /// xt32a F3: a length over the limit in a small member is the damage, not the record's size.
    #[test]
    fn a_length_ending_on_a_crlf_crlf_inside_the_block_is_framed_and_a_short_trailer_is_not() {
        let request = b"GET / HTTP/1.1\r\nHost: a\r\n\r\n";
        let n = request.len();
        for says in [n - 4, n - 2, n - 1, 16] {
            for digest in [true, false] {
                let file = [gz(&warc_rec(request, says, digest)), gz(REC)].concat();
                let read = read_all(&file).unwrap_or_else(|e| panic!("{says} {digest}: {e}"));
                assert_eq!(
                    (read.len(), &read[0].block[..]),
                    (2, &request[..]),
                    "{says}"
                );
                assert!(read[0].framed().is_some());
            }
        }
        // The length right, the member ending 2 bytes into the CRLF CRLF after the block (or at it): the trailer
        // is what is short, not the length. With a digest that says the block is whole, the record is read
        // whole, marked (xt32b F4); without one, with a wrong one or one of an unknown algorithm, it is the
        // damage, said so (review 79 L3, L4).
        let digest_line = format!("WARC-Block-Digest: {}\r\n", crate::sha1_digest(request));
        for cut in [1, 2, 4] {
            let rec = warc_rec(request, n, false);
            let err = read_all(&gz(&rec[..rec.len() - cut])).unwrap_err();
            assert!(
                err.to_string()
                    .contains("the record's ending is cut, or its length too long"),
                "{cut}: {err}"
            );
            for other in [
                "WARC-Block-Digest: sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\r\n",
                "WARC-Block-Digest: sha3:ABCDEF\r\n",
            ] {
                let rec = String::from_utf8(warc_rec(request, n, true))
                    .unwrap()
                    .replace(&digest_line, other);
                assert!(rec.contains(other));
                let rec = rec.as_bytes();
                let err = read_all(&gz(&rec[..rec.len() - cut])).unwrap_err();
                assert!(
                    err.to_string().contains("CRLF CRLF after the block"),
                    "{cut} {other}: {err}"
                );
            }
            let rec = warc_rec(request, n, true);
            let read = read_all(&[gz(&rec[..rec.len() - cut]), gz(REC)].concat()).unwrap();
            assert_eq!((read.len(), &read[0].block[..]), (2, &request[..]));
            let framed = read[0].framed().unwrap();
            assert_eq!(
                (framed.says, framed.has, framed.end, framed.sure),
                (n as u64, n, MemberEnd::Short(cut as u8), true)
            );
            let mut mended = read[0].clone();
            mended.mend_length();
            assert_eq!(mended, read[0], "the header is left as it was");
        }
        // A length line as its writer spaced and wrote it is left so (review 79 L2).
        let odd = String::from_utf8(warc_rec(request, n, true))
            .unwrap()
            .replace(
                &format!("Content-Length: {n}"),
                &format!("Content-Length:0{n}"),
            );
        let read = read_all(&gz(&odd.as_bytes()[..odd.len() - 2])).unwrap();
        let mut mended = read[0].clone();
        mended.mend_length();
        assert!(
            String::from_utf8_lossy(&mended.raw_header)
                .contains(&format!("Content-Length:0{n}\r\n"))
        );
        // A right length, an extra CRLF in the member after the record, no digest: the length stands (review 78
        // M1), and the record after it is read.
        let block = b"HTTP/1.1 200 OK\r\n\r\nhi\r\n";
        let extra = [&warc_rec(block, block.len(), false)[..], b"\r\n"].concat();
        let read = read_all(&[gz(&extra), gz(REC)].concat()).unwrap();
        assert_eq!((read.len(), &read[0].block[..]), (2, &block[..]));
        assert!(read[0].framed().is_none());
        assert_eq!(read[0].member_end, MemberEnd::Blank(2));
        // A chunked body whose length leaves out its last CRLF, no digest: the HTTP message is unended, so what
        // follows in the member is the rest of the block (review 79 M3).
        let chunked =
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
        let short = warc_rec(chunked, chunked.len() - 2, false);
        let read = read_all(&[gz(&short), gz(REC)].concat()).unwrap();
        assert_eq!((read.len(), &read[0].block[..]), (2, &chunked[..]));
        assert_eq!(read[0].framed().map(|f| f.has), Some(chunked.len()));
        // Whole, with an extra CRLF: the length stands.
        let extra = [&warc_rec(chunked, chunked.len(), false)[..], b"\r\n"].concat();
        let read = read_all(&gz(&extra)).unwrap();
        assert_eq!(
            (&read[0].block[..], read[0].member_end),
            (&chunked[..], MemberEnd::Blank(2))
        );
        // In a plain file, a request 2 or 4 bytes short with a digest that says so is the damage at its offset,
        // though blank lines and a record follow what reads as its end (review 78 H1).
        for short in [2, 4] {
            let file = [&warc_rec(request, n - short, true)[..], REC].concat();
            let err = read_all(&file).unwrap_err();
            assert_eq!(err.offset(), Some(0), "{short}: {err}");
            assert!(
                err.to_string().contains("does not match the block"),
                "{err}"
            );
        }
        // A request 4 bytes short whose member lacks a byte of its trailer, no digest: what follows is blank, but
        // the length leaves the HTTP head unended, so it does not stand (xt33a F2).
        let rec = warc_rec(request, n - 4, false);
        assert!(read_all(&gz(&rec[..rec.len() - 1])).is_err());
        // A length too long by 2, the trailer whole: the digest says the length is wrong.
        let read = read_all(&gz(&warc_rec(request, n + 2, true))).unwrap();
        assert_eq!(read[0].block, request);
        // Too long with no digest: read as the member frames it, marked cut when mended.
        let read = read_all(&gz(&warc_rec(request, n + 50, false))).unwrap();
        let framed = read[0].framed().unwrap();
        assert!(framed.maybe_cut() && !framed.sure, "{framed:?}");
        let mut mended = read[0].clone();
        mended.mend_length();
        assert_eq!(mended.get("WARC-Truncated"), Some("unspecified"));
        assert!(
            String::from_utf8_lossy(&mended.raw_header)
                .contains("WARC-Truncated: unspecified\r\n\r\n")
        );
        let read = read_all(&gz(&warc_rec(request, n + 50, true))).unwrap();
        let mut mended = read[0].clone();
        mended.mend_length();
        assert_eq!(mended.get("WARC-Truncated"), None);
        // A length of 10^15 in a member of a few bytes: framed, not refused as too large.
        let read = read_all(&gz(&warc_rec(request, 1_000_000_000_000_000, true))).unwrap();
        assert_eq!(read[0].block, request);
    }

    /// xt34a F4: a plain file, or one gzip member of every record, ending inside its last record's CRLF CRLF
    /// keeps that record where its digest says its block is whole (as a member so ended), else it is a cut.
    #[test]
    fn a_file_ending_inside_its_last_ending_keeps_a_record_its_digest_proves() {
        for left in 0..4 {
            let cut = &REC_DIGEST[..REC_DIGEST.len() - 4 + left];
            let plain = [REC, cut].concat();
            for (bytes, holder) in [
                (plain.clone(), "the file holds"),
                (gz(&plain), "its gzip member"),
            ] {
                let read = read_all(&bytes).unwrap();
                assert_eq!(read.len(), 2, "{left}");
                assert_eq!(read[1].block, b"hi");
                assert_eq!(read[1].member_end, MemberEnd::Short(4 - left as u8));
                if holder == "the file holds" {
                    // As cdxj-indexer counts a plain record: without what it has of its CRLF CRLF.
                    assert_eq!(read[1].index_len, REC_DIGEST.len() as u64 - 4, "{left}");
                }
                let framed = read[1].framed().unwrap();
                assert!(framed.ending_only(), "{left}");
                assert!(framed.to_string().starts_with(holder), "{framed}");
                assert!(read[0].framed().is_none());
            }
            let undigested = [REC, &REC[..REC.len() - 4 + left]].concat();
            assert!(read_all(&undigested).is_err(), "{left}");
        }
        // A digest that does not match: a cut.
        let wrong = String::from_utf8_lossy(REC_DIGEST).replace("hi\r\n", "ho\r\n");
        assert!(read_all(&wrong.as_bytes()[..wrong.len() - 2]).is_err());
    }

    /// xt38b N11: a file of a member per record, its last member missing some of its 8-byte trailer (CRC-32
    /// and size), keeps that record where its digest proves its block whole, as warcio and cdxj-indexer keep
    /// it; `verify` fails it. Without a digest, or cut inside the deflate stream, it is a cut as before; a file
    /// compressed as one stream keeps its records with the cut said after them.
    #[test]
    fn a_last_member_missing_its_trailer_keeps_a_record_its_digest_proves() {
        let last = gz(REC_DIGEST);
        for missing in 1..=8 {
            let file = [&gz(REC)[..], &last[..last.len() - missing]].concat();
            let read = read_all(&file).unwrap();
            assert_eq!(read.len(), 2, "{missing}");
            assert_eq!((&read[1].block[..], read[1].unsealed), (&b"hi"[..], true));
            assert_eq!(read[1].len, (last.len() - missing) as u64);
            assert!(!read[0].unsealed && read[0].framed().is_none());
            let framed = read[1].framed().unwrap();
            assert!(framed.ending_only() && framed.unsealed, "{framed:?}");
            assert!(
                framed.to_string().contains("before the checksum"),
                "{framed}"
            );
            let undigested = gz(REC);
            let file = [&gz(REC)[..], &undigested[..undigested.len() - missing]].concat();
            let err = read_all(&file).unwrap_err();
            assert_eq!(err.offset(), Some(gz(REC).len() as u64), "{missing}: {err}");
        }
        // Cut inside the deflate stream: the block's end is not there.
        let err = read_all(&last[..last.len() - 14]).unwrap_err();
        assert_eq!(err.offset(), Some(0), "{err}");
        // One stream of two records, its trailer cut: both kept, the cut said after them.
        let stream = gz(&[REC_DIGEST, REC_DIGEST].concat());
        let mut reader = Reader::new(&stream[..stream.len() - 3]).with_path("t.warc.gz");
        assert!(reader.next().unwrap().is_ok() && reader.next().unwrap().is_ok());
        assert!(reader.next().unwrap().is_err());
    }

    /// `rec` (a record of [`warc_rec`]) with `line` (a field and its CRLF) after its version line.
    fn with_line(rec: &[u8], line: &str) -> Vec<u8> {
        [&rec[..10], line.as_bytes(), &rec[10..]].concat()
    }

    /// xt34a F1, F2, xt32b F5: a length wrong as well as the member's ending odd (cut, or CR and LF after it):
    /// the digest says where the block ends, read so (F1), or, where the length reads as a whole record, found
    /// by the tools that compute the digest ([`ReadRecord::digest_frames`]: F2, F5), and taken only where the
    /// payload digest agrees (review 80 H1).
    #[test]
    fn a_wrong_length_with_an_odd_ending_is_framed_by_the_digest() {
        let block = b"HTTP/1.1 200 OK\r\n\r\nhello\r\n";
        let n = block.len();
        for says in [n + 2, n + 1, n - 1] {
            let rec = warc_rec(block, says, true);
            let read = read_all(&[gz(&rec[..rec.len() - 2]), gz(REC)].concat()).unwrap();
            assert_eq!((read.len(), &read[0].block[..]), (2, &block[..]), "{says}");
            let framed = read[0].framed().unwrap();
            assert_eq!(
                (framed.says, framed.end, framed.ending_only()),
                (says as u64, MemberEnd::Short(2), false)
            );
            assert!(framed.mended().ends_with("and its CRLF CRLF whole"));
        }
        // An extra CRLF and a length 2 too long; the ending 2 bytes short and a length 2 short: each reads as a
        // whole record as its length says, which its block digest does not match.
        let payload = format!(
            "WARC-Payload-Digest: {}\r\n",
            crate::sha1_digest(b"hello\r\n")
        );
        let extra = [&warc_rec(block, n + 2, true)[..], b"\r\n"].concat();
        let cut = warc_rec(block, n - 2, true);
        for (member, end) in [
            (&extra[..], MemberEnd::Blank(2)),
            (&cut[..cut.len() - 2], MemberEnd::Short(2)),
        ] {
            // The payload digest agrees with the block the member frames: taken.
            let mut read = read_all(&gz(&with_line(member, &payload)))
                .unwrap()
                .remove(0);
            assert_ne!(read.block.len(), n);
            let found = read.digest_frames().unwrap();
            assert_eq!((found.has, found.end, found.corroborated), (n, end, true));
            read.take_framing(&found);
            assert_eq!((&read.block[..], read.member_end), (&block[..], end));
            assert_eq!(read.framed().map(|f| f.has), Some(n));
            // None to say: named, kept as read.
            let mut read = read_all(&gz(member)).unwrap().remove(0);
            let found = read.digest_frames().unwrap();
            assert!(!found.corroborated);
            assert!(
                found
                    .to_string()
                    .contains("or the digest is of other bytes"),
                "{found}"
            );
        }
        // A record whose length and payload digest agree, its block digest of 2 bytes less: as read.
        let longer = [&block[..], b"\r\n"].concat();
        let own = format!(
            "WARC-Payload-Digest: {}\r\n",
            crate::sha1_digest(b"hello\r\n\r\n")
        );
        let rec = String::from_utf8(warc_rec(&longer, longer.len(), true))
            .unwrap()
            .replace(&crate::sha1_digest(&longer), &crate::sha1_digest(block));
        let mut read = read_all(&gz(&with_line(rec.as_bytes(), &own)))
            .unwrap()
            .remove(0);
        assert!(!read.digest_frames().unwrap().corroborated);
        // A revisit is never asked; a sound record, or one whose digest matches nothing, finds nothing.
        let revisit = String::from_utf8(extra.clone())
            .unwrap()
            .replace("WARC-Type: response", "WARC-Type: revisit");
        assert!(
            read_all(&gz(revisit.as_bytes())).unwrap()[0]
                .clone()
                .digest_frames()
                .is_none()
        );
        let mut read = read_all(&gz(&warc_rec(block, n, true))).unwrap().remove(0);
        assert!(read.digest_frames().is_none());
        let wrong = String::from_utf8(warc_rec(block, n, true))
            .unwrap()
            .replace(&crate::sha1_digest(block), &crate::sha1_digest(b"x"));
        let mut read = read_all(&gz(wrong.as_bytes())).unwrap().remove(0);
        assert!(read.digest_frames().is_none());
    }

    /// Review 80 H2: a revisit of a chunked response (its head, no body), a 304, or a chunked body its writer cut,
    /// with no digest and CR or LF after it in its member: the length stands, the record kept as written.
    #[test]
    fn a_chunked_head_without_a_cut_body_keeps_its_length() {
        let head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
        let not_modified = b"HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n";
        let cut = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel";
        for (block, kind) in [
            (&head[..], "WARC-Type: revisit"),
            (&not_modified[..], "WARC-Type: response"),
            (&cut[..], "WARC-Type: response\r\nWARC-Truncated: length"),
        ] {
            for extra in [&b"\r\n"[..], b"\n"] {
                let rec = String::from_utf8(warc_rec(block, block.len(), false))
                    .unwrap()
                    .replace("WARC-Type: response", kind);
                let member = [rec.as_bytes(), extra].concat();
                let read = read_all(&[gz(&member), gz(REC)].concat()).unwrap();
                assert_eq!(
                    (read.len(), &read[0].block[..], read[0].member_end),
                    (2, block, MemberEnd::Blank(extra.len())),
                    "{kind} {extra:?}"
                );
            }
        }
    }

    /// xt32b F2, F3, F6: blank lines before a plain record (the first too) or the end of the file are passed
    /// over and counted (verify fails them), never the record's damage; a BOM before the first record is damage
    /// read past, the record kept.
    #[test]
    fn blank_lines_around_plain_records_cost_no_record() {
        let spaces = " ".repeat(70);
        for (file, records) in [
            ([b"\r\n", REC, b"\r\n\r\n", REC, b"\n"].concat(), 2),
            ([REC, spaces.as_bytes()].concat(), 1),
            ([REC, b"\r\n\0\0\0"].concat(), 1),
        ] {
            let mut reader = Reader::new(&file[..]);
            let ok = reader.by_ref().take_while(Result::is_ok).count();
            assert_eq!(ok, records, "{:?}", file.escape_ascii().to_string());
        }
        // 200 blank bytes at the end: passed over, nothing after the record (xt33a F1).
        let file = [REC, "\r\n".repeat(100).as_bytes()].concat();
        let read: Vec<_> = Reader::new(&file[..]).collect();
        assert!(read.len() == 1 && read[0].is_ok(), "{read:?}");
        // Records naming no warcinfo, with no digest, a CRLF after each: every one read (review 78 H2).
        let five = [REC, b"\r\n"].concat().repeat(5);
        let read: Vec<_> = Reader::new(&five[..]).collect();
        assert!(
            read.len() == 5 && read.iter().all(Result::is_ok),
            "{read:?}"
        );
        let file = [b"\r\n", REC, b"\r\n\r\n", REC, b"\n"].concat();
        let mut reader = Reader::new(&file[..]);
        assert_eq!(reader.by_ref().filter(Result::is_ok).count(), 2);
        assert_eq!(reader.blank_lines(), Some((0, 3)));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.warc");
        std::fs::write(&path, [&b"\xef\xbb\xbf"[..], REC, REC].concat()).unwrap();
        let mut reader = open(&path).unwrap();
        let err = reader.next().unwrap().unwrap_err();
        assert_eq!(reader.read_on_after(&err).unwrap(), Some(3));
        assert_eq!(reader.filter(Result::is_ok).count(), 2);
        let rec =
            || crate::Record::metadata("http://a/", chrono::Utc::now(), &[("a", "b")]).to_bytes();
        let file = [&b"\r\n"[..], &rec(), b"\r\n\r\n", &rec(), b"\n"].concat();
        std::fs::write(&path, &file).unwrap();
        let err = crate::verify(&path).unwrap_err().to_string();
        assert!(
            err.contains("blank lines at offset 0, before a record (and before 2 more records)"),
            "{err}"
        );
    }

    /// xt32b F1: a file gzipped as one stream and cut short keeps the records read whole before the cut; one
    /// whose stream is damaged keeps none.
    #[test]
    fn a_one_stream_file_cut_short_keeps_the_records_before_the_cut() {
        let whole = gz(&[REC_DIGEST, REC_DIGEST, REC_DIGEST].concat());
        let cut = &whole[..whole.len() - 12];
        let read: Vec<_> = Reader::new(cut).collect();
        assert!(read.iter().filter(|r| r.is_ok()).count() >= 1, "{read:?}");
        assert!(
            matches!(read.last(), Some(Err(Error::Gzip { .. }))),
            "{read:?}"
        );
        let mut bad = whole.clone();
        let at = bad.len() - 8;
        bad[at] ^= 1;
        let read: Vec<_> = Reader::new(&bad[..]).collect();
        assert!(read.len() == 1 && read[0].is_err(), "{read:?}");
    }

    /// xt32a F4: in a file gzipped as one stream, a record that does not read costs the records from it on, not
    /// those before it; the one just before "what is no record" only with its digest to say it is whole.
    #[test]
    fn a_one_stream_file_keeps_the_records_before_its_damage() {
        let block = b"HTTP/1.1 200 OK\r\n\r\nhello";
        let n = block.len();
        let file = gz(&[
            REC_DIGEST,
            REC_DIGEST,
            &warc_rec(block, n + 7, true),
            REC_DIGEST,
        ]
        .concat());
        let read: Vec<_> = Reader::new(&file[..]).collect();
        assert_eq!(read.len(), 3, "{read:?}");
        assert!(read[0].is_ok() && read[1].is_ok());
        let err = read[2].as_ref().unwrap_err().to_string();
        assert!(err.contains("CRLF CRLF after the block"), "{err}");
        // What follows the second record is no record: with no digest, the second is left out too.
        for (second, kept) in [(REC, 1), (REC_DIGEST, 2)] {
            let file = gz(&[REC_DIGEST, second, b"junk", REC].concat());
            let read: Vec<_> = Reader::new(&file[..]).collect();
            assert_eq!(read.iter().filter(|r| r.is_ok()).count(), kept, "{read:?}");
            let err = read.last().unwrap().as_ref().unwrap_err().to_string();
            assert!(
                err.contains("the gzip member to end after its record of 2 bytes"),
                "{err}"
            );
        }
    }

    /// Review 76 R3: in a plain WARC, a record whose Content-Length is too short and ends on a CRLF CRLF inside
    /// its block reads whole: what follows it (not a record's version line) makes it the damage, at its offset,
    /// unless its digest says its block is whole; then the junk after it is the damage.
    #[test]
    fn a_plain_record_before_what_is_no_record_is_the_damage_unless_its_digest_matches() {
        let block = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
        let head_end = memchr::memmem::find(block, b"\r\n\r\n").unwrap();
        for digest in [true, false] {
            let short = warc_rec(block, head_end, digest);
            let file = [REC_DIGEST, &short, REC_DIGEST].concat();
            let err = read_all(&file).unwrap_err();
            assert_eq!(err.offset(), Some(REC_DIGEST.len() as u64), "{err}");
            assert!(err.to_string().contains("the length too short"), "{err}");
        }
        // Its digest matches (the junk was put after a whole record): the junk is the damage.
        let file = [REC_DIGEST, b"junk", REC].concat();
        let err = read_all(&file).unwrap_err();
        assert_eq!(err.offset(), Some(REC_DIGEST.len() as u64), "{err}");
        assert!(err.to_string().contains("found \"junkWARC"), "{err}");
        // What may follow a whole record: the next (after blank lines or not: xt32a F6), zero bytes padding the
        // file, a gzip member, a skippable frame, blank lines and the end, the end.
        let skippable = [0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0];
        for after in [
            REC,
            b"\0\0\0",
            &gz(REC),
            b"",
            b"WAR",
            &skippable,
            &[b"\r\n", REC].concat(),
            &[b"\n\n  ", REC].concat(),
            b"\r\n",
        ] {
            let read = Reader::new(&[REC, after].concat()[..]).next().unwrap();
            assert!(read.is_ok(), "{after:?}: {read:?}");
        }
    }

    /// xt25b F6: in an `.arc.gz` of one member per record, a record whose Archive-length disagrees with its
    /// member (too short, too long) is read as its member frames it, the newline ending it left out, and the
    /// records after it are read; [`arc::flaws`] names the length. (A length short by only the newlines that
    /// end its content cannot be told from blank lines between records: it reads so, as warcio reads it.)
    #[test]
    fn a_record_its_member_frames_is_read_whole_and_the_next_ones_too() {
        let content = |i: usize| format!("HTTP/1.0 200 OK\r\n\r\n<html>\n{i}</html>").into_bytes();
        let records: Vec<ArcRec> = (0..3)
            .map(|i| arc_rec(&format!("r{i}"), &content(i)))
            .collect();
        let (plain, offsets) = arc_file(&records, 1, false);
        let text = String::from_utf8(plain).unwrap();
        let says = content(1).len();
        let cut = |i: usize| offsets.get(i).map_or(text.len(), |&o| o as usize);
        for k in [-10i64, -1, 2, 30] {
            let wrong = (says as i64 + k).to_string();
            let members: Vec<Vec<u8>> = (0..4)
                .map(|i| {
                    let part = &text[cut(i)..cut(i + 1)];
                    let part = if i == 2 {
                        part.replacen(&format!(" {says}\n"), &format!(" {wrong}\n"), 1)
                    } else {
                        part.to_owned()
                    };
                    gz(part.as_bytes())
                })
                .collect();
            let read = read_all(&members.concat()).unwrap();
            assert_eq!(read.len(), 4, "{k}");
            assert_eq!(read[2].block, content(1), "{k}");
            assert_eq!(read[3].block, content(2), "{k}");
            assert_eq!(arc::damage(&read[2], false), None, "{k}");
            assert_eq!(
                arc::flaws(&read[2]).first(),
                Some(&arc::Problem::Framed {
                    says: wrong.parse().unwrap(),
                    has: says,
                    within: Compression::Gzip
                }),
                "{k}"
            );
            assert_eq!(arc::problem(&read[3], false), None, "{k}");
        }
        // A long content of one line (minified script), its length far too short: framed whatever the decoder's
        // output left buffered (review 74 R1).
        let line = [&b"HTTP/1.0 200 OK\r\n\r\n"[..], &vec![b'x'; 300_000]].concat();
        let (js_plain, js_offsets) =
            arc_file(&[arc_rec("js", &line), arc_rec("after", b"ok")], 1, false);
        let js = String::from_utf8(js_plain).unwrap();
        let at = |i: usize| js_offsets.get(i).map_or(js.len(), |&o| o as usize);
        let short = js[at(1)..at(2)].replacen(
            &format!(" {}\n", line.len()),
            &format!(" {}\n", line.len() - 100_000),
            1,
        );
        let file = [
            gz(&js.as_bytes()[..at(1)]),
            gz(short.as_bytes()),
            gz(&js.as_bytes()[at(2)..]),
        ]
        .concat();
        let read = read_all(&file).unwrap();
        assert_eq!(read.len(), 3);
        assert_eq!(read[1].block, line);
        assert_eq!(read[2].block, b"ok");
        // A member holding two records, the first's length too long by a few bytes: it ends inside the
        // second's header line. Not one record framed (xt27b F2), nor a second record `ttp://…` (xt27b F3):
        // damage, said at the member. (Too long by one, it takes in only the newline between them: the next
        // header line is whole, and both records read as they are.)
        for k in [2usize, 3, 5, 12, 30, 60] {
            let wrong = (says + k).to_string();
            let two =
                text[cut(2)..cut(4)].replacen(&format!(" {says}\n"), &format!(" {wrong}\n"), 1);
            let file = [
                gz(&text.as_bytes()[..cut(2)]),
                gz(two.as_bytes()),
                gz(&text.as_bytes()[cut(4)..]),
            ]
            .concat();
            let err = read_all(&file).unwrap_err().to_string();
            assert!(
                err.contains(&format!(
                    "expected the gzip member to end after its record of {wrong} bytes"
                )),
                "{k}: {err}"
            );
        }
        // The same file as one gzip stream: one member frames no record, so a length too short is damage.
        let wrong = text.replacen(&format!(" {says}\n"), &format!(" {}\n", says - 10), 2);
        assert!(read_all(&gz(wrong.as_bytes())).is_err());
    }

    /// An ARC v2 file (version block `2 0`, header lines of ten fields) reads with its fields where they are,
    /// plain or one gzip member per record.
    #[test]
    fn reads_arc_v2() {
        let desc: &[u8] =
            b"2 0 Alexa Internet\nURL IP-address Archive-date Content-type Result-code Checksum \
            Location Offset Filename Archive-length\n";
        let http: &[u8] = b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\nv2 page";
        let recs = [
            [
                format!("filedesc://v2.arc 0.0.0.0 20000430204825 text/plain 200 - - 0 v2.arc {}\n", desc.len()).as_bytes(),
                desc,
                b"\n",
            ]
            .concat(),
            [
                format!(
                    "http://www.example.com/v2 a 10.0.0.1 20000430204826 text/html 200 d41d8cd98f00b204e9800998ecf8427e \
                     - 120 v2.arc {}\n",
                    http.len()
                )
                .as_bytes(),
                http,
                b"\n",
            ]
            .concat(),
        ];
        for file in [recs.concat(), recs.iter().flat_map(|r| gz(r)).collect()] {
            let read = read_all(&file).unwrap();
            assert_eq!(read.len(), 2);
            assert_eq!(read[0].version, "ARC/2.0");
            assert_eq!(read[0].get("URL"), Some("filedesc://v2.arc"));
            assert_eq!(read[0].get("Filename"), Some("v2.arc"));
            let rec = &read[1];
            let fields: Vec<&str> = rec.header.iter().map(|(_, v)| v.as_str()).collect();
            assert_eq!(
                fields,
                [
                    "http://www.example.com/v2 a",
                    "10.0.0.1",
                    "20000430204826",
                    "text/html",
                    "200",
                    "d41d8cd98f00b204e9800998ecf8427e",
                    "-",
                    "120",
                    "v2.arc",
                    "51"
                ]
            );
            assert_eq!(rec.block, http);
            assert_eq!(crate::arc::problem(rec, false), None);
            assert_eq!(
                crate::ls_line(rec),
                "?\tresponse\thttp://www.example.com/v2%20a\tapplication/http;msgtype=response\t51\t-"
                    .replace('?', &rec.offset.to_string())
            );
            let capture = crate::cdxj::Capture::of(&rec.warc_header(), &rec.block).unwrap();
            let line = capture.line(rec.index_len, rec.offset, "v2.arc");
            assert!(
                line.starts_with("com,example)/v2%20a 20000430204826 "),
                "{line}"
            );
        }
    }

    #[test]
    fn open_names_the_path() {
        let err = open(Path::new("/nonexistent/x.warc")).unwrap_err();
        assert!(
            err.to_string().starts_with("/nonexistent/x.warc: "),
            "{err}"
        );
    }

    fn arb_record() -> impl Strategy<Value = Record> {
        (
            "[a-z]{1,10}",
            proptest::collection::vec(("X-[A-Za-z]{1,8}", "[ -~]{0,20}"), 0..4),
            proptest::collection::vec(any::<u8>(), 0..200),
        )
            .prop_map(|(path, fields, block)| {
                let date = Utc.with_ymd_and_hms(2026, 11, 22, 8, 25, 1).unwrap();
                let mut rec = Record::response(&format!("http://a/{path}"), date, None, block);
                for (n, v) in fields {
                    rec.set(&n, v.trim());
                }
                rec
            })
    }

    /// An ARC record: URL (maybe with spaces), IP address, date, content type, content.
    type ArcRec = (String, String, String, String, Vec<u8>);

    fn arb_arc_record() -> impl Strategy<Value = ArcRec> {
        (
            "(http|https|dns):[a-z/.]{1,12}( [a-zA-Z]{1,5}){0,2}",
            "[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}",
            "20[0-9]{12}",
            "[a-z]{1,5}/[a-z]{1,5}",
            proptest::collection::vec(any::<u8>(), 0..120),
        )
    }

    /// An ARC file of `records` after a filedesc header, each record followed by `blank` newlines; the
    /// offset of each record in the plain file.
    fn arc_file(records: &[ArcRec], blank: usize, gzip: bool) -> (Vec<u8>, Vec<u64>) {
        let desc: &[u8] = b"1 0 Test\nURL IP-address Archive-date Content-type Archive-length\n";
        let all = std::iter::once((
            "filedesc://t.arc".to_owned(),
            "0.0.0.0".to_owned(),
            "20140216050221".to_owned(),
            "text/plain".to_owned(),
            desc.to_vec(),
        ))
        .chain(records.iter().cloned());
        let (mut file, mut offsets) = (Vec::new(), Vec::new());
        for (url, ip, date, ct, content) in all {
            let mut rec = format!("{url} {ip} {date} {ct} {}\n", content.len()).into_bytes();
            rec.extend_from_slice(&content);
            rec.extend(std::iter::repeat_n(b'\n', blank));
            offsets.push(file.len() as u64);
            file.extend(if gzip { gz(&rec) } else { rec });
        }
        (file, offsets)
    }

    /// An http ARC record of `content` at `http://a.org/PATH`.
    fn arc_rec(path: &str, content: &[u8]) -> ArcRec {
        (
            format!("http://a.org/{path}"),
            "1.2.3.4".to_owned(),
            "20140216050221".to_owned(),
            "text/html".to_owned(),
            content.to_vec(),
        )
    }

    /// xt25b F5: an Archive-length a few bytes too long in a plain ARC took in the newline after its record and
    /// the first letters of the next one's URL; the rest read as a header line (`ttp://…`) and both records as
    /// sound. After no newline, a header line must name a URL of a known scheme; with one it reads as before.
    #[test]
    fn a_length_running_into_the_next_header_line_is_damage() {
        let records = [arc_rec("a", b"hello"), arc_rec("b", b"world")];
        let (file, offsets) = arc_file(&records, 1, false);
        for k in [2, 3] {
            let text = String::from_utf8(file.clone()).unwrap();
            let long = text.replacen("text/html 5\n", &format!("text/html {}\n", 5 + k), 1);
            let err = read_all(long.as_bytes()).unwrap_err();
            let at = offsets[2] + k as u64 - 1;
            assert!(
                matches!(&err, Error::Malformed { offset, expected, .. }
                    if *offset == at && expected.contains("known scheme")),
                "{err}"
            );
        }
        let (unseparated, _) = arc_file(&records, 0, false);
        assert_eq!(read_all(&unseparated).unwrap().len(), 3);
    }

    /// xt25b F1: in an `.arc.gz`, a record whose content is an ARC file (a capture of one) is framed by its own
    /// gzip member: it is sound, where the same plain record reads as a length that swallowed records.
    #[test]
    fn a_captured_arc_file_in_its_own_member_is_content() {
        let (inner, _) = arc_file(&[arc_rec("x", b"hello")], 1, false);
        let records = [arc_rec("sample.arc", &inner), arc_rec("b", b"world")];
        let one_stream = || gz(&arc_file(&records, 1, false).0);
        for (gzip, swallows) in [(true, false), (false, true)] {
            let (file, _) = arc_file(&records, 1, gzip);
            let read = read_all(&file).unwrap();
            assert_eq!(read.len(), 3, "gzip {gzip}");
            let problem = arc::damage(&read[1], false);
            assert_eq!(
                matches!(problem, Some(arc::Problem::Swallows { .. })),
                swallows,
                "gzip {gzip}: {problem:?}"
            );
        }
        // A file gzipped as one stream holds every record in one member, which frames none of them (review
        // 73 R8): there the record reads as in a plain file.
        let read = read_all(&one_stream()).unwrap();
        assert!(
            matches!(
                arc::damage(&read[1], false),
                Some(arc::Problem::Swallows { .. })
            ),
            "{:?}",
            arc::damage(&read[1], false)
        );
    }

    /// A `.warc.zst` file with a dictionary frame and 40 records compressed with it, and the records.
    fn zstd_dictionary_file() -> &'static (Vec<u8>, Vec<Record>) {
        static FILE: std::sync::OnceLock<(Vec<u8>, Vec<Record>)> = std::sync::OnceLock::new();
        FILE.get_or_init(|| {
            let date = Utc.with_ymd_and_hms(2026, 11, 22, 8, 25, 1).unwrap();
            let recs: Vec<Record> = (0..40)
                .map(|n| {
                    let body = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>page {n} {}</p>",
                        "x".repeat(n)
                    );
                    Record::response(&format!("http://a/{n}"), date, None, body.into_bytes())
                })
                .collect();
            let plains: Vec<Vec<u8>> = recs.iter().map(Record::to_bytes).collect();
            let dict = crate::ZstdDictionary::train(&plains).unwrap();
            let mut file = dict.frame();
            let mut c = zstd::bulk::Compressor::with_dictionary(3, dict.as_bytes()).unwrap();
            for p in &plains {
                file.extend(c.compress(p).unwrap());
            }
            (file, recs)
        })
    }

    #[test]
    fn reads_a_zstd_dictionary_file() {
        let (file, recs) = zstd_dictionary_file();
        let read = read_all(file).unwrap();
        assert_eq!(read.len(), recs.len());
        for (got, want) in read.iter().zip(recs) {
            assert_eq!(
                (&got.header, got.block.as_slice()),
                (&want.header().to_vec(), want.block())
            );
        }
        // Without its dictionary, a record's frame does not decode: an error naming the dictionary it needs.
        let first = read[0].offset as usize;
        let err = read_all(&file[first..]).unwrap_err();
        let id = u32::from_le_bytes(
            crate::parse_dictionary_frame(&file[..first], 1 << 20)
                .unwrap()
                .as_bytes()[4..8]
                .try_into()
                .unwrap(),
        );
        assert!(
            matches!(err, Error::ZstdDictionaryId { offset: 0, needs, has: None, .. } if needs == id),
            "{err}"
        );
    }

    /// A record frame that needs a dictionary the file does not have names the ID it needs and what the file
    /// has, where zstd says only "Dictionary mismatch"; its header is read across refills of a small buffer.
    #[test]
    fn zstd_frame_needing_another_dictionary_names_both() {
        let (file, _) = zstd_dictionary_file();
        let first = 8 + u32::from_le_bytes(file[4..8].try_into().unwrap()) as usize;
        let id = crate::parse_dictionary_frame(&file[..first], 1 << 20)
            .unwrap()
            .id();
        let other_samples: Vec<Vec<u8>> = (0..60)
            .map(|n| format!("WARC/1.1\r\nX-Other: {n} {}\r\n\r\n", "y".repeat(n * 3)).into_bytes())
            .collect();
        let other = crate::ZstdDictionary::train(&other_samples).unwrap();
        assert_ne!(other.id(), id);
        let mut c = zstd::bulk::Compressor::with_dictionary(3, other.as_bytes()).unwrap();
        let foreign = c.compress(REC).unwrap();
        let mixed = [&file[..first], &foreign].concat();
        for capacity in [1 << 16, 7, 19] {
            let err = Reader::new(BufReader::with_capacity(capacity, &mixed[..]))
                .find_map(Result::err)
                .unwrap();
            assert!(
                matches!(err, Error::ZstdDictionaryId { needs, has: Some(has), .. } if needs == other.id() && has == id),
                "{capacity}: {err}"
            );
            assert_eq!(err.offset(), Some(first as u64));
            let message = err.to_string();
            assert!(
                message.contains(&format!(
                    "bad zstd frame: it was compressed with the zstd dictionary of ID {}, and the file's dictionary \
                     frame holds the one of ID {id}",
                    other.id()
                )),
                "{message}"
            );
        }
        let err = read_all(&file[first..]).unwrap_err().to_string();
        assert!(
            err.contains(&format!(
                "the zstd dictionary of ID {id}, and the file has no dictionary frame"
            )),
            "{err}"
        );
    }

    /// A dictionary frame anywhere but at the start of the file (files concatenated, or after an extension
    /// frame) is refused, naming its offset and how to mend the file.
    #[test]
    fn zstd_dictionary_frame_not_at_the_start_is_refused() {
        let (file, recs) = zstd_dictionary_file();
        let concatenated = [&file[..], &file[..]].concat();
        let results: Vec<_> = Reader::new(&concatenated[..]).collect();
        assert_eq!(results.iter().filter(|r| r.is_ok()).count(), recs.len());
        let Some(Err(err)) = results.last() else {
            panic!("no error");
        };
        let at = file.len() as u64;
        assert!(
            matches!(err, Error::ZstdDictionary { offset, problem: DictionaryProblem::NotAtStart, .. } if *offset == at),
            "{err}"
        );
        let message = err.to_string();
        for want in [
            format!("the zstd dictionary frame at offset {at} is not at the start of the file"),
            "files with a dictionary cannot be concatenated".to_owned(),
            format!("`tail -c +{} FILE`", at + 1),
            "trawl warc recompress".to_owned(),
        ] {
            assert!(message.contains(&want), "{want}: {message}");
        }
        // After a record frame without a dictionary too.
        let plain = zstd::encode_all(REC, 3).unwrap();
        let err = read_all(&[&plain[..], &file[..]].concat()).unwrap_err();
        assert!(
            matches!(
                err,
                Error::ZstdDictionary {
                    problem: DictionaryProblem::NotAtStart,
                    ..
                }
            ),
            "{err}"
        );
        // An extension frame first: the spec has a file with a dictionary begin with it.
        let extension = [
            &0x184D_2A50u32.to_le_bytes()[..],
            &4u32.to_le_bytes(),
            b"abcd",
        ]
        .concat();
        let err = read_all(&[&extension[..], &file[..]].concat()).unwrap_err();
        assert!(
            matches!(
                err,
                Error::ZstdDictionary {
                    offset: 12,
                    problem: DictionaryProblem::AfterExtensionFrame,
                    ..
                }
            ),
            "{err}"
        );
        assert!(
            err.to_string()
                .contains("`tail -c +13 FILE > OUT.warc.zst`"),
            "{err}"
        );
        // Extension frames elsewhere are still skipped.
        let first = 8 + u32::from_le_bytes(file[4..8].try_into().unwrap()) as usize;
        let with_extension = [
            &file[..first],
            &extension[..],
            &file[first..],
            &extension[..],
        ]
        .concat();
        assert_eq!(read_all(&with_extension).unwrap().len(), recs.len());
    }

    /// However the input's buffer fills split the file, a skippable frame's magic cut between two fills is
    /// still a skippable frame: the records, their offsets and the refusals are the same for every fill size.
    #[test]
    fn frames_read_alike_whatever_the_buffer_fills() {
        let (file, _) = zstd_dictionary_file();
        let extension = [
            &0x184D_2A50u32.to_le_bytes()[..],
            &4u32.to_le_bytes(),
            b"abcd",
        ]
        .concat();
        let first = 8 + u32::from_le_bytes(file[4..8].try_into().unwrap()) as usize;
        let with_extension = [
            &file[..first],
            &extension[..],
            &file[first..],
            &extension[..],
        ]
        .concat();
        let whole = read_all(&with_extension).unwrap();
        let refused = read_all(&[&extension[..], &file[..]].concat())
            .unwrap_err()
            .to_string();
        for capacity in 1..=16 {
            let small = |bytes: &[u8]| -> Result<Vec<ReadRecord>, Error> {
                Reader::new(io::BufReader::with_capacity(capacity, bytes))
                    .with_path("t.warc")
                    .collect()
            };
            let read = small(&with_extension).unwrap();
            let spans = |r: &[ReadRecord]| {
                r.iter()
                    .map(|r| (r.offset, r.len, r.block.clone()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(spans(&read), spans(&whole), "capacity {capacity}");
            let err = small(&[&extension[..], &file[..]].concat())
                .unwrap_err()
                .to_string();
            assert_eq!(err, refused, "capacity {capacity}");
        }
    }

    /// A file cut inside the dictionary frame's 8-byte header says so, not "failed to fill whole buffer".
    #[test]
    fn zstd_dictionary_header_cut_short() {
        let (file, _) = zstd_dictionary_file();
        for cut in 4..8 {
            let err = read_all(&file[..cut]).unwrap_err();
            assert!(
                matches!(err, Error::ZstdDictionary { offset: 0, problem: DictionaryProblem::HeaderCut { have }, .. } if have == cut as u64),
                "{err}"
            );
            assert!(err.to_string().contains(&format!("the zstd dictionary frame at offset 0 is cut short: the file ends {cut} bytes into its 8-byte header")), "{err}");
        }
    }

    /// A dictionary frame over 8 MiB, compressed or inflated, is refused at offset 0 naming the limit, before
    /// it is read or inflated (a 1 GiB bomb took 3.7 GB of memory).
    #[test]
    fn zstd_dictionary_over_8_mib_is_refused() {
        use crate::zstd_dictionary::tests::{frame_of, zeros_frame};
        let (file, _) = zstd_dictionary_file();
        let records = &file[8 + u32::from_le_bytes(file[4..8].try_into().unwrap()) as usize..];
        let bomb = [frame_of(&zeros_frame(256 << 20, true)), records.to_vec()].concat();
        let unsized_bomb = [frame_of(&zeros_frame(9 << 20, false)), records.to_vec()].concat();
        let mut oversized = file.clone();
        oversized[4..8].copy_from_slice(&(9u32 << 20).to_le_bytes());
        for (input, size) in [
            (&bomb, "268435456 bytes (its Frame_Content_Size)"),
            (&unsized_bomb, "more than 8388608 bytes"),
            (&oversized, "holds 9437184 bytes"),
        ] {
            let err = read_all(input).unwrap_err();
            assert!(
                matches!(err, Error::ZstdDictionary { offset: 0, .. }),
                "{err}"
            );
            let message = err.to_string();
            assert!(
                message.starts_with("t.warc: the zstd dictionary frame at offset 0 "),
                "{message}"
            );
            assert!(message.contains(size), "{message}");
            assert!(
                message.contains("over the limit of 8388608 bytes"),
                "{message}"
            );
        }
    }

    proptest! {
        #[test]
        fn zstd_dictionary_file_cut_or_flipped_errors_without_panic(cut in any::<prop::sample::Index>(), flip in proptest::option::of((any::<prop::sample::Index>(), 1u8..=255))) {
            let (file, recs) = zstd_dictionary_file();
            let mut bytes = file[..cut.index(file.len() + 1)].to_vec();
            if let Some((at, x)) = flip && !bytes.is_empty() {
                let at = at.index(bytes.len());
                bytes[at] ^= x;
            }
            let results: Vec<_> = Reader::new(&bytes[..]).collect();
            prop_assert!(results.iter().filter(|r| r.is_ok()).count() <= recs.len());
            if let Some(Err(e)) = results.last() {
                prop_assert!(e.offset().is_some(), "{}", e);
            }
            // Damage in the dictionary is blamed on the dictionary frame; else (a flip zstd's frame header or
            // checksum cannot tell: an unused bit, a window size; a dictionary stored as it is, when compressing did
            // not make it smaller, whose change the records' own checksums catch) no record is read wrong.
            let dictionary_end = 8 + u32::from_le_bytes(file[4..8].try_into().unwrap()) as usize;
            if let Some((at, _)) = flip && bytes.len() >= dictionary_end && (8..dictionary_end).contains(&at.index(bytes.len())) {
                let first = results.first().unwrap();
                if !matches!(first, Err(Error::ZstdDictionary { offset: 0, .. })) {
                    for (got, want) in results.iter().map_while(|r| r.as_ref().ok()).zip(recs) {
                        prop_assert_eq!(&got.block[..], want.block());
                    }
                }
            }
        }

        #[test]
        fn arc_write_then_read(recs in proptest::collection::vec(arb_arc_record(), 0..4), blank in 0..3usize, gzip in any::<bool>()) {
            // Without a blank line, a record's content must not run into the next header line unseen.
            let (file, offsets) = arc_file(&recs, blank.max(1), gzip);
            let read = read_all(&file).unwrap();
            prop_assert_eq!(read.len(), recs.len() + 1);
            prop_assert_eq!(read[0].version.as_str(), "ARC/1.0");
            prop_assert_eq!(read[0].get("URL"), Some("filedesc://t.arc"));
            for ((got, want), offset) in read[1..].iter().zip(&recs).zip(&offsets[1..]) {
                prop_assert!(got.is_arc());
                prop_assert_eq!(got.get("URL"), Some(want.0.as_str()));
                prop_assert_eq!(got.get("IP-address"), Some(want.1.as_str()));
                prop_assert_eq!(got.get("Archive-date"), Some(want.2.as_str()));
                prop_assert_eq!(&got.block, &want.4);
                prop_assert_eq!(got.offset, *offset);
                let header = got.warc_header();
                let uri = crate::record::get(&header, "WARC-Target-URI");
                let want_uri = want.0.replace(' ', "%20");
                prop_assert_eq!(uri, Some(want_uri.as_str()));
            }
        }

        #[test]
        fn arc_random_bytes_never_panic(input in proptest::collection::vec(any::<u8>(), 0..400), whole in any::<bool>()) {
            let head: &[u8] = if whole {
                b"filedesc://f.arc 0.0.0.0 20140216050221 text/plain 9\n1 0 Test\n\nhttp://a/ 1.2.3.4 20140216050221 text/html "
            } else {
                b"filedesc://f.arc 0.0.0.0 20140216050221 text/plain "
            };
            let input = [head, &input].concat();
            for rec in Reader::new(&input[..]).flatten() {
                let _ = crate::ls_line(&rec);
                let _ = crate::arc::problem(&rec, false);
                let _ = crate::cdxj::Capture::of(&rec.warc_header(), &rec.block);
            }
        }

        #[test]
        fn arc_cut_anywhere_reads_or_errors(recs in proptest::collection::vec(arb_arc_record(), 1..3), gzip in any::<bool>(), cut in any::<prop::sample::Index>()) {
            let (file, _) = arc_file(&recs, 1, gzip);
            let cut = cut.index(file.len());
            let results: Vec<_> = Reader::new(&file[..cut]).collect();
            prop_assert!(results.iter().filter(|r| r.is_ok()).count() <= recs.len() + 1);
            if let Some(Err(e)) = results.last() {
                prop_assert!(e.offset().is_some());
            }
        }

        /// xt30a F3: any Content-Length in a whole member, with the block's digest, reads as the member frames
        /// it; the record after it too; and the length mended reads as written.
        #[test]
        fn any_length_in_a_whole_member_reads_as_framed(block in proptest::collection::vec(any::<u8>(), 0..300), says in 0usize..400, zstd in any::<bool>()) {
            let compress = |b: &[u8]| if zstd { zstd::encode_all(b, 1).unwrap() } else { gz(b) };
            let file = [compress(&warc_rec(&block, says, true)), compress(REC)].concat();
            let read = read_all(&file).unwrap();
            prop_assert_eq!(read.len(), 2);
            prop_assert_eq!(&read[0].block, &block);
            prop_assert_eq!(read[0].framed().is_some(), says != block.len());
            let mut mended = read[0].clone();
            mended.mend_length();
            let again = read_all(&compress(&[&mended.raw_header[..], &block, b"\r\n\r\n"].concat())).unwrap();
            prop_assert_eq!(&again[0].block, &block);
            prop_assert!(again[0].framed().is_none());
        }

        #[test]
        fn write_then_read(recs in proptest::collection::vec(arb_record(), 1..5), gzip in any::<bool>()) {
            let mut file = Vec::new();
            let mut spans = Vec::new();
            for rec in &recs {
                let start = file.len() as u64;
                let bytes = rec.to_bytes();
                file.extend(if gzip { gz(&bytes) } else { bytes });
                spans.push((start, file.len() as u64 - start));
            }
            let read = read_all(&file).unwrap();
            prop_assert_eq!(read.len(), recs.len());
            for ((got, want), span) in read.iter().zip(&recs).zip(spans) {
                prop_assert_eq!(&got.header, &want.header().to_vec());
                prop_assert_eq!(got.block.as_slice(), want.block());
                prop_assert_eq!((got.offset, got.len), span);
            }
        }

        #[test]
        fn random_bytes_never_panic(input in proptest::collection::vec(any::<u8>(), 0..512), prefix in 0..3usize) {
            // Start some inputs like a record or a gzip member to get past the first check.
            let head: &[u8] = [&b""[..], b"WARC/1.1\r\n", b"\x1f\x8b\x08\x00"][prefix];
            let input = [head, &input].concat();
            for result in Reader::new(&input[..]) {
                let _ = result;
            }
        }

        #[test]
        fn truncated_files_error(recs in proptest::collection::vec(arb_record(), 1..3), gzip in any::<bool>(), cut in any::<prop::sample::Index>()) {
            let file: Vec<u8> = recs
                .iter()
                .flat_map(|r| if gzip { gz(&r.to_bytes()) } else { r.to_bytes() })
                .collect();
            let cut = cut.index(file.len());
            let results: Vec<_> = Reader::new(&file[..cut]).collect();
            // A cut on a record boundary reads cleanly; anywhere else the last result is an error.
            let ok = results.iter().filter(|r| r.is_ok()).count();
            prop_assert!(ok <= recs.len());
            if let Some(Err(e)) = results.last() {
                prop_assert!(e.offset().is_some());
            }
        }
    }
}
