//! Heritrix's `PropertyOverrideConfigurer` overrides, applied to the beans as Spring applies them before any bean
//! exists: `bean.path=value`, where the path goes through nested beans, references to top-level beans, list
//! entries (`scope.rules[2].maxHops`) and map entries, and through the beans Heritrix sets itself when the cxml
//! leaves a property unset (`preparer.uriPrecedencePolicy.basePrecedence`). An override whose path addresses
//! nothing is a note, never set on an unrelated property.

use super::ImportError;
use super::beans::{Bean, Beans, OVERRIDE_CLASS, Prop, Value};
use super::profile::Note;

/// Bean properties Heritrix fills itself when the cxml leaves them unset: `(class, property, the bean's class,
/// the class fragment of a top-level bean autowired in its place)`.
const DEFAULT_BEANS: &[(&str, &str, &str, Option<&str>)] = &[
    (
        "FrontierPreparer",
        "uriPrecedencePolicy",
        "org.archive.crawler.frontier.precedence.CostUriPrecedencePolicy",
        Some("UriPrecedencePolicy"),
    ),
    (
        "FrontierPreparer",
        "queueAssignmentPolicy",
        "org.archive.crawler.frontier.SurtAuthorityQueueAssignmentPolicy",
        Some("QueueAssignmentPolicy"),
    ),
    (
        "FrontierPreparer",
        "costAssignmentPolicy",
        "org.archive.crawler.frontier.UnitCostAssignmentPolicy",
        Some("CostAssignmentPolicy"),
    ),
    (
        "BdbFrontier",
        "queuePrecedencePolicy",
        "org.archive.crawler.frontier.precedence.BaseQueuePrecedencePolicy",
        None,
    ),
    (
        "FetchHTTP",
        "shouldFetchBodyRule",
        "org.archive.modules.deciderules.AcceptDecideRule",
        None,
    ),
];

/// The class of the bean Heritrix puts in `class.property` when the cxml leaves it unset.
pub(crate) fn default_bean(class: &str, property: &str) -> Option<&'static str> {
    DEFAULT_BEANS
        .iter()
        .find(|(c, p, _, _)| *c == class && *p == property)
        .map(|(_, _, d, _)| *d)
}

/// Applies every `PropertyOverrideConfigurer` in file order (a later one wins). A key naming no top-level bean
/// is an error, as in Spring; a path that addresses nothing becomes a note in `beans.unapplied`.
pub(crate) fn apply(beans: &mut Beans) -> Result<(), ImportError> {
    let mut overrides = Vec::new();
    for b in beans.top.iter().filter(|b| b.class == OVERRIDE_CLASS) {
        match b.prop("properties").map(|p| &p.value) {
            Some(Value::Text(text, line)) => overrides.extend(java_properties(text, *line)),
            Some(Value::Props(props)) => overrides.extend(props.iter().cloned()),
            _ => {}
        }
    }
    // Top-level beans by short class and id, for the ones Heritrix autowires into an unset property.
    let tops: Vec<(String, Option<String>)> = beans
        .top
        .iter()
        .map(|b| (b.short_class().to_owned(), b.id.clone()))
        .collect();
    for (key, value, line) in overrides {
        let Some((id, path)) = key.split_once('.') else {
            return Err(ImportError::BadOverride {
                line,
                key,
                why: "an override key is BEAN.PROPERTY".into(),
            });
        };
        if !beans.top.iter().any(|b| b.id.as_deref() == Some(id)) {
            return Err(ImportError::BadOverride {
                line,
                key: key.clone(),
                why: format!("no top-level bean has the id {id:?}"),
            });
        }
        let Some(steps) = steps(path) else {
            beans.unapplied.push(unapplied(
                &key,
                &value,
                line,
                "the property path is not one Spring reads (unpaired [ ] or an empty step)",
            ));
            continue;
        };
        let set = Set {
            value: &value,
            line,
            tops: &tops,
        };
        let mut target = id.to_owned();
        let mut at: &[Step<'_>] = &steps;
        loop {
            let Some(bean) = beans
                .top
                .iter_mut()
                .find(|b| b.id.as_deref() == Some(&*target))
            else {
                beans.unapplied.push(unapplied(
                    &key,
                    &value,
                    line,
                    &format!(
                        "it goes through a reference to {target:?}, which no top-level bean is"
                    ),
                ));
                break;
            };
            match into_bean(bean, at, &set) {
                Walk::Done => break,
                Walk::Ref(id, left) => {
                    target = id;
                    at = &at[at.len() - left..];
                }
                Walk::Missing(why) => {
                    beans.unapplied.push(unapplied(&key, &value, line, &why));
                    break;
                }
            }
        }
    }
    Ok(())
}

/// The note for an override that addresses nothing.
fn unapplied(key: &str, value: &str, line: usize, why: &str) -> Note {
    let shown = super::props::shown(key, value);
    Note {
        line,
        subject: format!("override {key} = {shown}"),
        message: format!(
            "not carried over: {why}; the imported profile keeps what the bean has without this override"
        ),
        closest: None,
    }
}

/// One step of a Spring property path: `rules[2]` is the property `rules` and the key `2`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Step<'a> {
    name: &'a str,
    keys: Vec<&'a str>,
}

