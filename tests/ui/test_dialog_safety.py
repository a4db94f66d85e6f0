"""Dialogs keep what a person typed and never lose data on a stray key (issue 15 items 10, 11;
issue 11 items 12 and 18): Esc on a changed form asks first, the trash's destructive actions are
never the default, memory text is plain text, descriptions have a visible limit."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QPushButton

from helpers import activate
from shell_fixtures import OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS
from sonetto_desktop.memory.changes import Turn
from sonetto_desktop.memory.item import MAX_DESCRIPTION_CHARS
from sonetto_desktop.presentation.cards import make_card
from sonetto_desktop.ui.dialogs.edit import EditDialog
from sonetto_desktop.ui.dialogs.history import HistoryDialog
from sonetto_desktop.ui.dialogs.merge import MergeDialog
from sonetto_desktop.ui.dialogs.trash import TrashDialog


def _shown(qtbot, dialog):
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def _question(dialog, name):
    boxes = [box for box in dialog.findChildren(QMessageBox, name) if box.isVisible()]
    assert len(boxes) <= 1
    return boxes[0] if boxes else None


# ── item 10: Esc on a filled form ───────────────────────────────────────


def test_esc_on_an_unchanged_form_closes_silently(qtbot):
    dialog = _shown(qtbot, EditDialog(description="讨厌香菜", theme="品味"))
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert not dialog.isVisible()
    assert _question(dialog, "DiscardQuestion") is None


def test_esc_on_a_filled_form_asks_and_keeps_the_text(qtbot):
    dialog = _shown(qtbot, EditDialog(creating=True))
    dialog.description_edit.setPlainText("喜欢在雨天听爵士")
    dialog.theme_edit.setText("音乐")
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    box = _question(dialog, "DiscardQuestion")
    assert dialog.isVisible() and box is not None
    assert box.defaultButton().objectName() == "DiscardKeep"  # Enter keeps editing
    box.defaultButton().click()
    assert dialog.isVisible() and dialog.description_edit.toPlainText() == "喜欢在雨天听爵士"

    dialog.close()  # the window's close button asks too
    box = _question(dialog, "DiscardQuestion")
    assert dialog.isVisible() and box is not None
    box.findChild(QPushButton, "DiscardConfirm").click()
    assert not dialog.isVisible()


# ── Ctrl+Enter saves; Enter is a new line ─────────────────────────────


async def test_ctrl_enter_saves_a_memory_dialog_and_enter_stays_a_new_line(qtbot, wait):
    """A multi-line editor's dialog saved only by a click on 保存 (Ctrl+Enter typed a new line):
    Ctrl+Enter (the main keyboard's Return or the keypad's Enter) is the same as the click, the
    button's tooltip says so, and a plain Enter still breaks the line."""
    for key, modifiers in ((Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier),
                           (Qt.Key.Key_Enter, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.KeypadModifier)):
        dialog = _shown(qtbot, EditDialog(description="讨厌香菜", theme="品味"))
        await activate(dialog, wait)
        ok = dialog.buttons.button(dialog.buttons.StandardButton.Ok)
        text = dialog.description_edit
        text.setFocus()
        qtbot.keyClick(text, Qt.Key.Key_Return)
        qtbot.keyClicks(text, "no onions")
        assert dialog.isVisible() and text.toPlainText() == "讨厌香菜\nno onions"
        qtbot.keyClick(text, key, modifiers)
        assert not dialog.isVisible() and dialog.result() == dialog.DialogCode.Accepted
        assert dialog.values()[0] == "讨厌香菜\nno onions"  # saved as typed, no new line added
        assert "Ctrl+Enter" in ok.toolTip()
    unchanged = _shown(qtbot, EditDialog(description="讨厌香菜", theme="品味"))
    await activate(unchanged, wait)
    qtbot.keyClick(unchanged.description_edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert unchanged.isVisible() and "还没有改动" in unchanged.hint.text()  # as a click on a disabled 保存


# ── issue 11 item 18: the description's limit, visible ─────────────────


def test_description_counter_shows_the_domain_limit_and_blocks_ok(qtbot):
    dialog = _shown(qtbot, EditDialog(creating=True, theme="长文"))
    ok = dialog.buttons.button(dialog.buttons.StandardButton.Ok)
    dialog.description_edit.setPlainText("猫" * 12)
    assert dialog.counter.text() == f"12 / {MAX_DESCRIPTION_CHARS:,}" and dialog.counter.isVisible()
    assert ok.isEnabled()
    dialog.description_edit.setPlainText("猫" * (MAX_DESCRIPTION_CHARS + 1))
    assert dialog.counter.property("over") is True
    assert not ok.isEnabled() and "太长" in dialog.hint.text()
    dialog.accept()
    assert dialog.isVisible()  # nothing typed is lost


def _paste(box, text: str) -> None:
    from PySide6.QtGui import QGuiApplication

    QGuiApplication.clipboard().setText(text)
    box.paste()


@pytest.mark.parametrize("which", ["edit", "merge"])
def test_a_megabyte_pasted_into_a_memory_is_refused_and_said(qtbot, which):
    """1 MB pasted into the editor's text box (a whole file copied by mistake): laying it out held the
    window 2.3 s, then ~1 s at each keystroke until it was deleted, for a text that can never be saved
    (5,000 characters at most). A paste that would make the box longer than a text one might still trim
    is refused, the box as it was, the hint saying why; a paste a little over the limit still goes in
    (the counter shows it over, to be cut)."""
    from sonetto_desktop.ui.dialogs.merge import MergeDialog

    if which == "edit":
        dialog = _shown(qtbot, EditDialog(description="喜欢手冲咖啡", theme="品味"))
    else:
        first = make_card("a1", "喜欢手冲咖啡", "品味", 0, "")
        second = make_card("b2", "不加糖", "品味", 0, "")
        dialog = _shown(qtbot, MergeDialog(first, [first, second], second=second))
    box = dialog.description_edit
    before = box.toPlainText()
    box.moveCursor(box.textCursor().MoveOperation.End)
    _paste(box, "长" * 1_000_000)
    assert box.toPlainText() == before
    assert "1,000,000" in dialog.hint.text() and f"{MAX_DESCRIPTION_CHARS:,}" in dialog.hint.text()
    _paste(box, "长" * (MAX_DESCRIPTION_CHARS + 200))
    assert box.toPlainText().startswith(before) and len(box.toPlainText()) == len(before) + MAX_DESCRIPTION_CHARS + 200
    assert dialog.counter.over() and "没有粘贴" not in dialog.hint.text()
    assert "太长" in dialog.hint.text() or which == "merge"  # (the merge dialog: the counter says it)


# ── issue 11 item 12: memory text is plain text in history and merge ───

HOSTILE = "<img src='file:///etc/passwd'><b>粗体</b><a href='smb://x/y'>链接</a>"


async def test_history_shows_memory_text_as_plain_text(service, populated_store, qtbot):
    memory_id = populated_store.add(HOSTILE, "测试")
    dialog = _shown(qtbot, HistoryDialog(service, memory_id))
    await dialog.wait_loaded()
    assert dialog.current_label.textFormat() == Qt.TextFormat.PlainText
    assert "<img src='file:///etc/passwd'>" in dialog.current_label.text()
    assert "<img src='file:///etc/passwd'>" in dialog.diff.toPlainText()
    assert not dialog.diff.openLinks() and not dialog.diff.openExternalLinks()


def _as_shown(tip: str) -> str:
    """A tooltip's text as Qt shows it (it reads a tooltip that looks like markup as rich text)."""
    from PySide6.QtGui import QTextDocument

    document = QTextDocument()
    document.setHtml(tip)
    return document.toPlainText()


@pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS)  # the tooltip's window
async def test_a_cards_tooltip_shows_its_text_as_plain_text(wall, populated_store, wait):
    """The card's tooltip (a real tooltip event on the card): the tags are shown, not applied; no image is
    loaded; the line break stays."""
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QHelpEvent, QTextDocument
    from PySide6.QtWidgets import QApplication, QToolTip

    memory_id = populated_store.add("<b>周五</b>前交报告\n第二行<img src='file:///etc/passwd'>", "工作")
    await wall.reload()
    await wait(lambda: not wall.loading() and wall.section("工作") is not None
               and wall.section("工作").proxy.index_of(memory_id).isValid())
    view = wall.section("工作").view
    center = view.visualRect(view.proxy.index_of(memory_id)).center()
    QApplication.sendEvent(view.viewport(), QHelpEvent(QEvent.Type.ToolTip, center, view.viewport().mapToGlobal(center)))
    label = next(w for w in QApplication.topLevelWidgets() if w.objectName() == "qtooltip_label")
    shown = "".join(document.toPlainText() for document in label.findChildren(QTextDocument))
    QToolTip.hideText()
    assert shown.startswith("<b>周五</b>前交报告\n第二行<img src='file:///etc/passwd'>\n\n"), shown


