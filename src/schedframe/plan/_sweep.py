"""The ``plan`` task of :func:`schedframe.sweep.sweep`: one plan as a flat row, so a sweep can grid
strategies, template files and thresholds."""

from __future__ import annotations

from typing import Any

from ._plan import DEFAULT_THRESHOLD, plan

__all__ = ["sweep_task"]


def sweep_task(cluster: str | None = None, templates: str | None = None, pending: str | None = None,
               config: str | None = None, strategy: str = "least-waste", scale_up: bool = True,
               scale_down: bool = False, threshold: float = DEFAULT_THRESHOLD, seed: int = 0
               ) -> dict[str, Any]:
    """The ``plan`` sweep task: :func:`~schedframe.plan.plan` on files (``cluster`` ``None``:
    the built-in example, with its templates and configuration unless given), as a flat row:
    ``nodes_added``, ``add.<template>`` per template, ``cost``, ``placed``, ``unhelpable``,
    ``lower_bound`` and ``above_bound`` (the nodes no plan goes below, and how far above it this
    one is), ``nodes_removed``, ``removable`` (names, removal order), ``verified`` and
    ``simulations``.

    .. versionadded:: 0.1.0
    """
    from .example import EXAMPLE_CONFIG, example_cluster, example_templates

    objects: Any = cluster
    tmpl: Any = templates
    cfg: Any = config
    if cluster is None:
        from ..api.manifests import object_from_manifest
        from ._templates import templates_from_data

        objects = [object_from_manifest(m) for m in example_cluster()]
        if templates is None:
            tmpl = templates_from_data(example_templates(), source="the built-in example")
        if config is None:
            cfg = EXAMPLE_CONFIG
    r = plan(objects, () if tmpl is None else tmpl, pending=pending, config=cfg, strategy=strategy,
             scale_up=scale_up, scale_down=scale_down, threshold=threshold, seed=seed)
    row: dict[str, Any] = {}
    up, down = r.scale_up, r.scale_down
    if up is not None:
        row["nodes_added"] = up.node_count
        for t in r.templates:
            row[f"add.{t.name}"] = up.nodes_to_add.get(t.name, 0)
        row["cost"] = up.cost
        row["placed"] = len(up.placements)
        row["unhelpable"] = len(up.unhelpable)
        row["simulations"] = up.simulations
        row["lower_bound"] = up.lower_bound
        row["above_bound"] = up.above_bound
    if down is not None:
        row["nodes_removed"] = len(down.removable)
        row["removable"] = " ".join(down.removable)
    row["pending"] = len(r.pending)
    row["verified"] = r.verified
    return row
