//! The errors of `rankeval-core`, one enum per concern, with structured fields
//! so that callers can tell the cases apart without reading the text.

use std::fmt;

use crate::location::Location;

/// What kind of plugin a name or parameter refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PluginKind {
    /// A [`Metric`](crate::Metric).
    Metric,
    /// An [`Aggregator`](crate::Aggregator).
    Aggregator,
    /// A [`CorpusMetric`](crate::CorpusMetric).
    CorpusMetric,
}

impl fmt::Display for PluginKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PluginKind::Metric => "metric",
            PluginKind::Aggregator => "aggregator",
            PluginKind::CorpusMetric => "corpus metric",
        })
    }
}

/// The short syntax `name(param=value,...)@k` could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.render())]
pub struct SyntaxError {
    /// The text that was parsed.
    pub input: String,
    /// Byte offset of the problem in `input`.
    pub offset: usize,
    /// What was expected there, e.g. "`)`" or "a parameter name".
    pub expected: String,
}

impl SyntaxError {
    fn render(&self) -> String {
        let found = match self.input.get(self.offset..).and_then(|t| t.chars().next()) {
            Some(c) => format!("`{}`", escaped(c.encode_utf8(&mut [0; 4]))),
            None => "the end".to_owned(),
        };
        format!(
            "expected {} at offset {} in `{}`, found {found}",
            self.expected,
            self.offset,
            escaped(&self.input)
        )
    }
}

/// A metric or aggregator could not be built from its name and parameters.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PluginError {
    /// The short syntax was malformed.
    #[error(transparent)]
    Syntax(#[from] SyntaxError),
    /// No registered plugin has this name or alias.
    #[error("unknown {kind} `{}`{}", escaped(name), suggest(suggestions))]
    Unknown {
        /// Metric or aggregator.
        kind: PluginKind,
        /// The name as written.
        name: String,
        /// Registered names close to it, best first.
        suggestions: Vec<&'static str>,
    },
    /// The plugin has no parameter of this name.
    #[error(
        "{kind} `{plugin}` has no parameter `{}`{}; its parameters: {}",
        escaped(param),
        suggest_in_parens(suggestions),
        list_or_none(known)
    )]
    UnknownParam {
        /// Metric or aggregator.
        kind: PluginKind,
        /// The plugin's registered name.
        plugin: &'static str,
        /// The parameter as written.
        param: String,
        /// Parameters close to it.
        suggestions: Vec<&'static str>,
        /// Every parameter the plugin takes.
        known: Vec<&'static str>,
    },
    /// A parameter was given twice (perhaps once by its alias).
    #[error("{kind} `{plugin}`: parameter `{param}` is given twice")]
    RepeatedParam {
        /// Metric or aggregator.
        kind: PluginKind,
        /// The plugin's registered name.
        plugin: &'static str,
        /// The parameter's full name.
        param: &'static str,
    },
    /// A parameter's value is not acceptable.
    #[error("{kind} `{plugin}`: invalid value for parameter `{param}`: {reason}")]
    InvalidParam {
        /// Metric or aggregator.
        kind: PluginKind,
        /// The plugin's registered name.
        plugin: &'static str,
        /// The parameter's full name.
        param: &'static str,
        /// Why, e.g. "unknown variant `trunc`, expected one of ...".
        reason: String,
    },
    /// The parameters are acceptable one by one but not together.
    #[error("{kind} `{plugin}`: {reason}")]
    Invalid {
        /// Metric or aggregator.
        kind: PluginKind,
        /// The plugin's registered name.
        plugin: &'static str,
        /// Why.
        reason: String,
    },
    /// A measure spelled as ir_measures spells it that rankeval does not
    /// compute the way ir_measures does ([`crate::ir_measures`]): refused
    /// rather than guessed.
    #[error("`{name}` is ir_measures' {measure}, which rankeval does not map: {reason}")]
    IrMeasures {
        /// The spec as written.
        name: String,
        /// ir_measures' name of the measure.
        measure: &'static str,
        /// Why there is no equivalent.
        reason: String,
    },
}

