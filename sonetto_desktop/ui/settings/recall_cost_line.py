"""The line under the recall budget: what recall sends per message for the open store and the chosen
endpoint, how much of it a prefix cache serves, and the money where a price is known
(``memory.retrieval.recall_cost``, worded by ``presentation.recall_cost``).

The store's memories are counted with the endpoint's tokenizer family in a worker (``memory_service.call``),
once per family while the dialog is open; a budget or endpoint change only redoes the arithmetic. With
回忆方式 本地检索, or no chat model set, recall asks no model: the line says it costs nothing."""

from __future__ import annotations

import logging
from typing import Any, Callable

from PySide6.QtCore import Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QLabel

from sonetto_desktop.memory.retrieval.budget import budget_for
from sonetto_desktop.memory.retrieval.recall_cost import bank_count, own_price, recall_cost
from sonetto_desktop.memory.retrieval.token_count import Family, counter_for, family_for
from sonetto_desktop.presentation.recall_cost import cost_text

from ..widgets.deferred import alive
from ..widgets.owner import Owner
from ..widgets.tasks import task_scope
from ..memory_service import call
from ...ops import Failed

log = logging.getLogger(__name__)

__all__ = ["RecallCostLine"]


def _count(bank: Callable[[], Any], family: Family) -> Any:
    """(the bank's BankCount, the system prompt's tokens) in ``family`` tokens (in a worker). The
    tokenizer is let go afterwards (44-77 MB); the counts stay cached for the next time."""
    counter = counter_for(family)
    try:
        return bank_count(bank(), counter)
    finally:
        counter.release()


class RecallCostLine(QLabel):
    cost_shown = Signal(object)  # recall_cost.RecallCost
    _page = Owner()  # the recall page, held weakly: no reference cycle with it (widgets/owner.py)

    def __init__(self, page: Any, bank: Callable[[], Any] | None) -> None:
        """``page``: the recall page (its budget fields and the dialog's settings); ``bank``: gives the
        open store's ``RecallListing`` (called in a worker; None: no line)."""
        super().__init__(page)
        self._page = page
        self._bank = bank
        self._counts: dict[str, Any] = {}
        self._counting: set[str] = set()
        self._shown = False
        self.last_cost = None
        self.setObjectName("HintLabel")
        self.setWordWrap(True)
        self.setToolTip(self.tr("回忆额度的单位是估算的 token：每个汉字和数字算 1 个，其他字符每 4 个算 1 个。"
                                "这里的 token 数按这个服务的分词器数，和账单上的一致。"))
        self.setVisible(bank is not None)
        self._tasks = task_scope(self, "recall-cost")
        keeper = self._tasks
        self.destroyed.connect(lambda *_: keeper.cancel_all())
        page.budget.valueChanged.connect(self.refresh)
        page.budget_auto.toggled.connect(self.refresh)
        dialog = page._dialog
        for name, signal in (("base_url", "textChanged"), ("api_key", "textChanged"), ("model", "currentTextChanged"),
                             ("retrieval_mode", "currentIndexChanged")):
            field = getattr(dialog, name, None)
            if field is not None and hasattr(field, signal):
                getattr(field, signal).connect(self.refresh)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._shown = True
        self.refresh()

    def refresh(self, *_: Any) -> None:
        """Say the cost for the page's values now; count the store first (in a worker) when this
        endpoint's tokenizer has not counted it yet. Nothing before the line is first shown."""
        if self._bank is None or not self._shown:
            return
        settings = self._page._values_settings()
        if settings.retrieval_mode == "mechanical":  # recall asks no model (``MemoryRecall._plan``)
            self.last_cost = None
            self.setText(self.tr("回忆方式是本地检索：回忆只在这台电脑上按字面找记忆，不调用模型，不花 token。"))
            return
        if not settings.is_llm_configured:  # no model to ask: words only, on this computer
            self.last_cost = None
            self.setText(self.tr("还没有设置对话模型：回忆只在这台电脑上按字面找记忆，不花 token。"))
            return
        url, model = settings.effective_base_url, settings.model.strip()
        family = family_for(url, model)
        counted = self._counts.get(family.key)
        if counted is None:
            self.setText(self.tr("正在统计记忆的 token…"))
            if family.key not in self._counting:
                self._counting.add(family.key)
                self._tasks.spawn(self._count(family), name="recall-cost-count")
            return
        bank, prompt = counted
        budget = settings.recall_budget_tokens if settings.recall_budget_tokens > 0 else budget_for(url, None)
        cost = recall_cost(bank, budget, base_url=url, model=model, prompt_tokens=prompt, family=family,
                           price=own_price(settings.price_input_per_mtok, settings.price_currency, url, model))
        self.last_cost = cost
        self.setText(cost_text(cost))
        self.cost_shown.emit(cost)

    async def _count(self, family: Family) -> None:
        counted = await call(_count, self._bank, family)
        if not alive(self):
            return
        self._counting.discard(family.key)
        if isinstance(counted, Failed):  # a store that cannot be read now: say so, the page still works
            self.setText(self.tr("现在统计不了记忆的 token：%1").replace("%1", counted.detail))
            return
        self._counts[family.key] = counted.value
        self.refresh()
