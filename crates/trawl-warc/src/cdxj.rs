//! CDXJ indexes, as pywb and ReplayWeb.page read them and as the reference indexer (`cdxj-indexer`, from
//! webrecorder) writes them: one line per response, revisit or resource record,
//! `SURT TIMESTAMP14 {"url": …, "mime": …, "status": …, "digest": …, "length": …, "offset": …, "filename": …}`,
//! sorted by byte value (pywb's binary search misses entries of an unsorted index).

use std::path::{Path, PathBuf};

use crate::{Error, reader, record};

pub(crate) mod head;
pub(crate) mod method;
pub mod request_body;
pub mod sorter;

pub use sorter::LineSorter;

/// What one capture contributes to its index line; where it sits in its file is added by [`Capture::line`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    /// The SURT key: python `surt`'s, as pywb computes it for a lookup ([`trawl_url::surt::index_key`]).
    pub key: String,
    /// `YYYYMMDDhhmmss` of the WARC-Date.
    pub timestamp: String,
    /// The WARC-Target-URI.
    pub url: String,
    /// The content type without parameters (`warc/revisit` for a revisit); `None` when the record has none
    /// (the line leaves the field out, as the reference indexer does).
    pub mime: Option<String>,
    /// The HTTP status; `None` for a record without one (left out of the line).
    pub status: Option<String>,
    /// The WARC-Payload-Digest as written, or the payload's digest computed when there is none; `None` for
    /// a revisit without one (left out of the line).
    pub digest: Option<String>,
    /// The method of the request this capture answers, when not GET (see the `method` module: its key is
    /// then apart from the URL's GETs); `None` for a GET or a record no request is paired with.
    pub method: Option<String>,
    /// The query a browser page's request body adds to the key (`q=boats`), when it adds one (see the
    /// `request_body` module).
    pub request_body: Option<String>,
    /// Where `digest` was computed from a payload sent chunked (de-chunked), the digest of the bytes as sent,
    /// which cdxj-indexer writes instead: `verify` takes an index line with either as this capture's. Set
    /// by `verify`'s indexer only, `None` from [`Capture::of`].
    pub digest_as_sent: Option<String>,
}

impl Capture {
    /// The capture of a record, if the record is one the reference indexer (cdxj-indexer) indexes: a
    /// response or revisit, or a resource or metadata record whose Content-Type is not exactly
    /// `application/warc-fields`. Each field is what cdxj-indexer writes for it:
    /// - url: the WARC-Target-URI, without the angle brackets wget 1.19 and 1.20 put around it, spaces as
    ///   `%20`;
    /// - mime: `warc/revisit` for a revisit; of a response, the media type of its HTTP head (none when the
    ///   record is not HTTP: a `dns:` or `ftp://` response has no mime); of a resource or metadata record, of
    ///   its WARC Content-Type;
    /// - status: the status of the HTTP head of a response or revisit;
    /// - digest: the WARC-Payload-Digest; without one, computed (SHA-1 of the payload: of the de-chunked
    ///   entity body for HTTP, as trawl digests payloads, where cdxj-indexer digests the bytes as sent), and
    ///   none for a revisit.
    ///
    /// A record is read as HTTP, as warcio reads it, when it is a response or revisit of an `http:` or
    /// `https:` URI with a non-empty block, whatever its WARC Content-Type says.
    pub fn of(header: &[(String, String)], block: &[u8]) -> Option<Capture> {
        let get = |name: &str| record::get(header, name);
        let warc_type = get("WARC-Type")?;
        let content_type = get("Content-Type");
        if !is_indexed_kind(header) {
            return None;
        }
        let url = target_uri(get("WARC-Target-URI")?);
        let timestamp = record::warc_date_timestamp(get("WARC-Date")?)?;
        let http = matches!(warc_type, "response" | "revisit")
            && (url.starts_with("http:") || url.starts_with("https:"))
            && !block.is_empty();
        let head = http.then(|| head::read(block));
        let mime = match warc_type {
            "revisit" => Some("warc/revisit".to_owned()),
            "response" => head
                .as_ref()
                .and_then(|h| h.content_type.as_deref())
                .map(media_type),
            _ => content_type.map(media_type),
        };
        let digest = match get("WARC-Payload-Digest").filter(|d| !d.is_empty()) {
            Some(d) => Some(d.to_owned()),
            None if warc_type == "revisit" => None,
            None if http => Some(head::http_payload_digest(block)),
            None => Some(crate::digest::sha1_digest(block)),
        };
        Some(Capture {
            key: cdx_key(&url),
            timestamp,
            url,
            mime,
            status: head.and_then(|h| h.status),
            digest,
            method: None,
            request_body: None,
            digest_as_sent: None,
        })
    }

    /// The index line of this capture at `offset` / `length` in `filename`.
    pub fn line(&self, length: u64, offset: u64, filename: &str) -> String {
        let mut json = String::with_capacity(160 + self.url.len());
        json.push('{');
        let (length, offset) = (length.to_string(), offset.to_string());
        for (i, (name, value)) in [
            ("url", Some(self.url.as_str())),
            ("mime", self.mime.as_deref()),
            ("status", self.status.as_deref()),
            ("digest", self.digest.as_deref()),
            ("length", Some(&length)),
            ("offset", Some(&offset)),
            ("filename", Some(filename)),
            // After the others, as `cdxj-indexer --post-append` writes them (review 84 R7).
            ("requestBody", self.request_body.as_deref()),
            ("method", self.method.as_deref()),
        ]
        .into_iter()
        .filter_map(|(name, value)| Some((name, value?)))
        .enumerate()
        {
            if i > 0 {
                json.push_str(", ");
            }
            push_json_string(&mut json, name);
            json.push_str(": ");
            push_json_string(&mut json, value);
        }
        json.push('}');
        format!("{} {} {json}", self.key, self.timestamp)
    }
}

/// The SURT key of a target URI: exactly python `surt`'s, which pywb looks captures up by (not trawl's
/// own canonicalization, which departs from it on purpose).
fn cdx_key(url: &str) -> String {
    trawl_url::surt::index_key(url)
}

/// The target URI as cdxj-indexer (warcio) reads it: without the angle brackets of wget 1.19/1.20's
/// `<http://…>`, spaces written `%20`.
fn target_uri(value: &str) -> String {
    let bare = value
        .strip_prefix('<')
        .and_then(|v| v.strip_suffix('>'))
        .unwrap_or(value);
    bare.replace(' ', "%20")
}

