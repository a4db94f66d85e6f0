"""Issue 39, item 4 (first part): change kinds are declared once, in ``memory/kinds.py``.

The writer, the review inbox, undo, the change record and the wording (toasts, turn summaries,
others' notices, the review dialog) ask the registry about a kind instead of spelling it. The stores, the
retrieval indexes, the card wall, the trash and history dialogs and the undo menu too: what they need
to know of a kind (trash only? names no memories? a new memory? a flag, not the text? authorship?)
is a ``ChangeKind`` attribute. Checked on the source: no kind literal in a kind position (compared
with a ``kind`` / ``action``, a switch table over kinds, a hand-kept list of two or more kinds, the
``kind`` / ``action`` key of an entry, a ``kind`` / ``action`` parameter's default, or handed to
``Plan`` / ``Outcome`` / ``MemoryChange`` / ``record_change`` / ``propose``) outside the registry.
Modules still to move are listed by name: the list may only shrink.
"""

from __future__ import annotations

import ast
from pathlib import Path

from sonetto_desktop.memory import kinds
from sonetto_desktop.memory.changes import MemoryChange
from sonetto_desktop.memory.writer import registry

PACKAGE = Path(__file__).resolve().parent.parent / "sonetto_desktop"
#: Modules that still spell kinds themselves (to move to ``kinds``; a module may leave, none may join).
#: The history import is being rebuilt on the writer (issue 39, item 3).
NOT_YET: set[str] = set()
#: Calls whose argument at this position is a kind (and any function of the module itself with a
#: ``kind`` / ``action`` parameter).
KIND_ARGS = {"Plan": 0, "Outcome": 1, "MemoryChange": 0, "record_change": 1, "_change": 1, "propose": 0}


def _kindish(node: ast.AST) -> bool:
    """``kind``, ``x.kind``, ``x["kind"]``, ``x.get("kind")`` (or ``action``, a history entry's kind)."""
    names = ("kind", "action")
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.Attribute):
        return node.attr in names
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value in names
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return bool(node.args) and isinstance(node.args[0], ast.Constant) and node.args[0].value in names
    return False


def _literals(node: ast.AST, known: set[str]) -> list[str]:
    if isinstance(node, ast.Constant) and node.value in known:
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and e.value in known]
    return []


def _local_kind_args(tree: ast.AST) -> dict[str, int]:
    """Functions of the module itself with a ``kind`` / ``action`` parameter: its position in a call."""
    local = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            params = [a.arg for a in [*node.args.posonlyargs, *node.args.args] if a.arg not in ("self", "cls")]
            where = next((i for i, name in enumerate(params) if name in ("kind", "action")), None)
            if where is not None:
                local[node.name] = where
    return local


def kind_literals(source: str, known: set[str]) -> list[tuple[int, str]]:
    """(line, kind) of every kind spelled in a kind position in ``source``."""
    found: list[tuple[int, str]] = []
    tree = ast.parse(source)
    kind_args = {**KIND_ARGS, **_local_kind_args(tree)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_kindish(side) for side in sides):
                found += [(node.lineno, v) for side in sides for v in _literals(side, known)]
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name in kind_args and len(node.args) > kind_args[name]:
                found += [(node.lineno, v) for v in _literals(node.args[kind_args[name]], known)]
            found += [(node.lineno, v) for kw in node.keywords if kw.arg in ("kind", "action")
                      for v in _literals(kw.value, known)]
        elif isinstance(node, ast.Dict):  # a switch table over kinds, or an entry's kind
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant) and k.value in known]
            if len(keys) >= 3:
                found += [(node.lineno, k) for k in keys]
            found += [(node.lineno, v) for k, value in zip(node.keys, node.values, strict=True)
                      if isinstance(k, ast.Constant) and k.value in ("kind", "action")
                      for v in _literals(value, known)]
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):  # a hand-kept list of kinds
            spelled = set(_literals(node, known))
            if len(spelled) >= 2:
                found += [(node.lineno, v) for v in sorted(spelled)]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):  # a kind parameter's default
            args = node.args
            positional = [*args.posonlyargs, *args.args]
            pairs = [*zip(positional[len(positional) - len(args.defaults):], args.defaults, strict=True),
                     *zip(args.kwonlyargs, args.kw_defaults, strict=True)]
            found += [(node.lineno, v) for arg, default in pairs if default is not None
                      and arg.arg in ("kind", "action") for v in _literals(default, known)]
    return sorted(set(found))  # (a list compared with a kind is seen twice)


def offenders() -> dict[str, list[tuple[int, str]]]:
    known = set(kinds.names())
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "memory/kinds.py":
            continue
        spelled = kind_literals(path.read_text(encoding="utf-8"), known)
        if spelled:
            found[rel] = spelled
    return found


