//! Version templates: the same page across software versions, `https://docs.python.org/%s/library/datetime.html`.
//!
//! A path segment is a version when it is a dotted number with an optional `v` and pre-release suffix (`3.12`,
//! `v2.1.0`, `1.0rc1`), `v` and a number (`v2`), or one of the channel names `latest`, `stable`, `dev`,
//! `devel`, `nightly`, `current`. A bare number (`/questions/1732348`) is not a version. The first version
//! segment becomes `%s`; any other `%` in the template is a percent escape of the URL.

use std::sync::LazyLock;

use regex::Regex;
use url::Url;

static VERSION_SEGMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:v?\d+(?:\.\d+)+(?:[-.]?(?:a|b|rc|alpha|beta|dev|post)\d*)?",
        r"|v\d+|latest|stable|dev|devel|nightly|current)$"
    ))
    .unwrap()
});

/// A URL with its version segment replaced by `%s`, and the version it had.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct VersionTemplate {
    /// `https://docs.python.org/%s/library/datetime.html`.
    pub template: String,
    /// `3.12`.
    pub version: String,
}

/// The version template of `url`, or `None` when no path segment looks like a version. The fragment is dropped.
///
/// ```
/// use trawl_url::{Url, version::version_template};
/// let u = Url::parse("https://docs.python.org/3.12/library/datetime.html").unwrap();
/// let t = version_template(&u).unwrap();
/// assert_eq!(t.template, "https://docs.python.org/%s/library/datetime.html");
/// assert_eq!(t.version, "3.12");
/// ```
pub fn version_template(url: &Url) -> Option<VersionTemplate> {
    if url.cannot_be_a_base() {
        return None;
    }
    let path = url.path();
    let mut start = 0;
    for seg in path.split('/') {
        if !seg.is_empty() && VERSION_SEGMENT.is_match(seg) {
            let mut u = url.clone();
            u.set_fragment(None);
            let s = u.as_str();
            let path_at = s.find(path).unwrap_or(0);
            let mut template = String::with_capacity(s.len());
            template.push_str(&s[..path_at + start]);
            template.push_str("%s");
            template.push_str(&s[path_at + start + seg.len()..]);
            return Some(VersionTemplate {
                template,
                version: seg.to_string(),
            });
        }
        start += seg.len() + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows() {
        let rows = [
            (
                "https://docs.python.org/3.12/library/datetime.html",
                Some("https://docs.python.org/%s/library/datetime.html"),
            ),
            ("https://docs.python.org/3/library/datetime.html", None),
            (
                "https://example.com/lib/v2.1.0/api?x=1",
                Some("https://example.com/lib/%s/api?x=1"),
            ),
            (
                "https://docs.rs/serde/latest/serde/",
                Some("https://docs.rs/serde/%s/serde/"),
            ),
            (
                "https://example.org/api/v2/users",
                Some("https://example.org/api/%s/users"),
            ),
            ("https://stackoverflow.com/questions/1732348", None),
            (
                "https://a.org/stable/x/3.1/",
                Some("https://a.org/%s/x/3.1/"),
            ),
            ("https://a.org/pkg/1.0rc1/", Some("https://a.org/pkg/%s/")),
        ];
        for (input, want) in rows {
            let got = version_template(&Url::parse(input).unwrap());
            assert_eq!(got.as_ref().map(|t| t.template.as_str()), want, "{input}");
        }
    }
}
