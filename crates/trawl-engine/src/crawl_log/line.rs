//! Reading `crawl.log` lines back (Heritrix 3 field order): the selftest's checks, and a resume's count of
//! what the earlier runs finished when their counters were never saved.
//!
//! Fields are separated by one or more spaces and `-` stands for an empty field:
//!
//! ```text
//! timestamp status size URI hop-path via mime #worker fetchstart+ms sha1:DIGEST source annotations [json]
//! ```

/// One parsed `crawl.log` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    /// When the line was written, as logged (`2026-11-22T08:25:01.123Z`).
    pub timestamp: String,
    /// The HTTP status, or a negative Heritrix code (`-9998` robots.txt, `-4` timeout, ...).
    pub status: i32,
    /// Bytes downloaded; `None` when logged as `-`.
    pub size: Option<u64>,
    /// The URI attempted.
    pub uri: String,
    /// Hop letters from the seed (`L`, `E`, `R`, `P`, ...); empty for a seed (logged as `-`).
    pub hop_path: String,
    /// The URI this one was found on; `None` for a seed.
    pub via: Option<String>,
    /// The MIME type of the response, if any.
    pub mime: Option<String>,
    /// The worker field as logged, e.g. `#001`.
    pub worker: String,
    /// Fetch start (17 digits) `+` duration in ms, if the URI was fetched.
    pub fetch: Option<String>,
    /// The content digest, e.g. `sha1:ABCD...`, if any.
    pub digest: Option<String>,
    /// The source tag (the seed this URI descends from), if tagged.
    pub source: Option<String>,
    /// Comma-separated annotations (`lenTrunc`, `err=timeout`, `retries:2`); empty when `-`.
    pub annotations: Vec<String>,
    /// The optional trailing JSON object, as raw text.
    pub json: Option<String>,
}

impl LogLine {
    /// The hop letter of the last hop (`None` for a seed).
    pub fn last_hop(&self) -> Option<char> {
        self.hop_path.chars().last()
    }

    /// Whether an annotation equals `name` exactly.
    pub fn has_annotation(&self, name: &str) -> bool {
        self.annotations.iter().any(|a| a == name)
    }

    /// Whether some annotation starts with `prefix` (`err=`, `retries:`).
    pub fn has_annotation_prefix(&self, prefix: &str) -> bool {
        self.annotations.iter().any(|a| a.starts_with(prefix))
    }
}

/// The number of space-separated fields before the optional JSON.
const FIELDS: usize = 12;

/// What is wrong with a line that is not a crawl.log line.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LineError {
    /// Fewer fields than a crawl.log line has.
    #[error("expected {FIELDS} space-separated fields, found {0}")]
    Fields(usize),
    /// The second field is no status code.
    #[error("expected a status code, found {0:?}")]
    Status(String),
    /// The third field is neither `-` nor a size.
    #[error("expected a size, found {0:?}")]
    Size(String),
}

/// A line's problem with its place: the 1-based line number.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("crawl.log line {line}: {problem}")]
pub struct ParseError {
    /// The line, counted from 1.
    pub line: usize,
    /// What is wrong with it.
    pub problem: LineError,
}

impl LogLine {
    /// The fetch's duration, from the `fetchstart+ms` field.
    pub fn fetch_ms(&self) -> Option<u64> {
        self.fetch.as_deref()?.split_once('+')?.1.parse().ok()
    }

    /// The host of its URI, as the crawl's counters key it (empty when it has none).
    pub fn host(&self) -> String {
        url::Url::parse(&self.uri)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_default()
    }
}

/// Parses one `crawl.log` line.
pub fn parse_line(line: &str) -> Result<LogLine, LineError> {
    let mut rest = line.trim();
    let mut fields = Vec::with_capacity(FIELDS);
    while fields.len() < FIELDS {
        if rest.is_empty() {
            return Err(LineError::Fields(fields.len()));
        }
        let end = rest.find(' ').unwrap_or(rest.len());
        fields.push(&rest[..end]);
        rest = rest[end..].trim_start();
    }
    let opt = |s: &str| (s != "-").then(|| s.to_owned());
    let status = fields[1]
        .parse::<i32>()
        .map_err(|_| LineError::Status(fields[1].to_owned()))?;
    let size = match fields[2] {
        "-" => None,
        s => Some(
            s.parse::<u64>()
                .map_err(|_| LineError::Size(s.to_owned()))?,
        ),
    };
    let annotations = match fields[11] {
        "-" => Vec::new(),
        s => s.split(',').map(str::to_owned).collect(),
    };
    Ok(LogLine {
        timestamp: fields[0].to_owned(),
        status,
        size,
        uri: fields[3].to_owned(),
        hop_path: opt(fields[4]).unwrap_or_default(),
        via: opt(fields[5]),
        // Heritrix writes `no-type` where there was no content type.
        mime: opt(fields[6]).filter(|m| m != "no-type"),
        worker: fields[7].to_owned(),
        fetch: opt(fields[8]),
        digest: opt(fields[9]),
        source: opt(fields[10]),
        annotations,
        json: (!rest.is_empty()).then(|| rest.to_owned()),
    })
}

