//! TREC formats: qrels `query iteration document grade` and runs
//! `query Q0 document rank score tag`, fields separated by spaces or tabs
//! (any byte up to 0x20 separates fields).
//!
//! As in trec_eval, the iteration, `Q0`, rank and tag fields are read but
//! not used (a run's order comes from its scores), and text after a run's
//! sixth field is ignored. As in trec_eval 10, a line whose first byte
//! other than whitespace (space, tab, CR, VT, FF) is `#` is a comment,
//! skipped in qrels and runs (an ir_metadata block heads runs from TIREx
//! and repro_eval); see [`is_comment`] for where trec_eval 10 differs.

use rankeval_core::{QrelsBuilder, QrelsError, QrelsPart, QrelsParts, RunBuilder, RunError};

use super::error::{LineError, ReadErrorKind, excerpt};
use super::fields::{Fields, Window, decimal_at, parse_f64};
use super::grade::parse_grade;
use super::lines::{LineCounts, LineParser, RunLines, RunSink, each_line};

/// What a qrels line looks like, for messages.
pub(crate) const QRELS_LINE: &str = "4 fields: query iteration document grade";
/// What a run line looks like, for messages.
pub(crate) const RUN_LINE: &str = "6 fields: query Q0 document rank score tag";

/// Parses TREC qrels lines.
pub(crate) struct TrecQrels;

/// Qrels being read: the piece being parsed, then the finished piece,
/// then (in the sink of the whole input) the qrels' columns that each
/// finished piece is copied into as it is joined.
#[derive(Debug, Default)]
pub(crate) struct QrelsSink {
    /// The lines of the piece being parsed.
    builder: QrelsBuilder,
    /// The piece, finished, until it is joined.
    finished: Option<QrelsPart>,
    /// Every piece joined so far, in input order.
    pub(crate) parts: QrelsParts,
}

impl LineParser for TrecQrels {
    type Sink = QrelsSink;

    fn sink(&self) -> QrelsSink {
        QrelsSink::default()
    }

    fn sink_for(&self, _lines: usize, bytes: usize) -> QrelsSink {
        // A qrels line has at least 8 bytes.
        QrelsSink {
            builder: QrelsBuilder::with_capacity(bytes / 8 + 1, bytes / 3),
            ..QrelsSink::default()
        }
    }

    #[inline]
    fn parse(&self, sink: &mut QrelsSink, line: &[u8], number: u64) -> Result<(), LineError> {
        if is_comment(line) {
            return Ok(());
        }
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
        check_ids(query, doc, number)?;
        push_judgement(&mut sink.builder, query, doc, grade, number)
    }

    fn parse_piece(&self, sink: &mut QrelsSink, piece: &[u8]) -> Result<LineCounts, LineError> {
        each_line(
            piece,
            sink,
            |sink, rest, number| {
                let Some(line) = qrels_line(rest) else {
                    return Ok(None);
                };
                push_judgement(&mut sink.builder, line.query, line.doc, line.grade, number)?;
                Ok(Some(line.length))
            },
            |sink, line, number| self.parse(sink, line, number),
        )
    }

    /// Checks the piece's judgements while they are in the cache.
    fn end_piece(&self, sink: &mut QrelsSink) -> Result<(), LineError> {
        let builder = std::mem::take(&mut sink.builder);
        if !builder.is_empty() {
            sink.finished = Some(builder.finish_part());
        }
        Ok(())
    }

    /// Copies the piece into the qrels' columns, and frees it.
    fn join(&self, sink: &mut QrelsSink, later: QrelsSink, offset: u64) -> Result<(), LineError> {
        if let Some(part) = later.finished {
            sink.parts.push(part, offset);
        }
        Ok(())
    }

    /// A piece's builder takes several times its bytes when queries are
    /// tiny (a query table entry and a list per line): one piece per thread
    /// at a time, each copied into the columns and freed before the next.
    fn pieces_at_once(&self) -> usize {
        rayon::current_num_threads()
    }

    /// The whole input's sink holds columns, never a piece of its own.
    fn first(&self, piece: QrelsSink, line_offset: u64) -> Result<QrelsSink, LineError> {
        let mut sink = self.sink();
        self.join(&mut sink, piece, line_offset)?;
        Ok(sink)
    }
}

