"""VolumeBinding: cases ported from upstream ``volumebinding/volume_binding_test.go`` (TestVolumeBinding),
the VolumeBindingArgs validation table of ``validation_pluginargs_test.go``, and binder behaviour
(``binder_test.go``: matching, assume, revert, bind).

Upstream's capacity-scoring rows run with the scoring feature on; here
``storage_capacity_scoring=True`` (the ``StorageCapacityScoring`` gate, off by default).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from schedframe import (
    CycleState,
    Node,
    NodeInfo,
    PluginArgsError,
    Pod,
    PreFilterResult,
    Scheduler,
    Status,
    release_profile,
)
from schedframe.api import (
    CSINode,
    CSINodeDriver,
    LabelSelector,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    ObjectReference,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    TopologySelectorRequirement,
    TopologySelectorTerm,
)
from schedframe.framework.args import decode_args, encode_args
from schedframe.framework.events import EventResource, QueueingHint
from schedframe.plugins import volume_binding
from schedframe.plugins.volume_binding import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_PV_NOT_EXIST,
    UtilizationShapePoint,
    VolumeBinding,
    VolumeBindingArgs,
    find_matching_volume,
    local_pv_node_names,
)
from schedframe.testing import PluginHarness

from ._volume_fixtures import ephemeral_volume, owned_by, pod_with_pvcs

WAIT = StorageClass(name="wait-sc", provisioner="", volume_binding_mode="WaitForFirstConsumer")
WAIT_HDD = StorageClass(name="wait-hdd-sc", provisioner="", volume_binding_mode="WaitForFirstConsumer")
IMMEDIATE = StorageClass(name="immediate-sc", provisioner="", volume_binding_mode="Immediate")
CLASSES = [WAIT, WAIT_HDD, IMMEDIATE]
HOSTNAME = "kubernetes.io/hostname"
REGION = "topology.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
BIND_CONFLICT = Status.unresolvable(ERR_REASON_BIND_CONFLICT)


def make_node(name: str, **labels: str) -> Node:
    """Upstream ``makeNode``: the hostname label is the node name."""
    return Node(name, labels={HOSTNAME: name, **labels})


def make_pvc(
    name: str,
    sc: str,
    *,
    bound_pv: str = "",
    storage: str = "",
    phase: str = "Pending",
    annotations: Mapping[str, str] | None = None,
    **kw: Any,
) -> PersistentVolumeClaim:
    """Upstream ``makePVC(...).withBoundPV(...)``: bound means volumeName plus bind-completed."""
    ann = {**(annotations or {}), **({"pv.kubernetes.io/bind-completed": "yes"} if bound_pv else {})}
    return PersistentVolumeClaim(
        name=name,
        storage_class_name=sc,
        volume_name=bound_pv,
        annotations=ann,
        requests={"storage": storage} if storage else {},
        phase=phase,
        **kw,
    )


def affinity(values: Mapping[str, Sequence[str]]) -> NodeSelector:
    """Upstream ``withNodeAffinity``: one term with an ``In`` expression per key."""
    return NodeSelector(
        [NodeSelectorTerm([NodeSelectorRequirement(k, "In", tuple(v)) for k, v in values.items()])]
    )


def make_pv(
    name: str,
    sc: str,
    *,
    phase: str = "Available",
    capacity: str = "",
    node_affinity: Mapping[str, Sequence[str]] | None = None,
    **kw: Any,
) -> PersistentVolume:
    return PersistentVolume(
        name=name,
        storage_class_name=sc,
        phase=phase,
        capacity={"storage": capacity} if capacity else {},
        node_affinity=affinity(node_affinity) if node_affinity else None,
        **kw,
    )


def local_pvs(sc: str, capacity: str, node: str, *names: str) -> list[PersistentVolume]:
    return [make_pv(n, sc, capacity=capacity, node_affinity={HOSTNAME: [node]}) for n in names]


def zonal_pvs(capacity: str, zone: str, *names: str) -> list[PersistentVolume]:
    region = zone.replace("zone", "region")
    return [
        make_pv(n, WAIT.name, capacity=capacity, node_affinity={REGION: [region], ZONE: [zone]})
        for n in names
    ]


ZONAL_NODES = [
    make_node(f"zone-{z}-node-{n}", **{REGION: f"region-{z}", ZONE: f"zone-{z}"}) for z in "abc" for n in "ab"
]
ZONAL_PVS = [
    *zonal_pvs("200Gi", "zone-a", "pv-a-0", "pv-a-1"),
    *zonal_pvs("100Gi", "zone-b", "pv-b-0", "pv-b-1"),
]
SCORING_ARGS = VolumeBindingArgs(
    bind_timeout_seconds=300,
    shape=[UtilizationShapePoint(utilization=0, score=0), UtilizationShapePoint(utilization=100, score=10)],
)

TABLE = [
    pytest.param(
        Pod("pod-a"),
        [make_node("node-a")],
        [],
        [],
        None,
        (None, Status.skip()),
        [None],
        None,
        id="pod has not pvcs",
    ),
    pytest.param(
        pod_with_pvcs("pod-a", ["pvc-a"]),
        [make_node("node-a")],
        [make_pvc("pvc-a", WAIT.name, bound_pv="pv-a")],
        [make_pv("pv-a", WAIT.name)],
        None,
        (None, None),
        [None],
        None,
        id="all bound",
    ),
    pytest.param(
        pod_with_pvcs("pod-a", ["pvc-a", "pvc-b"]),
        [make_node("node-a")],
        [make_pvc("pvc-a", WAIT.name, bound_pv="pv-a"), make_pvc("pvc-b", WAIT.name, bound_pv="pv-b")],
        [
            make_pv("pv-a", WAIT.name, phase="Bound", node_affinity={HOSTNAME: ["node-a"]}),
            make_pv("pv-b", WAIT.name, phase="Bound", node_affinity={HOSTNAME: ["node-a"]}),
        ],
        None,
        # Upstream 1.32-1.37 do not narrow the nodes from bound local PVs (the oracle
        # agrees); Filter checks each PV's node affinity instead.
        (None, None),
        [None],
        None,
        id="all bound with local volumes",
    ),
    pytest.param(
        pod_with_pvcs("pod-a", ["pvc-a"]),
        [make_node("node-a")],
        [],
        [],
        None,
        (None, Status.unresolvable('persistentvolumeclaim "pvc-a" not found')),
        None,
        None,
        id="PVC does not exist",
    ),
    pytest.param(
        pod_with_pvcs("pod-a", ["pvc-a", "pvc-b"]),
        [make_node("node-a")],
        [make_pvc("pvc-a", WAIT.name, bound_pv="pv-a")],
        [],
        None,
        (None, Status.unresolvable('persistentvolumeclaim "pvc-b" not found')),
        None,
        None,
        id="Part of PVCs do not exist",
    ),
    pytest.param(
        pod_with_pvcs("pod-a", ["pvc-a"]),
        [make_node("node-a")],
        [make_pvc("pvc-a", IMMEDIATE.name)],
        [],
        None,
        (None, Status.unresolvable("pod has unbound immediate PersistentVolumeClaims")),
        None,
        None,
        id="immediate claims not bound",
    ),
    pytest.param(
        pod_with_pvcs("pod-a", ["pvc-a"]),
        [make_node("node-a")],
        [make_pvc("pvc-a", WAIT.name)],
        [],
        None,
        (None, None),
        [BIND_CONFLICT],
        None,
        id="unbound claims no matches",
    ),
    pytest.param(
        pod_with_pvcs("pod-a", ["pvc-a", "pvc-b"]),
        [make_node("node-a", foo="barbar")],
        [make_pvc("pvc-a", WAIT.name, bound_pv="pv-a"), make_pvc("pvc-b", WAIT.name)],
        [make_pv("pv-a", WAIT.name, node_affinity={"foo": ["bar"]})],
        None,
        (None, None),
        [Status.unresolvable(ERR_REASON_NODE_CONFLICT, ERR_REASON_BIND_CONFLICT)],
        None,
        id="bound and unbound unsatisfied",
    ),
    pytest.param(
        pod_with_pvcs("pod-a", ["pvc-a"]),
        [make_node("node-a")],
        [make_pvc("pvc-a", WAIT.name, bound_pv="pv-a")],
        [],
        None,
        (None, None),
        [Status.unresolvable(ERR_REASON_PV_NOT_EXIST)],
        None,
        id="pv not found",
    ),
    pytest.param(
        pod_with_pvcs("pod-a", ["pvc-a"]),
        [make_node("node-a")],
        [make_pvc("pvc-a", WAIT.name, bound_pv="pv-a", phase="Lost")],
        [],
        None,
        (
            None,
            Status.unresolvable(
                'persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a"'
            ),
        ),
        None,
        None,
        id="pv not found claim lost",
    ),
    pytest.param(
        pod_with_pvcs("pod-a", ["pvc-a"]),
        [make_node(f"node-{n}") for n in "abc"],
        [make_pvc("pvc-a", WAIT.name, storage="50Gi")],
        [
            *local_pvs(WAIT.name, "200Gi", "node-a", "pv-a-0", "pv-a-1"),
            *local_pvs(WAIT.name, "100Gi", "node-b", "pv-b-0", "pv-b-1"),
        ],
        SCORING_ARGS,
        (None, None),
        [None, None, BIND_CONFLICT],
        [25, 50, 0],
        id="local volumes with close capacity are preferred",
    ),
    pytest.param(
        pod_with_pvcs("pod-a", ["pvc-0", "pvc-1"]),
        [make_node(f"node-{n}") for n in "abc"],
        [make_pvc("pvc-0", WAIT.name, storage="50Gi"), make_pvc("pvc-1", WAIT_HDD.name, storage="100Gi")],
        [
            *local_pvs(WAIT.name, "200Gi", "node-a", "pv-a-0", "pv-a-1"),
            *local_pvs(WAIT_HDD.name, "200Gi", "node-a", "pv-a-2", "pv-a-3"),
            *local_pvs(WAIT.name, "100Gi", "node-b", "pv-b-0", "pv-b-1"),
            *local_pvs(WAIT_HDD.name, "100Gi", "node-b", "pv-b-2", "pv-b-3"),
        ],
        SCORING_ARGS,
        (None, None),
        [None, None, BIND_CONFLICT],
        [38, 75, 0],
        id="local volumes with close capacity are preferred (multiple pvcs)",
    ),
    pytest.param(
        pod_with_pvcs("pod-a", ["pvc-a"]),
        ZONAL_NODES,
        [make_pvc("pvc-a", WAIT.name, storage="50Gi")],
        ZONAL_PVS,
        SCORING_ARGS,
        (None, None),
        [None, None, None, None, BIND_CONFLICT, BIND_CONFLICT],
        [25, 25, 50, 50, 0, 0],
        id="zonal volumes with close capacity are preferred",
    ),
    pytest.param(
        pod_with_pvcs("pod-a", ["pvc-a"]),
        ZONAL_NODES,
        [make_pvc("pvc-a", WAIT.name, storage="50Gi")],
        ZONAL_PVS,
        VolumeBindingArgs(
            bind_timeout_seconds=300,
            shape=[
                UtilizationShapePoint(utilization=0, score=0),
                UtilizationShapePoint(utilization=50, score=3),
                UtilizationShapePoint(utilization=100, score=5),
            ],
        ),
        (None, None),
        [None, None, None, None, BIND_CONFLICT, BIND_CONFLICT],
        [15, 15, 30, 30, 0, 0],
        id="zonal volumes with close capacity are preferred (custom shape)",
    ),
]


@pytest.mark.parametrize(
    ("pod", "nodes", "pvcs", "pvs", "args", "want_pre", "want_filter", "want_scores"), TABLE
)
def test_volume_binding(
    pod: Pod,
    nodes: list[Node],
    pvcs: list[PersistentVolumeClaim],
    pvs: list[PersistentVolume],
    args: VolumeBindingArgs | None,
    want_pre: tuple[PreFilterResult | None, Status | None],
    want_filter: list[Status | None] | None,
    want_scores: list[int] | None,
) -> None:
    """PreFilter, Filter per node, PreScore and Score, as upstream TestVolumeBinding."""
    h = PluginHarness("VolumeBinding", nodes=nodes, objects=[*CLASSES, *pvcs, *pvs])
    plugin = VolumeBinding(args, h.framework, storage_capacity_scoring=args is not None)
    state = CycleState()
    assert plugin.pre_filter(state, pod, []) == want_pre
    if want_pre[1] is not None:
        return
    infos = [NodeInfo(n) for n in nodes]
    assert [plugin.filter(state, pod, ni) for ni in infos] == want_filter
    pre_score = plugin.pre_score(state, pod, infos)
    if want_scores is None:
        assert pre_score == Status.skip()
    else:
        assert pre_score is None
        assert [plugin.score(state, pod, ni)[0] for ni in infos] == want_scores


def test_scoring_is_off_by_default_up_to_1_36() -> None:
    """Without the StorageCapacityScoring gate (off by default up to Kubernetes 1.36), PreScore
    skips and Score is 0."""
    h = PluginHarness(
        "VolumeBinding",
        nodes=[make_node("node-a")],
        objects=[WAIT, make_pvc("c", WAIT.name, storage="1Gi"), *local_pvs(WAIT.name, "2Gi", "node-a", "pv")],
        kubernetes_version="1.36",
    )
    pod = pod_with_pvcs("p", ["c"])
    assert h.pre_score(pod) == Status.skip()
    assert h.score(pod) == {"node-a": 0}


def test_scoring_is_on_by_default_from_1_37() -> None:
    """From 1.37 the gate is on by default: every pod is scored, a pod without claims 0, a pod
    binding a PV by the default shape at its utilisation (1Gi of 2Gi: 50 %, so 5 of 10, 50)."""
    h = PluginHarness(
        "VolumeBinding",
        nodes=[make_node("node-a")],
        objects=[WAIT, make_pvc("c", WAIT.name, storage="1Gi"), *local_pvs(WAIT.name, "2Gi", "node-a", "pv")],
    )
    assert h.pre_score(Pod("plain")) == Status.OK
    assert h.score(Pod("plain")) == {"node-a": 0}
    plugin = volume_binding.new(None, h.framework)
    pod = pod_with_pvcs("p", ["c"])
    state = CycleState()
    [info] = h.framework.snapshot_shared_lister().node_infos().list()
    assert plugin.pre_filter(state, pod, []) == (None, None)
    assert plugin.filter(state, pod, info) is None
    assert plugin.pre_score(state, pod, [info]) is None
    assert plugin.score(state, pod, info) == (50, None)


# ----------------------------------------------------------------------------------------------
# Matching (binder_test.go / pv_helpers)

CLAIM = make_pvc("claim", WAIT.name, storage="5Gi", access_modes=("ReadWriteOnce",))


@pytest.mark.parametrize(
    ("pvs", "claim", "want"),
    [
        pytest.param(
            [
                make_pv("small", WAIT.name, capacity="1Gi", access_modes=("ReadWriteOnce",)),
                make_pv("big", WAIT.name, capacity="100Gi", access_modes=("ReadWriteOnce",)),
                make_pv("fit", WAIT.name, capacity="10Gi", access_modes=("ReadWriteOnce",)),
            ],
            CLAIM,
            "fit",
            id="smallest fitting volume",
        ),
        pytest.param(
            [make_pv("other-class", WAIT_HDD.name, capacity="10Gi", access_modes=("ReadWriteOnce",))],
            CLAIM,
            None,
            id="other class",
        ),
        pytest.param(
            [make_pv("rox", WAIT.name, capacity="10Gi", access_modes=("ReadOnlyMany",))],
            CLAIM,
            None,
            id="access modes not offered",
        ),
        pytest.param(
            [
                make_pv(
                    "released", WAIT.name, capacity="10Gi", phase="Released", access_modes=("ReadWriteOnce",)
                )
            ],
            CLAIM,
            None,
            id="not available",
        ),
        pytest.param(
            [
                make_pv(
                    "taken",
                    WAIT.name,
                    capacity="10Gi",
                    access_modes=("ReadWriteOnce",),
                    claim_ref=ObjectReference(name="other", namespace="default"),
                )
            ],
            CLAIM,
            None,
            id="claimed by another",
        ),
        pytest.param(
            [
                make_pv(
                    "block", WAIT.name, capacity="10Gi", access_modes=("ReadWriteOnce",), volume_mode="Block"
                )
            ],
            CLAIM,
            None,
            id="volume mode mismatch",
        ),
        pytest.param(
            [
                make_pv(
                    "deleting",
                    WAIT.name,
                    capacity="10Gi",
                    access_modes=("ReadWriteOnce",),
                    deletion_timestamp=1.0,
                )
            ],
            CLAIM,
            None,
            id="being deleted",
        ),
        pytest.param(
            [
                make_pv("unlabelled", WAIT.name, capacity="10Gi", access_modes=("ReadWriteOnce",)),
                make_pv(
                    "labelled",
                    WAIT.name,
                    capacity="20Gi",
                    access_modes=("ReadWriteOnce",),
                    labels={"tier": "gold"},
                ),
            ],
            make_pvc("claim", WAIT.name, storage="5Gi", selector=LabelSelector({"tier": "gold"})),
            "labelled",
            id="selector",
        ),
        pytest.param(
            [
                make_pv("fit", WAIT.name, capacity="10Gi", access_modes=("ReadWriteOnce",)),
                make_pv(
                    "prebound",
                    WAIT.name,
                    capacity="50Gi",
                    phase="Bound",
                    claim_ref=ObjectReference(name="claim", namespace="default"),
                ),
            ],
            CLAIM,
            "prebound",
            id="pre-bound volume wins",
        ),
        pytest.param(
            [
                make_pv(
                    "prebound",
                    WAIT.name,
                    capacity="1Gi",
                    claim_ref=ObjectReference(name="claim", namespace="default"),
                )
            ],
            CLAIM,
            None,
            id="pre-bound volume too small",
        ),
        pytest.param(
            [
                make_pv("fit", WAIT.name, capacity="10Gi", access_modes=("ReadWriteOnce",)),
                make_pv(
                    "prebound",
                    WAIT.name,
                    capacity="50Gi",
                    node_affinity={HOSTNAME: ["elsewhere"]},
                    claim_ref=ObjectReference(name="claim", namespace="default"),
                ),
            ],
            CLAIM,
            None,
            id="pre-bound volume on another node: no match",
        ),
    ],
)
def test_find_matching_volume(
    pvs: list[PersistentVolume], claim: PersistentVolumeClaim, want: str | None
) -> None:
    """Upstream ``FindMatchingVolume`` rules on the scheduler path."""
    got = find_matching_volume(claim, pvs, {HOSTNAME: "node-a"})
    assert (got.name if got is not None else None) == want


def test_local_pv_node_names() -> None:
    """Hostname ``In`` expressions intersect within a term and unite across terms."""
    pv = PersistentVolume(
        name="pv",
        node_affinity=NodeSelector(
            [
                NodeSelectorTerm(
                    [
                        NodeSelectorRequirement(HOSTNAME, "In", ("a", "b")),
                        NodeSelectorRequirement(HOSTNAME, "In", ("b", "c")),
                    ]
                ),
                NodeSelectorTerm([NodeSelectorRequirement(HOSTNAME, "In", ("d",))]),
                NodeSelectorTerm([NodeSelectorRequirement(ZONE, "In", ("z",))]),
            ]
        ),
    )
    assert local_pv_node_names(pv) == {"b", "d"}
    assert local_pv_node_names(PersistentVolume(name="x")) == frozenset()


# ----------------------------------------------------------------------------------------------
# Dynamic provisioning, ephemeral claims

PROVISIONING = StorageClass(
    name="csi",
    provisioner="csi.example.com",
    volume_binding_mode="WaitForFirstConsumer",
    allowed_topologies=[TopologySelectorTerm([TopologySelectorRequirement(ZONE, ("z1",))])],
)


def test_provisioning_respects_allowed_topologies() -> None:
    """A claim with no matching PV is provisioned where the class's topologies allow it."""
    h = PluginHarness(
        "VolumeBinding",
        nodes=[make_node("a", **{ZONE: "z1"}), make_node("b", **{ZONE: "z2"})],
        objects=[PROVISIONING, make_pvc("c", "csi", storage="1Gi")],
    )
    assert h.filter(pod_with_pvcs("p", ["c"])) == {"a": Status.OK, "b": BIND_CONFLICT}


