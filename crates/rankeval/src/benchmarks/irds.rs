//! `irds:<id>`: the qrels of an ir_datasets id, read from ir_datasets' own
//! cache in the format it keeps them, never downloaded nor redistributed
//! by rankeval.
//!
//! ir_datasets (allenai/ir_datasets) keeps its files under its home,
//! `$IR_DATASETS_HOME`, else `~/.ir_datasets` (`ir_datasets.util.home_path`).
//! A file it downloads as is lands at `<home>/<dataset>/<cache_path>` and
//! is checked against the `expected_md5` of its `etc/downloads.json`
//! (`DownloadConfig.__getitem__`); a file it extracts from an archive is
//! cached at a path of the dataset's module (`datasets/beir.py`:
//! `<home>/beir/<set>/test.qrels`) with no MD5 recorded. The card
//! ([`super::card`]) records both for each id. Where the cache lacks the
//! file, the one command that fills it is `ir_datasets export <id> qrels`;
//! `--fetch` runs it (the Python package, when installed).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use md5::{Digest, Md5};

use super::{Benchmark, CacheFormat, CachedQrels, card};
use crate::read::{CsvOptions, Format, Input};

/// What marks a qrels input as an ir_datasets id: `irds:msmarco-passage/dev/small`.
pub const PREFIX: &str = "irds:";

/// The variable that moves ir_datasets' home, as ir_datasets reads it.
pub const HOME_VARIABLE: &str = "IR_DATASETS_HOME";

/// The variable naming the Python that `--fetch` runs (default `python3`).
pub const PYTHON_VARIABLE: &str = "RANKEVAL_PYTHON";

/// The largest cached file hashed, as the readers' limit on a whole input.
const MAX_BYTES: u64 = rankeval_readers::MAX_WHOLE_BYTES;

/// The ir_datasets id that `text` names, if it begins with [`PREFIX`].
pub fn id_of(text: &str) -> Option<&str> {
    text.strip_prefix(PREFIX)
}

/// ir_datasets' home: `$IR_DATASETS_HOME`, else `~/.ir_datasets`.
pub fn home() -> Option<PathBuf> {
    match std::env::var_os(HOME_VARIABLE) {
        Some(home) if !home.is_empty() => Some(PathBuf::from(home)),
        _ => std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| Path::new(&h).join(".ir_datasets")),
    }
}

/// The one command that fills ir_datasets' cache with `id`'s qrels.
pub fn fill_command(id: &str) -> String {
    format!("ir_datasets export {id} qrels > /dev/null")
}

/// An `irds:` qrels input cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IrdsError {
    /// The id is not in rankeval's benchmark card.
    #[error(
        "`{}` is not in rankeval's benchmark card: `rankeval benchmarks` lists the ids it \
         knows (give a qrels file otherwise)",
        rankeval_core::shorten_id(id.as_bytes())
    )]
    Unknown {
        /// The id given.
        id: String,
    },
    /// The benchmark's value is the mean of other benchmarks' values.
    #[error(
        "{id} is reported as the mean of {} forums, each with its own qrels ({}): give \
         its qrels as irds:{id}, with a run per forum (a pattern with {}, or a folder of \
         files named by forum), and rankeval takes the mean",
        parts.len(),
        parts.iter().map(|p| format!("irds:{p}")).collect::<Vec<_>>().join(", "),
        super::parts::PLACEHOLDER
    )]
    Aggregate {
        /// The id given.
        id: String,
        /// The benchmarks it averages.
        parts: Vec<String>,
    },
    /// Neither `$IR_DATASETS_HOME` nor `$HOME` is set.
    #[error("cannot find ir_datasets' cache: set {HOME_VARIABLE} (or HOME)")]
    NoHome,
    /// The cache lacks the file.
    #[error(
        "{}: not in ir_datasets' cache; fill it with `{}` (or give --fetch to run it)",
        path.display(),
        fill_command(id)
    )]
    NotCached {
        /// The id.
        id: String,
        /// Where ir_datasets keeps the file.
        path: PathBuf,
    },
    /// The cached path is no regular file (a folder, FIFO or device).
    #[error("{}: not a regular file, so not ir_datasets' cached qrels", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// The file cannot be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is larger than any qrels file rankeval reads whole.
    #[error("{}: larger than {limit} bytes, the limit on a qrels file", path.display())]
    TooLarge {
        /// The path.
        path: PathBuf,
        /// The limit.
        limit: u64,
    },
    /// The file's MD5 is not the one ir_datasets records.
    #[error(
        "{}: MD5 is {actual}, but ir_datasets records {expected} for {id}: the file changed; \
         remove it and fill the cache again with `{}`",
        path.display(),
        fill_command(id)
    )]
    Md5 {
        /// The id.
        id: String,
        /// The file.
        path: PathBuf,
        /// The MD5 ir_datasets records.
        expected: String,
        /// The file's MD5.
        actual: String,
    },
    /// `--fetch` needs ir_datasets, which is not installed.
    #[error(
        "--fetch runs ir_datasets (the Python package), which `{python}` cannot import \
         ({detail}): install it (`pip install ir_datasets`), or fill the cache with `{}`",
        fill_command(id)
    )]
    NoIrDatasets {
        /// The id.
        id: String,
        /// The Python run.
        python: String,
        /// What went wrong.
        detail: String,
    },
    /// ir_datasets ran and failed, or left no file.
    #[error("`{}` {outcome} (its messages are above)", fill_command(id))]
    FetchFailed {
        /// The id.
        id: String,
        /// What happened.
        outcome: String,
    },
}

