//! A column (or JSON key) that an input lacks, kept as data rather than a
//! sentence: what was looked for, what the input has, and which column
//! options would name it. Each front end then says how to set those
//! options in its own terms (`--run-columns query=qid` on the command line,
//! `query="qid"` in Python); the reader's own words name the option only.

use std::fmt;

use crate::error::excerpt;

/// What kind of input was being read: it decides which of the front end's
/// options names its columns (`--run-columns` or `--qrels-columns`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// A run: ranked lists.
    Run,
    /// Qrels.
    Qrels,
    /// Training interactions, read as qrels: the caller that reads them
    /// says so ([`MissingColumn::reading`]), since the reader sees qrels.
    Training,
}

/// Where the column was looked for, which says how the input names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnPlace {
    /// The header line of a CSV/TSV file.
    Header,
    /// The schema of a table (Parquet, Arrow).
    Schema,
    /// The keys of the first line of a file of JSON rows.
    FirstLineKeys,
}

/// A column of the input, as a message lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PresentColumn {
    /// Its name.
    pub name: String,
    /// Its data type, for a table.
    pub data_type: Option<String>,
}

/// A column the input lacks, and how it could be named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingColumn {
    /// What was being read.
    pub input: InputKind,
    /// Where the names were looked for.
    pub place: ColumnPlace,
    /// The column options that would name the column: one, or `score` and
    /// `rank` for the column that orders the lists.
    pub options: Vec<&'static str>,
    /// The names looked for, in order.
    pub wanted: Vec<String>,
    /// What the column holds, e.g. "query (user) ids".
    pub what: &'static str,
    /// The columns (keys) the input has.
    pub present: Vec<PresentColumn>,
    /// More the user may need to know.
    pub note: Option<ColumnNote>,
}

/// More to a missing column than the column itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ColumnNote {
    /// The header has one column holding another usual delimiter: the
    /// delimiter (shown, e.g. "`,`") is likely wrong.
    OneColumnHeader {
        /// The delimiter the header was split with, as a message shows it.
        delimiter: String,
    },
    /// A run table may instead give each query's documents as a list
    /// column, best first.
    ListColumnWouldDo,
}

impl ColumnNote {
    /// The note in the reader's words, naming the option as `delimiter`
    /// says it (`the CSV option `delimiter``, `--csv-delimiter`).
    pub fn describe(&self, delimiter_option: &str) -> String {
        match self {
            ColumnNote::OneColumnHeader { delimiter } => format!(
                "the header has one column: is the delimiter {delimiter} right? \
                 ({delimiter_option} sets it)"
            ),
            ColumnNote::ListColumnWouldDo => {
                "or give the documents as a list column, best first".to_owned()
            }
        }
    }
}

/// The columns listed in a message at most; the rest are counted.
const SHOWN: usize = 20;

/// Column names that usually hold what each column option names, for a
/// suggestion (compared without case).
const USUAL_NAMES: &[(&str, &[&str])] = &[
    (
        "query",
        &[
            "query", "qid", "query_id", "queryid", "query-id", "topic", "user", "user_id",
            "userid", "uid", "session",
        ],
    ),
    (
        "doc",
        &[
            "doc",
            "docno",
            "docid",
            "doc_id",
            "pid",
            "passage_id",
            "corpus-id",
            "item",
            "item_id",
            "itemid",
            "iid",
            "items",
            "docs",
        ],
    ),
    (
        "score",
        &[
            "score",
            "scores",
            "prediction",
            "predictions",
            "pred",
            "prob",
            "probability",
            "similarity",
            "sim",
        ],
    ),
    ("rank", &["rank", "ranks", "position", "pos"]),
    (
        "grade",
        &[
            "grade",
            "grades",
            "relevance",
            "rel",
            "label",
            "rating",
            "judgement",
            "judgment",
        ],
    ),
];

impl MissingColumn {
    /// The same error, for an input read as qrels that is really `input`.
    pub fn reading(mut self, input: InputKind) -> Self {
        self.input = input;
        self
    }

