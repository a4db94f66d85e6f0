"""The review inbox dialog (issue 12, capability 7): approve, rewrite-then-approve, reject, all;
rejecting all asks first with 取消 as the default. Real AppServices and inbox on a temp data dir."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication, QInputDialog, QMessageBox

from sonetto_desktop.memory.changes import Turn
from sonetto_desktop.services import AppServices
from sonetto_desktop.ui.dialogs.review import ReviewDialog
from test_services import settings_for


@pytest.fixture
async def services(tmp_path):
    opened = await AppServices.open(settings=settings_for(tmp_path, review_mode=True), watch=False)
    yield opened
    await opened.close()


def runner(services):
    """The UI's operation runner over the services, as the app gives it to the dialog."""
    from sonetto_desktop.ui.memory_service import MemoryService

    return MemoryService(services)


def propose(services: AppServices) -> tuple:
    city = services.memory.add("用户住在成都", "身份").ids[0]
    turn = Turn("t-7", "s1", "我搬到上海了，还养了只猫")
    inbox = services.review
    create = inbox.propose("create", description="用户养了一只猫", theme="身份", reason="用户说的", turn=turn)
    update = inbox.propose("update", memory_ids=(city,), description="用户搬到了上海", reason="搬家",
                           turn=turn, before=("用户住在成都",))
    return city, create, update


async def open_dialog(qtbot, services) -> ReviewDialog:
    dialog = ReviewDialog(runner(services))
    qtbot.addWidget(dialog)
    dialog.show()
    await dialog.loading
    return dialog


async def test_rows_say_what_why_and_from_which_words(qtbot, services):
    _city, _create, _update = propose(services)
    dialog = await open_dialog(qtbot, services)
    assert dialog.list.count() == 2 and "2" in dialog.summary.text()
    text = dialog.list.item(1).text()
    assert "改为：用户搬到了上海" in text and "原来：用户住在成都" in text
    assert "理由：搬家" in text and "来自你说的：我搬到上海了" in text


async def test_approve_edit_and_reject(qtbot, services, wait):
    city, create, update = propose(services)
    dialog = await open_dialog(qtbot, services)
    dialog.list.setCurrentRow(0)
    await dialog.approve_current()
    [added] = [i for i in services.memory.all_items().values() if i.description == "用户养了一只猫"]
    assert dialog.list.count() == 1 and "已批准" in dialog.status.text()

    dialog.list.setCurrentRow(0)
    task = dialog._spawn(dialog.edit_current())
    await wait(lambda: isinstance(QApplication.activeModalWidget(), QInputDialog), message="the rewrite box")
    box = QApplication.activeModalWidget()
    assert box.textValue() == "用户搬到了上海"
    box.setTextValue("用户今年搬到了上海浦东")
    box.accept()
    await task
    assert services.memory.get(city).description == "用户今年搬到了上海浦东"
    assert services.memory.history(city)[0]["actor"] == "user"  # rewritten: the person's words
    assert dialog.list.count() == 0 and "没有待审核" in dialog.summary.text()
    assert not dialog.approve_all_button.isEnabled()


async def test_reject_all_asks_and_defaults_to_cancel(qtbot, services, wait):
    propose(services)
    dialog = await open_dialog(qtbot, services)
    task = dialog._spawn(dialog.reject_all())
    await wait(lambda: isinstance(QApplication.activeModalWidget(), QMessageBox), message="the question")
    box = QApplication.activeModalWidget()
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
    assert box.escapeButton() is box.button(QMessageBox.StandardButton.Cancel)
    assert box.button(QMessageBox.StandardButton.Yes).text() == "全部拒绝"  # names the action, not 是 / Yes
    assert box.button(QMessageBox.StandardButton.Cancel).text() == "取消"
    box.button(QMessageBox.StandardButton.Cancel).click()
    await task
    assert services.review.count() == 2  # nothing rejected
    task = dialog._spawn(dialog.reject_all())
    await wait(lambda: isinstance(QApplication.activeModalWidget(), QMessageBox), message="the question again")
    QApplication.activeModalWidget().button(QMessageBox.StandardButton.Yes).click()
    await task
    assert services.review.count() == 0 and dialog.list.count() == 0
    assert [i.description for i in services.memory.all_items().values()] == ["用户住在成都"]


