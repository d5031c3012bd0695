//! The full `rankeval` command line, with `attention_share` available by name.

// Naming the library links it, and with it its `#[metric]` registration: a binary
// that never names a plugin crate gets no metrics from it, silently.
use rankeval_example_custom_metric as _;

fn main() -> std::process::ExitCode {
    rankeval_cli::main()
}
