//! Office link extraction, OOXML packages (.docx, .xlsx, .pptx), on arbitrary bytes: at most the outlink cap, and never a parser panic (one
//! caught by `office_links` is reported as `ParserPanic`, which fails here so the fuzzer finds it).
#![no_main]

use libfuzzer_sys::fuzz_target;
use trawl_extract::{
    Limits,
    office::{Format, OfficeProblem, office_links},
};

fuzz_target!(|data: &[u8]| {
    let base = url::Url::parse("http://a.org/a.docx").unwrap();
    let limits = Limits::default();
    let found = office_links(data, Format::Ooxml, &base, 1 << 20, &limits);
    assert!(found.outlinks.len() <= limits.max_outlinks);
    assert_ne!(found.problem, Some(OfficeProblem::ParserPanic));
});
