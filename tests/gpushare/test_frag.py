"""Typical pods, the fragmentation measure and the FGD score, against hand-computed cases."""

from __future__ import annotations

import pytest

from schedframe.gpushare import FragModel, GpuRequest, NodeGpu, TypicalPod, fgd_score, typical_pods

A = GpuRequest(4000, 500, 1)  # a half-GPU share
B = GpuRequest(8000, 1000, 1)  # one whole GPU
C = GpuRequest(2000)  # CPU only
MODEL = FragModel([TypicalPod(A, 0.5), TypicalPod(B, 0.3), TypicalPod(C, 0.2)])


def test_typical_pods_cover_the_popular_shapes() -> None:
    """Shapes by count (ties: larger first) until 95 % of pods, renormalised."""
    x, y, z, w = GpuRequest(1000, 1000, 1), GpuRequest(2000, 500, 1), GpuRequest(500), GpuRequest(600)
    pods = [x] * 5 + [y] * 3 + [z, w]
    got = typical_pods(pods)
    assert [tp.request for tp in got] == [x, y, w, z]
    assert [tp.weight for tp in got] == pytest.approx([0.5, 0.3, 0.1, 0.1])
    cut = typical_pods(pods, popularity=80)
    assert [tp.request for tp in cut] == [x, y]
    assert [tp.weight for tp in cut] == pytest.approx([0.625, 0.375])
    assert [tp.request for tp in typical_pods(pods, include_cpu_pods=False)] == [x, y]


@pytest.mark.parametrize(
    ("lefts", "cpu_left", "want"),
    [
        # A: Q3, GPU1 (300) too small -> 0.5*300; B: Q4 (CPU) -> 0.3*1300; C: XL -> 0.2*1300
        pytest.param((1000, 300), 6000, 150 + 390 + 260, id="lack cpu for B"),
        # A: 0.5*300; B: Q3, GPU1 too small -> 0.3*300; C: 0.2*1300
        pytest.param((1000, 300), 16000, 150 + 90 + 260, id="all fit"),
        # A: Q3 small 300 -> 150; B: Q2 lack GPU -> 0.3*800; C: 0.2*800
        pytest.param((500, 300), 12000, 150 + 240 + 160, id="lack gpu for B"),
        pytest.param((0, 0), 16000, 0.0, id="no free GPU"),
    ],
)
def test_node_fragmentation(lefts, cpu_left, want) -> None:
    """Hand-computed fragmentation of small nodes."""
    assert MODEL.frag("T4", lefts, cpu_left) == pytest.approx(want)


def test_fragmentation_counts_refused_models_whole() -> None:
    """A typical pod refusing the node's model counts all its free GPU milli."""
    model = FragModel([TypicalPod(GpuRequest(1000, 500, 1, ("A10",)), 1.0)])
    assert model.frag("T4", (1000, 600), 8000) == 1600
    assert model.frag("A10", (1000, 600), 8000) == 0


def _state(lefts, cpu_left):
    return NodeGpu("n", "T4", lefts, cpu_left, 32000)


def test_fgd_score_picks_the_gpu_reducing_fragmentation() -> None:
    """(1000, 600), 16 cores: before 500; A on GPU1 -> 300 (score int(100*sigmoid(0.2)) = 54), on
    GPU0 -> 550 (48): GPU 1 is chosen."""
    assert fgd_score(MODEL, _state((1000, 600), 16000), A) == (54, (1,))


def test_fgd_score_raising_fragmentation() -> None:
    """(1000, 300), 16 cores: before 500, A on GPU0 -> 550: int(100*sigmoid(-0.05)) = 48."""
    assert fgd_score(MODEL, _state((1000, 300), 16000), A) == (48, (0,))


def test_fgd_score_whole_gpu_and_cpu_pods() -> None:
    """Whole GPUs take the first free ones; a CPU pod changes only the CPU."""
    # B on (600, 1000, 1000): before: A Q3 0; B Q3 small 600 -> 180; C 0.2*2600 = 520 -> 700.
    # after (600, 0, 1000), cpu 8000: A Q3 0; B Q3 small 600 -> 180; C 0.2*1600 = 320 -> 500.
    score, ids = fgd_score(MODEL, _state((600, 1000, 1000), 16000), B)
    assert (score, ids) == (54, (1,))
    # C on (1000, 300) with 5000 CPU: before 800 (Q4 for B); after 3000 CPU: A Q4 -> 650,
    # B Q4 -> 390, C XL -> 260: 1300; int(100*sigmoid(-0.5)) = 37.
    assert fgd_score(MODEL, _state((1000, 300), 5000), C) == (37, ())
    assert fgd_score(MODEL, _state((1000, 300), 6000), C) == (50, ())  # A still fits: unchanged


def test_fragmentation_matches_the_artefacts_test_vector() -> None:
    """The artefact's TestNodeGpuShareFragAmountScore case with one typical pod (6 cores, 465 milli,
    9.33 %) on 4 GPUs (200, 1000, 1000, 500) and 1 free core: the pod lacks CPU, all 2,700 free
    milli count: 251.91."""
    model = FragModel([TypicalPod(GpuRequest(6000, 465, 1), 0.0933)])
    assert model.frag("1080", (200, 1000, 1000, 500), 1000) == pytest.approx(251.91, abs=0.01)