impl PluginError {
    /// The parameter the error is about, if it is about one.
    pub fn param(&self) -> Option<&str> {
        match self {
            PluginError::UnknownParam { param, .. } => Some(param),
            PluginError::RepeatedParam { param, .. } | PluginError::InvalidParam { param, .. } => {
                Some(param)
            }
            _ => None,
        }
    }
}

/// `text` with its control characters escaped (`\u{1b}`, `\n`), as a
/// message quotes what was typed: an escape sequence typed in a metric's
/// name must not reach the terminal as one.
fn escaped(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_debug().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

fn suggest(suggestions: &[&str]) -> String {
    match suggestions {
        [] => String::new(),
        [one] => format!("; did you mean `{one}`?"),
        many => format!(
            "; did you mean one of {}?",
            many.iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn suggest_in_parens(suggestions: &[&str]) -> String {
    match suggest(suggestions).strip_prefix("; ") {
        Some(text) => format!(" ({text})"),
        None => String::new(),
    }
}

fn list_or_none(items: &[&str]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items
            .iter()
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The plugin registry breaks one of its invariants.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// Two plugins of one kind share a name or alias.
    #[error("{kind} name `{name}` is registered twice: at {first} and at {second}")]
    Duplicate {
        /// Metric or aggregator.
        kind: PluginKind,
        /// The shared name or alias.
        name: &'static str,
        /// Where the first registration is.
        first: Location,
        /// Where the second registration is.
        second: Location,
    },
    /// A per-query metric and a corpus metric share a name or alias, so
    /// `-m NAME` and TOML `type = "NAME"` could not tell which is meant.
    #[error(
        "`{name}` names both a metric (registered at {metric}) and a corpus metric (registered at {corpus})"
    )]
    SharedName {
        /// The shared name or alias.
        name: &'static str,
        /// Where the per-query metric is registered.
        metric: Location,
        /// Where the corpus metric is registered.
        corpus: Location,
    },
    /// A descriptor is malformed (name not snake_case, summary too long...).
    #[error("{kind} `{name}` registered at {at}: {problem}")]
    Malformed {
        /// Metric or aggregator.
        kind: PluginKind,
        /// The descriptor's name.
        name: &'static str,
        /// Where it is registered.
        at: Location,
        /// What is wrong.
        problem: String,
    },
    /// A plugin's registered name is not its typetag name, so its TOML
    /// `type` and short syntax would fail at use with a misleading error.
    #[error(
        "{kind} registered as `{name}` at {at} serializes as `{typetag}` (its #[typetag::serde(name = \"{typetag}\")]): the two names must be the same"
    )]
    TypetagMismatch {
        /// Metric or aggregator.
        kind: PluginKind,
        /// The registered name.
        name: &'static str,
        /// The typetag name its example serializes with.
        typetag: String,
        /// Where it is registered.
        at: Location,
    },
}

/// A run could not be built.
///
/// Positions (`first`, `second`, `at`) are what the caller gave when pushing:
/// the line number for the readers, the 1-based push count otherwise.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// A document appears twice in one query's list.
    #[error(
        "document `{doc}` appears twice in the list of query `{query}` (at {first} and {second})"
    )]
    DuplicateDoc {
        /// The query id.
        query: String,
        /// The document id (lossy UTF-8).
        doc: String,
        /// Position of the first occurrence.
        first: u64,
        /// Position of the repeat.
        second: u64,
    },
    /// A score is NaN, which has no place in an order.
    #[error("the score of document `{doc}` in query `{query}` is NaN (at {at})")]
    NanScore {
        /// The query id.
        query: String,
        /// The document id (lossy UTF-8).
        doc: String,
        /// Position of the entry.
        at: u64,
    },
    /// A query has both entries with scores and entries given in rank order.
    #[error("query `{query}` mixes ranked entries with scored entries")]
    MixedOrdering {
        /// The query id.
        query: String,
    },
    /// A query id is not UTF-8 text.
    #[error("a query id is not valid UTF-8 (at {at})")]
    QueryNotUtf8 {
        /// Position of the entry.
        at: u64,
    },
    /// One query's document ids exceed 4 GiB.
    #[error("the document ids of one query exceed 4 GiB (at {at})")]
    ListTooLarge {
        /// Position of the entry.
        at: u64,
    },
}

