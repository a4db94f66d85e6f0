"""The settings page "回忆": how many memories the recall model reads per message (the token
budget, automatic by default) and the embeddings model that lets recall find memories by meaning:
built in (offline, the default; the page says which model runs on this platform, or what runs
instead where there is none), an OpenAI-compatible /v1/embeddings endpoint (a preset, a model of the
chat's local server — Ollama or LM Studio, listed from the server — or any other; its key kept in
the keyring), or none. A test button tries what is chosen. The settings dialog adds it as a tab;
the services apply it (``agent/recall_setup.py``)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ..widgets.tasks import task_scope
from sonetto_desktop.agent.recall_setup import INSTALLED, embeddings_plan, resolve_builtin
from sonetto_desktop.config.providers import same_server
from sonetto_desktop.config.settings import Settings
from sonetto_desktop.presentation.i18n import filled
from sonetto_desktop.memory.retrieval.budget import CLOUD_BUDGET, LOCAL_BUDGET_MAX, budget_for, is_local_endpoint
from .recall_cost_line import RecallCostLine
from sonetto_desktop.memory.retrieval.builtin_model import PLATFORMS, platform_label
from sonetto_desktop.memory.retrieval.embeddings import MAX_DIMENSIONS, PRESETS

from ..i18n import ui_language
from ..widgets.deferred import alive
from ..widgets.owner import Owner
from ..widgets.tooltips import plain_tooltip
from .fields import with_secret_toggle
from ..memory_service import call
from ...ops import Failed


def _test_embeddings(settings: Settings, builtin: Any) -> Any:
    """Embed one text with the page's model (in a worker: imports numpy and httpx or loads the
    built-in model, makes a request)."""
    from sonetto_desktop.agent.recall_setup import embeddings_config
    from sonetto_desktop.memory.retrieval.builtin_model import open_client

    config = embeddings_config(settings, builtin)
    if config is None:
        return None
    client = open_client(config)
    try:
        return client.test()
    finally:
        client.close()


def _local_models(base_url: str, api_key: str) -> Any:
    from sonetto_desktop.memory.retrieval.embeddings import local_server_models

    return local_server_models(base_url, api_key)


SOURCES = ("builtin", "endpoint", "off")


def _tried(settings: Settings) -> tuple[Any, ...]:
    """What an embeddings test is for: an answer for anything else is not shown."""
    return (settings.embeddings_source, settings.effective_embeddings_base_url, settings.effective_embeddings_api_key,
            settings.embeddings_model.strip(), settings.embeddings_dimensions)


class RecallPage(QWidget):
    embeddings_tested = Signal(object)  # embeddings.TestResult
    local_models_listed = Signal(object)  # embeddings.LocalServerModels
    _dialog = Owner()  # the settings dialog, held weakly: the page and its dialog form no reference cycle (widgets/owner.py)

    def __init__(self, dialog: Any, *, builtin: Any = INSTALLED, bank: Any = None) -> None:
        """``builtin``: this installation's built-in embeddings model (default: what is installed;
        None: a platform without one). ``bank``: gives the recall listing of the open store (called
        in a worker; None: no store, no cost line)."""
        super().__init__(dialog)
        self._dialog = dialog
        self.builtin = resolve_builtin(builtin)
        self._tasks = task_scope(self, "recall-page")  # cancelled when the page goes
        keeper = self._tasks
        self.destroyed.connect(lambda *_: keeper.cancel_all())
        self.last_test = None
        self.last_local = None
        self._local_url = ""  # the local server the models of ``local_models`` were listed from
        budget_rows = self._build_budget(dialog, bank)
        self.embeddings = QGroupBox(self.tr("按意思回忆（向量模型）"), self)
        self.embeddings.setObjectName("EmbeddingsGroup")
        self._build_sources()
        self._build_endpoint()
        self._build_embeddings_group()
        chat = [getattr(dialog, name, None) for name in ("base_url", "api_key")]  # an empty address: the chat's
        for changed in (self.sources.buttonToggled, self.base_url.textChanged, self.api_key.textChanged,
                        self.model.textChanged, self.dimensions.valueChanged,
                        *(field.textChanged for field in chat if field is not None)):
            changed.connect(self._tried_edited)
        form = QFormLayout(self)
        for label, field in budget_rows:
            if label is None:
                form.addRow(field)  # a row of its own, the whole width
            else:
                form.addRow(label, field)
        form.addRow(self.embeddings)

    @staticmethod
    def _hint(text: str, parent: QWidget) -> QLabel:
        """A wrapped hint line (the QSS's ``HintLabel``)."""
        label = QLabel(text, parent)
        label.setWordWrap(True)
        label.setObjectName("HintLabel")
        return label

    def _build_budget(self, dialog: Any, bank: Any) -> list[tuple[str | None, QWidget]]:
        """The recall budget's fields; returns the form's rows for them (label, field)."""
        intro = self._hint(self.tr(
            "回复之前，Sonetto 先请模型把记忆读一遍，挑出和这句话有关的。记忆不多时模型读全部记忆；"
            "多到超出下面的额度时，读最近的一部分，再加上和这句话最可能相关的那些。"), self)
        self.budget_auto = QCheckBox(self.tr("自动"), self)
        # what "automatic" means, in a label that wraps (a check box's text does not: it widened the page)
        self.auto_hint = self._hint(filled(self.tr("云端模型 %1（记忆不超过它时读全部）；本机模型 %2，受它的上下文长度所限。"),
            f"{CLOUD_BUDGET:,}", f"{LOCAL_BUDGET_MAX:,}"), self)
        self.budget = QSpinBox(self)
        self.budget.setRange(1_000, 2_000_000)
        self.budget.setSingleStep(4_000)
        self.budget.setSuffix(" tokens")
        self.budget.setGroupSeparatorShown(True)
        self.budget_auto.toggled.connect(lambda auto: self.budget.setEnabled(not auto))
        self.budget_auto.toggled.connect(lambda *_: self._show_automatic())
        chat_url = getattr(dialog, "base_url", None)  # the automatic budget depends on where the chat model is
        if chat_url is not None:
            chat_url.textChanged.connect(lambda *_: self._show_automatic())
        budget_hint = self._hint(self.tr("每条消息回忆时最多读多少 token 的记忆。额度越大，越少漏掉记忆，但每条消息更贵、"
                                         "更慢（支持前缀缓存的服务会便宜很多）。"), self)
        self.cost = RecallCostLine(self, bank)  # what a message costs at this budget (its own module)
        return [(None, intro), (self.tr("回忆额度"), self.budget_auto), ("", self.auto_hint), ("", self.budget),
                ("", budget_hint), ("", self.cost)]

    def _build_sources(self) -> None:
        """Where vectors come from: built in, an endpoint, or none."""
        self.source_builtin = QRadioButton(self.tr("内置模型（在这台电脑上计算，不用联网，不用设置）"), self.embeddings)
        self.source_endpoint = QRadioButton(self.tr("向量服务（OpenAI 兼容的 /v1/embeddings 接口）"), self.embeddings)
        self.source_off = QRadioButton(self.tr("不用向量模型：只按字面回忆"), self.embeddings)
        self.sources = QButtonGroup(self)
        for button, key in zip((self.source_builtin, self.source_endpoint, self.source_off), SOURCES, strict=True):
            button.setProperty("source", key)
            self.sources.addButton(button)
        self.sources.buttonToggled.connect(lambda *_: self._follow_source())
        self.plan_label = QLabel(self.embeddings)  # what runs on this platform for the chosen source
        self.plan_label.setObjectName("EmbeddingsPlan")
        self.plan_label.setWordWrap(True)

    def _build_endpoint(self) -> None:
        """The endpoint's fields (used when it is the source)."""
        self.endpoint = QWidget(self.embeddings)
        self.preset = QComboBox(self.endpoint)
        self.preset.addItem(self.tr("自定义"), "custom")
        english = ui_language() == "en"
        for preset in PRESETS.values():
            self.preset.addItem(preset.label_in(english), preset.key)
        self.preset.activated.connect(self._apply_preset)
        self.list_local_button = QPushButton(self.tr("列出本机服务的向量模型"), self.endpoint)
        self.list_local_button.setToolTip(self.tr("对话模型在本机（Ollama、LM Studio）时，列出它已有的向量模型"))
        self.list_local_button.clicked.connect(lambda: self._tasks.spawn(self.list_local_models(), name="local-models"))
        self.local_models = QComboBox(self.endpoint)
        self.local_models.setVisible(False)
        self.local_models.activated.connect(self._pick_local_model)
        self.local_result = self._hint("", self.endpoint)
        self.base_url = QLineEdit(self.endpoint)
        self.base_url.setPlaceholderText(self.tr("留空：与对话模型相同"))
        self.api_key = QLineEdit(self.endpoint)
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key.setPlaceholderText(self.tr("留空：与对话模型相同（仅当服务地址也相同）"))
        self._api_key_row, self.show_key_button = with_secret_toggle(self.api_key, self.endpoint)
        self.model = QLineEdit(self.endpoint)
        self.model.setPlaceholderText("text-embedding-v3 · BAAI/bge-m3 · bge-m3")
        self.dimensions = QSpinBox(self.endpoint)
        self.dimensions.setRange(0, MAX_DIMENSIONS)  # a larger answer is refused
        self.dimensions.setSpecialValueText(self.tr("模型默认"))
        self.rpm = QSpinBox(self.endpoint)
        self.rpm.setRange(0, 100_000)
        self.rpm.setSpecialValueText(self.tr("自动"))
        self.rpm.setSuffix(self.tr(" 次/分钟"))
        local_row = QHBoxLayout()
        local_row.addWidget(self.list_local_button)
        local_row.addWidget(self.local_models, 1)
        privacy = self._hint(self.tr(
            "向量服务会收到每条记忆的文字（在后台计算向量，新的和改过的记忆随时补上，删除的记忆连同向量一起删除）和你说的话；"
            "如果它和对话模型不是同一家服务，记忆也会发给这家服务。"), self.endpoint)
        fields = QFormLayout(self.endpoint)
        fields.setContentsMargins(0, 0, 0, 0)
        fields.addRow(self.tr("预设"), self.preset)
        fields.addRow(local_row)
        fields.addRow(self.local_result)
        for label, field in ((self.tr("服务地址"), self.base_url), (self.tr("API 密钥"), self._api_key_row),
                             (self.tr("模型"), self.model), (self.tr("向量维度"), self.dimensions),
                             (self.tr("请求频率上限"), self.rpm)):
            fields.addRow(label, field)
        fields.addRow(privacy)

    def _build_embeddings_group(self) -> None:
        """The group's column: the sources, what runs here, the endpoint, and the test."""
        platforms = self._hint(self._platforms_text(), self.embeddings)
        self.test_button = QPushButton(self.tr("测试向量模型"), self.embeddings)
        self.test_button.clicked.connect(lambda: self._tasks.spawn(self.test_embeddings(), name="test-embeddings"))
        self.test_result = QLabel(self.embeddings)
        self.test_result.setWordWrap(True)
        self.test_result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row = QHBoxLayout()
        row.addWidget(self.test_button)
        row.addWidget(self.test_result, 1)
        group = QVBoxLayout(self.embeddings)
        for widget in (self.source_builtin, self.source_endpoint, self.source_off, self.plan_label, platforms,
                       self.endpoint):
            group.addWidget(widget)
        group.addLayout(row)

    def title(self) -> str:
        return self.tr("回忆")

    def _tried_edited(self, *_: Any) -> None:
        """The source or the endpoint changed: a test's result was for the one before."""
        self.last_test = None
        if self.test_button.isEnabled():  # (a test under way keeps saying so; its answer is dropped)
            self.test_result.clear()
            self.test_result.setToolTip("")

    # ── the source and what runs ───────────────────────────────────────

    @property
    def source(self) -> str:
        checked = self.sources.checkedButton()
        return str(checked.property("source")) if checked is not None else "builtin"

    def set_source(self, source: str) -> None:
        for button in self.sources.buttons():
            if button.property("source") == source:
                button.setChecked(True)

    def _platforms_text(self) -> str:
        lines = {}
        for _, _, label, model in PLATFORMS:
            lines.setdefault(model.label, []).append(label)
        english = ui_language() == "en"
        one, other, gap = (", ", "; ", " ") if english else ("、", "；", "")
        where = self.tr("内置模型：%1。").replace("%1", other.join(
            f"{one.join(labels)} → {label}" for label, labels in lines.items()))
        return where + gap + self.tr("没有内置模型时，用填好的向量服务，否则只按字面回忆。")

    def _follow_source(self) -> None:
        self.endpoint.setEnabled(self.source == "endpoint")
        self.endpoint.setVisible(self.source == "endpoint")  # hidden fields leave the page room to breathe
        self.plan_label.setText(self.plan_text())

    def plan_text(self) -> str:
        """What runs on this platform for the page's choice, in a sentence."""
        plan = embeddings_plan(self._values_settings(), self.builtin)
        here = platform_label()
        if plan.runs == "builtin":
            return filled(self.tr("这台电脑（%1）：内置模型 %2，在本机计算，记忆不离开这台电脑。第一次会在后台为每条记忆计算向量。"),
                          here, plan.builtin.label if plan.builtin else plan.model)
        if plan.fallback and plan.runs == "endpoint":
            return self.tr("这台电脑（%1）没有内置模型：改用下面填好的向量服务 %2。").replace("%1", here).replace(
                "%2", plan.model)
        if plan.fallback:
            return self.tr("这台电脑（%1）没有内置模型：回忆只按字面找记忆。可以在下面填一个向量服务（比如 Ollama 的 bge-m3）。").replace(
                "%1", here)
        if plan.runs == "endpoint":
            return self.tr("回忆用向量服务 %1 按意思找记忆。").replace("%1", plan.model)
        if self.source == "endpoint":
            return self.tr("请在下面填写向量服务。")
        return self.tr("回忆只按字面找记忆。")

    def _values_settings(self) -> Settings:
        """The dialog's settings with this page's values (what the plan is worked out from)."""
        import dataclasses

        current = getattr(self._dialog, "current_settings", None)
        base = current() if callable(current) and getattr(self._dialog, "recall_page", None) is self else Settings()
        return dataclasses.replace(base, **self.values())

    # ── the endpoint's fields ──────────────────────────────────────────

    def _apply_preset(self, index: int) -> None:
        preset = PRESETS.get(self.preset.itemData(index))
        if preset is not None:
            if not same_server(self.base_url.text(), preset.base_url):  # host and port: another port is another server
                self.api_key.clear()  # another server's key is never sent to this one (empty: asked for)
            self.base_url.setText(preset.base_url)
            self.model.setText(preset.model)
            self.dimensions.setValue(0)
            self.rpm.setValue(0)
        self._follow_source()

    def _pick_local_model(self, index: int) -> None:
        """A model of the chat's local server: that server's address (written in: the embeddings stay
        there when the chat moves to another service later), its name."""
        name = self.local_models.itemData(index)
        if not name:
            return
        self.preset.setCurrentIndex(max(self.preset.findData("custom"), 0))
        self.base_url.setText(self._local_url)
        self.api_key.clear()  # a cloud provider's key is not the local server's
        self.model.setText(str(name))
        self.dimensions.setValue(0)
        self.rpm.setValue(0)
        self.set_source("endpoint")
        self._follow_source()

    async def list_local_models(self) -> None:
        """Ask the chat's local server (Ollama: /api/tags; LM Studio: /api/v0/models, /v1/models) which
        embeddings models it has, in a worker, and offer them."""
        settings = self._dialog.current_settings()
        url = settings.effective_base_url
        if not url or not is_local_endpoint(url):
            self.local_result.setText(self.tr("对话模型不在本机：只能列出本机的 Ollama 或 LM Studio 的模型。"))
            return
        self.list_local_button.setEnabled(False)
        self.local_result.setText(self.tr("正在询问 %1…").replace("%1", url))
        asked = await call(_local_models, url, settings.api_key)
        if not alive(self):
            return
        self.list_local_button.setEnabled(True)
        if isinstance(asked, Failed):
            self.local_result.setText("✗ " + asked.message)
            return
        found = asked.value
        self.last_local = found
        self._local_url = url
        self.local_models.clear()
        server = {"ollama": "Ollama", "lm-studio": "LM Studio"}.get(found.server, "")
        if not found.models:
            self.local_models.setVisible(False)
            if not server:
                self.local_result.setText(self.tr("%1 没有回答 Ollama 或 LM Studio 的模型列表。").replace("%1", url))
            else:
                self.local_result.setText(self.tr("%1 上没有向量模型。Ollama 可以先运行 ollama pull bge-m3。").replace(
                    "%1", server))
        else:
            self.local_models.addItem(self.tr("选择 %1 的向量模型…").replace("%1", server), "")
            for name in found.models:
                self.local_models.addItem(name, name)
            self.local_models.setVisible(True)
            text = filled(self.tr("%1 有 %2 个向量模型。"), server, len(found.models))
            if not found.said:
                text += self.tr("（服务没有说明哪些是向量模型：按名称挑出）")
            self.local_result.setText(text)
        self.local_models_listed.emit(found)

    # ── values ─────────────────────────────────────────────────────────

    def load(self, settings: Settings) -> None:
        auto = settings.recall_budget_tokens <= 0
        self.budget_auto.setChecked(auto)
        self.budget.setValue(settings.recall_budget_tokens if not auto else CLOUD_BUDGET)
        self.budget.setEnabled(not auto)
        self._show_automatic()
        self.preset.setCurrentIndex(max(self.preset.findData(settings.embeddings_preset or "custom"), 0))
        self.base_url.setText(settings.embeddings_base_url)
        self.api_key.setText(settings.embeddings_api_key)
        self.model.setText(settings.embeddings_model)
        self.dimensions.setValue(settings.embeddings_dimensions)
        self.rpm.setValue(settings.embeddings_rpm)
        self.set_source(settings.embeddings_source)
        self._follow_source()

    def _show_automatic(self) -> None:
        """While 自动 is on, the box shows the budget automatic means for the chat model's address
        (a local server's starting budget, not the cloud's)."""
        if not self.budget_auto.isChecked():
            return
        field = getattr(self._dialog, "base_url", None)
        url = field.text().strip() if field is not None else ""
        self.budget.setValue(budget_for(url, None) if url else CLOUD_BUDGET)

    def values(self) -> dict[str, Any]:
        """The page's fields as Settings values."""
        return {"recall_budget_tokens": 0 if self.budget_auto.isChecked() else self.budget.value(),
                "embeddings_source": self.source,
                "embeddings_preset": self.preset.currentData() or "custom",
                "embeddings_base_url": self.base_url.text().strip(),
                "embeddings_api_key": self.api_key.text().strip(),
                "embeddings_model": self.model.text().strip(),
                "embeddings_dimensions": self.dimensions.value(),
                "embeddings_rpm": self.rpm.value()}

    async def test_embeddings(self) -> None:
        """Embed one text with what the page chose (in a worker thread) and say what happened."""
        settings = self._dialog.current_settings()
        plan = embeddings_plan(settings, self.builtin)
        self.test_result.setToolTip("")
        if plan.runs == "off":
            self.test_result.setText("✗ " + (self.tr("请先填写向量模型的名称和服务地址。") if settings.embeddings_source != "off"
                                             else self.tr("没有选用向量模型。")))
            return
        self.test_button.setEnabled(False)
        self.test_result.setText(self.tr("正在加载内置模型…") if plan.runs == "builtin" else self.tr("正在连接…"))
        tested = await call(_test_embeddings, settings, self.builtin)
        if not alive(self):  # the page may have been closed and deleted meanwhile
            return
        self.test_button.setEnabled(True)
        if _tried(self._dialog.current_settings()) != _tried(settings):  # the person moved on meanwhile
            self.test_result.clear()
            return
        if isinstance(tested, Failed):
            self.test_result.setText("✗ " + tested.message)
            self.test_result.setToolTip(plain_tooltip(tested.exact))
            return
        result = tested.value
        self.last_test = result
        self.test_result.setText(self.tested_text(result))
        self.test_result.setToolTip(plain_tooltip(str(result.error)) if result.error is not None else "")  # the exact words, as written
        self.embeddings_tested.emit(result)

    def tested_text(self, result: Any) -> str:
        """An embeddings test's outcome (``embeddings.TestResult``) in the UI's language: what failed
        is said from the error's ``words`` (a server's or a library's own English is the tooltip's)."""
        if result.ok:
            text = (self.tr("内置向量模型可用：%1 维，%2 毫秒（含加载）") if result.builtin
                    else self.tr("向量模型可用：%1 维，%2 毫秒"))
            return "✓ " + filled(text, result.dimensions, f"{result.latency_ms or 0:.0f}")
        error = result.error
        words = tuple(getattr(error, "words", ()) or ())
        if words[:1] and words[0].startswith("check_"):  # BuiltinUnavailable: the install is at fault
            return "✗ " + filled(self.tr("内置向量模型在这台电脑上运行不了：%1。回忆只按字面找记忆；可以改用向量服务。"),
                                 self._reason(words))
        lead = self.tr("内置向量模型不可用：%1") if result.builtin else self.tr("向量模型不可用：%1")
        return "✗ " + filled(lead, self._reason(words)) + self._status_hint(getattr(error, "status", None))

    def _reason(self, words: tuple[str, ...]) -> str:
        """What failed, from an ``EmbeddingsError``'s ``words`` (kind, values)."""
        kind, values = (words[0], words[1:]) if words else ("", ())

        def said(text: str) -> str:
            return filled(text, *values)

        if kind == "timeout":
            return said(self.tr("%1 在 %2 秒内没有回答"))
        if kind == "unreachable":
            return said(self.tr("连不上 %1（服务没有运行，或地址不对）"))
        if kind == "http":
            return said(self.tr("服务回答了错误 HTTP %1"))
        if kind == "closed":
            return self.tr("它已经关闭")
        if kind == "too_large":
            return said(self.tr("回答超过 %1 MB，不是向量模型的回答"))
        if kind == "not_embeddings":
            return self.tr("回答不是向量接口的格式")
        if kind == "count":
            return said(self.tr("要了 %1 个向量，回答了 %2 个"))
        if kind == "too_wide":
            return said(self.tr("回答的向量有 %1 个数，比向量模型给的都多：不是模型的回答"))
        if kind == "sizes":
            return self.tr("回答的向量长短不一")
        if kind == "empty":
            return self.tr("回答的向量是空的")
        if kind == "size":
            return said(self.tr("回答的向量有 %1 个数，原有的向量有 %2 个"))
        if kind == "not_numbers":
            return self.tr("回答的向量不全是数字")
        if kind == "no_builtin":
            return said(self.tr("没有名为 %1 的内置模型"))
        if kind == "builtin_load":
            return self.tr("加载不了")
        if kind == "check_timeout":
            return said(self.tr("试着加载它的进程 %1 秒没有完成"))
        if kind == "check_crashed":
            return said(self.tr("加载它的进程崩溃了（%1）：模型文件可能损坏，或这台电脑的处理器不支持它的计算引擎"))
        if kind == "check_failed":
            return self.tr("加载失败")
        return self.tr("请求失败")  # ("failed": a library's own words, in the tooltip)

    def _status_hint(self, status: int | None) -> str:
        """What to check for an HTTP status that says it."""
        if status in (401, 403):
            return self.tr("。请检查 API 密钥。")
        if status == 404:
            return self.tr("。请检查服务地址和模型名称（旧版 Ollama 没有 /v1/embeddings）。")
        if status == 400:
            return self.tr("。这个模型可能不是向量模型，或不支持所填的维度。")
        return ""
