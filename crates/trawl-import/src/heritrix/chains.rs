//! Heritrix's processing chains: a processor bean does something only when a chain's `processors` list holds it
//! (by reference or inline). A leftover bean of the same class that no chain runs must not override the one
//! that runs, so the conversion asks here which processor beans run.

use super::beans::{Bean, Beans, Value, list};

/// The processor classes the conversion reads, with the chain class that runs them. (`FrontierPreparer` is not
/// here: the frontier uses it for seeds whether or not a chain lists it.)
const CHAINED: &[(&str, &str)] = &[
    ("Preselector", "FetchChain"),
    ("PreconditionEnforcer", "FetchChain"),
    ("FetchHTTP", "FetchChain"),
    ("ExtractorHTML", "FetchChain"),
    ("WARCWriterProcessor", "DispositionChain"),
    ("WARCWriterChainProcessor", "DispositionChain"),
    ("DispositionProcessor", "DispositionChain"),
];

/// Whether a top-level processor bean runs.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Runs {
    /// A chain lists it, or it is no chained processor, or the file has no chain of its kind (a fragment of a
    /// job: its beans are read as they are).
    Yes,
    /// The file has chains of its kind and none lists it: Heritrix never runs it.
    No {
        /// The class of chain it would belong in (`FetchChain`).
        chain: &'static str,
        /// A bean of the same class that a chain runs, with its line.
        instead: Option<(String, usize)>,
    },
}

/// Whether the top-level bean `b` runs in one of the file's chains.
pub(crate) fn runs(beans: &Beans, b: &Bean) -> Runs {
    let Some(&(_, chain_class)) = CHAINED.iter().find(|(c, _)| *c == b.short_class()) else {
        return Runs::Yes;
    };
    let chains: Vec<&Bean> = beans
        .top
        .iter()
        .filter(|c| c.short_class() == chain_class)
        .collect();
    if chains.is_empty() {
        return Runs::Yes;
    }
    let listed = |b: &Bean| {
        b.id.as_deref().is_some_and(|id| {
            chains
                .iter()
                .flat_map(|c| processors(c))
                .any(|v| matches!(v, Value::Ref(r, _) if r == id))
        })
    };
    if listed(b) {
        return Runs::Yes;
    }
    let instead = beans
        .top
        .iter()
        .find(|o| o.class == b.class && listed(o))
        .map(|o| (o.subject(), o.line))
        .or_else(|| {
            chains
                .iter()
                .flat_map(|c| processors(c))
                .find_map(|v| match v {
                    Value::Bean(o) if o.class == b.class => Some((o.subject(), o.line)),
                    _ => None,
                })
        });
    Runs::No {
        chain: chain_class,
        instead,
    }
}

/// The beans written inline in the chains' `processors` lists (the ones listed by reference are top-level beans).
pub(crate) fn inline_processors(beans: &Beans) -> Vec<&Bean> {
    beans
        .top
        .iter()
        .filter(|c| c.short_class().ends_with("Chain"))
        .flat_map(|c| processors(c))
        .filter_map(|v| match v {
            Value::Bean(b) => Some(&**b),
            _ => None,
        })
        .collect()
}

/// A chain's `processors` entries.
fn processors(chain: &Bean) -> Vec<&Value> {
    chain
        .prop("processors")
        .map(|p| list(&p.value))
        .unwrap_or_default()
}
