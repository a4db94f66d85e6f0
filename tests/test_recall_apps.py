"""Issue 35, item 7: another app cannot take recall over. Other apps' memories (written through MCP)
get a bounded share of the recall budget, the person's own first, and an app's writes leave the
person's part of the request as it was (a provider's prompt cache keeps serving it)."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

import pytest

from recall_banks import parse_listing
from sonetto_desktop.memory.changes import by_other_app
from sonetto_desktop.memory.item import MemoryItem
from sonetto_desktop.memory.operations import MemoryOperations
from sonetto_desktop.memory.retrieval.budget import CLOUD_BUDGET, LOCAL_BUDGET_MAX, estimate_tokens
from sonetto_desktop.memory.retrieval.llm_prompt import APPS_HEADER, LISTING_HEADER
from sonetto_desktop.memory.retrieval.recall import APP_SHARE, MemoryRecall
from sonetto_desktop.memory.stores.sqlite import SqliteMemoryManager

NOW = datetime(2026, 12, 2, 9, 30)
PERSON = [("小林养了一只叫汤圆的布偶猫", "身份"), ("小林对花生过敏", "品味"), ("小林在上海做前端开发", "身份"),
          ("小林每周三晚上去游泳", "习惯"), ("小林喜欢喝冰美式，不加糖", "品味")]
PERSON += [(f"小林的第{i}件小事：周末和朋友去了第{i}家咖啡馆", "瞬间") for i in range(15)]
#: What a flooding app writes: long, and full of the words people ask with (so the offline ranking puts it first).
LONG = "。".join(f"应用记下的第{{i}}条：今晚吃点什么好，今晚吃火锅还是烧烤，片段{j}，吃什么都好" for j in range(8))


def _stamp(days_ago: float) -> str:
    return (NOW - timedelta(days=days_ago)).replace(microsecond=0).isoformat()


def _flood(n: int, app: str = "mcp:flood", text: str = LONG) -> dict[str, MemoryItem]:
    """``n`` memories an app wrote (long by default, newer than the person's), as its history says."""
    items = {}
    for i in range(n):
        stamp = _stamp(10 - i * 0.001)
        items[f"app{i:05d}"] = MemoryItem(text.format(i=i), "应用笔记", latest_update_time=stamp, history=[
            {"time": stamp, "action": "create", "actor": app, "reason": "由 " + app + " 添加"}])
    return items


def _request(llm_server) -> str:
    requests = [r for r in llm_server.requests if r["messages"][0]["content"].startswith("你是 Sonetto 的记忆检索助手")]
    return requests[-1]["messages"][1]["content"]


def _section(text: str, header: str) -> str:
    """One section of a request: from its header to the next blank line."""
    start = text.index(header)
    end = text.find("\n\n", start)
    return text[start:end if end >= 0 else len(text)]


def test_who_counts_as_another_app():
    assert [by_other_app(a) for a in ("mcp:cursor", "web", "external")] == [True] * 3
    assert [by_other_app(a) for a in ("user", "cli", "file", "agent", "imported", "import:chatgpt", "", None)] == (
        [False] * 8)


@pytest.mark.parametrize("budget", [CLOUD_BUDGET, LOCAL_BUDGET_MAX])
async def test_an_app_flooding_memories_gets_a_bounded_share_and_the_persons_memories_all_reach_the_model(
        llm_server, make_llm, tmp_path, budget):
    """Before: 2,000 long memories of one app took the whole request (~48k characters at the cloud
    budget), led it (the person's part of the request changed with every app write), and at a local
    model's budget left 10 of the person's 20 memories out."""
    mm = SqliteMemoryManager(tmp_path / "memory.db")
    person = {f"p{i:02d}": MemoryItem(description, theme, latest_update_time=_stamp(60 - i), history=[
        {"time": _stamp(60 - i), "action": "create", "actor": "user", "reason": ""}])
        for i, (description, theme) in enumerate(PERSON)}  # older than what the app writes later
    mm.import_items(person)
    recall = MemoryRecall(mm, make_llm(), clock=lambda: NOW, budget=budget)
    try:
        llm_server.add_text("[]")
        await recall.aretrieve("今晚吃点什么好")
        before = _request(llm_server)
        mine = _section(before, LISTING_HEADER)
        assert len(parse_listing(mine)) == 20

        mm.import_items(_flood(2_000))
        recall.warm_up()  # the offline index (the shortlist's ranking) as a running app has it
        llm_server.add_text("[0, 20]")  # the person's oldest and the first of the apps' lines
        found = await recall.aretrieve("今晚吃点什么好")
        after = _request(llm_server)
        shown = parse_listing(after)
        assert {description for _, description, _ in shown.values()} >= {d for d, _ in PERSON}  # all 20
        assert after.startswith(mine + "\n\n")  # the person's part is as it was: cached by the provider
        theirs = [line for line in after.splitlines() if line.startswith("[") and "应用记下的" in line]
        assert 0 < len(theirs) < 2_000
        stats = recall.last_listing
        assert stats.apps == len(theirs) and stats.apps_tokens <= APP_SHARE * budget
        assert sum(estimate_tokens(line) for line in theirs) <= APP_SHARE * budget
        assert len(after) < len(before) + 2 * APP_SHARE * budget  # was ~48k characters at 48,000; CJK: ~1 token each
        # numbered across the sections: [20] is the first line after the person's, an app's
        assert found[0]["id"] == "p00" and found[1]["id"].startswith("app")
        assert shown[20][1].startswith(found[1]["description"][:60])
        assert after[len(mine):].lstrip("\n").startswith(("## 其他应用记下的记忆", "## 其他应用记下的、可能相关的记忆"))

        # The app adds and edits its own memories: the person's part of the next request is the same.
        ops = MemoryOperations(mm, actor="mcp:flood")
        ops.add("应用又记了一条", "应用笔记")
        ops.update("app01000", description="应用改写了自己的一条笔记", reason="更正")
        llm_server.add_text("[]")
        await recall.aretrieve("今晚吃点什么好")
        assert _request(llm_server).startswith(mine + "\n\n## 其他应用记下的")
    finally:
        recall.close()
        mm.close()


async def test_the_person_editing_an_apps_memory_makes_it_theirs_and_an_app_editing_theirs_leaves_it_theirs(
        llm_server, make_llm, tmp_path):
    """A memory is another app's only while apps alone wrote it: an app (its own call, or the writer
    handling a conversation it handed over, both ``mcp:<app>``) updating one of the person's memories
    must not move it into the apps' capped share (before, the last actor decided)."""
    from sonetto_desktop.memory.retrieval.listing import ID, RecallListing

    mm = SqliteMemoryManager(tmp_path / "memory.db")
    mine = mm.add("小林对花生过敏", "品味", actor="user")
    sonettos = mm.add("小林在上海做前端开发", "身份", actor="agent")
    theirs = mm.add("小林最近在学吉他", "爱好", actor="mcp:cursor")
    shared = mm.add("小林在 Cursor 里写了一个番茄钟", "项目", actor="mcp:cursor")
    recall = MemoryRecall(mm, make_llm(), clock=lambda: NOW)
    try:
        own, apps = recall.listing.parts()  # (written within a second: the listing orders them by id)
        assert {e[ID] for e in own.order} == {mine, sonettos} and {e[ID] for e in apps.order} == {theirs, shared}
        mm.update(theirs, "确认过", "小林最近在学古典吉他", actor="user")
        mm.update(mine, "应用改的", "小林对花生和芒果过敏", actor="mcp:cursor")
        mm.update(sonettos, "应用改的", "小林在上海做前端开发，用 React", actor="mcp:claude")
        mm.update(shared, "另一个应用改的", "小林在 Cursor 里写了一个番茄钟，用 Rust", actor="mcp:claude")
        own, apps = recall.listing.parts()
        assert {e[ID] for e in own.order} == {theirs, mine, sonettos} and [e[ID] for e in apps.order] == [shared]
        fresh = RecallListing(mm)  # read from the store, not followed change by change: the same
        assert [{e[ID] for e in part.order} for part in fresh.parts()] == [{theirs, mine, sonettos}, {shared}]
        fresh.close()
        assert (mm.get(mine).author, mm.get(mine).last_actor) == ("user", "mcp:cursor")
        llm_server.add_text("[]")
        await recall.aretrieve("我能吃什么")
        request = _request(llm_server)
        assert request.index("芒果") < request.index(APPS_HEADER) < request.index("番茄钟")
    finally:
        recall.close()
        mm.close()


async def test_an_apps_writes_never_move_the_persons_window(llm_server, make_llm, tmp_path):
    """A bank larger than the budget: the person's part is its stable window (and a shortlist after
    everything stable). Apps writing, up to their share and past it, leave that window where it was."""
    mm = SqliteMemoryManager(tmp_path / "memory.db")
    mm.import_items({f"p{i:04d}": MemoryItem(f"第{i}条：小林记下了和第{i % 17}个朋友的一次聊天。", "瞬间",
                                             latest_update_time=_stamp(400 - i * 0.1), history=[
                                                 {"time": _stamp(400 - i * 0.1), "action": "create", "actor": "user"}])
                     for i in range(300)})
    recall = MemoryRecall(mm, make_llm(), clock=lambda: NOW, budget=2_000)
    ops = MemoryOperations(mm, actor="mcp:cursor")
    try:
        windows = []
        for n in range(12):
            llm_server.add_text("[]")
            await recall.aretrieve("我和朋友聊过什么")
            windows.append(_section(_request(llm_server), LISTING_HEADER))
            ops.add(f"小林在 Cursor 里写了第{n}个组件，这条笔记比较长，" + "细节" * 20, "项目")
        assert recall.listing.parts()[1].tokens > APP_SHARE * 2_000  # the apps' memories outgrew their share
        assert len(set(windows[1:])) == 1  # from the first app memory on, the person's window stays put
        assert windows[0].splitlines()[:3] == windows[1].splitlines()[:3]  # and it began where it did before
    finally:
        recall.close()
        mm.close()


async def test_one_reply_with_the_apps_share_in_play_embeds_the_query_once(llm_server, tmp_path):
    """Before: the person's part and the apps' part each asked the embeddings model for the query's
    vector, and the apps' part, getting mostly the person's memories back, asked again for all of
    them: three paid requests per reply, and up to three times the query's deadline for a slow endpoint."""
    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.services import AppServices

    settings = Settings(data_dir=str(tmp_path / "data"), retrieval_mode="hybrid", base_url=llm_server.base_url,
                        model="test-model", api_key="sk-test", store_backend="sqlite", recall_budget_tokens=1_500,
                        embeddings_source="endpoint", embeddings_model="scripted-embed")
    services = await AppServices.open(settings=settings, watch=False)
    try:
        services.store.import_items({f"p{i:04d}": MemoryItem(f"第{i}条：小林记下了和第{i % 23}个朋友的一次聊天。", "瞬间",
                                                             latest_update_time=_stamp(400 - i * 0.1))
                                     for i in range(400)})
        services.store.import_items(_flood(300, text="应用记下的第{i}条：今晚吃火锅还是烧烤，吃什么都好"))
        await services.start_agents()
        services.writer.pause()
        sync = services.recall.dense
        assert sync is not None and await asyncio.to_thread(sync.wait_idle, 30) and sync.status.done == 700
        asked = len(llm_server.embedding_requests)
        llm_server.add_text("[]", to="chat")
        llm_server.add_text("好的。", to="chat")
        question = "今晚吃点什么好"
        [_ async for _ in services.chat.send("s1", question)]
        stats = services.recall.last_listing
        assert stats.dense and 0 < stats.apps < 300 and stats.shown - stats.apps < 400  # both parts shortlisted
        assert [r["input_list"] for r in llm_server.embedding_requests[asked:]] == [[question]]  # was 3 requests
    finally:
        await services.close()


def test_each_part_takes_its_nearest_from_one_query_vector(tmp_path):
    """The apps' part finds its nearest memories however deep the person's fill the one ranking, and
    the query's vector is asked for once for both parts (the search is local, as deep as a part needs)."""
    from sonetto_desktop.memory.retrieval import MechanicalRetriever

    class Ranker:  # the embeddings model: the person's 400 memories nearest, then two of the apps'
        def __init__(self, ids):
            self.ids, self.asked, self.searches = ids, 0, []

        def embed_query(self, prompt):
            self.asked += 1
            return prompt

        def nearest(self, vector, k):
            self.searches.append(k)
            return self.ids[:k]

    mm = SqliteMemoryManager(tmp_path / "memory.db")
    mm.import_items({f"p{i:04d}": MemoryItem(f"第{i}条：小林记下了和第{i % 23}个朋友的一次聊天。", "瞬间",
                                             latest_update_time=_stamp(400 - i * 0.1)) for i in range(400)})
    mm.import_items(_flood(300, text="应用记下的第{i}条：今晚吃火锅还是烧烤，吃什么都好"))
    dense = Ranker([f"p{i:04d}" for i in range(400)] + ["app00123", "app00007"])
    mechanical = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    recall = MemoryRecall(mm, object(), budget=1_500, mechanical=mechanical, dense=dense,  # type: ignore[arg-type]
                          clock=lambda: NOW)
    try:
        plan = recall._plan("量子纠缠是什么", "hybrid")
        assert recall.last_listing.dense and dense.asked == 1
        assert {"app00123", "app00007"} <= {r["id"] for r in plan.apps_extra}
        assert {r["id"] for r in plan.extra} & {f"p{i:04d}" for i in range(20)}  # the person's nearest too
    finally:
        recall.close()
        mechanical.close()
        mm.close()
