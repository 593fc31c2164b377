"""ImageLocality: cases ported from upstream ``imagelocality/image_locality_test.go``."""

from __future__ import annotations

import hashlib
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedframe import Node, Pod
from schedframe.api.objects import Container, ContainerImage, Volume
from schedframe.cache.nodeinfo import ImageStateSummary
from schedframe.plugins import image_locality
from schedframe.plugins.image_locality import (
    MAX_CONTAINER_THRESHOLD,
    MIN_THRESHOLD,
    calculate_priority,
    normalized_image_name,
    scaled_image_score,
)
from schedframe.testing import PluginHarness

MB = 1024 * 1024


def spec(*images: str, init: tuple[str, ...] = ()) -> Pod:
    return Pod(
        "pod",
        containers=tuple(Container(name=f"c{i}", image=img) for i, img in enumerate(images)),
        init_containers=tuple(Container(name=f"i{i}", image=img) for i, img in enumerate(init)),
    )


def image_node(name: str, *images: tuple[tuple[str, ...], int]) -> Node:
    return Node(name, images=tuple(ContainerImage(names, size * MB) for names, size in images))


NODE_40_300_2000 = (
    (("gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"), 40),
    (("gcr.io/300:latest", "gcr.io/300:v1"), 300),
    (("gcr.io/2000:latest",), 2000),
)
NODE_250_10 = ((("gcr.io/250:latest",), 250), (("gcr.io/10:latest", "gcr.io/10:v1"), 10))
NODE_600_40_900 = ((("gcr.io/600:latest",), 600), (("gcr.io/40:latest",), 40), (("gcr.io/900:latest",), 900))
NODE_300_600_900 = (
    (("gcr.io/300:latest",), 300),
    (("gcr.io/600:latest",), 600),
    (("gcr.io/900:latest",), 900),
)
NODE_4000_30 = ((("gcr.io/4000:latest",), 4000), (("gcr.io/30:latest",), 30))
NODE_20_30_40 = ((("gcr.io/20:latest",), 20), (("gcr.io/30:latest",), 30), (("gcr.io/40:latest",), 40))

CASES = [
    pytest.param(
        spec("gcr.io/40", "gcr.io/250"),
        [image_node("node1", *NODE_40_300_2000), image_node("node2", *NODE_250_10)],
        {"node1": 0, "node2": 5},
        id="two images spread on two nodes, prefer the larger image one",
    ),
    pytest.param(
        spec("gcr.io/40", "gcr.io/300"),
        [image_node("node1", *NODE_40_300_2000), image_node("node2", *NODE_250_10)],
        {"node1": 7, "node2": 0},
        id="two images on one node, prefer this node",
    ),
    pytest.param(
        spec("gcr.io/10", "gcr.io/4000"),
        [image_node("node1", *NODE_4000_30), image_node("node2", *NODE_250_10)],
        {"node1": 100, "node2": 0},
        id="if exceed limit, use limit",
    ),
    pytest.param(
        spec("gcr.io/10", "gcr.io/4000"),
        [image_node("node1", *NODE_4000_30), image_node("node2", *NODE_250_10), image_node("node3")],
        {"node1": 66, "node2": 0, "node3": 0},
        id="if exceed limit, use limit (with node which has no images present)",
    ),
    pytest.param(
        spec("gcr.io/300", "gcr.io/600", "gcr.io/900"),
        [image_node("node1", *NODE_600_40_900), image_node("node2", *NODE_300_600_900), image_node("node3")],
        {"node1": 32, "node2": 36, "node3": 0},
        id="pod with multiple large images, node2 is preferred",
    ),
    pytest.param(
        spec("gcr.io/30", "gcr.io/40"),
        [image_node("node1", *NODE_20_30_40), image_node("node2", *NODE_4000_30)],
        {"node1": 1, "node2": 0},
        id="pod with multiple small images",
    ),
    pytest.param(
        spec("gcr.io/30", init=("gcr.io/300",)),
        [image_node("node1", *NODE_40_300_2000), image_node("node2", *NODE_20_30_40)],
        {"node1": 6, "node2": 0},
        id="include init containers",
    ),
    pytest.param(
        spec("gcr.io/40:v1"),
        [image_node("node1", *NODE_40_300_2000), image_node("node2")],
        {"node1": 0, "node2": 0},
        id="explicit tag below the minimum threshold",
    ),
]


@pytest.mark.parametrize(("pod", "nodes", "want"), CASES)
def test_score(pod: Pod, nodes: list[Node], want: dict[str, int]) -> None:
    """Scores as upstream TestImageLocalityPriority."""
    assert PluginHarness("ImageLocality", nodes=nodes).score(pod) == want


def fake_digest(content: str) -> str:
    return "sha256:" + hashlib.sha256(content.encode()).hexdigest()


