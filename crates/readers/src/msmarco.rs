//! MS MARCO's run layout: `qid<TAB>pid<TAB>rank`, three fields and no
//! header, as MS MARCO's passage and document ranking files and their
//! baselines give them (`run.dev.small.tsv`). A query's list is ordered by
//! rank ascending; the rank is stored as the score `-rank`, so two equal
//! ranks tie and are broken as tied scores are (document id descending).
//! MS MARCO's qrels (`qrels.dev.tsv`: `qid 0 pid grade`, tabs) are TREC
//! qrels and are read by the TREC reader.

use rankeval_core::RunBuilder;

use super::Format;
use super::error::{LineError, ReadErrorKind, excerpt};
use super::fields::Fields;
use super::lines::{LineCounts, LineParser, RunLines, RunSink};
use super::trec::run_push_error;

/// What an MS MARCO run line looks like, for messages.
pub(crate) const MSMARCO_RUN_LINE: &str = "3 fields: query document rank";

/// Parses MS MARCO run lines.
pub(crate) struct MsmarcoRun;

impl LineParser for MsmarcoRun {
    type Sink = RunBuilder;

    fn sink(&self) -> RunBuilder {
        RunBuilder::new()
    }

    fn sink_for(&self, _lines: usize, bytes: usize) -> RunBuilder {
        // A line has at least 6 bytes; ids are most of it.
        RunBuilder::with_capacity(bytes / 6 + 1, bytes / 3)
    }

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

impl RunLines for MsmarcoRun {
    fn parse_into<S: RunSink>(
        &self,
        sink: &mut S,
        line: &[u8],
        number: u64,
    ) -> Result<(), LineError> {
        let mut fields = Fields::new(line);
        let (Some(query), Some(doc), Some(rank), None) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            return Err(LineError::new(
                number,
                ReadErrorKind::FieldCount {
                    expected: MSMARCO_RUN_LINE,
                    found: Fields::new(line).count(),
                },
            ));
        };
        let rank = std::str::from_utf8(rank)
            .ok()
            .and_then(|r| r.parse::<u64>().ok())
            .filter(|&r| r >= 1)
            .ok_or_else(|| {
                LineError::new(
                    number,
                    ReadErrorKind::BadNumber {
                        field: "rank",
                        text: excerpt(rank),
                        expected: "a rank, an integer from 1",
                    },
                )
            })?;
        sink.push_scored_at(query, doc, -(rank as f64), number)
            .map_err(|e| LineError::new(number, run_push_error(e)))
    }
}

/// The layout of a headerless MS MARCO file named `*.tsv`, told by its
/// first line: `qid 0 pid grade` (4 fields, the 2nd and 4th numbers) is
/// TREC qrels, `qid pid rank` (3 fields, the 3rd an integer) an MS MARCO
/// run. A CSV header
/// line never looks like either (its fields are names), so any other
/// first line leaves the file to the CSV reader. Only a plain file is
/// looked at (not gzip, not a pipe).
pub(crate) fn sniff_tsv(path: &std::path::Path) -> Option<Format> {
    use std::io::Read;
    // Only a regular file is looked into: opening a FIFO would wait for a
    // writer, and reading its first line would take it from the reader.
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let mut head = Vec::with_capacity(4096);
    file.take(4096).read_to_end(&mut head).ok()?;
    if head.starts_with(&[0x1f, 0x8b]) {
        return None;
    }
    let line = head
        .split(|&b| b == b'\n')
        .find(|l| !l.trim_ascii().is_empty())?;
    let fields: Vec<&[u8]> = Fields::new(line).collect();
    let number =
        |f: &[u8]| std::str::from_utf8(f).is_ok_and(|t| t.parse::<f64>().is_ok_and(f64::is_finite));
    let integer = |f: &[u8]| !f.is_empty() && f.iter().all(u8::is_ascii_digit);
    match fields[..] {
        [_, iteration, _, grade] if number(iteration) && number(grade) => Some(Format::Trec),
        [_, _, rank] if integer(rank) => Some(Format::Msmarco),
        _ => None,
    }
}
