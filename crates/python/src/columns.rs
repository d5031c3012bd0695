//! Id columns handed over from Python without a Python object per row where
//! the data allow it: integer ids as a NumPy `int64` array, string ids as
//! the offsets and bytes of an Arrow string array (views on pyarrow's
//! buffers, so nothing is copied), and, as a fallback, a NumPy object array
//! of `str` or `int`, whose ids are copied into one byte arena once.

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyString, PyTuple};
use rankeval_core::Id;

/// One id column as Python handed it over, borrowed for the call.
pub enum IdColumn<'py> {
    /// Integer ids, written in decimal (so `42` and `"42"` are one id).
    Ints(PyReadonlyArray1<'py, i64>),
    /// An Arrow `string` array: `offsets` (one more than rows) into `data`.
    Utf8 {
        /// 32-bit offsets, sliced to the array's rows.
        offsets: PyReadonlyArray1<'py, i32>,
        /// The character data.
        data: PyReadonlyArray1<'py, u8>,
    },
    /// An Arrow `large_string` array: 64-bit offsets.
    LargeUtf8 {
        /// 64-bit offsets, sliced to the array's rows.
        offsets: PyReadonlyArray1<'py, i64>,
        /// The character data.
        data: PyReadonlyArray1<'py, u8>,
    },
    /// Ids copied out of Python objects (`str` or `int`).
    Copied {
        /// `ends[i]` is where id `i` ends in `data` (it starts where `i - 1` ends).
        ends: Vec<usize>,
        /// The ids' bytes, one after the other.
        data: Vec<u8>,
    },
}

/// A column's ids as plain slices: `Send` and `Sync`, so that a table can
/// be read in parallel with the GIL released.
#[derive(Clone, Copy)]
pub enum Ids<'a> {
    /// Integer ids.
    Ints(&'a [i64]),
    /// Arrow string offsets and data.
    Utf8(&'a [i32], &'a [u8]),
    /// Arrow large string offsets and data.
    LargeUtf8(&'a [i64], &'a [u8]),
    /// Ends and data of copied ids.
    Copied(&'a [usize], &'a [u8]),
}

impl<'py> IdColumn<'py> {
    /// Reads the column named `column` from what Python handed over: an
    /// `int64` array, a tuple `("utf8" | "large_utf8", offsets, data)`, or
    /// an object array of `str` / `int`.
    pub fn extract(value: &Bound<'py, PyAny>, column: &str) -> PyResult<Self> {
        if let Ok(tuple) = value.cast::<PyTuple>() {
            let (kind, offsets, data): (String, Bound<'py, PyAny>, Bound<'py, PyAny>) =
                tuple.extract()?;
            let data: PyReadonlyArray1<'py, u8> = data.extract()?;
            let parsed = match kind.as_str() {
                "utf8" => IdColumn::Utf8 {
                    offsets: offsets.extract()?,
                    data,
                },
                "large_utf8" => IdColumn::LargeUtf8 {
                    offsets: offsets.extract()?,
                    data,
                },
                other => {
                    return Err(PyValueError::new_err(format!(
                        "column `{column}`: unknown string layout `{other}`"
                    )));
                }
            };
            parsed.ids()?.check(column)?;
            return Ok(parsed);
        }
        if let Ok(ints) = value.extract::<PyReadonlyArray1<'py, i64>>() {
            return Ok(IdColumn::Ints(ints));
        }
        if let Ok(objects) = value.cast::<PyArray1<Py<PyAny>>>() {
            return copy_objects(&objects.readonly(), column);
        }
        Err(PyTypeError::new_err(format!(
            "column `{column}`: expected strings or integers, found {}",
            value.get_type().name()?
        )))
    }

    /// The ids as slices.
    pub fn ids(&self) -> PyResult<Ids<'_>> {
        let contiguous = |e: numpy::AsSliceError| PyValueError::new_err(e.to_string());
        Ok(match self {
            IdColumn::Ints(a) => Ids::Ints(a.as_slice().map_err(contiguous)?),
            IdColumn::Utf8 { offsets, data } => Ids::Utf8(
                offsets.as_slice().map_err(contiguous)?,
                data.as_slice().map_err(contiguous)?,
            ),
            IdColumn::LargeUtf8 { offsets, data } => Ids::LargeUtf8(
                offsets.as_slice().map_err(contiguous)?,
                data.as_slice().map_err(contiguous)?,
            ),
            IdColumn::Copied { ends, data } => Ids::Copied(ends, data),
        })
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        match self {
            IdColumn::Ints(a) => a.len(),
            IdColumn::Utf8 { offsets, .. } => offsets.len().saturating_sub(1),
            IdColumn::LargeUtf8 { offsets, .. } => offsets.len().saturating_sub(1),
            IdColumn::Copied { ends, .. } => ends.len(),
        }
    }
}

impl Ids<'_> {
    /// Calls `f` with the bytes of the id in `row` (`row < len`).
    #[inline]
    pub fn with<R>(self, row: usize, f: impl FnOnce(&[u8]) -> R) -> R {
        match self {
            Ids::Ints(ids) => ids[row].with_bytes(f),
            Ids::Utf8(offsets, data) => f(&data[offsets[row] as usize..offsets[row + 1] as usize]),
            Ids::LargeUtf8(offsets, data) => {
                f(&data[offsets[row] as usize..offsets[row + 1] as usize])
            }
            Ids::Copied(ends, data) => {
                let start = if row == 0 { 0 } else { ends[row - 1] };
                f(&data[start..ends[row]])
            }
        }
    }

    /// Checks that Arrow offsets ascend and stay inside the data, so that
    /// [`with`](Self::with) cannot index out of bounds.
    fn check(self, column: &str) -> PyResult<()> {
        fn ascending<T: Copy + TryInto<usize>>(offsets: &[T], len: usize) -> bool {
            let mut previous = 0usize;
            offsets
                .iter()
                .enumerate()
                .all(|(i, &o)| match o.try_into() {
                    Ok(o) if (i == 0 || o >= previous) && o <= len => {
                        previous = o;
                        true
                    }
                    _ => false,
                })
        }
        let valid = match self {
            Ids::Utf8(offsets, data) => !offsets.is_empty() && ascending(offsets, data.len()),
            Ids::LargeUtf8(offsets, data) => !offsets.is_empty() && ascending(offsets, data.len()),
            _ => true,
        };
        if valid {
            Ok(())
        } else {
            Err(PyValueError::new_err(format!(
                "column `{column}`: the Arrow string offsets are not valid"
            )))
        }
    }
}

/// Copies the ids of an object array (`str` or `int`) into one arena.
fn copy_objects<'py>(
    objects: &PyReadonlyArray1<'py, Py<PyAny>>,
    column: &str,
) -> PyResult<IdColumn<'py>> {
    let py = objects.py();
    let objects = objects
        .as_slice()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let mut ends = Vec::with_capacity(objects.len());
    let mut data = Vec::with_capacity(objects.len() * 8);
    for (row, object) in objects.iter().enumerate() {
        let object = object.bind(py);
        if let Ok(text) = object.cast::<PyString>() {
            data.extend_from_slice(text.to_str()?.as_bytes());
        } else if object.is_instance_of::<PyInt>() {
            let value: i64 = object.extract()?;
            value.with_bytes(|bytes| data.extend_from_slice(bytes));
        } else {
            return Err(PyTypeError::new_err(format!(
                "column `{column}`, row {row}: expected a str or int id, found {} `{}`",
                object.get_type().name()?,
                object.repr()?
            )));
        }
        ends.push(data.len());
    }
    Ok(IdColumn::Copied { ends, data })
}