/// The steps of a property path (`textSource.value`, `rules[2].maxHops`, `map['a.b']`): dots inside brackets
/// are part of a key, and a key's quotes are dropped, as Spring's `PropertyAccessorUtils` reads them. `None` when
/// the brackets do not pair or a step has no name.
fn steps(path: &str) -> Option<Vec<Step<'_>>> {
    let mut out = Vec::new();
    let mut rest = path;
    loop {
        let name_end = rest.find(['.', '[', ']']).unwrap_or(rest.len());
        let name = &rest[..name_end];
        if name.is_empty() {
            return None;
        }
        rest = &rest[name_end..];
        let mut keys = Vec::new();
        while let Some(inner) = rest.strip_prefix('[') {
            let close = inner.find(']')?;
            let key = &inner[..close];
            let key = ["'", "\""]
                .iter()
                .find_map(|q| key.strip_prefix(q)?.strip_suffix(q))
                .unwrap_or(key);
            keys.push(key);
            rest = &inner[close + 1..];
        }
        out.push(Step { name, keys });
        match rest.strip_prefix('.') {
            Some(r) => rest = r,
            None if rest.is_empty() => return Some(out),
            None => return None,
        }
    }
}

/// What setting one override needs besides the path.
struct Set<'a> {
    value: &'a str,
    line: usize,
    /// The top-level beans' short classes and ids.
    tops: &'a [(String, Option<String>)],
}

/// Where a walk down a path ended.
enum Walk {
    /// The value is set.
    Done,
    /// The path goes on in the top-level bean with this id, with this many steps left.
    Ref(String, usize),
    /// The path addresses nothing: why.
    Missing(String),
}

