//! WACZ 1.1.1 packages: a job's WARCs, one merged CDXJ index, the list of pages and a data package manifest
//! in one ZIP that ReplayWeb.page and pywb open as it is. WARCs and index are stored, not compressed (WACZ
//! readers seek into them); `datapackage.json` lists every file with its SHA-256 and size, and
//! `datapackage-digest.json` the manifest's own.

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    fs::File,
    hash::{BuildHasher, BuildHasherDefault, DefaultHasher},
    io::{self, BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write},
    path::{Path, PathBuf},
};

use serde_json::json;
use sha2::{Digest, Sha256};
use trawl_extract::{
    decode::{DecodeLimits, decode_content},
    field,
};
use url::Url;
use zip::{CompressionMethod, ZipWriter, write::SimpleFileOptions};

use crate::{
    Error, cdxj,
    cdxj::LineSorter,
    digest::{entity_body, http_header_lines},
    reader,
};

/// What went into a package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaczSummary {
    /// The WARC files packed.
    pub warcs: usize,
    /// Lines of the index.
    pub captures: usize,
    /// Entries of pages.jsonl.
    pub pages: usize,
    /// Revisit records whose payload no capture of the package holds: deduplicated against an earlier job
    /// (`warc.dedup_from`) or answered "not modified" to a recrawl. They replay only beside that job's
    /// archive, which the package's validation does not see (xt39a F1).
    pub revisits_outside: usize,
}

/// The payload digests of a package's captures, to count its revisits whose payload it does not hold.
/// Kept as 64-bit hashes, 8 bytes a capture rather than a string: a false match only leaves one uncounted.
#[derive(Default)]
struct Payloads {
    full: HashSet<u64>,
    revisits: Vec<u64>,
}

impl Payloads {
    fn note(&mut self, capture: &cdxj::Capture) {
        let Some(digest) = &capture.digest else {
            return;
        };
        let hash = BuildHasherDefault::<DefaultHasher>::default().hash_one(digest);
        if capture.mime.as_deref() == Some("warc/revisit") {
            self.revisits.push(hash);
        } else {
            self.full.insert(hash);
        }
    }

    /// The revisits noted whose payload no capture noted holds.
    fn outside(&self) -> usize {
        self.revisits
            .iter()
            .filter(|h| !self.full.contains(h))
            .count()
    }
}

/// The field of a `metadata` record that makes its target a view of a single-page application (a URL with
/// a route fragment, `#/guide`) rendered in the browser; the value is the page it is a view of. Such views are
/// pages of their own in pages.jsonl.
pub const VIEW_OF: &str = "browser-view-of";

/// The field of a `metadata` record that gives the `document.title` of a rendered page (the record names the
/// page's capture in `WARC-Concurrent-To`) or of a view (beside [`VIEW_OF`]): the page's title in pages.jsonl,
/// over its HTML's `<title>`, as a visitor's tab shows it once scripts ran.
pub const RENDERED_TITLE: &str = "browser-title";

/// Rendered titles kept for pages.jsonl, at most this long each (a title is for a list of pages).
const TITLE_MAX: usize = 1_000;

/// A page of `pages/pages.jsonl`.
#[derive(Debug, Clone)]
struct Page {
    url: String,
    ts: String,
    title: Option<String>,
    /// The `WARC-Record-ID` of its capture, which a rendered title's record names; not listed.
    record: Option<String>,
    /// For a view of a single-page application, the page it is a view of; not listed.
    view_of: Option<String>,
}

impl Page {
    /// The page's entry without its `id`: `{"title":…,"ts":…,"url":…}`, keys in order.
    fn json(&self) -> String {
        let mut entry = BTreeMap::new();
        entry.insert("url", json!(self.url));
        entry.insert("ts", json!(self.ts));
        if let Some(t) = &self.title {
            entry.insert("title", json!(t));
        }
        serde_json::to_string(&entry).unwrap_or_default()
    }
}

/// The entry `json` (from [`Page::json`]) with `title` as its title, its keys in the same order.
fn retitled(json: &str, title: &str) -> String {
    match serde_json::from_str::<BTreeMap<String, serde_json::Value>>(json) {
        Ok(mut entry) => {
            entry.insert("title".to_owned(), json!(title));
            serde_json::to_string(&entry).unwrap_or_else(|_| json.to_owned())
        }
        Err(_) => json.to_owned(),
    }
}

/// The value of the field `name` of an `application/warc-fields` block (the first, case-insensitive).
fn field(block: &[u8], name: &str) -> Option<String> {
    String::from_utf8_lossy(block)
        .split("\r\n")
        .find_map(|line| {
            let (n, value) = line.split_once(':')?;
            n.trim()
                .eq_ignore_ascii_case(name)
                .then(|| value.trim().to_owned())
        })
}

/// A rendered title as pages.jsonl keeps it: not empty, at most [`TITLE_MAX`] bytes (cut at a character).
fn kept_title(title: Option<String>) -> Option<String> {
    let mut title = title.filter(|t| !t.is_empty())?;
    if title.len() > TITLE_MAX {
        let mut end = TITLE_MAX;
        while !title.is_char_boundary(end) {
            end -= 1;
        }
        title.truncate(end);
    }
    Some(title)
}

