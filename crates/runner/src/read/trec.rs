//! TREC formats: qrels `query iteration document grade` and runs
//! `query Q0 document rank score tag`, fields separated by spaces or tabs
//! (any byte up to 0x20 separates fields).
//!
//! As in trec_eval, the iteration, `Q0`, rank and tag fields are read but
//! not used (a run's order comes from its scores), and text after a run's
//! sixth field is ignored.

use rankeval_core::{QrelsBuilder, QrelsError, RunBuilder, RunError};

use super::error::{LineError, ReadErrorKind};
use super::fields::{Fields, parse_f64, parse_i64};
use super::lines::{LineParser, RunLines, RunSink};

/// What a qrels line looks like, for messages.
pub(crate) const QRELS_LINE: &str = "4 fields: query iteration document grade";
/// What a run line looks like, for messages.
pub(crate) const RUN_LINE: &str = "6 fields: query Q0 document rank score tag";

/// Parses TREC qrels lines.
pub(crate) struct TrecQrels;

impl LineParser for TrecQrels {
    type Sink = QrelsBuilder;

    fn sink(&self) -> QrelsBuilder {
        QrelsBuilder::new()
    }

    fn sink_for(&self, _lines: usize, bytes: usize) -> QrelsBuilder {
        // A qrels line has at least 8 bytes.
        QrelsBuilder::with_capacity(bytes / 8 + 1, bytes / 3)
    }

    #[inline]
    fn parse(&self, sink: &mut QrelsBuilder, line: &[u8], number: u32) -> Result<(), LineError> {
        let mut fields = Fields::new(line);
        let (Some(query), Some(_iteration), Some(doc), Some(grade), None) = (
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
        ) else {
            return Err(field_count(number, line, QRELS_LINE));
        };
        let grade = parse_i64("grade", grade).map_err(|e| LineError::new(number, e))?;
        sink.push_at(query, doc, grade, number)
            .map_err(|e| LineError::new(number, qrels_push_error(e)))
    }

    fn join(
        &self,
        sink: &mut QrelsBuilder,
        later: QrelsBuilder,
        offset: u32,
    ) -> Result<(), LineError> {
        sink.append(later, offset);
        Ok(())
    }
}

/// Parses TREC run lines.
pub(crate) struct TrecRun;

impl LineParser for TrecRun {
    type Sink = RunBuilder;

    fn sink(&self) -> RunBuilder {
        RunBuilder::new()
    }

    fn sink_for(&self, _lines: usize, bytes: usize) -> RunBuilder {
        // A run line has at least 12 bytes; document ids are a fraction of
        // a line (a guess, grown if short).
        RunBuilder::with_capacity(bytes / 12 + 1, bytes / 4)
    }

    #[inline]
    fn parse(&self, sink: &mut RunBuilder, line: &[u8], number: u32) -> Result<(), LineError> {
        self.parse_into(sink, line, number)
    }

    fn join(&self, sink: &mut RunBuilder, later: RunBuilder, offset: u32) -> Result<(), LineError> {
        sink.append(later, offset);
        Ok(())
    }
}

impl RunLines for TrecRun {
    #[inline]
    fn parse_into<S: RunSink>(
        &self,
        sink: &mut S,
        line: &[u8],
        number: u32,
    ) -> Result<(), LineError> {
        let mut fields = Fields::new(line);
        let (Some(query), Some(_q0), Some(doc), Some(_rank), Some(score)) = (
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
        ) else {
            return Err(field_count(number, line, RUN_LINE));
        };
        // The tag must be there; it and anything after it are not read.
        if !fields.has_more() {
            return Err(field_count(number, line, RUN_LINE));
        }
        push_scored(sink, query, doc, score, number)
    }
}

/// Parses a run line's score and adds the entry.
#[inline]
fn push_scored<S: RunSink>(
    sink: &mut S,
    query: &[u8],
    doc: &[u8],
    score: &[u8],
    number: u32,
) -> Result<(), LineError> {
    let score = parse_f64("score", score).map_err(|e| LineError::new(number, e))?;
    if score.is_nan() {
        return Err(LineError::new(
            number,
            ReadErrorKind::BadNumber {
                field: "score",
                text: "NaN".into(),
                expected: "a number that can be ordered",
            },
        ));
    }
    sink.push_scored_at(query, doc, score, number)
        .map_err(|e| LineError::new(number, run_push_error(e)))
}

fn field_count(number: u32, line: &[u8], expected: &'static str) -> LineError {
    LineError::new(
        number,
        ReadErrorKind::FieldCount {
            expected,
            found: Fields::new(line).count(),
        },
    )
}

/// A core error raised while pushing one entry, as a line problem.
pub(crate) fn run_push_error(error: RunError) -> ReadErrorKind {
    match error {
        RunError::QueryNotUtf8 { .. } => {
            ReadErrorKind::BadField("the query id is not valid UTF-8".into())
        }
        other => ReadErrorKind::Data(other.to_string()),
    }
}

/// A core error raised while pushing one judgement, as a line problem.
pub(crate) fn qrels_push_error(error: QrelsError) -> ReadErrorKind {
    match error {
        QrelsError::QueryNotUtf8 { .. } => {
            ReadErrorKind::BadField("the query id is not valid UTF-8".into())
        }
        QrelsError::GradeOutOfRange { grade, .. } => ReadErrorKind::BadNumber {
            field: "grade",
            text: grade.to_string(),
            expected: "a grade between -2147483647 and 2147483647",
        },
        other => ReadErrorKind::Data(other.to_string()),
    }
}
