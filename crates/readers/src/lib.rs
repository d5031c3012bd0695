//! Readers: TREC qrels and runs, JSON Lines, and CSV/TSV with a header line,
//! from a file (plain or gzip, detected by its first bytes) or from bytes in
//! memory, into the core model.
//!
//! The format follows the file name ([`Format::from_path`]) or is set with
//! [`Input::with_format`]:
//!
//! - [`Format::Trec`]: qrels `query iteration document grade`, runs
//!   `query Q0 document rank score tag`;
//! - [`Format::Msmarco`]: MS MARCO's headerless TSV: runs
//!   `qid<TAB>pid<TAB>rank`, qrels `qid 0 pid grade` (TREC qrels). A
//!   `.tsv` file whose first line is one of these (not a header) is read
//!   so without being told ([`Input::file`]).
//! - [`Format::Jsonl`]: one query per line,
//!   `{"query": ..., "predicted": [...], "relevant": {...}}`;
//! - [`Format::Csv`]: recommender logs with a header line, runs
//!   `user,item,score` or `user,item,rank` and ground truth
//!   `user,item[,grade]`, columns found by name ([`CsvOptions`], set with
//!   [`Input::with_csv`]) and in any order, extra columns ignored. A run with
//!   a score column is ordered like a TREC run (score descending, ties by
//!   document id descending); with only a rank column, by rank ascending,
//!   ties broken like tied scores (the rank is stored as the score `-rank`).
//!   Missing grades are 1. Fields may be quoted (RFC 4180) but not span
//!   lines; a byte order mark is skipped; `.tsv` files are split on tabs.
//! - [`Format::Parquet`] and [`Format::Arrow`] (Arrow IPC: Feather v2 files
//!   and streams): tables read with the arrow-rs crates, long
//!   (`user, item, score|rank|grade`) or with list columns
//!   (`user, items: list<string>, scores: list<double>`), with the same
//!   column mapping as CSV; see the `table` module. Data already in Arrow
//!   form is read with [`run_from_batches`] and [`qrels_from_batches`].
//!
//! Besides runs and qrels, the other inputs the library reads are read here
//! into plain rows: span qrels and runs of chunks ([`spans`]), per-query
//! results read back ([`results`]), groups of queries ([`read_groups`]) and
//! the inputs of corpus metrics ([`corpus`]).
//!
//! Every error names the file, the line and what was expected; nothing is
//! dropped silently: a malformed line, a bad number, a document repeated in
//! one query's list (unless `duplicates = "first"`), a document judged twice
//! with two grades, a repeated JSONL query, a CSV header without a needed
//! column, an empty file (or a CSV file with only its header) are all errors.

pub mod corpus;
mod csv;
pub mod doc_groups;
mod error;
mod fields;
mod grade;
pub mod group_targets;
mod groups;
mod guard;
pub mod impressions;
mod ipc;
pub mod ir_metadata;
mod json;
mod jsonl;
mod lines;
mod loaded;
mod mapped;
pub mod missing_column;
mod msmarco;
mod parquet;
pub mod propensity;
pub mod results;
pub mod row_file;
mod row_table;
pub mod sampled;
pub mod spans;
pub mod stream;
pub mod subtopics;
mod table;
pub mod temporary;
mod text_table;
mod trec;
mod ungraded;
mod whole;

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use flate2::read::MultiGzDecoder;
use rankeval_core::{Duplicates, Qrels, QrelsBuilder, QrelsError, Run, RunBuilder, RunError, Ties};

/// The Arrow crate whose record batches [`run_from_batches`] takes, so that
/// callers build them with the same version.
pub use arrow_array;
/// The Arrow schema crate of [`arrow_array`], for the schemas that
/// [`run_columns`] and [`qrels_columns`] take.
pub use arrow_schema;
pub use csv::CsvOptions;
pub use csv::split_csv_line;
pub use error::{ReadError, ReadErrorKind};
pub use groups::{QueryGroups, read_groups};
pub use guard::decoding;
pub use lines::MAX_LINE_BYTES;
pub use loaded::Loaded;
pub use table::stream_batches;
pub use table::{
    qrels_columns, qrels_from_batches, qrels_from_batches_noted, run_columns, run_from_batches,
};
pub use ungraded::{JudgeQrels, RowAt, UngradedRows};
pub use whole::{MAX_CONFIG_BYTES, MAX_WHOLE_BYTES, WholeInput, read_whole, read_whole_from};

use csv::{CSV_LINE, CsvQrels, CsvRun, Header};
use error::LineError;
use jsonl::{JSONL_LINE, JsonKeys, Jsonl, JsonlSink};
use lines::{Failure, LineParser, Parsed, parse_bytes, parse_lines_from};
use mapped::Mapped;
pub use mapped::name_at as mapped_name_at;
use msmarco::{MSMARCO_RUN_LINE, MsmarcoRun};
use trec::{QRELS_LINE, RUN_LINE, TrecQrels, TrecRun};
use ungraded::EmptyGrade;

