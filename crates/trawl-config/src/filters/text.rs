//! Text filters: `content` over a page's text, `meta` over its title, keywords and description.

use regex::Regex;

use super::{FilterMode, build_regex};
use crate::settings::filters::{FiltersConfig, TextFilterSpec};

/// What a page says about itself in its head; the extractor fills it in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HtmlMeta {
    /// `<title>`.
    pub title: Option<String>,
    /// `<meta name="keywords">`, as written (comma-separated).
    pub keywords: Option<String>,
    /// `<meta name="description">`.
    pub description: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    Title,
    Keywords,
    Description,
}

#[derive(Debug, Clone)]
enum Kind {
    Content,
    Meta { tags: Vec<Tag>, all: bool },
}

#[derive(Debug, Clone)]
struct TextFilter {
    index: usize,
    regex: Regex,
    kind: Kind,
}

/// Which text filter matched a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextFilterMatch {
    /// Its place in `[[filters.text]]`, from 0.
    pub index: usize,
    /// What a match does (`filters.text_mode`).
    pub mode: FilterMode,
}

impl TextFilterMatch {
    /// The annotation for crawl.log: `text_filter[N]`.
    pub fn label(&self) -> String {
        format!("text_filter[{}]", self.index)
    }
}

/// The enabled text filters, OR-ed.
#[derive(Debug, Clone, Default)]
pub struct TextFilters {
    filters: Vec<TextFilter>,
    mode: FilterMode,
}

/// A meta filter's `tags` value that cannot be read; the message says what to write.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct BadTags(String);

/// The tags of a meta filter, and whether all of them must match (`&`) rather than any (`|`).
fn parse_tags(tags: &str) -> Result<(Vec<Tag>, bool), BadTags> {
    let all = tags.contains('&');
    if all && tags.contains('|') {
        return Err(BadTags(format!("{tags:?} mixes `|` and `&`: use one")));
    }
    let mut out = Vec::new();
    for t in tags.split(['|', '&', ',']).map(str::trim) {
        out.push(match t.to_ascii_lowercase().as_str() {
            "title" => Tag::Title,
            "keywords" => Tag::Keywords,
            "description" => Tag::Description,
            "all" => return Ok((vec![Tag::Title, Tag::Keywords, Tag::Description], false)),
            _ => {
                return Err(BadTags(format!(
                    "unknown tag {t:?}: use title, keywords, description"
                )));
            }
        });
    }
    Ok((out, all))
}

impl TextFilters {
    /// The text filters of `[filters]`; errors name the key (`text[2].meta`) and say what is wrong, all of them.
    pub fn from_config(config: &FiltersConfig) -> Result<TextFilters, Vec<(String, String)>> {
        let mut problems = Vec::new();
        let mut filters = Vec::new();
        for (index, spec) in config.text.iter().enumerate() {
            match Self::one(spec) {
                Ok((regex, kind)) if spec.enable => filters.push(TextFilter { index, regex, kind }),
                Ok(_) => {}
                Err((k, m)) => problems.push((
                    crate::settings::rules::join(&format!("text[{index}]"), &k),
                    m,
                )),
            }
        }
        if problems.is_empty() {
            Ok(TextFilters {
                filters,
                mode: config.text_mode,
            })
        } else {
            Err(problems)
        }
    }

    fn one(spec: &TextFilterSpec) -> Result<(Regex, Kind), (String, String)> {
        let (key, pattern, kind) = match (&spec.content, &spec.meta) {
            (Some(c), None) => {
                if spec.tags.is_some() {
                    return Err((
                        "tags".into(),
                        "`tags` applies to `meta` filters only".into(),
                    ));
                }
                ("content", c, Kind::Content)
            }
            (None, Some(m)) => {
                let (tags, all) = parse_tags(spec.tags.as_deref().unwrap_or("all"))
                    .map_err(|e| ("tags".to_string(), e.to_string()))?;
                ("meta", m, Kind::Meta { tags, all })
            }
            _ => {
                return Err((
                    String::new(),
                    "a text filter needs exactly one of `content`, `meta`".into(),
                ));
            }
        };
        let regex = build_regex(pattern, spec.flags.as_deref(), spec.case)
            .map_err(|e| (key.to_string(), e.to_string()))?;
        Ok((regex, kind))
    }

    /// Whether no filter is enabled.
    pub fn is_empty(&self) -> bool {
        self.filters.is_empty()
    }

