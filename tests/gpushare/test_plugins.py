"""The gpushare plugins: hand-computed scores per scorer, OpenGpuShare's filter and GPU choice in a
real Scheduler (assume, Reserve, removal), batch paths equal to node-by-node calls."""

from __future__ import annotations

import pytest

from schedframe import CycleState, Scheduler, SchedulerConfiguration, Status
from schedframe.gpushare import (
    GpuRequest,
    NodeGpu,
    TypicalPod,
    gpushare_registry,
    ledger_of,
    scheduler_config,
)
from schedframe.gpushare.openb import TraceNode, TraceTask
from schedframe.gpushare.plugins import (
    ERR_INSUFFICIENT_GPU,
    ERR_NO_GPU,
    BestFitScore,
    best_fit_raw,
    clustering_score,
    dot_product_score,
    packing_score,
)


def _st(lefts, cpu_left=32000, affinity=None, model="T4"):
    return NodeGpu("n", model, lefts, cpu_left, 64000, affinity)


SHARE = GpuRequest(4000, 500, 1)


@pytest.mark.parametrize(
    ("state", "want"),
    [
        # (60000/128000 + 1500/8000) / 2 = 0.328125 -> 67
        pytest.param(_st((1000, 1000), 64000), 67, id="roomy"),
        # (4000/128000 + 100/8000) / 2 = 0.021875 -> 97
        pytest.param(_st((600,), 8000), 97, id="tight"),
        pytest.param(_st((400,), 8000), -1, id="does not fit"),
    ],
)
def test_best_fit_raw(state, want) -> None:
    """BestFit's raw score: 100 * (1 - the mean normalised leftover)."""
    assert best_fit_raw(state, SHARE) == want


def test_best_fit_normalises_min_max() -> None:
    """Lowest raw score -> 0, highest -> 100, in between by integer arithmetic; all equal -> 0."""
    plugin = BestFitScore(None, None)  # type: ignore[arg-type]
    assert plugin.normalize_score_ints(CycleState(), None, (), [67, 97, 85]) == [0, 100, 60]  # type: ignore[arg-type]
    assert plugin.normalize_score_ints(CycleState(), None, (), [5, 5]) == [0, 0]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("state", "req", "want"),
    [
        pytest.param(_st((1000,) * 4), SHARE, 29, id="idle node: 33 - 4"),
        pytest.param(_st((1000,)), SHARE, 32, id="idle 1-GPU node"),
        # GPU1 (400 free) takes the share: 100 - (40 // 10)
        pytest.param(_st((1000, 400, 1000)), GpuRequest(1, 300, 1), 96, id="share a used GPU"),
        pytest.param(_st((1000, 400, 1000)), SHARE, 49, id="one free GPU of a used node"),
        pytest.param(_st((1000, 400, 1000, 1000)), GpuRequest(1, 1000, 2), 48, id="two free GPUs"),
        pytest.param(_st((1000, 400)), GpuRequest(1, 1000, 2), 0, id="does not fit"),
        pytest.param(_st((1000, 400)), GpuRequest(1), 0, id="CPU pod"),
    ],
)
def test_packing_score(state, req, want) -> None:
    """GpuPacking: shared GPUs over free GPUs of used nodes over idle nodes."""
    assert packing_score(state, req) == want


@pytest.mark.parametrize(
    ("state", "req", "want"),
    [
        # 25 * (8000 - 1200) // 8000 = 21, + 75 for a node of shares only
        pytest.param(_st((200, 1000), affinity={"share-gpu": 2}), SHARE, 96, id="same kind only"),
        pytest.param(_st((200, 1000), affinity={"share-gpu": 2}), GpuRequest(1, 1000, 1), 21,
                     id="other kind only"),
        pytest.param(_st((1000, 1000)), SHARE, 43, id="idle node: 18 + 25"),
        pytest.param(_st((0, 500), affinity={"share-gpu": 1, "1-gpu": 1}), SHARE, 73, id="mixed: 23 + 50"),
        pytest.param(_st((1000, 1000)), GpuRequest(1), 0, id="CPU pod"),
    ],
)
def test_clustering_score(state, req, want) -> None:
    """GpuClustering: the pod's kind alone > among others > idle node > other kinds."""
    assert clustering_score(state, req) == want


def test_dot_product_score() -> None:
    """(0.5, 0.25) . (0.03125, 0.0625) / 2 = 0.015625 -> int(100 * 0.984375) = 98; no CPU -> 0."""
    assert dot_product_score(_st((1000, 1000), 64000), SHARE) == 98
    assert dot_product_score(_st((1000, 1000), 2000), SHARE) == 0


