"""Child process for the writer-on-a-full-disk test: no file may grow past a limit (writes fail with
EFBIG, as on a full disk), so the store cannot take the turn's memory while the small journal files
still can. The writer must keep the turn, keep retrying (never give up) and say why; once the disk
has room again, ``retry_failed()`` writes it at once.

Usage: python writer_disk_child.py DATA_DIR BASE_URL
Prints one JSON line: the status while failing, the events, and the outcome after the retry.
"""

from __future__ import annotations

import asyncio
import json
import resource
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from langchain_openai import ChatOpenAI

from sonetto_desktop.memory import YamlMemoryManager
from sonetto_desktop.memory.writer import MemoryWriter
from waiting import until  # this script's folder is first on sys.path

LIMIT = 24 * 1024


async def main(data_dir: str, base_url: str) -> None:
    store = YamlMemoryManager(Path(data_dir) / "memory.yaml")
    for i in range(300):  # a store larger than the limit: its next rewrite fails
        store.add(f"用户记下的第{i}件小事，内容足够长以便文件超过限制", "瞬间")
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of being killed
    _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, hard))
    llm = ChatOpenAI(base_url=base_url, api_key="sk-test", model="test-model", max_retries=0, timeout=60)
    writer = MemoryWriter(store, llm, max_attempts=2, backoff=(0.05, 0.1))
    events: list[str] = []
    writer.events.subscribe(lambda e: events.append(e.kind))
    writer.start()
    await writer.send_history([{"role": "user", "content": "我喜欢猫"}])
    await until(lambda: events.count("failed") >= 4 and writer.status().retry_at is not None, 30)
    writer.backoff = (600.0,)  # from now on only retry_failed() can make it happen soon
    seen = events.count("failed")
    await until(lambda: events.count("failed") > seen and writer.status().retry_at is not None, 30)
    failing = writer.status()
    resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))  # room again
    await writer.retry_failed()
    await until(lambda: writer.pending == 0 and store.count() == 301, 30)
    await writer.stop()
    print(json.dumps({
        "failing": {"zh": failing.zh, "en": failing.en, "retry_at": failing.retry_at,
                    "can_retry": failing.can_retry, "pending": failing.pending, "last_error": failing.last_error},
        "events": events, "count": store.count(), "journal": len(writer.journal.pending()),
    }, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
