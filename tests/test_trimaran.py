"""TargetLoadPacking, LoadVariationRiskBalancing, LowRiskOverCommitment and Peaks: tables ported
from scheduler-plugins v0.34.7 (``pkg/trimaran/**/*_test.go``; their fake load-watcher is a real
HTTP server on 127.0.0.1 here), args decoding and defaults, and the metrics seam."""

from __future__ import annotations

import http.server
import json
import math
import threading
import warnings
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from schedframe import ConfigurationError, FakeClock, Node, PluginArgsError, Pod, SchedframeWarning
from schedframe.cache.snapshot import Snapshot
from schedframe.framework.args import decode_args
from schedframe.plugins.sigs import (
    AssignedPodsCache,
    LoadMetricsError,
    LoadWatcherClient,
    NodeMetricsSource,
    StaticMetricsProvider,
    WatcherMetrics,
    load_metrics_file,
)
from schedframe.plugins.sigs._beta import BetaDistribution, compute_probability, max_variance
from schedframe.plugins.sigs.low_risk_over_commitment import LowRiskOverCommitmentArgs, _Totals
from schedframe.plugins.sigs.target_load_packing import TargetLoadPackingArgs
from schedframe.testing import PluginHarness

MI = 1024 * 1024
_node = Node.from_manifest
_pod = Pod.from_manifest


class Watcher:
    """A load-watcher on 127.0.0.1: ``GET /watcher`` answers ``response`` (JSON) with ``status``."""

    def __init__(self) -> None:
        self.response: Any = {}
        self.status = 200
        self.requests = 0
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.requests += 1
                body = json.dumps(outer.response).encode()
                self.send_response(outer.status if self.path == "/watcher" else 404)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture
def watcher() -> Iterator[Watcher]:
    w = Watcher()
    try:
        yield w
    finally:
        w.close()


def node(name: str = "node-1", cpu: str = "1000m", memory: str = "1Gi") -> dict[str, Any]:
    return {"metadata": {"name": name}, "status": {"capacity": {"cpu": cpu, "memory": memory}}}


def pod(*containers: dict[str, Any], overhead: dict[str, str] | None = None, init: list[Any] | None = None,
        name: str = "p", node_name: str = "") -> Any:
    """A pod (no container at all by default, as upstream's ``st.MakePod()``)."""
    spec: dict[str, Any] = {"containers": list(containers) or [{"name": "c"}]}
    if overhead:
        spec["overhead"] = overhead
    if init:
        spec["initContainers"] = init
    if node_name:
        spec["nodeName"] = node_name
    made = _pod({"metadata": {"name": name, "uid": name}, "spec": spec})
    return made if containers else made.evolve(containers=())


def container(requests: dict[str, str] | None = None, limits: dict[str, str] | None = None,
              name: str = "c") -> dict[str, Any]:
    return {"name": name, "resources": {"requests": requests or {}, "limits": limits or {}}}


def metrics(node_metrics: dict[str, list[tuple[str, str, float]]], end: int = 0) -> dict[str, Any]:
    return {"window": {"start": 0, "end": end},
            "data": {"NodeMetricsMap": {
                n: {"metrics": [{"type": t, "operator": o, "value": v} for t, o, v in ms]}
                for n, ms in node_metrics.items()}}}


# -- TargetLoadPacking (targetloadpacking_test.go TestTargetLoadPackingScoring) ------------------

TLP_CASES = [
    ("new node", pod(), [("CPU", "Latest", 0)], 40),
    ("hot node", pod(), [("CPU", "Latest", 50)], 33),
    ("excess utilization returns min score",
     pod(container({"cpu": "1000m"}, {"cpu": "1000m"}), overhead={"cpu": "0"}), [("CPU", "Latest", 30)], 0),
    ("404 resp from watcher", pod(), None, 0),
]


