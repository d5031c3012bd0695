//! Impression logs, for off-policy evaluation (`rankeval-ope` estimates
//! from them, `rankeval ope` reads them here): what a logging policy
//! showed, with which probability (the propensity), and what the user did.
//!
//! Two layouts, in any table format the readers read (CSV or TSV with a
//! header, JSON Lines, Parquet, Arrow IPC):
//!
//! - **one row per impression**: the item column a list of the shown items
//!   in order (JSON arrays, Parquet lists) or one item (a single action,
//!   bandit feedback); per-position rewards and propensities lists of the
//!   same length;
//! - **one row per impression and position**: a position column (1, 2,
//!   ...), one item per row; a per-impression reward or propensity repeated
//!   on each of the impression's rows, the same every time. A CSV table
//!   has this layout (or one row per impression of one item).
//!
//! Columns are found by name ([`ImpressionColumns`]; defaults `context`,
//! `impression`, `item`, `position`, `reward`, `propensity`, and an
//! optional target-probability column). Propensities come in the forms
//! logs have them ([`PropensityForm`]): per action (one item), per slate,
//! per position marginal, or per position conditional on the items above
//! (cascade), or a click log's examination propensities per position
//! (the position-based model), in a column or given per rank by the
//! caller. Rewards are per impression or per position ([`RewardPer`]),
//! optionally within a declared range; a click log's are clicks, 0 or 1.
//!
//! Every input is read whole within the readers' limits ([`read_whole`],
//! Parquet and Arrow by their magic); ids follow the one id rule
//! ([`check_id`](rankeval_core::check_id)). Errors name the file, the line
//! (text) or row (tables), the column and the problem: a propensity of 0,
//! above 1 or missing, a target probability outside `[0, 1]`, a reward not
//! finite or outside the declared range, slates of different lengths, a
//! duplicate impression id (or position), an impression whose rows
//! disagree on its context or on a per-impression value. Nothing is
//! dropped silently.

mod assemble;
mod cell;
mod direct;
mod store;
mod table;
#[cfg(test)]
mod tests;
mod text;

use std::path::Path;

use rankeval_core::Interner;

use crate::{Format, Input, ReadError, ReadErrorKind, RowAt, WholeInput, read_whole};

pub use store::{ImpressionRef, Impressions, Ragged};

/// The form of a log's propensities (and of a target-probability column).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PropensityForm {
    /// One item per impression and its probability (bandit feedback).
    #[default]
    Action,
    /// The probability of the whole slate, one per impression.
    Slate,
    /// Per position, the probability of the item at that position,
    /// whatever is shown elsewhere (the item-position model).
    Marginal,
    /// Per position, the probability of the item given the items above
    /// (the cascade).
    Cascade,
    /// A click log under the position-based model (Joachims, Swaminathan
    /// and Schnabel, WSDM 2017): per position, the probability that the
    /// user examined the logged position; the reward per position is a
    /// click, 0 or 1.
    Examination,
}

impl PropensityForm {
    /// The form's name: `action`, `slate`, `marginal`, `cascade`.
    pub fn name(self) -> &'static str {
        match self {
            PropensityForm::Action => "action",
            PropensityForm::Slate => "slate",
            PropensityForm::Marginal => "marginal",
            PropensityForm::Cascade => "cascade",
            PropensityForm::Examination => "examination",
        }
    }

    /// The form named `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "action" => PropensityForm::Action,
            "slate" => PropensityForm::Slate,
            "marginal" => PropensityForm::Marginal,
            "cascade" => PropensityForm::Cascade,
            "examination" => PropensityForm::Examination,
            _ => return None,
        })
    }

    /// Whether the form has one value per position.
    pub fn per_position(self) -> bool {
        matches!(
            self,
            PropensityForm::Marginal | PropensityForm::Cascade | PropensityForm::Examination
        )
    }
}

/// Whether a log's reward is one per impression or one per position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RewardPer {
    /// One reward per impression (a purchase, a session's clicks).
    #[default]
    Impression,
    /// One reward per position (a click on each item).
    Position,
}

