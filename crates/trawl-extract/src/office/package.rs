//! OOXML and ODF documents are zip packages: opening one and reading its parts within the document's budget.

use std::io::{Cursor, Read};

use zip::{ZipArchive, result::ZipError};

use super::common::{Budget, MAX_PART_BYTES, MAX_PARTS, OfficeProblem};
use crate::OutlinkSet;

/// Whether `body` is a zip holding an OOXML package: `[Content_Types].xml` (every OPC package has one) beside a
/// part of Word, Excel or PowerPoint (so a NuGet, XPS or 3MF package is not read as a document).
pub(crate) fn is_ooxml(body: &[u8]) -> bool {
    let Ok(package) = Package::open(body) else {
        return false;
    };
    package.has("[Content_Types].xml")
        && package
            .archive
            .file_names()
            .flatten()
            .any(|n| ["word/", "xl/", "ppt/"].iter().any(|p| n.starts_with(p)))
}

/// An opened zip package.
pub(crate) struct Package<'a> {
    archive: ZipArchive<Cursor<&'a [u8]>>,
    parts_read: usize,
}

impl<'a> Package<'a> {
    /// Reads the package's central directory.
    pub(crate) fn open(body: &'a [u8]) -> Result<Self, OfficeProblem> {
        match ZipArchive::new(Cursor::new(body)) {
            Ok(archive) => Ok(Package {
                archive,
                parts_read: 0,
            }),
            Err(e) => Err(OfficeProblem::Unreadable(format!("not a zip package: {e}"))),
        }
    }

    /// Reads the central directory of a package of `kind` (`ODF`, `OOXML`), which must hold part `marker`
    /// (a zip without it is some other package).
    pub(crate) fn open_as(body: &'a [u8], marker: &str, kind: &str) -> Result<Self, OfficeProblem> {
        let package = Self::open(body)?;
        if !package.has(marker) {
            return Err(OfficeProblem::Unreadable(format!(
                "no {marker}: not an {kind} package"
            )));
        }
        Ok(package)
    }

    /// Reads the parts `names` in turn (a missing one skipped), passing each to `on_part`, which adds its links
    /// to `set` and returns the problem its XML had. A problem that stops the document is returned at once;
    /// reading stops too once `set` is full. Otherwise the last problem met, which thinned the reading.
    pub(crate) fn read_parts<N: AsRef<str>>(
        &mut self,
        names: impl IntoIterator<Item = N>,
        budget: &mut Budget,
        set: &mut OutlinkSet,
        mut on_part: impl FnMut(&str, &[u8], &Budget, &mut OutlinkSet) -> Option<OfficeProblem>,
    ) -> Option<OfficeProblem> {
        let mut problem = None;
        for name in names {
            let name = name.as_ref();
            // A part over MAX_PART_BYTES gives the links of its first bytes (xt36b F10: a 24 MB sheet lost the
            // link in its first row), and the limit is what is said of it.
            let (xml, cut) = match self.read_up_to_limit(name, budget) {
                Ok(Some(read)) => read,
                Ok(None) => continue,
                Err(p) if p.stops_document() => return Some(p),
                Err(p) => {
                    problem = Some(p);
                    continue;
                }
            };
            if let Some(p) = on_part(name, &xml, budget, set) {
                if p.stops_document() {
                    return Some(p);
                }
                problem = Some(p);
            }
            if cut {
                problem = Some(OfficeProblem::Limit("MAX_PART_BYTES"));
            }
            if set.is_truncated() {
                break;
            }
        }
        problem
    }

    /// The names of its parts, in the central directory's order.
    pub(crate) fn names(&self) -> Vec<String> {
        self.archive
            .file_names()
            .flatten()
            .map(std::borrow::Cow::into_owned)
            .collect()
    }

    /// Whether it holds a part named `name`.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.archive.index_for_name(name).is_some()
    }

    /// Part `name` inflated, or `None` when there is no such part. A part that would inflate past the budget
    /// is not kept (`MAX_PART_BYTES`, or `MAX_TOTAL_BYTES` for the document); past `MAX_PARTS` parts, or
    /// `MAX_TIME`, nothing more is read.
    pub(crate) fn read(
        &mut self,
        name: &str,
        budget: &mut Budget,
    ) -> Result<Option<Vec<u8>>, OfficeProblem> {
        match self.read_up_to_limit(name, budget)? {
            Some((_, true)) => Err(OfficeProblem::Limit("MAX_PART_BYTES")),
            read => Ok(read.map(|(bytes, _)| bytes)),
        }
    }

    /// [`Package::read`], but a part over `MAX_PART_BYTES` gives its first `MAX_PART_BYTES` bytes, and `true`.
    fn read_up_to_limit(
        &mut self,
        name: &str,
        budget: &mut Budget,
    ) -> Result<Option<(Vec<u8>, bool)>, OfficeProblem> {
        budget.check_time()?;
        let Some(index) = self.archive.index_for_name(name) else {
            return Ok(None);
        };
        if self.parts_read >= MAX_PARTS {
            return Err(OfficeProblem::Limit("MAX_PARTS"));
        }
        self.parts_read += 1;
        let part = match self.archive.by_index(index) {
            Ok(part) => part,
            Err(ZipError::UnsupportedArchive(why)) if why == ZipError::PASSWORD_REQUIRED => {
                return Err(OfficeProblem::Encrypted);
            }
            Err(e) => return Err(OfficeProblem::Unreadable(format!("{name}: {e}"))),
        };
        let allowance = budget.part_allowance();
        let mut out = Vec::new();
        if let Err(e) = part.take(allowance + 1).read_to_end(&mut out) {
            return Err(OfficeProblem::Unreadable(format!("{name}: {e}")));
        }
        if out.len() as u64 > allowance {
            if allowance < MAX_PART_BYTES {
                // What was left of the document's allowance is spent: nothing more can be read.
                budget.spend(allowance + 1)?;
            }
            out.truncate(allowance as usize);
            // Up to the last tag begun before the cut: a URL the cut goes through is no link (xt38b N12: the
            // crawl fetched `/edge/edge2-bounda`).
            let whole = memchr::memrchr(b'<', &out).unwrap_or(0);
            out.truncate(whole);
            budget.spend(allowance)?;
            return Ok(Some((out, true)));
        }
        budget.spend(out.len() as u64)?;
        Ok(Some((out, false)))
    }
}
