"""``JsonStream`` (issue 35, item 11): a JSON document walked a piece at a time, element by element,
whatever the chunk edges cut; one element's problem (too deep, too big, not JSON) is that element's,
a broken document is one clear error saying where."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sonetto_desktop.history_import.json_stream import TOO_DEEP, JsonStream, Skipped
from sonetto_desktop.history_import.model import HistoryFormatError

DEEP = "[" * 100_000 + "]" * 100_000


def _pieces(text: str, size: int):
    data = text.encode("utf-8")
    return (data[i:i + size] for i in range(0, len(data), size))


def _items(text: str, size: int = 7) -> list:
    stream = JsonStream(_pieces(text, size), "t.json")
    out = [stream.value() for _ in stream.items()]
    stream.finish()
    return out


def test_elements_are_read_across_chunk_edges_whatever_they_hold():
    text = json.dumps([{"a": 'quote " and ] and } and \\ and [', "n": 12345678901234, "b": [1.5, None, True]},
                       "plain", -0.25, [], {}, {"中文": "杭州\u2028西溪"}], ensure_ascii=False)
    expected = json.loads(text)
    for size in (1, 2, 3, 5, 8, 64, 1 << 20):
        assert _items(text, size) == expected


@settings(max_examples=60, deadline=None)
@given(st.lists(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                             lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                                           max_size=4),
                             max_leaves=12), max_size=6),
       st.integers(min_value=1, max_value=40))
def test_any_json_list_reads_back_element_by_element(values, size):
    assert _items(json.dumps(values, ensure_ascii=size % 2 == 0), size) == values


def test_nan_and_huge_numbers_are_values_not_a_broken_file():
    found = _items('[{"t": NaN}, {"t": 1e400}, {"t": -Infinity}]', 4)
    assert math.isnan(found[0]["t"]) and found[1]["t"] == math.inf and found[2]["t"] == -math.inf


def test_one_bad_element_is_skipped_and_the_next_one_read():
    found = _items('[{"a": 1}, ' + DEEP + ', {"b": tru}, {"c": 3}]', 4096)
    assert found[0] == {"a": 1} and found[1] is TOO_DEEP and found[3] == {"c": 3}
    assert isinstance(found[2], Skipped) and "不是有效的 JSON" in found[2].zh


@pytest.mark.parametrize("text, words", [
    ('[{"a": 1}, {"b": "cut', "文件在这里结束了"),
    ('[{"a": 1}] trailing', "后面还有多余的内容"),
    ('[{"a": 1} {"b": 2}]', "这里应是"),
])
def test_a_broken_file_is_one_clear_error_saying_where(text, words):
    with pytest.raises(HistoryFormatError) as caught:
        _items(text, 3)
    assert "不是完整的 JSON（第 1 行第" in caught.value.zh and words in caught.value.zh
    assert "line 1, column" in caught.value.en


def test_an_element_over_the_limit_is_skipped_without_holding_it(monkeypatch):
    from sonetto_desktop.history_import import json_stream

    monkeypatch.setattr(json_stream, "MAX_ELEMENT_CHARS", 1000)
    found = _items(json.dumps([{"x": "y" * 5000}, {"ok": 1}]), 100)
    assert found == [json_stream.TOO_BIG, {"ok": 1}]


def test_an_object_is_walked_key_by_key_and_what_is_not_taken_is_passed_over():
    text = json.dumps({"skip": {"big": ["x" * 100, {"a": "}]\"["}]}, "version": 5,
                       "tables": {"topics": [{"id": 1}, {"id": 2}], "other": [1, 2]}, "last": None})
    for size in (1, 3, 7, 1000):
        stream = JsonStream(_pieces(text, size), "data.json")
        got: dict = {}
        for key in stream.members():
            if key == "version":
                got[key] = stream.value()
            elif key == "tables":
                for table in stream.members():
                    if table == "topics":
                        got["topics"] = [stream.value() for _ in stream.items()]
        stream.finish()
        assert got == {"version": 5, "topics": [{"id": 1}, {"id": 2}]}


def test_looking_at_what_comes_next_is_not_taking_it():
    """A caller that peeks at a value (to see whether to walk into it) and then leaves it has not
    taken it: the value is passed over, whatever white space stood before it."""
    text = '{"data": null, "more": [ 1 ], "biz": {"x": 2}, "end": 3}'
    for size in (1, 4, 1000):
        stream = JsonStream(_pieces(text, size), "chat.json")
        got: dict = {}
        for key in stream.members():
            if stream.peek() == "{":
                got[key] = {inner: stream.value() for inner in stream.members()}
            elif key == "end":
                got[key] = stream.value()
        stream.finish()
        assert got == {"biz": {"x": 2}, "end": 3}
        stream = JsonStream(_pieces("[ 1,  [2], {}]", size), "l.json")
        assert [stream.peek() for _ in stream.items()] == ["1", "[", "{"]
        stream.finish()


@pytest.mark.parametrize("lines", [False, True])
def test_where_a_long_document_breaks_is_its_real_line_and_column(lines):
    """ChatGPT writes conversations.json on one line: past the first chunks the column said was the
    place in the text still held (column 62 of a file cut at 600,000 characters)."""
    from sonetto_desktop.history_import.json_stream import CHUNK

    element = json.dumps({"title": "搬家", "text": "x" * 5000}, ensure_ascii=False)
    text = ("[" + (",\n" if lines else ", ").join([element] * (3 * CHUNK // len(element))))
    for broken in (text, text + " x]"):
        expected_line = broken.count("\n") + 1
        at = len(broken) - (2 if broken.endswith(" x]") else 0)  # where the walk stops, 0-based
        expected_column = at - (broken.rfind("\n", 0, at) + 1) + 1
        stream = JsonStream(_pieces(broken, 1 << 16), "conversations.json")
        with pytest.raises(HistoryFormatError) as caught:
            for _ in stream.items():
                stream.value()
        assert f"line {expected_line}, column {expected_column}:" in caught.value.en, caught.value.en
