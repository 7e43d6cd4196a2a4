//! SURT: Sort-friendly URI Reordering Transform.
//!
//! Host labels are reversed so that a site's URLs sort together and a string prefix names a site, a subdomain
//! tree or a directory. Two forms are in use:
//! - the CDX form, [`cdx`]: `org,archive)/goo?a=1&a=2&b`, as IA's `surt` package, pywb and CDX(J) indexes
//!   write it, with `surt`'s options ([`SurtOptions`]);
//! - the index key, [`index_key`]: byte for byte what python `surt` gives, quirks included, which CDXJ
//!   indexes must use for pywb to find their captures;
//! - the Heritrix form, [`heritrix()`]: `http://(org,archive,www,)/goo`, which scope rules and sheets use, and
//!   the [`SurtPrefix`] a seed implies.

mod cdx;
mod heritrix;
mod index_key;

pub use self::{
    cdx::{SurtOptions, cdx},
    heritrix::{SurtPrefix, authority, heritrix},
    index_key::index_key,
};
