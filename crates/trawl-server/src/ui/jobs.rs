//! The jobs list (with the create form) and the job page (state, rates, totals, live chart, actions).

use axum::{
    Extension, Form,
    extract::{Path, State},
    response::{Html, IntoResponse, Redirect, Response},
};
use serde::Deserialize;

use super::{csrf, esc, page};
use crate::{
    ApiError, AppState, Operator,
    api::{jobs::CreateJob, lifecycle},
};

pub(crate) async fn index(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
) -> Html<String> {
    let mut rows = String::new();
    for id in s.jobs.ids() {
        if let Ok(j) = s.jobs.status(&id) {
            rows.push_str(&format!(
                r#"<tr><td><a href="/jobs/{i}">{i}</a></td><td>{}</td><td>{}</td><td>{}</td></tr>"#,
                esc(&j.state),
                j.counters.finished,
                j.counters.queued,
                i = esc(&j.id)
            ));
        }
    }
    let options: String = crate::api::jobs::profile_list()
        .iter()
        .map(|p| {
            format!(
                r#"<option value="{n}">{n}: {d}</option>"#,
                n = esc(p.name),
                d = esc(&p.description)
            )
        })
        .collect();
    let body = format!(
        r#"<table id="jobs"><tr><th>job</th><th>state</th><th>done</th><th>queued</th></tr>{rows}</table>
<h2>New job</h2><form method="post" action="/" id="new-job">{c}
<p><label>Name <input name="name" required pattern="[A-Za-z0-9_][A-Za-z0-9._-]*"></label></p>
<p><label>Seeds, one per line<br><textarea name="seeds" rows="3"></textarea></label></p>
<p><label>Profile <select name="profile">{options}</select></label></p>
<p><label>crawl.toml (optional; replaces the profile when given)<br><textarea name="config" rows="8"></textarea></label></p>
<button>Create</button></form>"#,
        c = csrf(&op)
    );
    page(&op, "Jobs", &body)
}

#[derive(Debug, Deserialize)]
pub(crate) struct CreateForm {
    name: String,
    #[serde(default)]
    seeds: String,
    #[serde(default)]
    config: String,
    #[serde(default)]
    profile: String,
}

pub(crate) fn error_page(op: &Operator, e: &ApiError) -> Response {
    (
        e.status,
        page(
            op,
            "Error",
            &format!(
                r#"<p class="err">{}</p><p><a href="javascript:history.back()">Back</a></p>"#,
                esc(&e.message)
            ),
        ),
    )
        .into_response()
}

pub(crate) async fn create(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
    Form(f): Form<CreateForm>,
) -> Response {
    let req = CreateJob {
        name: f.name.trim().to_string(),
        profile: (f.config.trim().is_empty() && !f.profile.is_empty()).then_some(f.profile),
        config: (!f.config.trim().is_empty()).then_some(f.config),
        seeds: f
            .seeds
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect(),
    };
    let who = op.who.clone();
    match crate::api::off_runtime(move || crate::api::jobs::create_job(&s, &who, req)).await {
        Ok(j) => Redirect::to(&format!("/jobs/{}", j.id)).into_response(),
        Err(e) => error_page(&op, &e),
    }
}

const ACTIONS: [&str; 6] = [
    "launch",
    "pause",
    "unpause",
    "checkpoint",
    "terminate",
    "teardown",
];

const CHART: &str = r#"<canvas id="chart" width="600" height="120" style="border:1px solid #ccc"></canvas>
<script>
(function(){const c=document.getElementById('chart'),g=c.getContext('2d'),pts=[];
const set=(k,v)=>{const e=document.getElementById(k);if(e)e.textContent=v;};
const es=new EventSource(location.pathname.replace('/jobs/','/api/jobs/')+'/events');
const live=s=>['launching','running','paused','stopping'].includes(s),was=(document.getElementById('state')||{}).textContent;
es.addEventListener('status',ev=>{const j=JSON.parse(ev.data),n=j.counters;
if(live(was)&&!live(j.state)){es.close();location.reload();return;}
set('state',j.state);for(const k in n)set(k,typeof n[k]==='number'&&!Number.isInteger(n[k])?n[k].toFixed(1):n[k]);
pts.push(n.uris_per_s);if(pts.length>120)pts.shift();const m=Math.max(1,...pts);
g.clearRect(0,0,c.width,c.height);g.beginPath();pts.forEach((p,i)=>{const x=i*c.width/120,y=c.height-p/m*(c.height-10);i?g.lineTo(x,y):g.moveTo(x,y);});
g.strokeStyle='#1d3557';g.stroke();g.fillText('max '+m.toFixed(1)+' URIs/s',5,10);});
})();
</script>"#;

