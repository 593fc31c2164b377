"""Strict field validation of manifests (issue #43): what the API server's strict field
validation refuses (misspelled fields, fields of another release, unqualified unknown resource
names), load_manifests refuses too by default, all at once; ``validate="warn"`` and
``"ignore"`` read on; the CLI's ``--validate``; a real ``kubectl get -o yaml`` dump has no false
alarm."""

from __future__ import annotations

import io
import json
import warnings
from pathlib import Path

import pytest

import schedframe
from schedframe import ManifestError, Node, Pod, SchedframeWarning, load_manifests
from schedframe.api import field_problems
from schedframe.api._field_check import FIELD_RELEASES, _data
from schedframe.cli import EXIT_INPUT, EXIT_OK, main
from schedframe.config import SUPPORTED_RELEASES
from schedframe.errors import FieldProblem, FieldValidationError

ROOT = Path(__file__).resolve().parent.parent


def _pod(spec_extra: str = "", container_extra: str = "", name: str = "p") -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default}}\n"
            f"spec:\n  containers:\n  - name: c\n    image: nginx\n{container_extra}{spec_extra}")


def _problems(text: str, **kw: object) -> tuple[FieldProblem, ...]:
    with pytest.raises(FieldValidationError) as info:
        load_manifests(text, **kw)  # type: ignore[arg-type]
    return info.value.problems


# --------------------------------------------------------------------------------------------
# the examples


def test_misspelled_node_selector() -> None:
    (p,) = _problems(_pod("  nodeSelecter: {disktype: ssd}\n"))
    assert p.path == "documents[0].spec.nodeSelecter"
    assert p.suggestion == "nodeSelector"
    assert "unknown field" in p.message


def test_misspelled_operator_in_a_toleration_and_a_match_expression() -> None:
    spec = ("  tolerations:\n  - {key: gpu, operater: Exists}\n"
            "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
            "        nodeSelectorTerms:\n        - matchExpressions:\n"
            "          - {key: zone, operater: In, values: [a]}\n")
    problems = _problems(_pod(spec))
    assert [(p.path, p.suggestion) for p in problems] == [
        ("documents[0].spec.tolerations[0].operater", "operator"),
        ("documents[0].spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
         ".nodeSelectorTerms[0].matchExpressions[0].operater", "operator"),
    ]


def test_misspelled_requests() -> None:
    (p,) = _problems(_pod(container_extra='    resources:\n      requets: {cpu: "64"}\n'))
    assert p.path == "documents[0].spec.containers[0].resources.requets"
    assert p.suggestion == "requests"


def test_deployment_replica() -> None:
    text = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
            "spec:\n  replica: 50\n  selector: {matchLabels: {app: web}}\n"
            "  template:\n    metadata: {labels: {app: web}}\n"
            "    spec: {containers: [{name: c, image: nginx}]}\n")
    (p,) = _problems(text)
    assert (p.path, p.suggestion) == ("documents[0].spec.replica", "replicas")


def test_resource_name_memroy_in_node_allocatable() -> None:
    text = ('apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n'
            'status:\n  allocatable: {cpu: "4", memroy: 8Gi, pods: "110"}\n')
    (p,) = _problems(text)
    assert p.path == "documents[0].status.allocatable.memroy"
    assert p.suggestion == "memory"
    assert "resource name" in p.message


@pytest.mark.parametrize("name", ["cpu", "memory", "ephemeral-storage", "pods", "hugepages-2Mi",
                                  "hugepages-1Gi", "nvidia.com/gpu", "example.com/foo", "storage"])
def test_standard_and_qualified_resource_names_pass(name: str) -> None:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
            "status": {"capacity": {name: "1"}, "allocatable": {name: "1"}}}
    assert field_problems(node) == []
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"containers": [{"name": "c",
                                    "resources": {"requests": {name: "1"}, "limits": {name: "1"}}}]}}
    assert field_problems(pod) == []


def test_unqualified_unknown_resource_name_without_a_close_match() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"containers": [{"name": "c", "resources": {"limits": {"gpu": "1"}}}]}}
    (p,) = field_problems(pod)
    assert p.path == "spec.containers[0].resources.limits.gpu"
    assert p.suggestion is None
    assert "domain" in p.message


# --------------------------------------------------------------------------------------------
# all at once, the error type, modes


