//! A form login as a browser makes it: the login page read first (with the jar's cookies; its redirects
//! followed within the credential's hosts), its form picked (the credential's `form` selector or
//! `password_field`, or the one with a password input) and submitted to its action with
//! its method and encoding — the page's hidden fields and default values, then `fields`, then the password
//! — with the cookies the page set and the `Referer` and `Origin` a browser sends; then the redirects of
//! the answer followed, as far as [`MAX_LOGIN_REDIRECTS`]. The answer is judged by
//! [`trawl_fetch::access::form::judge`].
//!
//! One [`attempt`] serves the crawl (the login stage, `chain/login.rs`, archives its exchanges) and
//! `trawl login` (which prints them). What a browser is needed for — a form built by JavaScript, a
//! CAPTCHA — is said, with the way out, and nothing is sent. The password never goes to a server whose TLS
//! certificate failed validation (unless the credential sets `allow_invalid_certificate`), nor back over
//! plain `http` once the login went over `https`.

use http::header::{COOKIE, LOCATION, ORIGIN, REFERER};
use trawl_config::settings::{CredentialSpec, FetchConfig};
use trawl_extract::form::{Form, Forms, read_forms};
use trawl_fetch::{
    FetchError, Fetched, Fetcher, RequestParts,
    access::{
        Access,
        form::{
            self as login_form, Answer, FormSignature, Outcome, Secret, Submission, USE_A_BROWSER,
            Verdict, content_type, cookies_changed, decoded_body, is_html,
        },
    },
};
use url::Url;

/// Redirects of a login's answer followed, at most.
pub const MAX_LOGIN_REDIRECTS: usize = 5;

/// What an exchange of a login was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The login page, read for its form.
    Page,
    /// The form submitted.
    Submit,
    /// A redirect of the answer, followed.
    Redirect,
}

/// One exchange of a login.
#[derive(Debug)]
pub struct Exchange {
    /// What it was.
    pub step: Step,
    /// `GET` or `POST`.
    pub method: &'static str,
    /// Its URL.
    pub url: Url,
    /// What came back.
    pub fetched: Fetched,
}

/// What one login did and how it came out.
#[derive(Debug)]
pub struct Attempt {
    /// The login page.
    pub login_url: Url,
    /// The page the form was read from: `login_url`, or where its redirects led.
    pub page_url: Url,
    /// The exchanges, in order.
    pub exchanges: Vec<Exchange>,
    /// How many forms the login page has.
    pub forms_on_page: usize,
    /// The form picked: its `id`, and its position among the page's forms (from 1).
    pub form: Option<(Option<String>, usize)>,
    /// What was (or would have been) submitted.
    pub submission: Option<Submission>,
    /// The verdict, the sign that decided it, and what to change.
    pub outcome: Outcome,
    /// The login form, for telling a page that shows it again.
    pub signature: FormSignature,
    /// What else is worth knowing (a redirect not followed, a CAPTCHA script on the page).
    pub notes: Vec<String>,
    /// A redirect of the login's answer to a host the credential is not for: left to the crawl, which fetches
    /// it as a redirect of the page the login was for, if its scope and that host's robots.txt let it.
    pub left_to_crawl: Option<Url>,
}

impl Attempt {
    /// Whether the login worked.
    pub fn ok(&self) -> bool {
        self.outcome.ok()
    }
}

/// What a login is made with.
#[derive(Clone, Copy)]
pub struct Client<'a> {
    /// The fetcher.
    pub fetcher: &'a Fetcher,
    /// The cookie jars and the passwords.
    pub access: &'a Access,
    /// The jar to use.
    pub jar: &'a str,
    /// The fetch settings (timeouts, user agent, headers, proxy).
    pub settings: &'a FetchConfig,
    /// Whether a URL must not be fetched while logged in (the login guard): a redirect to one is not
    /// followed.
    pub refuses: &'a (dyn Fn(&Url) -> bool + Send + Sync),
    /// How long the login waits before each of its requests, as the host's politeness asks (the crawl's
    /// `frontier.min_delay_ms`, at most [`MAX_SPACING`]; none for `trawl login`).
    pub spacing: std::time::Duration,
    /// The crawl's stop: a wait ends when it is asked for.
    pub stop: Option<&'a crate::CrawlHandle>,
}

