"""Manifests in and out: what load_manifests reads (text vs paths, regular files only, size and
object caps, unused kinds), API-server defaulting and validation, dump_manifests round trips on
the real dump, timestamps, bounded error messages and argument types."""

from __future__ import annotations

import json
import os
import pathlib
import sys
from typing import Any

import pytest
import yaml

from schedframe import (
    ManifestError,
    Pod,
    SchedframeWarning,
    Scheduler,
    dump_manifests,
    load_manifests,
    object_from_manifest,
)
from schedframe.api import Container, PodCondition, dump_scheduler_state
from schedframe.api.manifests import pod_from_manifest
from schedframe.errors import MAX_VALUE_REPR
from schedframe.testing import make_node, make_pod

DATA = pathlib.Path(__file__).parent / "data"
DUMP = DATA / "workloads-dump.yaml"
NS = "kind: Namespace\nmetadata: {name: a}\n"


# --------------------------------------------------------------------------------------------
# Path vs text (#15 F12)


def test_str_is_always_text(tmp_path: pathlib.Path) -> None:
    """A str naming an existing file is not read: the error says to pass a Path."""
    secret = tmp_path / "secret.yaml"
    secret.write_text(NS)
    with pytest.raises(
        ManifestError, match=r"a str is always manifest text: pass pathlib\.Path\(.*secret\.yaml'\)"
    ):
        load_manifests(str(secret))
    assert [o.name for o in load_manifests(secret)] == ["a"]
    # one-line text is text
    assert [o.name for o in load_manifests("{kind: Namespace, metadata: {name: b}}")] == ["b"]


def test_str_not_naming_a_file_gets_the_plain_error() -> None:
    """A one-line str that is neither a manifest nor a path: the usual error, no path hint."""
    with pytest.raises(ManifestError, match=r"^documents\[0\]: expected a Kubernetes object") as e:
        load_manifests("no-such-file.yaml")
    assert "Path" not in str(e.value)


@pytest.mark.parametrize(
    ("source", "match"),
    [
        pytest.param(None, "got NoneType", id="None"),
        pytest.param(42, "got int", id="int"),
        pytest.param({"kind": "Pod"}, "got dict; use object_from_manifest", id="dict"),
        pytest.param(["kind: Pod"], "got list", id="list"),
    ],
)
def test_source_type_errors(source: Any, match: str) -> None:
    """Anything but text or a path is a TypeError naming the argument."""
    with pytest.raises(TypeError, match=rf"^load_manifests\(\) argument 'source' must be .*{match}"):
        load_manifests(source)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        pytest.param({"max_bytes": -1}, "argument 'max_bytes'", id="negative max_bytes"),
        pytest.param({"max_objects": "10"}, "argument 'max_objects'", id="str max_objects"),
        pytest.param({"seed": 1.5}, "argument 'seed'", id="float seed"),
    ],
)
def test_option_type_errors(kwargs: dict[str, Any], match: str) -> None:
    """Bad options raise TypeError naming them."""
    with pytest.raises(TypeError, match=match):
        load_manifests(NS, **kwargs)


# --------------------------------------------------------------------------------------------
# Regular files only, caps (#15 F2)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_is_refused_without_blocking(tmp_path: pathlib.Path) -> None:
    """A FIFO (given directly or inside a directory) is refused, never opened for a blocking read."""
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    with pytest.raises(ManifestError, match=r"pipe\.yaml': it is a FIFO \(named pipe\); only regular files"):
        load_manifests(fifo)
    with pytest.raises(ManifestError, match=r"in directory .*: it is a FIFO"):
        load_manifests(tmp_path)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_device_is_refused() -> None:
    """/dev/zero is a character device: refused at once (it would never end)."""
    with pytest.raises(ManifestError, match=r"'/dev/zero': it is a character device"):
        load_manifests(pathlib.Path("/dev/zero"))


def test_directory_entries(tmp_path: pathlib.Path) -> None:
    """A directory is read in sorted order; a sub-directory named like a manifest is refused."""
    (tmp_path / "b.yaml").write_text("kind: Namespace\nmetadata: {name: b}\n")
    (tmp_path / "a.json").write_text(json.dumps({"kind": "Namespace", "metadata": {"name": "a"}}))
    (tmp_path / "readme.txt").write_text("ignored")
    assert [o.name for o in load_manifests(tmp_path)] == ["a", "b"]
    (tmp_path / "c.yaml").mkdir()
    with pytest.raises(ManifestError, match=r"c\.yaml' in directory .*: it is a directory"):
        load_manifests(tmp_path)


