"""Built-in scenarios: realistic clusters and workloads that need no files.

Each is written in the scenario file format (a mapping read by :meth:`Scenario.from_dict`), so
they double as examples of it. ``schedframe simulate --list`` shows them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from ..errors import ScenarioError, did_you_mean
from .scenario import Scenario

__all__ = ["BUILTIN_SCENARIOS", "DEFAULT_SCENARIO", "builtin_scenario", "large_scenario"]

_ZONE: Final = "topology.kubernetes.io/zone"
_API: Final = "kubescheduler.config.k8s.io/v1"


def _node_template(cpu: str, memory: str, pods: int = 110, **extra: str) -> dict[str, Any]:
    alloc = {"cpu": cpu, "memory": memory, "pods": str(pods), **extra}
    return {
        "metadata": {"labels": {"node.kubernetes.io/instance-type": f"c{cpu}m{memory}"}},
        "status": {"capacity": dict(alloc), "allocatable": dict(alloc)},
    }


def _spec(cpu: str, memory: str, **extra: Any) -> dict[str, Any]:
    return {
        "containers": [
            {
                "name": "main",
                "image": "registry.example/app:1",
                "resources": {"requests": {"cpu": cpu, "memory": memory}},
            }
        ],
        **extra,
    }


def _priority_classes() -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "batch-low"},
            "value": 100,
            "description": "preemptible batch work",
        },
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "service-high"},
            "value": 10000,
            "description": "user-facing services",
        },
    ]


def _spread_zone(app: str) -> dict[str, Any]:
    return {
        "maxSkew": 1,
        "topologyKey": _ZONE,
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": app}},
    }


def _default_and_bin_packing() -> list[dict[str, Any]]:
    """The default profile beside one scoring NodeResourcesFit by MostAllocated (cpu, memory)."""
    most_allocated = {
        "type": "MostAllocated",
        "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
    }
    profile = {
        "schedulerName": "default-scheduler",
        "pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": most_allocated}}],
    }
    config = {"apiVersion": _API, "kind": "KubeSchedulerConfiguration", "profiles": [profile]}
    return [{"name": "default"}, {"name": "bin-packing", "config": config}]


def three_zones() -> dict[str, Any]:
    """A three-zone cluster running Deployments spread across zones, a batch Job burst with run
    times, a high-priority service scaling up, and a node drained for maintenance."""
    return {
        "name": "three-zones",
        "description": "9 nodes in 3 zones: web and api Deployments spread by zone, a 60-pod batch Job "
        "(run times ~2 min), api scaling up at 5 min, node-4 drained at 8 min",
        "nodes": [
            {
                "count": 9,
                "name": "node-{i}",
                "zones": ["zone-a", "zone-b", "zone-c"],
                "template": _node_template("8", "32Gi"),
            }
        ],
        "objects": _priority_classes(),
        "workloads": [
            {
                "name": "web",
                "replicas": 12,
                "arrival": {"at": 0, "every": 0.5},
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    "spec": _spec(
                        "1",
                        "2Gi",
                        topologySpreadConstraints=[_spread_zone("web")],
                        priorityClassName="service-high",
                        priority=10000,
                    ),
                },
            },
            {
                "name": "api",
                "replicas": 6,
                "arrival": {"at": 5, "every": 1},
                "scale": [{"at": 300, "replicas": 12}],
                "template": {
                    "metadata": {"labels": {"app": "api"}},
                    "spec": _spec(
                        "1500m",
                        "4Gi",
                        priorityClassName="service-high",
                        priority=10000,
                        affinity={
                            "podAntiAffinity": {
                                "preferredDuringSchedulingIgnoredDuringExecution": [
                                    {
                                        "weight": 100,
                                        "podAffinityTerm": {
                                            "topologyKey": "kubernetes.io/hostname",
                                            "labelSelector": {"matchLabels": {"app": "api"}},
                                        },
                                    }
                                ]
                            }
                        },
                    ),
                },
            },
            {
                "name": "report",
                "kind": "Job",
                "replicas": 60,
                "arrival": {"at": 30, "every": {"exponential": 1.0}},
                "duration": {"lognormal": {"median": 120, "sigma": 0.5}},
                "template": {
                    "metadata": {"labels": {"app": "report"}},
                    "spec": _spec("2", "6Gi", priorityClassName="batch-low", priority=100),
                },
            },
        ],
        "events": [{"at": 480, "action": "drain", "node": "node-4"}],
        "configs": _default_and_bin_packing(),
    }


def batch_burst() -> dict[str, Any]:
    """A burst of 1,000 Job pods with long-tailed run times on 40 nodes: queueing at the peak,
    completions, and the cluster filling and draining."""
    return {
        "name": "batch-burst",
        "description": "40 nodes; a Job of 1,000 pods arriving ~10/s with log-normal run times (median 60 s)",
        "nodes": [
            {
                "count": 40,
                "name": "worker-{i}",
                "zones": ["zone-a", "zone-b"],
                "template": _node_template("16", "64Gi"),
            }
        ],
        "workloads": [
            {
                "name": "etl",
                "kind": "Job",
                "replicas": 1000,
                "arrival": {"at": 0, "every": {"exponential": 0.1}},
                "duration": {"lognormal": {"median": 60, "sigma": 0.8}},
                "template": {"metadata": {"labels": {"app": "etl"}}, "spec": _spec("1", "3Gi")},
            },
        ],
        "configs": _default_and_bin_packing(),
    }


def gang() -> dict[str, Any]:
    """Gang scheduling with Coscheduling: training jobs whose workers start all together or not at
    all; one gang is too large to ever fit and times out at Permit."""
    cosched = {
        "apiVersion": _API,
        "kind": "KubeSchedulerConfiguration",
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {
                    "multiPoint": {"enabled": [{"name": "Coscheduling"}]},
                    "queueSort": {"disabled": [{"name": "PrioritySort"}]},
                },
                "pluginConfig": [{"name": "Coscheduling", "args": {"permitWaitingTimeSeconds": 30}}],
            }
        ],
    }
    gpu = {"nvidia.com/gpu": "4"}
    return {
        "name": "gang",
        "description": "6 GPU nodes (4 GPUs each); gangs of 8, 8 and 12 GPU workers (Coscheduling, "
        "minMember); the third gang cannot fit until the first finishes",
        "nodes": [
            {
                "count": 6,
                "name": "gpu-{i}",
                "zones": ["zone-a", "zone-b"],
                "template": _node_template("32", "128Gi", 110, **gpu),
            }
        ],
        "workloads": [
            {
                "name": f"train-{k}",
                "kind": "Job",
                "replicas": n,
                "gang": {"minMember": n, "timeoutSeconds": 30},
                "arrival": {"at": at, "every": 0.2},
                "duration": dur,
                "template": {
                    "metadata": {
                        "labels": {"app": f"train-{k}", "scheduling.x-k8s.io/pod-group": f"train-{k}"}
                    },
                    "spec": {
                        "containers": [
                            {
                                "name": "worker",
                                "resources": {
                                    "requests": {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"},
                                    "limits": {"nvidia.com/gpu": "1"},
                                },
                            }
                        ]
                    },
                },
            }
            for k, n, at, dur in (("a", 8, 0, 600), ("b", 8, 10, 900), ("c", 12, 20, 300))
        ],
        "configs": [{"name": "coscheduling", "config": cosched}, {"name": "default"}],
    }


def drain_preemption() -> dict[str, Any]:
    """A full cluster of low-priority batch pods; a high-priority service arrives and preempts
    them (their Job recreates them), then a node is drained and one removed."""
    return {
        "name": "drain-preemption",
        "description": "8 full nodes of low-priority batch pods; a high-priority service arrives at 60 s and "
        "preempts; node-1 drained at 120 s, node-2 removed at 180 s",
        "nodes": [
            {
                "count": 8,
                "name": "node-{i}",
                "zones": ["zone-a", "zone-b"],
                "template": _node_template("8", "32Gi"),
            }
        ],
        "objects": _priority_classes(),
        "workloads": [
            {
                "name": "batch",
                "kind": "Job",
                "replicas": 32,
                "arrival": {"at": 0, "every": 0.1},
                "duration": {"uniform": [600, 900]},
                "template": {
                    "metadata": {"labels": {"app": "batch"}},
                    "spec": _spec("2", "4Gi", priorityClassName="batch-low", priority=100),
                },
            },
            {
                "name": "frontend",
                "replicas": 6,
                "arrival": {"at": 60, "every": 0.5},
                "template": {
                    "metadata": {"labels": {"app": "frontend"}},
                    "spec": _spec(
                        "2",
                        "4Gi",
                        priorityClassName="service-high",
                        priority=10000,
                        topologySpreadConstraints=[_spread_zone("frontend")],
                    ),
                },
            },
        ],
        "events": [
            {"at": 120, "action": "drain", "node": "node-1"},
            {"at": 180, "action": "remove", "node": "node-2"},
        ],
        "until": 1200,
    }


def _native_gang(release: str, name: str, min_count: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """kube-scheduler's own gang of *release*: the objects (a 1.35 v1alpha1 Workload, a 1.36
    v1alpha2 or 1.37 v1beta1 PodGroup; none before 1.35) and what the pods' spec says of it."""
    minor = int(release.split(".")[1])
    gang = {"gang": {"minCount": min_count}}
    meta = {"name": name, "namespace": "default"}
    if minor < 35:
        return [], {}
    if minor == 35:
        return ([{"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload", "metadata": meta,
                  "spec": {"podGroups": [{"name": "workers", "policy": gang}]}}],
                {"workloadRef": {"name": name, "podGroup": "workers"}})
    version = "v1alpha2" if minor == 36 else "v1beta1"
    return ([{"apiVersion": f"scheduling.k8s.io/{version}", "kind": "PodGroup", "metadata": meta,
              "spec": {"schedulingPolicy": gang}}],
            {"schedulingGroup": {"podGroupName": name}})


