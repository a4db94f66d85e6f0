"""The recall prompt: the ``FIND_RELATED_MEMORY`` system prompt and the numbered memory list.

Each memory is shown with its theme, the date it was last updated and how often it was referred
to, and the current date (with weekday) heads the list: the time and broad-query rules need them.
Everything is a plain string; no LLM library is imported here.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any, Iterable, Mapping

from ..item import parse_time, weekday_zh

__all__ = [
    "FIND_RELATED_MEMORY",
    "MAX_DESCRIPTION_CHARS",
    "MAX_QUERY_CHARS",
    "build_user_prompt",
    "format_memory_line",
    "format_today",
    "truncate_query",
]

# The query sent to the LLM keeps its end (the newest words); the memory list is not affected.
MAX_QUERY_CHARS = 2000
# One memory never takes more than this in the prompt (descriptions are normally one sentence).
MAX_DESCRIPTION_CHARS = 300

FIND_RELATED_MEMORY = """
你是 Sonetto 的记忆检索助手。Sonetto 在回复用户之前，需要从长期记忆库中找出与用户这句话真正相关的记忆。
记忆库中每条记忆的格式是：
[编号] (分区) 记忆内容 ｜日期 最近更新日期 ｜引用 被引用次数

## 判断标准（综合考虑，不要只看单一信号）
1. 字面匹配：记忆内容直接包含用户话语中的关键词、人名、地名、作品名。
2. 语义关联：用词不同但说的是同一件事或相关的事，例如“毕设”与“毕业设计”、“重构”与“修改代码”、“今晚吃什么”与口味偏好和忌口。
3. 主题一致：利用分区辅助判断。问编程和进度时关注“项目”，问吃喝玩乐时关注“品味”，问路径和文件位置时关注“地点与路径”。
4. 时间线索：用户提到“今天”“后天”“这周末”“上个月”“7月”等时间时，结合当前日期换算出具体日期，优先选择内容中的日期或最近更新日期落在该时间范围内的记忆；已经过期的待办一般不选。

## 处理规则
1. 宽泛查询（如“最近怎么样”“在忙什么”）：优先选择最近更新的记忆和引用次数高的记忆。
2. 没有任何相关记忆时，输出空数组 []，不要硬凑。打招呼、算术、翻译、常识问答等通常与记忆无关。
3. 按相关度从高到低排列，最相关的放在最前面；只选真正有帮助的条目，通常不超过 8 条。

## 输出格式
只输出一个 JSON 数组，元素是记忆编号（整数），例如 [3, 0, 7]。不要输出解释、代码块或其他任何文字。
下面示例中的“推理”只是帮助你理解判断方法，你的回答只包含最后的数组。

## 示例 1：多条记忆不同程度相关
当前日期：2026-11-20 星期五
[0] (项目) 阿哲的毕业设计是一个校园二手交易小程序，用 uni-app 开发。 ｜日期 2026-10-20 ｜引用 6 次
[1] (时效待办) 阿哲的毕设中期答辩定在11月28日。 ｜日期 2026-11-02 ｜引用 2 次
[2] (品味) 阿哲喜欢喝冰美式，不加糖。 ｜日期 2026-09-14 ｜引用 3 次
[3] (瞬间) 11月15日，阿哲说导师嫌他的数据库设计太乱，让他重做。 ｜日期 2026-11-15 ｜引用 1 次
用户：毕设进度好慢，有点焦虑
推理：[0] 就是他的毕设本身（“毕设”即“毕业设计”），最相关；[3] 导师要求重做数据库，正是进度慢的原因；[1] 中期答辩在 8 天后，是焦虑的来源，也相关；[2] 咖啡偏好与此无关。
输出：[0, 3, 1]

