"""Chinese-aware tokenisation for the offline retriever.

Three kinds of term, kept apart by a prefix so they never collide:

- ``w:<word>``  jieba words (search mode: long words also yield their dictionary sub-words;
  no HMM guessing, which glues short queries into false words like 猫叫 / 吃点),
  ASCII words lower-cased, numbers;
- ``b:<xy>``    character bigrams inside runs of Chinese characters (catch names and rare words
  jieba splits badly);
- ``c:<x>``     single Chinese characters, indexed for memories; a query uses them only for its
  own one-character words (猫, 歌, 吃), which would otherwise match nothing inside 布偶猫 / 歌词.

Stop words and punctuation are dropped. jieba is imported lazily (its dictionary takes ~0.7 s to
load): call :func:`warm_up` from a worker thread at start-up.
"""

from __future__ import annotations

import importlib
import logging
import re
import sys
import threading
import types
from typing import Any, Iterable

import numpy as np

from .english_forms import IRREGULAR
from .postings import _KINDS, hash_term

WORD, BIGRAM, CHAR = "w:", "b:", "c:"
# Bump when document_terms() changes what it produces: saved indexes made before are rebuilt.
TOKENIZER_VERSION = "jieba-search-nohmm/4-en-irregular-forms"

# Function words and chat filler: never evidence of relevance.
STOP_WORDS = frozenset(
    """
    的 了 吗 呢 吧 啊 呀 哦 嘛 么 哈 啦 嗯 噢 哇 诶 欸 喔 呗 咯 哎 唉 嘿
    我 你 您 他 她 它 我们 你们 他们 她们 它们 咱 咱们 自己 人家 大家
    是 在 有 和 与 及 或 就 都 也 还 又 很 太 挺 好 更 最 才 再 把 被 给 让 对 从 向 往 跟 同 为 以 于 之 而 且 并
    这 那 这个 那个 这些 那些 这样 那样 这么 那么 哪 哪个 哪些 哪里 哪儿 什么 怎么 怎样 怎么样 为什么 多少 几 啥 咋
    个 些 点 一点 一下 一些 一个 下 上 里 中 来 去 到 过 着 得 地 要 想 会 能 可以 可能 应该 需要 得要
    帮 帮我 帮忙 请 麻烦 一起 告诉 知道 觉得 记得 来着 还有 已经 没有 不 没 别 就是 还是 但是 可是 所以 因为 如果 然后
    关于 对于 有关 多 多少 多久 多远 少 本 用 说 弄 搞 叫 做个 来点 吃点 一顿 一首 几首 一部 几部 几个 一只
    现在 时候 的话 一样 东西 事 事情 有点 有些 真的 其实 比较 非常 特别 一直 总是
    a an the of to in on at for is are am be do does did i you me my your it this that how what why
    can could would should will with and or please s t was were been being has have had his her hers him
    he she they them their theirs we us our ours its by from as about into onto over under after before
    during while which who whom whose when where there here than then so if but not no yes also just
    very too any some many much more most other such own same each every all both few may might must
    shall done doing get got let like one ever
    """.split()
)
# Common verbs and stance words: real words, but weak evidence that a memory is meant
# (喜欢 is in half of all memories about tastes; 写 / 放 / 成 match 速写 / 放在 / 成都).
WEAK_WORDS = frozenset(
    """
    喜欢 讨厌 最爱 爱 觉得 认为 推荐 好用 好吃 好看 好听 需要 想要 打算 准备 开始 一直 经常 常常 帮 查 查一下
    写 看 听 玩 做 买 吃 喝 去 来 找 拿 带 送 学 读 唱 放 转 成 变 换 用 问 讲 告诉 试 试试 弄 起 开 关 收 发
    为什么 怎么办 可以 能不能 行不行
    """.split()
)
# A bigram containing one of these characters is almost always noise (我的, 的猫, 了吗).
STOP_CHARS = _STOP_CHARS = frozenset("的了吗呢吧啊呀哦嘛么哈啦嗯我你您他她它是在和与就都也还很把被给让这那个些么啥咋")

# Characters that are too common (or part of every written date) to be evidence on their own.
WEAK_CHARS = _WEAK_CHARS = frozenset("年月日号天次个本条只首部顿张件些多少一二三四五六七八九十两小大子儿头午早晚中上下")

