//! Loading a config in three checks — TOML syntax, wiring (keys, types, names), semantics — collecting every
//! problem with its file, line and column; and `include = [...]`.

use std::{
    borrow::Cow,
    path::{Path, PathBuf},
};

use toml::{
    Spanned,
    de::{DeArray, DeTable, DeValue},
};

use super::{
    CrawlConfig,
    problem::{
        ConfigError, Problem, Stage, choices_given_twice, in_users_words, line_col, locate,
        quoted_after, typo_distance,
    },
};

/// A file's text, kept to place problems found later.
#[derive(Debug, Clone)]
struct Source {
    path: PathBuf,
    text: String,
}

/// A problem found by the TOML parser or by deserializing, at the key it is about: `path` is where it was found
/// (for "unknown field", the field is added), and the column is the key's, not its value's.
fn toml_problem(
    stage: Stage,
    src: &Source,
    e: &toml::de::Error,
    path: &[(String, Option<usize>)],
) -> Problem {
    let raw = e.message().trim().to_string();
    let mut key = dotted(&problem_path(path, &raw));
    if raw.contains("wanted exactly 1 element, more than 1 element")
        && let Some(inner) = choices_given_twice(&src.text, &key)
    {
        key = inner;
    }
    // A bad value (an unknown rule name or choice) is where it is written: the parser names it, or the table
    // holding it (inside a rule), where it is found by its text.
    let got = quoted_after(&raw, "unknown variant `");
    let value_span = e
        .span()
        .or_else(|| got.and_then(|_| locate(&src.text, &key)))
        .map(|span| {
            // An array-of-tables entry's span is its header: its keys follow, up to the next header.
            let end = src.text[span.end.min(src.text.len())..]
                .find("\n[")
                .map_or(src.text.len(), |i| span.end + i)
                .max(span.end);
            let within = src.text.get(span.start..end).unwrap_or_default();
            got.and_then(|g| {
                [format!("\"{g}\""), format!("'{g}'")]
                    .iter()
                    .filter_map(|q| within.find(q.as_str()))
                    .min()
            })
            .map_or(span.clone(), |at| span.start + at..end)
        });
    let span = match value_span.clone() {
        Some(span) if got.is_some() => Some(span),
        span => (!key.is_empty())
            .then(|| locate(&src.text, &key))
            .flatten()
            .or(span),
    };
    let at = span.clone().map(|s| line_col(&src.text, s.start));
    let quoted = at
        .and_then(|(l, _)| src.text.lines().nth(l - 1))
        .map(|l| l.trim().to_string());
    // The key a bad value is written at (`cookies` of `cookies = "jar"`), when the parser names the value.
    let written = value_span
        .and_then(|s| key_before(&src.text, s.start))
        .filter(|_| got.is_some());
    let mut named = None;
    let (message, hint) = match (got, written) {
        // A choice (not a rule's name): the key and its choices.
        (Some(got), Some(w)) if w != "rule" => {
            let full = if path.last().is_some_and(|(k, i)| k == w && i.is_none()) {
                key.clone()
            } else {
                super::rules::join(&key, w)
            };
            (
                choice_message(&full, got, &raw),
                Some(format!(
                    "write one of the choices; {} describes them",
                    doc_for(path)
                )),
            )
        }
        (Some(_), _) => (
            in_users_words(&raw),
            Some("the rules are listed in docs/scope.md".to_string()),
        ),
        // A list where one rule is expected: only `not` takes one.
        _ if raw.contains("expected variant identifier") => (
            "a `not` rule's `of` is one rule, written as a table: of = { rule = \"...\" } (a list of rules \
             in `of` is for `all` and `any`)"
                .to_string(),
            Some("write of = { rule = \"...\", ... }, or use `all`/`any` for a list".to_string()),
        ),
        _ => {
            // A value of the wrong type or range is said with its key (xt14b F5: `-5` named none).
            if raw.contains(" as i128")
                || raw.contains(" as u128")
                || raw.starts_with("invalid value")
                || raw.starts_with("invalid type")
                // A number or a truth value where a choice goes (`mode = 1`): serde's enum words.
                || raw.contains("wanted string or table")
                // A table of choices given several, at its own key (xt44b F5).
                || raw.contains("wanted exactly 1 element, more than 1 element")
            {
                named = (!key.is_empty()).then(|| key.clone());
            }
            let hint = raw
                .contains("unknown field")
                .then(|| format!("every key is listed in {}", doc_for(path)));
            (in_users_words(&raw), hint)
        }
    };
    Problem {
        stage,
        file: src.path.clone(),
        at,
        key: named,
        message: match quoted {
            Some(q) if !q.is_empty() => format!("{message}\n    {q}"),
            _ => message,
        },
        hint,
    }
}

