//! Views of a single-page application. Many applications route by fragment (`#/guide`, `#!/item/7`) and
//! load each view's content by script: URLs that differ only in such a route-like fragment are different
//! views of one document, while a plain `#section` is an anchor within one view (docs/url-identity.md).
//!
//! The server never sees a fragment: a view's document is its URL without one, fetched (and judged by the
//! scope, and deduplicated) as that URL. Its views exist only in a browser, which renders them one after
//! another in the document's page (docs/browser.md).

use url::Url;

/// The route of `url`, when its fragment is route-like: it starts with `/` or `!` (a "hashbang").
pub fn route(url: &Url) -> Option<&str> {
    url.fragment()
        .filter(|f| f.starts_with('/') || f.starts_with('!'))
}

/// Whether `link` is a view of `document` (compared without fragments) with a route of its own.
pub fn is_view_of(link: &Url, document: &Url) -> bool {
    route(link).is_some() && same_document(link, document)
}

/// Whether `a` and `b` differ at most in their fragments.
pub fn same_document(a: &Url, b: &Url) -> bool {
    without_fragment(a) == without_fragment(b)
}

fn without_fragment(u: &Url) -> &str {
    let s = u.as_str();
    &s[..s.len() - u.fragment().map_or(0, |f| f.len() + 1)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn routes_and_anchors() {
        assert_eq!(route(&u("https://x.org/#/guide")), Some("/guide"));
        assert_eq!(route(&u("https://x.org/app#!/item/7")), Some("!/item/7"));
        assert_eq!(route(&u("https://x.org/#section")), None);
        assert_eq!(route(&u("https://x.org/#")), None);
        assert_eq!(route(&u("https://x.org/")), None);
    }

    #[test]
    fn views_of_one_document() {
        let doc = u("https://x.org/app?x=1");
        assert!(is_view_of(&u("https://x.org/app?x=1#/a"), &doc));
        assert!(is_view_of(
            &u("https://x.org/app?x=1#/a"),
            &u("https://x.org/app?x=1#/b")
        ));
        assert!(!is_view_of(&u("https://x.org/app?x=1#top"), &doc));
        assert!(!is_view_of(&u("https://x.org/app?x=2#/a"), &doc));
        assert!(!is_view_of(&u("https://x.org/other#/a"), &doc));
    }

    proptest::proptest! {
        /// Any URL is the same document as itself with any fragment.
        #[test]
        fn a_fragment_never_changes_the_document(path in "[a-z/]{0,12}", frag in "[!/a-z#]{0,12}") {
            let doc = u(&format!("https://x.org/{path}"));
            let mut view = doc.clone();
            view.set_fragment(Some(&frag));
            proptest::prop_assert!(same_document(&doc, &view));
        }
    }
}
