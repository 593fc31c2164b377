"""The Open-Gpu-Share filter/reserve plugin and the FGD paper's score plugins.

Definitions follow the authors' artefact (hkust-adsl/kubernetes-scheduler-simulator,
``pkg/simulator/plugin``): ``OpenGpuShare`` (``Open-Gpu-Share`` there) filters nodes on GPU
count, milli and model and picks the GPU(s) at Reserve; the scorers are ``FGDScore``,
``BestFitScore``, ``GpuPackingScore``, ``GpuClusteringScore``, ``DotProductScore`` and
``RandomScore``. Register them with :func:`register_gpushare_plugins` (or use
:func:`gpushare_registry`) and enable them in a profile like any plugin.
"""

from __future__ import annotations

import operator
import random
import weakref
from collections.abc import Iterable, Mapping, Sequence
from itertools import compress, repeat
from typing import TYPE_CHECKING, Any, Final, final

import attrs

from ..errors import GpuShareError, PluginArgsError
from ..framework.cycle_state import StateKey
from ..framework.interfaces import NodeScore, PreFilterResult
from ..framework.registry import Registry
from ..framework.status import Code, Status
from ._frag import FragModel, TypicalPod, fgd_score
from ._model import (
    MAX_SPEC_CPU,
    MAX_SPEC_GPU,
    MILLI,
    GpuLedger,
    GpuRequest,
    NodeGpu,
    best_fit_ids,
    fits,
    gpu_request,
    model_accessible,
    random_fit_ids,
    worst_fit_ids,
)

if TYPE_CHECKING:
    from ..api.objects import Pod
    from ..cache.nodeinfo import NodeInfo
    from ..framework.cycle_state import CycleState
    from ..framework.handle import Handle
    from ..framework.interfaces import (
        BatchFilterPlugin,
        BatchScoreExtensions,
        BatchScorePlugin,
        PreFilterPlugin,
        PreScorePlugin,
        ReservePlugin,
    )

__all__ = [
    "BEST_FIT_SCORE",
    "DOT_PRODUCT_SCORE",
    "ERR_GPU_MODEL",
    "ERR_INSUFFICIENT_GPU",
    "ERR_NO_GPU",
    "FGD_SCORE",
    "GPU_CLUSTERING_SCORE",
    "GPU_PACKING_SCORE",
    "GPU_SELECTIONS",
    "OPEN_GPU_SHARE",
    "RANDOM_SCORE",
    "BestFitScore",
    "DotProductScore",
    "FGDScore",
    "FGDScoreArgs",
    "GpuClusteringScore",
    "GpuPackingScore",
    "OpenGpuShare",
    "OpenGpuShareArgs",
    "RandomScore",
    "RandomScoreArgs",
    "gpushare_registry",
    "ledger_of",
    "register_gpushare_plugins",
]

OPEN_GPU_SHARE: Final = "OpenGpuShare"
FGD_SCORE: Final = "FGDScore"
BEST_FIT_SCORE: Final = "BestFitScore"
GPU_PACKING_SCORE: Final = "GpuPackingScore"
GPU_CLUSTERING_SCORE: Final = "GpuClusteringScore"
DOT_PRODUCT_SCORE: Final = "DotProductScore"
RANDOM_SCORE: Final = "RandomScore"

#: Filter reasons.
ERR_NO_GPU: Final = "node(s) had no GPU"
ERR_GPU_MODEL: Final = "node(s) didn't match the requested GPU model"
ERR_INSUFFICIENT_GPU: Final = "node(s) had insufficient GPU"

#: OpenGpuShare's GPU selections: ``best`` (tightest fit), ``worst`` (loosest fit), ``random``,
#: ``FGD`` (the GPU FGD scores highest). Whole-GPU requests always take the first free GPUs.
GPU_SELECTIONS: Final = ("best", "worst", "random", "FGD")

_MAX_SCORE: Final = 100

_NO_GPU_STATUS: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_NO_GPU,))
_MODEL_STATUS: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_GPU_MODEL,))
_INSUFFICIENT_STATUS: Final = Status(Code.UNSCHEDULABLE, (ERR_INSUFFICIENT_GPU,))

