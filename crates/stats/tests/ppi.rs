//! Prediction-powered inference ([`rankeval_stats::ppi`]).
//!
//! `scripts/data/ppi-simulation.py` simulated 1,000 replications of N = 1000
//! queries, each with an LLM judge's labels (the true grade + 0.3 on
//! average) and n = 100 with human labels, the metric DCG@5; it stored
//! every replication's inputs (`tests/data/ppi_simulation.bin`, codes into
//! the table of DCG@5 values in `tests/data/ppi.json`) and numpy's outputs,
//! which it checked against the `ppi_py` package. Here: the same outputs
//! within 1e-12, the 95 % interval's coverage of the truth over the same
//! replications, hand-picked cases, properties that follow from the
//! definitions, and every invalid input as an error.

use rankeval_stats::{
    CompareError, Lambda, PpiColumn, PpiColumns, PpiOptions, PpiSample, Side, ppi_mean, ppi_paired,
};
use serde_json::Value;

use crate::fixtures::{floats, number};

const TOLERANCE: f64 = 1e-12;

fn load() -> Value {
    let path = format!("{}/tests/data/ppi.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn bits(value: &Value) -> f64 {
    f64::from_bits(
        value
            .as_u64()
            .unwrap_or_else(|| panic!("not bits: {value}")),
    )
}

fn count(value: &Value) -> usize {
    usize::try_from(value.as_u64().expect("a count")).expect("fits")
}

/// The codes of every replication: four 10-bit codes per 5 bytes,
/// little-endian.
fn codes(fixture: &Value) -> Vec<usize> {
    let name = fixture["codes_file"].as_str().expect("codes_file");
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(bytes.len() % 5, 0);
    bytes
        .chunks_exact(5)
        .flat_map(|chunk| {
            let word = chunk
                .iter()
                .enumerate()
                .fold(0u64, |w, (i, b)| w | (u64::from(*b) << (8 * i)));
            (0..4).map(move |k| usize::try_from((word >> (10 * k)) & 0x3ff).expect("small"))
        })
        .collect()
}

/// One replication's columns: labels, predictions, unlabelled predictions.
struct Replication {
    labels: Vec<f64>,
    predictions: Vec<f64>,
    unlabelled: Vec<f64>,
}

impl Replication {
    fn sample(&self) -> PpiSample<'_> {
        PpiSample {
            labels: &self.labels,
            predictions: &self.predictions,
            unlabelled: &self.unlabelled,
        }
    }
}

fn replications(fixture: &Value) -> Vec<Replication> {
    let table = floats(&fixture["table_bits"]);
    let queries = count(&fixture["queries"]);
    let labelled = count(&fixture["labelled"]);
    let per = labelled + queries;
    let all = codes(fixture);
    assert_eq!(all.len(), per * count(&fixture["replications"]));
    all.chunks_exact(per)
        .map(|codes| {
            let values: Vec<f64> = codes.iter().map(|&c| table[c]).collect();
            Replication {
                labels: values[..labelled].to_vec(),
                predictions: values[labelled..2 * labelled].to_vec(),
                unlabelled: values[2 * labelled..].to_vec(),
            }
        })
        .collect()
}

fn assert_close(what: &str, got: f64, want: f64) {
    assert!(
        (got - want).abs() <= TOLERANCE,
        "{what}: got {got:e}, numpy {want:e}, |diff| {:e}",
        (got - want).abs()
    );
}

/// Checks a result against the bits of `ppi-simulation.py`'s `output_bits`.
fn check_outputs(what: &str, got: &rankeval_stats::PpiMean, want: &Value) {
    let close = |name: &str, g: f64, key: &str| {
        assert_close(&format!("{what} {name}"), g, bits(&want[key]));
    };
    close("estimate", got.estimate, "estimate_bits");
    close("standard error", got.standard_error, "standard_error_bits");
    close("lower", got.interval.lower, "lower_bits");
    close("upper", got.interval.upper, "upper_bits");
    close("lambda", got.lambda, "lambda_bits");
    for (part, mean) in [("classical", &got.classical), ("imputed", &got.imputed)] {
        let w = &want[part];
        assert_close(
            &format!("{what} {part} mean"),
            mean.mean,
            bits(&w["mean_bits"]),
        );
        assert_close(
            &format!("{what} {part} se"),
            mean.standard_error,
            bits(&w["standard_error_bits"]),
        );
        assert_close(
            &format!("{what} {part} lower"),
            mean.interval.lower,
            bits(&w["lower_bits"]),
        );
        assert_close(
            &format!("{what} {part} upper"),
            mean.interval.upper,
            bits(&w["upper_bits"]),
        );
    }
}

