//! Heritrix's `CredentialStore` as trawl `[[credentials]]` tables. A password is never written: each table
//! reads it from an environment variable named after the store's key, and a note says which to set.

use toml::{Table, Value as T};

use super::beans::{Bean, Beans, Value, text};
use super::profile::{Profile, RuleOut};
use super::props::{Props, scalar};

/// The credentials of the store `store` (a `CredentialStore` bean): its `credentials` map, each entry by value
/// or by reference, converted into `profile.credentials` or reported.
pub(crate) fn store(store: &Bean, beans: &Beans, profile: &mut Profile) {
    let subject = store.subject();
    let mut props = Props::new(store, subject.clone());
    if let Some(p) = props.take("credentials") {
        match &p.value {
            Value::Map(entries) => {
                for (key, value) in entries {
                    let entry = format!("{subject}.credentials[{key}]");
                    match beans.resolve(value) {
                        Some(b) => credential(key, b, &entry, profile),
                        None => profile.note(
                            value.line().unwrap_or(p.line),
                            entry,
                            "not a credential bean: left out",
                            Some("[[credentials]]"),
                        ),
                    }
                }
            }
            _ => profile.note(
                p.line,
                format!("{subject}.credentials"),
                "not a map of credentials: left out",
                Some("[[credentials]]"),
            ),
        }
    }
    props.note_rest(
        profile,
        "a CredentialStore property trawl has no counterpart of",
        None,
    );
}

/// Whether `b` is one of Heritrix's credential classes.
pub(crate) fn is_credential(b: &Bean) -> bool {
    matches!(
        b.short_class(),
        "HttpAuthenticationCredential" | "HtmlFormCredential"
    )
}

/// One credential of the store, under its map key `key`.
fn credential(key: &str, b: &Bean, entry: &str, profile: &mut Profile) {
    let mut props = Props::new(b, entry.to_owned());
    let Some(domain) = text_prop(&mut props, "domain", entry, profile) else {
        profile.note(
            b.line,
            entry,
            "a credential without a domain is sent nowhere: left out",
            Some("[[credentials]] domain"),
        );
        return;
    };
    let env = password_env(key);
    let from = format!("{entry} ({}, line {})", b.short_class(), b.line);
    let mut base = Table::new();
    base.insert("domain".into(), T::String(domain.clone()));
    match b.short_class() {
        "HttpAuthenticationCredential" => {
            if let Some(realm) = text_prop(&mut props, "realm", entry, profile) {
                base.insert("realm".into(), T::String(realm));
            }
            let user = text_prop(&mut props, "login", entry, profile).unwrap_or_default();
            base.insert("user".into(), T::String(user));
            let had_password = props.take("password").is_some();
            base.insert("password_env".into(), T::String(env.clone()));
            // Heritrix answered whichever scheme the server's 401 asked for; trawl answers the scheme a table names.
            for kind in ["basic", "digest"] {
                let mut table = base.clone();
                table.insert("kind".into(), T::String(kind.into()));
                profile.credentials.push(RuleOut {
                    table,
                    from: from.clone(),
                });
            }
            profile.note(
                b.line,
                entry,
                format!(
                    "written as two [[credentials]] tables, kind \"basic\" and \"digest\" (Heritrix answered either \
                     challenge). {}",
                    password_note(&env, had_password)
                ),
                Some("[[credentials]] password_env"),
            );
        }
        "HtmlFormCredential" => form(&mut props, base, &env, &from, b, entry, profile),
        _ => return,
    }
    props.note_rest(
        profile,
        "a credential property trawl has no counterpart of",
        Some("[[credentials]]"),
    );
}

