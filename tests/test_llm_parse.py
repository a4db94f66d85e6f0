"""parse_indices: what real models answer, turned into clean memory indices (or a clear refusal)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sonetto_desktop.memory.retrieval import UnparseableAnswer, parse_indices

FENCE = "```"

PARSED = [
    # (answer, n, expected)
    ("[3, 0, 7]", 10, [3, 0, 7]),
    ("  [1]\n", 5, [1]),
    ("[]", 5, []),
    ("[ ]", 5, []),
    (f"{FENCE}json\n[2, 1]\n{FENCE}", 5, [2, 1]),
    (f"{FENCE}\n[4]\n{FENCE}", 5, [4]),
    (f"好的：\n{FENCE}JSON\n[0, 3]\n{FENCE}\n以上。", 5, [0, 3]),
    ("相关记忆是 [2, 0]，希望有帮助。", 5, [2, 0]),
    ("Answer: [1, 4]", 5, [1, 4]),
    # reasoning that quotes memory numbers first, the answer last
    ("推理：[0] 直接相关，[3] 有关。\n输出：[0, 3]", 5, [0, 3]),
    # wrapped in other JSON
    ('{"ids": [4, 1]}', 5, [4, 1]),
    ('{"indices": [2], "reason": "喜欢火锅"}', 5, [2]),
    ('{"result": {"related": [3, 1]}}', 5, [3, 1]),
    ('{"note": "x", "picked": [0, 2]}', 5, [0, 2]),
    ('我的回答：{"Indices": [1]}', 5, [1]),
    ("[[1, 2]]", 5, [1, 2]),
    ('[{"index": 2}, {"id": 0}]', 5, [2, 0]),
    ('"[1, 3]"', 5, [1, 3]),  # JSON-encoded twice
    # duplicates keep their first position
    ("[3, 1, 3, 1, 0]", 5, [3, 1, 0]),
    # out of range / negative dropped
    ("[1, 5, 99, -1, 4]", 5, [1, 4]),
    ("[0]", 0, []),
    # numbers as text, floats
    ('["3", " 1 "]', 5, [3, 1]),
    ("[2.0, 1]", 5, [2, 1]),
    ("[2.5, 1]", 5, [1]),
    ('["2.5", "x", null, true, false, 3]', 5, [3]),
    ('["a01", "a02"]', 5, []),
    # not JSON but clearly a list
    ("['3', '1']", 5, [3, 1]),
    ("[0，2，4]", 5, [0, 2, 4]),
    ("［1, 2］", 5, [1, 2]),
    ("[1 3]", 5, [1, 3]),
    ("没有相关的记忆，所以输出 []", 5, []),
]


@pytest.mark.parametrize(("answer", "n", "expected"), PARSED)
def test_parse_indices(answer, n, expected):
    assert parse_indices(answer, n) == expected


UNPARSEABLE = [
    "",
    "   ",
    "没有相关记忆。",
    "3",
    "null",
    '{"ok": true}',
    '{"ids": null}',
    "<html><body>502 Bad Gateway</body></html>",
    f"{FENCE}\n没有\n{FENCE}",
    "[这是 一段 文字]",
]


@pytest.mark.parametrize("answer", UNPARSEABLE)
def test_no_array_is_unparseable_not_empty(answer):
    with pytest.raises(UnparseableAnswer) as info:
        parse_indices(answer, 5)
    assert isinstance(info.value, ValueError)
    assert info.value.text == answer


def test_none_is_unparseable():
    with pytest.raises(UnparseableAnswer):
        parse_indices(None, 3)


def test_negative_n_is_a_caller_error():
    with pytest.raises(ValueError, match="n must be"):
        parse_indices("[0]", -1)


def test_error_message_shows_a_short_preview():
    with pytest.raises(UnparseableAnswer) as info:
        parse_indices("无关" * 500, 5)
    assert len(str(info.value)) < 200


@given(st.lists(st.integers(min_value=-20, max_value=40)), st.integers(min_value=0, max_value=30))
def test_any_int_list_gives_unique_in_range_indices_in_first_seen_order(values, n):
    result = parse_indices(json.dumps(values), n)
    expected = []
    for value in values:
        if 0 <= value < n and value not in expected:
            expected.append(value)
    assert result == expected


@given(st.lists(st.integers(min_value=0, max_value=9), max_size=10), st.text(max_size=30))
def test_prose_before_a_fenced_answer_never_changes_it(values, prose):
    answer = f"{prose.replace(FENCE, '')}\n{FENCE}json\n{json.dumps(values)}\n{FENCE}"
    assert parse_indices(answer, 10) == list(dict.fromkeys(values))
