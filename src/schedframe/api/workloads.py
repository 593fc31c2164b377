"""Workload objects (Deployment, DaemonSet, Job, CronJob) and their expansion into the pods their
controllers would create.

:func:`~schedframe.api.expand_workloads` plays the part of kube-controller-manager's controllers for one
instant:
given the objects of a cluster (as :func:`~schedframe.load_manifests` reads them) it adds the
ReplicaSets a Deployment owns, the Jobs a CronJob has running, and the pods of every
ReplicaSet, ReplicationController, StatefulSet, DaemonSet and Job that are missing, named as
the controllers name them (``pkg/controller/`` upstream):

* ReplicaSet / ReplicationController / Job / DaemonSet pods: ``<owner>-<5 characters>`` from
  the controllers' alphabet (``bcdfghjklmnpqrstvwxz2456789``), drawn from a generator seeded by
  ``seed`` and the owner, so a load is reproducible; Indexed Jobs ``<job>-<index>-<5 chars>``;
* a Deployment's ReplicaSet ``<deployment>-<pod-template-hash>``;
* StatefulSet pods ``<name>-<ordinal>``, and their claims ``<template>-<name>-<ordinal>``;
* a CronJob's Jobs by the names in its ``status.active`` (``<cronjob>-<scheduled minutes>``).

Every pod created is admitted as the API server's Priority admission plugin admits it
(:func:`admit_priority`, with the PriorityClasses of the input): ``spec.priority`` (and
``spec.preemptionPolicy``) from its ``priorityClassName``, or from the ``globalDefault`` class.

Pods already in the input that a workload owns (an owner reference with its uid, or with its
kind and name) are kept, and only the missing replicas are created. A Deployment whose
ReplicaSets are missing from the input (``kubectl get pods,deploy``) adopts the active pods its
selector matches that a ReplicaSet ``<deployment>-<hash>`` absent from the input owns: those
ReplicaSets are recreated (with the uid the pods' owner references carry), the one whose pods
were created last as the Deployment's current one, which gets the missing replicas.

The pod-template hash is FNV-1a over the template as schedframe writes it (upstream hashes Go's
in-memory dump of the struct, which a Python library cannot reproduce), encoded with the
controllers' ``SafeEncodeString``: same shape, different value than a real cluster would give.
"""

from __future__ import annotations

import json
import random
import re
import uuid
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final, final

import attrs

from ..errors import ManifestError, SchedframeWarning, bounded_text
from ._pod import pod_to_manifest
from .frozendict import FrozenDict, freeze
from .frozendict import as_tuple as _tuple
from .objects import (
    _NS_UID,
    Affinity,
    LabelSelector,
    Node,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    OwnerReference,
    PersistentVolumeClaimVolumeSource,
    Pod,
    PriorityClass,
    ReplicaSet,
    ReplicationController,
    StatefulSet,
    Toleration,
    Volume,
    _ReplicatedWorkload,
)
from .storage import PersistentVolumeClaim, _pvc_uid

__all__ = [
    "SYSTEM_PRIORITY_CLASSES",
    "CronJob",
    "DaemonSet",
    "Deployment",
    "Job",
    "admit_priority",
    "expand_workloads",
    "priority_classes",
    "unknown_priority_class",
    "warn_unknown_priority_classes",
]

#: The characters of generated name suffixes and safe-encoded hashes (apimachinery ``rand``).
NAME_ALPHABET: Final = "bcdfghjklmnpqrstvwxz2456789"
#: Length of the random suffix of a generated name (``names.SimpleNameGenerator``).
RANDOM_SUFFIX_LENGTH: Final = 5
_MAX_NAME_LENGTH: Final = 63
_MAX_GENERATED_BASE: Final = _MAX_NAME_LENGTH - RANDOM_SUFFIX_LENGTH

POD_TEMPLATE_HASH_LABEL: Final = "pod-template-hash"
CONTROLLER_REVISION_HASH_LABEL: Final = "controller-revision-hash"
STATEFULSET_POD_NAME_LABEL: Final = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL: Final = "apps.kubernetes.io/pod-index"
JOB_NAME_LABELS: Final = ("batch.kubernetes.io/job-name", "job-name")
JOB_CONTROLLER_UID_LABELS: Final = ("batch.kubernetes.io/controller-uid", "controller-uid")
JOB_COMPLETION_INDEX: Final = "batch.kubernetes.io/job-completion-index"

