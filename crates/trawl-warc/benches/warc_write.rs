//! Encoding WARC records, MB/s of uncompressed record bytes: a page's request, response and metadata
//! records, as the crawler writes them, gzipped one member per record at several levels, or plain. A
//! baseline compresses the same bytes with zlib (flate2 over zlib-rs, one reused stream reset per member),
//! which trawl used before libdeflate. Then zstd, one frame per record: a new context per record
//! (`zstd::bulk::compress`, what trawl's encoder did before), the encoder's reused context (level 3), reused
//! contexts at other levels, and the encoder with a dictionary trained from other pages (as a crawl trains one
//! from its first records); and ruzstd's fastest level. The compressed size of each is printed once.
//!
//! Run with `cargo bench -p trawl-warc --bench warc_write`; figures are in docs/performance.md.

use std::hint::black_box;
use std::sync::Arc;

use chrono::Utc;
use criterion::{
    BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main, measurement::WallTime,
};
use flate2::{Compress, Compression as ZlibLevel, FlushCompress, Status};
use ruzstd::encoding::{CompressionLevel, compress_to_vec};
use trawl_warc::{Compression, Encoder, Record, ZstdDictionary};

#[path = "../../../bench/micro/pages.rs"]
mod pages;

/// The three records the crawler writes for one fetched page.
fn page_records(url: &str, body: &[u8]) -> Vec<Record> {
    typed_records(url, body, "text/html")
}

/// [`page_records`] for a payload of `content_type`.
fn typed_records(url: &str, body: &[u8], content_type: &str) -> Vec<Record> {
    let date = Utc::now();
    let ip = Some("127.0.0.1".parse().unwrap());
    let request = format!(
        "GET {} HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: trawl/0.1 (+https://example.org/bot)\r\n\
         Accept: */*\r\nAccept-Encoding: gzip, br\r\n\r\n",
        &url[21..]
    );
    let mut response = format!(
        "HTTP/1.1 200 OK\r\nServer: nginx\r\nDate: Sun, 22 Nov 2026 14:00:00 GMT\r\n\
         Content-Type: {content_type}\r\nContent-Length: {}\r\nConnection: keep-alive\r\n\r\n",
        body.len()
    )
    .into_bytes();
    response.extend_from_slice(body);
    let mut records = vec![
        Record::request(url, date, ip, request.into_bytes()),
        Record::response(url, date, ip, response),
        Record::metadata(
            url,
            date,
            &[("via", "http://127.0.0.1:8080/"), ("hopsFromSeed", "L")],
        ),
    ];
    let id = records[1].id().to_string();
    records[0].set("WARC-Concurrent-To", id.clone());
    records[2].set("WARC-Concurrent-To", id);
    records
}

/// zlib-rs through flate2, one stream reset per member: what trawl used before libdeflate.
fn zlib_members(deflate: &mut Compress, plains: &[Vec<u8>], out: &mut Vec<u8>) {
    for plain in plains {
        deflate.reset();
        out.reserve(plain.len() + 64);
        let start = deflate.total_in();
        loop {
            let consumed = (deflate.total_in() - start) as usize;
            out.reserve(4096);
            let status = deflate
                .compress_vec(&plain[consumed..], out, FlushCompress::Finish)
                .unwrap();
            if status == Status::StreamEnd {
                break;
            }
        }
    }
}

/// The bytes of `groups` written uncompressed.
fn plain_size(groups: &[Vec<Record>], warcinfo_id: &str) -> usize {
    let mut none = Encoder::new(Compression::None, 1);
    groups
        .iter()
        .map(|g| none.encode(g, warcinfo_id).unwrap().bytes().len())
        .sum()
}

/// Prints what `encoder` makes of `groups` against their plain size, then times encoding them all.
fn bench_encoder(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    encoder: &mut Encoder,
    groups: &[Vec<Record>],
    warcinfo_id: &str,
    plain_bytes: usize,
) {
    let size: usize = groups
        .iter()
        .map(|grp| encoder.encode(grp, warcinfo_id).unwrap().bytes().len())
        .sum();
    eprintln!(
        "{name}: {size} bytes, {:.1}% of {plain_bytes}",
        100.0 * size as f64 / plain_bytes as f64
    );
    g.bench_function(name, |b| {
        b.iter(|| {
            for grp in groups {
                black_box(encoder.encode(grp, warcinfo_id).unwrap());
            }
        })
    });
}

