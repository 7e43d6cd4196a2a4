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
