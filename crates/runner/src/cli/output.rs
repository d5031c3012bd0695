//! Writing a report: to stdout, or to a file whole or not at all (written
//! to a temporary file beside it, then renamed over it).

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use super::CliError;

/// How errors name standard output.
pub(super) const STDOUT: &str = "<stdout>";

/// Writes `text` to `path`, or to stdout when there is none.
pub(super) fn write(text: &str, path: Option<&Path>) -> Result<(), CliError> {
    match path {
        None => write_stdout(text),
        Some(path) => write_file(text, path).map_err(|source| CliError::Write {
            path: path.display().to_string(),
            source,
        }),
    }
}

/// Writes `text` to stdout. A closed pipe (`| head`) is not an error worth
/// reporting; any other failure (a full disk, `> /dev/full`) is.
pub(super) fn write_stdout(text: &str) -> Result<(), CliError> {
    let mut stdout = io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(error) if error.kind() != io::ErrorKind::BrokenPipe => Err(CliError::Write {
            path: STDOUT.to_owned(),
            source: error,
        }),
        _ => Ok(()),
    }
}

/// Replaces `path` with a file holding `text`, atomically: a temporary file
/// beside it, renamed over it. The new file keeps the permissions of the one
/// it replaces; a new file gets `0o666` less the umask, as any file a shell
/// redirection creates. Something that is not a regular file (`/dev/null`,
/// a FIFO) is written in place, never replaced.
fn write_file(text: &str, path: &Path) -> io::Result<()> {
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
        if !metadata.is_file() {
            let mut file = fs::OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(path)?;
            return file.write_all(text.as_bytes()).and_then(|()| file.flush());
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
    if let Some(metadata) = &existing {
        // Set explicitly: the umask would narrow permissions given at creation.
        file.as_file().set_permissions(metadata.permissions())?;
    }
    file.as_file_mut().write_all(text.as_bytes())?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
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