    /// The first filter that matches a page with text `body_text` (tags removed) and head `meta`, if any.
    pub fn check(&self, body_text: &str, meta: &HtmlMeta) -> Option<TextFilterMatch> {
        self.filters
            .iter()
            .find(|f| match &f.kind {
                Kind::Content => f.regex.is_match(body_text),
                Kind::Meta { tags, all } => {
                    let hit = |t: &Tag| match t {
                        Tag::Title => meta.title.as_deref().is_some_and(|s| f.regex.is_match(s)),
                        Tag::Description => meta
                            .description
                            .as_deref()
                            .is_some_and(|s| f.regex.is_match(s)),
                        Tag::Keywords => meta.keywords.as_deref().is_some_and(|k| {
                            k.split(',')
                                .map(str::trim)
                                .any(|item| f.regex.is_match(item))
                        }),
                    };
                    if *all {
                        tags.iter().all(hit)
                    } else {
                        tags.iter().any(hit)
                    }
                }
            })
            .map(|f| TextFilterMatch {
                index: f.index,
                mode: self.mode,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filters(toml_text: &str) -> TextFilters {
        let c: crate::CrawlConfig = toml::from_str(toml_text).unwrap();
        TextFilters::from_config(&c.filters).unwrap()
    }

    fn page() -> HtmlMeta {
        HtmlMeta {
            title: Some("HarvestMan home".into()),
            keywords: Some("crawler, spider, bot, web-bot, robot".into()),
            description: Some("An internet spider".into()),
        }
    }

    /// The seed's text filter examples: (filter, body text, head, matched).
    #[test]
    fn seed_examples() {
        let m = page();
        let none = HtmlMeta::default();
        let rows = [
            // <content value="(Python\s+Perl)" flags="re.MULTILINE" />
            (
                r#"content = '(Python\s+Perl)'
flags = "re.MULTILINE""#,
                "we use Python\n  Perl here",
                &none,
                true,
            ),
            (
                r#"content = '(Python\s+Perl)'"#,
                "we use Python only",
                &none,
                false,
            ),
            // content excludes tags: the caller passes text without tags
            (r#"content = 'python\s+perl'"#, "PYTHON PERL", &none, true),
            // <meta value="web-bot" />: any of the three tags by default
            (r#"meta = "web-bot""#, "", &m, true),
            // keywords are matched item by item: "^web-bot$" matches the item, not the whole string
            (
                r#"meta = "^web-bot$"
tags = "keywords""#,
                "",
                &m,
                true,
            ),
            (
                r#"meta = "^web-bot$"
tags = "description""#,
                "",
                &m,
                false,
            ),
            // tags="keywords|description": either
            (
                r#"meta = "(web-bot|crawler|robot|web-crawler)"
tags = "keywords|description""#,
                "",
                &m,
                true,
            ),
            // tags="keywords&description": both must match
            (
                r#"meta = "(web-bot|crawler|robot|web-crawler)"
tags = "keywords&description""#,
                "",
                &m,
                false,
            ),
            (
                r#"meta = "(spider)"
tags = "keywords&description""#,
                "",
                &m,
                true,
            ),
            // separate regexes per tag
            (
                r#"meta = "internet|crawler|web-bot|web-crawler"
tags = "description""#,
                "",
                &m,
                true,
            ),
            (
                r#"meta = "harvestman|web-crawler"
tags = "title""#,
                "",
                &m,
                true,
            ),
            // case = true makes matching case-sensitive
            (
                r#"meta = "harvestman"
tags = "title"
case = true"#,
                "",
                &m,
                false,
            ),
            // a disabled filter never matches
            (
                r#"meta = "web-bot"
enable = false"#,
                "",
                &m,
                false,
            ),
        ];
        for (entry, body, meta, want) in rows {
            let f = filters(&format!("[[filters.text]]\n{entry}\n"));
            assert_eq!(f.check(body, meta).is_some(), want, "{entry}");
        }
    }

    #[test]
    fn or_of_all_filters_and_mode() {
        let f = filters(
            "[filters]\ntext_mode = \"download\"\n[[filters.text]]\ncontent = 'nothing'\n\
             [[filters.text]]\nmeta = 'spider'\ntags = 'description'\n",
        );
        let hit = f.check("text", &page()).unwrap();
        assert_eq!((hit.index, hit.mode), (1, FilterMode::Download));
        assert_eq!(hit.label(), "text_filter[1]");
    }

    #[test]
    fn bad_entries_are_named() {
        let c: crate::CrawlConfig = toml::from_str(
            "[[filters.text]]\ncontent = '('\n[[filters.text]]\nmeta = 'x'\ntags = 'body'\n[[filters.text]]\ntags = 'title'\n",
        )
        .unwrap();
        let e = TextFilters::from_config(&c.filters).unwrap_err();
        let keys: Vec<_> = e.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["text[0].content", "text[1].tags", "text[2]"]);
    }
}
