//! REJECT the ways out of a login: on a host the crawl is logged into, the links that end the session or
//! change the site.

use regex::Regex;
use url::Url;

use super::{DecideInput, DecideRule, Decision};
use crate::settings::CredentialSpec;

/// `login_guard`: answers REJECT for a URL on a host the crawl logs into (a form credential's) or holds a
/// browser's cookies for (`[fetch] cookies_file`) when following it could end the session or change the site:
///
/// - a sign-out link: `logout`, `log-out`, `log_out`, `signout`, `sign-out`, `sign_out`, `logoff`, `log-off`,
///   `log_off`, `signoff`, `sign-off`, `sign_off` starting a word (or camel-case: `UserLogout`) in its path or
///   query (WordPress's `wp-login.php?action=logout&_wpnonce=…`, MediaWiki's `Special:UserLogout` among them),
///   and the endpoints `ends_a_session` knows by their path;
/// - an action link: a query parameter carrying a nonce or CSRF token (a name with `nonce`, `csrf` or `xsrf`
///   in it, or `token`, `_token`, `authenticity_token`, `sesskey`, `sectok`, `hash`, or a name of 32 hex
///   digits) together with a verb in its path or query
///   (trash, delete, remove, spam, approve, activate, deactivate, unsubscribe, … — see [`VERBS`]);
/// - a page that changes the site when only looked at (see [`CHANGES_WHEN_VISITED`]): WordPress's
///   `wp-admin/post-new.php` (each visit makes a draft) and `wp-admin/customize.php` (each visit makes a
///   changeset, and on a fresh site drafts of the theme's starter pages);
/// - what the credential's `avoid` regexes find in the URL.
///
/// The built-in signs judge the URL as the server sees it: percent-decoded (`/log%6Fut` is `/logout`), and
/// for the pages of [`CHANGES_WHEN_VISITED`] with `//`, `;params` and dot segments resolved and a script
/// followed by PATH_INFO (`post-new.php/x`) taken as the script.
///
/// The crawl puts it last in the scope and in the before-fetch gate, so no other rule lets such a URL
/// through; its refusals show as `reject:login_guard` in crawl.log.
#[derive(Debug, Clone, Default)]
pub struct LoginGuard {
    guarded: Vec<Guarded>,
}

/// Hosts under guard, with their own `avoid` patterns.
#[derive(Debug, Clone)]
struct Guarded {
    hosts: Hosts,
    avoid: Vec<Regex>,
}

#[derive(Debug, Clone)]
enum Hosts {
    /// Where a form credential applies.
    Credential(Box<CredentialSpec>),
    /// Where a cookie of the cookies file goes: the host, and its subdomains for a domain cookie.
    Cookie { domain: String, subdomains: bool },
}

impl Hosts {
    fn contain(&self, url: &Url) -> bool {
        match self {
            Hosts::Credential(spec) => spec.applies_to(url),
            Hosts::Cookie { domain, subdomains } => {
                let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
                host == *domain
                    || (*subdomains
                        && host
                            .strip_suffix(domain.as_str())
                            .is_some_and(|rest| rest.ends_with('.')))
            }
        }
    }
}

/// Verbs of action links: a path segment or query word that starts with one (after `un`, `de`, `re`, `dis`
/// or `bulk`, as in `untrash`, `deactivate`, `bulk-delete`), in a URL carrying a nonce, is refused.
pub const VERBS: &[&str] = &[
    "trash",
    "delete",
    "remove",
    "destroy",
    "erase",
    "purge",
    "spam",
    "approve",
    "reject",
    "activate",
    "enable",
    "disable",
    "suspend",
    "ban",
    "block",
    "lock",
    "publish",
    "archive",
    "restore",
    "revert",
    "rollback",
    "undo",
    "subscribe",
    "unsubscribe",
    "unfollow",
    "install",
    "upgrade",
    "update",
    "reset",
    "empty",
    "dismiss",
    "flag",
    "revoke",
    "promote",
    "demote",
    "cancel",
    "vote",
];

