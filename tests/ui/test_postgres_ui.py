"""The multi-device settings page (PostgreSQL backend) and the offline banner."""

from __future__ import annotations

import json

import pytest

from helpers import pick
from sonetto_desktop.config.settings import Settings, config_dir
from sonetto_desktop.memory.events import EventFeed
from sonetto_desktop.memory.stores.postgres.store import StoreStatus
from sonetto_desktop.ui.settings.dialog import SettingsDialog
from sonetto_desktop.ui.notices.store_banner import StoreBanner


async def test_the_postgres_page_saves_its_fields_and_keeps_the_password_out_of_the_file(qtbot):
    d = SettingsDialog(Settings.load())
    qtbot.addWidget(d)
    page = d.postgres_page
    pick(d.store_backend, "postgres")
    assert d.store_backend.currentData() == "postgres"
    page.url.setText("postgresql://xiaolin:pa55-word@nas.local:5432/sonetto")
    page.url.editingFinished.emit()  # a pasted URL's password moves to the password field
    assert page.url.text() == "postgresql://xiaolin@nas.local:5432/sonetto" and page.password.text() == "pa55-word"
    pick(page.tls, "require")
    page.device.setText("书房")
    page.sessions.setChecked(True)
    assert await d.save()
    again = Settings.load()
    assert (again.store_backend, again.postgres_url, again.postgres_password) == (
        "postgres", "postgresql://xiaolin@nas.local:5432/sonetto", "pa55-word")
    assert (again.postgres_tls, again.device_name, again.postgres_sessions, again.postgres_schema) == (
        "require", "书房", True, "sonetto")
    raw = (config_dir() / "settings.json").read_text(encoding="utf-8")
    assert "pa55-word" not in raw and json.loads(raw)["postgres_url"].endswith("/sonetto")


@pytest.mark.parametrize("address", ["postgresql://xiaolin@nas.local:5432/sonetto?password=pa55-word&sslmode=require",
                                     "host=nas.local port=5432 user=xiaolin password=pa55-word dbname=sonetto"])
async def test_a_password_in_any_form_of_the_address_goes_to_the_keyring(qtbot, address):
    Settings(store_backend="postgres", postgres_url=address).save(with_secret=False)  # as an older version saved it
    d = SettingsDialog(Settings.load())
    qtbot.addWidget(d)
    page = d.postgres_page
    assert "pa55-word" not in page.url.text() and page.password.text() == "pa55-word"
    assert await d.save()
    raw = (config_dir() / "settings.json").read_text(encoding="utf-8")
    assert "pa55-word" not in raw and "nas.local" in raw and Settings.load().postgres_password == "pa55-word"
    page.url.setText(address.replace("pa55-word", "n3w-word"))
    page.url.editingFinished.emit()  # pasted again with another password: that one is taken
    assert "n3w-word" not in page.url.text() and page.password.text() == "n3w-word"


async def test_postgres_without_a_url_is_refused(qtbot):
    d = SettingsDialog(Settings.load())
    qtbot.addWidget(d)
    pick(d.store_backend, "postgres")
    assert not await d.save()
    assert "PostgreSQL" in d.error_label.text()


async def test_the_test_button_reaches_the_server(qtbot, pg_url, pg_schema):
    d = SettingsDialog(Settings.load())
    qtbot.addWidget(d)
    d.postgres_page.url.setText(pg_url)
    d.postgres_page.schema.setText(pg_schema)
    checked = []
    d.postgres_page.connection_checked.connect(checked.append)
    await d.postgres_page.test_connection()
    assert checked[0].ok and d.postgres_page.result.text().startswith("✓")
    assert d.postgres_page.test_button.isEnabled()


class _Services:
    """What the app's feed follows: the services' one event feed (here only the store's status)."""

    def __init__(self):
        self.feed = EventFeed()

    def subscribe_events(self, callback):
        return self.feed.subscribe(callback)


async def test_the_banner_shows_while_the_server_is_away(qtbot, wait):
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    from sonetto_desktop.store_lifecycle import StoreStatusChanged
    from sonetto_desktop.ui.app_feed import AppFeed

    services = _Services()
    window = QWidget()
    qtbot.addWidget(window)
    banner = StoreBanner(AppFeed(services, window), StoreStatus(True), window)
    QVBoxLayout(window).addWidget(banner)
    window.show()
    assert banner.isHidden()
    services.feed.publish(StoreStatusChanged(StoreStatus(False, "connection refused", "2026-12-02T19:30:00")))
    await wait(lambda: banner.isVisible(), message="the banner shows")
    assert "2026-12-02 19:30" in banner.text() and "只能查看" in banner.text()
    assert banner.toolTip() == "connection refused"
    services.feed.publish(StoreStatusChanged(StoreStatus(True)))
    await wait(lambda: banner.isHidden(), message="the banner goes")


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_the_banner_takes_its_colours_from_the_theme(qtbot, qapp, mode):
    """It had fixed light-yellow colours, glaring in the dark theme."""
    from PySide6.QtGui import QColor
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    from sonetto_desktop.ui.theme import stylesheet, tokens

    window = QWidget()
    qtbot.addWidget(window)
    window.setStyleSheet(stylesheet(mode))
    from sonetto_desktop.ui.app_feed import AppFeed

    banner = StoreBanner(AppFeed(_Services(), window), StoreStatus(False, "connection refused", None), window)
    QVBoxLayout(window).addWidget(banner)
    window.resize(500, 120)
    window.show()
    image = banner.grab().toImage()
    assert image.pixelColor(3, 3) == QColor(tokens(mode)["warning_bg"])  # the corner: background
    if mode == "dark":
        assert image.pixelColor(3, 3).lightness() < 100  # a dark banner in the dark theme


