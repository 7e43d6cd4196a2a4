//! Hostile PDFs stay within a bounded amount of memory: each is read alone in this test binary (one test, so
//! nothing else runs beside it) and the process's peak resident size (`VmHWM`) is compared before and after.

use std::io::Write;

use flate2::Compression;
use flate2::write::ZlibEncoder;
use trawl_extract::Limits;
use trawl_extract::pdf::{PdfProblem, pdf_links};
use url::Url;

/// How far above its size before them the peak resident size may go reading these documents (it went
/// gigabytes above before the budgets; a document just under them takes some 200 MiB).
const MAX_GROWTH_KB: u64 = 600 * 1024;

/// The process's peak resident size, in KiB (`None` where /proc is not there).
fn peak_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn deflate(data: &[u8]) -> Vec<u8> {
    let mut z = ZlibEncoder::new(Vec::new(), Compression::best());
    z.write_all(data).unwrap();
    z.finish().unwrap()
}

/// A PDF of `objects` (numbered from 1, object 1 the catalog), with a correct cross-reference table.
fn pdf(objects: &[Vec<u8>]) -> Vec<u8> {
    let mut out = b"%PDF-1.5\n".to_vec();
    let mut offsets = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(object);
        out.extend_from_slice(b"\nendobj\n");
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

fn stream(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut out = format!("<< {dict} /Length {} >>\nstream\n", data.len()).into_bytes();
    out.extend_from_slice(data);
    out.extend_from_slice(b"\nendstream");
    out
}

/// Catalog, page tree, a page with a link annotation (objects 1 to 4), then `more`.
fn with_annotation(page: &str, more: Vec<Vec<u8>>) -> Vec<u8> {
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        format!("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [4 0 R] {page} >>").into_bytes(),
        b"<< /Type /Annot /Subtype /Link /Rect [0 0 9 9] /A << /S /URI /URI (http://a.org/kept) >> >>".to_vec(),
    ];
    objects.extend(more);
    pdf(&objects)
}

/// Object streams each inflating to nearly 16 MiB of one array of zeros (the tester's objstm-8.pdf).
fn object_stream_bomb(streams: usize) -> Vec<u8> {
    let mut data = b"1000 0 [".to_vec();
    data.extend(b"0 ".repeat((16 << 20) / 2 - 64));
    data.push(b']');
    let packed = deflate(&data);
    let more = (0..streams)
        .map(|_| stream("/Type /ObjStm /N 1 /First 7 /Filter /FlateDecode", &packed))
        .collect();
    with_annotation("", more)
}

/// A plain array of `n` zeros in the file itself (the tester's bigarray.pdf).
fn raw_array(n: usize) -> Vec<u8> {
    let mut array = b"[".to_vec();
    array.extend(b"0 ".repeat(n));
    array.push(b']');
    with_annotation("", vec![array])
}

/// An object stream holding one array of `n` zeros.
fn packed_array(n: usize) -> Vec<u8> {
    let mut data = b"1000 0 [".to_vec();
    data.extend(b"0 ".repeat(n));
    data.push(b']');
    let packed = deflate(&data);
    with_annotation(
        "",
        vec![stream(
            "/Type /ObjStm /N 1 /First 7 /Filter /FlateDecode",
            &packed,
        )],
    )
}

/// One page whose content inflates to nearly 16 MiB of `(a) Tj`, a URL at its end (the tester's tjbomb.pdf).
fn text_operator_bomb() -> Vec<u8> {
    let mut ops = b"BT /F1 12 Tf 10 10 Td ".to_vec();
    ops.extend(b"(a) Tj ".repeat(((16 << 20) - 200) / 7));
    ops.extend_from_slice(b"( http://a.org/at-the-end) Tj ET");
    let font = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec();
    with_annotation(
        "/Resources << /Font << /F1 5 0 R >> >> /Contents 6 0 R",
        vec![font, stream("/Filter /FlateDecode", &deflate(&ops))],
    )
}

/// The links and problem of `pdf`, and how far the process's peak resident size is now above `baseline`.
fn read(pdf: &[u8], baseline: u64) -> (Vec<String>, Option<PdfProblem>, u64) {
    let url = Url::parse("http://a.org/doc.pdf").unwrap();
    let found = pdf_links(pdf, &url, 32 << 20, &Limits::default());
    let growth = peak_kb().unwrap_or(0).saturating_sub(baseline);
    let urls = found.outlinks.iter().map(|o| o.url.to_string()).collect();
    (urls, found.problem, growth)
}

#[test]
fn hostile_pdfs_stay_within_their_budgets() {
    let kept = "http://a.org/kept".to_string();
    let limit = |name| Some(PdfProblem::Limit(name));
    // Each document built before the baseline is taken, so only reading it counts.
    let documents = [
        object_stream_bomb(8),
        raw_array(15 << 20),
        text_operator_bomb(),
        raw_array(900_000),
        packed_array(900_000),
    ];
    let baseline = peak_kb().unwrap_or(0);
    let read = |pdf| read(pdf, baseline);

    let (urls, problem, growth) = read(&documents[0]);
    assert_eq!((urls, problem), (vec![kept.clone()], limit("MAX_OBJECTS")));
    assert!(growth < MAX_GROWTH_KB, "object stream bomb: {growth} KiB");

    let (urls, problem, growth) = read(&documents[1]);
    assert_eq!((urls, problem), (vec![], limit("MAX_OBJECTS")));
    assert!(growth < MAX_GROWTH_KB, "raw array: {growth} KiB");

    let (urls, problem, growth) = read(&documents[2]);
    assert!(
        urls.contains(&"http://a.org/at-the-end".to_string()),
        "{urls:?}"
    );
    assert!(urls.contains(&kept), "{urls:?}");
    assert!(
        problem.is_none() || problem == limit("MAX_TEXT_TIME"),
        "{problem:?}"
    );
    assert!(growth < MAX_GROWTH_KB, "text operator bomb: {growth} KiB");

    // Under the budgets, the largest documents still read whole.
    let (urls, problem, growth) = read(&documents[3]);
    assert_eq!((urls, problem), (vec![kept.clone()], None));
    assert!(
        growth < MAX_GROWTH_KB,
        "raw array under the budget: {growth} KiB"
    );
    let (urls, problem, growth) = read(&documents[4]);
    assert_eq!((urls, problem), (vec![kept], None));
    assert!(
        growth < MAX_GROWTH_KB,
        "object stream under the budget: {growth} KiB"
    );
}
