//! Decimal grades through the binary (every reader, levels, the warning for
//! a `--rel` no metric reads), and `--duplicates first` keeping the
//! best-ranked occurrence on both evaluation paths.

use super::{run_in, scratch, transcript};

/// Half-star ratings, as TREC qrels.
const HALF_STARS: &str = "u1 0 a 4.5\nu1 0 b 3.5\nu1 0 c 0.5\nu1 0 d 5.0\nu2 0 e 2.5\nu2 0 f 3\n";
/// A run over them.
const HALF_STARS_RUN: &str = "u1 Q0 a 1 0.9 t\nu1 Q0 c 2 0.8 t\nu1 Q0 b 3 0.7 t\n\
                              u2 Q0 f 1 0.9 t\nu2 Q0 e 2 0.8 t\n";

/// Runs `rankeval <args>` in a directory holding `files` and snapshots it.
fn snapshot(name: &str, files: &[(&str, &str)], args: &[&str]) -> (i32, String, String) {
    let dir = scratch(files);
    let result = run_in(dir.path(), args);
    assert!(!result.2.contains("panicked"), "{}", result.2);
    insta::assert_snapshot!(name, transcript(args, result.clone()));
    result
}

#[test]
fn half_star_grades_in_trec_csv_and_jsonl_give_the_same_values() {
    let csv = "user,item,rating\nu1,a,4.5\nu1,b,3.5\nu1,c,0.5\nu1,d,5.0\nu2,e,2.5\nu2,f,3\n";
    let jsonl = "{\"query\": \"u1\", \"relevant\": {\"a\": 4.5, \"b\": 3.5, \"c\": 0.5, \"d\": 5.0}}\n\
                 {\"query\": \"u2\", \"relevant\": {\"e\": 2.5, \"f\": 3}}\n";
    let files = [
        ("qrels.txt", HALF_STARS),
        ("truth.csv", csv),
        ("truth.jsonl", jsonl),
        ("run.trec", HALF_STARS_RUN),
    ];
    let metrics = [
        "-m",
        "ndcg@3",
        "-m",
        "ndcg(gain=exponential)@3",
        "-m",
        "err@3",
        "-m",
        "p(rel=3.5)@3",
        "-m",
        "rr",
        "--rel",
        "3.5",
        "--format",
        "csv",
        "--per-query",
    ];
    let mut outputs = Vec::new();
    for (qrels, extra) in [
        ("qrels.txt", &[][..]),
        ("truth.csv", &["--csv-grade", "rating"][..]),
        ("truth.jsonl", &[][..]),
    ] {
        let mut args = vec!["eval", "--qrels", qrels, "--run", "run.trec"];
        args.extend_from_slice(&metrics);
        args.extend_from_slice(extra);
        let dir = scratch(&files);
        let (code, stdout, stderr) = run_in(dir.path(), &args);
        assert_eq!(code, 0, "{qrels}: {stderr}");
        outputs.push(stdout);
    }
    assert_eq!(outputs[0], outputs[1], "TREC and CSV");
    assert_eq!(outputs[0], outputs[2], "TREC and JSON Lines");
    let mut args = vec!["eval", "--qrels", "qrels.txt", "--run", "run.trec"];
    args.extend_from_slice(&metrics);
    snapshot("grades_half_stars", &files, &args);
}

#[test]
fn grades_that_are_not_finite_are_refused_naming_file_and_line() {
    for (name, file, text) in [
        ("grades_nan_trec", "qrels.txt", "u1 0 a 1\nu1 0 b NaN\n"),
        (
            "grades_inf_csv",
            "truth.csv",
            "user,item,grade\nu1,a,1\nu1,b,inf\n",
        ),
        (
            "grades_huge_jsonl",
            "truth.jsonl",
            "{\"query\": \"u1\", \"relevant\": {\"a\": 1e300}}\n",
        ),
    ] {
        let (code, _, _) = snapshot(
            name,
            &[(file, text), ("run.trec", HALF_STARS_RUN)],
            &["eval", "--qrels", file, "--run", "run.trec", "-m", "ndcg"],
        );
        assert_eq!(code, 2, "{name}");
    }
}

#[test]
fn a_level_no_metric_reads_is_a_warning_on_stderr_and_in_json() {
    let files = [("qrels.txt", HALF_STARS), ("run.trec", HALF_STARS_RUN)];
    let (code, _, stderr) = snapshot(
        "grades_level_unused_json",
        &files,
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "ndcg@10",
            "-m",
            "p(rel=2)@5",
            "--rel",
            "4",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0);
    assert!(stderr.contains("the relevance level 4"), "{stderr}");
    // A metric that reads the level: no warning.
    let dir = scratch(&files);
    let args = [
        "eval",
        "--qrels",
        "qrels.txt",
        "--run",
        "run.trec",
        "-m",
        "ndcg@10",
        "-m",
        "p@5",
        "--rel",
        "4",
    ];
    let (code, _, stderr) = run_in(dir.path(), &args);
    assert_eq!((code, stderr.as_str()), (0, ""));
    // The same from TOML `rel`.
    let toml = "qrels = \"qrels.txt\"\nrel = 3.5\n\n[[runs]]\nname = \"r\"\npath = \"run.trec\"\n\n\
                [[metrics]]\ntype = \"ndcg\"\nk = 10\n\n[[metrics]]\ntype = \"err\"\n";
    let (code, _, _) = snapshot(
        "grades_level_unused_toml",
        &[
            ("qrels.txt", HALF_STARS),
            ("run.trec", HALF_STARS_RUN),
            ("exp.toml", toml),
        ],
        &["run", "exp.toml"],
    );
    assert_eq!(code, 0);
}

