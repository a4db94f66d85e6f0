"""Architecture rules, checked on the source (every import counts: module level, inside functions,
``__import__("…")`` and ``importlib.import_module("…")``; only ``if TYPE_CHECKING:`` blocks are exempt):

- ``memory/`` (the domain) imports nothing from ``agent/``, ``config/``, ``ui/`` or ``services``;
- nothing outside ``ui/`` imports PySide6, shiboken6 or qasync;
- ``agent/`` and ``config/`` never import ``ui/`` or ``services``; ``config/`` imports no other package of ours
  but ``memory/files.py`` (stdlib only: the one crash-safe write);
- ``mcp_server/`` (a front end like the command line) never imports ``ui/``;
- ``presentation/`` (what the app says, shared by front ends) imports neither ``ui/``, ``services`` nor ``agent/``;
- no import cycles among the product's modules.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "sonetto_desktop"
ROOT_NAME = "sonetto_desktop"
QT = ("PySide6", "PyQt5", "PyQt6", "shiboken6", "qasync")


def module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(module: str, level: int, current: str, is_package: bool) -> str:
    if level == 0:
        return module
    base = current.split(".") if is_package else current.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, module] if module else base)


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(path: Path, root: Path = PACKAGE, known: set[str] | None = None) -> list[str]:
    """Every module ``path`` imports (absolute names; ``from x import y`` gives ``x.y`` when that is
    one of ``known`` modules, else ``x``)."""
    current = module_name(path, root)
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[str] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(node.module or "", node.level, current, is_package)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.append(full if known is not None and full in known else base)
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name in ("__import__", "import_module") and isinstance(node.args[0].value, str):
                found.append(node.args[0].value)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    paths = sorted(root.rglob("*.py"))
    known = {module_name(p, root) for p in paths}
    edges: dict[str, set[str]] = {}
    for path in paths:
        name = module_name(path, root)
        edges[name] = {target for target in imports_of(path, root, known) if target in known and target != name}
    return edges


def _under(name: str, *prefixes: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def violations(root: Path = PACKAGE) -> list[str]:
    pkg = root.name
    found = []
    for path in sorted(root.rglob("*.py")):
        name = module_name(path, root)
        for target in imports_of(path, root):
            if _under(target, *QT) and not _under(name, f"{pkg}.ui"):
                found.append(f"{name} imports {target} (Qt belongs in ui/)")
            if _under(name, f"{pkg}.memory") and _under(target, f"{pkg}.agent", f"{pkg}.config", f"{pkg}.ui",
                                                         f"{pkg}.services"):
                found.append(f"{name} imports {target} (the domain reaches up)")
            if _under(name, f"{pkg}.agent", f"{pkg}.config") and _under(target, f"{pkg}.ui", f"{pkg}.services"):
                found.append(f"{name} imports {target} (only front ends use ui/ and services)")
            if _under(name, f"{pkg}.mcp_server") and _under(target, f"{pkg}.ui"):
                found.append(f"{name} imports {target} (the MCP server is a front end of its own)")
            if _under(name, f"{pkg}.presentation") and _under(target, f"{pkg}.ui", f"{pkg}.services", f"{pkg}.agent"):
                found.append(f"{name} imports {target} (presentation/ is shared by front ends: no UI, no agents)")
            if (_under(name, f"{pkg}.config") and _under(target, pkg)
                    and not _under(target, f"{pkg}.config", f"{pkg}.{ONE_WRITE}", f"{pkg}.{REDACTION}")):
                found.append(f"{name} imports {target} (config/ stands alone)")
    return found


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def strong(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                strong(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                item = stack.pop()
                on_stack.discard(item)
                component.append(item)
                if item == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            strong(node)
    return found


def test_layers_keep_to_their_rules():
    for sub in ("memory", "agent", "config", "ui", "mcp_server", "presentation"):
        assert list((PACKAGE / sub).rglob("*.py")), f"no modules under {sub}/"
    assert violations() == []


def test_no_import_cycles():
    # A package importing its own submodules in __init__ is not a cycle unless a submodule imports it back.
    assert cycles(graph()) == []


def test_the_rules_see_every_kind_of_import(tmp_path):
    root = tmp_path / "pkg"
    (root / "memory").mkdir(parents=True)
    (root / "config").mkdir()
    for folder in (root, root / "memory", root / "config"):
        (folder / "__init__.py").write_text("", encoding="utf-8")
    (root / "memory" / "bad.py").write_text(
        "import importlib\n"
        "def later():\n"
        "    from PySide6.QtCore import QObject\n"
        "    importlib.import_module('pkg.config.settings')\n"
        "    return __import__('qasync')\n", encoding="utf-8")
    (root / "memory" / "fine.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.config import settings\n", encoding="utf-8")
    (root / "config" / "settings.py").write_text("from ..memory import bad\n", encoding="utf-8")
    (root / "memory" / "a.py").write_text("def f():\n    from . import b\n", encoding="utf-8")
    (root / "memory" / "b.py").write_text("from .a import f\n", encoding="utf-8")
    (root / "mcp_server").mkdir()
    (root / "mcp_server" / "tools.py").write_text("from ..ui import shell\n", encoding="utf-8")
    (root / "presentation").mkdir()
    (root / "presentation" / "toasts.py").write_text("from ..ui.wall import cards\n", encoding="utf-8")
    found = violations(root)
    assert any("PySide6" in v for v in found) and any("qasync" in v for v in found)
    assert any("imports pkg.config.settings" in v for v in found)
    assert any("pkg.config.settings imports pkg.memory" in v for v in found)
    assert not any("fine" in v for v in found)
    assert any("pkg.mcp_server.tools imports pkg.ui" in v for v in found)
    assert any("pkg.presentation.toasts imports pkg.ui" in v for v in found)
    assert ["pkg.memory.a", "pkg.memory.b"] in cycles(graph(root))


#: Ways into another thread that only ``aio.py`` may use: everything else goes through
#: ``aio.run_blocking`` / ``run_detached`` / ``start_thread`` (one place decides where work runs).
THREAD_CALLS = {"to_thread", "run_in_executor", "Thread", "ThreadPoolExecutor", "ProcessPoolExecutor"}
THREAD_MODULES = ("concurrent.futures",)


def thread_uses(root: Path = PACKAGE) -> list[str]:
    """Every direct way into a thread outside ``aio.py``: calls of ``asyncio.to_thread``,
    ``loop.run_in_executor``, ``threading.Thread``, executors, and imports of those names."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path == root / "aio.py":
            continue
        name = module_name(path, root)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
                if called in THREAD_CALLS:
                    found.append(f"{name}:{node.lineno} calls {called}() (use aio.run_blocking / start_thread)")
            elif isinstance(node, ast.ImportFrom) and node.module:
                if node.module.startswith(THREAD_MODULES) or (
                        node.module in ("threading", "asyncio") and any(a.name in THREAD_CALLS for a in node.names)):
                    found.append(f"{name}:{node.lineno} imports from {node.module} (use aio)")
            elif isinstance(node, ast.Import):
                found.extend(f"{name}:{node.lineno} imports {a.name} (use aio)" for a in node.names
                             if a.name.startswith(THREAD_MODULES))
    return found


