//! trec_eval 10's command line, read as its `getopt_long` reads it: short
//! flags that may be bundled (`-qc`), values attached or separate (`-l2`,
//! `-l 2`, `-mP.10`, `-m P.10`), trec_eval's long names (`--Zscore=z.txt`,
//! `--level_for_rel 2`, or any unambiguous prefix: `--meas`), flags and
//! files in any order, then the qrels and the results file. Every flag of
//! trec_eval 10 is either done as trec_eval does it or refused with a
//! message; none is ignored.

use std::ffi::OsString;

/// A parsed trec_eval command line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrecArgs {
    /// `-h`: print help.
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
    /// `-Z file`: print z-scores from the file's means and deviations.
    pub zscore_file: Option<String>,
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
    /// A flag (or a value of it) trec_eval has and rankeval does not do.
    #[error(
        "{flag}: {what} is not supported by rankeval's trec_eval; run without it, or use trec_eval itself"
    )]
    Unsupported {
        /// The flag as given, with its value.
        flag: String,
        /// What trec_eval does with it.
        what: &'static str,
    },
    /// A flag neither trec_eval nor rankeval has.
    #[error("unknown flag `{0}` (see trec_eval -h)")]
    Unknown(String),
    /// A long name that is the prefix of several.
    #[error("`{given}` is ambiguous: {candidates} (see trec_eval -h)")]
    Ambiguous {
        /// The flag as given.
        given: String,
        /// The long names it could be.
        candidates: String,
    },
    /// A flag that takes no value was given one (`--help=x`).
    #[error("`{0}` takes no value")]
    NoValue(String),
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

/// trec_eval 10's long option names (`trec_eval.c`), each with its short
/// flag.
const LONG: &[(&str, char)] = &[
    ("help", 'h'),
    ("version", 'v'),
    ("query_eval_wanted", 'q'),
    ("measure", 'm'),
    ("complete_rel_info_wanted", 'c'),
    ("level_for_rel", 'l'),
    ("nosummary", 'n'),
    ("Debug_level", 'D'),
    ("Judged_docs_only", 'J'),
    ("Number_docs_in_coll", 'N'),
    ("Max_retrieved_per_topic", 'M'),
    ("Rel_info_format", 'R'),
    ("Results_format", 'T'),
    ("Output_old_results_format", 'o'),
    ("Zscore", 'Z'),
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
                if attached.is_some() {
                    return Err(ArgsError::NoValue(arg.clone()));
                }
                out.f32_scores = true;
                continue;
            }
            let flag = long_flag(name, arg)?;
            let value = if takes_value(flag) {
                match attached {
                    Some(v) => Some(v),
                    None => {
                        i += 1;
                        Some(args.get(i - 1).cloned().ok_or_else(|| missing(arg, flag))?)
                    }
                }
            } else if attached.is_some() {
                return Err(ArgsError::NoValue(arg.clone()));
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

/// The short flag of a long name, or of an unambiguous prefix of one, as
/// `getopt_long` matches them.
fn long_flag(name: &str, given: &str) -> Result<char, ArgsError> {
    if let Some(&(_, flag)) = LONG.iter().find(|(n, _)| *n == name) {
        return Ok(flag);
    }
    let candidates: Vec<&(&str, char)> = LONG
        .iter()
        .filter(|(n, _)| !name.is_empty() && n.starts_with(name))
        .collect();
    match candidates[..] {
        [&(_, flag)] => Ok(flag),
        [] => Err(ArgsError::Unknown(given.to_owned())),
        _ => Err(ArgsError::Ambiguous {
            given: given.to_owned(),
            candidates: candidates
                .iter()
                .map(|(n, _)| format!("--{n}"))
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}

fn takes_value(flag: char) -> bool {
    matches!(flag, 'm' | 'l' | 'N' | 'M' | 'D' | 'R' | 'T' | 'Z')
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
        'Z' => "a z-score file (lines `qid measure mean stddev`)",
        'R' => "a qrels format (qrels)",
        'T' => "a results format (trec_results)",
        'D' => "a debug level",
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
    let value_text = value.clone().unwrap_or_default();
    let refuse = |what: &'static str| ArgsError::Unsupported {
        flag: format!("{given} {value_text}"),
        what,
    };
    match flag {
        'h' => out.help = true,
        'v' => out.version = true,
        'q' => out.per_query = true,
        'n' => out.no_summary = true,
        'c' => out.complete = true,
        'J' => out.judged_only = true,
        // Obsolete in trec_eval 10: it sets a flag nothing reads.
        'o' => {}
        'l' => out.level = Some(number(&value)?),
        'M' => out.max_docs = Some(number(&value)?),
        'N' => out.num_docs = Some(number(&value)?),
        'm' => out.measures.push(value_text),
        'Z' => out.zscore_file = Some(value_text),
        // The defaults are the formats rankeval reads.
        'R' if value_text == "qrels" => {}
        'R' => {
            return Err(refuse(
                "-R (qrels formats other than TREC qrels: prefs, qrels_prefs, qrels_jg)",
            ));
        }
        'T' if value_text == "trec_results" => {}
        'T' => return Err(refuse("-T (results formats other than trec_results)")),
        // Debug level 0 is trec_eval's default: no debug output.
        'D' if value_text.trim() == "0" => {}
        'D' => return Err(refuse("-D (debug output)")),
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
    fn long_names_are_trec_evals_and_take_prefixes() {
        let a = p(&[
            "--Zscore=z.txt",
            "--nosummary",
            "--Judged_docs_only",
            "--Number_docs_in_coll",
            "7",
            "--Max_retrieved_per_topic=3",
            "--meas",
            "P.5",
            "q",
            "-c",
            "r",
        ])
        .unwrap();
        assert_eq!(a.zscore_file.as_deref(), Some("z.txt"));
        assert!(a.no_summary && a.judged_only && a.complete);
        assert_eq!((a.num_docs, a.max_docs), (Some(7), Some(3)));
        assert_eq!(a.measures, ["P.5"]);
        assert_eq!(a.files, ["q", "r"]);
        assert!(matches!(
            p(&["--Re", "x", "q", "r"]),
            Err(ArgsError::Ambiguous { .. })
        ));
        assert!(matches!(p(&["--help=yes"]), Err(ArgsError::NoValue(_))));
    }

    #[test]
    fn default_formats_and_no_ops_are_accepted() {
        let a = p(&[
            "-R",
            "qrels",
            "-Ttrec_results",
            "-D0",
            "-o",
            "-Z",
            "z",
            "q",
            "r",
        ])
        .unwrap();
        assert_eq!(a.zscore_file.as_deref(), Some("z"));
        assert_eq!(a.files, ["q", "r"]);
    }

    #[test]
    fn refusals() {
        for refused in [["-R", "prefs"], ["-T", "other"], ["-D", "1"]] {
            let args = [refused[0], refused[1], "q", "r"];
            assert!(
                matches!(p(&args), Err(ArgsError::Unsupported { .. })),
                "{refused:?}"
            );
        }
        assert!(matches!(p(&["-E", "q", "r"]), Err(ArgsError::Unknown(_))));
        assert!(matches!(p(&["-x", "q", "r"]), Err(ArgsError::Unknown(_))));
        assert!(matches!(
            p(&["-l", "two", "q", "r"]),
            Err(ArgsError::BadValue { .. })
        ));
        assert!(matches!(p(&["q"]), Err(ArgsError::Files(1))));
        assert!(p(&["-h"]).unwrap().help);
    }
}