_TERMINAL_PHASES: Final = frozenset({"Succeeded", "Failed"})


def _str_map(value: Mapping[str, str] | None) -> FrozenDict[str, str]:
    return freeze(value)


@final
@attrs.frozen
class Deployment(_ReplicatedWorkload):
    """An apps/v1 Deployment: ``replicas`` pods from ``template`` through a ReplicaSet named
    ``<name>-<pod-template-hash>``.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    paused: bool = False


@final
@attrs.frozen
class DaemonSet:
    """An apps/v1 DaemonSet: one pod from ``template`` per eligible node.

    ``host_network`` is the template's ``spec.hostNetwork`` (its pods then also tolerate
    ``node.kubernetes.io/network-unavailable``).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    namespace: str = "default"
    selector: LabelSelector | None = None
    template: Pod | None = None
    uid: str = ""
    labels: FrozenDict[str, str] = attrs.field(factory=dict, converter=_str_map)
    host_network: bool = False


@final
@attrs.frozen
class Job:
    """A batch/v1 Job: up to ``parallelism`` pods at a time until ``completions`` succeeded.

    ``succeeded`` is ``status.succeeded``; ``finished`` is true once a ``Complete`` or
    ``Failed`` condition is true (the controller then creates nothing).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    namespace: str = "default"
    selector: LabelSelector | None = None
    template: Pod | None = None
    parallelism: int | None = None
    completions: int | None = None
    completion_mode: str = "NonIndexed"
    suspend: bool = False
    succeeded: int = 0
    finished: bool = False
    uid: str = ""
    labels: FrozenDict[str, str] = attrs.field(factory=dict, converter=_str_map)
    owner_references: tuple[OwnerReference, ...] = attrs.field(default=(), converter=_tuple)


@final
@attrs.frozen
class CronJob:
    """A batch/v1 CronJob: ``job_template`` (a :class:`~schedframe.api.Job` without a name) and the names of
    the Jobs it has running (``status.active``).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    namespace: str = "default"
    schedule: str = ""
    job_template: Job | None = None
    suspend: bool = False
    active: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    last_schedule_time: float | None = None
    uid: str = ""
    labels: FrozenDict[str, str] = attrs.field(factory=dict, converter=_str_map)


Workload = Deployment | ReplicaSet | ReplicationController | StatefulSet | DaemonSet | Job | CronJob

_API_VERSIONS: Final[dict[type, str]] = {
    Deployment: "apps/v1", ReplicaSet: "apps/v1", StatefulSet: "apps/v1", DaemonSet: "apps/v1",
    ReplicationController: "v1", Job: "batch/v1", CronJob: "batch/v1",
}


# --------------------------------------------------------------------------------------------
# Names and hashes


def fnv32a(data: bytes) -> int:
    """32-bit FNV-1a (Go ``hash/fnv.New32a``)."""
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


def safe_encode_string(text: str) -> str:
    """apimachinery ``rand.SafeEncodeString``: each byte mapped into :data:`NAME_ALPHABET`."""
    return "".join(NAME_ALPHABET[b % len(NAME_ALPHABET)] for b in text.encode())


def template_hash(template: Pod, collision_count: int = 0) -> str:
    """The ``pod-template-hash`` of *template* (see the module docstring on how it differs)."""
    manifest = pod_to_manifest(template)
    body = json.dumps({"metadata": manifest["metadata"], "spec": manifest["spec"]}, sort_keys=True)
    return safe_encode_string(str(fnv32a(f"{body}/{collision_count}".encode())))


def generate_name(base: str, rng: random.Random) -> str:
    """``names.SimpleNameGenerator``: *base* (cut to 58 characters) and 5 random characters."""
    if len(base) > _MAX_GENERATED_BASE:
        base = base[:_MAX_GENERATED_BASE]
    return base + "".join(rng.choice(NAME_ALPHABET) for _ in range(RANDOM_SUFFIX_LENGTH))


def cronjob_job_name(cronjob: str, scheduled_time: float) -> str:
    """The name the CronJob controller gives the Job of *scheduled_time* (seconds since the
    epoch): ``<cronjob>-<minutes since the epoch>``."""
    return f"{cronjob}-{int(scheduled_time) // 60}"


