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

use super::error::{LineError, ReadErrorKind};
use super::fields::{control_bytes_only, is_blank};

/// Bytes read per block. Large enough to keep every thread busy, small
/// enough that the block is a fraction of the memory the parsed data takes.
/// Unit tests use smaller blocks, to cross block boundaries cheaply.
const BLOCK: usize = if cfg!(test) { 4 << 20 } else { 32 << 20 };
/// Target size of one piece parsed by one task.
const PIECE: usize = 1 << 20;

/// The UTF-8 byte order mark, skipped at the start of every text input.
pub(crate) const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The longest line any reader takes, in bytes (64 MiB): a longer one is an
/// error naming its file and line. It bounds the memory a stream without
/// newlines (`/dev/zero`, a gzip bomb) can take, and is far above any real
/// line (a JSON Lines list of a million ids is about 20 MB).
pub const MAX_LINE_BYTES: usize = 64 << 20;
/// The limit used; unit tests use a smaller one, to cross it cheaply. At
/// least `BLOCK`, so that a line within one block is never too long.
pub(crate) const LINE_LIMIT: usize = if cfg!(test) { 8 << 20 } else { MAX_LINE_BYTES };

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
    /// A new, empty sink sized for a piece of at most `lines` lines and `bytes` bytes.
    fn sink_for(&self, lines: usize, bytes: usize) -> Self::Sink {
        let _ = (lines, bytes);
        self.sink()
    }
    /// Parses one non-blank line, numbered `number` within its piece, into `sink`.
    fn parse(&self, sink: &mut Self::Sink, line: &[u8], number: u64) -> Result<(), LineError>;
    /// Parses every line of `piece` (whole lines, numbered from 1) into
    /// `sink`, blank lines skipped. Formats with a faster way through a
    /// whole piece override it; the result must be the same.
    fn parse_piece(&self, sink: &mut Self::Sink, piece: &[u8]) -> Result<LineCounts, LineError> {
        each_line(
            piece,
            sink,
            |_, _, _| Ok(None),
            |sink, line, number| self.parse(sink, line, number),
        )
    }
    /// Appends `later` (the next piece's sink, numbered from 1) to `sink`,
    /// adding `line_offset` to its line numbers. Errors name absolute lines.
    fn join(
        &self,
        sink: &mut Self::Sink,
        later: Self::Sink,
        line_offset: u64,
    ) -> Result<(), LineError>;
    /// Called in the piece's task after its last line: a chance to finish
    /// work on the piece while it is in the cache. Errors name piece lines.
    fn end_piece(&self, sink: &mut Self::Sink) -> Result<(), LineError> {
        let _ = sink;
        Ok(())
    }
    /// How many pieces are parsed at once before they are joined (their
    /// sinks are all held until then): by default every piece of a block.
    /// A parser whose pieces take much more memory than their bytes (qrels
    /// of many tiny queries) joins them a few at a time instead, and a
    /// mapped input's pages are given back after each such wave.
    fn pieces_at_once(&self) -> usize {
        usize::MAX
    }
    /// The first piece's sink as the start of the whole input's.
    fn first(&self, piece: Self::Sink, line_offset: u64) -> Result<Self::Sink, LineError> {
        if line_offset == 0 {
            Ok(piece)
        } else {
            let mut sink = self.sink();
            self.join(&mut sink, piece, line_offset)?;
            Ok(sink)
        }
    }
}

/// Where a run's entries go as lines are parsed: a builder, or an
/// evaluator that scores each query as soon as it is complete.
pub(crate) trait RunSink {
    /// Adds `doc` with `score` to `query`'s list; `at` is its line.
    fn push_scored_at(
        &mut self,
        query: &[u8],
        doc: &[u8],
        score: f64,
        at: u64,
    ) -> Result<(), rankeval_core::RunError>;
    /// [`push_scored_at`](Self::push_scored_at) for a score read as a
    /// plain decimal.
    #[inline]
    fn push_decimal_at(
        &mut self,
        query: &[u8],
        doc: &[u8],
        score: rankeval_core::Decimal,
        at: u64,
    ) -> Result<(), rankeval_core::RunError> {
        self.push_scored_at(query, doc, score.value(), at)
    }
    /// A problem found after a push returned (an earlier query, finished
    /// when this line began another one, repeats a document), with its own
    /// line; asked after every line.
    #[inline]
    fn take_failure(&mut self) -> Option<LineError> {
        None
    }
}

