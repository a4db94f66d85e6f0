"""Screenshots for the README: main window (light and dark), history dialog and quick chat, and the
surfaces of "memory you control" (issue 12): the per-turn toast, a temporary chat, the review inbox,
the don't-remember list and the settings' 记忆 tab, each light and dark; and the chat of issue 30: a
reply with a code block, a table and nested lists, and a search that finds messages.

Run under a virtual display with a CJK font installed::

    apt-get install -y xvfb fonts-noto-cjk      # once
    xvfb-run -a -s "-screen 0 1600x1000x24" python scripts/screenshots.py

Everything runs for real: a demo memory store in a temp dir, the app as ``sonetto`` builds it, and
the scripted OpenAI-compatible test server (``tests/llm_server.py``) on 127.0.0.1 standing in for
the model. Images go to ``docs/screenshots/``.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
OUT = ROOT / "docs" / "screenshots"

DEMO = [
    ("用户叫小林，在杭州做前端开发", "身份"),
    ("用户养了一只橘猫，名字叫年糕", "生活"),
    ("用户喜欢喝手冲咖啡，偏爱埃塞俄比亚豆子", "偏好"),
    ("用户周末常去西湖边跑步，目标是明年跑半马", "运动"),
    ("用户下周三要给团队做 React 性能优化的分享", "工作"),
    ("用户对花生过敏", "健康"),
    ("用户最近在读《三体》第二部", "兴趣"),
    ("用户不喜欢加班到太晚，希望十点前睡觉", "偏好"),
]

REPLY = (
    "下周三的分享准备得怎么样啦？我记得你要讲 **React 性能优化**。可以按这个顺序来：\n\n"
    "1. 先用 Profiler 找到真正慢的组件\n"
    "2. 再讲 `memo` / `useMemo` 什么时候值得用\n"
    "3. 最后留一个小 demo\n\n"
    "讲完记得早点休息，别又熬到十点以后哦～"
)


def _seed(data_dir: Path) -> str:
    from sonetto_desktop.memory import YamlMemoryManager

    mm = YamlMemoryManager(data_dir / "memory.yaml")
    ids = [mm.add(text, theme, actor="agent", reason="对话中提到") for text, theme in DEMO]
    mm.update(ids[4], "分享时间改了", new_description="用户下周三要给团队做 React 性能优化的分享（原定周二）",
              actor="agent")
    mm.update(ids[4], "用户补充了细节", new_description="用户下周三下午要给团队做 React 性能优化的分享，需要准备 demo")
    for _ in range(3):
        mm.hit(ids[4])
    mm.hit(ids[1])
    mm.close()
    return ids[4]


async def _shoot(qapp) -> None:
    from llm_server import ScriptedLLMServer, TextResponse

    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.ui.dialogs.history import HistoryDialog
    from sonetto_desktop.ui.shell import SonettoApp

    OUT.mkdir(parents=True, exist_ok=True)
    server = ScriptedLLMServer()
    server.start()
    server.default = TextResponse("好的")  # the memory writer's calls: a plain answer, nothing to change
    try:
        data_dir = Path(os.environ["SONETTO_DATA_DIR"])
        memory_id = _seed(data_dir)
        settings = Settings(base_url=server.base_url, model="test-model", api_key="sk-demo", theme="light",
                            retrieval_mode="mechanical", data_dir=str(data_dir))
        app = SonettoApp(qapp, settings, interactive=False)
        await app.start()
        app.window.resize(1360, 820)
        await app.wall_loaded
        await app.wait_until_ready()
        server.add_text(REPLY)
        task = app.controller.send("帮我想想下周三的分享怎么讲？")
        await task
        await asyncio.sleep(0.6)
        app.window.grab().save(str(OUT / "main-light.png"))

        app.theme.set_setting("dark")
        await asyncio.sleep(0.4)
        app.window.grab().save(str(OUT / "main-dark.png"))
        app.theme.set_setting("light")

        dialog = HistoryDialog(app.service, memory_id, app.window)
        dialog.show()
        await dialog.wait_loaded()
        await asyncio.sleep(0.3)
        dialog.grab().save(str(OUT / "history-dialog.png"))
        dialog.close()

        app.show_quick_chat()
        await asyncio.sleep(0.4)
        app.quick_chat.grab().save(str(OUT / "quick-chat.png"))
        app.quick_chat.hide()
        await _control_shots(app, server)
        await _chat_shots(app, server)
        await app.shutdown()

        # First run without a model: the welcome panel, with the wall working offline.
        first_run = SonettoApp(qapp, Settings(theme="light", data_dir=str(data_dir)), interactive=False)
        await first_run.start()
        first_run.window.resize(1360, 820)
        await first_run.wall_loaded
        await first_run.wait_until_ready()
        await asyncio.sleep(0.5)
        first_run.window.grab().save(str(OUT / "welcome.png"))
        await first_run.shutdown()
    finally:
        server.stop()
    for name in sorted(OUT.glob("*.png")):
        print(name.relative_to(ROOT))


async def _control_shots(app, server) -> None:
    """Issue 12's surfaces, light and dark."""
    from sonetto_desktop.memory.changes import Turn

    # a writer turn that remembers two things and updates one: one summary toast with 撤销
    server.add_text("恭喜！新家离公司近了好多吧")
    keep = next(mid for mid, item in app.services.memory.all_items().items() if "杭州" in item.description)
    server.add_tool_calls([
        ("create_memory", {"content": "用户搬到了杭州滨江区", "section": "生活"}),
        ("create_memory", {"content": "用户的新家离公司走路十分钟", "section": "生活"}),
        ("update_memory", {"id": keep, "content": "用户叫小林，在杭州滨江做前端开发", "reason": "用户说搬到了滨江"}),
    ])
    await app.controller.send("我搬到滨江啦，走路十分钟就到公司")
    for _ in range(100):
        if app.writer.pending == 0 and not app.writer.busy:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    for mode in ("light", "dark"):
        app.theme.set_setting(mode)
        await asyncio.sleep(0.4)
        app.window.grab().save(str(OUT / f"turn-toast-{mode}.png"))
    app.theme.set_setting("light")

    await app.window.chat_panel.new_session(temporary=True)
    server.add_text("好呀，这次只是随便聊聊，我不会记下来的。")
    await app.controller.send("这次就随便聊聊，不用记")
    await asyncio.sleep(0.6)
    for mode in ("light", "dark"):
        app.theme.set_setting(mode)
        await asyncio.sleep(0.4)
        app.window.grab().save(str(OUT / f"temporary-chat-{mode}.png"))
    app.theme.set_setting("light")

    inbox = app.services.review
    turn = Turn("demo-turn", "s1", "我开始学尤克里里了，想在年会上弹一首")
    inbox.propose("create", description="用户在学尤克里里，想在年会上表演", theme="兴趣", reason="用户说开始学了", turn=turn)
    inbox.propose("update", memory_ids=(keep,), description="用户叫小林，在杭州滨江做前端开发，最近在学尤克里里",
                  reason="补充爱好", turn=turn, before=("用户叫小林，在杭州滨江做前端开发",))
    dialogs = [(app.open_review, "review-inbox"), (app.open_dont_remember, "dont-remember")]
    app.services.dont_remember.add("我前任的名字")
    app.services.dont_remember.add("我的体重")
    for opener, name in dialogs:
        dialog = opener()
        dialog.resize(620, 440)
        await dialog.loading
        for mode in ("light", "dark"):
            app.theme.set_setting(mode)
            await asyncio.sleep(0.4)
            dialog.grab().save(str(OUT / f"{name}-{mode}.png"))
        app.theme.set_setting("light")
        dialog.close()
    settings = app.open_settings()
    from PySide6.QtWidgets import QTabWidget

    tabs = settings.findChild(QTabWidget)
    tabs.setCurrentIndex(1)
    for mode in ("light", "dark"):
        app.theme.set_setting(mode)
        await asyncio.sleep(0.4)
        settings.grab().save(str(OUT / f"settings-memory-{mode}.png"))
    app.theme.set_setting("light")
    settings.reject()


