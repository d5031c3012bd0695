//! The built-in aggregators: how a metric's per-query values become one number.

pub mod mean;
