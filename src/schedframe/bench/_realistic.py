"""Workloads that look like real clusters: mixed node shapes, mixed pod sizes, constraints.

kube-scheduler's ``scheduler_perf`` shapes use one node shape and one pod shape, which is what
the run memos (``schedframe.plugins._run_memo``) are good at: identical nodes and pods are judged
once. These workloads are what they are not good at:

* ``SkippyComparison/5000Nodes_3000Pods``: 5,000 nodes of 32 CPU / 128 Gi, 3,000 pods with CPU
  in {250m, 500m, 1, 2, 4} and memory in {256Mi ... 8Gi}, chosen by a seeded generator; the
  same work :mod:`schedframe.bench._skippy` gives skippy-core.
* ``MixedShapes/5000Nodes_5000Pods``: 12 node shapes (2 to 96 CPUs) with hostname, zone,
  instance-type, pool and arch labels, some tainted; pods of 24 sizes, some with tolerations,
  node affinity (required and preferred), a node selector, zone and hostname spreading, and
  pod anti-affinity (preferred and required). ``UniformShapes/5000Nodes_5000Pods`` is the same
  size with one node shape and one pod size and no constraints.
* ``DefaultSpread/5000Nodes_5000Pods``: UniformShapes' nodes and pods, each pod owned by its
  app's ReplicaSet and selected by its app's Service, so that PodTopologySpread's system default
  constraints (zone and hostname, ``ScheduleAnyway``) score every pod, as they score a
  Deployment's pods in a real cluster; its uniform variant is UniformShapes (no owner, no
  Service: no default constraint).
* ``OpenB/1213Nodes_4000Pods`` and ``OpenB/10000Nodes_10000Pods``: node and pod CPU / memory
  sizes of Alibaba's openb GPU-cluster trace (GPUs left out), read from the trace's CSV files
  (the folder ``$SCHEDFRAME_OPENB`` names, read by :mod:`schedframe.gpushare.openb`); skipped
  when it is not set or the files are absent.
  Nodes come largest first (so a scaled-down run keeps nodes every pod fits on), and the
  10,000-node cluster repeats the 1,213 GPU nodes' shapes; pods are the default pod list's
  rows in order (repeated past its 8,152).
  ``OpenBUniform/...`` are the same sizes with the trace's most common node shape and its median
  pod.

Every choice is a function of the item's index (a string-seeded ``random.Random``), so a
workload scaled down is a prefix of the full one and runs are reproducible.
"""

from __future__ import annotations

import functools
import os
import random
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Final

from ..api.objects import LabelSelector, Node, OwnerReference, Pod, ReplicaSet, Service
from ..errors import GpuShareError
from ..gpushare.openb import read_nodes, read_tasks
from ..testing import make_node, make_pod, selector
from ._model import BenchmarkError, BenchPodGroup, BenchWorkload, NodeGroup

__all__ = [
    "OPENB_ENV",
    "SKIPPY_CPU_MILLI",
    "SKIPPY_MEMORY_MIB",
    "openb_dir",
    "mixed_series_workloads",
    "openb_unavailable",
    "realistic_workloads",
    "skippy_pod_size",
]

HOSTNAME_LABEL: Final = "kubernetes.io/hostname"
ZONE_LABEL: Final = "topology.kubernetes.io/zone"
INSTANCE_TYPE_LABEL: Final = "node.kubernetes.io/instance-type"
ARCH_LABEL: Final = "kubernetes.io/arch"
POOL_LABEL: Final = "example.com/pool"
APP_LABEL: Final = "app"
IMAGE: Final = "registry.k8s.io/pause:3.10.1"
ZONES: Final = ("zone-a", "zone-b", "zone-c")

#: the environment variable naming the openb CSV folder
OPENB_ENV: Final = "SCHEDFRAME_OPENB"
_OPENB_NODES: Final = "openb_node_list_gpu_node.csv"
_OPENB_PODS: Final = "openb_pod_list_default.csv"


def _rng(tag: str, i: int) -> random.Random:
    return random.Random(f"{tag}-{i}")


# --------------------------------------------------------------------------------------------
# the skippy comparison

