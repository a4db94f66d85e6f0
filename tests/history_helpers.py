"""Shared pieces of the history-import tests: the fixtures folder and a pinned local time zone
(the exports' dates are epoch times or carry offsets; the writer's clock is local time)."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest
from llm_payloads import listed_memories

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "history"


@pytest.fixture(params=["yaml", "sqlite"], name="services")
async def services_fixture(request, tmp_path, llm_server):
    """``AppServices`` on each local store, the model at the scripted server (the import tests' own)."""
    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.services import AppServices

    settings = Settings(data_dir=str(tmp_path / "data"), store_backend=request.param, retrieval_mode="mechanical",
                        base_url=llm_server.base_url, model="test-model", api_key="sk-test")
    opened = await AppServices.open(settings=settings, watch=False)
    yield opened
    await opened.close()


@pytest.fixture
def shanghai(monkeypatch):
    """Local time is Asia/Shanghai (UTC+8, no daylight saving) for the test."""
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def fixture(name: str) -> Path:
    return FIXTURES / name


def two_apps_zip(folder: Path) -> Path:
    """A zip the person packed with ChatGPT's export (``chatgpt/conversations.json``) and LM Studio's
    conversations folder (``lmstudio/…conversation.json``, two chats)."""
    import zipfile

    packed = folder / "my-chats.zip"
    lmstudio = fixture("lmstudio-conversations")
    with zipfile.ZipFile(packed, "w") as zf:
        zf.write(fixture("chatgpt_conversations.json"), "chatgpt/conversations.json")
        for path in sorted(lmstudio.rglob("*.conversation.json")):
            zf.write(path, f"lmstudio/{path.relative_to(lmstudio).as_posix()}")
    return packed


def env_shanghai() -> dict[str, str]:
    """An environment for a child process with local time Asia/Shanghai, and no locale that would
    choose its language (the command line speaks English under an English ``LANG``)."""
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES")}
    return {**env, "TZ": "Asia/Shanghai", "LANG": "C.UTF-8"}


# ── the scripted model for imports ───────────────────────────────────

USER_LINE = re.compile(r"^(?:> )?用户：（(\d\d:\d\d)）(.+)$", re.M)
NOW_LINE = re.compile(r"## 当前时间\n(.+)\n")


def writer_prompt(body: dict) -> str:
    """The writer request's one user message (the listing, the time, the batch)."""
    return [m for m in body["messages"] if m["role"] == "user"][-1]["content"]


def is_writer(body: dict) -> bool:
    from llm_server import caller

    return caller(body) == "writer"


def said(body: dict) -> list[tuple[str, str]]:
    """(time, text) of each user message of the batch a writer request carries."""
    return USER_LINE.findall(writer_prompt(body))


def listed(body: dict) -> dict[str, str]:
    """The memories the writer request lists: id -> text."""
    return {mid: row.text for mid, row in listed_memories(writer_prompt(body)).items()}


def remember_each_line(body: dict):
    """A writer that stores one memory per user message: ``用户说过：<text>`` (after tool results: done)."""
    from llm_server import tool_calls

    if any(m["role"] == "tool" for m in body["messages"]):
        return "好的"
    return tool_calls([("create_memory", {"content": f"用户说过：{text[:40]}", "section": "身份"})
                       for _, text in said(body)])


# ── exports with values no real one has (issue 35) ──────────────────


def bad_values_export(folder: Path) -> Path:
    """Three ChatGPT conversations: a good one, one whose time is NaN, one nested 100,000 deep."""
    def conversation(cid: str, title: str, start: object) -> dict:
        return {"id": cid, "title": title, "create_time": start, "current_node": "u", "mapping": {
            "u": {"id": "u", "parent": None, "children": [], "message": {
                "id": f"{cid}-u", "author": {"role": "user"}, "create_time": 1714550400,
                "content": {"content_type": "text", "parts": [f"{title}：我搬去杭州了"]}}}}}

    text = json.dumps([conversation("c1", "好的", 1714550400), conversation("c2", "坏时间", float("nan"))],
                      ensure_ascii=False)
    path = folder / "conversations.json"
    path.write_text(text[:-1] + ", " + "[" * 100_000 + "]" * 100_000 + "]", encoding="utf-8")
    return path
