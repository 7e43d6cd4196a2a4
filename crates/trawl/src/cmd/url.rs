//! `trawl url canon|surt|norm|explain`: the identity tools. Exactly one output line per input, in order, so a
//! batch's answers stay paired with its inputs: an input that is not a URL (an empty line included) gets
//! [`NOT_A_URL`] on stdout (with `explain`, a JSON object with an `error` field), its message on stderr with
//! its line number, and the exit status is 1 at the end.

use std::{
    io::{BufRead, Write},
    path::Path,
    process::ExitCode,
};
use trawl_url::class::UrlClasses;

use anyhow::Context;
use trawl_config::CrawlConfig;
use trawl_url::{
    Identity, Url,
    canon::Canonicalizer,
    parse_lenient,
    surt::{self, SurtOptions},
};

use crate::cli::SurtForm;

/// The line printed for an input that is not a URL.
pub(crate) const NOT_A_URL: &str = "-";

/// A batch tool's inputs: the arguments, or the lines of stdin when there are none. A line that is not UTF-8
/// is an input too, given as its text with the bytes replaced and the reason (so the tool prints its `-` and
/// goes on: one output line per input line).
pub(crate) fn inputs(
    args: Vec<String>,
) -> Box<dyn Iterator<Item = std::io::Result<(String, Option<&'static str>)>>> {
    if !args.is_empty() {
        return Box::new(args.into_iter().map(|a| Ok((a, None))));
    }
    Box::new(
        std::io::stdin()
            .lock()
            .split(b'\n')
            .enumerate()
            .map(|(i, line)| Ok(decode_line(line?, i == 0))),
    )
}

/// One line of stdin (its `\n` gone) as an input: without a final `\r`, and the `first` without a byte
/// order mark (as a list saved by Notepad or PowerShell begins: xt23b F1, its host read as `http`, as the
/// seed-file reader drops it too); a line that is not UTF-8 is given with its bytes replaced and the reason.
fn decode_line(mut line: Vec<u8>, first: bool) -> (String, Option<&'static str>) {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    if first && line.starts_with(b"\xEF\xBB\xBF") {
        line.drain(..3);
    }
    match String::from_utf8(line) {
        Ok(text) => (text, None),
        Err(e) => (
            String::from_utf8_lossy(e.as_bytes()).into_owned(),
            Some("the line is not UTF-8 text"),
        ),
    }
}

/// The inputs of [`inputs`], read one at a time, telling whether the next read of stdin may block (no whole
/// line is buffered): the caller flushes its answers then, so a batch is answered in large writes while a
/// co-process that writes one line and waits gets its answer at once.
struct Inputs {
    args: Option<std::vec::IntoIter<String>>,
    stdin: std::io::BufReader<std::io::Stdin>,
    /// Lines of stdin read so far.
    read: usize,
}

impl Inputs {
    fn new(args: Vec<String>) -> Inputs {
        Inputs {
            args: (!args.is_empty()).then(|| args.into_iter()),
            stdin: std::io::BufReader::new(std::io::stdin()),
            read: 0,
        }
    }

    /// Whether the next input may wait for stdin.
    fn may_wait(&self) -> bool {
        self.args.is_none() && !self.stdin.buffer().contains(&b'\n')
    }

    fn next_input(&mut self) -> Option<std::io::Result<(String, Option<&'static str>)>> {
        if let Some(args) = &mut self.args {
            return args.next().map(|a| Ok((a, None)));
        }
        let mut line = Vec::new();
        match self.stdin.read_until(b'\n', &mut line) {
            Ok(0) => None,
            Ok(_) => {
                if line.last() == Some(&b'\n') {
                    line.pop();
                }
                self.read += 1;
                Some(Ok(decode_line(line, self.read == 1)))
            }
            Err(e) => Some(Err(e)),
        }
    }
}

