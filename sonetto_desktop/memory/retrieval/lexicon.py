"""The retriever's lexicon (synonyms, related concepts, theme cues — kept as data) and how a
query is read against it.

``synonyms.yaml`` and ``theme_cues.yaml`` live beside this module (their headers document the
format). ``Lexicon.load()`` reads them; ``default_lexicon()`` caches the packaged pair.
``analyze(prompt, now, lexicon)`` turns a prompt into a weighted :class:`Query`.
"""

from __future__ import annotations

import functools
import re
from array import array
from bisect import bisect_left
from dataclasses import dataclass, field
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np
import yaml

from . import segment
from . import tokenize as tok
from .emoji_names import emoji_names
from .typos import sound_alike_words
from .general_questions import is_general
from .time_expressions import DateRange, resolve_time_ranges

_PACKAGE = "sonetto_desktop.memory.retrieval"
#: libyaml where it is there (the packaged tables: ~20 ms instead of ~160 ms of Python at each start).
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _read_yaml(path: str | Path | None, default_name: str) -> dict[str, Any]:
    if path is None:
        text = resources.files(_PACKAGE).joinpath(default_name).read_text(encoding="utf-8")
    else:
        text = Path(path).read_text(encoding="utf-8")
    data = yaml.load(text, Loader=_LOADER) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path or default_name}: expected a mapping at the top level")
    return data


def _norm(word: Any) -> str:
    return str(word).strip().lower()


