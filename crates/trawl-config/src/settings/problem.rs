//! Config problems: what is wrong, where (file, line, column, key) and what to do about it.

use std::{fmt, path::PathBuf};

/// Which of the three checks found a problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Stage {
    /// The file is not well-formed TOML.
    Syntax,
    /// A key is unknown, a value has the wrong type, a rule or property name does not exist, a required value
    /// is missing.
    Wiring,
    /// Values are well-formed but wrong: a regex that does not compile, a missing file, a URL class whose
    /// example it does not match, contradictory settings, a seed outside the scope.
    Semantics,
}

/// One problem with a config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The check that found it.
    pub stage: Stage,
    /// The file (empty when the problem was found outside a file).
    pub file: PathBuf,
    /// 1-based line and column, when the place is known.
    pub at: Option<(usize, usize)>,
    /// The dotted key, e.g. `scope.rules[2].regex`, when known.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
}

impl Problem {
    /// A problem at `key` (located later by [`locate`]).
    pub fn at_key(stage: Stage, key: impl Into<String>, message: impl Into<String>) -> Problem {
        let key = key.into();
        Problem {
            stage,
            file: PathBuf::new(),
            at: None,
            key: (!key.is_empty()).then_some(key),
            message: message.into(),
            hint: None,
        }
    }

    /// With a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Problem {
        self.hint = Some(hint.into());
        self
    }

    /// The problem without its file name (for messages that name the file already).
    pub fn without_file(&self) -> String {
        let mut s = match self.at {
            Some((l, c)) => format!("line {l}, column {c}: "),
            None => String::new(),
        };
        if let Some(k) = &self.key
            && !self.message.contains(k.as_str())
        {
            s.push_str(&format!("{k}: "));
        }
        s.push_str(&self.message);
        if let Some(h) = &self.hint {
            s.push_str(&format!("\n    hint: {h}"));
        }
        s
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.file.as_os_str().is_empty() {
            write!(f, "{}", self.file.display())?;
            if let Some((l, c)) = self.at {
                write!(f, ":{l}:{c}")?;
            }
            write!(f, ": ")?;
        }
        if let Some(k) = &self.key
            && !self.message.contains(k.as_str())
        {
            write!(f, "{k}: ")?;
        }
        write!(f, "{}", self.message)?;
        if let Some(h) = &self.hint {
            write!(f, "\n    hint: {h}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Problem {}

/// Every problem found in a config, in file order within each stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The problems, at least one.
    pub problems: Vec<Problem>,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigError {}

impl ConfigError {
    /// Problems given as `(key, message)` pairs, at one stage.
    pub fn from_pairs(stage: Stage, prefix: &str, pairs: Vec<(String, String)>) -> ConfigError {
        ConfigError {
            problems: pairs
                .into_iter()
                .map(|(k, m)| Problem::at_key(stage, super::rules::join(prefix, &k), m))
                .collect(),
        }
    }
}

/// The text between `start` and the next backtick in `message`.
pub(crate) fn quoted_after<'m>(message: &'m str, start: &str) -> Option<&'m str> {
    let rest = &message[message.find(start)? + start.len()..];
    Some(&rest[..rest.find('`')?])
}

/// How many edits a typo of the name `got` may be: an edit or two, fewer still in a short name.
pub(crate) fn typo_distance(got: &str) -> usize {
    match got.chars().count() {
        0..=5 => 1,
        6..=10 => 2,
        n => n / 4,
    }
}

/// The known name `got` was most likely meant as: the closest within `near` edits, else the one that is
/// `got` with its unit left off.
pub(crate) fn closest<'k>(got: &str, known: &[&'k str], near: usize) -> Option<&'k str> {
    known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(got, k), *k))
        .filter(|(d, _)| *d <= near)
        .min()
        .map(|(_, k)| k)
        .or_else(|| unit_left_off(got, known))
}

/// The one known key that is `got` with its unit left off (`timeout` for `timeout_ms`, `min_delay` for
/// `min_delay_ms`), if exactly one is (xt12a b F8: no suggestion came for the commonest slip).
fn unit_left_off<'k>(got: &str, known: &[&'k str]) -> Option<&'k str> {
    let mut with_unit = known.iter().filter(|k| {
        k.strip_prefix(got)
            .is_some_and(|rest| rest.starts_with('_') && !rest[1..].contains('_'))
    });
    match (with_unit.next(), with_unit.next()) {
        (Some(k), None) => Some(k),
        _ => None,
    }
}

