"""What to tell a person about a memory change or a writer event (``toast_for``): which text, how
urgent, which card a click opens. No Qt: the desktop's ``ui/notices/writer_toasts.py`` shows these, and
a turn's changes grow into one summary (``turn_summary.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..memory import kinds
from ..memory.changes import IMPORT_PREFIX, USER, MemoryChange
from .i18n import counted, language, translate
from .turn_summary import quiet
from .undo_words import card_text

PREVIEW_CHARS = 40


def _preview(text: str) -> str:
    return card_text(text, PREVIEW_CHARS)


@dataclass(frozen=True)
class ToastSpec:
    text: str
    kind: str
    key: str
    reveal_id: str | None  # the card a click opens (None: nothing to open)
    repeat: bool = True  # the same news again is counted (×N); False: the text says what is new
    unlock_id: str | None = None  # a locked memory the toast offers to unlock


def _described(change: MemoryChange) -> str | None:
    first = change.ids[0] if change.ids else None
    state = change.state(first) if first else None
    text = (state or {}).get("description") or change.extra.get("description")
    return _preview(text) if text else None


def toast_for(event: Any) -> ToastSpec | None:
    """What to show for a change (``MemoryChange``) or a writer event (``WriterEvent``); ``None`` for
    what a person need not see (hits, the person's own edits, queue states)."""
    if isinstance(event, MemoryChange):
        return _change_toast(event)
    kind = getattr(event, "kind", "")
    if kind in ("failed", "gave_up"):
        detail = _preview(_why(event))
        if kind == "gave_up" and detail and getattr(event, "attempt", 0):  # failed that often: kept, to retry
            text = translate("WriterToasts", "这轮对话的记忆整理已放弃（失败 {0} 次，留在失败列表里，可在状态栏重试）：{1}").format(
                event.attempt, detail)
        elif kind == "gave_up":  # (held: its reason says so)
            text = (translate("WriterToasts", "这轮对话的记忆整理已放弃：{0}").format(detail) if detail
                    else translate("WriterToasts", "这轮对话的记忆整理已放弃"))
        elif detail and getattr(event, "attempt", 0):
            text = translate("WriterToasts", "整理记忆第 {0} 次失败：{1}").format(event.attempt, detail)
        elif detail:
            text = translate("WriterToasts", "整理记忆失败：{0}").format(detail)
        else:
            text = translate("WriterToasts", "整理记忆失败")
        # One error toast at a time: repeated failures refresh it instead of piling up (an attempt's
        # number is in its text: no "×2" after "第 2 次"; turns given up on are counted: "×2").
        return ToastSpec(text, "error", "writer-error", None, repeat=kind == "gave_up" or not getattr(event, "attempt", 0))
    if kind == "locked":  # Sonetto wanted to change a memory the person locked: said, with a way to unlock
        memory_id = getattr(event, "memory_id", None) or ""
        what = _preview(getattr(event, "detail", "")) or memory_id
        return ToastSpec(translate("WriterToasts", "想更新「{0}」，但它已锁定").format(what), "info",
                         f"locked:{memory_id}", memory_id or None, repeat=False, unlock_id=memory_id or None)
    return None


def _why(event: Any) -> str:
    """Why the writer failed, in the front end's language now (the event keeps both; ``detail`` is in the
    one of the moment it failed)."""
    zh, en = getattr(event, "zh", ""), getattr(event, "en", "")
    if zh or en:
        return (en or zh) if language() == "en" else (zh or en)
    return getattr(event, "detail", "")


def _change_toast(change: MemoryChange) -> ToastSpec | None:
    if change.actor.startswith(IMPORT_PREFIX):  # an import shows its progress, and one toast at its end
        return None
    spec = _what_changed(change)
    if spec is not None and change.actor.startswith("mcp:"):  # another AI app: say which
        text = translate("WriterToasts", "{0}（其他应用）· {1}").format(change.actor[4:], spec.text)
        spec = ToastSpec(text, spec.kind, spec.key, spec.reveal_id)
    return spec


def _what_changed(change: MemoryChange) -> ToastSpec | None:
    kind = kinds.kind(change.kind)
    if change.actor == USER or not kind.group or quiet(change):  # hits, the trash, a re-read: no news
        return None
    first = change.ids[0] if change.ids else None
    key = f"{change.kind}:{','.join(change.ids)}:{change.turn_id or ''}"
    description = _described(change)
    if kind.per_id:
        text = translate("WriterToasts", "导入了 {0} 条记忆").format(counted(len(change.ids)))
        return ToastSpec(text, "info", key, None)
    if kind.group == kinds.ADDED:
        text = (translate("WriterToasts", "记住了：{0}").format(description) if description
                else translate("WriterToasts", "记住了一件新事"))
        return ToastSpec(text, "success", key, first)
    if kind.group == kinds.UPDATED and kind.content:
        text = (translate("WriterToasts", "更新了记忆：{0}").format(description) if description
                else translate("WriterToasts", "更新了记忆"))
        return ToastSpec(text, "info", key, first)
    if kind.group == kinds.MERGED:
        return ToastSpec(translate("WriterToasts", "合并了两条记忆"), "info", key, first)
    if kind.group == kinds.DELETED:
        text = (translate("WriterToasts", "删除了过时的记忆：{0}").format(description) if description
                else translate("WriterToasts", "删除了过时的记忆"))
        return ToastSpec(text, "info", key, None)
    return None