@pytest.mark.parametrize(
    ("name", "want"),
    [
        pytest.param("root", "root:latest", id="add :latest postfix 1"),
        pytest.param("gcr.io:5000/root", "gcr.io:5000/root:latest", id="add :latest postfix 2"),
        pytest.param("root:tag", "root:tag", id="keep it as is 1"),
        pytest.param("root@" + fake_digest("root"), "root@" + fake_digest("root"), id="keep it as is 2"),
    ],
)
def test_normalized_image_name(name: str, want: str) -> None:
    """Image names get ``:latest`` when they carry no tag (upstream TestNormalizedImageName)."""
    assert normalized_image_name(name) == want


def test_scaled_image_score() -> None:
    """The size is scaled by the share of nodes having the image, truncated."""
    assert scaled_image_score(ImageStateSummary(300 * MB, 1), 3) == 100 * MB
    assert scaled_image_score(ImageStateSummary(10, 2), 3) == 6


@given(
    st.integers(min_value=0, max_value=10 * MAX_CONTAINER_THRESHOLD), st.integers(min_value=1, max_value=10)
)
def test_priority_stays_in_range(sum_scores: int, containers: int) -> None:
    """calculate_priority is in [0, 100], 0 at or under the minimum threshold."""
    score = calculate_priority(sum_scores, containers)
    assert 0 <= score <= 100
    if sum_scores <= MIN_THRESHOLD:
        assert score == 0


def test_pod_without_containers_scores_zero() -> None:
    """A pod without containers scores 0 (no division by zero)."""
    assert calculate_priority(5 * MB, 0) == 0
    assert PluginHarness("ImageLocality", nodes=[image_node("n", *NODE_250_10)]).score(Pod("p")) == {"n": 0}


def test_factory() -> None:
    """new() ignores args; scores need no normalization."""
    plugin = image_locality.new(None, None)  # type: ignore[arg-type]
    assert plugin.name == "ImageLocality"
    assert plugin.score_extensions() is None
    assert image_locality.ARGS_TYPE is None


def _duck_pod(images: tuple[str, ...], init: tuple[str, ...], volumes: tuple[tuple[str, str], ...]) -> Any:
    """A pod-shaped object with ``spec.volumes`` (source name, image reference)."""
    return SimpleNamespace(
        containers=tuple(Container(name=f"c{i}", image=img) for i, img in enumerate(images)),
        init_containers=tuple(Container(name=f"i{i}", image=img) for i, img in enumerate(init)),
        volumes=tuple(
            SimpleNamespace(other_source=src, other_spec={"reference": ref} if src == "image" else {})
            for src, ref in volumes
        ),
    )


def test_image_sources_include_image_volumes() -> None:
    """Init containers, containers, then image volumes (upstream #130231); other volume
    sources are not images."""
    pod = _duck_pod(("b:1",), ("a",), (("image", "c"), ("emptyDir", ""), ("image", "host:5000/d")))
    assert image_locality.image_sources(pod) == ["a:latest", "b:1", "c:latest", "host:5000/d:latest"]
    assert image_locality.image_sources(spec("x")) == ["x:latest"]


def test_image_volumes_count_in_sum_and_threshold() -> None:
    """An image volume adds its scaled size to the sum and one container's worth to the maximum
    threshold (upstream #138951), so it scores like the same image in a container."""
    states = {
        "gcr.io/300:latest": ImageStateSummary(300 * MB, 2),
        "gcr.io/vol:latest": ImageStateSummary(600 * MB, 1),
    }
    pod = _duck_pod(("gcr.io/300",), (), (("image", "gcr.io/vol"),))
    as_container = spec("gcr.io/300", "gcr.io/vol")
    assert image_locality.sum_image_scores(states, pod, 2) == 600 * MB
    assert image_locality.sum_image_scores(states, as_container, 2) == 600 * MB
    assert calculate_priority(600 * MB, len(image_locality.image_sources(pod))) == 29  # 100*577/1977
    assert len(image_locality.image_sources(pod)) == len(image_locality.image_sources(as_container))


def test_score_with_an_image_volume() -> None:
    """End to end: node1 holds the container image and the image volume, node2 only the former."""
    pod = Pod(
        "pod",
        containers=(Container(name="c", image="gcr.io/300"),),
        volumes=(Volume("v", other_source="image", other_spec={"reference": "gcr.io/vol"}),),
    )
    nodes = [
        image_node("node1", (("gcr.io/300:latest",), 300), (("gcr.io/vol:latest",), 600)),
        image_node("node2", (("gcr.io/300:latest",), 300)),
    ]
    # node1: (300 + 600/2) MB over a threshold of 2 sources: 100*(600-23)/(2000-23) = 29;
    # node2: 100*(300-23)/(2000-23) = 14
    assert PluginHarness("ImageLocality", nodes=nodes).score(pod) == {"node1": 29, "node2": 14}