def owner_uid(obj: Any) -> str:
    """The object's ``metadata.uid``, or one derived from its kind, namespace and name."""
    uid: str = getattr(obj, "uid", "")
    if uid:
        return uid
    return str(uuid.uuid5(_NS_UID, f"{type(obj).__name__}/{obj.namespace}/{obj.name}"))


def _controller_ref(obj: Any) -> OwnerReference:
    return OwnerReference(kind=type(obj).__name__, name=obj.name, uid=owner_uid(obj),
                          api_version=_API_VERSIONS[type(obj)], controller=True)


def _pod_uid(namespace: str, name: str) -> str:
    return str(uuid.uuid5(_NS_UID, f"{namespace}/{name}"))


# --------------------------------------------------------------------------------------------
# Priority admission

#: The PriorityClasses every cluster has (``pkg/apis/scheduling``: the API server creates them),
#: known without objects.
SYSTEM_PRIORITY_CLASSES: Final = (
    PriorityClass("system-node-critical", 2000001000),
    PriorityClass("system-cluster-critical", 2000000000),
)


def priority_classes(objects: Iterable[Any]) -> dict[str, PriorityClass]:
    """The :class:`~schedframe.api.PriorityClass` objects among *objects* by name, with
    :data:`SYSTEM_PRIORITY_CLASSES`."""
    out = {pc.name: pc for pc in SYSTEM_PRIORITY_CLASSES}
    out.update((o.name, o) for o in objects if isinstance(o, PriorityClass))
    return out


def _global_default(classes: Mapping[str, PriorityClass]) -> PriorityClass | None:
    """The ``globalDefault`` class; of several (a race upstream allows), the lowest value."""
    best: PriorityClass | None = None
    for pc in classes.values():
        if pc.global_default and (best is None or pc.value < best.value):
            best = pc
    return best


def _admission(pod: Pod, classes: Mapping[str, PriorityClass]) -> dict[str, Any]:
    """The fields :func:`admit_priority` changes on *pod* (none when it has a priority)."""
    if pod.priority is not None:
        return {}
    pc = classes.get(pod.priority_class_name) if pod.priority_class_name else _global_default(classes)
    if pc is None:  # no default class, or a class the input lacks (a cluster refuses the pod)
        return {"priority": 0}
    policy = pod.preemption_policy if pod.preemption_policy is not None else pc.preemption_policy
    return {"priority": pc.value, "priority_class_name": pc.name, "preemption_policy": policy}


def admit_priority(pod: Pod, classes: Mapping[str, PriorityClass]) -> Pod:
    """*pod* as the API server's Priority admission plugin admits it on creation, given the
    PriorityClasses of the cluster by name (:func:`priority_classes`).

    A pod without ``priority`` gets the value of its ``priorityClassName``'s class (and the
    class's ``preemptionPolicy`` when it has none); without ``priorityClassName``, the value and
    name of the ``globalDefault`` class, or 0 when there is none. A pod that has a ``priority``
    was admitted already (a dump's pods carry it) and is returned as it is. A class that is not
    in *classes* gives priority 0 (a cluster would refuse the pod: see
    :func:`unknown_priority_class`). The scheduler itself reads only ``priority``.

    .. versionadded:: 0.1.0
    """
    changes = _admission(pod, classes)
    return pod.evolve(**changes) if changes else pod


def unknown_priority_class(pod: Pod, classes: Mapping[str, PriorityClass]) -> str:
    """The ``priorityClassName`` of *pod* when admission needs it and *classes* lacks it, else
    ``""``."""
    name = pod.priority_class_name
    return name if pod.priority is None and name and name not in classes else ""


def warn_unknown_priority_classes(missing: Mapping[str, Iterable[str]], stacklevel: int = 2, *,
                                  where: str = "the dump") -> None:
    """One :class:`~schedframe.SchedframeWarning` per class in *missing* (class name -> what
    names it: ``Deployment default/web``, ``pod default/x``); *where* the class should be added."""
    for name, users in missing.items():
        listed = list(dict.fromkeys(users))
        who = ", ".join(listed[:3]) + (f" and {len(listed) - 3} more" if len(listed) > 3 else "")
        warnings.warn(
            f"PriorityClass {name!r} is not in the input: its pods get priority 0 ({who}); "
            f"a cluster would refuse them; add the PriorityClass to {where} "
            "(kubectl get priorityclass -o yaml)", SchedframeWarning, stacklevel=stacklevel + 1)


