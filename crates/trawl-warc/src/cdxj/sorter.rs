//! Index lines of any number in byte order: held in memory up to a budget, then sorted runs spilled to
//! unnamed temporary files and merged as they are written out. An index of millions of captures (a WACZ's,
//! `trawl warc index` of a whole job) then needs the budget's memory, not the index's size.

use std::{
    cmp::Reverse,
    collections::BinaryHeap,
    fs::File,
    io::{self, BufRead, BufReader, BufWriter, Seek, SeekFrom, Write},
    path::{Path, PathBuf},
};

use crate::Error;

/// Bytes of lines held before a run is spilled: enough that a job of a few hundred thousand captures never
/// touches the disk.
pub const DEFAULT_BUDGET: usize = 64 << 20;

/// Lines collected in any order, given back in byte order (as [`super::sort`] orders them).
pub struct LineSorter {
    lines: Vec<String>,
    held: usize,
    budget: usize,
    runs: Vec<File>,
    spill_dir: PathBuf,
    count: u64,
}

impl LineSorter {
    /// A sorter spilling, once it holds [`DEFAULT_BUDGET`], into unnamed files in `spill_dir` (removed by the
    /// system when closed, a crash included).
    pub fn new(spill_dir: &Path) -> LineSorter {
        LineSorter::with_budget(spill_dir, DEFAULT_BUDGET)
    }

    /// A sorter spilling once its lines take `budget` bytes.
    pub fn with_budget(spill_dir: &Path, budget: usize) -> LineSorter {
        LineSorter {
            lines: Vec::new(),
            held: 0,
            budget,
            runs: Vec::new(),
            spill_dir: spill_dir.to_path_buf(),
            count: 0,
        }
    }

    /// Lines pushed so far.
    pub fn len(&self) -> u64 {
        self.count
    }

    /// Whether no line was pushed.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Adds one line (without its line end; index lines hold none).
    pub fn push(&mut self, line: String) -> Result<(), Error> {
        self.held += line.len() + std::mem::size_of::<String>();
        self.lines.push(line);
        self.count += 1;
        if self.held >= self.budget {
            self.spill()?;
        }
        Ok(())
    }

    /// Sorts the lines held and writes them to a new run.
    fn spill(&mut self) -> Result<(), Error> {
        let io = |source| Error::Io {
            path: self.spill_dir.clone(),
            source,
        };
        super::sort(&mut self.lines);
        let file = tempfile::tempfile_in(&self.spill_dir).map_err(io)?;
        let mut run = BufWriter::with_capacity(1 << 16, file);
        for line in self.lines.drain(..) {
            run.write_all(line.as_bytes()).map_err(io)?;
            run.write_all(b"\n").map_err(io)?;
        }
        let mut file = run.into_inner().map_err(|e| io(e.into_error()))?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        self.runs.push(file);
        self.lines = Vec::new();
        self.held = 0;
        Ok(())
    }

    /// Writes every line, each ended by `\n`, in byte order to `out` (named `out_path` in errors); returns
    /// how many.
    pub fn write_to(mut self, out: &mut impl Write, out_path: &Path) -> Result<u64, Error> {
        let written = |source| Error::Io {
            path: out_path.to_path_buf(),
            source,
        };
        if self.runs.is_empty() {
            super::sort(&mut self.lines);
            for line in &self.lines {
                out.write_all(line.as_bytes()).map_err(written)?;
                out.write_all(b"\n").map_err(written)?;
            }
            return Ok(self.count);
        }
        if !self.lines.is_empty() {
            self.spill()?;
        }
        let read = |source| Error::Io {
            path: self.spill_dir.clone(),
            source,
        };
        let mut runs: Vec<BufReader<File>> = self
            .runs
            .drain(..)
            .map(|f| BufReader::with_capacity(1 << 16, f))
            .collect();
        // The smallest line of each run, with the run it came from; equal lines come out in run order.
        let mut heads = BinaryHeap::with_capacity(runs.len());
        for (i, run) in runs.iter_mut().enumerate() {
            let mut line = Vec::new();
            if read_line(run, &mut line).map_err(read)? {
                heads.push(Reverse((line, i)));
            }
        }
        while let Some(Reverse((mut line, i))) = heads.pop() {
            out.write_all(&line).map_err(written)?;
            out.write_all(b"\n").map_err(written)?;
            // The line's buffer takes the run's next line.
            if read_line(&mut runs[i], &mut line).map_err(read)? {
                heads.push(Reverse((line, i)));
            }
        }
        Ok(self.count)
    }
}

/// Reads the next line of a run into `line` (emptied first) without its `\n`, which would order `a\t` after
/// `a`; false at the run's end.
fn read_line(run: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<bool> {
    line.clear();
    if run.read_until(b'\n', line)? == 0 {
        return Ok(false);
    }
    if line.last() == Some(&b'\n') {
        line.pop();
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sorted_by(budget: usize, lines: &[String]) -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let mut sorter = LineSorter::with_budget(dir.path(), budget);
        for l in lines {
            sorter.push(l.clone()).unwrap();
        }
        let mut out = Vec::new();
        assert_eq!(
            sorter.write_to(&mut out, Path::new("out")).unwrap(),
            lines.len() as u64
        );
        out
    }

    fn expected(lines: &[String]) -> Vec<u8> {
        let mut lines = lines.to_vec();
        super::super::sort(&mut lines);
        lines
            .iter()
            .flat_map(|l| format!("{l}\n").into_bytes())
            .collect()
    }

    #[test]
    fn spilled_runs_merge_in_byte_order() {
        let lines: Vec<String> = (0..1000)
            .map(|i| format!("com,example)/{} 2020 {{\"n\": {i}}}", (i * 7919) % 1000))
            .collect();
        let out = sorted_by(2_000, &lines);
        assert_eq!(out, expected(&lines));
        // Byte order, not the locale's: upper case before lower, `)` before letters.
        let out = sorted_by(1, &["b".into(), "B".into(), "a)".into(), "a".into()]);
        assert_eq!(out, b"B\na\na)\nb\n");
    }

    proptest! {
        /// Whatever the budget, the sorter gives what sorting in memory gives.
        #[test]
        fn any_budget_gives_the_in_memory_order(
            lines in proptest::collection::vec("[\t -~\u{e9}\u{4e2d}]{0,12}", 0..200),
            budget in 1usize..4_000,
        ) {
            prop_assert_eq!(sorted_by(budget, &lines), expected(&lines));
        }
    }
}
