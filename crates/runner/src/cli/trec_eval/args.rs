//! trec_eval 10's command line, read as its `getopt` reads it: short flags
//! that may be bundled (`-qc`), values attached or separate (`-l2`, `-l 2`,
//! `-mP.10`, `-m P.10`), the long names trec_eval documents, then the qrels
//! and the results file. Flags rankeval does not implement are refused,
//! never ignored.

use std::ffi::OsString;

/// A parsed trec_eval command line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrecArgs {
    /// `-h`: print help (with `-m`, help on those measures).
    pub help: bool,
    /// `-v`: print the version.
    pub version: bool,
    /// `-q`: per-query values.
    pub per_query: bool,
    /// `-n`: no summary (`all`) lines.
    pub no_summary: bool,
    /// `-c`: average over every query of the qrels.
    pub complete: bool,
    /// `-J`: judged documents only.
    pub judged_only: bool,
    /// `-l N`: the relevance level.
    pub level: Option<i64>,
    /// `-M N`: documents kept per query.
    pub max_docs: Option<i64>,
    /// `-N N`: documents in the collection (utility).
    pub num_docs: Option<i64>,
    /// `-m measure[.params]`, in order.
    pub measures: Vec<String>,
    /// `--f32` (rankeval's): read scores as 32-bit floats, as trec_eval 9
    /// and pytrec_eval do.
    pub f32_scores: bool,
    /// The qrels and results files.
    pub files: Vec<String>,
}

/// A command line that cannot be read; exit code 2.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    /// A flag trec_eval has and rankeval does not implement.
    #[error(
        "{flag}: {what} is not supported by rankeval's trec_eval; run without it, or use trec_eval itself"
    )]
    Unsupported {
        /// The flag as given.
        flag: String,
        /// What trec_eval does with it.
        what: &'static str,
    },
    /// A flag neither trec_eval nor rankeval has.
    #[error("unknown flag `{0}` (see trec_eval -h)")]
    Unknown(String),
    /// A flag's value is missing or not a number.
    #[error("{flag} needs {what}, not `{value}`")]
    BadValue {
        /// The flag.
        flag: String,
        /// What it takes.
        what: &'static str,
        /// What was given.
        value: String,
    },
    /// An argument is not UTF-8.
    #[error("argument {0} is not valid UTF-8")]
    NotUtf8(usize),
    /// Not exactly two files.
    #[error(
        "expected 2 files, qrels_file and results_file, got {0} (usage: trec_eval [-q] [-m measure[.params]] qrels_file results_file)"
    )]
    Files(usize),
}

/// trec_eval flags that take a value, and rankeval refuses.
const UNSUPPORTED_WITH_VALUE: &[(char, &str, &str)] = &[
    (
        'R',
        "rel_info_format",
        "-R (qrels formats other than TREC qrels)",
    ),
    (
        'T',
        "results_format",
        "-T (results formats other than TREC runs)",
    ),
    (
        'Z',
        "zscore",
        "-Z (z-scores from a file of per-measure means and deviations)",
    ),
    ('D', "Debug_level", "-D (debug output)"),
    ('E', "Debug_query", "-E (debug one query)"),
];

/// Long names of the supported flags.
const LONG: &[(&str, char)] = &[
    ("help", 'h'),
    ("version", 'v'),
    ("query_eval_wanted", 'q'),
    ("measure", 'm'),
    ("complete_rel_info_wanted", 'c'),
    ("level_for_rel", 'l'),
    ("num_docs_in_coll", 'N'),
    ("max_retrieved_per_topic", 'M'),
    ("judged_docs_only", 'J'),
    ("no_summary", 'n'),
];

