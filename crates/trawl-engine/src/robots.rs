//! robots.txt under RFC 9309, behind a small type of ours so the parser crate can be swapped.
//!
//! Parsing and matching are texting_robots' (tested against Google's and Moz's suites, and fuzzed); this module
//! decides what a fetch outcome means: 2xx parse, 4xx allow everything, 5xx or no answer disallow everything.

use std::time::Duration;

use texting_robots::Robot;
use url::Url;

/// The rules for one origin.
pub enum Robots {
    /// No usable robots.txt (4xx, or an unparseable file): everything is allowed.
    AllowAll,
    /// The server failed to answer (5xx, network error): nothing may be fetched until robots.txt is retried.
    DisallowAll,
    /// Parsed rules.
    Rules(Box<Robot>),
}

impl std::fmt::Debug for Robots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Robots::AllowAll => "AllowAll",
            Robots::DisallowAll => "DisallowAll",
            Robots::Rules(_) => "Rules",
        })
    }
}

impl Robots {
    /// The rules implied by a robots.txt response with `status` and `body`, for `agent` (the product token).
    ///
    /// Redirects are not followed yet and count as "unavailable" (allow), which RFC 9309 permits when a
    /// redirect cannot be followed.
    pub fn from_response(status: u16, body: &[u8], agent: &str) -> Robots {
        match status {
            200..=299 => match Robot::new(agent, body) {
                Ok(robot) => Robots::Rules(Box::new(robot)),
                Err(_) => Robots::AllowAll,
            },
            300..=499 => Robots::AllowAll,
            _ => Robots::DisallowAll,
        }
    }

    /// Whether `url` may be fetched.
    pub fn allowed(&self, url: &Url) -> bool {
        match self {
            Robots::AllowAll => true,
            Robots::DisallowAll => false,
            // RFC 9309: /robots.txt itself is always allowed.
            Robots::Rules(r) => url.path() == "/robots.txt" || r.allowed(url.as_str()),
        }
    }

    /// The `Crawl-delay` for our agent, if any.
    pub fn crawl_delay(&self) -> Option<Duration> {
        match self {
            Robots::Rules(r) => r
                .delay
                .filter(|d| d.is_finite() && *d > 0.0)
                .map(|d| Duration::from_secs_f64(f64::from(d).min(86_400.0))),
            _ => None,
        }
    }

    /// `Sitemap:` URLs listed in the file.
    pub fn sitemaps(&self) -> &[String] {
        match self {
            Robots::Rules(r) => &r.sitemaps,
            _ => &[],
        }
    }
}

/// The product token of a User-Agent (`trawl` of `trawl/0.1 (+http://...)`), which robots.txt groups name.
pub fn product_token(user_agent: &str) -> &str {
    user_agent.split(['/', ' ']).next().unwrap_or(user_agent)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn statuses() {
        let body =
            b"User-agent: *\nDisallow: /private/\nCrawl-delay: 2\nSitemap: http://a.org/s.xml\n";
        let r = Robots::from_response(200, body, "trawl");
        assert!(!r.allowed(&u("http://a.org/private/x")));
        assert!(r.allowed(&u("http://a.org/public")));
        assert!(r.allowed(&u("http://a.org/robots.txt")));
        assert_eq!(r.crawl_delay(), Some(Duration::from_secs(2)));
        assert_eq!(r.sitemaps(), ["http://a.org/s.xml".to_string()]);
        assert!(Robots::from_response(404, body, "trawl").allowed(&u("http://a.org/private/x")));
        assert!(!Robots::from_response(503, b"", "trawl").allowed(&u("http://a.org/")));
    }

    #[test]
    fn agent_groups() {
        let body = b"User-agent: trawl\nDisallow: /\n\nUser-agent: *\nAllow: /\n";
        assert!(!Robots::from_response(200, body, "trawl").allowed(&u("http://a.org/x")));
        assert!(Robots::from_response(200, body, "other").allowed(&u("http://a.org/x")));
        assert_eq!(product_token("trawl/0.1 (+http://x)"), "trawl");
    }

    proptest::proptest! {
        #[test]
        fn never_panics(body in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400)) {
            let r = Robots::from_response(200, &body, "trawl");
            let _ = r.allowed(&u("http://a.org/x/y?z"));
            let _ = r.crawl_delay();
        }
    }
}