/// Runs `line` on each input ([`inputs`]) and prints what it returns; `failed` makes the line for an input
/// that is not a URL, from the input and the message.
fn each(
    urls: Vec<String>,
    line: impl Fn(&str, &Url) -> String,
    failed: impl Fn(&str, &str) -> String,
) -> anyhow::Result<ExitCode> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut bad = false;
    let mut inputs = Inputs::new(urls);
    let mut n = 0;
    loop {
        if inputs.may_wait() {
            out.flush()?;
        }
        let Some(input) = inputs.next_input() else {
            break;
        };
        n += 1;
        let (input, unreadable) = input.context("reading URLs from stdin")?;
        let parsed = if let Some(why) = unreadable {
            Err(why.to_string())
        } else if input.trim().is_empty() {
            Err("an empty line is not a URL".to_string())
        } else {
            parse_lenient(&input).map_err(|e| e.to_string())
        };
        match parsed {
            Ok(url) => writeln!(out, "{}", line(&input, &url))?,
            Err(message) => {
                writeln!(out, "{}", failed(&input, &message))?;
                out.flush()?;
                say!("trawl: input line {n}: {message}");
                bad = true;
            }
        }
    }
    out.flush()?;
    Ok(if bad {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The plain tools' line for an input that is not a URL.
fn marker(_: &str, _: &str) -> String {
    NOT_A_URL.to_string()
}

pub(crate) fn canon(rules: &str, urls: Vec<String>) -> anyhow::Result<ExitCode> {
    let c: Canonicalizer = rules.parse()?;
    each(urls, |_, u| c.canonicalize(u), marker)
}

pub(crate) fn surt(
    form: SurtForm,
    opts: SurtOptions,
    urls: Vec<String>,
) -> anyhow::Result<ExitCode> {
    each(
        urls,
        |_, u| match form {
            SurtForm::Cdx => surt::cdx(u, &opts),
            SurtForm::Heritrix => surt::heritrix(u),
        },
        marker,
    )
}

pub(crate) fn norm(urls: Vec<String>) -> anyhow::Result<ExitCode> {
    let id = Identity::default();
    each(
        urls,
        |_, u| {
            let key = id.norm(u);
            format!("{}\t{}", key.as_str(), key.uuid())
        },
        marker,
    )
}

pub(crate) fn explain(
    config: Option<&Path>,
    library: Option<&Path>,
    via: Option<&str>,
    seeds: &[String],
    hops: Option<&str>,
    urls: Vec<String>,
) -> anyhow::Result<ExitCode> {
    // A config with wrong values is read as written, its problems said first (xt14b F8: explain refused
    // the very config whose scope refused a seed); one that is no config (syntax, keys, types) is refused.
    let (mut config, problems) = match config {
        Some(path) => CrawlConfig::check_leniently(path)?,
        None => (CrawlConfig::default(), Vec::new()),
    };
    // What names URLs must hold for any verdict: a problem there is the answer (xt15c F5: the note said the
    // URLs were judged, then none was).
    let id = config.identity.build().map_err(|e| {
        anyhow::anyhow!(
            "{e}; no URL can be named under this config (`trawl check` says every problem)"
        )
    })?;
    if !problems.is_empty() {
        say!(
            "trawl: note: `trawl check` refuses this config; the URLs are judged under it as written:"
        );
    }
    for p in &problems {
        say!("{p}");
    }
    // A via that is no http(s) URL is refused, not replaced by the seed (xt12a F16: a typo gave the
    // opposite verdict, silently).
    let via = via
        .map(|v| trawl_config::explain::parse_via(v).map_err(|e| anyhow::anyhow!("--via {e}")))
        .transpose()?;
    for seed in seeds {
        trawl_url::parse_seed(seed).with_context(|| format!("--seed {seed:?}"))?;
        config.seeds.urls.push(seed.clone());
    }
    if config.seeds.urls.is_empty() {
        // The seed stood in for the missing ones: the via page, else the URL itself (review R8).
        let stand_in = if via.is_some() {
            "the --via page is taken as the seed"
        } else {
            "each URL is judged as its own seed, so a scope made of the seeds' prefixes accepts it"
        };
        say!(
            "trawl: note: no seeds (the config has no [seeds] and no --seed was given): {stand_in}; pass the \
             crawl's seeds with --seed URL"
        );
    }
    if let Some(h) = hops
        && let Some(c) = h.chars().find(|c| !"LERXPSI".contains(*c))
    {
        anyhow::bail!("--hops {h:?}: {c:?} is not a hop letter (L E R X P S I)");
    }
    let mut defs = config.url_classes.clone();
    if let Some(lib) = library {
        let text =
            std::fs::read_to_string(lib).with_context(|| format!("reading {}", lib.display()))?;
        let lib_defs = UrlClasses::defs_from_toml_str(&text, &lib.display().to_string())?;
        // The config's classes win over same-named library classes, as in a crawl.
        let extra: Vec<_> = lib_defs
            .into_iter()
            .filter(|d| !defs.iter().any(|c| c.name == d.name))
            .collect();
        defs.extend(extra);
    }
    let classes = UrlClasses::from_defs(defs.clone())?;
    // The scope (its `url_class_kind` rules) sees the library's classes too, as the crawl would with the
    // library in `[classes] files`.
    config.url_classes = defs;
    each(
        urls,
        |input, u| {
            trawl_config::explain::explain_json(
                &config,
                &classes,
                &id,
                via.as_ref(),
                hops,
                input,
                u,
            )
            .to_string()
        },
        |input, message| serde_json::json!({ "input": input, "error": message }).to_string(),
    )
}

/// `trawl url classes LIB`: each class with its example and the example's normalised form.
pub(crate) fn classes(library: &Path, json: bool) -> anyhow::Result<ExitCode> {
    let text = std::fs::read_to_string(library)
        .with_context(|| format!("reading {}", library.display()))?;
    let defs = UrlClasses::defs_from_toml_str(&text, &library.display().to_string())?;
    let names: Vec<String> = defs.iter().map(|d| d.name.clone()).collect();
    let classes = UrlClasses::from_defs(defs)?;
    for w in classes.warnings() {
        // At the field, as `trawl check` places it: FILE:LINE:COL.
        let index = names.iter().position(|n| Some(n.as_str()) == w.class());
        let at = index.and_then(|i| {
            let key = match w.field() {
                Some(field) => format!("url_class[{i}].{field}"),
                None => format!("url_class[{i}]"),
            };
            trawl_config::settings::problem::locate(&text, &key)
                .map(|span| trawl_config::settings::problem::line_col(&text, span.start))
        });
        match at {
            Some((line, col)) => say!("warning: {}:{line}:{col}: {w}", library.display()),
            None => say!("warning: {}: {w}", library.display()),
        }
    }
    let mut out = std::io::stdout().lock();
    for class in classes.iter() {
        let def = class.def();
        let normalised = Url::parse(&def.example)
            .ok()
            .and_then(|u| class.normalise(&u).ok())
            .map(|u| u.to_string());
        if json {
            let line = serde_json::json!({
                "name": def.name,
                "kind": def.kind.as_str(),
                "example": def.example,
                "normalised": normalised,
            });
            writeln!(out, "{line}")?;
        } else {
            let n = normalised.as_deref().unwrap_or("(does not normalise)");
            writeln!(
                out,
                "{}\t{}\t{}\t{n}",
                def.name,
                def.kind.as_str(),
                def.example
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
