//! Form login without I/O: what is submitted (the page's form as a browser sends it, then the credential's
//! `fields`, then the password), how the answer is judged (the credential's `success` sign, or by default: a
//! cookie set or changed and no login form shown again), and how a page shows the session lost. The
//! exchanges themselves are the engine's (`trawl_engine::login`), which reads the pages with
//! [`trawl_extract::form`].

use http::header::{CONTENT_ENCODING, CONTENT_TYPE, LOCATION};
use trawl_config::settings::{CredentialSpec, LoggedOut, LoginSuccess};
use trawl_extract::form::{ControlKind, Enctype, Form, Forms};
use url::Url;

/// What the password is shown as.
pub const MASK: &str = "********";

/// The shortest password looked for in a URL ([`Secret::is_in`]): a shorter one is in too many URLs by
/// chance.
const SECRET_SEEN_FROM: usize = 4;

/// A password as a site may echo it in a URL: its UTF-8 bytes, and its bytes in the encoding its form was
/// posted in (a windows-1252 form's `ä` is the byte E4).
#[derive(Debug, Clone)]
pub struct Secret {
    /// Too short to look for.
    short: bool,
    /// Its byte spellings, each once.
    spellings: Vec<Vec<u8>>,
}

impl Secret {
    /// `secret`, posted in `charset` (UTF-8 when `None`).
    pub fn new(secret: &str, charset: Option<&'static encoding_rs::Encoding>) -> Secret {
        let mut spellings = vec![secret.as_bytes().to_vec()];
        if let Some(charset) = charset {
            let encoded = charset.encode(secret).0.into_owned();
            if !spellings.contains(&encoded) {
                spellings.push(encoded);
            }
        }
        Secret {
            short: secret.chars().count() < SECRET_SEEN_FROM,
            spellings,
        }
    }

    /// Whether `text` (a URL) holds it: as written, percent-decoded, or as a form encodes it (`+` for a
    /// space), in either spelling. A login answer redirecting to such a URL is not followed: crawl.log and
    /// the indexes would keep it (xt18a F2: an old application put the password in its welcome page's query).
    pub fn is_in(&self, text: &str) -> bool {
        if self.short {
            return false;
        }
        let plus = text.replace('+', " ");
        let readings: [std::borrow::Cow<'_, [u8]>; 3] = [
            text.as_bytes().into(),
            percent_encoding::percent_decode_str(text)
                .collect::<Vec<u8>>()
                .into(),
            percent_encoding::percent_decode_str(&plus)
                .collect::<Vec<u8>>()
                .into(),
        ];
        readings.iter().any(|bytes| {
            self.spellings
                .iter()
                .any(|s| memchr::memmem::find(bytes, s).is_some())
        })
    }

    /// `text` with the secret masked: each spelling as written and percent- or form-encoded; then, where it is
    /// still found ([`Secret::is_in`]), the piece of a URL that holds it (between `&`, `?`, `=`, `/`, `;`,
    /// `,` and white space), else the word, else the line. Never text it is still found in. A secret too short
    /// to look for is left (it would mask words by chance).
    pub fn masked_in(&self, text: &str) -> String {
        if self.short {
            return text.to_string();
        }
        let mut out = text.to_string();
        for s in &self.spellings {
            if let Ok(plain) = std::str::from_utf8(s) {
                out = out.replace(plain, MASK);
            }
            let form: String = url::form_urlencoded::byte_serialize(s).collect();
            let escaped =
                percent_encoding::percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string();
            out = out.replace(&form, MASK).replace(&escaped, MASK);
        }
        let pieces = |text: &str, delimiter: fn(char) -> bool| -> String {
            text.split_inclusive(delimiter)
                .map(|piece| {
                    let token = piece.strip_suffix(delimiter).unwrap_or(piece);
                    if self.is_in(token) {
                        format!("{MASK}{}", &piece[token.len()..])
                    } else {
                        piece.to_string()
                    }
                })
                .collect()
        };
        if self.is_in(&out) {
            out = pieces(&out, |c| {
                matches!(c, '&' | '?' | '=' | '/' | ';' | ',') || c.is_whitespace()
            });
        }
        if self.is_in(&out) {
            out = pieces(&out, char::is_whitespace);
        }
        if self.is_in(&out) {
            out = out
                .split_inclusive('\n')
                .map(|line| match self.is_in(line) {
                    true => format!("{MASK} (a line holding the password)\n"),
                    false => line.to_string(),
                })
                .collect();
        }
        out
    }
}

