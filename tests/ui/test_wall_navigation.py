"""Finding your way on a big wall (issue 15, item 6): an outline of themes with counts that jumps,
collapsible theme headers remembered across runs, a sticky header for the theme being read."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt

from sonetto_desktop.ui.wall.memory_wall import MemoryWall


def _fill(store, themes=12, per=12):
    for t in range(themes):
        for n in range(per + t):
            store.add(f"主题{t:02d}的第{n}条记忆：写一句中等长度的话", f"主题{t:02d}")


async def test_outline_lists_themes_with_counts_and_a_click_jumps(wall, populated_store, qtbot, wait):
    _fill(populated_store)
    await wall.reload()
    wall.resize(900, 500)
    await wait(lambda: wall.outline.isVisible())
    themes = wall.outline.themes()
    assert themes == [s.theme for s in wall.visible_sections()]
    assert wall.outline.item_for("主题05").text() == "主题05  17"
    bar = wall.scroll.verticalScrollBar()
    assert bar.value() == 0
    item = wall.outline.item_for("主题03")
    qtbot.mouseClick(wall.outline.viewport(), Qt.MouseButton.LeftButton, pos=wall.outline.visualItemRect(item).center())
    section = wall.section("主题03")
    assert bar.value() == min(section.y(), bar.maximum()) > 0
    assert wall.current_theme() == "主题03"


async def test_a_narrow_wall_hides_the_outline_until_there_is_room(wall, populated_store, wait):
    await wall.reload()
    wall.resize(420, 500)
    await wait(lambda: not wall.outline.isVisible())
    wall.resize(900, 500)
    await wait(lambda: wall.outline.isVisible())
    wall.outline_action.trigger()  # the person hides it
    assert not wall.outline.isVisible() and not wall.outline_action.isChecked()


async def test_collapsing_a_theme_hides_its_cards_and_is_remembered(service, populated_store, qtbot, tmp_path, wait):
    settings = QSettings(str(tmp_path / "ui-state.ini"), QSettings.Format.IniFormat)
    wall = MemoryWall(service, ui_state=settings)
    qtbot.addWidget(wall)
    wall.resize(900, 600)
    wall.show()
    await wall.reload()
    section = wall.section("品味")
    height = section.sizeHint().height()
    qtbot.mouseClick(section.header, Qt.MouseButton.LeftButton)
    assert section.is_collapsed() and section.view.isHidden()
    assert section.sizeHint().height() < height
    assert section.count_label.text() == "3"  # the count stays in the header
    again = MemoryWall(service, ui_state=QSettings(str(tmp_path / "ui-state.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(again)
    again.show()
    await again.reload()
    assert again.section("品味").is_collapsed() and not again.section("工作").is_collapsed()
    again.section("品味").arrow.click()
    assert not again.section("品味").is_collapsed()
    from sonetto_desktop.ui.wall.state import WallState

    stored = WallState(QSettings(str(tmp_path / "ui-state.ini"), QSettings.Format.IniFormat))
    assert "品味" not in stored.collapsed()


async def test_revealing_a_card_in_a_collapsed_theme_opens_it(wall, populated_store):
    await wall.reload()
    wall.set_collapsed("工作", True)
    rust = populated_store.ids["正在用 Rust 重写调度服务"]
    assert wall.reveal(rust)
    assert not wall.section("工作").is_collapsed()


async def test_the_theme_being_read_stays_named_at_the_top(wall, populated_store, qtbot, wait):
    _fill(populated_store, themes=4, per=30)
    await wall.reload()
    wall.resize(700, 400)
    await wait(lambda: wall.scroll.verticalScrollBar().maximum() > 0)
    assert wall.sticky.isHidden()  # the first header is in view
    first = wall.visible_sections()[0]
    wall.scroll.verticalScrollBar().setValue(first.y() + first.header.height() + 150)
    await wait(lambda: wall.sticky.isVisible(), message="sticky header")
    assert wall.sticky.theme == first.theme
    assert wall.sticky.title.text() == first.theme
    assert wall.sticky.swatch.color.name() == first.swatch.color().name()  # the theme's colour dot
    assert wall.sticky.geometry().top() == 0
    qtbot.mouseClick(wall.sticky, Qt.MouseButton.LeftButton)  # collapses the theme, back at its header
    assert first.is_collapsed()
    assert wall.scroll.verticalScrollBar().value() == min(first.y(), wall.scroll.verticalScrollBar().maximum())


async def test_a_narrow_wall_jumps_to_a_theme_from_the_view_menu(wall, populated_store, wait):
    _fill(populated_store, themes=6, per=20)
    await wall.reload()
    wall.resize(420, 400)
    await wait(lambda: not wall.outline.isVisible())
    menu = wall.toolbar.jump_menu
    menu.aboutToShow.emit()
    targets = {a.data(): a for a in menu.actions()}
    assert list(targets) == [s.theme for s in wall.visible_sections()]
    assert targets["主题04"].text() == "主题04  24"
    targets["主题04"].trigger()
    assert wall.scroll.verticalScrollBar().value() == min(wall.section("主题04").y(),
                                                          wall.scroll.verticalScrollBar().maximum()) > 0


async def test_a_scroll_anchor_and_a_selection_carry_over_to_a_new_wall(wall, service, populated_store, qtbot, wait):
    # What a language switch does: the wall is built again, its cards laid out anew.
    _fill(populated_store)
    await wall.reload()
    wall.resize(900, 500)
    bar = wall.scroll.verticalScrollBar()
    await wait(lambda: bar.maximum() > 0)
    wall.jump_to("主题04")
    bar.setValue(bar.value() + 37)
    anchor = wall.scroll_anchor()
    assert anchor == ("主题04", 37)
    picked = [wall.visible_ids("主题02")[3], wall.visible_ids("主题07")[1]]

    again = MemoryWall(service)
    qtbot.addWidget(again)
    again.resize(900, 500)
    again.show()
    await again.reload()
    await again.loader.wait()
    again.select_ids([*picked, "no-such-id"])  # an id not on the wall is skipped
    assert sorted(again.selected_ids()) == sorted(picked)
    again.scroll_to_anchor(*anchor)
    assert again.scroll.verticalScrollBar().value() == again.section("主题04").y() + 37
    assert again.scroll_anchor() == anchor
    again.scroll_to_anchor("a theme that is gone", 12)  # back to the top, plus the offset
    assert again.scroll.verticalScrollBar().value() == 12


def _painted(outline, theme: str) -> str:
    """The text a row of the outline paints, as the style draws it: the delegate's text for the row,
    elided (in the view's elide mode) to the room the style gives the text."""
    from PySide6.QtWidgets import QStyle, QStyleOptionViewItem

    index = outline.indexFromItem(outline.item_for(theme))
    option = QStyleOptionViewItem()
    outline.initViewItemOption(option)
    option.rect = outline.visualItemRect(outline.item_for(theme))
    outline.itemDelegate().initStyleOption(option, index)
    style = outline.style()
    room = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, option, outline).width()
    room -= 2 * (style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, outline) + 1)
    return option.fontMetrics.elidedText(option.text, option.textElideMode, room)


