//! `trawl warc recompress`: a WARC rewritten record by record in another compression (gzip, zstd or none),
//! for tools that read only one of them. Each record keeps its header (byte for byte) and block, and is
//! compressed on its own
//! (one gzip member or zstd frame), so offsets in the new file's index locate single records. A zstd output
//! begins with a dictionary trained from the input's first records (the IIPC warc-zstd dictionary frame),
//! which every record's frame is compressed with.

use std::{io::Write, path::Path, sync::Arc};

use crate::zstd_dictionary::{SAMPLE_BYTES, SAMPLE_RECORDS, ZstdDictionary};
use crate::{Compression, Encoder, Error, ReadRecord, WriterConfig, cdxj, reader};

/// Rewrites the WARC `input` as `output` in the compression its extension names (`.warc.gz`, `.warc.zst`,
/// `.warc`), through a temporary file, then writes the output's CDXJ index beside it. Returns the number of
/// records. A file that cannot be read to its end is refused ([`recompress_salvaging`] keeps what is before).
pub fn recompress(input: &Path, output: &Path) -> Result<usize, Error> {
    Ok(recompress_within(input, output, false)?.records)
}

/// [`recompress`], keeping the records before the point where a file stops being readable (a gzip member or
/// zstd frame cut short or damaged, a plain file cut short or padded with zero bytes), as `convert` keeps them:
/// what stopped it is [`Rewritten::stopped`] (xt29a F1: `trawl warc recompress` of a cut file wrote nothing).
pub fn recompress_salvaging(input: &Path, output: &Path) -> Result<Rewritten, Error> {
    recompress_within(input, output, true)
}

fn recompress_within(input: &Path, output: &Path, salvage: bool) -> Result<Rewritten, Error> {
    rewrite(input, output, salvage, |record, plain| {
        if record.is_arc() {
            return Err(Error::Unconvertible {
                path: input.to_path_buf(),
                offset: record.offset,
                problem: format!(
                    "an ARC record: make a WARC of it with `trawl warc convert {} OUT.warc.gz`",
                    input.display()
                ),
            });
        }
        copy(record, None, plain);
        Ok(())
    })
}

/// What [`rewrite`] wrote: how many records, and what ended the input early when an ARC file's records
/// before its damage were kept.
#[derive(Debug)]
pub struct Rewritten {
    /// Records written.
    pub records: usize,
    /// Damage read past, in file order: the records in each stretch of damage are not in the output, those
    /// after it are (xt27b F4).
    pub passed: Vec<crate::Passed>,
    /// The damage that ended the input: the records from there on are not in the output.
    pub stopped: Option<Error>,
    /// Where whole records of another warcinfo begin after it, not read ([`crate::unread_other_hint`]).
    pub unread_other: Option<u64>,
    /// The first record whose WARC-Record-ID and header repeat an earlier record's byte for byte, and that
    /// record's offset: `(offset, earlier)`. A file concatenated with itself: the output holds both copies, and
    /// `trawl warc verify` fails it as the input (xt28b F3: written silently).
    pub copied: Option<(u64, u64)>,
    /// The records written with a flaw mended, in file order: a WARC record's Content-Length that disagreed
    /// with the gzip member framing it, or its ending cut ([`ReadRecord::framed`]), or CR and LF after it in
    /// its member ([`ReadRecord::member_end`]); an ARC record's date, IP address, or content without its HTTP
    /// head (`convert`).
    pub repaired: Vec<Mended>,
}

/// A record written although verify fails it, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mended {
    /// Offset of the record, or of the gzip member holding it.
    pub offset: u64,
    /// Its URL, as the file has it (`-` for a record without one).
    pub url: String,
    /// Each flaw and what was written instead.
    pub repairs: Vec<String>,
}

impl std::fmt::Display for Mended {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "record at offset {} ({}): {}",
            self.offset,
            self.url,
            self.repairs.join("; ")
        )
    }
}

