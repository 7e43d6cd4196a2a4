//! HTML link extraction, MB/s of page bytes: the start-tag scanner, URL resolution and the
//! deduplicated outlink list, on generated pages shaped like the bench site's (`bench/micro/pages.rs`).
//!
//! Run with `cargo bench -p trawl-extract --bench extract`; figures are in docs/performance.md.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use trawl_extract::{Limits, extract};
use url::Url;

#[path = "../../../bench/micro/pages.rs"]
mod pages;

fn extraction(c: &mut Criterion) {
    let pages: Vec<(Url, Vec<u8>)> = pages::pages(200, 7)
        .into_iter()
        .map(|(url, body)| (Url::parse(&url).unwrap(), body))
        .collect();
    let bytes: usize = pages.iter().map(|(_, body)| body.len()).sum();
    let links: usize = pages
        .iter()
        .map(|(url, body)| {
            extract("text/html", body, None, url, &Limits::default())
                .outlinks
                .len()
        })
        .sum();
    eprintln!("{} pages, {bytes} bytes, {links} outlinks", pages.len());
    let mut g = c.benchmark_group("extract");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("html", |b| {
        b.iter(|| {
            for (url, body) in &pages {
                black_box(extract("text/html", body, None, url, &Limits::default()));
            }
        })
    });
    g.finish();
}

/// The benchmark groups (criterion's macros write undocumented items).
#[allow(missing_docs)]
mod groups {
    use super::*;
    criterion_group!(benches, extraction);
}
criterion_main!(groups::benches);
