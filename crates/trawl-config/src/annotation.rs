//! Annotations: the short notes crawl.log's annotations field carries about a URI, typed, and rendered once
//! (docs/crawl-log.md lists them).

use std::fmt;

/// One note about what happened to a URI.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Annotation {
    /// `reject:RULE`: a decide rule (of the scope or a gate) rejected the URI; RULE is its name in traces.
    Rejected(String),
    /// `notWritten:RULE`: the before-write gate kept the response out of the archive.
    NotWritten(String),
    /// `text_filter[N]` (or the filter's name): a text filter matched the page.
    TextFilter(String),
    /// `outlinksTrunc`: the page had more links than `scope.max_outlinks`.
    OutlinksTruncated,
    /// `decodeTrunc`: the body, decoded, passed `fetch.max_decoded_bytes` (or `fetch.max_decode_ratio` of its
    /// encoded size): links and text filters read only what came before the cut.
    DecodeTruncated,
    /// `decodeFailed`: a content coding of the body could not be undone (unknown, or bytes it does not read):
    /// links and text filters read the body as it came.
    DecodeFailed,
    /// `retryAfter=Ns`: the server's `Retry-After` (capped) set the host's wait.
    RetryAfter(u64),
    /// `lenTrunc`, `timeTrunc`, `midFetchTrunc`: the body was cut short.
    Truncated(Truncation),
    /// `certInvalid`: the TLS certificate would fail web PKI validation.
    CertInvalid,
    /// `Nt`: the URI took N tries.
    Tries(u32),
    /// `revisit:N`: the Nth visit again of a watchable URL.
    Revisit(u32),
    /// `api`: fetched in place of a URL class's page.
    Api,
    /// `classFailed:WHAT`: the URL class matching the URI could not derive WHAT (`api`: its API URL, so the
    /// page itself is fetched; `next_page`: its next gallery page, so the gallery ends there).
    ClassFailed(String),
    /// `duplicate:digest`: the payload was already archived; a revisit record was written (Heritrix's form).
    Duplicate,
    /// `duplicate:server-not-modified`: a conditional recrawl got `304 Not Modified`; a revisit was written.
    NotModified,
    /// `err=KIND`: the fetch failed (`dns`, `connect`, `broken`, `timeout`, `invalid-request`).
    FetchFailed(&'static str),
    /// `proxy:KIND`: beside `err=proxy`, what the proxy said: its status (`proxy:407`), `proxy:down` (no
    /// connection to it), `proxy:timeout`, `proxy:broken`, `proxy:socks`, `proxy:config`.
    Proxy(String),
    /// `refused=WHY`: the address policy refused the host's address.
    Refused(Refusal),
    /// `budget`: the URI's queue had spent its budget.
    Budget,
    /// `robots:WHY`: why the URI's robots.txt could not be fetched (with -61), e.g. `robots:err=connect`,
    /// `robots:503`.
    Robots(Box<Annotation>),
    /// An HTTP status, inside `robots:`.
    Status(u16),
    /// `pdf:WHY`: a PDF's links were not all read: `tooLarge` (over `[extract] pdf_max_bytes`), `unreadable`,
    /// `encrypted`, `parserPanic`, or the limit that stopped it (`MAX_STREAM_BYTES`, `MAX_INFLATED_BYTES`,
    /// `MAX_OBJECTS`, `MAX_PAGES`, `MAX_TEXT_TIME`).
    Pdf(&'static str),
    /// `doc:WHY`: an office document's links were not all read: `tooLarge` (over `[extract]
    /// office_max_bytes`), `unreadable`, `encrypted`, `parserPanic`, or the limit that stopped it
    /// (`MAX_PART_BYTES`, `MAX_TOTAL_BYTES`, `MAX_PARTS`, `MAX_TIME`).
    Doc(&'static str),
    /// `sitemap:WHY`: a sitemap's URLs were not all read (beside `outlinksTrunc`): `MAX_URLS` (over 50,000),
    /// `MAX_BYTES` (over 50 MB uncompressed), `unreadable` (damaged gzip data), `xmlError` (XML that breaks),
    /// `cutShort` (it ends inside its root element), `maxUrlsPerHost` (the host's `[extract]
    /// sitemap_max_urls_per_host` reached).
    Sitemap(&'static str),
    /// `login:…`: on the lines of a form login's exchanges (see [`LoginNote`]).
    Login(LoginNote),
    /// `lastmod:DATE`: the date a sitemap gave for the URI (`<lastmod>`), in UTC.
    Lastmod(i64),
    /// `browser`: found or fetched by a browser rendering a page (a link of the rendered DOM, a request the
    /// page made); `browser:WHY` on a rendered page's own line: `rendered`, and what cut it short (`timeout`,
    /// `crashed`, `maxRequests`, `maxBytes`, `failed`).
    Browser(Option<&'static str>),
}

impl fmt::Display for Annotation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Annotation::Rejected(rule) => write!(f, "reject:{rule}"),
            Annotation::NotWritten(rule) => write!(f, "notWritten:{rule}"),
            Annotation::TextFilter(label) => f.write_str(label),
            Annotation::OutlinksTruncated => f.write_str("outlinksTrunc"),
            Annotation::DecodeTruncated => f.write_str("decodeTrunc"),
            Annotation::DecodeFailed => f.write_str("decodeFailed"),
            Annotation::RetryAfter(secs) => write!(f, "retryAfter={secs}s"),
            Annotation::Truncated(t) => f.write_str(t.annotation()),
            Annotation::CertInvalid => f.write_str("certInvalid"),
            Annotation::Tries(n) => write!(f, "{n}t"),
            Annotation::Revisit(n) => write!(f, "revisit:{n}"),
            Annotation::Api => f.write_str("api"),
            Annotation::ClassFailed(what) => write!(f, "classFailed:{what}"),
            Annotation::Duplicate => f.write_str("duplicate:digest"),
            Annotation::NotModified => f.write_str("duplicate:server-not-modified"),
            Annotation::FetchFailed(kind) => write!(f, "err={kind}"),
            Annotation::Proxy(kind) => write!(f, "proxy:{kind}"),
            Annotation::Refused(why) => write!(f, "refused={why}"),
            Annotation::Budget => f.write_str("budget"),
            Annotation::Robots(why) => write!(f, "robots:{why}"),
            Annotation::Status(code) => write!(f, "{code}"),
            Annotation::Pdf(why) => write!(f, "pdf:{why}"),
            Annotation::Doc(why) => write!(f, "doc:{why}"),
            Annotation::Sitemap(why) => write!(f, "sitemap:{why}"),
            Annotation::Login(note) => write!(f, "login:{}", note.as_str()),
            Annotation::Browser(None) => f.write_str("browser"),
            Annotation::Browser(Some(why)) => write!(f, "browser:{why}"),
            Annotation::Lastmod(secs) => match chrono::DateTime::from_timestamp(*secs, 0) {
                Some(t) => write!(f, "lastmod:{}", t.format("%Y-%m-%dT%H:%M:%SZ")),
                None => write!(f, "lastmod:{secs}"),
            },
        }
    }
}

/// Annotations as crawl.log writes them: comma-joined, `-` for none.
pub struct Joined<'a>(pub &'a [Annotation]);

