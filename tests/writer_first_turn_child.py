"""Child process for test_lazy_llm: starts AppServices with an endpoint configured (the scripted server
given on the command line) and lets the memory writer write one turn before any chat message (its
first turn imports the LLM stack), then reports which modules were imported on the loop thread
meanwhile (JSON on stdout)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from lazy_llm_child import LoopThreadWork, loaded


async def main(base_url: str, data_dir: str) -> None:
    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.services import AppServices

    settings = Settings(base_url=base_url, model="test-model", api_key="sk-test", data_dir=data_dir,
                        retrieval_mode="mechanical")
    services = await AppServices.open(settings=settings, start_agents=True)
    on_loop = LoopThreadWork()
    await asyncio.sleep(0.2)  # the writer's first steps
    out: dict = {"before_turn": loaded()}
    on_loop.on = True
    await services.writer.send_history([{"role": "user", "content": "汤圆今天学会了开门"},
                                        {"role": "assistant", "content": "真聪明"}], session_id="first")
    for _ in range(400):
        if services.writer.pending == 0 and not services.writer.busy and services.store.count() > 0:
            break
        await asyncio.sleep(0.05)
    on_loop.on = False
    out.update(turn_loop_imports=on_loop.seen, after_turn=loaded(), memories=services.store.count(),
               writer_error=services.writer.last_error)
    await services.close()
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
