"""Words for an undo that keeps the cards a later change touched (issue 35, item 4): which card, by
its text (never its id), why it is kept, who changed it and when, and what the rest of the undo does.
The window and the command line say the same: ``lang`` is "zh" or "en" (like ``relative_time``). No Qt.
"""

from __future__ import annotations

import unicodedata
from datetime import datetime
from typing import Iterable, Mapping

from ..history_import.model import import_source
from ..memory.changes import AGENT, PERSON_ACTORS
from ..memory.undo import EFFECTS, Touched
from .relative_time import relative_time

#: A kept card is named by this many characters of its text at most.
CARD_CHARS = 40

# {who}: who made the later change; {theme}: the card's theme now; {other}: the card it went into.
_WHY: dict[str, tuple[str, str]] = {
    "edited": ("{who}之后改过它", "{who} edited it afterwards"),
    "moved": ("{who}之后把它移到了「{theme}」", "{who} moved it to “{theme}” afterwards"),
    "merged": ("{who}之后把别的记忆合并进了它", "{who} merged another memory into it afterwards"),
    "reverted": ("{who}之后把它恢复成了旧版本", "{who} brought back an older version of it afterwards"),
    "restored": ("{who}之后把它从回收站恢复了", "{who} restored it from the trash afterwards"),
    "deleted": ("{who}之后删除了它（在回收站里）", "{who} deleted it afterwards (it is in the trash)"),
    "merged_away": ("{who}之后把它合并进了别的记忆", "{who} merged it into another memory afterwards"),
    "locked": ("{who}之后锁定了它", "{who} locked it afterwards"),
    "lock_changed": ("{who}之后锁定或解锁过它", "{who} locked or unlocked it afterwards"),
    "pin_changed": ("{who}之后置顶或取消置顶过它", "{who} pinned or unpinned it afterwards"),
}
# Reasons without a later change's author.
_PLAIN: dict[str, tuple[str, str]] = {
    "locked": ("它被你锁定了", "you locked it"),
    "lock_only_user": ("只有你能锁定或解锁它", "only you may lock or unlock it"),
    "pin_only_user": ("只有你能置顶或取消置顶它", "only you may pin or unpin it"),
    "with": ("它被合并进了保留的「{other}」", "it was merged into “{other}”, which is kept"),
    "exists": ("已经有一条同编号的记忆", "a memory with its id exists again"),
}
# zh, en for several, en for one
_EFFECTS: dict[str, tuple[str, str, str]] = {
    "trashed": ("{n} 条移到回收站", "{n} go to the trash", "1 goes to the trash"),
    "restored": ("{n} 条从回收站恢复", "{n} come back from the trash", "1 comes back from the trash"),
    "reverted": ("{n} 条恢复原来的内容", "{n} get their earlier text back", "1 gets its earlier text back"),
    "lock": ("{n} 条恢复原来的锁定状态", "{n} get their earlier lock back", "1 gets its earlier lock back"),
    "pinned": ("{n} 条恢复原来的置顶状态", "{n} get their earlier pin back", "1 gets its earlier pin back"),
}


def _en(lang: str) -> bool:
    return lang.lower().startswith("en")


#: Unicode's direction controls (embeddings, overrides, isolates and their ends): invisible, they turn the text
#: after them around. Set apart in our sentences (:func:`set_apart`), shown as marks in the window
#: (``ui.widgets.direction_marks``), as escapes on the command line (``cli.printable``).
DIRECTION_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_DIRECTION_CONTROLS = frozenset(DIRECTION_CONTROLS)


def set_apart(text: str) -> str:
    """``text`` (a memory's, a theme's) to go inside a sentence of ours: one holding a direction control
    or a right-to-left letter is set apart (first-strong isolate … pop directional isolate), so that an
    override in it ends with it ("当前：零宽字符和\u202e反转（Moved Theme）" showed the theme as "（emehT
    devoM）") and a right-to-left name does not carry what follows it to its side ("עברית  12" showed the
    count on the name's left)."""
    if _DIRECTION_CONTROLS.isdisjoint(text) and not _right_to_left(text):
        return text
    return "\u2068" + text + "\u2069"


def _right_to_left(text: str) -> bool:
    return any(ord(ch) >= 0x590 and unicodedata.bidirectional(ch) in ("R", "AL") for ch in text)


