"""ChatGPT's saved memories (Settings → Personalization → Manage memories), pasted as text: one
memory per line. ChatGPT offers no download of this list, so the person copies it; what they paste
may carry bullets, numbering, blank lines and the page's headers, which are dropped. An entry
written as ``1. [2024-09-29]. …`` (as the memory snapshot in ChatGPT's data export has them) keeps
its date. Each entry becomes one memory as it is (``runner.import_saved_memories``): no model reads it.

A ``.txt`` file is taken for saved memories without being told only when it is in ChatGPT's own
dated form on every line (``has_signature``); any other text is refused as unrecognised, and read
as saved memories when the person picks that format. A list longer than ChatGPT keeps
(``MAX_TEXT_CHARS``, ``MAX_ENTRIES``) is not one; the snapshot in a ChatGPT export is known to be
one, and past those limits keeps its first entries (``parse_snapshot``: the preview says the rest
were left out).
"""

from __future__ import annotations

import re
from datetime import date

from .model import History, HistoryFormatError, SavedMemory, clean_text
from .source_files import Source, text_of

#: As long as a memory the writer may write (its tools' limit): longer lines are shown, not cut.
MAX_CHARS = 500
#: ChatGPT keeps a few kilobytes of saved memories; a text or a list far longer is something else.
MAX_TEXT_CHARS = 100_000
MAX_ENTRIES = 1000
#: ChatGPT's own form of its memory list, as its data export writes it: ``1. [2024-09-29]. …``.
SIGNATURE = re.compile(r"^\s*\d{1,4}\s*[.)、．]\s*\[\d{4}-\d{1,2}-\d{1,2}\]")
_BULLET = re.compile(r"^\s*(?:[-–•*·●○◦▪]\s*|\d{1,4}\s*[.)、．]\s*)+")
_DATED = re.compile(r"^\[(\d{4})-(\d{1,2})-(\d{1,2})\]\s*[.。:：]?\s*")
_HEADERS = {
    "saved memories", "manage memories", "memory", "memories", "memory full", "memory is full", "delete all",
    "已保存的记忆", "保存的记忆", "管理记忆", "记忆", "记忆已满", "全部删除", "删除所有记忆",
}


def has_signature(text: str) -> bool:
    """Whether ``text`` is ChatGPT's memory list in its own form (``SIGNATURE`` on every line that is
    not blank or one of the page's headers): what a ``.txt`` must be to be read as saved memories
    without being told (a text pasted or picked as saved memories needs no signature)."""
    lines = [line for line in text.splitlines()
             if line.strip() and _BULLET.sub("", line.strip()).casefold().rstrip(":：") not in _HEADERS]
    return bool(lines) and all(SIGNATURE.match(line) for line in lines)


def _checked_size(text: str) -> None:
    if len(text) > MAX_TEXT_CHARS:
        raise HistoryFormatError(
            f"内容太长（{len(text):,} 字）：ChatGPT 的已保存记忆一般只有几千字，最多读 {MAX_TEXT_CHARS:,} 字",
            f"too long ({len(text):,} characters): ChatGPT's saved memories are a few thousand characters; "
            f"at most {MAX_TEXT_CHARS:,} are read")


def parse(text: str) -> list[SavedMemory]:
    """The entries of a pasted list, in order, without repeats (``HistoryFormatError`` past
    ``MAX_TEXT_CHARS`` or ``MAX_ENTRIES``: not a saved-memory list)."""
    _checked_size(text)
    found, more = _entries(text)
    if more:
        raise HistoryFormatError(f"超过 {MAX_ENTRIES} 条：不像是 ChatGPT 的已保存记忆",
                                 f"more than {MAX_ENTRIES} entries: not ChatGPT's saved memories")
    return found


def parse_snapshot(text: str) -> tuple[list[SavedMemory], bool]:
    """The entries of the memory snapshot in a ChatGPT export, and whether some were left out: that
    it is one is known (it is no pasted text to tell apart), so a snapshot past ``MAX_TEXT_CHARS`` or
    ``MAX_ENTRIES`` keeps its first entries within them (the export's chats are read all the same)."""
    cut = len(text) > MAX_TEXT_CHARS
    if cut:
        text = text[:MAX_TEXT_CHARS].rsplit("\n", 1)[0]  # whole lines only
    found, more = _entries(text)
    return found, cut or more


def _entries(text: str) -> tuple[list[SavedMemory], bool]:
    """The first ``MAX_ENTRIES`` entries of ``text``, and whether it has more."""
    found: list[SavedMemory] = []
    seen: set[str] = set()
    for number, raw in enumerate(text.splitlines(), 1):
        line = _BULLET.sub("", raw.strip())
        day = None
        dated = _DATED.match(line)
        if dated:
            try:
                day = date(int(dated.group(1)), int(dated.group(2)), int(dated.group(3)))
            except ValueError:
                day = None
            line = line[dated.end():]
        line = clean_text(" ".join(line.split()))
        if not line or line.casefold().rstrip(":：") in _HEADERS:
            continue
        key = line.casefold()
        if key in seen:
            continue
        if len(found) >= MAX_ENTRIES:
            return found, True
        seen.add(key)
        found.append(SavedMemory(line, day, number))
    return found, False


def too_long(entry: SavedMemory) -> bool:
    return len(entry.text) > MAX_CHARS


def read(source: Source) -> History:
    name = source.names[0]
    entries = parse(text_of(source, name))
    if not entries:
        raise HistoryFormatError(f"{name} 里没有记忆条目（每行一条）", f"{name} holds no memories (one per line)")
    return History("chatgpt-memories", saved_memories=entries)


def from_text(text: str) -> History:
    """A pasted list (the window's text box, or standard input)."""
    entries = parse(text)
    if not entries:
        raise HistoryFormatError("没有读到记忆条目：每行粘贴一条", "no memories found: paste one per line")
    return History("chatgpt-memories", saved_memories=entries)
