//! Word 97–2003 `.doc` ([MS-DOC]): the text of every story (main text, footnotes, headers, comments, text
//! boxes) through the piece table, then its http(s) URLs and its `HYPERLINK` field codes (Word keeps a
//! hyperlink's URL in the field code, `HYPERLINK "https://…"`, between the field's begin and separator marks).
//!
//! The compound file (OLE2/CFB: its sectors, FAT and directory) is read by the `cfb` crate. The Word layer is
//! written here because no maintained crate offers it on its own: the crates that read .doc text are whole
//! document models (formatting, images, conversion to other formats) at early versions with large dependency
//! trees, where all a link extractor needs is the File Information Block's pointer to the piece table and the
//! pieces themselves, about a hundred lines.
//!
//! The reading: the `WordDocument` stream starts with the FIB (`wIdent` 0xA5EC; flags `fEncrypted` and
//! `fWhichTblStm`, which names the table stream, `0Table` or `1Table`; then the variable-length `FibRgW97`,
//! `FibRgLw97` and `FibRgFcLcb` arrays, the last holding `fcClx`/`lcbClx` as its 34th pair). At `fcClx` in the
//! table stream is the `Clx`: property runs (`Prc`, tag 1) to skip, then the `Pcdt` (tag 2): n+1 character
//! positions and n 8-byte piece descriptors. A descriptor's `fc` (bits 0–29) locates the piece's text in the
//! `WordDocument` stream: with bit 30 set the piece is "compressed", one byte a character in Windows-1252 at
//! `fc / 2`; without it, UTF-16LE at `fc`.

use std::io::{Cursor, Read};

use url::Url;

use super::common::{Budget, OfficeProblem};
use crate::OutlinkSet;
use crate::text_urls::{field_links, text_urls};

/// The FIB's identifier of a Word 97 or later document.
const WORD_IDENT: u16 = 0xA5EC;
/// The lowest `nFib` of the Word 97 format; Word 6 and 95 files have no piece table in a table stream.
const NFIB_WORD97: u16 = 0x00C1;
const F_ENCRYPTED: u16 = 0x0100;
const F_WHICH_TBL_STM: u16 = 0x0200;
/// The index of the `fcClx`/`lcbClx` pair in `FibRgFcLcb97`.
const CLX_PAIR: usize = 33;

/// Reads the compound file `body` into `set`; the problem that stopped or thinned the reading, if any.
pub(crate) fn read(
    body: &[u8],
    doc_url: &Url,
    set: &mut OutlinkSet,
    budget: &mut Budget,
) -> Option<OfficeProblem> {
    match text(body, budget) {
        Ok((story, problem)) => {
            field_links(&story.fields, doc_url, set, "doc/field");
            text_urls(&story.text, doc_url, set, "doc/text");
            problem
        }
        Err(problem) => Some(problem),
    }
}

/// Field marks: a field is `BEGIN code SEPARATOR result END` (the separator and result may be missing).
const FIELD_BEGIN: char = '\u{13}';
const FIELD_SEPARATOR: char = '\u{14}';
const FIELD_END: char = '\u{15}';
/// How deeply nested fields are followed.
const MAX_FIELD_DEPTH: usize = 64;

/// A document's text, and apart from it the codes of its fields.
#[derive(Debug, Default)]
struct Story {
    /// All its characters, control characters (paragraph and cell marks, field marks) as spaces.
    text: String,
    /// The characters of field codes, a line each.
    fields: String,
    /// The open fields, innermost last: whether each is still in its code.
    open: Vec<bool>,
}

impl Story {
    fn push(&mut self, c: char) {
        match c {
            FIELD_BEGIN if self.open.len() < MAX_FIELD_DEPTH => self.open.push(true),
            FIELD_SEPARATOR => {
                if let Some(in_code) = self.open.last_mut() {
                    *in_code = false;
                }
            }
            FIELD_END => {
                self.open.pop();
            }
            _ => {}
        }
        if c.is_control() {
            self.text.push(' ');
            if matches!(c, FIELD_BEGIN | FIELD_SEPARATOR | FIELD_END) {
                self.fields.push('\n');
            }
        } else {
            self.text.push(c);
            if self.open.last() == Some(&true) {
                self.fields.push(c);
            }
        }
    }
}

