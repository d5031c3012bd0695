//! One judge's qrels from a table that several judges share: a column of
//! grades per judge (an LLM's, people's), empty where that judge gave no
//! grade. Read with [`read_judge_qrels`](crate::read_judge_qrels), a row
//! whose grade is empty (a CSV field of nothing but spaces, a JSON `null`, a
//! Parquet or Arrow null) is a pair this judge did not judge: it is left out
//! of the qrels and counted ([`UngradedRows`]), its ids still checked. Every
//! other reader refuses such a row, naming it.

use std::fmt;

use rankeval_core::{Qrels, QrelsBuilder};

use crate::QrelsNote;

/// What an empty grade means to a reader of qrels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum EmptyGrade {
    /// An error naming the line or row (every reader but
    /// [`read_judge_qrels`](crate::read_judge_qrels)).
    #[default]
    Refused,
    /// The pair was not judged: left out, counted.
    Unjudged,
}

/// Where a row of a table is: a line of a text file (CSV, TSV, JSON Lines),
/// or a row of a Parquet or Arrow table, counted from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowAt {
    /// A line of a text table.
    Line(u64),
    /// A row of a Parquet or Arrow table.
    Row(u64),
}

impl fmt::Display for RowAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RowAt::Line(line) => write!(f, "line {line}"),
            RowAt::Row(row) => write!(f, "row {row}"),
        }
    }
}

/// The rows of a table left out because their grade was empty (or null):
/// how many, and where the first is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UngradedRows {
    /// How many rows.
    pub count: u64,
    /// The first of them, in the order of the input.
    pub first: Option<RowAt>,
}

impl UngradedRows {
    /// Whether no row was left out.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// One judge's qrels read from a shared table, with what was left out.
#[derive(Clone, Debug)]
pub struct JudgeQrels {
    /// The judgements this judge gave.
    pub qrels: Qrels,
    /// What the user should be told about the qrels (a table without a
    /// grade column), as [`read_qrels_noted`](crate::read_qrels_noted) gives it.
    pub note: Option<QrelsNote>,
    /// The rows whose grade was empty or null: pairs this judge did not
    /// judge.
    pub ungraded: UngradedRows,
}

/// Where the rows of a piece of qrels go: a builder, and the count of the
/// rows left out as not judged, with the first one's line or row (as
/// numbered where it was read: a piece's lines from 1, shifted when
/// pieces are joined).
#[derive(Default)]
pub(crate) struct QrelsRows {
    pub(crate) qrels: QrelsBuilder,
    count: u64,
    first: Option<u64>,
}

impl QrelsRows {
    /// Rows going into `qrels`.
    pub(crate) fn new(qrels: QrelsBuilder) -> Self {
        Self {
            qrels,
            count: 0,
            first: None,
        }
    }

    /// Counts the row at `at` as not judged.
    #[inline]
    pub(crate) fn skip(&mut self, at: u64) {
        self.count += 1;
        if self.first.is_none_or(|first| at < first) {
            self.first = Some(at);
        }
    }

    /// Appends the next piece's rows, its line numbers shifted by `offset`.
    pub(crate) fn append(&mut self, later: QrelsRows, offset: u64) {
        self.qrels.append(later.qrels, offset);
        self.count += later.count;
        if let Some(first) = later.first {
            self.skip_counted(first.saturating_add(offset));
        }
    }

    /// Keeps `at` as the first row left out if it is earlier.
    fn skip_counted(&mut self, at: u64) {
        if self.first.is_none_or(|first| at < first) {
            self.first = Some(at);
        }
    }

    /// The builder, and the rows left out, each at a place made by `at`.
    pub(crate) fn into_parts(self, at: fn(u64) -> RowAt) -> (QrelsBuilder, UngradedRows) {
        (
            self.qrels,
            UngradedRows {
                count: self.count,
                first: self.first.map(at),
            },
        )
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::Arc;

    use arrow_array::builder::{Float64Builder, ListBuilder, StringBuilder};
    use arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray};

    use super::*;
    use crate::{CsvOptions, Format, Input, read_judge_qrels, read_qrels};

