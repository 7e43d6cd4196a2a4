//! String converters: a list of steps that turn one string into another (hydrus's `StringConverter`).
//!
//! URL classes use one to derive the API URL from the normalised URL, but a converter stands alone:
//!
//! ```
//! use trawl_url::class::{ConverterStep, StringConverter};
//! let c = StringConverter::new(vec![
//!     ConverterStep::RegexSub { pattern: r"(.+)\.html$".into(), replace: "${1}.json".into() },
//!     ConverterStep::AddInteger(1),
//! ])
//! .unwrap();
//! assert_eq!(c.convert("https://example.com/page/4.html").unwrap(), "https://example.com/page/5.json");
//! ```

use data_encoding::{BASE64, BASE64_NOPAD, HEXLOWER, HEXLOWER_PERMISSIVE};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use serde::{Deserialize, Serialize};

use super::error::{ConverterError, StepError};
use super::pattern::Pattern;

/// Everything but RFC 3986's unreserved characters, as Python's `quote(s, safe='')` encodes.
const PERCENT_ENCODE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// One step of a [`StringConverter`], in the TOML form `{ prepend = "x" }`, `{ remove_start = 3 }`,
/// `"reverse"`, `{ regex_sub = { pattern = "…", replace = "…" } }`, `{ encode = "base64" }`, `{ hash = "sha256" }`.
///
/// Counts are in characters (Unicode scalar values), not bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
#[non_exhaustive]
pub enum ConverterStep {
    /// Put this text before the string.
    Prepend(String),
    /// Put this text after the string.
    Append(String),
    /// Remove this many characters from the start (all of them if the string is shorter).
    RemoveStart(usize),
    /// Remove this many characters from the end (all of them if the string is shorter).
    RemoveEnd(usize),
    /// Keep only this many characters from the start.
    KeepStart(usize),
    /// Keep only this many characters from the end.
    KeepEnd(usize),
    /// Reverse the characters.
    Reverse,
    /// Replace every match of `pattern` with `replace`, where `$1`, `${1}` and `${name}` expand capture groups.
    RegexSub {
        /// The regex (the `regex` crate's syntax; look-around falls back to `fancy-regex`).
        pattern: String,
        /// The replacement text.
        replace: String,
    },
    /// Encode the string.
    Encode(Encoding),
    /// Decode the string; bytes that are not UTF-8 become U+FFFD.
    Decode(Encoding),
    /// Add this to the first run of ASCII digits in the string (`page4` + 1 = `page5`).
    AddInteger(i64),
    /// Replace the string by the lowercase hex digest of its UTF-8 bytes.
    Hash(HashFunction),
}

/// An encoding for [`ConverterStep::Encode`] and [`ConverterStep::Decode`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Encoding {
    /// URL percent-encoding of everything but `A–Z a–z 0–9 - . _ ~`.
    Percent,
    /// Standard base64 with padding (decoding also accepts it without padding).
    Base64,
    /// Lowercase hexadecimal (decoding accepts either case).
    Hex,
}

/// A hash function for [`ConverterStep::Hash`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum HashFunction {
    /// MD5.
    Md5,
    /// SHA-1.
    Sha1,
    /// SHA-256.
    Sha256,
    /// SHA-512.
    Sha512,
}

/// A compiled list of [`ConverterStep`]s, applied in order.
#[derive(Debug, Clone)]
pub struct StringConverter {
    steps: Vec<ConverterStep>,
    patterns: Vec<Option<Pattern>>,
}

impl StringConverter {
    /// Compiles the steps; fails if a `regex_sub` pattern is not a valid regex.
    pub fn new(steps: Vec<ConverterStep>) -> Result<Self, ConverterError> {
        let patterns =
            steps
                .iter()
                .enumerate()
                .map(|(i, step)| match step {
                    ConverterStep::RegexSub { pattern, .. } => Pattern::new(pattern)
                        .map(Some)
                        .map_err(|e| ConverterError::BadPattern {
                            step: i,
                            pattern: e.pattern,
                            reason: e.reason,
                        }),
                    _ => Ok(None),
                })
                .collect::<Result<_, _>>()?;
        Ok(Self { steps, patterns })
    }