/// The entry `json` (from [`Page::json`]) with its `id` put first, where a map with it would hold it: `id`
/// sorts before every other key.
fn with_id(id: u64, json: &str) -> String {
    format!(
        "{{\"id\":\"{id:08x}\",{}",
        json.get(1..).unwrap_or_default()
    )
}

/// The pages of a package in their order: seeds first, in the seeds' order (held in memory: there are only
/// as many as the seeds' captures); then the rest in capture order, written to an unnamed temporary file as
/// they come (each line its capture's record ID, a tab, its entry), so a job of millions of pages is listed in
/// bounded memory. The titles of rendered pages, read after their pages, replace theirs as the list is
/// written.
struct PageList<'s> {
    rank: HashMap<&'s str, usize>,
    seeds: Vec<(usize, Page)>,
    rest: BufWriter<File>,
    rest_count: u64,
    first_rest: Option<Page>,
    spill_dir: PathBuf,
    /// Rendered pages' titles by their captures' record IDs (one per rendered page).
    rendered: HashMap<String, String>,
}

impl<'s> PageList<'s> {
    fn new(seeds: &'s [String], spill_dir: &Path) -> Result<PageList<'s>, Error> {
        let file = tempfile::tempfile_in(spill_dir).map_err(|source| Error::Io {
            path: spill_dir.to_path_buf(),
            source,
        })?;
        Ok(PageList {
            rank: seeds
                .iter()
                .enumerate()
                .map(|(i, s)| (s.as_str(), i))
                .collect(),
            seeds: Vec::new(),
            rest: BufWriter::with_capacity(1 << 16, file),
            rest_count: 0,
            first_rest: None,
            spill_dir: spill_dir.to_path_buf(),
            rendered: HashMap::new(),
        })
    }

    fn push(&mut self, page: Page) -> Result<(), Error> {
        // A seed's view goes with its seed, right after its page (xt24b F2: listed after every seed).
        let rank = self
            .rank
            .get(page.url.as_str())
            .or_else(|| page.view_of.as_deref().and_then(|of| self.rank.get(of)));
        if let Some(&rank) = rank {
            self.seeds.push((rank, page));
            return Ok(());
        }
        let io = |source| Error::Io {
            path: self.spill_dir.clone(),
            source,
        };
        let record = page.record.as_deref().unwrap_or_default();
        writeln!(self.rest, "{record}\t{}", page.json()).map_err(io)?;
        self.rest_count += 1;
        if self.first_rest.is_none() {
            self.first_rest = Some(page);
        }
        Ok(())
    }

    fn len(&self) -> u64 {
        self.seeds.len() as u64 + self.rest_count
    }

    /// The package's main page: the first listed.
    fn first(&mut self) -> Option<&Page> {
        self.seeds.sort_by_key(|(rank, _)| *rank);
        self.seeds
            .first()
            .map(|(_, p)| p)
            .or(self.first_rest.as_ref())
    }

    /// Gives the page whose capture is the record `record` (read before or after) the rendered `title`.
    fn retitle(&mut self, record: &str, title: String) {
        // An empty ID names no capture (and is what every page without one is spilled under).
        if !record.trim().is_empty() {
            self.rendered.insert(record.to_owned(), title);
        }
    }

    /// Writes `pages.jsonl`: its header line, then every page with its `id`, and the rendered title of
    /// its capture where there is one.
    fn write_to(mut self, out: &mut impl Write, out_path: &Path) -> Result<(), Error> {
        let rendered = std::mem::take(&mut self.rendered);
        let written = |source| Error::Io {
            path: out_path.to_path_buf(),
            source,
        };
        let read = |source| Error::Io {
            path: self.spill_dir.clone(),
            source,
        };
        let header = json!({"format": "json-pages-1.0", "id": "pages", "title": "All Pages"});
        writeln!(out, "{header}").map_err(written)?;
        // Stable: a seed captured twice is listed in capture order.
        self.seeds.sort_by_key(|(rank, _)| *rank);
        let mut id = 0u64;
        for (_, page) in &mut self.seeds {
            if let Some(title) = page.record.as_ref().and_then(|r| rendered.get(r)) {
                page.title = Some(title.clone());
            }
            writeln!(out, "{}", with_id(id, &page.json())).map_err(written)?;
            id += 1;
        }
        let mut rest = self.rest.into_inner().map_err(|e| read(e.into_error()))?;
        rest.seek(SeekFrom::Start(0)).map_err(read)?;
        for line in BufReader::with_capacity(1 << 16, rest).lines() {
            let line = line.map_err(read)?;
            // From the right: a record ID may hold a tab, compact JSON never does.
            let (record, entry) = line.rsplit_once('\t').unwrap_or(("", &line));
            let entry = match rendered.get(record) {
                Some(title) => retitled(entry, title),
                None => entry.to_owned(),
            };
            writeln!(out, "{}", with_id(id, &entry)).map_err(written)?;
            id += 1;
        }
        Ok(())
    }
}

/// Packs `warcs` (of distinct file names: each goes in as `archive/NAME`) into the WACZ `out` (written through a
/// temporary file, removed on error, then renamed). `seeds` come first
/// among the pages (when captured); then every HTML page captured with status 200, with its title; `title`
/// names the collection. The index and the page list wait in unnamed files in `out`'s folder past a memory
/// budget; only the titles of HTML pages, which a later revisit of the same payload takes, stay in memory.
pub fn write_wacz(
    out: &Path,
    warcs: &[PathBuf],
    seeds: &[String],
    title: &str,
) -> Result<WaczSummary, Error> {
    let io_at = |path: &Path| {
        let path = path.to_path_buf();
        move |source: io::Error| Error::Io { path, source }
    };
    let spill_dir = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut index = LineSorter::new(spill_dir);
    let mut pages = PageList::new(seeds, spill_dir)?;
    let mut titles: HashMap<String, String> = HashMap::new();
    // Pages of SPA views read while a capture waits for its request: listed after it.
    let mut views: Vec<Page> = Vec::new();
    let mut payloads = Payloads::default();
    for warc in warcs {
        let name = file_name(warc);
        let mut pairing = cdxj::method::Pairing::new();
        let mut ready = Vec::new();
        for record in reader::open(warc)? {
            let record = record?;
            if record.get("WARC-Type") == Some("metadata")
                && record.block.starts_with(format!("{VIEW_OF}:").as_bytes())
                && let Some(view) = record.get("WARC-Target-URI")
            {
                let page = Page {
                    url: view.to_owned(),
                    ts: record.get("WARC-Date").unwrap_or_default().to_owned(),
                    title: kept_title(field(&record.block, RENDERED_TITLE)),
                    record: None,
                    view_of: field(&record.block, VIEW_OF),
                };
                if pairing.is_waiting() {
                    views.push(page);
                } else {
                    pages.push(page)?;
                }
                continue;
            }
            if record.get("WARC-Type") == Some("metadata")
                && let Some(page) = record.get("WARC-Concurrent-To")
                && let Some(title) = kept_title(field(&record.block, RENDERED_TITLE))
            {
                pages.retitle(page, title);
            }
            let capture = cdxj::Capture::of(&record.header, &record.block).map(|c| {
                let page = page_of(&c, &record, &mut titles);
                (c, (record.index_len, record.offset, page))
            });
            if let Some((c, _)) = &capture {
                payloads.note(c);
            }
            pairing.next(&record.header, &record.block, capture, &mut ready);
            give_out(&mut ready, &mut views, &name, &mut index, &mut pages)?;
        }
        pairing.finish(&mut ready);
        give_out(&mut ready, &mut views, &name, &mut index, &mut pages)?;
    }
    drop(titles);
    let summary = WaczSummary {
        warcs: warcs.len(),
        captures: index.len() as usize,
        pages: pages.len() as usize,
        revisits_outside: payloads.outside(),
    };
    // Removed as it is dropped, on an error.
    let tmp = crate::naming::temp_beside(out)?;
    write_zip(&tmp, out, warcs, index, pages, title)?;
    tmp.persist(out).map_err(|e| io_at(out)(e.error))?;
    Ok(summary)
}

/// The page a capture makes, if it is one: an HTML answer with status 200, with its title (kept by digest for
/// later revisits), or a revisit of one.
fn page_of(
    capture: &cdxj::Capture,
    record: &reader::ReadRecord,
    titles: &mut HashMap<String, String>,
) -> Option<Page> {
    let ts = record.get("WARC-Date").unwrap_or_default().to_owned();
    let url = capture.url.clone();
    if capture.status.as_deref() != Some("200") {
        return None;
    }
    // Media types are case-insensitive: `TEXT/HTML` is a page too.
    if capture
        .mime
        .as_deref()
        .is_some_and(|m| m.eq_ignore_ascii_case("text/html"))
    {
        let title = html_title(&record.block, &capture.url);
        if let (Some(t), Some(d)) = (&title, &capture.digest) {
            titles.insert(d.clone(), t.clone());
        }
        return Some(Page {
            url,
            ts,
            title,
            record: record.get("WARC-Record-ID").map(str::to_owned),
            view_of: None,
        });
    }
    (capture.mime.as_deref() == Some("warc/revisit") && is_html(&record.block)).then(|| Page {
        url,
        ts,
        title: capture.digest.as_ref().and_then(|d| titles.get(d)).cloned(),
        record: record.get("WARC-Record-ID").map(str::to_owned),
        view_of: None,
    })
}

/// A capture given out by the pairing, with its record's index length and offset and the page it makes.
type Placed = (cdxj::Capture, (u64, u64, Option<Page>));

/// Puts the captures now paired with their requests into the index, and their pages (not those answering a
/// POST: a replay of the page is a GET) into the list, then the SPA views read after them.
fn give_out(
    ready: &mut Vec<Placed>,
    views: &mut Vec<Page>,
    name: &str,
    index: &mut LineSorter,
    pages: &mut PageList,
) -> Result<(), Error> {
    if ready.is_empty() {
        return Ok(());
    }
    for (capture, (len, offset, page)) in ready.drain(..) {
        index.push(capture.line(len, offset, name))?;
        if let Some(page) = page.filter(|_| capture.method.is_none()) {
            pages.push(page)?;
        }
    }
    for view in views.drain(..) {
        pages.push(view)?;
    }
    Ok(())
}

/// A writer that keeps the SHA-256 and length of what goes through it, for the manifest.
struct Hashed<W> {
    inner: W,
    hasher: Sha256,
    bytes: u64,
}

impl<W: Write> Hashed<W> {
    fn new(inner: W) -> Hashed<W> {
        Hashed {
            inner,
            hasher: Sha256::new(),
            bytes: 0,
        }
    }

