"""Issue 35: another app cannot flood the memories through MCP. ``add_memory`` (and update / delete)
are bounded per caller, by its credential (an app's token, else its transport session), and a
refusal says in how many seconds the app may write again."""

from __future__ import annotations

import re

import pytest

from mcp_helpers import error_text, payload, stdio_session
from sonetto_desktop.services import AppServices


async def test_add_memory_is_bounded_per_credential_and_a_new_stdio_process_does_not_start_it_afresh(
        _isolated_user_dirs):
    """Before, one client added 2,000 memories in 7 s: add_memory had no quota. Then each new
    ``sonetto mcp`` process started its count at 0 (an app starting one per 30 adds was not bounded)."""
    async with stdio_session(client="flood") as mcp:
        ids = [payload(await mcp.call_tool("add_memory", {"description": f"第{i}条很长的记忆", "theme": "灌水"}))["id"]
               for i in range(30)]
        refused = error_text(await mcp.call_tool("add_memory", {"description": "第31条", "theme": "灌水"}))
        assert "添加记忆太频繁" in refused and "at most 30 a minute" in refused
        wait = int(re.search(r"try again in (\d+) s", refused).group(1))
        assert 1 <= wait <= 60
        # Changing and deleting count apart: the app can still tidy up what it wrote.
        assert payload(await mcp.call_tool("update_memory", {"id": ids[0], "theme": "整理", "reason": "归类"}))["changed"]
        assert payload(await mcp.call_tool("delete_memory", {"id": ids[1], "reason": "重复"}))["deleted"]
    async with stdio_session(client="another name") as mcp:  # a new process, another declared name: the same count
        refused = error_text(await mcp.call_tool("add_memory", {"description": "新进程的一条", "theme": "灌水"}))
        assert "at most 30 a minute for all apps connected through stdio together" in refused
    services = await AppServices.open(watch=False)
    try:
        assert services.memory.count() == 29  # 30 - 1 deleted: the refused ones were not written
    finally:
        await services.close()


async def test_hybrid_searches_with_the_model_are_bounded_and_then_answered_offline(llm_server):
    """Each hybrid search may send recall's whole token budget to a paid model, and had no quota (read-only
    mode included): past 10 a minute per credential the search is answered offline, with a note."""
    from llm_server import TextResponse
    from mcp_helpers import save_settings

    llm_server.default = TextResponse("[]")
    env = {"SONETTO_BASE_URL": llm_server.base_url, "SONETTO_MODEL": "test-model", "OPENAI_API_KEY": "sk-test"}
    async with stdio_session(client="reader", **env) as mcp:
        payload(await mcp.call_tool("add_memory", {"description": "小林的血压偏高", "theme": "健康"}))
        save_settings(mcp_read_only=True)
        for _ in range(10):
            assert "note" not in payload(await mcp.call_tool("search_memories", {"query": "血压", "mode": "hybrid"}))
        sent = len(llm_server.requests)
        assert sent >= 10
        over = payload(await mcp.call_tool("search_memories", {"query": "血压", "mode": "hybrid"}))
        assert len(llm_server.requests) == sent  # nothing more went to the model
        assert [m["description"] for m in over["memories"]] == ["小林的血压偏高"]
        assert "answered offline" in over["note"] and "at most 10 a minute" in over["note"]
        offline = payload(await mcp.call_tool("search_memories", {"query": "血压"}))  # offline: never counted
        assert "note" not in offline and offline["memories"] == over["memories"]


async def test_remember_conversation_is_counted_across_stdio_processes(_isolated_user_dirs):
    turn = {"messages": [{"role": "user", "content": "我下周去青岛出差"}]}
    async with stdio_session(client="notes") as mcp:
        for _ in range(10):
            payload(await mcp.call_tool("remember_conversation", turn))
    async with stdio_session(client="notes") as mcp:
        assert "at most 10 a minute" in error_text(await mcp.call_tool("remember_conversation", turn))


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_windows_and_the_wait_they_name():
    from sonetto_desktop.mcp_server.access import Caller
    from sonetto_desktop.mcp_server.quota import ADD, Quota, QuotaExceeded

    clock = Clock()
    quota = Quota(clock=clock)
    app = Caller("cursor", "app", "http:1")
    for _minute in range(6):  # 30 a minute for 6 minutes: 180, within the hour's 200
        for _ in range(30):
            quota.check(ADD.name, app)
        with pytest.raises(QuotaExceeded) as refused:
            quota.check(ADD.name, app)
        assert refused.value.retry_after == 60 and "per app" in str(refused.value)
        clock.now += 60
    for _ in range(20):
        quota.check(ADD.name, app)
    clock.now += 60  # the minute is fine now, the hour is not: 200 since the first call
    with pytest.raises(QuotaExceeded) as refused:
        quota.check(ADD.name, app)
    assert "200 an hour" in str(refused.value) and refused.value.retry_after == 3600 - 7 * 60
    clock.now += 3600 - 7 * 60
    quota.check(ADD.name, app)  # the first minute's calls have left the hour
    for _ in range(29):  # the same token in another session: the same app, the same quota
        quota.check(ADD.name, Caller("cursor", "app", "http:2"))
    with pytest.raises(QuotaExceeded, match="per app; try again in"):
        quota.check(ADD.name, app)
    quota.check(ADD.name, Caller("notes", "app", "http:3"))  # another app's token: its own quota


