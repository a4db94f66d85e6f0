"""Tokens by tokenizer family (memory/retrieval/token_count.py): which family an endpoint is, exact
counts with the tokenizers the app ships, the calibrated estimate where one is missing, the cache and
the sampled count of a large bank. Real tokenizers, no network."""

from __future__ import annotations

import math

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from llm_payloads import TextResponse, completion
from sonetto_desktop.agent.graph import MESSAGE_OVERHEAD, message_tokens
from sonetto_desktop.history_import.plan import text_tokens
from sonetto_desktop.memory import token_estimate
from sonetto_desktop.memory.retrieval import budget
from sonetto_desktop.memory.retrieval.budget import estimate_tokens
from sonetto_desktop.memory.retrieval.token_count import (
    FAMILIES,
    Family,
    TokenCounter,
    _load,
    count_bank,
    counter_for,
    family_for,
)

MEMORY = "小林下周三要去杭州出差，住在西湖边的酒店，顺便去看望大学室友阿杰。"

SAMPLES = [
    MEMORY,
    "I moved to Berlin last spring and I still can't order coffee in German without panicking.",
    "我在用 Python 3.11 写一个 PySide6 的桌面应用，数据库是 PostgreSQL 16。",
    "def f(x):\n    return {k: v for k, v in x.items() if v is not None}  # drop empties\n",
    "",
]


@pytest.mark.parametrize("text", SAMPLES)
def test_every_caller_estimates_a_text_alike(text):
    """One estimate (memory/token_estimate.py): the recall budget, the chat history kept for the model,
    the history import's plan, the calibrated counter and the scripted server's usage all count a text
    the same (they once said 23 / 16 / 21 of one sentence)."""
    one = token_estimate.estimate_tokens(text)
    assert one == math.ceil(token_estimate.estimate_tokens_unrounded(text))
    assert budget.estimate_tokens(text) == estimate_tokens(text) == one
    assert message_tokens(HumanMessage(text)) == MESSAGE_OVERHEAD + one
    call = AIMessage("", tool_calls=[{"name": "note", "args": {"text": text}, "id": "c1"}])
    assert message_tokens(call) == MESSAGE_OVERHEAD + token_estimate.estimate_tokens(str({"text": text}))
    assert text_tokens(text) == pytest.approx(token_estimate.estimate_tokens_unrounded(text)
                                              * FAMILIES["qwen"].per_estimate)
    assert TokenCounter(FAMILIES["unknown"]).count(text) == one
    assert completion({"messages": []}, TextResponse(text), lambda: 1)["usage"]["completion_tokens"] == one


@pytest.mark.parametrize(("url", "model", "family"), [
    ("https://api.openai.com/v1", "gpt-4o-mini", "o200k"),
    ("https://api.openai.com/v1", "gpt-4.1-mini", "o200k"),
    ("https://api.openai.com/v1", "o3-mini", "o200k"),
    ("https://api.openai.com/v1", "gpt-4-turbo", "cl100k"),
    ("https://api.openai.com/v1", "gpt-3.5-turbo", "cl100k"),
    ("https://openrouter.ai/api/v1", "openai/gpt-4o", "o200k"),
    ("https://api.deepseek.com/v1", "deepseek-chat", "deepseek"),
    ("https://api.deepseek.com", "", "deepseek"),
    ("https://api.siliconflow.cn/v1", "deepseek-ai/DeepSeek-V3", "deepseek"),
    ("https://dashscope.aliyuncs.com/compatible-mode/v1", "qwen-plus", "qwen"),
    ("https://dashscope.aliyuncs.com/compatible-mode/v1", "", "qwen"),
    ("http://127.0.0.1:11434/v1", "qwen2.5:7b", "qwen"),
    ("https://open.bigmodel.cn/api/paas/v4", "glm-4-flash", "unknown"),
    ("http://127.0.0.1:8080/v1", "llama-3.1-8b", "unknown"),
])
def test_the_endpoint_and_model_give_the_tokenizer_family(url, model, family):
    assert family_for(url, model).key == family


@pytest.mark.parametrize("key", ["o200k", "cl100k", "qwen", "deepseek"])
def test_each_known_family_counts_with_its_own_tokenizer_offline(key):
    counter = counter_for(FAMILIES[key])
    assert counter.exact
    assert counter.count("hello world") == 2
    assert counter.count(MEMORY) > 0


def test_the_families_count_chinese_differently_as_measured():
    """cl100k splits Chinese finer than the estimate; o200k, Qwen and DeepSeek coarser."""
    counts = {key: counter_for(FAMILIES[key]).count(MEMORY) for key in ("o200k", "cl100k", "qwen", "deepseek")}
    estimate = estimate_tokens(MEMORY)
    assert counts["cl100k"] > estimate
    assert counts["o200k"] < estimate and counts["qwen"] < estimate and counts["deepseek"] < estimate


