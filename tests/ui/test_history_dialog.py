"""The history dialog (changes newest first, diff, revert) and the trash dialog (restore, purge)."""

from __future__ import annotations

from sonetto_desktop.ui.dialogs.history_diff import diff_html
from sonetto_desktop.ui.dialogs.history import HistoryDialog, history_rows
from sonetto_desktop.ui.dialogs.trash import TrashDialog


def _as_shown(tip: str) -> str:
    """A tooltip's text as Qt shows it (it reads a tooltip that looks like markup as rich text)."""
    from PySide6.QtGui import QTextDocument

    document = QTextDocument()
    document.setHtml(tip)
    return document.toPlainText()


def test_diff_html_marks_removed_and_added_text():
    html = diff_html("喜欢喝咖啡", "喜欢喝绿茶")
    assert html == '喜欢喝<span class="del">咖啡</span><span class="ins">绿茶</span>'
    assert diff_html("a<b", "a<b") == "a&lt;b"  # escaped, not markup
    assert diff_html("", "新") == '<span class="ins">新</span>'


async def test_history_lists_changes_newest_first_with_actor_and_reason(service, populated_store, qtbot):
    memory_id = populated_store.ids["讨厌香菜"]
    populated_store.update(memory_id, "用户说口味变了", new_description="现在能吃一点香菜", actor="agent")
    populated_store.update(memory_id, "整理主题", new_theme="饮食", actor="user")
    dialog = HistoryDialog(service, memory_id)
    qtbot.addWidget(dialog)
    await dialog.wait_loaded()
    texts = [dialog.list.item(i).text() for i in range(dialog.list.count())]
    assert len(texts) == 3
    assert "· 你 · 修改" in texts[0] and texts[0].endswith("整理主题")
    assert "· Sonetto · 修改" in texts[1] and texts[1].endswith("用户说口味变了")  # the card's name for it
    assert "· 你 · 创建" in texts[2]  # version 0: the memory as it was written
    assert dialog.current_label.text() == "当前：现在能吃一点香菜（饮食）"
    dialog.list.setCurrentRow(1)
    html = dialog.diff.toHtml()
    assert "讨厌" in html and "现在能吃一点" in html and "line-through" in html
    dialog.list.setCurrentRow(0)
    assert "饮食" in dialog.diff.toPlainText() and "品味" in dialog.diff.toPlainText()


async def test_revert_to_first_version_is_a_new_change(service, populated_store, qtbot, wait):
    memory_id = populated_store.ids["有一只叫年糕的橘猫"]
    populated_store.update(memory_id, "猫改名了", new_description="有一只叫汤圆的橘猫", actor="agent")
    dialog = HistoryDialog(service, memory_id)
    qtbot.addWidget(dialog)
    await dialog.wait_loaded()
    dialog.list.setCurrentRow(0)  # the current version: nothing to revert to
    dialog.reason_edit.setText("记错了")
    assert not dialog.revert_button.isEnabled()
    dialog.list.setCurrentRow(dialog.list.count() - 1)  # 最初的版本
    dialog.reason_edit.clear()
    assert dialog.revert_button.isEnabled()  # a reason is welcome, not required (issue 30 item 16)
    dialog.reason_edit.setText("智能体记错了名字")
    assert dialog.revert_button.isEnabled()
    dialog.revert_button.click()
    await service.drain()
    item = populated_store.get(memory_id)
    assert item.description == "有一只叫年糕的橘猫"
    last = item.history[-1]
    assert (last["action"], last["actor"], last["reason"]) == ("revert", "user", "智能体记错了名字")
    assert [e["action"] for e in item.history] == ["create", "update", "revert"]  # nothing was rewritten
    # the dialog follows the store: the revert is now the newest row
    await wait(lambda: dialog.list.count() == 3 and "恢复旧版本" in dialog.list.item(0).text())
    assert dialog.current_label.text() == "当前：有一只叫年糕的橘猫（家人）"


