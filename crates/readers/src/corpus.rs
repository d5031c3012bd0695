//! The inputs of corpus metrics besides the run: the catalog (a list of
//! items), item features (a table of numbers per item), and training
//! interactions (read as qrels: `user item` pairs, any format).
//!
//! Catalog: one item id per line; surrounding spaces and tabs are trimmed,
//! blank lines skipped; an item listed twice is an error naming both lines.
//!
//! Item features: a CSV (`,`) or, for a name ending in `.tsv`, TSV table
//! with a header line; its first column holds the item ids, every other
//! column one number per item (a one-hot category, a tag weight, an
//! embedding's coordinate). No quoting; every row as many fields as the
//! header; an item given twice is an error naming both lines.
//!
//! Both may be gzip (`.gz`).

use std::collections::HashMap;
use std::path::Path;

use rankeval_core::{Catalog, ItemFeatures, Qrels, Training};

use super::error::excerpt;
use super::{ReadError, ReadErrorKind};

/// The lines of a text file (gunzipped if its name ends in `.gz`), each
/// with its 1-based number, without line ends.
pub(crate) fn text(path: &Path) -> Result<Vec<u8>, ReadError> {
    crate::read_whole(path, crate::WholeInput::TEXT)
}

/// The delimiter of a CSV/TSV table: a tab for a name ending in `.tsv`
/// (before any `.gz`), else a comma.
pub(crate) fn delimiter_of(path: &Path) -> u8 {
    let file_name = path.to_string_lossy();
    let file_name = file_name.strip_suffix(".gz").unwrap_or(&file_name);
    if file_name.ends_with(".tsv") {
        b'\t'
    } else {
        b','
    }
}

pub(crate) fn lines(bytes: &[u8]) -> impl Iterator<Item = (u64, &[u8])> {
    bytes.split(|&b| b == b'\n').enumerate().map(|(i, line)| {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        (i as u64 + 1, line)
    })
}

/// Reads a catalog: one item id per line.
pub fn read_catalog(path: &Path) -> Result<Catalog, ReadError> {
    let name = path.display().to_string();
    let bytes = text(path)?;
    let mut first: HashMap<&[u8], u64> = HashMap::new();
    for (number, line) in lines(&bytes) {
        let item = line.trim_ascii();
        if item.is_empty() {
            continue;
        }
        rankeval_core::check_id(item).map_err(|bad| {
            ReadError::new(
                &name,
                Some(number),
                ReadErrorKind::BadField(bad.to_string()),
            )
        })?;
        if let Some(before) = first.insert(item, number) {
            return Err(ReadError::new(
                &name,
                Some(number),
                ReadErrorKind::BadField(format!(
                    "item `{}` is listed again (first on line {before}); list each item once",
                    excerpt(item)
                )),
            ));
        }
    }
    if first.is_empty() {
        return Err(ReadError::new(
            &name,
            None,
            ReadErrorKind::Empty {
                expected: "one item id per line",
            },
        ));
    }
    Ok(Catalog::new(first.into_keys()))
}

