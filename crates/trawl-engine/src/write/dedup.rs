//! The digest table of deduplication: payload digest → the capture that holds the payload (URI, date, record
//! id). It is derived state: rebuilt when a crawl starts or resumes from the CDXJ indexes of the job's closed
//! WARCs (so it never points at a record a crash cut off) and of the `dedup_from` sources (CDXJ, classic CDX
//! as Heritrix and the Wayback Machine write it, or WARC/ARC files indexed on the way in), and kept in an
//! fjall keyspace whose memory is bounded by `warc.dedup_memory_mb` (the rest on disk).

use std::path::{Path, PathBuf};

use fastbloom::AtomicBloomFilter;
use fjall::{Database, Keyspace, KeyspaceCreateOptions};
use trawl_warc::{CdxFormat, RefersTo};

use crate::Error;

/// The table.
pub(crate) struct DigestTable {
    _db: Database,
    digests: Keyspace,
    /// The digests `digests` may hold. Nearly every payload of a crawl is new, and asking fjall about it is a
    /// memtable search per response (2% of a broad crawl's CPU); the filter's "no" is certain, and only its
    /// "maybe" asks the table. An eighth of the table's memory, so about 7M digests at 1% false positives
    /// with the default `warc.dedup_memory_mb`; more only make it answer "maybe" more often.
    known: AtomicBloomFilter,
    /// URL → the validators and place of its capture in a `dedup_from` job (for conditional recrawls).
    previous: Keyspace,
}

/// An earlier capture of a URL: what to send back to the server, and what a `304` revisit points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PreviousCapture {
    pub(crate) validators: trawl_fetch::Validators,
    pub(crate) refers_to: RefersTo,
    pub(crate) digest: String,
    /// The links its metadata record lists (`URL HOP` each): a `304` brings no body to find them in again.
    pub(crate) outlinks: Vec<(String, char)>,
}

impl std::fmt::Debug for DigestTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DigestTable").finish_non_exhaustive()
    }
}

impl DigestTable {
    /// An empty table in `dir` (anything there before is removed: the table is rebuilt from indexes).
    pub(crate) fn create(dir: &Path, memory_mb: u64) -> Result<DigestTable, Error> {
        let io = |source| Error::Io {
            path: dir.to_path_buf(),
            source,
        };
        if dir.exists() {
            std::fs::remove_dir_all(dir).map_err(io)?;
        }
        std::fs::create_dir_all(dir).map_err(io)?;
        let store = |e: fjall::Error| Error::Dedup {
            path: dir.to_path_buf(),
            message: trawl_frontier::store_failure(dir, &e),
        };
        let bytes = memory_mb.max(1) << 20;
        // The table is rebuilt from the indexes whenever a crawl starts or resumes, so fjall's journal of it
        // need not reach the operating system on every insert: left buffered, it saves a write(2) per
        // response.
        let options = |memtable: u64| {
            KeyspaceCreateOptions::default()
                .max_memtable_size(memtable)
                .manual_journal_persist(true)
        };
        let db = Database::builder(dir)
            // Half the memory for the digests' write buffer, an eighth for the filter, the rest cache.
            .cache_size(bytes / 2 - bytes / 8)
            .open()
            .map_err(store)?;
        let digests = db
            .keyspace("digests", || options(bytes / 2))
            .map_err(store)?;
        let previous = db
            .keyspace("previous", || options(bytes / 4))
            .map_err(store)?;
        let bits = usize::try_from(bytes).unwrap_or(usize::MAX);
        Ok(DigestTable {
            _db: db,
            digests,
            known: AtomicBloomFilter::with_num_bits(bits).expected_items(bits / 10),
            previous,
        })
    }

    /// The capture that holds the payload with `digest`, if one does.
    pub(crate) fn get(&self, digest: &str) -> Option<RefersTo> {
        if !self.known.contains(digest) {
            return None;
        }
        let value = self.digests.get(digest.as_bytes()).ok()??;
        decode(&value)
    }

    /// Records that `refers_to` holds the payload with `digest` (the first capture of a payload stays).
    pub(crate) fn insert(&self, digest: &str, refers_to: &RefersTo) {
        // The filter learns the digest first, hashing it once for both the question and the answer; if the
        // table's insert then fails, the filter's "maybe" only sends lookups to the table, which says no.
        let maybe_known = self.known.insert(digest);
        if maybe_known && matches!(self.digests.get(digest.as_bytes()), Ok(Some(_))) {
            return;
        }
        // A failed insert only means a later copy is stored whole.
        let _ = self.digests.insert(digest.as_bytes(), encode(refers_to));
    }

    /// Adds the captures of one source file (revisits skipped: they hold no payload); a damaged file gives
    /// what could be read of it, and says what was wrong ([`Loaded`]).
    pub(crate) fn load(&self, source: &IndexSource) -> Loaded {
        captures(source, |digest, refers| self.insert(digest, refers))
    }
}

/// What reading one source file came to. A damaged file does not stop a crawl: its lines that cannot be
/// read are skipped, and a file that stops being readable (not text, cut short, a WARC record that does not
/// parse) gives what came before; the crawl deduplicates a little less.
#[derive(Debug, Default)]
pub(crate) struct Loaded {
    /// Captures read (lines of an index, records of an archive) that hold a payload: a revisit's line,
    /// skipped, is not counted (xt45a F2: the log counted them as captures offered).
    pub(crate) lines: usize,
    /// Lines skipped.
    pub(crate) skipped: usize,
    /// The first skipped line's problem.
    pub(crate) first_skipped: Option<Error>,
    /// Damage read past (the records in it unread, those after it read), and the first of it.
    pub(crate) passed: usize,
    pub(crate) first_passed: Option<trawl_warc::Passed>,
    /// What ended the file before its end.
    pub(crate) stopped: Option<Error>,
    /// Where whole records of another warcinfo begin after it, not read ([`trawl_warc::unread_other_hint`]).
    pub(crate) unread_other: Option<u64>,
}

impl Loaded {
    /// Whether the file was read whole.
    pub(crate) fn whole(&self) -> bool {
        self.skipped == 0 && self.passed == 0 && self.stopped.is_none()
    }

    /// The file's first problem, as an error naming it (for tools that refuse a damaged source).
    fn into_result(self, path: &Path) -> Result<usize, Error> {
        let passed = self.first_passed.map(|p| Error::DamagedArchive(p.damage));
        match passed.or(self.stopped).or(self.first_skipped) {
            None => Ok(self.lines),
            Some(problem) => Err(Error::DedupSource {
                path: path.to_path_buf(),
                problem: Box::new(problem),
            }),
        }
    }

