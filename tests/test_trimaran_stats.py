"""pkg/trimaran's shared arithmetic, ported from scheduler-plugins v0.34.7
(resourcestats_test.go, loadvariationriskbalancing/analysis_test.go)."""

from __future__ import annotations

import pytest

from schedframe import Node
from schedframe.cache.snapshot import Snapshot
from schedframe.framework.args import decode_args
from schedframe.plugins.sigs import Metric
from schedframe.plugins.sigs._load import effective_resource, go_round, resource_data
from schedframe.plugins.sigs.load_variation_risk_balancing import (
    ResourceStats,
    compute_score,
    mu_sigma,
    resource_stats,
)
from schedframe.plugins.sigs.target_load_packing import TargetLoadPackingArgs

METRICS = (
    Metric("CPU", "", 40, "no_name"),
    Metric("CPU", "AVG", 40, "cpu_running_avg"),
    Metric("CPU", "STD", 36, "cpu_running_std"),
    Metric("Memory", "AVG", 20, "mem_running_avg"),
    Metric("Memory", "STD", 10, "mem_running_std"),
)


def _node0() -> object:
    node = Node.from_manifest({"metadata": {"name": "node0"},
                               "status": {"capacity": {"cpu": "1000m", "memory": "1Gi"}}})
    ni = Snapshot.from_objects([node], []).node_infos().get("node0")
    assert ni is not None
    return ni


@pytest.mark.parametrize(("metrics", "resource", "want"), [
    (METRICS, "CPU", ResourceStats(used_avg=400, used_stdev=360, req=100, capacity=1000)),
    (METRICS[3:], "CPU", None),
    (METRICS, "Memory", ResourceStats(used_avg=204.8, used_stdev=102.4, req=1, capacity=1024)),
], ids=["test-cpu", "test-missing", "test-memory"])
def test_create_resource_stats(metrics: tuple[Metric, ...], resource: str,
                              want: ResourceStats | None) -> None:
    got = resource_stats(metrics, _node0(), 100, 1024 * 1024, resource)  # type: ignore[arg-type]
    assert got == want


def test_get_resource_data() -> None:
    assert resource_data(METRICS, "CPU") == (40, 36, True)
    assert resource_data([Metric("CPU", "Latest", 25)], "CPU") == (25, 0, True)
    # an AVG wins over a Latest whatever the order
    assert resource_data([Metric("CPU", "AVG", 30), Metric("CPU", "Latest", 25)], "CPU") == (30, 0, True)
    assert resource_data(METRICS, "Bandwidth") == (0, 0, False)


@pytest.mark.parametrize(("rs", "mu", "sigma"), [
    (ResourceStats(400, 360, 100, 1000), 0.5, 0.36),
    (ResourceStats(0, 0, 0, 0), 0, 0),
    (ResourceStats(1400, 300, 100, 1000), 1.0, 0.3),
    (ResourceStats(400, 1600, 100, 1000), 0.5, 1.0),
    (ResourceStats(1400, 1600, 0, 1000), 1.0, 1.0),
    (ResourceStats(-100, 200, 0, 1000), 0.0, 0.2),
    (ResourceStats(0, -200, 400, 1000), 0.4, 0.0),
], ids=["proper arguments", "zero arguments", "large used", "large deviation", "large arguments",
        "negative used", "negative deviation"])
def test_get_mu_sigma(rs: ResourceStats, mu: float, sigma: float) -> None:
    assert mu_sigma(rs) == (mu, sigma)


@pytest.mark.parametrize(("margin", "sensitivity", "rs", "want"), [
    (1, 1, ResourceStats(40, 36, 10, 100), 57),
    (1, 2, ResourceStats(40, 36, 10, 0), 0),
    (1, 2, ResourceStats(-40, 36, 10, 100), 65),
    (1, 2, ResourceStats(200, 36, 10, 100), 20),
    (1, 2, ResourceStats(40, -36, 10, 100), 75),
    (1, 2, ResourceStats(40, 120, 10, 100), 25),
    (-1, 1, ResourceStats(40, 36, 10, 100), 75),
    (1, -1, ResourceStats(40, 36, 10, 100), 57),
    (1, 0, ResourceStats(40, 36, 10, 100), 75),
], ids=["valid data", "zero capacity", "negative usedAvg", "large usedAvg", "negative usedStdev",
        "large usedStdev", "negative margin", "negative sensitivity", "zero sensitivity"])
def test_compute_score(margin: float, sensitivity: float, rs: ResourceStats, want: int) -> None:
    assert go_round(compute_score(rs, margin, sensitivity)) == want


def test_effective_resource() -> None:
    """GetResourceRequested / GetResourceLimits: containers summed, init containers a floor,
    overhead added."""
    from schedframe import Pod

    pod = Pod.from_manifest({"metadata": {"name": "p"}, "spec": {
        "initContainers": [{"name": "i", "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}}],
        "containers": [{"name": "a", "resources": {"requests": {"cpu": "500m", "memory": "2Gi"},
                                                   "limits": {"cpu": "1", "memory": "2Gi"}}},
                       {"name": "b", "resources": {"requests": {"cpu": "500m"}}}],
        "overhead": {"cpu": "100m", "memory": "1Mi"}}})
    assert effective_resource(pod, limits=False) == (2100, (2 << 30) + (1 << 20))
    assert effective_resource(pod, limits=True) == (1100, (2 << 30) + (1 << 20))


def test_target_load_packing_multiplier_parses_as_go() -> None:
    assert decode_args(TargetLoadPackingArgs, {"defaultRequestsMultiplier": "2.5e0"}).multiplier() == 2.5
    for bad in (" 1", "1_0", "abc", ""):
        args = decode_args(TargetLoadPackingArgs, {"defaultRequestsMultiplier": bad}, validate=False)
        with pytest.raises(ValueError, match="unable to parse DefaultRequestsMultiplier"):
            args.multiplier()


@pytest.mark.parametrize("module", ["target_load_packing", "load_variation_risk_balancing",
                                    "low_risk_over_commitment", "peaks"])
def test_load_aware_factories_decode_args_alike(module: str) -> None:
    """Each load-aware factory refuses args of another type with PluginArgsError naming the
    plugin; the Trimaran ones take None (their defaults) and their args object."""
    import importlib

    from schedframe import PluginArgsError

    mod = importlib.import_module(f"schedframe.plugins.sigs.{module}")
    if module != "peaks":  # Peaks has no valid defaults: it needs a metrics provider
        plugin = mod.new(None, None)
        assert mod.new(plugin.args, None).args is plugin.args
    with pytest.raises(PluginArgsError, match=mod.NAME):
        mod.new(42, None)
