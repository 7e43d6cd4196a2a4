//! A decide sequence: rules in order, the last non-PASS answer wins, and every answer can be traced.

use super::{DecideInput, DecideRule, Decision};
use crate::CrawlUri;

/// One step of a sequence: a rule, the answer it gives when its condition holds, and its name in traces.
#[derive(Debug)]
struct Step {
    rule: Box<dyn DecideRule>,
    decision: Decision,
    label: String,
}

/// The outcome of a sequence, with the rule that decided it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict<'a> {
    /// The last non-PASS answer (the sequence's default if every rule passed).
    pub decision: Decision,
    /// The deciding rule's position in the sequence, if any rule answered.
    pub rule_index: Option<usize>,
    /// The deciding rule's name, or `"default"`.
    pub rule: &'a str,
    /// The crawl.log status of a rejection by the deciding rule (see [`DecideRule::rejection_status`]).
    pub status: i32,
}

/// A verdict with every rule's answer, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Traced<'a> {
    /// The last non-PASS answer (the sequence's default if every rule passed).
    pub decision: Decision,
    /// The deciding rule's position in the sequence, if any rule answered.
    pub rule_index: Option<usize>,
    /// The deciding rule's name, or `"default"`.
    pub rule: &'a str,
    /// The crawl.log status of a rejection by the deciding rule.
    pub status: i32,
    /// Each rule's name and answer, in the order they ran.
    pub trace: Vec<(&'a str, Decision)>,
}

impl<'a> Traced<'a> {
    /// The verdict without the trace.
    pub fn verdict(&self) -> Verdict<'a> {
        Verdict {
            decision: self.decision,
            rule_index: self.rule_index,
            rule: self.rule,
            status: self.status,
        }
    }
}

/// An ordered list of rules; the last non-PASS answer wins. When every rule passes, the sequence answers its
/// default: REJECT for a scope ([`DecideSequence::new`]), ACCEPT for a gate that only vetoes
/// ([`DecideSequence::accepting`]); the trace then names the rule `default`.
#[derive(Debug)]
pub struct DecideSequence {
    steps: Vec<Step>,
    default: Decision,
}

impl Default for DecideSequence {
    fn default() -> Self {
        DecideSequence::new(Vec::new())
    }
}

impl DecideSequence {
    /// A sequence of `rules` with their default decisions, REJECT when all pass.
    pub fn new(rules: Vec<Box<dyn DecideRule>>) -> DecideSequence {
        let mut seq = DecideSequence {
            steps: Vec::new(),
            default: Decision::Reject,
        };
        for rule in rules {
            seq.push(rule, None, None);
        }
        seq
    }

    /// An empty sequence that answers ACCEPT when all its rules pass (a gate after the scope).
    pub fn accepting() -> DecideSequence {
        DecideSequence {
            steps: Vec::new(),
            default: Decision::Accept,
        }
    }

    /// Appends `rule`, answering `decision` (default: the rule's own) and named `label` in traces (default:
    /// the rule's name).
    pub fn push(
        &mut self,
        rule: Box<dyn DecideRule>,
        decision: Option<Decision>,
        label: Option<String>,
    ) {
        let decision = decision.unwrap_or_else(|| rule.default_decision());
        let label = label.unwrap_or_else(|| rule.name().to_string());
        self.steps.push(Step {
            rule,
            decision,
            label,
        });
    }

    /// The answer when every rule passes.
    pub fn default_decision(&self) -> Decision {
        self.default
    }

    /// How many rules the sequence holds.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether the sequence holds no rules.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The rules' names in traces, in order.
    pub fn labels(&self) -> impl Iterator<Item = &str> {
        self.steps.iter().map(|s| s.label.as_str())
    }

