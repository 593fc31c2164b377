"""Fake plugins for framework and scheduler tests (upstream ``testing/framework/fake_plugins.go``).

Every fake is a plain plugin instance with a configurable ``name`` that records its calls in
``calls``. Register instances with :func:`register_fake` / :func:`fake_registry`, or build a whole
framework with :func:`make_framework`::

    fw = make_framework(filter=[TrueFilter(), FakeFilter(failed={"n2": Code.UNSCHEDULABLE})])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, final

import attrs

from ..api.objects import Pod
from ..cache.nodeinfo import NodeInfo
from ..framework.cycle_state import CycleState
from ..framework.handle import Handle
from ..framework.interfaces import (
    NodeScore,
    NodeToStatus,
    Plugin,
    PostFilterResult,
    PreFilterExtensions,
    PreFilterResult,
    QueuedPodInfo,
    ScoreExtensions,
)
from ..framework.registry import PluginFactory, Registry
from ..framework.runtime import EXTENSION_POINT_METHODS, Framework
from ..framework.status import Code, Status

__all__ = [
    "FAKE_REASON",
    "FakeBind",
    "FakeFilter",
    "FakePermit",
    "FakePostBind",
    "FakePostFilter",
    "FakePreBind",
    "FakePreEnqueue",
    "FakePreFilter",
    "FakePreScore",
    "FakeProfile",
    "FakeQueueSort",
    "FakeReserve",
    "FakeScore",
    "FalseFilter",
    "TrueFilter",
    "fake_factory",
    "fake_registry",
    "make_framework",
    "register_fake",
]

#: The reason fake filters reject with (upstream ``ErrReasonFake``).
FAKE_REASON: Final = "Nodes failed the fake plugin"


class _Fake:
    """Common part: a name and a call log."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.calls: list[tuple[Any, ...]] = []

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


@final
class TrueFilter(_Fake):
    """A Filter plugin that accepts every node."""

    def __init__(self, name: str = "TrueFilter") -> None:
        super().__init__(name)

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Accept."""
        self.calls.append(("filter", pod.name, node_info.name))
        return None


@final
class FalseFilter(_Fake):
    """A Filter plugin that rejects every node with *code* (default ``UNSCHEDULABLE``)."""

    def __init__(self, name: str = "FalseFilter", code: Code = Code.UNSCHEDULABLE) -> None:
        super().__init__(name)
        self._status = Status(code, (FAKE_REASON,))

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Reject."""
        self.calls.append(("filter", pod.name, node_info.name))
        return self._status


@final
class FakeFilter(_Fake):
    """A Filter plugin rejecting the nodes in *failed* with the code given there; *raises*
    (node name -> exception) makes it raise instead."""

    def __init__(self, failed: Mapping[str, Code] | None = None, name: str = "FakeFilter", *,
                 raises: Mapping[str, BaseException] | None = None) -> None:
        super().__init__(name)
        self.failed = dict(failed or {})
        self.raises = dict(raises or {})

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Reject (or raise) on configured nodes."""
        self.calls.append(("filter", pod.name, node_info.name))
        exc = self.raises.get(node_info.name)
        if exc is not None:
            raise exc
        code = self.failed.get(node_info.name)
        if code is None or code is Code.SUCCESS:
            return None
        return Status(code, (FAKE_REASON,))


@final
class FakePreFilter(_Fake):
    """A PreFilter plugin returning ``(result, status)`` (or raising *raises*)."""

    def __init__(self, result: PreFilterResult | None = None, status: Status | None = None,
                 name: str = "FakePreFilter", *, extensions: PreFilterExtensions | None = None,
                 raises: BaseException | None = None) -> None:
        super().__init__(name)
        self.result = result
        self.status = status
        self.extensions = extensions
        self.raises = raises

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        """Return the configured result and status."""
        self.calls.append(("pre_filter", pod.name, len(nodes)))
        if self.raises is not None:
            raise self.raises
        return self.result, self.status

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        """The configured extensions."""
        return self.extensions


@final
class FakePostFilter(_Fake):
    """A PostFilter plugin returning ``(result, status)``."""

    def __init__(self, result: PostFilterResult | None = None, status: Status | None = None,
                 name: str = "FakePostFilter", *, raises: BaseException | None = None) -> None:
        super().__init__(name)
        self.result = result
        self.status = status
        self.raises = raises

    def post_filter(self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
                    ) -> tuple[PostFilterResult | None, Status | None]:
        """Return the configured result and status."""
        self.calls.append(("post_filter", pod.name))
        if self.raises is not None:
            raise self.raises
        return self.result, self.status


@final
class FakePreScore(_Fake):
    """A PreScore plugin returning *status*."""

    def __init__(self, status: Status | None = None, name: str = "FakePreScore", *,
                 raises: BaseException | None = None) -> None:
        super().__init__(name)
        self.status = status
        self.raises = raises

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """Return the configured status."""
        self.calls.append(("pre_score", pod.name, len(nodes)))
        if self.raises is not None:
            raise self.raises
        return self.status


@final
class _Normalizer:
    def __init__(self, owner: FakeScore) -> None:
        self._owner = owner

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        owner = self._owner
        owner.calls.append(("normalize_score", pod.name))
        assert owner.normalize is not None
        return owner.normalize(scores)


@final
class FakeScore(_Fake):
    """A Score plugin giving ``scores[node]`` (default *default*) to each node.

    *normalize*, if given, is called with the score list (to rewrite in place) and its return
    value is the NormalizeScore status. *status* is returned with every score.
    """

    def __init__(self, scores: Mapping[str, int] | None = None, name: str = "FakeScore", *,
                 default: int = 0, status: Status | None = None,
                 normalize: Callable[[list[NodeScore]], Status | None] | None = None,
                 raises: BaseException | None = None) -> None:
        super().__init__(name)
        self.scores = dict(scores or {})
        self.default = default
        self.status = status
        self.normalize = normalize
        self.raises = raises

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The configured score of the node."""
        self.calls.append(("score", pod.name, node_info.name))
        if self.raises is not None:
            raise self.raises
        return self.scores.get(node_info.name, self.default), self.status

    def score_extensions(self) -> ScoreExtensions | None:
        """A normalizer when *normalize* was given."""
        return _Normalizer(self) if self.normalize is not None else None


