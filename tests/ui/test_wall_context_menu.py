"""A card's menu acts on what the person sees (issue 38 item 6): a right click on a card outside the
selection selects only that card (as file managers do), even when the selection is in another theme
or scrolled away; a right click inside a selection that has cards out of sight (a collapsed theme)
says so in the menu before anything acts on them. Real widgets, real right clicks."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication, QMenu
from sonetto_desktop.presentation.cards import THEME

# a popped-up menu on the offscreen platform (the platform talking, not our code)
POPUP = pytest.mark.qt_log_ignore(r"^This plugin does not support (raise\(\)|grabbing the keyboard|propagateSizeHints\(\))$")


def _right_click(wall, memory_id: str) -> QMenu:
    card = wall.model.card(memory_id)
    view = wall.section(card[THEME]).view
    rect = view.visualRect(view.proxy.index_of(memory_id))
    pos = rect.center()
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos, view.viewport().mapToGlobal(pos),
                              Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(view.viewport(), event)
    menus = [m for m in wall.findChildren(QMenu, "CardMenu") if m.isVisible()]
    assert len(menus) == 1
    return menus[0]


def _texts(menu: QMenu) -> dict[str, str]:
    return {a.objectName(): a.text() for a in menu.actions() if a.objectName()}


def _close(menu: QMenu) -> None:
    menu.close()
    menu.deleteLater()


@POPUP
async def test_a_right_click_outside_the_selection_selects_only_that_card(wall, populated_store, wait):
    await wall.reload()
    await wait(lambda: not wall.loading())
    cat = populated_store.ids["有一只叫年糕的橘猫"]  # 家人
    coffee = populated_store.ids["喜欢手冲咖啡，不加糖"]  # 品味
    wall.select_ids([cat])  # e.g. 历史 → 打开这段对话 selected it earlier
    assert wall.selected_ids() == [cat]
    menu = _right_click(wall, coffee)
    try:
        assert _texts(menu)["delete"] == "删除"  # not "删除 2 条"
        assert wall.selected_ids() == [coffee]
        assert "unseen" not in _texts(menu)
        [delete] = [a for a in menu.actions() if a.objectName() == "delete"]
        delete.trigger()
        await wait(lambda: coffee not in populated_store.all_items())
        assert cat in populated_store.all_items()
    finally:
        _close(menu)


@POPUP
async def test_a_right_click_inside_a_selection_with_cards_out_of_sight_says_so(wall, populated_store, wait):
    await wall.reload()
    await wait(lambda: not wall.loading())
    cat = populated_store.ids["有一只叫年糕的橘猫"]
    coffee = populated_store.ids["喜欢手冲咖啡，不加糖"]
    herb = populated_store.ids["讨厌香菜"]
    wall.select_ids([cat, coffee, herb])
    wall.section("家人").set_collapsed(True)
    await wait(lambda: not wall.section("家人").view.isVisible())
    menu = _right_click(wall, coffee)
    try:
        texts = _texts(menu)
        assert texts["delete"] == "删除 3 条"
        assert texts["unseen"] == "已选 3 条，其中 1 条不在视野内"
        assert sorted(wall.selected_ids()) == sorted([cat, coffee, herb])  # inside it: the selection is kept
    finally:
        _close(menu)
    wall.section("家人").set_collapsed(False)
    await wait(lambda: wall.section("家人").view.isVisible())
    menu = _right_click(wall, coffee)
    try:
        assert "unseen" not in _texts(menu)  # all three in sight now
    finally:
        _close(menu)
