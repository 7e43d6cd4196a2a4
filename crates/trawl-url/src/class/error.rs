//! Errors of the URL class model. Each names the class (and, for configuration, the field) it is about.

use std::fmt;

/// A class definition that cannot be used, an example that fails its own class, or a URL a class could not
/// transform. Configuration errors name the class and the TOML field (`path[1].value`, `next_page.query`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ClassError {
    /// A class library file that is not valid TOML or does not have the `[[url_class]]` shape.
    #[error("{origin}{}: {message}", class_suffix(class))]
    Parse {
        /// The file or other source the text came from.
        origin: String,
        /// The `name` of the `[[url_class]]` table the error is in, when it could be told.
        class: Option<String>,
        /// The parser's message, with line, column and field.
        message: String,
    },
    /// A field whose value cannot be used.
    #[error("url class {class:?}: field {field}: {reason}")]
    InvalidField {
        /// The class's name.
        class: String,
        /// The field, as a TOML path inside the class.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Two classes with one name.
    #[error("url class {class:?} is defined more than once")]
    DuplicateName {
        /// The repeated name.
        class: String,
    },
    /// A URL that does not match the class it was given to.
    #[error("url class {class:?} does not match {url}: {reason}")]
    NoMatch {
        /// The class's name.
        class: String,
        /// The URL.
        url: String,
        /// The first rule the URL broke.
        reason: String,
    },
    /// A class's `example` that another, more specific class claims.
    #[error(
        "url class {class:?}: its example {url} is claimed by the more specific class {other:?}"
    )]
    ExampleClaimed {
        /// The class's name.
        class: String,
        /// The example URL.
        url: String,
        /// The class the library picks for it.
        other: String,
    },
    /// Normalising a normalised URL changed it again.
    #[error(
        "url class {class:?}: normalising {url} gives {normalised}, which normalises to {again}"
    )]
    NotIdempotent {
        /// The class's name.
        class: String,
        /// The URL first given.
        url: String,
        /// Its normalised form.
        normalised: String,
        /// The normalised form of that.
        again: String,
    },
    /// A converter step that failed on a URL.
    #[error("url class {class:?}: field {field}: {source}")]
    Convert {
        /// The class's name.
        class: String,
        /// The converter's field (`api`).
        field: String,
        /// What went wrong.
        source: Box<ConverterError>,
    },
    /// A derived URL (API URL, next gallery page) that does not parse or cannot be crawled.
    #[error("url class {class:?}: field {field}: {url:?} is not a usable URL: {reason}")]
    BadDerivedUrl {
        /// The class's name.
        class: String,
        /// The field that derived it (`api`, `next_page`).
        field: String,
        /// The text derived.
        url: String,
        /// Why it cannot be used.
        reason: String,
    },
    /// An API URL that no class in the library matches.
    #[error("url class {class:?}: API URL {url} (from the example) matches no url class")]
    ApiUrlUnmatched {
        /// The class's name.
        class: String,
        /// The API URL.
        url: String,
    },
    /// An API URL that the class itself matches, so that fetching it would derive another API URL.
    #[error("url class {class:?}: API URL {url} (from the example) matches the class itself")]
    ApiUrlLoops {
        /// The class's name.
        class: String,
        /// The API URL.
        url: String,
    },
    /// A next gallery page that could not be computed.
    #[error("url class {class:?}: field next_page: cannot step {url}: {reason}")]
    NextPage {
        /// The class's name.
        class: String,
        /// The URL (in its form for the server).
        url: String,
        /// Why.
        reason: StepError,
    },
}

impl ClassError {
    /// The class the error is about, when it names one.
    pub fn class(&self) -> Option<&str> {
        match self {
            ClassError::Parse { class, .. } => class.as_deref(),
            ClassError::InvalidField { class, .. }
            | ClassError::DuplicateName { class }
            | ClassError::NoMatch { class, .. }
            | ClassError::ExampleClaimed { class, .. }
            | ClassError::NotIdempotent { class, .. }
            | ClassError::Convert { class, .. }
            | ClassError::BadDerivedUrl { class, .. }
            | ClassError::ApiUrlUnmatched { class, .. }
            | ClassError::ApiUrlLoops { class, .. }
            | ClassError::NextPage { class, .. } => Some(class),
        }
    }