    /// The manifest's entry for what was written, as `path` in the package.
    fn resource(self, path: &str) -> serde_json::Value {
        resource(
            path,
            &data_encoding::HEXLOWER.encode(&self.hasher.finalize()),
            self.bytes,
        )
    }
}

impl<W: Write> Write for Hashed<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Writes the package's ZIP to `tmp`: the WARCs, the index, the pages and the manifest, synced. A failure to
/// write is said of `out`, the package the operator asked for (`tmp` becomes it).
fn write_zip(
    tmp: &Path,
    out: &Path,
    warcs: &[PathBuf],
    index: LineSorter,
    mut pages: PageList,
    title: &str,
) -> Result<(), Error> {
    let io_at = |path: &Path| {
        let path = path.to_path_buf();
        move |source: io::Error| Error::Io { path, source }
    };
    let file = File::create(tmp).map_err(io_at(out))?;
    let mut zip = ZipWriter::new(UntilFailure::new(file));
    let stored = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Stored)
        .large_file(true);
    let zip_err = |e: zip::result::ZipError| Error::Io {
        path: out.to_path_buf(),
        source: match e {
            zip::result::ZipError::Io(e) => e,
            e => io::Error::other(e),
        },
    };
    let mut resources = Vec::new();
    let mut buf = vec![0; 1 << 16];
    for warc in warcs {
        let path = format!("archive/{}", file_name(warc));
        zip.start_file(path.as_str(), stored).map_err(zip_err)?;
        let mut src = File::open(warc).map_err(io_at(warc))?;
        let mut entry = Hashed::new(&mut zip);
        // Not `io::copy`: a failure to read is the WARC's, a failure to write the package's.
        loop {
            let n = src.read(&mut buf).map_err(io_at(warc))?;
            if n == 0 {
                break;
            }
            entry.write_all(&buf[..n]).map_err(io_at(out))?;
        }
        resources.push(entry.resource(&path));
    }
    // WACZ names its CDXJ index `index.cdx` (readers such as pywb look for `.cdx` or `.cdx.gz`).
    let path = "indexes/index.cdx";
    zip.start_file(path, stored).map_err(zip_err)?;
    let mut entry = Hashed::new(BufWriter::with_capacity(1 << 16, &mut zip));
    index.write_to(&mut entry, out)?;
    entry.flush().map_err(io_at(out))?;
    resources.push(entry.resource(path));
    let main = pages.first().map(|p| (p.url.clone(), p.ts.clone()));
    let path = "pages/pages.jsonl";
    zip.start_file(path, stored).map_err(zip_err)?;
    let mut entry = Hashed::new(BufWriter::with_capacity(1 << 16, &mut zip));
    pages.write_to(&mut entry, out)?;
    entry.flush().map_err(io_at(out))?;
    resources.push(entry.resource(path));
    let created = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let mut package = json!({
        "profile": "data-package",
        "wacz_version": "1.1.1",
        "title": title,
        "software": format!("trawl {}", env!("CARGO_PKG_VERSION")),
        "created": created,
        "resources": resources,
    });
    if let Some((url, ts)) = main {
        package["mainPageUrl"] = json!(url);
        package["mainPageDate"] = json!(ts);
    }
    let package_bytes = serde_json::to_vec_pretty(&package).unwrap_or_default();
    zip.start_file("datapackage.json", stored)
        .map_err(zip_err)?;
    zip.write_all(&package_bytes).map_err(io_at(out))?;
    let digest = json!({
        "path": "datapackage.json",
        "hash": format!("sha256:{}", sha256_hex(&package_bytes)),
    });
    zip.start_file("datapackage-digest.json", stored)
        .map_err(zip_err)?;
    zip.write_all(&serde_json::to_vec_pretty(&digest).unwrap_or_default())
        .map_err(io_at(out))?;
    let file = zip.finish().map_err(zip_err)?;
    if file.failed {
        // A failure some caller did not pass on: the package is not whole.
        return Err(io_at(out)(io::Error::other(
            "a write to the package failed part way",
        )));
    }
    file.inner.sync_all().map_err(io_at(out))
}

