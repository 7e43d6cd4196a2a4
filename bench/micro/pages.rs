//! Deterministic HTML pages shaped like `bench/sitegen.py`'s: 5-20 KB of text with 20-40 links (absolute,
//! root-relative, `../`, `./`, fragments), a stylesheet, a script and images. Shared by the criterion
//! micro-benchmarks (`#[path]`-included), so extraction and WARC writing are measured on the same bytes.

/// A small xorshift generator: the same seed gives the same pages on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const WORDS: &[&str] = &[
    "archive",
    "crawler",
    "frontier",
    "record",
    "harvest",
    "queue",
    "politeness",
    "the",
    "of",
    "and",
    "a",
    "to",
    "in",
    "is",
    "web",
    "page",
    "link",
    "server",
    "response",
    "request",
    "collection",
    "snapshot",
    "capture",
    "replay",
    "index",
    "seed",
    "scope",
    "host",
    "domain",
    "document",
];

/// `n` pages: `(url, html)`, seeded by `seed`.
pub(crate) fn pages(n: usize, seed: u64) -> Vec<(String, Vec<u8>)> {
    let mut rng = Rng(seed | 1);
    (0..n)
        .map(|i| {
            let section = rng.below(20);
            let url = format!(
                "http://127.0.0.1:8080/s{section:02}/t{}/p{i}.html",
                rng.below(50)
            );
            (url, page(&mut rng, i))
        })
        .collect()
}

fn page(rng: &mut Rng, i: usize) -> Vec<u8> {
    let target = 5_000 + rng.below(15_000) as usize;
    let links = 20 + rng.below(21);
    let mut html = format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Page {i}</title>\n\
         <link rel=\"stylesheet\" href=\"/assets/site{}.css\">\n\
         <script src=\"/assets/app{}.js\"></script></head>\n<body>\n<h1>Page {i}</h1>\n",
        rng.below(10),
        rng.below(10)
    );
    let per_link = target / links as usize;
    for l in 0..links {
        html.push_str("<p>");
        while html.len() < per_link * (l as usize + 1) {
            html.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
            html.push(' ');
        }
        let p = rng.below(100_000);
        let href = match l % 6 {
            0 => format!(
                "http://127.0.0.1:8080/s{:02}/t{}/p{p}.html",
                rng.below(20),
                rng.below(50)
            ),
            1 => format!("/s{:02}/t{}/p{p}.html", rng.below(20), rng.below(50)),
            2 => format!("../t{}/p{p}.html", rng.below(50)),
            3 => format!("./p{p}.html"),
            4 => format!("p{p}.html#section{}", rng.below(5)),
            _ => format!("/s{:02}/./t{}/p{p}.html", rng.below(20), rng.below(50)),
        };
        html.push_str(&format!("<a href=\"{href}\">link {l}</a></p>\n"));
        if l % 10 == 0 {
            html.push_str(&format!(
                "<img src=\"/assets/img{}.png\" alt=\"\">\n",
                rng.below(30)
            ));
        }
    }
    html.push_str("</body></html>\n");
    html.into_bytes()
}