async def test_chat_sessions_on_the_server_work_on_the_qt_event_loop(pg_url, pg_schema):
    """psycopg's async connections need the loop's socket readiness callbacks: qasync's loop gives them."""
    from sonetto_desktop.agent.pg_sessions import PgSessionDatabase
    from sonetto_desktop.memory.stores.postgres.location import PgLocation

    db = PgSessionDatabase(PgLocation(pg_url, pg_schema))
    await db.open()
    try:
        info = await db.store.create("在 Qt 里")
        await db.store.append(info.id, "user", "你好")
        assert [e["content"] for e in await db.store.transcript(info.id)] == ["你好"]
        assert await db.checkpointer() is db.saver is not None
    finally:
        await db.close()


async def test_changing_only_the_device_name_keeps_the_chat_working(qapp, tmp_path, llm_server, pg_url, pg_schema,
                                                                    wait):
    """Issue 28: the window and the services decided "the store changed" apart. In PostgreSQL mode a new
    device name re-opens the store and restarts the chat engine; the window kept the closed engine and
    the next message failed with a RuntimeError."""
    import dataclasses

    from shell_fixtures import app_settings, running_app

    settings = app_settings(tmp_path / "data", llm_server, store_backend="postgres", postgres_url=pg_url,
                            postgres_schema=pg_schema, device_name="书房")
    async with running_app(qapp, settings) as app:
        first = app.engine
        await app.apply_settings(dataclasses.replace(app.settings, device_name="卧室"))
        await app.wait_until_ready()
        assert app.engine is not first and app.controller.engine is app.engine
        llm_server.add_text("还在这里")
        panel = app.window.chat_panel
        panel.composer.set_text("你还在吗")
        panel.composer.submit()
        await wait(lambda: len(panel.view.bubbles) == 2 and not app.controller.busy, timeout=10)
        assert panel.view.bubbles[-1].text == "还在这里" and not panel.view.bubbles[-1].error_box.isVisibleTo(panel.view)


def _latin_words(text: str, *known: str) -> set[str]:
    """English words in ``text`` (names aside)."""
    import re

    for name in known:
        text = text.replace(name, "")
    return set(re.findall(r"[A-Za-z]{3,}", text)) - {"PostgreSQL", "TLS"}


async def test_the_test_result_reads_in_chinese_and_keeps_the_exact_words_in_the_tooltip(qtbot, pg_url, pg_schema,
                                                                                         chinese):
    """A failed test put libpq's English into the Chinese sentence ("连接失败：connection failed: … Connection
    refused …"): each kind of failure is said in words of the page, the exact ones in the tooltip."""
    import socket
    from urllib.parse import urlsplit, urlunsplit

    d = SettingsDialog(Settings(language="en"))  # the settings' language is not the UI's
    qtbot.addWidget(d)
    page = d.postgres_page
    page.schema.setText(pg_schema)
    page.url.setText(pg_url)
    await page.test_connection()
    assert page.result.text().startswith("✓ 连接成功：PostgreSQL") and "毫秒" in page.result.text(), page.result.text()
    parts = urlsplit(pg_url)
    page.url.setText(urlunsplit(parts._replace(path="/no_such_db_here")))
    await page.test_connection()
    text = page.result.text()
    assert text.startswith("✗ 服务器上没有名为 no_such_db_here 的数据库") and not _latin_words(text, "no_such_db_here"), text
    assert "does not exist" in page.result.toolTip()
    page.url.setText(urlunsplit(parts._replace(netloc=f"nobody_here@{parts.hostname}:{parts.port}")))
    await page.test_connection()
    assert page.result.text().startswith("✗ 服务器上没有名为 nobody_here 的用户"), page.result.text()
    page.url.setText(pg_url)
    pick(page.tls, "require")  # the test server has no TLS
    await page.test_connection()
    text = page.result.text()
    assert text.startswith("✗ TLS 加密连接没有建立") and not _latin_words(text), text
    pick(page.tls, "prefer")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = sock.getsockname()[1]
    page.url.setText(f"postgresql://me@127.0.0.1:{dead}/x")
    await page.test_connection()
    text = page.result.text()
    assert text.startswith("✗ 连不上服务器") and not _latin_words(text), text
    assert "refused" in page.result.toolTip().lower()
    for said, start in (("FATAL:  password authentication failed for user \"me\"", "✗ 服务器不接受这个用户名和密码"),
                        ("connection timeout expired", "✗ 服务器在限定时间内没有回答"),
                        ("FATAL:  no pg_hba.conf entry for host \"10.0.0.2\"", "✗ 服务器不允许"),
                        ("致命错误:  数据库 \"x\" 不存在", "✗ 连接失败（服务器说的原因见提示）")):
        from sonetto_desktop.postgres_setup import ConnectionCheck, failure_words

        text = page.checked_text(ConnectionCheck(False, "", "", words=failure_words(said), detail=said))
        assert text.startswith(start) and not _latin_words(text, "pg_hba.conf"), text


