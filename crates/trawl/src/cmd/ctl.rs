//! `trawl ctl`: operator actions on a job, sent to its running crawl or applied to its stopped store.

use std::{io::Write, path::Path, process::ExitCode, time::Duration};

use anyhow::{Context, bail};
use trawl_config::settings::SheetSpec;
use trawl_engine::{
    control::{self, Command, Reply},
    live::SettingsChange,
    report,
};

use crate::cli::CtlAction;

fn optional(value: &str, what: &str) -> anyhow::Result<Option<u64>> {
    if value == "none" {
        return Ok(None);
    }
    match value.parse::<u64>() {
        Ok(n) => Ok(Some(n)),
        Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => {
            bail!("{what} {value} is too large a number")
        }
        Err(_) => bail!("{what} must be a whole number or `none`, not {value:?}"),
    }
}

/// `PATH=VALUE` pairs as a table of settings, each value read as TOML.
fn settings(pairs: &[String]) -> anyhow::Result<toml::Table> {
    let mut table = toml::Table::new();
    for pair in pairs {
        let Some((path, value)) = pair.split_once('=') else {
            bail!("{pair:?} is not PATH=VALUE (for example frontier.min_delay_ms=500)");
        };
        let parsed: toml::Table = match toml::from_str(&format!("v = {value}")) {
            Ok(t) => t,
            Err(_) => bail!(
                "the value of {path} is not a TOML value: {value:?} (quote strings: {path}='\"text\"')"
            ),
        };
        table.insert(path.trim().to_string(), parsed["v"].clone());
    }
    Ok(table)
}

/// The one `[[sheet]]` table in `file`.
fn sheet(file: &Path) -> anyhow::Result<SheetSpec> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    SheetSpec::parse_one(&text).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))
}

/// The seeds of a Heritrix-style seed file. `+`/`-` lines change the scope, which a running crawl takes only
/// from its crawl.toml, so they are refused with the line.
fn seed_file(file: &Path) -> anyhow::Result<Vec<String>> {
    use trawl_config::settings::seed_list::SeedLine;
    let lines = trawl_config::settings::SeedsConfig::read_file(Path::new("."), file)?;
    let mut urls = Vec::new();
    for (line, what) in lines {
        match what {
            SeedLine::Seed(url) => urls.push(url),
            SeedLine::Accept(t) | SeedLine::Reject(t) | SeedLine::Other(t) => anyhow::bail!(
                "{}, line {line}: {t:?} is not a seed; `+`/`-` SURT prefix lines change the scope: put them in \
                 the seed file of the job's crawl.toml ([seeds] files) and resume it",
                file.display()
            ),
        }
    }
    Ok(urls)
}

fn command(action: CtlAction) -> anyhow::Result<Command> {
    Ok(match action {
        CtlAction::Queues => Command::Queues,
        CtlAction::AddSeeds { mut urls, file } => {
            if let Some(file) = file {
                urls.extend(seed_file(&file)?);
            }
            Command::AddSeeds { urls }
        }
        CtlAction::Lookup { url } => Command::Lookup { url },
        CtlAction::PauseQueue { queue } => Command::PauseQueue { queue },
        CtlAction::UnpauseQueue { queue } => Command::UnpauseQueue { queue },
        CtlAction::RetireQueue { queue } => Command::RetireQueue { queue },
        CtlAction::DeleteQueue { queue } => Command::DeleteQueue { queue },
        CtlAction::QueueDelay { queue, delay } => Command::SetQueueDelay {
            delay_ms: optional(&delay, "the delay")?,
            queue,
        },
        CtlAction::QueueBudget { queue, budget } => Command::SetQueueBudget {
            budget: optional(&budget, "the budget")?,
            queue,
        },
        CtlAction::Set { settings: pairs } => Command::Settings {
            change: SettingsChange::Set(settings(&pairs)?),
        },
        CtlAction::PutSheet { file } => Command::Settings {
            change: SettingsChange::Sheet(sheet(&file)?),
        },
        CtlAction::RemoveSheet { name } => Command::Settings {
            change: SettingsChange::RemoveSheet(name),
        },
        CtlAction::Report { .. } => Command::Reports,
        CtlAction::Pause => Command::Pause,
        CtlAction::Unpause => Command::Unpause,
        CtlAction::Checkpoint => Command::Checkpoint,
        CtlAction::Stop => Command::Stop,
        CtlAction::Warcs => bail!(
            "`warcs` lists the WARC files of a crawl shared through Redis: give --frontier redis://HOST:PORT/DB"
        ),
        CtlAction::Workers => bail!(
            "`workers` lists the workers of a crawl shared through Redis: give --frontier redis://HOST:PORT/DB"
        ),
    })
}

