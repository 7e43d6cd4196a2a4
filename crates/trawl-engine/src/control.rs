//! Operator actions on a crawl: the same commands whether the crawl is running (sent through its
//! [`CrawlHandle`](crate::CrawlHandle) or dropped as a file into `JOB/control/`) or stopped (applied straight to
//! its frontier store by [`apply_offline`]).

use std::{path::Path, time::Duration};

use serde::{Deserialize, Serialize};
use trawl_frontier::{Control, Frontier, UrlStatus};
use trawl_url::Url;

pub use crate::report::QueueRow;
use crate::{Error, job::Job};
use trawl_config::CrawlConfig;
use trawl_config::CrawlUri;

/// One operator action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Command {
    /// Add seed URLs (scheduled like seeds; already-seen ones are skipped).
    AddSeeds {
        /// The URLs.
        urls: Vec<String>,
    },
    /// Stop taking URIs from a queue until it is unpaused.
    PauseQueue {
        /// The queue key (a SURT authority such as `org,example,`).
        queue: String,
    },
    /// Take URIs from a paused or retired queue again.
    UnpauseQueue {
        /// The queue key.
        queue: String,
    },
    /// Take no more URIs from a queue; its items stay queued.
    RetireQueue {
        /// The queue key.
        queue: String,
    },
    /// Drop every URI waiting in a queue.
    DeleteQueue {
        /// The queue key.
        queue: String,
    },
    /// Set (or with `null` clear) a queue's politeness delay, replacing the computed one.
    SetQueueDelay {
        /// The queue key.
        queue: String,
        /// The delay in ms.
        delay_ms: Option<u64>,
    },
    /// Set (or with `null` clear) a queue's budget (URIs ever scheduled).
    SetQueueBudget {
        /// The queue key.
        queue: String,
        /// The budget.
        budget: Option<u64>,
    },
    /// List the queues.
    Queues,
    /// Look up a URL: unknown, queued, or done with its status.
    Lookup {
        /// The URL.
        url: String,
    },
    /// Change settings: a property for every URI, or a sheet put or removed (saved to crawl.toml).
    Settings {
        /// The change.
        change: crate::live::SettingsChange,
    },
    /// Every report, computed now from the running crawl.
    Reports,
    /// Pause the whole crawl: URIs in flight finish, no new ones start.
    Pause,
    /// Resume a paused crawl.
    Unpause,
    /// Write a checkpoint now.
    Checkpoint,
    /// Stop the crawl cleanly (checkpoint, close archives, reports).
    Stop,
}

impl Command {
    /// What the command changes, as the job's `config-changes.log` names it (`None` for a command that only
    /// reads: queues, lookup, reports).
    pub fn change(&self) -> Option<String> {
        let or_cleared = |v: &Option<u64>| v.map_or("cleared".to_owned(), |v| v.to_string());
        Some(match self {
            Command::AddSeeds { urls } => format!("add-seeds {}", urls.join(" ")),
            Command::PauseQueue { queue } => format!("pause-queue {queue}"),
            Command::UnpauseQueue { queue } => format!("unpause-queue {queue}"),
            Command::RetireQueue { queue } => format!("retire-queue {queue}"),
            Command::DeleteQueue { queue } => format!("delete-queue {queue}"),
            Command::SetQueueDelay { queue, delay_ms } => {
                format!("queue-delay {queue} {}", or_cleared(delay_ms))
            }
            Command::SetQueueBudget { queue, budget } => {
                format!("queue-budget {queue} {}", or_cleared(budget))
            }
            Command::Settings { .. } => "settings".to_owned(),
            Command::Pause => "pause".to_owned(),
            Command::Unpause => "unpause".to_owned(),
            Command::Checkpoint => "checkpoint".to_owned(),
            Command::Stop => "stop".to_owned(),
            Command::Queues | Command::Lookup { .. } | Command::Reports => return None,
        })
    }

    /// The queue a queue command names.
    fn queue(&self) -> Option<&str> {
        match self {
            Command::PauseQueue { queue }
            | Command::UnpauseQueue { queue }
            | Command::RetireQueue { queue }
            | Command::DeleteQueue { queue }
            | Command::SetQueueDelay { queue, .. }
            | Command::SetQueueBudget { queue, .. } => Some(queue),
            _ => None,
        }
    }

    /// The same queue command for the queue `name`.
    fn with_queue(&self, name: String) -> Command {
        let mut command = self.clone();
        match &mut command {
            Command::PauseQueue { queue }
            | Command::UnpauseQueue { queue }
            | Command::RetireQueue { queue }
            | Command::DeleteQueue { queue }
            | Command::SetQueueDelay { queue, .. }
            | Command::SetQueueBudget { queue, .. } => *queue = name,
            _ => {}
        }
        command
    }
}

/// The answer to a [`Command`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Reply {
    /// Done; a sentence saying what happened.
    Done {
        /// What happened.
        message: String,
    },
    /// The queues, busiest first.
    Queues {
        /// One row per queue.
        queues: Vec<QueueRow>,
    },
    /// What is known of a URL.
    Lookup {
        /// The URL as given.
        url: String,
        /// Its uniq key.
        uniq_key: String,
        /// `unknown`, `queued` or `done`.
        state: String,
        /// The final status when done.
        status: Option<i32>,
    },
    /// Reports computed on demand.
    Reports {
        /// Every report, in the order of [`NAMES`](crate::report::NAMES).
        reports: Vec<crate::report::Report>,
    },
    /// The command could not be carried out.
    Failed {
        /// Why, naming the input.
        message: String,
    },
}

fn done(message: impl Into<String>) -> Reply {
    Reply::Done {
        message: message.into(),
    }
}

fn failed(message: impl Into<String>) -> Reply {
    Reply::Failed {
        message: message.into(),
    }
}

/// The seeds an operator adds, as the crawl reads them (`example.com/x` as `http://example.com/x`), so that
/// crawl.toml gets one spelling however a seed was typed (review 71 R5); a bare word refuses them all (xt23a
/// F3: `add-seeds pause` queued the host `pause`).
pub(crate) fn typed_seeds(urls: &[String]) -> Result<Vec<String>, Reply> {
    urls.iter()
        .map(|raw| {
            trawl_url::parse_typed_seed(raw)
                .map(|url| url.to_string())
                .map_err(|e| failed(format!("seed {e}; no seed was queued")))
        })
        .collect()
}

