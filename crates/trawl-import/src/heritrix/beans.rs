//! The Spring XML of a crawler-beans.cxml read into beans and property values, each with its line. Heritrix's
//! `PropertyOverrideConfigurer` overrides are applied to them next, by [`super::overrides`] (as Spring applies
//! them before any bean exists).

use super::ImportError;

/// The Spring beans namespace.
const BEANS_NS: &str = "http://www.springframework.org/schema/beans";
/// Spring's `p:` namespace: an attribute per property.
const P_NS: &str = "http://www.springframework.org/schema/p";
/// The class whose beans hold overrides.
pub(crate) const OVERRIDE_CLASS: &str =
    "org.springframework.beans.factory.config.PropertyOverrideConfigurer";

/// One `<bean>`.
#[derive(Debug, Clone)]
pub(crate) struct Bean {
    pub(crate) id: Option<String>,
    pub(crate) class: String,
    pub(crate) line: usize,
    pub(crate) props: Vec<Prop>,
    pub(crate) ctor_args: Vec<Value>,
}

/// One `<property>` (or `p:` attribute, or override).
#[derive(Debug, Clone)]
pub(crate) struct Prop {
    pub(crate) name: String,
    pub(crate) value: Value,
    pub(crate) line: usize,
}

/// A property value as Spring reads it.
#[derive(Debug, Clone)]
pub(crate) enum Value {
    /// A literal (`value="…"`, `<value>…</value>`, an override), with the line it came from.
    Text(String, usize),
    /// `<ref bean="…"/>` or `ref="…"`.
    Ref(String, usize),
    /// A nested `<bean>`.
    Bean(Box<Bean>),
    /// `<list>` or `<set>`.
    List(Vec<Value>),
    /// `<map>`: `(key, value)`.
    Map(Vec<(String, Value)>),
    /// `<props>`: `(key, trimmed text)`.
    Props(Vec<(String, String, usize)>),
    /// `<null/>`.
    Null,
}

impl Value {
    /// The line the value starts on, where it has one.
    pub(crate) fn line(&self) -> Option<usize> {
        match self {
            Value::Text(_, l) | Value::Ref(_, l) => Some(*l),
            Value::Bean(b) => Some(b.line),
            _ => None,
        }
    }
}

impl Bean {
    /// The property `name` (Spring also accepts a capitalised first letter).
    pub(crate) fn prop(&self, name: &str) -> Option<&Prop> {
        self.props
            .iter()
            .rev()
            .find(|p| same_property(&p.name, name))
    }

    /// The short class name (`TooManyHopsDecideRule`).
    pub(crate) fn short_class(&self) -> &str {
        self.class.rsplit('.').next().unwrap_or(&self.class)
    }

    /// What notes name the bean by: its id, else its short class.
    pub(crate) fn subject(&self) -> String {
        self.id
            .clone()
            .unwrap_or_else(|| self.short_class().to_owned())
    }

    pub(crate) fn prop_mut(&mut self, name: &str) -> Option<&mut Prop> {
        self.props
            .iter_mut()
            .rev()
            .find(|p| same_property(&p.name, name))
    }
}

/// JavaBeans property names: `MaxWaitForIdleMs` and `maxWaitForIdleMs` name one property.
fn same_property(a: &str, b: &str) -> bool {
    let mut a = a.chars();
    let mut b = b.chars();
    match (a.next(), b.next()) {
        (Some(x), Some(y)) => x.eq_ignore_ascii_case(&y) && a.eq(b),
        (None, None) => true,
        _ => false,
    }
}

/// The top-level beans, in file order.
#[derive(Debug, Default)]
pub(crate) struct Beans {
    pub(crate) top: Vec<Bean>,
    /// Overrides that address no property Spring could set, each a note with its line.
    pub(crate) unapplied: Vec<super::profile::Note>,
}

impl Beans {
    /// The top-level bean with this id.
    pub(crate) fn get(&self, id: &str) -> Option<&Bean> {
        self.top.iter().find(|b| b.id.as_deref() == Some(id))
    }

