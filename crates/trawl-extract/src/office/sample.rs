//! Small office documents built by hand, for tests, fuzzing seeds and the self-test site: each holds some
//! text and some hyperlinks where its format keeps them, and nothing else it does not need.

use std::io::{Cursor, Write};

use zip::{CompressionMethod, ZipWriter, write::SimpleFileOptions};

/// A zip package of `(name, contents)` parts, deflated except a first part named `mimetype` (stored, as ODF
/// requires).
fn package(parts: &[(&str, String)]) -> std::io::Result<Vec<u8>> {
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    for (name, contents) in parts {
        let method = if *name == "mimetype" {
            CompressionMethod::Stored
        } else {
            CompressionMethod::Deflated
        };
        zip.start_file(
            *name,
            SimpleFileOptions::default().compression_method(method),
        )?;
        zip.write_all(contents.as_bytes())?;
    }
    Ok(zip.finish()?.into_inner())
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const RELS_NS: &str = "http://schemas.openxmlformats.org/package/2006/relationships";
const HYPERLINK: &str =
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink";
const OFFICE_DOC: &str =
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument";
const R_NS: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

/// A relationships part: `links` as external hyperlinks `rId1`, `rId2`, … and `extra` as they are.
fn rels(links: &[&str], extra: &str) -> String {
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Relationships xmlns=\"{RELS_NS}\">{extra}"
    );
    for (i, link) in links.iter().enumerate() {
        out.push_str(&format!(
            "<Relationship Id=\"rId{}\" Type=\"{HYPERLINK}\" Target=\"{}\" TargetMode=\"External\"/>",
            i + 1,
            escape(link)
        ));
    }
    out.push_str("</Relationships>");
    out
}

fn content_types(main: &str, content_type: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">\
         <Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>\
         <Default Extension=\"xml\" ContentType=\"application/xml\"/>\
         <Override PartName=\"/{main}\" ContentType=\"{content_type}\"/></Types>"
    )
}

fn root_rels(main: &str) -> String {
    rels(
        &[],
        &format!("<Relationship Id=\"rId1\" Type=\"{OFFICE_DOC}\" Target=\"{main}\"/>"),
    )
}

/// Splits `text` in two runs at its middle (a URL typed in Word is often cut across runs).
fn halves(text: &str) -> (String, String) {
    let mid = text
        .char_indices()
        .map(|(i, _)| i)
        .nth(text.chars().count() / 2)
        .unwrap_or(0);
    (escape(&text[..mid]), escape(&text[mid..]))
}

/// A `.docx`: one paragraph per line of `paragraphs` (each split over two runs), and one hyperlink per
/// `links` entry (a relationship and a `w:hyperlink` run pointing at it).
pub fn docx(paragraphs: &[&str], links: &[&str]) -> std::io::Result<Vec<u8>> {
    const W: &str = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
    let mut body = String::new();
    for p in paragraphs {
        let (a, b) = halves(p);
        body.push_str(&format!(
            "<w:p><w:r><w:t xml:space=\"preserve\">{a}</w:t></w:r><w:r><w:t>{b}</w:t></w:r></w:p>"
        ));
    }
    for i in 0..links.len() {
        body.push_str(&format!(
            "<w:p><w:hyperlink r:id=\"rId{}\"><w:r><w:t>link {i}</w:t></w:r></w:hyperlink></w:p>",
            i + 1
        ));
    }
    let document = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<w:document xmlns:w=\"{W}\" xmlns:r=\"{R_NS}\"><w:body>{body}</w:body></w:document>"
    );
    package(&[
        (
            "[Content_Types].xml",
            content_types(
                "word/document.xml",
                "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
            ),
        ),
        ("_rels/.rels", root_rels("word/document.xml")),
        ("word/document.xml", document),
        ("word/_rels/document.xml.rels", rels(links, "")),
    ])
}

