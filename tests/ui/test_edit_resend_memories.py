"""Edit and resend (issue 30 item 6): what the replaced turn made Sonetto remember is taken back
before the new turn runs (so its recall no longer finds it), as one undoable action, and a toast
says so with 撤销; the editing bar says it up front. The whole app with the scripted model."""

from __future__ import annotations

import asyncio

from shell_fixtures import app_settings, running_app


async def _settle(app) -> None:
    for _ in range(600):
        if app.writer.pending == 0 and not app.writer.busy:
            return
        await asyncio.sleep(0.025)
    raise AssertionError("the writer did not finish")


async def _turn(app, wait, text: str) -> None:
    panel = app.window.chat_panel
    panel.composer.set_text(text)
    panel.composer.submit()
    await wait(lambda: app.controller.busy, message="turn started")
    await wait(lambda: not app.controller.busy, timeout=30, message="turn finished")
    await _settle(app)


def _descriptions(app) -> set[str]:
    return {item.description for item in app.services.memory.all_items().values()}


async def test_editing_a_message_takes_back_what_its_turn_remembered(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        panel = app.window.chat_panel
        llm_server.add_text("好的，记下了", to="chat")
        llm_server.add_tool_calls([("create_memory", {"content": "用户下周五复查", "section": "健康"})], to="writer")
        await _turn(app, wait, "我下周五复查")
        assert _descriptions(app) == {"用户下周五复查"}
        [friday] = app.services.memory.all_items()

        panel.view.bubbles[0].edit_button.click()
        assert "撤销" in panel.composer.editing_bar.findChild(type(panel.no_hits)).text()  # said up front
        llm_server.add_text("好的，改成周四", to="chat")
        llm_server.add_tool_calls([("create_memory", {"content": "用户下周四复查，不是周五", "section": "健康"})],
                                  to="writer")
        panel.composer.set_text("我下周四复查，不是周五")
        panel.composer.submit()
        await wait(lambda: not app.controller.busy and panel.view.bubbles[-1].text == "好的，改成周四", timeout=30)
        await _settle(app)
        await wait(lambda: _descriptions(app) == {"用户下周四复查，不是周五"}, message="only the new memory")
        assert friday not in {m["id"] for m in panel.view.bubbles[-1].memories}  # not recalled by the new turn
        assert [row["id"] for row in app.services.memory.trash()] == [friday]
        toast = next(t for t in app.toasts.toasts() if t.key.startswith("withdraw:"))
        assert "撤销" in toast.text and "1" in toast.text
        [row] = app.services.memory.trash()
        assert "编辑" in row["reason"]

        toast.action_button.click()  # 撤销: the replaced turn's memory comes back
        await wait(lambda: friday in app.services.memory.all_items(), message="brought back")


async def test_regenerating_a_reply_keeps_what_the_turn_remembered(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        panel = app.window.chat_panel
        llm_server.add_text("好的", to="chat")
        llm_server.add_tool_calls([("create_memory", {"content": "用户喜欢山竹", "section": "品味"})], to="writer")
        await _turn(app, wait, "我喜欢山竹")
        llm_server.add_text("再说一次：好的", to="chat")
        llm_server.add_text("没有新东西", to="writer")
        panel.view.bubbles[1].regenerate_button.click()  # the same words, answered again
        await wait(lambda: not app.controller.busy and panel.view.bubbles[-1].text == "再说一次：好的", timeout=30)
        await _settle(app)
        assert _descriptions(app) == {"用户喜欢山竹"}
        assert not [t for t in app.toasts.toasts() if t.key.startswith("withdraw:")]