/// The layout of an input file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// TREC qrels (`query iteration document grade`) or run
    /// (`query Q0 document rank score tag`).
    Trec,
    /// JSON Lines: one query per line (see the module docs of the reader),
    /// or one row per line, or a dict of dicts, told apart by the first
    /// line (see [`Format::JsonlRows`] and [`Format::Json`]).
    Jsonl,
    /// JSON Lines with one row per line and document
    /// (`{"user": 1, "item": "i7", "score": 0.9}`), read like CSV.
    #[serde(rename = "jsonl-rows")]
    JsonlRows,
    /// One JSON document mapping queries to documents to scores or grades
    /// (`{"q1": {"d1": 12.5}}`), as ranx saves and pytrec_eval takes.
    Json,
    /// CSV or TSV with a header line: runs `user,item,score` or
    /// `user,item,rank`, ground truth `user,item[,grade]`; column names and
    /// delimiter per [`CsvOptions`].
    Csv,
    /// Parquet: a long table or one with list columns, column names per
    /// [`CsvOptions`].
    Parquet,
    /// Arrow IPC, file (Feather v2) or stream: tables as for Parquet.
    #[serde(alias = "feather", alias = "ipc")]
    Arrow,
    /// MS MARCO's headerless TSV: runs `qid<TAB>pid<TAB>rank` (ordered by
    /// rank), qrels `qid 0 pid grade` (as TREC).
    Msmarco,
}

impl Format {
    /// The format a file name suggests: `.jsonl`, `.ndjson` and `.json` are
    /// JSON Lines, `.csv` and `.tsv` are CSV (all also with `.gz` after
    /// them), `.parquet` and `.pq` Parquet, `.arrow`, `.arrows`, `.feather`
    /// and `.ipc` Arrow IPC; anything else is TREC.
    pub fn from_path(path: &Path) -> Format {
        match extension(path).as_deref() {
            Some("jsonl" | "ndjson" | "json") => Format::Jsonl,
            Some("csv" | "tsv") => Format::Csv,
            Some("parquet" | "pq") => Format::Parquet,
            Some("arrow" | "arrows" | "feather" | "ipc") => Format::Arrow,
            _ => Format::Trec,
        }
    }
}

/// The lowercase extension of a file name, under a `.gz` suffix.
fn extension(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    Path::new(name)
        .extension()
        .map(|e| e.to_string_lossy().into_owned())
}

/// Where input comes from: a file, or bytes already in memory.
#[derive(Clone, Debug)]
pub struct Input {
    name: String,
    origin: Origin,
    format: Format,
    csv: CsvOptions,
}

#[derive(Clone, Debug)]
enum Origin {
    File(PathBuf),
    Bytes(Vec<u8>),
    /// A file that cannot be read twice (a pipe), its bytes copied to a
    /// spill file as they are read (see `stream::Spill`).
    Teed(PathBuf, std::sync::Arc<File>),
    /// Data already read (see [`Loaded`]).
    Loaded(Loaded),
}

impl Input {
    /// A file, its format guessed from its name ([`Format::from_path`]);
    /// a plain `.tsv` file whose first line is MS MARCO's (`qid 0 pid
    /// grade` or `qid pid rank`, no header) is [`Format::Trec`] or
    /// [`Format::Msmarco`]. Errors name it as given.
    pub fn file(path: impl AsRef<Path>) -> Self {
        let path = path.as_ref();
        let mut format = Format::from_path(path);
        if format == Format::Csv && extension(path).as_deref() == Some("tsv") {
            format = msmarco::sniff_tsv(path).unwrap_or(format);
        }
        Self {
            name: path.display().to_string(),
            format,
            origin: Origin::File(path.to_owned()),
            csv: CsvOptions::default(),
        }
    }

    /// Bytes in memory (plain or gzip), called `name` in errors. For CSV, a
    /// `name` ending in `.tsv` (or `.tsv.gz`) makes tab the default
    /// delimiter, as for a file.
    pub fn bytes(name: impl Into<String>, bytes: impl Into<Vec<u8>>, format: Format) -> Self {
        Self {
            name: name.into(),
            origin: Origin::Bytes(bytes.into()),
            format,
            csv: CsvOptions::default(),
        }
    }

    /// The same input, read as CSV/TSV with these column names and
    /// delimiter. With `delimiter: None`, a file named `*.tsv` (or
    /// `*.tsv.gz`) is split on tabs, any other on commas.
    pub fn with_csv(mut self, options: CsvOptions) -> Self {
        self.format = Format::Csv;
        self.csv = options;
        self
    }

    /// The same input with these column names (and, for CSV, delimiter),
    /// its format unchanged: they apply to CSV, Parquet and Arrow.
    pub fn with_columns(mut self, columns: CsvOptions) -> Self {
        self.csv = columns;
        self
    }

    /// Whether this input's format reads columns by name (CSV, Parquet,
    /// Arrow), so that a column mapping applies to it.
    pub fn has_columns(&self) -> bool {
        matches!(self.format, Format::Csv | Format::Parquet | Format::Arrow)
    }

    /// The same input, read as `format`.
    pub fn with_format(mut self, format: Format) -> Self {
        self.format = format;
        self
    }

    /// Errors name the input like this.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The file it is read from, if it is one.
    pub fn path(&self) -> Option<&Path> {
        match &self.origin {
            Origin::File(path) | Origin::Teed(path, _) => Some(path),
            Origin::Bytes(_) | Origin::Loaded(_) => None,
        }
    }