/// The media type of a Content-Type value as cdxj-indexer writes it: up to the first `;` or white space
/// (`text/html; charset=utf-8` → `text/html`).
fn media_type(content_type: &str) -> String {
    content_type
        .trim_start_matches(head::py_space)
        .split(|c| c == ';' || head::py_space(c))
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// Appends `s` as a JSON string the way Python's `json.dumps` writes it (ASCII only: other characters as
/// `\uXXXX`, in surrogate pairs above U+FFFF), so that trawl's index is byte-identical to the reference
/// indexer's. serde_json writes non-ASCII as UTF-8, hence this small writer.
fn push_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The index lines of the WARC at `path`, in file order; `filename` is what the lines call it. A file
/// compressed as one stream (a gzip member or zstd frame holding more than one record) is refused with
/// [`Error::SharedMember`]: its records cannot be reached by offset, so lines for them would send a replay
/// to the wrong record. Records that cannot be indexed are left out; [`index_records`] names them.
pub fn index_file(path: &Path, filename: &str) -> Result<Vec<String>, Error> {
    index_file_within(path, filename, reader::MAX_RECORD_BYTES)
}

/// [`index_file`] reading records up to `limit` bytes.
fn index_file_within(path: &Path, filename: &str, limit: u64) -> Result<Vec<String>, Error> {
    let indexed = index_records_within(path, filename, limit);
    let passed = indexed.passed.into_iter().next().map(|p| p.damage);
    match passed
        .or(indexed.stopped)
        .or(indexed.shared.into_iter().next())
    {
        Some(e) => Err(e),
        None => Ok(indexed.lines),
    }
}

/// What indexing one file gave: the lines of the records read before anything stopped it, the records an
/// index should hold but cannot, and what stopped the reading short of the file's end.
#[derive(Debug, Default)]
pub struct Indexed {
    /// Index lines, in file order.
    pub lines: Vec<String>,
    /// Records of a kind the index holds (response, revisit, resource, metadata) that lack a field every
    /// line needs, so no line was written for them.
    pub unindexed: Vec<Unindexed>,
    /// ARC records whose Archive-length took in whole later records: those records have no line (the index
    /// is what cdxj-indexer writes, which misses them too); `trawl warc verify` fails such a record.
    pub swallowing: Vec<Swallowing>,
    /// ARC records whose `url` in the index (what cdxj-indexer writes: a latin-1 byte read as a character,
    /// an upper-case scheme kept) is not the WARC-Target-URI `trawl warc convert` gives them (`caf%E9`), by
    /// offset: the spelling a revisit of their payload names, so that it resolves after the ARC is converted.
    pub converted_uris: std::collections::HashMap<u64, String>,
    /// Damage read past, in file order: the records in each stretch of damage have no line; those after it
    /// have theirs (xt27b F4).
    pub passed: Vec<crate::Passed>,
    /// The error that ended the file early (a damaged record with no whole record after it); the lines before
    /// it stand.
    pub stopped: Option<Error>,
    /// Where whole records of another warcinfo begin after that error, not read ([`crate::unread_other_hint`]).
    pub unread_other: Option<u64>,
    /// Each gzip member (or zstd frame) holding more than one record ([`Error::SharedMember`]): its records after
    /// the first cannot be reached by offset, and have no line; the file's other records have theirs (xt27b F5:
    /// one merged member cost every line of the file).
    pub shared: Vec<Error>,
    /// In a plain ARC file damaged part way (not merely padded with zero bytes), the offset of the record
    /// just before the damage: it has no line, as its Archive-length may be what is wrong (it may run into
    /// the damage, or stop short of its content's end). A record is sure to be whole only when the next
    /// record's header line begins where its length says.
    pub unsure: Option<u64>,
    /// An ARC file's first record when it is not its `filedesc://` header ([`ReadRecord::not_filedesc`]): its
    /// offset and URL, and whether it is that header with its URL damaged (then it has no index line).
    pub not_filedesc: Option<(u64, String, bool)>,
    /// Each WARC record whose gzip member (or zstd frame) frames it though its Content-Length disagrees, or
    /// whose ending the member cuts, by offset ([`crate::ReadRecord::framed`]): indexed as warcio reads it
    /// (xt30a F3, xt32b F4).
    pub framed: Vec<(u64, crate::Framed)>,
    /// The offset of a plain ARC file's last record when the file ends before its Archive-length: its line
    /// is for the part the file holds (`trawl warc verify` fails it; `convert` marks it `WARC-Truncated`).
    pub cut_short: Option<u64>,
    /// How many records were read: none for an empty file (or empty gzip members only).
    pub records: usize,
    /// The first record whose WARC-Record-ID an earlier record of the file has, and that record's offset:
    /// `(offset, earlier)`. A file concatenated with itself; every copy gets its line.
    pub repeated_id: Option<(u64, u64)>,
}

/// An ARC record whose Archive-length is wrong and swallows the whole records after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Swallowing {
    /// Where the record starts in its file.
    pub offset: u64,
    /// How many bytes into its content the first swallowed record's header line begins.
    pub at: usize,
}

/// A record left out of the index, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unindexed {
    /// Where the record starts in its file.
    pub offset: u64,
    /// Its WARC-Type.
    pub warc_type: String,
    /// What it lacks: `WARC-Target-URI`, `WARC-Date`, or a WARC-Date that reads as a time.
    pub missing: String,
}

/// Like [`index_file`], but keeps the lines read before an error and names the records left out (for
/// tools that tell the operator, and for deduplication, which uses what a damaged file still holds).
pub fn index_records(path: &Path, filename: &str) -> Indexed {
    index_records_within(path, filename, reader::MAX_RECORD_BYTES)
}

/// [`index_records`] reading records up to `limit` bytes.
fn index_records_within(path: &Path, filename: &str, limit: u64) -> Indexed {
    let mut indexed = Indexed::default();
    let mut previous = None;
    let mut indexer = Indexer::new();
    let mut records = match reader::open(path) {
        Ok(records) => records.with_max_record_bytes(limit),
        Err(e) => {
            indexed.stopped = Some(e);
            return indexed;
        }
    };
    // The offset of the last record read, when it was a record of a plain ARC file.
    let mut plain_arc = None;
    // Each record id seen (by a 64-bit hash: 8 bytes a record, not the id), with its record's offset, until
    // one repeats.
    let mut ids: std::collections::HashMap<u64, u64> = std::collections::HashMap::new();
    while let Some(record) = records.next() {
        let record = match record {
            Ok(record) => record,
            Err(e) => {
                if let Ok(Some(read_on_at)) = records.read_on_after(&e) {
                    indexed.passed.push(crate::Passed {
                        damage: e,
                        read_on_at,
                    });
                    (previous, plain_arc) = (None, None);
                    continue;
                }
                // A header line cut by the end of the file begins where the record before it ends.
                if !matches!(e, Error::CutInHeader { .. })
                    && e.offset().is_some_and(|o| !reader::zeros_after(path, o))
                {
                    indexed.unsure = plain_arc;
                }
                indexed.stopped = Some(e);
                indexed.unread_other = records.unread_other();
                break;
            }
        };
        indexed.records += 1;
        if indexed.records == 1
            && let Some((url, header)) = record.not_filedesc()
        {
            indexed.not_filedesc = Some((record.offset, url.to_owned(), header));
            if header {
                continue;
            }
        }
        if let Some(framed) = record.framed() {
            indexed.framed.push((record.offset, framed));
        }
        plain_arc = (record.is_arc() && record.compression == crate::Compression::None)
            .then_some(record.offset);
        if plain_arc.is_some()
            && record
                .get("Archive-length")
                .and_then(|l| l.parse::<u64>().ok())
                .is_some_and(|says| says > record.block.len() as u64)
        {
            // Cut short by the end of the file, unless what it holds shows its length is wrong: the header
            // line of a later record, which the length swallowed (and which has no line of its own).
            match crate::arc::later_header_line(&record.block) {
                None => indexed.cut_short = Some(record.offset),
                Some(at) => indexed.swallowing.push(Swallowing {
                    offset: record.offset,
                    at,
                }),
            }
        }
        if record.compression != crate::Compression::None
            && previous.replace(record.offset) == Some(record.offset)
        {
            // A record after the first of its member: a replay reading the member's offset gets the first.
            if indexed.shared.last().and_then(Error::offset) != Some(record.offset) {
                indexed.shared.push(record.shared_member_error(path));
            }
            continue;
        }
        if record.is_arc()
            && indexed.swallowing.last().map(|s| s.offset) != Some(record.offset)
            && let Some(at) = crate::arc::swallowed_by(&record)
        {
            indexed.swallowing.push(Swallowing {
                offset: record.offset,
                at,
            });
        }
        let header = record.warc_header();
        if indexed.repeated_id.is_none()
            && let Some(id) = record::get(&header, "WARC-Record-ID")
            && let Some(earlier) = ids.insert(id_hash(id), record.offset)
        {
            indexed.repeated_id = Some((record.offset, earlier));
            ids = std::collections::HashMap::new();
        }
        if record.is_arc() && !crate::arc::is_filedesc(&record) {
            let converted = crate::arc::warc_target_uri(
                record.get("URL").unwrap_or_default(),
                &record.raw_header,
            );
            if record::get(&header, "WARC-Target-URI") != Some(converted.as_str()) {
                indexed.converted_uris.insert(record.offset, converted);
            }
        }
        if !indexer.add(&record, &header)
            && let Some(missing) = unindexable(&header)
        {
            indexed.unindexed.push(Unindexed {
                offset: record.offset,
                warc_type: record::get(&header, "WARC-Type")
                    .unwrap_or_default()
                    .to_owned(),
                missing,
            });
        }
    }
    indexed.lines = indexer.lines(filename, indexed.unsure);
    indexed
}

/// A 64-bit hash of a record id (or header), to tell repeats apart without keeping the ids.
pub(crate) fn id_hash(id: impl std::hash::Hash) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    BuildHasherDefault::<DefaultHasher>::default().hash_one(id)
}

/// The index lines of one file's records, given one at a time in file order: by [`index_records`], and by
/// `verify`, which reads every record anyway and so indexes a file in the same pass.
pub(crate) struct Indexer {
    /// Pairs a capture with its request (before or after it), which may name a method other than GET.
    pairing: method::Pairing<(u64, u64)>,
    /// The captures so far, each with its record's index length and offset.
    captures: Vec<(Capture, (u64, u64))>,
    /// Whether each capture gets its [`Capture::digest_as_sent`] (for `verify`, which compares other
    /// indexers' indexes; a second digest of a chunked payload that the other paths do without).
    others: bool,
}

impl Indexer {
    /// An indexer of no record yet.
    pub(crate) fn new() -> Indexer {
        Indexer {
            pairing: method::Pairing::new(),
            captures: Vec::new(),
            others: false,
        }
    }

    /// An indexer that gives the lines other indexers write too ([`Indexer::lines_and_others`]).
    pub(crate) fn with_others() -> Indexer {
        Indexer {
            others: true,
            ..Indexer::new()
        }
    }

