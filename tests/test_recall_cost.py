"""What recall costs per message (memory/retrieval/recall_cost.py): the whole bank or the budget, the
share a prefix cache serves, money at the list price or the person's own, nothing for a local server.
A real store's listing counted with the real tokenizers."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from sonetto_desktop.memory.item import MemoryItem
from sonetto_desktop.memory.retrieval.listing import RecallListing
from sonetto_desktop.memory.retrieval.recall_cost import (
    BLOCK_DIFFERS,
    BLOCK_FILL,
    bank_count,
    list_price,
    own_price,
    recall_cost,
)
from sonetto_desktop.memory.retrieval.token_count import counter_for, family_for
from sonetto_desktop.memory.stores.sqlite import SqliteMemoryManager

NOW = datetime(2026, 12, 2, 9, 30)
TOPICS = ["火锅", "爬山", "毕设", "吉他", "复查", "手机", "猫咪", "杭州", "小说", "健身"]
DEEPSEEK = ("https://api.deepseek.com/v1", "deepseek-chat")


@pytest.fixture
def listing(tmp_path):
    mm = SqliteMemoryManager(tmp_path / "memory.db")
    mm.import_items({f"p{i:04d}": MemoryItem(f"第{i}条：小林和朋友聊到了{TOPICS[i % len(TOPICS)]}，记下一些细节。", "瞬间",
                                             latest_update_time=(NOW - timedelta(days=i)).isoformat())
                     for i in range(400)})
    listing = RecallListing(mm)
    yield listing
    listing.close()
    mm.close()


def cost(listing, budget, url, model, price=None):
    family = family_for(url, model)
    bank, prompt = bank_count(listing, counter_for(family))
    return bank, recall_cost(bank, budget, base_url=url, model=model, prompt_tokens=prompt, family=family, price=price)


def test_a_bank_within_the_budget_is_sent_whole_and_repeats_but_for_the_message(listing):
    bank, whole = cost(listing, 48_000, *DEEPSEEK)
    assert bank.memories == 400 and bank.exact and whole.whole_bank
    assert bank.real < bank.estimated  # DeepSeek's tokenizer: ~0.72 of the estimate on Chinese memories
    assert whole.tokens > bank.real and whole.repeats > 0.95
    price = list_price(*DEEPSEEK)
    assert price is not None and whole.price == price
    assert whole.per_message == pytest.approx(
        whole.tokens * (whole.repeats * price.cached + (1 - whole.repeats) * price.input) / 1e6)


def test_above_the_budget_the_conversation_block_sets_tokens_and_repeats(listing):
    bank, small = cost(listing, 2_000, *DEEPSEEK)
    _, whole = cost(listing, 48_000, *DEEPSEEK)
    assert not small.whole_bank and small.tokens < whole.tokens
    assert small.repeats == pytest.approx(1 - BLOCK_DIFFERS)
    listing_tokens = round(2_000 * BLOCK_FILL * bank.per_estimate)
    assert small.tokens - listing_tokens == whole.tokens - bank.real  # prompt and message: the same


def test_an_unknown_provider_has_tokens_and_no_money(listing):
    _, unknown = cost(listing, 48_000, "https://open.bigmodel.cn/api/paas/v4", "glm-4-flash")
    assert unknown.family.key == "unknown" and not unknown.exact
    assert unknown.tokens > 0 and unknown.price is None and unknown.per_message is None


def test_a_local_server_costs_nothing(listing):
    _, local = cost(listing, 2_000, "http://127.0.0.1:11434/v1", "qwen2.5:7b", price=own_price(2.0, "¥", "", ""))
    assert local.local and local.per_message is None and local.family.key == "qwen"


def test_the_persons_own_price_wins_with_the_list_price_cache_discount(listing):
    mine = own_price(2.0, "¥", *DEEPSEEK)
    assert mine is not None and mine.input == 2.0 and mine.cached == pytest.approx(0.2)
    _, priced = cost(listing, 48_000, *DEEPSEEK, price=mine)
    assert priced.price == mine and priced.per_message > 0
    assert own_price(0.0, "¥", *DEEPSEEK) is None
    unlisted = own_price(1.0, "$", "https://example.com/v1", "glm-4")
    assert unlisted is not None and unlisted.cached == unlisted.input  # no discount assumed


def test_an_empty_bank_costs_nothing_because_recall_asks_no_model(tmp_path):
    """With no memories ``MemoryRecall`` returns before any model call: the line beside the budget must
    not announce the system prompt's tokens (nor money) for every message."""
    from sonetto_desktop.presentation.recall_cost import cost_text

    mm = SqliteMemoryManager(tmp_path / "memory.db")
    empty = RecallListing(mm)
    try:
        _, nothing = cost(empty, 48_000, *DEEPSEEK)
    finally:
        empty.close()
        mm.close()
    assert nothing.memories == 0 and nothing.tokens == 0 and nothing.per_message is None
    assert "token" in cost_text(nothing) and "0" not in cost_text(nothing)


def test_deepseeks_current_models_have_their_list_price():
    """DeepSeek's API now takes deepseek-flash (the settings' suggestion) and deepseek-v4-pro; the old
    deepseek-v4-flash is served and billed as Flash. Without a price the cost line said "不知道这个服务的价格"."""
    flash, old_flash, pro = (list_price("https://api.deepseek.com/v1", m)
                             for m in ("deepseek-flash", "deepseek-v4-flash", "deepseek-v4-pro"))
    assert flash is not None and flash == old_flash and flash.currency == "¥"
    assert pro is not None and pro.input > flash.input and 0 < flash.cached < flash.input


def test_the_memories_part_is_counted_and_said_apart_from_the_prompt_around_it(listing):
    """Above the budget the line said only the whole ("约发送 5,954 token" at a 4,000 budget), read as the
    budget broken. The cost keeps the memories' part (within the budget; the rest is the prompt, the
    message and the headings) and the line says both; a tokenizer that counts more than the estimate
    the budget is in (cl100k: 1.2 of it) is said to, in both languages."""
    from sonetto_desktop.presentation.i18n import english, translating
    from sonetto_desktop.presentation.recall_cost import cost_text

    bank, small = cost(listing, 2_000, *DEEPSEEK)
    _, whole = cost(listing, 48_000, *DEEPSEEK)
    assert small.listing == round(2_000 * BLOCK_FILL * bank.per_estimate) and whole.listing == bank.real
    assert small.tokens - small.listing == whole.tokens - whole.listing > 0  # the prompt around them: the same
    text = cost_text(small)
    assert f"额度以内的记忆约 {small.listing:,} token，加上给模型的说明和你的消息，约发送 {small.tokens:,} token" in text, text
    assert "分词器数出来更多" not in text  # DeepSeek's tokens are fewer than the estimate

    _, openai = cost(listing, 2_000, "https://api.openai.com/v1", "gpt-4")
    assert openai.family.key == "cl100k" and openai.listing > openai.budget
    assert "额度按估算的 token 算，这个分词器数出来更多" in cost_text(openai)
    with translating(english()):
        text = cost_text(openai)
    assert f"about {openai.listing:,} tokens of memories, within the allowance" in text, text
    assert "this tokenizer counts more" in text and not any("\u4e00" <= ch <= "\u9fff" for ch in text), text
