//! MS MARCO's layouts: `qrels.dev.tsv` (TREC qrels with tabs) and runs
//! `qid<TAB>pid<TAB>rank`, read without a flag when named `.tsv`, or with
//! `Format::Msmarco` (`--run-format msmarco`). The command line reading
//! them is `rankeval-cli`'s `cli::msmarco`.

use std::path::Path;

use rankeval::{
    Format, Input, Options, Qrels, ReadOptions, Run, evaluate, parse_metric, read_qrels, read_run,
};

/// MS MARCO's passage qrels, as `qrels.dev.tsv` has them.
const QRELS: &str = "1048585\t0\t7187158\t1\n2\t0\t1\t1\n2\t0\t130\t1\n524332\t0\t1101090\t1\n";
/// A run as `run.dev.small.tsv` has it: ranks, no scores, no header.
const RUN: &str = "1048585\t7187155\t1\n1048585\t7187158\t2\n1048585\t7187157\t3\n\
                   2\t130\t2\n2\t1\t3\n2\t99\t1\n524332\t5\t1\n";
/// The same run as TREC, with scores that order it the same way.
const TREC_RUN: &str = "1048585 Q0 7187155 1 3 t\n1048585 Q0 7187158 2 2 t\n\
                        1048585 Q0 7187157 3 1 t\n2 Q0 130 2 2 t\n2 Q0 1 3 1 t\n\
                        2 Q0 99 1 3 t\n524332 Q0 5 1 1 t\n";

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn docs(run: &Run, query: &str) -> Vec<String> {
    run.list(query)
        .unwrap()
        .docs()
        .map(|d| String::from_utf8_lossy(d).into_owned())
        .collect()
}

fn values(qrels: &Qrels, run: &Run) -> Vec<u64> {
    let metrics: Vec<_> = ["mrr@10", "recall@1000", "ndcg@10", "map"]
        .into_iter()
        .map(|m| parse_metric(m).unwrap())
        .collect();
    let evaluation = evaluate(qrels, run, &metrics, &Options::default());
    (0..evaluation.queries().len())
        .flat_map(|q| (0..metrics.len()).map(move |m| (q, m)))
        .map(|(q, m)| evaluation.value(q, m).to_bits())
        .collect()
}

#[test]
fn qrels_dev_tsv_and_a_rank_run_are_read_without_a_flag() {
    let dir = tempfile::tempdir().unwrap();
    let qrels_path = write(dir.path(), "qrels.dev.tsv", QRELS);
    let run_path = write(dir.path(), "run.dev.small.tsv", RUN);
    let qrels_input = Input::file(&qrels_path);
    let run_input = Input::file(&run_path);
    assert_eq!(qrels_input.format(), Format::Trec);
    assert_eq!(run_input.format(), Format::Msmarco);
    let qrels = read_qrels(&qrels_input).unwrap();
    assert_eq!(qrels.num_queries(), 3);
    let run = read_run(&run_input, ReadOptions::default()).unwrap();
    // Ordered by rank, not by line.
    assert_eq!(docs(&run, "2"), ["99", "130", "1"]);
    assert_eq!(docs(&run, "1048585"), ["7187155", "7187158", "7187157"]);
    let trec = read_run(
        &Input::bytes("run.trec", TREC_RUN, Format::Trec),
        ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(values(&qrels, &run), values(&qrels, &trec));
}

#[test]
fn a_tsv_with_a_header_stays_csv() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "run.tsv", "user\titem\trank\nu1\ti1\t1\n");
    assert_eq!(Input::file(&path).format(), Format::Csv);
    let scored = write(dir.path(), "scored.tsv", "1\t2\t0.5\n");
    assert_eq!(Input::file(&scored).format(), Format::Csv);
}

#[test]
fn msmarco_lines_that_are_wrong_name_the_line() {
    let error = |text: &str| {
        read_run(
            &Input::bytes("run.txt", text, Format::Msmarco),
            ReadOptions::default(),
        )
        .unwrap_err()
        .to_string()
    };
    let four = error("1\t2\t1\n1\t3\t2\t9.5\n");
    assert!(
        four.starts_with("run.txt:2: ") && four.contains("3 fields: query document rank"),
        "{four}"
    );
    let zero = error("1\t2\t0\n");
    assert!(
        zero.starts_with("run.txt:1: ") && zero.contains("`0` is not a rank, an integer from 1"),
        "{zero}"
    );
    let repeated = error("1\t2\t1\n1\t2\t2\n");
    assert!(repeated.contains("appears twice"), "{repeated}");
}