/// A WARC record as it was read: its header bytes as written (under the version line `version` instead of
/// its own, when given), its block and two CRLFs. A record read without them (never from the reader) is
/// serialized from its fields.
pub(crate) fn copy(r: &ReadRecord, version: Option<&str>, out: &mut Vec<u8>) {
    let raw = r.raw_header.as_slice();
    let Some(line_end) = raw.iter().position(|&b| b == b'\n') else {
        serialize(r, version.unwrap_or(&r.version), out);
        return;
    };
    match version {
        Some(v) => {
            out.extend_from_slice(v.as_bytes());
            // The version line's own end of line (CRLF as written, or a bare LF).
            let eol = if raw[..line_end].ends_with(b"\r") {
                1
            } else {
                0
            };
            out.extend_from_slice(&raw[line_end - eol..]);
        }
        None => out.extend_from_slice(raw),
    }
    out.extend_from_slice(&r.block);
    out.extend_from_slice(b"\r\n\r\n");
}

/// Writes `output` (compressed as its extension says, one member or frame per record) from the records of
/// `input`, each as `each` serializes it (nothing for a record to drop), through a temporary file (removed
/// on error); then its CDXJ index beside it. With `salvage`, a file that cannot be read past some point (a
/// gzip member cut short, zero bytes after the last record) gives the records before it, and the damage is
/// returned as [`Rewritten::stopped`]; any other error leaves nothing.
pub(crate) fn rewrite(
    input: &Path,
    output: &Path,
    salvage: bool,
    each: impl FnMut(&ReadRecord, &mut Vec<u8>) -> Result<(), Error>,
) -> Result<Rewritten, Error> {
    // Removed as it is dropped, on an error.
    let tmp = crate::naming::temp_beside(output)?;
    let written = write_records(input, output, &tmp, salvage, each)?;
    tmp.persist(output).map_err(|e| Error::Io {
        path: output.to_path_buf(),
        source: e.error,
    })?;
    cdxj::index_beside(output)?;
    Ok(written)
}

