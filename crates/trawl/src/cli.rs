//! Flags and subcommands.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// trawl: an archival-quality web crawler that writes WARC 1.1.
#[derive(Debug, Parser)]
#[command(version, about, propagate_version = true)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Crawl from seed URLs into a job directory (WARCs, crawl.log, reports). Ctrl-C stops cleanly.
    Crawl {
        /// Seed URLs (http or https); a bare host means http://host/.
        seeds: Vec<String>,
        /// A crawl.toml with settings (see docs/configuration.md); unknown keys are errors.
        #[arg(short = 'c', long = "config")]
        config: Option<PathBuf>,
        /// The job directory. Default: jobs/HOST-YYYYMMDDhhmmss.
        #[arg(long)]
        job: Option<PathBuf>,
        /// A seed file in Heritrix's form: a seed per line, `#` comments, and `+PREFIX` / `-PREFIX` lines
        /// adding SURT prefixes the scope accepts / rejects. May be given more than once.
        #[arg(long = "seeds", value_name = "FILE")]
        seed_files: Vec<PathBuf>,
        /// Serve Prometheus metrics of this crawl at http://ADDR/metrics while it runs (read-only, no auth:
        /// bind a loopback address unless the network is trusted).
        #[arg(long, value_name = "ADDR", value_parser = bind_address)]
        metrics_bind: Option<std::net::SocketAddr>,
        /// The User-Agent, with a URL or e-mail address webmasters can reach you at, e.g.
        /// "mybot/1.0 (+https://example.org/bot)" (overrides [fetch] user_agent; a crawl beyond this machine
        /// needs one).
        #[arg(long, value_name = "AGENT")]
        user_agent: Option<String>,
        /// Share the crawl's frontier through Redis (or Valkey) at redis://HOST:PORT/DB (a Cluster node, or
        /// redis+sentinel://SENTINEL:PORT/SERVICE/DB, work too): creates the crawl
        /// there, named as the job directory, or joins the crawl of that name; more machines join with
        /// `trawl worker` (docs/distributed.md).
        #[arg(long, value_name = "REDIS_URL")]
        frontier: Option<String>,
    },
    /// Join a crawl shared through Redis (started by `trawl crawl --frontier`) as one more worker, writing
    /// its own WARCs and logs into --job DIR (named as the crawl); exits 0 when the whole crawl is finished.
    Worker {
        /// The Redis (or Valkey) server holding the crawl: redis://HOST:PORT/DB.
        frontier: String,
        /// This worker's job directory; its name is the crawl's name.
        #[arg(long)]
        job: PathBuf,
        /// Serve Prometheus metrics of this worker at http://ADDR/metrics while it runs.
        #[arg(long, value_name = "ADDR", value_parser = bind_address)]
        metrics_bind: Option<std::net::SocketAddr>,
    },
    /// Continue a job stopped by Ctrl-C or killed: from where it stopped, or from a checkpoint.
    Resume {
        /// The job directory.
        job: PathBuf,
        /// Roll back to this checkpoint (a name under JOB/checkpoints/, or `latest`) instead of the live state.
        #[arg(long)]
        checkpoint: Option<String>,
        /// Serve Prometheus metrics at http://ADDR/metrics while the crawl runs.
        #[arg(long, value_name = "ADDR", value_parser = bind_address)]
        metrics_bind: Option<std::net::SocketAddr>,
    },
    /// Operate a job, running or stopped: queues, seeds, URL lookups, pause, checkpoint, stop.
    Ctl {
        /// The job directory (with --frontier: any directory named as the crawl, or just its name).
        job: PathBuf,
        /// Print replies as JSON.
        #[arg(long)]
        json: bool,
        /// Act on the whole crawl shared through Redis at redis://HOST:PORT/DB (every worker): pause,
        /// unpause, stop, workers, warcs, report, queues and queue actions, add-seeds, set, sheets.
        #[arg(long, value_name = "REDIS_URL")]
        frontier: Option<String>,
        #[command(subcommand)]
        action: CtlAction,
    },
    /// Package a job as one WACZ 1.1.1 file (WARCs, merged CDXJ index, pages, manifest with SHA-256 of every
    /// file) that ReplayWeb.page and pywb open as it is. Revisits of payloads archived by an earlier job
    /// (`warc.dedup_from`) replay only beside it: counted and warned of.
    Wacz {
        /// The job directory.
        job: PathBuf,
        /// The .wacz to write (refused if it exists).
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
    },
    /// Convert another crawler's configuration into a commented crawl.toml.
    Import {
        #[command(subcommand)]
        from: ImportFrom,
    },
    /// Validate a crawl.toml: TOML syntax; wiring (unknown keys, wrong types, unknown rules); semantics
    /// (regexes, files, URL class examples, contradictory settings, seeds outside the scope). Prints every
    /// problem as FILE:LINE:COLUMN with a hint; exit 1 if any. Warnings (allowed, but probably not meant)
    /// are printed too and do not fail the check unless --strict.
    Check {
        /// The config file.
        config: PathBuf,
        /// Count warnings as errors.
        #[arg(long)]
        strict: bool,
    },
    /// Try each form login of a crawl.toml once against the live site and print what happened: the form found
    /// (action, method, fields with their hidden values; the password masked), the answer (status, redirect,
    /// cookies set by name), whether it worked and the sign that decided, and what to change. Writes no job;
    /// exit 1 if a login failed.
    Login {
        /// The config file.
        config: PathBuf,
        /// Only the `[[credentials]]` entry N (counted from 0, as `trawl check` names them).
        #[arg(long, value_name = "N")]
        credential: Option<usize>,
    },
    /// Write a commented starter crawl.toml into DIR (created if needed) from a shipped profile.
    Init {
        /// The profile: default (a domain crawl), single-page (a page and its embeds), broad (many sites,
        /// conservative politeness) or polite (slow, robots-strict).
        #[arg(long, default_value = "default")]
        profile: String,
        /// The folder to write crawl.toml into.
        dir: PathBuf,
    },
    /// Run the web UI and REST API over the jobs in a folder (docs/operating.md, docs/api.md). Crawls
    /// launched from it run in this process. Without a stored password (or TRAWL_PASSWORD), a one-time
    /// password and API token are printed and only a loopback address may be bound.
    Serve {
        /// The address to listen on; a non-loopback address needs a password set.
        #[arg(long, default_value = "127.0.0.1:8480", value_parser = bind_address)]
        bind: std::net::SocketAddr,
        /// The jobs folder.
        #[arg(long, default_value = "jobs")]
        jobs: PathBuf,
        /// Read a new password from stdin, store its argon2 hash in JOBS/.trawl-auth.json, print a new API
        /// token (shown once) and exit.
        #[arg(long)]
        set_password: bool,
        /// Also show the crawls shared through this Redis (redis://HOST:PORT/DB) and act on all their
        /// workers (the Shared crawls page, /api/shared).
        #[arg(long, value_name = "REDIS_URL")]
        frontier: Option<String>,
        /// A name the server is reached by (repeatable), e.g. the machine's or the one a reverse proxy passes
        /// on as `Host`: requests naming any other host than an IP address or localhost are refused (421),
        /// so a page whose name points at this machine cannot use the server (DNS rebinding).
        #[arg(long = "host-name", value_name = "NAME")]
        host_names: Vec<String>,
    },
    /// Serve the built-in test site on 127.0.0.1, crawl it, and check every scenario (PASS/FAIL lines).
    Selftest {
        /// Keep the job directory here instead of a temporary one.
        #[arg(long)]
        keep: Option<PathBuf>,
    },
    /// Say whether robots.txt allows each URL for an agent (RFC 9309).
    Robots {
        /// The agent's product token, e.g. `trawl`.
        #[arg(long)]
        agent: String,
        /// The robots.txt file.
        #[arg(long)]
        file: PathBuf,
        /// URLs to test; read from stdin when none are given.
        urls: Vec<String>,
    },
    /// Inspect and validate WARC files.
    Warc {
        #[command(subcommand)]
        command: WarcCommand,
    },
    /// URL identity tools: canonical forms, SURTs, normalized keys (docs/url-identity.md). URLs are taken as
    /// arguments, or one per line on stdin when none is given; one output line per input.
    Url {
        #[command(subcommand)]
        command: UrlCommand,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum UrlCommand {
    /// Print each URL's canonical form under a rule set.
    Canon {
        /// The rule set: heritrix, whatwg, semantic, aggressive, google or ia.
        #[arg(long, default_value = "heritrix")]
        rules: String,
        /// URLs; read from stdin when none are given.
        urls: Vec<String>,
    },
    /// Print each URL's SURT. Defaults are IA's `surt` package's: CDX form, no scheme, no trailing comma,
    /// `www` stripped, IP addresses reversed.
    Surt {
        /// `cdx` (`org,archive)/`) or `heritrix` (`http://(org,archive,www,)/`).
        #[arg(long, default_value = "cdx")]
        form: SurtForm,
        /// CDX form: start with `scheme://(`.
        #[arg(long)]
        with_scheme: bool,
        /// CDX form: end the host with a comma.
        #[arg(long)]
        trailing_comma: bool,
        /// CDX form: keep a leading `www.`.
        #[arg(long)]
        no_host_massage: bool,
        /// CDX form: keep IPv4 addresses in their usual order.
        #[arg(long)]
        no_reverse_ip: bool,
        /// URLs; read from stdin when none are given.
        urls: Vec<String>,
    },
    /// Print each URL's normalized key and its UUIDv5, separated by a tab.
    Norm {
        /// URLs; read from stdin when none are given.
        urls: Vec<String>,
    },
    /// List the URL classes of a library: name, kind, example and the example's normalised form.
    Classes {
        /// The class library (`[[url_class]]` tables).
        library: PathBuf,
        /// One JSON object per class instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Print every name of each URL, and the scope's verdict with its trace, as one JSON object per line.
    Explain {
        /// A crawl.toml whose [identity] and scope to use.
        #[arg(short = 'c', long = "config")]
        config: Option<PathBuf>,
        /// The page the URL was found on. Default: the first seed (or the URL itself).
        #[arg(long)]
        via: Option<String>,
        /// A seed of the crawl, as `trawl crawl URL…` gives them (repeatable); added to the config's.
        #[arg(long = "seed")]
        seeds: Vec<String>,
        /// The hop path from the seed, e.g. `LLE`. Default: `L` (a link on the seed page); empty: a seed.
        #[arg(long)]
        hops: Option<String>,
        /// A URL class library (`[[url_class]]` tables) to use besides the config's classes.
        #[arg(long)]
        classes: Option<PathBuf>,
        /// JSON output (the only format; accepted for symmetry with the other tools).
        #[arg(long)]
        json: bool,
        /// URLs; read from stdin when none are given.
        urls: Vec<String>,
    },
}

/// The two written forms of SURT.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(crate) enum SurtForm {
    /// `org,archive)/goo`, as CDX indexes write it.
    Cdx,
    /// `http://(org,archive,www,)/goo`, as Heritrix writes it.
    Heritrix,
}

/// Operator actions (see docs/frontier.md).
#[derive(Debug, Subcommand)]
pub(crate) enum CtlAction {
    /// List the queues with their state, size, budget and wait.
    Queues,
    /// Add seed URLs to the crawl; they are written into its crawl.toml's seeds and widen the scope as those do
    /// (a running crawl's at once, a stopped job's at its next resume).
    AddSeeds {
        /// The URLs.
        #[arg(required_unless_present = "file")]
        urls: Vec<String>,
        /// Also the seeds of this file, in Heritrix's form (a seed per line, `#` comments).
        #[arg(long, value_name = "FILE")]
        file: Option<PathBuf>,
    },
    /// Look up a URL: unknown, queued, or done with its status.
    Lookup {
        /// The URL.
        url: String,
    },
    /// Stop taking URIs from a queue.
    PauseQueue {
        /// The queue key (e.g. `org,example,`).
        queue: String,
    },
    /// Take URIs from a queue again.
    UnpauseQueue {
        /// The queue key.
        queue: String,
    },
    /// Take no more URIs from a queue (its URIs stay queued).
    RetireQueue {
        /// The queue key.
        queue: String,
    },
    /// Drop every URI waiting in a queue.
    DeleteQueue {
        /// The queue key.
        queue: String,
    },
    /// Set a queue's politeness delay in ms (`none` clears it).
    QueueDelay {
        /// The queue key.
        queue: String,
        /// Milliseconds, or `none`.
        delay: String,
    },
    /// Set a queue's budget of URIs (`none` clears it).
    QueueBudget {
        /// The queue key.
        queue: String,
        /// A count, or `none`.
        budget: String,
    },
    /// Change settings for every URI, each `PATH=VALUE` with a TOML value (e.g.
    /// `frontier.min_delay_ms=500`, `fetch.user_agent='"x"'`); a running crawl uses them for URIs processed
    /// from then on, and crawl.toml is rewritten.
    Set {
        /// `PATH=VALUE` pairs.
        #[arg(required = true)]
        settings: Vec<String>,
    },
    /// Add a sheet (or replace the one with its name) from a TOML file holding one `[[sheet]]` table.
    PutSheet {
        /// The file.
        file: PathBuf,
    },
    /// Remove a sheet by name.
    RemoveSheet {
        /// The sheet's name.
        name: String,
    },
    /// Print a report computed now from the running crawl (crawl, seeds, hosts, mimetype, responsecode,
    /// sources, frontier, url-groups); a stopped job's last reports are in JOB/reports/.
    Report {
        /// The report's name.
        #[arg(default_value = "crawl")]
        name: String,
    },
    /// Pause a running crawl (URIs in flight finish).
    Pause,
    /// Unpause a running crawl.
    Unpause,
    /// Write a checkpoint of a running crawl now.
    Checkpoint,
    /// Stop a running crawl cleanly.
    Stop,
    /// List the workers of a crawl shared through Redis (needs --frontier): alive or silent, URIs done,
    /// URIs/s, leases held.
    Workers,
    /// List the WARC files every worker of a crawl shared through Redis wrote (needs --frontier): worker,
    /// path on its machine, bytes.
    Warcs,
}

#[derive(Debug, Subcommand)]
pub(crate) enum WarcCommand {
    /// One line per record: offset, type, target URI, content type, length, record id (an ARC record: the
    /// WARC fields it stands for). Damage inside a file is named, and the listing goes on from the first
    /// whole record after it (exit status 1).
    Ls {
        /// WARC or ARC files (.warc, .warc.gz, .warc.zst, .arc, .arc.gz), or a job or folder: its closed
        /// WARCs, in name order.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Check headers, digests and gzip members (one per record); exit 1 naming the first bad record and its
    /// offset. Revisit records must point at a payload archived in the files given, or in a given job's
    /// dedup_from sources. ARC files: lengths, dates, gzip members, HTTP heads. Known quirks of other
    /// producers (a payload digest over chunked bytes) are `note` lines.
    Verify {
        /// WARC or ARC files, or job directories (all their WARCs).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Fail known quirks of other producers too, instead of noting them.
        #[arg(long)]
        strict: bool,
    },
    /// Write an ARC file (or a WARC 1.0 one) as WARC 1.1: a warcinfo from the ARC's filedesc:// header, one
    /// response per ARC record with the HTTP bytes unchanged; the output's extension says its compression
    /// (`.warc.gz`, `.warc.zst`, `.warc`); its CDXJ index is written beside it. An ARC or WARC that cannot be
    /// read past some point (a `.arc.gz` or `.warc.gz` cut short, zero bytes after the last record) gives the
    /// records before it, and damage inside one (a bad gzip member or zstd frame, a wrong length) the records
    /// on both sides of it, from the first whole record after it, with a warning and exit status 1.
    Convert {
        /// The ARC or WARC to read (plain or gzip).
        input: PathBuf,
        /// The WARC to write (refused if it exists).
        output: PathBuf,
    },
    /// Rewrite a WARC in another compression, record by record: the output's extension says which
    /// (`.warc.gz`, `.warc.zst`, `.warc`); its CDXJ index is written beside it. A `.warc.zst` output begins
    /// with a zstd dictionary trained from the input's first records, which every record is compressed with.
    /// Damage is kept out as `convert` keeps it out, with a warning and exit status 1.
    Recompress {
        /// The WARC to read (any compression).
        input: PathBuf,
        /// The WARC to write (refused if it exists).
        output: PathBuf,
    },
    /// A sorted CDXJ index (pywb's form) of WARC files, any crawler's; a job directory (or its warcs/ folder)
    /// stands for all its WARCs, merged from the .cdxj files beside them (a file sharing its .cdxj with
    /// another of the same name is read). One index for everything given; a damaged file gives the lines
    /// of the records before the damage and after it (from the first whole record after it), with a warning
    /// and exit status 1.
    Index {
        /// WARC files, job directories or WARC folders.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Write the index here instead of to standard output.
        #[arg(short = 'o', long = "output")]
        output: Option<PathBuf>,
    },
}

/// What `trawl import` reads.
#[derive(Debug, Subcommand)]
pub(crate) enum ImportFrom {
    /// A Heritrix 3 crawler-beans.cxml: seeds, scope rules, politeness, fetch and WARC settings, sheets. What
    /// trawl cannot honour is listed at the end (with the XML line) and in the file as comments, a Heritrix
    /// processor trawl does not run or a third-party bean included (the chain goes on without it; an error
    /// with --strict); the result is checked as `trawl check` would.
    Heritrix {
        /// The crawler-beans.cxml.
        cxml: PathBuf,
        /// Write the profile here (refused if it exists) instead of to standard output.
        #[arg(short = 'o', long = "output")]
        output: Option<PathBuf>,
        /// Fail on a bean trawl does not carry over (a Heritrix processor it does not run, a third-party
        /// class) instead of listing it and going on.
        #[arg(long)]
        strict: bool,
    },
}

/// An address to listen on: an IP address and port, or `localhost:PORT` for the loopback one (xt23a F8:
/// clap's bare "invalid socket address syntax" said not what to write).
fn bind_address(text: &str) -> Result<std::net::SocketAddr, String> {
    if let Ok(address) = text.parse() {
        return Ok(address);
    }
    if let Some(port) = text.strip_prefix("localhost:")
        && let Ok(port) = port.parse::<u16>()
    {
        return Ok(std::net::SocketAddr::from(([127, 0, 0, 1], port)));
    }
    Err(format!(
        "{text:?} is not an address to listen on: give an IP address and a port, 127.0.0.1:8480 for one \
         (localhost:8480 is taken as that)"
    ))
}