fn options(case: &Value) -> PpiOptions {
    PpiOptions {
        level: number(&case["level"]),
        lambda: match &case["lambda"] {
            Value::String(s) if s == "tuned" => Lambda::Tuned,
            other => Lambda::Fixed(number(other)),
        },
    }
}

#[test]
fn every_replication_equals_numpy_within_1e_12() {
    let fixture = load();
    let level = number(&fixture["level"]);
    let outputs = &fixture["replication_outputs"];
    let column = |key: &str| floats(&outputs[key]);
    let want: Vec<(&str, Vec<f64>)> = [
        "estimate",
        "standard_error",
        "lower",
        "upper",
        "lambda",
        "classical_mean",
        "classical_standard_error",
        "classical_lower",
        "classical_upper",
        "imputed_mean",
        "imputed_standard_error",
        "imputed_lower",
        "imputed_upper",
    ]
    .into_iter()
    .map(|k| (k, column(&format!("{k}_bits"))))
    .collect();
    let options = PpiOptions {
        level,
        lambda: Lambda::Tuned,
    };
    for (r, replication) in replications(&fixture).iter().enumerate() {
        let got = ppi_mean(&replication.sample(), &options).expect("valid replication");
        assert!(got.lambda_tuned);
        assert_eq!((got.labelled, got.unlabelled), (100, 900));
        let values = [
            got.estimate,
            got.standard_error,
            got.interval.lower,
            got.interval.upper,
            got.lambda,
            got.classical.mean,
            got.classical.standard_error,
            got.classical.interval.lower,
            got.classical.interval.upper,
            got.imputed.mean,
            got.imputed.standard_error,
            got.imputed.interval.lower,
            got.imputed.interval.upper,
        ];
        for ((name, want), got) in want.iter().zip(values) {
            assert_close(&format!("replication {r} {name}"), got, want[r]);
        }
    }
}

#[test]
fn the_95_percent_interval_covers_the_truth_at_least_94_percent_of_the_time() {
    let fixture = load();
    let truth = bits(&fixture["truth_bits"]);
    let options = PpiOptions {
        level: number(&fixture["level"]),
        lambda: Lambda::Tuned,
    };
    let all = replications(&fixture);
    let covers = |i: &rankeval_stats::ttest::Interval| i.lower <= truth && truth <= i.upper;
    let (mut ppi, mut classical, mut imputed) = (0usize, 0usize, 0usize);
    let (mut ppi_width, mut classical_width) = (0.0, 0.0);
    for replication in &all {
        let got = ppi_mean(&replication.sample(), &options).expect("valid replication");
        ppi += usize::from(covers(&got.interval));
        classical += usize::from(covers(&got.classical.interval));
        imputed += usize::from(covers(&got.imputed.interval));
        ppi_width += got.interval.upper - got.interval.lower;
        classical_width += got.classical.interval.upper - got.classical.interval.lower;
    }
    let share = |k: usize| k as f64 / all.len() as f64;
    println!(
        "coverage of the 95 % interval over {} replications (truth {truth:.6}): PPI++ {:.3}, \
         human-only {:.3}, LLM-only {:.3}; mean width PPI++ {:.4}, human-only {:.4}",
        all.len(),
        share(ppi),
        share(classical),
        share(imputed),
        ppi_width / all.len() as f64,
        classical_width / all.len() as f64,
    );
    assert!(share(ppi) >= 0.94, "PPI++ coverage {}", share(ppi));
    // The same replications as numpy's: the same counts.
    let covered = &fixture["covered"];
    assert_eq!(ppi, count(&covered["ppi"]));
    assert_eq!(classical, count(&covered["classical"]));
    assert_eq!(imputed, count(&covered["imputed"]));
    // The judge's bias: trusting it alone almost never covers the truth;
    // correcting it narrows the human-only interval.
    assert!(share(imputed) < 0.05);
    assert!(ppi_width < classical_width);
}

