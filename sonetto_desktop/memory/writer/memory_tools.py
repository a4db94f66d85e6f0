"""The memory writer's six CRUD tools, as plans (see ``registry``): what each call would do, decided
from the model's arguments and the store as it is. ``runner.ToolRunner`` carries them out. A tool
added later is one module of ``toolbox``, found and registered here (``_load_toolbox``).

The docstrings are what the model reads about each tool (Chinese, as its prompt).
"""

from __future__ import annotations

import importlib
import pkgutil

from .. import kinds
from ..errors import MemoryNotFound
from ..reasons import reason_text
from .listing import read_listing
from .registry import Outcome, Plan, Registry, ToolEnv, ToolRefused, content_arg, section_arg, text_arg

#: The turn writer's tools, in the order the model is offered them.
MEMORY_TOOLS = Registry()
#: Why a memory the writer creates exists (its history says so; not the model's words).
CREATED = reason_text("writer.create")


def _counted(env: ToolEnv, memory_id: str, text: str) -> Plan:
    """Count one use of ``memory_id`` (``text`` formats the new count as ``{count}``); a run that
    counts no uses (imported history: ``ToolContext.counts_uses``) only says it was noted."""

    def write(ops) -> Outcome:
        if not env.context.counts_uses:
            env.store.get(memory_id)  # an unknown id is still refused
            return Outcome(text.format(id=memory_id, count="不计"), kinds.HIT, (memory_id,))
        count = ops.hit(memory_id).extra.get("hit")
        return Outcome(text.format(id=memory_id, count=count), kinds.HIT, (memory_id,))

    return Plan(kinds.HIT, write, (memory_id,))


@MEMORY_TOOLS.tool
def create_memory(env: ToolEnv, content: str, section: str) -> Plan:
    """新建一条记忆，返回 ID。

    Args:
        content: 第三人称中文，主语用用户的称呼，一个事实，绝对日期。
        section: 分区（规则 16）："身份"（教育、职业、家乡等）、"音乐"（虚拟歌手、声库、歌曲、专辑、创作者）、
            "品味"（电影、美食、游戏、UP主、品牌等偏好）、"地点与路径"（地点和文件路径）、"瞬间"（即时观察和感受：天气、
            正在做的事、念头）、"时效待办"（有日期的事项）
    """
    text = content_arg(content)
    theme = section_arg(section)
    existing = next(iter(env.index.same_text(text)), None)
    if existing is not None:  # e.g. a turn retried after a failure half-way: never store it twice
        return _counted(env, existing, "记忆库中已有相同内容的条目 {id}，未重复创建，已记为一次引用（hit {count}）。")

    def write(ops) -> Outcome:
        memory_id = ops.add(text, theme, reason=CREATED).ids[0]
        return Outcome(f"已创建记忆 {memory_id}（分区：{theme}）。", kinds.CREATE, (memory_id,))

    return Plan(kinds.CREATE, write, description=text, theme=theme, note=CREATED)


@MEMORY_TOOLS.tool
def read_memories(env: ToolEnv) -> Plan:
    """重新查看记忆列表（消息里已附，一般不必调用）。"""

    def write(ops) -> Outcome:
        ctx = env.context
        listing = read_listing(env.store, ctx.turn_text, env.retriever, now=ctx.now, index=env.index,
                               subject=ctx.subject, read_all_max=env.read_all_max, related_k=env.related_k,
                               recent_n=env.recent_n)
        return Outcome(listing.text, kinds.READ, (), {"shown": listing.shown, "total": listing.total})

    return Plan(kinds.READ, write)


@MEMORY_TOOLS.tool
def update_memory(env: ToolEnv, id: str, content: str, reason: str) -> Plan:
    """更新一条记忆（旧内容留在历史里，自动记一次 hit）。content：完整的新内容；reason：依据哪句话、什么变了。"""
    memory_id = text_arg("id", id)
    text = content_arg(content)
    why = text_arg("reason", reason)
    same = "记忆 {id} 已是这个内容，无需修改，已记为一次引用。"
    if env.store.get(memory_id).description == text:  # nothing to change (or review): a use
        return _counted(env, memory_id, same)

    def write(ops) -> Outcome:
        changed = ops.update(memory_id, description=text, reason=why)
        if env.context.counts_uses:
            ops.hit(memory_id)
        if changed is None:
            return Outcome(same.format(id=memory_id), kinds.HIT, (memory_id,))
        return Outcome(f"已更新记忆 {memory_id}。", kinds.UPDATE, (memory_id,))

    return Plan(kinds.UPDATE, write, (memory_id,), description=text, reason=why)


