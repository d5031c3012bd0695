//! The impression log reader: each layout and format, and every bad input
//! an error naming file, line or row, column and problem.

use super::*;

fn parse(text: &str, options: &ImpressionOptions) -> Result<ImpressionLog, ImpressionError> {
    parse_impressions(text.as_bytes(), "log.csv", options)
}

fn error(text: &str, options: &ImpressionOptions) -> String {
    parse(text, options).unwrap_err().to_string()
}

fn bandit() -> ImpressionOptions {
    ImpressionOptions::default()
}

fn slates(form: PropensityForm, reward: RewardPer) -> ImpressionOptions {
    ImpressionOptions {
        form,
        reward,
        ..ImpressionOptions::default()
    }
}

#[test]
fn a_bandit_csv() {
    let log = parse(
        "context,impression,item,reward,propensity\nu1,1,a,1,0.5\nu1,2,b,0,0.25\n",
        &bandit(),
    )
    .unwrap();
    assert_eq!(log.impressions.len(), 2);
    assert_eq!(log.slate_len, 1);
    let second = &log.impressions.get(1).unwrap().to_impression();
    assert_eq!(log.text(second.items[0]), "b");
    assert_eq!(second.rewards, vec![0.0]);
    assert_eq!(second.propensities, vec![0.25]);
    assert_eq!(second.at, RowAt::Line(3));
}

#[test]
fn per_position_rows_in_any_order_make_slates() {
    let text = "context\timpression\titem\tposition\treward\tpropensity\n\
                q\ti1\tb\t2\t0\t0.5\n\
                q\ti1\ta\t1\t1\t0.25\n\
                q\ti2\tc\t1\t0\t0.5\n\
                q\ti2\td\t2\t1\t1\n";
    let log = parse(text, &slates(PropensityForm::Marginal, RewardPer::Position)).unwrap();
    assert_eq!(log.slate_len, 2);
    let first = &log.impressions.get(0).unwrap().to_impression();
    assert_eq!(log.text(first.items[0]), "a");
    assert_eq!(first.rewards, vec![1.0, 0.0]);
    assert_eq!(first.propensities, vec![0.25, 0.5]);
    assert_eq!(first.at, RowAt::Line(2));
}

#[test]
fn json_lines_with_list_columns() {
    let text = r#"{"context": "q", "impression": 7, "item": ["a", "b"], "reward": [1, 0], "propensity": [0.5, 0.5], "p_target": [1, 0.25]}
{"context": "q", "impression": 8, "item": ["c", "a"], "reward": [0, 0], "propensity": [0.5, 1], "p_target": [0, 1]}"#;
    let mut options = slates(PropensityForm::Cascade, RewardPer::Position);
    options.columns.target = Some("p_target".into());
    let log = parse(text, &options).unwrap();
    assert_eq!(log.impressions.len(), 2);
    assert_eq!(
        log.text(log.impressions.get(0).unwrap().to_impression().id),
        "7"
    );
    assert_eq!(
        log.impressions.get(0).unwrap().to_impression().target,
        Some(vec![1.0, 0.25])
    );
    // A slate-level reward and propensity.
    let text = r#"{"context": "q", "impression": "x", "item": ["a", "b"], "reward": 2.5, "propensity": 0.125}"#;
    let log = parse(text, &slates(PropensityForm::Slate, RewardPer::Impression)).unwrap();
    assert_eq!(
        log.impressions.get(0).unwrap().to_impression().rewards,
        vec![2.5]
    );
    assert_eq!(
        log.impressions.get(0).unwrap().to_impression().propensities,
        vec![0.125]
    );
}