/// The login form as it was found: what tells a page showing it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormSignature {
    /// Where it is submitted, without query or fragment.
    pub action: Url,
    /// The names of its text and password inputs, sorted.
    pub visible: Vec<String>,
}

impl FormSignature {
    /// The signature of `form`.
    pub fn of(form: &Form) -> FormSignature {
        let mut visible: Vec<String> = form
            .controls
            .iter()
            .filter(|c| matches!(c.kind, ControlKind::Text | ControlKind::Password))
            .map(|c| c.name.clone())
            .collect();
        visible.sort();
        visible.dedup();
        FormSignature {
            action: without_query(form.submit_action()),
            visible,
        }
    }

    /// The signature of a login posted to `login_url` without a form on its page: any form with a
    /// password input posting there.
    pub fn of_url(login_url: &Url) -> FormSignature {
        FormSignature {
            action: without_query(login_url),
            visible: Vec::new(),
        }
    }

    /// Whether `forms` hold the login form again: a form with a password input that posts to the same
    /// place (any query) or asks for the same fields. A change-password form (another action, other fields)
    /// is not it.
    pub fn shown_in(&self, forms: &Forms) -> bool {
        forms.forms.iter().filter(|f| f.has_password()).any(|f| {
            let other = FormSignature::of(f);
            same_place(&other.action, &self.action)
                || (!self.visible.is_empty() && other.visible == self.visible)
        })
    }
}

/// `url` without its query and fragment.
pub fn without_query(url: &Url) -> Url {
    let mut u = url.clone();
    u.set_query(None);
    u.set_fragment(None);
    u
}

/// Whether two URLs name the same page, whatever their queries and scheme (`http` and `https` alike).
pub fn same_place(a: &Url, b: &Url) -> bool {
    a.host_str() == b.host_str()
        && a.port_or_known_default()
            .is_some_and(|p| Some(p) == b.port_or_known_default() || a.scheme() != b.scheme())
        && a.path() == b.path()
}

/// Whether `url` is the page `login` names: the same place, and, unless that place is a sign-in page's own
/// address (`/accounts/login/`, whose every query is its page: xt44b F1), every parameter of `login`'s query
/// in its query (`/login?next=/x` is `/login`'s page; `/index.php?title=Special:Search` is not MediaWiki's
/// `/index.php?title=Special:UserLogin`, nor `/doku.php?id=page8` DokuWiki's `/doku.php?id=start&do=login`:
/// a front controller's pages share its path, xt10a F2 and F3).
pub fn same_page(url: &Url, login: &Url) -> bool {
    same_place(url, login)
        && (sign_in_address(login.path())
            || login
                .query_pairs()
                .all(|want| url.query_pairs().any(|have| have == want)))
}

/// Where a submitted value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The page: a hidden input, a default value, a checked box, a selected option, the submit button.
    Page(ControlKind),
    /// The credential's `fields`.
    Fields,
    /// The password.
    Password,
}

/// One submitted field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its name.
    pub name: String,
    /// Its value (the password itself for [`Source::Password`]: show it with [`Entry::shown`]).
    pub value: String,
    /// Where the value came from.
    pub source: Source,
}

impl Entry {
    /// The value as a report may show it: the password masked.
    pub fn shown(&self) -> String {
        match self.source {
            Source::Password => MASK.to_string(),
            _ => format!("{:?}", self.value),
        }
    }

    /// Where it came from, in words.
    pub fn origin(&self) -> String {
        match self.source {
            Source::Page(ControlKind::Hidden) => "hidden, from the page".into(),
            Source::Page(ControlKind::Submit) => "the submit button".into(),
            Source::Page(kind) => format!("{}, as the page fills it", kind.as_str()),
            Source::Fields => "from `fields`".into(),
            Source::Password => "the password".into(),
        }
    }
}