/// Parses a whole `crawl.log`, skipping blank lines; an error names the 1-based line number.
pub fn parse(text: &str) -> Result<Vec<LogLine>, ParseError> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            parse_line(line).map_err(|problem| ParseError {
                line: i + 1,
                problem,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const EMBED: &str = "2026-11-22T08:25:01.123Z   200       1234 http://127.0.0.1:4000/embeds L \
        http://127.0.0.1:4000/ text/html #001 20261122082501100+23 sha1:ABCD - -";
    const ROBOTS: &str = "2026-11-22T08:25:02.000Z -9998          - http://127.0.0.1:4000/private/secret L \
        http://127.0.0.1:4000/ - #001 - - - -";
    const SEED: &str = "2026-11-22T08:25:00.000Z 200 10 http://127.0.0.1:4000/ - - text/html #002 \
        20261122082500000+3 sha1:XYZ seed-1 retries:1,err=x {\"a\": 1, \"b\": [2]}";

    #[test]
    fn parses_full_line() {
        let l = parse_line(EMBED).unwrap();
        assert_eq!(l.status, 200);
        assert_eq!(l.size, Some(1234));
        assert_eq!(l.uri, "http://127.0.0.1:4000/embeds");
        assert_eq!(l.hop_path, "L");
        assert_eq!(l.via.as_deref(), Some("http://127.0.0.1:4000/"));
        assert_eq!(l.mime.as_deref(), Some("text/html"));
        assert_eq!(l.worker, "#001");
        assert_eq!(l.fetch.as_deref(), Some("20261122082501100+23"));
        assert_eq!(l.digest.as_deref(), Some("sha1:ABCD"));
        assert_eq!(l.source, None);
        assert!(l.annotations.is_empty());
        assert_eq!(l.json, None);
    }

    #[test]
    fn parses_negative_status_and_dashes() {
        let l = parse_line(ROBOTS).unwrap();
        assert_eq!(l.status, -9998);
        assert_eq!(
            (l.size, l.mime, l.fetch, l.digest),
            (None, None, None, None)
        );
    }

    #[test]
    fn parses_seed_annotations_and_json_with_spaces() {
        let l = parse_line(SEED).unwrap();
        assert_eq!((l.hop_path.as_str(), l.via.as_deref()), ("", None));
        assert_eq!(l.last_hop(), None);
        assert_eq!(l.source.as_deref(), Some("seed-1"));
        assert_eq!(l.annotations, ["retries:1", "err=x"]);
        assert!(l.has_annotation("err=x") && !l.has_annotation("err"));
        assert!(l.has_annotation_prefix("retries:"));
        assert_eq!(l.json.as_deref(), Some("{\"a\": 1, \"b\": [2]}"));
    }

    #[test]
    fn rejects_bad_lines_with_line_number() {
        for (text, want) in [
            ("x 200 1 u L v m #1 f d s", "line 1: expected 12"),
            (
                "\nx abc 1 u L v m #1 f d s -",
                "line 2: expected a status code",
            ),
            ("x 200 big u L v m #1 f d s -", "line 1: expected a size"),
        ] {
            let err = parse(text).unwrap_err().to_string();
            assert!(err.contains(want), "{err:?} should contain {want:?}");
        }
    }

    #[test]
    fn parses_many_lines() {
        let text = format!("{EMBED}\n\n{ROBOTS}\n");
        assert_eq!(parse(&text).unwrap().len(), 2);
    }

    #[test]
    fn reads_back_what_the_writer_wrote() {
        let t = chrono::Utc::now();
        let annotations = [trawl_config::Annotation::Duplicate];
        let entry = crate::crawl_log::LogEntry {
            status: 200,
            size: Some(12),
            uri: "http://a.org/x",
            hop_path: "LE",
            via: Some("http://a.org/"),
            mime: Some("image/png"),
            worker: 3,
            fetch: Some((t, 45)),
            digest: Some("sha1:ABC"),
            annotations: &annotations,
        };
        let l = parse_line(&entry.format(t)).unwrap();
        assert_eq!(
            (l.status, l.size, l.uri.as_str()),
            (200, Some(12), "http://a.org/x")
        );
        assert_eq!((l.hop_path.as_str(), l.last_hop()), ("LE", Some('E')));
        assert_eq!(
            (l.mime.as_deref(), l.fetch_ms()),
            (Some("image/png"), Some(45))
        );
        assert_eq!(
            (l.host(), l.annotations),
            ("a.org".to_owned(), vec!["duplicate:digest".to_owned()])
        );
    }

    proptest::proptest! {
        /// Any text: a line or an error, never a panic.
        #[test]
        fn any_text_parses_or_is_refused(text in "\\PC{0,200}") {
            let _ = parse_line(&text);
        }

        /// Any line the writer makes reads back to its fields.
        #[test]
        fn written_lines_read_back(
            status in -10_000i32..1000,
            size in proptest::option::of(0u64..u64::MAX),
            path in "[a-z0-9/._~-]{0,40}",
            hops in "[LERPXI]{0,8}",
            ms in 0u128..1_000_000,
        ) {
            let uri = format!("http://h.example/{path}");
            let t = chrono::Utc::now();
            let entry = crate::crawl_log::LogEntry {
                status,
                size,
                uri: &uri,
                hop_path: &hops,
                fetch: Some((t, ms)),
                ..Default::default()
            };
            let l = parse_line(&entry.format(t)).unwrap();
            proptest::prop_assert_eq!(l.status, status);
            proptest::prop_assert_eq!(l.size, size);
            proptest::prop_assert_eq!(&l.uri, &uri);
            proptest::prop_assert_eq!(&l.hop_path, &hops);
            proptest::prop_assert_eq!(l.fetch_ms(), Some(ms as u64));
        }
    }
}
