"""Score helpers of :class:`~schedframe.Framework` (``runtime.py``): checking what a
``score_nodes`` returned, NormalizeScore (per-node and ``normalize_score_ints``), the range check
after normalizing, and the wording of plugin failures they share with the runtime
(:func:`_detail`, :func:`_status_detail`). Imports nothing from ``runtime``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, Final

from ..api.objects import Pod
from ..cache.nodeinfo import NodeInfo
from .cycle_state import CycleState
from .interfaces import MAX_NODE_SCORE, MIN_NODE_SCORE, NodeScore, ScoreExtensions
from .status import Code, Status

__all__: list[str] = []

logger = logging.getLogger("schedframe")

_SUCCESS: Final = Code.SUCCESS

_NormalizeIntsFn = Callable[[CycleState, Pod, Sequence[NodeInfo], "list[int]"], "list[int] | Status"]


def _detail(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _status_detail(status: Status) -> str:
    return status.message or str(status.code)


def _batch_scores(name: str, result: object, n: int) -> list[int] | Status:
    """Check what a ``score_nodes`` returned: its list of *n* scores, or the ERROR to report."""
    prefix = f'running Score plugins: plugin "{name}" failed with: '
    if isinstance(result, list):
        if len(result) == n:
            return result
        return Status(Code.ERROR, (f"{prefix}returned {len(result)} scores for {n} nodes",), name)
    if isinstance(result, Status) and result.code is not _SUCCESS:
        return Status(Code.ERROR, (prefix + _status_detail(result),), name, result.error)
    shown = repr(result)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return Status(Code.ERROR, (f"{prefix}score_nodes returned {type(result).__name__} {shown}, "
                               "want a list of ints or a non-success Status",), name)


def _normalize(state: CycleState, pod: Pod, name: str, ext: ScoreExtensions,
               nodes: Sequence[NodeInfo], raw: list[int]) -> list[int] | Status:
    """NormalizeScore through ``normalize_score`` (on :class:`~schedframe.NodeScore` objects): the
    normalized scores in node order, or the ERROR to report."""
    prefix = f'running Normalize on Score plugins: plugin "{name}" failed with: '
    scores = [NodeScore(ni.name, v) for ni, v in zip(nodes, raw)]
    try:
        s: object = ext.normalize_score(state, pod, scores)
    except Exception as exc:
        logger.warning("NormalizeScore of %r raised", name, exc_info=exc)
        return Status(Code.ERROR, (prefix + _detail(exc),), name, exc)
    if s is not None and not isinstance(s, Status):
        return Status(Code.ERROR, (f"{prefix}returned {type(s).__name__}, want a Status or None",), name)
    if s is not None and s.code is not _SUCCESS:
        return Status(Code.ERROR, (prefix + _status_detail(s),), name, s.error)
    if len(scores) != len(nodes):
        return Status(Code.ERROR, (f"{prefix}returned {len(scores)} scores for {len(nodes)} nodes",),
                      name)
    try:
        return [ns.score for ns in scores]
    except AttributeError as exc:  # something else than a NodeScore was put in the list
        return Status(Code.ERROR, (prefix + _detail(exc),), name, exc)


def _normalize_ints(state: CycleState, pod: Pod, name: str, fn: _NormalizeIntsFn,
                    nodes: Sequence[NodeInfo], raw: list[int]) -> list[int] | Status:
    """NormalizeScore through ``normalize_score_ints`` (no NodeScore objects); errors worded as
    :func:`_normalize` words them."""
    prefix = f'running Normalize on Score plugins: plugin "{name}" failed with: '
    try:
        result = fn(state, pod, nodes, raw)
    except Exception as exc:
        logger.warning("NormalizeScore of %r raised", name, exc_info=exc)
        return Status(Code.ERROR, (prefix + _detail(exc),), name, exc)
    if isinstance(result, list):
        if len(result) != len(nodes):
            return Status(Code.ERROR, (f"{prefix}returned {len(result)} scores for {len(nodes)} nodes",),
                          name)
        return result
    if isinstance(result, Status) and result.code is not _SUCCESS:
        return Status(Code.ERROR, (prefix + _status_detail(result),), name, result.error)
    return Status(Code.ERROR, (f"{prefix}normalize_score_ints returned {type(result).__name__}, "
                               "want a list of ints or a non-success Status",), name)


#: Whether :func:`scores_in_range` believes plugins that declare their scores in range. The
#: test suite sets it False, so that every test checks the built-in plugins' scores too.
TRUST_DECLARED_RANGES = True


def scores_in_range(plugin: object) -> bool:
    """Whether *plugin*'s scores skip the range check: the built-in Score plugins declare (class
    attribute ``_schedframe_scores_in_range``) that Score, ``score_nodes`` and NormalizeScore
    give ints in ``[MIN_NODE_SCORE, MAX_NODE_SCORE]`` by construction, which the test suite
    verifies (:data:`TRUST_DECLARED_RANGES` off). Upstream checks every plugin's scores each
    cycle; the answer is the same, without the scan of every plugin's scores."""
    return TRUST_DECLARED_RANGES and getattr(type(plugin), "_schedframe_scores_in_range", False) is True


def _check_range(names: Sequence[str], lists: Sequence[list[int]], n: int) -> Status | None:
    """The ERROR for the first score (in node, then plugin, order) of *lists* (one per plugin of
    *names*, *n* scores each) that is not an int in ``[MIN_NODE_SCORE, MAX_NODE_SCORE]``, or
    ``None`` when every score is."""
    if not lists or not n:
        return None
    try:
        for lst in lists:
            # the distinct values (few: scores are coarse) tell as much as the list
            try:
                values: Any = set(lst)
            except TypeError:  # unhashable junk: look at the list itself
                values = lst
            # a float (NaN included) makes a sum a float; a str or None raises
            if (min(values) < MIN_NODE_SCORE or max(values) > MAX_NODE_SCORE
                    or sum(values).__class__ is not int):
                break
        else:
            return None
    except TypeError:
        pass
    for i in range(n):  # report the first offender in node, then plugin, order
        for name, lst in zip(names, lists):
            score = lst[i]
            if score.__class__ is not int or not MIN_NODE_SCORE <= score <= MAX_NODE_SCORE:
                shown = score if score.__class__ is int else repr(score)
                return Status(
                    Code.ERROR,
                    (f'applying score defaultWeights on Score plugins: plugin "{name}" returns '
                     f"an invalid score {shown}, it should in the range of [{MIN_NODE_SCORE}, "
                     f"{MAX_NODE_SCORE}] after normalizing",),
                    name,
                )
    return None  # pragma: no cover  (the quick check above found an offender)