    /// A bean given by value: itself, or the top-level bean a reference names.
    pub(crate) fn resolve<'a>(&'a self, v: &'a Value) -> Option<&'a Bean> {
        match v {
            Value::Bean(b) => Some(b),
            Value::Ref(id, _) => self.get(id),
            _ => None,
        }
    }
}

/// Reads the XML; the error names the line.
pub(crate) fn read(text: &str) -> Result<Beans, ImportError> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: false,
        ..Default::default()
    };
    let doc =
        roxmltree::Document::parse_with_options(text, options).map_err(|e| ImportError::Xml {
            line: e.pos().row as usize,
            column: e.pos().col as usize,
            message: e.to_string(),
        })?;
    let root = doc.root_element();
    if root.tag_name().name() != "beans" {
        return Err(ImportError::NotBeans {
            found: root.tag_name().name().to_owned(),
        });
    }
    let mut beans = Beans::default();
    for node in root.children().filter(roxmltree::Node::is_element) {
        let line = line_of(&doc, node);
        match (node.tag_name().namespace(), node.tag_name().name()) {
            (Some(BEANS_NS) | None, "bean") => beans.top.push(bean(&doc, node)?),
            (Some(ns), _) if ns != BEANS_NS => {} // context:annotation-config and the like: Spring plumbing
            (_, other) => {
                return Err(ImportError::Unsupported {
                    line,
                    what: format!("<{other}>"),
                });
            }
        }
    }
    Ok(beans)
}

fn line_of(doc: &roxmltree::Document<'_>, node: roxmltree::Node<'_, '_>) -> usize {
    doc.text_pos_at(node.range().start).row as usize
}

fn bean(doc: &roxmltree::Document<'_>, node: roxmltree::Node<'_, '_>) -> Result<Bean, ImportError> {
    let line = line_of(doc, node);
    let class = node
        .attribute("class")
        .ok_or_else(|| ImportError::Unsupported {
            line,
            what: "a <bean> without a class (parent or factory beans)".into(),
        })?
        .trim()
        .to_owned();
    let mut b = Bean {
        id: node
            .attribute("id")
            .or_else(|| node.attribute("name"))
            .map(str::to_owned),
        class,
        line,
        props: Vec::new(),
        ctor_args: Vec::new(),
    };
    for attr in node.attributes() {
        if attr.namespace() == Some(P_NS) {
            let (name, value) = match attr.name().strip_suffix("-ref") {
                Some(n) => (n, Value::Ref(attr.value().to_owned(), line)),
                None => (attr.name(), Value::Text(attr.value().to_owned(), line)),
            };
            b.props.push(Prop {
                name: name.to_owned(),
                value,
                line,
            });
        }
    }
    for child in node.children().filter(roxmltree::Node::is_element) {
        let child_line = line_of(doc, child);
        match child.tag_name().name() {
            "property" => {
                let name = child
                    .attribute("name")
                    .ok_or_else(|| ImportError::Unsupported {
                        line: child_line,
                        what: "a <property> without a name".into(),
                    })?;
                b.props.push(Prop {
                    name: name.to_owned(),
                    value: inline_or_child(doc, child)?,
                    line: child_line,
                });
            }
            "constructor-arg" => b.ctor_args.push(inline_or_child(doc, child)?),
            "description" | "qualifier" => {}
            other => {
                return Err(ImportError::Unsupported {
                    line: child_line,
                    what: format!("<{other}> inside a <bean>"),
                });
            }
        }
    }
    Ok(b)
}

/// The value of a `<property>`, `<constructor-arg>` or `<entry>`: its `value`/`ref` attribute or its one child.
fn inline_or_child(
    doc: &roxmltree::Document<'_>,
    node: roxmltree::Node<'_, '_>,
) -> Result<Value, ImportError> {
    let line = line_of(doc, node);
    if let Some(v) = node.attribute("value") {
        return Ok(Value::Text(v.to_owned(), line));
    }
    if let Some(r) = node
        .attribute("ref")
        .or_else(|| node.attribute("value-ref"))
    {
        return Ok(Value::Ref(r.to_owned(), line));
    }
    match node.children().find(roxmltree::Node::is_element) {
        Some(child) => value(doc, child),
        None => Ok(Value::Text(String::new(), line)),
    }
}