impl RunSink for rankeval_core::RunBuilder {
    #[inline]
    fn push_scored_at(
        &mut self,
        query: &[u8],
        doc: &[u8],
        score: f64,
        at: u64,
    ) -> Result<(), rankeval_core::RunError> {
        rankeval_core::RunBuilder::push_scored_at(self, query, doc, score, at)
    }
}

/// A run's line format, parsing into any [`RunSink`].
pub(crate) trait RunLines: Sync {
    /// Parses one non-blank line, numbered `number`, into `sink`.
    fn parse_into<S: RunSink>(
        &self,
        sink: &mut S,
        line: &[u8],
        number: u64,
    ) -> Result<(), LineError>;
    /// Parses every line of `piece` into `sink`, as
    /// [`LineParser::parse_piece`] does.
    fn parse_piece_into<S: RunSink>(
        &self,
        sink: &mut S,
        piece: &[u8],
    ) -> Result<LineCounts, LineError> {
        each_line(
            piece,
            sink,
            |_, _, _| Ok(None),
            |sink, line, number| {
                self.parse_into(sink, line, number)?;
                sink.take_failure().map_or(Ok(()), Err)
            },
        )
    }
}

/// How many lines a piece held.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct LineCounts {
    /// Non-blank lines.
    pub(crate) data_lines: u64,
    /// Newlines: how far the next piece's numbers are shifted.
    pub(crate) newlines: u64,
}

/// Goes through the lines of `piece`, numbered from 1: each is offered to
/// `fast` first (with `sink`), which parses a line of the usual shape at the start of
/// the bytes it is given and returns its length (without the newline), or
/// `None` to leave it to `slow`; `slow` gets every other non-blank line,
/// without its newline. Blank lines are skipped.
#[inline]
pub(crate) fn each_line<T: ?Sized>(
    piece: &[u8],
    sink: &mut T,
    mut fast: impl FnMut(&mut T, &[u8], u64) -> Result<Option<usize>, LineError>,
    mut slow: impl FnMut(&mut T, &[u8], u64) -> Result<(), LineError>,
) -> Result<LineCounts, LineError> {
    let mut counts = LineCounts::default();
    let mut number: u64 = 1;
    let mut at = 0;
    while at < piece.len() {
        let rest = &piece[at..];
        let length = match fast(sink, rest, number)? {
            Some(length) => {
                counts.data_lines += 1;
                length
            }
            None => {
                let length = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
                let line = &rest[..length];
                let maybe_blank = line.first().is_none_or(|&b| b <= b' ');
                if !(maybe_blank && is_blank(line)) {
                    slow(sink, line, number)?;
                    counts.data_lines += 1;
                } else if let Some(kind) = control_bytes_only(line) {
                    return Err(LineError::new(number, kind));
                }
                length
            }
        };
        if length < rest.len() {
            // The newline.
            counts.newlines += 1;
            at += length + 1;
        } else {
            at = piece.len();
        }
        number = number.saturating_add(1);
    }
    Ok(counts)
}

/// What a whole input parsed into.
#[derive(Debug)]
pub(crate) struct Parsed<S> {
    pub(crate) sink: S,
    /// Number of non-blank lines.
    pub(crate) data_lines: u64,
}

/// A block of whole lines, from the reader thread.
struct Block {
    bytes: Vec<u8>,
    last: bool,
    /// The line after these is longer than [`LINE_LIMIT`]: reading stopped.
    too_long: bool,
}

/// The error for a line longer than the limit, numbered `line`.
fn too_long(line: u64) -> LineError {
    LineError::new(line, ReadErrorKind::LineTooLong { limit: LINE_LIMIT })
}