@pytest.mark.parametrize(("case", "p", "ms", "want"), TLP_CASES, ids=[c[0] for c in TLP_CASES])
def test_target_load_packing_table(watcher: Watcher, case: str, p: Any, ms: Any, want: int) -> None:
    watcher.response = metrics({"node-1": ms}) if ms is not None else {}
    h = PluginHarness("TargetLoadPacking", {"watcherAddress": watcher.url, "targetUtilization": 40,
                                            "defaultRequestsMultiplier": "1.5"}, nodes=[node()])
    assert h.score(p) == {"node-1": want}


def test_target_load_packing_prediction_and_penalty(watcher: Watcher) -> None:
    # 4 cores at 20%: 800m used. A container with a 200m request and no limit predicts 300m
    # (x1.5), one with a 500m limit predicts 500m, one with nothing the default 1000m: 1800m more.
    watcher.response = metrics({"node-1": [("CPU", "AVG", 20)]})
    h = PluginHarness("TargetLoadPacking", {"watcherAddress": watcher.url}, nodes=[node(cpu="4")])
    p = pod(container({"cpu": "200m"}, name="a"), container(limits={"cpu": "500m"}, name="b"),
            container(name="c"))
    # predicted (800 + 1800) / 4000 = 65% > 40: round(40 * 35 / 60) = 23
    assert h.score(p) == {"node-1": 23}
    # below the target: (800 + 300) / 4000 = 27.5%: round(60 * 27.5 / 40 + 40) = 81
    assert h.score(pod(container({"cpu": "200m"}))) == {"node-1": 81}


def test_target_load_packing_args() -> None:
    args = decode_args(TargetLoadPackingArgs, {"metricProvider": {"type": "Prometheus", "address": "http://p:9090"}})
    assert (args.target_utilization, args.default_requests_multiplier) == (40, "1.5")
    assert args.default_requests == {"cpu": "1000m"}
    assert args.spec.metric_provider.insecure_skip_verify is True
    assert decode_args(TargetLoadPackingArgs, {"targetUtilization": -3}).target_utilization == 40
    assert decode_args(TargetLoadPackingArgs, {}).spec.metric_provider_type == "KubernetesMetricsServer"
    with pytest.raises(ConfigurationError, match="unable to parse DefaultRequestsMultiplier"):
        PluginHarness("TargetLoadPacking", {"watcherAddress": "http://x", "defaultRequestsMultiplier": "x1"})
    with pytest.raises(ConfigurationError, match=r"invalid MetricProvider\.Type, got Graphite"):
        PluginHarness("TargetLoadPacking", {"metricProvider": {"type": "Graphite"}})
    with pytest.raises(PluginArgsError, match="targetUtilisation"):
        decode_args(TargetLoadPackingArgs, {"targetUtilisation": 50})


def test_assigned_pods_since_the_metrics_count() -> None:
    """upstream's ScheduledPodsCache: a pod assigned after the window's end, or less than 60 s
    before it, adds its predicted CPU to the node's stale metrics."""
    clock = FakeClock(1000.0)
    n = node(cpu="4")
    old = pod(container({"cpu": "1"}), name="old", node_name="node-1")
    before = Snapshot.from_objects([_node(n)], [old])
    handle = SimpleNamespace(clock=clock, snapshot_shared_lister=lambda: before)
    cache = AssignedPodsCache(handle)  # type: ignore[arg-type]
    ni = before.node_infos().get("node-1")
    assert ni is not None
    assert cache.recent(ni, window_end=900) == []  # there when the cache started: in the metrics
    clock.set(1010.0)
    after = Snapshot.from_objects(
        [_node(n)], [(pod(container({"cpu": "1"}), name=x, node_name="node-1")) for x in ("old", "new")])
    ni2 = after.node_infos().get("node-1")
    assert ni2 is not None
    assert [p.name for p in cache.recent(ni2, window_end=990)] == ["new"]  # 20 s before the end
    clock.set(1100.0)
    assert [p.name for p in cache.recent(ni2, window_end=1060)] == ["new"]  # 50 s before the end
    assert cache.recent(ni2, window_end=1070) == []  # 60 s before the end: in the metrics
    assert cache.recent(ni, window_end=0) == []  # deleted from the node: dropped