/// q1's document `a` is on the first line with a low score and again with
/// the best score of the list; `c` repeats with a lower score. Kept by the
/// first line, `a` would rank last (rr = 1/3); kept best-ranked, first.
const REPEATS: &str = "q1 Q0 a 1 0.1 t\nq1 Q0 b 2 0.5 t\nq1 Q0 c 3 0.4 t\n\
                       q1 Q0 a 4 0.9 t\nq1 Q0 c 5 0.2 t\nq2 Q0 x 1 1.0 t\n";
/// The same lines with q2 between q1's: not grouped by query, so the run is
/// read whole (the `RunBuilder` path) instead of streamed.
const REPEATS_INTERLEAVED: &str = "q1 Q0 a 1 0.1 t\nq1 Q0 b 2 0.5 t\nq2 Q0 x 1 1.0 t\n\
                                   q1 Q0 c 3 0.4 t\nq1 Q0 a 4 0.9 t\nq1 Q0 c 5 0.2 t\n";
const REPEATS_QRELS: &str = "q1 0 a 1\nq1 0 b 0\nq1 0 c 0\nq2 0 x 1\n";

#[test]
fn duplicates_first_keeps_the_best_ranked_occurrence_on_both_paths() {
    let jsonl = "{\"query\": \"q1\", \"predicted\": [\"b\", \"a\", \"c\", \"a\"]}\n\
                 {\"query\": \"q1s\", \"predicted\": [\"a\", \"b\", \"a\"], \"scores\": [0.1, 0.5, 0.9]}\n";
    let files = [
        ("qrels.txt", REPEATS_QRELS),
        ("grouped.trec", REPEATS),
        ("interleaved.trec", REPEATS_INTERLEAVED),
        ("lists.jsonl", jsonl),
    ];
    let args = |run| {
        [
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            run,
            "-m",
            "rr",
            "-m",
            "p@1",
            "-m",
            "num_ret",
            "--duplicates",
            "first",
            "--format",
            "csv",
            "--per-query",
        ]
    };
    let (code, grouped, _) = snapshot(
        "grades_duplicates_first_grouped",
        &files,
        &args("grouped.trec"),
    );
    assert_eq!(code, 0);
    assert!(grouped.contains("grouped,q1,,1,1,3\n"), "{grouped}");
    let dir = scratch(&files);
    let (code, interleaved, stderr) = run_in(dir.path(), &args("interleaved.trec"));
    assert_eq!(code, 0);
    assert_eq!(
        interleaved.replace("interleaved,", "grouped,"),
        grouped,
        "both paths keep the same occurrence"
    );
    assert!(stderr.contains("2 entries"), "{stderr}");
    // Lists given ranked keep the first given (here at rank 2: rr = 1/2);
    // scored lists the highest score.
    let jsonl_qrels = "q1 0 a 1\nq1s 0 a 1\n";
    let (code, _, _) = snapshot(
        "grades_duplicates_first_jsonl",
        &[("qrels.txt", jsonl_qrels), ("lists.jsonl", jsonl)],
        &args("lists.jsonl"),
    );
    assert_eq!(code, 0);
}

/// Binary nDCG at a rating threshold ("relevant = rating >= 4"), written in
/// the short syntax, gives the same values as plain nDCG on the ratings
/// made 0/1 at 4 first; `ndcg(rel=4)` is refused with the binary spelling.
#[test]
fn binary_ndcg_at_a_rating_threshold() {
    let ratings = "user,item,rating\nu1,a,5\nu1,b,3\nu1,c,4\nu1,d,1\nu1,e,4\nu2,f,2\nu2,g,4.5\n";
    let made_binary = "user,item,rating\nu1,a,1\nu1,b,0\nu1,c,1\nu1,d,0\nu1,e,1\nu2,f,0\nu2,g,1\n";
    let run = "user,item,score\nu1,a,0.9\nu1,b,0.8\nu1,c,0.7\nu1,d,0.6\nu2,f,0.9\nu2,g,0.1\n";
    let files = [
        ("ratings.csv", ratings),
        ("binary.csv", made_binary),
        ("run.csv", run),
    ];
    let eval = |qrels: &str, metric: &str| {
        let dir = scratch(&files);
        let args = [
            "eval",
            "--qrels",
            qrels,
            "--run",
            "run.csv",
            "--csv-grade",
            "rating",
            "-m",
            metric,
            "--per-query",
            "--format",
            "csv",
        ];
        let (code, stdout, stderr) = run_in(dir.path(), &args);
        assert_eq!(code, 0, "{stderr}");
        stdout
    };
    let binary = eval("ratings.csv", "ndcg(gain=binary,rel=4)@3");
    let linear_on_binary = eval("binary.csv", "ndcg@3");
    // Same numbers; only the metric's name differs.
    assert_eq!(
        binary.replace("\"ndcg(gain=binary,rel=4)@3\"", "ndcg@3"),
        linear_on_binary
    );
    // Not plain nDCG on the ratings.
    assert_ne!(
        eval("ratings.csv", "ndcg@3").replace("ndcg@3", "X"),
        binary.replace("\"ndcg(gain=binary,rel=4)@3\"", "X")
    );
    let inputs = [
        "eval",
        "--qrels",
        "ratings.csv",
        "--run",
        "run.csv",
        "--csv-grade",
        "rating",
    ];
    let binary_args = [
        &inputs[..],
        &["-m", "ndcg(gain=binary,rel=4)@3", "--per-query"],
    ]
    .concat();
    let (code, _, _) = snapshot("grades_binary_ndcg_at_a_level", &files, &binary_args);
    assert_eq!(code, 0);
    let refused = [&inputs[..], &["-m", "ndcg(rel=4)@3"]].concat();
    let (code, _, _) = snapshot("grades_ndcg_rel_without_binary_gain", &files, &refused);
    assert_eq!(code, 2);
}
