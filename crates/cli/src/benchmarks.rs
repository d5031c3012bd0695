//! `rankeval benchmarks`: the benchmark card (`rankeval::benchmarks`), one
//! line per benchmark, or one benchmark in full with its sources.

use std::fmt::Write as _;

use rankeval::benchmarks::{Benchmark, CacheFormat, card, irds};
use rankeval::engine::Missing;

/// Arguments of `rankeval benchmarks`.
#[derive(Debug, clap::Args)]
pub(super) struct BenchmarksArgs {
    /// An ir_datasets id (`msmarco-passage/trec-dl-2019`): that benchmark
    /// in full, with its sources; every benchmark, one line each, when
    /// none is given.
    #[arg(value_name = "ID")]
    id: Option<String>,
}

/// The listing `args` ask for; an error naming an id not in the card.
pub(super) fn listing(args: &BenchmarksArgs) -> Result<String, String> {
    match &args.id {
        None => Ok(all()),
        Some(id) => {
            let id = irds::id_of(id).unwrap_or(id);
            card().find(id).map(entry).ok_or_else(|| {
                format!(
                    "`{}` is not in rankeval's benchmark card; `rankeval benchmarks` lists \
                     the ids it knows",
                    rankeval::core::shorten_id(id.as_bytes())
                )
            })
        }
    }
}

/// Every benchmark, one line each: id, measures, conventions.
fn all() -> String {
    let card = card();
    let width = card
        .benchmarks
        .iter()
        .map(|b| b.id.len())
        .max()
        .unwrap_or(0);
    let mut text = String::from(
        "Benchmarks rankeval scores as they are reported (--qrels irds:<id> --official);\n\
         `rankeval benchmarks <id>` shows one with its sources.\n\n",
    );
    for b in &card.benchmarks {
        let measures: Vec<&str> = b.measures.iter().map(|m| m.reported.as_str()).collect();
        let _ = writeln!(
            text,
            "{:width$}  {}  [{}]",
            b.id,
            measures.join(", "),
            conventions(b).join(", ")
        );
    }
    text
}

/// The conventions of `b` in a few words each.
fn conventions(b: &Benchmark) -> Vec<&'static str> {
    let mut said = vec![match b.missing {
        Missing::Zero => "missing queries score 0",
        Missing::Skip => "missing queries skipped",
    }];
    if b.drop_identical_ids {
        said.push("identical ids dropped");
    }
    if !b.parts.is_empty() {
        said.push("mean of its parts");
    }
    said
}

/// One benchmark in full.
fn entry(b: &Benchmark) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "{}: {}", b.id, b.title);
    if !b.also.is_empty() {
        let _ = writeln!(text, "also: {}", b.also.join(", "));
    }
    match &b.qrels {
        Some(qrels) => {
            let _ = writeln!(
                text,
                "qrels: $IR_DATASETS_HOME/{} ({}{}), filled by `{}`",
                qrels.path,
                match qrels.format {
                    CacheFormat::Trec => "TREC",
                    CacheFormat::Msmarco => "MS MARCO TSV",
                    CacheFormat::Beir => "BEIR TSV with a header",
                    CacheFormat::Lotte => "LoTTE JSON Lines",
                },
                qrels
                    .md5
                    .as_ref()
                    .map(|md5| format!(", MD5 {md5}"))
                    .unwrap_or_default(),
                irds::fill_command(&b.id)
            );
        }
        None => {
            let _ = writeln!(text, "the mean of: {}", b.parts.join(", "));
        }
    }
    text.push_str("measures (as reported = rankeval metric):\n");
    for m in &b.measures {
        let _ = writeln!(text, "  {} = {}", m.reported, m.metric);
    }
    let _ = writeln!(text, "conventions: {}", conventions(b).join(", "));
    let _ = writeln!(text, "queries: {}", b.queries);
    let _ = writeln!(text, "grades: {}", b.grades);
    if let Some(dua) = card().dua_of(b) {
        let _ = writeln!(text, "usage terms: {dua}");
    }
    text.push_str("sources:\n");
    for s in &b.sources {
        let _ = writeln!(text, "  - {s}");
    }
    text
}
