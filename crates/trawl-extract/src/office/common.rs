//! What the office readers share: the problems they report, the named limits and the budget that enforces
//! them, and the walk that turns a part's XML into plain text.

use std::time::{Duration, Instant};

use quick_xml::{Reader, events::BytesStart, events::Event};

/// The most bytes one part of a package (an XML file inside an OOXML or ODF zip), or one stream of a .doc,
/// may inflate to: past it the part is not read (a zip bomb stops there).
pub const MAX_PART_BYTES: u64 = 16 * 1024 * 1024;
/// The most bytes all the parts of one document may inflate to together, and the most text a .doc's piece
/// table may give (pieces may overlap).
pub const MAX_TOTAL_BYTES: u64 = 64 * 1024 * 1024;
/// The most parts of one package that are read.
pub const MAX_PARTS: usize = 1000;
/// The most time spent reading one document, checked between parts and while a part's XML is walked.
pub const MAX_TIME: Duration = Duration::from_secs(2);

/// Why an office document gave fewer links than it holds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OfficeProblem {
    /// The document is larger than `[extract] office_max_bytes`; it was not read.
    #[error(
        "office document of {bytes} bytes is over [extract] office_max_bytes ({max}); not read"
    )]
    TooLarge {
        /// Its size.
        bytes: u64,
        /// The cap.
        max: u64,
    },
    /// It is not what its type says, or is malformed (a broken zip or compound file, a missing part, XML
    /// that breaks off, a piece table that points outside its stream).
    #[error("office document not readable: {0}")]
    Unreadable(String),
    /// It is encrypted (a password-protected .doc, OOXML or ODF document): its text cannot be read.
    #[error("office document is encrypted")]
    Encrypted,
    /// A reader panicked on it (a bug in a parser, caught).
    #[error("office parser failed on this document")]
    ParserPanic,
    /// A named limit stopped the reading: `MAX_PART_BYTES`, `MAX_TOTAL_BYTES`, `MAX_PARTS` or `MAX_TIME`.
    #[error("office document read up to the {0} limit")]
    Limit(&'static str),
}

impl OfficeProblem {
    /// Its crawl.log annotation, after `doc:`: `tooLarge`, `unreadable`, `encrypted`, `parserPanic`, or the
    /// limit's name.
    pub fn label(&self) -> &'static str {
        match self {
            OfficeProblem::TooLarge { .. } => "tooLarge",
            OfficeProblem::Unreadable(_) => "unreadable",
            OfficeProblem::Encrypted => "encrypted",
            OfficeProblem::ParserPanic => "parserPanic",
            OfficeProblem::Limit(name) => name,
        }
    }

    /// Whether nothing more of the document can be read after it; a part that is malformed or over
    /// `MAX_PART_BYTES` leaves the other parts to read.
    pub(crate) fn stops_document(&self) -> bool {
        !matches!(
            self,
            OfficeProblem::Unreadable(_) | OfficeProblem::Limit("MAX_PART_BYTES")
        )
    }
}

/// What one document may still spend: time and inflated bytes.
#[derive(Debug)]
pub(crate) struct Budget {
    started: Instant,
    bytes_left: u64,
}

impl Budget {
    pub(crate) fn new() -> Self {
        Budget {
            started: Instant::now(),
            bytes_left: MAX_TOTAL_BYTES,
        }
    }

    /// `MAX_TIME` once the time is spent.
    pub(crate) fn check_time(&self) -> Result<(), OfficeProblem> {
        if self.started.elapsed() > MAX_TIME {
            Err(OfficeProblem::Limit("MAX_TIME"))
        } else {
            Ok(())
        }
    }

    /// How many more bytes may be inflated or decoded (at most [`MAX_PART_BYTES`] for one part).
    pub(crate) fn part_allowance(&self) -> u64 {
        self.bytes_left.min(MAX_PART_BYTES)
    }

