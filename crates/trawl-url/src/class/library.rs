//! A library of URL classes: loading, picking the most specific class for a URL, and checking examples.

use serde::Deserialize;
use url::Url;

use super::def::UrlClassDef;
use super::error::{ClassError, ClassErrors};
use super::matched::ClassMatch;
use super::url_class::UrlClass;

/// The classes in the order hydrus's domain manager tries them (`ClientNetworkingDomain`): sorted by name,
/// grouped by domain mask in order of first appearance; the longest masks first (groups of equal length keep
/// that order); within a group the most specific class first, ties by name. The order never depends on input.
fn hydrus_order(mut classes: Vec<UrlClass>) -> Vec<UrlClass> {
    classes.sort_by(|a, b| a.name().cmp(b.name()));
    let mut first_of_group: Vec<usize> = Vec::new();
    let mut keyed: Vec<_> = classes
        .into_iter()
        .enumerate()
        .map(|(i, c)| (i, c.specificity(), c))
        .collect();
    let groups: Vec<usize> = (0..keyed.len())
        .map(|i| {
            let mask = &keyed[i].2.domain;
            match first_of_group
                .iter()
                .position(|&f| keyed[f].2.domain.same_mask(mask))
            {
                Some(g) => g,
                None => {
                    first_of_group.push(i);
                    first_of_group.len() - 1
                }
            }
        })
        .collect();
    keyed.sort_by(|(i, a, _), (j, b, _)| {
        b.0.cmp(&a.0)
            .then(groups[*i].cmp(&groups[*j]))
            .then(b.cmp(a))
            .then(i.cmp(j))
    });
    keyed.into_iter().map(|(_, _, c)| c).collect()
}

/// A stand-alone class library file: `[[url_class]]` tables and nothing else.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LibraryFile {
    #[serde(default)]
    url_class: Vec<UrlClassDef>,
}

/// A set of compiled URL classes with unique names, kept most specific first.
///
/// ```
/// use trawl_url::class::UrlClasses;
/// let classes = UrlClasses::from_toml_str(r#"
///     [[url_class]]
///     name = "tbib file page"
///     kind = "post"
///     example = "https://tbib.org/index.php?page=post&s=view&id=6391256"
///     domains = ["tbib.org"]
///     path = [ { match = "fixed", value = "index.php" } ]
///     query = [
///       { name = "page", match = "fixed", value = "post" },
///       { name = "s", match = "fixed", value = "view" },
///       { name = "id", match = "numeric" },
///     ]
/// "#, "example.toml").unwrap();
/// assert!(classes.check_examples().is_empty());
/// let url = url::Url::parse("http://www.tbib.org/index.php?id=6391256&s=view&page=post&lang=en#top").unwrap();
/// let m = classes.match_url(&url).unwrap();
/// assert_eq!(m.class, "tbib file page");
/// assert_eq!(m.normalised.as_str(), "https://tbib.org/index.php?id=6391256&page=post&s=view");
/// ```
#[derive(Debug, Clone, Default)]
pub struct UrlClasses {
    classes: Vec<UrlClass>,
}

impl UrlClasses {
    /// Compiles definitions, such as the `url_class` list of a crawl config. Reports every invalid class.
    pub fn from_defs(defs: Vec<UrlClassDef>) -> Result<Self, ClassErrors> {
        let mut errors = Vec::new();
        let mut classes: Vec<UrlClass> = Vec::with_capacity(defs.len());
        // Every name given so far, compiled or not: a repeat is reported even when the first one failed, and
        // the repeat itself is not compiled (its problems would be told apart from the first's by name only).
        let mut names = std::collections::HashSet::new();
        for def in defs {
            if !names.insert(def.name.clone()) {
                errors.push(ClassError::DuplicateName { class: def.name });
                continue;
            }
            match UrlClass::new(def) {
                Ok(class) => classes.push(class),
                Err(e) => errors.push(e),
            }
        }
        if !errors.is_empty() {
            return Err(ClassErrors(errors));
        }
        Ok(Self {
            classes: hydrus_order(classes),
        })
    }