/// Which layout a table has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Layout {
    /// One row per impression and position when the table has the
    /// position column, else one row per impression.
    #[default]
    Auto,
    /// One row per impression (list columns, or one item).
    PerImpression,
    /// One row per impression and position.
    PerPosition,
}

/// The columns of an impression log, by name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImpressionColumns {
    /// The context (query, user) id: default `context`.
    pub context: String,
    /// The impression id, unique per impression: default `impression`.
    pub impression: String,
    /// The shown item (or list of items): default `item`.
    pub item: String,
    /// The position, from 1 (one row per position): default `position`.
    pub position: String,
    /// The reward: default `reward`.
    pub reward: String,
    /// The logging policy's propensity: default `propensity`.
    pub propensity: String,
    /// The target policy's probability, in the propensities' form, when the
    /// log carries one: default none.
    pub target: Option<String>,
}

impl Default for ImpressionColumns {
    fn default() -> Self {
        Self {
            context: "context".into(),
            impression: "impression".into(),
            item: "item".into(),
            position: "position".into(),
            reward: "reward".into(),
            propensity: "propensity".into(),
            target: None,
        }
    }
}

impl ImpressionColumns {
    /// The keys of the columns, in the order of [`Column`].
    pub const KEYS: [&'static str; COLUMNS] = [
        "context",
        "impression",
        "item",
        "position",
        "reward",
        "propensity",
        "target",
    ];

    /// The first two keys that name one column, with its name: that column
    /// would be read as two things (`reward` from the `propensity` column,
    /// the defaults counted), so every reader refuses it.
    pub fn shared(&self) -> Option<(&'static str, &'static str, &str)> {
        let names = self.names();
        names.iter().enumerate().find_map(|(i, a)| {
            let a = (*a)?;
            let j = names.iter().skip(i + 1).position(|b| *b == Some(a))? + i + 1;
            Some((Self::KEYS[i], Self::KEYS[j], a))
        })
    }

    /// The names, in the order of [`Column`].
    fn names(&self) -> [Option<&str>; COLUMNS] {
        [
            Some(&self.context),
            Some(&self.impression),
            Some(&self.item),
            Some(&self.position),
            Some(&self.reward),
            Some(&self.propensity),
            self.target.as_deref(),
        ]
    }
}

/// How to read an impression log.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ImpressionOptions {
    /// The columns' names.
    pub columns: ImpressionColumns,
    /// The propensities' form.
    pub form: PropensityForm,
    /// Per impression or per position.
    pub reward: RewardPer,
    /// The declared range of a reward, inclusive (none: any finite number).
    pub reward_range: Option<(f64, f64)>,
    /// The layout.
    pub layout: Layout,
    /// The propensities are not a column of the log but given per rank
    /// (a click log's examination propensities, `p_k` of position `k`):
    /// the propensity column is not read (a log that has one is an
    /// error: one source of propensities), and each impression's
    /// propensities are left empty for the caller to fill by rank.
    pub propensities_by_rank: bool,
}

/// One impression, owned: what [`Impressions::push`] takes and
/// [`ImpressionRef::to_impression`] gives (the log keeps its impressions
/// in columns, [`Impressions`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Impression {
    /// The context, an id of [`ImpressionLog::ids`].
    pub context: u32,
    /// The impression's id, an id of [`ImpressionLog::ids`].
    pub id: u32,
    /// The shown items in order, ids of [`ImpressionLog::ids`].
    pub items: Vec<u32>,
    /// One reward, or one per position.
    pub rewards: Vec<f64>,
    /// The logging propensities: one (action, slate) or one per position.
    pub propensities: Vec<f64>,
    /// The target's probabilities, in the same form, when the log has them.
    pub target: Option<Vec<f64>>,
    /// Where the impression was read (its first row).
    pub at: RowAt,
}

/// An impression log as read: impressions in input order (of their first
/// row), every id interned once, the impressions in columns
/// ([`Impressions`]: nothing allocated per impression).
#[derive(Clone, Debug, Default)]
pub struct ImpressionLog {
    /// Context, impression and item ids.
    pub ids: Interner,
    /// The impressions.
    pub impressions: Impressions,
    /// The number of items every impression shows.
    pub slate_len: usize,
    /// The propensities' form.
    pub form: PropensityForm,
    /// Per impression or per position.
    pub reward: RewardPer,
}