/// A seed an operator adds, named and ranked as the crawl does, with its queue.
fn seed_item(
    raw: &str,
    naming: &crate::chain::naming::Naming,
    assign: &trawl_config::assign::QueueAssigner,
    config: &CrawlConfig,
) -> Result<(String, CrawlUri), trawl_url::Error> {
    let url = trawl_url::parse_seed(raw)?;
    let mut uri = CrawlUri::seed(url, String::new());
    naming.name(&mut uri);
    uri.rank(config, config);
    Ok((assign.key(&uri.url), uri))
}

/// Adds seeds to the crawl `job` shared through the Redis at `url` (`trawl ctl --frontier … add-seeds`):
/// named and queued as the crawl's own seeds, through the shared seen set, for whichever worker claims them.
pub fn add_shared_seeds(url: &str, job: &str, urls: &[String]) -> Result<String, crate::Error> {
    let urls = &urls
        .iter()
        .map(|raw| trawl_url::parse_typed_seed(raw).map(|u| u.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    let remote = |e: trawl_frontier::SharedError| {
        let shown = crate::shared_job::without_password(url);
        match e {
            trawl_frontier::SharedError::Full(_) => crate::Error::RemoteFull(shown),
            e => crate::Error::Remote(format!("{shown}: {e}")),
        }
    };
    let mut f = trawl_frontier::SharedFrontier::<CrawlUri>::connect(
        url,
        job,
        "ctl",
        std::time::Duration::from_secs(1),
        0,
    )
    .map_err(remote)?;
    let text = f
        .config()
        .map_err(remote)?
        .ok_or_else(|| crate::Error::NoSharedCrawl {
            // Said without its password (review 64b R1).
            url: crate::shared_job::without_password(url),
            job: job.to_string(),
            crawls: trawl_frontier::shared_crawls(url).unwrap_or_default(),
        })?;
    let config = CrawlConfig::parse(&text, std::path::Path::new("crawl.toml"))?;
    let config_error = |message: String| crate::Error::Config {
        path: "crawl.toml".into(),
        message,
    };
    let naming = crate::chain::naming::Naming::from_config(&config)
        .map_err(|e| config_error(e.to_string()))?;
    let assign = trawl_config::assign::QueueAssigner::new(
        config.frontier.queue_assignment,
        config.frontier.parallel_queues,
    );
    let batch = urls
        .iter()
        .map(|raw| seed_item(raw, &naming, &assign, &config))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| config_error(format!("seed {e}")))?;
    // The seeds join the crawl's published settings first, so every worker's scope takes them in
    // (workers look at the settings version each second) before one claims them and judges their links.
    let mut widened = config.clone();
    for raw in urls {
        if !widened.seeds.urls.contains(raw) {
            widened.seeds.urls.push(raw.clone());
        }
    }
    let published = widened.seeds.urls.len() > config.seeds.urls.len();
    if published {
        f.publish_settings(&widened.to_toml()).map_err(remote)?;
        std::thread::sleep(SETTINGS_TAKEN_UP);
    }
    let mut f = f.with_budget(config.frontier.max_uris_per_host);
    let results = f.schedule_batch(batch).map_err(remote)?;
    let added = results
        .iter()
        .filter(|r| **r == trawl_frontier::Scheduled::Queued)
        .count();
    Ok(format!(
        "{added} of {} seeds queued for every worker (the rest were already known); every worker's scope \
         takes them in as seeds",
        urls.len()
    ))
}

/// How long `add_shared_seeds` waits between publishing the widened seeds and queueing them: a worker looks
/// at the settings version once a second.
const SETTINGS_TAKEN_UP: std::time::Duration = std::time::Duration::from_millis(1500);

/// The seeds `urls` an operator adds, each with its queue; all or none: the refusal names the first bad one.
fn seed_items(urls: &[String], config: &CrawlConfig) -> Result<Vec<(String, CrawlUri)>, Reply> {
    let naming =
        crate::chain::naming::Naming::from_config(config).map_err(|e| failed(e.to_string()))?;
    let assign = trawl_config::assign::QueueAssigner::new(
        config.frontier.queue_assignment,
        config.frontier.parallel_queues,
    );
    urls.iter()
        .map(|raw| seed_item(raw, &naming, &assign, config))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| failed(format!("seed {e}; no seed was queued")))
}

/// Queues seed `items`; returns how many were new.
fn queue_seeds(frontier: &mut Frontier<CrawlUri>, items: Vec<(String, CrawlUri)>) -> usize {
    items
        .into_iter()
        .map(|(queue, uri)| frontier.schedule(&queue, uri))
        .filter(|s| *s == trawl_frontier::Scheduled::Queued)
        .count()
}

/// Seeds added to a stopped job: queued, and written into its crawl.toml's `[seeds] urls` (its comments
/// kept), so that its next launch takes them as seeds, its scope widened to them as to the others. The file
/// is written first: a seed that is refused, or a file that cannot be written, changes nothing.
fn add_seeds_offline(
    job: &Job,
    frontier: &mut Frontier<CrawlUri>,
    urls: &[String],
    mut config: CrawlConfig,
) -> Result<Reply, Error> {
    let urls = match typed_seeds(urls) {
        Ok(urls) => urls,
        Err(refused) => return Ok(refused),
    };
    let items = match seed_items(&urls, &config) {
        Ok(items) => items,
        Err(refused) => return Ok(refused),
    };
    let mut new = 0;
    for url in &urls {
        if !config.seeds.urls.contains(url) {
            config.seeds.urls.push(url.clone());
            new += 1;
        }
    }
    if new > 0 {
        job.write_config(&config)?;
    }
    let added = queue_seeds(frontier, items);
    Ok(done(format!(
        "{added} of {} seeds queued (the rest were already known); {new} added to crawl.toml's [seeds] urls, \
         so from the next launch the crawl's scope takes them in as seeds",
        urls.len()
    )))
}

/// The longest delay an operator may set for a queue: a day. Longer is a typo (xt23a F4: 50000000 for
/// 5000, and u64::MAX, a wait of 136 years); a queue to be left alone is paused.
pub const MAX_QUEUE_DELAY_MS: u64 = 86_400_000;

/// The refusal of a queue delay over [`MAX_QUEUE_DELAY_MS`].
pub fn too_long_a_delay(ms: u64) -> String {
    format!(
        "a queue delay of {ms} ms is over a day ({MAX_QUEUE_DELAY_MS} ms): give it in milliseconds, or pause \
         the queue to leave it alone; nothing was changed"
    )
}