/// The longest wait between a login's requests: a crawl being stopped waits for it.
pub const MAX_SPACING: std::time::Duration = std::time::Duration::from_secs(10);

/// Waits the client's spacing before a login's next request (xt44b F8: a login's requests reached the host
/// back to back, whatever its politeness delay).
pub async fn space(c: &Client<'_>) {
    let until = tokio::time::Instant::now() + c.spacing.min(MAX_SPACING);
    while tokio::time::Instant::now() < until {
        if c.stop.is_some_and(crate::CrawlHandle::is_stopped) {
            return;
        }
        let slice = tokio::time::Instant::now() + std::time::Duration::from_millis(250);
        tokio::time::sleep_until(until.min(slice)).await;
    }
}

impl std::fmt::Debug for Client<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("jar", &self.jar)
            .finish_non_exhaustive()
    }
}

/// Logs in with form credential `spec`, once.
pub async fn attempt(c: &Client<'_>, spec: &CredentialSpec) -> Attempt {
    let login_url = spec
        .login_url
        .as_deref()
        .and_then(|u| trawl_url::parse_lenient(u).ok())
        .unwrap_or_else(|| Url::parse("http://login-url.invalid/").expect("a valid URL"));
    let mut attempt = Attempt {
        signature: FormSignature::of_url(&login_url),
        page_url: login_url.clone(),
        login_url: login_url.clone(),
        exchanges: Vec::new(),
        forms_on_page: 0,
        form: None,
        submission: None,
        outcome: Outcome::failed(Verdict::Failed, "not tried", Vec::new()),
        notes: Vec::new(),
        left_to_crawl: None,
    };
    // Without cookies no session outlives the login: nothing is sent, and the cause is named (xt18a F5: the
    // password was posted three times and blamed).
    if !c.access.cookies.enabled() {
        attempt.outcome = Outcome::failed(
            Verdict::Failed,
            "[fetch] cookies = \"off\": a form login's session is a cookie, so it cannot work; nothing was sent",
            vec!["set [fetch] cookies = \"job\" (the default) for a crawl that logs in".into()],
        );
        return attempt;
    }
    let Some((page_status, forms)) = read_page(c, spec, &mut attempt).await else {
        return attempt;
    };
    // A member page given as login_url (the address an operator copies after being sent to sign in) works,
    // but the crawl's own capture of it is the sign-in redirect whenever the session is lost (xt18a F9).
    if !login_form::sign_in_address(attempt.login_url.path())
        && login_form::sign_in_address(attempt.page_url.path())
    {
        attempt.notes.push(format!(
            "login_url redirects to the sign-in page {}: point login_url there (the page it names is then \
             crawled as any member page)",
            login_form::without_query(&attempt.page_url)
        ));
    }
    // A login page answered 429 or 503 is the site saying "later", as a limited post is: nothing is posted,
    // and the crawl's login stage waits and tries again (xt13a F3: the password was posted at once).
    if matches!(page_status, 429 | 503) {
        attempt.outcome = Outcome::failed(
            Verdict::Failed,
            format!("the login page answered {page_status} (the site limits logins)"),
            Vec::new(),
        );
        return attempt;
    }
    attempt.forms_on_page = forms.forms.len();
    let password = c.access.password(spec);
    let named: Vec<&str> = spec.fields.keys().map(String::as_str).collect();
    let chosen = forms.login_form_with(spec.form.is_some(), spec.password_field.as_deref(), &named);
    let submission = match chosen {
        Some(form) => {
            attempt.form = Some((
                form.id.clone(),
                forms
                    .forms
                    .iter()
                    .position(|f| std::ptr::eq(f, form))
                    .map_or(0, |i| i + 1),
            ));
            attempt.signature = FormSignature::of(form);
            let submission = Submission::from_form(form, spec, password);
            if let Some(refusal) = refuse_to_send(form, spec, &attempt.page_url) {
                attempt.submission = Some(submission);
                attempt.outcome = refusal;
                return attempt;
            }
            submission
        }
        None => match no_form(spec, &forms, page_status) {
            // An endpoint written for logins, with its own success sign: posted to as configured.
            None => {
                attempt.notes.push(
                    "the login page has no form with a password input: `fields` and the password are posted \
                     to login_url as configured"
                        .into(),
                );
                Submission::without_form(&login_url, spec, password)
            }
            Some(outcome) => {
                attempt.outcome = outcome;
                return attempt;
            }
        },
    };
    submit(c, spec, &mut attempt, &submission).await;
    if !attempt.ok() && attempt.outcome.verdict != Verdict::Untrusted {
        if let Some(what) = &forms.captcha {
            attempt.outcome.advice.push(format!(
                "the login page loads {what}: if the site asks a browser to pass a CAPTCHA, {USE_A_BROWSER}"
            ));
        }
        if !submission.from_form {
            attempt.outcome.advice.push(format!(
                "the login page has no form with a password input; if a browser shows one, JavaScript builds \
                 it: {USE_A_BROWSER}"
            ));
        }
    }
    attempt.submission = Some(submission);
    attempt
}

