"""A single-point Filter plugin: keep GPU nodes for pods that need a GPU.

``ReserveGPUNodes`` rejects every node that offers GPUs (``nvidia.com/gpu`` in its allocatable
resources) for a pod that requests none, so CPU-only pods cannot fill the expensive nodes.

It implements one extension point, Filter, plus ``events_to_register`` so that a pod it rejected
is retried only when a node event could change its answer. Run this file to see it at work in a
two-node cluster::

    python docs/examples/single_filter.py
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, final

from schedframe import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    Handle,
    NodeInfo,
    Pod,
    Registry,
    Status,
)

NAME: Final = "ReserveGPUNodes"
GPU: Final = "nvidia.com/gpu"
#: The reason of the rejection, shown in "0/N nodes are available: ..." messages.
ERR_REASON: Final = "node(s) are reserved for GPU pods"

# Evicting pods does not turn a GPU node into a CPU node, so preemption cannot help:
# UNSCHEDULABLE_AND_UNRESOLVABLE. Built once: the success path allocates nothing.
_RESERVED: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON,))


@final
class ReserveGPUNodes:
    """Filter: a node with GPUs accepts only pods that request a GPU."""

    name: Final = NAME

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Reject GPU nodes for pods without a GPU request (``None`` means success)."""
        if pod.requests.get(GPU) > 0 or node_info.allocatable.get(GPU) == 0:
            return None
        return _RESERVED

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """A rejected pod may fit when a node is added or its allocatable resources change."""
        return (
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD)),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_ALLOCATABLE)),
        )


def new(args: object, handle: Handle) -> ReserveGPUNodes:
    """The factory the registry calls: ``new(args, handle)``. This plugin takes no args."""
    if args is not None:
        raise TypeError(f"{NAME} takes no args, got {type(args).__name__}")
    return ReserveGPUNodes()


def register(registry: Registry) -> None:
    """Add the plugin to *registry*."""
    registry.register(NAME, new)


if TYPE_CHECKING:
    from schedframe import EnqueueExtensions, FilterPlugin

    _filter: FilterPlugin = ReserveGPUNodes()
    _events: EnqueueExtensions = ReserveGPUNodes()


def main() -> None:
    """Schedule a CPU pod and a GPU pod in a two-node cluster, with and without the plugin."""
    from schedframe import Scheduler
    from schedframe.plugins import in_tree_registry
    from schedframe.testing import PluginHarness, make_node, make_pod

    registry = in_tree_registry()
    register(registry)

    cpu_node = make_node("cpu-1").capacity(cpu="4", memory="16Gi", pods=110).obj()
    gpu_node = make_node("gpu-1").capacity(cpu="32", memory="128Gi", pods=110, **{GPU: 4}).obj()
    web = make_pod("web").req(cpu="1", memory="1Gi").obj()
    train = make_pod("train").req(cpu="8", memory="32Gi", **{GPU: 1}).obj()

    # The plugin alone, through the test harness: one status per node.
    harness = PluginHarness(NAME, nodes=[cpu_node, gpu_node], registry=registry)
    assert harness.filter(web) == {"cpu-1": Status.OK, "gpu-1": Status.unresolvable(ERR_REASON)}
    assert harness.filter(train) == {"cpu-1": Status.OK, "gpu-1": Status.OK}

    # Without the plugin, the default scoring (LeastAllocated) sends `web` to the big GPU node.
    plain = Scheduler()
    plain.add_node(cpu_node)
    plain.add_node(gpu_node)
    plain.add_pod(web)
    plain.run_until_idle()
    assert plain.node_of(web) == "gpu-1"

    # With the plugin enabled at Filter, on top of the default plugins.
    config = {"profiles": [{"plugins": {"filter": {"enabled": [{"name": NAME}]}}}]}
    sched = Scheduler(config, registry=registry)
    sched.add_node(cpu_node)
    sched.add_node(gpu_node)
    for pod in (web, train, make_pod("web-2").req(cpu="4").obj()):
        sched.add_pod(pod)
    sched.run_until_idle()

    assert sched.bindings() == {"default/web": "cpu-1", "default/train": "gpu-1"}
    [pending] = sched.pending()
    assert pending.pod.name == "web-2"
    # cpu-1 lacks CPU (evicting a pod of the same priority is not allowed); gpu-1 is reserved,
    # which no eviction can change (UNSCHEDULABLE_AND_UNRESOLVABLE).
    assert pending.message == (
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) are reserved for GPU pods. "
        "preemption: 0/2 nodes are available: "
        "1 No preemption victims found for incoming pod, "
        "1 Preemption is not helpful for scheduling."
    ), pending.message
    print(sched.bindings())
    print(f"{pending.pod.name}: {pending.message}")


if __name__ == "__main__":
    main()
