"""NodeDeclaredFeatures: a pod that needs a node feature fits only nodes declaring it.

Upstream: ``pkg/scheduler/framework/plugins/nodedeclaredfeatures`` with the feature registry of
``k8s.io/component-helpers/nodedeclaredfeatures`` (KEP-5328). A node's kubelet lists the features
it supports in ``status.declaredFeatures``; the plugin infers from the pod's spec which features
it needs and filters out nodes that do not declare all of them:

* ``RestartAllContainersOnContainerExits``: a container or init container has a
  ``restartPolicyRules`` rule with action ``RestartAllContainers``;
* ``UserNamespacesHostNetworkSupport``: the pod uses the host network in a user namespace
  (``hostNetwork: true`` and ``hostUsers: false``).

These are the features of the 1.36 registry that a pod can need at scheduling time (the others
only constrain updates, which the scheduler does not check); 1.35's registry has none. The
plugin runs only when the ``NodeDeclaredFeatures`` feature gate is on (by default from 1.36); off,
it skips every pod. A pod needing nothing is skipped in PreFilter. A node that misses a feature
is ``UNSCHEDULABLE_AND_UNRESOLVABLE`` with the missing features, sorted, in the message.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Final, final

import attrs

from ..api.objects import Node, Pod
from ..framework.cycle_state import CycleState, StateKey
from ..framework.events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource, QueueingHint
from ..framework.releases import release_of
from ..framework.status import Code, Status
from . import names
from ._helpers import as_objects, no_args_factory, node_not_found

if TYPE_CHECKING:
    from ..cache.nodeinfo import NodeInfo
    from ..framework.handle import Handle
    from ..framework.interfaces import EnqueueExtensions, FilterPlugin, PreFilterPlugin, PreFilterResult

__all__ = [
    "ARGS_TYPE",
    "ERR_REASON_PREFIX",
    "NAME",
    "RESTART_ALL_CONTAINERS_ON_CONTAINER_EXITS",
    "USER_NAMESPACES_HOST_NETWORK_SUPPORT",
    "DeclaredFeature",
    "NodeDeclaredFeatures",
    "features_for",
    "new",
]

NAME: Final = names.NODE_DECLARED_FEATURES
ARGS_TYPE: Final = None

#: The start of the Filter reason; the unsatisfied features follow, comma-separated.
ERR_REASON_PREFIX: Final = "node declared features check failed - unsatisfied requirements: "
#: Declared by nodes whose kubelet honours ``RestartAllContainers`` restart rules.
RESTART_ALL_CONTAINERS_ON_CONTAINER_EXITS: Final = "RestartAllContainersOnContainerExits"
#: Declared by nodes that run host-network pods in user namespaces.
USER_NAMESPACES_HOST_NETWORK_SUPPORT: Final = "UserNamespacesHostNetworkSupport"


@final
@attrs.frozen
class DeclaredFeature:
    """A feature of the registry: its name, whether a pod needs it to be scheduled, and the
    release from which the registry has it.

    .. versionadded:: 0.1.0
    """

    name: str
    infer_for_scheduling: Callable[[Pod], bool] = attrs.field(eq=False)
    since: tuple[int, int] = (1, 36)


def _needs_restart_all(pod: Pod) -> bool:
    for containers in (pod.containers, pod.init_containers):
        for c in containers:
            if c.restart_policy_rules and any(rule.action == "RestartAllContainers"
                                              for rule in c.restart_policy_rules):
                return True
    return False


def _needs_host_network_user_namespace(pod: Pod) -> bool:
    return pod.host_network and pod.host_users is False


#: The registry's features that a pod can need at scheduling time.
REGISTRY: Final = (
    DeclaredFeature(RESTART_ALL_CONTAINERS_ON_CONTAINER_EXITS, _needs_restart_all),
    DeclaredFeature(USER_NAMESPACES_HOST_NETWORK_SUPPORT, _needs_host_network_user_namespace),
)


def features_for(release: tuple[int, int]) -> tuple[DeclaredFeature, ...]:
    """The features of *release*'s registry, sorted by name (upstream's framework order)."""
    return tuple(sorted((f for f in REGISTRY if f.since <= release), key=lambda f: f.name))


_NONE: Final[frozenset[str]] = frozenset()
_STATE_KEY: Final[StateKey[frozenset[str]]] = StateKey("PreFilter" + NAME, NAME)


@final
class NodeDeclaredFeatures:
    """The NodeDeclaredFeatures plugin (PreFilter, Filter, EnqueueExtensions).

    Args:
        features: the feature registry (default: the release's); tests pass their own.
        enabled: the ``NodeDeclaredFeatures`` gate (default: the release's).
        handle: the framework handle (its release is read).

    .. versionadded:: 0.1.0
    """

    __slots__ = ("_enabled", "_features")

    def __init__(self, handle: Handle | None = None, *, features: Iterable[DeclaredFeature] | None = None,
                 enabled: bool | None = None) -> None:
        release = release_of(handle)
        self._enabled = release.enabled("NodeDeclaredFeatures") if enabled is None else enabled
        self._features = features_for(release.minor) if features is None else tuple(
            sorted(features, key=lambda f: f.name))

    @property
    def name(self) -> str:
        """``"NodeDeclaredFeatures"``."""
        return NAME

    @property
    def enabled(self) -> bool:
        """Whether the feature gate is on (off: every pod is skipped)."""
        return self._enabled

    def requirements(self, pod: Pod) -> frozenset[str]:
        """The features *pod* needs (upstream ``InferForPodScheduling``)."""
        names = [f.name for f in self._features if f.infer_for_scheduling(pod)]
        return frozenset(names) if names else _NONE

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        """Infer the pod's requirements; SKIP when it has none (or the gate is off)."""
        if not self._enabled:
            return None, Status.skip()
        reqs = self.requirements(pod)
        if not reqs:
            return None, Status.skip()
        state.write(_STATE_KEY, reqs)
        return None, None

    def pre_filter_extensions(self) -> None:
        """None."""
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """UNSCHEDULABLE_AND_UNRESOLVABLE unless the node declares every required feature."""
        if not self._enabled:
            return None
        reqs = state.get(_STATE_KEY)
        if reqs is None:
            return Status.from_error(LookupError(f'error reading "{_STATE_KEY.name}" from cycle-state: '
                                                 "not found"))
        node = node_info.node
        if node is None:
            return node_not_found()
        missing = reqs.difference(node.declared_features)
        if not missing:
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_PREFIX + ", ".join(sorted(missing)),))

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """Node added or updated (hinted: its declared features changed), pod updated (hinted:
        its requirements changed); nothing when the gate is off."""
        if not self._enabled:
            return ()
        return (
            ClusterEventWithHint(ClusterEvent(EventResource.NODE,
                                              ActionType.ADD | ActionType.UPDATE_NODE_DECLARED_FEATURE),
                                 self.is_schedulable_after_node_change),
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.UPDATE),
                                 self.is_schedulable_after_pod_update),
        )

    def is_schedulable_after_node_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE for a new node or one whose declared features changed."""
        old, new = as_objects(Node, old_obj, new_obj)
        if old is not None and new is not None and old.declared_features == new.declared_features:
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_pod_update(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE when the pod's own update changed what it requires."""
        old, new = as_objects(Pod, old_obj, new_obj)
        if new is None or old is None or new.uid != pod.uid:
            return QueueingHint.QUEUE_SKIP
        if self.requirements(old) == self.requirements(new):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE


#: The plugin's factory (it takes no args).
new = no_args_factory(NodeDeclaredFeatures)


if TYPE_CHECKING:
    _pre_filter: PreFilterPlugin = NodeDeclaredFeatures()
    _filter: FilterPlugin = NodeDeclaredFeatures()
    _enqueue: EnqueueExtensions = NodeDeclaredFeatures()
