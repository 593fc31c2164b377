"""Node templates: the shapes of nodes a planner may add (a Cluster Autoscaler node group,
a Karpenter instance type), read from a file with field paths in every error."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, final

import attrs

from .._textio import parse_documents, read_text, shown_path
from ..api.objects import Node
from ..errors import ManifestError, SourcedError, bounded_repr

__all__ = [
    "MAX_COUNT_ANNOTATION",
    "MAX_PRICE",
    "MAX_TEMPLATES",
    "MAX_TEMPLATE_BYTES",
    "NodeTemplate",
    "PRICE_ANNOTATION",
    "PRIORITY_ANNOTATION",
    "TemplateError",
    "load_templates",
    "templates_from_data",
]

#: The largest template file read.
MAX_TEMPLATE_BYTES: Final = 4 * 1024 * 1024
#: The most templates one file may declare.
MAX_TEMPLATES: Final = 1000
#: The most nodes of one template (``maxCount``; the default when none is given).
MAX_NODES_PER_TEMPLATE: Final = 100_000
#: The highest price of one node: a plan's cost (at most MAX_TEMPLATES x MAX_NODES_PER_TEMPLATE
#: nodes) then stays a finite number (``plan --json`` never writes ``Infinity``).
MAX_PRICE: Final = 1e12
#: The range of ``priority`` (upstream's priority expander reads an int32).
_PRIORITY_RANGE: Final = (-(2**31), 2**31 - 1)
#: Annotations of a bare Node manifest used as a template.
PRICE_ANNOTATION: Final = "schedframe.io/price"
MAX_COUNT_ANNOTATION: Final = "schedframe.io/max-count"
PRIORITY_ANNOTATION: Final = "schedframe.io/priority"

_KIND: Final = "NodeTemplates"
_TEMPLATE_KEYS: Final = ("name", "price", "maxCount", "priority", "node")


class TemplateError(SourcedError):
    """A node template file (or :class:`NodeTemplate`) is invalid: ``source`` names the file and
    ``path`` the field, e.g. ``templates.yaml: templates[1].maxCount: want an integer >= 0, got -1``.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plan"


def _check_name(t: NodeTemplate, attribute: Any, value: Any) -> None:
    if not isinstance(value, str) or not value:
        raise TemplateError("", "name", f"want a non-empty string, got {_kind(value)}")


def _check_node(t: NodeTemplate, attribute: Any, value: Any) -> None:
    if not isinstance(value, Node):
        raise TemplateError("", "node", f"want a Node, got {_kind(value)}")


def _check_price(t: NodeTemplate, attribute: Any, value: Any) -> None:
    if value is not None:
        _number(value, "price", "", strings=False)


def _check_max_count(t: NodeTemplate, attribute: Any, value: Any) -> None:
    _integer(value, "max_count", "", low=0, high=MAX_NODES_PER_TEMPLATE, strings=False)


def _check_priority(t: NodeTemplate, attribute: Any, value: Any) -> None:
    _integer(value, "priority", "", low=_PRIORITY_RANGE[0], high=_PRIORITY_RANGE[1], strings=False)