def test_one_way_into_a_worker_thread():
    assert thread_uses() == []


def test_the_thread_rule_sees_every_way_in(tmp_path):
    root = tmp_path / "pkg"
    root.mkdir()
    (root / "__init__.py").write_text("", encoding="utf-8")
    (root / "aio.py").write_text("import asyncio\nasync def f(g):\n    return await asyncio.to_thread(g)\n",
                                 encoding="utf-8")
    (root / "bad.py").write_text(
        "import asyncio, threading\nfrom concurrent.futures import ThreadPoolExecutor\n"
        "async def f(g, loop):\n"
        "    await asyncio.to_thread(g)\n"
        "    await loop.run_in_executor(None, g)\n"
        "    threading.Thread(target=g).start()\n", encoding="utf-8")
    found = thread_uses(root)
    assert not any("pkg.aio" in v for v in found)
    assert sum("pkg.bad" in v for v in found) == 4, found


TASK_CALLS = {"create_task", "ensure_future"}


def dropped_tasks(root: Path = PACKAGE) -> list[str]:
    """Tasks started and not kept: ``create_task(...)`` / ``ensure_future(...)`` as a statement of its
    own. The loop holds only a weak reference to a task, so such a task may be collected while it runs;
    a task is kept by whoever started it (an attribute, a local it awaits) or by a TaskScope."""
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                func = node.value.func
                called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
                if called in TASK_CALLS:
                    found.append(f"{module_name(path, root)}:{node.lineno} drops the task of {called}() "
                                 "(keep it, or spawn it in a TaskScope)")
    return found


