//! Repairing a WARC left `.open` by a crash: put back the records held for a zstd dictionary, keep every
//! complete record, drop the torn tail, close the file.

use std::{
    fs::OpenOptions,
    path::{Path, PathBuf},
};

use crate::{Compression, Encoder, Error, naming::OPEN_SUFFIX, reader::open, writer::held_path};

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
    /// Records put back from those held to train its zstd dictionary (see [`crate::WriterConfig`]).
    pub restored: usize,
}

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
    let restored = if held.exists() {
        restore_held(path, &held)?
    } else {
        0
    };
    let size = std::fs::metadata(path).map_err(io)?.len();
    let mut good_end = 0;
    let mut records = 0;
    for rec in open(path)? {
        match rec {
            Ok(r) => {
                good_end = r.offset + r.len;
                records += 1;
            }
            Err(_) => break,
        }
    }
    if records == 0 {
        std::fs::remove_file(path).map_err(io)?;
        return Ok(Repaired {
            path: None,
            records: 0,
            cut: size,
            restored,
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
    crate::cdxj::index_beside(&closed)?;
    Ok(Repaired {
        path: Some(closed),
        records,
        cut: size - good_end,
        restored,
    })
}

/// Puts back into `path` (a `.warc.zst.open` file) the records a crash caught held back in memory to train
/// its zstd dictionary, from the spill `held` beside it: unless the file holds all of them already (the
/// crash came after they were written), the file is written anew from them, each record one zstd frame
/// without a dictionary. The spill is removed either way. Returns how many records were put back.
fn restore_held(path: &Path, held: &Path) -> Result<usize, Error> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    let spilled = std::fs::read(held).map_err(io(held))?;
    let mut records = Vec::new();
    for rec in open(held)? {
        match rec {
            Ok(r) => records.push(r.offset as usize..(r.offset + r.len) as usize),
            // A torn last record: it was being held when the crash came, and was never counted as archived.
            Err(_) => break,
        }
    }
    let in_file = open(path)?.take_while(Result::is_ok).count();
    let mut restored = 0;
    if in_file < records.len() {
        restored = records.len() - in_file;
        let mut encoder = Encoder::new(Compression::Zstd, 1);
        let mut bytes = Vec::new();
        for range in records {
            encoder.compress(&spilled[range], &mut bytes);
        }
        std::fs::write(path, &bytes).map_err(io(path))?;
    }
    std::fs::remove_file(held).map_err(io(held))?;
    Ok(restored)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Compression, Record, Writer, WriterConfig, verify};

    fn torn_file(compression: Compression) -> (tempfile::TempDir, PathBuf) {
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
        // tear the last record in half
        let len = std::fs::metadata(&open).unwrap().len();
        OpenOptions::new()
            .write(true)
            .open(&open)
            .unwrap()
            .set_len(len - 30)
            .unwrap();
        (dir, open)
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
