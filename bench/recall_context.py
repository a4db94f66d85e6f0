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

The first part measures the vectors' ranking alone. ``--shortlist`` measures the offline retriever's own
answer (MECHANICAL recall: the message alone, or with the memories of the message after its context
in the places it leaves) and the app's whole ranking
(``Shortlist.ranking``: the offline retriever's words on a real SQLite store of the same memories, fused
with the vectors) three ways: the message alone; the conversation read by the vectors only (the words'
ranking of the message alone); and read by both (the words' ranking also takes, one place in four, the
matches of the message with the lines before it: ``Shortlist._words``). Other people's MADial memories
are left out of each dialogue's ranking, as if each user's bank were their own. Each depth N is asked as
``Shortlist.fill`` asks for a budget of about N memories (the ranking depends on how many are asked: a
short message's sure matches take at most half of them). The whole shortlist's reach per budget is
``bench.recall_issue36``'s.
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
    from sonetto_desktop.memory.retrieval.llm_prompt import said_text
    from sonetto_desktop.memory.retrieval.recall import _context as cut

    messages = [AIMessage(text) if who == "Assistant" else HumanMessage(text) for who, text in lines]
    return said_text(cut(lines[-1][1], conversation_context(messages)))  # what the words and vectors read


def madial_follow_ups(root: Path) -> tuple[dict[int, dict], list[dict]]:
    """(memory id -> memory, cases): each case the user's line, the lines before it (as recall reads them,
    and ``said``: the dialogue's (speaker, text) lines to the user's), its gold."""
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
        cases.append({"user": dialogue["user-id"], "message": said[-1][1], "context": _context(said), "said": said,
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


class _Bank:
    """The memories as the app holds them: a SQLite store, the offline retriever over it, and their
    vectors searched with numpy (``DenseRanker``)."""

    def __init__(self, folder: Path, texts: list[str], vectors: np.ndarray, model: str) -> None:
        from sonetto_desktop.memory.item import MemoryItem
        from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever
        from sonetto_desktop.memory.stores.sqlite import SqliteMemoryManager

        self.mm = SqliteMemoryManager(folder / "memory.sqlite3")
        self.mm.import_items({f"m{i:05d}": MemoryItem(text, "瞬间", latest_update_time=f"2024-{1 + i % 12:02d}-01 12:00:00")
                              for i, text in enumerate(texts)})
        by_text = {item.description: mid for mid, item in self.mm.all_items().items()}
        self.ids = [by_text[text] for text in texts]
        self.mechanical = MechanicalRetriever(self.mm, now=lambda: datetime(2025, 1, 1), index_path=False)
        self.mechanical.warm_up()
        self.vectors, self.model_key, self.queries = vectors, model, {}

    def embed_query(self, prompt: str) -> np.ndarray:
        return self.queries[prompt]

    def embed_queries(self, texts: list[str]) -> list[np.ndarray]:
        return [self.queries[t] for t in texts]

    def nearest(self, vector: np.ndarray, k: int) -> list[str]:
        return [self.ids[i] for i in _nearest(self.vectors, vector, min(k, len(self.ids) - 1))]

    def close(self) -> None:
        self.mechanical.close()
        self.mm.close()


def _shortlist_shares(bank: _Bank, cases: list[tuple[str, str, set[str], list[str]]], how: str, dense: bool) -> str:
    """Gold among the first ``DEPTHS`` of ``Shortlist.ranking`` (each case: message, context, the ids it
    may see (None: all), gold ids)."""
    from sonetto_desktop.memory.retrieval.agreement import ModelAgreement
    from sonetto_desktop.memory.retrieval.shortlist import SLACK, Shortlist

    class VectorsOnly(Shortlist):  # the conversation read by the vectors alone (before the words read it)
        def _context_ranking(self, prompt: str, k: int) -> tuple[list, list[str]]:
            return [], []

    kind = VectorsOnly if how == "vectors" else Shortlist
    hits = dict.fromkeys(DEPTHS, 0)
    total = 0
    for message, context, hidden, gold in cases:
        for depth in DEPTHS:  # asked as ``Shortlist.fill`` asks for a budget of that many memories
            want = int(1.2 * depth) + SLACK
            while True:
                ranked = kind(bank.mechanical, bank if dense else None, ModelAgreement(),
                              "" if how == "alone" else context).ranking(message, want)
                seen = [mid for mid in ranked if mid not in hidden]
                if len(seen) >= depth or len(ranked) < want:
                    break
                want = want * 3 // 2
            hits[depth] += len(set(seen[:depth]) & set(gold))
        total += len(gold)
    return " / ".join(f"{hits[d] / max(total, 1):.3f}" for d in DEPTHS)


def _offline_answer(folder: Path, others: list, groups: list[tuple[list[str], list[tuple[str, str, list[int]]]]],
                    context: bool) -> str:
    """The offline retriever's own answer (MECHANICAL recall, at most ``top_k``) with each group's
    memories (a MADial user's, or the phenomena set's) added to the others, then taken out again: gold
    found, memories given per message, messages given none. Each case: message, context, gold (indices
    into its group's memories)."""
    from sonetto_desktop.memory.item import MemoryItem
    from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever
    from sonetto_desktop.memory.stores.sqlite import SqliteMemoryManager

    mm = SqliteMemoryManager(folder / f"offline-{int(context)}.sqlite3")
    mm.import_items({f"o{i:05d}": MemoryItem(m.description, m.theme, latest_update_time=m.latest_update_time)
                     for i, m in enumerate(others)})
    retriever = MechanicalRetriever(mm, now=lambda: datetime(2025, 1, 1), index_path=False)
    retriever.warm_up()
    found = total = given = empty = asked = 0
    try:
        for texts, cases in groups:
            added = {f"g{i:04d}": MemoryItem(text, "瞬间", latest_update_time="2024-06-01 12:00:00")
                     for i, text in enumerate(texts)}
            mm.import_items(added)
            ids = {item.description: mid for mid, item in mm.all_items().items()}
            mine = [ids[text] for text in texts]
            for message, before, gold in cases:
                answer = [doc["id"] for doc in retriever.retrieve(message, context=before if context else "")]
                found += sum(mine[g] in answer for g in gold)
                total, given, empty, asked = total + len(gold), given + len(answer), empty + (not answer), asked + 1
            for mid in mine:
                mm.delete(mid, "bench", actor="cli")
    finally:
        retriever.close()
        mm.close()
    return f"{found / max(total, 1):.3f} of the gold, {given / max(asked, 1):.2f} per message, {empty} none"


def shortlist_report(root: Path, emb, others: list, around: np.ndarray, model: str) -> None:
    import tempfile

    from bench.recall import load_dataset

    memories, cases = madial_follow_ups(root)
    ids = sorted(memories)
    phenomena = load_dataset(DATASETS / "recall-phenomena.yaml", datetime(2026, 6, 1, 12))
    texts = [m.description for m in others] + [memories[mid]["event"].strip() for mid in ids] + \
        [m.description for m in phenomena.memories]
    vectors = np.vstack([around, emb.passages(texts[len(others):])])
    with tempfile.TemporaryDirectory(prefix="sonetto-context-") as tmp:
        bank = _Bank(Path(tmp), texts, vectors, model)
        try:
            mine = {mid: bank.ids[len(others) + i] for i, mid in enumerate(ids)}
            theirs = {m.id: bank.ids[len(others) + len(ids) + i] for i, m in enumerate(phenomena.memories)}
            messages = [c["message"] for c in cases]
            contexts = [c["context"] for c in cases]
            bank.queries.update(zip(messages, emb.queries(messages), strict=True))
            bank.queries.update((c, v) for c, v in zip(contexts, emb.queries([c or "-" for c in contexts]), strict=True) if c)
            follow = [(c["message"], c["context"],
                       {mine[mid] for mid in ids if memories[mid]["user-id"] != c["user"]} | set(theirs.values()),
                       [mine[g] for g in c["gold"]]) for c in cases]
            queries = [q for q in phenomena.queries if q.gold]
            before = [_context([("User", queries[(i + 7) % len(queries)].q), ("Assistant", "好的，我记下了。"),
                                ("User", q.q)]) for i, q in enumerate(queries)]
            bank.queries.update(zip([q.q for q in queries], emb.queries([q.q for q in queries]), strict=True))
            bank.queries.update(zip(before, emb.queries(before), strict=True))
            madial = set(mine.values())
            topic = [(q.q, b, madial, [theirs[g] for g in q.gold]) for q, b in zip(queries, before, strict=True)]
            users: dict[int, list[int]] = {}
            for mid in ids:
                users.setdefault(memories[mid]["user-id"], []).append(mid)
            by_user = [([memories[mid]["event"].strip() for mid in users[user]],
                        [(c["message"], c["context"], [users[user].index(g) for g in c["gold"]])
                         for c in cases if c["user"] == user]) for user in sorted(users)]
            where = {m.id: i for i, m in enumerate(phenomena.memories)}
            changed = [([m.description for m in phenomena.memories],
                        [(q.q, b, [where[g] for g in q.gold]) for q, b in zip(queries, before, strict=True)])]
            print(f"the offline answer (MECHANICAL recall, at most {bank.mechanical.top_k}), each bank among "
                  f"{len(others):,} others:")
            for context in (False, True):
                name = "context: words" if context else "the message alone"
                print(f"  {name:28} follow-ups {_offline_answer(Path(tmp), others, by_user, context)}   "
                      f"new topic {_offline_answer(Path(tmp), others, changed, context)}")
            for dense in (False, True):
                label = f"words + {model}" if dense else "words only"
                print(f"the app's ranking ({label}), gold among its first {' / '.join(map(str, DEPTHS))}:")
                for how in ("alone", "vectors", "both"):
                    if how == "vectors" and not dense:
                        continue
                    name = {"alone": "the message alone", "vectors": "context: vectors",
                            "both": "context: words and vectors" if dense else "context: words"}[how]
                    print(f"  {name:28} follow-ups {_shortlist_shares(bank, follow, how, dense)}   "
                          f"new topic {_shortlist_shares(bank, topic, how, dense)}")
        finally:
            bank.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.recall_context")
    parser.add_argument("--size", type=int, default=10_000, help="other people's memories around each bank")
    parser.add_argument("--weights", default="0.3,0.5,1.0")
    parser.add_argument("--model", default="e5")
    parser.add_argument("--datasets", type=Path, default=None)
    parser.add_argument("--shortlist", action="store_true",
                        help="also the app's whole ranking (words on a real store, fused with the vectors)")
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
    if args.shortlist:
        shortlist_report(root, emb, others, around, args.model)
    emb.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
