"""Memory you control, on the wall (issue 12, items 1, 4 and 6): lock from the card menu with a lock
sign and a 已锁定 filter; who changed a card last on the card; filters by author; "删除 Sonetto 今天写的"
in two clicks and undoable; multi-select (Ctrl/Shift-click, rubber band) with one bulk action per
command; renaming a theme (merging into an existing one after asking)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox

from sonetto_desktop.ops import EditMemory, SetLocked
from sonetto_desktop.memory.operations import MemoryOperations
from sonetto_desktop.ui.dialogs.merge import MergeDialog
from sonetto_desktop.presentation.authors import author_label
from sonetto_desktop.presentation.cards import ACTOR, LOCKED


def _menu_actions(menu):
    return {a.objectName(): a for a in menu.actions() if a.objectName()}


def _toast(wall, prefix: str):
    found = [t for t in wall.toasts.toasts() if (t.key or "").startswith(prefix) and not t.is_dismissed]
    return found[-1] if found else None


def _shown_ids(wall) -> set[str]:
    return {mid for section in wall.visible_sections() for mid in section.proxy.ids()}


def _click(view, memory_id: str, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    view.doItemsLayout()
    rect = view.visualRect(view.proxy.index_of(memory_id))
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, modifier, rect.center())


# ── lock ──────────────────────────────────────────────────────────────


async def test_lock_from_the_card_menu_shows_a_lock_and_the_locked_filter(wall, populated_store, wait):
    await wall.reload()
    coffee = populated_store.ids["喜欢手冲咖啡，不加糖"]
    view = wall.section("品味").view
    view.doItemsLayout()
    before = view.grab().toImage()

    menu = wall.actions.context_menu(coffee, [coffee])
    actions = _menu_actions(menu)
    assert actions["lock"].text() == "锁定" and "unlock" not in actions
    actions["lock"].trigger()
    menu.close()
    await wait(lambda: populated_store.get(coffee).locked, message="locked in the store")
    await wait(lambda: wall.model.card(coffee)[LOCKED], message="the card knows")
    await wait(lambda: _toast(wall, "bulk:") is not None, message="a toast")
    assert _toast(wall, "bulk:").text.startswith("已锁定 1 条")
    assert "已锁定" in wall.model.data(wall.model.index(wall.model.row_of(coffee), 0), Qt.ItemDataRole.ToolTipRole)
    view.doItemsLayout()
    assert view.grab().toImage() != before  # the lock sign is painted

    wall.toolbar.filter_actions["locked"].trigger()
    assert wall.filter_name() == "locked"
    assert _shown_ids(wall) == {coffee}
    assert wall.count_label.text() == "1 / 6 条"
    assert wall.toolbar.filter_bar.isVisible() and wall.toolbar.filter_text.text() == "筛选：已锁定"

    menu = wall.actions.context_menu(coffee, [coffee])
    actions = _menu_actions(menu)
    assert actions["unlock"].text() == "解锁" and "lock" not in actions
    actions["unlock"].trigger()
    menu.close()
    await wait(lambda: not populated_store.get(coffee).locked, message="unlocked")
    await wait(lambda: not _shown_ids(wall), message="the locked filter now shows nothing")
    await wait(lambda: wall.empty_label.isVisible(), message="the wall says so")  # (after its coalesced pass)
    assert "已锁定" in wall.empty_label.text()


async def test_a_filter_is_said_under_the_toolbar_and_show_all_ends_it(wall, wait):
    # The filter's name stood beside the count ("其他应用写的 · 0 / 100000 条") and took the search box's
    # room; the filter menu is folded into the view button, so the bar is where a filter shows and ends.
    await wall.reload()
    wall.resize(480, 700)  # as narrow as the wall gets beside the chat
    await wait(lambda: wall.toolbar.width() <= 480, message="the narrow wall laid out")
    search_width = wall.toolbar.search_edit.width()
    assert not wall.toolbar.filter_bar.isVisible()
    wall.toolbar.filter_actions["apps"].trigger()
    assert wall.filter_name() == "apps"
    await wait(lambda: wall.empty_label.isVisible(), message="no memory by another app")
    wall.toolbar.layout().activate()  # the toolbar laid out for the filter's bar and count, now
    assert wall.toolbar.search_edit.width() == search_width  # the search box keeps its room
    assert wall.toolbar.filter_bar.isVisible() and wall.toolbar.filter_text.text() == "筛选：其他应用写的"
    assert wall.count_label.text() == "0 / 6 条"
    wall.toolbar.filter_clear.click()
    assert wall.filter_name() == "all" and wall.toolbar.filter_actions["all"].isChecked()
    await wait(lambda: len(_shown_ids(wall)) == 6, message="every card again")
    assert not wall.toolbar.filter_bar.isVisible() and wall.count_label.text() == "6 条"


# ── pin ───────────────────────────────────────────────────────────────


async def test_a_pinned_card_comes_first_in_its_theme_with_a_folded_corner(wall, populated_store, wait):
    await wall.reload()
    section = wall.section("品味")
    coffee = section.proxy.ids()[-1]  # the last of its theme
    other = next(mid for mid in section.proxy.ids() if mid != coffee)
    section.view.doItemsLayout()
    before = section.view.grab().toImage()

    menu = wall.actions.context_menu(coffee, [coffee])
    actions = _menu_actions(menu)
    assert actions["pin"].text() == "置顶" and "unpin" not in actions
    actions["pin"].trigger()
    menu.close()
    await wait(lambda: populated_store.get(coffee).pinned, message="pinned in the store")
    await wait(lambda: section.proxy.ids()[0] == coffee, message="first in its theme")
    section.view.doItemsLayout()
    assert section.view.grab().toImage() != before  # the corner is painted
    populated_store.hit(other)
    wall.set_sort_mode("hits")
    await wait(lambda: wall.section("品味").proxy.sort_mode == "hits", message="sorted by use")
    section = wall.section("品味")
    await wait(lambda: section.proxy.ids()[:2] == [coffee, other], message="pinned first, then the most used")
    wall.set_sort_mode("recent")
    await wait(lambda: wall.section("品味").proxy.sort_mode == "recent", message="sorted by time")
    section = wall.section("品味")

    menu = wall.actions.context_menu(coffee, [coffee])
    actions = _menu_actions(menu)
    assert actions["unpin"].text() == "取消置顶" and "pin" not in actions
    actions["unpin"].trigger()
    menu.close()
    await wait(lambda: not populated_store.get(coffee).pinned, message="unpinned")
    await wait(lambda: section.proxy.ids()[0] != coffee, message="no longer first")


# ── provenance and the author filters ────────────────────────────────


async def test_cards_say_who_changed_them_last_and_filter_by_author(tmp_path, qtbot, wait):
    from sonetto_desktop.memory import YamlMemoryManager
    from sonetto_desktop.ui.memory_service import MemoryService
    from sonetto_desktop.ui.wall.memory_wall import MemoryWall

    (tmp_path / "memory.yaml").write_text(
        "seed0001:\n  description: 从旧文件导入的记忆\n  theme: 旧事\n  hit: 0\n  history: []\n"
        "  latest_update_time: '2026-07-10 21:14:03'\n", encoding="utf-8")
    store = YamlMemoryManager(tmp_path / "memory.yaml")
    ops = MemoryOperations(store)
    mine = ops.add("我自己写的", "杂记").ids[0]
    sonetto = ops.as_actor("agent").add("Sonetto 写的", "杂记").ids[0]
    claude = ops.as_actor("mcp:Claude").add("Claude 写的", "杂记").ids[0]
    service = MemoryService(store)
    wall = MemoryWall(service)
    qtbot.addWidget(wall)
    wall.resize(900, 700)
    wall.show()
    try:
        await wall.reload()
        labels = {mid: author_label(wall.model.card(mid)[ACTOR]) for mid in (mine, sonetto, claude, "seed0001")}
        assert labels == {mine: "你", sonetto: "Sonetto", claude: "Claude", "seed0001": "导入"}
        tip = wall.model.data(wall.model.index(wall.model.row_of(sonetto), 0), Qt.ItemDataRole.ToolTipRole)
        assert "最后由 Sonetto 修改" in tip
        tip = wall.model.data(wall.model.index(wall.model.row_of("seed0001"), 0), Qt.ItemDataRole.ToolTipRole)
        assert "导入" in tip

        expected = {"agent": {sonetto}, "user": {mine}, "apps": {claude}, "all": {mine, sonetto, claude, "seed0001"}}
        for name, ids in expected.items():
            wall.toolbar.filter_actions[name].trigger()
            assert _shown_ids(wall) == ids, name

        # locking is not writing: still Sonetto's; the person's edit makes it theirs
        wall.set_filter("agent")
        assert await service.submit(SetLocked(sonetto, True))
        await wait(lambda: wall.model.card(sonetto)[LOCKED], message="locked")
        assert _shown_ids(wall) == {sonetto}
        await service.submit(EditMemory(sonetto, "Sonetto 写的，我改过", None))
        await wait(lambda: not _shown_ids(wall), message="no longer Sonetto's")
        assert author_label(wall.model.card(sonetto)[ACTOR]) == "你"

        # an app changing one of the person's memories does not make it the app's (the footer names it)
        wall.set_filter("apps")
        ops.as_actor("mcp:Claude").update(mine, description="我自己写的，Claude 补了一句")
        await wait(lambda: author_label(wall.model.card(mine)[ACTOR]) == "Claude", message="changed by Claude")
        assert _shown_ids(wall) == {claude}
        wall.set_filter("user")
        assert _shown_ids(wall) == {mine, sonetto}
    finally:
        service.close()
        store.close()


# ── "删除 Sonetto 今天写的" ───────────────────────────────────────────


async def test_delete_what_sonetto_wrote_today_takes_two_clicks_and_is_undoable(wall, populated_store, wait):
    ops = MemoryOperations(populated_store).as_actor("agent")
    written = [ops.add("Sonetto 今天记下的第一条", "工作").ids[0], ops.add("Sonetto 今天记下的第二条", "家人").ids[0]]
    await wall.reload()
    wall.toolbar.forget_today_action.trigger()  # first click
    box = wall.actions.active_dialog
    assert isinstance(box, QMessageBox) and box.objectName() == "ForgetTodayDialog"
    assert box.defaultButton().text() == "取消"
    box.defaultButton().click()  # Enter would cancel: nothing happens
    assert all(mid in populated_store.all_items() for mid in written)

    wall.toolbar.forget_today_action.trigger()
    box = wall.actions.active_dialog
    next(b for b in box.buttons() if b.objectName() == "confirm").click()  # second click
    await wait(lambda: not any(mid in populated_store.all_items() for mid in written), message="deleted")
    assert len(populated_store.all_items()) == 6  # the person's memories stay
    await wait(lambda: _toast(wall, "bulk:") is not None, message="the toast")
    toast = _toast(wall, "bulk:")
    assert toast.text == "已删除 Sonetto 今天写的 2 条记忆" and toast.action_button.text() == "撤销"
    toast.action_button.click()
    await wait(lambda: all(mid in populated_store.all_items() for mid in written), message="undone")
    await wait(lambda: all(wall.model.card(mid) is not None for mid in written), message="back on the wall")


# ── multi-select ──────────────────────────────────────────────────────


async def test_ctrl_and_shift_click_select_several_and_the_menu_acts_on_all(wall, populated_store, wait):
    await wall.reload()
    view = wall.section("品味").view
    ids = view.proxy.ids()
    assert len(ids) == 3
    _click(view, ids[0])
    _click(view, ids[2], Qt.KeyboardModifier.ControlModifier)
    assert set(wall.selected_ids()) == {ids[0], ids[2]}
    _click(view, ids[0])
    _click(view, ids[2], Qt.KeyboardModifier.ShiftModifier)
    assert set(wall.selected_ids()) == set(ids)

    # across sections with Ctrl; a plain click starts over
    work = wall.section("工作").view
    work_first = work.proxy.ids()[0]
    _click(work, work_first, Qt.KeyboardModifier.ControlModifier)
    assert set(wall.selected_ids()) == set(ids) | {work_first}
    rect = work.visualRect(work.proxy.index_of(work_first))
    QTest.mousePress(work.viewport(), Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, rect.center())
    QTest.mouseRelease(work.viewport(), Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, rect.center())
    assert set(wall.selected_ids()) == set(ids) | {work_first}  # a right click keeps it for the menu
    dragged = work.drag_ids([work.proxy.index_of(work_first)])
    assert set(dragged) == set(ids) | {work_first} and dragged[0] == work_first  # a drag takes them all
    work.setFocus()
    QTest.keyClick(work, Qt.Key.Key_Delete)  # Delete takes the whole selection, every section's
    await wait(lambda: not any(mid in populated_store.all_items() for mid in [*ids, work_first]), message="deleted")
    await wait(lambda: (t := _toast(wall, "bulk:")) is not None and t.text == "已删除 4 条记忆")
    _toast(wall, "bulk:").action_button.click()
    await wait(lambda: all(mid in populated_store.all_items() for mid in [*ids, work_first]), message="undone")
    await wait(lambda: all(wall.model.card(mid) is not None for mid in [*ids, work_first]))
    view, work = wall.section("品味").view, wall.section("工作").view  # (品味 emptied and came back)
    await wait(lambda: work.isVisible() and view.isVisible())
    _click(work, work_first)
    assert wall.selected_ids() == [work_first]

    # (restored cards are ordered by their restore time, which has whole seconds: when the restore
    # crosses a second, they no longer sit in the order they had, so the range is taken as shown)
    await wait(lambda: sorted(view.proxy.ids()) == sorted(ids), message="all three back in the section")
    shown = view.proxy.ids()
    _click(view, shown[0])
    _click(view, shown[-1], Qt.KeyboardModifier.ShiftModifier)
    assert set(wall.selected_ids()) == set(ids)
    menu = wall.actions.context_menu(shown[0], wall.selected_ids())
    actions = _menu_actions(menu)
    assert actions["delete"].text() == "删除 3 条" and actions["lock"].text() == "锁定 3 条"
    move = next(a.menu() for a in menu.actions() if a.menu() is not None and a.menu().objectName() == "MoveMenu")
    next(a for a in move.actions() if a.data() == "家人").trigger()
    menu.close()
    await wait(lambda: all(populated_store.get(mid).theme == "家人" for mid in ids), message="moved together")
    turns = {populated_store.get(mid).history[-1].get("turn_id") for mid in ids}
    assert len(turns) == 1 and next(iter(turns)).startswith("bulk-")  # one action
    await wait(lambda: _toast(wall, "bulk:") is not None, message="the toast")
    toast = _toast(wall, "bulk:")
    assert toast.text == "已把 3 条移到「家人」"
    toast.action_button.click()
    await wait(lambda: all(populated_store.get(mid).theme == "品味" for mid in ids), message="undone as one")


def _band(view, start: QPoint, end: QPoint) -> None:
    viewport = view.viewport()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(viewport, QPoint((start.x() + end.x()) // 2, (start.y() + end.y()) // 2))
    QTest.mouseMove(viewport, end)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)


async def test_a_rubber_band_from_the_gap_between_cards_selects_what_it_touches(wall, populated_store, wait):
    await wall.reload()
    view = wall.section("品味").view
    view.doItemsLayout()
    ids = view.proxy.ids()
    first, second = (view.visualRect(view.proxy.index_of(mid)) for mid in ids[:2])
    assert first.right() + 1 == second.left()  # side by side, edge to edge
    gap = QPoint(second.left() + 1, second.center().y())  # the margin between the two painted cards
    assert not view.indexAt(gap).isValid() and view.indexAt(second.center()).isValid()
    _band(view, gap, QPoint(first.center().x(), first.center().y()))
    assert set(view.selected_ids()) == {ids[0], ids[1]}  # no drag started: a band
    assert wall.actions.active_dialog is None and populated_store.get(ids[1]).theme == "品味"


async def test_a_rubber_band_selects_the_cards_it_touches(wall, populated_store, wait):
    await wall.reload()
    view = wall.section("品味").view
    view.doItemsLayout()
    ids = view.proxy.ids()
    last = view.visualRect(view.proxy.index_of(ids[-1]))
    first = view.visualRect(view.proxy.index_of(ids[0]))
    start = QPoint(view.viewport().width() - 3, last.bottom() - 2)  # a gap right of the last card
    assert not view.indexAt(start).isValid()
    _band(view, start, QPoint(first.left() + 8, first.top() + 8))
    assert set(view.selected_ids()) == set(ids)


async def test_bulk_delete_lock_and_merge_of_the_selection(wall, populated_store, wait):
    await wall.reload()
    coffee, herb = populated_store.ids["喜欢手冲咖啡，不加糖"], populated_store.ids["讨厌香菜"]
    band = populated_store.ids["最喜欢的乐队是草东没有派对"]

    menu = wall.actions.context_menu(coffee, [coffee, herb])
    actions = _menu_actions(menu)
    assert actions["merge"].text() == "合并这 2 条"
    actions["merge"].trigger()
    menu.close()
    dialog = wall.actions.active_dialog
    assert isinstance(dialog, MergeDialog) and dialog.values()[:2] == (coffee, herb)
    dialog.reject()

    menu = wall.actions.context_menu(coffee, [coffee, band])
    _menu_actions(menu)["lock"].trigger()
    menu.close()
    await wait(lambda: populated_store.get(coffee).locked and populated_store.get(band).locked, message="locked")
    await wait(lambda: (t := _toast(wall, "bulk:")) is not None and t.text.startswith("已锁定 2 条"))

    populated_store.delete(herb, "别处删掉了")  # gone before the action runs: skipped and said
    task = wall.bulk.delete([coffee, herb])
    result = await task
    assert result.ids == [coffee] and result.skipped == {herb: "not found"}
    await wait(lambda: _toast(wall, f"bulk:{result.turn_id}") is not None)
    assert _toast(wall, f"bulk:{result.turn_id}").text == "已删除 1 条记忆（跳过 1 条：已不在 1 条）"
    assert coffee not in populated_store.all_items()  # the person may delete a locked memory


# ── a theme's header menu ─────────────────────────────────────────────


async def test_renaming_a_theme_and_merging_into_an_existing_one(wall, populated_store, wait):
    await wall.reload()
    wall.set_collapsed("工作", True)
    wall.set_theme_color("工作", "#336699")
    menu = wall.actions.theme_menu("工作", False, wall)
    rename = _menu_actions(menu)["rename"]
    assert rename.text() == "重命名主题…"
    rename.trigger()
    menu.close()
    dialog = wall.actions.active_dialog
    assert dialog.objectName() == "RenameThemeDialog" and dialog.textValue() == "工作"
    dialog.setTextValue("职业")
    dialog.accept()
    await wait(lambda: wall.section("职业") is not None and wall.section("工作") is None, message="renamed")
    assert {item.theme for item in populated_store.all_items().values()} == {"品味", "职业", "家人"}
    assert wall.section("职业").is_collapsed() and wall.theme_colors.color("职业") == "#336699"  # its look too

    dialog = wall.bulk.ask_rename_theme("家人")
    dialog.setTextValue("职业")  # exists: asks first, 取消 by default
    dialog.accept()
    box = wall.actions.active_dialog
    assert isinstance(box, QMessageBox) and box.objectName() == "MergeThemesDialog"
    assert box.defaultButton().text() == "取消"
    next(b for b in box.buttons() if b.objectName() == "confirm").click()
    await wait(lambda: wall.section("家人") is None, message="merged into 职业")
    assert wall.model.theme_counts() == {"品味": 3, "职业": 3}
    await wait(lambda: (t := _toast(wall, "bulk:")) is not None and "并入" in t.text)
    _toast(wall, "bulk:").action_button.click()
    await wait(lambda: wall.section("家人") is not None, message="the merge undone")


async def test_a_renamed_theme_keeps_its_fold_and_its_own_colour_and_an_undo_gives_them_back(
        wall, populated_store, wait):
    """After 「工作」 is renamed 「职场」 its section looks as it did: folded or not as it was, in the
    colour it had (its palette colour, not only one the person picked), whatever an earlier theme named
    「职场」 left remembered; an undo of the rename gives the old name back its look."""
    await wall.reload()
    wall.state.set_collapsed("职场", True)  # a theme of that name, long gone, was folded and coloured
    wall.set_theme_color("职场", "#aa5500")
    wall.set_collapsed("家人", True)
    section = wall.section("工作")
    assert not section.is_collapsed()
    QTest.mouseClick(section.arrow, Qt.MouseButton.LeftButton)  # folded by the person
    assert section.is_collapsed()
    colour = wall.theme_colors.color("工作")
    others = {wall.theme_colors.color(t) for t in ("品味", "家人")}

    dialog = wall.bulk.ask_rename_theme("工作")
    dialog.setTextValue("职场")
    dialog.accept()
    await wait(lambda: wall.section("职场") is not None and wall.section("工作") is None, message="renamed")
    renamed = wall.section("职场")
    assert renamed.is_collapsed()
    assert wall.theme_colors.color("职场") == colour and renamed.swatch.color().name() == colour
    assert colour not in others
    slot = wall.theme_colors.slot("职场")
    assert wall.state.color_slots()["职场"] == slot and "工作" not in wall.state.color_slots()  # for the next run
    QTest.mouseClick(renamed.arrow, Qt.MouseButton.LeftButton)  # unfolded under its new name

    await wait(lambda: _toast(wall, "bulk:") is not None and "改名为" in _toast(wall, "bulk:").text)
    _toast(wall, "bulk:").action_button.click()
    await wait(lambda: wall.section("工作") is not None and wall.section("职场") is None, message="undone")
    assert wall.section("工作").is_collapsed()  # as it was under that name
    assert wall.theme_colors.color("工作") == colour

    dialog = wall.bulk.ask_rename_theme("家人")
    dialog.setTextValue("亲人")
    dialog.accept()
    await wait(lambda: wall.section("亲人") is not None, message="家人 renamed")
    assert wall.section("亲人").is_collapsed()
    wall.set_collapsed("工作", False)  # and the other way: an unfolded theme renamed to a remembered-folded name
    wall.state.set_collapsed("职场", True)
    dialog = wall.bulk.ask_rename_theme("工作")
    dialog.setTextValue("职场")
    dialog.accept()
    await wait(lambda: wall.section("职场") is not None, message="工作 renamed again")
    assert not wall.section("职场").is_collapsed()  # unfolded, as 工作 was when renamed


async def _rename(wall, old: str, new: str, wait) -> None:
    dialog = wall.bulk.ask_rename_theme(old)
    dialog.setTextValue(new)
    dialog.accept()
    await wait(lambda: wall.section(new) is not None and wall.section(old) is None, message=f"{old} renamed {new}")


async def test_a_theme_made_later_under_a_renamed_themes_old_name_has_a_colour_of_its_own(
        wall, populated_store, wait):
    """「工作」 (its colour picked) is renamed 「职场」; later Sonetto files a memory under 「工作」 again:
    that new theme showed 职场's colour (both names held one slot and one picked colour until the app
    restarted, and the saved state kept them shared for the next run). Now it gets a colour of its own,
    and a colour picked for either stays that theme's."""
    await wall.reload()
    wall.set_theme_color("工作", "#336699")
    await _rename(wall, "工作", "职场", wait)
    assert wall.theme_colors.color("职场") == "#336699"

    populated_store.add("周五要交季度报告", "工作")
    await wait(lambda: wall.section("工作") is not None, message="a new 工作")
    colours = {t: wall.theme_colors.color(t) for t in wall.model.theme_counts()}
    assert colours["职场"] == "#336699" and colours["工作"] != "#336699"
    assert len(set(colours.values())) == 4  # 品味, 家人, 职场 and the new 工作: four colours
    assert wall.section("工作").swatch.color().name() == colours["工作"]
    slots = wall.state.color_slots()
    assert slots["工作"] != slots["职场"] and "工作" not in wall.state.custom_colors()  # the next run too
    wall.set_theme_color("工作", "#aa5500")
    assert wall.theme_colors.color("职场") == "#336699"
    wall.set_theme_color("职场", None)
    assert wall.theme_colors.color("工作") == "#aa5500"