@dataclass
class Lexicon:
    """``expansions``: word -> {related word: weight}; ``cues``: cue -> themes it points at."""

    expansions: dict[str, dict[str, float]] = field(default_factory=dict)
    cues: dict[str, set[str]] = field(default_factory=dict)
    categories: dict[str, set[str]] = field(default_factory=dict)  # word -> names of its categories
    theme_weight: float = 0.35
    # members from categories_zh.tsv (CC-CEDICT + WordNet) no hand list names: looked for only when the
    # bank holds them as words (a category of hundreds of members adds no guessed bigrams)
    known_only: set[str] = field(default_factory=set)
    # words only the ``variants`` table knows (Cantonese, slang): a question's words, never a memory's
    variant_only: set[str] = field(default_factory=set)

    @classmethod
    def load(
        cls,
        synonyms: str | Path | None = None,
        theme_cues: str | Path | None = None,
        categories: str | Path | None = None,
    ) -> "Lexicon":
        """Read the data files (the packaged ones by default). Malformed entries raise ValueError."""
        lex = cls()
        lex._load_categories(_read_yaml(categories, "categories.yaml"), None if categories else _category_table())
        syn = _read_yaml(synonyms, "synonyms.yaml")
        weights = {"equivalent": 0.8, "related": 0.5, "association": 0.4, "variant": 0.8, **(syn.get("weights") or {})}
        for kind in ("equivalent", "related"):
            for group in syn.get(kind) or []:
                if not isinstance(group, list):
                    raise ValueError(f"synonyms.yaml: {kind} entries must be lists, got {group!r}")
                members = [_norm(w) for w in group if _norm(w)]
                for word in members:
                    for other in members:
                        if other != word:
                            lex._link(word, other, float(weights[kind]))
        for head, targets in (syn.get("associations") or {}).items():
            if not isinstance(targets, list):
                raise ValueError(f"synonyms.yaml: association {head!r} must map to a list")
            for other in targets:
                if _norm(other) and _norm(other) != _norm(head):
                    lex._link(_norm(head), _norm(other), float(weights["association"]))
        # Words that mean the same share each other's links (狗狗 reaches 柯基 through 狗).
        for group in syn.get("equivalent") or []:
            members = [_norm(w) for w in group if _norm(w)]
            shared: dict[str, float] = {}
            for word in members:
                for other, weight in lex.expansions.get(word, {}).items():
                    shared[other] = max(shared.get(other, 0.0), min(weight, float(weights["related"])))
            for word in members:
                for other, weight in shared.items():
                    if other != word and other not in members:
                        lex._link(word, other, weight)
        lex._load_variants(syn.get("variants") or {}, float(weights["variant"]), float(weights["related"]))
        cues = _read_yaml(theme_cues, "theme_cues.yaml")
        lex.theme_weight = float(cues.get("weight", lex.theme_weight))
        for theme, words in (cues.get("themes") or {}).items():
            if not isinstance(words, list):
                raise ValueError(f"theme_cues.yaml: theme {theme!r} must map to a list")
            for cue in [theme, *words]:
                if _norm(cue):
                    lex.cues.setdefault(_norm(cue), set()).add(str(theme))
        return lex

    def _load_variants(self, variants: dict[str, Any], weight: float, related: float) -> None:
        """One-way links from a dialect or slang word to the plain words a memory says it with
        (``synonyms.yaml``'s ``variants``); the plain words' own links carry over, at most ``related``."""
        for head, targets in variants.items():
            if not isinstance(targets, list):
                raise ValueError(f"synonyms.yaml: variant {head!r} must map to a list")
            word = _norm(head)
            if word not in self.expansions:
                self.variant_only.add(word)
            plain = [t for t in map(_norm, targets) if t and t != word]
            carried: dict[str, float] = {}
            for target in plain:
                for other, w in self.expansions.get(target, {}).items():
                    carried[other] = max(carried.get(other, 0.0), min(w, related))
            for other, w in carried.items():
                if other != word and other not in plain:
                    self._link(word, other, w)
            for target in plain:
                self._link(word, target, weight)

    def _load_categories(self, data: dict[str, Any], more: dict[str, list[str]] | None = None) -> None:
        """Hypernym links from ``categories.yaml`` (its header documents the format and weights) and
        ``more`` (category key -> more members: ``categories_zh.tsv``)."""
        weights = {"member": 0.6, "parent": 0.45, "depth_decay": 0.8, **(data.get("weights") or {})}
        decay = float(weights["depth_decay"])
        table = data.get("categories") or {}
        names: dict[str, list[str]] = {}
        members: dict[str, list[str]] = {}
        parents: dict[str, list[str]] = {}
        for key, entry in table.items():
            if not isinstance(entry, dict):
                raise ValueError(f"categories.yaml: {key!r} must be a mapping")
            lists = {f: entry.get(f) or [] for f in ("names", "members", "parents")}
            if not all(isinstance(v, list) for v in lists.values()):
                raise ValueError(f"categories.yaml: names, members and parents of {key!r} must be lists")
            names[key] = [n for n in map(_norm, [key, *lists["names"]]) if n]
            members[key] = [m for m in map(_norm, lists["members"]) if m]
            parents[key] = [str(p) for p in lists["parents"]]
        for key, ups in parents.items():
            if unknown := [p for p in ups if p not in names]:
                raise ValueError(f"categories.yaml: {key!r} names unknown parents {unknown}")
        hand = {w for key in names for w in names[key] + members[key]}
        for key, extra in (more or {}).items():
            if key in members:
                members[key] += [w for w in extra if w not in members[key]]
                self.known_only.update(w for w in extra if w not in hand)

        def ancestors(key: str) -> list[tuple[str, int]]:
            out, frontier, seen = [], [(key, 0)], {key}
            while frontier:
                node, depth = frontier.pop(0)
                out.append((node, depth))
                for up in parents[node]:
                    if up not in seen:
                        seen.add(up)
                        frontier.append((up, depth + 1))
            return out

        for key in names:
            chain = ancestors(key)
            for word in members[key]:
                for up, depth in chain:
                    self.categories.setdefault(word, set()).update(names[up])
                    for name in names[up]:
                        self._link(word, name, float(weights["parent"]) * decay**depth)
                        self._link(name, word, float(weights["member"]) * decay**depth)
            for up, depth in chain[1:]:  # a sub-category's names are members of its ancestors
                for name in names[up]:
                    self.categories.setdefault(name, set())
                    for own in names[key]:
                        self.categories.setdefault(own, set()).update(names[up])
                        self._link(own, name, float(weights["parent"]) * decay ** (depth - 1))
                        self._link(name, own, float(weights["member"]) * decay ** (depth - 1))
            for own in names[key]:
                self.categories.setdefault(own, set()).update(names[key])

    def category_names(self, words: Iterable[str]) -> set[str]:
        """Names of the categories the words belong to or name (ancestors included)."""
        out: set[str] = set()
        for word in words:
            out |= self.categories.get(word, set())
        return out

    def _link(self, word: str, other: str, weight: float) -> None:
        targets = self.expansions.setdefault(word, {})
        targets[other] = max(weight, targets.get(other, 0.0))

    @functools.cached_property
    def static_words(self) -> frozenset[str]:
        """Words a query may contain whatever the bank holds: stop and weak words and the lexicon's."""
        return frozenset(tok.STOP_WORDS | tok.WEAK_WORDS | set(self.expansions) | set(self.cues) | set(self.categories))

    @functools.cached_property
    def _phrases(self) -> tuple[str, ...]:
        """Multi-character keys, matched as substrings of the query (jieba may split them)."""
        return tuple(k for k in self.expansions if len(k) > 1)

    @functools.cached_property
    def _longest_key(self) -> int:
        return max(map(len, self.expansions), default=0)

    @functools.cached_property
    def _cue_phrases(self) -> tuple[str, ...]:
        return tuple(k for k in self.cues if len(k) > 1)

    def expand(self, words: Iterable[str]) -> dict[str, float]:
        """Related words for a query's words, word -> weight (the strongest link wins; the words
        themselves excluded). A word inside a longer query word does not expand (苹果 in 苹果手机
        is no fruit)."""
        words = list(dict.fromkeys(words))
        literal = set(words)
        out: dict[str, float] = {}
        known_only = self.known_only
        inside: set[str] | None = None  # the keys inside another of the words (found once, not word by word)
        for key in words:  # (a member only the built table names does not hide the words inside it: 老毛病)
            if key not in self.expansions:
                continue
            if inside is None:
                inside = _inner_parts([w for w in words if w not in known_only], self._longest_key)
            if key in inside:
                continue
            for other, weight in self.expansions[key].items():
                if other not in literal and weight > out.get(other, 0.0):
                    out[other] = weight
        return out

    def themes_for(self, text: str, words: Iterable[str]) -> dict[str, int]:
        """Themes the query points at -> number of distinct cues (one-character cues must be whole words)."""
        text = text.lower()
        hits: dict[str, set[str]] = {}
        for w in set(words):
            for theme in self.cues.get(w, ()):
                hits.setdefault(theme, set()).add(w)
        for cue in self._cue_phrases:
            if cue in text:
                for theme in self.cues[cue]:
                    hits.setdefault(theme, set()).add(cue)
        return {theme: len(cues) for theme, cues in hits.items()}