impl ImpressionLog {
    /// The text of an id.
    pub fn text(&self, id: u32) -> String {
        String::from_utf8_lossy(self.ids.resolve(id)).into_owned()
    }
}

/// Why an impression log could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImpressionError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A value of a line (text) or row (table) is wrong.
    #[error("{path}, {at}, column `{column}`: {problem}")]
    At {
        /// The file.
        path: String,
        /// The line or row, from 1.
        at: RowAt,
        /// The column (or key).
        column: String,
        /// What is wrong.
        problem: String,
    },
    /// A line or row is wrong as a whole (not JSON, a CSV field count).
    #[error("{path}, {at}: {problem}")]
    Row {
        /// The file.
        path: String,
        /// The line or row, from 1.
        at: RowAt,
        /// What is wrong.
        problem: String,
    },
    /// The file as a whole is wrong (no header, a missing column, no
    /// impression, too large, not a readable table).
    #[error("{path}: {problem}")]
    File {
        /// The file.
        path: String,
        /// What is wrong.
        problem: String,
    },
}

impl From<ReadError> for ImpressionError {
    fn from(error: ReadError) -> Self {
        let ReadError { path, line, kind } = error;
        match (line, kind) {
            (None, ReadErrorKind::Io(source)) => ImpressionError::Io { path, source },
            (Some(line), kind) => ImpressionError::Row {
                path,
                at: RowAt::Line(line),
                problem: kind.to_string(),
            },
            (None, kind) => ImpressionError::File {
                path,
                problem: kind.to_string(),
            },
        }
    }
}

/// The columns, in the order of a raw row's cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Column {
    Context = 0,
    Impression = 1,
    Item = 2,
    Position = 3,
    Reward = 4,
    Propensity = 5,
    Target = 6,
}

/// How many columns a raw row has.
pub(crate) const COLUMNS: usize = 7;

/// Reads the impression log at `path` (see the module).
pub fn read_impressions(
    path: &Path,
    options: &ImpressionOptions,
) -> Result<ImpressionLog, ImpressionError> {
    let name = path.display().to_string();
    check_columns(&name, options)?;
    match Format::from_path(path) {
        format @ (Format::Parquet | Format::Arrow) => {
            table::read(&Input::file(path).with_format(format), options)
        }
        _ => {
            let bytes = read_whole(path, WholeInput::TEXT)?;
            log_of(&bytes, &name, options)
        }
    }
}

/// [`read_impressions`] on bytes in memory (not gzip); `name` is the file
/// errors name. Parquet and Arrow IPC are told by their magic bytes.
pub fn parse_impressions(
    bytes: &[u8],
    name: &str,
    options: &ImpressionOptions,
) -> Result<ImpressionLog, ImpressionError> {
    check_columns(name, options)?;
    log_of(bytes, name, options)
}

/// Refuses options that read one column as two things, before the log is
/// read ([`ImpressionColumns::shared`]).
fn check_columns(name: &str, options: &ImpressionOptions) -> Result<(), ImpressionError> {
    match options.columns.shared() {
        Some((first, second, column)) => Err(ImpressionError::File {
            path: name.to_owned(),
            problem: format!(
                "`{first}` and `{second}` both name the column `{}`: each key reads a column of \
                 its own",
                rankeval_core::shorten_id(column.as_bytes())
            ),
        }),
        None => Ok(()),
    }
}

/// The log of bytes: a table by its magic, else text.
fn log_of(
    bytes: &[u8],
    name: &str,
    options: &ImpressionOptions,
) -> Result<ImpressionLog, ImpressionError> {
    let format = if bytes.starts_with(b"PAR1") {
        Format::Parquet
    } else if bytes.starts_with(b"ARROW1") || bytes.starts_with(b"\xFF\xFF\xFF\xFF") {
        Format::Arrow
    } else {
        return assemble::assemble(text::parse(bytes, name, options)?, name, options);
    };
    table::read(&Input::bytes(name, bytes, format), options)
}