def test_size_cap(tmp_path: pathlib.Path) -> None:
    """Files and text beyond max_bytes are refused; a file is read at most max_bytes + 1 bytes."""
    big = tmp_path / "big.yaml"
    big.write_text(NS + "# " + "x" * 10_000 + "\n")
    with pytest.raises(ManifestError, match=r"exceeds the input size limit of 1000 bytes"):
        load_manifests(big, max_bytes=1000)
    with pytest.raises(ManifestError, match=r"the manifest text exceeds the input size limit of 10 bytes"):
        load_manifests(NS, max_bytes=10)
    assert len(load_manifests(big, max_bytes=20_000)) == 1
    # the budget is shared by the files of a directory
    (tmp_path / "more.yaml").write_text(NS)
    with pytest.raises(ManifestError, match="exceeds the input size limit"):
        load_manifests(tmp_path, max_bytes=10_050)


def test_object_cap() -> None:
    """More documents or List items than max_objects are refused."""
    text = "---\n".join(f"kind: Namespace\nmetadata: {{name: n{i}}}\n" for i in range(5))
    assert len(load_manifests(text, max_objects=5)) == 5
    with pytest.raises(ManifestError, match=r"more than 4 objects"):
        load_manifests(text, max_objects=4)
    items = json.dumps(
        {"kind": "List", "items": [{"kind": "Namespace", "metadata": {"name": f"n{i}"}} for i in range(10)]}
    )
    with pytest.raises(ManifestError, match=r"more than 5 objects"):
        load_manifests(items, max_objects=5)


# --------------------------------------------------------------------------------------------
# Unused kinds are reported (#14 item 4)


def test_unused_kinds_warn_or_raise() -> None:
    """Kinds schedframe does not use are listed in one SchedframeWarning; strict=True raises."""
    text = (
        NS + "---\nkind: ConfigMap\nmetadata: {name: c}\n---\nkind: Secret\nmetadata: {name: s}\n"
        "---\nkind: ConfigMap\nmetadata: {name: d}\n"
    )
    with pytest.warns(SchedframeWarning, match=r"skipped 3 object\(s\) .*: ConfigMap \(2\), Secret"):
        objs = load_manifests(text)
    assert [o.name for o in objs] == ["a"]
    with pytest.raises(ManifestError, match=r"^documents\[1\]\.kind: unsupported kind 'ConfigMap'"):
        load_manifests(text, strict=True)


# --------------------------------------------------------------------------------------------
# Defaulting and validation (#14 item 3)


def pod(spec: dict[str, Any], name: str = "p", **meta: Any) -> Pod:
    return pod_from_manifest({"metadata": {"name": name, **meta}, "spec": spec})