def _inner_parts(words: list[str], longest: int) -> set[str]:
    """Every stretch of up to ``longest`` characters inside one of ``words`` and shorter than it (what
    is in a longer word: 苹果 in 苹果手机)."""
    return {word[i:j] for word in words for i in range(len(word))
            for j in range(i + 1, min(len(word) - (i == 0), i + longest) + 1)}


TYPO_WEIGHT = 0.6  # a bank word a piece may have meant, one character typed for another that sounds like it
ENGLISH_WEIGHT = 0.8  # an English word's best Chinese word; its 2nd and 3rd count less (ENGLISH_DECAY)
ENGLISH_DECAY = 0.75
_ASCII_WORDS = re.compile(r"[a-z]+")
_EN_GENERAL = re.compile(r"^\s*(?:how (?:do|can|should|would) (?:i|you|we|one)|how to|what (?:is|are|does) (?:a|an|the)\b"
                         r"|explain|define|translate|calculate)\b", re.IGNORECASE)
_EN_PERSONAL = re.compile(r"\b(?:my|me|mine|myself|our|us)\b", re.IGNORECASE)


class EnglishTable:
    """A read-only ``{English key: Chinese words}`` held as one string of ``key<TAB>words`` lines and
    the lines' key hashes, sorted (~2.5 MB; a dict of 49,000 pairs of strings took ~8 MB)."""

    def __init__(self, text: str) -> None:
        lines = [line for line in text.splitlines() if line and not line.startswith("#") and "\t" in line]
        self._blob = "\n".join(lines)
        sizes = np.fromiter((len(line) + 1 for line in lines), dtype=np.int64, count=len(lines))
        starts = np.cumsum(sizes) - sizes
        hashes = np.fromiter((hash(line[: line.index("\t")]) for line in lines), dtype=np.int64, count=len(lines))
        order = np.argsort(hashes, kind="stable")
        # array.array: bisect reads it without numpy's per-call overhead
        self._hashes = array("q", hashes[order].tobytes())
        self._starts = array("q", starts[order].tobytes())
        self._ends = array("q", (starts + sizes - 1)[order].tobytes())

    def __len__(self) -> int:
        return len(self._hashes)

    def get(self, key: str, default: str | None = None) -> str | None:
        h = hash(key)
        hashes = self._hashes
        i = bisect_left(hashes, h)
        while i < len(hashes) and hashes[i] == h:
            found, _, words = self._blob[self._starts[i] : self._ends[i]].partition("\t")
            if found == key:
                return words
            i += 1
        return default

    def __getitem__(self, key: str) -> str:
        words = self.get(key)
        if words is None:
            raise KeyError(key)
        return words

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None