fn case_columns(case: &Value) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    (
        floats(&case["labels_bits"]),
        floats(&case["predictions_bits"]),
        floats(&case["unlabelled_bits"]),
    )
}

#[test]
fn hand_picked_means_equal_numpy_within_1e_12() {
    let fixture = load();
    let cases = fixture["cases"].as_array().expect("cases");
    assert!(cases.len() >= 10);
    for case in cases {
        let name = case["name"].as_str().expect("name");
        let (y, f, u) = case_columns(case);
        let sample = PpiSample {
            labels: &y,
            predictions: &f,
            unlabelled: &u,
        };
        let got = ppi_mean(&sample, &options(case)).expect(name);
        check_outputs(name, &got, case);
    }
}

#[test]
fn paired_comparisons_equal_numpy_within_1e_12() {
    let fixture = load();
    let cases = fixture["paired_cases"].as_array().expect("paired cases");
    assert!(cases.len() >= 5);
    for case in cases {
        let name = case["name"].as_str().expect("name");
        let (by, bf, bu) = case_columns(&case["baseline"]);
        let (cy, cf, cu) = case_columns(&case["candidate"]);
        let baseline = PpiSample {
            labels: &by,
            predictions: &bf,
            unlabelled: &bu,
        };
        let candidate = PpiSample {
            labels: &cy,
            predictions: &cf,
            unlabelled: &cu,
        };
        let options = options(case);
        let got = ppi_paired(&baseline, &candidate, &options).expect(name);
        check_outputs(
            &format!("{name} difference"),
            &got.difference,
            &case["difference"],
        );
        check_outputs(
            &format!("{name} baseline"),
            &got.baseline,
            &case["baseline_mean"],
        );
        check_outputs(
            &format!("{name} candidate"),
            &got.candidate,
            &case["candidate_mean"],
        );
        let z = bits(&case["z_bits"]);
        assert!((got.z - z).abs() <= 1e-10 * z.abs().max(1.0), "{name} z");
        assert_close(&format!("{name} p"), got.p_value, number(&case["p_value"]));
        // The test and the interval agree.
        let excludes_zero =
            got.difference.interval.lower > 0.0 || got.difference.interval.upper < 0.0;
        assert_eq!(got.p_value < 1.0 - options.level, excludes_zero, "{name}");
    }
}

/// Labels of a metric-like column, deterministic.
fn column(n: usize, shift: usize) -> Vec<f64> {
    (0..n)
        .map(|i| f64::from(u32::try_from((i * 7 + shift) % 11).expect("small")) / 10.0)
        .collect()
}

#[test]
fn perfect_predictions_give_an_interval_no_wider_than_the_classical_one() {
    // f = y on the labelled queries, the unlabelled predictions from the
    // same distribution (here: copies of the labels), so that PPI++'s λ is
    // near N / (n + N) and the variance at most the classical one.
    let y = column(40, 3);
    let unlabelled: Vec<f64> = (0..5).flat_map(|_| y.iter().copied()).collect();
    let sample = PpiSample {
        labels: &y,
        predictions: &y,
        unlabelled: &unlabelled,
    };
    for lambda in [Lambda::Tuned, Lambda::Fixed(1.0)] {
        let got = ppi_mean(
            &sample,
            &PpiOptions {
                level: 0.95,
                lambda,
            },
        )
        .expect("valid");
        let width = got.interval.upper - got.interval.lower;
        let classical = got.classical.interval.upper - got.classical.interval.lower;
        assert!(width <= classical, "{lambda:?}: {width} > {classical}");
        assert!(got.standard_error <= got.classical.standard_error);
        // Labelled mean = unlabelled mean: the rectifier is (1 - λ) mean(y).
        assert!((got.estimate - got.classical.mean).abs() < 1e-15);
    }
}

