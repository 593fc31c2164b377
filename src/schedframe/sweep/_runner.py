"""Sweeps: many runs (simulations, GPU-sharing experiments, any importable function) in parallel on
any :class:`concurrent.futures.Executor`, a local process pool by default or a Dask cluster.

A run is a *task* (``"simulate"``, ``"gpushare"``, ``"plan"``, or ``"package.module:function"``) and its
parameters; every run is a pure function of them, so the table a sweep produces does not depend on
the executor, the number of workers or the order in which runs finish. Rows stream to the output
file as runs finish; a run that raises is a row with its error and the others go on; ``resume``
skips the runs already in the output file.
"""

from __future__ import annotations

import collections
import concurrent.futures
import concurrent.futures.process
import contextlib
import functools
import hashlib
import importlib
import itertools
import json
import logging
import math
import os
import signal
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, final

import attrs

from .._reader import expected
from .._textio import parse_data, parse_json, read_text, shown_path
from ..errors import bounded_repr, bounded_text
from ._files import (
    MAX_ERROR_CHARS,
    MAX_RESULTS_BYTES,
    SweepError,
    _columns,
    _error_text,
    _format_of,
    _read_rows,
    _Writer,
)
from ._interrupts import HeldInterrupts, ignore_interrupts, started_without_interrupts

#: The tasks a spec may name by a short name; any other task is ``"package.module:function"``.
BUILTIN_TASKS: Final[Mapping[str, str]] = {
    "simulate": "schedframe.sweep:simulate_task",
    "gpushare": "schedframe.gpushare.experiment:sweep_task",
    "plan": "schedframe.plan:sweep_task",
}
#: The largest sweep spec read (a grid and its fixed parameters; explicit run lists stay small).
MAX_SPEC_BYTES: Final = 16 * 1024 * 1024
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

    __module__ = "schedframe.sweep"

    task: str
    params: Mapping[str, Any] = attrs.field(factory=dict)

    @classmethod
    def of(cls, task: str, params: Mapping[str, Any]) -> Run:
        """A run with *params* checked and copied to plain values."""
        if not isinstance(task, str) or not task:
            raise SweepError(f"task: expected a task name or 'module:function', got {bounded_repr(task)}")
        if not isinstance(params, Mapping):
            raise SweepError(f"params: {expected('a mapping', params)}")
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

    __module__ = "schedframe.sweep"

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
            "error": bounded_text(self.error, MAX_ERROR_CHARS) if self.error else "",
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

    __module__ = "schedframe.sweep"

    outcomes: tuple[RunOutcome, ...]
    skipped: int = 0

    @property
    def failed(self) -> tuple[RunOutcome, ...]:
        return tuple(o for o in self.outcomes if not o.ok)

    def rows(self) -> list[dict[str, Any]]:
        return [o.row() for o in self.outcomes]

    def columns(self) -> list[str]:
        return _columns(self.rows())


def _check_axis(name: str, values: Any) -> None:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise SweepError(f"grid.{name}: {expected('a list of values', values)}")
    if not values:
        raise SweepError(f"grid.{name}: an empty list makes an empty sweep")


def grid(**axes: Sequence[Any]) -> list[dict[str, Any]]:
    """The cartesian product of the axes, in a fixed order (the last axis varies fastest).

    ``grid(config=["a", "b"], seed=[1, 2])`` gives four parameter mappings.
    """
    for name, values in axes.items():
        _check_axis(name, values)
    names = list(axes)
    return [dict(zip(names, combo)) for combo in itertools.product(*(axes[n] for n in names))]


