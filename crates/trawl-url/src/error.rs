//! The one error type of this crate.

/// A URL or identity setting that could not be used, with the input that caused it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The text does not parse as an absolute URL, alone or against its base.
    #[error("{input:?} is not a valid URL: {}", why_not_a_url(input, *reason))]
    InvalidUrl {
        /// The text as given.
        input: String,
        /// What the WHATWG parser objected to.
        reason: url::ParseError,
    },
    /// A scheme misspelt (`http//host/`, `https:/host/`): read without one, it would be a host named `http`.
    #[error("{input:?} is not a valid URL: its scheme is misspelt; write {scheme}://HOST/PATH")]
    MisspeltScheme {
        /// The text as given.
        input: String,
        /// The scheme meant.
        scheme: String,
    },
    /// Text before `://` that is no scheme (`ht!tp://host/`): read without one, it would be a host named
    /// `ht!tp` with an empty port (xt42a: crawled so, its robots.txt looked up in the DNS).
    #[error(
        "{input:?} is not a valid URL: {found:?} before `://` is not a scheme; write http://HOST/PATH or https://HOST/PATH"
    )]
    NotAScheme {
        /// The text as given.
        input: String,
        /// What stands where the scheme goes.
        found: String,
    },
    /// A word without a scheme, a dot or a port (`pause`, `bad_url`): read as a host, it would be looked up in
    /// the DNS as one (xt23a F3).
    #[error(
        "{input:?} is not a URL: a seed without a scheme must name a host with a dot in it (`example.com/x`), \
         `localhost`, an address or a port; write {meant} if a host of that one name is meant"
    )]
    BareWord {
        /// The text as given.
        input: String,
        /// The URL it would be, with its scheme written.
        meant: String,
    },
    /// Typed text that is neither a URL nor a host's one name (`not a url`, `ht!tp:/bad`).
    #[error(
        "{input:?} is not a URL: a seed is written as `http://HOST/PATH`, or as a host with a dot in it \
         (`example.com/x`)"
    )]
    NotASeed {
        /// The text as given.
        input: String,
    },
    /// The URL parsed but its scheme cannot be crawled.
    #[error("{input:?} has scheme {scheme:?}; only http and https can be crawled")]
    UnsupportedScheme {
        /// The URL as given.
        input: String,
        /// Its scheme.
        scheme: String,
    },
    /// A canonicalizer name that is not one of the known rule sets.
    #[error(
        "{name:?} is not a canonicalizer; expected one of heritrix, whatwg, semantic, aggressive, google, ia"
    )]
    UnknownCanonicalizer {
        /// The name as given.
        name: String,
    },
    /// A rewrite or tracking-parameter pattern that does not compile.
    #[error("pattern {pattern:?} does not compile: {reason}")]
    InvalidPattern {
        /// The pattern as given.
        pattern: String,
        /// What the regex compiler objected to.
        reason: String,
    },
    /// Text in SURT form (with `(`) that no URL's SURT can start with.
    #[error("{input:?} is written as a SURT prefix, but {why}")]
    BadSurtPrefix {
        /// The text as given.
        input: String,
        /// What is wrong, and what to write.
        why: &'static str,
    },
    /// A rewrite's replacement names a group its pattern does not have: every URL it matches would get the
    /// same text there, and so one identity.
    #[error(
        "replacement {replace:?} names the group {group:?}, which the pattern {pattern:?} does not have{hint}"
    )]
    UnknownGroup {
        /// The pattern as given.
        pattern: String,
        /// The replacement as given.
        replace: String,
        /// The group it names (`2`, `n_x`).
        group: String,
        /// How to write what was probably meant.
        hint: String,
    },
}

/// Why `input` is not a URL, in the user's words: the WHATWG parser's reason names only what it tripped on
/// last (text with a space fails as an "invalid international domain name"), so the common cases are told
/// first.
fn why_not_a_url(input: &str, reason: url::ParseError) -> String {
    let text = input.trim();
    let host = text
        .split_once("://")
        .map_or(text, |(_, rest)| rest)
        .split(['/', '?', '#'])
        .next()
        .unwrap_or_default();
    if text.is_empty() {
        return "it is empty".to_string();
    }
    if host.chars().any(char::is_whitespace) {
        return "its host name contains a space".to_string();
    }
    match reason {
        url::ParseError::IdnaError if host.is_ascii() => {
            let bad: String = host
                .chars()
                .filter(|c| !(c.is_ascii_alphanumeric() || ".-_:[]@%".contains(*c)))
                .take(3)
                .collect();
            if bad.is_empty() {
                "its host name is not a valid domain name".to_string()
            } else {
                format!("its host name contains {bad:?}, which host names cannot hold")
            }
        }
        url::ParseError::EmptyHost => "it has no host name".to_string(),
        url::ParseError::InvalidPort => "its port is not a number from 0 to 65535".to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_url_that_is_not_one_is_told_in_plain_words() {
        let said = |input: &str| crate::parse_seed(input).unwrap_err().to_string();
        assert_eq!(
            said("not a url"),
            "\"not a url\" is not a valid URL: its host name contains a space"
        );
        assert!(said("http://exa mple.com/").ends_with("its host name contains a space"));
        assert!(
            said("http://a<b>.com/").contains("\"<>\""),
            "{}",
            said("http://a<b>.com/")
        );
        assert!(said("http://a.com:99999/").ends_with("its port is not a number from 0 to 65535"));
        assert!(
            said("http://ex\u{e4}mple\u{fffe}.com/").ends_with("invalid international domain name")
        );
    }
}