def test_every_problem_of_a_load_at_once_with_file_and_document(tmp_path: Path) -> None:
    (tmp_path / "a-pods.yaml").write_text(_pod("  nodeSelecter: {a: b}\n") + "---\n"
                                          + _pod("  schedulerNme: x\n", name="q"))
    (tmp_path / "b-nodes.yaml").write_text("apiVersion: v1\nkind: Node\nmetadata: {name: n, lables: {}}\n")
    with pytest.raises(FieldValidationError) as info:
        load_manifests(tmp_path)
    paths = [p.path for p in info.value.problems]
    a, b = str(tmp_path / "a-pods.yaml"), str(tmp_path / "b-nodes.yaml")
    assert paths == [f"{a}: documents[0].spec.nodeSelecter", f"{a}: documents[1].spec.schedulerNme",
                     f"{b}: documents[0].metadata.lables"]
    assert [p.suggestion for p in info.value.problems] == ["nodeSelector", "schedulerName", "labels"]
    assert info.value.release == SUPPORTED_RELEASES[-1]


def test_field_validation_error_is_a_manifest_error_listing_its_problems() -> None:
    text = "".join(_pod(f"  nodeSelecter{i}: {{}}\n", name=f"p{i}") + "---\n" for i in range(25))
    with pytest.raises(ManifestError) as info:
        load_manifests(text)
    error = info.value
    assert isinstance(error, FieldValidationError)
    assert isinstance(error, ValueError)
    assert len(error.problems) == 25
    text = str(error)
    assert "documents[0].spec.nodeSelecter0" in text
    assert "documents[19].spec.nodeSelecter19" in text
    assert "documents[20]" not in text
    assert "and 5 more" in text


def test_list_items_are_checked_with_their_index() -> None:
    doc = {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
         "spec": {"containers": [{"name": "c", "imagePullPolcy": "Always"}]}}]}
    (p,) = _problems(json.dumps(doc))
    assert p.path == "documents[0].items[1].spec.containers[0].imagePullPolcy"
    assert p.suggestion == "imagePullPolicy"


def test_warn_mode_reads_on_with_one_summary_warning() -> None:
    text = _pod("  nodeSelecter: {a: b}\n  schedulerNme: x\n")
    with pytest.warns(SchedframeWarning, match=r"2 unknown field") as caught:
        objs = load_manifests(text, validate="warn")
    assert len([w for w in caught if "unknown field" in str(w.message)]) == 1
    assert "nodeSelecter" in str(caught[0].message)
    (pod,) = objs
    assert isinstance(pod, Pod)
    assert not pod.node_selector  # dropped, as before


def test_ignore_mode_is_silent() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (pod,) = load_manifests(_pod("  nodeSelecter: {a: b}\n"), validate="ignore")
    assert isinstance(pod, Pod)


def test_bad_validate_and_version_arguments() -> None:
    with pytest.raises(ValueError, match="validate"):
        load_manifests(_pod(), validate="loose")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"1\.31"):
        load_manifests(_pod(), kubernetes_version="1.31")
    with pytest.raises(TypeError):
        field_problems({"kind": "Pod"}, kubernetes_version=134)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        field_problems([])  # type: ignore[arg-type]


def test_a_reader_error_after_unknown_fields_reports_the_fields() -> None:
    """A misspelled field often causes the reader's error: the fields found so far come first."""
    text = _pod("  nodeSelecter: {a: b}\n") + "---\nkind: Pod\nmetadata: {name: q}\nspec: {contaners: []}\n"
    with pytest.raises(FieldValidationError) as info:
        load_manifests(text)
    assert info.value.problems[0].path == "documents[0].spec.nodeSelecter"


def test_strict_keyword_keeps_its_meaning_and_skipped_kinds_are_not_checked() -> None:
    cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, bogus: 1}\ndata: {a: b}\nwhatever: 1\n"
    with pytest.warns(SchedframeWarning, match="ConfigMap"):
        assert load_manifests(cm) == []
    with pytest.raises(ManifestError, match="strict=True") as info:
        load_manifests(cm, strict=True)
    assert not isinstance(info.value, FieldValidationError)


def test_kinds_without_a_field_tree_are_not_checked() -> None:
    """The scheduler-plugins CRDs are not in the Kubernetes OpenAPI document (see the script)."""
    eq = {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "ElasticQuota",
          "metadata": {"name": "q", "namespace": "default"}, "spec": {"min": {"cpu": "1"}}, "extra": 1}
    assert field_problems(eq) == []