/// An `irds:` id resolved to its cached file.
#[derive(Debug)]
pub struct CachedInput {
    /// The benchmark of the card.
    pub benchmark: &'static Benchmark,
    /// The qrels input: the cached file, its format and columns.
    pub input: Input,
    /// The usage terms to show, when `--fetch` filled the cache (ir_datasets
    /// shows them when it downloads).
    pub dua_shown: Option<&'static str>,
}

/// The cached qrels that `text` names when it is `irds:<id>` (ir_datasets'
/// home from the environment, [`home`]); `None` for any other text.
pub fn cached(text: &str, fetch: bool) -> Option<Result<CachedInput, IrdsError>> {
    let id = id_of(text)?;
    Some(
        home()
            .ok_or(IrdsError::NoHome)
            .and_then(|home| resolve(id, &home, fetch)),
    )
}

/// The benchmark of the card with `id`, evaluated alone (not the mean of
/// others).
pub fn benchmark(id: &str) -> Result<&'static Benchmark, IrdsError> {
    let benchmark = card()
        .find(id)
        .ok_or_else(|| IrdsError::Unknown { id: id.to_owned() })?;
    if benchmark.qrels.is_none() {
        return Err(IrdsError::Aggregate {
            id: id.to_owned(),
            parts: benchmark.parts.clone(),
        });
    }
    Ok(benchmark)
}

/// A benchmark reported as the mean of its parts (CQADupStack), resolved:
/// each part's cached qrels.
#[derive(Debug)]
pub struct CachedParts {
    /// The benchmark of the card.
    pub benchmark: &'static Benchmark,
    /// Each part's name (`android`), id and cached qrels, in the card's
    /// order.
    pub parts: Vec<(String, String, CachedInput)>,
}

/// The cached qrels of every part of `id` under `home` when the card
/// reports `id` as the mean of its parts, each found (and, with `fetch`,
/// fetched) as [`resolve`] finds one: the first missing is the error,
/// naming that part's file and the command that fills it. `None` when
/// `id` is no such benchmark.
pub fn resolve_parts(id: &str, home: &Path, fetch: bool) -> Option<Result<CachedParts, IrdsError>> {
    let benchmark = card().find(id).filter(|b| !b.parts.is_empty())?;
    let resolved = super::parts::names(benchmark)
        .into_iter()
        .map(|(name, part)| {
            let cached = resolve(&part, home, fetch)?;
            Ok((name, part, cached))
        })
        .collect::<Result<Vec<_>, IrdsError>>();
    Some(resolved.map(|parts| CachedParts { benchmark, parts }))
}

/// The qrels of `id` in ir_datasets' cache under `home`: the file checked
/// against the MD5 ir_datasets records; with `fetch`, ir_datasets fills
/// the cache first when the file is missing.
pub fn resolve(id: &str, home: &Path, fetch: bool) -> Result<CachedInput, IrdsError> {
    let card = card();
    let benchmark = benchmark(id)?;
    let qrels = benchmark
        .qrels
        .as_ref()
        .ok_or_else(|| IrdsError::Unknown { id: id.to_owned() })?;
    let path = qrels.cached_path(home);
    let mut dua_shown = None;
    if fetch && !path.exists() {
        dua_shown = card.dua_of(benchmark);
        run_ir_datasets(id)?;
        if !path.exists() {
            return Err(IrdsError::FetchFailed {
                id: id.to_owned(),
                outcome: format!("ran, but left no {}", path.display()),
            });
        }
    }
    Ok(CachedInput {
        benchmark,
        input: qrels.input(id, home)?,
        dua_shown,
    })
}

impl CachedQrels {
    /// Where ir_datasets keeps the file under `home`.
    pub fn cached_path(&self, home: &Path) -> PathBuf {
        self.path
            .split('/')
            .fold(home.to_path_buf(), |p, c| p.join(c))
    }

