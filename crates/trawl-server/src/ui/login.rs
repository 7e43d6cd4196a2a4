//! `/login` (open to all, rate-limited) and `/logout`.

use axum::{
    Form, Router,
    extract::{Request, State},
    http::{StatusCode, header},
    response::{Html, IntoResponse, Redirect, Response},
    routing::get,
};
use serde::Deserialize;

use super::esc;
use crate::{AppState, LoginError, guard};

pub(crate) fn routes() -> Router<AppState> {
    Router::new().route("/login", get(form).post(submit))
}

fn login_page(message: &str) -> Html<String> {
    Html(format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Log in · trawl</title></head><body style="font:15px system-ui;margin:3em"><h1>trawl</h1><p style="color:#b00">{}</p><form method="post" action="/login"><label>Password <input type="password" name="password" autofocus></label> <button>Log in</button></form></body></html>"#,
        esc(message)
    ))
}

async fn form() -> Html<String> {
    login_page("")
}

#[derive(Debug, Deserialize)]
struct Login {
    password: String,
}

/// Whether a log-in request comes from another site's page: the browser says so in `Sec-Fetch-Site`
/// (`cross-site`, or `same-site`: a page on another port of the same loopback address), or, from a browser
/// that sends no such field, its `Origin` is present and is not this server's own (`http://HOST` or
/// `https://HOST`, HOST as the request's `Host` or `X-Forwarded-Host` names it).
/// Such a post is a page in the operator's browser trying passwords, or spending the address's log-in
/// budget to lock the operator out; it is refused before it counts as a failed log-in.
fn foreign(headers: &axum::http::HeaderMap) -> bool {
    let text = |name: &str| {
        headers
            .get(name)
            .map(|v| v.to_str().unwrap_or("\u{fffd}").trim().to_ascii_lowercase())
    };
    // A browser that says where the request comes from is believed alone: behind a proxy that rewrites
    // `Host` (and sets no `X-Forwarded-Host`) the server's own page would not match its `Origin`.
    if let Some(site) = text("sec-fetch-site") {
        return matches!(site.as_str(), "cross-site" | "same-site");
    }
    let Some(origin) = text("origin") else {
        return false;
    };
    // Behind a proxy that sets its own `Host`, the browser's is in `X-Forwarded-Host`.
    ![text("host"), text("x-forwarded-host")]
        .into_iter()
        .flatten()
        .filter(|host| !host.is_empty())
        .any(|host| origin == format!("http://{host}") || origin == format!("https://{host}"))
}

async fn submit(State(s): State<AppState>, req: Request) -> Response {
    let addr = guard::client_addr(req.extensions());
    if foreign(req.headers()) {
        return (
            StatusCode::FORBIDDEN,
            login_page("Log in from this server's own log-in page."),
        )
            .into_response();
    }
    let Ok(Form(login)) =
        <Form<Login> as axum::extract::FromRequest<()>>::from_request(req, &()).await
    else {
        return (StatusCode::BAD_REQUEST, login_page("Send a password.")).into_response();
    };
    match s.auth.login(&addr, &login.password) {
        Ok((sid, _)) => (
            [(
                header::SET_COOKIE,
                format!(
                    "{}={sid}; HttpOnly; SameSite=Strict; Path=/",
                    guard::SESSION_COOKIE
                ),
            )],
            Redirect::to("/"),
        )
            .into_response(),
        Err(LoginError::Wrong) => {
            (StatusCode::UNAUTHORIZED, login_page("Wrong password.")).into_response()
        }
        Err(LoginError::Limited) => (
            StatusCode::TOO_MANY_REQUESTS,
            login_page("Too many attempts; wait a minute."),
        )
            .into_response(),
    }
}

pub(crate) async fn logout(State(s): State<AppState>, headers: axum::http::HeaderMap) -> Response {
    if let Some(sid) = guard::cookie(&headers, guard::SESSION_COOKIE) {
        s.auth.logout(&sid);
    }
    (
        [(
            header::SET_COOKIE,
            format!(
                "{}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0",
                guard::SESSION_COOKIE
            ),
        )],
        Redirect::to("/login"),
    )
        .into_response()
}
