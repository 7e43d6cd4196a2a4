//! PDF link extraction on arbitrary bytes: at most the outlink cap, and never a parser panic (one caught by
//! `pdf_links` is reported as `ParserPanic`, which fails here so the fuzzer finds it).
#![no_main]

use libfuzzer_sys::fuzz_target;
use trawl_extract::{
    Limits,
    pdf::{PdfProblem, pdf_links},
};

fuzz_target!(|data: &[u8]| {
    let base = url::Url::parse("http://a.org/doc.pdf").unwrap();
    let limits = Limits::default();
    let found = pdf_links(data, &base, 1 << 20, &limits);
    assert!(found.outlinks.len() <= limits.max_outlinks);
    assert_ne!(found.problem, Some(PdfProblem::ParserPanic));
});
