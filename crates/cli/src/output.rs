//! Writing a report: to stdout, or to a file whole or not at all (written
//! to a temporary file beside it, then renamed over it).

use std::fs;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use super::CliError;

/// How errors name standard output.
pub(super) const STDOUT: &str = "<stdout>";

/// Writes `text` to `path`, or to stdout when there is none.
pub(super) fn write(text: &str, path: Option<&Path>) -> Result<(), CliError> {
    write_bytes(text.as_bytes(), path)
}

/// [`write`] of bytes.
pub(super) fn write_bytes(text: &[u8], path: Option<&Path>) -> Result<(), CliError> {
    match path {
        None => write_stdout(text),
        Some(path) => write_file(text, path).map_err(|source| CliError::Write {
            path: path.display().to_string(),
            source,
        }),
    }
}

/// Refuses `-o target` when `target` is one of `inputs` (as `(role, path)`):
/// the same file, however named (compared by device and inode where there
/// are such, else by canonical path). Writing the report there would
/// destroy the input.
pub(super) fn refuse_an_input<'a>(
    target: &Path,
    inputs: impl Iterator<Item = (&'static str, &'a Path)>,
) -> Result<(), CliError> {
    if fs::metadata(target).is_err() {
        return Ok(()); // A new file is no input.
    }
    for (role, input) in inputs {
        if fs::metadata(input).is_ok() && rankeval::files::same_file(target, input) {
            return Err(CliError::Usage(format!(
                "-o {}: it is {role} ({}); the report would overwrite it",
                target.display(),
                input.display()
            )));
        }
    }
    Ok(())
}

/// Whether standard output was closed when the process started (`>&-`).
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Records that standard output was closed when the process started (the
/// `rankeval` binary calls it before Rust's runtime replaces the closed
/// descriptor by `/dev/null`).
pub(super) fn note_stdout_closed() {
    STDOUT_CLOSED.store(true, Ordering::Relaxed);
}

/// Notes whether standard output is open; call first thing in `main`, as a
/// file opened later may take its descriptor number. Rust's `stdout`
/// silently drops what is written to a closed descriptor, which would lose
/// the report and exit 0.
pub(super) fn check_stdout() {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Err(error) = io::stdout().as_fd().try_clone_to_owned()
            && error.raw_os_error() == Some(9)
        {
            note_stdout_closed();
        }
    }
}

/// The error for writing to a standard output that is closed, if it is.
pub(super) fn stdout_closed() -> Option<CliError> {
    STDOUT_CLOSED
        .load(Ordering::Relaxed)
        .then(|| CliError::Write {
            path: STDOUT.to_owned(),
            source: io::Error::new(io::ErrorKind::BrokenPipe, "it is closed"),
        })
}

/// Writes `text` to stdout. A closed pipe (`| head`) is not an error worth
/// reporting; any other failure (a full disk, `> /dev/full`, a closed
/// descriptor) is.
pub(super) fn write_stdout(text: &[u8]) -> Result<(), CliError> {
    if let Some(error) = stdout_closed() {
        return Err(error);
    }
    let mut stdout = io::stdout().lock();
    match stdout.write_all(text).and_then(|()| stdout.flush()) {
        Err(error) if error.kind() != io::ErrorKind::BrokenPipe => Err(CliError::Write {
            path: STDOUT.to_owned(),
            source: error,
        }),
        _ => Ok(()),
    }
}

/// Writes to `path` (whole or not at all, as [`write`]), or to stdout when
/// there is none, what `fill` writes, as it writes it: an output larger
/// than memory (a history's export) is never held whole. The outer error
/// is writing's (naming the file or stdout; a closed pipe on stdout is
/// none); the inner is `fill`'s own, when it failed otherwise (the file
/// is then left as it was).
pub(super) fn stream<E>(
    path: Option<&Path>,
    fill: impl FnOnce(&mut (dyn Write + Send)) -> Result<(), E>,
) -> Result<Result<(), E>, CliError> {
    let mut own = None;
    let mut fill = Some(fill);
    let mut run = |out: &mut (dyn Write + Send)| -> io::Result<()> {
        let Some(fill) = fill.take() else {
            return Ok(());
        };
        let mut tracked = Tracked { out, error: None };
        let result = fill(&mut tracked);
        let flushed = tracked.flush();
        match (result, tracked.error.take()) {
            (_, Some(error)) => Err(error),
            (Err(e), None) => {
                own = Some(e);
                Err(io::Error::other("not written"))
            }
            (Ok(()), None) => flushed,
        }
    };
    let written = match path {
        None => {
            if let Some(error) = stdout_closed() {
                return Err(error);
            }
            match run(&mut io::stdout()) {
                Err(error) if own.is_none() && error.kind() != io::ErrorKind::BrokenPipe => {
                    Err(CliError::Write {
                        path: STDOUT.to_owned(),
                        source: error,
                    })
                }
                _ => Ok(()),
            }
        }
        Some(target) => match write_file_with(target, &mut run) {
            Err(source) if own.is_none() => Err(CliError::Write {
                path: target.display().to_string(),
                source,
            }),
            _ => Ok(()),
        },
    };
    written?;
    Ok(own.map_or(Ok(()), Err))
}

