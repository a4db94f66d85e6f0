"""``sonetto mcp --http``: streamable HTTP on 127.0.0.1 only, behind the bearer token of the settings."""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import subprocess
import sys
from collections.abc import AsyncIterator

import httpx
import pytest
from mcp import ClientSession
from mcp.shared.exceptions import MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_types import Implementation

from mcp_helpers import payload, server_command, server_env, ROOT
from sonetto_desktop.config.secrets import mcp_token, new_mcp_token
from sonetto_desktop.mcp_server.http_auth import BearerGate, is_loopback
from sonetto_desktop.services import AppServices

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "curl", "version": "1"}}}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@contextlib.asynccontextmanager
async def http_server(log: list[bytes] | None = None, **env: str) -> AsyncIterator[str]:
    """``sonetto mcp --http`` on a free port; ``log`` gets everything it wrote to stderr."""
    proc = await asyncio.create_subprocess_exec(*server_command("--http", "--port", "0"), env=server_env(**env),
                                                cwd=str(ROOT), stdin=asyncio.subprocess.DEVNULL,
                                                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    lines: list[bytes] = []
    drain = None
    try:
        url = ""
        while not url:
            line = await asyncio.wait_for(proc.stderr.readline(), 60)
            assert line, "the server exited before listening"
            lines.append(line)
            found = re.search(rb"listening on (http://\S+)", line)
            url = found.group(1).decode() if found else ""
        drain = asyncio.ensure_future(proc.stderr.read())
        yield url
    finally:
        if proc.returncode is None:
            proc.terminate()
        await asyncio.wait_for(proc.wait(), 30)
        with contextlib.suppress(Exception):
            lines.append(await drain if drain is not None else b"")
        if log is not None:
            log.extend(lines)
    assert proc.returncode == 0  # SIGTERM: a clean shutdown


def _other_address() -> str | None:
    """This machine's address on its network (not loopback), if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: nothing is sent
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if is_loopback(address) else address


async def test_http_needs_the_token_and_listens_on_loopback_only(_isolated_user_dirs):
    assert mcp_token(create=False) == ""
    async with http_server() as url:
        token = mcp_token(create=False)  # the server made one at start: the settings page shows it
        assert token
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
        async with httpx.AsyncClient(timeout=10) as http:
            missing = await http.post(url, json=INIT, headers=HEADERS)
            wrong = await http.post(url, json=INIT, headers=HEADERS | {"Authorization": "Bearer not-the-token"})
            assert missing.status_code == wrong.status_code == 401
            assert "token" in missing.json()["error"] and missing.headers["www-authenticate"].startswith("Bearer")
            right = await http.post(url, json=INIT, headers=HEADERS | {"Authorization": f"Bearer {token}"})
            assert right.status_code == 200
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        other = _other_address()
        if other is not None:  # the same port on the machine's network address: nobody listens there
            with pytest.raises(OSError), socket.create_connection((other, port), timeout=3):
                pass
        async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as client:
            async with streamable_http_client(url, http_client=client) as (read, write):
                async with ClientSession(read, write, client_info=Implementation(name="Cursor", version="1")) as mcp:
                    await mcp.initialize()
                    assert len((await mcp.list_tools()).tools) == 6
                    mid = payload(await mcp.call_tool("add_memory", {"description": "小林用 Cursor 写代码",
                                                                     "theme": "工作"}))["id"]
        new = new_mcp_token()  # made anew in the settings while the server runs
        async with httpx.AsyncClient(timeout=10) as http:
            old = await http.post(url, json=INIT, headers=HEADERS | {"Authorization": f"Bearer {token}"})
            fresh = await http.post(url, json=INIT, headers=HEADERS | {"Authorization": f"Bearer {new}"})
            assert old.status_code == 401 and fresh.status_code == 200
    services = await AppServices.open(watch=False)
    try:
        assert services.memory.history(mid)[0]["actor"] == "mcp:Cursor"
    finally:
        await services.close()


async def test_the_gate_refuses_peers_from_other_machines():
    reached: list[dict] = []

    async def app(scope, receive, send):  # what the gate protects
        reached.append(scope)

    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    gate = BearerGate(app, lambda: "the-token")
    auth = [(b"authorization", b"Bearer the-token")]
    await gate({"type": "http", "client": ("192.168.1.20", 50000), "headers": auth}, None, send)
    assert sent[0]["status"] == 403 and not reached
    await gate({"type": "http", "client": ("127.0.0.1", 50000), "headers": [(b"authorization", b"Basic the-token")]},
               None, send)
    assert sent[2]["status"] == 401 and not reached
    await gate({"type": "http", "client": ("::1", 50000), "headers": auth}, None, send)
    assert len(reached) == 1


def test_a_busy_port_or_a_bad_one_is_a_clear_error():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(server_command("--http", "--port", str(port)), env=server_env(LANG="en_US.UTF-8"),
                              cwd=str(ROOT), capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and f"sonetto mcp: error: cannot listen on 127.0.0.1:{port}" in done.stderr
        chinese = subprocess.run(server_command("--http", "--port", str(port)), env=server_env(LANG="zh_CN.UTF-8"),
                                 cwd=str(ROOT), capture_output=True, text=True, timeout=60)
        assert chinese.returncode == 2 and f"sonetto mcp：错误：无法在 127.0.0.1:{port} 上监听：" in chinese.stderr
    done = subprocess.run(server_command("--port", "9000"), env=server_env(LANG="en_US.UTF-8"), cwd=str(ROOT),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--port needs --http" in done.stderr


def test_a_token_that_cannot_be_kept_is_a_clear_error(_isolated_user_dirs):
    """No keyring and the token's file cannot be written (here a folder in its place; a read-only
    config folder, a full disk): '--http' ended in a 60-line traceback."""
    from sonetto_desktop.config.paths import config_dir
    from sonetto_desktop.config.secrets import MCP_TOKEN

    (config_dir() / MCP_TOKEN).mkdir(parents=True)
    done = subprocess.run(server_command("--http", "--port", "0"), env=server_env(LANG="en_US.UTF-8"), cwd=str(ROOT),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "sonetto mcp: error: cannot keep the token" in done.stderr


def test_the_socket_accepts_connections_before_the_listening_line_is_printed():
    """CI saw a client told "listening on …" refused: the socket was bound but not yet listening until
    uvicorn started. It now listens before the line is printed; a connection waits in the backlog."""
    from sonetto_desktop.mcp_server.entry import listening_socket

    sock = listening_socket("127.0.0.1", 0)
    try:
        with socket.create_connection(sock.getsockname(), timeout=3) as client:  # nobody has accepted yet
            assert client.getpeername() == sock.getsockname()
    finally:
        sock.close()


async def _session_call(url: str, token: str, name: str, tool: str, args: dict):
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write, client_info=Implementation(name=name, version="1")) as mcp:
                await mcp.initialize()
                return await mcp.call_tool(tool, args)


async def _session_read(url: str, token: str, name: str, uri: str):
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write, client_info=Implementation(name=name, version="1")) as mcp:
                await mcp.initialize()
                try:
                    return await mcp.read_resource(uri)
                except MCPError as exc:  # refused: the reason (raised here it would leave in an exception group)
                    return exc


async def test_an_apps_own_token_names_the_app_whatever_it_declares(_isolated_user_dirs):
    from mcp_helpers import error_text, save_settings
    from sonetto_desktop.mcp_server.app_tokens import new_app_token

    cursor = new_app_token("cursor")
    other = new_app_token("notes-helper")
    save_settings(mcp_allowed_clients="cursor, blog")
    async with http_server() as url:
        shared = mcp_token(create=False)
        # With its own token, an app is the token's app: history and allow list say cursor.
        added = payload(await _session_call(url, cursor, "Claude Desktop", "add_memory",
                                            {"description": "小林在用 Cursor 写代码", "theme": "工作"}))
        # Another app's token is refused by the allow list even when it declares the allowed name ...
        refused = error_text(await _session_call(url, other, "cursor", "add_memory",
                                                 {"description": "冒充的条目", "theme": "工作"}))
        assert "notes-helper" in refused and "not on" in refused
        read = await _session_read(url, other, "cursor", "memory://themes")  # resources too (they went by
        assert isinstance(read, MCPError) and "notes-helper" in str(read)  # the declared name before)
        # ... the shared token may not claim the name of an app that has its own token (issue 35) ...
        claimed = error_text(await _session_call(url, shared, "Cursor", "add_memory",
                                                 {"description": "冒充 Cursor 的条目", "theme": "工作"}))
        assert "has a token of its own" in claimed and "有自己的应用令牌" in claimed
        # ... and otherwise goes by the declared name (what the settings page says).
        declared = payload(await _session_call(url, shared, "blog", "add_memory",
                                               {"description": "小林周末写博客", "theme": "爱好"}))
    services = await AppServices.open(watch=False)
    try:
        assert services.memory.history(added["id"])[0]["actor"] == "mcp:cursor"
        assert services.memory.history(declared["id"])[0]["actor"] == "mcp:blog"
        assert services.memory.count() == 2
    finally:
        await services.close()


async def test_the_gate_names_the_app_of_an_app_token_and_nothing_else_can():
    from sonetto_desktop.mcp_server.access import APP_SCOPE_KEY

    reached: list[dict] = []

    async def app(scope, receive, send):
        reached.append(scope)

    async def send(message):
        raise AssertionError(f"refused: {message}")

    gate = BearerGate(app, lambda: "shared-token", lambda: {"Cursor": "cursor-token"})
    local = ("127.0.0.1", 50000)
    await gate({"type": "http", "client": local, "headers": [(b"authorization", b"Bearer cursor-token")]}, None, send)
    await gate({"type": "http", "client": local, "headers": [(b"authorization", b"Bearer shared-token")],
                APP_SCOPE_KEY: "Cursor"}, None, send)
    assert reached[0][APP_SCOPE_KEY] == "Cursor" and APP_SCOPE_KEY not in reached[1]


async def test_half_sent_requests_are_closed_and_never_lock_an_app_out(_isolated_user_dirs):
    log: list[bytes] = []
    async with http_server(log, SONETTO_MCP_HEADER_TIMEOUT="1", SONETTO_MCP_MAX_CONNECTIONS="16") as url:
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        token = mcp_token(create=False)

        def half_sent() -> socket.socket:
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # the headers never end
            return sock

        slow = await asyncio.to_thread(half_sent)
        try:
            assert await asyncio.to_thread(slow.recv, 100) == b""  # closed by the header timeout, not held
        finally:
            slow.close()
        crowd = [await asyncio.to_thread(half_sent) for _ in range(16 + 20)]  # more than the cap
        try:
            async with httpx.AsyncClient(timeout=10) as http:
                answered = await http.post(url, json=INIT, headers=HEADERS | {"Authorization": f"Bearer {token}"})
            assert answered.status_code == 200  # room was made: the app gets in
        finally:
            for sock in crowd:
                sock.close()
    said = b"".join(log)
    assert len(said) < 10_000 and b"Traceback" not in said  # SIGTERM included: a quiet, clean exit


def _half_sent_body(port: int, token: str) -> socket.socket:
    """A request whose headers are complete and whose body never is."""
    stuck = socket.create_connection(("127.0.0.1", port), timeout=30)
    stuck.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"
                  "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                  "Content-Length: 100\r\n\r\n{".encode())
    return stuck


async def test_a_half_sent_body_is_answered_408_and_its_place_goes_to_the_next_app(_isolated_user_dirs):
    """A request whose body never finishes held its connection for ever: with one place, every other app
    was answered 503. Its whole body must come within the body timeout; then 408, closed, place freed."""
    async with http_server(SONETTO_MCP_MAX_CONNECTIONS="1", SONETTO_MCP_BODY_TIMEOUT="3") as url:
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        token = mcp_token(create=False)
        stuck = await asyncio.to_thread(_half_sent_body, port, token)
        try:
            await asyncio.sleep(0.5)
            async with httpx.AsyncClient(timeout=60) as http:  # waits in the queue meanwhile
                started = asyncio.get_running_loop().time()
                answered = await http.post(url, json=INIT, headers=HEADERS | {"Authorization": f"Bearer {token}"})
                waited = asyncio.get_running_loop().time() - started
            assert answered.status_code == 200 and waited < 10, (answered.status_code, answered.text, waited)
            said = await asyncio.to_thread(stuck.recv, 1000)
            assert said.startswith(b"HTTP/1.1 408 ") and b"connection: close" in said
            assert await asyncio.to_thread(stuck.recv, 100) == b""  # and closed
        finally:
            stuck.close()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM is a POSIX signal")
def test_sigterm_stops_the_http_server_at_once_while_a_body_is_half_sent(_isolated_user_dirs):
    """SIGTERM did not end the server while a request's body was open (no graceful-shutdown bound)."""
    import re
    import signal
    import time

    proc = subprocess.Popen(server_command("--http", "--port", "0"), env=server_env(), cwd=str(ROOT),
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        url = ""
        while not url:
            line = proc.stderr.readline()
            assert line, "the server exited before listening"
            found = re.search(rb"listening on (http://\S+)", line)
            url = found.group(1).decode() if found else ""
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        stuck = _half_sent_body(port, mcp_token(create=False))
        try:
            time.sleep(0.5)
            started = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=20) == 0
            assert time.monotonic() - started < 8
        finally:
            stuck.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()


