//! The gate in front of every protected route: a bearer token (API clients) or a session cookie (the UI),
//! and for a session, a CSRF token on every state-changing request (`X-CSRF-Token` header or `csrf` form
//! field). Refusals: 401 for `/api` and `/metrics`, a redirect to `/login` for pages, 403 for a bad CSRF token.

use std::net::SocketAddr;

use axum::{
    Json,
    body::Body,
    extract::{ConnectInfo, Request, State},
    http::{HeaderMap, Method, StatusCode, header},
    middleware::Next,
    response::{IntoResponse, Redirect, Response},
};

use crate::{AppState, auth::Auth};

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "trawl_session";

/// Largest form body the gate buffers to find its CSRF field. Default: 4 MiB.
const FORM_LIMIT: usize = 4 << 20;

/// Who is acting, put into the request by the gate for handlers (and config-changes.log) to read.
#[derive(Debug, Clone)]
pub struct Operator {
    /// `token@ADDR` or `ui@ADDR`.
    pub who: String,
    /// The session's CSRF token (UI sessions only), for pages to embed in their forms.
    pub csrf: Option<String>,
    /// The session's id (UI sessions only): a stream checks it while it lasts, so a log-out ends it.
    pub session: Option<String>,
}

/// The client's address, or `local` when the server was not given connection info (tests).
pub(crate) fn client_addr(ext: &axum::http::Extensions) -> String {
    ext.get::<ConnectInfo<SocketAddr>>()
        .map_or("local".to_string(), |c| c.0.ip().to_string())
}

/// The value of cookie `name`.
pub(crate) fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

fn refuse(api: bool) -> Response {
    if api {
        (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            Json(serde_json::json!({"error": "authentication required: send Authorization: Bearer TOKEN"})),
        )
            .into_response()
    } else {
        Redirect::to("/login").into_response()
    }
}

fn too_large() -> Response {
    (
        StatusCode::PAYLOAD_TOO_LARGE,
        Json(serde_json::json!({
            "error": format!("the form is over {} MiB: send less", FORM_LIMIT >> 20)
        })),
    )
        .into_response()
}

/// A request without its session's CSRF token: the API's JSON, or for a UI form a page saying what to do
/// (xt37a F11: a form posted from a page left open past a new login got raw JSON).
fn forbidden(api: bool) -> Response {
    if api {
        return (
            StatusCode::FORBIDDEN,
            Json(serde_json::json!({"error": "missing or wrong CSRF token"})),
        )
            .into_response();
    }
    (
        StatusCode::FORBIDDEN,
        axum::response::Html(
            "<!doctype html><title>trawl: form refused</title><p>The form was refused: its token is missing or \
             from an older login. Go back, reload the page and send the form again.</p><p><a href=\"/\">jobs</a></p>",
        ),
    )
        .into_response()
}

/// The middleware.
pub(crate) async fn require(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let path = req.uri().path();
    let api = path.starts_with("/api/") || path == "/metrics";
    let addr = client_addr(req.extensions());
    if let Some(value) = req.headers().get(header::AUTHORIZATION) {
        // The scheme's name is case-insensitive (RFC 9110, 11.1): `bearer` too (xt9a F14).
        let token = value
            .to_str()
            .ok()
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token);
        return match token {
            Some(t) if state.auth.check_token(t.trim()) => {
                let mut req = req;
                req.extensions_mut().insert(Operator {
                    who: format!("token@{addr}"),
                    csrf: None,
                    session: None,
                });
                next.run(req).await
            }
            _ => refuse(api),
        };
    }
    let Some((sid, csrf)) = cookie(req.headers(), SESSION_COOKIE)
        .and_then(|sid| state.auth.session(&sid).map(|csrf| (sid, csrf)))
    else {
        return refuse(api);
    };
    let mut req = req;
    if !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        let header_token = req
            .headers()
            .get("x-csrf-token")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let given = match header_token {
            Some(t) => Some(t),
            None => {
                let (parts, body) = req.into_parts();
                // A form too large to read is refused as such, not as a wrong token (xt9a F9).
                let Ok(bytes) = axum::body::to_bytes(body, FORM_LIMIT).await else {
                    return too_large();
                };
                let field = url::form_urlencoded::parse(&bytes)
                    .find(|(k, _)| k == "csrf")
                    .map(|(_, v)| v.into_owned());
                req = Request::from_parts(parts, Body::from(bytes));
                field
            }
        };
        if !given.is_some_and(|g| Auth::csrf_ok(&csrf, &g)) {
            return forbidden(api);
        }
    }
    req.extensions_mut().insert(Operator {
        who: format!("ui@{addr}"),
        csrf: Some(csrf),
        session: Some(sid),
    });
    next.run(req).await
}
