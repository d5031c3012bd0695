//! Where each value of a spec came from: a flag as typed, a TOML key on a
//! line, a Python keyword argument. A message about a value starts with
//! its origin, so each front end's user reads it in their own terms.

use std::fmt;

use crate::front::FrontEnd;

/// Where a value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A command-line flag, with its value as typed when the message should
    /// quote it (`--rel 0`), else empty (`--turns`).
    Flag {
        /// The flag, e.g. `--rel` or `-m`.
        flag: String,
        /// The value as typed, or empty.
        value: String,
    },
    /// A key of a TOML experiment file.
    Key {
        /// The experiment file, as given.
        file: String,
        /// The key's line, from 1.
        line: usize,
        /// The key, e.g. `runs[2].name`.
        key: String,
    },
    /// A Python keyword argument, e.g. `rel=`.
    Keyword {
        /// The keyword.
        name: String,
        /// The value as Python shows it, or empty.
        value: String,
    },
}

impl Origin {
    /// A flag and the value typed with it.
    pub fn flag(flag: impl Into<String>, value: impl fmt::Display) -> Origin {
        Origin::Flag {
            flag: flag.into(),
            value: value.to_string(),
        }
    }

    /// A flag alone (the message does not quote a value).
    pub fn bare_flag(flag: impl Into<String>) -> Origin {
        Origin::Flag {
            flag: flag.into(),
            value: String::new(),
        }
    }

    /// A key of the TOML file `file`, on `line`.
    pub fn key(file: impl Into<String>, line: usize, key: impl Into<String>) -> Origin {
        Origin::Key {
            file: file.into(),
            line,
            key: key.into(),
        }
    }

    /// A Python keyword argument and its value.
    pub fn keyword(name: impl Into<String>, value: impl fmt::Display) -> Origin {
        Origin::Keyword {
            name: name.into(),
            value: value.to_string(),
        }
    }

    /// The same place, for the part `key` of a TOML table or the same flag
    /// (`runs[2]` -> `runs[2].name`).
    pub fn child(&self, part: &str) -> Origin {
        match self {
            Origin::Key { file, line, key } => Origin::Key {
                file: file.clone(),
                line: *line,
                key: format!("{key}.{part}"),
            },
            other => other.clone(),
        }
    }

    /// The front end whose words a message about this value uses.
    pub fn front(&self) -> FrontEnd {
        match self {
            Origin::Flag { .. } | Origin::Key { .. } => FrontEnd::CommandLine,
            Origin::Keyword { .. } => FrontEnd::Python,
        }
    }

    /// How this front end names another option `key` in a sentence:
    /// `--turns` (`flag` where the flag differs from the key), `` `turns` ``
    /// in a TOML file, `turns=` in Python.
    pub fn option(&self, key: &str, flag: Option<&str>) -> String {
        match self {
            Origin::Flag { .. } => {
                flag.map_or_else(|| format!("--{}", key.replace('_', "-")), str::to_owned)
            }
            Origin::Key { .. } => format!("`{key}`"),
            Origin::Keyword { .. } => format!("{key}="),
        }
    }

    /// Whether the value came from a TOML file.
    pub fn is_file(&self) -> bool {
        matches!(self, Origin::Key { .. })
    }
}

/// `--rel 0`, `exp.toml:3: rel`, `rel=0`: how a message about the value
/// begins (the message follows after `: `).
impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Flag { flag, value } if value.is_empty() => f.write_str(flag),
            Origin::Flag { flag, value } => write!(f, "{flag} {}", Shown(value)),
            Origin::Key { file, line, key } => write!(f, "{file}:{line}: {key}"),
            Origin::Keyword { name, value } if value.is_empty() => write!(f, "{name}="),
            Origin::Keyword { name, value } => write!(f, "{name}={}", Shown(value)),
        }
    }
}

/// A value as a message shows it: its control characters escaped (`\u{1}`,
/// `\n`), so that a value holding them neither hides them nor breaks the
/// line of the message, and cut after [`SHOWN_CHARS`] characters with its
/// length, so that a 100 kB value gives a short message.
struct Shown<'a>(&'a str);

/// The most characters of a value a message shows.
const SHOWN_CHARS: usize = 512;

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (kept, c) in self.0.chars().enumerate() {
            if kept == SHOWN_CHARS {
                return write!(f, "… ({} bytes)", self.0.len());
            }
            if c.is_control() {
                write!(f, "{}", c.escape_debug())?;
            } else {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

/// A value and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Given<T> {
    /// The value.
    pub value: T,
    /// Where it came from.
    pub from: Origin,
}

impl<T> Given<T> {
    /// `value`, from `from`.
    pub fn new(value: T, from: Origin) -> Given<T> {
        Given { value, from }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_in_a_value_are_shown_escaped() {
        assert_eq!(
            Origin::flag("--label", "a\u{1}b\nc").to_string(),
            "--label a\\u{1}b\\nc"
        );
        let long = "x".repeat(100_000);
        let shown = Origin::flag("--qrels", &long).to_string();
        assert_eq!(
            shown,
            format!("--qrels {}… (100000 bytes)", &long[..SHOWN_CHARS])
        );
        assert_eq!(Origin::keyword("label", "x\ty").to_string(), "label=x\\ty");
    }

    #[test]
    fn each_origin_begins_a_message_in_its_front_ends_words() {
        assert_eq!(Origin::flag("--rel", 0).to_string(), "--rel 0");
        assert_eq!(Origin::bare_flag("--turns").to_string(), "--turns");
        assert_eq!(
            Origin::key("exp.toml", 3, "runs[2]")
                .child("name")
                .to_string(),
            "exp.toml:3: runs[2].name"
        );
        assert_eq!(Origin::keyword("rel", 0).to_string(), "rel=0");
        assert_eq!(Origin::flag("--rel", 0).option("turns", None), "--turns");
        assert_eq!(
            Origin::flag("--rel", 0).option("training", Some("--train")),
            "--train"
        );
        assert_eq!(Origin::key("e", 1, "rel").option("turns", None), "`turns`");
        assert_eq!(Origin::keyword("rel", 0).option("turns", None), "turns=");
        assert_eq!(Origin::keyword("rel", 0).front(), FrontEnd::Python);
    }
}
