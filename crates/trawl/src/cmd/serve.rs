//! `trawl serve`: the web UI and REST API over a jobs folder.

use std::{io::BufRead, net::SocketAddr, path::Path, process::ExitCode};

use anyhow::{Context, bail};
use trawl_server::{AppState, Auth, JobManager, app};

pub(crate) fn serve(
    bind: SocketAddr,
    jobs: &Path,
    set_password: bool,
    frontier: Option<&str>,
    host_names: &[String],
) -> anyhow::Result<ExitCode> {
    if set_password {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .context("reading the password from stdin")?;
        let password = line.trim_end_matches(['\r', '\n']);
        if password.len() < 8 {
            bail!("the password must have at least 8 characters");
        }
        let (path, token) = Auth::set_password(jobs, password)
            .with_context(|| format!("writing the auth file in {}", jobs.display()))?;
        say!("trawl: password stored in {}", path.display());
        println!("{token}");
        say!("trawl: that is the API token (Authorization: Bearer TOKEN); it is not shown again");
        return Ok(ExitCode::SUCCESS);
    }
    // A name a `Host` can carry, or the refusal names the flag (xt11a F7: `http://crawler01` was taken and
    // matched nothing).
    if let Some(bad) = host_names.iter().find(|n| {
        n.is_empty() || n.contains(['/', '@', '?', '#']) || n.chars().any(char::is_whitespace)
    }) {
        bail!(
            "--host-name {bad:?}: give a host name as the browser's address bar has it, without a scheme or a \
             path (crawler01, crawl.example.org, or crawl.example.org:8480)"
        );
    }
    let env = std::env::var("TRAWL_PASSWORD")
        .ok()
        .filter(|p| !p.is_empty());
    let mut auth = Auth::load(jobs, env.as_deref())
        .with_context(|| format!("reading the auth file in {}", jobs.display()))?;
    if !auth.has_password() {
        if !bind.ip().is_loopback() {
            bail!(
                "refusing to listen on {bind} without a password: run `trawl serve --jobs {} --set-password` or set TRAWL_PASSWORD",
                jobs.display()
            );
        }
        let password = trawl_server::random_secret();
        let token = format!("trawl_{}", trawl_server::random_secret());
        auth = Auth::with_password(&password, Some(&token));
        say!(
            "trawl: no password set; for this run only:\n  password: {password}\n  API token: {token}"
        );
    }
    if auth.has_password() && !auth.has_tokens() {
        // A password from TRAWL_PASSWORD and no stored auth file: the UI works, and so must the API.
        let token = format!("trawl_{}", trawl_server::random_secret());
        auth.add_token(&token);
        say!(
            "trawl: no API token is stored; for this run only:\n  API token: {token}\n(`--set-password` stores a \
             password and a lasting token)"
        );
    }
    let mut state = AppState::new(
        JobManager::new(jobs).with_context(|| format!("creating {}", jobs.display()))?,
        auth,
    )
    .with_host_names(host_names);
    if !bind.ip().is_loopback() && host_names.is_empty() {
        say!(
            "trawl: answering requests that name this machine by an IP address or localhost only; reached by a \
             name (http://NAME:{}/), give it with --host-name NAME",
            bind.port()
        );
    }
    if let Some(url) = frontier {
        trawl_frontier::shared_crawls(url).with_context(|| {
            format!(
                "--frontier {}",
                trawl_engine::shared_job::without_password(url)
            )
        })?;
        state = state.with_shared(url);
    }
    let runtime = super::runtime()?;
    let code = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(bind)
            .await
            .with_context(|| format!("listening on {bind}"))?;
        say!("trawl: serving http://{}/", listener.local_addr()?);
        let jobs = state.jobs.clone();
        let (closing, closed) = tokio::sync::watch::channel(false);
        let mut server = tokio::spawn(
            axum::serve(
                listener,
                app(state).into_make_service_with_connect_info::<SocketAddr>(),
            )
            .with_graceful_shutdown(async move {
                let mut closed = closed;
                let _ = closed.wait_for(|&c| c).await;
            })
            .into_future(),
        );
        // Ctrl-C, SIGTERM (`systemctl stop`, `docker stop`) or SIGHUP stop it alike (xt17c F4: the last two
        // killed it, its crawls left interrupted).
        let mut signals = super::crawl::StopSignals::new();
        tokio::select! {
            served = &mut server => return match served {
                Ok(served) => served.context("serving").map(|()| ExitCode::SUCCESS),
                Err(e) => Err(anyhow::anyhow!("the server stopped: {e}")),
            },
            _ = signals.next() => {}
        }
        // No new connection (the open ones are still served); the running crawls end as `trawl ctl stop` ends
        // them (a checkpoint, reports); then the server goes, open event streams with it.
        let _ = closing.send(true);
        let n = jobs.stop_all();
        if n > 0 {
            say!(
                "trawl: stopping {n} running crawl(s): URIs in flight finish, then a checkpoint and the reports \
                 (Ctrl-C, or the signal, again to quit at once; `trawl resume` continues them)"
            );
        }
        // Quitting at once leaves the crawls interrupted: said by the status too, 130 as `trawl crawl`'s
        // second Ctrl-C (xt17b F9).
        let code = tokio::select! {
            _ = jobs.until_all_ended() => ExitCode::SUCCESS,
            (_, code) = signals.next() => {
                say!("trawl: quitting without waiting");
                ExitCode::from(code)
            }
        };
        server.abort();
        anyhow::Ok(code)
    });
    // A request still reading a file that blocks (a FIFO a config names) holds a blocking thread: the server
    // does not wait for it to go (xt38a N7: neither signal ended the process).
    runtime.shutdown_background();
    code
}
