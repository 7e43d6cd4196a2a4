//! Repairing a WARC left `.open` by a crash: put back the records held for a zstd dictionary, keep every
//! complete record, drop the torn tail, close the file.

use std::{
    fs::OpenOptions,
    path::{Path, PathBuf},
};

use crate::resync::{Own, later_record};
use crate::{
    Compression, Encoder, Error, MemberEnd, naming::OPEN_SUFFIX, reader::open, writer::held_path,
};

/// What [`repair`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repaired {
    /// The closed file (the `.open` suffix removed), or `None` when not even its warcinfo record was complete
    /// and the file was removed.
    pub path: Option<PathBuf>,
    /// Complete records kept.
    pub records: usize,
    /// Bytes cut from the end.
    pub cut: u64,
    /// The record cut, as "TYPE of URI", when its header could be read (a record whole but for its end): an
    /// operator can see whether it was one whose URI crawl.log already lists (xt38b N8).
    pub torn: Option<String>,
    /// Records put back from those held to train its zstd dictionary (see [`crate::WriterConfig`]).
    pub restored: usize,
    /// Bytes of the held records' spill after its last whole record (a record a crash tore as it was being
    /// spilled), left out (xt28b F6: unsaid).
    pub held_cut: u64,
}

/// The size up to which a repair reads a record back: any. The crawl wrote it (with `fetch.max_bytes` over the
/// WARC tools' 1 GiB), and a repair that took the tools' refusal of a larger record for a torn one cut it
/// and every record after it (xt25b F7).
const ANY_SIZE: u64 = u64::MAX;

/// What a file written from its held records holds beyond their compressed frames: the dictionary frame (at
/// most 110 KiB trained) and frame headers.
const HELD_FRAME_SLACK: u64 = 128 << 10;

/// The most a `.open` file holds with no whole record when a crash tears it: a write tears its end, so the
/// file's first record, its warcinfo, is torn only while the file holds no more than it and the zstd
/// dictionary before it (at most 110 KiB trained).
const JUST_BEGUN: u64 = 256 << 10;

