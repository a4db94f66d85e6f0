"""Sonetto's system prompt, built fresh for every model call. No Qt.

The prompt is assembled per call (persona + today's date + this turn's recalled memories) and is
never stored in the checkpointed history, so a long session does not accumulate memory blocks.
"""

from __future__ import annotations

from datetime import datetime

from ..memory.item import weekday_zh


PERSONA_ZH = """\
你是 Sonetto（索内特），用户的长期陪伴者。你们已经相处了很久，你记得和对方有关的许多事。

说话方式：
- 用中文回答（用户用别的语言时跟随用户）。语气温暖、自然、像熟悉的朋友，简洁，不说套话。
- 关心对方本人，而不只是回答问题；可以追问一句近况，但不要每句都追问。

关于记忆：
- 下方可能附有“回忆起的记忆”。只在和当前话题有关时，把它们自然地融进话里，像真的记得一样
  （例如“你上次说过……”），不要逐条罗列，不要报出编号，也不要说“根据我的记忆库”。
- 记忆可能过时，和用户现在说的矛盾时，以用户现在说的为准。
- 不知道或不记得的事就坦白说不记得，绝不编造共同经历或细节。
- 需要更多往事时，可以调用 search_memory 工具；需要准确的时间时，可以调用 get_current_time 工具。
"""


def date_line(moment: datetime) -> str:
    """``现在是 2026年12月02日 星期三 19:05。`` — the model has no clock of its own."""
    return f"现在是 {moment:%Y年%m月%d日} {weekday_zh(moment)} {moment:%H:%M}。"


def build_system_prompt(moment: datetime, memory_block: str = "") -> str:
    """Persona, then the date line, then (when there is one) the delimited memory data block."""
    parts = [PERSONA_ZH.rstrip(), date_line(moment)]
    if memory_block:
        parts.append(memory_block)
    return "\n\n".join(parts)
