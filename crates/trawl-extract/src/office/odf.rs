//! ODF (`.odt`, `.ods`, `.odp` and the other OpenDocument types): every `xlink:href` of the `content.xml` and
//! `styles.xml` parts (of the document and of objects embedded in it), and the http(s) URLs in their text.
//!
//! ODF resolves a relative reference against the package as if it were a folder (a link to a sibling file is
//! written `../sibling.html`); a reference that resolves inside the package (`Pictures/1.png`) is one of its
//! own parts, not a link.

use url::Url;

use super::common::{Budget, OfficeProblem, attribute, xml_text};
use super::package::Package;
use crate::hop::Hop;
use crate::text_urls::text_urls;
use crate::{OutlinkSet, resolve};

/// Reads the package `body` into `set`; the problem that stopped or thinned the reading, if any.
pub(crate) fn read(
    body: &[u8],
    doc_url: &Url,
    set: &mut OutlinkSet,
    budget: &mut Budget,
) -> Option<OfficeProblem> {
    let mut package = match Package::open_as(body, "content.xml", "ODF") {
        Ok(package) => package,
        Err(problem) => return Some(problem),
    };
    match package.read("META-INF/manifest.xml", budget) {
        Ok(Some(manifest)) if memchr::memmem::find(&manifest, b"encryption-data").is_some() => {
            return Some(OfficeProblem::Encrypted);
        }
        Err(p) if p.stops_document() => return Some(p),
        _ => {}
    }
    let folder = package_folder(doc_url);
    let names = package.names();
    let parts = names
        .iter()
        .filter(|n| n.ends_with("content.xml") || n.ends_with("styles.xml"));
    package.read_parts(parts, budget, set, |name, xml, budget, set| {
        let (found, error) = xml_text(xml, name, budget, |e| {
            if let Some(href) = attribute(e, "href") {
                add_href(&href, &folder, set);
            }
        });
        text_urls(&found.text, doc_url, set, "odf/text");
        error
    })
}

/// The package seen as a folder: the document's URL with a `/` after its path, without query or fragment.
fn package_folder(doc_url: &Url) -> Url {
    let mut folder = doc_url.clone();
    folder.set_query(None);
    folder.set_fragment(None);
    let path = format!("{}/", doc_url.path().trim_end_matches('/'));
    folder.set_path(&path);
    folder
}

/// Adds `href` unless it points into the document (`#bookmark`) or the package (`Pictures/1.png`).
fn add_href(href: &str, folder: &Url, set: &mut OutlinkSet) {
    let href = href.trim();
    if href.is_empty() || href.starts_with('#') {
        return;
    }
    match resolve(href, folder, None, usize::MAX) {
        Some(url) if !url.as_str().starts_with(folder.as_str()) => {
            set.add(href, folder, None, Hop::Link, "odf/href");
        }
        _ => {}
    }
}