def training_rack(release: str = "1.36") -> dict[str, Any]:
    """A training job of 4 x 8-GPU workers that must share a rack, beside a fragmented rack:
    kube-scheduler's own gang (1.35 on: ``GenericWorkload``, and ``GangScheduling`` in 1.35 and
    1.36) holds it until all four fit, where plain pods take three nodes and wait for the fourth."""
    objects, group = _native_gang(release, "train", 4)
    gpu = {"nvidia.com/gpu": "8"}
    rack = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "rack", "labelSelector": {"matchLabels": {"app": "train"}}}]}}
    background = [
        {"name": f"infer-{r}", "kind": "Job", "replicas": n, "duration": dur,
         "template": {"metadata": {"labels": {"app": f"infer-{r}"}},
                      "spec": {"nodeSelector": {"rack": r}, "containers": [{
                          "name": "serve", "resources": {"requests": {"cpu": "4", "memory": "16Gi",
                                                                      "nvidia.com/gpu": "2"},
                                                         "limits": {"nvidia.com/gpu": "2"}}}],
                               "affinity": {"podAntiAffinity": {
                                   "requiredDuringSchedulingIgnoredDuringExecution": [{
                                       "topologyKey": "kubernetes.io/hostname",
                                       "labelSelector": {"matchLabels": {"app": f"infer-{r}"}}}]}}}}}
        for r, n, dur in (("a", 4, 3600), ("b", 1, 300))
    ]
    return {
        "name": "training-rack",
        "description": "2 racks of 4 nodes with 8 GPUs; rack a fragmented (a 2-GPU inference pod on "
        "every node), rack b with one until 300 s; a 4 x 8-GPU training gang that must share a rack "
        "(kube-scheduler's own gang, in the workload API of --kubernetes-version; it holds the gang "
        "with --feature-gates GenericWorkload=true, plus GangScheduling=true at 1.35 and 1.36)",
        "nodes": [
            {"count": 4, "name": f"rack-{r}-{{i}}",
             "template": {"metadata": {"labels": {"rack": r}},
                          "status": {"allocatable": {"cpu": "64", "memory": "512Gi", "pods": "110", **gpu},
                                     "capacity": {"cpu": "64", "memory": "512Gi", "pods": "110", **gpu}}}}
            for r in ("a", "b")
        ],
        "objects": objects,
        "workloads": [
            *background,
            {"name": "train", "kind": "Job", "replicas": 4, "arrival": {"at": 10, "every": 1},
             "duration": 1800,
             "template": {"metadata": {"labels": {"app": "train"}},
                          "spec": {**group, "affinity": rack, "containers": [{
                              "name": "worker", "resources": {
                                  "requests": {"cpu": "16", "memory": "128Gi", **gpu},
                                  "limits": gpu}}]}}},
        ],
        "until": 3000,
    }