/// Parses every line of `input` with `parser`, the first numbered
/// `first_line` (after a header); `progress` is told how many bytes each
/// block held.
pub(crate) fn parse_lines_from<P: LineParser>(
    input: &mut (dyn Read + Send),
    parser: &P,
    progress: &(dyn Fn(u64) + Sync),
    first_line: u64,
) -> Result<Parsed<P::Sink>, Failure> {
    std::thread::scope(|scope| {
        let (full_tx, full_rx) = mpsc::sync_channel::<io::Result<Block>>(1);
        let (empty_tx, empty_rx) = mpsc::channel::<Vec<u8>>();
        for _ in 0..2 {
            let _ = empty_tx.send(Vec::new());
        }
        let at_start = first_line == 1;
        scope.spawn(move || read_blocks(input, at_start, &full_tx, &empty_rx));
        let mut joiner = Joiner::new(first_line);
        for block in full_rx {
            let block = block.map_err(Failure::Io)?;
            joiner.block(parser, &block.bytes, &mut |_| {})?;
            progress(block.bytes.len() as u64);
            if block.too_long {
                return Err(Failure::Line(too_long(joiner.offset.saturating_add(1))));
            }
            let last = block.last;
            // The reader may have stopped already; then the buffer is not needed.
            let _ = empty_tx.send(block.bytes);
            if last {
                break;
            }
        }
        Ok(joiner.finish(parser))
    })
}

/// Parses every line of `bytes`, a whole input in memory (or mapped), in
/// blocks of whole lines; `release(start, end)` is told when a range of
/// `bytes` is parsed and no longer needed. The first line is `first_line`.
pub(crate) fn parse_bytes<P: LineParser>(
    bytes: &[u8],
    parser: &P,
    progress: &(dyn Fn(u64) + Sync),
    first_line: u64,
    release: &dyn Fn(usize, usize),
) -> Result<Parsed<P::Sink>, LineError> {
    let mut joiner = Joiner::new(first_line);
    // A UTF-8 byte order mark at the start of the input is no data.
    let mut start = if first_line == 1 && bytes.starts_with(BOM) {
        BOM.len()
    } else {
        0
    };
    let mut released = 0;
    while start < bytes.len() {
        let mut end = (start + BLOCK).min(bytes.len());
        if end < bytes.len() {
            end = match memchr::memrchr(b'\n', &bytes[start..end]) {
                Some(newline) => start + newline + 1,
                // One line longer than a block: up to its end.
                None => {
                    let limit = bytes.len().min(start.saturating_add(LINE_LIMIT + 1));
                    match memchr::memchr(b'\n', &bytes[end..limit]) {
                        Some(i) => end + i + 1,
                        None if bytes.len() - start <= LINE_LIMIT => bytes.len(),
                        None => return Err(too_long(joiner.offset.saturating_add(1))),
                    }
                }
            };
        }
        // From 0 on the first block: a skipped mark is released too.
        joiner.block(parser, &bytes[start..end], &mut |joined| {
            release(released, start + joined);
            released = start + joined;
        })?;
        progress((end - start) as u64);
        start = end;
    }
    if released < bytes.len() {
        release(released, bytes.len());
    }
    Ok(joiner.finish(parser))
}

/// Joins the sinks of parsed pieces in input order, shifting line numbers.
struct Joiner<S> {
    offset: u64,
    joined: Option<S>,
    data_lines: u64,
}

impl<S: Send> Joiner<S> {
    fn new(first_line: u64) -> Self {
        Self {
            offset: first_line.saturating_sub(1),
            joined: None,
            data_lines: 0,
        }
    }

    /// Parses one block of whole lines, pieces in parallel, and joins them;
    /// `joined` is told how many bytes of the block are joined after each
    /// wave of [`LineParser::pieces_at_once`] pieces. A wave is joined
    /// while the next one is parsed.
    fn block<P: LineParser<Sink = S>>(
        &mut self,
        parser: &P,
        block: &[u8],
        joined: &mut dyn FnMut(usize),
    ) -> Result<(), LineError> {
        let pieces = split_pieces(block);
        let mut done = 0;
        // The wave parsed last, not joined yet, and its bytes.
        let mut pending: Option<(Wave<S>, usize)> = None;
        for wave in pieces.chunks(parser.pieces_at_once().max(1)) {
            let (parsed, join) = rayon::join(
                || {
                    wave.par_iter()
                        .map(|piece| parse_piece(parser, piece))
                        .collect::<Vec<_>>()
                },
                || {
                    pending
                        .take()
                        .map(|(results, bytes)| self.join_wave(parser, results).map(|()| bytes))
                        .transpose()
                },
            );
            if let Some(bytes) = join? {
                done += bytes;
                joined(done);
            }
            pending = Some((parsed, wave.iter().map(|piece| piece.len()).sum()));
        }
        if let Some((results, bytes)) = pending {
            self.join_wave(parser, results)?;
            joined(done + bytes);
        }
        Ok(())
    }