    /// Takes in the next record of the file, whose WARC header (of an ARC record, the one it stands for) is
    /// `header`; whether it is a capture the index holds.
    pub(crate) fn add(&mut self, record: &reader::ReadRecord, header: &[(String, String)]) -> bool {
        let capture = Capture::of(header, &record.block).map(|mut c| {
            // A digest computed (an ARC record has none; a WARC record may lack it) of a chunked payload is
            // of the body de-chunked, where cdxj-indexer digests it as sent.
            let computed = record.is_arc()
                || record::get(header, "WARC-Payload-Digest").is_none_or(str::is_empty);
            if self.others && computed && c.status.is_some() {
                c.digest_as_sent = head::chunked_as_sent_digest(&record.block)
                    .filter(|d| Some(d) != c.digest.as_ref());
            }
            (c, (record.index_len, record.offset))
        });
        let indexed = capture.is_some();
        self.pairing
            .next(header, &record.block, capture, &mut self.captures);
        indexed
    }

    /// The index lines of the records taken in, in file order, naming the file `filename`; the record at
    /// offset `leave_out` (one that may not be whole) gets none.
    pub(crate) fn lines(self, filename: &str, leave_out: Option<u64>) -> Vec<String> {
        self.lines_and_others(filename, leave_out)
            .into_iter()
            .map(|(line, _)| line)
            .collect()
    }

    /// [`Indexer::lines`], each with the line another indexer writes for the same capture, where that
    /// differs: the digest of a chunked payload as sent ([`Capture::digest_as_sent`]).
    pub(crate) fn lines_and_others(
        mut self,
        filename: &str,
        leave_out: Option<u64>,
    ) -> Vec<(String, Option<String>)> {
        self.pairing.finish(&mut self.captures);
        self.captures
            .into_iter()
            .filter(|(_, (_, offset))| Some(*offset) != leave_out)
            .map(|(mut c, (len, offset))| {
                let line = c.line(len, offset, filename);
                let other = c.digest_as_sent.take().map(|d| {
                    c.digest = Some(d);
                    c.line(len, offset, filename)
                });
                (line, other)
            })
            .collect()
    }
}

/// What a record of an indexed kind lacks (a field, or a WARC-Date that reads as a time), so that [`Capture::of`] gives no line for it; `None` for a
/// record the index does not hold anyway or one it holds.
fn unindexable(header: &[(String, String)]) -> Option<String> {
    if !is_indexed_kind(header) {
        return None;
    }
    if record::get(header, "WARC-Target-URI").is_none() {
        return Some("WARC-Target-URI".to_owned());
    }
    match record::get(header, "WARC-Date") {
        None => Some("WARC-Date".to_owned()),
        Some(date) if record::warc_date_timestamp(date).is_none() => {
            Some(format!("a WARC-Date of a real time (it says {date:?})"))
        }
        Some(_) => None,
    }
}

/// Whether a record is of a kind the index holds: a response or revisit, or a resource or metadata record
/// whose Content-Type is not exactly `application/warc-fields` (as cdxj-indexer chooses).
fn is_indexed_kind(header: &[(String, String)]) -> bool {
    let get = |name: &str| record::get(header, name);
    match get("WARC-Type") {
        Some("response" | "revisit") => true,
        Some("resource" | "metadata") => get("Content-Type") != Some("application/warc-fields"),
        _ => false,
    }
}

/// The WARC and ARC files of the folder `dir` (`.warc`, `.warc.gz`, `.warc.zst`, `.arc`, `.arc.gz`; not
/// `.open` ones), by name.
pub fn warc_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| is_archive_name(p))
        .collect();
    files.sort();
    Ok(files)
}

/// Whether `path` is named as a WARC or ARC file (`.warc`, `.warc.gz`, `.warc.zst`, `.arc`, `.arc.gz`, in
/// any case: collections copied from ISO 9660 media have `.ARC.GZ`, xt15a F9).
pub fn is_archive_name(path: &Path) -> bool {
    archive_extension(&path.to_string_lossy()).is_some()
}

/// The archive extension `name` ends in (ASCII case ignored), as [`ARCHIVE_EXTENSIONS`] spells it.
fn archive_extension(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    ARCHIVE_EXTENSIONS
        .into_iter()
        .find(|ext| lower.ends_with(ext))
}

/// Sorts `lines` by byte value (as `LC_ALL=C sort` does).
pub fn sort(lines: &mut [String]) {
    lines.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
}

/// Whether `path` is an index's temporary file, left by a write that did not end (a full disk, a kill):
/// `.X.cdxj.RANDOM.tmp` beside `X.cdxj`, or `X.cdxj.tmp` from a build before such names.
pub fn is_temporary_index(path: &Path) -> bool {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    name.ends_with(".cdxj.tmp")
        || (name.starts_with('.') && name.ends_with(".tmp") && name.contains(".cdxj."))
}

/// Where the index of WARC (or ARC) `warc` goes: beside it, `X.warc.gz` → `X.cdxj`.
pub fn index_path(warc: &Path) -> PathBuf {
    let name = warc
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = archive_extension(&name)
        .and_then(|ext| name.get(..name.len() - ext.len()))
        .unwrap_or(&name);
    warc.with_file_name(format!("{stem}.cdxj"))
}

/// The archive names that share one index name, `X.cdxj`: one per compression, and ARC.
const ARCHIVE_EXTENSIONS: [&str; 5] = [".warc.gz", ".warc.zst", ".warc", ".arc.gz", ".arc"];

/// The other archives beside `warc` whose index is also [`index_path`]`(warc)` (`X.warc.zst` beside
/// `X.warc.gz`: both are indexed as `X.cdxj`), in name order. The index there is one file's, not the other's.
pub fn sharing_index(warc: &Path) -> Vec<PathBuf> {
    let index = index_path(warc);
    let name = index.file_name().unwrap_or_default().to_string_lossy();
    let stem = name.strip_suffix(".cdxj").unwrap_or(&name);
    ARCHIVE_EXTENSIONS
        .iter()
        .map(|ext| index.with_file_name(format!("{stem}{ext}")))
        .filter(|f| f.as_path() != warc && f.is_file())
        .collect()
}

/// Writes `lines` sorted to `path` (see [`write_sorted`]).
pub fn write_index(path: &Path, lines: Vec<String>) -> Result<(), Error> {
    let mut sorter = LineSorter::with_budget(Path::new("."), usize::MAX);
    for l in lines {
        sorter.push(l)?;
    }
    write_sorted(path, sorter).map(|_| ())
}

/// Writes the lines of `sorter` to `path` through a temporary file, renamed into place once synced, so an
/// index is whole or absent; returns how many.
pub fn write_sorted(path: &Path, sorter: LineSorter) -> Result<u64, Error> {
    let tmp = crate::naming::temp_beside(path)?;
    let io = |source| Error::Io {
        path: tmp.to_path_buf(),
        source,
    };
    let mut file = std::io::BufWriter::new(std::fs::File::create(&tmp).map_err(io)?);
    let written = sorter.write_to(&mut file, &tmp).and_then(|n| {
        let file = file.into_inner().map_err(|e| io(e.into_error()))?;
        file.sync_all().map_err(io)?;
        Ok(n)
    });
    // On an error the temporary file is removed as `tmp` is dropped.
    let n = written?;
    tmp.persist(path).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: e.error,
    })?;
    Ok(n)
}

/// The `filename` of a CDXJ line (`KEY TIMESTAMP {…, "filename": …}`); `None` for a line that is not one.
pub fn line_filename(line: &str) -> Option<String> {
    let json = line.splitn(3, ' ').nth(2)?;
    let fields: serde_json::Map<String, serde_json::Value> = serde_json::from_str(json).ok()?;
    Some(fields.get("filename")?.as_str()?.to_owned())
}