def leader_workers(release: str = "1.36") -> dict[str, Any]:
    """A JobSet-like set: one CPU-only leader and three 8-GPU workers in one gang (a group of
    pods of two shapes), on three GPU nodes of which one is busy until 240 s, beside a CPU node:
    kube-scheduler's own gang binds all four at once when the third GPU frees; plain pods bind
    the leader and two workers at once and leave 16 GPUs idle until the last worker fits."""
    objects, group = _native_gang(release, "lws-0", 4)
    gpu = {"nvidia.com/gpu": "8"}

    def node_template(extra: Mapping[str, str]) -> dict[str, Any]:
        room = {"cpu": "32", "memory": "256Gi", "pods": "110", **extra}
        return {"status": {"allocatable": room, "capacity": room}}

    def template(role: str, requests: Mapping[str, str]) -> dict[str, Any]:
        limits = {k: v for k, v in requests.items() if k == "nvidia.com/gpu"}
        return {"metadata": {"labels": {"app": "lws-0", "role": role}},
                "spec": {**group, "containers": [{"name": role, "resources": {
                    "requests": dict(requests), **({"limits": limits} if limits else {})}}]}}

    return {
        "name": "leader-workers",
        "description": "a JobSet-like leader (4 CPUs) and 3 x 8-GPU workers in one gang, on 3 GPU "
        "nodes (one busy until 240 s) and a CPU node (kube-scheduler's own gang, in the workload "
        "API of --kubernetes-version; it holds the gang with --feature-gates GenericWorkload=true, "
        "plus GangScheduling=true at 1.35 and 1.36)",
        "nodes": [
            {"count": 3, "name": "gpu-{i}", "template": node_template(gpu)},
            {"count": 1, "name": "cpu-{i}", "template": node_template({})},
        ],
        "objects": objects,
        "workloads": [
            {"name": "busy", "kind": "Job", "replicas": 1, "duration": 240,
             "template": {"metadata": {"labels": {"app": "busy"}}, "spec": {
                 "nodeSelector": {"kubernetes.io/hostname": "gpu-2"}, "containers": [{
                     "name": "train", "resources": {"requests": {"cpu": "8", **gpu}, "limits": gpu}}]}}},
            {"name": "leader", "kind": "Job", "replicas": 1, "arrival": {"at": 10}, "duration": 1800,
             "template": template("leader", {"cpu": "4", "memory": "8Gi"})},
            {"name": "workers", "kind": "Job", "replicas": 3, "arrival": {"at": 11, "every": 1},
             "duration": 1800, "template": template("worker", {"cpu": "16", "memory": "64Gi", **gpu})},
        ],
        "until": 2400,
    }


