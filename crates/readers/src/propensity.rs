//! Label propensities of the propensity-scored metrics (PSP@k, PSnDCG@k):
//! a label-frequency table (`label, count`: how many training instances
//! each label is relevant to, with the number of training instances given
//! beside it) or given inverse propensities (`label, inverse_propensity`).
//!
//! A CSV or TSV table with a header line naming the two columns (others
//! are ignored; a tab in the header makes it TSV, else CSV), read whole
//! through [`read_whole`](crate::read_whole) (size and line limits, gzip).
//! A byte order mark is skipped, blank lines skipped, `\r\n` read. Errors
//! name the file, the line and the column: a label given twice (with its
//! first line), a count that is not a whole number from 0 to 2^64 - 1 or
//! is above the number of training instances, an inverse propensity that
//! is not a finite number above 0.

use std::collections::HashMap;
use std::path::Path;

use rankeval_core::LabelPropensities;

use crate::error::excerpt;
use crate::split_csv_line;
use crate::text_table::{header_columns, is_blank, numbered_lines};
use crate::{ReadError, ReadErrorKind};

/// Which table: counts (with the number of training instances) or given
/// inverse propensities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PropensityTable {
    /// `label, count`, from `instances` training instances.
    Counts {
        /// The number of training instances `N`.
        instances: u64,
    },
    /// `label, inverse_propensity`.
    Inverse,
}

impl PropensityTable {
    /// The value column's name.
    pub fn column(self) -> &'static str {
        match self {
            PropensityTable::Counts { .. } => "count",
            PropensityTable::Inverse => "inverse_propensity",
        }
    }
}

/// Reads the table at `path`.
pub fn read_propensities(
    path: &Path,
    table: PropensityTable,
) -> Result<LabelPropensities, ReadError> {
    let bytes = crate::read_whole(path, crate::WholeInput::TEXT)?;
    parse_propensities(&bytes, &path.display().to_string(), table)
}

