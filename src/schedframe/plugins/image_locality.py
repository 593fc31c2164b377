"""ImageLocality: prefers nodes that already hold the pod's container images.

Upstream: ``pkg/scheduler/framework/plugins/imagelocality/image_locality.go``, at the newest
source: the images of init containers, containers *and image volumes*
(``spec.volumes[].image.reference``, kubernetes/kubernetes#130231) are summed, and the
maximum threshold counts every one of those image sources (kubernetes/kubernetes#138951; before
it, image volumes raised the sum but not the threshold).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar, Final, cast, final

from ..cache.snapshot import Snapshot
from ..framework.interfaces import MAX_NODE_SCORE
from . import names
from ._helpers import go_div, no_args_factory
from ._run_memo import RunMemo, run_without

if TYPE_CHECKING:
    from ..api.objects import Pod
    from ..cache.nodeinfo import ImageStateSummary, NodeInfo
    from ..framework.cycle_state import CycleState
    from ..framework.handle import Handle
    from ..framework.interfaces import BatchScorePlugin, ScoreExtensions, ScorePlugin
    from ..framework.status import Status

__all__ = [
    "ARGS_TYPE",
    "MAX_CONTAINER_THRESHOLD",
    "MIN_THRESHOLD",
    "NAME",
    "ImageLocality",
    "calculate_priority",
    "image_sources",
    "new",
    "normalized_image_name",
    "scaled_image_score",
]

NAME: Final = names.IMAGE_LOCALITY
ARGS_TYPE: Final = None

MB: Final = 1024 * 1024
#: Below this (scaled) image size sum a node scores 0.
MIN_THRESHOLD: Final = 23 * MB
#: Per container: at or above this many bytes times the container count a node scores 100.
MAX_CONTAINER_THRESHOLD: Final = 1000 * MB


@functools.lru_cache(maxsize=4096)
def normalized_image_name(name: str) -> str:
    """The name as the node reports it: ``:latest`` added when the reference has no tag.

    Like upstream, a digest (``name@sha256:...``) and a tag after a registry port
    (``host:5000/img``, which gets ``:latest``) are told apart by the last ``/``; no registry
    or ``library/`` prefix is added.
    """
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


def scaled_image_score(state: ImageStateSummary, total_num_nodes: int) -> int:
    """The image size scaled by the fraction of nodes that have it (mitigates the "node
    heating" problem of piling pods onto the few nodes holding a big image)."""
    spread = state.num_nodes / total_num_nodes
    return int(state.size * spread)


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    """Map the summed image scores to [0, 100] between the thresholds; *num_containers* is the
    number of image sources (containers, init containers and image volumes)."""
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    return go_div(MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD), max_threshold - MIN_THRESHOLD)


def image_volume_references(pod: Pod) -> list[str]:
    """The references of the pod's image volumes (``spec.volumes[].image.reference``).

    A pod model without volumes has none; an image volume is a volume whose source is
    ``image`` (kept with its manifest as ``other_source`` / ``other_spec``).
    """
    out: list[str] = []
    for volume in getattr(pod, "volumes", ()):
        if getattr(volume, "other_source", "") == "image":
            spec = getattr(volume, "other_spec", None)
            reference = spec.get("reference", "") if isinstance(spec, Mapping) else ""
            out.append(reference if isinstance(reference, str) else "")
    return out


def image_sources(pod: Pod) -> list[str]:
    """The normalized image names the pod pulls, one per source: init containers, containers,
    then image volumes. Their number is the count the maximum threshold scales with."""
    names = [normalized_image_name(c.image) for containers in (pod.init_containers, pod.containers)
             for c in containers]
    names.extend(normalized_image_name(ref) for ref in image_volume_references(pod))
    return names


def sum_image_scores(image_states: Mapping[str, ImageStateSummary], pod: Pod, total_num_nodes: int) -> int:
    """The scaled scores of the pod's images (init containers, containers and image volumes)
    present on the node."""
    total = 0
    for name in image_sources(pod):
        state = image_states.get(name)
        if state is not None:
            total += scaled_image_score(state, total_num_nodes)
    return total


@final
class ImageLocality:
    """Score plugin: the more of the pod's image bytes a node already has (weighted by how
    widely each image is spread over the cluster), the higher its score.

    .. versionadded:: 0.1.0
    """

    __slots__ = ("_handle", "_no_images")
    #: Score and NormalizeScore give ints in [0, 100] by construction (no range check)
    _schedframe_scores_in_range: ClassVar[bool] = True

    def __init__(self, handle: Handle) -> None:
        self._handle = handle
        self._no_images: RunMemo[int | None] = RunMemo()

    @property
    def name(self) -> str:
        """``"ImageLocality"``."""
        return NAME

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """Score the node by the pod's images it holds."""
        image_states = node_info.image_states
        if not image_states:
            return 0, None  # a zero sum is below the minimum threshold
        total, images = self._cluster_and_images(pod)
        sum_scores = 0
        for name in images:
            image_state = image_states.get(name)
            if image_state is not None:
                sum_scores += scaled_image_score(image_state, total)
        return calculate_priority(sum_scores, len(images)), None

    def _cluster_and_images(self, pod: Pod) -> tuple[int, list[str]]:
        """The number of nodes in the cluster and the pod's normalized image names."""
        lister = self._handle.snapshot_shared_lister()
        num_nodes = getattr(lister, "num_nodes", None)
        total = num_nodes() if callable(num_nodes) else len(lister.node_infos().list())
        return total, image_sources(pod)

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> list[int] | Status:
        """:meth:`score` of each node, in one loop (:class:`~schedframe.BatchScorePlugin`): the
        pod's image names are normalized and the cluster's node count read once. Nodes without
        images score 0 (known per NodeInfo: remembered by position)."""
        lister = self._handle.snapshot_shared_lister()
        if run_without(lister, nodes, Snapshot.num_with_images):
            return [0] * len(nodes)  # a run of a snapshot where no node holds images
        zeros = self._no_images.values(None, lister, nodes, _zero_if_no_images)
        if None not in zeros:
            return cast("list[int]", zeros)
        held = [ni for ni, z in zip(nodes, zeros) if z is None]
        scores = self._score_each(pod, held)
        it = iter(scores)
        return [next(it) if z is None else z for z in zeros]

    def _score_each(self, pod: Pod, nodes: Sequence[NodeInfo]) -> list[int]:
        out: list[int] = []
        append = out.append
        images: list[str] | None = None
        total = 0
        for ni in nodes:
            image_states = ni.image_states
            if not image_states:
                append(0)
                continue
            if images is None:  # the first node holding images: what score() reads every time
                total, images = self._cluster_and_images(pod)
            sum_scores = 0
            for image in images:
                image_state = image_states.get(image)
                if image_state is not None:
                    sum_scores += scaled_image_score(image_state, total)
            append(calculate_priority(sum_scores, len(images)))
        return out

    def score_extensions(self) -> ScoreExtensions | None:
        """None: scores are already in [0, 100]."""
        return None


def _zero_if_no_images(nodes: Sequence[NodeInfo]) -> list[int | None]:
    """0 for each node without images (its score whatever the pod), None for the others."""
    return [None if ni.image_states else 0 for ni in nodes]


#: The plugin's factory (it takes no args).
new = no_args_factory(ImageLocality)


if TYPE_CHECKING:
    _score: ScorePlugin = ImageLocality(cast("Handle", None))
    _batch_score: BatchScorePlugin = ImageLocality(cast("Handle", None))
