"""Who changed a card last, in words, and the wall's filters on whose it is: 全部 / 已锁定 / Sonetto 写的 /
我写的 / 其他应用写的 / 导入的.

A card's footer names the actor of its last change (``MemoryItem.last_actor``): ``user`` and ``cli``
are the person (你), ``agent`` is Sonetto, ``mcp:<client>`` is that app by name, ``external`` and
any other front end are another app, and a memory without any history (an older file, imported
seed memories) reads as 导入; one written from imported chat history (``import:<source>``) by its
source's name (ChatGPT). The filters go by the card's author (``MemoryItem.author``): an app's
change to one of the person's memories leaves it under 我写的, not 其他应用写的; 导入的 holds what an
import wrote (chat history, ``import:<source>``, or seed memories without history) until someone else
changes it.
"""

from __future__ import annotations

from typing import Callable

from ..history_import.model import import_source
from ..memory.changes import AGENT, PERSON_ACTORS, by_other_app
from .cards import AUTHOR, LOCKED, Card
from .i18n import translate

#: Filter names, in menu order.
FILTERS = ("all", "locked", "agent", "user", "apps", "imported")


def author_kind(actor: str) -> str:
    """``user`` (the person), ``agent`` (Sonetto), ``imported``, or ``apps`` (anyone else)."""
    if actor in PERSON_ACTORS:
        return "user"
    if actor == AGENT:
        return "agent"
    return "apps" if by_other_app(actor) else "imported"


def author_label(actor: str) -> str:
    """Who changed a card last, short enough for its footer: 你 / Sonetto / the app's name / 导入."""
    kind = author_kind(actor)
    if kind == "user":
        return translate("WallFilters", "你")
    if kind == "agent":
        return "Sonetto"
    if kind == "imported":
        return import_source(actor) or translate("WallFilters", "导入")
    if actor.startswith("mcp:") and actor[4:].strip():
        return actor[4:].strip()
    return translate("WallFilters", "其他应用")


def author_tooltip(actor: str) -> str:
    kind = author_kind(actor)
    if kind == "imported" and import_source(actor) is not None:
        return translate("WallFilters", "从 {0} 的聊天记录导入").format(import_source(actor))
    if kind == "imported":
        return translate("WallFilters", "导入的记忆（没有修改记录）")
    if kind == "user":
        return translate("WallFilters", "最后由你修改")
    if kind == "agent":
        return translate("WallFilters", "最后由 Sonetto 修改")
    return translate("WallFilters", "最后由其他应用修改：{0}").format(author_label(actor))


def lock_tooltip() -> str:
    return translate("WallFilters", "已锁定：Sonetto 和其他应用不能修改、合并或删除它，你仍然可以。")


def filter_label(name: str) -> str:
    labels = {
        "all": translate("WallFilters", "全部"),
        "locked": translate("WallFilters", "已锁定"),
        "agent": translate("WallFilters", "Sonetto 写的"),
        "user": translate("WallFilters", "我写的"),
        "apps": translate("WallFilters", "其他应用写的"),
        "imported": translate("WallFilters", "导入的"),
    }
    return labels[name]


def card_filter(name: str) -> Callable[[Card], bool] | None:
    """The predicate of filter ``name`` (``None`` for 全部); by whose memory it is (the card's ``AUTHOR``)."""
    if name not in FILTERS:
        raise ValueError(f"filter must be one of {FILTERS}, not {name!r}")
    if name == "all":
        return None
    if name == "locked":
        return lambda card: card[LOCKED]
    return lambda card: author_kind(card[AUTHOR]) == name