/// The document that describes the keys and choices at `path`: URL classes, scope rules, or the rest.
fn doc_for(path: &[(String, Option<usize>)]) -> &'static str {
    match path.first().map(|(k, _)| k.as_str()) {
        Some("url_class") => "docs/url-classes.md",
        _ if path.iter().any(|(k, _)| k == "rules" || k == "decide") => "docs/scope.md",
        _ => "docs/configuration.md",
    }
}

/// The key written before the value at byte `offset` of `text` on its line: `cookies` for `cookies = "jar"`,
/// `decision` for `{ rule = "accept", decision = "maybe" }`.
fn key_before(text: &str, offset: usize) -> Option<&str> {
    let before = text.get(..offset)?;
    let line = &before[before.rfind('\n').map_or(0, |i| i + 1)..];
    let lhs = line[..line.rfind('=')?].trim_end();
    let start = lhs
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '"'))
        .map_or(0, |i| i + 1);
    let k = lhs[start..].trim_matches('"');
    (!k.is_empty()).then_some(k)
}

/// `key = "got" is not one of: a, b, c`, with the closest choice when `got` looks like a typo of it.
fn choice_message(key: &str, got: &str, raw: &str) -> String {
    let known: Vec<&str> = raw
        .split_once(", expected")
        .map(|(_, list)| list.split('`').skip(1).step_by(2).collect())
        .unwrap_or_default();
    // As for keys: a typo is an edit or two away, closer still in a short name.
    let closest = super::problem::closest(got, &known, typo_distance(got))
        .map(|k| format!(" (did you mean {k:?}?)"))
        .unwrap_or_default();
    format!(
        "{key} = {got:?} is not one of: {}{closest}",
        known.join(", ")
    )
}

/// The path of the key a problem found at `path` is about: for an unknown field, the field (inside the
/// deepest table on the path that has it, or added to the path).
fn problem_path(path: &[(String, Option<usize>)], message: &str) -> Vec<(String, Option<usize>)> {
    let Some(field) = quoted_after(message, "unknown field `") else {
        return path.to_vec();
    };
    match path.iter().rposition(|(k, _)| k == field) {
        Some(at) => {
            let mut p = path[..=at].to_vec();
            p[at].1 = None;
            p
        }
        None => {
            let mut p = path.to_vec();
            p.push((field.to_string(), None));
            p
        }
    }
}

/// `scope.rules[2].regex` for a path of keys and indexes.
fn dotted(path: &[(String, Option<usize>)]) -> String {
    let mut out = String::new();
    for (key, index) in path {
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(key);
        if let Some(i) = index {
            out.push_str(&format!("[{i}]"));
        }
    }
    out
}

/// A document holding only `value` at `path`, to deserialize one part of the config alone.
fn single<'i>(
    path: &[(String, Option<usize>)],
    value: Spanned<DeValue<'i>>,
) -> Spanned<DeTable<'i>> {
    let mut v = value;
    for (key, index) in path.iter().rev() {
        if index.is_some() {
            let span = v.span();
            let mut arr = DeArray::new();
            arr.push(v);
            v = Spanned::new(span, DeValue::Array(arr));
        }
        let span = v.span();
        let mut t = DeTable::new();
        t.insert(Spanned::new(span.clone(), Cow::Owned(key.clone())), v);
        v = Spanned::new(span, DeValue::Table(t));
    }
    match v.into_inner() {
        DeValue::Table(t) => Spanned::new(0..0, t),
        _ => Spanned::new(0..0, DeTable::new()),
    }
}