    /// The name errors use.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The format it will be read as.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The column names and delimiter used if it is read as CSV.
    pub fn csv_options(&self) -> &CsvOptions {
        &self.csv
    }

    /// The size in bytes, if known without reading (for progress reports).
    pub fn len_hint(&self) -> Option<u64> {
        match &self.origin {
            Origin::File(path) => std::fs::metadata(path).ok().map(|m| m.len()),
            Origin::Bytes(bytes) => Some(bytes.len() as u64),
            Origin::Teed(..) | Origin::Loaded(_) => None,
        }
    }

    /// The input's bytes where they can be parsed in place (in memory, or a
    /// plain file mapped into memory), else a stream (gzip, a pipe).
    fn source(&self) -> io::Result<Source<'_>> {
        let mapped;
        let bytes: &[u8] = match &self.origin {
            Origin::Bytes(bytes) => bytes,
            Origin::File(path) => {
                let file = File::open(path)?;
                match Mapped::open(&file, &self.name) {
                    Some(map) => {
                        mapped = map;
                        if !is_gzip(mapped.bytes()) {
                            return Ok(Source::Mapped(mapped));
                        }
                        return Ok(Source::Stream(Box::new(MultiGzDecoder::new(
                            io::Cursor::new(MappedBytes(mapped)),
                        ))));
                    }
                    None => return self.stream(Box::new(file)),
                }
            }
            Origin::Teed(path, spill) => {
                let teed = stream::Tee::new(File::open(path)?, spill.clone());
                return self.stream(Box::new(teed));
            }
            // Handed over whole by `read_qrels_as` and `read_run_with`.
            Origin::Loaded(_) => {
                return Err(io::Error::other(
                    "the data is in memory, not bytes to parse",
                ));
            }
        };
        if is_gzip(bytes) {
            Ok(Source::Stream(Box::new(MultiGzDecoder::new(bytes))))
        } else {
            Ok(Source::Bytes(bytes))
        }
    }

    /// A stream over `plain`, decompressing gzip transparently.
    fn stream<'a>(&self, mut plain: Box<dyn Read + Send + 'a>) -> io::Result<Source<'a>> {
        let mut magic = [0u8; 2];
        let mut seen = 0;
        while seen < 2 {
            match plain.read(&mut magic[seen..])? {
                0 => break,
                n => seen += n,
            }
        }
        let head = io::Cursor::new(magic[..seen].to_vec());
        let whole = head.chain(plain);
        if is_gzip(&magic[..seen]) {
            Ok(Source::Stream(Box::new(MultiGzDecoder::new(whole))))
        } else {
            Ok(Source::Stream(Box::new(whole)))
        }
    }

    fn error(&self, line: Option<u64>, kind: ReadErrorKind) -> ReadError {
        ReadError::new(&self.name, line, kind)
    }

    fn failure(&self, failure: Failure) -> ReadError {
        match failure {
            Failure::Io(e) => self.error(None, e.into()),
            Failure::Line(e) => e.in_file(&self.name),
        }
    }

    fn parse<P: LineParser>(
        &self,
        parser: &P,
        expected: &'static str,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Parsed<P::Sink>, ReadError> {
        let source = self.source().map_err(|e| self.error(None, e.into()))?;
        let parsed = self.parse_from(source, 0, 1, parser, progress)?;
        if parsed.data_lines == 0 {
            return Err(self.error(None, ReadErrorKind::Empty { expected }));
        }
        Ok(parsed)
    }

    /// Parses `source` from byte `skip` on (after a header), its first
    /// line numbered `first_line`.
    fn parse_from<P: LineParser>(
        &self,
        source: Source<'_>,
        skip: usize,
        first_line: u64,
        parser: &P,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Parsed<P::Sink>, ReadError> {
        match source {
            Source::Bytes(bytes) => {
                parse_bytes(&bytes[skip..], parser, progress, first_line, &|_, _| {})
                    .map_err(|e| e.in_file(&self.name))
            }
            Source::Mapped(map) => parse_bytes(
                &map.bytes()[skip..],
                parser,
                progress,
                first_line,
                &|start, end| map.release(skip + start, skip + end),
            )
            .map_err(|e| e.in_file(&self.name)),
            Source::Stream(mut stream) => {
                parse_lines_from(&mut stream, parser, progress, first_line)
                    .map_err(|f| self.failure(f))
            }
        }
    }

    /// The whole input in memory: the mapped file or the bytes given as
    /// they are, anything else (gzip, a pipe) read to its end.
    fn with_all_bytes<T>(
        &self,
        kind: WholeInput,
        then: impl FnOnce(&[u8]) -> Result<T, ReadError>,
    ) -> Result<T, ReadError> {
        let io = |e: io::Error| self.error(None, e.into());
        match self.source().map_err(io)? {
            Source::Bytes(bytes) => {
                kind.check_start(&self.name, bytes)?;
                then(bytes)
            }
            Source::Mapped(map) => {
                kind.check_start(&self.name, map.bytes())?;
                then(map.bytes())
            }
            Source::Stream(stream) => then(&whole::read_bounded(stream, &self.name, kind)?),
        }
    }

    /// A Parquet input: a plain regular file is read by row group, anything
    /// else (bytes, a pipe, gzip) in memory first (Parquet needs to seek).
    fn parquet_source(&self) -> Result<parquet::ParquetSource<'_>, ReadError> {
        if let Some(path) = self.plain_file() {
            return Ok(parquet::ParquetSource::File(path));
        }
        let bytes = self.with_all_bytes(WholeInput::PARQUET, |bytes| Ok(bytes.to_vec()))?;
        Ok(parquet::ParquetSource::Bytes(bytes.into()))
    }

    /// The input's path if it is a regular file that is not gzip: one
    /// that can be opened again, and read at any offset.
    pub(crate) fn plain_file(&self) -> Option<&Path> {
        let Origin::File(path) = &self.origin else {
            return None;
        };
        if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
            return None;
        }
        let mut magic = [0u8; 2];
        let read = File::open(path).and_then(|mut f| f.read(&mut magic));
        (!(read.is_ok_and(|n| n == 2) && is_gzip(&magic))).then_some(path.as_path())
    }

    /// The CSV delimiter: the one set, else tab for a `.tsv` name, else comma.
    fn csv_delimiter(&self) -> Result<u8, ReadError> {
        let tsv = match &self.origin {
            Origin::File(path) | Origin::Teed(path, _) => extension(path),
            Origin::Bytes(_) | Origin::Loaded(_) => extension(Path::new(&self.name)),
        }
        .is_some_and(|e| e == "tsv");
        self.csv
            .delimiter_byte(tsv)
            .map_err(|message| self.error(None, ReadErrorKind::BadField(message)))
    }

    /// Reads a CSV header, makes the parser for its columns with `parser`,
    /// and parses the data lines after it in parallel.
    fn parse_csv<P: LineParser>(
        &self,
        parser: impl FnOnce(&Header, &CsvOptions) -> Result<P, LineError>,
        progress: Progress<'_>,
    ) -> Result<P::Sink, ReadError> {
        let delimiter = self.csv_delimiter()?;
        let source = self.source().map_err(|e| self.error(None, e.into()))?;
        let (source, header) = match source {
            Source::Stream(plain) => {
                let mut reader = BufReader::with_capacity(1 << 16, plain);
                let header =
                    csv::read_header(&mut reader, delimiter).map_err(|f| self.failure(f))?;
                (Source::Stream(Box::new(reader)), header)
            }
            in_place => {
                let mut rest = match &in_place {
                    Source::Bytes(bytes) => *bytes,
                    Source::Mapped(map) => map.bytes(),
                    Source::Stream(_) => &[],
                };
                let header = csv::read_header(&mut rest, delimiter).map_err(|f| self.failure(f))?;
                (in_place, header)
            }
        };
        let header =
            header.ok_or_else(|| self.error(None, ReadErrorKind::Empty { expected: CSV_LINE }))?;
        progress(header.bytes);
        let parser = parser(&header, &self.csv).map_err(|e| e.in_file(&self.name))?;
        let first_line = header.line.saturating_add(1);
        let skip = match &source {
            Source::Stream(_) => 0,
            _ => header.bytes as usize,
        };
        let parsed = self.parse_from(source, skip, first_line, &parser, progress)?;
        if parsed.data_lines == 0 {
            return Err(self.error(
                None,
                ReadErrorKind::BadField(format!(
                    "the file has a header (line {}) but no data line",
                    header.line
                )),
            ));
        }
        Ok(parsed.sink)
    }
}