@final
@attrs.frozen
class SweepSpec:
    """A sweep as a file describes it: a task, a grid of axes and fixed parameters, and/or an
    explicit list of runs.

    The runs are generated lazily, in a fixed order (the grid first, its last axis varying
    fastest, then the explicit runs): iterate the spec, and ``len(spec)`` counts them from the
    axes without generating them. ``runs`` makes the tuple of all of them.
    """

    __module__ = "schedframe.sweep"

    task: str
    axes: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    fixed: Mapping[str, Any] = attrs.field(factory=dict)
    extra: tuple[Mapping[str, Any], ...] = ()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, origin: str = "sweep spec",
                  base_dir: str | os.PathLike[str] | None = None) -> SweepSpec:
        """Read ``{task: ..., grid: {axis: [values]}, fixed: {...}, runs: [{...}]}``.

        Every value is checked once (not once per run), so a grid of a million runs is read at
        once. With *base_dir* (the spec file's directory, as :func:`load_sweep_spec` passes), the
        relative paths a built-in task reads (:data:`PATH_PARAMS`) are resolved from it, as a
        scenario file's are from the scenario file.

        .. versionchanged:: 0.1.0
           *base_dir*.
        """
        if not isinstance(data, Mapping):
            raise SweepError(f"{origin}: {expected('a mapping', data)}")
        unknown = sorted(set(data) - {"task", "grid", "fixed", "runs"})
        if unknown:
            raise SweepError(f"{origin}: unknown field(s) {', '.join(unknown)} "
                             "(expected task, grid, fixed, runs)")
        task = data.get("task", "simulate")
        fixed = data.get("fixed", {}) or {}
        if not isinstance(fixed, Mapping):
            raise SweepError(f"{origin}: fixed: expected a mapping of parameters")
        try:
            fixed_run = Run.of(str(task), fixed)
        except SweepError as e:
            raise SweepError(f"{origin}: {str(e).replace('params', 'fixed', 1)}") from None
        axes: list[tuple[str, tuple[Any, ...]]] = []
        if data.get("grid") is not None:
            given = data["grid"]
            if not isinstance(given, Mapping):
                raise SweepError(f"{origin}: grid: expected a mapping of axis -> list of values")
            try:
                for name, values in given.items():
                    _check_axis(str(name), values)
                    plain = tuple(_plain(v, f"grid.{name}[{i}]") for i, v in enumerate(values))
                    axes.append((str(name), plain))
            except SweepError as e:
                raise SweepError(f"{origin}: {e}") from None
        extra = []
        for i, params in enumerate(data.get("runs") or ()):
            if not isinstance(params, Mapping):
                raise SweepError(f"{origin}: runs[{i}]: expected a mapping of parameters")
            try:
                extra.append(Run.of(fixed_run.task, params).params)
            except SweepError as e:
                raise SweepError(f"{origin}: runs[{i}]: {e}") from None
        if not axes and not extra:
            raise SweepError(f"{origin}: no runs (give a grid or a list of runs)")
        fixed_params: Mapping[str, Any] = fixed_run.params
        if base_dir is not None:
            base = os.fspath(base_dir)
            fix = functools.partial(_resolve_paths, fixed_run.task, base)
            fixed_params = fix(fixed_params)
            axes = [(name, tuple(fix({name: v})[name] for v in values)) for name, values in axes]
            extra = [fix(params) for params in extra]
        return cls(fixed_run.task, tuple(axes), fixed_params, tuple(extra))

    def __len__(self) -> int:
        """The number of runs, computed from the axes (nothing is generated)."""
        return (math.prod(len(values) for _, values in self.axes) if self.axes else 0) + len(self.extra)

    def __iter__(self) -> Iterator[Run]:
        """The runs, one at a time: the grid's product, then the explicit runs."""
        if self.axes:
            names = [name for name, _ in self.axes]
            for combo in itertools.product(*(values for _, values in self.axes)):
                yield Run(self.task, {**self.fixed, **dict(zip(names, combo))})
        for params in self.extra:
            yield Run(self.task, {**self.fixed, **params})

    @property
    def runs(self) -> tuple[Run, ...]:
        """Every run, generated (a large grid is better iterated)."""
        return tuple(self)

    @property
    def params(self) -> list[str]:
        """The parameter names of the runs, in the order of the table's columns."""
        names = [*self.fixed, *(name for name, _ in self.axes)]
        names += [k for params in self.extra for k in params]
        return list(dict.fromkeys(names))


