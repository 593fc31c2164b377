"""Reading Alibaba's ``openb`` GPU cluster trace (cluster-trace-gpu-v2023).

The trace is released for research and study use; cite Weng et al., "Beware of Fragmentation:
Scheduling GPU-Sharing Workloads with Fragmentation Gradient Descent", USENIX ATC '23. It is not
shipped with schedframe: pass the paths of its CSV files.

Nodes (``openb_node_list_gpu_node.csv``: ``sn, cpu_milli, memory_mib, gpu, model``) become
:class:`~schedframe.Node` objects with the GPU count as allocatable
``alibabacloud.com/gpu-count`` and the model as label ``alibabacloud.com/gpu-card-model``; tasks
(``openb_pod_list_*.csv``: ``name, cpu_milli, memory_mib, num_gpu, gpu_milli[, gpu_spec, ...]``)
become :class:`TraceTask` records and, through :meth:`TraceTask.to_pod`, pods carrying the GPU
annotations, as the artefact's ``pod_csv_to_yaml.py`` writes them.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable, Sequence
from typing import Final, final

import attrs

from .._textio import ErrorFactory, read_text
from ..api.objects import Container, Node, Pod
from ..errors import GpuShareError
from ._model import (
    ANNOTATION_GPU_COUNT,
    ANNOTATION_GPU_MILLI,
    ANNOTATION_GPU_MODEL,
    LABEL_GPU_MODEL,
    MAX_NODE_GPUS,
    MILLI,
    RESOURCE_GPU_COUNT,
    RESOURCE_GPU_MILLI,
    GpuRequest,
    parse_models,
)

__all__ = ["TraceNode", "TraceTask", "load_nodes", "load_tasks", "read_nodes", "read_tasks"]

_NODE_COLUMNS: Final = ("sn", "cpu_milli", "memory_mib", "gpu", "model")
_TASK_COLUMNS: Final = ("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli")
#: The largest openb CSV read (the published traces are at most a few MB).
MAX_TRACE_BYTES: Final = 256 * 1024 * 1024
#: Pods per node (the artefact's node manifests allow 1001).
MAX_PODS: Final = 1001


@final
@attrs.frozen
class TraceNode:
    """One row of a node list.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.gpushare"

    name: str
    milli_cpu: int
    memory_mib: int
    gpus: int
    model: str

    def to_node(self) -> Node:
        """The node, with allocatable CPU, memory, 1001 pods and the GPUs."""
        labels = {"kubernetes.io/hostname": self.name}
        if self.model:
            labels[LABEL_GPU_MODEL] = self.model
        alloc = {"cpu": f"{self.milli_cpu}m", "memory": f"{self.memory_mib}Mi", "pods": str(MAX_PODS)}
        if self.gpus:
            alloc[RESOURCE_GPU_COUNT] = str(self.gpus)
            alloc[RESOURCE_GPU_MILLI] = str(self.gpus * MILLI)
        return Node(self.name, labels=labels, allocatable=alloc, capacity=alloc)


