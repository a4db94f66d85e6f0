"""Model text -> safe, bounded HTML for a chat bubble.

Safe: raw HTML in the text is shown as text; no image is ever rendered (no local file, no remote
fetch); a link keeps its target only when it is http(s), every other link is plain text.

CommonMark, as models write it (markdown-it-py): lists nest by their content column (2, 3 or 4
spaces alike), an ordered list keeps its first number, ordered and bulleted lists may follow each
other; GFM tables (drawn with borders and cell padding, since Qt's rich text takes those only as
attributes) and strikethrough. A fenced code block is not HTML at all: the reply shows it as its own
widget (``ui/chat/code_block.py``), scrollable and with its own copy button; :func:`fence_parts`
gives its language and code.

Bounded: the text is cut at blank lines (outside code fences, and keeping a list item's indented
continuation with its item) into small chunks, each rendered on its own and cached, so a streamed
reply re-renders only its last chunk; a chunk that is too big, too deeply nested or too full of
brackets is shown as plain text; a reply beyond ``MAX_MARKDOWN_CHARS`` is shown as plain text. The
cost is linear in the text.
"""

from __future__ import annotations

import html
import re
from collections import OrderedDict

from markdown_it import MarkdownIt

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
_TABLE_RULE = re.compile(r"^[ \t]*[|:\- \t]*\|[|:\- \t]*$", re.MULTILINE)  # a table's |---|--:| line
_ITEM = re.compile(r"^( *)([-*+]|\d{1,9}[.)])( +|$)")
_INDENTED_FENCE = re.compile(r"^ *(```|~~~)")
_cache: OrderedDict[str, str] = OrderedDict()


_TABLE = re.compile(r"<table>")
_CELL = re.compile(r'<(th|td)( style="text-align:(left|center|right)")?>')


def _converter() -> MarkdownIt:
    # html off: raw HTML in the text is shown as text; images off: "![a](b)" is at most a link,
    # which _only_safe then keeps only when it is http(s). Nesting is bounded before parsing
    # (MAX_DEPTH), well inside markdown-it's own limit, which would drop the rest of the text.
    md = MarkdownIt("commonmark", {"html": False, "breaks": True, "maxNesting": 8 * MAX_DEPTH})
    md.enable(["table", "strikethrough"])
    md.disable("image")
    return md


_md = _converter()


def _qt_html(rendered: str) -> str:
    """Qt's rich text reads table borders, padding and alignment only as attributes (no CSS)."""
    rendered = _TABLE.sub('<table border="1" cellspacing="0" cellpadding="6" style="border-collapse: collapse;">',
                          rendered)

    def cell(match: re.Match[str]) -> str:
        align = f' align="{match.group(3)}"' if match.group(3) else ""
        return f'<{match.group(1)}{align} valign="middle">'

    return _CELL.sub(cell, rendered)


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
    """Split at blank lines that are outside code fences (each block keeps its lines). An indented
    line after a blank one continues the block before it (a list item's next paragraph or nested
    list), unless that block is a code fence: on its own it would read as indented code."""
    out: list[str] = []
    current: list[str] = []
    fence = ""
    gap = 0  # blank lines seen since the last block ended
    for line in text.split("\n"):
        marker = _FENCE.match(line)
        if not fence and not line.strip():
            if current:
                out.append("\n".join(current))
                current = []
            gap += 1
            continue
        if (not current and not fence and out and line[:1] in (" ", "\t") and not _is_fence(out[-1])
                and len(out[-1]) + len(line) < MAX_BLOCK_CHARS):
            current = out.pop().split("\n") + [""] * gap
        gap = 0
        if marker:
            if not fence:
                fence = marker.group(1)
            elif marker.group(1) == fence:
                fence = ""
        current.append(line)
    if current:
        out.append("\n".join(current))
    return [piece for block in out for piece in _sliced(block)]


def _sliced(block: str) -> list[str]:
    """A block too long to parse is shown as plain text anyway: in slices of at most
    MAX_BLOCK_CHARS (cut after a line break when there is one), so no single piece is huge. A code
    fence is never parsed (its widget appends what streams in): it stays whole, one copy button."""
    if _is_fence(block):
        return [block]
    pieces = []
    while len(block) > MAX_BLOCK_CHARS:
        cut = block.rfind("\n", MAX_BLOCK_CHARS // 2, MAX_BLOCK_CHARS)
        cut = cut + 1 if cut > 0 else MAX_BLOCK_CHARS
        pieces.append(block[:cut])
        block = block[cut:]
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
        easy = not _is_fence(block) and not _is_table(block) and not _too_hard(block)
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


def _is_table(block: str) -> bool:
    """A GFM table (its header's rule line): a chunk of its own, which scrolls sideways when wide."""
    return any("-" in match.group(0) for match in _TABLE_RULE.finditer(block))


def is_code(chunk: str) -> bool:
    """The chunk is one fenced code block (shown as a code widget, see :func:`fence_parts`)."""
    return _is_fence(chunk)


def fence_parts(block: str) -> tuple[str, str]:
    """A fenced block's (language, code): the info string's first word, and the lines between the
    fences (an unclosed fence, still streaming, runs to the end)."""
    lines = block.split("\n")
    opening = lines[0].strip()
    language = opening.lstrip("`~").strip().split(" ")[0] if opening else ""
    closed = len(lines) > 1 and _FENCE.match(lines[-1]) and lines[-1].strip().startswith(opening[:3])
    body = lines[1:-1] if closed else lines[1:]
    return language, "\n".join(body)


def code_html(block: str) -> str:
    """A fenced code block as HTML (where no code widget can be used: plain HTML consumers)."""
    return "<pre><code>" + html.escape(fence_parts(block)[1]) + "</code></pre>"


def _nest_lists(chunk: str) -> str:
    """CommonMark nests a list item only when it starts at its parent's content column ("1. " is 3
    wide); models often indent by 2 anyway and mean a nested list. An item indented past its
    parent's marker but short of its content is moved to the content column (its indented lines
    with it); every other line is left as written. Code fences inside the chunk are not touched."""
    if not any(_ITEM.match(line) for line in chunk.split("\n")[1:]):
        return chunk
    out = []
    stack: list[tuple[int, int, int]] = []  # open items: (indent as written, shift applied, content column)
    fence = ""
    for line in chunk.split("\n"):
        marker = _INDENTED_FENCE.match(line)
        if fence or marker:
            if marker:
                fence = "" if fence == marker.group(1) else (fence or marker.group(1))
            shift = stack[-1][1] if stack else 0
            out.append(" " * shift + line if line.startswith(" ") or fence else line)
            continue
        item = _ITEM.match(line.expandtabs(4))
        if item is None:
            shift = stack[-1][1] if stack and line.startswith(" ") else 0
            out.append(" " * shift + line)
            continue
        line = line.expandtabs(4)
        indent = len(item.group(1))
        while stack and indent < stack[-1][0]:
            stack.pop()
        if stack and stack[-1][0] == indent:
            shift = stack.pop()[1]  # a sibling: the same shift
        elif stack:
            _parent_indent, parent_shift, parent_content = stack[-1]
            shift = max(parent_shift, parent_content - indent)
        else:
            shift = 0
        width = len(item.group(2)) + max(1, len(item.group(3)))
        stack.append((indent, shift, indent + shift + width))
        out.append(" " * shift + line)
    return "\n".join(out)


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
            rendered = _qt_html(_only_safe(_md.render(_nest_lists(chunk))))
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
