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
however alike their words ("用户3月2日有高数考试", "用户5月12日有高数考试"); a fact that names a day
("用户的生日是3月5日") is compared by its words, so two birthdays still pair up (a contradiction for
the writer to look at). The writer model makes the final call.
"""

from __future__ import annotations

import logging
import re
from datetime import datetime
from typing import Iterable, Mapping, Protocol

log = logging.getLogger(__name__)

DUPLICATE_AT = 0.5  # similarity from which two memories are flagged "可能重复"
_NOISE = re.compile(r"[\s，。,.、；;：:！!？?“”\"'‘’（）()《》「」【】\-—…]+")
_SUBJECT = re.compile(r"^(?:用户|[A-Za-z][A-Za-z0-9_\-]{1,19})")
#: A day a text names: 2025年12月2日 / 12月2日 / 12月2号 / 2025-12-02 (month and day kept, the year dropped:
#: a to-do's "12月4日" and the moment it became, "2025年12月4日", are one day).
_DAY = re.compile(r"(?:\d{4}年)?(?P<m>\d{1,2})月(?P<d>\d{1,2})[日号]"
                  r"|(?<!\d)\d{4}[-/.](?P<im>\d{1,2})[-/.](?P<id>\d{1,2})(?!\d)")
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


def days_named(text: str) -> frozenset[tuple[int, int]]:
    """The (month, day) of every day ``text`` names (its year aside)."""
    return frozenset((int(m["m"] or m["im"]), int(m["d"] or m["id"])) for m in _DAY.finditer(str(text or "")))


def is_event_theme(theme: object) -> bool:
    """A section of dated events (moments, to-dos)."""
    return any(name in str(theme or "") for name in EVENT_THEMES)


def different_events(a: str, a_theme: object, b: str, b_theme: object) -> bool:
    """Two dated events (both in an event section) on different days: never "the same thing"."""
    if not (is_event_theme(a_theme) and is_event_theme(b_theme)):
        return False
    days_a, days_b = days_named(a), days_named(b)
    return bool(days_a and days_b) and days_a.isdisjoint(days_b)


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