/// Fetches `page` once more with the jar's cookies (a GET, no redirect followed): whether it still shows the
/// session alive tells a page the account may not enter from a session the site ended.
pub async fn check(c: &Client<'_>, page: &Url) -> Fetched {
    space(c).await;
    request(c, page, None, None, false).await
}

/// Fetches `page` as anyone would (a GET, no cookie sent, none kept, no redirect followed): a page that
/// shows the session alive with the jar's cookies and lost without them is behind the login.
pub async fn check_as_anyone(c: &Client<'_>, page: &Url) -> Fetched {
    space(c).await;
    // Nor a cookie the operator's `fetch.headers` would add (review 86 R1).
    let mut settings = c.settings.clone();
    settings
        .headers
        .retain(|name, _| !name.eq_ignore_ascii_case("cookie"));
    c.fetcher
        .fetch(
            page,
            settings.max_bytes,
            &settings,
            &RequestParts::default(),
        )
        .await
}

/// Reads the login page, following its redirects (each a GET, as a browser does) within the hosts the
/// credential covers, at most [`MAX_LOGIN_REDIRECTS`]: the final page's status and forms (its URL in
/// `attempt.page_url`), or `None` with the outcome set.
async fn read_page(
    c: &Client<'_>,
    spec: &CredentialSpec,
    attempt: &mut Attempt,
) -> Option<(u16, Forms)> {
    let mut url = attempt.login_url.clone();
    for hop in 0..=MAX_LOGIN_REDIRECTS {
        // The login page too: the page that needed the login (or a `login:check`) came just before it.
        space(c).await;
        let page = request(c, &url, None, None, false).await;
        let read = match &page.result {
            Ok(resp) => {
                let target = redirect_target(&url, resp);
                let forms = if target.is_none() && is_html(&resp.headers) {
                    let body = decoded_body(&resp.headers, &resp.body);
                    let content_type = content_type(&resp.headers);
                    read_forms(&body, content_type.as_deref(), &url, spec.form.as_deref())
                } else {
                    Forms::default()
                };
                Ok((resp.status, target, forms, resp.invalid_cert.clone()))
            }
            Err(e) => Err(e.to_string()),
        };
        attempt.exchanges.push(Exchange {
            step: Step::Page,
            method: "GET",
            url: url.clone(),
            fetched: page,
        });
        attempt.page_url = url.clone();
        let (status, target, forms, invalid_cert) = match read {
            Ok(read) => read,
            Err(e) => {
                attempt.outcome = Outcome::failed(
                    Verdict::Failed,
                    format!("the login page could not be fetched: {e}"),
                    vec!["check login_url, and that the site answers from here".into()],
                );
                return None;
            }
        };
        let Some(target) = target else {
            if let Some(reason) = invalid_cert
                && !spec.allow_invalid_certificate
            {
                attempt.outcome = untrusted(&url, &reason);
                return None;
            }
            return Some((status, forms));
        };
        let refused = if hop == MAX_LOGIN_REDIRECTS {
            Some((
                format!("the login page redirected more than {MAX_LOGIN_REDIRECTS} times"),
                format!(
                    "point login_url at the page that shows the login form (the last redirect led to {target})"
                ),
            ))
        } else if !spec.applies_to(&target) {
            Some((
                format!(
                    "the login page redirects to {target}, which the credential does not cover"
                ),
                "point login_url there (and cover its host with the credential's domain or surt_prefix if it \
                     is the site's own: a credential is only ever sent to its hosts)"
                    .to_string(),
            ))
        } else if (c.refuses)(&target) {
            Some((
                format!("the login page redirects to {target}, which the login guard refuses"),
                "point login_url at the page that shows the login form".to_string(),
            ))
        } else {
            None
        };
        if let Some((sign, advice)) = refused {
            attempt.outcome = Outcome::failed(Verdict::Failed, sign, vec![advice]);
            return None;
        }
        url = target;
    }
    None
}