/// Verbs of action links taken as whole words only (with a prefix of [`VERBS`]'s), being the starts of
/// words that change nothing (`pink`, `markdown`, `copyright`, `hidden`, review 65b R9): WooCommerce's and
/// plugins' nonce'd GET actions (xt17a F7), an order marked completed (its customer e-mailed), a product or
/// post duplicated, a product featured, a cache cleared.
pub const WHOLE_VERBS: &[&str] = &[
    "mark",
    "duplicate",
    "copy",
    "clone",
    "feature",
    "clear",
    "save",
    "send",
    "toggle",
    "move",
    "hide",
    "pin",
];

/// Paths (ends of) of pages that change the site when only looked at: WordPress's new-post screen (a draft
/// per visit), its Customizer (a changeset per visit, and drafts of the theme's starter pages on a fresh
/// site), Press This (a draft) and its database upgrade screen.
pub const CHANGES_WHEN_VISITED: &[&str] = &[
    "/wp-admin/post-new.php",
    "/wp-admin/customize.php",
    "/wp-admin/press-this.php",
    "/wp-admin/upgrade.php",
];

/// Prefixes a verb may carry.
const VERB_PREFIXES: [&str; 6] = ["", "un", "de", "re", "dis", "bulk"];

impl LoginGuard {
    /// A guard over the hosts of `credentials`' form entries, each with its `avoid` patterns (a pattern that
    /// does not compile is left out: the config check names it), and over the domains of `cookies` (the
    /// cookies file's `(domain, subdomains too)`).
    pub fn new(credentials: &[CredentialSpec], cookies: &[(String, bool)]) -> LoginGuard {
        let mut guarded: Vec<Guarded> = credentials
            .iter()
            .filter(|c| c.kind == crate::settings::CredentialKind::Form)
            .map(|c| Guarded {
                hosts: Hosts::Credential(Box::new(c.clone())),
                avoid: c.avoid.iter().filter_map(|p| Regex::new(p).ok()).collect(),
            })
            .collect();
        for (domain, subdomains) in cookies {
            let domain = domain.trim_start_matches('.').to_ascii_lowercase();
            if !guarded.iter().any(|g| match &g.hosts {
                Hosts::Cookie { domain: d, .. } => *d == domain,
                Hosts::Credential(_) => false,
            }) {
                guarded.push(Guarded {
                    hosts: Hosts::Cookie {
                        domain,
                        subdomains: *subdomains,
                    },
                    avoid: Vec::new(),
                });
            }
        }
        LoginGuard { guarded }
    }

    /// Whether it guards no host at all (then the crawl leaves it out).
    pub fn is_empty(&self) -> bool {
        self.guarded.is_empty()
    }

    /// Why `url` must not be fetched while its host has a login, or `None` when it may be.
    pub fn refuses(&self, url: &Url) -> Option<&'static str> {
        let mut applies = self
            .guarded
            .iter()
            .filter(|g| g.hosts.contain(url))
            .peekable();
        applies.peek()?;
        let mut builtin = None;
        // The operator's patterns see the URL as written and as the server reads it, its escapes decoded
        // (xt44b F2: `/%77p-admin/` passed `avoid = ['/wp-admin/']`).
        let as_read = url.as_str().contains('%').then(|| decoded(url.as_str()));
        for g in applies {
            if g.avoid.iter().any(|r| {
                r.is_match(url.as_str()) || as_read.as_deref().is_some_and(|d| r.is_match(d))
            }) {
                return Some("avoid");
            }
            builtin = builtin.or_else(|| way_out(url));
        }
        builtin
    }
}

