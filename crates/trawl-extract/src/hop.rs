//! Hop types: how a URI was reached from the one before it.

use std::fmt;

/// One hop from a seed, written as one letter in a hop path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Hop {
    /// `L`: a navigational link (`a href`, `area href`, `form action`).
    Link,
    /// `E`: an embed needed to render the page (`img src`, stylesheet, script, frame).
    Embed,
    /// `R`: a redirect (`Location` header, `meta refresh`).
    Redirect,
    /// `X`: a speculative link found in script or text.
    Speculative,
    /// `P`: a prerequisite (DNS, robots.txt).
    Prerequisite,
    /// `S`: a link from a sitemap.
    Sitemap,
    /// `I`: inferred by a URL class (next gallery page, API URL).
    Inferred,
}

impl Hop {
    /// The letter written in hop paths and crawl.log.
    /// The hop of a letter, as crawl.log and metadata records write it.
    pub fn from_letter(letter: char) -> Option<Hop> {
        Some(match letter {
            'L' => Hop::Link,
            'E' => Hop::Embed,
            'R' => Hop::Redirect,
            'X' => Hop::Speculative,
            'P' => Hop::Prerequisite,
            'S' => Hop::Sitemap,
            'I' => Hop::Inferred,
            _ => return None,
        })
    }

    /// The letter of this hop.
    pub fn letter(self) -> char {
        match self {
            Hop::Link => 'L',
            Hop::Embed => 'E',
            Hop::Redirect => 'R',
            Hop::Speculative => 'X',
            Hop::Prerequisite => 'P',
            Hop::Sitemap => 'S',
            Hop::Inferred => 'I',
        }
    }
}

impl fmt::Display for Hop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}
