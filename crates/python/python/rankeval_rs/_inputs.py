"""Qrels and runs from what users have: file paths, dicts of dicts, pandas
DataFrames and anything that speaks the Arrow PyCapsule interface (pyarrow,
polars, DuckDB, ...). Only conversion happens here: Arrow data go to the
native module through the C data interface (no copy; read by the readers'
Arrow reader, as Parquet files are), pandas columns through pyarrow, or,
without pyarrow, as NumPy arrays."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from . import _native
from ._native import InputError, Qrels, Run

# numpy is imported where it is used, not with the package: `import
# rankeval_rs` stays quick (scripts/release/test-wheel.sh measures it), and pandas
# and pyarrow, the only callers here, have imported it already.
if TYPE_CHECKING:
    import numpy as np


def input_error(file: str | None, line: int | None, message: str) -> InputError:
    """An InputError with the attributes the native ones carry."""
    if file is not None and line is not None:
        text = f"{file}:{line}: {message}"
    elif file is not None:
        text = f"{file}: {message}"
    else:
        text = message
    error = InputError(text)
    error.file, error.line, error.message = file, line, message
    return error


def is_path(value: Any) -> bool:
    return isinstance(value, (str, os.PathLike))


def _is_pandas(value: Any) -> bool:
    return type(value).__module__.split(".")[0] == "pandas" and hasattr(value, "columns")


def _is_arrow(value: Any) -> bool:
    """Whether `value` exports Arrow data through the PyCapsule interface."""
    return hasattr(value, "__arrow_c_stream__") or hasattr(value, "__arrow_c_array__")


def _arrow_data(value: Any) -> Any:
    """What the native module reads Arrow data from: a polars DataFrame as
    its columns, `[(name, series), ...]`, each exporting its own chunks
    where they are; anything else as it is. (polars' `DataFrame.__arrow_c_stream__`
    first makes every column one chunk, in the user's frame: a copy of the
    frame, where polars read it in many chunks, as `read_csv` does.)"""
    if type(value).__module__.split(".")[0] != "polars" or not hasattr(value, "get_columns"):
        return value
    columns = value.get_columns()
    if not all(hasattr(column, "__arrow_c_stream__") for column in columns):
        return value  # a polars without Series.__arrow_c_stream__
    return [(column.name, column) for column in columns]


#: The other names the table reader finds a column under when its
#: option is left at the default (as for Parquet files).
_ALTERNATIVES = {"user": ("query",), "item": ("items", "doc"), "score": ("scores",),
                 "rank": ("ranks",), "grade": ("grades",)}


def _find(columns: list[str], name: str, default: str) -> str | None:
    """The column `name`, or where it is left at `default`, one of the
    default's other names, as the table reader finds them."""
    if name in columns:
        return name
    if name == default:
        return next((c for c in _ALTERNATIVES[default] if c in columns), None)
    return None


def _pandas_arrow(frame: Any, name: str, wanted: Sequence[tuple[str, str, str | None]],
                  others: bool = False) -> Any:
    """The columns of a pandas DataFrame the reader needs, as a pyarrow
    Table (Arrow-backed columns are shared, not copied; NaN scores stay NaN
    so that the reader names them), or None when pyarrow is not there or a
    column does not convert (mixed `str` and `int` objects, for instance).

    `wanted` holds (option value, default, what it is for) per column, the
    last None for an optional column. With `others`, the frame's other
    columns come along by name, as null columns (a run's reader names them
    when a document repeats)."""
    import numpy as np

    pa = _pyarrow()
    if pa is None:
        return None
    columns = [str(c) for c in frame.columns]
    names, arrays = [], []
    for option, default, what in wanted:
        found = _find(columns, option, default)
        if found is None:
            if what is None:
                continue
            raise input_error(
                name, None,
                f"no column `{option}` ({what}); its columns: " + ", ".join(f"`{c}`" for c in columns),
            )
        series = frame[frame.columns[columns.index(found)]]
        try:
            if isinstance(series.dtype, np.dtype) and series.dtype.kind in "iuf":
                array = pa.array(series.to_numpy(), from_pandas=False)
            else:
                array = pa.array(series, from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, TypeError, ValueError):
            return None
        names.append(found)
        arrays.append(array)
    # The other columns by name only (null columns hold no buffers): a
    # repeated document then names them, as one of them (a `model`) may tell
    # runs apart, rather than advising to keep the first occurrence.
    rest = [c for c in columns if c not in names] if others else []
    arrays.extend(pa.nulls(len(frame)) for _ in rest)
    return pa.Table.from_arrays(arrays, names=names + rest)


def _pyarrow():
    try:
        import pyarrow
    except ImportError:
        return None
    return pyarrow


