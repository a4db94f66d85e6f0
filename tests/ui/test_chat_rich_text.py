"""Model text in a bubble: no image (local or remote) is ever loaded, only http(s) links open and only
after the URL was shown; hostile Markdown (10k ``[``, 500-deep nesting) renders, bounded, as text.
How fast is measured in bench/markdown_render.py, not here."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication, QMessageBox

from sonetto_desktop.ui.chat.view import ChatView
from sonetto_desktop.ui.chat.link_confirm import confirm_open_link
from sonetto_desktop.ui.chat.markdown_render import MAX_BLOCK_CHARS, chunks, render_markdown


@pytest.mark.parametrize("text", [
    "看这张图 ![猫](file:///etc/passwd)",
    "![](/home/user/.ssh/id_rsa)",
    "![远程](https://example.com/track.png)",
    "![ref][1]\n\n[1]: file:///etc/hosts",
    "![x]",
])
def test_no_image_is_ever_rendered(text):
    assert "<img" not in render_markdown(text).lower()


@pytest.mark.parametrize("url", ["file:///etc/passwd", "smb://server/share", "javascript:alert(1)",
                                 "relative/page.html", "qrc:/icons/app.svg", "data:text/html,hi"])
def test_only_http_links_keep_their_target(url):
    rendered = render_markdown(f"[点这里]({url}) 和 <{url}>")
    assert "href" not in rendered
    assert "点这里" in rendered


def test_http_links_stay_links():
    rendered = render_markdown("[文档](https://example.com/a?b=1) 和 [旧站](http://example.org)")
    assert 'href="https://example.com/a?b=1"' in rendered and 'href="http://example.org"' in rendered


class _Browser(QObject):
    """Stands in for the desktop's browser: Qt hands it every http(s) URL opened by the app."""

    def __init__(self) -> None:
        super().__init__()
        self.opened: list[str] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.opened.append(url.toString())


@pytest.fixture
def browser():
    receiver = _Browser()
    for scheme in ("http", "https", "file", "smb"):
        QDesktopServices.setUrlHandler(scheme, receiver, "open")
    yield receiver
    for scheme in ("http", "https", "file", "smb"):
        QDesktopServices.unsetUrlHandler(scheme)


def _boxes() -> list[QMessageBox]:
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]


def test_a_link_opens_only_after_the_url_was_shown(qtbot, browser):
    view = ChatView()
    qtbot.addWidget(view)
    view.show()
    bubble = view.add_reply("hi")
    bubble.set_text("[文档](https://example.com/docs)")
    assert not any(piece.openExternalLinks() for piece in bubble.label.pieces)
    shown = []
    view.link_activated.connect(lambda url: shown.append(confirm_open_link(view, url)))
    bubble.label.pieces[0].linkActivated.emit("https://example.com/docs")
    box = shown[-1]
    assert box is not None and "https://example.com/docs" in box.text()
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
    assert browser.opened == []
    box.button(QMessageBox.StandardButton.Open).click()
    assert browser.opened == ["https://example.com/docs"]


@pytest.mark.parametrize("url", ["file:///etc/passwd", "smb://server/share", " FILE:///x"])
def test_other_schemes_never_open(qtbot, browser, url):
    view = ChatView()
    qtbot.addWidget(view)
    assert confirm_open_link(view, url) is None
    assert _boxes() == [] and browser.opened == []


@pytest.mark.parametrize("text", [
    "[" * 10_000,
    ">" * 500 + " 很深",
    "".join("  " * i + "- 层\n" for i in range(500)),
    "[" * 500 + "x" + "](y)" * 500,
    "*" * 500 + "x" + "*" * 500,
    ("正常的一段，带[链接](https://a.b)。\n\n" * 3000),
])
def test_hostile_markdown_renders_bounded_without_errors(text):
    rendered = render_markdown(text)  # no RecursionError, no quadratic parse (see the bench)
    assert rendered
    for mark in "[>*":
        if text.count(mark) >= 500:
            assert rendered.count(mark) + rendered.count("&gt;" if mark == ">" else mark) >= text.count(mark) // 2


def test_long_replies_are_cut_into_small_chunks_that_stay_the_same_while_streaming():
    text = "一段话，有**重点**。\n\n" * 2000
    parts = chunks(text)
    assert len(parts) > 10 and all(len(p) <= MAX_BLOCK_CHARS for p in parts)
    assert chunks(text + "再多一句")[:-1] == parts[:-1]  # streaming re-renders only the end
