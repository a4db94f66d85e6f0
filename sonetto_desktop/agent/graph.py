"""The companion graph (湾流 section 5): recall and writing are nodes of their own. No Qt.

    START -> retrieve_memory -> agent -> (tools -> agent)* -> ltm_write -> END

- ``retrieve_memory`` recalls memories related to the newest user message through the
  ``LongTermMemory``'s recall, which owns the recall timeout and falls back to the offline retriever
  (so a slow model still yields memories); an unexpected failure yields none, never a failed turn.
- ``agent`` calls the model with a system prompt built per call (persona, date, recalled memories as
  delimited data); the prompt is not written into the checkpointed history.
- ``tools`` runs the companion tools; tool errors go back to the model as tool messages.
- ``ltm_write`` hands the finished turn to the background memory writer (journal + enqueue) and
  bounds the stored history.
"""

from __future__ import annotations

import logging
import threading
from typing import Annotated, Any, Sequence

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode, tools_condition
from typing_extensions import TypedDict

from ..memory.retrieval.llm_prompt import PERSON, SONETTO, said_line
from ..memory.retrieval.modes import RetrievalMode
from ..memory.token_estimate import estimate_tokens
from .llm_errors import EmptyReply, LLMNotConfigured, ReplyCut
from .companion_tools import Clock, build_companion_tools, local_now
from .memory_context import format_memory_block
from .persona import build_system_prompt

log = logging.getLogger(__name__)

NODE_NAMES = ("retrieve_memory", "agent", "tools", "ltm_write")

#: Estimated tokens of history (older turns) sent to the model besides the current turn.
DEFAULT_HISTORY_TOKENS = 6000
#: At most this many earlier turns are sent to the model.
DEFAULT_HISTORY_TURNS = 20
#: Messages kept in the checkpointed state; older whole turns are removed in ``ltm_write``.
#: The full transcript for display lives in the session store, not here.
DEFAULT_STORED_MESSAGES = 200


class CompanionState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    used_memories: list[dict[str, Any]]
    memory_block: str
    session_id: str
    turn_id: str


# ── helpers ──────────────────────────────────────────────────────────────────────────────────────

#: What a message costs besides its text (role and the chat template's markers), in estimated tokens.
MESSAGE_OVERHEAD = 4


def message_tokens(message: BaseMessage) -> int:
    """Estimated tokens of a message (the app's one estimate): its text, its tool calls' arguments and
    ``MESSAGE_OVERHEAD``."""
    text = message.text if isinstance(message.content, (str, list)) else str(message.content)
    calls = getattr(message, "tool_calls", None) or []
    return MESSAGE_OVERHEAD + estimate_tokens(text) + sum(estimate_tokens(str(call.get("args", ""))) for call in calls)


def split_turns(messages: Sequence[BaseMessage]) -> list[list[BaseMessage]]:
    """Group messages into turns, each starting at a human message (leading orphans form a turn)."""
    turns: list[list[BaseMessage]] = []
    for message in messages:
        if isinstance(message, HumanMessage) or not turns:
            turns.append([message])
        else:
            turns[-1].append(message)
    return turns


def trim_history(
    messages: Sequence[BaseMessage],
    max_tokens: int = DEFAULT_HISTORY_TOKENS,
    max_turns: int = DEFAULT_HISTORY_TURNS,
) -> list[BaseMessage]:
    """The current turn in full plus as many whole earlier turns as fit the budget, oldest dropped first.

    The result starts with a human message (tool results never lose their call).
    """
    turns = split_turns(messages)
    if not turns:
        return []
    kept = [turns[-1]]
    used = 0
    for turn in reversed(turns[:-1]):
        cost = sum(message_tokens(m) for m in turn)
        if len(kept) > max_turns or used + cost > max_tokens:
            break
        kept.append(turn)
        used += cost
    result = [m for turn in reversed(kept) for m in turn]
    while len(result) > 1 and not isinstance(result[0], HumanMessage):
        result.pop(0)
    return result


def stored_history_removals(messages: Sequence[BaseMessage], limit: int = DEFAULT_STORED_MESSAGES) -> list[RemoveMessage]:
    """RemoveMessage for the oldest whole turns while the state holds more than ``limit`` messages."""
    if len(messages) <= limit:
        return []
    turns = split_turns(messages)
    total = len(messages)
    doomed: list[BaseMessage] = []
    for turn in turns[:-1]:
        if total <= limit:
            break
        doomed.extend(turn)
        total -= len(turn)
    return [RemoveMessage(id=m.id) for m in doomed if m.id]


STOPPED_TOOL_RESULT = "（这次工具调用没有完成：回复被中断了）"


