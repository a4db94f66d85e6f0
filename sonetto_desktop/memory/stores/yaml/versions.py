"""FileVersions: the recent texts of memory.yaml, so a save from an older buffer is merged, not obeyed.

An editor may hold memory.yaml as it was minutes ago and save it after Sonetto wrote more. Taken
as it stands, that save would delete the memories written since and roll back their updates, as if
the person had. Instead the store finds the version the save was made from (its *base*) and merges
three ways: what the person changed against the base wins, what only the store changed since stays
(``merge``).

Every version this instance wrote or took in is kept as the entries the *next* version changed, with
their text in this version (``None``: the entry was not in it): versions share the text of every
entry nobody touched, so keeping them costs what changed, not the store's size. The oldest are
dropped past :data:`MAX_VERSIONS` versions or :data:`MAX_BYTES` of kept text; a save made from a
version no longer kept is merged against the file as this instance last knew it (as before).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Mapping

from .format import Layout

#: How many earlier versions of memory.yaml are kept (a rewrite at most every quarter second).
MAX_VERSIONS = 256
#: How much entry text they may hold together.
MAX_BYTES = 8 * 1024 * 1024


@dataclass
class _Version:
    sha1: str
    texts: dict[str, bytes | None]  # the entries the next version changed: their text in this one
    size: int


@dataclass(frozen=True)
class Base:
    """An earlier version of the file: ``texts`` holds, for every entry that changed since, its text
    in that version (``None``: not in it). Entries not in ``texts`` read as they do now."""

    sha1: str
    texts: Mapping[str, bytes | None]


class FileVersions:
    def __init__(self) -> None:
        self._versions: deque[_Version] = deque()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._versions)

    def clear(self) -> None:
        """The file's text is not known any more (read anew, rewritten whole by another instance)."""
        self._versions.clear()
        self._bytes = 0

    def advance(self, sha1: str, old: Layout, changed: Iterable[str] | None) -> None:
        """The file moved on from ``old`` (its text, SHA-1 ``sha1``) to a new text in which the entries
        ``changed`` differ (``None``: unknown, every entry may have: the history is dropped)."""
        if changed is None or not old.split or not sha1:
            self.clear()
            return
        texts = {memory_id: (chunk.text if (chunk := old.chunks.get(memory_id)) is not None else None)
                 for memory_id in changed}
        size = sum(len(text) for text in texts.values() if text is not None) + 64 * len(texts)
        self._versions.append(_Version(sha1, texts, size))
        self._bytes += size
        while self._versions and (len(self._versions) > MAX_VERSIONS or self._bytes > MAX_BYTES):
            self._bytes -= self._versions.popleft().size

    def known(self, sha1: str) -> bool:
        """Whether ``sha1`` is one of the kept versions."""
        return any(version.sha1 == sha1 for version in self._versions)

    def bases(self) -> Iterator[Base]:
        """Every kept version, newest first. The ``texts`` of each are built on the last one's (do
        not keep one past the next step)."""
        texts: dict[str, bytes | None] = {}
        for version in reversed(self._versions):
            texts.update(version.texts)
            yield Base(version.sha1, texts)

    def base_of(self, sha1: str, entries: Mapping[str, bytes],
                edited_from: Callable[[str, bytes, bytes], bool] = lambda *_: False) -> Base | None:
        """The version a saved file (``sha1``, its entries' text by id) was most likely made from: the
        one whose text of the entries changed since it the file repeats best (a file that is one of
        them exactly: that one). An entry whose text differs counts for a version when
        ``edited_from(id, its text there, the file's text)`` (an edit of that version's entry, e.g. with
        its history as it was), against it otherwise; one the file lacks counts for neither (deleted
        by hand, or since). ``None``: the newest, i.e. the file as last known."""
        best: tuple[int, Base] | None = None
        for base in self.bases():
            if base.sha1 == sha1:
                return Base(base.sha1, dict(base.texts))
            score = 0
            for memory_id, text in base.texts.items():
                found = entries.get(memory_id)
                if found == text:
                    score += 1
                elif found is not None:
                    score += 1 if text is not None and edited_from(memory_id, text, found) else -1
            if score > 0 and (best is None or score > best[0]):
                best = (score, Base(base.sha1, dict(base.texts)))
        return best[1] if best is not None else None
