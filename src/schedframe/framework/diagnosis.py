"""Why a pod fits no node: :class:`Diagnosis`, :class:`~schedframe.FitError` and upstream's messages.

The scheduling cycle (:mod:`schedframe.scheduler`), ``explain`` and
:class:`~schedframe.testing.PluginHarness` all build their failure statuses and messages here,
so each of upstream's texts exists once:

* :func:`pre_filter_result_rejection` -- the PreFilterResults of several plugins leave no node
  (``"node(s) didn't satisfy plugin(s) [A B] simultaneously"``);
* :func:`outside_pre_filter_result` -- the status of a node a PreFilterResult excludes
  (``"node(s) didn't satisfy plugin(s) [A]"``);
* :attr:`schedframe.FitError.message` -- ``"0/5 nodes are available: ..."``.

May import :mod:`schedframe.api`, :mod:`schedframe.errors` and the framework's own modules.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Final, final

from ..errors import SchedframeError
from .interfaces import NodeToStatus
from .status import Code, Status

if TYPE_CHECKING:
    from ..api.objects import Pod

__all__ = [
    "ERR_NO_NODES_AVAILABLE",
    "Diagnosis",
    "FitError",
    "go_list",
    "outside_pre_filter_result",
    "pre_filter_result_rejection",
    "single_node_failure",
]

#: Upstream ``ErrNoNodesAvailable``.
ERR_NO_NODES_AVAILABLE: Final = "no nodes available to schedule pods"


def go_list(names: Iterable[str]) -> str:
    """*names* as Go prints a ``[]string``: ``[a b c]``."""
    return "[" + " ".join(names) + "]"


def pre_filter_result_rejection(plugins: Iterable[str]) -> Status:
    """The UNSCHEDULABLE_AND_UNRESOLVABLE status when the intersection of the PreFilterResults of
    *plugins* is empty (upstream ``RunPreFilterPlugins``)."""
    names = sorted(plugins)
    msg = (f"node(s) didn't satisfy plugin {names[0]}" if len(names) == 1
           else f"node(s) didn't satisfy plugin(s) {go_list(names)} simultaneously")
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (msg,))


def outside_pre_filter_result(plugins: Iterable[str]) -> Status:
    """The UNSCHEDULABLE_AND_UNRESOLVABLE status of a node outside the PreFilterResult that
    *plugins* returned (upstream ``findNodesThatFitPod``)."""
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                  (f"node(s) didn't satisfy plugin(s) {go_list(sorted(plugins))}",))


@final
class Diagnosis:
    """Why a pod fits no node: per-node statuses and the plugins that rejected it."""

    __module__ = "schedframe"
    __slots__ = ("node_to_status", "pending_plugins", "post_filter_msg", "pre_filter_msg",
                 "unschedulable_plugins")

    def __init__(self, node_to_status: NodeToStatus | None = None) -> None:
        self.node_to_status = node_to_status if node_to_status is not None else NodeToStatus()
        self.unschedulable_plugins: set[str] = set()
        self.pending_plugins: set[str] = set()
        self.pre_filter_msg = ""
        self.post_filter_msg = ""

    def add_plugin_status(self, status: Status) -> None:
        """Record *status*'s plugin as rejecting (or pending) the pod (upstream ``AddPluginStatus``)."""
        if not status.plugin:
            return
        if status.is_rejected():
            self.unschedulable_plugins.add(status.plugin)
        if status.code is Code.PENDING:
            self.pending_plugins.add(status.plugin)

    def reject_all(self, status: Status) -> None:
        """PreFilter rejected the pod with *status*: every node's status, and the message."""
        self.node_to_status.absent_nodes_status = status
        self.pre_filter_msg = status.message
        self.add_plugin_status(status)


@final
class FitError(SchedframeError):
    """A pod fits no node. ``str()`` is upstream's message, e.g.
    ``"0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint(s)."``.

    Carried as the ``error`` of the UNSCHEDULABLE :class:`~schedframe.Status` of a failed cycle;
    never raised to callers.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    def __init__(self, pod: Pod, num_all_nodes: int, diagnosis: Diagnosis) -> None:
        super().__init__(pod.key)
        self.pod = pod
        self.num_all_nodes = num_all_nodes
        self.diagnosis = diagnosis

    @property
    def message(self) -> str:
        """``"0/X nodes are available: <PreFilter msg>. <Filter reasons>. <PostFilter msg>"``."""
        d = self.diagnosis
        msg = f"0/{self.num_all_nodes} nodes are available:"
        if d.pre_filter_msg:
            msg += f" {d.pre_filter_msg}."
        else:
            counts: dict[str, int] = {}
            nts = d.node_to_status
            for _, status in nts.items():
                for reason in status.reasons:
                    counts[reason] = counts.get(reason, 0) + 1
            absent = self.num_all_nodes - len(nts)
            if absent > 0:
                for reason in nts.absent_nodes_status.reasons:
                    counts[reason] = counts.get(reason, 0) + absent
            histogram = sorted(f"{n} {reason}" for reason, n in counts.items())
            if histogram:
                msg += f" {', '.join(histogram)}."
        if d.post_filter_msg:
            msg += f" {d.post_filter_msg}"
        return msg

    def __str__(self) -> str:
        return self.message


def single_node_failure(pod: Pod, host: str, status: Status) -> Status:
    """A Reserve or Permit rejection on *host*: the status carrying a one-node FitError
    (upstream); other statuses unchanged."""
    if not status.is_rejected():
        return status
    diagnosis = Diagnosis()
    diagnosis.node_to_status.set(host, status)
    diagnosis.add_plugin_status(status)
    fit = FitError(pod, 1, diagnosis)
    return Status(status.code, (fit.message,), status.plugin, fit)