@functools.lru_cache(maxsize=1)
def english_table() -> EnglishTable:
    """English key -> Chinese words (space-separated, best first): ``english_zh.tsv``, built from
    CC-CEDICT by ``scripts/build_lexicon.py`` (CC BY-SA 4.0, see its header). Loaded by
    :func:`warm_up` with the recall index, off the event loop (or at the first English query)."""
    return EnglishTable(resources.files(_PACKAGE).joinpath("english_zh.tsv").read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=1)
def chinese_table() -> EnglishTable:
    """Chinese word -> English keys (comma-separated, each word stemmed) it is the best word of:
    ``chinese_en.tsv``, made with ``english_zh.tsv`` from CC-CEDICT (CC BY-SA 4.0, see its header), for
    Chinese questions about memories written in English. Loaded by :func:`warm_up`."""
    return EnglishTable(resources.files(_PACKAGE).joinpath("chinese_en.tsv").read_text(encoding="utf-8"))


def warm_up() -> None:
    """Load the packaged lexicon and its tables now (blocking, ~0.5 s): call it off the event loop."""
    default_lexicon()
    english_table()
    chinese_table()
    traditional_table()


CHINESE_ENGLISH_WEIGHT = 0.8  # an English word of a Chinese query word, for memories written in English


def english_of(words: Iterable[str]) -> dict[str, float]:
    """Index terms of the English words for Chinese query words (朋友 -> w:friend), term -> weight; the
    words of a two-word key count half each."""
    table = chinese_table()
    out: dict[str, float] = {}
    for word in words:
        if not tok.is_cjk(word) or len(word) < 2:
            continue
        for rank, key in enumerate((table.get(word) or "").split(",")):
            parts = key.split()
            for part in parts:
                if part:
                    weight = CHINESE_ENGLISH_WEIGHT * ENGLISH_DECAY**rank / len(parts)
                    _put(out, tok.WORD + part, weight)
    return out


@functools.lru_cache(maxsize=1)
def traditional_table() -> dict[int, str]:
    """Traditional -> simplified characters (``traditional_zh.tsv``, from CC-CEDICT, CC BY-SA 4.0),
    for ``str.translate``."""
    text = resources.files(_PACKAGE).joinpath("traditional_zh.tsv").read_text(encoding="utf-8")
    return {ord(line[0]): line[2:] for line in text.splitlines() if line and not line.startswith("#")}


@functools.lru_cache(maxsize=1)
def _query_table() -> dict[int, str]:
    """``traditional_table`` and full-width ASCII (ＡＢＣ１２３！: a Chinese keyboard's full-width
    mode) -> ASCII, the ideographic space -> a space."""
    table = dict(traditional_table())
    table.update({code: chr(code - 0xFEE0) for code in range(0xFF01, 0xFF5F)})
    table[0x3000] = " "
    return table


def simplified(text: str) -> str:
    """``text`` as memories are mostly written: traditional characters simplified, full-width letters,
    digits and signs as ASCII ("ｓｗｉｔｃｈ" finds a memory about a Switch, "１２月５日" is a date)."""
    return text.translate(_query_table())