/// An `HtmlFormCredential`: `loginUri` as the login page, `formItems` as the fields a person types, the item
/// that holds a password as `password_field`.
fn form(
    props: &mut Props,
    mut table: Table,
    env: &str,
    from: &str,
    b: &Bean,
    entry: &str,
    profile: &mut Profile,
) {
    let Some(login) = text_prop(props, "loginUri", entry, profile) else {
        profile.note(
            b.line,
            entry,
            "a form credential without a loginUri has no form to log in with: left out",
            Some("[[credentials]] login_url"),
        );
        return;
    };
    let domain = table
        .get("domain")
        .and_then(T::as_str)
        .unwrap_or_default()
        .to_owned();
    let login_url = if login.contains("://") {
        login
    } else {
        // Heritrix resolved a relative loginUri against the URI that needed it, on the credential's host.
        format!("http://{domain}/{}", login.trim_start_matches('/'))
    };
    let mut fields = Table::new();
    let mut password_field: Option<String> = None;
    let mut secret_items = Vec::new();
    if let Some(p) = props.take("formItems") {
        let items: Vec<(String, String)> = match &p.value {
            Value::Map(entries) => entries
                .iter()
                .map(|(k, v)| (k.clone(), text(v).unwrap_or_default().to_owned()))
                .collect(),
            Value::Props(entries) => entries
                .iter()
                .map(|(k, v, _)| (k.clone(), v.clone()))
                .collect(),
            _ => Vec::new(),
        };
        // The item most surely named as the password is the password field; every other secret is left out.
        let best = items
            .iter()
            .map(|(name, _)| password_rank(name))
            .max()
            .unwrap_or(0);
        for (name, value) in items {
            if best > 0 && password_field.is_none() && password_rank(&name) == best {
                password_field = Some(name);
            } else if is_secret_name(&name) || password_rank(&name) > 0 {
                secret_items.push(name);
            } else {
                fields.insert(name, T::String(value));
            }
        }
    }
    let Some(password_field) = password_field else {
        profile.note(
            b.line,
            entry,
            "no form item is named as a password (pass, pwd, secret): left out, so that no password is \
             written; write its [[credentials]] table by hand",
            Some("[[credentials]] password_field"),
        );
        return;
    };
    table.insert("kind".into(), T::String("form".into()));
    table.insert("login_url".into(), T::String(login_url));
    if !fields.is_empty() {
        table.insert("fields".into(), T::Table(fields));
    }
    table.insert("password_field".into(), T::String(password_field));
    table.insert("password_env".into(), T::String(env.to_owned()));
    profile.credentials.push(RuleOut {
        table,
        from: from.to_owned(),
    });
    let method = props
        .take("httpMethod")
        .and_then(|p| text(&p.value))
        .map(str::trim)
        .filter(|m| !m.eq_ignore_ascii_case("POST"))
        .map(|m| {
            format!(" Its httpMethod {m} is not kept: trawl submits the form as the page says.")
        })
        .unwrap_or_default();
    let others = if secret_items.is_empty() {
        String::new()
    } else {
        format!(
            " The items {} also look secret and are left out; add them to fields if the form needs them.",
            secret_items.join(", ")
        )
    };
    profile.note(
        b.line,
        entry,
        format!(
            "trawl reads loginUri as the page showing the login form and submits the form it finds there, with the \
             page's hidden fields (Heritrix posted formItems to loginUri as they were); if loginUri is only the \
             form's action, set login_url to the page that shows the form. {}{method}{others}",
            password_note(env, true)
        ),
        Some("[[credentials]] login_url"),
    );
}

/// Takes the text property `name` of the credential `entry`, trimmed; `None` when unset or empty.
fn text_prop(props: &mut Props, name: &str, entry: &str, profile: &mut Profile) -> Option<String> {
    props
        .take(name)
        .and_then(|p| scalar(&p.value, p.line, &format!("{entry}.{name}"), profile))
        .map(|t| t.trim().to_owned())
        .filter(|t| !t.is_empty())
}

/// What the notes say of a credential's password.
fn password_note(env: &str, had_password: bool) -> String {
    if had_password {
        format!(
            "Its password is not written: set the environment variable {env} (or write password_file instead)."
        )
    } else {
        format!("It had no password: set the environment variable {env}, or remove the table")
    }
}

