//! A fence around the third-party decoders (arrow-ipc, parquet): they index
//! into buffers by offsets and lengths taken from the file, and some of
//! their checks are assertions, so a damaged or hostile file can make them
//! panic. [`decoding`] turns such a panic into an error naming the file,
//! and keeps the panic message off stderr (the error says it instead).
//!
//! Only the decoders run inside the fence: a panic in rankeval's own code
//! stays a bug and is not hidden.

use std::any::Any;
use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use super::error::{ReadError, ReadErrorKind};

thread_local! {
    /// Whether this thread is inside [`decoding`] (then a panic is
    /// reported as an error, not printed).
    static DECODING: Cell<bool> = const { Cell::new(false) };
}

/// Installs, once, a panic hook that stays quiet for a thread inside
/// [`decoding`] and hands every other panic to the hook there was before.
fn install_quiet_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !DECODING.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

/// Runs `decode` (a call into a third-party decoder for the input `name`,
/// a `format` such as "Parquet"); a panic in it becomes an error naming
/// the file: the file is damaged in a way the decoder did not check.
/// Public for readers in other crates that call these decoders.
pub fn decoding<T>(
    name: &str,
    format: &str,
    decode: impl FnOnce() -> Result<T, ReadError>,
) -> Result<T, ReadError> {
    install_quiet_hook();
    let outer = DECODING.with(|d| d.replace(true));
    let result = panic::catch_unwind(AssertUnwindSafe(decode));
    DECODING.with(|d| d.set(outer));
    result.unwrap_or_else(|payload| {
        Err(ReadError::new(
            name,
            None,
            ReadErrorKind::BadField(format!(
                "cannot read as {format}: the file is damaged ({})",
                message(payload.as_ref())
            )),
        ))
    })
}

/// The text of a panic payload, shortened.
fn message(payload: &(dyn Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "the decoder stopped".to_owned());
    super::error::excerpt(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_inside_becomes_an_error_naming_the_file() {
        let result: Result<(), ReadError> =
            decoding("t.arrow", "Arrow IPC", || panic!("index out of bounds"));
        assert_eq!(
            result.unwrap_err().to_string(),
            "t.arrow: cannot read as Arrow IPC: the file is damaged (index out of bounds)"
        );
        assert!(!DECODING.with(Cell::get));
        assert_eq!(decoding("t.arrow", "Arrow IPC", || Ok(7)).unwrap(), 7);
    }
}