@pytest.mark.parametrize(
    ("objects", "want"),
    [
        pytest.param(
            [make_pvc("c", "missing", storage="1Gi"), StorageClass(name="missing-x", provisioner="p")],
            'failed to find storage class "missing"',
            id="class missing",
        ),
    ],
)
def test_provisioning_errors(objects: list[object], want: str) -> None:
    """A claim to provision whose class does not exist is an ERROR at Filter."""
    h = PluginHarness("VolumeBinding", nodes=[make_node("a")], objects=objects)
    # the class is unknown, so the claim counts as immediate binding: PreFilter rejects it
    assert h.pre_filter(pod_with_pvcs("p", ["c"]))[1] == Status.unresolvable(
        "pod has unbound immediate PersistentVolumeClaims"
    )
    plugin = VolumeBinding(None, h.framework)
    with pytest.raises(LookupError, match=want):
        plugin._check_provisions([make_pvc("c", "missing")], {})


def test_selected_node_fast_path() -> None:
    """A claim whose provisioning started for another node fits no other node."""
    claim = make_pvc("c", "csi", annotations={"volume.kubernetes.io/selected-node": "a"})
    h = PluginHarness(
        "VolumeBinding",
        nodes=[make_node("a", **{ZONE: "z1"}), make_node("b", **{ZONE: "z1"})],
        objects=[PROVISIONING, claim],
    )
    assert h.filter(pod_with_pvcs("p", ["c"])) == {"a": Status.OK, "b": BIND_CONFLICT}