async def test_a_version_the_memory_already_has_again_offers_no_revert(service, populated_store, qtbot, wait):
    """After 恢复为此版本, the older row holds the text the memory has now: reverting to it again would
    only add an empty change (another history row, an Edit-menu undo, the card first in 最近)."""
    memory_id = populated_store.ids["有一只叫年糕的橘猫"]
    populated_store.update(memory_id, "猫改名了", new_description="有一只叫汤圆的橘猫", actor="agent")
    populated_store.revert(memory_id, 0, "其实叫年糕", actor="user")
    dialog = HistoryDialog(service, memory_id)
    qtbot.addWidget(dialog)
    await dialog.wait_loaded()
    assert [row.version for row in dialog.rows()] == [2, 1, 0]
    dialog.list.setCurrentRow(2)  # 最初的版本: 年糕, as now
    assert not dialog.revert_button.isEnabled() and "和现在的内容一样" in dialog.diff.toPlainText()
    assert dialog.revert_selected() is None
    assert len(populated_store.get(memory_id).history) == 3  # nothing written
    dialog.list.setCurrentRow(1)  # 汤圆: another text
    assert dialog.revert_button.isEnabled()


async def _history_after_a_merge(service, populated_store, qtbot):
    """(kept id, merged-away id, the kept memory's history dialog, loaded) after 讨厌香菜 was merged
    into 喜欢手冲咖啡，不加糖."""
    keep = populated_store.ids["喜欢手冲咖啡，不加糖"]
    gone = populated_store.ids["讨厌香菜"]
    populated_store.merge(keep, gone, "喜欢手冲咖啡不加糖，讨厌香菜", "品味", "都是口味")
    dialog = HistoryDialog(service, keep)
    qtbot.addWidget(dialog)
    await dialog.wait_loaded()
    return keep, gone, dialog


async def test_reverting_to_before_a_merge_brings_the_merged_memory_back_too(service, populated_store, qtbot, wait):
    """恢复为此版本 on a version from before a merge: the kept memory gets its own text back, and the
    memory merged into it comes back from the trash in the same action (it was left there, out of
    sight, its words on no card, until the trash was emptied). The person can leave it there."""
    keep, gone, dialog = await _history_after_a_merge(service, populated_store, qtbot)
    dialog.list.setCurrentRow(0)  # the merge itself: nothing from before it
    assert dialog.revert_button.isEnabled() is False and dialog.restore_merged.isHidden()
    dialog.list.setCurrentRow(dialog.list.count() - 1)  # 最初的版本, before the merge
    assert not dialog.restore_merged.isHidden() and dialog.restore_merged.isChecked()
    assert dialog.restore_merged.text() == "同时从回收站恢复之后并入这条记忆的 1 条记忆"
    dialog.revert_button.click()
    await service.drain()
    assert populated_store.get(keep).description == "喜欢手冲咖啡，不加糖"
    assert populated_store.get(gone).description == "讨厌香菜"
    assert populated_store.list_trash() == []
    turns = {populated_store.get(keep).history[-1]["turn_id"], populated_store.get(gone).history[-1]["turn_id"]}
    assert len(turns) == 1  # one action: one Ctrl+Z takes both back
    populated_store.undo_turn(turns.pop())
    assert populated_store.get(keep).description == "喜欢手冲咖啡不加糖，讨厌香菜"
    assert [row["id"] for row in populated_store.list_trash()] == [gone]


async def test_reverting_to_before_a_merge_can_leave_the_merged_memory_in_the_trash(service, populated_store,
                                                                                  qtbot):
    keep, gone, dialog = await _history_after_a_merge(service, populated_store, qtbot)
    dialog.list.setCurrentRow(dialog.list.count() - 1)
    dialog.restore_merged.setChecked(False)
    dialog.revert_button.click()
    await service.drain()
    assert populated_store.get(keep).description == "喜欢手冲咖啡，不加糖"
    assert [row["id"] for row in populated_store.list_trash()] == [gone]


async def test_merged_memory_shows_absorbed_history_without_revert(service, populated_store, qtbot):
    keep = populated_store.ids["喜欢手冲咖啡，不加糖"]
    gone = populated_store.ids["讨厌香菜"]
    populated_store.update(gone, "补充", new_description="很讨厌香菜")
    populated_store.merge(keep, gone, "喜欢手冲咖啡不加糖，讨厌香菜", "品味", "都是口味")
    rows = history_rows(populated_store.get(keep))
    assert [r.version for r in rows] == [1, None, None, 0]  # the absorbed memory's create and update
    dialog = HistoryDialog(service, keep)
    qtbot.addWidget(dialog)
    await dialog.wait_loaded()
    assert "来自被合并的记忆" in dialog.list.item(1).text()
    dialog.list.setCurrentRow(1)
    dialog.reason_edit.setText("试试")
    assert not dialog.revert_button.isEnabled()
    assert dialog.revert_selected() is None
    dialog.list.setCurrentRow(0)
    assert "都是口味" in dialog.diff.toPlainText() and "很讨厌香菜" in dialog.diff.toPlainText()


