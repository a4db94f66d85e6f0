"""One toast per writer turn with 撤销 (issue 12, capability 2): Sonetto's changes of a chat turn grow
one summary toast; its button takes the whole turn back. Real AppServices, writer and model server."""

from __future__ import annotations


import pytest
from PySide6.QtWidgets import QWidget

from helpers import writer_settled
from sonetto_desktop.memory.changes import MemoryChange
from sonetto_desktop.services import AppServices
from sonetto_desktop.ui.notices.toasts import ToastOverlay
from sonetto_desktop.presentation.turn_summary import TurnTallies, summarised
from sonetto_desktop.ui.memory_service import MemoryService
from sonetto_desktop.ui.notices.writer_toasts import WriterToasts, toast_for
from test_services import settings_for


@pytest.fixture
async def app(qtbot, llm_server, tmp_path):
    services = await AppServices.open(settings=settings_for(tmp_path, llm_server.base_url), watch=False)
    host = QWidget()
    qtbot.addWidget(host)
    host.resize(800, 600)
    overlay = ToastOverlay(host)
    revealed: list[str] = []
    service = MemoryService(services, host)
    toasts = WriterToasts(overlay, service, reveal=revealed.append, parent=host)
    yield services, overlay, toasts, revealed
    toasts.close()
    await services.close()


async def test_a_turn_is_one_summary_toast_and_its_button_undoes_the_turn(app, llm_server, wait):
    services, overlay, toasts, revealed = app
    city = services.memory.add("用户住在成都", "身份").ids[0]
    before = {mid: (i.description, i.theme) for mid, i in services.memory.all_items().items()}
    await services.start_agents()
    llm_server.add_text("上海很好呀")
    llm_server.add_tool_calls([
        ("create_memory", {"content": "用户在上海的新公司上班", "section": "身份"}),
        ("create_memory", {"content": "用户养了一只叫汤圆的猫", "section": "身份"}),
        ("update_memory", {"id": city, "content": "用户搬到了上海", "reason": "用户说搬家了"}),
    ])
    llm_server.add_text("已记录。")
    _ = [e async for e in services.chat.send("s1", "我搬到上海了，新公司挺好，还养了只猫")]
    await writer_settled(services)
    await wait(lambda: any(t.text == "记住了 2 条，更新了 1 条" for t in overlay.toasts()),
               message="one summary toast for the turn")
    [toast] = overlay.toasts()  # not one toast per memory
    assert toast.action_button.text() == "撤销"
    toast._on_click()  # what a click on the toast calls: the turn's first memory is revealed
    assert revealed and revealed[0] in services.memory.all_items()

    toast.action_button.click()
    await toasts.undoing
    after = {mid: (i.description, i.theme) for mid, i in services.memory.all_items().items()}
    assert after == before
    await wait(lambda: any(t.text == "已撤销这轮的 3 处记忆变化" for t in overlay.toasts()),
               message="the undo says what it did")


async def test_undo_refused_when_the_person_changed_a_memory_since(app, llm_server, wait):
    services, overlay, toasts, _ = app
    await services.start_agents()
    llm_server.add_text("好呀")
    llm_server.add_tool_calls([("create_memory", {"content": "用户喜欢山竹", "section": "品味"})])
    llm_server.add_text("已记录。")
    done = [e async for e in services.chat.send("s1", "我喜欢山竹")][-1]
    await writer_settled(services)
    await wait(lambda: any(t.text == "记住了：用户喜欢山竹" for t in overlay.toasts()), message="single-change text")
    [mid] = services.memory.all_items()
    services.memory.update(mid, description="用户很喜欢山竹", reason="我改的")
    toasts.undo_turn(done.turn_id)
    await toasts.undoing
    assert services.memory.get(mid).description == "用户很喜欢山竹"
    await wait(lambda: any(t.kind == "error" and "「用户很喜欢山竹」" in t.text for t in overlay.toasts()),
               message="the refusal names the memory")
    assert not any(mid in t.text for t in overlay.toasts())  # by its text, not its id


def _agent(kind: str, turn: str, mid: str = "a1") -> MemoryChange:
    return MemoryChange(kind, (mid,), "agent", "", turn, None, {}, {})


def test_summary_texts_for_the_clean_up_pass_and_quiet_rollbacks(qapp):
    tallies = TurnTallies()
    for n in range(3):
        tally = tallies.add(_agent("merge", "tidy-20261203-abc", f"m{n}"))
    assert tally.text() == "整理了 3 条记忆"
    assert not summarised(_agent("delete", "rollback-1")) and toast_for(_agent("delete", "rollback-1")) is None
    mixed = tallies.add(_agent("add", "t9", "x1"))
    tallies.add(_agent("delete", "t9", "x2"))
    assert mixed.text() == "记住了 1 条，删除了 1 条" and mixed.ids == ["x1"]


async def test_a_lock_that_refused_sonetto_is_said_once_with_a_way_to_unlock(app, llm_server, wait):
    services, overlay, toasts, revealed = app
    birthday = services.memory.add("用户的生日是3月5日", "身份").ids[0]
    services.memory.set_locked(birthday, True)
    await services.start_agents()
    update = ("update_memory", {"id": birthday, "content": "用户的生日是3月6日", "reason": "用户说的"})
    for turn in ("我生日其实是3月6日", "再说一次，我生日是3月6日"):  # two turns, the first trying twice
        llm_server.add_text("记下啦", to="chat")
        llm_server.add_tool_calls([update], to="writer")
        if turn.startswith("我"):
            llm_server.add_tool_calls([update], to="writer")
        llm_server.add_text("保持原样。", to="writer")
        _ = [e async for e in services.chat.send("s1", turn)]
        await writer_settled(services)
    await wait(lambda: any("已锁定" in t.text for t in overlay.toasts()), message="the refusal is said")
    told = [t for t in overlay.toasts() if "已锁定" in t.text]
    assert [t.text for t in told] == ["想更新「用户的生日是3月5日」，但它已锁定"]  # once, for both turns
    [toast] = told
    assert toast.action_button.text() == "解锁" and "×" not in toast.text
    toast._on_click()
    assert revealed == [birthday]
    toast.action_button.click()
    await toasts.unlocking
    assert services.memory.get(birthday).locked is False
    unlocked = services.memory.get(birthday).history[-1]
    from sonetto_desktop.memory.reasons import parse_reason

    assert unlocked["actor"] == "user" and parse_reason(unlocked["reason"]) == ("unlock.toast", ())
    await wait(lambda: any(t.text.startswith("已解锁") for t in overlay.toasts()), message="the unlock is said")
    assert services.memory.get(birthday).description == "用户的生日是3月5日"  # nothing changed behind the lock


def test_the_lock_refusal_text():
    from sonetto_desktop.memory.writer.events import WriterEvent

    spec = toast_for(WriterEvent("locked", "t1", detail="用户的生日是3月5日", memory_id="m1"))
    assert (spec.text, spec.unlock_id, spec.reveal_id, spec.repeat) == (
        "想更新「用户的生日是3月5日」，但它已锁定", "m1", "m1", False)
