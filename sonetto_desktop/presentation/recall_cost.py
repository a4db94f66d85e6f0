"""The line beside the recall budget: about how many tokens recall sends per message (the memories,
within the budget, and the prompt around them: a total above the budget is not read as the budget
broken), how much of it repeats the previous message (a prefix cache serves that part cheaper) and, where a price is known,
what that costs (``memory.retrieval.recall_cost``). No Qt."""

from __future__ import annotations

from ..memory.retrieval.recall_cost import RecallCost
from .i18n import counted, translate

__all__ = ["cost_text", "money"]


def money(value: float, currency: str) -> str:
    """A small amount with enough digits to mean something: ¥0.0031, $0.42, ¥12.50."""
    if value >= 1:
        digits = 2
    elif value >= 0.01:
        digits = 3
    else:
        digits = 4
    return f"{currency}{value:.{digits}f}"


def _tokens(n: int) -> str:
    return counted(n)


def cost_text(cost: RecallCost) -> str:
    """One or two sentences in the front end's language."""
    if cost.memories == 0:
        return translate("RecallCost", "现在还没有记忆：回忆不调用模型，不花 token。")
    if cost.family.label:
        unit = (translate("RecallCost", "{0} 分词器计") if cost.exact else translate("RecallCost", "按 {0} 分词器的比例估算")).format(
            cost.family.label)
    else:
        unit = translate("RecallCost", "估算：不知道这个模型的分词器")
    if not cost.whole_bank and cost.listing > cost.budget:  # (the budget is in estimated tokens)
        unit += translate("RecallCost", "；额度按估算的 token 算，这个分词器数出来更多")
    if cost.whole_bank:
        what = translate("RecallCost", "按现在的 {0} 条记忆，回忆每条消息读全部记忆（约 {1} token），加上给模型的说明和你的消息，"
                                       "约发送 {2} token（{3}）")
    else:
        what = translate("RecallCost", "按现在的 {0} 条记忆（超出额度），回忆每条消息读额度以内的记忆约 {1} token，"
                                       "加上给模型的说明和你的消息，约发送 {2} token（{3}）")
    what = what.format(_tokens(cost.memories), _tokens(cost.listing), _tokens(cost.tokens), unit)
    if cost.local:
        return what + translate("RecallCost", "。本机运行，不花钱。")
    share = round(cost.repeats * 100)
    text = what + translate("RecallCost", "，其中约 {0}% 与上一条相同，支持前缀缓存的服务按缓存价计。").format(share)
    if cost.per_message is None:
        return text + translate("RecallCost", "不知道这个服务的价格，只显示 token 数。")
    currency = cost.price.currency if cost.price else ""
    source = cost.price.source if cost.price else ""
    priced = (translate("RecallCost", "约每条 {0}，每 100 条 {1}（{2} 标价，仅输入）。") if source
              else translate("RecallCost", "约每条 {0}，每 100 条 {1}（按你设置的价格，仅输入）。"))
    return text + priced.format(money(cost.per_message, currency), money(cost.per_message * 100, currency), source)