def test_every_task_started_is_kept():
    assert dropped_tasks() == []


def test_the_task_rule_sees_a_dropped_task(tmp_path):
    root = tmp_path / "pkg"
    root.mkdir()
    (root / "__init__.py").write_text("", encoding="utf-8")
    (root / "ok.py").write_text("import asyncio\nasync def f(c, d):\n    t = asyncio.create_task(c)\n"
                                "    self_task = asyncio.get_running_loop().create_task(d)\n    return t, self_task\n",
                                encoding="utf-8")
    (root / "bad.py").write_text("import asyncio\nasync def f(c, d):\n    asyncio.get_running_loop().create_task(c)\n"
                                 "    asyncio.ensure_future(d)\n", encoding="utf-8")
    found = dropped_tasks(root)
    assert len(found) == 2 and all("pkg.bad" in v for v in found), found


def unscoped_tasks(root: Path = PACKAGE) -> list[str]:
    """Tasks and scopes made outside ``aio`` (issue 39, item 5): every task starts in a ``TaskScope`` of the
    one tree under ``aio.root_scope()`` (``aio.spawn``, a scope's ``spawn``, ``task_scope`` in the UI), so the
    app's shutdown cancels and awaits them all; a ``create_task`` / ``ensure_future`` elsewhere is held by no
    scope, and a ``TaskScope(...)`` elsewhere is a second root nobody closes."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path == root / "aio.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
                if called in TASK_CALLS:
                    found.append(f"{module_name(path, root)}:{node.lineno} starts a task outside any scope with "
                                 f"{called}() (use aio.spawn or a scope's spawn)")
                elif called == "TaskScope":
                    found.append(f"{module_name(path, root)}:{node.lineno} makes a root scope (use a child of "
                                 "aio.root_scope(), or task_scope() in the UI)")
    return found


def test_every_task_starts_in_a_scope_under_the_one_root():
    assert unscoped_tasks() == []


def test_the_scope_rule_sees_a_task_or_a_root_outside_aio(tmp_path):
    root = tmp_path / "pkg"
    root.mkdir()
    (root / "__init__.py").write_text("", encoding="utf-8")
    (root / "aio.py").write_text("import asyncio\nclass TaskScope:\n    def spawn(self, c):\n"
                                 "        return asyncio.ensure_future(c)\n_root = TaskScope()\n", encoding="utf-8")
    (root / "ok.py").write_text("from .aio import _root\nasync def f(c):\n    return _root.spawn(c)\n",
                                encoding="utf-8")
    (root / "bad.py").write_text("import asyncio\nfrom .aio import TaskScope\nasync def f(c, d):\n"
                                 "    t = asyncio.get_running_loop().create_task(c)\n"
                                 "    u = asyncio.ensure_future(d)\n    return t, u, TaskScope()\n", encoding="utf-8")
    found = unscoped_tasks(root)
    assert len(found) == 3 and all("pkg.bad" in v for v in found), found


def mixed_classes(root: Path = PACKAGE) -> list[str]:
    """Classes built by mixing (issue 28): a class with two or more bases from this package (errors
    aside: an error may be ours and a built-in kind at once), or a base named as a mixin."""
    trees = {path: ast.parse(path.read_text(encoding="utf-8"), filename=str(path)) for path in sorted(root.rglob("*.py"))}
    ours = {node.name for tree in trees.values() for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    found = []
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = [b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else "" for b in node.bases]
            own = [b for b in bases if b in ours]
            if any(b.endswith("Mixin") for b in bases) or (
                    len(own) > 1 and not any(b.endswith(("Error", "Error_")) for b in own)):
                found.append(f"{module_name(path, root)}.{node.name}({', '.join(bases)})")
    return found


TESTS = Path(__file__).resolve().parent
#: Calls that run a nested Qt event loop (``exec`` of a dialog, menu or drag; the static dialogs) or a
#: round of it (``processEvents``, the tests' ``process_events``).
NESTED_LOOPS = {"processEvents", "process_events", "exec", "exec_"}
NESTED_STATICS = {"QMessageBox", "QFileDialog", "QInputDialog", "QColorDialog", "QFontDialog"}


def _calls_in_body(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Call]:
    """The calls a function makes itself (not those of a function or lambda it defines)."""
    found, todo = [], list(fn.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Call):
            found.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return found


def nested_loops_in_coroutines(*roots: Path) -> list[str]:
    """Qt event loops run inside a coroutine. Under qasync a coroutine's step runs in a timer event;
    a nested loop there runs other tasks' wake-ups inside that step, asyncio refuses each ("Cannot enter
    into task … while another task is being executed") and those tasks never run again (a shutdown
    waiting for them hangs). A coroutine awaits instead (a dialog's ``open()`` and its signal; the tests'
    ``settle()``)."""
    found = []
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            # a module's own functions that run one (a coroutine calling them runs it too)
            runners = {fn.name for fn in tree.body if isinstance(fn, ast.FunctionDef)
                       and any(_runs_a_loop(call, set()) for call in _calls_in_body(fn))}
            for fn in ast.walk(tree):
                if not isinstance(fn, ast.AsyncFunctionDef):
                    continue
                for call in _calls_in_body(fn):
                    if said := _runs_a_loop(call, runners):
                        found.append(f"{path.relative_to(root.parent)}:{call.lineno} {fn.name} runs a Qt loop "
                                     f"({said}) inside a coroutine")
    return found


def _runs_a_loop(call: ast.Call, runners: set[str]) -> str:
    """What ``call`` is, when it runs a Qt loop (else "")."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else ""
    if name in NESTED_LOOPS or (isinstance(func, ast.Name) and name in runners):
        return f"{owner + '.' if owner else ''}{name}"
    if owner in NESTED_STATICS and name[:1].islower() and name not in {"open", "show", "tr"}:
        return f"{owner}.{name}"
    return ""


