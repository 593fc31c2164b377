"""``Framework``: instantiates a profile's plugins and runs each extension point with
kube-scheduler's runtime semantics (upstream ``pkg/scheduler/framework/runtime/framework.go``).

Error statuses
--------------
A plugin never breaks the scheduler: an exception raised by a plugin, or a status a point does not
accept (e.g. ``WAIT`` from Filter), becomes an ``ERROR`` :class:`~schedframe.Status` whose
``plugin`` is the plugin's name, whose ``error`` is the exception (if any) and whose message is::

    running <Point> plugin "<name>": <detail>

where ``<detail>`` is ``"<ExceptionType>: <message>"`` for an exception and the status message
otherwise (e.g. ``running Filter plugin "Foo": ValueError: boom``). Score keeps upstream's
wording: ``running Score plugins: plugin "Foo" failed with: <detail>``,
``running Normalize on Score plugins: plugin "Foo" failed with: <detail>`` and
``applying score defaultWeights on Score plugins: plugin "Foo" returns an invalid score 101, it
should in the range of [0, 100] after normalizing``. The PreFilter extensions use
``running AddPod on PreFilter plugin "Foo": <detail>`` (and ``RemovePod``).
Exceptions from Unreserve and PostBind, which cannot fail, are logged as warnings on the
``schedframe`` logger.
"""

from __future__ import annotations

import logging
import math
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import compress, repeat
from typing import TYPE_CHECKING, Any, Final, final

from ..api.objects import Pod
from ..cache.nodeinfo import NodeInfo, PodInfo
from ..cache.store import ObjectStore
from ..errors import ConfigurationError
from ._build import EXTENSION_POINT_METHODS, PluginRefLike, ProfileLike, build_plugins
from ._collaborators import (
    DEFAULT_MAX_EVENTS,
    InMemoryEventRecorder,
    RecordedEvent,
    _EmptySnapshot,
    _NoClient,
    _NoNominator,
)
from ._filtering import (
    _BatchFilters,
    _filter_outcome,
    _filter_run,
    _FilterNodesFn,
    _filters_whole_runs,
    _not_status,
    _plugin_error,
    _status_error,
    _wrong_type,
    adapt_filter,
)
from ._helpers import _bound, _check_args, _optional_method, _rotated, _traced, _Wrap
from ._scoring import (
    _batch_scores,
    _check_range,
    _detail,
    _normalize,
    _normalize_ints,
    _status_detail,
    scores_in_range,
)
from .clock import Clock, RealClock
from .cycle_state import CycleState
from .diagnosis import pre_filter_result_rejection
from .events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource
from .extender import Extender
from .handle import Client, EventRecorder, Nominator, ObjectLister, SharedLister, _HandleAccessors
from .interfaces import (
    MAX_PERMIT_TIMEOUT,
    NodePluginScores,
    NodeToStatus,
    NominatingMode,
    Plugin,
    PluginScore,
    PostFilterResult,
    PreFilterExtensions,
    PreFilterResult,
    QueuedPodInfo,
    ScoreExtensions,
    StatefulPlugin,
    WaitingPod,
)
from .registry import Registry
from .releases import release_of
from .status import Code, Status
from .waiting_pods import WaitingPodEntry, WaitingPods

__all__ = [
    "DEFAULT_MAX_EVENTS",
    "EXTENSION_POINT_METHODS",
    "Framework",
    "InMemoryEventRecorder",
    "PluginRefLike",
    "ProfileLike",
    "RecordedEvent",
]

logger = logging.getLogger("schedframe")

_SUCCESS: Final = Code.SUCCESS
_OK: Final = Status.OK
_EMPTY: Final[frozenset[str]] = frozenset()
_add: Final = operator.add
_mul: Final = operator.mul
#: the most nodes handed to a ``filter_nodes`` call at once
_MAX_FILTER_CHUNK: Final = 1024

# Upstream gives EnqueueExtensions to plugins at these points only.
_ENQUEUE_POINTS: Final = ("preEnqueue", "preFilter", "filter", "reserve", "permit")
_ALL_EVENTS: Final = (ClusterEventWithHint(ClusterEvent(EventResource.WILDCARD, ActionType.ALL)),)


_PreEnqueueFn = Callable[[Pod], "Status | None"]
_PreFilterFn = Callable[[CycleState, Pod, Sequence[NodeInfo]], "tuple[PreFilterResult | None, Status | None]"]
_FilterFn = Callable[[CycleState, Pod, NodeInfo], "Status | None"]
_Filters = tuple[tuple[str, _FilterFn], ...]
_PostFilterFn = Callable[[CycleState, Pod, NodeToStatus], "tuple[PostFilterResult | None, Status | None]"]
_PreScoreFn = Callable[[CycleState, Pod, Sequence[NodeInfo]], "Status | None"]
_ScoreFn = Callable[[CycleState, Pod, NodeInfo], "tuple[int, Status | None]"]
_BatchScoreFn = Callable[[CycleState, Pod, Sequence[NodeInfo]], "list[int] | Status"]
_NormalizeIntsFn = Callable[[CycleState, Pod, Sequence[NodeInfo], "list[int]"], "list[int] | Status"]
_ScorePlugins = tuple[tuple[str, _ScoreFn, "ScoreExtensions | None", int, "_BatchScoreFn | None",
                            "_NormalizeIntsFn | None", bool], ...]
_NodeFn = Callable[[CycleState, Pod, str], "Status | None"]
_UnreserveFn = Callable[[CycleState, Pod, str], None]
_PermitFn = Callable[[CycleState, Pod, str], "tuple[Status | None, float]"]


