"""The manifests of the workload kinds: ReplicationController, ReplicaSet, StatefulSet,
Deployment, DaemonSet, Job and CronJob (the objects are in :mod:`schedframe.api.objects` and
:mod:`schedframe.api.workloads`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import attrs

from ..errors import ManifestError
from ._fields import (
    _EMPTY,
    _bool,
    _check_top,
    _enum,
    _fail,
    _format_time,
    _int,
    _items,
    _label_selector,
    _list,
    _mapping,
    _meta_out,
    _name,
    _namespace,
    _owner_reference,
    _owner_reference_out,
    _required_str,
    _selector_spec,
    _str,
    _str_map,
    _time,
)
from ._names import _check_subdomain
from ._pod import _pod_parts, pod_to_manifest
from .objects import (
    LabelSelector,
    Pod,
    ReplicaSet,
    ReplicationController,
    StatefulSet,
)
from .storage import PersistentVolumeClaim
from .workloads import CronJob, DaemonSet, Deployment, Job


def _workload_meta(m: Mapping[str, Any]) -> tuple[Mapping[str, Any], Mapping[str, Any], dict[str, Any]]:
    """(metadata, spec, common keyword arguments) of a workload manifest."""
    meta = _mapping(m.get("metadata"), "metadata")
    spec = _mapping(m.get("spec"), "spec")
    name = _name(meta)
    _check_subdomain(name, "metadata.name")
    kw: dict[str, Any] = {
        "name": name, "namespace": _namespace(meta),
        "uid": _str(meta.get("uid"), "metadata.uid"),
        "labels": _str_map(meta.get("labels"), "metadata.labels"),
    }
    return meta, spec, kw


def _template(value: Any, path: str, required: bool = True) -> Pod | None:
    """A workload's pod template (``spec.template``) as a pod without a name."""
    if value is None:
        if required:
            _fail(path, "required")
        return None
    t = _mapping(value, path)
    return _pod_parts(_mapping(t.get("metadata"), f"{path}.metadata"),
                      _mapping(t.get("spec"), f"{path}.spec"), _EMPTY,
                      f"{path}.metadata", f"{path}.spec", f"{path}.status", template=True)


def _replicas(spec: Mapping[str, Any], path: str = "spec.replicas") -> int:
    value = _int(spec.get("replicas"), path)
    if value is None:
        return 1  # SetDefaults_Deployment / ReplicaSet / StatefulSet / ReplicationController
    if value < 0:
        _fail(path, f"must be greater than or equal to 0, got {value}")
    return value


def _check_selects_template(selector: LabelSelector | None, template: Pod | None, path: str) -> None:
    """``ValidatePodTemplateSpecForReplicaSet`` and siblings: the selector must match the
    template's labels."""
    if selector is None or template is None:
        return
    if selector.is_empty():
        _fail(path, "empty selector is invalid for this workload")
    if not selector.matches(template.labels):
        _fail(path, "selector does not match the template labels (spec.template.metadata.labels)")


def _selector_and_template(spec: Mapping[str, Any]) -> tuple[LabelSelector | None, Pod | None]:
    """An apps/v1 workload's ``spec.selector`` and ``spec.template`` (required), the selector
    checked to select the template."""
    selector = _label_selector(spec.get("selector"), "spec.selector")
    template = _template(spec.get("template"), "spec.template")
    _check_selects_template(selector, template, "spec.selector")
    return selector, template


def _replication_controller(manifest: Any) -> ReplicationController:
    m = _check_top(manifest, "ReplicationController", ("v1",))
    _, spec, kw = _workload_meta(m)
    selector: Mapping[str, str] = _str_map(spec.get("selector"), "spec.selector")
    template = _template(spec.get("template"), "spec.template")
    if not selector and template is not None:
        selector = dict(template.labels)  # SetDefaults_ReplicationController
    _check_selects_template(LabelSelector(selector), template, "spec.selector")
    return ReplicationController(selector=selector, replicas=_replicas(spec), template=template, **kw)


def _replica_set(manifest: Any) -> ReplicaSet:
    m = _check_top(manifest, "ReplicaSet", ("apps/v1",))
    meta, spec, kw = _workload_meta(m)
    selector, template = _selector_and_template(spec)
    return ReplicaSet(selector=selector, replicas=_replicas(spec), template=template,
                      owner_references=_items(meta.get("ownerReferences"), "metadata.ownerReferences",
                                              _owner_reference), **kw)


def _stateful_set(manifest: Any) -> StatefulSet:
    m = _check_top(manifest, "StatefulSet", ("apps/v1",))
    _, spec, kw = _workload_meta(m)
    selector, template = _selector_and_template(spec)
    ordinals = _mapping(spec.get("ordinals"), "spec.ordinals")
    start = _int(ordinals.get("start"), "spec.ordinals.start") or 0
    if start < 0:
        _fail("spec.ordinals.start", f"must be greater than or equal to 0, got {start}")
    return StatefulSet(selector=selector, replicas=_replicas(spec), template=template,
                       ordinals_start=start,
                       volume_claim_templates=_claim_templates(spec.get("volumeClaimTemplates")), **kw)


