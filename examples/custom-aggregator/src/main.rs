//! The full `rankeval` command line, with `trimmed_mean` and
//! `share_at_least` available by name (`-a trimmed_mean(cut=0.2)`).

// Naming the library links it, and with it its `#[aggregator]`
// registrations: a binary that never names a plugin crate gets nothing from it.
use rankeval_example_custom_aggregator as _;

fn main() -> std::process::ExitCode {
    rankeval_cli::main()
}