    /// The field of the class the error is about (a TOML path inside the class, `path[1].value`), when it
    /// names one; an example's errors are about `example`.
    pub fn field(&self) -> Option<&str> {
        match self {
            ClassError::InvalidField { field, .. }
            | ClassError::Convert { field, .. }
            | ClassError::BadDerivedUrl { field, .. } => Some(field),
            ClassError::NextPage { .. } => Some("next_page"),
            ClassError::NoMatch { .. }
            | ClassError::ExampleClaimed { .. }
            | ClassError::NotIdempotent { .. }
            | ClassError::ApiUrlUnmatched { .. }
            | ClassError::ApiUrlLoops { .. } => Some("example"),
            ClassError::Parse { .. } | ClassError::DuplicateName { .. } => None,
        }
    }
}

/// Why a step on a string (a converter step, the page step of `next_page`) could not be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StepError {
    /// `add_integer` on a string without digits.
    #[error("it contains no number")]
    NoNumber,
    /// A page number that is not a whole number.
    #[error("the page number {0:?} is not an integer")]
    NotAnInteger(String),
    /// A page number too long for 64-bit integers.
    #[error("the page number {0:?} is too long to count on from (over 64 bits)")]
    TooLong(String),
    /// A sum outside 64-bit integers.
    #[error("{number} + {delta} does not fit in 64 bits")]
    Overflow {
        /// The number as found.
        number: String,
        /// What was to be added.
        delta: i64,
    },
    /// A page index past the URL's path.
    #[error("the path has no component {0}")]
    NoPathComponent(usize),
    /// A page parameter the URL lacks.
    #[error("the query has no parameter {0:?}")]
    NoQueryParameter(String),
    /// A `decode` step given text that is not in its encoding.
    #[error("not {encoding}: {reason}")]
    NotEncoded {
        /// `base64` or `hex`.
        encoding: &'static str,
        /// The decoder's message.
        reason: String,
    },
    /// The backtracking regex engine gave up (its backtrack limit).
    #[error("the regex gave up: {0}")]
    RegexLimit(String),
}

fn class_suffix(class: &Option<String>) -> String {
    class
        .as_ref()
        .map(|c| format!(" (url class {c:?})"))
        .unwrap_or_default()
}

/// Every error found in a class library, so that `trawl check` can report them all at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassErrors(pub Vec<ClassError>);

impl ClassErrors {
    /// The errors, in the order the classes were given.
    pub fn iter(&self) -> std::slice::Iter<'_, ClassError> {
        self.0.iter()
    }
}

impl IntoIterator for ClassErrors {
    type Item = ClassError;
    type IntoIter = std::vec::IntoIter<ClassError>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl From<ClassError> for ClassErrors {
    fn from(e: ClassError) -> Self {
        Self(vec![e])
    }
}

impl fmt::Display for ClassErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ClassErrors {}

/// A converter that could not be built, or a string it could not convert. `step` counts from 0, as the
/// TOML array is indexed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConverterError {
    /// A `regex_sub` pattern that neither regex engine accepts.
    #[error("step {step}: {pattern:?} is not a valid regex: {reason}")]
    BadPattern {
        /// Index of the step.
        step: usize,
        /// The pattern as written.
        pattern: String,
        /// What the regex parser objected to.
        reason: String,
    },
    /// A step that could not be applied to its input.
    #[error("step {step} ({step_name}) cannot convert {input:?}: {reason}")]
    Failed {
        /// Index of the step.
        step: usize,
        /// The step's TOML name, such as `add_integer`.
        step_name: &'static str,
        /// The string the step was given.
        input: String,
        /// Why it failed.
        reason: StepError,
    },
}