def _cluster(policy: str, nodes, *, typical=(), seed: int = 0, narrow: bool = False) -> Scheduler:
    sched = Scheduler(scheduler_config(policy, seed=seed, typical=typical, narrow=narrow), seed=seed,
                      registry=gpushare_registry())
    for n in nodes:
        sched.add_node(n.to_node())
    return sched


def _framework(sched: Scheduler):
    return next(iter(sched.frameworks.values()))


def test_filter_reasons() -> None:
    """No GPU, a refused model (unresolvable) and too little GPU (unschedulable) are told apart."""
    sched = _cluster("BestFit", [TraceNode("cpu", 8000, 1024, 0, ""), TraceNode("t4", 8000, 1024, 1, "T4"),
                                 TraceNode("a10", 8000, 1024, 1, "A10")])
    sched.add_pod(TraceTask("big", 1000, 10, 2, 1000).to_pod())
    sched.add_pod(TraceTask("a10only", 1000, 10, 1, 500, ("A10",)).to_pod())
    sched.run_until_idle()
    pending = {p.pod.name: p.message for p in sched.pending()}
    assert ERR_NO_GPU in pending["big"]
    assert ERR_INSUFFICIENT_GPU in pending["big"]
    assert sched.node_of("default/a10only") == "a10"


def test_narrowing_prefilter_keeps_the_nodes_filter_passes() -> None:
    """With narrow, PreFilter returns exactly the nodes Filter passes (all nodes: no result) and
    Skip for pods without GPUs; the pods then land only on such nodes."""
    nodes = [TraceNode(f"n{i}", 16000, 65536, (1, 2, 4)[i % 3], ("T4", "A10")[i % 2]) for i in range(9)]
    sched = _cluster("GpuPacking", nodes, narrow=True, seed=5)
    shapes = [((1, 1, 2, 0)[i % 4], (300, 1000, 1000, 0)[i % 4]) for i in range(30)]
    pods = [sched.add_pod(TraceTask(f"p{i}", 1000, 10, n, m).to_pod()) for i, (n, m) in enumerate(shapes)]
    sched.run_until_idle()
    assert any(sched.node_of(p) for p in pods)
    plugin = _framework(sched).get_plugin("OpenGpuShare")
    infos = [sched.cache.node_info(n.name) for n in nodes]
    for probe in (TraceTask("q", 1000, 10, 1, 700), TraceTask("r", 1000, 10, 2, 1000),
                  TraceTask("s", 1000, 10, 1, 300, ("A10",))):
        pod = probe.to_pod()
        result, status = plugin.pre_filter(CycleState(), pod, infos)
        passing = {n.name for n in infos if plugin.filter(CycleState(), pod, n) is None}
        assert status is None
        if len(passing) == len(infos):
            assert result is None
        else:
            assert result is not None
            assert result.node_names == passing
    _, status = plugin.pre_filter(CycleState(), TraceTask("c", 1000, 10, 0, 0).to_pod(), infos)
    assert status is not None
    assert status.is_skip()


def test_reserve_records_gpus_and_removal_frees_them() -> None:
    """Shares go to the chosen GPUs; the state seen by the next cycle includes them; a removed pod's
    GPU is free again and its ledger entry dropped."""
    sched = _cluster("GpuPacking", [TraceNode("n1", 64000, 65536, 2, "T4")])
    pods = [sched.add_pod(TraceTask(f"p{i}", 1000, 10, 1, 300).to_pod()) for i in range(3)]
    big = sched.add_pod(TraceTask("big", 1000, 10, 1, 1000).to_pod())
    sched.run_until_idle()
    ledger = ledger_of(_framework(sched))
    assert [ledger.assigned[p.uid] for p in pods] == [(0,), (0,), (0,)]
    assert ledger.assigned[big.uid] == (1,)
    info = sched.cache.node_info("n1")
    assert ledger.state(info).lefts == (100, 0)
    sched.remove_pod(pods[1])
    info = sched.cache.node_info("n1")
    assert ledger.state(info).lefts == (400, 0)
    assert pods[1].uid not in ledger.assigned
    late = sched.add_pod(TraceTask("late", 1000, 10, 1, 400).to_pod())
    sched.run_until_idle()
    assert sched.node_of(late) == "n1"
    assert ledger.assigned[late.uid] == (0,)