# --------------------------------------------------------------------------------------------
# DaemonSet specifics

_DAEMON_TOLERATIONS: Final = (
    Toleration("node.kubernetes.io/not-ready", "Exists", effect="NoExecute"),
    Toleration("node.kubernetes.io/unreachable", "Exists", effect="NoExecute"),
    Toleration("node.kubernetes.io/disk-pressure", "Exists", effect="NoSchedule"),
    Toleration("node.kubernetes.io/memory-pressure", "Exists", effect="NoSchedule"),
    Toleration("node.kubernetes.io/pid-pressure", "Exists", effect="NoSchedule"),
    Toleration("node.kubernetes.io/unschedulable", "Exists", effect="NoSchedule"),
)
_NETWORK_UNAVAILABLE: Final = Toleration("node.kubernetes.io/network-unavailable", "Exists",
                                         effect="NoSchedule")


def daemon_tolerations(tolerations: Iterable[Toleration], host_network: bool) -> tuple[Toleration, ...]:
    """*tolerations* with the ones the DaemonSet controller adds (``AddOrUpdateDaemonPodTolerations``:
    a toleration with the same key and effect is replaced)."""
    out = list(tolerations)
    extra = _DAEMON_TOLERATIONS + ((_NETWORK_UNAVAILABLE,) if host_network else ())
    for t in extra:
        for i, have in enumerate(out):
            if have.key == t.key and have.effect == t.effect:
                out[i] = t
                break
        else:
            out.append(t)
    return tuple(out)


def _node_name_affinity(affinity: Affinity | None, node: str) -> Affinity:
    """``ReplaceDaemonSetPodNodeNameNodeAffinity``: the required node affinity becomes the one
    term ``matchFields metadata.name In [node]`` (preferred terms and pod affinity are kept)."""
    required = NodeSelector((NodeSelectorTerm(
        match_fields=(NodeSelectorRequirement("metadata.name", "In", (node,)),)),))
    if affinity is None:
        return Affinity(node_affinity=NodeAffinity(required=required))
    na = affinity.node_affinity
    new_na = NodeAffinity(required=required) if na is None else attrs.evolve(na, required=required)
    return attrs.evolve(affinity, node_affinity=new_na)


def _daemon_should_run(pod: Pod, node: Node) -> bool:
    """The DaemonSet controller's ``NodeShouldRunDaemonPod`` predicates: node name, node
    selector and required node affinity, and no untolerated NoSchedule/NoExecute taint."""
    if pod.node_name and pod.node_name != node.name:
        return False
    for k, v in pod.node_selector.items():
        if node.labels.get(k) != v:
            return False
    na = pod.affinity.node_affinity if pod.affinity is not None else None
    if na is not None and na.required is not None and not na.required.matches(node.name, node.labels):
        return False
    for taint in node.taints:
        if taint.effect not in ("NoSchedule", "NoExecute"):
            continue
        if not any(t.tolerates(taint) for t in pod.tolerations):
            return False
    return True


def daemon_target(pod: Pod) -> str:
    """The node a DaemonSet pod is made for (the controller's ``GetTargetNodeName``):
    ``spec.nodeName``, else the one node of its required ``matchFields metadata.name In [...]``
    affinity, else ``""``. The simulator and the planner ask it too."""
    if pod.node_name:
        return pod.node_name
    na = pod.affinity.node_affinity if pod.affinity is not None else None
    if na is None or na.required is None:
        return ""
    for term in na.required.terms:
        for req in term.match_fields:
            if req.key == "metadata.name" and req.operator == "In" and len(req.values) == 1:
                return req.values[0]
    return ""


# --------------------------------------------------------------------------------------------
# Expansion


