//! The imported profile: trawl settings, each with the Heritrix property it came from, and the notes; written
//! as commented TOML.

use std::{fmt::Write as _, path::Path};

/// Something in the Heritrix file that trawl does not honour (or honours differently).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// 1-based line of the XML.
    pub line: usize,
    /// The bean and property, as `bean.property` (or the bean's class when it has no id).
    pub subject: String,
    /// What happens to it.
    pub message: String,
    /// The closest trawl setting, when there is one.
    pub closest: Option<String>,
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}: {}", self.line, self.subject, self.message)?;
        if let Some(c) = &self.closest {
            write!(f, " (closest trawl setting: {c})")?;
        }
        Ok(())
    }
}

/// One trawl setting and where it came from.
#[derive(Debug, Clone)]
pub(crate) struct Setting {
    /// The dotted key (`frontier.min_delay_ms`).
    pub(crate) key: String,
    pub(crate) value: toml::Value,
    /// `disposition.minDelayMs, line 312`.
    pub(crate) from: String,
}

/// A `[[scope.rules]]`-style table and where it came from.
#[derive(Debug, Clone)]
pub(crate) struct RuleOut {
    pub(crate) table: toml::Table,
    pub(crate) from: String,
}

/// A `[[sheet]]`.
#[derive(Debug, Clone, Default)]
pub(crate) struct SheetOut {
    pub(crate) name: String,
    pub(crate) set: Vec<Setting>,
    pub(crate) surt_prefixes: Vec<String>,
    pub(crate) rules: Vec<RuleOut>,
    pub(crate) from: String,
}

/// Everything the import produced.
#[derive(Debug, Default)]
pub(crate) struct Profile {
    /// Comment lines for the header (job name, description, operator).
    pub(crate) about: Vec<String>,
    pub(crate) settings: Vec<Setting>,
    pub(crate) scope_rules: Vec<RuleOut>,
    pub(crate) before_fetch: Vec<RuleOut>,
    pub(crate) after_headers: Vec<RuleOut>,
    pub(crate) before_write: Vec<RuleOut>,
    pub(crate) sheets: Vec<SheetOut>,
    /// `[[credentials]]` tables (a password only ever as `password_env`).
    pub(crate) credentials: Vec<RuleOut>,
    pub(crate) notes: Vec<Note>,
    /// The notes of rules left out (no such rule in trawl) or kept with a Java regex trawl cannot read (see
    /// `rules::rule_regex`): errors with `--strict`.
    pub(crate) untranslated: Vec<Note>,
    /// Rules whose regex can neither be carried over nor kept for the check to refuse: they fail the import.
    pub(crate) refused: Vec<Note>,
}

/// The sections in the order they are written.
const SECTIONS: &[&str] = &["seeds", "frontier", "fetch", "scope", "identity", "warc"];

impl Profile {
    /// Sets `key` (a later setting of the same key replaces an earlier one, as a later Heritrix bean would).
    pub(crate) fn set(&mut self, key: &str, value: impl Into<toml::Value>, from: String) {
        self.settings.retain(|s| s.key != key);
        self.settings.push(Setting {
            key: key.to_owned(),
            value: value.into(),
            from,
        });
    }

    /// The value set for `key`, if any.
    pub(crate) fn get(&self, key: &str) -> Option<&toml::Value> {
        self.settings
            .iter()
            .find(|s| s.key == key)
            .map(|s| &s.value)
    }

    /// Records a note.
    pub(crate) fn note(
        &mut self,
        line: usize,
        subject: impl Into<String>,
        message: impl Into<String>,
        closest: Option<&str>,
    ) {
        self.notes.push(Note {
            line,
            subject: subject.into(),
            message: message.into(),
            closest: closest.map(str::to_owned),
        });
    }

