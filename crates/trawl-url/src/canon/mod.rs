//! Canonicalization: named rule sets that turn a URL into a string two spellings of one resource share.
//!
//! | name | what it is |
//! | --- | --- |
//! | `heritrix` | Heritrix's default uniq-key rules (the default); extra rules via [`HeritrixRules`] |
//! | `whatwg` | the WHATWG URL Standard serialization (urlcanon's `whatwg`) |
//! | `semantic` | urlcanon's `semantic`: what would load the same page in a browser |
//! | `aggressive` | urlcanon's `aggressive`: Wayback-style fuzzy matching |
//! | `google` | IA `surt`'s GoogleURLCanonicalizer |
//! | `ia` | IA `surt`'s full pre-SURT canonicalization: `google`, then IAURLCanonicalizer |
//!
//! Every rule set is idempotent: canonicalizing its own output, parsed again, gives the same string.

mod aggressive;
pub(crate) mod cleanup;
mod google;
mod heritrix;
mod ia;
mod parts;
pub(crate) mod pct;
mod semantic;
mod whatwg;

use std::{fmt, str::FromStr};

use url::Url;

pub use self::heritrix::HeritrixRules;
use self::parts::Parts;
use crate::Error;

/// A named canonicalization rule set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Canonicalizer {
    /// Heritrix's default rules, in order: lowercase, strip userinfo, strip `www`/`wwwN` (not on slash-only
    /// pages), strip session ids, fix up the query string. Default.
    #[default]
    Heritrix,
    /// The WHATWG serialization, with `%2e` in the path decoded; keeps the fragment.
    Whatwg,
    /// urlcanon's `semantic` rules (see the `semantic` module notes in docs/url-identity.md).
    Semantic,
    /// urlcanon's `aggressive` rules: `semantic`, then https as http, no `www`, lower-case path and query,
    /// no session ids.
    Aggressive,
    /// IA `surt`'s GoogleURLCanonicalizer.
    Google,
    /// IA `surt`'s canonicalization before a SURT: GoogleURLCanonicalizer then IAURLCanonicalizer.
    Ia,
}

impl Canonicalizer {
    /// Every rule set, in the order the docs list them.
    pub const ALL: [Canonicalizer; 6] = [
        Canonicalizer::Heritrix,
        Canonicalizer::Whatwg,
        Canonicalizer::Semantic,
        Canonicalizer::Aggressive,
        Canonicalizer::Google,
        Canonicalizer::Ia,
    ];

    /// The rule set's name as config files and the CLI spell it.
    pub fn name(self) -> &'static str {
        match self {
            Canonicalizer::Heritrix => "heritrix",
            Canonicalizer::Whatwg => "whatwg",
            Canonicalizer::Semantic => "semantic",
            Canonicalizer::Aggressive => "aggressive",
            Canonicalizer::Google => "google",
            Canonicalizer::Ia => "ia",
        }
    }

    /// The canonical string form of `url` under these rules.
    pub fn canonicalize(self, url: &Url) -> String {
        match self {
            Canonicalizer::Heritrix => {
                heritrix::canonicalize(url.as_str(), &HeritrixRules::DEFAULT)
            }
            Canonicalizer::Whatwg => whatwg::canonicalize(url),
            Canonicalizer::Semantic => {
                let mut p = Parts::from_url(url);
                semantic::apply(&mut p);
                p.serialize()
            }
            Canonicalizer::Aggressive => {
                let mut p = Parts::from_url(url);
                semantic::apply(&mut p);
                aggressive::apply(&mut p);
                p.serialize()
            }
            Canonicalizer::Google => {
                let mut p = Parts::from_url(url);
                google::apply(&mut p);
                p.serialize()
            }
            Canonicalizer::Ia => ia_string(url, true),
        }
    }
}

/// IA's canonicalization, with the host massage (`www` stripping) switchable as `surt`'s `host_massage` option.
pub(crate) fn ia_parts(url: &Url, host_massage: bool) -> Parts {
    let mut p = Parts::from_url(url);
    google::apply(&mut p);
    ia::apply(&mut p, host_massage);
    p
}

fn ia_string(url: &Url, host_massage: bool) -> String {
    ia_parts(url, host_massage).serialize()
}

/// Strips leading `www.`/`wwwN.` labels until none is left, so that the rule is idempotent. A label stays when
/// what it leaves would be no host (`www.`) or a number (`www.9`), which the URL parser would read back as an
/// IPv4 address, not as the same host.
pub(crate) fn strip_www_repeatedly(host: &mut String) {
    loop {
        let b = host.as_bytes();
        if !b.starts_with(b"www") {
            return;
        }
        let digits = b[3..].iter().take_while(|c| c.is_ascii_digit()).count();
        if b.get(3 + digits) != Some(&b'.') || ends_in_number(&host[4 + digits..]) {
            return;
        }
        host.replace_range(..4 + digits, "");
    }
}

/// Whether `host` is empty or, as the WHATWG URL parser judges a host, ends in a number: its last label (after
/// one trailing dot) is decimal digits or `0x` and hex digits.
fn ends_in_number(host: &str) -> bool {
    let host = host.strip_suffix('.').unwrap_or(host);
    let last = host.rsplit('.').next().unwrap_or(host);
    if let Some(hex) = last.strip_prefix("0x").or_else(|| last.strip_prefix("0X")) {
        return hex.bytes().all(|b| b.is_ascii_hexdigit());
    }
    last.bytes().all(|b| b.is_ascii_digit())
}

impl fmt::Display for Canonicalizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Canonicalizer {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        Canonicalizer::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| Error::UnknownCanonicalizer {
                name: s.to_string(),
            })
    }
}

#[cfg(test)]
mod tests;
