//! `trawl`: the command line. It parses flags and calls the libraries; all crawling lives in trawl-engine.

/// `eprintln!` that does not panic when stderr is gone (`trawl url canon 2>&1 | head -1`): a message nobody
/// can read any more is dropped, and the command ends as it would have.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

mod cli;
mod cmd;

use std::process::ExitCode;

use clap::Parser;

/// mimalloc instead of glibc's malloc: a crawl allocates and frees many small strings per link on several
/// threads, and glibc's allocator was 15-18% of a crawl's CPU samples (mostly `_int_malloc`, consolidation and
/// `realloc`); see docs/performance.md. `no_thp`: without it mimalloc asks for transparent huge pages and a
/// 100k-page crawl peaked at 210 MB instead of 171.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("TRAWL_LOG")
                // chromiumoxide warns of every DevTools event it has no type for, and its handler errs of a
                // browser that crashed in its own words (trawl says that, and the restart: xt16a F11); lopdf
                // warns and errs of every odd PDF object it reads past, naming no document (xt25b F2): none is
                // the operator's to act on (crawl.log notes what matters: `pdf:unreadable`, a limit).
                // chromiumoxide's other errors stay (a DevTools reply it cannot read). The stores' fjall and
                // lsm-tree err of every failed write in their own words ("a FATAL, and possibly
                // hardware-related, failure" for a full disk: xt39b F3); each failure reaches trawl as an
                // error, said with what to do (`trawl_frontier::store_failure`).
                .unwrap_or_else(|_| {
                    "warn,chromiumoxide=error,chromiumoxide::handler=off,lopdf=off,fjall=off,lsm_tree=off"
                        .into()
                }),
        )
        .with_writer(std::io::stderr)
        // Colours only on a terminal: no escape codes in a log file stderr is sent to.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    take_file_size_signal();
    match cmd::run(cli) {
        Ok(code) => code,
        // A reader that went away (`trawl warc ls FILE | head`) is not an error of ours.
        Err(e)
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            say!("trawl: error: {}", message(&e));
            ExitCode::FAILURE
        }
    }
}

/// Takes SIGXFSZ (by default it kills the process without a word), so that a write past the file-size limit
/// (`ulimit -f`) fails with EFBIG instead, and the command says which file reached the limit. tokio's
/// handler stays for the life of the process, past this small runtime.
fn take_file_size_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let xfsz = SignalKind::from_raw(rustix::process::Signal::XFSZ.as_raw());
    if let Ok(rt) = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
    {
        rt.block_on(async {
            if let Err(e) = signal(xfsz) {
                tracing::debug!("SIGXFSZ stays fatal: {e}");
            }
        });
    }
}

/// The error and its causes joined by `: `, skipping a cause whose text the message already holds (our
/// library errors print their source themselves, so `{:#}` would say it twice).
fn message(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&cause);
        }
    }
    text
}
