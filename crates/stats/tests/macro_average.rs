//! A suite's macro average against the numpy reference of
//! `scripts/data/compare.py` (`tests/data/macro.json`, a generated
//! three-dataset suite): the macro average to the last bits, the stratified
//! bootstrap's standard error against its exact value, its percentile
//! interval and the randomization p-value of the paired comparison within
//! Monte Carlo error of numpy's (the spread of numpy's bounds over 20 seeds
//! is stored with them).

use rankeval_stats::{macro_average, macro_mean_interval, macro_paired};
use serde_json::Value;

use crate::fixtures::{floats, number};

fn fixture() -> Value {
    let path = format!("{}/tests/data/macro.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).expect("macro.json")).expect("JSON")
}

fn strata(case: &Value) -> Vec<Vec<f64>> {
    case["strata_bits"]
        .as_array()
        .expect("strata")
        .iter()
        .map(floats)
        .collect()
}

/// Within `k` standard deviations of two independent Monte Carlo
/// estimates, each with standard deviation `sd`.
fn within(what: &str, got: f64, want: f64, sd: f64) {
    let tolerance = 5.0 * 2f64.sqrt() * sd;
    assert!(
        (got - want).abs() <= tolerance,
        "{what}: {got} against numpy's {want}, |diff| {} > {tolerance}",
        (got - want).abs()
    );
}

#[test]
fn macro_average_and_its_stratified_interval_are_numpys() {
    let data = fixture();
    let resamples = data["resamples"].as_u64().expect("resamples");
    let level = number(&data["level"]);
    let case = &data["system"];
    let columns = strata(case);
    let slices: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
    assert_eq!(
        columns.iter().map(Vec::len).collect::<Vec<_>>(),
        [50, 200, 20]
    );
    let value = macro_average(&slices);
    assert!((value - number(&case["macro"])).abs() <= 4.0 * f64::EPSILON);
    let ours = macro_mean_interval(&slices, level, resamples, 42).expect("valid");
    assert_eq!(ours.value, value);
    let exact = number(&case["exact_standard_error"]);
    // The standard deviation of a standard deviation from B draws is about
    // se / sqrt(2 (B - 1)).
    let se_sd = exact / (2.0 * (resamples - 1) as f64).sqrt();
    assert!(
        (ours.standard_error - exact).abs() <= 5.0 * se_sd,
        "standard error {} against the exact {exact}",
        ours.standard_error
    );
    within(
        "lower",
        ours.interval.lower,
        number(&case["lower"]),
        number(&case["lower_sd"]),
    );
    within(
        "upper",
        ours.interval.upper,
        number(&case["upper"]),
        number(&case["upper_sd"]),
    );
}

#[test]
fn the_paired_comparison_across_the_suite_is_numpys() {
    let data = fixture();
    let resamples = data["resamples"].as_u64().expect("resamples");
    let level = number(&data["level"]);
    let case = &data["difference"];
    let columns = strata(case);
    let slices: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
    let ours = macro_paired(&slices, level, resamples, 42).expect("valid");
    assert!((ours.difference.value - number(&case["macro"])).abs() <= 4.0 * f64::EPSILON);
    within(
        "lower",
        ours.difference.interval.lower,
        number(&case["lower"]),
        number(&case["lower_sd"]),
    );
    within(
        "upper",
        ours.difference.interval.upper,
        number(&case["upper"]),
        number(&case["upper_sd"]),
    );
    let p = number(&case["p_value"]);
    assert!(
        p > 0.01 && p < 0.99,
        "the fixture's difference is neither null nor obvious: {p}"
    );
    within("p-value", ours.p_value, p, number(&case["p_value_sd"]));
}
