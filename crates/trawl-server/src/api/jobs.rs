//! Jobs: list, create, status, config text, build (validate).

use axum::{
    Extension, Json,
    extract::{Path, State},
};
use serde::{Deserialize, Serialize};
use trawl_config::CrawlConfig;
use trawl_config::settings::profiles;
use trawl_engine::{control::Command, live::SettingsChange};

use crate::{ApiError, AppState, JobStatus, Operator};

/// `POST /api/jobs`. An unknown field is refused: a misspelt `seed` or `profil` would otherwise make a job
/// without them.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CreateJob {
    /// The job's name.
    pub(crate) name: String,
    /// crawl.toml text; when absent, the profile's (or the `default` profile's).
    #[serde(default)]
    pub(crate) config: Option<String>,
    /// A shipped profile to start from when `config` is absent.
    #[serde(default)]
    pub(crate) profile: Option<String>,
    /// Seeds added to the config's.
    #[serde(default)]
    pub(crate) seeds: Vec<String>,
}

/// One config problem, placed.
#[derive(Debug, Serialize)]
pub(crate) struct ProblemJson {
    pub(crate) stage: String,
    pub(crate) line: Option<usize>,
    pub(crate) column: Option<usize>,
    pub(crate) key: Option<String>,
    pub(crate) message: String,
    pub(crate) hint: Option<String>,
}

/// The answer of build: whether the config passes all three checks, every problem, and for a config that
/// passes, what `trawl check` warns of (no seeds, a password written in it, …).
#[derive(Debug, Serialize)]
pub(crate) struct Built {
    pub(crate) ok: bool,
    pub(crate) problems: Vec<ProblemJson>,
    pub(crate) warnings: Vec<ProblemJson>,
}

impl Built {
    /// Its problems and warnings without the lines they quote from files other than `own`, the config's text
    /// ([`super::written::unquoted`]).
    fn unquoted(mut self, own: &str) -> Built {
        for p in self.problems.iter_mut().chain(self.warnings.iter_mut()) {
            p.message = super::written::unquoted(&p.message, own);
        }
        self
    }
}

impl From<trawl_config::settings::Problem> for ProblemJson {
    fn from(p: trawl_config::settings::Problem) -> ProblemJson {
        ProblemJson {
            stage: format!("{:?}", p.stage).to_lowercase(),
            line: p.at.map(|a| a.0),
            column: p.at.map(|a| a.1),
            key: p.key,
            message: p.message,
            hint: p.hint,
        }
    }
}

pub(crate) async fn list(State(s): State<AppState>) -> Json<Vec<JobStatus>> {
    Json(
        s.jobs
            .ids()
            .iter()
            .filter_map(|id| s.jobs.status(id).ok())
            .collect(),
    )
}

/// Creates a job (shared with the UI).
pub(crate) fn create_job(s: &AppState, who: &str, req: CreateJob) -> Result<JobStatus, ApiError> {
    if let Some(Err(e)) = req
        .seeds
        .iter()
        .map(|s| trawl_url::parse_typed_seed(s))
        .find(Result::is_err)
    {
        return Err(ApiError::bad_request(format!("seeds: {e}")));
    }
    let from_profile = match (&req.config, &req.profile) {
        (Some(_), Some(_)) => {
            return Err(ApiError::bad_request(
                "give `config` or `profile`, not both".to_string(),
            ));
        }
        (None, Some(name)) => {
            Some(profiles::profile(name).map_err(|e| ApiError::bad_request(e.to_string()))?)
        }
        _ => None,
    };
    // Neither: the `default` profile, commented, as the UI's form preselects it (xt9a F14).
    let text = match (req.config, from_profile) {
        (Some(text), _) => text,
        (None, Some(text)) => text.to_string(),
        (None, None) => profiles::profile("default")
            .map_err(ApiError::internal)?
            .to_string(),
    };
    // Checked whether seeds are added or not: a config that does not parse makes no job. Its relative paths
    // (`[seeds] files`, `include`) are read from the job's folder, as its launch will read them, not from the
    // server's working directory: the folder is made first (which also claims the name), and removed again
    // when the config is refused.
    refuse_inline_secret(&text)?;
    let dir = s.jobs.make_folder(&req.name)?;
    let path = dir.join("crawl.toml");
    let written = super::written::refuse_foreign_files(s.jobs.dir(), &dir, &text)
        .and_then(|()| {
            CrawlConfig::parse(&text, &path)
                .map_err(|e| ApiError::bad_request(super::written::unquoted(&e.to_string(), &text)))
        })
        .and_then(|parsed| {
            let text = if req.seeds.is_empty() {
                text
            } else {
                with_seeds(&text, &path, parsed, &req.seeds)
            };
            std::fs::write(&path, text).map_err(ApiError::internal)
        });
    if let Err(e) = written {
        // Empty unless something else wrote there meanwhile: then it stays.
        let _ = std::fs::remove_dir(&dir);
        return Err(e);
    }
    let how = req
        .profile
        .map_or(String::new(), |p| format!(" from profile {p}"));
    trawl_engine::job::record_change(&dir, who, &format!("create job{how}"));
    s.jobs.status(&req.name)
}

