//! Normalisation: the one canonical URL of a class, and the URL sent to the server.

use url::Url;

use super::component::decode;
use super::error::ClassError;
use super::parts::{Entry, Query, path_components};
use super::url_class::UrlClass;

impl UrlClass {
    /// The normalised URL: the one form of `url` that logs, reports and the already-seen filter use.
    ///
    /// The preferred scheme; the matched domain without `www` (the whole host with `keep_subdomains`); exactly
    /// the listed path components, defaults filled in; exactly the listed parameters, defaults filled in, sorted
    /// by name if `alphabetise_query`; no fragment unless `keep_fragment`. Fails if the class does not match.
    pub fn normalise(&self, url: &Url) -> Result<Url, ClassError> {
        self.build(url, false)
    }

    /// The URL to send to the server: as [`normalise`](Self::normalise), except that it keeps path components
    /// beyond the listed ones (unless the class has an API converter), keeps unlisted parameters when
    /// `keep_extra_query_for_server`, and keeps userinfo. Fails if the class does not match.
    pub fn for_server(&self, url: &Url) -> Result<Url, ClassError> {
        self.build(url, true)
    }

    fn build(&self, url: &Url, for_server: bool) -> Result<Url, ClassError> {
        self.test(url)?;
        let mut out = format!("{}://", self.def.preferred_scheme.as_str());
        if for_server && !url.username().is_empty() {
            out.push_str(url.username());
            if let Some(password) = url.password() {
                out.push(':');
                out.push_str(password);
            }
            out.push('@');
        }
        out.push_str(self.domain.normalise(super::url_class::class_host(url)));
        if let Some(port) = url.port() {
            out.push_str(&format!(":{port}"));
        }

        let components = path_components(url.path());
        let clip = !for_server || self.api.is_some();
        out.push('/');
        if clip || components.len() < self.path.len() {
            let listed: Vec<&str> = self
                .path
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    // Normalised, a fixed component is the class's spelling of it.
                    let fixed = c.fixed.as_deref().filter(|_| !for_server);
                    components
                        .get(i)
                        .copied()
                        .map(|text| fixed.unwrap_or(text))
                        .or(c.default.as_deref())
                        .unwrap_or_default()
                })
                .collect();
            out.push_str(&listed.join("/"));
        } else {
            out.push_str(&components.join("/"));
        }

        let query = self.build_query(
            &Query::parse(url.query()),
            for_server && self.keep_extra_query_for_server,
            !for_server,
        );
        if !query.is_empty() {
            out.push('?');
            out.push_str(&query);
        }
        if let Some(fragment) = url.fragment().filter(|_| self.def.keep_fragment) {
            out.push('#');
            out.push_str(fragment);
        }
        Url::parse(&out).map_err(|e| ClassError::BadDerivedUrl {
            class: self.def.name.clone(),
            field: if for_server {
                "for_server"
            } else {
                "normalised"
            }
            .into(),
            url: out.clone(),
            reason: e.to_string(),
        })
    }

    /// The query: listed parameters (all, with `keep_extra`), defaults filled in. With `class_names`, a listed
    /// parameter is named as the class spells it (`post%5Bid%5D` and `post[id]` are one name, one normalised
    /// URL), else as the URL does.
    fn build_query(&self, query: &Query<'_>, keep_extra: bool, class_names: bool) -> String {
        let is_listed = |key: &str| self.query.iter().any(|p| decode(key) == p.decoded_name);
        let name = |key: &'_ str| -> String {
            self.query
                .iter()
                .find(|p| class_names && decode(key) == p.decoded_name)
                .map_or_else(|| key.to_owned(), |p| p.name.clone())
        };
        let defaults: Vec<(&str, &str)> = self
            .query
            .iter()
            .filter(|p| query.get(&p.decoded_name).is_none())
            .filter_map(|p| Some((p.name.as_str(), p.default.as_deref()?)))
            .collect();
        let mut parts: Vec<String> = Vec::new();
        if self.def.alphabetise_query {
            let mut keyed: Vec<(String, &str)> = query
                .keyed()
                .filter(|(k, _)| keep_extra || is_listed(k))
                .map(|(k, v)| (name(k), v))
                .collect();
            keyed.extend(defaults.into_iter().map(|(k, v)| (k.to_owned(), v)));
            keyed.sort_by(|a, b| a.0.cmp(&b.0));
            parts.extend(keyed.into_iter().map(|(k, v)| format!("{k}={v}")));
            if keep_extra {
                let mut singles: Vec<&str> = query.singles().collect();
                singles.sort_unstable();
                parts.extend(singles.into_iter().map(str::to_owned));
            }
        } else {
            for entry in &query.entries {
                match *entry {
                    Entry::Keyed(k, v) if keep_extra || is_listed(k) => {
                        parts.push(format!("{}={v}", name(k)))
                    }
                    Entry::Single(s) if keep_extra => parts.push(s.to_owned()),
                    _ => {}
                }
            }
            parts.extend(defaults.into_iter().map(|(k, v)| format!("{k}={v}")));
        }
        parts.join("&")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_components_count_like_hydrus() {
        assert_eq!(path_components("/"), [""]);
        assert_eq!(path_components("/a/b/"), ["a", "b", ""]);
        assert_eq!(path_components("//images/x.jpg"), ["images", "x.jpg"]);
    }

    #[test]
    fn query_keeps_first_position_last_value() {
        let q = Query::parse(Some("b=1&flag&&a=2&b=3&c="));
        assert_eq!(
            q.keyed().collect::<Vec<_>>(),
            [("b", "3"), ("a", "2"), ("c", "")]
        );
        assert_eq!(q.singles().collect::<Vec<_>>(), ["flag"]);
        assert_eq!(q.get("b"), Some("3"));
        assert_eq!(
            Query::parse(Some("post%5Bid%5D=1")).get("post[id]"),
            Some("1")
        );
        assert_eq!(Query::parse(None).keyed().count(), 0);
    }
}