/// Reads item features: a header, then `item,number,number...` per line.
pub fn read_item_features(path: &Path) -> Result<ItemFeatures, ReadError> {
    let name = path.display().to_string();
    let delimiter = delimiter_of(path);
    let bytes = text(path)?;
    let mut rows = lines(&bytes).filter(|(_, line)| !line.trim_ascii().is_empty());
    let at = |line: u64, kind: ReadErrorKind| ReadError::new(&name, Some(line), kind);
    let Some((_, header)) = rows.next() else {
        return Err(ReadError::new(
            &name,
            None,
            ReadErrorKind::Empty {
                expected: "a header `item,feature,...`, then one line per item",
            },
        ));
    };
    let columns: Vec<String> = header
        .split(|&b| b == delimiter)
        .map(|c| String::from_utf8_lossy(c.trim_ascii()).into_owned())
        .collect();
    if columns.len() < 2 {
        return Err(at(
            1,
            ReadErrorKind::BadField(format!(
                "the header has {} column: expected the item column, then at least one feature \
                 column (delimiter `{}`: a name ending in .tsv is split on tabs, any other on commas)",
                columns.len(),
                if delimiter == b'\t' { "\\t" } else { "," }
            )),
        ));
    }
    let mut features = ItemFeatures::new(columns.len() - 1);
    let mut first_line: HashMap<Box<[u8]>, u64> = HashMap::new();
    let mut vector = Vec::with_capacity(columns.len() - 1);
    for (number, line) in rows {
        let mut fields = line.split(|&b| b == delimiter);
        let item = fields.next().unwrap_or_default().trim_ascii();
        if let Err(bad) = rankeval_core::check_id(item)
            && !item.is_empty()
        {
            return Err(at(number, ReadErrorKind::BadField(bad.to_string())));
        }
        if item.is_empty() {
            return Err(at(
                number,
                ReadErrorKind::BadField(format!("column `{}`: the item id is empty", columns[0])),
            ));
        }
        vector.clear();
        for (c, field) in fields.enumerate() {
            let Some(column) = columns.get(c + 1) else {
                return Err(at(
                    number,
                    ReadErrorKind::ColumnCount {
                        expected: columns.len(),
                        found: line.split(|&b| b == delimiter).count(),
                    },
                ));
            };
            let text = std::str::from_utf8(field.trim_ascii()).unwrap_or("");
            match text.parse::<f64>() {
                Ok(x) if x.is_finite() => vector.push(x),
                _ => {
                    return Err(at(
                        number,
                        ReadErrorKind::BadColumnValue {
                            column: column.clone(),
                            text: excerpt(field),
                            expected: "a finite number",
                        },
                    ));
                }
            }
        }
        if vector.len() + 1 != columns.len() {
            return Err(at(
                number,
                ReadErrorKind::ColumnCount {
                    expected: columns.len(),
                    found: vector.len() + 1,
                },
            ));
        }
        if let Some(before) = first_line.get(item) {
            return Err(at(
                number,
                ReadErrorKind::BadField(format!(
                    "item `{}` is given again (first on line {before}); give each item one line",
                    excerpt(item)
                )),
            ));
        }
        first_line.insert(item.into(), number);
        // The dimension is the header's, checked above.
        let _ = features.insert(item, &vector);
    }
    if features.is_empty() {
        return Err(ReadError::new(
            &name,
            None,
            ReadErrorKind::Empty {
                expected: "one line per item after the header",
            },
        ));
    }
    Ok(features)
}

/// Training interactions from `(user, item)` pairs read as qrels: every
/// judged pair is one interaction, whatever its grade.
pub fn training_from_qrels(qrels: &Qrels) -> Training {
    Training::from_pairs((0..qrels.num_queries() as u32).flat_map(|user| {
        let user_id = qrels.query_bytes(user);
        qrels.judgements(user).map(move |(item, _)| (user_id, item))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(dir: &tempfile::TempDir, name: &str, text: &str) -> std::path::PathBuf {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn a_catalog_is_one_item_per_line() {
        let dir = tempfile::tempdir().unwrap();
        let catalog = read_catalog(&file(&dir, "items.txt", "a\r\n b \n\nc\n")).unwrap();
        assert_eq!(catalog.len(), 3);
        assert!(catalog.contains(b"b"));
        let error = read_catalog(&file(&dir, "twice.txt", "a\nb\na\n")).unwrap_err();
        assert_eq!(error.line, Some(3));
        assert!(error.to_string().contains("first on line 1"), "{error}");
        assert!(read_catalog(&file(&dir, "empty.txt", "\n\n")).is_err());
        // The one id rule: a control byte inside an item is refused, named.
        let error = read_catalog(&file(&dir, "esc.txt", "a\nb\x1b[31m\n")).unwrap_err();
        assert_eq!(error.line, Some(2));
        assert!(error.to_string().contains("U+001B"), "{error}");
        assert!(!error.to_string().contains('\u{1b}'), "{error}");
    }

    #[test]
    fn features_are_a_table_of_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let path = file(&dir, "f.tsv", "item\tx\ty\na\t1\t0\nb\t0.5\t2\n");
        let features = read_item_features(&path).unwrap();
        assert_eq!(features.dimension(), 2);
        assert_eq!(features.get(b"b"), Some(&[0.5, 2.0][..]));
        assert_eq!(features.get(b"c"), None);
        let error = |text: &str| {
            read_item_features(&file(&dir, "bad.csv", text))
                .unwrap_err()
                .to_string()
        };
        assert!(
            error("item,x\na,1\nb,one\n")
                .ends_with("bad.csv:3: column `x`: `one` is not a finite number")
        );
        assert!(
            error("item,x\na,1,2\n").contains(":2: expected 2 fields as in the header, found 3")
        );
        assert!(
            error("item,x,y\na,1\n").contains(":2: expected 3 fields as in the header, found 2")
        );
        assert!(
            error("item,x\na,1\na,2\n").contains(":3: item `a` is given again (first on line 2)")
        );
        assert!(error("item\na\n").contains(":1: the header has 1 column"));
        assert!(error("item,x\n").contains("the file is empty"));
        assert!(error("item,x\na\x00b,1\n").contains(":2: the id `a\\0b` contains U+0000"));
    }
}
