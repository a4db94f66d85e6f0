"""The 回忆 page's cost line (ui/settings/recall_cost_line.py): for a real store of N memories it says
about how many tokens recall sends per message, follows the budget live, shows money for a DeepSeek
endpoint, tokens only for an unknown one, and nothing to pay for a local server. The store is counted
in a worker; real widgets, a real SQLite store, the real tokenizers."""

from __future__ import annotations

import re
import threading
from datetime import datetime, timedelta

import pytest
from PySide6.QtWidgets import QTabWidget

from sonetto_desktop import ops
from sonetto_desktop.config.settings import Settings
from sonetto_desktop.memory.item import MemoryItem
from sonetto_desktop.memory.retrieval.budget import CLOUD_BUDGET
from sonetto_desktop.memory.retrieval.listing import RecallListing
from sonetto_desktop.memory.stores.sqlite import SqliteMemoryManager
from sonetto_desktop.ui.settings.dialog import SettingsDialog

N = 600
NOW = datetime(2026, 12, 2, 9, 30)
TOPICS = ["火锅", "爬山", "毕设", "吉他", "复查", "手机", "猫咪", "杭州", "小说", "健身"]


@pytest.fixture
def bank(tmp_path):
    mm = SqliteMemoryManager(tmp_path / "memory.db")
    mm.import_items({f"p{i:04d}": MemoryItem(f"第{i}条：小林和朋友聊到了{TOPICS[i % len(TOPICS)]}，记下一些细节。", "瞬间",
                                             latest_update_time=(NOW - timedelta(days=i)).isoformat())
                     for i in range(N)})
    listing = RecallListing(mm)
    threads: list[str] = []

    def give():
        threads.append(threading.current_thread().name)
        return listing

    give.threads = threads
    yield give
    listing.close()
    mm.close()


async def opened(qtbot, wait, settings, bank):
    d = SettingsDialog(settings, bank=bank)
    qtbot.addWidget(d)
    d.show()
    show_recall_tab(d)
    line = d.recall_page.cost
    await wait(lambda: line.last_cost is not None, timeout=30, message="the store counted")
    return d, line


def show_recall_tab(d) -> None:
    tabs = d.findChild(QTabWidget)
    tabs.setCurrentIndex(next(i for i in range(tabs.count()) if tabs.widget(i) is d.recall_page
                              or tabs.widget(i).isAncestorOf(d.recall_page)))


def tokens_in(text: str) -> int:
    return int(re.search(r"约发送 ([\d,]+) token", text).group(1).replace(",", ""))


async def test_the_line_shows_tokens_for_the_bank_and_follows_the_budget(qtbot, wait, bank):
    d, line = await opened(qtbot, wait, Settings(base_url="https://api.deepseek.com/v1", model="deepseek-chat", api_key="sk"), bank)
    assert bank.threads and threading.main_thread().name not in bank.threads  # counted in a worker
    whole = line.text()
    assert f"{N} 条记忆" in whole and "读全部记忆" in whole and "DeepSeek 分词器计" in whole
    assert line.last_cost.budget == CLOUD_BUDGET and line.last_cost.whole_bank
    assert "$" in whole and "每 100 条" in whole  # DeepSeek's list price is known
    page = d.recall_page
    page.budget_auto.setChecked(False)
    page.budget.setValue(4_000)  # below the bank: the budget, not the whole bank
    small = line.text()
    assert small != whole and "超出额度" in small and tokens_in(small) < tokens_in(whole)
    assert line.last_cost.budget == 4_000
    page.budget.setValue(8_000)
    assert tokens_in(line.text()) > tokens_in(small)
    page.budget_auto.setChecked(True)
    assert line.text() == whole


async def test_an_unknown_provider_gets_tokens_and_no_money(qtbot, wait, bank):
    _, line = await opened(qtbot, wait, Settings(base_url="https://open.bigmodel.cn/api/paas/v4", model="glm-4-flash",
                                     api_key="sk"), bank)
    text = line.text()
    assert f"{N} 条记忆" in text and tokens_in(text) > 0
    assert "不知道这个服务的价格" in text and "$" not in text and "¥" not in text


async def test_a_local_server_costs_nothing_and_the_endpoint_is_followed_live(qtbot, wait, bank):
    d, line = await opened(qtbot, wait, Settings(base_url="http://127.0.0.1:11434/v1", model="qwen2.5:7b"), bank)
    assert "不花钱" in line.text() and "Qwen 分词器计" in line.text()
    d.base_url.setText("https://api.deepseek.com/v1")
    d.model.setCurrentText("deepseek-chat")
    await wait(lambda: "$" in line.text(), timeout=30)  # counted again with DeepSeek's tokenizer
    assert "DeepSeek 分词器计" in line.text()


async def test_no_store_no_line(qtbot):
    d = SettingsDialog(Settings())
    qtbot.addWidget(d)
    d.show()
    show_recall_tab(d)
    assert d.recall_page.isVisible() and not d.recall_page.cost.isVisible() and d.recall_page.cost.last_cost is None


