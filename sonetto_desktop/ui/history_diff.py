"""Before/after diffs of memory texts as small HTML (pure Python, no Qt)."""

from __future__ import annotations

import difflib
from html import escape

from .theme_colors import wall_tokens


def diff_html(old: str, new: str) -> str:
    """``old`` -> ``new`` as inline HTML: removed text in ``<span class="del">``, added text in
    ``<span class="ins">``, the rest plain. Character level (Chinese has no spaces to split on)."""
    old, new = old or "", new or ""
    out: list[str] = []
    for op, a1, a2, b1, b2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(escape(old[a1:a2]))
            continue
        if op in ("delete", "replace"):
            out.append(f'<span class="del">{escape(old[a1:a2])}</span>')
        if op in ("insert", "replace"):
            out.append(f'<span class="ins">{escape(new[b1:b2])}</span>')
    return "".join(out)


def diff_stylesheet(mode: str = "light") -> str:
    """The document stylesheet for ``diff_html`` output, from the wall's tokens."""
    t = wall_tokens(mode)
    return (
        f".del {{ background-color: {t['diff_del_bg']}; color: {t['diff_del_fg']}; text-decoration: line-through; }}"
        f".ins {{ background-color: {t['diff_ins_bg']}; color: {t['diff_ins_fg']}; }}"
        f".muted {{ color: {t['card_muted']}; }}"
    )