def english_words(text: str, lexicon: Lexicon) -> dict[str, float]:
    """Chinese words for the English words of ``text`` (and its two-word phrases: "milk tea"),
    word -> weight; the lexicon's own English entries (synonyms.yaml) are left to it."""
    found = [w for w in _ASCII_WORDS.findall(text.lower()) if w not in tok.STOP_WORDS]
    if not found or (_EN_GENERAL.search(text) and not _EN_PERSONAL.search(text)):
        return {}  # "how do I install python": a question about the world, as general_questions.py reads Chinese
    table = english_table()
    stems = [tok.stem(w) for w in found]
    keys = [f"{a} {b}" for a, b in zip(stems, stems[1:], strict=False)] + stems
    out: dict[str, float] = {}
    for key, word in zip(keys, [None] * (len(stems) - 1) + found, strict=True):
        if word is not None and word in lexicon.expansions:
            continue
        for rank, target in enumerate(table.get(key, "").split()):
            weight = ENGLISH_WEIGHT * ENGLISH_DECAY**rank
            if weight > out.get(target, 0.0):
                out[target] = weight
    return out


def emoji_words(names: list[str], lexicon: Lexicon) -> dict[str, float]:
    """Chinese words for the emoji named ``names`` (``emoji_names``: 🐱 -> "cat" -> 猫), word -> weight,
    each emoji read on its own (two emoji side by side are not a phrase)."""
    out: dict[str, float] = {}
    for name in names:
        found = dict(english_words(name, lexicon))
        known = [w for w in name.split() if w in lexicon.expansions]  # left to the lexicon ("cake" of 🎂)
        for word, weight in lexicon.expand(known).items():
            found[word] = max(found.get(word, 0.0), weight * ENGLISH_WEIGHT)
        for word, weight in found.items():
            if weight > out.get(word, 0.0):
                out[word] = weight
    return out


def _category_table() -> dict[str, list[str]]:
    """category key -> its members in ``categories_zh.tsv`` (built from CC-CEDICT and WordNet 3.0 by
    ``scripts/build_lexicon.py``; CC BY-SA 4.0, see its header and NOTICE.md)."""
    text = resources.files(_PACKAGE).joinpath("categories_zh.tsv").read_text(encoding="utf-8")
    table: dict[str, list[str]] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            word, _, keys = line.partition("\t")
            for key in keys.split():
                table.setdefault(key, []).append(word)
    return table


@functools.lru_cache(maxsize=1)
def default_lexicon() -> Lexicon:
    """The packaged lexicon, loaded once."""
    return Lexicon.load()


# ── reading a query ────────────────────────────────────────────────────
# Term weights: a rare word matched once scores about its weight.
LITERAL_WORD = 1.0
LITERAL_BIGRAM = 0.45  # the bigram form of a two-character query word
LITERAL_CHAR = 0.7  # a one-character query word found inside a longer word of a memory
SPLIT_CHAR_SCALE = 0.75  # characters of a query word found nowhere in the bank (jieba glued 猫叫)
WEAK_WORD_SCALE = 0.35  # common verbs and stance words (tok.WEAK_WORDS)
QUERY_BIGRAM = 0.5  # bigrams of the query text (names, rare words jieba cuts badly, phrases of function words: 帮忙做)
BROAD_MAX_CHARS = 30  # a broad question ("最近过得怎么样") is short
MAX_PROMPT_CHARS = 4000  # longer prompts keep their last part (the newest text of a chat)

_BROAD_CUES = re.compile(
    r"最近|近来|近况|近期|这阵子|这段时间|这些天|这几天|过得|忙什么|忙啥|在忙|新鲜事|有什么事|有啥事|发生了什么|聊聊|说说"
)
# Requests that are complete in themselves: translation, arithmetic, definitions, code, jokes.
_TASK_CUES = re.compile(
    r"翻译|译成|怎么说|用英语|用英文|英文怎么|英语怎么|算一下|算算|计算|等于|乘以|除以|开方|平方根|"
    r"是什么意思|什么意思|的定义|什么是|解释一下|百科|首都|代码|函数|编程|报错|python|java|sql|笑话|脑筋急转弯|"
    r"^(?:translate|calculate|define|explain)\b",
    re.IGNORECASE,
)
BROAD_FILLER = frozenset(
    "最近 近来 近况 近期 阵子 这阵子 这段 时间 这段时间 过得 忙 在忙 新鲜 新鲜事 发生 聊聊 说说 聊 说 "
    "如何 还好 好不好 一切 生活 日子 这几天 这些天 情况 状态 怎样".split()
)