def group_preemption(release: str = "1.37") -> dict[str, Any]:
    """A training gang of a high priority on a cluster full of low-priority batch pods: to fit it
    must preempt. 1.37 (and 1.36 with ``WorkloadAwarePreemption``) preempts for the whole group
    in one go, once the group's PodGroup cycle failed, choosing the victims the group needs gone;
    1.36 without the gate has each member's own PostFilter preempt for it, one member after the
    other in the group's cycle; 1.35's gang members preempt one by one in their own cycles."""
    objects, group = _native_gang(release, "train", 4)
    for obj in objects:
        if obj["kind"] == "PodGroup":
            obj["spec"]["priority"] = 1000
    classes = [
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
         "value": value, "description": text}
        for name, value, text in (("batch-low", 100, "preemptible batch work"),
                                  ("batch-mid", 500, "batch work preempted after batch-low"),
                                  ("train-high", 1000, "training gangs"))
    ]
    batch = [
        {"name": name, "kind": "Pod", "replicas": n, "arrival": {"at": at, "every": 1}, "duration": 3600,
         "template": {"metadata": {"labels": {"app": name}},
                      "spec": _spec(cpu, "8Gi", priorityClassName=cls)}}
        for name, n, at, cpu, cls in (("batch-mid", 4, 0, "6", "batch-mid"),
                                      ("batch-low", 8, 5, "4", "batch-low"))
    ]
    return {
        "name": "group-preemption",
        "description": "a 4 x 10-CPU training gang of priority 1000 arriving at 30 s on 4 nodes of 16 "
        "CPUs that bare batch pods of priority 500 (6 CPUs, one a node) and 100 (4 CPUs, two a node) fill: "
        "a group preempting lower-priority singles (kube-scheduler's own gang, in the workload API of "
        "--kubernetes-version, with --feature-gates GenericWorkload=true, plus GangScheduling=true at "
        "1.35 and 1.36; 1.36's workload-aware preemption with WorkloadAwarePreemption=true too)",
        "nodes": [{"count": 4, "name": "node-{i}", "template": _node_template("16", "64Gi")}],
        "objects": [*classes, *objects],
        "workloads": [
            *batch,
            {"name": "train", "kind": "Job", "replicas": 4, "arrival": {"at": 30, "every": 1},
             "duration": 600,
             "template": {"metadata": {"labels": {"app": "train"}},
                          "spec": {**group, **_spec("10", "16Gi", priorityClassName="train-high")}}},
        ],
        "until": 1200,
    }


