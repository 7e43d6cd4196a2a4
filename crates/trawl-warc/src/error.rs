//! The crate's one error type.

use std::io;
use std::path::PathBuf;

/// Everything that can go wrong writing or reading WARC files.
///
/// Each variant names the file (`path`; `<stream>` for a reader not opened from a file) and, where it
/// applies, the byte offset of the record (or of its gzip member) and the header involved.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A zstd frame that does not decode.
    #[error("{}: bad zstd frame at offset {offset}: {source}{}", path.display(), cut_hint(source))]
    Zstd {
        /// The file.
        path: PathBuf,
        /// Offset of the frame.
        offset: u64,
        /// The decoder's error.
        source: std::io::Error,
    },
    /// A `.warc.zst` file's dictionary frame that cannot be used: the records after it cannot be decoded.
    #[error("{}: the zstd dictionary frame at offset {offset} {problem}; {}", path.display(), problem.fix(*offset))]
    ZstdDictionary {
        /// The file.
        path: PathBuf,
        /// Offset of the frame.
        offset: u64,
        /// What is wrong with it.
        problem: crate::zstd_dictionary::DictionaryProblem,
    },
    /// A zstd frame compressed with a dictionary the file does not have (none, or another).
    #[error("{}: record at offset {offset}: bad zstd frame: {}", path.display(), dictionary_id_problem(*needs, *has))]
    ZstdDictionaryId {
        /// The file.
        path: PathBuf,
        /// Offset of the frame.
        offset: u64,
        /// The dictionary ID in the frame's header.
        needs: u32,
        /// The ID of the file's dictionary (0: one without an ID), `None` when the file has none.
        has: Option<u32>,
    },
    /// The file being written was removed (it, or its folder) while it was open: the records written into it
    /// went with it, and a write there now goes nowhere (xt39b F1).
    #[error("{}: removed (it or its folder) while it was being written", path.display())]
    Removed {
        /// The file, by its `.open` name.
        path: PathBuf,
    },
    /// The file being written was moved (it, or its folder) while it was open: its records are whole where it
    /// went, but it cannot be given its final name here.
    #[error(
        "{}: moved (it or its folder) while it was being written; its records are whole where it went",
        path.display()
    )]
    Moved {
        /// The file, by the `.open` name it had.
        path: PathBuf,
    },
    /// Creating, opening, renaming or syncing a file or directory failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// Writing a group of records failed; the file was truncated back to `offset` so it stays valid.
    #[error("{}: writing {len} bytes at offset {offset} failed (file truncated back to {offset}): {source}", path.display())]
    Write {
        /// The file being written (its `.open` name).
        path: PathBuf,
        /// Where the group would have started.
        offset: u64,
        /// How many bytes the group had.
        len: u64,
        /// The underlying error, e.g. no space left on device.
        source: io::Error,
    },
    /// The bytes are not a WARC record: `expected` says what the reader wanted, `found` what it got.
    #[error("{}: record at offset {offset}: expected {expected}, found {found}", path.display())]
    Malformed {
        /// The file being read.
        path: PathBuf,
        /// Offset of the record, or of the gzip member holding it.
        offset: u64,
        /// What the reader expected at this point.
        expected: String,
        /// What it found instead (a short escaped excerpt).
        found: String,
    },
    /// A named header field is missing or its value is unusable.
    #[error("{}: record at offset {offset}: header {name}: {problem}", path.display())]
    BadHeader {
        /// The file being read.
        path: PathBuf,
        /// Offset of the record, or of the gzip member holding it.
        offset: u64,
        /// The header field's name.
        name: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A record (or a decompressed gzip member) is larger than the reader's limit.
    #[error(
        "{}: record at offset {offset}: {len} bytes exceed the limit of {limit} that trawl's WARC tools read \
         (a record is held whole in memory): the file may be sound (cdxj-indexer and warcio read such records), \
         or the length is damaged or the file cut short (`ls -l` shows its size)",
        path.display()
    )]
    TooLarge {
        /// The file being read.
        path: PathBuf,
        /// Offset of the record, or of the gzip member holding it.
        offset: u64,
        /// The size found (at least this much).
        len: u64,
        /// The configured limit.
        limit: u64,
    },
    /// A gzip member is corrupt or truncated.
    #[error("{}: record at offset {offset}: bad gzip member: {source}{}", path.display(), cut_hint(source))]
    Gzip {
        /// The file being read.
        path: PathBuf,
        /// Offset of the gzip member.
        offset: u64,
        /// The decoder's error.
        source: io::Error,
    },
    /// Reading the underlying file failed.
    #[error("{}: record at offset {offset}: read failed: {source}", path.display())]
    Read {
        /// The file being read.
        path: PathBuf,
        /// Offset of the record being read.
        offset: u64,
        /// The underlying error.
        source: io::Error,
    },
    /// The file ends inside a record's header line (an ARC cut short): the records before it are whole, since
    /// that line begins where the record before it ends (xt21b F4: called a malformed line, and the record
    /// before it dropped from the index).
    #[error("{}: record at offset {offset}: {}", path.display(), cut_in_header(found))]
    CutInHeader {
        /// The file being read.
        path: PathBuf,
        /// Offset of the record whose header line is cut.
        offset: u64,
        /// What the file holds of the line (a short escaped excerpt).
        found: String,
    },
    /// A record that cannot be rewritten as asked (`convert`, `recompress`): a damaged ARC record, an ARC
    /// given to `recompress`.
    #[error("{}: record at offset {offset}: {problem}", path.display())]
    Unconvertible {
        /// The file being read.
        path: PathBuf,
        /// Offset of the record, or of the gzip member holding it.
        offset: u64,
        /// What is wrong, and what to do.
        problem: String,
    },
    /// A gzip member (or zstd frame) holding more than one record: the file is compressed as one stream, so
    /// its records cannot be reached by offset, and are not indexed. Named by the member and its second record.
    #[error("{}: {}", path.display(), shared_member(path, *offset, *compression, *arc, record_id.as_deref(), *at))]
    SharedMember {
        /// The file being read.
        path: PathBuf,
        /// Offset of the member (or frame) the records share.
        offset: u64,
        /// How the file is compressed.
        compression: crate::Compression,
        /// Whether the file is an ARC (mended by `trawl warc convert`, a WARC by `recompress`).
        arc: bool,
        /// The WARC-Record-ID of the member's second record, when it has one (an ARC record has none).
        record_id: Option<String>,
        /// Where the second record starts in the member's decompressed content.
        at: u64,
    },
    /// A `.open` WARC damaged, not torn by a crash: it cannot be read past `offset`, though whole records of
    /// its own follow (from `later` on), or it holds far more than a file just begun and no whole record at its
    /// start. A repair does not cut it with every record after the damage (xt27b F6, xt28b F1).
    #[error("{}", damaged_inside(path, *offset, *later, problem))]
    DamagedInside {
        /// The `.open` file.
        path: PathBuf,
        /// Where reading stopped.
        offset: u64,
        /// Where the first whole record after it begins, when one was found.
        later: Option<u64>,
        /// What stopped the reading.
        problem: String,
    },
    /// [`Writer::write`](crate::Writer::write) was given no records.
    #[error("cannot write an empty group of records")]
    EmptyGroup,
}

