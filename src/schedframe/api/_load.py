"""Reading manifests: :func:`~schedframe.object_from_manifest` (one object, dispatched on its kind through
:data:`schedframe.api.KINDS`) and :func:`~schedframe.load_manifests` (text, files and directories,
``List`` documents, size and object caps, workload expansion)."""

from __future__ import annotations

import contextlib
import difflib
import gc
import os
import stat
import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final

from .. import _textio
from ..errors import (
    MAX_VALUE_REPR,
    FieldProblem,
    FieldValidationError,
    ManifestError,
    SchedframeWarning,
    bounded_repr,
    did_you_mean,
)
from ._field_check import VALIDATE_MODES, ValidateMode, check_document, normalise_release
from ._fields import (
    _fail,
    _list,
    _manifest_error,
    _show,
)
from .kinds import KINDS, ApiObject
from .scheduling_workload import unserved_version
from .workloads import expand_workloads as _expand_workloads

#: The built-in kinds schedframe reads, with their apiVersion (see :data:`~schedframe.api.KINDS`).
SUPPORTED_KINDS: Final = tuple(f"{info.api_versions[0]} {info.kind}" for info in KINDS)


def _unsupported_kind(kind: Any) -> str:
    known = ", ".join(KINDS.kinds())
    hint = did_you_mean(kind, KINDS.kinds()) if isinstance(kind, str) else ""
    return f"unsupported kind {_show(kind)}{hint} (schedframe reads {known})"


def object_from_manifest(manifest: Mapping[str, Any]) -> ApiObject:
    """Build the api object a manifest describes, dispatching on ``kind`` (and checking
    ``apiVersion`` when present): v1 Pod, Node, Namespace, Service, ReplicationController;
    apps/v1 ReplicaSet, StatefulSet; policy/v1 PodDisruptionBudget; scheduling.k8s.io/v1
    PriorityClass; v1 PersistentVolume, PersistentVolumeClaim and storage.k8s.io/v1 StorageClass,
    CSINode, CSIDriver (``schedframe.api.storage``).

    Raises:
        ManifestError: for any other kind, or a malformed manifest.
    """
    if not isinstance(manifest, Mapping):
        _fail("", f"expected a Kubernetes object (a mapping), got {_show(manifest)}")
    kind = manifest.get("kind")
    if kind is None:
        _fail("kind", "required")
    info = KINDS.by_kind(kind, manifest.get("apiVersion")) if isinstance(kind, str) else None
    if info is None:
        _fail("kind", _unsupported_kind(kind))
    obj: ApiObject = info.reader(manifest)
    return obj


_MANIFEST_SUFFIXES: Final = (".yaml", ".yml", ".json")

#: The most bytes :func:`~schedframe.load_manifests` reads (all files and texts of one call together).
DEFAULT_MAX_BYTES: Final = 256 * 1024 * 1024

#: The most objects (documents, ``List`` items and pods created by workload expansion) one
#: :func:`~schedframe.load_manifests` call returns.
DEFAULT_MAX_OBJECTS: Final = 1_000_000


class _Budget:
    """What is left of one call's byte and object allowances."""

    def __init__(self, max_bytes: int, max_objects: int) -> None:
        self.max_bytes = max_bytes
        self.bytes_left = max_bytes
        self.max_objects = max_objects
        self.objects = 0

    def take_bytes(self, n: int, what: str) -> None:
        self.bytes_left -= n
        if self.bytes_left < 0:
            raise ManifestError("", f"{what} exceeds the input size limit of {self.max_bytes} bytes "
                                    "(load_manifests(..., max_bytes=N) raises it)")

    def take_objects(self, n: int = 1) -> None:
        self.objects += n
        if self.objects > self.max_objects:
            raise ManifestError("", f"more than {self.max_objects} objects "
                                    "(load_manifests(..., max_objects=N) raises the limit)")