def test_a_family_without_its_tokenizer_uses_the_calibrated_estimate():
    missing = FAMILIES["cl100k"]
    counter = TokenCounter(Family(missing.key, missing.label, missing.per_estimate, "no_such_tokenizer_package"))
    assert not counter.exact
    assert counter.count(MEMORY) == round(estimate_tokens(MEMORY) * FAMILIES["cl100k"].per_estimate)
    unknown = counter_for(FAMILIES["unknown"])
    assert not unknown.exact and unknown.count(MEMORY) == estimate_tokens(MEMORY)


def test_counts_are_cached_per_text():
    batches: list[list[str]] = []
    real = _load(FAMILIES["deepseek"])

    def loader(family):
        def batch(texts):
            batches.append(list(texts))
            return real(texts)
        return batch

    counter = TokenCounter(FAMILIES["deepseek"], loader=loader)
    first = counter.count_many([MEMORY, "你好", MEMORY])
    second = counter.count_many(["你好", MEMORY, "新的一条"])
    assert first[0] == first[2] == second[1]
    assert batches == [[MEMORY, "你好"], ["新的一条"]] and counter.loads == 1
    counter.release()  # the tokenizer goes, the counts stay
    assert counter.count_many([MEMORY, "新的一条"]) == [first[0], second[2]] and counter.loads == 1
    assert counter.count("又一条") > 0 and counter.loads == 2 and batches[-1] == ["又一条"]


def test_a_large_bank_is_counted_on_a_sample_within_two_percent():
    lines = [f"【{i % 7}】第{i}条：小林和朋友聊到了{'火锅爬山毕设吉他复查手机猫咪'[i % 7]}，记下 {i * 37} 这个数。"
             for i in range(3_000)]
    estimates = [estimate_tokens(line) + 5 for line in lines]
    counter = counter_for(FAMILIES["cl100k"])
    whole = count_bank(lines, estimates, counter, sample=10_000)
    sampled = count_bank(lines, estimates, counter, sample=500)
    assert whole.sampled == 3_000 and sampled.sampled == 500
    assert whole.estimated == sampled.estimated == sum(estimates)
    assert abs(sampled.real - whole.real) / whole.real < 0.02
    # the overhead of each line (number, brackets) is scaled by the bank's own ratio
    assert whole.real == round(sum(estimates) * sum(counter.count_many(lines)) / sum(map(estimate_tokens, lines)))


@pytest.mark.parametrize(("model", "family"), [("qwen2.5:7b", "qwen"), ("llama3.1:8b", "unknown"), ("gpt-4", "cl100k")])
def test_a_local_servers_context_is_turned_into_estimated_tokens_by_the_family(llm_server, model, family):
    """The server reports its context in its model's tokens; the budget is in estimated ones: a Qwen
    model's 6,000 hold ~7,600 estimated tokens, a cl100k model's ~4,900 (was: 6,000 for every model)."""
    from sonetto_desktop.agent.recall_setup import recall_budget
    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.memory.retrieval.budget import LOCAL_BUDGET_MAX, MIN_BUDGET, REQUEST_RESERVE

    llm_server.context_api = "llama.cpp"
    llm_server.context_length = 6_000
    policy = recall_budget(Settings(base_url=llm_server.base_url, model=model))
    policy.learn()
    in_estimate = round(6_000 / FAMILIES[family].per_estimate)
    assert policy.tokens() == max(MIN_BUDGET, min(in_estimate - REQUEST_RESERVE, LOCAL_BUDGET_MAX))


def test_every_tokenizer_loads_and_counts_without_the_network():
    """The tables ship in the packages: a fresh process with every socket connection refused loads
    each family's tokenizer and counts exactly (tiktoken alone would download its table here)."""
    import subprocess
    import sys

    code = (
        "import socket\n"
        "def refuse(*a, **k): raise OSError('no network in this test')\n"
        "socket.socket.connect = refuse; socket.create_connection = refuse\n"
        "from sonetto_desktop.memory.retrieval.token_count import FAMILIES, TokenCounter\n"
        "for key in ('o200k', 'cl100k', 'qwen', 'deepseek'):\n"
        "    counter = TokenCounter(FAMILIES[key])\n"
        "    assert counter.exact, key\n"
        "    print(key, counter.count('小林下周三要去杭州出差'))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert [line.split()[0] for line in done.stdout.splitlines()] == ["o200k", "cl100k", "qwen", "deepseek"]
