//! Input files mapped into memory: parsed where the kernel keeps them,
//! without copying them into buffers first. One of the two places rankeval
//! uses `unsafe` (the other is the SSE2 call in `fields.rs`), for the two
//! calls the mapping needs.

#![allow(unsafe_code)]

use std::fs::File;

use memmap2::{Advice, Mmap, MmapOptions, UncheckedAdvice};

/// Released ranges are aligned to this, a multiple of every common page size.
const ALIGN: usize = 64 << 10;

/// A file mapped read-only.
pub(crate) struct Mapped {
    map: Mmap,
}

impl Mapped {
    /// Maps `file`, or `None` where mapping does not apply (an empty file, a
    /// pipe or other special file); then the file is read as a stream.
    pub(crate) fn open(file: &File) -> Option<Self> {
        let metadata = file.metadata().ok()?;
        if !metadata.is_file() || metadata.len() == 0 {
            return None;
        }
        // SAFETY: the mapping is read-only and nothing in this process
        // writes to the file. Another process truncating the file while it
        // is read would make a later access fault (SIGBUS), as with any
        // memory-mapped reader (ripgrep documents the same trade-off);
        // rankeval's inputs are files that are not written while evaluated.
        let map = unsafe { MmapOptions::new().map(file) }.ok()?;
        let _ = map.advise(Advice::Sequential);
        Some(Self { map })
    }

    /// The file's bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// Lets the kernel take back the pages of `start..end` from this
    /// process (they stay in the page cache), so that resident memory does
    /// not grow with the file. Those bytes must not be read again.
    pub(crate) fn release(&self, start: usize, end: usize) {
        let start = start.next_multiple_of(ALIGN);
        let end = end / ALIGN * ALIGN;
        if end > start {
            // SAFETY: a read-only file mapping loses nothing when its pages
            // are dropped (an access would read them again from the file);
            // the callers never read a released range again.
            let _ = unsafe {
                self.map
                    .unchecked_advise_range(UncheckedAdvice::DontNeed, start, end - start)
            };
        }
    }
}