# -- LoadVariationRiskBalancing (loadvariationriskbalancing_test.go TestScore) --------------------

def lvrb_pod(cpu: int, mem: int) -> dict[str, Any]:
    return pod(container({"cpu": f"{cpu}m", "memory": str(mem)}, {"cpu": f"{cpu}m", "memory": str(mem)}),
               init=[container({"cpu": "0", "memory": "0"}, name="test-init")], overhead={"cpu": "0"})


LVRB_CASES = [
    ("new node", pod(), [("CPU", "AVG", 50)], 75),
    ("hot node", pod(), [("CPU", "AVG", 100)], 50),
    ("average and stDev metrics", lvrb_pod(200, 256 * MI), [("CPU", "AVG", 30), ("CPU", "STD", 16)], 67),
    ("CPU and Memory metrics", lvrb_pod(100, 512 * MI),
     [("CPU", "AVG", 40), ("CPU", "STD", 16), ("Memory", "AVG", 50), ("Memory", "STD", 10)], 45),
    ("pick worst case: CPU or Memory", lvrb_pod(100, 512 * MI),
     [("CPU", "AVG", 80), ("CPU", "STD", 20), ("Memory", "AVG", 25), ("Memory", "STD", 15)], 45),
    ("404 resp from watcher", pod(), None, 0),
]


@pytest.mark.parametrize(("case", "p", "ms", "want"), LVRB_CASES, ids=[c[0] for c in LVRB_CASES])
def test_load_variation_risk_balancing_table(watcher: Watcher, case: str, p: Any, ms: Any, want: int) -> None:
    watcher.response = metrics({"node-1": ms}) if ms is not None else {}
    h = PluginHarness("LoadVariationRiskBalancing", {"watcherAddress": watcher.url, "safeVarianceMargin": 1,
                                                     "safeVarianceSensitivity": 1}, nodes=[node()])
    assert h.score(p) == {"node-1": want}


def test_load_variation_risk_balancing_args(watcher: Watcher) -> None:
    # bad arguments are replaced by the defaults (TestNew)
    h = PluginHarness("LoadVariationRiskBalancing", {"watcherAddress": watcher.url, "safeVarianceMargin": -5,
                                                     "safeVarianceSensitivity": -1})
    assert h.plugin.args.safe_variance_margin == 1.0  # type: ignore[attr-defined]
    assert h.plugin.args.safe_variance_sensitivity == 1.0  # type: ignore[attr-defined]
    # margin 3, sensitivity 2: sigma 0.16 -> 3 * sqrt(0.16) = 1.2, clamped to 1: (1 - (0.5 + 1) / 2) * 100
    watcher.response = metrics({"node-1": [("CPU", "AVG", 30), ("CPU", "STD", 16)]})
    h = PluginHarness("LoadVariationRiskBalancing", {"watcherAddress": watcher.url, "safeVarianceMargin": 3,
                                                     "safeVarianceSensitivity": 2}, nodes=[node()])
    assert h.score(lvrb_pod(200, 256 * MI)) == {"node-1": 25}


# -- LowRiskOverCommitment (lowriskovercommitment_test.go, beta_test.go) ---------------------------

def test_low_risk_over_commitment_best_effort_pod_scores_min(watcher: Watcher) -> None:
    watcher.response = metrics({"node-1": [("CPU", "AVG", 20)]})
    args = {"watcherAddress": watcher.url, "smoothingWindowSize": 5,
            "riskLimitWeights": {"cpu": 0.5, "memory": 0.5}}
    h = PluginHarness("LowRiskOverCommitment", args, nodes=[node()])
    assert h.score(pod()) == {"node-1": 0}


