"""schedframe.plan: scale-up with gangs, spread and GPU sharing, pods no template can help,
PDB-blocked scale-down, the simulation check, template files and the CLI's built-in example."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from schedframe.api.manifests import object_from_manifest
from schedframe.cli import main
from schedframe.plan import (
    EXAMPLE_CONFIG,
    NodeTemplate,
    TemplateError,
    example_cluster,
    example_templates,
    load_templates,
    plan,
    templates_from_data,
)
from schedframe.testing import make_node, make_pod

ZONE = "topology.kubernetes.io/zone"


@pytest.fixture(scope="module")
def example() -> Any:
    objs = [object_from_manifest(m) for m in example_cluster()]
    return plan(objs, templates_from_data(example_templates()), config=EXAMPLE_CONFIG, scale_down=True)


def test_example_scale_up_is_verified_and_places_every_helpable_pod(example: Any) -> None:
    """The built-in example's scale-up passes its simulation check; only the pod no template
    can hold stays pending."""
    up = example.scale_up
    assert example.verified, up.problems
    assert up.verified, up.problems
    assert list(up.unhelpable) == ["default/ingest-0"]
    assert up.node_count == len(up.new_nodes) > 0


def test_gang_is_placed_whole(example: Any) -> None:
    """All four gang members are placed (Coscheduling: all or nothing)."""
    placed = example.scale_up.placements
    assert all(f"default/train-{i}" in placed for i in range(4))


def test_gpu_shared_pods_go_to_the_gpu_template(example: Any) -> None:
    """The two half-GPU pods land on a node of the GPU template (OpenGpuShare's Filter)."""
    placed = example.scale_up.placements
    assert placed["default/infer-0"].startswith("gpu-t4-")
    assert placed["default/infer-1"].startswith("gpu-t4-")


def test_spread_constraint_holds_after_the_plan(example: Any) -> None:
    """The web pods end within maxSkew 1 across the zones."""
    objs = [object_from_manifest(m) for m in example_cluster()]
    zone = {o.name: o.labels[ZONE] for o in objs if type(o).__name__ == "Node"}
    for t in templates_from_data(example_templates()):
        for name in example.scale_up.new_nodes:
            if name.startswith(f"{t.name}-"):
                zone[name] = t.node.labels[ZONE]
    counts = {"zone-a": 1, "zone-b": 1}  # web-0, web-1 run already
    for k, n in example.scale_up.placements.items():
        if k.startswith("default/web-"):
            counts[zone[n]] += 1
    assert sum(counts.values()) == 8
    assert abs(counts["zone-a"] - counts["zone-b"]) <= 1


def test_unhelpable_pod_has_each_templates_reason_in_kube_scheduler_words(example: Any) -> None:
    """A pod no template can hold lists every template with kube-scheduler's Filter reason."""
    reasons = example.scale_up.unhelpable["default/ingest-0"]
    assert set(reasons) == {"small-a", "small-b", "large-a", "gpu-t4"}
    assert all(r == ("node(s) didn't match Pod's node affinity/selector",) for r in reasons.values())


def test_scale_down_honours_the_pdb(example: Any) -> None:
    """The node holding the PDB-guarded database stays, with CA's reason; the others go, and
    their pods move."""
    down = example.scale_down
    assert down.verified
    assert "a-2" not in down.removable
    reason, detail = down.unremovable["a-2"]
    assert reason == "BlockedByPod"
    assert "NotEnoughPdb" in detail
    assert down.removable
    assert set(down.moves) >= {"default/cache-0"}


def _cluster(n: int = 1) -> list[Any]:
    return [make_node().name(f"n{i}").capacity(cpu="2", memory="4Gi", pods="110").obj() for i in range(n)]


def test_resource_only_pods_and_scale_down_rules() -> None:
    """Resource-only pods are packed onto the cheapest fitting template; a pod without a
    controller, one annotated safe-to-evict=false and a node annotated scale-down-disabled keep
    their nodes."""
    nodes = [make_node().name(f"n{i}").capacity(cpu="4", memory="8Gi", pods="110").obj() for i in range(4)]
    nodes[3] = nodes[3].evolve(annotations={"cluster-autoscaler.kubernetes.io/scale-down-disabled": "true"})
    bare = make_pod().name("bare").req(cpu="100m").node("n0").obj()
    pinned = make_pod().name("pinned").req(cpu="100m").node("n1").obj().evolve(
        annotations={"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"})
    # 3.95 CPU: too much for n0 and n1 (3.9 free), which keep their rule-based reasons; the
    # empty n2 takes one (pending pods are placed first) and the rest go to new nodes
    pending = [make_pod().name(f"p{i}").req(cpu="3950m", memory="1Gi").obj() for i in range(6)]
    small = NodeTemplate("small", make_node().name("t").capacity(cpu="4", memory="8Gi", pods="110").obj(),
                         price=1.0)
    big = NodeTemplate("big", make_node().name("t").capacity(cpu="16", memory="32Gi", pods="110").obj(),
                       price=10.0)
    r = plan([*nodes, bare, pinned, *pending], [small, big], strategy="price", scale_down=True)
    assert r.verified, (r.scale_up.problems if r.scale_up else None)
    assert r.scale_up is not None
    assert r.scale_down is not None
    assert len(r.scale_up.placements) == 6
    assert not r.scale_up.unhelpable
    assert set(r.scale_up.nodes_to_add) == {"small"}
    un = r.scale_down.unremovable
    assert un["n0"] == ("BlockedByPod", "default/bare: NotReplicated")
    assert un["n1"] == ("BlockedByPod", "default/pinned: NotSafeToEvictAnnotation")
    assert un["n3"][0] == "ScaleDownDisabledAnnotation"


def test_max_count_reached_is_a_reason() -> None:
    """When every fitting template is at its maxCount, the pods left say so."""
    pending = [make_pod().name(f"p{i}").req(cpu="3").obj() for i in range(3)]
    node = make_node().name("t").capacity(cpu="4", memory="8Gi", pods="110").obj()
    t = NodeTemplate("one", node, max_count=1)
    r = plan([*_cluster(), *pending], [t])
    up = r.scale_up
    assert up is not None
    assert up.nodes_to_add == {"one": 1}
    assert len(up.unhelpable) == 2
    assert all(v["one"] == ("template maxCount (1) reached",) for v in up.unhelpable.values())
    assert up.verified


def test_json_output_shape(example: Any) -> None:
    """--json gives the keys the issue promises."""
    d = example.to_dict()
    assert {"nodes_to_add", "placements", "unhelpable"} <= set(d["scale_up"])
    assert "removable" in d["scale_down"]
    assert d["verified"] is True


@pytest.mark.parametrize(("text", "match"), [
    pytest.param("kind: NodeTemplates\ntemplates:\n- name: a\n  node: {status: {allocatable: {cpu: '4'}}}\n"
                 "  maxCount: -1\n", r"templates\[0\]\.maxCount: want an integer", id="negative maxCount"),
    pytest.param("kind: NodeTemplates\ntemplates:\n- name: a\n  nodes: {}\n",
                 r"templates\[0\]\.nodes: unknown field; did you mean 'node'", id="misspelt field"),
    pytest.param("kind: NodeTemplates\ntemplates:\n- name: a\n  node: {status: {allocatable: {}}}\n",
                 r"templates\[0\]\.node\.status\.allocatable: a template node needs", id="no allocatable"),
    pytest.param("kind: NodeTemplates\ntemplates:\n- name: a\n  price: cheap\n  node: {status: {allocatable: "
                 "{cpu: '1'}}}\n", r"templates\[0\]\.price: want a number", id="bad price"),
    pytest.param("kind: Pod\n", r"kind: want 'NodeTemplates'", id="wrong kind"),
    pytest.param("apiVersion: v1\nkind: Node\nmetadata:\n  name: x\n  annotations: {schedframe.io/max-count: "
                 "lots}\nstatus: {allocatable: {cpu: '1'}}\n", r"schedframe.io/max-count",
                 id="bare node annotation"),
])
def test_bad_template_files_name_the_field(tmp_path: Path, text: str, match: str) -> None:
    """A bad template file is a TemplateError naming the file and the field."""
    f = tmp_path / "t.yaml"
    f.write_text(text)
    with pytest.raises(TemplateError, match=match) as info:
        load_templates(f)
    assert "t.yaml" in str(info.value)


def test_bad_template_file_from_the_cli_is_one_line_and_exit_2(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI turns a bad template file into one line with the field path and exit 2."""
    f = tmp_path / "t.yaml"
    f.write_text("kind: NodeTemplates\ntemplates:\n- name: a\n  maxCount: x\n"
                 "  node: {status: {allocatable: {cpu: '1'}}}\n")
    cluster = str(Path(__file__).parent / "data" / "cluster.yaml")
    code = main(["plan", "--cluster", cluster, "--templates", str(f)],
                stdout=io.StringIO())
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1
    assert "templates[0].maxCount" in err[0]


def test_bare_node_templates_with_annotations(tmp_path: Path) -> None:
    """Node manifests with schedframe.io/ annotations are templates too."""
    f = tmp_path / "t.yaml"
    f.write_text("apiVersion: v1\nkind: Node\nmetadata:\n  name: m5\n"
                 "  annotations: {schedframe.io/price: '0.19', "
                 "schedframe.io/max-count: '3'}\nstatus: {allocatable: {cpu: '4', memory: 16Gi}}\n")
    (t,) = load_templates(f)
    assert (t.name, t.price, t.max_count, t.node.allocatable_resources.pods) == ("m5", 0.19, 3, 110)


def test_cli_builtin_example_json() -> None:
    """`schedframe plan --json` with no files plans the built-in example, verified."""
    buf = io.StringIO()
    assert main(["plan", "--json"], stdout=buf) == 0
    d = json.loads(buf.getvalue())
    assert d["verified"] is True
    assert d["scale_up"]["nodes_to_add"]
    assert d["scale_down"]["removable"]
    assert "default/ingest-0" in d["scale_up"]["unhelpable"]