/// `text` (which parses as `parsed`, read as `path`) with `seeds` added to its `[seeds] urls`, its comments
/// kept.
fn with_seeds(
    text: &str,
    path: &std::path::Path,
    mut parsed: CrawlConfig,
    seeds: &[String],
) -> String {
    parsed.seeds.urls.extend(seeds.iter().cloned());
    parsed.to_toml_over(text, path)
}

pub(crate) async fn create(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
    Json(req): Json<CreateJob>,
) -> Result<Json<JobStatus>, ApiError> {
    super::off_runtime(move || create_job(&s, &op.who, req))
        .await
        .map(Json)
}

pub(crate) async fn status(
    State(s): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<JobStatus>, ApiError> {
    s.jobs.status(&id).map(Json)
}

/// One shipped profile.
#[derive(Debug, Serialize)]
pub(crate) struct ProfileJson {
    pub(crate) name: &'static str,
    pub(crate) description: String,
}

/// `GET /api/profiles` answer.
#[derive(Debug, Serialize)]
pub(crate) struct Profiles {
    profiles: Vec<ProfileJson>,
}

/// The shipped profiles (shared with the UI).
pub(crate) fn profile_list() -> Vec<ProfileJson> {
    profiles::PROFILES
        .iter()
        .map(|(name, text)| ProfileJson {
            name,
            description: profiles::description(text),
        })
        .collect()
}

pub(crate) async fn profiles() -> Json<Profiles> {
    Json(Profiles {
        profiles: profile_list(),
    })
}

/// Changes settings of job `id`: its running crawl's (from the next URI on) or its stopped crawl.toml's;
/// a refused change is a 400 naming the setting (shared with the UI).
pub(crate) async fn change_settings(
    s: &AppState,
    who: &str,
    id: &str,
    change: SettingsChange,
) -> Result<String, ApiError> {
    let dir = s.jobs.job_dir(id)?;
    // A sheet's rules name files too, which the crawl reads and crawl.toml keeps (xt38a N1); a refusal quotes
    // none of their text (review 85 R2).
    let mut named = Vec::new();
    if let SettingsChange::Sheet(sheet) = &change {
        let files = sheet.named_files();
        super::written::refuse_outside(s.jobs.dir(), &dir, &files)?;
        named = files.iter().map(|(_, f)| f.display().to_string()).collect();
    }
    match s.jobs.send(id, Command::Settings { change }).await? {
        // Logged in the words of the answer, as `trawl ctl` logs it (xt25a F4: the request's JSON before it).
        trawl_engine::control::Reply::Done { message } => {
            trawl_engine::job::record_change(&dir, who, &format!("settings: {message}"));
            Ok(message)
        }
        trawl_engine::control::Reply::Failed { message } => {
            let own = std::fs::read_to_string(dir.join("crawl.toml")).unwrap_or_default();
            Err(ApiError::bad_request(super::written::unquoted_naming(
                &message, &own, named,
            )))
        }
        other => Err(ApiError::internal(format!("unexpected reply {other:?}"))),
    }
}

/// The forms of a settings body, for refusals.
const SETTINGS_FORMS: &str =
    r#"send one of {"set": {"path": value, ...}}, {"sheet": {...}} or {"remove_sheet": "name"}"#;

/// The change a `POST /api/jobs/{id}/settings` body asks for; a refusal names the field at fault, or says
/// that one request makes one kind of change.
pub(crate) fn settings_change(body: &str) -> Result<SettingsChange, ApiError> {
    let value: serde_json::Value = serde_json::from_str(body).map_err(|e| {
        ApiError::bad_request(format!("settings body is not JSON ({e}): {SETTINGS_FORMS}"))
    })?;
    let Some(fields) = value.as_object() else {
        return Err(ApiError::bad_request(format!(
            "settings body is not a JSON object: {SETTINGS_FORMS}"
        )));
    };
    let names: Vec<&str> = fields.keys().map(String::as_str).collect();
    let [field] = names[..] else {
        return Err(ApiError::bad_request(if names.is_empty() {
            format!("settings body names no change: {SETTINGS_FORMS}")
        } else {
            format!(
                "settings body has the fields {}: one request makes one kind of change; {SETTINGS_FORMS}, \
                 and send the others in requests of their own",
                names.join(", ")
            )
        }));
    };
    serde_json::from_value(value.clone()).map_err(|e| {
        ApiError::bad_request(if matches!(field, "set" | "sheet" | "remove_sheet") {
            format!("settings body, field `{field}`: {e}")
        } else {
            format!("settings body: unknown field `{field}`: {SETTINGS_FORMS}")
        })
    })
}

pub(crate) async fn settings(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
    Path(id): Path<String>,
    body: String,
) -> Result<Json<serde_json::Value>, ApiError> {
    let change = settings_change(&body)?;
    let message = change_settings(&s, &op.who, &id, change).await?;
    Ok(Json(
        serde_json::json!({"reply": "done", "message": message}),
    ))
}

pub(crate) async fn get_config(
    State(s): State<AppState>,
    Path(id): Path<String>,
) -> Result<String, ApiError> {
    let dir = s.jobs.job_dir(&id)?;
    std::fs::read_to_string(dir.join("crawl.toml")).map_err(ApiError::internal)
}

/// Validates job `id`'s crawl.toml (syntax, wiring, semantics).
pub(crate) fn build_job(s: &AppState, id: &str) -> Result<Built, ApiError> {
    let dir = s.jobs.job_dir(id)?;
    let path = dir.join("crawl.toml");
    let own = std::fs::read_to_string(&path).unwrap_or_default();
    let built = match CrawlConfig::check(&path) {
        Ok(config) => Built {
            ok: true,
            problems: Vec::new(),
            warnings: config
                .located_warnings(
                    &path,
                    trawl_fetch::robots::user_agent_warning(&config.fetch.user_agent)
                        .into_iter()
                        .collect(),
                )
                .into_iter()
                .map(|mut w| {
                    // The config's own hint names the command line; a job's seeds come from the API.
                    if w.key.as_deref() == Some("seeds") {
                        w.hint = Some(format!(
                            "list them in [seeds] urls, or add them (POST /api/jobs/{id}/seeds): a launch \
                             with none is refused"
                        ));
                    }
                    ProblemJson::from(w)
                })
                .collect(),
        },
        Err(e) => Built {
            ok: false,
            problems: e.problems.into_iter().map(ProblemJson::from).collect(),
            warnings: Vec::new(),
        },
    };
    Ok(built.unquoted(&own))
}

/// Replaces job `id`'s crawl.toml (not while it runs) and validates it.
pub(crate) fn save_config(
    s: &AppState,
    who: &str,
    id: &str,
    text: &str,
) -> Result<Built, ApiError> {
    let dir = s.jobs.job_dir(id)?;
    if s.jobs.handle(id).is_some() {
        return Err(ApiError::conflict(format!(
            "job {id:?} is running: change its settings (POST /api/jobs/{id}/settings) or queues instead, or \
             terminate it (POST /api/jobs/{id}/terminate) to edit crawl.toml"
        )));
    }
    if s.jobs.is_launching(id) {
        return Err(crate::manager::JobManager::launching_refusal(id));
    }
    if let Some(pid) = crate::manager::JobManager::crawled_elsewhere(&dir) {
        return Err(crate::manager::JobManager::elsewhere_refusal(id, pid));
    }
    refuse_inline_secret(text)?;
    super::written::refuse_foreign_files(s.jobs.dir(), &dir, text)?;
    if let Some(built) = unreadable(&dir, text) {
        let first = built.problems.first().map_or(String::new(), |p| {
            let at = p.line.map_or(String::new(), |l| format!("line {l}: "));
            format!(": {at}{}", p.message)
        });
        let more = match built.problems.len() {
            0 | 1 => String::new(),
            n => format!(" ({} more problems)", n - 1),
        };
        return Err(ApiError::bad_request(format!(
            "the text is not a config trawl reads{first}{more}; job {id:?}'s crawl.toml was not changed"
        )));
    }
    refuse_new_queue_names(&dir, text)?;
    // Whole or not at all: a server stopped mid-write must not leave a job whose crawl.toml is cut short.
    trawl_engine::job::write_whole(&dir.join("crawl.toml"), text).map_err(ApiError::internal)?;
    trawl_engine::job::record_change(
        &dir,
        who,
        &format!("edit crawl.toml ({} bytes)", text.len()),
    );
    build_job(s, id)
}

/// The problems of `text` as job folder `dir`'s crawl.toml when it is not a config trawl reads (its syntax, an
/// unknown key, a wrong type): such a text is not saved, or the job would keep no config to launch (xt37a F9:
/// a body of `{"a":1}` replaced it). A config whose values are wrong is saved, its problems named.
pub(crate) fn unreadable(dir: &std::path::Path, text: &str) -> Option<Built> {
    let problems = CrawlConfig::check_str(text, &dir.join("crawl.toml"))
        .err()?
        .problems;
    problems
        .iter()
        .any(|p| p.stage != trawl_config::settings::Stage::Semantics)
        .then(|| {
            Built {
                ok: false,
                problems: problems.into_iter().map(ProblemJson::from).collect(),
                warnings: Vec::new(),
            }
            .unquoted(text)
        })
}

/// Refuses a config text holding a password (a credential's `password`, a proxy's `USER:PASS@`): the job's
/// folder would keep it in plain text, and `GET …/config` serve it (xt14c F1). A text that does not parse is
/// left to the build's check, which names its problems.
fn refuse_inline_secret(text: &str) -> Result<(), ApiError> {
    match toml::from_str::<CrawlConfig>(text)
        .ok()
        .and_then(|c| c.inline_secret())
    {
        Some(key) => Err(ApiError::bad_request(format!(
            "{key}: a password written in the config would be kept in plain text in the job's folder: name an \
             environment variable of the server instead (`password_env` for a credential, TRAWL_PROXY_PASSWORD \
             for a proxy user) or a `password_file`; the config was not changed"
        ))),
        None => Ok(()),
    }
}

/// Refuses a new `frontier.queue_assignment` or `parallel_queues` for a job that has queued URIs: they are
/// stored in the queues the old value names (xt14c F3: a host split over two queues, as with `ctl set`).
fn refuse_new_queue_names(dir: &std::path::Path, text: &str) -> Result<(), ApiError> {
    let job = match trawl_engine::job::Job::open(dir) {
        Ok(job) if job.holds_a_crawl() => job,
        _ => return Ok(()),
    };
    let read = |t: &str| toml::from_str::<CrawlConfig>(t).ok();
    // Against the naming the job's queues were made with, where it is recorded, so that a crawl.toml edited
    // by hand to another can be put back through this very request (review 63 R1).
    if let Some(recorded) = job.recorded_queue_naming().ok().flatten() {
        return match read(text)
            .and_then(|new| trawl_engine::job::queue_naming_change(&recorded, &new))
        {
            Some(change) => Err(ApiError::bad_request(format!(
                "{change} (POST /api/jobs); the config was not changed"
            ))),
            None => Ok(()),
        };
    }
    let old = std::fs::read_to_string(dir.join("crawl.toml")).ok();
    let (Some(old), Some(new)) = (old.as_deref().and_then(read), read(text)) else {
        return Ok(());
    };
    match trawl_config::settings::fixed_for_the_job_changed(&old, &new) {
        Some(path) => {
            let why = trawl_engine::live::SettingsError::FixedForTheJob { path: path.into() };
            Err(ApiError::bad_request(format!(
                "{why} (POST /api/jobs); the config was not changed"
            )))
        }
        None => Ok(()),
    }
}

pub(crate) async fn put_config(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
    Path(id): Path<String>,
    text: String,
) -> Result<Json<Built>, ApiError> {
    // An empty body is a mistake (curl's `--data-binary @FILE` sends nothing for a FILE it cannot read), not a
    // config: saved, it would leave the job with none.
    if text.trim().is_empty() {
        return Err(ApiError::bad_request(format!(
            "the body is empty: send job {id:?}'s whole crawl.toml text (the config was not changed)"
        )));
    }
    super::off_runtime(move || save_config(&s, &op.who, &id, &text))
        .await
        .map(Json)
}

pub(crate) async fn build(
    State(s): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Built>, ApiError> {
    super::off_runtime(move || build_job(&s, &id))
        .await
        .map(Json)
}