/// Where a response from `url` redirects to (a 301, 302, 303, 307 or 308 with an `http(s)` `Location`),
/// without its fragment.
fn redirect_target(url: &Url, resp: &trawl_fetch::Response) -> Option<Url> {
    if !matches!(resp.status, 301 | 302 | 303 | 307 | 308) {
        return None;
    }
    let mut target = resp
        .headers
        .get(LOCATION)
        .and_then(|v| url.join(&trawl_url::href_text(v.as_bytes())).ok())
        .filter(|u| matches!(u.scheme(), "http" | "https"))?;
    target.set_fragment(None);
    Some(target)
}

/// The outcome of a login whose password was not sent: `url`'s TLS certificate failed validation.
fn untrusted(url: &Url, reason: &str) -> Outcome {
    Outcome::failed(
        Verdict::Untrusted,
        format!(
            "the TLS certificate of {} failed validation ({reason}), so the password was not sent",
            url.origin().ascii_serialization()
        ),
        vec![
            "anyone able to intercept the connection (the reason a certificate fails) would get the password; if \
             the server is yours and its certificate is self-signed, set allow_invalid_certificate = true on the \
             credential"
                .into(),
        ],
    )
}

/// Why `form` (read from `page`) is not sent, if it must not be: a CAPTCHA in it, the password in a URL, the
/// password going to a host the credential is not for, or over plain `http` from an `https` page.
fn refuse_to_send(form: &Form, spec: &CredentialSpec, page: &Url) -> Option<Outcome> {
    if let Some(what) = &form.captcha {
        return Some(Outcome::failed(
            Verdict::Captcha,
            format!(
                "the login form has a CAPTCHA ({what}): trawl does not answer CAPTCHAs, so it was not submitted"
            ),
            vec![USE_A_BROWSER.into()],
        ));
    }
    if form.submit_method() == "dialog" {
        return Some(Outcome::failed(
            Verdict::Failed,
            "the login form is sent with method=dialog, which closes a dialog and sends nothing to the server: \
             its login is made by JavaScript"
                .to_string(),
            vec![USE_A_BROWSER.into()],
        ));
    }
    if form.submit_method() != "post" {
        return Some(Outcome::failed(
            Verdict::Failed,
            format!(
                "the login form is sent with method={}: the password would go into the URL, which crawl.log and \
                 the archive's indexes keep, so trawl does not send it",
                form.submit_method()
            ),
            vec![
                "a login form without method=\"post\" is usually sent by JavaScript".into(),
                USE_A_BROWSER.into(),
            ],
        ));
    }
    if !spec.applies_to(form.submit_action()) {
        return Some(Outcome::failed(
            Verdict::Failed,
            format!(
                "the login form sends the password to {}, a host this credential is not for",
                form.submit_action()
            ),
            vec![format!(
                "if {} is the site's own, cover it with the credential's surt_prefix (a credential is only ever \
                 sent to its hosts)",
                form.submit_action().host_str().unwrap_or_default()
            )],
        ));
    }
    if page.scheme() == "https" && form.submit_action().scheme() == "http" {
        return Some(Outcome::failed(
            Verdict::Failed,
            format!(
                "the login form of an https page sends the password over plain http, to {}",
                form.submit_action()
            ),
            vec!["point login_url at the https page whose form posts over https".into()],
        ));
    }
    None
}