fn value(
    doc: &roxmltree::Document<'_>,
    node: roxmltree::Node<'_, '_>,
) -> Result<Value, ImportError> {
    let line = line_of(doc, node);
    let elements = || node.children().filter(roxmltree::Node::is_element);
    Ok(match node.tag_name().name() {
        "value" => Value::Text(node_text(node), line),
        "ref" | "idref" => Value::Ref(
            node.attribute("bean")
                .or_else(|| node.attribute("local"))
                .unwrap_or_default()
                .to_owned(),
            line,
        ),
        "bean" => Value::Bean(Box::new(bean(doc, node)?)),
        "null" => Value::Null,
        "list" | "set" | "array" => Value::List(
            elements()
                .map(|c| value(doc, c))
                .collect::<Result<_, _>>()?,
        ),
        "map" => Value::Map(
            elements()
                .map(|entry| {
                    let key = entry.attribute("key").unwrap_or_default().to_owned();
                    Ok((key, inline_or_child(doc, entry)?))
                })
                .collect::<Result<_, ImportError>>()?,
        ),
        "props" => Value::Props(
            elements()
                .map(|p| {
                    (
                        p.attribute("key").unwrap_or_default().to_owned(),
                        node_text(p).trim().to_owned(),
                        line_of(doc, p),
                    )
                })
                .collect(),
        ),
        other => {
            return Err(ImportError::Unsupported {
                line,
                what: format!("<{other}> as a value"),
            });
        }
    })
}

/// The text of an element, CDATA included, as written (Spring does not trim `<value>`).
fn node_text(node: roxmltree::Node<'_, '_>) -> String {
    node.children()
        .filter(roxmltree::Node::is_text)
        .filter_map(|t| t.text())
        .collect()
}

/// A value's items: a list's, or the value itself (Spring converts a single value to a one-element list).
pub(crate) fn list(v: &Value) -> Vec<&Value> {
    match v {
        Value::List(items) => items.iter().collect(),
        other => vec![other],
    }
}

/// A scalar's text.
pub(crate) fn text(v: &Value) -> Option<&str> {
    match v {
        Value::Text(t, _) => Some(t),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn overrides_replace_properties_and_nested_paths() {
        let xml = r#"<beans xmlns="http://www.springframework.org/schema/beans">
 <bean id="o" class="org.springframework.beans.factory.config.PropertyOverrideConfigurer">
  <property name="properties"><value>
m.x=2
  </value></property>
 </bean>
 <bean id="o2" class="org.springframework.beans.factory.config.PropertyOverrideConfigurer">
  <property name="properties"><props><prop key="s.src.value">
   http://a.org/
  </prop></props></property>
 </bean>
 <bean id="m" class="A"><property name="X" value="1"/></bean>
 <bean id="s" class="B"><property name="src"><bean class="C"><property name="value" value="old"/></bean></property></bean>
</beans>"#;
        let mut beans = read(xml).unwrap();
        super::super::overrides::apply(&mut beans).unwrap();
        let m = beans.get("m").unwrap();
        assert!(matches!(&m.prop("x").unwrap().value, Value::Text(v, 4) if v == "2"));
        let s = beans.get("s").unwrap();
        let Value::Bean(src) = &s.prop("src").unwrap().value else {
            panic!()
        };
        assert!(
            matches!(&src.prop("value").unwrap().value, Value::Text(v, 8) if v == "http://a.org/")
        );
    }

    #[test]
    fn errors_name_the_line() {
        let e = read("<beans>\n<bean id='a' class='X'>\n</beans>").unwrap_err();
        assert!(matches!(e, ImportError::Xml { line: 3, .. }), "{e}");
        let e = read("<beans>\n<!DOCTYPE x>\n</beans>").unwrap_err();
        assert!(matches!(e, ImportError::Xml { .. }), "{e}");
        let e = read("<beans>\n  <bean id='a'/>\n</beans>").unwrap_err();
        assert!(matches!(e, ImportError::Unsupported { line: 2, .. }), "{e}");
    }

    proptest! {
        #[test]
        fn any_text_reads_or_fails_cleanly(text in "\\PC{0,200}") {
            let _ = read(&text);
        }
    }
}