def test_requests_default_to_limits() -> None:
    """A resource with a limit and no request requests its limit, in containers and init
    containers (sidecars included); explicit requests are kept."""
    p = pod(
        {
            "initContainers": [
                {"name": "init", "resources": {"limits": {"cpu": "2"}}},
                {"name": "side", "restartPolicy": "Always", "resources": {"limits": {"memory": "1Gi"}}},
            ],
            "containers": [
                {
                    "name": "c",
                    "resources": {"limits": {"cpu": "1", "memory": "2Gi"}, "requests": {"cpu": "500m"}},
                }
            ],
            "overhead": {"cpu": "100m"},
        }
    )
    assert {k: str(v) for k, v in p.containers[0].requests.items()} == {"cpu": "500m", "memory": "2Gi"}
    assert str(p.init_containers[0].requests["cpu"]) == "2"
    # max(500m + sidecar 0, init 2 + sidecar) = 2 CPUs, memory 2Gi + 1Gi sidecar, plus overhead
    assert p.requests.milli_cpu == 2000 + 100
    assert p.requests.memory == 3 * 1024**3
    assert Pod.from_manifest(p.to_manifest()) == p


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        pytest.param(
            {}, r"^spec\.containers: required: a pod needs at least one container$", id="no containers"
        ),
        pytest.param(
            {"containers": [{"name": "c"}, {"name": "c"}]},
            r"^spec\.containers\[1\]\.name: duplicate container name 'c' \(also spec\.containers\[0\]\)$",
            id="duplicate containers",
        ),
        pytest.param(
            {"containers": [{"name": "c"}], "initContainers": [{"name": "c"}]},
            r"^spec\.initContainers\[0\]\.name: duplicate container name 'c'",
            id="duplicate init",
        ),
        pytest.param(
            {"containers": [{"name": "c"}], "ephemeralContainers": [{"name": "c"}]},
            r"^spec\.ephemeralContainers\[0\]\.name: duplicate container name 'c'",
            id="duplicate ephemeral",
        ),
        pytest.param(
            {"containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}}]},
            r"^spec\.containers\[0\]\.resources\.requests\.cpu: must be less than or equal to the cpu "
            r"limit of 1, got 2$",
            id="request above limit",
        ),
        pytest.param(
            {"containers": [{"name": "c", "resources": {"requests": {"memory": "-1"}}}]},
            r"^spec\.containers\[0\]\.resources\.requests\.memory: must be greater than or equal to 0",
            id="negative quantity",
        ),
        pytest.param(
            {"containers": [{"name": "C_1"}]},
            r"^spec\.containers\[0\]\.name: invalid name 'C_1'",
            id="container name",
        ),
        pytest.param(
            {"containers": [{}]}, r"^spec\.containers\[0\]\.name: required$", id="container name missing"
        ),
        pytest.param(
            {"containers": [{"name": "c"}], "resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}},
            r"^spec\.resources\.requests\.cpu: must be less than or equal",
            id="pod-level request",
        ),
    ],
)
def test_pod_validation(spec: dict[str, Any], match: str) -> None:
    """What the API server refuses is a ManifestError naming the field."""
    with pytest.raises(ManifestError, match=match):
        pod(spec)


@pytest.mark.parametrize(
    ("name", "meta", "match"),
    [
        pytest.param("Web_1", {}, r"^metadata\.name: invalid name 'Web_1'", id="pod name"),
        pytest.param(
            "web", {"namespace": "My.NS"}, r"^metadata\.namespace: invalid name 'My\.NS'", id="namespace"
        ),
    ],
)
def test_name_validation(name: str, meta: dict[str, Any], match: str) -> None:
    """Pod names are DNS subdomains, namespaces DNS labels."""
    with pytest.raises(ManifestError, match=match):
        pod({"containers": [{"name": "c"}]}, name, **meta)


def test_builders_refuse_the_same() -> None:
    """make_pod/make_node refuse negative quantities, duplicate containers and requests above
    limits with ManifestError and the field path."""
    with pytest.raises(
        ManifestError, match=r"^spec\.containers\[0\]\.resources\.requests\.cpu: must be greater"
    ):
        make_pod("p").req(cpu="-1").obj()
    with pytest.raises(ManifestError, match=r"^spec\.containers\[1\]\.name: duplicate container name 'x'"):
        make_pod("p").container(name="x").container(name="x").obj()
    with pytest.raises(
        ManifestError, match=r"^spec\.containers\[0\]\.resources\.requests\.memory: must be less"
    ):
        make_pod("p").container(memory="2Gi", limits={"memory": "1Gi"}).obj()
    with pytest.raises(ManifestError, match=r"^status\.capacity\.cpu: must be greater than or equal to 0"):
        make_node("n").capacity(cpu="-4").obj()
    assert make_pod("p").obj().containers == ()  # the smallest test pod stays allowed


# --------------------------------------------------------------------------------------------
# Timestamps (#15 F14) and bounded messages (#15 F15)


def test_condition_times_round_trip() -> None:
    """creationTimestamp, deletionTimestamp, startTime and condition times survive to_manifest /
    from_manifest exactly, written as RFC 3339 in UTC."""
    m = {
        "metadata": {
            "name": "p",
            "creationTimestamp": "2024-06-03T09:00:00Z",
            "deletionTimestamp": "2024-06-03T10:00:00.5Z",
        },
        "spec": {"containers": [{"name": "c"}]},
        "status": {
            "startTime": "2024-06-03T09:00:01Z",
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True",
                    "lastProbeTime": "2024-06-03T09:00:02Z",
                    "lastTransitionTime": "2024-06-03T09:00:03+02:00",
                }
            ],
        },
    }
    p = pod_from_manifest(m)
    assert p.conditions[0] == PodCondition(
        "Ready", "True", last_probe_time=1717405202.0, last_transition_time=1717405203.0 - 7200
    )
    out = p.to_manifest()
    assert out["metadata"]["deletionTimestamp"] == "2024-06-03T10:00:00.5Z"
    assert out["status"]["conditions"][0]["lastTransitionTime"] == "2024-06-03T07:00:03Z"
    assert Pod.from_manifest(out) == p
    (node,) = [o for o in load_manifests(DUMP, expand_workloads=False) if o.name == "kind-worker"]
    assert node.to_manifest()["status"]["conditions"][0]["lastHeartbeatTime"] == "2024-06-03T10:15:05Z"


