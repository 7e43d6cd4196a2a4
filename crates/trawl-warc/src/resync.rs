//! Finding the first whole record after damage: where the tools read on (`trawl warc ls`, `index`, `convert`,
//! `recompress`: one bad member must not cost every later record, xt27b F4), and what tells damage inside a
//! `.open` file from a crash's torn end ([`crate::repair`]).

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use crate::reader::Reader;
use crate::{Compression, Error};

impl Reader<BufReader<File>> {
    /// After `damage` (an error this reader gave, which ended its records), finds the first whole record of
    /// the file's own after it and sets the reader to read on from there: its offset, or `None` when no such
    /// record follows, or when what failed is no record's damage (a read error, the file's zstd dictionary),
    /// or the file is a plain ARC (whose records begin with a URL, which nothing tells from a line of
    /// content), or an ARC whose `filedesc://` record was not read, or the reader does not read a file from
    /// its start ([`crate::open`] makes one that does). In a file of one gzip member (or zstd frame) per
    /// record, that is the next member that reads whole, as warcio reads on (xt27b F4: one flipped bit cost
    /// every later record).
    pub fn read_on_after(&mut self, damage: &Error) -> Result<Option<u64>, Error> {
        let offset = match damage {
            Error::Malformed { offset, .. }
            | Error::BadHeader { offset, .. }
            | Error::TooLarge { offset, .. }
            | Error::Gzip { offset, .. }
            | Error::Zstd { offset, .. }
            | Error::ZstdDictionaryId { offset, .. } => *offset,
            _ => return Ok(None),
        };
        let (Some(path), warcinfo, unnamed, arc, limit) = self.read_so_far() else {
            return Ok(None);
        };
        let path = path.to_path_buf();
        // Its version and what its records look like are in the damaged `filedesc://` record (review 76 R5).
        if arc.is_none() && is_arc_name(&path) {
            return Ok(None);
        }
        // A member whose deflate stream is whole (its CRC wrong, or its record's framing) ends where it says:
        // what lies inside it is no record of the file's, a WARC stored in it least of all (xt30a F1).
        let member = member_end(&path, offset)?;
        let from = member.as_ref().map_or(offset + 1, |m| m.end);
        let declared = match member {
            Some(_) => 0,
            None => declared_reach(&path, offset)?,
        };
        let own = Own {
            warcinfo,
            unnamed,
            arc,
            others: true,
            limit,
            declared,
        };
        let later = later_record(&path, from, own)?;
        self.set_unread_other(later.unread_other);
        let Some(at) = later.at else {
            return Ok(None);
        };
        self.seek_to(at)
            .map_err(|source| Error::Io { path, source })?;
        Ok(Some(at))
    }
}

/// Damage a tool read past: what the reader said of it, and where it read on, at the first whole record after
/// it. The records between are lost to the tool.
#[derive(Debug)]
pub struct Passed {
    /// What was wrong where reading stopped.
    pub damage: Error,
    /// Where the first whole record after it begins.
    pub read_on_at: u64,
}

impl std::fmt::Display for Passed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}; read on at offset {}, where the first whole record after it begins",
            self.damage, self.read_on_at
        )
    }
}

/// What a record found after damage must be to count as the file's own: a WARC record naming `warcinfo`
/// (when known), so that a WARC captured in a record (stored as it is, incompressible) is not taken for one;
/// in an ARC file (`arc`, its version), an ARC record. With `others`, a record naming another warcinfo is
/// taken when no record of the file's own follows it: the next file of several joined (`cat a.warc.gz
/// b.warc.gz`) begins there (xt30a F2).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Own<'a> {
    /// The WARC-Warcinfo-ID the file's records name.
    pub(crate) warcinfo: Option<&'a str>,
    /// Whether a record naming no warcinfo may be the file's too: the last record read was `warcinfo` itself,
    /// and whether the file's records name it is not known (xt33a F4: every later record was taken for
    /// another file's).
    pub(crate) unnamed: bool,
    /// The file's ARC version, when it is an ARC file.
    pub(crate) arc: Option<&'a str>,
    /// Whether the records of another file joined to this one are taken when none of its own follow (and a
    /// record over `limit` is taken for one that begins, which the reader then reads past).
    pub(crate) others: bool,
    /// The largest record read to judge it.
    pub(crate) limit: u64,
    /// Where the damaged record's own header says it ends (0 when it cannot be read): with no warcinfo known,
    /// a record well before it is inside it, not taken (xt30b F2).
    pub(crate) declared: u64,
}

/// Whether `path` is named as an ARC file (`.arc`, `.arc.gz`, `.arc.zst`, open or not).
fn is_arc_name(path: &Path) -> bool {
    let name = path.to_string_lossy().to_ascii_lowercase();
    let name = name.strip_suffix(".open").unwrap_or(&name);
    [".arc", ".arc.gz", ".arc.zst"]
        .iter()
        .any(|ext| name.ends_with(ext))
}

/// How much a Content-Length may be too long while the record after it is still taken, when no warcinfo tells
/// the file's records ([`Reach::declared`]).
const LENGTH_SLACK: u64 = 256;