    /// What is missing, with the columns the input has: "no column `qid`
    /// in the header (columns: user, item, score)".
    pub fn problem(&self) -> String {
        let wanted = self
            .wanted
            .iter()
            .map(|name| format!("`{name}`"))
            .collect::<Vec<_>>()
            .join(" or ");
        let present = self.present_list();
        match self.place {
            ColumnPlace::Header => format!("no column {wanted} in the header (columns: {present})"),
            ColumnPlace::Schema => format!("no column {wanted} (columns: {present})"),
            ColumnPlace::FirstLineKeys => {
                format!("the first line has no key {wanted} (keys: {present})")
            }
        }
    }

    /// The input's columns, the first [`SHOWN`], for a message.
    fn present_list(&self) -> String {
        let mut list = self
            .present
            .iter()
            .take(SHOWN)
            .map(|column| {
                let name = excerpt(column.name.as_bytes());
                match &column.data_type {
                    Some(data_type) => format!("{name} {data_type}"),
                    None => name,
                }
            })
            .collect::<Vec<_>>()
            .join(", ");
        if self.present.len() > SHOWN {
            list.push_str(&format!(", … ({} in all)", self.present.len()));
        }
        list
    }

    /// A column of the input that usually holds what the first option
    /// names (`qid` for `query`), if one does: the value to suggest.
    pub fn likely_column(&self) -> Option<&str> {
        let option = *self.options.first()?;
        let usual = USUAL_NAMES
            .iter()
            .find(|(name, _)| *name == option)
            .map(|(_, usual)| *usual)?;
        self.present
            .iter()
            .map(|column| column.name.as_str())
            .find(|name| {
                !self.wanted.iter().any(|w| w == name)
                    && usual.iter().any(|u| u.eq_ignore_ascii_case(name))
            })
    }
}

impl fmt::Display for MissingColumn {
    /// The reader's own words: the problem, the option to set, the note.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let options = self
            .options
            .iter()
            .map(|option| format!("`{option}`"))
            .collect::<Vec<_>>()
            .join(" or ");
        let (lead, kind, target) = match self.place {
            ColumnPlace::Header => ("", "CSV option", "name of the column"),
            ColumnPlace::Schema => ("", "column option", "name of the column"),
            ColumnPlace::FirstLineKeys => (
                "a file of JSON rows is read like CSV: ",
                "column option",
                "key",
            ),
        };
        write!(
            f,
            "{}; {lead}set the {kind} {options} to the {target} that holds the {}",
            self.problem(),
            self.what
        )?;
        if let Some(note) = &self.note {
            write!(f, "; {}", note.describe("the CSV option `delimiter`"))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn missing(option: &'static str, wanted: &str, present: &[&str]) -> MissingColumn {
        MissingColumn {
            input: InputKind::Run,
            place: ColumnPlace::Header,
            options: vec![option],
            wanted: vec![wanted.to_owned()],
            what: "query (user) ids",
            present: present
                .iter()
                .map(|name| PresentColumn {
                    name: (*name).to_owned(),
                    data_type: None,
                })
                .collect(),
            note: None,
        }
    }

    #[test]
    fn says_what_is_missing_what_is_there_and_the_option() {
        let m = missing("query", "user", &["qid", "docno", "score"]);
        assert_eq!(
            m.to_string(),
            "no column `user` in the header (columns: qid, docno, score); set the CSV option \
             `query` to the name of the column that holds the query (user) ids"
        );
    }

    #[test]
    fn suggests_a_column_that_usually_holds_it() {
        assert_eq!(
            missing("query", "user", &["QID", "docno"]).likely_column(),
            Some("QID")
        );
        assert_eq!(
            missing("grade", "labl", &["user", "item", "relevance"]).likely_column(),
            Some("relevance")
        );
        assert_eq!(missing("query", "user", &["a", "b"]).likely_column(), None);
        // The name looked for is never its own suggestion.
        assert_eq!(missing("query", "qid", &["qid"]).likely_column(), None);
    }

    #[test]
    fn long_headers_are_cut() {
        let names: Vec<String> = (0..25).map(|i| format!("c{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let text = missing("query", "user", &names).problem();
        assert!(text.contains("c19, … (25 in all)"), "{text}");
        assert!(!text.contains("c20"), "{text}");
    }
}