fn try_part(
    path: &[(String, Option<usize>)],
    value: &Spanned<DeValue<'_>>,
) -> Result<(), toml::de::Error> {
    let doc = single(path, value.clone());
    serde::Deserialize::deserialize(toml::de::Deserializer::from(doc)).map(|_: CrawlConfig| ())
}

/// Deserializes each part of the config alone, descending into tables and arrays, so that every wiring
/// problem is found, not only the first.
fn probe(
    src: &Source,
    path: &mut Vec<(String, Option<usize>)>,
    value: &Spanned<DeValue<'_>>,
    out: &mut Vec<Problem>,
    failed: &mut Pruning,
) {
    let Err(e) = try_part(path, value) else {
        return;
    };
    let before = out.len();
    match value.get_ref() {
        DeValue::Table(t) if path.last().is_none_or(|(_, i)| i.is_none()) => {
            for (k, v) in t.iter() {
                path.push((k.get_ref().to_string(), None));
                probe(src, path, v, out, failed);
                path.pop();
            }
        }
        DeValue::Array(items) if path.last().is_some_and(|(_, i)| i.is_none()) => {
            for (i, item) in items.iter().enumerate() {
                let last = path.last_mut().expect("non-empty path");
                last.1 = Some(i);
                probe_entry(src, path, item, out, failed);
                path.last_mut().expect("non-empty path").1 = None;
            }
        }
        _ => {}
    }
    if out.len() == before {
        out.push(toml_problem(Stage::Wiring, src, &e, path));
        failed.remove.push(problem_path(path, e.message()));
    }
}

/// Deserializes one entry of an array of tables (`url_class[0]`, `sheet[1]`) alone; each key or value a
/// problem is about (an unknown key, an unknown name) is taken out and the entry tried again, so that every
/// problem of the entry is found. An entry still wrong at the end (a problem that names no key, or one that
/// taking a key out made) is left out whole.
fn probe_entry(
    src: &Source,
    path: &[(String, Option<usize>)],
    entry: &Spanned<DeValue<'_>>,
    out: &mut Vec<Problem>,
    failed: &mut Pruning,
) {
    let mut entry = entry.clone();
    let mut taken: Vec<Vec<(String, Option<usize>)>> = Vec::new();
    let mut placeholders = Vec::new();
    for _ in 0..32 {
        let Err(e) = try_part(path, &entry) else {
            failed.remove.extend(taken);
            failed.placeholders.extend(placeholders);
            return;
        };
        let raw = e.message().to_string();
        // A field missing once a wrong one was taken out (a misspelt key, a bad value) is most likely that
        // one: not a problem of its own. When the wrong one was a rule's name (a rule of a sheet's `rules`,
        // or of an `all`/`any`), the rule becomes `accept` in its place, so the entry's other parts (a
        // sheet's `set`) are still checked, and later rules keep their numbers.
        if raw.contains("missing field `")
            && let Some(last) = taken.last()
        {
            match rule_of(last) {
                // The entry itself is the rule (`scope.rules[0]`): `accept` in its place, so the rules after
                // it keep their numbers (xt42a: their problems were told at the entry before their own).
                Some(rule) if rule.len() == path.len() => {
                    taken.pop();
                    failed.remove.extend(taken);
                    failed.placeholders.push(rule);
                    return;
                }
                Some(rule) if set_accept(&mut entry, &rule[path.len()..]) => {
                    taken.pop();
                    placeholders.push(rule);
                    continue;
                }
                _ => break,
            }
        }
        let under = if let Some(field) = quoted_after(&raw, "unknown field `") {
            take_key(&mut entry, &|k, _| k == field)
        } else if let Some(got) = quoted_after(&raw, "unknown variant `") {
            // A rule's name first, so a value spelt alike elsewhere (`regex = "nope"`) is not taken for it.
            let named = |_: &str, v: &Spanned<DeValue<'_>>| matches!(v.get_ref(), DeValue::String(s) if s.as_ref() == got);
            take_key(&mut entry, &|k, v| k == "rule" && named(k, v))
                .or_else(|| take_key(&mut entry, &named))
        } else if ["invalid value", "invalid type", "invalid length"]
            .iter()
            .any(|start| raw.starts_with(start))
        {
            // A value of the wrong type or range is taken out by where it is written, so the entry stays in
            // its place and later entries keep their numbers (xt15b F9: every later entry's problem was told
            // at the index before its own). Inside a rule the error's place is the rule's: a number, a text
            // or a truth value is then found by its text as the message quotes it (xt15c F13): the first of
            // the entry's values so written, which is most often the one meant.
            let quoted = |v: &Spanned<DeValue<'_>>| match v.get_ref() {
                DeValue::Integer(i) => quoted_after(&raw, "integer `") == Some(i.as_str()),
                DeValue::String(s) => raw.contains(&format!("string {:?},", s.as_ref())),
                DeValue::Boolean(b) => raw.contains(&format!("boolean `{b}`")),
                DeValue::Float(f) => quoted_after(&raw, "floating point `")
                    .and_then(|q| q.parse::<f64>().ok())
                    .is_some_and(|q| f.as_str().replace('_', "").parse::<f64>().ok() == Some(q)),
                _ => false,
            };
            e.span()
                .and_then(|span| take_key(&mut entry, &|_, v| v.span() == span))
                .or_else(|| take_key(&mut entry, &|_, v| quoted(v)))
        } else {
            None
        };
        match under {
            Some(under) => {
                let mut at = path.to_vec();
                at.extend(under);
                out.push(toml_problem(Stage::Wiring, src, &e, &at));
                taken.push(at);
            }
            None => {
                out.push(toml_problem(Stage::Wiring, src, &e, path));
                // A rule that cannot be read becomes `accept` in its place, so the rules after it keep their
                // numbers (xt15b F9).
                if matches!(entry.get_ref(), DeValue::Table(t) if t.iter().any(|(k, _)| k.get_ref() == "rule"))
                {
                    failed.remove.extend(taken);
                    failed.placeholders.push(path.to_vec());
                    return;
                }
                break;
            }
        }
    }
    failed.remove.push(path.to_vec());
}

