"""A failure of each kind of operation reaches the person in the one wording (issue 39 item 2): a write
from the wall, a read of a dialog, blocking work of a settings page (an ``ops.Call``) and the services'
own "别记住这个" all say exactly what ``presentation.errors.describe_error`` says, never a type name;
and nothing is changed. Real stores, real widgets (offscreen), the composed app."""

from __future__ import annotations

from sonetto_desktop.config.settings import Settings
from sonetto_desktop.memory import MemoryNotFound
from sonetto_desktop.memory.dont_remember import DontRememberList
from sonetto_desktop.presentation.errors import describe_error, error_detail
from sonetto_desktop.ui.dialogs.history import HistoryDialog
from sonetto_desktop.ui.settings.dialog import SettingsDialog

from shell_fixtures import app_settings, running_app

NOT_FOUND = describe_error(MemoryNotFound("x"))  # the one wording of a memory that is gone


def _error_toasts(overlay) -> list[str]:
    return [t.text for t in overlay.toasts() if t.kind == "error"]


async def test_a_write_from_the_wall_that_fails_is_said_in_the_one_wording(wall, populated_store, wait):
    await wall.reload()
    cat = populated_store.ids["有一只叫年糕的橘猫"]
    populated_store.delete(cat, "过时", actor="agent")
    populated_store.purge(cat)  # gone for good while the wall still shows it
    [pin] = wall.actions.pin_cards([cat], True)
    assert await pin is None
    await wait(lambda: _error_toasts(wall.toasts), message="a toast")
    assert _error_toasts(wall.toasts) == [NOT_FOUND]
    assert cat not in populated_store.all_items()


async def test_a_read_that_fails_is_said_in_the_one_wording(wall, populated_store, qtbot, wait, monkeypatch):
    await wall.reload()
    cat = populated_store.ids["有一只叫年糕的橘猫"]
    failure = OSError("database is locked")

    def unreadable(*_a, **_k):
        raise failure

    monkeypatch.setattr(populated_store, "get", unreadable)  # the history's read fails
    dialog = HistoryDialog(wall.service, cat, wall)
    qtbot.addWidget(dialog)
    await wait(lambda: _error_toasts(wall.toasts), message="a toast")
    assert _error_toasts(wall.toasts) == [describe_error(failure)]
    dialog.close()  # (a memory that is simply gone is said in the dialog, no toast: test_history_dialog)


async def test_a_settings_page_s_blocking_work_that_fails_is_said_in_place(qtbot, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("", encoding="utf-8")
    target = blocker / "settings.json"  # its folder is a file: the save cannot happen
    try:
        Settings().save(target, with_secret=False)
    except OSError as exc:
        expected = "无法保存设置：" + error_detail(exc)  # the page's sentence, ended by the one wording
    dialog = SettingsDialog(Settings(data_dir=str(tmp_path / "data")), save_path=target)
    qtbot.addWidget(dialog)
    assert await dialog.save() is False
    assert dialog.error_label.text() == expected
    assert "Error" not in expected and dialog.buttons.isEnabled()
    assert blocker.read_text(encoding="utf-8") == ""


async def test_the_services_own_operation_failing_is_said_in_the_one_wording(qapp, tmp_path, llm_server, wait):
    data = tmp_path / "data"
    async with running_app(qapp, app_settings(data, llm_server)) as app:
        damaged = data / "dont_remember.json"
        damaged.write_text("{damaged", encoding="utf-8")
        try:
            DontRememberList(damaged).add("x")
        except ValueError as exc:
            expected = describe_error(exc)
        await app.chat_actions.forget_turn("turn-1", "别记住我的生日")
        await wait(lambda: _error_toasts(app.toasts), message="a toast")
        assert _error_toasts(app.toasts) == [expected]
        assert "dont_remember.json" in expected and "ValueError" not in expected
        assert damaged.read_text(encoding="utf-8") == "{damaged"  # left as it was


async def test_a_chat_turn_that_fails_inside_says_what_went_wrong_not_a_type_name(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        await app.window.chat_panel.new_session()
        failed: list[tuple[str, str]] = []
        app.controller.reply_failed.connect(lambda _sid, code, message, _text: failed.append((code, message)))
        app.services.chat.turns.accepting = False  # the engine stops taking turns as the message goes out
        turn = app.controller.send("你好")
        assert turn is not None
        await turn
        [(code, message)] = failed
        assert code == "internal" and message.startswith("出错了：")
        assert "RuntimeError" not in message and "start()" in message  # what went wrong, not its type
        assert llm_server.requests == []
        app.services.chat.turns.accepting = True


#: A write refused while the memory server is away, as the store raises it (libpq's own words inside).
_OFFLINE = ("postgresql://sonetto@192.0.2.7:5432/sonetto (sonetto)",
            "consuming input failed: server closed the connection unexpectedly This probably means the server "
            "terminated abnormally before or while processing the request.")


def test_a_write_while_the_memory_server_is_away_is_said_in_the_window_s_language(chinese):
    """An edit on the wall while the server was down showed "记忆库出错：记忆服务器暂时连不上，只能查看 / the
    memory server postgresql://… cannot be reached (consuming input failed: server closed the connection…" —
    both languages, the server's address and libpq's English, cut off — and not that nothing was saved."""
    from sonetto_desktop.memory.errors import StoreOffline

    said = describe_error(StoreOffline(*_OFFLINE))
    assert "连不上" in said and "没有保存" in said and "再试" in said
    assert "the memory server" not in said and "consuming input" not in said and "postgresql://" not in said
    assert error_detail(StoreOffline(*_OFFLINE)) == said


def test_a_write_while_the_memory_server_is_away_is_said_in_english(english):
    from sonetto_desktop.memory.errors import StoreOffline

    said = describe_error(StoreOffline(*_OFFLINE))
    assert "not saved" in said.lower() and "server" in said.lower()
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in said), said
