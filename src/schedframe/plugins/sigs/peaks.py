"""Peaks: power-aware placement, the node whose power draw rises least
(kubernetes-sigs/scheduler-plugins ``pkg/trimaran/peaks``).

Each node has a power model ``P(u) = k0 + k1 * exp(k2 * u)`` of its CPU utilisation ``u`` in
percent (``NodePowerModel``; a node without one has ``k0 = k1 = k2 = 0``). Score: the node's CPU
utilisation ``x`` (the first ``CPU`` metric with operator ``AVG`` or ``Latest``) and the predicted
``p = 100 * (x * cap / 100 + request) / cap`` (``cap``: the node's CPU capacity in millicores,
``request``: the pod's CPU request); ``p > 100`` scores 0, otherwise the score is the power jump
``k1 * (exp(k2 * p) - exp(k2 * x))`` times 10^15, truncated. No metrics: 0. NormalizeScore
inverts: ``100 - trunc(100 * (s - min) / (max - min))`` (every node 100 when all are equal and not
all 0; nothing changes when all are 0), so the smallest power jump wins.

Args, named as upstream decodes them (its JSON tags are malformed, so the Go field names stand):
``WatcherAddress`` (required) and ``NodePowerModel`` (node name -> ``{k0, k1, k2}``). Without
``NodePowerModel``, the models are read from the JSON file the ``NODE_POWER_MODEL`` environment
variable names (unknown fields are errors). Upstream v0.34.7 reads and checks that file but the
models it decodes do not reach the plugin (every node then has the zero model); schedframe uses
them.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, final

import attrs

from ..._textio import read_text
from ...api.objects import Pod
from ...cache.nodeinfo import NodeInfo
from ...errors import InputError, PluginArgsError, json_type_name
from ...framework.args import decode_args
from ...framework.cycle_state import CycleState
from ...framework.handle import Handle
from ...framework.interfaces import MAX_NODE_SCORE, MIN_NODE_SCORE, NodeScore
from ...framework.registry import plugin_args
from ...framework.status import Status
from .._helpers import WithArgs
from ._load import AVERAGE, LATEST, Collector, TrimaranSpec, node_cpu_capacity
from ._load import CPU as CPU_METRIC

if TYPE_CHECKING:
    pass

__all__ = ["ARGS_TYPE", "NAME", "POWER_MODEL_ENV", "Peaks", "PeaksArgs", "PowerModel", "new"]

NAME: Final = "Peaks"
#: The environment variable naming the power model file.
POWER_MODEL_ENV: Final = "NODE_POWER_MODEL"


@final
@attrs.frozen
class PowerModel:
    """A node's power model ``k0 + k1 * exp(k2 * utilisation)``.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"

    k0: float = 0.0
    k1: float = 0.0
    k2: float = 0.0


def _models(raw: Any, path: str, errors: list[str]) -> dict[str, PowerModel]:
    if not isinstance(raw, Mapping):
        errors.append(f"{path}: must be a mapping, got {json_type_name(raw)}")
        return {}
    out: dict[str, PowerModel] = {}
    for node, m in raw.items():
        if not isinstance(m, Mapping):
            errors.append(f"{path}.{node}: must be a mapping, got {json_type_name(m)}")
            continue
        try:
            out[str(node)] = decode_args(PowerModel, m)
        except PluginArgsError as exc:
            errors.extend(f"{path}.{node}.{e}" for e in exc.errors)
    return out


def read_power_model_file(path: str) -> dict[str, PowerModel]:
    """The power models of a JSON file (node name -> ``{k0, k1, k2}``); raises
    :class:`~schedframe.PluginArgsError` naming the file."""
    try:
        text = read_text(path, max_bytes=16 << 20, what="the power model file")
        data = json.loads(text)
    except (InputError, ValueError) as exc:
        raise PluginArgsError(f"{NAME}: unable to read the power model file {path!r} "
                              f"(${POWER_MODEL_ENV}): {exc}") from None
    errors: list[str] = []
    models = _models(data, path, errors)
    if errors:
        raise PluginArgsError(errors)
    return models


@final
@attrs.frozen(kw_only=True)
class PeaksArgs:
    """``PeaksArgs``: ``WatcherAddress`` and ``NodePowerModel``.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"

    watcher_address: str = attrs.field(default="", metadata={"json": "WatcherAddress"})
    node_power_model: Mapping[str, PowerModel] = attrs.field(
        factory=dict, metadata={"json": "NodePowerModel"})

    def spec(self) -> TrimaranSpec:
        """The TrimaranSpec upstream builds: the watcher address alone (no provider type)."""
        return TrimaranSpec(watcher_address=self.watcher_address or None)

    def errors(self) -> list[str]:
        """The collector's ``checkSpecs`` (a watcher address is required)."""
        return self.spec().errors()


ARGS_TYPE: Final = PeaksArgs


def power_jump(x: float, p: float, m: PowerModel) -> float:
    """upstream ``getPowerJumpForUtilisation``."""
    return m.k1 * (math.exp(m.k2 * p) - math.exp(m.k2 * x))


@final
class Peaks(WithArgs[PeaksArgs]):
    """The Peaks plugin (Score with NormalizeScore).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"
    __slots__ = ("_args", "_collector", "_models")

    def __init__(self, args: PeaksArgs, handle: Handle, models: Mapping[str, PowerModel]) -> None:
        self._args = args
        self._collector = Collector(NAME, args.spec(), handle)
        self._models = dict(models)

    @property
    def name(self) -> str:
        """``"Peaks"``."""
        return NAME

    @property
    def power_models(self) -> Mapping[str, PowerModel]:
        """The nodes' power models in use."""
        return self._models

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The power jump above, times 10^15."""
        metrics, _ = self._collector.node_metrics(node_info.name)
        if metrics is None:
            return MIN_NODE_SCORE, None
        request = pod.requests.milli_cpu
        util: float | None = None
        for m in metrics:
            if m.type == CPU_METRIC and m.operator in (AVERAGE, LATEST):
                util = m.value
                break
        if util is None:
            return MIN_NODE_SCORE, None
        cap = float(node_cpu_capacity(node_info))
        predicted = 100 * (util / 100 * cap + request) / cap if cap else 0.0
        if predicted > 100:
            return MIN_NODE_SCORE, None
        jump = power_jump(util, predicted, self._models.get(node_info.name, PowerModel()))
        return int(jump * 1e15), None

    def score_extensions(self) -> Peaks:
        """NormalizeScore inverts the power jumps onto [0, 100]."""
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """upstream ``NormalizeScore``."""
        if not scores:
            return None
        lo = min(s.score for s in scores)
        hi = max(s.score for s in scores)
        if lo == 0 and hi == 0:
            return None
        for i, s in enumerate(scores):
            norm = MAX_NODE_SCORE * (s.score - lo) / (hi - lo) if hi != lo else float(s.score - lo)
            scores[i] = NodeScore(s.name, MAX_NODE_SCORE - int(norm))
        return None


def new(args: object, handle: Handle) -> Peaks:
    """Factory: *args* is ``None``, a :class:`PeaksArgs` or a mapping."""
    parsed = plugin_args(args, PeaksArgs)
    models: Mapping[str, PowerModel] = parsed.node_power_model
    if not models:
        models = read_power_model_file(os.environ.get(POWER_MODEL_ENV, ""))
    return Peaks(parsed, handle, models)


if TYPE_CHECKING:
    from ...framework.interfaces import ScoreExtensions, ScorePlugin

    def _check(p: Peaks) -> None:
        _a: ScorePlugin = p
        _b: ScoreExtensions = p
