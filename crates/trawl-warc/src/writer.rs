//! [`Writer`]: appends groups of records to rotating WARC files, one gzip member per record.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::gzip::GzipMembers;
use chrono::Utc;

use crate::cdxj::{self, Capture};
use crate::compression::Compression;
use crate::error::Error;
use crate::incompressible::already_compressed;
use crate::naming::{OPEN_SUFFIX, file_name};
use crate::record::Record;
use crate::zstd_dictionary::{SAMPLE_BYTES, SAMPLE_RECORDS, ZstdDictionary};

/// The zstd level of `.warc.zst` records: zstd's default, faster than gzip level 6 and smaller.
const ZSTD_LEVEL: i32 = 3;

/// The dictionary a writer's `.warc.zst` files share, seen by its encoders as they compress: unset while the
/// crawl's first records are held back to train it, then set once, to `None` when those records made no
/// dictionary (too few).
type DictionarySlot = Arc<OnceLock<Option<Arc<ZstdDictionary>>>>;

/// Settings of a [`Writer`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriterConfig {
    /// The directory files go to; created if missing.
    pub dir: PathBuf,
    /// The first part of each file name.
    pub prefix: String,
    /// A file is finished once it has at least this many bytes (checked after each group); 0: never, one
    /// file for the whole crawl (as Heritrix's `-1`). Default: 1,000,000,000.
    pub max_file_bytes: u64,
    /// Compression. Default: [`Compression::Gzip`].
    pub compression: Compression,
    /// gzip level (libdeflate's), 1 (fastest) to 12 (smallest). Default: 1 (2.5% larger than 3 for 1.7x
    /// the speed). Payloads already compressed are stored in their member whatever the level.
    pub gzip_level: u32,
    /// With [`Compression::Zstd`]: train a zstd dictionary from the first records (up to
    /// [`SAMPLE_BYTES`](crate::zstd_dictionary::SAMPLE_BYTES) or
    /// [`SAMPLE_RECORDS`](crate::zstd_dictionary::SAMPLE_RECORDS), held in memory until then, and on disk
    /// beside the file for [`crate::repair`] after a crash), begin every file with it in a dictionary frame and
    /// compress each record with it. Default: false.
    pub zstd_dictionary: bool,
    /// The host name, in file names and the warcinfo record.
    pub host: String,
    /// Extra warcinfo fields (e.g. `operator`, `isPartOf`); one named like a default field replaces it.
    pub warcinfo_fields: Vec<(String, String)>,
}

impl WriterConfig {
    /// Settings with the defaults above for files `PREFIX-...-HOST.warc.gz` in `dir`.
    pub fn new(
        dir: impl Into<PathBuf>,
        prefix: impl Into<String>,
        host: impl Into<String>,
    ) -> Self {
        WriterConfig {
            dir: dir.into(),
            prefix: prefix.into(),
            max_file_bytes: 1_000_000_000,
            compression: Compression::default(),
            gzip_level: 1,
            zstd_dictionary: false,
            host: host.into(),
            warcinfo_fields: Vec::new(),
        }
    }
}

/// Where a record went: its file, offset and length there (the gzip member's, when compressed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Byte offset of the record (or its gzip member) in the file.
    pub offset: u64,
    /// Length in the file (compressed length when gzipped).
    pub len: u64,
}

/// Where [`Writer::write`] put a group of records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The file's final name (without `.open`).
    pub path: PathBuf,
    /// Offset of the group's first record.
    pub offset: u64,
    /// Length of the group's first record.
    pub len: u64,
    /// Offset and length of each record of the group, in order.
    pub records: Vec<Span>,
    /// Whether the group is held in memory, to train the file's zstd dictionary, rather than written yet
    /// ([`WriterConfig::zstd_dictionary`]): it is written with the dictionary once trained (or when the
    /// writer is closed), so where it goes is not known yet and `offset`, `len` and `records` are empty.
    pub held: bool,
}

/// The file being written.
#[derive(Debug)]
struct OpenFile {
    /// Shared with the [`WriteBack`]s taken for it, which may run after the file is finished.
    file: Arc<File>,
    open_path: PathBuf,
    final_path: PathBuf,
    size: u64,
    warcinfo_id: String,
    /// The CDXJ lines of its captures so far, written beside it (sorted) when it is finished.
    index: Vec<String>,
    /// The file's name, as its index lines give it.
    name: String,
    /// What of each record's length its index line leaves out, as cdxj-indexer counts: the CRLFCRLF after
    /// each record of an uncompressed file (4), nothing when records are gzip members or zstd frames.
    index_trailer: u64,
    /// Where the last request to write back to disk ended, and where the one before it started.
    written_back: u64,
    released: u64,
    /// While the writer's zstd dictionary is being trained: the records held back for it (the warcinfo
    /// record first), plain.
    held: Option<Held>,
    /// Whether the file system counts the file's links (it had one when opened): only then is a count of
    /// none taken for the file removed.
    links_counted: bool,
}

/// Records held back, uncompressed, until the zstd dictionary they train is made.
#[derive(Debug)]
struct Held {
    /// The records, serialized one after the other.
    bytes: Vec<u8>,
    /// Each record's end in `bytes`.
    ends: Vec<usize>,
    /// Each record's capture, for the index.
    captures: Vec<Option<Capture>>,
    /// The same records on disk beside the file ([`held_path`]), each appended as it is held: the crawl
    /// counts them as archived, so a crash must not lose them. [`crate::repair`] writes them into the file
    /// if they did not get there; once they do, the spill is removed.
    spill: File,
    spill_path: PathBuf,
    /// A failed write to the spill could not be cut off again: it takes no more.
    spill_broken: bool,
}

/// The file beside an `.open` WARC that holds, plain, the records held back to train its zstd dictionary:
/// `NAME.warc.zst.open.held`.
pub(crate) fn held_path(open_path: &Path) -> PathBuf {
    let mut name = open_path.as_os_str().to_owned();
    name.push(".held");
    PathBuf::from(name)
}

impl Held {
    /// Starts holding back records for `open_path`, the spill beside it made anew.
    fn new(open_path: &Path) -> Result<Held, Error> {
        let spill_path = held_path(open_path);
        let spill = File::create(&spill_path).map_err(|source| Error::Io {
            path: spill_path.clone(),
            source,
        })?;
        Ok(Held {
            bytes: Vec::new(),
            ends: Vec::new(),
            captures: Vec::new(),
            spill,
            spill_path,
            spill_broken: false,
        })
    }

    /// Holds back `bytes`, serialized records of `lens` bytes each, with their captures: on disk first. A
    /// write that fails (a full disk) is cut off again, so what later groups add follows the last whole record
    /// (`repair` reads the spill up to its first torn record).
    fn push(
        &mut self,
        bytes: &[u8],
        lens: impl IntoIterator<Item = usize>,
        captures: &mut Vec<Option<Capture>>,
    ) -> Result<(), Error> {
        if self.spill_broken {
            return Err(Error::Io {
                path: self.spill_path.clone(),
                source: io::Error::other("an earlier write to it failed and could not be undone"),
            });
        }
        let mut spill = &self.spill;
        if let Err(source) = spill.write_all(bytes) {
            let whole = self.bytes.len() as u64;
            if spill.set_len(whole).is_err() || spill.seek(SeekFrom::Start(whole)).is_err() {
                // Cannot be cut back: nothing more is held, so nothing follows a torn record.
                self.spill_broken = true;
            }
            return Err(Error::Io {
                path: self.spill_path.clone(),
                source,
            });
        }
        let mut end = self.bytes.len();
        self.bytes.extend_from_slice(bytes);
        for len in lens {
            end += len;
            self.ends.push(end);
        }
        self.captures.append(captures);
        Ok(())
    }

    /// The held records, one slice each.
    fn records(&self) -> impl Iterator<Item = &[u8]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(a, &b)| &self.bytes[a..b])
    }

    /// Whether enough is held to train the dictionary: `limit` bytes or records.
    fn full(&self, limit: (usize, usize)) -> bool {
        self.bytes.len() >= limit.0 || self.ends.len() >= limit.1
    }
}

