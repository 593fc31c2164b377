"""The ``extenders`` of a ``KubeSchedulerConfiguration`` (upstream ``Extender`` in
``pkg/scheduler/apis/config``, v1 field names and validation).

An extender is an HTTP(S) service kube-scheduler calls at fixed points of the scheduling cycle:
``filterVerb`` after the Filter plugins, ``prioritizeVerb`` beside the Score plugins,
``bindVerb`` instead of the Bind plugins and ``preemptVerb`` during preemption. This module only
reads, validates and writes back the configuration; the calls are made by
:class:`schedframe.framework.extender.HTTPExtender` (:mod:`schedframe.framework.extender`).

Validation is upstream's ``validateExtenders``: a positive ``weight`` when ``prioritizeVerb`` is
set, at most one extender with a ``bindVerb``, and ``managedResources[].name`` a valid extended
resource name, unique across all extenders. Unknown fields are errors (strict decoding).
schedframe also requires ``urlPrefix`` to be an ``http://`` or ``https://`` URL with a host and
without credentials (``user:password@``, which would otherwise appear in messages), and
``httpTimeout`` to be at most :data:`MAX_EXTENDER_TIMEOUT` (24 hours); upstream checks neither.

``httpTimeout`` is a Go duration string (``"30s"``, ``"1m30s"``, ``"500ms"``); unset or zero
means kube-scheduler's ``DefaultExtenderTimeout``, 5 seconds (applied in ``NewHTTPExtender``;
schedframe applies it when reading, so :meth:`schedframe.ExtenderConfig.to_dict` writes the effective value).
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final, Protocol, final

import attrs

from ..api._names import is_extended_resource_name, qualified_name_errors
from ..framework.extender import MAX_EXTENDER_TIMEOUT, shown_url, url_prefix_problem

__all__ = [
    "DEFAULT_EXTENDER_TIMEOUT",
    "MAX_EXTENDER_TIMEOUT",
    "ExtenderConfig",
    "ExtenderManagedResource",
    "ExtenderTLSConfig",
    "format_duration",
    "parse_duration",
]

#: Seconds an extender call may take when ``httpTimeout`` is unset or zero (upstream
#: ``DefaultExtenderTimeout``).
DEFAULT_EXTENDER_TIMEOUT: Final = 5.0

_EXTENDER_FIELDS: Final = frozenset({
    "urlPrefix", "filterVerb", "preemptVerb", "prioritizeVerb", "weight", "bindVerb", "enableHTTPS",
    "tlsConfig", "httpTimeout", "nodeCacheCapable", "managedResources", "ignorable",
})
_TLS_FIELDS: Final = frozenset({
    "insecure", "serverName", "certFile", "keyFile", "caFile", "certData", "keyData", "caData",
})
_RESOURCE_FIELDS: Final = frozenset({"name", "ignoredByScheduler"})
_INT64_MIN: Final = -(2**63)
_INT64_MAX: Final = 2**63 - 1


@final
@attrs.frozen(kw_only=True)
class ExtenderTLSConfig:
    """``tlsConfig`` of an extender (upstream ``ExtenderTLSConfig``).

    The ``*_data`` fields hold the PEM bytes (base64 strings in the document, as Kubernetes
    encodes ``[]byte``).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.config"

    insecure: bool = False
    server_name: str = ""
    cert_file: str = ""
    key_file: str = ""
    ca_file: str = ""
    cert_data: bytes = b""
    key_data: bytes = b""
    ca_data: bytes = b""

    def to_dict(self) -> dict[str, Any]:
        """The v1 ``tlsConfig`` mapping (fields left at their zero value are omitted)."""
        out: dict[str, Any] = {}
        if self.insecure:
            out["insecure"] = True
        for key, value in (("serverName", self.server_name), ("certFile", self.cert_file),
                           ("keyFile", self.key_file), ("caFile", self.ca_file)):
            if value:
                out[key] = value
        for key, data in (("certData", self.cert_data), ("keyData", self.key_data),
                          ("caData", self.ca_data)):
            if data:
                out[key] = base64.b64encode(data).decode("ascii")
        return out


