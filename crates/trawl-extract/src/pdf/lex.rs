//! Counting a PDF's objects before lopdf builds them, and reading a page's text without building its
//! operations: the bounds of [`super::MAX_OBJECTS`] and of a page's text.
//!
//! lopdf keeps every object of a document in memory, each number, name or string as an `Object` of over a
//! hundred bytes, so a file of `0 0 0 ...` (2 bytes an object) costs some 60 times its size. These scans count
//! a generous upper bound of the objects lopdf would build, so a document over the budget is never handed to it.

use memchr::memmem;

/// PDF white space.
fn is_space(b: u8) -> bool {
    matches!(b, 0 | b'\t' | b'\n' | 0x0c | b'\r' | b' ')
}

/// PDF delimiters.
fn is_delimiter(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

fn is_regular(b: u8) -> bool {
    !is_space(b) && !is_delimiter(b)
}

/// Where a lexer stands: in tokens, in a comment, or in a literal string (nesting depth, after a backslash).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lex {
    Normal,
    Comment,
    Str { depth: u32, escape: bool },
}

impl Lex {
    fn step(self, b: u8) -> Lex {
        match self {
            Lex::Normal => match b {
                b'%' => Lex::Comment,
                b'(' => Lex::Str {
                    depth: 1,
                    escape: false,
                },
                _ => Lex::Normal,
            },
            Lex::Comment if b == b'\r' || b == b'\n' => Lex::Normal,
            Lex::Comment => Lex::Comment,
            Lex::Str {
                depth,
                escape: true,
            } => Lex::Str {
                depth,
                escape: false,
            },
            Lex::Str { depth, .. } => match b {
                b'\\' => Lex::Str {
                    depth,
                    escape: true,
                },
                b'(' => Lex::Str {
                    depth: depth.saturating_add(1),
                    escape: false,
                },
                b')' if depth <= 1 => Lex::Normal,
                b')' => Lex::Str {
                    depth: depth - 1,
                    escape: false,
                },
                _ => Lex::Str {
                    depth,
                    escape: false,
                },
            },
        }
    }
}

/// How many lexer states [`raw_tokens`] follows at once before it stops skipping anything.
const MAX_STATES: usize = 8;

/// The next position at or after `from` where `finder`'s needle starts, remembered in `cached` so each needle
/// is searched for once per occurrence (the scan stays linear however many streams the file holds).
fn next_at(
    finder: &memmem::Finder<'_>,
    buf: &[u8],
    from: usize,
    cached: &mut Option<usize>,
) -> usize {
    match *cached {
        Some(at) if at >= from => at,
        _ => {
            let at = finder.find(&buf[from..]).map_or(buf.len(), |at| from + at);
            *cached = Some(at);
            at
        }
    }
}