async def test_history_of_a_deleted_memory_says_so(service, populated_store, qtbot):
    memory_id = populated_store.ids["讨厌香菜"]
    populated_store.delete(memory_id)
    failures = []
    service.operation_failed.connect(failures.append)
    dialog = HistoryDialog(service, memory_id)
    qtbot.addWidget(dialog)
    await dialog.wait_loaded()
    assert "已不存在" in dialog.current_label.text()
    assert dialog.list.count() == 0 and not dialog.revert_button.isEnabled()
    assert failures == []  # the dialog says it; no error toast besides


async def test_a_memory_merged_away_while_its_history_is_open_is_said_once_without_an_error(
        service, populated_store, qtbot, wait):
    """Sonetto (or the command line) merges the memory into another while the person reads its history:
    the dialog says the memory is gone; that is no failure of theirs to toast about."""
    gone = populated_store.ids["讨厌香菜"]
    keep = populated_store.ids["喜欢手冲咖啡，不加糖"]
    failures = []
    service.operation_failed.connect(failures.append)
    dialog = HistoryDialog(service, gone)
    qtbot.addWidget(dialog)
    await dialog.wait_loaded()
    assert dialog.list.count() == 1
    populated_store.merge(keep, gone, "喜欢手冲咖啡不加糖，讨厌香菜", "品味", "重复", actor="agent")
    await wait(lambda: "已不存在" in dialog.current_label.text(), message="the dialog follows the store")
    await dialog.wait_loaded()
    await service.drain()
    assert failures == [], "an error toast for a memory that is simply gone"
    assert dialog.list.count() == 0 and not dialog.revert_button.isEnabled()


async def test_history_that_cannot_be_read_does_not_say_the_memory_is_gone(service, populated_store, qtbot,
                                                                          monkeypatch):
    memory_id = populated_store.ids["讨厌香菜"]

    def unreadable(*_a, **_k):
        raise OSError("database is locked")

    monkeypatch.setattr(populated_store, "get", unreadable)  # the store fails this read
    failures = []
    service.operation_failed.connect(failures.append)
    dialog = HistoryDialog(service, memory_id)
    qtbot.addWidget(dialog)
    await dialog.wait_loaded()
    assert len(failures) == 1  # the toast says why
    assert "已不存在" not in dialog.current_label.text() and "读不到" in dialog.current_label.text()


async def test_trash_restore_and_purge(service, populated_store, qtbot, wait):
    cat = populated_store.ids["有一只叫年糕的橘猫"]
    rust = populated_store.ids["正在用 Rust 重写调度服务"]
    populated_store.delete(cat, "测试")
    populated_store.delete(rust)
    dialog = TrashDialog(service)
    qtbot.addWidget(dialog)
    await dialog.wait_loaded()
    assert sorted(dialog.ids()) == sorted([cat, rust])
    assert dialog.summary.text() == "2 条已删除的记忆"
    assert dialog.restore_button.isEnabled()  # the first row is selected once loaded
    dialog.select_ids([cat])
    assert dialog.restore_button.isEnabled()
    dialog.restore_button.click()
    await service.drain()
    assert populated_store.get(cat).description == "有一只叫年糕的橘猫"
    await wait(lambda: dialog.ids() == [rust], message="trash list follows the store")
    dialog.select_ids([rust])
    dialog.purge_selected()
    await service.drain()
    assert populated_store.list_trash() == []
    await wait(lambda: dialog.ids() == [] and dialog.summary.text() == "回收站是空的。")
    assert not dialog.empty_button.isEnabled()


async def test_restoring_several_memories_from_the_trash_is_one_action(service, populated_store, qtbot, wait):
    """删除 3 条 is one action (one toast, one 撤销, one Ctrl+Z); bringing them back from the trash
    together is one too: restored one action each, a Ctrl+Z took back only the last of them."""
    cat = populated_store.ids["有一只叫年糕的橘猫"]
    rust = populated_store.ids["正在用 Rust 重写调度服务"]
    populated_store.delete(cat, "测试")
    populated_store.delete(rust, "测试")
    dialog = TrashDialog(service)
    qtbot.addWidget(dialog)
    await dialog.wait_loaded()
    dialog.select_ids([cat, rust])
    dialog.restore_button.click()
    await service.drain()
    await wait(lambda: dialog.ids() == [], message="both restored")
    last = [populated_store.get(mid).history[-1] for mid in (cat, rust)]
    assert [entry["action"] for entry in last] == ["restore", "restore"]
    assert last[0]["turn_id"] == last[1]["turn_id"]
    assert last[0]["actor"] == "user" and last[0]["reason"] == "从回收站恢复"
    populated_store.undo_turn(last[0]["turn_id"])  # one undo takes both back
    assert sorted(row["id"] for row in populated_store.list_trash()) == sorted([cat, rust])