class _Table:
    """Named columns of a pandas DataFrame, read without pyarrow (or where
    pyarrow cannot convert a column): NumPy arrays, Python objects copied
    once."""

    def __init__(self, data: Any, name: str):
        self.name = name
        self.pandas = data
        self.columns = [str(c) for c in data.columns]

    def has(self, column: str) -> bool:
        return column in self.columns

    def require(self, column: str, what: str) -> None:
        if not self.has(column):
            raise input_error(
                self.name,
                None,
                f"no column `{column}` ({what}); its columns: "
                + ", ".join(f"`{c}`" for c in self.columns),
            )

    def ids(self, column: str):
        """An id column: int64 array, Arrow string offsets and data, or objects."""
        import numpy as np

        series = self.pandas[column]
        kind = series.dtype.kind
        if kind in "iu" and not series.hasnans:
            return series.to_numpy(dtype=np.int64)
        if kind == "f":
            raise input_error(self.name, None, f"column `{column}` holds floats; ids must be strings or integers")
        pa = _pyarrow()
        if pa is not None:
            try:
                array = pa.array(series, from_pandas=True)
            except (pa.ArrowInvalid, pa.ArrowTypeError):
                array = None
            if array is not None:
                return _arrow_ids(array, self.name, column)
        values = series.to_numpy(dtype=object)
        _no_missing(series.isna().to_numpy(), self.name, column)
        return values

    def floats(self, column: str) -> np.ndarray:
        import numpy as np

        series = self.pandas[column]
        if series.dtype.kind not in "iuf":
            raise input_error(self.name, None, f"column `{column}` must hold numbers, found {series.dtype}")
        return np.ascontiguousarray(series.to_numpy(dtype=np.float64, na_value=np.nan))

    def grades(self, column: str) -> np.ndarray:
        """Grades as float64 (integers or fractions, as the CLI reads them)."""
        import numpy as np

        series = self.pandas[column]
        _no_missing(series.isna().to_numpy(), self.name, column)
        values = series.to_numpy()
        if values.dtype.kind not in "iuf":
            raise input_error(self.name, None, f"column `{column}` must hold numeric grades, found {values.dtype}")
        return np.ascontiguousarray(values, dtype=np.float64)


def _no_missing(missing: np.ndarray, name: str, column: str) -> None:
    import numpy as np

    if missing.any():
        row = int(np.argmax(missing))
        raise input_error(name, row + 1, f"column `{column}` has a missing value")


def _no_missing_arrow(array, name: str, column: str) -> None:
    if array.null_count:
        pa = _pyarrow()
        missing = array.is_null()
        if hasattr(missing, "combine_chunks"):
            missing = missing.combine_chunks()
        row = int(pa.compute.index(missing, True).as_py())
        raise input_error(name, row + 1, f"column `{column}` has a missing value")


def _arrow_ids(array, name: str, column: str):
    """Views on an Arrow string array's buffers (no copy), or int64 ids."""
    import numpy as np

    pa = _pyarrow()
    import pyarrow.compute  # noqa: F401  (for _no_missing_arrow)

    if isinstance(array, pa.ChunkedArray):
        array = array.chunk(0) if array.num_chunks == 1 else array.combine_chunks()
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    _no_missing_arrow(array, name, column)
    kind = array.type
    if pa.types.is_integer(kind):
        return np.ascontiguousarray(array.to_numpy(), dtype=np.int64)
    if pa.types.is_string_view(kind) or pa.types.is_binary_view(kind):
        array = array.cast(pa.large_string())
    elif pa.types.is_binary(kind):
        array = array.cast(pa.string())
    elif pa.types.is_large_binary(kind):
        array = array.cast(pa.large_string())
    kind = array.type
    offsets_type: type[np.signedinteger[Any]]
    if pa.types.is_string(kind):
        layout, offsets_type = "utf8", np.int32
    elif pa.types.is_large_string(kind):
        layout, offsets_type = "large_utf8", np.int64
    else:
        raise input_error(name, None, f"column `{column}` holds {kind}; ids must be strings or integers")
    _, offsets, data = array.buffers()
    offsets = np.frombuffer(offsets, dtype=offsets_type)[array.offset : array.offset + len(array) + 1]
    data = np.frombuffer(data, dtype=np.uint8) if data is not None else np.empty(0, dtype=np.uint8)
    return (layout, offsets, data)