/// What a form login sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submission {
    /// Where: the form's action (or `login_url` when the page has no form).
    pub action: Url,
    /// The form's method, lower case (`post`; `get` for a form trawl does not send).
    pub method: String,
    /// How the fields are encoded.
    pub enctype: Enctype,
    /// The fields, in order.
    pub entries: Vec<Entry>,
    /// Controls of the form not sent (an unchecked box, a disabled field), in words.
    pub not_sent: Vec<String>,
    /// Names in `fields` the form has no control for (sent all the same).
    pub missing: Vec<String>,
    /// The field the password went in.
    pub password_field: String,
    /// Whether it came from a form on the page (else: `fields` and the password, as configured).
    pub from_form: bool,
    /// The encoding its names and values are sent in: the form's ([`Form::charset`]), UTF-8 without one.
    pub charset: &'static encoding_rs::Encoding,
}

impl Submission {
    /// The submission of `form` for `spec`: every entry the page gives (hidden inputs, default values, checked
    /// boxes, selected options, the first submit button's name and value), then `fields` (replacing the
    /// page's value of a field of the same name), then `password` into `password_field` (default: the
    /// form's password input).
    pub fn from_form(form: &Form, spec: &CredentialSpec, password: &str) -> Submission {
        let mut entries: Vec<Entry> = form
            .entries()
            .into_iter()
            .map(|(name, value, kind)| Entry {
                name,
                value,
                source: Source::Page(kind),
            })
            .collect();
        let not_sent = form
            .controls
            .iter()
            .filter(|c| !c.name.is_empty())
            .filter_map(|c| {
                if c.disabled {
                    Some(format!("{} ({}, disabled)", c.name, c.kind.as_str()))
                } else if matches!(c.kind, ControlKind::Checkbox | ControlKind::Radio) && !c.checked
                {
                    Some(format!("{} ({}, not checked)", c.name, c.kind.as_str()))
                } else {
                    None
                }
            })
            .filter(|w| {
                // A radio group with one checked button is sent; its other buttons need no line.
                let name = w.split(' ').next().unwrap_or_default();
                !entries.iter().any(|e| e.name == name)
            })
            .collect();
        let known = |name: &str| form.controls.iter().any(|c| c.name == name);
        let missing = spec.fields.keys().filter(|k| !known(k)).cloned().collect();
        for (name, value) in &spec.fields {
            put(&mut entries, name, value, Source::Fields);
        }
        // The input a password manager fills (`autocomplete="current-password"`), else the first (xt18a F8:
        // a one-time code's input before it took the password).
        let password_field = spec
            .password_field
            .clone()
            .or_else(|| form.current_password.clone().filter(|n| !n.is_empty()))
            .or_else(|| {
                form.password_inputs()
                    .find(|n| !n.is_empty())
                    .map(str::to_string)
            })
            .unwrap_or_else(|| spec.password_field().to_string());
        put(&mut entries, &password_field, password, Source::Password);
        Submission {
            action: form.submit_action().clone(),
            method: form.submit_method().to_owned(),
            enctype: form.submit_enctype(),
            entries,
            not_sent,
            missing,
            password_field,
            from_form: true,
            charset: form.charset,
        }
    }

    /// The submission of a login page without a form (an endpoint written for logins): `fields` and the
    /// password, posted to `login_url`.
    pub fn without_form(login_url: &Url, spec: &CredentialSpec, password: &str) -> Submission {
        let mut entries: Vec<Entry> = spec
            .fields
            .iter()
            .map(|(n, v)| Entry {
                name: n.clone(),
                value: v.clone(),
                source: Source::Fields,
            })
            .collect();
        put(
            &mut entries,
            spec.password_field(),
            password,
            Source::Password,
        );
        Submission {
            action: login_url.clone(),
            method: "post".into(),
            enctype: Enctype::UrlEncoded,
            entries,
            not_sent: Vec::new(),
            missing: Vec::new(),
            password_field: spec.password_field().to_string(),
            from_form: false,
            charset: encoding_rs::UTF_8,
        }
    }

