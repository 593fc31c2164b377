"""The load model the Trimaran plugins and Peaks read: node metrics in load-watcher's
``WatcherMetrics`` shape (paypal/load-watcher v0.2.4, the version scheduler-plugins v0.34.7
uses), the providers that supply them, the plugins' common ``TrimaranSpec`` args, and the two
pieces of ``pkg/trimaran`` every plugin shares: the collector (metrics refreshed every 30 s) and
the cache of pods assigned since the last metrics update; and :class:`TrimaranScorer`, the base of
the three Trimaran Score plugins.

**The seam.** A plugin finds its metrics in this order:

1. a :class:`NodeMetricsSource` among the framework handle's objects (``handle.objects``): a
   simulation adds one (its simulated provider, computing node load from the pods' usage models);
   tests and embedders add their own (for example a :class:`StaticMetricsProvider` from
   :func:`load_metrics_file`). When the plugin's args name a live source (``watcherAddress``, or a
   ``metricProvider`` of type Prometheus or SignalFx), the source object is used instead and a
   :class:`~schedframe.SchedframeWarning` says so;
2. ``watcherAddress``: the load-watcher service, ``GET <address>/watcher`` through
   :class:`LoadWatcherClient` (standard library ``urllib``, with a timeout);
3. otherwise (``metricProvider`` alone: upstream then embeds load-watcher as a library talking to
   the metrics server, Prometheus or SignalFx itself, which schedframe does not do): no metrics,
   with a warning; every node then scores the minimum, as upstream does when metrics are missing.

No global state: each plugin instance has its own collector and assigned-pods cache.
"""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.request
import warnings
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeVar, final, runtime_checkable

import attrs

from ..._textio import parse_data, read_text
from ...api.objects import CPU as CPU_RESOURCE
from ...api.objects import MEMORY as MEMORY_RESOURCE
from ...api.objects import Pod
from ...cache.nodeinfo import NodeInfo
from ...errors import SchedframeError, SchedframeWarning, bounded_repr, bounded_text
from .._helpers import WithArgs

if TYPE_CHECKING:
    from typing_extensions import Self

    from ...framework.cycle_state import CycleState
    from ...framework.handle import Handle
    from ...framework.interfaces import NodeScore
    from ...framework.status import Status

__all__ = [
    "AVERAGE",
    "CPU",
    "KUBERNETES_METRICS_SERVER",
    "LATEST",
    "MEMORY",
    "METRIC_PROVIDER_TYPES",
    "PROMETHEUS",
    "SIGNALFX",
    "STD",
    "AssignedPodsCache",
    "Collector",
    "LoadMetricsError",
    "LoadWatcherClient",
    "Metric",
    "MetricsProvider",
    "NodeMetricsSource",
    "StaticMetricsProvider",
    "TrimaranScorer",
    "TrimaranSpec",
    "WatcherMetrics",
    "load_metrics_file",
]

A = TypeVar("A")

#: load-watcher metric types and operators.
CPU: Final = "CPU"
MEMORY: Final = "Memory"
AVERAGE: Final = "AVG"
STD: Final = "STD"
LATEST: Final = "Latest"
#: ``metricProvider.type`` values (scheduler-plugins ``MetricProviderType``).
KUBERNETES_METRICS_SERVER: Final = "KubernetesMetricsServer"
PROMETHEUS: Final = "Prometheus"
SIGNALFX: Final = "SignalFx"
METRIC_PROVIDER_TYPES: Final = (KUBERNETES_METRICS_SERVER, PROMETHEUS, SIGNALFX)
#: load-watcher's API path.
WATCHER_PATH: Final = "/watcher"
#: upstream ``metricsUpdateIntervalSeconds``: the collector refreshes its metrics this often.
METRICS_UPDATE_INTERVAL: Final = 30.0
#: upstream ``metricsAgentReportingIntervalSeconds``: a pod assigned less than this before the
#: metrics window's end is not yet in the metrics.
METRICS_AGENT_REPORTING_INTERVAL: Final = 60
#: load-watcher's HTTP client timeout (``httpClientTimeoutSeconds``).
DEFAULT_TIMEOUT: Final = 55.0
#: The largest load-watcher answer or metrics file schedframe reads.
MAX_METRICS_BYTES: Final = 64 << 20