async def test_the_trash_words_its_rows_off_the_qt_thread(service, populated_store, qtbot, monkeypatch):
    """Each row's reason and time are worded in the worker that reads the trash: at 100,000 memories
    with 5,000 in the trash, wording them on the Qt thread (every reason tried against ~80 stored
    wordings) held the window 0.2-3.3 s when the trash opened, and again at each change while it is
    open (issue 37, ``bench/ui_interactions.py``)."""
    import threading

    from sonetto_desktop.ui.dialogs import trash

    kept = populated_store.ids["讨厌香菜"]
    for description in ("有一只叫年糕的橘猫", "正在用 Rust 重写调度服务"):
        populated_store.delete(populated_store.ids[description], "测试")
    gone = populated_store.ids["喜欢手冲咖啡，不加糖"]
    populated_store.merge(kept, gone, "讨厌香菜，喜欢手冲咖啡", "品味", "是一回事")
    threads: list[str] = []
    render = trash.render_reason

    def watched(text: str, language: str = "zh_CN") -> str:
        threads.append(threading.current_thread().name)
        return render(text, language)

    monkeypatch.setattr(trash, "render_reason", watched)
    dialog = TrashDialog(service)
    qtbot.addWidget(dialog)
    await dialog.wait_loaded()
    assert threads and threading.main_thread().name not in threads
    texts = sorted(dialog.list.item(i).text() for i in range(dialog.list.count()))
    assert texts[0].startswith("喜欢手冲咖啡，不加糖\n品味 · ") and texts[0].endswith(" · 并入「讨厌香菜，喜欢手冲咖啡」：是一回事")
    assert texts[1].startswith("有一只叫年糕的橘猫\n家人 · ") and texts[1].endswith(" · 测试")


async def test_a_very_long_memory_keeps_the_dialog_on_screen(service, populated_store, qtbot):
    long_text = "很长的一段记忆" * 600
    memory_id = populated_store.add(long_text, "长文")
    dialog = HistoryDialog(service, memory_id)
    qtbot.addWidget(dialog)
    await dialog.wait_loaded()
    assert len(dialog.current_label.text()) < 200 and dialog.current_label.text().endswith("…（长文）")
    assert _as_shown(dialog.current_label.toolTip()) == long_text  # the whole text is still there
    assert dialog.sizeHint().height() < 900


async def test_a_failed_revert_gives_the_reason_back(service, populated_store, qtbot, wait):
    memory_id = populated_store.ids["有一只叫年糕的橘猫"]
    populated_store.update(memory_id, "猫改名了", new_description="有一只叫汤圆的橘猫", actor="agent")
    dialog = HistoryDialog(service, memory_id)
    qtbot.addWidget(dialog)
    await dialog.wait_loaded()
    dialog.list.setCurrentRow(1)  # the first version
    dialog.reason_edit.setText("其实还是叫年糕")
    populated_store.delete(memory_id, "过时", actor="agent")  # gone before the click lands
    assert await dialog.revert_selected() is None
    await wait(lambda: dialog.reason_edit.text() == "其实还是叫年糕", message="reason given back")


async def test_trash_rows_keep_a_multi_line_memory_to_one_line(service, populated_store, qtbot):
    memory_id = populated_store.add("第一行\n第二行\n\n第三行", "笔记")
    populated_store.delete(memory_id, "测试")
    dialog = TrashDialog(service)
    qtbot.addWidget(dialog)
    await dialog.wait_loaded()
    text = dialog.list.item(0).text()
    assert text.count("\n") == 1 and text.startswith("第一行 第二行 第三行\n笔记")  # fits the two-line row
    assert _as_shown(dialog.list.item(0).toolTip()) == "第一行\n第二行\n\n第三行"  # as written


async def test_another_ai_apps_change_is_named_after_the_app(service, populated_store, qtbot):
    memory_id = populated_store.ids["讨厌香菜"]
    populated_store.update(memory_id, "用户在 Cursor 里说的", new_description="现在能吃一点香菜", actor="mcp:Cursor")
    dialog = HistoryDialog(service, memory_id)
    qtbot.addWidget(dialog)
    await dialog.wait_loaded()
    assert "· Cursor（其他应用） · 修改" in dialog.list.item(0).text()  # by the name it gave (sonetto mcp)