#[test]
fn bad_propensities_name_file_line_and_column() {
    let head = "context,impression,item,reward,propensity\n";
    for (row, expected) in [
        (
            "u,1,a,1,0",
            "log.csv, line 2, column `propensity`: propensity 0: a logged item must have had a positive probability (0 < p <= 1)",
        ),
        (
            "u,1,a,1,1.5",
            "log.csv, line 2, column `propensity`: propensity 1.5 is not a probability in (0, 1]",
        ),
        (
            "u,1,a,1,",
            "log.csv, line 2, column `propensity`: missing (empty or null)",
        ),
        (
            "u,1,a,1,NaN",
            "log.csv, line 2, column `propensity`: propensity NaN is not a probability in (0, 1]",
        ),
        (
            "u,1,a,1e400,0.5",
            "log.csv, line 2, column `reward`: reward 1e400 is not a finite number",
        ),
        (
            "u,1,a,1,x",
            "log.csv, line 2, column `propensity`: `x` is not a number",
        ),
        (
            "u,,a,1,0.5",
            "log.csv, line 2, column `impression`: missing (empty or null)",
        ),
        ("u,1,a b,1,0.5", "log.csv, line 2, column `item`:"),
        ("u,1,a,1", "log.csv, line 2: 4 fields, but the header has 5"),
    ] {
        let got = error(&format!("{head}{row}\n"), &bandit());
        assert!(got.starts_with(expected), "{got}\n  expected {expected}");
    }
}

#[test]
fn rewards_outside_the_declared_range() {
    let options = ImpressionOptions {
        reward_range: Some((0.0, 1.0)),
        ..bandit()
    };
    assert_eq!(
        error(
            "context,impression,item,reward,propensity\nu,1,a,2,0.5\n",
            &options
        ),
        "log.csv, line 2, column `reward`: reward 2 is outside the declared range [0, 1]"
    );
}

#[test]
fn duplicates_lengths_and_missing_columns() {
    assert_eq!(
        error(
            "context,impression,item,reward,propensity\nu,1,a,1,0.5\nv,1,b,0,0.5\n",
            &bandit()
        ),
        "log.csv, line 3, column `impression`: impression `1` again (first at line 2): impression ids are unique"
    );
    let text = r#"{"context": "q", "impression": 1, "item": ["a", "b"], "reward": 1, "propensity": 0.5}
{"context": "q", "impression": 2, "item": ["a"], "reward": 1, "propensity": 0.5}"#;
    assert_eq!(
        error(text, &slates(PropensityForm::Slate, RewardPer::Impression)),
        "log.csv, line 2, column `item`: impression `2` shows 1 items, but the first impression (line 1) shows 2: every slate of a log has one length"
    );
    let text = r#"{"context": "q", "impression": 1, "item": ["a", "b"], "reward": [1], "propensity": 0.5}"#;
    assert_eq!(
        error(text, &slates(PropensityForm::Slate, RewardPer::Position)),
        "log.csv, line 1, column `reward`: 1 values, but the row shows 2 items (one value per position)"
    );
    assert_eq!(
        error(text, &bandit()),
        "log.csv, line 1, column `item`: 2 items shown, but the propensities are per action (one item per impression): a slate's propensities are of the form slate, marginal or cascade"
    );
    assert_eq!(
        error("context,impression,item,reward\nu,1,a,1\n", &bandit()),
        "log.csv: no column `propensity` in the log (it has: context, impression, item, reward)"
    );
    assert_eq!(
        error("", &bandit()),
        "log.csv: empty: an impression log needs a header (CSV, TSV) or JSON objects"
    );
    assert_eq!(
        error("context,impression,item,reward,propensity\n", &bandit()),
        "log.csv: no impression: the log has a header and no row"
    );
    let long = "context,impression,item,position,reward,propensity\n\
                q,1,a,1,1,0.5\nq,1,b,1,0,0.5\n";
    assert_eq!(
        error(long, &slates(PropensityForm::Marginal, RewardPer::Position)),
        "log.csv, line 3, column `position`: impression `1` has position 1 again (first at line 2)"
    );
    let gap = "context,impression,item,position,reward,propensity\nq,1,a,1,1,0.5\nq,1,b,3,0,0.5\n";
    assert_eq!(
        error(gap, &slates(PropensityForm::Marginal, RewardPer::Position)),
        "log.csv, line 3, column `position`: impression `1` has no position 2 (its positions go 1, 2, ... without gaps)"
    );
    let disagree =
        "context,impression,item,position,reward,propensity\nq,1,a,1,1,0.5\nq,1,b,2,1,0.25\n";
    assert_eq!(
        error(
            disagree,
            &slates(PropensityForm::Slate, RewardPer::Impression)
        ),
        "log.csv, line 3, column `propensity`: 0.25 differs from 0.5 at line 2: a per-impression value is the same on every row of the impression"
    );
}

