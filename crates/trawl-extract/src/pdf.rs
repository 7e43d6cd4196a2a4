//! PDFs: the URIs of link annotations (`/URI` actions, anywhere in the document's objects) and the http(s)
//! URLs written in the pages' text, as `L` links. Parsed with lopdf (pure Rust) inside named bounds: a size
//! cap on the document (`[extract] pdf_max_bytes`), [`MAX_STREAM_BYTES`] on what any one stream may inflate
//! to (object streams, page contents: a PDF bomb stops there), [`MAX_INFLATED_BYTES`] on what all of them
//! may inflate to together, [`MAX_OBJECTS`] on the objects (numbers, names, strings, ...) the document's
//! structure may hold, [`MAX_PAGES`] pages of text and [`MAX_TEXT_TIME`] spent reading it. lopdf keeps every
//! object in memory, over a hundred bytes each, so the objects are counted before it builds them (the raw
//! file before it is handed over, each object stream before lopdf reads it) and a document or object stream
//! over the budget is not read; an encrypted document's object streams are decrypted and counted before
//! lopdf reads it, as lopdf applies no filter to them. A page's text is read one token at a time, never as a
//! list of operations.
//! A document lopdf cannot read gives no links and a [`PdfProblem`]; so does a panic inside the parser,
//! caught here so a hostile file never takes a worker down.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use lopdf::{Document, Encoding, LoadOptions, Object, ObjectId, Stream};
use url::Url;

use super::{Limits, OutlinkSet};
use crate::document::{DocumentLinks, GuardProblem, read_guarded};
use crate::hop::Hop;
use crate::text_urls::text_urls;

mod lex;

/// The most bytes one stream of a PDF may decompress to (object and cross-reference streams, a page's
/// content): past it the stream is skipped.
pub const MAX_STREAM_BYTES: usize = 16 * 1024 * 1024;
/// The most bytes all object streams and page contents of a PDF may decompress to together: past it no
/// more object streams or pages are read.
pub const MAX_INFLATED_BYTES: usize = 256 * 1024 * 1024;
/// The most objects (each number, name, string, array, dictionary, counted generously) a PDF's structure
/// may hold, outside page contents: lopdf holds each in over a hundred bytes, so this bounds its memory to
/// some hundreds of MiB. A document whose raw bytes hold more is not read; an object stream that would take
/// the count past it is skipped.
pub const MAX_OBJECTS: usize = 1_000_000;
/// The most pages whose text is read for URLs.
pub const MAX_PAGES: usize = 2000;
/// The most time spent reading pages' text.
pub const MAX_TEXT_TIME: Duration = Duration::from_secs(2);
/// How deep nested dictionaries and arrays are searched for `/URI` entries.
const MAX_DEPTH: usize = 32;

/// Why a PDF gave fewer links than it holds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PdfProblem {
    /// The document is larger than `[extract] pdf_max_bytes`; it was not read.
    #[error("PDF of {bytes} bytes is over [extract] pdf_max_bytes ({max}); not read")]
    TooLarge {
        /// Its size.
        bytes: u64,
        /// The cap.
        max: u64,
    },
    /// lopdf could not read it (malformed).
    #[error("PDF not readable: {0}")]
    Unreadable(String),
    /// The parser panicked on it (a bug in the parser, caught).
    #[error("PDF parser failed on this document")]
    ParserPanic,
    /// It is encrypted with a user password (one without is read); its objects are not readable.
    #[error("PDF encrypted with a user password; not read")]
    Encrypted,
    /// A named limit stopped the reading: `MAX_OBJECTS`, `MAX_INFLATED_BYTES`, `MAX_PAGES`, `MAX_TEXT_TIME`
    /// or `MAX_STREAM_BYTES`.
    #[error("PDF read up to the {0} limit")]
    Limit(&'static str),
}

