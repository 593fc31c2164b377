"""``KubeSchedulerConfiguration``: profiles, plugin sets, weights and plugin args, read from
YAML or a mapping with upstream's defaults and validation, and written back.

May import :mod:`schedframe.framework` and the layers below it.
"""

from __future__ import annotations

from ..framework._features import FEATURE_GATES, FeatureGate, GateSpec
from ..framework.releases import (
    NEWEST_RELEASE,
    RELEASE_DIFFERENCES,
    SUPPORTED_RELEASES,
    ReleaseDifference,
    ReleaseProfile,
    release_profile,
)
from ._versions import ConfigurationDeprecationWarning
from .configuration import (
    API_VERSION,
    DEFAULT_SCHEDULER_NAME,
    EXTENSION_POINTS,
    KIND,
    MAX_CONFIG_ERROR,
    MAX_CONFIG_FILE_BYTES,
    MULTI_POINT,
    NOT_PROVIDED_UPSTREAM_PLUGINS,
    UPSTREAM_DEFAULT_PLUGINS,
    PluginRef,
    PointsOf,
    Profile,
    SchedulerConfiguration,
    extension_points_of,
)
from .extenders import (
    DEFAULT_EXTENDER_TIMEOUT,
    ExtenderConfig,
    ExtenderManagedResource,
    ExtenderTLSConfig,
)

__all__ = [
    "API_VERSION",
    "ConfigurationDeprecationWarning",
    "DEFAULT_EXTENDER_TIMEOUT",
    "DEFAULT_SCHEDULER_NAME",
    "EXTENSION_POINTS",
    "ExtenderConfig",
    "ExtenderManagedResource",
    "ExtenderTLSConfig",
    "FEATURE_GATES",
    "FeatureGate",
    "GateSpec",
    "KIND",
    "MAX_CONFIG_ERROR",
    "MAX_CONFIG_FILE_BYTES",
    "MULTI_POINT",
    "NEWEST_RELEASE",
    "NOT_PROVIDED_UPSTREAM_PLUGINS",
    "PluginRef",
    "PointsOf",
    "Profile",
    "RELEASE_DIFFERENCES",
    "ReleaseDifference",
    "ReleaseProfile",
    "SUPPORTED_RELEASES",
    "SchedulerConfiguration",
    "UPSTREAM_DEFAULT_PLUGINS",
    "extension_points_of",
    "release_profile",
]