/// Bytes appended to a file after which the kernel is asked to start writing them to disk (without waiting)
/// and to drop the pages it has already written. That keeps the fsync that finishes a file short (the crawl
/// is not held up at a rotation while a gigabyte is written), and archives, which are not read again, from
/// filling the page cache.
const WRITE_BACK_BYTES: u64 = 8 << 20;

/// A request to the kernel to start writing a range of a WARC file to disk and to drop the range asked for
/// before it. Giving it takes milliseconds (the kernel queues 8 MB of writeback then and there), so the writer
/// hands it out ([`Writer::take_write_back`]) to be given after its lock is released, off the fetch path.
#[derive(Debug)]
pub struct WriteBack {
    file: Arc<File>,
    offset: u64,
    len: u64,
}

impl WriteBack {
    /// Gives the advice. `POSIX_FADV_DONTNEED` does both on Linux: it starts writeback of the range's dirty
    /// pages without waiting, then drops its clean ones. Advice only: a failure changes nothing.
    pub fn run(self) {
        #[cfg(target_os = "linux")]
        {
            let len = std::num::NonZeroU64::new(self.len);
            let _ =
                rustix::fs::fadvise(&*self.file, self.offset, len, rustix::fs::Advice::DontNeed);
        }
    }

    /// The byte range of the file the advice covers.
    pub fn range(&self) -> std::ops::Range<u64> {
        self.offset..self.offset + self.len
    }
}

/// Writes groups of records to WARC files, rotating to a new file between groups once the current
/// one reaches [`WriterConfig::max_file_bytes`].
///
/// Each file is named `PREFIX-YYYYMMDDhhmmss-NNNNN-HOST.warc.gz` (serial `NNNNN` from 00000, or past the
/// highest of the folder's files, so a resume's files sort after the run's before), carries
/// a `.open` suffix until finished, and starts with a warcinfo record that later records point to with
/// WARC-Warcinfo-ID. A group is compressed in memory and written at once; if that write fails (disk
/// full), the file is cut back to where the group began, so it stays a valid WARC.
#[derive(Debug)]
pub struct Writer {
    cfg: WriterConfig,
    encoder: Encoder,
    /// With a zstd dictionary: the dictionary, once trained, shared with the encoders.
    dictionary: Option<DictionarySlot>,
    /// How many bytes or records train it ([`SAMPLE_BYTES`], [`SAMPLE_RECORDS`]; fewer in tests).
    sample_limit: (usize, usize),
    serial: u32,
    current: Option<OpenFile>,
    finished: Vec<PathBuf>,
    /// The write-back due and not yet taken; given here if still untaken when the next one falls due.
    write_back: Option<WriteBack>,
}

impl Writer {
    /// A writer for `cfg`. Creates the directory if missing; opens no file until the first write.
    pub fn new(cfg: WriterConfig) -> Result<Writer, Error> {
        fs::create_dir_all(&cfg.dir).map_err(|source| Error::Io {
            path: cfg.dir.clone(),
            source,
        })?;
        let dictionary = (cfg.compression == Compression::Zstd && cfg.zstd_dictionary)
            .then(DictionarySlot::default);
        Ok(Writer {
            encoder: Encoder::for_writer(&cfg, dictionary.clone()),
            dictionary,
            sample_limit: (SAMPLE_BYTES, SAMPLE_RECORDS),
            serial: crate::naming::next_serial(&cfg.dir, &cfg.prefix, &cfg.host),
            cfg,
            current: None,
            finished: Vec::new(),
            write_back: None,
        })
    }

    /// Writes `records` (e.g. request, response, metadata) to the same file, in order, and says where.
    pub fn write(&mut self, records: &[Record]) -> Result<Written, Error> {
        if records.is_empty() {
            return Err(Error::EmptyGroup);
        }
        let warcinfo_id = self.warcinfo_id()?;
        let encoded = self.encoder.encode(records, &warcinfo_id)?;
        self.append_encoded(encoded)
            .map(|w| w.expect("encoded for the current file, with its dictionary"))
    }

    /// The WARC-Warcinfo-ID of the file the next group goes to (opening it if needed): what an [`Encoder`]
    /// needs to encode a group outside the writer.
    pub fn warcinfo_id(&mut self) -> Result<String, Error> {
        if self.current.is_none() {
            self.current = Some(self.open_next()?);
        }
        Ok(self
            .current
            .as_ref()
            .expect("opened above")
            .warcinfo_id
            .clone())
    }

    /// An encoder with this writer's compression settings, to encode groups outside it (several threads
    /// can compress at once; only [`Writer::append_encoded`] needs the writer).
    pub fn encoder(&self) -> Encoder {
        Encoder::for_writer(&self.cfg, self.dictionary.clone())
    }

    /// Appends a group an [`Encoder`] made and says where it went; `Ok(None)` if it was encoded for a file
    /// that has been finished since (rotation), or before the file's zstd dictionary was trained: encode it
    /// again for [`Writer::warcinfo_id`] (an encoder from [`Writer::encoder`] picks the dictionary up).
    pub fn append_encoded(&mut self, mut encoded: Encoded) -> Result<Option<Written>, Error> {
        if self.current.is_none() {
            self.current = Some(self.open_next()?);
        }
        let file = self.current.as_mut().expect("opened above");
        if file.warcinfo_id != encoded.warcinfo_id {
            return Ok(None);
        }
        if file.held.is_some() && !encoded.held {
            // The dictionary was trained but the records held back for it were not written (that write
            // failed, e.g. on a full disk): written now, before this group, or the error again.
            self.release_held()?;
        }
        let file = self.current.as_mut().expect("opened above");
        if let Some(held) = &mut file.held {
            if !encoded.held {
                return Ok(None);
            }
            held.push(
                &encoded.bytes,
                encoded.lens.iter().map(|&len| len as usize),
                &mut encoded.captures,
            )?;
            let written = Written {
                path: file.final_path.clone(),
                offset: 0,
                len: 0,
                records: Vec::new(),
                held: true,
            };
            if held.full(self.sample_limit) {
                self.release_held()?;
                self.rotate_if_full()?;
            }
            return Ok(Some(written));
        }
        if encoded.held {
            // Encoded plain while the dictionary was being trained, which it is now: compressed here.
            let (mut bytes, mut lens) = (Vec::new(), Vec::new());
            let mut start = 0;
            for len in &encoded.lens {
                let end = start + *len as usize;
                let before = bytes.len();
                self.encoder
                    .compress(&encoded.bytes[start..end], &mut bytes);
                lens.push((bytes.len() - before) as u64);
                start = end;
            }
            (encoded.bytes, encoded.lens) = (bytes, lens);
        } else if encoded.dictionary != self.dictionary_id() {
            return Ok(None);
        }
        let file = self.current.as_mut().expect("opened above");
        let spans = place(
            file,
            &encoded.bytes,
            &encoded.lens,
            &encoded.captures,
            &mut self.write_back,
        )?;
        let written = Written {
            path: file.final_path.clone(),
            offset: spans[0].offset,
            len: spans[0].len,
            records: spans,
            held: false,
        };
        self.rotate_if_full()?;
        Ok(Some(written))
    }

    /// The ID of the zstd dictionary records are compressed with now (0 for none).
    fn dictionary_id(&self) -> u32 {
        self.dictionary
            .as_ref()
            .and_then(|slot| slot.get())
            .and_then(|d| d.as_ref())
            .map_or(0, |d| d.id())
    }

    /// Finishes the current file once it has reached its size.
    fn rotate_if_full(&mut self) -> Result<(), Error> {
        if self
            .current
            .as_ref()
            .is_some_and(|f| self.cfg.max_file_bytes > 0 && f.size >= self.cfg.max_file_bytes)
        {
            self.finish_current()?;
        }
        Ok(())
    }

