"""Import / export from the window (issue 15 item 15) and the keyboard help (item 14): the File
menu's actions, an export written atomically in a worker in the CLI's formats, an import that shows
what it will change before anything is written, the shortcut list on F1 / Ctrl+/."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QAbstractButton, QApplication, QLineEdit, QStyle

from shell_fixtures import app_settings, running_app
from sonetto_desktop.memory import transfer
from sonetto_desktop.memory.import_preview import NEW, NEW_ID, SKIPPED
from sonetto_desktop.ui.dialogs.import_preview import ImportPreviewDialog
from sonetto_desktop.ui.dialogs.shortcuts import ShortcutsDialog
from sonetto_desktop.ui.dialogs.transfer_actions import TransferActions


@pytest.fixture
def actions(service, qtbot):
    from PySide6.QtWidgets import QWidget

    host = QWidget()
    qtbot.addWidget(host)
    host.show()
    acts = TransferActions(service, host)
    messages = []
    acts.message.connect(lambda text, kind: messages.append((text, kind)))
    acts.messages = messages
    return acts


@pytest.mark.parametrize("fmt", ["yaml", "json", "md"])
async def test_export_writes_the_cli_format_off_the_qt_thread(actions, service, populated_store, tmp_path,
                                                             monkeypatch, fmt):
    threads = []
    real = transfer.atomic_write
    monkeypatch.setattr(transfer, "atomic_write",
                        lambda *a, **k: (threads.append(threading.current_thread()), real(*a, **k))[1])
    target = tmp_path / f"out.{fmt}"
    target.write_text("the previous export", encoding="utf-8")
    assert await actions.export_to(target) == 6
    assert threads and threads[0] is not threading.main_thread()  # written in a worker
    assert target.read_text(encoding="utf-8") != "the previous export"
    # the same file the CLI would read back: every memory is there
    assert sorted(i.description for i in transfer.read_import(target).values()) == sorted(
        i.description for i in populated_store.all_items().values())
    if fmt == "json":
        assert json.loads(target.read_text(encoding="utf-8"))["kind"] == "sonetto-memories"
    assert actions.messages and actions.messages[-1][1] == "info"


async def test_import_shows_a_preview_and_writes_nothing_until_confirmed(actions, service, populated_store,
                                                                         tmp_path, wait):
    taken = populated_store.ids["讨厌香菜"]
    source = tmp_path / "in.yaml"
    source.write_text(
        f"new1:\n  description: 喜欢爵士\n  theme: 音乐\n"
        f"{taken}:\n  description: 换了新工作\n  theme: 工作\n"
        f"dup:\n  description: 讨厌香菜\n  theme: 品味\n", encoding="utf-8")
    before = populated_store.count()

    changes = []
    service.memory_changed.connect(changes.append)
    flow = asyncio.ensure_future(actions.import_from(source))
    await wait(lambda: isinstance(actions.active_dialog, ImportPreviewDialog) and actions.active_dialog.isVisible())
    dialog = actions.active_dialog
    outcomes = sorted(dialog.list.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole)
                      for i in range(dialog.list.topLevelItemCount()))
    assert outcomes == sorted([NEW, NEW_ID, SKIPPED])
    assert "新增 2 条" in dialog.summary.text() and "跳过 1 条" in dialog.summary.text()
    assert populated_store.count() == before  # nothing written yet
    assert not dialog.import_button.isDefault()  # Enter cancels
    dialog.import_button.click()
    added, skipped, trashed = await flow
    assert len(added) == 2 and skipped == ["dup"] and trashed == []
    assert populated_store.count() == before + 2
    assert populated_store.get(taken).description == "讨厌香菜"  # nothing overwritten
    assert "喜欢爵士" in {i.description for i in populated_store.all_items().values()}
    await wait(lambda: any(c.kind == "import" for c in changes))
    assert [(c.kind, c.actor, set(c.ids)) for c in changes if c.kind == "import"] == [("import", "user", set(added))]
    # one action of the person (its own ui-… turn), so 撤销 takes it back like any other edit
    [imported] = [c for c in changes if c.kind == "import"]
    assert (imported.turn_id or "").startswith("ui-"), imported.turn_id


@pytest.mark.parametrize("fmt", ["yaml", "json", "md"])
async def test_a_backup_keeps_the_trash_and_says_so(actions, service, populated_store, tmp_path, wait, fmt):
    """The window's export is a backup a person can restore: a memory in the trash is in it (the message
    says so, and where), and importing it puts that memory back into the trash (the preview says so)."""
    gone = populated_store.ids["讨厌香菜"]
    populated_store.delete(gone, "口味变了")
    target = tmp_path / f"备份.{fmt}"
    assert await actions.export_to(target) == 5
    text, kind = actions.messages[-1]
    assert kind == "info" and "回收站里的 1 条" in text, text
    assert ("备份.trash.yaml" in text) == (fmt == "yaml"), text
    populated_store.purge(gone)  # the trash emptied since
    assert populated_store.list_trash() == []
    flow = asyncio.ensure_future(actions.import_from(target))
    await wait(lambda: isinstance(actions.active_dialog, ImportPreviewDialog) and actions.active_dialog.isVisible())
    dialog = actions.active_dialog
    assert "1 条删除了的记忆会放回回收站" in dialog.summary.text(), dialog.summary.text()
    # every live memory is a duplicate: the trash is what it brings, and an undo of an import leaves the
    # trash it brought (it deletes nothing for good), so this one has nothing to undo and does not promise one
    assert "撤销这次导入时" not in dialog.summary.text(), dialog.summary.text()
    assert "无从撤销，不需要的可以在回收站里永久删除" in dialog.summary.text(), dialog.summary.text()
    assert dialog.import_button.isEnabled()
    dialog.import_button.click()
    result = await flow
    assert result.added == [] and result.trashed == [gone]
    said = actions.messages[-1][0]
    assert "1 条删除了的记忆放回了回收站" in said and "撤销这次导入" not in said, said
    assert "没有新增记忆，无从撤销" in said and "回收站里永久删除" in said, said
    [row] = populated_store.list_trash()
    assert (row["id"], row["description"], row["reason"]) == (gone, "讨厌香菜", "口味变了")
    assert gone not in populated_store.all_items()


async def _preview_with_a_damaged_side_file(actions, populated_store, target, side, wait):
    """``side`` (a file beside the export ``target``) cut off mid-line, every memory deleted for good, the
    import of ``target`` started until its preview shows: (the damaged line, the import's future)."""
    side.write_text(side.read_text(encoding="utf-8") + "  oops: [not closed\n", encoding="utf-8")
    line = len(side.read_text(encoding="utf-8").splitlines())
    for mid in list(populated_store.all_items()):
        populated_store.delete(mid, "")
    populated_store.purge()
    flow = asyncio.ensure_future(actions.import_from(target))
    await wait(lambda: isinstance(actions.active_dialog, ImportPreviewDialog) and actions.active_dialog.isVisible())
    return line, flow


async def test_a_damaged_trash_file_leaves_out_the_trash_and_says_so(actions, service, populated_store, tmp_path,
                                                                     wait):
    """A YAML backup's trash file (NAME.trash.yaml) that cannot be read no longer refuses the import: the
    memories come in, and the preview and the message say the trash file was left out, naming it and the line."""
    gone = populated_store.ids["讨厌香菜"]
    populated_store.delete(gone, "口味变了")
    target = tmp_path / "备份.yaml"
    await actions.export_to(target)
    line, flow = await _preview_with_a_damaged_side_file(actions, populated_store, target,
                                                         transfer.trash_path(target), wait)
    summary = actions.active_dialog.summary.text()
    assert "新增 5 条" in summary and "备份.trash.yaml" in summary and f"第 {line} 行" in summary, summary
    assert "没有导入" in summary, summary
    actions.active_dialog.import_button.click()
    result = await flow
    assert len(result.added) == 5 and result.trashed == []
    said, kind = actions.messages[-1]
    assert "已导入 5 条记忆" in said and "备份.trash.yaml" in said and f"第 {line} 行" in said, said
    assert populated_store.count() == 5 and populated_store.list_trash() == []


async def test_a_damaged_pins_file_is_said_in_the_preview_and_the_message(actions, service, populated_store, tmp_path,
                                                                        wait):
    """A YAML backup's pins file (NAME.flags.yaml) that cannot be read was left out without a word (the
    memories came in unpinned): the preview and the message now say so, naming it and the line."""
    populated_store.set_field(populated_store.ids["讨厌香菜"], "pinned", True)
    target = tmp_path / "备份.yaml"
    await actions.export_to(target)
    line, flow = await _preview_with_a_damaged_side_file(actions, populated_store, target,
                                                         transfer.flags_path(target), wait)
    summary = actions.active_dialog.summary.text()
    assert "新增 6 条" in summary and "备份.flags.yaml" in summary and f"第 {line} 行" in summary, summary
    assert "置顶" in summary, summary
    actions.active_dialog.import_button.click()
    result = await flow
    assert len(result.added) == 6
    said, kind = actions.messages[-1]
    assert "已导入 6 条记忆" in said and "备份.flags.yaml" in said and "置顶" in said and kind == "error", said


@pytest.mark.parametrize("fmt", ["yaml", "json"])
async def test_a_backup_with_one_memory_in_the_trash_says_it_in_english(actions, service, populated_store, tmp_path,
                                                                        wait, english, fmt):
    """One memory in the trash (the usual case: one was deleted) read "the 1 in the trash (an import puts them
    back…)", "1 deleted memories go back into the trash" and "1 deleted memories put back in the trash"."""
    gone = populated_store.ids["讨厌香菜"]
    populated_store.delete(gone, "口味变了")
    target = tmp_path / f"backup.{fmt}"
    await actions.export_to(target)
    said = actions.messages[-1][0]
    assert "the one in the trash" in said and "puts it back" in said and "them" not in said, said
    populated_store.purge(gone)
    flow = asyncio.ensure_future(actions.import_from(target))
    await wait(lambda: isinstance(actions.active_dialog, ImportPreviewDialog) and actions.active_dialog.isVisible())
    summary = actions.active_dialog.summary.text()
    assert "1 deleted memory goes back into the trash" in summary, summary
    actions.active_dialog.import_button.click()
    await flow
    said = actions.messages[-1][0]
    assert "1 deleted memory put back in the trash" in said, said
    populated_store.delete(populated_store.ids["有一只叫年糕的橘猫"], "")
    await actions.export_to(target)
    assert "the 2 in the trash" in actions.messages[-1][0] and "them" in actions.messages[-1][0], actions.messages[-1]


@pytest.mark.parametrize("fmt", ["yaml", "md"])
async def test_an_export_of_one_memory_says_one_memory_in_english(actions, service, populated_store, tmp_path,
                                                                  english, fmt):
    """An export of a single memory read "Exported 1 memories to …": the count is worded with Qt's plurals."""
    kept = populated_store.ids["讨厌香菜"]
    for memory_id in set(populated_store.ids.values()) - {kept}:
        populated_store.delete(memory_id, "")
        populated_store.purge(memory_id)
    target = tmp_path / f"one.{fmt}"
    assert await actions.export_to(target) == 1
    said = actions.messages[-1][0]
    assert said.startswith("Exported 1 memory to one.") and "memories" not in said, said
    populated_store.add("喜欢手冲咖啡", "品味")
    await actions.export_to(target)
    assert actions.messages[-1][0].startswith("Exported 2 memories to one."), actions.messages[-1]


async def test_a_cancelled_import_changes_nothing(actions, service, populated_store, tmp_path, wait):
    source = tmp_path / "in.json"
    source.write_text(json.dumps({"x1": {"description": "新的一条", "theme": "杂项"}}, ensure_ascii=False),
                      encoding="utf-8")
    before = populated_store.count()
    flow = asyncio.ensure_future(actions.import_from(source))
    await wait(lambda: isinstance(actions.active_dialog, ImportPreviewDialog) and actions.active_dialog.isVisible())
    actions.active_dialog.reject()
    assert await flow is None
    assert populated_store.count() == before


async def test_a_broken_import_file_is_explained(actions, tmp_path):
    source = tmp_path / "bad.json"
    source.write_text("{not json", encoding="utf-8")
    assert await actions.import_from(source) is None
    text, kind = actions.messages[-1]
    assert kind == "error" and "bad.json" in text


async def test_file_menu_and_shortcut_list(qapp, tmp_path, wait):
    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        window = app.window
        menus = window.menus
        assert menus.import_action.text().startswith("导入记忆") and menus.export_action.text().startswith("导出记忆")
        requested = []
        window.import_requested.connect(lambda: requested.append("import"))
        menus.import_action.trigger()
        assert requested == ["import"] and app.transfer is not None
        await wait(lambda: app.transfer.active_dialog is not None and app.transfer.active_dialog.isVisible())
        app.transfer.active_dialog.reject()
        assert QKeySequence("F1") in menus.shortcuts_action.shortcuts()
        assert QKeySequence("Ctrl+/") in menus.shortcuts_action.shortcuts()
        menus.shortcuts_action.trigger()
        dialog = window.shortcuts_dialog
        assert isinstance(dialog, ShortcutsDialog) and dialog.isVisible()
        keys = {k for k, _ in dialog.rows()}
        assert {"Ctrl+N", "Ctrl+,", "F1 / Ctrl+/", "Enter", "Esc"} <= keys
        dialog.reject()
        menus.trash_action.trigger()  # the trash is reachable without the mouse too
        trash = app.wall.actions.active_dialog
        assert type(trash).__name__ == "TrashDialog" and trash.isVisible()
        trash.reject()


def test_preview_dialog_shows_memory_text_as_plain_text(qtbot):
    from sonetto_desktop.memory.import_preview import ImportPreview, PreviewRow

    preview = ImportPreview([PreviewRow("a", NEW, "<b>粗体</b>", "测试")])
    dialog = ImportPreviewDialog(preview, "<i>f</i>.yaml")
    qtbot.addWidget(dialog)
    assert dialog.summary.textFormat() == Qt.TextFormat.PlainText
    assert dialog.list.topLevelItem(0).text(1) == "<b>粗体</b>"
    assert QApplication.instance() is not None


async def test_every_icon_only_button_has_an_accessible_name(qapp, tmp_path, llm_server):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        await app.wall_loaded
        icon_only = [b for b in app.window.findChildren(QAbstractButton) if b.isVisible() and not b.text()]
        assert len(icon_only) >= 5  # header, sessions, wall, composer
        unnamed = [f"{b.objectName() or type(b.parentWidget()).__name__}" for b in icon_only
                   if not b.accessibleName().strip()]
        assert not unnamed, unnamed
        send = app.window.findChild(QAbstractButton, "SendButton")
        assert send.accessibleName() == "发送"  # the key hint is not part of the name


async def test_export_from_the_save_dialog_follows_the_chosen_type(actions, populated_store, tmp_path, wait):
    flow = actions.export_memories()
    await wait(lambda: actions.active_dialog is not None and actions.active_dialog.isVisible())
    dialog = actions.active_dialog
    dialog.setDirectory(str(tmp_path))
    dialog.selectNameFilter("JSON (*.json)")
    dialog.filterSelected.emit("JSON (*.json)")  # as when the person picks the type
    assert dialog.selectedFiles()[0] == str(tmp_path / "sonetto-memories.json")
    dialog.accept()
    assert await flow == 6
    data = json.loads((tmp_path / "sonetto-memories.json").read_text(encoding="utf-8"))
    assert data["kind"] == "sonetto-memories" and len(data["memories"]) == 6


@pytest.mark.parametrize("typed", ["记忆备份 2026.12.07", "记忆备份"])
async def test_export_of_a_name_without_a_type_gets_the_chosen_one(actions, populated_store, tmp_path, wait, typed):
    """A typed name without a file type of ours (none, or a date in it: "记忆备份 2026.12.07") gets the
    chosen type added, never "unknown file type '.07'", nor nothing at all."""
    flow = actions.export_memories()
    await wait(lambda: actions.active_dialog is not None and actions.active_dialog.isVisible())
    dialog = actions.active_dialog
    dialog.setDirectory(str(tmp_path))
    dialog.selectNameFilter("JSON (*.json)")
    dialog.findChild(QLineEdit, "fileNameEdit").setText(typed)  # as the person types it
    dialog.accept()
    assert await flow == 6, actions.messages
    data = json.loads((tmp_path / f"{typed}.json").read_text(encoding="utf-8"))
    assert len(data["memories"]) == 6


@pytest.mark.parametrize(("name", "content", "said"), [
    ("bad.json", "{not json", "无法解析"),
    ("list.json", "[1, 2]", "不是记忆导出文件"),
    ("notes.md", "- 小林喜欢猫\n", "第 1 行"),
    ("empty.yaml", "m1:\n  description: ''\n  theme: 品味\n", "没有内容"),
])
async def test_a_file_that_cannot_be_imported_is_explained_in_the_persons_language(actions, tmp_path, name,
                                                                                  content, said):
    """The window speaks Chinese: why a file cannot be imported is said in Chinese too, not as the
    command line's English ("bad.json cannot be parsed: Expecting property name …")."""
    source = tmp_path / name
    source.write_text(content, encoding="utf-8")
    assert await actions.import_from(source) is None
    text, kind = actions.messages[-1]
    assert kind == "error" and said in text, text
    assert not any(word in text for word in ("cannot", "memory", "has no", "expected")), text


def _english_words(text: str, name: str) -> list[str]:
    """Latin words in ``text`` other than the file's name and the words a Chinese sentence about a
    memory file may name (its format, its keys)."""
    import re

    allowed = {"UTF", "YAML", "JSON", "yaml", "json", "md", "description", "theme"}
    return [w for w in re.findall(r"[A-Za-z]{2,}", text.replace(name, "")) if w not in allowed]


_DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(("name", "content", "said"), [
    ("bad.json", '{"m1": {"description": "x",}}', "第 1 行第 28 列"),
    ("bad.yaml", "m1:\n  description: x\n  theme: [1\n", "第 3 行"),
    ("tabs.yaml", "m1:\n\tdescription: x\n", "第 2 行"),
    ("gbk.yaml", "m1:\n  description: 小林\n".encode("gbk"), "第 2 行"),
    ("alias.yaml", "m1: &a\n  description: x\n  theme: t\nm2: *a\n", "第 1 行"),
    ("long.yaml", "m1:\n  description: " + "长" * 6000 + "\n  theme: t\n", "6,000"),
    ("list.yaml", "m1:\n  description: [a, b]\n  theme: t\n", "列表"),
    ("list.json", '"只是一句话"', "文字"),
    ("deep.json", _DEEP, "嵌套"),
    ("long.md", "## 主题\n\n- " + "长" * 6000 + "\n", "第 3 行"),
    ("gone.yaml", None, "找不到"),
])
async def test_why_a_file_cannot_be_imported_is_all_chinese_and_says_where(actions, tmp_path, name, content, said):
    """The parser's English (\"while parsing a flow sequence\", \"'utf-8' codec can't decode byte 0xb0\", \"a:
    description is 6,000 characters long\") never shows in brackets in the Chinese window: a Chinese
    sentence says what is wrong and where (the line, the column); in English mode, the same in English."""
    from sonetto_desktop.presentation.errors import describe_error_exactly
    from sonetto_desktop.presentation.i18n import english, translating

    source = tmp_path / name
    if isinstance(content, bytes):
        source.write_bytes(content)
    elif content is not None:
        source.write_text(content, encoding="utf-8")
    assert await actions.import_from(source) is None
    text, kind = actions.messages[-1]
    assert kind == "error" and said in text, text
    assert not _english_words(text, name), text
    with pytest.raises(Exception) as raised:
        transfer.read_import(source)
    with translating(english()):
        english_text = describe_error_exactly(raised.value)
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in english_text.replace(name, "")), english_text
    assert not any(raw in english_text for raw in ("codec", "<unicode string>", "Errno", "(char ")), english_text


