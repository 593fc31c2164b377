"""TopologicalSort: orders the pods of an AppGroup by the topological order of their workloads
(kubernetes-sigs/scheduler-plugins ``pkg/networkaware/topologicalsort``, v0.34.7).

Two pods of the same AppGroup (label ``appgroup.diktyo.x-k8s.io``) are ordered by their workloads'
indexes in the AppGroup's ``status.topologyOrder`` (lower first; ``a`` goes first on a tie, as
upstream's ``orderP1 <= orderP2``); the AppGroup is looked up in the configured ``namespaces``
in turn. Other pairs are ordered as PrioritySort orders them (higher priority, then earlier
queueing time). Where upstream would dereference a missing AppGroup, both pods get order -1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, final

import attrs

from ...framework.handle import Handle
from ...framework.interfaces import QueuedPodInfo
from ...framework.registry import plugin_args
from ..priority_sort import PrioritySort
from ._networkaware import (
    AppGroupPlugin,
    find_pod_order,
    pod_app_group,
    pod_app_group_selector,
)

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["ARGS_TYPE", "NAME", "TopologicalSort", "TopologicalSortArgs", "new"]

NAME: Final = "TopologicalSort"
#: the order of pods outside a common AppGroup
_PRIORITY_SORT: Final = PrioritySort()


@final
@attrs.frozen(kw_only=True)
class TopologicalSortArgs:
    """``TopologicalSortArgs``: the namespaces AppGroups are looked up in (default ``["default"]``).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"

    namespaces: tuple[str, ...] = ("default",)

    def with_defaults(self) -> Self:
        """Upstream's defaulting: no namespaces is ``["default"]``."""
        return self if self.namespaces else attrs.evolve(self, namespaces=("default",))



ARGS_TYPE: Final = TopologicalSortArgs


@final
class TopologicalSort(AppGroupPlugin[TopologicalSortArgs]):
    """The TopologicalSort plugin (QueueSort).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"
    __slots__ = ()

    @property
    def name(self) -> str:
        """``"TopologicalSort"``."""
        return NAME

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """Same AppGroup: the lower topology index first; otherwise PrioritySort's order."""
        pa, pb = a.pod_info.pod, b.pod_info.pod
        ag = pod_app_group(pa)
        if ag != pod_app_group(pb) or not ag:
            return _PRIORITY_SORT.less(a, b)
        app_group = self._app_group(ag)
        order = app_group.topology_order if app_group is not None else ()
        return find_pod_order(order, pod_app_group_selector(pa)) <= find_pod_order(
            order, pod_app_group_selector(pb)
        )


def new(args: object, handle: Handle) -> TopologicalSort:
    """Factory: *args* is ``None``, a :class:`TopologicalSortArgs` or a camelCase mapping."""
    return TopologicalSort(plugin_args(args, TopologicalSortArgs), handle)


if TYPE_CHECKING:
    from ...framework.interfaces import QueueSortPlugin

    def _check(p: TopologicalSort) -> None:
        _a: QueueSortPlugin = p
