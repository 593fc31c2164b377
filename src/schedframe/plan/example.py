"""The built-in planning example (``schedframe plan`` with no files): a small cluster, pending
work exercising topology spread, a gang (Coscheduling), GPU sharing (OpenGpuShare) and a pod no
template can hold, four node templates, and nodes to scale down, one kept by a
PodDisruptionBudget."""

from __future__ import annotations

from typing import Any

__all__ = ["EXAMPLE_CONFIG", "example_cluster", "example_templates"]

_ZONE = "topology.kubernetes.io/zone"
_DATA = [{"key": "dedicated", "operator": "Equal", "value": "data", "effect": "NoSchedule"}]

#: The example's scheduler configuration: the default profile plus Coscheduling and
#: OpenGpuShare (registered by :func:`schedframe.gpushare.gpushare_registry`).
EXAMPLE_CONFIG: dict[str, Any] = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [{
        "schedulerName": "default-scheduler",
        "plugins": {"multiPoint": {"enabled": [{"name": "Coscheduling"}, {"name": "OpenGpuShare"}]},
                    "queueSort": {"disabled": [{"name": "PrioritySort"}]}},
        "pluginConfig": [{"name": "Coscheduling", "args": {"permitWaitingTimeSeconds": 30}}],
    }],
}


def _node(name: str, zone: str, cpu: str, memory: str, extra: dict[str, Any] | None = None,
          dedicated: str = "") -> dict[str, Any]:
    node: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {_ZONE: zone, "kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": "110", **(extra or {})}}}
    if dedicated:
        node["spec"] = {"taints": [{"key": "dedicated", "value": dedicated, "effect": "NoSchedule"}]}
    return node


def _pod(name: str, cpu: str, memory: str, *, node: str = "", labels: dict[str, str] | None = None,
         owner: str = "", annotations: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default", "labels": labels or {}}
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": owner,
                                    "uid": f"rs-{owner}", "controller": True}]
    if annotations:
        meta["annotations"] = annotations
    body: dict[str, Any] = {"containers": [{"name": "c", "image": "app",
                                            "resources": {"requests": {"cpu": cpu, "memory": memory}}}],
                            **spec}
    if node:
        body["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": body}


def example_cluster() -> list[dict[str, Any]]:
    """The example cluster as manifests: nodes, running pods, a PDB, a PodGroup and the
    pending pods (unbound)."""
    web_spread = [{"maxSkew": 1, "topologyKey": _ZONE, "whenUnsatisfiable": "DoNotSchedule",
                   "labelSelector": {"matchLabels": {"app": "web"}}}]
    out: list[dict[str, Any]] = [
        _node("a-1", "zone-a", "4", "16Gi"),
        _node("b-1", "zone-b", "4", "16Gi"),
        _node("a-2", "zone-a", "4", "16Gi", dedicated="data"),
        _node("b-2", "zone-b", "4", "16Gi", dedicated="data"),
        # running: web on a-1 and b-1; on the nodes dedicated to data (the pending pods do not
        # tolerate their taint), a database guarded by a PDB on a-2 and a cache on b-2
        _pod("web-0", "1500m", "2Gi", node="a-1", labels={"app": "web"}, owner="web",
             topologySpreadConstraints=web_spread),
        _pod("web-1", "1500m", "2Gi", node="b-1", labels={"app": "web"}, owner="web",
             topologySpreadConstraints=web_spread),
        _pod("db-0", "500m", "1Gi", node="a-2", labels={"app": "db"}, owner="db", tolerations=_DATA),
        _pod("cache-0", "500m", "1Gi", node="b-2", labels={"app": "cache"}, owner="cache",
             tolerations=_DATA),
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
         "metadata": {"name": "db", "namespace": "default"},
         "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "db"}}}},
        {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
         "metadata": {"name": "train", "namespace": "default"}, "spec": {"minMember": 4}},
    ]
    # pending: six more web replicas spread over the zones
    out += [_pod(f"web-{i}", "1500m", "2Gi", labels={"app": "web"}, owner="web",
                 topologySpreadConstraints=web_spread) for i in range(2, 8)]
    # a gang of four workers that only start together
    out += [_pod(f"train-{i}", "3", "8Gi", labels={"scheduling.x-k8s.io/pod-group": "train"},
                 owner="train") for i in range(4)]
    # two pods sharing one GPU (half a T4 each)
    out += [_pod(f"infer-{i}", "1", "4Gi", owner="infer",
                 annotations={"alibabacloud.com/gpu-milli": "500", "alibabacloud.com/gpu-count": "1",
                              "alibabacloud.com/gpu-card-model": "T4"}) for i in range(2)]
    # a pod asking for a disk no template has
    out.append(_pod("ingest-0", "500m", "1Gi", owner="ingest", nodeSelector={"disktype": "nvme"}))
    return out


def example_templates() -> dict[str, Any]:
    """The example's node templates, in the ``NodeTemplates`` format."""
    def tnode(zone: str, cpu: str, memory: str, extra: dict[str, Any] | None = None,
              labels: dict[str, str] | None = None) -> dict[str, Any]:
        return {"metadata": {"labels": {_ZONE: zone, **(labels or {})}},
                "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": "110", **(extra or {})}}}

    return {
        "apiVersion": "schedframe.io/v1alpha1",
        "kind": "NodeTemplates",
        "templates": [
            {"name": "small-a", "price": 0.20, "node": tnode("zone-a", "4", "16Gi")},
            {"name": "small-b", "price": 0.20, "node": tnode("zone-b", "4", "16Gi")},
            {"name": "large-a", "price": 0.70, "maxCount": 10, "node": tnode("zone-a", "16", "64Gi")},
            {"name": "gpu-t4", "price": 0.90, "maxCount": 2,
             "node": tnode("zone-a", "8", "32Gi", {"alibabacloud.com/gpu-count": "1"},
                           {"alibabacloud.com/gpu-card-model": "T4"})},
        ],
    }