@final
@attrs.frozen
class NodeTemplate:
    """A kind of node the planner may add: a Cluster Autoscaler node group or a Karpenter
    instance type.

    Attributes:
        name: the template's name (new nodes are called ``<name>-<n>``).
        node: the Node every new node copies (labels, taints, allocatable, GPU model).
        price: cost of one node (any unit, e.g. per hour), a finite number in
            [0, ``MAX_PRICE``] (10^12); ``None``: unknown (counted as 0 by the ``price`` strategy,
            which then prefers templates with a price).
        max_count: at most this many new nodes of the template (an integer in [0, 100,000]).
        priority: for the ``priority`` strategy (higher first), as CA's priority expander (an
            int32).

    Every field is checked when the template is built: a bad one raises :class:`TemplateError`
    naming it (``price: want a number in [0, 1e+12], got float (nan)``).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plan"

    name: str = attrs.field(validator=_check_name)
    node: Node = attrs.field(validator=_check_node)
    price: float | None = attrs.field(default=None, validator=_check_price)
    max_count: int = attrs.field(default=MAX_NODES_PER_TEMPLATE, validator=_check_max_count)
    priority: int = attrs.field(default=0, validator=_check_priority)

    def new_node(self, name: str) -> Node:
        """A node of this template named *name* (hostname label included)."""
        labels = {**self.node.labels, "kubernetes.io/hostname": name}
        return self.node.evolve(name=name, uid=f"node/{name}", labels=labels)


def load_templates(path: str | os.PathLike[str]) -> list[NodeTemplate]:
    """Read node templates from *path* (YAML or JSON; see ``docs/planning.rst``).

    Two forms: a ``kind: NodeTemplates`` document (``templates: [{name, price, maxCount,
    priority, node: <Node manifest>}]``), or Node manifests (several documents or a ``List``)
    whose ``metadata.name`` names the template and whose annotations ``schedframe.io/price``,
    ``schedframe.io/max-count`` and ``schedframe.io/priority`` give the rest.

    Raises:
        TemplateError: the file cannot be read or a field is invalid (naming the file and field).

    .. versionadded:: 0.1.0
    """
    source = os.fspath(path)
    shown = shown_path(source)

    def error(message: str) -> TemplateError:
        return TemplateError("", "", message if shown in message else f"{shown}: {message}")

    text = read_text(source, max_bytes=MAX_TEMPLATE_BYTES, what="the node templates", error=error)
    docs = parse_documents(text, source=shown, error=error)
    return templates_from_data(docs, source=shown)


def templates_from_data(data: Any, *, source: str = "<templates>") -> list[NodeTemplate]:
    """Node templates from parsed data: a ``NodeTemplates`` mapping, a Node manifest, a ``List``
    of them, or a list of documents (as :func:`load_templates` reads them).

    Raises:
        TemplateError: with the field path.

    .. versionadded:: 0.1.0
    """
    docs: Sequence[Any] = data if isinstance(data, list) else [data]
    docs = [d for d in docs if d is not None]
    out: list[NodeTemplate] = []
    multi = len(docs) > 1
    for di, doc in enumerate(docs):
        at = f"[{di}]" if multi else ""
        if not isinstance(doc, Mapping):
            raise TemplateError(source, at or "(document)", f"want a mapping, got {_kind(doc)}")
        kind = doc.get("kind")
        if kind == _KIND:
            _known(doc, f"{at}", ("apiVersion", "kind", "templates"), source)
            items = doc.get("templates")
            if not isinstance(items, list) or not items:
                raise TemplateError(source, _join(at, "templates"),
                                    f"want a non-empty list of templates, got {_kind(items)}")
            for i, item in enumerate(items):
                out.append(_wrapped(item, _join(at, f"templates[{i}]"), source))
        elif kind == "List":
            items = doc.get("items")
            if not isinstance(items, list):
                raise TemplateError(source, _join(at, "items"), f"want a list, got {_kind(items)}")
            for i, item in enumerate(items):
                out.append(_bare(item, _join(at, f"items[{i}]"), source))
        elif kind == "Node":
            out.append(_bare(doc, at, source))
        else:
            raise TemplateError(
                source, _join(at, "kind"),
                f"want {_KIND!r}, 'Node' or 'List', got {kind!r} (see docs/planning.rst)")
        if len(out) > MAX_TEMPLATES:
            raise TemplateError(source, "", f"at most {MAX_TEMPLATES} templates, got more")
    if not out:
        raise TemplateError(source, "", "no node template in the file")
    seen: dict[str, None] = {}
    for t in out:
        if t.name in seen:
            raise TemplateError(source, "",
                                f"two templates are named {bounded_repr(t.name)}; names must differ")
        seen[t.name] = None
    return out


def check_templates(templates: Any) -> list[NodeTemplate]:
    """*templates* as a list of :class:`NodeTemplate`: each checked as a template read from a file
    is (type, fields, at most ``MAX_TEMPLATES``, distinct names), errors naming
    ``templates[i].field``."""
    if isinstance(templates, (str, bytes, Mapping)) or not isinstance(templates, Iterable):
        raise TemplateError("", "templates", f"want a path or an iterable of NodeTemplate, got "
                                             f"{_kind(templates)}")
    out: list[NodeTemplate] = []
    seen: set[str] = set()
    for i, t in enumerate(templates):
        if i >= MAX_TEMPLATES:
            raise TemplateError("", "templates", f"at most {MAX_TEMPLATES} templates, got more")
        at = f"templates[{i}]"
        if not isinstance(t, NodeTemplate):
            raise TemplateError("", at, f"want a NodeTemplate, got {_kind(t)}")
        # the fields again: a template may have been built around its validators
        for check, value in ((_check_name, t.name), (_check_node, t.node), (_check_price, t.price),
                             (_check_max_count, t.max_count), (_check_priority, t.priority)):
            try:
                check(t, None, value)
            except TemplateError as exc:
                raise TemplateError("", _join(at, exc.path), exc.detail) from None
        _check_dns(t.name, f"{at}.name", "")  # new nodes are named after it, as from a file
        if t.name in seen:
            raise TemplateError("", f"{at}.name",
                                f"two templates are named {bounded_repr(t.name)}; names must differ")
        seen.add(t.name)
        out.append(t)
    if not out:
        raise TemplateError("", "templates", "no node template given")
    return out


# -- readers -------------------------------------------------------------------------------------

def _join(a: str, b: str) -> str:
    if not a:
        return b
    if not b:
        return a
    return f"{a}.{b}" if not b.startswith("[") else f"{a}{b}"


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"a boolean ({value})"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"a string ({bounded_repr(value)})"
    if isinstance(value, int) and value.bit_length() > 256:
        return f"int ({value.bit_length()} bits)"
    return f"{type(value).__name__} ({bounded_repr(value)})"


def _known(m: Mapping[str, Any], path: str, keys: Sequence[str], source: str) -> None:
    from ..errors import did_you_mean

    for k in m:
        if k not in keys:
            raise TemplateError(source, _join(path, str(k)),
                                f"unknown field{did_you_mean(str(k), keys)} (fields: {', '.join(keys)})")


def _node(raw: Any, path: str, source: str) -> Node:
    if not isinstance(raw, Mapping):
        raise TemplateError(source, path or "node", f"want a Node manifest (a mapping), got {_kind(raw)}")
    manifest = dict(raw)
    manifest.setdefault("apiVersion", "v1")
    manifest.setdefault("kind", "Node")
    if manifest.get("kind") != "Node":
        raise TemplateError(source, _join(path, "kind"), f"want 'Node', got {manifest.get('kind')!r}")
    meta = manifest.get("metadata")
    if meta is None:
        manifest["metadata"] = {"name": "template"}
    elif isinstance(meta, Mapping) and not meta.get("name"):
        manifest["metadata"] = {**meta, "name": "template"}
    try:
        node = Node.from_manifest(manifest)
    except ManifestError as exc:
        raise TemplateError(source, _join(path, exc.path), exc.detail) from None
    res = node.allocatable_resources
    if res.milli_cpu <= 0 and res.memory <= 0:
        raise TemplateError(source, _join(path, "status.allocatable"),
                            "a template node needs allocatable (or capacity) cpu or memory")
    if res.pods <= 0:
        node = node.evolve(allocatable={**(node.allocatable or node.capacity), "pods": "110"})
    return node


def _number(value: Any, path: str, source: str, *, strings: bool = True) -> float:
    want = f"want a number in [0, {MAX_PRICE:g}]"
    if strings and isinstance(value, str):
        if len(value) > 64:
            raise TemplateError(source, path, f"{want}, got {_kind(value)}")
        try:
            value = float(value)
        except ValueError:
            raise TemplateError(source, path, f"{want}, got {bounded_repr(value)}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TemplateError(source, path, f"{want}, got {_kind(value)}")
    try:
        number = float(value)
    except OverflowError:  # an int too large for a float
        raise TemplateError(source, path, f"{want}, got {_kind(value)}") from None
    if not math.isfinite(number) or not 0 <= number <= MAX_PRICE:
        raise TemplateError(source, path, f"{want}, got {_kind(value)}")
    return number


def _integer(value: Any, path: str, source: str, *, low: int, high: int, strings: bool = True) -> int:
    if (strings and isinstance(value, str) and len(value) <= 32
            and value.strip().lstrip("-").isdigit()):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise TemplateError(source, path, f"want an integer in [{low:,}, {high:,}], got {_kind(value)}")
    return value


def _wrapped(item: Any, path: str, source: str) -> NodeTemplate:
    if not isinstance(item, Mapping):
        raise TemplateError(source, path, f"want a mapping (name, node, price, maxCount, priority), "
                                          f"got {_kind(item)}")
    _known(item, path, _TEMPLATE_KEYS, source)
    name = item.get("name")
    if not isinstance(name, str) or not name:
        raise TemplateError(source, _join(path, "name"), f"want a non-empty string, got {_kind(name)}")
    _check_dns(name, _join(path, "name"), source)
    if "node" not in item:
        raise TemplateError(source, _join(path, "node"), "missing: the Node manifest new nodes copy")
    node = _node(item["node"], _join(path, "node"), source)
    price = None if item.get("price") is None else _number(item["price"], _join(path, "price"), source)
    max_count = (MAX_NODES_PER_TEMPLATE if item.get("maxCount") is None else
                 _integer(item["maxCount"], _join(path, "maxCount"), source, low=0,
                          high=MAX_NODES_PER_TEMPLATE))
    priority = (0 if item.get("priority") is None else
                _integer(item["priority"], _join(path, "priority"), source, low=_PRIORITY_RANGE[0],
                         high=_PRIORITY_RANGE[1]))
    return NodeTemplate(name, node, price, max_count, priority)


def _bare(doc: Any, path: str, source: str) -> NodeTemplate:
    if not isinstance(doc, Mapping):
        raise TemplateError(source, path or "(document)", f"want a Node manifest, got {_kind(doc)}")
    meta = doc.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    if not isinstance(name, str) or not name:
        raise TemplateError(source, _join(path, "metadata.name"),
                            "a Node used as a template needs a name (the template's name)")
    node = _node(doc, path, source)
    _check_dns(name, _join(path, "metadata.name"), source)
    ann = node.annotations
    at = _join(path, "metadata.annotations")
    price = (None if PRICE_ANNOTATION not in ann else
             _number(ann[PRICE_ANNOTATION], f"{at}[{PRICE_ANNOTATION!r}]", source))
    max_count = (MAX_NODES_PER_TEMPLATE if MAX_COUNT_ANNOTATION not in ann else
                 _integer(ann[MAX_COUNT_ANNOTATION], f"{at}[{MAX_COUNT_ANNOTATION!r}]", source, low=0,
                          high=MAX_NODES_PER_TEMPLATE))
    priority = (0 if PRIORITY_ANNOTATION not in ann else
                _integer(ann[PRIORITY_ANNOTATION], f"{at}[{PRIORITY_ANNOTATION!r}]", source,
                         low=_PRIORITY_RANGE[0], high=_PRIORITY_RANGE[1]))
    return NodeTemplate(name, node, price, max_count, priority)


def _check_dns(name: str, path: str, source: str) -> None:
    ok = len(name) <= 200 and all((c.isalnum() and c.isascii() and not c.isupper()) or c in "-."
                                  for c in name)
    if not ok or not name[0].isalnum() or not name[-1].isalnum():
        raise TemplateError(source, path, f"want a DNS subdomain (lower-case letters, digits, '-', '.'; "
                                          f"at most 200 characters), got {bounded_repr(name)}")