/// A key given twice in a JSON Lines row, and one column named for two
/// keys, were read silently (the last value won; the rewards read from
/// the propensities).
#[test]
fn a_key_twice_or_a_column_for_two_keys_is_refused() {
    let text = r#"{"context": "q", "impression": 1, "item": "a", "reward": 1, "reward": 0, "propensity": 0.5}"#;
    assert_eq!(
        error(text, &bandit()),
        "log.csv, line 1: not a JSON object: key `reward` appears twice at line 1 column 71"
    );
    let mut options = bandit();
    options.columns.reward = "propensity".into();
    assert_eq!(
        error(
            "context,impression,item,reward,propensity\nu,1,a,1,0.5\n",
            &options
        ),
        "log.csv: `reward` and `propensity` both name the column `propensity`: each key reads a column of its own"
    );
    let mut options = bandit();
    options.columns.target = Some("item".into());
    assert_eq!(options.columns.shared(), Some(("item", "target", "item")));
    assert_eq!(bandit().columns.shared(), None);
}

#[test]
fn hostile_bytes_are_errors_not_panics() {
    for bytes in [
        &b"\0\0\0\0"[..],
        b"{",
        b"{\"impression\": 1e400}",
        b"PAR1garbage",
        b"\xFF\xFF\xFF\xFFxx",
        b"context,impression\n\"unterminated",
        b"\xEF\xBB\xBF",
        b"{\"context\": [[1]], \"impression\": 1, \"item\": {}, \"reward\": true, \"propensity\": null}",
    ] {
        assert!(parse_impressions(bytes, "x", &bandit()).is_err());
    }
}

#[test]
fn a_parquet_log_with_list_columns() {
    use std::sync::Arc;

    use arrow_array::builder::{Float64Builder, ListBuilder, StringBuilder};
    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};

    let mut items = ListBuilder::new(StringBuilder::new());
    let mut rewards = ListBuilder::new(Float64Builder::new());
    let mut props = ListBuilder::new(Float64Builder::new());
    for (i, r, p) in [
        (["a", "b"], [1.0, 0.0], [0.5, 0.5]),
        (["b", "a"], [0.0, 1.0], [0.5, 0.0]),
    ] {
        items.values().append_value(i[0]);
        items.values().append_value(i[1]);
        items.append(true);
        rewards.values().append_slice(&r);
        rewards.append(true);
        props.values().append_slice(&p);
        props.append(true);
    }
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("context", Arc::new(StringArray::from(vec!["q", "q"]))),
        ("impression", Arc::new(Int64Array::from(vec![1, 2]))),
        ("item", Arc::new(items.finish())),
        ("reward", Arc::new(rewards.finish())),
        ("propensity", Arc::new(props.finish())),
    ];
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let mut bytes = Vec::new();
    let mut writer =
        parquet::arrow::ArrowWriter::try_new(&mut bytes, batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let err = parse_impressions(
        &bytes,
        "log.parquet",
        &slates(PropensityForm::Marginal, RewardPer::Position),
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        err,
        "log.parquet, row 2, column `propensity`: item 2 of the list: propensity 0: a logged item must have had a positive probability (0 < p <= 1)"
    );
}

fn clicks(by_rank: bool) -> ImpressionOptions {
    ImpressionOptions {
        propensities_by_rank: by_rank,
        ..slates(PropensityForm::Examination, RewardPer::Position)
    }
}

#[test]
fn a_click_log_per_position_with_and_without_a_propensity_column() {
    let log = parse(
        "context,impression,item,position,reward,propensity\n\
         q,1,b,2,1,0.5\nq,1,a,1,0,1\n",
        &clicks(false),
    )
    .unwrap();
    assert_eq!(log.form, PropensityForm::Examination);
    let imp = &log.impressions.get(0).unwrap().to_impression();
    assert_eq!(imp.rewards, vec![0.0, 1.0]);
    assert_eq!(imp.propensities, vec![1.0, 0.5]);
    // Given per rank: the column is not read, the caller fills them.
    let log = parse(
        "context,impression,item,position,reward\nq,1,b,2,1\nq,1,a,1,0\n",
        &clicks(true),
    )
    .unwrap();
    assert_eq!(
        log.impressions.get(0).unwrap().to_impression().propensities,
        Vec::<f64>::new()
    );
    assert_eq!(
        log.impressions.get(0).unwrap().to_impression().rewards,
        vec![0.0, 1.0]
    );
    // List columns, one row per impression.
    let log = parse_impressions(
        br#"{"context":"q","impression":1,"item":["a","b"],"reward":[1,0]}"#,
        "log.jsonl",
        &clicks(true),
    )
    .unwrap();
    assert_eq!(
        log.impressions.get(0).unwrap().to_impression().rewards,
        vec![1.0, 0.0]
    );
}