/// `trawl ctl --frontier URL JOB …`: acts on a crawl shared through Redis, for every worker at once. A full
/// Redis takes no write: said as a command not applied, whatever the command (xt44a F3, xt46c N6: the
/// workers' "the crawl waits … and it goes on" read as if it were taken).
pub(crate) fn shared(
    url: &str,
    job: &Path,
    json: bool,
    action: CtlAction,
) -> anyhow::Result<ExitCode> {
    let change = change_of(&action);
    let stops = matches!(action, CtlAction::Pause | CtlAction::Stop);
    shared_action(url, job, json, action).map_err(|e| {
        // A command that only reads says its own error (review 86 R7: "not recorded" read as if it wrote).
        let Some(change) = change else {
            return e;
        };
        let full = e.chain().any(|c| {
            matches!(
                c.downcast_ref::<trawl_frontier::SharedError>(),
                Some(trawl_frontier::SharedError::Full(_))
            ) || matches!(
                c.downcast_ref::<trawl_engine::Error>(),
                Some(trawl_engine::Error::RemoteFull(_))
            )
        });
        if !full {
            return e;
        }
        anyhow::anyhow!(
            "{} is full (maxmemory reached): {change} was not recorded, nothing was changed; raise maxmemory \
             (`redis-cli CONFIG SET maxmemory …`) and ask again{}",
            trawl_engine::shared_job::without_password(url),
            if stops {
                ", or stop each worker on its machine (`trawl ctl JOB stop` on its job, or Ctrl-C)"
            } else {
                ""
            }
        )
    })
}

/// What an action sent to a shared crawl changes, as a refusal names it; `None` for one that only reads.
fn change_of(action: &CtlAction) -> Option<&'static str> {
    Some(match action {
        CtlAction::AddSeeds { .. } => "the seeds",
        CtlAction::PauseQueue { .. } => "the queue's pause",
        CtlAction::UnpauseQueue { .. } => "the queue's unpause",
        CtlAction::RetireQueue { .. } => "the queue's retirement",
        CtlAction::DeleteQueue { .. } => "the queue's deletion",
        CtlAction::QueueDelay { .. } => "the queue's delay",
        CtlAction::QueueBudget { .. } => "the queue's budget",
        CtlAction::Set { .. } | CtlAction::PutSheet { .. } | CtlAction::RemoveSheet { .. } => {
            "the settings' change"
        }
        CtlAction::Pause => "the crawl's pause",
        CtlAction::Unpause => "the crawl's unpause",
        CtlAction::Stop => "the crawl's stop",
        _ => return None,
    })
}