/// The fields of a qrels line of the usual shape.
struct QrelsLine<'a> {
    query: &'a [u8],
    doc: &'a [u8],
    grade: &'a [u8],
    /// The line's length, without its newline.
    length: usize,
}

/// The qrels line at the start of `bytes`, if it has the usual shape: four
/// fields, the first at the start of the line and the last right before
/// the newline, all within 64 bytes. Any other line is left to the general
/// path, which gives the same result or the error.
#[inline]
fn qrels_line(bytes: &[u8]) -> Option<QrelsLine<'_>> {
    if bytes.first() == Some(&b'#') {
        return None; // A comment: the general path skips it.
    }
    let window = Window::new(bytes)?;
    let [query, _iteration, doc, grade] = window.fields()?;
    // A line with a byte past ASCII (or DEL) is checked on the general path.
    if !window.plain_ascii(bytes) {
        return None;
    }
    (grade.end == window.line_end()).then(|| QrelsLine {
        query: &bytes[query],
        doc: &bytes[doc],
        length: grade.end,
        grade: &bytes[grade],
    })
}

/// Whether `id` is plain ASCII (no byte of 0x7F or more): the usual id,
/// which needs no other check in a TREC file, whose fields hold no byte up
/// to 0x20.
#[inline(always)]
fn plain_ascii(id: &[u8]) -> bool {
    !id.iter().fold(false, |past, &b| past | (b >= 0x7f))
}

/// Refuses a query or document id against the one id rule
/// ([`rankeval_core::check_id`]): in a TREC file, a DEL, a C1 control or
/// Unicode whitespace (the bytes up to 0x20 separate fields).
#[inline]
fn check_ids(query: &[u8], doc: &[u8], number: u64) -> Result<(), LineError> {
    for (id, field) in [(query, "query"), (doc, "document")] {
        if !plain_ascii(id) {
            rankeval_core::check_id(id).map_err(|bad| {
                LineError::new(
                    number,
                    ReadErrorKind::BadField(format!("{field} id: {bad}")),
                )
            })?;
        }
    }
    Ok(())
}

/// Whether `line` is a comment: its first byte other than C's `isspace`
/// (space, tab, CR, vertical tab, form feed) is `#`. trec_eval 10 skips a
/// run line so (get_trec_results.c: `isspace` bytes, then `#`, any number
/// of lines, anywhere); in qrels it skips only a line whose first byte is
/// `#` and not following another comment, and fails on one at the end of
/// the file (get_qrels.c): rankeval skips every comment line of both, and
/// docs/trec_eval.md lists the qrels trec_eval 10 refuses or misreads. A
/// `#` after the first field is data (`doc#1`), as in trec_eval.
#[inline]
fn is_comment(line: &[u8]) -> bool {
    line.iter()
        .find(|&&b| !matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c))
        == Some(&b'#')
}

/// Parses a qrels line's grade and adds the judgement.
#[inline(always)]
fn push_judgement(
    sink: &mut QrelsBuilder,
    query: &[u8],
    doc: &[u8],
    grade: &[u8],
    number: u64,
) -> Result<(), LineError> {
    let grade = parse_grade(grade).map_err(|expected| {
        LineError::new(
            number,
            ReadErrorKind::BadNumber {
                field: "grade",
                text: excerpt(grade),
                expected,
            },
        )
    })?;
    sink.push_at(query, doc, grade, number)
        .map_err(|e| LineError::new(number, qrels_push_error(e)))
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
    fn parse(&self, sink: &mut RunBuilder, line: &[u8], number: u64) -> Result<(), LineError> {
        self.parse_into(sink, line, number)
    }

    fn parse_piece(&self, sink: &mut RunBuilder, piece: &[u8]) -> Result<LineCounts, LineError> {
        self.parse_piece_into(sink, piece)
    }

    fn join(&self, sink: &mut RunBuilder, later: RunBuilder, offset: u64) -> Result<(), LineError> {
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
        number: u64,
    ) -> Result<(), LineError> {
        if is_comment(line) {
            return Ok(());
        }
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
        check_ids(query, doc, number)?;
        push_scored(sink, query, doc, score, number)
    }

    fn parse_piece_into<S: RunSink>(
        &self,
        sink: &mut S,
        piece: &[u8],
    ) -> Result<LineCounts, LineError> {
        each_line(
            piece,
            sink,
            |sink, rest, number| {
                let Some(line) = run_line(rest) else {
                    return Ok(None);
                };
                match decimal_at(rest, line.score.start, line.score.end) {
                    Some(score) => sink
                        .push_decimal_at(line.query, line.doc, score, number)
                        .map_err(|e| LineError::new(number, run_push_error(e)))?,
                    None => push_scored(sink, line.query, line.doc, &rest[line.score], number)?,
                }
                match sink.take_failure() {
                    Some(failure) => Err(failure),
                    None => Ok(Some(line.length)),
                }
            },
            |sink, line, number| {
                self.parse_into(sink, line, number)?;
                sink.take_failure().map_or(Ok(()), Err)
            },
        )
    }
}