async def test_approve_all_reports_what_could_not_be_done(qtbot, services):
    city, _create, _update = propose(services)
    services.memory.delete(city, reason="删掉")
    dialog = await open_dialog(qtbot, services)
    await dialog.approve_all()
    assert "已批准 1 处变化" in dialog.status.text() and "1 处没能完成" in dialog.status.text()
    assert dialog.list.count() == 1


async def test_an_entry_of_a_kind_this_version_does_not_know_is_shown_as_such_and_never_merged(qtbot, services):
    """Issue 39: the dialog switched on kinds, so an unknown one read (and was applied) as a merge."""
    import json

    a = services.memory.add("用户喜欢猫", "品味").ids[0]
    b = services.memory.add("用户喜欢狗", "品味").ids[0]
    services.review.path.write_text(json.dumps({"proposals": [
        {"id": "p1", "kind": "tag", "memory_ids": [a, b], "description": "用户喜欢猫和狗", "theme": "品味"}]},
        ensure_ascii=False), encoding="utf-8")
    dialog = await open_dialog(qtbot, services)
    assert dialog.list.count() == 1
    text = dialog.list.item(0).text()
    assert text.startswith("其他变化（tag）：用户喜欢猫和狗") and "合并" not in text
    dialog.list.setCurrentRow(0)
    assert dialog.approve_button.isEnabled() and not dialog.edit_button.isEnabled()
    await dialog.approve_current()
    assert "无法批准" in dialog.status.text() and dialog.list.count() == 1
    assert sorted(services.memory.all_items()) == sorted([a, b]) and services.memory.trash() == []


async def test_the_status_bar_badge_counts_and_opens_the_inbox(qapp, tmp_path, wait):
    from shell_fixtures import app_settings, running_app

    async with running_app(qapp, app_settings(tmp_path / "data", review_mode=True)) as app:
        badge = app.window.status_indicator.review_button
        assert not badge.isVisibleTo(app.window)  # nothing waiting: no "待审核 0" (issue 30 item 16)
        assert "审核模式" in app.window.status_indicator.label.toolTip()  # review mode is said there
        app.services.review.propose("create", description="用户喜欢山竹", theme="品味")
        app.writer_control.refresh()
        assert badge.text() == "待审核 1" and badge.isVisibleTo(app.window)
        badge.click()
        dialog = app.review_dialog
        await dialog.loading
        assert dialog.list.count() == 1
        dialog.list.setCurrentRow(0)
        await dialog.approve_current()
        await wait(lambda: not badge.isVisibleTo(app.window), message="the badge follows the dialog")
        dialog.close()


async def test_review_mode_and_the_dont_remember_list_from_the_settings(qapp, tmp_path, wait):
    from shell_fixtures import app_settings, running_app
    from sonetto_desktop.ui.dialogs.dont_remember import DontRememberDialog

    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        assert not app.services.review.enabled
        dialog = app.open_settings()
        assert not dialog.review_mode.isChecked()
        dialog.review_mode.setChecked(True)
        dialog.dont_remember_button.click()
        listed = app.dont_remember_dialog
        assert isinstance(listed, DontRememberDialog)
        await listed.loading
        listed.close()
        assert await dialog.save()
        await wait(lambda: app.services.review.enabled, message="review mode applies without a restart")
        assert app.settings.review_mode
        await wait(lambda: "审核模式" in app.window.status_indicator.label.toolTip(), message="said in the status")


async def test_approving_a_change_whose_import_was_undone_meanwhile_says_so_and_changes_nothing(qtbot, services):
    """The window lists an import's held deletion; the import is undone (here, or in another window or
    the command line) before the person clicks 批准: refused, saying why, and the memory stays."""
    from sonetto_desktop.memory.undo import NothingToUndo

    city = services.memory.add("用户住在成都", "身份").ids[0]
    turn = Turn("imp-aaaa0001-000002", excerpt="我搬走了", origin="ChatGPT「搬家」· 2024-05-01")
    services.review.propose("delete", memory_ids=(city,), reason="用户搬走了", turn=turn, before=("用户住在成都",),
                            actor="import:chatgpt")
    dialog = await open_dialog(qtbot, services)
    assert dialog.list.count() == 1
    with pytest.raises(NothingToUndo) as undone:  # the import wrote nothing else
        services.memory.undo_turn("imp-aaaa0001")
    assert len(undone.value.withdrawn) == 1
    dialog.list.setCurrentRow(0)
    await dialog.approve_current()
    assert "已经撤销" in dialog.status.text() and "ChatGPT「搬家」" in dialog.status.text()
    assert services.memory.get(city).description == "用户住在成都" and dialog.list.count() == 0