def test_ephemeral_claims() -> None:
    """A generic ephemeral volume needs its claim, created for the pod."""
    pod = Pod(name="abc", uid="12345", volumes=[ephemeral_volume("xyz")])
    h = PluginHarness("VolumeBinding", nodes=[make_node("a")], objects=[WAIT])
    assert h.pre_filter(pod)[1] == Status.unresolvable(
        'waiting for ephemeral volume controller to create the persistentvolumeclaim "abc-xyz"'
    )
    h = PluginHarness("VolumeBinding", nodes=[make_node("a")], objects=[WAIT, make_pvc("abc-xyz", WAIT.name)])
    assert h.pre_filter(pod)[1] == Status.unresolvable(
        "PVC default/abc-xyz was not created for pod default/abc (pod is not owner)"
    )
    owned = make_pvc("abc-xyz", WAIT.name, bound_pv="pv", owner_references=owned_by(pod))
    h = PluginHarness(
        "VolumeBinding", nodes=[make_node("a")], objects=[WAIT, owned, make_pv("pv", WAIT.name)]
    )
    assert h.filter(pod) == {"a": Status.OK}


def test_claim_being_deleted() -> None:
    """A claim being deleted blocks the pod."""
    h = PluginHarness(
        "VolumeBinding",
        nodes=[make_node("a")],
        objects=[WAIT, make_pvc("c", WAIT.name, deletion_timestamp=5.0)],
    )
    assert h.pre_filter(pod_with_pvcs("p", ["c"]))[1] == Status.unresolvable(
        'persistentvolumeclaim "c" is being deleted'
    )