/// The queue an operator's `given` name stands for among a crawl's queues (`names` lists them, in one
/// process or in Redis): the queue of that name, else the queue of the host or URL it names; `None` when
/// neither is a queue. See [`queue_of_host`].
pub fn named_queue<'a, I: Iterator<Item = &'a str>>(
    given: &str,
    config: &CrawlConfig,
    names: impl Fn() -> I,
) -> Result<Option<String>, Error> {
    let has = |name: &str| names().any(|q| q == name);
    if has(given) {
        return Ok(Some(given.to_string()));
    }
    Ok(queue_of_host(given, config, &has, &names)?.filter(|name| has(name)))
}

/// The queue a host name (`example.com`, `example.com:8080`) or URL stands for, as the crawl names queues
/// (`com,example,`), so an operator may name a queue by its host. A host given without a port stands for
/// its one queue on another port too (`site.test` for `test,site,:8731`: xt14b F10); several are a refusal
/// naming them. `has` says whether a queue of a name exists, `names` lists them.
fn queue_of_host<'a, I: Iterator<Item = &'a str>>(
    given: &str,
    config: &CrawlConfig,
    has: &dyn Fn(&str) -> bool,
    names: impl Fn() -> I,
) -> Result<Option<String>, Error> {
    let Some(url) = Url::parse(given)
        .ok()
        .filter(|u| u.has_host())
        .or_else(|| Url::parse(&format!("http://{given}/")).ok())
    else {
        return Ok(None);
    };
    // By host or domain only: an `ip` key would mean a DNS lookup here.
    if config.frontier.queue_assignment == trawl_config::assign::QueueAssignment::Ip {
        return Ok(None);
    }
    let assign = trawl_config::assign::QueueAssigner::new(config.frontier.queue_assignment, 1);
    let name = assign.key(&url);
    // A split queue (`parallel_queues`) is several queues, not one: its parts are named (xt21a F8: "name a
    // queue by its host" was said to an operator who had).
    let parts = config.frontier.parallel_queues;
    if parts > 1 {
        let named = format!("{name}#");
        if names().any(|q| q.starts_with(&named)) {
            return Err(Error::UnclearQueue(format!(
                "{given:?} is split in {parts} queues (frontier.parallel_queues): name one of them, \
                 {name}#0 to {name}#{}",
                parts - 1
            )));
        }
        return Ok(None);
    }
    // A port written is a port meant, a default one too (`http://h:80/`, review 63 R8): read from the
    // authority as given, which the parsed URL forgets for a default port.
    let authority = given
        .split_once("://")
        .map_or(given, |(_, rest)| rest)
        .split(['/', '?', '#'])
        .next()
        .unwrap_or_default();
    let port_given = url.port().is_some()
        || authority
            .rsplit_once(':')
            .is_some_and(|(_, p)| p.parse::<u16>().is_ok());
    if has(&name) || port_given {
        return Ok(Some(name));
    }
    let mut ported: Vec<&str> = names()
        .filter(|q| {
            q.strip_prefix(name.as_str())
                .and_then(|rest| rest.strip_prefix(':'))
                .is_some_and(|port| port.parse::<u16>().is_ok())
        })
        .collect();
    match ported.len() {
        0 => Ok(Some(name)),
        1 => Ok(ported.pop().map(str::to_owned)),
        _ => {
            ported.sort_unstable();
            Err(Error::UnclearQueue(format!(
                "{given:?} has a queue on each of several ports ({}): give the host with its port \
                 (`{given}:PORT`) or the queue's name",
                ported.join(", ")
            )))
        }
    }
}

/// Applies a frontier command (everything but pause, unpause, checkpoint and stop, which need a running
/// crawl). `identity` and `classes` name URLs as the crawl does.
pub(crate) fn apply_to_frontier(
    frontier: &mut Frontier<CrawlUri>,
    command: &Command,
    config: &CrawlConfig,
) -> Reply {
    let queue_op = |ok: bool, queue: &str, what: &str| {
        if ok {
            done(format!("queue {queue} {what}"))
        } else {
            failed(format!(
                "no queue {queue:?}: name a queue by its host (`example.com`, `example.com:8080`) or as the \
                 queue list shows it (`com,example,`, `127.0.0.1:8080` for an address)"
            ))
        }
    };
    let resolved;
    let command = match command.queue() {
        Some(given) if !frontier.has_queue(given) => {
            let has = |name: &str| frontier.has_queue(name);
            match queue_of_host(given, config, &has, || frontier.queue_names()) {
                Ok(Some(name)) if frontier.has_queue(&name) => {
                    resolved = command.with_queue(name);
                    &resolved
                }
                Err(refused) => return failed(refused.to_string()),
                _ => command,
            }
        }
        _ => command,
    };
    let naming = match crate::chain::naming::Naming::from_config(config) {
        Ok(n) => n,
        Err(e) => return failed(e.to_string()),
    };
    match command {
        Command::AddSeeds { urls } => match seed_items(urls, config) {
            Ok(items) => done(format!(
                "{} of {} seeds queued (the rest were already known); the scope takes them in as seeds, and \
                 crawl.toml's [seeds] urls lists them",
                queue_seeds(frontier, items),
                urls.len()
            )),
            Err(refused) => refused,
        },
        Command::PauseQueue { queue } => queue_op(
            frontier.set_control(queue, Control::Paused),
            queue,
            "paused",
        ),
        Command::UnpauseQueue { queue } => queue_op(
            frontier.set_control(queue, Control::Active),
            queue,
            "unpaused",
        ),
        Command::RetireQueue { queue } => queue_op(
            frontier.set_control(queue, Control::Retired),
            queue,
            "retired",
        ),
        // A name no queue has is refused, as every other queue command refuses it (xt21a F4: "0 URIs
        // dropped" said a mistyped name was emptied).
        Command::DeleteQueue { queue } if !frontier.has_queue(queue) => queue_op(false, queue, ""),
        Command::DeleteQueue { queue } => match frontier.delete_queued(queue) {
            Ok(n) => done(format!("{n} URIs dropped from queue {queue}")),
            Err(e) => failed(e.to_string()),
        },
        Command::SetQueueDelay {
            delay_ms: Some(ms), ..
        } if *ms > MAX_QUEUE_DELAY_MS => failed(too_long_a_delay(*ms)),
        Command::SetQueueDelay { queue, delay_ms } => queue_op(
            frontier.set_delay(queue, delay_ms.map(Duration::from_millis)),
            queue,
            &format!(
                "delay set to {}",
                delay_ms.map_or("computed".to_string(), |d| format!("{d} ms"))
            ),
        ),
        Command::SetQueueBudget { queue, budget } => {
            // A budget caps what the queue is given; what it holds already is fetched (xt21a F2: a budget
            // under what was given looked like it would stop the queue).
            let held = match (frontier.queue_counts(queue), budget) {
                (Some((given, queued)), Some(b)) if given >= *b && queued > 0 => format!(
                    ": the queue was given {given} URIs already, so it takes no more; the {queued} it holds \
                     are still fetched (retiring or deleting the queue stops them)"
                ),
                _ => String::new(),
            };
            queue_op(
                frontier.set_budget(queue, *budget),
                queue,
                &format!(
                    "budget set to {}{held}",
                    budget.map_or("none".to_string(), |b| b.to_string())
                ),
            )
        }
        Command::Queues => Reply::Queues {
            queues: frontier
                .queue_infos(std::time::Instant::now())
                .into_iter()
                .map(QueueRow::from)
                .collect(),
        },
        Command::Lookup { url } => {
            let Ok(parsed) = Url::parse(url) else {
                return failed(format!("{url:?} is not a URL"));
            };
            let mut uri = CrawlUri::seed(parsed, String::new());
            naming.name(&mut uri);
            // A URL a rendered page's browser fetched, queued as a link before or not: its item (if any) ends
            // unfetched, and its one line is the page's `E` request (review 66 R6, xt18b F5).
            let by_a_page = || {
                frontier
                    .lookup(&crate::chain::outcome::fetched(&uri.uniq_key))
                    .is_ok_and(|s| s != UrlStatus::Unknown)
            };
            let (state, status) = match frontier.lookup(&uri.uniq_key) {
                Err(e) => return failed(format!("cannot look {url} up: {e}")),
                Ok(UrlStatus::Unknown) => ("unknown", None),
                Ok(UrlStatus::Queued | UrlStatus::Marked) if by_a_page() => ("fetched", None),
                Ok(UrlStatus::Marked) => ("seen", None),
                Ok(UrlStatus::Queued) => ("queued", None),
                Ok(UrlStatus::Done(s)) => ("done", Some(s)),
            };
            Reply::Lookup {
                url: url.clone(),
                uniq_key: uri.uniq_key,
                state: state.to_string(),
                status,
            }
        }
        Command::Pause | Command::Unpause | Command::Checkpoint | Command::Stop => {
            failed("the crawl is not running; `trawl resume` it first")
        }
        Command::Settings { .. } => failed("settings are changed by the crawl or in crawl.toml"),
        Command::Reports => {
            failed("the crawl is not running: its last reports are in JOB/reports/")
        }
    }
}

