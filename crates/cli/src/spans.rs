//! `rankeval spans`: retrieval for RAG judged on text spans: span qrels,
//! runs of chunks, every metric at chunk level under an overlap rule, and
//! precision, recall and IoU of the retrieved text at character level
//! (docs/judgements.md).

use std::io::Write as _;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use rankeval::RelevanceLevel;
use rankeval::engine::{Missing, Options};
use rankeval::spans::{
    CharText, ChunkRun, Overlap, SpansError, SpansPlan, SpansReport, read_chunk_run,
    read_span_qrels, spans_report,
};
use rankeval_report::RenderOptions;
use rankeval_report::spans::{SpansFormat, render};

use super::{CliError, judge_inputs, output};

/// `rankeval spans`'s arguments.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  \
    rankeval spans --qrels examples/spans/spans.tsv --run fixed=examples/spans/fixed.tsv \\\n      \
    --run sentences=examples/spans/sentences.tsv -m \"ap(norm=hits)@3\" -m hit_rate@3 --overlap \"coverage>=0.5\"\n\n\
    Files: a header naming query, doc, start, end, grade (qrels) or score (runs), tab- or\n\
    comma-separated (quoted as in CSV), or JSON Lines objects with those keys; plain or gzip.\n\
    Offsets are characters, [start, end), at most 2^53.")]
pub struct SpansArgs {
    /// The span qrels: `query, doc, start, end, grade` rows.
    #[arg(long, value_name = "FILE")]
    qrels: PathBuf,
    /// A run of chunks (`query, doc, start, end, score` rows), `NAME=FILE`
    /// or `FILE` (named by its stem); repeat for several.
    #[arg(long = "run", value_name = "[NAME=]FILE", required = true)]
    runs: Vec<String>,
    /// A chunk-level metric in the short syntax; repeat for several.
    #[arg(short = 'm', long = "metric", value_name = "METRIC")]
    metrics: Vec<String>,
    /// When a chunk matches a span: `any` (a character in common),
    /// `iou>=T` (intersection over union) or `coverage>=T` (the share of
    /// the span the chunk covers).
    #[arg(long, default_value = "any", value_name = "RULE")]
    overlap: String,
    /// Character level over the top K chunks of each query (default: all).
    #[arg(long, value_name = "K")]
    char_k: Option<usize>,
    /// How character-level precision and IoU measure the retrieved text:
    /// `union` (text two chunks share counts once) or `chunks` (each
    /// chunk's length, overlaps counted again, as Chroma's
    /// chunking_evaluation). The same when chunks do not overlap.
    #[arg(long, value_enum, default_value_t = CharTextArg::Union)]
    char_text: CharTextArg,
    /// The relevance level: spans of this grade or more are relevant.
    #[arg(long, value_name = "GRADE")]
    rel: Option<f64>,
    /// Evaluate a run that never ran on the span qrels (it shares no query
    /// with them, or has no chunk for any of theirs) instead of refusing
    /// it: it then scores 0, as `eval --allow-empty-run`.
    #[arg(long)]
    allow_empty_run: bool,
    /// Also print every query's values.
    #[arg(long)]
    per_query: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SpansFormatArg::Table)]
    format: SpansFormatArg,
    /// Write the report to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// The report's format.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum SpansFormatArg {
    /// Aligned text.
    Table,
    /// One JSON document.
    Json,
}

/// How the retrieved text is measured at character level.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum CharTextArg {
    /// The union of the chunks: shared text counted once.
    Union,
    /// The sum of the chunks' lengths (Chroma's chunking_evaluation).
    Chunks,
}

/// Runs `rankeval spans`.
pub(crate) fn run(args: SpansArgs) -> Result<(), CliError> {
    let usage = CliError::Usage;
    let overlap: Overlap = args
        .overlap
        .parse()
        .map_err(|e| usage(format!("--overlap {e}")))?;
    if args.char_k == Some(0) {
        return Err(usage("--char-k 0: at least 1 chunk".to_owned()));
    }
    let level = match args.rel {
        None => RelevanceLevel::DEFAULT,
        Some(rel) => RelevanceLevel::new(rel).ok_or_else(|| {
            usage(format!(
                "--rel {rel}: the relevance level must be a positive grade"
            ))
        })?,
    };
    let metrics = judge_inputs::metrics(&args.metrics)?;
    let options = Options {
        missing: Missing::Zero,
        level,
        allow_empty_run: args.allow_empty_run,
        ..Options::default()
    };
    let read = |e: SpansError| match e {
        SpansError::NeverRan(never) => CliError::NeverRan(never),
        other => usage(other.to_string()),
    };
    judge_inputs::refuse_output_over(
        args.output.as_deref(),
        &[("the span qrels", args.qrels.as_path())],
        &args.runs,
    )?;
    let spans = read_span_qrels(&args.qrels).map_err(read)?;
    let runs: Vec<(String, ChunkRun)> = crate::run_names::named_runs(&args.runs)?
        .into_iter()
        .map(|(name, path)| Ok((name, read_chunk_run(&path).map_err(read)?)))
        .collect::<Result<_, CliError>>()?;
    let report = spans_report(
        &spans,
        &runs,
        SpansPlan {
            metrics: &metrics,
            options: &options,
            overlap,
            char_k: args.char_k,
            char_text: match args.char_text {
                CharTextArg::Union => CharText::Union,
                CharTextArg::Chunks => CharText::Chunks,
            },
        },
    )
    .map_err(read)?;
    warn(&report, level.get());
    let format = match args.format {
        SpansFormatArg::Table => SpansFormat::Table,
        SpansFormatArg::Json => SpansFormat::Json,
    };
    let options = RenderOptions {
        per_query: args.per_query,
    };
    output::write(&render(&report, format, options), args.output.as_deref())
}

/// Writes to stderr what the evaluation left out or scored 0 (as `eval`
/// does), and that the character level has nothing to average when no
/// span is relevant at `level`.
fn warn(report: &SpansReport, level: f64) {
    let mut stderr = std::io::stderr().lock();
    for run in &report.runs {
        for warning in &run.warnings {
            let _ = writeln!(stderr, "warning: run `{}`: {warning}", run.name);
        }
    }
    if report.runs.iter().any(|run| run.chars.is_none()) {
        let _ = writeln!(
            stderr,
            "warning: no query of the span qrels has relevant text (a span of grade >= {level}): \
             the character-level values are not defined (`-`)"
        );
    }
}