@MEMORY_TOOLS.tool
def delete_memory(env: ToolEnv, id: str, reason: str) -> Plan:
    """删除一条记忆（进回收站，可恢复）。"""
    memory_id = text_arg("id", id)
    why = text_arg("reason", reason)

    def write(ops) -> Outcome:
        ops.delete(memory_id, reason=why)
        return Outcome(f"已删除记忆 {memory_id}。", kinds.DELETE, (memory_id,))

    return Plan(kinds.DELETE, write, (memory_id,), reason=why)


@MEMORY_TOOLS.tool
def merge_memories(env: ToolEnv, id1: str, id2: str, content: str, section: str, reason: str) -> Plan:
    """把描述同一事物的两条记忆合并成一条（content、section：合并后的）：id1 保留，id2 并入后删除，历史都保留。"""
    keep = text_arg("id1", id1)
    gone = text_arg("id2", id2)
    if keep == gone:
        raise ToolRefused("错误：id1 和 id2 相同，不能把一条记忆和它自己合并。")
    text = content_arg(content)
    theme = section_arg(section)
    why = text_arg("reason", reason)

    def write(ops) -> Outcome:
        ops.merge(keep, gone, text, theme, reason=why)
        return Outcome(f"已将记忆 {gone} 合并到 {keep}。", kinds.MERGE, (keep, gone))

    return Plan(kinds.MERGE, write, (keep, gone), description=text, theme=theme, reason=why)


@MEMORY_TOOLS.tool
def hit_memory(env: ToolEnv, id: str) -> Plan:
    """标记一条无需修改的记忆被本轮提到或用到（hit 加一）。"""
    return _counted(env, text_arg("id", id), "已标记记忆 {id}（hit {count}）。")


# ── whether a call caught mid-write reached the store (the writer's resume after a kill) ─────────


def _flat(value: object) -> str:
    return " ".join(str(value or "").split())


@MEMORY_TOOLS.landed("create_memory")
def _created(store, index, turn_id: str, args: dict) -> bool:
    return bool(index.same_text(_flat(args.get("content"))))


@MEMORY_TOOLS.landed("update_memory")
def _updated(store, index, turn_id: str, args: dict) -> bool:
    return store.get(str(args.get("id"))).description == _flat(args.get("content"))


@MEMORY_TOOLS.landed("hit_memory")
def _counted_once(store, index, turn_id: str, args: dict) -> bool:
    return True  # never count a reference twice


def _in_trash_by(store, memory_id: str, turn_id: str) -> bool:
    """``memory_id`` is gone from the memories and in the trash by this turn."""
    try:
        store.get(memory_id)
        return False
    except MemoryNotFound:
        pass
    entry = next((row for row in store.list_trash() if row["id"] == memory_id), None)
    return entry is not None and entry.get("turn_id") == turn_id


@MEMORY_TOOLS.landed("delete_memory")
def _deleted(store, index, turn_id: str, args: dict) -> bool:
    return _in_trash_by(store, str(args.get("id")), turn_id)


@MEMORY_TOOLS.landed("merge_memories")
def _merged(store, index, turn_id: str, args: dict) -> bool:
    return _in_trash_by(store, str(args.get("id2")), turn_id)


def _load_toolbox() -> None:
    """Import every module of ``toolbox`` (each registers its tool on ``MEMORY_TOOLS``), by name."""
    from . import toolbox

    for module in sorted(pkgutil.iter_modules(toolbox.__path__), key=lambda found: found.name):
        importlib.import_module(f"{toolbox.__name__}.{module.name}")


_load_toolbox()
