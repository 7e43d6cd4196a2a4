//! URL classes (hydrus's model): named rules that recognise one kind of site URL and know what to do with it.
//!
//! Operators write a class once per kind of URL (a [`UrlClassDef`], a `[[url_class]]` TOML table). A
//! [`UrlClasses`] library compiles them and, for each URL, picks the most specific matching [`UrlClass`] and
//! returns a [`ClassMatch`]: what the URL is ([`UrlKind`]), its one normalised form, the URL to send to the
//! server, the API URL to fetch instead (derived by a [`StringConverter`]) and the next gallery page.
//!
//! The schema and the semantics, with worked examples, are in `docs/url-classes.md`.
//!
//! ```
//! use trawl_url::class::UrlClasses;
//! let classes = UrlClasses::from_toml_str(r#"
//!     [[url_class]]
//!     name = "gelbooru gallery page"
//!     kind = "gallery"
//!     example = "https://gelbooru.com/index.php?page=post&s=list&tags=uniform"
//!     domains = ["gelbooru.com"]
//!     path = [ { match = "fixed", value = "index.php" } ]
//!     query = [
//!       { name = "page", match = "fixed", value = "post" },
//!       { name = "s", match = "fixed", value = "list" },
//!       { name = "pid", match = "numeric", default = "0" },
//!     ]
//!     next_page = { query = "pid", delta = 42 }
//! "#, "classes.toml").unwrap();
//! let url = url::Url::parse("https://gelbooru.com/index.php?page=post&s=list&tags=uniform").unwrap();
//! let m = classes.match_url(&url).unwrap();
//! assert_eq!(m.normalised.as_str(), "https://gelbooru.com/index.php?page=post&pid=0&s=list");
//! assert_eq!(m.for_server.as_str(), "https://gelbooru.com/index.php?page=post&pid=0&s=list&tags=uniform");
//! assert_eq!(m.next_page.unwrap().as_str(), "https://gelbooru.com/index.php?page=post&pid=42&s=list&tags=uniform");
//! ```

mod component;
mod converter;
mod def;
mod domain;
mod error;
mod library;
mod matched;
mod next_page;
mod normalise;
mod parts;
mod pattern;
mod url_class;

#[cfg(test)]
mod tests;

pub use self::{
    converter::{ConverterStep, Encoding, HashFunction, StringConverter},
    def::{
        MatchType, NextPageDef, PathComponentDef, PreferredScheme, QueryParamDef, UrlClassDef,
        UrlKind,
    },
    error::{ClassError, ClassErrors, ConverterError, StepError},
    library::UrlClasses,
    matched::ClassMatch,
    url_class::UrlClass,
};