async def test_the_test_result_reads_in_english_in_an_english_ui(qtbot, pg_url, pg_schema, english):
    d = SettingsDialog(Settings(language="zh_CN"))
    qtbot.addWidget(d)
    page = d.postgres_page
    page.schema.setText(pg_schema)
    page.url.setText(pg_url)
    await page.test_connection()
    text = page.result.text()
    assert text.startswith("✓ Connected: PostgreSQL") and "no memories yet" in text, text
    page.url.setText("postgresql://me@127.0.0.1:9/x")
    await page.test_connection()
    text = page.result.text()
    assert text.startswith("✗ Cannot reach the server") and not any("\u4e00" <= ch <= "\u9fff" for ch in text), text


async def test_the_servers_words_in_the_tooltip_are_shown_as_written(qtbot, pg_url, pg_schema):
    """The exact words in the tooltip are the server's, which may look like markup (they name what was
    typed: a user "<i>me</i>"): Qt laid them out as rich text. They are shown as written."""
    from urllib.parse import urlsplit, urlunsplit

    from PySide6.QtGui import QTextDocument

    d = SettingsDialog(Settings())
    qtbot.addWidget(d)
    page = d.postgres_page
    page.schema.setText(pg_schema)
    parts = urlsplit(pg_url)
    page.url.setText(urlunsplit(parts._replace(netloc=f"%3Ci%3Eme%3C%2Fi%3E@{parts.hostname}:{parts.port}")))
    await page.test_connection()
    shown = QTextDocument()
    shown.setHtml(page.result.toolTip())
    assert page.result.text().startswith("✗") and '"<i>me</i>"' in shown.toPlainText(), page.result.toolTip()


#: What libpq says when the server refuses the password (the detail ``StoreStatus`` carries, as logged).
_WRONG_PASSWORD = ('connection failed: connection to server at "127.0.0.1", port 5432 failed: FATAL: '
                   'password authentication failed for user "sonetto"')


@pytest.mark.parametrize("copy_time", ["2026-12-02T19:30:00", None])
def test_the_banner_says_a_wrong_password_is_refused_not_that_the_server_will_come_back(qtbot, chinese, copy_time):
    """A wrong password in the settings read "记忆服务器暂时连不上 … 新的记忆会在服务器恢复后自动写入": the
    person waited for a server that was up and would never take that password."""
    from sonetto_desktop.ui.app_feed import AppFeed

    window = _banner_window(qtbot)
    banner = StoreBanner(AppFeed(_Services(), window), StoreStatus(False, _WRONG_PASSWORD, copy_time), window)
    text = banner.text()
    assert "密码" in text and "设置" in text and "多设备" in text
    assert "暂时连不上" not in text and "恢复后自动写入" not in text
    assert "只能查看" in text
    assert ("2026-12-02 19:30" in text) == bool(copy_time)
    assert banner.toolTip() == _WRONG_PASSWORD  # the server's exact words


def test_the_banner_says_a_wrong_password_in_english(qtbot, english):
    from sonetto_desktop.ui.app_feed import AppFeed

    window = _banner_window(qtbot)
    banner = StoreBanner(AppFeed(_Services(), window), StoreStatus(False, _WRONG_PASSWORD, None), window)
    text = banner.text()
    assert "password" in text.lower() and "Settings" in text
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in text), text


def _banner_window(qtbot):
    from PySide6.QtWidgets import QWidget

    window = QWidget()
    qtbot.addWidget(window)
    return window