async def test_trash_and_history_tooltips_show_memory_text_as_plain_text(service, populated_store, qtbot):
    text = HOSTILE + "\n第二行"
    memory_id = populated_store.add(text, "测试")
    history = _shown(qtbot, HistoryDialog(service, memory_id))
    await history.wait_loaded()
    assert _as_shown(history.current_label.toolTip()) == text
    populated_store.delete(memory_id, "测试")
    trash = _shown(qtbot, TrashDialog(service))
    await trash.wait_loaded()
    assert _as_shown(trash.list.item(0).toolTip()) == text


def test_merge_shows_memory_text_as_plain_text(qtbot):
    first = make_card("a1", HOSTILE, "测试", 0, "")
    second = make_card("b2", "讨厌香菜", "品味", 0, "")
    dialog = _shown(qtbot, MergeDialog(first, [first, second], second=second))
    assert dialog.first_label.textFormat() == Qt.TextFormat.PlainText
    assert "<b>粗体</b>" in dialog.first_label.text()


# ── history: who made a change and the words that caused it ─────────────


@pytest.mark.parametrize("actor, label", [("cli", "命令行"), ("mcp:Claude Desktop", "Claude Desktop（其他应用）"),
                                          ("external", "其他程序"), ("someapp", "其他程序（someapp）")])