async def _call(url: str, token: str, name: str, adds: int) -> list:
    """One app's session: ``adds`` add_memory calls in a row through the SDK's client."""
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write, client_info=Implementation(name=name, version="1")) as mcp:
                await mcp.initialize()
                return [payload(await mcp.call_tool("add_memory", {"description": f"{name} 的第{i}条记忆",
                                                                   "theme": "测试"}))["id"] for i in range(adds)]


async def test_more_clients_than_the_cap_all_get_their_calls_through(_isolated_user_dirs):
    """Issue 35: 100 SDK clients x 5 adds stored 75-164 of 500: a connection beyond the cap was reset
    whenever every served one was busy (the SDK keeps a GET event stream open per session: always).
    Now it waits its turn. Here 3 times the cap (4) of clients, each with its own connections."""
    log: list[bytes] = []
    async with http_server(log, SONETTO_MCP_MAX_CONNECTIONS="4") as url:
        token = mcp_token(create=False)
        ids = await asyncio.wait_for(asyncio.gather(*(_call(url, token, f"app-{n}", 3) for n in range(12)),
                                                    return_exceptions=True), 120)
        failed = [batch for batch in ids if isinstance(batch, BaseException)]
        assert not failed, f"{len(failed)} of 12 clients failed: {failed[0]!r}"
        async with httpx.AsyncClient(timeout=10) as http:  # no event stream to hold a place for ever
            stream = await http.get(url, headers={"Accept": "text/event-stream", "Authorization": f"Bearer {token}"})
        assert stream.status_code == 405 and stream.headers["allow"] == "POST, DELETE"
    assert sorted(len(batch) for batch in ids) == [3] * 12
    services = await AppServices.open(watch=False)
    try:
        assert services.memory.count() == 36
    finally:
        await services.close()
    assert b"Traceback" not in b"".join(log)