    /// Trains the zstd dictionary from the records held back (unless it is trained already), then writes the
    /// current file's dictionary frame and those records, compressed with it. Without enough records for a
    /// dictionary they are written without one, and so is every later record.
    fn release_held(&mut self) -> Result<(), Error> {
        let Some(file) = self.current.as_mut() else {
            return Ok(());
        };
        let Some(held) = &file.held else {
            return Ok(());
        };
        let slot = self
            .dictionary
            .as_ref()
            .expect("records are held only to train");
        let dictionary = slot
            .get_or_init(|| {
                let samples: Vec<&[u8]> = held.records().collect();
                ZstdDictionary::train(&samples).map(Arc::new)
            })
            .clone();
        let mut bytes = dictionary.as_ref().map(|d| d.frame()).unwrap_or_default();
        let frame_len = bytes.len() as u64;
        let mut lens = Vec::with_capacity(held.ends.len());
        for record in held.records() {
            let before = bytes.len();
            self.encoder.compress(record, &mut bytes);
            lens.push((bytes.len() - before) as u64);
        }
        // The dictionary frame, then the records: placed as one group whose first "record" is the frame.
        let mut all_lens = vec![frame_len];
        all_lens.extend(&lens);
        let mut captures = vec![None];
        captures.extend(held.captures.iter().cloned());
        if frame_len == 0 {
            all_lens.remove(0);
            captures.remove(0);
        }
        place(file, &bytes, &all_lens, &captures, &mut self.write_back)?;
        // In the file now: the spill is not needed (one left behind by a failure here is found stale by
        // `repair`, which counts the file's records).
        if let Some(held) = file.held.take() {
            let _ = fs::remove_file(&held.spill_path);
        }
        Ok(())
    }

    /// The write-back that fell due in the last appends, if any, to be given ([`WriteBack::run`]) where it
    /// holds nothing up: it takes milliseconds. One left untaken is given by the writer itself, inline, when
    /// the next falls due or the file is finished.
    pub fn take_write_back(&mut self) -> Option<WriteBack> {
        self.write_back.take()
    }

    /// Finishes the current file (fsync, rename away `.open`) and returns every file this writer
    /// finished, in order. Writing again afterwards starts a new file.
    pub fn close(&mut self) -> Result<Vec<PathBuf>, Error> {
        self.finish_current()?;
        Ok(self.finished.clone())
    }

    /// The file being written, by its `.open` name, if any.
    pub fn current_path(&self) -> Option<&Path> {
        self.current.as_ref().map(|f| f.open_path.as_path())
    }

    /// Creates the next file and writes its warcinfo record.
    fn open_next(&mut self) -> Result<OpenFile, Error> {
        let opened = Utc::now();
        loop {
            let name = file_name(
                &self.cfg.prefix,
                opened,
                self.serial,
                &self.cfg.host,
                self.cfg.compression,
            );
            self.serial = self.serial.wrapping_add(1);
            let final_path = self.cfg.dir.join(&name);
            let open_path = self.cfg.dir.join(format!("{name}{OPEN_SUFFIX}"));
            // Nor a name whose index another archive of the same stem has (a resume that changed
            // `warc.compression` named its first `X.warc` as the killed run's repaired `X.warc.gz`, and
            // its index overwrote that file's `X.cdxj`: xt17b F3).
            if final_path.exists() || crate::cdxj::index_path(&final_path).exists() {
                continue;
            }
            let file = match OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&open_path)
            {
                Ok(file) => file,
                // Another writer with the same prefix and host got this name first: take the next serial.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(source) => {
                    return Err(Error::Io {
                        path: open_path,
                        source,
                    });
                }
            };
            let warcinfo = Record::warcinfo(&name, &self.warcinfo_fields());
            let links_counted = link_count(&file).is_some_and(|n| n > 0);
            let mut open = OpenFile {
                file: Arc::new(file),
                open_path,
                final_path,
                size: 0,
                warcinfo_id: warcinfo.id().to_owned(),
                index: Vec::new(),
                name: name.clone(),
                index_trailer: if self.cfg.compression == Compression::None {
                    4
                } else {
                    0
                },
                written_back: 0,
                released: 0,
                held: None,
                links_counted,
            };
            let mut bytes = Vec::new();
            match self.dictionary.as_ref().map(|slot| slot.get()) {
                // Not trained yet: the warcinfo record is the first one held back.
                Some(None) => {
                    let mut plain = Vec::new();
                    warcinfo.write_to(&mut plain, &[]);
                    let held = Held::new(&open.open_path).and_then(|mut held| {
                        let len = plain.len();
                        held.push(&plain, [len], &mut vec![None])?;
                        Ok(held)
                    });
                    match held {
                        Ok(held) => open.held = Some(held),
                        Err(e) => {
                            let _ = fs::remove_file(&open.open_path);
                            let _ = fs::remove_file(held_path(&open.open_path));
                            return Err(e);
                        }
                    }
                    return Ok(open);
                }
                Some(Some(Some(dictionary))) => bytes.extend(dictionary.frame()),
                Some(Some(None)) | None => {}
            }
            self.encoder.append(&warcinfo, &[], &mut bytes);
            match append(&mut open, &bytes) {
                Ok(due) => due.into_iter().for_each(WriteBack::run),
                Err(e) => {
                    let _ = fs::remove_file(&open.open_path);
                    return Err(e);
                }
            }
            return Ok(open);
        }
    }

    /// The warcinfo fields: defaults, replaced or extended by the configured ones.
    fn warcinfo_fields(&self) -> Vec<(&str, &str)> {
        let mut fields: Vec<(&str, &str)> = vec![
            ("software", concat!("trawl/", env!("CARGO_PKG_VERSION"))),
            ("format", "WARC File Format 1.1"),
            (
                "conformsTo",
                "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/",
            ),
            ("hostname", self.cfg.host.as_str()),
        ];
        for (name, value) in &self.cfg.warcinfo_fields {
            match fields
                .iter_mut()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
            {
                Some(field) => field.1 = value,
                None => fields.push((name, value)),
            }
        }
        fields
    }

    /// Syncs and renames the current file, if any.
    fn finish_current(&mut self) -> Result<(), Error> {
        self.release_held()?;
        let Some(open) = self.current.take() else {
            return Ok(());
        };
        let io_err = |path: &Path| {
            let path = path.to_owned();
            move |source| Error::Io { path, source }
        };
        open.file.sync_all().map_err(io_err(&open.open_path))?;
        // Its pages are all written now: an untaken write-back only drops them.
        if let Some(untaken) = self.write_back.take() {
            untaken.run();
        }
        let removed = unlinked(&open);
        drop(open.file);
        if removed {
            return Err(Error::Removed {
                path: open.open_path,
            });
        }
        match fs::rename(&open.open_path, &open.final_path) {
            Ok(()) => {}
            // Still linked, yet not at its name: moved away (its folder with it, maybe), not lost.
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(Error::Moved {
                    path: open.open_path,
                });
            }
            Err(e) => return Err(io_err(&open.open_path)(e)),
        }
        // The index beside it: written whole (through a temporary file) once the WARC is final.
        cdxj::write_index(&cdxj::index_path(&open.final_path), open.index)?;
        // Make the rename durable; not every platform can open a directory, so this is best effort.
        if let Ok(dir) = File::open(&self.cfg.dir) {
            let _ = dir.sync_all();
        }
        self.finished.push(open.final_path);
        Ok(())
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        let _ = self.finish_current();
    }
}

/// Encodes groups of records (serialised, and gzipped one member per record) for a [`Writer`], away from it:
/// each worker keeps one, so compression runs in parallel and the writer is held only to append bytes.
pub struct Encoder {
    compression: Compression,
    gzip: GzipMembers,
    /// One record serialised before compression, kept between records to reuse its allocation.
    plain: Vec<u8>,
    /// The zstd context, made at the first zstd record and reused for every later one (a context per record
    /// cost as much as compressing it), with the ID of the dictionary loaded in it (0 for none).
    zstd: Option<(zstd::bulk::Compressor<'static>, u32)>,
    /// The zstd dictionary to compress with.
    dictionary: DictionaryUse,
}

/// Which zstd dictionary an [`Encoder`] compresses with.
#[derive(Debug, Clone)]
enum DictionaryUse {
    None,
    /// Always this one (`trawl warc recompress`).
    Fixed(Arc<ZstdDictionary>),
    /// Its writer's, once trained; until then records are left plain for the writer to hold.
    Shared(DictionarySlot),
}

impl std::fmt::Debug for Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encoder")
            .field("compression", &self.compression)
            .field("dictionary", &self.dictionary)
            .finish()
    }
}

