"""DeepSeek's export (chat.deepseek.com → 设置 → 数据管理 → 导出所有历史对话): ``conversations.json``
in the zip. Best effort: DeepSeek documents no format; the shape below is what independent public
readers of these exports agree on, and anything else is refused rather than guessed.

A list of conversations ``{id, title, inserted_at, updated_at, mapping}``; ``mapping`` is a tree
from the node ``root``, each node's ``message`` holding ``inserted_at`` and ``fragments`` (``REQUEST``:
the person's words, ``RESPONSE``: DeepSeek's reply; ``THINK`` and other kinds are left out). The
export does not say which branch of a regenerated reply was kept: at each step the **last** child is
taken, as the web page shows the latest one.

**Saved from the web page** by the popular userscripts (one chat a file, or a zip or folder of them):
the page's own answer for one chat, ``{code, data: {biz_data: {chat_session, chat_messages}}}`` (or
just its ``biz_data``). ``chat_session`` holds ``id``, ``title`` and ``current_message_id`` (the last
message of the branch on screen); ``chat_messages`` every message of every branch, each with
``message_id``, ``parent_id``, ``role`` (``USER`` / ``ASSISTANT``) and ``inserted_at`` (seconds since
1970). Two versions of the page's API are read: the older puts the words in ``content`` (and the
reasoning in ``thinking_content``, left out), the newer in ``fragments`` as the export does. The
branch ending at ``current_message_id`` is taken; without it, the one ending at the last message.
"""

from __future__ import annotations

from functools import partial
from collections import Counter
from typing import Any

from .json_stream import JsonStream, Skipped
from .model import (BadConversation, Conversation, History, HistoryFormatError, Message, When, convert_one, made_id,
                    read_epoch, read_iso)
from .source_files import Source, listed_conversations, open_json

_ROLES = {"REQUEST": "user", "RESPONSE": "assistant"}


_NOTE = ("DeepSeek 没有公开导出格式：按公开的解析器读取（尽力而为），重新生成过的回复取最后一个",
         "DeepSeek publishes no export format: read as public parsers do (best effort); of "
         "regenerated replies the last one is kept")


def read(source: Source) -> History:
    history = History("deepseek")
    history.notes.append(_NOTE)
    name = source.find("conversations.json")
    if name is None and len(source.names) == 1:
        name = source.names[0]
    if name is not None:
        source.note_unread(history, name)
        stream = open_json(source, name)
        if stream.peek() == "{":
            _read_saved(history, name, stream)
        else:
            _read_export(history, name, stream)
        stream.finish()
    else:  # a zip or folder of chats saved from the web page, one a file
        saved = sorted(n for n in source.names if n.lower().endswith(".json"))
        if not saved:
            raise HistoryFormatError(f"{source.path.name} 里没有 DeepSeek 的对话（.json）",
                                     f"{source.path.name} holds no DeepSeek chats (.json)")
        for member in saved:
            stream = open_json(source, member)
            if stream.peek() != "{":
                raise HistoryFormatError(f"{member} 不是从 DeepSeek 网页保存的对话",
                                         f"{member} is not a DeepSeek chat saved from the web page")
            _read_saved(history, member, stream)
            stream.finish()
    history.note_guessed_branches("{0} 个对话没有记录屏幕上是哪个分支：取最后一条消息所在的分支",
                                  "{0} conversations do not say which branch was on screen: the branch of the "
                                  "last message was taken")
    return history


def _read_export(history: History, name: str, stream: JsonStream) -> None:
    for index, raw in listed_conversations(history, name, stream):
        mapping = raw.get("mapping") if isinstance(raw, dict) else None
        if not isinstance(mapping, dict) or not isinstance(mapping.get("root"), dict):
            raise HistoryFormatError(f"{name} 的第 {index} 个对话没有 mapping.root，不是 DeepSeek 的导出格式",
                                     f"conversation {index} of {name} has no mapping.root: not a DeepSeek export")
        conversation = convert_one(history, name, index, raw, partial(_conversation, index=index, name=name))
        if conversation is not None and conversation.messages:
            history.conversations.append(conversation)


def _read_saved(history: History, name: str, stream: JsonStream) -> None:
    """One chat saved from the web page (the module docstring): its ``chat_session`` and
    ``chat_messages`` are found a key at a time, under ``data.biz_data`` or at the top."""
    found: dict[str, Any] = {}

    def walk(depth: int) -> None:
        for key in stream.members():
            if key in ("chat_session", "chat_messages", "msg", "code"):
                found[key] = stream.value()
            elif key in ("data", "biz_data") and depth < 2 and stream.peek() == "{":
                walk(depth + 1)

    walk(0)
    if "chat_messages" not in found:
        said = found.get("msg") if isinstance(found.get("msg"), str) and found.get("code") not in (None, 0) else ""
        detail = f"（网页的回答是：{said[:80]}）" if said else ""
        raise HistoryFormatError(f"{name} 里没有 chat_messages，不是从 DeepSeek 网页保存的对话{detail}",
                                 f"{name} has no chat_messages: not a DeepSeek chat saved from the web page"
                                 + (f" (the page answered: {said[:80]})" if said else ""))
    session, messages = found.get("chat_session"), found["chat_messages"]
    for part in (session, messages):
        if isinstance(part, Skipped):
            history.bad.append(BadConversation(name, 1, "", part.zh, part.en))
            return
    raw = dict(session) if isinstance(session, dict) else {}
    raw["chat_messages"] = messages
    conversation = convert_one(history, name, 1, raw, partial(_saved_conversation, name=name))
    if conversation is not None and conversation.messages:
        history.conversations.append(conversation)