impl PdfProblem {
    /// Its crawl.log annotation, after `pdf:`: `tooLarge`, `unreadable`, `parserPanic`, `encrypted`, or the limit's
    /// name.
    pub fn label(&self) -> &'static str {
        match self {
            PdfProblem::TooLarge { .. } => "tooLarge",
            PdfProblem::Unreadable(_) => "unreadable",
            PdfProblem::ParserPanic => "parserPanic",
            PdfProblem::Encrypted => "encrypted",
            PdfProblem::Limit(name) => name,
        }
    }
}

impl GuardProblem for PdfProblem {
    fn too_large(bytes: u64, max: u64) -> Self {
        PdfProblem::TooLarge { bytes, max }
    }

    fn parser_panic() -> Self {
        PdfProblem::ParserPanic
    }
}

/// What a PDF gave: its links are `pdf/uri` from link annotations, `pdf/text` from the text.
pub type PdfLinks = DocumentLinks<PdfProblem>;

/// Whether a response is a PDF: its type says so, or its body starts as one.
pub fn is_pdf(mime: &str, body: &[u8]) -> bool {
    let essence = mime.split(';').next().unwrap_or("").trim();
    essence.eq_ignore_ascii_case("application/pdf")
        || essence.eq_ignore_ascii_case("application/x-pdf")
        || body.starts_with(b"%PDF-")
}

/// The links of the PDF `body` fetched from `doc_url`, at most `limits.max_outlinks` of them; a document over
/// `max_bytes` is not read.
pub fn pdf_links(body: &[u8], doc_url: &Url, max_bytes: u64, limits: &Limits) -> PdfLinks {
    read_guarded(body, max_bytes, limits, |set| read(body, doc_url, set))
}

/// What is left of a document's budgets while lopdf loads it: lopdf's object filter is a plain function,
/// so it finds them here (lopdf loads on the calling thread: the crate is built without rayon).
#[derive(Debug, Clone, Copy)]
struct Budget {
    /// Objects still allowed, after those of the raw file.
    objects: usize,
    /// Inflated bytes still allowed.
    inflated: usize,
    /// The limit an object stream was skipped for.
    hit: Option<&'static str>,
}

thread_local! {
    static BUDGET: Cell<Budget> = const {
        Cell::new(Budget {
            objects: 0,
            inflated: 0,
            hit: None,
        })
    };
}

/// lopdf's object filter: skips an object stream that would take the document over [`MAX_OBJECTS`] or
/// [`MAX_INFLATED_BYTES`], before lopdf reads its objects.
fn budget_filter(id: ObjectId, object: &mut Object) -> Option<(ObjectId, Object)> {
    let Object::Stream(stream) = object else {
        // An object of an object stream is kept as returned.
        return Some((id, object.clone()));
    };
    if stream.dict.has_type(b"ObjStm") && !object_stream_fits(stream) {
        return None;
    }
    // lopdf keeps a top-level object itself, not what is returned (and streams are never in object streams).
    Some((id, Object::Null))
}

/// Whether the object stream `stream` fits in what is left of the budgets; charges it if so.
fn object_stream_fits(stream: &Stream) -> bool {
    let mut budget = BUDGET.get();
    if budget.hit.is_some() {
        return false;
    }
    if let Err(hit) = charge(stream, &mut budget.objects, &mut budget.inflated) {
        budget.hit = Some(hit);
    }
    BUDGET.set(budget);
    budget.hit.is_none()
}

/// Takes the object stream `stream`'s inflated bytes and objects from what is left of `objects` and
/// `inflated`, or names the limit it would break (charging nothing). A stream that does not decode costs
/// nothing: lopdf fails on it the same way and builds none of its objects.
fn charge(stream: &Stream, objects: &mut usize, inflated: &mut usize) -> Result<(), &'static str> {
    let Ok(content) = stream.get_plain_content_with_limit(MAX_STREAM_BYTES) else {
        return Ok(());
    };
    if content.len() > *inflated {
        return Err("MAX_INFLATED_BYTES");
    }
    let first = stream
        .dict
        .get(b"First")
        .and_then(Object::as_i64)
        .ok()
        .and_then(|first| usize::try_from(first).ok())
        .unwrap_or(usize::MAX);
    let count = lex::object_stream_tokens(&content, first, *objects).ok_or("MAX_OBJECTS")?;
    *inflated -= content.len();
    *objects -= count;
    Ok(())
}