/// Where an input's bytes come from.
enum Source<'a> {
    /// Already in memory.
    Bytes(&'a [u8]),
    /// A plain file, mapped.
    Mapped(Mapped),
    /// Read through a stream: gzip, or a file that cannot be mapped.
    Stream(Box<dyn Read + Send + 'a>),
}

/// A mapped file as bytes, for the gzip decoder.
struct MappedBytes(Mapped);

impl AsRef<[u8]> for MappedBytes {
    fn as_ref(&self) -> &[u8] {
        self.0.bytes()
    }
}

fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
}

/// How to read a run.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadOptions {
    /// What to do with a document repeated in one query's list.
    pub duplicates: Duplicates,
    /// How tied scores are ordered when a run is finished: in input order
    /// for `input`, by document id otherwise (`average` does not depend
    /// on the order).
    pub ties: Ties,
}

/// A progress hook: told the number of bytes each block of input held.
pub type Progress<'a> = &'a (dyn Fn(u64) + Sync);

/// Reads qrels.
pub fn read_qrels(input: &Input) -> Result<Qrels, ReadError> {
    read_qrels_with(input, &|_| {})
}

/// Reads qrels, reporting progress.
pub fn read_qrels_with(input: &Input, progress: Progress<'_>) -> Result<Qrels, ReadError> {
    read_qrels_noted(input, progress).map(|(qrels, _)| qrels)
}

/// Something about qrels that changes what they mean without being an
/// error, for a warning: the qrels are read all the same.
// Not `non_exhaustive`: the `rankeval` crate turns each note into a report
// warning, and a new note should fail to compile there until it does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QrelsNote {
    /// A table of rows (CSV/TSV, JSON Lines rows, a long Parquet or Arrow
    /// table) has no grade column, so every listed pair counts as relevant
    /// with grade 1. Worth saying: a column of ratings under another name
    /// (`rating`) would otherwise be ignored without a word, its zeros
    /// counted relevant. Relevance given as a list (JSON Lines
    /// `"relevant": [...]`, a list column without grades) is binary as
    /// written, and gets no note.
    NoGradeColumn {
        /// The grade column looked for (`--csv-grade`, TOML `grade`).
        grade: String,
        /// The columns the input has (at most the first 20 are kept).
        columns: Vec<String>,
    },
}

