"""The operation contract, checked on the source (issue 39 item 2):

- the services run operations: ``AppServices.run`` exists, and the Qt adapter goes through it;
- one ui module hands work to a thread or runs operations itself: ``ui/memory_service.py`` (the
  adapter). Every other ui module goes through it (``run`` / ``submit`` / ``call`` / ``run_op``) and never
  imports ``aio.run_blocking`` or the operations' runner (``ops.run``) nor calls ``services.run``;
- no ui or presentation module puts an exception's type name into what a person reads
  (``type(exc).__name__``, ``exc.__class__.__name__``): failures are worded by ``presentation/errors.py``.
  The self-test's report (``ui/self_test.py``, read by a developer or CI, never shown in the window) may;
- no front end (``ui/``, ``mcp_server/``, the command lines ``cli.py`` and ``cli_history.py``) writes the
  memories itself: it never calls a write method of ``MemoryOperations`` (nor the store's) on the
  operations it holds; every write is an operation value (``ops.py``) run by ``AppServices.run``, so it
  is recorded and worded alike whichever front end made it. Which methods write is read from
  ``memory/operations.py``: every public method but the reads named here, so a new write is covered.

Each rule has a test proving it sees a violation.
"""

from __future__ import annotations

import ast
from pathlib import Path

from test_import_rule import PACKAGE, _resolve, module_name

ADAPTER = "ui.memory_service"  # the one ui module that runs operations
#: What only the adapter may use: names of ``aio`` that run work in a thread, and the operations' runner.
THREAD_NAMES = {"run_blocking", "run_detached"}
TYPE_NAME_ALLOWED = {"ui.self_test"}  # a developer's console report, not the window


def _relative(path: Path, root: Path) -> str:
    return module_name(path, root).split(".", 1)[1]


