"""The GPU-sharing resource model: pod requests from annotations, node GPU state derived from a
NodeInfo and the ledger's GPU choices, and the GPU selections."""

from __future__ import annotations

import random

import pytest

from schedframe import NodeInfo
from schedframe.errors import GpuShareError
from schedframe.gpushare import (
    ANNOTATION_GPU_COUNT,
    ANNOTATION_GPU_INDEX,
    ANNOTATION_GPU_MILLI,
    ANNOTATION_GPU_MODEL,
    GpuLedger,
    GpuRequest,
    gpu_request,
)
from schedframe.gpushare._model import best_fit_ids, exclusive_ids, random_fit_ids, worst_fit_ids
from schedframe.gpushare.openb import TraceNode, TraceTask


def _pod(name: str, milli: int, count: int, cpu: int = 1000, models: tuple[str, ...] = ()):
    return TraceTask(name, cpu, 1024, count, milli, models).to_pod()


def _node(gpus: int = 4, model: str = "T4", cpu: int = 32000):
    return TraceNode("n1", cpu, 65536, gpus, model).to_node()


@pytest.mark.parametrize(
    ("annotations", "want"),
    [
        pytest.param({}, GpuRequest(1000), id="no annotations"),
        pytest.param({ANNOTATION_GPU_MILLI: "500", ANNOTATION_GPU_COUNT: "1"}, GpuRequest(1000, 500, 1),
                     id="share"),
        pytest.param({ANNOTATION_GPU_MILLI: "1000", ANNOTATION_GPU_COUNT: "4"}, GpuRequest(1000, 1000, 4),
                     id="whole GPUs"),
        pytest.param({ANNOTATION_GPU_MILLI: "0", ANNOTATION_GPU_COUNT: "2"}, GpuRequest(1000),
                     id="zero milli"),
        pytest.param({ANNOTATION_GPU_MILLI: "300", ANNOTATION_GPU_COUNT: "1",
                      ANNOTATION_GPU_MODEL: "A10||V100M16|A10"}, GpuRequest(1000, 300, 1, ("A10", "V100M16")),
                     id="models"),
    ],
)
def test_gpu_request(annotations, want) -> None:
    """The request is read from the annotations, with the pod's CPU."""
    from schedframe.testing import make_pod

    pod = make_pod("p").req(cpu="1").obj()
    pod = pod.evolve(annotations=annotations)
    assert gpu_request(pod) == want


@pytest.mark.parametrize(
    ("annotations", "path"),
    [
        pytest.param({ANNOTATION_GPU_MILLI: "x", ANNOTATION_GPU_COUNT: "1"}, ANNOTATION_GPU_MILLI,
                     id="not int"),
        pytest.param({ANNOTATION_GPU_MILLI: "1500", ANNOTATION_GPU_COUNT: "1"}, ANNOTATION_GPU_MILLI,
                     id="over 1000"),
        pytest.param({ANNOTATION_GPU_MILLI: "500", ANNOTATION_GPU_COUNT: "2"}, ANNOTATION_GPU_COUNT,
                     id="share of two"),
        pytest.param({ANNOTATION_GPU_MILLI: "500", ANNOTATION_GPU_COUNT: "-1"}, ANNOTATION_GPU_COUNT,
                     id="negative"),
    ],
)
def test_gpu_request_errors(annotations, path) -> None:
    """Malformed annotations raise GpuShareError naming the pod and the annotation."""
    from schedframe.testing import make_pod

    pod = make_pod("p").obj().evolve(annotations=annotations)
    with pytest.raises(GpuShareError) as info:
        gpu_request(pod)
    assert info.value.path == f"default/p: metadata.annotations[{path!r}]"


def test_state_follows_pods_and_ledger() -> None:
    """Per-GPU usage comes from the ledger's choices for the node's pods; a new generation is derived
    again, an unchanged one is remembered, and pods that left drop out of the ledger."""
    ledger = GpuLedger()
    a, b, c = _pod("a", 300, 1), _pod("b", 1000, 2), _pod("c", 0, 0, cpu=2000)
    ledger.reserve(a, "n1", (2,))
    ledger.reserve(b, "n1", (0, 3))
    ni = NodeInfo(_node(), [a, b, c])
    st = ledger.state(ni)
    assert st.lefts == (0, 1000, 700, 0)
    assert st.sorted_lefts == (1000, 700, 0, 0)
    assert (st.total_left, st.full_free, st.count, st.model) == (1700, 1, 4, "T4")
    assert st.cpu_left == 32000 - 1000 - 1000 - 2000
    assert st.affinity == {"share-gpu": 1, "2-gpu": 1}
    assert ledger.state(ni) is st
    ni.remove_pod(b)
    st2 = ledger.state(ni)
    assert st2 is not st
    assert st2.lefts == (1000, 1000, 700, 1000)
    assert b.uid not in ledger.assigned
    assert ledger.assigned[a.uid] == (2,)


def test_state_without_ledger_entry_uses_annotation_or_best_fit() -> None:
    """A bound pod the ledger never saw holds its annotated GPU index, else the best-fit GPU."""
    ledger = GpuLedger()
    a = _pod("a", 600, 1)
    a = a.evolve(annotations={**a.annotations, ANNOTATION_GPU_INDEX: "3"})
    b = _pod("b", 300, 1)
    st = ledger.state(NodeInfo(_node(), [a, b]))
    assert st.lefts == (1000, 1000, 1000, 100)  # b: the tightest fit, GPU 3 (400 left)
    assert ledger.assigned[b.uid] == (3,)


def test_states_batch_matches_state() -> None:
    """The batch lookup gives the same states as one by one, following replaced NodeInfos."""
    ledger = GpuLedger()
    nodes = [NodeInfo(TraceNode(f"n{i}", 8000, 1024, 2, "T4").to_node()) for i in range(5)]
    first = ledger.states(nodes)
    assert first == [ledger.state(n) for n in nodes]
    nodes[3] = nodes[3].clone()
    nodes[3].add_pod(_pod("x", 500, 1))
    again = ledger.states(nodes)
    assert again[3] is not first[3]
    assert again[3].total_left == 1500
    assert again[:3] == first[:3]


LEFTS = (1000, 400, 700, 1000, 400)


@pytest.mark.parametrize(
    ("select", "req", "want"),
    [
        pytest.param(best_fit_ids, GpuRequest(1, 300, 1), (1,), id="best share"),
        pytest.param(best_fit_ids, GpuRequest(1, 500, 1), (2,), id="best share 500"),
        pytest.param(worst_fit_ids, GpuRequest(1, 300, 1), (0,), id="worst share"),
        pytest.param(best_fit_ids, GpuRequest(1, 1000, 2), (0, 3), id="whole GPUs"),
        pytest.param(best_fit_ids, GpuRequest(1, 1000, 3), (), id="too many"),
        pytest.param(exclusive_ids, GpuRequest(1, 1000, 1), (0,), id="exclusive"),
    ],
)
def test_gpu_selection(select, req, want) -> None:
    """best: tightest fit, lowest index on ties; worst: loosest; whole GPUs: first free ones."""
    assert select(LEFTS, req) == want


def test_random_selection_covers_fitting_gpus() -> None:
    """random picks among the GPUs that fit, each of them sometimes."""
    rng = random.Random(1)
    seen = {random_fit_ids(LEFTS, GpuRequest(1, 500, 1), rng) for _ in range(200)}
    assert seen == {(0,), (2,), (3,)}