#: The parameters of the built-in tasks that name files: a relative one in a spec file is
#: resolved from the spec's directory (``scenario`` and ``config`` only when they name a file, not
#: a built-in scenario or one of the scenario's configurations).
PATH_PARAMS: Final[Mapping[str, tuple[str, ...]]] = {
    "simulate": ("scenario", "config"),
    "plan": ("cluster", "templates", "pending", "config"),
    "gpushare": ("nodes", "pods"),
}
#: suffixes that make a value a file name even when no such file exists (yet)
_FILE_SUFFIXES: Final = (".yaml", ".yml", ".json", ".csv", ".jsonl")


def _resolve_paths(task: str, base: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """*params* with the relative file names of *task*'s path parameters made absolute from
    *base*: a value with a directory part or a file suffix, or naming a file there; a plain
    name (``three-zones``, ``bin-packing``) that names none is left as it is."""
    from ..sim.builtin import BUILTIN_SCENARIOS

    out = dict(params)
    for name in PATH_PARAMS.get(task, ()):
        value = out.get(name)
        if not isinstance(value, str) or not value or os.path.isabs(value):
            continue
        if name == "scenario" and value in BUILTIN_SCENARIOS:
            continue
        candidate = os.path.normpath(os.path.join(base, os.path.expanduser(value)))
        if (os.sep in value or "/" in value or value.lower().endswith(_FILE_SUFFIXES)
                or os.path.exists(candidate)):
            out[name] = candidate
    return out


def load_sweep_spec(path: str | os.PathLike[str]) -> SweepSpec:
    """Read a sweep spec from a YAML or JSON file (YAML needs PyYAML). Relative paths of the
    built-in tasks' parameters (:data:`PATH_PARAMS`) are resolved from the spec's directory, as
    a scenario file's are from the scenario file.

    .. versionchanged:: 0.1.0
       Relative paths resolve from the spec file, not from the current directory.
    """
    p = Path(path)
    text = read_text(p, max_bytes=MAX_SPEC_BYTES, what="the sweep spec", error=SweepError)
    data = parse_data(text, source=shown_path(p), error=SweepError)
    return SweepSpec.from_dict(data, origin=str(p), base_dir=os.path.dirname(os.path.abspath(p)))


# --- the built-in tasks ------------------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def _scenario_from_file(path: str, mtime_ns: int) -> Any:
    """A scenario file read once per worker process (and again only when the file changes)."""
    from ..sim.scenario import Scenario

    return Scenario.from_file(path)


def _scenario_param(scenario: str | None) -> Any:
    from ..sim.builtin import BUILTIN_SCENARIOS

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
                  until: float | None = None, kubernetes_version: str | None = None,
                  feature_gates: str | None = None) -> dict[str, Any]:
    """The ``simulate`` task: one :func:`~schedframe.sim.simulate` run, its metrics flattened
    (``utilisation_mean.cpu``) beside the scenario's and configuration's names. Wall-clock
    measurements are left out (the row's ``seconds`` has the run's time), so rows are equal
    whichever worker ran them. *kubernetes_version* and *feature_gates* choose the emulated
    kube-scheduler release (:doc:`/releases`)."""
    from ..sim.run import simulate

    result = simulate(_scenario_param(scenario), config, seed=seed, until=until,
                      kubernetes_version=kubernetes_version, feature_gates=feature_gates)
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
    """Run one task in this process; an exception (``SystemExit`` included) becomes the
    outcome's error, never raised. A ``KeyboardInterrupt`` (Ctrl-C) propagates.

    Workers run it too (through a wrapper that also turns a ``KeyboardInterrupt`` the task raises
    into its error): it is importable, and its argument and result pickle.
    """
    return _execute(run, index, (Exception, SystemExit))