def card_text(description: str, limit: int = CARD_CHARS) -> str:
    """A card's text on one line, cut to ``limit`` characters (with "…"), set apart (``set_apart``)."""
    flat = " ".join(str(description or "").split())
    return set_apart(flat if len(flat) <= limit else flat[: limit - 1] + "…")


def card_names(touched: Iterable[Touched], shown: int = 3, chars: int = 20) -> str:
    """The first ``shown`` cards by their text, for a one-line message: "「用户住在杭州」、「用户养了猫」"."""
    ordered = sorted(touched, key=lambda t: (t.description, t.memory_id))
    return "、".join(f"「{card_text(t.description, chars)}」" for t in ordered[:shown])


def who(actor: str, lang: str = "zh") -> str:
    """Who made a change, for a sentence: 你 / Sonetto / the app's or the import's name."""
    en = _en(lang)
    if actor in PERSON_ACTORS:
        return "you" if en else "你"
    if actor == AGENT:
        return "Sonetto"
    named = import_source(actor) or (actor[4:].strip() if actor.startswith("mcp:") else "")
    if named:
        return named
    return "another app" if en else "其他应用"


def kept_reason(touched: Touched, lang: str = "zh", now: datetime | None = None) -> str:
    """Why a card is kept: "你之后改过它（3天前）" / "you edited it afterwards (3 days ago)"."""
    en = _en(lang)
    if touched.why in _WHY and (touched.actor or touched.why != "locked"):
        by = who(touched.actor, lang) if touched.actor else ("someone" if en else "有人")
        by = by + " " if not en and by[-1:].isascii() else by  # "Sonetto 之后改过它"
        text = _WHY[touched.why][en].format(who=by, theme=set_apart(touched.theme), other=card_text(touched.other))
    else:
        pair = _PLAIN.get(touched.why, (touched.message, touched.message))
        text = pair[en].format(other=card_text(touched.other), theme=set_apart(touched.theme))
    text = text[:1].upper() + text[1:] if en else text
    when = relative_time(touched.time, now, lang=lang) if touched.time else ""
    return f"{text} ({when})" if when and en else f"{text}（{when}）" if when else text


def kept_line(touched: Touched, lang: str = "zh", now: datetime | None = None) -> str:
    """One kept card: "「用户住在杭州西溪」：你之后改过它（3天前）"."""
    if _en(lang):
        return f"“{card_text(touched.description)}”: {kept_reason(touched, lang, now)}"
    return f"「{card_text(touched.description)}」：{kept_reason(touched, lang, now)}"


def kept_lines(kept: Iterable[Touched], lang: str = "zh", now: datetime | None = None) -> list[str]:
    """Every kept card, in the order of their text."""
    return [kept_line(t, lang, now) for t in sorted(kept, key=lambda t: (t.description, t.memory_id))]


def effects_text(effects: Mapping[str, int], lang: str = "zh") -> str:
    """What an undo does to the other memories: "3 条移到回收站、2 条恢复原来的内容"."""
    en = _en(lang)
    parts = [_EFFECTS[key][0 if not en else 2 if effects[key] == 1 else 1].format(n=effects[key])
             for key in EFFECTS if effects.get(key)]
    return (", " if en else "、").join(parts)


def kept_headline(count: int, lang: str = "zh", *, done: bool = False) -> str:
    """The line above the kept cards (``done``: after the undo, else before it)."""
    if _en(lang):
        verb = ("was kept" if done else "is kept") if count == 1 else ("were kept" if done else "are kept")
        return (f"{count} card was changed afterwards; it {verb} as it is:" if count == 1 else
                f"{count} cards were changed afterwards; they {verb} as they are:")
    return f"有 {count} 张卡片之后又被改过，{'已' if done else '会'}原样保留："


_REST = {"will": ("其余的改动会撤销：{0}。", "The rest will be undone: {0}."),
         "can": ("其余的改动可以撤销：{0}。", "The rest can be undone: {0}."),
         "done": ("其余的改动已撤销：{0}。", "The rest was undone: {0}.")}


def rest_line(effects: Mapping[str, int], lang: str = "zh", when: str = "will") -> str:
    """What undoing the rest does (``when``: "will" before a confirmation, "can" after a refusal,
    "done" after it)."""
    said = effects_text(effects, lang)
    if not said:
        return "Nothing else is left to undo." if _en(lang) else "除此之外没有可撤销的改动了。"
    return _REST[when][_en(lang)].format(said)