    /// The warning for a damaged file (`None` when it was read whole): the file, where and what is wrong,
    /// what was used of it, and what to do.
    pub(crate) fn warning(&self, path: &Path) -> Option<String> {
        if self.whole() {
            return None;
        }
        let mut said = format!("dedup: {} is damaged: ", path.display());
        if let Some(first) = &self.first_skipped {
            let what = match first {
                Error::UnindexedRecord { .. } => "record",
                _ => "line",
            };
            said.push_str(&format!(
                "{} {what}{} skipped (the first: {first})",
                self.skipped,
                if self.skipped == 1 { "" } else { "s" }
            ));
        }
        if let Some(first) = &self.first_passed {
            if self.first_skipped.is_some() {
                said.push_str("; ");
            }
            said.push_str(&format!(
                "{} of damage read past, the records in it unread (the first: {first})",
                if self.passed == 1 {
                    "1 stretch".to_owned()
                } else {
                    format!("{} stretches", self.passed)
                }
            ));
        }
        if let Some(stop) = &self.stopped {
            if self.first_skipped.is_some() || self.first_passed.is_some() {
                said.push_str("; then ");
            }
            said.push_str(&format!("{stop}; the rest of the file is not read"));
            if let Some(other) = self.unread_other {
                said.push_str(&format!(
                    " ({})",
                    trawl_warc::unread_other_hint(path, other)
                ));
            }
        }
        let one_stream = matches!(
            &self.stopped,
            Some(Error::DamagedArchive(
                trawl_warc::Error::SharedMember { .. }
            ))
        );
        let mend = if one_stream {
            // Nothing of such a file can be indexed: an index of it would be empty (xt19a F6).
            "mend the file as said (`trawl warc recompress`), or take it out of [warc] dedup_from"
                .to_owned()
        } else if trawl_warc::is_archive_name(path) {
            format!(
                "mend the file, or index what can be read of it (`trawl warc index {} -o {}` writes the captures \
                 it can read; the index beside it is then read instead), or take it out of [warc] dedup_from",
                path.display(),
                trawl_warc::index_path(path).display()
            )
        } else {
            "mend the file or take it out of [warc] dedup_from".to_owned()
        };
        said.push_str(&format!(
            "; {} capture{} read from it {} used. The crawl goes on, deduplicating less (a payload only in \
             the unread part is stored again); {mend}",
            self.lines,
            if self.lines == 1 { "" } else { "s" },
            if self.lines == 1 { "is" } else { "are" },
        ));
        Some(said)
    }
}

/// Calls `each` with the payload digest (`sha1:BASE32` where it is SHA-1) and place of every capture of one
/// source file, revisits skipped (they hold no payload): what could be read of it.
fn captures(source: &IndexSource, each: impl FnMut(&str, &RefersTo)) -> Loaded {
    match source {
        IndexSource::Index(path) => index_captures(path, each),
        IndexSource::Archive(path) => archive_captures(path, each),
    }
}

/// The captures of a WARC or ARC file with no index beside it, indexed on the way in. A file damaged part
/// way gives the captures before the damage, and the damage is reported as what stopped it.
fn archive_captures(path: &Path, mut each: impl FnMut(&str, &RefersTo)) -> Loaded {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut indexed = trawl_warc::index_records(path, &name);
    // A file with a member of several records is left out until it is mended (archive.md), as when every
    // record but the first had no line.
    if let Some(shared) = indexed.shared.drain(..).next() {
        indexed.lines.clear();
        indexed.unindexed.clear();
        indexed.stopped = indexed.stopped.or(Some(shared));
    }
    let mut used = 0;
    for line in &indexed.lines {
        let Some((digest, mut refers)) = capture_of_line(line).flatten() else {
            continue;
        };
        used += 1;
        // An ARC capture is named as `trawl warc convert` names it (`caf%E9` for a latin-1 byte), as a CDX of
        // the same ARC names it: its revisits resolve in the ARC's WARC once it is migrated.
        if !indexed.converted_uris.is_empty()
            && let Some(uri) = offset_of_line(line).and_then(|o| indexed.converted_uris.get(&o))
        {
            refers.target_uri.clone_from(uri);
        }
        each(&digest, &refers);
    }
    // A response without a readable date or target gives no capture: said, as an index's bad line is (xt15c
    // F7). Other records hold no payload to deduplicate against.
    let unused: Vec<_> = indexed
        .unindexed
        .iter()
        .filter(|u| u.warc_type == "response")
        .collect();
    let first_skipped = unused.first().map(|u| Error::UnindexedRecord {
        path: path.to_path_buf(),
        offset: u.offset,
        warc_type: u.warc_type.clone(),
        missing: u.missing.clone(),
    });
    Loaded {
        lines: used,
        skipped: unused.len(),
        first_skipped,
        passed: indexed.passed.len(),
        first_passed: indexed.passed.into_iter().next(),
        stopped: indexed.stopped.map(Error::DamagedArchive),
        unread_other: indexed.unread_other,
    }
}

/// The longest line an index may have: past it the file is no index (a binary file may have no line break).
const MAX_INDEX_LINE: usize = 1 << 20;

/// The lines of an index file, read one at a time (an index may be far larger than memory), gunzipped on the
/// way when it is gzip (`.cdx.gz`, as Wayback collections keep them). A byte that is not UTF-8 (a Latin-1
/// URL in a Heritrix CDX) is percent-encoded, as a URL's byte is; a control byte means the file is no text.
struct IndexLines {
    path: PathBuf,
    reader: Box<dyn std::io::BufRead>,
    raw: Vec<u8>,
    line: String,
    /// Lines read, and bytes before the next one (after gunzipping).
    number: usize,
    offset: u64,
}

impl IndexLines {
    fn open(path: &Path) -> Result<IndexLines, Error> {
        use std::io::BufRead;
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = trawl_config::settings::named_file::open_named(path).map_err(io)?;
        let mut file = std::io::BufReader::new(file);
        let zip = file.fill_buf().map_err(io)?.starts_with(b"PK\x03\x04");
        let mut file: Box<dyn BufRead> = if zip {
            Box::new(std::io::BufReader::new(wacz_index(
                path,
                file.into_inner(),
            )?))
        } else {
            Box::new(file)
        };
        let gzip = file.fill_buf().map_err(io)?.starts_with(&[0x1f, 0x8b]);
        let reader: Box<dyn BufRead> = if gzip {
            Box::new(std::io::BufReader::new(
                flate2::bufread::MultiGzDecoder::new(file),
            ))
        } else {
            file
        };
        Ok(IndexLines {
            path: path.to_path_buf(),
            reader,
            raw: Vec::new(),
            line: String::new(),
            number: 0,
            offset: 0,
        })
    }

    /// The next line (1-based number, text without its line break), `None` at the end.
    fn next_line(&mut self) -> Result<Option<(usize, &str)>, Error> {
        use std::io::{BufRead, Read};
        self.raw.clear();
        let limit = MAX_INDEX_LINE as u64 + 1;
        let read = (&mut self.reader)
            .take(limit)
            .read_until(b'\n', &mut self.raw)
            .map_err(|source| Error::Io {
                path: self.path.clone(),
                source,
            })?;
        if read == 0 {
            return Ok(None);
        }
        self.number += 1;
        let start = self.offset;
        self.offset += read as u64;
        if self.raw.len() > MAX_INDEX_LINE {
            return Err(Error::NotAnIndex {
                path: self.path.clone(),
                offset: start,
            });
        }
        let mut raw = self.raw.as_slice();
        if self.number == 1 {
            // A byte-order mark (a file saved by a Windows editor) is no part of the first line.
            raw = raw.strip_prefix(b"\xef\xbb\xbf").unwrap_or(raw);
        }
        raw = raw.strip_suffix(b"\n").unwrap_or(raw);
        raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if let Some(at) = raw
            .iter()
            .position(|&b| b < 0x20 && b != b'\t' || b == 0x7f)
        {
            return Err(Error::NotAnIndex {
                path: self.path.clone(),
                offset: start + at as u64,
            });
        }
        self.line.clear();
        for chunk in raw.utf8_chunks() {
            self.line.push_str(chunk.valid());
            for b in chunk.invalid() {
                self.line.push_str(&format!("%{b:02X}"));
            }
        }
        Ok(Some((self.number, &self.line)))
    }
}

