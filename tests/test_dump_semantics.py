"""Dumps read as a cluster would behave (issue #29): a Deployment whose ReplicaSet the dump lacks
adopts its pods; a StatefulSet's volumeClaimTemplates give its pods claims, which VolumeBinding
binds (provisioning zonal volumes for WaitForFirstConsumer classes), so a rescheduled
StatefulSet pod stays in its volume's zone."""

from __future__ import annotations

import json
from typing import Any

import pytest

from schedframe import (
    ManifestError,
    Node,
    Pod,
    Scheduler,
    dump_manifests,
    load_manifests,
    object_from_manifest,
    object_to_manifest,
)
from schedframe.api import (
    CSINode,
    CSINodeDriver,
    PersistentVolume,
    PersistentVolumeClaim,
    ReplicaSet,
    StatefulSet,
    StorageClass,
    TopologySelectorRequirement,
    TopologySelectorTerm,
    expand_workloads,
)
from schedframe.api.workloads import template_hash

ZONE = "topology.kubernetes.io/zone"


def load(*items: dict[str, Any]) -> list[Any]:
    return load_manifests(json.dumps({"apiVersion": "v1", "kind": "List", "items": list(items)}))


def pods_of(objs: list[Any]) -> dict[str, Pod]:
    return {o.name: o for o in objs if isinstance(o, Pod)}


def rs_of(objs: list[Any]) -> dict[str, ReplicaSet]:
    return {o.name: o for o in objs if isinstance(o, ReplicaSet)}


# --------------------------------------------------------------------------------------------
# A Deployment whose ReplicaSet is not in the dump


def rs_pod(name: str, rs: str | None, *, hash_label: str | None = None, uid: str = "rs-uid",
           ns: str = "shop", created: str = "2024-06-03T09:00:00Z", phase: str = "Running",
           app: str = "web", kind: str = "ReplicaSet") -> dict[str, Any]:
    labels = {"app": app}
    if hash_label is not None:
        labels["pod-template-hash"] = hash_label
    meta: dict[str, Any] = {"name": name, "namespace": ns, "labels": labels, "creationTimestamp": created}
    if rs is not None:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": kind, "name": rs, "uid": uid,
                                    "controller": True}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "nginx"}]},
            "status": {"phase": phase}}


def deployment(replicas: int = 4, name: str = "web") -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": "shop", "uid": "d-uid"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "c", "image": "nginx"}]}}},
    }


def test_deployment_adopts_the_pods_of_its_absent_replicaset() -> None:
    """``kubectl get nodes,pods,deploy``: 2 running pods of ReplicaSet web-7d8f9c6b5, which the
    dump lacks, count toward the 4 replicas: 2 are created (not 4), in that ReplicaSet, which is
    recreated with the uid the pods' owner references carry."""
    objs = load(rs_pod("web-7d8f9c6b5-abcde", "web-7d8f9c6b5", hash_label="7d8f9c6b5"),
                rs_pod("web-7d8f9c6b5-fghjk", "web-7d8f9c6b5", hash_label="7d8f9c6b5"),
                deployment())
    pods = pods_of(objs)
    assert len(pods) == 4
    (rs,) = rs_of(objs).values()
    assert (rs.name, rs.uid, rs.replicas) == ("web-7d8f9c6b5", "rs-uid", 4)
    assert rs.selector is not None
    assert rs.selector.match_labels == {"app": "web", "pod-template-hash": "7d8f9c6b5"}
    assert rs.owner_references[0].uid == "d-uid"
    new = [p for n, p in pods.items() if n not in ("web-7d8f9c6b5-abcde", "web-7d8f9c6b5-fghjk")]
    assert len(new) == 2
    for p in new:
        assert p.labels == {"app": "web", "pod-template-hash": "7d8f9c6b5"}
        assert p.owner_references[0].uid == "rs-uid"
        assert p.name.startswith("web-7d8f9c6b5-")


def test_deployment_adoption_is_stable_on_reload() -> None:
    """A dump of the expanded objects expands to nothing new."""
    objs = load(rs_pod("web-7d8f9c6b5-abcde", "web-7d8f9c6b5", hash_label="7d8f9c6b5"), deployment())
    again = load_manifests(dump_manifests(objs, format="json"))
    assert len(again) == len(objs)
    assert len(expand_workloads(objs)) == len(objs)


