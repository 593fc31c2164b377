"""Sweeps: many runs (simulations, GPU-sharing experiments, any importable function) in parallel on
any :class:`concurrent.futures.Executor`, a local process pool by default or a Dask cluster.

A run is a *task* (``"simulate"``, ``"gpushare"``, or ``"package.module:function"``) and its
parameters; every run is a pure function of them, so the table a sweep produces does not depend on
the executor, the number of workers or the order in which runs finish. Rows stream to the output
file as runs finish; a run that raises is a row with its error and the others go on; ``resume``
skips the runs already in the output file.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import csv
import functools
import hashlib
import importlib
import io
import itertools
import json
import math
import os
import signal
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, TextIO, final

import attrs

from .._textio import parse_data, parse_json, read_text, shown_path
from ..errors import SchedframeError, bounded_repr

__all__ = [
    "BUILTIN_TASKS",
    "Run",
    "RunOutcome",
    "SweepError",
    "SweepResult",
    "SweepSpec",
    "dask_executor",
    "grid",
    "load_sweep_spec",
    "read_table",
    "simulate_task",
    "sweep",
]

#: The tasks a spec may name by a short name; any other task is ``"package.module:function"``.
BUILTIN_TASKS: Final[Mapping[str, str]] = {
    "simulate": "schedframe.sim.sweep:simulate_task",
    "gpushare": "schedframe.gpushare.experiment:sweep_task",
}
#: Columns every row has, before the run's parameters and metrics.
FIXED_COLUMNS: Final = ("run", "task", "status", "error", "seconds")
_FORMATS: Final = ("csv", "jsonl", "json", "parquet")
#: The largest sweep spec read (a grid and its fixed parameters; explicit run lists stay small).
MAX_SPEC_BYTES: Final = 16 * 1024 * 1024
#: The largest results file read back (``--resume``, :func:`read_table`).
MAX_RESULTS_BYTES: Final = 1024 * 1024 * 1024


class SweepError(SchedframeError, ValueError):
    """A sweep specification or its output file is invalid."""

    __module__ = "schedframe.sim"


def _plain(value: Any, where: str) -> Any:
    """A JSON-compatible copy of a parameter value (runs are keyed and stored by it)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise SweepError(f"{where}: {value!r} is not a finite number")
        return value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v, f"{where}[{i}]") for i, v in enumerate(value)]
    raise SweepError(f"{where}: {bounded_repr(value)} is not a plain value "
                     "(str, number, bool, list, mapping)")


@final
@attrs.frozen
class Run:
    """One run of a sweep: a task and its parameters (plain values only)."""

    __module__ = "schedframe.sim"

    task: str
    params: Mapping[str, Any] = attrs.field(factory=dict)

    @classmethod
    def of(cls, task: str, params: Mapping[str, Any]) -> Run:
        """A run with *params* checked and copied to plain values."""
        if not isinstance(task, str) or not task:
            raise SweepError(f"task: expected a task name or 'module:function', got {bounded_repr(task)}")
        if not isinstance(params, Mapping):
            raise SweepError(f"params: expected a mapping, got {type(params).__name__}")
        return cls(task, _plain(dict(params), "params"))

    @property
    def key(self) -> str:
        """A stable identity: the same task and parameters give the same key in every process."""
        text = json.dumps([self.task, self.params], sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]


@final
@attrs.frozen
class RunOutcome:
    """What one run gave: its metrics, or the error it raised."""

    __module__ = "schedframe.sim"

    run: Run
    index: int
    metrics: Mapping[str, Any]
    error: str | None
    seconds: float

    @property
    def ok(self) -> bool:
        return self.error is None

    def row(self) -> dict[str, Any]:
        """The table row: fixed columns, then the parameters, then the metrics."""
        out: dict[str, Any] = {
            "run": self.run.key,
            "task": self.run.task,
            "status": "ok" if self.error is None else "failed",
            "error": self.error or "",
            "seconds": round(self.seconds, 3),
        }
        for name, value in self.run.params.items():
            out[name] = value
        for name, value in self.metrics.items():
            out[name if name not in out else f"metric.{name}"] = value
        return out


