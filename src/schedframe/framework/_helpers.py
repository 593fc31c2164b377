"""Small helpers of the Framework's run loops: argument checks of the public ``run_*`` entry
points, tracing, bound methods, node rotation."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from ..api.objects import Pod
from ..cache.nodeinfo import NodeInfo
from ..errors import ArgumentTypeError
from .cycle_state import CycleState
from .interfaces import Plugin
from .status import Status

_NO_ARG: Final = object()


def _arg_error(method: str, arg: str, want: str, value: object) -> ArgumentTypeError:
    return ArgumentTypeError(f"Framework.{method}: {arg} must be {want}, got {type(value).__name__}")


def _check_args(method: str, state: object = _NO_ARG, pod: object = _NO_ARG, node_info: object = _NO_ARG,
                node_name: object = _NO_ARG) -> None:
    """The type checks of the public ``run_*`` entry points (a few isinstance calls per call,
    never per node of a batch)."""
    if state is not _NO_ARG and not isinstance(state, CycleState):
        raise _arg_error(method, "state", "a CycleState", state)
    if pod is not _NO_ARG and not isinstance(pod, Pod):
        raise _arg_error(method, "pod", "a Pod", pod)
    if node_info is not _NO_ARG and not isinstance(node_info, NodeInfo):
        raise _arg_error(method, "node_info", "a NodeInfo", node_info)
    if node_name is not _NO_ARG and not isinstance(node_name, str):
        raise _arg_error(method, "node_name", "a node name (str)", node_name)


def _traced(trace: Callable[[str, Status | None, Any], None] | None, name: str,
            status: Status) -> Status:
    """*status*, after telling *trace* (if any) that plugin *name* ended with it."""
    if trace is not None:
        trace(name, status, None)
    return status


#: what a framework with per-plugin spans wraps each plugin method with: ``(method, plugin, fn)``
_Wrap = Callable[[str, str, Any], Any]


def _bound(plugins: Sequence[Plugin], method: str, wrap: _Wrap | None = None) -> tuple[tuple[str, Any], ...]:
    """``(name, plugin.method)`` per plugin, each method through *wrap* when given."""
    if wrap is None:
        return tuple((p.name, getattr(p, method)) for p in plugins)
    return tuple((p.name, wrap(method, p.name, getattr(p, method))) for p in plugins)


def _rotated(nodes: Sequence[NodeInfo], start: int, skip: int) -> Sequence[NodeInfo]:
    """``(nodes[start:] + nodes[:start])[skip:]``."""
    if not start:
        return nodes[skip:] if skip else nodes
    return [*nodes[start:], *nodes[:start]][skip:]


def _optional_method(obj: object, method: str, wrap: _Wrap | None = None, plugin: str = "") -> Any:
    """``obj.method`` when *obj* has such a callable (an optional batch method), else ``None``;
    through *wrap* (as plugin *plugin*'s) when given."""
    fn = getattr(obj, method, None)
    if not callable(fn):
        return None
    return fn if wrap is None else wrap(method, plugin, fn)