    /// The request body and its `Content-Type`: names and values in [`Submission::charset`], a character
    /// it cannot write sent as an HTML character reference (`&#8364;`), and each line break as CRLF, as a
    /// browser sends them.
    pub fn body(&self) -> (Vec<u8>, String) {
        let encode = |s: &str| self.charset.encode(&crlf(s)).0.into_owned();
        match self.enctype {
            Enctype::UrlEncoded => {
                let mut out = String::new();
                for e in &self.entries {
                    if !out.is_empty() {
                        out.push('&');
                    }
                    out.extend(url::form_urlencoded::byte_serialize(&encode(&e.name)));
                    out.push('=');
                    out.extend(url::form_urlencoded::byte_serialize(&encode(&e.value)));
                }
                (out.into_bytes(), Enctype::UrlEncoded.as_str().to_string())
            }
            Enctype::TextPlain => {
                let mut out = Vec::new();
                for e in &self.entries {
                    out.extend(encode(&format!("{}={}\r\n", e.name, e.value)));
                }
                (out, "text/plain".to_string())
            }
            Enctype::Multipart => {
                let boundary = self.boundary();
                let escape = |s: &str| {
                    s.replace('"', "%22")
                        .replace('\r', "%0D")
                        .replace('\n', "%0A")
                };
                let mut out = Vec::new();
                for e in &self.entries {
                    let file = e.source == Source::Page(ControlKind::File);
                    out.extend(encode(&format!(
                        "--{boundary}\r\nContent-Disposition: form-data; name=\"{}\"",
                        escape(&e.name)
                    )));
                    if file {
                        out.extend_from_slice(
                            b"; filename=\"\"\r\nContent-Type: application/octet-stream",
                        );
                    }
                    out.extend_from_slice(b"\r\n\r\n");
                    if !file {
                        out.extend(encode(&e.value));
                    }
                    out.extend_from_slice(b"\r\n");
                }
                out.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
                (out, format!("multipart/form-data; boundary={boundary}"))
            }
        }
    }

    /// A multipart boundary that no value contains.
    fn boundary(&self) -> String {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let mut b = format!("----trawlFormBoundary{seed:x}");
        while self
            .entries
            .iter()
            .any(|e| e.value.contains(&b) || e.name.contains(&b))
        {
            b.push('x');
        }
        b
    }
}

/// `text` with each line break (CR, LF or CRLF) as CRLF: what HTML's form submission sends (xt18a F7: a
/// textarea's `a\nb` went as `%0A`).
fn crlf(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains(['\r', '\n']) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                chars.next_if_eq(&'\n');
                out.push_str("\r\n");
            }
            '\n' => out.push_str("\r\n"),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Sets `name` to `value`: the first entry of that name takes it (later ones of the name are dropped), or
/// it is added at the end.
fn put(entries: &mut Vec<Entry>, name: &str, value: &str, source: Source) {
    match entries.iter().position(|e| e.name == name) {
        Some(i) => {
            entries[i].value = value.to_string();
            entries[i].source = source;
            let mut seen = false;
            entries.retain(|e| {
                if e.name != name {
                    return true;
                }
                let keep = !seen;
                seen = true;
                keep
            });
        }
        None => entries.push(Entry {
            name: name.to_string(),
            value: value.to_string(),
            source,
        }),
    }
}

/// The names of the cookies `set_cookies` (a response's `Set-Cookie` values) set to a value the jar did not
/// hold (`before`: name and value of each cookie the jar sent); a cookie cleared (empty, expired) is not one.
pub fn cookies_changed<'a>(
    before: &[(String, String)],
    set_cookies: impl Iterator<Item = &'a str>,
) -> Vec<String> {
    let now = cookie::time::OffsetDateTime::now_utc();
    let mut out: Vec<String> = Vec::new();
    for raw in set_cookies {
        let Ok(c) = cookie::Cookie::parse(raw) else {
            continue;
        };
        let cleared = c.value().is_empty()
            || c.max_age().is_some_and(|m| m.is_zero() || m.is_negative())
            || c.expires_datetime().is_some_and(|t| t <= now);
        let same = before.iter().any(|(n, v)| n == c.name() && v == c.value());
        if !cleared && !same && !out.iter().any(|n| n == c.name()) {
            out.push(c.name().to_string());
        }
    }
    out
}

/// The names of the cookies a response sets, and of those it clears (`Max-Age=0` or less, or an `Expires`
/// in the past: DokuWiki clears its `DW…` cookies at a wrong password, xt10a F10).
pub fn cookie_changes(headers: &http::HeaderMap) -> (Vec<String>, Vec<String>) {
    let now = cookie::time::OffsetDateTime::now_utc();
    let (mut set, mut cleared) = (Vec::new(), Vec::new());
    for c in headers
        .get_all(http::header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| cookie::Cookie::parse(v).ok())
    {
        let gone = c
            .max_age()
            .is_some_and(|age| age <= cookie::time::Duration::ZERO)
            || c.expires_datetime().is_some_and(|at| at <= now);
        if gone { &mut cleared } else { &mut set }.push(c.name().to_string());
    }
    (set, cleared)
}