impl Error {
    /// The offset of the record (or gzip member) the error is about, if it is about one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Write { offset, .. }
            | Error::Malformed { offset, .. }
            | Error::BadHeader { offset, .. }
            | Error::TooLarge { offset, .. }
            | Error::Gzip { offset, .. }
            | Error::Zstd { offset, .. }
            | Error::ZstdDictionary { offset, .. }
            | Error::ZstdDictionaryId { offset, .. }
            | Error::Read { offset, .. }
            | Error::Unconvertible { offset, .. }
            | Error::CutInHeader { offset, .. }
            | Error::SharedMember { offset, .. }
            | Error::DamagedInside { offset, .. } => Some(*offset),
            Error::Io { .. } | Error::Removed { .. } | Error::Moved { .. } | Error::EmptyGroup => {
                None
            }
        }
    }

    /// The error's message without the leading file name and offset.
    pub(crate) fn problem(&self) -> String {
        match self {
            Error::Malformed {
                expected, found, ..
            } => format!("expected {expected}, found {found}"),
            Error::BadHeader { name, problem, .. } => format!("header {name}: {problem}"),
            Error::TooLarge { len, limit, .. } => {
                format!(
                    "{len} bytes exceed the limit of {limit} that trawl's WARC tools read (a record is held \
                     whole in memory): the file may be sound (cdxj-indexer and warcio read such records), or the \
                     length is damaged or the file cut short (`ls -l` shows its size)"
                )
            }
            Error::Gzip { source, .. } => format!("bad gzip member: {source}{}", cut_hint(source)),
            Error::Zstd { source, .. } => format!("bad zstd frame: {source}{}", cut_hint(source)),
            Error::ZstdDictionary {
                problem, offset, ..
            } => {
                format!(
                    "the zstd dictionary frame {problem}; {}",
                    problem.fix(*offset)
                )
            }
            Error::ZstdDictionaryId { needs, has, .. } => {
                format!("bad zstd frame: {}", dictionary_id_problem(*needs, *has))
            }
            Error::Read { source, .. } => format!("read failed: {source}"),
            Error::Unconvertible { problem, .. } => problem.clone(),
            Error::CutInHeader { found, .. } => cut_in_header(found),
            Error::SharedMember {
                path,
                offset,
                compression,
                arc,
                record_id,
                at,
            } => shared_member(path, *offset, *compression, *arc, record_id.as_deref(), *at),
            other => other.to_string(),
        }
    }
}

