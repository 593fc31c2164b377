"""The GPU-sharing resource model of Alibaba's Open-Gpu-Share, as the FGD artefact has it.

A node has ``N`` GPUs of one model (label ``alibabacloud.com/gpu-card-model``, allocatable
``alibabacloud.com/gpu-count``), each of :data:`MILLI` milli-GPUs. A pod asks, in annotations,
``alibabacloud.com/gpu-count`` GPUs of ``alibabacloud.com/gpu-milli`` milli each (a share of one
GPU when below 1,000, whole GPUs otherwise) and optionally accepts only some models
(``alibabacloud.com/gpu-card-model``, ``|``-separated).

Which GPU(s) a pod holds is chosen at Reserve and kept in a :class:`GpuLedger` (one per
framework), keyed by pod uid; a node's per-GPU usage (:class:`NodeGpu`) is derived from the pods
in its :class:`~schedframe.NodeInfo` plus those choices, and remembered per NodeInfo generation,
so it follows the scheduler's assume / forget and snapshots without the core knowing about GPUs.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Final, final

import attrs

from ..errors import GpuShareError

if TYPE_CHECKING:
    from ..api.objects import Node, Pod
    from ..cache.nodeinfo import NodeInfo

__all__ = [
    "ANNOTATION_GPU_COUNT",
    "ANNOTATION_GPU_INDEX",
    "ANNOTATION_GPU_MILLI",
    "ANNOTATION_GPU_MODEL",
    "LABEL_GPU_MODEL",
    "MAX_SPEC_CPU",
    "MAX_NODE_GPUS",
    "MAX_SPEC_GPU",
    "MILLI",
    "RESOURCE_GPU_COUNT",
    "RESOURCE_GPU_MILLI",
    "GpuLedger",
    "GpuRequest",
    "NodeGpu",
    "gpu_request",
    "model_accessible",
    "node_gpu_count",
    "node_gpu_model",
]

#: Milli-GPUs in one GPU.
MILLI: Final = 1000
#: The artefact's normalisers (``MaxSpecCpu``, ``MaxSpecGpu``): the largest node, 128 cores and
#: 8 GPUs.
MAX_SPEC_CPU: Final = 128_000
MAX_SPEC_GPU: Final = 8_000
#: The most GPUs a node may have: the largest node the model normalises by (``MAX_SPEC_GPU``).
#: A node with more would score below zero (and one with 10**8 GPUs would never be read).
MAX_NODE_GPUS: Final = MAX_SPEC_GPU // MILLI

ANNOTATION_GPU_MILLI: Final = "alibabacloud.com/gpu-milli"
ANNOTATION_GPU_COUNT: Final = "alibabacloud.com/gpu-count"
ANNOTATION_GPU_MODEL: Final = "alibabacloud.com/gpu-card-model"
#: GPU indices a pod holds, ``-``-separated (``"0-1"``): read for pods bound before the scheduler
#: saw them; the scheduler's own choices live in the ledger.
ANNOTATION_GPU_INDEX: Final = "alibabacloud.com/gpu-index"
#: Node label naming its GPU model.
LABEL_GPU_MODEL: Final = "alibabacloud.com/gpu-card-model"
#: Node allocatable: number of GPUs, and their milli total (informational).
RESOURCE_GPU_COUNT: Final = "alibabacloud.com/gpu-count"
RESOURCE_GPU_MILLI: Final = "alibabacloud.com/gpu-milli"

_NO_GPU_TAG: Final = "no-gpu"
_SHARE_GPU_TAG: Final = "share-gpu"


@final
@attrs.frozen
class GpuRequest:
    """What a pod asks, as the artefact's ``PodResource``: CPU (milli, with the scheduler's
    non-zero default), ``gpu_milli`` per GPU, ``gpu_count`` GPUs, and the accepted models (empty:
    any).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.gpushare"

    milli_cpu: int
    gpu_milli: int = 0
    gpu_count: int = 0
    models: tuple[str, ...] = ()

    @property
    def is_share(self) -> bool:
        """A share of one GPU (one GPU, fewer than 1,000 milli)."""
        return self.gpu_count == 1 and 0 < self.gpu_milli < MILLI

    @property
    def total_milli(self) -> int:
        """``gpu_milli * gpu_count``."""
        return self.gpu_milli * self.gpu_count

    @property
    def affinity_tag(self) -> str:
        """The tag GpuClustering groups pods by, ``no-gpu``, ``share-gpu`` or ``<n>-gpu``."""
        if self.gpu_count == 0 or self.gpu_milli <= 0:
            return _NO_GPU_TAG
        if self.gpu_milli < MILLI:
            return _SHARE_GPU_TAG
        return f"{self.gpu_count}-gpu"

    @property
    def models_text(self) -> str:
        """The models as the annotation writes them (``"V100M16|V100M32"``)."""
        return "|".join(self.models)


