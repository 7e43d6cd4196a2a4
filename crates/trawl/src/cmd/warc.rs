//! `trawl warc ls|verify`.

use std::{io::Write, path::PathBuf, process::ExitCode};

pub(crate) fn ls(files: &[PathBuf]) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    for path in files {
        for rec in trawl_warc::open(path)? {
            let rec = rec?;
            writeln!(out, "{}", trawl_warc::ls_line(&rec))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn verify(files: &[PathBuf]) -> anyhow::Result<ExitCode> {
    let mut failed = false;
    for path in files {
        match trawl_warc::verify(path) {
            Ok(summary) => {
                let types: Vec<String> = summary
                    .by_type
                    .iter()
                    .map(|(t, n)| format!("{n} {t}"))
                    .collect();
                println!(
                    "ok {}: {} records ({})",
                    path.display(),
                    summary.records,
                    types.join(", ")
                );
            }
            Err(e) => {
                println!("FAILED {e}");
                failed = true;
            }
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