    /// The cached file of `id` under `home` as an input: there, a regular
    /// file, of the MD5 ir_datasets records (when it records one).
    pub fn input(&self, id: &str, home: &Path) -> Result<Input, IrdsError> {
        let path = self.cached_path(home);
        let metadata = match std::fs::metadata(&path) {
            Ok(metadata) => metadata,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(IrdsError::NotCached {
                    id: id.to_owned(),
                    path,
                });
            }
            Err(source) => return Err(IrdsError::Read { path, source }),
        };
        if !metadata.is_file() {
            return Err(IrdsError::NotAFile { path });
        }
        if let Some(expected) = &self.md5 {
            let actual = md5_of(&path)?;
            if !actual.eq_ignore_ascii_case(expected) {
                return Err(IrdsError::Md5 {
                    id: id.to_owned(),
                    path,
                    expected: expected.clone(),
                    actual,
                });
            }
        }
        Ok(self.format.input(&path))
    }
}

impl CacheFormat {
    /// The file at `path` read as this format, with the readers' own
    /// columns options.
    pub fn input(self, path: &Path) -> Input {
        let input = Input::file(path);
        match self {
            CacheFormat::Trec => input.with_format(Format::Trec),
            CacheFormat::Msmarco => input.with_format(Format::Msmarco),
            CacheFormat::Beir => input.with_format(Format::Csv).with_columns(CsvOptions {
                query: "query-id".to_owned(),
                doc: "corpus-id".to_owned(),
                grade: "score".to_owned(),
                delimiter: Some('\t'),
                ..CsvOptions::default()
            }),
            CacheFormat::Lotte => input.with_format(Format::Jsonl).with_columns(CsvOptions {
                query: "qid".to_owned(),
                relevant: "answer_pids".to_owned(),
                ..CsvOptions::default()
            }),
        }
    }
}

