"""Simulated resource usage: what the pods of a simulation use (as opposed to what they request),
and the node metrics the load-aware plugins read from it.

A pod's **usage model** is given in its ``schedframe.io/usage`` annotation (JSON), or with the
``usage`` field of a scenario workload (which sets that annotation on the template):

* ``{"fraction": 0.6}``: 60% of its requests (CPU and memory); ``{"fraction": {"cpu": 0.8,
  "memory": 0.5}}`` per resource;
* ``{"cpu": "500m", "memory": "1Gi"}``: a constant;
* ``{"series": [{"at": 0, "cpu": "200m"}, {"at": "5m", "fraction": 0.9}], "repeat": "10m"}``: a
  step function of the time since the pod was bound, each point a fraction or a constant; before
  the first point the first applies, after the last the last (or, with ``repeat``, the series
  starts over every ``repeat``).

A pod without a model uses what it requests. A resource a constant or a point does not name uses
nothing.

The **simulated metrics provider** (:class:`SimulatedMetricsProvider`) answers as load-watcher
would: for every node, the average and standard deviation of its CPU and memory utilisation (used
over capacity, in percent) over the window ending now (default 5 minutes), sampled every
:data:`SAMPLE_STEP` seconds, counting each running pod from the time it was bound; pods that
left during the window are not counted. A simulation puts it among the scheduler's objects as a
:class:`~schedframe.plugins.sigs.NodeMetricsSource`, so every Trimaran plugin and Peaks reads it
(their ``metricProvider`` / ``watcherAddress`` args are replaced, with a warning).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final, final

import attrs

from ..api.objects import CPU, MEMORY, Node, Pod
from ..api.quantity import Quantity
from ..errors import QuantityError, ScenarioError
from ..plugins.sigs import Metric, MetricsProvider, NodeMetricsSource, StaticMetricsProvider, WatcherMetrics
from ..plugins.sigs._load import AVERAGE, STD
from ..plugins.sigs._load import CPU as CPU_METRIC
from ..plugins.sigs._load import MEMORY as MEMORY_METRIC

__all__ = [
    "DEFAULT_WINDOW",
    "SAMPLE_STEP",
    "USAGE_ANNOTATION",
    "SimulatedMetricsProvider",
    "UsageModel",
    "UsagePoint",
    "parse_usage",
    "usage_of",
]

#: The annotation holding a pod's usage model (JSON).
USAGE_ANNOTATION: Final = "schedframe.io/usage"
#: The default metrics window, in seconds (load-watcher reports 5, 10 and 15 minute windows).
DEFAULT_WINDOW: Final = 300.0
#: How often, in simulated seconds, the provider samples usage within the window.
SAMPLE_STEP: Final = 15.0
_POINT_KEYS: Final = ("at", "fraction", "cpu", "memory")


@final
@attrs.frozen
class UsagePoint:
    """A usage level: a fraction of the requests per resource, or a constant (millicores, bytes).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.sim"

    cpu_fraction: float | None = None
    memory_fraction: float | None = None
    cpu: int = 0
    memory: int = 0

    def at(self, requests: tuple[int, int]) -> tuple[float, float]:
        """(CPU millicores, memory bytes) used by a pod requesting *requests*."""
        cpu = requests[0] * self.cpu_fraction if self.cpu_fraction is not None else float(self.cpu)
        mem = requests[1] * self.memory_fraction if self.memory_fraction is not None else float(self.memory)
        return cpu, mem


@final
@attrs.frozen
class UsageModel:
    """A pod's usage over time: ``points`` as (seconds since binding, level), in time order;
    ``repeat``: the period after which the series starts over (``None``: holds the last).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.sim"

    points: tuple[tuple[float, UsagePoint], ...]
    repeat: float | None = None

    def at(self, requests: tuple[int, int], elapsed: float) -> tuple[float, float]:
        """(CPU millicores, memory bytes) used *elapsed* seconds after binding."""
        if self.repeat:
            elapsed = math.fmod(max(elapsed, 0.0), self.repeat)
        level = self.points[0][1]
        for t, p in self.points:
            if t > elapsed:
                break
            level = p
        return level.at(requests)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (the annotation's)."""
        if len(self.points) == 1 and not self.repeat:
            return _point_dict(self.points[0][1])
        out: dict[str, Any] = {"series": [{"at": t, **_point_dict(p)} for t, p in self.points]}
        if self.repeat:
            out["repeat"] = self.repeat
        return out