# ----------------------------------------------------------------------------------------------
# Reserve, Unreserve, PreBind


def test_reserve_assumes_and_unreserve_reverts() -> None:
    """Reserve makes the chosen PV unavailable to the next pod; Unreserve gives it back."""
    pvs = local_pvs(WAIT.name, "10Gi", "a", "pv-1")
    claims = [make_pvc("c1", WAIT.name, storage="1Gi"), make_pvc("c2", WAIT.name, storage="1Gi")]
    h = PluginHarness("VolumeBinding", nodes=[make_node("a")], objects=[WAIT, *claims, *pvs])
    plugin = VolumeBinding(None, h.framework)
    first, second = pod_with_pvcs("p1", ["c1"]), pod_with_pvcs("p2", ["c2"])
    state = CycleState()
    plugin.pre_filter(state, first, [])
    assert plugin.filter(state, first, NodeInfo(make_node("a"))) is None
    assert plugin.reserve(state, first, "a") is None
    other = CycleState()
    plugin.pre_filter(other, second, [])
    assert plugin.filter(other, second, NodeInfo(make_node("a"))) == BIND_CONFLICT
    plugin.unreserve(state, first, "a")
    plugin.unreserve(state, first, "a")  # idempotent
    other = CycleState()
    plugin.pre_filter(other, second, [])
    assert plugin.filter(other, second, NodeInfo(make_node("a"))) is None


