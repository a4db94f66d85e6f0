"""A change's reason in the front end's language: the app's own reasons are codes (``memory/reasons.py``)
shown in Chinese or English; a person's own words are shown as written. No Qt."""

from __future__ import annotations

from ..memory.reasons import REASONS, parse_reason

#: code -> English wording (the Chinese one is the stored text, ``memory.reasons.REASONS``).
EN: dict[str, str] = {
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
    "cli.add": "Added from the command line",
    "cli.update": "Changed from the command line",
    "cli.delete": "Deleted from the command line",
    "import": "Imported",
    "import.file": "Imported from {0}",
    "import.chatgpt_saved": "Imported from ChatGPT's saved memories",
    "writer.create": "Added by Sonetto from the conversation",
    "writer.proposal": "Proposed by Sonetto",
    "app.add": "Added by {0}",
    "yaml.edit": "Edited by hand in memory.yaml",
    "yaml.add": "Added by hand in memory.yaml",
    "yaml.delete": "Deleted from memory.yaml",
    "merge.into": "Merged into {0}: {1}",
}


def render_reason(text: str, language: str = "zh_CN") -> str:
    """``text`` (a stored reason) for a person reading ``language``: the app's reasons in that
    language, whatever language they were stored in; anything else as written."""
    parsed = parse_reason(text)
    if parsed is None:
        return " ".join(str(text or "").split())
    code, args = parsed
    if code == "merge.into" and len(args) == 2:  # the merge's own reason inside
        args = (args[0], render_reason(args[1], language))
    template = EN.get(code) if language.startswith("en") else None
    return (template or REASONS[code]).format(*args)