/// A response body with its content coding removed (bounded), for reading forms and signs in it.
pub fn decoded_body<'a>(headers: &http::HeaderMap, body: &'a [u8]) -> std::borrow::Cow<'a, [u8]> {
    let coding = trawl_extract::field::list(field_lines(headers, CONTENT_ENCODING));
    let limits = trawl_extract::decode::DecodeLimits {
        max_bytes: 16 << 20,
        max_ratio: 200,
    };
    trawl_extract::decode::decode_content(coding.as_deref(), body, limits)
        .unwrap_or(std::borrow::Cow::Borrowed(body))
}

/// Whether a response may hold a form: HTML, or no type at all.
pub fn is_html(headers: &http::HeaderMap) -> bool {
    content_type(headers).is_none_or(|t| {
        let t = t.to_ascii_lowercase();
        t.contains("html") || t.starts_with("text/plain")
    })
}

/// The forms of a response from `url` (none when it is not HTML or has no password input at all: most
/// pages are read no further).
pub fn page_forms(
    url: &Url,
    headers: &http::HeaderMap,
    body: &[u8],
    selector: Option<&str>,
) -> Forms {
    if !is_html(headers) {
        return Forms::default();
    }
    let body = decoded_body(headers, body);
    if !contains_ignore_case(&body, b"password") {
        return Forms::default();
    }
    let content_type = content_type(headers);
    trawl_extract::form::read_forms(&body, content_type.as_deref(), url, selector)
}

/// A response's `Content-Type` as browsers take it (the last value that parses as a MIME type).
pub fn content_type(headers: &http::HeaderMap) -> Option<String> {
    trawl_extract::field::content_type(field_lines(headers, CONTENT_TYPE))
}

fn field_lines(
    headers: &http::HeaderMap,
    name: http::header::HeaderName,
) -> impl Iterator<Item = &[u8]> {
    headers.get_all(name).into_iter().map(|v| v.as_bytes())
}

fn contains_ignore_case(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

/// Whether a response from `url` redirects to the login page ([`same_page`]: with any more query).
pub fn redirects_to_login(login: &Url, url: &Url, status: u16, location: Option<&str>) -> bool {
    (300..400).contains(&status)
        && location
            .and_then(|l| url.join(l).ok())
            .is_some_and(|to| same_page(&to, login))
}

/// The words of sign-in pages' paths.
const SIGN_IN: [&str; 6] = ["login", "log-in", "log_in", "signin", "sign-in", "sign_in"];

/// Whether `path` is a sign-in page's address: its last segment, without an extension, is one of
/// [`SIGN_IN`] (`/accounts/login`, `/signin`, `/login.php`; not `/account/login-history`, review 65b R6).
pub fn sign_in_address(path: &str) -> bool {
    let last = path
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default();
    let stem = last
        .split('.')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    SIGN_IN.contains(&stem.as_str())
}

/// Whether `path` is a sign-in page's: one of [`SIGN_IN`] in it.
pub fn sign_in_path(path: &str) -> bool {
    let path = path.to_ascii_lowercase();
    SIGN_IN.iter().any(|w| path.contains(w))
}

/// Whether `url`'s answer redirects to a sign-in page of its own host that is to send the visitor back to
/// `url`: a path with `login`, `log-in`, `log_in`, `signin`, `sign-in` or `sign_in` in it and a query value
/// naming `url` (its path, with or without its query, or the whole URL). A site with two sign-in pages, the
/// credential's and another (Django's own and its admin's `/admin/login/?next=/admin/…`, xt10a F4), shows its
/// session lost through either.
pub fn redirects_to_sign_in(url: &Url, status: u16, location: Option<&str>) -> bool {
    let Some(to) = location
        .filter(|_| (300..400).contains(&status))
        .and_then(|l| url.join(l).ok())
    else {
        return false;
    };
    if to.host_str() != url.host_str() || !sign_in_path(to.path()) {
        return false;
    }
    let here = match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_string(),
    };
    to.query_pairs()
        .any(|(_, back)| back == url.as_str() || back == url.path() || back == here)
}

/// How a form login came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Logged in.
    Ok,
    /// Submitted, and refused (or not submitted: the form cannot be sent safely).
    Failed,
    /// No form to submit: a login built by JavaScript.
    Javascript,
    /// The form has a CAPTCHA: not submitted.
    Captcha,
    /// The server's TLS certificate failed validation: the password was not sent.
    Untrusted,
}