def test_scheduler_binds_static_and_provisions() -> None:
    """Through the scheduler: a static binding and a dynamic provisioning are written to the
    object store, as the PV controller and the provisioner would leave them."""
    s = Scheduler()
    s.add_node(make_node("a", **{ZONE: "z1"}).evolve(capacity={"pods": "10"}))
    s.add_object(CSINode("a", drivers=[CSINodeDriver("csi.example.com", "a", topology_keys=(ZONE,))]))
    for obj in [
        WAIT,
        PROVISIONING,
        *local_pvs(WAIT.name, "10Gi", "a", "pv-1"),
        make_pvc("static", WAIT.name, storage="1Gi"),
        make_pvc("dynamic", "csi", storage="2Gi"),
    ]:
        s.add_object(obj)
    pod = pod_with_pvcs("p", ["static", "dynamic"])
    s.add_pod(pod)
    s.run_until_idle()
    assert s.node_of(pod) == "a"
    static = s.objects.get(PersistentVolumeClaim, "static", "default")
    assert static is not None
    assert static.volume_name == "pv-1"
    assert static.is_fully_bound()
    pv = s.objects.get(PersistentVolume, "pv-1")
    assert pv is not None
    assert pv.phase == "Bound"
    assert pv.claim_ref is not None
    assert (pv.claim_ref.name, pv.claim_ref.uid) == ("static", static.uid)
    dynamic = s.objects.get(PersistentVolumeClaim, "dynamic", "default")
    assert dynamic is not None
    assert dynamic.annotations["volume.kubernetes.io/selected-node"] == "a"
    provisioned = s.objects.get(PersistentVolume, dynamic.volume_name)
    assert provisioned is not None
    assert provisioned.storage_class_name == "csi"
    assert provisioned.storage == dynamic.storage
    assert provisioned.node_affinity == affinity({ZONE: ["z1"]})
    # a second pod wanting the same static volume class finds nothing left
    late = pod_with_pvcs("late", ["late-claim"])
    s.add_object(make_pvc("late-claim", WAIT.name, storage="1Gi"))
    s.add_pod(late)
    s.run_until_idle()
    assert s.node_of(late) is None


