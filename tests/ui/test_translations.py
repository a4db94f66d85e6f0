"""The English UI translation: complete (every string of sonetto_desktop/ui has English), and what
the app installs (``i18n.install_translators``) really turns the wall and toast texts into English."""

from __future__ import annotations

import ast
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication

from sonetto_desktop.ops import LockMany
from sonetto_desktop.memory import MemoryChange
from sonetto_desktop.memory.writer.events import WriterEvent
from sonetto_desktop.memory.errors import MemoryNotFound
from sonetto_desktop.ui.i18n import ui_language
from sonetto_desktop.ui.wall.memory_model import CardRole
from sonetto_desktop.ui.memory_service import describe_error
from sonetto_desktop.ui.notices.writer_toasts import toast_for

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "resources" / "translations" / "sonetto_en.ts"
UI = ROOT / "sonetto_desktop" / "ui"
PRESENTATION = ROOT / "sonetto_desktop" / "presentation"  # Qt-free texts, translated through the same files
PLACEHOLDER = re.compile(r"\{\w*\}|%\d+|%L?n")
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")


def _messages() -> dict[tuple[str, str], ET.Element]:
    messages = {}
    for context in ET.parse(TS).getroot().iter("context"):
        name = context.findtext("name")
        for message in context.iter("message"):
            messages[(name, message.findtext("source"))] = message.find("translation")
    return messages


def _calls_in_ui() -> list[tuple[str, int, ast.Call, str | None]]:
    """Every ``tr(...)`` / ``translate(...)`` call in the UI and presentation sources, with its enclosing class."""
    found = []
    for path in sorted([*UI.rglob("*.py"), *PRESENTATION.rglob("*.py")]):
        tree = ast.parse(path.read_text(encoding="utf-8"))

        def visit(node: ast.AST, cls: str | None, path: Path = path) -> None:
            for child in ast.iter_child_nodes(node):
                inner = child.name if isinstance(child, ast.ClassDef) else cls
                if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute):
                    if child.func.attr in ("tr", "translate"):
                        found.append((str(path.relative_to(UI.parent)), child.lineno, child, cls))
                elif isinstance(child, ast.Call) and isinstance(child.func, ast.Name) and child.func.id == "translate":
                    if child.args and isinstance(child.args[0], ast.Constant):  # presentation's translate(ctx, text)
                        found.append((str(path.relative_to(UI.parent)), child.lineno, child, cls))
                visit(child, inner, path)

        visit(tree, None)
    return found


def _without_count(text: str) -> list[str]:
    """A text's placeholders but its count (``%Ln``), sorted: what each numerus form must keep."""
    return sorted(found for found in PLACEHOLDER.findall(text) if found not in ("%n", "%Ln"))


def test_every_message_has_an_english_translation():
    messages = _messages()
    assert len(messages) > 150
    problems = []
    for (context, source), translation in messages.items():
        forms = [form.text or "" for form in translation.findall("numerusform")] if translation is not None else []
        text = " | ".join(forms) if forms else translation.text if translation is not None else None
        if translation is None or translation.get("type") or not (text or "").strip() or "" in forms:
            problems.append(f"{context}: {source!r} has no finished English")
        elif forms and any(_without_count(form) != _without_count(source) for form in forms) \
                or forms and "%Ln" not in forms[-1]:  # (each form says all; the singular may say "one" for %Ln)
            problems.append(f"{context}: {source!r} -> {text!r} changes the placeholders")
        elif not forms and sorted(PLACEHOLDER.findall(source)) != sorted(PLACEHOLDER.findall(text)):
            problems.append(f"{context}: {source!r} -> {text!r} changes the placeholders")
        elif CJK.search(text):
            problems.append(f"{context}: {source!r} -> {text!r} is still Chinese")
    assert not problems, "\n".join(problems)


def test_every_ui_string_is_literal_and_in_the_ts_file():
    """lupdate only sees literal strings: a wrapper or an f-string inside tr() would go untranslated."""
    messages = _messages()
    calls = _calls_in_ui()
    assert len(calls) > 150
    problems = []
    for filename, line, call, cls in calls:
        if getattr(call.func, "attr", "translate") == "tr":
            context, text = cls, call.args[0] if call.args else None
        else:
            context_node = call.args[0] if call.args else None
            context = context_node.value if isinstance(context_node, ast.Constant) else None
            text = call.args[1] if len(call.args) > 1 else None
        if context is None or not (isinstance(text, ast.Constant) and isinstance(text.value, str)):
            problems.append(f"{filename}:{line}: {ast.unparse(call)} is not a literal lupdate can read")
        elif (context, text.value) not in messages:
            problems.append(f"{filename}:{line}: {context}: {text.value!r} is missing from sonetto_en.ts")
    assert not problems, "\n".join(problems)