/// A group of records encoded for one file (see [`Writer::append_encoded`]).
#[derive(Debug, Clone)]
pub struct Encoded {
    bytes: Vec<u8>,
    lens: Vec<u64>,
    /// Each record's capture, for the index (none for requests, metadata).
    captures: Vec<Option<Capture>>,
    warcinfo_id: String,
    /// The ID of the zstd dictionary the records are compressed with (0 for none).
    dictionary: u32,
    /// Whether the records are left plain, for the writer to hold while it trains its dictionary.
    held: bool,
}

impl Encoded {
    /// The encoded records, as [`Writer::append_encoded`] will append them.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

impl Encoder {
    /// An encoder for `compression` at gzip `level` (1-12).
    pub fn new(compression: Compression, level: u32) -> Encoder {
        Encoder {
            compression,
            gzip: GzipMembers::new(level),
            plain: Vec::new(),
            zstd: None,
            dictionary: DictionaryUse::None,
        }
    }

    /// A zstd encoder that compresses every record with `dictionary`.
    pub fn with_zstd_dictionary(dictionary: Arc<ZstdDictionary>) -> Encoder {
        Encoder {
            dictionary: DictionaryUse::Fixed(dictionary),
            ..Encoder::new(Compression::Zstd, 1)
        }
    }

    /// An encoder for a writer with `cfg`, sharing its dictionary `slot` if it trains one.
    fn for_writer(cfg: &WriterConfig, slot: Option<DictionarySlot>) -> Encoder {
        Encoder {
            dictionary: slot.map_or(DictionaryUse::None, DictionaryUse::Shared),
            ..Encoder::new(cfg.compression, cfg.gzip_level)
        }
    }

    /// The dictionary to compress with now: `Err(())` while the writer's is still being trained.
    fn current_dictionary(&self) -> Result<Option<&Arc<ZstdDictionary>>, ()> {
        match &self.dictionary {
            DictionaryUse::None => Ok(None),
            DictionaryUse::Fixed(d) => Ok(Some(d)),
            DictionaryUse::Shared(slot) => slot.get().map(Option::as_ref).ok_or(()),
        }
    }

    /// Encodes `records` for the file whose warcinfo record has `warcinfo_id`.
    pub fn encode(&mut self, records: &[Record], warcinfo_id: &str) -> Result<Encoded, Error> {
        if records.is_empty() {
            return Err(Error::EmptyGroup);
        }
        let extra = [("WARC-Warcinfo-ID", warcinfo_id)];
        let (held, dictionary) = match self.current_dictionary() {
            Err(()) => (true, 0),
            Ok(d) => (false, d.map_or(0, |d| d.id())),
        };
        let mut bytes = Vec::new();
        let mut lens = Vec::with_capacity(records.len());
        let mut captures = Vec::with_capacity(records.len());
        for record in records {
            let start = bytes.len();
            if held {
                record.write_to(&mut bytes, &extra);
            } else {
                self.append(record, &extra, &mut bytes);
            }
            lens.push((bytes.len() - start) as u64);
            captures.push(Capture::of(record.header(), record.block()));
        }
        // A capture answering a POST of the group (a login form's) is indexed apart from its URL's GETs.
        let mut pairing = crate::cdxj::method::Pairing::new();
        let mut paired = Vec::new();
        for (i, record) in records.iter().enumerate() {
            let capture = captures[i].take().map(|c| (c, i));
            pairing.next(record.header(), record.block(), capture, &mut paired);
        }
        pairing.finish(&mut paired);
        for (c, i) in paired {
            captures[i] = Some(c);
        }
        Ok(Encoded {
            bytes,
            lens,
            captures,
            warcinfo_id: warcinfo_id.to_string(),
            dictionary,
            held,
        })
    }

    /// Appends `record` with the `extra` header fields to `out`, as a gzip member or zstd frame when
    /// compressing.
    fn append(&mut self, record: &Record, extra: &[(&str, &str)], out: &mut Vec<u8>) {
        if self.compression == Compression::None {
            return record.write_to(out, extra);
        }
        let mut plain = std::mem::take(&mut self.plain);
        plain.clear();
        record.write_to(&mut plain, extra);
        self.compress_record(&plain, record.header(), record.block(), out);
        self.plain = plain;
    }

    /// [`Encoder::compress`] for the record of `header` and `block` serialised as `plain`: a payload already
    /// compressed goes into a gzip member of stored blocks.
    pub(crate) fn compress_record(
        &mut self,
        plain: &[u8],
        header: &[(String, String)],
        block: &[u8],
        out: &mut Vec<u8>,
    ) {
        self.compress_known(plain, already_compressed(header, block), out);
    }

    /// [`Encoder::compress_record`], with whether the record's payload is already compressed known
    /// (`already_compressed`): a caller that no longer holds the record's block.
    pub(crate) fn compress_known(
        &mut self,
        plain: &[u8],
        already_compressed: bool,
        out: &mut Vec<u8>,
    ) {
        if self.compression == Compression::Gzip && already_compressed {
            self.gzip.stored_member(plain, out);
        } else {
            self.compress(plain, out);
        }
    }

    /// Appends one serialised record `plain` to `out` in this encoder's compression: a gzip member, a zstd
    /// frame, or as it is.
    pub(crate) fn compress(&mut self, plain: &[u8], out: &mut Vec<u8>) {
        match self.compression {
            Compression::None => out.extend_from_slice(plain),
            Compression::Gzip => self.gzip.member(plain, out),
            Compression::Zstd => self.zstd_frame(plain, out),
        }
    }

    /// Appends `plain` to `out` as one zstd frame, with the dictionary if there is one, through the reused
    /// context (made, or given the dictionary, on first use).
    fn zstd_frame(&mut self, plain: &[u8], out: &mut Vec<u8>) {
        let dictionary = self.current_dictionary().ok().flatten().cloned();
        let id = dictionary.as_ref().map_or(0, |d| d.id());
        let context = match &mut self.zstd {
            Some((context, loaded)) if *loaded == id => context,
            slot => {
                let bytes = dictionary.as_ref().map_or(&[][..], |d| d.as_bytes());
                let mut context = zstd::bulk::Compressor::with_dictionary(ZSTD_LEVEL, bytes)
                    .expect("zstd takes a dictionary it accepted when it was made");
                // Each frame carries a checksum of its content (4 bytes), so `trawl warc verify` and any zstd
                // reader catch a damaged frame that still decodes: zstd has no check of its own otherwise,
                // where gzip has its CRC.
                context
                    .set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(true))
                    .expect("zstd takes its checksum flag");
                &mut slot.insert((context, id)).0
            }
        };
        let start = out.len();
        out.reserve(zstd::zstd_safe::compress_bound(plain.len()));
        // Compressed straight after what `out` holds, into the room the bound above made.
        let mut end = io::Cursor::new(&mut *out);
        end.set_position(start as u64);
        context
            .compress_to_buffer(plain, &mut end)
            .expect("zstd compresses any input into its bound");
    }
}

/// Appends `bytes` (records of `lens` each, with their `captures`) to `file`, indexes them and says where each
/// went; a write-back that fell due goes to `write_back` (the one there before it is given now).
fn place(
    file: &mut OpenFile,
    bytes: &[u8],
    lens: &[u64],
    captures: &[Option<Capture>],
    write_back: &mut Option<WriteBack>,
) -> Result<Vec<Span>, Error> {
    let mut offset = file.size;
    let spans: Vec<Span> = lens
        .iter()
        .map(|&len| {
            let span = Span { offset, len };
            offset += len;
            span
        })
        .collect();
    if let Some(due) = append(file, bytes)?
        && let Some(untaken) = write_back.replace(due)
    {
        untaken.run();
    }
    for (span, capture) in spans.iter().zip(captures) {
        if let Some(c) = capture {
            let len = span.len.saturating_sub(file.index_trailer);
            file.index.push(c.line(len, span.offset, &file.name));
        }
    }
    Ok(spans)
}

/// The write-back of the file's bytes since the last one, which also drops the range asked for before it
/// (written by now).
fn write_back(file: &mut OpenFile) -> WriteBack {
    let due = WriteBack {
        file: Arc::clone(&file.file),
        offset: file.released,
        len: file.size - file.released,
    };
    file.released = file.written_back;
    file.written_back = file.size;
    due
}