def to_qrels(data: Any, *, query: str, doc: str, grade: str, format: str | None,
             delimiter: str | None, name: str = "qrels", fetch: bool = False) -> Qrels:
    """Qrels from a path (``"irds:<id>"``: ir_datasets' cache, filled by
    ir_datasets when missing with ``fetch=True``), a dict of dicts, a
    DataFrame or an Arrow table."""
    if isinstance(data, Qrels):
        return data
    if is_path(data):
        return _native.qrels_from_file(
            os.fspath(data), format, query, doc, "score", "rank", grade, delimiter, fetch
        )
    if isinstance(data, dict):
        return _native.qrels_from_dict(data, name)
    if _is_pandas(data):
        columns = [str(c) for c in data.columns]
        # A grade column the user names must be there (as for files); one
        # left at its default may be absent: grade 1, with the warning.
        named_grade = grade != "grade"
        ungraded = None if named_grade or _find(columns, grade, "grade") is not None else columns
        wanted = [(query, "user", "query ids; set query="), (doc, "item", "document ids; set doc="),
                  (grade, "grade", "grades; set grade=" if named_grade else None)]
        arrow = _pandas_arrow(data, f"{name} table", wanted)
        if arrow is not None:
            return _native.qrels_from_arrow(arrow, f"{name} table", query, doc, grade, ungraded)
    elif _is_arrow(data):
        return _native.qrels_from_arrow(_arrow_data(data), f"{name} table", query, doc, grade)
    if _is_pandas(data):
        table = _Table(data, f"{name} table")
        table.require(query, "query ids; set query=")
        table.require(doc, "document ids; set doc=")
        if named_grade:
            table.require(grade, "grades; set grade=")
        grades = table.grades(grade) if table.has(grade) else None
        return _native.qrels_from_columns(
            table.name, query, table.ids(query), doc, table.ids(doc), grade, grades, table.columns
        )
    raise TypeError(
        f"{name}: expected a file path, a dict {{query: {{doc: grade}}}}, a pandas DataFrame "
        f"or an Arrow table, found {type(data).__name__}"
    )


def to_run(data: Any, *, query: str, doc: str, score: str, rank: str, format: str | None,
           delimiter: str | None, duplicates: str, name: str = "run", ties: str = "docid",
           stream: bool = False) -> Run:
    """A run from a path, a dict of dicts, a DataFrame or an Arrow table;
    tied scores ordered as ``ties`` says (by document id, or as given).

    With `stream`, a DataFrame or Arrow table is kept (as Arrow, not
    copied) and read when the run is evaluated, query by query where it is
    grouped by query, without building the whole run first: what
    `evaluate` does with a table it is given. Else the run is built now, to
    be evaluated many times."""
    if isinstance(data, Run):
        return data
    if is_path(data):
        return _native.run_from_file(
            os.fspath(data), format, query, doc, score, rank, "grade", delimiter, duplicates, ties
        )
    if isinstance(data, dict):
        return _native.run_from_dict(data, name, duplicates, ties)
    if _is_pandas(data):
        columns = [str(c) for c in data.columns]
        # A score column the user names and the frame lacks is an error, not
        # replaced by ranks the user did not name (as for files).
        by_rank = (not _score_named_alone(score, rank) and _find(columns, score, "score") is None
                   and _find(columns, rank, "rank") is not None)
        ordered_by = (rank, "rank") if by_rank else (score, "score")
        wanted = [(query, "user", "query ids; set query="), (doc, "item", "document ids; set doc="),
                  (*ordered_by, f"or `{rank}`: a run needs scores or ranks; set score= or rank=")]
        arrow = _pandas_arrow(data, f"{name} table", wanted, others=True)
        if arrow is not None:
            return _native.run_from_arrow(arrow, f"{name} table", query, doc, score, rank, duplicates, ties,
                                          stream)
    elif _is_arrow(data):
        return _native.run_from_arrow(_arrow_data(data), f"{name} table", query, doc, score, rank, duplicates,
                                      ties, stream)
    if _is_pandas(data):
        table = _Table(data, f"{name} table")
        table.require(query, "query ids; set query=")
        table.require(doc, "document ids; set doc=")
        if table.has(score):
            order, by_rank, order_name = table.floats(score), False, score
        elif table.has(rank) and not _score_named_alone(score, rank):
            order, by_rank, order_name = table.floats(rank), True, rank
        else:
            table.require(score, f"or `{rank}`: a run needs scores or ranks; set score= or rank=")
        return _native.run_from_columns(
            table.name, query, table.ids(query), doc, table.ids(doc), order_name, order,
            by_rank, duplicates, ties,
        )
    raise TypeError(
        f"{name}: expected a file path, a dict {{query: {{doc: score}}}}, a pandas DataFrame "
        f"or an Arrow table, found {type(data).__name__}"
    )


def _score_named_alone(score: str, rank: str) -> bool:
    """Whether the user named a score column but not a rank column: then
    only the score column orders the run."""
    return score != "score" and rank == "rank"


def run_names(paths: list[Any]) -> list[str]:
    """Names of runs given as a list: file paths by the one naming rule of
    every command (`rankeval::naming`: one extension and a `.gz` go; the
    whole path where two names clash), `run1`, `run2`... for anything else."""
    given = [os.fspath(p) if is_path(p) else f"run{i + 1}" for i, p in enumerate(paths)]
    return _native.run_names(given)