def test_deployment_enough_pods_creates_none() -> None:
    objs = load(*(rs_pod(f"web-7d8f9c6b5-{c}x", "web-7d8f9c6b5", hash_label="7d8f9c6b5") for c in "bcdfg"),
                deployment(replicas=4))
    assert len(pods_of(objs)) == 5  # scaling down is not expansion's business
    assert rs_of(objs)["web-7d8f9c6b5"].replicas == 4


def test_deployment_rollout_in_progress() -> None:
    """Pods of two absent ReplicaSets: the one whose pods were created last is the Deployment's
    current one and gets the missing replicas; the older keeps its pods (replicas = its active
    pods), as the Deployment controller keeps old pods while it scales."""
    objs = load(rs_pod("web-bbbbb-aaaaa", "web-bbbbb", hash_label="bbbbb", uid="old",
                       created="2024-06-01T00:00:00Z"),
                rs_pod("web-ccccc-aaaaa", "web-ccccc", hash_label="ccccc", uid="new",
                       created="2024-06-02T00:00:00Z"),
                rs_pod("web-ccccc-bbbbb", "web-ccccc", hash_label="ccccc", uid="new",
                       created="2024-06-02T00:00:00Z"),
                deployment(replicas=4))
    rss = rs_of(objs)
    assert {n: (r.uid, r.replicas) for n, r in rss.items()} == {
        "web-bbbbb": ("old", 1), "web-ccccc": ("new", 3)}
    pods = pods_of(objs)
    assert len(pods) == 4
    before = ("web-bbbbb-aaaaa", "web-ccccc-aaaaa", "web-ccccc-bbbbb")
    (new,) = [p for n, p in pods.items() if n not in before]
    assert new.labels["pod-template-hash"] == "ccccc"
    assert new.owner_references[0].uid == "new"


def test_deployment_does_not_adopt_other_pods() -> None:
    """Not counted: a pod of another namespace, a finished pod, a pod the selector does not
    match, a pod of another Deployment's ReplicaSet (web-api-...), a pod of a ReplicaSet that is
    in the input, a pod of another kind of controller."""
    objs = load(
        rs_pod("a", "web-7d8f9c6b5", hash_label="7d8f9c6b5", ns="other"),
        rs_pod("b", "web-7d8f9c6b5", hash_label="7d8f9c6b5", phase="Succeeded"),
        rs_pod("c", "web-7d8f9c6b5", hash_label="7d8f9c6b5", app="db"),
        rs_pod("d", "web-api-6c9f8", hash_label="6c9f8"),
        rs_pod("e", "web-zzzzz", hash_label="zzzzz", uid="present"),
        rs_pod("f", "web-zzzzx", kind="StatefulSet"),
        {"apiVersion": "apps/v1", "kind": "ReplicaSet",
         "metadata": {"name": "web-zzzzz", "namespace": "shop", "uid": "present"},
         "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web", "pod-template-hash": "zzzzz"}},
                  "template": {"metadata": {"labels": {"app": "web", "pod-template-hash": "zzzzz"}},
                               "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}},
        deployment(replicas=2),
    )
    d = next(o for o in objs if type(o).__name__ == "Deployment")
    h = template_hash(d.template)
    assert rs_of(objs)[f"web-{h}"].replicas == 2
    created = [p for p in pods_of(objs).values() if p.owner_references[0].name == f"web-{h}"]
    assert len(created) == 2


def test_deployment_adopts_orphans_with_its_hash() -> None:
    """An orphan pod carrying the pod-template-hash of the ReplicaSet the Deployment creates is
    adopted by it (the ReplicaSet controller adopts orphans its selector matches)."""
    d = load_manifests(json.dumps(deployment(replicas=3)), expand_workloads=False)[0]
    h = template_hash(d.template)
    objs = load(rs_pod("web-orphan", None, hash_label=h), deployment(replicas=3))
    assert len(pods_of(objs)) == 3


# --------------------------------------------------------------------------------------------
# StatefulSet volumeClaimTemplates

STS: dict[str, Any] = {
    "apiVersion": "apps/v1", "kind": "StatefulSet",
    "metadata": {"name": "db", "namespace": "shop", "labels": {"team": "data"}},
    "spec": {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "db"}},
        "template": {"metadata": {"labels": {"app": "db"}},
                     "spec": {"containers": [{"name": "c", "image": "postgres",
                                              "resources": {"requests": {"cpu": "1"}}}],
                              "volumes": [{"name": "scratch", "emptyDir": {}},
                                          {"name": "data", "emptyDir": {}}]}},
        "volumeClaimTemplates": [
            {"metadata": {"name": "data", "labels": {"tier": "disk"}},
             "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "zonal",
                      "resources": {"requests": {"storage": "10Gi"}}}},
            {"metadata": {"name": "logs"},
             "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "zonal",
                      "resources": {"requests": {"storage": "1Gi"}}}},
        ],
    },
}


