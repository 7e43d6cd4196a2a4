//! What each subcommand does: one module per command.

/// `println!` that returns the error instead of panicking when standard output is gone (`trawl warc verify
/// JOB | head -1`): `main` ends quietly on a broken pipe. For use in functions returning `anyhow::Result`.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)?
    }};
}

mod check;
mod crawl;
mod ctl;
mod import;
mod init;
mod login;
mod robots;
mod selftest;
mod serve;
mod url;
mod warc;

use std::process::ExitCode;

use crate::cli::{Cli, Command, ImportFrom, UrlCommand, WarcCommand};
use anyhow::Context;

pub(crate) fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Crawl {
            seeds,
            config,
            job,
            seed_files,
            metrics_bind,
            user_agent,
            frontier,
        } => crawl::crawl(
            seeds,
            &seed_files,
            config,
            job,
            metrics_bind,
            user_agent,
            frontier,
        ),
        Command::Worker {
            frontier,
            job,
            metrics_bind,
        } => crawl::worker(&frontier, job, metrics_bind),
        Command::Resume {
            job,
            checkpoint,
            metrics_bind,
        } => crawl::resume(job, checkpoint, metrics_bind),
        Command::Ctl {
            job,
            json,
            frontier: Some(url),
            action,
        } => ctl::shared(&url, &job, json, action),
        Command::Ctl {
            job,
            json,
            frontier: None,
            action,
        } => ctl::ctl(&job, json, action),
        Command::Check { config, strict } => check::check(&config, strict),
        Command::Wacz { job, output } => warc::wacz(&job, &output),
        Command::Import {
            from:
                ImportFrom::Heritrix {
                    cxml,
                    output,
                    strict,
                },
        } => import::heritrix(&cxml, output.as_deref(), strict),
        Command::Init { profile, dir } => init::init(&profile, &dir),
        Command::Login { config, credential } => login::login(&config, credential),
        Command::Serve {
            bind,
            jobs,
            set_password,
            frontier,
            host_names,
        } => serve::serve(bind, &jobs, set_password, frontier.as_deref(), &host_names),
        Command::Selftest { keep } => selftest::selftest(keep),
        Command::Robots { agent, file, urls } => robots::robots(&agent, &file, urls),
        Command::Warc { command } => match command {
            WarcCommand::Ls { files } => warc::ls(&files),
            WarcCommand::Verify { files, strict } => warc::verify(&files, strict),
            WarcCommand::Convert { input, output } => warc::convert(&input, &output),
            WarcCommand::Index { inputs, output } => warc::index(&inputs, output.as_deref()),
            WarcCommand::Recompress { input, output } => warc::recompress(&input, &output),
        },
        Command::Url { command } => match command {
            UrlCommand::Canon { rules, urls } => url::canon(&rules, urls),
            UrlCommand::Surt {
                form,
                with_scheme,
                trailing_comma,
                no_host_massage,
                no_reverse_ip,
                urls,
            } => {
                let mut opts = trawl_url::surt::SurtOptions::default();
                opts.with_scheme = with_scheme;
                opts.trailing_comma = trailing_comma;
                opts.host_massage = !no_host_massage;
                opts.reverse_ipaddr = !no_reverse_ip;
                url::surt(form, opts, urls)
            }
            UrlCommand::Norm { urls } => url::norm(urls),
            UrlCommand::Explain {
                config,
                via,
                seeds,
                hops,
                classes,
                urls,
                ..
            } => url::explain(
                config.as_deref(),
                classes.as_deref(),
                via.as_deref(),
                &seeds,
                hops.as_deref(),
                urls,
            ),
            UrlCommand::Classes { library, json } => url::classes(&library, json),
        },
    }
}

/// The multi-threaded runtime the async commands run on.
pub(crate) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}