def test_the_shared_token_counts_per_session_and_all_together_and_a_refusal_is_not_counted():
    from sonetto_desktop.mcp_server.access import Caller
    from sonetto_desktop.mcp_server.quota import REMEMBER, Quota, QuotaExceeded

    clock = Clock()
    quota = Quota(clock=clock)
    sessions = [Caller(f"name-{n}", "shared", f"http:{n}") for n in range(4)]
    taken = 0
    for caller in sessions:  # the declared name does not matter: the session does, and the token
        for _ in range(12):
            try:
                quota.check(REMEMBER.name, caller)
                taken += 1
            except QuotaExceeded as exc:
                last = str(exc)
    assert taken == 30 and "for all apps of the shared token together" in last
    stdio = Caller("name-0", "stdio", "stdio")
    for _ in range(10):  # a stdio process is a session of its own, not the shared token's
        quota.check(REMEMBER.name, stdio)
    clock.now += 61
    quota.check(REMEMBER.name, sessions[3])  # the refused calls were not counted: a minute later all is free


def test_a_flood_of_shared_token_sessions_is_slowed_by_the_minute_and_100_apps_adding_5_pass():
    """Before, a client opening a new session every 30 adds reached the shared 1,000 an hour in seconds."""
    from sonetto_desktop.mcp_server.access import Caller
    from sonetto_desktop.mcp_server.quota import ADD, Quota, QuotaExceeded

    clock = Clock()
    quota = Quota(clock=clock)
    for n in range(100):  # 100 apps of the shared token adding 5 each at once
        for _ in range(5):
            quota.check(ADD.name, Caller(f"app-{n}", "shared", f"http:{n}"))
    quota = Quota(clock=clock)
    for n in range(300):  # or 300 adding 2
        for _ in range(2):
            quota.check(ADD.name, Caller(f"app-{n}", "shared", f"http:{n}"))

    flood = Quota(clock=clock)

    def flood_for(seconds: float) -> int:
        taken, session = 0, 0
        until = clock.now + seconds
        while clock.now < until:
            try:
                flood.check(ADD.name, Caller("flood", "shared", f"http:flood-{session}"))
                taken += 1
            except QuotaExceeded as exc:
                if "per connection" in str(exc):
                    session += 1  # a new session every 30 adds
                else:
                    assert "for all apps of the shared token together" in str(exc)
                    clock.now += 1
            clock.now += 0.004  # ~250 adds a second
        return taken

    assert flood_for(10) == 600  # was 1,000 within 4 s
    assert flood_for(50) == 0  # the minute is full
    assert flood_for(60) == 400  # the hour's 1,000 is reached after a minute, not in seconds
    assert flood_for(600) == 0


def test_the_credentials_counts_hold_across_processes(tmp_path):
    """Two ``Quota`` objects on one file are two server processes: an app's token, the shared token
    and stdio are counted together; a session is its process's."""
    from sonetto_desktop.mcp_server.access import Caller
    from sonetto_desktop.mcp_server.quota import ADD, QUOTA_FILE, Quota, QuotaExceeded

    clock = Clock()
    first, second = (Quota(path=tmp_path / QUOTA_FILE, clock=clock) for _ in range(2))
    for caller in (Caller("cursor", "app", "http:1"), Caller("x", "stdio", "stdio")):
        for _ in range(15):
            first.check(ADD.name, caller)
            second.check(ADD.name, caller)
        with pytest.raises(QuotaExceeded, match="at most 30 a minute"):
            Quota(path=tmp_path / QUOTA_FILE, clock=clock).check(ADD.name, caller)  # a third process
    for n in range(100):
        (first if n % 2 else second).check(ADD.name, Caller("y", "shared", f"http:{n}"))
    for n in range(100, 600):
        first.check(ADD.name, Caller("y", "shared", f"http:{n}"))
    with pytest.raises(QuotaExceeded, match="for all apps of the shared token together"):
        second.check(ADD.name, Caller("y", "shared", "http:new"))
    clock.now += 3601  # an hour later: every window is empty, and the file keeps nothing old
    first.check(ADD.name, Caller("z", "stdio", "stdio"))
    assert len((tmp_path / QUOTA_FILE).read_bytes()) < 200


def test_a_damaged_counts_file_starts_again_and_one_that_cannot_be_written_refuses(tmp_path):
    from sonetto_desktop.mcp_server.access import Caller
    from sonetto_desktop.mcp_server.quota import ADD, QUOTA_FILE, Quota, QuotaExceeded

    path = tmp_path / QUOTA_FILE
    path.write_text("{not json", encoding="utf-8")
    quota = Quota(path=path, clock=Clock())
    quota.check(ADD.name, Caller("x", "stdio", "stdio"))
    assert '"stdio"' in path.read_text(encoding="utf-8")
    from sonetto_desktop.memory.files import temp_name

    temp_name(path).mkdir()  # where this thread writes the new counts: the count cannot be kept, the call is not made
    before = path.read_bytes()
    with pytest.raises(QuotaExceeded, match="cannot be kept"):
        quota.check(ADD.name, Caller("x", "stdio", "stdio"))
    assert path.read_bytes() == before
