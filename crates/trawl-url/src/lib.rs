//! URL identity for trawl: how a string found in a page becomes an address the crawler can compare.
//!
//! The names, in the order a link passes through them:
//! - [`resolve`] turns an href into a *raw URL* against its document's base (WHATWG rules, fragment dropped);
//! - [`canon::Canonicalizer`] turns a URL into its *uniq key* (Heritrix's rules by default);
//! - [`surt`] turns a URL into a SURT, the sort-friendly form scope rules and indexes use;
//! - [`SurtPrefix`] is the Heritrix-form SURT prefix a seed implies, used by scope;
//! - [`class`] recognises kinds of site URLs (hydrus's URL classes): normalised form, next page, API URL.
//!
//! ```
//! use trawl_url::{resolve, surt};
//! let base = url::Url::parse("http://www.example.com/a/b.html").unwrap();
//! let raw = resolve(&base, "../c.html#top").unwrap();
//! assert_eq!(raw.as_str(), "http://www.example.com/c.html");
//! assert_eq!(surt::heritrix(&raw), "http://(com,example,www,)/c.html");
//! ```
#![deny(missing_docs)]

pub mod canon;
pub mod class;
mod error;
mod resolve;
pub mod surt;

pub use crate::class::{ClassMatch, UrlClasses};
pub use crate::{
    error::Error,
    resolve::{parse_seed, resolve},
    surt::SurtPrefix,
};
pub use url::Url;
