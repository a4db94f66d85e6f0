"""The 模型 page's 服务商 picker: choosing a provider fills the address and offers its models, typing an
address moves the picker, a key never follows the person to another provider's server, the
environment locks the picker, and on the first run a model server on this computer (the scripted
OpenAI-compatible server, over real HTTP) is found and offered in a line with 使用."""

from __future__ import annotations

import asyncio
import dataclasses
import socket

import pytest
import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent

from sonetto_desktop.config.providers import PROVIDERS, by_key
from sonetto_desktop.config.settings import Settings
from sonetto_desktop.ui.settings.dialog import SettingsDialog

DEEPSEEK = "https://api.deepseek.com/v1"


def _free_port() -> int:
    """A port nothing listens on (bound, then let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _with_local(base_url: str, key: str = "ollama") -> tuple:
    """The real providers, with ``key``'s local server at ``base_url`` (the scripted server's) and
    the other local servers left out (nothing of this computer is asked)."""
    return tuple(dataclasses.replace(p, base_url=base_url, other_urls=()) if p.key == key else p
                 for p in PROVIDERS if not p.local or p.key == key)


@pytest.fixture
def dialog(qtbot):
    def make(settings, **kw):
        d = SettingsDialog(settings, **kw)
        qtbot.addWidget(d)
        return d

    return make


def _choose(d, key):
    """Choose a provider the way a click does (``activated``)."""
    index = d.provider.findData(key)
    assert index >= 0, key
    d.provider.setCurrentIndex(index)
    d.provider.activated.emit(index)


def _models(d) -> list[str]:
    return [d.model.itemText(i) for i in range(d.model.count())]


def _line_shown(d) -> bool:
    return d._model_form.isRowVisible(d.provider_picker.found)


# ── choosing and typing ───────────────────────────────────────────────


def test_choosing_a_provider_fills_the_address_and_offers_its_models(dialog):
    d = dialog(Settings.load())
    assert d.provider.currentIndex() == -1 and d.provider.placeholderText() == "选择服务商…"
    _choose(d, "deepseek")
    assert d.base_url.text() == DEEPSEEK
    assert _models(d) == list(by_key("deepseek").models) and d.model.currentText() == "deepseek-flash"
    assert d.api_key.placeholderText() == "DeepSeek 的 API 密钥"

    d.model.setEditText("qwen-max")  # typed before choosing, and one of the provider's models: it stays
    _choose(d, "dashscope")
    assert d.base_url.text() == "https://dashscope.aliyuncs.com/compatible-mode/v1"
    assert d.model.currentText() == "qwen-max" and "qwen-plus" in _models(d)
    d.model.setEditText("something-else")  # not one of them: the first suggestion
    _choose(d, "zhipu")
    assert (d.base_url.text(), d.model.currentText()) == ("https://open.bigmodel.cn/api/paas/v4", "glm-4-flash")

    _choose(d, "lm-studio")  # a local server: no key wanted
    assert d.base_url.text() == "http://127.0.0.1:1234/v1"
    assert d.api_key.placeholderText() == "本地模型可以留空"
    assert d.current_settings().base_url == "http://127.0.0.1:1234/v1"


def test_typing_an_address_moves_the_picker(dialog):
    d = dialog(Settings.load())
    d.base_url.setText("https://api.moonshot.cn/v1")
    assert d.provider.currentData() == "moonshot"
    d.base_url.setText("https://api.deepseek.com")  # the same host without /v1
    assert d.provider.currentData() == "deepseek"
    d.base_url.setText("http://localhost:11434/v1")  # this computer by name
    assert d.provider.currentData() == "ollama"
    d.base_url.setText("http://127.0.0.1:9931/v1")  # llama.cpp's new default port
    assert d.provider.currentData() == "llama-cpp"
    d.base_url.setText("https://my-gateway.example.com/v1")
    assert d.provider.currentData() == "custom" and d.provider.currentText() == "自定义"
    d.base_url.setText("http://192.168.1.20:11434/v1")  # Ollama on another computer: its own address
    assert d.provider.currentData() == "custom"
    d.base_url.clear()
    assert d.provider.currentIndex() == -1


def test_a_saved_settings_file_opens_with_its_provider(dialog):
    Settings(base_url=DEEPSEEK, model="deepseek-flash", api_key="sk-deepseek").save()
    d = dialog(Settings.load())
    assert d.provider.currentData() == "deepseek" and d.provider.currentText() == "DeepSeek 深度求索"
    assert d.api_key.text() == "sk-deepseek" and not d.dirty()


def test_choosing_the_provider_already_shown_keeps_its_address(dialog):
    d = dialog(Settings(base_url="https://dashscope-intl.aliyuncs.com/compatible-mode/v1", model="qwen-plus",
                        api_key="sk-intl"))  # the international region: its own key
    assert d.provider.currentData() == "dashscope"
    _choose(d, "dashscope")
    assert d.base_url.text() == "https://dashscope-intl.aliyuncs.com/compatible-mode/v1"
    assert (d.api_key.text(), d.model.currentText()) == ("sk-intl", "qwen-plus")


def test_choosing_custom_leaves_the_address_to_type(dialog):
    d = dialog(Settings(base_url=DEEPSEEK, model="deepseek-flash", api_key="sk-deepseek"))
    _choose(d, "custom")
    assert d.base_url.text() == DEEPSEEK and d.api_key.text() == "sk-deepseek"


# ── the key stays with its server ─────────────────────────────────────


async def test_another_providers_server_never_gets_the_key(dialog):
    Settings(base_url=DEEPSEEK, model="deepseek-flash", api_key="sk-deepseek").save()
    d = dialog(Settings.load())
    _choose(d, "deepseek")  # the same server: the key stays
    assert d.api_key.text() == "sk-deepseek"
    _choose(d, "openai")
    assert d.api_key.text() == "" and d.base_url.text() == "https://api.openai.com/v1"
    assert await d.save()
    saved = Settings.load()
    assert (saved.base_url, saved.api_key, saved.model) == ("https://api.openai.com/v1", "", "gpt-4o-mini")


def test_a_key_typed_for_one_provider_is_dropped_when_choosing_another(dialog, qtbot):
    d = dialog(Settings.load())
    _choose(d, "siliconflow")
    d.api_key.setFocus()
    qtbot.keyClicks(d.api_key, "sk-sf")  # typed for SiliconFlow
    _choose(d, "siliconflow")
    assert d.api_key.text() == "sk-sf"
    _choose(d, "moonshot")
    assert d.api_key.text() == ""
    assert d.current_settings().api_key == ""


def test_a_key_for_openai_without_an_address_is_openais(dialog):
    d = dialog(Settings(model="gpt-4o", api_key="sk-openai"))  # no address: OpenAI's
    assert d.provider.currentIndex() == -1
    _choose(d, "openai")
    assert d.api_key.text() == "sk-openai"
    _choose(d, "deepseek")
    assert d.api_key.text() == ""


def test_the_environment_locks_the_picker(dialog, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    d = dialog(Settings(base_url=DEEPSEEK, model="deepseek-flash").with_env())
    assert not d.provider.isEnabled() and "OPENAI_API_KEY" in d.provider.toolTip()
    assert d.provider.currentData() == "deepseek"
    d.provider_picker.apply(by_key("openai"), "https://api.openai.com/v1", ())  # whatever reaches it: nothing changes
    assert d.base_url.text() == DEEPSEEK
    assert d.current_settings().api_key == "sk-from-env"


def test_an_environment_model_stays_when_choosing(dialog, monkeypatch):
    monkeypatch.setenv("SONETTO_MODEL", "env-model")
    d = dialog(Settings.load().with_env())
    assert d.provider.isEnabled()
    _choose(d, "dashscope")
    assert d.model.currentText() == "env-model" and d.current_settings().model == "env-model"
    assert d.current_settings().base_url == "https://dashscope.aliyuncs.com/compatible-mode/v1"


# ── servers on this computer ──────────────────────────────────────────


async def test_a_server_on_this_computer_is_found_on_the_first_run_and_used(dialog, llm_server, wait):
    llm_server.models = ["qwen2.5:7b", "llama3.2:3b", "bge-m3"]
    d = dialog(Settings.load(), providers=_with_local(llm_server.base_url), find_local_servers=True)
    found = []
    d.provider_picker.local_servers_found.connect(found.append)
    d.show()
    await wait(lambda: found, message="the search's answer")
    assert _line_shown(d) and d.provider_picker.use_button.isVisible()
    assert d.provider_picker.found_label.text() == "发现本机的 Ollama（3 个模型）"
    assert d.base_url.text() == "" and not d.dirty()  # offered, not applied
    d.provider_picker.use_button.click()
    assert d.base_url.text() == llm_server.base_url and d.provider.currentData() == "ollama"
    assert _models(d) == ["qwen2.5:7b", "llama3.2:3b", "bge-m3"] and d.model.currentText() == "qwen2.5:7b"
    assert not _line_shown(d)
    assert d.current_settings().base_url == llm_server.base_url


async def _found_on_ollama(dialog, llm_server, wait, models):
    """The settings dialog of a first run, once its search found the scripted server as Ollama with
    ``models``, of which nomic-embed-text only embeds."""
    llm_server.context_api = "ollama"
    llm_server.models = models
    llm_server.embedding_models = ["nomic-embed-text"]
    d = dialog(Settings.load(), providers=_with_local(llm_server.base_url), find_local_servers=True)
    found = []
    d.provider_picker.local_servers_found.connect(found.append)
    d.show()
    await wait(lambda: found, message="the search's answer")
    return d


async def test_a_model_that_only_embeds_is_not_offered_for_the_chat(dialog, llm_server, wait):
    """Ollama lists its models newest first: a person who pulled nomic-embed-text (for recall by meaning)
    after their chat model saw "发现本机的 Ollama（2 个模型）", and 使用 made nomic-embed-text the chat
    model (the first of the list); every message then failed. The models the server says only embed
    (Ollama's /api/show capabilities) are left out of the chat's models, and out of the count."""
    d = await _found_on_ollama(dialog, llm_server, wait, ["nomic-embed-text", "qwen2.5:7b"])
    assert d.provider_picker.found_label.text() == "发现本机的 Ollama（1 个模型）"
    d.provider_picker.use_button.click()
    assert _models(d) == ["qwen2.5:7b"] and d.model.currentText() == "qwen2.5:7b"


async def test_a_server_with_only_embeddings_models_says_it_has_no_chat_model(dialog, llm_server, wait):
    d = await _found_on_ollama(dialog, llm_server, wait, ["nomic-embed-text"])
    assert d.provider_picker.found_label.text() == "发现本机的 Ollama，但它只有向量模型，还没有对话模型。"


async def test_nothing_is_said_when_no_server_answers(dialog, wait):
    d = dialog(Settings.load(), providers=_with_local(f"http://127.0.0.1:{_free_port()}/v1"), find_local_servers=True)
    found = []
    d.provider_picker.local_servers_found.connect(found.append)
    d.show()
    await wait(lambda: found, message="the search's answer")
    assert found == [[]] and not _line_shown(d)


async def test_a_configured_endpoint_is_not_searched_around(dialog, llm_server):
    d = dialog(Settings(base_url=DEEPSEEK, model="deepseek-flash", api_key="sk"),
               providers=_with_local(llm_server.base_url), find_local_servers=True)
    d.show()
    await asyncio.sleep(0.3)
    assert llm_server.models_requests == 0 and d.provider_picker.last_found is None and not _line_shown(d)


async def test_a_dialog_made_on_its_own_asks_nothing_of_this_computer(dialog, llm_server):
    d = dialog(Settings.load(), providers=_with_local(llm_server.base_url))  # (tests, tools): not asked for
    d.show()
    await asyncio.sleep(0.3)
    assert llm_server.models_requests == 0 and d.provider_picker.last_found is None


async def test_the_app_opens_the_settings_looking_for_local_servers(qapp, tmp_path, wait):
    from shell_fixtures import app_settings, running_app

    async with running_app(qapp, app_settings(tmp_path / "data")) as app:  # no address: the first run
        d = app.open_settings()
        found = []
        d.provider_picker.local_servers_found.connect(found.append)
        await wait(lambda: found, timeout=10, message="the search's answer")  # (this computer's real ports)
        d.reject()


async def test_closing_the_dialog_during_the_search_touches_nothing(qtbot, llm_server, wait):
    llm_server.delay = 0.5  # the answer is on its way when the dialog goes
    d = SettingsDialog(Settings.load(), providers=_with_local(llm_server.base_url), find_local_servers=True)
    picker = d.provider_picker
    with qtbot.captureExceptions() as errors:
        d.show()
        await wait(lambda: picker._tasks.pending, message="the search started")
        task = next(iter(picker._tasks._tasks))
        await asyncio.sleep(0.1)
        d.close()
        d.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        assert not shiboken6.isValid(d)
        await asyncio.gather(task, return_exceptions=True)
        await asyncio.sleep(0.6)  # past the server's answer
    assert task.cancelled()
    assert errors == []


async def test_choosing_a_local_server_lists_its_models(dialog, llm_server, wait):
    llm_server.models = ["qwen2.5:7b"]
    d = dialog(Settings(base_url=DEEPSEEK, model="deepseek-flash", api_key="sk-deepseek"),
               providers=_with_local(llm_server.base_url))
    _choose(d, "ollama")
    assert d.base_url.text() == llm_server.base_url and d.api_key.text() == ""
    assert d.model.currentText() == ""  # DeepSeek's model is not Ollama's
    await wait(lambda: d.model.currentText() == "qwen2.5:7b", message="the server's models")
    assert _models(d) == ["qwen2.5:7b"]


async def test_choosing_a_local_server_that_is_not_running_says_so(dialog, wait):
    d = dialog(Settings.load(), providers=_with_local(f"http://127.0.0.1:{_free_port()}/v1", "lm-studio"))
    listed = []
    d.provider_picker.local_models_listed.connect(listed.append)
    _choose(d, "lm-studio")
    await wait(lambda: listed, message="the server asked")
    assert _line_shown(d) and not d.provider_picker.use_button.isVisible()
    assert "LM Studio" in d.provider_picker.found_label.text()


async def test_the_not_running_line_goes_once_another_address_is_typed(dialog, llm_server, wait):
    """llama.cpp chosen while it was not running, then the address of the server that runs typed in
    服务地址 (the picker moves to 自定义): "没有找到本机的 llama.cpp：请先启动它" stayed under it, over an
    address that answers, and 测试连接 said 连接成功 beside it."""
    d = dialog(Settings.load(), providers=_with_local(f"http://127.0.0.1:{_free_port()}/v1", "llama-cpp"))
    listed = []
    d.provider_picker.local_models_listed.connect(listed.append)
    _choose(d, "llama-cpp")
    await wait(lambda: listed, message="the server asked")
    assert _line_shown(d) and "llama.cpp" in d.provider_picker.found_label.text()
    d.base_url.setText(llm_server.base_url)  # as typed (textChanged)
    assert d.provider.currentData() == "custom"
    assert not _line_shown(d)


# ── English ───────────────────────────────────────────────────────────


async def test_the_picker_speaks_english(english, dialog, llm_server, wait):
    d = dialog(Settings.load(), providers=_with_local(llm_server.base_url), find_local_servers=True)
    labels = [d.provider.itemText(i) for i in range(d.provider.count()) if d.provider.itemText(i)]
    assert labels[:2] == ["DeepSeek", "Qwen (Alibaba Cloud Model Studio)"]
    assert "Ollama (this computer)" in labels and labels[-1] == "Custom"
    assert d.provider.placeholderText() == "Choose a provider…"
    found = []
    d.provider_picker.local_servers_found.connect(found.append)
    d.show()
    await wait(lambda: found, message="the search's answer")
    assert d.provider_picker.found_label.text() == "Found Ollama on this computer (1 model)"
    assert d.provider_picker.use_button.text() == "Use"
    _choose(d, "openai")
    assert d.api_key.placeholderText() == "Your OpenAI API key"


async def test_the_embeddings_key_does_not_follow_the_chat_to_another_provider(dialog):
    """An embeddings key with the embeddings address left empty (the chat's) was entered for the chat's
    server: choosing another provider empties it too, or it went to the new provider's server."""
    d = dialog(Settings(base_url=DEEPSEEK, model="deepseek-flash", api_key="sk-deepseek",
                        embeddings_source="endpoint", embeddings_model="embed", embeddings_api_key="sk-ds-embed"))
    _choose(d, "deepseek")  # the same server: both keys stay
    assert d.recall_page.api_key.text() == "sk-ds-embed"
    _choose(d, "openai")
    edited = d.current_settings()
    assert edited.effective_embeddings_base_url == "https://api.openai.com/v1"
    assert edited.effective_embeddings_api_key == "" and d.recall_page.api_key.text() == ""


def test_an_embeddings_key_with_its_own_address_stays_when_the_chat_moves(dialog):
    d = dialog(Settings(base_url=DEEPSEEK, model="deepseek-flash", api_key="sk-deepseek",
                        embeddings_source="endpoint", embeddings_model="text-embedding-v3",
                        embeddings_base_url="https://dashscope.aliyuncs.com/compatible-mode/v1",
                        embeddings_api_key="sk-dashscope"))
    _choose(d, "openai")
    assert d.recall_page.api_key.text() == "sk-dashscope"


def test_a_key_pasted_before_any_address_is_for_the_provider_chosen_next(dialog, qtbot):
    """The first run: the key pasted first, then the provider chosen. The key had been taken for
    OpenAI's (no address) and was emptied when DeepSeek was chosen; a key typed with no address yet
    has been sent nowhere: it is for the provider chosen next (and only that one)."""
    d = dialog(Settings.load())
    d.api_key.setFocus()
    qtbot.keyClicks(d.api_key, "sk-deepseek")
    _choose(d, "deepseek")
    assert d.api_key.text() == "sk-deepseek"
    _choose(d, "moonshot")  # from now on it is DeepSeek's
    assert d.api_key.text() == ""


def test_a_key_pasted_before_an_address_typed_by_hand_stays_with_that_address(dialog, qtbot):
    """The key pasted first, DeepSeek's address typed by hand, then OpenAI chosen: the key had been
    taken for OpenAI's (no address when it was pasted) and went to OpenAI."""
    d = dialog(Settings.load())
    d.api_key.setFocus()
    qtbot.keyClicks(d.api_key, "sk-deepseek")
    d.base_url.setFocus()
    qtbot.keyClicks(d.base_url, DEEPSEEK)  # typed by hand after the key
    _choose(d, "openai")
    assert d.api_key.text() == ""