def _runs_services(node: ast.Call) -> bool:
    """``services.run(…)`` / ``self.services.run(…)`` / ``self._services.run(…)``."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "run"):
        return False
    owner = func.value
    name = owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else ""
    return name.lstrip("_").endswith("services") or name == "ops"


def runner_uses(root: Path = PACKAGE) -> list[str]:
    """Every ui module but the adapter that imports a thread runner of ``aio`` or the operations' runner,
    or calls ``services.run`` / ``ops.run`` itself."""
    pkg = root.name
    found = []
    for path in sorted((root / "ui").rglob("*.py")):
        name = _relative(path, root)
        if name == ADAPTER:
            continue
        current = module_name(path, root)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = _resolve(node.module or "", node.level, current, path.name == "__init__.py")
                for alias in node.names:
                    if base == f"{pkg}.aio" and alias.name in THREAD_NAMES:
                        found.append(f"{name}:{node.lineno} imports aio.{alias.name}")
                    if base == f"{pkg}.ops" and alias.name == "run":
                        found.append(f"{name}:{node.lineno} imports ops.run")
            elif isinstance(node, ast.Attribute) and node.attr in THREAD_NAMES:
                found.append(f"{name}:{node.lineno} uses .{node.attr}")
            elif isinstance(node, ast.Call) and _runs_services(node):
                found.append(f"{name}:{node.lineno} runs an operation itself ({ast.unparse(node.func)})")
    return found


def type_names_shown(root: Path = PACKAGE) -> list[str]:
    """Every ``type(x).__name__`` / ``x.__class__.__name__`` in ui/ and presentation/ (but the self-test)."""
    found = []
    for sub in ("ui", "presentation"):
        for path in sorted((root / sub).rglob("*.py")):
            name = _relative(path, root)
            if name in TYPE_NAME_ALLOWED:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Attribute) and node.attr == "__name__"):
                    continue
                value = node.value
                if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "type") or (
                        isinstance(value, ast.Attribute) and value.attr == "__class__"):
                    found.append(f"{name}:{node.lineno} {ast.unparse(node)}")
    return found


def services_run(root: Path = PACKAGE) -> tuple[bool, bool]:
    """(``AppServices`` has an ``async def run``, the adapter calls ``services.run``)."""
    tree = ast.parse((root / "services.py").read_text(encoding="utf-8"))
    defined = any(isinstance(node, ast.ClassDef) and node.name == "AppServices" and any(
        isinstance(item, ast.AsyncFunctionDef) and item.name == "run" for item in node.body) for node in tree.body)
    adapter = ast.parse((root / "ui" / "memory_service.py").read_text(encoding="utf-8"))
    used = any(isinstance(node, ast.Call) and _runs_services(node) for node in ast.walk(adapter))
    return defined, used


#: Every front end: what a person or another app drives.
FRONT_ENDS = ("ui", "mcp_server", "cli.py", "cli_history.py")
#: ``MemoryOperations``' public methods that only read (or bind); every other public method writes.
OPERATION_READS = {"get", "all_items", "count", "grouped", "trash", "history", "versions", "allowed", "as_actor",
                   "subscribe", "reviewing", "store"}
#: Names under which a front end holds memory operations or the store (``memory``, ``self._memory``,
#: ``services.memory``, ``ops`` as the MCP tools' work functions had it, ``store``).
MEMORY_HOLDERS = {"memory", "memory_ops", "operations", "ops", "store", "mm"}


def operation_writes(root: Path = PACKAGE) -> set[str]:
    """The write methods of ``MemoryOperations`` (its public methods but ``OPERATION_READS``)."""
    tree = ast.parse((root / "memory" / "operations.py").read_text(encoding="utf-8"))
    cls = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "MemoryOperations")
    methods = {item.name for item in cls.body if isinstance(item, ast.FunctionDef) and not item.name.startswith("_")}
    return methods - OPERATION_READS


def _holds_memory(node: ast.AST) -> bool:
    """``node`` evaluates to memory operations or the store: a name from ``MEMORY_HOLDERS`` (``memory``,
    ``self._memory``, ``services.memory``, ``self._ops()``), or ``….as_actor(…)`` / ``MemoryOperations(…)``."""
    if isinstance(node, ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        return name in ("as_actor", "MemoryOperations") or _holds_memory(func)
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name.lstrip("_") in MEMORY_HOLDERS


def _front_end_files(root: Path) -> list[Path]:
    files: list[Path] = []
    for part in FRONT_ENDS:
        path = root / part
        files.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path] if path.exists() else [])
    return files


def direct_writes(root: Path = PACKAGE) -> list[str]:
    """Every call in a front end of a ``MemoryOperations`` write method on memory operations or the store."""
    writes = operation_writes(root)
    found = []
    for path in _front_end_files(root):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in writes
                    and _holds_memory(node.func.value)):
                found.append(f"{_relative(path, root)}:{node.lineno} {ast.unparse(node.func)}")
    return found


def test_only_the_adapter_runs_operations_and_hands_work_to_threads():
    assert runner_uses() == []


def test_app_services_run_exists_and_the_adapter_uses_it():
    assert services_run() == (True, True)


def test_no_exception_type_name_reaches_a_person():
    assert type_names_shown() == []


def test_the_rules_see_violations(tmp_path):
    root = tmp_path / "pkg"
    for folder in ("", "ui", "ui/settings", "presentation"):
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "__init__.py").write_text("", encoding="utf-8")
    (root / "services.py").write_text("class AppServices:\n    def close(self):\n        pass\n", encoding="utf-8")
    (root / "ui" / "memory_service.py").write_text(
        "from ..aio import run_blocking\nasync def run(op):\n    return await run_blocking(op)\n", encoding="utf-8")
    (root / "ui" / "settings" / "page.py").write_text(
        "from ...aio import run_blocking\n"
        "from pkg import aio\n"
        "from pkg.ops import run\n"
        "async def save(self, fn):\n"
        "    await aio.run_detached(fn)\n"
        "    await self._services.run(fn)\n"
        "    try:\n        fn()\n    except Exception as exc:\n"
        "        self.label.setText('失败：' + type(exc).__name__)\n", encoding="utf-8")
    (root / "presentation" / "words.py").write_text(
        "def say(exc):\n    return f'{exc.__class__.__name__}'\n", encoding="utf-8")
    (root / "ui" / "self_test.py").write_text("def report(exc):\n    print(type(exc).__name__)\n", encoding="utf-8")
    uses = runner_uses(root)
    assert any("page:1 imports aio.run_blocking" in use for use in uses)
    assert any("imports ops.run" in use for use in uses)
    assert any("uses .run_detached" in use for use in uses)
    assert any("runs an operation itself (self._services.run)" in use for use in uses)
    assert not any(use.startswith("ui.memory_service") for use in uses)
    shown = type_names_shown(root)
    assert any(s.startswith("ui.settings.page:") for s in shown)
    assert any(s.startswith("presentation.words:") for s in shown)
    assert not any("self_test" in s for s in shown)
    assert services_run(root) == (False, False)


def test_no_front_end_writes_the_memories_itself():
    assert {"add", "update", "delete", "restore", "undo_turn", "import_items", "set_locked"} <= operation_writes()
    assert direct_writes() == []


def test_the_write_rule_sees_a_front_end_writing_itself(tmp_path):
    root = tmp_path / "pkg"
    for folder in ("", "memory", "ui", "ui/wall", "mcp_server"):
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "__init__.py").write_text("", encoding="utf-8")
    (root / "memory" / "operations.py").write_text(
        "class MemoryOperations:\n"
        "    def add(self, d, t): ...\n    def update(self, i): ...\n    def delete(self, i): ...\n"
        "    def stamp(self, i): ...\n    def grouped(self): ...\n    def _one(self, w): ...\n", encoding="utf-8")
    (root / "memory" / "forget.py").write_text("def forget(memory):\n    memory.delete('x')\n", encoding="utf-8")
    (root / "cli.py").write_text(
        "def run(services, args):\n    services.memory.add(args.d, args.t)\n    services.memory.grouped()\n"
        "    seen = set()\n    seen.add(1)\n    services.store.delete(args.id)\n", encoding="utf-8")
    (root / "mcp_server" / "tools.py").write_text(
        "class Tools:\n    def work(self, ops, caller):\n        ops.update('x')\n"
        "        self._ops().as_actor(caller).delete('x')\n        MemoryOperations(s).stamp('x')\n", encoding="utf-8")
    (root / "ui" / "wall" / "drop.py").write_text(
        "def drop(self, ids):\n    self._memory.update(ids[0])\n    self._values.update({})\n"
        "    self.viewport().update()\n", encoding="utf-8")
    assert operation_writes(root) == {"add", "update", "delete", "stamp"}  # a new write is covered by default
    found = direct_writes(root)
    assert sorted(found) == sorted([
        "cli:2 services.memory.add", "cli:6 services.store.delete", "mcp_server.tools:3 ops.update",
        "mcp_server.tools:4 self._ops().as_actor(caller).delete", "mcp_server.tools:5 MemoryOperations(s).stamp",
        "ui.wall.drop:2 self._memory.update"])  # not a set's add, a dict's or a widget's update, nor the domain