/// The index of the WACZ `file` (at `path`): its `indexes/index.cdx.gz`, `index.cdx` or `index.cdxj` entry,
/// read in place (a WACZ stores its entries; a deflated one is inflated on the way), so that a crawl kept
/// as its package deduplicates against it (xt10b F6). Its captures name the package's WARCs, whose
/// revisits point at them by URI and date, as with any index.
fn wacz_index(path: &Path, file: std::fs::File) -> Result<Box<dyn std::io::Read>, Error> {
    use std::io::{Read, Seek};
    let bad = |why: String| Error::BadWacz {
        path: path.to_path_buf(),
        why,
    };
    let mut archive =
        zip::ZipArchive::new(file).map_err(|e| bad(format!("not a zip file ({e})")))?;
    let name = [
        "indexes/index.cdx.gz",
        "indexes/index.cdx",
        "indexes/index.cdxj",
    ]
    .into_iter()
    .find(|n| archive.index_for_name(n).is_some())
    .ok_or_else(|| bad("it holds no indexes/index.cdx(.gz) or index.cdxj".into()))?;
    let (start, size, method) = {
        let entry = archive
            .by_name(name)
            .map_err(|e| bad(format!("{name}: {e}")))?;
        (
            entry
                .data_start()
                .ok_or_else(|| bad(format!("{name}: where its data starts is unknown")))?,
            entry.compressed_size(),
            entry.compression(),
        )
    };
    // A WACZ stores its entries; deflate is read too, anything else is said.
    if !matches!(
        method,
        zip::CompressionMethod::Stored | zip::CompressionMethod::Deflated
    ) {
        return Err(bad(format!(
            "{name} is compressed with {method}, which is not read (store or deflate it)"
        )));
    }
    let mut file = archive.into_inner();
    file.seek(std::io::SeekFrom::Start(start))
        .map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
    let entry = file.take(size);
    Ok(match method {
        zip::CompressionMethod::Stored => Box::new(entry),
        _ => Box::new(flate2::read::DeflateDecoder::new(entry)),
    })
}

/// The captures of the index at `path`: CDXJ, or classic CDX (with its ` CDX …` header, or without one in the
/// 11- or 9-field form; a header further down switches the layout); either may be gzipped, and may begin with
/// a byte-order mark. A line that cannot be read is skipped; a file that is no text
/// (or a CDX header that cannot be read) stops there.
fn index_captures(path: &Path, mut each: impl FnMut(&str, &RefersTo)) -> Loaded {
    let mut loaded = Loaded::default();
    let mut lines = match IndexLines::open(path) {
        Ok(lines) => lines,
        Err(e) => {
            loaded.stopped = Some(e);
            return loaded;
        }
    };
    // What the first line that is not blank says the file is: CDXJ (`None`) or classic CDX.
    let mut classic: Option<Option<CdxFormat>> = None;
    // Whether the classic CDX file has no header (its lines' forms are told by their counts of fields).
    let mut headerless = false;
    loop {
        let (i, line) = match lines.next_line() {
            Ok(Some(next)) => next,
            Ok(None) => break,
            Err(e) => {
                loaded.stopped = Some(e);
                break;
            }
        };
        if line.is_empty() {
            continue;
        }
        // A header names the fields of the lines after it, also further down: CDX files of two tools
        // concatenated (`cat *.cdx`) each keep their own.
        if classic.as_ref().is_none_or(Option::is_some) && trawl_warc::cdx::is_header(line) {
            match CdxFormat::from_header(line) {
                Ok(format) => {
                    classic = Some(Some(format));
                    headerless = false;
                    continue;
                }
                Err(source) => {
                    loaded.stopped = Some(Error::BadCdx {
                        path: path.to_path_buf(),
                        line: i,
                        source,
                    });
                    break;
                }
            }
        }
        let mut skip = |e: Error| {
            loaded.skipped += 1;
            loaded.first_skipped.get_or_insert(e);
        };
        // Counted only where a line's form is told by it (a CDXJ line needs no count).
        let count = || line.trim_end_matches(' ').split(' ').count();
        let format = match &classic {
            Some(format) => format,
            None if capture_of_line(line).is_none() => match CdxFormat::guess(count()) {
                Some(format) => {
                    headerless = true;
                    classic.insert(Some(format))
                }
                // Neither a CDXJ line nor one of a CDX file without a header: skipped, and the next line
                // tells the file's form (review 84 R8: all the file's lines were skipped as bad CDXJ).
                None => {
                    skip(unreadable_first(path, i, line, count()));
                    continue;
                }
            },
            None => classic.insert(None),
        };
        let Some(format) = format else {
            match capture_of_line(line) {
                Some(Some((digest, mut refers))) => {
                    if let Some(uri) = converted_spelling(path, line, &refers.target_uri) {
                        refers.target_uri = uri;
                    }
                    each(&digest, &refers);
                    loaded.lines += 1;
                }
                // A revisit: no payload, not counted.
                Some(None) => {}
                None => {
                    skip(Error::BadIndex {
                        path: path.to_path_buf(),
                        line: i,
                    });
                    continue;
                }
            }
            continue;
        };
        // Without a header each line is read in the form its own count of fields has (9 or 11): two
        // header-less files joined hold both (xt45a F4).
        let own = headerless
            .then(count)
            .filter(|&n| n != format.len())
            .and_then(CdxFormat::guess);
        let c = match own.as_ref().unwrap_or(format).capture(line) {
            Ok(c) => c,
            Err(trawl_warc::cdx::CdxError::FieldCount { found, .. }) if headerless => {
                skip(Error::BadCdx {
                    path: path.to_path_buf(),
                    line: i,
                    source: trawl_warc::cdx::CdxError::HeaderlessFieldCount { found },
                });
                continue;
            }
            Err(source) => {
                skip(Error::BadCdx {
                    path: path.to_path_buf(),
                    line: i,
                    source,
                });
                continue;
            }
        };
        if c.is_revisit() {
            continue;
        }
        // `capture` checked the timestamp: the date is always there.
        if let (Some(digest), Some(date)) = (&c.digest, c.warc_date()) {
            loaded.lines += 1;
            each(
                digest,
                &RefersTo {
                    target_uri: c.url.to_owned(),
                    date,
                    record_id: None,
                },
            );
        }
    }
    loaded
}

/// The `dedup_from` sources and, after them, the sources each job among them was itself deduplicated against
/// (the `dedup_from` of its `JOB/crawl.toml`, written absolute), transitively, each once: a recrawl of a recrawl
/// holds revisits, whose payloads are only in the crawl before. Nearer sources come first.
pub fn with_earlier_sources(sources: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut queue: std::collections::VecDeque<PathBuf> = sources.iter().cloned().collect();
    while let Some(source) = queue.pop_front() {
        if !seen.insert(source.canonicalize().unwrap_or_else(|_| source.clone())) {
            continue;
        }
        let config = source.join("crawl.toml");
        if config.is_file() {
            match trawl_config::CrawlConfig::load(&config) {
                Ok(c) => {
                    for earlier in &c.warc.dedup_from {
                        tracing::info!(
                            "dedup: {} was deduplicated against {}: read too",
                            source.display(),
                            earlier.display()
                        );
                    }
                    queue.extend(c.warc.dedup_from.iter().cloned());
                }
                Err(e) => tracing::warn!(
                    "dedup: {} is read, but not the sources it was deduplicated against: {e}",
                    source.display()
                ),
            }
        }
        out.push(source);
    }
    out
}

/// Why a line that comes before any line telling the file's form was skipped: as CDXJ where it looks like it
/// (a JSON block after the key and the date), else as a CDX line without a header.
fn unreadable_first(path: &Path, line: usize, text: &str, fields: usize) -> Error {
    let path = path.to_path_buf();
    if text
        .splitn(3, ' ')
        .nth(2)
        .is_some_and(|block| block.starts_with('{'))
    {
        return Error::BadIndex { path, line };
    }
    Error::BadCdx {
        path,
        line,
        source: trawl_warc::cdx::CdxError::HeaderlessFieldCount { found: fields },
    }
}

