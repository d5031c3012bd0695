//! Evaluating a run while reading it gives the same bits as reading it
//! whole and evaluating: grouped runs with queries spanning many parse
//! pieces, ungrouped runs (read whole instead), duplicates under both
//! policies with exact line numbers, missing and run-only queries, CSV.

use rankeval_runner::{
    Duplicates, Evaluation, Format, Input, Missing, Options, Qrels, ReadOptions, evaluate,
    evaluate_grouped, evaluate_input, parse_metric, read_qrels, read_run,
};

const METRICS: &[&str] = &[
    "map",
    "ap(norm=truncated)@10",
    "p@10",
    "rr",
    "ndcg@10",
    "bpref",
    "num_ret",
];

/// A xorshift generator, so that inputs are the same on every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Qrels for queries 0..queries, and a grouped TREC run: `docs(q)` documents
/// for query q, scores on a coarse grid (ties), in file order by score.
fn generate(queries: u64, docs: impl Fn(u64) -> u64) -> (String, String) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut qrels = String::new();
    let mut run = String::new();
    for q in 0..queries {
        let n = docs(q);
        for d in 0..n.min(200) {
            if rng.next(4) == 0 {
                qrels.push_str(&format!("q{q} 0 doc{} {}\n", d * 3, rng.next(4) as i64 - 1));
            }
        }
        let mut score = 100.0;
        for d in 0..n {
            if rng.next(5) != 0 {
                score -= rng.next(3) as f64 * 0.25;
            }
            run.push_str(&format!(
                "q{q} Q0 doc{} {d} {score} t\n",
                d * 3 + rng.next(3)
            ));
        }
    }
    (qrels, run)
}

fn metrics() -> Vec<Box<dyn rankeval_runner::Metric>> {
    METRICS.iter().map(|m| parse_metric(m).unwrap()).collect()
}

fn qrels_of(text: &str) -> Qrels {
    read_qrels(&Input::bytes("qrels.txt", text, Format::Trec)).unwrap()
}

fn whole(
    qrels: &Qrels,
    input: &Input,
    read: ReadOptions,
    options: &Options,
) -> Result<Evaluation, String> {
    let run = read_run(input, read).map_err(|e| e.to_string())?;
    Ok(evaluate(qrels, &run, &metrics(), options))
}

fn streamed(
    qrels: &Qrels,
    input: &Input,
    read: ReadOptions,
    options: &Options,
) -> Result<Evaluation, String> {
    evaluate_input(qrels, input, read, &metrics(), options, &|_| {}).map_err(|e| e.to_string())
}

/// Everything an evaluation holds, values as bits.
fn bits(e: &Evaluation) -> (Vec<String>, Vec<Vec<u64>>, rankeval_runner::Coverage) {
    let values = (0..e.metrics().len())
        .map(|m| e.column(m).into_iter().map(f64::to_bits).collect())
        .collect();
    (e.queries().to_vec(), values, e.coverage().clone())
}

/// Whether the run in `input` is evaluated while read (not read whole).
fn streams(qrels: &Qrels, input: &Input, read: ReadOptions, options: &Options) -> bool {
    evaluate_grouped(qrels, input, read, &metrics(), options, &|_| {})
        .unwrap()
        .is_some()
}

fn same(qrels_text: &str, run_text: &str, read: ReadOptions, options: Options) {
    let qrels = qrels_of(qrels_text);
    let input = Input::bytes("run.trec", run_text, Format::Trec);
    let expected = whole(&qrels, &input, read, &options).unwrap();
    let got = streamed(&qrels, &input, read, &options).unwrap();
    assert_eq!(bits(&got), bits(&expected));
}

fn same_and_streamed(qrels_text: &str, run_text: &str, read: ReadOptions, options: Options) {
    same(qrels_text, run_text, read, options);
    let input = Input::bytes("run.trec", run_text, Format::Trec);
    assert!(
        streams(&qrels_of(qrels_text), &input, read, &options),
        "a grouped run must stream"
    );
}

#[test]
fn grouped_runs_with_queries_across_pieces_give_the_same_bits() {
    // Some lists much longer than a parse piece (1 MiB), most short.
    let (qrels, run) = generate(600, |q| if q % 97 == 5 { 40_000 } else { 20 + q % 150 });
    assert!(run.len() > 8 << 20, "the run must span many pieces");
    same_and_streamed(&qrels, &run, ReadOptions::default(), Options::default());
}

#[test]
fn missing_and_run_only_queries_are_counted_the_same() {
    let (mut qrels, run) = generate(300, |q| 10 + q % 40);
    qrels.push_str("judged_only 0 x 1\n");
    let run = run.replace("q7 ", "unjudged7 ");
    for missing in [Missing::Skip, Missing::Zero] {
        let options = Options {
            missing,
            ..Options::default()
        };
        same_and_streamed(&qrels, &run, ReadOptions::default(), options);
    }
}