/// `body` loaded by lopdf within the budgets, with the objects of its raw bytes already counted as `raw`.
fn load(body: &[u8], raw: usize, force_reconstruct: bool) -> lopdf::Result<Document> {
    load_with(body, raw, force_reconstruct, budget_filter)
}

/// `body` loaded by lopdf with the object filter `filter`, the budgets reset.
fn load_with(
    body: &[u8],
    raw: usize,
    force_reconstruct: bool,
    filter: lopdf::FilterFunc,
) -> lopdf::Result<Document> {
    BUDGET.set(Budget {
        objects: MAX_OBJECTS - raw,
        inflated: MAX_INFLATED_BYTES,
        hit: None,
    });
    let options = LoadOptions {
        max_decompressed_size: Some(MAX_STREAM_BYTES),
        filter: Some(filter),
        force_reconstruct,
        ..LoadOptions::default()
    };
    Document::load_mem_with_options(body, options)
}

/// Whether an encrypted document's object streams fit the budgets; the limit they break if not.
///
/// lopdf reads an encrypted document (one with no user password, which it decrypts) through a path that
/// applies no object filter, so its object streams would be built however many objects they hold. They are
/// counted here first: the document is loaded with its `/Encrypt` names masked, so lopdf reads it as plain
/// within the budgets (its object streams, still ciphertext, unread), then each object stream is decrypted
/// with the document's key and counted as the filter counts one. A document over the budget is not read.
/// One the mask or the key cannot be applied to goes on to lopdf, which fails on it the same way.
fn encrypted_fits(
    body: &[u8],
    raw: usize,
    encrypt: &[std::ops::Range<usize>],
) -> Result<(), &'static str> {
    let mut masked = body.to_vec();
    for name in encrypt {
        masked[name.start + 1..name.end].fill(b'X');
    }
    OBJECT_STREAMS.take();
    let loaded = load_with(&masked, raw, false, set_aside);
    let streams = OBJECT_STREAMS.take();
    let Ok(mut doc) = loaded else {
        return Ok(());
    };
    let masked_key = doc
        .trailer
        .iter()
        .find(|(key, _)| !key.is_empty() && key.iter().all(|&b| b == b'X'))
        .map(|(_, value)| value.clone());
    let Some(dictionary) = masked_key else {
        return Ok(());
    };
    doc.trailer.set("Encrypt", dictionary);
    let Ok(state) = lopdf::EncryptionState::decode(&doc, "") else {
        return Ok(());
    };
    let (mut objects, mut inflated) = (MAX_OBJECTS - raw, MAX_INFLATED_BYTES);
    for (id, stream) in streams {
        let mut plain = Object::Stream(stream);
        // A stream decrypted in part is counted as it stands, as lopdf would read it.
        let _ = lopdf::encryption::decrypt_object(&state, id, &mut plain);
        if let Object::Stream(stream) = plain {
            charge(&stream, &mut objects, &mut inflated)?;
        }
    }
    Ok(())
}

thread_local! {
    /// The object streams [`set_aside`] took out of a load, still encrypted.
    static OBJECT_STREAMS: std::cell::RefCell<Vec<(ObjectId, Stream)>> = const {
        std::cell::RefCell::new(Vec::new())
    };
}

/// lopdf's object filter for a masked encrypted document: each object stream is set aside, unread (its
/// content is ciphertext), for [`encrypted_fits`] to decrypt and count; no object of one is built.
fn set_aside(id: ObjectId, object: &mut Object) -> Option<(ObjectId, Object)> {
    match object {
        Object::Stream(stream) if stream.dict.has_type(b"ObjStm") => {
            OBJECT_STREAMS.with_borrow_mut(|s| s.push((id, stream.clone())));
            None
        }
        // lopdf keeps a top-level object itself, not what is returned.
        Object::Stream(_) => Some((id, Object::Null)),
        _ => Some((id, object.clone())),
    }
}

