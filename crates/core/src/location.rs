//! Where a plugin is registered in source: plain data that the registry
//! fills in and the errors quote, so that neither depends on the other.

use std::fmt;

/// Where a plugin is registered in source, so a clash can name both places.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    /// `file!()` of the registration.
    pub file: &'static str,
    /// `line!()` of the registration.
    pub line: u32,
    /// `module_path!()` of the registration.
    pub module: &'static str,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{} ({})", self.file, self.line, self.module)
    }
}