/// A login's verdict, the sign that decided it, and what to change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The verdict.
    pub verdict: Verdict,
    /// The sign that decided, in words.
    pub sign: String,
    /// What to change, in words (empty when logged in).
    pub advice: Vec<String>,
}

impl Outcome {
    /// Whether the login worked.
    pub fn ok(&self) -> bool {
        self.verdict == Verdict::Ok
    }

    /// A failure for `sign`, with `advice`.
    pub fn failed(verdict: Verdict, sign: impl Into<String>, advice: Vec<String>) -> Outcome {
        Outcome {
            verdict,
            sign: sign.into(),
            advice,
        }
    }
}

/// What to do when a login needs a browser.
pub const USE_A_BROWSER: &str = "log in with a browser, export its cookies (a cookies.txt or JSON export) and set \
     [fetch] cookies_file = \"cookies.txt\"; the crawl then sends them from its first request, and keeps away \
     from the site's sign-out links as for a form login";

/// One answer of a submitted login: the submission's own, then each redirect followed.
#[derive(Debug, Clone)]
pub struct Answer<'a> {
    /// Where it came from.
    pub url: &'a Url,
    /// Its status.
    pub status: u16,
    /// Its `Location`.
    pub location: Option<&'a str>,
    /// Its body, content coding removed.
    pub body: &'a [u8],
    /// Its `Content-Type`, for the body's charset.
    pub content_type: Option<&'a str>,
    /// Whether it shows the login form again.
    pub shows_form: bool,
}