/// The fields of a run line of the usual shape that are read.
struct RunLine<'a> {
    query: &'a [u8],
    doc: &'a [u8],
    /// Where the score is in the line.
    score: std::ops::Range<usize>,
    /// The line's length, without its newline.
    length: usize,
}

/// The run line at the start of `bytes`, if it has the usual shape: six
/// fields or more, the first at the start of the line, all within 64
/// bytes. Any other line is left to the general path, which gives the same
/// result or the error.
#[inline]
fn run_line(bytes: &[u8]) -> Option<RunLine<'_>> {
    if bytes.first() == Some(&b'#') {
        return None; // A comment: the general path skips it.
    }
    let window = Window::new(bytes)?;
    // The tag must be there; it and anything after it are not read.
    let [query, _q0, doc, _rank, score, _tag] = window.fields()?;
    // A line with a byte past ASCII (or DEL) is checked on the general path.
    if !window.plain_ascii(bytes) {
        return None;
    }
    Some(RunLine {
        query: &bytes[query],
        doc: &bytes[doc],
        score,
        length: window.line_end(),
    })
}

/// Parses a run line's score and adds the entry.
#[inline]
fn push_scored<S: RunSink>(
    sink: &mut S,
    query: &[u8],
    doc: &[u8],
    score: &[u8],
    number: u64,
) -> Result<(), LineError> {
    let value = parse_f64("score", score).map_err(|e| LineError::new(number, e))?;
    if value.is_nan() {
        return Err(LineError::new(
            number,
            ReadErrorKind::BadNumber {
                field: "score",
                text: excerpt(score),
                expected: "a number that can be ordered",
            },
        ));
    }
    sink.push_scored_at(query, doc, value, number)
        .map_err(|e| LineError::new(number, run_push_error(e)))
}