@contextlib.asynccontextmanager
async def _held_server(protocol) -> AsyncIterator[tuple[str, asyncio.Event, list[str]]]:
    """uvicorn with ``protocol`` over an app that holds ``/hold`` until the event is set: (its URL,
    the event, the paths served in order)."""
    import uvicorn

    from sonetto_desktop.mcp_server.entry import listening_socket

    release = asyncio.Event()
    served: list[str] = []

    async def app(scope, receive, send):
        if scope["type"] != "http":
            return
        served.append(scope["path"])
        if scope["path"] == "/hold":
            await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})

    sock = listening_socket("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, lifespan="off", log_level="warning", http=protocol, ws="none"))
    running = asyncio.ensure_future(server.serve(sockets=[sock]))
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}", release, served
    finally:
        release.set()
        server.should_exit = True
        await asyncio.wait_for(running, 10)
        sock.close()


async def test_beyond_the_queue_a_connection_is_told_to_retry_later_and_the_queue_is_served_in_turn():
    from sonetto_desktop.mcp_server.http_limits import RETRY_AFTER, protocol_class

    protocol = protocol_class(None, cap=1, queued=1)
    async with _held_server(protocol) as (base, release, served):
        async with httpx.AsyncClient(timeout=10) as a, httpx.AsyncClient(timeout=10) as b, \
                httpx.AsyncClient(timeout=10) as c:
            held = asyncio.ensure_future(a.get(f"{base}/hold"))
            while served != ["/hold"]:
                await asyncio.sleep(0.01)
            waiting = asyncio.ensure_future(b.get(f"{base}/next"))
            while not protocol.admission.queue:
                await asyncio.sleep(0.01)
            refused = await c.get(f"{base}/third")  # the queue is full: told when to come back, not reset
            assert refused.status_code == 503 and refused.headers["retry-after"] == str(RETRY_AFTER)
            assert "try again" in refused.json()["error"] and served == ["/hold"]
            release.set()
            first, second = await held, await waiting
            assert (first.status_code, second.status_code) == (200, 200) and served == ["/hold", "/next"]
            assert first.headers["connection"] == "close"  # someone was waiting: no place kept between calls
            again = await b.get(f"{base}/again")
            assert again.status_code == 200 and "connection" not in again.headers  # nobody waits: keep-alive
        assert (protocol.admission.waited, protocol.admission.refused) == (1, 1)