/// Applies `command` to a stopped job's frontier store directly.
pub fn apply_offline(job_dir: &Path, command: &Command) -> Result<Reply, Error> {
    apply_offline_asked(job_dir, command, None)
}

/// [`apply_offline`] of a command asked at `asked_live` while the crawl ran or was ending: a checkpoint so asked
/// was served by the last checkpoint the crawl's end wrote, when it stopped cleanly and that checkpoint was
/// written after the ask (not an older one, when the end's failed: review 76 R4), whichever side of the
/// crawl's last look at its commands the ask landed (xt27a F3: by chance of timing, "written" or "not running").
pub fn apply_offline_asked(
    job_dir: &Path,
    command: &Command,
    asked_live: Option<std::time::SystemTime>,
) -> Result<Reply, Error> {
    if let Command::Settings { change } = command {
        return match crate::live::change_offline(job_dir, change) {
            Ok(message) => Ok(done(message)),
            // Said as such, so that `trawl ctl` waits for the process holding the job (xt26a N8).
            Err(e @ Error::JobInUse { .. }) => Err(e),
            Err(e) => Ok(failed(e.to_string())),
        };
    }
    let job = Job::open(job_dir)?;
    if let Command::Reports = command {
        return Ok(failed(format!(
            "the crawl is not running: its last reports are in {}",
            job.reports_dir().display()
        )));
    }
    // Not while a process crawls into it (one starting, or one writing its last checkpoint after its pid file
    // went): that says so, where the store would only say it is locked.
    let _lock = job.lock()?;
    if let Some(shared) = crate::shared_job::SharedJob::of(job.root()) {
        return Err(Error::worker_job(&shared, job_dir));
    }
    if let Some(checkpoint) = crate::checkpoint::interrupted_restore(&job) {
        return Err(Error::RestoreCutShort {
            dir: job_dir.to_path_buf(),
            checkpoint,
        });
    }
    // Asked as the crawl ended (xt25a F1, xt26a N7): its end wrote the last checkpoint. Unless it was killed
    // (or crashed): its pid file, or the end's marker, is left with nobody holding the job (xt27a F2).
    let last = crate::checkpoint::list(&job)
        .last()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
    let killed = job.state_dir().join("crawl.pid").exists()
        || job.state_dir().join(crate::job::ENDING).exists();
    let how = if killed {
        "it did not stop cleanly: killed, or it crashed (its pid file or end marker is left in state/), so its \
         last run wrote no final checkpoint and no reports"
    } else {
        "it has stopped"
    };
    let last_said = match &last {
        Some(name) => format!("; its last checkpoint is {name}"),
        None => String::new(),
    };
    let resume = format!(
        "`trawl resume {}` goes on from {}",
        job_dir.display(),
        if killed {
            "what the kill left (the URIs in flight are fetched again)"
        } else {
            "where it stopped"
        }
    );
    match command {
        // What a stop asks for holds: not an error to a second operator, or a retry, as the crawl stops. A
        // crawl killed did not stop as asked, and left no reports: an error for a script (xt28a F1).
        Command::Stop => {
            let said = format!("the crawl is not running: {how}{last_said}");
            return Ok(if killed { failed(said) } else { done(said) });
        }
        Command::Pause | Command::Unpause => {
            return Ok(failed(format!(
                "the crawl is not running, so there is nothing to {}: {how}; {resume}",
                if matches!(command, Command::Pause) {
                    "pause"
                } else {
                    "unpause"
                },
            )));
        }
        Command::Checkpoint => {
            let written_after = |name: &String| {
                let written =
                    std::fs::metadata(job.checkpoints_dir().join(name).join("checkpoint.json"))
                        .and_then(|m| m.modified());
                // Written as the ask came, or after: the end's checkpoint that served it.
                let slack = std::time::Duration::from_secs(2);
                matches!((written, asked_live), (Ok(w), Some(asked)) if w + slack >= asked)
            };
            if let Some(name) = last.filter(|name| !killed && written_after(name)) {
                return Ok(done(format!(
                    "checkpoint {name} written (the crawl's last: it stopped as this was asked)"
                )));
            }
            return Ok(failed(format!(
                "the crawl is not running, so no checkpoint is written: {how}{last_said}; {resume}"
            )));
        }
        _ => {}
    }
    let config = CrawlConfig::load(&job.config_path())?;
    job.clear_unmade_stores()?;
    if !job.frontier_dir().exists() {
        return Err(Error::NothingToResume(job_dir.to_path_buf()));
    }
    // A crawl.toml edited to name queues otherwise would put seeds into queues of another naming (review 63
    // R2), and name queues the store does not have.
    job.keep_queue_naming(&config)?;
    let mut frontier: Frontier<CrawlUri> =
        Frontier::open(&job.frontier_dir(), config.fetch.max_connections_per_host)?;
    let reply = match command {
        Command::AddSeeds { urls } => add_seeds_offline(&job, &mut frontier, urls, config)?,
        other => apply_to_frontier(&mut frontier, other, &config),
    };
    frontier.sync()?;
    Ok(reply)
}

