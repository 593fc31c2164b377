"""Decision tables of a simulation, for notebooks and files.

``simulate(..., decisions=True)`` records, for every scheduling attempt, one row of
:meth:`SimResult.decisions() <schedframe.sim.SimResult.decisions>`: when, which pod, which
profile, the outcome, the node, the attempt number, the wait so far, and the *k* best-scoring
nodes with each Score plugin's weighted score and the total. With
``decisions=RecordDecisions(filter_verdicts=True)`` it also records one row per (attempt, node)
of :meth:`SimResult.filter_verdicts() <schedframe.sim.SimResult.filter_verdicts>`: the node's
Filter verdict (the rejecting plugin, its code and reason).

Both are :class:`DecisionTable`: flat columns of strings, integers, floats and booleans (the
top-k nodes flattened into ``top1_node``, ``top1_total``, ``top1_<Plugin>``...), so one table
round-trips through Parquet, CSV and JSON Lines alike (:meth:`DecisionTable.write`,
:meth:`DecisionTable.read`) and becomes a pandas or polars frame (``to_pandas()``,
``to_polars()``) or an Arrow table (``to_arrow()``, the ``arrow`` extra).

Where the data comes from: the scheduler's end-of-filtering probe (the cycle's own feasible
nodes and per-node rejections, :class:`~schedframe.scheduler._state.FilterPhase`) and its
``schedframe_cycle_finished`` / ``schedframe_pod_failed`` observer hooks. The per-plugin scores
are those of :meth:`Framework.run_score_plugins_detailed
<schedframe.Framework.run_score_plugins_detailed>` (what ``explain`` shows) on the cycle's
feasible nodes, computed on a clone of the cycle's :class:`~schedframe.CycleState`: the cycle
itself is unchanged. Nothing of this runs unless recording is asked for.

.. versionadded:: 0.1.0
"""

from __future__ import annotations

import contextlib
import csv
import importlib
import io
import math
import os
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, final

import attrs

from .. import _html, _jsonout
from .._textio import parse_json, read_text
from ..errors import SchedframeError
from ..framework.cycle_state import CycleState
from ..framework.status import Code, Status

if TYPE_CHECKING:
    from ..framework.clock import Clock
    from ..framework.interfaces import NodeToStatus
    from ..scheduler._state import FilterPhase
    from ..scheduler.scheduler import Scheduler

__all__ = [
    "DECISION_COLUMNS",
    "FORMATS",
    "MAX_TOP_K",
    "OUTCOMES",
    "VERDICT_COLUMNS",
    "DecisionTable",
    "DecisionsError",
    "MissingPackageError",
    "RecordDecisions",
    "check_output_path",
]

#: The file suffixes :meth:`DecisionTable.write` and :meth:`DecisionTable.read` know.
FORMATS: Final = (".parquet", ".csv", ".jsonl")
#: The largest ``top_k``.
MAX_TOP_K: Final = 50
#: The largest decisions file :meth:`DecisionTable.read` reads.
MAX_TABLE_BYTES: Final = 1024 * 1024 * 1024

#: The values of the ``outcome`` column.
OUTCOMES: Final = ("scheduled", "unschedulable", "error", "binding-failed")

#: The fixed columns of :meth:`SimResult.decisions() <schedframe.sim.SimResult.decisions>`, with
#: their types (then ``top<i>_node``, ``top<i>_total`` and ``top<i>_<Plugin>`` for i = 1..k).
DECISION_COLUMNS: Final = (
    ("time", "float64"),
    ("pod", "string"),
    ("workload", "string"),
    ("profile", "string"),
    ("attempt", "int64"),
    ("outcome", "string"),
    ("code", "string"),
    ("node", "string"),
    ("wait", "float64"),
    ("message", "string"),
    ("num_nodes", "int64"),
    ("feasible", "int64"),
)
#: The columns of :meth:`SimResult.filter_verdicts() <schedframe.sim.SimResult.filter_verdicts>`.
VERDICT_COLUMNS: Final = (
    ("time", "float64"),
    ("pod", "string"),
    ("profile", "string"),
    ("attempt", "int64"),
    ("node", "string"),
    ("stage", "string"),
    ("passed", "bool"),
    ("plugin", "string"),
    ("code", "string"),
    ("reason", "string"),
)
_TYPES: Final = frozenset({"string", "int64", "float64", "bool"})


class DecisionsError(SchedframeError, ValueError):
    """Decisions asked for that were not recorded, an unknown file suffix, a bad ``top_k``, or
    a decisions file that cannot be read or written.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.sim"


class MissingPackageError(SchedframeError, ImportError):
    """An optional package a table conversion needs (pyarrow, pandas, polars) is not installed.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.sim"