/// The document's text, with the problem that cut it short, if any.
fn text(body: &[u8], budget: &mut Budget) -> Result<(Story, Option<OfficeProblem>), OfficeProblem> {
    let mut file = cfb::CompoundFile::open(Cursor::new(body))
        .map_err(|e| OfficeProblem::Unreadable(format!("not a compound file: {e}")))?;
    if file.is_stream("/EncryptedPackage") {
        // An OOXML document with a password: its package is encrypted inside a compound file.
        return Err(OfficeProblem::Encrypted);
    }
    let word = stream(&mut file, "/WordDocument", budget)?;
    let fib = Fib::parse(&word)?;
    if fib.encrypted {
        return Err(OfficeProblem::Encrypted);
    }
    let table_name = if fib.table_one { "/1Table" } else { "/0Table" };
    let table = stream(&mut file, table_name, budget)?;
    let clx = usize::try_from(fib.fc_clx)
        .ok()
        .zip(usize::try_from(fib.lcb_clx).ok())
        .and_then(|(at, len)| table.get(at..at.checked_add(len)?))
        .ok_or_else(|| {
            OfficeProblem::Unreadable(format!(
                "the Clx (at {}, {} bytes) lies outside the {} bytes of {table_name}",
                fib.fc_clx,
                fib.lcb_clx,
                table.len()
            ))
        })?;
    let pieces = pieces(clx)?;
    let mut story = Story::default();
    let mut problem = None;
    for piece in pieces {
        if let Err(p) = budget.check_time() {
            problem = Some(p);
            break;
        }
        let Some(bytes) = piece.bytes(&word) else {
            problem = Some(OfficeProblem::Unreadable(format!(
                "a piece at {} lies outside the WordDocument stream",
                piece.fc
            )));
            continue;
        };
        if let Err(p) = budget.spend(bytes.len() as u64) {
            problem = Some(p);
            break;
        }
        let decoded = if piece.compressed {
            encoding_rs::WINDOWS_1252
                .decode_without_bom_handling(bytes)
                .0
        } else {
            let units: Vec<u16> = bytes
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect();
            String::from_utf16_lossy(&units).into()
        };
        decoded.chars().for_each(|c| story.push(c));
    }
    Ok((story, problem))
}

/// Stream `path` of the compound file, up to the budget's allowance for one part.
fn stream(
    file: &mut cfb::CompoundFile<Cursor<&[u8]>>,
    path: &str,
    budget: &mut Budget,
) -> Result<Vec<u8>, OfficeProblem> {
    budget.check_time()?;
    let stream = file.open_stream(path).map_err(|e| {
        OfficeProblem::Unreadable(format!("no {path} stream: not a Word document ({e})"))
    })?;
    let allowance = budget.part_allowance();
    let mut out = Vec::new();
    stream
        .take(allowance + 1)
        .read_to_end(&mut out)
        .map_err(|e| OfficeProblem::Unreadable(format!("{path}: {e}")))?;
    if out.len() as u64 > allowance {
        return Err(OfficeProblem::Limit("MAX_PART_BYTES"));
    }
    budget.spend(out.len() as u64)?;
    Ok(out)
}

/// What the File Information Block says that the reading needs.
#[derive(Debug, PartialEq, Eq)]
struct Fib {
    encrypted: bool,
    /// The table stream is `1Table` (else `0Table`).
    table_one: bool,
    fc_clx: u32,
    lcb_clx: u32,
}