/// What [`Error::DamagedInside`] says: the damage, why it is not cut, and what to do.
fn damaged_inside(
    path: &std::path::Path,
    offset: u64,
    later: Option<u64>,
    problem: &str,
) -> String {
    let follow = match later {
        Some(later) => format!(
            "; yet whole records follow it (the first at offset {later}): this is damage inside the file"
        ),
        None => ": this is damage at its start".to_owned(),
    };
    // The tools read past damage to the records after it (xt28b F5: nothing salvaged them).
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let salvage = if later.is_some() {
        format!(
            " (`trawl warc recompress SOMEWHERE/{name} OUT.warc.gz` writes its records on both sides of the \
             damage)"
        )
    } else {
        String::new()
    };
    format!(
        "{}: record at offset {offset}: {problem}{follow}, not the torn end a crash leaves, so it is not cut \
         (every record after the damage would go); `trawl warc verify` names the damage. To go on, move it out \
         of the job's warcs/ folder (`mv {} SOMEWHERE/`) and keep it to salvage{salvage}, then resume",
        path.display(),
        path.display()
    )
}

/// The problem of the gzip member (`compression`; or zstd frame) at `offset` of the file at `path` (an ARC
/// when `arc`) that holds more than one record: its second, `record_id`, starts `at` bytes into its content.
/// Says how to mend the file.
pub(crate) fn shared_member(
    path: &std::path::Path,
    offset: u64,
    compression: crate::Compression,
    arc: bool,
    record_id: Option<&str>,
    at: u64,
) -> String {
    let what = compression.container();
    let ext = match compression == crate::Compression::Zstd && !arc {
        true => "warc.zst",
        false => "warc.gz",
    };
    // An ARC is mended by converting it (recompress writes WARC records only).
    let command = if arc { "convert" } else { "recompress" };
    let id = record_id
        .map(|id| format!("{}, ", id.trim_start_matches('<').trim_end_matches('>')))
        .unwrap_or_default();
    format!(
        "the {what} at offset {offset} holds more than one record (the second, {id}at byte {at} of its \
         content): records compressed together (the whole file as one stream, or members merged), not one \
         {what} per record, so those after the first cannot be reached by offset for replay (pywb, CDXJ \
         indexes); rewrite it with `trawl warc {command} {} OUT.{ext}`",
        path.display()
    )
}

/// What a decoder's error means when the compressed data stops short (xt21b F7: "incomplete deflate stream"
/// said nothing of a file cut short, nor of what can be kept).
fn cut_hint(source: &io::Error) -> &'static str {
    let text = source.to_string();
    if source.kind() == io::ErrorKind::UnexpectedEof || text.contains("incomplete") {
        " (the data stops short: the file is cut short here, or damaged; `trawl warc convert FILE OUT.warc.gz` \
         keeps the records before it)"
    } else {
        ""
    }
}

/// What [`Error::CutInHeader`] says after its file and offset.
fn cut_in_header(found: &str) -> String {
    format!(
        "the file ends inside the record's header line, after {found} (cut short): the records before it are \
         whole"
    )
}

/// The problem of a zstd frame that `needs` the dictionary of that ID, in a file whose dictionary has ID `has`
/// (`None`: the file has none).
fn dictionary_id_problem(needs: u32, has: Option<u32>) -> String {
    match has {
        None => format!(
            "it was compressed with the zstd dictionary of ID {needs}, and the file has no dictionary frame: a \
             file with a dictionary begins with it, so this one was likely cut from such a file (put back the \
             dictionary frame of the file it came from, or of another file of the same crawl: they all begin \
             with the same one)"
        ),
        Some(has) => format!(
            "it was compressed with the zstd dictionary of ID {needs}, and the file's dictionary frame holds the \
             one of ID {has}: the frame comes from a file with another dictionary (files with a dictionary cannot \
             be concatenated or mixed)"
        ),
    }
}

/// A short, printable excerpt of `bytes` for error messages.
pub(crate) fn excerpt(bytes: &[u8]) -> String {
    const MAX: usize = 24;
    if bytes.is_empty() {
        return "end of input".to_owned();
    }
    let shown = &bytes[..bytes.len().min(MAX)];
    let more = if bytes.len() > MAX { "..." } else { "" };
    format!("\"{}\"{more}", shown.escape_ascii())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts() {
        let cases: &[(&[u8], &str)] = &[
            (b"", "end of input"),
            (b"WARC/1.1\r\n", "\"WARC/1.1\\r\\n\""),
            (b"\x1f\x8b", "\"\\x1f\\x8b\""),
            (&[b'a'; 30], "\"aaaaaaaaaaaaaaaaaaaaaaaa\"..."),
        ];
        for (input, want) in cases {
            assert_eq!(excerpt(input), *want, "{input:?}");
        }
    }

    #[test]
    fn display_names_path_offset_and_header() {
        let e = Error::BadHeader {
            path: "a.warc.gz".into(),
            offset: 42,
            name: "Content-Length".into(),
            problem: "missing".into(),
        };
        assert_eq!(
            e.to_string(),
            "a.warc.gz: record at offset 42: header Content-Length: missing"
        );
        assert_eq!(e.offset(), Some(42));
        assert_eq!(e.problem(), "header Content-Length: missing");
    }
}
