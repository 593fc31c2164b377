"""Typical pods and the fragmentation measure of the FGD paper (Weng et al., ATC '23, section 4).

The *typical pods* are the most common request shapes of the workload with their frequencies.
A node's *fragmentation* is the expected amount of its free GPU milli that a typical pod could
not use: for each typical pod, all the node's free GPU milli when the pod cannot run there
(not enough GPUs, CPU or a GPU model it refuses; CPU-only pods count too), otherwise the free
milli of the GPUs too small for it; weighted by the pod's frequency (the artefact's
``NodeGpuShareFragAmountScore``). FGD scores a node by how little the placement increases it.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable
from typing import Final, final

import attrs

from ._model import MILLI, GpuRequest, NodeGpu, model_accessible

__all__ = ["FragModel", "TypicalPod", "fgd_score", "sigmoid", "typical_pods"]

# The artefact's fragment classes, in its order (FragRatioDataMap).
Q1_LACK_BOTH: Final = 0
Q2_LACK_GPU: Final = 1
Q3_SATISFIED: Final = 2
Q4_LACK_CPU: Final = 3
XL_SATISFIED: Final = 4
XR_LACK_CPU: Final = 5
NO_ACCESS: Final = 6


@final
@attrs.frozen
class TypicalPod:
    """A request shape and its frequency (0..1) among the typical pods.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.gpushare"

    request: GpuRequest
    weight: float


def _shape_key(req: GpuRequest) -> tuple[int, int, int, str]:
    return (req.milli_cpu, req.gpu_milli, req.gpu_count, req.models_text)


def typical_pods(requests: Iterable[GpuRequest], *, popularity: float = 95.0, step: int = 1,
                 include_cpu_pods: bool = True) -> tuple[TypicalPod, ...]:
    """The typical pods of a workload (the artefact's ``GetTypicalPods`` with the settings of its
    experiments: ``podPopularityThreshold`` 95, ``podIncreaseStep`` 1, CPU-only pods included,
    ``gpuResWeight`` 0).

    Shapes are counted, sorted by count, most common first (ties: larger shape first), and taken
    *step* at a time until they cover *popularity* percent of the pods; the frequencies are then
    renormalised to sum to 1.
    """
    counts: dict[GpuRequest, float] = {}
    total = 0.0
    for req in requests:
        if not include_cpu_pods and req.gpu_count == 0:
            continue
        key = GpuRequest(req.milli_cpu, req.gpu_milli, req.gpu_count, req.models)
        counts[key] = counts.get(key, 0.0) + 1.0
        total += 1.0
    if total == 0:
        return ()
    ranked = sorted(counts.items(), key=lambda kv: (kv[1], _shape_key(kv[0])), reverse=True)
    expected = popularity * total / 100.0
    taken = 0
    cum = 0.0
    while cum < expected and taken < len(ranked):
        stop = min(taken + max(step, 1), len(ranked))
        while taken < stop:
            cum += ranked[taken][1]
            taken += 1
    share = cum / total
    return tuple(TypicalPod(req, (n / total) / share) for req, n in ranked[:taken])


def sigmoid(x: float) -> float:
    """``1 / (1 + e^-x)``."""
    if x < -700.0:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