/// Truncates `path` (a `*.warc.gz.open`, `*.warc.zst.open` or `*.warc.open` file) after its last complete
/// record, renames it without `.open`, so that it verifies, and writes its CDXJ index beside it. A file with no
/// complete record is removed. Records held back to train a zstd dictionary (`*.open.held` beside it) are put
/// back first.
pub fn repair(path: &Path) -> Result<Repaired, Error> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let held = held_path(path);
    let (restored, held_cut) = if held.exists() {
        restore_held(path, &held)?
    } else {
        (0, 0)
    };
    let size = std::fs::metadata(path).map_err(io)?.len();
    let mut good_end = 0;
    let mut records = 0;
    let mut stopped = None;
    let mut warcinfo = None;
    let mut torn = None;
    for rec in open(path)?.with_max_record_bytes(ANY_SIZE) {
        match rec {
            // A plain file's last record, torn in its CRLF CRLF, or a last member torn before its checksum (the
            // reader keeps either, at the file's end, for its digest): torn all the same, its URI not finished,
            // so fetched again (review 81 L3, xt38b N11).
            Ok(r)
                if r.unsealed
                    || (matches!(r.member_end, MemberEnd::Short(_))
                        && r.compression == Compression::None) =>
            {
                torn = Some(format!(
                    "{} of {}",
                    r.get("WARC-Type").unwrap_or("record"),
                    r.get("WARC-Target-URI").unwrap_or("no URI")
                ));
                break;
            }
            Ok(r) => {
                if records == 0 && r.get("WARC-Type") == Some("warcinfo") {
                    warcinfo = r.get("WARC-Record-ID").map(str::to_owned);
                }
                good_end = r.offset + r.len;
                records += 1;
            }
            Err(e) => {
                stopped = Some(e);
                break;
            }
        }
    }
    // A crash tears the end of a file; whole records after the point where reading stopped are damage inside
    // it, which a cut would take with every record after it (xt27b F6).
    if let Some(e) = stopped
        && let Some(later) = later_record(
            path,
            good_end + 1,
            Own {
                warcinfo: warcinfo.as_deref(),
                unnamed: false,
                arc: None,
                others: false,
                limit: ANY_SIZE,
                declared: 0,
            },
        )?
        .at
    {
        return Err(Error::DamagedInside {
            path: path.to_path_buf(),
            offset: e.offset().unwrap_or(good_end),
            later: Some(later),
            problem: e.problem(),
        });
    }
    // A file just begun holds its warcinfo (and a zstd dictionary); one far larger with no whole record at
    // its start was damaged there, not torn by a crash, and is not removed (xt28b F1: a flipped bit in a
    // dictionary frame removed 340 KB of records).
    // A file that begins with a zstd dictionary had its held records written with it, so a crash tearing it
    // left them beside it (put back above): with none whole and none held, it was damaged (review 75 R3).
    if records == 0 && (size > JUST_BEGUN || (size >= 4 && begins_with_a_dictionary(path))) {
        return Err(Error::DamagedInside {
            path: path.to_path_buf(),
            offset: 0,
            later: None,
            problem: format!(
                "no whole record at its start, yet it holds {size} bytes, more than a crash leaves of a file \
                 just begun"
            ),
        });
    }
    if records == 0 {
        std::fs::remove_file(path).map_err(io)?;
        return Ok(Repaired {
            path: None,
            records: 0,
            cut: size,
            torn,
            restored,
            held_cut,
        });
    }
    let file = OpenOptions::new().write(true).open(path).map_err(io)?;
    file.set_len(good_end).map_err(io)?;
    file.sync_all().map_err(io)?;
    let name = path.to_string_lossy();
    let closed = PathBuf::from(name.strip_suffix(OPEN_SUFFIX).unwrap_or(&name));
    if closed != path {
        std::fs::rename(path, &closed).map_err(io)?;
    }
    // A file cut short by a crash never had its index written: read it back from the file.
    crate::cdxj::index_own_beside(&closed)?;
    Ok(Repaired {
        path: Some(closed),
        records,
        cut: size - good_end,
        torn,
        restored,
        held_cut,
    })
}

/// Whether `path` begins with a warc-zstd dictionary frame (magic `5D 2A 4D 18`).
fn begins_with_a_dictionary(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok_and(|()| magic == [0x5D, 0x2A, 0x4D, 0x18])
}