/// What the pruned config leaves out of the file (paths of keys and entries) and where it puts an `accept`
/// rule in place of one whose name is unknown.
#[derive(Default)]
struct Pruning {
    remove: Vec<Vec<(String, Option<usize>)>>,
    placeholders: Vec<Vec<(String, Option<usize>)>>,
}

/// The rule (an element of an array) whose `rule` key is at `path`.
fn rule_of(path: &[(String, Option<usize>)]) -> Option<Vec<(String, Option<usize>)>> {
    let ((key, _), parent) = path.split_last()?;
    (key == "rule" && parent.last()?.1.is_some()).then(|| parent.to_vec())
}

/// The placeholder for a rule whose name is unknown: a rule that is always valid.
fn accept_rule<'i>() -> DeTable<'i> {
    let mut t = DeTable::new();
    t.insert(
        Spanned::new(0..0, Cow::Borrowed("rule")),
        Spanned::new(0..0, DeValue::String(Cow::Borrowed("accept"))),
    );
    t
}

/// Puts an `accept` rule in place of the array element at `element`, a path below `value`; false when
/// there is none.
fn set_accept(value: &mut Spanned<DeValue<'_>>, element: &[(String, Option<usize>)]) -> bool {
    let Some(((key, index), rest)) = element.split_first() else {
        return false;
    };
    let DeValue::Table(t) = value.get_mut() else {
        return false;
    };
    let Some((_, inner)) = t.iter_mut().find(|(k, _)| k.get_ref() == key) else {
        return false;
    };
    match (index, inner.get_mut()) {
        (None, _) => set_accept(inner, rest),
        (Some(i), DeValue::Array(items)) => match items.get_mut(*i) {
            Some(item) if rest.is_empty() => {
                let span = item.span();
                *item = Spanned::new(span, DeValue::Table(accept_rule()));
                true
            }
            Some(item) => set_accept(item, rest),
            None => false,
        },
        _ => false,
    }
}