#: CPU requests of the comparison's pods (millicores): 250m, 500m, 1, 2, 4
SKIPPY_CPU_MILLI: Final = (250, 500, 1000, 2000, 4000)
#: memory requests of the comparison's pods (MiB): 256Mi ... 8Gi
SKIPPY_MEMORY_MIB: Final = (256, 512, 1024, 2048, 4096, 8192)


def skippy_pod_size(i: int) -> tuple[int, int]:
    """``(milli CPU, MiB)`` of the comparison's pod *i* (the same for skippy and schedframe)."""
    r = _rng("skippy-pod", i)
    return r.choice(SKIPPY_CPU_MILLI), r.choice(SKIPPY_MEMORY_MIB)


def _skippy_node(i: int) -> Node:
    return make_node(f"node-{i}").capacity(cpu="32", memory="128Gi", pods=110).condition("Ready").obj()


def _skippy_pod(i: int) -> Pod:
    cpu, mem = skippy_pod_size(i)
    return make_pod(f"pod-{i}").container(IMAGE, name="main", cpu=f"{cpu}m", memory=f"{mem}Mi").obj()


# --------------------------------------------------------------------------------------------
# mixed shapes

#: (instance type, CPUs, memory GiB, pool, max pods)
_NODE_SHAPES: Final = (
    ("m.large", 2, 8, "general", 58),
    ("m.xlarge", 4, 16, "general", 58),
    ("r.xlarge", 4, 32, "memory", 58),
    ("m.2xlarge", 8, 32, "general", 110),
    ("r.2xlarge", 8, 64, "memory", 110),
    ("c.4xlarge", 16, 32, "compute", 110),
    ("m.4xlarge", 16, 64, "general", 110),
    ("m.8xlarge", 32, 128, "general", 110),
    ("r.8xlarge", 32, 256, "memory", 250),
    ("c.12xlarge", 48, 96, "compute", 250),
    ("m.16xlarge", 64, 256, "general", 250),
    ("c.24xlarge", 96, 192, "compute", 250),
)
#: (milli CPU, MiB) of the mixed pods
_POD_SIZES: Final = (
    (50, 64), (100, 128), (100, 256), (200, 256), (250, 512), (250, 1024), (500, 512), (500, 1024),
    (500, 2048), (750, 1536), (1000, 1024), (1000, 2048), (1000, 4096), (1500, 3072), (2000, 2048),
    (2000, 4096), (2000, 8192), (3000, 6144), (4000, 4096), (4000, 8192), (4000, 16384), (6000, 12288),
    (8000, 16384), (8000, 32768),
)
_APPS: Final = 60
_BATCH_TAINT: Final = ("dedicated", "batch")
_GPU_TAINT: Final = ("example.com/gpu", "true")


def _mixed_node(i: int) -> Node:
    kind, cpus, mem, pool, pods = _NODE_SHAPES[i % len(_NODE_SHAPES)]
    r = _rng("mixed-node", i)
    name = f"node-{i}"
    b = (make_node(name).capacity(cpu=str(cpus), memory=f"{mem}Gi", pods=pods).condition("Ready")
         .labels({HOSTNAME_LABEL: name, ZONE_LABEL: ZONES[i % len(ZONES)], INSTANCE_TYPE_LABEL: kind,
                  POOL_LABEL: pool, ARCH_LABEL: "arm64" if r.random() < 0.2 else "amd64"}))
    if i % 13 == 5:
        b = b.taint(*_BATCH_TAINT)
    elif i % 29 == 7:
        b = b.taint(*_GPU_TAINT)
    return b.obj()