def _stamp(value: Any) -> When | None:
    """``inserted_at`` as the page's API gives it (seconds since 1970), or ISO text."""
    if value is None:
        return None
    return read_iso(value) if isinstance(value, str) else read_epoch(value)


def _saved_conversation(raw: dict[str, Any], skipped: Counter, *, name: str) -> Conversation:
    if not isinstance(raw["chat_messages"], list):
        raise HistoryFormatError(f"{name} 的 chat_messages 不是列表，不是从 DeepSeek 网页保存的对话",
                                 f"the chat_messages of {name} is not a list: not a DeepSeek chat saved from the web page")
    listed = [m for m in raw["chat_messages"] if isinstance(m, dict)]
    by_id = {m["message_id"]: m for m in listed if isinstance(m.get("message_id"), (int, str))}
    leaf = raw.get("current_message_id")
    said = leaf in by_id if isinstance(leaf, (int, str)) else False
    node: Any = leaf if said else next((m["message_id"] for m in reversed(listed) if m.get("message_id") in by_id), None)
    path: list[dict[str, Any]] = []
    seen: set[Any] = set()
    while isinstance(node, (int, str)) and node in by_id and node not in seen:
        seen.add(node)
        path.append(by_id[node])
        node = by_id[node].get("parent_id")
    path.reverse()
    if len(listed) > len(path):
        skipped["other_branch"] += len(listed) - len(path)
    siblings = Counter(m.get("parent_id") for m in by_id.values())
    branched = any(count > 1 for count in siblings.values())
    title = " ".join(str(raw.get("title") or "").split())
    last = _stamp(raw.get("inserted_at"))
    messages: list[Message] = []
    for msg in path:
        last = _stamp(msg.get("inserted_at")) or last
        role = _ROLES.get({"USER": "REQUEST", "ASSISTANT": "RESPONSE"}.get(str(msg.get("role") or "").upper(), ""))
        fragments = msg.get("fragments")
        if isinstance(fragments, list):  # the newer API: as in the export
            texts = _fragments(fragments, skipped)
        else:  # the older API: the words in content, the reasoning beside them
            if str(msg.get("thinking_content") or "").strip():
                skipped["hidden"] += 1
            words = str(msg.get("content") or "").strip()
            if role is None:
                skipped["other_role"] += 1
                continue
            if not words:
                skipped["empty"] += 1
            texts = {role: [words] if words else []}
        for who in ("user", "assistant"):
            if not texts.get(who):
                continue
            if last is None:
                skipped["no_time"] += 1
            else:
                messages.append(Message(who, "\n".join(texts[who]), last.local, f"{msg.get('message_id')}:{who}",
                                        last.instant))
    cid = str(raw.get("id") or "")
    legacy = ""
    if not cid:
        cid, legacy = made_id("deepseek-", title, messages)
    return Conversation(cid, title or (messages[0].text[:30] if messages else ""), messages, branched and not said,
                        legacy)


def _fragments(fragments: list[Any], skipped: Counter) -> dict[str, list[str]]:
    """The person's words (``REQUEST``) and DeepSeek's (``RESPONSE``); ``THINK`` and others left out."""
    texts: dict[str, list[str]] = {"user": [], "assistant": []}
    for fragment in fragments:
        kind = fragment.get("type") if isinstance(fragment, dict) else None
        role = _ROLES.get(str(kind).upper()) if kind else None
        content = str(fragment.get("content") or "").strip() if isinstance(fragment, dict) else ""
        if role is None:
            skipped["non_text"] += 1
        elif not content:
            skipped["empty"] += 1
        else:
            texts[role].append(content)
    return texts


def _conversation(raw: dict[str, Any], skipped: Counter, *, index: int, name: str) -> Conversation:
    mapping: dict[str, Any] = raw["mapping"]
    title = " ".join(str(raw.get("title") or "").split())
    last = read_iso(raw.get("inserted_at"))
    messages: list[Message] = []
    seen: set[str] = set()
    node: Any = "root"
    branches = False
    while isinstance(node, str) and node in mapping and node not in seen:
        seen.add(node)
        entry = mapping[node] if isinstance(mapping[node], dict) else {}
        msg = entry.get("message")
        if isinstance(msg, dict):
            fragments = msg.get("fragments")
            if not isinstance(fragments, list):
                raise HistoryFormatError(f"{name} 的第 {index} 个对话里有消息没有 fragments，不是 DeepSeek 的导出格式",
                                         f"a message of conversation {index} of {name} has no fragments: "
                                         "not a DeepSeek export")
            last = read_iso(msg.get("inserted_at")) or last
            texts = _fragments(fragments, skipped)
            for role in ("user", "assistant"):
                if texts[role] and last is not None:
                    messages.append(Message(role, "\n".join(texts[role]), last.local, f"{node}:{role}", last.instant))
                elif texts[role]:
                    skipped["no_time"] += 1
        children = [c for c in entry.get("children") or [] if isinstance(c, str)]
        branches = branches or len(children) > 1
        node = children[-1] if children else None
    cid = str(raw.get("id") or "")
    legacy = ""
    if not cid:
        cid, legacy = made_id("deepseek-", title, messages)
    return Conversation(cid, title or (messages[0].text[:30] if messages else ""), messages, branches, legacy)