def test_pre_bind_needs_a_writable_store() -> None:
    """With a read-only object lister PreBind is an ERROR and the assumption is reverted."""

    class ReadOnly:
        def __init__(self, objects: list[object]) -> None:
            self._objects = objects

        def namespace(self, name: str) -> None:
            return None

        def list(self, kind: type, namespace: str | None = None) -> list[Any]:
            return [
                o
                for o in self._objects
                if isinstance(o, kind) and (namespace is None or getattr(o, "namespace", "") == namespace)
            ]

    class Handle:
        objects = ReadOnly(
            [WAIT, make_pvc("c", WAIT.name, storage="1Gi"), *local_pvs(WAIT.name, "10Gi", "a", "pv-1")]
        )

    plugin = VolumeBinding(None, Handle())  # type: ignore[arg-type]
    pod = pod_with_pvcs("p", ["c"])
    state = CycleState()
    assert plugin.pre_filter(state, pod, []) == (None, None)
    assert plugin.filter(state, pod, NodeInfo(make_node("a"))) is None
    assert plugin.reserve(state, pod, "a") is None
    status = plugin.pre_bind(state, pod, "a")
    assert status is not None
    assert status.code.name == "ERROR"
    assert "read-only" in status.message
    assert plugin._assumed_pvs == {}


