"""Property-based: random operation sequences against a plain dict model, on every backend."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_stores import LOCAL_BACKENDS as BACKENDS, open_store
from sonetto_desktop.memory import MemoryNotFound

text = st.text(alphabet="猫狗上海火锅abc 12", min_size=0, max_size=6)
op = st.one_of(
    st.tuples(st.just("add"), text, text),
    st.tuples(st.just("update"), st.integers(0, 9), text),
    st.tuples(st.just("delete"), st.integers(0, 9)),
    st.tuples(st.just("hit"), st.integers(0, 9)),
    st.tuples(st.just("merge"), st.integers(0, 9), st.integers(0, 9)),
    st.tuples(st.just("restore"), st.integers(0, 9)),
)


def _apply(mm, model, trash, known, action):
    """Apply one op to the store and the model; both must agree on success or failure."""
    kind = action[0]
    pick = (lambda i: known[i % len(known)]) if known else (lambda i: "none0000")
    if kind == "add":
        _, desc, theme = action
        if not desc.strip() or not theme.strip():
            try:
                mm.add(desc, theme)
            except ValueError:
                return
            raise AssertionError("empty text accepted")
        mid = mm.add(desc, theme)
        model[mid] = {"description": desc.strip(), "theme": theme.strip(), "hit": 0}
        known.append(mid)
    elif kind == "update":
        mid, desc = pick(action[1]), action[2]
        if mid not in model or not desc.strip():
            try:
                mm.update(mid, "r", new_description=desc)
            except (MemoryNotFound, ValueError):
                return
            raise AssertionError("bad update accepted")
        mm.update(mid, "r", new_description=desc)
        model[mid]["description"] = desc.strip()
    elif kind == "delete":
        mid = pick(action[1])
        if mid not in model:
            try:
                mm.delete(mid)
            except MemoryNotFound:
                return
            raise AssertionError("delete of a missing id accepted")
        mm.delete(mid)
        trash[mid] = model.pop(mid)
    elif kind == "hit":
        mid = pick(action[1])
        if mid not in model:
            try:
                mm.hit(mid)
            except MemoryNotFound:
                return
            raise AssertionError("hit of a missing id accepted")
        model[mid]["hit"] += 1
        assert mm.hit(mid) == model[mid]["hit"]
    elif kind == "merge":
        a, b = pick(action[1]), pick(action[2])
        if a == b or a not in model or b not in model:
            try:
                mm.merge(a, b, "合并", "主题", "r")
            except (MemoryNotFound, ValueError):
                return
            raise AssertionError("bad merge accepted")
        mm.merge(a, b, "合并", "主题", "r")
        model[a] = {"description": "合并", "theme": "主题", "hit": model[a]["hit"] + model[b]["hit"]}
        trash[b] = model.pop(b)
    elif kind == "restore":
        mid = pick(action[1])
        if mid not in trash:
            try:
                mm.restore(mid)
            except (MemoryNotFound, ValueError):
                return
            raise AssertionError("restore of a non-trashed id accepted")
        mm.restore(mid)
        model[mid] = trash.pop(mid)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=st.lists(op, max_size=25), backend=st.sampled_from(BACKENDS))
def test_random_operations_match_model(ops, backend):
    with tempfile.TemporaryDirectory() as folder:
        mm = open_store(backend, Path(folder))
        model, trash, known = {}, {}, []
        for action in ops:
            _apply(mm, model, trash, known, action)
        state = {mid: {"description": it.description, "theme": it.theme, "hit": it.hit}
                 for mid, it in mm.all_items().items()}
        assert state == model
        assert {t["id"] for t in mm.list_trash()} == set(trash)
        mm.close()
        reopened = open_store(backend, Path(folder))
        assert {r["id"] for r in reopened.show()} == set(model)
        reopened.close()
