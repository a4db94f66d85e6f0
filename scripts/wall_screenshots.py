"""Screenshots of the wall's control surfaces (issue 12): lock signs and who changed each card, the
card menu on a multi-selection, the filter menu, and the "删除 Sonetto 今天写的" question — light and
dark, into ``docs/screenshots/wall-*.png``.

    xvfb-run -a -s "-screen 0 1600x1000x24" python scripts/wall_screenshots.py

A real wall over a demo YAML store in a temp dir (memories by you, Sonetto, another app, and an
imported one without history). Popups are drawn into the picture with ``QWidget.render``.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "docs" / "screenshots"

SEED = ("seed0001:\n  description: 用户是计算机专业的大三学生\n  theme: 身份\n  hit: 4\n  history: []\n"
        "  latest_update_time: '2026-07-10 21:14:03'\n")
BY_SONETTO = [("用户养了一只橘猫，名字叫年糕", "生活"), ("用户喜欢喝手冲咖啡，偏爱埃塞俄比亚豆子", "偏好"),
              ("用户下周三要给团队做 React 性能优化的分享", "工作"), ("用户对花生过敏", "健康")]


def _store(folder: Path):
    from sonetto_desktop.memory import YamlMemoryManager
    from sonetto_desktop.memory.operations import MemoryOperations

    (folder / "memory.yaml").write_text(SEED, encoding="utf-8")
    store = YamlMemoryManager(folder / "memory.yaml")
    ops = MemoryOperations(store)
    ids = [ops.as_actor("agent").add(text, theme).ids[0] for text, theme in BY_SONETTO]
    ids.append(ops.add("不要在晚上十点以后安排会议", "偏好").ids[0])
    ids.append(ops.as_actor("mcp:Claude Desktop").add("用户在用 Rust 写一个调度服务", "工作").ids[0])
    ops.set_locked(ids[3], True)
    ops.set_locked(ids[4], True)
    return store, ids


def _with_popup(wall, popup, at) -> "object":
    """The wall's picture with ``popup`` (a menu or dialog) drawn at ``at`` (wall coordinates)."""
    from PySide6.QtGui import QPainter

    picture = wall.grab()
    painter = QPainter(picture)
    popup.render(painter, at)
    painter.end()
    return picture


async def _shoot(qapp) -> None:
    from PySide6.QtCore import QPoint

    from sonetto_desktop.ui.memory_service import MemoryService
    from sonetto_desktop.ui.wall.memory_wall import MemoryWall
    from sonetto_desktop.ui.theme import stylesheet

    OUT.mkdir(parents=True, exist_ok=True)
    store, ids = _store(Path(tempfile.mkdtemp(prefix="sonetto-wall-shots-")))
    service = MemoryService(store)
    for mode in ("light", "dark"):
        qapp.setStyleSheet(stylesheet(mode))
        wall = MemoryWall(service)
        wall.resize(820, 560)
        wall.show()
        await wall.reload()
        await asyncio.sleep(0.4)
        view = wall.section("偏好").view
        view.selectAll()
        menu = wall.actions.context_menu(ids[1], wall.selected_ids())
        menu.adjustSize()
        rect = view.visualRect(view.proxy.index_of(ids[1]))
        at = view.viewport().mapTo(wall, rect.center())
        _with_popup(wall, menu, at).save(str(OUT / f"wall-selection-{mode}.png"))
        menu.close()
        view.clearSelection()

        filters = wall.toolbar.filter_menu
        filters.adjustSize()
        wall.set_filter("locked")
        await asyncio.sleep(0.2)
        _with_popup(wall, filters, QPoint(40, 40)).save(str(OUT / f"wall-filter-{mode}.png"))
        wall.set_filter("all")

        box = wall.bulk.ask_forget_today()
        await asyncio.sleep(0.2)
        box.adjustSize()
        _with_popup(wall, box, QPoint(60, 160)).save(str(OUT / f"wall-forget-today-{mode}.png"))
        box.close()
        wall.close()
        wall.deleteLater()
        await asyncio.sleep(0.1)
    service.close()
    store.close()
    for name in sorted(OUT.glob("wall-*.png")):
        print(name.relative_to(ROOT))


def main() -> int:
    if not os.environ.get("DISPLAY") and os.environ.get("QT_QPA_PLATFORM") != "offscreen":
        print("no display: run under xvfb-run (see the module docstring)", file=sys.stderr)
        return 2
    os.environ.setdefault("QT_API", "pyside6")
    import qasync

    from sonetto_desktop.ui.app import create_qapp

    qapp = create_qapp([])
    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(qapp)) as runner:
        runner.run(_shoot(qapp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
