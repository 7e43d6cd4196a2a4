//! `trawl login crawl.toml [--credential N]`: tries each form login of a config once against the live site,
//! as a crawl would make it (`trawl_engine::login`), and prints what happened — the login page, the form
//! found (action, method, encoding, every field with where its value came from; the password masked), the
//! answer and the redirects followed (status, `Location`, cookies set by name), the verdict with the sign
//! that decided it, and what to change. Nothing is archived and no job is written. Exit status 0 when every
//! login tried worked, 1 otherwise.

use std::{path::Path, process::ExitCode};

use anyhow::{Context, bail};
use trawl_config::{
    CrawlConfig,
    settings::{
        CredentialKind,
        access::{is_local, user_agent_has_contact},
    },
};
use trawl_engine::login::{self, Attempt, Step};
use trawl_fetch::{
    AddressPolicy, Fetcher,
    access::{
        Access,
        form::{Verdict, cookie_changes},
    },
};

pub(crate) fn login(config_path: &Path, only: Option<usize>) -> anyhow::Result<ExitCode> {
    let config = CrawlConfig::load(config_path)?;
    let forms: Vec<usize> = config
        .credentials
        .iter()
        .enumerate()
        .filter(|(_, c)| c.kind == CredentialKind::Form)
        .map(|(i, _)| i)
        .collect();
    let chosen: Vec<usize> = match only {
        Some(n) if n >= config.credentials.len() => bail!(
            "--credential {n}: {} has {} [[credentials]] entries (counted from 0)",
            config_path.display(),
            config.credentials.len()
        ),
        Some(n) if !forms.contains(&n) => bail!(
            "--credential {n}: credentials[{n}] is not a form login (kind = \"form\"); `trawl login` tries form \
             logins only"
        ),
        Some(n) => vec![n],
        None if forms.is_empty() => bail!(
            "{} has no form login ([[credentials]] with kind = \"form\")",
            config_path.display()
        ),
        None => forms,
    };
    let urls: Vec<url::Url> = chosen
        .iter()
        .filter_map(|&i| config.credentials[i].login_url.as_deref())
        .filter_map(|u| trawl_url::parse_lenient(u).ok())
        .collect();
    // As `trawl crawl`: nothing beyond this machine without a way for webmasters to reach the operator.
    if !user_agent_has_contact(&config.fetch.user_agent) && !urls.iter().all(is_local) {
        bail!(
            "fetch.user_agent {:?} names no contact; set [fetch] user_agent to one with a URL or e-mail address \
             webmasters can reach you at, e.g. \"mybot/1.0 (+https://example.org/bot)\"",
            config.fetch.user_agent
        );
    }
    let base = config_path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let access = Access::new(&config, base, None)
        .with_context(|| format!("reading the credentials of {}", config_path.display()))?;
    let policy = AddressPolicy::new(
        config.fetch.allow_addresses.clone(),
        urls.iter().filter_map(|u| u.host_str().map(str::to_string)),
    );
    let fetcher = Fetcher::new(config.fetch.clone(), policy);
    let guard = trawl_config::login_guard(&config);
    let refuses = move |u: &url::Url| guard.as_ref().is_some_and(|g| g.refuses(u).is_some());
    let runtime = super::runtime()?;
    let mut all_ok = true;
    for (n, &i) in chosen.iter().enumerate() {
        let spec = &config.credentials[i];
        // Each login starts from the jar as a crawl's would (the cookies file's cookies, if any).
        let jar = format!("login-{i}");
        let client = login::Client {
            fetcher: &fetcher,
            access: &access,
            jar: &jar,
            settings: &config.fetch,
            refuses: &refuses,
            spacing: std::time::Duration::ZERO,
            stop: None,
        };
        let attempt = runtime.block_on(login::attempt(&client, spec));
        if n > 0 {
            println!();
        }
        // The password never shows, whatever the site put it in (a redirect's `Location`, xt18a F2).
        let charset = attempt.submission.as_ref().map(|s| s.charset);
        let secret = trawl_fetch::access::form::Secret::new(access.password(spec), charset);
        print!("{}", secret.masked_in(&report(i, spec, &attempt)));
        all_ok &= attempt.ok();
    }
    Ok(if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The report of one login, as printed.
fn report(index: usize, spec: &trawl_config::settings::CredentialSpec, a: &Attempt) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let host = spec
        .domain
        .clone()
        .or_else(|| spec.surt_prefix.clone())
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "credentials[{index}]: form login for {host} at {}",
        a.login_url
    );
    let row = |out: &mut String, label: &str, text: &str| {
        let _ = writeln!(out, "  {label:<13}{text}");
    };
    for e in &a.exchanges {
        let label = match e.step {
            Step::Page => "login page",
            Step::Submit => "answer",
            Step::Redirect => "redirect",
        };
        let text = match &e.fetched.result {
            Ok(resp) => {
                let mut t = format!("{} {} -> {}", e.method, e.url, resp.status);
                let types = resp.headers.get_all(http::header::CONTENT_TYPE);
                if let Some(mime) =
                    trawl_extract::field::content_type(types.iter().map(|v| v.as_bytes()))
                {
                    let _ = write!(t, " ({})", mime.split(';').next().unwrap_or("").trim());
                }
                if let Some(loc) = resp
                    .headers
                    .get(http::header::LOCATION)
                    .map(|v| String::from_utf8_lossy(v.as_bytes()))
                {
                    let _ = write!(t, ", Location: {loc}");
                }
                let (set, cleared) = cookie_changes(&resp.headers);
                if set.is_empty() {
                    t.push_str(", no cookie set");
                } else {
                    let _ = write!(t, ", cookies set: {}", set.join(", "));
                }
                if !cleared.is_empty() {
                    let _ = write!(t, ", cookies cleared: {}", cleared.join(", "));
                }
                if let Some(reason) = &resp.invalid_cert {
                    let _ = write!(t, "; its TLS certificate FAILED validation: {reason}");
                }
                t
            }
            Err(e2) => format!("{} {} -> failed: {e2}", e.method, e.url),
        };
        if e.step == Step::Submit
            && let Some(s) = &a.submission
        {
            form_rows(&mut out, spec, a, s);
        }
        row(&mut out, label, &text);
    }
    if a.submission.is_some() && !a.exchanges.iter().any(|e| e.step == Step::Submit) {
        // Found but not sent (a CAPTCHA, a GET form, another host): still shown.
        if let Some(s) = &a.submission {
            form_rows(&mut out, spec, a, s);
        }
    }
    for note in &a.notes {
        row(&mut out, "note", note);
    }
    let verdict = match a.outcome.verdict {
        Verdict::Ok => format!("logged in: {}", a.outcome.sign),
        Verdict::Failed => format!("FAILED: {}", a.outcome.sign),
        Verdict::Javascript => format!("FAILED, needs a browser: {}", a.outcome.sign),
        Verdict::Captcha => format!("FAILED, needs a browser: {}", a.outcome.sign),
        Verdict::Untrusted => format!("FAILED, not sent: {}", a.outcome.sign),
    };
    row(&mut out, "result", &verdict);
    if !a.outcome.advice.is_empty() {
        let _ = writeln!(out, "  what to change:");
        for advice in &a.outcome.advice {
            let _ = writeln!(out, "    - {advice}");
        }
    }
    out
}