    /// Runs every rule on `uri` (not yet fetched) and returns the last non-PASS answer with its rule.
    pub fn decide(&self, uri: &CrawlUri) -> Verdict<'_> {
        self.decide_input(&DecideInput::new(uri))
    }

    /// Runs every rule on `input` and returns the last non-PASS answer with its rule.
    pub fn decide_input(&self, input: &DecideInput<'_>) -> Verdict<'_> {
        let mut verdict = Verdict {
            decision: self.default,
            rule_index: None,
            rule: "default",
            status: crate::status::OUT_OF_SCOPE,
        };
        for (i, step) in self.steps.iter().enumerate() {
            if step.decision != Decision::Pass && step.rule.matches(input) {
                verdict = Verdict {
                    decision: step.decision,
                    rule_index: Some(i),
                    rule: &step.label,
                    status: step.rule.rejection_status(),
                };
            }
        }
        verdict
    }

    /// Like [`decide_input`](DecideSequence::decide_input), keeping every rule's answer.
    pub fn decide_traced(&self, input: &DecideInput<'_>) -> Traced<'_> {
        let mut traced = Traced {
            decision: self.default,
            rule_index: None,
            rule: "default",
            status: crate::status::OUT_OF_SCOPE,
            trace: Vec::with_capacity(self.steps.len()),
        };
        for (i, step) in self.steps.iter().enumerate() {
            let answer = if step.rule.matches(input) {
                step.decision
            } else {
                Decision::Pass
            };
            traced.trace.push((&step.label, answer));
            if answer != Decision::Pass {
                traced.decision = answer;
                traced.rule_index = Some(i);
                traced.rule = &step.label;
                traced.status = step.rule.rejection_status();
            }
        }
        traced
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::decide::{AcceptAll, RejectAll, TooManyHops, test_util::uri};

    #[test]
    fn last_non_pass_wins_and_is_traced() {
        let seq = DecideSequence::new(vec![
            Box::new(RejectAll),
            Box::new(TooManyHops { max_hops: 1 }),
        ]);
        let v = seq.decide(&uri("http://a.org/", "LL"));
        assert_eq!(
            (v.decision, v.rule_index, v.rule),
            (Decision::Reject, Some(1), "too_many_hops")
        );
        let u = uri("http://a.org/", "L");
        let t = seq.decide_traced(&DecideInput::new(&u));
        assert_eq!((t.decision, t.rule), (Decision::Reject, "reject"));
        assert_eq!(
            t.trace,
            [
                ("reject", Decision::Reject),
                ("too_many_hops", Decision::Pass)
            ]
        );
        assert_eq!(t.verdict(), seq.decide(&u));
    }

    #[test]
    fn decision_and_label_can_be_set() {
        let mut seq = DecideSequence::accepting();
        seq.push(
            Box::new(TooManyHops { max_hops: 0 }),
            Some(Decision::Accept),
            Some("hops[0]".into()),
        );
        let v = seq.decide(&uri("http://a.org/", "L"));
        assert_eq!((v.decision, v.rule), (Decision::Accept, "hops[0]"));
        let v = seq.decide(&uri("http://a.org/", ""));
        assert_eq!((v.decision, v.rule), (Decision::Accept, "default"));
    }

    /// A rule that never holds, so always answers PASS.
    #[derive(Debug)]
    struct Never;
    impl DecideRule for Never {
        fn name(&self) -> &str {
            "never"
        }
        fn default_decision(&self) -> Decision {
            Decision::Accept
        }
        fn matches(&self, _: &DecideInput<'_>) -> bool {
            false
        }
    }

    fn sequence(kinds: &[u8]) -> DecideSequence {
        // 0: a PASS-only rule; 1: accept; 2: reject; 3: too_many_hops (2).
        DecideSequence::new(
            kinds
                .iter()
                .map(|k| -> Box<dyn DecideRule> {
                    match k % 4 {
                        0 => Box::new(Never),
                        1 => Box::new(AcceptAll),
                        2 => Box::new(RejectAll),
                        _ => Box::new(TooManyHops { max_hops: 2 }),
                    }
                })
                .collect(),
        )
    }

    proptest! {
        /// A sequence of rules that all pass never decides: the default (REJECT) answers, named "default".
        #[test]
        fn pass_only_never_decides(n in 0usize..20, hops in "[LERXP]{0,6}") {
            let seq = sequence(&vec![0; n]);
            let u = uri("http://a.org/x", &hops);
            let t = seq.decide_traced(&DecideInput::new(&u));
            prop_assert_eq!((t.decision, t.rule, t.rule_index), (Decision::Reject, "default", None));
            prop_assert!(t.trace.iter().all(|(_, a)| *a == Decision::Pass));
            prop_assert_eq!(t.trace.len(), n);
        }

        /// A trailing accept (or reject) decides whatever comes before it, and is the deciding rule.
        #[test]
        fn trailing_accept_or_reject_wins(kinds in proptest::collection::vec(0u8..4, 0..12),
                                           hops in "[LERXP]{0,6}", accept: bool) {
            let mut all = kinds.clone();
            all.push(if accept { 1 } else { 2 });
            let seq = sequence(&all);
            let u = uri("http://a.org/x", &hops);
            let t = seq.decide_traced(&DecideInput::new(&u));
            let want = if accept { Decision::Accept } else { Decision::Reject };
            prop_assert_eq!(t.decision, want);
            prop_assert_eq!(t.rule_index, Some(kinds.len()));
            prop_assert_eq!(t.rule, if accept { "accept" } else { "reject" });
            // Without the trailing rule, the answer is the earlier sequence's own.
            let before = sequence(&kinds);
            let b = before.decide(&u);
            prop_assert_eq!(&t.trace[..kinds.len()], &before.decide_traced(&DecideInput::new(&u)).trace[..]);
            prop_assert!(b.rule_index.is_none_or(|i| i < kinds.len()));
        }
    }
}
