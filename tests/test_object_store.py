"""ObjectStore: objects by kind, namespace and name; listing a namespace reads its own index."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from schedframe.api import LabelSelector, ReplicaSet, Service
from schedframe.cache import ObjectStore

_OPS = st.lists(st.tuples(st.sampled_from(("add", "add", "remove")), st.sampled_from((ReplicaSet, Service)),
                          st.sampled_from(("a", "b", "")), st.sampled_from(("x", "y", "z")),
                          st.integers(0, 9)), max_size=40)


@given(ops=_OPS)
def test_listing_a_namespace_is_the_kinds_list_filtered(ops: list[tuple[type, str, str, str, int]]) -> None:
    """Whatever is added, replaced and removed, ``list(kind, ns)`` is ``list(kind)`` filtered to
    the namespace, in the same (insertion) order, and ``get`` finds exactly what is listed."""
    store = ObjectStore()
    for op, kind, ns, name, version in ops:
        obj = (ReplicaSet(name, ns, LabelSelector({"v": str(version)})) if kind is ReplicaSet
               else Service(name, ns, {"v": str(version)}))
        if op == "add":
            store.add(obj)
        else:
            store.remove(obj)
        for k in (ReplicaSet, Service):
            everything = store.list(k)
            for namespace in ("a", "b", "", "nowhere"):
                assert store.list(k, namespace) == [o for o in everything if o.namespace == namespace]
                for o in store.list(k, namespace):
                    assert store.get(k, o.name, namespace) is o
