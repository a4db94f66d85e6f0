"""The app's reasons (memory/reasons.py): one Chinese and one English table for one set of codes,
each wording read back into its code, shown in the reader's language (presentation/reasons.py)."""

from __future__ import annotations

import re

import pytest

from sonetto_desktop.memory.reasons import ENGLISH, OLDER_ENGLISH, REASONS, parse_reason, reason_text
from sonetto_desktop.presentation.reasons import render_reason

ARGS = ("甲", "乙")


def _slots(template: str) -> list[str]:
    return sorted(re.findall(r"\{\d\}", template))


def test_every_code_has_one_english_wording_with_the_same_parameters():
    assert set(ENGLISH) == set(REASONS)
    assert set(OLDER_ENGLISH) <= set(REASONS)
    for code, chinese in REASONS.items():
        assert _slots(ENGLISH[code]) == _slots(chinese), code
        assert _slots(OLDER_ENGLISH.get(code, chinese)) == _slots(chinese), code


@pytest.mark.parametrize("code", sorted(REASONS))
def test_each_wording_reads_back_and_shows_in_either_language(code):
    args = ARGS[: len(_slots(REASONS[code]))]
    stored = reason_text(code, *args)
    assert parse_reason(stored) == (code, args)
    for english in (ENGLISH[code], OLDER_ENGLISH.get(code, ENGLISH[code])):
        as_stored = english.format(*args)  # what an English UI stored
        parsed = parse_reason(as_stored)
        assert parsed is not None and REASONS[parsed[0]].format(*args) == render_reason(as_stored, "zh_CN")
        assert render_reason(stored, "en") == ENGLISH[parsed[0]].format(*args)


def test_a_persons_own_words_stay_as_written():
    assert parse_reason("我自己写的理由") is None
    assert render_reason("我自己写的理由", "en") == "我自己写的理由"