impl QrelsNote {
    /// The note for a table without the grade column `options.grade`, whose
    /// columns are `columns`; none when every column is the query's or the
    /// document's (nothing else could hold grades, so binary relevance is
    /// what the file says). Public for inputs read outside this module (a
    /// data frame handed over column by column).
    pub fn no_grade_column(options: &CsvOptions, mut columns: Vec<String>) -> Option<Self> {
        let unmapped = columns
            .iter()
            .any(|c| c != &options.query && c != &options.doc);
        if !unmapped {
            return None;
        }
        columns.truncate(20);
        Some(QrelsNote::NoGradeColumn {
            grade: options.grade.clone(),
            columns: columns
                .iter()
                .map(|c| error::excerpt(c.as_bytes()))
                .collect(),
        })
    }
}

/// Reads qrels, reporting progress, with what the user should be told
/// about them (see [`QrelsNote`]).
pub fn read_qrels_noted(
    input: &Input,
    progress: Progress<'_>,
) -> Result<(Qrels, Option<QrelsNote>), ReadError> {
    read_qrels_as(input, progress, EmptyGrade::Refused).map(|judge| (judge.qrels, judge.note))
}

/// Reads one judge's qrels from a table that holds several judges' grades
/// (a column each: `llm`, `human`), reporting progress. A row whose grade
/// is empty (a CSV or TSV field of nothing but spaces, a JSON Lines row's
/// `null`, a Parquet or Arrow null, an item of a list of grades included)
/// is a pair this judge did not judge: it is left out and counted in
/// [`JudgeQrels::ungraded`], its ids checked as any row's; a list whose
/// every grade is null leaves its query out. Every other reader refuses
/// an empty grade, naming its line or row. Formats with one grade per
/// line (TREC, MS MARCO, JSON) are read as [`read_qrels_noted`] reads them.
pub fn read_judge_qrels(input: &Input, progress: Progress<'_>) -> Result<JudgeQrels, ReadError> {
    read_qrels_as(input, progress, EmptyGrade::Unjudged)
}

/// Reads qrels, an empty grade meaning `empty`.
fn read_qrels_as(
    input: &Input,
    progress: Progress<'_>,
    empty: EmptyGrade,
) -> Result<JudgeQrels, ReadError> {
    let graded = |qrels, note| JudgeQrels {
        qrels,
        note,
        ungraded: UngradedRows::default(),
    };
    match input.loaded_data() {
        Some(Loaded::Qrels(qrels, note)) => return Ok(graded((**qrels).clone(), note.clone())),
        Some(Loaded::Batches(batches)) => {
            let (qrels, note) = qrels_from_batches_noted(&input.name, batches, &input.csv)?;
            return Ok(graded(qrels, note));
        }
        Some(Loaded::Run(_)) => {
            return Err(input.error(
                None,
                ReadErrorKind::BadField("a run, not judgements".to_owned()),
            ));
        }
        None => {}
    }
    match input.format {
        Format::Trec | Format::Msmarco => {
            let parsed = input.parse(&TrecQrels, QRELS_LINE, progress)?;
            give_back_freed_memory();
            let qrels = parsed
                .sink
                .parts
                .finish()
                .map_err(|e| qrels_error(input, e))?;
            Ok(graded(qrels, None))
        }
        Format::Jsonl | Format::JsonlRows | Format::Json => input.read_json_qrels(progress, empty),
        Format::Csv => {
            let mut note = None;
            let sink = input.parse_csv(
                |header, options| {
                    let parser = CsvQrels::new(header, options)?.with_empty(empty);
                    if parser.ungraded() {
                        note = QrelsNote::no_grade_column(options, header.columns().to_vec());
                    }
                    Ok(parser)
                },
                progress,
            )?;
            let (qrels, ungraded) = sink.into_parts(RowAt::Line);
            Ok(JudgeQrels {
                qrels: finish_qrels(input, qrels)?,
                note,
                ungraded,
            })
        }
        Format::Parquet => {
            let source = input.parquet_source()?;
            let (qrels, note, ungraded) =
                parquet::read_qrels(&input.name, source, &input.csv, progress, empty)?;
            Ok(JudgeQrels {
                qrels,
                note,
                ungraded,
            })
        }
        Format::Arrow => input.with_all_bytes(WholeInput::ARROW, |bytes| {
            let (qrels, note, ungraded) =
                ipc::read_qrels(&input.name, bytes, &input.csv, progress, empty)?;
            Ok(JudgeQrels {
                qrels,
                note,
                ungraded,
            })
        }),
    }
}

/// Reads a run.
pub fn read_run(input: &Input, options: ReadOptions) -> Result<Run, ReadError> {
    read_run_with(input, options, &|_| {}).map(|(run, _)| run)
}