class _Expander:
    def __init__(self, objects: list[Any], seed: int, max_objects: int | None) -> None:
        self.seed = seed
        self.max_objects = max_objects
        self.count = len(objects)
        self.nodes = [o for o in objects if isinstance(o, Node)]
        self.pods_by_uid: dict[str, list[Pod]] = {}
        self.pods_by_name: dict[tuple[str, str, str], list[Pod]] = {}
        self.pod_keys = {o.key for o in objects if isinstance(o, Pod)}
        self.owned_kinds: dict[tuple[str, str, str], list[Any]] = {}
        for o in objects:
            if isinstance(o, Pod):
                for ref in o.owner_references:
                    if ref.uid:
                        self.pods_by_uid.setdefault(ref.uid, []).append(o)
                    self.pods_by_name.setdefault((o.namespace, ref.kind, ref.name), []).append(o)
            elif isinstance(o, (ReplicaSet, Job)):
                for ref in o.owner_references:
                    self.owned_kinds.setdefault((o.namespace, ref.kind, ref.name), []).append(o)
        self.names = {(type(o).__name__, getattr(o, "namespace", ""), o.name) for o in objects
                      if hasattr(o, "name")}
        self.pods = [o for o in objects if isinstance(o, Pod)]
        self.pvc_keys = {o.key for o in objects if isinstance(o, PersistentVolumeClaim)}
        self.classes = priority_classes(objects)
        self.missing: dict[str, list[str]] = {}  # PriorityClass -> the workloads naming it

    def rng(self, owner: Any) -> random.Random:
        return random.Random(f"{self.seed}/{type(owner).__name__}/{owner.namespace}/{owner.name}")

    def take(self, n: int = 1) -> None:
        self.count += n
        if self.max_objects is not None and self.count > self.max_objects:
            raise ManifestError("", f"expanding workloads gives more than {self.max_objects} objects "
                                    "(load_manifests(..., max_objects=N) raises the limit)")

    def need(self, n: int, owner: Any) -> None:
        """Refuse *owner* before it creates any of the *n* objects it will at least create when
        they would pass *max_objects* (a Deployment of 10^9 replicas is refused at once, not
        after building a million pods)."""
        if self.max_objects is not None and n > 0 and self.count + n > self.max_objects:
            raise ManifestError("", f"{bounded_text(_workload_name(owner))} asks for {n:,} more pods: "
                                    f"expanding workloads gives more than {self.max_objects} objects "
                                    "(load_manifests(..., max_objects=N) raises the limit)")

    def owned_pods(self, owner: Any) -> list[Pod]:
        uid = owner_uid(owner)
        seen: dict[str, Pod] = {}
        for p in self.pods_by_uid.get(uid, ()):
            seen[p.key] = p
        for p in self.pods_by_name.get((owner.namespace, type(owner).__name__, owner.name), ()):
            ref_uids = [r.uid for r in p.owner_references
                        if r.kind == type(owner).__name__ and r.name == owner.name]
            if all(not u or u == uid for u in ref_uids):
                seen[p.key] = p
        return list(seen.values())

    def unique_name(self, base: str, rng: random.Random, namespace: str) -> str:
        while True:
            name = generate_name(base, rng)
            if f"{namespace}/{name}" not in self.pod_keys:
                self.pod_keys.add(f"{namespace}/{name}")
                return name

    def new_pod(self, owner: Any, template: Pod, name: str, *, labels: Mapping[str, str] | None = None,
                annotations: Mapping[str, str] | None = None, **changes: Any) -> Pod:
        self.take()
        self.pod_keys.add(f"{owner.namespace}/{name}")
        merged = dict(template.labels)
        merged.update(labels or {})
        notes = dict(template.annotations)
        notes.update(annotations or {})
        unknown = unknown_priority_class(template, self.classes)
        if unknown:
            self.missing.setdefault(unknown, []).append(_workload_name(owner))
        changes.update(_admission(template, self.classes))  # the pod is admitted as it is created
        return attrs.evolve(
            template, name=name, namespace=owner.namespace, uid=_pod_uid(owner.namespace, name),
            labels=merged, annotations=notes, owner_references=(_controller_ref(owner),),
            node_name=changes.pop("node_name", template.node_name), phase="Pending",
            nominated_node_name="", start_time=None, conditions=(), deletion_timestamp=None,
            **changes)

    # -- per kind --------------------------------------------------------------------------------
    def replicas(self, owner: ReplicaSet | ReplicationController, adopted: int = 0) -> list[Pod]:
        if owner.template is None or owner.replicas <= 0:
            return []
        active = [p for p in self.owned_pods(owner) if _is_active(p)]
        self.need(owner.replicas - len(active) - adopted, owner)
        rng = self.rng(owner)
        return [self.new_pod(owner, owner.template, self.unique_name(f"{owner.name}-", rng, owner.namespace))
                for _ in range(owner.replicas - len(active) - adopted)]

    def deployment(self, d: Deployment) -> list[Any]:
        if self.owned_kinds.get((d.namespace, "Deployment", d.name)) or d.template is None:
            return []  # its ReplicaSets are in the input and create the pods
        h = template_hash(d.template)
        if ("ReplicaSet", d.namespace, f"{d.name}-{h}") in self.names:
            return []
        base = d.selector if d.selector is not None else LabelSelector(d.template.labels)
        groups, orphans = self.deployment_pods(d, base, h)
        # the ReplicaSet of the current template: the absent one whose pods were created last
        # (or the one schedframe's hash names), else a new one
        current = h if h in groups or not groups else max(
            groups, key=lambda k: (max(p.creation_timestamp or 0.0 for p in groups[k][1]), k))
        out: list[Any] = []
        old_active = 0
        for suffix in sorted(groups):
            uid, pods = groups[suffix]
            if suffix != current:
                old_active += len(pods)  # an old ReplicaSet: its pods are kept, none added
                out.append(self.deployment_rs(d, base, suffix, uid, len(pods)))
        uid = groups[current][0] if current in groups else ""
        rs = self.deployment_rs(d, base, current, uid, max(d.replicas - old_active, 0))
        return [*out, rs, *self.replicas(rs, adopted=len(orphans))]

    def deployment_rs(self, d: Deployment, base: LabelSelector, suffix: str, uid: str,
                      replicas: int) -> ReplicaSet:
        """The ReplicaSet ``<deployment>-<suffix>`` of *d* (an absent one recreated with the uid
        its pods' owner references carry)."""
        assert d.template is not None
        labels = {**d.template.labels, POD_TEMPLATE_HASH_LABEL: suffix}
        selector = attrs.evolve(base, match_labels={**base.match_labels, POD_TEMPLATE_HASH_LABEL: suffix})
        self.take()
        self.names.add(("ReplicaSet", d.namespace, f"{d.name}-{suffix}"))
        return ReplicaSet(name=f"{d.name}-{suffix}", namespace=d.namespace, selector=selector,
                          replicas=replicas, template=attrs.evolve(d.template, labels=labels),
                          labels=labels, owner_references=(_controller_ref(d),), uid=uid)

    def deployment_pods(self, d: Deployment, selector: LabelSelector,
                        h: str) -> tuple[dict[str, tuple[str, list[Pod]]], list[Pod]]:
        """The active pods of *d* whose ReplicaSet is absent, by its hash (with the uid their owner
        references give it), and the orphans the ReplicaSet of hash *h* adopts."""
        groups: dict[str, tuple[str, list[Pod]]] = {}
        orphans: list[Pod] = []
        prefix = f"{d.name}-"
        for p in self.pods:
            if p.namespace != d.namespace or not _is_active(p) or not selector.matches(p.labels):
                continue
            ref = next((r for r in p.owner_references if r.controller), None)
            label = p.labels.get(POD_TEMPLATE_HASH_LABEL)
            if ref is None:
                if label == h:
                    orphans.append(p)
                continue
            suffix = ref.name[len(prefix):]
            if (ref.kind != "ReplicaSet" or not ref.name.startswith(prefix)
                    or ("ReplicaSet", d.namespace, ref.name) in self.names
                    or not _HASH_RE.fullmatch(suffix) or (label is not None and label != suffix)):
                continue
            uid, pods = groups.setdefault(suffix, (ref.uid, []))
            if not uid and ref.uid:
                groups[suffix] = (ref.uid, pods)
            pods.append(p)
        return groups, orphans

    def stateful_set(self, s: StatefulSet) -> list[Any]:
        if s.template is None:
            return []
        out: list[Any] = []
        h = f"{s.name}-{template_hash(s.template)}"
        # at least this many ordinals have no pod (each pod of the input holds at most one)
        self.need(max(s.replicas, 0) - len(self.pod_keys), s)
        for ordinal in range(s.ordinals_start, s.ordinals_start + max(s.replicas, 0)):
            name = f"{s.name}-{ordinal}"
            if f"{s.namespace}/{name}" in self.pod_keys:
                continue
            claims = stateful_set_claims(s, ordinal)
            for claim in claims:
                if claim.key not in self.pvc_keys:  # a claim in the input wins
                    self.take()
                    self.pvc_keys.add(claim.key)
                    out.append(claim)
            volumes = [Volume(t.name, persistent_volume_claim=PersistentVolumeClaimVolumeSource(c.name))
                       for t, c in zip(s.volume_claim_templates, claims, strict=True)]
            taken = {t.name for t in s.volume_claim_templates}
            volumes.extend(v for v in s.template.volumes if v.name not in taken)
            out.append(self.new_pod(s, s.template, name, labels={
                CONTROLLER_REVISION_HASH_LABEL: h, STATEFULSET_POD_NAME_LABEL: name,
                POD_INDEX_LABEL: str(ordinal)}, volumes=tuple(volumes)))
        return out

    def daemon_set(self, ds: DaemonSet) -> list[Pod]:
        if ds.template is None:
            return []
        template = attrs.evolve(ds.template, tolerations=daemon_tolerations(
            ds.template.tolerations, ds.host_network),
            host_network=ds.template.host_network or ds.host_network)
        covered = {daemon_target(p) for p in self.owned_pods(ds) if _is_active(p)}
        h = template_hash(ds.template)
        rng = self.rng(ds)
        out = []
        for node in self.nodes:
            if node.name in covered or not _daemon_should_run(template, node):
                continue
            out.append(self.new_pod(
                ds, template, self.unique_name(f"{ds.name}-", rng, ds.namespace),
                labels={CONTROLLER_REVISION_HASH_LABEL: h},
                affinity=_node_name_affinity(template.affinity, node.name)))
        return out

    def job(self, job: Job) -> list[Pod]:
        if job.template is None or job.suspend or job.finished:
            return []
        uid = owner_uid(job)
        labels = {JOB_CONTROLLER_UID_LABELS[0]: uid, JOB_CONTROLLER_UID_LABELS[1]: uid,
                  JOB_NAME_LABELS[0]: job.name, JOB_NAME_LABELS[1]: job.name}
        owned = self.owned_pods(job)
        active = [p for p in owned if _is_active(p)]
        succeeded = max(job.succeeded, sum(1 for p in owned if p.phase == "Succeeded"))
        parallelism = 1 if job.parallelism is None else max(job.parallelism, 0)
        rng = self.rng(job)
        if job.completion_mode == "Indexed" and job.completions is not None:
            done_or_running = {p.annotations.get(JOB_COMPLETION_INDEX) for p in owned
                               if p.phase == "Succeeded" or _is_active(p)}
            room = parallelism - len(active)
            self.need(min(room, job.completions - len(done_or_running)), job)
            out = []
            for index in range(job.completions):
                if room <= 0:
                    break
                if str(index) in done_or_running:
                    continue
                room -= 1
                name = self.unique_name(f"{job.name}-{index}-", rng, job.namespace)
                out.append(self.new_pod(job, job.template, name,
                                        labels={**labels, JOB_COMPLETION_INDEX: str(index)},
                                        annotations={JOB_COMPLETION_INDEX: str(index)}))
            return out
        if job.completions is None:  # a work queue: no new pods once one succeeded
            want = len(active) if succeeded else parallelism
        else:
            want = max(min(job.completions - succeeded, parallelism), 0)
        self.need(want - len(active), job)
        return [self.new_pod(job, job.template, self.unique_name(f"{job.name}-", rng, job.namespace),
                             labels=labels)
                for _ in range(want - len(active))]

    def cron_job(self, cj: CronJob) -> list[Any]:
        if cj.job_template is None:
            return []
        out: list[Any] = []
        for name in cj.active:
            if ("Job", cj.namespace, name) in self.names:
                continue  # the Job is in the input and expands itself
            self.take()
            job = attrs.evolve(cj.job_template, name=name, namespace=cj.namespace,
                               owner_references=(_controller_ref(cj),))
            self.names.add(("Job", cj.namespace, name))
            out.append(job)
            out.extend(self.job(job))
        return out