@final
class Framework(_HandleAccessors):
    """The plugins of one profile and the runtime of every extension point; implements
    :class:`~schedframe.Handle` for those plugins.

    Args:
        registry: plugin name -> factory (and args type).
        profile: the effective profile (``plugins`` per extension point, in run order;
            ``plugin_args`` per plugin name). A ``"multiPoint"`` entry, if present, is expanded to
            every point each of its plugins implements, as upstream does.
        objects: cluster objects other than nodes and pods (default: an empty
            :class:`~schedframe.cache.ObjectStore`).
        clock: time source (default: the wall clock).
        client: API side effects (default: one that raises :class:`~schedframe.SchedulerError`).
        event_recorder: default :class:`~schedframe.framework.InMemoryEventRecorder`.
        nominator: nominated pods (default: none).
        pod_activator: called by :meth:`activate`.
        waiting_pods: the map of pods waiting at Permit, shared between profiles.
        parallelism: kept for plugins that ask (schedframe runs plugins on one thread).
        snapshot: the initial snapshot (default: empty; see :meth:`set_snapshot`).
        pod_lister: lists the pods of a namespace (every namespace for ``None``), pending and
            bound, as the scheduler's pod informer would; what :meth:`list_pods` calls (also
            settable later as :attr:`pod_lister`). Default: none (the pods cannot be listed).
        _tracing: the Scheduler's tracing (internal); with its ``plugin_spans``, every plugin call
            but PreEnqueue's and QueueSort's runs in a span of its own (:mod:`._tracing`).

    Attributes:
        pod_lister: see the argument.

    Raises:
        ConfigurationError: unknown plugins, a plugin enabled at a point it does not implement,
            not exactly one QueueSort or no Bind plugin, a factory or args decoding failing.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    def __init__(self, registry: Registry, profile: ProfileLike, *, objects: ObjectLister | None = None,
                 clock: Clock | None = None, client: Client | None = None,
                 event_recorder: EventRecorder | None = None, nominator: Nominator | None = None,
                 pod_activator: Callable[[Sequence[Pod]], None] | None = None,
                 waiting_pods: WaitingPods | None = None, parallelism: int = 16,
                 snapshot: SharedLister | None = None,
                 pod_lister: Callable[[str | None], Sequence[Pod]] | None = None,
                 _fallbacks: Mapping[str, Plugin] | None = None, _tracing: _Tracing | None = None) -> None:
        self.profile = profile
        self.profile_name: str = profile.scheduler_name
        self.percentage_of_nodes_to_score: int | None = profile.percentage_of_nodes_to_score
        self.parallelism = parallelism
        self._objects: ObjectLister = objects if objects is not None else ObjectStore()
        self._clock: Clock = clock if clock is not None else RealClock()
        self._client: Client = client if client is not None else _NoClient()
        self._event_recorder: EventRecorder = (
            event_recorder if event_recorder is not None else InMemoryEventRecorder()
        )
        self._nominator: Nominator = nominator if nominator is not None else _NoNominator()
        self._pod_activator = pod_activator
        self._waiting_pods = waiting_pods if waiting_pods is not None else WaitingPods()
        self._snapshot: SharedLister = snapshot if snapshot is not None else _EmptySnapshot()
        self.pod_lister: Callable[[str | None], Sequence[Pod]] | None = pod_lister
        #: whether the scheduler's cache holds a pod as assumed (set by the scheduler)
        self.pod_assumed: Callable[[Pod], bool] | None = None

        self._plugins: dict[str, Plugin]
        self._points: dict[str, list[Plugin]]
        self._weights: dict[str, int]
        self._plugins, self._points, self._weights = build_plugins(registry, profile, self, _fallbacks or {})
        self._prepare(None if _tracing is None else _tracing.plugin_wrapper())

    # -- construction ---------------------------------------------------------------------------

    def _prepare(self, wrap: _Wrap | None) -> None:
        """Precompute bound methods per point (the run loops then do no attribute lookups), each
        through *wrap* (per-plugin spans) when given."""
        pts = self._points
        self._pre_enqueue: tuple[tuple[str, _PreEnqueueFn], ...] = _bound(pts["preEnqueue"], "pre_enqueue")
        self._less: Callable[[QueuedPodInfo, QueuedPodInfo], bool] = pts["queueSort"][0].less  # type: ignore[attr-defined]
        self._pre_filter: tuple[tuple[str, _PreFilterFn], ...] = _bound(pts["preFilter"], "pre_filter", wrap)
        exts: list[tuple[str, PreFilterExtensions]] = []
        for p in pts["preFilter"]:
            ext = self._extensions(p, "pre_filter_extensions")
            if ext is not None:
                exts.append((p.name, ext))
        self._pre_filter_exts: tuple[tuple[str, PreFilterExtensions], ...] = tuple(exts)
        self._filter: _Filters = _bound(pts["filter"], "filter", wrap)
        self._filter_cache: tuple[frozenset[str] | set[str], _Filters] = (_EMPTY, self._filter)
        self._filter_by_skip: dict[frozenset[str], _Filters] = {_EMPTY: self._filter}
        #: every Filter plugin's ``filter_nodes`` (BatchFilterPlugin), a per-node ``filter``
        #: adapted where it has none
        self._filter_nodes: dict[str, tuple[_FilterNodesFn, bool, bool]] = {}
        for (name, filter_fn), p in zip(self._filter, pts["filter"]):
            fn = _optional_method(p, "filter_nodes", wrap, name)
            if fn is not None:
                self._filter_nodes[name] = (fn, _filters_whole_runs(p), False)
            else:
                self._filter_nodes[name] = (adapt_filter(name, filter_fn), False, True)
        #: the last active Filter plugins and their filter_nodes (None: some plugin has none)
        self._batch_filter_cache: tuple[_Filters, _BatchFilters | None] = ((), None)
        self._post_filter: tuple[tuple[str, _PostFilterFn], ...] = _bound(pts["postFilter"], "post_filter",
                                                                          wrap)
        self._pre_score: tuple[tuple[str, _PreScoreFn], ...] = _bound(pts["preScore"], "pre_score", wrap)
        score: list[tuple[str, _ScoreFn, ScoreExtensions | None, int, _BatchScoreFn | None,
                          _NormalizeIntsFn | None, bool]] = []
        for (name, score_fn), p in zip(_bound(pts["score"], "score", wrap), pts["score"]):
            ext = self._extensions(p, "score_extensions")
            score.append((name, score_fn, ext, self._weights[name],
                          _optional_method(p, "score_nodes", wrap, name),
                          None if ext is None else _optional_method(ext, "normalize_score_ints"),
                          not scores_in_range(p)))
        #: per Score plugin: name, score, its extensions, weight, the optional batch methods
        #: ``score_nodes`` / ``normalize_score_ints`` (used instead of the per-node ones), and
        #: whether its scores are range-checked (see ``_scoring.scores_in_range``)
        self._score: _ScorePlugins = tuple(score)
        self._reserve: tuple[tuple[str, _NodeFn, _UnreserveFn], ...] = tuple(
            (name, fn, un) for (name, fn), (_n, un) in zip(_bound(pts["reserve"], "reserve", wrap),
                                                          _bound(pts["reserve"], "unreserve", wrap))
        )
        self._permit: tuple[tuple[str, _PermitFn], ...] = _bound(pts["permit"], "permit", wrap)
        self._pre_bind: tuple[tuple[str, _NodeFn], ...] = _bound(pts["preBind"], "pre_bind", wrap)
        self._bind: tuple[tuple[str, _NodeFn], ...] = _bound(pts["bind"], "bind", wrap)
        self._post_bind: tuple[tuple[str, _UnreserveFn], ...] = _bound(pts["postBind"], "post_bind", wrap)

    def _extensions(self, plugin: Plugin, method: str) -> Any:
        fn = getattr(plugin, method, None)
        if fn is None:
            return None
        try:
            return fn()
        except Exception as exc:
            raise ConfigurationError(
                f"profile {self.profile_name!r}: plugin {plugin.name!r}: {method}() raised {_detail(exc)}"
            ) from exc

    # -- introspection --------------------------------------------------------------------------
    def plugins_at(self, point: str) -> list[str]:
        """Names of the plugins run at *point* (config spelling, e.g. ``"filter"``), in order."""
        try:
            return [p.name for p in self._points[point]]
        except KeyError:
            raise ConfigurationError(
                f"unknown extension point {point!r}; known: {list(EXTENSION_POINT_METHODS)}"
            ) from None

    def list_plugins(self) -> dict[str, list[str]]:
        """Every extension point with the names of its plugins (empty points omitted)."""
        return {point: [p.name for p in ps] for point, ps in self._points.items() if ps}

    def score_weight(self, name: str) -> int:
        """The weight of score plugin *name* (KeyError if it is not a score plugin)."""
        return self._weights[name]

    def stateful_plugins(self) -> list[StatefulPlugin]:
        """The plugin instances implementing :class:`~schedframe.framework.StatefulPlugin`."""
        found: list[StatefulPlugin] | None = getattr(self, "_stateful", None)
        if found is None:  # the plugins never change: look once
            found = self._stateful = [p for p in self._plugins.values() if isinstance(p, StatefulPlugin)]
        return list(found)

    def get_plugin(self, name: str) -> Plugin | None:
        """The plugin instance named *name*, or ``None``."""
        return self._plugins.get(name)

    def has_filter_plugins(self) -> bool:
        """True when at least one Filter plugin is enabled."""
        return bool(self._filter)

    def has_score_plugins(self) -> bool:
        """True when at least one Score plugin is enabled."""
        return bool(self._score)

    def has_post_filter_plugins(self) -> bool:
        """True when at least one PostFilter plugin is enabled."""
        return bool(self._post_filter)

    def queue_sort_less(self) -> Callable[[QueuedPodInfo, QueuedPodInfo], bool]:
        """The QueueSort plugin's ``less``."""
        return self._less

    def pre_enqueue_plugin_names(self) -> list[str]:
        """Names of the PreEnqueue plugins."""
        return [n for n, _ in self._pre_enqueue]

    def enqueue_extensions(self) -> dict[str, Sequence[ClusterEventWithHint]]:
        """Plugin name -> the cluster events that may make pods it rejected schedulable.

        As upstream, only PreEnqueue, PreFilter, Filter, Reserve and Permit plugins count; one
        without ``events_to_register`` gets every event.
        """
        out: dict[str, Sequence[ClusterEventWithHint]] = {}
        for point in _ENQUEUE_POINTS:
            for p in self._points[point]:
                if p.name in out:
                    continue
                fn = getattr(p, "events_to_register", None)
                if fn is None:
                    out[p.name] = _ALL_EVENTS
                    continue
                try:
                    out[p.name] = tuple(fn())
                except Exception as exc:
                    raise ConfigurationError(
                        f"plugin {p.name!r}: events_to_register() raised {_detail(exc)}"
                    ) from exc
        return out

    # -- Handle ---------------------------------------------------------------------------------
    def set_snapshot(self, snapshot: SharedLister) -> None:
        """Use *snapshot* for the coming cycle (the scheduler calls this every cycle)."""
        self._snapshot = snapshot

    def set_nominator(self, nominator: Nominator) -> None:
        """Replace the nominator (the scheduler wires its queue in)."""
        self._nominator = nominator

    def set_pod_activator(self, activator: Callable[[Sequence[Pod]], None] | None) -> None:
        """Replace the callback behind :meth:`activate`."""
        self._pod_activator = activator

    def activate(self, pods: Sequence[Pod]) -> None:
        """Ask the queue to move *pods* to activeQ (no-op without a pod activator)."""
        if self._pod_activator is not None and pods:
            self._pod_activator(pods)

    @property
    def waiting_pods(self) -> WaitingPods:
        """The map of pods waiting at Permit."""
        return self._waiting_pods

    def iterate_over_waiting_pods(self, callback: Callable[[WaitingPod], None]) -> None:
        """Call *callback* for every pod waiting at Permit."""
        self._waiting_pods.iterate(callback)

    def get_waiting_pod(self, uid: str) -> WaitingPod | None:
        """The waiting pod with *uid*, or ``None``."""
        return self._waiting_pods.get(uid)

    def reject_waiting_pod(self, uid: str) -> bool:
        """Reject the waiting pod with *uid* (message ``"removed"``); False if not waiting."""
        wp = self._waiting_pods.get(uid)
        if wp is None:
            return False
        wp.reject("", "removed")
        return True

    # -- scheduler extenders (set by the scheduler; upstream Handle.Extenders) ---------------
    _extenders: tuple[Extender, ...] = ()

    def list_pods(self, namespace: str | None = None) -> Sequence[Pod] | None:
        """The pods of *namespace* (every namespace for ``None``), pending and bound, through
        :attr:`pod_lister`; ``None`` when no lister is set (the pods cannot be listed)."""
        lister = self.pod_lister
        return None if lister is None else lister(namespace)

    def is_pod_assumed(self, pod: Pod) -> bool:
        """Whether the scheduler's cache holds *pod* as assumed (placed, not bound yet: upstream's
        pod group state counts it as scheduled); ``False`` without a scheduler."""
        check = self.pod_assumed
        return check is not None and check(pod)

    def extenders(self) -> Sequence[Extender]:
        """The scheduler's extenders, in call order (none unless the scheduler set them)."""
        return self._extenders

    def set_extenders(self, extenders: Iterable[Extender]) -> None:
        """Give the plugins the scheduler's *extenders* (``Handle.extenders()``)."""
        self._extenders = tuple(extenders)

    # -- PreEnqueue -----------------------------------------------------------------------------
    def run_pre_enqueue_plugins(self, pod: Pod) -> Status:
        """Run PreEnqueue plugins; the first non-success status (with its plugin) gates the pod."""
        _check_args("run_pre_enqueue_plugins", pod=pod)
        for name, fn in self._pre_enqueue:
            try:
                status = fn(pod)
            except Exception as exc:
                return _plugin_error("PreEnqueue", name, exc)
            if _not_status(status):
                return _wrong_type("PreEnqueue", name, status)
            if status is not None and status.code is not _SUCCESS:
                return status.with_plugin(name)
        return _OK

    # -- PreFilter ------------------------------------------------------------------------------
    def run_pre_filter_plugins(
        self, state: CycleState, pod: Pod, *,
        trace: Callable[[str, Status | None, PreFilterResult | None], None] | None = None,
    ) -> tuple[PreFilterResult | None, Status, set[str]]:
        """Run PreFilter plugins (upstream ``RunPreFilterPlugins``).

        Returns ``(result, status, rejectors)``: *result* is the intersection of the plugins'
        :class:`~schedframe.PreFilterResult` (``None``: all nodes); *status* is success, the rejection, or
        ERROR; *rejectors* names the plugins that rejected the pod or narrowed the nodes (the
        queue's "unschedulable plugins"). Plugins returning SKIP go to
        ``state.skip_filter_plugins`` (their Filter and PreFilter extensions are not run).

        *trace*, when given, is called once per plugin run, in order, with the plugin's name, its
        own outcome -- ``None`` on success, else its SKIP status, its rejection (``plugin`` set)
        or the ERROR made of what it raised or returned -- and, on success, the
        :class:`~schedframe.PreFilterResult` it returned (or ``None``). :func:`~schedframe.explain` records
        PreFilter with it.
        """
        _check_args("run_pre_filter_plugins", state, pod)
        skip: set[str] = set()
        try:
            return self._pre_filter_loop(state, pod, skip, trace)
        finally:
            state.skip_filter_plugins = frozenset(skip) if skip else _EMPTY

    def _pre_filter_loop(self, state: CycleState, pod: Pod, skip: set[str],
                         trace: Callable[[str, Status | None, PreFilterResult | None], None] | None
                         ) -> tuple[PreFilterResult | None, Status, set[str]]:
        if not self._pre_filter:
            return None, _OK, set()
        nodes = self._snapshot.node_infos().list()
        result: PreFilterResult | None = None
        with_nodes: set[str] = set()
        return_status = _OK
        for name, fn in self._pre_filter:
            try:
                r, s = fn(state, pod, nodes)
            except Exception as exc:
                return None, _traced(trace, name, _plugin_error("PreFilter", name, exc)), set()
            if _not_status(s):
                return None, _traced(trace, name, _wrong_type("PreFilter", name, s)), set()
            if _not_status(r, PreFilterResult):
                wrong = _wrong_type("PreFilter", name, r, "a PreFilterResult or None")
                return None, _traced(trace, name, wrong), set()
            if s is not None and s.code is not _SUCCESS:
                code = s.code
                if code is Code.SKIP:
                    skip.add(name)
                    if trace is not None:
                        trace(name, s, None)
                    continue
                if code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                    return None, _traced(trace, name, s.with_plugin(name)), {name}
                if code is Code.UNSCHEDULABLE:
                    return_status = _traced(trace, name, s.with_plugin(name))
                    continue
                return None, _traced(trace, name, _status_error("PreFilter", name, s)), set()
            if trace is not None:
                trace(name, None, r)
            if r is None or r.node_names is None:
                continue
            with_nodes.add(name)
            result = r if result is None else result.merge(r)
            if not result.node_names:
                return result, pre_filter_result_rejection(with_nodes), with_nodes
        if return_status is not _OK:
            with_nodes.add(return_status.plugin)
        return result, return_status, with_nodes

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod_to_schedule: Pod,
                                         pod_info_to_add: PodInfo, node_info: NodeInfo) -> Status:
        """Run ``add_pod`` of every PreFilter plugin's extensions (skipped plugins excluded)."""
        return self._run_extension(state, pod_to_schedule, pod_info_to_add, node_info, add=True)

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod_to_schedule: Pod,
                                            pod_info_to_remove: PodInfo, node_info: NodeInfo) -> Status:
        """Run ``remove_pod`` of every PreFilter plugin's extensions (skipped plugins excluded)."""
        return self._run_extension(state, pod_to_schedule, pod_info_to_remove, node_info, add=False)

    def _run_extension(self, state: CycleState, pod: Pod, pod_info: PodInfo, node_info: NodeInfo,
                       *, add: bool) -> Status:
        skip = state.skip_filter_plugins
        op = "AddPod" if add else "RemovePod"
        for name, ext in self._pre_filter_exts:
            if name in skip:
                continue
            try:
                if add:
                    s = ext.add_pod(state, pod, pod_info, node_info)
                else:
                    s = ext.remove_pod(state, pod, pod_info, node_info)
            except Exception as exc:
                logger.warning("%s of PreFilter plugin %r raised", op, name, exc_info=exc)
                return Status(Code.ERROR, (f'running {op} on PreFilter plugin "{name}": {_detail(exc)}',),
                              name, exc)
            if s is not None and s.code is not _SUCCESS:
                return Status(Code.ERROR,
                              (f'running {op} on PreFilter plugin "{name}": {_status_detail(s)}',),
                              name, s.error)
        return _OK

    # -- Filter ---------------------------------------------------------------------------------
    def _active_filters(self, skip: frozenset[str] | set[str]) -> _Filters:
        key = skip if isinstance(skip, frozenset) else frozenset(skip)
        filters = self._filter_by_skip.get(key)
        if filters is None:
            filters = tuple(f for f in self._filter if f[0] not in key)
            if len(self._filter_by_skip) > 256:
                self._filter_by_skip.clear()
                self._filter_by_skip[_EMPTY] = self._filter
            self._filter_by_skip[key] = filters
        self._filter_cache = (skip, filters)
        return filters

    def run_filter_plugins(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        """Run Filter plugins on one node, stopping at the first failure.

        Plugins in ``state.skip_filter_plugins`` are skipped. A rejection comes back with its
        ``plugin`` set; any other non-success becomes ERROR. Returns ``Status.OK`` on success
        (no allocation on that path).
        """
        _check_args("run_filter_plugins", state, pod, node_info)
        cached = self._filter_cache
        skip = state.skip_filter_plugins
        filters = cached[1] if cached[0] is skip else self._active_filters(skip)
        for name, fn in filters:
            try:
                status = fn(state, pod, node_info)
            except Exception as exc:
                return _filter_outcome(name, None, exc)
            if status is not None and (status.__class__ is not Status or status.code is not _SUCCESS):
                out = _filter_outcome(name, status)
                if out is not None:
                    return out
        return _OK

    def run_filter_plugins_each(self, state: CycleState, pod: Pod, node_info: NodeInfo
                                ) -> list[tuple[str, Status]]:
        """Run **every** Filter plugin on one node, not stopping at a failure (what
        :func:`~schedframe.explain` records).

        Returns ``(plugin, status)`` per plugin run, in run order (plugins in
        ``state.skip_filter_plugins`` are not run and not listed); each status is ``Status.OK``
        or what :meth:`run_filter_plugins` makes of the plugin's outcome, so the first
        non-success is what :meth:`run_filter_plugins` returns on that node.

        .. versionadded:: 0.1.0
        """
        _check_args("run_filter_plugins_each", state, pod, node_info)
        cached = self._filter_cache
        skip = state.skip_filter_plugins
        filters = cached[1] if cached[0] is skip else self._active_filters(skip)
        out: list[tuple[str, Status]] = []
        status: Status | None
        for name, fn in filters:
            try:
                returned = fn(state, pod, node_info)
            except Exception as exc:
                status = _filter_outcome(name, None, exc)
            else:
                status = _filter_outcome(name, returned)
            out.append((name, _OK if status is None else status))
        return out

    def run_filter_plugins_on_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo],
                                    num_to_find: int, start: int = 0
                                    ) -> tuple[list[NodeInfo], list[tuple[NodeInfo, Status]], Status | None]:
        """Filter *nodes* in order until *num_to_find* of them pass: exactly what calling
        :meth:`run_filter_plugins` on each node in turn gives, stopping after the
        *num_to_find*-th feasible node or at the first ERROR (the scheduler's search for
        feasible nodes, nominated pods aside). The order is ``nodes[start:] + nodes[:start]``
        (the scheduler's round robin; no such list is built).

        Returns ``(feasible, rejected, error)``: the feasible nodes and the ``(node, status)``
        pairs of the rejected ones, in visiting order, and the ERROR status that stopped the
        search (its node is in neither list) or ``None``. *num_to_find* below 1 means all nodes.

        The active Filter plugins run over runs of nodes (one call per plugin and run, each on
        the nodes the previous plugins passed): their ``filter_nodes``
        (:class:`~schedframe.BatchFilterPlugin`), or for a plugin with ``filter`` only, the
        framework's loop over the run, converting and stopping as :meth:`run_filter_plugins`
        does. A ``filter_nodes`` that raises or returns something
        malformed is logged and the nodes from that run on are filtered node by node.
        """
        _check_args("run_filter_plugins_on_nodes", state, pod)
        feasible: list[NodeInfo] = []
        rejected: list[tuple[NodeInfo, Status]] = []
        if not nodes:
            return feasible, rejected, None
        if num_to_find < 1:
            num_to_find = len(nodes)
        cached = self._filter_cache
        skip = state.skip_filter_plugins
        filters = cached[1] if cached[0] is skip else self._active_filters(skip)
        batch_cached = self._batch_filter_cache
        if batch_cached[0] is filters:
            plan = batch_cached[1]
        else:
            by_name = self._filter_nodes
            plan = (tuple((name, *by_name[name]) for name, _fn in filters)
                    if all(name in by_name for name, _fn in filters) else None)
            self._batch_filter_cache = (filters, plan)
        start %= len(nodes)
        if plan is None:
            error = self._filter_one_by_one(state, pod, filters, _rotated(nodes, start, 0), num_to_find,
                                            feasible, rejected)
        else:
            error = self._filter_in_runs(state, pod, filters, plan, nodes, start, num_to_find, feasible,
                                         rejected)
        return feasible, rejected, error

    @staticmethod
    def _filter_one_by_one(state: CycleState, pod: Pod, filters: _Filters, nodes: Sequence[NodeInfo],
                           remaining: int, feasible: list[NodeInfo],
                           rejected: list[tuple[NodeInfo, Status]]) -> Status | None:
        """:meth:`run_filter_plugins` on each node in turn, inlined; fills *feasible* and
        *rejected*; returns the ERROR that stops the search, if any."""
        append = feasible.append
        for node_info in nodes:
            for name, fn in filters:
                try:
                    status = fn(state, pod, node_info)
                except Exception as exc:
                    return _filter_outcome(name, None, exc)
                if status is not None and (status.__class__ is not Status or status.code is not _SUCCESS):
                    out = _filter_outcome(name, status)
                    if out is not None:
                        if out.code is Code.ERROR:
                            return out
                        rejected.append((node_info, out))
                        break
            else:
                append(node_info)
                remaining -= 1
                if not remaining:
                    return None
        return None

    def _filter_in_runs(self, state: CycleState, pod: Pod, filters: _Filters, plan: _BatchFilters,
                        nodes: Sequence[NodeInfo], start: int, remaining: int, feasible: list[NodeInfo],
                        rejected: list[tuple[NodeInfo, Status]]) -> Status | None:
        """The batch search: runs of nodes through every plugin's ``filter_nodes``.

        The first run holds *remaining* nodes (all of which a node-by-node search would visit
        should they all pass); a later run holds what the pass rate so far says the rest needs,
        with a margin (or twice the last run while no node passed). Results past the node where
        a node-by-node search would stop are dropped (``filter_nodes`` has no side effects), so
        the outcome is the same whatever the runs' sizes.
        """
        n = len(nodes)
        pos = 0  # in visiting order: nodes[(start + pos) % n]
        size = 0
        passed = 0  # nodes that passed so far
        while pos < n:
            if passed:  # remaining / (passed / pos), a quarter more and 16 nodes to spare
                want = -(-remaining * pos // passed)
                want += want // 4 + 16
            else:
                want = 2 * size
            size = max(1, min(max(remaining, want), _MAX_FILTER_CHUNK))
            a = start + pos
            b = a + min(size, n - pos)
            if b <= n:
                run = nodes[a:b]
            elif a >= n:
                run = nodes[a - n:b - n]
            else:
                run = [*nodes[a:], *nodes[:b - n]]
            outcome = _filter_run(state, pod, plan, run)
            if outcome is None:  # a filter_nodes misbehaved: node by node from this run on
                return self._filter_one_by_one(state, pod, filters, _rotated(nodes, start, pos), remaining,
                                               feasible, rejected)
            failed, erroneous = outcome
            if not failed:
                if len(run) >= remaining:
                    feasible.extend(run[:remaining])
                    return None
                feasible.extend(run)
                remaining -= len(run)
                passed += len(run)
            elif not erroneous:  # the same walk, with C-level passes
                passing = [True] * len(run)
                for k in failed:
                    passing[k] = False
                ok = list(compress(range(len(run)), passing))
                done = len(ok) >= remaining
                if done:  # the walk stops at the last feasible node it needs
                    ok = ok[:remaining]
                gone = sorted(filter(ok[-1].__gt__, failed) if done else failed)
                feasible.extend(map(run.__getitem__, ok))
                rejected.extend(zip(map(run.__getitem__, gone), map(failed.__getitem__, gone)))
                if done:
                    return None
                remaining -= len(ok)
                passed += len(ok)
            else:
                get = failed.get
                for k, node_info in enumerate(run):
                    status = get(k)
                    if status is None:
                        feasible.append(node_info)
                        remaining -= 1
                        passed += 1
                        if not remaining:
                            return None
                    elif status.code is Code.ERROR:
                        return status
                    else:
                        rejected.append((node_info, status))
            pos += len(run)
        return None

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: Pod,
                                               node_info: NodeInfo) -> Status:
        """Run Filter plugins on one node, accounting for pods nominated to it (upstream
        ``RunFilterPluginsWithNominatedPods``).

        First pass: with the nominated pods of equal or higher priority added to a cloned state and
        NodeInfo; if any was added and the first pass succeeded, a second pass without them.
        """
        _check_args("run_filter_plugins_with_nominated_pods", state, pod, node_info)
        status = _OK
        pods_added = False
        for i in range(2):
            state_to_use, info_to_use = state, node_info
            if i == 0:
                added = self._add_ge_nominated_pods(pod, state, node_info)
                if isinstance(added, Status):
                    return added
                pods_added, state_to_use, info_to_use = added
            elif not pods_added or not status.is_success():
                break
            status = self.run_filter_plugins(state_to_use, pod, info_to_use)
            if not status.is_success() and not status.is_rejected():
                return status
        return status

    def _add_ge_nominated_pods(self, pod: Pod, state: CycleState, node_info: NodeInfo
                               ) -> tuple[bool, CycleState, NodeInfo] | Status:
        try:
            nominated = self._nominator.nominated_pods_for_node(node_info.name)
        except Exception as exc:
            logger.warning("nominator raised", exc_info=exc)
            return Status(Code.ERROR, (f"listing nominated pods: {_detail(exc)}",), "", exc)
        if not nominated:
            return False, state, node_info
        info_out: NodeInfo | None = None
        state_out: CycleState | None = None
        priority = pod.effective_priority
        for pi in nominated:
            p = pi.pod
            if p.effective_priority >= priority and p.uid != pod.uid:
                if info_out is None or state_out is None:  # first pod added: clone once
                    info_out, state_out = node_info.clone(), state.clone()
                info_out.add_pod(pi)
                s = self.run_pre_filter_extension_add_pod(state_out, pod, pi, info_out)
                if not s.is_success():
                    return s
        if info_out is None or state_out is None:
            return False, state, node_info
        return True, state_out, info_out

    # -- PostFilter -----------------------------------------------------------------------------
    def run_post_filter_plugins(self, state: CycleState, pod: Pod, node_to_status: NodeToStatus
                                ) -> tuple[PostFilterResult | None, Status]:
        """Run PostFilter plugins until one succeeds, returns UNSCHEDULABLE_AND_UNRESOLVABLE or
        fails; otherwise return UNSCHEDULABLE with every plugin's reasons, attributed to the
        first rejecting plugin, and the last result that nominates a node."""
        _check_args("run_post_filter_plugins", state, pod)
        result: PostFilterResult | None = None
        reasons: list[str] = []
        rejector = ""
        for name, fn in self._post_filter:
            try:
                r, s = fn(state, pod, node_to_status)
            except Exception as exc:
                return None, _plugin_error("PostFilter", name, exc)
            if _not_status(s):
                return None, _wrong_type("PostFilter", name, s)
            if _not_status(r, PostFilterResult):
                return None, _wrong_type("PostFilter", name, r, "a PostFilterResult or None")
            if s is None:
                return r, _OK
            if s.code is _SUCCESS:
                return r, s  # upstream keeps a success's message (1.37 preemption says where)
            if s.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return r, s.with_plugin(name)
            if not s.is_rejected():
                # upstream keeps the plugin's own message (AsStatus(s.AsError())), unwrapped
                return None, Status(Code.ERROR, (s.message,), name, s.error)
            if r is not None and r.nominating_info is not None and \
                    r.nominating_info.mode != NominatingMode.NOOP:
                result = r
            reasons.extend(s.reasons)
            if not rejector:
                rejector = name
        return result, Status(Code.UNSCHEDULABLE, reasons, rejector)

    # -- PreScore / Score -----------------------------------------------------------------------
    def run_pre_score_plugins(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo], *,
                              trace: Callable[[str, Status | None], None] | None = None) -> Status:
        """Run PreScore plugins; SKIP puts the plugin in ``state.skip_score_plugins``; any other
        non-success is an ERROR.

        *trace*, when given, is called once per plugin run, in order, with the plugin's name and
        its own outcome: ``None`` on success, its SKIP status, or the ERROR made of what it raised
        or returned (the status returned).
        """
        _check_args("run_pre_score_plugins", state, pod)
        skip: set[str] = set()
        try:
            for name, fn in self._pre_score:
                try:
                    s = fn(state, pod, nodes)
                except Exception as exc:
                    s = _plugin_error("PreScore", name, exc)
                else:
                    if _not_status(s):
                        s = _wrong_type("PreScore", name, s)
                    elif s is None or s.code is _SUCCESS:
                        if trace is not None:
                            trace(name, None)
                        continue
                    elif s.code is Code.SKIP:
                        skip.add(name)
                        if trace is not None:
                            trace(name, s)
                        continue
                    else:
                        s = _status_error("PreScore", name, s)
                if trace is not None:
                    trace(name, s)
                return s
            return _OK
        finally:
            state.skip_score_plugins = frozenset(skip) if skip else _EMPTY

    def run_score_plugins(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                          ) -> tuple[list[NodePluginScores], Status]:
        """Score *nodes*: Score per plugin and node, NormalizeScore, range check, weights.

        Returns one :class:`~schedframe.framework.NodePluginScores` per node, in node order (weighted scores
        and
        total), or ``([], ERROR)``. See :meth:`run_score_plugins_totals` for a cheaper variant.
        """
        _check_args("run_score_plugins", state, pod)
        names, normalized, weights, status = self._score_lists(state, pod, nodes)
        if not status.is_success():
            return [], status
        weighted = [lst if w == 1 else [v * w for v in lst] for lst, w in zip(normalized, weights)]
        out: list[NodePluginScores] = []
        for i, ni in enumerate(nodes):
            scores = tuple(PluginScore(name, lst[i]) for name, lst in zip(names, weighted))
            out.append(NodePluginScores(ni.name, scores, sum(ps.score for ps in scores)))
        return out, _OK

    def run_score_plugins_totals(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                                 ) -> tuple[list[int], Status]:
        """Like :meth:`run_score_plugins` but returns only each node's total weighted score, in
        node order (no per-plugin objects: the scheduler's fast path for host selection)."""
        _check_args("run_score_plugins_totals", state, pod)
        varying, same, status = self._score_totals_apart(state, pod, nodes)
        if not status.is_success():
            return [], status
        if same:
            return list(map(_add, varying, repeat(same))), _OK
        return list(varying), _OK

    def _score_totals_apart(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                            ) -> tuple[list[int], int, Status]:
        """Each node's total weighted score as ``(rest, same, status)``: *same* is the weighted
        scores of the plugins that gave every node the same score, *rest* each node's total of
        the others (``rest[i] + same`` is node *i*'s total). The scheduler picks the host from
        *rest* alone: the same maximum nodes and ties, one pass fewer (``rest`` may be a list a
        plugin returned: not to be modified)."""
        _names, normalized, weights, status = self._score_lists(state, pod, nodes)
        if not status.is_success():
            return [], 0, status
        same = 0
        varying: list[Iterable[int]] = []
        for lst, w in zip(normalized, weights):
            if lst and lst.count(lst[0]) == len(lst):
                same += lst[0] * w
            else:
                varying.append(lst if w == 1 else map(_mul, lst, repeat(w)))
        if not varying:
            return [0] * len(nodes), same, _OK
        if len(varying) == 1 and varying[0].__class__ is list:
            return varying[0], same, _OK
        # one lazy chain of C-level maps, materialized once
        total: Iterable[int] = varying[0]
        for lst2 in varying[1:]:
            total = map(_add, total, lst2)
        return list(total), same, _OK

    def run_score_plugins_detailed(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                                   ) -> tuple[list[str], list[list[int]], list[list[int]], list[int], Status]:
        """Like :meth:`run_score_plugins`, keeping every step (what :func:`~schedframe.explain`
        records): ``(names, raw, normalized, weights, status)``.

        *names* are the active Score plugins (those skipped at PreScore excluded), in order; per
        plugin, *raw* holds what Score (or ``score_nodes``) returned and *normalized* what
        NormalizeScore made of it (the same values without NormalizeScore), in node order; *weights*
        are the plugins' weights (a weighted score is ``normalized * weight``). On failure, four
        empty lists and the ERROR, worded as :meth:`run_score_plugins` words it.

        .. versionadded:: 0.1.0
        """
        _check_args("run_score_plugins_detailed", state, pod)
        raw: list[list[int]] = []
        names, normalized, weights, status = self._score_lists(state, pod, nodes, raw)
        if not status.is_success():
            return [], [], [], [], status
        return names, raw, normalized, weights, _OK

    def _score_lists(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo],
                     keep_raw: list[list[int]] | None = None
                     ) -> tuple[list[str], list[list[int]], list[int], Status]:
        """Per active score plugin: its name, its normalized, range-checked scores in node order
        and its weight. With *keep_raw*, copies of the scores before NormalizeScore go there."""
        skip = state.skip_score_plugins
        active = [sp for sp in self._score if sp[0] not in skip] if skip else self._score
        names: list[str] = []
        raw: list[list[int]] = []
        for name, fn, _ext, _w, batch, _norm, _check in active:
            if batch is not None:  # one call for all the nodes (BatchScorePlugin)
                try:
                    result = batch(state, pod, nodes)
                except Exception as exc:
                    logger.warning("Score plugin %r raised", name, exc_info=exc)
                    return [], [], [], Status(
                        Code.ERROR, (f'running Score plugins: plugin "{name}" failed with: {_detail(exc)}',),
                        name, exc,
                    )
                if result.__class__ is not list or len(result) != len(nodes):
                    checked = _batch_scores(name, result, len(nodes))
                    if isinstance(checked, Status):
                        return [], [], [], checked
                    result = checked
                names.append(name)
                raw.append(result)
                continue
            lst: list[int] = []
            append = lst.append
            try:
                for ni in nodes:
                    score, s = fn(state, pod, ni)
                    if s is not None and s.code is not _SUCCESS:
                        return [], [], [], Status(
                            Code.ERROR,
                            (f'running Score plugins: plugin "{name}" failed with: {_status_detail(s)}',),
                            name, s.error,
                        )
                    append(score)
            except Exception as exc:
                logger.warning("Score plugin %r raised", name, exc_info=exc)
                return [], [], [], Status(
                    Code.ERROR, (f'running Score plugins: plugin "{name}" failed with: {_detail(exc)}',),
                    name, exc,
                )
            names.append(name)
            raw.append(lst)
        if keep_raw is not None:
            keep_raw.extend([*lst] for lst in raw)
        # NormalizeScore runs once every plugin has scored (Score errors come first, as upstream)
        for j, (name, _fn, ext, _w, _batch, norm_ints, _check) in enumerate(active):
            if ext is not None:
                normalized = (_normalize(state, pod, name, ext, nodes, raw[j]) if norm_ints is None
                              else _normalize_ints(state, pod, name, norm_ints, nodes, raw[j]))
                if isinstance(normalized, Status):
                    return [], [], [], normalized
                raw[j] = normalized
        checked = [sp[6] for sp in active]
        bad = (_check_range(names, raw, len(nodes)) if all(checked) else
               _check_range([x for x, c in zip(names, checked) if c], [x for x, c in zip(raw, checked) if c],
                            len(nodes)))
        if bad is not None:
            return [], [], [], bad
        return names, raw, [sp[3] for sp in active], _OK

    # -- Reserve --------------------------------------------------------------------------------
    def run_reserve_plugins_reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """Run Reserve plugins, stopping at the first failure (the caller then unreserves)."""
        _check_args("run_reserve_plugins_reserve", state, pod, node_name=node_name)
        for name, fn, _un in self._reserve:
            try:
                s = fn(state, pod, node_name)
            except Exception as exc:
                return _plugin_error("Reserve", name, exc)
            if _not_status(s):
                return _wrong_type("Reserve", name, s)
            if s is not None and s.code is not _SUCCESS:
                if s.is_rejected():
                    return s.with_plugin(name)
                return _status_error("Reserve", name, s)
        return _OK

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Run every Reserve plugin's ``unreserve``, in reverse order; exceptions are logged. A
        ``BaseException`` (``KeyboardInterrupt``...) does not stop the others: the first one is
        re-raised once every plugin has run."""
        _check_args("run_reserve_plugins_unreserve", state, pod, node_name=node_name)
        interrupted: BaseException | None = None
        for name, _fn, un in reversed(self._reserve):
            try:
                un(state, pod, node_name)
            except Exception as exc:
                logger.warning("Unreserve of plugin %r raised for pod %s on node %s", name, pod.key,
                               node_name, exc_info=exc)
            except BaseException as exc:
                if interrupted is None:
                    interrupted = exc
        if interrupted is not None:
            raise interrupted

    # -- Permit ---------------------------------------------------------------------------------
    def run_permit_plugins(self, state: CycleState, pod: Pod, node_name: str, *, park: bool = True) -> Status:
        """Run Permit plugins. A rejection or error stops at once; when some plugin returned WAIT
        (timeouts capped at 15 minutes) the pod is parked in the waiting pods (unless *park* is
        false: the PodGroup cycle's trial of a member) and WAIT is returned; otherwise success."""
        _check_args("run_permit_plugins", state, pod, node_name=node_name)
        waits: dict[str, float] = {}
        wait_status: Status | None = None
        for name, fn in self._permit:
            try:
                s, timeout = fn(state, pod, node_name)
            except Exception as exc:
                return _plugin_error("Permit", name, exc)
            if _not_status(s):
                return _wrong_type("Permit", name, s)
            if s is None or s.code is _SUCCESS:
                continue
            if s.is_rejected():
                return s.with_plugin(name)
            if s.code is Code.WAIT:
                seconds = timeout if isinstance(timeout, (int, float)) else math.nan
                if seconds != seconds:  # not a number, or NaN
                    return _wrong_type("Permit", name, timeout, "a number of seconds", "returned timeout")
                waits[name] = float(min(seconds, MAX_PERMIT_TIMEOUT))
                wait_status = s
                continue
            return _status_error("Permit", name, s)
        if waits:
            if park:
                self._waiting_pods.add(WaitingPodEntry(pod, node_name, waits, self._clock))
            if wait_status is not None and release_of(self).minor >= (1, 36):
                # 1.36 on: the (last) waiting plugin's status with a reason appended
                return Status(Code.WAIT, (*wait_status.reasons,
                                          "one or more plugins asked to wait and no plugin rejected pod"))
            return Status(Code.WAIT,
                          (f'one or more plugins asked to wait and no plugin rejected pod "{pod.name}"',))
        return _OK

    def will_wait_on_permit(self, pod: Pod) -> bool:
        """True when *pod* is parked at Permit."""
        return self._waiting_pods.get(pod.uid) is not None

    def wait_on_permit(self, pod: Pod, *, block: bool) -> Status | None:
        """The Permit decision for *pod* (success when it is not waiting).

        With ``block=True`` wait (in real time) until it is allowed, rejected or timed out. With
        ``block=False`` return the decision if made (deadlines judged by the clock) or ``None``
        while still waiting. Once decided, the pod leaves the waiting pods. A rejection comes back
        as is; anything else but success becomes ERROR ``waiting on permit for pod: ...``.
        """
        wp = self._waiting_pods.get(pod.uid)
        if wp is None:
            return _OK
        if block:
            s: Status | None = wp.wait()
        else:
            s = wp.check_timeouts(self._clock.now())
            if s is None:
                return None
        self._waiting_pods.remove(pod.uid)
        assert s is not None
        if s.code is _SUCCESS:
            return _OK
        if s.is_rejected():
            return s
        return Status(Code.ERROR, (f"waiting on permit for pod: {_status_detail(s)}",),  # pragma: no cover
                      s.plugin, s.error)

    # -- PreBind / Bind / PostBind --------------------------------------------------------------
    def run_pre_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """Run PreBind plugins (those in ``state.skip_pre_bind_plugins`` excluded), stopping at
        the first failure. SKIP counts as success (nothing to do)."""
        _check_args("run_pre_bind_plugins", state, pod, node_name=node_name)
        skip = state.skip_pre_bind_plugins
        for name, fn in self._pre_bind:
            if name in skip:
                continue
            try:
                s = fn(state, pod, node_name)
            except Exception as exc:
                return _plugin_error("PreBind", name, exc)
            if _not_status(s):
                return _wrong_type("PreBind", name, s)
            if s is not None and s.code is not _SUCCESS and s.code is not Code.SKIP:
                if s.is_rejected():
                    return s.with_plugin(name)
                return _status_error("PreBind", name, s)
        return _OK

    def run_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """Run Bind plugins until one does not return SKIP; if all skip, ERROR."""
        _check_args("run_bind_plugins", state, pod, node_name=node_name)
        for name, fn in self._bind:
            try:
                s = fn(state, pod, node_name)
            except Exception as exc:
                return _plugin_error("Bind", name, exc)
            if _not_status(s):
                return _wrong_type("Bind", name, s)
            if s is None or s.code is _SUCCESS:
                return _OK
            if s.code is Code.SKIP:
                continue
            if s.is_rejected():
                return s.with_plugin(name)
            return _status_error("Bind", name, s)
        return Status(Code.ERROR,
                      (f"all bind plugins skipped binding pod {pod.key!r} to node {node_name!r}",))

    def run_post_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Run PostBind plugins; exceptions are logged."""
        _check_args("run_post_bind_plugins", state, pod, node_name=node_name)
        for name, fn in self._post_bind:
            try:
                fn(state, pod, node_name)
            except Exception as exc:
                logger.warning("PostBind plugin %r raised for pod %s on node %s", name, pod.key,
                               node_name, exc_info=exc)

    def __repr__(self) -> str:
        return f"Framework(profile={self.profile_name!r}, plugins={sorted(self._plugins)!r})"


if TYPE_CHECKING:
    from ._tracing import Tracing as _Tracing
    from .handle import Handle

    def _is_handle(f: Framework) -> Handle:
        return f
