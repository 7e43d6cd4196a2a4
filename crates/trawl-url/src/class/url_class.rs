//! One compiled URL class: does a URL match, and why not.

use url::Url;

use super::component::{PathComponent, QueryParam, decode, odd_default};
use super::converter::StringConverter;
use super::def::{UrlClassDef, UrlKind};
use super::domain::DomainMask;
use super::error::ClassError;
use super::parts::{Query, path_components};

/// Where the next gallery page's number is, checked against the class.
#[derive(Debug, Clone)]
pub(crate) enum PageIndex {
    /// The index of a listed path component.
    Path(usize),
    /// The decoded name of a listed parameter.
    Query(String),
}

/// A URL class compiled from its [`UrlClassDef`]: it recognises, normalises and derives URLs of one kind.
///
/// Get one from a [`UrlClasses`](super::UrlClasses) library, which also picks the most specific class for a URL.
#[derive(Debug, Clone)]
pub struct UrlClass {
    pub(crate) def: UrlClassDef,
    pub(crate) domain: DomainMask,
    pub(crate) path: Vec<PathComponent>,
    pub(crate) query: Vec<QueryParam>,
    pub(crate) api: Option<StringConverter>,
    pub(crate) next_page: Option<(PageIndex, i64)>,
    pub(crate) keep_extra_query_for_server: bool,
    /// What is odd but usable (a default that fails its own match), as [`ClassError::InvalidField`]s.
    warnings: Vec<ClassError>,
}

