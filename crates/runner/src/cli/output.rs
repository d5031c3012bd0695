//! Writing a report: to stdout, or to a file whole or not at all (written
//! to a temporary file beside it, then renamed over it).

use std::io::Write;
use std::path::Path;

use super::CliError;

/// Writes `text` to `path`, or to stdout when there is none.
pub(super) fn write(text: &str, path: Option<&Path>) -> Result<(), CliError> {
    let Some(path) = path else {
        let mut stdout = std::io::stdout().lock();
        // A closed pipe (`| head`) is not an error worth reporting.
        let _ = stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush());
        return Ok(());
    };
    let fail = |source| CliError::Write {
        path: path.display().to_string(),
        source,
    };
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(directory).map_err(fail)?;
    file.write_all(text.as_bytes()).map_err(fail)?;
    file.as_file().sync_all().map_err(fail)?;
    file.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}