# --------------------------------------------------------------------------------------------
# releases


def test_a_field_of_a_newer_release_says_so() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"containers": [{"name": "c"}], "schedulingGroup": {"podGroupName": "g"}}}
    (p,) = field_problems(pod, "1.34")
    assert p.path == "spec.schedulingGroup"
    assert p.message == "spec.schedulingGroup exists from Kubernetes 1.36 on; this load emulates 1.34"
    assert p.suggestion is None
    assert field_problems(pod, "1.36") == []
    assert field_problems(pod, "v1.37.2") == []
    with pytest.raises(FieldValidationError) as info:
        load_manifests(json.dumps(pod), kubernetes_version="v1.34.2")
    assert info.value.release == "1.34"
    assert "from Kubernetes 1.36 on" in str(info.value)
    (obj,) = load_manifests(json.dumps(pod), kubernetes_version="1.36")
    assert isinstance(obj, Pod)
    assert field_problems(pod, schedframe.release_profile("1.34"))  # type: ignore[arg-type]


def test_the_field_trees_cover_every_emulated_release() -> None:
    """A new release needs scripts/gen-field-schema run again."""
    assert FIELD_RELEASES == SUPPORTED_RELEASES
    data = _data()
    assert tuple(data["modules"]) == SUPPORTED_RELEASES
    for key in ("v1 Pod", "v1 Node", "apps/v1 Deployment", "apps/v1 DaemonSet", "batch/v1 Job"):
        assert set(data["kinds"][key]) == set(SUPPORTED_RELEASES), key
    for per in data["kinds"].values():
        for typename in per.values():
            assert typename in data["types"]


def test_the_field_tree_file_is_package_data_and_small() -> None:
    path = Path(schedframe.__file__).parent / "api" / "_field_schema.json"
    assert path.is_file()
    assert path.stat().st_size < 100_000
    assert (ROOT / "scripts" / "gen-field-schema").stat().st_mode & 0o111


# --------------------------------------------------------------------------------------------
# a real dump: no false alarm