/// The MD5 of the regular file at `path`, in lowercase hex, read in
/// blocks (never whole), at most the readers' limit.
pub fn md5_of(path: &Path) -> Result<String, IrdsError> {
    let read = |source| IrdsError::Read {
        path: path.to_owned(),
        source,
    };
    // Looked at before it is opened: opening a FIFO no one writes would
    // wait for ever. Looked at again once open, in case it was replaced.
    if !std::fs::metadata(path).map_err(read)?.is_file() {
        return Err(IrdsError::NotAFile {
            path: path.to_owned(),
        });
    }
    let file = std::fs::File::open(path).map_err(read)?;
    let metadata = file.metadata().map_err(read)?;
    if !metadata.is_file() {
        return Err(IrdsError::NotAFile {
            path: path.to_owned(),
        });
    }
    if metadata.len() > MAX_BYTES {
        return Err(IrdsError::TooLarge {
            path: path.to_owned(),
            limit: MAX_BYTES,
        });
    }
    let mut limited = file.take(MAX_BYTES + 1);
    let mut hasher = Md5::new();
    let mut buffer = vec![0u8; 1 << 20];
    let mut total = 0u64;
    loop {
        let n = match limited.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(read(e)),
        };
        total += n as u64;
        if total > MAX_BYTES {
            return Err(IrdsError::TooLarge {
                path: path.to_owned(),
                limit: MAX_BYTES,
            });
        }
        hasher.update(&buffer[..n]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// Runs `ir_datasets export <id> qrels` (its output discarded, its
/// messages shown), with the Python of [`PYTHON_VARIABLE`].
fn run_ir_datasets(id: &str) -> Result<(), IrdsError> {
    let python = std::env::var(PYTHON_VARIABLE).unwrap_or_else(|_| "python3".to_owned());
    let no_package = |detail: String| IrdsError::NoIrDatasets {
        id: id.to_owned(),
        python: python.clone(),
        detail,
    };
    let probe = Command::new(&python)
        .args(["-c", "import ir_datasets"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| no_package(format!("cannot run it: {e}")))?;
    if !probe.success() {
        return Err(no_package("`import ir_datasets` fails".to_owned()));
    }
    let status = Command::new(&python)
        .args(["-m", "ir_datasets", "export", id, "qrels"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .status()
        .map_err(|e| IrdsError::FetchFailed {
            id: id.to_owned(),
            outcome: format!("cannot run: {e}"),
        })?;
    if !status.success() {
        return Err(IrdsError::FetchFailed {
            id: id.to_owned(),
            outcome: format!("failed ({status})"),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::read_qrels;

    /// Writes `text` at the path ir_datasets keeps `id`'s qrels under `home`.
    fn cache(home: &Path, id: &str, text: &str) -> CachedQrels {
        let qrels = card().find(id).and_then(|b| b.qrels.clone()).unwrap();
        let path = qrels.cached_path(home);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        qrels
    }

    #[test]
    fn each_layout_is_read_where_ir_datasets_keeps_it() {
        let home = tempfile::tempdir().unwrap();
        let home = home.path();
        // MS MARCO dev/small: extracted, no MD5, `qid 0 pid 1` with tabs.
        cache(
            home,
            "msmarco-passage/dev/small",
            "1048585\t0\t7187158\t1\n2\t0\t1\t1\n",
        );
        let got = resolve("msmarco-passage/dev/small", home, false).unwrap();
        assert_eq!(
            got.input.path(),
            Some(home.join("msmarco-passage/dev/small/qrels").as_path())
        );
        let qrels = read_qrels(&got.input).unwrap();
        assert_eq!(qrels.num_queries(), 2);
        // BEIR: a TSV with its header, extracted.
        cache(
            home,
            "beir/scifact/test",
            "query-id\tcorpus-id\tscore\n1\t31715818\t1\n3\t14717500\t1\n3\t5\t0\n",
        );
        let got = resolve("beir/scifact/test", home, false).unwrap();
        assert!(got.benchmark.drop_identical_ids);
        let qrels = read_qrels(&got.input).unwrap();
        assert_eq!(qrels.num_queries(), 2);
        // LoTTE: ColBERT's `qas.*.jsonl`, integer ids, other keys ignored.
        cache(
            home,
            "lotte/science/test/search",
            "{\"qid\": 0, \"query\": \"what is a quark?\", \"answer_pids\": [12, 40]}\n\
             {\"qid\": 1, \"query\": \"b\", \"answer_pids\": [3]}\n",
        );
        let got = resolve("lotte/science/test/search", home, false).unwrap();
        let qrels = read_qrels(&got.input).unwrap();
        assert_eq!(qrels.num_queries(), 2);
        // TREC DL 2019 passage: downloaded as is, with its MD5; the test's
        // file has its own, given as the expected one.
        let text = "19335 0 1017759 0\n19335 0 1082489 3\n";
        let mut dl = cache(home, "msmarco-passage/trec-dl-2019", text);
        let path = dl.cached_path(home);
        assert_eq!(path, home.join("msmarco-passage/trec-dl-2019/qrels"));
        let error = resolve("msmarco-passage/trec-dl-2019/judged", home, false).unwrap_err();
        let text_of = error.to_string();
        assert!(
            matches!(&error, IrdsError::Md5 { expected, .. } if expected == "2f4be390198da108f6845c822e5ada14"),
            "{text_of}"
        );
        assert!(text_of.contains(&path.display().to_string()), "{text_of}");
        assert!(text_of.contains("ir_datasets export msmarco-passage/trec-dl-2019/judged qrels"));
        dl.md5 = Some(md5_of(&path).unwrap());
        let input = dl.input("msmarco-passage/trec-dl-2019", home).unwrap();
        assert_eq!(read_qrels(&input).unwrap().num_queries(), 1);
        // One changed byte fails loudly.
        std::fs::write(&path, text.replace('3', "2")).unwrap();
        let error = dl.input("msmarco-passage/trec-dl-2019", home).unwrap_err();
        assert!(matches!(error, IrdsError::Md5 { .. }), "{error}");
    }

    #[test]
    fn a_missing_cache_gives_the_command_that_fills_it() {
        let home = tempfile::tempdir().unwrap();
        let error = resolve("beir/arguana", home.path(), false).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "{}: not in ir_datasets' cache; fill it with `ir_datasets export beir/arguana \
                 qrels > /dev/null` (or give --fetch to run it)",
                home.path().join("beir/arguana/test.qrels").display()
            )
        );
        assert!(matches!(
            resolve("nope/x", home.path(), false),
            Err(IrdsError::Unknown { .. })
        ));
        let error = resolve("beir/cqadupstack", home.path(), false).unwrap_err();
        assert!(
            error.to_string().contains("irds:beir/cqadupstack/android"),
            "{error}"
        );
    }

    #[test]
    fn md5_is_refused_on_what_is_no_regular_file() {
        let home = tempfile::tempdir().unwrap();
        assert!(matches!(
            md5_of(home.path()),
            Err(IrdsError::NotAFile { .. } | IrdsError::Read { .. })
        ));
        assert!(matches!(
            md5_of(Path::new("/dev/zero")),
            Err(IrdsError::NotAFile { .. })
        ));
        // A FIFO no one writes is refused, not opened (which would block).
        let fifo = home.path().join("fifo");
        let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        assert!(matches!(md5_of(&fifo), Err(IrdsError::NotAFile { .. })));
        let empty = home.path().join("e");
        std::fs::write(&empty, "").unwrap();
        assert_eq!(md5_of(&empty).unwrap(), "d41d8cd98f00b204e9800998ecf8427e");
    }
}