def _point_dict(p: UsagePoint) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if p.cpu_fraction is not None or p.memory_fraction is not None:
        if p.cpu_fraction == p.memory_fraction:
            out["fraction"] = p.cpu_fraction
        else:
            out["fraction"] = {k: v for k, v in (("cpu", p.cpu_fraction), ("memory", p.memory_fraction))
                               if v is not None}
    if p.cpu_fraction is None:
        out["cpu"] = Quantity.from_milli(p.cpu).text
    if p.memory_fraction is None:
        out["memory"] = str(p.memory)
    return out


def _seconds(value: Any, path: str, source: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value < 0:
        raise ScenarioError(source, path, f"want seconds (a number >= 0), got {value!r}")
    return float(value)


def _fraction(value: Any, path: str, source: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value < 0:
        raise ScenarioError(source, path, f"want a fraction (a number >= 0), got {value!r}")
    return float(value)


def _quantity(value: Any, path: str, source: str, milli: bool) -> int:
    try:
        q = Quantity.parse(value)
    except (QuantityError, TypeError, ValueError) as exc:
        raise ScenarioError(source, path, f"want a quantity, got {value!r}: {exc}") from None
    v = q.milli_value() if milli else q.value()
    if v < 0:
        raise ScenarioError(source, path, f"must not be negative, got {value!r}")
    return v


def _point(m: Any, path: str, source: str, keys: tuple[str, ...]) -> UsagePoint:
    if not isinstance(m, Mapping):
        raise ScenarioError(source, path, f"want a mapping, got {type(m).__name__}")
    for k in m:
        if k not in keys:
            raise ScenarioError(source, f"{path}.{k}", f"unknown field (known: {', '.join(keys)})")
    cf = mf = None
    if "fraction" in m:
        f = m["fraction"]
        if isinstance(f, Mapping):
            for k in f:
                if k not in ("cpu", "memory"):
                    raise ScenarioError(source, f"{path}.fraction.{k}",
                                        "unknown resource (known: cpu, memory)")
            cf = None if "cpu" not in f else _fraction(f["cpu"], f"{path}.fraction.cpu", source)
            mf = None if "memory" not in f else _fraction(f["memory"], f"{path}.fraction.memory", source)
        else:
            cf = mf = _fraction(f, f"{path}.fraction", source)
    cpu = 0 if "cpu" not in m else _quantity(m["cpu"], f"{path}.cpu", source, milli=True)
    mem = 0 if "memory" not in m else _quantity(m["memory"], f"{path}.memory", source, milli=False)
    if (cf is not None and "cpu" in m) or (mf is not None and "memory" in m):
        raise ScenarioError(source, path, "give a resource as a fraction or as a quantity, not both")
    if not m:
        raise ScenarioError(source, path, "want a fraction, a cpu or a memory")
    return UsagePoint(cf, mf, cpu, mem)


def parse_usage(raw: Any, path: str = "usage", source: str = "",
                seconds: Callable[[Any, str], float] | None = None) -> UsageModel:
    """A usage model from its mapping (or its JSON text, as in the annotation); raises
    :class:`~schedframe.ScenarioError` naming *path*. *seconds* reads a time (default: a number
    of seconds; a scenario passes its reader of Go-style durations)."""
    def secs(v: Any, p: str) -> float:
        return seconds(v, p) if seconds is not None else _seconds(v, p, source)

    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError as exc:
            raise ScenarioError(source, path, f"invalid JSON: {exc}") from None
    if not isinstance(raw, Mapping):
        raise ScenarioError(source, path, f"want a mapping, got {type(raw).__name__}")
    repeat = None if raw.get("repeat") is None else secs(raw["repeat"], f"{path}.repeat")
    if "series" not in raw:
        if repeat is not None:
            raise ScenarioError(source, f"{path}.repeat", "only a series repeats")
        return UsageModel(((0.0, _point(raw, path, source, ("fraction", "cpu", "memory"))),))
    for k in raw:
        if k not in ("series", "repeat"):
            raise ScenarioError(source, f"{path}.{k}", "unknown field beside series (known: series, repeat)")
    series = raw["series"]
    if not isinstance(series, list) or not series:
        raise ScenarioError(source, f"{path}.series", "want a non-empty list of points")
    points: list[tuple[float, UsagePoint]] = []
    for i, item in enumerate(series):
        p = f"{path}.series[{i}]"
        if not isinstance(item, Mapping):
            raise ScenarioError(source, p, f"want a mapping, got {type(item).__name__}")
        t = secs(item.get("at", 0), f"{p}.at")
        if points and t < points[-1][0]:
            raise ScenarioError(source, f"{p}.at",
                                f"points must be in time order ({t:g} < {points[-1][0]:g})")
        points.append((t, _point({k: v for k, v in item.items() if k != "at"}, p, source,
                                 ("fraction", "cpu", "memory"))))
    if repeat is not None and repeat <= 0:
        raise ScenarioError(source, f"{path}.repeat", f"must be > 0, got {repeat:g}")
    return UsageModel(tuple(points), repeat)


_ALL_REQUESTS: Final = UsageModel(((0.0, UsagePoint(1.0, 1.0)),))


def _requests(pod: Pod) -> tuple[int, int]:
    r = pod.requests
    return r.milli_cpu, r.memory


@final
class _ModelCache:
    __slots__ = ("_by_text",)

    def __init__(self) -> None:
        self._by_text: dict[str, UsageModel] = {}

    def model(self, pod: Pod) -> UsageModel:
        text = pod.annotations.get(USAGE_ANNOTATION)
        if text is None:
            return _ALL_REQUESTS
        m = self._by_text.get(text)
        if m is None:
            m = parse_usage(text, f"{pod.key}: metadata.annotations[{USAGE_ANNOTATION}]")
            self._by_text[text] = m
        return m


def usage_of(pod: Pod, elapsed: float) -> tuple[float, float]:
    """What *pod* uses *elapsed* seconds after its binding: (CPU millicores, memory bytes)."""
    return _MODELS.model(pod).at(_requests(pod), elapsed)


_MODELS: Final = _ModelCache()


def _capacity(node: Node) -> tuple[int, int]:
    cap = node.capacity
    cpu = cap[CPU].milli_value() if CPU in cap else node.allocatable_resources.milli_cpu
    mem = cap[MEMORY].value() if MEMORY in cap else node.allocatable_resources.memory
    return cpu, mem


@final
class SimulatedMetricsProvider:
    """Node metrics computed from the running pods' usage models (see :doc:`/load-aware`):
    *now* gives the time, *nodes* the nodes by name, *running* each node's running pods with the
    time each was bound; *window* is in seconds.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.sim"
    __slots__ = ("_nodes", "_now", "_running", "window")

    def __init__(self, now: Callable[[], float], nodes: Callable[[], Mapping[str, Node]],
                 running: Callable[[], Iterable[tuple[str, Iterable[tuple[Pod, float]]]]], *,
                 window: float = DEFAULT_WINDOW) -> None:
        self._now = now
        self._nodes = nodes
        self._running = running
        self.window = window

    def node_usage(self, pods: Iterable[tuple[Pod, float]], t: float) -> tuple[float, float]:
        """The CPU millicores and memory bytes *pods* (with their binding times) use at *t*."""
        cpu = mem = 0.0
        for pod, bound in pods:
            if bound <= t:
                c, m = usage_of(pod, t - bound)
                cpu += c
                mem += m
        return cpu, mem

    def watcher_metrics(self) -> WatcherMetrics:
        """Average and standard deviation of every node's CPU and memory utilisation over the
        window ending now."""
        now = self._now()
        start = max(0.0, now - self.window)
        steps = max(1, int((now - start) // SAMPLE_STEP))
        times = [now - i * SAMPLE_STEP for i in range(steps + 1) if now - i * SAMPLE_STEP >= start]
        nodes = self._nodes()
        out: dict[str, tuple[Metric, ...]] = {
            name: _metrics([], [], *_capacity(n)) for name, n in nodes.items()}
        for name, pods in self._running():
            node = nodes.get(name)
            if node is None:
                continue
            plist = list(pods)
            cap_cpu, cap_mem = _capacity(node)
            series = [self.node_usage(plist, t) for t in times]
            out[name] = _metrics([c for c, _ in series], [m for _, m in series], cap_cpu, cap_mem)
        return WatcherMetrics(out, int(start), int(now), f"{self.window:g}s", int(now),
                              "schedframe simulation")

    def source(self) -> NodeMetricsSource:
        """This provider as the source object the plugins find among the scheduler's objects."""
        return NodeMetricsSource(self, name="simulation")


def _stats(values: list[float], cap: int) -> tuple[float, float]:
    if not values or cap <= 0:
        return 0.0, 0.0
    pct = [100.0 * v / cap for v in values]
    mean = sum(pct) / len(pct)
    var = sum((x - mean) ** 2 for x in pct) / len(pct)
    return mean, math.sqrt(var)


def _metrics(cpu: list[float], mem: list[float], cap_cpu: int, cap_mem: int) -> tuple[Metric, ...]:
    ca, cs = _stats(cpu, cap_cpu) if cpu else (0.0, 0.0)
    ma, ms = _stats(mem, cap_mem) if mem else (0.0, 0.0)
    return (Metric(CPU_METRIC, AVERAGE, ca), Metric(CPU_METRIC, STD, cs),
            Metric(MEMORY_METRIC, AVERAGE, ma), Metric(MEMORY_METRIC, STD, ms))


@final
class SimLoad:
    """A simulation's load: its :class:`SimulatedMetricsProvider` (over the simulation's clock,
    nodes and running pods) and the usage columns of its samples. *sim* is the engine's run
    (``clock``, ``node_objs``, ``on_node``, ``recs``); *active*: whether samples carry usage."""

    __slots__ = ("active", "provider", "sim", "simulated")

    def __init__(self, sim: Any, window: float | None, active: bool, metrics: WatcherMetrics | None = None
                 ) -> None:
        self.sim = sim
        self.active = active
        self.simulated = SimulatedMetricsProvider(sim.clock.now, lambda: sim.node_objs, self._running,
                                                  window=window if window is not None else DEFAULT_WINDOW)
        self.provider: MetricsProvider = self.simulated
        if metrics is not None:  # given with the cluster: they describe time 0
            span = metrics.window_end - metrics.window_start
            self.provider = StaticMetricsProvider(attrs.evolve(
                metrics, window_start=-span, window_end=0, timestamp=0))

    def source(self) -> NodeMetricsSource:
        """The source object the plugins find among the scheduler's objects."""
        return NodeMetricsSource(self.provider, name="simulation")

    def _pods_on(self, name: str) -> list[tuple[Pod, float]]:
        recs = self.sim.recs
        out = []
        for uid in self.sim.on_node.get(name, ()):
            rec = recs.get(uid)
            if rec is not None:
                out.append((rec.pod, rec.bound_at if rec.bound_at is not None else 0.0))
        return out

    def _running(self) -> Iterable[tuple[str, Iterable[tuple[Pod, float]]]]:
        return [(name, self._pods_on(name)) for name in list(self.sim.on_node)]

    def used(self, t: float) -> dict[str, float]:
        """The usage columns of the sample at *t* (empty when not active)."""
        if not self.active:
            return {}
        nodes = self.sim.node_objs
        tot_cpu = tot_mem = alloc_cpu = alloc_mem = 0.0
        busy: list[float] = []
        for name, node in nodes.items():
            alloc = node.allocatable_resources
            alloc_cpu += alloc.milli_cpu
            alloc_mem += alloc.memory
            pods = self._pods_on(name)
            if not pods:
                continue
            cpu, mem = self.simulated.node_usage(pods, t)
            tot_cpu += cpu
            tot_mem += mem
            cap = _capacity(node)[0]
            if cap > 0:
                busy.append(cpu / cap)
        out = {"cpu": tot_cpu / alloc_cpu if alloc_cpu else 0.0,
               "memory": tot_mem / alloc_mem if alloc_mem else 0.0, "busy_nodes": float(len(busy))}
        if busy:
            out.update(cpu_busy_mean=sum(busy) / len(busy), cpu_busy_min=min(busy), cpu_busy_max=max(busy))
        return out


def models_usage(pods: Iterable[Pod]) -> bool:
    """Whether any of *pods* carries a usage model; an invalid one raises
    :class:`~schedframe.ScenarioError` naming the pod, before the run starts."""
    found = False
    for p in pods:
        if USAGE_ANNOTATION in p.annotations:
            _MODELS.model(p)
            found = True
    return found


def load_record(plan: Any) -> dict[str, Any]:
    """The event log header's ``load`` entry (nothing when the plan sets no window or metrics)."""
    out: dict[str, Any] = {}
    if plan.load_window is not None:
        out["window"] = plan.load_window
    if plan.load_metrics is not None:
        out["metrics"] = plan.load_metrics.to_dict()
    return {"load": out} if out else {}


def read_load_record(rec: Mapping[str, Any], fail: Callable[[str, str], Exception]
                     ) -> tuple[float | None, WatcherMetrics | None]:
    """The (window, metrics) of an event log header's ``load`` entry."""
    raw = rec.get("load")
    if raw is None:
        return None, None
    if not isinstance(raw, Mapping):
        raise fail("load", f"want a mapping, got {type(raw).__name__}")
    window = raw.get("window")
    if window is not None and (isinstance(window, bool) or not isinstance(window, (int, float))
                               or window <= 0):
        raise fail("load.window", f"want a number of seconds > 0, got {window!r}")
    metrics = None
    if raw.get("metrics") is not None:
        try:
            metrics = WatcherMetrics.from_dict(raw["metrics"], source="load.metrics")
        except ValueError as exc:
            raise fail("load.metrics", str(exc)) from None
    return (None if window is None else float(window)), metrics