def _mixed_pod(prefix: str) -> Callable[[int], Pod]:
    def make(i: int) -> Pod:
        r = _rng(f"mixed-pod-{prefix}", i)
        cpu, mem = r.choice(_POD_SIZES)
        app = f"app-{r.randrange(_APPS)}"
        b = (make_pod(f"{prefix}-{i}").label(APP_LABEL, app)
             .container(IMAGE, name="main", cpu=f"{cpu}m", memory=f"{mem}Mi"))
        if r.random() < 0.15:
            b = b.toleration(_BATCH_TAINT[0], _BATCH_TAINT[1], "NoSchedule")
        if r.random() < 0.05:
            b = b.toleration(_GPU_TAINT[0], operator="Exists")
        x = r.random()
        if x < 0.10:
            b = b.node_affinity_in(POOL_LABEL, ("general", "compute"))
        elif x < 0.15:
            b = b.node_affinity_in(ARCH_LABEL, ("amd64",))
        elif x < 0.22:
            b = b.node_selector({POOL_LABEL: "general"})
        if r.random() < 0.20:
            b = b.preferred_node_affinity(r.choice((10, 50, 100)), INSTANCE_TYPE_LABEL,
                                          [s[0] for s in r.sample(_NODE_SHAPES, 3)])
        same_app = selector({APP_LABEL: app})
        x = r.random()
        if x < 0.15:
            b = b.spread_constraint(r.choice((1, 2, 3)), ZONE_LABEL, "ScheduleAnyway", same_app)
        elif x < 0.25:
            b = b.spread_constraint(r.choice((1, 2, 3)), ZONE_LABEL, "DoNotSchedule", same_app)
        elif x < 0.30:
            b = b.spread_constraint(1, HOSTNAME_LABEL, "ScheduleAnyway", same_app)
        x = r.random()
        if x < 0.05:
            b = b.pod_anti_affinity(HOSTNAME_LABEL, same_app, weight=100)
        elif x < 0.07:
            b = b.pod_anti_affinity(HOSTNAME_LABEL, same_app)
        return b.obj()

    return make


def _uniform_node(i: int) -> Node:
    name = f"node-{i}"
    return (make_node(name).capacity(cpu="32", memory="128Gi", pods=110).condition("Ready")
            .labels({HOSTNAME_LABEL: name, ZONE_LABEL: ZONES[i % len(ZONES)],
                     INSTANCE_TYPE_LABEL: "m.8xlarge", POOL_LABEL: "general", ARCH_LABEL: "amd64"})
            .obj())


def _uniform_pod(prefix: str, cpu_milli: int = 1000, memory_mib: int = 2048) -> Callable[[int], Pod]:
    def make(i: int) -> Pod:
        return (make_pod(f"{prefix}-{i}").label(APP_LABEL, f"app-{i % _APPS}")
                .container(IMAGE, name="main", cpu=f"{cpu_milli}m", memory=f"{memory_mib}Mi").obj())

    return make


def _owned_pod(prefix: str) -> Callable[[int], Pod]:
    """UniformShapes' pod *i*, owned by its app's ReplicaSet (see :func:`_app_objects`)."""
    uniform = _uniform_pod(prefix)

    def make(i: int) -> Pod:
        owner = OwnerReference("ReplicaSet", f"app-{i % _APPS}", uid=f"uid-replicaset-app-{i % _APPS}",
                               api_version="apps/v1", controller=True)
        return uniform(i).evolve(owner_references=(owner,))

    return make


def _app_objects() -> list[object]:
    """Per app, the ReplicaSet owning its pods and the Service selecting them."""
    out: list[object] = []
    for a in range(_APPS):
        out.append(ReplicaSet(f"app-{a}", "default", LabelSelector({APP_LABEL: f"app-{a}"}),
                              uid=f"uid-replicaset-app-{a}"))
        out.append(Service(f"app-{a}", "default", {APP_LABEL: f"app-{a}"}))
    return out


# --------------------------------------------------------------------------------------------
# openb


def openb_dir(path: str | os.PathLike[str] | None = None) -> Path | None:
    """Where the openb CSV files are read from: *path* when given, else ``$SCHEDFRAME_OPENB``;
    ``None`` when neither says (schedframe assumes no location of its own)."""
    if path is not None:
        return Path(path)
    env = os.environ.get(OPENB_ENV)
    return Path(env) if env else None


def openb_unavailable() -> str | None:
    """Why the openb workloads cannot run (no location, or the files are missing), or ``None``."""
    d = openb_dir()
    if d is None:
        return (f"openb trace not found: {OPENB_ENV} is not set (set it to the folder holding "
                "Alibaba's cluster-trace-gpu-v2023 CSV files)")
    for name in (_OPENB_NODES, _OPENB_PODS):
        if not (d / name).is_file():
            return (f"openb trace not found: no {name} in {d} (set {OPENB_ENV} to the folder "
                    "holding Alibaba's cluster-trace-gpu-v2023 CSV files)")
    return None


