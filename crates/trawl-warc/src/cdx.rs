//! Classic CDX indexes, as Heritrix, the Wayback Machine and `cdx-indexer` write them: a header naming the
//! fields by letter (` CDX N b a m s k r M S V g`, the 11-field form; ` CDX N b a m s k r V g`, the 9-field
//! one), then one line per capture, its fields separated by single spaces, `-` for a field without a value.
//! The digest (`k`) is the base32 SHA-1 of the payload, bare or with `sha1:`; a hex SHA-1 is read too.
//! Sans-IO: lines in, captures out.

use crate::{digest::sha1_key, record::timestamp14_to_warc_date};

/// A line of a CDX file that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CdxError {
    /// The header does not name fields by letter.
    #[error(
        "the CDX header {found:?} does not name its fields: it should read like \" CDX N b a m s k r M S V g\""
    )]
    Header {
        /// The header line (shortened).
        found: String,
    },
    /// The header lacks a field dedup needs.
    #[error(
        "the CDX header has no `{letter}` field ({what}); dedup needs the original URL `a`, the date `b` and the \
         digest `k`"
    )]
    MissingField {
        /// The field's letter.
        letter: char,
        /// What it holds.
        what: &'static str,
    },
    /// A line with another number of fields than the header names.
    #[error(
        "expected {expected} fields separated by spaces, as the header names, found {found} (a URL with an \
         unescaped space?)"
    )]
    FieldCount {
        /// The header's count.
        expected: usize,
        /// The line's.
        found: usize,
    },
    /// A line of a file without a header of neither form's number of fields.
    #[error(
        "expected 11 or 9 fields separated by spaces (the forms of a CDX file without a header), found {found} \
         (a URL with an unescaped space?)"
    )]
    HeaderlessFieldCount {
        /// The line's.
        found: usize,
    },
    /// A date that is not a timestamp.
    #[error("the date {found:?} is not a timestamp of a real time in 14 digits (YYYYMMDDhhmmss)")]
    Date {
        /// The field.
        found: String,
    },
    /// A digest that is not a SHA-1.
    #[error("the digest {found:?} is not a SHA-1 in base32 or hex (with or without `sha1:`)")]
    Digest {
        /// The field.
        found: String,
    },
}

/// The fields of a CDX file, by letter, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CdxFormat {
    letters: Vec<char>,
    url: usize,
    date: usize,
    digest: usize,
    mime: Option<usize>,
    status: Option<usize>,
}

/// One capture of a CDX file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CdxCapture<'a> {
    /// The original URL (`a`).
    pub url: &'a str,
    /// `YYYYMMDDhhmmss` (`b`).
    pub timestamp: &'a str,
    /// The media type (`m`), `None` for `-`; `warc/revisit` for a revisit.
    pub mime: Option<&'a str>,
    /// The HTTP status (`s`), `None` for `-`.
    pub status: Option<&'a str>,
    /// The payload digest as `sha1:BASE32` (`k`), `None` for `-`.
    pub digest: Option<String>,
}

impl CdxCapture<'_> {
    /// The capture's date as a WARC-Date (`2026-11-25T00:50:00Z`); `None` when the timestamp is not 14
    /// digits (only for a capture built by hand: [`CdxFormat::capture`] checks it).
    pub fn warc_date(&self) -> Option<String> {
        timestamp14_to_warc_date(self.timestamp)
    }

    /// Whether the line is a revisit (no payload of its own).
    pub fn is_revisit(&self) -> bool {
        self.mime == Some("warc/revisit")
    }
}

/// Whether `line` is a CDX header (` CDX …` or `CDX …`).
pub fn is_header(line: &str) -> bool {
    line.trim_start_matches(' ').starts_with("CDX ")
}