/// Where the damaged record at `offset` of `path` ends as its own header says: a plain record's, or a gzip
/// member's that stores its bytes as they are (a WARC captured in it lies there whole), read from its
/// Content-Length; 0 when none can be read (a zstd frame, a compressed member, a damaged header).
fn declared_reach(path: &Path, offset: u64) -> Result<u64, Error> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = std::fs::File::open(path).map_err(io)?;
    file.seek(SeekFrom::Start(offset)).map_err(io)?;
    let mut head = Vec::new();
    file.take(1 << 20).read_to_end(&mut head).map_err(io)?;
    Ok(match Compression::of_file(path) {
        // A stored member holds its record as it is, after the gzip header and a block's 5-byte header.
        Compression::Gzip => memchr::memmem::find(&head[..head.len().min(512)], b"WARC/1.")
            .and_then(|at| declared_end(&head[at..]).map(|len| offset + at as u64 + len))
            .unwrap_or(0),
        // Only where a record begins: blank lines or a BOM before a file's first record are no record that
        // declares a length (xt32b F2: the first record, 2 bytes on, was taken for part of the damage).
        Compression::None if head.starts_with(b"WARC/") => {
            declared_end(&head).map_or(0, |len| offset + len)
        }
        _ => 0,
    })
}

/// How long the WARC record `bytes` begins with says it is (its header, block and CRLF CRLF), read from its
/// header's Content-Length.
fn declared_end(bytes: &[u8]) -> Option<u64> {
    let end = memchr::memmem::find(bytes, b"\r\n\r\n")?;
    let fields = std::str::from_utf8(&bytes[..end]).ok()?;
    let length = fields.lines().find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("Content-Length")
            .then(|| value.trim().parse::<u64>().ok())?
    })?;
    (end as u64 + 4).checked_add(length)?.checked_add(4)
}

/// What [`later_record`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Later {
    /// Where reading goes on.
    pub(crate) at: Option<u64>,
    /// When it goes on nowhere: where the first whole record of another warcinfo begins, not taken (a WARC
    /// captured in the damaged record, or a file joined after this one that does not read whole to its end).
    pub(crate) unread_other: Option<u64>,
}

/// What a tool says of whole records of another warcinfo it did not read, at `offset` of `path`: what they may
/// be, and how to read them (xt30a F2: "none from there on" said nothing of them).
pub fn unread_other_hint(path: &Path, offset: u64) -> String {
    format!(
        "whole records of another warcinfo begin at offset {offset}, not read as this file's (a WARC captured \
         in the damaged record, or a file joined after this one): `tail -c +{} {} > REST.warc` splits them \
         off to be read on their own (name REST as the file is compressed)",
        offset + 1,
        path.display()
    )
}

/// What a place where a record can begin holds.
enum Found {
    /// A whole record of the file's own.
    Own,
    /// A whole WARC record naming another warcinfo, and where it ends.
    Other { end: u64 },
    /// No record (a member or frame that does not read whole, or not a record).
    Nothing,
}

/// Where the first whole record of `path` at or after byte `from` begins, if any: each place a record can begin
/// (a gzip member's or zstd frame's magic, or `WARC/1.` in a plain file) is tried, in
/// order, until one reads as a record of the file's `own`; failing that (with [`Own::others`]), the first record
/// of another warcinfo from which the file reads whole to its end ([`reads_to_the_end`]). A gzip member that
/// does not read as a record of the file's own but whose deflate stream is whole is passed over whole: what it
/// holds (a WARC file captured in a record, stored as it is) is not the file's. A `.warc.zst` file's frames are
/// read with the dictionary it begins with.
pub(crate) fn later_record(path: &Path, from: u64, own: Own<'_>) -> Result<Later, Error> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let compression = Compression::of_file(path);
    // A start's bytes.
    let magic: &[u8] = match compression {
        Compression::Gzip => &[0x1f, 0x8b, 0x08],
        Compression::Zstd => &[0x28, 0xb5, 0x2f, 0xfd],
        // A plain ARC's records begin with a URL, which nothing tells from a line of content.
        Compression::None if own.arc.is_some() => {
            return Ok(Later {
                at: None,
                unread_other: None,
            });
        }
        // Anywhere, not only after the empty line ending a record: junk may come before it.
        Compression::None => b"WARC/1.",
    };
    let finder = memchr::memmem::Finder::new(magic);
    let mut file = std::fs::File::open(path).map_err(io)?;
    let mut at = from;
    let mut others = Vec::new();
    let mut chunk = vec![0u8; 1 << 20];
    loop {
        file.seek(SeekFrom::Start(at)).map_err(io)?;
        let n = read_full(&mut file, &mut chunk).map_err(io)?;
        let mut searched = 0;
        let mut skip_to = None;
        while let Some(found) = finder.find(&chunk[searched..n]) {
            let start = at + (searched + found) as u64;
            let found_here = what_begins(path, start, own)?;
            // With no warcinfo to tell them, a record well inside the damaged one is a WARC captured in it.
            let inside =
                (own.warcinfo.is_none() || own.unnamed) && start + LENGTH_SLACK < own.declared;
            if matches!(found_here, Found::Own) && !inside {
                return Ok(Later {
                    at: Some(start),
                    unread_other: None,
                });
            }
            if matches!(found_here, Found::Other { .. }) && own.others {
                others.push(start);
            }
            // A member read whole that begins as a record does (another file's, or the file's own with its
            // content damaged) holds no record of the file: searched on from its end, in this chunk when
            // it ends inside it. Another file's record read whole already says where its member ends.
            let whole = match found_here {
                Found::Other { end } if compression == Compression::Gzip => Some(end),
                _ => member_end(path, start)?
                    .filter(Member::begins_as_a_record)
                    .map(|m| m.end),
            };
            if let Some(end) = whole {
                if end < at + n as u64 {
                    searched = (end - at) as usize;
                    continue;
                }
                skip_to = Some(end);
                break;
            }
            searched += found + 1;
        }
        if let Some(end) = skip_to {
            at = end;
            continue;
        }
        if n < chunk.len() {
            let at = first_reading_to_the_end(path, &others, own)?;
            return Ok(Later {
                at,
                unread_other: others.first().copied().filter(|_| at.is_none()),
            });
        }
        // The next chunk overlaps this one by the magic's length less one, so a start across them is found.
        at += (n - (magic.len() - 1)) as u64;
    }
}