async def test_an_undo_of_a_rename_gives_the_colours_back_and_frees_the_new_name(wall, populated_store, wait):
    """An undo of 「工作」 -> 「职场」 gives 工作 its colours as they were (slot and picked colour);
    a theme made afterwards under 「职场」 is a new theme with a colour of its own (it took 工作's)."""
    await wall.reload()
    wall.set_theme_color("家人", "#336699")
    colour = wall.theme_colors.color("工作")
    slot = wall.theme_colors.slot("工作")
    await _rename(wall, "工作", "职场", wait)
    assert "工作" not in wall.state.color_slots()  # given up, not shared with 职场 in the next run

    await wait(lambda: _toast(wall, "bulk:") is not None and "改名为" in _toast(wall, "bulk:").text)
    _toast(wall, "bulk:").action_button.click()
    await wait(lambda: wall.section("工作") is not None and wall.section("职场") is None, message="undone")
    assert wall.theme_colors.color("工作") == colour and wall.theme_colors.slot("工作") == slot
    assert wall.section("工作").swatch.color().name() == colour
    assert wall.state.color_slots()["工作"] == slot and "职场" not in wall.state.color_slots()

    populated_store.add("想换个工作环境", "职场")
    await wait(lambda: wall.section("职场") is not None, message="a new 职场")
    colours = {t: wall.theme_colors.color(t) for t in wall.model.theme_counts()}
    assert colours["工作"] == colour and len(set(colours.values())) == 4