_MEMO: Final = operator.attrgetter("memo")
#: Memo value of a node that passes OpenGpuShare's filter.
_PASS: Final = Status(Code.SUCCESS)

_LEDGERS: weakref.WeakKeyDictionary[Any, GpuLedger] = weakref.WeakKeyDictionary()


def ledger_of(handle: Handle) -> GpuLedger:
    """The :class:`GpuLedger` shared by the gpushare plugins of *handle*'s framework."""
    try:
        ledger = _LEDGERS.get(handle)
    except TypeError:  # not weak-referenceable (e.g. the handle config validation builds with):
        return GpuLedger()  # a ledger of its own, not shared
    if ledger is None:
        ledger = _LEDGERS[handle] = GpuLedger()
    return ledger


def _memo_key(plugin: str, req: GpuRequest) -> str:
    # a str: its hash is computed once, however many node memos it is looked up in
    return f"{plugin}/{req.milli_cpu}/{req.gpu_milli}/{req.gpu_count}/{req.models_text}"


def _request(pod: Pod) -> GpuRequest | Status:
    try:
        return gpu_request(pod)
    except GpuShareError as exc:
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (str(exc),))


def _typical_from(data: Any, path: str, errors: list[str]) -> tuple[TypicalPod, ...]:
    out: list[TypicalPod] = []
    if not isinstance(data, Sequence) or isinstance(data, (str, bytes)):
        errors.append(f"{path}: must be a list, got {type(data).__name__}")
        return ()
    for i, item in enumerate(data):
        p = f"{path}[{i}]"
        if not isinstance(item, Mapping):
            errors.append(f"{p}: must be a mapping, got {type(item).__name__}")
            continue
        try:
            models = item.get("gpuModels", ())
            if isinstance(models, str):
                models = tuple(m for m in models.split("|") if m)
            req = GpuRequest(int(item.get("milliCpu", 0)), int(item.get("gpuMilli", 0)),
                             int(item.get("gpuCount", 0)), tuple(models))
            out.append(TypicalPod(req, float(item["weight"])))
        except (KeyError, TypeError, ValueError) as exc:
            errors.append(f"{p}: {type(exc).__name__}: {exc}")
    return tuple(out)


def _typical_tuple(value: Iterable[TypicalPod]) -> tuple[TypicalPod, ...]:
    return tuple(value)


def _check_typical(typical: tuple[TypicalPod, ...], path: str, errors: list[str]) -> None:
    for i, tp in enumerate(typical):
        if not 0.0 <= tp.weight <= 1.0:
            errors.append(f"{path}[{i}].weight: must be in [0, 1], got {tp.weight}")


