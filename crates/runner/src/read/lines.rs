//! Parsing a line-oriented input in parallel.
//!
//! The input is read in large blocks; each block is cut at its last newline
//! and split into pieces at line boundaries; pieces are parsed in parallel,
//! each into its own sink (a builder), and the sinks are joined in input
//! order, so the result and the first error reported are the same whatever
//! the number of threads. Line numbers are exact: each piece learns its first
//! line number from a newline count of the pieces before it.

use std::io::{self, Read};

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
    /// Parses one non-blank line, numbered `line`, into `sink`.
    fn parse(&self, sink: &mut Self::Sink, line: &[u8], number: u32) -> Result<(), LineError>;
    /// Appends `later` (the next piece's sink) to `sink`.
    fn join(&self, sink: &mut Self::Sink, later: Self::Sink) -> Result<(), LineError>;
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
    input: &mut dyn Read,
    parser: &P,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Parsed<P::Sink>, Failure> {
    parse_lines_from(input, parser, progress, 1)
}

/// [`parse_lines`] for input whose first lines (a header) were read already:
/// the first line of `input` is numbered `first_line`.
pub(crate) fn parse_lines_from<P: LineParser>(
    input: &mut dyn Read,
    parser: &P,
    progress: &(dyn Fn(u64) + Sync),
    first_line: u32,
) -> Result<Parsed<P::Sink>, Failure> {
    let mut buffer: Vec<u8> = Vec::new();
    let mut next_line: u32 = first_line;
    let mut joined: Option<P::Sink> = None;
    let mut data_lines = 0u64;
    loop {
        let want = BLOCK.max(buffer.len() + PIECE) - buffer.len();
        let got = (&mut *input)
            .take(want as u64)
            .read_to_end(&mut buffer)
            .map_err(Failure::Io)?;
        let end_of_input = got < want;
        let cut = if end_of_input {
            buffer.len()
        } else {
            match memchr::memrchr(b'\n', &buffer) {
                Some(newline) => newline + 1,
                // One line longer than the block: read on.
                None => continue,
            }
        };
        let pieces = split_pieces(&buffer[..cut], &mut next_line);
        let results: Vec<Result<(P::Sink, u64), LineError>> = pieces
            .into_par_iter()
            .map(|(piece, first_line)| parse_piece(parser, piece, first_line))
            .collect();
        for result in results {
            let (sink, lines) = result?;
            data_lines += lines;
            match &mut joined {
                None => joined = Some(sink),
                Some(all) => parser.join(all, sink)?,
            }
        }
        progress(cut as u64);
        buffer.drain(..cut);
        if end_of_input {
            break;
        }
    }
    Ok(Parsed {
        sink: joined.unwrap_or_else(|| parser.sink()),
        data_lines,
    })
}

/// Splits `block` into pieces of about `PIECE` bytes at line boundaries,
/// each with the number of its first line.
fn split_pieces<'a>(block: &'a [u8], next_line: &mut u32) -> Vec<(&'a [u8], u32)> {
    let mut pieces = Vec::with_capacity(block.len() / PIECE + 1);
    let mut start = 0;
    while start < block.len() {
        let mut end = (start + PIECE).min(block.len());
        if end < block.len() {
            end = memchr::memchr(b'\n', &block[end..]).map_or(block.len(), |i| end + i + 1);
        }
        let piece = &block[start..end];
        pieces.push((piece, *next_line));
        let newlines = memchr::memchr_iter(b'\n', piece).count();
        *next_line = next_line.saturating_add(u32::try_from(newlines).unwrap_or(u32::MAX));
        start = end;
    }
    pieces
}

fn parse_piece<P: LineParser>(
    parser: &P,
    piece: &[u8],
    first_line: u32,
) -> Result<(P::Sink, u64), LineError> {
    let mut sink = parser.sink();
    let mut number = first_line;
    let mut data_lines = 0;
    let mut rest = piece;
    while !rest.is_empty() {
        let (line, after) = match memchr::memchr(b'\n', rest) {
            Some(i) => (&rest[..i], &rest[i + 1..]),
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
    Ok((sink, data_lines))
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
        fn join(&self, sink: &mut Self::Sink, later: Self::Sink) -> Result<(), LineError> {
            sink.extend(later);
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
