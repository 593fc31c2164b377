"""The kinds registry (``schedframe.api.kinds``): one record per kind, and everything that lists
kinds derives from it; the api package has no import cycle."""

from __future__ import annotations

import ast
import pathlib
from collections.abc import Iterator
from typing import Any

import attrs
import pytest

import schedframe
from schedframe import ManifestError
from schedframe.api import KINDS, KindInfo, KindRegistry
from schedframe.api import kinds as kinds_module
from schedframe.api.manifests import (
    SUPPORTED_KINDS,
    load_manifests,
    object_from_manifest,
    object_to_manifest,
)
from schedframe.errors import DuplicateKindError
from schedframe.framework.events import EventResource, event_resource_for
from schedframe.kube import IMPORT_RESOURCES, SCHEDULER_RESOURCES

API = pathlib.Path(schedframe.__file__).parent / "api"

_POD_TEMPLATE: dict[str, Any] = {"metadata": {"labels": {"app": "a"}},
                                 "spec": {"containers": [{"name": "c"}]}}
_SELECTOR: dict[str, Any] = {"matchLabels": {"app": "a"}}

#: the smallest valid manifest of every built-in kind (apiVersion added from the registry)
MINIMAL: dict[str, dict[str, Any]] = {
    "Pod": {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}},
    "Node": {"metadata": {"name": "n"}},
    "Namespace": {"metadata": {"name": "ns"}},
    "Service": {"metadata": {"name": "s"}, "spec": {"selector": {"app": "a"}}},
    "ReplicationController": {"metadata": {"name": "rc"},
                              "spec": {"selector": {"app": "a"}, "template": _POD_TEMPLATE}},
    "ReplicaSet": {"metadata": {"name": "rs"}, "spec": {"selector": _SELECTOR, "template": _POD_TEMPLATE}},
    "StatefulSet": {"metadata": {"name": "ss"}, "spec": {"selector": _SELECTOR, "template": _POD_TEMPLATE}},
    "Deployment": {"metadata": {"name": "d"}, "spec": {"selector": _SELECTOR, "template": _POD_TEMPLATE}},
    "DaemonSet": {"metadata": {"name": "ds"}, "spec": {"selector": _SELECTOR, "template": _POD_TEMPLATE}},
    "Job": {"metadata": {"name": "j"}, "spec": {"template": _POD_TEMPLATE}},
    "CronJob": {"metadata": {"name": "cj"},
                "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": _POD_TEMPLATE}}}},
    "PodDisruptionBudget": {"metadata": {"name": "pdb"}, "spec": {"selector": _SELECTOR, "minAvailable": 1}},
    "PriorityClass": {"metadata": {"name": "high"}, "value": 1000},
    "PodGroup": {"metadata": {"name": "g"}, "spec": {"minMember": 2}},
    "ElasticQuota": {"metadata": {"name": "q"}, "spec": {"min": {"cpu": "1"}, "max": {"cpu": "2"}}},
    "NodeResourceTopology": {"metadata": {"name": "n"}, "attributes": [
        {"name": "topologyManagerPolicy", "value": "single-numa-node"}], "zones": [
        {"name": "node-0", "type": "Node", "costs": [{"name": "node-0", "value": 10}],
         "resources": [{"name": "cpu", "capacity": "4", "allocatable": "3", "available": "2"}]}]},
    "AppGroup": {"metadata": {"name": "a"}, "spec": {"numMembers": 2, "topologySortingAlgorithm": "KahnSort",
                 "workloads": [{"workload": {"kind": "Deployment", "name": "w1", "selector": "w1"},
                                "dependencies": [{"workload": {"kind": "Deployment", "name": "w2",
                                                               "selector": "w2"}, "maxNetworkCost": 30}]},
                               {"workload": {"kind": "Deployment", "name": "w2", "selector": "w2"}}]},
                 "status": {"topologyOrder": [
                     {"workload": {"kind": "Deployment", "name": "w1", "selector": "w1"}, "index": 1}]}},
    "NetworkTopology": {"metadata": {"name": "nt"}, "spec": {"configmapName": "cm", "weights": [
        {"name": "UserDefined", "topologyList": [{"topologyKey": "topology.kubernetes.io/zone",
                                                  "originList": [{"origin": "z1", "costList": [
                                                      {"destination": "z2", "networkCost": 5}]}]}]}]}},
    "ResourceClaim": {"metadata": {"name": "claim"},
                      "spec": {"devices": {"requests": [{"name": "gpu",
                                                         "exactly": {"deviceClassName": "gpu"}}]}}},
    "ResourceClaimTemplate": {"metadata": {"name": "t"},
                              "spec": {"spec": {"devices": {"requests": [
                                  {"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}}},
    "DeviceClass": {"metadata": {"name": "gpu"}},
    "ResourceSlice": {"metadata": {"name": "slice"},
                      "spec": {"driver": "d", "pool": {"name": "p"}, "nodeName": "n"}},
    "PersistentVolume": {"metadata": {"name": "pv"},
                         "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                                  "hostPath": {"path": "/x"}}},
    "PersistentVolumeClaim": {"metadata": {"name": "pvc"},
                              "spec": {"accessModes": ["ReadWriteOnce"],
                                       "resources": {"requests": {"storage": "1Gi"}}}},
    "StorageClass": {"metadata": {"name": "sc"}, "provisioner": "p"},
    "CSINode": {"metadata": {"name": "n"}, "spec": {"drivers": []}},
    "CSIDriver": {"metadata": {"name": "d"}},
    "VolumeAttachment": {"metadata": {"name": "va"}, "spec": {"attacher": "d", "nodeName": "n"}},
    "Workload": {"metadata": {"name": "w", "namespace": "default"},
                 "spec": {"podGroupTemplates": [
                     {"name": "g", "schedulingPolicy": {"gang": {"minCount": 2}}}]}},
    "CompositePodGroup": {"metadata": {"name": "c"}, "spec": {
        "workloadRef": {"workloadName": "w", "templateName": "c"},
        "schedulingPolicy": {"gang": {"minGroupCount": 2}}}},
    # the kind name PodGroup is registered twice: scheduler-plugins' (above) and scheduling.k8s.io's
    "scheduling.k8s.io/PodGroup": {"metadata": {"name": "g"}, "spec": {
        "workloadRef": {"workloadName": "w", "templateName": "g"},
        "schedulingPolicy": {"gang": {"minCount": 2}}}},
}


def _key(info: KindInfo) -> str:
    """The MINIMAL key of a record: its kind, or group/kind for a name registered twice."""
    first = KINDS.by_kind(info.kind)
    return info.kind if first is info else f"{info.group}/{info.kind}"


def _info(key: str) -> KindInfo:
    group, _, kind = key.rpartition("/")
    info = KINDS.by_kind(kind, f"{group}/v" if group else None)
    assert info is not None
    return info


def _manifest(key: str) -> dict[str, Any]:
    info = _info(key)
    return {"apiVersion": info.api_versions[0], "kind": info.kind, **MINIMAL[key]}


def test_every_kind_the_reader_accepts_is_registered() -> None:
    assert [k.split(" ")[1] for k in SUPPORTED_KINDS] == [info.kind for info in KINDS]
    assert list(dict.fromkeys(info.kind for info in KINDS)) == list(KINDS.kinds())
    assert set(MINIMAL) == {_key(info) for info in KINDS}
    for key in MINIMAL:
        obj = object_from_manifest(_manifest(key))
        assert KINDS.by_class(type(obj)) is _info(key)


@pytest.mark.parametrize("kind", sorted(MINIMAL))
def test_every_kind_round_trips(kind: str) -> None:
    obj = object_from_manifest(_manifest(kind))
    manifest = object_to_manifest(obj)
    info = _info(kind)
    assert manifest["kind"] == info.kind
    assert manifest["apiVersion"] == info.api_versions[0]
    assert object_from_manifest(manifest) == obj
    assert info.reader(info.writer(obj)) == obj
    [loaded] = load_manifests(schedframe.api.manifests.dump_manifests([obj], "json"), expand_workloads=False)
    assert loaded == obj


def test_every_api_version_is_read() -> None:
    for info in KINDS:
        for version in info.api_versions:
            manifest = {**_manifest(_key(info)), "apiVersion": version}
            if info.cls is schedframe.api.Workload and version.endswith("v1alpha1"):
                manifest["spec"] = {"podGroups": [{"name": "g", "policy": {"gang": {"minCount": 2}}}]}
            if info.cls is schedframe.api.SchedulingPodGroup and version.endswith("v1alpha2"):
                manifest["spec"] = {"podGroupTemplateRef": {"workload": {
                    "workloadName": "w", "podGroupTemplateName": "g"}}, "schedulingPolicy": {"basic": {}}}
            obj = object_from_manifest(manifest)
            assert type(obj) is info.cls


def test_records_are_consistent() -> None:
    for info in KINDS:
        assert info.plural == info.plural.lower()
        assert info.plural.endswith("s")
        assert info.group == info.api_versions[0].rpartition("/")[0]
        assert "/" not in info.version
        assert info.cls.__name__ == info.kind or info.cls is schedframe.api.SchedulingPodGroup


def test_cluster_scoped_set_is_the_non_namespaced_kinds() -> None:
    assert KINDS.cluster_scoped() == {info.kind for info in KINDS if not info.namespaced}
    assert KINDS.cluster_scoped() == {"Node", "Namespace", "PriorityClass", "DeviceClass", "ResourceSlice",
                                      "PersistentVolume", "StorageClass", "CSINode", "CSIDriver",
                                      "VolumeAttachment", "NodeResourceTopology"}
    for info in KINDS:
        obj = object_from_manifest(_manifest(_key(info)))
        assert (getattr(obj, "namespace", None) is not None) == info.namespaced, info.kind


def test_error_names_cluster_scoped_objects_without_namespace() -> None:
    with pytest.raises(ManifestError, match=r"\(in Node n\)"):
        load_manifests("apiVersion: v1\nkind: Node\nmetadata: {name: n, labels: 5}\n")
    with pytest.raises(ManifestError, match=r"\(in Service default/s\)"):
        load_manifests("apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {selector: 5}\n")


def test_import_list_covers_every_kind_and_version() -> None:
    listed = [(r.kind, r.api_version) for r in IMPORT_RESOURCES]
    assert sorted(listed) == sorted((i.kind, v) for i in KINDS for v in i.api_versions)
    assert len(set(listed)) == len(listed)
    kinds = [k for k, _ in listed]
    assert kinds[0] == "Namespace"
    assert kinds[-1] == "Pod"
    for r in IMPORT_RESOURCES:
        info = KINDS.by_kind(r.kind)
        assert info is not None
        assert r.plural == info.plural
        assert r.required == info.required
    assert {r.kind for r in IMPORT_RESOURCES if r.required} == {"Node", "Pod"}


def test_informers_watch_the_watched_kinds() -> None:
    assert {r.kind for r in SCHEDULER_RESOURCES} == {i.kind for i in KINDS if i.watched}
    assert len(SCHEDULER_RESOURCES) == len({(r.kind, r.api_version) for r in SCHEDULER_RESOURCES})
    for r in SCHEDULER_RESOURCES:
        info = KINDS.by_kind(r.kind, r.api_version)
        assert info is not None
        assert (r.api_version, r.plural, r.required) == (info.api_versions[0], info.plural, info.required)
        assert bool(r.field_selector) == (r.kind == "Pod")
    # every kind a plugin registers events for is watched, and nothing else but workloads is
    for info in KINDS:
        if event_resource_for(info.kind) is not None:
            assert info.watched, info.kind


def test_event_resources_derive_from_the_registry() -> None:
    assert event_resource_for("Pod") is EventResource.POD
    assert event_resource_for(schedframe.Node) is EventResource.NODE
    assert event_resource_for("StorageClass") is EventResource.STORAGE_CLASS
    assert event_resource_for(schedframe.api.PersistentVolumeClaim) is EventResource.PERSISTENT_VOLUME_CLAIM
    assert event_resource_for("Deployment") is None
    assert event_resource_for("NoSuchKind") is None
    assert event_resource_for(int) is None
    mapped = {info.kind: event_resource_for(info.cls) for info in KINDS}
    assert {k for k, v in mapped.items() if v is None} == {
        "Deployment", "DaemonSet", "Job", "CronJob", "PriorityClass", "ResourceClaimTemplate"}
    concrete = set(EventResource) - {EventResource.ASSIGNED_POD, EventResource.UNSCHEDULED_POD,
                                             EventResource.WILDCARD, EventResource.CSI_STORAGE_CAPACITY}
    assert set(mapped.values()) - {None} == concrete


# --------------------------------------------------------------------------------------------
# an open registry


@attrs.frozen
class WidgetQuota:
    name: str
    namespace: str


def _read_quota(manifest: Any) -> WidgetQuota:
    meta = manifest.get("metadata") or {}
    if not meta.get("name"):
        raise ManifestError("metadata.name", "required")
    return WidgetQuota(meta["name"], meta.get("namespace") or "default")


def _write_quota(q: WidgetQuota) -> dict[str, Any]:
    return {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "WidgetQuota",
            "metadata": {"name": q.name, "namespace": q.namespace}}


QUOTA = KindInfo("WidgetQuota", "scheduling.x-k8s.io/v1alpha1", "widgetquotas", True, WidgetQuota,
                 _read_quota, _write_quota)


@pytest.fixture
def quota_kind() -> Iterator[KindInfo]:
    KINDS.register(QUOTA)
    try:
        yield QUOTA
    finally:  # the registry has no public unregister: undo the test's registration
        del KINDS._by_kind[QUOTA.kind]
        del KINDS._by_class[QUOTA.cls]


def test_a_registered_kind_is_read_and_written(quota_kind: KindInfo) -> None:
    text = ("apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: WidgetQuota\n"
            "metadata: {name: q, namespace: team}\n")
    [quota] = load_manifests(text, strict=True)
    assert quota == WidgetQuota("q", "team")
    assert object_to_manifest(quota)["kind"] == "WidgetQuota"
    assert "WidgetQuota" in KINDS
    assert KINDS.by_class(WidgetQuota) is quota_kind
    assert quota_kind.group == "scheduling.x-k8s.io"
    assert quota_kind.version == "v1alpha1"
    with pytest.raises(ManifestError, match=r"documents\[0\]\.metadata\.name: required \(in WidgetQuota\)"):
        load_manifests(text.replace("name: q, ", ""))
    assert KINDS.ranked()[-1].kind == "Pod"


def test_an_unregistered_kind_is_skipped() -> None:
    assert "WidgetQuota" not in KINDS
    with pytest.warns(schedframe.SchedframeWarning, match="WidgetQuota"):
        assert load_manifests("apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: WidgetQuota\n"
                              "metadata: {name: q}\n") == []


def test_duplicate_registration_is_refused(quota_kind: KindInfo) -> None:
    with pytest.raises(DuplicateKindError, match=r"kind 'WidgetQuota' is already registered"):
        KINDS.register(attrs.evolve(QUOTA, cls=dict))
    with pytest.raises(DuplicateKindError, match=r"kind 'Pod' is already registered \(v1, Pod\)"):
        KINDS.register(attrs.evolve(QUOTA, kind="Pod", api_versions="v1", cls=dict))
    with pytest.raises(DuplicateKindError, match=r"class WidgetQuota is already registered as kind"):
        KINDS.register(attrs.evolve(QUOTA, kind="Other"))
    assert issubclass(DuplicateKindError, ValueError)
    with pytest.raises(TypeError):
        KINDS.register("Pod")  # type: ignore[arg-type]


def test_kind_info_checks_api_versions() -> None:
    with pytest.raises(ValueError, match="api_versions"):
        attrs.evolve(QUOTA, api_versions=())
    assert attrs.evolve(QUOTA, api_versions="v1").group == ""


def test_a_separate_registry() -> None:
    reg = KindRegistry((QUOTA,))
    assert list(reg) == [QUOTA]
    assert len(reg) == 1
    assert reg.by_kind("Pod") is None
    assert "WidgetQuota" in repr(reg)


# --------------------------------------------------------------------------------------------
# the api package's structure


def _imports(path: pathlib.Path) -> set[str]:
    """The api modules *path* imports (relative imports, also inside functions; not the ones
    under ``if TYPE_CHECKING:``)."""
    tree = ast.parse(path.read_text())
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for sub in node.body for n in ast.walk(sub))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and id(node) not in skip:
            if node.module:
                out.add(node.module.split(".")[0])
            else:
                out.update(a.name for a in node.names)
    return out


def test_api_has_no_import_cycle() -> None:
    modules = {p.stem: p for p in API.glob("*.py") if p.stem != "__init__"}
    graph = {m: _imports(p) & set(modules) - {m} for m, p in modules.items()}
    done: set[str] = set()

    def visit(m: str, stack: list[str]) -> None:
        if m in stack:
            raise AssertionError("import cycle: " + " -> ".join([*stack[stack.index(m):], m]))
        if m in done:
            return
        for dep in sorted(graph[m]):
            visit(dep, [*stack, m])
        done.add(m)

    for m in sorted(graph):
        visit(m, [])


def test_api_modules_stay_small() -> None:
    for path in API.glob("*.py"):
        assert len(path.read_text().splitlines()) <= 1500, path


def test_kinds_module_lists_its_names() -> None:
    assert set(kinds_module.__all__) <= set(dir(schedframe.api))