/// A `.xlsx`: one sheet with `cells` in column A (as shared strings, each split over two rich-text runs), and
/// one hyperlink per `links` entry on the cells of column B.
pub fn xlsx(cells: &[&str], links: &[&str]) -> std::io::Result<Vec<u8>> {
    const S: &str = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
    let mut strings = String::new();
    let mut rows = String::new();
    for (i, cell) in cells.iter().enumerate() {
        let (a, b) = halves(cell);
        strings.push_str(&format!("<si><r><t>{a}</t></r><r><t>{b}</t></r></si>"));
        rows.push_str(&format!(
            "<row r=\"{n}\"><c r=\"A{n}\" t=\"s\"><v>{i}</v></c></row>",
            n = i + 1
        ));
    }
    let hyperlinks: String = (0..links.len())
        .map(|i| format!("<hyperlink ref=\"B{}\" r:id=\"rId{}\"/>", i + 1, i + 1))
        .collect();
    let hyperlinks = if links.is_empty() {
        String::new()
    } else {
        format!("<hyperlinks>{hyperlinks}</hyperlinks>")
    };
    let sheet = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<worksheet xmlns=\"{S}\" xmlns:r=\"{R_NS}\"><sheetData>{rows}</sheetData>{hyperlinks}</worksheet>"
    );
    let workbook = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<workbook xmlns=\"{S}\" xmlns:r=\"{R_NS}\"><sheets><sheet name=\"One\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>"
    );
    let shared = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sst xmlns=\"{S}\" count=\"{n}\" uniqueCount=\"{n}\">{strings}</sst>",
        n = cells.len()
    );
    let workbook_rels = rels(
        &[],
        "<Relationship Id=\"rId1\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet\" Target=\"worksheets/sheet1.xml\"/>\
         <Relationship Id=\"rId2\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings\" Target=\"sharedStrings.xml\"/>",
    );
    package(&[
        (
            "[Content_Types].xml",
            content_types(
                "xl/workbook.xml",
                "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml",
            ),
        ),
        ("_rels/.rels", root_rels("xl/workbook.xml")),
        ("xl/workbook.xml", workbook),
        ("xl/_rels/workbook.xml.rels", workbook_rels),
        ("xl/sharedStrings.xml", shared),
        ("xl/worksheets/sheet1.xml", sheet),
        ("xl/worksheets/_rels/sheet1.xml.rels", rels(links, "")),
    ])
}

/// A `.pptx`: one slide with one text box per `texts` entry (each split over two runs), and one hyperlink per
/// `links` entry (`a:hlinkClick` on a run).
pub fn pptx(texts: &[&str], links: &[&str]) -> std::io::Result<Vec<u8>> {
    const P: &str = "http://schemas.openxmlformats.org/presentationml/2006/main";
    const A: &str = "http://schemas.openxmlformats.org/drawingml/2006/main";
    let mut shapes = String::new();
    for t in texts {
        let (a, b) = halves(t);
        shapes.push_str(&format!(
            "<p:sp><p:txBody><a:p><a:r><a:t>{a}</a:t></a:r><a:r><a:t>{b}</a:t></a:r></a:p></p:txBody></p:sp>"
        ));
    }
    for i in 0..links.len() {
        shapes.push_str(&format!(
            "<p:sp><p:txBody><a:p><a:r><a:rPr><a:hlinkClick r:id=\"rId{}\"/></a:rPr><a:t>link {i}</a:t></a:r></a:p></p:txBody></p:sp>",
            i + 1
        ));
    }
    let slide = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<p:sld xmlns:p=\"{P}\" xmlns:a=\"{A}\" xmlns:r=\"{R_NS}\"><p:cSld><p:spTree>{shapes}</p:spTree></p:cSld></p:sld>"
    );
    let presentation = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<p:presentation xmlns:p=\"{P}\" xmlns:r=\"{R_NS}\"><p:sldIdLst><p:sldId id=\"256\" r:id=\"rId1\"/></p:sldIdLst></p:presentation>"
    );
    let presentation_rels = rels(
        &[],
        "<Relationship Id=\"rId1\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide\" Target=\"slides/slide1.xml\"/>",
    );
    package(&[
        (
            "[Content_Types].xml",
            content_types(
                "ppt/presentation.xml",
                "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml",
            ),
        ),
        ("_rels/.rels", root_rels("ppt/presentation.xml")),
        ("ppt/presentation.xml", presentation),
        ("ppt/_rels/presentation.xml.rels", presentation_rels),
        ("ppt/slides/slide1.xml", slide),
        ("ppt/slides/_rels/slide1.xml.rels", rels(links, "")),
    ])
}

/// The OpenDocument kinds [`odf`] can build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OdfKind {
    /// `.odt`: paragraphs with `text:a` links.
    Text,
    /// `.ods`: one cell per paragraph and per link.
    Spreadsheet,
    /// `.odp`: one text box per paragraph and per link, on one page.
    Presentation,
}