class LoadMetricsError(SchedframeError, ValueError):
    """Node metrics could not be fetched or decoded (the message names the source and field).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"


def _metric_text(_: Any, attribute: Any, value: Any) -> None:
    if not isinstance(value, str):
        raise LoadMetricsError(f"Metric: {attribute.name}: want a string, got {bounded_repr(value)}")


def _metric_value(value: Any) -> float:
    return _num(value, "value", "Metric")


@final
@attrs.frozen
class Metric:
    """One load-watcher ``Metric``: ``type`` (``CPU``, ``Memory``), ``operator`` (``AVG``,
    ``STD``, ``Latest``) and ``value`` (a utilisation percentage).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"

    type: str = attrs.field(validator=_metric_text)
    operator: str = attrs.field(validator=_metric_text)
    #: A finite number (built in Python or read, a NaN or an infinity is a LoadMetricsError).
    value: float = attrs.field(converter=_metric_value)
    name: str = attrs.field(default="", validator=_metric_text)
    rollup: str = attrs.field(default="", validator=_metric_text)


def _num(value: Any, path: str, source: str) -> float:
    """A finite number: load-watcher's values are float64s, and NaN or an infinity would make
    every Trimaran Score of the node fail (JSON has neither; Python's reader accepts both)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise LoadMetricsError(f"{source}: {path}: want a number, got {bounded_repr(value)}")
    try:
        number = float(value)
    except OverflowError:  # an int beyond any float64
        number = math.inf
    if not math.isfinite(number):
        raise LoadMetricsError(f"{source}: {path}: want a finite number, got {_shown_number(value)}")
    return number


#: Times (``timestamp``, ``window.start``, ``window.end``) are int64 Unix seconds upstream.
_TIME_LIMIT: Final = 2**63


def _time(value: Any, path: str, source: str) -> int:
    number = _num(value, path, source)
    if not -_TIME_LIMIT <= number < _TIME_LIMIT:
        raise LoadMetricsError(f"{source}: {path}: want seconds in an int64, got {_shown_number(value)}")
    return int(number)


def _shown_number(value: Any) -> str:
    if isinstance(value, int) and value.bit_length() > 64:
        return f"an integer of {value.bit_length()} bits"
    return bounded_repr(value)


def _mapping(value: Any, path: str, source: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise LoadMetricsError(f"{source}: {path}: want a mapping, got {type(value).__name__}")
    return value


def _window_start(value: Any) -> int:
    return _time(value, "window_start", "WatcherMetrics")


def _window_end(value: Any) -> int:
    return _time(value, "window_end", "WatcherMetrics")


def _timestamp(value: Any) -> int:
    return _time(value, "timestamp", "WatcherMetrics")


def _field_text(_: Any, attribute: Any, value: Any) -> None:
    if not isinstance(value, str):
        raise LoadMetricsError(f"WatcherMetrics: {attribute.name}: want a string, got {bounded_repr(value)}")


def _nodes(value: Any) -> Mapping[str, tuple[Metric, ...]]:
    """WatcherMetrics.nodes built in Python: node names to sequences of :class:`Metric`."""
    m = _mapping(value, "nodes", "WatcherMetrics")
    out: dict[str, tuple[Metric, ...]] = {}
    for node, metrics in m.items():
        path = f"nodes[{bounded_repr(node)}]"
        if not isinstance(node, str):
            raise LoadMetricsError(f"WatcherMetrics: {path}: want a node name (a string)")
        if isinstance(metrics, (str, bytes, Mapping)) or not isinstance(metrics, Iterable):
            raise LoadMetricsError(f"WatcherMetrics: {path}: want a sequence of Metric, "
                                   f"got {type(metrics).__name__}")
        items = tuple(metrics)
        for i, item in enumerate(items):
            if not isinstance(item, Metric):
                raise LoadMetricsError(f"WatcherMetrics: {path}[{i}]: want a Metric, "
                                       f"got {type(item).__name__}")
        out[node] = items
    return out


@final
@attrs.frozen
class WatcherMetrics:
    """load-watcher's ``WatcherMetrics``: the metrics of every node over one window.

    JSON shape (what ``GET /watcher`` answers, and the metrics file format)::

        {"timestamp": 1700000000, "source": "Prometheus",
         "window": {"duration": "15m", "start": 1699999100, "end": 1700000000},
         "data": {"NodeMetricsMap": {"node-1": {"metrics": [
             {"type": "CPU", "operator": "AVG", "value": 42.5},
             {"type": "CPU", "operator": "STD", "value": 8.1},
             {"type": "Memory", "operator": "AVG", "value": 30}]}}}}

    Times are seconds (load-watcher: Unix seconds; a simulation: simulated seconds).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"

    nodes: Mapping[str, tuple[Metric, ...]] = attrs.field(factory=dict, converter=_nodes)
    window_start: int = attrs.field(default=0, converter=_window_start)
    window_end: int = attrs.field(default=0, converter=_window_end)
    window_duration: str = attrs.field(default="", validator=_field_text)
    timestamp: int = attrs.field(default=0, converter=_timestamp)
    source: str = attrs.field(default="", validator=_field_text)

    @classmethod
    def from_dict(cls, data: Any, *, source: str = "the metrics") -> Self:
        """Decode the JSON shape above; raises :class:`LoadMetricsError` naming the field.
        Unknown fields are ignored, as load-watcher's decoder does."""
        m = _mapping(data, "(top level)", source)
        window = _mapping(m.get("window") or {}, "window", source)
        nodes: dict[str, tuple[Metric, ...]] = {}
        nmap = _mapping(_mapping(m.get("data") or {}, "data", source).get("NodeMetricsMap") or {},
                        "data.NodeMetricsMap", source)
        for node, entry in nmap.items():
            path = f"data.NodeMetricsMap.{bounded_text(str(node))}"
            metrics: list[Metric] = []
            raw = _mapping(entry, path, source).get("metrics") or []
            if not isinstance(raw, list):
                raise LoadMetricsError(f"{source}: {path}.metrics: want a list, got {type(raw).__name__}")
            for i, item in enumerate(raw):
                mp = f"{path}.metrics[{i}]"
                it = _mapping(item, mp, source)
                for key in ("type", "operator", "name", "rollup"):
                    if not isinstance(it.get(key, ""), str):
                        raise LoadMetricsError(
                            f"{source}: {mp}.{key}: want a string, got {bounded_repr(it[key])}")
                metrics.append(Metric(it.get("type", ""), it.get("operator", ""),
                                      _num(it.get("value", 0), f"{mp}.value", source),
                                      it.get("name", ""), it.get("rollup", "")))
            nodes[str(node)] = tuple(metrics)
        duration = window.get("duration", "")
        src = m.get("source", "")
        return cls(nodes, _time(window.get("start", 0), "window.start", source),
                   _time(window.get("end", 0), "window.end", source),
                   duration if isinstance(duration, str) else bounded_text(str(duration), 256),
                   _time(m.get("timestamp", 0), "timestamp", source),
                   src if isinstance(src, str) else bounded_text(str(src), 256))

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape above."""
        return {
            "timestamp": self.timestamp,
            "window": {"duration": self.window_duration, "start": self.window_start, "end": self.window_end},
            "source": self.source,
            "data": {"NodeMetricsMap": {
                n: {"metrics": [{"name": x.name, "type": x.type, "operator": x.operator,
                                 "rollup": x.rollup, "value": x.value} for x in ms]}
                for n, ms in self.nodes.items()}},
        }


@runtime_checkable
class MetricsProvider(Protocol):
    """Anything that can give the latest :class:`WatcherMetrics` (may raise
    :class:`LoadMetricsError`).

    .. versionadded:: 0.1.0
    """

    def watcher_metrics(self) -> WatcherMetrics: ...


@final
@attrs.frozen
class NodeMetricsSource:
    """The seam between a metrics provider and the load-aware plugins: put one among the
    scheduler's objects (``Scheduler(objects=[...])``, ``PluginHarness(objects=[...])``) and every
    Trimaran plugin and Peaks reads its metrics from *provider*.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"

    provider: MetricsProvider
    name: str = "metrics"
    namespace: str = ""


