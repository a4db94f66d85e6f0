"""The settings page "回忆": the recall budget and the embeddings model are saved (the key in secret
storage, never in settings.json), a preset fills the endpoint, the test button asks the embeddings
endpoint for real (the scripted server) or runs the built-in model, the page says what runs on this
platform (one without the built-in model: a constructor parameter), and a local chat server's
embeddings models are listed from its own API."""

from __future__ import annotations

from sonetto_desktop.config.settings import Settings, config_dir
from sonetto_desktop.ui.settings.dialog import SettingsDialog


def _pick(combo, value):
    combo.setCurrentIndex(combo.findData(value))
    combo.activated.emit(combo.currentIndex())


async def test_the_page_saves_the_budget_and_the_embeddings_model(qtbot):
    d = SettingsDialog(Settings.load())
    qtbot.addWidget(d)
    page = d.recall_page
    assert page.budget_auto.isChecked() and not page.budget.isEnabled() and page.source_builtin.isChecked()
    assert not page.endpoint.isEnabled()  # the endpoint's fields are for the endpoint
    page.budget_auto.setChecked(False)
    assert page.budget.isEnabled()
    page.budget.setValue(20_000)
    page.source_endpoint.setChecked(True)
    assert page.endpoint.isEnabled()
    _pick(page.preset, "dashscope-v3")
    assert page.base_url.text() == "https://dashscope.aliyuncs.com/compatible-mode/v1"
    assert page.model.text() == "text-embedding-v3"
    page.api_key.setText("sk-dashscope-embedding-SECRET")
    page.dimensions.setValue(512)
    assert await d.save()
    again = Settings.load()
    assert (again.recall_budget_tokens, again.embeddings_source, again.embeddings_preset) == (20_000, "endpoint",
                                                                                               "dashscope-v3")
    assert (again.embeddings_model, again.embeddings_dimensions) == ("text-embedding-v3", 512)
    assert again.embeddings_api_key == "sk-dashscope-embedding-SECRET"
    assert "SECRET" not in (config_dir() / "settings.json").read_text(encoding="utf-8")
    reopened = SettingsDialog(again)
    qtbot.addWidget(reopened)
    assert reopened.recall_page.budget.value() == 20_000 and reopened.recall_page.source_endpoint.isChecked()
    assert reopened.recall_page.api_key.text() == "sk-dashscope-embedding-SECRET" and not reopened.dirty()


async def test_an_embeddings_model_without_a_name_is_refused(qtbot):
    d = SettingsDialog(Settings.load())
    qtbot.addWidget(d)
    d.recall_page.source_endpoint.setChecked(True)
    assert not await d.save()
    assert "向量模型" in d.error_label.text()


async def _tested_on_the_chats_endpoint(qtbot, llm_server):
    """The 回忆 page of a settings dialog on the scripted server, its embeddings model tested once."""
    d = SettingsDialog(Settings(base_url=llm_server.base_url, model="test-model", api_key="sk-test"))
    qtbot.addWidget(d)
    page = d.recall_page
    page.source_endpoint.setChecked(True)
    page.model.setText("scripted-embed")
    await page.test_embeddings()
    return page


async def test_the_test_button_asks_the_embeddings_endpoint(qtbot, llm_server):
    page = await _tested_on_the_chats_endpoint(qtbot, llm_server)
    assert page.test_result.text().startswith("✓ 向量模型可用：64 维")
    assert llm_server.embedding_requests[-1]["model"] == "scripted-embed"
    assert llm_server.embedding_headers[-1]["authorization"] == "Bearer sk-test"  # the chat's endpoint and key
    llm_server.embedding_models = ["another"]
    await page.test_embeddings()
    assert page.test_result.text().startswith("✗ 向量模型不可用：服务回答了错误 HTTP 404") and "模型名称" in page.test_result.text()
    assert page.test_button.isEnabled() and not page.last_test.ok


def _latin_words(text: str, *known: str) -> set[str]:
    """English words in ``text`` (names and addresses aside)."""
    import re

    for name in known:
        text = text.replace(name, "")
    return set(re.findall(r"[A-Za-z]{3,}", text)) - {"HTTP", "API", "Ollama", "embeddings"}