def _read_text(path: str, budget: _Budget) -> str:
    """The UTF-8 text of the regular file *path*, read without going past the size budget
    (through the one reader of user files, :mod:`schedframe._textio`)."""
    data = _textio.read_bytes(path, budget.bytes_left, error=_manifest_error)
    budget.take_bytes(len(data), repr(path))
    return _textio.decode_utf8(data, name=repr(path), error=_manifest_error)


def _path_sources(path: str, budget: _Budget) -> list[tuple[str, str | None]]:
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        raise ManifestError("", f"cannot read {path!r}: {e.strerror or e}") from e
    if not stat.S_ISDIR(mode):
        return [(_read_text(path, budget), path)]
    try:
        names = sorted(n for n in os.listdir(path) if n.endswith(_MANIFEST_SUFFIXES))
    except OSError as e:
        raise ManifestError("", f"cannot list {path!r}: {e.strerror or e}") from e
    out: list[tuple[str, str | None]] = []
    for name in names:
        full = os.path.join(path, name)
        try:
            entry_mode = os.stat(full).st_mode
        except OSError as e:
            raise ManifestError("", f"cannot read {full!r}: {e.strerror or e}") from e
        if not stat.S_ISREG(entry_mode):  # refused explicitly, never skipped silently
            raise ManifestError("", f"cannot read {full!r} in directory {path!r}: it is "
                                    f"{_textio.file_kind(entry_mode)}; only regular files are read")
        out.append((_read_text(full, budget), full))
    return out


