"""Chat bubbles are sized to their content: nothing is cut off at any window size, while a reply
streams or after a resize, in the main chat, in quick chat and in error boxes; a short message is
one line, not a narrow column."""

from __future__ import annotations

import asyncio
import time

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel

from shell_fixtures import OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS, running_engine
from helpers import process_events, settle, stream_reply
from sonetto_desktop.ui.chat.controller import ChatController
from sonetto_desktop.ui.chat.panel import ChatPanel
from sonetto_desktop.ui.tray.quick_chat import QuickChat
from sonetto_desktop.ui.theme import stylesheet

SIZES = [(900, 600), (1280, 800), (1920, 1080)]
LONG = ("这是一段很长的回复，会在气泡里换好几行。" * 12 + "\n\n第二段 with some English words that wrap too. " * 4
        + "\n\n- 第一项\n- 第二项 **加粗**\n\n```\ncode line\n```\n\n最后一段。")
SHORT = "你好呀，今天过得怎么样？"
MEMORIES = [{"id": f"m{i}", "description": f"第 {i} 条被想起的记忆", "theme": "生活"} for i in range(9)]


def _problems(view, *, texts_only: bool = False) -> list[str]:
    """Every text part of every bubble whose content does not fit the space it was given."""
    found = []
    for n, bubble in enumerate(view.bubbles):
        inside = bubble.rect()
        for label in bubble.findChildren(QLabel):
            if not label.isVisibleTo(bubble) or not label.text():
                continue
            need = label.heightForWidth(label.width())
            where = label.geometry().translated(label.parentWidget().mapTo(bubble, label.pos()) - label.pos())
            if need > label.height():
                found.append(f"bubble {n} ({bubble.role}) {label.objectName()!r}: needs {need}px, has {label.height()}")
            if not texts_only and not inside.contains(where):
                found.append(f"bubble {n} ({bubble.role}) {label.objectName()!r}: {where} outside {inside}")
        if texts_only:
            continue
        if bubble.chips.isVisibleTo(bubble):
            if bubble.chip_layout.heightForWidth(bubble.chips.width()) > bubble.chips.height():
                found.append(f"bubble {n}: memory chips cut off")
        if bubble.height() < bubble.minimumSizeHint().height():
            found.append(f"bubble {n}: {bubble.height()}px tall, needs {bubble.minimumSizeHint().height()}")
    return found


@pytest.fixture
def panel(qtbot):
    controller = ChatController()
    widget = ChatPanel(controller)
    widget.setStyleSheet(stylesheet("light"))
    qtbot.addWidget(widget)
    widget.show()
    yield widget
    controller.deleteLater()


def _fill(view, *, stream: bool) -> None:
    view.add_message("user", SHORT)
    reply = view.add_reply(SHORT)
    if stream:
        stream_reply(reply, LONG, 9, lambda: _problems(view))
    else:
        reply.set_text(LONG)
    reply.set_memories(MEMORIES)
    view.add_message("user", "再说一遍")
    failed = view.add_reply("再说一遍")
    failed.set_error("出错了：模型服务返回了一个很长的错误说明，" * 6)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("stream", [False, True], ids=["set", "streamed"])
def test_every_bubble_fits_its_content(panel, size, stream):
    panel.resize(*size)
    process_events()
    _fill(panel.view, stream=stream)
    process_events()
    assert _problems(panel.view) == []


@pytest.mark.parametrize("start, end", [((1920, 1080), (900, 600)), ((900, 600), (1920, 1080)),
                                        ((1280, 800), (700, 500))])
def test_bubbles_refit_after_a_resize(panel, start, end):
    panel.resize(*start)
    process_events()
    _fill(panel.view, stream=False)
    process_events()
    panel.resize(*end)
    process_events()
    assert _problems(panel.view) == []
    reply = panel.view.bubbles[1]
    assert reply.width() <= panel.view.viewport().width()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_short_message_stays_on_one_line(panel, size):
    panel.resize(*size)
    process_events()
    bubble = panel.view.add_message("user", SHORT)
    process_events()
    label = bubble.label
    line = label.fontMetrics().lineSpacing()
    assert label.height() < 2 * line, f"{SHORT!r} wrapped: {label.width()}x{label.height()}"
    assert label.width() >= label.fontMetrics().horizontalAdvance(SHORT)


@pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS)
def test_quick_chat_bubbles_fit(qtbot):
    controller = ChatController()
    popup = QuickChat(controller)
    popup.setStyleSheet(stylesheet("dark"))
    qtbot.addWidget(popup)
    popup.show()
    process_events()
    _fill(popup.view, stream=True)
    process_events()
    assert _problems(popup.view) == []
    controller.deleteLater()