/// Puts back into `path` (a `.warc.zst.open` file) the records a crash caught held back in memory to train
/// its zstd dictionary, from the spill `held` beside it: unless the file holds all of them already (the
/// crash came after they were written), the file is written anew from them, each record one zstd frame
/// without a dictionary. The spill is removed either way. Returns how many records were put back, and the bytes
/// of a torn record at the spill's end (left out).
fn restore_held(path: &Path, held: &Path) -> Result<(usize, u64), Error> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    let spilled = std::fs::read(held).map_err(io(held))?;
    let mut records: Vec<std::ops::Range<usize>> = Vec::new();
    for rec in open(held)?.with_max_record_bytes(ANY_SIZE) {
        match rec {
            // A last record torn in its CRLF CRLF, or in its member's checksum, is torn too (the reader keeps it
            // for its digest).
            Ok(r) if r.unsealed || matches!(r.member_end, MemberEnd::Short(_)) => break,
            Ok(r) => records.push(r.offset as usize..(r.offset + r.len) as usize),
            // A torn last record: it was being held when the crash came, and was never counted as archived.
            Err(_) => break,
        }
    }
    let (mut in_file, mut read_to) = (0, 0);
    for rec in open(path)?.with_max_record_bytes(ANY_SIZE) {
        let Ok(rec) = rec else { break };
        in_file += 1;
        read_to = rec.offset + rec.len;
    }
    let mut restored = 0;
    // A crash before the held records were all written leaves at most the dictionary and their frames; a file
    // holding more was damaged, and writing it anew from them would drop what it holds past them (review 75
    // R1: a spill left beside a file that went on).
    let size = std::fs::metadata(path).map_err(io(path))?.len();
    let most = spilled.len() as u64 + spilled.len() as u64 / 64 + HELD_FRAME_SLACK;
    if in_file < records.len() && size > most {
        return Err(Error::DamagedInside {
            path: path.to_path_buf(),
            offset: read_to,
            later: None,
            problem: format!(
                "only {in_file} of the {} records held for its zstd dictionary read whole, yet it holds {size} \
                 bytes, more than they and the dictionary make ({} beside it is kept)",
                records.len(),
                held.display()
            ),
        });
    }
    if in_file < records.len() {
        restored = records.len() - in_file;
        let mut encoder = Encoder::new(Compression::Zstd, 1);
        let mut bytes = Vec::new();
        for range in &records {
            encoder.compress(&spilled[range.clone()], &mut bytes);
        }
        std::fs::write(path, &bytes).map_err(io(path))?;
    }
    std::fs::remove_file(held).map_err(io(held))?;
    let whole = records.last().map_or(0, |r| r.end);
    Ok((restored, (spilled.len() - whole) as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Compression, Record, Writer, WriterConfig, verify};

    fn torn_file(compression: Compression) -> (tempfile::TempDir, PathBuf) {
        torn_by(compression, 30)
    }

    /// Three responses after the warcinfo, written, then the file's last `bytes` torn off, as a crash does.
    fn torn_by(compression: Compression, bytes: u64) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = WriterConfig::new(dir.path().to_path_buf(), "t", "h");
        cfg.compression = compression;
        let mut w = Writer::new(cfg).unwrap();
        let date = chrono::Utc::now();
        for i in 0..3 {
            let http = format!("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{i}{i}").into_bytes();
            w.write(&[Record::response(
                &format!("http://a.org/{i}"),
                date,
                None,
                http,
            )])
            .unwrap();
        }
        let open = w.current_path().unwrap().to_path_buf();
        std::mem::forget(w); // a crash: no close, no rename
        let len = std::fs::metadata(&open).unwrap().len();
        OpenOptions::new()
            .write(true)
            .open(&open)
            .unwrap()
            .set_len(len - bytes)
            .unwrap();
        (dir, open)
    }

    /// A plain file torn inside its last record's CRLF CRLF, which the reader keeps for its digest (xt34a F4):
    /// torn all the same, and cut, as one torn in its block (review 81 L3: its URI is fetched again).
    #[test]
    fn a_plain_file_torn_in_its_last_ending_loses_that_record() {
        for torn in 1..=5u64 {
            let (_dir, open) = torn_by(Compression::None, torn);
            let r = repair(&open).unwrap();
            // Its block whole, the record was read, so it is named (xt38b N8); cut inside its block, it is not.
            let named = (torn < 5).then_some("response of http://a.org/2");
            assert_eq!(r.torn.as_deref(), named, "{torn}");
            let path = r.path.unwrap();
            assert_eq!(r.records, 3, "{torn}");
            assert!(r.cut > 0, "{torn}");
            assert_eq!(verify(&path).unwrap().records, 3, "{torn}");
        }
    }

    /// A gzip file torn inside its last member's 8-byte trailer, which the reader keeps for its digest (xt38b
    /// N11): torn, and cut, as a plain file torn in its last ending.
    #[test]
    fn a_gzip_file_torn_in_its_last_trailer_loses_that_record() {
        for torn in 1..=8u64 {
            let (_dir, open) = torn_by(Compression::Gzip, torn);
            let r = repair(&open).unwrap();
            // The record was read, so it is named (xt38b N8).
            assert_eq!(
                r.torn.as_deref(),
                Some("response of http://a.org/2"),
                "{torn}"
            );
            let path = r.path.unwrap();
            assert_eq!(r.records, 3, "{torn}");
            assert!(r.cut > 0, "{torn}");
            assert_eq!(verify(&path).unwrap().records, 3, "{torn}");
        }
    }

    #[test]
    fn keeps_complete_records_and_closes() {
        for compression in [Compression::Gzip, Compression::None] {
            let (_dir, open) = torn_file(compression);
            assert!(verify(&open).is_err());
            let r = repair(&open).unwrap();
            let path = r.path.unwrap();
            assert!(!path.to_string_lossy().ends_with(".open"));
            assert_eq!(r.records, 3, "warcinfo and two responses survive");
            assert!(r.cut > 0);
            assert_eq!(verify(&path).unwrap().records, 3);
        }
    }

    /// xt25b F7: a whole record over the WARC tools' 1 GiB (the crawl's `fetch.max_bytes` allows one) was
    /// taken for a torn one, and cut with every record after it. Plain WARC, its block a sparse run of zeros.
    #[test]
    fn keeps_a_whole_record_over_a_gib() {
        use std::io::{Seek, Write};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.warc.open");
        let block_len: u64 = (1 << 30) + 4096;
        let head = |uri: &str, len: u64| {
            format!(
                "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:{}>\r\n\
                 WARC-Date: 2026-12-02T05:00:00Z\r\nWARC-Target-URI: {uri}\r\n\
                 Content-Type: video/mp4\r\nContent-Length: {len}\r\n\r\n",
                uuid::Uuid::new_v4()
            )
        };
        let mut file = std::fs::File::create(&path).unwrap();
        file.write_all(head("http://a.org/video.mp4", block_len).as_bytes())
            .unwrap();
        let end = file.stream_position().unwrap() + block_len;
        file.set_len(end).unwrap();
        file.seek(std::io::SeekFrom::Start(end)).unwrap();
        file.write_all(b"\r\n\r\n").unwrap();
        file.write_all(head("http://a.org/after.txt", 2).as_bytes())
            .unwrap();
        file.write_all(b"ok\r\n\r\n").unwrap();
        let whole = file.stream_position().unwrap();
        file.write_all(b"WARC/1.1\r\nWARC-Type: reso").unwrap(); // the torn one
        drop(file);
        let r = repair(&path).unwrap();
        assert_eq!((r.records, r.cut), (2, 25));
        let closed = r.path.unwrap();
        assert_eq!(std::fs::metadata(&closed).unwrap().len(), whole);
        let index = std::fs::read_to_string(crate::index_path(&closed)).unwrap();
        assert_eq!(index.lines().count(), 2, "{index}");
    }

    /// xt27b F6: damage inside an `.open` file (a flipped byte, a wrong length), whole records after it, is not
    /// a torn end: the file is left whole, and the error names the damage and the first record after it. A
    /// record of another file stored in a torn one (a captured WARC) is not taken for one of its own.
    #[test]
    fn damage_inside_is_not_cut() {
        for compression in [Compression::Gzip, Compression::None] {
            let (_dir, open) = torn_file(compression);
            let whole = std::fs::read(&open).unwrap();
            let offsets: Vec<u64> = crate::reader::open(&open)
                .unwrap()
                .filter_map(Result::ok)
                .map(|r| r.offset)
                .collect();
            // The first response: its version line broken (plain), its member's data (gzip).
            let mut damaged = whole.clone();
            let at = offsets[1] as usize
                + if compression == Compression::None {
                    0
                } else {
                    40
                };
            damaged[at] ^= 0x55;
            damaged[at + 1] ^= 0x55;
            std::fs::write(&open, &damaged).unwrap();
            let err = repair(&open).unwrap_err();
            let Error::DamagedInside { offset, later, .. } = &err else {
                panic!("{err}")
            };
            assert_eq!((*offset, *later), (offsets[1], Some(offsets[2])), "{err}");
            assert_eq!(std::fs::read(&open).unwrap(), damaged, "left as it was");
            // A torn end holding a whole record of another file (its own warcinfo) is cut as a torn end.
            let mut foreign = Vec::new();
            let date = chrono::Utc::now();
            let mut rec = Record::response("http://b.org/", date, None, b"x".to_vec());
            rec.set(
                "WARC-Warcinfo-ID",
                "<urn:uuid:00000000-0000-0000-0000-000000000000>",
            );
            crate::Encoder::new(compression, 1).compress(&rec.to_bytes(), &mut foreign);
            let mut torn = whole[..offsets[2] as usize].to_vec();
            torn.extend_from_slice(b"WARC/1.1\r\nContent-Length: 9999\r\n\r\n\r\n\r\n");
            torn.extend_from_slice(&foreign);
            std::fs::write(&open, &torn).unwrap();
            let r = repair(&open).unwrap();
            assert_eq!(r.records, 2, "{compression:?}");
        }
    }

    /// xt28b F1: a `.warc.zst` with a dictionary damaged inside is not cut either (its later frames are read
    /// with its dictionary), nor removed when the damage is in its dictionary or first record.
    #[test]
    fn a_zstd_file_with_a_dictionary_damaged_inside_is_not_cut() {
        let date = chrono::Utc::now();
        let plains: Vec<Vec<u8>> = (0..600u64)
            .map(|n| {
                // Hex of a generator's numbers: little a dictionary can take out.
                let noise: String = (0..40u64)
                    .map(|k| format!("{:016x}", (n * 40 + k).wrapping_mul(0x9E37_79B9_7F4A_7C15)))
                    .collect();
                let body = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>page {n} {noise}</p>"
                );
                Record::response(&format!("http://a/{n}"), date, None, body.into_bytes()).to_bytes()
            })
            .collect();
        let dict = crate::ZstdDictionary::train(&plains).unwrap();
        let mut file = dict.frame();
        let mut offsets = Vec::new();
        let mut c = zstd::bulk::Compressor::with_dictionary(3, dict.as_bytes()).unwrap();
        for p in &plains {
            offsets.push(file.len() as u64);
            file.extend(c.compress(p).unwrap());
        }
        let dir = tempfile::tempdir().unwrap();
        let open = dir.path().join("d.warc.zst.open");
        let mut damaged = file.clone();
        damaged[offsets[200] as usize + 12] ^= 0x5a;
        std::fs::write(&open, &damaged).unwrap();
        let err = repair(&open).unwrap_err();
        assert!(
            matches!(&err, Error::DamagedInside { offset, later: Some(later), .. }
                if *offset == offsets[200] && *later == offsets[201]),
            "{err}"
        );
        assert_eq!(std::fs::read(&open).unwrap(), damaged);
        // The dictionary itself damaged: nothing reads, and the file, far larger than one just begun, stays.
        let mut damaged = file.clone();
        damaged[100] ^= 0x5a;
        std::fs::write(&open, &damaged).unwrap();
        assert!(damaged.len() as u64 > JUST_BEGUN);
        let err = repair(&open).unwrap_err();
        assert!(
            matches!(err, Error::DamagedInside { later: None, .. }),
            "{err}"
        );
        assert!(open.exists());
        // With records held for the dictionary left beside it (their spill's removal failed), the file is not
        // written anew from them: it holds far more (review 75 R1).
        let held = held_path(&open);
        let spill: Vec<u8> = plains[..3].concat();
        std::fs::write(&held, &spill).unwrap();
        let err = repair(&open).unwrap_err();
        assert!(matches!(err, Error::DamagedInside { .. }), "{err}");
        assert_eq!(std::fs::read(&open).unwrap(), damaged);
        assert!(held.exists());
        std::fs::remove_file(&held).unwrap();
        // Small, it begins with a dictionary that does not read, and holds nothing held: not removed (R3).
        let small = &damaged[..dict.frame().len() + 300];
        assert!((small.len() as u64) < JUST_BEGUN);
        std::fs::write(&open, small).unwrap();
        assert!(repair(&open).is_err());
        assert!(open.exists());
    }

    #[test]
    fn removes_a_file_with_nothing_complete() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.warc.gz.open");
        std::fs::write(&p, b"\x1f\x8b\x08garbage").unwrap();
        let r = repair(&p).unwrap();
        assert_eq!((r.path, r.records), (None, 0));
        assert!(!p.exists());
    }
}