async def test_a_yaml_export_with_pins_names_the_file_they_are_kept_in(actions, service, populated_store, tmp_path):
    """YAML keeps pins beside the export (NAME.flags.yaml): a person who moves only the file they named
    loses them, so the message names the other file too (and does not when there is nothing in it)."""
    target = tmp_path / "备份.yaml"
    assert await actions.export_to(target) == 6
    assert "flags" not in actions.messages[-1][0]  # nothing pinned: one file
    populated_store.set_field(populated_store.ids["讨厌香菜"], "pinned", True)
    assert await actions.export_to(target) == 6
    text, kind = actions.messages[-1]
    assert kind == "info" and "备份.flags.yaml" in text and "备份.yaml" in text, text
    assert await actions.export_to(tmp_path / "备份.json") == 6  # (JSON keeps them inside)
    assert "flags" not in actions.messages[-1][0]


@pytest.mark.parametrize("language", ["zh_CN", "en"])
async def test_every_shortcut_is_described_whole(qapp, tmp_path, language):
    """The shortcut list cut its longer descriptions with "…" at the dialog's size (seen in a real
    window: 在记忆墙的卡片之间移动（到一个主题的边上就进到相邻的…; in English the Tab and Esc rows too)
    and no tooltip told the rest: each description wraps to as many lines as it needs."""
    async with running_app(qapp, app_settings(tmp_path / "data", language=language)) as app:
        app.window.menus.shortcuts_action.trigger()
        dialog = app.window.shortcuts_dialog
        await asyncio.sleep(0.05)  # laid out at its size
        table = dialog.table
        assert table.columnWidth(1) > table.viewport().width() // 2, dialog.rows()  # the keys leave room
        assert {"Ctrl+F", "Shift+F10"} <= {keys for keys, _ in dialog.rows()}  # the wall's search, a card's menu
        column = table.columnWidth(1) - 2 * (table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin) + 1)
        metrics = table.fontMetrics()
        for row, (keys, what) in enumerate(dialog.rows()):
            assert metrics.horizontalAdvance(keys) <= table.columnWidth(0), keys
            assert not {"重做", "Redo"} & set(keys.split(" / ")), keys  # a media key, named as the action
            lines = metrics.boundingRect(QRect(0, 0, column, 10_000), Qt.TextFlag.TextWordWrap, what).height()
            assert table.rowHeight(row) >= lines, (what, table.rowHeight(row), lines)
        dialog.reject()


@pytest.mark.parametrize("language", ["zh_CN", "en"])
async def test_an_exports_count_is_grouped_as_the_walls_count(actions, populated_store, tmp_path, qapp, language):
    """Edges 18 item 4: "Exported 3303 memories" while the toolbar said "3,303": one way to write a count."""
    from sonetto_desktop.memory import MemoryItem
    from sonetto_desktop.ui.i18n import install_translators, remove_translators

    populated_store.import_items({f"x{i:05d}": MemoryItem(f"第{i}条补充的记忆", "补充") for i in range(3297)})
    translators = install_translators(qapp, language)
    try:
        assert await actions.export_to(tmp_path / "all.json") == 3303
        said = actions.messages[-1][0]
        assert ("Exported 3,303 memories" if language == "en" else "已导出 3,303 条记忆") in said, said
    finally:
        remove_translators(qapp, translators)
