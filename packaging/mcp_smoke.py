"""Does ``sonetto mcp`` work from a built bundle? Speak MCP to it over stdio on a fresh data dir.

    python packaging/mcp_smoke.py [dist/sonetto/sonetto]

Plain JSON-RPC lines (no SDK needed on the checking side): initialize, list the tools, add a memory,
find it again, then close stdin; the server must answer each and exit 0. ``mcp --help`` must work too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_EXE = REPO / "dist" / "sonetto" / ("sonetto.exe" if os.name == "nt" else "sonetto")
TOOLS = {"search_memories", "list_memories", "add_memory", "update_memory", "delete_memory", "remember_conversation"}


def _request(rid: int, method: str, params: dict | None = None) -> dict:
    message = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        message["params"] = params
    return message


def _exchange(command: list[str], env: dict[str, str], messages: list[dict], timeout: float) -> tuple[int, dict, str]:
    """Send ``messages`` one line each, then EOF; return (exit code, responses by id, stderr)."""
    responses: dict[int, dict] = {}
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env=env) as proc:  # closes the pipes, whatever happens
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        try:
            for message in messages:
                proc.stdin.write((json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8"))
                proc.stdin.flush()
                if "id" not in message:
                    continue
                while message["id"] not in responses:  # wait for this answer before the next request
                    line = proc.stdout.readline()
                    if not line:
                        raise RuntimeError(f"the server closed its output: {_tail(proc.stderr.read())}")
                    reply = json.loads(line)
                    if "id" in reply:
                        responses[reply["id"]] = reply
            proc.stdin.close()
            code = proc.wait(timeout)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        stderr = _tail(proc.stderr.read())
    return code, responses, stderr


def _tail(data: bytes) -> str:
    return data.decode("utf-8", "replace").strip()[-300:]


def check_mcp(command: list[str] | str | Path, *, timeout: float = 60.0) -> list[str]:
    """Problems found running ``<command> mcp`` (empty when it works)."""
    base = [str(command)] if isinstance(command, (str, Path)) else list(command)
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="sonetto-mcp-smoke-") as scratch:
        env = dict(os.environ)
        for var in ("SONETTO_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "SONETTO_MODEL"):
            env.pop(var, None)
        env.update({"SONETTO_DATA_DIR": str(Path(scratch) / "data"), "SONETTO_CONFIG_DIR": str(Path(scratch) / "config"),
                    "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"})
        helped = subprocess.run([*base, "mcp", "--help"], capture_output=True, text=True, env=env, timeout=timeout)
        if helped.returncode != 0 or "Model Context Protocol" not in helped.stdout:
            problems.append(f"`mcp --help` failed (exit {helped.returncode}): {helped.stderr.strip()[-300:]}")
        init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "smoke", "version": "1"}}
        messages = [
            _request(1, "initialize", init),
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            _request(2, "tools/list", {}),
            _request(3, "tools/call", {"name": "add_memory", "arguments": {"description": "小林喜欢猫", "theme": "品味"}}),
            _request(4, "tools/call", {"name": "search_memories", "arguments": {"query": "猫"}}),
        ]
        try:
            code, replies, stderr = _exchange([*base, "mcp"], env, messages, timeout)
        except (OSError, RuntimeError, ValueError, subprocess.TimeoutExpired) as exc:
            return [*problems, f"`mcp` over stdio failed: {exc}"]
        tools = {tool["name"] for tool in replies.get(2, {}).get("result", {}).get("tools", [])}
        if tools != TOOLS:
            problems.append(f"`mcp` lists the tools {sorted(tools)}, expected {sorted(TOOLS)}")
        added = replies.get(3, {}).get("result", {})
        if added.get("isError") or not added.get("content"):
            problems.append(f"`mcp` add_memory failed: {json.dumps(replies.get(3))[:300]}")
        found = json.dumps(replies.get(4, {}).get("result", {}), ensure_ascii=False)
        if "小林喜欢猫" not in found:
            problems.append(f"`mcp` search_memories did not find the memory: {found[:300]}")
        if code != 0:
            problems.append(f"`mcp` exited with {code} at the end of its input: {stderr}")
    return problems


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    problems = check_mcp(args[0] if args else DEFAULT_EXE)
    for line in problems:
        print(f"mcp smoke: {line}", file=sys.stderr)
    if not problems:
        print("mcp smoke: OK (stdio: initialize, tools/list, add_memory, search_memories)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