async def test_a_theme_made_later_under_a_folded_renamed_themes_old_name_starts_unfolded(wall, populated_store, wait):
    """A folded 「家人」 renamed 「亲人」 left 家人 remembered as folded: a theme Sonetto filed later under
    家人 started folded (its cards out of sight). Now the old name gives its fold up once its cards have
    moved; an undo of the rename gives it back, and the name the undo empties gives its own up too."""
    await wall.reload()
    wall.set_collapsed("家人", True)
    await _rename(wall, "家人", "亲人", wait)
    assert wall.section("亲人").is_collapsed()
    assert "家人" not in wall.state.collapsed()  # the next run too
    populated_store.add("表妹下个月结婚", "家人")
    await wait(lambda: wall.section("家人") is not None, message="a new 家人")
    assert not wall.section("家人").is_collapsed()

    wall.set_collapsed("工作", True)
    await _rename(wall, "工作", "职场", wait)
    assert "工作" not in wall.state.collapsed() and wall.section("职场").is_collapsed()
    await wait(lambda: _toast(wall, "bulk:") is not None and "工作" in _toast(wall, "bulk:").text)
    _toast(wall, "bulk:").action_button.click()  # the undo: 工作 folded as it was
    await wait(lambda: wall.section("工作") is not None and wall.section("职场") is None, message="undone")
    assert wall.section("工作").is_collapsed() and "工作" in wall.state.collapsed()
    assert "职场" not in wall.state.collapsed()
    populated_store.add("想换个工作环境", "职场")
    await wait(lambda: wall.section("职场") is not None, message="a new 职场")
    assert not wall.section("职场").is_collapsed()