/// Of the records of another warcinfo found after damage (`others`, in file order), the first from which the
/// file reads whole to its end: where the next of several files joined into one begins (xt30a F2). A WARC
/// captured in a damaged record does not read so: the record's own bytes follow it (its trailing CRLF CRLF, a
/// gzip member's trailer), or the record is cut in it (xt30b F1, xt31a F1, F2).
fn first_reading_to_the_end(
    path: &Path,
    others: &[u64],
    own: Own<'_>,
) -> Result<Option<u64>, Error> {
    let mut failed_at = 0;
    for &start in others {
        // A start inside the run of records a try read before it fails where that try failed.
        if start < failed_at {
            continue;
        }
        match reads_to_the_end(path, start, own)? {
            None => return Ok(Some(start)),
            Some(at) => failed_at = at,
        }
    }
    Ok(None)
}

/// Whether `path` reads, record by record, from `start` to its end: `None` when it does, else where reading
/// failed. Strictly: blank lines the reader passes over (between plain records, or at the end) are no file's
/// joined records, but may be a captured WARC's end and the trailer of the record holding it; so is a last
/// record whose ending (or whose member's checksum) the file cuts (review 81 M2: a captured WARC's, in a file
/// cut a few bytes short).
fn reads_to_the_end(path: &Path, start: u64, own: Own<'_>) -> Result<Option<u64>, Error> {
    let Some(mut records) = crate::reader::reader_at(path, start, own.arc, own.limit)? else {
        return Ok(Some(start + 1));
    };
    for record in records.by_ref() {
        match record {
            Err(e) => return Ok(Some(e.offset().unwrap_or(start) + 1)),
            Ok(r) if r.unsealed || matches!(r.member_end, crate::MemberEnd::Short(_)) => {
                return Ok(Some(r.offset + 1));
            }
            Ok(_) => {}
        }
    }
    Ok(records.blank_lines().map(|(at, _)| at + 1))
}

/// A gzip member whose deflate stream is whole: where it ends, and how its content begins.
pub(crate) struct Member {
    /// Where the member ends in its file.
    pub(crate) end: u64,
    /// Its content's first bytes (up to 8).
    head: Vec<u8>,
}

impl Member {
    /// Whether the content begins as a WARC record (`WARC/`) or an ARC header line (a URL): a member found by
    /// its magic inside other compressed bytes, which happened to inflate to an end, does not.
    fn begins_as_a_record(&self) -> bool {
        self.head.starts_with(b"WARC/")
            || (self.head.len() == 8 && self.head.iter().all(|b| b.is_ascii_graphic()))
    }
}

/// Keeps the first 8 bytes written to it, and counts the rest.
#[derive(Default)]
struct Head {
    bytes: Vec<u8>,
    len: u64,
}

