"""Reading a JSON export a piece at a time (issue 35): the conversations of a ``conversations.json``
one by one, never the whole file at once.

:class:`JsonStream` pulls text from a stream of bytes (a zip member, a file) a chunk at a time and
walks the top of the document: :meth:`~JsonStream.items` steps through an array, :meth:`~JsonStream.members`
through an object's keys, and for each element the caller takes it whole (:meth:`~JsonStream.value`),
skips it (:meth:`~JsonStream.skip`) or walks into it. Only the element being read is held, so memory
stays about one conversation plus a chunk, whatever the export's size; a streaming planner can take
the elements as they come.

One element's problem is that element's: one nested deeper than Python's parser allows, larger than
``MAX_ELEMENT_CHARS``, or not valid JSON inside balanced brackets is skipped and comes back as a
:class:`Skipped` saying why, and the elements after it are read. A document cut short, or one that is
not JSON where the walk needs it to be, is the file's problem: ``HistoryFormatError``.

Elements are parsed by the standard library's C decoder (``raw_decode``), which also takes the
``NaN`` and ``Infinity`` some exporters write; a small scanner finds where an element ends when it
runs past the chunk in hand, or has to be skipped.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .model import HistoryFormatError

#: Bytes read at a time (256 KiB: reading is as fast as with 1 MiB, and holds less).
CHUNK = 1 << 18
#: One element (one conversation) larger than this many characters is skipped, not parsed.
MAX_ELEMENT_CHARS = 64 * 1024 * 1024

_DECODER = json.JSONDecoder()
_WS = re.compile(r"[ \t\r\n]*")
_STRUCT = re.compile(r'["\[\]{}]')
_STRING_REST = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*', re.S)
_SCALAR_END = re.compile(r"[,\]}\s]")


@dataclass(frozen=True)
class Skipped:
    """An element that was not read, and why (``zh`` / ``en``)."""

    zh: str
    en: str


TOO_DEEP = Skipped("嵌套层数太多，不像是正常的导出内容", "nested too deeply for a real export")
TOO_BIG = Skipped(f"单个对话超过 {MAX_ELEMENT_CHARS // 1024 ** 2} MB", f"a single chat over {MAX_ELEMENT_CHARS // 1024 ** 2} MB")


class JsonStream:
    """See the module docstring. ``chunks``: the bytes, in order; ``name``: the file's name in messages."""

    def __init__(self, chunks: Iterable[bytes], name: str) -> None:
        self.name = name
        self._chunks = iter(chunks)
        self._decoder = codecs.getincrementaldecoder("utf-8-sig")()
        self._buf = ""
        self._pos = 0
        self._eof = False
        self._lines = 0  # newlines in the text already dropped from the buffer
        self._dropped = 0  # characters already dropped
        self._line_dropped = 0  # characters already dropped of the line the buffer starts in

    # ── the buffer ────────────────────────────────────────────────────

    def _fill(self) -> bool:
        """More text at the end of the buffer; False at the end of the input."""
        while not self._eof:
            raw = next(self._chunks, b"")
            try:
                text = self._decoder.decode(raw, final=not raw)
            except UnicodeDecodeError:
                raise HistoryFormatError(f"{self.name} 不是 UTF-8 文本", f"{self.name} is not UTF-8 text") from None
            if not raw:
                self._eof = True
            if text:
                self._buf += text
                return True
        return False

    def _drop(self, upto: int) -> None:
        """Forget the buffer before ``upto`` (positions held by the caller move by ``upto``)."""
        if upto <= 0:
            return
        self._lines += self._buf.count("\n", 0, upto)
        last = self._buf.rfind("\n", 0, upto)
        self._line_dropped = upto - last - 1 if last >= 0 else self._line_dropped + upto
        self._dropped += upto
        self._buf = self._buf[upto:]
        self._pos -= upto

    def _where(self, pos: int) -> tuple[int, int]:
        """(line, column) of buffer position ``pos`` in the whole document, 1-based."""
        line = self._lines + self._buf.count("\n", 0, pos) + 1
        start = self._buf.rfind("\n", 0, pos)
        column = pos - start if start >= 0 else self._line_dropped + pos + 1  # (a line begun before the buffer)
        return line, column

    def _cut_short(self, pos: int, zh_what: str = "文件在这里结束了", en_what: str = "the file ends here") -> HistoryFormatError:
        line, column = self._where(pos)
        return HistoryFormatError(
            f"{self.name} 不是完整的 JSON（第 {line} 行第 {column} 列：{zh_what}），可能下载或解压不完整",
            f"{self.name} is not complete JSON (line {line}, column {column}: {en_what}); "
            "the download or unpacking may have been cut short")

    def peek(self) -> str:
        """The next character that is not white space ("" at the end), without taking it."""
        while True:
            self._pos = _WS.match(self._buf, self._pos).end()
            if self._pos < len(self._buf):
                if self._pos > CHUNK:
                    self._drop(self._pos)
                return self._buf[self._pos]
            self._drop(self._pos)
            if not self._fill():
                return ""

    def _take(self, allowed: str) -> str:
        found = self.peek()
        if not found:
            raise self._cut_short(self._pos)
        if found not in allowed:
            wanted = "”或“".join(allowed)
            raise self._cut_short(self._pos, f"这里应是“{wanted}”", f"expected {' or '.join(allowed)}")
        self._pos += 1
        return found

    # ── walking ───────────────────────────────────────────────────────

    def items(self) -> Iterator[int]:
        """Step through the array that comes next: yields 1, 2, … once per element; the caller takes
        each element (``value``, ``skip`` or a walk into it) before asking for the next."""
        self._take("[")
        if self.peek() == "]":
            self._pos += 1
            return
        index = 0
        while True:
            index += 1
            self.peek()  # (a caller's peek moves over white space only: that is not taking the element)
            before = self._dropped + self._pos
            yield index
            if self._dropped + self._pos == before:
                self.skip()  # the caller took nothing: the element is passed over
            if self._take(",]") == "]":
                return

    def members(self) -> Iterator[str]:
        """Step through the object that comes next: yields each key; the caller takes its value."""
        self._take("{")
        if self.peek() == "}":
            self._pos += 1
            return
        while True:
            if self.peek() != '"':
                raise self._cut_short(self._pos, "这里应是键名", "expected a key")
            key = self.value()
            if not isinstance(key, str):
                raise self._cut_short(self._pos, "键名读不出来", "a key cannot be read")
            self._take(":")
            self.peek()  # (as in ``items``)
            before = self._dropped + self._pos
            yield key
            if self._dropped + self._pos == before:
                self.skip()
            if self._take(",}") == "}":
                return

    def value(self) -> object:
        """The next value, parsed; a :class:`Skipped` when that one element cannot be read."""
        if not self.peek():
            raise self._cut_short(self._pos)
        start = self._pos
        if self._buf[start] not in '[{"':  # a number or a word may go on in the next chunk ("1." "5")
            return self._scanned(start)
        try:
            found, end = _DECODER.raw_decode(self._buf, start)
        except RecursionError:
            return self._skip_from(start, TOO_DEEP)
        except json.JSONDecodeError:
            return self._scanned(start)
        self._pos = end
        return found

    def skip(self) -> None:
        """Pass over the next value without parsing it."""
        if not self.peek():
            raise self._cut_short(self._pos)
        self._skip_from(self._pos, None)

    def finish(self) -> None:
        """The document ends here: nothing but white space may follow (the input is read to its end)."""
        if self.peek():
            raise self._cut_short(self._pos, "后面还有多余的内容", "more follows the end")

    # ── one element, the slow way ─────────────────────────────────────

    def _scanned(self, start: int) -> object:
        """Find where the element at ``start`` ends (reading on), then parse just that text."""
        self._drop(start)  # what came before it is read: the buffer holds this element and what follows
        start = 0
        end, too_big = self._scan(start, keep=True)
        if too_big:
            self._pos = end
            return TOO_BIG
        text = self._buf[start:end]
        self._pos = end
        try:
            return json.loads(text)
        except RecursionError:
            return TOO_DEEP
        except json.JSONDecodeError as exc:
            line, column = self._where(start + exc.pos)
            return Skipped(f"不是有效的 JSON（第 {line} 行第 {column} 列不合格式）",
                           f"not valid JSON (the format breaks at line {line}, column {column})")

    def _skip_from(self, start: int, why: Skipped | None) -> Skipped | None:
        self._pos, _too_big = self._scan(start, keep=False)
        return why

    def _scan(self, start: int, *, keep: bool) -> tuple[int, bool]:
        """The end of the value at ``start`` (reading more as needed), and whether it was larger
        than ``MAX_ELEMENT_CHARS`` (then its text is no longer kept). ``keep``: the caller wants its
        text (else the buffer is dropped as it goes)."""
        buf_start = start
        pos = start
        first = self._buf[pos]
        if first not in '[{"':  # a number, true, false, null: up to the next delimiter
            while True:
                found = _SCALAR_END.search(self._buf, pos)
                if found is not None:
                    return found.start(), False
                pos = len(self._buf)
                if not self._fill():
                    return len(self._buf), False
        depth = 0
        in_string = False
        too_big = False
        while True:
            buf = self._buf
            if in_string:
                pos = _STRING_REST.match(buf, pos).end()
                if pos < len(buf) and buf[pos] == '"':
                    in_string = False
                    pos += 1
                    if depth == 0:
                        return pos, too_big
                    continue
            else:
                found = _STRUCT.search(buf, pos)
                if found is not None:
                    pos = found.end()
                    char = found.group()
                    if char == '"':
                        in_string = True
                    elif char in "[{":
                        depth += 1
                    else:
                        depth -= 1
                        if depth == 0:
                            return pos, too_big
                    continue
                pos = len(buf)
            # the element goes on past the buffer: keep what is needed, read on
            if pos - buf_start > MAX_ELEMENT_CHARS:
                too_big = True
            if not keep or too_big:
                self._pos = pos
                self._drop(pos)
                buf_start, pos = 0, 0
            if not self._fill():
                raise self._cut_short(len(self._buf))
