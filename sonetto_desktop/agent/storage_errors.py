"""Why the session database could not be used, for a person: disk full, read-only, damaged, busy.

``storage_problem(exc)`` looks through an exception and its causes for the SQLite or OS error
underneath (LangGraph's checkpointer and aiosqlite pass SQLite's own exceptions through) and names
the reason; ``None`` means the failure is not about storage. No Qt.
"""

from __future__ import annotations

import errno
import sqlite3
from ..memory.errors import causes

REASONS = ("full", "readonly", "damaged", "busy", "unreadable", "other")


class UnreadableCheckpoint(ValueError):
    """A checkpoint row of one session names an allowed message type that cannot be rebuilt from what
    it holds (``checkpoint_serde``): that session's turns fail with the ``unreadable`` reason."""

_SQLITE_REASONS = {
    13: "full",  # SQLITE_FULL
    8: "readonly",  # SQLITE_READONLY
    3: "readonly",  # SQLITE_PERM
    11: "damaged",  # SQLITE_CORRUPT
    26: "damaged",  # SQLITE_NOTADB
    5: "busy",  # SQLITE_BUSY
    6: "busy",  # SQLITE_LOCKED
}
_OS_REASONS = {
    errno.ENOSPC: "full",
    getattr(errno, "EDQUOT", errno.ENOSPC): "full",
    errno.EROFS: "readonly",
    errno.EACCES: "readonly",
    errno.EPERM: "readonly",
}
_TEXT_REASONS = (  # for errors that carry no code (older SQLite builds, wrapped messages)
    ("disk is full", "full"),
    ("readonly database", "readonly"),
    ("disk image is malformed", "damaged"),
    ("file is not a database", "damaged"),
    ("database is locked", "busy"),
)


def storage_problem(exc: BaseException) -> str | None:
    """One of ``REASONS`` when ``exc`` (or what caused it) is a database or file-system error."""
    for link in causes(exc):
        if isinstance(link, UnreadableCheckpoint):
            return "unreadable"
        if isinstance(link, sqlite3.Error):
            code = getattr(link, "sqlite_errorcode", None)
            if isinstance(code, int) and (code & 0xFF) in _SQLITE_REASONS:
                return _SQLITE_REASONS[code & 0xFF]
            text = str(link).lower()
            return next((reason for needle, reason in _TEXT_REASONS if needle in text), "other")
        if isinstance(link, OSError) and link.errno in _OS_REASONS:
            return _OS_REASONS[link.errno]
    return None


_MESSAGES: dict[str, tuple[str, str]] = {
    "full": (
        "磁盘空间已满，对话记录无法保存。请清理一些磁盘空间后再试。",
        "The disk is full, so the conversation could not be saved. Free some disk space and try again.",
    ),
    "readonly": (
        "数据目录或会话数据库是只读的（或没有写入权限），对话记录无法保存。请检查数据目录的权限。",
        "The data folder or the session database is read-only (or not writable by you), so the conversation "
        "could not be saved. Check the data folder's permissions.",
    ),
    "busy": (
        "会话数据库正被另一个程序占用，暂时无法保存。请稍后再试。",
        "The session database is busy in another program, so the conversation could not be saved. Try again shortly.",
    ),
    "unreadable": (
        "这个会话保存的上下文无法读取（会话数据库里的记录可能被改动过），没有载入。其他会话不受影响，可以新建一个会话继续。",
        "This chat's saved context could not be read (its record in the session database may have been altered), "
        "so nothing of it was loaded. Other chats are not affected: start a new chat to go on.",
    ),
    "other": (
        "无法保存对话记录（数据文件读写出错）。请检查数据目录后再试。",
        "The conversation could not be saved (the data file could not be read or written). "
        "Check the data folder and try again.",
    ),
}


def storage_message(reason: str, moved_to: str = "") -> tuple[str, str]:
    """(Chinese, English) for a storage failure; ``moved_to`` names where a damaged file was kept."""
    if reason == "damaged":
        if moved_to:
            return (
                f"会话数据库已损坏，无法读写。原文件已移到“{moved_to}”保留备查，并已新建一个会话数据库；"
                "之前的对话不在新库中。请重新发送这条消息。",
                f"The session database was damaged. It was moved aside to “{moved_to}” (kept, not deleted) and a "
                "new one was started; earlier conversations are not in the new one. Please send your message again.",
            )
        return (
            "会话数据库已损坏，且无法移到一旁。请关闭程序，把数据目录中的 sessions.db 移走后再启动。",
            "The session database is damaged and could not be moved aside. Quit, move sessions.db out of the data "
            "folder, and start again.",
        )
    return _MESSAGES.get(reason, _MESSAGES["other"])
