"""Recall's vectors leaning on the conversation before the message (``shortlist.lean``).

    SONETTO_DATASETS=… python -m bench.recall_context [--size 10000] [--weights 0.3,0.5,1.0] [--model e5]

Two questions, with real vectors (``bench.embed_models``, cached):

- **follow-ups**: MADial-Bench zh's dialogues (the user's line before the reply that uses a memory, as
  ``bench.recall_public`` asks it), each user's memories among ``--size`` memories of other people
  (``bench.recall_reach``'s public pool, MADial's own left out). The share of gold memories among the
  N nearest (N = 100 / 300 / 1,000) for the message alone, and leaning on the lines before it as the
  app takes them (``agent.graph.conversation_context``: the last ``CONTEXT_LINES`` said lines, cut to
  ``recall.MAX_CONTEXT_CHARS`` as ``MemoryRecall`` cuts them), at each weight;
- **a change of topic**: our recall-phenomena questions (single messages) among the same memories,
  leaning on an unrelated conversation before them (another question of the set and a reply to it,
  another topic): what leaning costs when the conversation moves on.

Only the vectors' ranking is measured here (the words' ranking reads the message alone); the whole
shortlist's reach is ``bench.recall_issue36``'s.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from datetime import datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.recall_scale_e5 import DATASETS, default_root  # noqa: E402

DEPTHS = (100, 300, 1000)
_SAID = re.compile(r'^<([^>]+)>:\s*"?(.*?)"?\s*$', re.S)


def _said(line: str) -> tuple[str, str]:
    match = _SAID.match(line.strip())
    return (match.group(1), match.group(2).strip()) if match else ("", line.strip())


def _context(lines: list[tuple[str, str]]) -> str:
    """The context the app gives recall for the last of ``lines`` ((speaker, text), the person's last):
    ``agent.graph.conversation_context`` over the dialogue as chat messages, cut as ``MemoryRecall`` cuts it."""
    from langchain_core.messages import AIMessage, HumanMessage

    from sonetto_desktop.agent.graph import conversation_context
    from sonetto_desktop.memory.retrieval.recall import _context as cut

    messages = [AIMessage(text) if who == "Assistant" else HumanMessage(text) for who, text in lines]
    return cut(lines[-1][1], conversation_context(messages))


def madial_follow_ups(root: Path) -> tuple[dict[int, dict], list[dict]]:
    """(memory id -> memory, cases): each case the user's line, the lines before it, its gold."""
    folder = root / "madial_bench" / "data" / "ch"
    memories: dict[int, dict] = {}
    for line in (folder / "MADial-Bench-zh-memory.json").read_text(encoding="utf-8").splitlines():
        if line.strip():
            memories.update({int(k): v for k, v in json.loads(line).items()})
    canonical: dict[tuple[int, str], int] = {}
    collapse = {mid: canonical.setdefault((m["user-id"], m["event"].strip()), mid) for mid, m in sorted(memories.items())}
    cases = []
    for line in (folder / "MADial-Bench-zh-dialogue.json").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        dialogue = json.loads(line)
        turn = dialogue["test-turn"][0]
        said = [_said(x) for x in dialogue["dialogue"][1:turn]]  # after <BOD>, to the user's line
        cases.append({"user": dialogue["user-id"], "message": said[-1][1], "context": _context(said),
                      "gold": sorted({collapse[int(g)] for g in dialogue["relevant-id"]})})
    kept = {mid: m for mid, m in memories.items() if collapse[mid] == mid}
    return kept, cases


def _nearest(bank: np.ndarray, query: np.ndarray, n: int = max(DEPTHS)) -> list[int]:
    scores = bank @ query
    top = np.argpartition(-scores, n)[:n]
    return [int(i) for i in top[np.argsort(-scores[top])]]


def _shares(items: list[tuple[np.ndarray, np.ndarray, np.ndarray | None, list[int]]], how: str,
            weight: float = 1.0) -> str:
    """Share of the gold rows among the ``DEPTHS`` first of each ranking: the message's own nearest
    (``alone``), those of the message leaning on its context (``leaning``), or the app's alternation of
    the two (``app``: ``shortlist.CONTEXT_SHARE`` of the places to the leaning query's)."""
    from sonetto_desktop.memory.retrieval.shortlist import CONTEXT_SHARE, interleave, lean

    hits = dict.fromkeys(DEPTHS, 0)
    total = 0
    for bank, message, context, gold in items:
        own = _nearest(bank, message)
        if context is None or how == "alone":
            ranked = own
        elif how == "leaning":
            ranked = _nearest(bank, lean(message, context, weight))
        else:
            ranked = interleave(own, _nearest(bank, lean(message, context, weight)), 1 - CONTEXT_SHARE)
        where = {row: place for place, row in enumerate(ranked[:max(DEPTHS)])}
        for row in gold:
            for depth in DEPTHS:
                hits[depth] += where.get(row, depth) < depth
            total += 1
    return " / ".join(f"{hits[d] / max(total, 1):.3f}" for d in DEPTHS)


def _report(items: list, weights: list[float]) -> None:
    from sonetto_desktop.memory.retrieval.shortlist import CONTEXT_WEIGHT

    print(f"  {'alone':24} {_shares(items, 'alone')}")
    for w in weights:
        print(f"  {'leaning ' + str(w):24} {_shares(items, 'leaning', w)}")
    print(f"  {'the app (leaning ' + str(CONTEXT_WEIGHT) + ')':24} {_shares(items, 'app', CONTEXT_WEIGHT)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.recall_context")
    parser.add_argument("--size", type=int, default=10_000, help="other people's memories around each bank")
    parser.add_argument("--weights", default="0.3,0.5,1.0")
    parser.add_argument("--model", default="e5")
    parser.add_argument("--datasets", type=Path, default=None)
    args = parser.parse_args(argv)
    from bench.embed_models import Embedder
    from bench.recall import load_dataset
    from bench.recall_reach import distractors, public_pool

    root = args.datasets or default_root()
    if root is None:
        raise SystemExit("no datasets folder (--datasets or SONETTO_DATASETS)")
    weights = [float(w) for w in args.weights.split(",")]
    emb = Embedder(args.model)
    others = distractors("spread", args.size, public_pool(root), set(), {"madial"}, datetime(2025, 1, 1), "older")
    around = emb.passages([m.description for m in others], progress=True)

    memories, cases = madial_follow_ups(root)
    ids = sorted(memories)
    own = emb.passages([memories[mid]["event"].strip() for mid in ids])
    messages = emb.queries([c["message"] for c in cases])
    contexts = emb.queries([c["context"] or c["message"] for c in cases])
    print(f"follow-ups: MADial zh, {len(cases)} messages, each user's memories among {args.size:,} others "
          f"(gold among the nearest {' / '.join(map(str, DEPTHS))})")
    items = []
    for case, message, context in zip(cases, messages, contexts, strict=True):
        mine = [i for i, mid in enumerate(ids) if memories[mid]["user-id"] == case["user"]]
        gold = [len(around) + mine.index(ids.index(g)) for g in case["gold"]]
        items.append((np.vstack([around, own[mine]]), message, context if case["context"] else None, gold))
    _report(items, weights)

    phenomena = load_dataset(DATASETS / "recall-phenomena.yaml", datetime(2026, 6, 1, 12))
    queries = [q for q in phenomena.queries if q.gold]
    bank = np.vstack([around, emb.passages([m.description for m in phenomena.memories])])
    where = {m.id: len(around) + i for i, m in enumerate(phenomena.memories)}
    alone = emb.queries([q.q for q in queries])
    # another topic before: another question of the set and a reply to it (seven questions on)
    before = emb.queries([f"{queries[(i + 7) % len(queries)].q}\n好的，我记下了。" for i in range(len(queries))])
    print(f"a change of topic: recall-phenomena, {len(queries)} single messages after another topic's two lines")
    _report([(bank, a, b, [where[g] for g in q.gold]) for q, a, b in zip(queries, alone, before, strict=True)], weights)
    emb.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
