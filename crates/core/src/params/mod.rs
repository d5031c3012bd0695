//! Parameters of metrics and aggregators: the shared `k` and `rel` types, the
//! value type that the short syntax and TOML tables both become, and the
//! canonical name printer.

mod levels;
mod name;
mod value;

pub use levels::{Cutoff, RelevanceLevel};
pub use name::CanonicalName;
pub use value::ParamValue;