/// Judges a submitted login from its answers (at least the submission's), the cookies it set or changed,
/// and `has_cookie` (whether the jar now holds a cookie of that name for the login's site): by the
/// credential's `success` sign when it has one, else by default.
pub fn judge(
    spec: &CredentialSpec,
    submission: &Submission,
    answers: &[Answer<'_>],
    changed: &[String],
    has_cookie: impl Fn(&str) -> bool,
) -> Outcome {
    let Some(first) = answers.first() else {
        return Outcome::failed(Verdict::Failed, "no answer", Vec::new());
    };
    let last = answers.last().unwrap_or(first);
    let fields_advice = || {
        let mut advice = Vec::new();
        if !submission.missing.is_empty() {
            let names: Vec<&str> = submission
                .entries
                .iter()
                .filter(|e| {
                    matches!(
                        e.source,
                        Source::Page(ControlKind::Text) | Source::Page(ControlKind::Password)
                    )
                })
                .map(|e| e.name.as_str())
                .collect();
            advice.push(format!(
                "the form has no field {}: `fields` should name the form's own fields{}",
                quoted(&submission.missing),
                if names.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", quoted_str(&names))
                }
            ));
        }
        advice.push(format!(
            "check the user name in `fields` and the password (it went into `{}`{})",
            submission.password_field,
            if spec.password_field.is_some() {
                ", as password_field says"
            } else {
                ", the form's password input"
            }
        ));
        advice
    };
    if let Some(sign) = &spec.success {
        let (ok, what) = match sign {
            LoginSuccess::Cookie(name) => (
                has_cookie(name),
                format!("success = {{ cookie = {name:?} }}"),
            ),
            LoginSuccess::RedirectTo(prefix) => (
                answers
                    .iter()
                    .any(|a| login_worked(sign, a.url, a.status, a.location, b"", None, |_| false)),
                format!("success = {{ redirect_to = {prefix:?} }}"),
            ),
            LoginSuccess::Text(text) => (
                answers.iter().any(|a| {
                    login_worked(sign, a.url, a.status, None, a.body, a.content_type, |_| {
                        false
                    })
                }),
                format!("success = {{ text = {text:?} }}"),
            ),
        };
        return if ok {
            Outcome {
                verdict: Verdict::Ok,
                sign: format!("{what} showed"),
                advice: Vec::new(),
            }
        } else if matches!(first.status, 429 | 503) {
            // Limited: the sign could not show, and says nothing of the credential (xt13a F8).
            limited(first.status)
        } else {
            let mut advice = fields_advice();
            advice.push(format!(
                "or the sign is not what this site shows: leave `success` out to judge by cookies and the login \
                 form, or set it to what a logged-in page shows{}",
                if changed.is_empty() {
                    String::new()
                } else {
                    format!(" (the login set cookie {})", quoted(changed))
                }
            ));
            Outcome::failed(Verdict::Failed, format!("{what} did not show"), advice)
        };
    }
    if matches!(first.status, 429 | 503) {
        return limited(first.status);
    }
    // A refusal that shows the login form again is a wrong user name or password first (DokuWiki answers
    // one `403 Login failed` with the form, xt10a F10); a CSRF failure second.
    if first.status >= 400 && first.shows_form {
        let mut advice = fields_advice();
        if matches!(first.status, 400 | 403 | 419) {
            advice.push(
                "or a CSRF check failed: the form's hidden token and the cookie the login page set must go \
                 together — are cookies on ([fetch] cookies)?"
                    .to_string(),
            );
        }
        return Outcome::failed(
            Verdict::Failed,
            format!(
                "the answer ({}) shows the login form again (a password input)",
                first.status
            ),
            advice,
        );
    }
    if first.status >= 400 {
        let mut advice = Vec::new();
        if first.status == 403 || first.status == 400 || first.status == 419 {
            advice.push(
                "a login refused with 403 (400, 419) usually failed a CSRF check: the form's hidden token and the \
                 cookie the login page set must go together — are cookies on ([fetch] cookies), and is `form` the \
                 right form?"
                    .to_string(),
            );
        } else if first.status == 401 || first.status == 404 || first.status == 405 {
            advice.push(format!(
                "the form's action {} does not take the login: is login_url the page that shows the form?",
                submission.action
            ));
        }
        advice.extend(fields_advice());
        return Outcome::failed(
            Verdict::Failed,
            format!("the answer was {}", first.status),
            advice,
        );
    }
    if let Some(a) = answers.iter().find(|a| a.shows_form) {
        let which = if std::ptr::eq(a, first) {
            "the answer".to_string()
        } else {
            format!("the page it redirected to ({})", a.url)
        };
        let mut advice = fields_advice();
        // A page that carries a login form for everyone (a hidden "session expired" pop-up in the layout)
        // hides a login that set its cookie: the cookie is the sign to ask for (xt44b F13).
        if let Some(name) = changed.first() {
            advice.push(format!(
                "or, if the site shows a login form on every page (a hidden re-login pop-up), set \
                 success = {{ cookie = \"{name}\" }} (the login set cookie {})",
                quoted(changed)
            ));
        }
        return Outcome::failed(
            Verdict::Failed,
            format!("{which} shows the login form again (a password input)"),
            advice,
        );
    }
    if changed.is_empty() {
        return Outcome::failed(
            Verdict::Failed,
            "the login set no cookie",
            vec![
                "a site that keeps a login in a cookie sets one when the login works; if this one shows it \
                 otherwise, set success = { text = \"…\" } (what a logged-in page says) or \
                 { redirect_to = \"URL\" }"
                    .to_string(),
            ],
        );
    }
    let shown = if answers.len() > 1 {
        format!("the page it led to ({}) shows no login form", last.url)
    } else {
        "its answer shows no login form".to_string()
    };
    Outcome {
        verdict: Verdict::Ok,
        sign: format!("the login set cookie {} and {shown}", quoted(changed)),
        advice: Vec::new(),
    }
}

fn quoted(names: &[String]) -> String {
    quoted_str(&names.iter().map(String::as_str).collect::<Vec<_>>())
}