@functools.lru_cache(maxsize=4)
def _openb_rows(name: str) -> tuple[tuple[int, int], ...]:
    """``(cpu_milli, memory_mib)`` of each row of one openb CSV file, read by
    :mod:`schedframe.gpushare.openb`."""
    d = openb_dir()
    if d is None:
        raise BenchmarkError(openb_unavailable() or f"{OPENB_ENV} is not set")
    path = d / name
    try:
        if name == _OPENB_NODES:
            rows = tuple((n.milli_cpu, n.memory_mib) for n in read_nodes(path))
        else:
            rows = tuple((t.milli_cpu, t.memory_mib) for t in read_tasks(path))
    except GpuShareError as exc:
        raise BenchmarkError(f"cannot read openb file {os.fspath(path)!r}: {exc}") from None
    if not rows:
        raise BenchmarkError(f"openb file {os.fspath(path)!r} has no rows")
    return rows


@functools.lru_cache(maxsize=1)
def _openb_nodes_largest_first() -> tuple[tuple[int, int], ...]:
    return tuple(sorted(_openb_rows(_OPENB_NODES), key=lambda r: (-r[0], -r[1])))


def _openb_node_make(i: int) -> Node:
    rows = _openb_nodes_largest_first()
    cpu, mem = rows[i % len(rows)]
    name = f"openb-node-{i:05d}"
    return (make_node(name).capacity(cpu=f"{cpu}m", memory=f"{mem}Mi", pods=110).condition("Ready")
            .label(HOSTNAME_LABEL, name).obj())


def _openb_pod_make(i: int) -> Pod:
    rows = _openb_rows(_OPENB_PODS)
    cpu, mem = rows[i % len(rows)]
    return _sized_pod(f"openb-pod-{i:05d}", cpu, mem)


def _sized_pod(name: str, cpu: int, mem: int) -> Pod:
    return make_pod(name).container(IMAGE, name="main", cpu=f"{cpu}m" if cpu else None,
                                    memory=f"{mem}Mi" if mem else None).obj()


#: a value computed from a file's rows, with the rows it was computed from (see :func:`_of_rows`)
_FROM_ROWS: dict[str, tuple[object, tuple[int, int]]] = {}


def _of_rows(name: str, compute: Callable[[tuple[tuple[int, int], ...]], tuple[int, int]]) -> tuple[int, int]:
    """``compute(rows)`` of the openb file *name*, computed once per rows read (not per node or
    pod: the median of 8,152 rows for each of 10,000 pods took seconds)."""
    rows = _openb_rows(name)
    got = _FROM_ROWS.get(name)
    if got is None or got[0] is not rows:
        got = _FROM_ROWS[name] = (rows, compute(rows))
    return got[1]


def _common_shape(rows: tuple[tuple[int, int], ...]) -> tuple[int, int]:
    return statistics.mode(rows)


def _median_size(rows: tuple[tuple[int, int], ...]) -> tuple[int, int]:
    return int(statistics.median_low(r[0] for r in rows)), int(statistics.median_low(r[1] for r in rows))


def _openb_common_node(i: int) -> Node:
    cpu, mem = _of_rows(_OPENB_NODES, _common_shape)
    name = f"openb-node-{i:05d}"
    return (make_node(name).capacity(cpu=f"{cpu}m", memory=f"{mem}Mi", pods=110).condition("Ready")
            .label(HOSTNAME_LABEL, name).obj())


def _openb_median_pod(i: int) -> Pod:
    cpu, mem = _of_rows(_OPENB_PODS, _median_size)
    return _sized_pod(f"openb-pod-{i:05d}", cpu, mem)


# --------------------------------------------------------------------------------------------
# the workloads