@dataclass
class Query:
    """What a prompt asks for, ready to score."""

    text: str
    words: list[str]
    terms: dict[str, float] = field(default_factory=dict)
    themes: dict[str, int] = field(default_factory=dict)
    ranges: list[DateRange] = field(default_factory=list)
    broad: bool = False
    task: bool = False  # reads like a self-contained task (translate, calculate, define)
    general: bool = False  # a question about the world, not the user (general_questions.py)
    unknown: list[str] = field(default_factory=list)  # stretches no known word covers
    named_themes: set[str] = field(default_factory=set)  # themes the query names outright
    emoji: list[str] = field(default_factory=list)  # what its emoji show, in words (``emoji_names``)
    own: dict[str, float] = field(default_factory=dict)  # the terms of its own words and pieces (no expansion)


def _put(terms: dict[str, float], term: str, weight: float) -> None:
    if weight > terms.get(term, 0.0):
        terms[term] = weight


def _add_word(terms: dict[str, float], word: str, scale: float, known: Callable[[str], bool] | None = None) -> None:
    """Index terms for one word. A word that occurs nowhere in the bank as a word (柯基 cut as
    柯 / 基 there) is matched through its character bigrams at full weight instead."""
    if word in tok.WEAK_WORDS:
        scale *= WEAK_WORD_SCALE
    pieces = _MIXED.findall(word)
    if len(pieces) > 1:  # "b站": memories write it "B站" / "B 站", cut into "b" and "站": look for both
        for piece in pieces:
            _add_word(terms, piece, scale / len(pieces), known)
        return
    if known is not None and len(word) > 1 and tok.is_cjk(word) and not known(tok.WORD + word):
        _add_unknown(terms, word, scale)
        return
    for form in tok.term_forms(word):
        kind = form[:2]
        base = LITERAL_WORD if kind == tok.WORD else LITERAL_BIGRAM if kind == tok.BIGRAM else LITERAL_CHAR
        _put(terms, form, base * scale)


_MIXED = re.compile(f"[a-z0-9]+|[{tok.CJK_CHARS}]+")


def _add_unknown(terms: dict[str, float], piece: str, scale: float) -> None:
    """A stretch of text that is no known word: its character bigrams share a word's weight."""
    pairs = tok.bigrams(piece)
    for pair in pairs:
        _put(terms, tok.BIGRAM + pair, LITERAL_WORD * scale / len(pairs))


_CLASSIFIERS = frozenset("这那本首部只条张件些几一每个")
GLUE_MAX_FREQ = 10  # jieba dictionary entries this rare are mostly glue (猫叫, 听的歌), not words


def _glued_chars(piece: str, known: Callable[[str], bool]) -> list[str]:
    """Characters of a short unknown stretch that is probably two one-character words glued
    together (猫叫 = 猫 + 叫, 首歌 = 首 + 歌): none of its bigrams is in the bank, and it starts
    with a classifier or is a rare jieba entry (only judged once jieba is loaded anyway)."""
    if len(piece) > 3 or any(known(tok.BIGRAM + pair) for pair in tok.bigrams(piece)):
        return []
    freq = tok.loaded_word_freq(piece)
    if piece[0] not in _CLASSIFIERS and (freq is None or freq > GLUE_MAX_FREQ):
        return []
    return [ch for ch in tok.chars(piece) if ch not in tok.STOP_WORDS]


def static_words(lexicon: Lexicon) -> frozenset[str]:
    """Words a query may contain whatever the bank holds: stop and weak words and the lexicon's."""
    return lexicon.static_words


class _BankTerms:
    """Which index terms occur in the bank, asked of ``known(terms)`` in batches and remembered for
    one analysis (``known`` None: an empty bank)."""

    def __init__(self, known: Callable[[list[str]], list[bool]] | None) -> None:
        self.known = known
        self.seen: dict[str, bool] = {}  # what was asked (an empty bank asks nothing: all False)

    def prefetch(self, terms: Iterable[str]) -> None:
        seen = self.seen
        missing = list(dict.fromkeys(t for t in terms if t not in seen))
        if missing and self.known is not None:
            seen.update(zip(missing, map(bool, self.known(missing)), strict=True))

    def has(self, term: str) -> bool:
        if self.known is None:
            return False
        if term not in self.seen:
            self.prefetch([term])
        return self.seen[term]


