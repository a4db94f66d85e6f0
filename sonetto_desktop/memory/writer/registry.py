"""The writer's tool registry: each tool is a name, an argument schema and a *plan*.

A plan reads what it needs (the store, the writer's index, the run's :class:`ToolContext`), checks
the model's arguments and says what the call would do: a :class:`Plan` naming the kind of change,
the memories it touches, the texts it would store and the write itself. It never writes. One runner
(``runner.ToolRunner``) carries a plan out for every tool alike: the person's "don't remember" list,
locked memories, review mode (the call goes to the inbox instead, to be planned again when the person
approves it) and the wording of every refusal for the model. So a new tool is a plan and a docstring;
the rules cannot be forgotten for it: a plan is a change (``kinds``: every kind but reading and
counting a use, a kind nobody declared included) unless it says ``change=False``; every rule is
checked for the whole plan before it writes (``check_plan``); and its writes land together or not at
all (one store transaction: ``BaseMemoryManager.group``).

No LangChain here: the names (``text_calls``, the test server) and the plans are plain Python;
``tools.py`` turns a registry into LangChain tools when the writer's agent is built.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field, replace
from functools import partial
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from pydantic import BaseModel, create_model

from .. import kinds
from ..changes import AGENT, IMPORT_PREFIX, PERSON_ACTORS, MemoryChange, Turn, excerpt_of
from ..errors import MemoryLocked
from ..item import MemoryItem, parse_time
from .secret_filter import HIDDEN, find_secret

if TYPE_CHECKING:
    from ..operations import MemoryOperations
    from ..stores.base import BaseMemoryManager
    from .index import WriterIndex
    from .listing import RetrieverProvider

MAX_CONTENT_CHARS = 500
MAX_SECTION_CHARS = 8
#: The arguments that carry a memory's text and theme: what the person may reword before approving
#: a held call (the first of each a tool has).
DESCRIPTION_ARGS = ("content", "description")
THEME_ARGS = ("section", "theme")


class ToolRefused(Exception):
    """The call cannot be carried out; the message tells the model why and what to do instead."""


@dataclass(frozen=True)
class ToolContext:
    """What a run of the writer's tools works for.

    ``turn_id`` / ``session_id`` / ``excerpt`` (the user's words, shortened) are kept with every
    change as its provenance; ``turn_text`` and ``now`` are what ``read_memories`` selects related
    memories by once the store is large; ``subject``: what the memories call the user (``names``).
    ``actor``: who the changes are written as (``agent`` for Sonetto's own chats, ``mcp:<app>`` for a
    conversation another app handed over, ``import:<source>`` for imported history); ``origin``:
    where the conversation came from, one line kept with each change (``Turn.origin``); ``now``:
    the turn's time (an imported turn's own date). A context given in a run's
    ``config["configurable"][CONTEXT_KEY]`` wins over the one the tools were made with.
    """

    session_id: str | None = None
    turn_id: str | None = None
    turn_text: str | None = None
    now: datetime | None = None
    excerpt: str = ""
    subject: str = ""
    actor: str = AGENT
    origin: str = ""

    def turn(self) -> Turn | None:
        if not self.turn_id:
            return None
        return Turn(self.turn_id, self.session_id, excerpt_of(self.excerpt), excerpt_of(self.origin))

    def to_json(self) -> dict[str, Any]:
        """What a held call keeps of its run (not the turn's whole text: only ``read_memories`` uses it)."""
        kept = {"session_id": self.session_id, "turn_id": self.turn_id, "excerpt": self.excerpt,
                "subject": self.subject, "actor": self.actor, "origin": self.origin,
                "now": self.now.isoformat() if self.now is not None else None}
        return {key: value for key, value in kept.items() if value}

    @classmethod
    def from_json(cls, raw: Any) -> "ToolContext":
        """The context ``to_json`` kept (anything unreadable in it left out)."""
        raw = raw if isinstance(raw, dict) else {}
        texts = {key: raw[key] for key in ("session_id", "turn_id", "excerpt", "subject", "actor", "origin")
                 if isinstance(raw.get(key), str) and raw[key]}
        return cls(now=parse_time(raw.get("now")) if isinstance(raw.get("now"), str) else None, **texts)

    @property
    def counts_uses(self) -> bool:
        """Whether a memory this run mentions counts as used (``hit``). Imported history does not:
        the counts measure what Sonetto's own chats use, and an import must undo without a trace."""
        return not self.actor.startswith(IMPORT_PREFIX)


@dataclass(frozen=True)
class Outcome:
    """What a call did: ``text`` for the model, ``kind`` and ``ids`` for counting (the tool message's
    artifact, with ``extra``)."""

    text: str
    kind: str
    ids: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def artifact(self) -> dict[str, Any]:
        return {"kind": self.kind, "ids": self.ids, **self.extra}


@dataclass(frozen=True)
class Plan:
    """What a call would do. ``kind``: what it is (``kinds``; a kind nobody declared is a change);
    ``change``: said only by a plan that writes nothing of the person's whatever its kind (``False``:
    never held, nothing to refuse); ``ids``: the existing memories a change touches (each must exist
    and be unlocked); ``description`` / ``theme`` / ``reason``: the model's words it would store;
    ``also``: any other words it would store (a plan of several writes: every text of every write);
    ``note``: the writer's own reason when the model gives none (a fixed wording). ``write(ops)``
    makes it, as the run's actor, and says what it did; a change's writes run in one store
    transaction (all land or none)."""

    kind: str
    write: Callable[[MemoryOperations], Outcome]
    ids: tuple[str, ...] = ()
    description: str | None = None
    theme: str | None = None
    reason: str = ""
    note: str = ""
    also: tuple[str, ...] = ()
    change: bool | None = None

    @property
    def changes(self) -> bool:
        """Whether it changes what the person has: as its kind says (fail closed), unless it says not."""
        return kinds.changes(self.kind) if self.change is None else self.change

    def texts(self) -> tuple[str, ...]:
        """The model's words this change would keep (in the memory, its history or the trash)."""
        return tuple(t for t in (self.description, self.theme, self.reason, *self.also) if t)


def check_plan(plan: Plan, ops: MemoryOperations) -> list[MemoryItem]:
    """Every rule for the whole of a change before any of it is written or held: its texts (secrets,
    the don't-remember list: ``SecretRefused`` / ``DontRememberRefused``), each memory it touches
    (``MemoryNotFound``), locks (``MemoryLocked`` unless ``ops`` writes as the person). Returns the
    memories as they are."""
    ops.allowed(*plan.texts())
    items = [ops.store.get(mid) for mid in plan.ids]
    if ops.actor not in PERSON_ACTORS:
        for mid, item in zip(plan.ids, items, strict=True):
            if item.locked:
                raise MemoryLocked(mid, ops.actor)
    return items


def _flat(text: str) -> str:
    return " ".join(str(text).split())


def undeclared(plan: Plan, before: Iterable[MemoryItem], changes: Iterable[MemoryChange]) -> list[str]:
    """The words ``plan``'s writes stored (``changes``: their records, in its transaction) that it did
    not declare — not in ``Plan.texts``, its note, or what the memories it touches said ``before``:
    words that escaped ``check_plan`` (and a reviewer's eyes). The runner refuses the plan then."""
    known = {_flat(t) for t in (*plan.texts(), plan.note) if t}
    known |= {_flat(t) for item in before for t in (item.description, item.theme) if t}
    found: list[str] = []
    for change in changes:
        if not kinds.changes(change.kind):  # counting a use stores no words
            continue
        states = [state for state in change.states.values() if state]
        texts = [change.reason, *(state.get(name) for state in states for name in ("description", "theme"))]
        found += [str(t) for t in texts if t and _flat(t) not in known]
    return found


@dataclass
class ToolEnv:
    """What a plan may read: the store, the writer's index over it, the run's context and the
    listing's bounds (``listing.read_listing``)."""

    store: BaseMemoryManager
    index: WriterIndex
    context: ToolContext
    retriever: RetrieverProvider | None = None
    read_all_max: int = 0
    related_k: int = 0
    recent_n: int = 0


@dataclass(frozen=True)
class WriterTool:
    """``description``: what the model reads (the plan's docstring); ``schema``: its arguments;
    ``plan(env, **arguments)``: see :class:`Plan`."""

    name: str
    description: str
    schema: type[BaseModel]
    plan: Callable[..., Plan]
    #: ``landed(store, index, turn_id, arguments)``: whether a call caught while it was being applied
    #: reached the store before its attempt died (the writer's resume answers it as done instead of
    #: running it again); None: it is run again.
    landed: Callable[..., bool] | None = None

    def reworded(self, arguments: dict[str, Any], description: str | None, theme: str | None) -> dict[str, Any]:
        """``arguments`` with the person's ``description`` / ``theme`` in place of the model's (the
        first of ``DESCRIPTION_ARGS`` / ``THEME_ARGS`` the tool has); ``ValueError`` when it has none."""
        fields = self.schema.model_fields
        changed = dict(arguments)
        for value, names in ((description, DESCRIPTION_ARGS), (theme, THEME_ARGS)):
            if value is None:
                continue
            name = next((n for n in names if n in fields), None)
            if name is None:
                raise ValueError(f"a call of {self.name} cannot be reworded")
            changed[name] = value
        return changed

    @property
    def rewordable(self) -> bool:
        """Whether the person may reword the memory's text of a held call (``reworded``)."""
        return any(name in self.schema.model_fields for name in DESCRIPTION_ARGS)


class Registry:
    """An ordered set of writer tools, by name."""

    def __init__(self, tools: Iterable[WriterTool] = ()) -> None:
        self._tools: dict[str, WriterTool] = {}
        for spec in tools:
            self.add(spec)

    def add(self, spec: WriterTool) -> WriterTool:
        if spec.name in self._tools:
            raise ValueError(f"a writer tool named {spec.name!r} is registered already")
        self._tools[spec.name] = spec
        return spec

    def tool(self, plan: Callable[..., Plan]) -> Callable[..., Plan]:
        """Register ``plan(env, arg: str, ...)`` as the tool named after it (a decorator). Its
        docstring is the tool's description; its arguments after ``env`` are the schema."""
        self.add(tool_of(plan))
        return plan

    def landed(self, name: str) -> Callable[[Callable[..., bool]], Callable[..., bool]]:
        """Register ``check(store, index, turn_id, arguments) -> bool`` as how to tell that a call of
        the tool ``name`` reached the store (see ``WriterTool.landed``; a decorator)."""
        def register(check: Callable[..., bool]) -> Callable[..., bool]:
            self._tools[name] = replace(self._tools[name], landed=check)
            return check
        return register

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._tools)

    def __getitem__(self, name: str) -> WriterTool:
        return self._tools[name]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[WriterTool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def only(self, *names: str) -> "Registry":
        """The tools named, in that order (``KeyError`` for a name not registered)."""
        return Registry(self._tools[name] for name in names)

    def __add__(self, other: "Registry") -> "Registry":
        return Registry([*self, *other])


_ARG_TYPES: dict[Any, type] = {"str": str, str: str, "int": int, int: int}


def tool_of(plan: Callable[..., Plan], name: str | None = None) -> WriterTool:
    """A :class:`WriterTool` from a plan function (see ``Registry.tool``): the arguments after
    ``env`` are the schema (``str`` or ``int``, required unless they have a default), the
    docstring is the description."""
    fields: dict[str, Any] = {}
    for param in list(inspect.signature(plan).parameters.values())[1:]:
        kind = _ARG_TYPES.get(param.annotation)
        if kind is None:
            raise TypeError(f"{name or plan}: argument {param.name} must be str or int, not {param.annotation!r}")
        fields[param.name] = (kind, ... if param.default is inspect.Parameter.empty else param.default)
    named = plan.func if isinstance(plan, partial) else plan  # a plan with per-run state bound first
    tool_name = name or named.__name__
    return WriterTool(tool_name, inspect.cleandoc(named.__doc__ or ""), create_model(tool_name, **fields), plan)


# ── the model's arguments ───────────────────────────────────────────


def text_arg(name: str, value: Any, limit: int | None = None) -> str:
    """A text argument on one line (runs of spaces and line breaks made one space); refused when
    empty or longer than ``limit``."""
    if not isinstance(value, str) or not value.strip():
        raise ToolRefused(f"错误：参数 {name} 不能为空。请提供非空的文本后重试。")
    value = " ".join(value.split())
    if limit is not None and len(value) > limit:
        raise ToolRefused(f"错误：参数 {name} 太长（{len(value)} 字，上限 {limit} 字）。请精简后重试。")
    return value


def content_arg(value: Any) -> str:
    """A memory's text: one line, bounded, no secret in it (``secret_filter``) and no hidden one's
    placeholder (``［已隐去的密码］``: a value the model never saw is nothing to keep)."""
    content = text_arg("content", value, MAX_CONTENT_CHARS)
    secret = find_secret(content)
    if secret:
        raise secret_refusal(secret)
    hidden = HIDDEN.search(content)
    if hidden:
        raise ToolRefused(
            f"拒绝写入：内容里有“{hidden.group()}”，那是为保护隐私隐去的秘密值，不是事实，不能写进记忆。"
            "去掉它，只记不含秘密的事实（如“用户家里有 WiFi 密码”通常也不值得记），或放弃这一条。"
        )
    return content


def section_arg(value: Any) -> str:
    return text_arg("section", value, MAX_SECTION_CHARS)


# ── refusals, worded for the model ──────────────────────────────────


def secret_refusal(kind: str) -> ToolRefused:
    return ToolRefused(
        f"拒绝写入：内容疑似包含{kind}。秘密信息绝不能写进记忆（分区名和理由里也不行）。"
        "请去掉具体的值（最多保留“用户有某个账号”这类不含秘密的事实），或放弃这一条。"
    )


def dont_remember_refusal(entry: str) -> ToolRefused:
    return ToolRefused(f"拒绝写入：用户要求不要记住这件事（{entry}）。不要记录它，也不要换一种说法记录。")


def locked_refusal(memory_id: str) -> ToolRefused:
    return ToolRefused(
        f"拒绝修改：记忆 {memory_id} 已被用户锁定，你不能修改、合并或删除它（可以用 hit_memory 标记引用）。"
        "如果新信息与它矛盾，就保持原样，不要为此另建重复条目。"
    )


def not_found_refusal(memory_id: str) -> ToolRefused:
    return ToolRefused(
        f"错误：找不到 ID 为 {memory_id!r} 的记忆（可能已被删除或合并）。请调用 read_memories 查看现有条目和正确的 ID。"
    )


UNDECLARED = "拒绝写入：这个工具要写下的内容没有全部交给规则检查，本次什么也没写。请换用其他工具。"
INBOX_FULL = "审核箱已满：用户还没处理之前的提议。本轮不要再提交修改。"
NOT_YOURS = "拒绝修改：导入聊天记录时只能修改这次导入新建的记忆；用户已有的记忆不能改动或删除。可以新建记忆。"
NOT_THE_APPS = "拒绝修改：整理其他应用交来的对话时，只能修改这个应用自己写下的记忆；用户已有的记忆不能改动或删除。可以新建记忆。"
PROPOSED = "已提交给用户审核（提议 {id}），用户批准后才会生效；不要重复提交，也不要再为它调用别的工具。"


def validation_message(exc: Exception) -> str:
    """Missing or mistyped arguments, said so the model can fix the call."""
    problems = []
    for err in getattr(exc, "errors", list)():
        where = ".".join(str(part) for part in err.get("loc", ())) or "?"
        problems.append(f"{where}（{err.get('msg', '')}）")
    listed = "；".join(problems) or str(exc)[:200]
    return f"参数错误：{listed}。请按工具说明提供全部参数（字符串）后重试。"
