//! Why browser capture could not start or a page could not be rendered.

use std::path::PathBuf;

/// What went wrong with the browser.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BrowserError {
    /// No Chromium to run.
    #[error(
        "no Chromium found: install it (`apt-get install chromium`) or set [browser] executable to its path"
    )]
    NoChromium,
    /// `[browser] executable` names no executable file.
    #[error(
        "[browser] executable {}: no executable file there{}: install Chromium (`apt-get install chromium`) and set its path", .0.display(), on_path(.0)
    )]
    NotExecutable(PathBuf),
    /// The executable runs but is not a Chromium (its `--version` names none).
    #[error(
        "[browser] executable {}: not a Chromium (`{} --version` {said}): set the path of Chromium or Chrome", .executable.display(), .executable.display()
    )]
    NotChromium {
        /// The executable run.
        executable: PathBuf,
        /// What its `--version` printed, or why it could not run.
        said: String,
    },
    /// Chromium did not start, or its DevTools connection failed.
    #[error("Chromium ({}) did not start: {message}", executable.display())]
    Launch {
        /// The executable run.
        executable: PathBuf,
        /// What it said.
        message: String,
    },
    /// A DevTools command failed (the page or the browser may have crashed).
    #[error("browser: {0}")]
    Cdp(String),
    /// A script trawl ran in the page threw: where, and what (the exception's first line).
    #[error("the script threw at line {line}, column {column}: {what}")]
    Script {
        /// Its line, from 1.
        line: i64,
        /// Its column, from 1.
        column: i64,
        /// The exception as a console shows it (`Error: message`).
        what: String,
    },
    /// The page's renderer crashed.
    #[error("the page crashed")]
    Crashed,
    /// The page's loopback proxy could not listen.
    #[error("browser proxy: {0}")]
    Proxy(std::io::Error),
    /// The certificate the proxy answers HTTPS with could not be made.
    #[error("browser proxy certificate: {0}")]
    Certificate(String),
}

/// What a bare name (no `/`) was looked for: PATH, not the config's folder (xt42b: `fakechrome.sh` beside the
/// config was said missing with no word of where it was looked for).
fn on_path(name: &std::path::Path) -> String {
    match name.components().count() {
        1 if name.is_relative() => format!(
            " (a name without a `/` is looked for on PATH; for a file beside the config write \"./{}\")",
            name.display()
        ),
        _ => String::new(),
    }
}
