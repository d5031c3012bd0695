//! One value of a raw row, as any format gives it, and how it is read as
//! an id, a number or a list: one place for every format's values.

use std::borrow::Cow;

use rankeval_core::shorten_id;

use super::COLUMNS;
use crate::RowAt;

/// A value as read.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Cell {
    /// Text (a CSV field, a JSON string, a table's string or integer id).
    Text(Vec<u8>),
    /// A number and its text as the input gave it (JSON, a table's
    /// integer).
    Number(f64, String),
    /// A table's floating-point number, shown as Rust shows it
    /// (`f64::to_string`, made only when a message or an id needs it).
    Float(f64),
    /// A list (a JSON array, a table's list).
    List(Vec<Cell>),
    /// A null (JSON `null`, a table's null) or an empty CSV field.
    Null,
    /// Anything else (a JSON object or boolean): its kind.
    Other(&'static str),
}

/// A raw row: where it was read and its cells, `None` for a column the
/// row (or the table) does not have.
#[derive(Clone, Debug)]
pub(crate) struct RawRow {
    pub(crate) at: RowAt,
    pub(crate) cells: [Option<Cell>; COLUMNS],
}

/// The raw rows of a table and which columns it has.
#[derive(Clone, Debug, Default)]
pub(crate) struct RawTable {
    pub(crate) rows: Vec<RawRow>,
    /// Whether the table has each column (a header's, a schema's; for
    /// JSON Lines, any row's key).
    pub(crate) has: [bool; COLUMNS],
    /// The columns the table has, as it names them (for messages).
    pub(crate) names: Vec<String>,
}

impl Cell {
    /// The cell as an id: text, or an integer given as a number.
    pub(crate) fn id(&self) -> Result<Cow<'_, [u8]>, String> {
        let text: Cow<'_, [u8]> = match self {
            Cell::Float(x) => {
                let float = x.to_string();
                if !float.bytes().all(|b| b.is_ascii_digit() || b == b'-') {
                    return Err(format!("`{float}` is not an id"));
                }
                Cow::Owned(float.into_bytes())
            }
            Cell::Text(t) => Cow::Borrowed(t),
            Cell::Number(_, shown) if shown.bytes().all(|b| b.is_ascii_digit() || b == b'-') => {
                Cow::Borrowed(shown.as_bytes())
            }
            Cell::Number(_, shown) => return Err(format!("`{shown}` is not an id")),
            Cell::List(_) => return Err("a list, where an id is expected".into()),
            Cell::Null => return Err("missing (empty or null)".into()),
            Cell::Other(kind) => return Err(format!("{kind}, where an id is expected")),
        };
        if text.is_empty() {
            return Err("missing (empty)".into());
        }
        rankeval_core::check_id(&text).map_err(|bad| bad.to_string())?;
        if std::str::from_utf8(&text).is_err() {
            return Err(format!("the id `{}` is not UTF-8 text", shorten_id(&text)));
        }
        Ok(text)
    }

    /// The cell as a number (text parsed as a decimal), and how it is shown.
    pub(crate) fn number(&self) -> Result<(f64, String), String> {
        match self {
            Cell::Number(x, shown) => Ok((*x, shown.clone())),
            Cell::Float(x) => Ok((*x, x.to_string())),
            Cell::Text(t) => {
                let text = String::from_utf8_lossy(t);
                let trimmed = text.trim();
                if trimmed.is_empty() {
                    return Err("missing (empty)".into());
                }
                trimmed
                    .parse::<f64>()
                    .map(|x| (x, trimmed.to_owned()))
                    .map_err(|_| format!("`{}` is not a number", shorten_id(trimmed.as_bytes())))
            }
            Cell::List(_) => Err("a list, where a number is expected".into()),
            Cell::Null => Err("missing (empty or null)".into()),
            Cell::Other(kind) => Err(format!("{kind}, where a number is expected")),
        }
    }

    /// [`Cell::number`]'s number alone: the same numbers and errors,
    /// without the text shown (made by [`Cell::shown`] when a message
    /// needs it).
    pub(crate) fn value(&self) -> Result<f64, String> {
        match self {
            Cell::Number(x, _) | Cell::Float(x) => Ok(*x),
            cell => cell.number().map(|(x, _)| x),
        }
    }

    /// How [`Cell::number`] shows the cell's number (its text as given,
    /// trimmed; a float as Rust shows it); empty for a cell that is no
    /// number.
    pub(crate) fn shown(&self) -> String {
        self.number().map(|(_, shown)| shown).unwrap_or_default()
    }

    /// The cell as a list: its items, or the cell itself as a list of one
    /// (a single item, a scalar).
    pub(crate) fn items(&self) -> &[Cell] {
        match self {
            Cell::List(items) => items,
            cell => std::slice::from_ref(cell),
        }
    }

    /// Whether the cell is a list.
    pub(crate) fn is_list(&self) -> bool {
        matches!(self, Cell::List(_))
    }
}
