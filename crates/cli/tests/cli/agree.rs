//! `rankeval agree` on examples/judgements: the report, and its kappa
//! recomputed from the two qrels files read here (the statistic itself is
//! checked against scikit-learn in rankeval-stats).

use std::collections::HashMap;

use crate::rankeval_snapshot;

const ARGS: [&str; 17] = [
    "agree",
    "--qrels",
    "llm=examples/judgements/llm.qrels",
    "--qrels",
    "human=examples/judgements/human.qrels",
    "--weights",
    "quadratic",
    "--run",
    "examples/judgements/bm25.trec",
    "--run",
    "examples/judgements/dense.trec",
    "-m",
    "ndcg@5",
    "-m",
    "p@5",
    "--top",
    "1",
];

#[test]
fn table() {
    rankeval_snapshot!("agree_table", &ARGS);
}

/// `(query, doc) -> grade` of a TREC qrels file.
fn grades(path: &str) -> HashMap<(String, String), f64> {
    std::fs::read_to_string(super::workspace().join(path))
        .unwrap()
        .lines()
        .map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            ((f[0].to_owned(), f[2].to_owned()), f[3].parse().unwrap())
        })
        .collect()
}

#[test]
fn kappa_of_the_documents_both_judged() {
    let llm = grades("examples/judgements/llm.qrels");
    let human = grades("examples/judgements/human.qrels");
    let mut keys: Vec<&(String, String)> = llm.keys().filter(|k| human.contains_key(*k)).collect();
    keys.sort();
    let a: Vec<f64> = keys.iter().map(|k| llm[*k]).collect();
    let b: Vec<f64> = keys.iter().map(|k| human[*k]).collect();
    let mut args = ARGS.to_vec();
    args.extend_from_slice(&["--format", "json"]);
    let (code, json, stderr) = super::run(&args);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["shared"], keys.len());
    let want = rankeval_stats::agreement::cohen_kappa(
        &a,
        &b,
        rankeval_stats::agreement::KappaWeights::Quadratic,
    )
    .unwrap();
    assert_eq!(report["kappa"]["kappa"].as_f64().unwrap(), want.kappa);
    assert_eq!(report["kappa"]["n"], keys.len());
    // The LLM grades higher: its nDCG means differ from people's, and the
    // mean difference is people's minus the LLM's.
    let ndcg = &report["metrics"][0];
    assert_eq!(ndcg["metric"], "ndcg@5");
    let first = ndcg["first"][0].as_f64().unwrap();
    let second = ndcg["second"][0].as_f64().unwrap();
    let difference = ndcg["difference"][0].as_f64().unwrap();
    assert!((second - first - difference).abs() < 1e-12);
}