async def test_a_streamed_reply_from_the_model_fits_at_900x600(tmp_path, llm_server, make_llm, qtbot, wait):
    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        controller = ChatController()
        panel = ChatPanel(controller)
        panel.setStyleSheet(stylesheet("light"))
        qtbot.addWidget(panel)
        panel.resize(900, 600)
        panel.show()
        await controller.attach(parts[2])
        # The reply streams for at least 1.6 s (40 chunks, 40 ms apart) whatever the machine's load,
        # so the checks below see it mid-stream several times (it finished before a third poll once).
        llm_server.chunk_size, llm_server.chunk_delay = 12, 0.04
        llm_server.add_text(LONG)
        panel.composer.set_text("讲讲")
        panel.composer.submit()
        seen = []
        await wait(lambda: controller.busy, message="turn started")
        deadline = time.monotonic() + 60
        while controller.busy:  # while it streams, every text part has the height its text needs
            assert time.monotonic() < deadline, "the reply never ended"
            await asyncio.sleep(0.03)  # (the loop runs Qt's events meanwhile: no processEvents here)
            if len(panel.view.bubbles) == 2 and panel.view.bubbles[1].text:
                seen.append(_problems(panel.view, texts_only=True))
        await asyncio.sleep(0.2)
        assert len(seen) > 3  # checked while it streamed
        assert panel.view.bubbles[1].text == LONG
        assert [p for p in seen if p] == []
        assert _problems(panel.view) == []
        controller.deleteLater()


@pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS)
@pytest.mark.parametrize("language", ["zh_CN", "en"])
async def test_at_the_windows_smallest_size_the_chat_still_fits_its_column(qapp, tmp_path, language):
    """At the window's smallest size (~805x560 in English: the session list and the wall at their own
    minimum) the chat column is 160-200 px: the bubbles kept a 160 px floor inside 18 px margins and sat
    behind a horizontal scroll bar, cut at the right (seen in a real window: an error's words cut to
    "replyin", "agai", the 重试 button half hidden). Every bubble fits the column, no sideways scrolling."""
    from shell_fixtures import app_settings, running_app

    async with running_app(qapp, app_settings(tmp_path / "data", language=language)) as app:
        window = app.window
        window.chat_stack.setCurrentWidget(window.chat_panel)  # the chat (no model: the welcome otherwise)
        window.show()
        view = window.chat_panel.view
        for n in range(4):  # a transcript taller than the view: the vertical scroll bar takes its width too
            view.add_message("user", f"第 {n} 条消息，说得长一点，好让它换行")
            view.add_reply(SHORT).set_text(LONG if n == 0 else SHORT)
        view.add_message("user", "在吗")
        view.add_reply("在吗").set_error(
            "模型在 15 秒内没有开始回复，已停止等待。可以稍后再试；如果是本地模型正在加载，可以在“设置”里调大“首字超时”。"
            if language == "zh_CN" else "The model did not start replying within 15 s, so Sonetto stopped waiting. "
            "Try again later; if a local model is still loading, raise the first-token timeout in Settings.")
        window.resize(window.minimumSizeHint().width(), 560)
        await asyncio.sleep(0.1)  # laid out at that size
        await settle()
        # (800 until the wall's search box kept its whole placeholder, "Search", with its icon and the
        # clear button's room: 805 in English, 759 in Chinese)
        assert window.width() <= 810, window.width()
        assert view.verticalScrollBar().isVisible()
        assert not view.horizontalScrollBar().isVisible(), (view.viewport().width(), view.widget().minimumSizeHint())
        assert _problems(view) == []
        for bubble in view.bubbles:
            right = bubble.mapTo(view.viewport(), bubble.rect().topRight()).x()
            assert right < view.viewport().width(), (bubble.role, right, view.viewport().width())


URL = "https://example.com/very/long/path/" + "abcdef0123456789" * 12
HASH = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
UNBROKEN = f"看这个：{URL} 还有哈希 {HASH}{HASH} 以及 Donaudampfschifffahrtsgesellschaftskapitänsmützenabzeichen。"


def _overflowing(view) -> list[str]:
    """Every text part whose laid-out text is wider than the part (a word that did not wrap: cut off)."""
    found = []
    for n, bubble in enumerate(view.bubbles):
        for label in bubble.findChildren(QLabel):
            if not label.isVisibleTo(bubble) or not label.text():
                continue
            label.grab()  # painted: laid out at its own width, as the person sees it
            document = label.findChild(QTextDocument)
            room = label.contentsRect().width()
            if document is not None:
                wide = document.idealWidth()
            else:  # a plain label draws its text itself
                wide = label.fontMetrics().boundingRect(QRect(0, 0, room, 1 << 20), Qt.TextFlag.TextWordWrap,
                                                        label.text()).width()
            if wide > room + 1:
                found.append(f"bubble {n} ({bubble.role}) {label.objectName()!r}: text {wide:.0f}px wide in a "
                             f"{room}px label")
    return found