fn read(body: &[u8], doc_url: &Url, set: &mut OutlinkSet) -> Option<PdfProblem> {
    let Some(raw) = lex::raw_tokens(body, MAX_OBJECTS) else {
        return Some(PdfProblem::Limit("MAX_OBJECTS"));
    };
    let encrypt = lex::names(body, b"Encrypt");
    if !encrypt.is_empty()
        && let Err(limit) = encrypted_fits(body, raw, &encrypt)
    {
        return Some(PdfProblem::Limit(limit));
    }
    let loaded = load(body, raw, false).and_then(|doc| {
        // lopdf rebuilds a damaged cross-reference table whose page tree does not load only when no filter
        // is given: do it here (the first document is dropped first).
        if doc.get_pages().is_empty() && !doc.trailer.has(b"Encrypt") {
            drop(doc);
            load(body, raw, true)
        } else {
            Ok(doc)
        }
    });
    let mut problem = BUDGET.get().hit.map(PdfProblem::Limit);
    let doc = match loaded {
        Ok(doc) => doc,
        Err(lopdf::Error::Decompress(_)) => return Some(PdfProblem::Limit("MAX_STREAM_BYTES")),
        Err(e) => return Some(problem.unwrap_or(PdfProblem::Unreadable(e.to_string()))),
    };
    // lopdf removes `/Encrypt` once it decrypted the document (no user password); with one it reads nothing.
    if doc.trailer.has(b"Encrypt") {
        return Some(PdfProblem::Encrypted);
    }
    for object in doc.objects.values() {
        uris(&doc, object, doc_url, set, 0);
    }
    let started = Instant::now();
    let mut inflated = MAX_INFLATED_BYTES - BUDGET.get().inflated;
    for (n, page) in doc.get_pages().into_values().enumerate() {
        if n >= MAX_PAGES {
            problem = Some(PdfProblem::Limit("MAX_PAGES"));
            break;
        }
        if started.elapsed() > MAX_TEXT_TIME {
            problem = Some(PdfProblem::Limit("MAX_TEXT_TIME"));
            break;
        }
        let content = match doc.get_page_content_with_limit(page, MAX_STREAM_BYTES) {
            Ok(content) => content,
            // Its first MAX_STREAM_BYTES are read for their links all the same (xt38b N13), as an office
            // part's are (xt36b F10).
            Err(lopdf::Error::Decompress(_)) => {
                problem = Some(PdfProblem::Limit("MAX_STREAM_BYTES"));
                content_prefix(&doc, page)
            }
            Err(_) => continue,
        };
        inflated += content.len();
        if inflated > MAX_INFLATED_BYTES {
            problem = Some(PdfProblem::Limit("MAX_INFLATED_BYTES"));
            break;
        }
        let encodings: BTreeMap<Vec<u8>, Encoding<'_>> = doc
            .get_page_fonts(page)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(name, font)| {
                let encoding = font.get_font_encoding_with_limit(&doc, MAX_STREAM_BYTES);
                Some((name, encoding.ok()?))
            })
            .collect();
        let finished = lex::page_text(
            &content,
            |font, raw| encodings.get(font)?.bytes_to_string(raw).ok(),
            |text| text_urls(text, doc_url, set, "pdf/text"),
            || started.elapsed() > MAX_TEXT_TIME,
        );
        if !finished {
            problem = Some(PdfProblem::Limit("MAX_TEXT_TIME"));
            break;
        }
        if set.is_truncated() {
            break;
        }
    }
    problem
}