pub(crate) async fn show(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
    Path(id): Path<String>,
) -> Response {
    let j = match s.jobs.status(&id) {
        Ok(j) => j,
        Err(e) => return error_page(&op, &e),
    };
    let c = &j.counters;
    let buttons: String = ACTIONS
        .iter()
        .map(|a| {
            format!(
                r#"<form class="inline" method="post" action="/jobs/{i}/action/{a}">{c}<button name="go" value="{a}">{a}</button></form>"#,
                i = esc(&id),
                c = csrf(&op)
            )
        })
        .collect();
    let resume = if j.checkpoints.is_empty() {
        String::new()
    } else {
        format!(
            r#"<form class="inline" method="post" action="/jobs/{i}/action/launch">{c}<input type="hidden" name="checkpoint" value="latest"><button>launch from latest checkpoint</button></form>"#,
            i = esc(&id),
            c = csrf(&op)
        )
    };
    let row = |k: &str, label: &str, v: String| {
        format!(r#"<tr><th>{label}</th><td id="{k}">{v}</td></tr>"#)
    };
    let body = format!(
        r#"<p>State: <strong id="state">{state}</strong> {ending}</p><p>{buttons}{resume}</p>
<p><a href="/jobs/{i}/config">config</a> · <a href="/jobs/{i}/settings">live settings</a> · <a href="/jobs/{i}/queues">queues</a> · <a href="/jobs/{i}/log">crawl.log</a> · <a href="/jobs/{i}/report">report</a> · <a href="/url?job={i}">URL tester</a></p>
<table>{rows}</table><h2>URIs/s</h2>{CHART}<p>Checkpoints: {cps}</p>"#,
        state = esc(&j.state),
        ending = esc(j.ending.as_deref().unwrap_or("")),
        i = esc(&id),
        rows = [
            row("uris_per_s", "URIs/s", format!("{:.1}", c.uris_per_s)),
            row("kb_per_s", "KB/s", format!("{:.1}", c.kb_per_s)),
            row("finished", "done", c.finished.to_string()),
            row("succeeded", "succeeded", c.succeeded.to_string()),
            row("failed", "errors", c.failed.to_string()),
            row("disregarded", "disregarded", c.disregarded.to_string()),
            row("queued", "frontier (queued)", c.queued.to_string()),
            row("in_flight", "in flight", c.in_flight.to_string()),
            row("discovered", "discovered", c.discovered.to_string()),
            row(
                "active_queues",
                "active queues",
                c.active_queues.to_string()
            ),
            row("wire_bytes", "bytes received", c.wire_bytes.to_string()),
        ]
        .concat(),
        cps = esc(&j.checkpoints.join(", ")),
    );
    page(&op, &format!("Job {id}"), &body).into_response()
}

#[derive(Debug, Deserialize)]
pub(crate) struct ActionForm {
    #[serde(default)]
    checkpoint: Option<String>,
}

pub(crate) async fn action(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
    Path((id, action)): Path<(String, String)>,
    Form(f): Form<ActionForm>,
) -> Response {
    match lifecycle::act(&s, &op.who, &id, &action, f.checkpoint.as_deref()).await {
        Ok(_) if action == "teardown" => Redirect::to("/").into_response(),
        Ok(_) => Redirect::to(&format!("/jobs/{id}")).into_response(),
        Err(e) => error_page(&op, &e),
    }
}