/// Reads a run, and the qrels the same file holds if it is JSON Lines with
/// `relevant` (so that one file can serve as both), reporting progress.
pub fn read_run_with(
    input: &Input,
    options: ReadOptions,
    progress: Progress<'_>,
) -> Result<(Run, Option<Qrels>), ReadError> {
    match input.loaded_data() {
        Some(Loaded::Run(run)) => return Ok(((**run).clone(), None)),
        Some(Loaded::Batches(batches)) => {
            return Ok((
                run_from_batches(&input.name, batches, &input.csv, options)?,
                None,
            ));
        }
        Some(Loaded::Qrels(..)) => {
            return Err(input.error(
                None,
                ReadErrorKind::BadField("judgements, not a run".to_owned()),
            ));
        }
        None => {}
    }
    match input.format {
        Format::Trec => {
            let parsed = input.parse(&TrecRun, RUN_LINE, progress)?;
            Ok((finish_run(input, parsed.sink, options)?, None))
        }
        Format::Msmarco => {
            let parsed = input.parse(&MsmarcoRun, MSMARCO_RUN_LINE, progress)?;
            Ok((finish_run(input, parsed.sink, options)?, None))
        }
        Format::Jsonl | Format::JsonlRows | Format::Json => input.read_json_run(options, progress),
        Format::Csv => {
            let sink = input.parse_csv(CsvRun::new, progress)?;
            Ok((finish_run(input, sink, options)?, None))
        }
        Format::Parquet => {
            let source = input.parquet_source()?;
            let run = parquet::read_run(&input.name, source, &input.csv, options, progress)?;
            Ok((run, None))
        }
        Format::Arrow => input
            .with_all_bytes(WholeInput::ARROW, |bytes| {
                ipc::read_run(&input.name, bytes, &input.csv, options, progress)
            })
            .map(|run| (run, None)),
    }
}

/// The ir_metadata block heading a TREC run input (`# ir_metadata.start`
/// ... `# ir_metadata.end`, see [`ir_metadata`]), read from at most its
/// first [`ir_metadata::MAX_BYTES`] bytes (and one more). `Ok(None)` when
/// the run has none, is not a TREC run, or cannot be read a second time (a
/// pipe: the engine reads its block from the spill file it copied the pipe
/// to, `stream::Spill::replay`). A block that cannot be read is an error
/// naming the file and the block's line; the engine makes it a warning and
/// evaluates the run all the same (trec_eval skips the block as comments).
pub fn read_ir_metadata(input: &Input) -> Result<Option<ir_metadata::IrMetadata>, ReadError> {
    if input.format != Format::Trec {
        return Ok(None);
    }
    match &input.origin {
        Origin::File(path) if std::fs::metadata(path).is_ok_and(|m| m.is_file()) => {}
        Origin::Bytes(_) => {}
        Origin::File(_) | Origin::Teed(..) | Origin::Loaded(_) => return Ok(None),
    }
    let io = |e: io::Error| input.error(None, e.into());
    let limit = ir_metadata::MAX_BYTES;
    let block = |head: &[u8], truncated: bool| {
        ir_metadata::parse_head(head, truncated).map_err(|e| {
            input.error(
                Some(e.line as u64),
                ReadErrorKind::BadField(format!("ir_metadata block: {}", e.problem)),
            )
        })
    };
    match input.source().map_err(io)? {
        Source::Bytes(bytes) => block(&bytes[..bytes.len().min(limit)], bytes.len() > limit),
        Source::Mapped(map) => {
            let bytes = map.bytes();
            block(&bytes[..bytes.len().min(limit)], bytes.len() > limit)
        }
        Source::Stream(stream) => {
            let mut head = Vec::new();
            let mut stream = stream.take(limit as u64 + 1);
            // Most runs have no block: their first bytes say so.
            (&mut stream).take(64).read_to_end(&mut head).map_err(io)?;
            let first = head.trim_ascii_start();
            if !first.is_empty() && !first.starts_with(b"#") {
                return Ok(None);
            }
            stream.read_to_end(&mut head).map_err(io)?;
            let truncated = head.len() > limit;
            head.truncate(limit);
            block(&head, truncated)
        }
    }
}

fn no_lines_with(input: &Input, key: &str, holds: &str) -> ReadError {
    input.error(
        None,
        ReadErrorKind::BadField(format!("no line has `{key}`, so the file holds no {holds}")),
    )
}

/// The first line of `bytes` that is not blank (without its line end), or
/// the number of the first line longer than the line limit before it.
fn first_line(bytes: &[u8]) -> Result<&[u8], u64> {
    let mut rest = bytes;
    let mut number = 1;
    while !rest.is_empty() {
        // Looks no further than one line past the limit: a sparse file of
        // gigabytes without a newline is not scanned to its end.
        let window = &rest[..rest.len().min(lines::LINE_LIMIT + 1)];
        let end = match memchr::memchr(b'\n', window) {
            Some(end) => end,
            None if window.len() > lines::LINE_LIMIT => return Err(number),
            None => window.len(),
        };
        let line = &rest[..end];
        if !line.trim_ascii().is_empty() {
            return Ok(line);
        }
        rest = rest.get(end + 1..).unwrap_or_default();
        number += 1;
    }
    Ok(&[])
}