/// What a login page without the form means: `None` when `fields` and the password go to login_url as
/// configured (a `success` sign says how it shows), else the failure to report.
fn no_form(spec: &CredentialSpec, forms: &Forms, status: u16) -> Option<Outcome> {
    if let Some(field) = &spec.password_field {
        let candidates: Vec<(usize, &Form)> = forms
            .forms
            .iter()
            .enumerate()
            .filter(|(_, f)| spec.form.is_none() || f.selected)
            .collect();
        // An endpoint written for logins (a `success` sign, no password input on the page) is posted to below.
        let endpoint = spec.success.is_some() && !candidates.iter().any(|(_, f)| f.has_password());
        if !candidates.is_empty() && !endpoint {
            let sign = match &spec.form {
                Some(selector) => format!(
                    "the form picked by form = {selector:?} has no field named `{field}` (password_field)"
                ),
                None => format!(
                    "no form of the login page has a field named `{field}` (password_field)"
                ),
            };
            let fields: Vec<String> = candidates
                .iter()
                .map(|(i, f)| {
                    let names = f.control_names();
                    format!(
                        "form {} (to {}): {}",
                        i + 1,
                        f.submit_action(),
                        if names.is_empty() {
                            "no named field".to_string()
                        } else {
                            names.join(", ")
                        }
                    )
                })
                .collect();
            return Some(Outcome::failed(
                Verdict::Failed,
                sign,
                vec![format!(
                    "set password_field to the form's password input; the fields: {}",
                    fields.join("; ")
                )],
            ));
        }
    }
    if let Some(selector) = &spec.form {
        let found: Vec<String> = forms
            .forms
            .iter()
            .map(|f| match &f.id {
                Some(id) => format!("#{id} (to {})", f.submit_action()),
                None => format!("a form to {}", f.submit_action()),
            })
            .collect();
        return Some(Outcome::failed(
            Verdict::Failed,
            format!("no form of the login page matches form = {selector:?}"),
            vec![if found.is_empty() {
                format!("the page has no form at all; {USE_A_BROWSER}")
            } else {
                format!("fix `form`; the page's forms: {}", found.join(", "))
            }],
        ));
    }
    // Only a sign-up form takes a password here: nothing is posted to it (xt44b F10).
    if let Some((i, f)) = forms
        .forms
        .iter()
        .enumerate()
        .find(|(_, f)| f.new_password && f.current_password.is_none())
    {
        return Some(Outcome::failed(
            Verdict::Failed,
            format!(
                "the login page's form with a password input is a sign-up form (form {}, to {}: its password \
                 input is marked autocomplete=\"new-password\"); nothing was sent",
                i + 1,
                f.submit_action()
            ),
            vec![
                "point login_url at the page with the login form, or pick the form with `form = \"…\"`".into(),
            ],
        ));
    }
    if spec.success.is_some() {
        return None;
    }
    if status >= 400 {
        return Some(Outcome::failed(
            Verdict::Failed,
            format!("the login page answered {status}, with no login form"),
            vec!["check login_url: it is the page a browser shows the login form on".into()],
        ));
    }
    let mut sign = "the login page has no form with a password input".to_string();
    if forms.loose_password_inputs > 0 {
        sign.push_str(" (it has a password input outside any form)");
    }
    if forms.scripts > 0 {
        sign.push_str(&format!(
            "; with {} script{}, it is most likely built by JavaScript, which trawl does not run",
            forms.scripts,
            if forms.scripts == 1 { "" } else { "s" }
        ));
    }
    Some(Outcome::failed(
        Verdict::Javascript,
        sign,
        vec![
            USE_A_BROWSER.into(),
            "or, if login_url is not the page with the form, point it there".into(),
        ],
    ))
}