fn quoted_str(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether a page from `url` shows its session lost: by the credential's `logged_out` sign when it has one;
/// else when it redirects to the login page (`login`, any query), or to another sign-in page that is to send
/// the visitor back to it ([`redirects_to_sign_in`]), or shows the login form (`signature`).
pub fn shows_logged_out(
    spec: &CredentialSpec,
    login: &Url,
    signature: &FormSignature,
    url: &Url,
    status: u16,
    headers: &http::HeaderMap,
    body: &[u8],
) -> bool {
    // Read lossily: a byte past ASCII late in a Location must not hide where it points.
    let location = headers
        .get(LOCATION)
        .map(|v| String::from_utf8_lossy(v.as_bytes()));
    let location = location.as_deref();
    if let Some(sign) = &spec.logged_out {
        // A redirect to the login page shows it whatever the sign: with a text sign, the login page it
        // leads to is never one, so nothing else would (xt17c F2: every page after the session's end was
        // archived as the redirect, silently).
        if redirects_to_login(login, url, status, location) {
            return true;
        }
        let body = decoded_body(headers, body);
        let content_type = content_type(headers);
        return match sign {
            LoggedOut::Text(_) => {
                sign_shows(sign, url, status, location, &body, content_type.as_deref())
            }
            LoggedOut::RedirectTo(_) => sign_shows(sign, url, status, location, b"", None),
        };
    }
    // Where the form posts counts when it is another place than the login page: at the same place (a front
    // controller) it says nothing more, and its query is not kept.
    let action_elsewhere = !same_place(&signature.action, login);
    if redirects_to_login(login, url, status, location)
        || (action_elsewhere && redirects_to_login(&signature.action, url, status, location))
        || redirects_to_sign_in(url, status, location)
    {
        return true;
    }
    // A 401 or 403 carrying the login form is how many applications say "sign in" (Spring's form entry
    // point, Drupal's access-denied page with its login block; xt17a F3).
    ((200..300).contains(&status) || status == 401 || status == 403)
        && signature.shown_in(&page_forms(url, headers, body, spec.form.as_deref()))
}

/// Whether a login response shows the `success` sign: the cookie set (in the jar now), a redirect to the
/// prefix, or the text in its body (served as `content_type`).
pub fn login_worked(
    success: &LoginSuccess,
    login_url: &Url,
    status: u16,
    location: Option<&str>,
    body: &[u8],
    content_type: Option<&str>,
    has_cookie: impl Fn(&str) -> bool,
) -> bool {
    match success {
        LoginSuccess::Cookie(name) => has_cookie(name),
        LoginSuccess::RedirectTo(prefix) => {
            (300..400).contains(&status) && redirects_to(login_url, location, prefix)
        }
        LoginSuccess::Text(text) => shows(body, content_type, login_url, text),
    }
}

/// Whether a page shows the `logged_out` sign (its body served as `content_type`).
pub fn sign_shows(
    sign: &LoggedOut,
    url: &Url,
    status: u16,
    location: Option<&str>,
    body: &[u8],
    content_type: Option<&str>,
) -> bool {
    match sign {
        LoggedOut::Text(text) => shows(body, content_type, url, text),
        LoggedOut::RedirectTo(prefix) => {
            (300..400).contains(&status) && redirects_to(url, location, prefix)
        }
    }
}

/// Whether `location`, read from `from`, starts with `prefix`: a whole URL, or a path as a `Location` gives
/// it (`/members/`), read from `from` too (xt10a F7: a path never matched).
fn redirects_to(from: &Url, location: Option<&str>, prefix: &str) -> bool {
    let prefix = from
        .join(prefix)
        .map_or_else(|_| prefix.to_owned(), String::from);
    location
        .and_then(|l| from.join(l).ok())
        .is_some_and(|to| to.as_str().starts_with(&prefix))
}

/// Whether `text` shows in the page `body`: as its UTF-8 bytes (most pages), else as a reader sees the page
/// ([`trawl_extract::page_text::shows_text`]: its own encoding, character references, no-break spaces).
/// Read through only for a page of text (HTML, XML, plain text; or untyped), its first [`SIGN_READ_MAX`] bytes.
fn shows(body: &[u8], content_type: Option<&str>, url: &Url, text: &str) -> bool {
    let textual = content_type.is_none_or(|t| {
        let t = t.to_ascii_lowercase();
        t.starts_with("text/") || t.contains("html") || t.contains("xml")
    });
    !text.is_empty()
        && (memchr::memmem::find(body, text.as_bytes()).is_some()
            || (textual
                && trawl_extract::page_text::shows_text(
                    &body[..body.len().min(SIGN_READ_MAX)],
                    content_type,
                    url,
                    text,
                )))
}

/// How much of a page a text sign is read through in (a sign shows near the top of a page).
const SIGN_READ_MAX: usize = 4 << 20;

/// The outcome of a login the site limits (429, 503): it says nothing of the credential (xt10a F5).
fn limited(status: u16) -> Outcome {
    Outcome::failed(
        Verdict::Failed,
        format!("the answer was {status} (the site limits logins)"),
        vec![
            "wait as its Retry-After says and try again: the user name and password may be right; a crawl \
             waits for it itself, and logs in more slowly with a larger [frontier] min_delay_ms"
                .to_string(),
        ],
    )
}

#[cfg(test)]
mod tests;
