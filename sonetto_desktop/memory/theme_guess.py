"""A theme for a memory given without one (``sonetto memory add "…"``, ChatGPT's saved memories in the
import window): the theme its words point at, among the house themes and the ones the person's bank
already has.

The words are read as recall reads a question (``retrieval.lexicon.analyze``: the bank's and the
lexicon's words, ``theme_cues.yaml``'s cues, a theme named in the text); its dates count too: a
day to come (下周三要去复查牙齿, 年底要上线, 今天下午要去…) points at 时效待办, a day just past (昨天…, 今天…) at 瞬间, unless the
text says it happens again and again (每周六…). A few English phrasings the lexicon has no cue for
(``_PHRASES``) count as cues. The theme with the most wins; in a tie the more particular one (any but
身份, in the house's order, then the bank's); with no cue at all, 身份 (who the person is: what most of what people tell about themselves is). Where the
person lives goes under 地点与路径, as the writer files it (the recall cues count 住在 for 身份 too).
The person sees the guess and can change it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime, timedelta

HOUSE_THEMES = ("身份", "音乐", "品味", "地点与路径", "瞬间", "时效待办")  # the seed's and the writer's prompt's
DEFAULT_THEME = "身份"
COMING, JUST_PAST = "时效待办", "瞬间"
DATED_WEIGHT = 1.5  # a day to come or just past: more than one cue word, less than two
RECENT_DAYS = 7  # "just past": a day or two within this many days before today
LONGEST_PLAN_DAYS = 400  # a range to come longer than this (以后) says no date
MONTH_DAYS = 31  # a range under way (年底, 这周) to come if no longer than this (今年 is not)
_PHRASES = (  # (theme, words, how many cues they count for)
    # (whole English words: "band" is in "husband", "song" in "Songhua")
    ("音乐", re.compile(r"\bmusic|\bsongs?\b|\bbands?\b|\bsingers?\b|\balbums?\b", re.IGNORECASE), 1),
    ("品味", re.compile(r"\blikes?\b|\bloves?\b|prefer|favou?rite|enjoys?|dislikes?|hates?|最爱|爱吃", re.IGNORECASE), 1),
    ("地点与路径", re.compile(r"\blives?\b|living in|moved to|based in|located|住在|搬到|搬去|(?<![大老])家在", re.IGNORECASE), 2),
)
_AGAIN_AND_AGAIN = re.compile(r"每(?:天|日|晚|早|周|星期|礼拜|个?月|年|次)|经常|总是|\bevery (?:day|week|month|year|morning|"
                              r"evening|night|mon|tue|wed|thu|fri|sat|sun)|\b(?:daily|weekly|monthly|yearly)\b",
                              re.IGNORECASE)

#: Today, still ahead (a plan for later today), not a moment already lived
_STILL_AHEAD = re.compile(r"(?<![不想])要(?!了)|准备|打算|记得|别忘|待会|等会|\bwill\b|going to|(?:have|has|need|needs) to",
                          re.IGNORECASE)


def guess_theme(text: str, themes: Iterable[str] = (), *, now: datetime | None = None) -> str:
    """The theme for ``text``: one of the house themes or of ``themes`` (the bank's)."""
    from .retrieval.lexicon import analyze, default_lexicon  # the lexicon's tables: loaded when first asked

    candidates = list(dict.fromkeys([*HOUSE_THEMES, *(t.strip() for t in themes if t and t.strip())]))
    moment = now or datetime.now()
    query = analyze(text, moment, default_lexicon(), frozenset(candidates))
    scores = dict.fromkeys(candidates, 0.0)
    for theme, cues in query.themes.items():
        if theme in scores:
            scores[theme] += cues
    for theme in query.named_themes:
        if theme in scores:
            scores[theme] += 1
    for theme, words, weight in _PHRASES:
        if words.search(text):
            scores[theme] += weight
    if not _AGAIN_AND_AGAIN.search(text):
        today = moment.date()
        for span in query.ranges:
            days = (span.end - span.start).days
            if (span.start > today and days <= LONGEST_PLAN_DAYS) or (span.end > today and days <= MONTH_DAYS):
                scores[COMING] += DATED_WEIGHT
                break
            if span.start == span.end == today and _STILL_AHEAD.search(text):  # (今天下午要去拔牙)
                scores[COMING] += DATED_WEIGHT
                break
            if today - timedelta(days=RECENT_DAYS) <= span.end <= today and (span.end - span.start).days <= 1:
                scores[JUST_PAST] += DATED_WEIGHT
                break
    best = max(scores.values())
    if best <= 0:
        return DEFAULT_THEME
    tied = [theme for theme, score in scores.items() if score == best]
    return next((theme for theme in tied if theme != DEFAULT_THEME), DEFAULT_THEME)