async def test_the_running_app_counts_its_own_store(qapp, tmp_path, wait):
    """Opened from the app, the page counts the store the app has open (through the services' recall listing)."""
    from shell_fixtures import app_settings, running_app

    settings = app_settings(tmp_path / "data", base_url="https://api.deepseek.com/v1", model="deepseek-chat",
                            api_key="sk-test", retrieval_mode="hybrid")  # (本地检索 costs nothing: said so)
    async with running_app(qapp, settings) as app:
        await app.service.submit(ops.AddMemory("用户喜欢猫", "偏好"))
        await app.service.submit(ops.AddMemory("用户住在杭州", "身份"))
        d = app.open_settings()
        show_recall_tab(d)
        line = d.recall_page.cost
        await wait(lambda: line.last_cost is not None, timeout=30, message="the app's store counted")
        assert line.last_cost.memories == 2 and "2 条记忆" in line.text() and "$" in line.text()
        d.reject()


def _choose(combo, value) -> None:
    combo.setCurrentIndex(combo.findData(value))


async def test_offline_recall_costs_nothing_and_the_line_follows_the_recall_mode(qtbot, wait, bank):
    """With 回忆方式 本地检索 recall never asks a model, yet the line said "约发送 20,000 token … 约每条
    $0.003": a person who chose it to save money was told it costs. Nor did it follow the mode."""
    settings = Settings(base_url="https://api.deepseek.com/v1", model="deepseek-chat", api_key="sk",
                        retrieval_mode="mechanical")
    d = SettingsDialog(settings, bank=bank)
    qtbot.addWidget(d)
    d.show()
    show_recall_tab(d)
    line = d.recall_page.cost
    await wait(lambda: "本地检索" in line.text(), timeout=30, message=lambda: f"the line says: {line.text()}")
    assert "不花" in line.text() and "token（" not in line.text() and "$" not in line.text()
    _choose(d.retrieval_mode, "hybrid")
    await wait(lambda: line.last_cost is not None, timeout=30, message="the store counted")
    assert "$" in line.text() and tokens_in(line.text()) > 0
    _choose(d.retrieval_mode, "mechanical")
    assert "本地检索" in line.text() and "$" not in line.text()


async def test_without_a_chat_model_recall_costs_nothing(qtbot, wait, bank):
    """No chat model set (a fresh install): recall finds memories by words on this computer, yet the
    line counted tokens "sent" per message to nowhere."""
    d = SettingsDialog(Settings(), bank=bank)
    qtbot.addWidget(d)
    d.show()
    show_recall_tab(d)
    line = d.recall_page.cost
    await wait(lambda: "对话模型" in line.text(), timeout=30, message=lambda: f"the line says: {line.text()}")
    assert "不花" in line.text() and "约发送" not in line.text()
    d.base_url.setText("https://api.deepseek.com/v1")
    d.api_key.setText("sk")
    d.model.setCurrentText("deepseek-chat")
    await wait(lambda: "$" in line.text(), timeout=30, message=lambda: f"the line says: {line.text()}")


async def test_the_line_says_how_much_is_memories_and_what_the_rest_is(qapp, qtbot, wait, bank):
    """A local server at a 4,000-token budget: the line said "回忆每条消息约发送 5,9xx token" and nothing
    more, read as the budget not being kept (the rest is the prompt around the memories: the instructions,
    the message, the headings). It says how much of it is memories, within the budget, and what the rest
    is; in English too."""
    from sonetto_desktop.ui.i18n import install_translators, remove_translators

    d, line = await opened(qtbot, wait, Settings(base_url="http://127.0.0.1:8080/v1", model="llama3",
                                                 recall_budget_tokens=4_000), bank)
    cost = line.last_cost
    assert not cost.whole_bank and cost.family.key == "unknown" and tokens_in(line.text()) > 4_000
    text = line.text()
    assert "额度以内的记忆约 4,000 token" in text and "加上给模型的说明和你的消息" in text, text
    assert text.index("4,000") < text.index(f"{tokens_in(text):,}"), text  # the memories first, then the whole
    d.recall_page.budget.setValue(60_000)  # the whole bank fits: how much of it is the memories
    text = line.text()
    memories = int(re.search(r"读全部记忆（约 ([\d,]+) token）", text).group(1).replace(",", ""))
    assert line.last_cost.whole_bank and 0 < memories < tokens_in(text) and "加上给模型的说明和你的消息" in text, text

    translators = install_translators(qapp, "en")
    try:
        d.recall_page.budget.setValue(4_000)
        text = line.text()
        assert "about 4,000 tokens of memories, within the allowance" in text, text
        assert "the instructions to the model and your message" in text, text
        assert not any("\u4e00" <= ch <= "\u9fff" for ch in text), text
    finally:
        remove_translators(qapp, translators)