@pytest.mark.parametrize(("resource", "totals", "want"), [
    ("cpu", _Totals(2000, 3000, 1000, 2000, 4000), 0.5),
    ("memory", _Totals(2048, 6144, 0, 0, 4096), 0.25),
    ("cpu", _Totals(4000, 5000, 3000, 4000, 4000), 1.0),
    ("memory", _Totals(1024, 7168, 512, 6144, 4096), 0.75),
], ids=["test-cpu-1", "test-mem-1", "test-cpu-2", "test-mem-2"])
def test_low_risk_over_commitment_compute_risk(resource: str, totals: _Totals, want: float) -> None:
    source = NodeMetricsSource(StaticMetricsProvider(metrics({"node-a": [
        ("CPU", "AVG", 80), ("CPU", "STD", 0), ("Memory", "AVG", 25), ("Memory", "STD", 0)]})))
    h = PluginHarness("LowRiskOverCommitment", {"smoothingWindowSize": 5},
                      nodes=[node("node-a", "4000m", "4Ki")], objects=[source])
    ni = h.snapshot.node_infos().get("node-a")
    assert ni is not None
    ms = source.provider.watcher_metrics().nodes["node-a"]
    got = h.plugin._risk(ms, ni, "CPU" if resource == "cpu" else "Memory", resource, totals)  # type: ignore[attr-defined]
    assert got == want


def test_low_risk_over_commitment_scores(watcher: Watcher) -> None:
    # a 1-core node at 20% +- 5%, with a pod requesting 500m (limit 1): limits 1000m <= capacity,
    # no limit risk; load risk from a beta fit of (0.2, 0.05 * sqrt(5)) below 0 requested.
    watcher.response = metrics({"node-1": [("CPU", "AVG", 20), ("CPU", "STD", 5)]})
    h = PluginHarness("LowRiskOverCommitment", {"watcherAddress": watcher.url}, nodes=[node()],
                      pods=[pod(container({"cpu": "300m"}, {"cpu": "400m"}), name="q", node_name="node-1")])
    s = h.score(pod(container({"cpu": "500m"}, {"cpu": "600m"})))["node-1"]
    # by hand: mu 0.2, sigma min(0.05 * sqrt 5, sqrt(0.99 * 0.16)); P(load <= 0.3) / P(load <= 0.4)
    sigma = min(0.05 * math.sqrt(5), math.sqrt(0.99 * 0.2 * 0.8))
    p_alloc, dist = compute_probability(0.2, sigma, 0.3)
    assert dist is not None
    risk = 0.5 * (1 - min(p_alloc / dist.cdf(0.4), 1.0))
    assert s == round((1 - risk) * 100)
    assert 0 < s < 100


def test_beta_distribution() -> None:
    b = BetaDistribution(2, 2)
    assert b.cdf(0.5) == pytest.approx(0.5, abs=1e-9)
    assert (b.cdf(0.0), b.cdf(1.0)) == (0.0, 1.0)
    assert BetaDistribution(-1, 1).cdf(0.5) == 0.0
    # beta(2, 3): I_0.3 = 0.3483
    assert BetaDistribution(2, 3).cdf(0.3) == pytest.approx(0.3483, abs=1e-12)
    fit = BetaDistribution()
    assert fit.match_moments(0.5, 0.3)  # beta(2, 2): mean 0.5, E[X^2] 0.3
    assert fit.alpha == pytest.approx(2.0)
    assert fit.beta == pytest.approx(2.0)
    assert not fit.match_moments(0.5, 0.5)  # variance 0.25 >= m1 (1 - m1)
    assert max_variance(0.5) == 0.25
    assert max_variance(1.0) == 0.0
    assert compute_probability(0, 0.1, 0.5) == (1.0, None)
    assert compute_probability(0.6, 0, 0.5) == (0.0, None)


def test_low_risk_over_commitment_args() -> None:
    a = decode_args(LowRiskOverCommitmentArgs, {"smoothingWindowSize": -5,
                                             "riskLimitWeights": {"cpu": 2, "memory": 0.2}})
    assert a.smoothing_window_size == 5
    assert a.risk_limit_weights == {"cpu": 0.5, "memory": 0.2}
    assert decode_args(LowRiskOverCommitmentArgs, {}).risk_limit_weights == {"cpu": 0.5, "memory": 0.5}