@pytest.mark.parametrize(
    "manifest",
    [
        pytest.param(
            {"kind": "Pod", "metadata": {"name": "x" * 10**6}, "spec": {"containers": [{"name": "c"}]}},
            id="huge name",
        ),
        pytest.param({"kind": "Pod", "metadata": {"name": "p", "labels": {"k" * 10**6: 1}}}, id="huge key"),
        pytest.param(
            {
                "kind": "Pod",
                "metadata": {"name": "p"},
                "spec": {
                    "containers": [{"name": "c", "resources": {"requests": {"cpu": "9" * 10**6 + "x"}}}]
                },
            },
            id="huge quantity",
        ),
        pytest.param({"kind": "K" * 10**6}, id="huge kind"),
    ],
)
def test_error_messages_are_bounded(manifest: dict[str, Any]) -> None:
    """An error about a megabyte value stays short and keeps the field path."""
    with pytest.raises(ManifestError) as e:
        load_manifests(json.dumps(manifest), strict=True)
    assert len(str(e.value)) < 20 * MAX_VALUE_REPR
    assert str(e.value).startswith("documents[0]")


def test_unused_kind_warning_is_bounded() -> None:
    """The warning listing unused kinds stays short too."""
    with pytest.warns(SchedframeWarning) as record:
        load_manifests(json.dumps({"kind": "K" * 10**6}))
    assert len(str(record[0].message)) < 4 * MAX_VALUE_REPR


# --------------------------------------------------------------------------------------------
# dump_manifests (#14 item 7)


def test_dump_round_trip_on_the_real_dump() -> None:
    """dump_manifests writes what load_manifests reads: the real dump's objects come back equal,
    as YAML and as JSON, and the YAML is one kind: List document."""
    objs = load_manifests(DUMP, expand_workloads=False)
    text = dump_manifests(objs)
    doc = yaml.safe_load(text)
    assert (doc["kind"], doc["apiVersion"], len(doc["items"])) == ("List", "v1", len(objs))
    assert load_manifests(text, expand_workloads=False) == objs
    assert load_manifests(dump_manifests(objs, "json"), expand_workloads=False) == objs
    # expanded objects round-trip as well, and expanding again creates nothing new
    full = load_manifests(DUMP)
    assert load_manifests(dump_manifests(full), expand_workloads=False) == full
    assert load_manifests(dump_manifests(full)) == full


def test_dump_pending_and_bound_pods() -> None:
    """Bound pods carry spec.nodeName; pending ones the PodScheduled=False Unschedulable
    condition with the message."""
    bound = Pod("a", node_name="n1", containers=[Container("c")])
    pending = Pod("b", containers=[Container("c")])
    text = dump_manifests(
        [bound, pending], "json", pending={"default/b": "0/1 nodes are available: 1 Too many pods."}
    )
    items = json.loads(text)["items"]
    assert items[0]["spec"]["nodeName"] == "n1"
    assert items[1]["status"]["conditions"] == [
        {
            "type": "PodScheduled",
            "status": "False",
            "reason": "Unschedulable",
            "message": "0/1 nodes are available: 1 Too many pods.",
        }
    ]
    (_, back) = load_manifests(text)
    assert back.conditions == (
        PodCondition("PodScheduled", "False", "Unschedulable", "0/1 nodes are available: 1 Too many pods."),
    )


def test_dump_scheduler_state() -> None:
    """A Scheduler's state dumps and loads back: placements as nodeName, failures as conditions."""
    s = Scheduler()
    s.add_node(make_node("n1").capacity(cpu="1", memory="1Gi", pods="10").obj())
    s.add_pod(make_pod("fits").container(name="c", cpu="500m").obj())
    s.add_pod(make_pod("too-big").container(name="c", cpu="4").obj())
    s.run_until_idle()
    back = {o.name: o for o in load_manifests(dump_scheduler_state(s), expand_workloads=False)}
    assert back["fits"].node_name == "n1"
    (cond,) = back["too-big"].conditions
    assert (cond.type, cond.status, cond.reason) == ("PodScheduled", "False", "Unschedulable")
    assert "Insufficient cpu" in cond.message
    assert "n1" in back


