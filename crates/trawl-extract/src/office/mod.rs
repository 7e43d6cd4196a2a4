//! Office documents: links out of Word 97–2003 `.doc` files, OOXML packages (`.docx`, `.xlsx`, `.pptx`) and
//! ODF packages (`.odt`, `.ods`, `.odp`), as `L` hops, the counterpart of Heritrix's `org.archive.util.ms`.
//!
//! [`office_format`] tells from a response's type (and, for a generic type, its bytes and the extension of its
//! URL or of the file name its `Content-Disposition` gives, see [`disposition_filename`]) which reader applies; [`office_links`] reads the document within named bounds: a size cap on the document
//! (`[extract] office_max_bytes`), [`MAX_PART_BYTES`] inflated per part (a zip bomb stops there),
//! [`MAX_TOTAL_BYTES`] per document, [`MAX_PARTS`] parts and [`MAX_TIME`] of reading. A document that cannot be
//! read gives no links and an [`OfficeProblem`]; so does a panic inside a parser, caught here so a hostile file
//! never takes a worker down. [`sample`] builds small documents of each kind.
//!
//! | format | where links are | context |
//! |---|---|---|
//! | `.doc` | http(s) URLs in the text of every story; `HYPERLINK` field codes | `doc/text`, `doc/field` |
//! | OOXML | external hyperlink relationships (`_rels/*.rels`); URLs in the XML parts' text; `HYPERLINK` fields | `ooxml/rel`, `ooxml/text`, `ooxml/field` |
//! | ODF | `xlink:href` of `content.xml` and `styles.xml`; URLs in their text | `odf/href`, `odf/text` |

use url::Url;

use self::common::Budget;
pub use self::common::{MAX_PART_BYTES, MAX_PARTS, MAX_TIME, MAX_TOTAL_BYTES, OfficeProblem};
pub use self::name::disposition_filename;
use crate::Limits;
use crate::document::{DocumentLinks, GuardProblem, read_guarded};

mod common;
mod doc;
mod name;
mod odf;
mod ooxml;
mod package;
pub mod sample;

/// The kinds of office document read for links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Word 97–2003 (`.doc`, `.dot`): a compound file with a `WordDocument` stream.
    Doc,
    /// Office Open XML (`.docx`, `.xlsx`, `.pptx`, their macro-enabled and template forms).
    Ooxml,
    /// OpenDocument (`.odt`, `.ods`, `.odp`, `.odg` and their templates).
    Odf,
}

/// What an office document gave (link contexts in the module's table).
pub type OfficeLinks = DocumentLinks<OfficeProblem>;

impl GuardProblem for OfficeProblem {
    fn too_large(bytes: u64, max: u64) -> Self {
        OfficeProblem::TooLarge { bytes, max }
    }

    fn parser_panic() -> Self {
        OfficeProblem::ParserPanic
    }
}

/// The magic number of a compound file (OLE2/CFB).
const CFB_MAGIC: &[u8] = &[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];
/// What ODF puts first in its zip: a stored part named `mimetype` (at offset 30), holding its media type.
const ODF_MIMETYPE: &[u8] = b"mimetypeapplication/vnd.oasis.opendocument.";

/// Which office format a response is, if any: by its media type `mime`; for a generic type (none,
/// `application/octet-stream`, a zip or compound-file type) by its bytes (ODF's stored `mimetype` part; an OOXML
/// package's `[Content_Types].xml` beside a `word/`, `xl/` or `ppt/` part) or, when they fit, by the extension of
/// its URL's `path` or of the file name `disposition` gives (a download script's `Content-Disposition`, asked for
/// only then, so an ordinary page costs nothing).
pub fn office_format(
    mime: &str,
    path: &str,
    body: &[u8],
    disposition: impl FnOnce() -> Option<String>,
) -> Option<Format> {
    let essence = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    match essence.as_str() {
        // Old server type tables serve a .docx or .odt as `application/msword` too: the bytes say which
        // (xt15a F4: a zip read as Word 97 was `doc:unreadable`).
        "application/msword" | "application/vnd.ms-word" | "application/x-msword"
            if !body.starts_with(b"PK\x03\x04") =>
        {
            return Some(Format::Doc);
        }
        e if e.starts_with("application/vnd.openxmlformats-officedocument.")
            || (e.starts_with("application/vnd.ms-") && e.ends_with(".macroenabled.12")) =>
        {
            return Some(Format::Ooxml);
        }
        e if e.starts_with("application/vnd.oasis.opendocument.") => return Some(Format::Odf),
        // A zip under Word's type, and the old Excel and PowerPoint types (which servers give .xlsx and
        // .pptx), are sniffed; so are the types download scripts send to force a download (xt15a F5).
        "application/msword"
        | "application/vnd.ms-word"
        | "application/x-msword"
        | "application/vnd.ms-excel"
        | "application/x-excel"
        | "application/x-msexcel"
        | "application/vnd.ms-powerpoint"
        | "application/x-mspowerpoint"
        | "application/force-download"
        | "application/download"
        | "application/x-download"
        | "application/x-msdownload"
        | "application/unknown"
        | "application/x-unknown"
        | "application/binary"
        | ""
        | "application/octet-stream"
        | "binary/octet-stream"
        | "application/zip"
        | "application/x-zip"
        | "application/x-zip-compressed"
        | "application/x-ole-storage"
        | "application/x-tika-msoffice"
        | "application/x-tika-ooxml"
        | "application/cdfv2" => {}
        _ => return None,
    }
    let cfb = body.starts_with(CFB_MAGIC);
    let zip = body.starts_with(b"PK\x03\x04");
    if !cfb && !zip {
        return None;
    }
    if zip
        && body
            .get(30..)
            .is_some_and(|rest| rest.starts_with(ODF_MIMETYPE))
    {
        return Some(Format::Odf);
    }
    let by_name = |name: &str| match (cfb, name::extension(name).as_str()) {
        (true, "doc" | "dot") => Some(Format::Doc),
        (true, _) => None,
        (
            false,
            "docx" | "docm" | "dotx" | "dotm" | "xlsx" | "xlsm" | "xltx" | "xltm" | "pptx" | "pptm"
            | "ppsx" | "ppsm" | "potx" | "potm",
        ) => Some(Format::Ooxml),
        (false, "odt" | "ott" | "ods" | "ots" | "odp" | "otp" | "odg" | "otg") => Some(Format::Odf),
        (false, _) => None,
    };
    by_name(path)
        .or_else(|| disposition().and_then(|name| by_name(&name)))
        .or_else(|| (zip && package::is_ooxml(body)).then_some(Format::Ooxml))
}

/// The links of the office document `body` of `format`, fetched from `doc_url`, at most `limits.max_outlinks`
/// of them; a document over `max_bytes` is not read.
pub fn office_links(
    body: &[u8],
    format: Format,
    doc_url: &Url,
    max_bytes: u64,
    limits: &Limits,
) -> OfficeLinks {
    read_guarded(body, max_bytes, limits, |set| {
        let mut budget = Budget::new();
        match format {
            // A password-protected OOXML document is a compound file, whatever its type says.
            Format::Ooxml | Format::Odf if body.starts_with(CFB_MAGIC) => {
                doc::read(body, doc_url, set, &mut budget)
            }
            Format::Doc => doc::read(body, doc_url, set, &mut budget),
            Format::Ooxml => ooxml::read(body, doc_url, set, &mut budget),
            Format::Odf => odf::read(body, doc_url, set, &mut budget),
        }
    })
}

#[cfg(test)]
mod tests;