REAL_DUMP = """\
apiVersion: v1
items:
- apiVersion: v1
  kind: Node
  metadata:
    annotations:
      kubeadm.alpha.kubernetes.io/cri-socket: unix:///run/containerd/containerd.sock
      node.alpha.kubernetes.io/ttl: "0"
      volumes.kubernetes.io/controller-managed-attach-detach: "true"
    creationTimestamp: "2025-05-02T09:12:44Z"
    labels:
      beta.kubernetes.io/arch: amd64
      kubernetes.io/hostname: kind-worker
      topology.kubernetes.io/zone: a
    managedFields:
    - apiVersion: v1
      fieldsType: FieldsV1
      fieldsV1:
        f:metadata:
          f:annotations:
            .: {}
            f:kubeadm.alpha.kubernetes.io/cri-socket: {}
          f:labels:
            f:kubernetes.io/hostname: {}
      manager: kubeadm
      operation: Update
      time: "2025-05-02T09:12:44Z"
    - apiVersion: v1
      fieldsType: FieldsV1
      fieldsV1:
        f:status:
          f:conditions:
            k:{"type":"Ready"}:
              f:lastHeartbeatTime: {}
      manager: kubelet
      operation: Update
      subresource: status
      time: "2025-05-02T10:00:01Z"
    name: kind-worker
    resourceVersion: "48211"
    uid: 5e7c1c4e-5c1f-4f7b-8d6a-0c7b1f1e2a01
  spec:
    podCIDR: 10.244.1.0/24
    podCIDRs:
    - 10.244.1.0/24
    providerID: kind://docker/kind/kind-worker
    taints:
    - effect: NoSchedule
      key: dedicated
      value: batch
  status:
    addresses:
    - address: 172.18.0.3
      type: InternalIP
    - address: kind-worker
      type: Hostname
    allocatable:
      cpu: "8"
      ephemeral-storage: 102626232Ki
      hugepages-1Gi: "0"
      hugepages-2Mi: "0"
      memory: 32790856Ki
      nvidia.com/gpu: "2"
      pods: "110"
    capacity:
      cpu: "8"
      ephemeral-storage: 102626232Ki
      hugepages-1Gi: "0"
      hugepages-2Mi: "0"
      memory: 32790856Ki
      nvidia.com/gpu: "2"
      pods: "110"
    conditions:
    - lastHeartbeatTime: "2025-05-02T10:00:01Z"
      lastTransitionTime: "2025-05-02T09:12:42Z"
      message: kubelet has sufficient memory available
      reason: KubeletHasSufficientMemory
      status: "False"
      type: MemoryPressure
    - lastHeartbeatTime: "2025-05-02T10:00:01Z"
      lastTransitionTime: "2025-05-02T09:13:05Z"
      message: kubelet is posting ready status
      reason: KubeletReady
      status: "True"
      type: Ready
    daemonEndpoints:
      kubeletEndpoint:
        Port: 10250
    images:
    - names:
      - registry.k8s.io/etcd@sha256:44a8e24dcbba3470ee1fee21d5e88d128c936e9b55d4bc51fbef8086f8ed123b
      - registry.k8s.io/etcd:3.5.16-0
      sizeBytes: 57680541
    nodeInfo:
      architecture: amd64
      bootID: 2e1b1c7e-1a3d-4c41-9a0e-7b9d0f2d6c11
      containerRuntimeVersion: containerd://1.7.24
      kernelVersion: 6.8.0-52-generic
      kubeProxyVersion: v1.32.2
      kubeletVersion: v1.32.2
      machineID: 0e7a1b5c9d2f4e8a8b6c4d2e0f1a3b5c
      operatingSystem: linux
      osImage: Debian GNU/Linux 12 (bookworm)
      systemUUID: 0e7a1b5c-9d2f-4e8a-8b6c-4d2e0f1a3b5c
- apiVersion: apps/v1
  kind: DaemonSet
  metadata:
    annotations:
      deprecated.daemonset.template.generation: "1"
    creationTimestamp: "2025-05-02T09:12:50Z"
    generation: 1
    labels:
      k8s-app: kube-proxy
    name: kube-proxy
    namespace: kube-system
    resourceVersion: "612"
    uid: 2b6a2a51-77a6-4e0f-9f3b-1d8a6b7c1a02
  spec:
    revisionHistoryLimit: 10
    selector:
      matchLabels:
        k8s-app: kube-proxy
    template:
      metadata:
        creationTimestamp: null
        labels:
          k8s-app: kube-proxy
      spec:
        containers:
        - command:
          - /usr/local/bin/kube-proxy
          - --config=/var/lib/kube-proxy/config.conf
          env:
          - name: NODE_NAME
            valueFrom:
              fieldRef:
                apiVersion: v1
                fieldPath: spec.nodeName
          image: registry.k8s.io/kube-proxy:v1.32.2
          imagePullPolicy: IfNotPresent
          name: kube-proxy
          resources: {}
          securityContext:
            privileged: true
          terminationMessagePath: /dev/termination-log
          terminationMessagePolicy: File
          volumeMounts:
          - mountPath: /var/lib/kube-proxy
            name: kube-proxy
        dnsPolicy: ClusterFirst
        hostNetwork: true
        nodeSelector:
          kubernetes.io/os: linux
        priorityClassName: system-node-critical
        restartPolicy: Always
        schedulerName: default-scheduler
        securityContext: {}
        serviceAccount: kube-proxy
        serviceAccountName: kube-proxy
        terminationGracePeriodSeconds: 30
        tolerations:
        - operator: Exists
        volumes:
        - configMap:
            defaultMode: 420
            name: kube-proxy
          name: kube-proxy
    updateStrategy:
      rollingUpdate:
        maxSurge: 0
        maxUnavailable: 1
      type: RollingUpdate
  status:
    currentNumberScheduled: 1
    desiredNumberScheduled: 1
    numberAvailable: 1
    numberMisscheduled: 0
    numberReady: 1
    observedGeneration: 1
    updatedNumberScheduled: 1
- apiVersion: batch/v1
  kind: Job
  metadata:
    creationTimestamp: "2025-05-02T09:40:00Z"
    generation: 1
    labels:
      batch.kubernetes.io/controller-uid: 9b1f6a3c-2d4e-4f5a-8b7c-6d5e4f3a2b03
      batch.kubernetes.io/job-name: pi
    name: pi
    namespace: default
    resourceVersion: "30712"
    uid: 9b1f6a3c-2d4e-4f5a-8b7c-6d5e4f3a2b03
  spec:
    backoffLimit: 4
    completionMode: NonIndexed
    completions: 1
    manualSelector: false
    parallelism: 1
    podReplacementPolicy: TerminatingOrFailed
    selector:
      matchLabels:
        batch.kubernetes.io/controller-uid: 9b1f6a3c-2d4e-4f5a-8b7c-6d5e4f3a2b03
    suspend: false
    template:
      metadata:
        creationTimestamp: null
        labels:
          batch.kubernetes.io/controller-uid: 9b1f6a3c-2d4e-4f5a-8b7c-6d5e4f3a2b03
          batch.kubernetes.io/job-name: pi
      spec:
        containers:
        - command: [perl, -Mbignum=bpi, -wle, print bpi(2000)]
          image: perl:5.34.0
          imagePullPolicy: IfNotPresent
          name: pi
          resources:
            requests:
              cpu: 500m
              memory: 128Mi
          terminationMessagePath: /dev/termination-log
          terminationMessagePolicy: File
        dnsPolicy: ClusterFirst
        restartPolicy: Never
        schedulerName: default-scheduler
        securityContext: {}
        terminationGracePeriodSeconds: 30
  status:
    completionTime: "2025-05-02T09:40:31Z"
    conditions:
    - lastProbeTime: "2025-05-02T09:40:31Z"
      lastTransitionTime: "2025-05-02T09:40:31Z"
      message: Reached expected number of succeeded pods
      reason: CompletionsReached
      status: "True"
      type: SuccessCriteriaMet
    - lastProbeTime: "2025-05-02T09:40:31Z"
      lastTransitionTime: "2025-05-02T09:40:31Z"
      message: Reached expected number of succeeded pods
      reason: CompletionsReached
      status: "True"
      type: Complete
    ready: 0
    startTime: "2025-05-02T09:40:00Z"
    succeeded: 1
    terminating: 0
    uncountedTerminatedPods: {}
- apiVersion: v1
  kind: Pod
  metadata:
    annotations:
      kubectl.kubernetes.io/restartedAt: "2025-05-02T09:30:00Z"
    creationTimestamp: "2025-05-02T09:30:02Z"
    generateName: web-7d4b9c8f5d-
    labels:
      app: web
      pod-template-hash: 7d4b9c8f5d
    managedFields:
    - apiVersion: v1
      fieldsType: FieldsV1
      fieldsV1:
        f:metadata:
          f:generateName: {}
          f:ownerReferences:
            .: {}
            k:{"uid":"c4f7a1b2-3d5e-4f6a-9b8c-7d6e5f4a3b04"}: {}
      manager: kube-controller-manager
      operation: Update
      time: "2025-05-02T09:30:02Z"
    name: web-7d4b9c8f5d-x2k9q
    namespace: default
    ownerReferences:
    - apiVersion: apps/v1
      blockOwnerDeletion: true
      controller: true
      kind: ReplicaSet
      name: web-7d4b9c8f5d
      uid: c4f7a1b2-3d5e-4f6a-9b8c-7d6e5f4a3b04
    resourceVersion: "29120"
    uid: 0d9c8b7a-6f5e-4d3c-2b1a-0f9e8d7c6b05
  spec:
    affinity:
      podAntiAffinity:
        preferredDuringSchedulingIgnoredDuringExecution:
        - podAffinityTerm:
            labelSelector:
              matchExpressions:
              - key: app
                operator: In
                values: [web]
            topologyKey: kubernetes.io/hostname
          weight: 100
    containers:
    - image: nginx:1.27
      imagePullPolicy: IfNotPresent
      livenessProbe:
        failureThreshold: 3
        httpGet:
          path: /
          port: 80
          scheme: HTTP
        periodSeconds: 10
        successThreshold: 1
        timeoutSeconds: 1
      name: nginx
      ports:
      - containerPort: 80
        name: http
        protocol: TCP
      resources:
        limits:
          memory: 256Mi
        requests:
          cpu: 250m
          memory: 128Mi
      terminationMessagePath: /dev/termination-log
      terminationMessagePolicy: File
      volumeMounts:
      - mountPath: /var/run/secrets/kubernetes.io/serviceaccount
        name: kube-api-access-8x7lq
        readOnly: true
    dnsPolicy: ClusterFirst
    enableServiceLinks: true
    nodeName: kind-worker
    preemptionPolicy: PreemptLowerPriority
    priority: 0
    restartPolicy: Always
    schedulerName: default-scheduler
    securityContext: {}
    serviceAccount: default
    serviceAccountName: default
    terminationGracePeriodSeconds: 30
    tolerations:
    - effect: NoExecute
      key: node.kubernetes.io/not-ready
      operator: Exists
      tolerationSeconds: 300
    - effect: NoExecute
      key: node.kubernetes.io/unreachable
      operator: Exists
      tolerationSeconds: 300
    topologySpreadConstraints:
    - labelSelector:
        matchLabels:
          app: web
      maxSkew: 1
      topologyKey: topology.kubernetes.io/zone
      whenUnsatisfiable: ScheduleAnyway
    volumes:
    - name: kube-api-access-8x7lq
      projected:
        defaultMode: 420
        sources:
        - serviceAccountToken:
            expirationSeconds: 3607
            path: token
        - configMap:
            items:
            - key: ca.crt
              path: ca.crt
            name: kube-root-ca.crt
        - downwardAPI:
            items:
            - fieldRef:
                apiVersion: v1
                fieldPath: metadata.namespace
              path: namespace
  status:
    conditions:
    - lastProbeTime: null
      lastTransitionTime: "2025-05-02T09:30:04Z"
      status: "True"
      type: PodReadyToStartContainers
    - lastProbeTime: null
      lastTransitionTime: "2025-05-02T09:30:02Z"
      status: "True"
      type: Initialized
    - lastProbeTime: null
      lastTransitionTime: "2025-05-02T09:30:04Z"
      status: "True"
      type: Ready
    - lastProbeTime: null
      lastTransitionTime: "2025-05-02T09:30:02Z"
      status: "True"
      type: PodScheduled
    containerStatuses:
    - containerID: containerd://4a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9
      image: docker.io/library/nginx:1.27
      imageID: docker.io/library/nginx@sha256:0a399eb16751829e1af26fea27b20c3ec28d7ab1fb72182879dcae1cca21206a
      lastState: {}
      name: nginx
      ready: true
      restartCount: 0
      started: true
      state:
        running:
          startedAt: "2025-05-02T09:30:03Z"
    hostIP: 172.18.0.3
    hostIPs:
    - ip: 172.18.0.3
    phase: Running
    podIP: 10.244.1.7
    podIPs:
    - ip: 10.244.1.7
    qosClass: Burstable
    startTime: "2025-05-02T09:30:02Z"
kind: List
metadata:
  resourceVersion: ""
"""


