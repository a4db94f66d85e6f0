"""Likely duplicates: memories that say nearly the same thing, found through the offline retriever.

The retriever already knows which memories share wording with a text (``lookalikes(text, k)``: its
character pairs and ASCII words, without the analysis a question gets), so finding the likely
duplicates of a few memories costs a few index lookups, never a scan of the store (each asks without
the subject "用户", which nearly every memory shares).
Whether two texts are "nearly the same" is judged by character bigrams (Dice coefficient) after
the subject ("用户", a name), the days they name and punctuation are dropped: "用户每天喝美式咖啡" and
"用户每天早上喝一杯美式" score high, "用户喜欢猫" and "用户喜欢狗" do not, nor do two moments of one day
("2025年12月2日，小林看到了雪" and "2025年12月2日，小林吃了火锅": the date is most of what they share).
Two dated events (moments and to-dos: ``EVENT_THEMES``) on different days are different events,
however alike their words ("用户3月2日有高数考试", "用户5月12日有高数考试"; the same day of two
years; a day outside the other's range, "12月3日至5日"); a day whose year or month one of them
leaves out may be the other's ("12月4日" and "2025年12月4日", "3号" and "12月3日"); a fact that names a day
("用户的生日是3月5日") is compared by its words, so two birthdays still pair up (a contradiction for
the writer to look at). The writer model makes the final call.
"""

from __future__ import annotations

import logging
import re
from datetime import datetime
from typing import Any, Iterable, Mapping, Protocol

log = logging.getLogger(__name__)

DUPLICATE_AT = 0.5  # similarity from which two memories are flagged "可能重复"
_NOISE = re.compile(r"[\s，。,.、；;：:！!？?“”\"'‘’（）()《》「」【】\-—…]+")
_SUBJECT = re.compile(r"^(?:用户|[A-Za-z][A-Za-z0-9_\-]{1,19})")
#: A day a text names: 2025年12月2日 / 2026 年 12 月 10 日 / 12月2号 / 2025-12-02 / a bare 3号 or 5日
#: (not 3号线, 5号楼, 1日游: a line, a building, a trip). The year and the month are kept when given.
_DAY = re.compile(r"(?:(?P<y>\d{4})\s*年\s*)?(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*[日号]"
                  r"|(?<!\d)(?P<iy>\d{4})[-/.](?P<im>\d{1,2})[-/.](?P<id>\d{1,2})(?!\d)"
                  r"|(?<![\d月年.\-/])(?P<bd>\d{1,2})\s*[日号](?![线楼床门位车厅馆口院房台机码游场])")
#: Between two days, a range: 12月3日-12月5日, 12月3日至5日.
_RANGE = re.compile(r"\s*[-–—~～至到]\s*")
#: Sections whose memories are dated events (the writer's moments and to-dos): on different days, different events.
EVENT_THEMES = ("瞬间", "时效待办", "待办")


class CandidateSource(Protocol):
    """What is needed from a retriever (``MechanicalRetriever`` has it): a question's candidates (the
    writer's related memories) and the memories sharing most of a text's wording (duplicates)."""

    def candidates(self, prompt: str, k: int = ..., *, now: datetime | None = ...) -> list[dict]: ...

    def lookalikes(self, text: str, k: int) -> list[dict]: ...


def _core(text: str, subject: str = "") -> str:
    text = str(text or "").strip()
    if subject and text.startswith(subject):
        text = text[len(subject):]
    else:
        text = _SUBJECT.sub("", text, count=1)
    return _NOISE.sub("", _DAY.sub(" ", text))


Day = tuple[int | None, int | None, int]  # (year, month, day): a year or month the text does not give is None
Span = tuple[Day, Day]  # the first and the last day of what a text names (one day: the same twice)


def day_spans(text: str) -> list[Span]:
    """The days ``text`` names, a range ("12月3日-5日") as one span; a year or month not given is None
    (a range's end takes them from its start)."""
    text = str(text or "")
    found = [(m.start(), m.end(), _day_of(m)) for m in _DAY.finditer(text)]
    spans: list[Span] = []
    i = 0
    while i < len(found):
        _, end, first = found[i]
        if i + 1 < len(found) and _RANGE.fullmatch(text[end:found[i + 1][0]]):
            last = found[i + 1][2]
            last = (last[0] if last[0] is not None else first[0], last[1] if last[1] is not None else first[1], last[2])
            spans.append((first, last))
            i += 2
        else:
            spans.append((first, first))
            i += 1
    return spans


def _day_of(m: re.Match[str]) -> Day:
    if m["d"]:
        return (int(m["y"]) if m["y"] else None, int(m["m"]), int(m["d"]))
    if m["id"]:
        return (int(m["iy"]), int(m["im"]), int(m["id"]))
    return (None, None, int(m["bd"]))


