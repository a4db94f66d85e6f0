"""What Sonetto calls the user, as the writer uses it in memories ("小林喜欢猫", not "用户喜欢猫").

In order: the name set in the settings ("how should Sonetto call you"); else a name the memories
state ("用户希望被称为小林", "用户的名字是小林"; the most recently updated such memory wins); else the
name that memories imported from a seed store start with ("Miso喜欢夏天和猫"), when at least
``MIN_LEADING`` memories do. Without any, memories say "用户".
"""

from __future__ import annotations

import re

MAX_NAME_CHARS = 20
MIN_LEADING = 2

_STOP = r"\s，。,、；;！!？?“”\"「」『』（）()"
_STATED = (
    re.compile(rf"(?:希望|想|要求|喜欢)(?:被|让(?:Sonetto|你|大家|别人)?)(?:称呼(?:他|她)?为?|称为|叫(?:他|她)?(?:做)?)"
               rf"[“「『\"]?([^{_STOP}]{{1,12}})"),
    re.compile(rf"(?:希望|想)(?:被)?称(?:呼)?(?:他|她)?为[“「『\"]?([^{_STOP}]{{1,12}})"),
    re.compile(rf"(?:^|用户的?|自己的?)(?:名字|昵称|网名|称呼|小名)(?:是|叫|为)[“「『\"]?([^{_STOP}]{{1,12}})"),
)
# A Latin name, then Chinese (or a comma) right away or after one space: "Miso喜欢…", "Miso 喜欢…" (the seed's style)
_LEADING_LATIN = re.compile(r"^([A-Za-z][A-Za-z0-9_\-]{1,19})(?= ?[\u4e00-\u9fff，,])")
_GLUED_DATE = re.compile(r"\d{1,4}$")  # "Miso7月14日…": the digits are the date's, not the name's
_NOT_NAMES = frozenset({"用户", "我", "你", "他", "她", "Sonetto", "AI", "App", "UP"})


def clean_name(value: object) -> str:
    """A usable name from the settings field: one line, trimmed, at most ``MAX_NAME_CHARS``;
    ``""`` when there is none."""
    if not isinstance(value, str):
        return ""
    name = " ".join(value.split())
    return name[:MAX_NAME_CHARS]


def stated_name(description: str) -> str | None:
    """The name a memory says the user goes by, or ``None``."""
    for pattern in _STATED:
        match = pattern.search(description)
        if match:
            name = match.group(1).strip()
            name = re.sub(r"(?:吧|呢|啦|哦|的)$", "", name)
            if name and name not in _NOT_NAMES:
                return name
    return None


def leading_name(description: str) -> str | None:
    """The Latin-letter name a seed-style memory starts with ("Miso喜欢…", "Miso 喜欢…", even
    "Miso7月14日…" -> "Miso"), or ``None``."""
    text = description.strip()
    match = _LEADING_LATIN.match(text)
    if not match:
        return None
    name = match.group(1)
    if text[match.end():match.end() + 1] in ("年", "月", "日"):  # a date written right after the name
        name = _GLUED_DATE.sub("", name)
    if len(name) < 2 or name in _NOT_NAMES:
        return None
    return name


def resolve_name(configured: str, stated: list[tuple[str, str]], leading: dict[str, int]) -> tuple[str, str]:
    """(name, where it came from: ``settings`` / ``stated`` / ``leading`` / ``""``).

    ``stated``: (latest_update_time, name) of memories stating a name; ``leading``: name -> how
    many memories start with it."""
    name = clean_name(configured)
    if name:
        return name, "settings"
    if stated:
        return max(stated)[1], "stated"
    if leading:
        best, count = max(leading.items(), key=lambda kv: (kv[1], kv[0]))
        if count >= MIN_LEADING:
            return best, "leading"
    return "", ""
