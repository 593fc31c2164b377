"""A multi-point plugin: PreFilter, Filter, PreScore and Score sharing a typed CycleState key.

``CPUHeadroom`` serves pods annotated ``example.com/cpu-headroom: "500m"``: such a pod only goes
to nodes that keep at least that much CPU unrequested after placing it (Filter), and prefers the
nodes that keep the most (Score).

The work is split the way kube-scheduler's own plugins split it:

* **PreFilter** runs once per pod: it parses the annotation (a Kubernetes quantity) and writes
  what Filter needs to the :class:`~schedframe.CycleState` under a typed
  :class:`~schedframe.StateKey`. A pod without the annotation gets ``SKIP``, so the framework
  does not call this plugin's Filter for it at all.
* **Filter** runs once per node: two attribute reads and a comparison.
* **PreScore** reuses the PreFilter state (or computes it when PreFilter did not run in this
  cycle), and skips Score for pods without the annotation.
* **Score** maps the CPU left free to [0, 100].

Run it::

    python docs/examples/multipoint.py
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, final

import attrs

from schedframe import (
    MAX_NODE_SCORE,
    Code,
    CycleState,
    Handle,
    NodeInfo,
    Pod,
    PreFilterExtensions,
    PreFilterResult,
    Registry,
    ScoreExtensions,
    StateKey,
    Status,
)
from schedframe.api import Quantity
from schedframe.errors import QuantityError

NAME: Final = "CPUHeadroom"
ANNOTATION: Final = "example.com/cpu-headroom"
#: Filter reason when the node would keep less free CPU than the pod asks for.
ERR_REASON: Final = "node(s) would keep less than the requested CPU headroom"

_TOO_TIGHT: Final = Status.unschedulable(ERR_REASON)


@attrs.frozen
class HeadroomState:
    """What PreFilter computed for the pod: the CPU a node must have unrequested, in millicores
    (the pod's own request plus the headroom). Frozen, so ``CycleState.clone()`` can share it."""

    needed_milli_cpu: int


#: The typed key: ``state.read(HEADROOM)`` is a ``HeadroomState`` for mypy, and a missing key
#: raises ``StateNotFoundError`` naming the writer.
HEADROOM: Final = StateKey[HeadroomState]("PreFilter" + NAME, writer=NAME)


def _headroom_of(pod: Pod) -> HeadroomState | Status | None:
    """The pod's state; ``None`` without the annotation; a rejection when it is malformed."""
    raw = pod.annotations.get(ANNOTATION)
    if raw is None:
        return None
    try:
        headroom = Quantity.parse(raw).milli_value()
    except QuantityError as exc:
        # Another node or preemption cannot fix the pod's own annotation: unresolvable.
        return Status.unresolvable(f"annotation {ANNOTATION}: {exc}")
    return HeadroomState(pod.requests.milli_cpu + headroom)


def _free_milli_cpu(node_info: NodeInfo) -> int:
    return node_info.allocatable.milli_cpu - node_info.requested.milli_cpu


@final
class CPUHeadroom:
    """PreFilter + Filter + PreScore + Score for the ``example.com/cpu-headroom`` annotation."""

    name: Final = NAME

    # -- PreFilter: once per pod -----------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        """Parse the annotation once and store the result; SKIP pods without it."""
        computed = _headroom_of(pod)
        if computed is None:
            return None, Status.skip()
        if isinstance(computed, Status):
            return None, computed
        state.write(HEADROOM, computed)
        return None, None  # no PreFilterResult: every node is a candidate

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        """None: the state does not depend on the other pods, nothing to update incrementally."""
        return None

    # -- Filter: once per node -------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Reject nodes that would keep too little free CPU (preemption could help)."""
        if _free_milli_cpu(node_info) < state.read(HEADROOM).needed_milli_cpu:
            return _TOO_TIGHT
        return None

    # -- PreScore / Score ------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """Reuse the PreFilter state of this cycle; compute it when PreFilter did not run (as in
        ``PluginHarness.score``); SKIP Score for pods without the annotation."""
        if HEADROOM in state:
            return None
        computed = _headroom_of(pod)
        if computed is None:
            return Status.skip()
        if isinstance(computed, Status):
            return computed
        state.write(HEADROOM, computed)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The share of the node's CPU left free after placing the pod and its headroom."""
        allocatable = node_info.allocatable.milli_cpu
        if allocatable <= 0:
            return 0, None
        spare = _free_milli_cpu(node_info) - state.read(HEADROOM).needed_milli_cpu
        return max(0, min(MAX_NODE_SCORE, spare * MAX_NODE_SCORE // allocatable)), None

    def score_extensions(self) -> ScoreExtensions | None:
        """None: scores are already in [0, 100], no NormalizeScore needed."""
        return None


def new(args: object, handle: Handle) -> CPUHeadroom:
    """The factory: ``new(args, handle)``. This plugin takes no args."""
    if args is not None:
        raise TypeError(f"{NAME} takes no args, got {type(args).__name__}")
    return CPUHeadroom()


def register(registry: Registry) -> None:
    """Add the plugin to *registry*."""
    registry.register(NAME, new)


if TYPE_CHECKING:
    from schedframe import FilterPlugin, PreFilterPlugin, PreScorePlugin, ScorePlugin

    _pre_filter: PreFilterPlugin = CPUHeadroom()
    _filter: FilterPlugin = CPUHeadroom()
    _pre_score: PreScorePlugin = CPUHeadroom()
    _score: ScorePlugin = CPUHeadroom()


def main() -> None:
    """Check the plugin alone with PluginHarness, then schedule pods with it."""
    from schedframe import Scheduler
    from schedframe.errors import StateNotFoundError
    from schedframe.plugins import in_tree_registry
    from schedframe.testing import PluginHarness, make_node, make_pod

    registry = in_tree_registry()
    register(registry)

    nodes = [
        make_node("small").capacity(cpu="2", memory="8Gi", pods=110).obj(),
        make_node("large").capacity(cpu="8", memory="8Gi", pods=110).obj(),
    ]
    busy = make_pod("busy").node("large").req(cpu="5").obj()  # already running on "large"
    roomy = make_pod("roomy").req(cpu="1").annotation(ANNOTATION, "1500m").obj()
    plain = make_pod("plain").req(cpu="1").obj()

    h = PluginHarness(NAME, nodes=nodes, pods=[busy], registry=registry)
    # "small": 2000m free < 1000m + 1500m; "large": 3000m free >= 2500m.
    assert h.filter(roomy) == {"small": Status.unschedulable(ERR_REASON), "large": Status.OK}
    assert h.state.read(HEADROOM) == HeadroomState(2500)
    # Without the annotation PreFilter says SKIP: Filter is not even called, PreScore skips too.
    assert h.pre_filter(plain) == (None, Status.skip())
    assert h.filter(plain) == {"small": Status.OK, "large": Status.OK}
    assert h.score(plain) == {"small": 0, "large": 0}
    # Scores: (3000 - 2500) * 100 // 8000 on "large"; "small" would be negative, clamped to 0.
    assert h.score(roomy) == {"small": 0, "large": 6}
    bad = make_pod("bad").annotation(ANNOTATION, "lots").obj()
    _, status = h.pre_filter(bad)
    assert status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE, status
    # Reading a key nobody wrote names the plugin expected to write it.
    message = ""
    try:
        CycleState().read(HEADROOM)
    except StateNotFoundError as exc:
        message = str(exc)
    assert "written by plugin 'CPUHeadroom'" in message, message

    # In a scheduler, enabled at every point it implements (multiPoint), with Score weight 3.
    config = {"profiles": [{"plugins": {"multiPoint": {"enabled": [{"name": NAME, "weight": 3}]}}}]}
    sched = Scheduler(config, registry=registry)
    profile = sched.config.profiles[0]
    assert [r.name for r in profile.plugins_at("preFilter")][-1] == NAME
    assert any(r.name == NAME and r.weight == 3 for r in profile.plugins_at("score"))
    for node in nodes:
        sched.add_node(node)
    sched.add_pod(busy)
    sched.add_pod(roomy)
    sched.add_pod(make_pod("greedy").req(cpu="1").annotation(ANNOTATION, "4").obj())
    sched.run_until_idle()
    assert sched.node_of(roomy) == "large"
    [pending] = sched.pending()
    assert pending.pod.name == "greedy"
    # UNSCHEDULABLE lets preemption try: it finds no lower-priority pod to evict.
    assert pending.message == (
        f"0/2 nodes are available: 2 {ERR_REASON}. "
        "preemption: 0/2 nodes are available: "
        "2 No preemption victims found for incoming pod."
    ), pending.message
    print(sched.bindings())
    print(f"{pending.pod.name}: {pending.message}")


if __name__ == "__main__":
    main()