fn write_records(
    input: &Path,
    output: &Path,
    tmp: &Path,
    salvage: bool,
    mut each: impl FnMut(&ReadRecord, &mut Vec<u8>) -> Result<(), Error>,
) -> Result<Rewritten, Error> {
    let compression = Compression::of_path(output);
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    let file = std::fs::File::create(tmp).map_err(io(tmp))?;
    let mut out = std::io::BufWriter::new(file);
    // The writer's own encoder, at its default levels: a record compresses as the crawl would have.
    let mut encoder = Encoder::new(compression, WriterConfig::new(".", "", "").gzip_level);
    // A zstd output trains a dictionary from the first records, held here until then.
    let mut held = (compression == Compression::Zstd).then(Held::default);
    let mut plain = Vec::new();
    let mut encoded = Vec::new();
    let mut records = 0;
    let mut stopped = None;
    let mut passed = Vec::new();
    // How the last record read was stored, and whether it was an ARC record.
    let mut last: Option<(Compression, bool)> = None;
    let mut copies = Copies::default();
    let mut repaired = Vec::new();
    let mut reader = reader::open(input)?;
    while let Some(record) = reader.next() {
        let record = match record {
            Ok(record) => record,
            // Damage with whole records after it: those are kept too, as warcio reads on (xt27b F4).
            // A search that cannot read the file (a bad disk block) keeps what is before, as the damage alone
            // would (review 76 R7).
            Err(e) if salvage => match reader.read_on_after(&e).unwrap_or(None) {
                Some(read_on_at) => {
                    passed.push(crate::Passed {
                        damage: e,
                        read_on_at,
                    });
                    continue;
                }
                None if keeps_before(&e, records, last, input) => {
                    stopped = Some(e);
                    break;
                }
                None => return Err(e),
            },
            Err(e) => return Err(e),
        };
        // A length off by the CR and LF about the record's ending reads as a whole record: its block digest
        // (one more pass over each record in a member, as `verify` makes) may match the block its member frames
        // otherwise. Taken where its payload digest agrees; else written as read, named (xt34a F2, review 80 H1).
        let mut record = record;
        let mut doubt = None;
        if let Some(found) = record.digest_frames() {
            match found.corroborated {
                true => record.take_framing(&found),
                false => doubt = Some(format!("{found}: written as read")),
            }
        }
        // Written as warcio reads it, as WARC 1.1 has it: its length mended (xt30a F3), its ending whole (xt32b
        // F4), without the CR and LF its member held after it (xt33a F3).
        let repair = doubt.or_else(|| match record.framed() {
            Some(framed) => {
                record.mend_length();
                Some(format!("{framed}: written {}", framed.mended()))
            }
            None => record
                .blank_in_member()
                .map(|what| format!("{what}: written without them")),
        });
        if let Some(repair) = repair {
            repaired.push(Mended {
                offset: record.offset,
                url: record.get("WARC-Target-URI").unwrap_or("-").to_owned(),
                repairs: vec![repair],
            });
        }
        last = Some((record.compression, record.is_arc()));
        copies.watch(&record);
        plain.clear();
        // Room for the record taken once (grown by doubling, a large record took 3x its size).
        plain.reserve(record.raw_header.len() + record.block.len() + 4);
        each(&record, &mut plain)?;
        if plain.is_empty() {
            continue;
        }
        records += 1;
        let stored = crate::incompressible::already_compressed(&record.header, &record.block);
        // The record is in `plain` now: its block is not kept beside it while it is compressed.
        drop(record);
        if let Some(h) = &mut held {
            h.bytes += plain.len();
            h.records.push(plain.clone());
            if h.bytes >= SAMPLE_BYTES || h.records.len() >= SAMPLE_RECORDS {
                encoder = release(held.take().expect("held above"), &mut out).map_err(io(tmp))?;
            }
            continue;
        }
        encoded.clear();
        encoder.compress_known(&plain, stored, &mut encoded);
        out.write_all(&encoded).map_err(io(tmp))?;
    }
    if let Some(h) = held {
        release(h, &mut out).map_err(io(tmp))?;
    }
    let file = out.into_inner().map_err(|e| Error::Io {
        path: tmp.to_path_buf(),
        source: e.into_error(),
    })?;
    file.sync_all().map_err(io(tmp))?;
    let unread_other = reader.unread_other();
    Ok(Rewritten {
        records,
        passed,
        unread_other: unread_other.filter(|_| stopped.is_some()),
        stopped,
        copied: copies.found,
        repaired,
    })
}

/// Watches the records read for the first that repeats an earlier one: the same WARC-Record-ID and header,
/// byte for byte (by 64-bit hashes: 24 bytes a record until one is found).
#[derive(Default)]
struct Copies {
    /// Each id's hash: the record's offset and its header's hash.
    seen: std::collections::HashMap<u64, (u64, u64)>,
    /// The first copy and the record it repeats, by offset.
    found: Option<(u64, u64)>,
}

impl Copies {
    fn watch(&mut self, record: &ReadRecord) {
        use std::collections::hash_map::Entry;
        if self.found.is_some() {
            return;
        }
        let Some(id) = record.get("WARC-Record-ID") else {
            return;
        };
        let header = cdxj::id_hash(&record.raw_header);
        match self.seen.entry(cdxj::id_hash(id)) {
            Entry::Occupied(e) if e.get().1 == header => {
                self.found = Some((record.offset, e.get().0));
                self.seen = std::collections::HashMap::new();
            }
            Entry::Occupied(_) => {}
            Entry::Vacant(v) => {
                v.insert((record.offset, header));
            }
        }
    }
}

