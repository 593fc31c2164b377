"""Sphinx configuration for schedframe's documentation."""

from __future__ import annotations

import importlib.metadata

project = "schedframe"
author = "schedframe maintainers"
copyright = "2026, schedframe maintainers"
release = importlib.metadata.version("schedframe")
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.intersphinx",
    "sphinx.ext.viewcode",
]
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": False}
napoleon_google_docstring = True
napoleon_numpy_docstring = False
intersphinx_mapping: dict[str, tuple[str, str | None]] = {}
nitpicky = False
exclude_patterns = ["_build", "_generated", "examples/**/README.md"]
html_theme = "alabaster"
html_static_path: list[str] = []
# Type annotations name stdlib generics, private helpers and TypeVars that have no page here.
nitpick_ignore_regex = [
    (r"py:.*", r"(collections\.abc|typing|typing_extensions|enum|fractions|os|pluggy|attrs|threading)\..*"),
    (r"py:class", r"(.*\.)?(Fraction|FrozenDict)"),
    (r"py:.*", r"(.*\.)?_\w+(\..*)?"),
    (r"py:(class|obj)", r"(.*\.)?[TKV]"),
    (r"py:class", r"(.*\.)?(ProfileLike|PluginRefLike|QueueingHintFn|Self|Diagnosis|ApiObject|ValidateMode)"),
    (r"py:class", r"random\.Random"),
]


# The simulator guide shows the default built-in scenario's plots, drawn at build time (matplotlib's
# Agg backend: no display needed). Without matplotlib a blank placeholder keeps the build working.
_PLACEHOLDER_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6300010000000500010d0a2db40000000049454e44ae426082")


def _simulator_plot(app: object) -> None:
    import pathlib

    out = pathlib.Path(__file__).parent / "_generated" / "three-zones.png"
    out.parent.mkdir(exist_ok=True)
    try:
        from schedframe.cli._plot import plot_results
        from schedframe.sim import compare

        plot_results(compare("three-zones").results, str(out))
    except ImportError:
        out.write_bytes(_PLACEHOLDER_PNG)


# The GPU-sharing page's reproduction table and plot come from our committed openb results
# (docs/data/openb-runs.jsonl, one JSON line per run as `schedframe gpushare run --json` prints),
# summarised by the library itself, so the page cannot drift from the data.
def _openb_results(app: object) -> None:
    import pathlib

    here = pathlib.Path(__file__).parent
    out = here / "_generated"
    out.mkdir(exist_ok=True)
    from schedframe.gpushare import read_results, summarise

    rows = read_results(here / "data" / "openb-runs.jsonl")
    lines = [".. list-table::", "   :header-rows: 1", "",
             "   * - Trace", "     - Policy", "     - Seeds", "     - Ours: mean (min-max)",
             "     - Paper: mean 42-51", "     - Difference"]
    for r in summarise(rows):
        seeds = f"{r.seeds[0]}-{r.seeds[-1]}" if list(r.seeds) == list(range(r.seeds[0], r.seeds[-1] + 1)) \
            else ", ".join(map(str, r.seeds))
        lines += [f"   * - {r.trace}", f"     - {r.policy}", f"     - {seeds} ({len(r.seeds)})",
                  f"     - **{r.mean:.2f}** ({r.low:.2f}-{r.high:.2f})",
                  "     - -" if r.paper is None else f"     - {r.paper:.2f}",
                  "     - -" if r.diff is None else f"     - {r.diff:+.2f}"]
    (out / "openb-table.rst").write_text("\n".join(lines) + "\n")
    png = out / "openb-default.png"
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        png.write_bytes(_PLACEHOLDER_PNG)
        return
    from schedframe.gpushare import plot_alloc

    plot_alloc(rows, "default", png)


# The release pages' tables (what differs between releases, the feature gates per release) come
# from the facts generated from each release's kube-scheduler and schedframe's own tables.
def _release_tables(app: object) -> None:
    import pathlib

    from schedframe.framework._release_tables import write

    write(pathlib.Path(__file__).parent / "_generated")


# The fidelity page's table comes from the oracle matrix (docs/data/oracle-matrix.json, written by
# `scripts/oracle matrix --write`) and its deviations from the comparator's own list.
def _oracle_tables(app: object) -> None:
    import json
    import pathlib
    import sys

    here = pathlib.Path(__file__).parent
    out = here / "_generated"
    out.mkdir(exist_ok=True)
    rows = json.loads((here / "data" / "oracle-matrix.json").read_text())
    lines = [".. list-table::", "   :header-rows: 1", "",
             "   * - Release", "     - Cases: generated, hand-written, benchmarks and scenarios",
             "     - Scheduling cycles", "     - Cases that differ", "     - Deliberate deviations met",
             "     - Run time"]
    for r in rows:
        met = ", ".join(f"``{k}`` ({n} cases)" for k, n in sorted(r["deviations"].items())) or "none"
        lines += [f"   * - {r['release']} (v{r['patch']})",
                  f"     - {r['generated']}, {r['handWritten']}, {r.get('sources', 0)}",
                  f"     - {r['cycles']:,}", f"     - **{r['differ']}**", f"     - {met}",
                  f"     - {r['seconds']:.0f} s"]
    (out / "oracle-matrix.rst").write_text("\n".join(lines) + "\n")
    sys.path.insert(0, str(here.parent / "oracle"))
    try:
        from schedframe_oracle.diff import DEVIATIONS
    finally:
        sys.path.pop(0)
    text = []
    for d in DEVIATIONS:
        text.append(f"* ``{d.key}`` ({', '.join(sorted(d.releases))}): {d.reason}.")
    (out / "oracle-deviations.rst").write_text("\n".join(text) + "\n")


def setup(app: object) -> None:
    app.connect("builder-inited", _oracle_tables)  # type: ignore[attr-defined]
    app.connect("builder-inited", _release_tables)  # type: ignore[attr-defined]
    app.connect("builder-inited", _simulator_plot)  # type: ignore[attr-defined]
    app.connect("builder-inited", _openb_results)  # type: ignore[attr-defined]