#[test]
fn a_click_log_refuses_bad_clicks_propensities_duplicates_and_gaps() {
    let head = "context,impression,item,position,reward,propensity\n";
    let cases = [
        (
            "q,1,a,1,2,1\n",
            "log.csv, line 2, column `reward`: click 2 is not 0 or 1 (a click log's reward per position says whether the item was clicked)",
        ),
        (
            "q,1,a,1,0.5,1\n",
            "log.csv, line 2, column `reward`: click 0.5 is not 0 or 1 (a click log's reward per position says whether the item was clicked)",
        ),
        (
            "q,1,a,1,1,0\n",
            "log.csv, line 2, column `propensity`: propensity 0: a logged item must have had a positive probability (0 < p <= 1)",
        ),
        (
            "q,1,a,1,1,1.5\n",
            "log.csv, line 2, column `propensity`: propensity 1.5 is not a probability in (0, 1]",
        ),
        (
            "q,1,a,1,1,\n",
            "log.csv, line 2, column `propensity`: missing (empty or null)",
        ),
        (
            "q,1,a,1,1,1\nq,1,b,1,0,0.5\n",
            "log.csv, line 3, column `position`: impression `1` has position 1 again (first at line 2)",
        ),
        (
            "q,1,a,1,1,1\nq,1,b,3,0,0.5\n",
            "log.csv, line 3, column `position`: impression `1` has no position 2 (its positions go 1, 2, ... without gaps)",
        ),
    ];
    for (rows, expected) in cases {
        assert_eq!(
            error(&format!("{head}{rows}"), &clicks(false)),
            expected,
            "{rows}"
        );
    }
    assert_eq!(
        error(&format!("{head}q,1,a,1,1,1\n"), &clicks(true)),
        "log.csv: the propensities are given per rank, and the log has a column `propensity` too: one source of propensities (rename the column, or use it)"
    );
}

