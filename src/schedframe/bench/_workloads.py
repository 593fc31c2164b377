"""The workloads: kube-scheduler's ``scheduler_perf`` shapes, rebuilt with schedframe objects.

Node and pod templates follow upstream's ``test/integration/scheduler_perf/templates``:

* ``node-default.yaml``: capacity ``cpu: 4``, ``memory: 32Gi``, ``pods: 110`` (allocatable
  defaults to capacity), condition ``Ready``, no labels. Workloads that need zones add
  ``topology.kubernetes.io/zone`` round-robin over their values, as upstream's
  ``labelNodePrepareStrategy`` does. Like upstream's nodes (no kubelet), nodes carry no
  ``kubernetes.io/hostname`` label.
* ``pod-default.yaml``: one ``pause`` container, requests = limits = ``cpu: 100m``,
  ``memory: 500Mi``, ``containerPort: 80`` (no host port).
* the affinity / spreading / pinning / priority variants of the same pod.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Final

from ..api.objects import ContainerPort, Node, Pod
from ..testing import PodBuilder, make_node, make_pod, selector
from ._model import BenchmarkError, BenchPodGroup, BenchWorkload, Churn, NodeGroup
from ._realistic import mixed_series_workloads, realistic_workloads

__all__ = [
    "HOSTNAME_LABEL",
    "PAUSE_IMAGE",
    "WORKLOADS",
    "ZONE_LABEL",
    "BenchmarkError",
    "Churn",
    "NodeGroup",
    "BenchPodGroup",
    "BenchWorkload",
    "daemonset_pod",
    "default_node",
    "default_pod",
    "get_workload",
    "select_workloads",
]

ZONE_LABEL: Final = "topology.kubernetes.io/zone"
HOSTNAME_LABEL: Final = "kubernetes.io/hostname"
PAUSE_IMAGE: Final = "registry.k8s.io/pause:3.10.1"
#: The node every SchedulingDaemonset pod is pinned to (upstream ``node-with-name.yaml``).
DAEMONSET_NODE: Final = "scheduler-perf-node"
#: Upstream's ``namespaces: ["sched-1", "sched-0"]`` of the (anti-)affinity templates.
_SCHED_NAMESPACES: Final = ("sched-1", "sched-0")
#: the workload groups (``all`` selects performance and memory)
GROUPS: Final = ("performance", "memory", "series", "realistic")


# --------------------------------------------------------------------------------------------
# node templates


def default_node(name: str, labels: Mapping[str, str] | None = None, *, pods: int = 110) -> Node:
    """Upstream ``node-default.yaml``: cpu 4, memory 32Gi, pods 110, Ready."""
    b = make_node(name).capacity(cpu="4", memory="32Gi", pods=pods).condition("Ready")
    if labels:
        b = b.labels(labels)
    return b.obj()


def _plain_nodes(count: int) -> NodeGroup:
    return NodeGroup(count=count, make=lambda i: default_node(f"scheduler-perf-{i}"))


def _zoned_nodes(count: int, zones: Sequence[str]) -> NodeGroup:
    # labelNodePrepareStrategy: label values assigned round-robin in creation order
    return NodeGroup(count=count,
                     make=lambda i: default_node(f"scheduler-perf-{i}", {ZONE_LABEL: zones[i % len(zones)]}))


def _daemonset_node(_: int) -> Node:
    """Upstream ``node-with-name.yaml``: the one node all SchedulingDaemonset pods pin to."""
    return default_node(DAEMONSET_NODE, {HOSTNAME_LABEL: DAEMONSET_NODE}, pods=90000)


# --------------------------------------------------------------------------------------------
# pod templates


def _pause(name: str, namespace: str, *, cpu: str | None = "100m", memory: str | None = "500Mi",
           limits: bool = True, port: bool = True) -> PodBuilder:
    requests_limits = {"cpu": cpu, "memory": memory} if limits and cpu and memory else None
    return make_pod(name, namespace).container(
        PAUSE_IMAGE, name="pause", cpu=cpu, memory=memory, limits=requests_limits,
        ports=(ContainerPort(container_port=80),) if port else ())


def default_pod(name: str, namespace: str = "default") -> Pod:
    """Upstream ``pod-default.yaml``."""
    return _pause(name, namespace).obj()


def node_affinity_pod(name: str, namespace: str = "default") -> Pod:
    """Upstream ``pod-with-node-affinity.yaml``: requires zone in (zone1, zone2)."""
    return _pause(name, namespace).node_affinity_in(ZONE_LABEL, ("zone1", "zone2")).obj()


def pod_anti_affinity_pod(name: str, namespace: str = "default") -> Pod:
    """Upstream ``pod-with-pod-anti-affinity.yaml``: ``color: green``, required anti-affinity to
    green pods on the same hostname."""
    return (_pause(name, namespace).label("color", "green")
            .pod_anti_affinity(HOSTNAME_LABEL, selector({"color": "green"}), namespaces=_SCHED_NAMESPACES)
            .obj())


def pod_affinity_pod(name: str, namespace: str = "default") -> Pod:
    """Upstream ``pod-with-pod-affinity.yaml``: ``color: blue``, required affinity to blue pods
    in the same zone."""
    return (_pause(name, namespace).label("color", "blue")
            .pod_affinity(ZONE_LABEL, selector({"color": "blue"}), namespaces=_SCHED_NAMESPACES)
            .obj())


def preferred_pod_affinity_pod(name: str, namespace: str = "default") -> Pod:
    """Upstream ``pod-with-preferred-pod-affinity.yaml``: ``color: red``, weight-1 affinity to red
    pods on the same hostname."""
    return (_pause(name, namespace).label("color", "red")
            .pod_affinity(HOSTNAME_LABEL, selector({"color": "red"}), namespaces=_SCHED_NAMESPACES,
                          weight=1)
            .obj())


def preferred_pod_anti_affinity_pod(name: str, namespace: str = "default") -> Pod:
    """Upstream ``pod-with-preferred-pod-anti-affinity.yaml``: ``color: yellow``, weight-1
    anti-affinity to yellow pods on the same hostname."""
    return (_pause(name, namespace).label("color", "yellow")
            .pod_anti_affinity(HOSTNAME_LABEL, selector({"color": "yellow"}), namespaces=_SCHED_NAMESPACES,
                               weight=1)
            .obj())


def _spreading_pod(name: str, namespace: str, when: str) -> Pod:
    return (_pause(name, namespace).label("color", "blue")
            .spread_constraint(5, ZONE_LABEL, when, selector({"color": "blue"}))
            .obj())


def topology_spreading_pod(name: str, namespace: str = "default") -> Pod:
    """Upstream ``pod-with-topology-spreading.yaml``: maxSkew 5 on zone, DoNotSchedule."""
    return _spreading_pod(name, namespace, "DoNotSchedule")


def preferred_topology_spreading_pod(name: str, namespace: str = "default") -> Pod:
    """Upstream ``pod-with-preferred-topology-spreading.yaml``: maxSkew 5 on zone,
    ScheduleAnyway."""
    return _spreading_pod(name, namespace, "ScheduleAnyway")


def daemonset_pod(name: str, namespace: str = "default") -> Pod:
    """Upstream ``daemonset-pod.yaml``: pinned to ``scheduler-perf-node`` by required node affinity
    ``matchFields metadata.name``; a pause container without requests."""
    return (make_pod(name, namespace).container(PAUSE_IMAGE, name="pause")
            .node_affinity_name(DAEMONSET_NODE).obj())


def low_priority_pod(name: str, namespace: str = "default") -> Pod:
    """Upstream ``pod-low-priority.yaml``: 900m CPU, 500Mi, no priority."""
    return _pause(name, namespace, cpu="900m").obj()


def high_priority_pod(name: str, namespace: str = "default") -> Pod:
    """Upstream ``pod-high-priority.yaml``: priority 10, 3 CPU, 500Mi."""
    return _pause(name, namespace, cpu="3000m").priority(10).obj()


def high_priority_large_cpu_pod(name: str, namespace: str = "default") -> Pod:
    """Upstream ``pod-high-priority-large-cpu.yaml``: priority 10, requests 9 CPU (fits no node)."""
    return _pause(name, namespace, cpu="9", limits=False).priority(10).obj()


def _pods(count: int, template: Callable[[str, str], Pod], prefix: str, namespace: str = "default"
          ) -> BenchPodGroup:
    return BenchPodGroup(count=count, make=lambda i: template(f"{prefix}-{i}", namespace))


# --------------------------------------------------------------------------------------------
# the workloads of PERFORMANCE.md


def _scheduling_basic(init: int, measured: int, floor: float) -> BenchWorkload:
    return BenchWorkload(
        name=f"SchedulingBasic/5000Nodes_{measured}Pods",
        description="default pods on default nodes",
        nodes=(_plain_nodes(5000),),
        initial=(_pods(init, default_pod, "init"),),
        measured=(_pods(measured, default_pod, "pod"),),
        floor=floor,
    )


def _affinity_workload(name: str, description: str, template: Callable[[str, str], Pod], init: int,
                       measured: int, floor: float, *, zones: Sequence[str] = ()) -> BenchWorkload:
    nodes = _zoned_nodes(5000, zones) if zones else _plain_nodes(5000)
    return BenchWorkload(
        name=name, description=description, nodes=(nodes,),
        initial=(_pods(init, template, "init", "sched-0"),),
        measured=(_pods(measured, template, "pod", "sched-1"),),
        namespaces=("sched-0", "sched-1"), floor=floor,
    )


def _spreading_workload(name: str, description: str, template: Callable[[str, str], Pod], floor: float
                        ) -> BenchWorkload:
    return BenchWorkload(
        name=name, description=description,
        nodes=(_zoned_nodes(5000, ("moon-1", "moon-2", "moon-3")),),
        initial=(_pods(5000, default_pod, "init"),),
        measured=(_pods(5000, template, "pod"),),
        floor=floor,
    )


def _builtin() -> list[BenchWorkload]:
    mixed_templates = (default_pod, pod_affinity_pod, pod_anti_affinity_pod, preferred_pod_affinity_pod,
                       preferred_pod_anti_affinity_pod)
    unschedulable_floor = 590.0
    out = [
        _scheduling_basic(1000, 10000, 680.0),
        _scheduling_basic(5000, 50000, 810.0),
        BenchWorkload(
            name="SchedulingDaemonset/15000Nodes",
            description="pods pinned to one named node by matchFields metadata.name, beside 15,000 others",
            nodes=(NodeGroup(count=1, make=_daemonset_node, scales=False), _plain_nodes(15000)),
            measured=(_pods(30000, daemonset_pod, "daemonset"),),
            floor=1100.0,
        ),
        _affinity_workload("SchedulingNodeAffinity/5000Nodes_10000Pods",
                           "required node affinity on zone (all nodes in zone1)", node_affinity_pod,
                           5000, 10000, 220.0, zones=("zone1",)),
        _affinity_workload("SchedulingPodAntiAffinity/5000Nodes_2000Pods",
                           "required pod anti-affinity on hostname (same label)", pod_anti_affinity_pod,
                           1000, 2000, 60.0),
        _affinity_workload("SchedulingPodAffinity/5000Nodes_5000Pods",
                           "required pod affinity on zone (one zone)", pod_affinity_pod,
                           5000, 5000, 35.0, zones=("zone1",)),
        _affinity_workload("SchedulingPreferredPodAffinity/5000Nodes_5000Pods",
                           "preferred pod affinity on hostname", preferred_pod_affinity_pod,
                           5000, 5000, 90.0),
        _affinity_workload("SchedulingPreferredPodAntiAffinity/5000Nodes_5000Pods",
                           "preferred pod anti-affinity on hostname", preferred_pod_anti_affinity_pod,
                           5000, 5000, 90.0),
        _spreading_workload("TopologySpreading/5000Nodes_5000Pods",
                            "maxSkew 5 on 3 zones, DoNotSchedule", topology_spreading_pod, 460.0),
        _spreading_workload("PreferredTopologySpreading/5000Nodes_5000Pods",
                            "maxSkew 5 on 3 zones, ScheduleAnyway", preferred_topology_spreading_pod, 340.0),
        BenchWorkload(
            name="MixedSchedulingBasePod/5000Nodes_5000Pods",
            description="default pods after 2,000 each of default/affinity/anti-affinity/preferred pods",
            nodes=(_zoned_nodes(5000, ("zone1",)),),
            initial=tuple(_pods(2000, t, f"init{k}", "sched-0") for k, t in enumerate(mixed_templates)),
            measured=(_pods(5000, default_pod, "pod"),),
            namespaces=("sched-0",),
            floor=140.0,
        ),
        BenchWorkload(
            name="Unschedulable/5kNodes/100Init/10kPods",
            description="default pods while priority-10 pods asking 9 CPUs (fit nowhere) keep arriving",
            nodes=(_plain_nodes(5000),),
            initial=(_pods(100, default_pod, "init"),),
            measured=(_pods(10000, default_pod, "pod"),),
            # upstream creates one every 200 ms: 5/s, i.e. one per floor/5 pods at the floor rate
            churn=Churn(make=lambda i: high_priority_large_cpu_pod(f"pod-h-{i}"),
                        every=round(unschedulable_floor / 5)),
            floor=unschedulable_floor,
        ),
        BenchWorkload(
            name="PreemptionBasic/1000Nodes",
            description="priority-10 pods (3 CPU) that must preempt low-priority pods (4 x 900m per node)",
            nodes=(_plain_nodes(1000),),
            initial=(_pods(4000, low_priority_pod, "low"),),
            measured=(_pods(1000, high_priority_pod, "high"),),
        ),
        BenchWorkload(
            name="Memory/5000Nodes_55000Pods",
            description="5,000 nodes holding 55,000 bound default pods in the cache (peak RSS)",
            nodes=(_plain_nodes(5000),),
            initial=(_pods(55000, default_pod, "bound"),),
            memory_target_mb=300.0,
            initial_mode="bind",
            group="memory",
        ),
    ]
    # scale series: cost growth with nodes and with bound pods (initial pods bound directly)
    for nodes in (500, 1000, 5000, 15000, 50000):
        out.append(BenchWorkload(
            name=f"Series/{nodes}Nodes_1000Init", description="SchedulingBasic, 1,000 measured pods",
            nodes=(_plain_nodes(nodes),), initial=(_pods(1000, default_pod, "init"),),
            measured=(_pods(1000, default_pod, "pod"),), initial_mode="bind", group="series"))
    for init in (10000, 50000):
        out.append(BenchWorkload(
            name=f"Series/5000Nodes_{init}Init", description="SchedulingBasic, 1,000 measured pods",
            nodes=(_plain_nodes(5000),), initial=(_pods(init, default_pod, "init"),),
            measured=(_pods(1000, default_pod, "pod"),), initial_mode="bind", group="series"))
    out.extend(mixed_series_workloads())

    out.extend(realistic_workloads())
    return out


#: Every built-in workload by name, in the order they run.
WORKLOADS: Final[Mapping[str, BenchWorkload]] = {w.name: w for w in _builtin()}


def get_workload(name: str) -> BenchWorkload:
    """The built-in workload *name*; raises :class:`BenchmarkError` if unknown."""
    try:
        return WORKLOADS[name]
    except KeyError:
        from ..errors import did_you_mean

        raise BenchmarkError(f"no workload named {name!r}{did_you_mean(name, WORKLOADS)} "
                             "(python -m schedframe.bench --list shows them all)") from None


def select_workloads(patterns: Iterable[str]) -> list[BenchWorkload]:
    """Workloads by exact name, name prefix (``SchedulingBasic`` selects both of its sizes) or
    group (``all`` = the performance workloads and the memory target, ``performance``,
    ``memory``, ``series``, ``realistic``); in suite order, without duplicates."""
    chosen: dict[str, BenchWorkload] = {}
    for pattern in patterns:
        if pattern == "all":
            found = [w for w in WORKLOADS.values() if w.group in ("performance", "memory")]
        elif pattern in GROUPS:
            found = [w for w in WORKLOADS.values() if w.group == pattern]
        elif pattern in WORKLOADS:
            found = [WORKLOADS[pattern]]
        else:
            found = [w for w in WORKLOADS.values() if w.name.startswith(pattern.rstrip("/") + "/")]
        if not found:
            get_workload(pattern)  # raises with a suggestion
        for w in found:
            chosen[w.name] = w
    order = list(WORKLOADS)
    return sorted(chosen.values(), key=lambda w: order.index(w.name))