#: A Deployment's ReplicaSet name suffix: a safe-encoded 32-bit hash.
_HASH_RE: Final = re.compile(f"[{NAME_ALPHABET}]{{1,10}}")


def stateful_set_claim_name(template: str, stateful_set: str, ordinal: int) -> str:
    """The claim of *template* for pod *ordinal* (upstream ``getPersistentVolumeClaimName``):
    ``<template>-<statefulset>-<ordinal>``."""
    return f"{template}-{stateful_set}-{ordinal}"


def stateful_set_claims(s: StatefulSet, ordinal: int) -> list[PersistentVolumeClaim]:
    """The PersistentVolumeClaims the StatefulSet controller creates for pod *ordinal*: each
    template named :func:`stateful_set_claim_name`, in the set's namespace, with the template's
    labels and the selector's ``matchLabels`` (upstream ``getPersistentVolumeClaims``)."""
    match = s.selector.match_labels if s.selector is not None else {}
    out = []
    for t in s.volume_claim_templates:
        claim = t.evolve(name=stateful_set_claim_name(t.name, s.name, ordinal), namespace=s.namespace,
                         labels={**t.labels, **match})
        out.append(claim.evolve(uid=_pvc_uid(claim)))
    return out


def _workload_name(owner: Any) -> str:
    """``Kind namespace/name`` of the workload behind *owner*'s pods (a Deployment's for its
    ReplicaSet, a CronJob's for its Job)."""
    ref = next((r for r in getattr(owner, "owner_references", ()) if r.controller), None)
    if ref is not None and ref.kind in ("Deployment", "CronJob"):
        return f"{ref.kind} {owner.namespace}/{ref.name}"
    return f"{type(owner).__name__} {owner.namespace}/{owner.name}"


