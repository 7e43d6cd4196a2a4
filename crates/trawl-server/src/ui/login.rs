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

async fn submit(State(s): State<AppState>, req: Request) -> Response {
    let addr = guard::client_addr(req.extensions());
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
