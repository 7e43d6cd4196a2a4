//! canon (heritrix, the uniq key) + CDX SURT + normalized key, per URL, on a mix of typical URLs.
//!
//! Run with `cargo bench -p trawl-url --bench identity`; the URLs/s figure is in docs/url-identity.md.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use trawl_url::{
    CanonicalHints, Identity, Url,
    canon::Canonicalizer,
    norm::{TrackingParams, normalize},
    surt::{SurtOptions, cdx},
};

const URLS: &[&str] = &[
    "https://www.example.com/",
    "https://docs.python.org/3.12/library/datetime.html",
    "http://www.archive.org/goo/?a=2&b&a=1",
    "https://en.wikipedia.org/wiki/Web_archiving",
    "https://stackoverflow.com/questions/1732348/regex-match-open-tags-except-xhtml-self-contained-tags",
    "http://example.com/document/?utm_source=ref&utm_medium=email",
    "https://news.example.org/2024/05/17/some-story-title.html",
    "https://cdn.example.net/static/css/site.min.css?v=123",
    "http://shop.example.com/product/12345?color=red&size=m",
    "https://blog.example.io/posts/hello-world/",
];

fn identity(c: &mut Criterion) {
    let urls: Vec<Url> = URLS.iter().map(|u| Url::parse(u).unwrap()).collect();
    let tracking = TrackingParams::default();
    let opts = SurtOptions::default();
    let mut g = c.benchmark_group("identity");
    g.throughput(Throughput::Elements(urls.len() as u64));
    g.bench_function("canon+surt+norm", |b| {
        b.iter(|| {
            for u in &urls {
                black_box(Canonicalizer::Heritrix.canonicalize(u));
                black_box(cdx(u, &opts));
                black_box(normalize(u, &tracking));
            }
        })
    });
    for (name, f) in [("canon_heritrix", 0), ("surt_cdx", 1), ("norm", 2)] {
        g.bench_function(name, |b| {
            b.iter(|| {
                for u in &urls {
                    match f {
                        0 => drop(black_box(Canonicalizer::Heritrix.canonicalize(u))),
                        1 => drop(black_box(cdx(u, &opts))),
                        _ => drop(black_box(normalize(u, &tracking))),
                    }
                }
            })
        });
    }
    // The canonical URL's fallback cleanup, which runs for every URL a crawl names.
    let id = Identity::default();
    g.bench_function("canonical_cleanup", |b| {
        b.iter(|| {
            for u in &urls {
                black_box(id.canonical(u, CanonicalHints::none()));
            }
        })
    });
    g.finish();
}

/// The benchmark groups (criterion's macros write undocumented items).
#[allow(missing_docs)]
mod groups {
    use super::*;
    criterion_group!(benches, identity);
}

criterion_main!(groups::benches);