/// How the index file at `index` differs from `lines`, a WARC's index lines (in any order, as
/// [`index_file`] gives them), each with the line another indexer may write in its place
/// ([`VerifySummary::index_others`](crate::VerifySummary::index_others)): `None` when it holds them,
/// sorted, and nothing else; else the first difference in words (a differing line by the fields that differ,
/// a line missing or one too many). An index that cannot be read is an error; one that is not text differs.
pub fn index_difference(
    index: &Path,
    lines: &[(String, Option<String>)],
) -> Result<Option<String>, Error> {
    use std::io::BufRead;
    let io = |source| Error::Io {
        path: index.to_path_buf(),
        source,
    };
    // Compared as captures, not bytes: another tool's index of the same captures may order a line's JSON
    // fields otherwise, end lines with CRLF, end with a blank line, or order lines of one key and time
    // otherwise (review R5 of stop 60).
    let mut want: Vec<(String, &str)> = lines
        .iter()
        .map(|(l, _)| (canonical(l), l.as_str()))
        .collect();
    want.sort_unstable();
    let wanted: std::collections::HashSet<&str> = want.iter().map(|(c, _)| c.as_str()).collect();
    // A line in the form another indexer writes stands for its capture's own line, once each: it is
    // compared as that line (and sorts as it), so two captures of one key and time stay paired aright
    // (review 64 R2).
    let mut others: std::collections::HashMap<String, Vec<String>> =
        std::collections::HashMap::new();
    for (line, other) in lines {
        if let Some(other) = other {
            others
                .entry(canonical(other))
                .or_default()
                .push(canonical(line));
        }
    }
    let file = std::io::BufReader::new(std::fs::File::open(index).map_err(io)?);
    let mut have: Vec<(String, String)> = Vec::new();
    // Lines must come in the order of their key and time: pywb looks captures up by binary search
    // (xt11a F4: a reversed index passed).
    let mut unsorted = None;
    for line in file.split(b'\n') {
        let line = line.map_err(io)?;
        let line = String::from_utf8_lossy(&line);
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        if unsorted.is_none()
            && let Some((_, before)) = have.last()
            && key_and_time(line) < key_and_time(before.as_str())
        {
            unsorted = Some(format!(
                "line {} sorts before the line above it: the index is not sorted (pywb looks captures up \
                 by binary search): `{line}`",
                have.len() + 1
            ));
        }
        let mut as_capture = canonical(line);
        if !wanted.contains(as_capture.as_str())
            && let Some(own) = others.get_mut(&as_capture).and_then(Vec::pop)
        {
            as_capture = own;
        }
        have.push((as_capture, line.to_owned()));
    }
    have.sort_unstable();
    for (n, (have, want)) in have.iter().zip(&want).enumerate() {
        if have.0 != want.0 {
            return Ok(Some(format!(
                "line {}: {}",
                n + 1,
                line_difference(&have.1, want.1)
            )));
        }
    }
    Ok(match have.len().cmp(&want.len()) {
        std::cmp::Ordering::Greater => Some(format!(
            "it has more lines than the {} the WARC's records give: line {} is `{}`",
            want.len(),
            want.len() + 1,
            have[want.len()].1
        )),
        std::cmp::Ordering::Less => {
            let n = have.len();
            let lines = if n == 1 { "line" } else { "lines" };
            Some(format!(
                "it ends after {n} {lines}, where the WARC's records give {}: the first missing is `{}`",
                want.len(),
                want[n].1
            ))
        }
        std::cmp::Ordering::Equal => unsorted,
    })
}

/// The key and time that order an index line (its first two fields).
fn key_and_time(line: &str) -> (&str, &str) {
    let mut parts = line.splitn(3, ' ');
    (parts.next().unwrap_or(""), parts.next().unwrap_or(""))
}

/// An index line with its JSON fields in one order (the key and time kept as they are); a line that is no
/// CDXJ line as it is. The answer to a POST is keyed three ways by the indexers pywb reads, all of which
/// it replays: as trawl keys it (`?__wb_method=post`, `"method"`, and for a browser page's body, the body too,
/// as `cdxj-indexer -p` keys it), as `cdxj-indexer -p` does (the body appended, `"requestBody"`), and as
/// `cdxj-indexer` does by default (as a GET). So a line
/// naming a method is compared as the GET form: keyed by its URL, without `"method"` and `"requestBody"`
/// (xt11a F12: a cdxj-indexer index of a job with a form login failed verify).
fn canonical(line: &str) -> String {
    let mut parts = line.splitn(3, ' ');
    let (Some(key), Some(time), Some(json)) = (parts.next(), parts.next(), parts.next()) else {
        return line.to_owned();
    };
    match serde_json::from_str::<std::collections::BTreeMap<String, serde_json::Value>>(json) {
        Ok(mut fields) => {
            let method = fields.remove("method");
            let body = fields.remove("requestBody");
            let keyed_by_method =
                method.is_some() || body.is_some() || key.contains("__wb_method=");
            // The key must still be the URL's, but for the query a method or a form adds: a key naming
            // another path stays as it is, and differs (xt13a F1: any key passed).
            let before_query = |k: &str| k.split_once('?').map_or(k, |(p, _)| p).to_owned();
            let key = match fields.get("url").and_then(|u| u.as_str()) {
                Some(url)
                    if keyed_by_method && before_query(key) == before_query(&cdx_key(url)) =>
                {
                    cdx_key(url)
                }
                _ => key.to_owned(),
            };
            format!(
                "{key} {time} {}",
                serde_json::to_string(&fields).unwrap_or_default()
            )
        }
        Err(_) => line.to_owned(),
    }
}

/// How the index line `have` differs from `want`, the line the WARC gives there: by field when both are
/// lines of the same capture key and time, else both lines whole.
fn line_difference(have: &str, want: &str) -> String {
    type Fields = serde_json::Map<String, serde_json::Value>;
    let split = |line: &str| -> Option<(String, Fields)> {
        let mut parts = line.splitn(3, ' ');
        let key = format!("{} {}", parts.next()?, parts.next()?);
        Some((key, serde_json::from_str(parts.next()?).ok()?))
    };
    let text = |v: &serde_json::Value| v.as_str().map_or_else(|| v.to_string(), str::to_owned);
    if let (Some((hk, hf)), Some((wk, wf))) = (split(have), split(want))
        && hk == wk
    {
        let mut differ = Vec::new();
        for (name, w) in &wf {
            match hf.get(name) {
                Some(h) if h == w => {}
                Some(h) => differ.push(format!(
                    "{name} {:?} where the WARC gives {:?}",
                    text(h),
                    text(w)
                )),
                None => differ.push(format!("no {name}, where the WARC gives {:?}", text(w))),
            }
        }
        for (name, h) in hf.iter().filter(|(name, _)| !wf.contains_key(*name)) {
            differ.push(format!(
                "{name} {:?}, which the WARC gives none of",
                text(h)
            ));
        }
        if !differ.is_empty() {
            return format!("{hk}: {}", differ.join(", "));
        }
    }
    format!("`{have}`, where the WARC gives `{want}`")
}

/// Indexes the WARC at `warc` into its `.cdxj` beside it; returns the index's path.
pub fn index_beside(warc: &Path) -> Result<PathBuf, Error> {
    index_beside_within(warc, reader::MAX_RECORD_BYTES)
}

/// [`index_beside`] of a WARC trawl wrote, whose records are read whatever their size: a crawl whose
/// `fetch.max_bytes` is over the WARC tools' 1 GiB writes larger ones (review 73 R3: a resume indexing such a
/// file failed).
pub fn index_own_beside(warc: &Path) -> Result<PathBuf, Error> {
    index_beside_within(warc, u64::MAX)
}

