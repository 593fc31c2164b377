"""Helpers shared by TopologicalSort and NetworkOverhead (scheduler-plugins v0.34.7
``pkg/networkaware/util``): the pod's AppGroup labels, the AppGroup lookup over the configured
namespaces, the namespace-list args both plugins take, and :class:`AppGroupPlugin`, their common
base."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ...api.networkaware import APP_GROUP_LABEL, APP_GROUP_SELECTOR_LABEL, AppGroup, AppGroupTopologyInfo
from ...api.objects import Pod
from ...errors import PluginArgsError
from .._helpers import WithArgs

if TYPE_CHECKING:
    from ...framework.handle import Handle


def pod_app_group(pod: Pod) -> str:
    """The pod's ``appgroup.diktyo.x-k8s.io`` label ("" when it has none)."""
    return pod.labels.get(APP_GROUP_LABEL, "")


def pod_app_group_selector(pod: Pod) -> str:
    """The pod's ``appgroup.diktyo.x-k8s.io.workload`` label."""
    return pod.labels.get(APP_GROUP_SELECTOR_LABEL, "")


def find_object(objects: Any, kind: type, name: str, namespaces: Sequence[str]) -> Any:
    """The first object of *kind* named *name* in *namespaces* (in order), or ``None``."""
    get = getattr(objects, "get", None)
    for ns in namespaces:
        if get is not None:
            found = get(kind, name, ns)
        else:
            found = next((o for o in objects.list(kind, ns) if o.name == name), None)
        if found is not None:
            return found
    return None


def find_app_group(objects: Any, name: str, namespaces: Sequence[str]) -> AppGroup | None:
    found: AppGroup | None = find_object(objects, AppGroup, name, namespaces)
    return found


class _NamespacesArgs(Protocol):
    @property
    def namespaces(self) -> tuple[str, ...]: ...


_ArgsT = TypeVar("_ArgsT", bound=_NamespacesArgs)


class AppGroupPlugin(WithArgs[_ArgsT]):
    """What TopologicalSort and NetworkOverhead share: their effective args, whose
    ``namespaces`` the AppGroups are looked up in, and the handle whose objects hold them."""

    __slots__ = ("_args", "_handle")

    def __init__(self, args: _ArgsT, handle: Handle) -> None:
        self._args = args
        self._handle = handle

    def _app_group(self, name: str) -> AppGroup | None:
        """The AppGroup *name* of the first of the args' namespaces that has one."""
        return find_app_group(self._handle.objects, name, self._args.namespaces)


def find_pod_order(order: Sequence[AppGroupTopologyInfo], selector: str) -> int:
    """Upstream ``FindPodOrder``: a binary search of ``status.topologyOrder`` (which the AppGroup
    controller keeps sorted by workload selector); -1 when absent."""
    low, high = 0, len(order) - 1
    while low <= high:
        mid = (low + high) // 2
        s = order[mid].workload.selector
        if s == selector:
            return order[mid].index
        if s < selector:
            low = mid + 1
        else:
            high = mid - 1
    return -1


def namespaces_arg(data: Mapping[str, Any], errors: list[str]) -> tuple[str, ...]:
    """``namespaces``: a list of strings, default ``["default"]``."""
    raw = data.get("namespaces")
    if raw is None or raw == []:
        return ("default",)
    if not isinstance(raw, list) or not all(isinstance(n, str) for n in raw):
        errors.append(f"namespaces: must be a list of strings, got {raw!r}")
        return ("default",)
    return tuple(raw)


def args_mapping(data: object) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise PluginArgsError(f"args: must be a mapping, got {type(data).__name__}")
    return data