@final
@attrs.frozen(kw_only=True)
class ExtenderManagedResource:
    """An extended resource an extender manages (upstream ``ExtenderManagedResource``).

    Args:
        name: the extended resource name, e.g. ``example.com/foo``.
        ignored_by_scheduler: whether the NodeResourcesFit plugin ignores this resource
            (upstream adds it to the plugin's ignored resources).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.config"

    name: str
    ignored_by_scheduler: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The v1 ``managedResources[]`` mapping."""
        out: dict[str, Any] = {"name": self.name}
        if self.ignored_by_scheduler:
            out["ignoredByScheduler"] = True
        return out


def _timeout_converter(value: float) -> float:
    return float(value) or DEFAULT_EXTENDER_TIMEOUT


def _resources_converter(value: Iterable[ExtenderManagedResource]) -> tuple[ExtenderManagedResource, ...]:
    return tuple(value)


@final
@attrs.frozen(kw_only=True)
class ExtenderConfig:
    """One entry of ``KubeSchedulerConfiguration.extenders`` (upstream ``Extender``).

    Read it with :meth:`schedframe.SchedulerConfiguration.from_dict` (which validates the whole
    list); the scheduler builds a :class:`schedframe.framework.extender.HTTPExtender` from each.

    Args:
        url_prefix: the extender's URL, e.g. ``http://127.0.0.1:8888/scheduler``; a verb is
            appended after a ``/``.
        filter_verb, preempt_verb, prioritize_verb, bind_verb: the verbs; empty means the
            extender does not take part in that step.
        weight: multiplies the extender's prioritize scores; positive when ``prioritize_verb``
            is set.
        enable_https: use TLS (without a CA in ``tls_config`` the server is not verified, as
            upstream).
        tls_config: TLS settings.
        http_timeout: seconds a call may take; ``0`` (unset) becomes 5 (upstream's
            ``DefaultExtenderTimeout``).
        node_cache_capable: the extender caches nodes, so calls carry node names only.
        managed_resources: the extended resources the extender manages; when non-empty, the
            extender is only called for pods that request or limit one of them.
        ignorable: a failing call (unreachable, timeout, error) does not fail the scheduling
            cycle; the extender is skipped.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    url_prefix: str = ""
    filter_verb: str = ""
    preempt_verb: str = ""
    prioritize_verb: str = ""
    weight: int = 0
    bind_verb: str = ""
    enable_https: bool = False
    tls_config: ExtenderTLSConfig | None = None
    http_timeout: float = attrs.field(default=DEFAULT_EXTENDER_TIMEOUT, converter=_timeout_converter)
    node_cache_capable: bool = False
    managed_resources: tuple[ExtenderManagedResource, ...] = attrs.field(
        default=(), converter=_resources_converter)
    ignorable: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The v1 ``extenders[]`` mapping; ``httpTimeout`` is the effective timeout."""
        out: dict[str, Any] = {"urlPrefix": self.url_prefix}
        for key, verb in (("filterVerb", self.filter_verb), ("preemptVerb", self.preempt_verb),
                          ("prioritizeVerb", self.prioritize_verb), ("bindVerb", self.bind_verb)):
            if verb:
                out[key] = verb
        out["weight"] = self.weight
        out["enableHTTPS"] = self.enable_https
        if self.tls_config is not None:
            out["tlsConfig"] = self.tls_config.to_dict()
        out["httpTimeout"] = format_duration(self.http_timeout)
        out["nodeCacheCapable"] = self.node_cache_capable
        if self.managed_resources:
            out["managedResources"] = [r.to_dict() for r in self.managed_resources]
        out["ignorable"] = self.ignorable
        return out


# --------------------------------------------------------------------------------------------
# Go durations (metav1.Duration)

_DURATION_UNITS: Final[Mapping[str, float]] = {
    "ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "\u03bcs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0,
}
_DURATION_PART: Final = re.compile(r"([0-9]*(?:\.[0-9]*)?)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)")


def parse_duration(text: str) -> float | None:
    """Seconds in a Go duration string (``time.ParseDuration``: ``"1h2m3.5s"``, ``"300ms"``,
    ``"0"``, an optional sign), or ``None`` when *text* is not one."""
    s = text
    sign = 1.0
    if s[:1] in ("+", "-"):
        sign = -1.0 if s[0] == "-" else 1.0
        s = s[1:]
    if s == "0":
        return 0.0
    if not s:
        return None
    total = 0.0
    pos = 0
    while pos < len(s):
        m = _DURATION_PART.match(s, pos)
        if m is None or m.group(1) in ("", "."):
            return None
        total += float(m.group(1)) * _DURATION_UNITS[m.group(2)]
        pos = m.end()
    return sign * total


