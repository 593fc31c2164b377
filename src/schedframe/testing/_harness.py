"""``PluginHarness``: run one plugin through a real :class:`~schedframe.Framework`, the way
upstream plugin tests run PreFilter/Filter or PreScore/Score/NormalizeScore."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, final

from ..api.objects import Namespace, Node, Pod
from ..cache.nodeinfo import NodeInfo, PodInfo
from ..cache.store import ObjectStore
from ..errors import SchedulerError
from ..framework.clock import Clock, FakeClock
from ..framework.cycle_state import CycleState
from ..framework.diagnosis import outside_pre_filter_result
from ..framework.handle import SharedLister
from ..framework.interfaces import Plugin, PreFilterResult
from ..framework.registry import Registry
from ..framework.runtime import Framework
from ..framework.status import Code, Status
from ..queue.nominator import PodNominator
from ._fakes import FakeBind, FakeProfile, FakeQueueSort, _Ref

__all__ = ["PluginHarness"]


def _pod(value: Pod | Mapping[str, Any]) -> Pod:
    return value if isinstance(value, Pod) else Pod.from_manifest(value)


def _node(value: Node | Mapping[str, Any]) -> Node:
    return value if isinstance(value, Node) else Node.from_manifest(value)


def _namespace(value: Namespace | Mapping[str, Any]) -> Namespace:
    return value if isinstance(value, Namespace) else Namespace.from_manifest(value)


def _raw(status: Status) -> Status:
    """The status as the plugin would have returned it: success is ``Status.OK``, and the
    ``plugin`` attribution the framework adds is removed, so tests can compare with
    ``Status.unschedulable(REASON)``."""
    if status.code is Code.SUCCESS:
        return Status.OK
    return status.with_plugin("") if status.plugin else status


def _snapshot(nodes: Sequence[Node], pods: Sequence[Pod]) -> SharedLister:
    from ..cache.snapshot import Snapshot

    return Snapshot.from_objects(nodes, pods)


def _nominator(pods: Sequence[Pod]) -> PodNominator:
    """The nominations among *pods*: unbound pods naming a ``nominated_node_name``."""
    nominator = PodNominator()
    for p in pods:
        if not p.node_name and p.nominated_node_name:
            nominator.add(PodInfo.of(p))
    return nominator


@final
class PluginHarness:
    """A framework holding just one plugin, at every extension point it implements (plus a
    :class:`FakeQueueSort` / :class:`FakeBind` where it has none), over a fixed cluster.

    Args:
        plugin_name: the plugin, looked up in *registry*.
        args: the plugin's args, as the camelCase ``pluginConfig[].args`` mapping or as the args
            object; ``None`` for defaults.
        nodes: :class:`~schedframe.Node` objects or manifests.
        pods: existing pods (objects or manifests) bound to the nodes through ``node_name``; a
            pod without ``node_name`` but with ``nominated_node_name`` is a nomination, reaching
            the plugin through ``handle.nominator`` as the framework's nominator gives it.
        namespaces: :class:`~schedframe.Namespace` objects or manifests.
        objects: other cluster objects (Services, ReplicaSets, PDBs, PriorityClasses,
            ElasticQuotas, PodGroups, ...) for ``handle.objects``.
        registry: default: the in-tree registry.
        clock: default: a :class:`~schedframe.FakeClock`.
        kubernetes_version: the kube-scheduler release the plugin runs as (``"1.33"``, or a
            ``schedframe.ReleaseProfile``); default the newest. See :doc:`/releases`.
        feature_gates: kube-scheduler feature gates (a mapping or ``"Name=true,..."``).

    Statuses returned by the methods are the plugin's own: success is ``Status.OK`` and the
    ``plugin`` attribution the framework adds is cleared, so
    ``h.filter(pod) == {"n1": Status.OK, "n2": Status.unresolvable(ERR_REASON)}`` works. The
    framework's view is available through ``framework``.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.testing"

    def __init__(self, plugin_name: str, args: Any = None,
                 nodes: Iterable[Node | Mapping[str, Any]] = (),
                 pods: Iterable[Pod | Mapping[str, Any]] = (),
                 namespaces: Iterable[Namespace | Mapping[str, Any]] = (), *,
                 objects: Iterable[Any] = (), registry: Registry | None = None,
                 clock: Clock | None = None, kubernetes_version: Any = None,
                 feature_gates: Any = None) -> None:
        from ..framework.releases import release_profile

        if registry is None:
            from ..plugins import in_tree_registry

            registry = in_tree_registry()
        self.plugin_name = plugin_name
        self.nodes: list[Node] = [_node(n) for n in nodes]
        self.pods: list[Pod] = [_pod(p) for p in pods]
        self.objects = ObjectStore([*(_namespace(n) for n in namespaces), *objects])
        self.clock: Clock = clock if clock is not None else FakeClock()
        self.snapshot: SharedLister = _snapshot(self.nodes, self.pods)
        profile = FakeProfile(
            plugins={"multiPoint": (_Ref(plugin_name),)},
            plugin_args={plugin_name: args} if args is not None else {},
            release=release_profile(kubernetes_version, feature_gates),
        )
        self.nominator = _nominator(self.pods)
        self.framework = Framework(
            registry, profile, objects=self.objects, clock=self.clock, snapshot=self.snapshot,
            nominator=self.nominator,
            _fallbacks={"queueSort": FakeQueueSort(), "bind": FakeBind()},
        )
        plugin = self.framework.get_plugin(plugin_name)
        assert plugin is not None
        self.plugin: Plugin = plugin
        self.state = CycleState()

    def _node_infos(self, names: Iterable[str] | None = None) -> list[NodeInfo]:
        lister = self.snapshot.node_infos()
        if names is None:
            return list(lister.list())
        out: list[NodeInfo] = []
        for name in names:
            info = lister.get(name)
            if info is None:
                raise SchedulerError(f"PluginHarness: no node named {name!r} in the cluster")
            out.append(info)
        return out

    def pre_filter(self, pod: Pod | Mapping[str, Any]) -> tuple[PreFilterResult | None, Status]:
        """Run PreFilter (on a fresh ``state``); a skipped plugin gives ``Status.skip()``."""
        self.state = state = CycleState()
        result, status, _ = self.framework.run_pre_filter_plugins(state, _pod(pod))
        if self.plugin_name in state.skip_filter_plugins:
            return None, Status.skip()
        return result, _raw(status)

    def filter(self, pod: Pod | Mapping[str, Any]) -> dict[str, Status]:
        """PreFilter, then Filter on every node: node name -> status.

        A PreFilter rejection is every node's status; nodes outside a :class:`~schedframe.PreFilterResult`
        get ``UNSCHEDULABLE_AND_UNRESOLVABLE`` "node(s) didn't satisfy plugin(s) [X]" as upstream;
        a PreFilter SKIP skips Filter (``Status.OK`` everywhere).
        """
        p = _pod(pod)
        self.state = state = CycleState()
        result, status, rejectors = self.framework.run_pre_filter_plugins(state, p)
        infos = self._node_infos()
        if not status.is_success():
            raw = _raw(status)
            return {ni.name: raw for ni in infos}
        allowed = result.node_names if result is not None else None
        outside = outside_pre_filter_result(rejectors)
        out: dict[str, Status] = {}
        for ni in infos:
            if allowed is not None and ni.name not in allowed:
                out[ni.name] = outside
            else:
                out[ni.name] = _raw(self.framework.run_filter_plugins(state, p, ni))
        return out

    def pre_score(self, pod: Pod | Mapping[str, Any], nodes: Iterable[str] | None = None) -> Status:
        """Run PreScore over *nodes* (names; default all) on a fresh ``state``; a skipped
        plugin gives ``Status.skip()``."""
        self.state = state = CycleState()
        status = self.framework.run_pre_score_plugins(state, _pod(pod), self._node_infos(nodes))
        if self.plugin_name in state.skip_score_plugins:
            return Status.skip()
        return _raw(status)

    def run_score(self, pod: Pod | Mapping[str, Any], nodes: Iterable[str] | None = None
                  ) -> tuple[dict[str, int], Status]:
        """What a scheduling cycle runs for the plugin up to its scores: PreFilter (when the
        plugin has one, as a cycle runs it before Filter), PreScore, Score and NormalizeScore over
        *nodes* (names; default all): the unweighted final scores and the status (``({}, status)``
        on failure: a PreScore failure, else a PreFilter rejection, else a Score error). A plugin
        whose Score reads what its PreFilter wrote is thus scored as the framework runs it."""
        p = _pod(pod)
        infos = self._node_infos(nodes)
        self.state = state = CycleState()
        _, pre_filter, _ = self.framework.run_pre_filter_plugins(state, p)
        status = self.framework.run_pre_score_plugins(state, p, infos)
        if not status.is_success():  # PreScore's own verdict, as without PreFilter
            return {}, _raw(status)
        if not pre_filter.is_success():
            return {}, _raw(pre_filter)
        if self.plugin_name in state.skip_score_plugins or not self.framework.has_score_plugins():
            return {ni.name: 0 for ni in infos}, Status.OK
        scores, status = self.framework.run_score_plugins(state, p, infos)
        if not status.is_success():
            return {}, _raw(status)
        weight = self.framework.score_weight(self.plugin_name)
        return {s.name: s.total_score // weight for s in scores}, Status.OK

    def score(self, pod: Pod | Mapping[str, Any], nodes: Iterable[str] | None = None) -> dict[str, int]:
        """Like :meth:`run_score`, returning only the scores; raises
        :class:`~schedframe.SchedulerError` with the status message when a step fails."""
        scores, status = self.run_score(pod, nodes)
        if not status.is_success():
            raise SchedulerError(f"PluginHarness.score: {status.code}: {status.message}")
        return scores

    def __repr__(self) -> str:
        return f"PluginHarness({self.plugin_name!r}, nodes={len(self.nodes)}, pods={len(self.pods)})"