    /// Reads a class library file holding only `[[url_class]]` tables; `origin` (a path, say) names it in
    /// errors.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Self, ClassErrors> {
        Self::from_defs(Self::defs_from_toml_str(text, origin)?)
    }

    /// Parses a class library file without compiling it, for callers that merge libraries before
    /// [`from_defs`](Self::from_defs).
    pub fn defs_from_toml_str(text: &str, origin: &str) -> Result<Vec<UrlClassDef>, ClassErrors> {
        match toml::from_str::<LibraryFile>(text) {
            Ok(file) => Ok(file.url_class),
            Err(e) => Err(ClassError::Parse {
                origin: origin.to_owned(),
                class: e
                    .span()
                    .and_then(|span| class_name_before(text, span.start)),
                message: e.to_string().trim_end().to_owned(),
            }
            .into()),
        }
    }

    /// The most specific class that matches `url`, and everything it derives; `None` if no class matches.
    pub fn match_url(&self, url: &Url) -> Option<ClassMatch> {
        self.class_for(url)?.apply(url)
    }

    /// The most specific class that matches `url`.
    pub fn class_for(&self, url: &Url) -> Option<&UrlClass> {
        self.classes.iter().find(|c| c.matches(url))
    }

    /// The class with this name.
    pub fn get(&self, name: &str) -> Option<&UrlClass> {
        self.classes.iter().find(|c| c.name() == name)
    }

    /// The classes, most specific first (the order [`class_for`](Self::class_for) tries them in).
    pub fn iter(&self) -> std::slice::Iter<'_, UrlClass> {
        self.classes.iter()
    }

    /// What is odd in the classes but usable, class by class (see [`UrlClass::warnings`]).
    pub fn warnings(&self) -> impl Iterator<Item = &ClassError> {
        self.classes.iter().flat_map(|c| c.warnings())
    }

    /// How many classes there are.
    pub fn len(&self) -> usize {
        self.classes.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }

    /// Checks each class against its own `example`, as `trawl check` does: the example parses, matches the class
    /// and is not claimed by a more specific class; its normalised URL matches the class and normalises to
    /// itself; its API URL can be derived and matches another class; its next gallery page can be derived and
    /// matches the class. Returns every failure, in class order.
    pub fn check_examples(&self) -> Vec<ClassError> {
        let mut errors = Vec::new();
        for class in &self.classes {
            if let Err(e) = self.check_example(class) {
                errors.push(e);
            }
        }
        errors
    }

    fn check_example(&self, class: &UrlClass) -> Result<(), ClassError> {
        let name = || class.name().to_owned();
        let example = Url::parse(&class.def().example).map_err(|e| ClassError::InvalidField {
            class: name(),
            field: "example".into(),
            reason: format!("{:?} is not a valid URL: {e}", class.def().example),
        })?;
        class.test(&example)?;
        let picked = self.class_for(&example).expect("the class itself matches");
        if picked.name() != class.name() {
            return Err(ClassError::ExampleClaimed {
                class: name(),
                url: example.into(),
                other: picked.name().into(),
            });
        }
        let normalised = class.normalise(&example)?;
        let again = class.normalise(&normalised)?;
        if again != normalised {
            return Err(ClassError::NotIdempotent {
                class: name(),
                url: example.into(),
                normalised: normalised.into(),
                again: again.into(),
            });
        }
        if let Some(api) = class.api_url(&example)? {
            match self.class_for(&api) {
                None => {
                    return Err(ClassError::ApiUrlUnmatched {
                        class: name(),
                        url: api.into(),
                    });
                }
                Some(c) if c.name() == class.name() => {
                    return Err(ClassError::ApiUrlLoops {
                        class: name(),
                        url: api.into(),
                    });
                }
                Some(_) => {}
            }
        }
        if let Some(next) = class.next_page(&example)? {
            class.test(&next)?;
        }
        Ok(())
    }
}

impl<'a> IntoIterator for &'a UrlClasses {
    type Item = &'a UrlClass;
    type IntoIter = std::slice::Iter<'a, UrlClass>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// The `name` of the `[[url_class]]` table that contains byte `offset`, for naming the class in parse errors.
fn class_name_before(text: &str, offset: usize) -> Option<String> {
    let offset = offset.min(text.len());
    let header = text[..offset].rfind("[[url_class]]")?;
    let table_end = text[header + 1..]
        .find("[[url_class]]")
        .map_or(text.len(), |i| header + 1 + i);
    text[header..table_end].lines().find_map(|line| {
        let value = line
            .trim()
            .strip_prefix("name")?
            .trim_start()
            .strip_prefix('=')?
            .trim();
        let name: String = toml::from_str::<toml::Table>(&format!("v = {value}"))
            .ok()?
            .get("v")?
            .as_str()?
            .to_owned();
        Some(name)
    })
}