/// [`shared`]'s action.
fn shared_action(url: &str, job: &Path, json: bool, action: CtlAction) -> anyhow::Result<ExitCode> {
    let name = trawl_engine::job_name(job);
    // Messages name the Redis without its password.
    let shown = trawl_engine::shared_job::without_password(url);
    let mut f = trawl_frontier::SharedFrontier::<String>::connect(
        url,
        &name,
        "ctl",
        Duration::from_secs(1),
        0,
    )
    .with_context(|| format!("--frontier {shown}"))?;
    if f.config()?.is_none() {
        let crawls = trawl_frontier::shared_crawls(url).unwrap_or_default();
        bail!(
            "{shown} holds no crawl named {name:?}{}",
            if crawls.is_empty() {
                String::new()
            } else {
                format!(" (it holds {})", crawls.join(", "))
            }
        );
    }
    let mut out = std::io::stdout().lock();
    let state = match action {
        CtlAction::AddSeeds { mut urls, file } => {
            if let Some(file) = file {
                urls.extend(seed_file(&file)?);
            }
            writeln!(out, "{}", control::add_shared_seeds(url, &name, &urls)?)?;
            return Ok(ExitCode::SUCCESS);
        }
        CtlAction::Queues => {
            // The first 1,000 by their next turn, and every paused or retired one.
            let queues = f.queues(1000)?;
            if json {
                writeln!(out, "{}", serde_json::to_string(&queues)?)?;
                return Ok(ExitCode::SUCCESS);
            }
            let rows = queues.into_iter().map(|q| trawl_engine::report::QueueRow {
                name: q.name,
                state: q.state,
                queued: q.queued,
                in_flight: q.in_flight as usize,
                spent: q.spent,
                budget: q.budget,
                delay_ms: q.delay_ms,
                wait_ms: q.wait_ms,
            });
            queue_table(&mut out, rows)?;
            return Ok(ExitCode::SUCCESS);
        }
        CtlAction::PauseQueue { queue } => return queue_op(&mut f, "pause", &queue, None),
        CtlAction::UnpauseQueue { queue } => return queue_op(&mut f, "unpause", &queue, None),
        CtlAction::RetireQueue { queue } => return queue_op(&mut f, "retire", &queue, None),
        CtlAction::DeleteQueue { queue } => return queue_op(&mut f, "delete", &queue, None),
        CtlAction::QueueDelay { queue, delay } => {
            let ms = optional(&delay, "the delay")?;
            if let Some(ms) = ms.filter(|&ms| ms > control::MAX_QUEUE_DELAY_MS) {
                bail!("{}", control::too_long_a_delay(ms));
            }
            return queue_op(&mut f, "delay", &queue, ms);
        }
        CtlAction::QueueBudget { queue, budget } => {
            let n = optional(&budget, "the budget")?;
            return queue_op(&mut f, "budget", &queue, n);
        }
        CtlAction::Set { .. } | CtlAction::PutSheet { .. } | CtlAction::RemoveSheet { .. } => {
            let Command::Settings { change } = command(action)? else {
                unreachable!("settings actions make settings commands")
            };
            let text = f.config()?.unwrap_or_default();
            let here = Path::new("crawl.toml");
            let config = trawl_config::CrawlConfig::parse(&text, here)?;
            let seeds = config
                .seeds
                .urls
                .iter()
                .map(|s| trawl_url::parse_seed(s))
                .collect::<Result<Vec<_>, _>>()?;
            let changed = change
                .apply(&config, &seeds, Path::new("."))
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            // The published settings never hold a password: one given here would be lost on the way and
            // every worker's fetches through the proxy fail (xt14c F2).
            if let Some(key) = changed.inline_secret() {
                anyhow::bail!(
                    "{key}: a shared crawl's settings (in Redis) never hold a password: name the proxy user \
                     without one and set TRAWL_PROXY_PASSWORD on every worker; nothing was changed"
                );
            }
            let version = f.publish_settings(&changed.to_toml())?;
            writeln!(
                out,
                "{} (settings version {version}; every worker takes it up within a second)",
                change.describe()
            )?;
            return Ok(ExitCode::SUCCESS);
        }
        CtlAction::Pause => "pause",
        CtlAction::Unpause => "run",
        CtlAction::Stop => "stop",
        CtlAction::Workers => {
            let workers = f.workers()?;
            if json {
                writeln!(out, "{}", serde_json::to_string(&workers)?)?;
                return Ok(ExitCode::SUCCESS);
            }
            writeln!(
                out,
                "{:<32} {:<8} {:>10} {:>8} {:>7}",
                "worker", "state", "done", "URIs/s", "leases"
            )?;
            for w in &workers {
                let alive = w.state();
                writeln!(
                    out,
                    "{:<32} {:<8} {:>10} {:>8.1} {:>7}",
                    w.worker,
                    alive,
                    w.done,
                    w.uris_per_s(),
                    w.leases
                )?;
            }
            return Ok(ExitCode::SUCCESS);
        }
        CtlAction::Warcs => {
            let warcs = f.warcs()?;
            if json {
                writeln!(out, "{}", serde_json::to_string(&warcs)?)?;
            } else {
                for (worker, path, bytes) in warcs {
                    writeln!(out, "{worker}\t{path}\t{bytes}")?;
                }
            }
            return Ok(ExitCode::SUCCESS);
        }
        CtlAction::Report { name: report } if report == "crawl" => {
            let c = f.counts()?;
            // Whether it runs, is paused or was stopped (xt16b F8), as the web API says it.
            let state = f.state()?;
            // Nothing left anywhere in a crawl let run: its workers found it empty and ended (xt21a F6: it
            // was said to be running).
            let finished = c.finished(&state);
            // The queues paused or retired that hold URIs keep the crawl from ending (xt44a F1).
            let (held_queues, held_uris) = trawl_frontier::SharedQueue::held(&f.queues(1)?).unzip();
            if json {
                writeln!(
                    out,
                    "{}",
                    serde_json::json!({
                        "state": state, "finished": finished,
                        "queued": c.queued, "in_flight": c.in_flight, "later": c.later,
                        "discovered": c.discovered, "refused": c.refused, "done": c.done,
                        "reclaimed": c.reclaimed, "active_queues": c.active_queues,
                        "held_queues": held_queues.unwrap_or(0), "held_uris": held_uris.unwrap_or(0),
                    })
                )?;
            } else {
                let state = match state.as_str() {
                    "pause" => "paused",
                    "stop" => "stopped",
                    _ if finished => "finished: nothing queued, in flight or due later",
                    _ => "running",
                };
                writeln!(
                    out,
                    "crawl {name:?} at {shown} ({state}): {} done, {} queued, {} in flight, {} due later, {} \
                     discovered, {} refused before queued, {} leases reclaimed from dead workers",
                    c.done, c.queued, c.in_flight, c.later, c.discovered, c.refused, c.reclaimed
                )?;
                if let (Some(queues), Some(uris)) = (held_queues, held_uris) {
                    writeln!(
                        out,
                        "{uris} URIs wait in {queues} queue{} paused or retired by the operator: the crawl ends \
                         when none is left (`unpause-queue Q` takes one up again, `delete-queue Q` drops its URIs)",
                        if queues == 1 { "" } else { "s" }
                    )?;
                }
            }
            return Ok(ExitCode::SUCCESS);
        }
        CtlAction::Lookup { .. } => bail!(
            "`lookup` does not exist for a shared crawl: its seen set in Redis keeps fingerprints, not URLs, \
             and no worker's job holds the crawl's queues; look for the URL in each worker's crawl.log \
             (JOB/logs/crawl.log)"
        ),
        CtlAction::Checkpoint => bail!(
            "`checkpoint` does not exist for a shared crawl: its state is in Redis, kept by Redis's own \
             persistence (appendonly, or a snapshot with `redis-cli -u {shown} BGSAVE`); nothing was written"
        ),
        CtlAction::Report { name: report } => bail!(
            "the report {report:?} is one worker's: run `trawl ctl JOB report {report}` without --frontier \
             on each worker's job directory (with --frontier: `report crawl`, the crawl-wide counts)"
        ),
    };
    f.set_state(state)?;
    writeln!(
        out,
        "crawl {name:?}: {state} (every worker obeys at its next claim)"
    )?;
    Ok(ExitCode::SUCCESS)
}

