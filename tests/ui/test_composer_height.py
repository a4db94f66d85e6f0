"""The message input shows three whole lines (the placeholder too) in either theme, whatever the
style sheet's padding and border add: it was four pixels short, so a narrow window cut the third
line of the placeholder ("和 Sonetto 说点什么…（Enter 发送，Shift+Enter 换行）") in half."""

from __future__ import annotations

import pytest

from sonetto_desktop.ui.chat.composer import Composer


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_the_input_shows_three_whole_lines(theme, qtbot, mode):
    theme.set_setting(mode)
    composer = Composer()
    qtbot.addWidget(composer)
    composer.resize(260, 120)  # a narrow window: the placeholder takes three lines
    composer.show()
    qtbot.waitExposed(composer)
    editor = composer.input
    editor.setPlainText("第一行\n第二行\n第三行")
    assert editor.verticalScrollBar().maximum() == 0  # three lines of Chinese need no scrolling
    editor.setPlainText("第一行\n第二行\n第三行\n第四行")
    assert editor.verticalScrollBar().maximum() == 1  # and the input is no taller: a fourth scrolls
    editor.setPlainText("第一行\n第二行\n第三行")
    editor.setFocus()
    qtbot.waitUntil(editor.hasFocus)
    assert editor.verticalScrollBar().maximum() == 0  # the focus ring changes no size


@pytest.mark.parametrize("language", ["chinese", "english"])
def test_the_placeholder_is_never_cut_in_a_narrow_chat(theme, qtbot, request, language):
    """At the window's smallest size the input is about 80 px wide: the hint ("Talk to Sonetto… (Enter
    to send, Shift+Enter: new line)") took five lines in an input of three and was cut mid-sentence
    (seen in a real window at 800x560). Where it does not fit, the input shows its short form."""
    from sonetto_desktop.ui.chat.composer import placeholder_lines

    request.getfixturevalue(language)
    theme.set_setting("light")  # the app's style sheet: its padding is part of the input's width
    composer = Composer()
    qtbot.addWidget(composer)
    composer.show()
    qtbot.waitExposed(composer)
    editor = composer.input
    for width, whole in ((600, True), (200, False)):
        composer.resize(width, 120)
        qtbot.waitUntil(lambda width=width: editor.width() < width)
        hint = editor.placeholderText()
        assert placeholder_lines(editor) <= 3, (width, hint)
        assert ("Enter" in hint) == whole, (width, hint)
