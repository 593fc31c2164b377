"""Running a workload: build the cluster, place the initial pods, measure the measured ones.

What is measured (see ``docs/performance.rst``):

* **throughput**: measured pods bound / wall time of the measured phase (the loop calling
  :meth:`schedframe.Scheduler.schedule_one` until the queue is idle; in deterministic mode each call also
  runs the pod's binding cycle). Adding the measured pods to the queue is timed separately.
  The process CPU time of the same phase is reported too (``pods_per_cpu_second``): on a
  shared, busy machine it is the steadier number.
* **latency**: the wall time of every ``schedule_one`` call of the measured phase (every
  attempt, failed ones included), as p50/p90/p99/max.
* **garbage collection**: time spent in the cyclic collector during the measured phase.
* **memory**: the peak resident set size of the process (``ru_maxrss``). Run isolated (the
  default of the command line), each workload has a fresh process, so the peak is the
  workload's own (interpreter included, about 20 MiB).
"""

from __future__ import annotations

import cProfile
import gc
import importlib
import os
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final, final

import attrs

from ..api.objects import Pod
from ..config.configuration import SchedulerConfiguration
from ..framework.registry import Registry
from ..scheduler.scheduler import Scheduler
from ..sim.results import percentile
from ._case import write_case, write_placements
from ._model import BenchmarkError, BenchPodGroup, BenchWorkload, Churn
from ._workloads import get_workload

__all__ = [
    "BenchOptions",
    "WorkloadResult",
    "build_registry",
    "current_rss_mb",
    "load_config",
    "peak_rss_mb",
    "run_named",
    "run_suite",
    "run_workload",
    "summarize",
]

INITIAL_MODES: Final = ("schedule", "bind")


# --------------------------------------------------------------------------------------------
# memory


def peak_rss_mb() -> float | None:
    """Peak resident set size of this process in MiB (``ru_maxrss``), or ``None`` where the
    ``resource`` module is missing."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # kilobytes on Linux and the BSDs, bytes on macOS
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def current_rss_mb() -> float | None:
    """Current resident set size in MiB (Linux ``/proc/self/statm``), or ``None``."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
    except (OSError, ValueError, IndexError):  # pragma: no cover - not Linux
        return None
    return pages * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)


# --------------------------------------------------------------------------------------------
# plugins and configuration


def _load_plugin(registry: Registry, spec: str) -> None:
    name, sep, target = spec.partition("=")
    if not sep:
        name, target = "", spec
    module_name, _, attr = target.partition(":")
    if not module_name:
        raise BenchmarkError(f"plugin spec {spec!r}: want [Name=]module:factory or module")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise BenchmarkError(f"plugin spec {spec!r}: cannot import {module_name!r}: {exc}") from exc
    if not attr:
        register = getattr(module, "schedframe_register_plugins", None)
        if register is None:
            raise BenchmarkError(f"plugin spec {spec!r}: module {module_name!r} has no "
                                 "schedframe_register_plugins(registry); give module:factory")
        register(registry)
        return
    factory: Any = module
    for part in attr.split("."):
        factory = getattr(factory, part, None)
        if factory is None:
            raise BenchmarkError(f"plugin spec {spec!r}: module {module_name!r} has no {attr!r}")
    if not name:
        name = getattr(module, "NAME", None) or getattr(factory, "NAME", None) or ""
    if not name:
        raise BenchmarkError(f"plugin spec {spec!r}: no NAME in {module_name!r}; give Name=module:factory")
    registry.register(name, factory, args_type=getattr(module, "ARGS_TYPE", None))


def build_registry(plugins: Iterable[str] = (), *, entry_points: bool = True) -> Registry:
    """The in-tree registry, plus the plugins of installed distributions (entry-point group
    ``schedframe``) and of each *plugins* spec: ``Name=module:factory``, ``module:factory``
    (the name from the module's ``NAME``) or ``module`` (its
    ``schedframe_register_plugins(registry)`` function)."""
    from ..plugins import in_tree_registry

    registry = in_tree_registry()
    if entry_points:
        from ..framework.plugin_manager import load_plugins

        load_plugins(registry)
    for spec in plugins:
        _load_plugin(registry, spec)
    return registry