CJK_CHARS = _CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RUN = re.compile(f"[{_CJK}]+")
_IS_CJK = re.compile(f"^[{_CJK}]+$")
_ASCII_WORD = re.compile(r"[a-z0-9][a-z0-9_.+#-]*[a-z0-9+#]|[a-z0-9]")
_MEANINGFUL = re.compile(f"[{_CJK}a-zA-Z0-9]")

_jieba: Any = None
_jieba_lock = threading.Lock()


def _get_jieba() -> Any:
    """jieba's tokenizer on its default dictionary, with the table held compactly (see compact_dict)."""
    global _jieba  # the lazily loaded tokenizer is a cache, not wiring
    if _jieba is None:
        with _jieba_lock:
            if _jieba is None:
                jieba = import_jieba()

                from .compact_dict import compact_tokenizer

                jieba.setLogLevel(logging.WARNING)
                _jieba = compact_tokenizer()
    return _jieba


def import_jieba() -> Any:
    """``import jieba`` without ``pkg_resources``: jieba opens its files through it when it can, else
    straight from its folder (the same files). Nothing else in the app needs ``pkg_resources``, whose
    import costs ~12 MB and ~0.2 s at start-up. Nor its HMM tables: ``jieba.finalseg`` holds the
    emission probabilities of its HMM guessing (~2-14 MB), which recall never uses (it cuts with
    ``HMM=False``); a stand-in (:class:`_Deferred`) takes its place and imports it at its first
    attribute use (an HMM cut, ``add_word`` of a word with frequency 0)."""
    if "jieba" in sys.modules:
        return sys.modules["jieba"]
    with _import_lock:
        blocked = "pkg_resources" not in sys.modules
        if blocked:
            sys.modules["pkg_resources"] = None  # type: ignore[assignment]  # ``import`` raises ImportError
        deferred = "jieba.finalseg" not in sys.modules
        if deferred:
            sys.modules["jieba.finalseg"] = _Deferred("jieba.finalseg")
        try:
            import jieba
        except BaseException:
            if deferred and isinstance(sys.modules.get("jieba.finalseg"), _Deferred):
                del sys.modules["jieba.finalseg"]  # a later import tries the ordinary way
            raise
        finally:
            if blocked and sys.modules.get("pkg_resources", 0) is None:
                del sys.modules["pkg_resources"]
    return jieba


_import_lock = threading.Lock()


class _Deferred(types.ModuleType):
    """A module imported at its first attribute use (see :func:`import_jieba`)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self._real: Any = None
        self._lock = threading.Lock()

    def __getattr__(self, attr: str) -> Any:  # (only what the stand-in itself has not)
        if attr.startswith("__"):
            raise AttributeError(attr)
        with self._lock:
            if self._real is None:
                if sys.modules.get(self.__name__) is self:
                    del sys.modules[self.__name__]
                self._real = importlib.import_module(self.__name__)
        return getattr(self._real, attr)


def loaded_cut() -> Any:
    """jieba's plain cut (no HMM) if its dictionary is already loaded, else None (never loads it)."""
    jieba = _jieba
    return None if jieba is None else (lambda text: jieba.lcut(text, HMM=False))


def loaded_word_freq(word: str) -> int | None:
    """:func:`word_freq` if jieba is already loaded, else None (never loads it)."""
    return None if _jieba is None else word_freq(word)


def warm_up() -> None:
    """Load jieba's dictionary now (blocking: ~10 ms from its cache, ~2 s the very first time). Call
    it off the UI thread."""
    _get_jieba()


def word_freq(word: str) -> int:
    """How common ``word`` is in jieba's dictionary (0 if it is not an entry)."""
    return int(_get_jieba().FREQ.get(word) or 0)


def is_cjk(text: str) -> bool:
    return bool(_IS_CJK.match(text))


def _cutter() -> Any:
    """jieba's no-HMM search-mode cut with one lookup per fragment (``cut.py``), on the same table."""
    global _search_cut  # a cache over the lazily loaded tokenizer, not wiring
    if _search_cut is None:
        from .cut import SearchCut

        _search_cut = SearchCut(_get_jieba().FREQ)
    return _search_cut


