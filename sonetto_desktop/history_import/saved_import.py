"""ChatGPT's saved memories, imported as memories directly (no model reads them): one memory per
entry, written as ``import:chatgpt`` under one turn id (the import's id: undone as one), each with
its provenance ("ChatGPT 已保存的记忆", and the entry's date when it had one). With review mode on
they are proposed to the person instead.

Left out, and said why: entries imported before (the ledger), a memory with the same text already
in the store, entries longer than a memory may be, entries that look like secrets (the writer's
secret filter) and entries the person's don't-remember list covers.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from ..memory import kinds
from ..memory.changes import Turn, excerpt_of
from ..memory.errors import DontRememberRefused
from ..memory.operations import MemoryOperations
from ..memory.review import InboxFull
from ..memory.theme_guess import guess_theme
from ..memory.writer.secret_filter import find_secret
from .ledger import DONE, ImportLedger, ImportState, new_import_id
from .model import SavedMemory
from .saved_memories import MAX_CHARS

SOURCE = "chatgpt-memories"
ACTOR = "import:chatgpt"
ORIGIN = "ChatGPT 已保存的记忆"


def bank_themes(ops: MemoryOperations) -> set[str]:
    """The themes the bank has now (blocking: one column of every memory)."""
    _, columns = ops.store.columns_of_all(("theme",))
    return {str(theme) for theme in columns[0]} if columns else set()


def with_themes(entries: list[SavedMemory], themes: Iterable[str]) -> list[SavedMemory]:
    """``entries`` with the theme ``guess_theme`` gives each among the house themes and ``themes`` (the
    bank's). Blocking: the recall lexicon's tables are read the first time (~0.1 s)."""
    known = list(themes)
    return [replace(entry, theme=guess_theme(entry.text, known)) for entry in entries]


def saved_key(text: str) -> str:
    return hashlib.sha256(f"{SOURCE}\0saved\0{' '.join(text.split()).casefold()}".encode()).hexdigest()[:20]


@dataclass
class SavedImportResult:
    undo_id: str | None
    created: list[str] = field(default_factory=list)
    proposals: int = 0
    skipped: dict[str, tuple[str, str]] = field(default_factory=dict)  # entry text -> why (Chinese, English)

    def to_json(self) -> dict[str, Any]:
        return {"memories_created": len(self.created), "proposals": self.proposals, "skipped": len(self.skipped),
                "undo_id": self.undo_id}


def import_saved_memories(ops: MemoryOperations, ledger: ImportLedger, entries: list[SavedMemory],
                          themes: dict[str, str] | None = None) -> SavedImportResult:
    """Blocking. ``themes``: entry text -> the theme to file it under (default: the entry's guessed
    theme, else ``guess_theme`` among the house's and the bank's themes)."""
    import_id = new_import_id()
    result = SavedImportResult(import_id)
    imported = ledger.imported_keys()
    existing = {" ".join(values[0].split()) for values in ops.store.fields_of_all(("description",)).values()}
    review = ops.review if ops.review is not None and ops.review.enabled else None
    keys: list[str] = []
    ours = functools.cache(lambda: bank_themes(ops))
    for entry in entries:
        text = " ".join(entry.text.split())
        key = saved_key(text)
        why = _refused(ops, text, key, imported, existing)
        if why:
            result.skipped[text] = why
            continue
        theme = (themes or {}).get(entry.text) or entry.theme or guess_theme(text, ours())
        origin = f"{ORIGIN} · {entry.day:%Y-%m-%d}" if entry.day else ORIGIN
        turn = Turn(import_id, excerpt=excerpt_of(text), origin=origin)
        writer = ops.as_actor(ACTOR, turn)
        try:
            if review is not None:
                review.propose(kinds.CREATE, description=text, theme=theme, reason="从 ChatGPT 已保存的记忆导入", turn=turn)
                result.proposals += 1
            else:
                result.created.append(writer.add(text, theme, reason="从 ChatGPT 已保存的记忆导入").ids[0])
        except DontRememberRefused as exc:
            result.skipped[text] = _dont_remember(exc)
            continue
        except InboxFull:
            result.skipped[text] = ("审核箱已满", "the review inbox is full")
            continue
        keys.append(key)
        existing.add(text)
    if keys:
        ledger.record(import_id, 0, keys)
        state = ImportState(import_id, SOURCE, "ChatGPT", ORIGIN, "", status=DONE, batches=1, turns=len(keys),
                            batches_done=1, turns_written=len(keys), memories_created=len(result.created),
                            proposals=result.proposals, review=review is not None)
        ledger.save(state)
    else:
        result.undo_id = None
    return result


def _refused(ops: MemoryOperations, text: str, key: str, imported: set[str],
             existing: set[str]) -> tuple[str, str] | None:
    """Why an entry is left out (in Chinese and in English), or None."""
    if key in imported:
        return "以前导入过", "imported before"
    if text in existing:
        return "已有相同的记忆", "the same memory is there already"
    if len(text) > MAX_CHARS:
        return (f"太长（{len(text)} 字，最多 {MAX_CHARS} 字）",
                f"too long ({len(text)} characters, at most {MAX_CHARS})")
    secret = find_secret(text)
    if secret:
        return f"疑似包含{secret}", "looks like a secret (a password, a code, a card number...)"
    try:
        ops.as_actor(ACTOR).allowed(text)
    except DontRememberRefused as exc:
        return _dont_remember(exc)
    return None


def _dont_remember(exc: DontRememberRefused) -> tuple[str, str]:
    return f"在“不要记住”列表里（{exc.entry}）", f"on your don't-remember list ({exc.entry})"