RICH = """看这段代码（很长的一行可以横向滚动，右上角可以复制）：

```python
def schedule_share(day: str = "周三", topic: str = "React 性能优化", audience: str = "前端组", duration_minutes: int = 45):
    return {"day": day, "topic": topic}
```

| 环节 | 时长 | 备注 |
|---|--:|---|
| Profiler 演示 | 10 分钟 | 先找到慢的组件 |
| memo / useMemo | 15 分钟 | 什么时候值得用 |
| 问答 | 10 分钟 | |

1. 准备
   - 录一段 Profiler 的截图
   - 写好 demo
2. 彩排
   1. 周一晚上
   2. 周二中午
"""


async def _chat_shots(app, server) -> None:
    """Issue 30: code, a table and nested lists in a reply; a search that finds messages."""
    panel = app.window.chat_panel
    await panel.new_session()
    server.add_text(RICH)
    await app.controller.send("帮我排一下分享的流程，顺便给段代码")
    await asyncio.sleep(0.8)
    for mode in ("light", "dark"):
        app.theme.set_setting(mode)
        await asyncio.sleep(0.5)
        app.window.grab().save(str(OUT / f"chat-rich-reply-{mode}.png"))
    app.theme.set_setting("light")
    panel.search_box.setText("分享，demo")
    for _ in range(100):
        if panel.message_hits():
            break
        await asyncio.sleep(0.05)
    panel.session_list.setCurrentItem(panel.message_hits()[0])
    await asyncio.sleep(0.8)
    app.window.grab().save(str(OUT / "chat-search-light.png"))
    panel.search_box.clear()


def main() -> int:
    if not os.environ.get("DISPLAY") and os.environ.get("QT_QPA_PLATFORM") != "offscreen":
        print("no display: run under xvfb-run (see the module docstring)", file=sys.stderr)
        return 2
    home = Path(tempfile.mkdtemp(prefix="sonetto-shots-"))
    os.environ["SONETTO_DATA_DIR"] = str(home / "data")
    os.environ["SONETTO_CONFIG_DIR"] = str(home / "config")
    os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    os.environ.setdefault("QT_API", "pyside6")
    import qasync

    from sonetto_desktop.ui.app import create_qapp

    qapp = create_qapp([])
    qapp.setFont(qapp.font())
    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(qapp)) as runner:
        runner.run(_shoot(qapp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