@final
@attrs.frozen(kw_only=True)
class OpenGpuShareArgs:
    """Args of :class:`OpenGpuShare`: the GPU selection (``best``, ``worst``, ``random`` or ``FGD``), the
    seed of ``random``, the typical pods of ``FGD``, and ``narrow``: PreFilter returns the nodes
    where the pod's GPUs fit (a :class:`~schedframe.PreFilterResult`), so the other Filter
    plugins see only those (the same feasible nodes, listed in name order, so ties may be broken
    differently; faster on a full cluster; a pod that fits nowhere
    then reads "didn't satisfy plugin(s) [OpenGpuShare]" instead of per-node reasons).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.gpushare"

    gpu_selection: str = "best"
    seed: int = 0
    typical_pods: tuple[TypicalPod, ...] = attrs.field(default=(), converter=_typical_tuple)
    narrow: bool = False

    def validate(self) -> None:
        """Raise :class:`~schedframe.PluginArgsError` listing every bad field."""
        errors: list[str] = []
        if self.gpu_selection not in GPU_SELECTIONS:
            errors.append(f"gpuSelection: Unsupported value: {self.gpu_selection!r}: supported values: "
                          + ", ".join(repr(s) for s in GPU_SELECTIONS))
        _check_typical(self.typical_pods, "typicalPods", errors)
        if errors:
            raise PluginArgsError(errors)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> OpenGpuShareArgs:
        """Decode ``{"gpuSelection": "FGD", "seed": 1, "typicalPods": [...]}``."""
        errors: list[str] = []
        unknown = sorted(set(data) - {"gpuSelection", "seed", "typicalPods", "narrow"})
        errors.extend(f"{k}: unknown field" for k in unknown)
        typical = _typical_from(data.get("typicalPods", []), "typicalPods", errors)
        seed = data.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool):
            errors.append(f"seed: must be an integer, got {seed!r}")
            seed = 0
        narrow = data.get("narrow", False)
        if not isinstance(narrow, bool):
            errors.append(f"narrow: must be a boolean, got {narrow!r}")
            narrow = False
        if errors:
            raise PluginArgsError(errors)
        args = cls(gpu_selection=str(data.get("gpuSelection", "best")), seed=seed, typical_pods=typical,
                   narrow=narrow)
        args.validate()
        return args


@final
@attrs.frozen(kw_only=True)
class FGDScoreArgs:
    """Args of :class:`FGDScore`: the workload's typical pods (:func:`typical_pods`). Without
    them no node is fragmented and every node scores 50.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.gpushare"

    typical_pods: tuple[TypicalPod, ...] = attrs.field(default=(), converter=_typical_tuple)

    def validate(self) -> None:
        """Raise :class:`~schedframe.PluginArgsError` listing every bad typical pod."""
        errors: list[str] = []
        _check_typical(self.typical_pods, "typicalPods", errors)
        if errors:
            raise PluginArgsError(errors)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FGDScoreArgs:
        """Decode ``{"typicalPods": [{"milliCpu": 4000, "gpuMilli": 500, "gpuCount": 1,
        "weight": 0.2}, ...]}``."""
        errors: list[str] = [f"{k}: unknown field" for k in sorted(set(data) - {"typicalPods"})]
        typical = _typical_from(data.get("typicalPods", []), "typicalPods", errors)
        if errors:
            raise PluginArgsError(errors)
        args = cls(typical_pods=typical)
        args.validate()
        return args


