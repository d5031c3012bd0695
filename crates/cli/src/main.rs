//! The `rankeval` command; see `rankeval --help`.

fn main() -> std::process::ExitCode {
    rankeval_cli::main()
}

/// Notes whether standard output is closed (`>&-`) before Rust's runtime
/// starts: it puts `/dev/null` on a closed standard descriptor, after
/// which the report would be lost without an error. Runs from
/// `.init_array`, before `main`.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
#[used]
#[unsafe(link_section = ".init_array")]
static NOTE_CLOSED_STDOUT: extern "C" fn() = {
    extern "C" fn note() {
        // SAFETY: fcntl(F_GETFD) only queries the descriptor.
        if unsafe { libc::fcntl(1, libc::F_GETFD) } == -1 {
            rankeval_cli::stdout_was_closed();
        }
    }
    note
};