impl Fib {
    fn parse(word: &[u8]) -> Result<Fib, OfficeProblem> {
        let short = || OfficeProblem::Unreadable("the FIB is cut short".into());
        let ident = u16_at(word, 0).ok_or_else(short)?;
        if ident != WORD_IDENT {
            return Err(OfficeProblem::Unreadable(format!(
                "expected the FIB identifier 0xA5EC, found {ident:#06X}"
            )));
        }
        let nfib = u16_at(word, 2).ok_or_else(short)?;
        if nfib < NFIB_WORD97 {
            return Err(OfficeProblem::Unreadable(format!(
                "a Word 6/95 document (nFib {nfib:#06X}); only Word 97 and later are read"
            )));
        }
        let flags = u16_at(word, 0x0A).ok_or_else(short)?;
        // FibBase is 32 bytes; then csw and FibRgW97, cslw and FibRgLw97, cbRgFcLcb and FibRgFcLcb.
        let csw = usize::from(u16_at(word, 32).ok_or_else(short)?);
        let at = 34 + csw * 2;
        let cslw = usize::from(u16_at(word, at).ok_or_else(short)?);
        let at = at + 2 + cslw * 4;
        let pairs = usize::from(u16_at(word, at).ok_or_else(short)?);
        if pairs <= CLX_PAIR {
            return Err(OfficeProblem::Unreadable(format!(
                "the FIB has {pairs} pointer pairs, too few to name the piece table"
            )));
        }
        let clx = at + 2 + CLX_PAIR * 8;
        Ok(Fib {
            encrypted: flags & F_ENCRYPTED != 0,
            table_one: flags & F_WHICH_TBL_STM != 0,
            fc_clx: u32_at(word, clx).ok_or_else(short)?,
            lcb_clx: u32_at(word, clx + 4).ok_or_else(short)?,
        })
    }
}

/// One piece of text.
#[derive(Debug, PartialEq, Eq)]
struct Piece {
    /// Its offset in the `WordDocument` stream as stored (bits 0–29; halved when compressed).
    fc: u32,
    compressed: bool,
    /// Its length in characters.
    chars: u32,
}

impl Piece {
    /// Its bytes in the `WordDocument` stream, if they lie inside it.
    fn bytes<'w>(&self, word: &'w [u8]) -> Option<&'w [u8]> {
        let (start, len) = if self.compressed {
            (u64::from(self.fc / 2), u64::from(self.chars))
        } else {
            (u64::from(self.fc), u64::from(self.chars) * 2)
        };
        let start = usize::try_from(start).ok()?;
        let end = usize::try_from(len).ok()?.checked_add(start)?;
        word.get(start..end)
    }
}

/// The pieces of a `Clx`, in character-position order.
fn pieces(clx: &[u8]) -> Result<Vec<Piece>, OfficeProblem> {
    let bad = |why: &str| OfficeProblem::Unreadable(format!("piece table: {why}"));
    let mut at = 0usize;
    let plc = loop {
        match clx.get(at) {
            Some(1) => {
                // A Prc: a 2-byte size and that many bytes of property modifiers.
                let size = usize::from(u16_at(clx, at + 1).ok_or_else(|| bad("Prc cut short"))?);
                at += 3 + size;
            }
            Some(2) => {
                let len = u32_at(clx, at + 1).ok_or_else(|| bad("Pcdt cut short"))?;
                let start = at + 5;
                break usize::try_from(len)
                    .ok()
                    .and_then(|len| clx.get(start..start.checked_add(len)?))
                    .ok_or_else(|| bad("PlcPcd runs past the Clx"))?;
            }
            Some(tag) => return Err(bad(&format!("expected a Prc (1) or Pcdt (2), found {tag}"))),
            None => return Err(bad("no Pcdt")),
        }
    };
    if plc.len() < 16 || (plc.len() - 4) % 12 != 0 {
        return Err(bad(&format!("a PlcPcd of {} bytes", plc.len())));
    }
    let n = (plc.len() - 4) / 12;
    let cp = |i: usize| u32_at(plc, i * 4).unwrap_or(0);
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let (start, end) = (cp(i), cp(i + 1));
        let fc = u32_at(plc, (n + 1) * 4 + i * 8 + 2).unwrap_or(0);
        out.push(Piece {
            fc: fc & 0x3FFF_FFFF,
            compressed: fc & 0x4000_0000 != 0,
            chars: end.saturating_sub(start),
        });
    }
    Ok(out)
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    let b = bytes.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([b[0], b[1]]))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}
