//! `-Z zscore_file`: trec_eval's z-scores. The file gives, per query and
//! measure, the mean and standard deviation of that measure over a
//! reference set of runs (`qid measure mean stddev`, whitespace
//! separated); each value is then printed as `(value - mean) / stddev`,
//! under the measure's name with a `Z` in front, as trec_eval 10 does
//! (`convert_zscores.c`, `get_zscores.c`).
//!
//! A query or a measure the file lacks gives trec_eval's
//! [`MISSING_ZSCORE_VALUE`], as does a stddev of 0 unless the value equals
//! the mean (then 0).

use std::collections::HashMap;
use std::path::Path;

/// What trec_eval prints for a value whose mean and deviation the file
/// does not give (`MISSING_ZSCORE_VALUE`).
pub const MISSING_ZSCORE_VALUE: f64 = -1_000_000.0;

/// A z-score file that cannot be used; exit code 2.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ZScoreError {
    /// The file cannot be read.
    #[error("-Z {path}: cannot read the z-score file: {problem}")]
    Read {
        /// The file.
        path: String,
        /// The system's message.
        problem: String,
    },
    /// The file has no lines.
    #[error("-Z {path}: the z-score file is empty (expected lines `qid measure mean stddev`)")]
    Empty {
        /// The file.
        path: String,
    },
    /// A line is not `qid measure mean stddev`.
    #[error("-Z {path}, line {line}: {problem} (expected `qid measure mean stddev`)")]
    Malformed {
        /// The file.
        path: String,
        /// The line number, from 1.
        line: u64,
        /// What is wrong.
        problem: String,
    },
    /// The same query and measure twice.
    #[error(
        "-Z {path}, line {line}: query `{query}` and measure `{measure}` were already given on line {first}"
    )]
    Duplicate {
        /// The file.
        path: String,
        /// The line number of the repeat.
        line: u64,
        /// The line number of the first.
        first: u64,
        /// The query.
        query: String,
        /// The measure.
        measure: String,
    },
}

/// One query and measure's reference mean and deviation.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Reference {
    mean: f64,
    stddev: f64,
    line: u64,
}

/// The means and deviations of a z-score file, by query then measure.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ZScores {
    by_query: HashMap<String, HashMap<String, Reference>>,
}

impl ZScores {
    /// Reads a z-score file.
    pub fn read(path: &Path) -> Result<Self, ZScoreError> {
        let shown = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| ZScoreError::Read {
            path: shown.clone(),
            problem: e.to_string(),
        })?;
        Self::parse(&bytes, &shown)
    }

    /// Reads a z-score file's bytes; `path` names it in errors. Blank
    /// lines are skipped (trec_eval calls them malformed).
    pub fn parse(bytes: &[u8], path: &str) -> Result<Self, ZScoreError> {
        let mut zscores = Self::default();
        let mut lines = 0;
        for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
            let line = i as u64 + 1;
            let malformed = |problem: String| ZScoreError::Malformed {
                path: path.to_owned(),
                line,
                problem,
            };
            let text = std::str::from_utf8(raw)
                .map_err(|_| malformed("the line is not valid UTF-8".to_owned()))?;
            // trec_eval's isspace: space, \t, \n, \v, \f, \r.
            let fields: Vec<&str> = text
                .split([' ', '\t', '\x0B', '\x0C', '\r'])
                .filter(|f| !f.is_empty())
                .collect();
            if fields.is_empty() {
                continue;
            }
            if fields.len() != 4 {
                return Err(malformed(format!("{} fields", fields.len())));
            }
            let number = |name: &str, text: &str| {
                text.parse::<f64>()
                    .map_err(|_| malformed(format!("the {name} `{text}` is not a number")))
            };
            let reference = Reference {
                mean: number("mean", fields[2])?,
                stddev: number("stddev", fields[3])?,
                line,
            };
            let measures = zscores.by_query.entry(fields[0].to_owned()).or_default();
            if let Some(first) = measures.get(fields[1]) {
                return Err(ZScoreError::Duplicate {
                    path: path.to_owned(),
                    line,
                    first: first.line,
                    query: fields[0].to_owned(),
                    measure: fields[1].to_owned(),
                });
            }
            measures.insert(fields[1].to_owned(), reference);
            lines += 1;
        }
        if lines == 0 {
            return Err(ZScoreError::Empty {
                path: path.to_owned(),
            });
        }
        Ok(zscores)
    }

    /// `value` of `measure` (its printed name, e.g. `P_10`) for `query` as
    /// a z-score: `(value - mean) / stddev`; with a stddev of 0, 0 if the
    /// value is the mean; [`MISSING_ZSCORE_VALUE`] otherwise or when the
    /// file does not give this query and measure.
    pub fn convert(&self, query: &str, measure: &str, value: f64) -> f64 {
        let Some(reference) = self.by_query.get(query).and_then(|m| m.get(measure)) else {
            return MISSING_ZSCORE_VALUE;
        };
        if reference.stddev != 0.0 {
            (value - reference.mean) / reference.stddev
        } else if value == reference.mean {
            0.0
        } else {
            MISSING_ZSCORE_VALUE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ZScores, ZScoreError> {
        ZScores::parse(text.as_bytes(), "z.txt")
    }

    #[test]
    fn converts_with_the_files_mean_and_deviation() {
        let z = parse("q1 map 0.25 0.5\n\n  q1\tP_10 0.1 0\r\nq2 map 1e-1 2 \n").unwrap();
        assert_eq!(z.convert("q1", "map", 0.5), (0.5 - 0.25) / 0.5);
        assert_eq!(z.convert("q2", "map", 0.3), (0.3 - 0.1) / 2.0);
        // stddev 0: 0 at the mean, missing elsewhere.
        assert_eq!(z.convert("q1", "P_10", 0.1), 0.0);
        assert_eq!(z.convert("q1", "P_10", 0.2), MISSING_ZSCORE_VALUE);
        // A query or measure the file lacks.
        assert_eq!(z.convert("q3", "map", 0.5), MISSING_ZSCORE_VALUE);
        assert_eq!(z.convert("q2", "P_10", 0.5), MISSING_ZSCORE_VALUE);
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        assert!(matches!(parse(""), Err(ZScoreError::Empty { .. })));
        assert!(matches!(parse("\n \n"), Err(ZScoreError::Empty { .. })));
        let three = parse("q1 map 0.1 0.2\nq1 P_5 0.1\n").unwrap_err();
        assert_eq!(
            three.to_string(),
            "-Z z.txt, line 2: 3 fields (expected `qid measure mean stddev`)"
        );
        let word = parse("q1 map mean 0.2\n").unwrap_err();
        assert!(
            word.to_string()
                .contains("line 1: the mean `mean` is not a number")
        );
        let twice = parse("q1 map 0.1 0.2\nq2 map 0 1\nq1 map 0.3 0.2\n").unwrap_err();
        assert_eq!(
            twice.to_string(),
            "-Z z.txt, line 3: query `q1` and measure `map` were already given on line 1"
        );
    }
}
