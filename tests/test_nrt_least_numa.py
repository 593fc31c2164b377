"""NodeResourceTopologyMatch's LeastNUMANodes helpers: the tables of scheduler-plugins v0.34.7
``pkg/noderesourcetopology/least_numa_test.go`` (TestNUMANodesRequired, TestNormalizeScore)."""

from __future__ import annotations

from typing import Any

import pytest

from schedframe.api import Quantity
from schedframe.plugins.sigs._nrt_numa import NUMANode, normalize_least_numa, numa_nodes_required

CASES = [
    pytest.param(
        [(0, {"cpu": "8", "memory": "10Gi"}, {})],
        {"cpu": "2", "memory": "2Gi"},
        [0],
        True,
        id="simple case, fit on 1 NUMA node",
    ),
    pytest.param(
        [(0, {"cpu": "8", "memory": "10Gi"}, {}), (1, {"cpu": "8", "memory": "10Gi"}, {})],
        {"cpu": "12", "memory": "2Gi"},
        [0, 1],
        True,
        id="simple case, fit on 2 NUMA node",
    ),
    pytest.param(
        [(0, {"cpu": "8", "memory": "10Gi"}, {}), (1, {"cpu": "8", "memory": "10Gi"}, {})],
        {"cpu": "22", "memory": "2Gi"},
        None,
        False,
        id="can't fit",
    ),
    pytest.param(
        [
            (0, {"gpu": "1", "cpu": "4", "memory": "5Gi"}, {0: 10, 1: 12, 2: 20, 3: 20}),
            (1, {"gpu": "1", "cpu": "4", "memory": "5Gi"}, {0: 12, 1: 10, 2: 20, 3: 20}),
            (2, {"gpu": "0", "cpu": "4", "memory": "5Gi"}, {0: 20, 1: 20, 2: 10, 3: 12}),
            (3, {"gpu": "0", "cpu": "4", "memory": "5Gi"}, {0: 20, 1: 20, 2: 10, 3: 12}),
        ],
        {"cpu": "2", "memory": "2Gi", "gpu": "2"},
        [0, 1],
        True,
        id="4 NUMA node optimal distance",
    ),
    pytest.param(
        [
            (0, {"gpu": "1", "cpu": "4", "memory": "5Gi"}, {0: 10, 1: 12, 2: 20, 3: 20}),
            (1, {"gpu": "0", "cpu": "4", "memory": "5Gi"}, {0: 12, 1: 10, 2: 20, 3: 20}),
            (2, {"gpu": "1", "cpu": "4", "memory": "5Gi"}, {0: 20, 1: 20, 2: 10, 3: 12}),
            (3, {"gpu": "0", "cpu": "4", "memory": "5Gi"}, {0: 20, 1: 20, 2: 12, 3: 10}),
        ],
        {"cpu": "2", "memory": "2Gi", "gpu": "2"},
        [0, 2],
        False,
        id="4 NUMA node non optimal distance",
    ),
    pytest.param(
        [
            (
                0,
                {"gpu": "1", "cpu": "4", "memory": "5Gi"},
                {0: 10, 1: 20, 2: 40, 3: 30, 4: 20, 5: 30, 6: 50, 7: 40},
            ),
            (
                3,
                {"gpu": "1", "cpu": "4", "memory": "5Gi"},
                {0: 30, 1: 40, 2: 20, 3: 10, 4: 30, 5: 20, 6: 40, 7: 50},
            ),
            (
                5,
                {"gpu": "1", "cpu": "4", "memory": "5Gi"},
                {0: 30, 1: 20, 2: 50, 3: 20, 4: 50, 5: 10, 6: 50, 7: 40},
            ),
            (
                7,
                {"gpu": "1", "cpu": "4", "memory": "5Gi"},
                {0: 40, 1: 50, 2: 30, 3: 50, 4: 20, 5: 40, 6: 30, 7: 10},
            ),
            (
                1,
                {"gpu": "1", "cpu": "4", "memory": "5Gi"},
                {0: 20, 1: 10, 2: 30, 3: 40, 4: 50, 5: 20, 6: 40, 7: 50},
            ),
            (
                6,
                {"gpu": "1", "cpu": "4", "memory": "5Gi"},
                {0: 50, 1: 40, 2: 20, 3: 40, 4: 30, 5: 50, 6: 10, 7: 30},
            ),
            (
                2,
                {"gpu": "1", "cpu": "4", "memory": "5Gi"},
                {0: 40, 1: 30, 2: 10, 3: 20, 4: 40, 5: 50, 6: 20, 7: 30},
            ),
            (
                4,
                {"gpu": "1", "cpu": "4", "memory": "5Gi"},
                {0: 20, 1: 50, 2: 40, 3: 30, 4: 10, 5: 50, 6: 30, 7: 20},
            ),
        ],
        {"cpu": "3", "memory": "2Gi", "gpu": "3"},
        [0, 1, 5],
        True,
        id="8 NUMA node optimal distance, not sorted ids",
    ),
    pytest.param(
        [
            (
                0,
                {"gpu": "1", "cpu": "4", "memory": "5Gi"},
                {0: 10, 1: 20, 2: 40, 3: 30, 4: 20, 5: 30, 6: 50, 7: 40},
            ),
            (3, {"gpu": "1", "cpu": "4"}, {0: 30, 1: 40, 2: 20, 3: 10, 4: 30, 5: 20, 6: 40, 7: 50}),
            (5, {"gpu": "1", "cpu": "4"}, {0: 30, 1: 20, 2: 50, 3: 20, 4: 50, 5: 10, 6: 50, 7: 40}),
            (7, {"gpu": "1", "cpu": "4"}, {0: 40, 1: 50, 2: 30, 3: 50, 4: 20, 5: 40, 6: 30, 7: 10}),
            (1, {"gpu": "1", "cpu": "4"}, {0: 20, 1: 10, 2: 30, 3: 40, 4: 50, 5: 20, 6: 40, 7: 50}),
            (
                6,
                {"gpu": "1", "cpu": "4", "memory": "5Gi"},
                {0: 50, 1: 40, 2: 20, 3: 40, 4: 30, 5: 50, 6: 10, 7: 30},
            ),
            (
                2,
                {"gpu": "1", "cpu": "4", "memory": "5Gi"},
                {0: 40, 1: 30, 2: 10, 3: 20, 4: 40, 5: 50, 6: 20, 7: 30},
            ),
            (
                4,
                {"gpu": "1", "cpu": "4", "memory": "5Gi"},
                {0: 20, 1: 50, 2: 40, 3: 30, 4: 10, 5: 50, 6: 30, 7: 20},
            ),
        ],
        {"cpu": "3", "memory": "2Gi", "gpu": "3"},
        [2, 4, 6],
        False,
        id="8 NUMA node non optimal distance, not sorted ids, odd digit NUMA node without memory",
    ),
    pytest.param(
        [
            (0, {"gpu": "1", "cpu": "4", "memory": "5Gi"}, {0: 10, 2: 12, 4: 20, 6: 20}),
            (2, {"gpu": "1", "cpu": "4", "memory": "5Gi"}, {0: 12, 2: 10, 4: 20, 6: 20}),
            (4, {"gpu": "0", "cpu": "4", "memory": "5Gi"}, {0: 20, 2: 20, 4: 10, 6: 12}),
            (6, {"gpu": "0", "cpu": "4", "memory": "5Gi"}, {0: 20, 2: 20, 4: 12, 6: 10}),
        ],
        {"cpu": "2", "memory": "2Gi", "gpu": "2"},
        [0, 2],
        True,
        id="4 NUMA node optimal distance, non sequential ids",
    ),
    pytest.param(
        [
            (0, {"gpu": "1", "cpu": "4", "memory": "5Gi"}, {0: 10, 2: 12, 4: 20, 6: 20}),
            (2, {"gpu": "0", "cpu": "4", "memory": "5Gi"}, {0: 12, 2: 10, 4: 20, 6: 20}),
            (4, {"gpu": "0", "cpu": "4", "memory": "5Gi"}, {0: 20, 2: 20, 4: 10, 6: 12}),
            (6, {"gpu": "1", "cpu": "4", "memory": "5Gi"}, {0: 20, 2: 20, 4: 12, 6: 10}),
        ],
        {"cpu": "2", "memory": "2Gi", "gpu": "2"},
        [0, 6],
        False,
        id="4 NUMA node non optimal distance, non sequential ids",
    ),
    pytest.param(
        [
            (0, {"gpu": "1", "cpu": "4", "memory": "5Gi"}, {0: 10, 2: 12, 4: 20, 6: 20}),
            (2, {"gpu": "1", "cpu": "4"}, {0: 12, 2: 10, 4: 20, 6: 20}),
            (4, {"gpu": "1", "cpu": "4", "memory": "5Gi"}, {0: 20, 2: 20, 4: 10, 6: 12}),
            (6, {"gpu": "1", "cpu": "4"}, {0: 20, 2: 20, 4: 12, 6: 10}),
        ],
        {"cpu": "2", "memory": "2Gi", "gpu": "2"},
        [0, 4],
        False,
        id="4 NUMA node non optimal distance, non sequential ids, NUMA node-2 and node-6 without memory",
    ),
]


def _amounts(values: dict[str, str]) -> dict[str, Any]:
    return {name: Quantity.parse(v).exact for name, v in values.items()}


@pytest.mark.parametrize(("nodes", "pod", "bits", "min_distance"), CASES)
def test_numa_nodes_required(
    nodes: Any, pod: dict[str, str], bits: list[int] | None, min_distance: bool
) -> None:
    numa = [NUMANode(nid, _amounts(res), dict(costs)) for nid, res, costs in nodes]
    got, is_min = numa_nodes_required("Guaranteed", numa, _amounts(pod))
    assert (got, is_min) == (bits, min_distance)


@pytest.mark.parametrize(
    ("count", "optimal", "want"),
    [(1, False, 88), (2, False, 76), (8, False, 4), (1, True, 94), (2, True, 82), (8, True, 10)],
)
def test_normalize_score(count: int, optimal: bool, want: int) -> None:
    assert normalize_least_numa(count, optimal, 8) == want
