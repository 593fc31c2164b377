"""schedframe beside the real kube-scheduler on one API server (the end-to-end counterpart of the
in-process oracle, tests/oracle).

The real ``kube-scheduler`` (its default profile, ``default-scheduler``) and schedframe's
``KubeScheduler`` (the same profile under the name ``schedframe``) each schedule the same workload,
created by a real ``kube-controller-manager`` from one set of manifests, into a set of nodes of
its own: the same shapes and zones, a label ``set`` of its own, and a namespace of its own (so
spreading and anti-affinity count only their own pods). Both see all the nodes, so the messages of
the pods neither can place name the same node counts.

What is compared is what upstream decides without its random tie-breaks (placements up to ties):
how each Deployment spreads over zones, the one-per-node anti-affinity and DaemonSet, the pods
bound, the preemptor bound on the node it must use with low-priority victims only, and for the
pod that fits nowhere the ``PodScheduled`` condition and the ``FailedScheduling`` message, to the
letter.
"""

from __future__ import annotations

import collections
import contextlib
import uuid
from typing import Any

import pytest

from ._cluster import wait_for

kube_mod = pytest.importorskip("schedframe.kube")
k = pytest.importorskip("kubernetes.client")
ApiException = pytest.importorskip("kubernetes.client.rest").ApiException

ZONE = "topology.kubernetes.io/zone"
ZONES = ("zone-1", "zone-2", "zone-3")
NODE = {"cpu": "4", "memory": "8Gi", "pods": "110"}
NODES_PER_ZONE = 2
TIMEOUT = 180.0
SETS = {"a": "default-scheduler", "b": "schedframe"}


def _template(labels: dict[str, str], scheduler: str, group: str, cpu: str, **spec: Any) -> dict[str, Any]:
    return {
        "metadata": {"labels": labels},
        "spec": {
            "schedulerName": scheduler,
            "nodeSelector": {"set": group},
            "terminationGracePeriodSeconds": 0,
            "containers": [{"name": "c", "image": "registry.invalid/pause:3",
                            "resources": {"requests": {"cpu": cpu, "memory": "128Mi"}}}],
            **spec,
        },
    }


def _pod(name: str, template: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, **template["metadata"]},
            "spec": template["spec"]}


def _workload(group: str, scheduler: str, low: str) -> dict[str, dict[str, Any]]:
    """The Deployments (zone spread; hostname anti-affinity), the Job and the DaemonSet of one set."""
    spread = [{"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
               "labelSelector": {"matchLabels": {"app": "web"}}}]
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "db"}}}]}}
    return {
        "web": {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                "spec": {"replicas": 6, "selector": {"matchLabels": {"app": "web"}},
                         "template": _template({"app": "web"}, scheduler, group, "500m",
                                               topologySpreadConstraints=spread)}},
        "db": {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "db"},
               "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "db"}},
                        "template": _template({"app": "db"}, scheduler, group, "1", affinity=anti)}},
        "agent": {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
                  "spec": {"selector": {"matchLabels": {"app": "agent"}},
                           "template": _template({"app": "agent"}, scheduler, group, "100m")}},
        "batch": {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "batch"},
                  "spec": {"parallelism": 4, "completions": 4, "backoffLimit": 0,
                           "template": _template({"app": "batch"}, scheduler, group, "1",
                                                 restartPolicy="Never", priorityClassName=low)}},
    }


def _kubeconfig_args(kube: Any) -> list[str]:
    return [f"--kubeconfig={kube.kubeconfig}", "--v=1"]


def _pods(core: Any, ns: str) -> list[Any]:
    return list(core.list_namespaced_pod(ns).items)


def _bound(core: Any, ns: str) -> list[Any]:
    return [p for p in _pods(core, ns) if p.spec.node_name]


def _scheduled_condition(pod: Any) -> Any:
    return next((c for c in pod.status.conditions or [] if c.type == "PodScheduled"), None)


def _cpu_milli(pod: Any) -> int:
    total = 0
    for c in pod.spec.containers:
        cpu = ((c.resources and c.resources.requests) or {}).get("cpu", "0")
        total += int(cpu[:-1]) if cpu.endswith("m") else int(float(cpu) * 1000)
    return total


def _reasons(core: Any, ns: str) -> set[str]:
    return {e.reason for e in core.list_namespaced_event(ns).items}


def _failed_scheduling(core: Any, ns: str, name: str) -> list[str]:
    return sorted({e.message for e in core.list_namespaced_event(ns).items
                   if e.involved_object.name == name and e.reason == "FailedScheduling"})