## 示例 2：时间敏感的查询
当前日期：2026-03-11 星期三
[0] (时效待办) 3月14日上午要陪妈妈去医院复查。 ｜日期 2026-03-09 ｜引用 1 次
[1] (项目) 在自学吉他，每周日晚上有一节网课。 ｜日期 2026-01-05 ｜引用 4 次
[2] (时效待办) 2月21日前要交房租。 ｜日期 2026-02-18 ｜引用 2 次
[3] (瞬间) 3月7日和朋友去爬了梧桐山，腿酸了两天。 ｜日期 2026-03-08 ｜引用 0 次
用户：这周末有什么安排吗
推理：今天是 3月11日星期三，这周末是 3月14日（周六）和 3月15日（周日）。[0] 正好在周六，最相关；[1] 每周日的网课这周日也有；[2] 是已经过去的待办；[3] 是上个周末的事，不是这周末的安排。
输出：[0, 1]

## 示例 3：跨分区排除
当前日期：2026-06-02 星期二
[0] (项目) 用户在用 Unity 开发一款塔防游戏的 Demo。 ｜日期 2026-05-28 ｜引用 9 次
[1] (品味) 用户喜欢节奏类手游，玩过《Cytus》和《Arcaea》。 ｜日期 2026-04-10 ｜引用 3 次
[2] (品味) 用户不喜欢需要长时间挂机在线的 MMO。 ｜日期 2026-02-22 ｜引用 2 次
[3] (地点与路径) 用户每天坐地铁 2 号线通勤，单程约 40 分钟。 ｜日期 2026-03-15 ｜引用 5 次
用户：推荐一款适合通勤路上玩的手机游戏
推理：这是关于“玩什么”的偏好查询。[1] 直接说明喜欢的游戏类型；[2] 说明要避开的类型；[3] 告诉我们通勤时长和场景，都相关。[0] 虽然也有“游戏”二字且引用次数最高，但那是他在做的开发项目，与想玩什么无关，应当排除。
输出：[1, 2, 3]
"""

_WHITESPACE = re.compile(r"\s+")


def _one_line(text: Any, limit: int | None = None) -> str:
    flat = _WHITESPACE.sub(" ", str(text if text is not None else "")).strip()
    if limit is not None and len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return flat


def format_today(now: datetime | date) -> str:
    """``2026-12-02 星期三``."""
    day = now.date() if isinstance(now, datetime) else now
    return f"{day.isoformat()} {weekday_zh(day)}"


def truncate_query(query: str, limit: int = MAX_QUERY_CHARS) -> str:
    """Keep the last ``limit`` characters of a long query (the newest words matter most)."""
    query = query.strip()
    if len(query) <= limit:
        return query
    return "……（前文省略）" + query[-limit:]


def format_memory_line(index: int, record: Mapping[str, Any]) -> str:
    """``[i] (theme) description ｜日期 YYYY-MM-DD ｜引用 N 次`` on one line."""
    updated = parse_time(record.get("latest_update_time"))
    day = updated.date().isoformat() if updated else "未知"
    try:
        hits = max(int(record.get("hit") or 0), 0)
    except (TypeError, ValueError):
        hits = 0
    theme = _one_line(record.get("theme"), 40) or "未分区"
    description = _one_line(record.get("description"), MAX_DESCRIPTION_CHARS)
    return f"[{index}] ({theme}) {description} ｜日期 {day} ｜引用 {hits} 次"


def build_user_prompt(query: str, records: Iterable[Mapping[str, Any]], now: datetime | date) -> str:
    """The human message: today's date, the numbered memories, then the (bounded) query."""
    lines = [format_memory_line(i, record) for i, record in enumerate(records)]
    span = f"编号 0–{len(lines) - 1}" if lines else "无"
    return (
        f"## 当前日期\n{format_today(now)}\n\n"
        f"## 记忆库（共 {len(lines)} 条，{span}）\n"
        + "\n".join(lines)
        + f"\n\n## 用户的话\n{truncate_query(query)}\n\n"
        "请按规则只输出相关记忆编号的 JSON 数组。"
    )