/// The first [`MAX_STREAM_BYTES`] of page `page`'s content, its streams decoded as far as that (each plain or
/// FlateDecode, as content streams are; any other filter is passed over) and joined by newlines, up to the
/// last whitespace before the cut: a token the cut goes through (a URL in a string) is left out whole, not
/// taken cut short.
fn content_prefix(doc: &Document, page: ObjectId) -> Vec<u8> {
    use std::io::Read;
    let mut content = Vec::new();
    for id in doc.get_page_contents(page) {
        let room = MAX_STREAM_BYTES.saturating_sub(content.len()) as u64;
        if room == 0 {
            break;
        }
        let Ok(stream) = doc.get_object(id).and_then(Object::as_stream) else {
            continue;
        };
        let filters = stream.filters().unwrap_or_default();
        let before = content.len();
        // A stream that stops decoding keeps what it gave before (read_to_end keeps it).
        let _ = match filters.as_slice() {
            [] => (&stream.content[..]).take(room).read_to_end(&mut content),
            [b"FlateDecode" | b"Fl"] => flate2::read::ZlibDecoder::new(&stream.content[..])
                .take(room)
                .read_to_end(&mut content),
            _ => Ok(0),
        };
        if content.len() > before {
            content.push(b'\n');
        }
    }
    if content.len() >= MAX_STREAM_BYTES {
        let whole = content
            .iter()
            .rposition(u8::is_ascii_whitespace)
            .unwrap_or(0);
        content.truncate(whole);
    }
    content
}

/// Adds the `/URI` strings found in `object` and what it holds; a `/URI` value may be a reference to its
/// string, an object of `doc` (xt25b F4).
fn uris(doc: &lopdf::Document, object: &Object, doc_url: &Url, set: &mut OutlinkSet, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let dict = match object {
        Object::Dictionary(d) => d,
        Object::Stream(s) => &s.dict,
        Object::Array(items) => {
            for item in items {
                uris(doc, item, doc_url, set, depth + 1);
            }
            return;
        }
        _ => return,
    };
    for (key, value) in dict.iter() {
        let value = match value {
            Object::Reference(id) if key.as_slice() == b"URI" => {
                doc.get_object(*id).unwrap_or(value)
            }
            other => other,
        };
        if key.as_slice() == b"URI"
            && let Object::String(bytes, _) = value
        {
            set.add(&pdf_text(bytes), doc_url, None, Hop::Link, "pdf/uri");
        } else {
            uris(doc, value, doc_url, set, depth + 1);
        }
    }
}