def _need(module: str, what: str, install: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingPackageError(f"{what} needs {module.split('.')[0]}, which is not installed: "
                                  f"{install}") from None


_ARROW_HINT: Final = "pip install 'schedframe[arrow]'"


def _top_k(_: object, attribute: attrs.Attribute[int], value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DecisionsError(f"RecordDecisions.top_k: must be an integer, got {type(value).__name__}")
    if not 1 <= value <= MAX_TOP_K:
        raise DecisionsError(f"RecordDecisions.top_k: must be in [1, {MAX_TOP_K}], got {value}")


@final
@attrs.frozen(kw_only=True)
class RecordDecisions:
    """What a simulation records of its decisions (``simulate(..., decisions=...)``;
    ``decisions=True`` is ``RecordDecisions()``).

    Attributes:
        top_k: the best-scoring nodes kept per attempt (1 to 50, ``MAX_TOP_K``).
        filter_verdicts: also record one row per (attempt, node) Filter verdict (large: an
            attempt adds a row per node it evaluated).
        last_failed_verdicts: record the Filter verdicts of each pod's last attempt only, and
            only when it failed (what ``--report`` needs of a pending pod: bounded by the pods
            pending at the end times the nodes, kept compact: a few bytes per node); ignored
            with ``filter_verdicts``.
        last_failed_only: keep only each pod's last attempt, and only when its scheduling cycle
            failed, in both tables (what ``--report`` records when no table is asked for):
            :meth:`SimResult.decisions() <schedframe.sim.SimResult.decisions>` then has one row
            per such pod, and the Filter verdicts of those attempts are recorded (as with
            ``last_failed_verdicts``). The scores of an attempt are then computed only when it
            failed (at the end of its cycle, on the cycle state as filtering left it), except
            for a pod of a PodGroup (scored as it is filtered: its group's cycle goes on with
            the other pods before it ends). Not with ``filter_verdicts``.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.sim"

    top_k: int = attrs.field(default=3, validator=_top_k)
    filter_verdicts: bool = False
    last_failed_verdicts: bool = False
    last_failed_only: bool = False

    def __attrs_post_init__(self) -> None:
        if self.last_failed_only and self.filter_verdicts:
            raise DecisionsError("RecordDecisions: last_failed_only keeps each pod's last failed attempt, "
                                 "filter_verdicts every attempt: give one of them")

    @property
    def keeps_last_failed_verdicts(self) -> bool:
        """Whether the Filter verdicts of each pod's last failed attempt are kept (compact)."""
        return not self.filter_verdicts and (self.last_failed_verdicts or self.last_failed_only)

    @classmethod
    def of(cls, value: RecordDecisions | bool | None) -> RecordDecisions | None:
        """*value* as given to ``simulate(decisions=...)``: ``None`` when not recording."""
        if value is None or value is False:
            return None
        if value is True:
            return cls()
        if isinstance(value, RecordDecisions):
            return value
        raise DecisionsError(f"decisions: must be True, False or a RecordDecisions, got "
                             f"{type(value).__name__}")


def _suffix(path: str | os.PathLike[str], what: str) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise DecisionsError(f"{what} {os.fspath(path)!r}: unknown file type {suffix or '(none)'!r}; "
                             f"the supported suffixes are {', '.join(FORMATS)}")
    return suffix


def check_output_path(path: str | os.PathLike[str], what: str = "decisions file") -> None:
    """Check, before a run, that a table can be written to *path*: a known suffix, pyarrow for
    Parquet, not a directory, and a directory that exists.

    Raises:
        DecisionsError: the suffix is unknown, *path* is a directory or its directory is missing.
        MissingPackageError: Parquet without pyarrow.
    """
    suffix = _suffix(path, what)
    if suffix == ".parquet":
        _need("pyarrow.parquet", f"writing {what} {os.fspath(path)!r} as Parquet", _ARROW_HINT)
    p = Path(path)
    if p.is_dir():
        raise DecisionsError(f"{what} {os.fspath(path)!r}: is a directory; give a file name")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise DecisionsError(f"{what} {os.fspath(path)!r}: no such directory {os.fspath(parent)!r}")


def _column_type(name: str) -> str:
    """The type of a column of either table, from its name."""
    for col, typ in (*DECISION_COLUMNS, *VERDICT_COLUMNS):
        if col == name:
            return typ
    if name.startswith("top") and name.endswith("_node"):
        return "string"
    if name.startswith("top"):
        return "int64"
    raise DecisionsError(f"unknown column {name!r} (not a decisions or filter-verdicts column)")


@final
class DecisionTable:
    """A table of rows (tuples) under named, typed columns: ``string``, ``int64``, ``float64``
    or ``bool``; integers and floats may be ``None`` (empty in CSV), strings are never ``None``
    (``""`` for nothing).

    ``len(table)``, iteration (each row as a dict), :meth:`column`, :meth:`to_dicts`,
    :meth:`to_arrow`, :meth:`to_pandas`, :meth:`to_polars`, :meth:`write` and
    :meth:`read`; in a notebook it shows its first rows.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.sim"
    __slots__ = ("_rows", "_source", "columns", "kind", "types")

    def __init__(self, kind: str, columns: Sequence[str], types: Sequence[str],
                 rows: Sequence[Sequence[Any]]) -> None:
        if len(columns) != len(types) or not set(types) <= _TYPES:
            raise DecisionsError(f"{kind}: columns and types do not match")
        self.kind = kind
        self.columns: tuple[str, ...] = tuple(columns)
        self.types: tuple[str, ...] = tuple(types)
        self._rows: tuple[tuple[Any, ...], ...] | None = tuple(tuple(r) for r in rows)
        #: where the rows come from when they are built on demand (see :meth:`_deferred`)
        self._source: _LastFailed | None = None

    @classmethod
    def _deferred(cls, kind: str, columns: Sequence[str], types: Sequence[str],
                  source: _LastFailed) -> DecisionTable:
        """A table whose rows *source* builds when they are first read (its length known
        without them): a run keeps its compact form, not a tuple per row."""
        table = cls(kind, columns, types, ())
        table._rows, table._source = None, source
        return table

    @property
    def rows(self) -> tuple[tuple[Any, ...], ...]:
        """The rows, as tuples in column order (built on first read for a table kept compact)."""
        rows = self._rows
        if rows is None:
            assert self._source is not None
            rows = self._rows = tuple(self._source.rows())
        return rows

    def _iter_rows(self) -> Iterator[tuple[Any, ...]]:
        """The rows, without keeping them when the table is compact (writing, iterating)."""
        if self._rows is None and self._source is not None:
            return self._source.rows()
        return iter(self.rows)

    def __len__(self) -> int:
        if self._rows is None and self._source is not None:
            return len(self._source)
        return len(self.rows)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        cols = self.columns
        for row in self._iter_rows():
            yield dict(zip(cols, row))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DecisionTable):
            return NotImplemented
        return (self.kind, self.columns, self.types, self.rows) == (
            other.kind, other.columns, other.types, other.rows)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<DecisionTable {self.kind}: {len(self):,} row(s) x {len(self.columns)} column(s)>"

    def __reduce__(self) -> tuple[Any, ...]:
        if self._rows is None and self._source is not None:  # still compact: stays so
            return (DecisionTable._deferred, (self.kind, self.columns, self.types, self._source))
        return (DecisionTable, (self.kind, self.columns, self.types, self.rows))

    def column(self, name: str) -> list[Any]:
        """The values of column *name*, in row order.

        Raises:
            KeyError: no such column.
        """
        try:
            i = self.columns.index(name)
        except ValueError:
            from ..errors import did_you_mean

            raise KeyError(f"no column {name!r}{did_you_mean(name, self.columns)}") from None
        return [row[i] for row in self.rows]

    def to_dicts(self) -> list[dict[str, Any]]:
        """Every row as a ``{column: value}`` dict."""
        return list(self)

    # -- dataframes -------------------------------------------------------------------------------
    def to_arrow(self) -> Any:
        """A ``pyarrow.Table`` with the columns' types (needs pyarrow: the ``arrow`` extra).

        Raises:
            MissingPackageError: pyarrow is not installed.
        """
        pa = _need("pyarrow", "DecisionTable.to_arrow()", _ARROW_HINT)
        arrow_type = {"string": pa.string(), "int64": pa.int64(), "float64": pa.float64(),
                      "bool": pa.bool_()}
        schema = pa.schema([pa.field(c, arrow_type[t], nullable=t != "string")
                            for c, t in zip(self.columns, self.types)])
        data = [list(col) for col in zip(*self.rows)] if self.rows else [[] for _ in self.columns]
        return pa.Table.from_arrays([pa.array(v, type=arrow_type[t]) for v, t in zip(data, self.types)],
                                    schema=schema)

    def to_pandas(self) -> Any:
        """A ``pandas.DataFrame``: integer columns as the nullable ``Int64``, booleans as
        ``boolean``, floats as ``float64`` (``NaN`` for none), strings as ``object``.

        Raises:
            MissingPackageError: pandas is not installed.
        """
        pd = _need("pandas", "DecisionTable.to_pandas()", "pip install pandas")
        dtype = {"string": object, "int64": "Int64", "float64": "float64", "bool": "boolean"}
        values = list(zip(*self.rows)) if self.rows else [() for _ in self.columns]
        return pd.DataFrame({c: pd.array(list(v), dtype=dtype[t]) if t != "string"
                             else pd.Series(list(v), dtype=object)
                             for c, t, v in zip(self.columns, self.types, values)},
                            columns=list(self.columns))

    def to_polars(self) -> Any:
        """A ``polars.DataFrame`` with the columns' types.

        Raises:
            MissingPackageError: polars is not installed.
        """
        pl = _need("polars", "DecisionTable.to_polars()", "pip install polars")
        dtype = {"string": pl.Utf8, "int64": pl.Int64, "float64": pl.Float64, "bool": pl.Boolean}
        values = list(zip(*self.rows)) if self.rows else [() for _ in self.columns]
        return pl.DataFrame([pl.Series(c, list(v), dtype=dtype[t])
                             for c, t, v in zip(self.columns, self.types, values)])

    # -- files ------------------------------------------------------------------------------------
    def write(self, path: str | os.PathLike[str]) -> None:
        """Write the table to *path*, by its suffix: ``.parquet`` (needs pyarrow), ``.csv`` (a
        header line; ``None`` as an empty field, booleans as ``true``/``false``) or ``.jsonl``
        (one JSON object per row, ``None`` as ``null``). Written beside and renamed over, so a
        failed write leaves no half file.

        Raises:
            DecisionsError: unknown suffix, or the file cannot be written (its reason).
            MissingPackageError: Parquet without pyarrow.
        """
        check_output_path(path, f"{self.kind} file")
        target = Path(path)
        suffix = target.suffix.lower()
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        try:
            if suffix == ".parquet":
                pq = _need("pyarrow.parquet", "writing Parquet", _ARROW_HINT)
                pq.write_table(self.to_arrow(), tmp)
            else:
                with tmp.open("w", encoding="utf-8", newline="") as fh:
                    (self._write_csv if suffix == ".csv" else self._write_jsonl)(fh)
            os.replace(tmp, target)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise DecisionsError(f"{target}: cannot write the {self.kind}: {exc.strerror or exc}") from None

    def _write_csv(self, fh: io.TextIOBase | Any) -> None:
        w = csv.writer(fh)
        w.writerow(self.columns)
        bools = [t == "bool" for t in self.types]
        for row in self._iter_rows():
            w.writerow(["" if v is None else ("true" if v else "false") if b else
                        repr(v) if isinstance(v, float) else v for v, b in zip(row, bools)])

    def _write_jsonl(self, fh: io.TextIOBase | Any) -> None:
        for row in self:
            fh.write(_jsonout.dumps(row, separators=(",", ":")) + "\n")

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> DecisionTable:
        """Read a table :meth:`write` wrote (``.parquet``, ``.csv`` or ``.jsonl``), with its
        column types: ``read(p) == table`` after ``table.write(p)``.

        Raises:
            DecisionsError: unknown suffix, unreadable file, or not a decisions table (naming
                the line or column).
            MissingPackageError: Parquet without pyarrow.
        """
        suffix = _suffix(path, "decisions file")
        name = os.fspath(path)
        if suffix == ".parquet":
            pq = _need("pyarrow.parquet", f"reading {name!r}", _ARROW_HINT)
            try:
                arrow = pq.read_table(name)
            except (OSError, ValueError) as exc:
                raise DecisionsError(f"{name}: not a readable Parquet file: {exc}") from None
            columns = list(arrow.column_names)
            types = [_column_type(c) for c in columns]
            rows = list(zip(*(arrow.column(c).to_pylist() for c in columns))) if arrow.num_rows else []
            return cls(_kind(columns), columns, types, rows)
        text = read_text(name, max_bytes=MAX_TABLE_BYTES, what="the decisions file", allow_empty=False,
                         error=DecisionsError)
        if suffix == ".csv":
            return _read_csv(name, text)
        return _read_jsonl(name, text)

    # -- notebooks --------------------------------------------------------------------------------
    def _repr_html_(self) -> str:
        cols = self.columns[:24]
        more = f" (first {len(cols)} of {len(self.columns)} columns)" if len(cols) < len(self.columns) else ""
        head = _html.paragraph(f"{self.kind}: {len(self):,} row(s){more}", bold=True)
        return head + _html.table(cols, (row[: len(cols)] for row in self._iter_rows()), total=len(self))


def _kind(columns: Sequence[str]) -> str:
    return "filter verdicts" if "stage" in columns else "decisions"


def _parse(value: str, typ: str, where: str) -> Any:
    if typ == "string":
        return value
    if value == "":
        return None
    try:
        if typ == "int64":
            return int(value)
        if typ == "float64":
            return float(value)
    except ValueError:
        raise DecisionsError(f"{where}: not a number: {value[:40]!r}") from None
    if value in ("true", "false"):
        return value == "true"
    raise DecisionsError(f"{where}: not true or false: {value[:40]!r}")


def _read_csv(name: str, text: str) -> DecisionTable:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        records = list(reader)
    except csv.Error as exc:
        raise DecisionsError(f"{name}:{reader.line_num}: {exc}") from None
    header, body = records[0], records[1:]
    types = [_column_type(c) for c in header]
    rows = []
    for n, record in enumerate(body, 2):
        if len(record) != len(header):
            raise DecisionsError(f"{name}:{n}: {len(record)} field(s), the header has {len(header)}")
        rows.append([_parse(v, t, f"{name}:{n}.{c}") for v, t, c in zip(record, types, header)])
    return DecisionTable(_kind(header), header, types, rows)


def _read_jsonl(name: str, text: str) -> DecisionTable:
    header: list[str] | None = None
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        rec = parse_json(line, source=f"{name}:{n}", error=DecisionsError)
        if not isinstance(rec, dict):
            raise DecisionsError(f"{name}:{n}: not a JSON object")
        if header is None:
            header = list(rec)
        elif list(rec) != header:
            raise DecisionsError(f"{name}:{n}: the columns differ from line 1's")
        rows.append(list(rec.values()))
    if header is None:
        raise DecisionsError(f"{name}: no rows")
    return DecisionTable(_kind(header), header, [_column_type(c) for c in header], rows)


# -- recording ---------------------------------------------------------------------------------------

_SCHEDULED: Final = frozenset({Code.SUCCESS, Code.WAIT})
_ERROR_CODES: Final = frozenset({Code.ERROR})


def _outcome(status: Status, node: str) -> str:
    if status.code in _SCHEDULED and node:
        return "scheduled"
    return "error" if status.code in _ERROR_CODES else "unschedulable"


def _plugin_column(i: int, plugin: str) -> str:
    return f"top{i}_plugin_{plugin}" if plugin in ("node", "total") else f"top{i}_{plugin}"


@attrs.define(slots=True)
class _Capture:
    """What the end of filtering showed of one attempt."""

    num_nodes: int
    feasible: int
    #: (node, total or None, {plugin: weighted score}) per feasible node, in visiting order
    scored: list[tuple[str, int | None, dict[str, int]]]
    verdicts: list[tuple[str, str, bool, str, str, str]]
    #: the makings of the verdicts, kept until the attempt's outcome is known (``last_failed_verdicts``)
    filtered: _Filtered | None = None
    #: the makings of the scores, kept until the attempt's outcome is known (``last_failed_only``)
    to_score: _ToScore | None = None


@attrs.frozen(slots=True)
class _ToScore:
    """What the scores of an attempt are computed from once it failed: its framework and pod,
    the feasible nodes' NodeInfos as filtering saw them (a snapshot replaces a changed NodeInfo,
    never changes it) and a clone of the cycle state as filtering left it."""

    framework: Any
    pod: Any
    feasible: tuple[str, ...]
    window: list[Any]
    state: CycleState


@attrs.frozen(slots=True)
class _Filtered:
    """What the verdicts of an attempt are made of, held until its outcome is known: the
    snapshot's nodes in order (a copy: the snapshot changes in a PodGroup cycle), the feasible
    nodes and the cycle's rejections (never changed after filtering)."""

    nodes: list[Any]
    feasible: tuple[str, ...]
    statuses: NodeToStatus
    num_nodes: int


#: A verdict: ``(stage, passed, plugin, code, reason)`` (the filter verdicts' columns after ``node``).
_Verdict = tuple[str, bool, str, str, str]
_PASSED: Final[_Verdict] = ("Filter", True, "", "Success", "")
#: The smallest signed array type that holds group indexes (and -1: a node not evaluated).
_INDEX_TYPES: Final = (("b", 127), ("h", 32767), ("i", 2**31 - 1))


@attrs.frozen(slots=True)
class _Verdicts:
    """One attempt's Filter verdicts, compact: the distinct verdicts once, and per node of the
    snapshot the index of its verdict (-1: not evaluated). A row of the table per evaluated
    node, in snapshot order, then the PreFilter row (node ``""``) when there is one."""

    time: float
    pod: str
    profile: str
    attempt: int
    names: tuple[str, ...]
    index: array[int]
    groups: tuple[_Verdict, ...]
    counts: tuple[int, ...]
    prefilter: _Verdict | None

    def __len__(self) -> int:
        return sum(self.counts) + (self.prefilter is not None)

    def rows(self) -> Iterator[tuple[Any, ...]]:
        head = (self.time, self.pod, self.profile, self.attempt)
        groups = self.groups
        for name, g in zip(self.names, self.index):
            if g >= 0:
                yield (*head, name, *groups[g])
        if self.prefilter is not None:
            yield (*head, "", *self.prefilter)

    def grouped(self, max_nodes: int) -> list[tuple[_Verdict, int, list[str]]]:
        """Each verdict with its node count and first *max_nodes* nodes (snapshot order), in
        the order of the rows; the PreFilter row last (no node)."""
        firsts: list[list[str]] = [[] for _ in self.groups]
        if max_nodes:
            left = sum(min(c, max_nodes) for c in self.counts)
            for name, g in zip(self.names, self.index):
                if g >= 0 and len(firsts[g]) < max_nodes:
                    firsts[g].append(name)
                    left -= 1
                    if not left:
                        break
        out = [(v, n, f) for v, n, f in zip(self.groups, self.counts, firsts)]
        if self.prefilter is not None:
            out.append((self.prefilter, 1, []))
        return out


def _group(groups: dict[_Verdict, int], counts: list[int], verdict: _Verdict) -> int:
    """The index of *verdict* in *groups*, added (with a count of 0) when new."""
    g = groups.get(verdict)
    if g is None:
        g = groups[verdict] = len(counts)
        counts.append(0)
    return g


def _compact(filtered: _Filtered, names: tuple[str, ...], head: tuple[float, str, str, int]) -> _Verdicts:
    """The verdicts of an attempt (as :func:`_verdicts` gives them) in compact form."""
    statuses = dict(filtered.statuses.items())
    feasible = frozenset(filtered.feasible)
    groups: dict[_Verdict, int] = {}
    counts: list[int] = []
    by_status: dict[int, int] = {}  # id(status) -> its group: nodes often share one Status
    index: list[int] = []
    add = index.append
    passed = -1
    for name in names:
        if name in feasible:
            if passed < 0:
                passed = _group(groups, counts, _PASSED)
            g = passed
        else:
            st = statuses.get(name)
            if st is None:  # not evaluated
                add(-1)
                continue
            g = by_status.get(id(st), -1)
            if g < 0:
                g = by_status[id(st)] = _group(groups, counts,
                                               ("Filter", False, st.plugin, str(st.code), st.message))
        counts[g] += 1
        add(g)
    typecode = next(t for t, top in _INDEX_TYPES if len(counts) <= top)
    absent = filtered.statuses.absent_nodes_status
    prefilter = (("PreFilter", False, absent.plugin, str(absent.code), absent.message)
                 if absent.reasons and sum(counts) < filtered.num_nodes else None)
    return _Verdicts(*head, names=names, index=array(typecode, index), groups=tuple(groups),
                     counts=tuple(counts), prefilter=prefilter)


@attrs.define(slots=True)
class _LastFailed:
    """Each pod's last failed attempt's verdicts (``RecordDecisions(last_failed_verdicts=True)``),
    by pod uid, compact: the rows of :meth:`SimResult.filter_verdicts()
    <schedframe.sim.SimResult.filter_verdicts>` are built from them when read."""

    attempts: dict[str, _Verdicts] = attrs.field(factory=dict)

    def __len__(self) -> int:
        return sum(len(v) for v in self.attempts.values())

    def rows(self) -> Iterator[tuple[Any, ...]]:
        for v in self.attempts.values():
            yield from v.rows()


class Recorder:
    """Records a run's decisions (internal; the engine installs it when asked).

    The engine's per-pod records (``attempts``, ``arrival``, ``workload``, by pod uid) are
    read after the engine's own observer has counted the attempt.
    """

    def __init__(self, options: RecordDecisions, clock: Clock) -> None:
        self.options = options
        self.clock = clock
        self.records: Mapping[str, Any] = {}
        self.plugins: dict[str, None] = {}
        self._pending: dict[str, _Capture] = {}
        self._rows: list[list[Any]] = []
        self._verdicts: list[tuple[Any, ...]] = []
        self._last: dict[str, int] = {}  # pod uid -> index of its last row
        self._counts: dict[str, int] = {}  # attempts of pods the engine has no record of
        self._last_failed = _LastFailed()  # pod uid -> its last failed attempt's verdicts, compact
        #: pod uid -> its last failed attempt's row (``last_failed_only``)
        self._failed_rows: dict[str, list[Any]] = {}
        self._names: tuple[str, ...] = ()  # the node names of the last verdicts kept (shared while equal)

    def attach(self, sched: Scheduler, cycle_finished: Callable[..., None],
               records: Mapping[str, Any]) -> None:
        """Watch *sched*: its end-of-filtering probe, and the engine's *cycle_finished* observer
        (called first, then the row is written); *records* are the engine's per-pod records."""
        self.records = records
        for fwk in sched.frameworks.values():
            self.plugins.update(dict.fromkeys(fwk.plugins_at("score")))
        sched._on_filtered = self.filtered
        self._engine_cycle_finished = cycle_finished

    # -- the scheduler's probe and hooks ----------------------------------------------------------
    def filtered(self, phase: FilterPhase) -> None:
        """The end of a cycle's filtering: keep its feasible nodes, their scores and verdicts.
        Never raises (it runs inside the cycle): a failure leaves the scores out."""
        feasible = phase.feasible
        capture = _Capture(phase.snapshot.num_nodes(), len(feasible),
                           [(n, None, {}) for n in feasible], [])
        self._pending[phase.pod.uid] = capture
        if self.options.filter_verdicts:
            with contextlib.suppress(Exception):
                capture.verdicts = _verdicts(phase)
        elif self.options.keeps_last_failed_verdicts:  # made into verdicts if the attempt fails
            snapshot = phase.snapshot
            capture.filtered = _Filtered(list(snapshot.list()), feasible, phase.diagnosis.node_to_status,
                                         snapshot.num_nodes())
        with contextlib.suppress(Exception):
            if (self.options.last_failed_only and len(feasible) >= 2 and phase.framework.has_score_plugins()
                    and phase.pod.scheduling_group is None):  # scored if the attempt fails
                get = phase.snapshot.get
                window = [ni for n in feasible if (ni := get(n)) is not None]
                capture.to_score = _ToScore(phase.framework, phase.pod, feasible, window,
                                            phase.state.clone() if phase.state is not None else CycleState())
            else:
                capture.scored = _scores(phase)

    def cycle_finished(self, pod: Any, status: Status, node_name: str, profile: str,
                       duration: float) -> None:
        """The engine's observer, then one row for the attempt."""
        uid = pod.uid
        capture = self._pending.pop(uid, None)
        scheduled = status.code in _SCHEDULED
        if capture is not None and capture.to_score is not None and not scheduled:
            with contextlib.suppress(Exception):  # before the engine's observer changes anything
                capture.scored = _scores_on(capture.to_score)
        self._engine_cycle_finished(pod, status, node_name, profile, duration)
        only = self.options.last_failed_only
        if only and scheduled:
            self._failed_rows.pop(uid, None)
            self._last_failed.attempts.pop(uid, None)
            return
        rec = self.records.get(uid)
        if rec is not None:
            attempt, arrival, workload = rec.attempts, rec.arrival, rec.workload
        else:  # pragma: no cover - every pod of a run has a record
            attempt = self._counts[uid] = self._counts.get(uid, 0) + 1
            arrival, workload = None, ""
        now = self.clock.now()
        row: list[Any] = [now, pod.key, workload, profile, attempt, _outcome(status, node_name),
                          str(status.code), node_name, None if arrival is None else now - arrival,
                          status.message if status.code not in _SCHEDULED else "",
                          None if capture is None else capture.num_nodes,
                          None if capture is None else capture.feasible]
        row.append(_top(capture.scored, node_name, self.options.top_k) if capture is not None else [])
        if only:  # in the order of the attempts kept
            self._failed_rows.pop(uid, None)
            self._failed_rows[uid] = row
        else:
            self._last[uid] = len(self._rows)
            self._rows.append(row)
        if capture is None:
            return
        if self.options.filter_verdicts:
            self._verdicts.extend((now, row[1], profile, attempt, *v) for v in capture.verdicts)
        elif capture.filtered is not None:
            kept = self._last_failed.attempts
            kept.pop(uid, None)
            if not scheduled:
                with contextlib.suppress(Exception):
                    kept[uid] = _compact(capture.filtered, self._node_names(capture.filtered.nodes),
                                         (now, row[1], profile, attempt))

    def _node_names(self, nodes: Sequence[Any]) -> tuple[str, ...]:
        """The names of *nodes*, the same tuple as the last verdicts' while they are equal."""
        names = tuple(ni.name for ni in nodes)
        if names != self._names:
            self._names = names
        return self._names

    def pod_failed(self, pod: Any, status: Status, profile: str) -> None:
        """A binding cycle failed (Permit rejected or timed out, PreBind or Bind failed): the
        attempt that chose the node is marked ``binding-failed``. (A failed scheduling cycle
        also comes here, before its row exists: its pod's last row is then not ``scheduled``.)"""
        i = self._last.get(pod.uid)
        if i is not None and self._rows[i][5] == "scheduled":
            row = self._rows[i]
            row[5], row[6], row[9] = "binding-failed", str(status.code), status.message

    # -- the tables -------------------------------------------------------------------------------
    def decisions(self) -> DecisionTable:
        k = self.options.top_k
        plugins = list(self.plugins)
        columns = [c for c, _ in DECISION_COLUMNS]
        types = [t for _, t in DECISION_COLUMNS]
        for i in range(1, k + 1):
            columns += [f"top{i}_node", f"top{i}_total", *(_plugin_column(i, p) for p in plugins)]
            types += ["string", "int64", *(["int64"] * len(plugins))]
        rows = []
        width = 2 + len(plugins)
        for row in self._failed_rows.values() if self.options.last_failed_only else self._rows:
            top: list[tuple[str, int | None, dict[str, int]]] = row[-1]
            flat: list[Any] = row[:-1]
            for node, total, scores in top:
                flat += [node, total, *(scores.get(p) for p in plugins)]
            flat += ["", *([None] * (width - 1))] * (k - len(top))
            rows.append(flat)
        return DecisionTable("decisions", columns, types, rows)

    def verdicts(self) -> DecisionTable | None:
        columns, types = [c for c, _ in VERDICT_COLUMNS], [t for _, t in VERDICT_COLUMNS]
        if self.options.filter_verdicts:
            return DecisionTable("filter verdicts", columns, types, self._verdicts)
        if self.options.keeps_last_failed_verdicts:
            return DecisionTable._deferred("filter verdicts", columns, types, self._last_failed)
        return None


def _scores(phase: FilterPhase) -> list[tuple[str, int | None, dict[str, int]]]:
    """Each feasible node's total and per-plugin weighted scores, as the cycle scores them: a
    lone feasible node is not scored (total ``None``), no Score plugin gives every node 1."""
    feasible = phase.feasible
    fwk = phase.framework
    if len(feasible) < 2:
        return [(n, None, {}) for n in feasible]
    if not fwk.has_score_plugins():
        return [(n, 1, {}) for n in feasible]
    get = phase.snapshot.get
    window = [ni for n in feasible if (ni := get(n)) is not None]
    state = phase.state.clone() if phase.state is not None else CycleState()
    return _scores_on(_ToScore(fwk, phase.pod, feasible, window, state))


def _scores_on(what: _ToScore) -> list[tuple[str, int | None, dict[str, int]]]:
    """:func:`_scores` of an attempt with two feasible nodes or more and Score plugins."""
    fwk, feasible, window, state = what.framework, what.feasible, what.window, what.state
    if not fwk.run_pre_score_plugins(state, what.pod, window).is_success():
        return [(n, None, {}) for n in feasible]
    names, _raw, normalized, weights, status = fwk.run_score_plugins_detailed(state, what.pod, window)
    if not status.is_success():
        return [(n, None, {}) for n in feasible]
    out: list[tuple[str, int | None, dict[str, int]]] = []
    for i, ni in enumerate(window):
        per = {name: normalized[j][i] * weights[j] for j, name in enumerate(names)}
        out.append((ni.name, sum(per.values()), per))
    return out


def _top(scored: list[tuple[str, int | None, dict[str, int]]], chosen: str, k: int
         ) -> list[tuple[str, int | None, dict[str, int]]]:
    """The *k* best of *scored*: highest total first; among equal totals the node chosen first
    (the tie-break's draw), then visiting order."""
    def key(i: int) -> tuple[float, bool, int]:
        total = scored[i][1]
        return (math.inf if total is None else -total, scored[i][0] != chosen, i)

    order = sorted(range(len(scored)), key=key)
    return [scored[i] for i in order[:k]]


def _verdicts(phase: FilterPhase) -> list[tuple[str, str, bool, str, str, str]]:
    """``(node, stage, passed, plugin, code, reason)`` per node the cycle evaluated, in snapshot
    order, and one ``PreFilter`` row (node ``""``) standing for every other node when PreFilter
    rejected the pod or its result left nodes out."""
    nts = phase.diagnosis.node_to_status
    statuses = dict(nts.items())
    feasible = frozenset(phase.feasible)
    out: list[tuple[str, str, bool, str, str, str]] = []
    for ni in phase.snapshot.list():
        name = ni.name
        if name in feasible:
            out.append((name, "Filter", True, "", "Success", ""))
        else:
            st = statuses.get(name)
            if st is not None:
                out.append((name, "Filter", False, st.plugin, str(st.code), st.message))
    absent = nts.absent_nodes_status
    if absent.reasons and len(out) < phase.snapshot.num_nodes():
        out.append(("", "PreFilter", False, absent.plugin, str(absent.code), absent.message))
    return out


def last_attempt_verdicts(table: DecisionTable, wanted: Mapping[str, int], max_nodes: int
                          ) -> dict[str, list[tuple[_Verdict, int, list[str]]]]:
    """For each pod of *wanted* (``{pod key: attempt}``), the verdicts *table* (a filter-verdicts
    table) has of that attempt: each distinct ``(stage, passed, plugin, code, reason)`` with its
    row count and the first *max_nodes* node names, in the order of the rows (what the HTML
    report's matrix shows). A table kept compact (``last_failed_verdicts``) is read without
    building its rows."""
    acc: dict[str, dict[_Verdict, tuple[list[int], list[str]]]] = {}

    def merge(key: str, verdict: _Verdict, count: int, nodes: Sequence[str]) -> None:
        n, firsts = acc.setdefault(key, {}).setdefault(verdict, ([0], []))
        n[0] += count
        firsts.extend(nodes[: max_nodes - len(firsts)])

    source = table._source
    if source is not None:
        for v in source.attempts.values():
            if wanted.get(v.pod) == v.attempt:
                for verdict, count, nodes in v.grouped(max_nodes):
                    merge(v.pod, verdict, count, nodes)
    else:
        at = {c: table.columns.index(c) for c, _ in VERDICT_COLUMNS}
        i_pod, i_attempt, i_node = at["pod"], at["attempt"], at["node"]
        i_verdict = [at[c] for c in ("stage", "passed", "plugin", "code", "reason")]
        for row in table.rows:
            key = row[i_pod]
            if wanted.get(key) == row[i_attempt]:
                stage, passed, plugin, code, reason = (row[i] for i in i_verdict)
                node = row[i_node]
                merge(key, (stage, bool(passed), plugin, code, reason), 1, [node] if node else [])
    out: dict[str, list[tuple[_Verdict, int, list[str]]]] = {k: [] for k in wanted}
    for key, groups in acc.items():
        out[key] = [(verdict, n[0], firsts) for verdict, (n, firsts) in groups.items()]
    return out
