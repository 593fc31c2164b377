"""The Filter runtime's pieces that do not need a :class:`~schedframe.Framework`: what a
plugin's outcome becomes (the wording of its errors, shared by every extension point), and one
batch run of the Filter plugins' ``filter_nodes`` over a run of nodes."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Final, overload

from ..api.objects import Pod
from ..cache.nodeinfo import NodeInfo
from ._scoring import _detail, _status_detail
from .cycle_state import CycleState
from .status import Code, Status

logger = logging.getLogger("schedframe")

_SUCCESS: Final = Code.SUCCESS

_FilterNodesFn = Callable[[CycleState, Pod, Sequence[NodeInfo]], "list[tuple[int, Status]]"]
#: per plugin: name, ``filter_nodes``, whether it is handed the whole run (see _filter_run), and
#: whether its statuses are final outcomes already (a per-node ``filter`` adapted by
#: :func:`adapt_filter`)
_BatchFilters = tuple[tuple[str, _FilterNodesFn, bool, bool], ...]


def _plugin_error(point: str, name: str, exc: BaseException) -> Status:
    logger.warning("%s plugin %r raised", point, name, exc_info=exc)
    return Status(Code.ERROR, (f'running {point} plugin "{name}": {_detail(exc)}',), name, exc)


def _status_error(point: str, name: str, status: Status) -> Status:
    return Status(Code.ERROR, (f'running {point} plugin "{name}": {_status_detail(status)}',), name,
                  status.error)


def _wrong_type(point: str, name: str, value: object, want: str = "a Status or None",
                what: str = "returned") -> Status:
    """A plugin returned a value of the wrong type (a bug in the plugin): an ERROR naming it."""
    shown = repr(value)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return Status(Code.ERROR, (f'running {point} plugin "{name}": {what} {type(value).__name__} {shown}, '
                               f"want {want}",), name)


def _not_status(value: object, cls: type = Status) -> bool:
    """True when a plugin's returned *value* is neither ``None`` nor a *cls* (cheap on the hot path)."""
    return value is not None and value.__class__ is not cls and not isinstance(value, cls)


@overload
def _filter_outcome(name: str, status: object) -> Status | None: ...
@overload
def _filter_outcome(name: str, status: None, exc: Exception) -> Status: ...
def _filter_outcome(name: str, status: object, exc: Exception | None = None) -> Status | None:
    """What the Filter runtime makes of one plugin's outcome on one node -- *status*, what it
    returned, or *exc*, what it raised: ``None`` (passed), the rejection attributed to the plugin,
    or an ERROR. The one conversion of :meth:`schedframe.Framework.run_filter_plugins`,
    :meth:`schedframe.Framework.run_filter_plugins_each` and the node searches."""
    if exc is not None:
        return _plugin_error("Filter", name, exc)
    if status is None or (status.__class__ is Status and status.code is _SUCCESS):
        return None
    if _not_status(status):
        return _wrong_type("Filter", name, status)
    assert isinstance(status, Status)
    if status.is_rejected():
        return status.with_plugin(name)
    return _status_error("Filter", name, status)


def _filter_run(state: CycleState, pod: Pod, plan: _BatchFilters,
                run: Sequence[NodeInfo]) -> tuple[dict[int, Status], bool] | None:
    """Every plugin's ``filter_nodes`` over *run*, each on the nodes the previous ones passed --
    or, for the plugins that declare it (:func:`_filters_whole_runs`), on the whole run, keeping
    for each node only the first rejection in plugin order: the same outcome, since
    ``filter_nodes`` has no side effects, and the whole run is what their per-position memos
    remember (a run with gaps would be computed again).

    Returns run index -> the node's outcome (rejection or ERROR) for the nodes that did not
    pass, and whether any is an ERROR; ``None`` when a ``filter_nodes`` raised or returned
    something malformed.
    """
    failed: dict[int, Status] = {}
    erroneous = False
    alive: Sequence[NodeInfo] = run
    index: list[int] | None = None  # alive position -> run position (None: the same)
    stale = False  # alive misses nodes failed since it was made
    total = len(run)
    for name, fn, whole, final_outcomes in plan:
        if whole:
            nodes, at = run, None
        else:
            if stale:
                keep = [k for k in range(total) if k not in failed]
                alive = [run[k] for k in keep]
                index = keep
                stale = False
            nodes, at = alive, index
        try:
            result = fn(state, pod, nodes)
            if not result:
                continue
            gone: set[int] = set()
            n = len(nodes)
            # plugins return shared status constants: attribute each distinct one once
            outcomes: dict[int, Status | None] = {}
            for k, status in result:
                if k.__class__ is not int or not 0 <= k < n or k in gone:
                    raise ValueError(f"filter_nodes returned index {k!r} for {n} nodes")
                gone.add(k)
                r = k if at is None else at[k]
                if r in failed:  # an earlier plugin rejected the node: its status stands
                    continue
                out: Status | None
                if final_outcomes:
                    out = status
                    if status.code is Code.ERROR:
                        erroneous = True
                else:
                    key = id(status)
                    if key in outcomes:
                        out = outcomes[key]
                    else:
                        out = outcomes[key] = _filter_outcome(name, status)
                        if out is not None and out.code is Code.ERROR:
                            erroneous = True
                if out is not None:
                    failed[r] = out
                    stale = True
        except Exception as exc:
            logger.warning("filter_nodes of Filter plugin %r failed; filtering node by node", name,
                           exc_info=exc)
            return None
        if len(failed) == total:
            break
    return failed, erroneous


def _filters_whole_runs(plugin: object) -> bool:
    """Whether *plugin*'s ``filter_nodes`` is handed whole runs of the snapshot's node list,
    nodes earlier plugins rejected included (class attribute ``_schedframe_filters_whole_runs``:
    built-in plugins whose results are remembered by position, for which a node already
    rejected costs a lookup)."""
    return getattr(type(plugin), "_schedframe_filters_whole_runs", False) is True


def adapt_filter(name: str, filter_fn: Callable[[CycleState, Pod, NodeInfo], object]) -> _FilterNodesFn:
    """A ``filter_nodes`` for a Filter plugin that has only ``filter``: each node in turn, its
    outcome converted as :meth:`schedframe.Framework.run_filter_plugins` converts it (rejections with the
    plugin's name, an exception or a bad return value an ERROR), stopping at the first ERROR as
    a node-by-node search does. So every profile keeps the batched Filter path, and a plugin
    needs no ``filter_nodes`` of its own to be part of it."""

    def filter_nodes(state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> list[tuple[int, Status]]:
        out: list[tuple[int, Status]] = []
        for i, node_info in enumerate(nodes):
            try:
                status = filter_fn(state, pod, node_info)
            except Exception as exc:
                out.append((i, _filter_outcome(name, None, exc)))
                break
            if status is None or (status.__class__ is Status and status.code is _SUCCESS):
                continue
            outcome = _filter_outcome(name, status)
            if outcome is not None:
                out.append((i, outcome))
                if outcome.code is Code.ERROR:
                    break
        return out

    return filter_nodes