@final
@attrs.frozen
class SweepResult:
    """All outcomes in the order of the runs (not the order they finished)."""

    __module__ = "schedframe.sim"

    outcomes: tuple[RunOutcome, ...]
    skipped: int = 0

    @property
    def failed(self) -> tuple[RunOutcome, ...]:
        return tuple(o for o in self.outcomes if not o.ok)

    def rows(self) -> list[dict[str, Any]]:
        return [o.row() for o in self.outcomes]

    def columns(self) -> list[str]:
        return _columns(self.rows())


def _columns(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    seen: dict[str, None] = dict.fromkeys(FIXED_COLUMNS)
    for row in rows:
        for name in row:
            seen.setdefault(name)
    return list(seen)


def grid(**axes: Sequence[Any]) -> list[dict[str, Any]]:
    """The cartesian product of the axes, in a fixed order (the last axis varies fastest).

    ``grid(config=["a", "b"], seed=[1, 2])`` gives four parameter mappings.
    """
    for name, values in axes.items():
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
            raise SweepError(f"grid.{name}: expected a list of values, got {bounded_repr(values)}")
        if not values:
            raise SweepError(f"grid.{name}: an empty list makes an empty sweep")
    names = list(axes)
    return [dict(zip(names, combo)) for combo in itertools.product(*(axes[n] for n in names))]


@final
@attrs.frozen
class SweepSpec:
    """A sweep as a file describes it: a task, a grid and/or an explicit list of runs."""

    __module__ = "schedframe.sim"

    runs: tuple[Run, ...]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, origin: str = "sweep spec") -> SweepSpec:
        """Read ``{task: ..., grid: {axis: [values]}, fixed: {...}, runs: [{...}]}``."""
        if not isinstance(data, Mapping):
            raise SweepError(f"{origin}: expected a mapping, got {type(data).__name__}")
        unknown = sorted(set(data) - {"task", "grid", "fixed", "runs"})
        if unknown:
            raise SweepError(f"{origin}: unknown field(s) {', '.join(unknown)} "
                             "(expected task, grid, fixed, runs)")
        task = data.get("task", "simulate")
        fixed = data.get("fixed", {}) or {}
        if not isinstance(fixed, Mapping):
            raise SweepError(f"{origin}: fixed: expected a mapping of parameters")
        params: list[dict[str, Any]] = []
        if data.get("grid") is not None:
            axes = data["grid"]
            if not isinstance(axes, Mapping):
                raise SweepError(f"{origin}: grid: expected a mapping of axis -> list of values")
            try:
                params += grid(**{str(k): v for k, v in axes.items()})
            except SweepError as e:
                raise SweepError(f"{origin}: {e}") from None
        for i, extra in enumerate(data.get("runs") or ()):
            if not isinstance(extra, Mapping):
                raise SweepError(f"{origin}: runs[{i}]: expected a mapping of parameters")
            params.append(dict(extra))
        if not params:
            raise SweepError(f"{origin}: no runs (give a grid or a list of runs)")
        runs = []
        for i, p in enumerate(params):
            try:
                runs.append(Run.of(str(task), {**fixed, **p}))
            except SweepError as e:
                raise SweepError(f"{origin}: run {i}: {e}") from None
        return cls(tuple(runs))


def load_sweep_spec(path: str | os.PathLike[str]) -> SweepSpec:
    """Read a sweep spec from a YAML or JSON file (YAML needs PyYAML)."""
    p = Path(path)
    text = read_text(p, max_bytes=MAX_SPEC_BYTES, what="the sweep spec", error=SweepError)
    data = parse_data(text, source=shown_path(p), error=SweepError)
    return SweepSpec.from_dict(data, origin=str(p))


