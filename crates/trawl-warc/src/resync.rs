//! Finding the first whole record after damage: where the tools read on (`trawl warc ls`, `index`, `convert`,
//! `recompress`: one bad member must not cost every later record, xt27b F4), and what tells damage inside a
//! `.open` file from a crash's torn end ([`crate::repair`]).

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::{Compression, Error, naming::OPEN_SUFFIX};

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
/// in an ARC file (`arc`, its version), an ARC record.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Own<'a> {
    /// The WARC-Warcinfo-ID the file's records name.
    pub(crate) warcinfo: Option<&'a str>,
    /// The file's ARC version, when it is an ARC file.
    pub(crate) arc: Option<&'a str>,
}

/// Where the first whole record of `path` at or after byte `from` begins, if any: each place a record can begin
/// (a gzip member's or zstd frame's magic, or `WARC/1.` in a plain file) is tried, in
/// order, until one reads as a record of the file's `own`. A `.warc.zst` file's frames are read with the
/// dictionary it begins with.
pub(crate) fn later_record(path: &Path, from: u64, own: Own<'_>) -> Result<Option<u64>, Error> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    // A start's bytes.
    let magic: &[u8] = match stored_as(path) {
        Compression::Gzip => &[0x1f, 0x8b, 0x08],
        Compression::Zstd => &[0x28, 0xb5, 0x2f, 0xfd],
        // A plain ARC's records begin with a URL, which nothing tells from a line of content.
        Compression::None if own.arc.is_some() => return Ok(None),
        // Anywhere, not only after the empty line ending a record: junk may come before it.
        Compression::None => b"WARC/1.",
    };
    let finder = memchr::memmem::Finder::new(magic);
    let mut file = std::fs::File::open(path).map_err(io)?;
    let mut at = from;
    let mut chunk = vec![0u8; 1 << 20];
    loop {
        file.seek(SeekFrom::Start(at)).map_err(io)?;
        let n = read_full(&mut file, &mut chunk).map_err(io)?;
        let mut searched = 0;
        while let Some(found) = finder.find(&chunk[searched..n]) {
            let start = at + (searched + found) as u64;
            if start >= from && reads_a_record(path, start, own)? {
                return Ok(Some(start));
            }
            searched += found + 1;
        }
        if n < chunk.len() {
            return Ok(None);
        }
        // The next chunk overlaps this one by the magic's length less one, so a start across them is found.
        at += (n - (magic.len() - 1)) as u64;
    }
}

/// How the records of `path` are stored, by its name (`.gz`, `.zst`, with or without `.open`), else by its
/// first bytes.
pub(crate) fn stored_as(path: &Path) -> Compression {
    let name = path.to_string_lossy();
    let name = name.strip_suffix(OPEN_SUFFIX).unwrap_or(&name);
    if name.ends_with(".gz") {
        return Compression::Gzip;
    }
    if name.ends_with(".zst") {
        return Compression::Zstd;
    }
    let mut magic = [0u8; 4];
    let read = std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut magic));
    match magic {
        _ if read.is_err() => Compression::None,
        [0x1f, 0x8b, ..] => Compression::Gzip,
        [0x28, 0xb5, 0x2f, 0xfd] => Compression::Zstd,
        [m, 0x2a, 0x4d, 0x18] if m & 0xf0 == 0x50 => Compression::Zstd,
        _ => Compression::None,
    }
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

/// Whether a whole record of `path`, the file's `own`, begins at `offset`.
fn reads_a_record(path: &Path, offset: u64, own: Own<'_>) -> Result<bool, Error> {
    Ok(
        crate::reader::record_at(path, offset, own.arc)?.is_some_and(|r| match own.arc {
            Some(_) => r.is_arc(),
            None => {
                r.version.starts_with("WARC/")
                    && own
                        .warcinfo
                        .is_none_or(|id| r.get("WARC-Warcinfo-ID") == Some(id))
            }
        }),
    )
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

    /// A WARC of another crawl captured inside the damaged record (a `.warc.gz` served by a site, stored as it
    /// is) is not taken for the rest of this file: its records name another warcinfo.
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
        // is), whose CRC is then damaged.
        let warcinfo = reader::open(&path)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .get("WARC-Record-ID")
            .unwrap()
            .to_owned();
        let mut http = b"HTTP/1.1 200 OK\r\nContent-Type: application/warc\r\n\r\n".to_vec();
        http.extend_from_slice(&inner);
        let mut rec = Vec::new();
        Record::response("http://a.org/crawl.warc.gz", chrono::Utc::now(), None, http)
            .write_to(&mut rec, &[("WARC-Warcinfo-ID", warcinfo.as_str())]);
        let mut stored = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::none());
        stored.write_all(&rec).unwrap();
        let mut member = stored.finish().unwrap();
        let crc = member.len() - 8;
        member[crc] ^= 0xff;
        let at = offsets[3] as usize;
        std::fs::write(&path, [&whole[..at], &member, &whole[at..]].concat()).unwrap();
        let (read, passed) = read_past(&path);
        assert_eq!(read, targets(4, &[]));
        assert_eq!(passed, vec![(offsets[3], offsets[3] + member.len() as u64)]);
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