/// The payload digests archived in a `dedup_from` source (a job, a folder, an index or an archive): what
/// revisits written against it may point at (`trawl warc verify JOB`).
pub fn payload_digests(source: &Path) -> Result<std::collections::HashSet<String>, Error> {
    let mut digests = std::collections::HashSet::new();
    for file in index_files(source)? {
        captures(&file, |digest, _| {
            digests.insert(digest.to_owned());
        })
        .into_result(file.path())?;
    }
    Ok(digests)
}

impl DigestTable {
    /// The earlier capture of `url` with validators, if a `dedup_from` job holds one.
    pub(crate) fn previous(&self, url: &str) -> Option<PreviousCapture> {
        let value = self.previous.get(url.as_bytes()).ok()??;
        let text = std::str::from_utf8(&value).ok()?;
        let mut f = text.split('\n');
        let (etag, lm, date, digest, id) = (f.next()?, f.next()?, f.next()?, f.next()?, f.next()?);
        let links = f.next().unwrap_or_default();
        // The capture that holds the payload: the URL's own, or for a revisit the one it refers to.
        let target = f.next().filter(|t| !t.is_empty()).unwrap_or(url);
        let outlinks = links
            .split('\t')
            .filter_map(|o| {
                let (url, hop) = o.rsplit_once(' ')?;
                Some((url.to_owned(), hop.chars().next()?))
            })
            .collect();
        let some = |s: &str| (!s.is_empty()).then(|| s.to_owned());
        Some(PreviousCapture {
            validators: trawl_fetch::Validators {
                etag: some(etag),
                last_modified: some(lm),
            },
            refers_to: RefersTo {
                target_uri: target.to_owned(),
                date: date.to_owned(),
                record_id: some(id),
            },
            digest: digest.to_owned(),
            outlinks,
        })
    }

    /// Reads the responses and revisits of the WARCs `source` stands for (a `dedup_from` entry: a job, a
    /// folder of WARCs or WACZ packages, one WARC, or one WACZ, whose `archive/` WARCs are read in place) and
    /// keeps, per URL, the validators (`ETag`, `Last-Modified`) of its latest capture by `WARC-Date`, whichever
    /// source holds it and in whatever order the sources are read (xt10b F1); returns how many it kept. A
    /// revisit's head holds its validators as a response's does (a page also served at another URL is always
    /// one, xt10b F2); it points at the capture it refers to. A damaged WARC is warned about and read as far
    /// as it goes. An index file holds no validators: it gives none.
    pub(crate) fn load_validators(&self, source: &Path) -> Result<usize, Error> {
        let mut kept = 0;
        for file in validator_files(source)? {
            if is_wacz(&file) {
                kept += self.validators_of_wacz(&file);
                continue;
            }
            match trawl_warc::open(&file) {
                Ok(records) => kept += self.take_validators(records),
                Err(e) => {
                    tracing::warn!("conditional recrawl: {e}; no validators are read from it")
                }
            }
        }
        Ok(kept)
    }

    /// Reads the validators of the WARCs a WACZ package holds (its `archive/` entries, each read as a
    /// stream, stored or deflated); a package that cannot be read is warned about.
    fn validators_of_wacz(&self, path: &Path) -> usize {
        let warn = |why: String| {
            tracing::warn!(
                "conditional recrawl: {}: {why}; no validators are read from it",
                path.display()
            );
        };
        let mut archive = match trawl_config::settings::named_file::open_named(path)
            .map_err(|e| e.to_string())
            .and_then(|f| zip::ZipArchive::new(f).map_err(|e| format!("not a zip file ({e})")))
        {
            Ok(archive) => archive,
            Err(why) => {
                warn(why);
                return 0;
            }
        };
        let mut names: Vec<String> = archive
            .file_names()
            .filter_map(Result::ok)
            .filter(|n| n.starts_with("archive/") && trawl_warc::is_archive_name(Path::new(&**n)))
            .map(|n| n.into_owned())
            .collect();
        names.sort();
        let mut kept = 0;
        for name in names {
            match archive.by_name(&name) {
                Ok(entry) => {
                    let records =
                        trawl_warc::Reader::new(std::io::BufReader::with_capacity(1 << 16, entry))
                            .with_path(path.join(&name));
                    kept += self.take_validators(records);
                }
                Err(e) => warn(format!("{name}: {e}")),
            }
        }
        kept
    }

    /// Keeps the validators of the records `records` gives (one WARC), as [`Self::load_validators`] says.
    fn take_validators<R: std::io::BufRead>(&self, records: trawl_warc::Reader<R>) -> usize {
        let mut kept = 0;
        // A metadata record follows its response in trawl's WARCs: its outlinks complete the entry.
        let mut outlinks: std::collections::HashMap<String, String> =
            std::collections::HashMap::new();
        let mut entries: Vec<Earlier> = Vec::new();
        for record in records {
            // A damaged file gives the validators of the records before the damage.
            let record = match record {
                Ok(record) => record,
                Err(e) => {
                    tracing::warn!(
                        "conditional recrawl: {e}; the validators of the records after it are not read (their \
                         pages are fetched without If-None-Match / If-Modified-Since)"
                    );
                    break;
                }
            };
            if record.get("WARC-Type") == Some("metadata")
                && let Some(to) = record.get("WARC-Concurrent-To")
            {
                let links: Vec<String> = String::from_utf8_lossy(&record.block)
                    .lines()
                    .filter_map(|l| l.strip_prefix("outlink: "))
                    .filter_map(|l| {
                        let mut parts = l.split(' ');
                        Some(format!("{} {}", parts.next()?, parts.next()?))
                    })
                    .collect();
                outlinks.insert(to.to_owned(), links.join("\t"));
                continue;
            }
            let (Some(url), Some(captured), Some(digest)) = (
                record.get("WARC-Target-URI"),
                record.get("WARC-Date"),
                record.get("WARC-Payload-Digest"),
            ) else {
                continue;
            };
            let id = record.get("WARC-Record-ID").unwrap_or_default();
            let (target, date, refers) = match record.get("WARC-Type") {
                Some("response") => (url, captured, id),
                Some("revisit") => match (
                    record.get("WARC-Refers-To-Target-URI"),
                    record.get("WARC-Refers-To-Date"),
                ) {
                    (Some(target), Some(date)) => (
                        target,
                        date,
                        record.get("WARC-Refers-To").unwrap_or_default(),
                    ),
                    _ => continue,
                },
                _ => continue,
            };
            let (etag, lm) = validators_of(&record.block);
            if etag.is_none() && lm.is_none() {
                continue;
            }
            entries.push(Earlier {
                url: url.to_owned(),
                captured: captured.to_owned(),
                id: id.to_owned(),
                value: format!(
                    "{}\n{}\n{date}\n{digest}\n{refers}",
                    etag.unwrap_or_default(),
                    lm.unwrap_or_default(),
                ),
                target: target.to_owned(),
                digest: digest.to_owned(),
            });
        }
        for e in entries {
            // A 304 is archived as a revisit of the payload: only one the dedup sources hold (a WACZ of a
            // recrawl holds revisits of payloads kept in an earlier crawl it does not name: xt13a F2) gives
            // validators; the page is fetched whole otherwise.
            if !matches!(self.digests.get(e.digest.as_bytes()), Ok(Some(_))) {
                continue;
            }
            let links = outlinks.get(&e.id).map(String::as_str).unwrap_or_default();
            let key = e.url.as_bytes();
            // A later capture read before (another source, listed first) stays.
            let kept_later = self
                .previous
                .get(key)
                .ok()
                .flatten()
                .and_then(|v| captured_of(&v))
                .is_some_and(|at| later(&at, &e.captured));
            if kept_later {
                continue;
            }
            let value = format!("{}\n{links}\n{}\n{}", e.value, e.target, e.captured);
            let _ = self.previous.insert(key, value.into_bytes());
            kept += 1;
        }
        kept
    }
}