@final
class StaticMetricsProvider:
    """Fixed metrics (a metrics file, or metrics built in code).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"
    __slots__ = ("metrics",)

    def __init__(self, metrics: WatcherMetrics | Mapping[str, Any]) -> None:
        self.metrics = metrics if isinstance(metrics, WatcherMetrics) else WatcherMetrics.from_dict(metrics)

    def watcher_metrics(self) -> WatcherMetrics:
        """The fixed metrics."""
        return self.metrics


def load_metrics_file(path: str) -> StaticMetricsProvider:
    """Read a metrics file (JSON or YAML, the :class:`WatcherMetrics` shape), as given with a
    cluster dump; raises :class:`LoadMetricsError` naming the file and field."""

    def error(message: str) -> LoadMetricsError:
        return LoadMetricsError(message)

    text = read_text(path, max_bytes=MAX_METRICS_BYTES, what="the node metrics", error=error)
    return StaticMetricsProvider(WatcherMetrics.from_dict(parse_data(text, source=path, error=error),
                                                          source=path))


@final
class LoadWatcherClient:
    """load-watcher's service client: ``GET <address>/watcher``, JSON answer.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"
    __slots__ = ("address", "timeout")

    def __init__(self, address: str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.address = address
        self.timeout = timeout

    def watcher_metrics(self) -> WatcherMetrics:
        """Fetch the latest metrics; raises :class:`LoadMetricsError` (unreachable, timeout,
        a status other than 200, invalid JSON)."""
        url = self.address.rstrip("/") + WATCHER_PATH
        if not url.startswith(("http://", "https://")):
            raise LoadMetricsError(f"load-watcher {self.address!r}: want an http:// or https:// address")
        req = urllib.request.Request(url, headers={"Content-Type": "application/json"}, method="GET")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                body = resp.read(MAX_METRICS_BYTES + 1)
        except urllib.error.HTTPError as exc:
            raise LoadMetricsError(
                f"load-watcher {url}: received status code {exc.code} from watcher") from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise LoadMetricsError(f"load-watcher {url}: {reason}") from None
        if len(body) > MAX_METRICS_BYTES:
            raise LoadMetricsError(f"load-watcher {url}: answer larger than {MAX_METRICS_BYTES} bytes")
        try:
            data = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise LoadMetricsError(f"load-watcher {url}: unable to decode watcher metrics: {exc}") from None
        return WatcherMetrics.from_dict(data, source=f"load-watcher {url}")


# -- args -----------------------------------------------------------------------------------------

@final
@attrs.frozen(kw_only=True)
class MetricProviderSpec:
    """upstream ``MetricProviderSpec``: the metrics provider a Trimaran plugin's args name.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"

    type: str = ""
    address: str = ""
    token: str = ""
    insecure_skip_verify: bool | None = None


@final
@attrs.frozen(kw_only=True)
class TrimaranSpec:
    """The Trimaran plugins' common args (``TrimaranSpec``, inline in each plugin's args):
    ``metricProvider`` (``type``, ``address``, ``token``, ``insecureSkipVerify``) and
    ``watcherAddress``. :meth:`defaulted` applies upstream's ``SetDefaultTrimaranSpec``: without
    ``watcherAddress`` and a type, the type is ``KubernetesMetricsServer``; a Prometheus provider
    skips TLS verification unless told.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"

    metric_provider: MetricProviderSpec = attrs.field(factory=MetricProviderSpec)
    watcher_address: str | None = None

    def defaulted(self) -> TrimaranSpec:
        """The spec with upstream's ``SetDefaultTrimaranSpec`` applied."""
        mp = self.metric_provider
        if self.watcher_address is None and not mp.type:  # upstream: a nil WatcherAddress
            mp = attrs.evolve(mp, type=KUBERNETES_METRICS_SERVER)
        if mp.type == PROMETHEUS and mp.insecure_skip_verify is None:
            mp = attrs.evolve(mp, insecure_skip_verify=True)
        return self if mp is self.metric_provider else attrs.evolve(self, metric_provider=mp)

    @property
    def metric_provider_type(self) -> str:
        """``metricProvider.type``."""
        return self.metric_provider.type

    def errors(self) -> list[str]:
        """Upstream ``checkSpecs``: without a watcher address, a known provider type."""
        if not self.watcher_address and self.metric_provider.type not in METRIC_PROVIDER_TYPES:
            return [f"invalid MetricProvider.Type, got {self.metric_provider.type}"]
        return []

    def describe(self) -> str:
        """The live source these args name, in words."""
        if self.watcher_address:
            return f"watcherAddress {self.watcher_address}"
        address = self.metric_provider.address
        where = f" at {address}" if address else ""
        return f"metricProvider {self.metric_provider.type}{where}"


