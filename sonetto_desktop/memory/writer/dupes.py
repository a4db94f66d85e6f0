"""Likely duplicates: memories that say nearly the same thing, found through the offline retriever.

The retriever already knows which memories share wording with a text (``lookalikes(text, k)``: its
character pairs and ASCII words, without the analysis a question gets), so finding the likely
duplicates of a few memories costs a few index lookups, never a scan of the store (each asks without
the subject "用户", which nearly every memory shares).
Whether two texts are "nearly the same" is judged by character bigrams (Dice coefficient) after
the subject ("用户", a name) and punctuation are dropped: "用户每天喝美式咖啡" and "用户每天早上喝一杯美式"
score high, "用户喜欢猫" and "用户喜欢狗" do not. The writer model makes the final call.
"""

from __future__ import annotations

import logging
import re
from datetime import datetime
from typing import Iterable, Protocol

log = logging.getLogger(__name__)

DUPLICATE_AT = 0.5  # similarity from which two memories are flagged "可能重复"
_NOISE = re.compile(r"[\s，。,.、；;：:！!？?“”\"'‘’（）()《》「」【】\-—…]+")
_SUBJECT = re.compile(r"^(?:用户|[A-Za-z][A-Za-z0-9_\-]{1,19})")


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
    return _NOISE.sub("", text)


def probe_text(text: str, subject: str = "") -> str:
    """What to ask the retriever for a memory's look-alikes: its words without the subject, which
    nearly every memory shares (asking with "用户" scores the whole store: 5x slower at 10k)."""
    text = str(text or "").replace("用户", " ")
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
                  subject: str = "", exclude: Iterable[str] = ()) -> list[tuple[str, str, float]]:
    """(id, other id, similarity) for each memory in ``texts`` (id -> text) and the ``k`` memories
    sharing most of its wording that are at least ``threshold`` similar; each pair once, most
    similar first."""
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
            score = similarity(text, cand.get("description") or "", subject)
            if score >= threshold:
                key = (mid, other) if mid < other else (other, mid)
                pairs[key] = max(pairs.get(key, 0.0), score)
    return [(a, b, s) for (a, b), s in sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0]))]