def test_without_the_translator_the_ui_stays_chinese(qapp):
    assert ui_language() == "zh"
    assert QCoreApplication.translate("MemoryWall", "撤销") == "撤销"
    assert toast_for(MemoryChange("merge", ("a", "b"), "agent")).text == "合并了两条记忆"


def test_wall_toast_and_error_strings_come_out_in_english(english):
    assert ui_language() == "en"
    assert QCoreApplication.translate("MemoryWall", "撤销") == "Undo"
    assert QCoreApplication.translate("MemoryWall", "已删除 {0} 条记忆").format(3) == "Deleted 3 memories"
    assert QCoreApplication.translate("WriterToasts", "合并了两条记忆") == "Merged two memories"
    card = {"description": "喜欢手冲咖啡", "theme": "品味", "hit": 0, "latest_update_time": ""}
    assert toast_for(MemoryChange("add", ("m1",), "agent", states={"m1": card})).text == "Remembered: 喜欢手冲咖啡"
    assert toast_for(MemoryChange("update", ("m1",), "agent")).text == "Updated a memory"
    assert toast_for(MemoryChange("import", ("m1", "m2"), "cli")).text == "Imported 2 memories"
    gave_up = toast_for(WriterEvent("gave_up", detail="timeout"))
    assert gave_up.text == "Gave up organising memories for this exchange: timeout"
    assert describe_error(MemoryNotFound("x")) == "This memory can't be found; it may have been deleted or moved."
    assert describe_error(ValueError("empty")) == "Invalid input: empty"


async def test_the_wall_speaks_english(english, service, populated_store, qtbot, wait):
    from sonetto_desktop.ui.wall.memory_wall import MemoryWall

    wall = MemoryWall(service)  # built after the translator, as the app builds it
    qtbot.addWidget(wall)
    wall.resize(900, 700)
    wall.show()
    await wall.reload()
    coffee = populated_store.ids["喜欢手冲咖啡，不加糖"]
    cat = populated_store.ids["有一只叫年糕的橘猫"]
    menu = wall.actions.context_menu(coffee, [coffee, cat])
    try:
        texts = [a.text() for a in menu.actions() if not a.isSeparator()]
        assert texts == ["Edit", "History", "Merge these 2", "Move to…", "Lock 2", "Pin 2 to the top", "Delete 2 memories",
                         "Copy"]
    finally:
        menu.close()
        menu.deleteLater()
    row = next(r for r in range(wall.model.rowCount()) if wall.model.index(r).data(CardRole.Id) == coffee)
    assert wall.model.index(row).data(CardRole.RelativeTime) == "just now"

    await wall.actions.delete_cards([coffee])
    await wait(lambda: any(t.text.startswith("Deleted: ") for t in wall.toasts.toasts()), message="delete toast")
    toast = next(t for t in wall.toasts.toasts() if t.text.startswith("Deleted: "))
    assert toast.text == "Deleted: 喜欢手冲咖啡，不加糖"
    assert toast.action_button.text() == "Undo"
    # stored in the one wording of its code (issue 30 item 12), shown in the UI's language
    from sonetto_desktop.presentation.reasons import render_reason

    assert [row["reason"] for row in populated_store.list_trash()] == ["手动删除"]
    assert render_reason("手动删除", "en") == "Deleted by hand"


def test_the_walls_count_and_a_writers_retry_read_as_english(english):
    """The wall's total said a bare "8" and a failed attempt said "第 1 次失败" in the English UI."""
    assert QCoreApplication.translate("MemoryWall", "{0} 条").format(8) == "8 memories"
    assert QCoreApplication.translate("MemoryWall", "1 条") == "1 memory"
    assert QCoreApplication.translate("MemoryWall", "{0} / {1} 条").format(2, 8) == "2 of 8"
    toast = toast_for(WriterEvent("failed", detail="timed out", attempt=2))
    assert toast.text == "Couldn't organise memories (attempt 2): timed out"