/// A writer that keeps the first error its writes met: what tells a
/// failed write from a failure of what was writing.
struct Tracked<'a> {
    /// Where the bytes go.
    out: &'a mut (dyn Write + Send),
    /// The first write error.
    error: Option<io::Error>,
}

impl Write for Tracked<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf).inspect_err(|e| {
            if self.error.is_none() {
                self.error = Some(io::Error::new(e.kind(), e.to_string()));
            }
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush().inspect_err(|e| {
            if self.error.is_none() {
                self.error = Some(io::Error::new(e.kind(), e.to_string()));
            }
        })
    }
}

/// Replaces `path` with a file holding `text`, atomically: a temporary file
/// beside it, renamed over it. The new file keeps the permissions of the one
/// it replaces; a new file gets `0o666` less the umask, as any file a shell
/// redirection creates. Something that is not a regular file (`/dev/null`,
/// a FIFO) is written in place, never replaced.
fn write_file(text: &[u8], path: &Path) -> io::Result<()> {
    write_file_with(path, &mut |out| out.write_all(text))
}

/// [`write_file`] of what `fill` writes; nothing replaces `path` when it
/// fails.
fn write_file_with(
    path: &Path,
    fill: &mut dyn FnMut(&mut (dyn Write + Send)) -> io::Result<()>,
) -> io::Result<()> {
    let existing = match fs::metadata(path) {
        Ok(metadata) => Some(metadata),
        Err(error) if error.kind() == io::ErrorKind::NotFound => None,
        Err(error) => return Err(error),
    };
    if let Some(metadata) = &existing {
        if metadata.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "it is a directory",
            ));
        }
        if metadata.is_file() {
            // Replacing a file one may not write is not for a report to do:
            // asking to write it (without truncating) fails as `>` would.
            fs::OpenOptions::new().write(true).open(path)?;
        } else {
            let mut file = fs::OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(path)?;
            fill(&mut file)?;
            return file.flush();
        }
    }
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    ask_usual_permissions(&mut builder);
    // The temporary file's name is no business of the user's: errors name
    // the target only, so tempfile's "at path .tmpXXXX" is taken off.
    let mut file = builder.tempfile_in(directory).map_err(without_temp_path)?;
    // Removed if a signal ends the process before it is renamed into place.
    let _registered = Registered::new(file.path());
    if let Some(metadata) = &existing {
        // Set explicitly: the umask would narrow permissions given at creation.
        file.as_file().set_permissions(metadata.permissions())?;
    }
    {
        let mut buffered = io::BufWriter::new(file.as_file_mut());
        fill(&mut buffered)?;
        buffered.flush()?;
    }
    file.as_file().sync_all()?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// A temporary file registered for removal on a signal while it lives.
struct Registered(std::path::PathBuf);

impl Registered {
    fn new(path: &Path) -> Self {
        rankeval_readers::temporary::register(path);
        Self(path.to_owned())
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        rankeval_readers::temporary::unregister(&self.0);
    }
}

/// Asks for `0o666` on a new file; the kernel takes the umask off, as for
/// any file a shell redirection creates.
#[cfg(unix)]
fn ask_usual_permissions(builder: &mut tempfile::Builder<'_, '_>) {
    use std::os::unix::fs::PermissionsExt;
    builder.permissions(fs::Permissions::from_mode(0o666));
}

/// Elsewhere tempfile's default is an ordinary writable file.
#[cfg(not(unix))]
fn ask_usual_permissions(_builder: &mut tempfile::Builder<'_, '_>) {}

/// `error` without the path tempfile appends to it (`... at path "..."`).
fn without_temp_path(error: io::Error) -> io::Error {
    if error.get_ref().is_none() {
        return error;
    }
    let message = error.to_string();
    match message.split_once(" at path ") {
        Some((reason, _)) => io::Error::new(error.kind(), reason.to_owned()),
        None => error,
    }
}