def test_schedframe_and_kube_scheduler_decide_alike(kube, make_namespace, make_node, start_component):
    core = k.CoreV1Api(kube.api_client)
    apps = k.AppsV1Api(kube.api_client)
    batch = k.BatchV1Api(kube.api_client)
    sched = k.SchedulingV1Api(kube.api_client)
    suffix = uuid.uuid4().hex[:6]
    low, high = f"sbs-low-{suffix}", f"sbs-high-{suffix}"
    for name, value in ((low, 100), (high, 1000)):
        sched.create_priority_class({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                                     "metadata": {"name": name}, "value": value})
    nodes: dict[str, list[tuple[str, str]]] = {}  # set -> [(node, zone)]
    for group in SETS:
        nodes[group] = [(make_node(f"sbs-{group}", NODE, labels={"set": group, ZONE: zone}), zone)
                        for zone in ZONES for _ in range(NODES_PER_ZONE)]
    zone_of = {node: zone for group in nodes.values() for node, zone in group}
    ns = {group: make_namespace() for group in SETS}

    start_component("kube-controller-manager", [
        *_kubeconfig_args(kube), "--controllers=deployment,replicaset,job,daemonset",
        "--leader-elect=false", "--secure-port=0", "--use-service-account-credentials=false",
    ])
    start_component("kube-scheduler", [
        *_kubeconfig_args(kube), "--leader-elect=false", "--secure-port=0",
    ])
    ks = kube_mod.KubeScheduler(kube.new_client(), config={
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": SETS["b"]}]})
    ks.start()
    try:
        assert ks.wait_for_sync(timeout=60.0)
        for group, scheduler in SETS.items():
            for obj in _workload(group, scheduler, low).values():
                if obj["kind"] == "Job":
                    batch.create_namespaced_job(ns[group], obj)
                elif obj["kind"] == "DaemonSet":
                    apps.create_namespaced_daemon_set(ns[group], obj)
                else:
                    apps.create_namespaced_deployment(ns[group], obj)
        per_set = 6 + 3 + 4 + len(ZONES) * NODES_PER_ZONE  # web, db, batch, one agent per node
        for group in SETS:
            wait_for(lambda g=group: len(_bound(core, ns[g])) == per_set, timeout=TIMEOUT,
                     what=f"the {per_set} pods of set {group} ({SETS[group]}) to be bound")

        def outcome(group: str) -> dict[str, Any]:
            """What the rules force, apart from tie-breaks (which node of a zone, which of equally
            scored nodes): the spread Deployment's pods per zone, the most pods of the
            anti-affinity Deployment and the DaemonSet on one node and the nodes they use, every
            node within its allocatable CPU."""
            by_zone: collections.Counter[str] = collections.Counter()
            per_node: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
            cpu: collections.Counter[str] = collections.Counter()
            for p in _bound(core, ns[group]):
                app = p.metadata.labels["app"]
                if app == "web":
                    by_zone[zone_of[p.spec.node_name]] += 1
                per_node[app][p.spec.node_name] += 1
                cpu[p.spec.node_name] += _cpu_milli(p)
            return {
                "web per zone": dict(by_zone),
                "db, agent: most on one node": [max(per_node[app].values()) for app in ("db", "agent")],
                "db, agent: nodes used": [len(per_node[app]) for app in ("db", "agent")],
                "batch bound": sum(per_node["batch"].values()),
                "overcommitted nodes": [n for n, used in cpu.items() if used > 4000],
            }

        got = {group: outcome(group) for group in SETS}
        assert got["a"] == got["b"], got
        assert got["a"] == {
            "web per zone": dict.fromkeys(ZONES, 2),
            "db, agent: most on one node": [1, 1],
            "db, agent: nodes used": [3, len(ZONES) * NODES_PER_ZONE],
            "batch bound": 4,
            "overcommitted nodes": [],
        }, got["a"]

        # a pod that fits nowhere: the same condition and the same message, to the letter
        for group, scheduler in SETS.items():
            huge = _template({"app": "huge"}, scheduler, group, "5")
            core.create_namespaced_pod(ns[group], _pod("huge", huge))

        def unschedulable(group: str) -> Any:
            pod = core.read_namespaced_pod("huge", ns[group])
            cond = _scheduled_condition(pod)
            events = _failed_scheduling(core, ns[group], "huge")
            return (cond.reason, cond.message, events) if cond is not None and cond.status == "False" \
                and events else None

        failed = {group: wait_for(lambda g=group: unschedulable(g), timeout=TIMEOUT,
                                  what=f"huge of set {group} to be unschedulable") for group in SETS}
        assert failed["a"] == failed["b"], failed
        assert failed["a"][0] == "Unschedulable"
        assert "Insufficient cpu" in failed["a"][1]

        # preemption: a high-priority pod that must go to one node, which its DaemonSet pod alone
        # leaves too full for it
        for group, scheduler in SETS.items():
            only_there = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchFields": [
                    {"key": "metadata.name", "operator": "In", "values": [nodes[group][0][0]]}]}]}}}
            preemptor = _template({"app": "preemptor"}, scheduler, group, "3950m",
                                  priorityClassName=high, affinity=only_there)
            core.create_namespaced_pod(ns[group], _pod("preemptor", preemptor))
        for group in SETS:
            target = nodes[group][0][0]
            bound = wait_for(lambda g=group: core.read_namespaced_pod("preemptor", ns[g]).spec.node_name,
                             timeout=TIMEOUT, what=f"the preemptor of set {group} to be bound")
            assert bound == target
            wait_for(lambda g=group: _reasons(core, ns[g]) & {"Preempted"}, timeout=TIMEOUT,
                     what=f"a Preempted event in set {group}")
            uid = core.read_namespaced_pod("preemptor", ns[group]).metadata.uid
            notes = {e.message for e in core.list_namespaced_event(ns[group]).items
                     if e.reason == "Preempted"}
            assert notes == {f"Preempted by pod {uid} on node {target}"}, (group, notes)
            used = sum(_cpu_milli(p) for p in core.list_namespaced_pod(
                ns[group], field_selector=f"spec.nodeName={target}").items)
            assert used <= 4000, f"set {group}: {used}m of cpu requested on {target}"
    finally:
        ks.stop(timeout=10.0)
        for name in (low, high):
            with contextlib.suppress(ApiException):
                sched.delete_priority_class(name)