@final
class FakeReserve(_Fake):
    """A Reserve plugin returning *status* from ``reserve``; records ``unreserve`` calls (and
    raises *unreserve_raises* there, if set)."""

    def __init__(self, status: Status | None = None, name: str = "FakeReserve", *,
                 raises: BaseException | None = None,
                 unreserve_raises: BaseException | None = None) -> None:
        super().__init__(name)
        self.status = status
        self.raises = raises
        self.unreserve_raises = unreserve_raises

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Return the configured status."""
        self.calls.append(("reserve", pod.name, node_name))
        if self.raises is not None:
            raise self.raises
        return self.status

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Record the call."""
        self.calls.append(("unreserve", pod.name, node_name))
        if self.unreserve_raises is not None:
            raise self.unreserve_raises


@final
class FakePermit(_Fake):
    """A Permit plugin returning ``(status, timeout)``."""

    def __init__(self, status: Status | None = None, timeout: float = 0.0, name: str = "FakePermit", *,
                 raises: BaseException | None = None) -> None:
        super().__init__(name)
        self.status = status
        self.timeout = timeout
        self.raises = raises

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        """Return the configured status and timeout."""
        self.calls.append(("permit", pod.name, node_name))
        if self.raises is not None:
            raise self.raises
        return self.status, self.timeout


@final
class FakePreBind(_Fake):
    """A PreBind plugin returning *status*."""

    def __init__(self, status: Status | None = None, name: str = "FakePreBind", *,
                 raises: BaseException | None = None) -> None:
        super().__init__(name)
        self.status = status
        self.raises = raises

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Return the configured status."""
        self.calls.append(("pre_bind", pod.name, node_name))
        if self.raises is not None:
            raise self.raises
        return self.status


@final
class FakeBind(_Fake):
    """A Bind plugin returning *status*; successful binds are recorded in ``binds`` as
    ``(pod key, node name)``."""

    def __init__(self, status: Status | None = None, name: str = "FakeBind", *,
                 raises: BaseException | None = None) -> None:
        super().__init__(name)
        self.status = status
        self.raises = raises
        self.binds: list[tuple[str, str]] = []

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Record the bind and return the configured status."""
        self.calls.append(("bind", pod.name, node_name))
        if self.raises is not None:
            raise self.raises
        if self.status is None or self.status.is_success():
            self.binds.append((pod.key, node_name))
        return self.status