@pytest.mark.parametrize("release", SUPPORTED_RELEASES)
def test_a_real_dump_loads_without_a_problem(release: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        objs = load_manifests(REAL_DUMP, kubernetes_version=release, expand_workloads=False)
    assert sum(isinstance(o, Node) for o in objs) == 1
    assert sum(isinstance(o, Pod) for o in objs) == 1
    assert len(objs) == 4


@pytest.mark.parametrize("path", sorted(
    p for p in (ROOT / "tests" / "data").rglob("*") if p.suffix in (".yaml", ".yml", ".json")
    and p.is_file() and "config" not in p.parts and p.name != "public_api.json"), ids=lambda p: p.name)
def test_the_repositorys_manifests_have_no_unknown_field(path: Path) -> None:
    import yaml

    text = path.read_text()
    docs = list(yaml.safe_load_all(text)) if path.suffix != ".json" else [json.loads(text)]
    problems = []
    for doc in docs:
        if not isinstance(doc, dict) or not isinstance(doc.get("kind"), str):
            continue
        items = doc.get("items") if doc["kind"].endswith("List") else None
        for item in items if isinstance(items, list) else [doc]:
            if isinstance(item, dict):
                problems += field_problems(item)
    assert problems == []


# --------------------------------------------------------------------------------------------
# the CLI


def _run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), stdout=out), out.getvalue()