    /// The profile as commented TOML; `origin` names the Heritrix file.
    pub(crate) fn to_toml(&self, origin: &Path) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# trawl profile imported from {} (Heritrix 3 crawler-beans.cxml) by `trawl import heritrix`.",
            origin.display()
        );
        out.push_str(
            "# Each setting names the Heritrix bean property it came from. What trawl cannot honour is listed at the\n\
             # end. Check it with `trawl check FILE`; see docs/migrating-from-heritrix.md.\n",
        );
        for line in &self.about {
            let _ = writeln!(out, "# {line}");
        }
        for section in SECTIONS {
            let in_section: Vec<&Setting> = self
                .settings
                .iter()
                .filter(|s| {
                    s.key
                        .split_once('.')
                        .is_some_and(|(sec, _)| sec == *section)
                })
                .collect();
            let has_rules = *section == "scope" && !self.scope_rules.is_empty();
            if in_section.is_empty() && !has_rules {
                continue;
            }
            let _ = writeln!(out, "\n[{section}]");
            for s in in_section {
                let key = s.key.split_once('.').map_or(&*s.key, |(_, k)| k);
                let _ = writeln!(out, "{key} = {}   # {}", inline(&s.value), s.from);
            }
            if *section == "scope" {
                write_rules(&mut out, "scope.rules", "rule", &self.scope_rules);
            }
        }
        for (key, rules) in [
            ("decide.before_fetch", &self.before_fetch),
            ("decide.after_headers", &self.after_headers),
            ("decide.before_write", &self.before_write),
        ] {
            if !rules.is_empty() {
                out.push('\n');
                write_rules(&mut out, key, "rule", rules);
            }
        }
        for sheet in &self.sheets {
            let _ = writeln!(out, "\n# {}\n[[sheet]]", sheet.from);
            let _ = writeln!(out, "name = {}", inline(&sheet.name.clone().into()));
            let set: Vec<String> = sheet
                .set
                .iter()
                .map(|s| format!("{} = {}", inline(&s.key.clone().into()), inline(&s.value)))
                .collect();
            let _ = writeln!(out, "set = {{ {} }}", set.join(", "));
            for s in &sheet.set {
                let _ = writeln!(out, "#   {} from {}", s.key, s.from);
            }
            if !sheet.surt_prefixes.is_empty() {
                let prefixes: toml::Value = sheet.surt_prefixes.clone().into();
                let _ = writeln!(out, "surt_prefixes = {}", inline(&prefixes));
            }
            write_rules(&mut out, "sheet.rules", "rule", &sheet.rules);
        }
        if !self.credentials.is_empty() {
            out.push('\n');
            write_rules(&mut out, "credentials", "kind", &self.credentials);
        }
        if !self.notes.is_empty() {
            let _ = writeln!(
                out,
                "\n# Not carried over, or carried over differently ({}): the XML line, the bean property, what\n\
                 # happens, and the closest trawl setting.",
                self.notes.len()
            );
            for n in &self.notes {
                let _ = writeln!(out, "#   {n}");
            }
        }
        out
    }
}

/// Writes `[[KEY]]` tables, each with the line it came from.
fn write_rules(out: &mut String, key: &str, first: &str, rules: &[RuleOut]) {
    for r in rules {
        let _ = writeln!(out, "[[{key}]]   # {}", r.from);
        // `first` (the rule's name, a credential's kind), then the parameters in name order (toml::Table is sorted).
        if let Some(v) = r.table.get(first) {
            let _ = writeln!(out, "{first} = {}", inline(v));
        }
        for (k, v) in r.table.iter().filter(|(k, _)| *k != first) {
            let _ = writeln!(out, "{k} = {}", inline(v));
        }
    }
}

/// A value in TOML's inline form.
pub(crate) fn inline(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => {
            let mut t = toml::Table::new();
            t.insert("v".into(), toml::Value::String(s.clone()));
            let text = toml::to_string(&t).unwrap_or_default();
            text.trim_end()
                .strip_prefix("v = ")
                .unwrap_or(&text)
                .to_owned()
        }
        toml::Value::Array(items) => format!(
            "[{}]",
            items.iter().map(inline).collect::<Vec<_>>().join(", ")
        ),
        toml::Value::Table(t) => format!(
            "{{ {} }}",
            t.iter()
                .map(|(k, v)| format!("{} = {}", inline(&k.clone().into()), inline(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    }
}