/// The package's file, which takes no more writes once one failed: they go nowhere, and seeks only move a
/// position. `ZipWriter`, dropped after a failure, finishes the archive in its `Drop` and prints a second
/// failure of its own to stderr; the file is removed anyway.
struct UntilFailure {
    inner: File,
    failed: bool,
    /// The position, and the end, writes would have reached after the failure.
    at: u64,
    end: u64,
}

impl UntilFailure {
    fn new(inner: File) -> UntilFailure {
        UntilFailure {
            inner,
            failed: false,
            at: 0,
            end: 0,
        }
    }

    /// Notes a failure: from now on nothing is written (an interrupted write is no failure: it is tried
    /// again by its caller).
    fn fail(&mut self, e: io::Error) -> io::Error {
        if e.kind() != io::ErrorKind::Interrupted {
            self.failed = true;
        }
        e
    }
}

impl Write for UntilFailure {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !self.failed {
            let n = self.inner.write(buf).map_err(|e| self.fail(e))?;
            self.at += n as u64;
            self.end = self.end.max(self.at);
            return Ok(n);
        }
        self.at += buf.len() as u64;
        self.end = self.end.max(self.at);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.failed {
            return Ok(());
        }
        self.inner.flush().map_err(|e| self.fail(e))
    }
}

impl Seek for UntilFailure {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        if !self.failed {
            self.at = self.inner.seek(pos).map_err(|e| self.fail(e))?;
            self.end = self.end.max(self.at);
            return Ok(self.at);
        }
        let from = |base: u64, by: i64| base.checked_add_signed(by).unwrap_or(0);
        self.at = match pos {
            SeekFrom::Start(n) => n,
            SeekFrom::Current(by) => from(self.at, by),
            SeekFrom::End(by) => from(self.end, by),
        };
        Ok(self.at)
    }
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn resource(path: &str, hash: &str, bytes: u64) -> serde_json::Value {
    json!({
        "name": path.rsplit('/').next().unwrap_or(path),
        "path": path,
        "hash": format!("sha256:{hash}"),
        "bytes": bytes,
    })
}

