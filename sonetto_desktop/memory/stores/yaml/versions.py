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

A store that closes keeps them in ``memory.yaml.versions`` (tied to the file it leaves), so a save made
from an editor's buffer while the app was closed is merged the same way when it opens again.
"""

from __future__ import annotations

import json
import logging
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping

from ...files import atomic_write
from .format import Layout

log = logging.getLogger(__name__)

FORMAT = "sonetto-memory-versions"

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
        self._taken: set[str] = set()  # versions a save repeated exactly and was merged against

    def __len__(self) -> int:
        return len(self._versions)

    def clear(self) -> None:
        """The file's text is not known any more (read anew, rewritten whole by another instance)."""
        self._versions.clear()
        self._bytes = 0
        self._taken.clear()

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

    def save(self, path: Path, current: str) -> None:
        """Keep the versions in ``path``, tied to the file they lead to (SHA-1 ``current``); best effort."""
        data = {"format": FORMAT, "version": 1, "current": current,
                "versions": [{"sha1": v.sha1, "texts": {mid: (t.decode("utf-8", "surrogateescape") if t is not None
                                                              else None) for mid, t in v.texts.items()}}
                             for v in self._versions]}
        try:
            atomic_write(path, json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8",
                                                                                                "surrogateescape"))
        except OSError as exc:
            log.info("could not keep the versions of memory.yaml in %s: %s", path, exc)

    def load(self, path: Path, current: str) -> None:
        """The versions kept in ``path`` when they lead to the file with SHA-1 ``current`` (else none)."""
        self.clear()
        try:
            data = json.loads(path.read_bytes().decode("utf-8", "surrogateescape"))
            if data.get("format") != FORMAT or data.get("current") != current:
                return
            for entry in data["versions"]:
                texts = {str(mid): (t.encode("utf-8", "surrogateescape") if isinstance(t, str) else None)
                         for mid, t in dict(entry["texts"]).items()}
                size = sum(len(t) for t in texts.values() if t is not None) + 64 * len(texts)
                self._versions.append(_Version(str(entry["sha1"]), texts, size))
                self._bytes += size
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            self.clear()

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

    def taken(self, sha1: str) -> None:
        """A save with SHA-1 ``sha1`` was merged against an older version (the same text again is meant)."""
        self._taken.add(sha1)

    def base_at(self, sha1: str) -> Base | None:
        """The kept version with SHA-1 ``sha1`` (``None``: not kept)."""
        for base in self.bases():
            if base.sha1 == sha1:
                return Base(base.sha1, dict(base.texts))
        return None

    def base_of(self, sha1: str, entries: Mapping[str, bytes], now: Callable[[str], bytes | None],
                edited_from: Callable[[str, bytes, bytes], bool] = lambda *_: False) -> Base | None:
        """The version a saved file (``sha1``, its entries' text by id) was most likely made from, among
        the entries changed since each version (``now(id)``: an entry's text as last known):

        - a file that holds an entry as it read *after* a version, or one the version did not have, was
          not made from that version;
        - an entry as that version had it counts for it, and so does one edited from it (``edited_from``:
          e.g. with its history as it was then, where the store has appended to it since);
        - an entry that version lacked and the file lacks too counts for it, less (alone, it cannot tell a
          stale save from the person deleting what the store added: nothing is lost either way, the store
          says what it kept, and the same deletion saved again is taken); other differences are the
          person's edits and count for nothing.

        A file that is one of the versions exactly (a sync client putting back its copy): that one. A text
        merged against an older version once and saved again exactly, after the store said what it kept,
        is meant as it is now. ``None``: the newest, i.e. the file as last known."""
        if sha1 in self._taken:
            return None  # the same text saved again, after the store said what it kept: meant as it is
        best: tuple[tuple[int, int], Base] | None = None
        for base in self.bases():
            if base.sha1 == sha1:
                self._taken.add(sha1)
                return Base(base.sha1, dict(base.texts))
            strong = weak = 0
            for memory_id, then in base.texts.items():
                found = entries.get(memory_id)
                if found == then:
                    if then is None:
                        weak += 1
                    else:
                        strong += 1
                elif found is not None and (then is None or found == now(memory_id)):
                    break  # the file has an entry as it read after this version, or one it did not have
                elif found is not None and then is not None and edited_from(memory_id, then, found) and not (
                        (current := now(memory_id)) is not None and edited_from(memory_id, current, found)):
                    strong += 1
            else:
                score = (strong, weak)
                if score > (0, 0) and (best is None or score > best[0]):
                    best = (score, Base(base.sha1, dict(base.texts)))
        return best[1] if best is not None else None