/// A capture with validators, read from an earlier crawl's WARC.
struct Earlier {
    url: String,
    /// Its `WARC-Date`.
    captured: String,
    /// Its record id (its metadata record's `WARC-Concurrent-To`).
    id: String,
    /// Validators, and the date, digest and record id of the capture holding the payload.
    value: String,
    /// The URI of the capture holding the payload.
    target: String,
    /// The payload's digest.
    digest: String,
}

/// Whether WARC-Date `a` is after `b`: as instants (`…:00Z` and `…:00.5Z` are not ordered as text), as text
/// when either does not parse.
fn later(a: &str, b: &str) -> bool {
    match (
        chrono::DateTime::parse_from_rfc3339(a),
        chrono::DateTime::parse_from_rfc3339(b),
    ) {
        (Ok(a), Ok(b)) => a > b,
        _ => a > b,
    }
}

/// The `WARC-Date` of the capture a `previous` value was read from (its eighth line; none in a value kept
/// before the date was).
fn captured_of(value: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(value).ok()?;
    text.split('\n').nth(7).map(str::to_owned)
}

/// The files whose WARCs `source` (a `dedup_from` entry) stands for: a WARC or WACZ given itself, or the
/// WARCs and WACZ packages of a job's `warcs/` or of a folder, by name; none for an index file.
fn validator_files(source: &Path) -> Result<Vec<PathBuf>, Error> {
    if !source.is_dir() {
        let readable = is_wacz(source) || trawl_warc::is_archive_name(source);
        return Ok(readable.then(|| source.to_path_buf()).into_iter().collect());
    }
    let dir = archive_folder(source);
    let mut files = warc_files(&dir)?;
    let packages = std::fs::read_dir(&dir).map_err(|e| Error::Io {
        path: dir.clone(),
        source: e,
    })?;
    files.extend(packages.flatten().map(|e| e.path()).filter(|p| is_wacz(p)));
    files.sort();
    Ok(files)
}

/// Whether `path` is named as a WACZ package.
fn is_wacz(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("wacz"))
}

/// The folder of archives a `dedup_from` folder stands for: a job's `warcs/`, or the folder itself.
fn archive_folder(source: &Path) -> PathBuf {
    let warcs = source.join("warcs");
    if warcs.is_dir() {
        warcs
    } else {
        source.to_path_buf()
    }
}

/// The WARC files of a folder, by name.
fn warc_files(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    trawl_warc::warc_files(dir).map_err(|source| Error::Io {
        path: dir.to_path_buf(),
        source,
    })
}

/// The `ETag` and `Last-Modified` of a recorded HTTP response head.
fn validators_of(http: &[u8]) -> (Option<String>, Option<String>) {
    (
        trawl_warc::http_header(http, "etag"),
        trawl_warc::http_header(http, "last-modified"),
    )
}

/// One file a `dedup_from` entry (or the job's own WARC folder) stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum IndexSource {
    /// A CDXJ or classic CDX index.
    Index(PathBuf),
    /// A WARC or ARC file without an index beside it: indexed on the way in.
    Archive(PathBuf),
}

impl IndexSource {
    /// The file.
    pub(crate) fn path(&self) -> &Path {
        match self {
            IndexSource::Index(p) | IndexSource::Archive(p) => p,
        }
    }
}

/// The warning for a `dedup_from` folder that holds no capture (xt10b F7): most often the folder of the
/// earlier jobs named instead of the jobs, which it then lists.
pub(crate) fn holds_nothing(source: &Path) -> String {
    if source.join("warcs").is_dir() {
        return format!(
            "dedup: the job {} holds no closed WARC: {}; nothing is deduplicated against it",
            source.display(),
            crate::job::no_warcs_reason(&source.join("warcs"))
        );
    }
    let mut jobs: Vec<String> = std::fs::read_dir(source)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().join("warcs").is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    jobs.sort();
    let hint = match jobs.len() {
        0 => String::new(),
        n => format!(
            "; its folders {}{} are jobs: name each in [warc] dedup_from",
            jobs.iter().take(5).cloned().collect::<Vec<_>>().join(", "),
            if n > 5 {
                format!(" and {} more", n - 5)
            } else {
                String::new()
            }
        ),
    };
    format!(
        "dedup: {} holds no WARC, ARC or index file and is no job (it has no warcs/ folder): nothing is \
         deduplicated against it{hint}",
        source.display()
    )
}

/// The files a `dedup_from` entry stands for: a job directory's (or a folder's) `.cdxj` and `.cdx` indexes
/// (gzipped too) and
/// its WARC/ARC files that have no `.cdxj` beside them, or the file itself.
pub(crate) fn index_files(source: &Path) -> Result<Vec<IndexSource>, Error> {
    if !source.is_dir() {
        // A FIFO or device is refused here, before a reader waits on it (xt38a N4).
        trawl_config::settings::named_file::refuse_special(source).map_err(|e| Error::Io {
            path: source.to_path_buf(),
            source: e,
        })?;
        let archive = trawl_warc::is_archive_name(source);
        return Ok(vec![if archive {
            IndexSource::Archive(source.to_path_buf())
        } else {
            IndexSource::Index(source.to_path_buf())
        }]);
    }
    let dir = archive_folder(source);
    let entries = std::fs::read_dir(&dir).map_err(|e| Error::Io {
        path: dir.clone(),
        source: e,
    })?;
    let mut files: Vec<IndexSource> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p.to_string_lossy();
            // WACZ packages too, read through their index (xt11a F8).
            [".cdxj", ".cdx", ".cdxj.gz", ".cdx.gz", ".wacz"]
                .iter()
                .any(|ext| name.ends_with(ext))
        })
        .map(IndexSource::Index)
        .collect();
    for warc in warc_files(&dir)? {
        if !trawl_warc::index_path(&warc).exists() {
            files.push(IndexSource::Archive(warc));
        }
    }
    files.sort_by(|a, b| a.path().cmp(b.path()));
    Ok(files)
}

/// The `url` of a CDXJ line of an ARC capture (the ARC's URL as cdxj-indexer reads it: a latin-1 byte as the
/// character it is in latin-1, an upper-case scheme kept) as `trawl warc convert` spells it (`caf%E9`, a
/// lower-case scheme), as the ARC read for its captures names it, so that a revisit resolves once the ARC is
/// converted; `None` when it is spelt so already or the line is not of an ARC. A character past ASCII but
/// within latin-1 (`é`) may have been one latin-1 byte or two UTF-8 ones: the ARC beside the index (the line's
/// `filename` in the index's folder) is read at the line's offset to tell; `None` when it is not there.
fn converted_spelling(index: &Path, line: &str, url: &str) -> Option<String> {
    let lower_scheme = url
        .split_once(':')
        .is_none_or(|(scheme, _)| !scheme.bytes().any(|b| b.is_ascii_uppercase()));
    if lower_scheme && url.chars().all(|c| c.is_ascii_graphic()) {
        return None;
    }
    let json = line.splitn(3, ' ').nth(2)?;
    let fields: serde_json::Map<String, serde_json::Value> = serde_json::from_str(json).ok()?;
    let filename = fields.get("filename")?.as_str()?;
    if !(filename.ends_with(".arc") || filename.ends_with(".arc.gz")) {
        return None;
    }
    let latin1 = !url.is_ascii() && url.chars().all(|c| u32::from(c) <= 0xFF);
    if !latin1 {
        return Some(trawl_warc::converted_utf8_target_uri(url));
    }
    if filename.contains(['/', '\\']) {
        return None;
    }
    let arc = index.parent()?.join(filename);
    trawl_warc::converted_target_uri(&arc, offset_of_line(line)?)
}

