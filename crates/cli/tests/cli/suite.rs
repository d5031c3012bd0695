//! A suite of datasets as one number per run (issue 26): `rankeval run
//! a.toml b.toml c.toml --aggregate macro` adds each run's macro average
//! (each dataset weighs the same) with its stratified bootstrap interval,
//! and the comparison with the experiments' common baseline paired by
//! (dataset, query); datasets with other metrics are an error naming them.

use rankeval_stats::{macro_mean_interval, macro_paired};

use super::{run_in, scratch, transcript};

/// Three small datasets of different sizes, two runs each (`bm25`, `dense`).
fn suite() -> tempfile::TempDir {
    let mut files: Vec<(String, String)> = Vec::new();
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for (dataset, queries) in [("a", 9), ("b", 4), ("c", 15)] {
        let (mut qrels, mut bm25, mut dense) = (String::new(), String::new(), String::new());
        for q in 0..queries {
            for d in 0..6 {
                if next() % 3 == 0 {
                    qrels.push_str(&format!("{dataset}{q} 0 x{d} {}\n", 1 + next() % 3));
                }
                bm25.push_str(&format!(
                    "{dataset}{q} Q0 x{d} {} {} bm25\n",
                    d + 1,
                    next() % 100
                ));
                dense.push_str(&format!(
                    "{dataset}{q} Q0 x{d} {} {} dense\n",
                    d + 1,
                    next() % 100
                ));
            }
        }
        // Every query has a relevant document (not always retrieved), so
        // every query counts.
        for q in 0..queries {
            qrels.push_str(&format!("{dataset}{q} 0 y 1\n"));
        }
        files.push((format!("{dataset}.qrels"), qrels));
        files.push((format!("{dataset}-bm25.trec"), bm25));
        files.push((format!("{dataset}-dense.trec"), dense));
        let metrics = "[\"ap\", \"ndcg@10\"]";
        files.push((
            format!("{dataset}.toml"),
            format!(
                "qrels = \"{dataset}.qrels\"\nmetrics = {metrics}\nbaseline = \"bm25\"\n\
                 \n[compare]\nseed = 7\nresamples = 2000\n\n\
                 [[runs]]\nname = \"bm25\"\npath = \"{dataset}-bm25.trec\"\n\n\
                 [[runs]]\nname = \"dense\"\npath = \"{dataset}-dense.trec\"\n"
            ),
        ));
    }
    files.push((
        "other.toml".into(),
        "qrels = \"a.qrels\"\nmetrics = [\"ap\", \"rr\"]\n\n[[runs]]\nname = \"bm25\"\n\
         path = \"a-bm25.trec\"\n\n[[runs]]\nname = \"dense\"\npath = \"a-dense.trec\"\n"
            .into(),
    ));
    let borrowed: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    scratch(&borrowed)
}

const FILES: [&str; 3] = ["a.toml", "b.toml", "c.toml"];

#[test]
fn the_macro_average_is_the_stratified_statistic_of_the_datasets_values() {
    let dir = suite();
    let mut args = vec!["run"];
    args.extend(FILES);
    args.extend(["--aggregate", "macro", "--format", "json", "--per-query"]);
    let (code, stdout, stderr) = run_in(dir.path(), &args);
    assert_eq!(code, 0, "{stderr}");
    let document: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let experiments = document["experiments"].as_array().expect("experiments");
    assert_eq!(experiments.len(), 3);
    let column = |e: usize, run: usize, metric: &str| -> Vec<f64> {
        experiments[e]["runs"][run]["per_query"][metric]
            .as_object()
            .expect("per query")
            .values()
            .map(|v| v.as_f64().expect("number"))
            .collect()
    };
    let macro_doc = &document["macro"];
    assert_eq!(macro_doc["datasets"].as_array().expect("datasets").len(), 3);
    assert_eq!(
        macro_doc["settings"]["seed"], 7,
        "the experiments' common seed"
    );
    for (m, metric) in ["ap", "ndcg@10"].into_iter().enumerate() {
        for run in 0..2 {
            let columns: Vec<Vec<f64>> = (0..3).map(|e| column(e, run, metric)).collect();
            let strata: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
            let expected = macro_mean_interval(&strata, 0.95, 2000, 7).expect("valid");
            let shown = &macro_doc["runs"][run]["macro_means"][m];
            let value = shown["value"].as_f64().expect("value");
            assert!(
                (value - expected.value).abs() <= 4.0 * f64::EPSILON,
                "{metric}"
            );
            let lower = shown["interval"]["lower"].as_f64().expect("lower");
            assert!((lower - expected.interval.lower).abs() <= 4.0 * f64::EPSILON);
            // Each dataset weighs the same: not the mean over all queries.
            let pooled: Vec<f64> = columns.iter().flatten().copied().collect();
            let pooled = pooled.iter().sum::<f64>() / pooled.len() as f64;
            assert_ne!(value, pooled);
        }
        let differences: Vec<Vec<f64>> = (0..3)
            .map(|e| {
                column(e, 1, metric)
                    .iter()
                    .zip(column(e, 0, metric))
                    .map(|(d, b)| d - b)
                    .collect()
            })
            .collect();
        let strata: Vec<&[f64]> = differences.iter().map(Vec::as_slice).collect();
        let expected = macro_paired(&strata, 0.95, 2000, 7).expect("valid");
        let shown = &macro_doc["comparisons"][m];
        assert_eq!(shown["run"], "dense");
        assert_eq!(shown["baseline"], "bm25");
        assert_eq!(shown["paired"], serde_json::json!([9, 4, 15]));
        let p = shown["result"]["p_value"].as_f64().expect("p");
        assert!(
            (p - expected.p_value).abs() <= 4.0 * f64::EPSILON,
            "{metric}"
        );
    }
}