/// Whether `url` ends a session or changes the site, by the built-in signs, and which. The URL is judged
/// as the server will see it ([`decoded`], [`server_path`]).
pub fn way_out(url: &Url) -> Option<&'static str> {
    let raw_path = decoded(url.path());
    let raw_query = decoded(url.query().unwrap_or_default());
    let path = server_path(&raw_path.to_ascii_lowercase());
    // An image, style sheet or font named for signing out (`/img/logout.png`, a header's icon) ends no
    // session: refusing it left every member page's icon out of the archive (xt44b F14). Its folders are
    // still read (`/logout.php/x.png` runs logout.php), and a script's name too (Rails answers `/logout.js`).
    const STATIC: [&str; 11] = [
        ".png", ".gif", ".jpg", ".jpeg", ".svg", ".ico", ".webp", ".css", ".woff", ".woff2", ".ttf",
    ];
    let a_file = url.query().is_none() && STATIC.iter().any(|e| path.ends_with(e));
    let named = if a_file {
        &raw_path[..raw_path.rfind('/').map_or(0, |i| i + 1)]
    } else {
        &raw_path[..]
    };
    if sign_out(named) || sign_out(&raw_query) || ends_a_session(&path) {
        return Some("sign-out");
    }
    if CHANGES_WHEN_VISITED
        .iter()
        .any(|p| path.ends_with(p) || path.contains(&format!("{p}/")))
    {
        return Some("changes the site when visited");
    }
    let query = url.query().unwrap_or_default();
    let mut nonce = false;
    // The path as the server sees it, and its camel-case parts as written.
    let mut words: Vec<String> = words_of(&path);
    words.extend(words_of(&raw_path));
    for (name, value) in url::form_urlencoded::parse(query.as_bytes()) {
        if is_nonce_name(&decoded(&name)) {
            nonce = true;
            continue;
        }
        for text in [name.as_ref(), value.as_ref()] {
            words.extend(words_of(&decoded(text)));
        }
    }
    (nonce && words.iter().any(|w| is_verb(w))).then_some("action with a nonce")
}

/// `text` with its percent escapes decoded (all of them, `%2F` too), again while one decoding makes
/// another escape (`%256F`), up to three times; bytes that are no UTF-8 become U+FFFD.
fn decoded(text: &str) -> String {
    let mut text = text.to_string();
    for _ in 0..3 {
        if !text.contains('%') {
            break;
        }
        let next = percent_encoding::percent_decode_str(&text)
            .decode_utf8_lossy()
            .into_owned();
        if next == text {
            break;
        }
        text = next;
    }
    text
}

/// A decoded path as a server resolves it to a script: each segment's `;params` dropped, empty and `.`
/// segments left out, `..` taking the segment before it away (`/wp-admin//x.php;a/` is `/wp-admin/x.php/`;
/// a trailing `/` is kept, so a script followed by PATH_INFO stays recognisable as `script/`).
fn server_path(path: &str) -> String {
    let mut segments: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        let segment = segment.split(';').next().unwrap_or_default();
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            s => segments.push(s),
        }
    }
    let mut out = String::with_capacity(path.len());
    for s in &segments {
        out.push('/');
        out.push_str(s);
    }
    if path.ends_with('/') || segments.is_empty() {
        out.push('/');
    }
    out
}

/// A sign-out word in `text` (decoded, any case) that starts a word: at the start, after a character that
/// is no letter or digit (`_logout`, `-logout`), at a camel-case boundary (`UserLogout`, `doLogout`), or
/// after one of [`SIGN_OUT_PREFIXES`] that starts a word (`userlogout`). Inside a word on its left it is not
/// one (`catalog-outlet`, `blogout`, `catalogOutlet`).
fn sign_out(text: &str) -> bool {
    // With OpenID Connect's end-session endpoints and the sign-out words of a few languages (xt17a F11).
    // WS-Federation's sign-out actions (`wa=wsignout1.0`, ADFS's) too (xt44b F4).
    const JOINED: [&str; 15] = [
        "wsignout",
        "wsignoutcleanup",
        "logout",
        "signout",
        "logoff",
        "signoff",
        "endsession",
        "abmelden",
        "ausloggen",
        "deconnexion",
        "déconnexion",
        "deconnecter",
        "déconnecter",
        "uitloggen",
        "wyloguj",
    ];
    const SPLIT: [&str; 16] = [
        "log-out",
        "log_out",
        "sign-out",
        "sign_out",
        "log-off",
        "log_off",
        "sign-off",
        "sign_off",
        "end-session",
        "end_session",
        "cerrar-sesion",
        "cerrar_sesion",
        "logga-ut",
        "logga_ut",
        "kirjaudu-ulos",
        "kirjaudu_ulos",
    ];
    let lower = text.to_ascii_lowercase();
    let b = text.as_bytes();
    // A word starts at `at`: after a non-alphanumeric, or a capital after a small letter.
    let boundary = |at: usize| {
        at == 0
            || !b[at - 1].is_ascii_alphanumeric()
            || (b[at - 1].is_ascii_lowercase() && b[at].is_ascii_uppercase())
    };
    let starts_word = |at: usize| {
        boundary(at)
            || SIGN_OUT_PREFIXES.iter().any(|p| {
                at >= p.len()
                    && lower.is_char_boundary(at - p.len())
                    && lower[at - p.len()..at] == **p
                    && boundary(at - p.len())
            })
    };
    let ends_word = |end: usize| end == b.len() || !b[end].is_ascii_alphabetic();
    JOINED
        .iter()
        .any(|w| lower.match_indices(w).any(|(at, _)| starts_word(at)))
        || SPLIT.iter().any(|w| {
            lower
                .match_indices(w)
                .any(|(at, m)| starts_word(at) && ends_word(at + m.len()))
        })
}

