"""Child process for test_lazy_llm: starts AppServices with an endpoint configured (the scripted
server given on the command line), does what an idle app does — list, create, delete and read sessions,
an offline recall, a memory added by the user, a tidy-up pass with nothing to tidy — and reports whether the LLM stack got imported;
then sends one chat message and lets the writer write it, and reports again (JSON on stdout)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

STACK = ("langchain_core", "langchain", "langgraph", "openai", "langchain_openai")


def loaded() -> list[str]:
    return sorted(name for name in STACK if name in sys.modules)


class LoopThreadWork:
    """While on: the modules imported on the loop (main) thread, and TLS contexts made there (each
    reads the CA bundle): the app's start must do both in worker threads."""

    def __init__(self) -> None:
        import ssl
        import threading

        self.on, self.seen = False, []
        main = threading.main_thread()
        sys.addaudithook(lambda event, args: self.on and event == "import" and threading.current_thread() is main
                         and self.seen.append(args[0]))
        original = ssl.create_default_context

        def create_default_context(*args, **kwargs):
            if self.on and threading.current_thread() is main:
                self.seen.append("ssl.create_default_context()")
            return original(*args, **kwargs)

        ssl.create_default_context = create_default_context


async def main(base_url: str, data_dir: str) -> None:
    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.services import AppServices

    settings = Settings(base_url=base_url, model="test-model", api_key="sk-test", data_dir=data_dir,
                        retrieval_mode="mechanical")
    on_loop = LoopThreadWork()
    on_loop.on = True
    services = await AppServices.open(settings=settings, start_agents=True)
    on_loop.on = False
    out: dict = {"configured": services.chat.configured, "writer_configured": services.writer.status().configured,
                 "loop_thread_work": on_loop.seen}
    services.memory.add("用户养了一只叫汤圆的猫", "身份")
    first = await services.chat.new_session()
    await services.chat.rename_session(first.id, "第一次")
    old = await services.chat.new_session()
    out["deleted"] = await services.chat.delete_session(old.id)  # deleting a chat: no LangGraph either
    out["sessions"] = [s.title for s in await services.chat.list_sessions()]
    out["transcript"] = await services.chat.transcript(first.id)
    await services.warm_up()
    out["recalled"] = [m["description"] for m in await services.recall.aretrieve("我的猫叫什么", "mechanical")]
    await services.apply_settings(services.settings)  # e.g. the settings dialog saved: still lazy
    report = await services.hygiene.run_once(force=True)  # the daily tidy-up: nothing for the model here
    out["hygiene"] = report.skipped if report is not None else None
    await asyncio.sleep(0.2)  # the writer and the tidy-up scheduler run their first steps
    out["idle_loaded"] = loaded()
    on_loop.seen, on_loop.on = [], True  # the first turn: nothing of the LLM stack imported on the loop
    await services.chat.prepare()  # the person starts typing: the turn's modules are imported now
    out["prepared_loaded"] = loaded()
    events = [event async for event in services.chat.send(first.id, "汤圆今天学会了开门")]
    on_loop.on = False
    out["turn_loop_imports"] = on_loop.seen
    out["events"] = [event.kind for event in events]
    out["reply"] = events[-1].text
    out["after_send_loaded"] = loaded()
    for _ in range(200):
        if services.writer.pending == 0 and not services.writer.busy and services.store.count() > 1:
            break
        await asyncio.sleep(0.05)
    out["memories"] = services.store.count()
    out["writer_error"] = services.writer.last_error
    await services.close()
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