def test_unreserve_releases_the_gpus() -> None:
    """A pod rejected after Reserve (by a Permit plugin) leaves no GPU held."""
    from schedframe.testing import FakePermit

    registry = gpushare_registry()
    registry.register("Reject", lambda args, handle: FakePermit(Status.unschedulable("no"), name="Reject"))
    config = SchedulerConfiguration.from_dict({
        "percentageOfNodesToScore": 100,
        "profiles": [{"plugins": {"multiPoint": {"disabled": [{"name": "*"}], "enabled": [
            {"name": "PrioritySort"}, {"name": "OpenGpuShare"}, {"name": "DefaultBinder"},
            {"name": "Reject"}]}}}],
    }, registry=registry)
    sched = Scheduler(config, registry=registry)
    sched.add_node(TraceNode("n1", 8000, 1024, 1, "T4").to_node())
    pod = sched.add_pod(TraceTask("p", 1000, 10, 1, 500).to_pod())
    sched.schedule_one()
    assert sched.node_of(pod) is None
    assert pod.uid not in ledger_of(_framework(sched)).assigned


TYPICAL = (TypicalPod(GpuRequest(4000, 500, 1), 0.5), TypicalPod(GpuRequest(8000, 1000, 1), 0.3),
           TypicalPod(GpuRequest(2000), 0.2))


@pytest.mark.parametrize("policy", ["FGD", "BestFit", "GpuPacking", "GpuClustering", "DotProd", "Random"])
def test_batch_paths_match_node_by_node(policy) -> None:
    """filter_nodes / score_nodes give what filter / score give node by node, on varied nodes."""
    nodes = [TraceNode(f"n{i}", 8000 * (1 + i % 4), 65536, (1, 2, 4, 8)[i % 4], "T4") for i in range(12)]
    sched = _cluster(policy, nodes, typical=TYPICAL, seed=3)
    for i in range(20):
        sched.add_pod(TraceTask(f"p{i}", 1000 * (1 + i % 3), 10, 1, (300, 500, 1000, 700)[i % 4]).to_pod())
    sched.run_until_idle()
    fwk = _framework(sched)
    infos = [sched.cache.node_info(n.name) for n in nodes]
    gpu_plugin = fwk.get_plugin("OpenGpuShare")
    scorer_name = {"FGD": "FGDScore", "BestFit": "BestFitScore", "GpuPacking": "GpuPackingScore",
                   "GpuClustering": "GpuClusteringScore", "DotProd": "DotProductScore",
                   "Random": "RandomScore"}[policy]
    scorer = fwk.get_plugin(scorer_name)
    probes = (TraceTask("q", 2000, 10, 1, 400), TraceTask("r", 9000, 10, 2, 1000),
              TraceTask("s", 1000, 10, 0, 0))
    for probe in probes:
        pod = probe.to_pod()
        state = CycleState()
        batch = dict(gpu_plugin.filter_nodes(state, pod, infos))
        single = {i: s for i, n in enumerate(infos) if (s := gpu_plugin.filter(state, pod, n)) is not None}
        assert batch == single
        feasible = [n for i, n in enumerate(infos) if i not in single
                    and n.allocatable.milli_cpu - n.requested.milli_cpu >= probe.milli_cpu]
        assert feasible
        if policy == "Random":
            scorer.pre_score(state, pod, feasible)
        assert scorer.score_nodes(state, pod, feasible) == [scorer.score(state, pod, n)[0] for n in feasible]


def test_scheduler_tie_break_key_picks_the_smallest() -> None:
    """Scheduler(tie_break=key): among equally scored best nodes the one with the smallest key
    wins, every time; without it the choice varies."""
    nodes = [TraceNode(f"n{i}", 8000, 1024, 1, "T4") for i in range(6)]
    rank = {"n0": 5, "n1": 4, "n2": 0, "n3": 3, "n4": 1, "n5": 2}
    config = scheduler_config("GpuClustering")
    chosen = []
    for seed in range(3):
        sched = Scheduler(config, seed=seed, registry=gpushare_registry(), tie_break=rank.__getitem__)
        for n in nodes:
            sched.add_node(n.to_node())
        pod = sched.add_pod(TraceTask("p", 1000, 10, 0, 0).to_pod())  # CPU-only: every node scores 0
        sched.run_until_idle()
        chosen.append(sched.node_of(pod))
    assert chosen == ["n2", "n2", "n2"]
    spread = set()
    for seed in range(12):
        sched = _cluster("GpuClustering", nodes, seed=seed)
        pod = sched.add_pod(TraceTask("p", 1000, 10, 0, 0).to_pod())
        sched.run_until_idle()
        spread.add(sched.node_of(pod))
    assert len(spread) > 1