/// The `offset` of a CDXJ line (a number written as a string, as cdxj-indexer writes it).
fn offset_of_line(line: &str) -> Option<u64> {
    let json = line.splitn(3, ' ').nth(2)?;
    let fields: serde_json::Map<String, serde_json::Value> = serde_json::from_str(json).ok()?;
    match fields.get("offset")? {
        serde_json::Value::String(s) => s.parse().ok(),
        serde_json::Value::Number(n) => n.as_u64(),
        _ => None,
    }
}

/// `Some(None)` for a line without a usable payload (a revisit), `Some(Some(..))` for a capture, `None` for
/// a line that is not CDXJ.
fn capture_of_line(line: &str) -> Option<Option<(String, RefersTo)>> {
    let mut parts = line.splitn(3, ' ');
    let (_key, stamp, json) = (parts.next()?, parts.next()?, parts.next()?);
    let fields: serde_json::Map<String, serde_json::Value> = serde_json::from_str(json).ok()?;
    let text = |k: &str| fields.get(k).and_then(serde_json::Value::as_str);
    if text("mime") == Some("warc/revisit") {
        return Some(None);
    }
    let (Some(digest), Some(url)) = (text("digest"), text("url")) else {
        return Some(None);
    };
    // A longer timestamp (with fractions of a second) is cut to its first 14 digits.
    if !stamp.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let date = trawl_warc::timestamp14_to_warc_date(stamp.get(..14)?)?;
    // pywb writes the digest without its `sha1:` prefix, some producers in hex: compared as `sha1:BASE32`.
    let digest = trawl_warc::sha1_key(digest).unwrap_or_else(|| {
        if digest.contains(':') {
            digest.to_owned()
        } else {
            format!("sha1:{digest}")
        }
    });
    Some(Some((
        digest,
        RefersTo {
            target_uri: url.to_owned(),
            date,
            record_id: text("record_id").map(str::to_owned),
        },
    )))
}

fn encode(r: &RefersTo) -> Vec<u8> {
    format!(
        "{}\n{}\n{}",
        r.target_uri,
        r.date,
        r.record_id.as_deref().unwrap_or_default()
    )
    .into_bytes()
}