def format_duration(seconds: float) -> str:
    """*seconds* as a Go duration string (``"5s"``, ``"1m30s"``, ``"500ms"``)."""
    if seconds == 0:
        return "0s"
    neg = seconds < 0
    seconds = abs(seconds)
    if seconds < 1:
        ms = seconds * 1000
        text = f"{ms:g}ms" if ms >= 1 else f"{seconds * 1e6:g}us"
        return ("-" if neg else "") + text
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    text = ""
    if hours:
        text += f"{int(hours)}h"
    if hours or minutes:
        text += f"{int(minutes)}m"
    text += f"{round(secs, 9):g}s"
    return ("-" if neg else "") + text


# --------------------------------------------------------------------------------------------
# Parsing and validation


class _Reader(Protocol):
    """What the configuration parser offers (``schedframe.config.configuration._Parser``)."""

    def error(self, path: str, message: str) -> None: ...

    def invalid(self, path: str, value: Any, detail: str) -> None: ...

    def wrong_type(self, path: str, value: Any, want: str) -> None: ...

    def mapping(self, value: Any, path: str) -> Mapping[str, Any] | None: ...

    def items(self, value: Any, path: str) -> list[Any]: ...

    def fields(self, data: Mapping[Any, Any], allowed: frozenset[str], path: str) -> None: ...

    def string(self, value: Any, path: str) -> str | None: ...


def _bool(reader: _Reader, data: Mapping[str, Any], key: str, path: str) -> bool:
    value = data.get(key)
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    reader.wrong_type(f"{path}.{key}", value, "a boolean")
    return False


def _str(reader: _Reader, data: Mapping[str, Any], key: str, path: str) -> str:
    value = data.get(key)
    if value is None:
        return ""
    return reader.string(value, f"{path}.{key}") or ""


def _bytes(reader: _Reader, data: Mapping[str, Any], key: str, path: str) -> bytes:
    value = data.get(key)
    if value is None:
        return b""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if not isinstance(value, str):
        reader.wrong_type(f"{path}.{key}", "<data>", "a base64 string")
        return b""
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        reader.error(f"{path}.{key}", "Invalid value: must be base64-encoded data")
        return b""


def _tls(reader: _Reader, value: Any, path: str) -> ExtenderTLSConfig | None:
    if value is None:
        return None
    if isinstance(value, ExtenderTLSConfig):
        return value
    data = reader.mapping(value, path)
    if data is None:
        return None
    reader.fields(data, _TLS_FIELDS, path)
    return ExtenderTLSConfig(
        insecure=_bool(reader, data, "insecure", path),
        server_name=_str(reader, data, "serverName", path),
        cert_file=_str(reader, data, "certFile", path),
        key_file=_str(reader, data, "keyFile", path),
        ca_file=_str(reader, data, "caFile", path),
        cert_data=_bytes(reader, data, "certData", path),
        key_data=_bytes(reader, data, "keyData", path),
        ca_data=_bytes(reader, data, "caData", path),
    )


def _timeout(reader: _Reader, value: Any, path: str) -> float:
    if value is None:
        return 0.0
    if isinstance(value, str):
        seconds = parse_duration(value)
        if seconds is None:
            reader.invalid(path, value, 'must be a duration such as "30s", "1m30s" or "500ms"')
            return 0.0
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        # a number is read as seconds (a convenience; upstream takes duration strings only)
        try:
            seconds = float(value)
        except OverflowError:
            seconds = math.inf
    else:
        reader.wrong_type(path, value, 'a duration string such as "30s"')
        return 0.0
    if not math.isfinite(seconds) or seconds < 0:
        reader.invalid(path, value, "must be a non-negative, finite duration")
        return 0.0
    if seconds > MAX_EXTENDER_TIMEOUT:
        reader.invalid(path, value, f"must be at most {format_duration(MAX_EXTENDER_TIMEOUT)}")
        return 0.0
    return seconds


def _resources(reader: _Reader, value: Any, path: str) -> list[ExtenderManagedResource]:
    out: list[ExtenderManagedResource] = []
    for j, item in enumerate(reader.items(value, path)):
        item_path = f"{path}[{j}]"
        if isinstance(item, ExtenderManagedResource):
            out.append(item)
            continue
        data = reader.mapping(item, item_path)
        if data is None:
            continue
        reader.fields(data, _RESOURCE_FIELDS, item_path)
        name = _str(reader, data, "name", item_path)
        out.append(ExtenderManagedResource(
            name=name, ignored_by_scheduler=_bool(reader, data, "ignoredByScheduler", item_path)))
    return out


