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

/// The environment variable a Redis password may be given in, kept out of the command line that `ps`
/// shows every local user (xt16b F15).
const REDIS_PASSWORD_ENV: &str = "TRAWL_REDIS_PASSWORD";

/// `url` with the password of [`REDIS_PASSWORD_ENV`] put in, when it is set and the URL (`redis://` or
/// `rediss://`) gives none of its own.
fn with_redis_password(url: String) -> anyhow::Result<String> {
    redis_url_with(url, std::env::var_os(REDIS_PASSWORD_ENV))
}

/// `url` with `password` put in ([`with_redis_password`]).
fn redis_url_with(url: String, password: Option<std::ffi::OsString>) -> anyhow::Result<String> {
    let Some(password) = password.filter(|p| !p.is_empty()) else {
        return Ok(url);
    };
    let Some(password) = password.to_str().map(str::to_owned) else {
        anyhow::bail!("{REDIS_PASSWORD_ENV} is not UTF-8 text");
    };
    if !(url.starts_with("redis://") || url.starts_with("rediss://")) {
        anyhow::bail!(
            "{REDIS_PASSWORD_ENV} is set, but {} is not a redis:// or rediss:// URL it can go into (a \
             Sentinel URL takes the password in each sentinel's address)",
            trawl_engine::shared_job::without_password(&url)
        );
    }
    let encoded =
        percent_encoding::utf8_percent_encode(&password, percent_encoding::NON_ALPHANUMERIC)
            .to_string();
    // The URL's own password wins.
    Ok(trawl_frontier::with_password(&url, &encoded))
}

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
            frontier.map(with_redis_password).transpose()?,
        ),
        Command::Worker {
            frontier,
            job,
            metrics_bind,
        } => crawl::worker(&with_redis_password(frontier)?, job, metrics_bind),
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
        } => ctl::shared(&with_redis_password(url)?, &job, json, action),
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
        } => serve::serve(
            bind,
            &jobs,
            set_password,
            frontier.map(with_redis_password).transpose()?.as_deref(),
            &host_names,
        ),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The password of TRAWL_REDIS_PASSWORD goes into a URL that has none, encoded; a URL's own wins.
    #[test]
    fn a_redis_password_from_the_environment() {
        let pw = || Some(std::ffi::OsString::from("top/sec"));
        for (url, want) in [
            (
                "redis://127.0.0.1:6379/0",
                "redis://:top%2Fsec@127.0.0.1:6379/0",
            ),
            ("rediss://me@h:1/2", "rediss://me:top%2Fsec@h:1/2"),
            ("redis://:own@h:1/0", "redis://:own@h:1/0"),
            ("redis://h:1", "redis://:top%2Fsec@h:1"),
        ] {
            assert_eq!(redis_url_with(url.to_owned(), pw()).unwrap(), want);
        }
        assert!(redis_url_with("redis+sentinel://a:1/s".into(), pw()).is_err());
        assert_eq!(
            redis_url_with("redis+sentinel://a:1/s".into(), None).unwrap(),
            "redis+sentinel://a:1/s"
        );
    }
}