# --- the built-in tasks ------------------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def _scenario_from_file(path: str, mtime_ns: int) -> Any:
    """A scenario file read once per worker process (and again only when the file changes)."""
    from .scenario import Scenario

    return Scenario.from_file(path)


def _scenario_param(scenario: str | None) -> Any:
    from .builtin import BUILTIN_SCENARIOS

    if scenario is None or scenario in BUILTIN_SCENARIOS:
        return scenario
    p = Path(scenario)
    try:
        return _scenario_from_file(str(p.resolve()), p.stat().st_mtime_ns)
    except OSError as e:
        raise SweepError(f"scenario {scenario!r}: {e.strerror or e}") from None


def _flatten(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, Mapping):
        for k, v in value.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    else:
        out[prefix] = value


def simulate_task(scenario: str | None = None, config: str | None = None, seed: int = 0,
                  until: float | None = None) -> dict[str, Any]:
    """The ``simulate`` task: one :func:`~schedframe.sim.simulate` run, its metrics flattened
    (``utilisation_mean.cpu``) beside the scenario's and configuration's names. Wall-clock
    measurements are left out (the row's ``seconds`` has the run's time), so rows are equal
    whichever worker ran them."""
    from .run import simulate

    result = simulate(_scenario_param(scenario), config, seed=seed, until=until)
    out: dict[str, Any] = {"scenario_name": result.scenario, "config_name": result.config}
    _flatten("", result.metrics.to_dict(), out)
    return out


