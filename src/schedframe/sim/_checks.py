"""What a cluster dump lacks for what it holds: the load-time warnings of a simulation.

One function, :func:`warn_incomplete_cluster`, called where a simulation starts from its plan
(every run: ``simulate``, ``schedframe simulate --cluster``, sweeps, replays), says in one line
per finding what is missing and what to pass:

* pods naming a PriorityClass the input lacks (they get priority 0);
* pods referring to PersistentVolumeClaims the input lacks (e.g. a StatefulSet's
  ``volumeClaimTemplates`` claims left out of ``kubectl get``): pending ones cannot be placed;
* a profile enabling NodeResourceTopologyMatch with no NodeResourceTopology object: the plugin
  then lets every node through and ranks none;
* the nodes' kubelets (``status.nodeInfo.kubeletVersion``, read by
  :meth:`Scenario.with_cluster <schedframe.sim.Scenario.with_cluster>`) of another release than
  the one emulated.

Each is a :class:`~schedframe.SchedframeWarning`; the simulation goes on.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

from .._textio import read_text
from ..api.noderesourcetopology import NodeResourceTopology
from ..api.objects import Pod
from ..api.storage import PersistentVolumeClaim
from ..api.workloads import priority_classes, unknown_priority_class, warn_unknown_priority_classes
from ..errors import SchedframeError, SchedframeWarning
from ..framework.releases import SUPPORTED_RELEASES

if TYPE_CHECKING:  # scenario imports this module (kubelet_minors)
    from .scenario import Plan

__all__ = ["kubelet_minors", "warn_incomplete_cluster"]

_NRT_PLUGIN: Final = "NodeResourceTopologyMatch"
#: ``kubeletVersion: v1.34.2`` in YAML or ``"kubeletVersion": "v1.34.2"`` in JSON
_KUBELET_RE: Final = re.compile(r"""["']?kubeletVersion["']?\s*:\s*["']?v?(\d+)\.(\d+)""")
_MANIFEST_SUFFIXES: Final = (".yaml", ".yml", ".json")
#: the most bytes read of one file to find kubelet versions (the manifest reader's own cap)
_MAX_SCAN_BYTES: Final = 1024 * 1024 * 1024


def kubelet_minors(path: str | os.PathLike[str]) -> dict[str, int]:
    """``{"1.34": nodes}``: how many nodes of the dump at *path* (a file or a directory of
    manifests) report each kubelet minor in ``status.nodeInfo.kubeletVersion``. The objects
    schedframe reads keep no node status beyond capacity and conditions, so the text is scanned
    (unreadable files count nothing: the manifest reader has already said why)."""
    root = os.fspath(path)
    files: list[str] = []
    if os.path.isdir(root):
        for base, dirs, names in os.walk(root):
            dirs.sort()
            files.extend(os.path.join(base, n) for n in sorted(names)
                         if n.lower().endswith(_MANIFEST_SUFFIXES))
    else:
        files.append(root)
    out: dict[str, int] = {}
    for name in files:
        try:
            text = read_text(name, max_bytes=_MAX_SCAN_BYTES, what="the cluster dump")
        except (SchedframeError, OSError):  # the manifest reader says why, not this scan
            continue
        for m in _KUBELET_RE.finditer(text):
            minor = f"{int(m.group(1))}.{int(m.group(2))}"
            out[minor] = out.get(minor, 0) + 1
    return out


def _some(items: list[str], n: int = 3) -> str:
    return ", ".join(items[:n]) + (f" and {len(items) - n} more" if len(items) > n else "")


def _claims(pod: Pod) -> Iterable[str]:
    for v in pod.volumes:
        src = getattr(v, "persistent_volume_claim", None)
        if src is not None:
            yield f"{pod.namespace}/{src.claim_name}"


def _missing_claims(pods: Iterable[tuple[Pod, str]], objects: Iterable[Any]) -> str | None:
    have = {f"{o.namespace}/{o.name}" for o in objects if isinstance(o, PersistentVolumeClaim)}
    missing: dict[str, list[str]] = {}
    pending = 0
    for pod, who in pods:
        lacks = [c for c in _claims(pod) if c not in have]
        for claim in lacks:
            missing.setdefault(claim, []).append(who)
        if lacks and not pod.node_name:
            pending += 1
    if not missing:
        return None
    shown = _some([f"{claim} ({_some(who, 2)})" for claim, who in missing.items()])
    stuck = (f"; {pending} pending pod(s) among them cannot be placed (persistentvolumeclaim not found)"
             if pending else "")
    return (f"{len(missing)} PersistentVolumeClaim(s) that pods use are not in the input: {shown}{stuck}; "
            "add them to the dump (kubectl get pvc,pv,storageclass -A -o yaml, or schedframe import)")


def _nrt_without_objects(config: Any, objects: Iterable[Any]) -> str | None:
    profiles = [p.scheduler_name for p in getattr(config, "profiles", ())
                if _NRT_PLUGIN in p.plugin_names()]
    if not profiles or any(isinstance(o, NodeResourceTopology) for o in objects):
        return None
    names = ", ".join(repr(p) for p in profiles)
    return (f"profile(s) {names} enable {_NRT_PLUGIN} but the input has no NodeResourceTopology: "
            "the plugin lets every node through and ranks none; add them to the dump (kubectl get "
            "noderesourcetopologies.topology.node.k8s.io -o yaml, or schedframe import)")


def _release_mismatch(minors: Mapping[str, int], config: Any) -> str | None:
    release = getattr(config, "release", None)
    if not minors or release is None:
        return None
    emulated = release.version
    newest = max(minors, key=lambda v: tuple(int(x) for x in v.split(".")))
    if newest == emulated:
        return None
    seen = ", ".join(f"v{v} ({n} node(s))" for v, n in sorted(
        minors.items(), key=lambda kv: tuple(int(x) for x in kv[0].split("."))))
    if newest in SUPPORTED_RELEASES:
        fix = (f"pass --kubernetes-version {newest} (kubernetes_version={newest!r} from Python) to "
               "emulate that release")
    else:
        fix = (f"schedframe emulates {SUPPORTED_RELEASES[0]} to {SUPPORTED_RELEASES[-1]}; pass "
               "--kubernetes-version with the nearest")
    return (f"the dump's nodes run kubelet {seen} but kube-scheduler {emulated} is emulated "
            f"(placements can differ between releases); {fix}")


def warn_incomplete_cluster(plan: Plan, config: Any, *, stacklevel: int = 2) -> list[str]:
    """Warn (:class:`~schedframe.SchedframeWarning`, one line each) about what *plan*'s
    starting cluster lacks for what it holds, for *config* (a
    :class:`~schedframe.SchedulerConfiguration`); returns the lines warned (the PriorityClass
    one, worded by :func:`~schedframe.api.workloads.warn_unknown_priority_classes`, aside).

    .. versionadded:: 0.1.0
    """
    classes = priority_classes(plan.objects)
    missing: dict[str, list[str]] = {}
    for w in plan.workloads:
        name = unknown_priority_class(w.template, classes)
        if name:
            missing.setdefault(name, []).append(f"workload {w.name!r}")
    for p in plan.pods:
        name = unknown_priority_class(p, classes)
        if name and not p.is_terminal:
            missing.setdefault(name, []).append(f"pod {p.key}")
    warn_unknown_priority_classes(missing, stacklevel=stacklevel + 1,
                                  where="the scenario's objects or the dump")
    live = [(p, p.key) for p in plan.pods if not p.is_terminal]
    live += [(w.template, f"workload {w.name!r}") for w in plan.workloads]
    lines = [line for line in (
        _missing_claims(live, plan.objects),
        _nrt_without_objects(config, plan.objects),
        _release_mismatch(plan.kubelet_versions, config),
    ) if line]
    for line in lines:
        warnings.warn(line, SchedframeWarning, stacklevel=stacklevel + 1)
    return lines