def test_pre_bind_without_volumes_for_the_node() -> None:
    """PreBind on a node Filter never accepted is an ERROR, as upstream."""
    h = PluginHarness(
        "VolumeBinding",
        nodes=[make_node("a")],
        objects=[WAIT, make_pvc("c", WAIT.name), *local_pvs(WAIT.name, "1Gi", "a", "pv")],
    )
    plugin = VolumeBinding(None, h.framework)
    pod = pod_with_pvcs("p", ["c"])
    state = CycleState()
    plugin.pre_filter(state, pod, [])
    plugin.reserve(state, pod, "b")  # no decisions for b: nothing to assume
    state2 = CycleState()
    plugin.pre_filter(state2, pod, [])
    status = plugin.pre_bind(state2, pod, "b")
    assert status is not None
    assert status.message == 'no pod volumes found for node "b"'


# ----------------------------------------------------------------------------------------------
# Args


@pytest.mark.parametrize(
    ("data", "want"),
    [
        pytest.param({}, VolumeBindingArgs(bind_timeout_seconds=600), id="defaults"),
        pytest.param({"bindTimeoutSeconds": 300}, VolumeBindingArgs(bind_timeout_seconds=300), id="timeout"),
        pytest.param(
            {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "VolumeBindingArgs",
                "bindTimeoutSeconds": 0,
            },
            VolumeBindingArgs(bind_timeout_seconds=0),
            id="zero timeout",
        ),
    ],
)
def test_args_from_dict(data: dict[str, Any], want: VolumeBindingArgs) -> None:
    """Decoding applies upstream's default (600 s)."""
    assert decode_args(VolumeBindingArgs, data) == want
    assert decode_args(VolumeBindingArgs, encode_args(want)) == want


@pytest.mark.parametrize(
    ("args", "scoring", "want"),
    [
        pytest.param(
            VolumeBindingArgs(bind_timeout_seconds=-10),
            False,
            [
                "bindTimeoutSeconds: Invalid value: -10: invalid BindTimeoutSeconds, should not be a "
                "negative value"
            ],
            id="[StorageCapacityScoring=off] negative bindTimeoutSeconds",
        ),
        pytest.param(
            VolumeBindingArgs(shape=[UtilizationShapePoint(utilization=0, score=0)]),
            False,
            [
                "shape: Invalid value: []config.UtilizationShapePoint{config.UtilizationShapePoint"
                "{Utilization:0, Score:0}}: unexpected field `shape`, remove it or turn on the feature gate "
                "StorageCapacityScoring"
            ],
            id="[StorageCapacityScoring=off] shape should be nil when the feature is off",
        ),
        pytest.param(
            VolumeBindingArgs(shape=[]),
            True,
            ["shape: Required value: at least one point must be specified"],
            id="[StorageCapacityScoring=on] shape should not be empty",
        ),
        pytest.param(
            VolumeBindingArgs(
                shape=[
                    UtilizationShapePoint(utilization=0, score=10),
                    UtilizationShapePoint(utilization=0, score=0),
                ]
            ),
            True,
            ["shape[1].utilization: Invalid value: 0: values must be sorted in increasing order"],
            id="[StorageCapacityScoring=on] shape points must be sorted in increasing order",
        ),
        pytest.param(
            VolumeBindingArgs(
                shape=[
                    UtilizationShapePoint(utilization=-1, score=0),
                    UtilizationShapePoint(utilization=100, score=11),
                ]
            ),
            True,
            [
                "shape[0].utilization: Invalid value: -1: not in valid range [0, 100]",
                "shape[1].score: Invalid value: 11: not in valid range [0, 10]",
            ],
            id="[StorageCapacityScoring=on] shape out of range",
        ),
        pytest.param(
            VolumeBindingArgs(
                shape=[
                    UtilizationShapePoint(utilization=0, score=10),
                    UtilizationShapePoint(utilization=100, score=0),
                ]
            ),
            True,
            [],
            id="[StorageCapacityScoring=on] valid shape",
        ),
    ],
)
def test_args_validation(args: VolumeBindingArgs, scoring: bool, want: list[str]) -> None:
    """Upstream ``ValidateVolumeBindingArgsWithOptions``."""
    assert args.errors(storage_capacity_scoring=scoring) == want
    if want:
        with pytest.raises(PluginArgsError, match=r"Invalid value|Required value"):
            VolumeBinding(args, storage_capacity_scoring=scoring)


