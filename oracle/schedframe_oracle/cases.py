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
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Final

__all__ = ["FAMILIES", "generate"]

ZONES: Final = ("zone-a", "zone-b", "zone-c")
APPS: Final = ("web", "db", "cache", "batch")
IMAGES: Final = (("registry.k8s.io/pause:3.10", 300_000), ("nginx:1.27", 70_000_000),
                 ("postgres:16", 400_000_000), ("redis:7", 120_000_000), ("python:3.12", 1_000_000_000))
FAMILIES: Final = ("mixed", "resources", "affinity", "spread", "preemption", "volumes", "config", "large")


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
        status: dict[str, Any] = {"capacity": capacity, "allocatable": allocatable,
                                  "conditions": [{"type": "Ready", "status": "True"}]}
        if r.random() < 0.5:
            status["images"] = [{"names": [img], "sizeBytes": size}
                                for img, size in r.sample(IMAGES, r.randint(1, 3))]
        node = {"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "labels": labels}, "spec": spec, "status": status}
        self.free[name] = [int(_cpu_milli(allocatable["cpu"])), mem * 1024, pods]
        return node

    # -- pods -----------------------------------------------------------------------------------
    def container(self, big: bool = False) -> dict[str, Any]:
        r = self.r
        c: dict[str, Any] = {"name": self.name("c"), "image": r.choice(IMAGES)[0]}
        requests: dict[str, str] = {}
        limits: dict[str, str] = {}
        if r.random() < 0.85:
            requests["cpu"] = r.choice(("50m", "100m", "250m", "500m", "1", "2", "3")) if not big else \
                r.choice(("4", "6", "12", "20"))
        if r.random() < 0.8:
            requests["memory"] = r.choice(("64Mi", "256Mi", "1Gi", "2Gi", "4Gi")) if not big else \
                r.choice(("16Gi", "40Gi", "100Gi"))
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
            c["ports"] = [{"containerPort": 8080, "hostPort": r.choice((8080, 9090)),
                           "protocol": r.choice(("TCP", "TCP", "UDP"))}]
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
            return {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": r.choice(("In", "NotIn")),
                                          "values": sorted(r.sample(ZONES, r.randint(1, 2)))}]}
        if kind < 0.55:
            return {"matchExpressions": [{"key": "pool", "operator": r.choice(("In", "Exists", "DoesNotExist")),
                                          **({} if r.random() < 0.5 else {"values": ["general", "compute"]})}]}
        if kind < 0.7:
            return {"matchExpressions": [{"key": "cores", "operator": r.choice(("Gt", "Lt")),
                                          "values": [str(r.choice((2, 4, 8)))]}]}
        if kind < 0.85 and self.nodes:
            # the API server allows one value for a metadata.name field selector
            name = r.choice(self.nodes)["metadata"]["name"]
            return {"matchFields": [{"key": "metadata.name", "operator": r.choice(("In", "In", "NotIn")),
                                     "values": [name]}]}
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
                    {"weight": r.randint(1, 100), "preference": self.fix_selector_term(self.node_selector_term())}
                    for _ in range(r.randint(1, 2))]
            if na:
                aff["nodeAffinity"] = na
        for kind in ("podAffinity", "podAntiAffinity"):
            if not self.chance(0.22, "affinity"):
                continue
            pa: dict[str, Any] = {}

            def term() -> dict[str, Any]:
                t: dict[str, Any] = {"labelSelector": self.selector(),
                                     "topologyKey": r.choice(("kubernetes.io/hostname", "topology.kubernetes.io/zone",
                                                              "kubernetes.io/hostname"))}
                if r.random() < 0.15:
                    t["namespaces"] = r.choice((["default"], ["team-a"], ["default", "team-a"]))
                if r.random() < 0.1:
                    t["namespaceSelector"] = {} if r.random() < 0.5 else {"matchLabels": {"team": "a"}}
                if r.random() < 0.1:
                    t["matchLabelKeys"] = ["tier"]
                return t

            if r.random() < 0.6:
                pa["requiredDuringSchedulingIgnoredDuringExecution"] = [term() for _ in range(r.randint(1, 2))]
            if r.random() < 0.6:
                pa["preferredDuringSchedulingIgnoredDuringExecution"] = [
                    {"weight": r.randint(1, 100), "podAffinityTerm": term()} for _ in range(r.randint(1, 2))]
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
                "labelSelector": {"matchLabels": {"app": labels["app"]}} if r.random() < 0.85 else self.selector(),
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
        spec: dict[str, Any] = {"containers": [self.container(big=pending and self.chance(0.08, "resources"))]}
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
                return max(parse((res.get("requests") or {}).get(key, "0")),
                           parse((res.get("limits") or {}).get(key, "0")))

            every = spec["containers"] + spec.get("initContainers", [])
            cpu = sum(need(c, "cpu", _cpu_milli) for c in every)
            mem = sum(need(c, "memory", _mem_mib) for c in every)
            spec["resources"] = {"requests": {"cpu": f"{cpu + r.choice((0, 500, 1000))}m",
                                              "memory": f"{mem + r.choice((0, 512, 1024))}Mi"}}
        if pending:
            if self.chance(0.15, "affinity"):
                spec["nodeSelector"] = r.choice(({"disktype": "ssd"}, {"pool": "general"},
                                                  {"topology.kubernetes.io/zone": r.choice(ZONES)}))
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
            spec["priorityClassName"] = r.choice(("low", "high", "low")) if not pending else \
                r.choice(("high", "high", "low", "critical"))
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": namespace, "labels": labels,
                            "creationTimestamp": f"2026-01-01T00:{self.counter // 60 % 60:02d}:{self.counter % 60:02d}Z"},
               "spec": spec}
        if not pending:
            pod["status"] = {"phase": "Running",
                             "startTime": f"2026-01-01T00:{self.counter // 60 % 60:02d}:{self.counter % 60:02d}Z"}
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
            req = (c.get("resources") or {})
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
            pc: dict[str, Any] = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                                  "metadata": {"name": name}, "value": value}
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
        self.items.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                           "metadata": {"name": self.name("pdb"), "namespace": "default"}, "spec": spec,
                           "status": {"disruptionsAllowed": self.r.choice((0, 1)), "currentHealthy": 1,
                                      "desiredHealthy": 1, "expectedPods": 1}})

    def services(self) -> None:
        if not self.chance(0.3, "spread"):
            return
        for app in self.r.sample(APPS, self.r.randint(1, 2)):
            self.items.append({"apiVersion": "v1", "kind": "Service",
                               "metadata": {"name": f"svc-{app}", "namespace": "default"},
                               "spec": {"selector": {"app": app}, "ports": [{"port": 80}]}})

    def namespaces(self) -> None:
        self.items.append({"apiVersion": "v1", "kind": "Namespace",
                           "metadata": {"name": "default", "labels": {"kubernetes.io/metadata.name": "default"}}})
        self.items.append({"apiVersion": "v1", "kind": "Namespace",
                           "metadata": {"name": "team-a", "labels": {"kubernetes.io/metadata.name": "team-a",
                                                                     "team": "a"}}})

    def config(self) -> dict[str, Any] | None:
        r = self.r
        if not self.chance(0.2, "config"):
            return None
        profile: dict[str, Any] = {"schedulerName": "default-scheduler"}
        plugins: dict[str, Any] = {}
        plugin_config: list[dict[str, Any]] = []
        choice = r.randint(0, 6)
        if choice == 0:
            plugins["score"] = {"enabled": [{"name": "NodeResourcesBalancedAllocation", "weight": r.randint(2, 5)},
                                            {"name": "ImageLocality", "weight": r.randint(2, 5)}]}
        elif choice == 1:
            plugins["multiPoint"] = {"disabled": [{"name": r.choice(("PodTopologySpread", "InterPodAffinity",
                                                                      "TaintToleration", "ImageLocality"))}]}
        elif choice == 2:
            strategy = r.choice(("MostAllocated", "LeastAllocated", "RequestedToCapacityRatio"))
            ss: dict[str, Any] = {"type": strategy, "resources": [{"name": "cpu", "weight": r.randint(1, 3)},
                                                                   {"name": "memory", "weight": 1}]}
            if strategy == "RequestedToCapacityRatio":
                ss["requestedToCapacityRatio"] = {"shape": [{"utilization": 0, "score": 0},
                                                            {"utilization": 100, "score": 10}]}
            plugin_config.append({"name": "NodeResourcesFit", "args": {"scoringStrategy": ss}})
        elif choice == 3:
            plugin_config.append({"name": "PodTopologySpread", "args": {
                "defaultingType": "List",
                "defaultConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                        "whenUnsatisfiable": "ScheduleAnyway"}]}})
        elif choice == 4:
            plugin_config.append({"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": r.randint(0, 10)}})
        elif choice == 5:
            plugin_config.append({"name": "NodeResourcesBalancedAllocation", "args": {
                "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
                              {"name": "example.com/gpu", "weight": 2}]}})
        else:
            plugins["score"] = {"disabled": [{"name": "*"}],
                                "enabled": [{"name": "NodeResourcesFit", "weight": 1}]}
        if plugins:
            profile["plugins"] = plugins
        if plugin_config:
            profile["pluginConfig"] = plugin_config
        doc: dict[str, Any] = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                               "profiles": [profile]}
        if r.random() < 0.3:
            doc["percentageOfNodesToScore"] = r.choice((10, 50, 100))
        return doc


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
    g = _Gen(seed, release, family)
    r = g.r
    n_nodes = r.randint(2, 9) if family != "large" else r.randint(100, 160)
    g.namespaces()
    g.priority_classes()
    g.services()
    g.pdbs()
    g.nodes = [g.node(i) for i in range(n_nodes)]
    bound = []
    for _ in range(r.randint(0, n_nodes * (3 if family != "large" else 1))):
        pod = g.pod(pending=False, namespace="team-a" if r.random() < 0.15 else "default")
        if g.place(pod):
            bound.append(pod)
    pending = [g.pod(pending=True, namespace="team-a" if r.random() < 0.1 else "default")
               for _ in range(r.randint(2, 8) if family != "large" else r.randint(20, 40))]
    items = list(g.items) + g.nodes + bound + pending
    config = g.config()
    if config is not None:
        items.append(config)
    return {"apiVersion": "v1", "kind": "List", "metadata": {}, "items": items}


#: a case-drawing function (for Hypothesis strategies over seeds)
Generator = Callable[[int], dict[str, Any]]
