//! Input files mapped into memory: parsed where the kernel keeps them,
//! without copying them into buffers first. One of the places rankeval
//! uses `unsafe` (with the SSE2 call in `fields.rs` and `signals.rs`), for
//! the two calls the mapping needs.
//!
//! Each mapping is registered with its file's name ([`name_at`]), so that
//! the SIGBUS handler of `signals.rs` can name the file when another
//! process truncates it while it is read.

#![allow(unsafe_code)]

use std::fs::File;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};

use memmap2::{Advice, Mmap, MmapOptions, UncheckedAdvice};

/// Released ranges are aligned to this, a multiple of every common page size.
const ALIGN: usize = 64 << 10;

/// A file mapped read-only.
pub(crate) struct Mapped {
    map: Mmap,
    /// Its slot in [`SLOTS`], if one was free; the name stays alive here
    /// while the slot points at it.
    slot: Option<usize>,
    _name: Box<[u8]>,
}

/// A mapping's address range and its file's name, readable from a signal
/// handler (atomics only).
struct Slot {
    used: AtomicBool,
    start: AtomicUsize,
    end: AtomicUsize,
    name: AtomicPtr<u8>,
    name_len: AtomicUsize,
}

impl Slot {
    // Only to initialise the array below, each element its own.
    #[allow(clippy::declare_interior_mutable_const)]
    const FREE: Slot = Slot {
        used: AtomicBool::new(false),
        start: AtomicUsize::new(0),
        end: AtomicUsize::new(0),
        name: AtomicPtr::new(std::ptr::null_mut()),
        name_len: AtomicUsize::new(0),
    };
}

/// Mappings alive at once; more are not named on a fault (readers map one
/// file at a time per input, so a few suffice).
static SLOTS: [Slot; 64] = [Slot::FREE; 64];

/// The name of the file mapped at `address`, if any: what a SIGBUS handler
/// names when a mapped input is truncated while read. Async-signal-safe.
pub fn name_at(address: usize) -> Option<&'static [u8]> {
    for slot in &SLOTS {
        let start = slot.start.load(Ordering::Acquire);
        let end = slot.end.load(Ordering::Acquire);
        if start <= address && address < end {
            let name = slot.name.load(Ordering::Acquire);
            let len = slot.name_len.load(Ordering::Acquire);
            // SAFETY: the slot points at the name of a mapping that is alive
            // (it is cleared before the name is dropped), and a fault at its
            // address happens only while it is read, so while it is alive.
            return Some(unsafe { std::slice::from_raw_parts(name, len) });
        }
    }
    None
}

fn register(map: &Mmap, name: &mut [u8]) -> Option<usize> {
    let at = SLOTS.iter().position(|slot| {
        slot.used
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
    })?;
    let slot = &SLOTS[at];
    slot.name.store(name.as_mut_ptr(), Ordering::Release);
    slot.name_len.store(name.len(), Ordering::Release);
    let start = map.as_ptr() as usize;
    slot.start.store(start, Ordering::Release);
    slot.end.store(start + map.len(), Ordering::Release);
    Some(at)
}

impl Drop for Mapped {
    fn drop(&mut self) {
        if let Some(at) = self.slot {
            let slot = &SLOTS[at];
            slot.end.store(0, Ordering::Release);
            slot.start.store(0, Ordering::Release);
            slot.used.store(false, Ordering::Release);
        }
    }
}

impl Mapped {
    /// Maps `file` (called `name` in errors), or `None` where mapping does
    /// not apply (an empty file, a pipe or other special file); then the
    /// file is read as a stream.
    pub(crate) fn open(file: &File, name: &str) -> Option<Self> {
        let metadata = file.metadata().ok()?;
        if !metadata.is_file() || metadata.len() == 0 {
            return None;
        }
        // SAFETY: the mapping is read-only and nothing in this process
        // writes to the file. Another process truncating the file while it
        // is read makes a later access fault (SIGBUS); the `rankeval`
        // command's handler (`signals.rs`) then names the file from the
        // registry and exits with code 2.
        let map = unsafe { MmapOptions::new().map(file) }.ok()?;
        let _ = map.advise(Advice::Sequential);
        let mut name: Box<[u8]> = name.as_bytes().into();
        let slot = register(&map, &mut name);
        Some(Self {
            map,
            slot,
            _name: name,
        })
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