/// Sign-out endpoints named without a sign-out word, by their path segments (lower case, as the server sees
/// them): OpenID Connect providers' `/session/end` (node-oidc-provider, Auth0's `…/session/end`), and SAML
/// single logout, `SLO` or `SLS` right under a segment naming SAML (`/saml/SLO`, `/saml2/sls`; xt17c F7).
/// An `slo` segment elsewhere is left alone (a Slovak language path).
fn ends_a_session(path: &str) -> bool {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    segments.windows(2).any(|w| match w {
        [a, b] => {
            (matches!(*a, "session" | "sessions") && matches!(*b, "end" | "destroy" | "delete"))
                || (a.contains("saml") && matches!(*b, "slo" | "sls"))
        }
        _ => false,
    }) || segments.last() == Some(&"disconnect")
}

/// Words a sign-out word is often glued to in lower case (`userlogout`, `dologout`).
pub const SIGN_OUT_PREFIXES: &[&str] = &[
    "user", "do", "my", "admin", "account", "member", "session", "single", "pkms", "sso", "web",
    "app",
];

/// Names of query parameters that carry a nonce or CSRF token: any with `nonce`, `csrf` or `xsrf` in it, and
/// the applications' own: Laravel's `_token`, Rails' `authenticity_token`, Moodle's `sesskey`, DokuWiki's
/// `sectok` (its revert, media delete and subscribe links, xt10a F1), phpBB's `hash`, and Joomla's, whose
/// name is the token itself (32 hex digits, `…&0123…cdef=1`).
fn is_nonce_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.contains("nonce")
        || name.contains("csrf")
        || name.contains("xsrf")
        || matches!(
            name.as_str(),
            "token" | "_token" | "authenticity_token" | "sesskey" | "sectok" | "hash"
        )
        || (name.len() == 32 && name.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The words of `text`, lower case: each run of letters and digits, and the parts of a camel-case one beside
/// it (`duplicatePost`: `duplicatepost`, `duplicate`, `post`; xt17c F5).
fn words_of(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        out.push(word.to_ascii_lowercase());
        let b = word.as_bytes();
        let mut start = 0;
        for at in 1..b.len() {
            if b[at - 1].is_ascii_lowercase() && b[at].is_ascii_uppercase() {
                out.push(word[start..at].to_ascii_lowercase());
                start = at;
            }
        }
        if start > 0 {
            out.push(word[start..].to_ascii_lowercase());
        }
    }
    out
}

fn is_verb(word: &str) -> bool {
    VERB_PREFIXES.iter().any(|p| {
        word.strip_prefix(p).is_some_and(|rest| {
            VERBS.iter().any(|v| rest.starts_with(v)) || WHOLE_VERBS.contains(&rest)
        })
    })
}

/// The rule in a decide sequence, named `login_guard`.
#[derive(Debug, Clone)]
pub struct LoginGuardRule(pub std::sync::Arc<LoginGuard>);

impl DecideRule for LoginGuardRule {
    fn name(&self) -> &str {
        "login_guard"
    }

    fn default_decision(&self) -> Decision {
        Decision::Reject
    }

    fn matches(&self, input: &DecideInput<'_>) -> bool {
        self.0.refuses(&input.uri.url).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(extra: &str) -> LoginGuard {
        let spec: CredentialSpec = toml::from_str(&format!(
            "kind = \"form\"\ndomain = \"blog.example.org\"\npassword_env = \"P\"\n\
             login_url = \"http://blog.example.org/wp-login.php\"\n{extra}"
        ))
        .unwrap();
        LoginGuard::new(&[spec], &[(".cookies.example".into(), true)])
    }

    fn refused(g: &LoginGuard, u: &str) -> Option<&'static str> {
        g.refuses(&Url::parse(u).unwrap())
    }

