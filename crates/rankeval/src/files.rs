//! When two paths name one file: the one rule behind "give each run once"
//! (`eval --run`), "a suite lists each experiment file once" (`run a.toml
//! a.toml`, a suite file, Python's `suite`) and "-o would overwrite an
//! input". Two spellings of a path (`./a.toml`, a link) are the same file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What makes two paths the same file: device and inode where there are
/// such, else the canonical path (or the path as given, if it has none).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FileIdentity {
    /// Device and inode (Unix).
    #[cfg(unix)]
    Inode(u64, u64),
    /// The canonical path, or the path as given when it has none.
    Path(PathBuf),
}

impl FileIdentity {
    /// The identity of the file at `path`.
    pub fn of(path: &Path) -> Self {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            if let Ok(metadata) = std::fs::metadata(path) {
                return FileIdentity::Inode(metadata.dev(), metadata.ino());
            }
        }
        match path.canonicalize() {
            Ok(canonical) => FileIdentity::Path(canonical),
            Err(_) => FileIdentity::Path(path.to_owned()),
        }
    }
}

/// The first path of `paths` that names a file an earlier one named, with
/// that earlier path: `(earlier, repeat)`. Linear in the paths.
pub fn first_repeat<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Option<(&'a Path, &'a Path)> {
    let mut seen = HashMap::new();
    for path in paths {
        if let Some(first) = seen.insert(FileIdentity::of(path), path) {
            return Some((first, path));
        }
    }
    None
}

/// Whether `a` and `b` name one file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    FileIdentity::of(a) == FileIdentity::of(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_spellings_of_one_file_are_a_repeat_and_two_files_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.toml");
        let b = dir.path().join("b.toml");
        std::fs::write(&a, "").unwrap();
        std::fs::write(&b, "").unwrap();
        let dotted = dir.path().join(".").join("a.toml");
        assert!(same_file(&a, &dotted));
        assert!(!same_file(&a, &b));
        let paths = [a.clone(), b.clone(), dotted.clone()];
        assert_eq!(
            first_repeat(paths.iter().map(PathBuf::as_path)),
            Some((a.as_path(), dotted.as_path()))
        );
        assert_eq!(first_repeat([a.as_path(), b.as_path()]), None);
    }
}