def test_dump_yaml_needs_pyyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without PyYAML, YAML output names the extra; JSON still works."""
    monkeypatch.setitem(sys.modules, "yaml", None)
    with pytest.raises(ManifestError, match=r"writing YAML needs PyYAML: pip install 'schedframe\[yaml\]'"):
        dump_manifests([Pod("a", containers=[Container("c")])])
    assert json.loads(dump_manifests([Pod("a", containers=[Container("c")])], "json"))["kind"] == "List"


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        pytest.param((None,), {}, "argument 'objects'", id="None"),
        pytest.param(("text",), {}, "argument 'objects'", id="str"),
        pytest.param(([],), {"format": "xml"}, "argument 'format'", id="format"),
        pytest.param(([],), {"pending": ["a"]}, "argument 'pending'", id="pending"),
        pytest.param(([Pod("a")],), {"pending": {"default/a": 1}}, "argument 'pending'", id="message type"),
    ],
)
def test_dump_argument_errors(args: tuple[Any, ...], kwargs: dict[str, Any], match: str) -> None:
    """Misuse is a TypeError naming the argument."""
    with pytest.raises(TypeError, match=match):
        dump_manifests(*args, **kwargs)


def test_dump_refuses_other_objects() -> None:
    """An object schedframe cannot write is a ManifestError naming its index."""
    with pytest.raises(ManifestError, match=r"^objects\[1\]: cannot write a manifest for int objects"):
        dump_manifests([Pod("a"), 3])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="argument 'scheduler'"):
        dump_scheduler_state(object())


def test_object_from_manifest_not_a_mapping() -> None:
    """from_manifest given None or a str raises ManifestError with a sentence."""
    for bad in (None, "kind: Pod", 3):
        with pytest.raises(ManifestError, match="expected a Kubernetes object"):
            object_from_manifest(bad)  # type: ignore[arg-type]


HOST_NETWORK_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: dns}
spec:
  hostNetwork: true
  containers:
  - name: c
    image: dns
    ports: [{containerPort: 53, protocol: UDP}, {containerPort: 9153, hostPort: 9153}]
"""


def test_host_network_pods_take_their_container_ports_on_the_node() -> None:
    """As the API server defaults them, a hostNetwork pod's ports without hostPort take the
    containerPort on the node, so NodePorts keeps two such pods apart; a different hostPort is
    refused with its field path; a Deployment's hostNetwork template gives pods the same ports."""
    (pod,) = load_manifests(HOST_NETWORK_POD)
    assert [(p.container_port, p.host_port, p.protocol) for p in pod.host_ports()] == [
        (53, 53, "UDP"), (9153, 9153, "TCP")]
    with pytest.raises(ManifestError) as err:
        load_manifests(HOST_NETWORK_POD.replace("hostPort: 9153", "hostPort: 9154"))
    assert err.value.path == "documents[0].spec.containers[0].ports[1].hostPort"
    plain = load_manifests(HOST_NETWORK_POD.replace("hostNetwork: true", "hostNetwork: false"))
    assert [p.host_port for p in plain[0].host_ports()] == [9153]

    scheduler = Scheduler()
    scheduler.add_node(make_node("n1").capacity(cpu="4", memory="8Gi", pods="10").obj())
    scheduler.add_node(make_node("n2").capacity(cpu="4", memory="8Gi", pods="10").obj())
    first = scheduler.add_pod(pod)
    second = scheduler.add_pod(load_manifests(HOST_NETWORK_POD.replace("name: dns", "name: dns-2"))[0])
    scheduler.run_until_idle()
    assert {scheduler.node_of(first), scheduler.node_of(second)} == {"n1", "n2"}

    deployment = load_manifests(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n"
        "spec:\n  replicas: 2\n  selector: {matchLabels: {app: d}}\n"
        "  template:\n    metadata: {labels: {app: d}}\n"
        "    spec:\n      hostNetwork: true\n"
        "      containers: [{name: c, image: x, ports: [{containerPort: 8080}]}]\n"
    )
    pods = [o for o in deployment if isinstance(o, Pod)]
    assert len(pods) == 2
    assert all([p.host_port for p in q.host_ports()] == [8080] for q in pods)