/// Takes out of `value` the first key (depth first) that `pick` chooses by its name and value; returns its
/// path below `value` (an array element's index is on the key above it, so a path below an array begins
/// with an empty name).
fn take_key(
    value: &mut Spanned<DeValue<'_>>,
    pick: &dyn Fn(&str, &Spanned<DeValue<'_>>) -> bool,
) -> Option<Vec<(String, Option<usize>)>> {
    match value.get_mut() {
        DeValue::Table(t) => {
            if let Some(name) = t
                .iter()
                .find(|(k, v)| pick(k.get_ref(), v))
                .map(|(k, _)| k.get_ref().to_string())
            {
                let mut kept = DeTable::new();
                for (k, v) in t.iter() {
                    if k.get_ref() != &name {
                        kept.insert(k.clone(), v.clone());
                    }
                }
                *t = kept;
                return Some(vec![(name, None)]);
            }
            for (k, inner) in t.iter_mut() {
                if let Some(mut under) = take_key(inner, pick) {
                    match under.first_mut() {
                        Some((name, _)) if name.is_empty() => *name = k.get_ref().to_string(),
                        _ => under.insert(0, (k.get_ref().to_string(), None)),
                    }
                    return Some(under);
                }
            }
            None
        }
        DeValue::Array(items) => items.iter_mut().enumerate().find_map(|(i, item)| {
            let mut under = take_key(item, pick)?;
            under.insert(0, (String::new(), Some(i)));
            Some(under)
        }),
        _ => None,
    }
}

/// Syntax and wiring of one file: the config, or every problem found and, when the syntax is right, the
/// config without the parts that are wrong (so the semantic check still runs on the rest and a file's
/// problems are all reported in one run).
fn parse_one(src: &Source) -> Result<CrawlConfig, (Vec<Problem>, Option<toml::Table>)> {
    let (doc, errors) = DeTable::parse_recoverable(&src.text);
    if !errors.is_empty() {
        let problems = errors
            .iter()
            .map(|e| toml_problem(Stage::Syntax, src, e, &[]))
            .collect();
        return Err((problems, None));
    }
    match toml::from_str::<CrawlConfig>(&src.text) {
        Ok(c) => Ok(c),
        Err(first) => {
            let mut out = Vec::new();
            let mut failed = Pruning::default();
            let mut path = Vec::new();
            for (k, v) in doc.get_ref().iter() {
                path.push((k.get_ref().to_string(), None));
                probe(src, &mut path, v, &mut out, &mut failed);
                path.pop();
            }
            if out.is_empty() {
                out.push(toml_problem(Stage::Wiring, src, &first, &[]));
            }
            out.sort_by_key(|p| p.at);
            out.dedup();
            let pruned = toml::from_str::<toml::Table>(&src.text).ok().map(|mut t| {
                for path in &failed.placeholders {
                    place_accept(&mut t, path);
                }
                // Last first: taking out an array's element leaves the indexes of those before it right.
                for path in failed.remove.iter().rev() {
                    prune(&mut t, path);
                }
                t
            });
            Err((out, pruned))
        }
    }
}

/// Puts an `accept` rule in place of the array element at `path` in `table` (see [`set_accept`]).
fn place_accept(table: &mut toml::Table, path: &[(String, Option<usize>)]) {
    let Some(((key, index), rest)) = path.split_first() else {
        return;
    };
    match (table.get_mut(key), index) {
        (Some(toml::Value::Table(t)), None) => place_accept(t, rest),
        (Some(toml::Value::Array(items)), Some(i)) => match (items.get_mut(*i), rest.is_empty()) {
            (Some(item), true) => {
                let mut accept = toml::Table::new();
                accept.insert("rule".into(), toml::Value::String("accept".into()));
                *item = toml::Value::Table(accept);
            }
            (Some(toml::Value::Table(t)), false) => place_accept(t, rest),
            _ => {}
        },
        _ => {}
    }
}

/// Removes the value at `path` from `table` (an array element is removed from its array).
fn prune(table: &mut toml::Table, path: &[(String, Option<usize>)]) {
    let Some(((key, index), rest)) = path.split_first() else {
        return;
    };
    match (table.get_mut(key), index) {
        (Some(toml::Value::Table(t)), None) if !rest.is_empty() => prune(t, rest),
        (Some(toml::Value::Array(items)), Some(i)) if *i < items.len() => {
            match (&mut items[*i], rest.is_empty()) {
                (toml::Value::Table(t), false) => prune(t, rest),
                _ => {
                    items.remove(*i);
                }
            }
        }
        _ => {
            table.remove(key);
        }
    }
}

/// The `name` of each `[[url_class]]` entry `text` writes, in order ("" for one without a name).
fn written_class_names(text: &str) -> Vec<String> {
    let Ok(doc) = DeTable::parse(text) else {
        return Vec::new();
    };
    let Some(DeValue::Array(entries)) = doc.get_ref().get("url_class").map(|v| v.get_ref()) else {
        return Vec::new();
    };
    entries
        .iter()
        .map(|e| match e.get_ref() {
            DeValue::Table(t) => match t.get("name").map(|n| n.get_ref()) {
                Some(DeValue::String(name)) => name.to_string(),
                _ => String::new(),
            },
            _ => String::new(),
        })
        .collect()
}

/// `over` laid over `under`: tables merge key by key, the arrays of tables `url_class` and `sheet` are joined
/// (entries of `over` win on a name clash), anything else in `over` replaces.
fn merge(under: &mut toml::Table, over: toml::Table, top: bool) {
    for (k, v) in over {
        match (under.get_mut(&k), v) {
            (Some(toml::Value::Table(u)), toml::Value::Table(o)) => merge(u, o, false),
            (Some(toml::Value::Array(u)), toml::Value::Array(o))
                if top && (k == "url_class" || k == "sheet") =>
            {
                let name =
                    |v: &toml::Value| v.get("name").and_then(|n| n.as_str()).map(str::to_string);
                let names: Vec<_> = o.iter().filter_map(name).collect();
                u.retain(|e| name(e).is_none_or(|n| !names.contains(&n)));
                u.extend(o);
            }
            (_, v) => {
                under.insert(k, v);
            }
        }
    }
}

/// Reads `path` and its includes (recursively, each at most once); returns the merged table and every file.
fn read_with_includes(
    path: &Path,
    text: String,
    sources: &mut Vec<Source>,
    problems: &mut Vec<Problem>,
    depth: usize,
) -> Option<toml::Table> {
    let src = Source {
        path: path.to_path_buf(),
        text,
    };
    sources.push(src.clone());
    let (config, own) = match parse_one(&src) {
        Ok(c) => match toml::from_str::<toml::Table>(&src.text) {
            Ok(table) => (c, table),
            // A whole number a setting holds but a TOML value cannot (past 9223372036854775807): said, not
            // left as a check of "0 problems" (xt15c F17).
            Err(e) => {
                let mut p = toml_problem(Stage::Wiring, &src, &e, &[]);
                p.hint = Some(
                    "TOML's whole numbers end at 9223372036854775807: give a smaller one"
                        .to_owned(),
                );
                problems.push(p);
                return None;
            }
        },
        Err((p, pruned)) => {
            problems.extend(p);
            let pruned = pruned?;
            let config = toml::Value::Table(pruned.clone())
                .try_into::<CrawlConfig>()
                .ok()?;
            (config, pruned)
        }
    };
    let mut merged = toml::Table::new();
    let base = path.parent().unwrap_or(Path::new("."));
    for (i, inc) in config.include.iter().enumerate() {
        let inc_path = base.join(inc);
        let key = format!("include[{i}]");
        if depth > 8 || sources.iter().any(|s| s.path == inc_path) {
            problems.push(locate_problem(
                Problem::at_key(
                    Stage::Wiring,
                    key,
                    format!("{} is included twice or in a loop", inc_path.display()),
                ),
                &src,
            ));
            continue;
        }
        match super::named_file::read_named_to_string(&inc_path) {
            Ok(t) => {
                if let Some(table) = read_with_includes(&inc_path, t, sources, problems, depth + 1)
                {
                    merge(&mut merged, table, true);
                }
            }
            Err(e) => problems.push(locate_problem(
                Problem::at_key(
                    Stage::Semantics,
                    key,
                    format!("cannot read {}: {e}", inc_path.display()),
                )
                .with_hint("include paths are relative to the including file"),
                &src,
            )),
        }
    }
    let mut own = own;
    // An included file's paths are its own folder's, as its author wrote them, not the including file's
    // (xt14b F2: `seeds.files` of an included profile was looked for beside the top file).
    // Absolute, or a top file named by a relative path would have them joined to its folder once more
    // (xt38a N3: `inc/b/inc/b/../a/seeds.txt`).
    if depth > 0 {
        let dir = std::path::absolute(base).unwrap_or_else(|_| base.to_path_buf());
        anchor_paths(&mut own, &dir);
    }
    merge(&mut merged, own, true);
    merged.remove("include");
    Some(merged)
}

/// The keys whose values are file paths (a path, or a list of them), wherever they are in a config.
const PATH_KEYS: [&str; 5] = [
    "files",
    "cookies_file",
    "behaviors_file",
    "password_file",
    "dedup_from",
];

/// `table` with every relative path of [`PATH_KEYS`] made relative to `dir` (absolute when `dir` is).
fn anchor_paths(table: &mut toml::Table, dir: &Path) {
    let anchor = |value: &mut toml::Value| {
        if let toml::Value::String(path) = value
            && !path.is_empty()
            && Path::new(path.as_str()).is_relative()
        {
            *path = dir.join(path.as_str()).to_string_lossy().into_owned();
        }
    };
    for (key, value) in table.iter_mut() {
        match value {
            toml::Value::Table(inner) => anchor_paths(inner, dir),
            toml::Value::Array(items) if PATH_KEYS.contains(&key.as_str()) => {
                items.iter_mut().for_each(anchor)
            }
            toml::Value::Array(items) => {
                for item in items {
                    if let toml::Value::Table(inner) = item {
                        anchor_paths(inner, dir);
                    }
                }
            }
            other if PATH_KEYS.contains(&key.as_str()) => anchor(other),
            _ => {}
        }
    }
}

/// The text of the config file at `path`, or the problem of reading it.
fn read_text(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|e| ConfigError {
        problems: vec![Problem {
            stage: Stage::Syntax,
            file: path.to_path_buf(),
            at: None,
            key: None,
            message: format!("cannot read the file: {e}"),
            hint: None,
        }],
    })
}