/// One queue action of a shared crawl, said as the local one is.
fn queue_op(
    f: &mut trawl_frontier::SharedFrontier<String>,
    op: &str,
    queue: &str,
    value: Option<u64>,
) -> anyhow::Result<ExitCode> {
    // The name as given first; else the queue of the host it names, without its port, as in one process
    // (xt21a F5), looked up among the crawl's queues only then (review 71 R3: one HKEYS over every queue).
    let mut queue = queue.to_string();
    let mut done = f.queue_action(op, &queue, value)?;
    if done.is_none() {
        let text = f.config()?.unwrap_or_default();
        let config = trawl_config::CrawlConfig::parse(&text, Path::new("crawl.toml"))?;
        let names = f.queue_names()?;
        match trawl_engine::control::named_queue(&queue, &config, || {
            names.iter().map(String::as_str)
        }) {
            Ok(Some(found)) if found != queue => {
                done = f.queue_action(op, &found, value)?;
                queue = found;
            }
            Ok(_) => {}
            Err(unclear) => {
                say!("trawl: {unclear}");
                return Ok(ExitCode::FAILURE);
            }
        }
    }
    let Some(n) = done else {
        say!(
            "trawl: no queue {queue:?}: name a queue by its host (`example.com`, `example.com:8080`) or as \
             `queues` shows it"
        );
        return Ok(ExitCode::FAILURE);
    };
    let said = match op {
        "delete" => format!("{n} URIs dropped from queue {queue}"),
        "delay" | "budget" => format!(
            "queue {queue} {op} {}{}",
            value.map_or("cleared".to_string(), |v| v.to_string()),
            match value.filter(|_| op == "budget") {
                Some(budget) => budget_note(f, &queue, budget)?,
                None => String::new(),
            }
        ),
        _ => format!("queue {queue} {op}d"),
    };
    out!("{said} (every worker)");
    Ok(ExitCode::SUCCESS)
}

