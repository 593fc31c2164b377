"""The ``Scheduler``: owns the cache, the queue and one framework per profile, plays the
informers' part through its event handlers, and runs the scheduling and binding cycles; plus
``explain()``, a structured record of one scheduling attempt.

May import every layer below it: config, queue, plugins, framework, cache, api.
"""

from __future__ import annotations

from ._explain_group import GroupExplanation, explain_group
from .explain import (
    Explanation,
    NodeScores,
    NodeVerdict,
    PluginNodeScore,
    PluginVerdict,
    explain,
    explain_with,
)
from .scheduler import (
    ERR_NO_NODES_AVAILABLE,
    MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND,
    MIN_FEASIBLE_NODES_TO_FIND,
    Diagnosis,
    FitError,
    PendingPod,
    RunSummary,
    Scheduler,
)

__all__ = [
    "Diagnosis",
    "ERR_NO_NODES_AVAILABLE",
    "Explanation",
    "FitError",
    "GroupExplanation",
    "MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND",
    "MIN_FEASIBLE_NODES_TO_FIND",
    "NodeScores",
    "NodeVerdict",
    "PendingPod",
    "PluginNodeScore",
    "PluginVerdict",
    "RunSummary",
    "Scheduler",
    "explain",
    "explain_group",
    "explain_with",
]