fn locate_problem(mut p: Problem, src: &Source) -> Problem {
    if !p.file.as_os_str().is_empty() {
        return p; // placed in another file (a class library) already
    }
    p.file = src.path.clone();
    p.message = super::problem::unsay_written_defaults(&p.message, &[&src.text]);
    if p.at.is_none()
        && let Some(span) = p.key.as_deref().and_then(|k| locate(&src.text, k))
    {
        p.at = Some(line_col(&src.text, span.start));
    }
    p
}

impl CrawlConfig {
    /// Reads `path` and runs all three checks, returning every problem found. Relative paths in the config
    /// (seed files, class libraries, includes, SURT prefix files) are read from the config's folder.
    pub fn check(path: &Path) -> Result<CrawlConfig, ConfigError> {
        let text = read_text(path)?;
        CrawlConfig::check_str(&text, path)
    }

    /// [`CrawlConfig::warnings`] of the config read from `path`, and `more` (`(key, message)` pairs other
    /// crates find: the robots.txt name of `fetch.user_agent`), each located in its text.
    pub fn located_warnings(&self, path: &Path, more: Vec<(String, String)>) -> Vec<Problem> {
        let src = Source {
            path: path.to_path_buf(),
            text: std::fs::read_to_string(path).unwrap_or_default(),
        };
        self.warnings()
            .into_iter()
            .chain(
                more.into_iter()
                    .map(|(key, message)| Problem::at_key(Stage::Semantics, key, message)),
            )
            .map(|p| locate_problem(p, &src))
            .collect()
    }