fn field_count(number: u64, line: &[u8], expected: &'static str) -> LineError {
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
        QrelsError::InvalidGrade { grade, reason, .. } => ReadErrorKind::BadNumber {
            field: "grade",
            text: super::grade::shown(grade),
            expected: super::grade::expected(reason),
        },
        other => ReadErrorKind::Data(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one id rule holds in TREC files too: DEL, a C1 control (CSI,
    /// U+009B) or Unicode whitespace in an id is refused, on the fast path's
    /// lines and the general path's alike; other non-ASCII ids are read.
    #[test]
    fn ids_with_control_characters_are_refused_in_qrels_and_runs() {
        let qrels = |text: &str| {
            let mut sink = TrecQrels.sink();
            TrecQrels
                .parse_piece(&mut sink, text.as_bytes())
                .map(|_| ())
        };
        let run = |text: &str| {
            let mut sink = RunBuilder::new();
            TrecRun
                .parse_piece_into(&mut sink, text.as_bytes())
                .map(|_| ())
        };
        for bad in ["q\u{7f}1", "q\u{9b}1", "q\u{2028}1", "q\u{a0}1"] {
            for line in [format!("{bad} 0 d 1\n"), format!("q 0 {bad} 1\n")] {
                let error = qrels(&line).unwrap_err();
                assert_eq!(error.line, 1);
                assert!(
                    error.kind.to_string().contains("ids cannot contain"),
                    "{line:?}"
                );
            }
            let line = format!("q Q0 {bad} 1 2.5 tag\n");
            assert!(run(&line).is_err(), "{line:?}");
            // The general path (a leading space leaves the fast path).
            assert!(run(&format!(" {line}")).is_err(), "{line:?}");
        }
        qrels("q\u{e9} 0 d\u{e9} 1\n").unwrap();
        run("q\u{e9} Q0 d\u{e9} 1 2.5 tag\n").unwrap();
    }

    /// A comment is a line whose first byte other than C's whitespace is
    /// `#` (trec_eval 10's get_trec_results.c), in runs and qrels; a `#`
    /// later in a line is data.
    #[test]
    fn comment_lines_are_skipped_and_a_later_hash_is_data() {
        let comments = "#\n# ir_metadata.start\n  # x\n\t\r\x0b\x0c# y z\n";
        let mut run = Entries::default();
        TrecRun
            .parse_piece_into(
                &mut run,
                format!("{comments}q Q0 d#1 1 2 t#\n{comments}").as_bytes(),
            )
            .unwrap();
        assert_eq!(
            run.0,
            [("q".to_owned(), "d#1".to_owned(), 2f64.to_bits(), 5)]
        );
        let mut qrels = TrecQrels.sink();
        TrecQrels
            .parse_piece(
                &mut qrels,
                format!("{comments}q 0 d#1 1\n{comments}").as_bytes(),
            )
            .unwrap();
        assert_eq!(qrels.builder.len(), 1);
        // A line whose first field starts with `#` after other text is not
        // a comment: `q#` is a query id.
        let mut run = Entries::default();
        TrecRun
            .parse_piece_into(&mut run, b"q# Q0 d 1 2 t\n")
            .unwrap();
        assert_eq!(run.0[0].0, "q#");
    }

    /// Records every entry pushed, to compare two ways of parsing.
    #[derive(Debug, Default, PartialEq)]
    struct Entries(Vec<(String, String, u64, u64)>);

    impl RunSink for Entries {
        fn push_scored_at(
            &mut self,
            query: &[u8],
            doc: &[u8],
            score: f64,
            at: u64,
        ) -> Result<(), RunError> {
            let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            self.0.push((text(query), text(doc), score.to_bits(), at));
            Ok(())
        }
    }

    /// The outcome of parsing `piece` a line at a time, through the
    /// general path only.
    fn line_by_line<S>(
        piece: &[u8],
        sink: &mut S,
        parse: impl Fn(&mut S, &[u8], u64) -> Result<(), LineError>,
    ) -> Result<LineCounts, String> {
        each_line(piece, sink, |_, _, _| Ok(None), parse)
            .map_err(|e| format!("{}: {}", e.line, e.kind))
    }

    /// Random lines of both formats, most of the usual shape and some not:
    /// tabs, runs of spaces, `\r\n`, leading blanks, blank lines, long
    /// lines, scores the fast path leaves alone, no final newline; with
    /// `errors`, now and then extra or missing fields and bad numbers.
    fn random_lines(seed: u64, run: bool, errors: bool) -> Vec<u8> {
        let mut state = seed;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let mut text = Vec::new();
        for line in 0..400 {
            let separator = |next: &mut dyn FnMut(u64) -> u64| match next(12) {
                0 => "\t",
                1 => "  ",
                2 => " \t ",
                _ => " ",
            };
            let mut fields: Vec<String> = vec![
                format!("q{}", line / 7),
                if run { "Q0".into() } else { "0".into() },
                format!("doc-{}", next(1000)),
            ];
            if run {
                fields.push(format!("{}", line % 7 + 1));
                fields.push(match next(20) {
                    0 => "1e-3".into(),
                    1 => "-0".into(),
                    2 if errors => "x1".into(),
                    3 => "12345678.123456789".into(),
                    _ => format!("{}.{:06}", next(100), next(1_000_000)),
                });
                fields.push(if next(15) == 0 {
                    "a-very-long-run-tag-that-pushes-the-line-past-sixty-four-bytes".into()
                } else {
                    "tag".into()
                });
            } else {
                fields.push(match next(20) {
                    0 => "-1".into(),
                    1 if errors => "2.5".into(),
                    _ => format!("{}", next(4)),
                });
            }
            match next(if errors { 30 } else { 1 << 40 }) {
                0 => {
                    fields.pop();
                }
                1 => fields.push("extra".into()),
                _ => {}
            }
            if run && next(30) == 0 {
                // Text after the tag is ignored.
                fields.push("more text".into());
            }
            if next(25) == 0 {
                text.extend_from_slice(b"  ");
            }
            for (i, field) in fields.iter().enumerate() {
                if i > 0 {
                    text.extend_from_slice(separator(&mut next).as_bytes());
                }
                text.extend_from_slice(field.as_bytes());
            }
            match next(20) {
                0 => text.extend_from_slice(b"\r\n"),
                1 => text.extend_from_slice(b" \n"),
                2 => text.extend_from_slice(b"\n\n"),
                _ => text.push(b'\n'),
            }
            // Comment lines, after whitespace or not, some shaped like data.
            const COMMENTS: [&[u8]; 6] = [
                b"# ir_metadata.start\n",
                b"#\n",
                b"  # a comment\n",
                b"\t\r# q1 Q0 d 1 2 tag\n",
                b"#q1 0 d 1\n",
                b"\x0b\x0c#\r\n",
            ];
            if next(16) == 0 {
                text.extend_from_slice(COMMENTS[next(6) as usize]);
            }
        }
        if next(2) == 0 {
            text.pop();
        }
        text
    }

    #[test]
    fn the_fast_path_for_run_lines_parses_like_the_general_one() {
        for seed in 1..200 {
            let text = random_lines(seed * 0x9E37_79B9, true, seed % 4 == 0);
            // Every prefix that ends at a line boundary, so that errors are
            // compared too (the first bad line ends the parse).
            let mut fast = Entries::default();
            let fast_result = TrecRun
                .parse_piece_into(&mut fast, &text)
                .map_err(|e| format!("{}: {}", e.line, e.kind));
            let mut slow = Entries::default();
            let slow_result = line_by_line(&text, &mut slow, |sink, line, number| {
                TrecRun.parse_into(sink, line, number)
            });
            assert_eq!(fast, slow, "seed {seed}");
            match (fast_result, slow_result) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(
                        (a.data_lines, a.newlines),
                        (b.data_lines, b.newlines),
                        "seed {seed}"
                    );
                }
                (a, b) => assert_eq!(a.err(), b.err(), "seed {seed}"),
            }
        }
    }

    #[test]
    fn the_fast_path_for_qrels_lines_parses_like_the_general_one() {
        let describe = |sink: QrelsSink| {
            let mut parts = sink.parts;
            if let Some(part) = sink.finished {
                parts.push(part, 0);
            }
            parts.push(sink.builder.finish_part(), 0);
            match parts.finish() {
                Ok(qrels) => format!(
                    "{:?}",
                    qrels
                        .queries()
                        .enumerate()
                        .map(|(q, name)| (name.to_owned(), qrels.ideal_grades(q as u32).to_vec()))
                        .collect::<Vec<_>>()
                ),
                Err(e) => e.to_string(),
            }
        };
        for seed in 1..200 {
            let text = random_lines(seed * 0x2545_F491, false, seed % 4 == 0);
            let mut fast = QrelsSink::default();
            let fast_result = TrecQrels
                .parse_piece(&mut fast, &text)
                .map_err(|e| format!("{}: {}", e.line, e.kind));
            let mut slow = QrelsSink::default();
            let slow_result = line_by_line(&text, &mut slow, |sink, line, number| {
                TrecQrels.parse(sink, line, number)
            });
            match (fast_result, slow_result) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(
                        (a.data_lines, a.newlines),
                        (b.data_lines, b.newlines),
                        "seed {seed}"
                    );
                    assert_eq!(describe(fast), describe(slow), "seed {seed}");
                }
                (a, b) => assert_eq!(a.err(), b.err(), "seed {seed}"),
            }
        }
    }
}
