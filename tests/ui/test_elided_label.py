"""The wall's count ("6 条", "正在载入记忆… 3,000 / 10,000", "8 memories") never widens the wall: a
longer count pushed the wall's minimum width up, and in a 900-pixel window the chat beside it was
squeezed until its reply bubbles were cut off (seen in a real window with the English UI)."""

from __future__ import annotations

import asyncio

import pytest
from PySide6.QtWidgets import QScrollArea

from shell_fixtures import OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS, app_settings, running_app
from sonetto_desktop.ui.widgets.elided_label import ElidedLabel


@pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS)
async def test_in_english_at_900_pixels_the_chat_keeps_its_width_beside_the_wall(qapp, tmp_path, llm_server, wait):
    """"Memories: 8" and "Recently changed" made the wall's toolbar wider: the chat was squeezed to
    ~145 px and its bubbles cut off behind a horizontal scroll bar."""
    from sonetto_desktop.memory import YamlMemoryManager

    data = tmp_path / "data"
    data.mkdir()
    store = YamlMemoryManager(data / "memory.yaml")
    for n in range(8):
        store.add(f"用户说过的第 {n} 件事", "生活")
    store.close()
    async with running_app(qapp, app_settings(data, llm_server, language="en")) as app:
        await app.wall_loaded
        app.window.resize(880, 560)
        app.window.show()
        await wait(lambda: "8" in app.wall.count_label.text(), message="the count")
        await asyncio.sleep(0.1)  # the layout settles
        chat = app.window.chat_stack
        assert chat.width() >= 210, chat.width()
        assert not app.window.chat_panel.findChild(QScrollArea).horizontalScrollBar().isVisible()
        assert app.wall.count_label.text() == "8 memories"
        assert app.wall.count_label.toolTip() in ("", "8 memories")  # cut with "…" only when it must


def test_a_label_too_narrow_for_its_text_cuts_it_and_tells_the_rest_in_its_tooltip(qtbot):
    label = ElidedLabel()
    qtbot.addWidget(label)
    label.setText("正在载入记忆… 30,000 / 100,000")
    label.resize(label.sizeHint())
    label.show()
    assert label.elided() == label.text() and label.toolTip() == ""  # room enough: all of it, no tooltip
    label.resize(label.minimumSizeHint().width(), label.height())
    assert label.minimumSizeHint().width() < label.sizeHint().width()
    assert label.elided().endswith("…") and label.elided() != label.text()
    assert label.toolTip() == "正在载入记忆… 30,000 / 100,000"
    label.setText("6 条")  # short again: shown whole
    assert label.elided() == "6 条" and label.toolTip() == ""