def realistic_workloads() -> list[BenchWorkload]:
    """The realistic workloads (:class:`BenchWorkload` objects; group ``realistic``)."""

    def w(name: str, description: str, nodes: tuple[int, Callable[[int], Node]],
          initial: tuple[int, Callable[[int], Pod]] | None, measured: tuple[int, Callable[[int], Pod]],
          baseline: str | None = None, unavailable: Callable[[], str | None] | None = None,
          initial_mode: str | None = None,
          objects: Callable[[], list[object]] | None = None) -> BenchWorkload:
        return BenchWorkload(
            name=name, description=description,
            nodes=(NodeGroup(count=nodes[0], make=nodes[1]),),
            initial=(BenchPodGroup(count=initial[0], make=initial[1]),) if initial else (),
            measured=(BenchPodGroup(count=measured[0], make=measured[1]),),
            group="realistic", baseline=baseline, unavailable=unavailable, initial_mode=initial_mode,
            objects=objects)

    out: list[BenchWorkload] = [
        w("SkippyComparison/5000Nodes_3000Pods",
          "skippy-core's comparison: 32-CPU/128Gi nodes, pods of 5 CPU x 6 memory sizes (seeded)",
          (5000, _skippy_node), None, (3000, _skippy_pod)),
        # initial pods scheduled (not bound round-robin, which would overcommit small nodes)
        w("UniformShapes/5000Nodes_5000Pods",
          "one node shape (32 CPU/128Gi, labelled), one pod size (1 CPU/2Gi), no constraints",
          (5000, _uniform_node), (5000, _uniform_pod("init")), (5000, _uniform_pod("pod")),
          initial_mode="schedule"),
        w("MixedShapes/5000Nodes_5000Pods",
          "12 node shapes, labels, zones, taints; 24 pod sizes with tolerations, affinity, spreading",
          (5000, _mixed_node), (5000, _mixed_pod("init")), (5000, _mixed_pod("pod")),
          baseline="UniformShapes/5000Nodes_5000Pods", initial_mode="schedule"),
        w("DefaultSpread/5000Nodes_5000Pods",
          "UniformShapes with each pod's ReplicaSet and Service: the system default spreading scores",
          (5000, _uniform_node), (5000, _owned_pod("init")), (5000, _owned_pod("pod")),
          baseline="UniformShapes/5000Nodes_5000Pods", initial_mode="schedule", objects=_app_objects),
    ]
    for nodes, pods in ((1213, 4000), (10000, 10000)):
        uniform = f"OpenBUniform/{nodes}Nodes_{pods}Pods"
        out.append(w(uniform, "openb's most common node shape and median pod (no GPUs)",
                     (nodes, _openb_common_node), None, (pods, _openb_median_pod),
                     unavailable=openb_unavailable))
        out.append(w(f"OpenB/{nodes}Nodes_{pods}Pods",
                     "node and pod CPU/memory sizes of Alibaba's openb GPU-cluster trace (no GPUs)",
                     (nodes, _openb_node_make), None, (pods, _openb_pod_make),
                     baseline=uniform, unavailable=openb_unavailable))
    return out



def mixed_series_workloads() -> list[BenchWorkload]:
    """MixedShapes' cost growth (group ``series``): 500 measured pods on empty clusters of 1,000
    to 50,000 nodes, and on 5,000 nodes holding 2,500 or 10,000 pods placed by the scheduler."""
    out: list[BenchWorkload] = []
    for nodes in (1000, 5000, 10000, 50000):
        out.append(BenchWorkload(
            name=f"SeriesMixed/{nodes}Nodes_0Init", description="MixedShapes, 500 measured pods",
            nodes=(NodeGroup(count=nodes, make=_mixed_node),),
            measured=(BenchPodGroup(count=500, make=_mixed_pod("pod")),), group="series"))
    for init in (2500, 10000):
        out.append(BenchWorkload(
            name=f"SeriesMixed/5000Nodes_{init}Init", description="MixedShapes, 500 measured pods",
            nodes=(NodeGroup(count=5000, make=_mixed_node),),
            initial=(BenchPodGroup(count=init, make=_mixed_pod("init")),),
            measured=(BenchPodGroup(count=500, make=_mixed_pod("pod")),), initial_mode="schedule",
            group="series"))
    return out