/// A command file: the command, and who sent it. The crawl that applies a change writes its line in
/// config-changes.log under that name, so a sender killed while it waits for the answer loses no line
/// (xt26a N5).
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct CommandFile {
    #[serde(flatten)]
    pub(crate) command: Command,
    /// Who sent it (`ctl@USER`); a file of an older `trawl ctl` names no one.
    #[serde(default)]
    pub(crate) by: Option<String>,
}

/// Who sent a command file that names no one: `trawl ctl` of a build before the file said.
pub(crate) const SENT_BY_CTL: &str = "ctl@local";

/// How old a reply file left in `JOB/control/` must be to be swept when a crawl starts: a waiting sender
/// reads its reply within 50 ms, so one left this long had no reader (its sender was killed: xt26a N5).
const STALE_REPLY: Duration = Duration::from_secs(60);

/// Removes the reply files in `JOB/control/` that no sender read ([`STALE_REPLY`]).
pub(crate) fn sweep_stale_replies(job_dir: &Path) {
    let Ok(entries) = std::fs::read_dir(control_dir(job_dir)) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE_REPLY);
        if old && (name.ends_with(".reply.json") || name.ends_with(".reply.json.tmp")) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Where command files for a running crawl are dropped, and their replies written.
pub fn control_dir(job_dir: &Path) -> std::path::PathBuf {
    job_dir.join("control")
}

/// A command file that could not be read as a command.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ControlFileError {
    #[error("{}: cannot read it: {source}", path.display())]
    Read {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not a command: {source}", path.display())]
    Parse {
        path: std::path::PathBuf,
        source: serde_json::Error,
    },
}

/// Command files waiting in `dir`, parsed (or the parse error), oldest first. Each is taken by renaming it
/// before it is read (so a sender that takes its file back, the crawl having ended, and this reader never
/// both have it), and removed once read; the path returned is the one it was sent under.
pub(crate) fn pending_files(
    dir: &Path,
) -> Vec<(std::path::PathBuf, Result<CommandFile, ControlFileError>)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<std::path::PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".cmd.json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| {
            let taken = path.with_extension("taken");
            std::fs::rename(&path, &taken).ok()?;
            let parsed = std::fs::read_to_string(&taken)
                .map_err(|source| ControlFileError::Read {
                    path: path.clone(),
                    source,
                })
                .and_then(|t| {
                    serde_json::from_str::<CommandFile>(&t).map_err(|source| {
                        ControlFileError::Parse {
                            path: path.clone(),
                            source,
                        }
                    })
                });
            let _ = std::fs::remove_file(&taken);
            Some((path, parsed))
        })
        .collect()
}

/// Writes the reply to a command file as `NAME.reply.json` (via a temporary name, so readers never see half).
pub(crate) fn answer_file(command_path: &Path, reply: &Reply) {
    let name = command_path
        .to_string_lossy()
        .replace(".cmd.json", ".reply.json");
    let tmp = format!("{name}.tmp");
    if std::fs::write(&tmp, serde_json::to_string(reply).unwrap_or_default()).is_ok() {
        let _ = std::fs::rename(&tmp, &name);
    }
}

/// The PID of the process running the job's crawl, if one is running (kept with the job, whose pid file it
/// reads).
pub use crate::job::running_pid;

/// How long a command the crawl took is waited for while the crawl runs: a checkpoint is answered once
/// written, which a large frontier makes take minutes.
const TAKEN_WAIT: Duration = Duration::from_secs(30 * 60);