def _is_active(pod: Pod) -> bool:
    """``controller.IsPodActive``: not terminal and not being deleted."""
    return pod.phase not in _TERMINAL_PHASES and pod.deletion_timestamp is None


def expand_workloads(objects: Iterable[Any], *, seed: int = 0, max_objects: int | None = None) -> list[Any]:
    """*objects* with what their workload controllers would create added after each workload.

    A Deployment adds its ReplicaSet (unless one it owns is among *objects*; the ReplicaSets of
    its pods when they are missing, counting those pods) and that ReplicaSet's pods; a
    ReplicaSet / ReplicationController adds ``replicas`` pods minus the active ones it owns; a
    StatefulSet its missing ``<name>-<ordinal>`` pods, each with the claims of its
    ``volume_claim_templates`` (created unless a claim of that name is among *objects*); a DaemonSet one
    pod per eligible :class:`~schedframe.Node` among *objects* that has none; a Job the pods
    ``parallelism`` and ``completions`` call for; a CronJob the Jobs named in its
    ``status.active`` that are missing, and their pods. Generated names are reproducible for a
    given *seed*. The pods created are admitted with the PriorityClasses among *objects*
    (``schedframe.api.workloads.admit_priority``); the pods in *objects* are left as they are.

    Raises:
        ManifestError: when the result would hold more than *max_objects* objects.

    Warns:
        SchedframeWarning: once per PriorityClass that pods created name but *objects* lacks
            (those pods get priority 0; a cluster would refuse them), naming the workloads.

    .. versionadded:: 0.1.0
    """
    if isinstance(objects, (str, bytes, Mapping)) or not isinstance(objects, Iterable):
        raise TypeError("expand_workloads() argument 'objects' must be an iterable of api objects, "
                        f"got {type(objects).__name__}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"expand_workloads() argument 'seed' must be an int, got {type(seed).__name__}")
    items = list(objects)
    ex = _Expander(items, seed, max_objects)
    handlers: dict[type, Callable[[Any], list[Any]]] = {
        Deployment: ex.deployment, ReplicaSet: ex.replicas, ReplicationController: ex.replicas,
        StatefulSet: ex.stateful_set, DaemonSet: ex.daemon_set, Job: ex.job, CronJob: ex.cron_job,
    }
    out: list[Any] = []
    for obj in items:
        out.append(obj)
        handler = handlers.get(type(obj))
        if handler is not None:
            # what a handler creates includes its own expansion (a Deployment's ReplicaSet and
            # its pods, a CronJob's Jobs and their pods)
            out.extend(handler(obj))
    if ex.missing:
        warn_unknown_priority_classes(ex.missing, stacklevel=2)
    return out
