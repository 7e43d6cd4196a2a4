//! Combinators: `all`, `any` and `not` over the conditions of other rules.

use super::{DecideInput, DecideRule, Decision};

/// `all`: answers its decision (default ACCEPT) when every inner rule's condition holds, else PASS. The inner
/// rules' own decisions are ignored: only whether they match counts. An empty `all` matches.
#[derive(Debug, Default)]
pub struct All {
    /// The inner rules.
    pub rules: Vec<Box<dyn DecideRule>>,
}

/// `any`: answers its decision (default ACCEPT) when at least one inner rule's condition holds, else PASS.
#[derive(Debug, Default)]
pub struct Any {
    /// The inner rules.
    pub rules: Vec<Box<dyn DecideRule>>,
}

/// `not`: answers its decision (default ACCEPT) when the inner rule's condition does not hold, else PASS.
#[derive(Debug)]
pub struct Not {
    /// The inner rule.
    pub rule: Box<dyn DecideRule>,
}

impl DecideRule for All {
    fn name(&self) -> &str {
        "all"
    }
    fn default_decision(&self) -> Decision {
        Decision::Accept
    }
    fn matches(&self, input: &DecideInput<'_>) -> bool {
        self.rules.iter().all(|r| r.matches(input))
    }
    /// Known false as soon as one rule is known not to hold; else known when every rule is.
    fn knows(&self, input: &DecideInput<'_>) -> bool {
        self.rules
            .iter()
            .any(|r| r.knows(input) && !r.matches(input))
            || self.rules.iter().all(|r| r.knows(input))
    }
}

impl DecideRule for Any {
    fn name(&self) -> &str {
        "any"
    }
    fn default_decision(&self) -> Decision {
        Decision::Accept
    }
    fn matches(&self, input: &DecideInput<'_>) -> bool {
        self.rules.iter().any(|r| r.matches(input))
    }
    /// Known true as soon as one rule holds; else known when every rule is.
    fn knows(&self, input: &DecideInput<'_>) -> bool {
        self.rules.iter().any(|r| r.matches(input)) || self.rules.iter().all(|r| r.knows(input))
    }
}

impl DecideRule for Not {
    fn name(&self) -> &str {
        "not"
    }
    fn default_decision(&self) -> Decision {
        Decision::Accept
    }
    /// Holds where the inner rule is known not to: unknown stays unknown, so PASS.
    fn matches(&self, input: &DecideInput<'_>) -> bool {
        self.rule.knows(input) && !self.rule.matches(input)
    }
    fn knows(&self, input: &DecideInput<'_>) -> bool {
        self.rule.knows(input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::{OnHosts, TooManyHops, test_util::decide};

    fn host() -> Box<dyn DecideRule> {
        Box::new(OnHosts {
            hosts: vec!["a.org".into()],
            negate: false,
        })
    }

    #[test]
    fn combine_conditions() {
        let all = All {
            rules: vec![host(), Box::new(TooManyHops { max_hops: 1 })],
        };
        let any = Any {
            rules: vec![host(), Box::new(TooManyHops { max_hops: 1 })],
        };
        let not = Not { rule: host() };
        let rows = [
            (
                "http://a.org/",
                "LL",
                Decision::Accept,
                Decision::Accept,
                Decision::Pass,
            ),
            (
                "http://a.org/",
                "L",
                Decision::Pass,
                Decision::Accept,
                Decision::Pass,
            ),
            (
                "http://b.org/",
                "LL",
                Decision::Pass,
                Decision::Accept,
                Decision::Accept,
            ),
            (
                "http://b.org/",
                "L",
                Decision::Pass,
                Decision::Pass,
                Decision::Accept,
            ),
        ];
        for (u, hops, a, y, n) in rows {
            assert_eq!(
                (
                    decide(&all, u, hops),
                    decide(&any, u, hops),
                    decide(&not, u, hops)
                ),
                (a, y, n),
                "{u} {hops}"
            );
        }
    }

    /// A `not` of a rule of fetch results is unknown before the fetch, so PASS, and known after it (xt15b
    /// F4: it refused every URL in `before_fetch`); `all` and `any` know what one known rule settles.
    #[test]
    fn an_unknown_fact_stays_unknown_under_not() {
        use crate::decide::{ContentTypeMatchesRegex, DecideInput, FetchFacts, test_util::uri};
        let html = || -> Box<dyn DecideRule> {
            Box::new(ContentTypeMatchesRegex {
                regex: regex::Regex::new("^text/").unwrap(),
                negate: false,
            })
        };
        let not = Not { rule: html() };
        let u = uri("http://b.org/", "L");
        assert_eq!(not.decide(&DecideInput::new(&u)), Decision::Pass);
        let pdf = FetchFacts {
            mime: Some("application/pdf".into()),
            ..FetchFacts::default()
        };
        assert_eq!(
            not.decide(&DecideInput::fetched(&u, &pdf)),
            Decision::Accept
        );
        // Not (b.org and html): b.org is not a.org, so the `all` is known false and its `not` holds.
        let all = Not {
            rule: Box::new(All {
                rules: vec![host(), html()],
            }),
        };
        assert_eq!(all.decide(&DecideInput::new(&u)), Decision::Accept);
        let unknown = Not {
            rule: Box::new(Any {
                rules: vec![host(), html()],
            }),
        };
        assert_eq!(unknown.decide(&DecideInput::new(&u)), Decision::Pass);
    }
}
