//! OOXML (`.docx`, `.xlsx`, `.pptx` and their macro and template forms): the targets of hyperlink relationships
//! (`TargetMode="External"` in any `_rels/*.rels` part, which is where Word, Excel and PowerPoint keep every
//! hyperlink's URL), the http(s) URLs in the text of the document's XML parts, and `HYPERLINK` field codes
//! (`w:instrText`, `w:fldSimple/@w:instr`).

use url::Url;

use super::common::{Budget, OfficeProblem, attribute, xml_text};
use super::package::Package;
use crate::OutlinkSet;
use crate::hop::Hop;
use crate::text_urls::{field_links, text_urls};

/// Reads the package `body` into `set`; the problem that stopped or thinned the reading, if any.
pub(crate) fn read(
    body: &[u8],
    doc_url: &Url,
    set: &mut OutlinkSet,
    budget: &mut Budget,
) -> Option<OfficeProblem> {
    let mut package = match Package::open_as(body, "[Content_Types].xml", "OOXML") {
        Ok(package) => package,
        Err(problem) => return Some(problem),
    };
    let names = package.names();
    let rels = names.iter().filter(|n| n.ends_with(".rels"));
    let texts = names.iter().filter(|n| is_text_part(n));
    package.read_parts(rels.chain(texts), budget, set, |name, xml, budget, set| {
        let is_rels = name.ends_with(".rels");
        let mut instructions = Vec::new();
        let (found, error) = xml_text(xml, name, budget, |e| {
            let local = e.local_name();
            if is_rels && local.as_ref() == "Relationship" {
                let external =
                    attribute(e, "TargetMode").is_some_and(|m| m.eq_ignore_ascii_case("External"));
                let hyperlink = attribute(e, "Type").is_some_and(|t| t.ends_with("/hyperlink"));
                if external
                    && hyperlink
                    && let Some(target) = attribute(e, "Target")
                {
                    set.add(&target, doc_url, None, Hop::Link, "ooxml/rel");
                }
            } else if local.as_ref() == "fldSimple"
                && let Some(instr) = attribute(e, "instr")
            {
                instructions.push(instr);
            }
        });
        if !is_rels {
            for instr in &instructions {
                field_links(instr, doc_url, set, "ooxml/field");
            }
            field_links(&found.fields, doc_url, set, "ooxml/field");
            text_urls(&found.text, doc_url, set, "ooxml/text");
        }
        error
    })
}

/// Whether a part's text is the document's: its XML parts, less those that hold no words of it (themes,
/// custom XML data, the content-type list).
fn is_text_part(name: &str) -> bool {
    name.ends_with(".xml")
        && name != "[Content_Types].xml"
        && !name.starts_with("customXml/")
        && !name.contains("/theme/")
}
