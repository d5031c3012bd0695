//! `rankeval trec_eval ...`, and the `rankeval` binary run under the name
//! `trec_eval` (a symlink): trec_eval 10's command line and its output,
//! byte for byte, computed by rankeval's metrics. See docs/trec_eval.md.
//!
//! - [`args`]: the command line, as trec_eval's getopt reads it;
//! - [`measures`]: trec_eval's measure names and sets, in its print order,
//!   each mapped to a registered rankeval metric;
//! - [`evaluate`](mod@evaluate): the query set, `-c`, `-M`, `-J`, relstring;
//! - [`output`]: the lines as trec_eval prints them;
//! - [`zscores`]: `-Z`, values as z-scores from a file of means and
//!   deviations.

pub mod args;
pub mod evaluate;
pub mod measures;
pub mod output;
pub mod zscores;

use std::ffi::OsString;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use rankeval_core::{Duplicates, RelevanceLevel, Run, RunBuilder, RunError};

use args::{ArgsError, TrecArgs};
use measures::MeasureError;
use rankeval::read::{Format, Input, ReadError, ReadOptions, read_qrels, read_run};
use zscores::{ZScoreError, ZScores};

/// Why a trec_eval command failed; exit code 2 for every one.
#[derive(Debug, thiserror::Error)]
pub enum TrecEvalError {
    /// The command line.
    #[error(transparent)]
    Args(#[from] ArgsError),
    /// A `-m` measure.
    #[error(transparent)]
    Measure(#[from] MeasureError),
    /// An input file.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The `-Z` file.
    #[error(transparent)]
    ZScores(#[from] ZScoreError),
    /// A flag's value out of range.
    #[error("{0}")]
    Usage(String),
    /// No query has both judgements and results.
    #[error(
        "no queries with both results and relevance info (trec_eval's message: \"No queries with both results and relevance info\")"
    )]
    NoQueries,
    /// stdout could not be written.
    #[error("cannot write to stdout: {0}")]
    Write(std::io::Error),
}

/// Whether a program name (argv\[0\]) asks for trec_eval's command line:
/// its file name is `trec_eval` (with any extension, e.g. `trec_eval.exe`).
pub fn is_trec_eval_name(argv0: &OsString) -> bool {
    Path::new(argv0)
        .file_stem()
        .is_some_and(|stem| stem == "trec_eval")
}

/// Runs trec_eval's command line on `args` (without the program name).
pub fn main_from(args: &[OsString]) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    match run(args, &mut stdout) {
        Ok(()) => ExitCode::SUCCESS,
        Err(TrecEvalError::Write(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(error) => {
            let _ = writeln!(std::io::stderr(), "trec_eval: error: {error}");
            ExitCode::from(2)
        }
    }
}

/// Runs the command, writing the report (or help) to `out` and warnings
/// to stderr.
pub fn run(args: &[OsString], out: &mut dyn Write) -> Result<(), TrecEvalError> {
    let args = args::parse(args)?;
    if args.help {
        return out
            .write_all(help().as_bytes())
            .map_err(TrecEvalError::Write);
    }
    if args.version {
        let text = format!(
            "trec_eval version 10.0 (rankeval {}: trec_eval's command line and output, computed by rankeval)\n",
            env!("CARGO_PKG_VERSION")
        );
        return out.write_all(text.as_bytes()).map_err(TrecEvalError::Write);
    }
    let text = evaluate_files(&args)?;
    out.write_all(text.as_bytes()).map_err(TrecEvalError::Write)
}

/// Reads the two files and renders the report.
fn evaluate_files(args: &TrecArgs) -> Result<String, TrecEvalError> {
    let mut plan = measures::plan(&args.measures)?;
    match args.num_docs {
        Some(n) if n < 0 => {
            return Err(TrecEvalError::Usage(format!(
                "-N must be at least 0, not {n}"
            )));
        }
        // -N only matters to utility's 4th weight.
        Some(n) => set_collection(&mut plan, n as u64),
        None => {}
    }
    // trec_eval's -l is an integer (grades are decimal in rankeval).
    let level = match args.level {
        None => RelevanceLevel::DEFAULT,
        Some(l) => i32::try_from(l)
            .ok()
            .filter(|&l| l >= 1)
            .and_then(RelevanceLevel::new)
            .ok_or_else(|| TrecEvalError::Usage(format!("-l must be at least 1, not {l}")))?,
    };
    let max_docs = match args.max_docs {
        None => None,
        Some(m) if m > 0 => Some(m as usize),
        Some(m) => {
            return Err(TrecEvalError::Usage(format!(
                "-M must be at least 1, not {m}"
            )));
        }
    };
    let qrels_input = Input::file(&args.files[0]).with_format(Format::Trec);
    let run_input = Input::file(&args.files[1]).with_format(Format::Trec);
    let qrels = read_qrels(&qrels_input)?;
    let mut run = read_run(&run_input, ReadOptions::default())?;
    if args.f32_scores {
        run = scores_as_f32(&run)?;
    }
    let zscores = match &args.zscore_file {
        Some(path) => Some(ZScores::read(Path::new(path))?),
        None => None,
    };
    let settings = evaluate::Settings {
        level,
        complete: args.complete,
        max_docs,
        judged_only: args.judged_only,
    };
    let queries = evaluate::evaluate(&qrels, &run, &plan, settings);
    if !args.complete {
        let left_out = (0..qrels.num_queries() as u32)
            .filter(|&q| run.query_index(qrels.query_bytes(q)).is_none())
            .count();
        if left_out > 0 {
            // trec_eval 10 stops there ("result qid ... not found in qrels",
            // exit 4); trec_eval 9 and rankeval leave the query out.
            let _ = writeln!(
                std::io::stderr(),
                "trec_eval: warning: {left_out} qrels {} no results in the run and {} left out of the averages (trec_eval 10 stops here; -c scores {} 0)",
                if left_out == 1 {
                    "query has"
                } else {
                    "queries have"
                },
                if left_out == 1 { "is" } else { "are" },
                if left_out == 1 { "it" } else { "them" },
            );
        }
    }
    if queries.is_empty() {
        return Err(TrecEvalError::NoQueries);
    }
    let run_id = run_id(&args.files[1]);
    Ok(output::render(
        &plan,
        &queries,
        &run_id,
        output::Print {
            per_query: args.per_query,
            summary: !args.no_summary,
            complete_num_rel: args.complete.then(|| positive_judgements(&qrels)),
            zscores: zscores.as_ref(),
        },
    ))
}

/// The run with every score rounded to a 32-bit float and ranked again,
/// as trec_eval 9 and pytrec_eval read scores (`--f32`): scores that differ
/// only past float precision become ties, broken by document id.
fn scores_as_f32(run: &Run) -> Result<Run, TrecEvalError> {
    let mut builder = RunBuilder::new();
    let failed = |e: RunError| TrecEvalError::Usage(format!("--f32: {e}"));
    for q in 0..run.num_queries() as u32 {
        let list = run.list_at(q);
        let query = run.query_bytes(q);
        for i in 0..list.len() {
            let score = list.score(i).map_or(0.0, |s| f64::from(s as f32));
            builder
                .push_scored(query, list.doc(i), score)
                .map_err(failed)?;
        }
    }
    builder.finish(Duplicates::Error).map_err(failed)
}

/// Judgements with a grade above 0, over every query of the qrels.
fn positive_judgements(qrels: &rankeval_core::Qrels) -> u64 {
    (0..qrels.num_queries() as u32)
        .map(|q| qrels.ideal_grades(q).iter().filter(|&&g| g > 0.0).count() as u64)
        .sum()
}

/// Gives every utility metric of the plan the collection size `-N`.
fn set_collection(plan: &mut measures::Plan, n: u64) {
    for metric in &mut plan.metrics {
        let Ok(mut json) = serde_json::to_value(&**metric) else {
            continue;
        };
        if json["type"] == "utility" {
            json["collection"] = n.into();
            if let Ok(m) = serde_json::from_value(json) {
                *metric = m;
            }
        }
    }
}

/// The run's tag as trec_eval prints it on its `runid` line: the 6th field
/// of the results file's last line (blank lines and `#` comments aside).
/// Only the file's tail is read, unless its lines are longer.
fn run_id(path: &str) -> String {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut file) = std::fs::File::open(path) else {
        return String::new();
    };
    let len = file.metadata().map_or(0, |m| m.len());
    let mut tail_size = 64 * 1024;
    loop {
        let start = len.saturating_sub(tail_size);
        let mut tail = Vec::new();
        if file.seek(SeekFrom::Start(start)).is_err() || file.read_to_end(&mut tail).is_err() {
            return String::new();
        }
        let text = String::from_utf8_lossy(&tail);
        let mut lines: Vec<&str> = text.lines().collect();
        if start > 0 && !lines.is_empty() {
            lines.remove(0); // maybe cut in the middle
        }
        let last = lines.iter().rev().find(|l| {
            let t = l.trim_start();
            !t.is_empty() && !t.starts_with('#')
        });
        if let Some(line) = last {
            return line
                .split_ascii_whitespace()
                .nth(5)
                .unwrap_or_default()
                .to_owned();
        }
        if start == 0 {
            return String::new();
        }
        tail_size *= 8;
    }
}

/// `-h`: what this trec_eval does.
pub fn help() -> String {
    let mut text = String::from(
        "trec_eval [-h] [-v] [-q] [-n] [-c] [-J] [-l <num>] [-M <num>] [-N <num>]\n\
        \x20         [-Z zscore_file] [-m measure[.params]] [--f32] qrels_file results_file\n\
        \n\
        rankeval's trec_eval: trec_eval 10's command line and output, byte for\n\
        byte, computed by rankeval's metrics (in parallel). See docs/trec_eval.md.\n\
        \n\
        \x20 -q          print every query's values as well as the summary (all)\n\
        \x20 -n          no summary: only the per-query values (with -q)\n\
        \x20 -c          average over every query of the qrels; a query the run\n\
        \x20             lacks is scored on an empty ranking\n\
        \x20 -l <num>    relevance level: grades >= num are relevant (default 1)\n\
        \x20 -M <num>    keep only the top num documents of each query\n\
        \x20 -J          score only judged documents (drop the rest first)\n\
        \x20 -N <num>    documents in the collection (utility's 4th weight)\n\
        \x20 -Z <file>   print z-scores: (value - mean) / stddev, with the mean and\n\
        \x20             stddev of each query and measure from the file's lines\n\
        \x20             `qid measure mean stddev`; -1000000 where it has none\n\
        \x20 -m <m>      measure, measure.params or set; repeatable\n\
        \x20             (default: official). trec_eval names and parameters\n\
        \x20             (P.5,10  ndcg_cut.10  Rprec_mult.0.2  utility.2,-1,0,0\n\
        \x20             iprec_at_recall..10,.20  rbp.p=0.95), or a rankeval\n\
        \x20             metric where no trec_eval measure has the name\n\
        \x20             (e.g. -m ndcg@10, -m \"ap(norm=truncated)@10\")\n\
        \x20 --f32       read scores as 32-bit floats (trec_eval 9, pytrec_eval)\n\
        \x20 -h          this help;  -v  the version\n\
        \n\
        Accepted as trec_eval's defaults: -R qrels, -T trec_results, -D 0; -o does\n\
        nothing (as in trec_eval 10). Refused (exit 2): other -R and -T formats,\n\
        -D above 0 (debug output). Long names as trec_eval's (--Zscore, --nosummary).\n\
        \n\
        Measure sets:\n",
    );
    for (set, _) in [("official", ()), ("set", ()), ("all_trec", ())] {
        text.push_str(&format!("  {set}\n"));
    }
    text.push_str("Measures:\n ");
    let mut column = 1;
    for name in measures::known_names().filter(|n| !matches!(*n, "official" | "set" | "all_trec")) {
        if column + name.len() + 1 > 78 {
            text.push_str("\n ");
            column = 1;
        }
        text.push(' ');
        text.push_str(name);
        column += name.len() + 1;
    }
    text.push('\n');
    text
}