@pytest.mark.parametrize("stream", [False, True], ids=["set", "streamed"])
@pytest.mark.parametrize("times", [1, 3], ids=["short", "long"])  # long: a piece over bubble_text.LONG_TEXT
def test_a_long_unbroken_word_wraps_at_the_smallest_width(panel, stream, times):
    panel.resize(900, 600)
    process_events()
    text = " ".join([UNBROKEN] * times)
    user = panel.view.add_message("user", f"打开 {URL} 看看" * times)
    reply = panel.view.add_reply("打开")
    if stream:
        stream_reply(reply, text, 7, lambda: _overflowing(panel.view))
    else:
        reply.set_text(text)
    failed = panel.view.add_reply("再试")
    failed.set_error(f"连不上模型服务：{URL}/v1/chat/completions")
    process_events()
    assert _overflowing(panel.view) == []
    assert _problems(panel.view) == []
    # what is shown (and selected, and copied) is the text itself: nothing inserted to make it wrap
    label = user.label
    label.setSelection(0, len(label.text()))
    assert label.selectedText() == f"打开 {URL} 看看" * times
    assert reply.text == text


def test_a_word_that_fits_still_wraps_at_spaces(panel):
    """Breaking anywhere is only for a word wider than the line: ordinary words move whole."""
    panel.resize(900, 600)
    process_events()
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma " * 3
    bubble = panel.view.add_message("user", words.strip())
    process_events()
    label = bubble.label
    label.grab()
    document = label.findChild(QTextDocument)
    block = document.firstBlock()
    layout = block.layout()
    for i in range(layout.lineCount() - 1):
        line = layout.lineAt(i)
        end = line.textStart() + line.textLength()
        assert block.text()[end - 1] == " ", f"line {i} broke inside a word: {block.text()[line.textStart():end]!r}"


def test_a_memory_chip_wider_than_a_narrow_bubble_is_shortened_not_cut(qtbot):
    """At 900x600 a recalled memory's chip ("小林约了12月15日上午十点的…") was wider than a short reply's
    bubble and cut off at its edge, its right border gone; it is shortened with … to fit, and whole
    again when the bubble may be wider."""
    from sonetto_desktop.ui.chat.message_bubble import MessageBubble, chip_text

    description = "小林约了12月15日上午十点的眼科检查"
    bubble = MessageBubble("assistant", "[]", max_width=200)
    bubble.setStyleSheet(stylesheet("light"))
    qtbot.addWidget(bubble)
    bubble.show()
    bubble.set_memories([{"id": "m1", "description": description, "theme": "时效待办"},
                         {"id": "m2", "description": "喜欢猫", "theme": "品味"}])
    process_events()
    for chip in bubble.chip_buttons():
        assert chip.geometry().right() < bubble.chips.width(), f"{chip.text()!r} runs past the bubble"
        assert chip.width() >= chip.sizeHint().width(), f"{chip.text()!r} is cut off"
    long_chip, short_chip = bubble.chip_buttons()
    assert long_chip.text().endswith("…") and short_chip.text() == "喜欢猫"
    bubble.set_max_width(700)
    process_events()
    assert long_chip.text() == chip_text(description)


@pytest.mark.parametrize("width", [700, 200])
def test_chips_of_near_identical_memories_can_be_told_apart(qtbot, width):
    """Undo16: two recalled memories that start alike were both cut to "User allergic t…", so the chips
    under a reply could not be told apart. Each shows where it differs (its start, then "…" and the part
    that differs), in a wide bubble and a narrow one, and its tooltip holds the whole text."""
    from sonetto_desktop.ui.chat.message_bubble import MessageBubble

    memories = [{"id": "m1", "description": "User allergic to peanuts, carries an EpiPen", "theme": "健康"},
                {"id": "m2", "description": "User allergic to penicillin since childhood", "theme": "健康"},
                {"id": "m3", "description": "喜欢猫", "theme": "品味"}]
    bubble = MessageBubble("assistant", "[]", max_width=width)
    bubble.setStyleSheet(stylesheet("light"))
    qtbot.addWidget(bubble)
    bubble.show()
    bubble.set_memories(memories)
    process_events()
    chips = bubble.chip_buttons()
    texts = [chip.text() for chip in chips]
    assert len(set(texts)) == 3, texts
    assert "peanut" in texts[0] and "penicillin"[:5] in texts[1] and texts[2] == "喜欢猫", texts
    for chip, memory in zip(chips, memories, strict=True):
        assert memory["description"] in chip.toolTip()
        assert chip.geometry().right() < bubble.chips.width(), f"{chip.text()!r} runs past the bubble"
        assert chip.width() >= chip.sizeHint().width(), f"{chip.text()!r} is cut off"


def test_chip_texts_show_where_memories_differ_and_leave_the_rest_alone():
    from sonetto_desktop.ui.chat.message_bubble import chip_text, chip_texts

    same = "用户对青霉素过敏，小时候打针后起过疹子"
    shown = chip_texts([same + "需要注意", same + "但已好转", "喜欢猫", "x" * 20, "x" * 20])
    assert shown[0].endswith("需要注意") and shown[1].endswith("但已好转") and shown[0] != shown[1]
    assert shown[2] == "喜欢猫"
    assert shown[3] == shown[4] == chip_text("x" * 20)  # the same text twice: nothing differs to show
    one, longer = chip_texts(["User allergic to peanut", "User allergic to peanuts and shellfish"])
    assert one != longer and one.endswith("peanut") and "peanuts" in longer
    assert chip_texts(["User allergic to peanuts, carries an EpiPen"]) == [chip_text("User allergic to peanuts, carries an EpiPen")]