/// Qrels could not be built.
///
/// Positions are as for [`RunError`].
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum QrelsError {
    /// The same document is judged twice for one query, with two grades.
    #[error(
        "document `{doc}` of query `{query}` is judged twice with different grades: {first_grade} (at {first}) and {second_grade} (at {second})"
    )]
    ConflictingGrades {
        /// The query id.
        query: String,
        /// The document id (lossy UTF-8).
        doc: String,
        /// The first grade.
        first_grade: f64,
        /// Position of the first judgement.
        first: u64,
        /// The second grade.
        second_grade: f64,
        /// Position of the second judgement.
        second: u64,
    },
    /// A grade is not one rankeval stores (NaN, infinite, or beyond
    /// [`MAX_GRADE`](crate::MAX_GRADE)).
    #[error("grade {grade} is not a grade: {reason} (at {at})")]
    InvalidGrade {
        /// The number given.
        grade: f64,
        /// What is wrong with it.
        reason: crate::GradeError,
        /// Position of the judgement.
        at: u64,
    },
    /// A query id is not UTF-8 text.
    #[error("a query id is not valid UTF-8 (at {at})")]
    QueryNotUtf8 {
        /// Position of the judgement.
        at: u64,
    },
    /// One query's document ids exceed 4 GiB.
    #[error("the document ids of one query exceed 4 GiB (at {at})")]
    ListTooLarge {
        /// Position of the judgement.
        at: u64,
    },
    /// The qrels hold more than 2^32 judgements or 4 GiB of document ids
    /// (their columns use 32-bit offsets).
    #[error("the qrels are too large: more than 4294967295 judgements or 4 GiB of document ids")]
    TooLarge,
}

/// The longest id, in characters, that messages show whole.
pub const MESSAGE_ID_CHARS: usize = 64;

/// An id as messages and reports show it: lossy UTF-8, control characters
/// escaped as Rust writes them (`\n`, `\u{1b}`), cut after
/// [`MESSAGE_ID_CHARS`] characters with its full length in bytes, so that a
/// 100 MB id gives a short warning and no id can split a line or reach a
/// terminal as an escape sequence. Every error and warning that names an id
/// goes through this.
pub fn shorten_id(id: &[u8]) -> String {
    // Enough bytes for the characters kept (at most 4 bytes each).
    let head = &id[..id.len().min(MESSAGE_ID_CHARS * 4 + 4)];
    let text = String::from_utf8_lossy(head);
    let mut shown = String::with_capacity(text.len().min(MESSAGE_ID_CHARS * 4));
    let mut whole = head.len() == id.len();
    for (kept, c) in text.chars().enumerate() {
        if kept == MESSAGE_ID_CHARS {
            whole = false;
            break;
        }
        if c.is_control() {
            shown.extend(c.escape_debug());
        } else {
            shown.push(c);
        }
    }
    if whole {
        shown
    } else {
        format!("{shown}… ({} bytes)", id.len())
    }
}

#[cfg(test)]
mod shorten_tests {
    use super::*;

    #[test]
    fn short_ids_are_whole_and_long_ones_are_cut_with_their_length() {
        assert_eq!(shorten_id(b"q1"), "q1");
        assert_eq!(shorten_id(b"q\xff"), "q\u{FFFD}");
        let exact = "x".repeat(MESSAGE_ID_CHARS);
        assert_eq!(shorten_id(exact.as_bytes()), exact);
        assert_eq!(shorten_id(b"q\n2\x1b[0m\0"), "q\\n2\\u{1b}[0m\\0");
        let nuls = vec![0u8; 100 << 20];
        let shown = shorten_id(&nuls);
        assert!(shown.len() < 400, "{}", shown.len());
        assert!(shown.ends_with("… (104857600 bytes)"), "{shown}");
        let long = "é".repeat(10_000_000);
        let short = shorten_id(long.as_bytes());
        assert_eq!(
            short,
            format!("{}… (20000000 bytes)", "é".repeat(MESSAGE_ID_CHARS))
        );
    }
}