async def test_a_failed_test_reads_in_chinese_and_keeps_the_exact_words_in_the_tooltip(qtbot, llm_server, chinese):
    """A failed test said the error's English inside the Chinese sentence ("向量模型不可用：cannot reach
    http://…: All connection attempts failed"): each kind of failure is said from the error's words."""
    from sonetto_desktop.memory.retrieval.builtin_model import E5_SMALL, BuiltinUnavailable
    from sonetto_desktop.memory.retrieval.embeddings import EmbeddingsError, TestResult

    d = SettingsDialog(Settings(base_url=llm_server.base_url, model="test-model", api_key="sk-test"))
    qtbot.addWidget(d)
    page = d.recall_page
    page.source_endpoint.setChecked(True)
    page.model.setText("scripted-embed")
    llm_server.add_embedding_error(401, "Incorrect API key provided")
    await page.test_embeddings()
    text = page.test_result.text()
    assert text == "✗ 向量模型不可用：服务回答了错误 HTTP 401。请检查 API 密钥。", text
    assert "Incorrect API key provided" in page.test_result.toolTip()
    llm_server.embedding_models = ["another"]
    await page.test_embeddings()
    assert not _latin_words(page.test_result.text()), page.test_result.text()
    page.base_url.setText("http://127.0.0.1:9/v1")
    await page.test_embeddings()
    text = page.test_result.text()
    assert text.startswith("✗ 向量模型不可用：连不上 http://127.0.0.1:9/v1") and not _latin_words(text, "http://127.0.0.1:9/v1"), text
    assert "cannot reach" in page.test_result.toolTip()
    page.model.clear()
    await page.test_embeddings()
    assert page.test_result.text() == "✗ 请先填写向量模型的名称和服务地址。" and page.test_result.toolTip() == ""
    late = EmbeddingsError("no answer from http://x/v1 within 20.0 s", words=("timeout", "http://x/v1", "20.0"))
    assert page.tested_text(TestResult(False, "", "", error=late)) == "✗ 向量模型不可用：http://x/v1 在 20.0 秒内没有回答"
    crashed = BuiltinUnavailable(E5_SMALL, "崩溃", "crashed", ("check_crashed", "SIGILL"))
    text = page.tested_text(TestResult(False, "", "", error=crashed, builtin=True))
    assert text.startswith("✗ 内置向量模型在这台电脑上运行不了：加载它的进程崩溃了（SIGILL）") and not _latin_words(text, "SIGILL"), text
    odd = EmbeddingsError("asked for 1 vectors, got 2", words=("count", "1", "2"))
    assert page.tested_text(TestResult(False, "", "", error=odd)) == "✗ 向量模型不可用：要了 1 个向量，回答了 2 个"


async def test_every_test_result_reads_in_english_in_an_english_ui(qtbot, llm_server, english):
    page = await _tested_on_the_chats_endpoint(qtbot, llm_server)
    assert page.test_result.text().startswith("✓ The embeddings model works: 64 dimensions"), page.test_result.text()
    for status in (401, 404, 400, 500):
        llm_server.add_embedding_error(status, "refused")
        await page.test_embeddings()
        text = page.test_result.text()
        assert text.startswith(f"✗ The embeddings model does not work: the service answered HTTP {status}"), text
        assert not any("\u4e00" <= ch <= "\u9fff" for ch in text), text
    page.base_url.setText("http://127.0.0.1:9/v1")
    await page.test_embeddings()
    assert page.test_result.text().startswith("✗ The embeddings model does not work: cannot reach http://127.0.0.1:9/v1")
    page.model.clear()
    await page.test_embeddings()
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in page.test_result.text()), page.test_result.text()
    page.source_off.setChecked(True)
    await page.test_embeddings()
    assert page.test_result.text() == "✗ No embeddings model chosen.", page.test_result.text()


async def test_no_row_of_the_page_is_squeezed_whichever_source_is_chosen(qtbot):
    """The page holds more than the dialog's height with the endpoint's fields: it scrolls instead of
    squeezing its rows below their text's height (seen in a real window: clipped fields, overlapping
    buttons), and the endpoint's fields show only when the endpoint is the source."""
    from PySide6.QtWidgets import QLineEdit, QPushButton, QScrollArea, QTabWidget

    d = SettingsDialog(Settings.load())
    qtbot.addWidget(d)
    d.resize(560, 560)
    d.show()
    page = d.recall_page
    tabs = d.findChild(QTabWidget)
    tabs.setCurrentIndex(next(i for i in range(tabs.count()) if tabs.widget(i).isAncestorOf(page)
                              or tabs.widget(i) is page))

    def squeezed():
        qtbot.wait(20)
        return [w.objectName() or type(w).__name__ + ":" + (w.text() if hasattr(w, "text") else "")
                for w in page.findChildren(QLineEdit) + page.findChildren(QPushButton) if w.isVisible()
                and not w.objectName().startswith("qt_") and w.height() < w.minimumSizeHint().height()]

    assert not page.endpoint.isVisible()
    assert squeezed() == []
    # nothing wider than the page: a label that does not wrap made it scroll sideways and cut the rest
    assert page.minimumSizeHint().width() <= page.parentWidget().width(), page.minimumSizeHint()
    page.source_endpoint.setChecked(True)
    assert page.endpoint.isVisible() and page.base_url.isVisible()
    assert squeezed() == []
    page.source_off.setChecked(True)
    assert not page.endpoint.isVisible()
    assert isinstance(page.parentWidget().parentWidget(), QScrollArea)  # the viewport, then the scroll area


