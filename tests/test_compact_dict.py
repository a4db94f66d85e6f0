"""The compact jieba table (memory/retrieval/compact_dict.py): the same frequencies and the same cuts
as jieba's own table, from a cache that survives a restart and is rebuilt when it is damaged."""

from __future__ import annotations

import random
from pathlib import Path

import jieba
import pytest
import yaml

from sonetto_desktop.memory.retrieval import compact_dict, tokenize

FIXTURES = Path(__file__).with_name("fixtures")


@pytest.fixture(scope="module")
def full():
    tokenizer = jieba.Tokenizer()
    jieba.setLogLevel(60)
    tokenizer.initialize()
    return tokenizer


@pytest.fixture(scope="module")
def compact():
    return compact_dict.compact_tokenizer()


def sample_texts() -> list[str]:
    seed = yaml.safe_load((FIXTURES / "seed_memory.yaml").read_text(encoding="utf-8"))
    texts = [str(item["description"]) for item in (seed.values() if isinstance(seed, dict) else seed)]
    return texts + ["我后天要考离散数学，最近一直在听洛天依", "中华人民共和国成立于1949年", "Python 3.11 和 PySide6 很好用",
                    "南京市长江大桥", "研究生命起源", "他说的确实在理", "结婚的和尚未结婚的"]


def test_every_entry_has_jiebas_frequency_and_non_words_are_absent(full, compact):
    table = compact.FREQ
    assert len(table) == len(full.FREQ) and table.total == full.total
    entries = list(full.FREQ.items())
    for word, freq in random.Random(7).sample(entries, 20_000):
        assert word in table and table[word] == freq and table.get(word) == freq
    for absent in ("猫猫狗狗兔兔", "zzzqqq", "", "的的的的的的"):
        assert absent not in table and table.get(absent) is None and table.get(absent, 0) == 0
        with pytest.raises(KeyError):
            table[absent]


def test_cuts_are_identical_to_jiebas(full, compact):
    for text in sample_texts():
        assert compact.lcut_for_search(text, HMM=False) == full.lcut_for_search(text, HMM=False), text
        assert compact.lcut(text, HMM=False) == full.lcut(text, HMM=False), text


def test_the_app_tokenizer_uses_the_compact_table():
    tokenize.warm_up()
    assert isinstance(tokenize._get_jieba().FREQ, compact_dict.CompactFreq)
    assert tokenize.word_freq("离散数学") > 0 and tokenize.word_freq("猫猫狗狗兔兔") == 0


def test_the_cache_round_trips_and_a_damaged_cache_is_rebuilt(tmp_path, monkeypatch):
    source = tmp_path / "dict.txt"
    source.write_bytes("山竹 30 n\n山竹干 5 n\n离散 10 a\n离散数学 8 n\n山竹 40 n\n".encode())
    monkeypatch.setattr(compact_dict.tempfile, "gettempdir", lambda: str(tmp_path))
    built = compact_dict.load_for(source)
    cache = compact_dict._cache_path(source)
    assert cache.exists()
    assert (built["山竹"], built["山竹干"], built["离散数"], built.total) == (40, 5, 0, 93)  # last freq wins
    again = compact_dict.load_for(source)
    assert again is not built and again["离散数学"] == 8 and len(again) == len(built)
    cache.write_bytes(cache.read_bytes()[:-5])  # truncated: rebuilt, not trusted
    assert compact_dict.load_for(source)["离散"] == 10
    with pytest.raises(ValueError, match="line 1"):
        bad = tmp_path / "bad.txt"
        bad.write_bytes(b"oops\n")
        compact_dict.load_for(bad)


_FRESH = r"""
import json, sys
from sonetto_desktop.memory.retrieval import tokenize
tokenize.warm_up()  # what the app loads at start
keys = sorted(tokenize.batch_keys(["布偶猫喜欢吃三文鱼", "他来到了网易杭研大厦"])[1].tolist())
before = {name: name in sys.modules for name in ("jieba.finalseg.prob_emit", "pkg_resources")}
import jieba
hmm = jieba.lcut("他来到了网易杭研大厦", HMM=True)  # an HMM cut still works: the tables load then
print(json.dumps({"before": before, "after": "jieba.finalseg.prob_emit" in sys.modules, "hmm": hmm, "keys": keys}))
"""


def test_jiebas_hmm_tables_and_pkg_resources_are_not_loaded_for_recall():
    """``import jieba`` read its HMM emission table (jieba.finalseg), which recall, cutting without HMM,
    never uses (issue 37; pkg_resources is kept out since ``tokenize.import_jieba``). In a fresh process
    (this one has jieba imported already): after the warm-up neither is loaded; an HMM cut still works."""
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _FRESH], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).resolve().parent.parent)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["before"] == {"jieba.finalseg.prob_emit": False, "pkg_resources": False}
    assert seen["after"] and seen["hmm"] == jieba.lcut("他来到了网易杭研大厦", HMM=True)
    here = sorted(tokenize.batch_keys(["布偶猫喜欢吃三文鱼", "他来到了网易杭研大厦"])[1].tolist())
    assert seen["keys"] == here  # the same terms as a process that imported jieba the ordinary way
