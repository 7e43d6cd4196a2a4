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
}

impl DecideRule for Not {
    fn name(&self) -> &str {
        "not"
    }
    fn default_decision(&self) -> Decision {
        Decision::Accept
    }
    fn matches(&self, input: &DecideInput<'_>) -> bool {
        !self.rule.matches(input)
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
}
