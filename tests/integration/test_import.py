"""``schedframe import`` against a real kube-apiserver: the objects the API server returns (with
its defaults, managedFields, ownerReferences) are read by schedframe's manifest reader, and the
snapshot loads back with the workload expansion adding only what a controller would."""

from __future__ import annotations

import contextlib
import io
import json
import pathlib
import uuid
from contextlib import redirect_stderr

import pytest

from ._cluster import pod_body

kube_mod = pytest.importorskip("schedframe.kube")
k = pytest.importorskip("kubernetes.client")
ApiException = pytest.importorskip("kubernetes.client.rest").ApiException

NODE = {"cpu": "4", "memory": "8Gi", "pods": "110"}


def _replica_set(name: str, replicas: int) -> dict:
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels}, "spec": {"containers": [
                         {"name": "c", "image": "registry.invalid/pause:3",
                          "resources": {"requests": {"cpu": "100m"}}}]}}}}


def _minor(version: str) -> int:
    return int(version.lstrip("v").split(".")[1])


def test_import_reads_what_the_api_server_serves_and_loads_back(kube, namespace, make_node, tmp_path):
    from schedframe import Node, Pod, load_manifests
    from schedframe.api import PriorityClass, ReplicaSet, Service
    from schedframe.cli.main import main

    core = k.CoreV1Api(kube.api_client)
    apps = k.AppsV1Api(kube.api_client)
    sched = k.SchedulingV1Api(kube.api_client)
    n1 = make_node("imp", NODE, labels={"topology.kubernetes.io/zone": "a"})
    n2 = make_node("imp", NODE)
    pc = f"imp-{uuid.uuid4().hex[:6]}"
    sched.create_priority_class({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                                 "metadata": {"name": pc}, "value": 500})
    try:
        rs = apps.create_namespaced_replica_set(namespace, _replica_set("web", 3))
        owner = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": rs.metadata.uid,
                  "controller": True, "blockOwnerDeletion": True}]
        for name, node in (("web-a", n1), ("web-b", n2)):
            body = pod_body(name, requests={"cpu": "100m"}, node_name=node, labels={"app": "web"})
            body["metadata"]["ownerReferences"] = owner
            core.create_namespaced_pod(namespace, body)
        core.create_namespaced_pod(namespace, pod_body("pending", requests={"cpu": "1"}, priority_class=pc))
        core.create_namespaced_pod(namespace, pod_body("done", requests={"cpu": "1"}, node_name=n1))
        core.patch_namespaced_pod_status("done", namespace, {"status": {"phase": "Succeeded"}})
        core.create_namespaced_service(namespace, {
            "apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
            "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}})

        pages: list[tuple[str, int]] = []
        snap = kube_mod.import_cluster(kube.new_client(), page_size=2,
                                       progress=lambda plural, n: pages.append((plural, n)))
        assert not [s for s in snap.skipped if namespace in s], snap.skipped
        mine = [o for o in snap.objects if getattr(o, "namespace", None) == namespace]
        pods = {o.name: o for o in mine if isinstance(o, Pod)}
        assert set(pods) == {"web-a", "web-b", "pending", "done"}
        assert pods["web-a"].node_name == n1
        assert pods["web-b"].node_name == n2
        assert pods["pending"].priority == 500
        assert not pods["pending"].node_name
        assert pods["done"].phase == "Succeeded"
        assert {o.name for o in mine if isinstance(o, ReplicaSet)} == {"web"}
        assert {o.name for o in mine if isinstance(o, Service)} == {"web"}
        nodes = {o.name: o for o in snap.objects if isinstance(o, Node)}
        assert nodes[n1].labels["topology.kubernetes.io/zone"] == "a"
        assert any(isinstance(o, PriorityClass) and o.name == pc for o in snap.objects)
        # paged: more than two nodes' worth of pods means several pages of pods
        assert [n for plural, n in pages if plural == "pods"][:2] == [2, 4]
        # an API server without resource.k8s.io/v1 (before 1.34) reports it, and the rest is written
        if _minor(kube.version) < 34:
            assert any(line.startswith("resourceclaims (resource.k8s.io/v1)") for line in snap.unavailable)

        objects = load_manifests(snap.dump())
        loaded = [o for o in objects if isinstance(o, Pod) and o.namespace == namespace]
        added = [p.name for p in loaded if p.name not in pods]
        assert len(added) == 1, added  # the third replica only
        assert added[0].startswith("web-")

        out, err = io.StringIO(), io.StringIO()
        kubeconfig = pathlib.Path(kube.kubeconfig)
        with redirect_stderr(err):
            code = main(["import", "--kubeconfig", str(kubeconfig), "--json", "--no-terminal-pods"],
                        stdout=out)
        assert code == 0, err.getvalue()
        doc = json.loads(out.getvalue())
        names = {i["metadata"]["name"] for i in doc["items"]
                 if i["kind"] == "Pod" and i["metadata"].get("namespace") == namespace}
        assert names == {"web-a", "web-b", "pending"}
        assert "schedframe import: wrote " in err.getvalue()
    finally:
        sched.delete_priority_class(pc)


def test_import_reads_dra_objects_and_disruption_budgets(kube, namespace, make_node):
    """resource.k8s.io/v1 (1.34 and later) and policy/v1 as the server writes them: a DeviceClass,
    a node's ResourceSlice, a ResourceClaim asking for a device of the class, and a PDB."""
    from schedframe.api import DeviceClass, PodDisruptionBudget, ResourceClaim, ResourceSlice

    if _minor(kube.version) < 34:
        pytest.skip(f"resource.k8s.io/v1 is served from 1.34; the server is {kube.version}")
    custom = k.CustomObjectsApi(kube.api_client)
    policy = k.PolicyV1Api(kube.api_client)
    node = make_node("dra", NODE)
    suffix = uuid.uuid4().hex[:6]
    driver, cls, slice_name = f"gpu-{suffix}.example.com", f"gpu-{suffix}", f"{node}-gpus"
    custom.create_cluster_custom_object("resource.k8s.io", "v1", "deviceclasses", {
        "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": cls},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{driver}"'}}]}})
    try:
        custom.create_cluster_custom_object("resource.k8s.io", "v1", "resourceslices", {
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": slice_name},
            "spec": {"driver": driver, "nodeName": node,
                     "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": f"gpu-{i}", "attributes": {"model": {"string": "a100"}}}
                                 for i in range(2)]}})
        custom.create_namespaced_custom_object("resource.k8s.io", "v1", namespace, "resourceclaims", {
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "one-gpu"},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": cls}}]}}})
        policy.create_namespaced_pod_disruption_budget(namespace, {
            "apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web"},
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}})

        snap = kube_mod.import_cluster(kube.new_client())
        assert not [line for line in snap.unavailable if "resource.k8s.io" in line or "policy" in line], \
            snap.unavailable
        classes = {o.name: o for o in snap.objects if isinstance(o, DeviceClass)}
        slices = {o.name: o for o in snap.objects if isinstance(o, ResourceSlice)}
        claims = [o for o in snap.objects if isinstance(o, ResourceClaim) and o.namespace == namespace]
        pdbs = [o for o in snap.objects if isinstance(o, PodDisruptionBudget) and o.namespace == namespace]
        assert cls in classes
        assert slices[slice_name].node_name == node
        assert slices[slice_name].driver == driver
        assert len(slices[slice_name].devices) == 2
        assert [c.name for c in claims] == ["one-gpu"]
        assert [p.name for p in pdbs] == ["web"]
        # and the snapshot reads back as manifests
        from schedframe import load_manifests

        loaded = load_manifests(snap.dump())
        assert any(isinstance(o, ResourceClaim) and o.name == "one-gpu" for o in loaded)
    finally:
        with contextlib.suppress(ApiException):
            custom.delete_cluster_custom_object("resource.k8s.io", "v1", "resourceslices", slice_name)
        with contextlib.suppress(ApiException):
            custom.delete_cluster_custom_object("resource.k8s.io", "v1", "deviceclasses", cls)


