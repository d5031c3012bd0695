//! The progress display while inputs are read, on stderr when it is a
//! terminal. The reader reports bytes as parsed, which for a gzip input are
//! decompressed bytes: a total taken from the file's size on disk would not
//! match them, so with a gzip input (or a pipe, whose size is unknown) the
//! display is a spinner with the bytes read and the rate, without a total.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use indicatif::{ProgressBar, ProgressStyle};

use rankeval::experiment::Experiment;
use rankeval::read::Input;

/// Inputs larger than this get a progress display.
const PROGRESS_FROM_BYTES: u64 = 64 << 20;

/// A gzip input holds at least this many times its size on disk, for
/// deciding whether to show progress (text compresses 4 to 10 times).
const GZIP_RATIO: u64 = 4;

/// What can be known of an input's size before reading it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Size {
    /// A plain file of this many bytes: the bytes the reader reports.
    Plain(u64),
    /// A gzip file of this many bytes on disk; it decompresses to more.
    Gzip(u64),
    /// A pipe or anything else without a size.
    Unknown,
}

/// What to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Plan {
    /// Nothing: the inputs are small.
    Hidden,
    /// A bar towards this many bytes: every input is a plain file.
    Bar(u64),
    /// A spinner with the bytes read: the total is not known.
    Spinner,
}

/// The size of `input`, looking at its first two bytes for gzip's magic
/// number (as the reader does). Only regular files are opened: reading
/// from a pipe would take the bytes from the reader.
fn size_of(input: &Input) -> Size {
    let path = Path::new(input.name());
    match std::fs::metadata(path) {
        Ok(metadata) if metadata.is_file() => {
            let mut magic = [0u8; 2];
            let gzip = File::open(path)
                .and_then(|mut file| file.read_exact(&mut magic))
                .is_ok_and(|()| magic == [0x1f, 0x8b]);
            if gzip {
                Size::Gzip(metadata.len())
            } else {
                Size::Plain(metadata.len())
            }
        }
        _ => match input.len_hint() {
            // Bytes in memory (a library caller), never a pipe.
            Some(len) if !Path::new(input.name()).exists() => Size::Plain(len),
            _ => Size::Unknown,
        },
    }
}

fn plan(sizes: &[Size]) -> Plan {
    let mut plain = 0u64;
    let mut estimated = 0u64;
    let mut exact = true;
    for size in sizes {
        match *size {
            Size::Plain(len) => {
                plain = plain.saturating_add(len);
                estimated = estimated.saturating_add(len);
            }
            Size::Gzip(len) => {
                exact = false;
                estimated = estimated.saturating_add(len.saturating_mul(GZIP_RATIO));
            }
            Size::Unknown => return Plan::Spinner,
        }
    }
    match (exact, estimated >= PROGRESS_FROM_BYTES) {
        (_, false) => Plan::Hidden,
        (true, true) => Plan::Bar(plain),
        (false, true) => Plan::Spinner,
    }
}

/// The progress display for reading `experiment`'s inputs, drawn only if
/// `draw` (stderr is a terminal).
pub(super) fn display(experiment: &Experiment, draw: bool) -> ProgressBar {
    if !draw {
        return ProgressBar::hidden();
    }
    let sizes: Vec<Size> = experiment.inputs().map(size_of).collect();
    match plan(&sizes) {
        Plan::Hidden => ProgressBar::hidden(),
        Plan::Bar(total) => {
            let bar = ProgressBar::new(total);
            if let Ok(style) = ProgressStyle::with_template(
                "{spinner} reading {bytes}/{total_bytes} [{bar:30}] {bytes_per_sec}, {eta} left",
            ) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar
        }
        Plan::Spinner => {
            let spinner = ProgressBar::no_length();
            if let Ok(style) =
                ProgressStyle::with_template("{spinner} reading {bytes} {bytes_per_sec}")
            {
                spinner.set_style(style);
            }
            spinner
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    const BIG: u64 = PROGRESS_FROM_BYTES;

    #[test]
    fn plain_files_get_a_bar_with_their_total() {
        assert_eq!(plan(&[Size::Plain(10)]), Plan::Hidden);
        assert_eq!(
            plan(&[Size::Plain(BIG / 2), Size::Plain(BIG / 2)]),
            Plan::Bar(BIG)
        );
    }

    #[test]
    fn gzip_or_a_pipe_gets_a_spinner_without_a_total() {
        // The threshold counts what a gzip file decompresses to, at least.
        assert_eq!(plan(&[Size::Gzip(BIG / GZIP_RATIO)]), Plan::Spinner);
        assert_eq!(plan(&[Size::Gzip(BIG / 8)]), Plan::Hidden);
        // Never a bar whose total is a compressed size.
        assert_eq!(plan(&[Size::Plain(BIG), Size::Gzip(1)]), Plan::Spinner);
        assert_eq!(plan(&[Size::Plain(1), Size::Unknown]), Plan::Spinner);
    }

    #[test]
    fn gzip_is_told_by_its_first_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"q1 Q0 a 1 1 t\n").unwrap();
        let gz = gz.finish().unwrap();
        // The name does not matter: the bytes do.
        let zipped = dir.path().join("run.trec");
        std::fs::write(&zipped, &gz).unwrap();
        let plain = dir.path().join("run.trec.gz");
        std::fs::write(&plain, "q1 Q0 a 1 1 t\n").unwrap();
        assert_eq!(size_of(&Input::file(&zipped)), Size::Gzip(gz.len() as u64));
        assert_eq!(size_of(&Input::file(&plain)), Size::Plain(14));
        #[cfg(unix)]
        {
            let fifo = dir.path().join("run.fifo");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                assert_eq!(size_of(&Input::file(&fifo)), Size::Unknown);
            }
        }
    }

    #[test]
    fn nothing_is_drawn_off_a_terminal() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run.trec");
        std::fs::write(&run, "q1 Q0 a 1 1 t\n").unwrap();
        let experiment = Experiment {
            title: None,
            qrels: None,
            runs: vec![rankeval::experiment::NamedRun {
                name: "run".into(),
                input: Input::file(&run),
            }],
            metrics: Vec::new(),
            aggregators: Vec::new(),
            corpus_metrics: Vec::new(),
            corpus_inputs: Default::default(),
            groups: None,
            turns: None,
            per_conversation: false,
            samples: false,
            systems: Vec::new(),
            options: Default::default(),
            read: Default::default(),
            comparison: None,
            notes: Vec::new(),
            record: None,
            official: None,
            parts: None,
        };
        assert!(display(&experiment, false).is_hidden());
    }
}