/// A Parquet log of `n` rows with the given columns, written in one
/// batch (read back in batches of 16,384 rows).
fn parquet_log(columns: Vec<(&str, arrow_array::ArrayRef)>) -> Vec<u8> {
    let batch = arrow_array::RecordBatch::try_from_iter(columns).unwrap();
    let mut bytes = Vec::new();
    let mut writer =
        parquet::arrow::ArrowWriter::try_new(&mut bytes, batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    bytes
}

#[test]
fn a_parquet_log_is_checked_across_its_batches() {
    use std::sync::Arc;

    use arrow_array::{Float64Array, Int64Array, StringArray};

    // 40,000 rows: three batches of the reader. One row per impression: an
    // id of the first batch again in the third is a duplicate, named with
    // both rows; a propensity shown as the float it is.
    let n = 40_000usize;
    let bandit_log = |impressions: Vec<i64>, propensities: Vec<f64>| {
        parquet_log(vec![
            ("context", Arc::new(StringArray::from(vec!["q"; n])) as _),
            ("impression", Arc::new(Int64Array::from(impressions)) as _),
            ("item", Arc::new(StringArray::from(vec!["a"; n])) as _),
            ("reward", Arc::new(Float64Array::from(vec![1.0; n])) as _),
            (
                "propensity",
                Arc::new(Float64Array::from(propensities)) as _,
            ),
        ])
    };
    let ids: Vec<i64> = (0..n as i64).collect();
    let log = parse_impressions(
        &bandit_log(ids.clone(), vec![0.25; n]),
        "log.parquet",
        &bandit(),
    )
    .unwrap();
    assert_eq!(log.impressions.len(), n);
    assert_eq!(
        log.impressions.get(n - 1).unwrap().to_impression().at,
        RowAt::Row(n as u64)
    );
    assert_eq!(
        log.text(log.impressions.get(n - 1).unwrap().to_impression().id),
        (n - 1).to_string()
    );
    let mut again = ids.clone();
    again[35_000] = 7;
    let err = parse_impressions(&bandit_log(again, vec![0.25; n]), "log.parquet", &bandit())
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "log.parquet, row 35001, column `impression`: impression `7` again (first at row 8): \
         impression ids are unique"
    );
    let mut propensities = vec![0.25; n];
    propensities[20_000] = 1.5;
    let err = parse_impressions(&bandit_log(ids, propensities), "log.parquet", &bandit())
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "log.parquet, row 20001, column `propensity`: propensity 1.5 is not a probability in (0, 1]"
    );

    // One row per position: impression 0's two rows are the first and the
    // last of the log, batches apart, and make one slate of two.
    let mut impressions: Vec<i64> = (0..n as i64).map(|i| (i + 1) / 2).collect();
    impressions[n - 1] = 0;
    let positions: Vec<i64> = (0..n as i64)
        .map(|i| {
            if i == 0 {
                1
            } else if i == n as i64 - 1 {
                2
            } else {
                2 - i % 2
            }
        })
        .collect();
    let per_position = parquet_log(vec![
        ("context", Arc::new(StringArray::from(vec!["q"; n])) as _),
        ("impression", Arc::new(Int64Array::from(impressions)) as _),
        ("item", Arc::new(StringArray::from(vec!["a"; n])) as _),
        ("position", Arc::new(Int64Array::from(positions)) as _),
        ("reward", Arc::new(Float64Array::from(vec![1.0; n])) as _),
        (
            "propensity",
            Arc::new(Float64Array::from(vec![0.5; n])) as _,
        ),
    ]);
    let log = parse_impressions(
        &per_position,
        "log.parquet",
        &slates(PropensityForm::Slate, RewardPer::Impression),
    )
    .unwrap();
    assert_eq!(log.impressions.len(), n / 2);
    assert_eq!(log.slate_len, 2);
    assert_eq!(
        log.impressions.get(0).unwrap().to_impression().at,
        RowAt::Row(1)
    );
}

/// A slate log of `n` impressions as Parquet: contexts a dictionary,
/// items lists of strings, rewards lists of numbers, the slate's
/// propensity and a target column; numbers as `f64`, or as text
/// (`as_text`), which only the cell path reads. `edit` changes the rows
/// first (`(context, id, items, rewards, propensity)`).
#[allow(clippy::type_complexity)]
fn slate_parquet(
    n: usize,
    as_text: bool,
    edit: impl Fn(&mut Vec<(String, i64, Option<Vec<Option<String>>>, Vec<f64>, f64)>),
) -> Vec<u8> {
    use std::sync::Arc;

    use arrow_array::builder::{Float64Builder, ListBuilder, StringBuilder};
    use arrow_array::types::Int32Type;
    use arrow_array::{ArrayRef, DictionaryArray, Float64Array, Int64Array, StringArray};

    let mut rows: Vec<_> = (0..n)
        .map(|i| {
            let items = (0..3)
                .map(|k| Some(format!("d{}", (i * 7 + k) % 11)))
                .collect();
            let rewards = (0..3).map(|k| ((i + k) % 3) as f64 * 0.5).collect();
            (
                format!("q{}", i % 13),
                i as i64,
                Some(items),
                rewards,
                1.0 / (1.0 + (i % 5) as f64),
            )
        })
        .collect();
    edit(&mut rows);
    let contexts: DictionaryArray<Int32Type> = rows.iter().map(|r| r.0.as_str()).collect();
    let mut items = ListBuilder::new(StringBuilder::new());
    for r in &rows {
        match &r.2 {
            Some(list) => {
                for item in list {
                    items.values().append_option(item.as_deref());
                }
                items.append(true);
            }
            None => items.append(false),
        }
    }
    let numbers = |values: Vec<f64>| -> ArrayRef {
        if as_text {
            Arc::new(StringArray::from_iter_values(
                values.iter().map(f64::to_string),
            ))
        } else {
            Arc::new(Float64Array::from(values))
        }
    };
    let rewards: ArrayRef = if as_text {
        let mut b = ListBuilder::new(StringBuilder::new());
        for r in &rows {
            for x in &r.3 {
                b.values().append_value(x.to_string());
            }
            b.append(true);
        }
        Arc::new(b.finish())
    } else {
        let mut b = ListBuilder::new(Float64Builder::new());
        for r in &rows {
            for &x in &r.3 {
                b.values().append_value(x);
            }
            b.append(true);
        }
        Arc::new(b.finish())
    };
    parquet_log(vec![
        ("context", Arc::new(contexts) as _),
        (
            "impression",
            Arc::new(Int64Array::from(
                rows.iter().map(|r| r.1).collect::<Vec<_>>(),
            )) as _,
        ),
        ("item", Arc::new(items.finish()) as _),
        ("reward", rewards),
        ("propensity", numbers(rows.iter().map(|r| r.4).collect())),
        ("target", numbers(rows.iter().map(|r| r.4 / 2.0).collect())),
    ])
}