async def test_a_connection_that_waited_too_long_is_told_to_retry_later():
    from sonetto_desktop.mcp_server.http_limits import RETRY_AFTER, protocol_class

    protocol = protocol_class(None, cap=1, queued=4, queue_timeout=0.5)
    async with _held_server(protocol) as (base, release, served):
        async with httpx.AsyncClient(timeout=10) as a, httpx.AsyncClient(timeout=10) as b:
            held = asyncio.ensure_future(a.get(f"{base}/hold"))
            while served != ["/hold"]:
                await asyncio.sleep(0.01)
            late = await b.get(f"{base}/late")  # the one place stays busy past the queue's patience
            assert late.status_code == 503 and late.headers["retry-after"] == str(RETRY_AFTER)
            release.set()
            assert (await held).status_code == 200 and served == ["/hold"]


CONVERSATION = [{"role": "user", "content": "我下个月要去大阪看樱花"}]


async def _remember_times(url: str, token: str, name: str, times: int) -> tuple[int, list[str]]:
    """``times`` remember_conversation calls in one session: (how many were taken, the refusals)."""
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write, client_info=Implementation(name=name, version="1")) as mcp:
                await mcp.initialize()
                results = [await mcp.call_tool("remember_conversation", {"messages": CONVERSATION})
                           for _ in range(times)]
    refusals = [" ".join(block.text for block in r.content) for r in results if r.is_error]
    return times - len(refusals), refusals