@pytest.mark.parametrize("lang", ["chinese", "english"])
async def test_the_history_dialog_names_the_computer_each_change_was_made_on(qtbot, request, pg_url, pg_schema,
                                                                               lang):
    """Two computers on one server: the desk's history of a memory the laptop wrote said only "命令行 ·
    创建", never which computer."""
    from service_fixtures import memory_service_over
    from sonetto_desktop.memory.stores.postgres.store import PostgresMemoryManager
    from sonetto_desktop.ui.dialogs.history import HistoryDialog

    request.getfixturevalue(lang)
    laptop = PostgresMemoryManager(pg_url, schema=pg_schema, device="笔记本")
    desk = PostgresMemoryManager(pg_url, schema=pg_schema, device="台式机")
    services = memory_service_over(desk)
    service = next(services)
    try:
        memory_id = laptop.add("用户周末爬山", "爱好", actor="cli")
        desk.update(memory_id, "更具体", new_description="用户每周六去香山爬山", actor="user")
        dialog = HistoryDialog(service, memory_id)
        qtbot.addWidget(dialog)
        await dialog.wait_loaded()
        rows = [dialog.list.item(i).text().split("\n") for i in range(dialog.list.count())]
        on = "在 {0} 上" if lang == "chinese" else "on {0}"
        edited, added = ("修改", "创建") if lang == "chinese" else ("Edited", "Added")
        assert [(row[0].endswith(edited), row[1].startswith(on.format("台式机"))) for row in rows[:1]] == [(True, True)], rows
        assert [(row[0].endswith(added), row[1].startswith(on.format("笔记本"))) for row in rows[1:]] == [(True, True)], rows
    finally:
        next(services, None)
        laptop.close()
        desk.close()


@pytest.mark.parametrize("lang", ["chinese", "english"])
def test_the_notice_of_another_computer_s_changes_names_that_computer(request, pg_url, pg_schema, lang):
    """The laptop's command line edited a memory; the desk's notice said "命令行：修改 1 条记忆", as if
    typed on the desk."""
    from waiting import wait_for

    from sonetto_desktop.memory.stores.postgres.store import PostgresMemoryManager
    from sonetto_desktop.presentation.others import SourceTally

    request.getfixturevalue(lang)
    laptop = PostgresMemoryManager(pg_url, schema=pg_schema, device="笔记本")
    desk = PostgresMemoryManager(pg_url, schema=pg_schema, device="台式机")
    try:
        seen = []
        desk.subscribe(seen.append)
        assert desk.wait_listening(10)
        laptop.add("用户周末爬山", "爱好", actor="cli")
        wait_for(lambda: seen or desk.poll_external(), timeout=10)
        [change] = seen
        tally = SourceTally.of(change)
        tally.add(change)
        assert "笔记本" in tally.key
        if lang == "chinese":
            assert tally.text() == "命令行（在 笔记本 上）：新增 1 条记忆"
        else:
            assert tally.text().startswith("Command line (on 笔记本): ")
        here = change.__class__("add", ("x",), "cli")  # this computer's command line: a notice of its own
        assert SourceTally.of(here).key != tally.key
    finally:
        laptop.close()
        desk.close()


@pytest.mark.parametrize("lang", ["chinese", "english"])
async def test_an_empty_wall_whose_server_is_away_says_so_and_takes_no_new_memory_until_it_is_back(
        qtbot, wait, request, pg_server, pg_schema, tmp_path, lang):
    """A server out of reach and no copy on this computer: the empty wall said "和 Sonetto 聊聊，或点「新建」写下一条"
    and 新建 was enabled, and then the new memory failed. It says the memories are on the server, shown once it
    answers, and what to check; 新建 (and every other change) is refused up front until the server is back."""
    from sonetto_desktop.services import AppServices
    from sonetto_desktop.ui.dialogs.transfer_actions import TransferActions
    from sonetto_desktop.ui.memory_service import MemoryService
    from sonetto_desktop.ui.wall.memory_wall import MemoryWall
    from tcp_proxy import TcpProxy, proxied_url

    request.getfixturevalue(lang)
    proxy = TcpProxy(pg_server.port)
    url = proxied_url(pg_server, proxy)
    proxy.cut()
    settings = Settings(data_dir=str(tmp_path / "data"), retrieval_mode="mechanical", store_backend="postgres",
                        postgres_url=url, postgres_schema=pg_schema, device_name="laptop")
    services = await AppServices.open(settings=settings)
    service = MemoryService(services)
    try:
        assert services.store_status is not None and not services.store_status.online
        wall = MemoryWall(service)
        qtbot.addWidget(wall)
        wall.resize(900, 700)
        wall.show()
        await wall.reload()
        await wait(lambda: not wall.loading(), message="the wall loaded")
        text = wall.empty_label.text()
        assert wall.empty_label.isVisible()
        if lang == "chinese":
            assert "服务器上" in text and "连不上" in text and "设置 → 多设备" in text and "聊聊" not in text, text
        else:
            assert "on the memory server" in text and "Settings" in text and "Chat with" not in text, text
            assert not any("\u4e00" <= ch <= "\u9fff" for ch in text), text
        assert not wall.add_button.isEnabled()
        reason = wall.add_button.toolTip()
        assert ("连不上" in reason) if lang == "chinese" else ("cannot be reached" in reason), reason
        assert wall.actions.add_card() is None  # (a shortcut or a menu): refused up front, with the same reason
        await wait(lambda: wall.toasts.toasts(), message="the refusal")
        assert wall.toasts.toasts()[-1].text == reason
        transfer = TransferActions(service, wall)
        said: list[tuple[str, str]] = []
        transfer.message.connect(lambda text, kind: said.append((str(text), kind)))
        assert transfer.import_memories() is None and said == [(reason, "error")]  # before a file is chosen
        assert wall.actions.delete_cards(["m1"]) is None and wall.actions.pin_cards(["m1"], True) == []

        proxy.restore()
        await wait(lambda: wall.add_button.isEnabled(), timeout=20, message="新建 back with the server")
        await wait(lambda: "Sonetto" in wall.empty_label.text(), message="the empty wall's own text again")
        assert wall.add_button.toolTip() != reason
        assert wall.actions.add_card() is not None
    finally:
        service.close()
        await services.close()
        proxy.close()