/// An ODF document of `kind`: `paragraphs` as text, and one `text:a xlink:href` per `links` entry.
pub fn odf(kind: OdfKind, paragraphs: &[&str], links: &[&str]) -> std::io::Result<Vec<u8>> {
    let mut blocks: Vec<String> = paragraphs
        .iter()
        .map(|p| format!("<text:p>{}</text:p>", escape(p)))
        .collect();
    blocks.extend(links.iter().enumerate().map(|(i, link)| {
        format!(
            "<text:p><text:a xlink:type=\"simple\" xlink:href=\"{}\">link {i}</text:a></text:p>",
            escape(link)
        )
    }));
    let (mime, body) = match kind {
        OdfKind::Text => (
            "text",
            format!("<office:text>{}</office:text>", blocks.concat()),
        ),
        OdfKind::Spreadsheet => {
            let rows: String = blocks
                .iter()
                .map(|b| format!("<table:table-row><table:table-cell>{b}</table:table-cell></table:table-row>"))
                .collect();
            (
                "spreadsheet",
                format!(
                    "<office:spreadsheet><table:table table:name=\"One\">{rows}</table:table></office:spreadsheet>"
                ),
            )
        }
        OdfKind::Presentation => {
            let frames: String = blocks
                .iter()
                .map(|b| format!("<draw:frame><draw:text-box>{b}</draw:text-box></draw:frame>"))
                .collect();
            (
                "presentation",
                format!(
                    "<office:presentation><draw:page draw:name=\"One\">{frames}</draw:page></office:presentation>"
                ),
            )
        }
    };
    let mime = format!("application/vnd.oasis.opendocument.{mime}");
    let content = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<office:document-content \
         xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" \
         xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\" \
         xmlns:table=\"urn:oasis:names:tc:opendocument:xmlns:table:1.0\" \
         xmlns:draw=\"urn:oasis:names:tc:opendocument:xmlns:drawing:1.0\" \
         xmlns:xlink=\"http://www.w3.org/1999/xlink\" office:version=\"1.3\">\
         <office:body>{body}</office:body></office:document-content>"
    );
    let manifest = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<manifest:manifest \
         xmlns:manifest=\"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0\" manifest:version=\"1.3\">\
         <manifest:file-entry manifest:full-path=\"/\" manifest:media-type=\"{mime}\"/>\
         <manifest:file-entry manifest:full-path=\"content.xml\" manifest:media-type=\"text/xml\"/>\
         </manifest:manifest>"
    );
    package(&[
        ("mimetype", mime),
        ("content.xml", content),
        ("META-INF/manifest.xml", manifest),
    ])
}

/// A Word 97 `.doc`: a compound file whose `WordDocument` stream holds a FIB and `pieces` of text, each
/// `(text, compressed)`: compressed pieces are Windows-1252, one byte a character; the others UTF-16LE. Its
/// `1Table` stream holds the piece table (after one property run, which readers skip). Word would add much
/// more (styles, fonts, formatting runs); a text reader needs none of it.
pub fn doc(pieces: &[(&str, bool)]) -> std::io::Result<Vec<u8>> {
    // FibBase (32) + csw (2) + FibRgW97 (14 × 2) + cslw (2) + FibRgLw97 (22 × 4) + cbRgFcLcb (2)
    // + FibRgFcLcb97 (93 × 8) + cswNew (2): 900 bytes; the text starts at 1024.
    const FC_LCB_PAIRS: usize = 93;
    let lcb_at = 32 + 2 + 28 + 2 + 88;
    let blob_at = lcb_at + 2;
    let mut word = vec![0u8; 1024];
    word[0..2].copy_from_slice(&0xA5ECu16.to_le_bytes());
    word[2..4].copy_from_slice(&0x00C1u16.to_le_bytes());
    word[0x0A..0x0C].copy_from_slice(&0x0200u16.to_le_bytes());
    word[32..34].copy_from_slice(&14u16.to_le_bytes());
    word[62..64].copy_from_slice(&22u16.to_le_bytes());
    word[lcb_at..lcb_at + 2].copy_from_slice(&(FC_LCB_PAIRS as u16).to_le_bytes());
    let mut cps = vec![0u32];
    let mut fcs = Vec::new();
    for (text, compressed) in pieces {
        let start = word.len() as u32;
        let chars = if *compressed {
            let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(text);
            word.extend_from_slice(&bytes);
            fcs.push((start * 2) | 0x4000_0000);
            bytes.len() as u32
        } else {
            let units: Vec<u16> = text.encode_utf16().collect();
            for u in &units {
                word.extend_from_slice(&u.to_le_bytes());
            }
            fcs.push(start);
            units.len() as u32
        };
        cps.push(cps.last().copied().unwrap_or(0) + chars);
    }
    let total = cps.last().copied().unwrap_or(0);
    // ccpText, the fourth FibRgLw97 field.
    word[64 + 12..64 + 16].copy_from_slice(&total.to_le_bytes());
    let mut plc = Vec::new();
    for cp in &cps {
        plc.extend_from_slice(&cp.to_le_bytes());
    }
    for fc in &fcs {
        plc.extend_from_slice(&[0, 0]);
        plc.extend_from_slice(&fc.to_le_bytes());
        plc.extend_from_slice(&[0, 0]);
    }
    let mut table = vec![0u8; 16];
    let fc_clx = table.len() as u32;
    table.extend_from_slice(&[1, 2, 0, 0xAA, 0xBB]);
    table.push(2);
    table.extend_from_slice(&(plc.len() as u32).to_le_bytes());
    table.extend_from_slice(&plc);
    let lcb_clx = table.len() as u32 - fc_clx;
    let clx_at = blob_at + 33 * 8;
    word[clx_at..clx_at + 4].copy_from_slice(&fc_clx.to_le_bytes());
    word[clx_at + 4..clx_at + 8].copy_from_slice(&lcb_clx.to_le_bytes());
    let mut file = cfb::CompoundFile::create(Cursor::new(Vec::new()))?;
    file.create_stream("/WordDocument")?.write_all(&word)?;
    file.create_stream("/1Table")?.write_all(&table)?;
    file.flush()?;
    Ok(file.into_inner().into_inner())
}