    #[test]
    fn sign_out_and_action_links_on_guarded_hosts() {
        let g = guard("avoid = ['(?i)/members/leave']\n");
        let b = "http://blog.example.org";
        for (path, why) in [
            ("/wp-login.php?action=logout&_wpnonce=3f2a", "sign-out"),
            ("/user/logout", "sign-out"),
            ("/account/Sign-Out?next=/", "sign-out"),
            ("/session/log_out", "sign-out"),
            ("/logoff.asp", "sign-out"),
            (
                "/wp-admin/post.php?post=12&action=trash&_wpnonce=ab12",
                "action with a nonce",
            ),
            (
                "/wp-admin/comment.php?c=3&action=approvecomment&_wpnonce=ab12",
                "action with a nonce",
            ),
            (
                "/wp-admin/plugins.php?action=deactivate&plugin=a%2Fa.php&_wpnonce=1",
                "action with a nonce",
            ),
            (
                "/wp-admin/edit-comments.php?action=spam&c=2&_wpnonce=1",
                "action with a nonce",
            ),
            ("/posts/7/delete?csrf_token=x", "action with a nonce"),
            // WooCommerce's and plugins' (xt17a F7).
            (
                "/wp-admin/admin-ajax.php?action=woocommerce_mark_order_status&status=completed&order_id=1&_wpnonce=ab",
                "action with a nonce",
            ),
            (
                "/wp-admin/edit.php?post_type=product&action=duplicate_product&post=12&_wpnonce=ab",
                "action with a nonce",
            ),
            (
                "/wp-admin/admin-ajax.php?action=woocommerce_feature_product&product_id=5&_wpnonce=ab",
                "action with a nonce",
            ),
            (
                "/wp-admin/admin.php?page=wc-status&tab=tools&action=clear_transients&_wpnonce=ab",
                "action with a nonce",
            ),
            // Camel case (xt17c F5).
            ("/page?_token=x&action=duplicatePost", "action with a nonce"),
            ("/page?_token=x&action=markAsRead", "action with a nonce"),
            ("/page?_token=x&action=clearCache", "action with a nonce"),
            ("/list/unsubscribe?token=abc", "action with a nonce"),
            // DokuWiki (xt10a F1), phpBB and Joomla name their tokens their own way.
            (
                "/doku.php?id=private:page1&do=revert&rev=1796078404&sectok=40e9affc",
                "action with a nonce",
            ),
            (
                "/lib/exe/mediamanager.php?delete=wiki%3Adokuwiki.svg&sectok=40e9affc",
                "action with a nonce",
            ),
            (
                "/posting.php?mode=delete&f=2&p=7&hash=9f1b2c3d",
                "action with a nonce",
            ),
            (
                "/index.php?option=com_content&task=articles.trash&cid=4&0123456789abcdef0123456789abcdef=1",
                "action with a nonce",
            ),
            ("/wp-admin/post-new.php", "changes the site when visited"),
            (
                "/wp-admin/customize.php?return=%2Fwp-admin%2F",
                "changes the site when visited",
            ),
            ("/members/leave", "avoid"),
            // Escapes the server decodes are no way past `avoid` (xt44b F2).
            ("/members/%6Ceave", "avoid"),
            ("/members%2Fleave", "avoid"),
            // Intranet and single sign-on spellings (xt44b F4).
            ("/ssologout", "sign-out"),
            ("/weblogout", "sign-out"),
            ("/applogout", "sign-out"),
            ("/adfs/ls/?wa=wsignout1.0", "sign-out"),
            ("/?wa=wsignoutcleanup1.0", "sign-out"),
            ("/session/destroy", "sign-out"),
            ("/sessions/delete", "sign-out"),
            ("/disconnect", "sign-out"),
            // A file's name is no way out, a script's folder is (review 83 R4).
            ("/logout.php/x.png", "sign-out"),
            ("/logout.js", "sign-out"),
        ] {
            assert_eq!(refused(&g, &format!("{b}{path}")), Some(why), "{path}");
        }
        for path in [
            "/",
            // Files named for signing out are no way out (xt44b F14).
            "/static/img/logout.png",
            "/assets/icon-logout.svg",
            "/wp-login.php",
            "/wp-login.php?loggedout=true",
            "/2024/05/private-post/",
            "/catalog-outlet/",
            "/blog/how-to-delete-a-file/",
            "/wp-admin/post.php?post=12&action=edit",
            "/?p=12&preview=true&preview_nonce=abc",
            "/members/1",
            "/doku.php?id=private:page1&do=revisions",
            "/doku.php?id=private:page1&rev=1796078404",
            // Starts of read-only words are no whole verbs (review 65b R9).
            "/docs/markdown?_token=x",
            "/docs/readMarkdown?_token=x",
            "/about/copyright?_token=x",
            "/shop/pink-shirts?_token=x",
            "/list?hidden=1&_wpnonce=x",
        ] {
            assert_eq!(refused(&g, &format!("{b}{path}")), None, "{path}");
        }
        // Other hosts are not guarded; a cookies file's domain is, with its subdomains.
        assert_eq!(refused(&g, "http://other.org/logout"), None);
        assert_eq!(
            refused(&g, "http://www.cookies.example/logout"),
            Some("sign-out")
        );
        assert_eq!(
            refused(&g, "http://cookies.example/logout"),
            Some("sign-out")
        );
        assert_eq!(refused(&g, "http://xcookies.example/logout"), None);
    }

