//! Parsing a line-oriented input in parallel.
//!
//! A reader thread reads the input in large blocks, each cut after its last
//! newline, into two buffers used in turn, so that reading the next block
//! overlaps parsing this one. Each block is split into pieces at line
//! boundaries; pieces are parsed in parallel, each into its own sink (a
//! builder) with line numbers counted from 1, and the sinks are joined in
//! input order, shifted by the lines before them. The result, the line
//! numbers and the first error reported are the same whatever the number of
//! threads.

use std::io::{self, Read};
use std::sync::mpsc;

use rayon::prelude::*;

use super::error::LineError;
use super::fields::is_blank;

/// Bytes read per block. Large enough to keep every thread busy, small
/// enough that the block is a fraction of the memory the parsed data takes.
const BLOCK: usize = 32 << 20;
/// Target size of one piece parsed by one task.
const PIECE: usize = 1 << 20;

/// Why parsing stopped.
#[derive(Debug)]
pub(crate) enum Failure {
    /// Reading the input failed.
    Io(io::Error),
    /// A line is wrong.
    Line(LineError),
}

impl From<LineError> for Failure {
    fn from(e: LineError) -> Self {
        Failure::Line(e)
    }
}

/// How to parse one format into one kind of sink.
pub(crate) trait LineParser: Sync {
    /// What one piece's lines are collected into.
    type Sink: Send;
    /// A new, empty sink.
    fn sink(&self) -> Self::Sink;
    /// A new, empty sink sized for a piece of `lines` lines and `bytes` bytes.
    fn sink_for(&self, lines: usize, bytes: usize) -> Self::Sink {
        let _ = (lines, bytes);
        self.sink()
    }
    /// Parses one non-blank line, numbered `number` within its piece, into `sink`.
    fn parse(&self, sink: &mut Self::Sink, line: &[u8], number: u32) -> Result<(), LineError>;
    /// Appends `later` (the next piece's sink, numbered from 1) to `sink`,
    /// adding `line_offset` to its line numbers. Errors name absolute lines.
    fn join(
        &self,
        sink: &mut Self::Sink,
        later: Self::Sink,
        line_offset: u32,
    ) -> Result<(), LineError>;
    /// Called in the piece's task after its last line: a chance to finish
    /// work on the piece while it is in the cache. Errors name piece lines.
    fn end_piece(&self, sink: &mut Self::Sink) -> Result<(), LineError> {
        let _ = sink;
        Ok(())
    }
    /// The first piece's sink as the start of the whole input's.
    fn first(&self, piece: Self::Sink, line_offset: u32) -> Result<Self::Sink, LineError> {
        if line_offset == 0 {
            Ok(piece)
        } else {
            let mut sink = self.sink();
            self.join(&mut sink, piece, line_offset)?;
            Ok(sink)
        }
    }
}

/// What a whole input parsed into.
pub(crate) struct Parsed<S> {
    pub(crate) sink: S,
    /// Number of non-blank lines.
    pub(crate) data_lines: u64,
}