#: The built-in scenarios by name; those taking a release build their objects for it.
BUILTIN_SCENARIOS: Final[Mapping[str, Callable[..., dict[str, Any]]]] = {
    "three-zones": three_zones,
    "batch-burst": batch_burst,
    "gang": gang,
    "drain-preemption": drain_preemption,
    "training-rack": training_rack,
    "leader-workers": leader_workers,
    "group-preemption": group_preemption,
}
#: The built-in scenarios whose objects depend on the release (the workload API's versions).
_FOR_RELEASE: Final = frozenset({"training-rack", "leader-workers", "group-preemption"})

#: The scenario ``schedframe simulate`` runs without arguments.
DEFAULT_SCENARIO: Final = "three-zones"


def builtin_scenario(name: str = DEFAULT_SCENARIO, *, kubernetes_version: str | None = None) -> Scenario:
    """The built-in scenario *name* (see :data:`BUILTIN_SCENARIOS`); one of kube-scheduler's
    own gangs (``training-rack``) is written in the workload API of *kubernetes_version*
    (default the newest release).

    Raises:
        ScenarioError: no such scenario.

    .. versionadded:: 0.1.0
    """
    make = BUILTIN_SCENARIOS.get(name)
    if make is None:
        raise ScenarioError(
            "",
            "scenario",
            f"no built-in scenario {name!r}{did_you_mean(name, BUILTIN_SCENARIOS)} "
            f"(built-in: {', '.join(BUILTIN_SCENARIOS)})",
        )
    if name in _FOR_RELEASE:
        from ..framework.releases import release_profile

        return Scenario.from_dict(make(release_profile(kubernetes_version).version),
                                  source=f"<built-in {name}>")
    return Scenario.from_dict(make(), source=f"<built-in {name}>")


def large_scenario(
    nodes: int = 5000, pods: int = 50000, *, rate: float = 500.0, median_duration: float = 60.0
) -> Scenario:
    """A benchmark-sized scenario: *nodes* nodes in three zones and *pods* pods of three
    Deployment-like shapes arriving at *rate* per second (Poisson) with log-normal run times, so
    the cluster fills and drains (``benchmarks/sim.py``)."""
    shapes = [("small", "250m", "512Mi"), ("medium", "1", "2Gi"), ("large", "2", "6Gi")]
    per = [pods // 3 + (1 if i < pods % 3 else 0) for i in range(3)]
    every = {"exponential": 3.0 / rate}
    return Scenario.from_dict(
        {
            "name": f"large-{nodes}n-{pods}p",
            "description": f"{nodes} nodes, {pods} pods arriving {rate:g}/s, log-normal run times "
            f"(median {median_duration:g} s)",
            "nodes": [
                {
                    "count": nodes,
                    "name": "node-{i}",
                    "zones": ["zone-a", "zone-b", "zone-c"],
                    "template": _node_template("16", "64Gi"),
                }
            ],
            "workloads": [
                {
                    "name": name,
                    "kind": "Job",
                    "replicas": n,
                    "arrival": {"at": 0, "every": every},
                    "duration": {"lognormal": {"median": median_duration, "sigma": 0.6}},
                    "template": {"metadata": {"labels": {"app": name}}, "spec": _spec(cpu, mem)},
                }
                for (name, cpu, mem), n in zip(shapes, per)
            ],
        },
        source="<large>",
    )
