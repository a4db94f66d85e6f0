"""Code, tables and lists in replies (issue 30 item 1): every code line is visible or reachable by
scrolling sideways at 900, 1280 and 1920 px (and in a narrow chat pane), each code block copies
exactly its own code, tables have borders and padding and scroll when they cannot wrap, and lists
nest the way models write them (2, 3 or 4 spaces)."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QGuiApplication, QTextDocument

from helpers import process_events, stream_reply
from sonetto_desktop.ui.chat.code_block import CodeBlock, WideText
from sonetto_desktop.ui.chat.controller import ChatController
from sonetto_desktop.ui.chat.markdown_render import fence_parts, render_markdown
from sonetto_desktop.ui.chat.panel import ChatPanel
from sonetto_desktop.ui.theme import stylesheet

SIZES = [(420, 600), (900, 600), (1280, 800), (1920, 1080)]
LONG_LINE = "result = compute(" + ", ".join(f"argument_{i}" for i in range(40)) + ")  # 很长的一行"
CODE = f"def main():\n    {LONG_LINE}\n    return 0"
REPLY = f"看这段代码：\n\n```python\n{CODE}\n```\n\n还有一段：\n\n```\nshort\n```\n\n完了。"
WIDE_TABLE = ("| " + " | ".join(f"column_header_number_{i}" for i in range(10)) + " |\n"
              + "|" + "---|" * 10 + "\n"
              + "| " + " | ".join(f"https://example.com/a/very/long/path/{i}" for i in range(10)) + " |")


@pytest.fixture
def panel(qtbot):
    controller = ChatController()
    widget = ChatPanel(controller)
    widget.setStyleSheet(stylesheet("light"))
    qtbot.addWidget(widget)
    widget.show()
    yield widget
    controller.deleteLater()


def _in_view(view, widget) -> QRect:
    return QRect(widget.mapTo(view.viewport(), QPoint(0, 0)), widget.size())


def _unreachable_lines(view) -> list[str]:
    """Every code line that can be neither seen nor scrolled to, and every code block that sticks
    out of its bubble or the chat's viewport."""
    found = []
    for bubble in view.bubbles:
        for block in bubble.findChildren(CodeBlock):
            editor = block.editor
            bar = editor.horizontalScrollBar()
            reach = editor.viewport().width() + bar.maximum()
            metrics = editor.fontMetrics()
            for line in block.code.split("\n"):
                need = metrics.horizontalAdvance(line) + 2 * editor.document().documentMargin()
                if need > reach + 1:
                    found.append(f"{line[:30]!r}: needs {need}px, reaches {reach}")
            if editor.verticalScrollBar().maximum() > 0:
                found.append(f"block {block.language!r}: lines hidden below (vertical range "
                             f"{editor.verticalScrollBar().maximum()})")
            where = _in_view(view, block)
            if not _in_view(view, bubble).contains(where):
                found.append(f"block {block.language!r} {where} outside its bubble")
            if where.left() < 0 or where.right() > view.viewport().width():
                found.append(f"block {block.language!r} {where} outside the viewport")
    return found


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("stream", [False, True], ids=["set", "streamed"])
def test_every_code_line_is_visible_or_scrollable(panel, size, stream):
    panel.resize(*size)
    process_events()
    view = panel.view
    view.add_message("user", "code")
    reply = view.add_reply("code")
    if stream:
        stream_reply(reply, REPLY, 7, lambda: _unreachable_lines(view))
    else:
        reply.set_text(REPLY)
    process_events()
    blocks = reply.findChildren(CodeBlock)
    assert [block.code for block in blocks] == [CODE, "short"]
    assert blocks[0].language == "python"
    assert _unreachable_lines(view) == []
    wide = blocks[0]
    if wide.content_width > wide.editor.viewport().width():  # the long line scrolls: it can be reached
        bar = wide.editor.horizontalScrollBar()
        assert bar.isVisibleTo(wide) and bar.maximum() > 0
    # after a resize too
    panel.resize(size[0] // 2 + 200, size[1])
    process_events()
    assert _unreachable_lines(view) == []


def test_copy_button_copies_only_that_block(panel, qtbot):
    panel.resize(900, 600)
    reply = panel.view.add_reply("code")
    reply.set_text(REPLY)
    process_events()
    first, second = reply.findChildren(CodeBlock)
    QGuiApplication.clipboard().clear()
    qtbot.mouseClick(second.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == "short"
    assert second.copy_button.text() == "已复制"  # it says so
    qtbot.mouseClick(first.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == CODE
    qtbot.waitUntil(lambda: second.copy_button.text() == "复制", timeout=3000)


def test_fence_parts_of_an_unclosed_fence_run_to_the_end():
    assert fence_parts("```js\nlet a = 1;\n```") == ("js", "let a = 1;")
    assert fence_parts("```\nstill\nstreaming") == ("", "still\nstreaming")
    assert fence_parts("~~~ text extra\nx\n~~~") == ("text", "x")


def test_table_has_borders_and_padding():
    rendered = render_markdown("| 名字 | 数量 |\n|---|--:|\n| 苹果 | 3 |")
    assert 'border="1"' in rendered and 'cellpadding="6"' in rendered
    assert 'align="right"' in rendered and 'valign="middle"' in rendered
    doc = QTextDocument()
    doc.setHtml(rendered)
    table = doc.rootFrame().childFrames()[0]
    assert table.frameFormat().border() >= 1 and table.format().cellPadding() == 6


@pytest.mark.parametrize("size", [(420, 600), (900, 600)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_wide_table_fits_or_scrolls(panel, size):
    panel.resize(*size)
    process_events()
    reply = panel.view.add_reply("table")
    reply.set_text("表格：\n\n" + WIDE_TABLE + "\n\n完。")
    process_events()
    (table,) = reply.findChildren(WideText)
    label = table.label
    reach = table.viewport().width() + table.horizontalScrollBar().maximum()
    assert label.width() <= reach  # every column can be scrolled to
    assert label.heightForWidth(label.width()) <= label.height()  # no row cut off
    assert table.width() <= table.width_limit  # the scroll area itself stays inside the bubble
    assert _in_view(panel.view, reply).contains(_in_view(panel.view, table))


def _list_blocks(markdown: str) -> dict[str, tuple[int, str]]:
    doc = QTextDocument()
    doc.setHtml(render_markdown(markdown))
    out = {}
    block = doc.begin()
    while block.isValid():
        text_list = block.textList()
        out[block.text().strip()] = ((text_list.format().indent(), text_list.itemText(block))
                                     if text_list is not None else (0, ""))
        block = block.next()
    return out


@pytest.mark.parametrize("indent", [2, 3, 4])
def test_nested_lists_render_nested(indent):
    pad = " " * indent
    markdown = (f"1. 第一项\n{pad}- 子项 A\n{pad}- 子项 B\n2. 第二项\n{pad}1. 子编号一\n{pad}2. 子编号二\n\n"
                "正文\n\n- 顶层无序\n- 第二个")
    blocks = _list_blocks(markdown)
    assert not any(re.match(r"^[-*] ", text) for text in blocks), blocks
    top, sub = blocks["第一项"][0], blocks["子项 A"][0]
    assert sub > top >= 1
    assert blocks["第二项"] == (top, "2.")
    assert blocks["子编号一"] == (sub, "1.") and blocks["子编号二"] == (sub, "2.")
    assert blocks["顶层无序"][0] == top and not blocks["顶层无序"][1][:1].isdigit()


def test_an_ordered_list_keeps_its_first_number():
    assert _list_blocks("3. 三\n4. 四")["三"][1] == "3."


def test_a_list_item_continued_after_a_blank_line_stays_in_its_list():
    blocks = _list_blocks("1. 第一项\n\n   续写的一段\n\n   - 子项\n2. 第二项")
    assert blocks["续写的一段"][0] == 0  # a paragraph of the item, not a code block
    assert blocks["子项"][0] > blocks["第一项"][0]
    assert blocks["第二项"][1] == "2."


def test_a_table_is_a_piece_of_its_own(panel):
    """Only the table scrolls sideways: the list after it is ordinary text (it shared the table's
    scroll area, with a scroll bar under the list)."""
    from sonetto_desktop.ui.chat.bubble_text import BubbleText

    reply = panel.view.add_reply("x")
    reply.set_text("| a | b |\n|---|--:|\n| 1 | 2 |\n\n1. 准备\n   - 子项")
    process_events()
    (table,) = reply.findChildren(WideText)
    assert "准备" not in table.text()
    assert any("准备" in piece.text() for piece in reply.label.pieces if type(piece) is BubbleText)
    assert not table.horizontalScrollBar().isVisibleTo(table)  # it fits: no scroll bar
