"""A change's reason in the front end's language: the app's own reasons are codes (``memory/reasons.py``)
shown in Chinese or English; a person's own words are shown as written. No Qt."""

from __future__ import annotations

from ..memory.reasons import ENGLISH, REASONS, parse_reason


def render_reason(text: str, language: str = "zh_CN") -> str:
    """``text`` (a stored reason) for a person reading ``language``: the app's reasons in that
    language, whatever language they were stored in; anything else as written."""
    parsed = parse_reason(text)
    if parsed is None:
        return " ".join(str(text or "").split())
    code, args = parsed
    if code == "merge.into" and len(args) == 2:  # the merge's own reason inside
        args = (args[0], render_reason(args[1], language))
    template = ENGLISH.get(code) if language.startswith("en") else None
    return (template or REASONS[code]).format(*args)
