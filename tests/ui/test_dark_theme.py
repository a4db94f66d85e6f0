"""Dark theme without gaps (issue 30 item 10): after a live switch the wall's outline dots and the
pinned header's dot take the dark colours; Qt's own dialogs (a file dialog's sidebar) are dark; a
combo box's popup shows every item (the theme and language lists were cut at their last row)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QAbstractItemView, QFileDialog

from sonetto_desktop.config.settings import Settings
from sonetto_desktop.ui.settings.dialog import SettingsDialog
from sonetto_desktop.ui.wall.outline import COLOR_ROLE, THEME_ROLE


def _outline_colours(wall) -> dict[str, str]:
    outline = wall.outline
    return {outline.item(i).data(THEME_ROLE): outline.item(i).data(COLOR_ROLE) for i in range(outline.count())}


async def test_the_outline_and_pinned_header_follow_a_live_switch(theme, wall, populated_store, wait):
    for n in range(30):  # enough cards to scroll past a header
        populated_store.add(f"第 {n} 件关于工作的事，写得长一点好占地方", "工作")
    await wall.reload()
    await wall.loader.wait()
    wall.set_outline_shown(True)
    await wait(lambda: _outline_colours(wall), message="the outline filled")
    light = {t: wall.theme_colors.color(t, "light") for t in _outline_colours(wall)}
    assert _outline_colours(wall) == light
    wall.jump_to("工作")
    bar = wall.scroll.verticalScrollBar()
    bar.setValue(bar.value() + 60)  # into the section: its header is pinned
    await wait(lambda: wall.sticky.isVisible(), message="the pinned header")

    theme.set_setting("dark")
    dark = {t: wall.theme_colors.color(t, "dark") for t in light}
    assert dark != light
    await wait(lambda: _outline_colours(wall) == dark, message="the outline's dots in the dark colours")
    pinned = wall.section(wall.sticky.theme).swatch.color().name()
    await wait(lambda: wall.sticky.swatch.color.name() == pinned == dark[wall.sticky.theme],
               message="the pinned header's dot in the dark colour")


def test_qt_s_own_file_dialog_is_dark_in_the_dark_theme(theme, qtbot):
    theme.set_setting("dark")
    dialog = QFileDialog(None, "导出对话")
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    qtbot.addWidget(dialog)
    dialog.show()
    QCoreApplication.processEvents()
    sidebar = dialog.findChild(QAbstractItemView, "sidebar")
    assert sidebar is not None
    image = sidebar.viewport().grab().toImage()
    assert image.pixelColor(image.width() - 3, image.height() - 3).lightness() < 100
    assert dialog.palette().color(QPalette.ColorRole.Base).lightness() < 100
    theme.set_setting("light")
    assert dialog.palette().color(QPalette.ColorRole.Base).lightness() > 200


@pytest.mark.qt_log_ignore(r"^This plugin does not support (raise\(\)|grabbing the keyboard|propagateSizeHints\(\))$")
@pytest.mark.parametrize("mode", ["light", "dark"])
@pytest.mark.parametrize("combo", ["theme", "language"])
def test_a_combo_box_popup_shows_every_item(theme, qtbot, mode, combo):
    theme.set_setting(mode)
    dialog = SettingsDialog(Settings())
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.wait(200)  # shown and polished, as when a person gets to click it
    box = getattr(dialog, combo)
    box.setFocus()
    box.showPopup()
    view = box.view()
    view.setFocus()  # as in a real window, where the open popup has the keyboard
    qtbot.wait(300)  # the popup's items are laid out after it shows
    try:
        assert view.verticalScrollBar().maximum() == 0
        viewport = view.viewport().rect()
        for row in range(box.count()):
            rect = view.visualRect(box.model().index(row, 0))
            assert rect.top() >= viewport.top() and rect.bottom() <= viewport.bottom(), (
                row, box.itemText(row), rect, viewport)
    finally:
        box.hidePopup()


def _shown_button(qtbot, text: str, name: str = ""):
    """A push button on screen, and a function reading the colour of its face (inside the border,
    left of the text)."""
    from PySide6.QtWidgets import QPushButton

    button = QPushButton(text)
    button.setObjectName(name)
    qtbot.addWidget(button)
    button.resize(120, 34)
    button.show()
    qtbot.waitExposed(button)

    def face() -> str:
        image = button.grab().toImage()
        return image.pixelColor(6, image.height() // 2).name()

    return button, face


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_a_disabled_primary_button_does_not_look_clickable(theme, qtbot, mode):
    """The import preview's 开始导入 (a #PrimaryButton) stayed accent-blue when there was nothing to
    import and a click did nothing: disabled, it takes the disabled colour as a default button does."""
    theme.set_setting(mode)
    button, face = _shown_button(qtbot, "开始导入", "PrimaryButton")
    accent = face()
    button.setEnabled(False)
    QCoreApplication.processEvents()
    disabled = face()
    assert disabled != accent
    button.setEnabled(True)
    QCoreApplication.processEvents()
    assert face() == accent


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_a_conversation_imported_before_reads_greyed_in_the_preview(theme, qtbot, mode):
    """已导入 rows cannot be ticked: their text takes the muted colour (the dialogs' list rule gave
    every row the text colour, disabled or not)."""
    from dataclasses import replace

    from history_helpers import fixture
    from sonetto_desktop.history_import.plan import make_plan
    from sonetto_desktop.history_import.sources import read_history
    from sonetto_desktop.ui.dialogs.history_preview import ConversationList

    theme.set_setting(mode)
    widget = ConversationList()
    qtbot.addWidget(widget)
    plan = make_plan(read_history(fixture("chatgpt_conversations.json")))
    plan.rows = [replace(plan.rows[0], id="new", title="搬家去杭州的事"),
                 replace(plan.rows[0], id="old", title="搬家去杭州的事", state="imported")]
    widget.show_plan(plan, set())
    widget.resize(700, 200)
    widget.show()
    qtbot.waitExposed(widget)
    image = widget.viewport().grab().toImage()
    ratio = image.width() / max(1, widget.viewport().width())

    def ink(item) -> int:
        """How far the title's strongest pixel is from the background, in lightness."""
        rect = widget.visualRect(item.index)
        background = image.pixelColor(int((rect.right() - 2) * ratio), int(rect.center().y() * ratio)).lightness()
        x0, x1 = int((rect.left() + 30) * ratio), int((rect.left() + 200) * ratio)
        return max(abs(image.pixelColor(x, y).lightness() - background)
                   for x in range(x0, x1) for y in range(int(rect.top() * ratio), int(rect.bottom() * ratio)))

    pending, imported = widget.rows()
    assert imported.text(4) == "已导入" and not imported.flags() & Qt.ItemFlag.ItemIsEnabled
    assert ink(imported) < ink(pending) - 40


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_a_disabled_button_sinks_into_the_window(theme, qtbot, mode):
    """A plain button that cannot be clicked (回收站's 永久删除 with nothing chosen, 历史's 打开这段对话
    for an imported memory) showed the enabled button's face with grey text: now it is flat, the
    window's colour."""
    from sonetto_desktop.ui.theme import tokens

    theme.set_setting(mode)
    button, face = _shown_button(qtbot, "永久删除")
    enabled = face()
    button.setEnabled(False)
    QCoreApplication.processEvents()
    assert face() == tokens(mode)["window_bg"] != enabled