# --- running ------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _task_function(task: str) -> Callable[..., Any]:
    target = BUILTIN_TASKS.get(task, task)
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise SweepError(f"task {task!r}: expected one of {sorted(BUILTIN_TASKS)} "
                         "or 'package.module:function'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise SweepError(f"task {task!r}: cannot import {module_name}: {e}") from None
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise SweepError(f"task {task!r}: {module_name} has no function {attr}")
    return fn  # type: ignore[no-any-return]


def _metrics(value: Any) -> dict[str, Any]:
    if isinstance(value, Mapping):
        return {str(k): _plain(v, f"result.{k}") for k, v in value.items()}
    if attrs.has(type(value)):
        return _metrics(attrs.asdict(value))
    return {"value": _plain(value, "result")}


def execute(run: Run, index: int = 0) -> RunOutcome:
    """Run one task in this process; an exception becomes the outcome's error (never raised).

    This is what workers call: it is importable, and its argument and result pickle.
    """
    start = time.perf_counter()
    try:
        fn = _task_function(run.task)
        metrics = _metrics(fn(**run.params))
        error = None
    except Exception as e:
        metrics = {}
        last = traceback.extract_tb(e.__traceback__)[-1:] if e.__traceback__ else []
        where = f" ({Path(last[0].filename).name}:{last[0].lineno})" if last else ""
        error = f"{type(e).__name__}: {' '.join(str(e).split())[:500]}{where}"
    return RunOutcome(run, index, metrics, error, time.perf_counter() - start)


def dask_executor(address: str = "local", *, workers: int | None = None) -> concurrent.futures.Executor:
    """A :class:`concurrent.futures.Executor` on a Dask cluster: ``"local"`` starts a LocalCluster
    of *workers* single-threaded processes (default: the machine's cores), anything else is a
    scheduler address such as ``tcp://host:8786``. Needs ``pip install 'schedframe[distributed]'``.

    Close the executor (or use it in a ``with`` block) to close its client and cluster;
    ``shutdown(cancel_futures=True)`` cancels the runs and closes them without waiting for the runs
    (each within a few seconds). A LocalCluster's workers ignore Ctrl-C once started (it reaches the
    whole process group): the process that started them handles it and closes them.
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise SweepError(
            "a Dask executor needs dask.distributed: pip install 'schedframe[distributed]'") from None
    if address == "local":
        n = workers or os.cpu_count() or 1
        cluster = LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)  # type: ignore[no-untyped-call]
        # Ctrl-C reaches the whole process group: the workers leave it to this process
        client.run(_ignore_interrupts)
    else:
        cluster = None
        client = Client(address)  # type: ignore[no-untyped-call]
    return _DaskExecutor(client, cluster)


#: How long closing a Dask client or LocalCluster may take after an interrupt.
_CLOSE_SECONDS: Final = 5


class _DaskExecutor(concurrent.futures.Executor):
    """Dask's own executor, closing the client (and a cluster it started) on shutdown."""

    def __init__(self, client: Any, cluster: Any) -> None:
        self._client = client
        self._cluster = cluster
        self._executor = client.get_executor(pure=False)

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> concurrent.futures.Future[Any]:
        future: concurrent.futures.Future[Any] = self._executor.submit(fn, *args, **kwargs)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Wait for the submitted runs (or, with *cancel_futures* or ``wait=False``, cancel them),
        then close the client and the cluster it started, each within a few seconds."""
        self._executor.shutdown(wait=wait and not cancel_futures)
        with contextlib.suppress(Exception):
            self._client.close(timeout=_CLOSE_SECONDS)
        if self._cluster is not None:
            with contextlib.suppress(Exception):
                self._cluster.close(timeout=_CLOSE_SECONDS)


def _read_done(path: Path, fmt: str) -> dict[str, dict[str, Any]]:
    """Rows already in an output file, by run key (only successful ones count as done)."""
    if not path.exists() or path.stat().st_size == 0:
        return {}
    if fmt not in ("csv", "jsonl"):
        raise SweepError(f"{path}: --resume needs a .csv or .jsonl output file")
    rows = _read_rows(path, fmt, allow_empty=True, reading="cannot resume from it")
    return {str(r.get("run")): r for r in rows if r.get("status") == "ok"}


def _read_rows(path: Path, fmt: str, *, allow_empty: bool = False,
               reading: str = "not a sweep's results") -> list[dict[str, Any]]:
    """The rows of the CSV or JSON Lines results file *path* (read through :mod:`schedframe._textio`)."""
    text = read_text(path, max_bytes=MAX_RESULTS_BYTES, what="the results file", allow_empty=allow_empty,
                     error=SweepError)
    if fmt == "csv":
        return list(csv.DictReader(io.StringIO(text, newline="")))
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


def _format_of(path: Path) -> str:
    fmt = path.suffix.lstrip(".").lower()
    if fmt not in _FORMATS:
        raise SweepError(f"{path}: unknown output format {path.suffix!r} "
                         "(use .csv, .jsonl, .json or .parquet)")
    return fmt


class _Writer:
    """Streams rows to CSV / JSON Lines as runs finish; JSON and Parquet are written at the end.

    A CSV header is fixed when its first row is written: the fixed columns, every run's
    parameters, the metrics of the first successful run, and ``extra`` (metrics a later row has
    beyond the header, JSON-encoded). Failed runs that finish before any success wait for it.
    """

    def __init__(self, path: Path | None, resume: bool, params: Sequence[str]) -> None:
        self.path = path
        self.fmt = _format_of(path) if path is not None else ""
        self._file: TextIO | None = None
        self._header: list[str] | None = None
        self._params = list(params)
        self._waiting: list[Mapping[str, Any]] = []
        if path is not None and self.fmt in ("csv", "jsonl"):
            path.parent.mkdir(parents=True, exist_ok=True)
            kept: list[dict[str, Any]] = []
            if resume and path.exists() and path.stat().st_size > 0:
                # keep the successful rows; failed runs run again and get a new row
                kept = list(_read_done(path, self.fmt).values())
                if self.fmt == "csv":
                    text = read_text(path, max_bytes=MAX_RESULTS_BYTES, what="the results file",
                                     error=SweepError)
                    self._header = next(csv.reader(io.StringIO(text, newline="")), None)
            self._file = path.open("w", newline="")
            if self._header is not None:
                csv.writer(self._file).writerow(self._header)
            for row in kept:
                if self.fmt == "jsonl":
                    self._file.write(json.dumps(row) + "\n")
                else:
                    csv.DictWriter(self._file, self._header or list(row), extrasaction="ignore").writerow(row)

    def write(self, row: Mapping[str, Any]) -> None:
        """Append *row* whole: a Ctrl-C arriving meanwhile takes effect once it is written."""
        with _interrupt_deferred():
            self._write(row)

    def _write(self, row: Mapping[str, Any]) -> None:
        if self._file is None:
            return
        if self.fmt == "jsonl":
            self._file.write(json.dumps(row) + "\n")
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
        values["extra"] = json.dumps(extra) if extra else ""
        csv.DictWriter(self._file, self._header).writerow(values)

    def close(self) -> None:
        """Close a streamed file as it is (an interrupted sweep: the rows written stay, whole)."""
        if self._file is not None and not self._file.closed:
            self._file.close()

    def finish(self, result: SweepResult) -> None:
        if self._file is not None:
            if self._waiting:  # only failures: a header without metrics
                if self._header is None:
                    self._start_csv(None)
                for waiting in self._waiting:
                    self._csv_row(waiting)
            self._file.close()
        if self.path is None or self.fmt in ("csv", "jsonl"):
            return
        rows = result.rows()
        if self.fmt == "json":
            self.path.write_text(json.dumps(rows, indent=1) + "\n")
            return
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise SweepError(f"{self.path}: writing Parquet needs pyarrow (pip install pyarrow)") from None
        columns = _columns(rows)
        table = pa.Table.from_pylist([{c: _csv_value(r.get(c)) for c in columns} for r in rows])
        pq.write_table(table, self.path)


def _csv_value(value: Any) -> Any:
    if isinstance(value, (list, dict)):
        return json.dumps(value, separators=(",", ":"))
    return value


@contextlib.contextmanager
def _interrupt_deferred() -> Iterator[None]:
    """Hold a SIGINT (Ctrl-C) back until the block ends, so that a row is never cut in half; then
    the handler that was installed runs (``KeyboardInterrupt`` by default). Outside the main thread
    (where Python delivers signals) it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[tuple[int, Any]] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: held.append((signum, frame)))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if held and callable(previous):
            previous(*held[0])


