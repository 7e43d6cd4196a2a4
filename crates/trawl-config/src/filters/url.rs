//! URL filters as decide rules: `regexp`, `path` and `extension`.

use regex::Regex;

use super::{
    build_regex,
    pattern::{Signed, filtered, split_signed, wildcard},
};
use crate::{
    decide::{DecideInput, DecideRule, Decision},
    settings::filters::UrlFilterSpec,
};

#[derive(Debug, Clone)]
enum Kind {
    Regexp(Regex),
    Path(Vec<Signed>),
    Extension(Vec<Signed>),
}

/// `url_filter`: one HarvestMan URL filter. Answers REJECT for a URL it filters out, else PASS; in traces it
/// is named `url_filter[N]` after its place in `[[filters.url]]`. Seeds and prerequisites (hop `P`) are never
/// filtered: the filters judge links found on pages.
///
/// - `regexp`: filters out URLs the regex matches anywhere.
/// - `path`: `-` patterns filter out URLs containing them (`*` = anything), a later `+` pattern lets matching
///   URLs back in; a leading `+` pattern filters out every URL it does not match (exclusive inclusion).
/// - `extension`: the same, on the extension of the URL's last path segment (without the `.`); a URL without
///   an extension has the empty one.
///
/// Matching ignores case unless `case = true`.
#[derive(Debug, Clone)]
pub struct UrlFilter {
    kind: Kind,
    case: bool,
}

impl UrlFilter {
    /// The filter of a `[[filters.url]]` entry; the error names the key at fault.
    pub fn from_spec(spec: &UrlFilterSpec) -> Result<UrlFilter, (String, String)> {
        let given: Vec<&str> = [
            ("regexp", &spec.regexp),
            ("path", &spec.path),
            ("extension", &spec.extension),
        ]
        .iter()
        .filter(|(_, v)| v.is_some())
        .map(|(k, _)| *k)
        .collect();
        if given.len() != 1 {
            return Err((
                String::new(),
                format!(
                    "a URL filter needs exactly one of `regexp`, `path`, `extension`; this one has {}",
                    if given.is_empty() {
                        "none".to_string()
                    } else {
                        given.join(", ")
                    }
                ),
            ));
        }
        let kind = if let Some(r) = &spec.regexp {
            Kind::Regexp(
                build_regex(r, spec.flags.as_deref(), spec.case)
                    .map_err(|e| ("regexp".into(), e.to_string()))?,
            )
        } else {
            if spec.flags.is_some() {
                return Err((
                    "flags".into(),
                    "`flags` applies to `regexp` filters only".into(),
                ));
            }
            let (key, value) = match (&spec.path, &spec.extension) {
                (Some(p), _) => ("path", p),
                (_, Some(e)) => ("extension", e),
                _ => unreachable!("exactly one kind was given"),
            };
            let mut pats = split_signed(value);
            if pats.is_empty() {
                return Err((key.into(), format!("{value:?} holds no pattern")));
            }
            for p in &mut pats {
                if key == "extension" {
                    p.pattern = p.pattern.trim_start_matches('.').to_string();
                }
                if !spec.case {
                    p.pattern = p.pattern.to_lowercase();
                }
            }
            if key == "path" {
                Kind::Path(pats)
            } else {
                Kind::Extension(pats)
            }
        };
        Ok(UrlFilter {
            kind,
            case: spec.case,
        })
    }

    /// Whether the filter filters out `url`.
    pub fn filters(&self, url: &url::Url) -> bool {
        let fold = |s: &str| {
            if self.case {
                s.to_string()
            } else {
                s.to_lowercase()
            }
        };
        // The URL as served (percent-encoded, punycode host) and as an address bar shows it (`/café/`,
        // `bücher.de`): a filter copied from either matches.
        let readable = trawl_url::readable::readable(url);
        let forms = [url.as_str(), readable.as_ref()];
        let forms = if forms[0] == forms[1] {
            &forms[..1]
        } else {
            &forms[..]
        };
        match &self.kind {
            Kind::Regexp(r) => forms.iter().any(|f| r.is_match(f)),
            Kind::Path(pats) => {
                let texts: Vec<String> = forms.iter().map(|f| fold(f)).collect();
                filtered(pats, |p| texts.iter().any(|t| wildcard(p, t, false)))
            }
            Kind::Extension(pats) => {
                let path = trawl_url::readable::decode_non_ascii(url.path());
                let last = fold(path.rsplit('/').next().unwrap_or(""));
                filtered(pats, |p| wildcard(p, extension(&last, p), true))
            }
        }
    }
}

/// The extension of the last path segment `last` that pattern `p` is compared with: as many dot-separated
/// parts as `p` has (`gz` of `a.tar.gz` for `gz`, `tar.gz` for `tar.gz`), empty without a `.`.
fn extension<'a>(last: &'a str, p: &str) -> &'a str {
    let parts = p.matches('.').count() + 1;
    match last.rmatch_indices('.').nth(parts - 1) {
        Some((i, _)) => &last[i + 1..],
        None => "",
    }
}

