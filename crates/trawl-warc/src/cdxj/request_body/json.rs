//! A request body's JSON read as Python's `json.loads` reads bytes, which is what the reference indexer does:
//! the encoding found as `json.detect_encoding` finds it (a UTF-8 BOM, UTF-16 and UTF-32 with or without
//! theirs), `NaN`, `Infinity` and `-Infinity` taken, an integer kept as its digits (a Python int, however
//! long), a float read correctly rounded, and each scalar written as Python's `str()` writes it.
//!
//! Written here rather than read with serde_json (review 84 R5): serde_json reads `-0` as a float, refuses
//! `NaN`, `Infinity`, `1e400` and a BOM, and hands over `1e20` and `100000000000000000000` alike, where Python
//! writes `0`, `nan`, `inf`, `1e+20` and the digits as written.

use std::borrow::Cow;

/// A JSON document as Python's `json` reads it: objects keep their members' order, a member named twice
/// keeps its first place and its last value; scalars as `str()` writes them.
pub(super) enum Json {
    Scalar(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

/// Why a text could not be read.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Failure {
    /// Python's `JSONDecodeError`: a body with a line break is then read as JSON lines.
    Syntax,
    /// Any other error, which ends the reading: text its encoding cannot decode, a lone surrogate (Python
    /// reads one, and fails when it writes the query), an integer of more than Python's 4,300 digits, or
    /// nesting past Python's recursion limit.
    Other,
}

/// Python's `sys.int_info.default_max_str_digits`: an int of more digits is refused.
const MAX_INT_DIGITS: usize = 4300;

/// How deep arrays and objects may nest before Python's recursion limit (1,000 frames, a few of them the
/// indexer's own) stops the reading: `cdxj-indexer -p` reads 984 levels and refuses 985 (review 86 R5).
const MAX_DEPTH: usize = 984;

/// `json.loads(bytes)`.
pub(super) fn loads(bytes: &[u8]) -> Result<Json, Failure> {
    let text = decode(bytes)?;
    let mut r = Reader {
        s: text.as_bytes(),
        at: 0,
        depth: 0,
    };
    let value = r.value()?;
    r.space();
    if r.at == r.s.len() {
        Ok(value)
    } else {
        Err(Failure::Syntax)
    }
}

/// The text of `b` as `json.detect_encoding` and `decode(…, 'surrogatepass')` give it; a BOM of UTF-8,
/// UTF-16 or UTF-32 left out.
fn decode(b: &[u8]) -> Result<Cow<'_, str>, Failure> {
    const UTF32_BE: &[u8] = &[0, 0, 0xFE, 0xFF];
    const UTF32_LE: &[u8] = &[0xFF, 0xFE, 0, 0];
    let (be, unit, body) = if b.starts_with(UTF32_BE) || b.starts_with(UTF32_LE) {
        (b.starts_with(UTF32_BE), 4, &b[4..])
    } else if b.starts_with(&[0xFE, 0xFF]) || b.starts_with(&[0xFF, 0xFE]) {
        (b[0] == 0xFE, 2, &b[2..])
    } else if let Some(rest) = b.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        return std::str::from_utf8(rest)
            .map(Cow::Borrowed)
            .map_err(|_| Failure::Other);
    } else if b.len() >= 4 && b[0] == 0 {
        (true, if b[1] != 0 { 2 } else { 4 }, b)
    } else if b.len() >= 4 && b[1] == 0 {
        (false, if b[2] != 0 || b[3] != 0 { 2 } else { 4 }, b)
    } else if b.len() == 2 && (b[0] == 0 || b[1] == 0) {
        (b[0] == 0, 2, b)
    } else {
        // UTF-8; `surrogatepass` would read an encoded surrogate, which Rust refuses: one is lone.
        return std::str::from_utf8(b)
            .map(Cow::Borrowed)
            .map_err(|_| Failure::Other);
    };
    if body.len() % unit != 0 {
        return Err(Failure::Other);
    }
    let number = |c: &[u8]| {
        let mut n = 0u32;
        for i in 0..unit {
            let byte = if be { c[i] } else { c[unit - 1 - i] };
            n = n << 8 | u32::from(byte);
        }
        n
    };
    let units = body.chunks(unit).map(number);
    let text: Option<String> = if unit == 2 {
        char::decode_utf16(units.map(|n| n as u16))
            .map(Result::ok)
            .collect()
    } else {
        units.map(char::from_u32).collect()
    };
    text.map(Cow::Owned).ok_or(Failure::Other)
}

/// A reader of JSON text as Python's scanner reads it.
struct Reader<'a> {
    s: &'a [u8],
    at: usize,
    depth: usize,
}