/// Whether the records before `damage`, which ends the input, are kept: it is often all that is left of a
/// crawl (an ARC's, and a WARC's too: xt15a F11). Those are whole when each had a gzip member (or zstd frame)
/// of its own (`last` says how the last record read was stored, and whether it was an ARC record); a plain
/// WARC record too, which the reader gives only when what follows it is no rest of its block or its digest
/// says it is whole (xt32a F5: junk after a plain file's last record left no output); in a plain ARC, when
/// the file ends there, or nothing but zero bytes follows (what a tape or disk image pads a file with), else
/// the length of the record before may be what is wrong.
fn keeps_before(
    damage: &Error,
    records: usize,
    last: Option<(Compression, bool)>,
    input: &Path,
) -> bool {
    records > 0
        && last.is_some_and(|(c, arc)| {
            c != Compression::None
                || !arc
                || matches!(damage, Error::CutInHeader { .. })
                || cut_by_the_end(damage)
                || damage
                    .offset()
                    .is_some_and(|o| reader::zeros_after(input, o))
        })
}

/// Whether `e` is a record the end of the file cut (its header or block runs to the end): a plain file cut
/// short, whose records before it are whole, as the next began where each one's length said (xt28b F2).
fn cut_by_the_end(e: &Error) -> bool {
    matches!(e, Error::Malformed { found, .. } if found.ends_with("end of input"))
}

/// The first records of a zstd output, held back to train its dictionary.
#[derive(Default)]
struct Held {
    records: Vec<Vec<u8>>,
    bytes: usize,
}

/// Trains the dictionary from the `held` records, writes its frame and the records compressed with it to
/// `out`, and returns the encoder for the rest; without enough records for a dictionary, they are written
/// without one.
fn release(held: Held, out: &mut impl Write) -> std::io::Result<Encoder> {
    let mut encoder = match ZstdDictionary::train(&held.records) {
        Some(dictionary) => {
            out.write_all(&dictionary.frame())?;
            Encoder::with_zstd_dictionary(Arc::new(dictionary))
        }
        None => Encoder::new(Compression::Zstd, 1),
    };
    let mut encoded = Vec::new();
    for plain in &held.records {
        encoded.clear();
        encoder.compress(plain, &mut encoded);
        out.write_all(&encoded)?;
    }
    Ok(encoder)
}

