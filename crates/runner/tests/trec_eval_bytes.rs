//! `rankeval trec_eval` against trec_eval's own test suite: for every
//! command of `data/trec_eval/README.md`, the output equals trec_eval 10's
//! expected file byte for byte.

use std::ffi::OsString;

use rankeval_runner::cli::trec_eval;

use crate::common::data;

/// Runs `trec_eval args...` (files relative to `data/trec_eval`) and
/// compares with `expected`, showing the first differing line.
fn check(args: &[&str], expected: &str) {
    let args: Vec<OsString> = args
        .iter()
        .map(|a| {
            if a.starts_with("qrels.") || a.starts_with("results.") {
                data(&format!("trec_eval/{a}")).into_os_string()
            } else {
                OsString::from(a)
            }
        })
        .collect();
    let mut out = Vec::new();
    trec_eval::run(&args, &mut out).unwrap();
    let got = String::from_utf8(out).unwrap();
    let want = std::fs::read_to_string(data(&format!("trec_eval/{expected}"))).unwrap();
    if got != want {
        let first = got
            .lines()
            .zip(want.lines())
            .enumerate()
            .find(|(_, (g, w))| g != w);
        panic!(
            "{expected}: {} lines vs {} expected; first difference: {first:?}",
            got.lines().count(),
            want.lines().count()
        );
    }
}

#[test]
fn out_test_official() {
    check(&["qrels.test", "results.test"], "out.test");
}

#[test]
fn out_test_a_all_trec() {
    check(
        &["-m", "all_trec", "qrels.test", "results.test"],
        "out.test.a",
    );
}

#[test]
fn out_test_aq_per_query() {
    check(
        &["-m", "all_trec", "-q", "qrels.test", "results.test"],
        "out.test.aq",
    );
}

#[test]
fn out_test_aqc_complete() {
    check(
        &["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"],
        "out.test.aqc",
    );
}

#[test]
fn out_test_aql_level_and_relstring() {
    check(
        &[
            "-m",
            "all_trec",
            "-mrelstring.20",
            "-q",
            "-l2",
            "qrels.rel_level",
            "results.test",
        ],
        "out.test.aql",
    );
}

#[test]
fn out_test_meas_params() {
    check(
        &[
            "-q",
            "-miprec_at_recall..10,.20,.25,.75,.50",
            "-m",
            "P.5,7,3",
            "-m",
            "recall.20,2000",
            "-m",
            "Rprec_mult.5.0,0.2,0.35",
            "-mutility.2,-1,0,0",
            "-m",
            "11pt_avg..25,.5,.75",
            "-mndcg.1=3,2=9,4=4.5",
            "-mndcg_cut.10,20,23.4",
            "-msuccess.2,5,20",
            "qrels.test",
            "results.test",
        ],
        "out.test.meas_params",
    );
}
