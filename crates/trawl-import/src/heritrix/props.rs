//! A bean's properties as the conversion takes them: each one either mapped to a trawl setting or reported as
//! not carried over, with its line.

use std::path::Path;

use super::beans::{Bean, Prop, Value, text};
use super::profile::Profile;
use super::settings::{self, Mapped};

/// The literal Heritrix's profile puts where an override supplies the value.
const SEE_OVERRIDE: &str = "[see override above]";

/// A value as a note shows it: a password never.
pub(super) fn shown(name: &str, text: &str) -> String {
    let lower = name.to_ascii_lowercase();
    // A secret's value never reaches the notes (review 84 R11: `secretKey`, `token` were shown).
    if [
        "password",
        "passwd",
        "secret",
        "token",
        "apikey",
        "api_key",
        "credential",
    ]
    .iter()
    .any(|word| lower.contains(word))
    {
        "(hidden)".to_owned()
    } else {
        short(text)
    }
}

/// A bean's properties, each either taken by the conversion or reported as not carried over.
pub(crate) struct Props<'a> {
    bean: &'a Bean,
    subject: String,
    used: Vec<bool>,
    base: &'a Path,
}

impl<'a> Props<'a> {
    pub(crate) fn new(bean: &'a Bean, subject: String) -> Props<'a> {
        Props::with_base(bean, subject, Path::new(""))
    }

    /// Props whose relative paths are read from `base` (the cxml's folder).
    pub(crate) fn with_base(bean: &'a Bean, subject: String, base: &'a Path) -> Props<'a> {
        Props {
            bean,
            subject,
            used: vec![false; bean.props.len()],
            base,
        }
    }

    /// The short class of the bean.
    pub(crate) fn subject_class(&self) -> &'a str {
        self.bean.short_class()
    }

    /// The folder relative paths are read from.
    pub(crate) fn base(&self) -> &'a Path {
        self.base
    }

    /// The bean's id (or class), for notes.
    pub(crate) fn subject(&self) -> String {
        self.subject.clone()
    }

    /// Property `name`, without taking it.
    pub(crate) fn peek(&self, name: &str) -> Option<&'a Prop> {
        let bean = self.bean;
        bean.props
            .iter()
            .rev()
            .find(|p| p.name.eq_ignore_ascii_case(name))
    }

    /// Takes property `name` (the last of that name, as Spring does).
    pub(crate) fn take(&mut self, name: &str) -> Option<&'a Prop> {
        let bean = self.bean;
        let i = bean
            .props
            .iter()
            .rposition(|p| p.name.eq_ignore_ascii_case(name))?;
        self.used[i] = true;
        Some(&bean.props[i])
    }

    /// Reports property `name`, if set, with `why`.
    pub(crate) fn note_one(
        &mut self,
        profile: &mut Profile,
        name: &str,
        why: &str,
        closest: Option<&str>,
    ) {
        if let Some(p) = self.take(name) {
            profile.note(p.line, format!("{}.{}", self.subject, p.name), why, closest);
        }
    }

    /// Reports every property not taken, with `why`.
    pub(crate) fn note_rest(&mut self, profile: &mut Profile, why: &str, closest: Option<&str>) {
        for (i, p) in self.bean.props.iter().enumerate() {
            if !self.used[i] {
                self.used[i] = true;
                let shown = match &p.value {
                    Value::Text(t, _) => format!(" = {}", shown(&p.name, t)),
                    _ => String::new(),
                };
                profile.note(
                    p.line,
                    format!("{}.{}{shown}", self.subject, p.name),
                    why,
                    closest,
                );
            }
        }
    }

    /// Maps every property not yet taken through [`settings::map`] for the bean's class.
    pub(super) fn map_rest(&mut self, profile: &mut Profile) {
        let class = self.bean.short_class();
        for (i, p) in self.bean.props.iter().enumerate() {
            if self.used[i] {
                continue;
            }
            self.used[i] = true;
            let subject = format!("{}.{}", self.subject, p.name);
            let Some(value) = scalar(&p.value, p.line, &subject, profile) else {
                continue;
            };
            match settings::map(class, &p.name, value) {
                Mapped::Set(key, v) => profile.set(key, v, format!("{subject}, line {}", p.line)),
                Mapped::Same(_) => {}
                Mapped::Note(why, closest) => profile.note(
                    p.line,
                    format!("{subject} = {}", shown(&p.name, value)),
                    why,
                    closest,
                ),
            }
        }
    }
}

/// A property's literal text; a Heritrix placeholder left unreplaced is reported and gives `None`.
pub(super) fn scalar<'v>(
    v: &'v Value,
    line: usize,
    subject: &str,
    profile: &mut Profile,
) -> Option<&'v str> {
    let t = text(v)?;
    if t.trim() == SEE_OVERRIDE {
        profile.note(
            line,
            subject,
            "the placeholder \"[see override above]\" was never overridden; set the value",
            None,
        );
        return None;
    }
    Some(t)
}

pub(super) fn short(t: &str) -> String {
    let t = t.trim();
    if t.chars().count() > 60 {
        format!("{}…", t.chars().take(60).collect::<String>())
    } else {
        t.to_owned()
    }
}
