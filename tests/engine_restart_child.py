"""Child process for the survive-a-restart test: chat one turn, close everything, exit.

Usage: python engine_restart_child.py DATA_DIR BASE_URL TEXT
Prints the session id on the last line of stdout; exits non-zero if the turn did not finish.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from langchain_openai import ChatOpenAI  # noqa: E402

from sonetto_desktop.agent.engine import ChatEngine  # noqa: E402
from sonetto_desktop.memory import YamlMemoryManager  # noqa: E402

sys.path.insert(0, str(ROOT / "tests"))
from ltm_helpers import make_ltm  # noqa: E402


async def main(data_dir: Path, base_url: str, text: str) -> int:
    mm = YamlMemoryManager(data_dir / "memory.yaml")
    ltm = make_ltm(mm, start=True)
    engine = ChatEngine(
        ltm,
        data_dir=data_dir,
        llm_factory=lambda: ChatOpenAI(
            base_url=base_url, api_key="sk-test", model="test-model", max_retries=0, timeout=10, streaming=True
        ),
    )
    await engine.start()
    try:
        session = await engine.create_session()
        kinds = [event.kind async for event in engine.send(session.id, text)]
    finally:
        await engine.close()
        await ltm.writer.stop(timeout=1)
        mm.close()
    print(session.id)
    return 0 if kinds and kinds[-1] == "done" else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(Path(sys.argv[1]), sys.argv[2], sys.argv[3])))