async def test_while_the_server_is_away_the_cards_of_this_computers_copy_are_not_changed_until_it_is_back(
        qtbot, wait, chinese, pg_server, pg_schema, tmp_path):
    """The wall shows this computer's copy while the server is away: editing, dragging, merging or deleting a
    card is refused up front with why (not a dialog filled in for nothing, then "没有保存"); back with the server."""
    from sonetto_desktop import ops
    from sonetto_desktop.services import AppServices
    from sonetto_desktop.ui.memory_service import MemoryService
    from sonetto_desktop.ui.wall.memory_wall import MemoryWall
    from tcp_proxy import TcpProxy, proxied_url

    proxy = TcpProxy(pg_server.port)
    settings = Settings(data_dir=str(tmp_path / "data"), retrieval_mode="mechanical", store_backend="postgres",
                        postgres_url=proxied_url(pg_server, proxy), postgres_schema=pg_schema, device_name="laptop")
    services = await AppServices.open(settings=settings)
    service = MemoryService(services)
    try:
        memory_id = await service.run(ops.AddMemory("小林喜欢猫", "品味", ""))
        wall = MemoryWall(service)
        qtbot.addWidget(wall)
        wall.resize(900, 700)
        wall.show()
        await wall.reload()
        await wait(lambda: not wall.loading() and wall.model.card(memory_id) is not None, message="the card")
        assert wall.add_button.isEnabled()
        await wait(lambda: services.store.feed.listener.connected, timeout=10, message="the listener")
        proxy.cut()
        await wait(lambda: not wall.add_button.isEnabled(), timeout=20, message="新建 off while the server is away")
        reason = wall.add_button.toolTip()
        assert "连不上" in reason and "设置 → 多设备" in reason, reason
        assert wall.actions.edit_card(memory_id) is None and wall.actions.active_dialog is None
        assert wall.actions.merge_cards(memory_id) is None and wall.actions.active_dialog is None
        assert wall.actions.handle_drop([memory_id], "别处") is None
        assert wall.actions.delete_cards([memory_id]) is None
        assert wall.actions.lock_cards([memory_id], True) is None
        said = [toast.text for toast in wall.toasts.toasts()]
        assert len(said) == 1 and said[0].startswith(reason), said  # one toast (counting the tries), why
        assert wall.model.card(memory_id) is not None and not wall.empty_label.isVisible()

        proxy.restore()
        await wait(lambda: wall.add_button.isEnabled(), timeout=20, message="新建 back with the server")
        dialog = wall.actions.edit_card(memory_id)
        assert dialog is not None
        dialog.reject()
    finally:
        service.close()
        await services.close()
        proxy.close()