fn decode(bytes: &[u8]) -> Option<RefersTo> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut parts = text.splitn(3, '\n');
    let target_uri = parts.next()?.to_owned();
    let date = parts.next()?.to_owned();
    let id = parts.next().unwrap_or_default();
    Some(RefersTo {
        target_uri,
        date,
        record_id: (!id.is_empty()).then(|| id.to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any text: a capture, a skipped line or "not CDXJ", never a panic.
        #[test]
        fn any_index_line_reads_or_is_refused(line in "\\PC{0,200}") {
            let _ = capture_of_line(&line);
        }
    }

    #[test]
    fn lines_of_trawl_and_pywb_indexes() {
        let ours = r#"com,example)/ 20261125005000 {"url": "http://example.com/", "mime": "text/html", "status": "200", "digest": "sha1:ABC", "length": "1", "offset": "2", "filename": "f"}"#;
        let (digest, r) = capture_of_line(ours).unwrap().unwrap();
        assert_eq!(digest, "sha1:ABC");
        assert_eq!(r.date, "2026-11-25T00:50:00Z");
        let pywb = r#"com,example)/ 20160225042329 {"offset":"363","status":"200","length":"1286","mime":"text/html","filename":"x","url":"http://example.com/","digest":"37CF"}"#;
        assert_eq!(capture_of_line(pywb).unwrap().unwrap().0, "sha1:37CF");
        let revisit = r#"a)/ 20261125005000 {"url": "http://a/", "mime": "warc/revisit", "digest": "sha1:X"}"#;
        assert_eq!(capture_of_line(revisit), Some(None));
        assert_eq!(capture_of_line("not an index line"), None);
    }

    /// The filter in front of the table never hides a digest put in it: each of many is found again, with
    /// the capture it was put with, and the first capture stays.
    #[test]
    fn every_digest_put_in_is_found_through_the_filter() {
        let dir = tempfile::tempdir().unwrap();
        let t = DigestTable::create(&dir.path().join("d"), 1).unwrap();
        let capture = |i: usize| RefersTo {
            target_uri: format!("http://example.org/{i}"),
            date: "2026-11-27T00:00:00Z".into(),
            record_id: Some(format!("<urn:uuid:{i}>")),
        };
        for i in 0..20_000 {
            t.insert(&format!("sha1:{i:032}"), &capture(i));
        }
        t.insert("sha1:00000000000000000000000000000007", &capture(99_999));
        for i in 0..20_000 {
            assert_eq!(t.get(&format!("sha1:{i:032}")), Some(capture(i)), "{i}");
        }
        assert_eq!(t.get("sha1:NEVERSEEN"), None);
    }

    // See: issue 37. Classic CDX, as Heritrix and the Wayback Machine write it, with its header or without.
    #[test]
    fn classic_cdx_indexes_feed_the_table() {
        let dir = tempfile::tempdir().unwrap();
        let t = DigestTable::create(&dir.path().join("d"), 1).unwrap();
        let cdx = dir.path().join("crawl.cdx");
        std::fs::write(
            &cdx,
            " CDX N b a m s k r M S V g\n\
             org,example)/ 20140216050221 http://example.org/ text/html 200 B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 1043 333 a.warc.gz\n\
             org,example)/b 20140216050222 http://example.org/b text/html 200 sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA - - 10 0 a.warc.gz\n\
             org,example)/c 20150216050222 http://example.org/c warc/revisit - BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB - - 10 0 a.warc.gz\n",
        )
        .unwrap();
        assert_eq!(t.load(&IndexSource::Index(cdx.clone())).lines, 2);
        let got = t.get("sha1:B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A").unwrap();
        assert_eq!(got.target_uri, "http://example.org/");
        assert_eq!(got.date, "2014-02-16T05:02:21Z");
        assert_eq!(got.record_id, None);
        assert!(t.get("sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA").is_some());
        assert!(
            t.get("sha1:BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB").is_none(),
            "a revisit holds no payload"
        );

        let headless = dir.path().join("nine.cdx");
        std::fs::write(
            &headless,
            "org,example)/d 20140216050223 http://example.org/d text/html 200 CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC - 1 x.arc.gz\n",
        )
        .unwrap();
        assert_eq!(t.load(&IndexSource::Index(headless)).lines, 1);
        assert!(t.get("sha1:CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC").is_some());
        // Two header-less files joined: each line in the form of its own count of fields (xt45a F4); one of
        // neither count is said as such, not "as the header names".
        let joined = dir.path().join("joined.cdx");
        std::fs::write(
            &joined,
            "org,example)/e 20140216050223 http://example.org/e text/html 200 EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE - 1 x.arc.gz\n\
             org,example)/f 20140216050223 http://example.org/f text/html 200 FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF - - 10 0 a.warc.gz\n\
             org,example)/g 20140216050223 http://example.org/g text/html 200 GGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGG - 1\n",
        )
        .unwrap();
        let loaded = t.load(&IndexSource::Index(joined.clone()));
        assert_eq!((loaded.lines, loaded.skipped), (2, 1), "{loaded:?}");
        assert!(t.get("sha1:FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF").is_some());
        let warning = loaded.warning(&joined).unwrap();
        assert!(
            warning.contains("line 3: expected 11 or 9 fields")
                && !warning.contains("header names"),
            "{warning}"
        );

        // A first line of neither form does not make the file CDXJ: it is skipped, and the next line tells
        // the file's form (review 84 R8).
        let first = dir.path().join("first.cdx");
        std::fs::write(
            &first,
            "org,example)/j 20140216050223 http://example.org/j text/html\n\
             org,example)/k 20140216050223 http://example.org/k text/html 200 KKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKK - 1 x.arc.gz\n",
        )
        .unwrap();
        let loaded = t.load(&IndexSource::Index(first.clone()));
        assert_eq!((loaded.lines, loaded.skipped), (1, 1), "{loaded:?}");
        assert!(t.get("sha1:KKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKK").is_some());
        let warning = loaded.warning(&first).unwrap();
        assert!(
            warning.contains("line 1: expected 11 or 9 fields"),
            "{warning}"
        );

        // A line that cannot be read is skipped, said with its file and line; the lines around it are read.
        let bad = dir.path().join("bad.cdx");
        std::fs::write(
            &bad,
            " CDX N b a m s k r V g\n\
             org,example)/h 20140216050221 http://example.org/h text/html 200 HHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHH - 1 f\n\
             x 2014 http://a/ - - - - 1 f\n\
             org,example)/i 20140216050221 http://example.org/i text/html 200 IIIIIIIIIIIIIIIIIIIIIIIIIIIIIIII - 1 f\n",
        )
        .unwrap();
        let loaded = t.load(&IndexSource::Index(bad.clone()));
        assert_eq!((loaded.lines, loaded.skipped), (2, 1), "{loaded:?}");
        assert!(t.get("sha1:HHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHH").is_some());
        assert!(t.get("sha1:IIIIIIIIIIIIIIIIIIIIIIIIIIIIIIII").is_some());
        assert!(
            matches!(loaded.first_skipped, Some(Error::BadCdx { line: 3, .. })),
            "{loaded:?}"
        );
        let warning = loaded.warning(&bad).unwrap();
        assert!(
            warning.contains("bad.cdx is damaged: 1 line skipped (the first: ")
                && warning.contains("line 3: ")
                && warning.contains("14 digits")
                && warning.contains("2 captures read from it are used"),
            "{warning}"
        );
        // A tool that must not read a damaged source in part still refuses it, naming the line.
        let e = t
            .load(&IndexSource::Index(bad.clone()))
            .into_result(&bad)
            .unwrap_err();
        assert!(
            matches!(&e, Error::DedupSource { problem, .. } if matches!(**problem, Error::BadCdx { line: 3, .. })),
            "{e}"
        );
    }

    /// An index is read a line at a time: a Latin-1 URL in a Heritrix CDX is read with its byte
    /// percent-encoded, blank lines are skipped in CDXJ as in CDX, gzip is read as it streams, and a binary
    /// file is no index.
    #[test]
    fn index_lines_are_bytes_read_one_at_a_time() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let t = DigestTable::create(&dir.path().join("d"), 1).unwrap();
        let mut latin1 = b" CDX N b a m s k r M S V g\n\norg,example)/caf\xe9 20140216050221 http://example.org/caf\xe9 \
                           text/html 200 DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD - - 1043 333 a.warc.gz\r\n"
            .to_vec();
        latin1.extend_from_slice(
            b"org,example)/e 20140216050222 http://example.org/e text/html 200 EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE \
              - - 10 0 a.warc.gz\n",
        );
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&latin1).unwrap();
        let cdx = dir.path().join("latin1.cdx.gz");
        std::fs::write(&cdx, gz.finish().unwrap()).unwrap();
        assert_eq!(t.load(&IndexSource::Index(cdx)).lines, 2);
        let got = t.get("sha1:DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD").unwrap();
        assert_eq!(got.target_uri, "http://example.org/caf%E9");
        assert!(t.get("sha1:EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE").is_some());

        let cdxj = dir.path().join("blank.cdxj");
        std::fs::write(
            &cdxj,
            "\n\
             com,example)/ 20261125005000 {\"url\": \"http://example.com/\", \"digest\": \"sha1:FFFF\"}\n\
             \n\
             com,example)/g 20261125005001 {\"url\": \"http://example.com/g\", \"digest\": \"sha1:GGGG\"}\n\n",
        )
        .unwrap();
        assert_eq!(t.load(&IndexSource::Index(cdxj)).lines, 2);
        assert!(t.get("sha1:FFFF").is_some() && t.get("sha1:GGGG").is_some());

        for (name, bytes) in [
            ("junk.cdx", vec![0xff, 0xfe, 0x00, 0x41]),
            ("long.cdx", vec![b'a'; MAX_INDEX_LINE + 10]),
        ] {
            let junk = dir.path().join(name);
            std::fs::write(&junk, bytes).unwrap();
            let loaded = t.load(&IndexSource::Index(junk.clone()));
            assert!(
                matches!(loaded.stopped, Some(Error::NotAnIndex { .. })),
                "{name}: {loaded:?}"
            );
            let warning = loaded.warning(&junk).unwrap();
            assert!(
                warning.contains("not a text index")
                    && warning.contains("the rest of the file is not read"),
                "{warning}"
            );
        }
    }

    #[test]
    fn a_folder_of_archives_is_indexed_on_the_way_in() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.cdx"), "").unwrap();
        std::fs::write(dir.path().join("b.warc.gz"), "").unwrap();
        std::fs::write(dir.path().join("c.arc.gz"), "").unwrap();
        std::fs::write(dir.path().join("c.cdxj"), "").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "").unwrap();
        let got = index_files(dir.path()).unwrap();
        let p = |n: &str| dir.path().join(n);
        assert_eq!(
            got,
            vec![
                IndexSource::Index(p("a.cdx")),
                IndexSource::Archive(p("b.warc.gz")),
                IndexSource::Index(p("c.cdxj")),
            ],
            "c.arc.gz has its index beside it"
        );
        assert_eq!(
            index_files(&p("b.warc.gz")).unwrap(),
            vec![IndexSource::Archive(p("b.warc.gz"))]
        );
    }

    #[test]
    fn the_first_capture_of_a_payload_stays() {
        let dir = tempfile::tempdir().unwrap();
        let t = DigestTable::create(&dir.path().join("d"), 1).unwrap();
        let r = |u: &str| RefersTo {
            target_uri: u.into(),
            date: "2026-11-25T00:00:00Z".into(),
            record_id: Some("<urn:uuid:1>".into()),
        };
        assert_eq!(t.get("sha1:A"), None);
        t.insert("sha1:A", &r("http://a/1"));
        t.insert("sha1:A", &r("http://a/2"));
        assert_eq!(t.get("sha1:A"), Some(r("http://a/1")));
    }

    /// Classic CDX as tools leave it: a byte-order mark before the header, a second header further down (two
    /// files concatenated) switching the layout, a line ending in a space. Every line is read.
    #[test]
    fn concatenated_cdx_files_a_bom_and_a_trailing_space_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let t = DigestTable::create(&dir.path().join("d"), 1).unwrap();
        let digest = |c: char| c.to_string().repeat(32);
        let cdx = dir.path().join("cat.cdx");
        let text = format!(
            "\u{feff} CDX N b a m s k r M S V g\n\
             org,example)/j 20140216050221 http://example.org/j text/html 200 {} - - 10 0 a.warc.gz \n\
             CDX N b a m s k r V g\n\
             org,example)/l 20140216050222 http://example.org/l text/html 200 {} - 0 b.arc.gz\n\
             org,example)/m 20140216050223 http://example.org/m text/html 200 {} - 5 b.arc.gz\n",
            digest('J'),
            digest('L'),
            digest('M')
        );
        std::fs::write(&cdx, text).unwrap();
        let loaded = t.load(&IndexSource::Index(cdx.clone()));
        assert!(loaded.whole(), "{:?}", loaded.warning(&cdx));
        assert_eq!(loaded.lines, 3);
        for c in ['J', 'L', 'M'] {
            let got = t.get(&format!("sha1:{}", digest(c))).unwrap();
            assert_eq!(
                got.target_uri,
                format!("http://example.org/{}", c.to_ascii_lowercase())
            );
        }
    }

    /// A revisit of an ARC capture names it as `trawl warc convert` writes it (a latin-1 byte as `%E9`, the
    /// scheme in lower case, a space as `%20`), as a CDX of the ARC does: it resolves after the migration.
    #[test]
    fn an_arc_capture_is_named_as_its_conversion_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let t = DigestTable::create(&dir.path().join("d"), 1).unwrap();
        let mut arc = Vec::new();
        for (line, content) in [
            (
                &b"filedesc://x.arc 0.0.0.0 20140216050221 text/plain"[..],
                &b"1 0 X\nURL IP-address Archive-date Content-type Archive-length\n"[..],
            ),
            (
                b"HTTP://Old.Example.com/caf\xe9 x.bin 1.2.3.4 20140216050222 text/html",
                b"HTTP/1.1 200 OK\r\n\r\nhello",
            ),
            (
                b"http://a.example/caf\xc3\xa9 1.2.3.4 20140216050223 text/html",
                b"HTTP/1.1 200 OK\r\n\r\nhallo",
            ),
        ] {
            arc.extend_from_slice(line);
            arc.extend_from_slice(format!(" {}\n", content.len()).as_bytes());
            arc.extend_from_slice(content);
            arc.push(b'\n');
        }
        let path = dir.path().join("x.arc");
        std::fs::write(&path, &arc).unwrap();
        assert_eq!(t.load(&IndexSource::Archive(path.clone())).lines, 2);
        let converted = dir.path().join("x.warc");
        trawl_warc::convert(&path, &converted).unwrap();
        for (body, uri) in [
            (&b"hello"[..], "http://Old.Example.com/caf%E9%20x.bin"),
            (b"hallo", "http://a.example/caf%C3%A9"),
        ] {
            let got = t.get(&trawl_warc::sha1_digest(body)).unwrap();
            assert_eq!(got.target_uri, uri);
            assert!(
                trawl_warc::open(&converted)
                    .unwrap()
                    .any(|r| r.unwrap().get("WARC-Target-URI") == Some(uri)),
                "{uri} is the converted record's"
            );
        }
        // The ARC's index beside it (cdxj-indexer's spelling, `café`) gives the same names: `é` may have been
        // one latin-1 byte or two UTF-8 ones, so the ARC is read at the line's offset to tell.
        let arcs = dir.path().join("arcs");
        std::fs::create_dir_all(&arcs).unwrap();
        let beside = arcs.join("x.arc");
        std::fs::write(&beside, &arc).unwrap();
        trawl_warc::index_beside(&beside).unwrap();
        let index = trawl_warc::index_path(&beside);
        assert!(
            std::fs::read_to_string(&index)
                .unwrap()
                .contains("caf\\u00e9")
        );
        assert_eq!(
            index_files(&arcs).unwrap(),
            [IndexSource::Index(index.clone())]
        );
        let t = DigestTable::create(&dir.path().join("d2"), 1).unwrap();
        assert_eq!(t.load(&IndexSource::Index(index.clone())).lines, 2);
        for (body, uri) in [
            (&b"hello"[..], "http://Old.Example.com/caf%E9%20x.bin"),
            (b"hallo", "http://a.example/caf%C3%A9"),
        ] {
            assert_eq!(
                t.get(&trawl_warc::sha1_digest(body)).unwrap().target_uri,
                uri
            );
        }
    }

    #[test]
    fn a_warc_damaged_part_way_gives_the_captures_before_the_damage() {
        let dir = tempfile::tempdir().unwrap();
        let t = DigestTable::create(&dir.path().join("d"), 1).unwrap();
        let record = |url: &str, digest: &str| {
            let block = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\nhi";
            format!(
                "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{url}>\r\nWARC-Target-URI: {url}\r\n\
                 WARC-Date: 2026-11-30T00:00:00Z\r\nWARC-Payload-Digest: {digest}\r\n\
                 Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{block}\r\n\r\n",
                block.len()
            )
        };
        let warc = dir.path().join("a.warc");
        let text = record("http://a.example/1", "sha1:AAAA")
            + &record("http://a.example/2", "sha1:BBBB")
            + "WARC/1.1\r\nWARC-Type: response\r\nContent-Length: 9999\r\n\r\ncut short";
        std::fs::write(&warc, text).unwrap();
        let loaded = t.load(&IndexSource::Archive(warc.clone()));
        assert_eq!(loaded.lines, 2);
        assert!(t.get("sha1:AAAA").is_some() && t.get("sha1:BBBB").is_some());
        let warning = loaded.warning(&warc).unwrap();
        // The reader's words, not those of a write; the advice names the index that salvages the file.
        assert!(
            warning.contains("the rest of the file is not read")
                && !warning.contains("writing WARC")
                && warning.contains(&format!(
                    "`trawl warc index {} -o {}`",
                    warc.display(),
                    dir.path().join("a.cdxj").display()
                )),
            "{warning}"
        );
        // Damage with whole records after it (records naming the file's warcinfo) is read past: the captures on
        // both sides are used (xt27b F4).
        let named = |url: &str, digest: &str| {
            record(url, digest).replace(
                "WARC-Type: response\r\n",
                "WARC-Type: response\r\nWARC-Warcinfo-ID: <urn:uuid:info>\r\n",
            )
        };
        let inside = dir.path().join("c.warc");
        std::fs::write(
            &inside,
            named("http://a.example/5", "sha1:EEEE")
                + "WARC/1.1\r\nWARC-Type: response\r\nContent-Length: 9x\r\n\r\n"
                + &named("http://a.example/6", "sha1:FFFF"),
        )
        .unwrap();
        let loaded = t.load(&IndexSource::Archive(inside.clone()));
        assert!(t.get("sha1:EEEE").is_some() && t.get("sha1:FFFF").is_some());
        assert_eq!(loaded.lines, 2);
        let warning = loaded.warning(&inside).unwrap();
        assert!(
            warning
                .contains("1 stretch of damage read past, the records in it unread (the first: ")
                && warning.contains("read on at offset ")
                && !warning.contains("the rest of the file is not read"),
            "{warning}"
        );
        // Records of another warcinfo after the damage, not read (they do not read whole to the end): named,
        // with the command that splits them off, as the WARC tools name them.
        let other = dir.path().join("d.warc");
        let damage = "WARC/1.1\r\nWARC-Type: response\r\nContent-Length: 9x\r\n\r\n";
        std::fs::write(
            &other,
            named("http://a.example/7", "sha1:GGGG")
                + damage
                + &named("http://b.example/1", "sha1:HHHH")
                    .replace("urn:uuid:info", "urn:uuid:other")
                + damage,
        )
        .unwrap();
        let loaded = t.load(&IndexSource::Archive(other.clone()));
        assert!(t.get("sha1:GGGG").is_some() && t.get("sha1:HHHH").is_none());
        assert!(loaded.unread_other.is_some());
        let warning = loaded.warning(&other).unwrap();
        assert!(
            warning.contains("the rest of the file is not read (whole records of another warcinfo begin at offset")
                && warning.contains("tail -c +"),
            "{warning}"
        );
        // A response whose WARC-Date is no time gives no capture, and the warning says so (xt15c F7).
        let undated = dir.path().join("b.warc");
        std::fs::write(
            &undated,
            record("http://a.example/3", "sha1:CCCC")
                + &record("http://a.example/4", "sha1:DDDD")
                    .replace("2026-11-30T00:00:00Z", "2010-13-45T99:99:99Z"),
        )
        .unwrap();
        let loaded = t.load(&IndexSource::Archive(undated.clone()));
        assert!(t.get("sha1:CCCC").is_some() && t.get("sha1:DDDD").is_none());
        let warning = loaded.warning(&undated).unwrap();
        assert!(
            warning.contains("1 record skipped (the first:")
                && warning.contains("a response record without a WARC-Date of a real time"),
            "{warning}"
        );
    }
}
