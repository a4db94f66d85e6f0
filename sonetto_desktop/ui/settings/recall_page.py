"""The settings page "回忆": how many memories the recall model reads per message (the token
budget, automatic by default) and the optional embeddings model (a preset or any OpenAI-compatible
/v1/embeddings endpoint, its key kept in the keyring, with a test button). The settings dialog adds
it as a tab; the services apply it (``agent/recall_setup.py``)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from ..widgets.tasks import task_scope
from sonetto_desktop.config.settings import Settings
from sonetto_desktop.memory.retrieval.budget import CLOUD_BUDGET
from sonetto_desktop.memory.retrieval.embeddings import MAX_DIMENSIONS, PRESETS

from ..widgets.deferred import alive
from .fields import with_secret_toggle
from ...aio import run_blocking



def _test_embeddings(settings: Settings) -> Any:
    """Embed one text with the page's model (in a worker: imports numpy and httpx, makes a request)."""
    from sonetto_desktop.agent.recall_setup import embeddings_config
    from sonetto_desktop.memory.retrieval.embeddings import EmbeddingsClient

    config = embeddings_config(settings)
    if config is None:
        return None
    client = EmbeddingsClient(config)
    try:
        return client.test()
    finally:
        client.close()


class RecallPage(QWidget):
    embeddings_tested = Signal(object)  # embeddings.TestResult

    def __init__(self, dialog: Any) -> None:
        super().__init__(dialog)
        self._dialog = dialog
        self._tasks = task_scope(self, "recall-page")  # cancelled when the page goes
        keeper = self._tasks
        self.destroyed.connect(lambda *_: keeper.cancel_all())
        self.last_test = None
        intro = QLabel(self.tr(
            "回复之前，Sonetto 先请模型把记忆读一遍，挑出和这句话有关的。记忆不多时模型读全部记忆；"
            "多到超出下面的额度时，读最近的一部分，再加上和这句话最可能相关的那些。"), self)
        intro.setWordWrap(True)
        intro.setObjectName("HintLabel")
        self.budget_auto = QCheckBox(self.tr("自动（云端模型 %1；本机模型按它的上下文长度）").replace(
            "%1", f"{CLOUD_BUDGET:,}"), self)
        self.budget = QSpinBox(self)
        self.budget.setRange(1_000, 2_000_000)
        self.budget.setSingleStep(4_000)
        self.budget.setSuffix(" tokens")
        self.budget.setGroupSeparatorShown(True)
        self.budget_auto.toggled.connect(lambda auto: self.budget.setEnabled(not auto))
        budget_hint = QLabel(self.tr("每条消息回忆时最多读多少 token 的记忆。额度越大，越少漏掉记忆，但每条消息更贵、"
                                     "更慢（支持前缀缓存的服务会便宜很多）。"), self)
        budget_hint.setWordWrap(True)
        budget_hint.setObjectName("HintLabel")

        self.embeddings = QGroupBox(self.tr("向量模型（可选）"), self)
        self.embeddings.setCheckable(True)
        self.embeddings.setObjectName("EmbeddingsGroup")
        self.preset = QComboBox(self.embeddings)
        self.preset.addItem(self.tr("自定义"), "custom")
        for preset in PRESETS.values():
            self.preset.addItem(preset.label, preset.key)
        self.preset.activated.connect(self._apply_preset)
        self.base_url = QLineEdit(self.embeddings)
        self.base_url.setPlaceholderText(self.tr("留空：与对话模型相同"))
        self.api_key = QLineEdit(self.embeddings)
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key.setPlaceholderText(self.tr("留空：与对话模型相同（仅当服务地址也相同）"))
        self._api_key_row, self.show_key_button = with_secret_toggle(self.api_key, self.embeddings)
        self.model = QLineEdit(self.embeddings)
        self.model.setPlaceholderText("text-embedding-v3 · BAAI/bge-m3 · bge-m3")
        self.dimensions = QSpinBox(self.embeddings)
        self.dimensions.setRange(0, MAX_DIMENSIONS)  # a larger answer is refused
        self.dimensions.setSpecialValueText(self.tr("模型默认"))
        self.rpm = QSpinBox(self.embeddings)
        self.rpm.setRange(0, 100_000)
        self.rpm.setSpecialValueText(self.tr("自动"))
        self.rpm.setSuffix(self.tr(" 次/分钟"))
        self.test_button = QPushButton(self.tr("测试向量模型"), self.embeddings)
        self.test_button.clicked.connect(lambda: self._tasks.spawn(self.test_embeddings(), name="test-embeddings"))
        self.test_result = QLabel(self.embeddings)
        self.test_result.setWordWrap(True)
        self.test_result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row = QHBoxLayout()
        row.addWidget(self.test_button)
        row.addWidget(self.test_result, 1)
        privacy = QLabel(self.tr(
            "向量模型让回忆按意思找记忆，而不只是按字面。它会收到每条记忆的文字（在后台计算向量，新的和改过的记忆随时补上，"
            "删除的记忆连同向量一起删除）和你说的话；如果它和对话模型不是同一家服务，记忆也会发给这家服务。"), self.embeddings)
        privacy.setWordWrap(True)
        privacy.setObjectName("HintLabel")
        group = QFormLayout(self.embeddings)
        group.addRow(self.tr("预设"), self.preset)
        group.addRow(self.tr("服务地址"), self.base_url)
        group.addRow(self.tr("API 密钥"), self._api_key_row)
        group.addRow(self.tr("模型"), self.model)
        group.addRow(self.tr("向量维度"), self.dimensions)
        group.addRow(self.tr("请求频率上限"), self.rpm)
        group.addRow(row)
        group.addRow(privacy)

        form = QFormLayout(self)
        form.addRow(intro)
        form.addRow(self.tr("回忆额度"), self.budget_auto)
        form.addRow("", self.budget)
        form.addRow("", budget_hint)
        form.addRow(self.embeddings)

    def title(self) -> str:
        return self.tr("回忆")

    def _apply_preset(self, index: int) -> None:
        preset = PRESETS.get(self.preset.itemData(index))
        if preset is not None:
            self.base_url.setText(preset.base_url)
            self.model.setText(preset.model)
            self.dimensions.setValue(0)
            self.rpm.setValue(0)

    def load(self, settings: Settings) -> None:
        auto = settings.recall_budget_tokens <= 0
        self.budget_auto.setChecked(auto)
        self.budget.setValue(settings.recall_budget_tokens if not auto else CLOUD_BUDGET)
        self.budget.setEnabled(not auto)
        self.embeddings.setChecked(settings.embeddings_enabled)
        self.preset.setCurrentIndex(max(self.preset.findData(settings.embeddings_preset or "custom"), 0))
        self.base_url.setText(settings.embeddings_base_url)
        self.api_key.setText(settings.embeddings_api_key)
        self.model.setText(settings.embeddings_model)
        self.dimensions.setValue(settings.embeddings_dimensions)
        self.rpm.setValue(settings.embeddings_rpm)

    def values(self) -> dict[str, Any]:
        """The page's fields as Settings values."""
        return {"recall_budget_tokens": 0 if self.budget_auto.isChecked() else self.budget.value(),
                "embeddings_enabled": self.embeddings.isChecked(),
                "embeddings_preset": self.preset.currentData() or "custom",
                "embeddings_base_url": self.base_url.text().strip(),
                "embeddings_api_key": self.api_key.text().strip(),
                "embeddings_model": self.model.text().strip(),
                "embeddings_dimensions": self.dimensions.value(),
                "embeddings_rpm": self.rpm.value()}

    async def test_embeddings(self) -> None:
        """Embed one text with the page's values (in a worker thread) and say what happened."""
        settings = self._dialog.current_settings()
        english = settings.language == "en"
        if not settings.is_embeddings_configured:
            self.test_result.setText("✗ " + (self.tr("请先填写向量模型的名称和服务地址。")))
            return
        self.test_button.setEnabled(False)
        self.test_result.setText(self.tr("正在连接…"))
        try:
            result = await run_blocking(_test_embeddings, settings)
        finally:
            if alive(self):  # the page may have been closed and deleted meanwhile
                self.test_button.setEnabled(True)
        if not alive(self):
            return
        self.last_test = result
        self.test_result.setText(("✓ " if result.ok else "✗ ") + (result.en if english else result.zh))
        self.embeddings_tested.emit(result)