@pytest.mark.parametrize("lang", ["chinese", "english"])
async def test_an_edit_or_merge_dialog_open_when_the_server_went_away_says_why_and_saves_once_it_is_back(
        qtbot, wait, request, lang, pg_server, pg_schema, tmp_path):
    """An edit dialog (and a merge dialog) opened while the server answered, then the server went away: 确定
    stayed enabled and the save failed after. Each says why in the wall's words and does not save while the
    server is away, keeping what the person typed; once the server is back, 确定 saves it."""
    from PySide6.QtWidgets import QDialogButtonBox

    from sonetto_desktop import ops
    from sonetto_desktop.services import AppServices
    from sonetto_desktop.ui.memory_service import MemoryService
    from sonetto_desktop.ui.wall.memory_wall import MemoryWall
    from tcp_proxy import TcpProxy, proxied_url

    request.getfixturevalue(lang)
    proxy = TcpProxy(pg_server.port)
    settings = Settings(data_dir=str(tmp_path / "data"), retrieval_mode="mechanical", store_backend="postgres",
                        postgres_url=proxied_url(pg_server, proxy), postgres_schema=pg_schema, device_name="laptop")
    services = await AppServices.open(settings=settings)
    service = MemoryService(services)
    try:
        cat = await service.run(ops.AddMemory("小林喜欢猫", "品味", ""))
        dog = await service.run(ops.AddMemory("小林也喜欢狗", "品味", ""))
        fish = await service.run(ops.AddMemory("小林养了鱼", "品味", ""))
        wall = MemoryWall(service)
        qtbot.addWidget(wall)
        wall.resize(900, 700)
        wall.show()
        await wall.reload()
        await wait(lambda: not wall.loading() and wall.model.card(dog) is not None, message="the cards")
        await wait(lambda: services.store.feed.listener.connected, timeout=10, message="the listener")
        edit = wall.actions.edit_card(cat)
        edit.description_edit.setPlainText("小林喜欢橘猫")
        merge = wall.actions.merge_cards(dog, fish)
        merge.description_edit.setPlainText("小林喜欢狗，养了鱼")
        dialogs = (edit, merge)
        ok = [dialog.buttons.button(QDialogButtonBox.StandardButton.Ok) for dialog in dialogs]
        assert all(button.isEnabled() for button in ok)

        proxy.cut()
        await wait(lambda: not wall.add_button.isEnabled(), timeout=20, message="the server away")
        reason = wall.add_button.toolTip()
        for dialog, button in zip(dialogs, ok, strict=True):
            assert not button.isEnabled() and dialog.hint.text() == reason, dialog.hint.text()
            dialog.accept()  # (Ctrl+Enter, or a click that came first): nothing is tried
            assert dialog.isVisible()
        assert edit.values()[0] == "小林喜欢橘猫" and merge.values()[2] == "小林喜欢狗，养了鱼"  # what was typed stays
        assert not [toast.text for toast in wall.toasts.toasts() if toast.kind == "error"]  # (no failed save)

        proxy.restore()
        await wait(lambda: wall.add_button.isEnabled(), timeout=20, message="the server back")
        assert all(button.isEnabled() for button in ok) and edit.hint.text() == "" and merge.hint.text() == ""
        ok[0].click()
        await wait(lambda: wall.model.card(cat) is not None and wall.model.card(cat)[1] == "小林喜欢橘猫",
                   timeout=10, message="the edit saved")
        ok[1].click()
        await wait(lambda: wall.model.card(fish) is None and wall.model.card(dog)[1] == "小林喜欢狗，养了鱼",
                   timeout=10, message="the merge saved")
    finally:
        service.close()
        await services.close()
        proxy.close()


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_new_looks_unavailable_while_changes_are_refused(qtbot, wall, mode):
    """While the memory server does not answer, 新建 is disabled: it was drawn in the text's own colour, as if
    it could be clicked. It is drawn muted."""
    from PySide6.QtGui import QColor

    from sonetto_desktop.ui.theme import stylesheet, tokens

    wall.setStyleSheet(stylesheet(mode))
    button = wall.add_button
    button.setEnabled(False)
    image = button.grab().toImage()
    pixels = [color.lightness() for x in range(image.width()) for y in range(image.height())
              if (color := image.pixelColor(x, y)).alpha() == 255]
    muted, text = QColor(tokens(mode)["muted"]).lightness(), QColor(tokens(mode)["text"]).lightness()
    assert abs(muted - text) > 40  # (a test that can tell them apart)
    if mode == "light":  # no pixel near the text's own colour: the words are muted
        assert min(pixels) > text + 20, (min(pixels), muted, text)
    else:
        assert max(pixels) < text - 20, (max(pixels), muted, text)


