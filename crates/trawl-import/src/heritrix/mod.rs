//! `trawl import heritrix`: a Heritrix 3 `crawler-beans.cxml` read as Spring would read it (beans, overrides,
//! sheets) and written as a commented trawl profile. Every bean or property trawl cannot honour becomes a
//! [`Note`] with its line and the closest trawl setting: nothing is dropped silently.
//!
//! Modules: [`beans`] reads the XML; [`classes`] knows Heritrix's bean classes; [`rules`] converts decide
//! rules; [`settings`] maps scalar properties (shared by beans and sheets); [`profile`] holds the result and
//! writes it as TOML.

mod beans;
mod classes;
mod convert;
mod profile;
mod props;
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
    /// A bean class that is neither Heritrix's, Spring's nor the JDK's.
    #[error(
        "line {line}: unknown bean class {class}: not one of Heritrix 3's classes; remove the bean, or replace it \
         with the Heritrix class it extends"
    )]
    UnknownClass {
        /// 1-based line.
        line: usize,
        /// The class as written.
        class: String,
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

/// Imports the crawler-beans.cxml `text`; `origin` names it in the output's header, and its folder (Heritrix's
/// job directory) is where relative paths of seed and SURT files are read from: they are written absolute.
pub fn import(text: &str, origin: &Path) -> Result<Import, ImportError> {
    let beans = beans::read(text)?;
    classes::check_known(&beans)?;
    let base = std::path::absolute(origin)
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_default();
    let profile = convert::convert(&beans, &base);
    let toml = profile.to_toml(origin);
    Ok(Import {
        toml,
        notes: profile.notes,
    })
}