    fn judge(input: Input, grade: &str) -> JudgeQrels {
        let columns = CsvOptions {
            grade: grade.to_owned(),
            ..CsvOptions::default()
        };
        read_judge_qrels(&input.with_columns(columns), &|_| {}).unwrap()
    }

    fn pairs(qrels: &Qrels) -> Vec<(String, String, f64)> {
        let mut all = Vec::new();
        for (q, query) in qrels.queries().enumerate() {
            for (doc, grade) in qrels.judgements(q as u32) {
                all.push((
                    query.to_owned(),
                    String::from_utf8_lossy(doc).into_owned(),
                    grade,
                ));
            }
        }
        all
    }

    fn owned(rows: &[(&str, &str, f64)]) -> Vec<(String, String, f64)> {
        rows.iter()
            .map(|(q, d, g)| ((*q).to_owned(), (*d).to_owned(), *g))
            .collect()
    }

    const CSV: &str = "user,item,llm,human\nq1,a,1,\nq1,b,0,  \nq2,c,,2\nq2,d,2,\"\"\n";

    #[test]
    fn empty_csv_fields_are_pairs_not_judged_and_counted() {
        let input = || Input::bytes("t.csv", CSV, Format::Csv);
        let human = judge(input(), "human");
        assert_eq!(pairs(&human.qrels), owned(&[("q2", "c", 2.0)]));
        assert_eq!(
            human.ungraded,
            UngradedRows {
                count: 3,
                first: Some(RowAt::Line(2)),
            }
        );
        let llm = judge(input(), "llm");
        assert_eq!(
            pairs(&llm.qrels),
            owned(&[("q1", "a", 1.0), ("q1", "b", 0.0), ("q2", "d", 2.0)])
        );
        assert_eq!(llm.ungraded.first, Some(RowAt::Line(4)));
        assert_eq!(llm.ungraded.count, 1);
        // Every other reader refuses the empty field, naming it.
        let refused = read_qrels(&input().with_columns(CsvOptions {
            grade: "human".into(),
            ..CsvOptions::default()
        }))
        .unwrap_err();
        assert_eq!(refused.to_string(), "t.csv:2: column `human` is empty");
        // An unjudged row's ids are checked all the same.
        let bad = "user,item,human\nq1,a b,\n";
        let e = read_judge_qrels(
            &Input::bytes("t.csv", bad, Format::Csv).with_columns(CsvOptions {
                grade: "human".into(),
                ..CsvOptions::default()
            }),
            &|_| {},
        )
        .unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
    }

    /// Lines are counted across the pieces a large input is parsed in.
    #[test]
    fn the_first_empty_grade_is_found_past_the_first_piece() {
        let mut csv = "user,item,grade\n".to_owned();
        for i in 0..300_000 {
            let grade = if i == 150_000 || i == 250_000 {
                ""
            } else {
                "1"
            };
            csv.push_str(&format!("q{i},d{i},{grade}\n"));
        }
        let read = judge(Input::bytes("big.csv", csv, Format::Csv), "grade");
        assert_eq!(
            read.ungraded,
            UngradedRows {
                count: 2,
                first: Some(RowAt::Line(150_002)),
            }
        );
        assert_eq!(read.qrels.num_judgements(), 299_998);
    }

    #[test]
    fn json_nulls_are_pairs_not_judged() {
        let rows = "{\"user\": \"q1\", \"item\": \"a\", \"human\": null}\n\
                    {\"user\": \"q1\", \"item\": \"b\", \"human\": 1}\n\
                    {\"user\": \"q2\", \"item\": \"c\", \"human\": null}\n";
        let input = || Input::bytes("t.jsonl", rows, Format::Jsonl);
        let read = judge(input(), "human");
        assert_eq!(pairs(&read.qrels), owned(&[("q1", "b", 1.0)]));
        assert_eq!(
            read.ungraded,
            UngradedRows {
                count: 2,
                first: Some(RowAt::Line(1)),
            }
        );
        let refused = read_qrels(&input().with_columns(CsvOptions {
            grade: "human".into(),
            ..CsvOptions::default()
        }))
        .unwrap_err();
        assert_eq!(refused.line, Some(1), "{refused}");
        // A key left out is not a null: the row is malformed.
        let absent = "{\"user\": \"q1\", \"item\": \"a\", \"human\": 1}\n\
                      {\"user\": \"q1\", \"item\": \"b\"}\n";
        let e = read_judge_qrels(
            &Input::bytes("t.jsonl", absent, Format::Jsonl).with_columns(CsvOptions {
                grade: "human".into(),
                ..CsvOptions::default()
            }),
            &|_| {},
        )
        .unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
    }