@pytest.mark.parametrize("lang", ["chinese", "english"])
async def test_forgetting_from_the_chat_and_importing_chats_are_refused_up_front_while_the_server_is_away(
        qapp, tmp_path, llm_server, pg_server, pg_schema, wait, request, lang):
    """While the memory server was away, 别记住这个, 忘掉这条 and 撤销这轮的记忆变化 (the window's chat and the quick
    chat), 编辑 ▸ 撤销 and 导入聊天记录… were taken, and failed later (the write: the menu's undo was then no longer
    offered) or opened a window to fill in for nothing. They are refused up front with the wall's reason, in the
    same toast, and work again once the server is back."""
    from shell_fixtures import app_settings, running_app
    from sonetto_desktop import ops
    from tcp_proxy import TcpProxy, proxied_url

    request.getfixturevalue(lang)
    proxy = TcpProxy(pg_server.port)
    settings = app_settings(tmp_path / "data", llm_server, store_backend="postgres", postgres_schema=pg_schema,
                            postgres_url=proxied_url(pg_server, proxy), device_name="laptop")
    try:
        async with running_app(qapp, settings) as app:
            memory_id = await app.service.run(ops.AddMemory("小林喜欢猫", "品味", ""))
            await wait(lambda: app.services.store.feed.listener.connected, timeout=10, message="the listener")
            await wait(lambda: memory_id in app.services.store.copy.load()[0], timeout=10, message="the copy")
            proxy.cut()
            wall = app.wall
            await wait(lambda: not wall.add_button.isEnabled(), timeout=20, message="the server away")
            reason = wall.add_button.toolTip()
            assert reason and reason == app.service.changes_refused()

            def refusals() -> list[str]:
                return [toast.text for toast in app.toasts.toasts() if toast.key == "changes-refused"]

            def tries() -> int:
                return sum(toast.repeats for toast in app.toasts.toasts() if toast.key == "changes-refused")

            panel, quick = app.window.chat_panel, app.quick_chat.view
            panel.forget_memory_requested.emit(memory_id)
            await wait(lambda: refusals(), message="忘掉这条 refused")
            assert refusals() == [reason]
            panel.forget_turn_requested.emit("我的前任叫李雷", "turn-1")
            quick.forget_turn_requested.emit("我的前任叫李雷", "turn-1")
            quick.forget_memory_requested.emit(memory_id)
            app.window.history_import_requested.emit()
            panel.undo_memory_requested.emit("turn-1")
            quick.undo_memory_requested.emit("turn-1")
            label = app.memory_undo.undo_label  # (the memory added above)
            assert label is not None and app.memory_undo.undo() is None
            await wait(lambda: tries() == 8, message="all refused")
            assert len(refusals()) == 1 and refusals()[0].startswith(reason)  # one toast, the wall's words, counting
            assert app.history_imports.dialog is None  # no window to fill in for nothing
            assert not app.services.dont_remember.entries()
            assert await app.service.run(ops.Item(memory_id)) is not None  # (this computer's copy, untouched)
            assert app.memory_undo.undo_label == label  # still offered

            proxy.restore()
            await wait(lambda: wall.add_button.isEnabled(), timeout=20, message="the server back")
            app.window.history_import_requested.emit()
            assert app.history_imports.dialog is not None and app.history_imports.dialog.isVisible()
            app.history_imports.dialog.reject()
            panel.forget_memory_requested.emit(memory_id)
            await wait(lambda: wall.model.card(memory_id) is None, timeout=10, message="forgotten once it is back")
            await app.service.drain()
            undoing = app.memory_undo.undo()  # 忘掉这条 taken back
            assert undoing is not None
            await undoing
            await wait(lambda: wall.model.card(memory_id) is not None, timeout=10, message="undone once it is back")
    finally:
        proxy.close()


async def test_an_import_whose_window_was_open_when_the_server_went_away_says_why_it_does_not_start(
        qapp, tmp_path, llm_server, pg_server, pg_schema, wait, chinese):
    """导入聊天记录 opened while the server answered, its preview shown, then the server went away: 开始导入
    says why in the window, the wall's words, and starts nothing; once the server is back it starts."""
    from history_helpers import fixture
    from shell_fixtures import app_settings, running_app
    from tcp_proxy import TcpProxy, proxied_url

    proxy = TcpProxy(pg_server.port)
    settings = app_settings(tmp_path / "data", llm_server, store_backend="postgres", postgres_schema=pg_schema,
                            postgres_url=proxied_url(pg_server, proxy), device_name="laptop")
    try:
        async with running_app(qapp, settings) as app:
            await wait(lambda: app.services.store.feed.listener.connected, timeout=10, message="the listener")
            dialog = app.history_imports.open_dialog(app.window)
            assert await dialog.open_path(fixture("chatgpt_conversations.json"))
            await wait(lambda: dialog.start_button.isEnabled(), message="the plan")
            proxy.cut()
            await wait(lambda: not app.wall.add_button.isEnabled(), timeout=20, message="the server away")
            reason = app.wall.add_button.toolTip()
            assert await dialog.start() is None
            assert dialog.summary.text() == reason and app.history_imports.running is None
            assert dialog.stack.currentWidget() is dialog.preview_page

            proxy.restore()
            await wait(lambda: app.wall.add_button.isEnabled(), timeout=20, message="the server back")
            assert await dialog.start() is not None
            assert dialog.stack.currentWidget() is dialog.progress
    finally:
        proxy.close()