/// The crawl's settings by section, as the defaults write them: `("", sections and top-level keys)`, then
/// `(section, its keys)` for each section.
pub(crate) fn sections() -> &'static [(String, Vec<String>)] {
    static SECTIONS: std::sync::OnceLock<Vec<(String, Vec<String>)>> = std::sync::OnceLock::new();
    SECTIONS.get_or_init(|| {
        let Ok(toml::Value::Table(root)) = toml::Value::try_from(super::CrawlConfig::default())
        else {
            return Vec::new();
        };
        let mut out = vec![(String::new(), root.keys().cloned().collect())];
        out.extend(root.into_iter().filter_map(|(section, v)| match v {
            toml::Value::Table(t) => Some((section, t.keys().cloned().collect())),
            _ => None,
        }));
        out
    })
}

/// The section of the crawl's settings whose key `key` is, when exactly one has it (`user_agent` written at
/// the top or under `[frontier]` belongs in `[fetch]`), and only when the table it was found in (whose keys
/// are `known`) is the top or a section: in a `[[sheet]]` or another entry, moving the key into a section
/// would change the whole crawl (review R5).
fn section_of(key: &str, known: &[&str]) -> Option<String> {
    let all = sections();
    let in_a_section = all.iter().any(|(_, keys)| {
        let shared = known
            .iter()
            .filter(|k| keys.iter().any(|s| s == *k))
            .count();
        shared * 3 >= known.len().max(1) * 2
    });
    if !in_a_section {
        return None;
    }
    let mut found = all
        .iter()
        .skip(1)
        .filter(|(_, keys)| keys.iter().any(|k| k == key));
    match (found.next(), found.next()) {
        (Some((section, _)), None) => Some(section.clone()),
        _ => None,
    }
}

/// What is wrong with a value given for one setting (a sheet's, a live change's), in the words `trawl check`
/// uses ("a whole number, 0 or more", the choices by name), not serde's ("expected u64").
pub fn value_problem(e: &toml::de::Error) -> String {
    in_users_words(e.message().trim())
}