/// The environment variable a credential's password is read from: its store key in upper snake case
/// (`memberLogin` -> `MEMBER_LOGIN_PASSWORD`).
fn password_env(key: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in key.chars() {
        if c.is_ascii_uppercase() && prev_lower {
            out.push('_');
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_uppercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let out = out.trim_matches('_');
    if out.is_empty() {
        "CREDENTIAL_PASSWORD".to_owned()
    } else if out.starts_with(|c: char| c.is_ascii_digit()) {
        format!("CREDENTIAL_{out}_PASSWORD")
    } else {
        format!("{out}_PASSWORD")
    }
}

/// How surely a form item's name says it holds the login's password: 2 for a password's own name
/// (`password`, `pwd`, `user_pass`), 1 for one that holds `pass` or `pwd` besides (`remember_password`,
/// `bypass_cache` are named after one, not one: xt38b N2), 0 for none. The best is the `password_field`.
fn password_rank(name: &str) -> u8 {
    let n: String = name
        .to_ascii_lowercase()
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    let own = [
        "password",
        "passwd",
        "pass",
        "pwd",
        "pw",
        "passwort",
        "motdepasse",
        "contrasena",
    ];
    let not_one = [
        "remember", "forgot", "reset", "show", "confirm", "bypass", "compass", "passage",
    ];
    if own
        .iter()
        .any(|o| n == *o || n.ends_with(&format!("user{o}")) || n.ends_with(&format!("login{o}")))
    {
        2
    } else if (n.contains("pass") || n.contains("pwd") || n.contains("secret"))
        && !not_one.iter().any(|w| n.contains(w))
    {
        1
    } else {
        0
    }
}

/// Whether a form item's name says it holds a password or another secret (its value is then never written):
/// an API token or key, a one-time or access code, a session id, an answer (xt36b F4, xt38b N1: `api_token`,
/// `otp_code`, `access_code`, `session_id`, `security_answer` were written in clear, and went into every WARC's
/// warcinfo). Broad on purpose: an item left out is named, and can be added to `fields` by hand.
fn is_secret_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    const PARTS: [&str; 20] = [
        "pass", "pwd", "secret", "token", "key", "otp", "2fa", "mfa", "pin", "code", "auth",
        "session", "jwt", "bearer", "answer", "cred", "sig", "nonce", "cookie", "tan",
    ];
    n == "pw" || PARTS.iter().any(|p| n.contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_names() {
        for (key, want) in [
            ("memberLogin", "MEMBER_LOGIN_PASSWORD"),
            ("staffArea", "STAFF_AREA_PASSWORD"),
            ("wp-login", "WP_LOGIN_PASSWORD"),
            ("site2Auth", "SITE2_AUTH_PASSWORD"),
            ("", "CREDENTIAL_PASSWORD"),
            ("9lives", "CREDENTIAL_9LIVES_PASSWORD"),
            ("HTTP", "HTTP_PASSWORD"),
        ] {
            assert_eq!(password_env(key), want, "{key:?}");
        }
    }

    #[test]
    fn secret_names() {
        for name in [
            "password",
            "pwd",
            "user_pass",
            "PW",
            "client_secret",
            "Passwort",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in ["log", "username", "submit", "redirect_to", "rememberme"] {
            assert!(!is_secret_name(name), "{name}");
        }
        // Not passwords, but secrets all the same (xt36b F4, xt38b N1).
        for name in [
            "api_token",
            "apikey",
            "API_KEY",
            "key_id",
            "otp_code",
            "mfa",
            "pin",
            "access_code",
            "auth_code",
            "verification_code",
            "one_time_code",
            "sms_code",
            "security_answer",
            "jwt",
            "bearer",
            "session_id",
            "tan",
            "userPIN",
            "pincode",
        ] {
            assert!(is_secret_name(name) && password_rank(name) == 0, "{name}");
        }
        // A password's own name ranks above one named after one (xt38b N2).
        for (name, rank) in [
            ("password", 2),
            ("user_pass", 2),
            ("PWD", 2),
            ("remember_password", 0),
            ("bypass_cache", 0),
            ("new_pass_hint", 1),
        ] {
            assert_eq!(password_rank(name), rank, "{name}");
        }
    }
}
