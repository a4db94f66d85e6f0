"""A ChatGPT-shaped ``conversations.json`` of a chosen size, written as a stream (issue 37): the
bench's own memory stays small whatever the size, so a 2 GB export can be made on a small machine.

    python -m bench.chatgpt_export OUT.json --mb 200 [--seed 7]

Shaped like a real export: conversations of 1–30 turns over about two years, 75% Chinese and 25%
English, user messages of a sentence or a paragraph, replies of 80–2,500 characters; each message
node with the metadata a real export carries (model slug, request id, finish details, citations);
a hidden system message at the root, some regenerated replies and edited messages (branches, the kept
one at ``current_node``), some tool calls and their output, some images, a few conversations without
a ``current_node``, and a saved-memory snapshot now and then. Seeded: the same arguments, the same bytes.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import uuid
from pathlib import Path
from typing import Any

ZH_SUBJECTS = ["搬家", "换工作", "学日语", "养猫", "跑步", "考研", "装修", "旅行", "做饭", "弹吉他", "减肥", "看病",
               "带孩子", "买房", "写论文", "面试", "理财", "健身", "开网店", "学编程"]
EN_SUBJECTS = ["moving", "a new job", "Japanese", "my cat", "running", "grad school", "the renovation", "a trip",
               "cooking", "guitar", "my diet", "a doctor visit", "my thesis", "an interview", "investing"]
ZH_ASK = ["我最近在忙{s}，有点累但挺开心。你觉得我下一步该怎么做？", "关于{s}，我下周三要去处理一下，帮我列个清单。",
          "跟你说，{s}的事终于有进展了！不过还有几个问题想问你。", "帮我想想{s}该怎么安排，我周末有空，预算大概三千块。",
          "{s}这件事我纠结了好久，我妈觉得不行，我自己其实挺想试试的，你怎么看？", "能不能用表格对比一下{s}的几种方案？"]
EN_ASK = ["I've been busy with {s} lately. What should I do next?", "About {s}: I need to sort it out next Wednesday.",
          "Good news, {s} is finally moving along! A few questions though.", "Can you help me plan {s}? I'm free this weekend."]
#: Sentences replies are made of, in Chinese (and a pool of characters to vary them, so the text
#: compresses and tokenizes like real chats, not like one repeated line).
ZH_REPLY = ["这是一个很好的问题。", "首先，建议你把最重要的事情列出来，按优先级排序。", "其次，可以考虑分阶段进行，每周检查一次进度。",
            "另外，别忘了留出休息的时间，身体最重要。", "如果预算有限，可以先从最基本的开始，慢慢再加。",
            "下面是一个简单的计划：\n1. 确定目标\n2. 收集信息\n3. 做出决定\n4. 执行并复盘", "总之，一步一步来，不用着急。",
            "你提到的这个情况很常见，很多人都会遇到。", "我的建议是先和家人好好沟通一下，说明你的想法和理由。"]
EN_REPLY = ["That's a great question. ", "First, list what matters most and sort it by priority. ",
            "Second, do it in stages and check progress weekly. ", "Also, leave time to rest; health comes first. ",
            "Here is a simple plan:\n1. Set the goal\n2. Gather information\n3. Decide\n4. Act and review\n"]
_HAN = [chr(c) for c in range(0x4E00, 0x4E00 + 6000, 3)]
START = 1_640_995_200  # 2022-01-01 UTC
SPAN = 2 * 365 * 86400


def _zh_text(rng: random.Random, chars: int) -> str:
    out: list[str] = []
    size = 0
    while size < chars:
        piece = rng.choice(ZH_REPLY) if rng.random() < 0.7 else "".join(rng.choice(_HAN) for _ in range(rng.randint(8, 40))) + "。"
        out.append(piece)
        size += len(piece)
    return "".join(out)


def _en_text(rng: random.Random, chars: int) -> str:
    out: list[str] = []
    size = 0
    while size < chars:
        piece = rng.choice(EN_REPLY)
        out.append(piece)
        size += len(piece)
    return "".join(out)


def _message(rng: random.Random, role: str, stamp: float, content: dict[str, Any], *, recipient: str = "all",
             hidden: bool = False, parent: str = "") -> dict[str, Any]:
    metadata: dict[str, Any] = {"timestamp_": "absolute", "message_type": None}
    if role == "assistant":
        metadata.update({"finish_details": {"type": "stop", "stop_tokens": [200002]}, "citations": [],
                         "content_references": [], "is_complete": True, "model_slug": "gpt-4o",
                         "default_model_slug": "auto", "parent_id": parent,
                         "request_id": f"{rng.getrandbits(64):016x}-HKG"})
    if role == "user":
        metadata.update({"request_id": f"{rng.getrandbits(64):016x}-HKG", "message_source": None,
                         "serialization_metadata": {"custom_symbol_offsets": []}})
    if hidden:
        metadata["is_visually_hidden_from_conversation"] = True
    return {"id": str(uuid.UUID(int=rng.getrandbits(128))), "author": {"role": role, "name": None, "metadata": {}},
            "create_time": stamp, "update_time": None, "content": content, "status": "finished_successfully",
            "end_turn": True if role == "assistant" else None, "weight": 1.0, "metadata": metadata,
            "recipient": recipient, "channel": None}


def conversation(n: int, rng: random.Random) -> dict[str, Any]:
    """One conversation (see the module docstring)."""
    english = rng.random() < 0.25
    subject = rng.choice(EN_SUBJECTS if english else ZH_SUBJECTS)
    stamp = START + rng.random() * SPAN
    turns = min(30, max(1, int(rng.expovariate(1 / 6))))
    mapping: dict[str, dict[str, Any]] = {}

    def node(message: dict[str, Any] | None, parent: str | None) -> str:
        nid = message["id"] if message else str(uuid.UUID(int=rng.getrandbits(128)))
        mapping[nid] = {"id": nid, "message": message, "parent": parent, "children": []}
        if parent is not None:
            mapping[parent]["children"].append(nid)
        return nid

    root = node(None, None)
    last = node(_message(rng, "system", stamp, {"content_type": "text", "parts": [""]}, hidden=True), root)
    snapshot = rng.random() < 0.02
    if snapshot:
        memo = f"1. [2023-05-0{rng.randint(1, 9)}]. 用户在忙{subject}。\n2. 用户养了一只猫，叫团子。"
        last = node(_message(rng, "user", stamp, {"content_type": "model_editable_context",
                                                 "model_set_context": memo, "repository": None,
                                                 "repo_summary": None}, hidden=True), last)
    for turn in range(turns):
        stamp += rng.randint(20, 900)
        ask = rng.choice(EN_ASK if english else ZH_ASK).format(s=subject)
        if rng.random() < 0.3:
            ask += "\n" + (_en_text if english else _zh_text)(rng, rng.randint(40, 400))
        parts: list[Any] = [ask]
        if rng.random() < 0.03:
            parts.insert(0, {"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-x",
                             "size_bytes": 123456, "width": 1024, "height": 768})
        kind = "multimodal_text" if len(parts) > 1 else "text"
        if rng.random() < 0.05 and turn:  # an edited message: the first version stays as a branch
            node(_message(rng, "user", stamp - 5, {"content_type": "text", "parts": [ask[:20]]}), last)
        last = node(_message(rng, "user", stamp, {"content_type": kind, "parts": parts}), last)
        if rng.random() < 0.06:  # a tool call and its output on the kept branch
            call = _message(rng, "assistant", stamp + 2, {"content_type": "code", "language": "unknown",
                                                           "text": json.dumps({"query": subject})},
                            recipient="web.run", parent=last)
            last = node(call, last)
            out = _message(rng, "tool", stamp + 4, {"content_type": "text", "parts": [_en_text(rng, 600)]})
            last = node(out, last)
        reply_size = int(min(2500, max(80, rng.lognormvariate(6.2, 0.8))))
        if rng.random() < 0.08:  # a regenerated reply: the earlier one stays as a branch
            node(_message(rng, "assistant", stamp + 6, {"content_type": "text", "parts": [
                (_en_text if english else _zh_text)(rng, reply_size)]}, parent=last), last)
        stamp += rng.randint(5, 60)
        reply = (_en_text if english else _zh_text)(rng, reply_size)
        last = node(_message(rng, "assistant", stamp, {"content_type": "text", "parts": [reply]}, parent=last), last)
    out: dict[str, Any] = {"title": f"{subject}的事" if not english else f"About {subject}", "create_time": 0.0,
                           "update_time": stamp,
                           "mapping": mapping, "moderation_results": [], "current_node": last,
                           "plugin_ids": None, "conversation_id": str(uuid.UUID(int=rng.getrandbits(128))),
                           "conversation_template_id": None, "gizmo_id": None, "is_archived": False,
                           "safe_urls": [], "default_model_slug": "gpt-4o", "id": ""}
    out["create_time"] = min(m["message"]["create_time"] for m in mapping.values() if m["message"])
    out["id"] = out["conversation_id"]
    if rng.random() < 0.01:  # an old export without the kept branch
        del out["current_node"]
    return out


def write_export(path: Path, megabytes: float, seed: int = 7) -> dict[str, int]:
    """Write ``path`` (about ``megabytes`` MB); returns its size, conversations and turns."""
    rng = random.Random(seed)
    target = int(megabytes * 1024 * 1024)
    written, count = 0, 0
    with open(path, "wb") as out:
        out.write(b"[")
        written = 1
        while written < target:
            data = (b", " if count else b"") + json.dumps(conversation(count, rng), ensure_ascii=False).encode("utf-8")
            out.write(data)
            written += len(data)
            count += 1
        out.write(b"]")
    return {"bytes": written + 1, "conversations": count}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--mb", type=float, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    print(json.dumps(write_export(args.out, args.mb, args.seed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