/// serde's message in the words of someone writing a config: the closest known name for an unknown one
/// ("did you mean `obey_robots`?") instead of the list of every name, and "a whole number" for `u32`.
pub(crate) fn in_users_words(message: &str) -> String {
    for (what, start) in [("key", "unknown field `"), ("name", "unknown variant `")] {
        if let Some(got) = quoted_after(message, start) {
            let known: Vec<&str> = message
                .split_once(", expected")
                .map(|(_, list)| list.split('`').skip(1).step_by(2).collect())
                .unwrap_or_default();
            let closest = closest(got, &known, typo_distance(got));
            if what == "key"
                && closest.is_none()
                && let Some(section) = section_of(got, &known)
            {
                return format!("unknown key `{got}` here: it belongs in [{section}]");
            }
            return match closest {
                Some(k) => format!("unknown {what} `{got}`: did you mean `{k}`?"),
                None if what == "key" && !known.is_empty() => {
                    format!("unknown {what} `{got}`; known: {}", known.join(", "))
                }
                // A choice with no name alike: the choices, when few (xt42b: a sheet's `browser.mode =
                // "sometimes"`); a rule's name is one of dozens, which docs/scope.md lists.
                None if !known.is_empty() && known.len() <= 12 => {
                    format!("unknown {what} `{got}`; the choices: {}", known.join(", "))
                }
                None => format!("unknown {what} `{got}`"),
            };
        }
    }
    let mut text = message.to_string();
    // A number too big for any integer type is read as i128, one too big for the key's own (100000000000 for a
    // u32, xt42b) is an integer of the wrong value: either way, say the range of the one expected. A negative
    // one keeps "a whole number, 0 or more", which says the same more plainly.
    let wide = [" as i128", " as u128"]
        .into_iter()
        .find_map(|wide| text.find(wide).map(|at| at..at + wide.len()));
    let too_big =
        wide.is_some() || text.starts_with("invalid value: integer `") && !text.contains("`-");
    let ranges = [
        ("expected usize", "0 to 9223372036854775807"),
        ("expected u64", "0 to 9223372036854775807"),
        ("expected u32", "0 to 4294967295"),
        ("expected u16", "0 to 65535"),
        ("expected u8", "0 to 255"),
        (
            "expected i64",
            "-9223372036854775808 to 9223372036854775807",
        ),
        ("expected i32", "-2147483648 to 2147483647"),
    ];
    let ranged = ranges.into_iter().find_map(|(rust, range)| {
        let at = text.find(rust)?;
        let whole = !text[at + rust.len()..].starts_with(|c: char| c.is_ascii_alphanumeric());
        whole.then_some((at..at + rust.len(), range))
    });
    if too_big && let Some((at, range)) = ranged {
        text.replace_range(
            at.start.saturating_sub(2)..at.end,
            &format!(" is out of range: give a whole number from {range}"),
        );
        if let Some(wide) = wide {
            text.replace_range(wide, "");
        }
        text = text
            .replace("invalid value: integer ", "the number ")
            .replace("invalid type: integer ", "the number ");
    }
    for (rust, words) in [
        ("expected usize", "expected a whole number, 0 or more"),
        ("expected u64", "expected a whole number, 0 or more"),
        ("expected u32", "expected a whole number, 0 or more"),
        ("expected u16", "expected a whole number from 0 to 65535"),
        ("expected u8", "expected a whole number from 0 to 255"),
        ("expected i64", "expected a whole number"),
        ("expected i32", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("expected f32", "expected a number"),
        ("expected a boolean", "expected true or false"),
        ("expected a string", "expected text in quotes"),
        ("expected a sequence", "expected a list in [ ]"),
        ("expected a map", "expected a table"),
    ] {
        if let Some(at) = text.find(rust)
            && !text[at + rust.len()..].starts_with(|c: char| c.is_ascii_alphanumeric())
        {
            text.replace_range(at..at + rust.len(), words);
        }
    }
    // std's parse error names no form (`fetch.dns_servers`).
    if text == "invalid socket address syntax" {
        text = "not an address with a port: write it as \"10.1.2.3:53\" or \"[fd00::1]:53\"".into();
    }
    text = text
        .replace("invalid type: string ", "found the text ")
        .replace("invalid type: integer ", "found the number ")
        .replace("invalid type: floating point ", "found the number ")
        .replace("invalid type: boolean ", "found ")
        .replace("invalid value: integer ", "found the number ")
        // A number or a truth value where a choice goes (`mode = 1`, xt43a N7): serde's words for an enum.
        .replace("wanted string or table", "expected one of its choices, in quotes")
        .replace(
            "invalid type: unit variant, expected string only",
            "expected one of its choices, in quotes",
        )
        // A table of choices given two (`success = { cookie = …, text = … }`, xt17a F9).
        .replace(
            "wanted exactly 1 element, more than 1 element",
            "a table of choices (a credential's `success` or `logged_out`, a rule's) takes one key, not \
             several: `success = { cookie = \"NAME\" }`, say",
        );
    if let Some(struct_at) = text.find("expected struct ") {
        text.replace_range(struct_at.., "expected a table");
    }
    text
}

/// 1-based line and column of byte `offset` in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, col)
}

/// Whether `text` writes the dotted `key` (`frontier.min_delay_ms`) itself, not only a table enclosing it.
pub fn writes(text: &str, key: &str) -> bool {
    let Ok(doc) = toml::de::DeTable::parse(text) else {
        return false;
    };
    let mut table = doc.get_ref();
    let mut parts = key.split('.').peekable();
    while let Some(name) = parts.next() {
        let Some(v) = table.get(name) else {
            return false;
        };
        if parts.peek().is_none() {
            return true;
        }
        match v.get_ref().as_table() {
            Some(t) => table = t,
            None => return false,
        }
    }
    false
}

/// `message` without the "(the default)" said after a `KEY = VALUE` that one of `texts` (a config and the
/// files it includes) writes itself: the checks that word it see only the values, and a value the operator
/// wrote is theirs, whatever it equals (xt14a F19; review 65 R10).
pub fn unsay_written_defaults(message: &str, texts: &[&str]) -> String {
    const NOTE: &str = " (the default)";
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find(NOTE) {
        let before = &rest[..at];
        let key = before
            .rsplit_once(" = ")
            .and_then(|(k, _)| k.rsplit(' ').next());
        out.push_str(before);
        if !key.is_some_and(|k| texts.iter().any(|text| writes(text, k))) {
            out.push_str(NOTE);
        }
        rest = &rest[at + NOTE.len()..];
    }
    out.push_str(rest);
    out
}

/// The keys holding a table of choices (one key each: `success = { cookie = "s" }`).
const CHOICE_TABLES: [&str; 2] = ["success", "logged_out"];