def _claim_templates(value: Any) -> tuple[PersistentVolumeClaim, ...]:
    """``spec.volumeClaimTemplates``: PersistentVolumeClaims without a namespace, each named (the
    name of the pods' volume), read as PersistentVolumeClaim manifests are."""
    path = "spec.volumeClaimTemplates"
    out: list[PersistentVolumeClaim] = []
    names: set[str] = set()
    for i, raw in enumerate(_list(value, path)):
        p = f"{path}[{i}]"
        m = _mapping(raw, p)
        try:
            claim = PersistentVolumeClaim.from_manifest(
                {**m, "apiVersion": "v1", "kind": "PersistentVolumeClaim"})
        except ManifestError as exc:
            raise ManifestError(f"{p}.{exc.path}" if exc.path else p, exc.detail) from None
        if claim.name in names:
            _fail(f"{p}.metadata.name", f"Duplicate value: {claim.name!r}")
        names.add(claim.name)
        out.append(claim)
    return tuple(out)


def _claim_template_out(claim: PersistentVolumeClaim) -> dict[str, Any]:
    m = claim.to_manifest()
    meta = {k: v for k, v in m["metadata"].items() if k not in ("namespace", "uid")}
    return {"metadata": meta, "spec": m["spec"]}


def _deployment(manifest: Any) -> Deployment:
    m = _check_top(manifest, "Deployment", ("apps/v1",))
    _, spec, kw = _workload_meta(m)
    selector, template = _selector_and_template(spec)
    return Deployment(selector=selector, replicas=_replicas(spec), template=template,
                      paused=_bool(spec.get("paused"), "spec.paused"), **kw)


def _daemon_set(manifest: Any) -> DaemonSet:
    m = _check_top(manifest, "DaemonSet", ("apps/v1",))
    _, spec, kw = _workload_meta(m)
    selector, template = _selector_and_template(spec)
    t_spec = _mapping(_mapping(spec.get("template"), "spec.template").get("spec"), "spec.template.spec")
    if template is not None and template.host_network:  # the DaemonSet's own field holds it
        template = attrs.evolve(template, host_network=False)
    return DaemonSet(selector=selector, template=template,
                     host_network=_bool(t_spec.get("hostNetwork"), "spec.template.spec.hostNetwork"), **kw)


_COMPLETION_MODES: Final = ("NonIndexed", "Indexed")


def _job_spec(spec: Mapping[str, Any], path: str) -> dict[str, Any]:
    parallelism = _int(spec.get("parallelism"), f"{path}.parallelism")
    completions = _int(spec.get("completions"), f"{path}.completions")
    for field, value in (("parallelism", parallelism), ("completions", completions)):
        if value is not None and value < 0:
            _fail(f"{path}.{field}", f"must be greater than or equal to 0, got {value}")
    if parallelism is None and completions is None:
        parallelism = completions = 1  # SetDefaults_Job
    mode = _enum(spec.get("completionMode"), f"{path}.completionMode", _COMPLETION_MODES,
                 "NonIndexed") or "NonIndexed"
    if mode == "Indexed" and completions is None:
        _fail(f"{path}.completions", "required when completionMode is Indexed")
    template = _template(spec.get("template"), f"{path}.template")
    selector = _label_selector(spec.get("selector"), f"{path}.selector")
    return {"parallelism": parallelism, "completions": completions, "completion_mode": mode,
            "suspend": _bool(spec.get("suspend"), f"{path}.suspend"), "template": template,
            "selector": selector}


def _job(manifest: Any) -> Job:
    m = _check_top(manifest, "Job", ("batch/v1",))
    meta, spec, kw = _workload_meta(m)
    status = _mapping(m.get("status"), "status")
    finished = False
    for i, raw in enumerate(_list(status.get("conditions"), "status.conditions")):
        c = _mapping(raw, f"status.conditions[{i}]")
        if c.get("type") in ("Complete", "Failed") and c.get("status") == "True":
            finished = True
    succeeded = _int(status.get("succeeded"), "status.succeeded") or 0
    return Job(succeeded=succeeded, finished=finished,
               owner_references=_items(meta.get("ownerReferences"), "metadata.ownerReferences",
                                       _owner_reference),
               **_job_spec(spec, "spec"), **kw)