/// A WARC record as WARC writes it, under the version line `version`: header fields, empty line, block, two
/// CRLFs.
pub(crate) fn serialize(r: &ReadRecord, version: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(version.as_bytes());
    out.extend_from_slice(b"\r\n");
    for (name, value) in &r.header {
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(&r.block);
    out.extend_from_slice(b"\r\n\r\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Record, Writer, WriterConfig, verify};

    /// A header's bytes come through every compression as written: a Latin-1 byte, a field name in lower case
    /// without a space after its colon, spaces before a value, a continuation line.
    #[test]
    fn header_bytes_are_kept_as_written() {
        let block: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi";
        let odd = [
            &b"WARC/1.1\r\nwarc-type:response\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000001>\r\n\
               WARC-Date:   2013-10-21T21:53:07Z\r\nWARC-Target-URI: http://example.org/latin1-caf\xe9\r\n\
               X-Folded: first\r\n  second\r\nContent-Type: application/http;msgtype=response\r\n"[..],
            format!("Content-Length: {}\r\n\r\n", block.len()).as_bytes(),
            block,
            b"\r\n\r\n",
        ]
        .concat();
        let plain = [
            &b"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:2>\r\nWARC-Date: 2013-10-21T21:53:07Z\r\n\
               WARC-Target-URI: http://example.org/r\r\nContent-Length: 2\r\n\r\nhi\r\n\r\n"[..],
        ]
        .concat();
        let original = [odd.clone(), plain].concat();
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("orig.warc");
        std::fs::write(&input, &original).unwrap();
        let mut from = input.clone();
        for name in ["a.warc.gz", "b.warc.zst", "c.warc.gz", "d.warc"] {
            let out = dir.path().join(name);
            assert_eq!(recompress(&from, &out).unwrap(), 2, "{name}");
            from = out;
        }
        assert_eq!(std::fs::read(&from).unwrap(), original);
        // convert keeps them too, under WARC/1.1 (a WARC 1.0 record's version line alone changes).
        let v10 = [&b"WARC/1.0"[..], &original[8..]].concat();
        std::fs::write(&input, &v10).unwrap();
        let out = dir.path().join("e.warc");
        assert_eq!(crate::convert(&input, &out).unwrap().records, 2);
        assert_eq!(std::fs::read(&out).unwrap(), original);
    }

    /// xt32a F5: junk after a plain file's last record (a stray CRLF, a BOM) keeps every record: the reader gives
    /// a plain WARC record only when what follows is no rest of its block, or its digest says it is whole.
    #[test]
    fn junk_after_a_plain_file_keeps_its_records() {
        let dir = tempfile::tempdir().unwrap();
        let record = || Record::metadata("http://example.org/r", chrono::Utc::now(), &[("a", "b")]);
        for junk in [&b"\r\n"[..], b"\xef\xbb\xbfjunk", b"  x"] {
            let input = dir.path().join("in.warc");
            let file = [record().to_bytes(), record().to_bytes(), junk.to_vec()].concat();
            std::fs::write(&input, file).unwrap();
            let out = dir.path().join("out.warc.gz");
            let _ = std::fs::remove_file(&out);
            let _ = std::fs::remove_file(crate::index_path(&out));
            let rewritten = recompress_salvaging(&input, &out).unwrap();
            assert_eq!(rewritten.records, 2, "{junk:?}");
            // Blank lines are passed over, as between records.
            assert_eq!(rewritten.stopped.is_some(), junk != b"\r\n", "{junk:?}");
            assert_eq!(verify(&out).unwrap().records, 2);
        }
    }

    #[test]
    fn gzip_to_zstd_and_back_keeps_every_record() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = Writer::new(WriterConfig::new(dir.path(), "t", "h")).unwrap();
        let http = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello".to_vec();
        // A payload already compressed: its member is stored blocks, in the crawl's file and after a round trip.
        let png: Vec<u8> = [
            &b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 4000\r\n\r\n"[..],
            &[7; 4000],
        ]
        .concat();
        let now = chrono::Utc::now();
        w.write(&[
            Record::response("http://a.org/", now, None, http),
            Record::response("http://a.org/a.png", now, None, png),
        ])
        .unwrap();
        let original = w.close().unwrap().remove(0);
        let zst = dir.path().join("x.warc.zst");
        assert_eq!(recompress(&original, &zst).unwrap(), 3);
        assert_eq!(verify(&zst).unwrap().records, 3);
        let back = dir.path().join("y.warc.gz");
        // An operator's file of the old temporary names beside it is neither used nor removed (xt15c F14),
        // and nothing temporary is left.
        let theirs = [
            dir.path().join("y.cdxj.tmp"),
            dir.path().join("y.warc.recompress.tmp"),
        ];
        for path in &theirs {
            std::fs::write(path, "keep").unwrap();
        }
        assert_eq!(recompress(&zst, &back).unwrap(), 3);
        for path in &theirs {
            assert_eq!(std::fs::read_to_string(path).unwrap(), "keep");
            std::fs::remove_file(path).unwrap();
        }
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
        // Byte for byte the crawl's file, but for the warcinfo record's date and filename.
        let members = |p: &Path| -> Vec<Vec<u8>> {
            let bytes = std::fs::read(p).unwrap();
            reader::open(p)
                .unwrap()
                .skip(1)
                .map(|r| {
                    let r = r.unwrap();
                    bytes[r.offset as usize..(r.offset + r.len) as usize].to_vec()
                })
                .collect()
        };
        assert_eq!(members(&original), members(&back));
        type Fields = (Vec<(String, String)>, Vec<u8>);
        let read = |p: &Path| -> Vec<Fields> {
            reader::open(p)
                .unwrap()
                .map(|r| {
                    let r = r.unwrap();
                    (r.header, r.block)
                })
                .collect()
        };
        assert_eq!(read(&original), read(&back));
        assert_eq!(read(&original), read(&zst));
        // Each output has its index beside it, with one capture.
        let index = std::fs::read_to_string(cdxj::index_path(&zst)).unwrap();
        assert_eq!(index.lines().count(), 2);
        assert!(index.contains("\"filename\": \"x.warc.zst\""));
    }
}