/// Parses every line of `input` with `parser`; `progress` is told how many
/// bytes each block held.
pub(crate) fn parse_lines<P: LineParser>(
    input: &mut (dyn Read + Send),
    parser: &P,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Parsed<P::Sink>, Failure> {
    parse_lines_from(input, parser, progress, 1)
}

/// A block of whole lines, from the reader thread.
struct Block {
    bytes: Vec<u8>,
    last: bool,
}

/// [`parse_lines`] for input whose first lines (a header) were read already:
/// the first line of `input` is numbered `first_line`.
pub(crate) fn parse_lines_from<P: LineParser>(
    input: &mut (dyn Read + Send),
    parser: &P,
    progress: &(dyn Fn(u64) + Sync),
    first_line: u32,
) -> Result<Parsed<P::Sink>, Failure> {
    std::thread::scope(|scope| {
        let (full_tx, full_rx) = mpsc::sync_channel::<io::Result<Block>>(1);
        let (empty_tx, empty_rx) = mpsc::channel::<Vec<u8>>();
        for _ in 0..2 {
            let _ = empty_tx.send(Vec::new());
        }
        scope.spawn(move || read_blocks(input, &full_tx, &empty_rx));
        let mut offset = first_line.saturating_sub(1);
        let mut joined: Option<P::Sink> = None;
        let mut data_lines = 0u64;
        for block in full_rx {
            let block = block.map_err(Failure::Io)?;
            let results: Vec<Result<Piece<P::Sink>, LineError>> = split_pieces(&block.bytes)
                .into_par_iter()
                .map(|piece| parse_piece(parser, piece))
                .collect();
            for result in results {
                let piece = result.map_err(|e| e.shifted(offset))?;
                data_lines += piece.data_lines;
                match &mut joined {
                    None => joined = Some(parser.first(piece.sink, offset)?),
                    Some(all) => parser.join(all, piece.sink, offset)?,
                }
                offset = offset.saturating_add(piece.newlines);
            }
            progress(block.bytes.len() as u64);
            let last = block.last;
            // The reader may have stopped already; then the buffer is not needed.
            let _ = empty_tx.send(block.bytes);
            if last {
                break;
            }
        }
        Ok(Parsed {
            sink: joined.unwrap_or_else(|| parser.sink()),
            data_lines,
        })
    })
}

/// The reader thread: fills the buffers it is given with whole lines.
fn read_blocks(
    input: &mut (dyn Read + Send),
    full: &mpsc::SyncSender<io::Result<Block>>,
    empty: &mpsc::Receiver<Vec<u8>>,
) {
    let mut carry: Vec<u8> = Vec::new();
    // Stops when the parser has gone (a closed channel).
    while let Ok(mut buffer) = empty.recv() {
        buffer.clear();
        buffer.append(&mut carry);
        let (cut, last) = loop {
            let want = BLOCK.max(buffer.len() + PIECE) - buffer.len();
            match (&mut *input).take(want as u64).read_to_end(&mut buffer) {
                Err(error) => {
                    let _ = full.send(Err(error));
                    return;
                }
                Ok(got) if got < want => break (buffer.len(), true),
                Ok(_) => {
                    if let Some(newline) = memchr::memrchr(b'\n', &buffer) {
                        break (newline + 1, false);
                    }
                    // One line longer than the block: read on.
                }
            }
        };
        carry.extend_from_slice(&buffer[cut..]);
        buffer.truncate(cut);
        if full
            .send(Ok(Block {
                bytes: buffer,
                last,
            }))
            .is_err()
            || last
        {
            return;
        }
    }
}

/// Splits `block` into pieces of about `PIECE` bytes at line boundaries.
fn split_pieces(block: &[u8]) -> Vec<&[u8]> {
    let mut pieces = Vec::with_capacity(block.len() / PIECE + 1);
    let mut start = 0;
    while start < block.len() {
        let mut end = (start + PIECE).min(block.len());
        if end < block.len() {
            end = memchr::memchr(b'\n', &block[end..]).map_or(block.len(), |i| end + i + 1);
        }
        pieces.push(&block[start..end]);
        start = end;
    }
    pieces
}

/// One piece, parsed.
struct Piece<S> {
    sink: S,
    /// Non-blank lines.
    data_lines: u64,
    /// Newlines in the piece: how far the next piece's numbers are shifted.
    newlines: u32,
}

fn parse_piece<P: LineParser>(parser: &P, piece: &[u8]) -> Result<Piece<P::Sink>, LineError> {
    let lines = memchr::memchr_iter(b'\n', piece).count() + 1;
    let mut sink = parser.sink_for(lines, piece.len());
    let mut number: u32 = 1;
    let mut data_lines = 0;
    let mut newlines = 0;
    let mut rest = piece;
    while !rest.is_empty() {
        let (line, after) = match memchr::memchr(b'\n', rest) {
            Some(i) => {
                newlines += 1;
                (&rest[..i], &rest[i + 1..])
            }
            None => (rest, &rest[rest.len()..]),
        };
        let maybe_blank = line.first().is_none_or(|&b| b.is_ascii_whitespace());
        if !(maybe_blank && is_blank(line)) {
            parser.parse(&mut sink, line, number)?;
            data_lines += 1;
        }
        number = number.saturating_add(1);
        rest = after;
    }
    parser.end_piece(&mut sink)?;
    Ok(Piece {
        sink,
        data_lines,
        newlines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::error::ReadErrorKind;

    /// Collects (line number, text) pairs; refuses lines saying "bad".
    struct Collect;
    impl LineParser for Collect {
        type Sink = Vec<(u32, String)>;
        fn sink(&self) -> Self::Sink {
            Vec::new()
        }
        fn parse(&self, sink: &mut Self::Sink, line: &[u8], number: u32) -> Result<(), LineError> {
            if line == b"bad" {
                return Err(LineError::new(
                    number,
                    ReadErrorKind::BadField("bad".into()),
                ));
            }
            sink.push((number, String::from_utf8_lossy(line).into_owned()));
            Ok(())
        }
        fn join(
            &self,
            sink: &mut Self::Sink,
            later: Self::Sink,
            offset: u32,
        ) -> Result<(), LineError> {
            sink.extend(later.into_iter().map(|(n, line)| (n + offset, line)));
            Ok(())
        }
    }

    fn parse(text: &str) -> Result<Parsed<Vec<(u32, String)>>, Failure> {
        parse_lines(&mut text.as_bytes(), &Collect, &|_| {})
    }

    #[test]
    fn numbers_lines_and_skips_blank_ones() {
        let parsed = parse("a\n\n  \nb\r\nc").unwrap();
        assert_eq!(parsed.data_lines, 3);
        assert_eq!(
            parsed.sink,
            [
                (1, "a".to_owned()),
                (4, "b\r".to_owned()),
                (5, "c".to_owned())
            ]
        );
    }

    #[test]
    fn many_pieces_keep_order_and_exact_line_numbers() {
        let text: String = (1..=300_000).map(|i| format!("line {i}\n")).collect();
        let parsed = parse(&text).unwrap();
        assert!(text.len() > 2 * PIECE, "the input must span several pieces");
        assert_eq!(parsed.data_lines, 300_000);
        for (i, (number, line)) in parsed.sink.iter().enumerate() {
            assert_eq!(*number as usize, i + 1);
            assert_eq!(line, &format!("line {}", i + 1));
        }
    }

    #[test]
    fn the_first_bad_line_in_input_order_is_reported() {
        let mut text: String = (1..=200_000).map(|i| format!("line {i}\n")).collect();
        text.push_str("bad\n");
        text.push_str(&(0..200_000).map(|_| "x\n").collect::<String>());
        text.push_str("bad\n");
        let Err(Failure::Line(error)) = parse(&text) else {
            panic!("a bad line must fail");
        };
        assert_eq!(error.line, 200_001);
    }

    #[test]
    fn numbering_can_start_after_a_header() {
        let text: String = (0..100_000).map(|i| format!("line {i}\n")).collect();
        let parsed = parse_lines_from(&mut text.as_bytes(), &Collect, &|_| {}, 3).unwrap();
        assert!(text.len() > PIECE, "the input must span several pieces");
        let last = parsed.sink.last().unwrap();
        assert_eq!(last, &(100_002, "line 99999".to_owned()));
        assert_eq!(parsed.sink[0].0, 3);
    }

    #[test]
    fn empty_input_gives_an_empty_sink() {
        let parsed = parse("").unwrap();
        assert_eq!(parsed.data_lines, 0);
        assert!(parsed.sink.is_empty());
    }
}