impl Input {
    /// The source, and its first non-blank line (read ahead and put back for
    /// a stream).
    fn source_with_head(&self) -> Result<(Source<'_>, Vec<u8>), ReadError> {
        use std::io::BufRead;
        let io = |e: io::Error| self.error(None, e.into());
        match self.source().map_err(io)? {
            Source::Stream(stream) => {
                let mut reader = BufReader::with_capacity(1 << 16, stream);
                let mut head = Vec::new();
                let mut number = 0;
                loop {
                    let start = head.len();
                    number += 1;
                    // One line at most past the limit: `/dev/zero` or a
                    // pipe without newlines is refused, not read to its end.
                    let limit = lines::LINE_LIMIT as u64 + 1;
                    let read = (&mut reader)
                        .take(limit)
                        .read_until(b'\n', &mut head)
                        .map_err(io)?;
                    if read as u64 == limit && head.last() != Some(&b'\n') {
                        return Err(self.too_long(number));
                    }
                    if read == 0 || !head[start..].trim_ascii().is_empty() {
                        break;
                    }
                }
                let line = first_line(&head).map_err(|n| self.too_long(n))?.to_vec();
                let source = Source::Stream(Box::new(io::Cursor::new(head).chain(reader)));
                Ok((source, line))
            }
            in_place => {
                let bytes = match &in_place {
                    Source::Bytes(bytes) => bytes,
                    Source::Mapped(map) => map.bytes(),
                    Source::Stream(_) => &[][..],
                };
                let line = first_line(bytes).map_err(|n| self.too_long(n))?.to_vec();
                Ok((in_place, line))
            }
        }
    }

    /// Line `number` is longer than the line limit.
    fn too_long(&self, number: u64) -> ReadError {
        self.error(
            Some(number),
            ReadErrorKind::LineTooLong {
                limit: lines::LINE_LIMIT,
            },
        )
    }

    /// The JSON shape to read: the one the format names, else told from
    /// the first line.
    fn json_shape(&self, head: &[u8]) -> json::Shape {
        match self.format {
            Format::JsonlRows => json::Shape::Rows,
            Format::Json => json::Shape::DictOfDicts,
            _ => json::shape(head, &self.csv),
        }
    }

    /// The whole source as bytes, read to its end if it is a stream.
    fn all_of<T>(
        &self,
        source: Source<'_>,
        then: impl FnOnce(&[u8]) -> Result<T, ReadError>,
    ) -> Result<T, ReadError> {
        match source {
            Source::Bytes(bytes) => then(bytes),
            Source::Mapped(map) => then(map.bytes()),
            Source::Stream(stream) => {
                then(&whole::read_bounded(stream, &self.name, WholeInput::TEXT)?)
            }
        }
    }

    fn parse_all<P: LineParser>(
        &self,
        source: Source<'_>,
        parser: &P,
        expected: &'static str,
        progress: Progress<'_>,
    ) -> Result<P::Sink, ReadError> {
        let parsed = self.parse_from(source, 0, 1, parser, progress)?;
        if parsed.data_lines == 0 {
            return Err(self.error(None, ReadErrorKind::Empty { expected }));
        }
        Ok(parsed.sink)
    }

    /// Reads a JSON input as a run (and the qrels a file with one query per
    /// line may hold).
    fn read_json_run(
        &self,
        options: ReadOptions,
        progress: Progress<'_>,
    ) -> Result<(Run, Option<Qrels>), ReadError> {
        let (source, head) = self.source_with_head()?;
        match self.json_shape(&head) {
            json::Shape::QueryLines => {
                let keys = JsonKeys::of(&self.csv);
                let sink: JsonlSink =
                    self.parse_all(source, &Jsonl::new(keys.clone()), JSONL_LINE, progress)?;
                if sink.predicted_lines == 0 {
                    return Err(no_lines_with(self, &keys.predicted, "run"));
                }
                let qrels = if sink.relevant_lines > 0 {
                    Some(finish_qrels(self, sink.qrels)?)
                } else {
                    None
                };
                Ok((finish_run(self, sink.run, options)?, qrels))
            }
            json::Shape::Rows => {
                let rows = json::Rows::run(&self.csv, &head).map_err(|k| self.error(None, k))?;
                let sink = self.parse_all(source, &json::RowRun(rows), json::ROW_LINE, progress)?;
                Ok((finish_run(self, sink, options)?, None))
            }
            json::Shape::DictOfDicts => {
                let run = self.all_of(source, |bytes| {
                    progress(bytes.len() as u64);
                    let mut run = RunBuilder::new();
                    let entries = json::read_dict_of_dicts(bytes, &mut run)
                        .map_err(|k| self.error(None, k))?;
                    if entries == 0 && run.is_empty() {
                        return Err(self.error(
                            None,
                            ReadErrorKind::Empty {
                                expected: json::DICT_OF_DICTS,
                            },
                        ));
                    }
                    Ok(run)
                })?;
                // Its positions count entries, not lines: an error names
                // the entries.
                let run = run
                    .finish_with(options.duplicates, options.ties)
                    .map_err(|e| match run_error_at(e) {
                        (
                            Some(second),
                            ReadErrorKind::DuplicateDoc {
                                query,
                                doc,
                                first_line,
                            },
                        ) => self.error(
                            None,
                            ReadErrorKind::BadField(format!(
                                "document `{doc}` appears twice in the object of query `{query}` \
                                 (entries {first_line} and {second} of the file, counted from \
                                 its start); to keep the best-ranked occurrence, use \
                                 --duplicates first (TOML: duplicates = \"first\")"
                            )),
                        ),
                        (_, kind) => self.error(None, kind),
                    })?;
                Ok((run, None))
            }
        }
    }