def test_a_writers_retry_says_which_attempt_in_chinese(qapp):
    assert toast_for(WriterEvent("failed", detail="连接超时", attempt=1)).text == "整理记忆第 1 次失败：连接超时"
    assert toast_for(WriterEvent("failed", detail="连接超时")).text == "整理记忆失败：连接超时"


CJK_TEXT = re.compile(r"[\u4e00-\u9fff]")


def _reason_lines(dialog) -> list[str]:
    """The reason line of every history row (the second line, under time · who · what)."""
    rows = [dialog.list.item(i).text().split("\n") for i in range(dialog.list.count())]
    return [row[1] for row in rows if len(row) > 1]




@pytest.mark.parametrize("ui", ["english", "chinese"])
async def test_the_app_s_reasons_follow_the_ui_language(request, ui, populated_store, service, qtbot, wait):
    """Issue 30 item 12: reasons the app writes are codes in one stored wording, shown in the UI's
    language — also ones stored before (the writer's, the command line's, an English UI's own)."""
    from sonetto_desktop.memory.changes import AGENT, CLI
    from sonetto_desktop.memory.operations import MemoryOperations
    from sonetto_desktop.memory.reasons import reason_text
    from sonetto_desktop.ui.dialogs.history import HistoryDialog
    from sonetto_desktop.ui.dialogs.trash import TrashDialog

    request.getfixturevalue(ui)
    ops = MemoryOperations(populated_store)
    mid = MemoryOperations(populated_store, actor=AGENT).add("用户喜欢爵士乐", "音乐", reason="记忆写入助手根据对话新增").ids[0]
    MemoryOperations(populated_store, actor=CLI).update(mid, description="用户很喜欢爵士乐", reason=reason_text("cli.update"))
    ops.lock_many([mid], True)  # 批量锁定, as the operations word it
    ops.update(mid, theme="爱好", reason="Edited by hand")  # what an English UI stored before
    ops.update(mid, theme="音乐", reason="我自己写的理由")  # a person's own words stay as written
    await service.submit(LockMany((mid,), False))
    dialog = HistoryDialog(service, mid)
    qtbot.addWidget(dialog)
    await dialog.wait_loaded()
    lines = _reason_lines(dialog)
    assert "我自己写的理由" in lines
    app_reasons = [line for line in lines if line != "我自己写的理由"]
    assert len(app_reasons) >= 5
    if ui == "english":
        assert not [line for line in app_reasons if CJK_TEXT.search(line)], app_reasons
        assert "Added by Sonetto from the conversation" in app_reasons and "Changed from the command line" in lines
    else:
        assert all(CJK_TEXT.search(line) for line in app_reasons), app_reasons
        assert "手动编辑" in lines and "命令行修改" in lines  # the English one, read back into its code
    dialog.close()

    ops.merge(populated_store.ids["讨厌香菜"], populated_store.ids["喜欢手冲咖啡，不加糖"], "讨厌香菜，咖啡不加糖", "品味",
              reason=reason_text("user.merge"))
    MemoryOperations(populated_store, actor=CLI).delete(populated_store.ids["有一只叫年糕的橘猫"],
                                                        reason=reason_text("cli.delete"))
    trash = TrashDialog(service)
    qtbot.addWidget(trash)
    await trash.wait_loaded()
    rows = [trash.list.item(i).text().split("\n")[1] for i in range(trash.list.count())]
    if ui == "english":
        assert any("Deleted from the command line" in row for row in rows), rows
        assert any("Merged by hand" in row for row in rows), rows  # the merge's reason inside "merged into"
    else:
        assert any("命令行删除" in row for row in rows) and any("手动合并" in row for row in rows), rows
    trash.close()


def test_qt_s_file_dialog_labels_are_chinese_in_the_chinese_ui(chinese, qtbot):
    from PySide6.QtWidgets import QFileDialog

    from sonetto_desktop.ui.widgets.file_dialogs import translated

    dialog = translated(QFileDialog(None, "导出对话"))
    qtbot.addWidget(dialog)
    for label in (QFileDialog.DialogLabel.LookIn, QFileDialog.DialogLabel.FileType):
        assert CJK_TEXT.search(dialog.labelText(label)), dialog.labelText(label)
    plain = QFileDialog(None, "导出对话")  # any file dialog (issue 38 item 9: the import's was English)
    qtbot.addWidget(plain)
    for label in (QFileDialog.DialogLabel.LookIn, QFileDialog.DialogLabel.FileType):
        assert CJK_TEXT.search(plain.labelText(label)), plain.labelText(label)