impl std::io::Write for Head {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let room = 8usize.saturating_sub(self.bytes.len());
        self.bytes.extend_from_slice(&buf[..room.min(buf.len())]);
        self.len += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The gzip member at `offset` of `path`, when its deflate stream is whole, whatever it holds (its CRC may
/// disagree with it): `None` when the stream breaks, or when `path` is not gzip (a zstd frame, a plain file).
/// A stream damaged part way can still come to an end somewhere (past the member's, in the next one): that
/// one's trailer is taken only when its length is what was inflated. The member is inflated into nothing,
/// never held.
pub(crate) fn member_end(path: &Path, offset: u64) -> Result<Option<Member>, Error> {
    if Compression::of_file(path) != Compression::Gzip {
        return Ok(None);
    }
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = std::fs::File::open(path).map_err(io)?;
    file.seek(SeekFrom::Start(offset)).map_err(io)?;
    let mut input = crate::reader::Counting::new(std::io::BufReader::new(file));
    let mut head = Head::default();
    let read = std::io::copy(&mut flate2::bufread::GzDecoder::new(&mut input), &mut head);
    // flate2 checks the trailer once the deflate stream has ended: a CRC or length that disagrees is said,
    // in these words, with the trailer read; its length (ISIZE, the last 4 bytes) tells the two apart.
    let end = offset + input.pos;
    let whole = match read {
        Ok(_) => true,
        Err(e) if e.to_string().contains("does not have a matching checksum") => {
            let mut isize = [0u8; 4];
            let mut file = input.into_inner().into_inner();
            file.seek(SeekFrom::Start(end - 4)).map_err(io)?;
            file.read_exact(&mut isize).map_err(io)?;
            u64::from(u32::from_le_bytes(isize)) == head.len & 0xffff_ffff
        }
        Err(_) => false,
    };
    Ok(whole.then_some(Member {
        end,
        head: head.bytes,
    }))
}

/// Reads into `buf` until it is full or the file ends; how many bytes it holds.
fn read_full(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// What begins at `offset` of `path`: a whole record of the file's `own`, another's, or none.
fn what_begins(path: &Path, offset: u64, own: Own<'_>) -> Result<Found, Error> {
    let r = match crate::reader::record_at(path, offset, own.arc, own.limit)? {
        Some(Ok(r)) => r,
        // A record begins there, over what is read to judge it: the reader says so, and reads on past it
        // (review 76 R2: a 4 GB record was read into memory to be judged).
        Some(Err(Error::TooLarge { .. })) if own.others => return Ok(Found::Own),
        _ => return Ok(Found::Nothing),
    };
    Ok(match own.arc {
        Some(_) if r.is_arc() => Found::Own,
        Some(_) => Found::Nothing,
        None if !r.version.starts_with("WARC/") => Found::Nothing,
        None => match own.warcinfo {
            Some(_) if own.unnamed && r.warcinfo_named().is_none() => Found::Own,
            Some(id) if r.warcinfo_named() != Some(id) => Found::Other {
                end: r.offset + r.len,
            },
            _ => Found::Own,
        },
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::{Compression, Record, Writer, WriterConfig, reader};

    /// A closed WARC of a warcinfo and `n` responses (`http://a.org/I`), each its own member, frame or record;
    /// with a zstd dictionary when asked. The file and each record's offset.
    fn archive(
        dir: &std::path::Path,
        compression: Compression,
        dictionary: bool,
        n: usize,
    ) -> (PathBuf, Vec<u64>) {
        let mut cfg = WriterConfig::new(dir.to_path_buf(), "t", "h");
        cfg.compression = compression;
        cfg.zstd_dictionary = dictionary;
        let mut w = Writer::new(cfg).unwrap();
        let date = chrono::Utc::now();
        for i in 0..n {
            let body = format!("<p>page {i} of a site that repeats itself</p>\n").repeat(20);
            let http = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
            w.write(&[Record::response(
                &format!("http://a.org/{i}"),
                date,
                None,
                http.into_bytes(),
            )])
            .unwrap();
        }
        let path = w.close().unwrap().remove(0);
        let offsets = reader::open(&path)
            .unwrap()
            .map(|r| r.unwrap().offset)
            .collect();
        (path, offsets)
    }

    /// The WARC-Record-ID of the first record of `path`, its warcinfo.
    fn warcinfo_of(path: &std::path::Path) -> String {
        let first = reader::open(path).unwrap().next().unwrap().unwrap();
        first.get("WARC-Record-ID").unwrap().to_owned()
    }

    /// Every record's target (`-` for none) read from `path`, reading past damage, and each damage's offset
    /// with where reading went on.
    fn read_past(path: &std::path::Path) -> (Vec<String>, Vec<(u64, u64)>) {
        let mut records = reader::open(path).unwrap();
        let (mut read, mut passed) = (Vec::new(), Vec::new());
        while let Some(r) = records.next() {
            match r {
                Ok(r) => read.push(r.get("WARC-Target-URI").unwrap_or("-").to_owned()),
                Err(e) => match records.read_on_after(&e).unwrap() {
                    Some(at) => passed.push((e.offset().unwrap(), at)),
                    None => break,
                },
            }
        }
        (read, passed)
    }

    fn targets(n: usize, but: &[usize]) -> Vec<String> {
        std::iter::once("-".to_owned())
            .chain(
                (0..n)
                    .filter(|i| !but.contains(i))
                    .map(|i| format!("http://a.org/{i}")),
            )
            .collect()
    }

    /// xt27b F4: a flipped byte inside one record, or junk between two, costs that record alone, in every
    /// storage: the reader reads on at the next whole record. A dictionary's frames are read with it.
    #[test]
    fn every_record_after_damage_is_read() {
        for (compression, dictionary) in [
            (Compression::Gzip, false),
            (Compression::Zstd, false),
            (Compression::Zstd, true),
            (Compression::None, false),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let (path, offsets) = archive(dir.path(), compression, dictionary, 40);
            let whole = std::fs::read(&path).unwrap();
            let case = format!("{compression:?}, dictionary {dictionary}");
            assert_eq!(read_past(&path), (targets(40, &[]), vec![]), "{case}");

            // Response 5 (record 6): bytes inside it flipped (its version line, in a plain file).
            let mut flipped = whole.clone();
            let at = offsets[6] as usize
                + if compression == Compression::None {
                    0
                } else {
                    30
                };
            for b in &mut flipped[at..at + 4] {
                *b ^= 0x5a;
            }
            std::fs::write(&path, &flipped).unwrap();
            assert_eq!(
                read_past(&path),
                (targets(40, &[5]), vec![(offsets[6], offsets[7])]),
                "{case}"
            );

            // Junk before response 20: nothing is lost.
            let junk = b"JUNK JUNK JUNK\n".repeat(7);
            let at = offsets[21] as usize;
            std::fs::write(&path, [&whole[..at], &junk, &whole[at..]].concat()).unwrap();
            assert_eq!(
                read_past(&path),
                (
                    targets(40, &[]),
                    vec![(offsets[21], offsets[21] + junk.len() as u64)]
                ),
                "{case}"
            );

            // The last record damaged: nothing whole after it, the reading ends.
            let mut last = whole.clone();
            let at = offsets[40] as usize + 2;
            last[at] ^= 0xff;
            std::fs::write(&path, &last).unwrap();
            assert_eq!(read_past(&path), (targets(39, &[]), vec![]), "{case}");
        }
    }

    /// A plain WARC record whose Content-Length is off (longer or shorter) costs that record alone.
    #[test]
    fn a_wrong_length_costs_its_record() {
        let dir = tempfile::tempdir().unwrap();
        let (path, offsets) = archive(dir.path(), Compression::None, false, 5);
        let whole = std::fs::read(&path).unwrap();
        let start = offsets[3] as usize;
        let field =
            memchr::memmem::find(&whole[start..], b"Content-Length: ").unwrap() + start + 16;
        let end = field + memchr::memchr(b'\r', &whole[field..]).unwrap();
        let length: usize = std::str::from_utf8(&whole[field..end])
            .unwrap()
            .parse()
            .unwrap();
        for wrong in [length + 7, length - 30] {
            let damaged = [&whole[..field], wrong.to_string().as_bytes(), &whole[end..]].concat();
            std::fs::write(&path, &damaged).unwrap();
            let (read, passed) = read_past(&path);
            assert_eq!(read, targets(5, &[2]), "{wrong}");
            assert_eq!(passed, vec![(offsets[3], offsets[4])], "{wrong}");
        }
    }

    /// A WARC of another crawl captured inside a damaged record (a `.warc.gz` served by a site, stored as it is)
    /// is not taken for the rest of this file: its records name another warcinfo, and a member whose deflate
    /// stream is whole is passed over whole, so that neither a damaged CRC nor a damaged warcinfo before it
    /// (no warcinfo known) lets the inner file's records in (xt30a F1).
    #[test]
    fn a_warc_captured_in_a_damaged_record_is_not_taken_for_the_rest() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let inner_dir = dir.path().join("inner");
        std::fs::create_dir(&inner_dir).unwrap();
        let (inner, _) = archive(&inner_dir, Compression::Gzip, false, 3);
        let inner = std::fs::read(inner).unwrap();
        let (path, offsets) = archive(dir.path(), Compression::Gzip, false, 4);
        let whole = std::fs::read(&path).unwrap();
        // A response holding the inner file, in a member of stored deflate blocks (as incompressible content
        // is).
        let warcinfo = warcinfo_of(&path);
        let mut http = b"HTTP/1.1 200 OK\r\nContent-Type: application/warc\r\n\r\n".to_vec();
        http.extend_from_slice(&inner);
        let mut rec = Vec::new();
        Record::response("http://a.org/crawl.warc.gz", chrono::Utc::now(), None, http)
            .write_to(&mut rec, &[("WARC-Warcinfo-ID", warcinfo.as_str())]);
        let mut stored = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::none());
        stored.write_all(&rec).unwrap();
        let member = stored.finish().unwrap();
        let len = member.len() as u64;
        // Its CRC damaged; its first block's type damaged (the deflate stream breaks, its end unknown).
        let mut crc = member.clone();
        crc[member.len() - 8] ^= 0xff;
        let mut block = member.clone();
        block[10] ^= 0x06;
        for damaged in [&crc, &block] {
            let at = offsets[3] as usize;
            std::fs::write(&path, [&whole[..at], damaged, &whole[at..]].concat()).unwrap();
            let (read, passed) = read_past(&path);
            assert_eq!(read, targets(4, &[]));
            assert_eq!(passed, vec![(offsets[3], offsets[3] + len)]);
        }
        // The file's warcinfo damaged too, the damaged capture right after it: no warcinfo is known.
        let mut info = whole[..offsets[1] as usize].to_vec();
        let middle = info.len() / 2;
        info[middle] ^= 0x55;
        std::fs::write(
            &path,
            [&info[..], &crc, &whole[offsets[1] as usize..]].concat(),
        )
        .unwrap();
        let (read, passed) = read_past(&path);
        assert_eq!(read, targets(4, &[])[1..]);
        assert_eq!(passed, vec![(0, offsets[1] + len)]);
    }

    /// Two crawls' files joined (`cat a.warc.gz b.warc.gz`), damage at the join: the second file's records,
    /// which name its own warcinfo, are read when none of the first's follow (xt30a F2).
    #[test]
    fn the_next_of_two_joined_files_is_read_past_damage_at_the_join() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir(&a).unwrap();
        std::fs::create_dir(&b).unwrap();
        let (a, a_offsets) = archive(&a, Compression::Gzip, false, 5);
        let (b, b_offsets) = archive(&b, Compression::Gzip, false, 5);
        let (a, b) = (std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
        let path = dir.path().join("joined.warc.gz");
        let both = [targets(5, &[]), targets(5, &[])].concat();
        let join = a.len() as u64;
        // A's last record damaged.
        let mut last = a.clone();
        last[a_offsets[5] as usize + 30] ^= 0x55;
        std::fs::write(&path, [&last[..], &b].concat()).unwrap();
        let (read, passed) = read_past(&path);
        assert_eq!(read, [targets(5, &[4]), targets(5, &[])].concat());
        assert_eq!(passed, vec![(a_offsets[5], join)]);
        // Junk between them.
        let junk = b"JUNK\n".repeat(10);
        std::fs::write(&path, [&a[..], &junk, &b].concat()).unwrap();
        assert_eq!(
            read_past(&path),
            (both.clone(), vec![(join, join + junk.len() as u64)])
        );
        // B's warcinfo damaged: its first response names a warcinfo not read.
        let mut info = b.clone();
        info[b_offsets[1] as usize / 2] ^= 0x55;
        std::fs::write(&path, [&a[..], &info].concat()).unwrap();
        let (read, passed) = read_past(&path);
        assert_eq!(read, [&both[..6], &both[7..]].concat());
        assert_eq!(passed, vec![(join, join + b_offsets[1])]);
    }

    /// Review 76 R1: a WARC captured in the last record of a file cut short (stored as it is, so its records lie
    /// whole in the cut record) is not taken for the next of joined files: no record of the file's own follows,
    /// and the captured records lie where the cut record reaches. Gzip and plain alike.
    #[test]
    fn a_warc_captured_in_a_record_cut_short_is_not_read() {
        use std::io::Write;
        for compression in [Compression::Gzip, Compression::None] {
            let dir = tempfile::tempdir().unwrap();
            let inner_dir = dir.path().join("inner");
            std::fs::create_dir(&inner_dir).unwrap();
            let (inner, _) = archive(&inner_dir, compression, false, 3);
            let inner = std::fs::read(inner).unwrap();
            let (path, _) = archive(dir.path(), compression, false, 3);
            let whole = std::fs::read(&path).unwrap();
            let mut http = b"HTTP/1.1 200 OK\r\nContent-Type: application/warc\r\n\r\n".to_vec();
            http.extend_from_slice(&inner);
            let mut rec = Vec::new();
            Record::response("http://a.org/crawl.warc", chrono::Utc::now(), None, http)
                .write_to(&mut rec, &[]);
            let stored = if compression == Compression::Gzip {
                let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::none());
                gz.write_all(&rec).unwrap();
                gz.finish().unwrap()
            } else {
                rec
            };
            // Cut 20 bytes before the captured file's end.
            let cut = stored.len() - 30;
            std::fs::write(&path, [&whole[..], &stored[..cut]].concat()).unwrap();
            assert_eq!(
                read_past(&path),
                (targets(3, &[]), vec![]),
                "{compression:?}"
            );
            // The captured records are named, not read (a tool says where, and how to split them off).
            let mut records = reader::open(&path).unwrap();
            let damage = records.find_map(Result::err).unwrap();
            assert_eq!(records.read_on_after(&damage).unwrap(), None);
            let other = records.unread_other().unwrap();
            assert!(other > damage.offset().unwrap(), "{compression:?}");
            assert!(
                crate::unread_other_hint(&path, other).contains(&format!("tail -c +{}", other + 1))
            );
            // verify names them too.
            let failed = crate::verify(&path).unwrap_err().to_string();
            assert!(
                failed.contains(&format!(
                    "whole records of another warcinfo begin at offset {other}"
                )),
                "{failed}"
            );
            // Whole, but its first stored block's type damaged: the stream breaks at once (xt30b F1).
            if compression == Compression::Gzip {
                let mut broken = stored.clone();
                broken[10] ^= 0x06;
                std::fs::write(&path, [&whole[..], &broken].concat()).unwrap();
                assert_eq!(read_past(&path), (targets(3, &[]), vec![]), "broken");
            }
            // Cut 5-7 bytes short: the record's trailer gone and the captured file's last record's ending cut,
            // its block whole by its digest: still not a joined file (review 81 M2).
            if compression == Compression::None {
                for short in 5..=7 {
                    let cut = stored.len() - short;
                    std::fs::write(&path, [&whole[..], &stored[..cut]].concat()).unwrap();
                    assert_eq!(read_past(&path), (targets(3, &[]), vec![]), "{short}");
                }
            }
            // Whole, its Content-Length 7 short, the last record of a plain file: what follows the captured file
            // is the record's own trailer, blank lines the reader passes over, so the captured file does not read
            // whole to the end as a joined one would (xt30b's pl_id_last_m).
            if compression == Compression::None {
                let at = memchr::memmem::find(&stored, b"Content-Length: ").unwrap() + 16;
                let end = at + memchr::memchr(b'\r', &stored[at..]).unwrap();
                let says: usize = std::str::from_utf8(&stored[at..end])
                    .unwrap()
                    .parse()
                    .unwrap();
                let short = [
                    &stored[..at],
                    (says - 7).to_string().as_bytes(),
                    &stored[end..],
                ]
                .concat();
                std::fs::write(&path, [&whole[..], &short].concat()).unwrap();
                assert_eq!(read_past(&path), (targets(3, &[]), vec![]), "short");
            }
            // Another crawl's file joined after the cut one: its records are read, the captured ones are not
            // (xt31a F2).
            let next_dir = dir.path().join("next");
            std::fs::create_dir(&next_dir).unwrap();
            let (next, _) = archive(&next_dir, compression, false, 2);
            let next = std::fs::read(next).unwrap();
            std::fs::write(&path, [&whole[..], &stored[..cut], &next].concat()).unwrap();
            let (read, passed) = read_past(&path);
            assert_eq!(
                read,
                [targets(3, &[]), targets(2, &[])].concat(),
                "{compression:?}"
            );
            assert_eq!(passed.len(), 1, "{compression:?}");
        }
    }

    /// xt33a F4: in a file whose records name no warcinfo after its warcinfo record, damage right after the
    /// warcinfo costs only its record: those after it are the file's, not another warcinfo's.
    #[test]
    fn records_naming_no_warcinfo_after_damage_next_to_the_warcinfo_are_read() {
        use std::io::Write;
        let gz = |bytes: &[u8]| {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(bytes).unwrap();
            gz.finish().unwrap()
        };
        let date = chrono::Utc::now();
        let mut members = vec![Record::warcinfo("t.warc.gz", &[("software", "t")]).to_bytes()];
        members.extend((0..6).map(|i| {
            let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\npage {i}");
            Record::response(&format!("http://a.org/{i}"), date, None, http.into_bytes()).to_bytes()
        }));
        for gzip in [true, false] {
            let mut parts: Vec<Vec<u8>> = members
                .iter()
                .map(|m| if gzip { gz(m) } else { m.clone() })
                .collect();
            // Record 0 damaged (its member inside; a plain record's version line); junk after record 3.
            let at = if gzip { parts[1].len() / 2 } else { 0 };
            parts[1][at] ^= 0x55;
            parts[4].extend_from_slice(b"junk");
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(if gzip { "t.warc.gz" } else { "t.warc" });
            std::fs::write(&path, parts.concat()).unwrap();
            let (read, passed) = read_past(&path);
            assert_eq!(read, targets(6, &[0]), "gzip {gzip}: {passed:?}");
        }
    }

    /// xt30b F2: in a plain file whose records name no warcinfo, a WARC captured in a record whose
    /// Content-Length is off is not read (it lies well before where that record says it ends), and the record
    /// after it is.
    #[test]
    fn a_warc_captured_where_no_warcinfo_is_named_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let inner_dir = dir.path().join("inner");
        std::fs::create_dir(&inner_dir).unwrap();
        let (inner, _) = archive(&inner_dir, Compression::None, false, 3);
        let inner = std::fs::read(inner).unwrap();
        let date = chrono::Utc::now();
        let record = |url: &str, body: &[u8]| {
            let mut http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n".to_vec();
            http.extend_from_slice(body);
            let mut bytes = Vec::new();
            Record::response(url, date, None, http).write_to(&mut bytes, &[]);
            bytes
        };
        let capture = record("http://b.org/crawl.warc", &inner);
        // Its Content-Length 7 short.
        let field = memchr::memmem::find(&capture, b"Content-Length: ").unwrap() + 16;
        let end = field + memchr::memchr(b'\r', &capture[field..]).unwrap();
        let length: usize = std::str::from_utf8(&capture[field..end])
            .unwrap()
            .parse()
            .unwrap();
        let short = [
            &capture[..field],
            (length - 7).to_string().as_bytes(),
            &capture[end..],
        ]
        .concat();
        let file = [
            record("http://b.org/0", b"zero"),
            short,
            record("http://b.org/2", b"two"),
            record("http://b.org/3", b"three"),
        ]
        .concat();
        let path = dir.path().join("b.warc");
        std::fs::write(&path, &file).unwrap();
        let (read, passed) = read_past(&path);
        assert_eq!(read, ["http://b.org/0", "http://b.org/2", "http://b.org/3"]);
        assert_eq!(passed.len(), 1);
    }

    /// Review 76 R2: a record over the reader's limit after damage is where reading goes on, not read whole to
    /// be judged; the reader then reads past it too.
    #[test]
    fn a_record_over_the_limit_after_damage_is_read_past() {
        let dir = tempfile::tempdir().unwrap();
        let (path, offsets) = archive(dir.path(), Compression::Gzip, false, 4);
        let whole = std::fs::read(&path).unwrap();
        let warcinfo = warcinfo_of(&path);
        let mut big = Vec::new();
        Record::resource(
            "http://a.org/big.bin",
            chrono::Utc::now(),
            "application/octet-stream",
            vec![7u8; 300 << 10],
        )
        .write_to(&mut big, &[("WARC-Warcinfo-ID", warcinfo.as_str())]);
        let mut big_member = Vec::new();
        crate::Encoder::new(Compression::Gzip, 1).compress(&big, &mut big_member);
        let mut damaged = whole[..offsets[3] as usize].to_vec();
        let mut third = whole[offsets[3] as usize..offsets[4] as usize].to_vec();
        third[30] ^= 0x55;
        damaged.extend_from_slice(&third);
        let big_at = damaged.len() as u64;
        damaged.extend_from_slice(&big_member);
        let after = damaged.len() as u64;
        damaged.extend_from_slice(&whole[offsets[4] as usize..]);
        std::fs::write(&path, &damaged).unwrap();
        let mut records = reader::open(&path).unwrap().with_max_record_bytes(64 << 10);
        let (mut read, mut passed) = (0, Vec::new());
        while let Some(r) = records.next() {
            match r {
                Ok(_) => read += 1,
                Err(e) => match records.read_on_after(&e).unwrap() {
                    Some(at) => passed.push((e.offset().unwrap(), at)),
                    None => break,
                },
            }
        }
        assert_eq!(read, 4, "the warcinfo, responses 0, 1 and 3");
        assert_eq!(passed, vec![(offsets[3], big_at), (big_at, after)]);
    }

    /// Review 76 R5: an ARC whose `filedesc://` record is damaged is not read past (nor searched for WARC
    /// records).
    #[test]
    fn an_arc_with_its_filedesc_damaged_is_not_read_past() {
        let dir = tempfile::tempdir().unwrap();
        let line = |url: &str, content: &[u8]| {
            [
                format!(
                    "{url} 127.0.0.1 20080430204826 text/html {}\n",
                    content.len()
                )
                .as_bytes(),
                content,
                b"\n",
            ]
            .concat()
        };
        let desc = b"1 0 Test\nURL IP-address Archive-date Content-type Archive-length\n";
        let records = [
            line("filedesc://t.arc", desc),
            line(
                "http://a.test/1",
                b"HTTP/1.1 200 OK\r\n\r\nWARC/1.1\r\nContent-Length: 0\r\n\r\n\r\n\r\n",
            ),
            line("http://a.test/2", b"HTTP/1.1 200 OK\r\n\r\nhello"),
        ];
        for gzip in [true, false] {
            let mut file = Vec::new();
            for r in &records {
                if gzip {
                    crate::Encoder::new(Compression::Gzip, 1).compress(r, &mut file);
                } else {
                    file.extend_from_slice(r);
                }
            }
            if gzip {
                file[30] ^= 0x55;
            } else {
                file[..4].fill(0);
            }
            let path = dir.path().join(if gzip { "t.arc.gz" } else { "t.arc" });
            std::fs::write(&path, &file).unwrap();
            assert_eq!(read_past(&path), (vec![], vec![]), "gzip {gzip}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

        /// Any byte flipped or any run zeroed: reading past damage ends, reads records of the file in order,
        /// and in a compressed file costs no record but the one the damage is in.
        #[test]
        fn reading_past_any_damage_ends_and_keeps_the_rest(
            kind in 0..3usize,
            at in proptest::prelude::any::<proptest::sample::Index>(),
            flip in 1u8..=255,
            run in 1..64usize,
        ) {
            let compression = [Compression::Gzip, Compression::Zstd, Compression::None][kind];
            let dir = tempfile::tempdir().unwrap();
            let (path, offsets) = archive(dir.path(), compression, false, 8);
            let mut bytes = std::fs::read(&path).unwrap();
            let at = at.index(bytes.len());
            let end = (at + run).min(bytes.len());
            if run == 1 {
                bytes[at] ^= flip;
            } else {
                bytes[at..end].fill(0);
            }
            std::fs::write(&path, &bytes).unwrap();
            let (read, _) = read_past(&path);
            let all = targets(8, &[]);
            proptest::prop_assert!(read.len() <= all.len());
            // The records the damage touches: from the one it begins in to the one it ends in.
            let hit = |o: usize| offsets.iter().rposition(|&s| s as usize <= o).unwrap();
            // A plain record's header damaged may still read (a field's name zeroed); a member's or frame's
            // checksum fails it.
            if compression != Compression::None {
                let mut rest = all.iter();
                for r in &read {
                    proptest::prop_assert!(rest.any(|t| t == r), "{:?} not in order in {:?}", read, all);
                }
                let touched = hit(at)..=hit(end - 1);
                for (i, t) in all.iter().enumerate() {
                    proptest::prop_assert!(touched.contains(&i) || read.contains(t), "{} lost: {:?}", t, read);
                }
            }
        }
    }
}