async def test_history_names_every_kind_of_actor(service, populated_store, qtbot, actor, label):
    memory_id = populated_store.ids["讨厌香菜"]
    populated_store.update(memory_id, "改了", new_description="现在能吃一点香菜", actor=actor)
    dialog = _shown(qtbot, HistoryDialog(service, memory_id))
    await dialog.wait_loaded()
    head = dialog.list.item(0).text().split("\n")[0]
    assert f" · {label} · " in head


async def test_history_shows_the_turn_excerpt(service, populated_store, qtbot):
    memory_id = populated_store.ids["讨厌香菜"]
    populated_store.update(memory_id, "用户说的", new_description="现在能吃一点香菜", actor="agent",
                           turn=Turn("t1", "s1", "其实我最近开始吃香菜了"))
    dialog = _shown(qtbot, HistoryDialog(service, memory_id))
    await dialog.wait_loaded()
    dialog.list.setCurrentRow(0)
    assert "其实我最近开始吃香菜了" in dialog.diff.toPlainText()
    assert "其实我最近开始吃香菜了" in _as_shown(dialog.list.item(0).toolTip())


# ── item 11: the trash ──────────────────────────────────────────────────


async def test_trash_restore_works_without_clicking_a_row(service, populated_store, qtbot, wait):
    cat = populated_store.ids["有一只叫年糕的橘猫"]
    populated_store.delete(cat, "测试")
    dialog = _shown(qtbot, TrashDialog(service))
    await dialog.wait_loaded()
    assert dialog.restore_button.isEnabled()
    dialog.restore_button.click()
    await service.drain()
    assert populated_store.get(cat).description == "有一只叫年糕的橘猫"


