//! `trawl import heritrix`: a Heritrix 3 `crawler-beans.cxml` read as Spring would read it (beans, overrides,
//! sheets) and written as a commented trawl profile. Every bean or property trawl cannot honour becomes a
//! [`Note`] with its line and the closest trawl setting: nothing is dropped silently.
//!
//! Modules: [`beans`] reads the XML and [`overrides`] applies Spring's overrides to it; [`chains`] tells which processors a chain runs; [`classes`] knows Heritrix's bean classes (every class of every release in
//! [`releases`], renamed ones read as what they became); [`rules`] converts decide
//! rules (their regexes through [`java_regex`]); [`credentials`] converts the credential store (never a password); [`settings`] maps scalar properties (shared by beans and sheets); [`profile`] holds the result and
//! writes it as TOML.

mod beans;
mod chains;
mod classes;
mod convert;
mod credentials;
pub mod java_regex;
mod overrides;
mod profile;
mod props;
mod releases;
mod rules;
mod settings;

use std::path::Path;

pub use profile::Note;

/// A Heritrix configuration that cannot be read at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// Not well-formed XML (or a DOCTYPE, which Heritrix refuses too).
    #[error("line {line}, column {column}: not well-formed XML: {message}")]
    Xml {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The XML parser's message.
        message: String,
    },
    /// The root element is not Spring's `<beans>`.
    #[error("the root element is <{found}>, not Spring's <beans>: is this a crawler-beans.cxml?")]
    NotBeans {
        /// The root element's name.
        found: String,
    },
    /// Spring XML trawl does not read.
    #[error("line {line}: {what} is not supported by the importer")]
    Unsupported {
        /// 1-based line.
        line: usize,
        /// What was found.
        what: String,
    },
    /// With `--strict`: a bean trawl does not carry over (a Heritrix class it does not run, or a third-party
    /// class).
    #[error(
        "line {line}: {what}; without --strict it is listed with the rest of what is not carried over and the \
         import goes on"
    )]
    NotCarriedOver {
        /// 1-based line.
        line: usize,
        /// The class as written.
        class: String,
        /// What it did and where it was.
        what: String,
    },
    /// A rule whose Java regex trawl's regex syntax reads otherwise (a possessive quantifier), so that it can
    /// neither be carried over nor kept for `trawl check` to refuse; left out, it could widen the scope.
    #[error("line {line}: {what}")]
    UnkeepableRegex {
        /// 1-based line.
        line: usize,
        /// The rule and what to do.
        what: String,
    },
    /// Bytes that are not text in the encoding the file declares (UTF-8 when it declares none).
    #[error(
        "line {line}, column {column}: a byte that is not {encoding} text (the encoding the XML declaration \
         names, UTF-8 if none): save the file as UTF-8, or declare its encoding"
    )]
    Encoding {
        /// 1-based line.
        line: usize,
        /// 1-based column (in bytes).
        column: usize,
        /// The encoding read.
        encoding: String,
    },
    /// A `PropertyOverrideConfigurer` key that Spring would refuse too.
    #[error("line {line}: override {key:?}: {why}")]
    BadOverride {
        /// 1-based line.
        line: usize,
        /// The key.
        key: String,
        /// Why.
        why: String,
    },
}

/// What an import produced.
#[derive(Debug)]
pub struct Import {
    /// The trawl profile, commented, ending with the list of what was not carried over.
    pub toml: String,
    /// What trawl cannot honour, in line order.
    pub notes: Vec<Note>,
}

/// The text of a crawler-beans.cxml's bytes, in the encoding its XML declaration names (`ISO-8859-1`,
/// `windows-1252`, `UTF-16` ...; Spring reads them all), else UTF-8 (a byte-order mark wins).
pub fn decode(bytes: &[u8]) -> Result<String, ImportError> {
    let declared = declared_encoding(bytes)
        .and_then(|label| encoding_rs::Encoding::for_label(label.as_bytes()))
        .unwrap_or(encoding_rs::UTF_8);
    let (encoding, bom) = encoding_rs::Encoding::for_bom(bytes).unwrap_or((declared, 0));
    let body = &bytes[bom..];
    match encoding.decode_without_bom_handling_and_without_replacement(body) {
        Some(text) => Ok(text.into_owned()),
        None => {
            // Where decoding stops: the first byte UTF-8 refuses, for the usual case; else the start.
            let at = std::str::from_utf8(body)
                .err()
                .map_or(0, |e| e.valid_up_to());
            let before = &body[..at];
            let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
            let column = at
                - before
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |i| i + 1)
                + 1;
            Err(ImportError::Encoding {
                line,
                column,
                encoding: encoding.name().to_owned(),
            })
        }
    }
}

/// The `encoding` of an XML declaration at the start of `bytes` (ASCII-compatible encodings only: UTF-16
/// is told by its byte-order mark).
fn declared_encoding(bytes: &[u8]) -> Option<String> {
    let head = &bytes[..bytes.len().min(200)];
    let end = head.windows(2).position(|w| w == b"?>")?;
    let decl = std::str::from_utf8(&head[..end]).ok()?;
    let decl = decl.trim_start_matches('\u{feff}').strip_prefix("<?xml")?;
    let rest = &decl[decl.find("encoding")? + "encoding".len()..];
    let rest = rest.trim_start().strip_prefix('=')?.trim_start();
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let value = &rest[1..];
    Some(value[..value.find(quote)?].to_owned())
}

/// Imports the crawler-beans.cxml `text`; `origin` names it in the output's header, and its folder (Heritrix's
/// job directory) is where relative paths of seed and SURT files are read from: they are written absolute. A
/// bean trawl does not carry over (a Heritrix processor it does not run, a third-party class) is a note with its
/// line.
pub fn import(text: &str, origin: &Path) -> Result<Import, ImportError> {
    run(text, origin, false)
}

/// As [`import`], but a bean trawl does not carry over is an error ([`ImportError::NotCarriedOver`]).
pub fn import_strict(text: &str, origin: &Path) -> Result<Import, ImportError> {
    run(text, origin, true)
}

fn run(text: &str, origin: &Path, strict: bool) -> Result<Import, ImportError> {
    let mut beans = beans::read(text)?;
    overrides::apply(&mut beans)?;
    let review = classes::review(&mut beans);
    if strict && let Some(first) = review.left_out.first() {
        return Err(ImportError::NotCarriedOver {
            line: first.line,
            class: first.class.clone(),
            what: first.what.clone(),
        });
    }
    let base = std::path::absolute(origin)
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_default();
    let mut profile = convert::convert(&beans, &base);
    if let Some(first) = profile.refused.first() {
        return Err(ImportError::UnkeepableRegex {
            line: first.line,
            what: format!("{}: {}", first.subject, first.message),
        });
    }
    if strict && let Some(first) = profile.untranslated.first() {
        return Err(ImportError::NotCarriedOver {
            line: first.line,
            class: first.subject.clone(),
            what: format!("{}: {}", first.subject, first.message),
        });
    }
    profile.notes.extend(review.notes);
    profile.notes.sort_by_key(|n| n.line);
    let toml = profile.to_toml(origin);
    Ok(Import {
        toml,
        notes: profile.notes,
    })
}