def _cron_job(manifest: Any) -> CronJob:
    m = _check_top(manifest, "CronJob", ("batch/v1",))
    _, spec, kw = _workload_meta(m)
    status = _mapping(m.get("status"), "status")
    p_jt = "spec.jobTemplate"
    jt = _mapping(spec.get("jobTemplate"), p_jt)
    if spec.get("jobTemplate") is None:
        _fail(p_jt, "required")
    jt_meta = _mapping(jt.get("metadata"), f"{p_jt}.metadata")
    job = Job(name="", namespace=kw["namespace"],
              labels=_str_map(jt_meta.get("labels"), f"{p_jt}.metadata.labels"),
              **_job_spec(_mapping(jt.get("spec"), f"{p_jt}.spec"), f"{p_jt}.spec"))
    active = []
    for i, raw in enumerate(_list(status.get("active"), "status.active")):
        active.append(_required_str(_mapping(raw, f"status.active[{i}]"), "name", f"status.active[{i}]"))
    return CronJob(schedule=_required_str(spec, "schedule", "spec"), job_template=job,
                   suspend=_bool(spec.get("suspend"), "spec.suspend"), active=tuple(active),
                   last_schedule_time=_time(status.get("lastScheduleTime"), "status.lastScheduleTime"),
                   **kw)


def _workload_meta_out(obj: Any, **extra: Any) -> dict[str, Any]:
    return _meta_out(obj.name, obj.namespace, uid=obj.uid, labels=dict(obj.labels), **extra)


def _template_out(template: Pod | None) -> dict[str, Any]:
    if template is None:
        return {}
    m = pod_to_manifest(template)
    meta = {k: v for k, v in m["metadata"].items() if k not in ("namespace", "uid") and v}
    if not template.name:
        meta.pop("name", None)
    return {"template": {"metadata": meta, "spec": m["spec"]}}


def _replication_controller_out(rc: ReplicationController) -> dict[str, Any]:
    spec: dict[str, Any] = {"replicas": rc.replicas}
    if rc.selector:
        spec["selector"] = dict(rc.selector)
    spec.update(_template_out(rc.template))
    return {"apiVersion": "v1", "kind": "ReplicationController", "metadata": _workload_meta_out(rc),
            "spec": spec}


def _replica_set_out(rs: ReplicaSet) -> dict[str, Any]:
    spec = {"replicas": rs.replicas, **_selector_spec(rs.selector), **_template_out(rs.template)}
    meta = _workload_meta_out(rs, ownerReferences=[_owner_reference_out(o) for o in rs.owner_references])
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": meta, "spec": spec}


def _stateful_set_out(ss: StatefulSet) -> dict[str, Any]:
    spec = {"replicas": ss.replicas, **_selector_spec(ss.selector), **_template_out(ss.template)}
    if ss.ordinals_start:
        spec["ordinals"] = {"start": ss.ordinals_start}
    if ss.volume_claim_templates:
        spec["volumeClaimTemplates"] = [_claim_template_out(c) for c in ss.volume_claim_templates]
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": _workload_meta_out(ss), "spec": spec}


def _deployment_out(d: Deployment) -> dict[str, Any]:
    spec = {"replicas": d.replicas, **_selector_spec(d.selector), **_template_out(d.template)}
    if d.paused:
        spec["paused"] = True
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": _workload_meta_out(d), "spec": spec}


def _daemon_set_out(ds: DaemonSet) -> dict[str, Any]:
    spec = {**_selector_spec(ds.selector), **_template_out(ds.template)}
    if ds.host_network and "template" in spec:
        spec["template"]["spec"]["hostNetwork"] = True
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": _workload_meta_out(ds), "spec": spec}


def _job_spec_out(job: Job) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if job.parallelism is not None:
        spec["parallelism"] = job.parallelism
    if job.completions is not None:
        spec["completions"] = job.completions
    spec["completionMode"] = job.completion_mode
    if job.suspend:
        spec["suspend"] = True
    spec.update(_selector_spec(job.selector))
    spec.update(_template_out(job.template))
    return spec


def _job_out(job: Job) -> dict[str, Any]:
    status: dict[str, Any] = {}
    if job.succeeded:
        status["succeeded"] = job.succeeded
    if job.finished:
        status["conditions"] = [{"type": "Complete", "status": "True"}]
    meta = _workload_meta_out(job, ownerReferences=[_owner_reference_out(o) for o in job.owner_references])
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": _job_spec_out(job),
            "status": status}


def _cron_job_out(cj: CronJob) -> dict[str, Any]:
    spec: dict[str, Any] = {"schedule": cj.schedule}
    if cj.suspend:
        spec["suspend"] = True
    if cj.job_template is not None:
        jt: dict[str, Any] = {"spec": _job_spec_out(cj.job_template)}
        if cj.job_template.labels:
            jt["metadata"] = {"labels": dict(cj.job_template.labels)}
        spec["jobTemplate"] = jt
    status: dict[str, Any] = {}
    if cj.active:
        status["active"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": n, "namespace": cj.namespace}
                            for n in cj.active]
    if cj.last_schedule_time is not None:
        status["lastScheduleTime"] = _format_time(cj.last_schedule_time, "status.lastScheduleTime")
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": _workload_meta_out(cj), "spec": spec,
            "status": status}
