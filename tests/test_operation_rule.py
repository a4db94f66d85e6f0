"""The operation contract, checked on the source (issue 39 item 2):

- the services run operations: ``AppServices.run`` exists, and the Qt adapter goes through it;
- one ui module hands work to a thread or runs operations itself: ``ui/memory_service.py`` (the
  adapter). Every other ui module goes through it (``run`` / ``submit`` / ``call`` / ``run_op``) and never
  imports ``aio.run_blocking`` or the operations' runner (``ops.run``) nor calls ``services.run``;
- no ui or presentation module puts an exception's type name into what a person reads
  (``type(exc).__name__``, ``exc.__class__.__name__``): failures are worded by ``presentation/errors.py``.
  The self-test's report (``ui/self_test.py``, read by a developer or CI, never shown in the window) may.

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
