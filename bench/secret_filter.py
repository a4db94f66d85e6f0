"""The secret filter on labelled lines: precision and recall, per language, and what it got wrong.

    python -m bench.secret_filter [bench/datasets/secret-lines.yaml ...] [--verbose] [--speed]

A dataset (see ``bench/datasets/secret-lines.yaml``) lists ``secret`` lines, each with the ``value``
that must not reach the writer's model, and ``ordinary`` lines that only look like secrets. A
secret line is found when ``find_secret`` flags it and ``redact_secrets`` hides the whole of its
value (``covered``: not only its first word); an ordinary line flagged is a false alarm.
Precision = found / (found + false alarms); recall = found / secret lines. tests/test_secret_lines.py
keeps both at or above what docs/benchmarks.md states.
``--speed``: seconds per million characters of ``redact_secrets`` over the datasets' lines repeated
(every line a secret or a look-alike: far denser than any real chat) and over the README (prose).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from sonetto_desktop.memory.writer.secret_filter import find_secret, find_secrets, redact_secrets  # noqa: E402

DATASETS = ROOT / "bench" / "datasets"
DEFAULT = (DATASETS / "secret-lines.yaml", DATASETS / "secret-lines-blind.yaml", DATASETS / "secret-lines-spoken.yaml")
_CJK = re.compile(r"[\u4e00-\u9fff]")


@dataclass
class Score:
    secrets: int = 0
    ordinary: int = 0
    found: int = 0
    false_alarms: int = 0
    missed: list[str] = field(default_factory=list)
    leaked: list[str] = field(default_factory=list)  # flagged, but the value survived the hiding
    alarms: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        flagged = self.found + self.false_alarms
        return self.found / flagged if flagged else 1.0

    @property
    def recall(self) -> float:
        return self.found / self.secrets if self.secrets else 1.0


def language(text: str) -> str:
    return "zh" if _CJK.search(text) else "en"


def load(path: Path) -> tuple[list[tuple[str, str]], list[str]]:
    """(secret lines as (text, value), ordinary lines) of a dataset file."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    secrets = [(str(row["text"]), str(row["value"])) for row in data["secret"]]
    return secrets, [str(text) for text in data["ordinary"]]


def score(secrets: list[tuple[str, str]], ordinary: list[str]) -> dict[str, Score]:
    """Scores for all lines (``all``) and per language (``zh``, ``en``)."""
    scores = {"all": Score(), "zh": Score(), "en": Score()}
    for text, value in secrets:
        hidden, _count = redact_secrets(text)
        flagged = find_secret(text) is not None
        for key in ("all", language(text)):
            s = scores[key]
            s.secrets += 1
            if flagged and value not in hidden and covered(text, value):
                s.found += 1
            elif flagged:
                s.leaked.append(f"{text}  →  {hidden}")
            else:
                s.missed.append(text)
    for text in ordinary:
        flagged = find_secret(text)
        for key in ("all", language(text)):
            s = scores[key]
            s.ordinary += 1
            if flagged:
                s.false_alarms += 1
                s.alarms.append(f"{text}  ({flagged})")
    return scores


def covered(text: str, value: str) -> bool:
    """Whether every character of ``value`` (where ``text`` gives it) is inside a secret the filter
    found: hiding the first word of "correct horse battery staple" leaves the rest of it. A mark ending
    the value may stay ("Lin1996!" ending a sentence: the filter cannot tell it from the sentence's)."""
    value = value.rstrip(".,;:!?)]}>\"'")
    at = text.find(value)
    if at < 0 or not value:
        return True
    inside = {i for secret in find_secrets(text) for i in range(secret.start, secret.end)}
    return all(i in inside for i in range(at, at + len(value)) if not text[i].isspace())


def seconds_per_million(text: str, rounds: int = 3) -> float:
    """The best of ``rounds`` timings of ``redact_secrets`` over ``text``, per million characters."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        redact_secrets(text)
        best = min(best, time.perf_counter() - start)
    return best * 1_000_000 / len(text)


def speed(paths: list[Path]) -> None:
    lines = [line for path in paths for pair in [load(path)] for line in [t for t, _v in pair[0]] + pair[1]]
    dense = "\n".join(lines)
    prose = (ROOT / "README.md").read_text(encoding="utf-8")
    for name, text in (("labelled lines", dense), ("README", prose)):
        text = (text + "\n") * (1_000_000 // len(text) + 1)
        print(f"  speed  {name:15} {seconds_per_million(text):.3f} s per million characters")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("datasets", nargs="*", type=Path, default=[p for p in DEFAULT if p.exists()])
    parser.add_argument("--verbose", action="store_true", help="list the misses and the false alarms")
    parser.add_argument("--speed", action="store_true", help="time redact_secrets over long texts")
    args = parser.parse_args(argv)
    for path in args.datasets:
        scores = score(*load(path))
        print(f"{path.name}")
        for key, s in scores.items():
            print(f"  {key:3}  secret lines {s.secrets:3}  ordinary {s.ordinary:3}  "
                  f"precision {s.precision:.3f}  recall {s.recall:.3f}  "
                  f"(found {s.found}, missed {len(s.missed)}, value left {len(s.leaked)}, false alarms {s.false_alarms})")
        if args.verbose:
            everything = scores["all"]
            for title, lines in (("missed", everything.missed), ("value left after hiding", everything.leaked),
                                 ("false alarms", everything.alarms)):
                for line in lines:
                    print(f"    {title}: {line}")
    if args.speed:
        speed(args.datasets)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
