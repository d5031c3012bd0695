//! One naming rule for runs (`rankeval::naming`): every command names a
//! gzipped run file `runs/bm25.trec.gz` "bm25" (its stem without `.gz` and
//! one extension), never "bm25.trec", and `NAME=FILE` names it NAME.

use std::io::Write;
use std::path::Path;

/// `text` gzipped into `path`.
fn gzip(path: &Path, text: &[u8]) {
    let file = std::fs::File::create(path).unwrap();
    let mut encoder = flate2::write::GzEncoder::new(file, flate2::Compression::default());
    encoder.write_all(text).unwrap();
    encoder.finish().unwrap();
}

/// A directory with the judgements example's qrels and labels, and its
/// two runs gzipped under `runs/`.
fn inputs() -> tempfile::TempDir {
    let example = super::workspace().join("examples/judgements");
    let dir = tempfile::tempdir().unwrap();
    for file in ["llm.qrels", "human.qrels", "labels.tsv"] {
        std::fs::copy(example.join(file), dir.path().join(file)).unwrap();
    }
    std::fs::create_dir(dir.path().join("runs")).unwrap();
    for run in ["bm25", "dense"] {
        let text = std::fs::read(example.join(format!("{run}.trec"))).unwrap();
        gzip(&dir.path().join(format!("runs/{run}.trec.gz")), &text);
    }
    std::fs::write(
        dir.path().join("experiment.toml"),
        "qrels = \"human.qrels\"\nmetrics = [\"p@5\"]\n\n[[runs]]\npath = \"runs/bm25.trec.gz\"\n\n\
         [[runs]]\npath = \"runs/dense.trec.gz\"\n",
    )
    .unwrap();
    dir
}

/// Runs `args` in `dir`, which must succeed, and returns its output.
fn output(dir: &Path, args: &[&str]) -> String {
    let (code, stdout, stderr) = super::run_in(dir, args);
    assert_eq!(code, 0, "rankeval {}: {stderr}", args.join(" "));
    stdout
}

/// Whether `json` names a run `bm25` and never `bm25.trec`.
fn names_bm25(command: &str, json: &str) {
    assert!(
        json.contains("\"bm25\""),
        "{command} does not name the run `bm25`:\n{json}"
    );
    assert!(
        !json.contains("bm25.trec"),
        "{command} names the run by more than its stem:\n{json}"
    );
}

#[test]
fn every_command_names_a_gzipped_run_by_its_stem() {
    let dir = inputs();
    let dir = dir.path();
    let runs = ["--run", "runs/bm25.trec.gz", "--run", "runs/dense.trec.gz"];
    let json = ["-m", "p@5", "--format", "json"];
    let with = |head: &[&'static str]| -> Vec<&str> {
        head.iter().chain(&runs).chain(&json).copied().collect()
    };

    let eval = output(dir, &with(&["eval", "--qrels", "human.qrels"]));
    names_bm25("eval", &eval);

    let run = output(dir, &["run", "experiment.toml", "--format", "json"]);
    names_bm25("run", &run);

    let per_query = output(
        dir,
        &with(&["eval", "--qrels", "human.qrels", "--per-query"]),
    );
    std::fs::write(dir.join("results.json"), per_query).unwrap();
    let report = output(dir, &["report", "results.json", "--format", "json"]);
    names_bm25("report", &report);

    let ppi = output(
        dir,
        &with(&["ppi", "--qrels", "llm.qrels", "--human", "human.qrels"]),
    );
    names_bm25("ppi", &ppi);

    let agree = output(
        dir,
        &with(&[
            "agree",
            "--qrels",
            "llm=llm.qrels",
            "--qrels",
            "human=human.qrels",
        ]),
    );
    names_bm25("agree", &agree);

    let expected = output(
        dir,
        &with(&[
            "expected",
            "--qrels",
            "labels.tsv",
            "--qrels-columns",
            "query=query,doc=doc",
            "--label",
            "p0=0,p1=1,p2=2,p3=3",
        ]),
    );
    names_bm25("expected", &expected);

    // Spans reads runs of chunks: the same name for a gzipped one.
    let spans = super::workspace().join("examples/spans");
    std::fs::copy(spans.join("spans.tsv"), dir.join("spans.tsv")).unwrap();
    let chunks = std::fs::read(spans.join("fixed.tsv")).unwrap();
    gzip(&dir.join("runs/bm25.tsv.gz"), &chunks);
    let spans = output(
        dir,
        &[
            "spans",
            "--qrels",
            "spans.tsv",
            "--run",
            "runs/bm25.tsv.gz",
            "-m",
            "recall@3",
            "--format",
            "json",
        ],
    );
    assert!(spans.contains("\"bm25\""), "spans: {spans}");
    assert!(!spans.contains("bm25.tsv"), "spans: {spans}");
}

#[test]
fn a_name_given_is_the_name_in_every_command() {
    let dir = inputs();
    let dir = dir.path();
    for head in [
        &["eval", "--qrels", "human.qrels"][..],
        &["ppi", "--qrels", "llm.qrels", "--human", "human.qrels"],
    ] {
        let mut args = head.to_vec();
        args.extend([
            "--run",
            "base=runs/bm25.trec.gz",
            "--run",
            "runs/dense.trec.gz",
            "-m",
            "p@5",
            "--format",
            "json",
        ]);
        let json = output(dir, &args);
        assert!(json.contains("\"base\""), "{}: {json}", head[0]);
        assert!(!json.contains("\"bm25\""), "{}: {json}", head[0]);
    }
    // Two runs of one name are refused alike.
    for head in [
        &["eval", "--qrels", "human.qrels"][..],
        &["ppi", "--qrels", "llm.qrels", "--human", "human.qrels"],
    ] {
        let mut args = head.to_vec();
        args.extend([
            "--run",
            "dense=runs/bm25.trec.gz",
            "--run",
            "runs/dense.trec.gz",
            "-m",
            "p@5",
        ]);
        let (code, _, stderr) = super::run_in(dir, &args);
        assert_eq!(code, 2, "{}: {stderr}", head[0]);
        assert!(
            stderr.contains(
                "--run dense=runs/bm25.trec.gz and --run runs/dense.trec.gz are both named `dense`"
            ),
            "{}: {stderr}",
            head[0]
        );
    }
}
