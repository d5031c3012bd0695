//! Ids beyond ASCII: a Korean query id and run name keep the terminal table
//! aligned (a Hangul syllable takes two columns).

use super::{run_in, scratch, transcript};

#[test]
fn wide_query_ids_stay_aligned() {
    let dir = scratch(&[
        ("qrels.txt", "검색어 0 a 1\nq2 0 c 2\n"),
        (
            "모델.trec",
            "검색어 Q0 a 1 0.9 t\nq2 Q0 c 2 0.7 t\nq2 Q0 d 1 0.8 t\n",
        ),
    ]);
    let args = [
        "eval",
        "--qrels",
        "qrels.txt",
        "--run",
        "모델.trec",
        "-m",
        "p@1",
        "-m",
        "ndcg@10",
        "--per-query",
    ];
    let result = run_in(dir.path(), &args);
    assert_eq!(result.0, 0, "{result:?}");
    insta::assert_snapshot!("table_korean_query_id", transcript(&args, result));
}