#[test]
fn the_table_ends_with_the_macro_average() {
    let dir = suite();
    let mut args = vec!["run"];
    args.extend(FILES);
    args.extend(["--aggregate", "macro"]);
    let result = run_in(dir.path(), &args);
    assert_eq!(result.0, 0, "{}", result.2);
    let tail: String = result
        .1
        .split("macro average over")
        .nth(1)
        .map(|t| format!("macro average over{t}"))
        .expect("a macro section");
    insta::assert_snapshot!("suite_macro_table", tail);
}

#[test]
fn datasets_with_other_metrics_or_a_single_file_are_errors() {
    let dir = suite();
    let args = ["run", "a.toml", "other.toml", "--aggregate", "macro"];
    let result = run_in(dir.path(), &args);
    assert_eq!(result.0, 2);
    assert!(
        result
            .2
            .contains("a.toml has ap, ndcg@10, other.toml has ap, rr"),
        "{}",
        result.2
    );
    let args = ["run", "a.toml", "--aggregate", "macro"];
    let result = run_in(dir.path(), &args);
    assert_eq!(result.0, 2);
    insta::assert_snapshot!("suite_single_file", transcript(&args, result));
}

#[test]
fn a_suite_file_is_the_suite_on_the_command_line() {
    let dir = suite();
    std::fs::write(
        dir.path().join("suite.toml"),
        "# the three datasets\nexperiments = [\"a.toml\", \"b.toml\", \"c.toml\"]\n",
    )
    .expect("write");
    let (code, from_file, stderr) = run_in(dir.path(), &["run", "suite.toml", "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let mut args = vec!["run"];
    args.extend(FILES);
    args.extend(["--aggregate", "macro", "--format", "json"]);
    let (_, listed, _) = run_in(dir.path(), &args);
    let macro_of = |text: &str| {
        serde_json::from_str::<serde_json::Value>(text).expect("JSON")["macro"].clone()
    };
    assert!(macro_of(&from_file).is_object());
    assert_eq!(macro_of(&from_file)["runs"], macro_of(&listed)["runs"]);
    for (text, expected) in [
        (
            "experiments = [\"a.toml\"]\n",
            "experiments: a suite needs at least 2 experiment files, got 1",
        ),
        (
            "experiments = [\"a.toml\", \"z.toml\"]\n",
            "experiments[2]:",
        ),
        (
            "experiments = [\"a.toml\", \"b.toml\"]\naggregate = \"mean\"\n",
            "suite.toml:2: aggregate: `mean`",
        ),
        (
            "experiments = [\"a.toml\", \"b.toml\"]\nbaseline = \"x\"\n",
            "unknown field `baseline`",
        ),
    ] {
        std::fs::write(dir.path().join("suite.toml"), text).expect("write");
        let (code, _, stderr) = run_in(dir.path(), &["run", "suite.toml"]);
        assert_eq!(code, 2, "{text}: {stderr}");
        assert!(stderr.contains(expected), "{text}: {stderr}");
        assert!(stderr.contains("suite.toml"), "{stderr}");
    }
}

/// One experiment file given twice would be resampled as two independent
/// datasets (the probe: p = 0.033 where the one dataset gives
/// 0.156): refused however the path is spelled, on the command line and in
/// a suite file, with or without the macro average.
#[test]
fn an_experiment_file_given_twice_is_refused() {
    let dir = suite();
    for (args, expected) in [
        (
            &["run", "a.toml", "a.toml", "--aggregate", "macro"][..],
            "a.toml is given twice: a suite lists each experiment file once",
        ),
        (
            &["run", "a.toml", "b.toml", "./a.toml"][..],
            "./a.toml is the same file as a.toml: a suite lists each experiment file once",
        ),
    ] {
        let (code, stdout, stderr) = run_in(dir.path(), args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
    }
    std::fs::write(
        dir.path().join("suite.toml"),
        "experiments = [\"a.toml\", \"b.toml\", \"./a.toml\"]\n",
    )
    .expect("write");
    let (code, _, stderr) = run_in(dir.path(), &["run", "suite.toml"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("suite.toml:1: experiments:"), "{stderr}");
    assert!(stderr.contains("is the same file as"), "{stderr}");
}

/// A suite listing a suite is refused, naming both files and the line
/// (not "unknown field"); so is a suite among several files run together.
#[test]
fn a_suite_cannot_contain_a_suite() {
    let dir = suite();
    std::fs::write(
        dir.path().join("inner.toml"),
        "# two datasets\nexperiments = [\"a.toml\", \"b.toml\"]\n",
    )
    .expect("write");
    std::fs::write(
        dir.path().join("outer.toml"),
        "experiments = [\"c.toml\", \"inner.toml\"]\n",
    )
    .expect("write");
    let (code, stdout, stderr) = run_in(dir.path(), &["run", "outer.toml"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains(
            "outer.toml:1: experiments[2]: inner.toml is a suite file itself (`experiments` on \
             its line 2): a suite cannot contain a suite"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("unknown field"), "{stderr}");
    let (code, _, stderr) = run_in(dir.path(), &["run", "c.toml", "inner.toml"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(
            "inner.toml:2: experiments: this is a suite file, where an experiment file is \
             expected: a suite cannot contain a suite"
        ),
        "{stderr}"
    );
}

/// `/dev/zero`, a FIFO fed without end and a sparse file of 3 GB as the
/// experiment file, as a suite file's experiment, and beside another: an
/// error naming the file (exit 2), quickly, never memory without bound.
#[cfg(unix)]
#[test]
fn endless_or_huge_experiment_and_suite_files_are_errors_naming_them() {
    use std::io::Write;
    let dir = suite();
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.toml")).expect("symlink");
    std::fs::File::create(dir.path().join("sparse.toml"))
        .expect("create")
        .set_len(3 << 30)
        .expect("a sparse file");
    std::fs::write(
        dir.path().join("suite.toml"),
        "experiments = [\"a.toml\", \"zero.toml\"]\n",
    )
    .expect("write");
    for (args, expected) in [
        (&["run", "zero.toml"][..], "zero.toml: "),
        (&["run", "sparse.toml"][..], "sparse.toml: "),
        (&["run", "a.toml", "zero.toml"][..], "zero.toml: "),
        (
            &["run", "suite.toml"][..],
            "suite.toml:1: experiments[2]: zero.toml: ",
        ),
    ] {
        let (code, _, stderr) = run_in(dir.path(), args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(stderr.contains("64 MiB"), "{args:?}: {stderr}");
    }
    let fifo = dir.path().join("fifo.toml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        for args in [
            &["run", "fifo.toml"][..],
            &["run", "a.toml", "fifo.toml"][..],
        ] {
            let writer = {
                let fifo = fifo.clone();
                std::thread::spawn(move || {
                    let mut pipe = std::fs::OpenOptions::new()
                        .write(true)
                        .open(&fifo)
                        .expect("open the FIFO");
                    let block = vec![b'#'; 1 << 20];
                    while pipe.write_all(&block).is_ok() {}
                })
            };
            let (code, _, stderr) = run_in(dir.path(), args);
            assert_eq!(code, 2, "{args:?}: {stderr}");
            assert!(stderr.contains("fifo.toml"), "{stderr}");
            writer.join().expect("the writer ends");
        }
    }
}

/// An experiment file from a FIFO (as a shell's `<(...)` gives) is read
/// once: it was read to tell a suite from an experiment, then opened again
/// and found empty (or waiting for another writer).
#[cfg(unix)]
#[test]
fn an_experiment_file_from_a_fifo_is_read_once() {
    use std::io::Write;
    let dir = suite();
    let fifo = dir.path().join("fifo.toml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        return;
    }
    let text = std::fs::read(dir.path().join("a.toml")).expect("read");
    let writer = std::thread::spawn(move || {
        let mut pipe = std::fs::OpenOptions::new()
            .write(true)
            .open(&fifo)
            .expect("open the FIFO");
        pipe.write_all(&text).expect("write the experiment once");
    });
    let (code, from_fifo, stderr) = run_in(dir.path(), &["run", "fifo.toml"]);
    writer.join().expect("the writer ends");
    assert_eq!(code, 0, "{stderr}");
    let (_, from_file, _) = run_in(dir.path(), &["run", "a.toml"]);
    assert_eq!(from_fifo, from_file);
}
