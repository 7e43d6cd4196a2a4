//! The config editor: edit crawl.toml, save and verify (syntax, wiring, semantics), problems at their lines.

use axum::{
    Extension, Form,
    extract::{Path, State},
    response::{IntoResponse, Response},
};
use serde::Deserialize;

use super::{csrf, esc, jobs::error_page, page};
use crate::{
    AppState, Operator,
    api::jobs::{Built, ProblemJson, build_job, save_config, unreadable},
};

fn render(op: &Operator, id: &str, text: &str, built: &Built, saved: bool) -> Response {
    let problems = if built.ok {
        let mut said =
            r#"<p class="ok">No problems: the config passes all three checks.</p>"#.to_string();
        if !built.warnings.is_empty() {
            said += &format!(
                r#"<p>Warnings:</p><ul class="err">{}</ul>"#,
                items(&built.warnings)
            );
        }
        said
    } else if saved {
        format!(r#"<ul class="err">{}</ul>"#, items(&built.problems))
    } else {
        format!(
            r#"<p class="err">Not saved: this is not a config trawl reads, and the job keeps its crawl.toml. Mend it and save again.</p><ul class="err">{}</ul>"#,
            items(&built.problems)
        )
    };
    let numbered: String = text
        .lines()
        .enumerate()
        .map(|(n, l)| format!("{:>4}  {}\n", n + 1, esc(l)))
        .collect();
    let body = format!(
        r#"<p><a href="/jobs/{i}">back to the job</a></p>{problems}
<form method="post" action="/jobs/{i}/config">{c}<textarea name="text" rows="24">{t}</textarea><br><button>Save and verify</button></form>
<h2>With line numbers</h2><pre>{numbered}</pre>"#,
        i = esc(id),
        c = csrf(op),
        t = esc(text),
    );
    page(op, &format!("Config of {id}"), &body).into_response()
}

/// Each problem or warning as a list item, at its line.
fn items(problems: &[ProblemJson]) -> String {
    problems
        .iter()
        .map(|p| {
            let at = match (p.line, p.column) {
                (Some(l), Some(c)) => format!("line {l}, column {c}: "),
                _ => String::new(),
            };
            format!(
                "<li>[{}] {}{}{}{}</li>",
                esc(&p.stage),
                esc(&at),
                p.key
                    .as_deref()
                    .map(|k| format!("<code>{}</code>: ", esc(k)))
                    .unwrap_or_default(),
                esc(&p.message),
                p.hint
                    .as_deref()
                    .map(|h| format!("<br><em>hint: {}</em>", esc(h)))
                    .unwrap_or_default()
            )
        })
        .collect()
}

pub(crate) async fn edit(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
    Path(id): Path<String>,
) -> Response {
    let built = match crate::api::off_runtime({
        let (s, id) = (s.clone(), id.clone());
        move || build_job(&s, &id)
    })
    .await
    {
        Ok(b) => b,
        Err(e) => return error_page(&op, &e),
    };
    let text = s
        .jobs
        .job_dir(&id)
        .ok()
        .and_then(|d| std::fs::read_to_string(d.join("crawl.toml")).ok())
        .unwrap_or_default();
    render(&op, &id, &text, &built, true)
}

#[derive(Debug, Deserialize)]
pub(crate) struct ConfigForm {
    text: String,
}

pub(crate) async fn save(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
    Path(id): Path<String>,
    Form(f): Form<ConfigForm>,
) -> Response {
    let text = f.text.replace("\r\n", "\n");
    let saved = crate::api::off_runtime({
        let (who, id, text) = (op.who.clone(), id.clone(), text.clone());
        move || {
            // Not a config trawl reads: shown with its problems to be mended, the job's file kept (xt37a F9).
            if let Ok(dir) = s.jobs.job_dir(&id)
                && let Some(built) = unreadable(&dir, &text)
            {
                return Ok((built, false));
            }
            save_config(&s, &who, &id, &text).map(|built| (built, true))
        }
    })
    .await;
    match saved {
        Ok((built, saved)) => render(&op, &id, &text, &built, saved),
        Err(e) => error_page(&op, &e),
    }
}