/// Sends `submission`, follows the redirects of its answer and judges how it came out.
async fn submit(
    c: &Client<'_>,
    spec: &CredentialSpec,
    attempt: &mut Attempt,
    submission: &Submission,
) {
    let action = submission.action.clone();
    let before = c.access.cookies.values(c.jar, &action);
    let (body, content_type) = submission.body();
    let origin = attempt.page_url.origin().ascii_serialization();
    let referer = attempt.page_url.clone();
    let secret = !spec.allow_invalid_certificate;
    space(c).await;
    let fetched = request(
        c,
        &action,
        Some((&body, &content_type, &origin)),
        Some(&referer),
        secret,
    )
    .await;
    if let Err(FetchError::Untrusted(reason)) = &fetched.result {
        attempt.outcome = untrusted(&action, reason);
        return;
    }
    let failed = fetched.result.as_ref().err().map(ToString::to_string);
    attempt.exchanges.push(Exchange {
        step: Step::Submit,
        method: "POST",
        url: action.clone(),
        fetched,
    });
    if let Some(e) = failed {
        attempt.outcome = Outcome::failed(
            Verdict::Failed,
            format!("the form could not be sent: {e}"),
            Vec::new(),
        );
        return;
    }
    let secret = Secret::new(c.access.password(spec), Some(submission.charset));
    let post = (body.as_slice(), content_type.as_str(), origin.as_str());
    follow(c, spec, attempt, post, &referer, &secret).await;
    // The answers: the submission's, then each redirect's.
    let first = attempt
        .exchanges
        .iter()
        .position(|e| e.step == Step::Submit)
        .unwrap_or(0);
    let mut changed: Vec<String> = Vec::new();
    let mut bodies = Vec::new();
    for e in &attempt.exchanges[first..] {
        if let Ok(resp) = &e.fetched.result {
            let values = resp
                .headers
                .get_all(http::header::SET_COOKIE)
                .iter()
                .filter_map(|v| v.to_str().ok());
            for name in cookies_changed(&before, values) {
                if !changed.contains(&name) {
                    changed.push(name);
                }
            }
            let redirect = (300..400).contains(&resp.status);
            let shows_form = !redirect
                && attempt.signature.shown_in(&login_form::page_forms(
                    &e.url,
                    &resp.headers,
                    &resp.body,
                    spec.form.as_deref(),
                ));
            let body = decoded_body(&resp.headers, &resp.body);
            bodies.push((
                e,
                resp,
                body,
                login_form::content_type(&resp.headers),
                shows_form,
            ));
        }
    }
    // A Location's bytes past ASCII as the redirect is followed (`href_text`), not dropped with the field.
    let locations: Vec<Option<String>> = bodies
        .iter()
        .map(|(_, resp, ..)| {
            let value = resp.headers.get(LOCATION)?;
            Some(trawl_url::href_text(value.as_bytes()).into_owned())
        })
        .collect();
    let answers: Vec<Answer<'_>> = bodies
        .iter()
        .zip(&locations)
        .map(|((e, resp, body, ctype, shows_form), location)| Answer {
            url: &e.url,
            status: resp.status,
            location: location.as_deref(),
            body,
            content_type: ctype.as_deref(),
            shows_form: *shows_form,
        })
        .collect();
    let login_url = attempt.login_url.clone();
    attempt.outcome = login_form::judge(spec, submission, &answers, &changed, |name| {
        c.access.cookies.has(c.jar, &login_url, name) || c.access.cookies.has(c.jar, &action, name)
    });
}