/// Parses the arguments after the program name.
pub fn parse(args: &[OsString]) -> Result<TrecArgs, ArgsError> {
    let args: Vec<String> = args
        .iter()
        .enumerate()
        .map(|(i, a)| {
            a.to_str()
                .map(str::to_owned)
                .ok_or(ArgsError::NotUtf8(i + 1))
        })
        .collect::<Result<_, _>>()?;
    let mut out = TrecArgs::default();
    let mut i = 0;
    let mut only_files = false;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if only_files || arg == "-" || !arg.starts_with('-') {
            out.files.push(arg.clone());
            continue;
        }
        if arg == "--" {
            only_files = true;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None => (long, None),
            };
            if name == "f32" {
                out.f32_scores = true;
                continue;
            }
            if let Some(&(_, _, what)) = UNSUPPORTED_WITH_VALUE.iter().find(|(_, n, _)| *n == name)
            {
                return Err(ArgsError::Unsupported {
                    flag: arg.clone(),
                    what,
                });
            }
            let Some(&(_, flag)) = LONG.iter().find(|(n, _)| *n == name) else {
                return Err(ArgsError::Unknown(arg.clone()));
            };
            let value = if takes_value(flag) {
                match attached {
                    Some(v) => Some(v),
                    None => {
                        i += 1;
                        Some(args.get(i - 1).cloned().ok_or_else(|| missing(arg, flag))?)
                    }
                }
            } else {
                None
            };
            apply(&mut out, flag, arg, value)?;
            continue;
        }
        // A bundle of short flags; a flag with a value takes the rest.
        let chars: Vec<char> = arg[1..].chars().collect();
        let mut c = 0;
        while c < chars.len() {
            let flag = chars[c];
            c += 1;
            if let Some(&(_, _, what)) = UNSUPPORTED_WITH_VALUE.iter().find(|(f, _, _)| *f == flag)
            {
                return Err(ArgsError::Unsupported {
                    flag: format!("-{flag}"),
                    what,
                });
            }
            if !LONG.iter().any(|(_, f)| *f == flag) {
                return Err(ArgsError::Unknown(format!("-{flag}")));
            }
            if takes_value(flag) {
                let rest: String = chars[c..].iter().collect();
                let value = if rest.is_empty() {
                    i += 1;
                    args.get(i - 1).cloned().ok_or_else(|| missing(arg, flag))?
                } else {
                    rest
                };
                apply(&mut out, flag, &format!("-{flag}"), Some(value))?;
                break;
            }
            apply(&mut out, flag, &format!("-{flag}"), None)?;
        }
    }
    if !out.help && !out.version && out.files.len() != 2 {
        return Err(ArgsError::Files(out.files.len()));
    }
    Ok(out)
}

fn takes_value(flag: char) -> bool {
    matches!(flag, 'm' | 'l' | 'N' | 'M')
}

fn missing(arg: &str, flag: char) -> ArgsError {
    ArgsError::BadValue {
        flag: arg.to_owned(),
        what: what(flag),
        value: String::new(),
    }
}

fn what(flag: char) -> &'static str {
    match flag {
        'm' => "a measure, e.g. P.10 or all_trec",
        'l' => "an integer relevance level",
        _ => "an integer",
    }
}

fn apply(
    out: &mut TrecArgs,
    flag: char,
    given: &str,
    value: Option<String>,
) -> Result<(), ArgsError> {
    let number = |value: &Option<String>| -> Result<i64, ArgsError> {
        let text = value.clone().unwrap_or_default();
        text.trim().parse::<i64>().map_err(|_| ArgsError::BadValue {
            flag: given.to_owned(),
            what: what(flag),
            value: text,
        })
    };
    match flag {
        'h' => out.help = true,
        'v' => out.version = true,
        'q' => out.per_query = true,
        'n' => out.no_summary = true,
        'c' => out.complete = true,
        'J' => out.judged_only = true,
        'l' => out.level = Some(number(&value)?),
        'M' => out.max_docs = Some(number(&value)?),
        'N' => out.num_docs = Some(number(&value)?),
        'm' => out.measures.push(value.unwrap_or_default()),
        _ => return Err(ArgsError::Unknown(given.to_owned())),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<TrecArgs, ArgsError> {
        parse(&args.iter().map(OsString::from).collect::<Vec<_>>())
    }

    #[test]
    fn getopt_forms() {
        let a = p(&[
            "-qc", "-l2", "-m", "P.5,10", "-mndcg", "-M", "100", "q", "r",
        ])
        .unwrap();
        assert!(a.per_query && a.complete);
        assert_eq!(a.level, Some(2));
        assert_eq!(a.max_docs, Some(100));
        assert_eq!(a.measures, ["P.5,10", "ndcg"]);
        assert_eq!(a.files, ["q", "r"]);
        let b = p(&["--level_for_rel=3", "--measure", "map", "q", "r"]).unwrap();
        assert_eq!(b.level, Some(3));
        assert_eq!(b.measures, ["map"]);
    }

    #[test]
    fn refusals() {
        assert!(matches!(
            p(&["-Z", "z", "q", "r"]),
            Err(ArgsError::Unsupported { .. })
        ));
        assert!(matches!(p(&["-x", "q", "r"]), Err(ArgsError::Unknown(_))));
        assert!(matches!(
            p(&["-l", "two", "q", "r"]),
            Err(ArgsError::BadValue { .. })
        ));
        assert!(matches!(p(&["q"]), Err(ArgsError::Files(1))));
        assert!(p(&["-h"]).unwrap().help);
    }
}