# -- Peaks (peaks_test.go) ------------------------------------------------------------------------

MODELS = {"node-1": {"k0": 100, "k1": 2.5, "k2": 0.02}, "node-2": {"k0": 100, "k1": 1.0, "k2": 0.03}}


@pytest.mark.parametrize(("case", "p", "ms", "want"), [
    ("no CPU metrics found", pod(container({"cpu": "1", "memory": "2"})), [("Memory", "Latest", 0)], 0),
    ("pod above the node's capacity", pod(container({"cpu": "1", "memory": "2"})),
     [("CPU", "Latest", 100)], 0),
    ("404 resp from watcher", pod(), None, 0),
])
def test_peaks_min_score_cases(watcher: Watcher, case: str, p: Any, ms: Any, want: int) -> None:
    watcher.response = metrics({"node-1": ms}) if ms is not None else {}
    h = PluginHarness("Peaks", {"WatcherAddress": watcher.url, "NodePowerModel": MODELS},
                      nodes=[node(cpu="2")])
    assert h.score(p) == {"node-1": want}


def test_peaks_prefers_the_smallest_power_jump(watcher: Watcher) -> None:
    watcher.response = metrics({"node-1": [("CPU", "Latest", 10)], "node-2": [("CPU", "Latest", 10)],
                                "node-3": [("CPU", "Latest", 10)]})
    nodes = [node("node-1", "2"), node("node-2", "2"), node("node-3", "2")]
    h = PluginHarness("Peaks", {"WatcherAddress": watcher.url, "NodePowerModel": MODELS}, nodes=nodes)
    p = pod(container({"cpu": "1"}))
    raw = {}
    for n in ("node-1", "node-2"):
        k1, k2 = MODELS[n]["k1"], MODELS[n]["k2"]
        raw[n] = int(k1 * (math.exp(k2 * 60) - math.exp(k2 * 10)) * 1e15)
    raw["node-3"] = 0  # no model: the zero model
    lo, hi = min(raw.values()), max(raw.values())
    assert h.score(p) == {n: 100 - int(100 * (v - lo) / (hi - lo)) for n, v in raw.items()}
    assert h.score(p)["node-3"] == 100


