//! The canonical name of a metric: short name, non-default parameters in
//! declaration order inside `()`, then `@k`. It is the key of the metric in
//! every report, and parses back to an equal metric.

use std::fmt::Display;

use crate::params::Cutoff;

/// Builds a canonical name, e.g. `ap(norm=truncated)@10`.
///
/// ```
/// use rankeval_core::{CanonicalName, Cutoff};
/// let name = CanonicalName::new("ap")
///     .param_unless_default("norm", "truncated", "relevant")
///     .cutoff(Cutoff::new(10));
/// assert_eq!(name, "ap(norm=truncated)@10");
/// ```
#[derive(Clone, Debug)]
pub struct CanonicalName {
    text: String,
    params: usize,
}

impl CanonicalName {
    /// Starts a name with the metric's short name.
    pub fn new(short: &str) -> Self {
        Self {
            text: short.to_owned(),
            params: 0,
        }
    }

    /// Adds `key=value`.
    pub fn param(mut self, key: &str, value: impl Display) -> Self {
        self.text.push(if self.params == 0 { '(' } else { ',' });
        self.text.push_str(key);
        self.text.push('=');
        self.text.push_str(&value.to_string());
        self.params += 1;
        self
    }

    /// Adds `key=value` when `value` is set.
    pub fn param_if_set(self, key: &str, value: Option<impl Display>) -> Self {
        match value {
            Some(value) => self.param(key, value),
            None => self,
        }
    }

    /// Adds `key=value` unless `value` equals `default`.
    pub fn param_unless_default<T: Display + PartialEq>(
        self,
        key: &str,
        value: T,
        default: T,
    ) -> Self {
        if value == default {
            self
        } else {
            self.param(key, value)
        }
    }

    /// Ends the name with `@k` if there is a cutoff.
    pub fn cutoff(self, k: Option<Cutoff>) -> String {
        let mut text = self.finish();
        if let Some(k) = k {
            text.push('@');
            text.push_str(&k.to_string());
        }
        text
    }

    /// Ends the name without a cutoff.
    pub fn finish(mut self) -> String {
        if self.params > 0 {
            self.text.push(')');
        }
        self.text
    }
}
