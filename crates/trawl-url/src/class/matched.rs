//! What a class says about one URL: [`ClassMatch`], and the API URL.

use url::Url;

use super::def::UrlKind;
use super::error::ClassError;
use super::url_class::UrlClass;

/// Everything a URL class derives from one URL it matches.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClassMatch {
    /// The matching class's name.
    pub class: String,
    /// What the URL is.
    pub kind: UrlKind,
    /// Whether the URL is remembered as a known URL of the files it yields.
    pub associate_known_url: bool,
    /// Whether the URL can yield several files.
    pub can_produce_multiple_files: bool,
    /// The normalised form: preferred scheme, the class's domain, exactly the listed path components and
    /// parameters. The canonical URL of file and post URLs ([`ClassMatch::canonical`]).
    pub normalised: Url,
    /// The URL to request when no API URL replaces it.
    pub for_server: Url,
    /// The URL to fetch instead, derived by the class's `api` converter.
    pub api_url: Option<Url>,
    /// The next gallery page, for gallery classes with `next_page`.
    pub next_page: Option<Url>,
    /// Whether the class asks for its pages to be rendered in the browser (`render`).
    pub render: bool,
    /// Derivations that failed (a converter step, a page number that is not a number); the matching fields
    /// are `None`. Empty when everything worked.
    pub problems: Vec<ClassError>,
}

impl ClassMatch {
    /// The URL the crawl names the matched URL by (its canonical URL, hence its uniq key): the normalised form
    /// for a file or post URL, so that one post written in different ways is fetched once; the URL for the
    /// server for a gallery or watchable URL, so that different searches (`list?tags=cats`,
    /// `list?tags=dogs`: the parameters the class does not list, kept for the server by
    /// `keep_extra_query_for_server`) stay different URLs. As hydrus does: it compares file and post URLs by
    /// their normalised form, but keeps a gallery log entry and a watcher by the URL for the server.
    pub fn canonical(&self) -> &Url {
        match self.kind {
            UrlKind::File | UrlKind::Post => &self.normalised,
            UrlKind::Gallery | UrlKind::Watchable => &self.for_server,
        }
    }
}

impl UrlClass {
    /// The API URL for `url`: the `api` converter applied to its form for the server. `Ok(None)` if the class
    /// has no converter. Fails if the converter fails or its result is not an http(s) URL.
    pub fn api_url(&self, url: &Url) -> Result<Option<Url>, ClassError> {
        if self.api.is_none() {
            return Ok(None);
        }
        self.api_url_from(&self.for_server(url)?).map(Some)
    }

    /// The API URL from a URL already in its form for the server.
    fn api_url_from(&self, request: &Url) -> Result<Url, ClassError> {
        let converter = self
            .api
            .as_ref()
            .expect("callers check that the class has a converter");
        let converted =
            converter
                .convert(request.as_str())
                .map_err(|source| ClassError::Convert {
                    class: self.def.name.clone(),
                    field: "api".into(),
                    source: Box::new(source),
                })?;
        let bad = |reason: String| ClassError::BadDerivedUrl {
            class: self.def.name.clone(),
            field: "api".into(),
            url: converted.clone(),
            reason,
        };
        let api = Url::parse(&converted).map_err(|e| bad(e.to_string()))?;
        if !matches!(api.scheme(), "http" | "https") {
            return Err(bad(format!(
                "scheme {:?} is not http or https",
                api.scheme()
            )));
        }
        Ok(api)
    }

    /// Everything the class derives from `url`, or `None` if the class does not match it.
    pub fn apply(&self, url: &Url) -> Option<ClassMatch> {
        let normalised = self.normalise(url).ok()?;
        let for_server = self.for_server(url).ok()?;
        let mut problems = Vec::new();
        let mut keep = |r: Result<Option<Url>, ClassError>| {
            r.unwrap_or_else(|e| {
                problems.push(e);
                None
            })
        };
        let api_url = keep(
            self.api
                .as_ref()
                .map(|_| self.api_url_from(&for_server))
                .transpose(),
        );
        let next_page = keep(self.next_page_from(&for_server));
        Some(ClassMatch {
            class: self.def.name.clone(),
            kind: self.def.kind,
            associate_known_url: self.def.associates_known_url(),
            can_produce_multiple_files: self.def.can_produce_multiple_files,
            normalised,
            for_server,
            api_url,
            next_page,
            render: self.def.render,
            problems,
        })
    }
}