@pytest.fixture
def typo_dump(tmp_path: Path) -> Path:
    path = tmp_path / "dump.yaml"
    node = ('apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n'
            'status:\n  allocatable: {cpu: "4", memroy: 8Gi, pods: "110"}\n')
    path.write_text(node + "---\n" + _pod("  nodeSelecter: {a: b}\n"))
    return path


def test_cli_simulate_refuses_unknown_fields_with_every_problem_and_a_hint(
        typo_dump: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = _run("simulate", "--cluster", str(typo_dump), "--plain")
    assert code == EXIT_INPUT
    err = capsys.readouterr().err
    assert "2 unknown fields" in err
    assert f"{typo_dump}: documents[0].status.allocatable.memroy" in err
    assert f"{typo_dump}: documents[1].spec.nodeSelecter" in err
    assert "did you mean 'nodeSelector'?" in err
    assert "--validate=warn" in err


@pytest.mark.parametrize("command", ["simulate", "plan"])
def test_cli_validate_warn_reads_on(command: str, typo_dump: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--cluster", str(typo_dump), "--plain"] if command == "simulate" else \
        ["plan", "--cluster", str(typo_dump), "--no-scale-up", "--json"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SchedframeWarning)
        code, _ = _run(*argv, "--validate=warn")
    assert code != EXIT_INPUT, capsys.readouterr().err
    code, _ = _run(*argv, "--validate=ignore")
    assert code != EXIT_INPUT
    code, _ = _run(*argv)
    assert code == EXIT_INPUT
    assert "--validate=warn" in capsys.readouterr().err


def test_cli_kubernetes_version_selects_the_release(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A dump of a newer cluster fails against an older emulated release, saying so."""
    path = tmp_path / "dump.yaml"
    path.write_text("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
                    'status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}\n---\n'
                    + _pod("  schedulingGroup: {podGroupName: g}\n"))
    code, _ = _run("simulate", "--cluster", str(path), "--plain", "--kubernetes-version", "1.34")
    assert code == EXIT_INPUT
    err = capsys.readouterr().err
    assert "exists from Kubernetes 1.36 on; this load emulates 1.34" in err
    code, _ = _run("simulate", "--cluster", str(path), "--plain", "--kubernetes-version", "1.36")
    assert code == EXIT_OK, capsys.readouterr().err


def test_cli_explain_has_the_flag(typo_dump: Path, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    pod = tmp_path / "pod.yaml"
    pod.write_text(_pod(container_extra='    resources: {requets: {cpu: "1"}}\n'))
    code, _ = _run("explain", str(pod), "--cluster", str(typo_dump))
    assert code == EXIT_INPUT
    err = capsys.readouterr().err
    assert "requets" in err
    assert "--validate=warn" in err
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SchedframeWarning)
        code, _ = _run("explain", str(pod), "--cluster", str(typo_dump), "--validate", "ignore")
    assert code == EXIT_OK, capsys.readouterr().err


def test_scenario_files_pass_the_mode_to_their_cluster(typo_dump: Path, tmp_path: Path) -> None:
    from schedframe.sim.scenario import Scenario

    scenario = tmp_path / "s.yaml"
    scenario.write_text(f"name: s\ncluster: {typo_dump}\n")
    with pytest.raises(FieldValidationError):
        Scenario.from_file(scenario)
    s = Scenario.from_file(scenario, validate="ignore")
    assert len(s.nodes) == 1
    with pytest.raises(FieldValidationError):
        Scenario("x").with_cluster(typo_dump)
    assert len(Scenario("x").with_cluster(typo_dump, validate="ignore").nodes) == 1


def test_the_fast_walk_and_the_full_walk_agree() -> None:
    """Every document gets the fast walk (no paths); one with a problem is walked again to
    report it: an unknown key put anywhere in a real dump is found by both or by neither."""
    import copy

    import yaml

    from schedframe.api._field_check import _clean, _fast_trees, _trees, _walk

    dump = yaml.safe_load(REAL_DUMP)
    checked = 0
    for item in dump["items"]:
        key = f"{item['apiVersion']} {item['kind']}"
        root, fast = _trees("1.37")[key], _fast_trees("1.37")[key]
        # every dict of the document, by its path of keys and indices
        paths: list[list[object]] = []
        stack: list[tuple[object, list[object]]] = [(item, [])]
        while stack:
            value, at = stack.pop()
            if isinstance(value, dict):
                paths.append(at)
                stack.extend((v, [*at, k]) for k, v in value.items())
            elif isinstance(value, list):
                stack.extend((v, [*at, i]) for i, v in enumerate(value))
        for at in paths:
            for bad_key, bad_value in (("bogusField", 1), ("memroy", "1")):
                doc = copy.deepcopy(item)
                target = doc
                for step in at:
                    target = target[step]  # type: ignore[index]
                target[bad_key] = bad_value  # type: ignore[index]
                out: list[FieldProblem] = []
                _walk(doc, root, "", key, "1.37", out)
                assert bool(out) == (not _clean(doc, fast)), (at, bad_key)
                checked += 1
    assert checked > 100
