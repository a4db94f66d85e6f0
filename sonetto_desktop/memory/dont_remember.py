"""The "don't remember" list: things the person told Sonetto not to keep (issue 12, capability 3).

"别记住这个" on a chat message undoes that turn's memory changes and adds the message's gist here;
the person can also add, edit and remove entries themself. The writer's prompt lists the entries
("never store anything about these"), and — because a prompt is advice, not a guarantee — every
write by an app (the writer, another AI app) is checked against them too: content that matches an
entry is refused with the entry named (``DontRememberList.match``).

Stored as ``dont_remember.json`` in the data dir, written atomically and owner-only. Thread-safe.
"""

from __future__ import annotations

import json
import threading
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path

from .files import atomic_write
from .item import now_iso

FILE_NAME = "dont_remember.json"
MAX_ENTRY_CHARS = 200
MAX_ENTRIES = 200
#: Share of an entry's character pairs that must appear in a text for it to match.
MATCH_SHARE = 0.6


@dataclass(frozen=True)
class DontRemember:
    id: str
    text: str
    created_at: str
    turn_id: str | None = None  # the chat turn it came from ("别记住这个"), if any


def _pairs(text: str) -> set[str]:
    flat = "".join(ch for ch in text.casefold() if ch.isalnum())
    return {flat[i:i + 2] for i in range(len(flat) - 1)} or ({flat} if flat else set())


def _parse(raw: object) -> list[DontRemember]:
    """The entries of the file's JSON; anything else than a list of entries with a text is damage
    (``ValueError``): read as empty, the next change would save over what the person wrote."""
    if not isinstance(raw, dict):
        raise ValueError("not a JSON object")
    entries = raw.get("entries", [])
    if not isinstance(entries, list):
        raise ValueError(f"'entries' is {type(entries).__name__}, not a list")
    out = []
    for n, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("text"), str) or not entry["text"].strip():
            raise ValueError(f"entry {n + 1} is not an object with a text")
        turn_id = entry.get("turn_id")
        out.append(DontRemember(str(entry.get("id") or uuid.uuid4().hex[:8]), entry["text"],
                                str(entry.get("created_at") or ""), turn_id if isinstance(turn_id, str) else None))
    return out


class DontRememberList:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._entries: list[DontRemember] | None = None
        self._loaded_stamp: tuple[int, int, int] | None = None

    def _stamp(self) -> tuple[int, int, int] | None:
        try:
            st = self.path.stat()
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size, st.st_ino

    def _load(self) -> list[DontRemember]:
        # Another process (the app, while ``sonetto mcp`` runs) may have changed the file: read it again.
        stamp = self._stamp()
        if stamp != self._loaded_stamp:
            self._entries = None
        if self._entries is None:
            self._loaded_stamp = stamp
            try:
                self._entries = _parse(json.loads(self.path.read_text(encoding="utf-8")))
            except FileNotFoundError:
                self._entries = []
            except (OSError, ValueError, TypeError, AttributeError) as exc:
                self._entries, self._loaded_stamp = None, None  # read again next time, never taken as empty
                raise ValueError(f"{self.path.name} cannot be read ({exc}); it was left as it is") from exc
        return self._entries

    def _save(self, entries: list[DontRemember]) -> None:
        payload = {"entries": [asdict(e) for e in entries]}
        atomic_write(self.path, json.dumps(payload, ensure_ascii=False, indent=1).encode("utf-8"))
        self._entries = entries
        self._loaded_stamp = self._stamp()

    def entries(self) -> list[DontRemember]:
        with self._lock:
            return list(self._load())

    def add(self, text: str, *, turn_id: str | None = None) -> DontRemember:
        text = " ".join(str(text or "").split())
        if not text:
            raise ValueError("a don't-remember entry needs some text")
        if len(text) > MAX_ENTRY_CHARS:
            text = text[: MAX_ENTRY_CHARS - 1] + "…"
        with self._lock:
            entries = self._load()
            same = next((e for e in entries if e.text == text), None)
            if same is not None:
                return same
            if len(entries) >= MAX_ENTRIES:
                raise ValueError(f"the don't-remember list holds at most {MAX_ENTRIES} entries")
            entry = DontRemember(uuid.uuid4().hex[:8], text, now_iso(), turn_id)
            self._save([*entries, entry])
            return entry

    def update(self, entry_id: str, text: str) -> DontRemember:
        text = " ".join(str(text or "").split())[:MAX_ENTRY_CHARS]
        if not text:
            raise ValueError("a don't-remember entry needs some text")
        with self._lock:
            entries = self._load()
            found = next((e for e in entries if e.id == entry_id), None)
            if found is None:
                raise KeyError(entry_id)
            changed = DontRemember(found.id, text, found.created_at, found.turn_id)
            self._save([changed if e.id == entry_id else e for e in entries])
            return changed

    def remove(self, entry_id: str) -> bool:
        with self._lock:
            entries = self._load()
            kept = [e for e in entries if e.id != entry_id]
            if len(kept) == len(entries):
                return False
            self._save(kept)
            return True

    def match(self, text: str) -> DontRemember | None:
        """The entry ``text`` is about (most of the entry's character pairs appear in it), or None."""
        words = _pairs(text)
        if not words:
            return None
        for entry in self.entries():
            wanted = _pairs(entry.text)
            if wanted and len(wanted & words) / len(wanted) >= MATCH_SHARE:
                return entry
        return None

    def prompt_lines(self) -> list[str]:
        """The entries as the writer's prompt lists them (one line each, as data)."""
        return [json.dumps(e.text, ensure_ascii=False) for e in self.entries()]
