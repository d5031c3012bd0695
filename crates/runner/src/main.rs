//! The `rankeval` command; see `rankeval --help`.

fn main() -> std::process::ExitCode {
    rankeval_runner::cli::main()
}