/// An upper bound of the objects lopdf builds from the raw bytes of `buf` (outside object streams): every
/// delimiter and every run of regular characters counts, strings and comments included, except inside stream
/// bodies and cross-reference tables, which lopdf does not read as objects. `None` once the count is over
/// `budget`.
///
/// lopdf starts reading objects only after an `obj` or `trailer` keyword, wherever an offset points. So a
/// stream body or table is skipped only while every lexer state that such a start could have left open (in a
/// string, in a comment) agrees the `stream` or `xref` keyword is one, and an `obj` or `trailer` inside a
/// skipped body resumes counting there.
pub(super) fn raw_tokens(buf: &[u8], budget: usize) -> Option<usize> {
    let stream_end = memmem::Finder::new(b"endstream");
    let obj = memmem::Finder::new(b"obj");
    let trailer = memmem::Finder::new(b"trailer");
    let (mut next_end, mut next_obj, mut next_trailer) = (None, None, None);
    let mut states: Vec<Lex> = vec![Lex::Normal];
    let mut saturated = false;
    let mut tokens = 0usize;
    let mut i = 0;
    let mut prev_regular = false;
    while i < buf.len() {
        let b = buf[i];
        if is_delimiter(b) {
            tokens += 1;
            prev_regular = false;
        } else if is_regular(b) {
            if !prev_regular {
                tokens += 1;
                let rest = &buf[i..];
                let settled = !saturated && states.len() == 1 && states[0] == Lex::Normal;
                let stream =
                    rest.starts_with(b"stream") && matches!(rest.get(6), Some(b'\r' | b'\n'));
                let xref = rest.starts_with(b"xref") && rest.get(4).is_some_and(|&c| is_space(c));
                if settled && (stream || xref) {
                    // Skip to the body's end, or to where lopdf could start reading objects inside it.
                    let from = i + if stream { 6 } else { 4 };
                    let end = if stream {
                        next_at(&stream_end, buf, from, &mut next_end) + b"endstream".len()
                    } else {
                        usize::MAX
                    };
                    let resync = next_at(&obj, buf, from, &mut next_obj)
                        .saturating_add(3)
                        .min(next_at(&trailer, buf, from, &mut next_trailer).saturating_add(7));
                    i = end.min(resync).min(buf.len());
                    prev_regular = true;
                    continue;
                }
            }
            prev_regular = true;
        } else {
            prev_regular = false;
        }
        if tokens > budget {
            return None;
        }
        for state in states.iter_mut() {
            *state = state.step(b);
        }
        let started =
            (i >= 2 && &buf[i - 2..=i] == b"obj") || (i >= 6 && &buf[i - 6..=i] == b"trailer");
        if started {
            states.push(Lex::Normal);
        }
        if states.len() > 1 {
            states.sort_unstable_by_key(|s| match *s {
                Lex::Normal => (0, 0, false),
                Lex::Comment => (1, 0, false),
                Lex::Str { depth, escape } => (2, depth, escape),
            });
            states.dedup();
        }
        if states.len() > MAX_STATES {
            saturated = true;
            states.truncate(1);
        }
        i += 1;
    }
    Some(tokens)
}

/// An upper bound of the objects lopdf builds from the object stream `content` (decoded) whose objects start
/// at `first`: lopdf reads one object at each offset its index lists, as often as it is listed, so each is
/// counted as often. `None` once the count is over `budget`.
pub(super) fn object_stream_tokens(content: &[u8], first: usize, budget: usize) -> Option<usize> {
    let Some(index) = content.get(..first) else {
        return Some(0);
    };
    let mut numbers = index
        .split(|&b| b == b'\r' || b == b'\n')
        .flat_map(|line| {
            let line = line.split(|&b| b == b'%').next().unwrap_or_default();
            line.split(|&b| is_space(b)).filter(|w| !w.is_empty())
        })
        .map(|w| std::str::from_utf8(w).ok()?.parse::<u32>().ok());
    let mut tokens = 0usize;
    while let (Some(id), Some(offset)) = (numbers.next(), numbers.next()) {
        // The index entry itself: lopdf holds it while reading.
        tokens += 1;
        if let (Some(_), Some(offset)) = (id, offset)
            && let Some(at) = first.checked_add(offset as usize)
            && at < content.len()
        {
            tokens += object_tokens(&content[at..], budget.saturating_sub(tokens));
        }
        if tokens > budget {
            return None;
        }
    }
    Some(tokens)
}

/// Where the name `/NAME` is written in `buf`, in any spelling (`#xx` escapes decoded, as lopdf reads
/// names): each range covers the slash and the name's bytes. Found anywhere, strings and streams included,
/// so no spelling a parser could read as the name is missed.
pub(super) fn names(buf: &[u8], name: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut found = Vec::new();
    for slash in memchr::memchr_iter(b'/', buf) {
        let start = slash + 1;
        let end = buf[start..]
            .iter()
            .position(|&b| !is_regular(b))
            .map_or(buf.len(), |n| start + n);
        if end - start >= name.len() && decoded_name(&buf[start..end]) == name {
            found.push(slash..end);
        }
    }
    found
}