async def test_an_import_resumed_at_start_waits_for_the_server_in_its_place_and_says_so_once(
        qapp, tmp_path, llm_server, pg_server, pg_schema, wait, chinese):
    """An import running when the app stopped goes on by itself at the next start. With the memory server away
    then it was not refused as one the person starts is: it waits, in its place (not failed, nothing lost),
    says so once, and goes on to its end when the server answers."""
    from history_helpers import fixture, remember_each_line
    from shell_fixtures import app_settings, running_app
    from sonetto_desktop.history_import.ledger import RUNNING
    from tcp_proxy import TcpProxy, proxied_url

    llm_server.responder = remember_each_line
    proxy = TcpProxy(pg_server.port)
    settings = app_settings(tmp_path / "data", llm_server, store_backend="postgres", postgres_schema=pg_schema,
                            postgres_url=proxied_url(pg_server, proxy), device_name="laptop")
    try:
        async with running_app(qapp, settings) as app:
            imports = app.history_imports.imports
            history = await imports.read(fixture("history.jsonl"))
            llm_server.delay = 0.5
            state = await app.history_imports.start(await imports.plan(history), history, file_name="history.jsonl")
            await wait(lambda: llm_server.requests, timeout=20, message="the first batch sent")
        assert imports.ledger.get(state.id).status == RUNNING  # (the app quit while it ran: it goes on next time)
        llm_server.delay = 0
        proxy.cut()
        async with running_app(qapp, settings) as app:
            assert not app.wall.add_button.isEnabled()
            reason = app.wall.add_button.toolTip()
            ledger = app.history_imports.imports.ledger
            await wait(lambda: any("JSON Lines" in toast.text for toast in app.toasts.toasts())
                       or ledger.get(state.id).status != RUNNING, timeout=20, message="the start-up's resume")
            said = [toast.text for toast in app.toasts.toasts()]
            waits = [text for text in said if "等记忆服务器回答后再继续" in text]
            assert len(waits) == 1 and "JSON Lines" in waits[0] and reason in waits[0], said
            assert app.history_imports.running is None
            assert ledger.get(state.id).status == RUNNING and ledger.get(state.id).failed_batches == 0

            proxy.restore()
            await wait(lambda: ledger.get(state.id).status != RUNNING, timeout=30, message="the import went on")
            done = ledger.get(state.id)
            assert done.failed_batches == 0 and done.turns_written == done.turns, done
            assert app.services.memory.count() == 3
    finally:
        proxy.close()


@pytest.mark.parametrize("lang", ["chinese", "english"])
async def test_the_overwrite_question_names_the_computer_the_memory_was_changed_on(
        qtbot, wait, request, pg_url, pg_schema, lang):
    """A memory the laptop changed while the desk's person edited it: the question said only "你编辑这条记忆的时候，
    它被改过了", not where. It names the other computer; a change made on this one (Sonetto's here) reads as before."""
    from service_fixtures import memory_service_over
    from sonetto_desktop.memory.stores.postgres.store import PostgresMemoryManager
    from sonetto_desktop.ui.wall.memory_wall import MemoryWall

    request.getfixturevalue(lang)
    laptop = PostgresMemoryManager(pg_url, schema=pg_schema, device="笔记本")
    desk = PostgresMemoryManager(pg_url, schema=pg_schema, device="台式机")
    services = memory_service_over(desk)
    service = next(services)
    try:
        memory_id = desk.add("小林喜欢猫", "品味", actor="user")
        wall = MemoryWall(service)
        qtbot.addWidget(wall)
        wall.resize(900, 700)
        wall.show()
        await wall.reload()
        await wait(lambda: not wall.loading() and wall.model.card(memory_id) is not None, message="the card")

        async def asked(change) -> str:
            """The question when ``change()`` is made while the person edits the memory (then 取消)."""
            dialog = wall.actions.edit_card(memory_id)
            change()
            dialog.description_edit.setPlainText("小林喜欢橘猫")
            before = wall.actions.last_question
            dialog.accept()
            await wait(lambda: wall.actions.last_question not in (None, before) and wall.actions.last_question.isVisible(),
                       timeout=10, message="the question")
            box = wall.actions.last_question
            said = box.text()
            box.defaultButton().click()  # 取消: the edit opens again, with what was typed
            await wait(lambda: wall.actions.active_dialog not in (None, dialog), message="the edit again")
            wall.actions.active_dialog.reject()
            return said

        said = await asked(lambda: laptop.update(memory_id, "更具体", new_description="小林养了两只猫", actor="user"))
        if lang == "chinese":
            assert said.startswith("你编辑这条记忆的时候，它在 笔记本 上被改过了。"), said
        else:
            assert "on 笔记本" in said.split("\n")[0], said
            assert not any("\u4e00" <= ch <= "\u9fff" for ch in said.replace("笔记本", "").replace(
                "小林养了两只猫", "").replace("小林喜欢橘猫", "")), said
        said = await asked(lambda: desk.update(memory_id, "整理", new_description="小林养了三只猫", actor="agent"))
        assert "台式机" not in said and "笔记本" not in said, said
        assert said.startswith("你编辑这条记忆的时候，它被改过了。" if lang == "chinese" else "This memory was changed"), said
    finally:
        next(services, None)
        laptop.close()
        desk.close()