def test_statefulset_reads_and_writes_volume_claim_templates() -> None:
    (sts,) = load_manifests(json.dumps(STS), expand_workloads=False)
    assert isinstance(sts, StatefulSet)
    assert [c.name for c in sts.volume_claim_templates] == ["data", "logs"]
    assert sts.volume_claim_templates[0].storage_class_name == "zonal"
    m = object_to_manifest(sts)
    assert m["spec"]["volumeClaimTemplates"][0] == {
        "metadata": {"name": "data", "labels": {"tier": "disk"}},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}},
                 "storageClassName": "zonal"}}
    assert object_from_manifest(m) == sts


def test_statefulset_volume_claim_template_errors_name_the_field() -> None:
    bad = json.loads(json.dumps(STS))
    bad["spec"]["volumeClaimTemplates"][1]["spec"]["accessModes"] = ["ReadWriteSometimes"]
    with pytest.raises(ManifestError, match=r"spec\.volumeClaimTemplates\[1\]\.spec\.accessModes"):
        load_manifests(json.dumps(bad))
    bad["spec"]["volumeClaimTemplates"][1] = STS["spec"]["volumeClaimTemplates"][0]
    with pytest.raises(ManifestError, match=r"volumeClaimTemplates\[1\]\.metadata\.name: Duplicate"):
        load_manifests(json.dumps(bad))


def test_statefulset_pods_get_their_claims() -> None:
    """As the StatefulSet controller: claim <template>-<set>-<ordinal> in the set's namespace,
    labelled with the template's labels and the selector's matchLabels; the pod's volume named
    after the template references it (replacing a template volume of that name)."""
    objs = load(STS)
    claims = {o.name: o for o in objs if isinstance(o, PersistentVolumeClaim)}
    assert sorted(claims) == ["data-db-0", "data-db-1", "logs-db-0", "logs-db-1"]
    c = claims["data-db-1"]
    assert (c.namespace, c.storage_class_name, c.phase, c.volume_name) == ("shop", "zonal", "Pending", "")
    assert c.labels == {"tier": "disk", "app": "db"}
    assert claims["logs-db-0"].labels == {"app": "db"}
    assert c.uid == PersistentVolumeClaim("data-db-1", "shop").uid
    pods = pods_of(objs)
    vols = [(v.name, v.persistent_volume_claim.claim_name if v.persistent_volume_claim else v.other_source)
            for v in pods["db-1"].volumes]
    assert vols == [("data", "data-db-1"), ("logs", "logs-db-1"), ("scratch", "emptyDir")]


def test_existing_claims_win() -> None:
    """A claim of that name in the input (a dump of PVCs and PVs) is kept, not created."""
    existing = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                "metadata": {"name": "data-db-0", "namespace": "shop"},
                "spec": {"accessModes": ["ReadWriteOnce"], "volumeName": "pv-0",
                         "resources": {"requests": {"storage": "5Gi"}}},
                "status": {"phase": "Bound"}}
    objs = load(existing, STS)
    claims = [o for o in objs if isinstance(o, PersistentVolumeClaim)]
    assert sorted(c.name for c in claims) == ["data-db-0", "data-db-1", "logs-db-0", "logs-db-1"]
    (d0,) = [c for c in claims if c.name == "data-db-0"]
    assert d0.volume_name == "pv-0"
    assert pods_of(objs)["db-0"].volumes[0].persistent_volume_claim.claim_name == "data-db-0"  # type: ignore[union-attr]
    assert len(expand_workloads(objs)) == len(objs)  # nothing more on a second expansion


# --------------------------------------------------------------------------------------------
# VolumeBinding: a provisioned claim pins its pod's zone


def zone_nodes() -> list[Node]:
    """Zone a: a1 and a2 (small); zone b: b1 and b2 (large, so scoring prefers them)."""
    def node(name: str, zone: str, cpu: str) -> Node:
        return Node(name, labels={ZONE: zone, "kubernetes.io/hostname": name},
                    capacity={"cpu": cpu, "memory": "64Gi", "pods": "110"})
    return [node("a1", "zone-a", "4"), node("a2", "zone-a", "4"),
            node("b1", "zone-b", "64"), node("b2", "zone-b", "64")]


WFFC = StorageClass("zonal", provisioner="csi.example.com", volume_binding_mode="WaitForFirstConsumer")