/// What a budget under what a shared queue was given does, as one process says it (xt44a F2): the URIs it
/// holds are still fetched.
fn budget_note(
    f: &mut trawl_frontier::SharedFrontier<String>,
    queue: &str,
    budget: u64,
) -> anyhow::Result<String> {
    let (given, queued) = f.queue_counts(queue)?;
    Ok(if given >= budget && queued > 0 {
        format!(
            ": the queue was given {given} URIs already, so it takes no more; the {queued} it holds are still \
             fetched (retiring or deleting the queue stops them)"
        )
    } else {
        String::new()
    })
}

/// How long a command waits for a crawl that is ending (writing its last checkpoint) to let go of the job.
const ENDING_WAIT: Duration = Duration::from_secs(30 * 60);

/// Sends `command` from `by` to the job's running crawl, which logs the change it makes, or applies it to the
/// stopped job and logs it. A crawl that is ending (writing its last checkpoint after its pid file went) or
/// starting still holds the job: waited for, up to 10 s, rather than refused at once.
fn deliver(job: &Path, command: &Command, by: &str) -> anyhow::Result<Reply> {
    let wait = Duration::from_secs(10);
    let start = std::time::Instant::now();
    let mut said = false;
    // Whether the crawl ran (or was ending) as this was asked: its end then answers a checkpoint (xt27a F3).
    let asked_live = (control::running_pid(job).is_some() || trawl_engine::job::is_ending(job))
        .then(std::time::SystemTime::now);
    loop {
        let left = wait.saturating_sub(start.elapsed());
        if control::running_pid(job).is_some() {
            if let Some(reply) = control::send_file(job, command, by, left)? {
                return Ok(reply);
            }
            continue;
        }
        // A crawl writing its last checkpoint (`state/ending`) may take minutes over a large frontier: waited
        // for as long as a command it took (review 74 R3).
        let ending = trawl_engine::job::is_ending(job);
        match control::apply_offline_asked(job, command, asked_live) {
            Err(trawl_engine::Error::JobInUse { .. })
                if !left.is_zero() || (ending && start.elapsed() < ENDING_WAIT) =>
            {
                if !said && start.elapsed() > Duration::from_secs(1) {
                    say!(
                        "waiting for the trawl process that holds {} to let go of it{}…",
                        job.display(),
                        if ending {
                            " (the crawl is ending: writing its last checkpoint)"
                        } else {
                            ""
                        }
                    );
                    said = true;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            other => {
                let reply = other?;
                // Every change goes into the job's config-changes.log, as the web API's do (xt17b F10).
                if let (Reply::Done { message }, Some(what)) = (&reply, command.change()) {
                    trawl_engine::job::record_change(job, by, &format!("{what}: {message}"));
                }
                return Ok(reply);
            }
        }
    }
}

pub(crate) fn ctl(job: &Path, json: bool, action: CtlAction) -> anyhow::Result<ExitCode> {
    let wanted = match &action {
        CtlAction::Report { name } if !report::NAMES.contains(&name.as_str()) => bail!(
            "no report {name:?}; the reports are {}",
            report::NAMES.join(", ")
        ),
        CtlAction::Report { name } => Some(name.clone()),
        _ => None,
    };
    let command = command(action)?;
    let by = format!(
        "ctl@{}",
        std::env::var("USER")
            .ok()
            .filter(|u| !u.trim().is_empty())
            .unwrap_or_else(|| "local".into())
    );
    let reply = match deliver(job, &command, &by) {
        Ok(reply) => reply,
        // A refusal (a restore cut short, a shared job, one in use) is a failed reply to a script reading
        // `--json`, as the crawl's own refusals are (xt26a N10).
        Err(e) if json => Reply::Failed {
            message: format!("{e:#}"),
        },
        Err(e) => return Err(e),
    };
    let mut out = std::io::stdout().lock();
    if let (Reply::Reports { reports }, Some(name)) = (&reply, wanted) {
        for r in reports.iter().filter(|r| r.name == name) {
            if json {
                writeln!(out, "{:#}", r.json)?;
            } else {
                write!(out, "{}", r.text)?;
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    if json {
        writeln!(out, "{}", serde_json::to_string(&reply)?)?;
    }
    match reply {
        Reply::Failed { message } => {
            say!("trawl: {message}");
            return Ok(ExitCode::FAILURE);
        }
        _ if json => {}
        Reply::Done { message } => writeln!(out, "{message}")?,
        Reply::Queues { queues } => queue_table(&mut out, queues)?,
        Reply::Lookup {
            url, state, status, ..
        } => match status {
            Some(s) => writeln!(out, "{state} {s} {url}")?,
            // A URI refused before it was queued (the scope, a URL filter, a budget) is only in crawl.log
            // (xt12a F17: "unknown" read as "never seen").
            None if state == "unknown" => writeln!(
                out,
                "{state} {url} (never queued: the crawl did not find it, or refused it before queueing it — by \
                 the scope, a URL filter or a queue's budget; crawl.log has a line for a refusal by a budget, a \
                 filter or a scope rule after the first, docs/crawl-log.md)"
            )?,
            None if state == "fetched" => writeln!(
                out,
                "{state} {url} (by a rendered page's browser: its crawl.log line is that page's `E` request; a \
                 link queued before is not fetched again, a seed is)"
            )?,
            None if state == "seen" => writeln!(
                out,
                "{state} {url} (not queued by itself: asked for by a rendered page's browser, whose `E` line in \
                 crawl.log says what came back, or a robots.txt about to be fetched)"
            )?,
            None => writeln!(out, "{state} {url}")?,
        },
        _ => {}
    }
    Ok(ExitCode::SUCCESS)
}

/// The `queues` table, one process's or a shared crawl's: an operator's delay shows in both (xt22a F2).
fn queue_table(
    out: &mut impl Write,
    rows: impl IntoIterator<Item = trawl_engine::report::QueueRow>,
) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<40} {:<11} {:>9} {:>6} {:>9} {:>9} {:>9} {:>9}",
        "queue", "state", "queued", "busy", "spent", "budget", "delay ms", "wait ms"
    )?;
    let opt = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
    for q in rows {
        writeln!(
            out,
            "{:<40} {:<11} {:>9} {:>6} {:>9} {:>9} {:>9} {:>9}",
            q.name,
            q.state,
            q.queued,
            q.in_flight,
            q.spent,
            opt(q.budget),
            opt(q.delay_ms),
            q.wait_ms
        )?;
    }
    Ok(())
}