async def test_revert_after_a_lock_brings_back_the_version_of_the_row(service, populated_store, qtbot):
    """A lock (or an unlock) makes no version: the rows number versions as the store does (revert takes
    that number), and a lock's row cannot be reverted to."""
    memory_id = populated_store.ids["有一只叫年糕的橘猫"]
    populated_store.set_locked(memory_id, True, actor="user", reason="别改")
    populated_store.update(memory_id, "猫改名了", new_description="有一只叫汤圆的橘猫", actor="user")
    populated_store.update(memory_id, "又改了", new_description="有一只叫芝麻的橘猫", actor="user")
    dialog = HistoryDialog(service, memory_id)
    qtbot.addWidget(dialog)
    await dialog.wait_loaded()
    # rows newest first: 芝麻 (update), 汤圆 (update), lock, create
    assert [row.version for row in dialog.rows()] == [2, 1, None, 0]
    texts = [dialog.list.item(i).text() for i in range(dialog.list.count())]
    assert "猫改名了" in texts[1] and "锁定" in texts[2]
    dialog.list.setCurrentRow(2)  # the lock
    assert not dialog.revert_button.isEnabled() and "没有可恢复的版本" in dialog.diff.toPlainText()
    dialog.list.setCurrentRow(1)  # the row that made it 汤圆
    assert "汤圆" in dialog.diff.toPlainText()
    assert dialog.revert_button.isEnabled()
    dialog.revert_button.click()
    await service.drain()
    assert populated_store.get(memory_id).description == "有一只叫汤圆的橘猫"


async def test_a_pin_is_a_row_of_the_history_with_no_version(service, populated_store, qtbot):
    """A pin and an unpin are in the history (before, a pin left no trace there), named as such, with no
    version of their own; the version numbers of the rows after them stay the store's."""
    memory_id = populated_store.ids["有一只叫年糕的橘猫"]
    populated_store.set_field(memory_id, "pinned", True, actor="user")
    populated_store.update(memory_id, "猫改名了", new_description="有一只叫汤圆的橘猫", actor="user")
    populated_store.set_field(memory_id, "pinned", False, actor="user")
    dialog = HistoryDialog(service, memory_id)
    qtbot.addWidget(dialog)
    await dialog.wait_loaded()
    assert [row.version for row in dialog.rows()] == [None, 1, None, 0]  # unpin, 汤圆, pin, create
    texts = [dialog.list.item(i).text() for i in range(dialog.list.count())]
    assert "取消置顶" in texts[0] and "· 置顶" in texts[2]
    dialog.list.setCurrentRow(2)
    assert not dialog.revert_button.isEnabled() and "置顶或取消置顶不改变内容" in dialog.diff.toPlainText()


def test_entry_versions_number_each_change_as_versions_does(populated_store):
    memory_id = populated_store.ids["有一只叫年糕的橘猫"]
    populated_store.update(memory_id, "改", new_description="有一只叫汤圆的橘猫", actor="user")
    populated_store.set_locked(memory_id, True, actor="user")
    populated_store.set_locked(memory_id, False, actor="user")
    populated_store.update(memory_id, "又改", new_description="有一只叫芝麻的橘猫", actor="user")
    item = populated_store.get(memory_id)
    numbers = item.entry_versions()
    assert numbers == [0, 1, None, None, 2]
    states = item.versions()
    for entry, number in zip(item.history, numbers, strict=True):
        if number is not None and "new_description" in entry:
            assert states[number]["description"] == entry["new_description"]


async def test_the_selected_version_stays_selected_when_a_live_change_arrives(service, populated_store, qtbot,
                                                                             wait):
    """Rows are newest first: a change made while the dialog is open moves every row down one; the
    selection stays on the version the person picked, and 恢复为此版本 brings that one back."""
    memory_id = populated_store.ids["有一只叫年糕的橘猫"]
    populated_store.update(memory_id, "猫改名了", new_description="有一只叫汤圆的橘猫", actor="user")
    dialog = HistoryDialog(service, memory_id)
    qtbot.addWidget(dialog)
    await dialog.wait_loaded()
    dialog.list.setCurrentRow(dialog.list.count() - 1)  # 最初的版本: 年糕
    assert dialog.selected_version() == 0
    populated_store.update(memory_id, "agent", new_description="有一只叫芝麻的橘猫", actor="agent")  # Sonetto, meanwhile
    await wait(lambda: dialog.list.count() == 3)
    await dialog.wait_loaded()
    assert dialog.selected_version() == 0, "the selection moved to another version"
    assert dialog.list.currentRow() == 2 and "年糕" in dialog.diff.toPlainText()
    dialog.revert_button.click()
    await service.drain()
    assert populated_store.get(memory_id).description == "有一只叫年糕的橘猫"