impl UrlClass {
    /// Compiles one definition. Errors name the class and the field.
    pub fn new(def: UrlClassDef) -> Result<Self, ClassError> {
        let class = def.name.clone();
        let invalid = |field: String, reason: String| ClassError::InvalidField {
            class: class.clone(),
            field,
            reason,
        };
        if def.name.trim().is_empty() {
            return Err(invalid("name".into(), "must not be empty".into()));
        }
        let domain = DomainMask::new(
            &def.domains,
            &def.domain_regexes,
            def.match_subdomains,
            def.keep_subdomains,
        )
        .map_err(|(field, reason)| invalid(field, reason))?;
        let path = def
            .path
            .iter()
            .enumerate()
            .map(|(i, c)| {
                PathComponent::new(c)
                    .map_err(|(f, reason)| invalid(format!("path[{i}].{f}"), reason))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let query = def
            .query
            .iter()
            .enumerate()
            .map(|(i, p)| {
                QueryParam::new(p).map_err(|(f, reason)| invalid(format!("query[{i}].{f}"), reason))
            })
            .collect::<Result<Vec<_>, _>>()?;
        for (i, p) in query.iter().enumerate() {
            if query[..i].iter().any(|q| q.decoded_name == p.decoded_name) {
                return Err(invalid(
                    format!("query[{i}].name"),
                    format!("{:?} is listed twice", p.decoded_name),
                ));
            }
        }
        let api = if def.api.is_empty() {
            None
        } else {
            let converter =
                StringConverter::new(def.api.clone()).map_err(|source| ClassError::Convert {
                    class: class.clone(),
                    field: "api".into(),
                    source: Box::new(source),
                })?;
            Some(converter)
        };
        let next_page = match &def.next_page {
            None => None,
            Some(_) if def.kind != UrlKind::Gallery => {
                return Err(invalid(
                    "next_page".into(),
                    format!("is only for gallery classes, not {}", def.kind.as_str()),
                ));
            }
            Some(np) => {
                let index = match (&np.query, np.path) {
                    (Some(name), None) => {
                        let name = decode(name).into_owned();
                        if !query.iter().any(|q| q.decoded_name == name) {
                            return Err(invalid(
                                "next_page.query".into(),
                                format!("{name:?} is not one of the class's query parameters"),
                            ));
                        }
                        PageIndex::Query(name)
                    }
                    (None, Some(i)) if i < path.len() => PageIndex::Path(i),
                    (None, Some(i)) => {
                        return Err(invalid(
                            "next_page.path".into(),
                            format!(
                                "{i} is not the index of one of the class's {} path components",
                                path.len()
                            ),
                        ));
                    }
                    _ => {
                        return Err(invalid(
                            "next_page".into(),
                            "needs exactly one of query = NAME or path = INDEX".into(),
                        ));
                    }
                };
                Some((index, np.delta))
            }
        };
        let keep_extra_query_for_server = def.keeps_extra_query_for_server();
        let path_defaults = path
            .iter()
            .enumerate()
            .map(|(i, c)| (format!("path[{i}].default"), &c.matcher, &c.default));
        let query_defaults = query
            .iter()
            .enumerate()
            .map(|(i, q)| (format!("query[{i}].default"), &q.matcher, &q.default));
        let warnings = path_defaults
            .chain(query_defaults)
            .filter_map(|(field, matcher, default)| {
                odd_default(matcher, default.as_deref()).map(|reason| invalid(field, reason))
            })
            .collect();
        Ok(Self {
            def,
            domain,
            path,
            query,
            api,
            next_page,
            keep_extra_query_for_server,
            warnings,
        })
    }

    /// What is odd in the definition but does not stop the class from working, each naming its field.
    pub fn warnings(&self) -> &[ClassError] {
        &self.warnings
    }

    /// The class's name.
    pub fn name(&self) -> &str {
        &self.def.name
    }

    /// What URLs of this class are.
    pub fn kind(&self) -> UrlKind {
        self.def.kind
    }

    /// The definition the class was compiled from.
    pub fn def(&self) -> &UrlClassDef {
        &self.def
    }

    /// hydrus's sort key of specificity (`URLClass.GetSortingComplexityKey`), higher first: the longest
    /// domain or domain regex, then required (no default) and all path components, required and all
    /// parameters, and the length of the example as sent to the server.
    pub(crate) fn specificity(&self) -> (usize, usize, usize, usize, usize, usize) {
        let required_path = self.path.iter().filter(|c| c.default.is_none()).count();
        let required_query = self.query.iter().filter(|q| q.default.is_none()).count();
        let example = Url::parse(&self.def.example)
            .ok()
            .and_then(|u| self.for_server(&u).ok())
            .map_or(self.def.example.len(), |u| u.as_str().len());
        (
            self.domain.sort_length(),
            required_path,
            self.path.len(),
            required_query,
            self.query.len(),
            example,
        )
    }

    /// Whether `url` is of this class.
    pub fn matches(&self, url: &Url) -> bool {
        self.mismatch(url).is_none()
    }

    /// `Ok` if `url` is of this class, else [`ClassError::NoMatch`] with the first rule it broke.
    pub fn test(&self, url: &Url) -> Result<(), ClassError> {
        match self.mismatch(url) {
            None => Ok(()),
            Some(reason) => Err(ClassError::NoMatch {
                class: self.def.name.clone(),
                url: url.to_string(),
                reason,
            }),
        }
    }

    /// Why `url` does not match, or `None` if it does. Cheap when the host differs, as it usually does.
    fn mismatch(&self, url: &Url) -> Option<String> {
        if !matches!(url.scheme(), "http" | "https") {
            return Some(format!("scheme {:?} is not http or https", url.scheme()));
        }
        let host = class_host(url);
        if !self.domain.matches(host) {
            return Some(format!("host {host:?} is not one of the class's domains"));
        }
        let components = path_components(url.path());
        if self.def.exact_path && components.len() > self.path.len() {
            return Some(format!(
                "the path has {} components, more than the {} of this exact_path class",
                components.len(),
                self.path.len()
            ));
        }
        for (i, c) in self.path.iter().enumerate() {
            match components.get(i) {
                Some(text) => {
                    if let Some(why) = c.matcher.why_not(text) {
                        return Some(format!("path component {i}: {why}"));
                    }
                }
                None if c.default.is_some() => {}
                None => {
                    return Some(format!(
                        "the path has {} components; the class needs {}",
                        components.len(),
                        i + 1
                    ));
                }
            }
        }
        let query = Query::parse(url.query());
        if self.def.exact_query {
            if let Some(single) = query.singles().next() {
                return Some(format!(
                    "parameter {single:?} has no value, and the class is exact_query"
                ));
            }
            for (key, _) in query.keyed() {
                if !self.query.iter().any(|p| p.decoded_name == decode(key)) {
                    return Some(format!(
                        "parameter {key:?} is not listed, and the class is exact_query"
                    ));
                }
            }
        }
        for p in &self.query {
            match query.get(&p.decoded_name) {
                Some(value) => {
                    if let Some(why) = p.matcher.why_not(value) {
                        return Some(format!("parameter {:?}: {why}", p.decoded_name));
                    }
                }
                None if p.default.is_some() => {}
                None => return Some(format!("parameter {:?} is missing", p.decoded_name)),
            }
        }
        None
    }
}

/// `url`'s host as a class matches and writes it: a trailing dot left off, since `example.com.` is
/// `example.com` (url-identity.md; xt47a F3: a dotted link skipped its class and was fetched twice).
pub(super) fn class_host(url: &Url) -> &str {
    let host = url.host_str().unwrap_or_default();
    host.strip_suffix('.').unwrap_or(host)
}