impl Reader<'_> {
    /// Python's JSON whitespace: space, tab, line feed, carriage return.
    fn space(&mut self) {
        while matches!(self.s.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// Takes `word` if the text goes on with it.
    fn take(&mut self, word: &[u8]) -> bool {
        let found = self.s[self.at..].starts_with(word);
        if found {
            self.at += word.len();
        }
        found
    }

    fn value(&mut self) -> Result<Json, Failure> {
        self.space();
        let scalar = |s: &str| Ok(Json::Scalar(s.to_owned()));
        let next = self.s.get(self.at).copied();
        match next {
            Some(b'"') => Ok(Json::Scalar(self.string()?)),
            Some(b'{') => self.nested(Self::object),
            Some(b'[') => self.nested(Self::array),
            _ if self.take(b"null") => scalar("None"),
            _ if self.take(b"true") => scalar("True"),
            _ if self.take(b"false") => scalar("False"),
            _ if self.take(b"NaN") => scalar("nan"),
            _ if self.take(b"Infinity") => scalar("inf"),
            _ if self.take(b"-Infinity") => scalar("-inf"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(Failure::Syntax),
        }
    }

    /// An object or array one level deeper.
    fn nested(&mut self, read: fn(&mut Self) -> Result<Json, Failure>) -> Result<Json, Failure> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Failure::Other);
        }
        self.at += 1;
        let value = read(self);
        self.depth -= 1;
        value
    }

    fn object(&mut self) -> Result<Json, Failure> {
        let mut members: Vec<(String, Json)> = Vec::new();
        let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        self.space();
        if self.take(b"}") {
            return Ok(Json::Object(members));
        }
        loop {
            self.space();
            if self.s.get(self.at) != Some(&b'"') {
                return Err(Failure::Syntax);
            }
            let name = self.string()?;
            self.space();
            if !self.take(b":") {
                return Err(Failure::Syntax);
            }
            let value = self.value()?;
            match at.get(&name) {
                Some(&i) => members[i].1 = value,
                None => {
                    at.insert(name.clone(), members.len());
                    members.push((name, value));
                }
            }
            self.space();
            if self.take(b"}") {
                return Ok(Json::Object(members));
            }
            if !self.take(b",") {
                return Err(Failure::Syntax);
            }
        }
    }

    fn array(&mut self) -> Result<Json, Failure> {
        let mut items = Vec::new();
        self.space();
        if self.take(b"]") {
            return Ok(Json::Array(items));
        }
        loop {
            items.push(self.value()?);
            self.space();
            if self.take(b"]") {
                return Ok(Json::Array(items));
            }
            if !self.take(b",") {
                return Err(Failure::Syntax);
            }
        }
    }

    /// A string, the reader at its opening quote.
    fn string(&mut self) -> Result<String, Failure> {
        self.at += 1;
        let mut out = Vec::new();
        loop {
            let Some(&b) = self.s.get(self.at) else {
                return Err(Failure::Syntax);
            };
            self.at += 1;
            match b {
                b'"' => break,
                // Python's strict mode: no control character as it is.
                0..0x20 => return Err(Failure::Syntax),
                b'\\' => {
                    let Some(&e) = self.s.get(self.at) else {
                        return Err(Failure::Syntax);
                    };
                    self.at += 1;
                    let c = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.escaped_char()?,
                        _ => return Err(Failure::Syntax),
                    };
                    let mut buf = [0; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                b => out.push(b),
            }
        }
        // The text is UTF-8 and escapes add whole characters.
        String::from_utf8(out).map_err(|_| Failure::Other)
    }

    /// The character of a `\u` escape (a surrogate pair's two), the reader after its `u`.
    fn escaped_char(&mut self) -> Result<char, Failure> {
        let first = self.hex4()?;
        if (0xD800..0xDC00).contains(&first) && self.s[self.at..].starts_with(b"\\u") {
            let at = self.at;
            self.at += 2;
            let second = self.hex4()?;
            if (0xDC00..0xE000).contains(&second) {
                let c = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                return char::from_u32(c).ok_or(Failure::Other);
            }
            self.at = at;
        }
        char::from_u32(first).ok_or(Failure::Other)
    }

    /// Four hex digits.
    fn hex4(&mut self) -> Result<u32, Failure> {
        let digits = self.s.get(self.at..self.at + 4).ok_or(Failure::Syntax)?;
        let mut n = 0;
        for &d in digits {
            n = n * 16 + (d as char).to_digit(16).ok_or(Failure::Syntax)?;
        }
        self.at += 4;
        Ok(n)
    }

    /// A number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?`, an int without a fraction or an exponent.
    fn number(&mut self) -> Result<Json, Failure> {
        let start = self.at;
        let digits = |r: &mut Self| {
            let from = r.at;
            while r.s.get(r.at).is_some_and(u8::is_ascii_digit) {
                r.at += 1;
            }
            r.at - from
        };
        self.take(b"-");
        match self.s.get(self.at) {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(Failure::Syntax),
        }
        let int_end = self.at;
        if self.s.get(self.at) == Some(&b'.')
            && self.s.get(self.at + 1).is_some_and(u8::is_ascii_digit)
        {
            self.at += 1;
            digits(self);
        }
        if matches!(self.s.get(self.at), Some(b'e' | b'E')) {
            let at = self.at;
            self.at += 1;
            if matches!(self.s.get(self.at), Some(b'-' | b'+')) {
                self.at += 1;
            }
            if digits(self) == 0 {
                self.at = at;
            }
        }
        // Only ASCII was read.
        let literal = std::str::from_utf8(&self.s[start..self.at]).map_err(|_| Failure::Other)?;
        if self.at == int_end {
            let magnitude = literal.trim_start_matches('-');
            if magnitude.len() > MAX_INT_DIGITS {
                return Err(Failure::Other);
            }
            // A Python int: `-0` is 0.
            let int = if magnitude == "0" { "0" } else { literal };
            return Ok(Json::Scalar(int.to_owned()));
        }
        let v: f64 = literal.parse().map_err(|_| Failure::Syntax)?;
        Ok(Json::Scalar(python_float(v)))
    }
}