@final
class FakePostBind(_Fake):
    """A PostBind plugin recording its calls (and raising *raises*, if set)."""

    def __init__(self, name: str = "FakePostBind", *, raises: BaseException | None = None) -> None:
        super().__init__(name)
        self.raises = raises

    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Record the call."""
        self.calls.append(("post_bind", pod.name, node_name))
        if self.raises is not None:
            raise self.raises


@final
class FakePreEnqueue(_Fake):
    """A PreEnqueue plugin returning *status*."""

    def __init__(self, status: Status | None = None, name: str = "FakePreEnqueue") -> None:
        super().__init__(name)
        self.status = status

    def pre_enqueue(self, pod: Pod) -> Status | None:
        """Return the configured status."""
        self.calls.append(("pre_enqueue", pod.name))
        return self.status


@final
class FakeQueueSort(_Fake):
    """A QueueSort plugin: higher priority first, then earlier timestamp (like PrioritySort)."""

    def __init__(self, name: str = "FakeQueueSort") -> None:
        super().__init__(name)

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """Order by priority (descending), then timestamp."""
        pa, pb = a.pod.effective_priority, b.pod.effective_priority
        return pa > pb or (pa == pb and a.timestamp < b.timestamp)


# -- registration -------------------------------------------------------------------------------

def fake_factory(plugin: Plugin) -> PluginFactory:
    """A factory returning *plugin* itself (args and handle are ignored)."""

    def new(args: Any, handle: Handle) -> Plugin:
        return plugin

    return new


def register_fake(registry: Registry, plugin: Plugin) -> Plugin:
    """Register *plugin* under its name in *registry*; returns the plugin."""
    registry.register(plugin.name, fake_factory(plugin))
    return plugin


def fake_registry(*plugins: Plugin, base: Registry | None = None) -> Registry:
    """A new registry holding *plugins* (plus a copy of *base*'s entries)."""
    registry = Registry()
    if base is not None:
        registry.merge(base)
    for p in plugins:
        register_fake(registry, p)
    return registry


@attrs.frozen
class _Ref:
    name: str
    weight: int = 0


@final
@attrs.frozen
class FakeProfile:
    """A minimal profile for :class:`~schedframe.Framework` (same attributes as
    :class:`~schedframe.config.Profile`)."""

    plugins: Mapping[str, tuple[_Ref, ...]] = attrs.field(factory=dict)
    plugin_args: Mapping[str, Any] = attrs.field(factory=dict)
    scheduler_name: str = "default-scheduler"
    percentage_of_nodes_to_score: int | None = None
    #: the ``schedframe.ReleaseProfile`` plugins read through their handle; ``None``: the newest
    release: Any = None

    def plugins_at(self, point: str) -> tuple[_Ref, ...]:
        """The enabled plugins at *point*."""
        return tuple(self.plugins.get(point, ()))


PluginSpec = Plugin | tuple[Plugin, int]


def make_framework(*, registry: Registry | None = None, scheduler_name: str = "default-scheduler",
                   percentage_of_nodes_to_score: int | None = None,
                   plugin_args: Mapping[str, Any] | None = None,
                   framework_kwargs: Mapping[str, Any] | None = None,
                   **points: Iterable[PluginSpec | str]) -> Framework:
    """Build a :class:`~schedframe.Framework` from plugin instances per extension point.

    Keyword arguments are extension points in snake case (``pre_filter=[...]``, ``score=[(p, 2)]``
    for a weight) or in config spelling via ``**{"preFilter": [...]}``; items are plugin instances
    (registered through :func:`register_fake`), ``(plugin, weight)`` pairs, or names of plugins
    already in *registry*. ``queue_sort`` defaults to :class:`FakeQueueSort` and ``bind`` to
    :class:`FakeBind` when not given (and no ``multi_point`` is). *framework_kwargs* go to
    :class:`~schedframe.Framework` (``clock=``, ``nominator=``, ...).
    """
    reg = Registry()
    if registry is not None:
        reg.merge(registry)
    plugins: dict[str, tuple[_Ref, ...]] = {}
    config_names = {_snake(p): p for p in EXTENSION_POINT_METHODS}
    config_names["multi_point"] = "multiPoint"
    for key, items in points.items():
        point = config_names.get(key, key)
        refs: list[_Ref] = []
        for item in items:
            if isinstance(item, str):
                refs.append(_Ref(item))
                continue
            plugin, weight = item if isinstance(item, tuple) else (item, 0)
            if plugin.name not in reg:
                register_fake(reg, plugin)
            refs.append(_Ref(plugin.name, weight))
        plugins[point] = tuple(refs)
    for point, default in (("queueSort", FakeQueueSort), ("bind", FakeBind)):
        if point not in plugins and "multiPoint" not in plugins:
            plugin = default()
            if plugin.name not in reg:
                register_fake(reg, plugin)
            plugins[point] = (_Ref(plugin.name),)
    profile = FakeProfile(plugins, dict(plugin_args or {}), scheduler_name, percentage_of_nodes_to_score)
    return Framework(reg, profile, **dict(framework_kwargs or {}))


def _snake(point: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in point)


if TYPE_CHECKING:
    from ..framework.interfaces import (
        BindPlugin,
        FilterPlugin,
        PermitPlugin,
        PostBindPlugin,
        PostFilterPlugin,
        PreBindPlugin,
        PreEnqueuePlugin,
        PreFilterPlugin,
        PreScorePlugin,
        QueueSortPlugin,
        ReservePlugin,
        ScorePlugin,
    )

    _f1: FilterPlugin = TrueFilter()
    _f2: FilterPlugin = FalseFilter()
    _f3: FilterPlugin = FakeFilter()
    _pf: PreFilterPlugin = FakePreFilter()
    _pof: PostFilterPlugin = FakePostFilter()
    _ps: PreScorePlugin = FakePreScore()
    _s: ScorePlugin = FakeScore()
    _r: ReservePlugin = FakeReserve()
    _p: PermitPlugin = FakePermit()
    _pb: PreBindPlugin = FakePreBind()
    _b: BindPlugin = FakeBind()
    _pob: PostBindPlugin = FakePostBind()
    _pe: PreEnqueuePlugin = FakePreEnqueue()
    _qs: QueueSortPlugin = FakeQueueSort()


for _cls in (TrueFilter, FalseFilter, FakeFilter, FakePreFilter, FakePostFilter, FakePreScore, FakeScore,
             FakeReserve, FakePermit, FakePreBind, FakeBind, FakePostBind, FakePreEnqueue, FakeQueueSort,
             FakeProfile):
    _cls.__module__ = "schedframe.testing"
del _cls