# -- the collector and the assigned-pods cache ----------------------------------------------------


def _sources(handle: Handle) -> list[NodeMetricsSource]:
    try:
        return list(handle.objects.list(NodeMetricsSource))
    except Exception:
        return []


@final
class Collector:
    """upstream ``trimaran.Collector``: the latest metrics, refreshed every
    ``METRICS_UPDATE_INTERVAL`` (30) seconds of the handle's clock. A failed refresh keeps the
    previous metrics (upstream logs and goes on) and warns once.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"
    __slots__ = ("_fetched_at", "_handle", "_metrics", "_plugin", "_provider", "_resolved", "_spec",
                 "_warned")

    def __init__(self, plugin: str, spec: TrimaranSpec, handle: Handle) -> None:
        self._plugin = plugin
        self._spec = spec
        self._handle = handle
        self._provider: MetricsProvider | None = None
        self._resolved = False
        self._metrics: WatcherMetrics | None = None
        self._fetched_at: float | None = None
        self._warned = False

    @property
    def provider(self) -> MetricsProvider | None:
        """The provider in use (``None``: no metrics)."""
        self._resolve()
        return self._provider

    def _resolve(self) -> None:
        if self._resolved:
            return
        self._resolved = True
        spec = self._spec
        sources = _sources(self._handle)
        if sources:
            self._provider = sources[0].provider
            live = spec.watcher_address or spec.metric_provider_type != KUBERNETES_METRICS_SERVER
            if live:
                warnings.warn(f"{self._plugin}: the args name {spec.describe()}; using the node metrics "
                              f"source {sources[0].name!r} given to the scheduler instead",
                              SchedframeWarning, stacklevel=2)
        elif spec.watcher_address:
            self._provider = LoadWatcherClient(spec.watcher_address)
        else:
            warnings.warn(f"{self._plugin}: {spec.describe()} is read by load-watcher embedded in "
                          f"kube-scheduler, which schedframe does not do; give a watcherAddress or a "
                          f"NodeMetricsSource object: without metrics every node scores the minimum",
                          SchedframeWarning, stacklevel=2)

    def metrics(self) -> WatcherMetrics | None:
        """The current metrics (refreshed when due); ``None`` when none could be had."""
        self._resolve()
        if self._provider is None:
            return None
        now = self._handle.clock.now()
        if self._fetched_at is None or now - self._fetched_at >= METRICS_UPDATE_INTERVAL:
            self._fetched_at = now
            try:
                self._metrics = self._provider.watcher_metrics()
            except LoadMetricsError as exc:
                if not self._warned:
                    self._warned = True
                    warnings.warn(f"{self._plugin}: unable to update metrics: {exc}", SchedframeWarning,
                                  stacklevel=2)
        return self._metrics

    def node_metrics(self, node_name: str) -> tuple[tuple[Metric, ...] | None, WatcherMetrics | None]:
        """upstream ``GetNodeMetrics``: the node's metrics and all metrics; ``(None, None)``
        without metrics, ``(None, all)`` for a node the metrics lack."""
        all_metrics = self.metrics()
        if all_metrics is None or not all_metrics.nodes:
            return None, None
        return all_metrics.nodes.get(node_name), all_metrics


class _HasSpec(Protocol):
    @property
    def spec(self) -> TrimaranSpec: ...


S = TypeVar("S", bound=_HasSpec)


class TrimaranScorer(WithArgs[S]):
    """What the Trimaran Score plugins (TargetLoadPacking, LoadVariationRiskBalancing,
    LowRiskOverCommitment) share: their effective args (with a ``TrimaranSpec`` as ``spec``), a
    :class:`Collector` of the metrics named after the plugin, and a NormalizeScore that does
    nothing, as upstream."""

    __slots__ = ("_args", "_collector")

    def __init__(self, name: str, args: S, handle: Handle) -> None:
        self._args = args
        self._collector = Collector(name, args.spec, handle)

    @property
    def collector(self) -> Collector:
        """The metrics collector."""
        return self._collector

    def score_extensions(self) -> Self:
        """NormalizeScore does nothing, as upstream."""
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """Nothing to do."""
        return None


@final
class AssignedPodsCache:
    """upstream ``PodAssignEventHandler``: when each pod was assigned to its node, so that the pods
    assigned after (or shortly before) the metrics window's end can be added to stale metrics.

    Upstream's informer stamps a pod when it sees it bound. Here the cache looks at the node's
    pods when the plugin scores the node: a pod first seen then is stamped with the clock's time;
    the pods on the nodes when the cache first looks are stamped as old (already in the metrics);
    pods no longer on the node are dropped (upstream's delete handler).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"
    __slots__ = ("_handle", "_nodes", "_started")

    def __init__(self, handle: Handle) -> None:
        self._handle = handle
        self._nodes: dict[str, dict[str, tuple[float, Pod]]] = {}
        self._started = False

    def _start(self) -> None:
        self._started = True
        try:
            infos = self._handle.snapshot_shared_lister().node_infos().list()
        except Exception:
            return
        for ni in infos:
            self._nodes[ni.name] = {pi.pod.uid: (-math.inf, pi.pod) for pi in ni.pods}

    def recent(self, node_info: NodeInfo, window_end: int) -> list[Pod]:
        """The node's pods assigned after *window_end*, or less than
        ``METRICS_AGENT_REPORTING_INTERVAL`` (60) seconds before it."""
        if not self._started:
            self._start()
        now = self._handle.clock.now()
        old = self._nodes.get(node_info.name, {})
        cur: dict[str, tuple[float, Pod]] = {}
        for pi in node_info.pods:
            uid = pi.pod.uid
            seen = old.get(uid)
            cur[uid] = (seen[0], pi.pod) if seen is not None else (now, pi.pod)
        self._nodes[node_info.name] = cur
        out = []
        for ts, pod in cur.values():
            if ts == -math.inf:
                continue
            sec = math.floor(ts)
            if sec > window_end or window_end - sec < METRICS_AGENT_REPORTING_INTERVAL:
                out.append(pod)
        return out


# -- resources as pkg/trimaran reads them ---------------------------------------------------------


def go_round(x: float) -> int:
    """Go's ``math.Round``: half away from zero."""
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


def effective_resource(pod: Pod, limits: bool) -> tuple[int, int]:
    """upstream ``GetEffectiveResource`` for CPU (millicores) and memory (bytes): the containers'
    requests (or limits) summed, each init container's taken as a floor, the overhead added."""
    cpu = mem = 0
    for c in pod.containers:
        rl = c.limits if limits else c.requests
        if CPU_RESOURCE in rl:
            cpu += rl[CPU_RESOURCE].milli_value()
        if MEMORY_RESOURCE in rl:
            mem += rl[MEMORY_RESOURCE].value()
    for c in pod.init_containers:
        rl = c.limits if limits else c.requests
        if CPU_RESOURCE in rl:
            cpu = max(cpu, rl[CPU_RESOURCE].milli_value())
        if MEMORY_RESOURCE in rl:
            mem = max(mem, rl[MEMORY_RESOURCE].value())
    if pod.overhead:
        if CPU_RESOURCE in pod.overhead:
            cpu += pod.overhead[CPU_RESOURCE].milli_value()
        if MEMORY_RESOURCE in pod.overhead:
            mem += pod.overhead[MEMORY_RESOURCE].value()
    return cpu, mem


def resource_data(metrics: Iterable[Metric], resource_type: str) -> tuple[float, float, bool]:
    """upstream ``GetResourceData``: (average, standard deviation, found) of *resource_type*."""
    avg = std = 0.0
    avg_found = valid = False
    for m in metrics:
        if m.type != resource_type:
            continue
        if m.operator == AVERAGE:
            avg = m.value
            avg_found = True
        elif m.operator == STD:
            std = m.value
        elif m.operator in ("", LATEST) and not avg_found:
            avg = m.value
        valid = True
    return avg, std, valid


def node_cpu_capacity(node_info: NodeInfo) -> int:
    """The node's ``status.capacity`` CPU in millicores (allocatable when the Node object gives no
    capacity)."""
    node = node_info.node
    if node is not None and CPU_RESOURCE in node.capacity:
        return node.capacity[CPU_RESOURCE].milli_value()
    return node_info.allocatable.milli_cpu


