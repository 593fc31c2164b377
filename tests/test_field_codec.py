"""The table-driven codec of small api objects (``schedframe.api._fields._Codec``): reading in
the table's order with the class defaults for absent fields, writing in its own order, and the
manifests of the kinds it serves round-tripping as before."""

from __future__ import annotations

import pytest

from schedframe import ManifestError
from schedframe.api import RBDVolumeSource, Toleration, Volume
from schedframe.api._fields import _BOOL, _OPT_INT, _REQUIRED_STR, _STR, _STR_OR_DEFAULT, _Codec, _Field
from schedframe.api._pod import pod_from_manifest, pod_to_manifest
from schedframe.api.storage import volumes_from_manifest, volumes_to_manifest
from schedframe.api.workloads import daemon_target

_RBD = _Codec(RBDVolumeSource, (
    _Field("monitors", "monitors", _STR), _Field("image", "image", _REQUIRED_STR),
    _Field("pool", "pool", _STR_OR_DEFAULT, always=True), _Field("readOnly", "read_only", _BOOL)),
    written=("image", "pool", "monitors", "readOnly"))


def test_an_absent_or_empty_defaulted_field_keeps_the_class_default() -> None:
    assert _RBD.read({"image": "i", "monitors": "m"}, "x").pool == "rbd"
    assert _RBD.read({"image": "i", "monitors": "m", "pool": ""}, "x").pool == "rbd"


def test_the_first_bad_field_of_the_table_is_reported() -> None:
    with pytest.raises(ManifestError) as exc:
        _RBD.read({"image": 3, "monitors": 3}, "spec.volumes[0].rbd")
    assert exc.value.path == "spec.volumes[0].rbd.monitors"


def test_writing_follows_the_written_order_and_leaves_out_empty_fields() -> None:
    src = RBDVolumeSource(monitors=("m",), image="i")
    assert list(_RBD.write(src)) == ["image", "pool", "monitors"]
    assert _RBD.write(src.__class__(monitors=(), image="i", read_only=True))["readOnly"] is True


def test_an_optional_integer_is_written_when_set_even_as_zero() -> None:
    codec = _Codec(Toleration, (_Field("tolerationSeconds", "toleration_seconds", _OPT_INT),))
    assert codec.write(Toleration(toleration_seconds=0)) == {"tolerationSeconds": 0}
    assert codec.write(Toleration()) == {}
    assert codec.read({}, "t") == Toleration()


def test_volume_sources_round_trip() -> None:
    raw = [{"name": "a", "rbd": {"monitors": ["m"], "image": "i"}},
           {"name": "b", "iscsi": {"targetPortal": "t", "iqn": "q"}},
           {"name": "c", "hostPath": {"path": "/x"}}]
    vols = volumes_from_manifest(raw, "spec.volumes")
    assert isinstance(vols[0], Volume)
    assert vols[0].rbd is not None
    assert vols[0].rbd.user == "admin"
    assert volumes_to_manifest(vols) == [
        {"name": "a", "rbd": {"monitors": ["m"], "image": "i", "pool": "rbd", "user": "admin"}},
        {"name": "b", "iscsi": {"targetPortal": "t", "iqn": "q", "lun": 0}},
        {"name": "c", "hostPath": {"path": "/x"}}]


def test_a_pods_tolerations_and_ports_round_trip() -> None:
    pod = pod_from_manifest({
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80, "protocol": ""}]}],
                 "tolerations": [{"key": "k", "effect": "NoSchedule"}]}})
    assert pod.tolerations == (Toleration(key="k", operator="Equal", effect="NoSchedule"),)
    spec = pod_to_manifest(pod)["spec"]
    assert spec["tolerations"] == [{"key": "k", "operator": "Equal", "effect": "NoSchedule"}]
    assert spec["containers"][0]["ports"] == [{"containerPort": 80, "protocol": "TCP"}]


def test_the_node_of_a_daemonset_pod() -> None:
    pod = pod_from_manifest({
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c"}], "affinity": {"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}}}}})
    assert daemon_target(pod) == "n1"
    assert daemon_target(pod.evolve(node_name="n2")) == "n2"
    assert daemon_target(pod.evolve(affinity=None)) == ""