    #[test]
    fn sign_out_words_after_camel_case_prefixes_and_escapes() {
        let g = guard("");
        let b = "http://blog.example.org";
        for path in [
            "/index.php?title=Special:UserLogout&returnto=Main",
            "/wiki/Special:UserLogout",
            "/app/doLogout",
            "/app/do_logout",
            "/app/user-logout",
            "/userlogout.php",
            "/log%6Fut",
            "/%6C%6F%67%6F%75%74",
            "/?action=log%6Fut",
            "/?action=log%256Fut",
            "/account%2Flogout",
            "/signoff",
            "/account/sign-off",
            "/session/log_off",
            "/Special:UserLogOut",
            // OpenID Connect, SAML, and other languages' (xt17a F11).
            "/connect/endsession?id_token_hint=x",
            "/oidc/end_session",
            "/Shibboleth.sso/SingleLogout",
            "/saml/singlelogout",
            "/konto/abmelden",
            "/compte/d%C3%A9connexion",
            "/compte/deconnexion",
            "/account/uitloggen",
            "/cuenta/cerrar-sesion",
            "/konto/wyloguj",
            "/konto/logga-ut",
            // xt17c F7: WebSEAL's, French and Finnish.
            "/pkmslogout",
            "/compte/se-deconnecter",
            "/tili/kirjaudu-ulos",
            // xt17c F7's other half: an OpenID Connect provider's and SAML single logout.
            "/session/end",
            "/oidc/session/end?id_token_hint=x",
            "/saml/SLO",
            "/auth/saml2/sls/",
            "/Saml2/Slo?SAMLRequest=x",
        ] {
            assert_eq!(
                refused(&g, &format!("{b}{path}")),
                Some("sign-out"),
                "{path}"
            );
        }
        for path in [
            "/blogout",
            "/catalogOutlet/",
            "/catalog%2Doutlet/",
            "/pseudologout",
            "/wiki/Special:RecentChanges",
            "/blog/signed-off-by",
            "/slo/clanky",
            "/session/ending-soon",
            "/saml/docs",
        ] {
            assert_eq!(refused(&g, &format!("{b}{path}")), None, "{path}");
        }
    }