impl fmt::Display for Joined<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("-");
        }
        for (i, a) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{a}")?;
        }
        Ok(())
    }
}

/// What a line of a form login's exchange was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoginNote {
    /// `login:page`: the login page, read for its form.
    Page,
    /// `login:ok`: the form submitted, and the login worked.
    Ok,
    /// `login:failed`: the form submitted, and the login did not work.
    Failed,
    /// `login:limited`: the form submitted, and the site answered 429 or 503: it limits logins, so the login
    /// is waited for and tried again, not counted failed.
    Limited,
    /// `login:javascript`: the login page has no form to submit (a login built by JavaScript).
    Javascript,
    /// `login:captcha`: the login form has a CAPTCHA; it was not submitted.
    Captcha,
    /// `login:redirect`: a redirect the login's answer led to, followed as a browser does.
    Redirect,
    /// `login:check`: a page that showed the session alive, fetched again to tell a page the account may not
    /// enter from a session the site ended.
    Check,
    /// `login:untrusted`: a credential's secret (or the cookies of its hosts) was not sent, the server's TLS
    /// certificate having failed validation (the credential does not set `allow_invalid_certificate`).
    Untrusted,
}

impl LoginNote {
    /// The word after `login:`.
    pub fn as_str(self) -> &'static str {
        match self {
            LoginNote::Page => "page",
            LoginNote::Ok => "ok",
            LoginNote::Failed => "failed",
            LoginNote::Limited => "limited",
            LoginNote::Javascript => "javascript",
            LoginNote::Captcha => "captcha",
            LoginNote::Redirect => "redirect",
            LoginNote::Check => "check",
            LoginNote::Untrusted => "untrusted",
        }
    }
}