def _work(run: Run, index: int) -> RunOutcome:
    """What a worker runs: every exception the task raises is its outcome's error, so the worker
    never ends with it (workers ignore Ctrl-C: a ``KeyboardInterrupt`` there is the task's)."""
    return _execute(run, index, (BaseException,))


def _execute(run: Run, index: int, catch: tuple[type[BaseException], ...]) -> RunOutcome:
    start = time.perf_counter()
    try:
        fn = _task_function(run.task)
        metrics = _metrics(fn(**run.params))
        error = None
    except catch as e:
        metrics = {}
        error = _error_text(e)
    return RunOutcome(run, index, metrics, error, time.perf_counter() - start)


def dask_executor(address: str = "local", *, workers: int | None = None) -> concurrent.futures.Executor:
    """A :class:`concurrent.futures.Executor` on a Dask cluster: ``"local"`` starts a LocalCluster
    of *workers* single-threaded processes (default: the machine's cores), anything else is a
    scheduler address such as ``tcp://host:8786``. Needs ``pip install 'schedframe[distributed]'``.
    A LocalCluster's own log lines are silenced (a run's failure is its row).

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
        cluster = client = None
        try:
            # Ctrl-C while the cluster starts: taken once it is up (and closed again); its workers
            # start with SIGINT blocked, then ignore it (it reaches the whole process group) and
            # leave it to this process
            with HeldInterrupts(), started_without_interrupts():
                cluster = LocalCluster(  # type: ignore[no-untyped-call]
                    n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                    # a run's failure is its row; Dask's own lines (tracebacks of heartbeats cut
                    # short when the cluster closes on Ctrl-C) only alarm
                    silence_logs=logging.CRITICAL)
                client = Client(cluster)  # type: ignore[no-untyped-call]
                client.run(ignore_interrupts)
        except BaseException:
            _close_dask(client, cluster)
            raise
    else:
        cluster = None
        client = Client(address)  # type: ignore[no-untyped-call]
    return _DaskExecutor(client, cluster)


def _close_dask(client: Any, cluster: Any) -> None:
    """Close *client* and *cluster* (either may be ``None``), each within a few seconds; a Ctrl-C
    meanwhile is taken after."""
    with HeldInterrupts():
        if client is not None:
            with contextlib.suppress(Exception):
                client.close(timeout=_CLOSE_SECONDS)
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close(timeout=_CLOSE_SECONDS)


#: How long closing a Dask client or LocalCluster may take after an interrupt.
_CLOSE_SECONDS: Final = 5
#: How often a sweep waiting for runs looks for a Ctrl-C held meanwhile (``HeldInterrupts``).
_POLL_SECONDS: Final = 0.1


class _DaskExecutor(concurrent.futures.Executor):
    """Dask's own executor, closing the client (and a cluster it started) on shutdown."""

    def __init__(self, client: Any, cluster: Any) -> None:
        self._client = client
        self._cluster = cluster
        self._executor = client.get_executor(pure=False)
        self._futures: weakref.WeakSet[concurrent.futures.Future[Any]] = weakref.WeakSet()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> concurrent.futures.Future[Any]:
        future: concurrent.futures.Future[Any] = self._executor.submit(fn, *args, **kwargs)
        self._futures.add(future)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Wait for the submitted runs (or, with *cancel_futures* or ``wait=False``, cancel them),
        then close the client and the cluster it started, each within a few seconds. Ctrl-C ends
        the wait (the runs are cancelled); while the client and cluster close, it is taken after."""
        try:
            with HeldInterrupts() as interrupts:
                if wait and not cancel_futures:
                    _wait(list(self._futures), interrupts, first=False)
                self._executor.shutdown(wait=False)
        finally:
            _close_dask(self._client, self._cluster)




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


def _progress(total: int | None, enabled: bool | None) -> Any:
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


#: Runs submitted at a time to an executor that is not a process pool (a Dask cluster): the
#: runs are generated as they are submitted, never all at once.
MAX_IN_FLIGHT: Final = 1024


def _died(processes: Iterable[Any]) -> str:
    """How a pool's worker ended, from its processes after the pool broke (the pool terminates
    the others with SIGTERM)."""
    processes = list(processes)
    deadline = time.monotonic() + _CLOSE_SECONDS
    while True:  # a worker's pipe closes a moment before its exit status is there
        codes = [p.exitcode for p in processes if p.exitcode is not None]
        own = [c for c in codes if c != -signal.SIGTERM]
        if own or len(codes) == len(processes) or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    own = own or codes
    if not own:
        return "it ended abruptly"
    code = own[0]
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"it was killed by {name}"
    return f"it exited with code {code}" + (" (os._exit or a crash)" if code else "")


def _failed(run: Run, index: int, error: str) -> RunOutcome:
    return RunOutcome(run, index, {}, bounded_text(error, MAX_ERROR_CHARS), 0.0)


class _Pools:
    """Where runs go: the executor given, or a process pool of ours. A process pool whose worker
    died is replaced by a new one of ours (the runs it held are told apart by running them again
    one at a time, each in a pool of one worker). It runs within the sweep's
    :class:`HeldInterrupts`: its waits take a Ctrl-C, its clean-up holds a second one."""

    def __init__(self, executor: concurrent.futures.Executor | None, workers: int,
                 interrupts: HeldInterrupts) -> None:
        self.interrupts = interrupts
        self.own = executor is None
        self.workers = workers
        self.pool: concurrent.futures.Executor = executor if executor is not None else self._new(workers)
        if isinstance(self.pool, concurrent.futures.ProcessPoolExecutor):
            self.workers = getattr(self.pool, "_max_workers", workers)
            self.limit = self.workers
        else:
            self.limit = MAX_IN_FLIGHT
        self.processes: dict[int, Any] = {}
        self._alone: concurrent.futures.ProcessPoolExecutor | None = None

    @staticmethod
    def _new(workers: int) -> concurrent.futures.ProcessPoolExecutor:
        return concurrent.futures.ProcessPoolExecutor(max_workers=workers, initializer=ignore_interrupts)

    def submit(self, run: Run, index: int) -> concurrent.futures.Future[Any]:
        future = self.pool.submit(_work, run, index)
        self.processes.update(getattr(self.pool, "_processes", None) or {})
        return future

    def replace(self) -> str:
        """A new pool for a broken one; how its worker died."""
        how = _died(self.processes.values())
        if self.own:
            assert isinstance(self.pool, concurrent.futures.ProcessPoolExecutor)
            _abandon_pool(self.pool)
        self.pool, self.own, self.processes = self._new(self.workers), True, {}
        return how

    def alone(self, run: Run, index: int) -> RunOutcome:
        """Run *run* in a pool of one worker: its outcome, or a failed one when the worker dies."""
        self._alone = self._new(1)
        try:
            future = self._alone.submit(_work, run, index)
            processes = list((getattr(self._alone, "_processes", None) or {}).values())
            _wait([future], self.interrupts, first=True)
            try:
                outcome: RunOutcome = future.result()
            except concurrent.futures.process.BrokenProcessPool:
                return _failed(run, index, f"the worker process running it died: {_died(processes)}")
            except Exception as e:  # the pool's failure is the run's
                return _failed(run, index, f"the worker running it failed: {_error_text(e)}")
            return outcome
        finally:
            _abandon_pool(self._alone)
            self._alone = None

    def close(self, completed: bool, pending: Iterable[concurrent.futures.Future[Any]]) -> None:
        if self._alone is not None:
            _abandon_pool(self._alone)
        if self.own:
            assert isinstance(self.pool, concurrent.futures.ProcessPoolExecutor)
            if completed:
                self.pool.shutdown(wait=True)
            else:
                _abandon_pool(self.pool)  # a second Ctrl-C (held by the sweep) waits for it
        elif not completed:
            for f in pending:
                f.cancel()


def _run_on(pools: _Pools, items: Iterator[tuple[int, Run]],
            emit: Callable[[list[RunOutcome]], None],
            pending: dict[concurrent.futures.Future[Any], tuple[int, Run]]) -> None:
    """Feed *pools* at most ``pools.limit`` runs at a time from *items*; *emit* the outcomes of
    the runs as they finish, a batch at a time. A dead worker fails the run it was running (and
    only that one), and the pool is replaced."""
    again: collections.deque[tuple[int, Run]] = collections.deque()
    while True:
        while len(pending) < pools.limit:
            item = again.popleft() if again else next(items, None)
            if item is None:
                break
            try:
                pending[pools.submit(item[1], item[0])] = item
            except concurrent.futures.process.BrokenProcessPool:
                again.appendleft(item)  # never started
                if not pending:
                    pools.replace()
                break
        if not pending:
            return
        finished = _wait(list(pending), pools.interrupts, first=True)
        outcomes, suspects = _collect(finished, pending)
        emit(outcomes)
        if suspects:
            # the pool broke: every run it held fails the same way, promptly
            finished = _wait(list(pending), pools.interrupts, first=False, timeout=2 * _CLOSE_SECONDS)
            outcomes, more = _collect(finished, pending)
            emit(outcomes)
            suspects += more + list(pending.values())
            pending.clear()
            how = pools.replace()
            if len(suspects) == 1:
                (index, run), = suspects
                emit([_failed(run, index, f"the worker process running it died: {how}")])
            else:  # which one? each alone, in the runs' order
                for index, run in sorted(suspects, key=lambda item: item[0]):
                    emit([pools.alone(run, index)])


def _wait(futures: list[concurrent.futures.Future[Any]], interrupts: HeldInterrupts, *, first: bool,
          timeout: float | None = None) -> set[concurrent.futures.Future[Any]]:
    """The *futures* done once the first is (*first*) or all are, or *timeout* seconds have passed;
    a Ctrl-C held by *interrupts* meanwhile is taken within ``_POLL_SECONDS``."""
    deadline = None if timeout is None else time.monotonic() + timeout
    when = concurrent.futures.FIRST_COMPLETED if first else concurrent.futures.ALL_COMPLETED
    while True:
        left = _POLL_SECONDS
        if deadline is not None:
            left = max(0.0, min(left, deadline - time.monotonic()))
        done, not_done = concurrent.futures.wait(futures, timeout=left, return_when=when)
        interrupts.check()
        if (done if first else not not_done) or (deadline is not None and time.monotonic() >= deadline):
            return done


def _collect(finished: Iterable[concurrent.futures.Future[Any]],
             pending: dict[concurrent.futures.Future[Any], tuple[int, Run]],
             ) -> tuple[list[RunOutcome], list[tuple[int, Run]]]:
    """The outcomes of the *finished* futures (removed from *pending*), and the runs of those
    whose process pool broke."""
    outcomes: list[RunOutcome] = []
    broken: list[tuple[int, Run]] = []
    for future in finished:
        index, run = pending.pop(future)
        try:
            outcomes.append(future.result())
        except concurrent.futures.process.BrokenProcessPool:
            broken.append((index, run))
        except Exception as e:  # the executor's failure (a Dask worker lost) is the run's
            outcomes.append(_failed(run, index, f"the worker running it failed: {_error_text(e)}"))
    return outcomes, broken


def _counted(runs: SweepSpec | Iterable[Run]) -> tuple[Iterator[Run], int | None, list[str] | None]:
    """The runs one at a time, their number and their parameter names when known without
    generating them (a spec, a list), else ``None``."""
    if isinstance(runs, SweepSpec):
        return iter(runs), len(runs), runs.params
    if isinstance(runs, Sequence):
        for i, r in enumerate(runs):
            if not isinstance(r, Run):
                raise SweepError(f"runs[{i}]: {expected('a Run', r)}")
        return iter(runs), len(runs), list(dict.fromkeys(k for r in runs for k in r.params))

    def checked() -> Iterator[Run]:
        for i, r in enumerate(runs):
            if not isinstance(r, Run):
                raise SweepError(f"runs[{i}]: {expected('a Run', r)}")
            yield r

    return checked(), None, None


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
    ``.json`` / ``.parquet``, written at the end, atomically, the rows streaming meanwhile to
    ``NAME.rows.jsonl`` beside it); its directory is created, and every problem with it
    reported, before the first run. With *resume*, runs already successful in *out* are skipped
    (their rows stay; incomplete rows are dropped and run again). *progress*: a rich progress bar
    (default: when stderr is a terminal). A run that raises, or whose worker process dies, is
    reported with its parameters and error; the others go on (a dead worker's pool is replaced).

    The runs are generated as they are submitted (a spec's grid is never made whole), a bounded
    number at a time.

    Interrupted (``KeyboardInterrupt``, Ctrl-C), the sweep cancels the runs not started, kills the
    workers of its own process pool (the executor's futures are cancelled when one is given), keeps
    the rows already written (whole: a row is never cut; ``resume`` goes on from them) and re-raises.
    In the main thread, Ctrl-C is held while the sweep works and taken where it waits for runs
    (within a tenth of a second), never in the middle of a lock's bookkeeping; a second Ctrl-C
    while it cleans up is taken after.
    """
    with HeldInterrupts() as interrupts:  # Ctrl-C is taken where nothing is half done
        return _sweep(runs, executor, workers, out, resume, progress, on_outcome, interrupts)


