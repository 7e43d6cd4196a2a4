//! Percent-encoding helpers shared by the canonicalizers: decode until nothing changes, encode a byte set once.

/// Decodes `%XX` escapes over and over until the text stops changing (`%2525` becomes `%`).
///
/// A `%` not followed by two hex digits is kept as it is.
pub(crate) fn decode_repeatedly(input: &str) -> Vec<u8> {
    let mut cur = input.as_bytes().to_vec();
    loop {
        let next = decode_once(&cur);
        if next == cur {
            return cur;
        }
        cur = next;
    }
}

fn decode_once(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        if input[i] == b'%'
            && i + 2 < input.len()
            && let (Some(h), Some(l)) = (hex(input[i + 1]), hex(input[i + 2]))
        {
            out.push(h << 4 | l);
            i += 3;
            continue;
        }
        out.push(input[i]);
        i += 1;
    }
    out
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Encodes every byte for which `escape` is true as `%XX` (upper-case hex); other bytes are copied.
pub(crate) fn encode(input: &[u8], escape: impl Fn(u8) -> bool) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(input.len());
    for &b in input {
        if escape(b) {
            out.push('%');
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 15)] as char);
        } else {
            out.push(b as char);
        }
    }
    out
}

/// The bytes Google's safe-browsing canonicalization escapes: controls, space, non-ASCII, `#` and `%`.
pub(crate) fn google_set(b: u8) -> bool {
    b <= 0x20 || b >= 0x7f || b == b'#' || b == b'%'
}

/// [`google_set`] for a host: also the bytes that would end the host when the URL is read back (`/`, `?`, `@`,
/// `\`), which unescaping `%2F` and the like puts there.
pub(crate) fn host_set(b: u8) -> bool {
    google_set(b) || matches!(b, b'/' | b'?' | b'@' | b'\\')
}

/// Whether the text holds an escape (`%XX`) or a byte [`google_set`] would escape, i.e. whether the
/// decode/encode round trip could change it. Lets the common case skip all allocation.
pub(crate) fn needs_recode(input: &str) -> bool {
    input.bytes().any(|b| b == b'%' || google_set(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_until_stable() {
        // Rows from GoogleURLCanonicalizerTest's unescapeRepeatedly.
        let rows = [
            ("%!A%21%21%25", "%!A!!%"),
            ("%", "%"),
            ("%2", "%2"),
            ("%25", "%"),
            ("%25%", "%%"),
            ("%2525", "%"),
            ("%252525", "%"),
            ("%25%32%35", "%"),
        ];
        for (input, want) in rows {
            assert_eq!(decode_repeatedly(input), want.as_bytes(), "{input}");
        }
    }

    #[test]
    fn encodes_once() {
        assert_eq!(encode(b"a b%#\xff", google_set), "a%20b%25%23%FF");
    }
}
