"""Generated cases: small clusters and pending pods that exercise the default plugins.

:func:`generate` draws one case from a seed: a ``kubectl get -o yaml``-style List of nodes (zones,
taints, images, extended resources), bound pods, the objects plugins read (PriorityClasses,
PDBs, Services and ReplicaSets for the default spreading, storage), pending pods with
requests, selectors, affinities, tolerations, spread constraints, host ports, priorities and
volumes, and sometimes a KubeSchedulerConfiguration that changes weights, args, disabled
plugins, ``percentageOfNodesToScore`` or adds a second profile. Every draw depends on the seed
alone, so a failing case is named by its seed (``scripts/oracle gen --seed N``).

*release* keeps each case within what that Kubernetes minor has (pod-level resources from 1.34,
...). *family* narrows a case to one theme (``"resources"``, ``"affinity"``, ``"spread"``,
``"preemption"``, ``"volumes"``, ``"config"``, ``"large"``) or mixes them (``"mixed"``).
``"podgroups"`` (1.36 on, :func:`families`) is workload-aware scheduling: Workloads, their
PodGroups (gang or basic policy) and member pods, with the gates it needs in the List's
``oracle.schedframe.io/feature-gates`` annotation. ``"composites"`` (1.37 on) is the same with
CompositePodGroups: Workloads of ``compositePodGroupTemplates``, their CompositePodGroups (one or
two levels, gang ``minGroupCount`` or basic, topology constraints on zone or rack) over leaf
PodGroups, in a cluster of zones and racks; it is left out of :func:`rotation` (the families a
suite or the differential test draws by turns) until schedframe schedules composites.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from typing import Any, Final

__all__ = ["FAMILIES", "families", "generate", "rotation"]

ZONES: Final = ("zone-a", "zone-b", "zone-c")
APPS: Final = ("web", "db", "cache", "batch")
IMAGES: Final = (
    ("registry.k8s.io/pause:3.10", 300_000),
    ("nginx:1.27", 70_000_000),
    ("postgres:16", 400_000_000),
    ("redis:7", 120_000_000),
    ("python:3.12", 1_000_000_000),
)
FAMILIES: Final = (
    "mixed",
    "resources",
    "affinity",
    "spread",
    "preemption",
    "volumes",
    "devices",
    "config",
    "large",
    "podgroups",
    "composites",
)

#: the first minor of each family that is not for every release
_FAMILY_SINCE: Final = {"podgroups": 36, "composites": 37}

#: the families :func:`rotation` leaves out: those schedframe does not decide yet (composites:
#: their cases are for the oracle alone, ``scripts/oracle suite --family composites``)
_NOT_IN_ROTATION: Final = ("composites",)

#: a case's List annotation: the feature gates it runs with (the oracle and schedframe alike)
GATES_ANNOTATION: Final = "oracle.schedframe.io/feature-gates"


def families(release: str) -> tuple[str, ...]:
    """The families *release* has cases of (``podgroups`` from 1.36, ``composites`` from 1.37)."""
    return tuple(f for f in FAMILIES if _minor(release) >= _FAMILY_SINCE.get(f, 0))


def rotation(release: str) -> tuple[str, ...]:
    """The families a suite of *release* draws by turns (case k of family ``rotation[k % n]``):
    :func:`families` but those schedframe does not decide yet."""
    return tuple(f for f in families(release) if f not in _NOT_IN_ROTATION)


def _minor(release: str) -> int:
    return int(release.split(".")[1])


class _Gen:
    def __init__(self, seed: int, release: str, family: str) -> None:
        self.r = random.Random(seed)
        self.seed = seed
        self.minor = _minor(release)
        self.family = family
        self.items: list[dict[str, Any]] = []
        self.nodes: list[dict[str, Any]] = []
        self.free: dict[str, list[int]] = {}  # node -> [milli-cpu, MiB memory, pods]
        self.counter = 0

    def chance(self, p: float, theme: str | None = None) -> bool:
        if theme is not None and self.family not in ("mixed", theme):
            return False
        if theme is not None and self.family == theme:
            p = min(1.0, p * 2.5)
        return self.r.random() < p

    def name(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}-{self.counter}"

    # -- nodes ----------------------------------------------------------------------------------
    def node(self, i: int) -> dict[str, Any]:
        r = self.r
        name = f"node-{i}"
        zone = ZONES[i % len(ZONES)] if r.random() < 0.9 else r.choice(ZONES)
        cpu = r.choice((1, 2, 4, 4, 8, 16))
        mem = r.choice((2, 4, 8, 16, 32, 64))
        pods = 110 if r.random() < 0.9 else r.choice((2, 3, 5))
        labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}
        if r.random() < 0.95:
            labels["topology.kubernetes.io/zone"] = zone
            labels["topology.kubernetes.io/region"] = "region-1"
        if r.random() < 0.5:
            labels["pool"] = r.choice(("general", "highmem", "compute"))
        if r.random() < 0.3:
            labels["disktype"] = r.choice(("ssd", "hdd"))
        if r.random() < 0.2:
            labels["cores"] = str(cpu)
        capacity: dict[str, str] = {"cpu": str(cpu), "memory": f"{mem}Gi", "pods": str(pods)}
        if r.random() < 0.5:
            capacity["ephemeral-storage"] = f"{r.choice((10, 50, 100))}Gi"
        if self.chance(0.25, "resources"):
            capacity["example.com/gpu"] = str(r.choice((0, 1, 2, 4)))
        if r.random() < 0.15:
            capacity["hugepages-2Mi"] = f"{r.choice((0, 256, 1024))}Mi"
        spec: dict[str, Any] = {}
        taints = []
        if self.chance(0.25, "affinity"):
            effect = r.choice(("NoSchedule", "PreferNoSchedule", "NoExecute"))
            taint: dict[str, Any] = {"key": r.choice(("dedicated", "gpu", "spot")), "effect": effect}
            if r.random() < 0.7:
                taint["value"] = r.choice(("true", "ml", "batch"))
            taints.append(taint)
        if r.random() < 0.05:
            taints.append({"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"})
        if taints:
            spec["taints"] = taints
        if r.random() < 0.04:
            spec["unschedulable"] = True
        allocatable = dict(capacity)
        if r.random() < 0.3:
            allocatable["cpu"] = f"{cpu * 1000 - 100}m"
        status: dict[str, Any] = {
            "capacity": capacity,
            "allocatable": allocatable,
            "conditions": [{"type": "Ready", "status": "True"}],
        }
        if r.random() < 0.5:
            status["images"] = [
                {"names": [img], "sizeBytes": size} for img, size in r.sample(IMAGES, r.randint(1, 3))
            ]
        node = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": labels},
            "spec": spec,
            "status": status,
        }
        self.free[name] = [int(_cpu_milli(allocatable["cpu"])), mem * 1024, pods]
        return node

    # -- pods -----------------------------------------------------------------------------------
    def container(self, big: bool = False) -> dict[str, Any]:
        r = self.r
        c: dict[str, Any] = {"name": self.name("c"), "image": r.choice(IMAGES)[0]}
        requests: dict[str, str] = {}
        limits: dict[str, str] = {}
        if r.random() < 0.85:
            requests["cpu"] = (
                r.choice(("50m", "100m", "250m", "500m", "1", "2", "3"))
                if not big
                else r.choice(("4", "6", "12", "20"))
            )
        if r.random() < 0.8:
            requests["memory"] = (
                r.choice(("64Mi", "256Mi", "1Gi", "2Gi", "4Gi"))
                if not big
                else r.choice(("16Gi", "40Gi", "100Gi"))
            )
        if self.chance(0.15, "resources"):
            requests["ephemeral-storage"] = r.choice(("1Gi", "20Gi", "80Gi"))
        if self.chance(0.15, "resources"):
            requests["example.com/gpu"] = str(r.choice((1, 2, 3)))
            limits["example.com/gpu"] = requests["example.com/gpu"]
        if self.chance(0.05, "resources"):
            requests["hugepages-2Mi"] = "128Mi"
            limits["hugepages-2Mi"] = "128Mi"
            requests.setdefault("memory", "128Mi")
        if r.random() < 0.2 and "cpu" in requests:
            limits["cpu"] = requests["cpu"]
        if r.random() < 0.1:
            # limits only: the API server defaults requests to limits
            limits["memory"] = r.choice(("128Mi", "1Gi"))
            requests.pop("memory", None)
        res: dict[str, Any] = {}
        if requests:
            res["requests"] = requests
        if limits:
            res["limits"] = limits
        if res:
            c["resources"] = res
        if self.chance(0.12, "resources"):
            c["ports"] = [
                {
                    "containerPort": 8080,
                    "hostPort": r.choice((8080, 9090)),
                    "protocol": r.choice(("TCP", "TCP", "UDP")),
                }
            ]
        return c

    def selector(self, app: str | None = None) -> dict[str, Any]:
        r = self.r
        app = app or r.choice(APPS)
        if r.random() < 0.7:
            return {"matchLabels": {"app": app}}
        op = r.choice(("In", "NotIn", "Exists"))
        expr: dict[str, Any] = {"key": "app", "operator": op}
        if op != "Exists":
            expr["values"] = sorted({app, r.choice(APPS)})
        return {"matchExpressions": [expr]}

    def node_selector_term(self) -> dict[str, Any]:
        r = self.r
        kind = r.random()
        if kind < 0.35:
            return {
                "matchExpressions": [
                    {
                        "key": "topology.kubernetes.io/zone",
                        "operator": r.choice(("In", "NotIn")),
                        "values": sorted(r.sample(ZONES, r.randint(1, 2))),
                    }
                ]
            }
        if kind < 0.55:
            return {
                "matchExpressions": [
                    {
                        "key": "pool",
                        "operator": r.choice(("In", "Exists", "DoesNotExist")),
                        **({} if r.random() < 0.5 else {"values": ["general", "compute"]}),
                    }
                ]
            }
        if kind < 0.7:
            return {
                "matchExpressions": [
                    {"key": "cores", "operator": r.choice(("Gt", "Lt")), "values": [str(r.choice((2, 4, 8)))]}
                ]
            }
        if kind < 0.85 and self.nodes:
            # the API server allows one value for a metadata.name field selector
            name = r.choice(self.nodes)["metadata"]["name"]
            return {
                "matchFields": [
                    {"key": "metadata.name", "operator": r.choice(("In", "In", "NotIn")), "values": [name]}
                ]
            }
        return {"matchExpressions": [{"key": "disktype", "operator": "In", "values": ["ssd"]}]}

    def fix_selector_term(self, term: dict[str, Any]) -> dict[str, Any]:
        for expr in term.get("matchExpressions", []):
            if expr["operator"] in ("Exists", "DoesNotExist"):
                expr.pop("values", None)
            elif not expr.get("values"):
                expr["values"] = ["general"]
        return term

    def affinity(self) -> dict[str, Any] | None:
        r = self.r
        aff: dict[str, Any] = {}
        if self.chance(0.3, "affinity"):
            na: dict[str, Any] = {}
            if r.random() < 0.6:
                terms = [self.fix_selector_term(self.node_selector_term()) for _ in range(r.randint(1, 2))]
                na["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": terms}
            if r.random() < 0.6:
                na["preferredDuringSchedulingIgnoredDuringExecution"] = [
                    {
                        "weight": r.randint(1, 100),
                        "preference": self.fix_selector_term(self.node_selector_term()),
                    }
                    for _ in range(r.randint(1, 2))
                ]
            if na:
                aff["nodeAffinity"] = na
        for kind in ("podAffinity", "podAntiAffinity"):
            if not self.chance(0.22, "affinity"):
                continue
            pa: dict[str, Any] = {}

            def term() -> dict[str, Any]:
                t: dict[str, Any] = {
                    "labelSelector": self.selector(),
                    "topologyKey": r.choice(
                        ("kubernetes.io/hostname", "topology.kubernetes.io/zone", "kubernetes.io/hostname")
                    ),
                }
                if r.random() < 0.15:
                    t["namespaces"] = r.choice((["default"], ["team-a"], ["default", "team-a"]))
                if r.random() < 0.1:
                    t["namespaceSelector"] = {} if r.random() < 0.5 else {"matchLabels": {"team": "a"}}
                if r.random() < 0.1:
                    t["matchLabelKeys"] = ["tier"]
                return t

            if r.random() < 0.6:
                pa["requiredDuringSchedulingIgnoredDuringExecution"] = [
                    term() for _ in range(r.randint(1, 2))
                ]
            if r.random() < 0.6:
                pa["preferredDuringSchedulingIgnoredDuringExecution"] = [
                    {"weight": r.randint(1, 100), "podAffinityTerm": term()} for _ in range(r.randint(1, 2))
                ]
            if pa:
                aff[kind] = pa
        return aff or None

    def spread(self, labels: dict[str, str]) -> list[dict[str, Any]] | None:
        r = self.r
        if not self.chance(0.25, "spread"):
            return None
        out = []
        for _ in range(r.randint(1, 2)):
            c: dict[str, Any] = {
                "maxSkew": r.choice((1, 1, 2, 3)),
                "topologyKey": r.choice(("topology.kubernetes.io/zone", "kubernetes.io/hostname", "pool")),
                "whenUnsatisfiable": r.choice(("DoNotSchedule", "ScheduleAnyway")),
                "labelSelector": {"matchLabels": {"app": labels["app"]}}
                if r.random() < 0.85
                else self.selector(),
            }
            if r.random() < 0.15 and c["whenUnsatisfiable"] == "DoNotSchedule":
                c["minDomains"] = r.choice((2, 3, 4))
            if r.random() < 0.15:
                c["nodeAffinityPolicy"] = r.choice(("Honor", "Ignore"))
            if r.random() < 0.15:
                c["nodeTaintsPolicy"] = r.choice(("Honor", "Ignore"))
            if r.random() < 0.1:
                c["matchLabelKeys"] = ["tier"]
            out.append(c)
        # at most one constraint per key and policy
        seen = set()
        unique = []
        for c in out:
            k = (c["topologyKey"], c["whenUnsatisfiable"])
            if k not in seen:
                seen.add(k)
                unique.append(c)
        return unique

    def tolerations(self) -> list[dict[str, Any]] | None:
        r = self.r
        if not self.chance(0.3, "affinity"):
            return None
        out = []
        for _ in range(r.randint(1, 2)):
            t: dict[str, Any] = {}
            if r.random() < 0.1:
                t["operator"] = "Exists"
            else:
                t["key"] = r.choice(("dedicated", "gpu", "spot", "node.kubernetes.io/not-ready"))
                if r.random() < 0.4:
                    t["operator"] = "Exists"
                else:
                    t["operator"] = "Equal"
                    t["value"] = r.choice(("true", "ml", "batch"))
            if r.random() < 0.6:
                t["effect"] = r.choice(("NoSchedule", "PreferNoSchedule", "NoExecute"))
                if t["effect"] == "NoExecute" and r.random() < 0.3:
                    t["tolerationSeconds"] = 300
            out.append(t)
        return out

    def pod(self, *, pending: bool, namespace: str = "default") -> dict[str, Any]:
        r = self.r
        app = r.choice(APPS)
        labels = {"app": app}
        if r.random() < 0.3:
            labels["tier"] = r.choice(("front", "back"))
        name = self.name(app)
        spec: dict[str, Any] = {
            "containers": [self.container(big=pending and self.chance(0.08, "resources"))]
        }
        if r.random() < 0.15:
            second = self.container()
            if "ports" in second and "ports" in spec["containers"][0]:
                del second["ports"]  # the API server refuses a host port twice in a pod
            spec["containers"].append(second)
        if self.chance(0.1, "resources"):
            init = self.container()
            init.pop("ports", None)
            if self.minor >= 29 and r.random() < 0.5:
                init["restartPolicy"] = "Always"  # a sidecar
            spec["initContainers"] = [init]
        if self.chance(0.05, "resources"):
            spec["overhead"] = {"cpu": "100m", "memory": "64Mi"}
        if self.minor >= 34 and self.chance(0.05, "resources"):
            # pod-level requests, at least what the containers ask for (the API server checks)
            def need(c: dict[str, Any], key: str, parse: Callable[[str], int]) -> int:
                res = c.get("resources") or {}
                return max(
                    parse((res.get("requests") or {}).get(key, "0")),
                    parse((res.get("limits") or {}).get(key, "0")),
                )

            every = spec["containers"] + spec.get("initContainers", [])
            cpu = sum(need(c, "cpu", _cpu_milli) for c in every)
            mem = sum(need(c, "memory", _mem_mib) for c in every)
            spec["resources"] = {
                "requests": {
                    "cpu": f"{cpu + r.choice((0, 500, 1000))}m",
                    "memory": f"{mem + r.choice((0, 512, 1024))}Mi",
                }
            }
        if pending:
            if self.chance(0.15, "affinity"):
                spec["nodeSelector"] = r.choice(
                    (
                        {"disktype": "ssd"},
                        {"pool": "general"},
                        {"topology.kubernetes.io/zone": r.choice(ZONES)},
                    )
                )
            aff = self.affinity()
            if aff:
                spec["affinity"] = aff
            tol = self.tolerations()
            if tol:
                spec["tolerations"] = tol
            tsc = self.spread(labels)
            if tsc:
                spec["topologySpreadConstraints"] = tsc
            if self.chance(0.03, None):
                spec["schedulingGates"] = [{"name": "example.com/wait"}]
        elif self.chance(0.15, "affinity"):
            # existing pods with terms of their own (InterPodAffinity counts them)
            aff = self.affinity()
            if aff and "nodeAffinity" in aff:
                del aff["nodeAffinity"]
            if aff:
                spec["affinity"] = aff
        if self.chance(0.3, "preemption"):
            spec["priorityClassName"] = (
                r.choice(("low", "high", "low"))
                if not pending
                else r.choice(("high", "high", "low", "critical"))
            )
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": name,
                "namespace": namespace,
                "labels": labels,
                "creationTimestamp": f"2026-01-01T00:{self.counter // 60 % 60:02d}:{self.counter % 60:02d}Z",
            },
            "spec": spec,
        }
        if not pending:
            pod["status"] = {
                "phase": "Running",
                "startTime": f"2026-01-01T00:{self.counter // 60 % 60:02d}:{self.counter % 60:02d}Z",
            }
        return pod

    def place(self, pod: dict[str, Any]) -> bool:
        """Bind *pod* to a node with room (roughly: requests of its first container)."""
        cpu = mem = 0
        for c in pod["spec"]["containers"]:
            req = (c.get("resources") or {}).get("requests") or {}
            cpu += _cpu_milli(req.get("cpu", "0"))
            mem += _mem_mib(req.get("memory", "0"))
        fits = [n for n, (fc, fm, fp) in self.free.items() if fc >= cpu and fm >= mem and fp >= 1]
        if not fits:
            return False
        node = self.r.choice(sorted(fits))
        pod["spec"]["nodeName"] = node
        self.free[node][0] -= cpu
        self.free[node][1] -= mem
        self.free[node][2] -= 1
        # ports and extended resources of bound pods are left out of the draw
        for c in pod["spec"]["containers"]:
            c.pop("ports", None)
            req = c.get("resources") or {}
            for part in ("requests", "limits"):
                (req.get(part) or {}).pop("example.com/gpu", None)
                (req.get(part) or {}).pop("ephemeral-storage", None)
                (req.get(part) or {}).pop("hugepages-2Mi", None)
        pod["spec"].pop("initContainers", None)
        pod["spec"].pop("overhead", None)
        pod["spec"].pop("resources", None)
        return True

    # -- other objects -------------------------------------------------------------------------
    def priority_classes(self) -> None:
        for name, value in (("low", 100), ("high", 1000), ("critical", 100000)):
            pc: dict[str, Any] = {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": name},
                "value": value,
            }
            if name == "high" and self.r.random() < 0.2:
                pc["preemptionPolicy"] = "Never"
            self.items.append(pc)

    def pdbs(self) -> None:
        if not self.chance(0.3, "preemption"):
            return
        app = self.r.choice(APPS)
        spec: dict[str, Any] = {"selector": {"matchLabels": {"app": app}}}
        if self.r.random() < 0.5:
            spec["minAvailable"] = self.r.choice((1, 2))
        else:
            spec["maxUnavailable"] = self.r.choice((0, 1))
        self.items.append(
            {
                "apiVersion": "policy/v1",
                "kind": "PodDisruptionBudget",
                "metadata": {"name": self.name("pdb"), "namespace": "default"},
                "spec": spec,
                "status": {
                    "disruptionsAllowed": self.r.choice((0, 1)),
                    "currentHealthy": 1,
                    "desiredHealthy": 1,
                    "expectedPods": 1,
                },
            }
        )

    def services(self) -> None:
        if not self.chance(0.3, "spread"):
            return
        for app in self.r.sample(APPS, self.r.randint(1, 2)):
            self.items.append(
                {
                    "apiVersion": "v1",
                    "kind": "Service",
                    "metadata": {"name": f"svc-{app}", "namespace": "default"},
                    "spec": {"selector": {"app": app}, "ports": [{"port": 80}]},
                }
            )

    def namespaces(self) -> None:
        self.items.append(
            {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {"name": "default", "labels": {"kubernetes.io/metadata.name": "default"}},
            }
        )
        self.items.append(
            {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {
                    "name": "team-a",
                    "labels": {"kubernetes.io/metadata.name": "team-a", "team": "a"},
                },
            }
        )

    def config(self) -> dict[str, Any] | None:
        r = self.r
        if not self.chance(0.2, "config"):
            return None
        profile: dict[str, Any] = {"schedulerName": "default-scheduler"}
        plugins: dict[str, Any] = {}
        plugin_config: list[dict[str, Any]] = []
        choice = r.randint(0, 6)
        if choice == 0:
            plugins["score"] = {
                "enabled": [
                    {"name": "NodeResourcesBalancedAllocation", "weight": r.randint(2, 5)},
                    {"name": "ImageLocality", "weight": r.randint(2, 5)},
                ]
            }
        elif choice == 1:
            plugins["multiPoint"] = {
                "disabled": [
                    {
                        "name": r.choice(
                            ("PodTopologySpread", "InterPodAffinity", "TaintToleration", "ImageLocality")
                        )
                    }
                ]
            }
        elif choice == 2:
            strategy = r.choice(("MostAllocated", "LeastAllocated", "RequestedToCapacityRatio"))
            ss: dict[str, Any] = {
                "type": strategy,
                "resources": [{"name": "cpu", "weight": r.randint(1, 3)}, {"name": "memory", "weight": 1}],
            }
            if strategy == "RequestedToCapacityRatio":
                ss["requestedToCapacityRatio"] = {
                    "shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]
                }
            plugin_config.append({"name": "NodeResourcesFit", "args": {"scoringStrategy": ss}})
        elif choice == 3:
            plugin_config.append(
                {
                    "name": "PodTopologySpread",
                    "args": {
                        "defaultingType": "List",
                        "defaultConstraints": [
                            {
                                "maxSkew": 1,
                                "topologyKey": "topology.kubernetes.io/zone",
                                "whenUnsatisfiable": "ScheduleAnyway",
                            }
                        ],
                    },
                }
            )
        elif choice == 4:
            plugin_config.append(
                {"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": r.randint(0, 10)}}
            )
        elif choice == 5:
            plugin_config.append(
                {
                    "name": "NodeResourcesBalancedAllocation",
                    "args": {
                        "resources": [
                            {"name": "cpu", "weight": 1},
                            {"name": "memory", "weight": 1},
                            {"name": "example.com/gpu", "weight": 2},
                        ]
                    },
                }
            )
        else:
            plugins["score"] = {
                "disabled": [{"name": "*"}],
                "enabled": [{"name": "NodeResourcesFit", "weight": 1}],
            }
        if plugins:
            profile["plugins"] = plugins
        if plugin_config:
            profile["pluginConfig"] = plugin_config
        doc: dict[str, Any] = {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [profile],
        }
        if r.random() < 0.3:
            doc["percentageOfNodesToScore"] = r.choice((10, 50, 100))
        return doc


class _Storage:
    """StorageClasses, PersistentVolumes, claims, CSINodes and the volumes pods mount
    (VolumeBinding, VolumeZone, VolumeRestrictions, NodeVolumeLimits)."""

    DRIVER: Final = "ebs.csi.example.com"

    def __init__(self, g: _Gen) -> None:
        self.g = g
        self.claims: list[tuple[str, str]] = []  # (namespace, name) of claims pods may use
        self.rwop: list[tuple[str, str]] = []

    def objects(self) -> list[dict[str, Any]]:
        g, r = self.g, self.g.r
        out: list[dict[str, Any]] = [
            {
                "apiVersion": "storage.k8s.io/v1",
                "kind": "StorageClass",
                "metadata": {"name": "local"},
                "provisioner": "kubernetes.io/no-provisioner",
                "volumeBindingMode": "WaitForFirstConsumer",
            },
            {
                "apiVersion": "storage.k8s.io/v1",
                "kind": "StorageClass",
                "metadata": {"name": "fast"},
                "provisioner": self.DRIVER,
                "volumeBindingMode": "WaitForFirstConsumer",
                **(
                    {
                        "allowedTopologies": [
                            {
                                "matchLabelExpressions": [
                                    {
                                        "key": "topology.kubernetes.io/zone",
                                        "values": sorted(r.sample(ZONES, 2)),
                                    }
                                ]
                            }
                        ]
                    }
                    if r.random() < 0.4
                    else {}
                ),
            },
            {
                "apiVersion": "storage.k8s.io/v1",
                "kind": "StorageClass",
                "metadata": {"name": "now"},
                "provisioner": self.DRIVER,
                "volumeBindingMode": "Immediate",
            },
            {
                "apiVersion": "storage.k8s.io/v1",
                "kind": "CSIDriver",
                "metadata": {"name": self.DRIVER},
                "spec": {"attachRequired": True},
            },
        ]
        for node in g.nodes:
            name = node["metadata"]["name"]
            if r.random() < 0.6:
                out.append(
                    {
                        "apiVersion": "storage.k8s.io/v1",
                        "kind": "CSINode",
                        "metadata": {"name": name},
                        "spec": {
                            "drivers": [
                                {
                                    "name": self.DRIVER,
                                    "nodeID": name,
                                    "topologyKeys": ["topology.kubernetes.io/zone"],
                                    "allocatable": {"count": r.choice((1, 2, 8))},
                                }
                            ]
                        },
                    }
                )
        # local PVs on some nodes, zonal PVs labelled with their zone
        for i in range(r.randint(1, 4)):
            node = r.choice(g.nodes)
            out.append(
                self.pv(
                    f"local-{i}",
                    "local",
                    r.choice((5, 10, 50)),
                    {"kubernetes.io/hostname": [node["metadata"]["name"]]},
                )
            )
        for i in range(r.randint(0, 3)):
            zone = r.choice(ZONES)
            pv = self.pv(f"zonal-{i}", "fast", r.choice((10, 100)), {"topology.kubernetes.io/zone": [zone]})
            pv["metadata"]["labels"] = {"topology.kubernetes.io/zone": zone}
            if r.random() < 0.5:
                # bound to a claim already
                claim = f"data-{i}"
                pv["spec"]["claimRef"] = {
                    "namespace": "default",
                    "name": claim,
                    "kind": "PersistentVolumeClaim",
                    "apiVersion": "v1",
                }
                pv["status"] = {"phase": "Bound"}
                out.append(
                    self.pvc(claim, "fast", pv["spec"]["capacity"]["storage"], volume=pv["metadata"]["name"])
                )
                self.claims.append(("default", claim))
            out.append(pv)
        for i in range(r.randint(1, 4)):
            cls = r.choice(("local", "fast", "fast", "now"))
            name = f"claim-{i}"
            modes = ["ReadWriteOncePod"] if r.random() < 0.15 else ["ReadWriteOnce"]
            out.append(
                self.pvc(
                    name,
                    cls,
                    f"{r.choice((1, 5, 20))}Gi",
                    modes=modes,
                    immediate_unbound=cls == "now" and r.random() < 0.5,
                )
            )
            (self.rwop if modes == ["ReadWriteOncePod"] else self.claims).append(("default", name))
        if r.random() < 0.3:
            out.append(self.pvc("missing-class", "gold", "1Gi"))
            self.claims.append(("default", "missing-class"))
        return out

    def pv(self, name: str, cls: str, gib: int, affinity: dict[str, list[str]]) -> dict[str, Any]:
        return {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": name},
            "spec": {
                "capacity": {"storage": f"{gib}Gi"},
                "accessModes": ["ReadWriteOnce"],
                "storageClassName": cls,
                "persistentVolumeReclaimPolicy": "Retain",
                "local": {"path": f"/mnt/{name}"} if cls == "local" else None,
                "csi": None if cls == "local" else {"driver": self.DRIVER, "volumeHandle": name},
                "nodeAffinity": {
                    "required": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {"key": k, "operator": "In", "values": v} for k, v in affinity.items()
                                ]
                            }
                        ]
                    }
                },
            },
            "status": {"phase": "Available"},
        }

    def pvc(
        self,
        name: str,
        cls: str,
        size: str,
        *,
        volume: str = "",
        modes: list[str] | None = None,
        immediate_unbound: bool = False,
    ) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "accessModes": modes or ["ReadWriteOnce"],
            "storageClassName": cls,
            "resources": {"requests": {"storage": size}},
        }
        status: dict[str, Any] = {"phase": "Pending"}
        # a uid, as the API server gives: a provisioned volume is named after it
        meta: dict[str, Any] = {
            "name": name,
            "namespace": "default",
            "uid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"case-{self.g.seed}/default/{name}")),
        }
        if volume:
            spec["volumeName"] = volume
            status = {"phase": "Bound", "capacity": {"storage": size}, "accessModes": spec["accessModes"]}
            meta["annotations"] = {"pv.kubernetes.io/bind-completed": "yes"}
        return {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": meta,
            "spec": spec,
            "status": status,
        }

    def volumes(self, pod: dict[str, Any]) -> None:
        """Give *pod* some volumes (pods in the default namespace only: the claims live there)."""
        g, r = self.g, self.g.r
        if pod["metadata"]["namespace"] != "default":
            return
        vols: list[dict[str, Any]] = []
        if self.claims and r.random() < 0.5:
            _ns, name = r.choice(self.claims)
            vols.append({"name": "data", "persistentVolumeClaim": {"claimName": name}})
        if self.rwop and r.random() < 0.3:
            vols.append({"name": "excl", "persistentVolumeClaim": {"claimName": r.choice(self.rwop)[1]}})
        if r.random() < 0.15:
            vols.append(
                {
                    "name": "scratch",
                    "ephemeral": {
                        "volumeClaimTemplate": {
                            "spec": {
                                "accessModes": ["ReadWriteOnce"],
                                "storageClassName": "fast",
                                "resources": {"requests": {"storage": "1Gi"}},
                            }
                        }
                    },
                }
            )
        if r.random() < 0.15:
            vols.append(
                {
                    "name": "disk",
                    "gcePersistentDisk": {"pdName": r.choice(("pd-a", "pd-b")), "readOnly": r.random() < 0.5},
                }
            )
        if vols:
            pod["spec"]["volumes"] = vols
            pod["spec"]["containers"][0]["volumeMounts"] = [
                {"name": v["name"], "mountPath": f"/{v['name']}"} for v in vols
            ]
        del g


class _Devices:
    """Dynamic resource allocation with structured parameters (``resource.k8s.io/v1``, 1.34 on):
    DeviceClasses, ResourceSlices on some nodes, ResourceClaims (one device or several, by CEL
    selector, all of a class, prioritized alternatives, a matchAttribute constraint), claims
    already allocated to running pods, and pods naming claims (some shared, some missing)."""

    GPU: Final = "gpu.example.com"
    NIC: Final = "nic.example.com"
    MODELS: Final = (("a100", 80), ("t4", 16), ("h100", 80), ("l4", 24))

    def __init__(self, g: _Gen) -> None:
        self.g = g
        self.claims: list[str] = []
        self.devices: dict[str, list[tuple[str, str, str]]] = {}  # node -> (driver, pool, device)

    def objects(self) -> list[dict[str, Any]]:
        g, r = self.g, self.g.r
        out: list[dict[str, Any]] = [
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "DeviceClass",
                "metadata": {"name": drv},
                "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{drv}"'}}]},
            }
            for drv in (self.GPU, self.NIC)
        ]
        for node in g.nodes:
            name = node["metadata"]["name"]
            if r.random() < 0.35:
                continue
            devices = []
            for i in range(r.randint(1, 4)):
                model, gib = r.choice(self.MODELS)
                devices.append(
                    {
                        "name": f"gpu-{i}",
                        "attributes": {"model": {"string": model}, "index": {"int": i}},
                        "capacity": {"memory": {"value": f"{gib}Gi"}},
                    }
                )
            out.append(self.slice(name, self.GPU, devices))
            self.devices[name] = [(self.GPU, name, str(d["name"])) for d in devices]
            if r.random() < 0.4:
                nics = [
                    {"name": f"nic-{i}", "attributes": {"speed": {"int": r.choice((25, 100))}}}
                    for i in range(2)
                ]
                out.append(self.slice(name, self.NIC, nics))
                self.devices[name] += [(self.NIC, name, str(d["name"])) for d in nics]
        for i in range(r.randint(2, 6)):
            out.append(self.claim(f"claim-{i}"))
            self.claims.append(f"claim-{i}")
        return out

    def slice(self, node: str, driver: str, devices: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceSlice",
            "metadata": {"name": f"{node}-{driver.split('.')[0]}"},
            "spec": {
                "driver": driver,
                "nodeName": node,
                "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                "devices": devices,
            },
        }

    def request(self, name: str) -> dict[str, Any]:
        r = self.r
        exact: dict[str, Any] = {"deviceClassName": self.GPU if r.random() < 0.8 else self.NIC}
        if exact["deviceClassName"] == self.GPU:
            roll = r.random()
            if roll < 0.3:
                model = r.choice(self.MODELS)[0]
                exact["selectors"] = [
                    {"cel": {"expression": f'device.attributes["{self.GPU}"].model == "{model}"'}}
                ]
            elif roll < 0.5:
                exact["selectors"] = [
                    {
                        "cel": {
                            "expression": f'device.capacity["{self.GPU}"].memory.compareTo('
                            f'quantity("{r.choice((20, 40))}Gi")) >= 0'
                        }
                    }
                ]
        roll = r.random()
        if roll < 0.1:
            exact["allocationMode"] = "All"
        elif roll < 0.35:
            exact["count"] = 2
        if r.random() < 0.2:
            # a prioritized list: the first alternative that fits on the node
            return {
                "name": name,
                "firstAvailable": [
                    {"name": "best", **exact},
                    {"name": "fallback", "deviceClassName": self.GPU},
                ],
            }
        return {"name": name, "exactly": exact}

    @property
    def r(self) -> random.Random:
        return self.g.r

    def claim(self, name: str) -> dict[str, Any]:
        r = self.r
        requests = [self.request("dev")]
        spec: dict[str, Any] = {"devices": {"requests": requests}}
        if r.random() < 0.2:
            requests.append({"name": "other", "exactly": {"deviceClassName": self.GPU}})
            if r.random() < 0.5:
                spec["devices"]["constraints"] = [
                    {"requests": ["dev", "other"], "matchAttribute": f"{self.GPU}/model"}
                ]
        return {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default"},
            "spec": spec,
        }

    def hold(self, pod: dict[str, Any]) -> dict[str, Any] | None:
        """A claim allocated to the bound *pod*: one device of its node (None: the node has none
        left)."""
        node = pod["spec"]["nodeName"]
        free = self.devices.get(node) or []
        if not free or pod["metadata"]["namespace"] != "default":
            return None
        driver, pool, device = free.pop(self.r.randrange(len(free)))
        name = f"held-{pod['metadata']['name']}"
        uid = f"uid-{pod['metadata']['namespace']}-{pod['metadata']['name']}"
        pod["metadata"]["uid"] = uid
        self.attach(pod, name)
        return {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {
                "name": name,
                "namespace": "default",
                "finalizers": ["resource.kubernetes.io/delete-protection"],
            },
            "spec": {"devices": {"requests": [{"name": "dev", "exactly": {"deviceClassName": driver}}]}},
            "status": {
                "allocation": {
                    "devices": {
                        "results": [{"request": "dev", "driver": driver, "pool": pool, "device": device}]
                    },
                    "nodeSelector": {
                        "nodeSelectorTerms": [
                            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
                        ]
                    },
                },
                "reservedFor": [{"resource": "pods", "name": pod["metadata"]["name"], "uid": uid}],
            },
        }

    @staticmethod
    def attach(pod: dict[str, Any], claim: str) -> None:
        spec = pod["spec"]
        spec.setdefault("resourceClaims", []).append({"name": "dev", "resourceClaimName": claim})
        spec["containers"][0].setdefault("resources", {})["claims"] = [{"name": "dev"}]

    def use(self, pod: dict[str, Any]) -> None:
        """Give the pending *pod* a claim, now and then one another pod has, or one that does
        not exist."""
        r = self.r
        if pod["metadata"]["namespace"] != "default" or r.random() < 0.4:
            return
        if r.random() < 0.08:
            self.attach(pod, "no-such-claim")
        elif self.claims:
            # mostly a claim of its own; a claim already taken is shared
            self.attach(pod, self.claims.pop(0) if r.random() < 0.8 else r.choice(self.claims))


#: the share of 1.36's podgroups cases with priorities that turn WorkloadAwarePreemption on: 0 for
#: now, as schedframe's 1.36 workload-aware preemption still differs from upstream in some cases
#: (18 of 300 at seed 6000 with the gate; docs/fidelity.rst); ``--feature-gates
#: WorkloadAwarePreemption=true`` runs them all with the gate
WORKLOAD_AWARE_PREEMPTION_136: Final = 0.0
#: whether 1.36's podgroups cases get priorities (about 40% of them; members preempting one by
#: one, ``podgroups-member-preemption-1.36.yaml`` written by hand)
PRIORITIES_136: bool = True
#: whether 1.37's podgroups cases get priorities (about 40% of them; ``podgroups-preemption.yaml``
#: and ``podgroups-nominated-members.yaml`` are written by hand)
PRIORITIES_137: bool = True


class _PodGroups:
    """Workload-aware scheduling (``scheduling.k8s.io``: v1alpha2 at 1.36, v1beta1 at 1.37): a
    small cluster (3-8 nodes in zones and racks), one or two Workloads whose podGroupTemplates
    the PodGroups (1-3) follow, each with a gang policy (minCount) or the basic one, and their
    member pods among single pods, in a shuffled order. Some gangs never reach minCount (their
    pods stay held at PreEnqueue), some ask for more than the cluster has (the gang fails as a
    whole), some fit only in part (a gang whose minCount is met by the pods that fit).

    About half of the cases turn on TopologyAwareWorkloadScheduling and give some of their groups
    a topology constraint on the rack label (the Workload's podGroupTemplate and the PodGroup
    alike): the group is tried in one placement per rack, and bound within one. Now and then a
    node of such a case has no rack label (it is in no placement). These draws come from a
    generator of their own, so that the cases without the gate are those the seed drew before.

    About 40% of the cases (a generator of their own too) have priorities: the nodes filled with
    more bound single pods of a low priority (some of no class, a few critical ones that no
    group may preempt), now and then a PodDisruptionBudget over some of them, and groups of a
    higher priority (``spec.priority`` of the PodGroup, its members of the PriorityClass of that
    value; now and then one whose members may not preempt) that do not fit without evicting
    some: workload-aware preemption (1.37; at 1.36 the members preempting one by one, unless
    :data:`WORKLOAD_AWARE_PREEMPTION_136` turns the gate on)."""

    RACK: Final = "topology.example.com/rack"

    def __init__(self, g: _Gen) -> None:
        self.g = g
        self.r = g.r
        self.version = "v1alpha2" if g.minor == 36 else "v1beta1"
        # GangScheduling is its own gate at 1.36; from 1.37 GenericWorkload enables the plugin
        self.gates = "GenericWorkload=true,GangScheduling=true" if g.minor == 36 else "GenericWorkload=true"
        self.t = random.Random(f"placements-{g.seed}")
        self.topology = self.t.random() < 0.5
        if self.topology:
            # TopologyAwareWorkloadScheduling needs GenericWorkload (both releases)
            self.gates += ",TopologyAwareWorkloadScheduling=true"
        self.p = random.Random(f"preemption-{g.seed}")
        self.preempt = self.p.random() < 0.4 and (PRIORITIES_137 if g.minor >= 37 else PRIORITIES_136)
        if self.preempt and g.minor == 36 and self.p.random() < WORKLOAD_AWARE_PREEMPTION_136:
            # 1.36's workload-aware preemption is an alpha gate (it needs GangScheduling)
            self.gates += ",WorkloadAwarePreemption=true"

    PRIORITIES: Final = (("low", 100, None), ("high", 1000, None), ("high-never", 1000, "Never"),
                         ("critical", 100000, None))

    def priority_classes(self) -> None:
        for name, value, policy in self.PRIORITIES:
            pc: dict[str, Any] = {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": name},
                "value": value,
            }
            if policy:
                pc["preemptionPolicy"] = policy
            self.g.items.append(pc)

    def fill(self, bound: list[dict[str, Any]]) -> None:
        """Lower-priority singles on the nodes (most of them), and a PDB over some now and then."""
        g, p = self.g, self.p
        for _ in range(p.randint(len(g.nodes), 3 * len(g.nodes))):
            pod = g.pod(pending=False)
            if g.place(pod):
                bound.append(pod)
        for pod in bound:
            roll = p.random()
            if roll < 0.6:
                pod["spec"]["priorityClassName"] = "low"
            elif roll < 0.7:
                pod["spec"]["priorityClassName"] = "critical"
            else:
                pod["spec"].pop("priorityClassName", None)
        if bound and p.random() < 0.4:
            app = p.choice(bound)["metadata"]["labels"]["app"]
            g.items.append({
                "apiVersion": "policy/v1",
                "kind": "PodDisruptionBudget",
                "metadata": {"name": g.name("pdb"), "namespace": "default"},
                "spec": {"selector": {"matchLabels": {"app": app}}, "maxUnavailable": 1},
                "status": {"disruptionsAllowed": p.choice((0, 1)), "currentHealthy": 1, "desiredHealthy": 1,
                           "expectedPods": 1},
            })

    def node(self, i: int, racks: int) -> dict[str, Any]:
        node = self.g.node(i)
        node["metadata"]["labels"][self.RACK] = f"rack-{i % racks}"
        return node

    def template_ref(self, workload: str, template: str) -> dict[str, Any]:
        if self.version == "v1alpha2":
            ref = {"workloadName": workload, "podGroupTemplateName": template}
            return {"podGroupTemplateRef": {"workload": ref}}
        return {"workloadRef": {"workloadName": workload, "templateName": template}}

    def member(self, group: str, cpu: str, memory: str) -> dict[str, Any]:
        g = self.g
        pod = g.pod(pending=True)
        spec = pod["spec"]
        spec.pop("schedulingGates", None)
        spec.pop("priorityClassName", None)
        spec["schedulingGroup"] = {"podGroupName": group}
        # the members of a group alike: one container with the group's requests
        spec["containers"] = [
            {
                "name": "main",
                "image": "registry.k8s.io/pause:3.10",
                "resources": {"requests": {"cpu": cpu, "memory": memory}},
            }
        ]
        spec.pop("initContainers", None)
        spec.pop("overhead", None)
        spec.pop("resources", None)
        pod["metadata"]["labels"]["group"] = group
        return pod

    def case(self) -> dict[str, Any]:
        g, r = self.g, self.r
        g.namespaces()
        racks = r.randint(1, 3)
        g.nodes = [self.node(i, racks) for i in range(r.randint(3, 8))]
        if self.topology and self.t.random() < 0.3:
            del self.t.choice(g.nodes)["metadata"]["labels"][self.RACK]
        bound = []
        for _ in range(r.randint(0, len(g.nodes))):
            pod = g.pod(pending=False)
            if g.place(pod):
                bound.append(pod)
        if self.preempt:
            self.priority_classes()
            self.fill(bound)
        api = f"scheduling.k8s.io/{self.version}"
        workloads: list[dict[str, Any]] = []
        groups: list[dict[str, Any]] = []
        pending: list[list[dict[str, Any]]] = []  # per group, its members in order
        for w in range(r.randint(1, 2)):
            workload: dict[str, Any] = {
                "apiVersion": api,
                "kind": "Workload",
                "metadata": {"name": f"job-{w}", "namespace": "default"},
                "spec": {"podGroupTemplates": []},
            }
            workloads.append(workload)
        n_groups = r.randint(1, 3)
        for k in range(n_groups):
            workload = workloads[k % len(workloads)]
            template = f"tpl-{k}"
            name = f"{workload['metadata']['name']}-group-{k}"
            members = r.randint(1, 5)
            if r.random() < 0.7:
                # gang: minCount up to the members, now and then one more (the gang never
                # reaches it: its pods stay held at PreEnqueue)
                most = members + (1 if r.random() < 0.3 else 0)
                policy: dict[str, Any] = {"gang": {"minCount": r.randint(1, most)}}
            else:
                policy = {"basic": {}}
            tpl: dict[str, Any] = {"name": template, "schedulingPolicy": policy}
            spec: dict[str, Any] = {
                **self.template_ref(workload["metadata"]["name"], template),
                "schedulingPolicy": policy,
            }
            if self.topology and self.t.random() < 0.7:
                # all of the group in one rack
                tpl["schedulingConstraints"] = {"topology": [{"key": self.RACK}]}
                spec["schedulingConstraints"] = {"topology": [{"key": self.RACK}]}
            workload["spec"]["podGroupTemplates"].append(tpl)
            groups.append(
                {
                    "apiVersion": api,
                    "kind": "PodGroup",
                    "metadata": {"name": name, "namespace": "default"},
                    "spec": spec,
                }
            )
            roll = r.random()
            if roll < 0.25:
                cpu, memory = r.choice(("3", "6", "12")), r.choice(("8Gi", "24Gi"))  # too big, at times
            elif roll < 0.6:
                cpu, memory = r.choice(("1", "2")), r.choice(("1Gi", "4Gi"))
            else:
                cpu, memory = r.choice(("100m", "250m", "500m")), r.choice(("128Mi", "512Mi"))
            group_members = [self.member(name, cpu, memory) for _ in range(members)]
            if self.preempt:
                # the group's priority, its members of the class of that value
                cls = self.p.choice(("high", "high", "high", "high-never", "low", None))
                if cls is not None:
                    groups[-1]["spec"]["priority"] = {n: v for n, v, _ in self.PRIORITIES}[cls]
                    for pod in group_members:
                        pod["spec"]["priorityClassName"] = cls
            pending.append(group_members)
        singles = [g.pod(pending=True) for _ in range(r.randint(0, 3))]
        for pod in singles:
            pod["spec"].pop("schedulingGates", None)
            if self.preempt:
                cls = self.p.choice(("low", "high", None))
                if cls is None:
                    pod["spec"].pop("priorityClassName", None)
                else:
                    pod["spec"]["priorityClassName"] = cls
        # interleaved: each group's members keep their order, singles and groups mixed
        queues = [list(q) for q in pending] + [[p] for p in singles]
        order: list[dict[str, Any]] = []
        while queues:
            q = r.choice(queues)
            order.append(q.pop(0))
            if not q:
                queues.remove(q)
        workloads = [w for w in workloads if w["spec"]["podGroupTemplates"]]
        items = g.items + workloads + groups + g.nodes + bound + order
        annotations = {"oracle.schedframe.io/releases": ">=1.36", GATES_ANNOTATION: self.gates}
        return {"apiVersion": "v1", "kind": "List", "metadata": {"annotations": annotations}, "items": items}


class _Composites:
    """CompositePodGroups (1.37, ``scheduling.k8s.io/v1alpha3``; gates GenericWorkload,
    TopologyAwareWorkloadScheduling and CompositePodGroup): a cluster of two or three zones of
    one or two racks of one to three nodes (2-8 CPUs each; now and then a node in no rack), and
    one or two Workloads (v1beta1) of one ``compositePodGroupTemplates`` tree each: a root
    composite over two or three children, leaf PodGroups or, in about 40% of the trees, child
    composites over one or two leaves each (two levels). A composite has a gang policy
    (``minGroupCount`` up to its children; now and then more than its children can make, or
    than fit) or the basic one, and now and then a topology constraint: the root on the zone,
    a child composite or a leaf on the rack. The runtime CompositePodGroups and PodGroups follow
    the templates (``parentCompositePodGroupName`` naming the parent), and the member pods of the
    leaves come among a few single pods, in a shuffled order: some trees fit, some fit only in one
    zone or rack, some cannot reach their minGroupCount (too-big leaves, a gang never complete)."""

    ZONE: Final = "topology.kubernetes.io/zone"
    RACK: Final = _PodGroups.RACK
    GATES: Final = "GenericWorkload=true,TopologyAwareWorkloadScheduling=true,CompositePodGroup=true"

    def __init__(self, g: _Gen) -> None:
        self.g = g
        self.r = g.r
        self.pg = _PodGroups(g)
        self.composites: list[dict[str, Any]] = []
        self.groups: list[dict[str, Any]] = []
        self.pending: list[list[dict[str, Any]]] = []

    def nodes(self) -> list[dict[str, Any]]:
        r = self.r
        out: list[dict[str, Any]] = []
        for z in range(r.randint(2, 3)):
            zone = ZONES[z]
            for k in range(r.randint(1, 2)):
                for _ in range(r.randint(1, 3)):
                    node = self.g.node(len(out))
                    labels = node["metadata"]["labels"]
                    labels[self.ZONE] = zone
                    labels["topology.kubernetes.io/region"] = "region-1"
                    labels[self.RACK] = f"rack-{zone[-1]}{k}"
                    cpu = str(r.choice((2, 4, 4, 8)))
                    for key in ("capacity", "allocatable"):
                        node["status"][key].update({"cpu": cpu, "memory": "16Gi", "pods": "110"})
                    out.append(node)
        if r.random() < 0.15:
            del r.choice(out)["metadata"]["labels"][self.RACK]
        return out

    @staticmethod
    def constraint(key: str) -> dict[str, Any]:
        return {"topology": [{"key": key}]}

    def leaf(self, workload: str, parent: str, name: str) -> dict[str, Any]:
        """A leaf PodGroup template under *parent*, its PodGroup and its members."""
        r = self.r
        members = r.randint(1, 4)
        if r.random() < 0.75:
            most = members + (1 if r.random() < 0.15 else 0)  # now and then a gang never complete
            policy: dict[str, Any] = {"gang": {"minCount": r.randint(1, most)}}
        else:
            policy = {"basic": {}}
        tpl: dict[str, Any] = {"name": name, "schedulingPolicy": policy}
        spec: dict[str, Any] = {
            "parentCompositePodGroupName": parent,
            "workloadRef": {"workloadName": workload, "templateName": name},
            "schedulingPolicy": policy,
        }
        if r.random() < 0.35:
            tpl["schedulingConstraints"] = spec["schedulingConstraints"] = self.constraint(self.RACK)
        self.groups.append({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                            "metadata": {"name": name, "namespace": "default"}, "spec": spec})
        roll = r.random()
        if roll < 0.15:
            cpu = r.choice(("6", "12"))  # too big for most nodes, or all
        elif roll < 0.6:
            cpu = r.choice(("1", "2"))
        else:
            cpu = r.choice(("250m", "500m"))
        self.pending.append([self.pg.member(name, cpu, r.choice(("512Mi", "1Gi"))) for _ in range(members)])
        return tpl

    def composite(self, workload: str, name: str, parent: str | None, depth: int) -> dict[str, Any]:
        """A composite template (its children drawn, two levels at most), and its
        CompositePodGroup."""
        r = self.r
        children: list[dict[str, Any]] = []
        leaves: list[dict[str, Any]] = []
        spec: dict[str, Any] = {"workloadRef": {"workloadName": workload, "templateName": name}}
        if parent is not None:
            spec["parentCompositePodGroupName"] = parent
        cpg = {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "CompositePodGroup",
               "metadata": {"name": name, "namespace": "default"}, "spec": spec}
        self.composites.append(cpg)
        nested = depth == 1 and r.random() < 0.4
        n = r.randint(2, 3) if depth == 1 else r.randint(1, 2)
        for i in range(n):
            child = f"{name}-{i}"
            if nested:
                children.append(self.composite(workload, child, name, depth + 1))
            else:
                leaves.append(self.leaf(workload, name, child))
        if r.random() < 0.8:
            most = n + (1 if r.random() < 0.1 else 0)  # now and then more groups than it has
            policy: dict[str, Any] = {"gang": {"minGroupCount": r.randint(1, most)}}
        else:
            policy = {"basic": {}}
        tpl: dict[str, Any] = {"name": name, "schedulingPolicy": policy}
        spec["schedulingPolicy"] = policy
        key = self.ZONE if depth == 1 else self.RACK
        if r.random() < (0.5 if depth == 1 else 0.4):
            tpl["schedulingConstraints"] = spec["schedulingConstraints"] = self.constraint(key)
        if leaves:
            tpl["podGroupTemplates"] = leaves
        if children:
            tpl["compositePodGroupTemplates"] = children
        return tpl

    def case(self) -> dict[str, Any]:
        g, r = self.g, self.r
        g.namespaces()
        g.nodes = self.nodes()
        bound = []
        for _ in range(r.randint(0, len(g.nodes))):
            pod = g.pod(pending=False)
            if g.place(pod):
                bound.append(pod)
        workloads = []
        for w in range(r.randint(1, 2)):
            name = f"job-{w}"
            root = self.composite(name, f"{name}-root", None, 1)
            workloads.append({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload",
                              "metadata": {"name": name, "namespace": "default"},
                              "spec": {"compositePodGroupTemplates": [root]}})
        singles = [g.pod(pending=True) for _ in range(r.randint(0, 3))]
        for pod in singles:
            pod["spec"].pop("schedulingGates", None)
        queues = [list(q) for q in self.pending] + [[p] for p in singles]
        order: list[dict[str, Any]] = []
        while queues:
            q = r.choice(queues)
            order.append(q.pop(0))
            if not q:
                queues.remove(q)
        items = g.items + workloads + self.composites + self.groups + g.nodes + bound + order
        annotations = {"oracle.schedframe.io/releases": ">=1.37", GATES_ANNOTATION: self.GATES}
        return {"apiVersion": "v1", "kind": "List", "metadata": {"annotations": annotations}, "items": items}


def _cpu_milli(text: str) -> int:
    return int(text[:-1]) if text.endswith("m") else int(float(text) * 1000)


def _mem_mib(text: str) -> int:
    for suffix, factor in (("Gi", 1024), ("Mi", 1)):
        if text.endswith(suffix):
            return int(text[: -len(suffix)]) * factor
    return 0


def generate(seed: int, *, release: str = "1.37", family: str = "mixed") -> dict[str, Any]:
    """The case of *seed*: a List manifest (a dict)."""
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}; one of {', '.join(FAMILIES)}")
    if family not in families(release):
        raise ValueError(f"the {family} family is for 1.{_FAMILY_SINCE[family]} and later, not {release}")
    g = _Gen(seed, release, family)
    r = g.r
    if family == "podgroups":
        return _PodGroups(g).case()
    if family == "composites":
        return _Composites(g).case()
    n_nodes = r.randint(2, 9) if family != "large" else r.randint(100, 160)
    g.namespaces()
    g.priority_classes()
    g.services()
    g.pdbs()
    g.nodes = [g.node(i) for i in range(n_nodes)]
    storage = _Storage(g) if g.chance(0.15, "volumes") else None
    if storage is not None:
        g.items.extend(storage.objects())
    devices = _Devices(g) if g.minor >= 34 and g.chance(0.12, "devices") else None
    if devices is not None:
        g.items.extend(devices.objects())
    bound = []
    for _ in range(r.randint(0, n_nodes * (3 if family != "large" else 1))):
        pod = g.pod(pending=False, namespace="team-a" if r.random() < 0.15 else "default")
        if storage is not None and r.random() < 0.3:
            # a bound pod with an inline disk, for VolumeRestrictions' conflicts
            pod["spec"]["volumes"] = [
                {"name": "disk", "gcePersistentDisk": {"pdName": r.choice(("pd-a", "pd-b"))}}
            ]
        if g.place(pod):
            bound.append(pod)
            if devices is not None and r.random() < 0.2:
                held = devices.hold(pod)
                if held is not None:
                    g.items.append(held)
    pending = [
        g.pod(pending=True, namespace="team-a" if r.random() < 0.1 else "default")
        for _ in range(r.randint(2, 8) if family != "large" else r.randint(20, 40))
    ]
    if storage is not None:
        for pod in pending:
            storage.volumes(pod)
    if devices is not None:
        for pod in pending:
            devices.use(pod)
    items = list(g.items) + g.nodes + bound + pending
    config = g.config()
    if config is not None:
        items.append(config)
    return {"apiVersion": "v1", "kind": "List", "metadata": {}, "items": items}


#: a case-drawing function (for Hypothesis strategies over seeds)
Generator = Callable[[int], dict[str, Any]]
