"""Architecture rule: the domain (memory/) and the agent (agent/) never import Qt or qasync."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "sonetto_desktop"
FORBIDDEN = ("PySide6", "PyQt5", "PyQt6", "shiboken6", "qasync", "sonetto_desktop.ui")


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                names.append(node.module)
            elif node.level and node.module and node.module.startswith("ui"):
                names.append("sonetto_desktop.ui")
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "__import__" and node.args:
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                names.append(arg.value)
    return names


def _violations(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        for name in _imports(path):
            if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN):
                found.append(f"{path.relative_to(PACKAGE.parent)} imports {name}")
    return found


def test_memory_and_agent_do_not_import_qt():
    for sub in ("memory", "agent"):
        assert (PACKAGE / sub).is_dir()
        assert list((PACKAGE / sub).rglob("*.py")), f"no modules under {sub}/"
    assert _violations(PACKAGE / "memory") + _violations(PACKAGE / "agent") == []


def test_the_rule_catches_a_qt_import(tmp_path):
    (tmp_path / "bad.py").write_text("from PySide6.QtCore import QObject\nimport qasync\n", encoding="utf-8")
    (tmp_path / "ok.py").write_text("import asyncio\n", encoding="utf-8")
    assert len(_violations_in(tmp_path)) == 2


def _violations_in(root: Path) -> list[str]:
    return [name for path in root.rglob("*.py") for name in _imports(path)
            if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN)]