fn warc_write(c: &mut Criterion) {
    let groups: Vec<Vec<Record>> = pages::pages(200, 7)
        .iter()
        .map(|(url, body)| page_records(url, body))
        .collect();
    let warcinfo_id = "<urn:uuid:00000000-0000-4000-8000-000000000000>";
    let plain_bytes = plain_size(&groups, warcinfo_id);
    let mut g = c.benchmark_group("warc_write");
    g.throughput(Throughput::Bytes(plain_bytes as u64));
    let settings = [
        ("plain", Compression::None, 1),
        ("gzip_1", Compression::Gzip, 1),
        ("gzip_2", Compression::Gzip, 2),
        ("gzip_3", Compression::Gzip, 3),
        ("gzip_6", Compression::Gzip, 6),
    ];
    for (name, compression, level) in settings {
        let mut encoder = Encoder::new(compression, level);
        bench_encoder(
            &mut g,
            name,
            &mut encoder,
            &groups,
            warcinfo_id,
            plain_bytes,
        );
    }
    // The same plain record bytes, for the zlib baseline.
    let mut none = Encoder::new(Compression::None, 1);
    let plains: Vec<Vec<Vec<u8>>> = groups
        .iter()
        .map(|grp| {
            grp.iter()
                .map(|r| {
                    none.encode(std::slice::from_ref(r), warcinfo_id)
                        .unwrap()
                        .bytes()
                        .to_vec()
                })
                .collect()
        })
        .collect();
    for level in [3, 6] {
        let mut deflate = Compress::new(ZlibLevel::new(level), false);
        let mut size = 0;
        for p in &plains {
            let mut out = Vec::new();
            zlib_members(&mut deflate, p, &mut out);
            size += out.len() + p.len() * 18;
        }
        eprintln!(
            "zlib_rs_{level}: {size} bytes, {:.1}% of {plain_bytes}",
            100.0 * size as f64 / plain_bytes as f64
        );
        g.bench_function(format!("zlib_rs_{level}"), |b| {
            b.iter(|| {
                for p in &plains {
                    let mut out = Vec::new();
                    zlib_members(&mut deflate, p, &mut out);
                    black_box(out);
                }
            })
        });
    }
    let zstd = |p: &Vec<Vec<u8>>| -> usize {
        p.iter()
            .map(|plain| compress_to_vec(&plain[..], CompressionLevel::Fastest).len())
            .sum()
    };
    let size: usize = plains.iter().map(zstd).sum();
    eprintln!(
        "ruzstd_fastest: {size} bytes, {:.1}% of {plain_bytes}",
        100.0 * size as f64 / plain_bytes as f64
    );
    g.bench_function("ruzstd_fastest", |b| {
        b.iter(|| {
            for p in &plains {
                black_box(zstd(p));
            }
        })
    });

    // zstd through the C library: a context made per record, as `zstd::bulk::compress` does.
    let per_record = |p: &Vec<Vec<u8>>| -> usize {
        p.iter()
            .map(|plain| zstd::bulk::compress(plain, 3).unwrap().len())
            .sum()
    };
    let size: usize = plains.iter().map(per_record).sum();
    eprintln!(
        "zstd_3_context_per_record: {size} bytes, {:.1}% of {plain_bytes}",
        100.0 * size as f64 / plain_bytes as f64
    );
    g.bench_function("zstd_3_context_per_record", |b| {
        b.iter(|| {
            for p in &plains {
                black_box(per_record(p));
            }
        })
    });
    // One context reused, at several levels (the encoder's is 3).
    for level in [-1, 1, 3, 6] {
        let mut context = zstd::bulk::Compressor::new(level).unwrap();
        let mut out = Vec::new();
        let mut reused = |p: &Vec<Vec<u8>>| -> usize {
            p.iter()
                .map(|plain| {
                    out.clear();
                    out.reserve(zstd::zstd_safe::compress_bound(plain.len()));
                    context.compress_to_buffer(plain, &mut out).unwrap()
                })
                .sum()
        };
        let size: usize = plains.iter().map(&mut reused).sum();
        eprintln!(
            "zstd_{level}_reused: {size} bytes, {:.1}% of {plain_bytes}",
            100.0 * size as f64 / plain_bytes as f64
        );
        g.bench_function(format!("zstd_{level}_reused"), |b| {
            b.iter(|| {
                for p in &plains {
                    black_box(reused(p));
                }
            })
        });
    }
    // trawl's encoder: level 3, its context reused; then with a dictionary trained, as the writer trains it,
    // from the first records of a crawl of other pages (so the dictionary never holds the measured pages).
    let training: Vec<Vec<u8>> = pages::pages(400, 11)
        .iter()
        .flat_map(|(url, body)| page_records(url, body))
        .map(|r| {
            none.encode(std::slice::from_ref(&r), warcinfo_id)
                .unwrap()
                .bytes()
                .to_vec()
        })
        .take(trawl_warc::zstd_dictionary::SAMPLE_RECORDS)
        .scan(0, |bytes, r| {
            *bytes += r.len();
            (*bytes <= trawl_warc::zstd_dictionary::SAMPLE_BYTES).then_some(r)
        })
        .collect();
    let started = std::time::Instant::now();
    let dictionary = Arc::new(ZstdDictionary::train(&training).unwrap());
    eprintln!(
        "dictionary: {} bytes ({} in its frame), trained from {} records ({} bytes) in {:?}",
        dictionary.as_bytes().len(),
        dictionary.frame().len(),
        training.len(),
        training.iter().map(Vec::len).sum::<usize>(),
        started.elapsed()
    );
    let encoders = [
        ("zstd_3_encoder", Encoder::new(Compression::Zstd, 1)),
        (
            "zstd_3_encoder_dictionary",
            Encoder::with_zstd_dictionary(dictionary),
        ),
    ];
    for (name, mut encoder) in encoders {
        bench_encoder(
            &mut g,
            name,
            &mut encoder,
            &groups,
            warcinfo_id,
            plain_bytes,
        );
    }
    g.finish();
}