_search_cut: Any = None
# Per-build memo (cleared by release_memos): a raw jieba token -> the keys of its content words.
_raw_words: dict[str, tuple[int, ...]] = {}
MEMO_MAX = 10_000
MANY_TEXTS = 32  # a batch this large is cut at once (cut.SearchCut.cut_for_search_many), smaller ones text by text


def _clean(raw: str) -> tuple[str, ...]:
    token = raw.strip().lower()
    if not token or token in STOP_WORDS or not _MEANINGFUL.search(token):
        return ()
    if is_cjk(token):
        if len(token) == 2 and token[0] == token[1] and token[0] not in STOP_WORDS:
            return (token, token[0])  # 听听 -> also 听
        return (token,)
    return tuple(ascii_words(token))


def words(text: str) -> list[str]:
    """Content words of ``text``: jieba search-mode cut, lower-cased, stop words and punctuation dropped."""
    if not text:
        return []
    out: list[str] = []
    for raw in _cutter().cut_for_search(text):
        out += _clean(raw)
    return out


def release_memos() -> None:
    """Drop what a bulk build remembered to go faster (the results do not depend on it)."""
    _raw_words.clear()
    if _search_cut is not None:
        _search_cut.clear()


def stem(word: str) -> str:
    """A light English suffix stripper (tournaments -> tournament, painted / painting -> paint,
    likes / liked / like -> lik): enough for plural and tense to meet; irregular forms are read as their
    base first (teeth -> tooth, went -> go: ``english_forms.py``). Other words unchanged."""
    word = IRREGULAR.get(word, word)
    if not word.isalpha() or len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("ied") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
                word = word[:-1]  # stopped -> stop
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def ascii_words(text: str) -> list[str]:
    """Lower-cased ASCII words (stemmed) and numbers of ``text``, stop words dropped."""
    return [stem(w) for w in _ASCII_WORD.findall((text or "").lower()) if w not in STOP_WORDS]


def bigrams(text: str) -> list[str]:
    """Character bigrams within runs of Chinese characters, skipping those with a stop character."""
    out: list[str] = []
    for run in _CJK_RUN.findall(text or ""):
        for i in range(len(run) - 1):
            pair = run[i : i + 2]
            if pair[0] in _STOP_CHARS or pair[1] in _STOP_CHARS:
                continue
            out.append(pair)
    return out


def chars(text: str) -> list[str]:
    """Chinese characters of ``text`` that are not stop characters."""
    return [ch for run in _CJK_RUN.findall(text or "") for ch in run if ch not in _STOP_CHARS and ch not in _WEAK_CHARS]


def surface_terms(text: str) -> list[str]:
    """Terms that name things in a text as it is written: its character bigrams and ASCII words (no
    word segmentation, nothing the lexicon adds)."""
    return [BIGRAM + b for b in bigrams(text)] + [WORD + w for w in ascii_words(text)]


def document_terms(text: str) -> list[str]:
    """All prefixed terms of a memory (with repeats, for term frequency)."""
    return (
        [WORD + w for w in words(text)]
        + [BIGRAM + b for b in bigrams(text)]
        + [CHAR + c for c in chars(text)]
    )


def _code_table(ranges: list[tuple[int, int]], minus: Iterable[str] = ()) -> np.ndarray:
    """A boolean table over the Basic Multilingual Plane: code points in ``ranges`` and not in ``minus``."""
    table = np.zeros(0x10000, dtype=bool)
    for lo, hi in ranges:
        table[lo : hi + 1] = True
    table[[ord(ch) for ch in minus]] = False
    return table


_CJK_RANGES = [(0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF)]  # CJK_CHARS
_CHAR_TERM = _code_table(_CJK_RANGES, _STOP_CHARS | _WEAK_CHARS)  # a character that is an index term
_PAIR_PART = _code_table(_CJK_RANGES, _STOP_CHARS)  # a character a bigram term may hold
# postings.hash_term's exact keys, as numbers: the kind in the top two bits, the length, the code points
_CHAR_KEY = np.uint64((3 << 62) | (1 << 20))
_PAIR_KEY = np.uint64((2 << 62) | (2 << 40))
_U20 = np.uint64(20)