#[test]
fn a_parquet_log_read_from_its_columns_is_the_log_its_cells_give() {
    // Numbers as text go through cells; as floats, straight from the
    // columns: the same log, to every id's number, and the same error,
    // word for word, on every bad row (two batches of the reader).
    let options = ImpressionOptions {
        columns: ImpressionColumns {
            target: Some("target".into()),
            ..ImpressionColumns::default()
        },
        ..slates(PropensityForm::Slate, RewardPer::Position)
    };
    let read = |bytes: Vec<u8>| parse_impressions(&bytes, "log.parquet", &options);
    let n = 20_000;
    let direct = read(slate_parquet(n, false, |_| {})).unwrap();
    let cells = read(slate_parquet(n, true, |_| {})).unwrap();
    assert_eq!(direct.impressions, cells.impressions);
    assert_eq!(direct.ids.len(), cells.ids.len());
    for id in 0..direct.ids.len() as u32 {
        assert_eq!(direct.ids.resolve(id), cells.ids.resolve(id));
    }
    assert_eq!(direct.slate_len, 3);
    let first = direct.impressions.get(1).unwrap().to_impression();
    assert_eq!(first.rewards, vec![0.5, 1.0, 0.0]);
    assert_eq!(first.target, Some(vec![0.25]));

    type Rows = Vec<(String, i64, Option<Vec<Option<String>>>, Vec<f64>, f64)>;
    type Edit = Box<dyn Fn(&mut Rows)>;
    let cases: Vec<(&str, Edit)> = vec![
        ("duplicate", Box::new(|r: &mut Rows| r[19_000].1 = 17)),
        (
            "null item",
            Box::new(|r: &mut Rows| {
                if let Some(items) = &mut r[17_000].2 {
                    items[1] = None;
                }
            }),
        ),
        ("null list", Box::new(|r: &mut Rows| r[5].2 = None)),
        (
            "empty id",
            Box::new(|r: &mut Rows| r[18_500].0 = String::new()),
        ),
        (
            "id with a space",
            Box::new(|r: &mut Rows| r[3].0 = "a b".into()),
        ),
        (
            "short slate",
            Box::new(|r: &mut Rows| {
                if let Some(items) = &mut r[16_500].2 {
                    items.pop();
                }
                r[16_500].3.pop();
            }),
        ),
        (
            "bad reward",
            Box::new(|r: &mut Rows| r[16_400].3[2] = f64::INFINITY),
        ),
        (
            "zero propensity",
            Box::new(|r: &mut Rows| r[19_999].4 = 0.0),
        ),
        (
            "rewards too few",
            Box::new(|r: &mut Rows| {
                r[12].3.pop();
            }),
        ),
    ];
    for (what, edit) in cases {
        let direct = read(slate_parquet(n, false, &edit))
            .unwrap_err()
            .to_string();
        let cells = read(slate_parquet(n, true, &edit)).unwrap_err().to_string();
        assert_eq!(direct, cells, "{what}");
        assert!(direct.starts_with("log.parquet, row "), "{what}: {direct}");
    }
}