/// Payloads deflate cannot shrink (the pages gzipped: bytes as dense as a JPEG's), at the default level: as
/// `image/jpeg`, which the encoder stores, and as `application/octet-stream`, which it compresses.
fn warc_write_compressed_payloads(c: &mut Criterion) {
    let dense: Vec<(String, Vec<u8>)> = pages::pages(200, 7)
        .into_iter()
        .map(|(url, body)| {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), ZlibLevel::new(6));
            std::io::Write::write_all(&mut gz, &body).unwrap();
            (url, gz.finish().unwrap())
        })
        .collect();
    let warcinfo_id = "<urn:uuid:00000000-0000-4000-8000-000000000000>";
    let mut g = c.benchmark_group("warc_write_compressed_payloads");
    for (name, content_type) in [
        ("gzip_1_stored_image_jpeg", "image/jpeg"),
        ("gzip_1_deflated_octet_stream", "application/octet-stream"),
    ] {
        let groups: Vec<Vec<Record>> = dense
            .iter()
            .map(|(url, body)| typed_records(url, body, content_type))
            .collect();
        let plain_bytes = plain_size(&groups, warcinfo_id);
        g.throughput(Throughput::Bytes(plain_bytes as u64));
        let mut encoder = Encoder::new(Compression::Gzip, 1);
        bench_encoder(
            &mut g,
            name,
            &mut encoder,
            &groups,
            warcinfo_id,
            plain_bytes,
        );
    }
    g.finish();
}

/// The benchmark groups (criterion's macros write undocumented items).
#[allow(missing_docs)]
mod groups {
    use super::*;
    criterion_group!(benches, warc_write, warc_write_compressed_payloads);
}
criterion_main!(groups::benches);