def test_factory() -> None:
    """new() takes None, a mapping or the args object, and rejects anything else."""
    # the newest release has StorageCapacityScoring on: the default shape comes with the args
    assert volume_binding.new(None, None).args == VolumeBindingArgs(  # type: ignore[arg-type]
        shape=volume_binding.DEFAULT_CAPACITY_SHAPE)
    assert volume_binding.new({"bindTimeoutSeconds": 5}, None).args.bind_timeout_seconds == 5  # type: ignore[arg-type]
    with pytest.raises(PluginArgsError, match="want args of type VolumeBindingArgs, got int"):
        volume_binding.new(3, None)  # type: ignore[arg-type]
    with pytest.raises(PluginArgsError, match="unknown field"):
        decode_args(VolumeBindingArgs, {"bindTimeout": 1})
    # a shape is refused where the release has StorageCapacityScoring off (up to 1.36)
    shaped = decode_args(VolumeBindingArgs, {"shape": [{"utilization": 0, "score": 1}]})
    with pytest.raises(PluginArgsError, match="unexpected field `shape`"):
        shaped.defaulted(release_profile("1.36"))
    assert shaped.defaulted(release_profile("1.37")) == shaped


# ----------------------------------------------------------------------------------------------
# Events


def test_events_and_hints() -> None:
    """Events as upstream; the hints requeue only on relevant changes."""
    plugin = VolumeBinding()
    resources = [e.event.resource for e in plugin.events_to_register()]
    assert resources == [
        EventResource.STORAGE_CLASS,
        EventResource.PERSISTENT_VOLUME_CLAIM,
        EventResource.PERSISTENT_VOLUME,
        EventResource.NODE,
        EventResource.CSI_NODE,
        EventResource.CSI_DRIVER,
        EventResource.CSI_STORAGE_CAPACITY,
    ]
    pod = pod_with_pvcs("p", ["c"])
    assert plugin.is_schedulable_after_pvc_change(pod, None, make_pvc("c", "x")) is QueueingHint.QUEUE
    assert plugin.is_schedulable_after_pvc_change(pod, None, make_pvc("d", "x")) is QueueingHint.QUEUE_SKIP
    assert plugin.is_schedulable_after_storage_class_change(pod, None, WAIT) is QueueingHint.QUEUE
    assert (
        plugin.is_schedulable_after_storage_class_change(
            pod,
            PROVISIONING,
            PROVISIONING.__class__(
                name="csi", provisioner="csi.example.com", volume_binding_mode="WaitForFirstConsumer"
            ),
        )
        is QueueingHint.QUEUE
    )
    assert plugin.is_schedulable_after_storage_class_change(pod, WAIT, WAIT) is QueueingHint.QUEUE_SKIP
    node = CSINode("a")
    assert plugin.is_schedulable_after_csi_node_change(pod, None, node) is QueueingHint.QUEUE
    assert plugin.is_schedulable_after_csi_node_change(pod, node, node) is QueueingHint.QUEUE_SKIP
    migrated = CSINode(
        "a", annotations={"storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/gce-pd"}
    )
    assert plugin.is_schedulable_after_csi_node_change(pod, node, migrated) is QueueingHint.QUEUE


def test_claim_added_later_requeues_the_pod() -> None:
    """A pod waiting for its claim is retried when the claim is added (PVC Add event, hinted)."""
    s = Scheduler()
    s.add_node(make_node("a").evolve(capacity={"pods": "10"}))
    s.add_object(WAIT)
    s.add_object(PersistentVolume(name="pv", storage_class_name=WAIT.name, capacity={"storage": "1Gi"}))
    pod = pod_with_pvcs("p", ["late"])
    s.add_pod(pod)
    s.run_until_idle()
    assert s.node_of(pod) is None
    [pending] = s.pending()
    assert 'persistentvolumeclaim "late" not found' in pending.message
    s.add_object(make_pvc("late", WAIT.name, storage="1Gi"))
    s.run_until_idle()
    assert s.node_of(pod) == "a"