def _int_annotation(pod: Pod, key: str) -> int:
    raw = pod.annotations.get(key)
    if raw is None or raw == "":
        return 0
    try:
        value = int(raw)
    except ValueError:
        raise GpuShareError(f"{pod.key}: metadata.annotations[{key!r}]",
                            f"must be an integer, got {raw!r}") from None
    if value < 0:
        raise GpuShareError(f"{pod.key}: metadata.annotations[{key!r}]", f"must be >= 0, got {value}")
    return value


def parse_models(text: str) -> tuple[str, ...]:
    """``"A|B||A"`` -> ``("A", "B")`` (empty parts and repeats dropped, order kept)."""
    out: list[str] = []
    for part in text.split("|"):
        part = part.strip()
        if part and part not in out:
            out.append(part)
    return tuple(out)


def gpu_request(pod: Pod) -> GpuRequest:
    """Read *pod*'s GPU request from its annotations.

    A GPU count of 0 or a milli of 0 is a pod without GPUs. Raises
    :class:`~schedframe.errors.GpuShareError` naming the annotation when a value is not a non-negative
    integer, when the milli exceeds 1,000, when the count exceeds ``MAX_NODE_GPUS`` (8: no node
    could hold the pod), or when a share (milli < 1,000) spans several GPUs.
    """
    milli = _int_annotation(pod, ANNOTATION_GPU_MILLI)
    count = _int_annotation(pod, ANNOTATION_GPU_COUNT)
    if count > MAX_NODE_GPUS:  # no node of the model has more: the pod could never be placed
        raise GpuShareError(f"{pod.key}: metadata.annotations[{ANNOTATION_GPU_COUNT!r}]",
                            f"must be at most {MAX_NODE_GPUS} (MAX_NODE_GPUS, the GPUs a node can "
                            f"have), got {count:,}")
    if milli > MILLI:
        raise GpuShareError(f"{pod.key}: metadata.annotations[{ANNOTATION_GPU_MILLI!r}]",
                            f"must be at most {MILLI}, got {milli}")
    if milli == 0 or count == 0:
        milli = count = 0
    elif milli < MILLI and count > 1:
        raise GpuShareError(f"{pod.key}: metadata.annotations[{ANNOTATION_GPU_COUNT!r}]",
                            f"a share of a GPU ({ANNOTATION_GPU_MILLI}={milli}) must ask for one GPU, "
                            f"got {count}")
    models = parse_models(pod.annotations.get(ANNOTATION_GPU_MODEL, "")) if count else ()
    return GpuRequest(pod.non_zero_milli_cpu, milli, count, models)


def node_gpu_count(node: Node) -> int:
    """The node's GPUs (allocatable ``alibabacloud.com/gpu-count``, 0 when absent).

    Raises:
        GpuShareError: more than ``MAX_NODE_GPUS``.
    """
    count = int(node.allocatable_resources.scalar.get(RESOURCE_GPU_COUNT, 0))
    if count > MAX_NODE_GPUS:
        raise GpuShareError(
            f"node {node.name}",
            f"allocatable {RESOURCE_GPU_COUNT} {count:,} is more than the model allows "
            f"({MAX_NODE_GPUS} GPUs per node, MAX_SPEC_GPU)",
        )
    return count


def node_gpu_model(node: Node) -> str:
    """The node's GPU model (label ``alibabacloud.com/gpu-card-model``, ``""`` when absent)."""
    return node.labels.get(LABEL_GPU_MODEL, "")


def model_accessible(node_model: str, models: tuple[str, ...]) -> bool:
    """Whether a pod accepting *models* (empty: any) may use a node of *node_model*
    (the artefact's ``IsNodeAccessibleToPodByType``)."""
    if not models:
        return True
    return node_model in models