def test_no_coroutine_runs_a_nested_qt_loop():
    assert nested_loops_in_coroutines(PACKAGE, TESTS) == []


def test_the_nested_loop_rule_sees_each_way(tmp_path):
    root = tmp_path / "pkg"
    root.mkdir()
    (root / "ok.py").write_text(
        "async def f(app, dialog):\n    dialog.open()\n    def later():\n        app.processEvents()\n"
        "    return later\n", encoding="utf-8")
    (root / "bad.py").write_text(
        "from PySide6.QtWidgets import QMessageBox\n"
        "async def f(app, dialog, menu):\n    app.processEvents()\n    dialog.exec()\n    menu.exec_()\n"
        "    QMessageBox.question(None, 'a', 'b')\n    process_events()\n    flush()\n"
        "def flush():\n    from PySide6.QtCore import QCoreApplication\n    QCoreApplication.processEvents()\n",
        encoding="utf-8")
    found = nested_loops_in_coroutines(root)
    assert len(found) == 6 and all("bad.py" in v for v in found), found


def test_classes_are_composed_not_mixed():
    assert mixed_classes() == []


def test_the_mixing_rule_sees_a_mixed_class(tmp_path):
    root = tmp_path / "pkg"
    root.mkdir()
    (root / "__init__.py").write_text("", encoding="utf-8")
    (root / "parts.py").write_text(
        "class CrudMixin:\n    pass\nclass Undo:\n    pass\nclass Store(CrudMixin):\n    pass\n"
        "class Both(Undo, Store):\n    pass\nclass Owner:\n    def __init__(self):\n        self.undo = Undo()\n"
        "class MemoryError_(Exception):\n    pass\nclass NotFound(MemoryError_, KeyError):\n    pass\n",
        encoding="utf-8")
    assert sorted(mixed_classes(root)) == ["pkg.parts.Both(Undo, Store)", "pkg.parts.Store(CrudMixin)"]


#: What switches Python's cyclic collector off or hides objects from it (issue 39): widgets and their
#: parts form no reference cycles (ui/widgets/owner.py; tests/ui/test_no_cycles.py), so it stays on.
COLLECTOR_SWITCHES = {"disable", "freeze"}


def collector_switches(root: Path = PACKAGE) -> list[str]:
    """Every ``gc.disable()`` / ``gc.freeze()`` (also ``from gc import disable``) in the package."""
    found = []
    for path in sorted(root.rglob("*.py")):
        name = module_name(path, root)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        aliases = {"gc"}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                aliases.update(a.asname or a.name for a in node.names if a.name == "gc")
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in COLLECTOR_SWITCHES and \
                    isinstance(node.value, ast.Name) and node.value.id in aliases:
                found.append(f"{name}:{node.lineno} uses gc.{node.attr}")
            elif isinstance(node, ast.ImportFrom) and node.module == "gc":
                found.extend(f"{name}:{node.lineno} imports gc.{a.name}" for a in node.names
                             if a.name in COLLECTOR_SWITCHES or a.name == "*")
    return found