/// A name's bytes with its `#xx` escapes decoded (a `#` not followed by two hex digits stays).
fn decoded_name(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let hex = |at: usize| raw.get(at).and_then(|&b| (b as char).to_digit(16));
        match (raw[i], hex(i + 1), hex(i + 2)) {
            (b'#', Some(hi), Some(lo)) => {
                out.push((hi * 16 + lo) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

/// The tokens of the one object at the start of `input` (after white space and comments), as lopdf reads it:
/// strings, comments and brackets as its parser sees them, so the object ends where lopdf's does. Stops
/// counting past `budget`.
fn object_tokens(input: &[u8], budget: usize) -> usize {
    let mut tokens = 0usize;
    let mut depth = 0usize;
    let mut i = 0;
    while i < input.len() && tokens <= budget {
        let b = input[i];
        if is_space(b) {
            i += 1;
            continue;
        }
        match b {
            b'%' => {
                i = skip_comment(input, i);
                continue;
            }
            b'(' => i = skip_string(input, i),
            b'<' if input.get(i + 1) == Some(&b'<') => {
                depth += 1;
                i += 2;
            }
            b'<' => {
                i = memchr::memchr(b'>', &input[i..]).map_or(input.len(), |at| i + at + 1);
            }
            b'>' if input.get(i + 1) == Some(&b'>') => {
                depth = depth.saturating_sub(1);
                i += 2;
            }
            b'[' => {
                depth += 1;
                i += 1;
            }
            b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'/' => {
                i += 1;
                while i < input.len() && is_regular(input[i]) {
                    i += 1;
                }
            }
            _ if is_regular(b) => {
                while i < input.len() && is_regular(input[i]) {
                    i += 1;
                }
            }
            _ => i += 1,
        }
        tokens += 1;
        if depth == 0 {
            break;
        }
    }
    tokens
}

/// Past the comment starting at `i`: its end of line.
fn skip_comment(input: &[u8], i: usize) -> usize {
    memchr::memchr2(b'\r', b'\n', &input[i..]).map_or(input.len(), |at| i + at)
}

/// Past the literal string starting at `i` (an opening parenthesis): nested parentheses balance, a backslash
/// escapes the next byte.
fn skip_string(input: &[u8], i: usize) -> usize {
    let mut state = Lex::Normal.step(b'(');
    let mut j = i + 1;
    while j < input.len() {
        state = state.step(input[j]);
        j += 1;
        if state == Lex::Normal {
            break;
        }
    }
    j
}

/// What a page's content stream shows as text, read one token at a time (lopdf would build every operation
/// first): the strings of `Tj`, `TJ`, `'` and `"`, decoded with the font the last `Tf` chose, a line break at
/// `T*`, `'`, `"`, `ET`, `Tm` and a `Td`/`TD` that moves to another line (most producers place every line with
/// one of those, and a URL ending a line must not run into the next line's first word), a space for a `TJ` adjustment below -100 and after a `TJ` array, as lopdf's own text
/// extraction does. `decode` turns a font name and a string into text (`None`: no such font); `chunk` gets
/// the text of each run in one font; `should_stop` is asked now and then whether to give up.
pub(super) fn page_text(
    content: &[u8],
    mut decode: impl FnMut(&[u8], &[u8]) -> Option<String>,
    mut chunk: impl FnMut(&str),
    mut should_stop: impl FnMut() -> bool,
) -> bool {
    let mut font: Option<Vec<u8>> = None;
    let mut first_name: Option<Vec<u8>> = None;
    let mut pending = String::new();
    let mut text = String::new();
    let mut depth = 0usize;
    // The last number operand seen since the last operator: a `Td`/`TD`'s vertical move.
    let mut last_number = 0.0f64;
    let mut i = 0;
    let mut checked = 0;
    while i < content.len() {
        if i - checked > 1 << 16 {
            checked = i;
            if should_stop() {
                chunk(&text);
                return false;
            }
        }
        let b = content[i];
        if is_space(b) {
            i += 1;
            continue;
        }
        match b {
            b'%' => i = skip_comment(content, i),
            b'(' => {
                let end = skip_string(content, i);
                let raw = unescape(&content[i + 1..end.saturating_sub(1).max(i + 1)]);
                show(&font, &raw, &mut decode, &mut pending);
                i = end;
            }
            b'<' if content.get(i + 1) == Some(&b'<') => i += 2,
            b'<' => {
                let end = memchr::memchr(b'>', &content[i..]).map_or(content.len(), |at| i + at);
                let raw = unhex(&content[i + 1..end]);
                show(&font, &raw, &mut decode, &mut pending);
                i = (end + 1).min(content.len());
            }
            b'[' => {
                depth += 1;
                i += 1;
            }
            b']' => {
                depth = depth.saturating_sub(1);
                pending.push(' ');
                i += 1;
            }
            b'/' => {
                let start = i + 1;
                i = start;
                while i < content.len() && is_regular(content[i]) {
                    i += 1;
                }
                if first_name.is_none() {
                    first_name = Some(content[start..i].to_vec());
                }
            }
            _ if is_regular(b) => {
                let start = i;
                while i < content.len() && is_regular(content[i]) {
                    i += 1;
                }
                let word = &content[start..i];
                if let Some(number) = std::str::from_utf8(word)
                    .ok()
                    .and_then(|w| w.parse::<f64>().ok())
                {
                    if depth > 0 && number < -100.0 {
                        pending.push(' ');
                    }
                    last_number = number;
                    continue;
                }
                if matches!(word, b"true" | b"false" | b"null") {
                    continue;
                }
                match word {
                    b"Tf" => {
                        if !text.is_empty() {
                            chunk(&text);
                            text.clear();
                        }
                        font = first_name.take();
                    }
                    b"Tj" | b"TJ" => text.push_str(&pending),
                    b"'" | b"\"" => {
                        if !text.ends_with('\n') {
                            text.push('\n');
                        }
                        text.push_str(&pending);
                    }
                    b"T*" | b"ET" if !text.ends_with('\n') => text.push('\n'),
                    b"Tm" if !text.is_empty() && !text.ends_with('\n') => text.push('\n'),
                    b"Td" | b"TD"
                        if last_number != 0.0 && !text.is_empty() && !text.ends_with('\n') =>
                    {
                        text.push('\n');
                    }
                    // Inline image data runs to an `EI` between white space.
                    b"ID" => i = inline_image_end(content, i),
                    _ => {}
                }
                pending.clear();
                first_name = None;
                depth = 0;
                last_number = 0.0;
            }
            _ => i += 1,
        }
    }
    if !text.is_empty() {
        chunk(&text);
    }
    true
}

/// Decodes `raw` with `font` into `pending`, when there is a font.
fn show(
    font: &Option<Vec<u8>>,
    raw: &[u8],
    decode: &mut impl FnMut(&[u8], &[u8]) -> Option<String>,
    pending: &mut String,
) {
    if let Some(font) = font
        && let Some(text) = decode(font, raw)
    {
        pending.push_str(&text);
    }
}

/// Past the inline image data that starts at `i` (after `ID`).
fn inline_image_end(content: &[u8], i: usize) -> usize {
    let mut at = i;
    while let Some(found) = memmem::find(&content[at..], b"EI") {
        let pos = at + found;
        let before = pos == 0 || is_space(content[pos - 1]);
        let after = content.get(pos + 2).is_none_or(|&c| is_space(c));
        if before && after {
            return pos + 2;
        }
        at = pos + 2;
    }
    content.len()
}

/// The bytes of a literal string's body.
fn unescape(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        let b = body[i];
        i += 1;
        if b != b'\\' {
            out.push(b);
            continue;
        }
        let Some(&c) = body.get(i) else { break };
        i += 1;
        match c {
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'0'..=b'7' => {
                let mut value = u32::from(c - b'0');
                for _ in 0..2 {
                    match body.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            value = value * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                out.push((value & 0xff) as u8);
            }
            b'\r' => {
                if body.get(i) == Some(&b'\n') {
                    i += 1;
                }
            }
            b'\n' => {}
            other => out.push(other),
        }
    }
    out
}

/// The bytes of a hexadecimal string's body (white space ignored, an odd last digit followed by 0).
fn unhex(body: &[u8]) -> Vec<u8> {
    let digits: Vec<u8> = body
        .iter()
        .filter_map(|&b| (b as char).to_digit(16).map(|d| d as u8))
        .collect();
    digits
        .chunks(2)
        .map(|pair| (pair[0] << 4) | pair.get(1).copied().unwrap_or(0))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_tokens_skip_streams_but_not_strings_that_say_stream() {
        let plain = b"1 0 obj\n<< /Length 5 >>\nstream\n0 0 0 0 0 0 0\nendstream\nendobj\n";
        // 1, 0, obj, <, <, /, Length, 5, >, >, stream, endobj: the body is skipped.
        assert_eq!(raw_tokens(plain, 100), Some(12));
        // A stream keyword inside a string that an object started inside another string leaves open.
        let forged = b"1 0 obj (2 0 obj [ ( >> stream\n ) 0 0 0 0 0 0 0 0 ] endobj";
        assert!(raw_tokens(forged, 100).unwrap() > 10);
        // An object an offset could point at inside a stream body is counted.
        let inside = b"<<>> stream\n junk 9 0 obj [0 0 0 0 0 0 0 0 0 0] endstream";
        assert!(raw_tokens(inside, 100).unwrap() >= 12);
        assert_eq!(raw_tokens(&b"0 ".repeat(1000), 100), None);
    }

    #[test]
    fn object_stream_tokens_count_each_listed_object() {
        let content = b"1 0 2 0 3 8 [0 0 0] 7";
        assert_eq!(object_stream_tokens(content, 12, 100), Some(3 + 5 + 5 + 1));
        assert_eq!(object_stream_tokens(content, 12, 10), None);
        assert_eq!(object_stream_tokens(content, 1000, 10), Some(0));
    }

    #[test]
    fn page_text_reads_shown_strings() {
        let content = b"BT /F1 12 Tf (see http://a.org/x\\)) Tj [(ht) -200 (tp://b.org)] TJ T* <68 69> Tj ET \
                        BI /W 1 ID \x00(\xff EI /F2 9 Tf (skip) Tj";
        let mut chunks = Vec::new();
        let done = page_text(
            content,
            |font, raw| (font == b"F1").then(|| String::from_utf8_lossy(raw).into_owned()),
            |text| chunks.push(text.to_string()),
            || false,
        );
        assert!(done);
        assert_eq!(chunks, ["see http://a.org/x)ht tp://b.org \nhi\n"]);
    }

    /// Lines placed with `Td`, `TD` or `Tm` are lines: a URL at the end of one does not take the next line's
    /// first word. A `Td` that stays on the line (ty 0) adds nothing.
    #[test]
    fn line_moves_break_lines() {
        let content = b"BT /F1 12 Tf 72 720 Td (More at http://a.org/report.html) Tj 0 -14 Td (Chapter 2) Tj \
                        0 -14.5 TD (http://a.org/b) Tj 1 0 0 1 72 600 Tm (next) Tj 20 0 Td (same) Tj ET";
        let mut chunks = Vec::new();
        page_text(
            content,
            |_, raw| Some(String::from_utf8_lossy(raw).into_owned()),
            |text| chunks.push(text.to_string()),
            || false,
        );
        assert_eq!(
            chunks,
            ["More at http://a.org/report.html\nChapter 2\nhttp://a.org/b\nnextsame\n"]
        );
    }

    proptest::proptest! {
        /// A name is found however its bytes are escaped, and a longer name holding it is not.
        #[test]
        fn names_are_found_in_every_spelling(escapes in proptest::collection::vec(proptest::bool::ANY, 7)) {
            let spelled: String = b"Encrypt"
                .iter()
                .zip(&escapes)
                .map(|(&b, &escape)| if escape { format!("#{b:02X}") } else { (b as char).to_string() })
                .collect();
            let text = format!("<< /{spelled} 5 0 R /{spelled}ed 1 >>");
            let found = names(text.as_bytes(), b"Encrypt");
            let found: Vec<_> = found.iter().map(|r| (r.start, r.end)).collect();
            proptest::prop_assert_eq!(found, [(3, 4 + spelled.len())]);
        }
    }
}