    #[test]
    fn changing_pages_are_judged_as_the_server_sees_them() {
        let g = guard("");
        let b = "http://blog.example.org";
        for path in [
            "/wp-admin//post-new.php",
            "/wp-admin/post-new.php/",
            "/wp-admin/post-new.php/anything/else",
            "/wp-admin/post-new%2Ephp",
            "/wp-admin/post-new.php;x",
            "/wp-admin/post-new.php;x/y",
            "/wp-admin%2Fpost-new.php",
            "/wp-admin/x/..%2Fpost-new.php",
            "/WP-Admin/Customize.php?x=1",
            "/blog/wp-admin/press-this.php/",
            "/wp-admin///upgrade.php?step=1",
        ] {
            assert_eq!(
                refused(&g, &format!("{b}{path}")),
                Some("changes the site when visited"),
                "{path}"
            );
        }
        for path in [
            "/wp-admin/post-new.php.bak",
            "/wp-admin/post-new.phpx",
            "/wp-admin/post.php?post=1&action=edit",
            "/docs/post-new.php",
        ] {
            assert_eq!(refused(&g, &format!("{b}{path}")), None, "{path}");
        }
        // An escaped verb in the path counts as the verb.
        assert_eq!(
            refused(&g, &format!("{b}/posts/7/tr%61sh?_wpnonce=1")),
            Some("action with a nonce")
        );
    }

    /// URLs the guard refuses, and URLs it lets through, on a guarded host.
    const REFUSED: [&str; 8] = [
        "/wp-login.php?action=logout&_wpnonce=3f2a",
        "/index.php?title=Special:UserLogout&returnto=Main",
        "/account/sign-out",
        "/wp-admin/post-new.php",
        "/wp-admin/customize.php/x",
        "/wp-admin/post.php?post=12&action=trash&_wpnonce=ab12",
        "/list/unsubscribe?token=abc",
        "/Special:doLogOff",
    ];
    const FETCHED: [&str; 5] = [
        "/catalog-outlet/",
        "/wp-admin/post.php?post=12&action=edit",
        "/?p=12&preview=true&preview_nonce=abc",
        "/blogout/2024",
        "/wiki/Main_Page",
    ];

    /// `text` with the characters `pick` chooses percent-encoded (upper or lower hex); `?`, `&`, `=` and
    /// `%` are kept, so the URL keeps its parts.
    fn encode(text: &str, pick: &[bool], lower: bool) -> String {
        text.chars()
            .zip(pick.iter().cycle())
            .map(|(c, &p)| {
                if p && !"?&=%".contains(c) {
                    let e = format!("%{:02X}", c as u32);
                    if lower { e.to_ascii_lowercase() } else { e }
                } else {
                    c.to_string()
                }
            })
            .collect()
    }

    proptest::proptest! {
        #[test]
        fn any_percent_encoding_of_a_refused_url_is_refused(
            i in 0..REFUSED.len(),
            pick in proptest::collection::vec(proptest::bool::ANY, 1..40),
            lower: bool,
        ) {
            let g = guard("");
            let plain = refused(&g, &format!("http://blog.example.org{}", REFUSED[i]));
            proptest::prop_assert!(plain.is_some());
            let encoded = format!("/{}", encode(&REFUSED[i][1..], &pick, lower));
            proptest::prop_assert_eq!(
                refused(&g, &format!("http://blog.example.org{encoded}")),
                plain,
                "{}",
                encoded
            );
        }

        #[test]
        fn encoding_letters_of_a_fetched_url_keeps_it_fetched(
            i in 0..FETCHED.len(),
            pick in proptest::collection::vec(proptest::bool::ANY, 1..40),
        ) {
            let g = guard("");
            let encoded: String = FETCHED[i]
                .chars()
                .skip(1)
                .zip(pick.iter().cycle())
                .map(|(c, &p)| if p && c.is_ascii_alphabetic() {
                    format!("%{:02X}", c as u32)
                } else {
                    c.to_string()
                })
                .collect();
            proptest::prop_assert_eq!(
                refused(&g, &format!("http://blog.example.org/{encoded}")),
                None,
                "{}",
                encoded
            );
        }

        #[test]
        fn sign_out_never_panics(text in "\\PC{0,40}") {
            let _ = sign_out(&text);
            let _ = server_path(&text);
        }
    }

    #[test]
    fn the_rule_rejects_by_name() {
        use crate::decide::test_util::decide;
        let rule = LoginGuardRule(std::sync::Arc::new(guard("")));
        assert_eq!(rule.name(), "login_guard");
        assert_eq!(
            decide(&rule, "http://blog.example.org/logout", "L"),
            Decision::Reject
        );
        assert_eq!(
            decide(&rule, "http://blog.example.org/about", "L"),
            Decision::Pass
        );
    }
}