/// Follows the redirects of the last answer, as a browser does: a 301, 302 or 303 as a GET, a 307 or 308
/// as the same POST (`post`: its body, content type and `Origin`; only to a host of the credential: it
/// carries the password), never to a URL holding the password (`secret`).
async fn follow(
    c: &Client<'_>,
    spec: &CredentialSpec,
    attempt: &mut Attempt,
    post: (&[u8], &str, &str),
    referer: &Url,
    secret: &Secret,
) {
    for _ in 0..MAX_LOGIN_REDIRECTS {
        let Some(last) = attempt.exchanges.last() else {
            return;
        };
        let Ok(resp) = &last.fetched.result else {
            return;
        };
        let Some(target) = redirect_target(&last.url, resp) else {
            return;
        };
        let status = resp.status;
        let from_https = last.url.scheme() == "https";
        if (c.refuses)(&target) {
            attempt.notes.push(format!(
                "the redirect to {target} was not followed: the login guard refuses it"
            ));
            return;
        }
        if secret.is_in(target.as_str()) {
            attempt.notes.push(format!(
                "the redirect to {} was not followed: its URL holds the password, which crawl.log and the \
                 archive's indexes would keep (the answer that redirects there is archived, as the login's \
                 request is)",
                secret.masked_in(target.as_str())
            ));
            return;
        }
        let again = matches!(status, 307 | 308);
        if again && !spec.applies_to(&target) {
            attempt.notes.push(format!(
                "the redirect to {target} was not followed: it would send the password again, to a host this \
                 credential is not for"
            ));
            return;
        }
        // A host the credential does not cover is left to the crawl, which asks its scope and robots.txt
        // (xt44b F11: a login's redirect to another host was fetched past both); the login is judged by
        // what came before.
        if !spec.applies_to(&target) {
            attempt.notes.push(format!(
                "the redirect to {target} was not followed: it leaves the hosts this credential is for (the \
                 crawl fetches it, if its scope and that host's robots.txt let it)"
            ));
            attempt.left_to_crawl = Some(target);
            return;
        }
        if again && from_https && target.scheme() == "http" {
            attempt.notes.push(format!(
                "the redirect to {target} was not followed: it would send the password again over plain http, \
                 the login having gone over https"
            ));
            return;
        }
        let form = again.then_some(post);
        let secret = again && !spec.allow_invalid_certificate;
        space(c).await;
        let fetched = request(c, &target, form, Some(referer), secret).await;
        if let Err(FetchError::Untrusted(reason)) = &fetched.result {
            attempt.notes.push(format!(
                "the redirect to {target} was not followed: its TLS certificate failed validation ({reason}), so \
                 the password was not sent again"
            ));
            return;
        }
        attempt.exchanges.push(Exchange {
            step: Step::Redirect,
            method: if again { "POST" } else { "GET" },
            url: target,
            fetched,
        });
    }
    if attempt
        .exchanges
        .last()
        .and_then(|e| e.fetched.result.as_ref().ok())
        .is_some_and(|r| (300..400).contains(&r.status))
    {
        attempt.notes.push(format!(
            "the login's answer redirected more than {MAX_LOGIN_REDIRECTS} times; the rest was not followed"
        ));
    }
}

/// One request of a login with the jar's cookies (left out over a connection whose certificate failed
/// validation where a credential guards them: [`trawl_fetch::access::Access::cookie_guard`]; the cookies it
/// sets kept): a GET, or a POST of `form` (body, content type, `Origin`); `referer` sent when given;
/// `secret`: it carries the password, not sent where the TLS certificate failed validation.
async fn request(
    c: &Client<'_>,
    url: &Url,
    form: Option<(&[u8], &str, &str)>,
    referer: Option<&Url>,
    secret: bool,
) -> Fetched {
    let mut parts = RequestParts {
        form: form.map(|(body, _, _)| body.to_vec()),
        form_type: form.map(|(_, t, _)| t),
        secret,
        ..RequestParts::default()
    };
    if let Some(cookies) = c.access.cookies.header(c.jar, url)
        && let Ok(value) = http::HeaderValue::from_str(&cookies)
    {
        parts.headers.push((COOKIE, value));
        // Kept off a connection whose certificate failed validation, as the crawl's pages' are.
        if c.access.cookie_guard(url).is_some() {
            parts.guarded.push(COOKIE);
        }
    }
    if let Some(r) = referer
        && let Ok(value) = http::HeaderValue::from_str(r.as_str())
    {
        parts.headers.push((REFERER, value));
    }
    if let Some((_, _, origin)) = form
        && let Ok(value) = http::HeaderValue::from_str(origin)
    {
        parts.headers.push((ORIGIN, value));
    }
    let fetched = c
        .fetcher
        .fetch(url, c.settings.max_bytes, c.settings, &parts)
        .await;
    if let Ok(resp) = &fetched.result {
        let values = resp
            .headers
            .get_all(http::header::SET_COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok());
        c.access.cookies.store(c.jar, url, values);
    }
    fetched
}