@final
class NodeGpu:
    """One node's GPU state at one NodeInfo generation (read-only for plugins).

    Attributes:
        name, model, count: the node, its GPU model and number of GPUs.
        lefts: free milli of each GPU, by GPU index.
        sorted_lefts: the same, largest first (the key of every memo: scores depend on the
            multiset, not the order).
        cpu_left, cpu_capacity: allocatable milli-CPU minus requested, and allocatable.
        total_left: ``sum(lefts)``; full_free: GPUs with all 1,000 milli free.
        affinity: GpuClustering's tag of each GPU pod on the node, counted.
        memo: scores of this state by (plugin, request), filled by the scorers.
    """

    __module__ = "schedframe.gpushare"
    __slots__ = ("affinity", "count", "cpu_capacity", "cpu_left", "full_free", "generation", "info",
                 "lefts", "memo", "model", "name", "node", "sorted_lefts", "total_left", "uids")

    def __init__(self, name: str, model: str, lefts: Iterable[int], cpu_left: int, cpu_capacity: int,
                 affinity: dict[str, int] | None = None) -> None:
        self.name = name
        self.model = model
        self.lefts: tuple[int, ...] = tuple(lefts)
        self.count = len(self.lefts)
        self.sorted_lefts = tuple(sorted(self.lefts, reverse=True))
        self.cpu_left = cpu_left
        self.cpu_capacity = cpu_capacity
        self.total_left = sum(self.lefts)
        self.full_free = self.lefts.count(MILLI)
        self.affinity: dict[str, int] = affinity or {}
        self.memo: dict[str, Any] = {}
        self.generation = -1
        self.node: object = None
        self.info: object = None
        self.uids: frozenset[str] = frozenset()

    def __repr__(self) -> str:
        return (f"NodeGpu({self.name!r}, {self.model!r}, lefts={list(self.lefts)}, "
                f"cpu_left={self.cpu_left})")


def fits(state: NodeGpu, req: GpuRequest) -> bool:
    """Whether *req*'s GPUs fit *state* (enough GPUs with ``gpu_milli`` free); no model check."""
    if req.gpu_milli <= 0:
        return True
    need = req.gpu_count
    milli = req.gpu_milli
    for left in state.lefts:
        if left >= milli:
            need -= 1
            if need <= 0:
                return True
    return False


def exclusive_ids(lefts: tuple[int, ...], req: GpuRequest) -> tuple[int, ...]:
    """The first ``gpu_count`` fully free GPUs by index (``AllocateExclusiveGpuId``); ``()``
    when there are not enough."""
    out: list[int] = []
    for i, left in enumerate(lefts):
        if len(out) == req.gpu_count:
            break
        if left == MILLI:
            out.append(i)
    return tuple(out) if len(out) == req.gpu_count else ()


def best_fit_ids(lefts: tuple[int, ...], req: GpuRequest) -> tuple[int, ...]:
    """Share: the GPU with the least free milli that fits (lowest index on ties); whole GPUs:
    :func:`exclusive_ids` (the artefact's ``best`` GPU selection)."""
    if not req.is_share:
        return exclusive_ids(lefts, req)
    best = -1
    for i, left in enumerate(lefts):
        if left >= req.gpu_milli and (best < 0 or left < lefts[best]):
            best = i
    return (best,) if best >= 0 else ()


def worst_fit_ids(lefts: tuple[int, ...], req: GpuRequest) -> tuple[int, ...]:
    """Share: the GPU with the most free milli (lowest index on ties); whole GPUs: exclusive."""
    if not req.is_share:
        return exclusive_ids(lefts, req)
    best = -1
    for i, left in enumerate(lefts):
        if left >= req.gpu_milli and (best < 0 or left > lefts[best]):
            best = i
    return (best,) if best >= 0 else ()


def random_fit_ids(lefts: tuple[int, ...], req: GpuRequest, rng: random.Random) -> tuple[int, ...]:
    """Share: a GPU that fits, uniformly at random (reservoir sampling); whole GPUs: exclusive."""
    if not req.is_share:
        return exclusive_ids(lefts, req)
    chosen = -1
    seen = 0
    for i, left in enumerate(lefts):
        if left >= req.gpu_milli:
            seen += 1
            if rng.randrange(seen) == 0:
                chosen = i
    return (chosen,) if chosen >= 0 else ()


