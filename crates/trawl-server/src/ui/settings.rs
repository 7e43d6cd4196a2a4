//! Live settings: change a property for every URI, put or remove a sheet, on a running crawl (from its next
//! URI on) or a stopped job (its crawl.toml).

use axum::{
    Extension, Form,
    extract::{Path, State},
    response::{IntoResponse, Response},
};
use serde::Deserialize;
use trawl_config::CrawlConfig;
use trawl_config::settings::SheetSpec;
use trawl_engine::live::SettingsChange;

use super::{csrf, esc, jobs::error_page, page};
use crate::{ApiError, AppState, Operator, api::jobs::change_settings};

/// The settings form: `kind` is set, sheet or remove; `text` holds TOML (`path = value` lines, or one
/// `[[sheet]]` table), `name` the sheet to remove.
#[derive(Debug, Deserialize)]
pub(crate) struct SettingsForm {
    kind: String,
    #[serde(default)]
    text: String,
    #[serde(default)]
    name: String,
}

fn render(s: &AppState, op: &Operator, id: &str, outcome: &str) -> Result<Response, ApiError> {
    let dir = s.jobs.job_dir(id)?;
    // A crawl.toml that cannot be read, or fails its checks, is said so, not shown as the defaults (xt46b F5).
    let (config, now) = match CrawlConfig::load(&dir.join("crawl.toml")) {
        Ok(config) => {
            let f = &config.frontier;
            let now = format!(
                "Now: politeness delay {}–{} ms (factor {}), {} retries.",
                f.min_delay_ms, f.max_delay_ms, f.delay_factor, f.max_retries
            );
            (config, now)
        }
        Err(_) => (
            CrawlConfig::default(),
            format!(
                "Its crawl.toml cannot be read or fails its checks: <a href=\"/jobs/{}/config\">the config \
                 page</a> names its problems.",
                esc(id)
            ),
        ),
    };
    let sheets: String = config
        .sheets
        .iter()
        .map(|sh| {
            format!(
                "<tr><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
                esc(&sh.name),
                esc(&sh.surt_prefixes.join(" ")),
                esc(&toml::to_string(&sh.set).unwrap_or_default())
            )
        })
        .collect();
    let names: String = config
        .sheets
        .iter()
        .map(|sh| format!("<option>{}</option>", esc(&sh.name)))
        .collect();
    let running = if s.jobs.handle(id).is_some() {
        "The crawl is running: a change applies to the URIs it processes from now on, and is saved to crawl.toml."
    } else {
        "The job is not running: a change is checked and saved to crawl.toml for its next launch."
    };
    let body = format!(
        r#"<p><a href="/jobs/{i}">back to the job</a></p><p>{running}</p>{outcome}
<p>{now}</p>
<h2>Set for every URI</h2><form method="post" action="/jobs/{i}/settings" id="set-form">{c}<input type="hidden" name="kind" value="set">
<textarea name="text" rows="3" placeholder="frontier.min_delay_ms = 500"></textarea><br><button>Set</button></form>
<h2>Sheets</h2><table><tr><th>name</th><th>SURT prefixes</th><th>set</th></tr>{sheets}</table>
<h3>Add or replace a sheet</h3><form method="post" action="/jobs/{i}/settings">{c}<input type="hidden" name="kind" value="sheet">
<textarea name="text" rows="5">[[sheet]]
name = "slow"
surt_prefixes = ["http://(org,example,"]
set = {{ "frontier.min_delay_ms" = 5000 }}</textarea><br><button>Put sheet</button></form>
<h3>Remove a sheet</h3><form method="post" action="/jobs/{i}/settings">{c}<input type="hidden" name="kind" value="remove"><select name="name">{names}</select> <button>Remove</button></form>"#,
        i = esc(id),
        c = csrf(op),
    );
    Ok(page(op, &format!("Live settings of {id}"), &body).into_response())
}

pub(crate) async fn show(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
    Path(id): Path<String>,
) -> Response {
    render(&s, &op, &id, "").unwrap_or_else(|e| error_page(&op, &e))
}

/// The change a form asks for; the error names what is wrong with the TOML.
fn parse(f: &SettingsForm) -> Result<SettingsChange, ApiError> {
    match f.kind.as_str() {
        "set" => toml::from_str::<toml::Table>(&f.text)
            .map(|t| SettingsChange::Set(flatten(t)))
            .map_err(|e| ApiError::bad_request(format!("settings: {}", e.message()))),
        "sheet" => SheetSpec::parse_one(&f.text)
            .map(SettingsChange::Sheet)
            .map_err(|e| ApiError::bad_request(e.to_string())),
        "remove" => Ok(SettingsChange::RemoveSheet(f.name.clone())),
        other => Err(ApiError::bad_request(format!(
            "no settings change {other:?}"
        ))),
    }
}

/// `a.b = 1` parses as nested tables; settings are named by dotted paths.
fn flatten(table: toml::Table) -> toml::Table {
    fn walk(prefix: &str, table: toml::Table, out: &mut toml::Table) {
        for (k, v) in table {
            let path = if prefix.is_empty() {
                k
            } else {
                format!("{prefix}.{k}")
            };
            match v {
                toml::Value::Table(t) => walk(&path, t, out),
                v => {
                    out.insert(path, v);
                }
            }
        }
    }
    let mut out = toml::Table::new();
    walk("", table, &mut out);
    out
}

pub(crate) async fn change(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
    Path(id): Path<String>,
    Form(f): Form<SettingsForm>,
) -> Response {
    let outcome = match parse(&f) {
        Ok(change) => change_settings(&s, &op.who, &id, change).await,
        Err(e) => Err(e),
    };
    let note = match outcome {
        Ok(message) => format!(r#"<p class="ok" id="outcome">{}</p>"#, esc(&message)),
        Err(e) if e.status == axum::http::StatusCode::NOT_FOUND => return error_page(&op, &e),
        Err(e) => format!(r#"<p class="err" id="outcome">{}</p>"#, esc(&e.message)),
    };
    render(&s, &op, &id, &note).unwrap_or_else(|e| error_page(&op, &e))
}

#[cfg(test)]
mod tests {
    #[test]
    fn dotted_keys_flatten() {
        let t: toml::Table =
            toml::from_str("frontier.min_delay_ms = 5\n[fetch]\nmax_bytes = 9").unwrap();
        let flat = super::flatten(t);
        assert_eq!(flat["frontier.min_delay_ms"].as_integer(), Some(5));
        assert_eq!(flat["fetch.max_bytes"].as_integer(), Some(9));
    }
}