/// A PDF string as text: UTF-16BE after a byte-order mark, else bytes (URIs are 7-bit ASCII by the spec).
fn pdf_text(bytes: &[u8]) -> String {
    if let Some(rest) = bytes.strip_prefix(&[0xfe, 0xff]) {
        let units: Vec<u16> = rest
            .chunks_exact(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect();
        return String::from_utf16_lossy(&units);
    }
    String::from_utf8_lossy(bytes).into_owned()
}

/// A small PDF of `pages`, each a page of text lines, and `links` as link annotations on the first page; for
/// tests and the self-test site. Written by hand so its bytes are plain to read; offsets are counted.
pub fn sample_pdf(pages: &[&[&str]], links: &[&str]) -> Vec<u8> {
    let mut objects: Vec<String> = Vec::new();
    // 1: catalog, 2: pages, 3: font; then per page: page, content; then the annotations.
    let page_ids: Vec<usize> = (0..pages.len()).map(|i| 4 + 2 * i).collect();
    let first_annot = 4 + 2 * pages.len();
    objects.push("<< /Type /Catalog /Pages 2 0 R >>".into());
    let kids: Vec<String> = page_ids.iter().map(|id| format!("{id} 0 R")).collect();
    objects.push(format!(
        "<< /Type /Pages /Kids [{}] /Count {} >>",
        kids.join(" "),
        pages.len()
    ));
    objects.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".into());
    for (i, lines) in pages.iter().enumerate() {
        let annots: Vec<String> = if i == 0 {
            (0..links.len())
                .map(|k| format!("{} 0 R", first_annot + k))
                .collect()
        } else {
            Vec::new()
        };
        objects.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> \
             /Contents {} 0 R /Annots [{}] >>",
            page_ids[i] + 1,
            annots.join(" ")
        ));
        let mut content = String::from("BT /F1 12 Tf 72 720 Td 14 TL\n");
        for line in lines.iter() {
            let escaped = line
                .replace('\\', "\\\\")
                .replace('(', "\\(")
                .replace(')', "\\)");
            content.push_str(&format!("({escaped}) Tj T*\n"));
        }
        content.push_str("ET");
        objects.push(format!(
            "<< /Length {} >>\nstream\n{content}\nendstream",
            content.len()
        ));
    }
    for link in links {
        objects.push(format!(
            "<< /Type /Annot /Subtype /Link /Rect [72 600 300 620] /Border [0 0 0] \
             /A << /S /URI /URI ({link}) >> >>"
        ));
    }
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{body}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for offset in offsets {
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn u() -> Url {
        Url::parse("http://a.org/docs/report.pdf").unwrap()
    }

    fn links(body: &[u8]) -> (Vec<(String, &'static str)>, Option<PdfProblem>) {
        let found = pdf_links(body, &u(), 1 << 30, &Limits::default());
        let urls = found
            .outlinks
            .iter()
            .map(|o| (o.url.to_string(), o.context))
            .collect();
        (urls, found.problem)
    }

    #[test]
    fn annotations_and_text() {
        let pdf = sample_pdf(
            &[
                &[
                    "See https://a.org/from-text.html, and (http://b.org/x?y=1).",
                    "no url here",
                ],
                &["page two: http://a.org/two"],
            ],
            &["http://a.org/annotated.html", "relative/page.html"],
        );
        let (urls, problem) = links(&pdf);
        assert_eq!(problem, None);
        for want in [
            ("http://a.org/annotated.html", "pdf/uri"),
            ("http://a.org/docs/relative/page.html", "pdf/uri"),
            ("https://a.org/from-text.html", "pdf/text"),
            ("http://b.org/x?y=1", "pdf/text"),
            ("http://a.org/two", "pdf/text"),
        ] {
            assert!(
                urls.contains(&(want.0.to_string(), want.1)),
                "{want:?} not in {urls:?}"
            );
        }
        assert!(is_pdf("application/octet-stream", &pdf));
        assert!(is_pdf("application/pdf; qs=1", b""));
        assert!(!is_pdf("text/html", b"<html>"));
    }

    /// xt25b F4: a `/URI` whose value is an indirect object (`/URI 9 0 R`) is read through the reference.
    #[test]
    fn a_uri_held_in_an_object_of_its_own_is_found() {
        let pdf = sample_pdf(&[&["x"]], &["http://a.org/direct"]);
        let mut doc = lopdf::Document::load_mem(&pdf).unwrap();
        let id = doc.add_object(Object::string_literal("http://a.org/indirect"));
        let action = doc
            .objects
            .values_mut()
            .find_map(|o| match o {
                Object::Dictionary(d) => d.get_mut(b"A").ok(),
                _ => None,
            })
            .and_then(|a| a.as_dict_mut().ok())
            .unwrap();
        action.set("URI", Object::Reference(id));
        let mut forged = Vec::new();
        doc.save_to(&mut forged).unwrap();
        let (urls, _) = links(&forged);
        assert_eq!(urls, [("http://a.org/indirect".to_string(), "pdf/uri")]);
    }

    /// [`sample_pdf`] of one page whose content stream is `parts` joined, FlateDecode-compressed.
    fn with_flate_content(parts: &[&[u8]], links: &[&str]) -> Vec<u8> {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        for part in parts {
            std::io::Write::write_all(&mut z, part).unwrap();
        }
        let compressed = z.finish().unwrap();
        let pdf = sample_pdf(&[&["x"]], links);
        // Swap the page's content stream (object 5) for the compressed one.
        let text = String::from_utf8_lossy(&pdf).into_owned();
        let start = text.find("5 0 obj").unwrap();
        let end = start + text[start..].find("endobj").unwrap() + "endobj\n".len();
        let mut forged = pdf[..start].to_vec();
        forged.extend_from_slice(
            format!(
                "5 0 obj\n<< /Length {} /Filter /FlateDecode >>\nstream\n",
                compressed.len()
            )
            .as_bytes(),
        );
        forged.extend_from_slice(&compressed);
        forged.extend_from_slice(b"\nendstream\nendobj\n");
        forged.extend_from_slice(&pdf[end..]);
        // Offsets are now wrong: lopdf rebuilds the cross-reference table, as for any damaged file.
        forged
    }

    #[test]
    fn a_pdf_bomb_stops_at_the_stream_limit() {
        // A page whose content inflates to 64 MiB: the annotation still read.
        let spaces = vec![b' '; 1 << 20];
        let forged = with_flate_content(&[&spaces[..]; 64], &["http://a.org/ok"]);
        let (urls, problem) = links(&forged);
        assert_eq!(problem, Some(PdfProblem::Limit("MAX_STREAM_BYTES")));
        assert_eq!(urls, [("http://a.org/ok".to_string(), "pdf/uri")]);
    }

    /// xt38b N13: a page whose content is over the stream limit gives the links of its first 16 MiB, not one
    /// the cut goes through (cut short, it would be another URL).
    #[test]
    fn a_page_over_the_stream_limit_gives_the_links_before_it() {
        let head = b"BT /F1 12 Tf 72 720 Td (see http://a.org/first here) Tj\n";
        let fill = vec![b' '; MAX_STREAM_BYTES - head.len() - 20];
        let across = b"(http://a.org/across-the-cut-of-the-stream) Tj\n";
        let after = b"(http://a.org/after) Tj ET";
        let forged = with_flate_content(&[&head[..], &fill, across, after], &[]);
        let (urls, problem) = links(&forged);
        assert_eq!(problem, Some(PdfProblem::Limit("MAX_STREAM_BYTES")));
        assert_eq!(urls, [("http://a.org/first".to_string(), "pdf/text")]);
    }

    #[test]
    fn a_user_password_is_an_annotation() {
        let pdf = sample_pdf(&[&["http://a.org/x"]], &["http://a.org/y"]);
        let text = String::from_utf8(pdf).unwrap();
        let hex = "0123456789abcdef".repeat(4);
        let encrypt = format!(
            "/Root 1 0 R /Encrypt << /Filter /Standard /V 1 /R 2 /O <{hex}> /U <{hex}> /P -4 >> \
             /ID [<{}> <{}>]",
            &hex[..32],
            &hex[..32]
        );
        let locked = text.replace("/Root 1 0 R", &encrypt);
        let (urls, problem) = links(locked.as_bytes());
        assert!(urls.is_empty(), "{urls:?}");
        assert_eq!(problem, Some(PdfProblem::Encrypted));
        assert_eq!(PdfProblem::Encrypted.label(), "encrypted");
    }

    /// `sample_pdf(links)` encrypted with an owner password only (as "no copying" PDFs are, so lopdf
    /// decrypts it), with object 20 an object stream holding `listed` entries that all point at one array
    /// of `numbers` numbers, reached through a cross-reference stream appended as an update.
    fn encrypted_with_object_stream(links: &[&str], listed: usize, numbers: usize) -> Vec<u8> {
        let mut doc = Document::load_mem(&sample_pdf(&[&["x"]], links)).unwrap();
        let index: String = (0..listed).map(|i| format!("{} 0 ", 100 + i)).collect();
        let array = format!("[{}]", "0 ".repeat(numbers));
        let mut dict = lopdf::Dictionary::new();
        // lopdf's writer leaves object streams out (it makes its own): typed apart until written.
        dict.set("Type", Object::Name(b"ObjStX".to_vec()));
        dict.set("N", listed as i64);
        dict.set("First", index.len() as i64);
        let container = (20, 0);
        doc.objects.insert(
            container,
            Object::Stream(Stream::new(dict, format!("{index}{array}").into_bytes())),
        );
        doc.trailer.set(
            "ID",
            Object::Array(vec![
                Object::string_literal("0123456789abcdef"),
                Object::string_literal("0123456789abcdef"),
            ]),
        );
        let state = lopdf::EncryptionState::try_from(lopdf::EncryptionVersion::V2 {
            document: &doc,
            owner_password: "owner",
            user_password: "",
            key_length: 128,
            permissions: lopdf::Permissions::default(),
        })
        .unwrap();
        doc.encrypt(&state).unwrap();
        let mut out = Vec::new();
        doc.save_to(&mut out).unwrap();
        let at = memchr::memmem::find(&out, b"/ObjStX").unwrap();
        out[at..at + 7].copy_from_slice(b"/ObjStm");
        // The update: a cross-reference stream (never encrypted) listing the stream's objects.
        let text = String::from_utf8_lossy(&out).into_owned();
        let prev: usize = text[text.rfind("startxref").unwrap() + 9..]
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let reference = |key: &[u8]| {
            let (n, g) = doc.trailer.get(key).unwrap().as_reference().unwrap();
            format!("{n} {g} R")
        };
        let mut entries = Vec::new();
        for i in 0..listed {
            entries.extend_from_slice(&[2, 0, 0, 0, 20]);
            entries.extend_from_slice(&(i as u16).to_be_bytes());
        }
        let at = out.len();
        entries.extend_from_slice(&[1]);
        entries.extend_from_slice(&(at as u32).to_be_bytes());
        entries.extend_from_slice(&[0, 0]);
        out.extend_from_slice(
            format!(
                "99 0 obj\n<< /Type /XRef /Size {} /W [1 4 2] /Index [100 {listed} 99 1] /Prev {prev} \
                 /Root {} /Encrypt {} /ID [<30313233343536373839616263646566> <30313233343536373839616263646566>] \
                 /Length {} >>\nstream\n",
                100 + listed,
                reference(b"Root"),
                reference(b"Encrypt"),
                entries.len()
            )
            .as_bytes(),
        );
        out.extend_from_slice(&entries);
        out.extend_from_slice(format!("\nendstream\nendobj\nstartxref\n{at}\n%%EOF\n").as_bytes());
        out
    }

    /// An owner-password PDF is read (lopdf decrypts it), and its object streams are counted against
    /// MAX_OBJECTS before lopdf builds them, as a plain document's are: one listing a large array 2,000 times
    /// (over two million objects) is not read.
    #[test]
    fn an_owner_password_pdf_is_read_within_the_object_budget() {
        let small = encrypted_with_object_stream(&["http://a.org/enc"], 3, 10);
        let (urls, problem) = links(&small);
        assert_eq!(problem, None);
        assert_eq!(urls, [("http://a.org/enc".to_string(), "pdf/uri")]);
        let bomb = encrypted_with_object_stream(&["http://a.org/enc"], 2000, 1000);
        let (urls, problem) = links(&bomb);
        assert_eq!(problem, Some(PdfProblem::Limit("MAX_OBJECTS")));
        assert!(urls.is_empty(), "{urls:?}");
        // The name is found in any spelling a parser reads as it.
        let found = lex::names(b"<< /Encr#79pt 5 0 R /Encrypted 1 >>", b"Encrypt");
        assert_eq!(
            found.iter().map(|r| (r.start, r.end)).collect::<Vec<_>>(),
            [(3, 13)]
        );
    }

    #[test]
    fn too_large_and_malformed_documents_are_problems_not_panics() {
        let pdf = sample_pdf(&[&["http://a.org/x"]], &[]);
        let found = pdf_links(&pdf, &u(), 100, &Limits::default());
        assert!(matches!(
            found.problem,
            Some(PdfProblem::TooLarge { max: 100, .. })
        ));
        let (urls, problem) = links(b"%PDF-1.7\n1 0 obj << /Type /Catalog");
        assert!(urls.is_empty());
        assert!(
            matches!(problem, Some(PdfProblem::Unreadable(_))),
            "{problem:?}"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn never_panics_on_damaged_pdfs(cut in 0usize..2000, flips in proptest::collection::vec((0usize..2000, any::<u8>()), 0..8)) {
            let mut pdf = sample_pdf(&[&["see http://a.org/x"]], &["http://a.org/y"]);
            for (at, byte) in flips {
                let n = pdf.len();
                pdf[at % n] = byte;
            }
            pdf.truncate(cut.max(1).min(pdf.len()));
            let found = pdf_links(&pdf, &u(), 1 << 20, &Limits::default());
            prop_assert!(found.problem != Some(PdfProblem::ParserPanic));
        }
    }
}