async def test_a_temporary_chat_s_title_is_english_in_the_english_ui(english, qapp, tmp_path, llm_server):
    from shell_fixtures import app_settings, running_app

    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        panel = app.window.chat_panel
        await panel.new_session(temporary=True)
        item = panel.session_list.currentItem()
        assert "Temporary chat" in item.text() and not CJK_TEXT.search(item.text()), item.text()


def test_counts_are_singular_or_plural_in_english(english):
    """Issue 38 item 9: "1 conversations", "1 memory change(s)", "Undid this turn's 1 memory changes"."""
    from sonetto_desktop.memory.changes import MemoryChange as Change
    from sonetto_desktop.ui.notices.memory_undo import describe

    assert describe(Change("update", ("m1",), "agent"), 1) == "Sonetto's 1 memory change"
    assert describe(Change("update", ("m1",), "agent"), 3) == "Sonetto's 3 memory changes"
    assert describe(Change("update", ("m1", "m2"), "user"), 2) == "2 memory changes"
    one = QCoreApplication.translate("WriterToasts", "已撤销这轮的 %Ln 处记忆变化", "", 1)
    assert one == "Undid this turn's memory change"
    assert QCoreApplication.translate("WriterToasts", "已撤销这轮的 %Ln 处记忆变化", "", 4) == \
        "Undid this turn's 4 memory changes"
    assert QCoreApplication.translate("ReviewDialog", "Sonetto 想做 %Ln 处记忆变化，等你确认。", "", 1) == \
        "Sonetto would like to make 1 memory change; it waits for you."
    assert QCoreApplication.translate("HistoryPreview", "%Ln 个对话", "", 1) == "1 conversation"
    assert QCoreApplication.translate("HistoryPreview", "%Ln 个对话", "", 60) == "60 conversations"


def test_counts_stay_chinese_in_the_chinese_ui(chinese):
    assert QCoreApplication.translate("HistoryPreview", "%Ln 个对话", "", 1) == "1 个对话"
    assert QCoreApplication.translate("WriterToasts", "已撤销这轮的 %Ln 处记忆变化", "", 2) == "已撤销这轮的 2 处记忆变化"


def test_a_proposal_is_worded_in_the_ui_language(english):
    """Issue 38 item 9: the review inbox said "新记住：…" in the English UI."""
    from sonetto_desktop.memory.review import Proposal
    from sonetto_desktop.ui.dialogs.review import proposal_text

    text = proposal_text(Proposal(id="p1", kind="create", description="喜欢猫", theme="品味"))
    assert text.splitlines()[0] == "New memory: 喜欢猫"
    moved = proposal_text(Proposal(id="p2", kind="update", memory_ids=("m1",), theme="品味"))
    assert moved.splitlines()[0] == "Move to “品味”"
    # issue 39: a kind of a new tool is said as what it is, never as a merge (it used to fall into that branch)
    other = proposal_text(Proposal(id="p3", kind="annotate", memory_ids=("m1", "m2"), description="喜欢猫和狗"))
    assert other.splitlines()[0] == "Other change (annotate): 喜欢猫和狗"


def test_a_proposal_that_cannot_be_applied_is_worded_for_a_person(english):
    """Issue 39: an inbox entry this version cannot carry out (a newer tool's), or one the memories no
    longer allow, says so in the UI's language, never in words meant for the model."""
    from sonetto_desktop.memory.errors import ProposalNotApplicable
    from sonetto_desktop.presentation.errors import describe_error

    unknown = describe_error(ProposalNotApplicable("p1", "tag_memories", unknown=True))
    assert unknown.startswith("Can't approve: this version doesn't know") and "tag_memories" in unknown
    refused = describe_error(ProposalNotApplicable("p2", "update_memory", "错误：找不到 ID 为 'x' 的记忆。请调用 read_memories"))
    assert refused.startswith("This proposal can no longer be carried out") and "read_memories" not in refused


