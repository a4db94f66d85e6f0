"""Why a memory changed, as a code and its parameters — written in one canonical Chinese wording, read
back into the code by anyone (no Qt).

A change's ``reason`` is stored as text (``history[].reason``, a trash entry's ``reason``), which
memory.yaml's other readers show as it is. The app's own reasons are made here: ``reason_text(code,
*args)`` gives the canonical wording of a code (``reason_text("cli.add") == "命令行添加"``), and
``parse_reason(text)`` gives the code and its parameters back (``("cli.add", ())``), so a front end
can show the reason in its own language (``presentation/reasons.render_reason``). The wordings the
app wrote before codes existed are the same strings, so old stores read back into codes too, and so
do the English wordings an English UI used to store. A person's own reason matches no code and is
shown as written.

Everything that writes a reason of its own (the writer, the command line, another front end) should
take it from here: add a code to ``REASONS`` and its English to ``ENGLISH``, both below.
"""

from __future__ import annotations

import re
from functools import lru_cache

#: code -> the canonical (stored) Chinese wording; ``{0}``, ``{1}``: its parameters.
REASONS: dict[str, str] = {
    "user.add": "手动添加",
    "user.edit": "手动编辑",
    "user.merge": "手动合并",
    "user.delete": "手动删除",
    "user.lock": "手动锁定",
    "user.unlock": "手动解锁",
    "user.revert": "恢复旧版本",
    "user.restore": "从回收站恢复",
    "user.drag": "拖动到「{0}」",
    "user.move": "移动到「{0}」",
    "move.to": "移到「{0}」",
    "bulk.move": "批量移到「{0}」",
    "bulk.delete": "批量删除",
    "bulk.lock": "批量锁定",
    "bulk.unlock": "批量解锁",
    "bulk.pin": "批量置顶",
    "bulk.unpin": "批量取消置顶",
    "bulk.rename_theme": "主题「{0}」改为「{1}」",
    "bulk.forget_today": "删除 Sonetto 今天写的记忆",
    "bulk.forget_written": "删除这段时间里自动写下的记忆",
    "undo.toast": "从提示里撤销",
    "unlock.toast": "从提示里解锁",
    "undo.menu": "撤销（编辑菜单）",
    "redo.menu": "重做（编辑菜单）",
    "undo.turn": "撤销轮次 {0} 的改动",
    "undo.failed_attempt": "撤销失败的写入尝试",
    "chat.forget_memory": "在对话里选了“忘掉这条”",
    "chat.dont_remember": "用户说：别记住这个",
    "chat.edit_replaced": "这轮对话被编辑后重新发送，替换了",
    "chat.stopped": "这轮对话的回复被停止或失败了，不记",
    "cli.add": "命令行添加",
    "cli.update": "命令行修改",
    "cli.delete": "命令行删除",
    "import": "导入",
    "import.file": "从 {0} 导入",
    "import.chatgpt_saved": "从 ChatGPT 已保存的记忆导入",
    "import.undo": "撤销导入 {0}",
    "import.undo_conversation": "撤销导入 {0} 的对话「{1}」",
    "import.redo": "重做导入 {0}",
    "writer.create": "记忆写入助手根据对话新增",
    "writer.proposal": "记忆写入助手的提议",
    "app.add": "由 {0} 添加",
    "yaml.edit": "在 memory.yaml 中手动修改",
    "yaml.add": "在 memory.yaml 中手动添加",
    "yaml.delete": "从 memory.yaml 中删除",
    "merge.into": "合并到 {0}：{1}",  # a merged-away memory's trash entry: the kept id, the merge's reason
}

#: code -> its English wording: what an English UI shows (``presentation/reasons.render_reason``) and,
#: as an English UI stored these before reasons were codes, read back into the code too.
ENGLISH: dict[str, str] = {
    "user.add": "Added by hand",
    "user.edit": "Edited by hand",
    "user.merge": "Merged by hand",
    "user.delete": "Deleted by hand",
    "user.lock": "Locked by hand",
    "user.unlock": "Unlocked by hand",
    "user.revert": "Restored an old version",
    "user.restore": "Restored from the trash",
    "user.drag": "Dragged to “{0}”",
    "user.move": "Moved to “{0}”",
    "move.to": "Moved to “{0}”",
    "bulk.move": "Moved together to “{0}”",
    "bulk.delete": "Deleted together",
    "bulk.lock": "Locked together",
    "bulk.unlock": "Unlocked together",
    "bulk.pin": "Pinned together",
    "bulk.unpin": "Unpinned together",
    "bulk.rename_theme": "Theme “{0}” renamed to “{1}”",
    "bulk.forget_today": "Deleted what Sonetto wrote today",
    "bulk.forget_written": "Deleted what was written automatically in that time",
    "undo.toast": "Undone from a notification",
    "unlock.toast": "Unlocked from a notification",
    "undo.menu": "Undone (Edit menu)",
    "redo.menu": "Redone (Edit menu)",
    "undo.turn": "Undid the changes of turn {0}",
    "undo.failed_attempt": "A failed writing attempt taken back",
    "chat.forget_memory": "Chose “Forget this” in the chat",
    "chat.dont_remember": "You said: don't remember this",
    "chat.edit_replaced": "The message was edited and sent again, replacing this turn",
    "chat.stopped": "The reply of this turn was stopped or failed: not remembered",
    "cli.add": "Added from the command line",
    "cli.update": "Changed from the command line",
    "cli.delete": "Deleted from the command line",
    "import": "Imported",
    "import.file": "Imported from {0}",
    "import.chatgpt_saved": "Imported from ChatGPT's saved memories",
    "import.undo": "Undid import {0}",
    "import.undo_conversation": "Undid import {0}: its conversation “{1}”",
    "import.redo": "Redid import {0}",
    "writer.create": "Added by Sonetto from the conversation",
    "writer.proposal": "Proposed by Sonetto",
    "app.add": "Added by {0}",
    "yaml.edit": "Edited by hand in memory.yaml",
    "yaml.add": "Added by hand in memory.yaml",
    "yaml.delete": "Deleted from memory.yaml",
    "merge.into": "Merged into {0}: {1}",
}

#: English wordings stored by earlier versions that differ from today's (read back, never written).
OLDER_ENGLISH: dict[str, str] = {
    "bulk.forget_today": "Delete what Sonetto wrote today",
}


def reason_text(code: str, *args: object) -> str:
    """The stored wording of ``code`` with ``args``; ``KeyError`` for an unknown code."""
    return REASONS[code].format(*(str(arg) for arg in args))


@lru_cache(maxsize=None)
def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    found = []
    for table in (REASONS, ENGLISH, OLDER_ENGLISH):
        for code, template in table.items():
            parts = re.split(r"\{\d\}", template)
            pattern = "(.+?)".join(re.escape(part) for part in parts)
            found.append((code, re.compile(f"^{pattern}$", re.DOTALL)))
    # the longest wordings first: "从 ChatGPT 已保存的记忆导入" before "从 {0} 导入"
    found.sort(key=lambda item: -len(item[1].pattern.replace("(.+?)", "")))
    return found


def parse_reason(text: str) -> tuple[str, tuple[str, ...]] | None:
    """The code and parameters of a stored reason, or None (a person's own words)."""
    text = " ".join(str(text or "").split()) if "\n" not in str(text or "") else str(text).strip()
    if not text:
        return None
    for code, pattern in _patterns():
        match = pattern.match(text)
        if match:
            return code, match.groups()
    return None