/// Writes `bytes` at the end of `file`; on failure cuts the file back so it holds whole records only. Returns
/// the write-back due once another [`WRITE_BACK_BYTES`] have been written.
fn append(file: &mut OpenFile, bytes: &[u8]) -> Result<Option<WriteBack>, Error> {
    let start = file.size;
    match (&*file.file).write_all(bytes) {
        // Written into a file no name leads to any more: lost with it, and the crawl must not count it
        // archived. One fstat a group, a microsecond.
        Ok(()) if unlinked(file) => Err(Error::Removed {
            path: file.open_path.clone(),
        }),
        Ok(()) => {
            file.size += bytes.len() as u64;
            Ok((file.size - file.written_back >= WRITE_BACK_BYTES).then(|| write_back(file)))
        }
        Err(source) => {
            let rollback = file
                .file
                .set_len(start)
                .and_then(|()| (&*file.file).seek(SeekFrom::Start(start)).map(drop));
            if let Err(e) = rollback {
                return Err(Error::Write {
                    path: file.open_path.clone(),
                    offset: start,
                    len: bytes.len() as u64,
                    source: io::Error::new(
                        source.kind(),
                        format!("{source}; truncating back also failed: {e}"),
                    ),
                });
            }
            Err(Error::Write {
                path: file.open_path.clone(),
                offset: start,
                len: bytes.len() as u64,
                source,
            })
        }
    }
}

/// Whether `file` was removed from its folder (or the folder itself was): no link to it is left.
fn unlinked(file: &OpenFile) -> bool {
    file.links_counted && link_count(&file.file) == Some(0)
}