@final
class GpuLedger:
    """The GPUs each pod holds (chosen at Reserve, keyed by pod uid) and the per-node GPU state
    derived from them, remembered per NodeInfo generation.

    One ledger serves all the gpushare plugins of one framework (:func:`ledger_of`). Entries of
    pods that left a node are dropped when that node's state is next derived; Unreserve drops
    its pod's entry at once.
    """

    __module__ = "schedframe.gpushare"

    def __init__(self) -> None:
        self.assigned: dict[str, tuple[int, ...]] = {}
        self._requests: dict[str, GpuRequest | None] = {}
        self._states: dict[str, NodeGpu] = {}
        # id(NodeInfo) -> its state; the state holds the NodeInfo, so an id is never reused
        # while its entry lives; a name's entry is replaced when the name is derived again
        self._by_id: dict[int, NodeGpu] = {}

    def request_of(self, pod: Pod) -> GpuRequest | None:
        """The GPU request of a pod on some node (``None`` when its annotations are malformed:
        such a pod holds no GPU)."""
        uid = pod.uid
        try:
            return self._requests[uid]
        except KeyError:
            pass
        try:
            req: GpuRequest | None = gpu_request(pod)
        except GpuShareError:
            req = None
        self._requests[uid] = req
        return req

    def state(self, node_info: NodeInfo) -> NodeGpu:
        """The GPU state of *node_info* (remembered until its generation moves)."""
        st = self._states.get(node_info.name)
        if st is not None and st.generation == node_info.generation and st.node is node_info.node:
            return st
        return self._derive(node_info, st)

    def states(self, nodes: Sequence[NodeInfo]) -> list[NodeGpu]:
        """:meth:`state` of each of *nodes* (the batch path: lookups by NodeInfo identity)."""
        sts: list[NodeGpu | None] = list(map(self._by_id.get, map(id, nodes)))
        if None in sts:
            i = 0
            try:
                while True:
                    i = sts.index(None, i)
                    sts[i] = self.state(nodes[i])
                    i += 1
            except ValueError:
                pass
        out: list[NodeGpu] = sts  # type: ignore[assignment]
        if list(map(_GENERATION, nodes)) != list(map(_GENERATION, out)):
            for i, ni in enumerate(nodes):
                if out[i].generation != ni.generation or out[i].node is not ni.node:
                    out[i] = self.state(ni)
        return out

    def _derive(self, node_info: NodeInfo, old: NodeGpu | None) -> NodeGpu:
        node = node_info.node
        count = node_gpu_count(node) if node is not None else 0
        model = node_gpu_model(node) if node is not None else ""
        lefts = [MILLI] * count
        affinity: dict[str, int] = {}
        uids: set[str] = set()
        assigned = self.assigned
        for pinfo in node_info.pods:
            pod = pinfo.pod
            req = self.request_of(pod)
            if req is None or req.gpu_milli <= 0:
                continue
            uid = pod.uid
            uids.add(uid)
            tag = req.affinity_tag
            affinity[tag] = affinity.get(tag, 0) + 1
            ids = assigned.get(uid)
            if ids is None or not _valid(ids, lefts, req):
                ids = _annotated_ids(pod, lefts, req)
                if ids is None:
                    ids = best_fit_ids(tuple(lefts), req)
                if ids:
                    assigned[uid] = ids
            for i in ids:
                lefts[i] -= req.gpu_milli
        if old is not None:
            for uid in old.uids - uids:
                assigned.pop(uid, None)
                self._requests.pop(uid, None)
        cpu_cap = node_info.allocatable.milli_cpu
        st = NodeGpu(node_info.name, model, lefts, cpu_cap - node_info.requested.milli_cpu, cpu_cap, affinity)
        st.generation = node_info.generation
        st.node = node
        st.uids = frozenset(uids)
        st.info = node_info
        if old is not None:
            self._by_id.pop(id(old.info), None)
        self._states[node_info.name] = st
        self._by_id[id(node_info)] = st
        return st

    def reserve(self, pod: Pod, node_name: str, ids: tuple[int, ...]) -> None:
        """Record that *pod* holds GPUs *ids* on *node_name*."""
        self.assigned[pod.uid] = ids
        self._forget_state(node_name)

    def _forget_state(self, node_name: str) -> None:
        st = self._states.pop(node_name, None)
        if st is not None:
            self._by_id.pop(id(st.info), None)

    def release(self, pod: Pod, node_name: str = "") -> None:
        """Forget *pod*'s GPUs (Unreserve, or the pod was removed)."""
        self.assigned.pop(pod.uid, None)
        self._requests.pop(pod.uid, None)
        if node_name:
            self._forget_state(node_name)


_GENERATION: Final = operator.attrgetter("generation")


def _valid(ids: tuple[int, ...], lefts: list[int], req: GpuRequest) -> bool:
    if len(ids) != req.gpu_count:
        return False
    for i in ids:
        if not 0 <= i < len(lefts) or lefts[i] < req.gpu_milli:
            return False
    return True


def _annotated_ids(pod: Pod, lefts: list[int], req: GpuRequest) -> tuple[int, ...] | None:
    raw = pod.annotations.get(ANNOTATION_GPU_INDEX)
    if not raw:
        return None
    try:
        ids = tuple(int(x) for x in raw.split("-"))
    except ValueError:
        return None
    return ids if _valid(ids, lefts, req) else None


#: GPU selection: (state lefts, request) -> GPU indices.
Selector = Callable[[tuple[int, ...], GpuRequest], tuple[int, ...]]