async def test_destructive_trash_actions_are_never_default(service, populated_store, qtbot, wait):
    for text in ("有一只叫年糕的橘猫", "讨厌香菜"):
        populated_store.delete(populated_store.ids[text], "测试")
    dialog = _shown(qtbot, TrashDialog(service))
    await dialog.wait_loaded()
    for button in (dialog.purge_button, dialog.empty_button):
        assert not button.autoDefault() and not button.isDefault()
    dialog.restore_button.click()  # after a restore, Enter twice must not empty the trash
    await service.drain()
    await wait(lambda: len(dialog.ids()) == 1)
    dialog.empty_button.click()
    box = _question(dialog, "DestructiveQuestion")
    assert box is not None
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
    qtbot.keyClick(box, Qt.Key.Key_Return)
    await service.drain()
    assert len(populated_store.list_trash()) == 1  # still there


async def test_delete_forever_asks_first(service, populated_store, qtbot, wait):
    cat = populated_store.ids["有一只叫年糕的橘猫"]
    populated_store.delete(cat, "测试")
    dialog = _shown(qtbot, TrashDialog(service))
    await dialog.wait_loaded()
    dialog.purge_button.click()
    await service.drain()
    assert [row["id"] for row in populated_store.list_trash()] == [cat]
    box = _question(dialog, "DestructiveQuestion")
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
    box.findChild(QPushButton, "DestructiveConfirm").click()
    await service.drain()
    assert populated_store.list_trash() == []


async def test_merged_trash_entries_name_the_kept_memory_by_text(service, populated_store, qtbot):
    keep, gone = populated_store.ids["喜欢手冲咖啡，不加糖"], populated_store.ids["讨厌香菜"]
    populated_store.merge(keep, gone, "喜欢手冲咖啡，不加糖；讨厌香菜", "品味", "重复")
    dialog = _shown(qtbot, TrashDialog(service))
    await dialog.wait_loaded()
    text = dialog.list.item(0).text()
    assert keep not in text and "并入「喜欢手冲咖啡，不加糖；讨厌香菜」" in text and "重复" in text


async def test_trash_says_how_long_it_keeps_memories(service, qtbot, monkeypatch):
    monkeypatch.setattr(type(service), "trash_retention_days", property(lambda self: 30.0))
    dialog = _shown(qtbot, TrashDialog(service))
    await dialog.wait_loaded()
    assert dialog.retention.isVisible() and "30 天" in dialog.retention.text()


async def _trash_with_a_live_delete(service, populated_store, qtbot, wait, monkeypatch):
    """The cat and the Rust memory in the trash, the person picks the cat, then Sonetto deletes 讨厌香菜
    (a newer row, listed first): the dialog refills with every row one lower."""
    from sonetto_desktop.memory.stores import crud

    cat = populated_store.ids["有一只叫年糕的橘猫"]
    rust = populated_store.ids["正在用 Rust 重写调度服务"]
    coriander = populated_store.ids["讨厌香菜"]
    monkeypatch.setattr(crud, "now_iso", lambda: "2024-01-01T10:00:00")  # the person's deletions, earlier today
    populated_store.delete(cat, "测试")
    populated_store.delete(rust, "测试")
    monkeypatch.undo()
    dialog = _shown(qtbot, TrashDialog(service))
    await dialog.wait_loaded()
    dialog.list.setCurrentRow(dialog.ids().index(cat))
    assert dialog.selected_ids() == [cat]
    populated_store.delete(coriander, "过时", actor="agent")
    await wait(lambda: coriander in dialog.ids())
    await dialog.wait_loaded()
    return dialog, cat, rust, coriander


