//! Integration tests of the built-in metrics.
