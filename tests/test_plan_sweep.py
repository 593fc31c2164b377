"""``plan`` as a sweep task: strategies and thresholds as grid axes, one flat row per plan."""

from __future__ import annotations

import concurrent.futures

from schedframe.plan import plan, sweep_task
from schedframe.sweep import SweepSpec, sweep
from schedframe.sweep._runner import execute


def test_sweep_task_row_matches_plan() -> None:
    row = sweep_task(strategy="most-pods", scale_down=True)
    assert row["verified"] is True
    assert row["nodes_added"] == sum(v for k, v in row.items() if k.startswith("add."))
    assert row["nodes_added"] > 0
    assert row["nodes_removed"] >= 1
    # the same as calling plan on the built-in example
    from schedframe.api.manifests import object_from_manifest
    from schedframe.plan import EXAMPLE_CONFIG, example_cluster, example_templates, templates_from_data

    r = plan([object_from_manifest(m) for m in example_cluster()],
             templates_from_data(example_templates()), config=EXAMPLE_CONFIG,
             strategy="most-pods", scale_down=True)
    assert r.scale_up is not None
    assert r.scale_down is not None
    assert row["nodes_added"] == r.scale_up.node_count
    assert row["removable"] == " ".join(r.scale_down.removable)
    assert row["cost"] == r.scale_up.cost


def test_plan_is_a_builtin_sweep_task_with_grid_axes() -> None:
    spec = SweepSpec.from_dict({"task": "plan", "fixed": {"scale_down": True},
                                "grid": {"strategy": ["least-waste", "price"],
                                         "threshold": [0.3, 0.9]}})
    assert len(spec) == 4
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        result = sweep(spec, executor=pool, progress=False)
    assert not result.failed
    rows = result.rows()
    assert [(r["strategy"], r["threshold"]) for r in rows] == [
        ("least-waste", 0.3), ("least-waste", 0.9), ("price", 0.3), ("price", 0.9)]
    assert all(r["verified"] is True and r["task"] == "plan" for r in rows)
    # a higher utilisation threshold never makes fewer nodes removable
    by = {(r["strategy"], r["threshold"]): r for r in rows}
    for s in ("least-waste", "price"):
        assert by[(s, 0.9)]["nodes_removed"] >= by[(s, 0.3)]["nodes_removed"]


def test_bad_strategy_is_the_runs_error() -> None:
    spec = SweepSpec.from_dict({"task": "plan", "runs": [{"strategy": "cheapest"}]})
    out = execute(next(iter(spec)))
    assert out.error is not None
    assert "unknown strategy 'cheapest'" in out.error