def test_the_outline_keeps_a_right_to_left_themes_count_on_its_right_and_a_gap_before_it(qtbot):
    """Edges 18 item 5: a Hebrew theme "עברית" showed its count on its left (the name's direction took
    the count along), and while searching "English  1 / 188" was cut to "English…1 / 188" (no gap)."""
    from PySide6.QtGui import QTextLayout, QTextOption

    from sonetto_desktop.ui.wall.navigation import OUTLINE_WIDTH
    from sonetto_desktop.ui.wall.outline import WallOutline

    outline = WallOutline()
    qtbot.addWidget(outline)
    outline.setFixedWidth(OUTLINE_WIDTH)
    outline.resize(OUTLINE_WIDTH, 300)
    outline.show()
    rows = [("猫", "3"), ("English", "1 / 188"), ("עברית", "12"), ("一个特别特别特别长的主题名字", "1,234")]
    outline.set_themes([(theme, count, "#3366cc") for theme, count in rows])
    for theme, count in rows:  # (the rows were as wide as the first one: longer ones cut, wider ones clipped)
        painted = _painted(outline, theme)
        assert painted.endswith("  " + count) and not painted.endswith("   " + count), (theme, painted)
        assert outline.visualItemRect(outline.item_for(theme)).right() < outline.viewport().width(), theme
    painted = _painted(outline, "עברית")
    layout = QTextLayout(painted, outline.font())
    option = QTextOption()
    option.setTextDirection(Qt.LayoutDirection.LeftToRight)  # (the view's direction)
    layout.setTextOption(option)
    layout.beginLayout()
    line = layout.createLine()
    layout.endLayout()
    name_x = line.cursorToX(painted.index("ע"))
    count_x = line.cursorToX(painted.index("12"))
    name_x, count_x = (v[0] if isinstance(v, tuple) else v for v in (name_x, count_x))
    assert count_x > name_x, (painted, name_x, count_x)  # the count is on the name's right, as for every theme


async def test_a_theme_holding_a_direction_control_reads_as_written_on_the_wall(wall, populated_store, wait):
    """A theme "资料\u202e见下" (an override pasted with it) read "资料下见" in its section's header, the sticky header
    and the outline: each shows the control as the editor does, a mark; the theme keeps what was written."""
    populated_store.add("网址见下", "资料\u202e见下")
    await wall.reload()
    wall.resize(900, 500)
    await wait(lambda: wall.outline.isVisible() and wall.section("资料\u202e见下") is not None)
    assert wall.section("资料\u202e见下").title.text() == "资料⬚见下"
    assert _painted(wall.outline, "资料\u202e见下").startswith("资料⬚见下")
    wall.sticky.show_theme("资料\u202e见下", "1", 400)
    assert wall.sticky.title.text() == "资料⬚见下" and wall.sticky.theme == "资料\u202e见下"