def _short_keys(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(keys, text numbers) of every character and bigram term of ``texts`` (``c:`` / ``b:`` terms of
    :func:`document_terms`), computed for the whole batch at once."""
    joined = "\n".join(texts)  # no term spans a line break (it is no Chinese character)
    codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    lengths = np.fromiter((len(t) + 1 for t in texts), dtype=np.int64, count=len(texts))
    owner = np.repeat(np.arange(len(texts), dtype=np.int64), lengths)[: len(codes)]
    bmp = np.where(codes < 0x10000, codes, 0).astype(np.uint64)  # 0 is no Chinese character
    single = _CHAR_TERM[bmp]
    part = _PAIR_PART[bmp]
    pair = part[:-1] & part[1:]
    at = np.flatnonzero(pair)
    keys = np.concatenate((bmp[single] | _CHAR_KEY,
                           (bmp[at] << _U20) | bmp[at + 1] | _PAIR_KEY))
    return keys, np.concatenate((owner[single], owner[at]))


def batch_keys(texts: list[str]) -> list[np.ndarray]:
    """For each text, the index keys (``postings.term_key``) of :func:`document_terms`, with repeats
    (in another order), as uint64 arrays. Characters and bigrams are keyed for the whole batch at
    once with numpy; so are the words of a batch of ``MANY_TEXTS`` or more (cut at once, see
    :func:`_many_word_keys`); a smaller batch is cut text by text, as a query is. A raw token keyed
    one by one is remembered for the rest of the build (``release_memos`` forgets them)."""
    if not texts:
        return []
    if len(_raw_words) >= MEMO_MAX:
        release_memos()
    n = len(texts)
    if n >= MANY_TEXTS:
        word_keys, word_owner = _many_word_keys(texts)
    else:
        listed: list[int] = []
        counts: list[int] = []
        cut = _cutter().cut_for_search
        for text in texts:
            start = len(listed)
            for raw in cut(text) if text else ():
                listed += _raw_keys(raw)
            counts.append(len(listed) - start)
        word_keys = np.array(listed, dtype=np.uint64)
        word_owner = np.repeat(np.arange(n, dtype=np.int64), counts)
    short, short_owner = _short_keys(texts)
    keys = np.concatenate((word_keys, short))
    owner = np.concatenate((word_owner, short_owner))
    order = np.argsort(owner, kind="stable")
    keys = keys[order]
    edges = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner, minlength=n), out=edges[1:])
    return [keys[edges[i] : edges[i + 1]] for i in range(n)]


def _raw_keys(raw: str) -> tuple[int, ...]:
    """The keys of the content words of one raw token of the cut (remembered until ``release_memos``)."""
    keys = _raw_words.get(raw)
    if keys is None:
        keys = _raw_words[raw] = tuple(hash_term(WORD + w) for w in _clean(raw))
    return keys


_W_KIND = np.uint64(_KINDS[WORD] << 62)
_U = np.uint64


def _exact_word_keys(codes: np.ndarray, begin: np.ndarray, length: np.ndarray) -> np.ndarray:
    """``hash_term(WORD + text[b : b + n])`` of words of one to three characters below U+100000, given
    the text's code points: the kind, the length and the code points, as postings.hash_term packs them."""
    last = len(codes) - 1
    first = codes[begin].astype(np.uint64)
    second = codes[np.minimum(begin + 1, last)].astype(np.uint64)
    third = codes[np.minimum(begin + 2, last)].astype(np.uint64)
    body = np.where(length == 1, first,
                    np.where(length == 2, (first << _U(20)) | second, (first << _U(40)) | (second << _U(20)) | third))
    size = length.astype(np.uint64)
    return _W_KIND | (size << (size * _U(20))) | body


_stop_keys: np.ndarray | None = None


def _stop_word_keys() -> np.ndarray:
    """The keys of the stop words, sorted (for _is_stop_word)."""
    global _stop_keys  # computed once, a constant
    if _stop_keys is None:
        # sorted in Python: np.unique of plain values imports numpy's masked-array module (0.5 MB of code kept for good)
        _stop_keys = np.array(sorted({hash_term(WORD + w) for w in STOP_WORDS}), dtype=np.uint64)
    return _stop_keys


def _is_stop_word(keys: np.ndarray) -> np.ndarray:
    """Whether each key is a stop word's (a binary search: np.isin imports the masked-array module, see above)."""
    stop = _stop_word_keys()
    return stop[np.minimum(np.searchsorted(stop, keys), len(stop) - 1)] == keys


def _many_word_keys(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(keys, text numbers) of the ``w:`` terms of ``texts``: :func:`_raw_keys` of every token of the cut,
    the same keys with repeats. The words of Chinese characters only of up to three characters (most of
    them) are keyed in numpy from the cut's spans (``cut.RunWords``); other tokens as one by one."""
    cutter = _cutter()
    plans, runs = cutter.plan_many(texts)
    cut = cutter.cut_runs(runs)
    run_keys: list[np.ndarray] = []
    run_numbers: list[np.ndarray] = []
    listed: list[int] = []  # keys of the other tokens, and the run they come from
    listed_runs: list[int] = []
    for together, numbers in cut.together:
        codes, begin, end = together.codes, together.begin, together.end
        length = end - begin
        latin = np.concatenate(([0], np.cumsum(codes < 0x80)))  # the rest of a run's characters are Han ones
        han = (latin[end] == latin[begin]) & (length <= 3)
        number = np.repeat(numbers, np.diff(together.first))
        keys = _exact_word_keys(codes, begin[han], length[han])
        kept = ~_is_stop_word(keys)  # _clean: a stop word has no key
        firsts = codes[begin[han]]
        alone = _exact_word_keys(codes, begin[han], np.ones(int(han.sum()), dtype=np.int64))
        doubled = kept & (length[han] == 2) & (firsts == codes[np.minimum(begin[han] + 1, len(codes) - 1)])
        doubled &= ~_is_stop_word(alone)  # _clean: 听听 -> 听听 and 听
        run_keys += [keys[kept], alone[doubled]]
        run_numbers += [number[han][kept], number[han][doubled]]
        text = together.text
        for a, b, r in zip(begin[~han].tolist(), end[~han].tolist(), number[~han].tolist(), strict=True):
            found = _raw_keys(text[a:b])
            listed += found
            listed_runs += [r] * len(found)
    for r, words in cut.alone.items():
        for raw in words:
            found = _raw_keys(raw)
            listed += found
            listed_runs += [r] * len(found)
    keys = np.concatenate([*run_keys, np.array(listed, dtype=np.uint64)])
    number = np.concatenate([*run_numbers, np.array(listed_runs, dtype=np.int64)])
    order = np.argsort(number, kind="stable")
    keys = keys[order]
    per_run = np.bincount(number, minlength=len(runs))
    run_first = np.zeros(len(runs) + 1, dtype=np.int64)
    np.cumsum(per_run, out=run_first[1:])
    # each text: the keys of its runs (a run may recur in many texts) and of the tokens between them
    uses_text: list[int] = []
    uses_run: list[int] = []
    loose: list[int] = []
    loose_owner: list[int] = []
    for i, plan in enumerate(plans):
        for part in plan:
            if type(part) is int:
                uses_text.append(i)
                uses_run.append(part)
            else:
                for raw in part:
                    found = _raw_keys(raw)
                    if found:
                        loose += found
                        loose_owner += [i] * len(found)
    used = np.array(uses_run, dtype=np.int64)
    counts = per_run[used]
    starts = np.repeat(run_first[used] - np.cumsum(counts) + counts, counts)
    picked = keys[starts + np.arange(int(counts.sum()))]
    owner = np.repeat(np.array(uses_text, dtype=np.int64), counts)
    return (np.concatenate((picked, np.array(loose, dtype=np.uint64))),
            np.concatenate((owner, np.array(loose_owner, dtype=np.int64))))


def document_keys(text: str) -> np.ndarray:
    """:func:`batch_keys` of one text."""
    return batch_keys([text])[0]


def term_forms(word: str) -> list[str]:
    """Index terms under which a single query word (or lexicon entry) is looked up."""
    word = word.strip().lower()
    if not word:
        return []
    if not is_cjk(word):
        return [WORD + stem(word)]
    if len(word) == 1:
        return [] if word in _WEAK_CHARS else [CHAR + word]
    forms = [WORD + word]
    if len(word) == 2 and word[0] not in _STOP_CHARS and word[1] not in _STOP_CHARS:
        forms.append(BIGRAM + word)
    return forms