def _sources(source: str | bytes | os.PathLike[str], budget: _Budget) -> list[tuple[str, str | None]]:
    """(text, file name or None) pairs for *source*: a path-like is a file or a directory, a
    ``str`` or ``bytes`` is always the manifest text itself."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        budget.take_bytes(len(data), "the manifest text")
        return [(_textio.decode_utf8(data, name="the manifest bytes", error=_manifest_error), None)]
    if isinstance(source, str):
        budget.take_bytes(len(source), "the manifest text")
        return [(source, None)]
    if isinstance(source, os.PathLike):
        return _path_sources(os.fsdecode(os.fspath(source)), budget)
    raise TypeError("load_manifests() argument 'source' must be manifest text (str or bytes) or a "
                    f"path (pathlib.Path or another os.PathLike), got {type(source).__name__}"
                    + ("; use object_from_manifest() for a mapping" if isinstance(source, Mapping) else ""))


def _looks_like_path(source: object) -> bool:
    """A one-line ``str`` naming an existing file or directory (checked, never read)."""
    if not isinstance(source, str) or "\n" in source or len(source) > 4096:
        return False
    text = source.strip()
    try:
        return bool(text) and os.path.exists(text)
    except (OSError, ValueError):  # e.g. an embedded NUL
        return False


MAX_YAML_DEPTH: Final = _textio.MAX_YAML_DEPTH


def json_loads_strict(text: str) -> Any:
    """:func:`json.loads` refusing duplicate keys (a :class:`~schedframe.ManifestError`)."""
    return _textio.parse_json(text, error=_manifest_error)


def _documents(text: str, origin: str | None) -> list[Any]:
    return _textio.parse_documents(text, source=origin, error=_manifest_error)


def _describe(doc: Mapping[str, Any], kind: str, origin: str | None) -> str:
    meta = doc.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    ns = meta.get("namespace") if isinstance(meta, Mapping) else None
    what = bounded_repr(kind) if len(kind) > MAX_VALUE_REPR else kind
    if isinstance(name, str) and len(name) > MAX_VALUE_REPR:
        name = bounded_repr(name)
    if isinstance(ns, str) and len(ns) > MAX_VALUE_REPR:
        ns = bounded_repr(ns)
    if isinstance(name, str) and name:
        info = KINDS.by_kind(kind)
        if info is not None and not info.namespaced:
            what += f" {name}"
        else:
            what += f" {ns if isinstance(ns, str) and ns else 'default'}/{name}"
    if origin:
        what += f" from {origin}"
    return what


def _is_near_miss(kind: str) -> str | None:
    """A supported kind *kind* is probably a typo of (``Pods``, ``pod``), or None. Not a "did
    you mean" (:func:`~schedframe.errors.closest_name`) but a stricter test deciding whether an
    unknown kind is refused (a typo) or skipped (another kind): difflib's similarity ratio of at
    least 0.85, so ``Podd`` is refused as a typo of ``Pod`` and ``Role``, one edit from ``Node``,
    is skipped."""
    lower = kind.lower()
    for known in KINDS.kinds():
        if lower == known.lower():
            return known
    if len(kind) > 256:  # no match possible, and difflib is slow on long strings
        return None
    close = difflib.get_close_matches(kind, list(KINDS.kinds()), n=1, cutoff=0.85)
    return close[0] if close else None


#: How often (in objects read) :func:`~schedframe.load_manifests` calls its *progress* callback.
_PROGRESS_EVERY: Final = 2000


def _count(docs: list[Any]) -> int:
    """The objects in *docs*: a ``...List`` counts its items (for progress only)."""
    n = 0
    for doc in docs:
        items = doc.get("items") if isinstance(doc, dict) else None
        n += len(items) if isinstance(items, list) else 1
    return n


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while a load builds its objects: they hold no
    reference cycles, and with a parse tree of millions of containers alive, every collection
    the allocations trigger would walk all of it (more time than the parse itself)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class _Collector:
    """Reads documents into objects, counting them and noting the kinds it does not use."""

    def __init__(self, budget: _Budget, strict: bool,
                 progress: Callable[[int, int], object] | None = None,
                 validate: ValidateMode = "strict", release: str = "") -> None:
        self.budget = budget
        self.strict = strict
        self.validate = validate != "ignore"
        self.validate_mode = validate
        self.release = release
        self.problems: list[FieldProblem] = []
        self.out: list[ApiObject] = []
        self.unknown: dict[str, int] = {}
        self.progress = progress
        self.done = 0  # objects read (for progress)
        self.total = 0  # objects in the documents read so far (for progress)


    def collect(self, doc: Any, path: str, origin: str | None,
                inherited: tuple[str, str] | None = None) -> None:
        if doc is None:
            return
        self.budget.take_objects()
        if not isinstance(doc, Mapping):
            _fail(path, f"expected a Kubernetes object (a mapping), got {_show(doc)}")
        kind = doc.get("kind")
        if kind is None and inherited is not None:
            kind, api_version = inherited
            doc = {**doc, "kind": kind}
            if api_version and "apiVersion" not in doc:
                doc["apiVersion"] = api_version
        if kind is None:
            _fail(f"{path}.kind", "required")
        if not isinstance(kind, str):
            _fail(f"{path}.kind", f"expected a string, got {_show(kind)}")
        if kind.endswith("List") and (kind == "List" or "items" in doc):
            item_kind = kind[:-4] if kind != "List" else None
            api_version = doc.get("apiVersion")
            inherit = (item_kind, api_version if isinstance(api_version, str) else "") if item_kind else None
            items = _list(doc.get("items"), f"{path}.items")
            for i, item in enumerate(items):
                self.collect(item, f"{path}.items[{i}]", origin, inherit)
                if type(items) is list:
                    items[i] = None  # the parsed item is done with: its memory goes now
            return
        info = KINDS.by_kind(kind, doc.get("apiVersion"))
        if info is None:
            near = _is_near_miss(kind)
            if near is not None:
                _fail(f"{path}.kind", f"unsupported kind {bounded_repr(kind)}; did you mean {near!r}?")
            if self.strict:
                _fail(f"{path}.kind", _unsupported_kind(kind) + " (strict=True)")
            self.unknown[kind] = self.unknown.get(kind, 0) + 1
            return
        if self.validate:
            check_document(doc, kind, self.release, f"{origin}: {path}" if origin else path, self.problems,
                           info.api_versions[0])
        try:
            obj = info.reader(doc)
            unserved = unserved_version(obj, self.release)
            if unserved is not None:
                raise ManifestError("apiVersion", unserved)
            self.out.append(obj)
        except ManifestError as e:
            full = f"{path}.{e.path}" if e.path else path
            error = ManifestError(full, f"{e.detail} (in {_describe(doc, kind, origin)})")
            if self.problems and self.validate_mode == "strict":
                # the unknown fields found so far explain the error more often than not
                raise FieldValidationError(self.problems, self.release,
                                           note=f"reading stopped at: {error}") from None
            raise error from None
        if self.progress is not None:
            self.done += 1
            if self.done % _PROGRESS_EVERY == 0:
                self.progress(self.done, self.total)


#: How many problems the warning of ``validate="warn"`` shows.
_WARN_SHOWN: Final = 3


def _report_problems(problems: list[FieldProblem], validate: str, release: str) -> None:
    if validate == "strict":
        raise FieldValidationError(problems, release)
    shown = "; ".join(str(p) for p in problems[:_WARN_SHOWN])
    more = f" and {len(problems) - _WARN_SHOWN} more" if len(problems) > _WARN_SHOWN else ""
    warnings.warn(f"load_manifests found {len(problems)} unknown field(s) or resource name(s) for "
                  f"Kubernetes {release} and read on (unknown fields are dropped): {shown}{more} "
                  "(validate='strict' makes this an error)", SchedframeWarning, stacklevel=3)


def _check_limit(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TypeError(f"load_manifests() argument {name!r} must be a non-negative int, "
                        f"got {bounded_repr(value)}")
    return value


def load_manifests(source: str | bytes | os.PathLike[str], *, strict: bool = False,
                   expand_workloads: bool = True, seed: int = 0,
                   max_bytes: int = DEFAULT_MAX_BYTES, max_objects: int = DEFAULT_MAX_OBJECTS,
                   progress: Callable[[int, int], object] | None = None,
                   validate: ValidateMode = "strict", kubernetes_version: str | None = None,
                   ) -> list[ApiObject]:
    """Read Kubernetes objects from manifest text, a file or a directory.

    Args:
        source: the manifest text (a ``str`` or ``bytes``, YAML or JSON), or a path
            (``pathlib.Path`` or another ``os.PathLike``) to a file or to a directory
            whose ``.yaml`` / ``.yml`` / ``.json`` files are read in name order. A ``str`` is
            always text, never a path: text from an untrusted source cannot make schedframe
            read a local file. YAML may hold several documents; JSON several concatenated
            objects; any document may be a ``List`` (``kubectl get ... -o yaml``).
        strict: raise :class:`~schedframe.ManifestError` on an object of a kind schedframe
            does not use (ConfigMaps, custom resources...) instead of warning about them.
        expand_workloads: add what the workload controllers would create (see
            :func:`~schedframe.api.expand_workloads`): the pods of Deployments, ReplicaSets,
            ReplicationControllers, StatefulSets, DaemonSets (one per Node of the same load),
            Jobs and CronJobs' running Jobs. The workload objects are returned either way.
        seed: makes the generated names reproducible.
        max_bytes: the most bytes read (files and text together); a file is never read past it.
        max_objects: the most objects read or created by expansion.
        progress: called as ``progress(done, total)`` while objects are built from the parsed
            documents: once with ``done == 0`` when a file or text has been parsed, every 2,000
            objects, and once at the end (``done == total``); *total* counts the objects
            of the documents parsed so far (a ``List`` counts its items). Without it the load
            is silent. The parse itself reports nothing.
        validate: what to do with fields the API server of *kubernetes_version* does not know
            (misspelled ones such as ``spec.nodeSelecter``, fields of another release) and with
            resource names that are neither standard (``cpu``, ``memory``...) nor qualified with
            a domain (``example.com/gpu``): ``"strict"`` (the default, like the API server's
            strict field validation and kubectl) raises :class:`~schedframe.errors.FieldValidationError`
            listing every problem of the load once all documents are read; ``"warn"`` issues one
            :class:`~schedframe.SchedframeWarning` summarising them and reads on, dropping the
            unknown fields; ``"ignore"`` drops them silently. Kinds without a field tree (the
            scheduler-plugins CRDs, kinds registered by others) and apiVersions the release does
            not serve are not checked; skipped kinds never are.
        kubernetes_version: the release whose fields are known (``"1.34"``, ``"v1.34.2"``);
            None is the newest release schedframe emulates. A dump of a newer cluster can hold
            fields an older release lacks: the message says from which release on they exist.

    Returns:
        The api objects in document order, each workload followed by what it creates.

    Raises:
        ManifestError: for unreadable input, a special file (only regular files are read), a
            limit exceeded or a malformed object; the path starts with the document index,
            e.g. ``documents[0].items[3].spec.priority``. YAML needs PyYAML
            (``pip install 'schedframe[yaml]'``); JSON does not.
        FieldValidationError: under ``validate="strict"``, the unknown fields and resource
            names of the whole load (a :class:`~schedframe.ManifestError`).
        TypeError: for a *source* that is neither text nor a path.
        ValueError: an unknown *validate* mode or *kubernetes_version*.

    Warns:
        SchedframeWarning: listing the kinds it skipped (without *strict*); summarising the
            unknown fields under ``validate="warn"``.

    .. versionchanged:: 0.1.0
        *validate* (default ``"strict"``) and *kubernetes_version*.
    """
    max_bytes = _check_limit(max_bytes, "max_bytes")
    max_objects = _check_limit(max_objects, "max_objects")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"load_manifests() argument 'seed' must be an int, got {type(seed).__name__}")
    if progress is not None and not callable(progress):
        raise TypeError("load_manifests() argument 'progress' must be callable, "
                        f"got {type(progress).__name__}")
    if validate not in VALIDATE_MODES:
        raise ValueError(f"load_manifests() argument 'validate' must be one of "
                         f"{', '.join(map(repr, VALIDATE_MODES))}, got {bounded_repr(validate)}")
    release = normalise_release(kubernetes_version)
    budget = _Budget(max_bytes, max_objects)
    collector = _Collector(budget, strict, progress, validate, release)
    try:
        with _gc_paused():
            sources = _sources(source, budget)
            while sources:
                text, origin = sources.pop(0)
                docs = _documents(text, origin)
                del text  # the parse is all that is needed now
                if progress is not None:
                    collector.total += _count(docs)
                    progress(collector.done, collector.total)
                for i in range(len(docs)):
                    doc, docs[i] = docs[i], None
                    collector.collect(doc, f"documents[{i}]", origin)
                    del doc
        if progress is not None and collector.done % _PROGRESS_EVERY:
            progress(collector.done, collector.total)
    except ManifestError:
        if _looks_like_path(source):
            raise ManifestError("", f"{bounded_repr(source)} is not a manifest; a str is always "
                                    f"manifest text: pass pathlib.Path({str(source).strip()!r}) to read "
                                    "a file") from None
        raise
    if collector.problems:
        _report_problems(collector.problems, validate, release)
    if collector.unknown:
        shown = [(k if len(k) <= MAX_VALUE_REPR else bounded_repr(k), n)
                 for k, n in sorted(collector.unknown.items())[:20]]
        listed = ", ".join(f"{k} ({n})" if n > 1 else k for k, n in shown)
        if len(collector.unknown) > 20:
            listed += f" and {len(collector.unknown) - 20} more kinds"
        warnings.warn(f"load_manifests skipped {sum(collector.unknown.values())} object(s) of kinds "
                      f"schedframe does not use: {listed} (strict=True makes this an error)",
                      SchedframeWarning, stacklevel=2)
    if not expand_workloads:
        return collector.out
    expanded: list[ApiObject] = _expand_workloads(collector.out, seed=seed, max_objects=max_objects)
    return expanded