impl CdxFormat {
    /// The format a header line names.
    pub fn from_header(line: &str) -> Result<CdxFormat, CdxError> {
        let bad = || CdxError::Header {
            found: line.chars().take(80).collect(),
        };
        let rest = line
            .trim_start_matches(' ')
            .strip_prefix("CDX ")
            .ok_or_else(bad)?;
        let mut letters = Vec::new();
        for f in rest.split_ascii_whitespace() {
            let mut chars = f.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) if c.is_ascii_alphabetic() => letters.push(c),
                _ => return Err(bad()),
            }
        }
        CdxFormat::of_letters(letters)
    }

    /// The 11-field form (`N b a m s k r M S V g`) or the 9-field one (`N b a m s k r V g`), for a file
    /// without a header, by its number of fields.
    pub fn guess(fields: usize) -> Option<CdxFormat> {
        let letters = match fields {
            11 => "NbamskrMSVg",
            9 => "NbamskrVg",
            _ => return None,
        };
        CdxFormat::of_letters(letters.chars().collect()).ok()
    }

    fn of_letters(letters: Vec<char>) -> Result<CdxFormat, CdxError> {
        let at = |c: char| letters.iter().position(|&l| l == c);
        let need = |c: char, what| at(c).ok_or(CdxError::MissingField { letter: c, what });
        Ok(CdxFormat {
            url: need('a', "original URL")?,
            date: need('b', "date")?,
            digest: need('k', "digest")?,
            mime: at('m'),
            status: at('s'),
            letters,
        })
    }

    /// How many fields a line has.
    pub fn len(&self) -> usize {
        self.letters.len()
    }

    /// Whether the format names no field (never: `a`, `b` and `k` are required).
    pub fn is_empty(&self) -> bool {
        self.letters.is_empty()
    }

    /// Reads one line. Empty fields at its end (a line ending in a space) are dropped, as the Wayback
    /// Machine's reader (Java's `String.split`) drops them.
    pub fn capture<'a>(&self, line: &'a str) -> Result<CdxCapture<'a>, CdxError> {
        let mut fields: Vec<&str> = line.trim_end_matches(['\r', '\n']).split(' ').collect();
        while fields.len() > self.letters.len() && fields.last() == Some(&"") {
            fields.pop();
        }
        if fields.len() != self.letters.len() {
            return Err(CdxError::FieldCount {
                expected: self.letters.len(),
                found: fields.len(),
            });
        }
        let value = |i: usize| Some(fields[i]).filter(|v| *v != "-" && !v.is_empty());
        let timestamp = fields[self.date];
        // A real time too (xt15c F2: `20141345999999` was dropped without a word, and counted as used).
        if timestamp14_to_warc_date(timestamp).is_none() {
            return Err(CdxError::Date {
                found: timestamp.chars().take(40).collect(),
            });
        }
        let digest = match value(self.digest) {
            None => None,
            Some(d) => Some(sha1_key(d).ok_or_else(|| CdxError::Digest {
                found: d.chars().take(80).collect(),
            })?),
        };
        Ok(CdxCapture {
            url: fields[self.url],
            timestamp,
            mime: self.mime.and_then(value),
            status: self.status.and_then(value),
            digest,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const HERITRIX: &str = "org,example)/ 20140216050221 http://example.org/ text/html 200 \
        B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 1043 333 IAH-20140216050220-00000-example.arc.gz";

    #[test]
    fn a_line_ending_in_a_space_is_read_as_wayback_reads_it() {
        let f = CdxFormat::from_header(" CDX N b a m s k r M S V g").unwrap();
        let line = format!("{HERITRIX} ");
        let c = f.capture(&line).unwrap();
        assert_eq!(c.url, "http://example.org/");
        assert!(matches!(
            f.capture(&format!("{HERITRIX} x")),
            Err(CdxError::FieldCount { found: 12, .. })
        ));
    }

    #[test]
    fn the_11_field_form_heritrix_writes() {
        let f = CdxFormat::from_header(" CDX N b a m s k r M S V g").unwrap();
        assert_eq!(f.len(), 11);
        let c = f.capture(HERITRIX).unwrap();
        assert_eq!(c.url, "http://example.org/");
        assert_eq!(c.warc_date().as_deref(), Some("2014-02-16T05:02:21Z"));
        assert_eq!(c.mime, Some("text/html"));
        assert_eq!(c.status, Some("200"));
        assert_eq!(
            c.digest.as_deref(),
            Some("sha1:B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A")
        );
        assert!(!c.is_revisit());
    }

    #[test]
    fn the_9_field_form_and_digest_spellings() {
        let f = CdxFormat::from_header(" CDX N b a m s k r V g").unwrap();
        assert_eq!(CdxFormat::guess(9), Some(f.clone()));
        let line = |k: &str| {
            format!(
                "org,example)/ 20140216050221 http://example.org/ warc/revisit - {k} - 333 x.warc.gz"
            )
        };
        let base32 = "sha1:B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A";
        for k in [
            "sha1:B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A",
            "B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A",
            "b2ltwwpuoyah7uipq7zupq4vmbsvc36a",
            "0e973b59f476007fd10f87f347c3956065516fc0",
            "SHA1:0E973B59F476007FD10F87F347C3956065516FC0",
        ] {
            let l = line(k);
            let c = f.capture(&l).unwrap();
            assert_eq!(c.digest.as_deref(), Some(base32), "{k}");
            assert!(c.is_revisit());
            assert_eq!(c.status, None);
        }
        assert_eq!(f.capture(&line("-")).unwrap().digest, None);
        assert!(matches!(
            f.capture(&line("nope")),
            Err(CdxError::Digest { .. })
        ));
    }

    #[test]
    fn bad_lines_say_what_is_wrong() {
        let f = CdxFormat::guess(11).unwrap();
        assert!(matches!(
            f.capture("a b c"),
            Err(CdxError::FieldCount {
                expected: 11,
                found: 3
            })
        ));
        for date in ["2014", "20141345999999", "00000000000000"] {
            let bad_date = HERITRIX.replace("20140216050221", date);
            assert!(
                matches!(f.capture(&bad_date), Err(CdxError::Date { .. })),
                "{date}"
            );
        }
        assert!(matches!(
            CdxFormat::from_header(" CDX N b m s"),
            Err(CdxError::MissingField { letter: 'a', .. })
        ));
        assert!(matches!(
            CdxFormat::from_header(" CDX Nb a"),
            Err(CdxError::Header { .. })
        ));
        assert!(is_header(" CDX N b a m s k r M S V g") && is_header("CDX A b"));
        assert!(!is_header("org,example)/ 2014"));
    }

    proptest! {
        /// Any header and line: a format and a capture, or an error, never a panic.
        #[test]
        fn any_text_reads_or_is_refused(header in "\\PC{0,60}", line in "\\PC{0,200}") {
            if let Ok(f) = CdxFormat::from_header(&header) {
                let _ = f.capture(&line);
            }
            let _ = CdxFormat::guess(11).unwrap().capture(&line);
        }

        /// A line written from fields reads back as them.
        #[test]
        fn written_lines_read_back(
            url in "http://[a-z]{1,10}\\.org/[a-z0-9%]{0,20}",
            stamp in "(19[7-9][0-9]|20[0-9]{2})(0[1-9]|1[0-2])(0[1-9]|1[0-9]|2[0-8])([01][0-9]|2[0-3])[0-5][0-9][0-5][0-9]",
            digest in "[A-Z2-7]{32}",
            status in "[1-5][0-9]{2}",
        ) {
            let line = format!("key {stamp} {url} text/html {status} {digest} - - 10 20 f.warc.gz");
            let c = CdxFormat::guess(11).unwrap().capture(&line).unwrap();
            prop_assert_eq!(c.url, url.as_str());
            prop_assert_eq!(c.timestamp, stamp.as_str());
            prop_assert_eq!(c.status, Some(status.as_str()));
            prop_assert_eq!(c.digest, Some(format!("sha1:{digest}")));
        }
    }
}
