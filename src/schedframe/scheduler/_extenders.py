"""The Scheduler's calls to its extenders (upstream ``findNodesThatPassExtenders``, the
extenders' part of ``prioritizeNodes``, ``extendersBinding`` in ``schedule_one.go``, and
``buildExtenders``). The filter and prioritize logic itself lives in
:mod:`schedframe.framework.extender`, which ``explain`` calls too.

Part of :class:`~schedframe.Scheduler` (a mixin); imports ``_state`` and the layers below.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import attrs

from ..api.objects import Pod
from ..cache.nodeinfo import NodeInfo
from ..errors import ExtenderError
from ..framework.diagnosis import Diagnosis
from ..framework.extender import Extender, extenders_filter, extenders_prioritize, shown_url
from ..framework.status import Status
from ._state import SchedulerBase

__all__ = ["ExtendersMixin", "with_extender_ignored_resources"]

logger = logging.getLogger("schedframe")


def _log_skipped(extender: Extender, exc: ExtenderError) -> None:
    logger.info("skipping extender %s as it returned error and has ignorable flag set: %s",
                shown_url(extender.name), exc)


def _log_prioritize_failed(extender: Extender, exc: ExtenderError) -> None:
    logger.info("failed to run extender %s's priority function, no score given by it: %s",
                shown_url(extender.name), exc)


class ExtendersMixin(SchedulerBase):
    """The extender calls of :class:`~schedframe.Scheduler` (internal)."""

    @property
    def _extenders_filter_or_score(self) -> bool:
        return any(e.is_filter() or e.is_prioritizer() for e in self.extenders)

    def _find_nodes_that_pass_extenders(self, pod: Pod, feasible: list[NodeInfo], diagnosis: Diagnosis
                                        ) -> tuple[list[NodeInfo], Status | None]:
        """Run the interested extenders' filter verbs in turn on the feasible nodes (see
        :func:`~schedframe.framework.extender.extenders_filter`); an ignorable extender that errs
        is skipped (logged), any other fails the cycle with an ERROR."""
        return extenders_filter(self.extenders, pod, feasible, diagnosis, on_skipped=_log_skipped)

    def _add_extender_scores(self, pod: Pod, nodes: Sequence[NodeInfo], totals: list[int]) -> list[int]:
        """Add each interested extender's prioritize scores, times its weight, scaled from
        0..MAX_EXTENDER_PRIORITY to 0..MAX_NODE_SCORE; a failing extender gives no scores."""
        for _extender, weight, pairs in extenders_prioritize(self.extenders, pod, nodes,
                                                             on_error=_log_prioritize_failed):
            for i, score in pairs:
                totals[i] += score * weight
        return totals

    def _extenders_binding(self, pod: Pod, host: str) -> Status | None:
        """Bind through the first interested binder extender: its status, or ``None`` when no
        extender binds the pod (the Bind plugins run). An ignorable binder that fails is skipped.
        The extender binds the pod in the cluster, so the scheduler's binder is not called."""
        for extender in self.extenders:
            if not extender.is_binder() or not extender.is_interested(pod):
                continue
            try:
                extender.bind(pod, host)
            except ExtenderError as exc:
                if extender.is_ignorable():
                    logger.info("skipping extender %s in bind as it returned error and has ignorable "
                                "flag set: %s", extender.name, exc)
                    continue
                return Status.from_error(exc)
            return Status.OK
        return None


def with_extender_ignored_resources(profile: Any, config: Any) -> Any:
    """Upstream ``buildExtenders``: the extenders' managed resources marked
    ``ignoredByScheduler`` become NodeResourcesFit's ``ignoredResources`` (replacing the
    configured ones). A profile without NodeResourcesFit args is left as it is (upstream refuses
    to start)."""
    ignored = [r.name for ext in config.extenders for r in ext.managed_resources if r.ignored_by_scheduler]
    args = profile.plugin_args.get("NodeResourcesFit")
    if not ignored or args is None or not attrs.has(type(args)) or not hasattr(args, "ignored_resources"):
        return profile
    plugin_args = dict(profile.plugin_args)
    plugin_args["NodeResourcesFit"] = attrs.evolve(args, ignored_resources=tuple(ignored))
    return attrs.evolve(profile, plugin_args=plugin_args)