async def test_trash_selection_stays_on_its_memory_when_the_list_refills(service, populated_store, qtbot, wait,
                                                                         monkeypatch):
    dialog, cat, _rust, coriander = await _trash_with_a_live_delete(service, populated_store, qtbot, wait, monkeypatch)
    assert dialog.selected_ids() == [cat], f"selection jumped to {dialog.selected_ids()}"
    assert dialog.list.currentItem().data(Qt.ItemDataRole.UserRole) == cat
    dialog.restore_button.click()
    await service.drain()
    assert cat in populated_store.all_items() and coriander not in populated_store.all_items()


async def test_trash_keeps_a_multi_selection_when_the_list_refills(service, populated_store, qtbot, wait,
                                                                   monkeypatch):
    from sonetto_desktop.memory.stores import crud

    cat, rust = populated_store.ids["有一只叫年糕的橘猫"], populated_store.ids["正在用 Rust 重写调度服务"]
    monkeypatch.setattr(crud, "now_iso", lambda: "2024-01-01T10:00:00")
    for memory_id in (cat, rust, populated_store.ids["喜欢手冲咖啡，不加糖"]):
        populated_store.delete(memory_id, "测试")
    monkeypatch.undo()
    dialog = _shown(qtbot, TrashDialog(service))
    await dialog.wait_loaded()
    dialog.select_ids([cat, rust])
    populated_store.delete(populated_store.ids["讨厌香菜"], "过时", actor="agent")
    await wait(lambda: len(dialog.ids()) == 4)
    await dialog.wait_loaded()
    assert sorted(dialog.selected_ids()) == sorted([cat, rust])


async def test_delete_forever_after_the_list_refilled_deletes_the_memory_picked(service, populated_store, qtbot,
                                                                                 wait, monkeypatch):
    dialog, cat, rust, _ = await _trash_with_a_live_delete(service, populated_store, qtbot, wait, monkeypatch)
    dialog.purge_button.click()
    box = _question(dialog, "DestructiveQuestion")
    assert "有一只叫年糕的橘猫" in box.text()  # one memory: the question names it
    assert box.textFormat() == Qt.TextFormat.PlainText
    box.findChild(QPushButton, "DestructiveConfirm").click()
    await service.drain()
    trash = {row["id"] for row in populated_store.list_trash()}
    assert cat not in trash, "the cat, which the person picked, is still in the trash"
    assert rust in trash, "a memory the person did not pick was deleted for good"


async def test_delete_forever_of_a_long_memory_names_it_elided(service, populated_store, qtbot):
    memory_id = populated_store.add("<b>很长</b>" + "的记忆" * 60, "工作")
    populated_store.delete(memory_id, "测试")
    dialog = _shown(qtbot, TrashDialog(service))
    await dialog.wait_loaded()
    dialog.purge_button.click()
    text = _question(dialog, "DestructiveQuestion").text()
    assert "「<b>很长</b>的记忆" in text and "…」" in text and len(text) < 120


def test_esc_on_an_edited_merge_asks_first(qtbot):
    first = make_card("a1", "喜欢咖啡", "品味", 0, "")
    second = make_card("b2", "每天一杯咖啡", "品味", 0, "")
    dialog = _shown(qtbot, MergeDialog(first, [first, second], second=second))
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)  # only the prefilled text: closes at once
    assert not dialog.isVisible()
    dialog = _shown(qtbot, MergeDialog(first, [first, second], second=second))
    dialog.description_edit.setPlainText("每天早上一杯手冲咖啡")
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert dialog.isVisible() and _question(dialog, "DiscardQuestion") is not None


async def test_emptying_the_trash_keeps_what_was_deleted_while_the_question_was_open(service, populated_store,
                                                                                    qtbot, wait):
    """清空回收站 deletes for good what the person saw in the trash when they asked, not a memory Sonetto
    deleted while the question was open (nobody saw it there: it could never be restored)."""
    cat = populated_store.ids["有一只叫年糕的橘猫"]
    coriander = populated_store.ids["讨厌香菜"]
    populated_store.delete(cat, "测试")
    dialog = _shown(qtbot, TrashDialog(service))
    await dialog.wait_loaded()
    dialog.empty_button.click()
    box = _question(dialog, "DestructiveQuestion")
    assert box is not None and "1 条" in box.text()  # says how many it deletes for good
    populated_store.delete(coriander, "过时", actor="agent")
    await wait(lambda: coriander in dialog.ids())
    box.findChild(QPushButton, "DestructiveConfirm").click()
    await service.drain()
    assert [row["id"] for row in populated_store.list_trash()] == [coriander]


