//! Answer for fetches that ended with given statuses.

use std::{fmt, str::FromStr};

use serde::{Deserialize, Serialize};

use super::{DecideInput, DecideRule, Decision};

/// A status or a class of statuses: `404`, or `"5xx"` for 500–599.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "StatusRepr", into = "StatusRepr")]
pub enum StatusPattern {
    /// One status.
    Exact(i32),
    /// All statuses with this hundreds digit.
    Class(i32),
}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum StatusRepr {
    Number(i32),
    Text(String),
}

/// A status pattern that is neither a number nor `Nxx`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a status: write 404 or \"4xx\"")]
pub struct BadStatusPattern(pub String);

impl TryFrom<StatusRepr> for StatusPattern {
    type Error = BadStatusPattern;
    fn try_from(r: StatusRepr) -> Result<Self, BadStatusPattern> {
        match r {
            StatusRepr::Number(n) => Ok(StatusPattern::Exact(n)),
            StatusRepr::Text(t) => t.parse(),
        }
    }
}

impl From<StatusPattern> for StatusRepr {
    fn from(p: StatusPattern) -> StatusRepr {
        match p {
            StatusPattern::Exact(n) => StatusRepr::Number(n),
            StatusPattern::Class(_) => StatusRepr::Text(p.to_string()),
        }
    }
}

impl FromStr for StatusPattern {
    type Err = BadStatusPattern;
    fn from_str(s: &str) -> Result<Self, BadStatusPattern> {
        let bad = || BadStatusPattern(s.to_owned());
        if let Some(d) = s.strip_suffix("xx") {
            let d: i32 = d.parse().map_err(|_| bad())?;
            return if (1..=9).contains(&d) {
                Ok(StatusPattern::Class(d))
            } else {
                Err(bad())
            };
        }
        s.parse().map(StatusPattern::Exact).map_err(|_| bad())
    }
}

impl fmt::Display for StatusPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StatusPattern::Exact(n) => write!(f, "{n}"),
            StatusPattern::Class(d) => write!(f, "{d}xx"),
        }
    }
}

impl StatusPattern {
    /// Whether `status` is this one.
    pub fn contains(self, status: i32) -> bool {
        match self {
            StatusPattern::Exact(n) => n == status,
            StatusPattern::Class(d) => status / 100 == d && status > 0,
        }
    }
}

/// `fetch_status_matches`: answers its decision (default REJECT) for a fetched URI whose status is one of
/// `statuses` (`[404, "5xx"]`), else PASS; before the status is known it passes.
#[derive(Debug, Clone, Default)]
pub struct FetchStatusMatches {
    /// The statuses.
    pub statuses: Vec<StatusPattern>,
}

impl DecideRule for FetchStatusMatches {
    fn name(&self) -> &str {
        "fetch_status_matches"
    }

    fn default_decision(&self) -> Decision {
        Decision::Reject
    }

    fn matches(&self, input: &DecideInput<'_>) -> bool {
        input
            .fetch
            .and_then(|f| f.status)
            .is_some_and(|s| self.statuses.iter().any(|p| p.contains(s)))
    }

    fn knows(&self, input: &DecideInput<'_>) -> bool {
        input.fetch.and_then(|f| f.status).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::{FetchFacts, test_util::uri};

    #[test]
    fn exact_and_class() {
        let rule = FetchStatusMatches {
            statuses: vec!["404".parse().unwrap(), "5xx".parse().unwrap()],
        };
        let u = uri("http://a.org/", "L");
        assert_eq!(rule.decide(&DecideInput::new(&u)), Decision::Pass);
        for (status, want) in [
            (404, Decision::Reject),
            (503, Decision::Reject),
            (200, Decision::Pass),
            (-5, Decision::Pass),
        ] {
            let f = FetchFacts {
                status: Some(status),
                ..FetchFacts::default()
            };
            assert_eq!(rule.decide(&DecideInput::fetched(&u, &f)), want, "{status}");
        }
        assert!("6x".parse::<StatusPattern>().is_err());
        assert!("0xx".parse::<StatusPattern>().is_err());
    }
}