def test_import_reads_the_workload_api_of_1_37(kube, namespace, make_node):
    """scheduling.k8s.io v1beta1 Workload and PodGroup, v1alpha3 CompositePodGroup, and a pod's
    spec.schedulingGroup, as a 1.37 server (serving them: conftest) writes them; the dump reads
    back with the same objects."""
    from schedframe import load_manifests
    from schedframe.api import CompositePodGroup, Pod, SchedulingPodGroup, Workload

    if _minor(kube.version) != 37:
        pytest.skip(f"the workload API read here is 1.37's; the server is {kube.version}")
    custom = k.CustomObjectsApi(kube.api_client)
    group = "scheduling.k8s.io"
    custom.create_namespaced_custom_object(group, "v1beta1", namespace, "workloads", {
        "apiVersion": f"{group}/v1beta1", "kind": "Workload", "metadata": {"name": "train"},
        "spec": {"podGroupTemplates": [{"name": "workers", "schedulingPolicy": {"gang": {"minCount": 2}},
                                        "schedulingConstraints": {"topology": [{"key": "rack"}]}}]}})
    custom.create_namespaced_custom_object(group, "v1beta1", namespace, "podgroups", {
        "apiVersion": f"{group}/v1beta1", "kind": "PodGroup", "metadata": {"name": "train-workers"},
        "spec": {"workloadRef": {"workloadName": "train", "templateName": "workers"},
                 "schedulingPolicy": {"gang": {"minCount": 2}}}})
    custom.create_namespaced_custom_object(group, "v1alpha3", namespace, "compositepodgroups", {
        "apiVersion": f"{group}/v1alpha3", "kind": "CompositePodGroup", "metadata": {"name": "slices"},
        "spec": {"workloadRef": {"workloadName": "train", "templateName": "slices"},
                 "schedulingPolicy": {"basic": {}}}})
    k.CoreV1Api(kube.api_client).create_namespaced_pod(namespace, {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "w0"},
        "spec": {"schedulingGroup": {"podGroupName": "train-workers"},
                 "containers": [{"name": "c", "image": "registry.example/x:1"}]}})

    snap = kube_mod.import_cluster(kube.new_client())
    mine = [o for o in snap.objects if getattr(o, "namespace", None) == namespace]
    [workload] = [o for o in mine if isinstance(o, Workload)]
    assert workload.api_version == f"{group}/v1beta1"
    assert workload.pod_group("workers").topology_keys == ("rack",)
    [pg] = [o for o in mine if isinstance(o, SchedulingPodGroup)]
    assert (pg.name, pg.min_count, pg.workload_name, pg.template_name) == (
        "train-workers", 2, "train", "workers")
    [cpg] = [o for o in mine if isinstance(o, CompositePodGroup)]
    assert cpg.name == "slices"
    [pod] = [o for o in mine if isinstance(o, Pod)]
    assert pod.scheduling_group == "train-workers"
    loaded = [o for o in load_manifests(snap.dump(), kubernetes_version="1.37")
              if getattr(o, "namespace", None) == namespace]
    assert sorted(type(o).__name__ for o in loaded) == sorted(type(o).__name__ for o in mine)