    /// Runs all three checks on config `text`; `path` names the file and its folder.
    pub fn check_str(text: &str, path: &Path) -> Result<CrawlConfig, ConfigError> {
        match CrawlConfig::read_checked(text, path)? {
            (config, problems) if problems.is_empty() => Ok(config),
            (_, problems) => Err(ConfigError { problems }),
        }
    }

    /// Reads `path` for a tool that judges URLs under it (`trawl url explain`, the URL tester): a config
    /// whose values are wrong (a seed outside the scope, contradictory delays) is still read, and its
    /// problems are returned beside it; one that cannot be read as a config (its syntax, an unknown key, a
    /// wrong type) is refused. xt14b F8: explain refused the very config whose scope it was asked about.
    pub fn check_leniently(path: &Path) -> Result<(CrawlConfig, Vec<Problem>), ConfigError> {
        let text = read_text(path)?;
        CrawlConfig::read_checked(&text, path)
    }

    /// The config of `text` with its semantic problems, or every problem when some are of its syntax or
    /// wiring (the config could not be read whole).
    fn read_checked(text: &str, path: &Path) -> Result<(CrawlConfig, Vec<Problem>), ConfigError> {
        let (config, problems) = CrawlConfig::read_all(text, path)?;
        if problems.iter().any(|p| p.stage != Stage::Semantics) {
            return Err(ConfigError { problems });
        }
        Ok((config, problems))
    }

