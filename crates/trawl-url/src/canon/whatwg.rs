//! `whatwg`: the URL exactly as the WHATWG URL Standard serializes it (the `url` crate), plus urlcanon's one
//! extra step, decoding `%2e` to `.` in the path (`/foo%2Ehtml` becomes `/foo.html`). The fragment is kept.

use url::Url;

/// The WHATWG serialization of `url`, with `%2e` in the path decoded.
pub(crate) fn canonicalize(url: &Url) -> String {
    let path = url.path();
    if !(path.contains("%2e") || path.contains("%2E")) || url.cannot_be_a_base() {
        return url.as_str().to_string();
    }
    let mut u = url.clone();
    let decoded = path.replace("%2e", ".").replace("%2E", ".");
    u.set_path(&decoded);
    u.into()
}

#[cfg(test)]
mod tests {
    use crate::canon::Canonicalizer;

    #[test]
    fn rows() {
        let rows = [
            ("HTTP://EXAMPLE.COM:80/a/./b/../c", "http://example.com/a/c"),
            ("http://www/foo%2Ehtml", "http://www/foo.html"),
            ("http://www/foo/%2E/html", "http://www/foo/html"),
            ("http://192.0x00A80001", "http://192.168.0.1/"),
            ("http://a/b#frag", "http://a/b#frag"),
            ("https://fa\u{df}.ExAmPlE/", "https://xn--fa-hia.example/"),
        ];
        for (input, want) in rows {
            let url = url::Url::parse(input).unwrap();
            assert_eq!(Canonicalizer::Whatwg.canonicalize(&url), want, "{input}");
        }
    }
}