async def test_the_automatic_budget_shown_is_the_one_for_the_chat_models_address(qtbot):
    """Before: 自动 showed the cloud's 48,000 for a local (127.0.0.1) chat model too (issue 38 item 8)."""
    from sonetto_desktop.memory.retrieval.budget import CLOUD_BUDGET, LOCAL_BUDGET_MAX

    d = SettingsDialog(Settings.load())
    qtbot.addWidget(d)
    page = d.recall_page
    d.base_url.setText("http://127.0.0.1:11434/v1")
    assert page.budget_auto.isChecked() and page.budget.value() == LOCAL_BUDGET_MAX
    d.base_url.setText("https://api.deepseek.com/v1")
    assert page.budget.value() == CLOUD_BUDGET
    page.budget_auto.setChecked(False)  # a number of one's own starts from what automatic gave
    page.budget.setValue(20_000)
    d.base_url.setText("http://localhost:1234/v1")
    assert page.budget.value() == 20_000  # a set number is never changed for the person
    page.budget_auto.setChecked(True)
    assert page.budget.value() == LOCAL_BUDGET_MAX


async def test_another_providers_preset_or_a_local_model_does_not_take_the_key_along(qtbot):
    """Choosing another provider's preset replaced the address and the model but kept the key field
    (masked): the OpenAI key would have gone to SiliconFlow with the next test or recall."""
    from sonetto_desktop.agent.recall_setup import embeddings_config

    settings = Settings(embeddings_source="endpoint", embeddings_preset="openai-3-small",
                        embeddings_base_url="https://api.openai.com/v1", embeddings_model="text-embedding-3-small",
                        embeddings_api_key="sk-openai-PRIVATE")
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    page = dialog.recall_page

    def pick(value: str) -> None:
        page.preset.setCurrentIndex(page.preset.findData(value))
        page.preset.activated.emit(page.preset.currentIndex())

    pick("openai-3-large")  # the same provider: its key stays
    assert page.api_key.text() == "sk-openai-PRIVATE"
    pick("siliconflow-bge-m3")
    config = embeddings_config(page._values_settings(), None)
    assert config.base_url == "https://api.siliconflow.cn/v1" and config.api_key != "sk-openai-PRIVATE"
    assert page.api_key.text() == ""
    page.api_key.setText("sk-silicon")
    page.local_models.addItem("bge-m3", "bge-m3")
    page._pick_local_model(page.local_models.count() - 1)  # a model of the chat's local server
    assert page.api_key.text() == "" and page.base_url.text() == ""


def test_a_preset_on_another_port_of_this_computer_does_not_get_the_key(qtbot):
    """A key typed for a server on this computer (llama.cpp's --api-key on 8080) is not sent to Ollama
    on 11434: another port is another server (``config.providers.same_server``); this computer's
    names are one host (localhost, 127.0.0.1)."""
    d = SettingsDialog(Settings(embeddings_source="endpoint", embeddings_base_url="http://localhost:8080/v1",
                                embeddings_model="bge-m3", embeddings_api_key="sk-llama-cpp"))
    qtbot.addWidget(d)
    page = d.recall_page
    _pick(page.preset, "ollama-bge-m3")
    assert page.base_url.text() == "http://localhost:11434/v1" and page.api_key.text() == ""
    page.api_key.setText("sk-ollama-proxy")
    page.base_url.setText("http://127.0.0.1:11434/v1")
    _pick(page.preset, "ollama-nomic")  # the same server by another of this computer's names: the key stays
    assert page.api_key.text() == "sk-ollama-proxy"


