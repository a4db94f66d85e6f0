"""MADial's follow-ups recalled at a budget as the app asks them: each message with the conversation
before it, a cloud endpoint's conversation block driven line by line.

    SONETTO_DATASETS=… python -m bench.recall_dialogue [--size 10000] [--budgets 16000,48000] [--model e5|none]

``bench.recall_issue36`` asks every set's questions as single messages. MADial-Bench's questions are not
single messages: each is the person's line in a dialogue, after the lines before it, and the app gives
recall those lines (``agent.graph.conversation_context``; ``MemoryRecall`` cuts them). Here each
dialogue is asked through ``MemoryRecall._plan`` itself (a real SQLite store, the offline retriever, the
vectors of ``--model`` as the app stores them, int8) over the user's MADial memories among ``--size``
other people's memories (``bench.recall_reach``'s public pool, dated over the two years before, as in
``bench.recall_issue36``), four ways:

- *whole budget* (a local server, or no endpoint): the message alone / with the lines before it;
- *conversation block* (a cloud endpoint): the message as a conversation's first / every line of the
  person's in the dialogue asked in order (each with the lines before it, as a chat sends them; the
  block kept between them as the app keeps it), the last one measured.

Reach = the gold memories in what the recall model is shown / the gold memories (micro), as in
``bench.recall_issue36`` (whose MADial rows are the "message alone" ones, up to the bank's layout).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.recall_context import madial_follow_ups  # noqa: E402
from bench.recall_scale_e5 import default_root  # noqa: E402

WAYS = ("whole budget, the message alone", "whole budget, with the lines before it",
        "conversation block, the message first", "conversation block, the dialogue in order")


def dialogues(root: Path) -> dict[int, list[dict[str, Any]]]:
    """user -> the user's dialogues: the (speaker, text) lines up to the person's line asked, and its gold
    (memory ids as ``bench.recall_public.madial_groups`` names them: duplicates collapsed)."""
    out: dict[int, list[dict[str, Any]]] = {}
    for case in madial_follow_ups(root)[1]:
        out.setdefault(case["user"], []).append({"said": case["said"], "gold": [str(g) for g in case["gold"]]})
    return out


def app_context(said: list[tuple[str, str]]) -> str:
    """What the graph gives recall for the last of ``said`` (the person's line): the lines before it."""
    from langchain_core.messages import AIMessage, HumanMessage

    from sonetto_desktop.agent.graph import conversation_context

    return conversation_context([AIMessage(text) if who == "Assistant" else HumanMessage(text) for who, text in said])


class Vectors:
    """A ``DenseRanker`` over the bank's vectors as the app keeps them (int8), queries embedded on demand."""

    model_key = "e5"

    def __init__(self, emb: Any, ids: list[str], texts: list[str]) -> None:
        from bench.recall_scale_e5 import _DenseBank

        self.emb, self.base = emb, _DenseBank(emb, ids, texts)
        self.bank = self.base
        self.model_key = getattr(emb, "name", "model")

    def with_group(self, ids: list[str], texts: list[str]) -> None:
        self.bank = self.base.extend(ids, texts) if ids else self.base

    def embed_query(self, prompt: str) -> np.ndarray:
        return self.emb.queries([prompt])[0]

    def embed_queries(self, texts: list[str]) -> list[np.ndarray]:
        return list(self.emb.queries(texts))

    def nearest(self, vector: Any, k: int) -> list[str]:
        return [mid for mid, _ in self.bank.rank(np.asarray(vector, dtype=np.float32), k)[0]]


def measure(groups: dict[int, Any], asked: dict[int, list[dict[str, Any]]], others: list, emb: Any,
            budgets: list[int]) -> dict[tuple[int, str], list[int]]:
    """(budget, way) -> [gold found, gold asked]: each user's dialogues (``asked``) over the user's
    memories (``groups``: ``bench.recall_public.madial_groups`` by user) among ``others``; ``emb``: an
    embeddings model with ``passages`` / ``queries`` (``bench.embed_models.Embedder``), None: words only."""
    from bench.recall_issue36 import _Frozen
    from bench.recall_reach import Bank

    tally = {(b, way): [0, 0] for b in budgets for way in WAYS}
    with tempfile.TemporaryDirectory(prefix="sonetto-dialogue-") as tmp:
        bank = Bank(Path(tmp), others)
        vectors = Vectors(emb, [m.id for m in others], [m.description for m in others]) if emb is not None else None
        recalls = {b: bank.recall(b, vectors) for b in budgets}
        try:
            for user in sorted(asked):
                group = groups[user]
                id_map = bank.add(group)
                if vectors is not None:
                    vectors.with_group([id_map[m.id] for m in group.bank if m.id in id_map],
                                       [m.description for m in group.bank if m.id in id_map])
                bank.now = group.now
                for dialogue in asked[user]:
                    said, gold = dialogue["said"], {id_map[g] for g in dialogue["gold"] if g in id_map}
                    for b, recall in recalls.items():
                        recall.agreement = _Frozen()  # the model takes part (e5's agreement on our sets: 0.73)
                        for way in WAYS:
                            found = len(gold & _shown(recall, said, way))
                            tally[(b, way)][0] += found
                            tally[(b, way)][1] += len(gold)
                bank.remove(id_map.values())
                print(f"user {user}: " + ", ".join(f"{b:,} {way} {t[0] / max(t[1], 1):.3f}"
                                                   for (b, way), t in tally.items()), file=sys.stderr, flush=True)
        finally:
            for recall in recalls.values():
                recall.close()
            bank.close()
    return tally


def _shown(recall: Any, said: list[tuple[str, str]], way: str) -> set[str]:
    """The memories ``recall`` shows the model for the last of ``said``, asked ``way``."""
    recall.conversation_block = way.startswith("conversation")
    recall.conversation.reset()  # a new conversation
    if way.endswith("in order"):
        for i, (who, text) in enumerate(said[:-1]):
            if who != "Assistant":  # the person's earlier lines, each as a chat sends it
                recall._plan(text, "hybrid", app_context(said[: i + 1]))
    plan = recall._plan(said[-1][1], "hybrid", app_context(said) if way.endswith(("before it", "in order")) else "")
    return {r["id"] for r in plan.records + plan.extra}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.recall_dialogue")
    parser.add_argument("--size", type=int, default=10_000, help="memories in the bank (other people's + the user's)")
    parser.add_argument("--budgets", default="16000,48000")
    parser.add_argument("--model", default="e5", help="the embeddings model (bench.embed_models), none: words only")
    parser.add_argument("--datasets", type=Path, default=None)
    args = parser.parse_args(argv)
    root = args.datasets or default_root()
    if root is None:
        raise SystemExit("no datasets folder (--datasets or SONETTO_DATASETS)")
    budgets = [int(b) for b in args.budgets.split(",")]
    from bench.embed_models import Embedder
    from bench.recall_public import madial_groups
    from bench.recall_reach import distractors, public_pool

    groups = {int(g.name.removeprefix("madial-user")): g for g in madial_groups(root)}
    largest = max(len(g.bank) for g in groups.values())
    own = {m.description for g in groups.values() for m in g.bank}
    anchor = max(g.now for g in groups.values())
    others = distractors("public", max(args.size - largest, 0), public_pool(root), own, {"madial"}, anchor, "spread")
    tally = measure(groups, dialogues(root), others, Embedder(args.model) if args.model != "none" else None, budgets)
    print(f"\nMADial zh follow-ups, {args.size:,} memories, {args.model} (reach: gold shown / gold)\n")
    print("| way | " + " | ".join(f"{b:,}" for b in budgets) + " |")
    print("|---|" + "---:|" * len(budgets))
    for way in WAYS:
        print(f"| {way} | " + " | ".join(f"{tally[(b, way)][0] / max(tally[(b, way)][1], 1):.3f} "
                                         f"({tally[(b, way)][0]}/{tally[(b, way)][1]})" for b in budgets) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