fn form_rows(
    out: &mut String,
    spec: &trawl_config::settings::CredentialSpec,
    a: &Attempt,
    s: &trawl_fetch::access::form::Submission,
) {
    use std::fmt::Write;
    if s.from_form {
        let which = match &a.form {
            Some((Some(id), n)) => format!("#{id}, form {n} of {}", a.forms_on_page),
            Some((None, n)) => format!("form {n} of {}", a.forms_on_page),
            None => "a form".to_string(),
        };
        let how = match &spec.form {
            Some(sel) => format!("picked by form = {sel:?}"),
            None => "the one with a password input".to_string(),
        };
        let _ = writeln!(out, "  {:<13}{which} on the page ({how})", "form");
    } else {
        let _ = writeln!(
            out,
            "  {:<13}none on the page: `fields` and the password, as configured",
            "form"
        );
    }
    let sent = a.exchanges.iter().any(|e| e.step == Step::Submit);
    let _ = writeln!(
        out,
        "  {:<13}{} {} ({}{}){}",
        "",
        s.method.to_ascii_uppercase(),
        s.action,
        s.enctype.as_str(),
        if s.charset.name() == "UTF-8" {
            String::new()
        } else {
            format!(", in {}", s.charset.name())
        },
        if sent { "" } else { ", not sent" }
    );
    let width = s
        .entries
        .iter()
        .map(|e| e.name.len() + e.shown().len() + 3)
        .max()
        .unwrap_or(0)
        .min(60);
    for e in &s.entries {
        let field = format!("{} = {}", e.name, e.shown());
        let _ = writeln!(out, "    {field:<width$}  {}", e.origin());
    }
    if !s.not_sent.is_empty() {
        let _ = writeln!(out, "    not sent: {}", s.not_sent.join(", "));
    }
    if !s.missing.is_empty() {
        let _ = writeln!(
            out,
            "    not in the form (sent all the same): {}",
            s.missing.join(", ")
        );
    }
}