@final
class FragModel:
    """Fragmentation of node states against a set of typical pods, remembered per state.

    A state's fragmentation depends on its GPU model, the multiset of free GPU milli and, through
    comparisons only, its free CPU: the memo key uses how many typical pods' CPU requests fit
    instead of the CPU itself.
    """

    __module__ = "schedframe.gpushare"

    def __init__(self, typical: Iterable[TypicalPod]) -> None:
        self.typical: tuple[TypicalPod, ...] = tuple(typical)
        self._cpus = sorted({tp.request.milli_cpu for tp in self.typical})
        self._models_matter = any(tp.request.models for tp in self.typical)
        self._memo: dict[tuple[str, tuple[int, ...], int], float] = {}

    def cpu_class(self, cpu_left: int) -> int:
        """How many distinct typical CPU requests fit in *cpu_left*."""
        return bisect.bisect_right(self._cpus, cpu_left)

    def frag(self, model: str, lefts: tuple[int, ...], cpu_left: int) -> float:
        """The fragmentation (milli-GPU) of a node of *model* with free GPU milli *lefts* and
        *cpu_left* free milli-CPU."""
        key = (model if self._models_matter else "", tuple(sorted(lefts, reverse=True)),
               self.cpu_class(cpu_left))
        value = self._memo.get(key)
        if value is None:
            value = self._memo[key] = self._compute(model, key[1], cpu_left)
        return value

    def _compute(self, model: str, lefts: tuple[int, ...], cpu_left: int) -> float:
        data = [0.0] * 7
        total_left = sum(lefts)
        for tp in self.typical:
            req = tp.request
            weight = tp.weight
            if req.gpu_milli == 0:
                kind = XL_SATISFIED if cpu_left >= req.milli_cpu else XR_LACK_CPU
            elif not model_accessible(model, req.models):
                kind = NO_ACCESS
            else:
                need = req.gpu_count
                for left in lefts:
                    if left >= req.gpu_milli:
                        need -= 1
                        if need <= 0:
                            break
                cpu_ok = cpu_left >= req.milli_cpu
                if need <= 0:
                    kind = Q3_SATISFIED if cpu_ok else Q4_LACK_CPU
                else:
                    kind = Q2_LACK_GPU if cpu_ok else Q1_LACK_BOTH
            if kind == Q3_SATISFIED:
                small = 0
                for left in lefts:
                    if left < req.gpu_milli:
                        small += left
                data[Q2_LACK_GPU] += weight * small
                data[Q3_SATISFIED] += weight * (total_left - small)
            else:
                data[kind] += weight * total_left
        out = 0.0
        for i in range(7):
            if i != Q3_SATISFIED:
                out += data[i]
        return out

    def node_frag(self, state: NodeGpu) -> float:
        """The fragmentation of *state*."""
        return self.frag(state.model, state.sorted_lefts, state.cpu_left)


def _after_packing(lefts: tuple[int, ...], req: GpuRequest) -> tuple[int, ...]:
    """Free milli after *req* takes the GPUs with the least sufficient free milli (the
    artefact's ``NodeResource.Sub``)."""
    if req.gpu_count == 0 or req.gpu_milli <= 0:
        return lefts
    out = list(lefts)
    order = sorted(range(len(out)), key=out.__getitem__)
    need = req.gpu_count
    for i in order:
        if out[i] >= req.gpu_milli:
            out[i] -= req.gpu_milli
            need -= 1
            if need <= 0:
                break
    return tuple(out)


def fgd_score(model: FragModel, state: NodeGpu, req: GpuRequest) -> tuple[int, tuple[int, ...]]:
    """FGD's score of placing *req* on *state* and the GPU(s) it would use.

    The score is ``int(100 * sigmoid((frag_before - frag_after) / 1000))``: 50 when the placement
    leaves fragmentation unchanged, above when it reduces it. A share goes to the GPU whose
    choice scores highest (the lowest index on ties); whole GPUs to the first fully free ones.
    """
    before = model.frag(state.model, state.sorted_lefts, state.cpu_left)
    cpu_after = state.cpu_left - req.milli_cpu
    if req.is_share:
        best = -1
        best_score = 0
        lefts = state.lefts
        done: dict[int, int] = {}
        for i, left in enumerate(lefts):
            if left < req.gpu_milli:
                continue
            score = done.get(left)
            if score is None:
                after = list(lefts)
                after[i] = left - req.gpu_milli
                value = model.frag(state.model, tuple(after), cpu_after)
                score = done[left] = int(sigmoid((before - value) / 1000.0) * 100)
            if best < 0 or score > best_score:
                best, best_score = i, score
        return best_score, ((best,) if best >= 0 else ())
    after_lefts = _after_packing(state.lefts, req)
    value = model.frag(state.model, after_lefts, cpu_after)
    ids: tuple[int, ...] = ()
    if req.gpu_count and req.gpu_milli >= MILLI:
        ids = tuple(i for i, left in enumerate(state.lefts) if left == MILLI)[:req.gpu_count]
    return int(sigmoid((before - value) / 1000.0) * 100), ids