def test_provisioned_claim_keeps_a_rescheduled_statefulset_pod_in_its_zone() -> None:
    sts = dict(STS, spec=dict(STS["spec"], replicas=1))
    objs = load(sts)
    s = Scheduler()
    nodes = {n.name: n for n in zone_nodes()}
    s.add_node(nodes["a1"])  # zone a only at first
    s.add_object(WFFC)
    for o in objs:
        if not isinstance(o, Pod):
            s.add_object(o)
    pod = pods_of(objs)["db-0"]
    s.add_pod(pod)
    s.run_until_idle()
    assert s.node_of(pod) == "a1"
    claim = s.objects.get(PersistentVolumeClaim, "data-db-0", "shop")
    assert claim is not None
    assert claim.phase == "Bound"
    assert claim.annotations["volume.kubernetes.io/selected-node"] == "a1"
    pv = s.objects.get(PersistentVolume, claim.volume_name)
    assert pv is not None
    assert pv.node_affinity is not None
    (term,) = pv.node_affinity.terms
    assert [(r.key, r.operator, r.values) for r in term.match_expressions] == [(ZONE, "In", ("zone-a",))]

    for name in ("a2", "b1", "b2"):
        s.add_node(nodes[name])
    # a1 is drained: the pod is deleted and the controller creates it again, same name
    s.remove_pod(pod.uid)
    s.remove_node("a1")
    again = pod.evolve(uid="db-0-second", node_name="")
    s.add_pod(again)
    s.run_until_idle()
    assert s.node_of(again) == "a2"  # not the roomier zone-b nodes

    s.remove_pod(again.uid)
    s.remove_node("a2")
    third = pod.evolve(uid="db-0-third", node_name="")
    s.add_pod(third)
    s.run_until_idle()
    assert s.node_of(third) is None
    (pending,) = s.pending()
    assert "2 node(s) didn't match PersistentVolume's node affinity" in pending.message


def test_rescheduled_statefulset_pod_stays_in_its_zone_in_a_simulation() -> None:
    """The same through schedframe.sim: a1 is drained at 10 s; the recreated db-0 goes to a2."""
    from schedframe.sim import EVICTED, RUNNING, NodeEvent, Scenario, simulate

    sts = dict(STS, spec=dict(STS["spec"], replicas=1))
    objs = load(sts)
    nodes = {n.name: n for n in zone_nodes()}
    scenario = Scenario(
        name="sts-zone", nodes=(nodes["a1"],), pods=tuple(o for o in objs if isinstance(o, Pod)),
        objects=(WFFC, *(o for o in objs if not isinstance(o, Pod))),
        events=(NodeEvent(5, "add", node=nodes["a2"]), NodeEvent(5, "add", node=nodes["b1"]),
                NodeEvent(5, "add", node=nodes["b2"]), NodeEvent(10, "drain", nodes=("a1",))),
        until=20)
    result = simulate(scenario, seed=0)
    placed = [(p.key, p.node, p.state) for p in result.pods]
    assert placed == [("shop/db-0", "a1", EVICTED), ("shop/db-0", "a2", RUNNING)]


@pytest.mark.parametrize(("csi_keys", "allowed", "labels", "want"), [
    (None, None, {ZONE: "z", "h": "n"}, (ZONE,)),
    (None, None, {"h": "n"}, ()),
    (None, ["topology.example.com/rack"], {ZONE: "z"}, ("topology.example.com/rack",)),
    (("topology.csi.example.com/zone",), ["x"], {ZONE: "z"}, ("topology.csi.example.com/zone",)),
    ((), None, {ZONE: "z"}, ()),
])
def test_provisioned_topology_keys(csi_keys: tuple[str, ...] | None, allowed: list[str] | None,
                                   labels: dict[str, str], want: tuple[str, ...]) -> None:
    """CSINode's topology keys of the driver; else the class's allowedTopologies keys; else the
    zone label."""
    from schedframe.plugins.volume_binding import provisioned_topology_keys

    driver = CSINodeDriver("csi.example.com", topology_keys=csi_keys or ())
    csi = None if csi_keys is None else CSINode("n", drivers=(driver,))
    terms = () if allowed is None else tuple(
        TopologySelectorTerm((TopologySelectorRequirement(k, ("v",)),)) for k in allowed)
    sc = StorageClass("c", provisioner="csi.example.com", allowed_topologies=terms)
    assert provisioned_topology_keys(csi, sc, "csi.example.com", labels) == want