def test_the_collector_is_never_switched_off():
    assert collector_switches() == []


def test_the_collector_rule_sees_every_way_to_switch_it_off(tmp_path):
    root = tmp_path / "pkg"
    root.mkdir()
    (root / "__init__.py").write_text("", encoding="utf-8")
    (root / "ok.py").write_text("import gc\ndef f():\n    gc.collect()\n    return gc.isenabled()\n", encoding="utf-8")
    (root / "bad.py").write_text("import gc\nimport gc as collector\nfrom gc import freeze\n"
                                 "def f():\n    gc.disable()\n    collector.freeze()\n    freeze()\n", encoding="utf-8")
    found = collector_switches(root)
    assert len(found) == 3 and all("pkg.bad" in v for v in found), found


MAX_FUNCTION_LINES = 80  # issue 39: a longer function does two jobs (build views declaratively, analyse in stages)


def long_functions(root: Path = PACKAGE, limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """Every function or method longer than ``limit`` lines (from its ``def`` to its last line, nested
    functions included in their parent's count and counted on their own too)."""
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                lines = node.end_lineno - first + 1
                if lines > limit:
                    found.append(f"{module_name(path, root)}:{node.lineno} {node.name}() has {lines} lines")
    return found


def test_no_function_is_longer_than_80_lines():
    assert long_functions() == []


def test_the_length_rule_sees_a_long_function(tmp_path):
    root = tmp_path / "pkg"
    root.mkdir()
    (root / "__init__.py").write_text("", encoding="utf-8")
    body = "".join(f"    x{i} = {i}\n" for i in range(79))
    (root / "ok.py").write_text(f"def short():\n{body}", encoding="utf-8")  # 80 lines
    (root / "bad.py").write_text(f"class C:\n    @staticmethod\n    def long():\n{body.replace('    ', '        ')}"
                                 "        return 0\n", encoding="utf-8")  # 82 with its decorator
    assert long_functions(root) == ["pkg.bad:3 long() has 82 lines"]


ONE_WRITE = "memory.files"  # atomic_file / atomic_write: the app's one crash-safe replacement
REDACTION = "redaction"  # scrub: what leaves the process never shows a secret (a leaf, as files is)


def own_atomic_writes(root: Path = PACKAGE) -> list[str]:
    """Functions that write a file and rename it into place themselves (``os.fsync`` and ``os.replace``
    or ``os.rename`` in one function) outside ``memory/files.py``: ``atomic_file`` does that once, with
    the owner-only mode, the cleanup on failure and the folder's fsync."""
    found = []
    for path in sorted(root.rglob("*.py")):
        name = module_name(path, root)
        if name == f"{root.name}.{ONE_WRITE}":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            called = {node.func.attr for node in ast.walk(func) if isinstance(node, ast.Call)
                      and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
                      and node.func.value.id == "os"}
            if "fsync" in called and called & {"replace", "rename"}:
                found.append(f"{name}.{func.name}:{func.lineno} (use memory.files.atomic_file)")
    return found


def test_one_crash_safe_write():
    assert own_atomic_writes() == []


def test_the_write_rule_sees_a_hand_made_atomic_write(tmp_path):
    root = tmp_path / "pkg"
    (root / "memory").mkdir(parents=True)
    (root / "__init__.py").write_text("", encoding="utf-8")
    body = ("import os\ndef save(path, data):\n    with open(path + '.tmp', 'wb') as fh:\n        fh.write(data)\n"
            "        os.fsync(fh.fileno())\n    os.replace(path + '.tmp', path)\n")
    (root / "memory" / "files.py").write_text(body, encoding="utf-8")
    (root / "settings.py").write_text(body, encoding="utf-8")
    assert own_atomic_writes(root) == ["pkg.settings.save:2 (use memory.files.atomic_file)"]


def test_config_reaches_only_the_leaf_file_helpers():
    """``config/`` stands alone but for ``memory/files.py`` and ``redaction.py``, which import nothing of
    the package."""
    assert [t for t in imports_of(PACKAGE / "memory" / "files.py") if _under(t, ROOT_NAME)] == []
    assert [t for t in imports_of(PACKAGE / "redaction.py") if _under(t, ROOT_NAME)] == []
