"""The "don't import" list: chat titles the person never wants imported (like a temporary chat),
kept as ``dont_import.json`` in the data dir, beside the "don't remember" list and with its file
handling (atomic, owner-only, re-read when another process changed it). A conversation is left out
when an entry's text is part of its title (ignoring case):

- an entry is kept as every entry of that list is (``DontRememberList.add``): its secret values
  hidden and cut to ``MAX_ENTRY_CHARS`` with "…", so a title is matched also in that form (the
  preview's 以后都不导入这个标题 on "wifi 密码是 hunter2024", or on a title of 250 characters, keeps
  that very title out);
- an entry that starts or ends with a letter or digit of the Latin alphabet matches only a whole word
  there: "hi" keeps out "hi" and "Say hi!", not "This is Philosophy"; Chinese text has no spaces
  between words, so there a part of the title is enough ("临时" keeps out "临时：密码找回").
"""

from __future__ import annotations

import re

from ..memory.dont_remember import MAX_ENTRY_CHARS, DontRemember, DontRememberList, entry_form
from ..memory.writer.secret_filter import HIDDEN

FILE_NAME = "dont_import.json"
_CUT = "…"


def _stored(title: str) -> str:
    """``title`` as ``add`` keeps it (``entry_form``); "" when nothing is left."""
    try:
        return entry_form(title)
    except ValueError:
        return ""


def _needle(entry: DontRemember) -> str:
    """What of an entry a title must hold, case-folded: an entry cut when it was added, its start."""
    text = " ".join(entry.text.split())
    if text.endswith(_CUT) and len(text) == MAX_ENTRY_CHARS:
        text = text[:-1].rstrip()
    return text.casefold()


def _pattern(text: str) -> re.Pattern[str]:
    """``text`` (case-folded) as a part of a title, a whole word at a Latin end."""
    before = r"(?<![a-z0-9])" if text[0].isascii() and text[0].isalnum() else ""
    after = r"(?![a-z0-9])" if text[-1].isascii() and text[-1].isalnum() else ""
    return re.compile(before + re.escape(text) + after)


class DontImportList(DontRememberList):
    _matchers: tuple[tuple[str, ...], list[tuple[DontRemember, re.Pattern[str]]], bool] | None = None

    def _matching(self) -> tuple[list[tuple[DontRemember, re.Pattern[str]]], bool]:
        """Each entry with its pattern, made once per version of the list (a plan of 100,000
        conversations asks for every title), and whether any entry holds a hidden secret (only then is a
        title also read in its stored form, which hides the title's secrets: the costly part)."""
        entries = self.entries()
        key = tuple(entry.text for entry in entries)
        if self._matchers is None or self._matchers[0] != key:
            made = [(entry, _pattern(text)) for entry in entries if (text := _needle(entry))]
            self._matchers = (key, made, any(HIDDEN.search(entry.text) for entry in entries))
        return self._matchers[1], self._matchers[2]

    def match_title(self, title: str) -> DontRemember | None:
        """The entry that keeps a conversation with this title out, or None (see the module docstring)."""
        title = " ".join(str(title or "").split())
        if not title:
            return None
        matchers, masked = self._matching()
        if not matchers:
            return None
        # (the stored form is the title cut and its secrets hidden: it adds a match only for an entry
        # that holds a hidden secret; a cut entry's start is matched in the title itself)
        forms = dict.fromkeys((title.casefold(), _stored(title).casefold() if masked else ""))
        forms.pop("", None)
        for entry, pattern in matchers:
            if any(pattern.search(form) for form in forms):
                return entry
        return None
