//! robots.txt under RFC 9309: what a fetch of it means for its origin ([`Robots`]), and the parser and matcher
//! ([`RobotsTxt`], in `rfc9309.rs`).
//!
//! A robots.txt fetch's outcome: 2xx is parsed, 4xx allows everything, 429 (the server asking for fewer
//! requests, as Google reads it), 5xx or no answer disallows everything (until it is fetched again).

mod rfc9309;

use std::time::Duration;

use url::Url;

pub use self::rfc9309::{MAX_LINE_BYTES, RobotsTxt, path_of, token_run};

/// The rules for one origin, for one crawler.
#[derive(Debug)]
pub enum Robots {
    /// No usable robots.txt (4xx but 429): everything is allowed.
    AllowAll,
    /// The server failed to answer (5xx, 429, network error): nothing may be fetched until robots.txt is
    /// retried.
    DisallowAll,
    /// Parsed rules, and the product token they are read for.
    Rules {
        /// The parsed file.
        txt: Box<RobotsTxt>,
        /// The crawler's product token.
        agent: String,
    },
}

impl Robots {
    /// The rules implied by a robots.txt response with `status` and `body`, for `agent` (the product token).
    /// Redirects are followed by the caller; one that is not followed counts as "unavailable" (allow). A 429
    /// says the server is overloaded, not that the file is absent: like a 5xx it allows nothing (RFC 9309
    /// §2.3.1.3 only lets a crawler allow all on a 4xx; xt12a F11).
    pub fn from_response(status: u16, body: &[u8], agent: &str) -> Robots {
        match status {
            200..=299 => Robots::Rules {
                txt: Box::new(RobotsTxt::parse(body)),
                agent: agent.to_string(),
            },
            429 => Robots::DisallowAll,
            300..=499 => Robots::AllowAll,
            _ => Robots::DisallowAll,
        }
    }

    /// Whether `url` may be fetched. `/robots.txt` itself always may (RFC 9309 §2.5).
    pub fn allowed(&self, url: &Url) -> bool {
        match self {
            Robots::AllowAll => true,
            Robots::DisallowAll => false,
            Robots::Rules { txt, agent } => {
                if url.path() == "/robots.txt" {
                    return true;
                }
                let path = match url.query() {
                    Some(q) => format!("{}?{q}", url.path()),
                    None => url.path().to_string(),
                };
                txt.allowed(agent, &path)
            }
        }
    }

    /// The `Crawl-delay` for our agent, if any.
    pub fn crawl_delay(&self) -> Option<Duration> {
        match self {
            Robots::Rules { txt, agent } => txt
                .crawl_delay(agent)
                .filter(|d| d.is_finite() && *d > 0.0)
                .map(|d| Duration::from_secs_f64(d.min(86_400.0))),
            _ => None,
        }
    }

    /// `Sitemap:` URLs listed in the file.
    pub fn sitemaps(&self) -> &[String] {
        match self {
            Robots::Rules { txt, .. } => txt.sitemaps(),
            _ => &[],
        }
    }
}

/// The product token of a User-Agent (`trawl` of `trawl/0.1 (+http://...)`), which robots.txt groups name. In
/// the browser-like forms crawlers also use, the name after a `compatible;` item of a parenthesised comment:
/// `Mozilla/5.0 (compatible; heritrix/3.4 +http://...)` (Heritrix's default, Googlebot's old form) and
/// `Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://...) Chrome/...`
/// (Googlebot's and bingbot's form today).
pub fn product_token(user_agent: &str) -> &str {
    let first = user_agent.split(['/', ' ']).next().unwrap_or(user_agent);
    // Only a browser-like User-Agent names its crawler in a comment: `mybot/1.0 (compatible; +URL)` is
    // `mybot`, and `mybot/2.0 (Linux; compatible; Mozilla/5.0)` too (xt13a F5).
    if first.eq_ignore_ascii_case("mozilla") {
        compatible_name(user_agent).unwrap_or(first)
    } else {
        first
    }
}

/// The name after the first `compatible` item of `user_agent`'s parenthesised comments, if one has one.
fn compatible_name(user_agent: &str) -> Option<&str> {
    let mut rest = user_agent;
    while let Some(open) = rest.find('(') {
        let inside = &rest[open + 1..];
        let (comment, after) = inside.split_once(')').unwrap_or((inside, ""));
        let mut items = comment.split(';').map(str::trim);
        if items.any(|item| item.eq_ignore_ascii_case("compatible"))
            && let Some(name) = items
                .next()
                .and_then(|item| item.split(['/', ' ', '+']).find(|w| !w.is_empty()))
                // A product name, not a URL (`compatible; +http://…`).
                .filter(|name| {
                    name.starts_with(|c: char| c.is_ascii_alphabetic())
                        && name
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
                })
        {
            return Some(name);
        }
        rest = after;
    }
    None
}

/// [`token_problem`] of a config's `fetch.user_agent`, under that key: the warning `trawl check` and the API's
/// build give with the config's own.
pub fn user_agent_warning(user_agent: &str) -> Option<(String, String)> {
    token_problem(user_agent).map(|problem| ("fetch.user_agent".to_owned(), problem))
}

