"""Model text -> safe, bounded HTML for a chat bubble.

Safe: raw HTML in the text is shown as text; no image is ever rendered (no local file, no remote
fetch); a link keeps its target only when it is http(s), every other link is plain text.

Bounded: Python-Markdown is slow (quadratic) on some inputs (thousands of ``[``) and recursive on
deep nesting. The text is cut at blank lines (outside code fences) into small chunks, each rendered
on its own and cached, so a streamed reply re-renders only its last chunk; a chunk that is too big,
too deeply nested or too full of brackets is shown as plain text; a reply beyond
``MAX_MARKDOWN_CHARS`` is shown as plain text. The cost is linear in the text.
"""

from __future__ import annotations

import html
import re
from collections import OrderedDict

import markdown

MAX_MARKDOWN_CHARS = 60_000
CHUNK_CHARS = 1_500  # blocks are grouped into chunks of about this size
MAX_BLOCK_CHARS = 2_000  # a single block (no blank line) longer than this: plain text
MAX_SPECIALS = 120  # more [ ] * _ ` < in one block than this: plain text
MAX_UNCLOSED = 8  # more [ than ] (each one makes the parser scan the rest of the block)
MAX_DEPTH = 12  # blockquote or indentation nesting deeper than this: plain text
CACHE_SIZE = 512

_SPECIALS = re.compile(r"[\[\]*_`<>]")
_QUOTES = re.compile(r"^[ \t]*((?:>[ \t]*)+)")
_LINK = re.compile(r'<a href="([^"]*)"([^>]*)>')
_IMG = re.compile(r"<img\b[^>]*>", re.IGNORECASE)
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)")
_cache: OrderedDict[str, str] = OrderedDict()


def _converter() -> markdown.Markdown:
    md = markdown.Markdown(extensions=["fenced_code", "tables", "sane_lists", "nl2br"])
    md.preprocessors.deregister("html_block")
    for name in ("html", "image_link", "image_reference", "short_image_ref"):
        if name in md.inlinePatterns:
            md.inlinePatterns.deregister(name)
    return md


_md = _converter()


def safe_link(url: str) -> bool:
    return html.unescape(url).strip().lower().startswith(("http://", "https://"))


def _only_safe(rendered: str) -> str:
    def link(match: re.Match[str]) -> str:
        return match.group(0) if safe_link(match.group(1)) else "<a>"

    return _IMG.sub("", _LINK.sub(link, rendered))


def plain_html(text: str) -> str:
    return "<p>" + html.escape(text).replace("\n", "<br>") + "</p>"


def _too_hard(block: str) -> bool:
    if block.lstrip().startswith(("```", "~~~")):
        return len(block) > MAX_BLOCK_CHARS * 4  # code: no inline parsing, only its size counts
    if len(block) > MAX_BLOCK_CHARS or len(_SPECIALS.findall(block)) > MAX_SPECIALS:
        return True
    if block.count("[") - block.count("]") > MAX_UNCLOSED:
        return True
    for line in block.splitlines():
        quotes = _QUOTES.match(line)
        if quotes and quotes.group(1).count(">") > MAX_DEPTH:
            return True
        if (len(line) - len(line.lstrip(" \t"))) > 4 * MAX_DEPTH:
            return True
    return False


def blocks(text: str) -> list[str]:
    """Split at blank lines that are outside code fences (each block keeps its lines)."""
    out: list[str] = []
    current: list[str] = []
    fence = ""
    for line in text.split("\n"):
        marker = _FENCE.match(line)
        if marker:
            if not fence:
                fence = marker.group(1)
            elif marker.group(1) == fence:
                fence = ""
        if not fence and not line.strip():
            if current:
                out.append("\n".join(current))
                current = []
            continue
        current.append(line)
    if current:
        out.append("\n".join(current))
    return out


def chunks(text: str) -> list[str]:
    """Blocks grouped greedily into chunks of about CHUNK_CHARS (earlier chunks stay the same as
    the text grows at its end)."""
    out: list[str] = []
    size = 0
    for block in blocks(text):
        if out and size + len(block) <= CHUNK_CHARS and not _too_hard(out[-1] + "\n\n" + block):
            out[-1] += "\n\n" + block
            size += len(block) + 2
        else:
            out.append(block)
            size = len(block)
    return out


def _render_chunk(chunk: str) -> str:
    cached = _cache.get(chunk)
    if cached is not None:
        _cache.move_to_end(chunk)
        return cached
    if _too_hard(chunk):
        rendered = "".join(plain_html(block) for block in blocks(chunk))
    else:
        try:
            rendered = _only_safe(_md.reset().convert(chunk))
        except (RecursionError, ValueError, IndexError):
            rendered = plain_html(chunk)
    _cache[chunk] = rendered
    if len(_cache) > CACHE_SIZE:
        _cache.popitem(last=False)
    return rendered


def render_markdown(text: str) -> str:
    """Markdown -> HTML for a QLabel (see the module docstring for what is and is not rendered)."""
    if len(text) > MAX_MARKDOWN_CHARS:
        return plain_html(text)
    return "\n".join(_render_chunk(chunk) for chunk in chunks(text))