async def test_an_undo_is_not_quoted_as_what_prompted_it_in_either_language(service, populated_store, qtbot, request):
    """An undo (撤销 on a toast, Ctrl+Z) keeps a note for itself as its turn's excerpt, "撤销 ui-… 的记忆变化":
    the history dialog showed it as what prompted the change, 起因：“撤销 ui-c14ecace05b2 的记忆变化” — an
    internal id, and in Chinese in the English window too (Prompted by: “撤销 ui-… 的记忆变化”; seen in a
    real window). The reason line already says it was an undo; a person's own words are still quoted."""
    from sonetto_desktop.memory import MemoryOperations, Turn

    memory_id = populated_store.ids["讨厌香菜"]
    person = MemoryOperations(populated_store)
    person.as_actor("user", Turn("ui-0917101d58c2", excerpt="我现在能吃香菜了")).update(
        memory_id, description="现在能吃一点香菜", reason="口味变了")
    person.undo_turn("ui-0917101d58c2")
    for language in ("chinese", "english"):
        request.getfixturevalue(language)
        dialog = HistoryDialog(service, memory_id)
        qtbot.addWidget(dialog)
        await dialog.wait_loaded()
        dialog.list.setCurrentRow(0)  # the undo
        shown = dialog.diff.toPlainText() + _as_shown(dialog.list.item(0).toolTip())
        assert "的记忆变化" not in shown and "起因" not in shown and "Prompted by" not in shown, shown
        dialog.list.setCurrentRow(1)  # the person's change: what they said is quoted
        said = "起因：“我现在能吃香菜了”" if language == "chinese" else "Prompted by: “我现在能吃香菜了”"
        assert said in dialog.diff.toPlainText(), dialog.diff.toPlainText()


#: Unicode's direction controls: embeddings and overrides (closed by PDF) and isolates (closed by PDI).
_OPENERS = {"\u202a": "e", "\u202b": "e", "\u202d": "e", "\u202e": "e", "\u2066": "i", "\u2067": "i", "\u2068": "i"}


def _open_direction_controls(text: str) -> list[str]:
    """The direction controls still open at the end of ``text`` (UAX #9: a PDF closes the last embedding
    or override, never an isolate; a PDI closes the last isolate and whatever it holds)."""
    stack: list[str] = []
    for ch in text:
        if ch in _OPENERS:
            stack.append(_OPENERS[ch])
        elif ch == "\u202c" and stack and stack[-1] == "e":
            stack.pop()
        elif ch == "\u2069" and "i" in stack:
            while stack.pop() != "i":
                pass
    return stack


async def test_a_memory_with_a_direction_override_leaves_the_dialogs_own_words_as_they_are(
        service, populated_store, qtbot):
    """A memory imported with a right-to-left override in it ("零宽字符和\\u202e反转"): the history dialog's
    "当前：…（Moved Theme）" showed the theme reversed, "（emehT devoM）", the override running on into the
    dialog's own words. What the memory holds is set apart: its controls end with it."""
    from sonetto_desktop.presentation.toasts import toast_for
    from sonetto_desktop.memory.events import MemoryChange

    memory_id = populated_store.add("零宽字符和\u202e反转", "Moved Theme")
    dialog = HistoryDialog(service, memory_id)
    qtbot.addWidget(dialog)
    await dialog.wait_loaded()
    shown = dialog.current_label.text()
    assert "反转" in shown and "Moved Theme" in shown
    assert _open_direction_controls(shown[:shown.index("（")]) == [], repr(shown)  # before the app's "（"
    assert _open_direction_controls(shown) == []
    change = MemoryChange(kind="update", ids=(memory_id,), actor="agent",
                          states={memory_id: {"description": "零宽字符和\u202e反转", "theme": "Moved Theme"}})
    toast = toast_for(change)
    assert toast is not None and "反转" in toast.text
    assert _open_direction_controls(toast.text) == [], repr(toast.text)