    /// The warnings of the config read from `path` though it has problems: of what could be read of it (the
    /// file less its wrong keys and entries), so that `trawl check` says them with its problems (xt42a: a
    /// file with a problem had its warnings hidden until the problem was fixed). None when nothing could be
    /// read.
    pub fn warnings_despite_problems(path: &Path) -> Vec<Problem> {
        let Ok(text) = read_text(path) else {
            return Vec::new();
        };
        match CrawlConfig::read_all(&text, path) {
            Ok((config, _)) => config.located_warnings(path, Vec::new()),
            Err(_) => Vec::new(),
        }
    }

    /// The config of `text` as far as it could be read, and every problem found; refused only when not even
    /// that could be read.
    fn read_all(text: &str, path: &Path) -> Result<(CrawlConfig, Vec<Problem>), ConfigError> {
        let mut sources = Vec::new();
        let mut problems = Vec::new();
        let merged = read_with_includes(path, text.to_string(), &mut sources, &mut problems, 0);
        // With wiring problems, the rest of the file (what could be read) still gets the semantic check.
        let config = match merged {
            Some(m) if problems.iter().all(|p| p.stage == Stage::Wiring) => {
                match toml::Value::Table(m).try_into::<CrawlConfig>() {
                    Ok(c) => c,
                    Err(e) => {
                        problems.push(Problem {
                            stage: Stage::Wiring,
                            file: path.to_path_buf(),
                            at: None,
                            key: None,
                            message: format!("the included files do not combine: {}", e.message()),
                            hint: None,
                        });
                        return Err(ConfigError { problems });
                    }
                }
            }
            _ => return Err(ConfigError { problems }),
        };
        // Absolute, so that the relative paths it resolves (seed, prefix and dedup sources) stay right in the
        // job's copy of the config, which lives elsewhere.
        let base = std::path::absolute(path)
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .unwrap_or_else(|| std::path::PathBuf::from("."));
        let mut config = config;
        config.url_classes_written = written_class_names(&sources[0].text);
        let (config, semantic) = config.semantics(&base);
        let texts: Vec<&str> = sources.iter().map(|s| s.text.as_str()).collect();
        for mut p in semantic {
            p.message = super::problem::unsay_written_defaults(&p.message, &texts);
            let src = sources
                .iter()
                .find(|s| {
                    p.key
                        .as_deref()
                        .is_some_and(|k| locate(&s.text, k).is_some())
                })
                .unwrap_or(&sources[0]);
            problems.push(locate_problem(p, src));
        }
        Ok((config, problems))
    }
}
