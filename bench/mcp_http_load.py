"""Many MCP clients at once against ``sonetto mcp --http`` (issue 35, item 9).

    python -m bench.mcp_http_load [--clients 100] [--adds 5] [--max-connections N] [--store yaml|sqlite]

Starts ``sonetto mcp --http --port 0`` on a fresh config and data folder (a throwaway temp dir),
then ``--clients`` clients of the official MCP SDK (``streamable_http_client`` + ``ClientSession``,
each with its own HTTP connection pool, as separate apps have) connect at the same moment and each
calls ``add_memory`` ``--adds`` times in a row. Reported: calls that succeeded and failed (and the
first errors), the memories the store holds afterwards, the time of the whole run and each call's
latency (median, p95, max). ``--max-connections`` lowers the server's connection cap
(``SONETTO_MCP_MAX_CONNECTIONS``) to see the queue at work with fewer clients.

Not a test: the numbers go to docs/benchmarks.md (the test suite runs a small version:
``tests/test_mcp_http.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


async def _server(env: dict[str, str]) -> tuple[asyncio.subprocess.Process, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "sonetto_desktop", "mcp", "--http", "--port", "0", env=env, cwd=str(ROOT),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    while True:
        line = await asyncio.wait_for(proc.stderr.readline(), 60)
        if not line:
            raise SystemExit("the server exited before listening")
        found = re.search(rb"listening on (http://\S+)", line)
        if found:
            return proc, found.group(1).decode()


async def _client(n: int, url: str, token: str, adds: int, start: asyncio.Event,
                  latencies: list[float], errors: Counter) -> int:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
    from mcp_types import Implementation

    await start.wait()
    stored = 0
    try:
        async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http:
            async with streamable_http_client(url, http_client=http) as (read, write):
                async with ClientSession(read, write, client_info=Implementation(name=f"load-{n}", version="1")) as s:
                    await s.initialize()
                    for i in range(adds):
                        began = time.perf_counter()
                        result = await s.call_tool("add_memory", {"description": f"第{n}个应用的第{i}条记忆",
                                                                  "theme": "压力测试"})
                        latencies.append(time.perf_counter() - began)
                        if result.is_error:
                            errors[" ".join(getattr(b, "text", "") for b in result.content)[:120]] += 1
                        else:
                            stored += 1
    except Exception as exc:  # noqa: BLE001 - a benchmark counts every kind of failure
        errors[f"{type(exc).__name__}: {str(exc)[:100]}"] += 1
    return stored


async def run(clients: int, adds: int, max_connections: int | None, store: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="sonetto-mcp-load-") as tmp:
        env = dict(os.environ, SONETTO_CONFIG_DIR=f"{tmp}/config", SONETTO_DATA_DIR=f"{tmp}/data",
                   PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring", PYTHONPATH=str(ROOT))
        for name in ("SONETTO_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "SONETTO_MODEL"):
            env.pop(name, None)
        if max_connections:
            env["SONETTO_MCP_MAX_CONNECTIONS"] = str(max_connections)
        os.environ.update({k: env[k] for k in ("SONETTO_CONFIG_DIR", "SONETTO_DATA_DIR", "PYTHON_KEYRING_BACKEND")})
        from sonetto_desktop.config.secrets import mcp_token
        from sonetto_desktop.config.settings import Settings

        settings = Settings.load(with_secret=False)
        settings.store_backend = store
        settings.save(with_secret=False)
        proc, url = await _server(env)
        drain = asyncio.ensure_future(proc.stderr.read())
        try:
            token = mcp_token(create=False)
            start = asyncio.Event()
            latencies: list[float] = []
            errors: Counter = Counter()
            tasks = [asyncio.ensure_future(_client(n, url, token, adds, start, latencies, errors))
                     for n in range(clients)]
            await asyncio.sleep(0.2)
            began = time.perf_counter()
            start.set()
            ok = sum(await asyncio.gather(*tasks))
            elapsed = time.perf_counter() - began
        finally:
            proc.terminate()
            await asyncio.wait_for(proc.wait(), 60)
            log = (await drain).decode("utf-8", "replace")
        from sonetto_desktop.services import AppServices

        services = await AppServices.open(watch=False)
        try:
            held = services.memory.count()
        finally:
            await services.close()
    latencies.sort()
    return {"clients": clients, "adds": adds, "cap": max_connections or "default", "ok": ok,
            "failed": sum(errors.values()), "stored": held, "seconds": round(elapsed, 2),
            "p50_ms": round(statistics.median(latencies) * 1000, 1) if latencies else None,
            "p95_ms": round(latencies[int(0.95 * (len(latencies) - 1))] * 1000, 1) if latencies else None,
            "max_ms": round(latencies[-1] * 1000, 1) if latencies else None,
            "errors": errors.most_common(3), "server_log_lines": len(log.splitlines())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--adds", type=int, default=5)
    parser.add_argument("--max-connections", type=int, default=None)
    parser.add_argument("--store", choices=("yaml", "sqlite"), default="yaml")
    args = parser.parse_args()
    print(asyncio.run(run(args.clients, args.adds, args.max_connections, args.store)))


if __name__ == "__main__":
    main()