def load_config(path: str | os.PathLike[str], registry: Registry) -> SchedulerConfiguration:
    """Read a ``KubeSchedulerConfiguration`` YAML (or JSON) file as every command does
    (:meth:`schedframe.SchedulerConfiguration.from_file`: at most ``schedframe.config.MAX_CONFIG_FILE_BYTES``,
    the errors naming the file)."""
    return SchedulerConfiguration.from_file(path, registry=registry)


@final
@attrs.frozen(kw_only=True)
class BenchOptions:
    """How to run workloads (picklable: isolated runs rebuild everything from it).

    Attributes:
        initial: ``"schedule"`` the initial pods through the scheduler (upstream), or
            ``"bind"`` them directly, round-robin over the nodes (fast; placements differ).
        config_path: a ``KubeSchedulerConfiguration`` file (default: upstream's defaults).
        plugins: plugin specs for :func:`build_registry`.
        entry_points: load installed plugin distributions.
        seed: the Scheduler's tie-breaking seed.
        profile_path: write a cProfile of the measured phase here.
        gc_freeze: ``gc.freeze()`` the cluster before measuring (an embedding option).
        kubernetes_version: the release to emulate (default: the newest).
        export_dir: write the run's cluster and pods here for the side-by-side run with Go
            kube-scheduler (``case.json`` once the initial pods are placed, ``placements.json``
            after measuring; :mod:`schedframe.bench._against`).
        churn_upfront: add a workload's churn pods with the measured pods instead of during the
            measured phase (what the side-by-side run feeds both schedulers).
    """

    initial: str = attrs.field(default="schedule", validator=attrs.validators.in_(INITIAL_MODES))
    config_path: str | None = None
    plugins: tuple[str, ...] = ()
    entry_points: bool = True
    seed: int = 0
    profile_path: str | None = None
    gc_freeze: bool = False
    kubernetes_version: str | None = None
    export_dir: str | None = None
    churn_upfront: bool = False


# --------------------------------------------------------------------------------------------
# results


class _GcTimer:
    """Time spent in the cyclic garbage collector (``gc.callbacks``) while installed."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.collections = 0
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._start
            self.collections += 1


def _round(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


@final
@attrs.frozen(kw_only=True)
class WorkloadResult:
    """What one run of a workload measured. Times in seconds, latencies in ms, memory in MiB."""

    workload: str
    scale: float
    nodes: int
    initial_pods: int
    measured_pods: int
    initial_mode: str
    scheduled: int
    unscheduled: int
    unscheduled_reasons: dict[str, int]
    churn_pods: int
    attempts: int
    seconds: float
    pods_per_second: float | None
    cpu_seconds: float
    pods_per_cpu_second: float | None
    gc_seconds: float
    gc_collections: int
    floor: float | None
    latency_p50_ms: float | None
    latency_p90_ms: float | None
    latency_p99_ms: float | None
    latency_max_ms: float | None
    setup_seconds: float
    initial_seconds: float
    initial_unscheduled: int
    enqueue_seconds: float
    peak_rss_mb: float | None
    rss_mb: float | None
    memory_target_mb: float | None
    isolated: bool = False
    gc_frozen: bool = False
    runs: int = 1

    @property
    def passed(self) -> bool | None:
        """Whether the workload met its targets (floor, memory, every measured pod bound);
        ``None`` when it has none or was scaled (a scaled run is not comparable)."""
        checks: list[bool] = []
        if self.scale != 1:
            return None
        if self.floor is not None and self.pods_per_second is not None:
            checks.append(self.pods_per_second >= self.floor)
        if self.memory_target_mb is not None and self.peak_rss_mb is not None:
            checks.append(self.peak_rss_mb <= self.memory_target_mb)
        if not checks:
            return None
        return all(checks) and self.unscheduled == 0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping (``passed`` included)."""
        out = attrs.asdict(self)
        out["passed"] = self.passed
        return out


def _percentile(values: Sequence[float], p: float) -> float:
    """The *p*-th percentile of a non-empty sequence: :func:`schedframe.sim.results.percentile`
    (linear interpolation between the closest ranks, NumPy's default), the one definition bench
    and the simulator share."""
    value = percentile(values, p)
    if value is None:
        raise BenchmarkError("a percentile of no values")
    return value


