//! How each front end says to fix an input that lacks a column: the
//! readers keep the missing column as data ([`MissingColumn`]), and the
//! advice names the option the user types: `--run-columns query=qid` (and
//! the TOML key) on the command line, `query="qid"` in Python.

use std::fmt;

use crate::front::{Describe, FrontEnd};
use crate::read::missing_column::{InputKind, MissingColumn};
use crate::read::{ReadError, ReadErrorKind};

/// What a read error says, without its file and line, for `front`.
pub fn read_problem(kind: &ReadErrorKind, front: FrontEnd) -> String {
    match kind {
        ReadErrorKind::MissingColumn(missing) => missing_column(missing, front),
        other => other.to_string(),
    }
}

impl Describe for ReadError {
    /// `path:line: problem`, the problem as [`read_problem`] says it.
    fn write_for(&self, f: &mut dyn fmt::Write, front: FrontEnd) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: ", self.path)?,
            None => write!(f, "{}: ", self.path)?,
        }
        f.write_str(&read_problem(&self.kind, front))
    }
}

/// "no column ...; name it with ...", with the column the input has that
/// usually holds it (`qid` for the query) as the value, if one does.
fn missing_column(missing: &MissingColumn, front: FrontEnd) -> String {
    let value = missing.likely_column().unwrap_or("<column>");
    let mut text = format!("{}; ", missing.problem());
    match front {
        FrontEnd::CommandLine => {
            let (flag, table) = match missing.input {
                InputKind::Run => ("--run-columns", "[[runs]]"),
                InputKind::Qrels => ("--qrels-columns", "[qrels]"),
                InputKind::Training => ("--train-columns", "[training]"),
            };
            let each = |form: &dyn Fn(&str) -> String| {
                missing
                    .options
                    .iter()
                    .map(|option| form(option))
                    .collect::<Vec<_>>()
                    .join(" or ")
            };
            text.push_str(&format!(
                "name the column that holds the {} with {flag} {} (or {} for every input; \
                 TOML: {} in {table} or [csv])",
                missing.what,
                each(&|option| format!("{option}={value}")),
                each(&|option| format!("--csv-{option} {value}")),
                each(&|option| format!("{option} = \"{value}\"")),
            ));
        }
        FrontEnd::Python => {
            let keywords = missing
                .options
                .iter()
                .map(|option| format!("{option}=\"{value}\""))
                .collect::<Vec<_>>()
                .join(" or ");
            let alone = match missing.input {
                InputKind::Run => "rankeval_rs.run(...)",
                InputKind::Qrels | InputKind::Training => "rankeval_rs.qrels(...)",
            };
            text.push_str(&format!(
                "name the column that holds the {} with {keywords} (in {alone} for this input \
                 alone)",
                missing.what
            ));
        }
    }
    if let Some(note) = &missing.note {
        let delimiter = match front {
            FrontEnd::CommandLine => "--csv-delimiter; TOML: delimiter",
            FrontEnd::Python => "delimiter=",
        };
        text.push_str("; ");
        text.push_str(&note.describe(delimiter));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::{CsvOptions, Format, Input, read_qrels, read_run};

    fn error_of(path: &str, text: &str, run: bool) -> ReadError {
        let input = Input::bytes(path, text.as_bytes().to_vec(), Format::Csv)
            .with_columns(CsvOptions::default());
        if run {
            read_run(&input, Default::default())
                .map(|_| ())
                .unwrap_err()
        } else {
            read_qrels(&input).map(|_| ()).unwrap_err()
        }
    }

    #[test]
    fn the_command_line_names_the_flag_of_the_input_and_a_likely_column() {
        let run = error_of("run.csv", "qid,docno,score\nq1,d1,1\n", true);
        let text = run.describe(FrontEnd::CommandLine);
        assert!(
            text.starts_with(
                "run.csv:1: no column `user` in the header (columns: qid, docno, score)"
            ),
            "{text}"
        );
        assert!(text.contains("--run-columns query=qid"), "{text}");
        assert!(text.contains("--csv-query qid for every input"), "{text}");
        assert!(text.contains("query = \"qid\" in [[runs]]"), "{text}");
        let qrels = error_of("qrels.csv", "user,docno,grade\nq1,d1,1\n", false);
        let text = qrels.describe(FrontEnd::CommandLine);
        assert!(text.contains("--qrels-columns doc=docno"), "{text}");
        assert!(text.contains("in [qrels] or [csv]"), "{text}");
    }

    #[test]
    fn python_names_keyword_arguments() {
        let run = error_of("run.csv", "qid,docno,score\nq1,d1,1\n", true);
        let text = read_problem(&run.kind, FrontEnd::Python);
        assert!(text.contains("with query=\"qid\""), "{text}");
        assert!(text.contains("rankeval_rs.run(...)"), "{text}");
        assert!(!text.contains("--") && !text.contains("TOML"), "{text}");
        // A one-column header: the delimiter is named as Python takes it.
        let tsv = error_of("run.csv", "user\titem\tscore\nu1\ta\t1\n", true);
        let text = read_problem(&tsv.kind, FrontEnd::Python);
        assert!(text.contains("(delimiter= sets it)"), "{text}");
        let text = tsv.describe(FrontEnd::CommandLine);
        assert!(
            text.contains("(--csv-delimiter; TOML: delimiter sets it)"),
            "{text}"
        );
    }

    #[test]
    fn other_errors_read_as_the_readers_own() {
        let error = error_of("run.csv", "user,item,score\nu1,a,x\n", true);
        assert_eq!(error.describe(FrontEnd::CommandLine), error.to_string());
        assert_eq!(
            read_problem(&error.kind, FrontEnd::Python),
            error.kind.to_string()
        );
    }
}