    fn parquet(batch: &RecordBatch) -> Vec<u8> {
        let mut out = Vec::new();
        let mut writer =
            parquet::arrow::ArrowWriter::try_new(&mut out, batch.schema(), None).unwrap();
        writer.write(batch).unwrap();
        writer.close().unwrap();
        out
    }

    #[test]
    fn parquet_and_arrow_nulls_are_pairs_not_judged() {
        let batch = RecordBatch::try_from_iter([
            (
                "user",
                Arc::new(StringArray::from(vec!["q1", "q1", "q2"])) as ArrayRef,
            ),
            (
                "item",
                Arc::new(StringArray::from(vec!["a", "b", "c"])) as _,
            ),
            (
                "human",
                Arc::new(Float64Array::from(vec![None, Some(2.0), None])) as _,
            ),
        ])
        .unwrap();
        let bytes = parquet(&batch);
        let read = judge(
            Input::bytes("t.parquet", bytes.clone(), Format::Parquet),
            "human",
        );
        assert_eq!(pairs(&read.qrels), owned(&[("q1", "b", 2.0)]));
        assert_eq!(
            read.ungraded,
            UngradedRows {
                count: 2,
                first: Some(RowAt::Row(1)),
            }
        );
        let refused = read_qrels(
            &Input::bytes("t.parquet", bytes, Format::Parquet).with_columns(CsvOptions {
                grade: "human".into(),
                ..CsvOptions::default()
            }),
        )
        .unwrap_err();
        assert!(refused.to_string().contains("null"), "{refused}");
        // Arrow IPC, the same rows.
        let mut ipc = Vec::new();
        let mut writer = arrow_ipc::writer::FileWriter::try_new(&mut ipc, &batch.schema()).unwrap();
        writer.write(&batch).unwrap();
        writer.finish().unwrap();
        drop(writer);
        let read = judge(Input::bytes("t.arrow", ipc, Format::Arrow), "human");
        assert_eq!(pairs(&read.qrels), owned(&[("q1", "b", 2.0)]));
        assert_eq!(read.ungraded.count, 2);
    }

    /// A list of grades: a null item is a document not judged; a list of
    /// nulls only leaves its query out (an empty list declares it).
    #[test]
    fn null_items_of_a_list_of_grades_are_documents_not_judged() {
        let mut items = ListBuilder::new(StringBuilder::new());
        let mut grades = ListBuilder::new(Float64Builder::new());
        for (docs, values) in [
            (vec!["a", "b"], vec![Some(1.0), None]),
            (vec!["c"], vec![None]),
            (vec![], vec![]),
        ] {
            for d in docs {
                items.values().append_value(d);
            }
            items.append(true);
            for v in values {
                grades.values().append_option(v);
            }
            grades.append(true);
        }
        let batch = RecordBatch::try_from_iter([
            (
                "user",
                Arc::new(StringArray::from(vec!["q1", "q2", "q3"])) as ArrayRef,
            ),
            ("items", Arc::new(items.finish()) as _),
            ("human", Arc::new(grades.finish()) as _),
        ])
        .unwrap();
        let read = judge(
            Input::bytes("t.parquet", parquet(&batch), Format::Parquet),
            "human",
        );
        assert_eq!(pairs(&read.qrels), owned(&[("q1", "a", 1.0)]));
        let queries: Vec<&str> = read.qrels.queries().collect();
        assert_eq!(queries, ["q1", "q3"]);
        assert_eq!(
            read.ungraded,
            UngradedRows {
                count: 2,
                first: Some(RowAt::Row(1)),
            }
        );
    }
}