def summarize(results: Sequence[WorkloadResult]) -> WorkloadResult:
    """Several runs of one workload as one result: medians of the measurements, worst case of
    the correctness counts, ``runs`` set."""
    if not results:
        raise BenchmarkError("summarize needs at least one result")
    if len(results) == 1:
        return results[0]

    def med(field: str) -> float | None:
        values = [getattr(r, field) for r in results if getattr(r, field) is not None]
        return _round(statistics.median(values)) if values else None

    first = results[0]
    worst = max(results, key=lambda r: r.unscheduled)
    return attrs.evolve(
        first,
        scheduled=min(r.scheduled for r in results),
        unscheduled=worst.unscheduled,
        unscheduled_reasons=worst.unscheduled_reasons,
        initial_unscheduled=max(r.initial_unscheduled for r in results),
        attempts=round(statistics.median(r.attempts for r in results)),
        seconds=med("seconds") or 0.0,
        pods_per_second=med("pods_per_second"),
        cpu_seconds=med("cpu_seconds") or 0.0,
        gc_seconds=med("gc_seconds") or 0.0,
        gc_collections=round(statistics.median(r.gc_collections for r in results)),
        pods_per_cpu_second=med("pods_per_cpu_second"),
        latency_p50_ms=med("latency_p50_ms"),
        latency_p90_ms=med("latency_p90_ms"),
        latency_p99_ms=med("latency_p99_ms"),
        latency_max_ms=med("latency_max_ms"),
        setup_seconds=med("setup_seconds") or 0.0,
        initial_seconds=med("initial_seconds") or 0.0,
        enqueue_seconds=med("enqueue_seconds") or 0.0,
        peak_rss_mb=med("peak_rss_mb"),
        rss_mb=med("rss_mb"),
        runs=len(results),
    )


# --------------------------------------------------------------------------------------------
# running


def _place_initial(sched: Scheduler, workload: BenchWorkload, mode: str, node_names: Sequence[str]) -> int:
    """Place the initial pods; returns how many were left unscheduled."""
    left = 0
    rr = 0
    n = len(node_names)
    for group in workload.initial:
        if mode == "bind":
            if not n:
                raise BenchmarkError(f"{workload.name}: cannot bind initial pods without nodes")
            for i in range(group.count):  # one pod object alive at a time besides the cluster's
                sched.add_pod(group.make(i).evolve(node_name=node_names[rr % n]))
                rr += 1
            continue
        pods = [group.make(i) for i in range(group.count)]
        for pod in pods:
            sched.add_pod(pod)
        sched.run_until_idle()
        left += sum(1 for p in pods if sched.node_of(p) is None)
    return left


def _measure(sched: Scheduler, measured: int, churn: Churn | None) -> tuple[list[float], int, int]:
    """The measured phase: schedule until idle. Returns (per-attempt seconds, attempts, churn
    pods injected)."""
    pc = time.perf_counter
    churn_every = churn.every if churn is not None and churn.every > 0 else 0
    churn_max = measured // churn_every if churn_every else 0
    churn_next = churn_every if churn_max else -1
    churn_made = 0
    latencies: list[float] = []
    append = latencies.append
    schedule_one = sched.schedule_one
    attempts = 0
    if not measured:
        return latencies, attempts, churn_made
    while True:
        a = pc()
        if schedule_one():
            append(pc() - a)
            attempts += 1
            if attempts == churn_next:
                assert churn is not None
                sched.add_pod(churn.make(churn_made))
                churn_made += 1
                churn_next = attempts + churn_every if churn_made < churn_max else -1
            continue
        # nothing ready: let the fake clock move to the next backoff expiry (preemptors) and go on
        cycles = sched.run_until_idle(max_cycles=1).cycles
        if not cycles:
            return latencies, attempts, churn_made
        append(pc() - a)
        attempts += cycles