impl DecideRule for UrlFilter {
    fn name(&self) -> &str {
        "url_filter"
    }

    fn default_decision(&self) -> Decision {
        Decision::Reject
    }

    fn matches(&self, input: &DecideInput<'_>) -> bool {
        !input.uri.is_seed && !input.uri.is_prerequisite() && self.filters(&input.uri.url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(kind: &str, value: &str, case: bool) -> UrlFilterSpec {
        UrlFilterSpec {
            regexp: (kind == "regexp").then(|| value.into()),
            path: (kind == "path").then(|| value.into()),
            extension: (kind == "extension").then(|| value.into()),
            flags: None,
            case,
            enable: true,
        }
    }

    /// Every example of harvestman-filters.txt: (kind, value, case, URL, filtered out).
    #[test]
    fn seed_examples() {
        let rows = [
            // "-/images/private/ - Exclude any URL matching /images/private anywhere in the URL"
            (
                "path",
                "-/images/private/",
                false,
                "http://www.foo.com/images/private/a.jpg",
                true,
            ),
            (
                "path",
                "-/images/private/",
                false,
                "http://www.foo.com/images/a.jpg",
                false,
            ),
            // "-/images/*+/images/public/*" blocks these ...
            (
                "path",
                "-/images/*+/images/public/*",
                false,
                "http://www.foo.com/images/image1.jpg",
                true,
            ),
            (
                "path",
                "-/images/*+/images/public/*",
                false,
                "http://www.foo.com/images/image2.jpg",
                true,
            ),
            (
                "path",
                "-/images/*+/images/public/*",
                false,
                "http://www.foo.com/images/image3.jpg",
                true,
            ),
            // ... and allows these
            (
                "path",
                "-/images/*+/images/public/*",
                false,
                "http://www.foo.com/images/public/pub1.jpg",
                false,
            ),
            (
                "path",
                "-/images/*+/images/public/*",
                false,
                "http://www.foo.com/images/public/pub2.jpg",
                false,
            ),
            (
                "path",
                "-/images/*+/images/public/*",
                false,
                "http://www.foo.com/about.html",
                false,
            ),
            // "-images/*+images/public/*" (no leading slash) means the same
            (
                "path",
                "-images/*+images/public/*",
                false,
                "http://www.foo.com/images/image1.jpg",
                true,
            ),
            (
                "path",
                "-images/*+images/public/*",
                false,
                "http://www.foo.com/images/public/pub1.jpg",
                false,
            ),
            // "+/images/public/" alone: exclusive inclusion, everything else filtered out
            (
                "path",
                "+/images/public/",
                false,
                "http://www.foo.com/images/public/pub1.jpg",
                false,
            ),
            (
                "path",
                "+/images/public/",
                false,
                "http://www.foo.com/index.html",
                true,
            ),
            // "-jpg,-png" and "-jpg -png": filter out .jpg and .png
            (
                "extension",
                "-jpg,-png",
                false,
                "http://www.foo.com/a.jpg",
                true,
            ),
            (
                "extension",
                "-jpg,-png",
                false,
                "http://www.foo.com/a.png",
                true,
            ),
            (
                "extension",
                "-jpg,-png",
                false,
                "http://www.foo.com/a.gif",
                false,
            ),
            (
                "extension",
                "-jpg -png",
                false,
                "http://www.foo.com/a.png",
                true,
            ),
            (
                "extension",
                "-jpg -png",
                false,
                "http://www.foo.com/a.html",
                false,
            ),
            // "-jp*+jpeg": .jp<anything> filtered out except .jpeg
            (
                "extension",
                "-jp*+jpeg",
                false,
                "http://www.foo.com/a.jpg",
                true,
            ),
            (
                "extension",
                "-jp*+jpeg",
                false,
                "http://www.foo.com/a.jpe",
                true,
            ),
            (
                "extension",
                "-jp*+jpeg",
                false,
                "http://www.foo.com/a.jpeg",
                false,
            ),
            (
                "extension",
                "-jp*+jpeg",
                false,
                "http://www.foo.com/a.png",
                false,
            ),
            // "+jpeg": exclusive inclusivity, everything else (html too) filtered out
            (
                "extension",
                "+jpeg",
                false,
                "http://www.foo.com/a.jpeg",
                false,
            ),
            (
                "extension",
                "+jpeg",
                false,
                "http://www.foo.com/a.html",
                true,
            ),
            ("extension", "+jpeg", false, "http://www.foo.com/", true),
            // regexp "(\s*\/banner\/)": always an exclusion
            (
                "regexp",
                r"(\s*\/banner\/)",
                false,
                "http://www.foo.com/banner/top.gif",
                true,
            ),
            (
                "regexp",
                r"(\s*\/banner\/)",
                false,
                "http://www.foo.com/ads/top.gif",
                false,
            ),
            // all filters are case-insensitive by default; `case = true` makes them sensitive
            (
                "regexp",
                r"(\s*\/banner\/)",
                false,
                "http://www.foo.com/BANNER/top.gif",
                true,
            ),
            (
                "regexp",
                r"(\s*\/banner\/)",
                true,
                "http://www.foo.com/BANNER/top.gif",
                false,
            ),
            (
                "path",
                "-/images/*+/images/public/*",
                false,
                "http://www.foo.com/IMAGES/x.jpg",
                true,
            ),
            (
                "path",
                "-/images/*+/images/public/*",
                true,
                "http://www.foo.com/IMAGES/x.jpg",
                false,
            ),
            (
                "extension",
                "-jpg,-png",
                false,
                "http://www.foo.com/a.JPG",
                true,
            ),
            (
                "extension",
                "-jpg,-png",
                true,
                "http://www.foo.com/a.JPG",
                false,
            ),
            // "The '.' are not required"
            (
                "extension",
                "-.jpg",
                false,
                "http://www.foo.com/a.jpg",
                true,
            ),
        ];
        for (kind, value, case, url, want) in rows {
            let f = UrlFilter::from_spec(&spec(kind, value, case)).unwrap();
            let url = url::Url::parse(url).unwrap();
            assert_eq!(f.filters(&url), want, "{kind} {value:?} case={case} {url}");
        }
    }

    /// xt5 F5 and F7: filters written as an address bar shows the URL (non-ASCII text, Unicode hosts) match;
    /// `/+` and `/-` inside a path are literal; a dotted extension matches the end of the last segment.
    #[test]
    fn readable_urls_signs_in_paths_and_dotted_extensions() {
        let rows = [
            (
                "path",
                "-/café",
                "http://127.0.0.1:8601/caf%C3%A9/a.html",
                true,
            ),
            ("path", "-/café", "http://127.0.0.1:8601/cafe/a.html", false),
            (
                "path",
                "-/CAFÉ",
                "http://127.0.0.1:8601/caf%C3%A9/a.html",
                true,
            ),
            (
                "regexp",
                "café2",
                "http://127.0.0.1:8601/café2/a.html",
                true,
            ),
            (
                "regexp",
                "caf%C3%A92",
                "http://127.0.0.1:8601/café2/a.html",
                true,
            ),
            ("regexp", "bücher", "http://bücher.de/x", true),
            ("regexp", "xn--bcher", "http://bücher.de/x", true),
            ("extension", "-pdf", "http://a.org/%C3%A9t%C3%A9.pdf", true),
            ("extension", "-tar.gz", "http://a.org/a.tar.gz", true),
            ("extension", "-tar.gz", "http://a.org/a.gz", false),
            ("extension", "-gz", "http://a.org/a.tar.gz", true),
            ("extension", "-tar", "http://a.org/a.tar.gz", false),
            ("extension", "+tar.gz", "http://a.org/a.zip", true),
            ("path", "-/+plus/", "http://127.0.0.1:8601/+plus/x", true),
            ("path", "-/+plus/", "http://127.0.0.1:8601/anything", false),
            ("path", "-/-/issues", "http://g.test/group/-/issues/1", true),
            ("path", "-/-/issues", "http://g.test/group/issues", false),
        ];
        for (kind, value, url, want) in rows {
            let f = UrlFilter::from_spec(&spec(kind, value, false)).unwrap();
            let url = url::Url::parse(url).unwrap();
            assert_eq!(f.filters(&url), want, "{kind} {value:?} {url}");
        }
    }

    #[test]
    fn exactly_one_kind_and_valid_flags() {
        let mut s = spec("path", "-/a/", false);
        s.extension = Some("-jpg".into());
        let e = UrlFilter::from_spec(&s).unwrap_err();
        assert!(e.1.contains("exactly one"), "{e:?}");
        let mut s = spec("regexp", "(", false);
        assert_eq!(UrlFilter::from_spec(&s).unwrap_err().0, "regexp");
        s.regexp = Some("a".into());
        s.flags = Some("re.LOCALE".into());
        assert!(UrlFilter::from_spec(&s).is_ok());
        s.flags = Some("re.NOPE".into());
        assert!(UrlFilter::from_spec(&s).is_err());
    }

    #[test]
    fn seeds_and_prerequisites_pass() {
        use crate::decide::test_util::uri;
        let f = UrlFilter::from_spec(&spec("extension", "+jpeg", false)).unwrap();
        assert!(!f.matches(&DecideInput::new(&uri("http://a.org/", ""))));
        assert!(!f.matches(&DecideInput::new(&uri("http://a.org/robots.txt", "LP"))));
        assert!(f.matches(&DecideInput::new(&uri("http://a.org/x.html", "L"))));
    }
}
