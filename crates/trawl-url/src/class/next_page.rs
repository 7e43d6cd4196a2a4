//! The next gallery page: the page number in the URL, plus `delta`.

use url::Url;

use super::component::decode;
use super::error::{ClassError, StepError};
use super::parts::path_components;
use super::url_class::{PageIndex, UrlClass};

impl UrlClass {
    /// The next gallery page after `url`: its form for the server (so a search's unlisted parameters such as
    /// `tags` carry over) with `delta` added to the page number. `Ok(None)` if the class has no `next_page`.
    pub fn next_page(&self, url: &Url) -> Result<Option<Url>, ClassError> {
        if self.next_page.is_none() {
            return Ok(None);
        }
        self.next_page_from(&self.for_server(url)?)
    }

    /// The next gallery page from a URL already in its form for the server.
    pub(crate) fn next_page_from(&self, page: &Url) -> Result<Option<Url>, ClassError> {
        let Some((index, delta)) = &self.next_page else {
            return Ok(None);
        };
        step(page, index, *delta)
            .map(Some)
            .map_err(|reason| ClassError::NextPage {
                class: self.def.name.clone(),
                url: page.to_string(),
                reason,
            })
    }
}

fn add(text: &str, delta: i64) -> Result<String, StepError> {
    let n: i64 = text.parse().map_err(|e: std::num::ParseIntError| {
        use std::num::IntErrorKind::{NegOverflow, PosOverflow};
        match e.kind() {
            // An integer all the same, too long for 64 bits (xt20b F11).
            PosOverflow | NegOverflow => StepError::TooLong(text.to_owned()),
            _ => StepError::NotAnInteger(text.to_owned()),
        }
    })?;
    let next = n.checked_add(delta).ok_or_else(|| StepError::Overflow {
        number: n.to_string(),
        delta,
    })?;
    Ok(next.to_string())
}

fn step(url: &Url, index: &PageIndex, delta: i64) -> Result<Url, StepError> {
    let mut next = url.clone();
    match index {
        PageIndex::Path(i) => {
            let mut components = path_components(url.path());
            let current = components.get(*i).ok_or(StepError::NoPathComponent(*i))?;
            let stepped = add(current, delta)?;
            components[*i] = &stepped;
            next.set_path(&format!("/{}", components.join("/")));
        }
        PageIndex::Query(name) => {
            let query = url.query().unwrap_or_default();
            let mut found = false;
            let mut pairs = Vec::new();
            for pair in query.split('&') {
                match pair.split_once('=') {
                    Some((k, v)) if !found && decode(k) == name.as_str() => {
                        found = true;
                        pairs.push(format!("{k}={}", add(v, delta)?));
                    }
                    _ => pairs.push(pair.to_owned()),
                }
            }
            if !found {
                return Err(StepError::NoQueryParameter(name.clone()));
            }
            next.set_query(Some(&pairs.join("&")));
        }
    }
    Ok(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn steps_a_parameter_in_place() {
        let u = url("https://x.org/index.php?page=post&pid=0&s=list&tags=a");
        let next = step(&u, &PageIndex::Query("pid".into()), 42).unwrap();
        assert_eq!(
            next.as_str(),
            "https://x.org/index.php?page=post&pid=42&s=list&tags=a"
        );
    }

    #[test]
    fn steps_a_path_component() {
        let u = url("https://x.org/pictures/user/someone/page/2/");
        let next = step(&u, &PageIndex::Path(4), 1).unwrap();
        assert_eq!(next.as_str(), "https://x.org/pictures/user/someone/page/3/");
        let back = step(&u, &PageIndex::Path(4), -3).unwrap();
        assert_eq!(
            back.as_str(),
            "https://x.org/pictures/user/someone/page/-1/"
        );
    }

    #[test]
    fn refuses_what_is_not_a_number() {
        let u = url("https://x.org/page/two?p=x");
        assert!(
            step(&u, &PageIndex::Path(1), 1)
                .unwrap_err()
                .to_string()
                .contains("not an integer")
        );
        assert!(
            step(&u, &PageIndex::Query("p".into()), 1)
                .unwrap_err()
                .to_string()
                .contains("not an integer")
        );
        assert!(
            step(&u, &PageIndex::Query("q".into()), 1)
                .unwrap_err()
                .to_string()
                .contains("no parameter")
        );
        assert!(
            step(&u, &PageIndex::Path(5), 1)
                .unwrap_err()
                .to_string()
                .contains("no component")
        );
        let big = url("https://x.org/?p=9223372036854775807");
        assert!(
            step(&big, &PageIndex::Query("p".into()), 1)
                .unwrap_err()
                .to_string()
                .contains("64 bits")
        );
        let bigger = url("https://x.org/?p=99999999999999999999");
        assert!(
            step(&bigger, &PageIndex::Query("p".into()), 1)
                .unwrap_err()
                .to_string()
                .contains("too long to count on from")
        );
    }
}