    /// Reads a JSON input as qrels (a `null` grade of a row meaning
    /// `empty`), with the note that rows have no grade and the rows left
    /// out as not judged.
    fn read_json_qrels(
        &self,
        progress: Progress<'_>,
        empty: EmptyGrade,
    ) -> Result<JudgeQrels, ReadError> {
        let (source, head) = self.source_with_head()?;
        let graded = |qrels| JudgeQrels {
            qrels,
            note: None,
            ungraded: UngradedRows::default(),
        };
        match self.json_shape(&head) {
            json::Shape::QueryLines => {
                let keys = JsonKeys::of(&self.csv);
                let sink: JsonlSink =
                    self.parse_all(source, &Jsonl::new(keys.clone()), JSONL_LINE, progress)?;
                if sink.relevant_lines == 0 {
                    return Err(no_lines_with(self, &keys.relevant, "qrels"));
                }
                Ok(graded(finish_qrels(self, sink.qrels)?))
            }
            json::Shape::Rows => {
                let rows = json::Rows::qrels(&self.csv, &head)
                    .map_err(|k| self.error(None, k))?
                    .with_empty(empty);
                let note = if rows.ungraded() {
                    QrelsNote::no_grade_column(&self.csv, json::first_keys(&head))
                } else {
                    None
                };
                let sink =
                    self.parse_all(source, &json::RowQrels(rows), json::ROW_LINE, progress)?;
                let (qrels, ungraded) = sink.into_parts(RowAt::Line);
                Ok(JudgeQrels {
                    qrels: finish_qrels(self, qrels)?,
                    note,
                    ungraded,
                })
            }
            json::Shape::DictOfDicts => self.all_of(source, |bytes| {
                progress(bytes.len() as u64);
                let mut qrels = QrelsBuilder::new();
                let entries =
                    json::read_dict_of_dicts(bytes, &mut qrels).map_err(|k| self.error(None, k))?;
                if entries == 0 && qrels.is_empty() {
                    return Err(self.error(
                        None,
                        ReadErrorKind::Empty {
                            expected: json::DICT_OF_DICTS,
                        },
                    ));
                }
                // Its positions count entries, not lines: an error names
                // the entries.
                let qrels = qrels.finish().map_err(|e| match e {
                    rankeval_core::QrelsError::ConflictingGrades {
                        query,
                        doc,
                        first_grade,
                        first,
                        second_grade,
                        second,
                    } => self.error(
                        None,
                        ReadErrorKind::BadField(format!(
                            "document `{doc}` of query `{query}` is judged {first_grade} and \
                             {second_grade} (entries {first} and {second} of the file, counted \
                             from its start)"
                        )),
                    ),
                    other => qrels_error(self, other),
                })?;
                Ok(graded(qrels))
            }),
        }
    }
}

fn finish_run(input: &Input, builder: RunBuilder, options: ReadOptions) -> Result<Run, ReadError> {
    builder
        .finish_with(options.duplicates, options.ties)
        .map_err(|e| {
            let (line, kind) = run_error_at(e);
            input.error(line, kind)
        })
}

/// A core error from finishing a run, as the line it is on and the problem.
fn run_error_at(error: RunError) -> (Option<u64>, ReadErrorKind) {
    match error {
        RunError::DuplicateDoc {
            query,
            doc,
            first,
            second,
        } => (
            Some(second),
            ReadErrorKind::DuplicateDoc {
                query,
                doc,
                first_line: first,
            },
        ),
        RunError::MixedOrdering { query } => (
            None,
            ReadErrorKind::BadField(format!(
                "query `{query}` has lines with scores and lines without"
            )),
        ),
        other => (None, ReadErrorKind::Data(other.to_string())),
    }
}

/// Hands the memory freed while pieces were parsed back to the system
/// before the qrels' query table is built: glibc's allocator keeps it
/// otherwise (the builders of the parallel pieces, the old buffers of the
/// growing columns), and it would add to the peak.
fn give_back_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[allow(unsafe_code)]
    // SAFETY: malloc_trim only returns free memory of glibc's arenas to
    // the system; it takes no pointer and touches no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}

fn finish_qrels(input: &Input, builder: QrelsBuilder) -> Result<Qrels, ReadError> {
    builder.finish().map_err(|e| qrels_error(input, e))
}

/// A core error from finishing qrels, as a read error in `input`.
fn qrels_error(input: &Input, error: QrelsError) -> ReadError {
    match error {
        QrelsError::ConflictingGrades {
            query,
            doc,
            first_grade,
            first,
            second_grade,
            second,
        } => input.error(
            Some(second),
            ReadErrorKind::ConflictingGrades {
                query,
                doc,
                first_grade,
                first_line: first,
                second_grade,
            },
        ),
        other => input.error(None, ReadErrorKind::Data(other.to_string())),
    }
}
