//! Answer for URLs that a URL class recognises as a given kind.

use std::sync::Arc;

use trawl_url::{UrlClasses, class::UrlKind};

use super::{DecideInput, DecideRule, Decision};

/// `url_class_kind`: answers its decision (default ACCEPT) for a URI whose URL a URL class of the crawl
/// matches with one of `kinds` (`file`, `post`, `gallery`, `watchable`), else PASS.
#[derive(Debug, Clone)]
pub struct UrlClassKind {
    /// The crawl's URL classes.
    pub classes: Arc<UrlClasses>,
    /// The kinds that match.
    pub kinds: Vec<UrlKind>,
}

impl DecideRule for UrlClassKind {
    fn name(&self) -> &str {
        "url_class_kind"
    }

    fn default_decision(&self) -> Decision {
        Decision::Accept
    }

    fn matches(&self, input: &DecideInput<'_>) -> bool {
        self.classes
            .class_for(&input.uri.url)
            .is_some_and(|c| self.kinds.contains(&c.def().kind))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::test_util::decide;

    #[test]
    fn by_kind() {
        let classes = UrlClasses::from_toml_str(
            r#"
[[url_class]]
name = "gallery"
kind = "gallery"
domains = ["pics.example"]
example = "https://pics.example/gallery"
path = [{ match = "fixed", value = "gallery" }]
"#,
            "test",
        )
        .unwrap();
        let rule = UrlClassKind {
            classes: Arc::new(classes),
            kinds: vec![UrlKind::Gallery],
        };
        assert_eq!(
            decide(&rule, "https://pics.example/gallery", "L"),
            Decision::Accept
        );
        assert_eq!(decide(&rule, "https://pics.example/x", "L"), Decision::Pass);
    }
}
