//! Any bytes as per-query results (`rankeval report`'s RESULTS, `eval
//! --baseline FILE`): as a JSON report and as a Parquet table (the bytes
//! between Parquet's magic, when they do not start with it already). Runs
//! or an error naming the input, never a panic. Seeds in `seeds/results`
//! hold a JSON report and a Parquet table (with page checksums) to mutate.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut inputs = vec![data.to_vec()];
    if !data.starts_with(b"PAR1") {
        inputs.push([&b"PAR1"[..], data, &b"PAR1"[..]].concat());
    }
    for input in inputs {
        if let Err(error) = rankeval::compare::parse_all_results(input, "fuzz.input") {
            let text = error.to_string();
            assert!(text.starts_with("results file fuzz.input: "), "{text}");
        }
    }
});