def run_workload(workload: BenchWorkload, *, config: SchedulerConfiguration | None = None,
                 registry: Registry | None = None, initial: str = "schedule", seed: int = 0,
                 profile_path: str | None = None, gc_freeze: bool = False,
                 progress: Callable[[str], None] | None = None, kubernetes_version: str | None = None,
                 export_dir: str | None = None) -> WorkloadResult:
    """Run *workload* once in this process and return what was measured.

    Args:
        workload: a built-in workload (see :func:`~schedframe.bench.get_workload`) or your own.
        config: the scheduler configuration (default: upstream's default profile).
        registry: the plugins (default: the in-tree registry).
        initial: ``"schedule"`` or ``"bind"`` the initial pods (the workload may force one).
        seed: the Scheduler's tie-breaking seed.
        profile_path: write a cProfile (pstats file) of the measured phase here.
        gc_freeze: freeze the garbage collector's view of the cluster before measuring.
        progress: called with a short message at each phase.
        kubernetes_version: the release to emulate (default: the newest).
        export_dir: write ``case.json`` (the cluster once the initial pods are placed, then the
            measured pods pending) and ``placements.json`` (measured pod -> node) here.
    """
    if initial not in INITIAL_MODES:
        raise BenchmarkError(f"initial must be one of {INITIAL_MODES}, got {initial!r}")
    reason = workload.skip_reason()
    if reason is not None:
        raise BenchmarkError(f"{workload.name} cannot run: {reason}")
    mode = workload.initial_mode or initial
    say = progress or (lambda _msg: None)
    pc = time.perf_counter

    say(f"{workload.name}: {workload.node_count} nodes")
    t = pc()
    sched = Scheduler(config, seed=seed, registry=registry, objects=workload.build_objects(),
                      kubernetes_version=kubernetes_version)
    nodes = workload.build_nodes()
    for node in nodes:
        sched.add_node(node)
    setup_seconds = pc() - t

    say(f"{workload.name}: {workload.initial_count} initial pods ({mode})")
    t = pc()
    initial_left = _place_initial(sched, workload, mode, [n.name for n in nodes])
    initial_seconds = pc() - t
    del nodes

    measured: list[Pod] = [g.make(i) for g in workload.measured for i in range(g.count)]
    if gc_freeze:
        gc.collect()
        gc.freeze()
    if export_dir is not None:
        write_case(sched, workload, measured, os.path.join(export_dir, "case.json"))
    say(f"{workload.name}: {len(measured)} measured pods")
    t = pc()
    for pod in measured:
        sched.add_pod(pod)
    enqueue_seconds = pc() - t

    gc_timer = _GcTimer()
    profiler = cProfile.Profile() if profile_path else None
    gc.callbacks.append(gc_timer)
    if profiler is not None:
        profiler.enable()
    try:
        cpu0 = time.process_time()
        t0 = pc()
        latencies, attempts, churn_made = _measure(sched, len(measured), workload.churn)
        seconds = pc() - t0
        cpu_seconds = time.process_time() - cpu0
    finally:
        if profiler is not None:
            profiler.disable()
        gc.callbacks.remove(gc_timer)
        if gc_freeze:
            gc.unfreeze()
    if profiler is not None and profile_path is not None:
        profiler.dump_stats(profile_path)

    scheduled = 0
    reasons: Counter[str] = Counter()
    measured_uids = set()
    for pod in measured:
        if sched.node_of(pod) is not None:
            scheduled += 1
        else:
            measured_uids.add(pod.uid)
    if measured_uids:
        for rec in sched.pending():
            if rec.pod.uid in measured_uids:
                reasons[rec.message or f"not attempted ({rec.where})"] += 1
    if export_dir is not None:
        write_placements(sched, measured, os.path.join(export_dir, "placements.json"))
    latencies.sort()
    have = bool(latencies)
    return WorkloadResult(
        workload=workload.name,
        scale=workload.scale,
        nodes=workload.node_count,
        initial_pods=workload.initial_count,
        measured_pods=len(measured),
        initial_mode=mode,
        scheduled=scheduled,
        unscheduled=len(measured) - scheduled,
        unscheduled_reasons=dict(reasons.most_common(5)),
        churn_pods=churn_made,
        attempts=attempts,
        seconds=round(seconds, 4),
        pods_per_second=_round(scheduled / seconds, 1) if measured and seconds > 0 else None,
        cpu_seconds=round(cpu_seconds, 4),
        gc_seconds=round(gc_timer.seconds, 4),
        gc_collections=gc_timer.collections,
        pods_per_cpu_second=_round(scheduled / cpu_seconds, 1) if measured and cpu_seconds > 0 else None,
        floor=workload.floor,
        latency_p50_ms=_round(_percentile(latencies, 50) * 1000) if have else None,
        latency_p90_ms=_round(_percentile(latencies, 90) * 1000) if have else None,
        latency_p99_ms=_round(_percentile(latencies, 99) * 1000) if have else None,
        latency_max_ms=_round(latencies[-1] * 1000) if have else None,
        setup_seconds=round(setup_seconds, 3),
        initial_seconds=round(initial_seconds, 3),
        initial_unscheduled=initial_left,
        enqueue_seconds=round(enqueue_seconds, 4),
        peak_rss_mb=_round(peak_rss_mb(), 1),
        rss_mb=_round(current_rss_mb(), 1),
        memory_target_mb=workload.memory_target_mb,
        gc_frozen=gc_freeze,
    )


