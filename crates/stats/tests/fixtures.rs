//! Loading the JSON fixtures of `tests/data/`.

use serde_json::Value;

/// The whole of `tests/data/<name>`.
pub fn file(name: &str) -> Value {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The `cases` array of `tests/data/<name>`.
pub fn cases(name: &str) -> Vec<Value> {
    file(name)["cases"].as_array().cloned().unwrap_or_default()
}

/// A list of f64 written as IEEE-754 bit patterns.
pub fn floats(value: &Value) -> Vec<f64> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {value}"))
        .iter()
        .map(|v| f64::from_bits(v.as_u64().unwrap_or_else(|| panic!("not bits: {v}"))))
        .collect()
}

/// A plain JSON number.
pub fn number(value: &Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("not a number: {value}"))
}

/// `(baseline, candidate)` of a case.
pub fn pair(case: &Value) -> (Vec<f64>, Vec<f64>) {
    (
        floats(&case["baseline_bits"]),
        floats(&case["candidate_bits"]),
    )
}