/// Why robots.txt groups written for `user_agent`'s product token would not be found, if they would not: the
/// token has characters RFC 9309 does not allow in one (a digit, a dot), so a group naming it is read by its
/// leading run of letters, `-` and `_`, which is not the crawler's whole name; or the token is `Mozilla`, the
/// first word of every browser-like User-Agent, which is not the crawler's name either (xt12a F3).
pub fn token_problem(user_agent: &str) -> Option<String> {
    let token = product_token(user_agent);
    if token.eq_ignore_ascii_case("mozilla") {
        return Some(format!(
            "the robots.txt name is `{token}`, the first word of every browser's User-Agent, not a crawler's \
             name: robots.txt groups written for the crawler are not read, only `{token}` and `*` groups; \
             start the User-Agent with the crawler's name, or name it in a `compatible;` item \
             (`Mozilla/5.0 (compatible; NAME/1.0; +URL)`)"
        ));
    }
    let run = token_run(token);
    (run.len() != token.len()).then(|| {
        format!(
            "the robots.txt name `{token}` has characters RFC 9309 does not allow in one (only letters, `-` \
             and `_`): robots.txt groups written for it are read as `{run}` and never match it, so only the \
             `*` groups apply; name the crawler with letters, `-` and `_` only"
        )
    })
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
        // xt12a F11: 429 (after its retries) is the server limiting requests, not a missing file.
        assert!(!Robots::from_response(429, body, "trawl").allowed(&u("http://a.org/public")));
        assert!(Robots::from_response(410, body, "trawl").allowed(&u("http://a.org/private/x")));
    }

    #[test]
    fn agent_groups() {
        let body = b"User-agent: trawl\nDisallow: /\n\nUser-agent: *\nAllow: /\n";
        assert!(!Robots::from_response(200, body, "trawl").allowed(&u("http://a.org/x")));
        assert!(Robots::from_response(200, body, "other").allowed(&u("http://a.org/x")));
        assert_eq!(product_token("trawl/0.1 (+http://x)"), "trawl");
        assert_eq!(
            product_token("Mozilla/5.0 (compatible; heritrix/3.4 +http://x/)"),
            "heritrix"
        );
        assert_eq!(
            product_token(
                "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
            ),
            "Googlebot"
        );
        assert_eq!(product_token("Mozilla/5.0 (X11; Linux)"), "Mozilla");
        assert_eq!(product_token("Mozilla/5.0 (X11; compatible)"), "Mozilla");
        assert_eq!(product_token("Mozilla/5.0 (compatible"), "Mozilla");
        assert!(token_problem("trawl/0.1 (+http://x)").is_none());
        assert!(token_problem("Mozilla/5.0 (compatible; my_bot-x/1.0)").is_none());
        let said = token_problem("archive.org_bot/1.0 (+http://x)").unwrap();
        assert!(
            said.contains("`archive.org_bot`") && said.contains("read as `archive`"),
            "{said}"
        );
    }

    /// xt12a F3: Googlebot's and bingbot's form today has its `compatible;` item inside a comment that starts
    /// with something else; it was read as `Mozilla`, so the crawler's own group was ignored.
    #[test]
    fn a_compatible_item_anywhere_in_a_comment_names_the_crawler() {
        let ua = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; xbot/2.1; \
                  +http://127.0.0.1/bot) Chrome/120.0.0.0 Safari/537.36";
        assert_eq!(product_token(ua), "xbot");
        assert!(token_problem(ua).is_none());
        assert_eq!(
            product_token("Mozilla/5.0 (Linux; Android 6.0.1) (compatible;bingbot/2.0)"),
            "bingbot"
        );
        assert_eq!(
            product_token("Mozilla/5.0 (X11;  Compatible ; FooBot +http://x)"),
            "FooBot"
        );
        // Only a browser-like User-Agent names its crawler in a comment, and only by a product name (xt13a F5).
        assert_eq!(
            product_token("mybot/1.0 (compatible; +http://127.0.0.1/)"),
            "mybot"
        );
        assert_eq!(
            product_token("mybot/2.0 (Linux; compatible; Mozilla/5.0)"),
            "mybot"
        );
        assert_eq!(
            product_token("Mozilla/5.0 (compatible; +http://127.0.0.1/)"),
            "Mozilla"
        );
        let body = b"User-agent: *\nDisallow: /nothing\n\nUser-agent: xbot\nDisallow: /x\n";
        let r = Robots::from_response(200, body, product_token(ua));
        assert!(!r.allowed(&u("http://a.org/x")));
        assert!(r.allowed(&u("http://a.org/nothing")));
    }

    #[test]
    fn a_robots_name_of_mozilla_is_warned_of() {
        for ua in [
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 xbot/1.0",
            "mozilla/5.0 (+http://x)",
        ] {
            let said = token_problem(ua).unwrap_or_default();
            assert!(
                said.contains("`") && said.contains("compatible;"),
                "{ua}: {said}"
            );
        }
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
