//! `trawl warc ls|verify|index|recompress|convert`.

use std::{
    io::{BufRead, Write},
    path::{Path, PathBuf},
    process::ExitCode,
};

use anyhow::Context;

/// `trawl warc ls FILE|JOB…`: one line per record; a job or folder lists its WARCs in name order.
pub(crate) fn ls(inputs: &[PathBuf]) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let mut files = Vec::new();
    for input in inputs {
        files.extend(warcs_of(input, inputs.len() > 1)?);
    }
    if files.is_empty() {
        anyhow::bail!("no WARC or ARC file among the files given: nothing to list");
    }
    // A damaged file lists its records up to the damage, and from the first whole record after it, and is
    // named; the files after it are listed still (xt15a F16: one torn file hid every later one).
    let mut cut = 0;
    let mut passed = 0;
    let mut shared = 0;
    let mut headless = 0;
    let mut missing = 0;
    for path in &files {
        let mut records = match trawl_warc::open(path) {
            Ok(records) => records,
            // A mistyped name is no damaged file (xt38b N6).
            Err(e) if !path.exists() => {
                say!("trawl: error: {e}");
                missing += 1;
                continue;
            }
            Err(e) => {
                say!("trawl: error: {e}");
                cut += 1;
                continue;
            }
        };
        let (mut listed, mut previous, mut said) = (0, None, false);
        let mut passed_here = false;
        while let Some(rec) = records.next() {
            match rec {
                Ok(rec) => {
                    // Records sharing a gzip member (a file gzipped as one stream) cannot be reached by
                    // offset for replay: listed, and said once (xt19a F10), as verify and index say it.
                    if rec.compression != trawl_warc::Compression::None
                        && previous.replace(rec.offset) == Some(rec.offset)
                        && !std::mem::replace(&mut said, true)
                    {
                        out.flush()?;
                        say!("trawl: error: {}", rec.shared_member_error(path));
                        shared += 1;
                    }
                    listed += 1;
                    writeln!(out, "{}", trawl_warc::ls_line(&rec))?;
                    if listed == 1
                        && let Some((url, _)) = rec.not_filedesc()
                    {
                        out.flush()?;
                        say!(
                            "trawl: error: {} at offset {}: the first record of an ARC file is not its \
                             filedesc:// header but {url:?} (`trawl warc verify` fails the file)",
                            path.display(),
                            rec.offset
                        );
                        headless += 1;
                    }
                    if let Some(framed) = rec.framed() {
                        out.flush()?;
                        say!(
                            "WARN {} at offset {}: {framed} (`trawl warc verify` fails the record)",
                            path.display(),
                            rec.offset
                        );
                    }
                }
                Err(e) => {
                    out.flush()?;
                    said = true;
                    previous = None;
                    // The records after the damage are listed too, from the first whole one (xt27b F4); a
                    // search that cannot read the file (a bad disk block) ends this file's listing only.
                    let read_on = records.read_on_after(&e).unwrap_or_else(|err| {
                        say!("trawl: error: {err}");
                        None
                    });
                    if let Some(read_on_at) = read_on {
                        say!(
                            "trawl: error: {}",
                            trawl_warc::Passed {
                                damage: e,
                                read_on_at
                            }
                        );
                        passed_here = true;
                        continue;
                    }
                    say!("trawl: error: {e}");
                    if let Some(other) = records.unread_other() {
                        say!(
                            "trawl: {}: {}",
                            path.display(),
                            trawl_warc::unread_other_hint(path, other)
                        );
                    }
                    cut += 1;
                    break;
                }
            }
        }
        passed += usize::from(passed_here);
        // Said already when the first record failed to read.
        if listed == 0 && !said {
            say!(
                "trawl: error: {}: holds no record (an empty file, or not an archive)",
                path.display()
            );
            cut += 1;
        }
    }
    out.flush()?;
    if cut > 0 {
        say!(
            "trawl: {}: the listing lacks {} records from the damage on (`trawl warc verify` names it)",
            count(cut, "damaged file"),
            if cut == 1 { "its" } else { "their" }
        );
    }
    if passed > 0 {
        say!(
            "trawl: {} damaged inside: the listing lacks the records in the damage, and goes on from the first \
             whole record after it (`trawl warc verify` names the damage)",
            count(passed, "file")
        );
    }
    // Every record is listed (xt29a: this said the listing lacked them).
    if shared > 0 {
        say!(
            "trawl: {} with records compressed together: each is listed, but a replay cannot reach those after \
             the first of their member by offset (rewrite the file as said)",
            count(shared, "file")
        );
    }
    if headless > 0 {
        say!(
            "trawl: {} whose first record is not their filedesc:// header (its URL damaged, or the file cut at \
             the front)",
            count(headless, "ARC file")
        );
    }
    if missing > 0 {
        say!(
            "trawl: {} not found: nothing listed of it",
            count(missing, "file")
        );
    }
    if cut + passed + shared + headless + missing > 0 {
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// `trawl warc verify FILE|JOB…`: each WARC's framing, headers and digests; then every revisit record's payload
/// must be archived somewhere it can be replayed from: in the WARCs given, or in the `dedup_from` sources of a
/// job given as a directory. Known quirks of other producers are `note` lines, failures with `strict`. The
/// WARCs of a job or folder must have their index beside them: each `.cdxj` is compared with the index of the
/// records, computed as they are read.
pub(crate) fn verify(inputs: &[PathBuf], strict: bool) -> anyhow::Result<ExitCode> {
    let mut failed = false;
    let mut files = Vec::new();
    let mut sources = Vec::new();
    for input in inputs {
        // A folder's WARCs have their index checked; a job's must have one.
        let beside = input.is_dir().then(|| input.join("warcs").is_dir());
        let found = warcs_of(input, inputs.len() > 1)?;
        files.extend(found.into_iter().map(|f| (f, beside)));
        let config = input.join("crawl.toml");
        if input.is_dir() && config.is_file() {
            let c = trawl_config::CrawlConfig::load(&config)?;
            sources.extend(c.warc.dedup_from);
        }
    }
    if files.is_empty() {
        anyhow::bail!("no WARC or ARC file among the files given: nothing to verify");
    }
    let mut revisits = Revisits::default();
    let mut unreadable = false;
    for (path, beside) in &files {
        let options = if strict {
            trawl_warc::VerifyOptions::strict()
        } else {
            trawl_warc::VerifyOptions::default()
        };
        match trawl_warc::verify_with(path, options.with_index()) {
            Ok(summary) => {
                let types: Vec<String> = summary
                    .by_type
                    .iter()
                    .map(|(t, n)| format!("{n} {t}"))
                    .collect();
                out!(
                    "ok {}: {} {}records ({})",
                    path.display(),
                    summary.records,
                    if summary.arc { "ARC " } else { "" },
                    types.join(", ")
                );
                for note in &summary.notes {
                    out!("note {}: {note}", path.display());
                }
                let lines = summary.index.unwrap_or_default();
                if let Some(job) = *beside {
                    let own = job
                        || summary
                            .producers
                            .iter()
                            .any(|p| trawl_warc::written_by_trawl(p));
                    let with_others: Vec<(String, Option<String>)> = lines
                        .iter()
                        .cloned()
                        .zip(
                            summary
                                .index_others
                                .into_iter()
                                .chain(std::iter::repeat(None)),
                        )
                        .collect();
                    failed |= !index_beside_matches(path, &with_others, own)?;
                }
                revisits.add(path, &lines);
            }
            Err(e) => {
                out!("FAILED {e}");
                failed = true;
                unreadable = true;
            }
        }
    }
    // A file that cannot be read may hold the payloads of revisits: they are checked once all can be.
    if !unreadable {
        failed |= !revisits.resolve(&sources)?;
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Whether the `.cdxj` beside `warc` is its index, `lines` (as verify computed them): printed as a `FAILED`
/// line when it differs, naming the first difference, or when it is missing and the WARC should have one
/// (`own`: in a job, or written by trawl, which writes one beside each file it closes), with the command that
/// writes it anew. An index named for two archives beside each other (`X.warc.gz` and `X.warc.zst` share
/// `X.cdxj`) is the one whose name its lines give: the other is not compared with it.
fn index_beside_matches(
    warc: &Path,
    lines: &[(String, Option<String>)],
    own: bool,
) -> anyhow::Result<bool> {
    let cdxj = trawl_warc::index_path(warc);
    let name = warc.file_name().unwrap_or_default().to_string_lossy();
    let mend = format!(
        "`trawl warc index {} -o {}` writes it anew",
        warc.display(),
        cdxj.display()
    );
    if !cdxj.is_file() {
        if own {
            out!(
                "FAILED {}: missing: {name} has no index beside it (pywb and `trawl warc index` of the folder \
                 read it; a crawl writes one as it closes each file); {mend}",
                cdxj.display()
            );
        }
        return Ok(!own);
    }
    let partners = trawl_warc::sharing_index(warc);
    if !partners.is_empty() {
        let first = std::fs::File::open(&cdxj)
            .map(std::io::BufReader::new)
            .and_then(|mut f| {
                let mut line = String::new();
                f.read_line(&mut line).map(|_| line)
            })
            .with_context(|| format!("cannot read {}", cdxj.display()))?;
        let names = trawl_warc::line_filename(first.trim_end());
        if partners
            .iter()
            .any(|p| p.file_name().map(|n| n.to_string_lossy()) == names.as_deref().map(Into::into))
        {
            return Ok(true);
        }
    }
    match trawl_warc::index_difference(&cdxj, lines)? {
        None => Ok(true),
        Some(difference) => {
            out!(
                "FAILED {}: not the index of {name} beside it: {difference}; {mend}",
                cdxj.display()
            );
            Ok(false)
        }
    }
}

/// What the revisits of the files verified need: the payload digests of their full captures, and each revisit.
#[derive(Default)]
struct Revisits {
    /// Digests of full captures, as `sha1:BASE32`.
    payloads: std::collections::HashSet<String>,
    /// Each revisit: its file, offset, URL and payload digest.
    revisits: Vec<(PathBuf, String, String, String)>,
}

impl Revisits {
    /// Takes in the index `lines` of `warc`.
    fn add(&mut self, warc: &Path, lines: &[String]) {
        let fields = |line: &str| -> Option<serde_json::Map<String, serde_json::Value>> {
            serde_json::from_str(line.splitn(3, ' ').nth(2)?).ok()
        };
        let text = |m: &serde_json::Map<String, serde_json::Value>, k: &str| {
            m.get(k)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_owned()
        };
        for line in lines {
            let Some(m) = fields(line) else { continue };
            // Compared as `sha1:BASE32`, however a producer wrote its digests.
            let digest = text(&m, "digest");
            let digest = trawl_warc::sha1_key(&digest).unwrap_or(digest);
            if text(&m, "mime") == "warc/revisit" {
                self.revisits.push((
                    warc.to_path_buf(),
                    text(&m, "offset"),
                    text(&m, "url"),
                    digest,
                ));
            } else {
                self.payloads.insert(digest);
            }
        }
    }

    /// Whether every revisit taken in has its payload's digest among the full captures taken in and those of
    /// the dedup `sources` (job directories or CDXJ files); prints each that has not.
    fn resolve(mut self, sources: &[PathBuf]) -> anyhow::Result<bool> {
        if self.revisits.is_empty() {
            return Ok(true);
        }
        // Read as the crawl read them to deduplicate: indexes (CDXJ, classic CDX, gzipped or not) and archives.
        for source in trawl_engine::write::with_earlier_sources(sources) {
            self.payloads
                .extend(trawl_engine::write::payload_digests(&source)?);
        }
        let mut ok = true;
        for (file, offset, url, digest) in &self.revisits {
            if !self.payloads.contains(digest) {
                ok = false;
                out!(
                    "FAILED {} at offset {offset}: the revisit of {url} points at a payload ({digest}) archived in \
                     none of the files given nor the job's dedup_from sources; give the job directory, or the WARCs \
                     holding it",
                    file.display()
                );
            }
        }
        if ok {
            out!(
                "ok {} revisit records: each payload is archived",
                self.revisits.len()
            );
        }
        Ok(ok)
    }
}

/// The WARCs a path stands for: itself, or the WARC files of a folder (a job's `warcs/` when given the job).
/// WARC files still open in the folder are left out, with a warning naming them. A folder holding none is an
/// error given alone, and passed over, said, given `among_others` (`verify JOB/*` gives `JOB/checkpoints`
/// beside `JOB/warcs`: xt38b N14).
fn warcs_of(input: &Path, among_others: bool) -> anyhow::Result<Vec<PathBuf>> {
    // An index given among the files (`verify out/*`, the `.cdxj` written beside each archive) is no damaged
    // archive: passed over, said (xt36b F7).
    if is_index_name(input) {
        say!(
            "trawl: {}: an index, not an archive: passed over",
            input.display()
        );
        return Ok(Vec::new());
    }
    if !input.is_dir() {
        return Ok(vec![input.to_path_buf()]);
    }
    let dir = if input.join("warcs").is_dir() {
        input.join("warcs")
    } else {
        input.to_path_buf()
    };
    let found = trawl_warc::warc_files(&dir)
        .with_context(|| format!("cannot read the folder {}", dir.display()))?;
    if found.is_empty() && among_others {
        say!(
            "trawl: {}: a folder holding no WARC file: passed over",
            dir.display()
        );
        return Ok(Vec::new());
    }
    if found.is_empty() {
        anyhow::bail!(
            "{} holds no WARC file: {}",
            dir.display(),
            trawl_engine::job::no_warcs_reason(&dir)
        );
    }
    if let Some(warning) = trawl_engine::job::open_warcs_left_out(&dir) {
        say!("WARN {warning}");
    }
    Ok(found)
}

/// Whether `path` is named as a CDX or CDXJ index (`.cdxj`, `.cdx`, gzipped or not).
fn is_index_name(path: &Path) -> bool {
    // A folder is never an index, whatever its name (xt47c F2: a job named after the CDX it deduplicated
    // against).
    if path.is_dir() {
        return false;
    }
    let name = path.to_string_lossy().to_ascii_lowercase();
    [".cdxj", ".cdx", ".cdxj.gz", ".cdx.gz"]
        .iter()
        .any(|ext| name.ends_with(ext))
}

/// `trawl warc index`: every input's captures in one byte-sorted CDXJ index. A WARC with an index beside it
/// (as trawl writes one for each file it closes) contributes that index, unless another archive of the same
/// name shares it (`X.warc.zst` beside `X.warc.gz`: `X.cdxj` is one file's) or a line of it names another file
/// (a stale index, left from a WARC renamed or recompressed: warned of); any other WARC is read. A file
/// damaged part way gives the lines before the damage and a warning; the others are indexed as ever, and the
/// exit status says a file was damaged.
pub(crate) fn index(inputs: &[PathBuf], output: Option<&Path>) -> anyhow::Result<ExitCode> {
    // A mistyped path or an index given as an input is the command's mistake, not a damaged file: refused
    // before anything is written (xt15a F15: a half index was put in place).
    for input in inputs {
        if !input.exists() {
            anyhow::bail!(
                "{}: no such file or folder; nothing was written",
                input.display()
            );
        }
    }
    // An index among the inputs (`index out/*` gives the `.cdxj` beside each archive) is passed over, said
    // (xt38b N7); inputs that are all indexes are refused, nothing written.
    let archives: Vec<PathBuf> = inputs
        .iter()
        .filter(|input| {
            let index = is_index_name(input);
            if index {
                say!(
                    "trawl: {}: an index, not an archive: passed over (merge sorted indexes with `LC_ALL=C sort -m`)",
                    input.display()
                );
            }
            !index
        })
        .cloned()
        .collect();
    if archives.is_empty() {
        anyhow::bail!(
            "no archive among the files given, only indexes; nothing was written (merge sorted indexes with \
             `LC_ALL=C sort -m`)"
        );
    }
    let inputs = &archives[..];
    let output = output.map(|out| index_output(out, inputs)).transpose()?;
    // Lines past the sorter's budget wait in unnamed files beside the output (or in the system's temporary
    // folder when the index goes to stdout or a device), so a job of millions of captures is indexed in
    // bounded memory.
    let spill_dir = match &output {
        Some(IndexOut::Replace(path)) => match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        },
        _ => std::env::temp_dir(),
    };
    let mut lines = trawl_warc::LineSorter::new(&spill_dir);
    let mut damaged = 0;
    for input in inputs {
        for warc in warcs_of(input, inputs.len() > 1)? {
            let beside = trawl_warc::index_path(&warc);
            let name = warc
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if input.is_dir() && beside.is_file() && trawl_warc::sharing_index(&warc).is_empty() {
                match foreign_line(&beside, &name)? {
                    None => {
                        let text = std::fs::File::open(&beside)
                            .map(std::io::BufReader::new)
                            .with_context(|| format!("cannot read {}", beside.display()))?;
                        for line in text.lines() {
                            let line =
                                line.with_context(|| format!("cannot read {}", beside.display()))?;
                            lines.push(line)?;
                        }
                        continue;
                    }
                    Some(why) => say!(
                        "WARN {}: {why}, not the WARC {name} beside it: a stale index, not used; {} is read \
                         instead (`trawl warc index {} -o {}` writes its index anew)",
                        beside.display(),
                        warc.display(),
                        warc.display(),
                        beside.display()
                    ),
                }
            }
            damaged += index_warc(&warc, &name, &mut lines)?;
        }
    }
    match output {
        Some(IndexOut::Replace(path)) => {
            trawl_warc::write_sorted(&path, lines)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        Some(IndexOut::Through(path)) => {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .with_context(|| format!("cannot write {}", path.display()))?;
            let mut out = std::io::BufWriter::new(file);
            lines.write_to(&mut out, &path)?;
            out.flush()
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        None | Some(IndexOut::Stdout) => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            lines.write_to(&mut out, Path::new("stdout"))?;
            out.flush()?;
        }
    }
    if damaged > 0 {
        say!(
            "trawl: {}: the index lacks some of {} captures (see the warnings above)",
            count(damaged, "damaged file"),
            if damaged == 1 { "its" } else { "their" }
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// Where `trawl warc index -o OUT` writes.
enum IndexOut {
    /// A regular file (or none yet): written beside and renamed into place, so a reader never sees half.
    Replace(PathBuf),
    /// A FIFO or a device (`/dev/null`): written through, never replaced.
    Through(PathBuf),
    /// This process's standard output, named as a path (`/dev/stdout`).
    Stdout,
}

/// What `-o OUT` names, refused where writing the index there would destroy an archive (xt15a F2: `-o
/// *.warc.gz` put the index in place of the first WARC, exit 0) or what the path stands for (F3: a symlink was
/// replaced by a file, and `/dev/stdout` too): a symlink is followed to its file.
fn index_output(out: &Path, inputs: &[PathBuf]) -> anyhow::Result<IndexOut> {
    let refuse = |why: &str| {
        anyhow::anyhow!(
            "-o {}: {why}; nothing was written (an index goes to a file of its own, as `X.cdxj`, or to \
             standard output without -o)",
            out.display()
        )
    };
    if trawl_warc::is_archive_name(out) {
        return Err(refuse("named as a WARC or ARC file"));
    }
    // This process's own standard output, whatever it is (a file opened to append to, a pipe): written
    // through the handle it has, never opened again (xt15c F1: `-o /dev/stdout >> all.cdxj` replaced the file).
    if matches!(
        out.to_str(),
        Some("/dev/stdout" | "/dev/fd/1" | "/proc/self/fd/1")
    ) {
        return Ok(IndexOut::Stdout);
    }
    let is_link = match std::fs::symlink_metadata(out) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(IndexOut::Replace(out.to_path_buf()));
        }
        Err(e) => return Err(e).with_context(|| format!("-o {}", out.display())),
        Ok(m) => m.file_type().is_symlink(),
    };
    let meta = std::fs::metadata(out).with_context(|| {
        format!(
            "-o {}: a link to a file that cannot be reached",
            out.display()
        )
    })?;
    if meta.is_dir() {
        return Err(refuse("a folder"));
    }
    if !meta.is_file() {
        // A FIFO, a device, a descriptor's link (`/dev/fd/63`): opened as named.
        return Ok(IndexOut::Through(out.to_path_buf()));
    }
    let target = match is_link {
        true => std::fs::canonicalize(out).with_context(|| format!("-o {}", out.display()))?,
        false => out.to_path_buf(),
    };
    if trawl_warc::is_archive_name(&target) {
        return Err(refuse(&format!(
            "a link to {}, a WARC or ARC file",
            target.display()
        )));
    }
    let same = |a: &Path| {
        std::fs::canonicalize(a).is_ok_and(|a| Some(a) == std::fs::canonicalize(&target).ok())
    };
    if inputs.iter().any(|input| same(input)) {
        return Err(refuse("one of the files to index"));
    }
    let mut head = [0u8; 11];
    let read = std::fs::File::open(&target)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .unwrap_or(0);
    let head = &head[..read];
    if head.starts_with(&[0x1f, 0x8b])
        || head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd])
        || head.starts_with(&[0x5d, 0x2a, 0x4d, 0x18])
        || head.starts_with(b"WARC/")
        || head.starts_with(b"filedesc://")
    {
        return Err(refuse(
            "a file holding an archive or compressed data, not an index",
        ));
    }
    Ok(IndexOut::Replace(target))
}

/// Indexes the WARC `warc` (its lines naming it `name`) into `lines`, warning of what the index lacks; 1 when
/// the file is damaged (the index lacks some of its captures), else 0.
fn index_warc(
    warc: &Path,
    name: &str,
    lines: &mut trawl_warc::LineSorter,
) -> anyhow::Result<usize> {
    let mut damaged = 0;
    let indexed = trawl_warc::index_records(warc, name);
    warn_unindexed(warc, &indexed.unindexed);
    for s in &indexed.swallowing {
        say!(
            "WARN {} at offset {}: the ARC record's Archive-length takes in whole later records \
             ({} bytes into its content begins a header line): they have no index line of their \
             own (`trawl warc verify` fails the record)",
            warc.display(),
            s.offset,
            s.at
        );
    }
    if let Some((offset, url, header)) = &indexed.not_filedesc {
        damaged = 1;
        let line = if *header {
            "its content begins as that header's (a version block): it is the header, its URL damaged, and has \
             no index line"
        } else {
            "it has its index line"
        };
        say!(
            "WARN {} at offset {offset}: the first record of an ARC file is not its filedesc:// header but \
             {url:?}: {line} (`trawl warc verify` fails the file)",
            warc.display()
        );
    }
    for (offset, framed) in &indexed.framed {
        let line = match framed.ending_only() {
            true => "its index line is for the record as its length says",
            false => "its index line is for the record as its member frames it",
        };
        say!(
            "WARN {} at offset {offset}: {framed}: {line} (`trawl warc verify` fails the record; `trawl warc \
             recompress` writes it {})",
            warc.display(),
            framed.mended()
        );
    }
    if let Some(offset) = indexed.cut_short {
        say!(
            "WARN {} at offset {offset}: the file ends before the ARC record's Archive-length (cut short): \
             its index line is for the part the file holds (`trawl warc verify` fails the record)",
            warc.display()
        );
    }
    if !indexed.swallowing.is_empty() && indexed.stopped.is_none() {
        damaged = 1;
    }
    // Said, as verify says it (xt21b F7: a file concatenated with itself gave each capture twice, unsaid).
    if let Some((offset, earlier)) = indexed.repeated_id {
        say!(
            "WARN {} at offset {offset}: the record has the WARC-Record-ID of the record at offset {earlier} (a \
             file concatenated with itself, or records written twice): each copy has its index line \
             (`trawl warc verify {}` says whether it is damage and how to cut the copy off)",
            warc.display(),
            warc.display()
        );
    }
    // As `ls` and `verify` fail it (xt21b F3: an archive cut to nothing left a collection's index silently).
    if indexed.records == 0 && indexed.stopped.is_none() {
        damaged = 1;
        say!(
            "WARN {}: holds no record (an empty file, or not an archive): the index has nothing of it",
            warc.display()
        );
    }
    for e in &indexed.shared {
        damaged = 1;
        say!(
            "WARN {e}; its records after the first have no index line (the file's other records have theirs)"
        );
    }
    for p in &indexed.passed {
        damaged = 1;
        say!(
            "WARN {p}: the records in the damage have no index line, those after it have theirs (`trawl warc \
             verify {}` names the first problem)",
            warc.display()
        );
    }
    if let Some(e) = &indexed.stopped {
        damaged = 1;
        // The record before the damage of a plain ARC may be what is wrong: its length.
        let unsure = indexed.unsure.map_or(String::new(), |o| {
            format!(
                ", nor for the record at offset {o} just before it, whose Archive-length may be \
                 what is wrong"
            )
        });
        say!(
            "WARN {e}; the index holds the file's {} before it, none from there on{unsure} \
             (`trawl warc verify {}` names the first problem)",
            count(indexed.lines.len(), "line"),
            warc.display()
        );
        if let Some(other) = indexed.unread_other {
            say!(
                "WARN {}: {}",
                warc.display(),
                trawl_warc::unread_other_hint(warc, other)
            );
        }
    }
    for line in indexed.lines {
        lines.push(line)?;
    }
    Ok(damaged)
}

/// The first line of the index `cdxj` that does not name the WARC `name` in its `filename` (blank lines
/// aside), in words: an index left from another file (a WARC renamed or recompressed, its old index kept).
fn foreign_line(cdxj: &Path, name: &str) -> anyhow::Result<Option<String>> {
    let text = std::fs::File::open(cdxj)
        .map(std::io::BufReader::new)
        .with_context(|| format!("cannot read {}", cdxj.display()))?;
    for (n, line) in text.split(b'\n').enumerate() {
        let line = line.with_context(|| format!("cannot read {}", cdxj.display()))?;
        let line = String::from_utf8_lossy(&line);
        if line.trim().is_empty() {
            continue;
        }
        match trawl_warc::line_filename(&line) {
            Some(f) if f == name => {}
            Some(f) => return Ok(Some(format!("line {} names the file {f}", n + 1))),
            None => {
                return Ok(Some(format!(
                    "line {} is not a CDXJ line naming its file",
                    n + 1
                )));
            }
        }
    }
    Ok(None)
}

/// `1 line`, `2 lines`.
fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// Tells the operator which records of `warc` an index leaves out: the first few by offset, then a count
/// (a file of thousands of headless records should not flood the terminal).
fn warn_unindexed(warc: &Path, unindexed: &[trawl_warc::Unindexed]) {
    const NAMED: usize = 5;
    for u in unindexed.iter().take(NAMED) {
        say!(
            "WARN {} at offset {}: a {} record without {} has no index line (replay cannot find it); \
             `trawl warc verify` checks the whole file",
            warc.display(),
            u.offset,
            u.warc_type,
            u.missing
        );
    }
    if unindexed.len() > NAMED {
        say!(
            "WARN {}: {} more records without WARC-Target-URI or WARC-Date have no index line",
            warc.display(),
            unindexed.len() - NAMED
        );
    }
}

/// `trawl wacz JOB -o FILE`: the job as one WACZ package.
pub(crate) fn wacz(job: &Path, output: &Path) -> anyhow::Result<ExitCode> {
    if output.exists() {
        anyhow::bail!(
            "{} exists already; remove it or choose another -o",
            output.display()
        );
    }
    let folder = output.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(folder) = folder.filter(|f| !f.is_dir()) {
        anyhow::bail!(
            "{}: the folder {} does not exist; create it or choose another -o",
            output.display(),
            folder.display()
        );
    }
    let started = std::time::Instant::now();
    // WARC files still open are not packed: said when closed ones are (with none, packing fails, saying why).
    let warcs = job.join("warcs");
    if !trawl_warc::warc_files(&warcs)
        .unwrap_or_default()
        .is_empty()
        && let Some(warning) = trawl_engine::job::open_warcs_left_out(&warcs)
    {
        say!("WARN {warning}");
    }
    let summary = trawl_engine::package::write_wacz(job, output)?;
    out!(
        "{}: {} WARC files, {} captures, {} pages ({:.1} s)",
        output.display(),
        summary.warcs,
        summary.captures,
        summary.pages,
        started.elapsed().as_secs_f64()
    );
    if let Some(warning) = trawl_engine::package::revisits_outside_warning(output, &summary) {
        say!("WARN {warning}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `trawl warc recompress IN OUT`.
pub(crate) fn recompress(input: &Path, output: &Path) -> anyhow::Result<ExitCode> {
    rewrite(input, output, trawl_warc::recompress_salvaging)
}

/// `trawl warc convert IN OUT`: an ARC or WARC 1.0 file as WARC 1.1.
pub(crate) fn convert(input: &Path, output: &Path) -> anyhow::Result<ExitCode> {
    rewrite(input, output, trawl_warc::convert)
}

/// Writes `output` from `input` with `how` (recompress or convert) once the output's name is checked, and
/// prints the sizes.
fn rewrite(
    input: &Path,
    output: &Path,
    how: fn(&Path, &Path) -> Result<trawl_warc::Rewritten, trawl_warc::Error>,
) -> anyhow::Result<ExitCode> {
    if output.exists() {
        anyhow::bail!(
            "{} exists already; remove it or choose another name",
            output.display()
        );
    }
    let name = output.to_string_lossy();
    if !(name.ends_with(".warc.gz") || name.ends_with(".warc.zst") || name.ends_with(".warc")) {
        anyhow::bail!(
            "{}: name the output .warc.gz, .warc.zst or .warc, which says its compression",
            output.display()
        );
    }
    let folder = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !folder.is_dir() {
        anyhow::bail!(
            "{}: the folder {} does not exist; make it first, or write the output elsewhere",
            output.display(),
            folder.display()
        );
    }
    // One index per name, whatever the compression (`X.warc.gz` and `X.warc.zst` share `X.cdxj`): an output
    // beside an archive of the same name would overwrite that archive's index.
    let index = trawl_warc::index_path(output);
    if let Some(other) = trawl_warc::sharing_index(output).first() {
        anyhow::bail!(
            "{}: its index would be {}, the index of {} beside it (one index per name, whatever the \
             compression): give the output another name, or write it into another folder",
            output.display(),
            index.display(),
            other.display()
        );
    }
    // An index of that name with no archive beside it (a collection's index, one kept from a deleted WARC)
    // is not the tool's to replace (xt15a F14).
    if index.exists() {
        anyhow::bail!(
            "{}: its index would be {}, which exists already; remove it, or give the output another name",
            output.display(),
            index.display()
        );
    }
    let before = std::fs::metadata(input)
        .with_context(|| format!("{}: cannot read it", input.display()))?
        .len();
    let started = std::time::Instant::now();
    let trawl_warc::Rewritten {
        records,
        passed,
        stopped,
        unread_other,
        copied,
        repaired,
    } = how(input, output)?;
    if records == 0 {
        let _ = std::fs::remove_file(output);
        let _ = std::fs::remove_file(trawl_warc::index_path(output));
        anyhow::bail!(
            "{} holds no records: there is nothing to write (is it the file you meant?)",
            input.display()
        );
    }
    let after = std::fs::metadata(output)
        .with_context(|| format!("{}: cannot read what was written", output.display()))?
        .len();
    out!(
        "{}: {records} records, {before} bytes -> {after} bytes ({:+.1}%) in {:.2} s",
        output.display(),
        (after as f64 / before.max(1) as f64 - 1.0) * 100.0,
        started.elapsed().as_secs_f64()
    );
    // Each record verify fails that was written anyway, and how: the archivist may want to look at them.
    for r in &repaired {
        say!("WARN {}: {r}", input.display());
    }
    // The records after damage are written too, from the first whole one (xt27b F4).
    for p in &passed {
        say!(
            "WARN {p}: {} lacks the records in the damage, and holds those after it (`trawl warc verify {}` \
             names the problem)",
            output.display(),
            input.display()
        );
    }
    if let Some(e) = &stopped {
        let (what, before) = if passed.is_empty() {
            (count(records, "record"), "before it")
        } else {
            (format!("{records} records"), "it could read before it")
        };
        say!(
            "WARN {e}; the file cannot be read from there on (cut short, or damaged): {} holds the {what} \
             {before}, none after (`trawl warc verify {}` names the problem)",
            output.display(),
            input.display()
        );
    }
    if let Some(other) = unread_other {
        say!(
            "WARN {}: {}",
            input.display(),
            trawl_warc::unread_other_hint(input, other)
        );
    }
    // Said, as index says it (xt28b F3: the copy was carried into the output with exit status 0).
    if let Some((offset, earlier)) = copied {
        say!(
            "WARN {} at offset {offset}: the record repeats the record at offset {earlier}, its WARC-Record-ID and \
             header byte for byte (a file concatenated with itself, or records written twice): {} holds both \
             copies (`trawl warc verify {}` says whether it is damage and how to cut the copy off)",
            input.display(),
            output.display(),
            input.display()
        );
    }
    if stopped.is_some() || !passed.is_empty() || copied.is_some() {
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