/// Parses a table's bytes; `name` names the file in errors.
pub fn parse_propensities(
    bytes: &[u8],
    name: &str,
    table: PropensityTable,
) -> Result<LabelPropensities, ReadError> {
    if let PropensityTable::Counts { instances: 0 } = table {
        return Err(ReadError::new(
            name,
            None,
            ReadErrorKind::BadField(
                "the number of training instances must be at least 1 (the model takes its log)"
                    .to_owned(),
            ),
        ));
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut lines = numbered_lines(bytes).filter(|(_, line)| !is_blank(line));
    let value_column = table.column();
    let expected = match table {
        PropensityTable::Counts { .. } => "a header `label,count`, then one line per label",
        PropensityTable::Inverse => "a header `label,inverse_propensity`, then one line per label",
    };
    let Some((header_at, header)) = lines.next() else {
        return Err(ReadError::new(
            name,
            None,
            ReadErrorKind::Empty { expected },
        ));
    };
    let at = |line: u64, kind: ReadErrorKind| ReadError::new(name, Some(line), kind);
    let delimiter = if memchr::memchr(b'\t', header).is_some() {
        b'\t'
    } else {
        b','
    };
    let columns_are = format!("label, {value_column}");
    let (width, [label_at, value_at]) =
        header_columns(header, delimiter, ["label", value_column], &columns_are)
            .map_err(|problem| at(header_at, ReadErrorKind::BadField(problem)))?;
    let mut first_line: HashMap<Box<[u8]>, u64> = HashMap::new();
    let mut counts: HashMap<Box<[u8]>, u64> = HashMap::new();
    let mut inverse: HashMap<Box<[u8]>, f64> = HashMap::new();
    let mut fields: Vec<std::borrow::Cow<'_, [u8]>> = Vec::with_capacity(width);
    for (number, line) in lines {
        fields.clear();
        let found = split_csv_line(line, delimiter, |_, field| fields.push(field))
            .map_err(|kind| at(number, kind))?;
        if found != width {
            return Err(at(
                number,
                ReadErrorKind::ColumnCount {
                    expected: width,
                    found,
                },
            ));
        }
        let (Some(label), Some(value)) = (fields.get(label_at), fields.get(value_at)) else {
            return Err(at(
                number,
                ReadErrorKind::ColumnCount {
                    expected: width,
                    found,
                },
            ));
        };
        let label = label.trim_ascii();
        if label.is_empty() {
            return Err(at(
                number,
                ReadErrorKind::BadField("column `label`: the label is empty".to_owned()),
            ));
        }
        rankeval_core::check_id(label).map_err(|bad| {
            at(
                number,
                ReadErrorKind::BadField(format!("column `label`: {bad}")),
            )
        })?;
        if let Some(before) = first_line.get(label) {
            return Err(at(
                number,
                ReadErrorKind::BadField(format!(
                    "column `label`: label `{}` is given again (first on line {before}); give each label one line",
                    excerpt(label)
                )),
            ));
        }
        first_line.insert(label.into(), number);
        let text = value.trim_ascii();
        let bad = |expected: &'static str| {
            at(
                number,
                ReadErrorKind::BadColumnValue {
                    column: value_column.to_owned(),
                    text: excerpt(text),
                    expected,
                },
            )
        };
        let parsed = std::str::from_utf8(text).ok();
        match table {
            PropensityTable::Counts { instances } => {
                let count = parsed.and_then(|t| t.parse::<u64>().ok()).ok_or_else(|| {
                    bad("a whole number of training instances, from 0 to 2^64 - 1")
                })?;
                if count > instances {
                    return Err(at(
                        number,
                        ReadErrorKind::BadField(format!(
                            "column `{value_column}`: {count} is more than the {instances} training instances"
                        )),
                    ));
                }
                counts.insert(label.into(), count);
            }
            PropensityTable::Inverse => {
                let weight = parsed
                    .and_then(|t| t.parse::<f64>().ok())
                    .filter(|w| w.is_finite() && *w > 0.0)
                    .ok_or_else(|| bad("a finite number above 0 (1 / propensity)"))?;
                inverse.insert(label.into(), weight);
            }
        }
    }
    if first_line.is_empty() {
        return Err(ReadError::new(
            name,
            None,
            ReadErrorKind::Empty { expected },
        ));
    }
    Ok(match table {
        PropensityTable::Counts { instances } => LabelPropensities::Counts { counts, instances },
        PropensityTable::Inverse => LabelPropensities::Inverse(inverse),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(text: &str, instances: u64) -> Result<LabelPropensities, String> {
        parse_propensities(
            text.as_bytes(),
            "f.csv",
            PropensityTable::Counts { instances },
        )
        .map_err(|e| e.to_string())
    }

    fn inverse(text: &str) -> Result<LabelPropensities, String> {
        parse_propensities(text.as_bytes(), "f.tsv", PropensityTable::Inverse)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_table_of_counts_is_read_by_its_header() {
        let table = counts("\u{feff}count,label,other\r\n3,a,x\n\n0,b,y\n", 10).unwrap();
        assert_eq!(table.value(b"a"), 3.0);
        assert_eq!(table.value(b"b"), 0.0);
        assert_eq!(table.value(b"c"), 0.0);
        let table = inverse("label\tinverse_propensity\na\t2.5\n").unwrap();
        assert_eq!(table.value(b"a"), 2.5);
        assert!(table.value(b"b").is_nan());
    }

    #[test]
    fn bad_values_name_the_file_line_and_column() {
        for (text, problem) in [
            ("label,count\na,-1\n", "f.csv:2: column `count`"),
            ("label,count\na,1.5\n", "f.csv:2: column `count`"),
            ("label,count\na,NaN\n", "f.csv:2: column `count`"),
            (
                "label,count\na,18446744073709551616\n",
                "f.csv:2: column `count`",
            ),
            ("label,count\na,11\n", "more than the 10 training instances"),
            (
                "label,count\na,1\nb,2\na,3\n",
                "f.csv:4: column `label`: label `a` is given again (first on line 2)",
            ),
            ("label,count\n,1\n", "the label is empty"),
            ("label,count\na\n", "f.csv:2"),
            ("label,cnt\na,1\n", "no column `count`"),
            ("", "empty"),
        ] {
            let error = counts(text, 10).unwrap_err();
            assert!(error.contains("f.csv"), "{error}");
            assert!(error.contains(problem), "{text:?}: {error}");
        }
        for text in [
            "label\tinverse_propensity\na\t0\n",
            "label\tinverse_propensity\na\t-2\n",
            "label\tinverse_propensity\na\tinf\n",
            "label\tinverse_propensity\na\t1e400\n",
            "label\tinverse_propensity\na\tnan\n",
        ] {
            let error = inverse(text).unwrap_err();
            assert!(
                error.contains("f.tsv:2: column `inverse_propensity`"),
                "{error}"
            );
            assert!(error.contains("inverse_propensity"), "{error}");
        }
        assert!(
            counts("label,count\na,1\n", 0)
                .unwrap_err()
                .contains("at least 1")
        );
    }
}