@final
@attrs.frozen(kw_only=True)
class RandomScoreArgs:
    """Args of :class:`RandomScore`: the seed of its node choice.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.gpushare"

    seed: int = 0

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RandomScoreArgs:
        """Decode ``{"seed": 42}``."""
        errors = [f"{k}: unknown field" for k in sorted(set(data) - {"seed"})]
        seed = data.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool):
            errors.append(f"seed: must be an integer, got {seed!r}")
        if errors:
            raise PluginArgsError(errors)
        return cls(seed=seed)


def _check_args(args: Any, args_type: type, name: str) -> Any:
    if args is None:
        return args_type()
    if not isinstance(args, args_type):
        raise PluginArgsError([f"want args of type {args_type.__name__} for plugin {name!r}, "
                               f"got {type(args).__name__}"])
    return args


def _node_info(handle: Handle, node_name: str) -> NodeInfo | None:
    return handle.snapshot_shared_lister().node_infos().get(node_name)


@final
class OpenGpuShare:
    """Filter + Reserve/Unreserve for GPU-sharing pods (the artefact's ``Open-Gpu-Share``).

    Filter passes pods without GPUs; otherwise it rejects nodes without GPUs or of a model the
    pod does not accept (unresolvable), and nodes without ``gpu_count`` GPUs having
    ``gpu_milli`` free. Reserve picks the GPU(s) with the configured selection and records them
    in the framework's :class:`GpuLedger`; Unreserve forgets them.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.gpushare"

    def __init__(self, args: OpenGpuShareArgs, handle: Handle) -> None:
        self.args = args
        self.handle = handle
        self.ledger = ledger_of(handle)
        self._rng = random.Random(args.seed)
        self._frag = FragModel(args.typical_pods) if args.gpu_selection == "FGD" else None

    @property
    def name(self) -> str:
        """``"OpenGpuShare"``."""
        return OPEN_GPU_SHARE

    def _check(self, req: GpuRequest, state: NodeGpu) -> Status | None:
        if state.count == 0:
            return _NO_GPU_STATUS
        if req.models and not model_accessible(state.model, req.models):
            return _MODEL_STATUS
        if not fits(state, req):
            return _INSUFFICIENT_STATUS
        return None

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        """Skip (no Filter calls) for pods without GPUs; with ``narrow``, the nodes where the
        pod's GPUs fit."""
        req = _request(pod)
        if isinstance(req, Status):
            return None, req
        if req.gpu_milli <= 0:
            return None, Status.skip()
        if not self.args.narrow:
            return None, None
        fails = self.filter_nodes(state, pod, nodes)
        if not fails:
            return None, None
        bad = {i for i, _ in fails}
        return PreFilterResult(frozenset(ni.name for i, ni in enumerate(nodes) if i not in bad)), None

    def pre_filter_extensions(self) -> None:
        """None."""
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Whether the pod's GPUs fit the node."""
        req = _request(pod)
        if isinstance(req, Status):
            return req
        if req.gpu_milli <= 0:
            return None
        return self._check(req, self.ledger.state(node_info))

    def filter_nodes(self, state: CycleState, pod: Pod,
                     nodes: Sequence[NodeInfo]) -> list[tuple[int, Status]]:
        """:meth:`filter` over many nodes (results remembered per node state and request)."""
        req = _request(pod)
        if isinstance(req, Status):
            return [(i, req) for i in range(len(nodes))]
        if req.gpu_milli <= 0:
            return []
        key = _memo_key(OPEN_GPU_SHARE, req)
        sts = self.ledger.states(nodes)
        vals: list[Any] = list(map(dict.get, map(_MEMO, sts), repeat(key)))
        check = self._check
        for i in list(compress(range(len(vals)), map(operator.is_, vals, repeat(None)))):
            st = sts[i]
            v = check(req, st)
            vals[i] = _PASS if v is None else v
            st.memo[key] = vals[i]
        return [(i, vals[i]) for i in compress(range(len(vals)), map(operator.is_not, vals, repeat(_PASS)))]

    def select(self, req: GpuRequest, st: NodeGpu) -> tuple[int, ...]:
        """The GPU(s) the configured selection picks for *req* on *st* (``()``: none fit)."""
        sel = self.args.gpu_selection
        if sel == "FGD" and self._frag is not None:
            return fgd_score(self._frag, st, req)[1]
        if sel == "random":
            return random_fit_ids(st.lefts, req, self._rng)
        if sel == "worst":
            return worst_fit_ids(st.lefts, req)
        return best_fit_ids(st.lefts, req)

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Pick and record the pod's GPU(s) on *node_name*."""
        req = _request(pod)
        if isinstance(req, Status):
            return req
        if req.gpu_milli <= 0:
            return None
        ni = _node_info(self.handle, node_name)
        if ni is None:
            return Status(Code.ERROR, (f"node {node_name!r} not found in the snapshot",))
        ids = self.select(req, self.ledger.state(ni))
        if len(ids) != req.gpu_count:
            return Status(Code.ERROR, (f"failed to allocate GPUs to pod {pod.key} on node {node_name}",))
        self.ledger.reserve(pod, node_name, ids)
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Forget the pod's GPU(s) (idempotent)."""
        self.ledger.release(pod, node_name)

    def gpus_of(self, pod: Pod) -> tuple[int, ...]:
        """The GPU indices *pod* holds (``()`` when none are recorded)."""
        return self.ledger.assigned.get(pod.uid, ())


class _Scorer:
    """Shared parts of the score plugins: per-state memo and the batch loop."""

    __slots__ = ()

    NAME = ""
    handle: Handle
    ledger: GpuLedger

    @property
    def name(self) -> str:
        """The plugin's name."""
        return self.NAME

    def score_state(self, st: NodeGpu, req: GpuRequest) -> int:
        raise NotImplementedError

    def _score_of(self, st: NodeGpu, req: GpuRequest) -> int:
        key = _memo_key(self.NAME, req)
        memo = st.memo
        value = memo.get(key)
        if value is None:
            value = memo[key] = self.score_state(st, req)
        return value

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The node's score for the pod."""
        req = _request(pod)
        if isinstance(req, Status):
            return 0, Status(Code.ERROR, req.reasons)
        return self._score_of(self.ledger.state(node_info), req), None

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> list[int] | Status:
        """:meth:`score` over many nodes (scores remembered per node state and request)."""
        req = _request(pod)
        if isinstance(req, Status):
            return Status(Code.ERROR, req.reasons)
        key = _memo_key(self.NAME, req)
        sts = self.ledger.states(nodes)
        vals: list[Any] = list(map(dict.get, map(_MEMO, sts), repeat(key)))
        compute = self.score_state
        for i in list(compress(range(len(vals)), map(operator.is_, vals, repeat(None)))):
            st = sts[i]
            vals[i] = st.memo[key] = compute(st, req)
        return vals

    def score_extensions(self) -> Any:
        """None: scores are already in [0, 100]."""
        return None


@final
class FGDScore(_Scorer):
    """Fragmentation Gradient Descent: ``int(100 * sigmoid((F_before - F_after) / 1000))``,
    where F is the node's fragmentation against the typical pods (:class:`FragModel`).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.gpushare"
    NAME = FGD_SCORE

    def __init__(self, args: FGDScoreArgs, handle: Handle) -> None:
        self.args = args
        self.handle = handle
        self.ledger = ledger_of(handle)
        self.model = FragModel(args.typical_pods)
        self._scores: dict[tuple[object, ...], int] = {}

    def score_state(self, st: NodeGpu, req: GpuRequest) -> int:
        """FGD's score of *req* on *st* (remembered per GPU model, free GPU milli and class of
        free CPU before and after, which is all it depends on)."""
        model = self.model
        key = (req, st.model, st.sorted_lefts, model.cpu_class(st.cpu_left),
               model.cpu_class(st.cpu_left - req.milli_cpu))
        value = self._scores.get(key)
        if value is None:
            value = self._scores[key] = fgd_score(model, st, req)[0]
        return value


def best_fit_raw(st: NodeGpu, req: GpuRequest) -> int:
    """BestFit's raw score: ``int(100 * (1 - (0.5 (cpu_free - cpu) / 128000 + 0.5 (gpu_free -
    gpu) / 8000)))``, -1 when the request does not fit."""
    free = (float(st.cpu_left), float(st.total_left))
    want = (float(req.milli_cpu), float(req.total_milli))
    spec = (float(MAX_SPEC_CPU), float(MAX_SPEC_GPU))
    score = 0.0
    for i in range(2):
        if free[i] < want[i]:
            return -1
        score += (free[i] - want[i]) / spec[i] * 0.5
    return int((1.0 - score) * _MAX_SCORE)


@final
class BestFitScore(_Scorer):
    """BestFit: the node left with the least free CPU and GPU (each normalised by the largest
    node, weighted 0.5), scores min-max normalised to [0, 100] (all 0 when equal).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.gpushare"
    NAME = BEST_FIT_SCORE

    def __init__(self, args: Any, handle: Handle) -> None:
        self.handle = handle
        self.ledger = ledger_of(handle)

    def score_state(self, st: NodeGpu, req: GpuRequest) -> int:
        """The raw BestFit score (before normalisation)."""
        return best_fit_raw(st, req)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The raw score; an ERROR when the pod does not fit (Filter should have said so)."""
        value, status = _Scorer.score(self, state, pod, node_info)
        if status is None and value < 0:
            return 0, Status(Code.ERROR, (f"the pod does not fit node {node_info.name}",))
        return value, status

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> list[int] | Status:
        """:meth:`score` over many nodes."""
        out = _Scorer.score_nodes(self, state, pod, nodes)
        if isinstance(out, list):
            for i, v in enumerate(out):
                if v < 0:
                    return Status(Code.ERROR, (f"the pod does not fit node {nodes[i].name}",))
        return out

    def score_extensions(self) -> BestFitScore:
        """Itself: min-max normalisation."""
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """Map the lowest score to 0 and the highest to 100 (integer arithmetic); all 0 when
        they are equal."""
        values = self.normalize_score_ints(state, pod, (), [s.score for s in scores])
        assert isinstance(values, list)
        for i, s in enumerate(scores):
            scores[i] = NodeScore(s.name, values[i])
        return None

    def normalize_score_ints(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo],
                             scores: list[int]) -> list[int] | Status:
        """:meth:`normalize_score` on plain ints."""
        if not scores:
            return scores
        lo = min(scores)
        span = max(scores) - lo
        if span == 0:
            return [0] * len(scores)
        return [(v - lo) * _MAX_SCORE // span for v in scores]


def packing_score(st: NodeGpu, req: GpuRequest) -> int:
    """GpuPacking's score: 0 for pods without GPUs; on an idle node ``max(33 - n, n)`` (n GPUs);
    when the pod needs fully free GPUs on a used node ``max(50 - k, 33)`` (k such GPUs);
    otherwise (shares of used GPUs) ``max(100 - s // 10, 50)`` with s the sum of the used GPUs'
    free percentages."""
    if req.gpu_milli <= 0:
        return 0
    free = st.full_free
    if free == st.count:
        return max(_MAX_SCORE // 3 - free, free)
    lefts = st.lefts
    order = sorted(range(len(lefts)), key=lefts.__getitem__)
    need = req.gpu_count
    full_used = 0
    chosen: list[int] = []
    for i in order:
        if need == 0:
            break
        if req.gpu_milli <= lefts[i]:
            need -= 1
            chosen.append(i)
            if lefts[i] == MILLI:
                full_used += 1
    if need != 0:
        return 0
    if full_used > 0:
        return max(_MAX_SCORE // 2 - full_used, _MAX_SCORE // 3)
    ratio = 0
    for i in chosen:
        ratio += lefts[i] * 100 // MILLI
    return max(_MAX_SCORE - ratio // 10, _MAX_SCORE // 2)


@final
class GpuPackingScore(_Scorer):
    """GpuPacking: prefer sharing used GPUs, then free GPUs of used nodes, then idle nodes.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.gpushare"
    NAME = GPU_PACKING_SCORE

    def __init__(self, args: Any, handle: Handle) -> None:
        self.handle = handle
        self.ledger = ledger_of(handle)

    def score_state(self, st: NodeGpu, req: GpuRequest) -> int:
        """``packing_score``."""
        return packing_score(st, req)


def clustering_score(st: NodeGpu, req: GpuRequest) -> int:
    """GpuClustering's score: 0 for pods without GPUs; otherwise ``25 * used / 8000`` (integer,
    used = 8000 - free GPU milli) plus 75 when the node holds only pods of the pod's kind
    (share, 1-GPU, 2-GPU...), 50 when it holds that kind among others, 25 when it holds no GPU
    pod, 0 when it holds only other kinds."""
    tag = req.affinity_tag
    if req.gpu_milli <= 0:
        return 0
    base = (_MAX_SCORE // 4) * (MAX_SPEC_GPU - st.total_left) // MAX_SPEC_GPU
    kinds = st.affinity
    if kinds.get(tag, 0) > 0:
        return base + (_MAX_SCORE * 3 // 4 if len(kinds) == 1 else _MAX_SCORE * 2 // 4)
    return base + (_MAX_SCORE // 4 if not kinds else 0)


@final
class GpuClusteringScore(_Scorer):
    """GpuClustering: put pods of the same GPU kind together.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.gpushare"
    NAME = GPU_CLUSTERING_SCORE

    def __init__(self, args: Any, handle: Handle) -> None:
        self.handle = handle
        self.ledger = ledger_of(handle)

    def score_state(self, st: NodeGpu, req: GpuRequest) -> int:
        """``clustering_score``."""
        return clustering_score(st, req)


def dot_product_score(st: NodeGpu, req: GpuRequest) -> int:
    """DotProduct (Tetris), the artefact's ``merge`` / ``max`` variant: ``int(100 * (1 - (c_n c_p
    + g_n g_p) / 2))`` with the node's free CPU and GPU milli and the pod's request, each divided
    by 128,000 and 8,000; 0 when the pod's CPU does not fit."""
    if st.cpu_left < req.milli_cpu:
        return 0
    node = (st.cpu_left / MAX_SPEC_CPU, st.total_left / MAX_SPEC_GPU)
    pod = (req.milli_cpu / MAX_SPEC_CPU, req.total_milli / MAX_SPEC_GPU)
    dot = 0.0
    for i in range(2):
        dot += node[i] * pod[i]
    dot /= 2.0
    return int(_MAX_SCORE * (1.0 - dot))


@final
class DotProductScore(_Scorer):
    """DotProduct: prefer the node whose free resources align least with the request.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.gpushare"
    NAME = DOT_PRODUCT_SCORE

    def __init__(self, args: Any, handle: Handle) -> None:
        self.handle = handle
        self.ledger = ledger_of(handle)

    def score_state(self, st: NodeGpu, req: GpuRequest) -> int:
        """``dot_product_score``."""
        return dot_product_score(st, req)


_RANDOM_KEY: Final = StateKey[str]("PreScore" + RANDOM_SCORE, writer=RANDOM_SCORE)


@final
class RandomScore:
    """Random: PreScore picks one of the feasible nodes uniformly at random (seeded); Score gives
    it 100 and the others 0.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.gpushare"

    def __init__(self, args: RandomScoreArgs, handle: Handle) -> None:
        self.rng = random.Random(args.seed)

    @property
    def name(self) -> str:
        """``"RandomScore"``."""
        return RANDOM_SCORE

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """Pick the node."""
        if not nodes:
            return Status.skip()
        state.write(_RANDOM_KEY, nodes[self.rng.randrange(len(nodes))].name)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """100 for the picked node, 0 otherwise."""
        return (_MAX_SCORE if node_info.name == state.read(_RANDOM_KEY) else 0), None

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> list[int] | Status:
        """:meth:`score` over many nodes."""
        chosen = state.read(_RANDOM_KEY)
        return [_MAX_SCORE if ni.name == chosen else 0 for ni in nodes]

    def score_extensions(self) -> None:
        """None."""
        return None


def _new_open_gpu_share(args: Any, handle: Handle) -> OpenGpuShare:
    return OpenGpuShare(_check_args(args, OpenGpuShareArgs, OPEN_GPU_SHARE), handle)


def _new_fgd(args: Any, handle: Handle) -> FGDScore:
    return FGDScore(_check_args(args, FGDScoreArgs, FGD_SCORE), handle)


def _new_random(args: Any, handle: Handle) -> RandomScore:
    return RandomScore(_check_args(args, RandomScoreArgs, RANDOM_SCORE), handle)


def _no_args(cls: type[_Scorer]) -> Any:
    def new(args: Any, handle: Handle) -> Any:
        if args is not None:
            raise PluginArgsError([f"plugin {cls.NAME!r} takes no args, got {type(args).__name__}"])
        return cls(None, handle)  # type: ignore[call-arg]
    return new


def register_gpushare_plugins(registry: Registry) -> Registry:
    """Register the gpushare plugins in *registry* (returned for chaining)."""
    registry.register(OPEN_GPU_SHARE, _new_open_gpu_share, args_type=OpenGpuShareArgs)
    registry.register(FGD_SCORE, _new_fgd, args_type=FGDScoreArgs)
    registry.register(BEST_FIT_SCORE, _no_args(BestFitScore))
    registry.register(GPU_PACKING_SCORE, _no_args(GpuPackingScore))
    registry.register(GPU_CLUSTERING_SCORE, _no_args(GpuClusteringScore))
    registry.register(DOT_PRODUCT_SCORE, _no_args(DotProductScore))
    registry.register(RANDOM_SCORE, _new_random, args_type=RandomScoreArgs)
    return registry


def gpushare_registry() -> Registry:
    """The in-tree registry plus the gpushare plugins."""
    from ..plugins import in_tree_registry

    return register_gpushare_plugins(in_tree_registry())


if TYPE_CHECKING:
    _h: Handle = None  # type: ignore[assignment]
    _f: BatchFilterPlugin = OpenGpuShare(OpenGpuShareArgs(), _h)
    _r: ReservePlugin = OpenGpuShare(OpenGpuShareArgs(), _h)
    _pf: PreFilterPlugin = OpenGpuShare(OpenGpuShareArgs(), _h)
    _s1: BatchScorePlugin = FGDScore(FGDScoreArgs(), _h)
    _s2: BatchScorePlugin = BestFitScore(None, _h)
    _s3: BatchScorePlugin = GpuPackingScore(None, _h)
    _s4: BatchScorePlugin = GpuClusteringScore(None, _h)
    _s5: BatchScorePlugin = DotProductScore(None, _h)
    _s6: BatchScorePlugin = RandomScore(RandomScoreArgs(), _h)
    _p: PreScorePlugin = RandomScore(RandomScoreArgs(), _h)
    _n: BatchScoreExtensions = BestFitScore(None, _h)