def analyze(
    prompt: str,
    now: datetime,
    lexicon: Lexicon,
    theme_names: set[str] | frozenset[str] = frozenset(),
    known: Callable[[list[str]], list[bool]] | None = None,
) -> Query:
    """Turn a prompt into weighted index terms, cued themes, date ranges and a broad flag.

    ``known(terms)`` tells which index terms occur in the bank (None: an empty bank); it is asked
    in batches. Query words are the bank's and the lexicon's words found in the prompt
    (``segment.py``). In stages: the words, what kind of question it is (:func:`_classify`), the
    literal terms (:func:`_literal_terms`), the lexicon's expansions (:func:`_expanded_terms`), the
    themes (:func:`_theme_cues`)."""
    text = simplified((prompt or "").strip())
    if len(text) > MAX_PROMPT_CHARS:
        text = text[-MAX_PROMPT_CHARS:]
    bank = _BankTerms(known)
    fixed = lexicon.static_words

    def is_word(cands: list[str]) -> list[bool]:
        terms = [tok.WORD + c for c in cands]
        bank.prefetch(t for c, t in zip(cands, terms, strict=True) if c not in fixed)
        seen = bank.seen
        return [c in fixed or seen.get(t, False) for c, t in zip(cands, terms, strict=True)]

    uncovered: list[str] = []
    words, unknown = segment.query_words(text, is_word, lambda ch: ch in fixed, tok.loaded_cut(), uncovered)
    query = Query(text=text, words=words)
    if not text:
        return query
    literal, pieces, split = _classify(query, words, unknown, now, bank)
    translated = _literal_terms(query, lexicon, literal, pieces, split, bank)
    if not query.broad:
        _sound_alike_terms(query, uncovered, bank)
    _expanded_terms(query, lexicon, literal, translated, split, bank)
    literal = literal + [w for w in translated if w not in literal]  # themes and categories below
    _theme_cues(query, lexicon, literal, split, pieces, theme_names)
    return query


def _classify(query: Query, words: list[str], unknown: list[str], now: datetime,
              bank: _BankTerms) -> tuple[list[str], list[str], list[str]]:
    """Dates, and whether the question is broad, about a task or general; returns the literal words,
    the unknown pieces and the characters guessed out of glued pieces that the terms are made of."""
    text = query.text
    query.ranges = resolve_time_ranges(text, now)

    def topical_of(items: list[str]) -> list[str]:
        return [w for w in items if w not in BROAD_FILLER and not resolve_time_ranges(w, now)]

    query.emoji = emoji_names(text)
    # Broad: short, a vague cue, at most one topical word (an emoji is one: 🐱 for the cat), and no date
    # beyond "recently" (大后天有啥事 is not broad). Only a short text's words are read for dates one by one.
    query.broad = (len(text) <= BROAD_MAX_CHARS and bool(_BROAD_CUES.search(text))
                   and all(_BROAD_CUES.fullmatch(r.label) for r in query.ranges)
                   and len(topical_of(words)) + len(topical_of(unknown)) + len(query.emoji) <= 1)
    query.task = bool(_TASK_CUES.search(text))
    query.general = not query.broad and is_general(text, bool(query.ranges))
    query.unknown = list(unknown)
    literal = topical_of(words) if query.broad else list(words)
    pieces = topical_of(unknown) if query.broad else unknown
    bank.prefetch(tok.BIGRAM + pair for piece in pieces if len(piece) <= 3 for pair in tok.bigrams(piece))
    split = [ch for piece in pieces for ch in _glued_chars(piece, bank.has)]
    return literal, pieces, [ch for ch in dict.fromkeys(split) if ch not in literal]