#[test]
fn errors_name_the_flag() {
    let (code, _, stderr) = super::run(&["agree", "--qrels", "examples/judgements/llm.qrels"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("give two sets of judgements"), "{stderr}");
    let (code, _, stderr) = super::run(&[
        "agree",
        "--qrels",
        "examples/judgements/llm.qrels",
        "--qrels",
        "examples/judgements/human.qrels",
        "-m",
        "ndcg@5",
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--run and -m go together"), "{stderr}");
    // A grade column names a column of a table, not of TREC qrels.
    let (code, _, stderr) = super::run(&[
        "agree",
        "--qrels",
        "examples/judgements/llm.qrels",
        "--qrels",
        "examples/judgements/human.qrels",
        "--grade",
        "llm",
        "--grade",
        "human",
    ]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("--grade llm: examples/judgements/llm.qrels is read as TREC qrels"),
        "{stderr}"
    );
}

/// One JSON Lines table with a grade column per judge: read as JSON Lines
/// rows (not as CSV), the same kappa as the two TREC files.
#[test]
fn grade_columns_of_a_json_lines_table() {
    let llm = grades("examples/judgements/llm.qrels");
    let human = grades("examples/judgements/human.qrels");
    let mut keys: Vec<&(String, String)> = llm.keys().filter(|k| human.contains_key(*k)).collect();
    keys.sort();
    let jsonl: String = keys
        .iter()
        .map(|k| {
            format!(
                "{{\"query\": \"{}\", \"doc\": \"{}\", \"llm\": {}, \"human\": {}}}\n",
                k.0, k.1, llm[*k], human[*k]
            )
        })
        .collect();
    let dir = super::scratch(&[("both.jsonl", &jsonl)]);
    let both = dir.path().join("both.jsonl");
    let both = both.to_str().unwrap();
    let kappa = |args: &[&str]| {
        let mut args = args.to_vec();
        args.extend_from_slice(&["--format", "json"]);
        let (code, json, stderr) = super::run(&args);
        assert_eq!(code, 0, "{stderr}");
        let report: serde_json::Value = serde_json::from_str(&json).unwrap();
        report["kappa"]["kappa"].as_f64().unwrap()
    };
    let from_table = kappa(&[
        "agree", "--qrels", both, "--qrels", both, "--grade", "llm", "--grade", "human",
    ]);
    let from_files = kappa(&[
        "agree",
        "--qrels",
        "examples/judgements/llm.qrels",
        "--qrels",
        "examples/judgements/human.qrels",
    ]);
    assert_eq!(from_table, from_files);
}

/// One table with a column per judge, empty (CSV) or null (JSON Lines,
/// Parquet) where a judge gave no grade: a pair without both grades is not
/// compared but counted (judged by one set only), and the rows left out
/// are noted on standard error; the report is the two files' report. Before,
/// every empty cell was an error.
#[test]
fn empty_grades_of_a_shared_table_are_pairs_not_compared() {
    let dir = tempfile::tempdir().unwrap();
    super::ppi::judge_tables(dir.path());
    let workspace = super::workspace();
    let path = |f: &str| {
        workspace
            .join("examples/judgements")
            .join(f)
            .to_str()
            .unwrap()
            .to_owned()
    };
    let (bm25, dense) = (path("bm25.trec"), path("dense.trec"));
    let report = |qrels: [String; 2], grades: &[&str]| {
        let mut args: Vec<String> = vec!["agree".into()];
        for (name, file) in ["llm", "human"].iter().zip(&qrels) {
            args.extend(["--qrels".into(), format!("{name}={file}")]);
        }
        for grade in grades {
            args.extend(["--grade".into(), (*grade).to_owned()]);
        }
        for extra in [
            "--run", &bm25, "--run", &dense, "-m", "ndcg@5", "--top", "1", "--format", "json",
        ] {
            args.push(extra.to_owned());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        super::run_in(dir.path(), &args)
    };
    let (code, want, stderr) = report([path("llm.qrels"), path("human.qrels")], &[]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    let parsed: serde_json::Value = serde_json::from_str(&want).unwrap();
    assert_eq!(
        (&parsed["shared"], &parsed["first_only"]),
        (&180.into(), &300.into())
    );
    for (table, first) in [
        ("judges.csv", "line 182"),
        ("judges.jsonl", "line 181"),
        ("judges.parquet", "row 181"),
    ] {
        let (code, got, stderr) = report([table.into(), table.into()], &["llm", "human"]);
        assert_eq!(code, 0, "{table}: {stderr}");
        assert_eq!(got, want, "{table}");
        assert_eq!(
            stderr,
            format!(
                "note: {table}: 300 rows have no grade in `human` (empty or null): read as not \
                 judged by human (the first at {first})\n"
            ),
            "{table}"
        );
    }
}

/// A run without a list for some queries both sets judge: left out of its
/// means, as before, but now counted in the JSON report and warned about.
#[test]
fn shared_queries_a_run_lacks_are_warned_about() {
    let bm25 =
        std::fs::read_to_string(super::workspace().join("examples/judgements/bm25.trec")).unwrap();
    let short: String = bm25
        .lines()
        .filter(|l| !["q14 ", "q15 ", "q16 "].iter().any(|q| l.starts_with(q)))
        .map(|l| format!("{l}\n"))
        .collect();
    let dir = super::scratch(&[("short.trec", &short)]);
    let workspace = super::workspace();
    let path = |f: &str| {
        workspace
            .join("examples/judgements")
            .join(f)
            .to_str()
            .unwrap()
            .to_owned()
    };
    let (llm, human, dense) = (path("llm.qrels"), path("human.qrels"), path("dense.trec"));
    let (code, json, stderr) = super::run_in(
        dir.path(),
        &[
            "agree",
            "--qrels",
            &format!("llm={llm}"),
            "--qrels",
            &format!("human={human}"),
            "--run",
            "short.trec",
            "--run",
            &dense,
            "-m",
            "p@5",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stderr,
        "warning: run `short`: 2 queries both sets judge have no list in the run and were left \
         out of its means: `q14`, `q15`\n"
    );
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["missing"][0]["count"], 2);
    assert_eq!(report["missing"][1]["count"], 0);
}
