//! The built-in aggregators: how a metric's per-query values become one number.

pub mod ci;
pub mod gmean;
pub mod max;
pub mod mean;
pub mod median;
pub mod min;
mod state;
pub mod std_dev;
pub mod sum;