def _literal_terms(query: Query, lexicon: Lexicon, literal: list[str], pieces: list[str], split: list[str],
                   bank: _BankTerms) -> dict[str, float]:
    """The question's own words, pieces, guessed characters, bigrams and English words translated;
    returns the translations (word -> weight)."""
    check = bank.has if bank.known is not None else None
    translated = english_words(query.text, lexicon) if not query.broad else {}
    for word, weight in emoji_words(query.emoji, lexicon).items():  # 🐱 -> 猫, broad or not
        if weight > translated.get(word, 0.0):
            translated[word] = weight
    bank.prefetch(tok.WORD + word for word in (*literal, *translated) if len(word) > 1)  # asked at once
    for word in literal:
        _add_word(query.terms, word, 1.0, check)
    for piece in pieces:
        _add_unknown(query.terms, piece, 1.0)
    for ch in split:  # a guess: weaker than a word
        _add_word(query.terms, ch, SPLIT_CHAR_SCALE)
    query.own = dict(query.terms)  # and its translations (not the bigrams across its words: mostly in no memory)
    terms = query.terms
    for pair in [] if query.broad else tok.bigrams(query.text):  # a broad question's text is mostly filler
        term = tok.BIGRAM + pair
        if QUERY_BIGRAM > terms.get(term, 0.0):  # _put, a thousand times for a long text
            terms[term] = QUERY_BIGRAM
    for word, weight in translated.items():  # an English question about Chinese memories
        _add_word(query.terms, word, weight, check)
        _add_word(query.own, word, weight, check)
    return translated


def _sound_alike_terms(query: Query, uncovered: list[str], bank: _BankTerms) -> None:
    """Bank words a stretch no known word covers may have meant, typed on a pinyin keyboard with one
    character for another that sounds like it (航州 -> 杭州, 过民 -> 过敏: ``typos.py``): a guess."""
    if bank.known is None:
        return

    def holds(words: list[str]) -> list[bool]:
        terms = [tok.WORD + w for w in words]
        bank.prefetch(terms)
        seen = bank.seen
        return [seen[t] for t in terms]

    for word in sound_alike_words(uncovered, holds):
        _add_word(query.terms, word, TYPO_WEIGHT, bank.has)


def _expanded_terms(query: Query, lexicon: Lexicon, literal: list[str], translated: dict[str, float],
                    split: list[str], bank: _BankTerms) -> None:
    """The lexicon's related words (of the literal and the translated words, more weakly of the
    guessed characters), and the English of Chinese words the bank holds."""
    check = bank.has if bank.known is not None else None
    expansions = lexicon.expand(literal)
    for word, weight in lexicon.expand(list(translated)).items():
        if word not in translated:
            expansions[word] = max(expansions.get(word, 0.0), weight * ENGLISH_WEIGHT)
    bank.prefetch(tok.WORD + w for w in expansions)
    for word, weight in expansions.items():
        if word in lexicon.known_only and not bank.has(tok.WORD + word):
            continue
        _add_word(query.terms, word, weight, check)
    if bank.known is not None:  # a Chinese question about memories written in English
        english = english_of(literal)
        bank.prefetch(english)
        for term, weight in english.items():
            if bank.has(term):
                _put(query.terms, term, weight)
    both = literal + [w for w in translated if w not in literal]
    for ch in split:  # guessed words expand too, more weakly
        for word, weight in lexicon.expansions.get(ch, {}).items():
            if word not in both:
                _add_word(query.terms, word, weight * SPLIT_CHAR_SCALE, check)


def _names(lowered: str, theme: str) -> bool:
    """Does the (lowered) text name ``theme``? An English end of it must be a word's end there: "ai"
    is in "email", "art" in "party"."""
    before = r"(?<![a-z0-9])" if theme[0].isascii() and theme[0].isalnum() else ""
    after = r"(?![a-z0-9])" if theme[-1].isascii() and theme[-1].isalnum() else ""
    return re.search(before + re.escape(theme) + after, lowered) is not None


def _theme_cues(query: Query, lexicon: Lexicon, literal: list[str], split: list[str], pieces: list[str],
                theme_names: set[str] | frozenset[str]) -> None:
    """The themes the question cues (by its words, by their categories, by name)."""
    text = query.text
    query.themes = lexicon.themes_for(text, literal + split)
    for name in lexicon.category_names(literal + split) & set(theme_names):  # a bank theme the query's words belong to
        query.themes.setdefault(name, 1)
    lowered = text.lower()
    for theme in theme_names:
        if theme and _names(lowered, theme.lower()):
            query.named_themes.add(theme)
    # Nothing but theme cues and weak words ("推荐点好听的"): the theme carries the whole match.
    present = set(theme_names)
    cue_words = {w for w in literal + split if lexicon.cues.get(w, set()) & present}
    content = literal + split + pieces
    if query.themes and all(w in cue_words or w in tok.WEAK_WORDS for w in content):
        query.named_themes.update(query.themes)