#[test]
fn lambda_zero_is_the_human_only_mean_and_interval() {
    let y = column(30, 1);
    let f: Vec<f64> = y.iter().map(|v| v + 0.3).collect();
    let u = column(200, 5);
    let sample = PpiSample {
        labels: &y,
        predictions: &f,
        unlabelled: &u,
    };
    let got = ppi_mean(
        &sample,
        &PpiOptions {
            level: 0.9,
            lambda: Lambda::Fixed(0.0),
        },
    )
    .expect("valid");
    assert_eq!(got.lambda, 0.0);
    assert!(!got.lambda_tuned);
    assert_eq!(got.estimate, got.classical.mean);
    assert_eq!(got.standard_error, got.classical.standard_error);
    assert_eq!(got.interval, got.classical.interval);
    assert_eq!(got.imputed.count, 230);
}

#[test]
fn a_constant_bias_is_removed_exactly() {
    // Predictions = labels + 0.25 everywhere, λ = 1: the rectifier is -0.25,
    // the estimate the unlabelled queries' mean label.
    let labels = [0.5, 0.25, 1.0, 0.75];
    let hidden = [0.0, 0.5, 0.5, 1.0, 0.25, 0.75];
    let predictions: Vec<f64> = labels.iter().map(|v| v + 0.25).collect();
    let unlabelled: Vec<f64> = hidden.iter().map(|v| v + 0.25).collect();
    let got = ppi_mean(
        &PpiSample {
            labels: &labels,
            predictions: &predictions,
            unlabelled: &unlabelled,
        },
        &PpiOptions {
            level: 0.95,
            lambda: Lambda::Fixed(1.0),
        },
    )
    .expect("valid");
    assert_eq!(got.estimate, 0.5);
    // The judge-only mean: all ten predictions, biased by 0.25.
    assert!((got.imputed.mean - (0.55 + 0.25)).abs() < 1e-15);
}

#[test]
fn constant_predictions_tune_lambda_to_zero() {
    let y = column(20, 2);
    let got = ppi_mean(
        &PpiSample {
            labels: &y,
            predictions: &[2.5; 20],
            unlabelled: &[2.5; 50],
        },
        &PpiOptions::default(),
    )
    .expect("valid");
    assert_eq!(got.lambda, 0.0);
    assert_eq!(got.interval, got.classical.interval);
}

#[test]
fn equal_systems_differ_by_exactly_zero() {
    let y = column(25, 4);
    let f = column(25, 6);
    let u = column(80, 1);
    let sample = PpiSample {
        labels: &y,
        predictions: &f,
        unlabelled: &u,
    };
    let got = ppi_paired(&sample, &sample, &PpiOptions::default()).expect("valid");
    assert_eq!(got.difference.estimate, 0.0);
    assert_eq!(got.difference.standard_error, 0.0);
    assert_eq!((got.z, got.p_value), (0.0, 1.0));
    assert_eq!(got.baseline, got.candidate);
}

#[test]
fn from_queries_splits_by_the_presence_of_a_human_label() {
    let predictions = [0.1, 0.2, 0.3, 0.4, 0.5];
    let labels = [None, Some(0.0), None, Some(1.0), None];
    let columns = PpiColumns::from_queries(&predictions, &labels).expect("valid");
    assert_eq!(columns.labels, [0.0, 1.0]);
    assert_eq!(columns.predictions, [0.2, 0.4]);
    assert_eq!(columns.unlabelled, [0.1, 0.3, 0.5]);
    let sample = columns.sample();
    assert_eq!(sample.unlabelled.len(), 3);
    ppi_mean(&sample, &PpiOptions::default()).expect("valid");

    assert_eq!(
        PpiColumns::from_queries(&predictions, &labels[..4]),
        Err(CompareError::PpiLengthMismatch {
            side: None,
            labels: 4,
            predictions: 5
        })
    );
    let nan = PpiColumns::from_queries(&[0.1, 0.2], &[None, Some(f64::NAN)]).unwrap_err();
    assert!(matches!(
        nan,
        CompareError::NotFinitePpi {
            side: None,
            column: PpiColumn::Labels,
            index: 1,
            ..
        }
    ));
    let inf = PpiColumns::from_queries(&[0.1, f64::INFINITY], &[None, None]).unwrap_err();
    assert!(matches!(
        inf,
        CompareError::NotFinitePpi {
            column: PpiColumn::Predictions,
            index: 1,
            ..
        }
    ));
}