async def test_quotas_go_by_the_credential_not_by_the_declared_name(_isolated_user_dirs):
    """Issue 35: with the shared token and 6 declared names remember_conversation took 60 calls in
    1.6 s (10 per name). Now a session of the shared token has its 10, the shared token's sessions
    together 3 x 10, and an app with its own token its own 10 whatever others did."""
    from sonetto_desktop.mcp_server.app_tokens import new_app_token

    cursor = new_app_token("cursor")
    async with http_server() as url:
        shared = mcp_token(create=False)
        sessions = [await _remember_times(url, shared, f"name-{n}", 11) for n in range(6)]
        taken = [count for count, _ in sessions]
        assert taken == [10, 10, 10, 0, 0, 0]  # was [10] * 6: a bucket per declared name
        assert "per connection" in sessions[0][1][0] and "try again in" in sessions[0][1][0]
        assert "for all apps of the shared token together" in sessions[5][1][0] and "用共用令牌的应用合计" in sessions[5][1][0]
        own, refusals = await _remember_times(url, cursor, "name-0", 11)
        assert own == 10 and "per app" in refusals[0]  # its token's own quota, untouched by the others


async def test_the_shared_token_can_be_switched_off_once_apps_have_their_own(_isolated_user_dirs):
    from mcp_helpers import save_settings
    from sonetto_desktop.mcp_server.app_tokens import new_app_token

    cursor = new_app_token("cursor")
    async with http_server() as url:
        shared = mcp_token(create=False)
        assert payload(await _session_call(url, shared, "blog", "list_memories", {}))["total"] == 0
        save_settings(mcp_shared_token=False)  # switched off in the app while the server runs
        async with httpx.AsyncClient(timeout=10) as http:
            refused = await http.post(url, json=INIT, headers=HEADERS | {"Authorization": f"Bearer {shared}"})
        assert refused.status_code == 401 and "switched off" in refused.json()["error"]
        with pytest.raises(Exception):  # the SDK's client cannot open a session with it
            await asyncio.wait_for(_session_call(url, shared, "blog", "list_memories", {}), 30)
        assert payload(await _session_call(url, cursor, "cursor", "add_memory",
                                           {"description": "小林在用 Cursor 写代码", "theme": "工作"}))["id"]
        save_settings(mcp_shared_token=True)
        assert payload(await _session_call(url, shared, "blog", "list_memories", {}))["total"] == 1


async def test_the_gate_refuses_an_unknown_token_clearly_when_the_apps_tokens_cannot_be_read():
    """Before, a damaged token secret read as no app tokens; now it is said (and never a server error)."""
    from sonetto_desktop.mcp_server.app_tokens import AppTokensUnreadable

    reached: list[dict] = []

    async def app(scope, receive, send):
        reached.append(scope)

    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    def damaged() -> dict[str, str]:
        raise AppTokensUnreadable("应用令牌已损坏 / the apps' own tokens cannot be read")

    gate = BearerGate(app, lambda: "shared-token", damaged)
    local = ("127.0.0.1", 50000)
    await gate({"type": "http", "client": local, "headers": [(b"authorization", b"Bearer cursor-token")]}, None, send)
    assert sent[0]["status"] == 401 and "tokens cannot be read" in sent[1]["body"].decode() and not reached
    await gate({"type": "http", "client": local, "headers": [(b"authorization", b"Bearer shared-token")]}, None, send)
    assert len(reached) == 1  # the shared token still works (its clients' names are then refused by the access rules)
