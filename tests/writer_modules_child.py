"""Child process for test_writer_loop: the writer's path without a chat — a history import and a turn
another app handed over, through AppServices with the model at the scripted server given on the
command line — then which LangGraph / LangChain-agent modules got imported (JSON on stdout)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def agent_modules() -> list[str]:
    return sorted(name for name in sys.modules if name.split(".")[0] == "langgraph"
                  or name == "langchain.agents" or name.startswith("langchain.agents."))


async def main(base_url: str, data_dir: str) -> None:
    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.history_import.service import HistoryImports
    from sonetto_desktop.services import AppServices

    settings = Settings(data_dir=data_dir, store_backend="sqlite", retrieval_mode="mechanical", base_url=base_url,
                        model="test-model", api_key="sk-test")
    services = await AppServices.open(settings=settings, watch=False)
    imports = HistoryImports(services)
    try:
        history = await imports.read(HERE / "fixtures" / "history" / "history.jsonl")
        await imports.start(await imports.plan(history), history, file_name="history.jsonl")
        result = await asyncio.wait_for(imports.wait(), 60)
        await services.start_agents(chat=False)
        await services.writer.send_history([{"role": "user", "content": "我养了一只叫汤圆的猫"},
                                            {"role": "assistant", "content": "好可爱"}], actor="mcp:notes")
        for _ in range(400):
            if services.writer.pending == 0 and not services.writer.busy:
                break
            await asyncio.sleep(0.05)
        out = {"turns_written": result.turns_written, "memories": services.store.count(),
               "writer_error": services.writer.last_error, "agent_modules": agent_modules(),
               "chat_model": "langchain_openai" in sys.modules}
    finally:
        await imports.close()
        await services.close()
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