def pair_tool_calls(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """``messages`` with a stand-in result after every tool call that never got one.

    Chat APIs reject a history where an assistant tool call is not followed by its result; an
    interrupted turn (cancel, error, step limit) can leave one behind.
    """
    result: list[BaseMessage] = []
    open_calls: list[dict[str, Any]] = []

    def close_open() -> None:
        for call in open_calls:
            result.append(
                ToolMessage(content=STOPPED_TOOL_RESULT, tool_call_id=call["id"], name=call["name"], status="error")
            )
        open_calls.clear()

    for message in messages:
        if isinstance(message, ToolMessage):
            open_calls[:] = [c for c in open_calls if c["id"] != message.tool_call_id]
        else:
            close_open()
        result.append(message)
        if isinstance(message, AIMessage) and message.tool_calls:
            open_calls.extend(c for c in message.tool_calls if c.get("id"))
    close_open()
    return result


def newest_user_text(messages: Sequence[BaseMessage]) -> str:
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return message.text
    return ""


#: Lines of the conversation before the newest message that recall's vectors lean on (two exchanges).
CONTEXT_LINES = 4


def conversation_context(messages: Sequence[BaseMessage]) -> str:
    """The conversation's last ``CONTEXT_LINES`` said lines (the person's and the replies', no tool
    traffic) before the newest user message, oldest first, each on one line after who said it
    (``said_line``: the recall model reads who; the words and the vectors read what): what a follow-up
    is about."""
    newest = next((i for i in range(len(messages) - 1, -1, -1) if isinstance(messages[i], HumanMessage)), None)
    if newest is None:
        return ""
    said: list[str] = []
    for message in reversed(messages[:newest]):
        if isinstance(message, (HumanMessage, AIMessage)) and message.text.strip():
            said.append(said_line(PERSON if isinstance(message, HumanMessage) else SONETTO, " ".join(message.text.split())))
            if len(said) == CONTEXT_LINES:
                break
    return "\n".join(reversed(said))


def final_reply_text(messages: Sequence[BaseMessage]) -> str:
    last = messages[-1] if messages else None
    return last.text if isinstance(last, AIMessage) else ""


def memory_switch(config: RunnableConfig | None, name: str) -> bool:
    """Whether memory ``name`` ("recall" or "write") is on for this run: the engine passes a
    session's switches as ``configurable["sonetto_<name>"]`` (absent: on)."""
    return bool(((config or {}).get("configurable") or {}).get(f"sonetto_{name}", True))


# ── graph ────────────────────────────────────────────────────────────────────────────────────────


#: The endpoints (base URL, model) that have said how a reply ended, for the process's life: a new graph
#: (the chat started again, new settings) knows a server that says it from its first reply.
_FINISH_SAID: set[tuple[str, str]] = set()
_FINISH_LOCK = threading.Lock()
#: Replies in a row that ended without a finish from an endpoint remembered to say it: at this many the
#: server is taken to say it no more (another program now answers at its address, a gateway put before
#: it), and this reply is whole; the first was said as cut (it may have been: a server gone mid-reply).
FINISH_FORGOTTEN_AFTER = 2
_UNSAID: dict[tuple[str, str] | None, int] = {}  # those replies in a row, by endpoint (guarded by _FINISH_LOCK)


def forget_endpoint(base_url: str) -> None:
    """Forget what the servers at ``base_url`` (every model) said of how their replies end: another server
    answers there now (a test's server on a port an earlier one had)."""
    base = base_url.strip().rstrip("/")
    with _FINISH_LOCK:
        _FINISH_SAID.difference_update({key for key in _FINISH_SAID if key[0] == base})
        for key in [key for key in _UNSAID if key and key[0] == base]:
            del _UNSAID[key]


def _endpoint_key(llm: Any) -> tuple[str, str] | None:
    """(base URL, model) of a chat model, None when it names no base URL (a model of its own: its graph remembers)."""
    base = str(getattr(llm, "openai_api_base", None) or "").strip().rstrip("/")
    name = str(getattr(llm, "model_name", None) or getattr(llm, "model", None) or "").strip()
    return (base, name) if base else None


class _ReplyEnds:
    """Did a reply stop before its end? Cut at the model's limit (finish_reason "length"), or a stream
    that closed without its finish from a server that has said one before: ``ReplyCut`` (said, what
    arrived kept, not handed to the writer, no half tool call run). A server that never says how a
    reply ended (some gateways) is not taken to cut them all. Whether a server says it is remembered
    by endpoint (``_FINISH_SAID``): the first reply of a new graph is judged as the later ones."""

    def __init__(self, llm: Any = None) -> None:
        self._key = _endpoint_key(llm)
        self._said = False  # the server has said how a reply ended at least once (no endpoint known)
        self._unsaid = 0  # ... and then replies in a row without it (no endpoint known)

    @property
    def said(self) -> bool:
        if self._key is None:
            return self._said
        with _FINISH_LOCK:
            return self._key in _FINISH_SAID

    def _heard(self) -> None:
        if self._key is None:
            self._said, self._unsaid = True, 0
        else:
            with _FINISH_LOCK:
                _FINISH_SAID.add(self._key)
                _UNSAID.pop(self._key, None)

    def _unheard(self) -> bool:
        """A reply ended without a finish from a server that says it: cut (True), or the server says it no
        more (``FINISH_FORGOTTEN_AFTER`` in a row: forgotten, this reply whole)."""
        if self._key is None:
            self._unsaid += 1
            if self._unsaid < FINISH_FORGOTTEN_AFTER:
                return True
            self._said, self._unsaid = False, 0
            return False
        with _FINISH_LOCK:
            _UNSAID[self._key] = _UNSAID.get(self._key, 0) + 1
            if _UNSAID[self._key] < FINISH_FORGOTTEN_AFTER:
                return True
            _FINISH_SAID.discard(self._key)
            del _UNSAID[self._key]
        return False

    def check(self, response: Any) -> None:
        finish = (response.response_metadata or {}).get("finish_reason")
        if finish is not None:
            self._heard()
        if finish == "length" or (finish is None and self.said and self._unheard()):
            raise ReplyCut(finish)
        if finish is None:
            log.debug("the model server said no finish_reason for this reply")


def build_graph(
    llm: BaseChatModel | None,
    ltm: Any,
    *,
    retrieval_mode: RetrievalMode = RetrievalMode.MECHANICAL,
    checkpointer: Any = None,
    tools: Sequence[BaseTool] | None = None,
    now: Clock | None = None,
    history_tokens: int = DEFAULT_HISTORY_TOKENS,
    history_turns: int = DEFAULT_HISTORY_TURNS,
    stored_messages: int = DEFAULT_STORED_MESSAGES,
):
    """Compile Sonetto's graph.

    ``llm`` None means no model is configured: recall still runs, then ``agent`` raises
    :class:`LLMNotConfigured`. ``ltm`` is a :class:`~sonetto_desktop.memory.ltm.LongTermMemory`
    (``aget_related_memory_from`` returning dated memories, ``send_history``). ``retrieval_mode``
    defaults to MECHANICAL (offline, no extra model call); the app passes the user's setting.
    ``tools`` defaults to the companion tools; pass ``[]`` for none. ``now`` returns the local
    datetime (tests pin it). History sent to the model: the current turn plus earlier whole turns
    within ``history_tokens`` (estimated) and ``history_turns``; the checkpointed state keeps at most
    ``stored_messages``.
    """
    clock = now or local_now
    tool_list = list(build_companion_tools(ltm, now=clock) if tools is None else tools)
    model = llm.bind_tools(tool_list) if (tool_list and llm is not None) else llm

    async def retrieve_memory(state: CompanionState, config: RunnableConfig) -> dict[str, Any]:
        messages = state.get("messages", [])
        query = newest_user_text(messages)
        memories: list[dict[str, Any]] = []
        if query.strip() and memory_switch(config, "recall"):
            try:  # the recall owns its timeout and its offline fallback: no second deadline here
                found = await ltm.aget_related_memory_from(query, retrieval_mode, context=conversation_context(messages))
                memories = [dict(m) for m in found or []]
            except Exception:
                log.warning("memory recall failed; continuing without memories", exc_info=True)
        return {"used_memories": memories, "memory_block": format_memory_block(memories)}

    ends = _ReplyEnds(llm)

    async def agent(state: CompanionState, config: RunnableConfig) -> dict[str, Any]:
        if model is None:
            raise LLMNotConfigured()
        system = SystemMessage(content=build_system_prompt(clock(), state.get("memory_block", "")))
        history = pair_tool_calls(trim_history(state.get("messages", []), history_tokens, history_turns))
        response = await model.ainvoke([system, *history], config)
        ends.check(response)
        if not response.tool_calls and not response.text.strip():
            raise EmptyReply()  # said as such, neither kept as Sonetto's answer nor handed to the writer
        return {"messages": [response]}

    async def ltm_write(state: CompanionState, config: RunnableConfig) -> dict[str, Any]:
        messages = state.get("messages", [])
        turn = [
            {"role": "user", "content": newest_user_text(messages)},
            {"role": "assistant", "content": final_reply_text(messages)},
        ]
        if memory_switch(config, "write"):
            try:
                await ltm.send_history(turn, session_id=state.get("session_id"), turn_id=state.get("turn_id"))
            except Exception:
                log.warning("handing the turn to the memory writer failed", exc_info=True)
        removals = stored_history_removals(messages, stored_messages)
        return {"messages": removals} if removals else {}

    builder = StateGraph(CompanionState)
    builder.add_node("retrieve_memory", retrieve_memory)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode(tool_list, handle_tool_errors=True))
    builder.add_node("ltm_write", ltm_write)
    builder.add_edge(START, "retrieve_memory")
    builder.add_edge("retrieve_memory", "agent")
    builder.add_conditional_edges("agent", tools_condition, {"tools": "tools", END: "ltm_write"})
    builder.add_edge("tools", "agent")
    builder.add_edge("ltm_write", END)
    return builder.compile(checkpointer=checkpointer, name="sonetto")


async def history_after_interruption(graph: Any, config: dict, partial: str = "") -> list[Any]:
    """Messages that close an interrupted turn (cancel, error, step limit) in the checkpointed history.

    Tool calls left without results get a stand-in result (chat APIs reject a dangling call),
    then ``partial``, the text that streamed from the interrupted model call, if any.
    """
    snapshot = await graph.aget_state(config)
    messages = list((snapshot.values or {}).get("messages", []))
    fix: list[Any] = pair_tool_calls(messages)[len(messages):] if messages else []
    if partial:
        fix.append(AIMessage(content=partial))
    return fix
