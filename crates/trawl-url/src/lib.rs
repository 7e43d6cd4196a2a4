//! URL identity for trawl: how a string found in a page becomes the names the crawler compares it by.
//!
//! What this crate must not know: fetching, archives, the frontier, settings files; it names URLs and nothing
//! else, so every other crate may depend on it.
//!
//! The names, in the order a link passes through them (docs/url-identity.md tells the whole story):
//! - [`resolve`] turns an href into a *raw URL* against its document's base (WHATWG rules, fragment dropped);
//! - [`Identity::canonical`] picks the *canonical URL*: redirect target, URL class, site [`Rewrite`], or the
//!   cleaned raw URL;
//! - [`canon::Canonicalizer`] turns the canonical URL into its *uniq key* (Heritrix's rules by default);
//! - [`surt`] writes a *SURT* in CDX form (IA's `surt` package) or Heritrix form, and [`SurtPrefix`] is the
//!   Heritrix prefix a seed implies;
//! - [`norm`] gives the lossy *normalized key* that groups spellings of one page, never fetched;
//! - [`version`] gives the *version template* that groups one page across software versions.
//! - [`class`] recognises kinds of site URLs (hydrus's URL classes): normalised form, next page, API URL.
//!
//! ```
//! use trawl_url::{resolve, surt, CanonicalHints, Identity};
//! let base = url::Url::parse("http://www.example.com/a/b.html").unwrap();
//! let raw = resolve(&base, "../c.html#top").unwrap();
//! assert_eq!(raw.as_str(), "http://www.example.com/c.html");
//! assert_eq!(surt::heritrix(&raw), "http://(com,example,www,)/c.html");
//! let names = Identity::default().explain(&raw, CanonicalHints::none());
//! assert_eq!(names.uniq_key, "http://example.com/c.html");
//! assert_eq!(names.surt, "com,example)/c.html");
//! assert_eq!(names.norm.as_str(), "http://example.com/c");
//! ```
#![deny(missing_docs)]

pub mod canon;
pub mod class;
mod error;
mod identity;
pub mod norm;
pub mod readable;
mod resolve;
mod rewrite;
pub mod surt;
#[cfg(test)]
mod testgen;
pub mod version;
pub mod view;

pub use crate::class::{ClassMatch, UrlClasses};
pub use crate::{
    error::Error,
    identity::{
        CanonicalHints, CanonicalSource, Explanation, Identity, UrlClassNormaliser, norm_uuid,
    },
    resolve::{
        href_text, is_bare_word, parse_lenient, parse_seed, parse_typed_seed, resolve,
        resolve_bytes,
    },
    rewrite::{Rewrite, example_site_rewrites},
    surt::SurtPrefix,
};
pub use url::Url;
pub use uuid::Uuid;
