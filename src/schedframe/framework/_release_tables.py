"""The release tables of docs/releases.rst, made from the facts and schedframe's tables.

``release-differences.rst`` lists, per release, what changes from the one before it in what
schedframe models: the default plugins (from each release's own defaulting, the facts), the
behaviour switches (``RELEASE_DIFFERENCES``) and the modelled gates whose default or lock
changed. ``release-gates.rst`` is the table of the gates the scheduler reads, with their default
at each release and what schedframe does with them. The documentation build writes both (into
``docs/_generated``), so they cannot go stale.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

__all__ = ["render", "write"]

_HEADER: Final = (
    ".. Written by the documentation build (schedframe.framework._release_tables) from\n"
    "   src/schedframe/framework/_release_facts.json and schedframe's tables: do not edit.\n\n"
)


def _minor(r: str) -> int:
    return int(r.split(".")[1])


def _plugin_changes(before: Sequence[Sequence[Any]], after: Sequence[Sequence[Any]]) -> list[str]:
    """What changed in the default multiPoint list from *before* to *after*, in words."""
    b: dict[str, int] = {str(n): int(w) for n, w in before}
    a: dict[str, int] = {str(n): int(w) for n, w in after}
    out: list[str] = []
    for i, (name, weight) in enumerate(after):
        if name not in b:
            where = "at the end" if i == len(after) - 1 else f"before {after[i + 1][0]}"
            out.append(f"adds ``{name}``" + (f" (weight {weight})" if weight else "") + f", {where}")
        elif b[name] != weight:
            out.append(f"``{name}``'s weight goes from {b[name]} to {weight}")
    for name in b:
        if name not in a:
            out.append(f"drops ``{name}``")
    common_b = [n for n, _ in before if n in a]
    common_a = [n for n, _ in after if n in b]
    if common_b != common_a:
        moved = [n for i, n in enumerate(common_a) if common_b[i] != n]
        out.append(
            "reorders "
            + ", ".join(f"``{n}``" for n in moved)
            + f" (now {', '.join(common_a[: common_a.index(moved[-1]) + 1][-len(moved) :])})"
        )
    return out


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], widths: str, title: str = "") -> str:
    lines = [
        f".. list-table::{(' ' + title) if title else ''}",
        "   :header-rows: 1",
        f"   :widths: {widths}",
        "",
    ]
    for row in [header, *rows]:
        for i, cell in enumerate(row):
            lines.append(("   * - " if i == 0 else "     - ") + (cell or "\\-"))
    return "\n".join(lines) + "\n"


def render(facts: Mapping[str, Any] | None = None) -> dict[str, str]:
    """The generated files: name -> text."""
    from ._features import FEATURE_GATES, release_facts
    from .releases import RELEASE_DIFFERENCES

    facts = facts if facts is not None else release_facts()
    releases = sorted(facts, key=_minor)
    rows: list[list[str]] = []
    for prev, cur in itertools.pairwise(releases):
        changes = _plugin_changes(facts[prev]["defaultPlugins"][""], facts[cur]["defaultPlugins"][""])
        if changes:
            rows.append(
                [
                    cur,
                    "default plugins",
                    "; ".join(changes) + ".",
                    f"the default profile of {facts[cur]['release']}",
                ]
            )
        for d in RELEASE_DIFFERENCES.values():
            if d.since == cur:
                rows.append([cur, f"``{d.key}``", d.summary + ".", d.reference])
        for name, gate in FEATURE_GATES.items():
            if not gate.modelled:
                continue
            a, b = facts[prev]["gates"].get(name), facts[cur]["gates"].get(name)
            what = ""
            if a is None and b is not None:
                what = f"the gate appears, {'on' if b[0] else 'off'} by default ({gate.modelled})."
            elif a is not None and b is None:
                what = "the gate is gone (its behaviour stays as it was by default)."
            elif a is not None and b is not None and a[0] != b[0]:
                what = f"{'on' if b[0] else 'off'} by default ({gate.modelled})."
            elif a is not None and b is not None and a[2] != b[2]:
                what = f"locked {'on' if b[0] else 'off'}: it can no longer be switched."
            if what:
                rows.append([cur, f"``{name}`` gate", what, f"the feature gates of {facts[cur]['release']}"])
    differences = _HEADER + _table(["Since", "What", "What changes", "Source"], rows, "8 20 52 20")

    gate_rows: list[list[str]] = []
    for name, gate in sorted(FEATURE_GATES.items()):
        cells = [f"``{name}``"]
        for r in releases:
            g = facts[r]["gates"].get(name)
            cells.append("-" if g is None else ("on" if g[0] else "off") + (", locked" if g[2] else ""))
        if gate.modelled:
            scope = "" if not gate.modelled_in else f" (in {', '.join(sorted(gate.modelled_in, key=_minor))})"
            what = f"modelled{scope}: {gate.modelled}"
            if gate.modelled_in and gate.note:
                what += f"; elsewhere default only: {gate.note}"
        else:
            what = f"default only: {gate.note}"
        cells.append(what)
        gate_rows.append(cells)
    widths = " ".join(["26"] + ["7"] * len(releases) + ["32"])
    gates = _HEADER + _table(
        ["Gate", *releases, "schedframe"],
        gate_rows,
        widths,
        "Scheduler feature gates: default per release (-: not in that release)",
    )
    return {"release-differences.rst": differences, "release-gates.rst": gates}


def write(where: Path) -> list[Path]:
    """Write the generated files; their paths."""
    where.mkdir(parents=True, exist_ok=True)
    out = []
    for name, text in render().items():
        path = where / name
        path.write_text(text, encoding="utf-8")
        out.append(path)
    return out
