"""A chat as a Markdown file (what the person saw: messages, stopped and failed replies). No Qt.

The file is written atomically (temp file, fsync, replace), in a worker thread: a crash or a full
disk leaves the previous file whole.
"""

from __future__ import annotations

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


def transcript_markdown(title: str, entries: list[dict[str, Any]], *, language: str = "zh_CN",
                        now: datetime | None = None) -> str:
    words = LABELS.get(language, LABELS["zh_CN"])
    lines = [f"# {' '.join(str(title).split()) or 'Sonetto'}", "",
             f"_{words['exported'].format((now or datetime.now()).strftime('%Y-%m-%d %H:%M'))}_", ""]
    for entry in entries:
        role = "user" if entry.get("role") == "user" else "assistant"
        when = _when(entry.get("created_at", ""))
        lines.append(f"**{words[role]}**" + (f" · {when}" if when else ""))
        lines.append("")
        content = str(entry.get("content", "")).rstrip()
        if content:
            lines += [content, ""]
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
    text = transcript_markdown(info.title if info is not None else "", entries, language=language)
    target = Path(path)
    await run_blocking(atomic_write, target, text.encode("utf-8"))
    return target
