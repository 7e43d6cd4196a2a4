//! A URL's path and query as hydrus reads them: path components, and query parameters with and without values.

use super::component::decode;

/// The path's components as hydrus counts them: leading slashes dropped, then split on `/`. So `/a/b/` has three
/// (`a`, `b`, ``) and `/` has one empty component.
pub(crate) fn path_components(path: &str) -> Vec<&str> {
    path.trim_start_matches('/').split('/').collect()
}

/// A query string read as hydrus reads it: `&`-separated pairs split at the first `=`; a pair without `=` is a
/// single-value parameter; empty pairs are dropped. A repeated name keeps its first position and its last value.
#[derive(Debug, Default)]
pub(crate) struct Query<'a> {
    /// The parameters in order: repeated names merged, empty pairs dropped.
    pub(crate) entries: Vec<Entry<'a>>,
}

/// One query parameter: `name=value`, or a single value without `=`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Entry<'a> {
    Keyed(&'a str, &'a str),
    Single(&'a str),
}

impl<'a> Query<'a> {
    pub(crate) fn parse(query: Option<&'a str>) -> Self {
        let mut entries: Vec<Entry<'a>> = Vec::new();
        for pair in query
            .unwrap_or_default()
            .split('&')
            .filter(|p| !p.is_empty())
        {
            match pair.split_once('=') {
                None => entries.push(Entry::Single(pair)),
                Some((key, value)) => {
                    let seen = entries
                        .iter_mut()
                        .find(|e| matches!(e, Entry::Keyed(k, _) if *k == key));
                    match seen {
                        Some(entry) => *entry = Entry::Keyed(key, value),
                        None => entries.push(Entry::Keyed(key, value)),
                    }
                }
            }
        }
        Self { entries }
    }

    /// The `name=value` pairs, in order.
    pub(crate) fn keyed(&self) -> impl Iterator<Item = (&'a str, &'a str)> + '_ {
        self.entries.iter().filter_map(|e| match *e {
            Entry::Keyed(k, v) => Some((k, v)),
            Entry::Single(_) => None,
        })
    }

    /// The parameters without `=`, in order.
    pub(crate) fn singles(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.entries.iter().filter_map(|e| match *e {
            Entry::Single(s) => Some(s),
            Entry::Keyed(..) => None,
        })
    }

    /// The value of the parameter whose percent-decoded name is `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&'a str> {
        self.keyed()
            .find(|(k, _)| decode(k) == name)
            .map(|(_, v)| v)
    }
}