/// Sends `command` from `by` (`ctl@USER`, the name config-changes.log gives a change) to the crawl running in
/// `job_dir` through a command file and waits up to `wait` for the crawl to answer, or longer
/// ([`TAKEN_WAIT`]) once it took the command and while it runs. `None` when the crawl ended before it took the
/// command (its pid file went, and the file was taken back unread): nothing was applied, and the command is
/// for the stopped job now ([`apply_offline`]).
pub fn send_file(
    job_dir: &Path,
    command: &Command,
    by: &str,
    wait: Duration,
) -> Result<Option<Reply>, Error> {
    let dir = control_dir(job_dir);
    // Not "resume the job" on a full disk: it is running (xt17b F12).
    let unsent = |path: std::path::PathBuf, source: std::io::Error| match running_pid(job_dir) {
        Some(pid)
            if matches!(
                source.kind(),
                std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
            ) =>
        {
            Error::ControlDiskFull {
                dir: job_dir.to_path_buf(),
                pid,
            }
        }
        _ => Error::Io { path, source },
    };
    std::fs::create_dir_all(&dir).map_err(|source| unsent(dir.clone(), source))?;
    let stem = format!(
        "{}-{}",
        chrono::Utc::now().format("%Y%m%d%H%M%S%6f"),
        std::process::id()
    );
    let tmp = dir.join(format!("{stem}.tmp"));
    let cmd = dir.join(format!("{stem}.cmd.json"));
    let file = CommandFile {
        command: command.clone(),
        by: Some(by.to_owned()),
    };
    let text = serde_json::to_string(&file).unwrap_or_default();
    if let Err(source) = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, &cmd)) {
        let _ = std::fs::remove_file(&tmp);
        return Err(unsent(cmd, source));
    }
    let reply_path = dir.join(format!("{stem}.reply.json"));
    let start = std::time::Instant::now();
    // While a process holds the job: the crawl, or its end after the pid file went (its last checkpoint, which
    // answers a checkpoint asked: review 73 R2).
    let waiting = || {
        start.elapsed() < wait
            || (start.elapsed() < TAKEN_WAIT && !cmd.exists() && crate::job::is_held(job_dir))
    };
    let read_reply = || {
        let text = std::fs::read_to_string(&reply_path).ok()?;
        let _ = std::fs::remove_file(&reply_path);
        Some(
            serde_json::from_str(&text)
                .map(Some)
                .map_err(|source| Error::BadReply {
                    path: reply_path.clone(),
                    source,
                }),
        )
    };
    while waiting() {
        if let Some(reply) = read_reply() {
            return reply;
        }
        if running_pid(job_dir).is_none() {
            // The crawl is ending (it answers what it took before its last look) or gone: a file still there
            // is taken back. One already taken gets its answer, unless no process holds the job any more:
            // the crawl was killed or crashed before answering (xt25a F5: the full wait, then "did not
            // answer").
            if std::fs::remove_file(&cmd).is_ok() {
                return Ok(None);
            }
            if Job::open(job_dir).is_ok_and(|job| job.lock().is_ok()) {
                return read_reply().unwrap_or_else(|| {
                    Ok(Some(failed(format!(
                        "the crawl in {dir} ended before answering (killed, or it crashed): see whether the \
                         command took effect (`trawl ctl {dir} queues`, its checkpoints/), and `trawl resume \
                         {dir}` to continue it",
                        dir = job_dir.display()
                    ))))
                });
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = std::fs::remove_file(&cmd);
    Ok(Some(failed(format!(
        "the crawl in {} did not answer within {} s",
        job_dir.display(),
        start.elapsed().as_secs_f64().round()
    ))))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xt6c F4: a queue may be named by its host, as api.md's example does; an unknown name says how queues
    /// are named.
    #[test]
    fn a_queue_is_found_by_its_host_name() {
        let mut frontier = Frontier::<CrawlUri>::in_memory(100);
        let config = CrawlConfig::default();
        let url = Url::parse("http://example.com/a").unwrap();
        frontier.schedule("com,example,", CrawlUri::seed(url, "a".into()));
        for given in ["com,example,", "example.com", "http://example.com/x"] {
            let reply = apply_to_frontier(
                &mut frontier,
                &Command::PauseQueue {
                    queue: given.into(),
                },
                &config,
            );
            assert_eq!(
                reply,
                Reply::Done {
                    message: "queue com,example, paused".into()
                },
                "{given}"
            );
        }
        let reply = apply_to_frontier(
            &mut frontier,
            &Command::PauseQueue {
                queue: "example.org".into(),
            },
            &config,
        );
        let Reply::Failed { message } = reply else {
            panic!("{reply:?}")
        };
        assert!(message.contains("name a queue by its host"), "{message}");
        // A host on another port, given without it: its one queue (xt14b F10); on two ports, a refusal.
        let pause = |frontier: &mut Frontier<CrawlUri>, given: &str| {
            apply_to_frontier(
                frontier,
                &Command::PauseQueue {
                    queue: given.into(),
                },
                &config,
            )
        };
        let url = Url::parse("http://site.test:8731/").unwrap();
        frontier.schedule("test,site,:8731", CrawlUri::seed(url, "b".into()));
        let url = Url::parse("http://127.0.0.1:8731/").unwrap();
        frontier.schedule("127.0.0.1:8731", CrawlUri::seed(url, "c".into()));
        for (given, queue) in [
            ("site.test", "test,site,:8731"),
            ("127.0.0.1", "127.0.0.1:8731"),
        ] {
            assert_eq!(
                pause(&mut frontier, given),
                Reply::Done {
                    message: format!("queue {queue} paused")
                }
            );
        }
        let url = Url::parse("http://site.test:8732/").unwrap();
        frontier.schedule("test,site,:8732", CrawlUri::seed(url, "d".into()));
        let Reply::Failed { message } = pause(&mut frontier, "site.test") else {
            panic!("two ports")
        };
        assert!(
            message.contains("several ports (test,site,:8731, test,site,:8732)"),
            "{message}"
        );
        assert!(matches!(
            pause(&mut frontier, "site.test:8732"),
            Reply::Done { .. }
        ));
        // A default port written is meant (review 63 R8): no queue on it here.
        for given in ["http://127.0.0.1:80/", "127.0.0.1:80"] {
            assert!(
                matches!(pause(&mut frontier, given), Reply::Failed { .. }),
                "{given}"
            );
        }
    }

    /// A queue delay over a day is a typo, refused with nothing changed (xt23a F4).
    #[test]
    fn a_queue_delay_over_a_day_is_refused() {
        let mut frontier = Frontier::<CrawlUri>::in_memory(1);
        let url = Url::parse("http://example.com/").unwrap();
        frontier.schedule("com,example,", CrawlUri::seed(url, "a".into()));
        let config = CrawlConfig::default();
        let set = |frontier: &mut Frontier<CrawlUri>, ms: u64| {
            let command = Command::SetQueueDelay {
                queue: "com,example,".into(),
                delay_ms: Some(ms),
            };
            apply_to_frontier(frontier, &command, &config)
        };
        let Reply::Failed { message } = set(&mut frontier, u64::MAX) else {
            panic!("refused")
        };
        assert!(message.contains("over a day"), "{message}");
        let delay = frontier.queue_infos(std::time::Instant::now())[0].delay;
        assert_eq!(delay, None);
        assert!(matches!(
            set(&mut frontier, MAX_QUEUE_DELAY_MS),
            Reply::Done { .. }
        ));
    }

    /// A shared crawl's queues, listed from Redis, are named by host as one process's are (xt21a F5).
    #[test]
    fn a_listed_queue_is_named_by_its_host_without_its_port() {
        let config = CrawlConfig::default();
        let mut names = vec!["127.0.0.1:8731".to_string(), "test,site,:8731".to_string()];
        let find = |names: &[String], given: &str| {
            named_queue(given, &config, || names.iter().map(String::as_str))
        };
        for (given, queue) in [
            ("127.0.0.1", "127.0.0.1:8731"),
            ("http://127.0.0.1:8731/x", "127.0.0.1:8731"),
            ("site.test", "test,site,:8731"),
            ("test,site,:8731", "test,site,:8731"),
        ] {
            assert_eq!(
                find(&names, given).unwrap().as_deref(),
                Some(queue),
                "{given}"
            );
        }
        assert_eq!(find(&names, "127.0.0.2").unwrap(), None);
        assert_eq!(find(&names, "127.0.0.1:80").unwrap(), None);
        names.push("127.0.0.1:8732".into());
        let unclear = find(&names, "127.0.0.1").unwrap_err().to_string();
        assert!(unclear.contains("several ports"), "{unclear}");
    }

    /// A queue the crawl never had is refused by delete-queue as by the others (xt21a F4); a budget under what
    /// a queue was given says its URIs are still fetched (F2); a split host's queues are named (F8).
    #[test]
    fn queue_commands_say_what_they_did() {
        let mut frontier = Frontier::<CrawlUri>::in_memory(100);
        let mut config = CrawlConfig::default();
        let url = Url::parse("http://example.com/a").unwrap();
        for i in 0..3 {
            let uri = CrawlUri::seed(url.join(&i.to_string()).unwrap(), format!("a{i}"));
            frontier.schedule("com,example,", uri);
        }
        let apply = |frontier: &mut Frontier<CrawlUri>, command: Command, config: &CrawlConfig| {
            apply_to_frontier(frontier, &command, config)
        };
        let delete = Command::DeleteQueue {
            queue: "org,nowhere,".into(),
        };
        assert!(matches!(
            apply(&mut frontier, delete, &config),
            Reply::Failed { .. }
        ));
        let budget = Command::SetQueueBudget {
            queue: "com,example,".into(),
            budget: Some(2),
        };
        let Reply::Done { message } = apply(&mut frontier, budget, &config) else {
            panic!("a budget")
        };
        assert!(
            message.contains("was given 3 URIs already") && message.contains("the 3 it holds"),
            "{message}"
        );
        config.frontier.parallel_queues = 2;
        frontier.schedule("com,example,#1", CrawlUri::seed(url, "b".into()));
        let pause = Command::PauseQueue {
            queue: "example.com".into(),
        };
        let Reply::Failed { message } = apply(&mut frontier, pause, &config) else {
            panic!("a split host")
        };
        assert!(
            message.contains("split in 2 queues")
                && message.contains("com,example,#0 to com,example,#1"),
            "{message}"
        );
    }

    /// xt25a F2, F3: a stopped job whose checkpoint restore was cut short is not changed (its state is the
    /// checkpoint's, which the next resume puts back over any change), and is not said to hold no crawl; a
    /// checkpoint asked of a stopped job names its last.
    #[test]
    fn a_stopped_job_mid_restore_refuses_changes() {
        let dir = tempfile::tempdir().unwrap();
        let job = Job::create(dir.path()).unwrap();
        job.write_config(&CrawlConfig::default()).unwrap();
        std::fs::create_dir_all(job.checkpoints_dir().join("cp00002-x")).unwrap();
        std::fs::write(
            job.checkpoints_dir().join("cp00002-x/checkpoint.json"),
            "{}",
        )
        .unwrap();
        let Reply::Failed { message } = apply_offline(dir.path(), &Command::Checkpoint).unwrap()
        else {
            panic!("a checkpoint of a stopped job")
        };
        assert!(
            message.contains(
                "so no checkpoint is written: it has stopped; its last checkpoint is cp00002-x"
            ),
            "{message}"
        );
        // Asked while the crawl ran or was ending, it was served by the end's checkpoint (xt27a F3).
        let now = std::time::SystemTime::now();
        let Reply::Done { message } =
            apply_offline_asked(dir.path(), &Command::Checkpoint, Some(now)).unwrap()
        else {
            panic!("a checkpoint asked as the crawl stopped")
        };
        assert_eq!(
            message,
            "checkpoint cp00002-x written (the crawl's last: it stopped as this was asked)"
        );
        // Its last checkpoint older than the ask: the end's failed, and no checkpoint served it (review 76 R4).
        let later = now + std::time::Duration::from_secs(60);
        assert!(matches!(
            apply_offline_asked(dir.path(), &Command::Checkpoint, Some(later)).unwrap(),
            Reply::Failed { .. }
        ));
        // A crawl killed (its pid file left, nobody holding the job) is not said to have stopped (xt27a F2).
        job.write_file(&job.state_dir().join("crawl.pid"), "4194303")
            .unwrap();
        assert!(matches!(
            apply_offline_asked(dir.path(), &Command::Checkpoint, Some(now)).unwrap(),
            Reply::Failed { .. }
        ));
        for command in [Command::Checkpoint, Command::Stop] {
            let Reply::Failed { message } = apply_offline(dir.path(), &command).unwrap() else {
                panic!("{command:?}")
            };
            assert!(
                message.contains("it did not stop cleanly: killed, or it crashed")
                    && message.contains("its last checkpoint is cp00002-x"),
                "{message}"
            );
        }
        std::fs::remove_file(job.state_dir().join("crawl.pid")).unwrap();
        job.write_file(&job.restoring_path(), "cp00002-x\n")
            .unwrap();
        for command in [
            Command::SetQueueDelay {
                queue: "127.0.0.1:8080".into(),
                delay_ms: Some(2000),
            },
            Command::Queues,
        ] {
            let refused = apply_offline(dir.path(), &command).unwrap_err();
            assert!(
                matches!(&refused, Error::RestoreCutShort { checkpoint, .. } if checkpoint == "cp00002-x"),
                "{refused}"
            );
        }
    }

    /// xt25a F5: a command the crawl took, the crawl then killed, is answered as soon as no process holds the
    /// job, not after the whole wait with "did not answer".
    #[test]
    fn a_command_taken_by_a_crawl_killed_since_is_answered_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let job = Job::create(dir.path()).unwrap();
        job.write_config(&CrawlConfig::default()).unwrap();
        let pid_file = job.state_dir().join("crawl.pid");
        std::fs::write(&pid_file, std::process::id().to_string()).unwrap();
        // The crawl holds the job until it is killed.
        let held = job.lock().unwrap();
        let control = control_dir(dir.path());
        let taker = std::thread::spawn(move || {
            loop {
                let taken = pending_files(&control);
                if !taken.is_empty() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            std::fs::remove_file(pid_file).unwrap();
            drop(held);
        });
        let wait = Duration::from_secs(20);
        let started = std::time::Instant::now();
        let reply = send_file(dir.path(), &Command::Checkpoint, "ctl@t", wait).unwrap();
        taker.join().unwrap();
        assert!(started.elapsed() < wait / 2, "{:?}", started.elapsed());
        assert!(
            matches!(&reply, Some(Reply::Failed { message }) if message.contains("ended before answering")),
            "{reply:?}"
        );
    }

    /// xt26a N8: a settings change to a job another process holds says so as an error (which `trawl ctl`
    /// waits out), not as a failed reply.
    #[test]
    fn a_settings_change_to_a_held_job_is_in_use() {
        let dir = tempfile::tempdir().unwrap();
        let job = Job::create(dir.path()).unwrap();
        job.write_config(&CrawlConfig::default()).unwrap();
        let change: crate::live::SettingsChange =
            serde_json::from_str(r#"{"set": {"frontier.min_delay_ms": 500}}"#).unwrap();
        let command = Command::Settings { change };
        let held = job.lock().unwrap();
        assert!(matches!(
            apply_offline(dir.path(), &command),
            Err(Error::JobInUse { .. })
        ));
        drop(held);
        assert!(matches!(
            apply_offline(dir.path(), &command),
            Ok(Reply::Done { .. })
        ));
    }

    /// xt26a N9: a pid file whose number another process took since (the crawl killed) does not make the job
    /// look running: the number must hold the job's lock.
    #[test]
    fn a_pid_file_counts_only_while_the_job_is_held() {
        let dir = tempfile::tempdir().unwrap();
        let job = Job::create(dir.path()).unwrap();
        std::fs::write(
            job.state_dir().join("crawl.pid"),
            std::process::id().to_string(),
        )
        .unwrap();
        assert_eq!(running_pid(dir.path()), None);
        let held = job.lock().unwrap();
        assert_eq!(running_pid(dir.path()), Some(std::process::id()));
        drop(held);
        assert_eq!(running_pid(dir.path()), None);
    }

    /// `trawl ctl DIR report` on a stopped job names that job's reports folder, not a placeholder.
    #[test]
    fn a_stopped_job_s_reports_are_named_by_their_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("crawl.toml"), "").unwrap();
        let reply = apply_offline(dir.path(), &Command::Reports).unwrap();
        let Reply::Failed { message } = reply else {
            panic!("{reply:?}")
        };
        let folder = dir.path().join("reports").display().to_string();
        assert!(message.contains(&folder), "{message}");
        assert!(!message.contains("JOB/"), "{message}");
    }

    /// Every command survives its command file, sender and all (xt26a N5: the file gained `by`, beside the
    /// command's own fields); a file of an older `trawl ctl` names no sender.
    #[test]
    fn every_command_survives_its_file() {
        let set: toml::Table = toml::from_str(
            "\"frontier.min_delay_ms\" = 500\n\"frontier.delay_factor\" = 1.5\n\"fetch.user_agent\" = \"x\"\n\
             \"fetch.obey_robots\" = false\n\"fetch.accept_types\" = [\"a\", \"b\"]\n",
        )
        .unwrap();
        let sheet: trawl_config::settings::SheetSpec = toml::from_str(
            "name = \"s\"\nsurt_prefixes = [\"http://(org,\"]\nset = { \"frontier.max_delay_ms\" = 9000 }\n",
        )
        .unwrap();
        let q = || "127.0.0.1:8080".to_owned();
        let commands = vec![
            Command::AddSeeds {
                urls: vec!["http://127.0.0.1/".into()],
            },
            Command::PauseQueue { queue: q() },
            Command::UnpauseQueue { queue: q() },
            Command::RetireQueue { queue: q() },
            Command::DeleteQueue { queue: q() },
            Command::SetQueueDelay {
                queue: q(),
                delay_ms: Some(250),
            },
            Command::SetQueueDelay {
                queue: q(),
                delay_ms: None,
            },
            Command::SetQueueBudget {
                queue: q(),
                budget: Some(u64::MAX),
            },
            Command::SetQueueBudget {
                queue: q(),
                budget: None,
            },
            Command::Queues,
            Command::Lookup {
                url: "http://127.0.0.1/x".into(),
            },
            Command::Settings {
                change: crate::live::SettingsChange::Set(set),
            },
            Command::Settings {
                change: crate::live::SettingsChange::Sheet(sheet),
            },
            Command::Settings {
                change: crate::live::SettingsChange::RemoveSheet("s".into()),
            },
            Command::Reports,
            Command::Pause,
            Command::Unpause,
            Command::Checkpoint,
            Command::Stop,
        ];
        for command in commands {
            let file = CommandFile {
                command: command.clone(),
                by: Some("ctl@t".into()),
            };
            let text = serde_json::to_string(&file).unwrap();
            let back: CommandFile = serde_json::from_str(&text).unwrap();
            assert_eq!(back.command, command, "{text}");
            assert_eq!(back.by.as_deref(), Some("ctl@t"), "{text}");
            let old: CommandFile =
                serde_json::from_str(&serde_json::to_string(&command).unwrap()).unwrap();
            assert_eq!((old.command, old.by), (command, None));
        }
    }

    /// Seeds added to a stopped job are queued and join its crawl.toml's seeds (its comments kept), so its
    /// next launch takes them into the scope; a list with a bad seed changes neither.
    #[test]
    fn seeds_added_to_a_stopped_job_join_its_crawl_toml() {
        let dir = tempfile::tempdir().unwrap();
        let text = "# mine\n[seeds]\nurls = [\"http://127.0.0.1:9/\"]  # the first\n";
        std::fs::write(dir.path().join("crawl.toml"), text).unwrap();
        std::fs::create_dir_all(dir.path().join("state/frontier")).unwrap();
        let add = |urls: &[&str]| {
            let urls = urls.iter().map(|u| u.to_string()).collect();
            apply_offline(dir.path(), &Command::AddSeeds { urls }).unwrap()
        };
        let config = || std::fs::read_to_string(dir.path().join("crawl.toml")).unwrap();

        let reply = add(&["http://127.0.0.3:9/", "not a url"]);
        assert!(matches!(reply, Reply::Failed { .. }), "{reply:?}");
        assert_eq!(config(), text);

        let reply = add(&["http://127.0.0.2:9/", "http://127.0.0.1:9/"]);
        let Reply::Done { message } = reply else {
            panic!("{reply:?}")
        };
        assert!(
            message.contains("2 of 2 seeds queued") && message.contains("1 added to crawl.toml"),
            "{message}"
        );
        assert_eq!(
            config(),
            text.replace("9/\"]", "9/\", \"http://127.0.0.2:9/\"]")
        );
        let reply = add(&["http://127.0.0.2:9/"]);
        assert!(
            matches!(&reply, Reply::Done { message } if message.starts_with("0 of 1 seeds queued")),
            "{reply:?}"
        );
        // A bare word is refused, all or none (xt23a F3); a seed is written as read, so its other spelling
        // is the same seed (review 71 R5).
        let before = config();
        let reply = add(&["127.0.0.4:9/", "pause"]);
        assert!(
            matches!(&reply, Reply::Failed { message } if message.contains("\"pause\" is not a URL")),
            "{reply:?}"
        );
        assert_eq!(config(), before);
        assert!(matches!(add(&["127.0.0.4:9/x"]), Reply::Done { .. }));
        assert!(
            config().contains("\"http://127.0.0.4:9/x\""),
            "{}",
            config()
        );
        let reply = add(&["http://127.0.0.4:9/x"]);
        assert!(
            matches!(&reply, Reply::Done { message } if message.contains("0 added to crawl.toml")),
            "{reply:?}"
        );
    }
}