def days_named(text: str) -> frozenset[tuple[int | None, int | None, int]]:
    """The (year, month, day) of every day ``text`` names (the first day of a range)."""
    return frozenset(first for first, _ in day_spans(text))


def _overlap(a: Span, b: Span) -> bool:
    """Whether two spans may share a day: a year or a month only one of them gives matches any."""
    (ay, am, ad), (ay2, am2, ad2) = a
    (by, bm, bd), (by2, bm2, bd2) = b
    if None not in (ay, by) and ay != by and ay == ay2 and by == by2:
        return False  # within two different years
    if None in (am, am2, bm, bm2):  # a bare day ("3号"): by its number
        return _meets(ad, ad2, bd, bd2, first=1, last=31)
    return _meets((am, ad), (am2, ad2), (bm, bd), (bm2, bd2), first=(1, 1), last=(12, 31))


def _meets(a0: Any, a1: Any, b0: Any, b1: Any, *, first: Any, last: Any) -> bool:
    """Whether the closed ranges a0..a1 and b0..b1 overlap; a range ending before its start wraps
    around from ``last`` to ``first`` (12月30日-1月2日)."""
    def parts(lo: Any, hi: Any) -> list[tuple[Any, Any]]:
        return [(lo, hi)] if lo <= hi else [(lo, last), (first, hi)]

    return any(x0 <= y1 and y0 <= x1 for x0, x1 in parts(a0, a1) for y0, y1 in parts(b0, b1))


def is_event_theme(theme: object) -> bool:
    """A section of dated events (moments, to-dos)."""
    return any(name in str(theme or "") for name in EVENT_THEMES)


def different_events(a: str, a_theme: object, b: str, b_theme: object) -> bool:
    """Two dated events (both in an event section) whose days cannot be the same: never "the same thing"."""
    if not (is_event_theme(a_theme) and is_event_theme(b_theme)):
        return False
    spans_a, spans_b = day_spans(a), day_spans(b)
    return bool(spans_a and spans_b) and not any(_overlap(x, y) for x in spans_a for y in spans_b)


def probe_text(text: str, subject: str = "") -> str:
    """What to ask the retriever for a memory's look-alikes: its words without the subject, which
    nearly every memory shares (asking with "用户" scores the whole store: 5x slower at 10k), and
    without the days it names (which every memory of that day shares)."""
    text = _DAY.sub(" ", str(text or "")).replace("用户", " ")
    if subject:
        text = text.replace(subject, " ")
    return " ".join(_NOISE.sub(" ", text).split())


def _bigrams(text: str) -> set[str]:
    if len(text) < 2:
        return {text} if text else set()
    return {text[i:i + 2] for i in range(len(text) - 1)}


def wording(text: str, subject: str = "") -> frozenset[str]:
    """What :func:`similarity` compares of a text: its character bigrams without the subject and
    punctuation (made once per text when many pairs are compared)."""
    return frozenset(_bigrams(_core(text, subject)))


def shared(x: frozenset[str], y: frozenset[str]) -> float:
    """:func:`similarity` of two texts' :func:`wording`."""
    if not x or not y:
        return 0.0
    return 2 * len(x & y) / (len(x) + len(y))


def similarity(a: str, b: str, subject: str = "") -> float:
    """0..1: how much of their wording two memory texts share (Dice over character bigrams)."""
    return shared(wording(a, subject), wording(b, subject))


def similar_pairs(source: CandidateSource, texts: dict[str, str], *, k: int = 4, threshold: float = DUPLICATE_AT,
                  subject: str = "", exclude: Iterable[str] = (),
                  themes: Mapping[str, object] | None = None) -> list[tuple[str, str, float]]:
    """(id, other id, similarity) for each memory in ``texts`` (id -> text) and the ``k`` memories
    sharing most of its wording that are at least ``threshold`` similar and not
    :func:`different_events` (``themes``: id -> section of the memories in ``texts``); each pair
    once, most similar first."""
    skip = set(exclude)
    pairs: dict[tuple[str, str], float] = {}
    for mid, text in texts.items():
        try:
            found = source.lookalikes(probe_text(text, subject), k + 1)
        except Exception:
            log.exception("duplicate search failed for %s", mid)
            continue
        for cand in found[:k + 1]:
            other = cand.get("id")
            if not other or other == mid or other in skip:
                continue
            other_text = cand.get("description") or ""
            score = similarity(text, other_text, subject)
            if score >= threshold and not different_events(text, (themes or {}).get(mid), other_text,
                                                             cand.get("theme")):
                key = (mid, other) if mid < other else (other, mid)
                pairs[key] = max(pairs.get(key, 0.0), score)
    return [(a, b, s) for (a, b), s in sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0]))]