/// [`index_beside`] reading records up to `limit` bytes.
fn index_beside_within(warc: &Path, limit: u64) -> Result<PathBuf, Error> {
    let name = warc
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let lines = index_file_within(warc, &name, limit)?;
    let out = index_path(warc);
    write_index(&out, lines)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// xt27b F5: one member holding two records costs only the second its line; the file's other records keep
    /// theirs, and the member is named.
    #[test]
    fn a_merged_member_costs_only_its_second_record_a_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.warc.gz");
        let date = chrono::Utc::now();
        let records: Vec<Vec<u8>> = (0..4)
            .map(|i| {
                crate::Record::response(
                    &format!("http://a.org/{i}"),
                    date,
                    None,
                    format!("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n{i}").into_bytes(),
                )
                .to_bytes()
            })
            .collect();
        let gz = |parts: &[&Vec<u8>]| {
            let mut out = Vec::new();
            crate::Encoder::new(crate::Compression::Gzip, 1).compress(
                &parts
                    .iter()
                    .copied()
                    .flatten()
                    .copied()
                    .collect::<Vec<u8>>(),
                &mut out,
            );
            out
        };
        let file = [
            gz(&[&records[0]]),
            gz(&[&records[1], &records[2]]),
            gz(&[&records[3]]),
        ]
        .concat();
        std::fs::write(&path, file).unwrap();
        let indexed = index_records(&path, "m.warc.gz");
        assert!(indexed.stopped.is_none());
        assert_eq!(indexed.shared.len(), 1);
        let urls: Vec<bool> = (0..4)
            .map(|i| {
                indexed
                    .lines
                    .iter()
                    .any(|l| l.contains(&format!("\"url\": \"http://a.org/{i}\"")))
            })
            .collect();
        assert_eq!(urls, [true, true, false, true], "{:?}", indexed.lines);
        assert!(index_file(&path, "m.warc.gz").is_err());
    }

    fn header(fields: &[(&str, &str)]) -> Vec<(String, String)> {
        fields
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_response_line_as_the_reference_indexer_writes_it() {
        let h = header(&[
            ("WARC-Type", "response"),
            ("WARC-Target-URI", "http://www.Example.com/a?b=2&a=1"),
            ("WARC-Date", "2026-11-25T00:50:00.123Z"),
            ("Content-Type", "application/http; msgtype=response"),
            ("WARC-Payload-Digest", "sha1:ABC"),
        ]);
        let block = b"HTTP/1.1 404 Not Found\r\nContent-Type: text/html; charset=utf-8\r\n\r\nx";
        let c = Capture::of(&h, block).unwrap();
        assert_eq!(
            c.line(10, 20, "f.warc.gz"),
            "com,example)/a?a=1&b=2 20261125005000 {\"url\": \"http://www.Example.com/a?b=2&a=1\", \"mime\": \
             \"text/html\", \"status\": \"404\", \"digest\": \"sha1:ABC\", \"length\": \"10\", \"offset\": \"20\", \
             \"filename\": \"f.warc.gz\"}"
        );
        let h = header(&[("WARC-Type", "request"), ("WARC-Target-URI", "http://a/")]);
        assert_eq!(Capture::of(&h, b""), None);
    }

    /// Lines `cdxj-indexer -s` 1.4 wrote for the same records: a field the record lacks is left out, a head
    /// with many fields is read whole, and an interim `1xx` head is what is indexed.
    #[test]
    fn missing_fields_and_long_heads_as_the_reference_indexer_writes_them() {
        let http = |url: &str| {
            header(&[
                ("WARC-Type", "response"),
                ("WARC-Target-URI", url),
                ("WARC-Date", "2026-11-29T10:10:07Z"),
                ("Content-Type", "application/http; msgtype=response"),
                ("WARC-Payload-Digest", "sha1:D"),
            ])
        };
        let line = |h: &[(String, String)], block: &[u8]| {
            Capture::of(h, block).unwrap().line(1, 0, "t.warc.gz")
        };
        let tail = r#""digest": "sha1:D", "length": "1", "offset": "0", "filename": "t.warc.gz"}"#;
        assert_eq!(
            line(
                &http("http://example.com/c"),
                b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"
            ),
            format!(
                r#"com,example)/c 20261129101007 {{"url": "http://example.com/c", "status": "200", {tail}"#
            )
        );
        let resource = header(&[
            ("WARC-Type", "resource"),
            ("WARC-Target-URI", "http://example.com/d"),
            ("WARC-Date", "2026-11-29T10:10:07Z"),
            ("WARC-Block-Digest", "sha1:D"),
        ]);
        // Without a WARC-Payload-Digest, the block's SHA-1 (of "hi"), not the block digest as written.
        assert_eq!(
            line(&resource, b"hi"),
            format!(
                r#"com,example)/d 20261129101007 {{"url": "http://example.com/d", {}"#,
                tail.replace("sha1:D", "sha1:YIVV7ELYGQTASQUNN5I3FRNPJQF542SC")
            )
        );
        let mut many = b"HTTP/1.1 200 OK\r\n".to_vec();
        for i in 0..150 {
            many.extend_from_slice(format!("X-{i}: y\r\n").as_bytes());
        }
        many.extend_from_slice(b"Content-Type: text/html\r\nContent-Length: 2\r\n\r\nhi");
        assert_eq!(
            line(&http("http://example.com/b"), &many),
            format!(
                r#"com,example)/b 20261129101007 {{"url": "http://example.com/b", "mime": "text/html", "status": "200", {tail}"#
            )
        );
        let hints = b"HTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\nHTTP/1.1 200 OK\r\n\
                      Content-Type: text/html\r\nContent-Length: 2\r\n\r\nhi";
        assert_eq!(
            line(&http("http://example.com/a"), hints),
            format!(
                r#"com,example)/a 20261129101007 {{"url": "http://example.com/a", "status": "103", {tail}"#
            )
        );
    }

    /// Lines `cdxj-indexer -s` 1.5.0 (warcio 1.8.1) wrote for these records of an uncompressed WARC (none with
    /// a WARC-Payload-Digest, the revisit without HTTP head): a non-HTTP response (`dns:`, `ftp://`) has no
    /// mime; a resource or metadata record takes it from its Content-Type; a missing payload digest is
    /// computed (of the whole block for a resource, of what follows the head as warcio reads it for a head
    /// httparse refuses), and a revisit has none; a folded field, a line without a colon, a four-digit status
    /// and a head without its empty line still give the status and mime; wget's `<…>` around the target URI
    /// goes, a space is `%20`; and only `http:`/`https:` (as written) are read as HTTP.
    #[test]
    fn records_as_cdxj_indexer_indexes_them() {
        for ((warc_type, url, content_type), block, (length, offset), want) in [
            (
                (
                    "response",
                    "http://e.com/plain",
                    "application/http; msgtype=response",
                ),
                &b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\nhello"[..],
                (287, 89),
                r#"com,e)/plain 20240102030405 {"url": "http://e.com/plain", "mime": "text/html", "status": "200", "digest": "sha1:VL2MMHO4YXUKFWV63YHTWSBM3GXKSQ2N", "length": "287", "offset": "89", "filename": "t.warc"}"#,
            ),
            (
                ("response", "dns:e.com", "text/dns"),
                &b"20240102030405\ne.com. 300 IN A 1.2.3.4\n"[..],
                (242, 709),
                r#"dns:e.com 20240102030405 {"url": "dns:e.com", "digest": "sha1:C3B5NEATWZSEMHC3EHUJRGM46NLR3G5X", "length": "242", "offset": "709", "filename": "t.warc"}"#,
            ),
            (
                ("response", "ftp://e.com/f.txt", "text/plain"),
                &b"file contents"[..],
                (226, 5691),
                r#"com,e)/f.txt 20240102030405 {"url": "ftp://e.com/f.txt", "digest": "sha1:ANH2F3MOEEPE2IHSBZ4S2537JIYK6GUT", "length": "226", "offset": "5691", "filename": "t.warc"}"#,
            ),
            (
                ("resource", "http://e.com/res256", "text/plain"),
                &b"resource body"[..],
                (260, 1199),
                r#"com,e)/res256 20240102030405 {"url": "http://e.com/res256", "mime": "text/plain", "digest": "sha1:UXDQ3V65EA3JE2MTJM4CI2T76V2ZAZH5", "length": "260", "offset": "1199", "filename": "t.warc"}"#,
            ),
            (
                ("metadata", "http://e.com/meta", "text/plain"),
                &b"some metadata"[..],
                (226, 1463),
                r#"com,e)/meta 20240102030405 {"url": "http://e.com/meta", "mime": "text/plain", "digest": "sha1:OABPZJG4EGJYB7RGDRCSJL6TFK2U5553", "length": "226", "offset": "1463", "filename": "t.warc"}"#,
            ),
            (
                (
                    "revisit",
                    "http://e.com/rev2",
                    "application/http; msgtype=response",
                ),
                &b""[..],
                (235, 2293),
                r#"com,e)/rev2 20240102030405 {"url": "http://e.com/rev2", "mime": "warc/revisit", "length": "235", "offset": "2293", "filename": "t.warc"}"#,
            ),
            (
                (
                    "response",
                    "http://e.com/fold",
                    "application/http; msgtype=response",
                ),
                &b"HTTP/1.1 200 OK\r\nContent-Type: text/html;\r\n charset=utf-8\r\n\r\nfolded"[..],
                (304, 2532),
                r#"com,e)/fold 20240102030405 {"url": "http://e.com/fold", "mime": "text/html", "status": "200", "digest": "sha1:NAVQKLKOA4QBACNBMX7GV6FR3LPBJZWZ", "length": "304", "offset": "2532", "filename": "t.warc"}"#,
            ),
            (
                (
                    "response",
                    "http://e.com/garbage",
                    "application/http; msgtype=response",
                ),
                &b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nGarbageLine\r\n\r\nbody"[..],
                (301, 2840),
                r#"com,e)/garbage 20240102030405 {"url": "http://e.com/garbage", "mime": "text/html", "status": "200", "digest": "sha1:AIED6RLZ4CFGCJBFYDA2C7XEPLOXQO4U", "length": "301", "offset": "2840", "filename": "t.warc"}"#,
            ),
            (
                (
                    "response",
                    "http://e.com/2000",
                    "application/http; msgtype=response",
                ),
                &b"HTTP/1.1 2000 OK\r\nContent-Type: text/html\r\n\r\nbody"[..],
                (286, 3145),
                r#"com,e)/2000 20240102030405 {"url": "http://e.com/2000", "mime": "text/html", "status": "2000", "digest": "sha1:AIED6RLZ4CFGCJBFYDA2C7XEPLOXQO4U", "length": "286", "offset": "3145", "filename": "t.warc"}"#,
            ),
            (
                (
                    "response",
                    "<http://e.com/x>",
                    "application/http; msgtype=response",
                ),
                &b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\nhi"[..],
                (282, 3435),
                r#"com,e)/x 20240102030405 {"url": "http://e.com/x", "mime": "text/html", "status": "200", "digest": "sha1:YIVV7ELYGQTASQUNN5I3FRNPJQF542SC", "length": "282", "offset": "3435", "filename": "t.warc"}"#,
            ),
            (
                (
                    "response",
                    "http://e.com/a b",
                    "application/http; msgtype=response",
                ),
                &b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\nhi"[..],
                (282, 3721),
                r#"com,e)/a%20b 20240102030405 {"url": "http://e.com/a%20b", "mime": "text/html", "status": "200", "digest": "sha1:YIVV7ELYGQTASQUNN5I3FRNPJQF542SC", "length": "282", "offset": "3721", "filename": "t.warc"}"#,
            ),
            (
                ("response", "http://e.com/weird", "text/html"),
                &b"<html><body>x</body></html>"[..],
                (240, 4007),
                r#"com,e)/weird 20240102030405 {"url": "http://e.com/weird", "digest": "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ", "length": "240", "offset": "4007", "filename": "t.warc"}"#,
            ),
            (
                (
                    "response",
                    "http://e.com/spacect",
                    "application/http; msgtype=response",
                ),
                &b"HTTP/1.1 200 OK\r\nContent-Type: text/html charset=x\r\n\r\nhi"[..],
                (296, 4251),
                r#"com,e)/spacect 20240102030405 {"url": "http://e.com/spacect", "mime": "text/html", "status": "200", "digest": "sha1:YIVV7ELYGQTASQUNN5I3FRNPJQF542SC", "length": "296", "offset": "4251", "filename": "t.warc"}"#,
            ),
            (
                (
                    "response",
                    "http://e.com/emptyct",
                    "application/http; msgtype=response",
                ),
                &b"HTTP/1.1 200 OK\r\nContent-Type: \r\n\r\nhi"[..],
                (277, 4551),
                r#"com,e)/emptyct 20240102030405 {"url": "http://e.com/emptyct", "mime": "", "status": "200", "digest": "sha1:YIVV7ELYGQTASQUNN5I3FRNPJQF542SC", "length": "277", "offset": "4551", "filename": "t.warc"}"#,
            ),
            (
                (
                    "response",
                    "http://e.com/nohead-end",
                    "application/http; msgtype=response",
                ),
                &b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"[..],
                (285, 5101),
                r#"com,e)/nohead-end 20240102030405 {"url": "http://e.com/nohead-end", "mime": "text/html", "status": "200", "digest": "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ", "length": "285", "offset": "5101", "filename": "t.warc"}"#,
            ),
            (
                (
                    "response",
                    "http://e.com/nostatus",
                    "application/http; msgtype=response",
                ),
                &b"HTTP/1.1\r\nContent-Type: text/html\r\n\r\nx"[..],
                (279, 5921),
                r#"com,e)/nostatus 20240102030405 {"url": "http://e.com/nostatus", "mime": "text/html", "status": "", "digest": "sha1:CH3K3DWFFIUYJK5K7V6DWULFAN4FYIDS", "length": "279", "offset": "5921", "filename": "t.warc"}"#,
            ),
            (
                (
                    "response",
                    "http://e.com/zero",
                    "application/http; msgtype=response",
                ),
                &b""[..],
                (236, 6204),
                r#"com,e)/zero 20240102030405 {"url": "http://e.com/zero", "digest": "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ", "length": "236", "offset": "6204", "filename": "t.warc"}"#,
            ),
            (
                (
                    "response",
                    "HTTP://E.com/upper",
                    "application/http; msgtype=response",
                ),
                &b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\nhi"[..],
                (284, 7561),
                r#"com,e)/upper 20240102030405 {"url": "HTTP://E.com/upper", "digest": "sha1:7LFS6UY23YOTVI62LXLOAWBKZ3O7ENM3", "length": "284", "offset": "7561", "filename": "t.warc"}"#,
            ),
        ] {
            let h = header(&[
                ("WARC-Type", warc_type),
                ("WARC-Target-URI", url),
                ("WARC-Date", "2024-01-02T03:04:05Z"),
                ("Content-Type", content_type),
            ]);
            let c = Capture::of(&h, block).unwrap();
            assert_eq!(c.line(length, offset, "t.warc"), want, "{url}");
        }
        let warc_fields = header(&[
            ("WARC-Type", "metadata"),
            ("WARC-Target-URI", "http://e.com/metawf"),
            ("WARC-Date", "2024-01-02T03:04:05Z"),
            ("Content-Type", "application/warc-fields"),
        ]);
        assert_eq!(Capture::of(&warc_fields, b"a: b\r\n"), None);
    }

    #[test]
    fn json_strings_as_python_writes_them() {
        let mut s = String::new();
        push_json_string(&mut s, "a\"b\\c\u{1}é😀");
        assert_eq!(s, "\"a\\\"b\\\\c\\u0001\\u00e9\\ud83d\\ude00\"");
    }

    #[test]
    fn index_paths() {
        assert_eq!(
            index_path(Path::new("/j/x-1.warc.gz")),
            Path::new("/j/x-1.cdxj")
        );
        assert_eq!(index_path(Path::new("x.warc.zst")), Path::new("x.cdxj"));
        assert_eq!(index_path(Path::new("x.warc")), Path::new("x.cdxj"));
        assert_eq!(index_path(Path::new("x.arc.gz")), Path::new("x.cdxj"));
        // Any case (xt15a F9).
        assert_eq!(
            index_path(Path::new("IAH-2001.ARC.GZ")),
            Path::new("IAH-2001.cdxj")
        );
        assert!(is_archive_name(Path::new("B.WARC.GZ")));
    }

    /// A file gzipped (or zstd-compressed) as one stream is refused, naming the file and how to mend it: its
    /// lines would all say offset 0, and a replay would show the first record for every capture.
    #[test]
    fn a_file_compressed_as_one_stream_is_not_indexed() {
        use std::io::Write;
        let gz = |bytes: &[u8]| {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(bytes).unwrap();
            e.finish().unwrap()
        };
        let date = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let response = |path: &str, body: &str| {
            crate::Record::response(
                &format!("http://example.org/{path}"),
                date,
                None,
                format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{body}").into_bytes(),
            )
            .to_bytes()
        };
        let warc = [
            response("one", "FIRST PAGE"),
            response("two", "SECOND PAGE"),
        ]
        .concat();
        let arc = b"filedesc://w.arc 0.0.0.0 20140216050221 text/plain 9\n1 0 Test\n\n\
            http://example.org/one 1.2.3.4 20140216050221 text/html 22\nHTTP/1.0 200 OK\r\n\r\none\n"
            .to_vec();
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            (
                "whole.warc.gz",
                gz(&warc),
                "trawl warc recompress",
                "OUT.warc.gz",
            ),
            (
                "whole.warc.zst",
                zstd::encode_all(&warc[..], 3).unwrap(),
                "trawl warc recompress",
                "OUT.warc.zst",
            ),
            (
                "whole.arc.gz",
                gz(&arc),
                "trawl warc convert",
                "OUT.warc.gz",
            ),
        ];
        for (name, bytes, command, out) in cases {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            let err = index_file(&path, name).unwrap_err();
            assert!(
                matches!(err, Error::SharedMember { offset: 0, .. }),
                "{err}"
            );
            let said = err.to_string();
            // The member is named, and its second record by its id (an ARC record has none) and place.
            let what = if name.ends_with(".zst") {
                "zstd frame"
            } else {
                "gzip member"
            };
            let want = format!(
                "{}: the {what} at offset 0 holds more than one record (the second, ",
                path.display()
            );
            assert!(said.starts_with(&want), "{said}");
            let second = if name.contains(".arc") {
                "the second, at byte 63 of its content)".to_owned()
            } else {
                let id = crate::open(&path).unwrap().nth(1).unwrap().unwrap();
                let id = id.get("WARC-Record-ID").unwrap().trim_matches(['<', '>']);
                let at = response("one", "FIRST PAGE").len();
                format!("the second, {id}, at byte {at} of its content)")
            };
            assert!(said.contains(&second), "{said}");
            assert!(
                said.ends_with(&format!("`{command} {} {out}`", path.display())),
                "{said}"
            );
            assert!(index_beside(&path).is_err());
            assert!(!index_path(&path).exists());
        }
        // One member per record (and a plain file) index as before.
        let members = [
            gz(&response("one", "FIRST PAGE")),
            gz(&response("two", "SECOND PAGE")),
        ];
        for (name, bytes) in [
            ("members.warc.gz", members.concat()),
            ("plain.warc", warc.clone()),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            let lines = index_file(&path, name).unwrap();
            assert_eq!(lines.len(), 2, "{name}");
            assert!(
                !lines[1].contains("\"offset\": \"0\""),
                "{name}: {}",
                lines[1]
            );
        }
    }

    proptest! {
        #[test]
        fn any_record_indexes_or_is_skipped(url in "\\PC{0,40}", date in "\\PC{0,30}", block in proptest::collection::vec(any::<u8>(), 0..200)) {
            let h = header(&[
                ("WARC-Type", "response"),
                ("WARC-Target-URI", &url),
                ("WARC-Date", &date),
                ("Content-Type", "application/http"),
            ]);
            if let Some(c) = Capture::of(&h, &block) {
                let line = c.line(1, 2, "f");
                prop_assert!(line.is_ascii() || !url.is_ascii());
                prop_assert!(!line.contains('\n'));
            }
        }
    }

    /// A plain WARC record of `fields` and `block`, as bytes.
    fn raw_record(fields: &[(&str, &str)], block: &[u8]) -> Vec<u8> {
        let mut r = b"WARC/1.1\r\n".to_vec();
        for (k, v) in fields {
            r.extend_from_slice(format!("{k}: {v}\r\n").as_bytes());
        }
        r.extend_from_slice(format!("Content-Length: {}\r\n\r\n", block.len()).as_bytes());
        r.extend_from_slice(block);
        r.extend_from_slice(b"\r\n\r\n");
        r
    }

    fn response(url: Option<&str>, date: Option<&str>) -> Vec<u8> {
        let mut fields = vec![
            ("WARC-Type", "response"),
            (
                "WARC-Record-ID",
                "<urn:uuid:00000000-0000-0000-0000-000000000001>",
            ),
            ("Content-Type", "application/http; msgtype=response"),
        ];
        fields.extend(url.map(|u| ("WARC-Target-URI", u)));
        fields.extend(date.map(|d| ("WARC-Date", d)));
        raw_record(
            &fields,
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\nhi",
        )
    }

    #[test]
    fn records_an_index_cannot_hold_are_named_and_the_rest_indexed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.warc");
        let date = Some("2026-11-30T00:00:00Z");
        let first = response(Some("http://a.example/"), date);
        let headless = response(None, date);
        let undated = response(Some("http://a.example/undated"), None);
        let warcinfo = raw_record(
            &[
                ("WARC-Type", "warcinfo"),
                ("Content-Type", "application/warc-fields"),
            ],
            b"software: t\r\n",
        );
        let last = response(Some("http://a.example/last"), date);
        let file = [&first, &headless, &undated, &warcinfo, &last]
            .map(|r| r.as_slice())
            .concat();
        std::fs::write(&path, &file).unwrap();
        let indexed = index_records(&path, "t.warc");
        assert!(indexed.stopped.is_none(), "{:?}", indexed.stopped);
        assert_eq!(indexed.lines.len(), 2, "{:?}", indexed.lines);
        assert_eq!(
            indexed.unindexed,
            vec![
                Unindexed {
                    offset: first.len() as u64,
                    warc_type: "response".into(),
                    missing: "WARC-Target-URI".into(),
                },
                Unindexed {
                    offset: (first.len() + headless.len()) as u64,
                    warc_type: "response".into(),
                    missing: "WARC-Date".into(),
                },
            ]
        );
        assert_eq!(index_file(&path, "t.warc").unwrap(), indexed.lines);
    }

    /// In a plain ARC damaged part way, the record before the damage has no line: its length may be what is
    /// wrong. Zero bytes after the last record leave every record its line.
    #[test]
    fn a_plain_arc_damaged_part_way_gives_lines_for_whole_records_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.arc");
        let record = |url: &str, content: &str| {
            format!(
                "{url} 1.2.3.4 20080430204826 text/html {}\n{content}\n",
                content.len()
            )
        };
        let ok = "HTTP/1.0 200 OK\r\n\r\nhello";
        let filedesc = record("filedesc://t.arc", "1 0 T\nURL IP-address\n");
        let (one, two, three) = (
            record("http://a.test/1", ok),
            record("http://a.test/2", ok),
            record("http://a.test/3", ok),
        );
        // /2's length says 3 bytes fewer than its content: /3's header line is not where it says.
        let lied = two.replacen(" 24\n", " 21\n", 1);
        assert_ne!(lied, two);
        let file = [filedesc.as_str(), &one, &lied, &three].concat();
        std::fs::write(&path, &file).unwrap();
        let indexed = index_records(&path, "t.arc");
        assert!(indexed.stopped.is_some());
        assert_eq!(indexed.unsure, Some((filedesc.len() + one.len()) as u64));
        assert_eq!(indexed.lines.len(), 1, "{:?}", indexed.lines);
        assert!(indexed.lines[0].contains("a.test/1"), "{:?}", indexed.lines);
        // The header's URL damaged (xt31a F4): named, and no line of its own; a file cut at the front, whose
        // first record is a capture: named, and its line kept.
        let damaged = [
            filedesc.replacen("filedesc", "fileddsc", 1).as_str(),
            &one,
            &two,
        ]
        .concat();
        std::fs::write(&path, &damaged).unwrap();
        let indexed = index_records(&path, "t.arc");
        assert_eq!(
            indexed.not_filedesc,
            Some((0, "fileddsc://t.arc".to_owned(), true))
        );
        assert_eq!(indexed.lines.len(), 2, "{:?}", indexed.lines);
        std::fs::write(&path, [one.as_str(), &two].concat()).unwrap();
        let indexed = index_records(&path, "t.arc");
        assert_eq!(
            indexed.not_filedesc,
            Some((0, "http://a.test/1".to_owned(), false))
        );
        assert_eq!(indexed.lines.len(), 2, "{:?}", indexed.lines);
        // Padded with zero bytes after whole records: every record has its line.
        let padded = [filedesc.as_str(), &one, &two, &three, &"\0".repeat(512)].concat();
        std::fs::write(&path, &padded).unwrap();
        let indexed = index_records(&path, "t.arc");
        assert!(indexed.stopped.is_some());
        assert_eq!((indexed.unsure, indexed.lines.len()), (None, 3));
        let stopped = |indexed: &Indexed| {
            indexed
                .stopped
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default()
        };
        // Cut inside the next header line: it begins where /2 ends, so /2 is whole (xt21b F4); said as a cut,
        // and convert keeps the records before it.
        let cut = [filedesc.as_str(), &one, &two, &three[..21]].concat();
        std::fs::write(&path, &cut).unwrap();
        let indexed = index_records(&path, "t.arc");
        let said = stopped(&indexed);
        assert!(
            said.contains("ends inside the record's header line"),
            "{said}"
        );
        assert_eq!((indexed.unsure, indexed.lines.len()), (None, 2), "{said}");
        let out = dir.path().join("t.warc.gz");
        let converted = crate::convert::convert(&path, &out).unwrap();
        assert_eq!(converted.records, 3);
        assert!(converted.stopped.is_some());
        // Content past a length too short is no header line: the record before it stays unsure (review 70
        // R3).
        let binary = [
            filedesc.as_str(),
            &one,
            lied.trim_end_matches('\n'),
            "\u{1}\u{2}binary",
        ]
        .concat();
        std::fs::write(&path, &binary).unwrap();
        let indexed = index_records(&path, "t.arc");
        let said = stopped(&indexed);
        assert!(!said.contains("header line, after"), "{said}");
        assert_eq!(indexed.unsure, Some((filedesc.len() + one.len()) as u64));
    }

    #[test]
    fn a_file_damaged_part_way_keeps_the_lines_before_the_damage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.warc");
        let date = Some("2026-11-30T00:00:00Z");
        let mut file = response(Some("http://a.example/1"), date);
        let second = file.len() as u64;
        file.extend(response(Some("http://a.example/2"), date));
        file.extend_from_slice(
            b"WARC/1.1\r\nWARC-Type: response\r\nContent-Length: 9999\r\n\r\ncut short",
        );
        std::fs::write(&path, &file).unwrap();
        let indexed = index_records(&path, "t.warc");
        assert_eq!(indexed.lines.len(), 2, "{:?}", indexed.lines);
        // The two share a record id (as a file concatenated with itself): the second is named.
        assert_eq!(indexed.repeated_id, Some((second, 0)));
        assert!(indexed.stopped.is_some());
        assert!(index_file(&path, "t.warc").is_err());
    }

    /// An index beside a WARC is compared with the WARC's lines: the same lines sorted pass; another file's
    /// name, a wrong offset, a line missing or one too many are named by the first difference.
    #[test]
    fn an_index_differing_from_its_warc_is_named_by_its_first_difference() {
        let dir = tempfile::tempdir().unwrap();
        let date = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let mut w = crate::Writer::new(crate::WriterConfig::new(dir.path(), "t", "h")).unwrap();
        for page in ["b", "a"] {
            let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{page}");
            let rec = crate::Record::response(
                &format!("http://example.org/{page}"),
                date,
                None,
                http.into_bytes(),
            );
            w.write(&[rec]).unwrap();
        }
        let warc = w.close().unwrap().remove(0);
        let name = warc.file_name().unwrap().to_str().unwrap().to_owned();
        let lines: Vec<_> = index_file(&warc, &name)
            .unwrap()
            .into_iter()
            .map(|l| (l, None))
            .collect();
        let index = index_path(&warc);
        assert_eq!(index_difference(&index, &lines).unwrap(), None);
        let written = std::fs::read_to_string(&index).unwrap();
        let first: Vec<&str> = written.lines().collect();
        let offset = line_offset(first[0]);
        let cases = [
            (
                written.replace(&name, "other.warc.gz"),
                format!(
                    "line 1: {}: filename \"other.warc.gz\" where the WARC gives \"{name}\"",
                    key(first[0])
                ),
            ),
            (
                written.replacen(
                    &format!("\"offset\": \"{offset}\""),
                    &format!("\"offset\": \"{}\"", offset + 7),
                    1,
                ),
                format!(
                    "line 1: {}: offset \"{}\" where the WARC gives \"{offset}\"",
                    key(first[0]),
                    offset + 7
                ),
            ),
            (
                format!("{}\n", first[0]),
                format!(
                    "it ends after 1 line, where the WARC's records give 2: the first missing is `{}`",
                    first[1]
                ),
            ),
            (
                format!("{written}{}\n", first[1]),
                format!(
                    "it has more lines than the 2 the WARC's records give: line 3 is `{}`",
                    first[1]
                ),
            ),
        ];
        for (text, want) in cases {
            std::fs::write(&index, &text).unwrap();
            assert_eq!(index_difference(&index, &lines).unwrap(), Some(want));
        }
        // The same captures another way: lines in another order, CRLF, a blank line at the end, the JSON's
        // fields reordered (review R5: another tool's index of the same captures failed).
        let reordered = |line: &str| {
            let (head, json) = line.rsplit_once(" {").unwrap();
            let fields: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(&format!("{{{json}")).unwrap();
            let mut backwards: Vec<_> = fields.into_iter().collect();
            backwards.reverse();
            let json: Vec<String> = backwards
                .iter()
                .map(|(k, v)| format!("{:?}: {v}", k))
                .collect();
            format!("{head} {{{}}}", json.join(", "))
        };
        let same = format!("{}\r\n{}\r\n\r\n", reordered(first[0]), reordered(first[1]));
        std::fs::write(&index, &same).unwrap();
        assert_eq!(index_difference(&index, &lines).unwrap(), None, "{same}");
        // The same lines out of order: no index pywb can search (xt11a F4).
        std::fs::write(&index, format!("{}\n{}\n", first[1], first[0])).unwrap();
        let said = index_difference(&index, &lines).unwrap().unwrap();
        assert!(
            said.starts_with("line 2 sorts before the line above it"),
            "{said}"
        );
        std::fs::remove_file(&index).unwrap();
        assert!(index_difference(&index, &lines).is_err());
        assert_eq!(line_filename(first[0]), Some(name));
        assert_eq!(line_filename("not an index line"), None);
    }

    /// An ARC record's chunked response digested as sent, as cdxj-indexer digests it, is the same capture
    /// as trawl's line, which digests it de-chunked; another digest is still a difference (xt15a F13). With
    /// a second capture of the same key and time, whose digest sorts between the two forms, the lines
    /// still pair aright (review 64 R2).
    #[test]
    fn a_chunked_payload_digested_as_sent_is_the_same_capture() {
        let chunked: &[u8] =
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n\
                               5\r\nhello\r\n0\r\n\r\n";
        let plain: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nz";
        let mut arc =
            b"filedesc://c.arc 0.0.0.0 20140216050220 text/plain 9\n1 0 Test\n\n".to_vec();
        for body in [chunked, plain] {
            arc.extend_from_slice(
                format!(
                    "http://127.0.0.1:9/chunk 127.0.0.1 20140216050224 text/plain {}\n",
                    body.len()
                )
                .as_bytes(),
            );
            arc.extend_from_slice(body);
            arc.push(b'\n');
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.arc");
        std::fs::write(&path, &arc).unwrap();
        let summary =
            crate::verify_with(&path, crate::VerifyOptions::default().with_index()).unwrap();
        let lines: Vec<_> = summary
            .index
            .unwrap()
            .into_iter()
            .zip(summary.index_others)
            .collect();
        let (ours, z) = (&lines[0].0, &lines[1].0);
        let hello = crate::digest::sha1_digest(b"hello");
        let as_sent = crate::digest::sha1_digest(b"5\r\nhello\r\n0\r\n\r\n");
        let z_digest = crate::digest::sha1_digest(b"z");
        assert!(ours.contains(&hello) && z.contains(&z_digest), "{lines:?}");
        // The as-sent digest sorts before the other capture's, trawl's own after it.
        assert!(as_sent < z_digest && z_digest < hello);
        let index = dir.path().join("c.cdxj");
        for (digest, same) in [
            (&hello, true),
            (&as_sent, true),
            (&crate::digest::sha1_digest(b"x"), false),
        ] {
            let mut both = [ours.replace(&hello, digest), z.clone()];
            both.sort();
            std::fs::write(&index, both.join("\n") + "\n").unwrap();
            assert_eq!(
                index_difference(&index, &lines).unwrap().is_none(),
                same,
                "{digest}"
            );
        }
    }

    /// The answers to a login's POSTs keyed as `cdxj-indexer` keys them, by default (as GETs) or with `-p`
    /// (the form appended), are the same captures as trawl's `__wb_method=post` lines (xt11a F12: verify
    /// failed such an index, pairing a POST's line with another capture's).
    #[test]
    fn a_post_keyed_as_another_indexer_keys_it_is_the_same_capture() {
        let line = |key: &str, time: &str, status: &str, offset: &str, post: &str| {
            format!(
                "{key} {time} {{\"url\": \"http://127.0.0.1:8821/login\", \"mime\": \"text/html\", \
                 \"status\": \"{status}\", \"digest\": \"sha1:X\", \"length\": \"465\", \"offset\": \
                 \"{offset}\", \"filename\": \"t.warc.gz\"{post}}}"
            )
        };
        let get = "1,0,0,127:8821)/login";
        let trawl = [
            line(get, "20261201001441", "200", "1638", ""),
            line(get, "20261201001443", "200", "4492", ""),
            line(
                &format!("{get}?__wb_method=post"),
                "20261201001441",
                "429",
                "3050",
                ", \"method\": \"POST\"",
            ),
            line(
                &format!("{get}?__wb_method=post"),
                "20261201001443",
                "302",
                "5905",
                ", \"method\": \"POST\"",
            ),
        ];
        let appended = format!("{get}?__wb_method=post&password=pw&username=arch");
        let body = ", \"requestBody\": \"username=arch&password=pw\", \"method\": \"POST\"";
        let as_gets = [
            &trawl[0],
            &line(get, "20261201001441", "429", "3050", ""),
            &trawl[1],
            &line(get, "20261201001443", "302", "5905", ""),
        ]
        .map(|l| l.to_string());
        let with_bodies = [
            trawl[0].clone(),
            trawl[1].clone(),
            line(&appended, "20261201001441", "429", "3050", body),
            line(&appended, "20261201001443", "302", "5905", body),
        ];
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("t.cdxj");
        let trawl: Vec<_> = trawl.iter().map(|l| (l.clone(), None)).collect();
        for other in [&as_gets, &with_bodies] {
            std::fs::write(&index, other.join("\n") + "\n").unwrap();
            assert_eq!(index_difference(&index, &trawl).unwrap(), None, "{other:?}");
        }
        // A POST's answer keyed by another path is a difference (xt13a F1).
        let elsewhere = with_bodies[2].replacen(")/login?", ")/login/evil?", 1);
        std::fs::write(
            &index,
            [&with_bodies[..2], &[elsewhere], &with_bodies[3..]]
                .concat()
                .join("\n"),
        )
        .unwrap();
        assert!(index_difference(&index, &trawl).unwrap().is_some());
        // A POST's answer at another offset is still a difference.
        let moved = with_bodies[3].replace("5905", "5906");
        std::fs::write(&index, [&with_bodies[..3], &[moved]].concat().join("\n")).unwrap();
        let said = index_difference(&index, &trawl).unwrap().unwrap();
        assert!(said.contains("5906"), "{said}");
    }

    /// The `KEY TIMESTAMP` of an index line.
    fn key(line: &str) -> String {
        line.splitn(3, ' ').take(2).collect::<Vec<_>>().join(" ")
    }

    /// The `offset` of an index line.
    fn line_offset(line: &str) -> u64 {
        let json: serde_json::Value =
            serde_json::from_str(line.splitn(3, ' ').nth(2).unwrap()).unwrap();
        json["offset"].as_str().unwrap().parse().unwrap()
    }
}
