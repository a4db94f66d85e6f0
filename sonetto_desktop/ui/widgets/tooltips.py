"""Tooltips that show data (memory text, a chat's words) as written.

Qt reads a tooltip as rich text whenever it looks like markup (``Qt::mightBeRichText``): a memory
"<b>周五</b>前交报告" would lose its tags, an ``<img>`` would be loaded, and its line breaks would
merge. ``plain_tooltip`` escapes the text and keeps its line breaks and spaces, so what is shown is
exactly the text.
"""

from __future__ import annotations

from html import escape


def plain_tooltip(text: str) -> str:
    """``text`` as a tooltip that shows it as plain text ("" stays "": no tooltip)."""
    if not text:
        return ""
    return f'<p style="white-space:pre-wrap">{escape(text, quote=False)}</p>'
