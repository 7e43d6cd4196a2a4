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
