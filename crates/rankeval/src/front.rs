//! Who a message speaks to: the command line (flags, and TOML keys for
//! experiment files) or the Python package (keyword arguments). Warnings
//! name the option that changes what they warn of in the user's own terms:
//! `--missing zero` on the command line, `missing="zero"` in Python.

use std::fmt;

/// A message that names options (a warning): written for one front end,
/// and `Display`ed as the command line's.
pub trait Describe {
    /// Writes the message, naming options as `front` takes them.
    fn write_for(&self, f: &mut dyn fmt::Write, front: FrontEnd) -> fmt::Result;

    /// The message as `front` says it.
    fn describe(&self, front: FrontEnd) -> String {
        let mut text = String::new();
        let _ = self.write_for(&mut text, front);
        text
    }
}

/// The front end a message is written for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FrontEnd {
    /// `rankeval` and its TOML experiments: a flag, and the TOML key.
    #[default]
    CommandLine,
    /// `rankeval_rs.evaluate(...)`: a keyword argument.
    Python,
}

impl FrontEnd {
    /// How to set the option `key` (its flag `--key`, its TOML key and its
    /// keyword argument share the name) to `value`: `--missing zero; TOML:
    /// missing = "zero"`, or `missing="zero"`.
    pub fn setting(self, key: &str, value: &str) -> String {
        match self {
            FrontEnd::CommandLine => {
                format!(
                    "--{} {value}; TOML: {key} = \"{value}\"",
                    key.replace('_', "-")
                )
            }
            FrontEnd::Python => format!("{key}=\"{value}\""),
        }
    }

    /// The option `key` itself, for a sentence that says what it does:
    /// `--rel, TOML `rel``, or `rel=`. `flag` is the command line's flag
    /// where its name differs from the key (`--csv-grade` for `grade`).
    pub fn option(self, key: &str, flag: Option<&str>) -> String {
        match self {
            FrontEnd::CommandLine => {
                let flag =
                    flag.map_or_else(|| format!("--{}", key.replace('_', "-")), str::to_owned);
                format!("{flag}, TOML `{key}`")
            }
            FrontEnd::Python => format!("{key}="),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Describe, FrontEnd};
    use crate::engine::Warning;
    use crate::report::ReportWarning;
    use rankeval_core::RelevanceLevel;

    #[test]
    fn options_are_named_as_each_front_end_takes_them() {
        assert_eq!(
            FrontEnd::CommandLine.setting("missing", "zero"),
            "--missing zero; TOML: missing = \"zero\""
        );
        assert_eq!(
            FrontEnd::Python.setting("missing", "zero"),
            "missing=\"zero\""
        );
        assert_eq!(
            FrontEnd::CommandLine.option("rel", None),
            "--rel, TOML `rel`"
        );
        assert_eq!(
            FrontEnd::CommandLine.option("grade", Some("--csv-grade")),
            "--csv-grade, TOML `grade`"
        );
        assert_eq!(
            FrontEnd::Python.option("grade", Some("--csv-grade")),
            "grade="
        );
    }

    /// Every warning that names an option: the command line's words are
    /// `Display`'s; Python's name neither a flag nor a TOML key.
    #[test]
    fn python_warnings_name_keyword_arguments() {
        let level = RelevanceLevel::new(2.0).expect("a level");
        let warnings = [
            ReportWarning::Coverage(Warning::MissingQueriesSkipped {
                count: 2,
                examples: vec!["q1".into(), "q2".into()],
            }),
            ReportWarning::RunJudgementsIgnored {
                count: 1,
                qrels: "qrels.txt".into(),
            },
            ReportWarning::LevelUnused { level },
            ReportWarning::QrelsWithoutGrades {
                qrels: "t".into(),
                grade: "grade".into(),
                columns: vec!["user".into(), "item".into(), "rating".into()],
            },
        ];
        for warning in &warnings {
            let cli = warning.describe(FrontEnd::CommandLine);
            assert_eq!(cli, warning.to_string());
            assert!(cli.contains("--") && cli.contains("TOML"), "{cli}");
            let python = warning.describe(FrontEnd::Python);
            assert!(
                !python.contains("--") && !python.contains("TOML"),
                "{python}"
            );
        }
        assert!(
            warnings[0]
                .describe(FrontEnd::Python)
                .contains("use missing=\"zero\")")
        );
        assert!(warnings[2].describe(FrontEnd::Python).contains("(rel=)"));
        assert!(
            warnings[3]
                .describe(FrontEnd::Python)
                .ends_with("name it with grade=)")
        );
    }
}
