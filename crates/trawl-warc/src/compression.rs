//! How a WARC file's records are compressed, as its name's extension says.

use std::path::Path;

/// How records are compressed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Compression {
    /// One gzip member per record (`.warc.gz`), so each record can be read from its offset alone.
    #[default]
    Gzip,
    /// Uncompressed (`.warc`).
    None,
    /// One zstd frame per record (`.warc.zst`), as the IIPC warc-zstd proposal describes; with
    /// [`WriterConfig::zstd_dictionary`](crate::WriterConfig::zstd_dictionary), each file begins with the
    /// dictionary frame the records are compressed with.
    Zstd,
}

impl Compression {
    /// The file-name extension: `.warc.gz`, `.warc.zst` or `.warc`.
    pub fn extension(self) -> &'static str {
        match self {
            Compression::Gzip => ".warc.gz",
            Compression::None => ".warc",
            Compression::Zstd => ".warc.zst",
        }
    }

    /// What holds a record so compressed, as messages name it: a gzip member, a zstd frame, or (plain) the file.
    pub fn container(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip member",
            Compression::None => "file",
            Compression::Zstd => "zstd frame",
        }
    }

    /// How the records of the file at `path` are stored, by its name (`.gz`, `.zst`, open or closed: `.gz.open`),
    /// else by its first bytes (a file of any name, an ARC's among them).
    pub(crate) fn of_file(path: &Path) -> Compression {
        use std::io::Read;
        let name = path.to_string_lossy();
        let name = name.strip_suffix(".open").unwrap_or(&name);
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

    /// The compression a file name's extension says.
    pub fn of_path(path: &Path) -> Compression {
        let name = path.to_string_lossy();
        if name.ends_with(".warc.gz") {
            Compression::Gzip
        } else if name.ends_with(".warc.zst") {
            Compression::Zstd
        } else {
            Compression::None
        }
    }
}
