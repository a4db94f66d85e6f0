"""VectorNotices: what the window says about the embeddings model, beside the status bar's count.

- **No built-in model here, said once.** The built-in model is chosen (the default) but this
  installation has none (a platform without its wheels): a toast says what runs instead — the
  endpoint filled in on the 回忆 page, or words only — with a way to the settings. Said once per
  installation and fallback (``ui-state.ini``), not at every start.
- **The built-in model does not run here, said once.** Its engine failed to load (a damaged install,
  a processor it was not built for: ``builtin_model.check_engine``): a toast says that recall goes by
  the words only and where to choose an embeddings service instead (the reason is in the status
  bar's tooltip). Once per run.
- **The embeddings service is away, said once.** Recall could not get a message's vector (the status's
  ``query_failed``): a toast says recall goes by the words until the service answers again (once per
  model and run; the status bar says it while it lasts). The built-in model (in this process) that did
  not answer by the query's deadline is said to be busy, not away.
- **A new model re-embeds only with consent.** When the sync finds that the store's vectors are
  another model's (``VectorStatus`` "consent": the person switched between the built-in model and an
  endpoint, or an upgrade changed the built-in model), a question says how many memories, how long
  (built in) or what it may cost (an endpoint: estimated tokens, and the preset's list price), and
  that recall uses words only meanwhile. "开始计算" gives the consent (``AppServices.consent_vectors``);
  "以后再说" leaves it: the status bar keeps a link that asks again. Each question is its own
  (``VectorStatus.asked``): a sync restarted for the same model asks anew, and the box shown is its.
"""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from sonetto_desktop.memory.retrieval.builtin_model import platform_label
from sonetto_desktop.presentation.i18n import counted, filled

from ..i18n import ui_language

#: How long the fallback toast stays (it is said once: long enough to read).
FALLBACK_TIMEOUT_MS = 20000
FALLBACK_KEY = "notices/embeddings_fallback"