    /// Joins the parsed pieces of one wave, in order.
    fn join_wave<P: LineParser<Sink = S>>(
        &mut self,
        parser: &P,
        results: Wave<S>,
    ) -> Result<(), LineError> {
        for result in results {
            let piece = result.map_err(|e| e.shifted(self.offset))?;
            self.data_lines += piece.counts.data_lines;
            match &mut self.joined {
                None => self.joined = Some(parser.first(piece.sink, self.offset)?),
                Some(all) => parser.join(all, piece.sink, self.offset)?,
            }
            self.offset = self.offset.saturating_add(piece.counts.newlines);
        }
        Ok(())
    }

    fn finish<P: LineParser<Sink = S>>(self, parser: &P) -> Parsed<S> {
        Parsed {
            sink: self.joined.unwrap_or_else(|| parser.sink()),
            data_lines: self.data_lines,
        }
    }
}

/// The reader thread: fills the buffers it is given with whole lines.
fn read_blocks(
    input: &mut (dyn Read + Send),
    mut at_start: bool,
    full: &mpsc::SyncSender<io::Result<Block>>,
    empty: &mpsc::Receiver<Vec<u8>>,
) {
    let mut carry: Vec<u8> = Vec::new();
    // Stops when the parser has gone (a closed channel).
    while let Ok(mut buffer) = empty.recv() {
        buffer.clear();
        // The carried bytes are the start of a line: no newline in them.
        buffer.append(&mut carry);
        // Where the last (incomplete) line of `buffer` starts.
        let mut line_start = 0;
        let (cut, last, too_long) = loop {
            let before = buffer.len();
            let want = BLOCK.max(before + PIECE) - before;
            let got = match (&mut *input).take(want as u64).read_to_end(&mut buffer) {
                Err(error) => {
                    let _ = full.send(Err(error));
                    return;
                }
                Ok(got) => got,
            };
            // A UTF-8 byte order mark at the start of the input is no data.
            if std::mem::take(&mut at_start) && buffer.starts_with(BOM) {
                buffer.drain(..BOM.len());
                if buffer.len() <= before {
                    continue;
                }
            }
            // Only the new bytes are searched, so a long line costs time
            // linear in its length.
            let new = &buffer[before..];
            if let Some(first) = memchr::memchr(b'\n', new) {
                if before + first - line_start > LINE_LIMIT {
                    break (line_start, false, true);
                }
                let newline = memchr::memrchr(b'\n', new).unwrap_or(first);
                line_start = before + newline + 1;
            }
            if buffer.len() - line_start > LINE_LIMIT {
                break (line_start, false, true);
            }
            if got < want {
                break (buffer.len(), true, false);
            }
            if line_start > 0 {
                break (line_start, false, false);
            }
            // One line longer than the block: read on.
        };
        if !too_long {
            carry.extend_from_slice(&buffer[cut..]);
        }
        buffer.truncate(cut);
        if full
            .send(Ok(Block {
                bytes: buffer,
                last,
                too_long,
            }))
            .is_err()
            || last
            || too_long
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

/// The pieces of one wave, parsed (or the error of each).
type Wave<S> = Vec<Result<Piece<S>, LineError>>;

/// One piece, parsed.
struct Piece<S> {
    sink: S,
    counts: LineCounts,
}

fn parse_piece<P: LineParser>(parser: &P, piece: &[u8]) -> Result<Piece<P::Sink>, LineError> {
    // No line is shorter than 2 bytes with its newline; capacity that is
    // reserved but never written costs no memory.
    let mut sink = parser.sink_for(piece.len() / 2 + 1, piece.len());
    let counts = parser.parse_piece(&mut sink, piece)?;
    parser.end_piece(&mut sink)?;
    Ok(Piece { sink, counts })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Collects (line number, text) pairs; refuses lines saying "bad".
    struct Collect;
    impl LineParser for Collect {
        type Sink = Vec<(u64, String)>;
        fn sink(&self) -> Self::Sink {
            Vec::new()
        }
        fn parse(&self, sink: &mut Self::Sink, line: &[u8], number: u64) -> Result<(), LineError> {
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
            offset: u64,
        ) -> Result<(), LineError> {
            sink.extend(later.into_iter().map(|(n, line)| (n + offset, line)));
            Ok(())
        }
    }

    /// Parses `text` as a stream, and in memory; both must agree.
    fn parse(text: &str) -> Result<Parsed<Vec<(u64, String)>>, Failure> {
        let streamed = parse_lines_from(&mut text.as_bytes(), &Collect, &|_| {}, 1);
        let released = std::sync::Mutex::new(Vec::new());
        let in_memory = parse_bytes(text.as_bytes(), &Collect, &|_| {}, 1, &|start, end| {
            released.lock().unwrap().push((start, end))
        });
        match (&streamed, &in_memory) {
            (Ok(a), Ok(b)) => {
                assert_eq!((&a.sink, a.data_lines), (&b.sink, b.data_lines));
                // Released ranges follow each other and cover the input.
                let released = released.into_inner().unwrap();
                let mut next = 0;
                for (start, end) in released {
                    assert_eq!(start, next);
                    next = end;
                }
                assert_eq!(next, text.len());
            }
            (Err(Failure::Line(a)), Err(b)) => assert_eq!(a.line, b.line),
            other => panic!("the stream and in-memory parses disagree: {other:?}"),
        }
        streamed
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

    /// [`Collect`], joining `0` pieces at a time.
    struct Waves(usize);
    impl LineParser for Waves {
        type Sink = Vec<(u64, String)>;
        fn sink(&self) -> Self::Sink {
            Vec::new()
        }
        fn parse(&self, sink: &mut Self::Sink, line: &[u8], number: u64) -> Result<(), LineError> {
            Collect.parse(sink, line, number)
        }
        fn join(
            &self,
            sink: &mut Self::Sink,
            later: Self::Sink,
            offset: u64,
        ) -> Result<(), LineError> {
            Collect.join(sink, later, offset)
        }
        fn pieces_at_once(&self) -> usize {
            self.0
        }
    }

    #[test]
    fn pieces_joined_a_few_at_a_time_give_the_same_lines_and_are_released_as_they_go() {
        // Within one block (4 MB in tests), about three pieces.
        let mut text: String = (1..=300_000).map(|i| format!("line {i}\n")).collect();
        assert!(text.len() > 2 * PIECE && text.len() < BLOCK);
        let whole = parse(&text).unwrap();
        for at_once in [1, 2] {
            let releases = std::sync::Mutex::new(Vec::new());
            let parsed = parse_bytes(text.as_bytes(), &Waves(at_once), &|_| {}, 1, &|a, b| {
                releases.lock().unwrap().push((a, b))
            })
            .unwrap();
            assert_eq!(
                (&parsed.sink, parsed.data_lines),
                (&whole.sink, whole.data_lines)
            );
            let releases = releases.into_inner().unwrap();
            // One release per wave, each after the last, up to the end.
            let pieces = split_pieces(text.as_bytes()).len();
            assert_eq!(releases.len(), pieces.div_ceil(at_once), "{at_once}");
            assert!(
                releases
                    .windows(2)
                    .all(|w| w[0].1 == w[1].0 && w[0].1 > w[0].0)
            );
            assert_eq!((releases[0].0, releases.last().unwrap().1), (0, text.len()));
        }
        // The first bad line is still the one reported.
        text.push_str("x\nbad\n");
        text.push_str(&(0..200_000).map(|_| "bad\n").collect::<String>());
        let error = parse_bytes(text.as_bytes(), &Waves(1), &|_| {}, 1, &|_, _| {}).unwrap_err();
        assert_eq!(error.line, 300_002);
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
        let in_memory = parse_bytes(text.as_bytes(), &Collect, &|_| {}, 3, &|_, _| {}).unwrap();
        assert_eq!(parsed.sink, in_memory.sink);
        assert!(text.len() > PIECE, "the input must span several pieces");
        let last = parsed.sink.last().unwrap();
        assert_eq!(last, &(100_002, "line 99999".to_owned()));
        assert_eq!(parsed.sink[0].0, 3);
    }

    #[test]
    fn line_numbers_go_past_four_billion() {
        // As if 2^32 lines came before (a header count, or earlier blocks).
        let first = u64::from(u32::MAX) + 2;
        let text = "a\nb\nbad\n";
        let parsed = parse_lines_from(&mut "a\nb\n".as_bytes(), &Collect, &|_| {}, first).unwrap();
        assert_eq!(parsed.sink[1], (first + 1, "b".to_owned()));
        let Err(error) = parse_bytes(text.as_bytes(), &Collect, &|_| {}, first, &|_, _| {}) else {
            panic!("a bad line must fail");
        };
        assert_eq!(error.line, 4_294_967_299);
    }

    #[test]
    fn blocks_in_memory_end_at_line_ends_even_for_lines_longer_than_a_block() {
        let long = "x".repeat(BLOCK + 10);
        let text = format!("a\n{long}\nb\n");
        let parsed = parse(&text).unwrap();
        assert_eq!(parsed.sink.len(), 3);
        assert_eq!(parsed.sink[1].0, 2);
        assert_eq!(parsed.sink[2], (3, "b".to_owned()));
    }

    #[test]
    fn many_blocks_in_memory() {
        let text: String = (1..=1_500_000).map(|i| format!("{i}\n")).collect();
        assert!(text.len() > BLOCK, "the input must span several blocks");
        let parsed = parse(&text).unwrap();
        assert_eq!(parsed.data_lines, 1_500_000);
        assert_eq!(parsed.sink[1_234_566], (1_234_567, "1234567".to_owned()));
    }

    #[test]
    fn a_line_over_the_limit_is_an_error_naming_it() {
        let long = "x".repeat(LINE_LIMIT + 1);
        for (text, line) in [
            (format!("a\nb\n{long}\nc\n"), 3),
            (format!("a\nb\n{long}"), 3),
            (format!("a\nb\nc{}\n{long}", "y".repeat(BLOCK - 3)), 4),
        ] {
            let Err(Failure::Line(error)) = parse(&text) else {
                panic!("a line over the limit must fail");
            };
            assert_eq!(error.line, line);
            assert!(matches!(error.kind, ReadErrorKind::LineTooLong { .. }));
        }
        // At the limit, a line is read.
        let text = format!("a\n{}\nb\n", "x".repeat(LINE_LIMIT));
        assert_eq!(parse(&text).unwrap().data_lines, 3);
    }

    #[test]
    fn an_endless_line_is_refused_in_bounded_memory() {
        let mut zeros = std::io::repeat(0);
        let Err(Failure::Line(error)) = parse_lines_from(&mut zeros, &Collect, &|_| {}, 1) else {
            panic!("an endless line must fail");
        };
        assert_eq!(error.line, 1);
        let mut endless = b"q 1\nq 2\n".chain(std::io::repeat(b'7'));
        let Err(Failure::Line(error)) = parse_lines_from(&mut endless, &Collect, &|_| {}, 1) else {
            panic!("an endless line must fail");
        };
        assert_eq!(error.line, 3);
    }

    #[test]
    fn a_byte_order_mark_at_the_start_is_skipped() {
        let parsed = parse("\u{FEFF}a\n\u{FEFF}b\n").unwrap();
        assert_eq!(
            parsed.sink,
            [(1, "a".to_owned()), (2, "\u{FEFF}b".to_owned())],
            "only at the start of the input"
        );
        assert_eq!(parse("\u{FEFF}").unwrap().data_lines, 0);
        // After a header (CSV), the header reader has dealt with it.
        let text = "\u{FEFF}a\n";
        let later = parse_bytes(text.as_bytes(), &Collect, &|_| {}, 2, &|_, _| {}).unwrap();
        assert_eq!(later.sink, [(2, "\u{FEFF}a".to_owned())]);
    }

    #[test]
    fn empty_input_gives_an_empty_sink() {
        let parsed = parse("").unwrap();
        assert_eq!(parsed.data_lines, 0);
        assert!(parsed.sink.is_empty());
    }
}