    /// Spends `n` bytes; `MAX_TOTAL_BYTES` when there were not that many left.
    pub(crate) fn spend(&mut self, n: u64) -> Result<(), OfficeProblem> {
        match self.bytes_left.checked_sub(n) {
            Some(left) => {
                self.bytes_left = left;
                Ok(())
            }
            None => {
                self.bytes_left = 0;
                Err(OfficeProblem::Limit("MAX_TOTAL_BYTES"))
            }
        }
    }
}

/// Elements that end a run of text (paragraphs, headings, cells, breaks, tabs, spreadsheet strings, ODF's
/// spaces): a line break is put in the text there, so words of two paragraphs do not run together. Runs
/// (`w:r`, `a:r`, `text:span`) are not among them: a URL split over runs stays whole.
const BREAKS: &[&str] = &[
    "p",
    "h",
    "br",
    "cr",
    "tab",
    "s",
    "si",
    "c",
    "v",
    "f",
    "is",
    "tc",
    "row",
    "line-break",
    "table-cell",
    "list-item",
    "fldSimple",
];

/// A part's text, and apart from it the text of its field codes (`w:instrText`).
#[derive(Debug, Default)]
pub(crate) struct XmlText {
    /// All its character data, with line breaks where [`BREAKS`] elements end.
    pub(crate) text: String,
    /// The character data of `instrText` elements, a line each.
    pub(crate) fields: String,
}

/// The text of `xml`, passing each start or empty element to `on_element` (for attributes such as ODF's
/// `xlink:href`). Stops at the first XML error (an [`OfficeProblem::Unreadable`] naming `part`) or when the
/// budget's time runs out; the text read until then is returned either way. No DTD entity is expanded.
pub(crate) fn xml_text(
    xml: &[u8],
    part: &str,
    budget: &Budget,
    mut on_element: impl FnMut(&BytesStart<'_>),
) -> (XmlText, Option<OfficeProblem>) {
    let mut reader = Reader::from_reader(xml);
    reader.config_mut().check_end_names = false;
    let mut out = XmlText::default();
    let mut in_field = false;
    let mut buf = Vec::new();
    let mut events = 0u32;
    loop {
        events = events.wrapping_add(1);
        if events.is_multiple_of(4096)
            && let Err(problem) = budget.check_time()
        {
            return (out, Some(problem));
        }
        buf.clear();
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) => {
                in_field |= e.local_name().as_ref() == "instrText";
                on_element(&e);
            }
            Ok(Event::Empty(e)) => {
                on_element(&e);
                if BREAKS.contains(&e.local_name().as_ref()) {
                    out.text.push('\n');
                }
            }
            Ok(Event::End(e)) => {
                if e.local_name().as_ref() == "instrText" {
                    in_field = false;
                    out.fields.push('\n');
                }
                if BREAKS.contains(&e.local_name().as_ref()) {
                    out.text.push('\n');
                }
            }
            Ok(Event::Text(t)) => {
                out.text.push_str(t.as_ref());
                if in_field {
                    out.fields.push_str(t.as_ref());
                }
            }
            Ok(Event::GeneralRef(r)) => {
                if let Some(c) = crate::xml::resolve_ref(&r) {
                    out.text.push(c);
                    if in_field {
                        out.fields.push(c);
                    }
                }
            }
            Ok(Event::CData(t)) => out.text.push_str(&t.clone().into_inner()),
            Ok(Event::Eof) => return (out, None),
            Ok(_) => {}
            Err(e) => {
                let problem = OfficeProblem::Unreadable(format!("{part}: {e}"));
                return (out, Some(problem));
            }
        }
    }
}

/// The value of the attribute whose local name is `local` (any prefix), unescaped.
pub(crate) fn attribute(e: &BytesStart<'_>, local: &str) -> Option<String> {
    e.attributes().flatten().find_map(|a| {
        (a.key.local_name().as_ref() == local).then(|| {
            a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map(|v| v.into_owned())
                .unwrap_or_else(|_| a.value.clone().into_owned())
        })
    })
}
