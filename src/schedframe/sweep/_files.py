"""A sweep's results files: the rows streamed as runs finish (CSV or JSON Lines, resumable),
JSON or Parquet written at the end, atomically, and read back (``--resume``, ``read_table``);
and :class:`SweepError`. Imports nothing else of :mod:`schedframe.sweep`."""

from __future__ import annotations

import contextlib
import csv
import functools
import importlib
import io
import itertools
import os
import re
import traceback
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TextIO

import attrs

from .. import _jsonout
from .._textio import parse_json, read_text
from ..errors import SchedframeError, SchedframeWarning, bounded_text

if TYPE_CHECKING:
    from ._runner import SweepResult

#: Columns every row has, before the run's parameters and metrics.
FIXED_COLUMNS: Final = ("run", "task", "status", "error", "seconds")
_FORMATS: Final = ("csv", "jsonl", "json", "parquet")
#: The largest results file read back (``--resume``, :func:`read_table`).
MAX_RESULTS_BYTES: Final = 1024 * 1024 * 1024


class SweepError(SchedframeError, ValueError):
    """A sweep specification or its output file is invalid."""

    __module__ = "schedframe.sweep"


def _columns(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    seen: dict[str, None] = dict.fromkeys(FIXED_COLUMNS)
    for row in rows:
        for name in row:
            seen.setdefault(name)
    return list(seen)


#: The longest error text a row holds (``schedframe.errors.bounded_text`` cuts it).
MAX_ERROR_CHARS: Final = 2000
def _error_text(e: BaseException) -> str:
    """``Type: message (file:line)`` on one line, bounded; an exception whose ``str()`` fails
    is still described."""
    try:
        message = " ".join(str(e).split())
    except Exception as inner:  # the task's exception, whatever it does
        message = f"<str() of the exception failed: {type(inner).__name__}>"
    where = ""
    with contextlib.suppress(Exception):
        last = traceback.extract_tb(e.__traceback__, limit=None)[-1:] if e.__traceback__ else []
        where = f" ({Path(last[0].filename).name}:{last[0].lineno})" if last else ""
    kind = type(e).__name__
    if not isinstance(e, Exception):
        kind = f"the task raised {kind}"
    return bounded_text(f"{kind}: {bounded_text(message, 500)}{where}", MAX_ERROR_CHARS)


_KEY: Final = re.compile(r"[0-9a-f]{16}")

@contextlib.contextmanager
def _csv_fields_up_to_file_size() -> Iterator[None]:
    """Let the csv module read fields as long as a results file may be (its default limit,
    128 KiB, is less than a long metric or parameter); the previous limit comes back after."""
    previous = csv.field_size_limit()
    csv.field_size_limit(max(previous, MAX_RESULTS_BYTES))
    try:
        yield
    finally:
        csv.field_size_limit(previous)


def _csv_records(text: str, path: Path, reading: str) -> Iterator[tuple[int, list[str]]]:
    """(line, fields) of each CSV record; a malformed one is a :class:`SweepError` naming the file
    and the line."""
    reader = csv.reader(io.StringIO(text, newline=""))
    with _csv_fields_up_to_file_size():
        while True:
            try:
                record = next(reader)
            except StopIteration:
                return
            except csv.Error as e:
                raise SweepError(f"{path}:{reader.line_num}: {e}; {reading}") from None
            yield reader.line_num, record


def _read_rows(path: Path, fmt: str, *, allow_empty: bool = False,
               reading: str = "not a sweep's results") -> list[dict[str, Any]]:
    """The rows of the CSV or JSON Lines results file *path* (read through :mod:`schedframe._textio`)."""
    text = read_text(path, max_bytes=MAX_RESULTS_BYTES, what="the results file", allow_empty=allow_empty,
                     error=SweepError)
    if fmt == "csv":
        records = _csv_records(text, path, reading)
        header = next(records, (0, []))[1]
        return [dict(itertools.zip_longest(header, fields)) for _, fields in records]
    rows: list[dict[str, Any]] = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            row = parse_json(line, error=_line_error(path, n, reading))
            if not isinstance(row, dict):
                raise SweepError(f"{path}:{n}: not a JSON object; {reading}")
            rows.append(row)
    return rows


def _line_error(path: Path, n: int, reading: str) -> Callable[[str], SweepError]:
    return lambda message: SweepError(f"{path}:{n}: {message}; {reading}")


def _complete(row: Mapping[str, Any]) -> bool:
    """A row written whole by a sweep: its fixed columns present and sensible."""
    return (None not in row and all(row.get(c) is not None for c in FIXED_COLUMNS)
            and isinstance(row["run"], str) and _KEY.fullmatch(row["run"]) is not None
            and row["status"] in ("ok", "failed"))


@attrs.define
class _Kept:
    """What ``resume`` keeps of an output file: its CSV header, its complete successful rows (by
    run key) and where the rows it dropped were."""

    header: list[str] | None
    done: dict[str, dict[str, Any]]
    dropped: list[int]


def _read_for_resume(path: Path, fmt: str) -> _Kept:
    """Validate the rows of *path*: a row missing fields, unparseable, or cut short (the file's
    last, without its line end) is not done; a failed run is not done either."""
    reading = "cannot resume from it"
    text = read_text(path, max_bytes=MAX_RESULTS_BYTES, what="the results file", allow_empty=True,
                     error=SweepError)
    whole = text.endswith("\n")
    done: dict[str, dict[str, Any]] = {}
    dropped: list[int] = []
    header: list[str] | None = None
    if fmt == "csv":
        records = list(_csv_records(text, path, reading))
        if not records:
            return _Kept(None, {}, [])
        first, header = records[0]
        if header[: len(FIXED_COLUMNS)] != list(FIXED_COLUMNS):
            raise SweepError(f"{path}:{first}: the header is not a sweep's ({', '.join(FIXED_COLUMNS)}, "
                             f"...); {reading}")
        if len(records) == 1 and not whole:
            raise SweepError(f"{path}: the header is cut short; {reading}")
        for k, (line, fields) in enumerate(records[1:], 2):
            row = dict(itertools.zip_longest(header, fields))
            if (k == len(records) and not whole) or len(fields) != len(header) or not _complete(row):
                dropped.append(line)
            elif row["status"] == "ok":
                done[row["run"]] = row
        return _Kept(header, done, dropped)
    lines = text.split("\n")
    complete = 0
    for n, text_line in enumerate(lines, 1):
        if not text_line.strip():
            continue
        parsed: Any
        try:
            parsed = parse_json(text_line, error=SweepError)
        except SweepError:
            parsed = None
        row = parsed
        if n == len(lines) or not isinstance(row, dict) or not _complete(row):  # the last: no line end
            dropped.append(n)
            continue
        complete += 1
        if row["status"] == "ok":
            done[row["run"]] = row
    if not complete and [n for n in dropped if n != len(lines)]:
        raise SweepError(f"{path}:{dropped[0]}: not a sweep's row (a JSON object with "
                         f"{', '.join(FIXED_COLUMNS)}); {reading}")
    return _Kept(None, done, dropped)


def _format_of(path: Path) -> str:
    fmt = path.suffix.lstrip(".").lower()
    if fmt not in _FORMATS:
        raise SweepError(f"{path}: unknown output format {path.suffix!r} "
                         "(use .csv, .jsonl, .json or .parquet)")
    return fmt


def _reason(e: OSError) -> str:
    return e.strerror or type(e).__name__


def _replace_atomically(path: Path, write: Callable[[Path], None]) -> None:
    """Write *path* through a temporary file beside it, renamed over it when complete."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


class _Writer:
    """Streams rows as runs finish: to the CSV / JSON Lines output itself, or, for JSON and
    Parquet (written at the end), to a JSON Lines file beside it (``NAME.rows.jsonl``), removed
    once the output is written. It runs within the sweep's :class:`HeldInterrupts`, so a Ctrl-C
    never cuts a row in half.

    Everything that can be checked is checked before the first run: the format, the directory
    (created), that a file can be written there, pyarrow for Parquet, and on resume the rows
    already there (validated; the file is repaired, atomically, before appending).

    A CSV header is fixed when its first row is written: the fixed columns, every run's
    parameters, the metrics of the first successful run, and ``extra`` (metrics a later row has
    beyond the header, JSON-encoded). Failed runs that finish before any success wait for it.
    """

    def __init__(self, path: Path | None, resume: bool, params: Sequence[str]) -> None:
        self.path = path
        self.fmt = _format_of(path) if path is not None else ""
        self.stream: Path | None = None
        self.done: dict[str, dict[str, Any]] = {}
        self.rows = 0
        self._file: TextIO | None = None
        self._header: list[str] | None = None
        self._params = list(params)
        self._waiting: list[Mapping[str, Any]] = []
        if path is None:
            return
        if path.is_dir():
            raise SweepError(f"{path}: is a directory; give a file name for the results")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise SweepError(
                f"{path}: cannot create the output directory {path.parent}: {_reason(e)}") from None
        if self.fmt == "parquet":
            try:
                importlib.import_module("pyarrow.parquet")
            except ImportError:
                raise SweepError(f"{path}: writing Parquet needs pyarrow (pip install pyarrow)") from None
        resuming = resume and path.exists() and path.stat().st_size > 0
        if resuming and self.fmt not in ("csv", "jsonl"):
            raise SweepError(f"{path}: --resume needs a .csv or .jsonl output file")
        self.stream = path if self.fmt in ("csv", "jsonl") else path.with_name(f"{path.name}.rows.jsonl")
        try:
            if resuming:
                self._resume(path)
            self._file = self.stream.open("a" if resuming else "w", newline="")
        except OSError as e:
            raise SweepError(f"{self.stream}: cannot write the results there: {_reason(e)}") from None

    def _resume(self, path: Path) -> None:
        """Keep the complete successful rows (failed runs run again and get a new row), dropping
        the rest, and rewrite the file with them atomically."""
        kept = _read_for_resume(path, self.fmt)
        self.done = kept.done
        self._header = kept.header
        if kept.dropped:
            lines = ", ".join(str(n) for n in kept.dropped[:5]) + (", ..." if len(kept.dropped) > 5 else "")
            warnings.warn(SchedframeWarning(
                f"{path}: {len(kept.dropped)} incomplete or unreadable row(s) dropped (line(s) {lines}); "
                "their runs run again"), stacklevel=4)

        def write(tmp: Path) -> None:
            with tmp.open("w", newline="") as f:
                if self.fmt == "csv":
                    assert kept.header is not None
                    csv.writer(f).writerow(kept.header)
                    rows = csv.DictWriter(f, kept.header)
                    for row in kept.done.values():
                        rows.writerow(row)
                else:
                    for row in kept.done.values():
                        f.write(_row_json(row) + "\n")

        _replace_atomically(path, write)

    def write(self, row: Mapping[str, Any]) -> None:
        """Append *row* whole (the sweep holds Ctrl-C meanwhile)."""
        self._write(row)
        self.rows += 1

    def _write(self, row: Mapping[str, Any]) -> None:
        if self._file is None:
            return
        if self.fmt != "csv":
            self._file.write(_row_json(row) + "\n")
        elif self._header is None and row["status"] != "ok":
            self._waiting.append(row)
            return
        else:
            if self._header is None:
                self._start_csv(row)
            for waiting in self._waiting:
                self._csv_row(waiting)
            self._waiting.clear()
            self._csv_row(row)
        self._file.flush()

    def _start_csv(self, row: Mapping[str, Any] | None) -> None:
        assert self._file is not None
        columns = list(FIXED_COLUMNS) + [p for p in self._params if p not in FIXED_COLUMNS]
        columns += [k for k in (row or {}) if k not in columns]
        self._header = [*columns, "extra"]
        csv.writer(self._file).writerow(self._header)

    def _csv_row(self, row: Mapping[str, Any]) -> None:
        assert self._file is not None
        assert self._header is not None
        extra = {k: v for k, v in row.items() if k not in self._header}
        values = {k: _csv_value(v) for k, v in row.items() if k in self._header}
        if "extra" in self._header:
            values["extra"] = _row_json(extra) if extra else ""
        csv.DictWriter(self._file, self._header, extrasaction="ignore").writerow(values)

    def close(self) -> None:
        """Close a streamed file (an interrupted sweep: the rows written stay, whole, and so do
        failed rows still waiting for a CSV header)."""
        if self._file is not None and not self._file.closed:
            self._flush_waiting()
            self._file.close()

    def _flush_waiting(self) -> None:
        if self._waiting:  # only failures: a header without metrics
            if self._header is None:
                self._start_csv(None)
            for waiting in self._waiting:
                self._csv_row(waiting)
            self._waiting.clear()

    def finish(self, result: SweepResult) -> None:
        """Close the stream; write a JSON or Parquet output (atomically) from *result*. When that
        fails, the streamed rows stay and the error says where."""
        if self._file is not None:
            self._flush_waiting()
            self._file.close()
        if self.path is None or self.fmt in ("csv", "jsonl"):
            return
        rows = result.rows()
        try:
            if self.fmt == "json":
                text = _jsonout.dumps(_jsonout.finite_or_null(rows), indent=1) + "\n"
                _replace_atomically(self.path, functools.partial(_write_text, text=text))
            else:
                import pyarrow as pa
                import pyarrow.parquet as pq

                columns = _columns(rows)
                table = pa.Table.from_pylist([{c: _csv_value(r.get(c)) for c in columns} for r in rows])
                _replace_atomically(self.path, lambda tmp: pq.write_table(table, tmp))
        except Exception as e:  # whatever failed, the rows are kept: say where
            reason = _reason(e) if isinstance(e, OSError) else _error_text(e)
            raise SweepError(f"{self.path}: writing the results failed: {reason}; the {self.rows} "
                             f"row(s) of this sweep are kept in {self.stream} (JSON Lines)") from None
        if self.stream is not None:
            with contextlib.suppress(OSError):
                self.stream.unlink()


def _write_text(path: Path, text: str) -> None:
    path.write_text(text)


def _csv_value(value: Any) -> Any:
    if isinstance(value, (list, dict)):
        return _jsonout.dumps(_jsonout.finite_or_null(value), separators=(",", ":"))
    return value


def _row_json(row: Mapping[str, Any]) -> str:
    """A row as strict JSON: a measure's NaN or infinity (a mean of nothing) is ``null``."""
    return _jsonout.dumps(_jsonout.finite_or_null(row))
