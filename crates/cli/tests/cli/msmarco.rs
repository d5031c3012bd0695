//! MS MARCO's layouts through the command line: `qrels.dev.tsv` and a
//! `qid<TAB>pid<TAB>rank` run, by their names or `--run-format msmarco`
//! (the reader itself is tested in `rankeval`'s `msmarco`).

use std::path::Path;

use super::run as rankeval;

/// MS MARCO's passage qrels, as `qrels.dev.tsv` has them.
const QRELS: &str = "1048585\t0\t7187158\t1\n2\t0\t1\t1\n2\t0\t130\t1\n524332\t0\t1101090\t1\n";
/// A run as `run.dev.small.tsv` has it: ranks, no scores, no header.
const RUN: &str = "1048585\t7187155\t1\n1048585\t7187158\t2\n1048585\t7187157\t3\n\
                   2\t130\t2\n2\t1\t3\n2\t99\t1\n524332\t5\t1\n";

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn the_cli_reads_them_with_at_most_one_flag() {
    let dir = tempfile::tempdir().unwrap();
    let qrels = write(dir.path(), "qrels.dev.tsv", QRELS);
    let tsv = write(dir.path(), "run.dev.small.tsv", RUN);
    let txt = write(dir.path(), "run.txt", RUN);
    let q = qrels.to_str().unwrap();
    let by_name = rankeval(&[
        "eval",
        "--qrels",
        q,
        "--run",
        tsv.to_str().unwrap(),
        "-m",
        "mrr@10",
    ]);
    let by_flag = rankeval(&[
        "eval",
        "--qrels",
        q,
        "--run-format",
        "msmarco",
        "--run",
        txt.to_str().unwrap(),
        "-m",
        "mrr@10",
    ]);
    assert_eq!((by_name.0, by_flag.0), (0, 0), "{by_name:?} {by_flag:?}");
    // MRR@10: 1/2 (1048585), 1/2 (2: 130 at rank 2), 0 (524332): 1/3.
    for out in [&by_name.1, &by_flag.1] {
        assert!(out.contains("0.3333"), "{out}");
    }
}