def test_peaks_power_model_file(watcher: Watcher, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "power.json"
    f.write_text(json.dumps(MODELS))
    monkeypatch.setenv("NODE_POWER_MODEL", str(f))
    h = PluginHarness("Peaks", {"WatcherAddress": watcher.url})
    assert h.plugin.power_models["node-2"].k2 == 0.03  # type: ignore[attr-defined]
    f.write_text(json.dumps({"node-1": {"k0": 1, "k3": 2}}))
    with pytest.raises(ConfigurationError, match="unknown field"):
        PluginHarness("Peaks", {"WatcherAddress": watcher.url})
    monkeypatch.setenv("NODE_POWER_MODEL", str(tmp_path / "missing.json"))
    with pytest.raises(ConfigurationError, match="unable to read the power model file"):
        PluginHarness("Peaks", {"WatcherAddress": watcher.url})
    with pytest.raises(ConfigurationError, match=r"invalid MetricProvider\.Type, got $"):
        PluginHarness("Peaks", {"NodePowerModel": MODELS})


# -- the metrics seam ----------------------------------------------------------------------------

def test_watcher_errors_keep_min_scores_and_warn_once(watcher: Watcher) -> None:
    watcher.status = 500
    h = PluginHarness("TargetLoadPacking", {"watcherAddress": watcher.url}, nodes=[node(), node("node-2")])
    with pytest.warns(SchedframeWarning, match="received status code 500 from watcher") as rec:
        assert h.score(pod()) == {"node-1": 0, "node-2": 0}
    assert len(rec) == 1
    with pytest.raises(LoadMetricsError, match="received status code 500"):
        LoadWatcherClient(watcher.url).watcher_metrics()
    with pytest.raises(LoadMetricsError, match="want an http"):
        LoadWatcherClient("deadbeef:2020").watcher_metrics()


def test_metrics_refresh_every_30_seconds(watcher: Watcher) -> None:
    watcher.response = metrics({"node-1": [("CPU", "Latest", 0)]})
    clock = FakeClock(0.0)
    h = PluginHarness("TargetLoadPacking", {"watcherAddress": watcher.url}, nodes=[node(cpu="10")],
                      clock=clock)
    # 1 core requested predicts 1500m: 15%: round(60 * 15 / 40 + 40)
    assert h.score(pod(container({"cpu": "1"}))) == {"node-1": 63}
    watcher.response = metrics({"node-1": [("CPU", "Latest", 30)]})
    clock.step(29)
    assert h.score(pod(container({"cpu": "1"}))) == {"node-1": 63}  # not refreshed yet
    clock.step(1)
    assert h.score(pod(container({"cpu": "1"}))) == {"node-1": 37}  # 45%: round(40 * 55 / 60)
    assert watcher.requests == 2


def test_a_source_object_replaces_the_named_provider_and_says_so() -> None:
    source = NodeMetricsSource(StaticMetricsProvider(metrics({"node-1": [("CPU", "AVG", 50)]})), name="sim")
    args = {"metricProvider": {"type": "Prometheus", "address": "http://prometheus:9090"}}
    h = PluginHarness("LoadVariationRiskBalancing", args, nodes=[node()], objects=[source])
    with pytest.warns(SchedframeWarning, match="metricProvider Prometheus at http://prometheus:9090.*'sim'"):
        assert h.score(pod()) == {"node-1": 75}
    with warnings.catch_warnings():  # the default provider (nothing named): silent
        warnings.simplefilter("error")
        quiet = PluginHarness("LoadVariationRiskBalancing", None, nodes=[node()], objects=[source])
        assert quiet.score(pod()) == {"node-1": 75}
    h = PluginHarness("LoadVariationRiskBalancing", args, nodes=[node()])
    with pytest.warns(SchedframeWarning, match="schedframe does not do"):
        assert h.score(pod()) == {"node-1": 0}


def test_metrics_file(tmp_path: Any) -> None:
    f = tmp_path / "metrics.yaml"
    f.write_text("window: {duration: 15m, start: 0, end: 900}\nsource: Prometheus\n"
                 "data:\n  NodeMetricsMap:\n    node-1:\n      metrics:\n"
                 "      - {type: CPU, operator: AVG, value: 42.5}\n")
    pytest.importorskip("yaml")
    wm = load_metrics_file(str(f)).watcher_metrics()
    assert wm.window_end == 900
    assert wm.nodes["node-1"][0].value == 42.5
    assert WatcherMetrics.from_dict(wm.to_dict()) == wm
    g = tmp_path / "bad.json"
    g.write_text('{"data": {"NodeMetricsMap": {"n": {"metrics": [{"type": "CPU", "value": "x"}]}}}}')
    with pytest.raises(LoadMetricsError, match=r"data.NodeMetricsMap.n.metrics\[0\].value: want a number"):
        load_metrics_file(str(g))


def test_an_empty_watcher_address_is_not_defaulted_away() -> None:
    """upstream's SetDefaultTrimaranSpec defaults the provider type only when watcherAddress is
    absent (a nil pointer): an explicit empty address leaves the type empty, and the collector's
    check then refuses it."""
    args = decode_args(TargetLoadPackingArgs, {"watcherAddress": ""}, validate=False)
    assert args.spec.metric_provider.type == ""
    with pytest.raises(PluginArgsError, match=r"invalid MetricProvider\.Type, got $"):
        decode_args(TargetLoadPackingArgs, {"watcherAddress": ""})
    assert decode_args(TargetLoadPackingArgs, {"watcherAddress": None}).spec.metric_provider.type == (
        "KubernetesMetricsServer")
