"""Issue 35: another app cannot flood the memories through MCP. ``add_memory`` (and update / delete)
are bounded per caller, by its credential (an app's token, else its transport session), and a
refusal says in how many seconds the app may write again."""

from __future__ import annotations

import re

import pytest

from mcp_helpers import error_text, payload, stdio_session
from sonetto_desktop.services import AppServices


async def test_add_memory_is_bounded_per_connection_and_says_when_to_write_again(_isolated_user_dirs):
    """Before, one client added 2,000 memories in 7 s: add_memory had no quota."""
    async with stdio_session(client="flood") as mcp:
        ids = [payload(await mcp.call_tool("add_memory", {"description": f"第{i}条很长的记忆", "theme": "灌水"}))["id"]
               for i in range(30)]
        refused = error_text(await mcp.call_tool("add_memory", {"description": "第31条", "theme": "灌水"}))
        assert "添加记忆太频繁" in refused and "at most 30 a minute per connection" in refused
        wait = int(re.search(r"try again in (\d+) s", refused).group(1))
        assert 1 <= wait <= 60
        # Changing and deleting count apart: the app can still tidy up what it wrote.
        assert payload(await mcp.call_tool("update_memory", {"id": ids[0], "theme": "整理", "reason": "归类"}))["changed"]
        assert payload(await mcp.call_tool("delete_memory", {"id": ids[1], "reason": "重复"}))["deleted"]
    async with stdio_session(client="flood") as mcp:  # another connection (process) has its own quota
        assert payload(await mcp.call_tool("add_memory", {"description": "新连接的一条", "theme": "灌水"}))["id"]
    services = await AppServices.open(watch=False)
    try:
        assert services.memory.count() == 30  # 30 + 1 - 1 deleted: the refused one was not written
    finally:
        await services.close()


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
