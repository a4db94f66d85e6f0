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
    return [piece for block in out for piece in _sliced(block)]


def _sliced(block: str) -> list[str]:
    """A block too long to parse is shown as plain text anyway: in slices of at most
    MAX_BLOCK_CHARS (cut after a line break when there is one), so no single piece is huge."""
    pieces = []
    fence = _is_fence(block)
    while len(block) > MAX_BLOCK_CHARS:
        cut = block.rfind("\n", MAX_BLOCK_CHARS // 2, MAX_BLOCK_CHARS)
        cut = cut + 1 if cut > 0 else MAX_BLOCK_CHARS
        pieces.append(block[:cut])
        block = ("```\n" if fence else "") + block[cut:]  # long code stays code in every slice
    pieces.append(block)
    return pieces


def chunks(text: str) -> list[str]:
    """Blocks grouped greedily into chunks of about CHUNK_CHARS (earlier chunks stay the same as
    the text grows at its end). Blocks are only merged while the chunk stays easy to parse."""
    out: list[str] = []
    size = specials = unclosed = 0
    merge_ok = False
    for block in blocks(text):
        block_specials = len(_SPECIALS.findall(block))
        block_unclosed = max(0, block.count("[") - block.count("]"))
        easy = not _is_fence(block) and not _too_hard(block)
        if (merge_ok and easy and size + len(block) + 2 <= CHUNK_CHARS
                and specials + block_specials <= MAX_SPECIALS and unclosed + block_unclosed <= MAX_UNCLOSED):
            out[-1] += "\n\n" + block
            size += len(block) + 2
            specials += block_specials
            unclosed += block_unclosed
        else:
            out.append(block)
            size, specials, unclosed, merge_ok = len(block), block_specials, block_unclosed, easy
    return out


def _is_fence(block: str) -> bool:
    return bool(_FENCE.match(block))


def code_html(block: str) -> str:
    """A fenced code block, drawn by us (no parsing: any size or content is linear)."""
    lines = block.split("\n")
    body = lines[1:-1] if len(lines) > 1 and _FENCE.match(lines[-1]) else lines[1:]
    return "<pre><code>" + html.escape("\n".join(body)) + "</code></pre>"


def _render_chunk(chunk: str) -> str:
    cached = _cache.get(chunk)
    if cached is not None:
        _cache.move_to_end(chunk)
        return cached
    if _is_fence(chunk):
        rendered = code_html(chunk)
    elif _too_hard(chunk):
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


def render_chunk(chunk: str, *, markdown: bool = True) -> str:
    """One chunk (from :func:`chunks`) as HTML; ``markdown=False``: as plain text."""
    return _render_chunk(chunk) if markdown else plain_html(chunk)


def uses_markdown(text: str) -> bool:
    """False for a reply too long to be worth parsing (shown as plain text)."""
    return len(text) <= MAX_MARKDOWN_CHARS


def render_markdown(text: str) -> str:
    """Markdown -> HTML for a QLabel (see the module docstring for what is and is not rendered)."""
    md = uses_markdown(text)
    return "\n".join(render_chunk(chunk, markdown=md) for chunk in chunks(text))