/// Python's `repr` of a float: the shortest digits that read back, in fixed notation for exponents from -4
/// to 15 (`100.0`, `0.0001`), else scientific with a signed exponent of at least two digits (`1e+16`,
/// `1.5e-05`).
pub(super) fn python_float(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.into();
    }
    let sci = format!("{v:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if (-4..16).contains(&exp) {
        let point = exp + 1;
        let (int, frac) = if point <= 0 {
            (
                "0".to_owned(),
                format!("{}{digits}", "0".repeat((-point) as usize)),
            )
        } else if point as usize >= digits.len() {
            (
                format!("{digits}{}", "0".repeat(point as usize - digits.len())),
                String::new(),
            )
        } else {
            (
                digits[..point as usize].to_owned(),
                digits[point as usize..].to_owned(),
            )
        };
        let frac = if frac.is_empty() {
            "0".to_owned()
        } else {
            frac
        };
        format!("{sign}{int}.{frac}")
    } else {
        let frac = &digits[1..];
        let dot = if frac.is_empty() {
            String::new()
        } else {
            format!(".{frac}")
        };
        let exp_sign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{}{dot}e{exp_sign}{:02}", &digits[..1], exp.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A JSON value as serde_json writes one.
    fn doc() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::Bool),
            any::<i64>().prop_map(|n| serde_json::json!(n)),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(|f| serde_json::json!(f)),
            ".{0,12}".prop_map(serde_json::Value::String),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
                prop::collection::vec((".{0,6}", inner), 0..6)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// Whatever JSON serde_json writes, compact or pretty, is read, with each float as it wrote it.
        #[test]
        fn any_json_written_is_read(v in doc(), pretty in any::<bool>()) {
            let text = if pretty {
                serde_json::to_string_pretty(&v).unwrap()
            } else {
                serde_json::to_string(&v).unwrap()
            };
            prop_assert!(loads(text.as_bytes()).is_ok(), "{text}");
        }

        /// Any bytes are read or refused, never a panic.
        #[test]
        fn any_bytes_are_read_or_refused(b in prop::collection::vec(any::<u8>(), 0..200)) {
            let _ = loads(&b);
        }
    }

    #[test]
    fn numbers_are_pythons() {
        let scalar = |text: &str| match loads(text.as_bytes()) {
            Ok(Json::Scalar(s)) => s,
            _ => panic!("{text}"),
        };
        assert_eq!(scalar("-0"), "0");
        assert_eq!(scalar("-0.0"), "-0.0");
        assert_eq!(scalar("1e20"), "1e+20");
        assert_eq!(scalar("100000000000000000000"), "100000000000000000000");
        assert_eq!(scalar("1e400"), "inf");
        assert_eq!(scalar("-Infinity"), "-inf");
        assert_eq!(scalar("223221110.21323866"), "223221110.21323866");
        assert_eq!(loads(b"01").err(), Some(Failure::Syntax));
        assert_eq!(
            loads("9".repeat(4301).as_bytes()).err(),
            Some(Failure::Other)
        );
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert_eq!(loads(deep.as_bytes()).err(), Some(Failure::Other));
    }
}
