"""The chat panel's search over all chats and its Markdown export, against a real engine."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from shell_fixtures import running_engine
from sonetto_desktop.ui.chat.panel import ID_ROLE


async def _talk(panel, controller, llm_server, text, reply, wait):
    llm_server.add_text(reply)
    panel.composer.set_text(text)
    panel.composer.submit()
    await wait(lambda: controller.busy, message="turn started")
    await wait(lambda: not controller.busy, timeout=10, message="turn finished")


async def _cat_chat_then_a_hike_chat(panel, controller, llm_server, wait) -> str:
    """Two chats, each one turn (年糕, then 爬山, the one shown); the cat chat's id."""
    await _talk(panel, controller, llm_server, "我的猫叫年糕", "年糕真可爱", wait)
    cat = controller.current_session_id
    await panel.new_session()
    await _talk(panel, controller, llm_server, "周末去爬山", "记得带水", wait)
    return cat


async def test_search_filters_the_session_list_and_esc_ends_it(tmp_path, llm_server, make_llm, panel_factory,
                                                                qtbot, wait):
    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        controller, panel = panel_factory()
        await controller.attach(parts[2])
        cat = await _cat_chat_then_a_hike_chat(panel, controller, llm_server, wait)
        await panel.new_session()
        await wait(lambda: len(panel.session_ids()) == 3)

        panel.search_box.setText("年糕")  # as typed (keyClicks is ASCII-only)
        await wait(lambda: panel.session_ids() == [cat], message="filtered to the cat chat")
        assert "年糕" in panel.session_list.item(0).toolTip()
        assert not panel.no_hits.isVisible()

        panel.search_box.setText("没有这个词")
        await wait(lambda: panel.session_ids() == [], message="nothing matches")
        assert panel.no_hits.isVisible()

        panel.search_box.setFocus()
        qtbot.keyClick(panel.search_box, Qt.Key.Key_Escape)
        assert panel.search_box.text() == ""
        assert len(panel.session_ids()) == 3

        panel.search_box.setText("带水")  # as typed (keyClicks is ASCII-only)
        await wait(lambda: len(panel.session_ids()) == 1)
        panel.session_list.setCurrentRow(0)
        await wait(lambda: controller.current_session_id == panel.session_list.item(0).data(ID_ROLE))
        await wait(lambda: [b.text for b in panel.view.bubbles] == ["周末去爬山", "记得带水"])


async def test_export_writes_the_chosen_file(tmp_path, llm_server, make_llm, panel_factory, wait):
    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        controller, panel = panel_factory()
        await controller.attach(parts[2])
        await _talk(panel, controller, llm_server, "我的猫叫年糕", "年糕**真可爱**", wait)
        dialog = panel.choose_export_file()
        assert isinstance(dialog, QFileDialog) and dialog.isVisible()
        assert dialog.acceptMode() == QFileDialog.AcceptMode.AcceptSave
        target = tmp_path / "年糕.md"
        dialog.fileSelected.emit(str(target))  # what choosing a file and pressing Save does
        dialog.close()
        await wait(lambda: target.exists(), message="exported")
        text = target.read_text(encoding="utf-8")
        assert "我的猫叫年糕" in text and "年糕**真可爱**" in text


async def test_a_failed_export_is_reported(tmp_path, llm_server, make_llm, panel_factory, wait):
    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        controller, panel = panel_factory()
        await controller.attach(parts[2])
        failures = []
        controller.operation_failed.connect(failures.append)
        await panel.export_chat(controller.current_session_id, str(tmp_path / "missing" / "x.md"))
        assert failures


async def test_a_message_hit_jumps_to_the_message(tmp_path, llm_server, make_llm, panel_factory, qtbot, wait):
    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        controller, panel = panel_factory()
        await controller.attach(parts[2])
        long = "\n\n".join("一段很长的回答，让这段对话需要滚动才能读完。" * 3 for _ in range(8))
        for i in range(8):
            text = "我的猫叫年糕，它很调皮" if i == 3 else f"随便聊聊 {i}"
            await _talk(panel, controller, llm_server, text, long, wait)
        cat_chat = controller.current_session_id
        await panel.new_session()
        await _talk(panel, controller, llm_server, "周末去爬山", "记得带水", wait)

        panel.search_box.setText("猫，年糕")  # Chinese punctuation between the words
        await wait(lambda: panel.message_hits(), message="a message found")
        assert panel.session_ids() == [cat_chat]
        [row] = panel.message_hits()
        assert "年糕" in row.text() and row.text().strip().startswith("你")
        panel.search_box.setFocus()
        qtbot.keyClick(panel.search_box, Qt.Key.Key_Return)  # Enter: to the first message found
        await wait(lambda: controller.current_session_id == cat_chat, message="that chat is open")
        view = panel.view
        await wait(lambda: not any(b.label.pending for b in view.bubbles if b.role == "assistant"), timeout=10)
        bubble = next(b for b in view.bubbles if b.text == "我的猫叫年糕，它很调皮")
        top = bubble.mapTo(view.viewport(), bubble.rect().topLeft()).y()
        await wait(lambda: 0 <= bubble.mapTo(view.viewport(), bubble.rect().topLeft()).y() < view.viewport().height(),
                   message=f"the message in view ({top})")
        assert bubble.property("highlighted")
        assert view.verticalScrollBar().value() < view.verticalScrollBar().maximum()  # not just the end


async def test_a_new_chat_made_while_searching_is_in_the_list(tmp_path, llm_server, make_llm, panel_factory, wait):
    """Searching 年糕 lists only that chat; 新对话 then opened a chat the list did not show (no row, no
    selection: where did it go?), and its reply did not bring it either. The chat shown is always
    listed: a chat the search hides ends the search."""
    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        controller, panel = panel_factory()
        await controller.attach(parts[2])
        cat = await _cat_chat_then_a_hike_chat(panel, controller, llm_server, wait)
        panel.search_box.setText("年糕")
        await wait(lambda: panel.session_ids() == [cat], message="filtered to the cat chat")

        await panel.new_session()
        new = controller.current_session_id
        assert new != cat
        await wait(lambda: new in panel.session_ids(), message="the new chat listed")
        current = panel.session_list.currentItem()
        assert current is not None and current.data(ID_ROLE) == new
        assert panel.search_box.text() == "" and len(panel.session_ids()) == 3


async def test_search_tooltips_show_the_chats_words_as_written(tmp_path, llm_server, make_llm, panel_factory, wait):
    """A chat about markup ("<b>年糕</b>…", pasted code, a reply with HTML): the search's tooltips (the
    chat's, the message's) laid its words out as rich text (the tags gone, the rest bold, an <img> loaded).
    They show the words as written."""
    from PySide6.QtGui import QTextDocument

    def as_shown(tip: str) -> str:
        document = QTextDocument()
        document.setHtml(tip)
        return document.toPlainText()

    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        controller, panel = panel_factory()
        await controller.attach(parts[2])
        await _talk(panel, controller, llm_server, "<b>年糕</b> 是我的猫", "好的", wait)
        panel.search_box.setText("年糕")
        await wait(lambda: panel.message_hits(), message="a message found")
        [row] = panel.message_hits()
        assert "<b>年糕</b>" in as_shown(row.toolTip()), row.toolTip()
        assert "<b>年糕</b>" in as_shown(panel.session_list.item(0).toolTip()), panel.session_list.item(0).toolTip()