# ── a server's words in the settings' tooltips ─────────────────────────

NGINX = "<html>\n<head><title>502 Bad Gateway</title></head>\n<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center>\n</body>\n</html>"


async def test_a_servers_html_answer_is_shown_as_written_in_the_tests_tooltip(qtbot, llm_server):
    """A model server behind a proxy that answered its error page ("连接测试" with a server that answers
    garbage): the test's tooltip, the server's own words, showed the page rendered (its title gone, a
    heading in large type: a server's markup laid out in the window, an <img> it named loaded). It shows
    the words as the server wrote them, on the 模型 page and the 回忆 page's embeddings test alike."""
    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.ui.settings.dialog import SettingsDialog

    d = SettingsDialog(Settings(base_url=llm_server.base_url, model="test-model", api_key="sk-test"))
    qtbot.addWidget(d)
    llm_server.add_garbage(NGINX)
    await d.test_connection()
    assert d.test_result.text().startswith("✗") and "<title>502 Bad Gateway</title>" in _as_shown(d.test_result.toolTip())
    page = d.recall_page
    page.source_endpoint.setChecked(True)
    page.model.setText("scripted-embed")
    for _ in range(4):  # (a failing server is asked again)
        llm_server.add_embedding_error(500, NGINX)
    await page.test_embeddings()
    assert page.test_result.text().startswith("✗") and "<h1>502 Bad Gateway</h1>" in _as_shown(page.test_result.toolTip())


def test_a_saved_memory_to_import_is_shown_as_written_in_its_tooltip(qtbot):
    """ChatGPT's saved memories, as pasted or exported, are the person's words (often about code): the
    import's list laid a "<b>…</b>" out as rich text in the row's tooltip. It shows the words as written."""
    from sonetto_desktop.history_import.model import SavedMemory
    from sonetto_desktop.ui.dialogs.history_preview import SavedMemoryList

    text = "Prefers <b>bold</b> headings\nand <img src='file:///etc/passwd'> in notes"
    listed = SavedMemoryList()
    qtbot.addWidget(listed)
    listed.show_entries([SavedMemory(text)])
    assert _as_shown(listed.topLevelItem(0).toolTip(0)) == text


def _visual_order(edit) -> list[float]:
    """Where each character of the box's first line is drawn, left to right as laid out (x of each cursor place)."""
    block = edit.document().firstBlock()
    line = block.layout().lineAt(0)
    return [line.cursorToX(i)[0] for i in range(block.length())]


