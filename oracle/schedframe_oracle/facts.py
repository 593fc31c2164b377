"""The facts of each release that schedframe's release table is generated from.

For each emulated minor, from the oracle (the release's own binary) and from the module source
at its tag:

* every feature gate kube-scheduler accepts, with its default, stage and lock at that release,
  and the gates it depends on;
* the gates the scheduler's code reads (``features.X`` under ``pkg/scheduler``, tests left out):
  the ones schedframe must model or say how it behaves without;
* the default ``multiPoint`` plugins with their weights, under the release's default gates and
  with each gate that changes them switched;
* the defaulted plugin args and the top-level defaults of the configuration.

``scripts/oracle facts --write`` regenerates ``src/schedframe/framework/_release_facts.json``;
``tests/oracle/test_facts.py`` checks the file against the oracles when they are built, and
schedframe's tables against the file always.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from . import binary

__all__ = ["FACTS_FILE", "PLUGIN_GATES", "collect", "module_dir", "scheduler_gates", "write"]

FACTS_FILE: Final = binary.ORACLE_DIR.parent / "src" / "schedframe" / "framework" / "_release_facts.json"

#: gates whose value changes the default plugins (upstream applyFeatureGates), with the gates
#: each needs on
PLUGIN_GATES: Final[Mapping[str, tuple[str, ...]]] = {
    "DynamicResourceAllocation": (),
    "NodeDeclaredFeatures": (),
    "GenericWorkload": (),
    "GangScheduling": ("GenericWorkload",),
    "TopologyAwareWorkloadScheduling": ("GenericWorkload",),
    "InPlacePodVerticalScalingSchedulerPreemption": ("InPlacePodVerticalScaling",),
}

_FEATURE_REF: Final = re.compile(r"\bfeatures\.([A-Z][A-Za-z0-9]+)\b")


def module_dir(release: str) -> Path:
    """The k8s.io/kubernetes module source of *release* in the Go module cache."""
    version = binary.RELEASES[release]
    proc = subprocess.run(
        ["go", "mod", "download", "-json", f"k8s.io/kubernetes@v{version}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise binary.OracleError(f"go mod download k8s.io/kubernetes@v{version}: {proc.stderr.strip()}")
    return Path(json.loads(proc.stdout)["Dir"])


def scheduler_gates(source: Path, known: set[str]) -> list[str]:
    """The gates the scheduler's code under *source*/pkg/scheduler reads (tests left out)."""
    found: set[str] = set()
    for path in (source / "pkg" / "scheduler").rglob("*.go"):
        if path.name.endswith("_test.go") or "/testing/" in str(path):
            continue
        found.update(
            m.group(1) for m in _FEATURE_REF.finditer(path.read_text(encoding="utf-8", errors="replace"))
        )
    return sorted(found & known)


def _multipoint(facts: Mapping[str, Any]) -> list[list[Any]]:
    profile = facts["config"]["profiles"][0]
    enabled = profile["plugins"]["multiPoint"].get("enabled") or []
    return [[p["name"], p.get("weight", 0)] for p in enabled]


def collect(release: str) -> dict[str, Any]:
    """The facts of *release* (a minor), from its oracle and its module source."""
    base = binary.facts(release)
    gates = {g["name"]: g for g in base["gates"]}
    out: dict[str, Any] = {
        "release": base["release"],
        "gates": {
            name: [g["default"], g["stage"].capitalize() if g["stage"] != "GA" else "GA", g["locked"]]
            for name, g in sorted(gates.items())
        },
        "dependencies": {name: g["dependsOn"] for name, g in sorted(gates.items()) if g.get("dependsOn")},
        "schedulerGates": scheduler_gates(module_dir(release), set(gates)),
        "defaultPlugins": {"": _multipoint(base)},
    }
    for gate, needs in PLUGIN_GATES.items():
        spec = gates.get(gate)
        if spec is None or spec["locked"]:
            continue
        flip = {gate: not spec["default"]}
        if flip[gate]:
            flip.update({n: True for n in needs if n in gates})
        try:
            variant = binary.facts(release, feature_gates=flip)
        except binary.OracleError:
            continue  # a combination the release refuses
        label = ",".join(f"{k}={str(v).lower()}" for k, v in sorted(flip.items()))
        out["defaultPlugins"][label] = _multipoint(variant)
    expanded = (base.get("plugins") or {}).get("default-scheduler") or {}
    out["expandedPlugins"] = {
        point[0].lower() + point[1:]: [[p["Name"], p["Weight"]] for p in ps["Enabled"]]
        for point, ps in expanded.items()
        if ps and ps.get("Enabled")
    }
    profile = base["config"]["profiles"][0]
    out["pluginArgs"] = {
        pc["name"]: {k: v for k, v in (pc.get("args") or {}).items() if k not in ("apiVersion", "kind")}
        for pc in profile.get("pluginConfig") or []
    }
    out["config"] = {
        k: v
        for k, v in base["config"].items()
        if k
        in ("parallelism", "percentageOfNodesToScore", "podInitialBackoffSeconds", "podMaxBackoffSeconds")
    }
    return out


def write(releases: list[str], path: Path = FACTS_FILE) -> Path:
    """Collect the facts of *releases* into *path* (merged with the releases already there)."""
    data: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    for release in releases:
        data[release] = collect(release)
    path.write_text(json.dumps(dict(sorted(data.items())), indent=1, sort_keys=True) + "\n")
    return path