class VectorNotices(QObject):
    """``services``: the app's ``AppServices``; ``feed``: its ``AppFeed``; ``toasts()``: the window's
    toast overlay; ``window()``: the window the question is asked over; ``open_settings()``: the
    toast's way to the settings; ``ui_state``: where "said once" is kept (None: for this run only)."""

    consent_asked = Signal(object)  # the QMessageBox, while it is open
    fallback_said = Signal(str)  # the toast's text

    def __init__(self, services: Any, feed: Any, *, toasts: Callable[[], Any], window: Callable[[], QWidget | None],
                 open_settings: Callable[[], Any] | None = None, ui_state: QSettings | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._services = services
        self._feed = feed
        self._toasts = toasts
        self._window = window
        self._open_settings = open_settings
        self._ui_state = ui_state
        self._said: set[str] = set()
        self._asked: int | None = None  # the question (``VectorStatus.asked``) last asked: the open box's, if open
        self.question: QMessageBox | None = None
        feed.vectors_changed.connect(self._on_vectors)
        feed.agents_started.connect(self._check_fallback)
        feed.settings_applied.connect(self._check_fallback)

    def close(self) -> None:
        for signal, slot in ((self._feed.vectors_changed, self._on_vectors),
                             (self._feed.agents_started, self._check_fallback),
                             (self._feed.settings_applied, self._check_fallback)):
            try:
                signal.disconnect(slot)
            except (RuntimeError, TypeError):
                pass

    # ── no built-in model on this platform ─────────────────────────────

    def _check_fallback(self, *_: Any) -> None:
        plan = self._services.embeddings_plan()
        if not plan.fallback:
            return
        key = f"{platform_label()}|{plan.runs}|{plan.model}"
        said = str(self._ui_state.value(FALLBACK_KEY, "", type=str)) if self._ui_state is not None else ""
        if key == said or key in self._said:
            return
        self._said.add(key)
        if self._ui_state is not None:
            self._ui_state.setValue(FALLBACK_KEY, key)
        here = platform_label()

        def text() -> str:
            if plan.runs == "endpoint":
                return filled(self.tr("这台电脑（%1）没有内置的向量模型：回忆改用你填好的向量服务 %2 按意思找记忆。"),
                              here, plan.model)
            return self.tr("这台电脑（%1）没有内置的向量模型：回忆只按字面找记忆。在 设置 ▸ 回忆 填一个向量服务"
                           "（比如 Ollama 的 bge-m3），回忆就能按意思找。").replace("%1", here)

        toasts = self._toasts()
        if toasts is not None:
            action = (lambda: self.tr("设置…")) if self._open_settings is not None and plan.runs == "off" else None
            toasts.show_toast(text, key="embeddings-fallback", kind="info", timeout_ms=FALLBACK_TIMEOUT_MS,
                              action_text=action, on_action=self._open_settings if action else None, repeat=False)
        self.fallback_said.emit(text())

    def _check_builtin_failed(self, status: Any) -> None:
        plan = self._services.embeddings_plan()
        if plan.runs != "builtin" or status.model != plan.model or "builtin-failed" in self._said:
            return
        self._said.add("builtin-failed")
        text = lambda: self.tr("内置的向量模型在这台电脑上运行不了：回忆只按字面找记忆。可以在 设置 ▸ 回忆 改用向量服务"  # noqa: E731
                               "（比如 Ollama 的 bge-m3）；原因见状态栏的“向量”提示。")
        toasts = self._toasts()
        if toasts is not None:
            action = (lambda: self.tr("设置…")) if self._open_settings is not None else None
            toasts.show_toast(text, key="embeddings-builtin-failed", kind="error", timeout_ms=FALLBACK_TIMEOUT_MS,
                              action_text=action, on_action=self._open_settings if action else None, repeat=False)
        self.fallback_said.emit(text())

    def _say_service_away(self, status: Any) -> None:
        """Recall could not get the message's vector (the service is away): said once per model and
        run; the status bar keeps saying it while it lasts."""
        key = f"service-away|{status.model}"
        if key in self._said:
            return
        self._said.add(key)
        model = status.model
        if status.builtin_query:  # (the model runs inside the app: nothing to connect to)
            text = lambda: self.tr("内置向量模型 %1 正忙，没能及时回应：回忆暂时只按字面找记忆，稍后自动恢复按意思找。").replace(  # noqa: E731
                "%1", model)
        else:
            text = lambda: self.tr("向量服务 %1 连不上：回忆暂时只按字面找记忆，连上后自动恢复按意思找。").replace("%1", model)  # noqa: E731
        toasts = self._toasts()
        if toasts is not None:
            toasts.show_toast(text, key="embeddings-service-away", kind="info", timeout_ms=FALLBACK_TIMEOUT_MS,
                              repeat=False)
        self.fallback_said.emit(text())

    # ── consent to embed again ─────────────────────────────────────────

    def _on_vectors(self, status: Any) -> None:
        if status.state == "error":
            self._check_builtin_failed(status)
        if status.query_failed:
            self._say_service_away(status)
        if status.state != "consent":
            if self.question is not None and status.state != "stopped":
                self.question.close()  # agreed elsewhere, or the settings changed
            return
        if self._asked == status.asked:
            return  # asked already (the status bar's link asks again)
        self.ask(status)

    def ask(self, status: Any) -> QMessageBox | None:
        """Ask the person whether to embed every memory with ``status.model`` now. A box open for
        another question (another model chosen since, or the same one's sync restarted: a new
        question) is closed, agreeing to nothing: its words and cost may not be this one's, and its
        answer would agree to nothing now (``VectorSync.consent`` takes its own question's only)."""
        if self.question is not None:
            if self._asked == status.asked:
                self.question.raise_()
                return self.question
            self.question.close()
        self._asked = status.asked
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("更换向量模型"), self.question_text(status),
                          QMessageBox.StandardButton.NoButton, self._window())
        box.setObjectName("VectorConsent")
        start = box.addButton(self.tr("开始计算"), QMessageBox.ButtonRole.AcceptRole)
        box.addButton(self.tr("以后再说"), QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(start)

        def done(*_: Any) -> None:
            if box.clickedButton() is start:  # (to this question only: the settings may have changed since)
                self._services.consent_vectors(status.asked)
            if self.question is box:
                self.question = None

        box.finished.connect(done)
        self.question = box
        box.open()
        self.consent_asked.emit(box)
        return box

    def question_text(self, status: Any) -> str:
        from sonetto_desktop.agent.recall_setup import INSTALLED, reembed_cost

        builtin = getattr(self._services, "embeddings", {}).get("builtin", INSTALLED)
        cost = reembed_cost(status.total, status.tokens, self._services.settings, builtin)
        english = ui_language() == "en"
        gap = " " if english else ""  # (Chinese sentences follow each other without one)
        before = (self.tr("记忆库里的向量是 %1 算的。").replace("%1", status.previous) if status.previous
                  else self.tr("记忆库里的向量是之前的向量模型算的。"))
        text = self.tr("回忆现在用向量模型 %1。").replace("%1", status.model) + gap + before + "\n\n"
        text += self.tr("要为 %1 条记忆重新计算向量吗？").replace("%1", counted(status.total)) + gap
        if cost.where == "builtin":
            minutes = max(1, round(cost.minutes or 0))
            text += self.tr("在这台电脑上后台计算，不花钱，大约 %Ln 分钟。", "", minutes)
        elif cost.where == "local":
            text += self.tr("由本机的向量服务计算，不花钱。")
        else:
            text += self.tr("会把记忆的文字发给向量服务，约 %1 tokens").replace("%1", counted(cost.tokens))
            if cost.price is not None and cost.price > 0:
                label = cost.label_en if english else cost.label
                text += self.tr("，按 %1 的标价约 %2").replace("%1", label).replace(
                    "%2", f"{cost.currency}{cost.price:.2f}" if cost.price >= 0.01 else f"< {cost.currency}0.01")
            elif cost.price == 0:
                text += self.tr("，这个服务目前免费")
            text += self.tr("。")
        text += "\n\n" + self.tr("算好之前，回忆只按字面找记忆；新的向量算完后，旧的才会删除。")
        return text