#[test]
fn invalid_inputs_are_errors() {
    let y = [0.1, 0.5, 0.9];
    let f = [0.2, 0.4, 1.0];
    let u = [0.3, 0.6];
    let ok = PpiSample {
        labels: &y,
        predictions: &f,
        unlabelled: &u,
    };
    let default = PpiOptions::default();
    let mean = |s: PpiSample<'_>| ppi_mean(&s, &default).unwrap_err();

    assert_eq!(
        mean(PpiSample {
            labels: &[],
            predictions: &[],
            ..ok
        }),
        CompareError::TooFewLabelled {
            side: None,
            labelled: 0
        }
    );
    assert_eq!(
        mean(PpiSample {
            labels: &y[..1],
            predictions: &f[..1],
            ..ok
        }),
        CompareError::TooFewLabelled {
            side: None,
            labelled: 1
        }
    );
    assert_eq!(
        mean(PpiSample {
            unlabelled: &[],
            ..ok
        }),
        CompareError::NoUnlabelled { side: None }
    );
    assert_eq!(
        mean(PpiSample {
            predictions: &f[..2],
            ..ok
        }),
        CompareError::PpiLengthMismatch {
            side: None,
            labels: 3,
            predictions: 2
        }
    );
    let nan = [0.3, f64::NAN];
    assert!(matches!(
        mean(PpiSample { unlabelled: &nan, ..ok }),
        CompareError::NotFinitePpi { column: PpiColumn::Unlabelled, index: 1, value, .. }
            if value.is_nan()
    ));
    let inf = [0.2, f64::NEG_INFINITY, 1.0];
    assert!(matches!(
        mean(PpiSample {
            predictions: &inf,
            ..ok
        }),
        CompareError::NotFinitePpi {
            column: PpiColumn::Predictions,
            index: 1,
            ..
        }
    ));
    for level in [0.0, 1.0, -0.5, 1.5, f64::NAN] {
        let options = PpiOptions { level, ..default };
        assert!(matches!(
            ppi_mean(&ok, &options),
            Err(CompareError::InvalidLevel { .. })
        ));
        assert!(matches!(
            ppi_paired(&ok, &ok, &options),
            Err(CompareError::InvalidLevel { .. })
        ));
    }
    for lambda in [f64::NAN, f64::INFINITY] {
        let options = PpiOptions {
            lambda: Lambda::Fixed(lambda),
            ..default
        };
        assert!(matches!(
            ppi_mean(&ok, &options),
            Err(CompareError::InvalidLambda { .. })
        ));
    }

    // Paired: each system's own errors name it; the systems must match.
    let short = PpiSample {
        labels: &y[..1],
        predictions: &f[..1],
        ..ok
    };
    assert_eq!(
        ppi_paired(&ok, &short, &default).unwrap_err(),
        CompareError::TooFewLabelled {
            side: Some(Side::Candidate),
            labelled: 1
        }
    );
    let bad = PpiSample {
        labels: &[0.1, f64::NAN, 0.2],
        ..ok
    };
    assert!(matches!(
        ppi_paired(&bad, &ok, &default).unwrap_err(),
        CompareError::NotFinitePpi {
            side: Some(Side::Baseline),
            column: PpiColumn::Labels,
            ..
        }
    ));
    let fewer = PpiSample {
        unlabelled: &u[..1],
        ..ok
    };
    assert_eq!(
        ppi_paired(&ok, &fewer, &default).unwrap_err(),
        CompareError::PpiSystemsMismatch {
            column: PpiColumn::Unlabelled,
            baseline: 2,
            candidate: 1
        }
    );
    let two = PpiSample {
        labels: &y[..2],
        predictions: &f[..2],
        ..ok
    };
    assert_eq!(
        ppi_paired(&two, &ok, &default).unwrap_err(),
        CompareError::PpiSystemsMismatch {
            column: PpiColumn::Labels,
            baseline: 2,
            candidate: 3
        }
    );
    // The messages say which system.
    let message = CompareError::TooFewLabelled {
        side: Some(Side::Baseline),
        labelled: 1,
    }
    .to_string();
    assert_eq!(
        message,
        "prediction-powered inference needs at least 2 human-labelled queries of the baseline, got 1"
    );
}