def run_named(name: str, scale: float = 1.0, options: BenchOptions | None = None, *,
              isolated: bool = False, progress: Callable[[str], None] | None = None) -> WorkloadResult:
    """Run the built-in workload *name* at *scale* with *options* in this process."""
    opts = options if options is not None else BenchOptions()
    workload = get_workload(name).scaled(scale)
    if opts.churn_upfront:
        workload = churn_upfront(workload)
    registry = build_registry(opts.plugins, entry_points=opts.entry_points)
    config = load_config(opts.config_path, registry) if opts.config_path else None
    result = run_workload(workload, config=config, registry=registry, initial=opts.initial, seed=opts.seed,
                          profile_path=opts.profile_path, gc_freeze=opts.gc_freeze, progress=progress,
                          kubernetes_version=opts.kubernetes_version, export_dir=opts.export_dir)
    return attrs.evolve(result, isolated=isolated)


def churn_upfront(workload: BenchWorkload) -> BenchWorkload:
    """*workload* with its churn pods (as many as the measured phase would inject) added to the
    measured pods, after them, instead of during the measured phase."""
    churn = workload.churn
    if churn is None:
        return workload
    count = workload.measured_count // churn.every if churn.every > 0 else 0
    extra = (BenchPodGroup(count=count, make=churn.make),) if count else ()
    return attrs.evolve(workload, measured=(*workload.measured, *extra), churn=None)


def _run_child(name: str, scale: float, options: BenchOptions) -> WorkloadResult:
    return run_named(name, scale, options, isolated=True)


def _isolated(name: str, scale: float, options: BenchOptions) -> WorkloadResult:
    import concurrent.futures
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
        return pool.submit(_run_child, name, scale, options).result()


def _profile_path(base: str | None, name: str, run: int, many: bool) -> str | None:
    if base is None or not many:
        return base
    stem, dot, ext = base.rpartition(".")
    slug = name.replace("/", "_")
    return f"{stem}.{slug}.{run}.{ext}" if dot else f"{base}.{slug}.{run}"


def run_suite(names: Sequence[str], *, scale: float = 1.0, options: BenchOptions | None = None,
              repeat: int = 1, isolate: bool = True,
              progress: Callable[[str], None] | None = None,
              on_result: Callable[[WorkloadResult], None] | None = None,
              ) -> list[tuple[WorkloadResult, list[WorkloadResult]]]:
    """Run each built-in workload *repeat* times; returns ``(summary, runs)`` per workload.

    With *isolate* each run gets a fresh interpreter (so peak memory is the run's own).
    """
    if repeat < 1:
        raise BenchmarkError(f"repeat must be >= 1, got {repeat}")
    opts = options if options is not None else BenchOptions()
    for name in names:
        get_workload(name)
    many = len(names) * repeat > 1
    out = []
    for name in names:
        runs = []
        for run in range(repeat):
            o = attrs.evolve(opts, profile_path=_profile_path(opts.profile_path, name, run, many))
            if progress is not None:
                progress(f"{name}: run {run + 1}/{repeat}{' (isolated)' if isolate else ''}")
            result = _isolated(name, scale, o) if isolate else run_named(name, scale, o, progress=progress)
            if on_result is not None:
                on_result(result)
            runs.append(result)
        out.append((summarize(runs), runs))
    return out