@pytest.mark.parametrize("which", ["edit", "merge"])
def test_typing_after_a_right_to_left_override_reads_as_typed_and_the_text_keeps_it(qtbot, which):
    """A memory holding a right-to-left override (U+202E, pasted from a web page): in its editor what the
    person typed after it showed reversed ("abc" as "cba"), with nothing on screen to say why. The control
    shows as a mark that does nothing to the text around it; the saved text keeps it where it was."""
    from PySide6.QtCore import QMimeData

    held = "网址\u202e见下"
    if which == "edit":
        dialog = _shown(qtbot, EditDialog(description=held, theme="资料"))
    else:
        first, second = make_card("a1", "网址", "资料", 0, ""), make_card("b2", "见下", "资料", 0, "")
        dialog = _shown(qtbot, MergeDialog(first, [first, second], second=second))
        dialog.description_edit.setPlainText(held)
    box = dialog.description_edit
    qtbot.waitExposed(dialog)
    box.moveCursor(box.textCursor().MoveOperation.End)
    qtbot.keyClicks(box, "abc")
    pasted = QMimeData()
    pasted.setText("\u202dxyz")  # a left-to-right override pasted: shown, not obeyed, too
    box.insertFromMimeData(pasted)
    qtbot.keyClicks(box, "def")
    shown = box.toPlainText()
    assert "\u202e" not in shown and "\u202d" not in shown, repr(shown)  # nothing on screen acts unseen
    assert shown.count("⬚") == 2 and "U+202E" in box.toolTip()  # marks, and what they are
    xs = _visual_order(box)
    typed = shown.index("abc")
    assert xs[typed] < xs[typed + 1] < xs[typed + 2] < xs[typed + 3], xs  # "abc" left to right, as typed
    after = shown.index("def")
    assert xs[after] < xs[after + 1] < xs[after + 2], xs
    text = dialog.values()[0 if which == "edit" else 2]
    assert text == "网址\u202e见下abc\u202dxyzdef"  # the saved text: what was written, controls kept
    if which == "edit":
        assert dialog.changes()[0] == "网址\u202e见下abc\u202dxyzdef"
        box.undo()  # (the typing, then the paste with its mark: one step each)
        box.undo()
        box.undo()
        assert dialog.values()[0] == held and not dialog.changed()  # unchanged: nothing to save
        box.selectAll()
        qtbot.keyClicks(box, "plain words")
        assert box.toolTip() == ""  # (no mark left: nothing to explain)


def _line_order(box) -> list[int]:
    """Where each cursor place of a one-line box is drawn, left to right (x of the cursor at each place)."""
    at = box.cursorPosition()
    xs = []
    for place in range(len(box.text()) + 1):
        box.setCursorPosition(place)
        xs.append(box.cursorRect().x())
    box.setCursorPosition(at)
    return xs


@pytest.mark.parametrize("which", ["edit", "merge"])
def test_a_direction_control_in_the_theme_or_the_reason_is_shown_as_a_mark_too(qtbot, which):
    """The editor's theme and reason boxes obeyed a right-to-left override (a theme "资料\u202e见下" read "资料下见",
    and what was typed after it came out reversed): they show it as the text's box does, a mark, and save it."""
    if which == "edit":
        dialog = _shown(qtbot, EditDialog(description="网址", theme="资料\u202e见下"))
    else:
        first, second = make_card("a1", "网址", "资料\u202e见下", 0, ""), make_card("b2", "见下", "资料", 0, "")
        dialog = _shown(qtbot, MergeDialog(first, [first, second], second=second))
    qtbot.waitExposed(dialog)
    theme, reason = dialog.theme_edit, dialog.reason_edit
    assert theme.text() == "资料⬚见下" and "U+202E" in theme.toolTip(), repr(theme.text())
    theme.end(False)
    qtbot.keyClicks(theme, "abc")
    shown = theme.text()
    typed = shown.index("abc")
    xs = _line_order(theme)
    assert xs[typed] < xs[typed + 1] < xs[typed + 2] < xs[typed + 3], (shown, xs)  # "abc" as typed
    reason.setFocus()
    reason.insert("\u202dxyz")  # (a paste: a left-to-right override with it)
    reason.insert("⬚def")  # (a ⬚ typed is a ⬚)
    assert reason.text() == "⬚xyz⬚def" and reason.toolTip(), repr(reason.text())
    values = dialog.values()
    saved_theme, saved_reason = (values[1], values[2]) if which == "edit" else (values[3], values[4])
    assert saved_theme == "资料\u202e见下abc" and saved_reason == "\u202dxyz⬚def", values
    theme.setSelection(0, 2)
    theme.insert("书")  # (text before the mark: the mark still stands for its control)
    assert dialog.values()[1 if which == "edit" else 3] == "书\u202e见下abc"
    theme.setSelection(0, 2)
    qtbot.keyClick(theme, Qt.Key.Key_Delete)  # the mark deleted deletes its control
    assert dialog.values()[1 if which == "edit" else 3] == "见下abc" and theme.toolTip() == ""
