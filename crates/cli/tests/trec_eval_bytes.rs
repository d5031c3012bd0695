//! `rankeval trec_eval` against trec_eval's own test suite: for every
//! command of `data/trec_eval/README.md`, the output equals trec_eval 10's
//! expected file byte for byte.

use std::ffi::OsString;

use rankeval_cli::trec_eval;

use crate::common::data;

/// Runs `trec_eval args...` (files relative to `data/trec_eval`) and
/// compares with `expected`, showing the first differing line.
fn check(args: &[&str], expected: &str) {
    let args: Vec<OsString> = args
        .iter()
        .map(|a| {
            if a.starts_with("qrels.") || a.starts_with("results.") || a.starts_with("zscores.") {
                data(&format!("trec_eval/{a}")).into_os_string()
            } else if let Some(file) = a.strip_prefix("--Zscore=") {
                let mut long = OsString::from("--Zscore=");
                long.push(data(&format!("trec_eval/{file}")));
                long
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

// -Z: `zscores.test` and the `*Z` expected files are not trec_eval's; the
// expected files were printed by trec_eval 10 (built from source, -O0) on
// that file, which gives 301 and 302 most all_trec measures, leaves some
// out for 302 (bpref, P_30, ndcg_cut_100), has a stddev of 0 at the mean
// (301 num_ret: z = 0) and away from it (302 num_rel: -1000000), and no
// line for 303 (every value -1000000).

#[test]
fn out_test_z_official() {
    check(
        &["-Z", "zscores.test", "qrels.test", "results.test"],
        "out.test.Z",
    );
}

#[test]
fn out_test_aqz_all_trec_zscores() {
    check(
        &[
            "-Z",
            "zscores.test",
            "-m",
            "all_trec",
            "-q",
            "qrels.test",
            "results.test",
        ],
        "out.test.aqZ",
    );
}

#[test]
fn out_test_aqcz_complete_zscores() {
    check(
        &[
            "--Zscore=zscores.test",
            "-m",
            "all_trec",
            "-q",
            "-c",
            "qrels.test",
            "results.trunc",
        ],
        "out.test.aqcZ",
    );
}

/// Some lines of out.test.aqZ from their definition: the raw value of
/// out.test.aq, less the file's mean, over its stddev, printed `%6.4f`
/// after a `Z`.
#[test]
fn z_lines_are_the_raw_values_standardized() {
    let raw = std::fs::read_to_string(data("trec_eval/out.test.aq")).unwrap();
    let z = std::fs::read_to_string(data("trec_eval/out.test.aqZ")).unwrap();
    let file = std::fs::read_to_string(data("trec_eval/zscores.test")).unwrap();
    let value = |text: &str, name: &str, query: &str| -> String {
        text.lines()
            .find_map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                (f[0].trim() == name && f[1] == query).then(|| f[2].to_owned())
            })
            .unwrap()
    };
    let reference = |name: &str, query: &str| -> (f64, f64) {
        file.lines()
            .find_map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                (f[0] == query && f[1] == name)
                    .then(|| (f[2].parse().unwrap(), f[3].parse().unwrap()))
            })
            .unwrap()
    };
    // num_rel_ret is a count: exact in out.test.aq.
    let count: f64 = value(&raw, "num_rel_ret", "302").parse().unwrap();
    let (mean, sd) = reference("num_rel_ret", "302");
    assert_eq!(
        value(&z, "Znum_rel_ret", "302"),
        format!("{:.4}", (count - mean) / sd)
    );
    assert_eq!(value(&z, "Znum_ret", "301"), "0.0000"); // stddev 0, the mean
    assert_eq!(value(&z, "Znum_rel", "302"), "-1000000.0000"); // stddev 0, not
    assert_eq!(value(&z, "Zbpref", "302"), "-1000000.0000"); // no line
    assert_eq!(value(&z, "Zmap", "303"), "-1000000.0000"); // no query
    assert_eq!(value(&z, "Znum_q", "all"), "3.0000");
    assert_eq!(
        value(&z, "relstring", "301"),
        value(&raw, "relstring", "301")
    );
}

#[test]
fn a_bad_zscore_file_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("z.txt");
    std::fs::write(&path, "301 map 0.1 0.2\n301 P_5 x 0.2\n").unwrap();
    let args: Vec<OsString> = vec![
        "-Z".into(),
        path.clone().into_os_string(),
        data("trec_eval/qrels.test").into_os_string(),
        data("trec_eval/results.test").into_os_string(),
    ];
    let error = trec_eval::run(&args, &mut Vec::new()).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "-Z {}, line 2: the mean `x` is not a number (expected `qid measure mean stddev`)",
            path.display()
        )
    );
}