/// Why a response was cut short.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Truncation {
    /// The body passed `fetch.max_bytes` (`lenTrunc`).
    Length,
    /// The server stopped sending for longer than `fetch.timeout_ms` (`timeTrunc`).
    Time,
    /// The connection broke mid-body (`midFetchTrunc`).
    Disconnect,
}

impl Truncation {
    /// The crawl.log annotation.
    pub fn annotation(self) -> &'static str {
        match self {
            Truncation::Length => "lenTrunc",
            Truncation::Time => "timeTrunc",
            Truncation::Disconnect => "midFetchTrunc",
        }
    }

    /// The `WARC-Truncated` value.
    pub fn warc_reason(self) -> &'static str {
        match self {
            Truncation::Length => "length",
            Truncation::Time => "time",
            Truncation::Disconnect => "disconnect",
        }
    }
}

/// Why an address is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// 127.0.0.0/8, ::1.
    Loopback,
    /// RFC 1918 (10/8, 172.16/12, 192.168/16) and unique-local fc00::/7.
    Private,
    /// 169.254/16 (including the cloud metadata address 169.254.169.254) and fe80::/10.
    LinkLocal,
    /// Carrier-grade NAT, 100.64/10.
    SharedCgnat,
    /// 224/4, ff00::/8.
    Multicast,
    /// 0.0.0.0/8, ::.
    Unspecified,
    /// Reserved, documentation, benchmarking and broadcast ranges (240/4, 192.0.0/24, 192.0.2/24, 198.18/15,
    /// 198.51.100/24, 203.0.113/24, 2001:db8::/32, 100::/64).
    Reserved,
}

impl Refusal {
    /// The range's short name, as written in crawl.log annotations.
    pub fn name(self) -> &'static str {
        match self {
            Refusal::Loopback => "loopback",
            Refusal::Private => "private",
            Refusal::LinkLocal => "link-local",
            Refusal::SharedCgnat => "cgnat",
            Refusal::Multicast => "multicast",
            Refusal::Unspecified => "unspecified",
            Refusal::Reserved => "reserved",
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rendered_as_crawl_log_writes_them() {
        let notes = [
            Annotation::Rejected("too_many_hops".into()),
            Annotation::Truncated(Truncation::Length),
            Annotation::Tries(3),
            Annotation::RetryAfter(5),
            Annotation::FetchFailed("dns"),
            Annotation::FetchFailed("proxy"),
            Annotation::Proxy("407".into()),
            Annotation::ClassFailed("api".into()),
        ];
        assert_eq!(
            Joined(&notes).to_string(),
            "reject:too_many_hops,lenTrunc,3t,retryAfter=5s,err=dns,err=proxy,proxy:407,classFailed:api"
        );
        assert_eq!(Joined(&[]).to_string(), "-");
    }
}
