"""A chat as a Markdown file (what the person saw: messages, stopped and failed replies). No Qt.

The file is written atomically (temp file, fsync, replace), in a worker thread: a crash or a full
disk leaves the previous file whole.

For the app to read it back (``history_import/sonetto_md.py``: bringing chats to another store),
each message's text is framed by HTML comments, hidden by Markdown viewers: ``<!-- sonetto:KEY
role="user" time="…" -->`` before it and ``<!-- sonetto:KEY end -->`` after it, ``KEY`` a random word
named once at the top (``<!-- sonetto:chat key="KEY" … -->``). A message whose text holds ``---`` or
a line that looks like a speaker's header is so still read whole, and a pasted export inside a
message (another key) is just text.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

from ..aio import run_blocking
from ..memory.files import atomic_write

LABELS = {
    "zh_CN": {"user": "你", "assistant": "Sonetto", "stopped": "（已停止）", "failed": "（回复失败：{0}）",
              "exported": "导出于 {0}", "memories": "想起的记忆：{0}"},
    "en": {"user": "You", "assistant": "Sonetto", "stopped": "(stopped)", "failed": "(reply failed: {0})",
           "exported": "Exported {0}", "memories": "Memories recalled: {0}"},
}


def _when(stamp: str) -> str:
    try:
        return datetime.fromisoformat(stamp).astimezone().strftime("%Y-%m-%d %H:%M")
    except (TypeError, ValueError):
        return ""


def _iso(stamp: str) -> str:
    try:
        return datetime.fromisoformat(stamp).astimezone().isoformat(timespec="seconds")
    except (TypeError, ValueError):
        return ""


def transcript_markdown(title: str, entries: list[dict[str, Any]], *, language: str = "zh_CN",
                        now: datetime | None = None, session_id: str = "") -> str:
    words = LABELS.get(language, LABELS["zh_CN"])
    key = uuid.uuid4().hex[:8]
    session = f' session="{session_id}"' if session_id and session_id.isprintable() and '"' not in session_id else ""
    lines = [f"# {' '.join(str(title).split()) or 'Sonetto'}", "",
             f"_{words['exported'].format((now or datetime.now()).strftime('%Y-%m-%d %H:%M'))}_", "",
             f'<!-- sonetto:chat key="{key}"{session} -->', ""]
    for entry in entries:
        role = "user" if entry.get("role") == "user" else "assistant"
        when = _when(entry.get("created_at", ""))
        stamp = _iso(entry.get("created_at", ""))
        lines.append(f'<!-- sonetto:{key} role="{role}"' + (f' time="{stamp}"' if stamp else "") + " -->")
        lines.append(f"**{words[role]}**" + (f" · {when}" if when else ""))
        lines.append("")
        content = str(entry.get("content", "")).rstrip()
        if content:
            lines += [content, ""]
        lines += [f"<!-- sonetto:{key} end -->", ""]
        error = entry.get("error") or {}
        if error.get("code") == "cancelled":
            lines += [f"_{words['stopped']}_", ""]
        elif error:
            reason = error.get("en" if language == "en" else "zh") or error.get("code", "")
            lines += [f"> {words['failed'].format(' '.join(str(reason).split()))}", ""]
        memories = [str(m.get("description", "")) for m in entry.get("memories") or [] if m.get("description")]
        if memories:
            lines += [f"_{words['memories'].format('；'.join(memories))}_", ""]
        lines += ["---", ""]
    return "\n".join(lines).rstrip("-\n") + "\n"


async def export_chat(store: Any, session_id: str, path: str | Path, *, language: str = "zh_CN") -> Path:
    """Write session ``session_id`` as Markdown to ``path``; returns the path written."""
    info = await store.get(session_id)
    entries = await store.transcript(session_id)
    text = transcript_markdown(info.title if info is not None else "", entries, language=language,
                               session_id=session_id)
    target = Path(path)
    await run_blocking(atomic_write, target, text.encode("utf-8"))
    return target