async def test_approving_a_change_to_a_memory_the_person_edited_meanwhile_keeps_their_edit(qtbot, services):
    """The inbox lists 改为：用户搬到了上海 (原来：用户住在成都); meanwhile the person edits that memory on
    the wall. 批准 (or 全部批准) must not write the old proposal over their newer words: refused, saying
    so with the text now, the proposal stays; rewriting it in their own words still approves."""
    city, _create, update = propose(services)
    services.memory.update(city, description="用户住在成都高新区，在做设计", reason="手动编辑")
    dialog = await open_dialog(qtbot, services)
    dialog.list.setCurrentRow(1)
    await dialog.approve_current()
    assert services.memory.get(city).description == "用户住在成都高新区，在做设计"
    assert "改过" in dialog.status.text() and "用户住在成都高新区，在做设计" in dialog.status.text()
    assert dialog.list.count() == 2

    await dialog.approve_all()
    assert services.memory.get(city).description == "用户住在成都高新区，在做设计"
    assert [p.id for p in services.review.pending()] == [update.id] and "1 处没能完成" in dialog.status.text()

    dialog.list.setCurrentRow(0)
    await dialog.approve_current(description="用户搬到了上海，在做设计")
    assert services.memory.get(city).description == "用户搬到了上海，在做设计"
    assert dialog.list.count() == 0


async def test_approve_all_and_reject_all_touch_only_the_proposals_the_person_was_shown(qtbot, services, wait):
    """The dialog lists two proposals; meanwhile the writer (a turn ending, an import) proposes a
    deletion the list does not show yet. 全部批准 approves what the person read, never the unseen
    deletion; 全部拒绝 (“拒绝全部 N 处”) likewise rejects only the N shown. The newcomer is listed after."""
    city, _create, _update = propose(services)
    dialog = await open_dialog(qtbot, services)
    dog = services.memory.add("用户养了一只狗", "生活").ids[0]
    unseen = services.review.propose("delete", memory_ids=(dog,), reason="用户说狗送人了",
                                     before=("用户养了一只狗",))
    await dialog.approve_all()
    assert dog in services.memory.all_items(), "全部批准 deleted a memory the person was never shown"
    assert [p.id for p in services.review.pending()] == [unseen.id]
    assert dialog.list.count() == 1 and "用户养了一只狗" in dialog.list.item(0).text()

    later = services.review.propose("create", description="用户喜欢山竹", theme="品味")
    task = dialog._spawn(dialog.reject_all())
    await wait(lambda: isinstance(QApplication.activeModalWidget(), QMessageBox), message="the question")
    box = QApplication.activeModalWidget()
    assert "1" in box.text()
    box.button(QMessageBox.StandardButton.Yes).click()
    await task
    assert [p.id for p in services.review.pending()] == [later.id], "全部拒绝 rejected one it did not show"
    assert dialog.list.count() == 1


async def test_a_proposal_made_while_the_inbox_is_open_is_listed(qtbot, services, wait):
    """The inbox is open; the writer (a quick-chat turn, an import running) proposes another change on
    its worker thread. The badge says 3, so must the list: it shows the newcomer without reopening."""
    import threading

    propose(services)
    dialog = await open_dialog(qtbot, services)
    dialog.list.setCurrentRow(1)
    worker = threading.Thread(target=lambda: services.review.propose(
        "create", description="用户喜欢山竹", theme="品味", reason="用户说的"))
    worker.start()
    worker.join()
    await wait(lambda: dialog.list.count() == 3, message="the new proposal listed")
    assert "用户喜欢山竹" in dialog.list.item(2).text() and "3" in dialog.summary.text()
    assert dialog.list.currentRow() == 1  # the row the person was on stays chosen