def test_kinds_are_spelled_only_in_the_registry():
    found = offenders()
    clean = {rel: spelled for rel, spelled in found.items() if rel not in NOT_YET}
    assert clean == {}, "spell these kinds through sonetto_desktop.memory.kinds"
    assert set(found) <= NOT_YET, f"new modules spelling kinds themselves: {sorted(set(found) - NOT_YET)}"
    assert set(found) == NOT_YET, f"no longer spelling kinds (take them off NOT_YET): {sorted(NOT_YET - set(found))}"


def test_the_check_sees_a_kind_spelled_in_a_kind_position():
    known = set(kinds.names())
    source = '''
if change.kind == "merge": pass
if entry.get("action") in ("create", "restore"): pass
plan = Plan("delete", write)
GROUPS = {"add": 1, "update": 2, "delete": 3}
ops.review.propose("update", memory_ids=ids)
label = "merge"  # not a kind position: a word is free to be a word
if kind == kinds.MERGE: pass
NOT_A_CHANGE = frozenset({"hit", "add"})
entry = {"time": now, "action": "unlock", "actor": actor}
def change(self, reason, *, action: str = "revert"): pass
TABS = ("update", "settings")  # one kind among other words: not a list of kinds
def _note(kind, memory_id): pass
_note("delete", mid)
'''
    assert sorted(v for _, v in kind_literals(source, known)) == sorted(
        ["merge", "create", "restore", "delete", "add", "update", "delete", "update", "hit", "add", "unlock",
         "revert", "delete"])


def test_unknown_kinds_fail_closed_and_the_dead_names_are_gone():
    for name in ("create", "update", "delete", "merge", "restore", "annotate"):
        assert kinds.changes(name), name
    assert not kinds.changes(kinds.READ) and not kinds.changes(kinds.HIT)
    assert not kinds.known("annotate") and not kinds.kind("annotate").record and kinds.group("annotate") == ""
    assert kinds.record_kinds() == {"add", "update", "delete", "merge", "hit", "revert", "restore", "purge",
                                    "import", "reload", "lock", "set"}
    assert kinds.content_kinds() == {"add", "update", "merge", "revert", "restore", "import"}
    assert MemoryChange.from_dict({"kind": "restore", "ids": ["a"]}).kind == "restore"
    for odd in ("create", "annotate"):  # a plan's kind is not a change record's
        try:
            MemoryChange.from_dict({"kind": odd, "ids": []})
        except ValueError as exc:
            assert "unknown change kind" in str(exc)
        else:
            raise AssertionError(f"{odd} read as a change record")
    assert not hasattr(registry, "CHANGE_KINDS")
    plan = registry.Plan("annotate", lambda ops: None)
    assert plan.changes and not registry.Plan("annotate", lambda ops: None, change=False).changes
    assert registry.Plan("", lambda ops: None).changes  # no kind said: a change all the same
    try:
        kinds.register(kinds.ChangeKind("merge", plan=False))
    except ValueError as exc:
        assert "declared already" in str(exc)
    else:
        raise AssertionError("a kind was declared twice")


def test_what_readers_ask_of_a_kind_is_declared_with_it():
    """The lists the stores, indexes, wall, dialogs and undo menu kept by hand, now attributes."""
    records = kinds.record_kinds()
    assert kinds.trash_kinds() == {"delete", "merge", "restore", "purge"}  # the trash dialog re-reads
    assert {n for n in records if not kinds.kind(n).memories} == {"purge"}  # indexes and wall skip it
    assert {n for n in records if kinds.kind(n).whole} == {"reload"}  # readers re-read everything
    assert {n for n in records if kinds.kind(n).names_memories} == records - {"purge", "reload"}
    assert {n for n in records if not (kinds.changes(n) and kinds.kind(n).names_memories)} == {
        "hit", "purge", "reload"}  # never an action the undo menu lists
    assert {n for n in kinds.names() if kinds.kind(n).new} == {"add", "create", "import"}
    assert {n for n in kinds.names() if kinds.flag(n)} == {"lock", "unlock", "pin", "unpin"}
    assert {n for n in kinds.names() if not kinds.authoring(n)} == {"lock", "unlock", "pin", "unpin", "restore"}
    for entry_only in ("unlock", "pin", "unpin"):  # history entries: their change records are a lock, a set
        assert not kinds.kind(entry_only).record and not kinds.kind(entry_only).plan
    for odd in (None, ["lock"], {"a": 1}, 3, "note"):  # a history entry's action as an old file may hold it
        assert not kinds.flag(odd) and kinds.authoring(odd), odd
