"""The "don't import" list: chat titles the person never wants imported (like a temporary chat),
kept as ``dont_import.json`` in the data dir, beside the "don't remember" list and with its file
handling (atomic, owner-only, re-read when another process changed it). A conversation is left out
when an entry's text is part of its title (ignoring case)."""

from __future__ import annotations

from ..memory.dont_remember import DontRemember, DontRememberList

FILE_NAME = "dont_import.json"


class DontImportList(DontRememberList):
    def match_title(self, title: str) -> DontRemember | None:
        """The entry that keeps a conversation with this title out, or None."""
        folded = " ".join(str(title or "").split()).casefold()
        if not folded:
            return None
        return next((e for e in self.entries() if e.text.casefold() in folded), None)