fn sha256_hex(bytes: &[u8]) -> String {
    data_encoding::HEXLOWER.encode(&Sha256::digest(bytes))
}

/// Whether a recorded HTTP head says HTML (its `Content-Type` as browsers take it, the last one that parses).
fn is_html(http: &[u8]) -> bool {
    field::content_type(http_header_lines(http, "content-type"))
        .is_some_and(|ct| ct.to_ascii_lowercase().contains("text/html"))
}

/// The `<title>` of a recorded HTML response of `url`, as a browser shows it (trawl-extract's `html_title`:
/// the page's encoding, character references, not in a comment or script): its content codings undone as
/// link extraction undoes them (every `Content-Encoding` line, gzip, deflate raw or zlib, br, zstd, nested), at
/// most 1 MiB read.
fn html_title(http: &[u8], url: &str) -> Option<String> {
    let body = entity_body(http)?;
    let coding = field::list(http_header_lines(http, "content-encoding"));
    let limits = DecodeLimits {
        max_bytes: 1 << 20,
        max_ratio: 1 << 10,
    };
    let text = decode_content(coding.as_deref(), &body, limits)?;
    let content_type = field::content_type(http_header_lines(http, "content-type"));
    // The URL only hints the encoding guess (its top-level domain); a URL that does not parse gives none.
    let url =
        Url::parse(url).unwrap_or_else(|_| Url::parse("http://invalid./").expect("a valid URL"));
    trawl_extract::title::html_title(&text, content_type.as_deref(), &url)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn titles_of_plain_and_gzipped_pages() {
        let plain = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html><head><TITLE lang=en> A\n title </TITLE>";
        assert_eq!(
            html_title(plain, "http://a.example/").as_deref(),
            Some("A title")
        );
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"<title>Zipped</title>").unwrap();
        let mut http = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n".to_vec();
        http.extend(gz.finish().unwrap());
        assert_eq!(
            html_title(&http, "http://a.example/").as_deref(),
            Some("Zipped")
        );
        assert_eq!(
            html_title(b"HTTP/1.1 200 OK\r\n\r\nno title", "not a url"),
            None
        );
    }

    /// A page served as `TEXT/HTML` (media types are case-insensitive) is listed, its latin-1 title read in its
    /// charset with its references decoded.
    #[test]
    fn pages_of_any_spelling_with_their_titles() {
        let dir = tempfile::tempdir().unwrap();
        let body: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: TEXT/HTML; charset=ISO-8859-1\r\n\r\n\
            <!-- <title>no</title> --><title>Caf\xe9 &amp; cr\xe8me</title>";
        let mut warc = format!(
            "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:12345678-1234-1234-1234-123456789012>\r\n\
             WARC-Date: 2020-01-01T00:00:00Z\r\nWARC-Target-URI: http://a.example/\r\n\
             Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        warc.extend_from_slice(body);
        warc.extend_from_slice(b"\r\n\r\n");
        let input = dir.path().join("a.warc");
        std::fs::write(&input, warc).unwrap();
        let out = dir.path().join("a.wacz");
        let summary = write_wacz(&out, &[input], &[], "t").unwrap();
        assert_eq!(summary.pages, 1);
        let pages = pages_of(&out);
        assert!(
            pages.contains("\"title\":\"Caf\u{e9} & cr\u{e8}me\""),
            "{pages}"
        );
    }

    /// xt39a F1: revisits whose payload the package holds are not counted; those of an earlier job's are.
    #[test]
    fn revisits_of_payloads_outside_the_package_are_counted() {
        let record = |kind: &str, uri: &str, digest: &str, http: &[u8]| {
            let mut warc = format!(
                "WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:uuid:{}>\r\n\
                 WARC-Date: 2020-01-01T00:00:00Z\r\nWARC-Target-URI: {uri}\r\n\
                 WARC-Payload-Digest: {digest}\r\n\
                 WARC-Profile: http://netpreserve.org/warc/1.1/revisit/identical-payload-digest\r\n\
                 Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
                uuid::Uuid::new_v4(),
                http.len()
            )
            .into_bytes();
            warc.extend_from_slice(http);
            warc.extend_from_slice(b"\r\n\r\n");
            warc
        };
        let full = b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\nPNG";
        let head = b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n";
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("a.warc");
        let mut warc = record("response", "http://a.example/1.png", "sha1:AAAA", full);
        warc.extend(record(
            "revisit",
            "http://a.example/2.png",
            "sha1:AAAA",
            head,
        ));
        std::fs::write(&input, &warc).unwrap();
        let summary = write_wacz(
            &dir.path().join("a.wacz"),
            std::slice::from_ref(&input),
            &[],
            "t",
        )
        .unwrap();
        assert_eq!(summary.revisits_outside, 0);
        warc.extend(record(
            "revisit",
            "http://a.example/3.png",
            "sha1:BBBB",
            head,
        ));
        std::fs::write(&input, &warc).unwrap();
        let summary = write_wacz(&dir.path().join("b.wacz"), &[input], &[], "t").unwrap();
        assert_eq!(summary.revisits_outside, 1);
    }

    /// The `pages/pages.jsonl` of the package `out`.
    fn pages_of(out: &Path) -> String {
        let mut zip = zip::ZipArchive::new(File::open(out).unwrap()).unwrap();
        let mut pages = String::new();
        zip.by_name("pages/pages.jsonl")
            .unwrap()
            .read_to_string(&mut pages)
            .unwrap();
        pages
    }

    /// A WARC response record of `uri` holding `http`.
    fn response(uri: &str, date: &str, http: &[u8]) -> Vec<u8> {
        let mut warc = format!(
            "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{}>\r\n\
             WARC-Date: {date}\r\nWARC-Target-URI: {uri}\r\n\
             Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
            uuid::Uuid::new_v4(),
            http.len()
        )
        .into_bytes();
        warc.extend_from_slice(http);
        warc.extend_from_slice(b"\r\n\r\n");
        warc
    }

    /// A WARC metadata record of `uri` with `fields` (an `application/warc-fields` block) and the extra
    /// header lines `extra`.
    fn metadata(uri: &str, extra: &str, fields: &[(&str, &str)]) -> Vec<u8> {
        let block = crate::record::warc_fields(fields);
        let mut warc = format!(
            "WARC/1.1\r\nWARC-Type: metadata\r\nWARC-Record-ID: <urn:uuid:{}>\r\n\
             WARC-Date: 2020-01-01T00:00:02Z\r\nWARC-Target-URI: {uri}\r\n{extra}\
             Content-Type: application/warc-fields\r\nContent-Length: {}\r\n\r\n",
            uuid::Uuid::new_v4(),
            block.len()
        )
        .into_bytes();
        warc.extend_from_slice(&block);
        warc.extend_from_slice(b"\r\n\r\n");
        warc
    }

    proptest::proptest! {
        /// A field written into a warc-fields block is read back (its value with line breaks folded and the
        /// ends trimmed, as written), whatever other fields come first; any bytes are read without a panic.
        #[test]
        fn a_written_field_is_read_back(
            value in "[^\\r\\n]{0,60}",
            before in proptest::collection::vec(("[a-z]{1,8}", "[ -~]{0,20}"), 0..4),
            noise in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200),
        ) {
            let _ = field(&noise, RENDERED_TITLE);
            let mut fields: Vec<(String, String)> =
                before.into_iter().map(|(n, v)| (format!("x-{n}"), v)).collect();
            fields.push((RENDERED_TITLE.to_owned(), value.clone()));
            let block = crate::record::warc_fields(&fields);
            proptest::prop_assert_eq!(field(&block, RENDERED_TITLE), Some(value.trim().to_owned()));
        }

        /// A kept title is never empty, never past the limit, and a prefix of the title.
        #[test]
        fn kept_titles_are_bounded_prefixes(title in "\\PC{0,1200}") {
            match kept_title(Some(title.clone())) {
                Some(kept) => {
                    proptest::prop_assert!(!kept.is_empty() && kept.len() <= TITLE_MAX);
                    proptest::prop_assert!(title.starts_with(&kept));
                }
                None => proptest::prop_assert!(title.is_empty()),
            }
        }
    }

    /// A seed's views come right after its page, among the seeds, not after every seed and later capture
    /// (xt24b F2).
    #[test]
    fn a_seeds_views_follow_its_page() {
        let dir = tempfile::tempdir().unwrap();
        let html = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<title>t</title>";
        let mut warc = Vec::new();
        for uri in [
            "http://a.example/spa",
            "http://a.example/other",
            "http://a.example/x",
        ] {
            warc.extend(response(uri, "2020-01-01T00:00:01Z", html));
        }
        warc.extend(metadata(
            "http://a.example/spa#/a",
            "",
            &[(VIEW_OF, "http://a.example/spa")],
        ));
        let input = dir.path().join("a.warc");
        std::fs::write(&input, warc).unwrap();
        let out = dir.path().join("a.wacz");
        let seeds = [
            "http://a.example/spa".to_owned(),
            "http://a.example/other".to_owned(),
        ];
        write_wacz(&out, &[input], &seeds, "t").unwrap();
        let urls: Vec<String> = pages_of(&out)
            .lines()
            .skip(1)
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                v["url"].as_str().unwrap().to_owned()
            })
            .collect();
        assert_eq!(
            urls,
            [
                "http://a.example/spa",
                "http://a.example/spa#/a",
                "http://a.example/other",
                "http://a.example/x"
            ]
        );
    }

    /// A rendered page is listed by the title its scripts set (the `browser-title` of the metadata record
    /// naming its capture, read after it), a seed and a page of the list's spilled part alike; a view by its
    /// own; a page never rendered keeps its HTML's (xt16a F9).
    #[test]
    fn rendered_pages_and_views_are_listed_by_their_rendered_titles() {
        let dir = tempfile::tempdir().unwrap();
        let html = |t: &str| {
            format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<title>{t}</title>")
        };
        let mut warc = Vec::new();
        let mut ids = Vec::new();
        for (uri, title) in [
            ("http://a.example/", "Shell"),
            ("http://a.example/b", "B shell"),
            ("http://a.example/plain", "Plain"),
        ] {
            let record = response(uri, "2020-01-01T00:00:01Z", html(title).as_bytes());
            let text = String::from_utf8_lossy(&record).into_owned();
            let id = text
                .lines()
                .find_map(|l| l.strip_prefix("WARC-Record-ID: "))
                .unwrap()
                .to_owned();
            ids.push(id);
            warc.extend(record);
        }
        for (uri, id, title) in [
            ("http://a.example/", &ids[0], "Seed, rendered"),
            ("http://a.example/b", &ids[1], "B, rendered"),
        ] {
            warc.extend(metadata(
                uri,
                &format!("WARC-Concurrent-To: {id}\r\n"),
                &[
                    ("outlink", "http://a.example/c L a/@href"),
                    (RENDERED_TITLE, title),
                ],
            ));
        }
        warc.extend(metadata(
            "http://a.example/b#/view",
            "",
            &[(VIEW_OF, "http://a.example/b"), (RENDERED_TITLE, "A view")],
        ));
        let input = dir.path().join("a.warc");
        std::fs::write(&input, warc).unwrap();
        let out = dir.path().join("a.wacz");
        write_wacz(&out, &[input], &["http://a.example/".to_owned()], "t").unwrap();
        let pages = pages_of(&out);
        let titles: Vec<(String, Option<String>)> = pages
            .lines()
            .skip(1)
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (
                    v["url"].as_str().unwrap().to_owned(),
                    v["title"].as_str().map(str::to_owned),
                )
            })
            .collect();
        let want = |u: &str, t: &str| (u.to_owned(), Some(t.to_owned()));
        assert_eq!(
            titles,
            [
                want("http://a.example/", "Seed, rendered"),
                want("http://a.example/b", "B, rendered"),
                want("http://a.example/plain", "Plain"),
                want("http://a.example/b#/view", "A view"),
            ],
            "{pages}"
        );
    }

    /// A record ID holding a tab keeps its spilled page's line whole, and a rendered title naming an empty
    /// capture goes to no page (review 65 R5).
    #[test]
    fn odd_record_ids_give_no_title_and_break_no_line() {
        let dir = tempfile::tempdir().unwrap();
        let body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<title>Own</title>";
        let mut warc = format!(
            "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:x\ty>\r\n\
             WARC-Date: 2020-01-01T00:00:00Z\r\nWARC-Target-URI: http://a.example/p\r\n\
             Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        warc.extend_from_slice(body);
        warc.extend_from_slice(b"\r\n\r\n");
        warc.extend(metadata(
            "http://a.example/p",
            "WARC-Concurrent-To: \r\n",
            &[(RENDERED_TITLE, "Nobody's")],
        ));
        warc.extend(metadata(
            "http://a.example/p#/v",
            "",
            &[(VIEW_OF, "http://a.example/p")],
        ));
        let input = dir.path().join("a.warc");
        std::fs::write(&input, warc).unwrap();
        let out = dir.path().join("a.wacz");
        write_wacz(&out, &[input], &[], "t").unwrap();
        let pages = pages_of(&out);
        let entries: Vec<serde_json::Value> = pages
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(entries.len(), 3, "{pages}");
        assert_eq!(entries[1]["title"], "Own", "{pages}");
        assert!(entries[2].get("title").is_none(), "{pages}");
    }

    /// Seeds come first in the seeds' order, the rest in capture order, every page with the next id; the
    /// index comes out sorted; the manifest's hashes and sizes are those of the entries as written.
    #[test]
    fn pages_in_order_and_entries_as_the_manifest_says() {
        let dir = tempfile::tempdir().unwrap();
        let page = |t: &str| {
            format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<title>{t}</title>")
        };
        let mut warc = Vec::new();
        for (uri, title) in [
            ("http://z.example/a", "A"),
            ("http://b.example/s2", "S2"),
            ("http://c.example/b", "B"),
            ("http://a.example/s1", "S1"),
        ] {
            warc.extend(response(
                uri,
                "2020-01-01T00:00:00Z",
                page(title).as_bytes(),
            ));
        }
        let input = dir.path().join("a.warc");
        std::fs::write(&input, warc).unwrap();
        let out = dir.path().join("a.wacz");
        let seeds = [
            "http://a.example/s1".to_owned(),
            "http://b.example/s2".to_owned(),
        ];
        let summary = write_wacz(&out, &[input], &seeds, "t").unwrap();
        assert_eq!((summary.captures, summary.pages), (4, 4));
        let mut zip = zip::ZipArchive::new(File::open(&out).unwrap()).unwrap();
        let mut read = |name: &str| {
            let mut text = String::new();
            zip.by_name(name)
                .unwrap()
                .read_to_string(&mut text)
                .unwrap();
            text
        };
        let pages = read("pages/pages.jsonl");
        let listed: Vec<serde_json::Value> = pages
            .lines()
            .skip(1)
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let order: Vec<(&str, &str)> = listed
            .iter()
            .map(|p| (p["id"].as_str().unwrap(), p["title"].as_str().unwrap()))
            .collect();
        assert_eq!(
            order,
            [
                ("00000000", "S1"),
                ("00000001", "S2"),
                ("00000002", "A"),
                ("00000003", "B")
            ]
        );
        // Each line is what a map with the id gives: keys in order, no spaces.
        assert!(
            pages
                .lines()
                .nth(1)
                .unwrap()
                .starts_with("{\"id\":\"00000000\",\"title\":\"S1\",\"ts\":")
        );
        let index = read("indexes/index.cdx");
        let keys: Vec<&str> = index
            .lines()
            .map(|l| l.split(' ').next().unwrap())
            .collect();
        assert_eq!(
            keys,
            [
                "example,a)/s1",
                "example,b)/s2",
                "example,c)/b",
                "example,z)/a"
            ]
        );
        let manifest: serde_json::Value = serde_json::from_str(&read("datapackage.json")).unwrap();
        assert_eq!(manifest["mainPageUrl"], "http://a.example/s1");
        for resource in manifest["resources"].as_array().unwrap() {
            let path = resource["path"].as_str().unwrap();
            let mut bytes = Vec::new();
            zip.by_name(path).unwrap().read_to_end(&mut bytes).unwrap();
            assert_eq!(resource["bytes"], bytes.len() as u64, "{path}");
            assert_eq!(
                resource["hash"],
                format!("sha256:{}", sha256_hex(&bytes)),
                "{path}"
            );
        }
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    /// `data` as a brotli stream of one uncompressed meta-block (RFC 7932 §9.2; up to 64 KiB), then an empty
    /// last one: brotli that needs no encoder.
    fn brotli(data: &[u8]) -> Vec<u8> {
        // WBITS `0` (16), ISLAST 0, MNIBBLES 0 (four), MLEN - 1 in 16 bits, ISUNCOMPRESSED 1; padded.
        let head = ((data.len() as u32 - 1) << 4) | (1 << 20);
        let mut out = head.to_le_bytes()[..3].to_vec();
        out.extend_from_slice(data);
        out.push(0b11); // ISLAST, ISLASTEMPTY
        out
    }

    #[test]
    fn titles_under_every_coding_extraction_reads() {
        let page = b"<html><title>Coded</title>";
        let mut raw = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        raw.write_all(page).unwrap();
        let rows: [(&str, Vec<u8>); 5] = [
            ("Content-Encoding: br\r\n", brotli(page)),
            ("Content-Encoding: deflate\r\n", raw.finish().unwrap()),
            ("Content-Encoding: gzip, gzip\r\n", gzip(&gzip(page))),
            // Two lines are one list: gzip applied first, then br.
            (
                "Content-Encoding: gzip\r\nContent-Encoding: br\r\n",
                brotli(&gzip(page)),
            ),
            ("Content-Encoding: identity\r\n", page.to_vec()),
        ];
        for (head, body) in rows {
            let mut http =
                format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n{head}\r\n").into_bytes();
            http.extend(body);
            assert_eq!(
                html_title(&http, "http://a.example/").as_deref(),
                Some("Coded"),
                "{head}"
            );
        }
        // Two Content-Type lines: the last that parses decides, as browsers and crawl.log take it.
        assert!(is_html(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Type: text/html\r\n\r\n"
        ));
        assert!(!is_html(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Type: image/png\r\n\r\n"
        ));
    }

    #[test]
    fn a_package_whose_disk_fails_is_left_without_a_second_failure() {
        let Ok(full) = File::options().write(true).open("/dev/full") else {
            println!("skipped: no /dev/full");
            return;
        };
        let mut zip = ZipWriter::new(UntilFailure::new(full));
        let stored = SimpleFileOptions::default().compression_method(CompressionMethod::Stored);
        let failed = zip
            .start_file("a", stored)
            .map_err(|e| e.to_string())
            .and_then(|()| zip.write_all(&[7; 1 << 16]).map_err(|e| e.to_string()))
            .and_then(|()| zip.flush().map_err(|e| e.to_string()));
        assert!(failed.is_err(), "/dev/full took the package");
        // What `Drop` does (finishing the archive) now writes nothing and fails nothing, so prints nothing.
        assert!(zip.finish().is_ok());
    }
}