/// Walks `steps` down from `bean` and sets the value at the end.
fn into_bean(bean: &mut Bean, steps: &[Step<'_>], set: &Set<'_>) -> Walk {
    let Some((step, rest)) = steps.split_first() else {
        return Walk::Missing("the path is empty".into());
    };
    if rest.is_empty() && step.keys.is_empty() {
        match bean.prop_mut(step.name) {
            Some(p) => {
                p.value = Value::Text(set.value.to_owned(), set.line);
                p.line = set.line;
            }
            None => bean.props.push(Prop {
                name: step.name.to_owned(),
                value: Value::Text(set.value.to_owned(), set.line),
                line: set.line,
            }),
        }
        return Walk::Done;
    }
    if bean.prop(step.name).is_none() {
        let Some(&(_, _, class, autowired)) = DEFAULT_BEANS
            .iter()
            .find(|(c, p, _, _)| *c == bean.short_class() && p.eq_ignore_ascii_case(step.name))
            .filter(|_| step.keys.is_empty())
        else {
            return Walk::Missing(format!(
                "{} sets no {}, and Heritrix puts no bean of its own there that the importer knows of",
                bean.subject(),
                step.name
            ));
        };
        // Heritrix autowires a top-level bean of the kind into the property; else it has a bean of its own.
        if let Some(id) = autowired.and_then(|kind| {
            set.tops
                .iter()
                .find(|(c, _)| c.contains(kind))
                .and_then(|(_, id)| id.clone())
        }) {
            return Walk::Ref(id, rest.len());
        }
        // Named by its path, for the notes and comments about it (an inline bean is never looked up by id).
        let id = format!("{}.{}", bean.subject(), step.name);
        bean.props.push(Prop {
            name: step.name.to_owned(),
            value: Value::Bean(Box::new(Bean {
                id: Some(id),
                class: class.to_owned(),
                line: set.line,
                props: Vec::new(),
                ctor_args: Vec::new(),
            })),
            line: set.line,
        });
    }
    let subject = format!("{}.{}", bean.subject(), step.name);
    let Some(prop) = bean.prop_mut(step.name) else {
        return Walk::Missing(format!("{subject} is not set"));
    };
    into_value(&mut prop.value, &subject, &step.keys, rest, set)
}

/// Goes on from the value `v` (of `subject`): through its `keys`, then down the `rest` of the path.
fn into_value(
    v: &mut Value,
    subject: &str,
    keys: &[&str],
    rest: &[Step<'_>],
    set: &Set<'_>,
) -> Walk {
    if let Some((key, more)) = keys.split_first() {
        let subject = format!("{subject}[{key}]");
        return match v {
            Value::List(items) => {
                let n = items.len();
                match key.parse::<usize>().ok().and_then(|i| items.get_mut(i)) {
                    Some(item) => into_value(item, &subject, more, rest, set),
                    None => Walk::Missing(format!(
                        "the list has {n} entr{} (counted from 0), so there is no {subject}",
                        if n == 1 { "y" } else { "ies" }
                    )),
                }
            }
            Value::Map(entries) => match entries.iter_mut().find(|(k, _)| k == key) {
                Some((_, item)) => into_value(item, &subject, more, rest, set),
                None => Walk::Missing(format!("the map has no entry {key:?}")),
            },
            _ => Walk::Missing(format!("{subject}: not a list or a map")),
        };
    }
    match v {
        // An entry of a list or map set to a literal (`regexList[0]=…`).
        _ if rest.is_empty() => {
            *v = Value::Text(set.value.to_owned(), set.line);
            Walk::Done
        }
        Value::Bean(inner) => into_bean(inner, rest, set),
        Value::Ref(id, _) => Walk::Ref(id.clone(), rest.len()),
        _ => Walk::Missing(format!("{subject} is not a bean")),
    }
}

/// `java.util.Properties` text: `#`/`!` comments, `key=value`, `key: value` or `key value`, `\` escapes and
/// line continuations. Each entry with the file line it starts on (`first_line` is the text's first line).
pub(crate) fn java_properties(text: &str, first_line: usize) -> Vec<(String, String, usize)> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((i, raw)) = lines.next() {
        let mut logical = raw.trim_start().to_owned();
        if logical.is_empty() || logical.starts_with('#') || logical.starts_with('!') {
            continue;
        }
        while ends_with_odd_backslashes(&logical) {
            logical.pop();
            match lines.next() {
                Some((_, next)) => logical.push_str(next.trim_start()),
                None => break,
            }
        }
        let (key, value) = split_key_value(&logical);
        out.push((unescape(key), unescape(value), first_line + i));
    }
    out
}

fn ends_with_odd_backslashes(s: &str) -> bool {
    s.bytes().rev().take_while(|&b| b == b'\\').count() % 2 == 1
}

fn split_key_value(line: &str) -> (&str, &str) {
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'=' | b':' | b' ' | b'\t' => break,
            _ => i += 1,
        }
    }
    let i = i.min(line.len());
    let key = &line[..i];
    let mut rest = line[i..].trim_start_matches([' ', '\t']);
    if let Some(r) = rest.strip_prefix(['=', ':']) {
        rest = r.trim_start_matches([' ', '\t']);
    }
    (key, rest)
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('f') => out.push('\u{c}'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) => out.push(ch),
                    None => out.push_str(&hex),
                }
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn java_properties_as_java_reads_them() {
        let text = "\n# comment\n! also\n  a.b=1\nc.d : two words\ne.f \\\n   continued\ng.h=a\\\\.b\\u0041\n";
        let got = java_properties(text, 10);
        assert_eq!(
            got,
            vec![
                ("a.b".into(), "1".into(), 13),
                ("c.d".into(), "two words".into(), 14),
                ("e.f".into(), "continued".into(), 15),
                ("g.h".into(), "a\\.bA".into(), 17),
            ]
        );
    }

    #[test]
    fn paths_as_spring_reads_them() {
        let s = |name, keys: &[&'static str]| Step {
            name,
            keys: keys.to_vec(),
        };
        assert_eq!(
            steps("rules[2].maxHops"),
            Some(vec![s("rules", &["2"]), s("maxHops", &[])])
        );
        assert_eq!(
            steps("map['a.b'][0].x"),
            Some(vec![s("map", &["a.b", "0"]), s("x", &[])])
        );
        for bad in ["", "a..b", "a[1", "a]b", "a[1]b", ".a", "a."] {
            assert_eq!(steps(bad), None, "{bad}");
        }
    }

    /// Indexed paths, references, and a property Heritrix fills itself; a path to nothing is a note.
    #[test]
    fn overrides_follow_lists_references_and_defaults() {
        let xml = r#"<beans xmlns="http://www.springframework.org/schema/beans">
 <bean id="o" class="org.springframework.beans.factory.config.PropertyOverrideConfigurer">
  <property name="properties"><value>
scope.rules[1].maxHops=3
scope.rules[0].surtsSource.value=http://a.org/
preparer.uriPrecedencePolicy.basePrecedence=5
frontier.queuePrecedencePolicy.basePrecedence=2
scope.rules[7].maxHops=4
scope.rules[1].nothing.x=1
  </value></property>
 </bean>
 <bean id="acceptSurts" class="org.archive.modules.deciderules.surt.SurtPrefixedDecideRule">
  <property name="surtsSource"><bean class="org.archive.spring.ConfigString"/></property>
 </bean>
 <bean id="scope" class="org.archive.modules.deciderules.DecideRuleSequence">
  <property name="rules"><list>
   <ref bean="acceptSurts"/>
   <bean class="org.archive.modules.deciderules.TooManyHopsDecideRule"/>
  </list></property>
 </bean>
 <bean id="preparer" class="org.archive.crawler.prefetch.FrontierPreparer"/>
 <bean id="uriPrecedencePolicy" class="org.archive.crawler.frontier.precedence.HopsUriPrecedencePolicy"/>
 <bean id="frontier" class="org.archive.crawler.frontier.BdbFrontier"/>
</beans>"#;
        let mut beans = super::super::beans::read(xml).unwrap();
        apply(&mut beans).unwrap();
        let text = |b: &Bean, name: &str| match &b.prop(name).unwrap().value {
            Value::Text(t, _) => t.clone(),
            other => panic!("{other:?}"),
        };
        let scope = beans.get("scope").unwrap();
        let Value::List(rules) = &scope.prop("rules").unwrap().value else {
            panic!()
        };
        let Value::Bean(hops) = &rules[1] else {
            panic!()
        };
        assert_eq!(text(hops, "maxHops"), "3");
        // Through the reference: the top-level bean itself.
        let surts = beans.get("acceptSurts").unwrap();
        let Value::Bean(source) = &surts.prop("surtsSource").unwrap().value else {
            panic!()
        };
        assert_eq!(text(source, "value"), "http://a.org/");
        // The preparer's unset policy is the top-level one Heritrix autowires into it.
        assert_eq!(
            text(beans.get("uriPrecedencePolicy").unwrap(), "basePrecedence"),
            "5"
        );
        assert!(beans.get("preparer").unwrap().props.is_empty());
        // The frontier's unset queue policy is Heritrix's own BaseQueuePrecedencePolicy.
        let Value::Bean(policy) = &beans
            .get("frontier")
            .unwrap()
            .prop("queuePrecedencePolicy")
            .unwrap()
            .value
        else {
            panic!()
        };
        assert_eq!(policy.short_class(), "BaseQueuePrecedencePolicy");
        assert_eq!(text(policy, "basePrecedence"), "2");
        let notes: Vec<String> = beans.unapplied.iter().map(Note::to_string).collect();
        assert_eq!(notes.len(), 2, "{notes:#?}");
        assert!(
            notes[0].starts_with("line 8: override scope.rules[7].maxHops = 4: not carried over: the list has 2 entries"),
            "{notes:#?}"
        );
        assert!(
            notes[1].contains("TooManyHopsDecideRule sets no nothing, and Heritrix puts no bean"),
            "{notes:#?}"
        );
    }

    proptest! {
        #[test]
        fn any_property_value_round_trips(key in "[a-z]{1,8}\\.[a-z]{1,8}", value in "[a-zA-Z0-9 ./:]{0,30}") {
            let got = java_properties(&format!("{key}={value}"), 1);
            prop_assert_eq!(got, vec![(key, value.trim_start().to_owned(), 1)]);
        }

        #[test]
        fn any_text_reads_as_properties_and_paths(text in "\\PC{0,200}") {
            let _ = java_properties(&text, 1);
            if let Some(steps) = steps(&text) {
                prop_assert!(steps.iter().all(|s| !s.name.is_empty()));
            }
        }

        #[test]
        fn dotted_paths_split_at_each_dot(parts in proptest::collection::vec("[a-zA-Z]{1,8}", 1..5)) {
            let path = parts.join(".");
            let got = steps(&path).unwrap();
            prop_assert_eq!(got.iter().map(|s| s.name).collect::<Vec<_>>(), parts.iter().map(String::as_str).collect::<Vec<_>>());
        }
    }
}
