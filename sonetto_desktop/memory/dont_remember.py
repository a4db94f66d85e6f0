"""The "don't remember" list: things the person told Sonetto not to keep (issue 12, capability 3).

"别记住这个" on a chat message undoes that turn's memory changes and adds the message's gist here;
the person can also add, edit and remove entries themself. The writer's prompt lists the entries
("never store anything about these"), and — because a prompt is advice, not a guarantee — every
write by an app (the writer, another AI app) is checked against them too: content that matches an
entry is refused with the entry named (``DontRememberList.match_any``).

A write matches an entry when (``_Entry.matches``):

- one of its texts, or all of them together (the memory's text, its section name and the reason
  the history keeps), holds most of the entry's character pairs: "小林的体检报告" for "体检报告";
- together they hold most of the entry's significant words (``_Entry``): a section "前任" and a
  text about 李雷 for "前任李雷";
- they name someone the entry names: a run of Chinese characters the dictionary does not know
  ("李雷", "韩梅梅") or a capitalised English word ("Tom"), however the rest is worded;
- a short text (a section name) is one of the entry's less common words: "前任", "体重".

Common words alone ("工作", "今天") and single characters never refuse a write.

An entry never keeps a secret value: "我的银行卡密码是 4821，这个别记住" is kept as "我的银行卡密码是
［已隐去的密码］，这个别记住" (``secret_filter.redact_secrets``, when it is added or edited), so the
writer's prompt, which lists every entry on every turn, never carries one; entries of older files are
hidden the same way on their way into the prompt (``prompt_texts``). A hidden value is no part of what
an entry matches (the rest of its words still are).

Stored as ``dont_remember.json`` in the data dir, written atomically and owner-only. Thread-safe.
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path

from .files import atomic_write
from .item import now_iso
from .writer.secret_filter import HIDDEN, redact_secrets

FILE_NAME = "dont_remember.json"
MAX_ENTRY_CHARS = 200
MAX_ENTRIES = 200
#: Share of an entry's character pairs that must appear in a text for it to match.
MATCH_SHARE = 0.6
#: A word this common in the dictionary (jieba's counts) is too everyday to refuse a section by.
COMMON_WORD = 3000
#: A text this short is a section name (``writer.registry.MAX_SECTION_CHARS``) or a word.
SHORT_TEXT = 8


@dataclass(frozen=True)
class DontRemember:
    id: str
    text: str
    created_at: str
    turn_id: str | None = None  # the chat turn it came from ("别记住这个"), if any


def _pairs(text: str) -> set[str]:
    flat = "".join(ch for ch in text.casefold() if ch.isalnum())
    return {flat[i:i + 2] for i in range(len(flat) - 1)} or ({flat} if flat else set())


_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
#: Words of the asking, not of what is asked about ("……，这个别记"), and words a memory says another
#: way (a day becomes a date, "我家" becomes "用户家"): no part of an entry.
_ASKING = frozenset("""
别记 别记住 记住 不要记 不要记住 别记录 记录 记下 忘掉 忘了 删掉 删除 这个 那个 这件事 这些
今天 明天 昨天 后天 前天 今晚 明晚 昨晚 今早 明早 上午 下午 晚上 早上 中午 刚才 刚刚 最近 现在 以后 以前 之前
之后 这周 下周 上周 本周 这个月 下个月 上个月 今年 明年 去年 周末 平时 每天 经常 我家 我们家 你家 他家 她家 咱家
""".split())
_ASCII_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’-]*[A-Za-z0-9]|[A-Za-z]")


@dataclass(frozen=True)
class _Entry:
    """What an entry's text is matched by: its character pairs, its significant words (``words``)
    and the names among them (``names``: Chinese ones as written, English ones matched as whole
    words), and the words uncommon enough to refuse a section named after them (``rare``)."""

    pairs: frozenset[str]
    words: tuple[str, ...]
    names: tuple[str, ...]
    rare: tuple[str, ...]

    @classmethod
    def of(cls, text: str) -> "_Entry":
        from .retrieval.tokenize import STOP_CHARS, STOP_WORDS, WEAK_WORDS, loaded_cut, warm_up, word_freq

        warm_up()  # jieba's dictionary (blocking: the caller is a worker thread, as for every write)
        text = HIDDEN.sub(" ", text)  # a hidden secret value is not what the entry is about
        words: list[str] = []
        names: list[str] = []
        run = ""

        def end_run() -> None:
            nonlocal run
            if len(run) >= 2:
                names.append(run)
            run = ""

        for token in loaded_cut()(text):
            token = token.strip()
            if len(token) == 1 and _CJK.match(token) and token not in STOP_CHARS and token not in STOP_WORDS \
                    and token not in WEAK_WORDS:
                run += token  # characters the dictionary cut one by one: a name ("李雷", "韩梅梅")
                continue
            end_run()
            if _CJK.match(token) and len(token) >= 2 and token not in STOP_WORDS and token not in WEAK_WORDS \
                    and token not in _ASKING:
                words.append(token)
        end_run()
        english = [w for w in _ASCII_WORD.findall(text) if w.lower() not in STOP_WORDS and len(w) >= 2]
        named = [w for w in english if (w[0].isupper() and len(w) > 2) or any(ch.isdigit() for ch in w)]  # not "Mr"
        names += named
        words += [w.lower() for w in english if w not in named] + names
        rare = [w for w in words if _CJK.match(w) and word_freq(w) <= COMMON_WORD]
        return cls(frozenset(_pairs(text)), tuple(dict.fromkeys(words)), tuple(dict.fromkeys(names)),
                   tuple(dict.fromkeys(rare)))

    def _pair_share(self, text: str) -> float:
        return len(self.pairs & _pairs(text)) / len(self.pairs) if self.pairs else 0.0

    def _holds(self, text: str, flat: str, word: str) -> bool:
        if _CJK.match(word):
            # a name run may have taken a one-character word next to it ("韩梅梅吵"): either end may go
            return word in flat or len(word) >= 3 and (word[:-1] in flat or word[1:] in flat)
        if word[0].isupper() or any(ch.isdigit() for ch in word):  # a name: as written, a whole word
            return re.search(rf"(?<![A-Za-z0-9]){re.escape(word)}(?![A-Za-z0-9])", text) is not None
        return re.search(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", text.casefold()) is not None

    def matches(self, texts: tuple[str, ...]) -> bool:
        joined = "\n".join(texts)
        flat = "".join(ch for ch in joined if not ch.isspace())  # "李 雷" is 李雷
        if any(self._pair_share(text) >= MATCH_SHARE for text in (*texts, joined)):
            return True
        if any(self._holds(joined, flat, name) for name in self.names):
            return True
        held = [word for word in self.words if self._holds(joined, flat, word)]
        if len(held) >= 2 and len(held) >= MATCH_SHARE * len(self.words):
            return True  # most of its words, however worded around them
        if held and len(self.words) == 1 and self.rare:
            return True
        return any(len(text.strip()) <= SHORT_TEXT and word in text for text in texts for word in self.rare)


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
        self._parsed: dict[str, _Entry] = {}  # entry text -> how it is matched (made once)

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
        """A new entry (its secret values hidden: see the module docstring); the same text again is
        the entry that has it."""
        text = entry_form(text)
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
        """The entry with its new text, kept as ``add`` keeps one (``entry_form``); edited into another
        entry's text, it is that entry (the list says each thing once)."""
        text = entry_form(text)
        with self._lock:
            entries = self._load()
            found = next((e for e in entries if e.id == entry_id), None)
            if found is None:
                raise KeyError(entry_id)
            same = next((e for e in entries if e.text == text and e.id != entry_id), None)
            if same is not None:
                self._save([e for e in entries if e.id != entry_id])
                return same
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
        """The entry ``text`` is about (see the module docstring), or None."""
        return self.match_any(text)

    def match_any(self, *texts: str) -> DontRemember | None:
        """The entry that the texts of one write are about, apart or together (a memory's text, its
        section name and the reason its history keeps: see the module docstring), or None. Blocking
        the first time (jieba's dictionary)."""
        texts = tuple(t for t in texts if t and t.strip())
        if not texts:
            return None
        for entry in self.entries():
            parsed = self._parsed.get(entry.text)
            if parsed is None:
                parsed = self._parsed[entry.text] = _Entry.of(entry.text)
            if parsed.matches(texts):
                return entry
        return None

    def prompt_texts(self) -> list[str]:
        """The entries as the writer's prompt lists them: secret values hidden, also in entries an
        older version kept whole."""
        return [redact_secrets(e.text)[0] for e in self.entries()]


def entry_form(text: str) -> str:
    """``text`` as ``DontRememberList.add`` keeps it: one line, its secret values hidden, cut to
    ``MAX_ENTRY_CHARS`` with "…" (``ValueError`` when nothing is left)."""
    text = _entry_text(text)
    return text[: MAX_ENTRY_CHARS - 1] + "…" if len(text) > MAX_ENTRY_CHARS else text


def _entry_text(text: str) -> str:
    """An entry's text: one line, its secret values hidden (``ValueError`` when nothing is left)."""
    text = redact_secrets(" ".join(str(text or "").split()))[0]
    if not text:
        raise ValueError("a don't-remember entry needs some text")
    return text
