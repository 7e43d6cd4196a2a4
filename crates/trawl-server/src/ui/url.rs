//! The URL tester: paste a URL, see its identity, URL class and scope trace (under a job's config).

use axum::{
    Extension,
    extract::{Query, State},
    response::{IntoResponse, Response},
};

use super::{esc, page};
use crate::{
    AppState, Operator,
    api::url::{Explain, explain_url},
};

pub(crate) async fn tester(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
    Query(q): Query<Explain>,
) -> Response {
    let result = if q.url.is_empty() {
        String::new()
    } else {
        let asked = q.clone();
        match crate::api::off_runtime(move || explain_url(&s, &asked)).await {
            Ok(v) => {
                let mut rows = String::new();
                if let Some(obj) = v.as_object() {
                    for (k, val) in obj {
                        let shown = match val {
                            serde_json::Value::String(s) => s.clone(),
                            other => serde_json::to_string_pretty(other).unwrap_or_default(),
                        };
                        rows.push_str(&format!(
                            "<tr><th>{}</th><td><pre>{}</pre></td></tr>",
                            esc(k),
                            esc(&shown)
                        ));
                    }
                }
                format!("<table>{rows}</table>")
            }
            Err(e) => format!(r#"<p class="err">{}</p>"#, esc(&e.message)),
        }
    };
    let body = format!(
        r#"<form method="get"><p><label>URL <input name="url" size="60" value="{u}"></label></p><p><label>job (its config judges the URL) <input name="job" value="{j}"></label> <label>via <input name="via" value="{v}"></label> <label>hops <input name="hops" size="4" value="{h}" placeholder="L"></label></p><button>Explain</button></form>{result}"#,
        u = esc(&q.url),
        j = esc(q.job.as_deref().unwrap_or("")),
        v = esc(q.via.as_deref().unwrap_or("")),
        h = esc(q.hops.as_deref().unwrap_or("")),
    );
    page(&op, "URL tester", &body).into_response()
}