#[test]
fn ungrouped_runs_are_read_whole_with_the_same_result() {
    let (qrels, run) = generate(400, |q| 10 + q % 60);
    // Interleave two halves: queries come back after others.
    let lines: Vec<&str> = run.lines().collect();
    let (a, b) = lines.split_at(lines.len() / 2);
    let interleaved: String = a
        .iter()
        .zip(b)
        .flat_map(|(x, y)| [*x, *y])
        .map(|l| format!("{l}\n"))
        .collect();
    same(
        &qrels,
        &interleaved,
        ReadOptions::default(),
        Options::default(),
    );
    let input = Input::bytes("run.trec", interleaved.as_str(), Format::Trec);
    let options = Options::default();
    assert!(!streams(
        &qrels_of(&qrels),
        &input,
        ReadOptions::default(),
        &options
    ));
}

#[test]
fn duplicates_are_refused_with_exact_lines_or_the_first_kept() {
    let (qrels, run) = generate(500, |q| if q == 250 { 60_000 } else { 30 });
    let lines: Vec<String> = run.lines().map(str::to_owned).collect();
    // A repeat inside a short query, and one across piece boundaries inside
    // the long query (its first and last lines).
    let short_first = lines.iter().position(|l| l.starts_with("q3 ")).unwrap();
    let long_first = lines.iter().position(|l| l.starts_with("q250 ")).unwrap();
    let long_last = lines.iter().rposition(|l| l.starts_with("q250 ")).unwrap();
    for (first, second) in [(short_first, short_first + 5), (long_first, long_last)] {
        let mut edited = lines.clone();
        let doc = edited[first].split(' ').nth(2).unwrap().to_owned();
        let fields: Vec<String> = edited[second].split(' ').map(str::to_owned).collect();
        edited[second] = format!("{} Q0 {doc} {} {} t", fields[0], fields[3], fields[4]);
        // Keep the repeated document unique otherwise.
        let text: String = edited.iter().map(|l| format!("{l}\n")).collect();
        let qrels_parsed = qrels_of(&qrels);
        let input = Input::bytes("run.trec", text.as_str(), Format::Trec);
        let error = streamed(
            &qrels_parsed,
            &input,
            ReadOptions::default(),
            &Options::default(),
        )
        .unwrap_err();
        let whole_error = whole(
            &qrels_parsed,
            &input,
            ReadOptions::default(),
            &Options::default(),
        )
        .unwrap_err();
        assert_eq!(error, whole_error);
        let expected_start = format!("run.trec:{}: document `{doc}` appears twice", second + 1);
        assert!(error.starts_with(&expected_start), "{error}");
        assert!(
            error.contains(&format!("(first on line {})", first + 1)),
            "{error}"
        );
        let first_kept = ReadOptions {
            duplicates: Duplicates::First,
            ..ReadOptions::default()
        };
        same_and_streamed(&qrels, &text, first_kept, Options::default());
        let kept = streamed(&qrels_parsed, &input, first_kept, &Options::default()).unwrap();
        assert_eq!(kept.coverage().duplicates_dropped, 1);
        assert!(
            kept.warnings()
                .contains(&rankeval_runner::Warning::DuplicatesDropped { count: 1 })
        );
    }
}

#[test]
fn repeats_left_out_are_counted_in_every_query_on_both_paths() {
    // q1 is judged, q9 only in the run: each repeats a document twice.
    let qrels = "q1 0 a 1\nq1 0 b 0\n";
    let run = "q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 a 3 1 t\nq1 Q0 a 4 0.5 t\n\
               q9 Q0 x 1 2 t\nq9 Q0 x 2 1 t\nq9 Q0 x 3 0 t\n";
    let first_kept = ReadOptions {
        duplicates: Duplicates::First,
        ..ReadOptions::default()
    };
    same(qrels, run, first_kept, Options::default());
    let evaluation = streamed(
        &qrels_of(qrels),
        &Input::bytes("run.trec", run, Format::Trec),
        first_kept,
        &Options::default(),
    )
    .unwrap();
    assert_eq!(evaluation.coverage().duplicates_dropped, 4);
    let warning = rankeval_runner::Warning::DuplicatesDropped { count: 4 };
    assert!(evaluation.warnings().contains(&warning));
    assert_eq!(
        warning.to_string(),
        "4 entries of the run repeated a document already in their query's list and were left out (duplicates = first keeps the best-ranked occurrence)"
    );
}

#[test]
fn csv_runs_stream_like_trec() {
    let (qrels, run) = generate(300, |q| if q == 10 { 50_000 } else { 25 });
    let csv: String = std::iter::once("user,item,score\n".to_owned())
        .chain(run.lines().map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            format!("{},{},{}\n", f[0], f[2], f[4])
        }))
        .collect();
    let qrels = qrels_of(&qrels);
    let trec = Input::bytes("run.trec", run.as_str(), Format::Trec);
    let csv = Input::bytes("run.csv", csv.as_str(), Format::Csv);
    let options = Options::default();
    let expected = whole(&qrels, &trec, ReadOptions::default(), &options).unwrap();
    let got = streamed(&qrels, &csv, ReadOptions::default(), &options).unwrap();
    assert_eq!(bits(&got), bits(&expected));
    assert!(streams(&qrels, &csv, ReadOptions::default(), &options));
}