def _sweep(runs: SweepSpec | Iterable[Run], executor: concurrent.futures.Executor | None,
           workers: int | None, out: str | os.PathLike[str] | None, resume: bool, progress: bool | None,
           on_outcome: Callable[[RunOutcome], None] | None, interrupts: HeldInterrupts) -> SweepResult:
    all_runs, count, params = _counted(runs)
    path = Path(out) if out is not None else None
    writer = _Writer(path, resume, params or [])
    done = writer.done
    outcomes: dict[int, RunOutcome] = {}
    skipped = 0

    def todo() -> Iterator[tuple[int, Run]]:
        nonlocal skipped
        for i, r in enumerate(all_runs):
            if done and r.key in done:
                skipped += 1
                if bar is not None:
                    bar[0].advance(bar[1])
                continue
            yield i, r

    def emit(batch: list[RunOutcome]) -> None:
        for outcome in batch:  # every row first: a callback that raises loses none
            outcomes[outcome.index] = outcome
            writer.write(outcome.row())
        for outcome in batch:
            if on_outcome is not None:
                on_outcome(outcome)
            if bar is not None:
                bar[0].advance(bar[1])

    bar = _progress(count, progress)
    items = todo()
    first = list(itertools.islice(items, 1))
    items = itertools.chain(first, items)
    pools: _Pools | None = None
    pending: dict[concurrent.futures.Future[Any], tuple[int, Run]] = {}
    completed = False
    try:
        if first:  # even one run goes to a worker: a task that ends its process ends only that
            n = max(1, min(workers or os.cpu_count() or 1, count or MAX_IN_FLIGHT))
            pools = _Pools(executor, n, interrupts)
            _run_on(pools, items, emit, pending)
        completed = True
    finally:
        if bar is not None:
            bar[0].stop()
        if not completed:
            writer.close()
        if pools is not None:
            pools.close(completed, pending)
    result = SweepResult(tuple(outcomes[i] for i in sorted(outcomes)), skipped=skipped)
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
            raise SweepError(f"{p}: expected a JSON list of objects (the rows)")
        return rows
    raise SweepError(f"{p}: read Parquet with pyarrow.parquet.read_table")