async def test_a_theme_name_typed_too_long_is_held_to_the_limit_not_refused_after_the_dialog_closed(
        wall, populated_store, wait):
    """新主题… and 重命名主题… stop at a theme's length limit as the edit dialog's theme does: the store
    refused a longer name only after the dialog had closed (what was typed lost, a developer's message
    in the toast)."""
    from sonetto_desktop.memory.item import MAX_THEME_CHARS

    await wall.reload()
    failures = []
    wall.service.operation_failed.connect(failures.append)
    cat = populated_store.ids["有一只叫年糕的橘猫"]
    long_name = "很长的主题" * 30
    dialog = wall.actions.ask_new_theme([cat])
    dialog.setTextValue(long_name)
    assert len(dialog.textValue()) == MAX_THEME_CHARS
    dialog.accept()
    await wait(lambda: populated_store.get(cat).theme == long_name[:MAX_THEME_CHARS], message="moved")
    dialog = wall.bulk.ask_rename_theme("工作")
    dialog.setTextValue("另一个" + long_name)
    assert len(dialog.textValue()) == MAX_THEME_CHARS
    dialog.accept()
    await wait(lambda: wall.section("工作") is None, message="renamed")
    await wall.service.drain()
    assert failures == []


async def test_undo_of_a_bulk_action_refuses_when_a_card_changed_since(wall, populated_store, wait):
    await wall.reload()
    coffee, herb = populated_store.ids["喜欢手冲咖啡，不加糖"], populated_store.ids["讨厌香菜"]
    result = await wall.bulk.move([coffee, herb], "家人")
    assert sorted(result.ids) == sorted([coffee, herb])
    toast = _toast(wall, f"bulk:{result.turn_id}")
    assert toast.text == "已把 2 条移到「家人」"
    await wall.service.submit(EditMemory(coffee, "喜欢手冲咖啡，加一点奶", None))  # a later change to one of them
    toast.action_button.click()
    await wait(lambda: (t := _toast(wall, "operation-failed")) is not None and "没有撤销" in t.text,
               message="the refusal is said")
    said = _toast(wall, "operation-failed").text
    assert "「喜欢手冲咖啡，加一点奶」" in said and coffee not in said  # the card by its text, not its id
    assert populated_store.get(herb).theme == "家人" and populated_store.get(coffee).theme == "家人"  # nothing undone


async def test_every_entry_of_a_cards_menu_has_its_icon(wall, populated_store, wait):
    """置顶 / 取消置顶 was the one entry without an icon: its text stood out of the column."""
    await wall.reload()
    coffee = wall.section("品味").proxy.ids()[-1]
    for _ in range(2):  # 置顶, then 取消置顶
        menu = wall.actions.context_menu(coffee, [coffee])
        entries = [action for action in menu.actions() if not action.isSeparator()]
        assert entries and all(not action.icon().isNull() for action in entries), \
            [action.text() for action in entries if action.icon().isNull()]
        pin = _menu_actions(menu).get("pin") or _menu_actions(menu)["unpin"]
        pinned = pin.objectName() == "pin"
        pin.trigger()
        menu.close()
        await wait(lambda pinned=pinned: populated_store.get(coffee).pinned == pinned, message="pinned or unpinned")