async def test_rewording_a_proposal_never_writes_over_an_edit_made_elsewhere_after_the_list_was_shown(qtbot, services):
    """The inbox lists 改为：用户搬到了上海 (原来：用户住在成都). While it is open, another process (the
    command line, ``sonetto mcp``, a second window) edits that memory; the person rewrites the proposal
    in their own words and approves, from the text they were shown. Before, their rewording was written
    over the newer edit without a word (only an approval as proposed looked). Now it is refused, saying
    what the memory reads now; the list then shows it (现在：…), and rewording from there is approved."""
    import subprocess
    import sys

    city, _create, update = propose(services)
    dialog = await open_dialog(qtbot, services)
    cli = subprocess.run([sys.executable, "-m", "sonetto_desktop", "memory", "--store", str(services.store.path),
                          "update", city, "用户住在成都，刚换了工作"], capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0, cli.stderr
    dialog.list.setCurrentRow(1)
    await dialog.approve_current(description="用户搬到了上海浦东")
    assert services.memory.get(city).description == "用户住在成都，刚换了工作", "the other edit was written over"
    assert "改过" in dialog.status.text() and "用户住在成都，刚换了工作" in dialog.status.text()
    assert [p.id for p in services.review.pending()][-1] == update.id
    assert "现在：用户住在成都，刚换了工作" in dialog.list.item(1).text()

    dialog.list.setCurrentRow(1)
    await dialog.approve_current(description="用户搬到了上海浦东，刚换了工作")
    assert services.memory.get(city).description == "用户搬到了上海浦东，刚换了工作"
    assert dialog.list.count() == 1


def _latin_words(text: str) -> list[str]:
    import re

    return re.findall(r"[A-Za-z]{2,}", text)


async def test_an_approval_the_dont_remember_list_or_the_secret_filter_refuses_is_said_in_chinese(qtbot, services):
    """The person puts 前任李雷 on the don't-remember list after Sonetto proposed a memory about him; 批准
    is refused, and the window says so in Chinese, naming the entry (it is the person's own view), not
    "记忆库出错：the user asked not to remember this ('前任李雷')". A secret the same: no "/ this looks like a
    secret" after the Chinese."""
    from sonetto_desktop.memory.dont_remember import FILE_NAME, DontRememberList

    turn = Turn("t-8", "s1", "我和前任李雷分手了")
    services.review.propose("create", description="用户和李雷分手了", theme="感情", reason="用户说的", turn=turn)
    DontRememberList(services.data_dir / FILE_NAME).add("前任李雷")
    dialog = await open_dialog(qtbot, services)
    dialog.list.setCurrentRow(0)
    await dialog.approve_current()
    said = dialog.status.text()
    assert "前任李雷" in said and "不要记住" in said, said
    assert not _latin_words(said), said
    assert services.memory.count() == 0 and dialog.list.count() == 1

    services.review.propose("create", description="用户的邮箱密码是 Xq7#mP2v!", theme="账号", reason="用户说的",
                            turn=Turn("t-9", "s1", "我的邮箱密码是 Xq7#mP2v!"))
    await dialog.load()
    row = next(n for n in range(dialog.list.count()) if "邮箱" in dialog.list.item(n).text())
    dialog.list.setCurrentRow(row)
    await dialog.approve_current()
    said = dialog.status.text()
    assert "密码" in said and not _latin_words(said), said
    assert services.memory.count() == 0


def test_a_refusal_reads_in_one_language_for_the_window_the_command_line_and_another_app():
    """Chinese in Chinese, English in English (the window, the command line); another app reads both, each
    half in its own language (not "this looks like a secret (密码)")."""
    import re

    from sonetto_desktop.memory.errors import DontRememberRefused, SecretRefused
    from sonetto_desktop.presentation.errors import describe_error, describe_error_exactly, describe_error_for_app
    from sonetto_desktop.presentation.i18n import english, translating

    cjk = re.compile(r"[\u4e00-\u9fff]")
    for exc in (DontRememberRefused("the thing about my boss"), SecretRefused("密码")):
        for describe in (describe_error, describe_error_exactly):
            chinese = describe(exc)
            assert not [w for w in _latin_words(chinese) if w not in ("the", "thing", "about", "my", "boss")], chinese
            with translating(english()):
                said = describe(exc)
            assert not cjk.search(said), said
        with translating(english()):  # another app: its two halves, each in one language
            zh, en = describe_error_for_app(exc).split(" / ")
        assert cjk.search(zh) and not _latin_words(zh) and not cjk.search(en), (zh, en)
        assert "boss" not in zh + en  # never the entry to another app