async def test_a_slow_embeddings_test_answers_for_the_model_it_was_for(qtbot, llm_server, wait):
    """The answer of a slow test came after the person had typed another model: "✓ 向量模型可用" stood
    under a model that was never tried. It is dropped; a result shown goes when the model changes."""
    import asyncio

    d = SettingsDialog(Settings(base_url=llm_server.base_url, model="test-model", api_key="sk-test"))
    qtbot.addWidget(d)
    page = d.recall_page
    page.source_endpoint.setChecked(True)
    page.model.setText("scripted-embed")
    llm_server.embedding_delay = 0.4
    task = asyncio.ensure_future(page.test_embeddings())
    await wait(lambda: llm_server.embedding_requests, message="the test under way")
    page.model.setText("never-tried")
    await task
    assert not page.test_result.text().startswith("✓") and page.last_test is None
    assert page.test_button.isEnabled()
    llm_server.embedding_delay = 0.0
    await page.test_embeddings()
    assert page.test_result.text().startswith("✓") and "never-tried" == llm_server.embedding_requests[-1]["model"]
    page.base_url.setText("http://127.0.0.1:9/v1")
    assert page.test_result.text() == ""


async def test_a_model_picked_from_the_chats_local_server_stays_there_when_the_chat_moves(qtbot, llm_server):
    """bge-m3 picked from the chat's Ollama left the address empty ("the chat's"): when the person later
    moved the chat to DeepSeek, the embeddings went to DeepSeek too (with its key), for a model it does
    not have: vectors 出错, and recall by words only, with nothing said when the chat was moved."""
    from sonetto_desktop.agent.recall_setup import embeddings_config

    llm_server.context_api = "ollama"
    llm_server.models = ["qwen2.5:7b", "bge-m3"]
    llm_server.embedding_models = ["bge-m3"]
    d = SettingsDialog(Settings(base_url=llm_server.base_url, model="qwen2.5:7b"))
    qtbot.addWidget(d)
    page = d.recall_page
    await page.list_local_models()
    assert page.local_models.findData("bge-m3") >= 0
    page._pick_local_model(page.local_models.findData("bge-m3"))
    assert page.source_endpoint.isChecked() and page.model.text() == "bge-m3"
    d.base_url.setText("https://api.deepseek.com/v1")
    d.api_key.setText("sk-deepseek-PRIVATE")
    config = embeddings_config(d.current_settings(), None)
    assert config.base_url == llm_server.base_url.rstrip("/") and config.model == "bge-m3"
    assert config.api_key != "sk-deepseek-PRIVATE"


def test_the_page_in_english_has_no_chinese_left(qtbot, english):
    """In English the page said "Linux x86_64 / ARM64、macOS (Apple silicon) → …；macOS (Intel)、Windows →
    … v3.Without a built-in model…" (Chinese commas, no space between sentences) and offered
    "阿里云百炼 text-embedding-v3" and "硅基流动 BAAI/bge-m3"."""
    import re

    from PySide6.QtWidgets import QAbstractButton, QComboBox, QLabel

    d = SettingsDialog(Settings(language="en"))
    qtbot.addWidget(d)
    page = d.recall_page
    chinese = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
    texts = [w.text() for w in page.findChildren(QLabel) + page.findChildren(QAbstractButton)]
    texts += [c.itemText(i) for c in page.findChildren(QComboBox) for i in range(c.count())]
    for source in ("builtin", "endpoint", "off"):
        page.set_source(source)
        texts.append(page.plan_label.text())
    assert [t for t in texts if chinese.search(t)] == []
    assert any("Alibaba Cloud" in t for t in texts) and any("SiliconFlow" in t for t in texts)
    assert not [t for t in texts if re.search(r"[a-z0-9)]\.[A-Z]", t)]  # a space after each sentence


def test_a_value_with_a_percent_sign_is_said_as_it_is(qtbot, chinese):
    """The reason's values were put in one placeholder after the other: an address with an escape in it
    (``%2F``) had its ``%2`` replaced by the seconds of the timeout ("…?q=a20.0F…")."""
    from sonetto_desktop.memory.retrieval.embeddings import EmbeddingsError, TestResult

    d = SettingsDialog(Settings())
    qtbot.addWidget(d)
    page = d.recall_page
    url = "http://x/v1/%2Fembed?k=%1"
    late = EmbeddingsError(f"no answer from {url} within 20.0 s", words=("timeout", url, "20.0"))
    assert page.tested_text(TestResult(False, "", "", error=late)) == f"✗ 向量模型不可用：{url} 在 20.0 秒内没有回答"
    odd = EmbeddingsError("asked for %2 vectors, got 2", words=("count", "%2", "2"))
    assert page.tested_text(TestResult(False, "", "", error=odd)) == "✗ 向量模型不可用：要了 %2 个向量，回答了 2 个"
    from sonetto_desktop.presentation.i18n import filled
    assert filled("%2 before %1, %3 unfilled", "a%2", 5) == "5 before a%2, %3 unfilled"  # (a translation's order)