/// How many names `file` has, as the file system counts them.
fn link_count(file: &File) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    file.metadata().ok().map(|m| m.nlink())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reader;
    use chrono::TimeZone;

    fn group(n: usize) -> Vec<Record> {
        let date = Utc.with_ymd_and_hms(2026, 11, 22, 8, 25, 1).unwrap();
        let uri = format!("http://example.com/{n}");
        let req = Record::request(
            &uri,
            date,
            None,
            b"GET / HTTP/1.1\r\nHost: example.com\r\n\r\n".to_vec(),
        );
        let mut resp = Record::response(
            &uri,
            date,
            None,
            format!("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n{n:04}").into_bytes(),
        );
        resp.set("WARC-Concurrent-To", req.id());
        vec![req, resp]
    }

    #[test]
    fn groups_encoded_outside_append_in_order_and_a_stale_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = WriterConfig::new(dir.path(), "p", "h");
        cfg.max_file_bytes = 1;
        let mut w = Writer::new(cfg).unwrap();
        let mut a = w.encoder();
        let mut b = w.encoder();
        let first = w.warcinfo_id().unwrap();
        let one = a.encode(&group(1), &first).unwrap();
        let two = b.encode(&group(2), &first).unwrap();
        let written = w.append_encoded(one).unwrap().expect("current file");
        assert_eq!(written.records.len(), 2);
        assert_eq!(written.records[1].offset, written.offset + written.len);
        // The first group filled the file: it rotated, so the second was encoded for a finished file.
        assert!(w.append_encoded(two).unwrap().is_none());
        let second = w.warcinfo_id().unwrap();
        assert_ne!(first, second);
        let two = b.encode(&group(2), &second).unwrap();
        assert!(w.append_encoded(two).unwrap().is_some());
        for path in w.close().unwrap() {
            crate::verify(&path).unwrap();
        }
        assert!(a.encode(&[], &second).is_err());
    }

    #[test]
    fn compressed_payloads_are_stored_and_read_back() {
        let date = Utc.with_ymd_and_hms(2026, 11, 22, 8, 25, 1).unwrap();
        let body = "<p>the same words again</p>".repeat(400);
        let http = |ct: &str| {
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {ct}\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
            .into_bytes()
        };
        let dir = tempfile::tempdir().unwrap();
        let mut w = Writer::new(WriterConfig::new(dir.path(), "p", "h")).unwrap();
        let html = Record::response("http://a/p.html", date, None, http("text/html"));
        let jpeg = Record::response("http://a/p.jpg", date, None, http("image/jpeg"));
        let written = w.write(&[html, jpeg]).unwrap();
        let [html_span, jpeg_span] = written.records[..] else {
            panic!("two records");
        };
        // The HTML shrinks to a fraction; the "JPEG" (the same bytes) is stored: bigger than its payload.
        assert!(html_span.len < body.len() as u64 / 10, "{html_span:?}");
        assert!(jpeg_span.len > body.len() as u64, "{jpeg_span:?}");
        let path = written.path.clone();
        w.close().unwrap();
        crate::verify(&path).unwrap();
        let blocks: Vec<Vec<u8>> = reader::open(&path)
            .unwrap()
            .map(|r| r.unwrap().block)
            .skip(1)
            .collect();
        assert_eq!(blocks, [http("text/html"), http("image/jpeg")]);
    }

    /// The WARC files in `dir` (their indexes are checked on their own).
    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| !n.ends_with(".cdxj"))
            .collect();
        names.sort();
        names
    }

    /// A name whose index another archive of its stem has is skipped: a resume writing uncompressed WARCs
    /// beside the killed run's repaired `X.warc.gz` does not overwrite its `X.cdxj` (xt17b F3).
    #[test]
    fn a_name_whose_index_is_taken_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let now = Utc::now();
        for s in 0..3 {
            let at = now + chrono::Duration::seconds(s);
            let gz = crate::naming::file_name("job", at, 0, "h", Compression::Gzip);
            fs::write(dir.path().join(&gz), b"").unwrap();
            let taken = crate::cdxj::index_path(&dir.path().join(&gz));
            fs::write(taken, b"").unwrap();
        }
        let mut cfg = WriterConfig::new(dir.path(), "job", "h");
        cfg.compression = Compression::None;
        let mut w = Writer::new(cfg).unwrap();
        w.write(&group(1)).unwrap();
        let written = w.close().unwrap();
        let name = written[0]
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(
            name.contains("-00001-") && name.ends_with(".warc"),
            "{name}"
        );
    }

    /// A writer's first file takes a serial past every file of the folder, so a resume opening its first
    /// file in the same second as the killed run's last sorts after it (xt47c F3); another host's or
    /// prefix's files do not count.
    #[test]
    fn a_resumed_runs_files_sort_after_the_runs_before() {
        let dir = tempfile::tempdir().unwrap();
        let now = Utc::now();
        for (prefix, serial, host) in [("job", 7, "h"), ("job", 41, "other"), ("x", 90, "h")] {
            let name = crate::naming::file_name(prefix, now, serial, host, Compression::Gzip);
            fs::write(dir.path().join(format!("{name}.open")), b"").unwrap();
        }
        let mut w = Writer::new(WriterConfig::new(dir.path(), "job", "h")).unwrap();
        w.write(&group(1)).unwrap();
        let written = w.close().unwrap();
        let name = written[0]
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(name.contains("-00008-h."), "{name}");
    }

    /// `max_file_bytes = 0` never rolls over (xt10b F13: each group went into a file of its own).
    #[test]
    fn no_limit_writes_one_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = WriterConfig::new(dir.path(), "job", "host1");
        cfg.max_file_bytes = 0;
        let mut w = Writer::new(cfg).unwrap();
        for n in 0..10 {
            w.write(&group(n)).unwrap();
        }
        assert_eq!(w.close().unwrap().len(), 1);
    }

    #[test]
    fn writes_rotates_and_reads_back() {
        for compression in [Compression::Gzip, Compression::None, Compression::Zstd] {
            let dir = tempfile::tempdir().unwrap();
            let mut cfg = WriterConfig::new(dir.path().join("warcs"), "job", "host1");
            cfg.max_file_bytes = 1500;
            cfg.compression = compression;
            cfg.warcinfo_fields = vec![
                ("operator".into(), "tests".into()),
                ("software".into(), "x/1".into()),
            ];
            let mut w = Writer::new(cfg).unwrap();
            assert!(dir.path().join("warcs").is_dir());
            assert!(
                names(&dir.path().join("warcs")).is_empty(),
                "no file before the first write"
            );

            let mut written = Vec::new();
            for n in 0..10 {
                let w1 = w.write(&group(n)).unwrap();
                assert!(
                    w.current_path()
                        .is_none_or(|p| p.extension().unwrap() == "open")
                );
                written.push(w1);
            }
            let files = w.close().unwrap();
            assert!(files.len() > 1, "{compression:?}: rotated");
            assert_eq!(
                names(&dir.path().join("warcs")).len(),
                files.len(),
                "no .open left"
            );
            for (i, f) in files.iter().enumerate() {
                let name = f.file_name().unwrap().to_str().unwrap();
                assert!(name.starts_with("job-2"), "{name}");
                assert!(
                    name.ends_with(&format!("-{i:05}-host1{}", compression.extension())),
                    "{name}"
                );
            }

            // Each file opens with a warcinfo record and later records point to it.
            for f in &files {
                let recs: Vec<_> = reader::open(f).unwrap().collect::<Result<_, _>>().unwrap();
                assert_eq!(recs[0].get("WARC-Type"), Some("warcinfo"));
                let block = String::from_utf8(recs[0].block.clone()).unwrap();
                assert!(
                    block.contains("operator: tests\r\n") && block.contains("software: x/1\r\n"),
                    "{block}"
                );
                assert!(block.contains("format: WARC File Format 1.1\r\n"));
                for r in &recs[1..] {
                    assert_eq!(r.get("WARC-Warcinfo-ID"), recs[0].get("WARC-Record-ID"));
                }
                // Groups are never split: every request is followed by its response in the same file.
                assert_eq!((recs.len() - 1) % 2, 0);
            }

            // Offsets point at each record.
            for (n, wr) in written.iter().enumerate() {
                let bytes = fs::read(&wr.path).unwrap();
                assert_eq!(
                    (wr.offset, wr.len),
                    (wr.records[0].offset, wr.records[0].len)
                );
                let resp = wr.records[1];
                let slice = &bytes[resp.offset as usize..(resp.offset + resp.len) as usize];
                let rec = reader::Reader::new(slice).next().unwrap().unwrap();
                assert_eq!(
                    rec.get("WARC-Target-URI"),
                    Some(format!("http://example.com/{n}").as_str())
                );
                assert_eq!(rec.len, resp.len);
                // Its index line gives the length cdxj-indexer counts: without the CRLFCRLF after the record
                // in an uncompressed file, the whole member or frame otherwise.
                let trailer = if compression == Compression::None {
                    4
                } else {
                    0
                };
                let index = fs::read_to_string(cdxj::index_path(&wr.path)).unwrap();
                let place = format!(
                    r#""length": "{}", "offset": "{}""#,
                    resp.len - trailer,
                    resp.offset
                );
                assert!(
                    index.contains(&place),
                    "{compression:?}: {place} in {index}"
                );
            }
        }
    }

    /// A group with a page of its own: a request and a response whose body differs from page to page.
    fn page(n: usize) -> Vec<Record> {
        let date = Utc.with_ymd_and_hms(2026, 11, 22, 8, 25, 1).unwrap();
        let uri = format!("http://example.com/articles/{n}");
        let body = format!(
            "<html><head><title>Article {n}</title><link rel=stylesheet href=/site.css></head><body>\
             <nav><a href=/>Home</a> <a href=/about>About</a> <a href=/archive>Archive</a></nav>\
             <h1>Article {n}</h1><p>{}</p></body></html>",
            "word ".repeat(n % 50)
        );
        let req = Record::request(
            &uri,
            date,
            None,
            format!("GET /articles/{n} HTTP/1.1\r\nHost: example.com\r\nUser-Agent: trawl\r\n\r\n")
                .into_bytes(),
        );
        let mut resp = Record::response(
            &uri,
            date,
            None,
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
            .into_bytes(),
        );
        resp.set("WARC-Concurrent-To", req.id());
        vec![req, resp]
    }

    /// Every record of `files`, serialized again from what the reader read.
    fn reread(files: &[PathBuf]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for f in files {
            for r in reader::open(f).unwrap() {
                let r = r.unwrap();
                let mut bytes = Vec::new();
                crate::recompress::serialize(&r, &r.version, &mut bytes);
                out.push(bytes);
            }
        }
        out
    }

    #[test]
    fn zstd_dictionary_files_read_back_byte_identical() {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = WriterConfig::new(dir.path(), "d", "h");
        cfg.compression = Compression::Zstd;
        cfg.zstd_dictionary = true;
        cfg.max_file_bytes = 8000;
        let mut w = Writer::new(cfg).unwrap();
        w.sample_limit = (1 << 20, 60);
        let (mut encoder, mut held) = (w.encoder(), 0);
        let mut want = Vec::new();
        for n in 0..150 {
            let group = page(n);
            let id = w.warcinfo_id().unwrap();
            let encoded = encoder.encode(&group, &id).unwrap();
            let written = w.append_encoded(encoded).unwrap().expect("same file");
            held += usize::from(written.held);
            assert_eq!(written.held, written.records.is_empty());
            for r in &group {
                let mut bytes = Vec::new();
                r.write_to(&mut bytes, &[("WARC-Warcinfo-ID", id.as_str())]);
                want.push(bytes);
            }
        }
        // The warcinfo record and 29 groups make 59 records: the 30th group fills the sample and is written.
        assert_eq!(held, 30);
        let files = w.close().unwrap();
        assert!(files.len() > 2, "rotated: {files:?}");
        let mut dictionary_ids = Vec::new();
        for f in &files {
            let bytes = fs::read(f).unwrap();
            assert_eq!(
                bytes[..4],
                [0x5D, 0x2A, 0x4D, 0x18],
                "{}: dictionary frame first",
                f.display()
            );
            let size = u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
            let dict = crate::zstd_dictionary::parse_frame(&bytes[..8 + size], 1 << 20).unwrap();
            dictionary_ids.push(dict.id());
            let summary = crate::verify(f).unwrap();
            assert!(summary.records > 1);
            // The index beside it locates each capture at a zstd frame that needs the dictionary.
            let index = fs::read_to_string(cdxj::index_path(f)).unwrap();
            let mut from_file =
                cdxj::index_file(f, f.file_name().unwrap().to_str().unwrap()).unwrap();
            cdxj::sort(&mut from_file);
            assert_eq!(
                index,
                from_file
                    .iter()
                    .map(|l| format!("{l}\n"))
                    .collect::<String>()
            );
        }
        dictionary_ids.dedup();
        assert_eq!(dictionary_ids.len(), 1, "one dictionary for the crawl");
        assert_ne!(dictionary_ids[0], 0);
        // Every record comes back byte for byte (each file's warcinfo first).
        let got: Vec<Vec<u8>> = reread(&files)
            .into_iter()
            .filter(|r| !r.windows(17).any(|w| w == b"WARC-Type: warcin"))
            .collect();
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(g == w, "record {i} differs");
        }
        // Records compressed with the dictionary are smaller than without one (dictionary frames aside).
        let dict_size: usize = files
            .iter()
            .map(|f| {
                let bytes = fs::read(f).unwrap();
                bytes.len() - 8 - u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize
            })
            .sum();
        let plain_dir = tempfile::tempdir().unwrap();
        let mut cfg = WriterConfig::new(plain_dir.path(), "d", "h");
        cfg.compression = Compression::Zstd;
        let mut w = Writer::new(cfg).unwrap();
        for n in 0..150 {
            w.write(&page(n)).unwrap();
        }
        let plain_size = fs::metadata(&w.close().unwrap()[0]).unwrap().len() as usize;
        assert!(
            dict_size < plain_size,
            "{dict_size} vs {plain_size} without a dictionary"
        );
    }

    /// The write of the records held back for the dictionary fails (a full disk): the next group writes them
    /// first, and nothing is lost or repeated (it used to be refused for good, and `write` panicked).
    #[test]
    fn zstd_dictionary_held_records_survive_a_failed_write() {
        let Ok(full) = OpenOptions::new().write(true).open("/dev/full") else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = WriterConfig::new(dir.path(), "d", "h");
        cfg.compression = Compression::Zstd;
        cfg.zstd_dictionary = true;
        let mut w = Writer::new(cfg).unwrap();
        w.sample_limit = (1 << 20, 60);
        let groups: Vec<Vec<Record>> = (0..31).map(page).collect();
        let mut encoder = w.encoder();
        let id = w.warcinfo_id().unwrap();
        for group in &groups[..29] {
            let encoded = encoder.encode(group, &id).unwrap();
            assert!(w.append_encoded(encoded).unwrap().unwrap().held);
        }
        // The 30th group fills the sample; writing the dictionary and the held records fails.
        let real = std::mem::replace(&mut w.current.as_mut().unwrap().file, Arc::new(full));
        let encoded = encoder.encode(&groups[29], &id).unwrap();
        assert!(w.append_encoded(encoded).is_err());
        w.current.as_mut().unwrap().file = real;
        // The next group, compressed with the trained dictionary, is written after them.
        let written = w.write(&groups[30]).unwrap();
        assert!(!written.held && !written.records.is_empty());
        let files = w.close().unwrap();
        let got: Vec<Vec<u8>> = reread(&files)
            .into_iter()
            .filter(|r| !r.windows(17).any(|w| w == b"WARC-Type: warcin"))
            .collect();
        let want: Vec<Vec<u8>> = groups
            .iter()
            .flatten()
            .map(|r| {
                let mut bytes = Vec::new();
                r.write_to(&mut bytes, &[("WARC-Warcinfo-ID", id.as_str())]);
                bytes
            })
            .collect();
        assert_eq!(got.len(), want.len());
        assert!(got == want, "records differ");
    }

    /// `groups` serialized as the writer writes them into the file whose warcinfo record has `id`.
    fn serialized(groups: &[Vec<Record>], id: &str) -> Vec<Vec<u8>> {
        groups
            .iter()
            .flatten()
            .map(|r| {
                let mut bytes = Vec::new();
                r.write_to(&mut bytes, &[("WARC-Warcinfo-ID", id)]);
                bytes
            })
            .collect()
    }

    /// A writer training a zstd dictionary, its sample full at 60 records (the warcinfo record and 29 pages
    /// and a half).
    fn training(dir: &Path) -> Writer {
        let mut cfg = WriterConfig::new(dir, "d", "h");
        cfg.compression = Compression::Zstd;
        cfg.zstd_dictionary = true;
        let mut w = Writer::new(cfg).unwrap();
        w.sample_limit = (1 << 20, 60);
        w
    }

    /// A crash while records are held back to train the dictionary: the crawl counted them as archived, and
    /// `repair` writes them into the file from the spill beside it.
    #[test]
    fn zstd_dictionary_held_records_survive_a_crash() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = training(dir.path());
        let id = w.warcinfo_id().unwrap();
        let groups: Vec<Vec<Record>> = (0..5).map(page).collect();
        for group in &groups {
            assert!(w.write(group).unwrap().held);
        }
        let open = w.current_path().unwrap().to_path_buf();
        let held = held_path(&open);
        std::mem::forget(w); // a crash: nothing is in the file yet
        assert_eq!(fs::metadata(&open).unwrap().len(), 0);
        // A group was being held when the crash came: its first record is torn.
        OpenOptions::new()
            .append(true)
            .open(&held)
            .unwrap()
            .write_all(b"WARC/1.1\r\nWARC-Type: requ")
            .unwrap();
        let repaired = crate::repair(&open).unwrap();
        assert!(!held.exists());
        assert_eq!((repaired.records, repaired.restored), (11, 11));
        // The torn record's bytes are said (xt28b F6).
        assert_eq!(repaired.held_cut, 25);
        let path = repaired.path.unwrap();
        assert_eq!(crate::verify(&path).unwrap().records, 11);
        let got = reread(std::slice::from_ref(&path));
        assert!(got[1..] == serialized(&groups, &id)[..], "records differ");
    }

    /// The spill cannot be written (a full disk) and cannot be cut back: that group and every later one is
    /// refused, so the spill never holds a record after a torn one, and what it held before comes back.
    #[test]
    fn zstd_dictionary_spill_that_fails_takes_no_more() {
        let Ok(full) = OpenOptions::new().write(true).open("/dev/full") else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let mut w = training(dir.path());
        let id = w.warcinfo_id().unwrap();
        let groups: Vec<Vec<Record>> = (0..3).map(page).collect();
        assert!(w.write(&groups[0]).unwrap().held);
        let held = w.current.as_mut().unwrap().held.as_mut().unwrap();
        let real = std::mem::replace(&mut held.spill, full);
        assert!(w.write(&groups[1]).is_err());
        let held = w.current.as_mut().unwrap().held.as_mut().unwrap();
        held.spill = real;
        assert!(w.write(&groups[2]).is_err(), "the spill takes no more");
        let open = w.current_path().unwrap().to_path_buf();
        std::mem::forget(w);
        let repaired = crate::repair(&open).unwrap();
        let got = reread(&[repaired.path.unwrap()]);
        assert!(
            got[1..] == serialized(&groups[..1], &id)[..],
            "records differ"
        );
    }

    /// A crash while the trained dictionary and the records held for it were being written: what the spill
    /// holds is put back; a spill left behind after they were all written is dropped.
    #[test]
    fn zstd_dictionary_records_cut_off_while_written_come_back_from_the_spill() {
        for cut in [true, false] {
            let dir = tempfile::tempdir().unwrap();
            let mut w = training(dir.path());
            let id = w.warcinfo_id().unwrap();
            let groups: Vec<Vec<Record>> = (0..30).map(page).collect();
            for group in &groups[..29] {
                assert!(w.write(group).unwrap().held);
            }
            let open = w.current_path().unwrap().to_path_buf();
            let held = held_path(&open);
            let mut spill = fs::read(&held).unwrap();
            spill.extend(serialized(&groups[29..], &id).concat());
            // The 30th group fills the sample: the dictionary and the 61 records are written.
            w.write(&groups[29]).unwrap();
            assert!(!held.exists());
            std::mem::forget(w);
            // The crash came before the spill was removed, and (`cut`) before the file was written whole.
            fs::write(&held, &spill).unwrap();
            if cut {
                let len = fs::metadata(&open).unwrap().len();
                OpenOptions::new()
                    .write(true)
                    .open(&open)
                    .unwrap()
                    .set_len(len / 2)
                    .unwrap();
            }
            let repaired = crate::repair(&open).unwrap();
            assert!(!held.exists());
            assert_eq!(repaired.records, 61);
            // Cut in half: the records it lost are put back (the file written anew); whole: none is.
            assert_eq!(repaired.restored > 0, cut, "{}", repaired.restored);
            assert_eq!(repaired.held_cut, 0);
            let path = repaired.path.unwrap();
            let magic = fs::read(&path).unwrap()[..4].to_vec();
            let dictionary_frame = [0x5D, 0x2A, 0x4D, 0x18];
            assert_eq!(
                magic == dictionary_frame,
                !cut,
                "rewritten without a dictionary: {cut}"
            );
            let got = reread(std::slice::from_ref(&path));
            assert!(got[1..] == serialized(&groups, &id)[..], "records differ");
        }
    }

    #[test]
    fn zstd_dictionary_without_enough_records_writes_plain_frames() {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = WriterConfig::new(dir.path(), "d", "h");
        cfg.compression = Compression::Zstd;
        cfg.zstd_dictionary = true;
        let mut w = Writer::new(cfg).unwrap();
        let written = w.write(&page(1)).unwrap();
        assert!(written.held);
        let files = w.close().unwrap();
        let bytes = fs::read(&files[0]).unwrap();
        assert_eq!(
            bytes[..4],
            [0x28, 0xB5, 0x2F, 0xFD],
            "no dictionary from 3 records"
        );
        assert_eq!(crate::verify(&files[0]).unwrap().records, 3);
        // Writing goes on without a dictionary.
        let written = w.write(&page(2)).unwrap();
        assert!(!written.held);
        w.close().unwrap();
    }

    #[test]
    fn zstd_dictionary_damaged_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = WriterConfig::new(dir.path(), "d", "h");
        cfg.compression = Compression::Zstd;
        cfg.zstd_dictionary = true;
        let mut w = Writer::new(cfg).unwrap();
        w.sample_limit = (1 << 20, 40);
        for n in 0..40 {
            w.write(&page(n)).unwrap();
        }
        let file = w.close().unwrap().remove(0);
        let good = fs::read(&file).unwrap();
        let size = u32::from_le_bytes(good[4..8].try_into().unwrap()) as usize;
        let damaged = |f: &dyn Fn(&mut Vec<u8>)| {
            let mut bytes = good.clone();
            f(&mut bytes);
            let path = dir.path().join("damaged.warc.zst");
            fs::write(&path, &bytes).unwrap();
            let err = reader::open(&path)
                .unwrap()
                .find_map(Result::err)
                .expect("an error");
            assert!(
                err.to_string().starts_with(&path.display().to_string()),
                "{err}"
            );
            assert!(err.offset().is_some());
            (err, crate::verify(&path).is_err())
        };
        type Damage = Box<dyn Fn(&mut Vec<u8>)>;
        let cases: Vec<(&str, Damage)> = vec![
            (
                "payload garbled",
                Box::new(|b: &mut Vec<u8>| b[12..40].fill(0xAA)),
            ),
            (
                "frame cut short",
                Box::new(move |b: &mut Vec<u8>| b.truncate(8 + size / 2)),
            ),
            (
                "size past the end",
                Box::new(|b: &mut Vec<u8>| b[4..8].copy_from_slice(&u32::MAX.to_le_bytes())),
            ),
            (
                "dictionary swapped for raw bytes",
                Box::new(move |b: &mut Vec<u8>| {
                    b.splice(8..8 + size, std::iter::repeat_n(b'x', size));
                }),
            ),
        ];
        for (what, f) in cases {
            let (err, verify_failed) = damaged(&*f);
            assert!(verify_failed, "{what}: verify");
            assert!(
                matches!(
                    err,
                    Error::ZstdDictionary { offset: 0, .. } | Error::Zstd { .. }
                ),
                "{what}: {err}"
            );
        }
    }

    #[test]
    fn empty_group_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = Writer::new(WriterConfig::new(dir.path(), "p", "h")).unwrap();
        assert!(matches!(w.write(&[]), Err(Error::EmptyGroup)));
        assert_eq!(w.close().unwrap(), Vec::<PathBuf>::new());
    }

    #[test]
    fn big_files_are_written_back_as_they_grow_and_read_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = WriterConfig::new(dir.path(), "p", "h");
        cfg.compression = Compression::None;
        let mut w = Writer::new(cfg).unwrap();
        let date = Utc.with_ymd_and_hms(2026, 11, 22, 8, 25, 1).unwrap();
        let body = vec![b'x'; 1 << 20];
        for n in 0..20 {
            let mut http =
                format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len()).into_bytes();
            http.extend_from_slice(&body);
            let uri = format!("http://example.com/{n}");
            w.write(&[Record::response(&uri, date, None, http)])
                .unwrap();
        }
        let open = w.current.as_ref().unwrap();
        // Two requests so far (at 8 and 16 MiB), the second one also dropping the first range.
        assert!(
            open.written_back >= 2 * WRITE_BACK_BYTES,
            "{}",
            open.written_back
        );
        assert!(open.released >= WRITE_BACK_BYTES && open.released < open.written_back);
        let written_back = open.written_back;
        // The first was given by the writer when the second fell due untaken; the second waits to be taken,
        // from the start of the file (nothing dropped yet) to where it fell due.
        let due = w.take_write_back().expect("the second write-back, untaken");
        assert_eq!(due.range(), 0..written_back);
        assert!(w.take_write_back().is_none(), "taken once");
        due.run();
        let paths = w.close().unwrap();
        let summary = crate::verify(&paths[0]).unwrap();
        assert_eq!(summary.records, 21, "warcinfo and 20 responses");
    }

    #[test]
    fn drop_finishes_the_file() {
        let dir = tempfile::tempdir().unwrap();
        {
            let mut w = Writer::new(WriterConfig::new(dir.path(), "p", "h")).unwrap();
            w.write(&group(1)).unwrap();
        }
        let names = names(dir.path());
        assert_eq!(names.len(), 1);
        assert!(names[0].ends_with("-00000-h.warc.gz"), "{names:?}");
        // Its index beside it, as the reference indexer would write it from the file.
        let warc = dir.path().join(&names[0]);
        let written = fs::read_to_string(cdxj::index_path(&warc)).unwrap();
        let mut from_file = cdxj::index_file(&warc, &names[0]).unwrap();
        cdxj::sort(&mut from_file);
        assert_eq!(
            written,
            from_file
                .iter()
                .map(|l| format!("{l}\n"))
                .collect::<String>()
        );
        assert_eq!(written.lines().count(), 1);
    }

    #[test]
    fn existing_names_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = Writer::new(WriterConfig::new(dir.path(), "p", "h")).unwrap();
        // Pre-create the .open name for serial 00000 at this second and the next few.
        let now = Utc::now();
        for s in 0..3 {
            let t = now + chrono::Duration::seconds(s);
            let name = file_name("p", t, 0, "h", Compression::Gzip);
            fs::write(dir.path().join(format!("{name}{OPEN_SUFFIX}")), b"taken").unwrap();
        }
        let written = w.write(&group(1)).unwrap();
        assert!(
            !written.path.to_str().unwrap().contains("-00000-"),
            "{}",
            written.path.display()
        );
        w.close().unwrap();
    }

    #[test]
    fn a_file_removed_while_written_fails_the_next_group_and_its_close() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = Writer::new(WriterConfig::new(dir.path(), "t", "h")).unwrap();
        w.write(&group(1)).unwrap();
        let open = w.current_path().unwrap().to_owned();
        std::fs::remove_dir_all(dir.path()).unwrap();
        // The group went into a file with no name: said, so the crawl does not count it archived.
        let err = w.write(&group(1)).unwrap_err();
        assert!(
            matches!(&err, Error::Removed { path } if *path == open),
            "{err}"
        );
        assert!(err.to_string().contains("removed"), "{err}");
        // Its close says so too, rather than "No such file or directory" from the rename.
        std::fs::create_dir_all(dir.path()).unwrap();
        let mut w = Writer::new(WriterConfig::new(dir.path(), "t", "h")).unwrap();
        w.write(&group(1)).unwrap();
        std::fs::remove_file(w.current_path().unwrap()).unwrap();
        assert!(matches!(w.close(), Err(Error::Removed { .. })));
        assert!(w.close().unwrap().is_empty(), "nothing was finished");
    }

    #[test]
    fn a_folder_moved_while_written_is_said_moved_and_its_file_kept_whole() {
        let top = tempfile::tempdir().unwrap();
        let dir = top.path().join("warcs");
        let mut w = Writer::new(WriterConfig::new(&dir, "t", "h")).unwrap();
        w.write(&group(2)).unwrap();
        let open = w.current_path().unwrap().to_owned();
        let away = top.path().join("elsewhere");
        fs::rename(&dir, &away).unwrap();
        // Writes go on into the moved file (it still has a name); its close cannot rename it here.
        w.write(&group(1)).unwrap();
        let err = w.close().unwrap_err();
        assert!(
            matches!(&err, Error::Moved { path } if *path == open),
            "{err}"
        );
        assert!(err.to_string().contains("moved"), "{err}");
        let moved = away.join(open.file_name().unwrap());
        let records: Vec<_> = reader::open(&moved)
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        // The warcinfo record and both groups' request and response.
        assert_eq!(records.len(), 1 + 2 * 2, "{}", moved.display());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn failed_write_truncates_back() {
        // /dev/full accepts opens and fails every write with ENOSPC.
        let Ok(file) = OpenOptions::new().write(true).open("/dev/full") else {
            return;
        };
        let mut open = OpenFile {
            file: Arc::new(file),
            open_path: "/dev/full".into(),
            final_path: "/dev/full".into(),
            size: 0,
            warcinfo_id: String::new(),
            index: Vec::new(),
            name: String::new(),
            index_trailer: 0,
            written_back: 0,
            released: 0,
            held: None,
            links_counted: true,
        };
        let err = append(&mut open, b"abc").unwrap_err();
        assert!(
            matches!(
                err,
                Error::Write {
                    offset: 0,
                    len: 3,
                    ..
                }
            ),
            "{err}"
        );
        assert!(
            err.to_string()
                .starts_with("/dev/full: writing 3 bytes at offset 0 failed"),
            "{err}"
        );
        assert_eq!(open.size, 0);
    }
}