def _ignore_interrupts() -> None:
    """Run in each worker (a process pool's initializer, a LocalCluster's workers): Ctrl-C goes
    to the whole process group, and the main process alone decides what it means (it ends the
    workers itself)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _abandon_pool(pool: concurrent.futures.ProcessPoolExecutor) -> None:
    """End *pool* now by killing its workers: ``shutdown(cancel_futures=True)`` would wait for a
    busy worker to finish its run. The pool's manager thread sees them gone, fails the futures
    not done (``BrokenProcessPool``; cancelling them from here races with it) and exits."""
    manager = getattr(pool, "_executor_manager_thread", None)
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for p in processes:
        with contextlib.suppress(Exception):
            p.kill()
    for p in processes:
        with contextlib.suppress(Exception):
            p.join(timeout=_CLOSE_SECONDS)
    pool.shutdown(wait=False)
    if manager is not None:
        manager.join(timeout=_CLOSE_SECONDS)


def _progress(total: int, enabled: bool | None) -> Any:
    """A rich progress bar when rich is installed (and *enabled* is not False), else ``None``."""
    if enabled is False:
        return None
    try:
        from rich.progress import Progress
    except ImportError:
        return None
    progress = Progress(transient=False, disable=enabled is None and not _stderr_is_tty())
    progress.start()
    return progress, progress.add_task("sweep", total=total)


def _stderr_is_tty() -> bool:
    import sys

    return sys.stderr.isatty()


def sweep(
    runs: SweepSpec | Iterable[Run],
    *,
    executor: concurrent.futures.Executor | None = None,
    workers: int | None = None,
    out: str | os.PathLike[str] | None = None,
    resume: bool = False,
    progress: bool | None = None,
    on_outcome: Callable[[RunOutcome], None] | None = None,
) -> SweepResult:
    """Execute every run and return their outcomes in the runs' order.

    *executor*: any :class:`concurrent.futures.Executor` (e.g. :func:`dask_executor`, or a Dask
    ``Client.get_executor()``); by default a local process pool of *workers* processes (the
    machine's cores). *out*: a ``.csv`` or ``.jsonl`` file the rows stream to as runs finish (or
    ``.json`` / ``.parquet``, written at the end); with *resume*, runs already successful in
    *out* are skipped (their rows stay). *progress*: a rich progress bar (default: when stderr is
    a terminal). A run that raises is reported with its parameters and error; the others go on.

    Interrupted (``KeyboardInterrupt``, Ctrl-C), the sweep cancels the runs not started, kills the
    workers of its own process pool (the executor's futures are cancelled when one is given), keeps
    the rows already written (whole: a row is never cut; ``resume`` goes on from them) and re-raises.
    """
    run_list = list(runs.runs if isinstance(runs, SweepSpec) else runs)
    for i, r in enumerate(run_list):
        if not isinstance(r, Run):
            raise SweepError(f"runs[{i}]: expected a Run, got {type(r).__name__}")
    path = Path(out) if out is not None else None
    done: dict[str, dict[str, Any]] = {}
    if path is not None:
        fmt = _format_of(path)
        if resume:
            done = _read_done(path, fmt)
    todo = [(i, r) for i, r in enumerate(run_list) if r.key not in done]
    writer = _Writer(path, resume, list(dict.fromkeys(k for r in run_list for k in r.params)))
    outcomes: dict[int, RunOutcome] = {}
    bar = _progress(len(todo), progress)
    own = executor is None and len(todo) > 1
    pool: concurrent.futures.Executor | None = executor
    futures: list[concurrent.futures.Future[Any]] = []
    completed = False
    try:
        if own:
            n = max(1, min(workers or os.cpu_count() or 1, len(todo)))
            pool = concurrent.futures.ProcessPoolExecutor(max_workers=n, initializer=_ignore_interrupts)
        if pool is None:  # zero or one run: in this process
            finished: Iterator[RunOutcome] = (execute(r, i) for i, r in todo)
        else:
            for i, r in todo:
                futures.append(pool.submit(execute, r, i))
            finished = (f.result() for f in concurrent.futures.as_completed(futures))
        for outcome in finished:
            outcomes[outcome.index] = outcome
            writer.write(outcome.row())
            if on_outcome is not None:
                on_outcome(outcome)
            if bar is not None:
                bar[0].advance(bar[1])
        completed = True
    finally:
        if bar is not None:
            bar[0].stop()
        if not completed:
            writer.close()
        if own and isinstance(pool, concurrent.futures.ProcessPoolExecutor):
            if completed:
                pool.shutdown(wait=True)
            else:
                with _interrupt_deferred():  # a second Ctrl-C waits for the workers' end
                    _abandon_pool(pool)
        elif not completed:
            for f in futures:
                f.cancel()
    result = SweepResult(tuple(outcomes[i] for i, _ in todo), skipped=len(run_list) - len(todo))
    writer.finish(result)
    return result


def read_table(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The rows of a sweep's CSV or JSON Lines output (values as written: CSV gives strings)."""
    p = Path(path)
    fmt = _format_of(p)
    if fmt in ("csv", "jsonl"):
        return _read_rows(p, fmt)
    if fmt == "json":
        text = read_text(p, max_bytes=MAX_RESULTS_BYTES, what="the results file", error=SweepError)
        rows = parse_json(text, source=shown_path(p), error=SweepError)
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise SweepError(f"{p}: want a JSON list of objects (the rows)")
        return rows
    raise SweepError(f"{p}: read Parquet with pyarrow.parquet.read_table")