    /// The steps as given.
    pub fn steps(&self) -> &[ConverterStep] {
        &self.steps
    }

    /// Whether the converter has no steps (and so returns its input unchanged).
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Applies every step in order.
    pub fn convert(&self, input: &str) -> Result<String, ConverterError> {
        let mut s = input.to_owned();
        for (i, step) in self.steps.iter().enumerate() {
            s = apply(step, self.patterns[i].as_ref(), s).map_err(
                |(step_name, input, reason)| ConverterError::Failed {
                    step: i,
                    step_name,
                    input,
                    reason,
                },
            )?;
        }
        Ok(s)
    }
}

type StepFailure = (&'static str, String, StepError);

fn apply(
    step: &ConverterStep,
    pattern: Option<&Pattern>,
    s: String,
) -> Result<String, StepFailure> {
    let n_chars = || s.chars().count();
    Ok(match step {
        ConverterStep::Prepend(text) => format!("{text}{s}"),
        ConverterStep::Append(text) => s + text,
        ConverterStep::RemoveStart(n) => s.chars().skip(*n).collect(),
        ConverterStep::RemoveEnd(n) => s.chars().take(n_chars().saturating_sub(*n)).collect(),
        ConverterStep::KeepStart(n) => s.chars().take(*n).collect(),
        ConverterStep::KeepEnd(n) => s.chars().skip(n_chars().saturating_sub(*n)).collect(),
        ConverterStep::Reverse => s.chars().rev().collect(),
        ConverterStep::RegexSub { replace, .. } => {
            let pattern = pattern.expect("regex_sub steps are compiled in new");
            pattern
                .replace_all(&s, replace)
                .map_err(|reason| ("regex_sub", s.clone(), reason))?
        }
        ConverterStep::Encode(Encoding::Percent) => {
            utf8_percent_encode(&s, PERCENT_ENCODE).to_string()
        }
        ConverterStep::Encode(Encoding::Base64) => BASE64.encode(s.as_bytes()),
        ConverterStep::Encode(Encoding::Hex) => HEXLOWER.encode(s.as_bytes()),
        ConverterStep::Decode(Encoding::Percent) => {
            percent_decode_str(&s).decode_utf8_lossy().into_owned()
        }
        ConverterStep::Decode(Encoding::Base64) => {
            let bytes = BASE64
                .decode(s.as_bytes())
                .or_else(|_| BASE64_NOPAD.decode(s.as_bytes()))
                .map_err(|e| ("decode", s.clone(), not_encoded("base64", e)))?;
            String::from_utf8_lossy(&bytes).into_owned()
        }
        ConverterStep::Decode(Encoding::Hex) => {
            let bytes = HEXLOWER_PERMISSIVE
                .decode(s.as_bytes())
                .map_err(|e| ("decode", s.clone(), not_encoded("hex", e)))?;
            String::from_utf8_lossy(&bytes).into_owned()
        }
        ConverterStep::AddInteger(delta) => {
            add_integer(&s, *delta).map_err(|r| ("add_integer", s.clone(), r))?
        }
        ConverterStep::Hash(function) => hash(*function, &s),
    })
}

/// Adds `delta` to the first run of ASCII digits; fails if there is no such run or the sum overflows.
pub(crate) fn add_integer(s: &str, delta: i64) -> Result<String, StepError> {
    let start = s
        .find(|c: char| c.is_ascii_digit())
        .ok_or(StepError::NoNumber)?;
    let len = s[start..]
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(s.len() - start);
    let digits = &s[start..start + len];
    let sum = digits
        .parse::<i64>()
        .ok()
        .and_then(|n| n.checked_add(delta))
        .ok_or_else(|| StepError::Overflow {
            number: digits.to_owned(),
            delta,
        })?;
    Ok(format!("{}{sum}{}", &s[..start], &s[start + len..]))
}

fn not_encoded(encoding: &'static str, e: data_encoding::DecodeError) -> StepError {
    StepError::NotEncoded {
        encoding,
        reason: e.to_string(),
    }
}

fn hash(function: HashFunction, s: &str) -> String {
    use sha2::Digest;
    let bytes = s.as_bytes();
    match function {
        HashFunction::Md5 => HEXLOWER.encode(&md5::Md5::digest(bytes)),
        HashFunction::Sha1 => HEXLOWER.encode(&sha1::Sha1::digest(bytes)),
        HashFunction::Sha256 => HEXLOWER.encode(&sha2::Sha256::digest(bytes)),
        HashFunction::Sha512 => HEXLOWER.encode(&sha2::Sha512::digest(bytes)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn conv(step: ConverterStep, input: &str) -> String {
        StringConverter::new(vec![step])
            .unwrap()
            .convert(input)
            .unwrap()
    }

    macro_rules! step {
        ($name:ident: $step:expr, $input:expr => $want:expr) => {
            #[test]
            fn $name() {
                assert_eq!(conv($step, $input), $want);
            }
        };
    }

    use ConverterStep as S;
    step!(prepend: S::Prepend("https://".into()), "x.org" => "https://x.org");
    step!(append: S::Append(".json".into()), "/posts/1" => "/posts/1.json");
    step!(remove_start: S::RemoveStart(2), "héllo" => "llo");
    step!(remove_start_too_many: S::RemoveStart(9), "abc" => "");
    step!(remove_end: S::RemoveEnd(2), "hellö" => "hel");
    step!(remove_end_zero: S::RemoveEnd(0), "abc" => "abc");
    step!(remove_end_too_many: S::RemoveEnd(9), "abc" => "");
    step!(keep_start: S::KeepStart(2), "héllo" => "hé");
    step!(keep_start_too_many: S::KeepStart(9), "abc" => "abc");
    step!(keep_end: S::KeepEnd(3), "hellö" => "llö");
    step!(keep_end_zero: S::KeepEnd(0), "abc" => "");
    step!(reverse: S::Reverse, "abç" => "çba");
    step!(regex_sub_all: S::RegexSub { pattern: "a".into(), replace: "b".into() }, "banana" => "bbnbnb");
    step!(regex_sub_groups: S::RegexSub { pattern: r"(.+)html".into(), replace: "${1}json".into() },
        "https://x.org/a.html" => "https://x.org/a.json");
    step!(regex_sub_look_ahead: S::RegexSub { pattern: r"\d+(?=\.)".into(), replace: "N".into() },
        "v12.34" => "vN.34");
    step!(encode_percent: S::Encode(Encoding::Percent), "a b/c?d=é~_.-" => "a%20b%2Fc%3Fd%3D%C3%A9~_.-");
    step!(decode_percent: S::Decode(Encoding::Percent), "a%20b%2Fc%C3%A9%ff" => "a b/cé\u{fffd}");
    step!(encode_base64: S::Encode(Encoding::Base64), "hydrus" => "aHlkcnVz");
    step!(decode_base64: S::Decode(Encoding::Base64), "aHlkcnVzIQ==" => "hydrus!");
    step!(decode_base64_nopad: S::Decode(Encoding::Base64), "aHlkcnVzIQ" => "hydrus!");
    step!(encode_hex: S::Encode(Encoding::Hex), "Az" => "417a");
    step!(decode_hex: S::Decode(Encoding::Hex), "417A" => "Az");
    step!(add_integer_first_number: S::AddInteger(42), "page/0/of/9" => "page/42/of/9");
    step!(add_integer_negative: S::AddInteger(-5), "p3" => "p-2");
    step!(add_integer_leading_zeros: S::AddInteger(1), "007" => "8");
    step!(hash_md5: S::Hash(HashFunction::Md5), "abc" => "900150983cd24fb0d6963f7d28e17f72");
    step!(hash_sha1: S::Hash(HashFunction::Sha1), "abc" => "a9993e364706816aba3e25717850c26c9cd0d89d");
    step!(hash_sha256: S::Hash(HashFunction::Sha256), "abc" =>
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    step!(hash_sha512: S::Hash(HashFunction::Sha512), "abc" =>
        "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f");

    #[test]
    fn steps_apply_in_order() {
        let c = StringConverter::new(vec![S::Append("1".into()), S::Reverse, S::RemoveStart(1)])
            .unwrap();
        assert_eq!(c.convert("ab").unwrap(), "ba");
        assert!(StringConverter::new(vec![]).unwrap().is_empty());
    }

    #[test]
    fn failures_name_the_step() {
        let c = StringConverter::new(vec![S::Append("x".into()), S::AddInteger(1)]).unwrap();
        let err = c.convert("abc").unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"step 1 (add_integer) cannot convert "abcx": it contains no number"#
        );
        let err = conv_err(S::AddInteger(1), "99999999999999999999");
        assert!(err.contains("does not fit"), "{err}");
        assert!(conv_err(S::Decode(Encoding::Hex), "xyz").contains("not hex"));
        assert!(conv_err(S::Decode(Encoding::Base64), "!!").contains("not base64"));
    }

    fn conv_err(step: ConverterStep, input: &str) -> String {
        StringConverter::new(vec![step])
            .unwrap()
            .convert(input)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn bad_pattern_is_a_build_error() {
        let err = StringConverter::new(vec![
            S::Reverse,
            S::RegexSub {
                pattern: "(".into(),
                replace: "".into(),
            },
        ])
        .unwrap_err();
        assert!(
            matches!(err, ConverterError::BadPattern { step: 1, .. }),
            "{err:?}"
        );
    }

    #[test]
    fn toml_shapes() {
        #[derive(Deserialize)]
        struct Doc {
            api: Vec<ConverterStep>,
        }
        let doc: Doc = toml::from_str(
            r#"api = [ "reverse", { prepend = "a" }, { remove_end = 2 }, { encode = "percent" }, { hash = "md5" },
                       { regex_sub = { pattern = "x", replace = "y" } }, { add_integer = -1 } ]"#,
        )
        .unwrap();
        assert_eq!(doc.api.len(), 7);
        assert_eq!(doc.api[0], S::Reverse);
        assert_eq!(doc.api[6], S::AddInteger(-1));
        let err =
            toml::from_str::<Doc>(r#"api = [ { regex_sub = { pattern = "x", replac = "y" } } ]"#)
                .err()
                .unwrap();
        assert!(err.to_string().contains("replac"), "{err}");
        assert!(toml::from_str::<Doc>(r#"api = [ { encode = "rot13" } ]"#).is_err());
    }

    proptest! {
        #[test]
        fn encodings_round_trip(s in "\\PC*") {
            for e in [Encoding::Percent, Encoding::Base64, Encoding::Hex] {
                let c = StringConverter::new(vec![S::Encode(e), S::Decode(e)]).unwrap();
                prop_assert_eq!(c.convert(&s).unwrap(), s.clone());
            }
        }

        #[test]
        fn reverse_twice_is_identity(s in "\\PC*") {
            let c = StringConverter::new(vec![S::Reverse, S::Reverse]).unwrap();
            prop_assert_eq!(c.convert(&s).unwrap(), s);
        }

        #[test]
        fn keep_and_remove_partition(s in "\\PC{0,20}", n in 0usize..25) {
            let start = conv(S::KeepStart(n), &s);
            let rest = conv(S::RemoveStart(n), &s);
            prop_assert_eq!(format!("{start}{rest}"), s.clone());
            let end = conv(S::KeepEnd(n), &s);
            let front = conv(S::RemoveEnd(n), &s);
            prop_assert_eq!(format!("{front}{end}"), s);
        }

        #[test]
        fn add_integer_inverts(prefix in "[a-z/]{0,5}", n in 0i64..1_000_000, d in -1000i64..1000) {
            let s = format!("{prefix}{n}x9");
            let added = add_integer(&s, d).unwrap();
            prop_assert_eq!(added, format!("{prefix}{}x9", n + d));
        }
    }
}
