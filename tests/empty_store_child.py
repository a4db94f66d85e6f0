"""Child process for test_idle_footprint: starts AppServices as the app does (agents with an endpoint
configured and the built-in embeddings model, recall warmed at the first memory) on the empty store in
the directory given, and reports which of numpy and httpx are imported at idle; then the first memory
comes (added in a worker, as the card wall adds one) and the embeddings model computes its vector, and
it reports again, with the modules the loop thread imported meanwhile; then one chat message (JSON on
stdout)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lazy_llm_child import LoopThreadWork  # noqa: E402 - the tests folder is this script's own
from waiting import came  # noqa: E402

WATCHED = ("numpy", "httpx")


def loaded() -> list[str]:
    return sorted(name for name in WATCHED if name in sys.modules)


async def main(base_url: str, data_dir: str) -> None:
    from sonetto_desktop.aio import run_blocking
    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.services import AppServices

    settings = Settings(base_url=base_url, model="test-model", api_key="sk-test", data_dir=data_dir,
                        store_backend="sqlite", retrieval_mode="mechanical")
    on_loop = LoopThreadWork()
    services = await AppServices.open(settings=settings, start_agents=True, embeddings={"start_delay": 0})
    out: dict = {}
    try:
        await services.warm_up(mode=settings.retrieval_mode, empty_waits=True)  # as the app's start
        vectors = services._agents.vectors
        out["builtin"] = vectors.sync is not None and vectors.sync.config.builtin
        out["vectors_idle"] = await came(lambda: vectors.status.state == "idle")
        out["recalled_empty"] = await services.recall.aretrieve("我的猫叫什么", "mechanical")
        await asyncio.sleep(0.3)  # the writer, the tidy-up scheduler and the sync have taken their first steps
        out["idle_loaded"] = loaded()
        on_loop.on = True
        await run_blocking(services.memory.add, "用户养了一只叫汤圆的猫", "身份")
        out["vector_computed"] = await came(lambda: vectors.status.state == "idle" and vectors.status.done == 1)
        on_loop.on = False
        out["first_memory_loaded"] = loaded()
        out["first_memory_loop_imports"] = [name for name in on_loop.seen if name.split(".")[0] in WATCHED]
        out["ranked"] = await run_blocking(vectors.sync.rank, "我养了什么宠物", 1)
        session = await services.chat.new_session()
        events = [event async for event in services.chat.send(session.id, "汤圆今天学会了开门")]
        out["reply"] = events[-1].text
        out["after_send_loaded"] = loaded()
    finally:
        await services.close()
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