/// For a table of choices given several keys somewhere in the table at dotted `key` (a `[[credentials]]`
/// entry), the dotted key of the first such table: serde names only the entry (xt44b F5).
pub fn choices_given_twice(text: &str, key: &str) -> Option<String> {
    let doc = toml::de::DeTable::parse(text).ok()?;
    let mut table = doc.get_ref();
    for part in key.split('.').filter(|p| !p.is_empty()) {
        let (name, indexes) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        let mut v = table.get(name)?;
        for idx in indexes.split(['[', ']']).filter(|s| !s.is_empty()) {
            v = v.get_ref().as_array()?.get(idx.parse::<usize>().ok()?)?;
        }
        table = v.get_ref().as_table()?;
    }
    table
        .iter()
        .filter(|(k, v)| {
            CHOICE_TABLES.iter().any(|&c| k.get_ref() == c)
                && v.get_ref().as_table().is_some_and(|t| t.len() > 1)
        })
        .min_by_key(|(k, _)| k.span().start)
        .map(|(k, _)| {
            if key.is_empty() {
                k.get_ref().to_string()
            } else {
                format!("{key}.{}", k.get_ref())
            }
        })
}

/// The byte span of the key at dotted `key` (`scope.rules[2].regex`) in `text` (a table's at its header), or
/// of the nearest enclosing one that the text has.
pub fn locate(text: &str, key: &str) -> Option<std::ops::Range<usize>> {
    let doc = toml::de::DeTable::parse(text).ok()?;
    // The key's own span (where a user looks for it), else its value's.
    let key_span = |t: &toml::de::DeTable<'_>, name: &str| {
        t.iter()
            .find(|(k, _)| k.get_ref() == name)
            .map(|(k, _)| k.span())
    };
    let mut found = None;
    let mut table = doc.get_ref();
    let mut value: Option<&toml::Spanned<toml::de::DeValue<'_>>> = None;
    for part in key.split('.') {
        let (name, indexes) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if let Some(v) = value {
            match v.get_ref().as_table() {
                Some(t) => table = t,
                None => break,
            }
        }
        let Some(mut v) = table.get(name) else { break };
        found = key_span(table, name).or(Some(v.span()));
        for idx in indexes.split(['[', ']']).filter(|s| !s.is_empty()) {
            let Some(next) = idx
                .parse::<usize>()
                .ok()
                .and_then(|i| v.get_ref().as_array()?.get(i))
            else {
                return found;
            };
            v = next;
            found = Some(v.span());
        }
        value = Some(v);
        if v.get_ref().as_table().is_none() {
            break;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// "(the default)" stays for a value the text leaves to the default, and goes for one it writes.
    #[test]
    fn the_default_is_said_only_of_what_the_text_leaves_out() {
        let message = "frontier.min_delay_ms = 3000 (the default) is above frontier.max_delay_ms = 1000 \
                       (the default); lower the first";
        let both = "[frontier]\nmin_delay_ms = 3000\nmax_delay_ms = 1000\n";
        assert_eq!(
            unsay_written_defaults(message, &[both]),
            "frontier.min_delay_ms = 3000 is above frontier.max_delay_ms = 1000; lower the first"
        );
        let dotted = "frontier.max_delay_ms = 1000\n";
        assert_eq!(
            unsay_written_defaults(message, &["[seeds]\n", dotted]),
            "frontier.min_delay_ms = 3000 (the default) is above frontier.max_delay_ms = 1000; lower the first"
        );
        assert_eq!(unsay_written_defaults(message, &["[frontier]\n"]), message);
        assert_eq!(unsay_written_defaults(message, &["not = = toml"]), message);
    }

    #[test]
    fn locates_keys() {
        let text = "[frontier]\nmin_delay_ms = 5\n[[scope.rules]]\nrule = \"reject\"\n[[scope.rules]]\nrule = \"matches_regex\"\nregex = \"(\"\n";
        let at = |k| locate(text, k).map(|s| line_col(text, s.start));
        assert_eq!(at("frontier.min_delay_ms"), Some((2, 1)));
        assert_eq!(at("scope.rules[1].regex"), Some((7, 1)));
        assert_eq!(at("frontier"), Some((1, 2)), "a table at its header");
        assert_eq!(at("scope.rules[1].nope").map(|(l, _)| l), Some(5));
        assert_eq!(at("fetch.max_bytes"), None);
    }
}
