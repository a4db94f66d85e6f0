"""Moving cards is the easy drop, merging the deliberate one (issue 15, item 5): a drop anywhere in
a section moves, only a card's merge zone merges (with a preview while hovering), the wall scrolls
while a drag nears its edges, and the card menu has 移动到… ."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDragLeaveEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QInputDialog

from sonetto_desktop.ui.wall.card_delegate import merge_zone
from sonetto_desktop.ui.wall.memory_model import encode_ids
from sonetto_desktop.ui.dialogs.merge import MergeDialog
from sonetto_desktop.presentation.cards import THEME

ACTIONS = Qt.DropAction.CopyAction | Qt.DropAction.MoveAction


def _drag(target, pos: QPoint, mime, *, drop: bool = True) -> bool:
    for kind in (QDragEnterEvent, QDragMoveEvent):
        event = kind(pos, ACTIONS, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(target, event)
        assert event.isAccepted(), f"{kind.__name__} refused"
    if not drop:
        return True
    event = QDropEvent(QPointF(pos), ACTIONS, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(target, event)
    return event.isAccepted()


def _card_rect(wall, memory_id):
    card = wall.model.card(memory_id)
    view = wall.section(card[THEME]).view
    view.doItemsLayout()
    return view, view.visualRect(view.proxy.index_of(memory_id))


async def test_dropping_on_the_body_of_a_card_moves_instead_of_merging(wall, populated_store, wait):
    await wall.reload()
    cat = populated_store.ids["有一只叫年糕的橘猫"]
    rust = populated_store.ids["正在用 Rust 重写调度服务"]
    view, rect = _card_rect(wall, rust)
    body = QPoint(rect.left() + 20, rect.center().y())  # on the card, away from its merge zone
    assert not merge_zone(rect, view.density).contains(QPointF(body))
    assert _drag(view.viewport(), body, encode_ids([cat]))
    assert wall.actions.active_dialog is None  # no merge dialog
    await wait(lambda: populated_store.get(cat).theme == "工作", message="moved")
    item = populated_store.get(cat)
    assert item.history[-1]["actor"] == "user" and item.history[-1]["reason"] == "拖动到「工作」"
    assert populated_store.get(rust).description == "正在用 Rust 重写调度服务"


async def test_the_merge_zone_previews_the_merge_and_a_drop_there_merges(wall, populated_store, wait):
    await wall.reload()
    cat = populated_store.ids["有一只叫年糕的橘猫"]
    rust = populated_store.ids["正在用 Rust 重写调度服务"]
    view, rect = _card_rect(wall, rust)
    zone = merge_zone(rect, view.density).center().toPoint()
    _drag(view.viewport(), QPoint(rect.left() + 20, rect.center().y()), encode_ids([cat]), drop=False)
    assert view.drop_hint is not None and view.drop_hint.target == rust and not view.drop_hint.merge
    _drag(view.viewport(), zone, encode_ids([cat]), drop=False)
    assert view.drop_hint.merge and view.drop_hint.preview == "有一只叫年糕的橘猫"  # what would be merged in
    view.grab()  # the preview paints
    QApplication.sendEvent(view.viewport(), QDragLeaveEvent())
    assert view.drop_hint is None
    assert _drag(view.viewport(), zone, encode_ids([cat]))
    dialog = wall.actions.active_dialog
    assert isinstance(dialog, MergeDialog) and dialog.values()[:2] == (rust, cat)
    dialog.reject()


async def test_several_cards_dropped_on_a_card_move_together(wall, populated_store, wait):
    await wall.reload()
    coffee, herb = populated_store.ids["喜欢手冲咖啡，不加糖"], populated_store.ids["讨厌香菜"]
    cat = populated_store.ids["有一只叫年糕的橘猫"]
    view, rect = _card_rect(wall, cat)
    assert _drag(view.viewport(), merge_zone(rect, view.density).center().toPoint(), encode_ids([coffee, herb]))
    assert wall.actions.active_dialog is None
    await wait(lambda: populated_store.get(coffee).theme == "家人" and populated_store.get(herb).theme == "家人")


async def test_a_drag_near_the_bottom_edge_scrolls_the_wall(wall, populated_store, wait):
    for n in range(40):
        populated_store.add(f"第 {n} 条关于工作的记忆，写得稍微长一点好占地方", "工作")
    await wall.reload()
    wall.resize(600, 400)
    bar = wall.scroll.verticalScrollBar()
    await wait(lambda: bar.maximum() > 0, message="the wall scrolls")
    assert bar.value() == 0
    view = wall.visible_sections()[0].view
    viewport = wall.scroll.viewport()
    bottom = viewport.mapToGlobal(QPoint(viewport.width() // 2, viewport.height() - 4))
    cat = populated_store.ids["有一只叫年糕的橘猫"]
    _drag(view.viewport(), view.viewport().mapFromGlobal(bottom), encode_ids([cat]), drop=False)
    await wait(lambda: bar.value() > 60, message="auto-scrolled down")
    top = viewport.mapToGlobal(QPoint(viewport.width() // 2, 3))
    wall.autoscroll.drag_at(top)
    value = bar.value()
    await wait(lambda: bar.value() < value, message="auto-scrolled up")
    wall.autoscroll.drag_at(viewport.mapToGlobal(QPoint(viewport.width() // 2, viewport.height() // 2)))
    assert not wall.autoscroll.active  # the middle does not scroll


async def test_context_menu_moves_to_a_theme_or_a_new_one(wall, populated_store, wait):
    await wall.reload()
    cat = populated_store.ids["有一只叫年糕的橘猫"]
    menu = wall.actions.context_menu(cat, [cat])
    move = menu.findChild(type(menu), "MoveMenu")
    assert move is not None and move.title() == "移动到…"
    targets = {a.data(): a for a in move.actions() if a.data()}
    assert set(targets) == {"品味", "工作"}  # not its own theme
    targets["工作"].trigger()
    await wait(lambda: populated_store.get(cat).theme == "工作", message="moved by the menu")
    assert populated_store.get(cat).history[-1]["actor"] == "user"
    menu.close()

    menu = wall.actions.context_menu(cat, [cat])
    move = menu.findChild(type(menu), "MoveMenu")
    next(a for a in move.actions() if a.objectName() == "new-theme").trigger()
    dialog = wall.actions.active_dialog
    assert isinstance(dialog, QInputDialog)
    dialog.setTextValue("宠物")
    dialog.accept()
    await wait(lambda: populated_store.get(cat).theme == "宠物", message="moved to a new theme")
    await wait(lambda: wall.section("宠物") is not None)
    menu.close()


async def test_the_move_menu_and_the_outline_name_counts_in_the_english_window_s_own_way(service, populated_store,
                                                                                          qtbot, english, wait):
    """「品味（3）」 in the English window was Chinese punctuation around an English count."""
    from sonetto_desktop.ui.wall.memory_wall import MemoryWall

    wall = MemoryWall(service)  # made in English
    qtbot.addWidget(wall)
    wall.resize(900, 700)
    wall.show()
    await wall.reload()
    await wait(lambda: not wall.loading())
    cat = populated_store.ids["有一只叫年糕的橘猫"]
    menu = wall.actions.context_menu(cat, [cat])
    move = menu.findChild(type(menu), "MoveMenu")
    assert "品味 (3)" in [a.text() for a in move.actions()]
    menu.close()
    assert wall.outline.item_for("品味").toolTip() == "品味 (3)"


async def test_dropping_on_a_theme_in_the_outline_moves_there(wall, populated_store, wait):
    await wall.reload()
    assert wall.outline.isVisible()
    assert wall.outline.themes() == ["品味", "工作", "家人"]
    cat = populated_store.ids["有一只叫年糕的橘猫"]
    item = wall.outline.item_for("品味")
    pos = wall.outline.visualItemRect(item).center()
    assert _drag(wall.outline.viewport(), pos, encode_ids([cat]))
    await wait(lambda: populated_store.get(cat).theme == "品味", message="moved via the outline")


async def test_the_drag_picture_is_small_and_counts_several_cards(wall, populated_store):
    await wall.reload()
    view = wall.section("品味").view
    view.doItemsLayout()
    indexes = [view.proxy.index(r, 0) for r in range(view.proxy.rowCount())]
    one, many = view.drag_pixmap(indexes[:1]), view.drag_pixmap(indexes)
    assert 0 < one.width() <= 200 and not one.isNull()
    assert many.size() == one.size()


async def test_a_card_of_the_same_theme_merges_wherever_it_is_dropped(wall, populated_store, wait):
    """Issue 30 item 14: a move within its own theme means nothing, so the whole card is the zone."""
    await wall.reload()
    coffee, herb = populated_store.ids["喜欢手冲咖啡，不加糖"], populated_store.ids["讨厌香菜"]
    view, rect = _card_rect(wall, herb)
    left = QPoint(rect.left() + rect.width() // 6, rect.center().y())  # far from the right-hand strip
    assert not merge_zone(rect, view.density).contains(QPointF(left))
    hint = view.drop_target(left, [coffee])
    assert hint is not None and hint.merge and hint.whole and hint.target == herb
    _drag(view.viewport(), left, encode_ids([coffee]), drop=False)
    assert view.dragging == (coffee, True)  # every card of the section shows where it would merge
    view.grab()
    assert _drag(view.viewport(), left, encode_ids([coffee]))
    assert view.dragging is None
    dialog = wall.actions.active_dialog
    assert isinstance(dialog, MergeDialog) and dialog.values()[:2] == (herb, coffee)
    dialog.reject()


async def test_a_drop_that_changes_nothing_says_so(service, populated_store, qtbot, wait):
    from PySide6.QtWidgets import QWidget

    from sonetto_desktop.ui.notices.toasts import ToastOverlay
    from sonetto_desktop.ui.wall.memory_wall import MemoryWall

    host = QWidget()
    qtbot.addWidget(host)
    host.resize(900, 700)
    toasts = ToastOverlay(host)
    wall = MemoryWall(service, toasts=toasts)
    wall.setParent(host)
    wall.resize(900, 700)
    host.show()
    await wall.reload()
    coffee = populated_store.ids["喜欢手冲咖啡，不加糖"]
    wall.actions.handle_drop([coffee], "品味")  # dropped on its own section, off any card
    [toast] = toasts.toasts()
    assert "品味" in toast.text and "合并" in toast.text
    assert populated_store.get(coffee).history[-1]["action"] == "create"  # nothing was written