def test_every_settings_page_name_is_in_sight_in_english(english, qtbot):
    """The English page names are longer: at the dialog's own size, every tab reads whole (Qt had hidden
    "Appearance" behind scroll arrows)."""
    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.ui.settings.dialog import SettingsDialog

    dialog = SettingsDialog(Settings.load())
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    bar = dialog._tabs.tabBar()
    names = [bar.tabText(i) for i in range(bar.count())]
    assert "Appearance" in names
    for i in range(bar.count()):
        assert bar.tabRect(i).right() <= bar.width(), (names[i], bar.tabRect(i), bar.width())
    assert dialog.width() <= 900  # still fits a small screen


def test_no_settings_page_is_cut_at_the_right_in_english(english, qtbot):
    """A page scrolls only up and down: in English its checkboxes and button rows need more width than the
    Chinese, and the dialog opened narrower than that, cutting "Choose…", "(review mode)" and "Make a new one"
    at its right edge. Every page now gets at least its minimum width."""
    from PySide6.QtWidgets import QScrollArea

    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.ui.settings.dialog import SettingsDialog

    dialog = SettingsDialog(Settings.load())
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    for i in range(dialog._tabs.count()):
        dialog._tabs.setCurrentIndex(i)
        area = dialog._tabs.widget(i)
        page = area.widget() if isinstance(area, QScrollArea) else area
        qtbot.waitUntil(lambda page=page: page.isVisible())
        assert page.width() >= page.minimumSizeHint().width(), (dialog._tabs.tabText(i), page.width(),
                                                                 page.minimumSizeHint().width())
    assert dialog.width() <= 900  # still fits a small screen


async def test_a_turn_the_writer_gives_up_on_is_said_in_the_uis_language(english, llm_server, make_llm, tmp_path):
    """English UI, a model that writes its tool calls as text (kept in the failed list at once): the toast
    said "Gave up organising memories for this exchange: 已失败 1 次，保留在失败列表中：the model wrote its
    tool calls as text…" (the writer's own words around the reason were Chinese only)."""
    from ltm_helpers import FAST, recorder
    from waiting import until

    from sonetto_desktop.memory import YamlMemoryManager
    from sonetto_desktop.memory.writer.pipeline import MemoryWriter

    llm_server.add_text('<tool_call>{"name": "create_memory", "arguments": {}}</tool_call>')
    writer = MemoryWriter(YamlMemoryManager(tmp_path / "memory.yaml"), make_llm(), backoff=FAST,
                          language=lambda: "en", journal_path=tmp_path / "journal")
    seen = recorder(writer)
    writer.start()
    await writer.send_history([{"role": "user", "content": "我喜欢猫"}, {"role": "assistant", "content": "好呀"}])
    await until(lambda: any(e.kind == "gave_up" for e in seen), what="given up")
    assert await writer.stop() is True
    text = toast_for(next(e for e in seen if e.kind == "gave_up")).text
    assert text.startswith("Gave up organising memories for this exchange") and "the model wrote" in text, text
    assert not CJK.search(text), text


@pytest.mark.parametrize("ui", ["chinese", "english"])
def test_counts_worded_with_plurals_are_grouped_as_every_other_count(ui, request):
    """A count worded with Qt's plurals said "3303 处记忆变化" where the rest of the app says "3,303" (``counted``):
    it is written with ``%Ln`` (the locale's digits) and the app's locale groups them in both languages."""
    from sonetto_desktop.memory.changes import MemoryChange as Change
    from sonetto_desktop.presentation.i18n import counted
    from sonetto_desktop.ui.notices.memory_undo import describe

    request.getfixturevalue(ui)
    assert counted(3303) in describe(Change("update", ("m1",), "agent"), 3303)
    assert counted(3303) in describe(Change("update", ("m1", "m2"), "user"), 3303)
    assert counted(1_234_567) in describe(Change("update", ("m1", "m2"), "user"), 1_234_567)
    counts = [(path, line, call.args[1].value) for path, line, call, _ in _calls_in_ui()
              if len(call.args) >= 3 and isinstance(call.args[1], ast.Constant) and "%n" in str(call.args[1].value)]
    counts += [(path, line, call.args[0].value) for path, line, call, _ in _calls_in_ui()
               if len(call.args) == 3 and isinstance(call.args[0], ast.Constant) and "%n" in str(call.args[0].value)]
    assert not counts, counts  # (every count with the locale's grouping: %Ln, not %n)