@final
@attrs.frozen
class TraceTask:
    """One row of a task list: CPU and memory requests, ``num_gpu`` GPUs of ``gpu_milli`` each,
    and the accepted GPU models.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.gpushare"

    name: str
    milli_cpu: int
    memory_mib: int
    num_gpu: int
    gpu_milli: int
    models: tuple[str, ...] = ()

    @property
    def total_milli(self) -> int:
        """GPU milli requested in all (``num_gpu * gpu_milli``)."""
        return self.num_gpu * self.gpu_milli

    @property
    def request(self) -> GpuRequest:
        """As a :class:`GpuRequest` (what the plugins read from the pod)."""
        cpu = self.milli_cpu if self.milli_cpu > 0 else 100  # the scheduler's non-zero default
        if self.num_gpu == 0 or self.gpu_milli == 0:
            return GpuRequest(cpu)
        return GpuRequest(cpu, self.gpu_milli, self.num_gpu, self.models)

    def renamed(self, name: str) -> TraceTask:
        """A copy named *name*."""
        return attrs.evolve(self, name=name)

    def to_pod(self, namespace: str = "default") -> Pod:
        """The pod: one container requesting the CPU and memory, GPU annotations when it asks
        for GPUs."""
        annotations: dict[str, str] = {}
        if self.num_gpu:
            annotations[ANNOTATION_GPU_MILLI] = str(self.gpu_milli)
            annotations[ANNOTATION_GPU_COUNT] = str(self.num_gpu)
            if self.models:
                annotations[ANNOTATION_GPU_MODEL] = "|".join(self.models)
        requests = {"cpu": f"{self.milli_cpu}m", "memory": f"{self.memory_mib}Mi"}
        container = Container("main", requests=requests)
        return Pod(self.name, namespace, annotations=annotations, containers=(container,))


def _open_rows(path: str | os.PathLike[str], columns: Sequence[str]) -> tuple[str, list[dict[str, str]]]:
    label = os.fspath(path)
    text = read_text(path, max_bytes=MAX_TRACE_BYTES, what="the openb file", error=file_error(label))
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        header = reader.fieldnames or []
        missing = [c for c in columns if c not in header]
        if missing:
            raise GpuShareError(f"{label}:1", f"missing column(s) {', '.join(missing)}; header is "
                                              f"{','.join(header)!r}")
        return label, list(reader)
    except csv.Error as exc:
        raise GpuShareError(f"{label}:{reader.line_num}", f"not CSV: {exc}") from None


def file_error(path: str) -> ErrorFactory:
    """A :class:`~schedframe.errors.GpuShareError` of the file *path* (its ``path``) whose message, from
    :mod:`schedframe._textio`, already names the file."""

    def make(message: str) -> GpuShareError:
        error = GpuShareError("", message)
        error.path = path
        return error

    return make


def _int(row: dict[str, str], column: str, where: str, *, low: int = 0, high: int | None = None) -> int:
    raw = row.get(column) or ""
    try:
        value = int(raw.strip())
    except ValueError:
        raise GpuShareError(f"{where}: {column}", f"must be an integer, got {raw!r}") from None
    if value < low or (high is not None and value > high):
        bound = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise GpuShareError(f"{where}: {column}", f"must be {bound}, got {value}")
    return value


def read_nodes(path: str | os.PathLike[str]) -> list[TraceNode]:
    """The rows of a node list; raises :class:`~schedframe.errors.GpuShareError` naming the file, line
    and column of a bad value."""
    label, rows = _open_rows(path, _NODE_COLUMNS)
    out: list[TraceNode] = []
    seen: set[str] = set()
    for line, row in enumerate(rows, start=2):
        where = f"{label}:{line}"
        name = (row.get("sn") or "").strip()
        if not name:
            raise GpuShareError(f"{where}: sn", "must not be empty")
        if name in seen:
            raise GpuShareError(f"{where}: sn", f"duplicate node {name!r}")
        seen.add(name)
        out.append(TraceNode(name, _int(row, "cpu_milli", where), _int(row, "memory_mib", where),
                             _int(row, "gpu", where, high=MAX_NODE_GPUS), (row.get("model") or "").strip()))
    return out


def read_tasks(path: str | os.PathLike[str], *, limit: int | None = None) -> list[TraceTask]:
    """The rows of a task list (the first *limit* when given); raises
    :class:`~schedframe.errors.GpuShareError` naming the file, line and column of a bad value."""
    label, rows = _open_rows(path, _TASK_COLUMNS)
    if limit is not None:
        rows = rows[:limit]
    out: list[TraceTask] = []
    seen: set[str] = set()
    for line, row in enumerate(rows, start=2):
        where = f"{label}:{line}"
        name = (row.get("name") or "").strip()
        if not name:
            raise GpuShareError(f"{where}: name", "must not be empty")
        if name in seen:
            raise GpuShareError(f"{where}: name", f"duplicate task {name!r}")
        seen.add(name)
        # no node has more than MAX_NODE_GPUS: a task asking for more could never be placed
        num_gpu = _int(row, "num_gpu", where, high=MAX_NODE_GPUS)
        milli = _int(row, "gpu_milli", where)
        if milli > MILLI:  # as the artefact's converter: more than one GPU's worth is one GPU
            milli = MILLI
        if num_gpu > 1 and 0 < milli < MILLI:
            raise GpuShareError(f"{where}: gpu_milli",
                                f"a share of a GPU ({milli}) must ask for one GPU, got num_gpu={num_gpu}")
        models = parse_models(row.get("gpu_spec") or "") if num_gpu else ()
        out.append(TraceTask(name, _int(row, "cpu_milli", where), _int(row, "memory_mib", where),
                             num_gpu, milli, models))
    return out


def load_nodes(path: str | os.PathLike[str]) -> list[Node]:
    """The nodes of a node list, as :class:`~schedframe.Node` objects."""
    return [n.to_node() for n in read_nodes(path)]


def load_tasks(path: str | os.PathLike[str], *, limit: int | None = None) -> list[Pod]:
    """The tasks of a task list, as :class:`~schedframe.Pod` objects with GPU annotations."""
    return [t.to_pod() for t in read_tasks(path, limit=limit)]


def total_gpu_milli(tasks: Iterable[TraceTask]) -> int:
    """The GPU milli the tasks request in all."""
    return sum(t.total_milli for t in tasks)