def _one(reader: _Reader, item: Any, path: str) -> ExtenderConfig | None:
    if isinstance(item, ExtenderConfig):
        return item
    data = reader.mapping(item, path)
    if data is None:
        return None
    reader.fields(data, _EXTENDER_FIELDS, path)
    weight = 0
    raw_weight = data.get("weight")
    if raw_weight is not None:
        if isinstance(raw_weight, int) and not isinstance(raw_weight, bool):
            if _INT64_MIN <= raw_weight <= _INT64_MAX:
                weight = raw_weight
            else:
                reader.invalid(f"{path}.weight", raw_weight, "must fit in a 64-bit integer")
        else:
            reader.wrong_type(f"{path}.weight", raw_weight, "an integer")
    return ExtenderConfig(
        url_prefix=_str(reader, data, "urlPrefix", path),
        filter_verb=_str(reader, data, "filterVerb", path),
        preempt_verb=_str(reader, data, "preemptVerb", path),
        prioritize_verb=_str(reader, data, "prioritizeVerb", path),
        weight=weight,
        bind_verb=_str(reader, data, "bindVerb", path),
        enable_https=_bool(reader, data, "enableHTTPS", path),
        tls_config=_tls(reader, data.get("tlsConfig"), f"{path}.tlsConfig"),
        http_timeout=_timeout(reader, data.get("httpTimeout"), f"{path}.httpTimeout"),
        node_cache_capable=_bool(reader, data, "nodeCacheCapable", path),
        managed_resources=_resources(reader, data.get("managedResources"), f"{path}.managedResources"),
        ignorable=_bool(reader, data, "ignorable", path),
    )


def read_extenders(reader: _Reader, value: Any, path: str = "extenders") -> tuple[ExtenderConfig, ...]:
    """Read and validate the ``extenders`` list (upstream ``validateExtenders``), recording every
    problem on *reader* with its field path."""
    extenders: list[ExtenderConfig] = []
    for i, item in enumerate(reader.items(value, path)):
        ext = _one(reader, item, f"{path}[{i}]")
        if ext is not None:
            extenders.append(ext)
    validate_extenders(reader, extenders, path)
    return tuple(extenders)


def validate_extenders(reader: _Reader, extenders: Iterable[ExtenderConfig], path: str = "extenders") -> None:
    """Upstream ``validateExtenders`` on already-read extenders."""
    binders = 0
    managed: set[str] = set()
    for i, ext in enumerate(extenders):
        ext_path = f"{path}[{i}]"
        if not ext.url_prefix:
            reader.error(f"{ext_path}.urlPrefix", "Required value")
        else:
            problem = url_prefix_problem(ext.url_prefix)
            if problem is not None:
                # never echo credentials: the value is shown without them
                reader.invalid(f"{ext_path}.urlPrefix", shown_url(ext.url_prefix), problem)
        timeout = ext.http_timeout
        if not (math.isfinite(timeout) and 0 <= timeout <= MAX_EXTENDER_TIMEOUT):
            reader.invalid(f"{ext_path}.httpTimeout", format_duration(timeout) if math.isfinite(timeout)
                           else str(timeout), f"must be at most {format_duration(MAX_EXTENDER_TIMEOUT)}")
        if ext.prioritize_verb and ext.weight <= 0:
            reader.invalid(f"{ext_path}.weight", ext.weight, "must have a positive weight applied to it")
        if ext.bind_verb:
            binders += 1
        for j, resource in enumerate(ext.managed_resources):
            name_path = f"{ext_path}.managedResources[{j}].name"
            errs = qualified_name_errors(resource.name)
            for msg in errs:
                reader.invalid(name_path, resource.name, msg)
            if not errs and not is_extended_resource_name(resource.name):
                reader.invalid(name_path, resource.name, "is an invalid extended resource name")
            if resource.name in managed:
                reader.invalid(name_path, resource.name, "duplicate extender managed resource name")
            managed.add(resource.name)
    if binders > 1:
        reader.invalid(path, f"found {binders} extenders implementing bind",
                       "only one extender can implement bind")
